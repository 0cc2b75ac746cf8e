//! What can go wrong with a session file, for every module of `session/` that reads, locks or
//! writes one.

use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::record::CURRENT_VERSION;
use crate::fs::{Holder, LockError};

/// What can go wrong with a session file.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// Another run holds the session's lock (exit 75). The message names the session as a
    /// user does, by id and name; the file's path stays out of it (pincer's business).
    #[error("session {id}{} is busy: {}", name_text(.name.as_deref()), holder_text(.holder.as_deref()))]
    Busy {
        /// The session's id, from its file name.
        id: String,
        /// Its name, when the caller knows it ([`SessionError::naming`]).
        name: Option<String>,
        /// Who holds it, when known.
        holder: Option<Box<Holder>>,
    },
    /// Another process held the store's names lock for longer than pincer waits (exit 75).
    #[error("the session names are locked by {}; this run waited {} s", holder_text_short(.holder.as_deref()), .waited.as_secs_f64())]
    NamesBusy {
        /// Who holds it, when known.
        holder: Option<Box<Holder>>,
        /// How long this process waited.
        waited: Duration,
    },
    /// The run's `--timeout` came while it waited for a lock (exit 124).
    #[error("the run's --timeout was reached while waiting for {what}, locked by {}", holder_text_short(.holder.as_deref()))]
    LockTimedOut {
        /// What was waited for ("the session names", "session '…'").
        what: String,
        /// Who holds it, when known.
        holder: Option<Box<Holder>>,
    },
    /// A lock file is on a filesystem whose locks other machines do not see (exit 2).
    #[error("{source}")]
    LocalLocks {
        /// The refusal, naming the lock file and the filesystem.
        source: LockError,
    },
    /// A line in the middle of the file is not a valid entry (exit 2).
    #[error("session file '{}' is corrupt at line {line}: {reason}", .path.display())]
    Corrupt {
        /// The session file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// The file has no session header.
    #[error("'{}' is not a pincer/pi session file: {reason}", .path.display())]
    NotASession {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The header's version is newer than this build understands.
    #[error("session file '{}' has format version {version}; this pincer reads versions 1 to {CURRENT_VERSION}", .path.display())]
    UnknownVersion {
        /// The file.
        path: PathBuf,
        /// Its version.
        version: u64,
    },
    /// The file disappeared while a run was appending to it.
    #[error("session file '{}' vanished while it was being written; not recreating it", .path.display())]
    Vanished {
        /// The file.
        path: PathBuf,
    },
    /// An I/O error, with the path involved.
    #[error("{action} '{}': {source}", .path.display())]
    Io {
        /// What was being done.
        action: &'static str,
        /// The path.
        path: PathBuf,
        /// The error.
        source: io::Error,
    },
    /// An entry could not be serialized.
    #[error("cannot serialize a session entry: {0}")]
    Serialize(String),
}

fn holder_text(holder: Option<&Holder>) -> String {
    match holder {
        Some(holder) => format!("another run ({}) holds its lock", holder.describe()),
        None => "another run holds its lock".to_owned(),
    }
}

fn name_text(name: Option<&str>) -> String {
    name.map_or_else(String::new, |name| format!(" ('{name}')"))
}

/// A session as a user names it: its id, from the file name (the path stays out of the
/// message: it is pincer's business, and a script acts on the id).
pub(super) fn session_label(path: &std::path::Path) -> String {
    match super::store::identity_from_file_name(path) {
        Some((id, _)) => id,
        None => path.file_stem().map_or_else(
            || path.display().to_string(),
            |stem| stem.to_string_lossy().into_owned(),
        ),
    }
}

fn holder_text_short(holder: Option<&Holder>) -> String {
    match holder {
        Some(holder) => holder.describe(),
        None => "another process".to_owned(),
    }
}

impl SessionError {
    /// A lock failure as a session error: `busy` makes the error of a busy lock (each lock
    /// says what busy means for it), `what` names what was waited for.
    pub fn from_lock(
        error: LockError,
        what: impl FnOnce() -> String,
        busy: impl FnOnce(Option<Box<Holder>>) -> SessionError,
    ) -> SessionError {
        match error {
            LockError::Busy { holder } => busy(holder),
            LockError::TimedOut { holder } => SessionError::LockTimedOut {
                what: what(),
                holder,
            },
            error @ LockError::LocalOnly { .. } => SessionError::LocalLocks { source: error },
            LockError::Io { path, source } => SessionError::Io {
                action: "cannot lock",
                path,
                source,
            },
        }
    }

    /// A busy session's error naming it by `name` too (the lock knows only the file; the
    /// caller that found the session knows its name). Every other error is returned as it is.
    #[must_use]
    pub fn naming(self, name: Option<&str>) -> SessionError {
        match self {
            SessionError::Busy { id, holder, .. } => SessionError::Busy {
                id,
                name: name.map(str::to_owned),
                holder,
            },
            other => other,
        }
    }

    pub(super) fn io(action: &'static str, path: &Path, source: io::Error) -> SessionError {
        SessionError::Io {
            action,
            path: path.to_owned(),
            source,
        }
    }
}
