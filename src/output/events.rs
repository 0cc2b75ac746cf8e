//! One event stream, three renderers (text, json, stream-json).
//!
//! The agent and the CLI backends report what happens as [`Event`]s to an [`EventSink`]; they never
//! ask which output mode is on. Each sink decides what reaches stdout:
//! - text: assistant text deltas as they arrive, then a final newline;
//! - json: nothing until the end, then the one `result` object;
//! - stream-json: one JSON line per event, flushed per line, then the `result` object.
//!
//! A copy of the stream-json lines can also go to an events file.

use std::io;

use serde::Serialize;
use serde_json::Value;

use super::result::RunResult;
use super::{Format, Stdout};

/// Something that happened during a run, in the order it happened.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// The run started (`system/init`).
    Init(Value),
    /// A chunk of assistant text, as it streams.
    TextDelta(String),
    /// A whole assistant message (Anthropic-shaped content).
    Assistant(Value),
    /// Tool results sent back to the model.
    User(Value),
    /// A `system` event with a subtype (`compact_boundary`, `api_retry`, `model_fallback`, …).
    System(Value),
    /// A raw provider-neutral delta (`--include-partial-messages`).
    Partial(Value),
}

/// Where events go.
pub trait EventSink {
    /// Render one event.
    fn emit(&mut self, event: &Event) -> io::Result<()>;
    /// Render the terminal record. Called exactly once per run.
    fn finish(&mut self, result: &RunResult) -> io::Result<()>;
}

/// Build the sink for a format.
pub fn sink_for(format: Format, include_partial: bool) -> Box<dyn EventSink> {
    match format {
        Format::Text => Box::new(TextSink::default()),
        Format::Json => Box::new(JsonSink::default()),
        Format::StreamJson => Box::new(StreamJsonSink {
            stdout: Stdout::new(),
            include_partial,
        }),
    }
}

/// Text mode: the answer streamed, nothing else on stdout.
#[derive(Debug, Default)]
pub struct TextSink {
    stdout: Stdout,
    wrote_text: bool,
    ends_with_newline: bool,
}

impl EventSink for TextSink {
    fn emit(&mut self, event: &Event) -> io::Result<()> {
        if let Event::TextDelta(text) = event
            && !text.is_empty()
        {
            self.wrote_text = true;
            self.ends_with_newline = text.ends_with('\n');
            self.stdout.write(text)?;
        }
        Ok(())
    }

    fn finish(&mut self, result: &RunResult) -> io::Result<()> {
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

/// stream-json mode: JSON lines as things happen.
#[derive(Debug)]
pub struct StreamJsonSink {
    stdout: Stdout,
    include_partial: bool,
}

/// The stream-json line for an event, or `None` when the event is not shown in that mode.
pub fn stream_json_line(event: &Event, include_partial: bool) -> Option<Value> {
    match event {
        Event::Init(value) | Event::System(value) => Some(value.clone()),
        Event::Assistant(message) => {
            Some(serde_json::json!({"type": "assistant", "message": message}))
        }
        Event::User(message) => Some(serde_json::json!({"type": "user", "message": message})),
        Event::Partial(delta) if include_partial => {
            Some(serde_json::json!({"type": "stream_event", "event": delta}))
        }
        Event::Partial(_) | Event::TextDelta(_) => None,
    }
}

impl EventSink for StreamJsonSink {
    fn emit(&mut self, event: &Event) -> io::Result<()> {
        match stream_json_line(event, self.include_partial) {
            Some(line) => self.stdout.json_line(&line),
            None => Ok(()),
        }
    }

    fn finish(&mut self, result: &RunResult) -> io::Result<()> {
        self.stdout.json_line(result)
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
    fn partial_events_show_only_when_asked() {
        let delta = Event::Partial(serde_json::json!({"type": "text_delta", "text": "hi"}));
        assert_eq!(stream_json_line(&delta, false), None);
        assert_eq!(
            stream_json_line(&delta, true),
            Some(
                serde_json::json!({"type": "stream_event", "event": {"type": "text_delta", "text": "hi"}})
            )
        );
    }

    #[test]
    fn assistant_messages_are_wrapped_like_claude() {
        let message = serde_json::json!({"role": "assistant", "content": []});
        assert_eq!(
            stream_json_line(&Event::Assistant(message.clone()), false),
            Some(serde_json::json!({"type": "assistant", "message": message}))
        );
        assert_eq!(stream_json_line(&Event::TextDelta("x".into()), true), None);
    }
}
