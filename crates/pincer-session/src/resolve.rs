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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index;
    use crate::record::{self, SessionHeader};
    use crate::store;
    use pretty_assertions::assert_eq;

    const A: &str = "0199a000-0000-7000-8000-00000000000a";
    const B: &str = "0199a000-0000-7000-8000-00000000000b";
    const C: &str = "0199b000-0000-7000-8000-00000000000c";

    fn create(dir: &Path, id: &str, name: Option<&str>) -> PathBuf {
        let header = SessionHeader::for_test(id);
        let entries: Vec<_> = name
            .map(|name| {
                record::build_entry(
                    "session_info",
                    "a0000001",
                    None,
                    serde_json::json!({"name": name}),
                )
                .unwrap()
            })
            .into_iter()
            .collect();
        store::create(dir, &header, &entries).unwrap()
    }

    /// What the scoped lookup resolves `query` to, next to what a refreshed index resolves it to.
    fn both(
        dir: &Path,
        query: &str,
    ) -> (Result<PathBuf, ResolveError>, Result<PathBuf, ResolveError>) {
        let wanted = index::Wanted {
            queries: vec![query],
            last: None,
        };
        let (scoped, _) = index::scoped(dir, &wanted).unwrap();
        let scoped = resolve(dir, &scoped, query);
        let (full, _) = index::refresh(dir).unwrap();
        (scoped, resolve(dir, &full, query))
    }

    #[test]
    fn ids_names_and_prefixes_resolve_as_through_the_refreshed_index() {
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join("sessions");
        let a = create(&dir, A, Some("nightly"));
        let b = create(&dir, B, None);
        let c = create(&dir, C, Some("0199a000"));
        index::refresh(&dir).unwrap();
        for (query, path) in [
            (A, &a),
            (B, &b),
            ("nightly", &a),
            ("0199b", &c),
            ("0199B", &c),
            ("0199a000", &c),
        ] {
            let (scoped, full) = both(&dir, query);
            assert_eq!(scoped.as_ref(), Ok(path), "{query}");
            assert_eq!(full.as_ref(), Ok(path), "{query}");
        }
        // A path is taken as it is.
        assert_eq!(both(&dir, &a.to_string_lossy()).0, Ok(a.clone()));
        // Several matches, or none, word the same error.
        for query in ["0199a000-0000", "weekly", ""] {
            let (scoped, full) = both(&dir, query);
            assert!(scoped.is_err(), "{query}");
            assert_eq!(scoped, full, "{query}");
        }
    }

    #[test]
    fn names_given_since_and_files_other_programs_add_or_remove_are_found() {
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join("sessions");
        let a = create(&dir, A, None);
        let b = create(&dir, B, None);
        index::refresh(&dir).unwrap();
        // A rename recorded by the command that made it.
        let (mut writer, _, _) = store::open_for_append(&a, None).unwrap();
        let entry = store::new_entry(
            &writer,
            record::NewEntry::SessionInfo {
                name: Some("renamed"),
            },
        )
        .unwrap();
        writer.append(&entry).unwrap();
        drop(writer);
        index::update_one(&dir, &a).unwrap();
        assert_eq!(both(&dir, "renamed").0, Ok(a.clone()));
        // A file copied in by another program, and one removed by another program.
        let c = dir.join(b.file_name().unwrap().to_string_lossy().replace(B, C));
        let text = std::fs::read_to_string(&b).unwrap().replace(B, C);
        std::fs::write(&c, text).unwrap();
        std::fs::remove_file(&b).unwrap();
        assert_eq!(both(&dir, C), (Ok(c.clone()), Ok(c)));
        assert_eq!(both(&dir, B).0, Err(ResolveError::NoMatch(B.to_owned())));
    }
}
