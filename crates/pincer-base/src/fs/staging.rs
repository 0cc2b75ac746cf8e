//! Atomic writes whose staging file a kill cannot leave behind, and the sweep of what an older
//! pincer, or a kill in the one small window left, did leave.
//!
//! New content is written into an unnamed file of the target's directory (`O_TMPFILE`), which
//! disappears with the process if it is killed. To appear, it is linked (`linkat` through
//! `/proc/self/fd`) straight to the target when the target must not exist yet (a new session
//! file: no staging name ever exists), or, to replace the target, to a fresh staging name
//! `.pincer-stage-<random>` and renamed over it at once — a link cannot replace a name. Between
//! that link and the rename (microseconds) the staging file holds an open file description lock
//! of its writer, so that a sweep can tell a live writer's from a dead one's.
//!
//! Where `O_TMPFILE` or `/proc` is missing (NFS, some FUSE filesystems, a chroot), the staging
//! file is named from its creation and locked at once; a sweep that removed it in the moment
//! before the lock is noticed (the name no longer leads to the file) and another name is taken.
//!
//! [`sweep_staging`] removes the staging files of a directory that no live writer holds, and
//! an older pincer's (`.pincer-tmp-XXXXXX`, `.pincer-new-XXXXXX`, `.auth-profiles-XXXXXX.tmp`,
//! never locked) once they are [`LEGACY_AGE`] old. Callers run it where pincer writes: on every
//! write of the small credential directory, and at most every [`SWEEP_INTERVAL`] elsewhere
//! ([`sweep_staging_if_due`], a marker file's time), so a home of 50,000 sessions is not listed
//! on every run.

use std::ffi::OsStr;
use std::fs::{File, OpenOptions};
use std::io::{self, Write as _};
use std::os::fd::AsRawFd as _;
use std::os::unix::fs::{MetadataExt as _, OpenOptionsExt as _};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use nix::fcntl::AtFlags;
use nix::fcntl::{AT_FDCWD, OFlag};
use nix::unistd::linkat;

use super::lock::{lock_waiting, try_lock};

/// The beginning of a staging file's name (the exec sandbox hides every `.pincer-` name).
pub const STAGE_PREFIX: &str = ".pincer-stage-";
/// The file whose modification time says when the directory was last swept.
pub const SWEEP_MARKER: &str = ".pincer-swept";
/// How often [`sweep_staging_if_due`] lists a directory.
pub(super) const SWEEP_INTERVAL: Duration = Duration::from_secs(10 * 60);
/// How old an older pincer's staging file must be to be removed: those were never locked, so
/// only their age tells that their writer is gone (they were written in seconds).
pub(super) const LEGACY_AGE: Duration = Duration::from_secs(10 * 60);
/// Staging files are created with this mode, as the credential store needs (and as every
/// pincer file written by rename always was).
const STAGE_MODE: u32 = 0o600;

/// Replace `path` with `bytes`; with `sync`, the file and then its directory are synced.
pub(super) fn replace(path: &Path, bytes: &[u8], sync: bool) -> io::Result<()> {
    let dir = parent_dir(path);
    let (file, staging) = match anonymous(dir, bytes, sync, true) {
        Some(file) => match link_to_stage_name(&file, dir) {
            Some(staging) => (file, staging),
            None => named(dir, bytes, sync)?,
        },
        None => named(dir, bytes, sync)?,
    };
    if let Err(error) = std::fs::rename(&staging, path) {
        let _ = std::fs::remove_file(&staging);
        return Err(error);
    }
    drop(file);
    if sync { super::sync_dir(dir) } else { Ok(()) }
}

/// Create `path` with `bytes`, failing (`AlreadyExists`) when it exists; with `sync`, the file
/// and then its directory are synced.
pub(super) fn create_new(path: &Path, bytes: &[u8], sync: bool) -> io::Result<()> {
    let dir = parent_dir(path);
    if let Some(file) = anonymous(dir, bytes, sync, false) {
        match link_fd(&file, path) {
            Ok(()) => return if sync { super::sync_dir(dir) } else { Ok(()) },
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => return Err(error),
            // No /proc, or a filesystem that cannot link it: a named staging file then.
            Err(_) => {}
        }
    }
    let (file, staging) = named(dir, bytes, sync)?;
    let created = rename_noreplace(&staging, path);
    if created.is_err() {
        let _ = std::fs::remove_file(&staging);
    }
    drop(file);
    created?;
    if sync { super::sync_dir(dir) } else { Ok(()) }
}

/// `bytes` in an unnamed file of `dir` (synced with `sync`; locked with `lock`, before it can
/// ever have a name), or `None` where the filesystem cannot make one.
fn anonymous(dir: &Path, bytes: &[u8], sync: bool, lock: bool) -> Option<File> {
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .mode(STAGE_MODE)
        .custom_flags(OFlag::O_TMPFILE.bits())
        .open(dir)
        .ok()?;
    if lock && !try_lock(&file).unwrap_or(false) {
        return None;
    }
    file.write_all(bytes).ok()?;
    if sync {
        file.sync_all().ok()?;
    }
    Some(file)
}

/// Give the unnamed `file` the name `path` (fails when `path` exists).
fn link_fd(file: &File, path: &Path) -> io::Result<()> {
    let source = format!("/proc/self/fd/{}", file.as_raw_fd());
    linkat(
        AT_FDCWD,
        source.as_str(),
        AT_FDCWD,
        path,
        AtFlags::AT_SYMLINK_FOLLOW,
    )
    .map_err(io::Error::from)
}

/// Link the unnamed `file` to a fresh staging name in `dir`; `None` when it cannot be linked.
fn link_to_stage_name(file: &File, dir: &Path) -> Option<PathBuf> {
    for _ in 0..8 {
        let staging = dir.join(stage_name());
        match link_fd(file, &staging) {
            Ok(()) => return Some(staging),
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {}
            Err(_) => return None,
        }
    }
    None
}

/// `bytes` in a new named staging file of `dir`, locked by this process (synced with `sync`).
fn named(dir: &Path, bytes: &[u8], sync: bool) -> io::Result<(File, PathBuf)> {
    let mut attempts = 0;
    let (mut file, staging) = loop {
        attempts += 1;
        let staging = dir.join(stage_name());
        let file = match OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(STAGE_MODE)
            .open(&staging)
        {
            Ok(file) => file,
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists && attempts < 8 => {
                continue;
            }
            Err(error) => return Err(error),
        };
        lock_waiting(&file)?;
        // A sweep may have taken the file for a dead writer's between its creation and the
        // lock, and removed the name: then take another.
        if same_file(&file, &staging) {
            break (file, staging);
        }
        if attempts >= 8 {
            return Err(io::Error::other(format!(
                "the staging file in '{}' kept disappearing",
                dir.display()
            )));
        }
    };
    let written = file
        .write_all(bytes)
        .and_then(|()| if sync { file.sync_all() } else { Ok(()) });
    if let Err(error) = written {
        let _ = std::fs::remove_file(&staging);
        return Err(error);
    }
    Ok((file, staging))
}

/// Rename `from` to `to` unless `to` exists: a second link (which fails on an existing name),
/// then the staging name goes.
fn rename_noreplace(from: &Path, to: &Path) -> io::Result<()> {
    std::fs::hard_link(from, to)?;
    std::fs::remove_file(from)
}

fn stage_name() -> String {
    let random = uuid::Uuid::new_v4().simple().to_string();
    format!("{STAGE_PREFIX}{}", &random[..16])
}

fn same_file(file: &File, path: &Path) -> bool {
    match (file.metadata(), std::fs::symlink_metadata(path)) {
        (Ok(open), Ok(named)) => open.dev() == named.dev() && open.ino() == named.ino(),
        _ => false,
    }
}

fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    }
}

// ------------------------------------------------------------------------------------ the sweep

/// What a name in a directory pincer writes is, for the sweep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Staging {
    /// This pincer's: removed when no writer holds it.
    Locked,
    /// An older pincer's (random name, never locked): removed once old.
    Legacy,
}

fn staging_kind(name: &OsStr) -> Option<Staging> {
    let name = name.to_str()?;
    if name.starts_with(STAGE_PREFIX) {
        return Some(Staging::Locked);
    }
    // tempfile's names: the prefix, then six letters or digits (then the suffix).
    let random = |rest: &str| rest.len() == 6 && rest.bytes().all(|b| b.is_ascii_alphanumeric());
    let legacy = [".pincer-tmp-", ".pincer-new-"]
        .iter()
        .any(|prefix| name.strip_prefix(prefix).is_some_and(random))
        || name
            .strip_prefix(".auth-profiles-")
            .and_then(|rest| rest.strip_suffix(".tmp"))
            .is_some_and(random);
    legacy.then_some(Staging::Legacy)
}

/// Remove the staging files of `dir` whose writers are gone (see the module header); returns
/// how many went. Errors only make it skip a file.
pub fn sweep_staging(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .filter_map(|entry| staging_kind(&entry.file_name()).map(|kind| (entry.path(), kind)))
        .filter(|(path, kind)| match kind {
            Staging::Locked => remove_if_unheld(path),
            Staging::Legacy => remove_if_old(path),
        })
        .count()
}

/// [`sweep_staging`] at most every [`SWEEP_INTERVAL`] for `dir` (one `stat` otherwise).
pub fn sweep_staging_if_due(dir: &Path) {
    let marker = dir.join(SWEEP_MARKER);
    let now = SystemTime::now();
    let recent = std::fs::metadata(&marker)
        .and_then(|metadata| metadata.modified())
        .is_ok_and(|swept| {
            now.duration_since(swept)
                .is_ok_and(|age| age < SWEEP_INTERVAL)
        });
    if recent {
        return;
    }
    // The mark first: a process that comes along meanwhile need not sweep too.
    let _ = super::private_file_options()
        .open(&marker)
        .and_then(|file| file.set_modified(now));
    sweep_staging(dir);
}

/// Remove the staging file `path` unless a live writer holds its lock; take the lock first, so
/// that no writer can take it meanwhile.
fn remove_if_unheld(path: &Path) -> bool {
    let flags = OFlag::O_NOFOLLOW | OFlag::O_NONBLOCK | OFlag::O_NOCTTY;
    let Ok(file) = OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(flags.bits())
        .open(path)
    else {
        return false;
    };
    if !file.metadata().is_ok_and(|metadata| metadata.is_file()) {
        return false;
    }
    if !try_lock(&file).unwrap_or(false) {
        return false;
    }
    same_file(&file, path) && std::fs::remove_file(path).is_ok()
}

fn remove_if_old(path: &Path) -> bool {
    let old = std::fs::symlink_metadata(path).is_ok_and(|metadata| {
        metadata.is_file()
            && metadata
                .modified()
                .ok()
                .and_then(|modified| SystemTime::now().duration_since(modified).ok())
                .is_some_and(|age| age >= LEGACY_AGE)
    });
    old && std::fs::remove_file(path).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn replacing_and_creating_leave_only_the_target_and_keep_mode_0600() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("auth-profiles.json");
        replace(&path, b"one", true).unwrap();
        replace(&path, b"two", false).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
        let session = dir.path().join("a.jsonl");
        create_new(&session, b"header\n", true).unwrap();
        let error = create_new(&session, b"other\n", false).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read(&session).unwrap(), b"header\n");
        assert_eq!(names(dir.path()), ["a.jsonl", "auth-profiles.json"]);
        for file in [&path, &session] {
            let mode = std::fs::metadata(file).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }

    #[test]
    fn the_named_staging_file_of_filesystems_without_o_tmpfile_is_locked_and_renamed() {
        let dir = tempfile::tempdir().unwrap();
        let (file, staging) = named(dir.path(), b"secret", true).unwrap();
        let name = staging.file_name().unwrap().to_owned();
        assert_eq!(staging_kind(&name), Some(Staging::Locked));
        // Held by its live writer: the sweep keeps it.
        assert_eq!(sweep_staging(dir.path()), 0);
        assert!(staging.exists());
        drop(file);
        // Its writer gone: the sweep removes it.
        assert_eq!(sweep_staging(dir.path()), 1);
        assert!(names(dir.path()).is_empty());
    }

    #[test]
    /// What `named` relies on to notice a sweep that removed its new staging file before it
    /// locked it (the race itself cannot be timed from a test).
    fn same_file_tells_a_removed_name_from_the_file_still_open() {
        let dir = tempfile::tempdir().unwrap();
        let (_file, staging) = named(dir.path(), b"x", false).unwrap();
        assert!(same_file(&_file, &staging));
        let gone = dir.path().join(stage_name());
        let other = File::create(&gone).unwrap();
        std::fs::remove_file(&gone).unwrap();
        assert!(!same_file(&other, &gone));
    }

    #[test]
    fn older_pincers_staging_files_go_once_old_and_other_names_are_never_touched() {
        let dir = tempfile::tempdir().unwrap();
        let hour_ago = SystemTime::now() - Duration::from_secs(3_600);
        for (name, old) in [
            (".pincer-tmp-a1B2c3", true),
            (".pincer-new-Zz9Yy8", true),
            (".auth-profiles-q1W2e3.tmp", true),
            (".pincer-new-fresh1", false),
            (".pincer-swept", true),
            (".index.journal", true),
            (".notes.md.pincer-12-0.tmp", true),
            ("index.json", true),
        ] {
            let file = File::create(dir.path().join(name)).unwrap();
            if old {
                file.set_modified(hour_ago).unwrap();
            }
        }
        assert_eq!(sweep_staging(dir.path()), 3);
        assert_eq!(
            names(dir.path()),
            [
                ".index.journal",
                ".notes.md.pincer-12-0.tmp",
                ".pincer-new-fresh1",
                ".pincer-swept",
                "index.json"
            ]
        );
    }

    #[test]
    fn a_sweep_that_is_not_due_lists_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let dead = dir.path().join(".pincer-stage-0000000000000001");
        File::create(&dead).unwrap();
        sweep_staging_if_due(dir.path());
        assert!(!dead.exists());
        File::create(&dead).unwrap();
        sweep_staging_if_due(dir.path());
        assert!(dead.exists(), "swept again within the interval");
        let marker = File::options()
            .write(true)
            .open(dir.path().join(SWEEP_MARKER))
            .unwrap();
        marker
            .set_modified(SystemTime::now() - SWEEP_INTERVAL)
            .unwrap();
        sweep_staging_if_due(dir.path());
        assert!(!dead.exists());
    }
}
