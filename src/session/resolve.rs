//! Which session file a command means: a session argument (file path, full id, name, or unique
//! id prefix) or `--last`, looked up in the index (SPEC §1.3, §1.5).
//!
//! Precedence, as [`Index::find`] decides it: a full id, then a name, then a unique id prefix.
//! A damaged session the index knows only by its file name is read again before a lookup gives
//! up ([`Index::damaged_rescanned`]). Errors carry what the user needs to pick the right one.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::index::{self, INDEX_VERSION, Index, IndexText, Listing, Lookup};
use super::store;

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

/// The sessions `query` (a session argument) can mean, found without refreshing the index:
/// ids come from the file names of `dir` (a file name carries its session's id; while the
/// journal vouches for the directory, the names the index knows are its listing,
/// [`IndexText::listing`]), names from the index's and its journal's text ([`IndexText`]), and
/// only those few entries are read and checked against their files. The returned index holds
/// just them; [`resolve`] over it gives what it gives over the refreshed index, when the index
/// knew every session's latest name.
///
/// `None` when that cannot be decided so: no index of this version, or the query matches no
/// session or several (the caller refreshes the index, which also words the error).
pub fn quick_index(dir: &Path, query: &str) -> Option<Index> {
    let text = IndexText::read(dir, query)?;
    let wanted = |file: &str| {
        let path = dir.join(file);
        let known = text.entry(file);
        index::fresh_entry(known.as_ref(), &path).map(|entry| (file.to_owned(), entry))
    };
    let mut candidates: Vec<(String, super::index::IndexEntry)> = Vec::new();
    if query.contains('/') || query.ends_with(".jsonl") {
        // A path, which `resolve` takes as it is; the index only tells what it knows of a file
        // of that name.
        let path = Path::new(query);
        let target = if path.is_file() {
            path.file_name().and_then(|name| name.to_str())
        } else if !query.contains('/') && dir.join(query).is_file() {
            Some(query)
        } else {
            None
        };
        match target {
            Some(name) => {
                if index::is_session_file_name(name) && std::fs::metadata(dir.join(name)).is_ok() {
                    candidates.extend(wanted(name));
                }
                return Some(mini_index(candidates));
            }
            // No such file: the same error either way.
            None if query.contains('/') => return Some(mini_index(candidates)),
            // `x.jsonl` that is no file may still be a name.
            None => {}
        }
    }
    let known = text.files();
    // The directory's files: the known ones while the journal vouches for it, else as read.
    let listing = text.listing(dir, &known)?;
    let files: Vec<&str> = match &listing {
        Listing::Known => known
            .iter()
            .copied()
            .filter(|file| index::is_session_file_name(file))
            .collect(),
        Listing::Read(names) => names.iter().map(String::as_str).collect(),
    };
    let lower = query.to_ascii_lowercase();
    for &file in &files {
        let by_file_name = store::id_in_file_name(file).is_none_or(|id| {
            id == query
                || (!query.is_empty()
                    && id.len() >= lower.len()
                    && id.as_bytes()[..lower.len()].eq_ignore_ascii_case(lower.as_bytes()))
        });
        // A file the index does not know yet, or whose name does not show its id: read it.
        let unknown = matches!(listing, Listing::Read(_)) && !known.contains(file);
        if by_file_name || unknown {
            candidates.extend(wanted(file));
        }
    }
    let named = text.named();
    if !named.is_empty() {
        let present: std::collections::HashSet<&str> = match listing {
            Listing::Known => known,
            Listing::Read(_) => files.iter().copied().collect(),
        };
        for file in named {
            if !candidates.iter().any(|(known, _)| *known == file)
                && present.contains(file.as_str())
            {
                candidates.extend(wanted(&file));
            }
        }
    }
    let index = mini_index(candidates);
    index.find(query).is_one().then_some(index)
}

fn mini_index(candidates: Vec<(String, super::index::IndexEntry)>) -> Index {
    Index {
        version: INDEX_VERSION,
        sessions: candidates.into_iter().collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::record::{self, SessionHeader};
    use pretty_assertions::assert_eq;

    const A: &str = "0199a000-0000-7000-8000-00000000000a";
    const B: &str = "0199a000-0000-7000-8000-00000000000b";
    const C: &str = "0199b000-0000-7000-8000-00000000000c";

    fn create(dir: &Path, id: &str, name: Option<&str>) -> PathBuf {
        let header = SessionHeader {
            version: Some(store::CURRENT_VERSION),
            id: id.to_owned(),
            timestamp: record::now_iso(),
            cwd: "/work".to_owned(),
            parent_session: None,
            extra: serde_json::Map::new(),
        };
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

    /// What the quick lookup resolves `query` to, next to what a refreshed index resolves it to.
    fn both(dir: &Path, query: &str) -> (Option<PathBuf>, Result<PathBuf, ResolveError>) {
        let quick = quick_index(dir, query).map(|mini| resolve(dir, &mini, query).unwrap());
        let (full, _) = index::refresh(dir).unwrap();
        (quick, resolve(dir, &full, query))
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
            ("0199a000", &c),
        ] {
            let (quick, full) = both(&dir, query);
            assert_eq!(quick.as_ref(), Some(path), "{query}");
            assert_eq!(full.as_ref(), Ok(path), "{query}");
        }
        // A path is taken as it is.
        assert_eq!(both(&dir, &a.to_string_lossy()).0, Some(a.clone()));
        // Several matches, or none: the refreshed index decides (and words the error).
        assert_eq!(quick_index(&dir, "0199a000-0000").map(|_| ()), None);
        assert_eq!(quick_index(&dir, "weekly").map(|_| ()), None);
    }

    #[test]
    fn an_index_read_in_pieces_finds_entries_on_either_side_of_each_boundary() {
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join("sessions");
        // Hundreds of bytes of index per session: the index spans several of the reader's
        // chunks.
        let paths: Vec<PathBuf> = (0..1500)
            .map(|number| {
                let id = format!("0199c000-0000-7000-8000-{number:012}");
                create(&dir, &id, Some(&format!("job-{number}")))
            })
            .collect();
        index::refresh(&dir).unwrap();
        assert!(
            std::fs::metadata(dir.join(index::INDEX_FILE))
                .unwrap()
                .len()
                > 2 * 256 * 1024
        );
        for number in [0, 1, 255, 256, 257, 511, 512, 700, 1024, 1499] {
            let name = format!("job-{number}");
            assert_eq!(both(&dir, &name).0.as_ref(), Some(&paths[number]), "{name}");
        }
    }

    #[test]
    fn names_given_since_the_index_was_written_are_found_in_the_journal_and_the_files() {
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join("sessions");
        let a = create(&dir, A, None);
        create(&dir, B, None);
        index::refresh(&dir).unwrap();
        // A rename journaled by the command that made it.
        let (mut writer, _, _) = store::open_for_append(&a, None).unwrap();
        let entry = store::new_entry(
            &writer,
            "session_info",
            serde_json::json!({"name": "renamed"}),
        )
        .unwrap();
        writer.append(&entry).unwrap();
        drop(writer);
        index::update_one(&dir, &a).unwrap();
        assert_eq!(both(&dir, "renamed").0, Some(a.clone()));
        // A file the index has never seen.
        let c = create(&dir, C, Some("fresh"));
        assert_eq!(both(&dir, "fresh"), (Some(c.clone()), Ok(c)));
        // Without an index there is nothing to search: the caller refreshes.
        std::fs::remove_file(dir.join(index::INDEX_FILE)).unwrap();
        assert_eq!(quick_index(&dir, A).map(|_| ()), None);
    }

    /// Let the directory stand unchanged long enough that a listing of it may be vouched for.
    fn settle() {
        std::thread::sleep(std::time::Duration::from_millis(40));
    }

    /// Give the session at `path` a name, and journal it as the command that did would.
    fn name(dir: &Path, path: &Path, name: &str) {
        let (mut writer, _, _) = store::open_for_append(path, None).unwrap();
        let entry =
            store::new_entry(&writer, "session_info", serde_json::json!({"name": name})).unwrap();
        writer.append(&entry).unwrap();
        drop(writer);
        index::update_one(dir, path).unwrap();
    }

    fn listing_lines(dir: &Path) -> usize {
        std::fs::read_to_string(dir.join(index::JOURNAL_FILE))
            .unwrap_or_default()
            .lines()
            .filter(|line| line.starts_with("{\"listing\":"))
            .count()
    }

    #[test]
    fn a_listing_found_to_be_the_known_files_is_vouched_for_until_the_directory_changes() {
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join("sessions");
        let a = create(&dir, A, Some("nightly"));
        let b = create(&dir, B, None);
        index::refresh(&dir).unwrap();
        // A journal to vouch in (a vouch never creates one: that would change the directory).
        name(&dir, &b, "weekly");
        let journal = std::fs::read_to_string(dir.join(index::JOURNAL_FILE)).unwrap();
        settle();
        let text = IndexText::read(&dir, "nightly").unwrap();
        let known = text.files();
        let Some(Listing::Read(mut names)) = text.listing(&dir, &known) else {
            panic!("the first reader lists the directory");
        };
        names.sort();
        assert_eq!(names.len(), 2);
        assert_eq!(listing_lines(&dir), 1);
        // The line is the journal's last, and the lines before it are as they were.
        let vouched = std::fs::read_to_string(dir.join(index::JOURNAL_FILE)).unwrap();
        assert!(vouched.starts_with(&journal), "{vouched}");
        // The next reader takes the known files; lookups answer as before.
        let text = IndexText::read(&dir, "nightly").unwrap();
        assert_eq!(text.listing(&dir, &text.files()), Some(Listing::Known));
        assert_eq!(both(&dir, A), (Some(a.clone()), Ok(a.clone())));
        assert_eq!(both(&dir, "nightly"), (Some(a.clone()), Ok(a.clone())));
        // The full reader and the journal's other readers skip the line.
        let (full, _) = index::refresh(&dir).unwrap();
        assert_eq!(full.sessions.len(), 2);

        // A refresh that finds nothing to do leaves the directory, and the line, alone.
        let text = IndexText::read(&dir, A).unwrap();
        assert_eq!(text.listing(&dir, &text.files()), Some(Listing::Known));

        // A copy of a session under another name, as a user or another tool would make it,
        // changes the directory: it is listed again, and the lookup sees both files.
        let copy = dir.join(
            a.file_name()
                .unwrap()
                .to_string_lossy()
                .replacen("2", "1", 1),
        );
        std::fs::copy(&a, &copy).unwrap();
        let text = IndexText::read(&dir, A).unwrap();
        assert!(matches!(
            text.listing(&dir, &text.files()),
            Some(Listing::Read(names)) if names.len() == 3
        ));
        assert_eq!(quick_index(&dir, A).map(|_| ()), None);
        assert!(matches!(
            both(&dir, A).1,
            Err(ResolveError::Ambiguous { .. })
        ));
    }

    #[test]
    fn a_listing_is_not_vouched_for_when_it_differs_from_the_known_files_or_there_is_no_journal() {
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join("sessions");
        create(&dir, A, None);
        let b = create(&dir, B, None);
        index::refresh(&dir).unwrap();
        // No journal: nothing is created to vouch in.
        settle();
        let text = IndexText::read(&dir, A).unwrap();
        assert!(matches!(
            text.listing(&dir, &text.files()),
            Some(Listing::Read(_))
        ));
        assert!(!dir.join(index::JOURNAL_FILE).exists());
        // A file the index does not know: listed each time, never vouched for.
        name(&dir, &b, "weekly");
        let c = create(&dir, C, Some("fresh"));
        settle();
        for _ in 0..2 {
            let text = IndexText::read(&dir, "fresh").unwrap();
            assert!(matches!(
                text.listing(&dir, &text.files()),
                Some(Listing::Read(names)) if names.len() == 3
            ));
        }
        assert_eq!(listing_lines(&dir), 0);
        assert_eq!(both(&dir, "fresh"), (Some(c.clone()), Ok(c)));
    }
}
