//! Error classes and the exit codes of SPEC §3.5, mapped in one place.
//!
//! Modules below `commands/` return typed errors; `commands/` wraps them in [`CliError`], which
//! carries the exit code, a one-line message and an optional hint. `main` prints it once.

use std::fmt;
use std::path::Path;
use std::process::ExitCode;

use crate::session::fork::ForkError;
use crate::session::names::NameError;
use crate::session::resolve::ResolveError;
use crate::session::store::SessionError;

/// The documented exit codes (SPEC §3.5). Scripts rely on these numbers: never renumber.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// 0: success.
    Success,
    /// 1: the run failed (model or tool error).
    RunFailed,
    /// 2: usage, input or config error.
    Usage,
    /// 3: no usable credentials, or all rejected.
    Auth,
    /// 4: provider unavailable after retries.
    Unavailable,
    /// 5: `--max-turns`, `--max-budget-usd` or a `[budget]` stopped the run.
    Guardrail,
    /// 6: context overflow that compaction could not resolve.
    ContextOverflow,
    /// 75: another run holds the session's lock (`EX_TEMPFAIL`).
    Busy,
    /// 124: `--timeout` reached.
    Timeout,
    /// 130: interrupted by SIGINT.
    Interrupted,
    /// 143: terminated by SIGTERM.
    Terminated,
}

impl Exit {
    /// The numeric process exit code.
    pub fn code(self) -> u8 {
        match self {
            Exit::Success => 0,
            Exit::RunFailed => 1,
            Exit::Usage => 2,
            Exit::Auth => 3,
            Exit::Unavailable => 4,
            Exit::Guardrail => 5,
            Exit::ContextOverflow => 6,
            Exit::Busy => 75,
            Exit::Timeout => 124,
            Exit::Interrupted => 130,
            Exit::Terminated => 143,
        }
    }

    /// The `error.kind` string used in JSON results for this class.
    pub fn kind(self) -> &'static str {
        match self {
            Exit::Success => "none",
            Exit::RunFailed => "run_failed",
            Exit::Usage => "usage",
            Exit::Auth => "auth",
            Exit::Unavailable => "unavailable",
            Exit::Guardrail => "guardrail",
            Exit::ContextOverflow => "context_overflow",
            Exit::Busy => "session_busy",
            Exit::Timeout => "timeout",
            Exit::Interrupted => "interrupted",
            Exit::Terminated => "terminated",
        }
    }
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> ExitCode {
        ExitCode::from(exit.code())
    }
}

/// An error on its way to the user: what happened, what to do, and the exit code.
#[derive(Debug, Clone)]
pub struct CliError {
    /// The exit class.
    pub exit: Exit,
    /// One line, without the `error: ` prefix.
    pub message: String,
    /// What the user can do about it, without the `hint: ` prefix.
    pub hint: Option<String>,
    /// The JSON result's `error.kind` when it is more specific than the exit class's (`mcp`).
    pub kind: Option<&'static str>,
}

impl CliError {
    /// A new error of class `exit`.
    pub fn new(exit: Exit, message: impl Into<String>) -> CliError {
        CliError {
            exit,
            message: message.into(),
            hint: None,
            kind: None,
        }
    }

    /// A usage/input/config error (exit 2).
    pub fn usage(message: impl Into<String>) -> CliError {
        CliError::new(Exit::Usage, message)
    }

    /// Attach a hint.
    pub fn with_hint(mut self, hint: impl Into<String>) -> CliError {
        self.hint = Some(hint.into());
        self
    }

    /// Set the JSON result's `error.kind`.
    pub fn with_kind(mut self, kind: &'static str) -> CliError {
        self.kind = Some(kind);
        self
    }

    /// The JSON result's `error.kind`: the one set, else the exit class's.
    pub fn kind(&self) -> &'static str {
        self.kind.unwrap_or_else(|| self.exit.kind())
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(&self.message)
    }
}

impl std::error::Error for CliError {}

/// Result alias for command code.
pub(crate) type CliResult<T> = Result<T, CliError>;

/// The `error.kind` of a failure of this machine rather than of the provider or the input: the
/// process or the system ran out of file descriptors. Exit 1, never retried or failed over.
pub(crate) const LOCAL_RESOURCE: &str = "local_resource";

/// The `error.kind` of a run refused before its first request because a `[budget]` window's
/// spend has reached its limit (SPEC §18): exit 5, subtype `error_max_budget_usd`.
pub(crate) const BUDGET_EXCEEDED: &str = "budget_exceeded";

/// Whether `error` says that this process (`EMFILE`) or the whole system (`ENFILE`) has no file
/// descriptor left to open a file, a socket or a pipe.
pub(crate) fn out_of_file_descriptors(error: &std::io::Error) -> bool {
    matches!(
        error.raw_os_error(),
        Some(nix::libc::EMFILE | nix::libc::ENFILE)
    )
}

/// What to do when [`out_of_file_descriptors`] holds for `error`: which limit was reached and
/// how to raise it.
pub(crate) fn file_descriptor_advice(error: &std::io::Error) -> String {
    if error.raw_os_error() == Some(nix::libc::ENFILE) {
        return "the system has as many files open as it allows (fs.file-max); close other \
                programs or raise that limit, then try again"
            .to_owned();
    }
    let limit = nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_NOFILE)
        .map_or_else(|_| "low".to_owned(), |(soft, _)| soft.to_string());
    format!(
        "pincer has as many files open as its limit allows (`ulimit -n` is {limit}); raise it, \
         e.g. `ulimit -n 1024`, then try again"
    )
}

/// A file pincer was to write for the user (`what`: "events file", …) that it will not or
/// cannot open: exit 2, with a hint when it is a link or not a regular file (SPEC §10).
pub(crate) fn user_file_error(what: &str, path: &Path, source: &std::io::Error) -> CliError {
    let error = CliError::usage(format!(
        "cannot write the {what} '{}': {source}",
        path.display()
    ));
    match crate::fs::NotRegular::of(source) {
        Some(crate::fs::FileKind::Symlink) => error.with_hint(
            "pincer does not write through symbolic links: remove the link, or name the file it \
             points to",
        ),
        Some(_) => error.with_hint("name a regular file (a new one, or one pincer may replace)"),
        None => error.with_hint("name a file in a directory you can write to"),
    }
}

/// A failure because this process or the system ran out of file descriptors: exit 1, the JSON
/// result's `error.kind` `local_resource`, and a hint naming the limit to raise. `None` for
/// every other I/O error.
pub(crate) fn resource_error(message: &str, source: &std::io::Error) -> Option<CliError> {
    out_of_file_descriptors(source).then(|| {
        CliError::new(Exit::RunFailed, message)
            .with_kind(LOCAL_RESOURCE)
            .with_hint(file_descriptor_advice(source))
    })
}

/// What to do about a home on a filesystem whose locks other machines do not see.
pub(crate) const LOCAL_LOCKS_HINT: &str = "two machines writing there at once could \
    interleave their turns in one session or lose each other's updates, so pincer does not; put \
    the home (PINCER_HOME, or the XDG directories) on a local disk or an NFS mount, or, if only \
    this machine writes there, set `allow_local_locks = true` under [sessions] in config.toml or \
    PINCER_ALLOW_LOCAL_LOCKS=1";

/// A session error with its exit code and a hint that says what to do.
pub(crate) fn session_error(error: SessionError) -> CliError {
    let message = error.to_string();
    match &error {
        SessionError::Busy { holder, .. } => {
            let whom = holder.as_ref().map_or_else(|| "the other run".to_owned(), |holder| holder.whom());
            CliError::new(Exit::Busy, message).with_hint(format!(
                "wait for {whom} to finish, or pass --wait SECS to wait for the lock"
            ))
        }
        SessionError::NamesBusy { .. } => CliError::new(Exit::Busy, message).with_hint(
            "many sessions are being named at once; pass a longer --wait SECS, or try again in a moment",
        ),
        SessionError::LockTimedOut { .. } => CliError::new(Exit::Timeout, message),
        SessionError::LocalLocks { .. } => {
            CliError::usage(message).with_hint(LOCAL_LOCKS_HINT)
        }
        SessionError::Corrupt { path, .. } => CliError::usage(message).with_hint(format!(
            "run `pincer sessions repair {}` to set the damaged lines aside in a side file (a damaged header is rebuilt)",
            path.display()
        )),
        SessionError::UnknownVersion { .. } => {
            CliError::usage(message).with_hint("upgrade pincer to read this session")
        }
        SessionError::NotASession { .. } => CliError::usage(message),
        SessionError::Io { path, source, .. } => access_error(&message, path, source)
            .or_else(|| resource_error(&message, source))
            .unwrap_or_else(|| CliError::new(Exit::RunFailed, message)),
        SessionError::Vanished { .. } | SessionError::Serialize(_) => {
            CliError::new(Exit::RunFailed, message)
        }
    }
}

/// A session argument that names no single session: exit 2 with what to type instead.
pub(crate) fn resolve_error(error: ResolveError) -> CliError {
    let hint = error.hint();
    let cli_error = CliError::usage(error.to_string());
    match hint {
        Some(hint) => cli_error.with_hint(hint),
        None => cli_error,
    }
}

impl From<NameError> for CliError {
    fn from(error: NameError) -> CliError {
        match error {
            NameError::Session(error) => session_error(error),
            NameError::Resolve(error) => resolve_error(error),
            NameError::Empty | NameError::Taken { .. } => {
                let hint = error.hint();
                let cli_error = CliError::usage(error.to_string());
                match hint {
                    Some(hint) => cli_error.with_hint(hint),
                    None => cli_error,
                }
            }
        }
    }
}

/// A fork that was not made.
pub(crate) fn fork_error(error: ForkError) -> CliError {
    match error {
        ForkError::NoEntry { .. } => CliError::usage(error.to_string())
            .with_hint("`pincer sessions show SESSION --tree` lists the entry ids"),
        ForkError::Record(error) => CliError::new(Exit::RunFailed, error.to_string()),
        ForkError::Session(error) => session_error(error),
    }
}

/// A permission problem on pincer's own files (an unreadable or unwritable home, sessions
/// directory or auth store, a read-only file system) is the user's to fix, like a bad config:
/// exit 2 with a hint naming the path. `None` for every other I/O error.
pub(crate) fn access_error(
    message: &str,
    path: &Path,
    source: &std::io::Error,
) -> Option<CliError> {
    use std::io::ErrorKind;
    matches!(
        source.kind(),
        ErrorKind::PermissionDenied | ErrorKind::ReadOnlyFilesystem
    )
    .then(|| CliError::usage(message).with_hint(crate::config::access_hint(path)))
}

/// A configuration error: exit 2 with the config module's hint.
pub(crate) fn config_error(error: crate::config::ConfigError) -> CliError {
    let hint = error.hint();
    let mut cli_error = CliError::usage(error.to_string());
    cli_error.hint = hint;
    cli_error
}

/// A prompt as one shell word, always in quotes as a user would type it (`"fix the bug"`).
pub(crate) fn quote_prompt(text: &str) -> String {
    let quoted = shell_quote(text);
    if quoted == text {
        format!("\"{text}\"")
    } else {
        quoted
    }
}

/// `text` as one shell word a user can paste back: double quotes as given when nothing in it
/// is special inside them, single quotes otherwise, bare when it is a plain word.
pub(crate) fn shell_quote(text: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./=:,@%+".contains(c);
    if !text.is_empty() && text.chars().all(plain) {
        return text.to_owned();
    }
    if !text.contains(['"', '$', '`', '\\', '!']) {
        return format!("\"{text}\"");
    }
    format!("'{}'", text.replace('\'', "'\\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_running_out_of_file_descriptors_counts_as_such() {
        let emfile = std::io::Error::from_raw_os_error(nix::libc::EMFILE);
        let enfile = std::io::Error::from_raw_os_error(nix::libc::ENFILE);
        assert!(out_of_file_descriptors(&emfile));
        assert!(out_of_file_descriptors(&enfile));
        assert!(file_descriptor_advice(&emfile).contains("ulimit -n"));
        assert!(file_descriptor_advice(&enfile).contains("fs.file-max"));
        for other in [
            nix::libc::ECONNREFUSED,
            nix::libc::ENOSPC,
            nix::libc::EACCES,
        ] {
            assert!(!out_of_file_descriptors(
                &std::io::Error::from_raw_os_error(other)
            ));
        }
        assert!(!out_of_file_descriptors(&std::io::Error::other("x")));
    }

    #[test]
    fn a_prompt_is_quoted_so_the_shell_gives_it_back_unchanged() {
        assert_eq!(shell_quote("fix the bug"), "\"fix the bug\"");
        assert_eq!(shell_quote("hello"), "hello");
        assert_eq!(shell_quote("cost in $USD"), "'cost in $USD'");
        assert_eq!(shell_quote("it's \"x\""), "'it'\\''s \"x\"'");
    }

    #[test]
    fn exit_codes_match_the_spec_table() {
        let table = [
            (Exit::Success, 0),
            (Exit::RunFailed, 1),
            (Exit::Usage, 2),
            (Exit::Auth, 3),
            (Exit::Unavailable, 4),
            (Exit::Guardrail, 5),
            (Exit::ContextOverflow, 6),
            (Exit::Busy, 75),
            (Exit::Timeout, 124),
            (Exit::Interrupted, 130),
            (Exit::Terminated, 143),
        ];
        for (exit, code) in table {
            assert_eq!(exit.code(), code, "{exit:?}");
        }
    }
}
