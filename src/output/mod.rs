//! Everything that reaches stdout or stderr goes through this module.
//!
//! - [`Stdout`] carries data only, and treats a closed pipe as a quiet end rather than an error
//!   (`pincer sessions list | head -1` must not print a panic or fail).
//! - [`Diagnostics`] writes `error:`, `warning:`, `hint:` and progress lines to stderr, styled only
//!   when stderr is a terminal (or `--color always`) and `NO_COLOR` is unset.
//! - Text from elsewhere (models, tools, providers, MCP servers, hooks) can hold terminal
//!   control sequences: every stderr line has them escaped ([`escape`]), and so has stdout when
//!   it is a terminal; piped stdout stays byte-exact.
//! - [`events`] holds the event interface and the text, json and stream-json sinks of a turn;
//!   [`partial`] the `stream_event` shapes; [`progress`] the spinner and tool lines on stderr,
//!   through which every stderr line goes so that none runs into the spinner.
//!
//! This is the only module that writes to the terminal (see the crate-level lints; it writes
//! through `io::stdout()`/`io::stderr()` handles, never the print macros).

pub(crate) mod codex;
pub(crate) mod escape;
pub(crate) mod events;
pub mod money;
pub(crate) mod partial;
pub(crate) mod progress;
pub mod report;
pub(crate) mod result;
pub mod schema;
pub mod usage;
pub(crate) mod web_search;

use std::io::{self, IsTerminal, Write};
use std::sync::OnceLock;

use escape::{Keep, escape_controls};

use crate::engine::event::EventSink;
use crate::error::CliError;

/// A sink of the output layer: it takes every event and renders the terminal record.
pub(crate) trait OutputSink: EventSink {
    /// Render the terminal record. Called exactly once per run.
    fn finish(&mut self, result: &schema::RunResult) -> Result<(), Undelivered>;
}

/// What the end of a run could not write. A reader that went away (a closed pipe) is not one
/// of these: [`Stdout`] ends quietly then.
#[derive(Debug)]
pub(crate) enum Undelivered {
    /// stdout (the answer, the result object, a stream-json line): the run's output did not
    /// reach its reader, so the run is not a success (SPEC §3.2), though its turn is saved.
    Stdout(io::Error),
    /// The `--events-file` copy: a warning; stdout got everything.
    EventsFile(io::Error),
}

impl Undelivered {
    /// The failure that matters most of two: stdout's.
    pub(crate) fn either(
        first: Result<(), Undelivered>,
        second: Result<(), Undelivered>,
    ) -> Result<(), Undelivered> {
        match (first, second) {
            (Err(stdout @ Undelivered::Stdout(_)), _)
            | (_, Err(stdout @ Undelivered::Stdout(_))) => Err(stdout),
            (Err(file), _) | (_, Err(file)) => Err(file),
            (Ok(()), Ok(())) => Ok(()),
        }
    }
}

/// How stdout is formatted (SPEC §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Human text.
    Text,
    /// One JSON object at the end.
    Json,
    /// JSON lines as events happen.
    StreamJson,
    /// `codex exec --experimental-json`'s JSONL events (`pincer exec`, for the Codex SDK).
    CodexJson,
}

impl Format {
    /// Whether stdout carries JSON.
    pub fn is_json(self) -> bool {
        !matches!(self, Format::Text)
    }
}

/// Whether stderr is styled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColorMode {
    /// Style when stderr is a terminal and `NO_COLOR` is unset.
    Auto,
    /// Always style.
    Always,
    /// Never style.
    Never,
}

/// Whether stdout is a terminal (asked once: it does not change during a run).
pub(crate) fn stdout_is_terminal() -> bool {
    static TERMINAL: OnceLock<bool> = OnceLock::new();
    *TERMINAL.get_or_init(|| io::stdout().is_terminal())
}

/// stdout as a data channel: buffered per call, flushed per call, quiet on a broken pipe. On a
/// terminal, control characters other than line feeds and tabs are written escaped (a JSON
/// line stays the same JSON); through a pipe or into a file, every byte is written as given.
#[derive(Debug, Default)]
pub struct Stdout {
    broken: bool,
}

impl Stdout {
    /// A new handle.
    pub fn new() -> Stdout {
        Stdout::default()
    }

    /// Write `text` and flush. A closed pipe marks the handle broken and is not an error;
    /// any other write error is returned.
    pub fn write(&mut self, text: &str) -> io::Result<()> {
        if self.broken {
            return Ok(());
        }
        let text = if stdout_is_terminal() {
            escape_controls(text, Keep::LineBreaks)
        } else {
            std::borrow::Cow::Borrowed(text)
        };
        let mut handle = io::stdout().lock();
        let outcome = handle
            .write_all(text.as_bytes())
            .and_then(|()| handle.flush());
        match outcome {
            Err(error) if error.kind() == io::ErrorKind::BrokenPipe => {
                self.broken = true;
                Ok(())
            }
            other => other,
        }
    }

    /// Write `text` followed by a newline.
    pub fn line(&mut self, text: &str) -> io::Result<()> {
        let mut owned = String::with_capacity(text.len() + 1);
        owned.push_str(text);
        owned.push('\n');
        self.write(&owned)
    }

    /// Write a value as one line of JSON.
    pub fn json_line<T: serde::Serialize>(&mut self, value: &T) -> io::Result<()> {
        let text = serde_json::to_string(value).map_err(io::Error::other)?;
        self.line(&text)
    }

    /// Write a command's result object (`--json` of `compact`, `status` and the maintenance
    /// commands): one line, so `>> results.jsonl` and line readers work, and indented only on a
    /// terminal, where a person reads it. One rule for every command (SPEC §3.2, #47 item 3).
    pub fn json_report<T: serde::Serialize>(&mut self, value: &T) -> io::Result<()> {
        let text = if stdout_is_terminal() {
            serde_json::to_string_pretty(value)
        } else {
            serde_json::to_string(value)
        }
        .map_err(io::Error::other)?;
        self.line(&text)
    }
}

/// stderr for people: errors, warnings, hints and, with `-v`, details.
#[derive(Debug, Clone)]
pub struct Diagnostics {
    color: bool,
    quiet: bool,
    verbose: u8,
    terminal: bool,
}

impl Diagnostics {
    /// Decide styling from the mode, `NO_COLOR` (passed in) and whether stderr is a terminal.
    pub fn new(mode: ColorMode, no_color_env: bool, quiet: bool, verbose: u8) -> Diagnostics {
        let terminal = io::stderr().is_terminal();
        let color = match mode {
            ColorMode::Always => true,
            ColorMode::Never => false,
            ColorMode::Auto => terminal && !no_color_env,
        };
        Diagnostics {
            color,
            quiet,
            verbose,
            terminal,
        }
    }

    /// Whether stderr is a terminal (progress and the session line show only there).
    pub fn is_terminal(&self) -> bool {
        self.terminal
    }

    /// Whether `-q` is on.
    pub fn is_quiet(&self) -> bool {
        self.quiet
    }

    /// The `-v` count.
    pub fn verbosity(&self) -> u8 {
        self.verbose
    }

    fn styled(&self, label: &str, ansi: &str) -> String {
        if self.color {
            format!("\x1b[{ansi}m{label}:\x1b[0m")
        } else {
            format!("{label}:")
        }
    }

    /// `error: …` and `hint: …`. Always shown, even with `-q`. The messages are escaped, the
    /// labels' styling is not.
    pub fn error(&self, error: &CliError) {
        let mut text = format!(
            "{} {}\n",
            self.styled("error", "1;31"),
            escape_controls(&error.message, Keep::LineBreaks)
        );
        if let Some(hint) = &error.hint {
            text.push_str(&format!(
                "{} {}\n",
                self.styled("hint", "1;36"),
                escape_controls(hint, Keep::LineBreaks)
            ));
        }
        progress::styled_stderr_line(text.trim_end_matches('\n'));
    }

    /// `warning: …`, hidden by `-q`.
    pub fn warn(&self, message: &str) {
        if !self.quiet {
            progress::styled_stderr_line(&format!(
                "{} {}",
                self.styled("warning", "1;33"),
                escape_controls(message, Keep::LineBreaks)
            ));
        }
    }

    /// An informational line, hidden by `-q`.
    pub fn info(&self, message: &str) {
        if !self.quiet {
            progress::stderr_line(message);
        }
    }

    /// A detail shown only with `-v`.
    pub fn detail(&self, message: &str) {
        if self.verbose > 0 && !self.quiet {
            progress::stderr_line(message);
        }
    }
}
