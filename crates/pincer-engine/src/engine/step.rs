//! The step machine both engines run on: one [`Step`] at a time, each handled by the engine and
//! answered with the next one, until [`Step::Done`].
//!
//! The driver owns what every step shares: it checks for a signal or the timeout before each
//! step (a cancellation seen between steps is recorded by the engine, SPEC §5.5) and puts the
//! ending into the report. What a step does, and which one follows, is the engine's.

use std::time::Duration;

use super::{CancelReason, Cancellation, Ending, EventSink, TurnReport};
use crate::conversation::{Message, ThinkingLevel, ToolCall};
use crate::provider::ProviderError;
use crate::provider::classify::FailureKind;
use crate::session::transcript::Transcript;

/// What the engine does next.
#[derive(Debug)]
pub enum Step {
    /// Send the request for the conversation as it stands (the CLI engine: run the child).
    CallModel,
    /// Run the tool calls of the message just received, in order.
    RunTools(Vec<ToolCall>),
    /// Wait `delay`, then send the same request again: its stream broke after it showed
    /// something (SPEC §9.3).
    Resend(Duration),
    /// The credential failed with `kind`: continue with the provider's next one.
    RotateCredential(FailureKind),
    /// The provider refused the reasoning level: send again at `level`.
    LowerThinking(ThinkingLevel),
    /// Compact the session, then go on as `then` says.
    Compact(Compaction),
    /// Between tool results and the next call: stop at a guardrail, else call the model.
    Guard,
    /// The model answered without calling a tool: the Stop hooks may have it go on (SPEC §14);
    /// else the turn ends, after a compaction when `compact`.
    Stopping {
        /// The answer left the context over the compaction threshold.
        compact: bool,
    },
    /// With `--json-schema`, the model answered — in text, or by calling the final-answer tool
    /// (the call): check the answer; the turn is done, or the errors go back to the model.
    CheckAnswer(Option<ToolCall>),
    /// The turn is over.
    Done(Ending),
}

/// A compaction step: why, and what follows it.
#[derive(Debug)]
pub enum Compaction {
    /// The final answer left the context over the threshold: compact, then the turn is done.
    AfterAnswer,
    /// Tool results pushed the context over the threshold: compact, then check the guardrails.
    AfterTools,
    /// The provider refused the request as too long: compact and send it again; when there is
    /// nothing to compact, the refusal ends the turn.
    Overflow(ProviderError, FailureKind),
}

/// What every step of one turn works on.
pub struct Turn<'run> {
    /// The context the next request is built from: it ends with the new user message at the
    /// start, and grows by every completed message.
    pub messages: &'run mut Vec<Message>,
    /// The session the turn is recorded in.
    pub transcript: &'run mut Transcript,
    /// Where events go.
    pub sink: &'run mut dyn EventSink,
    /// Signals and `--timeout`.
    pub cancellation: &'run Cancellation,
    /// What the turn did so far.
    pub report: TurnReport,
}

/// One of the two ways a turn is carried out: the API engine or the CLI engine.
pub(crate) trait Engine {
    /// Carry out `step` and say what comes next.
    async fn step(&mut self, step: Step, turn: &mut Turn<'_>) -> Step;

    /// A signal or the timeout was seen between steps: record that the turn was cut short and
    /// say how it ended.
    fn interrupted(&mut self, reason: CancelReason, turn: &mut Turn<'_>) -> Ending;
}

/// Run `engine` from its first model call to the end of the turn.
pub(crate) async fn drive(engine: &mut impl Engine, turn: &mut Turn<'_>) {
    let mut step = Step::CallModel;
    loop {
        if let Step::Done(ending) = step {
            turn.report.ending = ending;
            return;
        }
        if let Some(reason) = turn.cancellation.reason() {
            step = Step::Done(engine.interrupted(reason, turn));
            continue;
        }
        step = engine.step(step, turn).await;
    }
}
