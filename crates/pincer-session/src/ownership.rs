//! Which files the commands that delete or rewrite sessions (`sessions rm`, `prune`, `repair`)
//! may touch: only session files of the sessions directory.
//!
//! A session argument may be a path (SPEC §1.3, §1.5), and an index entry names a file; neither
//! is proof that the file is a session pincer keeps. `sessions rm ./main.rs` used to delete the
//! Rust file. So before a file is deleted or rewritten, [`prove`] checks, in this order:
//! - its directory, every link in it resolved, is the sessions directory (compared by path
//!   components, both sides canonical), and its name is a plain name (not `..`);
//! - the file itself is a regular file: a link there is not followed out of the directory, a
//!   FIFO or a device is never opened;
//! - its first line is a session header (`"type":"session"`, an `id`, …; [`Proof::Header`]).
//!   `repair`, whose job is a damaged or lost header, asks for [`Proof::Place`] only and leaves
//!   the rest to the store's scan, which refuses a file that is no session at all.
//!
//! Commands that only read or append to a session (`resume FILE`, `sessions show FILE`,
//! `compact FILE`) keep taking a session file anywhere, as documented: pi's and OpenClaw's files
//! are continued where they are.

use std::io::{BufRead as _, BufReader, Read as _};
use std::path::{Path, PathBuf};

use super::record::Line;
use crate::fs::{FileKind, NotRegular};

/// The longest first line read for the header check; a real header is a few hundred bytes.
const MAX_HEADER_BYTES: u64 = 1 << 20;

/// What a file must show, besides its place, before it is deleted or rewritten.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Proof {
    /// Its first line parses as a session header (`rm`, `prune`).
    Header,
    /// Its place only: in the sessions directory, a regular file (`repair`, which rebuilds a
    /// damaged header and refuses a file that is no session by itself).
    Place,
    /// A session header, as [`Proof::Header`], unless the file still has the size and
    /// modification time (nanoseconds) at which the index read that header and found it
    /// sound (`prune`, which would otherwise read every old file once more).
    Indexed {
        /// The file's size when the index read it.
        size: u64,
        /// Its modification time then, in nanoseconds since the epoch.
        mtime_ns: u64,
    },
}

/// Why a file is not one the command may delete or rewrite. Each is a usage error (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum NotOwned {
    /// The file is not directly in the sessions directory.
    #[error("'{}' is not in the sessions directory '{}'", .path.display(), .dir.display())]
    Outside {
        /// The file, as given.
        path: PathBuf,
        /// The sessions directory.
        dir: PathBuf,
    },
    /// The file is a link, a directory, a FIFO, … rather than a regular file.
    #[error("'{}' in the sessions directory is {}, not a session file", .path.display(), .kind.described())]
    NotAFile {
        /// The file.
        path: PathBuf,
        /// What it is.
        kind: FileKind,
    },
    /// The first line is no session header.
    #[error("'{}' in the sessions directory does not start with a session header: {reason}", .path.display())]
    NoHeader {
        /// The file.
        path: PathBuf,
        /// What the first line is instead.
        reason: String,
    },
    /// The file or the directory could not be looked at.
    #[error("cannot check '{}': {source}", .path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

impl NotOwned {
    /// What to do about it.
    pub fn hint(&self) -> &'static str {
        match self {
            NotOwned::Outside { .. } => {
                "only session files of the sessions directory are deleted or repaired; name the \
                 session by id or name (`pincer sessions list --all`), or remove other files yourself"
            }
            NotOwned::NotAFile { .. } | NotOwned::NoHeader { .. } => {
                "only session files of the sessions directory are deleted or repaired; remove \
                 other files there yourself"
            }
            NotOwned::Io { .. } => "check that the file and the sessions directory are readable",
        }
    }
}

#[cfg(test)]
/// Check that `path` is a session file of `sessions_dir` as `proof` asks (see the module
/// header), and return it as a path inside the canonical sessions directory.
pub fn prove(sessions_dir: &Path, path: &Path, proof: Proof) -> Result<PathBuf, NotOwned> {
    SessionsDir::new(sessions_dir).prove(path, proof)
}

/// A sessions directory resolved once, for a command that proves many files in it (a prune):
/// each proof of a file named inside it is then a stat and a header read, not two walks of
/// the whole path.
pub struct SessionsDir<'a> {
    given: &'a Path,
    /// `None` when there is no such directory yet: nothing is in it.
    canonical: Option<PathBuf>,
}

impl<'a> SessionsDir<'a> {
    /// Resolve `sessions_dir`.
    pub fn new(sessions_dir: &'a Path) -> SessionsDir<'a> {
        SessionsDir {
            given: sessions_dir,
            canonical: std::fs::canonicalize(sessions_dir).ok(),
        }
    }

    /// [`prove`] for a file of this directory.
    pub fn prove(&self, path: &Path, proof: Proof) -> Result<PathBuf, NotOwned> {
        let sessions_dir = self.given;
        let outside = || NotOwned::Outside {
            path: path.to_owned(),
            dir: sessions_dir.to_owned(),
        };
        let io = |at: &Path| {
            let at = at.to_owned();
            move |source| NotOwned::Io { path: at, source }
        };
        let Some(name) = path.file_name() else {
            return Err(outside());
        };
        let parent = match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent,
            _ => Path::new("."),
        };
        let Some(dir) = &self.canonical else {
            return Err(outside());
        };
        // A path named inside the directory as it was given is in it; any other is resolved.
        if parent != sessions_dir
            && std::fs::canonicalize(parent)
                .map_or(true, |parent| parent.components().ne(dir.components()))
        {
            return Err(outside());
        }
        let file = dir.join(name);
        let metadata = std::fs::symlink_metadata(&file).map_err(io(&file))?;
        let kind = FileKind::of(metadata.file_type());
        if kind != FileKind::Regular {
            return Err(NotOwned::NotAFile { path: file, kind });
        }
        match proof {
            Proof::Header => header_line(&file)?,
            Proof::Indexed { size, mtime_ns }
                if super::index::file_stamp(&metadata) != (size, mtime_ns) =>
            {
                header_line(&file)?;
            }
            Proof::Indexed { .. } | Proof::Place => {}
        }
        Ok(file)
    }
}

/// Read the first line of `file` (a regular file, not followed through a link) and check that it
/// is a session header.
fn header_line(file: &Path) -> Result<(), NotOwned> {
    let no_header = |reason: String| NotOwned::NoHeader {
        path: file.to_owned(),
        reason,
    };
    let opened =
        crate::fs::open_regular(file, false).map_err(|source| match NotRegular::of(&source) {
            Some(kind) => NotOwned::NotAFile {
                path: file.to_owned(),
                kind,
            },
            None => NotOwned::Io {
                path: file.to_owned(),
                source,
            },
        })?;
    let mut first = Vec::new();
    BufReader::new(opened.take(MAX_HEADER_BYTES))
        .read_until(b'\n', &mut first)
        .map_err(|source| NotOwned::Io {
            path: file.to_owned(),
            source,
        })?;
    let text = std::str::from_utf8(&first).map_err(|_| no_header("line 1 is not UTF-8".into()))?;
    if text.trim().is_empty() {
        return Err(no_header("the file is empty".to_owned()));
    }
    match super::parse::parse_line(text.trim_end()) {
        Ok(Line::Header(_)) => Ok(()),
        Ok(Line::Entry(_)) => Err(no_header("line 1 is an entry".to_owned())),
        Err(error) => Err(no_header(format!("line 1: {error}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "{\"type\":\"session\",\"version\":3,\"id\":\"019ad3c1-0000-7000-8000-00000000000a\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/w\"}\n";

    struct Store {
        _root: tempfile::TempDir,
        root: PathBuf,
        dir: PathBuf,
    }

    fn store() -> Store {
        let root_dir = tempfile::tempdir().unwrap();
        let root = root_dir.path().canonicalize().unwrap();
        let dir = root.join("sessions");
        std::fs::create_dir(&dir).unwrap();
        Store {
            _root: root_dir,
            root,
            dir,
        }
    }

    #[test]
    fn a_session_file_of_the_directory_is_proven_and_named_canonically() {
        let store = store();
        let file = store.dir.join("a.jsonl");
        std::fs::write(&file, HEADER).unwrap();
        let roundabout = store.root.join("sessions/../sessions/a.jsonl");
        assert_eq!(prove(&store.dir, &roundabout, Proof::Header).unwrap(), file);
    }

    #[test]
    fn an_indexed_stamp_stands_for_the_header_only_while_the_file_keeps_it() {
        let store = store();
        let file = store.dir.join("a.jsonl");
        std::fs::write(&file, HEADER).unwrap();
        let (size, mtime_ns) =
            super::super::index::file_stamp(&std::fs::symlink_metadata(&file).unwrap());
        let indexed = Proof::Indexed { size, mtime_ns };
        assert_eq!(prove(&store.dir, &file, indexed).unwrap(), file);
        // The same bytes, rewritten at another time: the header is read again, and holds.
        let later = Proof::Indexed {
            size,
            mtime_ns: mtime_ns - 1,
        };
        assert_eq!(prove(&store.dir, &file, later).unwrap(), file);
        // A file that is no session since the index saw it is refused...
        let other = "x".repeat(HEADER.len());
        std::fs::write(&file, &other).unwrap();
        assert!(matches!(
            prove(&store.dir, &file, later),
            Err(NotOwned::NoHeader { .. })
        ));
        // ...unless it still has the very size and time the index read a header at: the
        // index's read stands for this one.
        let (size, mtime_ns) =
            super::super::index::file_stamp(&std::fs::symlink_metadata(&file).unwrap());
        assert_eq!(
            prove(&store.dir, &file, Proof::Indexed { size, mtime_ns }).unwrap(),
            file
        );
        // A link is refused before any stamp is compared.
        let link = store.dir.join("b.jsonl");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        assert!(matches!(
            prove(&store.dir, &link, Proof::Indexed { size, mtime_ns }),
            Err(NotOwned::NotAFile { .. })
        ));
    }

    #[test]
    fn a_file_outside_is_refused_whatever_it_holds() {
        let store = store();
        let outside = store.root.join("a.jsonl");
        std::fs::write(&outside, HEADER).unwrap();
        for proof in [Proof::Header, Proof::Place] {
            assert!(matches!(
                prove(&store.dir, &outside, proof),
                Err(NotOwned::Outside { .. })
            ));
        }
        // `..` as the name, and a directory that is a link out of the store.
        let dotdot = store.dir.join("..");
        assert!(matches!(
            prove(&store.dir, &dotdot, Proof::Place),
            Err(NotOwned::Outside { .. })
        ));
        std::os::unix::fs::symlink(&store.root, store.dir.join("up")).unwrap();
        let through = store.dir.join("up/a.jsonl");
        assert!(matches!(
            prove(&store.dir, &through, Proof::Header),
            Err(NotOwned::Outside { .. })
        ));
    }

    #[test]
    fn a_link_in_the_directory_is_not_followed() {
        let store = store();
        let outside = store.root.join("a.jsonl");
        std::fs::write(&outside, HEADER).unwrap();
        let link = store.dir.join("b.jsonl");
        std::os::unix::fs::symlink(&outside, &link).unwrap();
        let error = prove(&store.dir, &link, Proof::Place).unwrap_err();
        assert!(
            matches!(
                error,
                NotOwned::NotAFile {
                    kind: FileKind::Symlink,
                    ..
                }
            ),
            "{error}"
        );
    }

    #[test]
    fn a_file_without_a_session_header_is_refused_for_deletion_but_not_for_repair() {
        let store = store();
        for (name, text, reason) in [
            ("main.rs", "fn main() {}\n", "line 1: "),
            ("empty.jsonl", "", "the file is empty"),
            (
                "entry.jsonl",
                "{\"type\":\"session_info\",\"id\":\"a1b2c3d4\",\"parentId\":null,\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"name\":\"n\"}\n",
                "line 1 is an entry",
            ),
        ] {
            let file = store.dir.join(name);
            std::fs::write(&file, text).unwrap();
            let error = prove(&store.dir, &file, Proof::Header).unwrap_err();
            assert!(error.to_string().contains(reason), "{name}: {error}");
            assert!(prove(&store.dir, &file, Proof::Place).is_ok());
        }
    }

    #[test]
    fn a_fifo_in_the_directory_is_refused_without_opening_it() {
        let store = store();
        let fifo = store.dir.join("pipe.jsonl");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        let error = prove(&store.dir, &fifo, Proof::Header).unwrap_err();
        assert!(
            matches!(
                error,
                NotOwned::NotAFile {
                    kind: FileKind::Fifo,
                    ..
                }
            ),
            "{error}"
        );
    }
}
