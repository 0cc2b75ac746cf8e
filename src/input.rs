//! The prompt's input contract (SPEC §2): never hang on a terminal or an idle pipe.
//!
//! - The prompt is the argument, or stdin when the argument is `-` or absent.
//! - Stdin is read only when it is not a terminal. With a prompt argument it is optional context:
//!   if no byte arrives within the stdin timeout (default 0.5 s) it is ignored; if bytes arrive it
//!   is read to EOF and appended in a `<stdin>` block. Without an argument stdin is the prompt:
//!   wait up to 5 s for the first byte (the same option sets it; 0 waits without limit).
//! - More than the size cap, or invalid UTF-8 (unless lossy), is an input error. An empty prompt
//!   is an error.

use std::io::{IsTerminal, Read};
use std::os::fd::AsFd;
use std::time::Duration;

/// Default wait for optional stdin context next to a prompt argument.
pub const DEFAULT_CONTEXT_WAIT: Duration = Duration::from_millis(500);
/// Default wait for the first byte when stdin is the prompt.
pub const DEFAULT_PROMPT_WAIT: Duration = Duration::from_secs(5);

/// How to treat stdin.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StdinOptions {
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
pub enum InputError {
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
pub struct Prompt {
    /// The prompt text as sent.
    pub text: String,
    /// Whether invalid UTF-8 was replaced (a warning is due).
    pub lossy: bool,
}

/// Wait up to `wait` (None: forever) for stdin to become readable (data or EOF).
fn stdin_ready(wait: Option<Duration>) -> Result<bool, InputError> {
    use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
    let stdin = std::io::stdin();
    let mut fds = [PollFd::new(stdin.as_fd(), PollFlags::POLLIN)];
    let timeout = match wait {
        None => PollTimeout::NONE,
        Some(wait) => {
            let milliseconds = u16::try_from(wait.as_millis()).unwrap_or(u16::MAX);
            PollTimeout::from(milliseconds)
        }
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
pub fn with_context(prompt: &str, context: &str) -> String {
    let context = context.strip_suffix('\n').unwrap_or(context);
    format!("{prompt}\n\n<stdin>\n{context}\n</stdin>")
}

/// Read the prompt per the contract.
pub fn read_prompt(argument: Option<&str>, options: StdinOptions) -> Result<Prompt, InputError> {
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
            if !usable_stdin || !stdin_ready(limit(DEFAULT_CONTEXT_WAIT))? {
                return Ok(Prompt {
                    text: text.to_owned(),
                    lossy: false,
                });
            }
            let (context, lossy) = read_all(options.max_bytes, options.lossy)?;
            if context.trim().is_empty() {
                return Ok(Prompt {
                    text: text.to_owned(),
                    lossy,
                });
            }
            Ok(Prompt {
                text: with_context(text, &context),
                lossy,
            })
        }
        None => {
            if !usable_stdin {
                return Err(InputError::Missing);
            }
            let wait = limit(DEFAULT_PROMPT_WAIT);
            if !stdin_ready(wait)? {
                return Err(InputError::NoPrompt(
                    wait.map_or(0.0, |wait| wait.as_secs_f64()),
                ));
            }
            let (text, lossy) = read_all(options.max_bytes, options.lossy)?;
            if text.trim().is_empty() {
                return Err(InputError::Empty);
            }
            Ok(Prompt { text, lossy })
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
