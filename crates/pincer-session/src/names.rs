//! Session names are unique in a store (SPEC §1.2, §1.3), so a name is only ever given under the
//! store's names lock (`<sessions>/names.lock`).
//!
//! Whoever holds the lock first reads the sessions that answer to the name from the index,
//! each checked against its file — the index a command read when it started may not know a
//! session that another process created a moment ago, and every pincer that creates or renames
//! a session updates its row before it lets go of this lock — then decides, and writes the name into the session file before letting go: a new session is
//! created with its `session_info` entry already in it, a rename appends its entry. The next
//! holder therefore always finds the name in a file. The lock covers only that check and that
//! write, never a model call: a run holds it for milliseconds.
//!
//! Lock order: a command may take the names lock while it holds a session's lock (a rename), or
//! take a brand-new session's lock while it holds the names lock (a creation), but never waits
//! for an existing session's lock while it holds the names lock. So the two never deadlock.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::index::{self, Index, IndexEntry, Lookup};
use super::resolve::{ResolveError, resolve};
use super::store::SessionError;
use crate::fs::{self as pfs, FileLock};

/// File name of the names lock inside the sessions directory.
pub const NAMES_LOCK_FILE: &str = "names.lock";

/// How long to wait for another process that is giving a name when `--wait` does not say.
/// Holders only refresh the index and write one file, so a longer wait means many creators at
/// once in a big store.
const NAMES_LOCK_WAIT: Duration = Duration::from_secs(30);

/// The names lock, held until dropped, with the index as the files were when it was taken.
#[derive(Debug)]
pub struct NamesLock {
    _lock: FileLock,
    index: Index,
}

impl NamesLock {
    /// Take the names lock of the sessions directory `dir` (creating the directory), waiting for
    /// other holders up to `wait` (`--wait`; none: [`NAMES_LOCK_WAIT`]) and never past the
    /// run's `--timeout`, and read the sessions `name` can mean from the index (by its
    /// indexes, each checked against its file: not a refresh of every session).
    pub fn acquire(
        dir: &Path,
        wait: Option<Duration>,
        name: &str,
    ) -> Result<NamesLock, SessionError> {
        pfs::create_dir_all(dir).map_err(|source| SessionError::Io {
            action: "cannot create the sessions directory",
            path: dir.to_owned(),
            source,
        })?;
        let waited = wait.unwrap_or(NAMES_LOCK_WAIT);
        index::make_lock_file(dir, &lock_path(dir));
        let lock = FileLock::acquire(&lock_path(dir), Some(waited)).map_err(|error| {
            SessionError::from_lock(
                error,
                || "the session names".to_owned(),
                |holder| SessionError::NamesBusy { holder, waited },
            )
        })?;
        let wanted = index::Wanted {
            queries: vec![name],
            last: None,
        };
        let (mut index, _) = index::scoped(dir, &wanted)?;
        // A damaged session keeps its name; an index of an older pincer may not know it.
        let rescanned = index.damaged_rescanned(dir);
        index.sessions.extend(rescanned.sessions);
        Ok(NamesLock { _lock: lock, index })
    }

    /// The sessions the name can mean, as the files were when the lock was taken.
    pub fn index(&self) -> &Index {
        &self.index
    }

    /// The sessions other than `except_id` that are named `name` now.
    pub fn holders(&self, name: &str, except_id: Option<&str>) -> Vec<&IndexEntry> {
        self.index
            .sessions
            .values()
            .filter(|entry| {
                entry.summary.name.as_deref() == Some(name)
                    && Some(entry.summary.id.as_str()) != except_id
            })
            .collect()
    }
}

/// Why a name cannot be given.
#[derive(Debug, thiserror::Error)]
pub enum NameError {
    /// An empty (or blank) name (exit 2).
    #[error("a session name cannot be empty")]
    Empty,
    /// Another session has it (exit 2).
    #[error("the name '{name}' is taken by session {id}")]
    Taken {
        /// The name.
        name: String,
        /// The id of the session that has it.
        id: String,
    },
    /// The names lock or the index could not be read.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// The session a name answers to could not be told apart from others.
    #[error(transparent)]
    Resolve(#[from] ResolveError),
}

impl NameError {
    /// What to do about it.
    pub fn hint(&self) -> Option<&'static str> {
        match self {
            NameError::Taken { .. } => {
                Some("names are unique; pick another or rename that session first")
            }
            NameError::Resolve(error) => error.hint(),
            NameError::Empty | NameError::Session(_) => None,
        }
    }
}

fn check_name(name: &str) -> Result<(), NameError> {
    if name.trim().is_empty() {
        return Err(NameError::Empty);
    }
    Ok(())
}

fn name_taken(name: &str, other: &IndexEntry) -> NameError {
    NameError::Taken {
        name: name.to_owned(),
        id: other.summary.id.clone(),
    }
}

/// Refuse a name that another session already has, by the account of `index` (for runs that
/// write nothing; anything that gives a name goes through [`give_name`]).
pub fn ensure_name_free(
    index: &Index,
    name: &str,
    except_id: Option<&str>,
) -> Result<(), NameError> {
    check_name(name)?;
    if let Some(other) = index.sessions.values().find(|entry| {
        entry.summary.name.as_deref() == Some(name) && Some(entry.summary.id.as_str()) != except_id
    }) {
        return Err(name_taken(name, other));
    }
    Ok(())
}

/// Give `name` to a session of the sessions directory `dir`: `give` (which writes the name into
/// a session file) runs under the names lock, once the files show that no session but
/// `except_id` has it (SPEC §1.2). Two processes naming two sessions alike at the same moment:
/// one succeeds, the other gets the usual "taken" error. `wait` is `--wait` (see
/// [`NamesLock::acquire`]).
pub fn give_name<T, E: From<NameError>>(
    dir: &Path,
    wait: Option<Duration>,
    name: &str,
    except_id: Option<&str>,
    give: impl FnOnce() -> Result<T, E>,
) -> Result<T, E> {
    check_name(name)?;
    let names = NamesLock::acquire(dir, wait, name).map_err(NameError::from)?;
    if let Some(other) = names.holders(name, except_id).first() {
        return Err(name_taken(name, other).into());
    }
    give()
}

/// What [`find_or_create`] did.
pub enum FoundOrCreated<T> {
    /// No session answered to the name: `create` made one.
    Created(T),
    /// A session answers to the name now (another process may have just created it).
    Found(PathBuf),
}

/// `resume --create NAME`: the session `name` resolves to by the files' account, or a new one
/// made by `create` — which must write the name into the new file — under the names lock. Of
/// several processes doing this at once, one creates and the others find its session.
pub fn find_or_create<T, E: From<NameError>>(
    dir: &Path,
    wait: Option<Duration>,
    name: &str,
    create: impl FnOnce() -> Result<T, E>,
) -> Result<FoundOrCreated<T>, E> {
    check_name(name)?;
    let names = NamesLock::acquire(dir, wait, name).map_err(NameError::from)?;
    match names.index().find(name) {
        Lookup::NotFound => create().map(FoundOrCreated::Created),
        _ => resolve(dir, names.index(), name)
            .map(FoundOrCreated::Found)
            .map_err(|error| NameError::from(error).into()),
    }
}

/// The names lock's file in the sessions directory `dir`.
pub fn lock_path(dir: &Path) -> PathBuf {
    dir.join(NAMES_LOCK_FILE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{self, SessionHeader};
    use crate::store::{self, SessionLock};

    fn header(id: &str) -> SessionHeader {
        SessionHeader::for_test(id)
    }

    fn named(name: &str) -> Vec<record::Entry> {
        vec![
            record::build_entry(
                "session_info",
                "a0000001",
                None,
                serde_json::json!({ "name": name }),
            )
            .unwrap(),
        ]
    }

    #[test]
    fn the_holders_of_a_name_come_from_the_files_not_from_a_stale_index() {
        let dir = tempfile::tempdir().unwrap();
        let sessions = dir.path().join("sessions");
        store::create(
            &sessions,
            &header("0199a000-0000-7000-8000-000000000001"),
            &[],
        )
        .unwrap();
        // The index is written now, and knows no name.
        let (index, _) = index::refresh(&sessions).unwrap();
        assert!(!index.find("nightly").is_one());
        // Another process creates `nightly` without touching the index.
        store::create(
            &sessions,
            &header("0199a000-0000-7000-8000-000000000002"),
            &named("nightly"),
        )
        .unwrap();
        let names = NamesLock::acquire(&sessions, None, "nightly").unwrap();
        let holders = names.holders("nightly", None);
        assert_eq!(holders.len(), 1);
        assert_eq!(
            holders[0].summary.id,
            "0199a000-0000-7000-8000-000000000002"
        );
        assert!(
            names
                .holders("nightly", Some("0199a000-0000-7000-8000-000000000002"))
                .is_empty()
        );
        assert!(lock_path(&sessions).is_file());
    }

    #[test]
    fn a_session_created_locked_holds_its_name_and_its_lock_from_the_start() {
        let dir = tempfile::tempdir().unwrap();
        let sessions = dir.path().join("sessions");
        let (writer, loaded) = store::create_locked(
            &sessions,
            &header("0199a000-0000-7000-8000-000000000003"),
            &named("release"),
        )
        .unwrap();
        assert!(SessionLock::is_held(writer.path()));
        assert_eq!(loaded.entries.len(), 1);
        let text = std::fs::read_to_string(writer.path()).unwrap();
        assert_eq!(text.lines().count(), 2, "{text}");
        assert!(text.contains(r#""name":"release""#), "{text}");
        drop(writer);
        assert!(!SessionLock::is_held(&loaded.path));
    }
}
