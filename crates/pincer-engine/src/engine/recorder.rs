//! How a turn's entries reach its session. Both engines write through here: the API engine
//! with [`Turn::record`] and [`Turn::record_entry`], the CLI engine through the same and the
//! recorder below.
//!
//! The recorder a CLI child's translated events go through (`backend::ChildRecord`): each one is
//! written to pincer's session (messages, tool results as the child reported them, compactions)
//! and reported as the same events the API engine emits, as it arrives.
//!
//! Its state ([`RecorderState`]) lives in the CLI engine across the child runs of a turn (a
//! stale child session is replaced by a fresh one); each run borrows the turn's transcript, sink
//! and report through a [`Recorder`].

use std::collections::HashMap;

use serde_json::{Value, json};

use crate::backend::{ChildRecord, CliBackend};
use crate::conversation::{
    AssistantBlock, AssistantMessage, ContentBlock, Cost, Message, Prices, StopReason, StreamEvent,
    TextBlock, TokenUsage, ToolResultMessage, now_millis,
};
use crate::engine::TurnReport;
use crate::engine::event::{
    AssistantDone, Compaction, Event, EventSink, MessageEnd, Phase, Retry, RetryKind, ToolEnd,
    ToolResultDone, ToolStart,
};
use crate::engine::step::Turn;
use crate::provider::anthropic::stream::stop_reason as anthropic_stop_reason;
use crate::provider::stop_reason::claude_stop_reason;
use crate::session::record::NewEntry;
use crate::session::store::SessionError;
use crate::session::transcript::Transcript;

use crate::redact::Redactor;

impl Turn<'_> {
    /// Record a completed message: appended to the session and synced, then added to the
    /// context the next request is built from. Returns the entry id.
    pub fn record(&mut self, message: Message) -> Result<String, SessionError> {
        let id = self.record_message(&message)?;
        self.messages.push(message);
        Ok(id)
    }

    /// Record a completed message in the session only (a CLI child keeps its own context).
    pub fn record_message(&mut self, message: &Message) -> Result<String, SessionError> {
        self.transcript.append_message(message)
    }

    /// Record an entry of another kind; `sync` makes it durable now rather than with the next
    /// message.
    pub fn record_entry(
        &mut self,
        entry: NewEntry<'_>,
        sync: bool,
    ) -> Result<String, SessionError> {
        let id = self.transcript.append(entry)?;
        if sync {
            self.transcript.sync()?;
        }
        Ok(id)
    }
}

/// An assistant message being assembled from the child's events.
#[derive(Debug, Default)]
struct Pending {
    id: String,
    content: Vec<AssistantBlock>,
    usage: TokenUsage,
    stop_reason: Option<String>,
    /// Text already shown as deltas (so the whole message does not print it again).
    streamed: bool,
    /// The child streamed this message's events itself (claude's raw stream events); else they
    /// are told from the whole blocks as they come (codex, claude without partial messages).
    raw_streamed: bool,
    /// The start of a told stream has been emitted.
    told_start: bool,
}

/// What the recorder keeps between the child runs of one turn.
pub struct RecorderState {
    backend: CliBackend,
    model: String,
    prices: Option<Prices>,
    pending: Option<Pending>,
    tool_names: HashMap<String, String>,
    text_printed: bool,
    separator_pending: bool,
    /// Secrets to scrub from tool results (the provider keys of pincer's environment).
    redactor: Redactor,
}

impl RecorderState {
    /// The state of a turn of `backend` running pincer's `model`.
    pub fn new(
        backend: CliBackend,
        model: &str,
        prices: Option<Prices>,
        redactor: Redactor,
    ) -> RecorderState {
        RecorderState {
            backend,
            model: model.to_owned(),
            prices,
            pending: None,
            tool_names: HashMap::new(),
            text_printed: false,
            separator_pending: false,
            redactor,
        }
    }
}

/// Writes and emits what the child does.
pub struct Recorder<'a> {
    state: &'a mut RecorderState,
    transcript: &'a mut Transcript,
    sink: &'a mut dyn EventSink,
    /// What the turn did so far.
    report: &'a mut TurnReport,
}

impl<'a> Recorder<'a> {
    /// A recorder over `state`, writing to `transcript`, emitting to `sink`, counting in
    /// `report`.
    pub fn new(
        state: &'a mut RecorderState,
        transcript: &'a mut Transcript,
        sink: &'a mut dyn EventSink,
        report: &'a mut TurnReport,
    ) -> Recorder<'a> {
        Recorder {
            state,
            transcript,
            sink,
            report,
        }
    }

    /// Print `text` for text mode, after the blank line that separates it from earlier text.
    fn show_text(&mut self, text: &str) {
        if self.state.separator_pending {
            self.state.separator_pending = false;
            self.sink.emit(&Event::TextDelta("\n\n".to_owned()));
        }
        self.state.text_printed = true;
        self.sink.emit(&Event::TextDelta(text.to_owned()));
    }

    /// The transcript (to read entries or append custom ones).
    pub fn transcript(&mut self) -> &mut Transcript {
        self.transcript
    }

    /// A model request is on its way (the child is starting).
    pub fn connecting(&mut self) {
        self.sink.emit(&Event::Phase(Phase::Connecting(
            self.state.backend.name().to_owned(),
        )));
    }

    /// The stream events of a whole block the child reported at once (block number `block`).
    fn tell(&mut self, block: usize, content: &AssistantBlock) {
        let model = self.state.model.clone();
        let pending = self.pending();
        let mut events = Vec::new();
        if !std::mem::replace(&mut pending.told_start, true) {
            events.push(StreamEvent::Start {
                response_id: Some(pending.id.clone()),
                model: Some(model),
            });
        }
        match content {
            AssistantBlock::Text(text) => events.push(StreamEvent::TextDelta {
                block,
                text: text.text.clone(),
            }),
            AssistantBlock::Thinking(thinking) => events.push(StreamEvent::ThinkingDelta {
                block,
                text: thinking.thinking.clone(),
            }),
            AssistantBlock::ToolCall(call) => {
                events.push(StreamEvent::ToolCallStart {
                    block,
                    id: call.id.clone(),
                    name: call.name.clone(),
                });
                events.push(StreamEvent::ToolCallArguments {
                    block,
                    fragment: call.arguments.to_string(),
                });
            }
            AssistantBlock::ServerTool(call) => events.push(StreamEvent::ServerTool {
                block,
                call: call.clone(),
            }),
        }
        for event in events {
            self.sink.emit(&Event::Stream(event));
        }
    }

    fn pending(&mut self) -> &mut Pending {
        self.state.pending.get_or_insert_with(|| Pending {
            id: format!("msg_{}", uuid::Uuid::new_v4().simple()),
            ..Pending::default()
        })
    }

    /// Whether the message being assembled already showed its text as deltas.
    pub fn streamed(&self) -> bool {
        self.state
            .pending
            .as_ref()
            .is_some_and(|pending| pending.streamed)
    }

    /// Whether a message is being assembled.
    pub fn has_pending(&self) -> bool {
        self.state.pending.is_some()
    }

    /// Record the child's session id (and anything else the next turn needs) in a `custom`
    /// entry `pincer.<backend>`.
    pub fn child_session(&mut self, data: Value) -> Result<(), SessionError> {
        let kind = self.state.backend.custom_type();
        self.transcript.append(NewEntry::Custom {
            custom_type: &kind,
            data: &data,
        })?;
        self.transcript.sync()
    }
}

impl ChildRecord for Recorder<'_> {
    /// Show text as it streams (text mode prints it; the other modes ignore it).
    fn text_delta(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        // The message this text belongs to may not have begun yet (codex reports the text
        // before its block): it does now, so that it is not printed again when it completes.
        self.pending().streamed = true;
        self.show_text(text);
    }

    /// A neutral event of the child's model call as it streams (claude's raw stream events,
    /// translated), the same events the API path emits.
    fn stream(&mut self, event: &StreamEvent) {
        self.pending().raw_streamed = true;
        self.sink.emit(&Event::Stream(event.clone()));
    }

    /// Start (or continue) the assistant message `id`; a different id completes the one before.
    fn begin(&mut self, id: &str) -> Result<(), SessionError> {
        if self
            .state
            .pending
            .as_ref()
            .is_some_and(|pending| pending.id != id)
        {
            self.flush(None)?;
        }
        if self.state.pending.is_none() {
            self.state.pending = Some(Pending {
                id: id.to_owned(),
                ..Pending::default()
            });
        }
        Ok(())
    }

    /// Add a content block to the message being assembled. A tool call is run by the child
    /// next, so it is announced as started.
    fn push(&mut self, block: AssistantBlock) {
        let pending = self.pending();
        // claude repeats a block when it splits one message over several events.
        if pending.content.contains(&block) {
            return;
        }
        let index = pending.content.len();
        let told = !pending.raw_streamed;
        pending.content.push(block.clone());
        if told {
            self.tell(index, &block);
        }
        if let AssistantBlock::ToolCall(call) = &block {
            self.state
                .tool_names
                .insert(call.id.clone(), call.name.clone());
            self.sink.emit(&Event::ToolStarted(ToolStart {
                id: call.id.clone(),
                name: call.name.clone(),
                input: call.arguments.clone(),
            }));
        }
    }

    /// Set the usage of the message being assembled (a complete snapshot).
    fn set_usage(&mut self, usage: TokenUsage) {
        self.pending().usage = usage;
    }

    /// The usage of the message being assembled.
    fn usage(&self) -> Option<TokenUsage> {
        self.state.pending.as_ref().map(|pending| pending.usage)
    }

    /// Set the provider's stop word of the message being assembled.
    fn set_stop(&mut self, reason: &str) {
        self.pending().stop_reason = Some(reason.to_owned());
    }

    /// Complete the message being assembled: persist it, emit its `assistant` line, count its
    /// usage. `failure` records it as aborted or failed instead (with the reason), without the
    /// `assistant` line.
    fn flush(&mut self, failure: Option<(StopReason, String)>) -> Result<(), SessionError> {
        let Some(pending) = self.state.pending.take() else {
            return Ok(());
        };
        let has_calls = pending
            .content
            .iter()
            .any(|block| matches!(block, AssistantBlock::ToolCall(_)));
        let stop_reason = match &failure {
            Some((stop, _)) => *stop,
            None if has_calls => StopReason::ToolUse,
            None if pending.stop_reason.as_deref() == Some("max_tokens") => StopReason::Length,
            None => StopReason::Stop,
        };
        let usage = pending.usage;
        let cost = self
            .state
            .prices
            .map_or_else(Cost::default, |prices| prices.cost(&usage));
        let message = AssistantMessage {
            content: pending.content,
            api: self.state.backend.name().to_owned(),
            provider: self.state.backend.name().to_owned(),
            model: self.state.model.clone(),
            usage,
            cost,
            stop_reason,
            timestamp: now_millis(),
            error_message: failure.as_ref().map(|(_, reason)| reason.clone()),
        };
        let text: String = message
            .content
            .iter()
            .filter_map(|block| match block {
                AssistantBlock::Text(text) => Some(text.text.as_str()),
                _ => None,
            })
            .collect();
        let entry_id = self
            .transcript
            .append_message(&Message::Assistant(message.clone()))?;
        self.report.usage.add(&usage);
        self.report.cost_usd += cost.total;
        let totals = self
            .report
            .model_usage
            .entry(self.state.model.clone())
            .or_default();
        totals.usage.add(&usage);
        totals.cost_usd += cost.total;
        if failure.is_some() {
            if !text.is_empty() {
                self.report.final_text = text;
            }
            return Ok(());
        }
        self.report.model_calls += 1;
        if usage.context_tokens() > 0 {
            self.report.last_usage = Some(usage);
            self.report.context_estimate = None;
        }
        self.report
            .provider_stop_reason
            .clone_from(&pending.stop_reason);
        // claude's words already are claude's; codex says only `completed`.
        let finished = if has_calls {
            StopReason::ToolUse
        } else {
            pending
                .stop_reason
                .as_deref()
                .map_or(StopReason::Stop, anthropic_stop_reason)
        };
        self.report.stop_reason = claude_stop_reason(finished, pending.stop_reason.as_deref());
        // Shown whole now, without starting another message: a message begun here would be
        // left pending, and recorded empty when the next child run of the turn begins its own.
        if !pending.streamed && !text.is_empty() {
            self.show_text(&text);
        }
        if self.state.text_printed {
            self.state.separator_pending = true;
        }
        self.report.final_text = text;
        self.sink.emit(&Event::MessageEnd(MessageEnd {
            stop_reason: self.report.stop_reason,
            usage,
        }));
        self.sink.emit(&Event::Assistant(AssistantDone {
            message,
            message_id: pending.id.clone(),
            stop_reason: self.report.stop_reason,
            provider_stop_reason: pending.stop_reason.clone(),
            entry_id: Some(entry_id),
        }));
        Ok(())
    }

    /// Record a tool result the child reported (completing the call's message first).
    fn tool_result(
        &mut self,
        call_id: &str,
        text: &str,
        is_error: bool,
        details: Option<Value>,
    ) -> Result<(), SessionError> {
        self.flush(None)?;
        // The child's tool may have printed a key (a `.env` file, `env`): scrubbed as on the API
        // path before it is stored or shown.
        let text = &self.state.redactor.text(text);
        let mut details = details;
        if let Some(details) = &mut details {
            self.state.redactor.value(details);
        }
        let result = ToolResultMessage {
            tool_call_id: call_id.to_owned(),
            tool_name: self
                .state
                .tool_names
                .get(call_id)
                .cloned()
                .unwrap_or_else(|| "unknown".to_owned()),
            content: vec![ContentBlock::Text(TextBlock::new(text))],
            details,
            is_error,
            timestamp: now_millis(),
        };
        let entry_id = self
            .transcript
            .append_message(&Message::ToolResult(result.clone()))?;
        // A CLI child's denials are not told apart from its errors here.
        self.sink.emit(&Event::ToolFinished(ToolEnd {
            id: call_id.to_owned(),
            is_error,
            refused: false,
        }));
        self.sink.emit(&Event::ToolResult(ToolResultDone {
            result,
            entry_id: Some(entry_id),
        }));
        Ok(())
    }

    /// The child compacted its own session: record a compaction entry that keeps pincer's whole
    /// transcript (the child's summary stays with the child; pincer re-sends its context every
    /// turn anyway) and emit `compact_boundary`.
    fn compaction(
        &mut self,
        trigger: &str,
        pre_tokens: Option<u64>,
        post_tokens: Option<u64>,
    ) -> Result<(), SessionError> {
        self.flush(None)?;
        let first_kept = self
            .transcript
            .entries()
            .first()
            .map(|entry| entry.id().to_owned())
            .unwrap_or_default();
        let summary = format!(
            "{} compacted its own session ({trigger}{}). pincer's transcript before this point \
             is kept in full.",
            self.state.backend.name(),
            pre_tokens.map_or_else(String::new, |tokens| format!(", {tokens} tokens before")),
        );
        let details = json!({
            "backend": self.state.backend.name(),
            "trigger": trigger,
            "postTokens": post_tokens,
        });
        self.transcript.append(NewEntry::Compaction {
            summary: &summary,
            first_kept_entry_id: &first_kept,
            tokens_before: pre_tokens.unwrap_or(0),
            details: &details,
        })?;
        self.transcript.sync()?;
        self.report.compactions += 1;
        self.sink.emit(&Event::Compaction(Compaction {
            trigger: trigger.to_owned(),
            pre_tokens,
            post_tokens,
            backend: Some(self.state.backend.name()),
        }));
        Ok(())
    }

    /// The child retries its own API call.
    fn child_retry(&mut self, attempt: Option<u64>, delay_ms: Option<u64>, error: String) {
        self.sink.emit(&Event::Retry(Retry {
            attempt,
            delay: delay_ms.map(std::time::Duration::from_millis),
            error,
            kind: RetryKind::Child,
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::record::{AgentMessage, Entry};

    #[derive(Default)]
    struct Collect(Vec<Event>);

    impl EventSink for Collect {
        fn emit(&mut self, event: &Event) {
            self.0.push(event.clone());
        }
    }

    fn text(words: &str) -> AssistantBlock {
        AssistantBlock::Text(TextBlock {
            text: words.to_owned(),
            signature: None,
            citations: Vec::new(),
        })
    }

    /// Regression: a message whose text was not streamed is shown whole when it completes;
    /// showing it began a new, empty message that the next child run of the same turn (a
    /// `--json-schema` retry, a fresh session after a stale one) then recorded.
    #[test]
    fn a_message_shown_at_its_end_leaves_nothing_pending_for_the_next_child_run() {
        let mut state = RecorderState::new(
            CliBackend::Claude,
            "sonnet",
            None,
            Redactor::new(Vec::<String>::new()),
        );
        let mut transcript = Transcript::ephemeral(Vec::new());
        let mut sink = Collect::default();
        let mut report = TurnReport::empty(crate::engine::Ending::Completed);
        for (id, words) in [("msg_1", "first run"), ("msg_2", "second run")] {
            let mut recorder = Recorder::new(&mut state, &mut transcript, &mut sink, &mut report);
            recorder.begin(id).unwrap();
            recorder.push(text(words));
            recorder.flush(None).unwrap();
            assert!(!recorder.has_pending());
        }
        let stored: Vec<Vec<AssistantBlock>> = transcript
            .entries()
            .iter()
            .filter_map(|entry| match entry {
                Entry::Message(entry) => match &entry.message {
                    AgentMessage::Assistant(_) => {
                        entry.message.clone().into_conversation().and_then(
                            |message| match message {
                                Message::Assistant(message) => Some(message.content),
                                _ => None,
                            },
                        )
                    }
                    _ => None,
                },
                _ => None,
            })
            .collect();
        assert_eq!(stored, [vec![text("first run")], vec![text("second run")]]);
        let shown: Vec<&Event> = sink
            .0
            .iter()
            .filter(|event| matches!(event, Event::TextDelta(_)))
            .collect();
        assert_eq!(
            shown,
            [
                &Event::TextDelta("first run".to_owned()),
                &Event::TextDelta("\n\n".to_owned()),
                &Event::TextDelta("second run".to_owned()),
            ]
        );
    }
}
