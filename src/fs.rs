//! File I/O that must not lose data: atomic replacement, atomic creation, advisory locks.
//!
//! Every file pincer owns is written through here. Invariants:
//! - a reader never sees a half-written file: new content goes to a temp file in the same
//!   directory, is fsynced, then renamed over (or next to) the target, and the directory is fsynced
//!   (the `_unsynced` variants leave the syncs to their caller, or out for a cache);
//! - locks are `flock`-style advisory locks on a separate `<file>.lock` (std `File::lock`), released
//!   when the handle is dropped or the process dies, so a crash never leaves a stale lock behind.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Write `bytes` to `path` atomically: temp file in the same directory, fsync, rename, fsync dir.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = parent_dir(path);
    let temp = staged(dir, ".pincer-tmp-", bytes)?;
    temp.as_file().sync_all()?;
    temp.persist(path).map_err(|error| error.error)?;
    sync_dir(dir)
}

/// [`write_atomic`] without its two syncs, for a cache that is checked before every use (a
/// copy lost to a power cut is only computed again). Readers still never see it partly
/// written (it appears by rename).
pub fn replace_unsynced(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let temp = staged(parent_dir(path), ".pincer-tmp-", bytes)?;
    temp.persist(path).map_err(|error| error.error)?;
    Ok(())
}

/// Create `path` with `bytes` as its whole content, atomically, failing if it already exists.
///
/// Used for new session files so that nobody ever observes a file without its header line.
pub fn create_new_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = parent_dir(path);
    let temp = staged(dir, ".pincer-new-", bytes)?;
    temp.as_file().sync_all()?;
    temp.persist_noclobber(path).map_err(|error| error.error)?;
    sync_dir(dir)
}

/// [`create_new_atomic`] without its two syncs, for a file its writer syncs soon anyway: the
/// caller `fdatasync`s the file and then calls [`sync_dir`] on its directory before the file
/// must survive a power loss. Readers still never see it partly written (it appears by rename).
pub fn create_new_unsynced(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let temp = staged(parent_dir(path), ".pincer-new-", bytes)?;
    temp.persist_noclobber(path).map_err(|error| error.error)?;
    Ok(())
}

/// A temp file in `dir` (named `prefix…`) holding `bytes`, not yet synced or renamed.
fn staged(dir: &Path, prefix: &str, bytes: &[u8]) -> io::Result<tempfile::NamedTempFile> {
    let mut temp = tempfile::Builder::new().prefix(prefix).tempfile_in(dir)?;
    temp.write_all(bytes)?;
    Ok(temp)
}

/// fsync a directory so that a rename or creation inside it survives a power loss.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    }
}

/// Create a directory and its parents; with `private`, the leaf gets mode 0700 at creation.
pub fn create_dir_all(path: &Path, private: bool) -> io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    if private {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(path)
}

/// The path of the lock file that guards `path`.
pub fn lock_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

/// The pauses between attempts to take a busy lock: 5 ms, doubling up to 100 ms.
pub fn lock_pauses() -> impl Iterator<Item = Duration> {
    std::iter::successors(Some(Duration::from_millis(5)), |pause| {
        Some((*pause * 2).min(Duration::from_millis(100)))
    })
}

/// An exclusive advisory lock, held until dropped.
#[derive(Debug)]
pub struct FileLock {
    file: File,
    path: PathBuf,
}

/// Why a lock could not be taken.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another process holds the lock (and the wait, if any, ran out).
    #[error("locked by {}", holder_text(*.holder))]
    Busy {
        /// The pid the holder wrote into the lock file, when readable.
        holder: Option<u32>,
    },
    /// The lock file could not be opened or locked.
    #[error("cannot lock '{}': {source}", .path.display())]
    Io {
        /// The lock file.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
}

fn holder_text(holder: Option<u32>) -> String {
    match holder {
        Some(pid) => format!("process {pid}"),
        None => "another process".to_owned(),
    }
}

impl FileLock {
    /// Take the exclusive lock on `lock_file`, waiting up to `wait` (none: fail at once).
    ///
    /// The holder's pid is written into the lock file so that a waiting user can be told whom
    /// they are waiting for. The file itself is never removed: removing it would let two
    /// processes lock two different inodes of the same name.
    pub fn acquire(lock_file: &Path, wait: Option<Duration>) -> Result<FileLock, LockError> {
        let io_error = |source| LockError::Io {
            path: lock_file.to_owned(),
            source,
        };
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(lock_file)
            .map_err(io_error)?;
        let deadline = wait.map(|wait| Instant::now() + wait);
        let mut pauses = lock_pauses();
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(TryLockError::WouldBlock) => {
                    let now = Instant::now();
                    match deadline {
                        Some(deadline) if now < deadline => {
                            let left = deadline - now;
                            std::thread::sleep(pauses.next().unwrap_or(left).min(left));
                        }
                        _ => {
                            return Err(LockError::Busy {
                                holder: read_holder(lock_file),
                            });
                        }
                    }
                }
                Err(TryLockError::Error(error)) => return Err(io_error(error)),
            }
        }
        let mut lock = FileLock {
            file,
            path: lock_file.to_owned(),
        };
        lock.record_holder().map_err(io_error)?;
        Ok(lock)
    }

    fn record_holder(&mut self) -> io::Result<()> {
        self.file.set_len(0)?;
        self.file.seek(SeekFrom::Start(0))?;
        self.file
            .write_all(format!("{}\n", std::process::id()).as_bytes())
    }

    /// The lock file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether some process holds the lock on `lock_file` right now (without taking it).
    pub fn is_held(lock_file: &Path) -> bool {
        let Ok(file) = OpenOptions::new().read(true).write(true).open(lock_file) else {
            return false;
        };
        match file.try_lock() {
            Ok(()) => {
                let _ = file.unlock();
                false
            }
            Err(TryLockError::WouldBlock) => true,
            Err(TryLockError::Error(_)) => false,
        }
    }
}

/// The pid recorded in a lock file, if any.
pub fn read_holder(lock_file: &Path) -> Option<u32> {
    let mut text = String::new();
    File::open(lock_file).ok()?.read_to_string(&mut text).ok()?;
    text.trim().parse().ok()
}

impl Drop for FileLock {
    fn drop(&mut self) {
        // Clear the pid before unlocking so a reader never names a process that has let go.
        let _ = self.file.set_len(0);
        let _ = self.file.unlock();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_atomic_replaces_content_and_leaves_no_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.json");
        write_atomic(&path, b"one").unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
        replace_unsynced(&path, b"three").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"three");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("index.json")]);
    }

    #[test]
    fn create_new_atomic_refuses_to_overwrite() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.jsonl");
        create_new_atomic(&path, b"first\n").unwrap();
        let error = create_new_atomic(&path, b"second\n").unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read(&path).unwrap(), b"first\n");
    }

    #[test]
    fn a_held_lock_is_busy_and_names_its_holder_then_frees_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl.lock");
        let lock = FileLock::acquire(&path, None).unwrap();
        assert!(FileLock::is_held(&path));
        match FileLock::acquire(&path, Some(Duration::from_millis(30))) {
            Err(LockError::Busy { holder }) => assert_eq!(holder, Some(std::process::id())),
            other => panic!("expected busy, got {other:?}"),
        }
        drop(lock);
        assert!(!FileLock::is_held(&path));
        assert!(FileLock::acquire(&path, None).is_ok());
    }
}
