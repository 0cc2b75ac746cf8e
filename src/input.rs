//! The prompt's input contract (SPEC §2): never hang on a terminal or an idle pipe, and lose
//! nothing a pipeline sends.
//!
//! - The prompt is the argument, or stdin when the argument is `-` or absent.
//! - Stdin is read only when it is not a terminal. With a prompt argument it is optional context:
//!   if no byte arrives within the stdin timeout (default 0.5 s) it is ignored; if bytes arrive it
//!   is read to EOF and appended in a `<stdin>` block. Without an argument stdin is the prompt:
//!   wait up to 5 s for the first byte (the same option sets it; 0 waits without limit).
//! - Whatever the window, a regular file is read to EOF, and so is a pipe whose write end a live
//!   member of pincer's own pipeline holds ([`pipeline`]): `A | pincer run "…"` waits for A. Only a
//!   pipe nobody of the pipeline writes to (a CI runner's, cron's) is ignored, and the caller is
//!   told so ([`StdinUse::Ignored`]) to say it on stderr.
//! - More than the size cap, or invalid UTF-8 (unless lossy), is an input error. An empty prompt
//!   is an error.

mod pipeline;

pub(crate) use pipeline::WriterScan;

use std::io::{IsTerminal, Read};
use std::os::fd::AsFd;
use std::time::Duration;

/// Default wait for optional stdin context next to a prompt argument.
pub(crate) const DEFAULT_CONTEXT_WAIT: Duration = Duration::from_millis(500);
/// Default wait for the first byte when stdin is the prompt.
pub(crate) const DEFAULT_PROMPT_WAIT: Duration = Duration::from_secs(5);

/// How to treat stdin.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct StdinOptions {
    /// `--no-stdin`.
    pub never: bool,
    /// `--stdin-timeout` (seconds; 0 = no limit). `None`: the defaults above.
    pub timeout: Option<Duration>,
    /// Size cap in bytes.
    pub max_bytes: u64,
    /// `--lossy-stdin`: replace invalid UTF-8 instead of failing.
    pub lossy: bool,
}

/// Why no usable prompt came in.
#[derive(Debug, thiserror::Error, PartialEq)]
pub(crate) enum InputError {
    /// Nothing to run.
    #[error("the prompt is empty")]
    Empty,
    /// Stdin was the prompt but nothing arrived in time.
    #[error("no prompt arrived on stdin within {0} s")]
    NoPrompt(f64),
    /// No argument and stdin is a terminal (or `--no-stdin`).
    #[error("no prompt given")]
    Missing,
    /// Over the cap.
    #[error("stdin is larger than {0} bytes")]
    TooLarge(u64),
    /// Not UTF-8.
    #[error("stdin is not valid UTF-8 (byte {0})")]
    InvalidUtf8(usize),
    /// Reading failed.
    #[error("cannot read stdin: {0}")]
    Read(String),
}

/// What came from stdin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Prompt {
    /// The prompt text as sent.
    pub text: String,
    /// Whether invalid UTF-8 was replaced (a warning is due).
    pub lossy: bool,
    /// How stdin was treated (an ignored stdin is said on stderr).
    pub stdin: StdinUse,
}

/// How stdin was treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StdinUse {
    /// Not read: a terminal, or `--no-stdin`.
    NotRead,
    /// Read to EOF: a regular file, or its first byte (or EOF) came within the window.
    Read,
    /// Nothing came within the window, but a member of pincer's pipeline holds the pipe open for
    /// writing: read to EOF anyway.
    Waited(WriterScan),
    /// Nothing came within `window` and no member of the pipeline writes to it: left unread.
    Ignored {
        /// The window waited.
        window: Duration,
        /// The look for a writer (none when stdin is no pipe).
        scan: Option<WriterScan>,
    },
}

/// How stdin turned out once the window was waited.
enum Arrival {
    /// Readable (data or EOF), or a regular file.
    Ready,
    /// Silent, but held open by a member of the pipeline: worth a blocking read.
    Writer(WriterScan),
    /// Silent, and nobody of the pipeline writes to it.
    Silent(Option<WriterScan>),
}

/// Wait up to `wait` (None: forever) for stdin, then decide whether to read it (SPEC §2).
fn await_stdin(wait: Option<Duration>) -> Result<Arrival, InputError> {
    let file = pipeline::stdin_file();
    if file == pipeline::StdinFile::Regular || stdin_ready(wait)? {
        return Ok(Arrival::Ready);
    }
    let pipeline::StdinFile::Pipe(inode) = file else {
        return Ok(Arrival::Silent(None));
    };
    let first = pipeline::find_writer(inode);
    if first.writer.is_none() {
        // A writer that sent its bytes and exited during the scan left them in the pipe.
        if stdin_ready(Some(Duration::ZERO))? {
            return Ok(Arrival::Ready);
        }
        return Ok(Arrival::Silent(Some(first)));
    }
    // Wait for the first byte while a member of the pipeline still holds the pipe, looking
    // again at every tick: a process of the group that held it only for a moment (one being
    // forked by a parent that then closes its copy at exec) must not make pincer wait for good.
    loop {
        if stdin_ready(Some(WRITER_RECHECK))? {
            return Ok(Arrival::Writer(first));
        }
        let again = pipeline::find_writer(inode);
        if again.writer.is_none() {
            if stdin_ready(Some(Duration::ZERO))? {
                return Ok(Arrival::Ready);
            }
            return Ok(Arrival::Silent(Some(again)));
        }
    }
}

/// How often a silent pipe's writer is looked for again while pincer waits for it.
const WRITER_RECHECK: Duration = Duration::from_millis(200);

/// Wait up to `wait` (None: forever) for stdin to become readable (data or EOF).
fn stdin_ready(wait: Option<Duration>) -> Result<bool, InputError> {
    use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
    let stdin = std::io::stdin();
    let mut fds = [PollFd::new(stdin.as_fd(), PollFlags::POLLIN)];
    let timeout = match wait {
        None => PollTimeout::NONE,
        // Beyond `i32::MAX` ms (24 days) is as good as no limit.
        Some(wait) => PollTimeout::try_from(wait).unwrap_or(PollTimeout::MAX),
    };
    loop {
        match poll(&mut fds, timeout) {
            Ok(count) => return Ok(count > 0),
            Err(nix::errno::Errno::EINTR) => continue,
            Err(error) => return Err(InputError::Read(error.to_string())),
        }
    }
}

fn read_all(max_bytes: u64, lossy: bool) -> Result<(String, bool), InputError> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(max_bytes + 1)
        .read_to_end(&mut bytes)
        .map_err(|error| InputError::Read(error.to_string()))?;
    if bytes.len() as u64 > max_bytes {
        return Err(InputError::TooLarge(max_bytes));
    }
    match String::from_utf8(bytes) {
        Ok(text) => Ok((text, false)),
        Err(error) if lossy => Ok((String::from_utf8_lossy(error.as_bytes()).into_owned(), true)),
        Err(error) => Err(InputError::InvalidUtf8(error.utf8_error().valid_up_to())),
    }
}

/// Combine an argument and stdin context the way the prompt is sent.
pub(crate) fn with_context(prompt: &str, context: &str) -> String {
    let context = context.strip_suffix('\n').unwrap_or(context);
    format!("{prompt}\n\n<stdin>\n{context}\n</stdin>")
}

/// Read the prompt per the contract.
pub(crate) fn read_prompt(
    argument: Option<&str>,
    options: StdinOptions,
) -> Result<Prompt, InputError> {
    let argument = argument.filter(|text| *text != "-");
    let usable_stdin = !options.never && !std::io::stdin().is_terminal();
    let limit = |default: Duration| match options.timeout {
        Some(wait) if wait.is_zero() => None,
        Some(wait) => Some(wait),
        None => Some(default),
    };
    match argument {
        Some(text) => {
            if text.trim().is_empty() {
                return Err(InputError::Empty);
            }
            let alone = |stdin| Prompt {
                text: text.to_owned(),
                lossy: false,
                stdin,
            };
            if !usable_stdin {
                return Ok(alone(StdinUse::NotRead));
            }
            let window = limit(DEFAULT_CONTEXT_WAIT);
            let stdin = match await_stdin(window)? {
                Arrival::Ready => StdinUse::Read,
                Arrival::Writer(scan) => StdinUse::Waited(scan),
                Arrival::Silent(scan) => {
                    return Ok(alone(StdinUse::Ignored {
                        window: window.unwrap_or_default(),
                        scan,
                    }));
                }
            };
            let (context, lossy) = read_all(options.max_bytes, options.lossy)?;
            let text = if context.trim().is_empty() {
                text.to_owned()
            } else {
                with_context(text, &context)
            };
            Ok(Prompt { text, lossy, stdin })
        }
        None => {
            if !usable_stdin {
                return Err(InputError::Missing);
            }
            let wait = limit(DEFAULT_PROMPT_WAIT);
            let stdin = match await_stdin(wait)? {
                Arrival::Ready => StdinUse::Read,
                Arrival::Writer(scan) => StdinUse::Waited(scan),
                Arrival::Silent(_) => {
                    return Err(InputError::NoPrompt(
                        wait.map_or(0.0, |wait| wait.as_secs_f64()),
                    ));
                }
            };
            let (text, lossy) = read_all(options.max_bytes, options.lossy)?;
            if text.trim().is_empty() {
                return Err(InputError::Empty);
            }
            Ok(Prompt { text, lossy, stdin })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stdin_context_is_appended_in_a_delimited_block() {
        assert_eq!(
            with_context("write the commit message", "diff --git a b\n"),
            "write the commit message\n\n<stdin>\ndiff --git a b\n</stdin>"
        );
    }
}
