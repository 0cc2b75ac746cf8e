//! The mounts the launcher makes in a command's private mount namespace (SPEC §10): protected
//! paths bound read-only, pincer's paths hidden, a directory that holds both pincer's files and
//! a root rebuilt without pincer's entries, the user's terminals and session sockets out of
//! sight, a `devpts` of the command's own and a `/proc` of its own PID namespace.
//!
//! Every function here runs in the launcher, single-threaded, inside the first user namespace
//! (where it holds every capability); the mounts become locked when the launcher enters the
//! second one.

use super::{SetupError, could};
use std::ffi::OsString;
use std::os::fd::{AsRawFd as _, OwnedFd};
use std::path::{Path, PathBuf};

use nix::fcntl::OFlag;
use nix::mount::{MsFlags, mount};
use nix::sys::stat::Mode;
use nix::sys::statvfs::{FsFlags, statvfs};

use super::Mask;

/// The flags an unprivileged mount namespace cannot lift from what it inherited.
const LOCKED: MsFlags = MsFlags::MS_NOSUID
    .union(MsFlags::MS_NODEV)
    .union(MsFlags::MS_NOEXEC);

/// Open each of `directories` (without following a final link), dropping those inside an
/// earlier one: they are visible through its mount already.
pub(super) fn open_revealed(
    directories: &[PathBuf],
) -> Result<Vec<(PathBuf, OwnedFd)>, SetupError> {
    let mut sorted: Vec<&PathBuf> = directories.iter().collect();
    sorted.sort_by_key(|path| path.components().count());
    let mut opened: Vec<(PathBuf, OwnedFd)> = Vec::new();
    for directory in sorted {
        if opened.iter().any(|(known, _)| directory.starts_with(known)) {
            continue;
        }
        match open_path(directory, true) {
            Ok(descriptor) => opened.push((directory.clone(), descriptor)),
            // Gone since the run started: nothing to show.
            Err(nix::errno::Errno::ENOENT) => {}
            Err(error) => {
                return Err(could(format!("open {}", directory.display()))(error));
            }
        }
    }
    Ok(opened)
}

/// An `O_PATH` descriptor of `path` (not following a final link), a directory when asked.
fn open_path(path: &Path, directory: bool) -> nix::Result<OwnedFd> {
    let mut flags = OFlag::O_PATH | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
    if directory {
        flags |= OFlag::O_DIRECTORY;
    }
    nix::fcntl::open(path, flags, Mode::empty())
}

/// `/proc/self/fd/N` of `descriptor`: a mount source that is the opened file itself.
fn through(descriptor: &OwnedFd) -> PathBuf {
    PathBuf::from(format!("/proc/self/fd/{}", descriptor.as_raw_fd()))
}

/// Cover `path`: a directory with an empty read-only tmpfs, anything else (a file, a socket)
/// with `/dev/null` mounted read-only and without device access, so opening or connecting fails
/// either way. The directories of `revealed` (inside `path`, opened beforehand) are bound back
/// read-only onto mount points made in the tmpfs while it is still writable. Nothing there:
/// nothing to do.
pub(super) fn hide(path: &Path, revealed: &[&(PathBuf, OwnedFd)]) -> Result<(), SetupError> {
    let Ok(metadata) = std::fs::symlink_metadata(path) else {
        return Ok(());
    };
    if metadata.file_type().is_symlink() {
        // What a link leads to is hidden where it is, if it is pincer's.
        return Ok(());
    }
    if !metadata.is_dir() {
        return bind_read_only(Path::new("/dev/null"), path, MsFlags::MS_NODEV);
    }
    let failed = could(format!("hide {}", path.display()));
    if revealed.is_empty() {
        return mount(
            Some("tmpfs"),
            path,
            Some("tmpfs"),
            MsFlags::MS_RDONLY | LOCKED,
            Some("mode=0555,size=4k"),
        )
        .map_err(&failed);
    }
    mount(
        Some("tmpfs"),
        path,
        Some("tmpfs"),
        LOCKED,
        Some("mode=0755,size=64k"),
    )
    .map_err(&failed)?;
    for (directory, descriptor) in revealed {
        std::fs::create_dir_all(directory).map_err(could(format!(
            "make a mount point for {}",
            directory.display()
        )))?;
        bind_read_only(&through(descriptor), directory, MsFlags::empty())?;
    }
    remount_read_only(path).map_err(&failed)
}

/// Rebuild `mask.directory` without pincer's entries: everything else in it is opened, an empty
/// tmpfs covers the directory, and each opened entry is bound back in place (with what is
/// mounted beneath it). An entry pincer writes later — a store replaced by rename, a session
/// created after the command started — is simply not there, which a bind mount over a single
/// file could not promise (a rename replaces the file the mount covered).
pub(super) fn mask(mask: &Mask) -> Result<(), SetupError> {
    let directory = &mask.directory;
    let failed = could(format!("hide pincer's files in {}", directory.display()));
    let Ok(entries) = std::fs::read_dir(directory) else {
        return Ok(());
    };
    let mut kept: Vec<(OsString, bool, OwnedFd)> = Vec::new();
    let mut links: Vec<(OsString, PathBuf)> = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        if mask.hides(&name) {
            continue;
        }
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let path = entry.path();
        if kind.is_symlink() {
            // A link is copied, not bound: it leads where it always did.
            if let Ok(target) = std::fs::read_link(&path) {
                links.push((name, target));
            }
            continue;
        }
        match open_path(&path, false) {
            Ok(descriptor) => kept.push((name, kind.is_dir(), descriptor)),
            Err(nix::errno::Errno::ENOENT) => {}
            Err(error) => return Err(could(format!("open {}", path.display()))(error)),
        }
    }
    mount(
        Some("tmpfs"),
        directory.as_path(),
        Some("tmpfs"),
        LOCKED,
        Some("mode=0755"),
    )
    .map_err(&failed)?;
    for (name, target) in &links {
        std::os::unix::fs::symlink(target, directory.join(name)).map_err(could(format!(
            "copy the link {}",
            directory.join(name).display()
        )))?;
    }
    for (name, is_dir, descriptor) in &kept {
        let target = directory.join(name);
        let made = if *is_dir {
            std::fs::create_dir(&target)
        } else {
            std::fs::File::create(&target).map(drop)
        };
        made.map_err(could(format!(
            "make a mount point for {}",
            target.display()
        )))?;
        mount(
            Some(&through(descriptor)),
            &target,
            None::<&str>,
            MsFlags::MS_BIND | MsFlags::MS_REC,
            None::<&str>,
        )
        .map_err(could(format!("bind {} back", target.display())))?;
    }
    remount_read_only(directory).map_err(&failed)
}

/// Make the tmpfs at `path` read-only (what is bound onto it keeps its own flags).
fn remount_read_only(path: &Path) -> nix::Result<()> {
    mount(
        None::<&str>,
        path,
        None::<&str>,
        MsFlags::MS_REMOUNT | MsFlags::MS_BIND | MsFlags::MS_RDONLY | LOCKED,
        None::<&str>,
    )
}

/// Bind `source` onto `target` and make that mount read-only, keeping the flags the kernel
/// locks for an unprivileged namespace (nosuid, nodev, noexec, atime) and adding `extra`.
pub(super) fn bind_read_only(
    source: &Path,
    target: &Path,
    extra: MsFlags,
) -> Result<(), SetupError> {
    let failed = could(format!("protect {}", target.display()));
    mount(
        Some(source),
        target,
        None::<&str>,
        MsFlags::MS_BIND | MsFlags::MS_REC,
        None::<&str>,
    )
    .map_err(&failed)?;
    let current = statvfs(target).map_err(&failed)?.flags();
    mount(
        None::<&str>,
        target,
        None::<&str>,
        MsFlags::MS_BIND | MsFlags::MS_REMOUNT | MsFlags::MS_RDONLY | locked_flags(current) | extra,
        None::<&str>,
    )
    .map_err(&failed)
}

/// The mount flags of `current` that a remount inside a user namespace must repeat.
pub(super) fn locked_flags(current: FsFlags) -> MsFlags {
    [
        (FsFlags::ST_NOSUID, MsFlags::MS_NOSUID),
        (FsFlags::ST_NODEV, MsFlags::MS_NODEV),
        (FsFlags::ST_NOEXEC, MsFlags::MS_NOEXEC),
        (FsFlags::ST_NOATIME, MsFlags::MS_NOATIME),
        (FsFlags::ST_NODIRATIME, MsFlags::MS_NODIRATIME),
        (FsFlags::ST_RELATIME, MsFlags::MS_RELATIME),
    ]
    .into_iter()
    .filter(|(statvfs_flag, _)| current.contains(*statvfs_flag))
    .fold(MsFlags::empty(), |flags, (_, mount_flag)| {
        flags | mount_flag
    })
}

/// Give the command pseudo-terminals of its own: a new `devpts` instance over `/dev/pts` and
/// its `ptmx` over `/dev/ptmx`, so no terminal of the user's (`/dev/pts/N`) can be opened.
/// Where the kernel refuses a new instance, an empty tmpfs covers `/dev/pts` and `/dev/ptmx`
/// is hidden: no pseudo-terminals at all. Returns whether the command has working ones.
pub(super) fn private_terminals() -> Result<bool, SetupError> {
    let pts = Path::new("/dev/pts");
    let fresh = mount(
        Some("devpts"),
        pts,
        Some("devpts"),
        MsFlags::MS_NOSUID | MsFlags::MS_NOEXEC,
        Some("newinstance,ptmxmode=0666,mode=0620"),
    );
    if fresh.is_ok() {
        let ptmx = Path::new("/dev/ptmx");
        if ptmx.exists() {
            mount(
                Some("/dev/pts/ptmx"),
                ptmx,
                None::<&str>,
                MsFlags::MS_BIND,
                None::<&str>,
            )
            .map_err(could("bind the private /dev/ptmx"))?;
        }
        return Ok(true);
    }
    if pts.is_dir() {
        hide(pts, &[])?;
    }
    hide(Path::new("/dev/ptmx"), &[])?;
    Ok(false)
}

/// Mount a `/proc` of the calling process's PID namespace over the system's, so that process
/// ids read there are the command's own. Run by the namespace's first process.
pub(super) fn private_proc() -> nix::Result<()> {
    mount(
        Some("proc"),
        "/proc",
        Some("proc"),
        MsFlags::MS_NOSUID | MsFlags::MS_NODEV | MsFlags::MS_NOEXEC,
        None::<&str>,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remounts_repeat_the_flags_the_kernel_locks() {
        assert_eq!(
            locked_flags(FsFlags::ST_NOSUID | FsFlags::ST_RELATIME | FsFlags::ST_RDONLY),
            MsFlags::MS_NOSUID | MsFlags::MS_RELATIME
        );
        assert_eq!(locked_flags(FsFlags::empty()), MsFlags::empty());
    }
}
