//! File I/O that must not lose data: atomic replacement, atomic creation, advisory locks; and
//! the refusal of anything but a regular file where a link, a FIFO or a device would do harm.
//!
//! Every file pincer owns is written through here. Invariants:
//! - a reader never sees a half-written file: new content goes to an unnamed file in the same
//!   directory, is fsynced, then linked in place of (or next to) the target, and the directory
//!   is fsynced (the `_unsynced` variants leave the syncs to their caller, or out for a cache);
//! - a write killed at any moment leaves no staging file holding the content, and what an older
//!   pincer or the one microsecond window left is swept ([`staging`]);
//! - locks are open file description locks on a separate `<file>.lock` ([`lock`]), released
//!   when the handle is dropped or the process dies, so a crash never leaves a stale lock
//!   behind; every wait ends by the command's `--timeout`;
//! - a file pincer writes for the user (`--events-file`, `--record`, `-o`, `sessions export
//!   --output`, the generated docs) is never reached through a symbolic link in its final component
//!   and is never anything but a regular file ([`open_for_user`], [`write_for_user`]): a link
//!   planted there used to make pincer overwrite `~/.bashrc`, a FIFO used to hang the run;
//! - a file opened to be read for a tool ([`open_regular`], [`regular_only`]) is looked at before it
//!   is opened and opened with `O_NONBLOCK`, so a FIFO, a socket or a device is refused at once
//!   instead of blocking the run or being read without end.

mod lock;
mod staging;

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileTypeExt as _, OpenOptionsExt as _};
use std::path::{Path, PathBuf};

use nix::fcntl::{FcntlArg, OFlag, fcntl};

pub use lock::{
    FileLock, Holder, LockError, allow_local_locks, is_locked, lock_pauses, network_filesystem,
    note_wait_cut, set_wait_deadline, try_lock, wait_cut_by_deadline, wait_deadline,
};
pub use staging::{sweep_staging, sweep_staging_if_due};

/// Write `bytes` to `path` atomically (mode 0600 if it is new): staged in the same directory,
/// fsynced, renamed over, the directory fsynced.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    staging::replace(path, bytes, true)
}

/// [`write_atomic`] without its two syncs, for a cache that is checked before every use (a
/// copy lost to a power cut is only computed again). Readers still never see it partly
/// written (it appears by rename).
pub fn replace_unsynced(path: &Path, bytes: &[u8]) -> io::Result<()> {
    staging::replace(path, bytes, false)
}

/// Create `path` with `bytes` as its whole content, atomically, failing if it already exists.
///
/// Used for new session files so that nobody ever observes a file without its header line.
pub fn create_new_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    staging::create_new(path, bytes, true)
}

/// [`create_new_atomic`] without its two syncs, for a file its writer syncs soon anyway: the
/// caller `fdatasync`s the file and then calls [`sync_dir`] on its directory before the file
/// must survive a power loss. Readers still never see it partly written (it appears by link).
pub fn create_new_unsynced(path: &Path, bytes: &[u8]) -> io::Result<()> {
    staging::create_new(path, bytes, false)
}

/// fsync a directory so that a rename or creation inside it survives a power loss.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// The mode of every directory pincer makes for itself (SPEC §21): its user's alone.
pub const PRIVATE_DIR_MODE: u32 = 0o700;
/// The mode of every file pincer makes for itself (SPEC §21): its user's alone.
pub const PRIVATE_FILE_MODE: u32 = 0o600;

/// Create one of pincer's own directories and its missing parents, each mode 0700 at
/// creation (an existing one keeps its mode).
pub fn create_dir_all(path: &Path) -> io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(PRIVATE_DIR_MODE)
        .create(path)
}

/// Options that open (creating, mode 0600) one of pincer's own files for reading and writing
/// without following a link in its final component: lock files, markers, the index.
pub fn private_file_options() -> OpenOptions {
    let mut options = OpenOptions::new();
    options
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(PRIVATE_FILE_MODE)
        .custom_flags((OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC).bits());
    options
}

/// Make the existing file `path` (not following a link) readable by its user alone, when its
/// mode lets anyone else in: a file made by an older pincer, or by another program on its
/// behalf (SQLite's journal). A missing file is fine.
pub fn make_private(path: &Path) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    let file = match OpenOptions::new()
        .read(true)
        .custom_flags((OFlag::O_NOFOLLOW | OFlag::O_NONBLOCK | OFlag::O_CLOEXEC).bits())
        .open(path)
    {
        Ok(file) => file,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(error) => return Err(link_refusal(error, path)),
    };
    let mode = file.metadata()?.permissions().mode();
    if mode & 0o077 != 0 {
        file.set_permissions(std::fs::Permissions::from_mode(mode & 0o700))?;
    }
    Ok(())
}

/// The path of the lock file that guards `path`.
pub fn lock_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

// ------------------------------------------------------------------------------- special files

/// What a file is, as far as the refusals of SPEC §10 care: only a regular file is written for
/// the user or read for a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// A regular file: the only kind read or written.
    Regular,
    /// A directory.
    Directory,
    /// A symbolic link (seen without following it).
    Symlink,
    /// A FIFO (named pipe): opening or reading it blocks until another process writes.
    Fifo,
    /// A unix domain socket.
    Socket,
    /// A character device (`/dev/zero`, a terminal, …).
    CharacterDevice,
    /// A block device (a disk).
    BlockDevice,
}

impl FileKind {
    /// The kind of `file_type`; anything unknown counts as a character device (never regular).
    pub fn of(file_type: std::fs::FileType) -> FileKind {
        if file_type.is_file() {
            FileKind::Regular
        } else if file_type.is_dir() {
            FileKind::Directory
        } else if file_type.is_symlink() {
            FileKind::Symlink
        } else if file_type.is_fifo() {
            FileKind::Fifo
        } else if file_type.is_socket() {
            FileKind::Socket
        } else if file_type.is_block_device() {
            FileKind::BlockDevice
        } else {
            FileKind::CharacterDevice
        }
    }

    /// The kind of a `stat`'s `st_mode` (for a directory handle's `fstatat`).
    pub fn of_mode(mode: u32) -> FileKind {
        use nix::sys::stat::SFlag;
        match SFlag::from_bits_truncate(mode & SFlag::S_IFMT.bits()) {
            SFlag::S_IFREG => FileKind::Regular,
            SFlag::S_IFDIR => FileKind::Directory,
            SFlag::S_IFLNK => FileKind::Symlink,
            SFlag::S_IFIFO => FileKind::Fifo,
            SFlag::S_IFSOCK => FileKind::Socket,
            SFlag::S_IFBLK => FileKind::BlockDevice,
            _ => FileKind::CharacterDevice,
        }
    }

    /// The kind as messages name it: "a FIFO", "a socket", ….
    pub fn described(self) -> &'static str {
        match self {
            FileKind::Regular => "a regular file",
            FileKind::Directory => "a directory",
            FileKind::Symlink => "a symbolic link",
            FileKind::Fifo => "a FIFO (named pipe)",
            FileKind::Socket => "a socket",
            FileKind::CharacterDevice => "a character device",
            FileKind::BlockDevice => "a block device",
        }
    }
}

/// A file refused because it is not a regular file: the inner error of the [`io::Error`] the
/// functions below return, found again with [`NotRegular::of`]. Its text reads after the path:
/// "'events.jsonl': it is a FIFO (named pipe), not a regular file".
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{}", not_regular_text(*.0))]
pub struct NotRegular(pub FileKind);

fn not_regular_text(kind: FileKind) -> String {
    match kind {
        FileKind::Symlink => "it is a symbolic link, which is not followed here".to_owned(),
        other => format!("it is {}, not a regular file", other.described()),
    }
}

impl NotRegular {
    /// As an I/O error (`IsADirectory` for a directory, so callers that branch on it still can).
    pub fn into_io(self) -> io::Error {
        let kind = match self.0 {
            FileKind::Directory => io::ErrorKind::IsADirectory,
            _ => io::ErrorKind::InvalidInput,
        };
        io::Error::new(kind, self)
    }

    /// The kind of file `error` refused, when it is such a refusal.
    pub fn of(error: &io::Error) -> Option<FileKind> {
        error
            .get_ref()
            .and_then(|inner| inner.downcast_ref::<NotRegular>())
            .map(|refusal| refusal.0)
    }
}

/// Refuse `kind` unless it is a regular file.
fn require_regular(kind: FileKind) -> io::Result<()> {
    match kind {
        FileKind::Regular => Ok(()),
        other => Err(NotRegular(other).into_io()),
    }
}

/// Open `path` for reading only if it is a regular file: its kind is looked at first (so a
/// device is never opened: opening one can act, as a watchdog or a tape does), then it is opened
/// with `O_NONBLOCK` (so a FIFO swapped in meanwhile cannot block the open) and checked again on
/// the handle ([`regular_only`]). `follow_links`: whether a link in the final component is
/// followed (else it is refused as a [`FileKind::Symlink`]).
pub fn open_regular(path: &Path, follow_links: bool) -> io::Result<File> {
    let metadata = if follow_links {
        std::fs::metadata(path)?
    } else {
        std::fs::symlink_metadata(path)?
    };
    require_regular(FileKind::of(metadata.file_type()))?;
    let mut flags = OFlag::O_NONBLOCK | OFlag::O_NOCTTY;
    if !follow_links {
        flags |= OFlag::O_NOFOLLOW;
    }
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(flags.bits())
        .open(path)
        .map_err(|error| link_refusal(error, path))?;
    regular_only(file)
}

/// The check after an `O_NONBLOCK` open: `file` must be a regular file (else [`NotRegular`]);
/// it is put back into blocking mode, which is what a regular file's readers and writers expect
/// (Linux ignores the flag for regular files, other systems need not).
pub fn regular_only(file: File) -> io::Result<File> {
    require_regular(FileKind::of(file.metadata()?.file_type()))?;
    let flags = OFlag::from_bits_truncate(fcntl(&file, FcntlArg::F_GETFL)?);
    if flags.contains(OFlag::O_NONBLOCK) {
        fcntl(&file, FcntlArg::F_SETFL(flags - OFlag::O_NONBLOCK))?;
    }
    Ok(file)
}

/// `O_NOFOLLOW` met a link (`ELOOP`), or a FIFO without a reader or a socket refused the open
/// (`ENXIO`): say what is there rather than the errno.
fn link_refusal(error: io::Error, path: &Path) -> io::Error {
    if matches!(
        error.raw_os_error(),
        Some(nix::libc::ELOOP | nix::libc::ENXIO)
    ) && let Ok(metadata) = std::fs::symlink_metadata(path)
    {
        let kind = FileKind::of(metadata.file_type());
        if kind != FileKind::Regular {
            return NotRegular(kind).into_io();
        }
    }
    error
}

/// How [`open_for_user`] treats what is already in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UserFile {
    /// Start it empty (`--events-file`).
    Truncate,
    /// Keep it and write at its end; it may be read too (`--record`, which checks the header).
    Append,
}

/// Open a file pincer writes on the user's behalf, created (mode 0666 less the umask) when
/// missing. Refused, as [`NotRegular`], when its final component is a symbolic link (even a
/// dangling one: it is never followed, so nothing is created where it points) or when it is
/// anything but a regular file; a FIFO cannot block the open (`O_NONBLOCK`). A file that is
/// there is emptied only once it is known to be a regular file.
pub fn open_for_user(path: &Path, mode: UserFile) -> io::Result<File> {
    check_for_user(path)?;
    let mut options = OpenOptions::new();
    match mode {
        UserFile::Truncate => options.write(true),
        UserFile::Append => options.read(true).append(true),
    };
    let flags = OFlag::O_NOFOLLOW | OFlag::O_NONBLOCK | OFlag::O_NOCTTY;
    let file = options
        .create(true)
        .custom_flags(flags.bits())
        .open(path)
        .map_err(|error| match error.raw_os_error() {
            // A directory opened for writing.
            Some(nix::libc::EISDIR) => NotRegular(FileKind::Directory).into_io(),
            _ => link_refusal(error, path),
        })?;
    let file = regular_only(file)?;
    if mode == UserFile::Truncate {
        file.set_len(0)?;
    }
    Ok(file)
}

/// Refuse `path` as a file to write for the user unless nothing is there yet or a regular file
/// is (its final component not a link). For a file written later by rename, checked before the
/// run so that a refusal costs no model request.
pub fn check_for_user(path: &Path) -> io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(metadata) => require_regular(FileKind::of(metadata.file_type())),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(error) => Err(error),
    }
}

/// [`check_for_user`], and that a file can be created beside `path` (where [`write_for_user`]
/// stages it): a missing or read-only directory is found before a run that would write there
/// at its end. The probe file is removed at once.
pub fn check_writable_for_user(path: &Path) -> io::Result<()> {
    check_for_user(path)?;
    let directory = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    tempfile::Builder::new()
        .prefix(".pincer-probe-")
        .tempfile_in(directory)
        .map(drop)
        .map_err(|error| {
            // tempfile names its own file in the error ("… at path \"…/.pincer-probe-9z9naY\""):
            // the user named `path`, so the message keeps only what the system said.
            let text = error.to_string();
            match text.split_once(" at path ") {
                Some((said, _)) => io::Error::new(error.kind(), said.to_owned()),
                None => error,
            }
        })
}

/// [`write_atomic`] for a file written for the user: refused as [`check_for_user`] refuses. The
/// rename replaces whatever is at the path without ever writing into it, so a link or a FIFO
/// that appears after the check is replaced, not followed or blocked on.
pub fn write_for_user(path: &Path, bytes: &[u8]) -> io::Result<()> {
    check_for_user(path)?;
    write_atomic(path, bytes)
}

/// Whether `error` says that this process (`EMFILE`) or the whole system (`ENFILE`) has no file
/// descriptor left to open a file, a socket or a pipe.
pub fn out_of_file_descriptors(error: &std::io::Error) -> bool {
    matches!(
        error.raw_os_error(),
        Some(nix::libc::EMFILE | nix::libc::ENFILE)
    )
}

/// What to do when [`out_of_file_descriptors`] holds for `error`: which limit was reached and
/// how to raise it.
pub fn file_descriptor_advice(error: &std::io::Error) -> String {
    if error.raw_os_error() == Some(nix::libc::ENFILE) {
        return "the system has as many files open as it allows (fs.file-max); close other \
                programs or raise that limit, then try again"
            .to_owned();
    }
    let limit = nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_NOFILE)
        .map_or_else(|_| "low".to_owned(), |(soft, _)| soft.to_string());
    format!(
        "pincer has as many files open as its limit allows (`ulimit -n` is {limit}); raise it, \
         e.g. `ulimit -n 1024`, then try again"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read as _, Write as _};

    #[test]
    fn a_file_in_a_missing_directory_is_not_writable_and_the_probe_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        check_writable_for_user(&dir.path().join("answer.txt")).unwrap();
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        let error = check_writable_for_user(&dir.path().join("missing/answer.txt")).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::NotFound);
    }

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

    fn fifo(path: &Path) {
        nix::unistd::mkfifo(path, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    }

    fn refused_kind(result: io::Result<impl std::fmt::Debug>) -> FileKind {
        let error = result.unwrap_err();
        NotRegular::of(&error).unwrap_or_else(|| panic!("not a refusal: {error}"))
    }

    #[test]
    fn a_user_file_is_never_written_through_a_link_even_a_dangling_one() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("bashrc");
        std::fs::write(&target, "keep\n").unwrap();
        let link = dir.path().join("events.jsonl");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let missing = dir.path().join("created");
        let dangling = dir.path().join("dangling.jsonl");
        std::os::unix::fs::symlink(&missing, &dangling).unwrap();
        for path in [&link, &dangling] {
            for mode in [UserFile::Truncate, UserFile::Append] {
                assert_eq!(refused_kind(open_for_user(path, mode)), FileKind::Symlink);
            }
            assert_eq!(refused_kind(write_for_user(path, b"x")), FileKind::Symlink);
        }
        assert_eq!(std::fs::read(&target).unwrap(), b"keep\n");
        assert!(!missing.exists());
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }

    #[test]
    fn a_fifo_a_socket_or_a_directory_is_refused_as_a_user_file_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let pipe = dir.path().join("pipe");
        fifo(&pipe);
        let socket = dir.path().join("socket");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        for (path, kind) in [
            (&pipe, FileKind::Fifo),
            (&socket, FileKind::Socket),
            (&dir.path().to_owned(), FileKind::Directory),
        ] {
            assert_eq!(refused_kind(open_for_user(path, UserFile::Truncate)), kind);
            assert_eq!(refused_kind(open_for_user(path, UserFile::Append)), kind);
            assert_eq!(refused_kind(check_for_user(path)), kind);
        }
        let error = NotRegular(FileKind::Fifo).into_io();
        assert_eq!(
            error.to_string(),
            "it is a FIFO (named pipe), not a regular file"
        );
    }

    #[test]
    fn a_regular_user_file_is_created_emptied_or_appended_to() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("events.jsonl");
        check_for_user(&path).unwrap();
        open_for_user(&path, UserFile::Truncate)
            .unwrap()
            .write_all(b"one\n")
            .unwrap();
        open_for_user(&path, UserFile::Append)
            .unwrap()
            .write_all(b"two\n")
            .unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"one\ntwo\n");
        open_for_user(&path, UserFile::Truncate)
            .unwrap()
            .write_all(b"three\n")
            .unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"three\n");
        write_for_user(&path, b"four").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"four");
    }

    #[test]
    fn open_regular_reads_a_file_and_refuses_fifos_devices_and_links_it_must_not_follow() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("notes.txt");
        std::fs::write(&file, "text").unwrap();
        let mut text = String::new();
        open_regular(&file, false)
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        assert_eq!(text, "text");
        let pipe = dir.path().join("pipe");
        fifo(&pipe);
        assert_eq!(refused_kind(open_regular(&pipe, true)), FileKind::Fifo);
        let null = dir.path().join("null");
        std::os::unix::fs::symlink("/dev/null", &null).unwrap();
        assert_eq!(
            refused_kind(open_regular(&null, true)),
            FileKind::CharacterDevice
        );
        assert_eq!(refused_kind(open_regular(&null, false)), FileKind::Symlink);
        assert_eq!(
            refused_kind(open_regular(dir.path(), true)),
            FileKind::Directory
        );
    }

    #[test]
    fn only_running_out_of_file_descriptors_counts_as_such() {
        let emfile = std::io::Error::from_raw_os_error(nix::libc::EMFILE);
        let enfile = std::io::Error::from_raw_os_error(nix::libc::ENFILE);
        assert!(out_of_file_descriptors(&emfile));
        assert!(out_of_file_descriptors(&enfile));
        assert!(file_descriptor_advice(&emfile).contains("ulimit -n"));
        assert!(file_descriptor_advice(&enfile).contains("fs.file-max"));
        for other in [
            nix::libc::ECONNREFUSED,
            nix::libc::ENOSPC,
            nix::libc::EACCES,
        ] {
            assert!(!out_of_file_descriptors(
                &std::io::Error::from_raw_os_error(other)
            ));
        }
        assert!(!out_of_file_descriptors(&std::io::Error::other("x")));
    }
}
