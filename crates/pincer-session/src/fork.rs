//! Forking: a new session made from one branch of another (`sessions fork`, `resume --fork`).

use std::path::{Path, PathBuf};

use super::record::{self, Entry, RecordError, SessionHeader};
use super::store::{self, LoadedSession, SessionError};

/// A new session made from a branch of another.
#[derive(Debug)]
pub struct Forked {
    /// The new session's id.
    pub id: String,
    /// Its file.
    pub path: PathBuf,
    /// The entry it was forked at.
    pub at: Option<String>,
}

/// Why a fork was not made.
#[derive(Debug, thiserror::Error)]
pub enum ForkError {
    /// `--at` names no entry of the session (exit 2).
    #[error("session {session} has no entry '{entry}'")]
    NoEntry {
        /// The session forked from.
        session: String,
        /// The entry id (or prefix) asked for.
        entry: String,
    },
    /// The name entry could not be built.
    #[error(transparent)]
    Record(#[from] RecordError),
    /// The new file could not be written.
    #[error(transparent)]
    Session(#[from] SessionError),
}

/// Copy the root→`at` path (default: the leaf; `at` may be an id prefix) of `loaded` into a new
/// session file in `dir` whose header names the source as `parentSession`, with the id `id`
/// (default: a fresh UUIDv7). A name on the copied path is replaced by `name` or cleared, so
/// two sessions never answer to one name.
pub fn fork(
    dir: &Path,
    loaded: &LoadedSession,
    at: Option<&str>,
    name: Option<&str>,
    id: Option<String>,
) -> Result<Forked, ForkError> {
    let at = match at {
        Some(entry_id) => {
            let found = loaded
                .entries
                .iter()
                .find(|entry| entry.id() == entry_id || entry.id().starts_with(entry_id));
            match found {
                Some(entry) => Some(entry.id().to_owned()),
                None => {
                    return Err(ForkError::NoEntry {
                        session: loaded.header.id.clone(),
                        entry: entry_id.to_owned(),
                    });
                }
            }
        }
        None => loaded.leaf_id().map(str::to_owned),
    };
    let mut entries: Vec<Entry> = super::context::branch_path(&loaded.entries, at.as_deref())
        .into_iter()
        .cloned()
        .collect();
    let carries_name = entries
        .iter()
        .any(|entry| matches!(entry, Entry::SessionInfo(_)));
    let id = id.unwrap_or_else(|| uuid::Uuid::now_v7().to_string());
    let header = SessionHeader {
        version: Some(store::CURRENT_VERSION),
        id: id.clone(),
        timestamp: record::now_iso(),
        cwd: loaded.header.cwd.clone(),
        parent_session: Some(loaded.path.to_string_lossy().into_owned()),
        extra: serde_json::Map::new(),
    };
    if name.is_some() || carries_name {
        let taken: std::collections::HashSet<String> =
            entries.iter().map(|entry| entry.id().to_owned()).collect();
        let entry_id = record::new_entry_id(&|candidate: &str| taken.contains(candidate));
        let entry = record::NewEntry::SessionInfo { name }
            .build(&entry_id, entries.last().map(Entry::id))?;
        entries.push(entry);
    }
    let path = store::create(dir, &header, &entries)?;
    Ok(Forked { id, path, at })
}
