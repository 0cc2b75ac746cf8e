//! Error classes and the exit codes of SPEC §3.5, mapped in one place.
//!
//! Modules below `commands/` return typed errors; `commands/` wraps them in [`CliError`], which
//! carries the exit code, a one-line message and an optional hint. `main` prints it once.

use std::fmt;
use std::path::Path;
use std::process::ExitCode;

use crate::provider::classify::FailureKind;
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

    /// The `error.kind` of a failure of this class when nothing more specific is known.
    pub fn kind(self) -> ErrorKind {
        match self {
            Exit::Success | Exit::RunFailed => ErrorKind::RunFailed,
            Exit::Usage => ErrorKind::Usage,
            Exit::Auth => ErrorKind::Auth,
            Exit::Unavailable => ErrorKind::Unavailable,
            Exit::Guardrail => ErrorKind::Guardrail,
            Exit::ContextOverflow => ErrorKind::ContextOverflow,
            Exit::Busy => ErrorKind::SessionBusy,
            Exit::Timeout => ErrorKind::Timeout,
            Exit::Interrupted | Exit::Terminated => ErrorKind::Interrupted,
        }
    }
}

/// Whether a caller should run again a run that failed with a kind of error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retry {
    /// Running again later may succeed.
    Yes,
    /// Running again unchanged fails the same way.
    No,
    /// It depends on the cause, which the error's own `retryable` says (`connection`).
    ByCause,
}

/// `error.kind`: why a run failed, from a closed set (a new value bumps `schema_version`). Each
/// kind ends with its exit code and whether running it again may succeed, which `retryable`
/// then says; where claude's `SDKAssistantMessageError` names the same failure, so does the
/// kind's description.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The run failed for a reason no other kind names (exit 1, retryable: no).
    RunFailed,
    /// Usage, input or configuration error (exit 2, retryable: no).
    Usage,
    /// No usable credentials, or all were rejected; claude's `authentication_failed` (exit 3, retryable: no).
    Auth,
    /// Out of credits or quota; claude's `billing_error` (exit 4, retryable: no).
    Billing,
    /// Too many requests now; claude's `rate_limit`. `retry_after_s` says when the provider said (exit 4, retryable: yes).
    RateLimit,
    /// The provider is overloaded or failing (5xx, Anthropic 529); claude's `server_error` (exit 4, retryable: yes).
    Overloaded,
    /// The provider could not be reached: `retryable` is true when the connection was refused, timed out or closed, false when the host name does not resolve or the TLS handshake failed (exit 4, retryable: by cause).
    Connection,
    /// The provider is unavailable after retries (exit 4, retryable: yes).
    Unavailable,
    /// The request was malformed; claude's `invalid_request` (exit 1, retryable: no).
    Format,
    /// The provider does not know the model; claude's `model_not_found` (exit 1, retryable: no).
    ModelNotFound,
    /// A CLI backend's session is gone (exit 1, retryable: no).
    SessionExpired,
    /// The prompt does not fit the model's context window, even after compaction (exit 6, retryable: no).
    ContextOverflow,
    /// The final message ran out of output tokens before any answer; claude's `max_output_tokens` (exit 1, retryable: no).
    OutputLimit,
    /// A replayed request matched nothing in the cassette, or the cassette cannot be written (exit 2, retryable: no).
    Cassette,
    /// This machine ran out of file descriptors (exit 1, retryable: no).
    LocalResource,
    /// The provider gave a failure no other kind describes; claude's `unknown` (exit 1, retryable: no).
    Unknown,
    /// A guardrail stopped the run (exit 5, retryable: no).
    Guardrail,
    /// `--max-turns` stopped the run (exit 5, retryable: no).
    MaxTurns,
    /// `--max-budget-usd` stopped the run (exit 5, retryable: no).
    MaxBudgetUsd,
    /// A `[budget]` window's spend reached its limit before the first request (exit 5, retryable: no).
    BudgetExceeded,
    /// The model's answer did not match `--json-schema` after the retries (exit 1, retryable: no).
    StructuredOutput,
    /// The turn could not start (exit 2, retryable: no).
    NotStarted,
    /// A hook stopped the run (exit 1, retryable: no).
    Hook,
    /// A required MCP server failed to start (exit 1, retryable: no).
    Mcp,
    /// The turn could not be saved to the session (exit 1, retryable: no).
    Persistence,
    /// `compact`: the model returned an empty summary; nothing was changed (exit 1, retryable: yes).
    EmptySummary,
    /// Another run holds the session's lock, or its lease in the session store (`--store`); the message names the session and, for a lease, the holder and its host (exit 75, retryable: yes).
    SessionBusy,
    /// The session store (`--store`) could not be reached, timed out or failed; a turn it did not take is not lost: the message says where its local copy is kept (exit 75, retryable: yes).
    StoreUnavailable,
    /// The session store (`--store`) refused: credentials, permissions, a missing bucket, a URL that is no store, or a store that failed the consistency check sessions need (exit 1, retryable: no).
    StoreRefused,
    /// Another writer took the session over in the store while this run held it (it was paused past its lease): the turn was not committed; the message says where its local copy is kept (exit 75, retryable: yes).
    Fenced,
    /// `--timeout` was reached; also a provider that sent nothing within `--idle-timeout`
    /// after every retry, which ends the run as an unavailable provider does, with exit 4
    /// (exit 124, retryable: yes).
    Timeout,
    /// Stopped by SIGINT or an SDK `interrupt`, or by SIGTERM, which exits 143 instead (exit 130, retryable: no).
    Interrupted,
}

impl ErrorKind {
    /// Every kind, in the order of the reference.
    pub const ALL: [ErrorKind; 32] = [
        ErrorKind::RunFailed,
        ErrorKind::Usage,
        ErrorKind::Auth,
        ErrorKind::Billing,
        ErrorKind::RateLimit,
        ErrorKind::Overloaded,
        ErrorKind::Connection,
        ErrorKind::Unavailable,
        ErrorKind::Format,
        ErrorKind::ModelNotFound,
        ErrorKind::SessionExpired,
        ErrorKind::ContextOverflow,
        ErrorKind::OutputLimit,
        ErrorKind::Cassette,
        ErrorKind::LocalResource,
        ErrorKind::Unknown,
        ErrorKind::Guardrail,
        ErrorKind::MaxTurns,
        ErrorKind::MaxBudgetUsd,
        ErrorKind::BudgetExceeded,
        ErrorKind::StructuredOutput,
        ErrorKind::NotStarted,
        ErrorKind::Hook,
        ErrorKind::Mcp,
        ErrorKind::Persistence,
        ErrorKind::EmptySummary,
        ErrorKind::SessionBusy,
        ErrorKind::StoreUnavailable,
        ErrorKind::StoreRefused,
        ErrorKind::Fenced,
        ErrorKind::Timeout,
        ErrorKind::Interrupted,
    ];

    /// The word in `error.kind`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::RunFailed => "run_failed",
            ErrorKind::Usage => "usage",
            ErrorKind::Auth => "auth",
            ErrorKind::Billing => "billing",
            ErrorKind::RateLimit => "rate_limit",
            ErrorKind::Overloaded => "overloaded",
            ErrorKind::Connection => "connection",
            ErrorKind::Unavailable => "unavailable",
            ErrorKind::Format => "format",
            ErrorKind::ModelNotFound => "model_not_found",
            ErrorKind::SessionExpired => "session_expired",
            ErrorKind::ContextOverflow => "context_overflow",
            ErrorKind::OutputLimit => "output_limit",
            ErrorKind::Cassette => "cassette",
            ErrorKind::LocalResource => "local_resource",
            ErrorKind::Unknown => "unknown",
            ErrorKind::Guardrail => "guardrail",
            ErrorKind::MaxTurns => "max_turns",
            ErrorKind::MaxBudgetUsd => "max_budget_usd",
            ErrorKind::BudgetExceeded => "budget_exceeded",
            ErrorKind::StructuredOutput => "structured_output",
            ErrorKind::NotStarted => "not_started",
            ErrorKind::Hook => "hook",
            ErrorKind::Mcp => "mcp",
            ErrorKind::Persistence => "persistence",
            ErrorKind::EmptySummary => "empty_summary",
            ErrorKind::SessionBusy => "session_busy",
            ErrorKind::StoreUnavailable => "store_unavailable",
            ErrorKind::StoreRefused => "store_refused",
            ErrorKind::Fenced => "fenced",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Interrupted => "interrupted",
        }
    }

    /// The exit code of a run that ends with this kind of error (SPEC §3.5).
    pub fn exit(self) -> Exit {
        match self {
            ErrorKind::RunFailed
            | ErrorKind::Format
            | ErrorKind::ModelNotFound
            | ErrorKind::SessionExpired
            | ErrorKind::OutputLimit
            | ErrorKind::LocalResource
            | ErrorKind::Unknown
            | ErrorKind::StructuredOutput
            | ErrorKind::Hook
            | ErrorKind::Mcp
            | ErrorKind::Persistence
            | ErrorKind::EmptySummary
            | ErrorKind::StoreRefused => Exit::RunFailed,
            ErrorKind::Usage | ErrorKind::Cassette | ErrorKind::NotStarted => Exit::Usage,
            ErrorKind::Auth => Exit::Auth,
            ErrorKind::Billing
            | ErrorKind::RateLimit
            | ErrorKind::Overloaded
            | ErrorKind::Connection
            | ErrorKind::Unavailable => Exit::Unavailable,
            ErrorKind::Guardrail
            | ErrorKind::MaxTurns
            | ErrorKind::MaxBudgetUsd
            | ErrorKind::BudgetExceeded => Exit::Guardrail,
            ErrorKind::ContextOverflow => Exit::ContextOverflow,
            ErrorKind::SessionBusy | ErrorKind::StoreUnavailable | ErrorKind::Fenced => Exit::Busy,
            ErrorKind::Timeout => Exit::Timeout,
            ErrorKind::Interrupted => Exit::Interrupted,
        }
    }

    /// Whether a caller should run again after this kind of error.
    pub fn retry(self) -> Retry {
        match self {
            ErrorKind::RateLimit
            | ErrorKind::Overloaded
            | ErrorKind::Unavailable
            | ErrorKind::EmptySummary
            | ErrorKind::SessionBusy
            | ErrorKind::StoreUnavailable
            | ErrorKind::Fenced
            | ErrorKind::Timeout => Retry::Yes,
            ErrorKind::Connection => Retry::ByCause,
            _ => Retry::No,
        }
    }

    /// `error.retryable` when nothing more is known of the cause: a `connection` error is
    /// retryable unless its cause says otherwise.
    pub fn retryable(self) -> bool {
        self.retry() != Retry::No
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.as_str())
    }
}

impl PartialEq<&str> for ErrorKind {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// What a provider failure means to a run's result: its `error.kind` and exit code (SPEC §3.5).
/// The provider crate classifies; the command layer alone maps a class to the result's
/// vocabulary and the process's exit code.
pub(crate) trait FailureOutcome {
    /// Its kind in the closed vocabulary of `result.error.kind`.
    fn error_kind(self) -> ErrorKind;
    /// The exit code of a run that ends with this failure (SPEC §3.5).
    fn exit(self) -> Exit;
}

impl FailureOutcome for crate::provider::classify::FailureKind {
    fn error_kind(self) -> ErrorKind {
        match self {
            FailureKind::Auth => ErrorKind::Auth,
            FailureKind::Billing => ErrorKind::Billing,
            FailureKind::RateLimit => ErrorKind::RateLimit,
            FailureKind::Overloaded => ErrorKind::Overloaded,
            FailureKind::Timeout => ErrorKind::Timeout,
            FailureKind::Connection => ErrorKind::Connection,
            FailureKind::ContextOverflow => ErrorKind::ContextOverflow,
            FailureKind::Format => ErrorKind::Format,
            FailureKind::ModelNotFound => ErrorKind::ModelNotFound,
            FailureKind::SessionExpired => ErrorKind::SessionExpired,
            FailureKind::Cassette => ErrorKind::Cassette,
            FailureKind::LocalResource => ErrorKind::LocalResource,
            FailureKind::Unknown => ErrorKind::Unknown,
        }
    }

    fn exit(self) -> Exit {
        match self {
            FailureKind::Auth => Exit::Auth,
            FailureKind::Billing
            | FailureKind::RateLimit
            | FailureKind::Overloaded
            | FailureKind::Timeout
            | FailureKind::Connection => Exit::Unavailable,
            FailureKind::ContextOverflow => Exit::ContextOverflow,
            FailureKind::Cassette => Exit::Usage,
            FailureKind::Format
            | FailureKind::ModelNotFound
            | FailureKind::SessionExpired
            | FailureKind::LocalResource
            | FailureKind::Unknown => Exit::RunFailed,
        }
    }
}

impl From<crate::cancel::CancelReason> for Exit {
    /// The exit code of a run a cancellation ended: 124 as `timeout(1)`, 128 + the signal's
    /// number.
    fn from(reason: crate::cancel::CancelReason) -> Exit {
        use crate::cancel::CancelReason;
        match reason {
            CancelReason::Timeout => Exit::Timeout,
            CancelReason::Interrupt | CancelReason::Requested => Exit::Interrupted,
            CancelReason::Terminate => Exit::Terminated,
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
    pub kind: Option<ErrorKind>,
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
    pub fn with_kind(mut self, kind: ErrorKind) -> CliError {
        self.kind = Some(kind);
        self
    }

    /// The JSON result's `error.kind`: the one set, else the exit class's.
    pub fn kind(&self) -> ErrorKind {
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
    crate::fs::out_of_file_descriptors(source).then(|| {
        CliError::new(Exit::RunFailed, message)
            .with_kind(ErrorKind::LocalResource)
            .with_hint(crate::fs::file_descriptor_advice(source))
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
            CliError::new(Exit::Busy, message).with_kind(ErrorKind::SessionBusy).with_hint(format!(
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
    fn provider_failure_classes_map_to_the_documented_exit_codes() {
        assert_eq!(FailureKind::Auth.exit().code(), 3);
        assert_eq!(FailureKind::RateLimit.exit().code(), 4);
        assert_eq!(FailureKind::ContextOverflow.exit().code(), 6);
        assert_eq!(FailureKind::Format.exit().code(), 1);
        assert_eq!(FailureKind::LocalResource.exit().code(), 1);
    }

    #[test]
    fn a_prompt_is_quoted_so_the_shell_gives_it_back_unchanged() {
        assert_eq!(shell_quote("fix the bug"), "\"fix the bug\"");
        assert_eq!(shell_quote("hello"), "hello");
        assert_eq!(shell_quote("cost in $USD"), "'cost in $USD'");
        assert_eq!(shell_quote("it's \"x\""), "'it'\\''s \"x\"'");
    }

    /// Issue #47 item 4: the reference (the JSON Schema's description of each `error.kind`,
    /// which the generated docs show) says the exit code and the retry rule the code applies.
    #[test]
    fn every_error_kind_has_the_exit_code_and_retry_rule_its_documentation_gives() {
        let schema = serde_json::to_value(schemars::schema_for!(ErrorKind)).unwrap();
        let choices = schema["oneOf"].as_array().expect("one choice per kind");
        let documented: std::collections::BTreeMap<String, String> = choices
            .iter()
            .map(|choice| {
                let word = choice["const"]
                    .as_str()
                    .or_else(|| choice["enum"][0].as_str())
                    .expect("a word")
                    .to_owned();
                (
                    word,
                    choice["description"].as_str().unwrap_or("").to_owned(),
                )
            })
            .collect();
        assert_eq!(documented.len(), ErrorKind::ALL.len(), "{documented:?}");
        for kind in ErrorKind::ALL {
            let retry = match kind.retry() {
                Retry::Yes => "yes",
                Retry::No => "no",
                Retry::ByCause => "by cause",
            };
            let rule = format!("(exit {}, retryable: {retry})", kind.exit().code());
            let doc = documented[kind.as_str()].trim_end_matches('.');
            assert!(
                doc.ends_with(&rule),
                "{kind}: {doc:?} should end with {rule:?}"
            );
            assert_eq!(serde_json::to_value(kind).unwrap(), kind.as_str());
        }
        for exit in [
            Exit::RunFailed,
            Exit::Busy,
            Exit::Timeout,
            Exit::Unavailable,
        ] {
            assert!(
                exit.kind().retryable()
                    == matches!(exit, Exit::Busy | Exit::Timeout | Exit::Unavailable)
            );
            assert_eq!(exit.kind().exit(), exit);
        }
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
