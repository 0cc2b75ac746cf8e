//! One event stream, three renderers (text, json, stream-json).
//!
//! The agent and the CLI backends report what happens as [`Event`]s to an [`EventSink`]; they never
//! ask which output mode is on. Each sink decides what reaches stdout:
//! - text: assistant text deltas as they arrive, then a final newline;
//! - json: nothing until the end, then the one `result` object;
//! - stream-json: one JSON line per event, flushed per line, then the `result` object.
//!
//! A copy of the stream-json lines can also go to an events file: the same lines, byte for byte,
//! when stdout is stream-json too. The progress on stderr (`progress::ProgressSink`) wraps these.
//!
//! Every stream-json line carries a fresh UUIDv4 `uuid`, as claude's do. Lines that stand for a
//! session entry (`assistant`, `user`) name that entry in `entry_id` instead: pi's entry ids are
//! eight hex digits, not UUIDs, and a `uuid` that is sometimes not one would trip scripts.

use std::io;

use serde::Serialize;
use serde_json::Value;

use super::partial::{MessageEnd, PartialMessages};
use super::result::RunResult;
use super::{Format, Stdout};
use crate::conversation::StreamEvent;

/// Something that happened during a run, in the order it happened.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// The run started (`system/init`).
    Init(Value),
    /// A chunk of assistant text for the person reading stdout (text mode), as it streams.
    TextDelta(String),
    /// A neutral event of the model call in progress, as it arrives (the stream-json
    /// `stream_event` lines with `--include-partial-messages`; the spinner's phase).
    Stream(StreamEvent),
    /// The model call in progress completed (closes its `stream_event` message).
    MessageEnd(MessageEnd),
    /// A whole assistant message (Anthropic-shaped content).
    Assistant(Value),
    /// Tool results sent back to the model.
    User(Value),
    /// A `system` event with a subtype (`compact_boundary`, `api_retry`, `model_fallback`, …).
    System(Value),
    /// A sentence for the person reading text mode, written to stderr (the JSON modes carry
    /// the same fact in a `system` event).
    Notice(String),
    /// What the run is waiting for now (progress on stderr only).
    Phase(Phase),
    /// A tool call is about to run (progress on stderr only).
    ToolStarted(ToolStart),
    /// A tool call finished (progress on stderr only; its result is the `User` event).
    ToolFinished(ToolEnd),
}

/// A phase of the run that no other event announces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Phase {
    /// A model request is on its way (the model reference, or the CLI backend's name).
    Connecting(String),
    /// The transcript is being summarized.
    Compacting,
}

/// A tool call about to run.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolStart {
    /// The call id.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// Its arguments.
    pub input: Value,
}

/// A tool call that finished.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolEnd {
    /// The call id.
    pub id: String,
    /// Whether the tool reported an error (or the call was refused).
    pub is_error: bool,
}

/// Where events go.
pub trait EventSink {
    /// Render one event.
    fn emit(&mut self, event: &Event) -> io::Result<()>;
    /// Render the terminal record. Called exactly once per run.
    fn finish(&mut self, result: &RunResult) -> io::Result<()>;
}

/// Build the sink for a format. With `hold_text` (heartbeat runs), text mode prints nothing
/// until the end, so that a `HEARTBEAT_OK` reply can stay silent. `events_file` gets the
/// stream-json lines whatever the format.
pub fn sink_for(
    format: Format,
    include_partial: bool,
    hold_text: bool,
    events_file: Option<std::fs::File>,
) -> Box<dyn EventSink> {
    let base: Box<dyn EventSink> = match format {
        Format::Text => Box::new(TextSink {
            hold: hold_text,
            ..TextSink::default()
        }),
        Format::Json => Box::new(JsonSink::default()),
        Format::StreamJson => {
            return Box::new(StreamJsonSink {
                lines: StreamJsonLines::new(include_partial),
                stdout: Some(Stdout::new()),
                file: events_file,
            });
        }
    };
    match events_file {
        Some(file) => Box::new(Tee {
            first: base,
            second: Box::new(StreamJsonSink {
                lines: StreamJsonLines::new(include_partial),
                stdout: None,
                file: Some(file),
            }),
        }),
        None => base,
    }
}

/// Text mode: the answer streamed, nothing else on stdout.
#[derive(Debug, Default)]
pub struct TextSink {
    stdout: Stdout,
    wrote_text: bool,
    ends_with_newline: bool,
    /// Print only at the end (heartbeat runs).
    hold: bool,
}

impl EventSink for TextSink {
    fn emit(&mut self, event: &Event) -> io::Result<()> {
        if let Event::Notice(text) = event {
            super::progress::stderr_line(&format!("pincer: {text}"));
            return Ok(());
        }
        if let Event::TextDelta(text) = event
            && !text.is_empty()
            && !self.hold
        {
            self.wrote_text = true;
            self.ends_with_newline = text.ends_with('\n');
            self.stdout.write(text)?;
        }
        Ok(())
    }

    fn finish(&mut self, result: &RunResult) -> io::Result<()> {
        if result.heartbeat_ok == Some(true) {
            return Ok(());
        }
        if !self.wrote_text && !result.is_error && !result.result.is_empty() {
            self.wrote_text = true;
            self.ends_with_newline = result.result.ends_with('\n');
            self.stdout.write(&result.result)?;
        }
        if self.wrote_text && !self.ends_with_newline {
            self.stdout.write("\n")?;
        }
        Ok(())
    }
}

/// JSON mode: one object at the end.
#[derive(Debug, Default)]
pub struct JsonSink {
    stdout: Stdout,
}

impl EventSink for JsonSink {
    fn emit(&mut self, _event: &Event) -> io::Result<()> {
        Ok(())
    }

    fn finish(&mut self, result: &RunResult) -> io::Result<()> {
        self.stdout.json_line(result)
    }
}

/// The stream-json lines of a run: which events make a line, what each line looks like.
#[derive(Debug)]
pub struct StreamJsonLines {
    include_partial: bool,
    partial: PartialMessages,
    /// From `system/init`, for the `stream_event` lines.
    session_id: Value,
}

impl StreamJsonLines {
    /// The lines of a run, with `stream_event` lines when `include_partial`.
    pub fn new(include_partial: bool) -> StreamJsonLines {
        StreamJsonLines {
            include_partial,
            partial: PartialMessages::default(),
            session_id: Value::Null,
        }
    }

    /// The lines for one event (none for the events of text mode and of the progress).
    pub fn lines(&mut self, event: &Event) -> Vec<Value> {
        let raw = match event {
            Event::Init(line) => {
                self.session_id = line.get("session_id").cloned().unwrap_or(Value::Null);
                let model = line.get("model").and_then(Value::as_str).map(str::to_owned);
                self.partial = PartialMessages::new(model);
                return vec![with_uuid(line.clone())];
            }
            Event::System(line) => {
                let mut line = with_uuid(line.clone());
                if self.include_partial && self.partial.is_open() && starts_over(&line) {
                    // The open partial message will not be completed: say so, as the loop does
                    // for a stream it re-sends after text was shown.
                    self.partial.abandon();
                    if let Some(object) = line.as_object_mut() {
                        object.insert("discarded_partial".to_owned(), Value::Bool(true));
                    }
                }
                return vec![line];
            }
            Event::Assistant(line) | Event::User(line) => {
                return vec![with_uuid(line.clone())];
            }
            Event::Stream(stream) if self.include_partial => self.partial.on_stream(stream),
            Event::MessageEnd(end) if self.include_partial => self.partial.on_end(end),
            _ => return Vec::new(),
        };
        raw.into_iter()
            .map(|event| {
                serde_json::json!({
                    "type": "stream_event",
                    "event": event,
                    "session_id": self.session_id,
                    "parent_tool_use_id": null,
                    "uuid": new_uuid(),
                })
            })
            .collect()
    }
}

/// Whether a `system` line starts the model call over (a retry, another credential or model).
fn starts_over(line: &Value) -> bool {
    matches!(
        line.get("subtype").and_then(Value::as_str),
        Some("api_retry" | "auth_rotation" | "model_fallback")
    )
}

/// A fresh UUIDv4, as claude stamps every line.
pub fn new_uuid() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// The line with a `uuid`, unless it has one.
fn with_uuid(mut line: Value) -> Value {
    if let Some(object) = line.as_object_mut()
        && object.get("uuid").is_none_or(Value::is_null)
    {
        object.insert("uuid".to_owned(), Value::String(new_uuid()));
    }
    line
}

/// stream-json: JSON lines as things happen, to stdout and/or an events file.
pub struct StreamJsonSink {
    lines: StreamJsonLines,
    stdout: Option<Stdout>,
    file: Option<std::fs::File>,
}

impl StreamJsonSink {
    fn write_line<T: Serialize>(&mut self, value: &T) -> io::Result<()> {
        let text = to_json_line(value)?;
        if let Some(file) = &mut self.file {
            use std::io::Write;
            file.write_all(text.as_bytes())?;
        }
        match &mut self.stdout {
            Some(stdout) => stdout.write(&text),
            None => Ok(()),
        }
    }
}

impl EventSink for StreamJsonSink {
    fn emit(&mut self, event: &Event) -> io::Result<()> {
        for line in self.lines.lines(event) {
            self.write_line(&line)?;
        }
        Ok(())
    }

    fn finish(&mut self, result: &RunResult) -> io::Result<()> {
        self.write_line(result)
    }
}

/// Two sinks that see every event (the stdout format and the events file).
struct Tee {
    first: Box<dyn EventSink>,
    second: Box<dyn EventSink>,
}

impl EventSink for Tee {
    fn emit(&mut self, event: &Event) -> io::Result<()> {
        self.second.emit(event)?;
        self.first.emit(event)
    }

    fn finish(&mut self, result: &RunResult) -> io::Result<()> {
        self.second.finish(result)?;
        self.first.finish(result)
    }
}

/// Serialize an event payload for an events file: the same line stream-json would print.
pub fn to_json_line<T: Serialize>(value: &T) -> io::Result<String> {
    let mut text = serde_json::to_string(value).map_err(io::Error::other)?;
    text.push('\n');
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partial_lines_show_only_when_asked_and_every_line_gets_a_uuid() {
        let text = Event::Stream(StreamEvent::TextDelta {
            block: 0,
            text: "hi".into(),
        });
        let mut without = StreamJsonLines::new(false);
        assert!(without.lines(&text).is_empty());
        assert!(without.lines(&Event::TextDelta("hi".into())).is_empty());

        let mut with = StreamJsonLines::new(true);
        let init = with.lines(&Event::Init(
            serde_json::json!({"type": "system", "subtype": "init", "session_id": "s-1"}),
        ));
        let lines = with.lines(&text);
        assert_eq!(
            lines.len(),
            3,
            "message_start, block start, delta: {lines:?}"
        );
        let delta = &lines[2];
        assert_eq!(delta["type"], "stream_event");
        assert_eq!(delta["event"]["delta"]["text"], "hi");
        assert_eq!(delta["session_id"], "s-1");
        assert_eq!(delta["parent_tool_use_id"], Value::Null);
        let assistant = with.lines(&Event::Assistant(
            serde_json::json!({"type": "assistant", "message": {}, "entry_id": "a1b2c3d4"}),
        ));
        let mut seen = std::collections::BTreeSet::new();
        for line in init.iter().chain(&lines).chain(&assistant) {
            let uuid = line["uuid"].as_str().unwrap();
            assert_eq!(
                uuid::Uuid::parse_str(uuid).unwrap().get_version_num(),
                4,
                "{line}"
            );
            assert!(seen.insert(uuid.to_owned()), "uuids are fresh per line");
        }
        assert!(with.lines(&Event::Phase(Phase::Compacting)).is_empty());
    }

    #[test]
    fn a_fallback_after_partial_text_marks_that_text_discarded() {
        let mut lines = StreamJsonLines::new(true);
        let fallback = Event::System(
            serde_json::json!({"type": "system", "subtype": "model_fallback", "from": "a"}),
        );
        // Nothing shown yet: the line is left as it is.
        assert_eq!(lines.lines(&fallback)[0].get("discarded_partial"), None);
        lines.lines(&Event::Stream(StreamEvent::TextDelta {
            block: 0,
            text: "half".into(),
        }));
        assert_eq!(lines.lines(&fallback)[0]["discarded_partial"], true);
        // The next call is a message of its own.
        let next = lines.lines(&Event::Stream(StreamEvent::TextDelta {
            block: 0,
            text: "whole".into(),
        }));
        assert_eq!(next[0]["event"]["type"], "message_start");
        // Once completed, a later fallback discards nothing.
        lines.lines(&Event::MessageEnd(MessageEnd {
            stop_reason: Some("end_turn"),
            usage: crate::conversation::TokenUsage::default(),
        }));
        assert_eq!(lines.lines(&fallback)[0].get("discarded_partial"), None);
    }
}
