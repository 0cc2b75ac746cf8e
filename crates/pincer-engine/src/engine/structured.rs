//! The check of a final answer under `--json-schema`, shared by both engines (SPEC §3.4): a
//! valid answer ends the turn with its value; an invalid one is reported and sent back until
//! `structured_output.max_retries` is used up, then the turn ends with
//! [`Ending::StructuredOutputInvalid`]. Either end is recorded in the session as a
//! `pincer.structured_output` custom entry. How the errors reach the model (a user message, a
//! tool result, a resumed child) is the engine's.

use serde_json::Value;

use super::Ending;
use super::event::{Event, StructuredRetry};
use super::step::Turn;
use crate::conversation::{Message, MessageContent, UserMessage, now_millis};
use crate::session::record::NewEntry;
use crate::session::store::SessionError;
use crate::structured::{CUSTOM_TYPE, Plan};

/// What a checked answer leads to.
pub enum Judgement {
    /// It matched: the turn is done with this value.
    Accepted(Value),
    /// It did not, and a retry is left: the engine sends these errors back.
    Retry(Vec<String>),
    /// It did not, for the last time: the turn ends so.
    Exhausted(Ending),
}

/// The answers of one engine run.
#[derive(Debug, Default)]
pub struct Answers {
    /// Answers sent back so far.
    retries: u32,
}

impl Answers {
    /// Judge `verdict`, the check of an answer under `plan`.
    pub fn judge(
        &mut self,
        plan: &Plan,
        verdict: Result<Value, Vec<String>>,
        turn: &mut Turn<'_>,
    ) -> Result<Judgement, SessionError> {
        let attempts = self.retries + 1;
        let max_retries = plan.max_retries;
        match verdict {
            Ok(value) => {
                append_record(turn, plan.record(attempts, true))?;
                turn.report.structured_output = Some(value.clone());
                Ok(Judgement::Accepted(value))
            }
            Err(errors) if self.retries >= max_retries => {
                append_record(turn, plan.record(attempts, false))?;
                Ok(Judgement::Exhausted(Ending::StructuredOutputInvalid {
                    errors,
                    retries: max_retries,
                }))
            }
            Err(errors) => {
                self.retries += 1;
                turn.sink.emit(&Event::StructuredRetry(StructuredRetry {
                    attempt: self.retries,
                    max_retries,
                    errors: errors.clone(),
                }));
                Ok(Judgement::Retry(errors))
            }
        }
    }
}

fn append_record(turn: &mut Turn<'_>, data: Value) -> Result<(), SessionError> {
    turn.record_entry(
        NewEntry::Custom {
            custom_type: CUSTOM_TYPE,
            data: &data,
        },
        true,
    )
    .map(|_| ())
}

/// The user message that sends an invalid answer's errors back (`Plan::feedback`).
pub fn feedback_message(feedback: String) -> Message {
    Message::User(UserMessage {
        content: MessageContent::Text(feedback),
        timestamp: now_millis(),
    })
}
