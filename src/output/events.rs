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
    /// A sentence for the person reading text mode, written to stderr (the JSON modes carry
    /// the same fact in a `system` event).
    Notice(String),
}

/// Where events go.
pub trait EventSink {
    /// Render one event.
    fn emit(&mut self, event: &Event) -> io::Result<()>;
    /// Render the terminal record. Called exactly once per run.
    fn finish(&mut self, result: &RunResult) -> io::Result<()>;
}

/// Build the sink for a format. With `hold_text` (heartbeat runs), text mode prints nothing
/// until the end, so that a `HEARTBEAT_OK` reply can stay silent.
pub fn sink_for(format: Format, include_partial: bool, hold_text: bool) -> Box<dyn EventSink> {
    match format {
        Format::Text => Box::new(TextSink {
            hold: hold_text,
            ..TextSink::default()
        }),
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
    /// Print only at the end (heartbeat runs).
    hold: bool,
}

impl EventSink for TextSink {
    fn emit(&mut self, event: &Event) -> io::Result<()> {
        if let Event::Notice(text) = event {
            use std::io::Write as _;
            // stderr is unbuffered and a failed write there has nowhere to be reported.
            let _ = writeln!(io::stderr(), "pincer: {text}");
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

/// stream-json mode: JSON lines as things happen.
#[derive(Debug)]
pub struct StreamJsonSink {
    stdout: Stdout,
    include_partial: bool,
}

/// The stream-json line for an event, or `None` when the event is not shown in that mode.
/// Producers build the complete line objects (with `session_id` and ids); text deltas are
/// carried by `stream_event` partials instead.
pub fn stream_json_line(event: &Event, include_partial: bool) -> Option<Value> {
    match event {
        Event::Init(value)
        | Event::System(value)
        | Event::Assistant(value)
        | Event::User(value) => Some(value.clone()),
        Event::Partial(value) if include_partial => Some(value.clone()),
        Event::Partial(_) | Event::TextDelta(_) | Event::Notice(_) => None,
    }
}

/// Writes the stream-json lines to an events file as well, whatever stdout's mode is.
pub struct EventsFileSink {
    inner: Box<dyn EventSink>,
    file: std::fs::File,
    include_partial: bool,
}

impl EventsFileSink {
    /// Wrap `inner`, copying events to `file`.
    pub fn new(
        inner: Box<dyn EventSink>,
        file: std::fs::File,
        include_partial: bool,
    ) -> EventsFileSink {
        EventsFileSink {
            inner,
            file,
            include_partial,
        }
    }

    fn write_line<T: Serialize>(&mut self, value: &T) -> io::Result<()> {
        use std::io::Write;
        self.file.write_all(to_json_line(value)?.as_bytes())
    }
}

impl EventSink for EventsFileSink {
    fn emit(&mut self, event: &Event) -> io::Result<()> {
        if let Some(line) = stream_json_line(event, self.include_partial) {
            self.write_line(&line)?;
        }
        self.inner.emit(event)
    }

    fn finish(&mut self, result: &RunResult) -> io::Result<()> {
        self.write_line(result)?;
        self.inner.finish(result)
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
    fn partial_events_show_only_when_asked_and_text_deltas_never() {
        let partial = Event::Partial(
            serde_json::json!({"type": "stream_event", "event": {"type": "text_delta"}}),
        );
        assert_eq!(stream_json_line(&partial, false), None);
        assert_eq!(
            stream_json_line(&partial, true),
            Some(serde_json::json!({"type": "stream_event", "event": {"type": "text_delta"}}))
        );
        assert_eq!(stream_json_line(&Event::TextDelta("x".into()), true), None);
        let line = serde_json::json!({"type": "assistant", "message": {}});
        assert_eq!(
            stream_json_line(&Event::Assistant(line.clone()), false),
            Some(line)
        );
    }
}
