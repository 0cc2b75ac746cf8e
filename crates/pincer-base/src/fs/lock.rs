//! Advisory locks on `<file>.lock` files, and who holds them.
//!
//! Invariants:
//! - a lock is an open file description lock (`F_OFD_SETLK`) over the whole lock file (and, for
//!   older pincers, a `flock` of the same open file: [`try_lock_both`]): like
//!   `flock` it belongs to one open file, conflicts with every other open of the file (in this
//!   process too) and goes with the process, so a crash never leaves a stale lock; unlike
//!   `flock` it is a POSIX byte-range lock, which NFS carries to the server and so to every
//!   client (SPEC §5.3: two machines sharing a home over NFS serialize);
//! - a lock file on a filesystem whose locks other machines do not see — FUSE (sshfs…), SMB
//!   mounted `nobrl`, NFS mounted `local_lock=all`/`posix` or `nolock` — is refused
//!   ([`LockError::LocalOnly`]) unless the user allowed it ([`allow_local_locks`]): a lock that
//!   does not lock would let two machines write one session at once;
//! - every wait for a lock ends by the command's deadline ([`set_wait_deadline`], `--timeout`),
//!   whatever the lock's own wait, and says so ([`LockError::TimedOut`]);
//! - the holder writes who it is into the lock file ([`Holder`]: pid, host, PID namespace, boot,
//!   start time), so a waiting user is told who holds it — a process here, one in a container,
//!   one on another machine — and whether pincer can tell it is alive. Writing that is best
//!   effort: a lock whose note cannot be written is still held.

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::FileExt as _;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use nix::errno::Errno;
use nix::fcntl::{FcntlArg, fcntl};
use nix::libc;
use serde::{Deserialize, Serialize};

/// The pauses between attempts to take a busy lock: 5 ms, doubling up to 100 ms.
pub fn lock_pauses() -> impl Iterator<Item = Duration> {
    std::iter::successors(Some(Duration::from_millis(5)), |pause| {
        Some((*pause * 2).min(Duration::from_millis(100)))
    })
}

// ------------------------------------------------------------------ process-wide wait settings
// Statics with a reason (issue #48): `--timeout` counts from process start and covers every wait
// of the process (SPEC §2), including the lock waits deep in the index, the auth store and the
// ledger, in four crates; `allow_local_locks` is a property of the home, decided once. Both are
// set once at start and only read after.

/// When every lock wait of this process ends (the command's `--timeout`), once set.
static WAIT_DEADLINE: OnceLock<Instant> = OnceLock::new();
/// Whether the deadline cut a lock wait short.
static WAIT_CUT: AtomicBool = AtomicBool::new(false);
/// Whether locks that other machines do not see may be used (`allow_local_locks`).
static LOCAL_LOCKS_ALLOWED: AtomicBool = AtomicBool::new(false);

/// End every lock wait of this process by `deadline` (the first call wins): `--timeout` counts
/// from process start and covers every wait (SPEC §2), also those deep in the index or the
/// credential store, which have their own shorter bounds.
pub fn set_wait_deadline(deadline: Instant) {
    let _ = WAIT_DEADLINE.set(deadline);
}

/// The deadline of [`set_wait_deadline`], once set: for waits that are not [`FileLock`]s (the
/// session index database's busy timeout) and must end by it too.
pub fn wait_deadline() -> Option<Instant> {
    WAIT_DEADLINE.get().copied()
}

/// Whether the deadline of [`set_wait_deadline`] cut a lock wait short in this process: the
/// command then ends as a timeout even when the waiter could go on without the lock.
pub fn wait_cut_by_deadline() -> bool {
    WAIT_CUT.load(Ordering::Relaxed)
}

/// Note that the deadline of [`set_wait_deadline`] cut short a wait that is not a
/// [`FileLock`]'s (the session index database's busy wait), as [`wait_cut_by_deadline`] tells.
pub fn note_wait_cut() {
    WAIT_CUT.store(true, Ordering::Relaxed);
}

/// Allow (or refuse) locks on filesystems whose locks other machines do not see
/// (`[sessions] allow_local_locks`, `PINCER_ALLOW_LOCAL_LOCKS`).
pub fn allow_local_locks(allowed: bool) {
    LOCAL_LOCKS_ALLOWED.store(allowed, Ordering::Relaxed);
}

// ------------------------------------------------------------------------------------ the lock

/// An exclusive advisory lock, held until dropped.
#[derive(Debug)]
pub struct FileLock {
    file: File,
    /// The lock file's name was removed while held (its session deleted): nobody can open it
    /// any more, so its note is not cleared at release (a truncation per deleted session).
    removed: AtomicBool,
}

/// Why a lock could not be taken.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another process holds the lock (and the wait, if any, ran out).
    #[error("locked by {}", holder_text(.holder.as_deref()))]
    Busy {
        /// Who holds it, as the holder wrote it into the lock file, when readable.
        holder: Option<Box<Holder>>,
    },
    /// The command's `--timeout` came while waiting for another process to let go.
    #[error("the run's --timeout was reached while waiting for {}", holder_text(.holder.as_deref()))]
    TimedOut {
        /// Who holds it, when known.
        holder: Option<Box<Holder>>,
    },
    /// The lock file is on a filesystem whose locks other machines do not see.
    #[error("cannot lock '{}': it is on {filesystem}, whose locks other machines sharing it do not see", .path.display())]
    LocalOnly {
        /// The lock file.
        path: PathBuf,
        /// What the filesystem is ("a FUSE filesystem (fuse.sshfs)").
        filesystem: String,
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

fn holder_text(holder: Option<&Holder>) -> String {
    match holder {
        Some(holder) => holder.describe(),
        None => "another process".to_owned(),
    }
}

/// Whether a new holder writes who it is into the lock file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Note {
    Holder,
    None,
}

impl FileLock {
    /// Take the exclusive lock on `lock_file`, waiting up to `wait` (none: fail at once), and
    /// never past the process's deadline ([`set_wait_deadline`]).
    ///
    /// The holder writes who it is into the lock file so that a waiting user can be told whom
    /// they are waiting for. The file itself is never removed: removing it would let two
    /// processes lock two different inodes of the same name.
    pub fn acquire(lock_file: &Path, wait: Option<Duration>) -> Result<FileLock, LockError> {
        Self::take(lock_file, wait, Note::Holder)
    }

    /// Take the lock on `lock_file` if it is free, for a moment only, without writing who holds
    /// it: for a command that removes what the lock guards right away (`sessions prune`), where
    /// the note would be written only to be deleted. A process refused meanwhile hears of
    /// "another process".
    pub fn acquire_briefly(lock_file: &Path) -> Result<FileLock, LockError> {
        Self::take(lock_file, None, Note::None)
    }

    fn take(lock_file: &Path, wait: Option<Duration>, note: Note) -> Result<FileLock, LockError> {
        let io_error = |source| LockError::Io {
            path: lock_file.to_owned(),
            source,
        };
        let file = super::private_file_options()
            .open(lock_file)
            .map_err(io_error)?;
        if !LOCAL_LOCKS_ALLOWED.load(Ordering::Relaxed)
            && let Some(filesystem) = local_only_filesystem(&file)
        {
            return Err(LockError::LocalOnly {
                path: lock_file.to_owned(),
                filesystem,
            });
        }
        let asked = wait.map(|wait| Instant::now() + wait);
        let process = WAIT_DEADLINE.get().copied();
        let deadline = match (asked, process) {
            (Some(asked), Some(process)) => Some(asked.min(process)),
            (asked, _) => asked,
        };
        let mut pauses = lock_pauses();
        loop {
            if try_lock_both(&file).map_err(io_error)? {
                break;
            }
            let now = Instant::now();
            match deadline {
                Some(deadline) if now < deadline => {
                    let left = deadline - now;
                    std::thread::sleep(pauses.next().unwrap_or(left).min(left));
                }
                Some(deadline) if process == Some(deadline) && asked != Some(deadline) => {
                    WAIT_CUT.store(true, Ordering::Relaxed);
                    return Err(LockError::TimedOut {
                        holder: read_holder(lock_file).map(Box::new),
                    });
                }
                _ => {
                    return Err(LockError::Busy {
                        holder: read_holder(lock_file).map(Box::new),
                    });
                }
            }
        }
        let mut lock = FileLock {
            file,
            removed: AtomicBool::new(false),
        };
        // Only a courtesy to whoever waits: the lock is held whether or not it is written (on
        // a full disk it cannot be, and waiters are told of "another process").
        if note == Note::Holder && lock.record_holder().is_err() {
            let _ = lock.file.set_len(0);
        }
        Ok(lock)
    }

    fn record_holder(&mut self) -> io::Result<()> {
        let mut line = serde_json::to_string(&Holder::this_process()).map_err(io::Error::other)?;
        line.push('\n');
        // A holder empties the file as it lets go, so it is empty unless one was killed: a
        // truncation (a journal transaction on ext4) only then.
        if self.file.metadata()?.len() > 0 {
            self.file.set_len(0)?;
        }
        self.file.write_all_at(line.as_bytes(), 0)
    }

    /// Whether some process holds the lock on `lock_file` right now (asked without taking it).
    pub fn is_held(lock_file: &Path) -> bool {
        File::open(lock_file).is_ok_and(|file| is_locked(&file).unwrap_or(false))
    }
}

impl FileLock {
    /// Remove the lock file while holding it (what it guarded is gone); released later without
    /// clearing the note, which no one can read by its name any more.
    pub fn remove_file(&self, lock_file: &Path) {
        if std::fs::remove_file(lock_file).is_ok() {
            self.removed.store(true, Ordering::Relaxed);
        }
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        // Clear the note before unlocking so a reader never names a process that has let go.
        if !self.removed.load(Ordering::Relaxed) {
            let _ = self.file.set_len(0);
        }
        let _ = unlock(&self.file);
        let _ = self.file.unlock();
    }
}

/// Who holds the lock on `lock_file`, as the holder wrote it (an older pincer wrote its pid
/// alone).
pub fn read_holder(lock_file: &Path) -> Option<Holder> {
    let mut text = String::new();
    File::open(lock_file).ok()?.read_to_string(&mut text).ok()?;
    Holder::parse(&text)
}

// ------------------------------------------------------------------- open file description locks

/// A whole-file lock request of `kind` (`F_WRLCK`, `F_UNLCK`).
fn whole_file(kind: libc::c_int) -> libc::flock {
    libc::flock {
        l_type: kind as libc::c_short,
        l_whence: libc::SEEK_SET as libc::c_short,
        l_start: 0,
        l_len: 0,
        l_pid: 0,
    }
}

/// Take the exclusive lock of [`FileLock`] on `file` if it is free: the OFD lock, and the
/// `flock` that pincer took before it used OFD locks, so that a run of an older pincer still
/// going while a newer one starts (cron across an upgrade) excludes it too. The two kinds do not
/// see each other on a local filesystem; on NFS, where `flock` is emulated with a lock of the
/// same open file, they are one owner's and do not conflict. A filesystem that refuses `flock`
/// outright still has the OFD lock. The `flock` can go once no older pincer can share a home.
fn try_lock_both(file: &File) -> io::Result<bool> {
    match file.try_lock() {
        Ok(()) | Err(std::fs::TryLockError::Error(_)) => {}
        Err(std::fs::TryLockError::WouldBlock) => return Ok(false),
    }
    let locked = try_lock(file);
    if !matches!(locked, Ok(true)) {
        let _ = file.unlock();
    }
    locked
}

/// Take the exclusive OFD lock on `file` if it is free: `Ok(false)` when another open file
/// holds it.
pub fn try_lock(file: &File) -> io::Result<bool> {
    match fcntl(file, FcntlArg::F_OFD_SETLK(&whole_file(libc::F_WRLCK))) {
        Ok(_) => Ok(true),
        Err(Errno::EAGAIN | Errno::EACCES) => Ok(false),
        Err(error) => Err(error.into()),
    }
}

/// Take the exclusive OFD lock on `file`, waiting for whoever holds it.
pub fn lock_waiting(file: &File) -> io::Result<()> {
    loop {
        match fcntl(file, FcntlArg::F_OFD_SETLKW(&whole_file(libc::F_WRLCK))) {
            Ok(_) => return Ok(()),
            Err(Errno::EINTR) => {}
            Err(error) => return Err(error.into()),
        }
    }
}

fn unlock(file: &File) -> io::Result<()> {
    fcntl(file, FcntlArg::F_OFD_SETLK(&whole_file(libc::F_UNLCK)))
        .map(drop)
        .map_err(io::Error::from)
}

/// Whether another open file holds a lock on `file`.
pub fn is_locked(file: &File) -> io::Result<bool> {
    let mut probe = whole_file(libc::F_WRLCK);
    fcntl(file, FcntlArg::F_OFD_GETLK(&mut probe))?;
    Ok(i32::from(probe.l_type) != libc::F_UNLCK)
}

// ---------------------------------------------------------------------------- the holder's note

/// Who holds a lock, as the holder wrote it into the lock file (one JSON line).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Holder {
    /// Its pid, in its own PID namespace.
    pub pid: u32,
    /// The host name it ran on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// The inode of its PID namespace (`/proc/self/ns/pid`): the same pid means the same
    /// process only in the same namespace of the same kernel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid_namespace: Option<u64>,
    /// The kernel's boot id: another one is another machine (or a reboot since).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boot_id: Option<String>,
    /// When the process started, in clock ticks after boot (`/proc/PID/stat`): tells the holder
    /// from a later process that got its pid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_ticks: Option<u64>,
    /// When it took the lock, in seconds since the epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<u64>,
}

/// What a process knows of where it runs, to compare with a holder's note.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Place {
    host: Option<String>,
    pid_namespace: Option<u64>,
    boot_id: Option<String>,
    /// This process's start time: read once, not once per lock (a prune takes thousands).
    start_ticks: Option<u64>,
}

impl Place {
    /// This process's (read once: none of it changes while it runs).
    fn here() -> &'static Place {
        static HERE: OnceLock<Place> = OnceLock::new();
        HERE.get_or_init(|| Place {
            host: read_trimmed("/proc/sys/kernel/hostname"),
            pid_namespace: std::fs::read_link("/proc/self/ns/pid")
                .ok()
                .and_then(|link| namespace_inode(&link.to_string_lossy())),
            boot_id: read_trimmed("/proc/sys/kernel/random/boot_id"),
            start_ticks: start_ticks("self"),
        })
    }
}

fn read_trimmed(path: &str) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

/// The inode in a namespace link's text, `pid:[4026531836]`.
fn namespace_inode(link: &str) -> Option<u64> {
    link.strip_prefix("pid:[")?.strip_suffix(']')?.parse().ok()
}

/// The start time (field 22) of `/proc/<pid>/stat`, in clock ticks after boot.
fn start_ticks(pid: &str) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces: count after it.
    let (_, rest) = stat.rsplit_once(") ")?;
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// Whether `holder` can be alive, as far as this process can tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Liveness {
    /// A process of this namespace that is running.
    Running,
    /// A process of this namespace that is not running any more.
    Gone,
    /// Another PID namespace of this kernel (a container): its pids mean nothing here.
    OtherNamespace,
    /// Another kernel: another machine sharing the directory, or a boot since.
    OtherMachine,
    /// An older pincer's note: a pid alone.
    Unknown,
}

impl Holder {
    fn this_process() -> Holder {
        let place = Place::here();
        Holder {
            pid: std::process::id(),
            host: place.host.clone(),
            pid_namespace: place.pid_namespace,
            boot_id: place.boot_id.clone(),
            start_ticks: place.start_ticks,
            since: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .ok()
                .map(|since| since.as_secs()),
        }
    }

    /// A note as written: one JSON line, or an older pincer's bare pid.
    fn parse(text: &str) -> Option<Holder> {
        let text = text.trim();
        if let Ok(pid) = text.parse() {
            return Some(Holder {
                pid,
                host: None,
                pid_namespace: None,
                boot_id: None,
                start_ticks: None,
                since: None,
            });
        }
        serde_json::from_str(text).ok()
    }

    fn liveness(&self, here: &Place, running_since: impl Fn(u32) -> Option<u64>) -> Liveness {
        let (Some(boot_id), Some(namespace)) = (&self.boot_id, self.pid_namespace) else {
            return Liveness::Unknown;
        };
        if here.boot_id.as_ref() != Some(boot_id) {
            return Liveness::OtherMachine;
        }
        if here.pid_namespace != Some(namespace) {
            return Liveness::OtherNamespace;
        }
        match (running_since(self.pid), self.start_ticks) {
            (Some(running), Some(started)) if running == started => Liveness::Running,
            (Some(_), None) => Liveness::Running,
            _ => Liveness::Gone,
        }
    }

    /// Who it is, for a message: "process 4242" for a running process of this namespace, and
    /// for one pincer cannot see, where it is, since when, and that its state is unknown.
    pub fn describe(&self) -> String {
        self.describe_from(Place::here(), |pid| start_ticks(&pid.to_string()))
    }

    fn describe_from(&self, here: &Place, running_since: impl Fn(u32) -> Option<u64>) -> String {
        let pid = self.pid;
        let host = self.host.as_deref().unwrap_or("an unknown host");
        let since = self
            .since
            .and_then(|seconds| i64::try_from(seconds).ok())
            .and_then(|seconds| time::OffsetDateTime::from_unix_timestamp(seconds).ok())
            .and_then(|at| {
                at.format(&time::format_description::well_known::Rfc3339)
                    .ok()
            })
            .map_or_else(String::new, |at| format!(", holding it since {at}"));
        match self.liveness(here, running_since) {
            Liveness::Running | Liveness::Unknown => format!("process {pid}"),
            Liveness::Gone => format!(
                "process {pid}, which is no longer running here{since} (the lock goes when every \
                 process that shares its open file has ended)"
            ),
            Liveness::OtherNamespace => format!(
                "pid {pid} in another PID namespace (a container?) on host {host}{since}; pincer \
                 cannot tell from here whether it is still running"
            ),
            Liveness::OtherMachine => format!(
                "process {pid} on host {host}, a machine sharing this directory (or this one \
                 before a reboot){since}; pincer cannot tell from here whether it is still running"
            ),
        }
    }

    /// Whom to wait for, in a hint: "process 4242" when it runs here, else "the other run".
    pub fn whom(&self) -> String {
        match self.liveness(Place::here(), |pid| start_ticks(&pid.to_string())) {
            Liveness::Running | Liveness::Unknown => format!("process {}", self.pid),
            _ => "the other run".to_owned(),
        }
    }
}

// ------------------------------------------------------------- filesystems with local-only locks

/// `statfs` magic numbers of the filesystems whose locking depends on how they are mounted.
const FUSE_SUPER_MAGIC: i64 = 0x6573_5546;
const NFS_SUPER_MAGIC: i64 = 0x6969;
const SMB_SUPER_MAGIC: i64 = 0x517B;
const SMB2_MAGIC_NUMBER: i64 = 0xFE53_4D42;
const CIFS_MAGIC_NUMBER: i64 = 0xFF53_4D42;

/// What the filesystem of `path` is when it is shared over a network or FUSE (NFS, SMB, sshfs…),
/// however it is mounted: SQLite's WAL needs shared memory that only one machine sees, so the
/// session index uses a rollback journal there.
pub fn network_filesystem(path: &Path) -> Option<String> {
    let magic = widen(nix::sys::statfs::statfs(path).ok()?.filesystem_type().0);
    let kind = match magic {
        FUSE_SUPER_MAGIC => "FUSE",
        NFS_SUPER_MAGIC => "NFS",
        SMB_SUPER_MAGIC | SMB2_MAGIC_NUMBER | CIFS_MAGIC_NUMBER => "SMB",
        _ => return None,
    };
    Some(kind.to_owned())
}

/// What the filesystem of `file` is, when its locks are local to this machine.
fn local_only_filesystem(file: &File) -> Option<String> {
    let magic = widen(nix::sys::statfs::fstatfs(file).ok()?.filesystem_type().0);
    if ![
        FUSE_SUPER_MAGIC,
        NFS_SUPER_MAGIC,
        SMB_SUPER_MAGIC,
        SMB2_MAGIC_NUMBER,
        CIFS_MAGIC_NUMBER,
    ]
    .contains(&magic)
    {
        return None;
    }
    // Only for those: how the filesystem is mounted decides, and mountinfo says.
    let mount = mount_of(file).unwrap_or_default();
    local_only(magic, &mount)
}

/// `f_type`, whose width differs between architectures, as one type.
fn widen(magic: impl Into<i64>) -> i64 {
    magic.into()
}

/// A mount as `/proc/self/mountinfo` shows it: its type (`fuse.sshfs`) and options.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Mount {
    fs_type: String,
    options: Vec<String>,
}

/// The mount `file` is on, found by its device number.
fn mount_of(file: &File) -> Option<Mount> {
    use std::os::unix::fs::MetadataExt as _;
    let device = file.metadata().ok()?.dev();
    let wanted = format!(
        "{}:{}",
        nix::sys::stat::major(device),
        nix::sys::stat::minor(device)
    );
    let table = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    // The last mount of the device is the one on top.
    table
        .lines()
        .rev()
        .filter_map(parse_mountinfo_line)
        .find(|(device, _)| *device == wanted)
        .map(|(_, mount)| mount)
}

/// One line of mountinfo: `36 35 98:0 / /mnt rw,noatime master:1 - ext3 /dev/root rw,errors=…`
/// gives the device (`98:0`) and the mount; the mount options and the superblock's are joined.
fn parse_mountinfo_line(line: &str) -> Option<(&str, Mount)> {
    let (before, after) = line.split_once(" - ")?;
    let fields: Vec<&str> = before.split(' ').collect();
    let device = *fields.get(2)?;
    let mut after = after.split(' ');
    let fs_type = after.next()?.to_owned();
    let _source = after.next();
    let options = fields
        .get(5)
        .into_iter()
        .chain(after.next().as_ref())
        .flat_map(|options| options.split(','))
        .map(str::to_owned)
        .collect();
    Some((device, Mount { fs_type, options }))
}

/// The decision: whether a filesystem of type `magic` mounted as `mount` keeps its locks on
/// this machine (then what to call it), so that two machines sharing it would not exclude each
/// other.
fn local_only(magic: i64, mount: &Mount) -> Option<String> {
    let has = |wanted: &str| mount.options.iter().any(|option| option == wanted);
    let fs_type = if mount.fs_type.is_empty() {
        "unknown type"
    } else {
        &mount.fs_type
    };
    match magic {
        // sshfs, rclone, bindfs…: the kernel keeps FUSE locks unless the filesystem takes them
        // over, and the ones that do (GlusterFS, CephFS) cannot be told apart from here.
        FUSE_SUPER_MAGIC => Some(format!("a FUSE filesystem ({fs_type})")),
        // `nobrl`: byte-range locks are not sent to the server.
        SMB_SUPER_MAGIC | SMB2_MAGIC_NUMBER | CIFS_MAGIC_NUMBER if has("nobrl") => {
            Some(format!("an SMB mount with nobrl ({fs_type})"))
        }
        NFS_SUPER_MAGIC if has("local_lock=all") || has("local_lock=posix") || has("nolock") => {
            Some(format!("an NFS mount whose locks stay local ({fs_type})"))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_lock_is_busy_and_names_its_holder_then_frees_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl.lock");
        let lock = FileLock::acquire(&path, None).unwrap();
        assert!(FileLock::is_held(&path));
        match FileLock::acquire(&path, Some(Duration::from_millis(30))) {
            Err(LockError::Busy { holder }) => {
                let holder = holder.unwrap();
                assert_eq!(holder.pid, std::process::id());
                assert_eq!(holder.describe(), format!("process {}", std::process::id()));
            }
            other => panic!("expected busy, got {other:?}"),
        }
        drop(lock);
        assert!(!FileLock::is_held(&path));
        assert!(FileLock::acquire(&path, None).is_ok());
    }

    #[test]
    fn a_brief_lock_excludes_as_any_lock_and_writes_no_note() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl.lock");
        let brief = FileLock::acquire_briefly(&path).unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 0);
        assert!(FileLock::is_held(&path));
        assert!(matches!(
            FileLock::acquire(&path, None),
            Err(LockError::Busy { holder: None })
        ));
        drop(brief);
        let held = FileLock::acquire(&path, None).unwrap();
        assert!(matches!(
            FileLock::acquire_briefly(&path),
            Err(LockError::Busy { holder: Some(_) })
        ));
        drop(held);
    }

    #[test]
    fn a_lock_excludes_another_open_of_the_same_file_in_the_same_process() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("names.lock");
        let held = FileLock::acquire(&path, None).unwrap();
        let other = File::options().read(true).write(true).open(&path).unwrap();
        assert!(!try_lock(&other).unwrap());
        drop(held);
        assert!(try_lock(&other).unwrap());
    }

    #[test]
    fn an_older_pincers_flock_still_excludes_a_newer_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl.lock");
        let older = File::create(&path).unwrap();
        older.lock().unwrap();
        assert!(matches!(
            FileLock::acquire(&path, None),
            Err(LockError::Busy { .. })
        ));
        older.unlock().unwrap();
        let lock = FileLock::acquire(&path, None).unwrap();
        assert!(matches!(
            older.try_lock(),
            Err(std::fs::TryLockError::WouldBlock)
        ));
        drop(lock);
        older.try_lock().unwrap();
    }

    fn place(boot: &str, namespace: u64) -> Place {
        Place {
            host: Some("builder".to_owned()),
            pid_namespace: Some(namespace),
            boot_id: Some(boot.to_owned()),
            start_ticks: Some(1),
        }
    }

    fn holder(boot: &str, namespace: u64) -> Holder {
        Holder {
            pid: 1,
            host: Some("box-7".to_owned()),
            pid_namespace: Some(namespace),
            boot_id: Some(boot.to_owned()),
            start_ticks: Some(500),
            since: Some(1_767_225_600),
        }
    }

    #[test]
    fn a_holder_is_named_by_where_it_runs_and_whether_it_can_be_seen() {
        let here = place("boot-a", 4_026_531_836);
        let running = |pid| (pid == 1).then_some(500);
        let nothing = |_| None;
        assert_eq!(
            holder("boot-a", 4_026_531_836).describe_from(&here, running),
            "process 1"
        );
        // The pid now belongs to a process that started later.
        assert!(
            holder("boot-a", 4_026_531_836)
                .describe_from(&here, |_| Some(900))
                .starts_with("process 1, which is no longer running here, holding it since 2026-01-01T00:00:00Z")
        );
        assert_eq!(
            holder("boot-a", 4_026_532_175).describe_from(&here, running),
            "pid 1 in another PID namespace (a container?) on host box-7, holding it since \
             2026-01-01T00:00:00Z; pincer cannot tell from here whether it is still running"
        );
        assert!(
            holder("boot-b", 4_026_531_836)
                .describe_from(&here, nothing)
                .starts_with("process 1 on host box-7, a machine sharing this directory")
        );
        // An older pincer's note: a pid alone.
        let old = Holder::parse("4242\n").unwrap();
        assert_eq!(old.describe_from(&here, nothing), "process 4242");
        assert_eq!(Holder::parse(""), None);
    }

    #[test]
    fn a_holder_note_round_trips_through_its_json_line() {
        let note = holder("boot-a", 7);
        let line = serde_json::to_string(&note).unwrap();
        assert_eq!(Holder::parse(&format!("{line}\n")), Some(note));
        let mine = Holder::this_process();
        assert_eq!(mine.pid, std::process::id());
        assert!(mine.start_ticks.is_some());
        assert_eq!(namespace_inode("pid:[4026531836]"), Some(4_026_531_836));
    }

    fn mount(fs_type: &str, options: &str) -> Mount {
        Mount {
            fs_type: fs_type.to_owned(),
            options: options.split(',').map(str::to_owned).collect(),
        }
    }

    #[test]
    fn fuse_smb_without_byte_range_locks_and_nfs_with_local_locks_are_local_only() {
        let sshfs = mount("fuse.sshfs", "rw,nosuid,nodev,user_id=0");
        assert_eq!(
            local_only(FUSE_SUPER_MAGIC, &sshfs).as_deref(),
            Some("a FUSE filesystem (fuse.sshfs)")
        );
        assert!(local_only(CIFS_MAGIC_NUMBER, &mount("cifs", "rw,vers=3.0,nobrl")).is_some());
        assert!(local_only(SMB2_MAGIC_NUMBER, &mount("smb3", "rw,nobrl")).is_some());
        assert_eq!(
            local_only(CIFS_MAGIC_NUMBER, &mount("cifs", "rw,vers=3.0")),
            None
        );
        assert!(local_only(NFS_SUPER_MAGIC, &mount("nfs4", "rw,local_lock=all")).is_some());
        assert!(local_only(NFS_SUPER_MAGIC, &mount("nfs", "rw,nolock")).is_some());
        assert_eq!(
            local_only(NFS_SUPER_MAGIC, &mount("nfs4", "rw,local_lock=none")),
            None
        );
        assert_eq!(local_only(0xEF53, &mount("ext4", "rw")), None);
        assert_eq!(local_only(0x0102_1994, &mount("tmpfs", "rw")), None);
    }

    #[test]
    fn a_mountinfo_line_gives_the_device_type_and_both_sets_of_options() {
        let line = "36 35 0:52 / /home/me/remote rw,nosuid,nodev,relatime shared:1 - fuse.sshfs \
                    me@host:/ rw,user_id=1000,group_id=1000";
        let (device, mount) = parse_mountinfo_line(line).unwrap();
        assert_eq!(device, "0:52");
        assert_eq!(mount.fs_type, "fuse.sshfs");
        assert!(mount.options.contains(&"nosuid".to_owned()));
        assert!(mount.options.contains(&"user_id=1000".to_owned()));
    }

    #[test]
    fn the_filesystem_of_a_temporary_directory_keeps_locks_that_others_see() {
        let dir = tempfile::tempdir().unwrap();
        let file = File::create(dir.path().join("x.lock")).unwrap();
        // tmpfs or a local disk here; a test run from a FUSE mount would see Some.
        if let Some(filesystem) = local_only_filesystem(&file) {
            assert!(filesystem.contains("FUSE"), "{filesystem}");
        }
    }
}
