//! Where a tool's path argument points, and the confinement that keeps the file tools inside the
//! sandbox's roots (SPEC §10).
//!
//! Two steps. [`check`] turns the argument into a canonical path (every symlink resolved, `..`
//! applied to real directories) and refuses it when it lies outside the roots — compared by path
//! components, so `ws2` is not inside `ws` — or, for writes, when it is protected or its final
//! component is a symbolic link. Then [`open_read`], [`replace_file`] and [`remove_file`] act on
//! that canonical path by walking it from its root one directory at a time with `O_NOFOLLOW`, so
//! a directory swapped for a symlink after the check makes the call fail instead of escaping.
//! They act on regular files only: a FIFO, socket or device is refused before it is opened (and
//! opened with `O_NONBLOCK` in case one is swapped in), so no call blocks on one.
//! Writes go to a temporary file in the (already opened) parent directory and are renamed over
//! the target: a link planted at the target is replaced, never followed.
//!
//! Residual risk, stated plainly: `ls`, `find` and `grep` list and read by path after the check,
//! so a directory swapped during the call can make them show entries outside the roots. That is
//! read-only disclosure (and `exec` may read the whole file system anyway); no write can escape.
//! The roots themselves are trusted: whoever can replace the workspace directory or one of its
//! ancestors already owns it. In `danger-full-access` none of this applies: paths are used as
//! given, as before confinement existed.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, Write as _};
use std::os::fd::OwnedFd;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use nix::errno::Errno;
use nix::fcntl::{AtFlags, OFlag, openat, renameat};
use nix::sys::stat::{Mode, SFlag, fchmod, fstatat, mkdirat};
use nix::unistd::{UnlinkatFlags, unlinkat};

use super::sandbox::{Sandbox, SandboxMode, canonical_target};
use super::{Refusal, ToolContext, ToolError};
use crate::fs::{FileKind, NotRegular};

/// What a tool is about to do with a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Read a file or list a directory.
    Read,
    /// Create, replace or delete a file.
    Write,
}

/// The file system path that the argument `raw` names, relative to `workspace`, without any
/// checks: relative paths join the workspace, absolute ones stay, `~` is an ordinary character.
pub fn resolve(workspace: &Path, raw: &str) -> PathBuf {
    let path = Path::new(raw);
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        workspace.join(path)
    }
}

/// The path the argument `raw` names, checked against the sandbox for `access`. Confined modes
/// return a canonical path; `danger-full-access` returns [`resolve`]'s answer.
pub fn check(context: &ToolContext, raw: &str, access: Access) -> Result<PathBuf, ToolError> {
    let sandbox = &context.sandbox;
    let lexical = resolve(&context.workspace, raw);
    if !sandbox.is_confined() {
        return Ok(lexical);
    }
    if access == Access::Write && sandbox.mode == SandboxMode::ReadOnly {
        return Err(ToolError::refused(
            Refusal::SandboxMode,
            format!(
                "Cannot write '{raw}': the sandbox is read-only, so no file may be created, \
                 changed or deleted."
            ),
        ));
    }
    let target = match access {
        // Reads follow links (to wherever they lead, which is then checked).
        Access::Read => canonical_target(&lexical),
        // Writes resolve the directory but not the final component, which must not be a link.
        Access::Write => {
            let (Some(parent), Some(name)) = (lexical.parent(), lexical.file_name()) else {
                return Err(ToolError::Rejected(format!(
                    "Path '{raw}' does not name a file."
                )));
            };
            canonical_target(parent).join(name)
        }
    };
    let root = match access {
        Access::Read => readable_root_of(sandbox, &target),
        Access::Write => root_of(sandbox, &target),
    };
    if root.is_none() {
        return Err(ToolError::refused(
            Refusal::Confinement,
            format!(
                "Path '{raw}' is outside the workspace ({}); allowed roots: {}",
                target.display(),
                sandbox.roots_display()
            ),
        ));
    }
    if sandbox.owns(&target) {
        return Err(ToolError::refused(
            Refusal::ProtectedPath,
            format!(
                "Path '{raw}' is one of pincer's own files (credentials, sessions, \
                 configuration or state), which the tools never read or write."
            ),
        ));
    }
    let is_link =
        std::fs::symlink_metadata(&target).is_ok_and(|metadata| metadata.file_type().is_symlink());
    match access {
        Access::Read if is_link => Err(ToolError::Rejected(format!(
            "Path '{raw}' is a symbolic link whose target does not exist or cannot be resolved."
        ))),
        Access::Read => Ok(target),
        Access::Write => {
            if let Some(protected) = protected_by(sandbox, &target) {
                return Err(ToolError::refused(
                    Refusal::ProtectedPath,
                    format!(
                        "Path '{raw}' is inside {}, which is read-only in the {} sandbox.",
                        protected.display(),
                        sandbox.mode.as_str()
                    ),
                ));
            }
            if is_link {
                return Err(ToolError::refused(
                    Refusal::Confinement,
                    format!(
                        "Path '{raw}' is a symbolic link; files are not written through links. \
                         Write to the file it points to instead."
                    ),
                ));
            }
            Ok(target)
        }
    }
}

/// The deepest writable root containing `path` (by components).
fn root_of<'a>(sandbox: &'a Sandbox, path: &Path) -> Option<&'a Path> {
    deepest(sandbox.writable_roots.iter(), path)
}

/// The deepest root containing `path` that the file tools may read: a writable one or a
/// read-only one (a listed skill's directory).
fn readable_root_of<'a>(sandbox: &'a Sandbox, path: &Path) -> Option<&'a Path> {
    deepest(
        sandbox
            .writable_roots
            .iter()
            .chain(&sandbox.read_only_roots),
        path,
    )
}

fn deepest<'a>(roots: impl Iterator<Item = &'a PathBuf>, path: &Path) -> Option<&'a Path> {
    roots
        .filter(|root| path.starts_with(root))
        .max_by_key(|root| root.components().count())
        .map(PathBuf::as_path)
}

/// The protected directory (or file) that holds `path`: one of the sandbox's, or one of
/// [`crate::consumed::protected_names`] at any depth below a root (a checkout inside the workspace,
/// a submodule's `.git` file), SPEC §10; none in the run's private temp dir.
fn protected_by(sandbox: &Sandbox, path: &Path) -> Option<PathBuf> {
    if let Some(protected) = sandbox
        .protected
        .iter()
        .find(|protected| path.starts_with(protected))
    {
        return Some(protected.clone());
    }
    let root = root_of(sandbox, path)?;
    // The run's private temp dir is scratch space: nothing there outlives the run.
    if Some(root) == sandbox.exec.temp_dir.as_deref() {
        return None;
    }
    let mut below = root.to_path_buf();
    for component in path.strip_prefix(root).ok()?.components() {
        below.push(component);
        if super::sandbox::protected_in_workspace().any(|name| component.as_os_str() == name) {
            return Some(below);
        }
    }
    None
}

/// Open the file at `path` (from [`check`] with [`Access::Read`]) for reading. Only a regular
/// file is opened: a directory, FIFO, socket or device is refused at once as a
/// [`crate::fs::NotRegular`] (SPEC §10), looked at before it is opened and opened with
/// `O_NONBLOCK`, so that neither a FIFO nor a device swapped in meanwhile can block the call.
pub fn open_read(context: &ToolContext, path: &Path) -> io::Result<File> {
    if !context.sandbox.is_confined() {
        // Links are followed here, as everything is in `danger-full-access`.
        return crate::fs::open_regular(path, true);
    }
    let flags = OFlag::O_RDONLY | OFlag::O_NOCTTY | OFlag::O_CLOEXEC | OFlag::O_NONBLOCK;
    let root = readable_root_of(&context.sandbox, path).ok_or_else(outside_roots)?;
    if path == root {
        return Err(NotRegular(FileKind::Directory).into_io());
    }
    let (parent, name) = split(path)?;
    let directory = open_directory(root, parent, false)?;
    refuse_special_at(&directory, name)?;
    let file =
        openat(&directory, name, flags | OFlag::O_NOFOLLOW, Mode::empty()).map_err(link_error)?;
    crate::fs::regular_only(File::from(file))
}

/// Refuse the entry `name` of `directory` unless it is missing or a regular file (a link is
/// left to `O_NOFOLLOW`, whose error says what happened).
fn refuse_special_at(directory: &OwnedFd, name: &OsStr) -> io::Result<()> {
    match fstatat(directory, name, AtFlags::AT_SYMLINK_NOFOLLOW) {
        Ok(status) => match FileKind::of_mode(status.st_mode) {
            FileKind::Regular | FileKind::Symlink => Ok(()),
            other => Err(NotRegular(other).into_io()),
        },
        Err(Errno::ENOENT) => Ok(()),
        Err(error) => Err(error.into()),
    }
}

/// Replace the file at `path` (from [`check`] with [`Access::Write`]) with `contents`, creating
/// missing parent directories. Confined: a temporary file in the same directory renamed over
/// the target, keeping an existing file's permission bits.
///
/// A FIFO, socket or device at `path` is refused ([`crate::fs::NotRegular`]), in every mode:
/// the rename would replace it, and a plain write would block on a FIFO or write to a device.
pub fn replace_file(context: &ToolContext, path: &Path, contents: &[u8]) -> io::Result<()> {
    let sandbox = &context.sandbox;
    if !sandbox.is_confined() {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        return write_unconfined(path, contents);
    }
    refuse_unwritable(sandbox, path)?;
    let (parent, name) = split(path)?;
    let root = root_of(sandbox, parent).ok_or_else(outside_roots)?;
    let directory = open_directory(root, parent, true)?;
    let permissions = match fstatat(&directory, name, AtFlags::AT_SYMLINK_NOFOLLOW) {
        Ok(status) => {
            match FileKind::of_mode(status.st_mode) {
                FileKind::Regular => {}
                FileKind::Symlink => {
                    return Err(io::Error::new(
                        io::ErrorKind::PermissionDenied,
                        "the target is a symbolic link; files are not written through links",
                    ));
                }
                FileKind::Directory => return Err(io::Error::from(io::ErrorKind::IsADirectory)),
                other => return Err(NotRegular(other).into_io()),
            }
            Some(Mode::from_bits_truncate(status.st_mode & 0o7777))
        }
        Err(Errno::ENOENT) => None,
        Err(error) => return Err(error.into()),
    };
    let temporary = temporary_name(name);
    let file = openat(
        &directory,
        temporary.as_os_str(),
        OFlag::O_WRONLY | OFlag::O_CREAT | OFlag::O_EXCL | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC,
        Mode::from_bits_truncate(0o666),
    )?;
    let mut file = File::from(file);
    let written = file
        .write_all(contents)
        .and_then(|()| match permissions {
            Some(mode) => fchmod(&file, mode).map_err(io::Error::from),
            None => Ok(()),
        })
        .and_then(|()| {
            renameat(&directory, temporary.as_os_str(), &directory, name).map_err(io::Error::from)
        });
    if written.is_err() {
        // Best effort: the temporary is ours and useless now.
        let _ = unlinkat(
            &directory,
            temporary.as_os_str(),
            UnlinkatFlags::NoRemoveDir,
        );
    }
    written
}

/// `danger-full-access`'s write: through links, as there everything goes, but only into a
/// regular file (or a new one); a FIFO cannot block the open (`O_NONBLOCK`).
fn write_unconfined(path: &Path, contents: &[u8]) -> io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt as _;
    if let Ok(metadata) = std::fs::metadata(path) {
        match FileKind::of(metadata.file_type()) {
            FileKind::Regular => {}
            FileKind::Directory => return Err(io::Error::from(io::ErrorKind::IsADirectory)),
            other => return Err(NotRegular(other).into_io()),
        }
    }
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .custom_flags((OFlag::O_NONBLOCK | OFlag::O_NOCTTY).bits())
        .open(path)?;
    let mut file = crate::fs::regular_only(file)?;
    file.set_len(0)?;
    file.write_all(contents)
}

/// Delete the file at `path` (from [`check`] with [`Access::Write`]). A symbolic link is removed
/// itself; its target is untouched.
pub fn remove_file(context: &ToolContext, path: &Path) -> io::Result<()> {
    let sandbox = &context.sandbox;
    if !sandbox.is_confined() {
        return std::fs::remove_file(path);
    }
    refuse_unwritable(sandbox, path)?;
    let (parent, name) = split(path)?;
    let root = root_of(sandbox, parent).ok_or_else(outside_roots)?;
    let directory = open_directory(root, parent, false)?;
    unlinkat(&directory, name, UnlinkatFlags::NoRemoveDir).map_err(io::Error::from)
}

/// Second line of defence for callers that pass a path [`check`] did not produce.
fn refuse_unwritable(sandbox: &Sandbox, path: &Path) -> io::Result<()> {
    if sandbox.mode == SandboxMode::ReadOnly || protected_by(sandbox, path).is_some() {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            "the sandbox does not allow writing here",
        ));
    }
    Ok(())
}

/// Open the canonical directory `directory` by walking down from `root` (a root containing it)
/// without following links, creating missing directories when `create` is set.
fn open_directory(root: &Path, directory: &Path, create: bool) -> io::Result<OwnedFd> {
    let flags = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC;
    let relative = directory.strip_prefix(root).map_err(|_| outside_roots())?;
    // The root is canonical and trusted; everything below it is opened one name at a time.
    let mut current = nix::fcntl::open(root, flags, Mode::empty())?;
    for component in relative.components() {
        let Component::Normal(name) = component else {
            return Err(outside_roots());
        };
        let step_flags = flags | OFlag::O_NOFOLLOW;
        current = match openat(&current, name, step_flags, Mode::empty()) {
            Err(Errno::ENOENT) if create => {
                match mkdirat(&current, name, Mode::from_bits_truncate(0o777)) {
                    Ok(()) | Err(Errno::EEXIST) => {}
                    Err(error) => return Err(error.into()),
                }
                openat(&current, name, step_flags, Mode::empty()).map_err(link_error)?
            }
            // With O_DIRECTORY a link is reported as "not a directory"; say what it really is.
            Err(Errno::ENOTDIR) if is_link_at(&current, name) => {
                return Err(link_error(Errno::ELOOP));
            }
            other => other.map_err(link_error)?,
        };
    }
    Ok(current)
}

fn is_link_at(directory: &OwnedFd, name: &OsStr) -> bool {
    fstatat(directory, name, AtFlags::AT_SYMLINK_NOFOLLOW).is_ok_and(|status| {
        SFlag::from_bits_truncate(status.st_mode & SFlag::S_IFMT.bits()) == SFlag::S_IFLNK
    })
}

/// The parent directory and file name of a canonical path.
fn split(path: &Path) -> io::Result<(&Path, &OsStr)> {
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) => Ok((parent, name)),
        _ => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "the path does not name a file",
        )),
    }
}

/// A fresh hidden name next to `name` for the write-then-rename.
fn temporary_name(name: &OsStr) -> OsString {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut temporary = OsString::from(".");
    temporary.push(name);
    temporary.push(format!(
        ".pincer-{}-{}.tmp",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    temporary
}

fn outside_roots() -> io::Error {
    io::Error::new(
        io::ErrorKind::PermissionDenied,
        "the path is outside the sandbox roots",
    )
}

/// `O_NOFOLLOW` met a link: something changed the path after it was checked.
fn link_error(error: Errno) -> io::Error {
    if error == Errno::ELOOP {
        io::Error::new(
            io::ErrorKind::PermissionDenied,
            "a path component is a symbolic link (dangling, or swapped in while the call ran); \
             links are not followed here",
        )
    } else {
        error.into()
    }
}

/// `path` relative to `root` with `/` separators, for listing results.
pub fn relative_display(root: &Path, path: &Path) -> String {
    let relative = path.strip_prefix(root).unwrap_or(path);
    relative
        .components()
        .map(|component| component.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_join_the_workspace_and_absolute_ones_stay() {
        let workspace = Path::new("/work/space");
        assert_eq!(
            resolve(workspace, "src/main.rs"),
            PathBuf::from("/work/space/src/main.rs")
        );
        assert_eq!(
            resolve(workspace, "/etc/hosts"),
            PathBuf::from("/etc/hosts")
        );
    }

    #[test]
    fn a_tilde_is_not_expanded() {
        assert_eq!(
            resolve(Path::new("/w"), "~/notes"),
            PathBuf::from("/w/~/notes")
        );
    }

    #[test]
    fn listing_paths_are_relative_to_the_root_with_forward_slashes() {
        assert_eq!(
            relative_display(Path::new("/w"), Path::new("/w/src/lib.rs")),
            "src/lib.rs"
        );
    }

    #[test]
    fn a_missing_tail_is_appended_to_the_canonical_existing_ancestor() {
        let directory = tempfile::tempdir().unwrap();
        let base = directory.path().canonicalize().unwrap();
        std::fs::create_dir(base.join("real")).unwrap();
        std::os::unix::fs::symlink(base.join("real"), base.join("alias")).unwrap();
        assert_eq!(
            canonical_target(&base.join("alias/new/./x/../file.txt")),
            base.join("real/new/file.txt")
        );
        assert_eq!(canonical_target(&base.join("alias")), base.join("real"));
    }

    #[test]
    fn the_temporary_name_is_hidden_and_next_to_the_target() {
        let name = temporary_name(OsStr::new("notes.md"));
        let text = name.to_string_lossy();
        assert!(text.starts_with(".notes.md.pincer-"), "{text}");
        assert!(text.ends_with(".tmp"), "{text}");
        assert_ne!(temporary_name(OsStr::new("notes.md")), name);
    }
}
