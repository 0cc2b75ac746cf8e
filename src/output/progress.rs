//! Progress on stderr: a spinner with the run's phase on a terminal, one line per finished tool
//! call, and a spinner for slow maintenance work. Never anything on stdout, nothing with `-q`.
//!
//! During a turn, [`ProgressSink`] wraps the output sink and sees every event before it does:
//! - on a terminal (and not `-q`), an indicatif spinner shows what the run waits for:
//!   `connecting to MODEL`, `thinking`, `streaming`, `tool NAME SUMMARY`, `compacting`,
//!   `retrying`;
//! - on a terminal, or with `-v` anywhere, each finished tool call gets a line:
//!   `tool exec ls -la: ok (12 ms)`, and in text mode the text the model wrote before its tool
//!   calls is shown above them (it is not the answer, so it never reaches a stdout that is not
//!   a terminal; SPEC §3.1).
//!
//! stdout and stderr are often the same terminal. A spinner redraws its line with a carriage
//! return and an erase, which would wipe text streamed to stdout on that line, so in text mode
//! the spinner is taken down before the answer's first chunk is written and stays down while the
//! answer's last line is open (no newline yet). It comes back only for a new phase (a tool, a
//! request, a retry, a compaction); a stderr line written while the answer's line is open first
//! ends that line on stderr, so it never runs into the answer. stdout's bytes are never touched.
//! `--json` writes stdout only at the end, after the spinner is gone; stream-json lines scrolling
//! on the same terminal are progress enough, so there is no spinner then (tool lines still come).
//! Every other stderr line of the process (warnings, notices) goes through [`stderr_line`], which
//! draws it above the spinner. What these lines and the spinner show comes largely from models
//! and tools (tool names, arguments, hook output, provider messages): their control characters
//! are escaped (`output::escape`), whatever stderr is.

use std::io::{self, Write as _};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::Value;

use super::OutputSink;
use super::escape::{Keep, escape_controls};
use super::schema::RunResult;
use super::{Diagnostics, Format};
use crate::conversation::StreamEvent;
use crate::engine::event::{Event, EventSink, Phase, ToolEnd, ToolStart};
use crate::hooks::{HookFinished, HookProgress};

/// What is on the terminal now: the spinner, if any, and whether the answer's current line on
/// stdout is still open. One per process, because stderr is.
struct Screen {
    bar: Option<ProgressBar>,
    /// The spinner's message (its clock restarts when the message changes).
    message: String,
    /// stdout shares the terminal and its last byte was not a newline.
    open_line: bool,
}

static SCREEN: Mutex<Screen> = Mutex::new(Screen {
    bar: None,
    message: String::new(),
    open_line: false,
});

fn screen() -> std::sync::MutexGuard<'static, Screen> {
    SCREEN
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Write one line to stderr without garbling the spinner or an open line of the answer; control
/// characters in `text` other than line feeds and tabs are escaped.
pub(crate) fn stderr_line(text: &str) {
    styled_stderr_line(&escape_controls(text, Keep::LineBreaks));
}

/// [`stderr_line`] for a line whose parts from elsewhere are escaped already and whose own
/// escape sequences are pincer's styling (`Diagnostics`' labels).
pub(super) fn styled_stderr_line(text: &str) {
    let mut screen = screen();
    let mut text = format!("{text}\n");
    if std::mem::take(&mut screen.open_line) {
        text.insert(0, '\n');
    }
    // stderr is unbuffered and a failed write there has nowhere to be reported.
    match &screen.bar {
        Some(bar) => bar.suspend(|| {
            let _ = io::stderr().write_all(text.as_bytes());
        }),
        None => {
            let _ = io::stderr().write_all(text.as_bytes());
        }
    }
}

fn new_bar(message: String) -> ProgressBar {
    let bar = ProgressBar::new_spinner();
    if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} ({elapsed})") {
        bar.set_style(style);
    }
    bar.set_message(message);
    bar.enable_steady_tick(Duration::from_millis(100));
    bar
}

/// Put a spinner with `message` on the screen (replacing the message of the one there); its
/// control characters are escaped, line feeds included (the spinner is one line).
fn show(message: String) {
    let message = escape_controls(&message, Keep::Nothing).into_owned();
    let mut screen = screen();
    if std::mem::take(&mut screen.open_line) {
        let _ = io::stderr().write_all(b"\n");
    }
    match &screen.bar {
        Some(_) if screen.message == message => {}
        Some(bar) => {
            bar.reset_elapsed();
            bar.set_message(message.clone());
        }
        None => screen.bar = Some(new_bar(message.clone())),
    }
    screen.message = message;
}

/// Take the spinner down, leaving its line empty.
fn hide() {
    if let Some(bar) = screen().bar.take() {
        bar.finish_and_clear();
    }
}

/// A spinner that exists only when a person is watching.
#[derive(Debug)]
pub(crate) struct Spinner {
    shown: bool,
}

impl Spinner {
    /// Start a spinner with `message` when stderr is a terminal and not quiet; else a no-op.
    pub(crate) fn start(diagnostics: &Diagnostics, message: &str) -> Spinner {
        let shown = diagnostics.is_terminal() && !diagnostics.is_quiet();
        if shown {
            show(message.to_owned());
        }
        Spinner { shown }
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        if self.shown {
            hide();
        }
    }
}

/// A tool call being run, for its line when it finishes.
#[derive(Debug)]
struct Running {
    id: String,
    name: String,
    summary: String,
    started: Instant,
}

/// The turn's progress on stderr, wrapped around the output sink.
pub(crate) struct ProgressSink {
    inner: Box<dyn OutputSink>,
    /// A spinner on stderr (a terminal, not `-q`).
    spinner: bool,
    /// One line per finished tool (a terminal or `-v`, not `-q`).
    tool_lines: bool,
    /// One line per finished hook (`-v`, not `-q`).
    hook_lines: bool,
    /// Text mode with stdout on a terminal: the answer shares the spinner's screen.
    answer_on_screen: bool,
    /// Text mode where stdout does not show the text written before tool calls: it is shown
    /// here (a terminal or `-v`, not `-q`).
    narration: bool,
    tools: Vec<Running>,
}

impl ProgressSink {
    /// Wrap `inner` with the progress `diagnostics` allow for output in `format`; `hold_text`
    /// when text mode prints the answer only at the end (heartbeat runs).
    pub(crate) fn new(
        inner: Box<dyn OutputSink>,
        diagnostics: &Diagnostics,
        format: Format,
        hold_text: bool,
    ) -> ProgressSink {
        let quiet = diagnostics.is_quiet();
        let stdout_terminal = super::stdout_is_terminal();
        // When stream-json lines scroll by on the same terminal, they are the progress.
        let lines_on_screen = format == Format::StreamJson && stdout_terminal;
        let answer_on_screen = format == Format::Text && stdout_terminal && !hold_text;
        let watched = (diagnostics.is_terminal() || diagnostics.verbosity() > 0) && !quiet;
        ProgressSink {
            inner,
            // indicatif draws nothing where `TERM` is unset or `dumb`; then neither do we.
            spinner: diagnostics.is_terminal()
                && !quiet
                && !ProgressDrawTarget::stderr().is_hidden()
                && !lines_on_screen,
            tool_lines: watched,
            hook_lines: diagnostics.verbosity() > 0 && !quiet,
            answer_on_screen,
            narration: format == Format::Text && watched && !answer_on_screen,
            tools: Vec::new(),
        }
    }

    /// The spinner's message for an event, if it starts a phase. `strong` phases bring the
    /// spinner back while the answer's line is open; the others only update it.
    fn phase_of(&self, event: &Event) -> Option<(String, bool)> {
        let phase = match event {
            Event::Phase(Phase::Connecting(target)) => (format!("connecting to {target}"), true),
            Event::Phase(Phase::Compacting) => ("compacting".to_owned(), true),
            Event::ToolStarted(start) => (
                with_summary(&format!("tool {}", start.name), &summary(&start.input)),
                true,
            ),
            Event::Hook(HookProgress::Started(started)) => (format!("hook {}", started.name), true),
            Event::Retry(retry) => {
                let attempt = retry.attempt.unwrap_or(1);
                let delay = retry.delay.map_or(0, |delay| {
                    u64::try_from(delay.as_millis()).unwrap_or(u64::MAX)
                });
                (
                    format!("retrying (attempt {attempt}, in {})", duration(delay)),
                    true,
                )
            }
            Event::Stream(StreamEvent::Start { .. } | StreamEvent::ThinkingDelta { .. }) => {
                ("thinking".to_owned(), false)
            }
            Event::Stream(
                StreamEvent::TextDelta { .. }
                | StreamEvent::ToolCallStart { .. }
                | StreamEvent::ToolCall { .. },
            ) => ("streaming".to_owned(), false),
            // The provider's own search runs on its side while the stream waits.
            Event::Stream(StreamEvent::ServerToolStart { name, .. }) => {
                (format!("provider {name}"), false)
            }
            _ => return None,
        };
        Some(phase)
    }

    fn tool_started(&mut self, start: &ToolStart) {
        self.tools.push(Running {
            id: start.id.clone(),
            name: start.name.clone(),
            summary: summary(&start.input),
            started: Instant::now(),
        });
    }

    fn tool_finished(&mut self, end: &ToolEnd) {
        let Some(position) = self.tools.iter().position(|tool| tool.id == end.id) else {
            return;
        };
        let tool = self.tools.remove(position);
        if self.tool_lines {
            stderr_line(&tool_line(
                &tool.name,
                &tool.summary,
                end.is_error,
                tool.started.elapsed(),
            ));
        }
    }
}

impl EventSink for ProgressSink {
    fn emit(&mut self, event: &Event) {
        match event {
            Event::Assistant(done) if self.narration => {
                if let Some(text) = text_before_tools(&done.message) {
                    stderr_line(&text);
                }
            }
            Event::ToolStarted(start) => self.tool_started(start),
            Event::ToolFinished(end) => self.tool_finished(end),
            Event::Hook(HookProgress::Finished(finished)) if self.hook_lines => {
                stderr_line(&hook_line(finished));
            }
            _ => {}
        }
        if self.spinner
            && let Some((message, strong)) = self.phase_of(event)
        {
            let open = screen().open_line;
            if strong || !open {
                show(message);
            }
        }
        if let Event::TextDelta(text) = event
            && self.answer_on_screen
            && !text.is_empty()
        {
            hide();
            self.inner.emit(event);
            screen().open_line = !text.ends_with('\n');
            return;
        }
        self.inner.emit(event);
    }
}

impl OutputSink for ProgressSink {
    fn finish(&mut self, result: &RunResult) -> Result<(), super::Undelivered> {
        hide();
        let outcome = self.inner.finish(result);
        // The answer's last line was ended by the newline text mode writes at the end.
        screen().open_line = false;
        outcome
    }
}

impl Drop for ProgressSink {
    fn drop(&mut self) {
        hide();
    }
}

/// The text of a message that goes on to call tools (it is not the answer), trimmed; none for
/// a message without tool calls or without text.
fn text_before_tools(message: &crate::conversation::AssistantMessage) -> Option<String> {
    let text = message.text();
    let text = text.trim();
    (message.tool_calls().next().is_some() && !text.is_empty()).then(|| text.to_owned())
}

/// What a tool call is about, in a few words: the command, path or pattern it was given.
pub(crate) fn summary(input: &Value) -> String {
    const KEYS: [&str; 8] = [
        "command",
        "cmd",
        "path",
        "file_path",
        "pattern",
        "query",
        "url",
        "tool",
    ];
    let text = KEYS
        .iter()
        .find_map(|key| input.get(*key).and_then(Value::as_str))
        .map(str::to_owned)
        .or_else(|| {
            // codex's file changes: the paths touched.
            let changes = input.get("changes")?.as_array()?;
            let paths: Vec<&str> = changes
                .iter()
                .filter_map(|change| change.get("path").and_then(Value::as_str))
                .collect();
            Some(paths.join(", "))
        })
        .unwrap_or_default();
    shorten(&text, 60)
}

/// One line of at most `limit` characters (whitespace runs, newlines included, become one space).
fn shorten(text: &str, limit: usize) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= limit {
        return flat;
    }
    let mut short: String = flat.chars().take(limit.saturating_sub(1)).collect();
    short.push('…');
    short
}

fn with_summary(head: &str, summary: &str) -> String {
    if summary.is_empty() {
        head.to_owned()
    } else {
        format!("{head} {summary}")
    }
}

/// `tool exec ls -la: ok (12 ms)`.
pub(crate) fn tool_line(name: &str, summary: &str, is_error: bool, took: Duration) -> String {
    let outcome = if is_error { "error" } else { "ok" };
    let took = u64::try_from(took.as_millis()).unwrap_or(u64::MAX);
    format!(
        "{}: {outcome} ({})",
        with_summary(&format!("tool {name}"), summary),
        duration(took)
    )
}

/// `hook PreToolUse:Bash ./guard.sh: exit 2 (12 ms)`, with what it wrote on stderr.
pub(crate) fn hook_line(finished: &HookFinished) -> String {
    let took = u64::try_from(finished.duration.as_millis()).unwrap_or(u64::MAX);
    let mut line = format!(
        "{}: {} ({})",
        with_summary(
            &format!("hook {}", finished.name),
            &shorten(&finished.command, 60)
        ),
        finished.ending,
        duration(took)
    );
    let stderr = shorten(&finished.stderr, 120);
    if !stderr.is_empty() {
        line.push_str(": ");
        line.push_str(&stderr);
    }
    line
}

/// `12 ms`, `1.5 s`.
fn duration(millis: u64) -> String {
    if millis < 1_000 {
        format!("{millis} ms")
    } else {
        format!("{:.1} s", millis as f64 / 1_000.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_line_names_the_tool_its_argument_the_outcome_and_the_time() {
        let input = serde_json::json!({"command": "ls -la\n  | wc -l"});
        assert_eq!(summary(&input), "ls -la | wc -l");
        assert_eq!(
            tool_line("exec", &summary(&input), false, Duration::from_millis(12)),
            "tool exec ls -la | wc -l: ok (12 ms)"
        );
        assert_eq!(
            tool_line("ls", "", true, Duration::from_millis(1_530)),
            "tool ls: error (1.5 s)"
        );
        assert_eq!(
            summary(&serde_json::json!({"file_path": "/w/notes.txt"})),
            "/w/notes.txt"
        );
        assert_eq!(
            summary(&serde_json::json!({"changes": [{"path": "a.rs"}, {"path": "b.rs"}]})),
            "a.rs, b.rs"
        );
        let long = "x".repeat(100);
        let short = summary(&serde_json::json!({ "pattern": long }));
        assert_eq!(short.chars().count(), 60);
        assert!(short.ends_with('…'));
    }

    #[test]
    fn phases_follow_the_events_of_a_turn() {
        let sink = ProgressSink {
            inner: Box::new(super::super::events::JsonSink::default()),
            spinner: true,
            tool_lines: true,
            hook_lines: false,
            answer_on_screen: false,
            narration: false,
            tools: Vec::new(),
        };
        let phase = |event: Event| sink.phase_of(&event).map(|(message, _)| message);
        assert_eq!(
            phase(Event::Phase(Phase::Connecting("anthropic/claude".into()))).as_deref(),
            Some("connecting to anthropic/claude")
        );
        assert_eq!(
            phase(Event::Stream(StreamEvent::ThinkingDelta {
                block: 0,
                text: "x".into()
            }))
            .as_deref(),
            Some("thinking")
        );
        assert_eq!(
            phase(Event::ToolStarted(ToolStart {
                id: "t".into(),
                name: "read".into(),
                input: serde_json::json!({"path": "a.txt"}),
            }))
            .as_deref(),
            Some("tool read a.txt")
        );
        assert_eq!(
            phase(Event::Retry(crate::engine::event::Retry {
                attempt: Some(2),
                delay: Some(Duration::from_millis(1500)),
                error: "busy".into(),
                kind: crate::engine::event::RetryKind::Resend,
            }))
            .as_deref(),
            Some("retrying (attempt 2, in 1.5 s)")
        );
        assert_eq!(
            phase(Event::Phase(Phase::Compacting)).as_deref(),
            Some("compacting")
        );
        assert_eq!(phase(Event::TextDelta("x".into())), None);
    }
}
