//! Which session file a command means: a session argument (file path, full id, name, or unique
//! id prefix) or `--last`, looked up in the index (SPEC §1.3, §1.5).
//!
//! Precedence, as [`Index::find`] decides it: a full id, then a name, then a unique id prefix.
//! A damaged session the index knows only by its file name is read again before a lookup gives
//! up ([`Index::damaged_rescanned`]). Errors carry what the user needs to pick the right one.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::index::{Index, Lookup};

/// Why a session argument names no single session. Each is a usage error (exit 2).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResolveError {
    /// A path was given and no file is there.
    #[error("no session file at '{0}'")]
    NoFile(String),
    /// No session has that id, name or id prefix.
    #[error("no session matches '{0}'")]
    NoMatch(String),
    /// Several sessions match.
    #[error("{}", ambiguous_message(.query, .candidates))]
    Ambiguous {
        /// What was asked for.
        query: String,
        /// `(id, name, cwd)` of each match, by file name.
        candidates: Vec<(String, Option<String>, String)>,
    },
    /// `--last` in a workspace no session ran in.
    #[error("no session has been run in '{}'", .0.display())]
    NoneInWorkspace(PathBuf),
    /// Neither a session nor `--last`.
    #[error("no session given")]
    NoneGiven,
}

fn ambiguous_message(query: &str, candidates: &[(String, Option<String>, String)]) -> String {
    let mut message = format!("'{query}' matches {} sessions:", candidates.len());
    for (id, name, cwd) in candidates {
        let _ = write!(
            message,
            "\n  {id}  {}  {cwd}",
            name.as_deref().unwrap_or("-")
        );
    }
    message
}

impl ResolveError {
    /// What to do about it.
    pub fn hint(&self) -> Option<&'static str> {
        match self {
            ResolveError::NoFile(_) => None,
            ResolveError::NoMatch(_) => {
                Some("`pincer sessions list --all` shows every session with its id and name")
            }
            ResolveError::Ambiguous { query, candidates } => {
                let by_name = candidates
                    .iter()
                    .all(|(_, name, _)| name.as_deref() == Some(query.as_str()));
                Some(if by_name {
                    "give the full id of the one you mean, and `pincer sessions rename ID NEW-NAME` the other"
                } else {
                    "give more characters of the id, or the full id (`pincer sessions list --all` shows the shortest unique ones)"
                })
            }
            ResolveError::NoneInWorkspace(_) => {
                Some("pass --all to pick the most recent session of any directory")
            }
            ResolveError::NoneGiven => Some("name one, or pass --last"),
        }
    }
}

/// Resolve a session argument (id, unique id prefix, name, or file path) to its file, among
/// the sessions of the directory `dir` that `index` describes.
pub fn resolve(dir: &Path, index: &Index, query: &str) -> Result<PathBuf, ResolveError> {
    let as_path = Path::new(query);
    if query.contains('/') || query.ends_with(".jsonl") {
        if as_path.is_file() {
            return Ok(as_path.to_owned());
        }
        let in_store = dir.join(query);
        if !query.contains('/') && in_store.is_file() {
            return Ok(in_store);
        }
        if query.contains('/') {
            return Err(ResolveError::NoFile(query.to_owned()));
        }
    }
    let damaged;
    let mut found = index.find(query);
    if matches!(found, Lookup::NotFound) {
        // A damaged session the index knows only by its file name: read those files again.
        damaged = index.damaged_rescanned(dir);
        found = damaged.find(query);
    }
    match found {
        Lookup::One(entry) => Ok(dir.join(&entry.file)),
        Lookup::NotFound => Err(ResolveError::NoMatch(query.to_owned())),
        Lookup::Ambiguous(candidates) => Err(ResolveError::Ambiguous {
            query: query.to_owned(),
            candidates: candidates
                .iter()
                .map(|candidate| {
                    let summary = &candidate.summary;
                    (
                        summary.id.clone(),
                        summary.name.clone(),
                        summary.cwd.clone(),
                    )
                })
                .collect(),
        }),
    }
}

/// Resolve `SESSION` or `--last` (the newest session of `workspace`, of any workspace with
/// `all`) to a session file.
pub fn resolve_selector(
    dir: &Path,
    workspace: &Path,
    index: &Index,
    session: Option<&str>,
    last: bool,
    all: bool,
) -> Result<PathBuf, ResolveError> {
    match session {
        Some(query) => resolve(dir, index, query),
        None if last => match index.last(workspace, all) {
            Some(entry) => Ok(dir.join(&entry.file)),
            None => Err(ResolveError::NoneInWorkspace(workspace.to_owned())),
        },
        None => Err(ResolveError::NoneGiven),
    }
}
