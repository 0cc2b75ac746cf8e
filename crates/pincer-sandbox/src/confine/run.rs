//! What the confinement of commands keeps for the whole run (one pincer process is one run):
//! the process groups to kill when the run ends, the placeholders that keep a command from
//! creating a protected directory where none exists, and the protected directories found below
//! the roots.
//!
//! Placeholders. A command must not create `.git`, `.pincer`, `.claude` or `.codex` at a root
//! where none exists (a `git init` there with a hook or a filter set would run the next time
//! anyone uses git in that directory; an agent's config there would be read by the next agent).
//! No mount or Landlock rule can refuse one name in a writable directory, so before the first
//! command pincer makes each missing one as an empty directory with mode 000, which the launcher
//! then covers with a read-only tmpfs: inside the sandbox it is an empty, read-only directory
//! (git looks past it), which nobody can remove while it is mounted. pincer holds a shared
//! `flock` on each for the run and removes it at the end when it is still an empty mode-000
//! directory and no other run holds it; one left by a killed run (no lock held) is taken over.
//! Without a mount namespace there are none: nothing could keep a command out of them.

use super::{SetupError, could};
use std::fs::File;
use std::os::unix::fs::{DirBuilderExt as _, MetadataExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use nix::fcntl::{Flock, FlockArg};
use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::Pid;

use super::super::sandbox::{Sandbox, SandboxMode, protected_in_workspace};
use super::{Confinement, sockets};

/// A child that has a process id (std's and tokio's).
pub trait Spawned: Send + 'static {
    /// Its process id, while it has one.
    fn process_id(&self) -> Option<u32>;
}

impl Spawned for std::process::Child {
    fn process_id(&self) -> Option<u32> {
        Some(self.id())
    }
}

impl Spawned for tokio::process::Child {
    fn process_id(&self) -> Option<u32> {
        self.id()
    }
}

/// The run's state (see the module comment).
struct Run {
    /// Process groups of commands, with the private temp dir of the turn that started them:
    /// killed when the turn ends, and in any case when the run does.
    groups: Vec<(Option<PathBuf>, Pid)>,
    /// Placeholders made or taken over by this run, each with its shared lock.
    placeholders: Vec<(PathBuf, Flock<File>)>,
    /// pincer's hidden directories made (or found) so far.
    made: Vec<PathBuf>,
    /// The writable roots whose placeholders are in place. Keyed by root, not a flag: pincer's
    /// own `git status` runs read-only (no writable root, so no placeholder) before the first
    /// command, and must not stand for the commands' preparation (issue #45, hole 1).
    guarded: Vec<PathBuf>,
    /// Protected directories found below the roots, with the roots they were looked for in.
    nested: Option<(Vec<PathBuf>, Vec<PathBuf>)>,
}

/// A static with a reason (issue #48): what the process started and made under confinement
/// must be cleaned up whatever ends it — a turn's end, the command's, or the exit path after a
/// signal — and those paths share nothing else; the sandbox alone reads and writes it.
static RUN: Mutex<Run> = Mutex::new(Run {
    groups: Vec::new(),
    placeholders: Vec::new(),
    made: Vec::new(),
    guarded: Vec::new(),
    nested: None,
});

fn with_run<T>(act: impl FnOnce(&mut Run) -> T) -> T {
    let mut guard = RUN
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    act(&mut guard)
}

/// Remember the process group of a command just started (its leader's pid: the launcher makes
/// it a session leader; an unconfined command is put in a group of its own) and the private temp
/// dir of its turn, to kill when that turn ends ([`finish_turn`]) or the run does.
pub(super) fn register<C: Spawned>(
    spawned: std::io::Result<C>,
    turn: Option<&Path>,
) -> std::io::Result<C> {
    if let Ok(child) = &spawned
        && let Some(pid) = child.process_id().and_then(|id| i32::try_from(id).ok())
    {
        with_run(|run| {
            run.groups
                .push((turn.map(Path::to_path_buf), Pid::from_raw(pid)));
        });
    }
    spawned
}

/// Kill every process group a command of the turn whose private temp dir is `turn` ran in.
pub fn finish_turn(turn: &Path) {
    let groups = with_run(|run| {
        let (ended, kept) = std::mem::take(&mut run.groups)
            .into_iter()
            .partition(|(owner, _)| owner.as_deref() == Some(turn));
        run.groups = kept;
        ended
    });
    kill_groups(groups);
}

fn kill_groups(groups: Vec<(Option<PathBuf>, Pid)>) {
    for (_, group) in groups {
        // The leader may not have made its session yet: the pid reaches it then.
        let _ = killpg(group, Signal::SIGKILL);
        let _ = kill(group, Signal::SIGKILL);
    }
}

/// End the run's commands and put back what the confinement added: every process group a
/// command ran in is killed (in a PID namespace, that ends everything the command started,
/// daemons included), then the placeholders that are still empty and held by no other run are
/// removed. Called before pincer exits, whatever the way out; a second call finds nothing to
/// do.
pub fn finish_run() {
    let (groups, placeholders) = with_run(|run| {
        (
            std::mem::take(&mut run.groups),
            std::mem::take(&mut run.placeholders),
        )
    });
    kill_groups(groups);
    for (path, lock) in placeholders {
        remove_placeholder(&path, lock);
    }
}

/// Complete `confinement` with what depends on the file system as the command starts: pincer's
/// hidden directories are made (so they are hidden even before pincer writes them) and the
/// placeholders put in place at each writable root, the first time a command sees that
/// directory or root; the protected directories below the roots are found (again for other
/// roots, or when one found earlier has gone: a directory holding one was renamed); the
/// sockets of the user's session outside the roots are hidden.
pub(super) fn prepare(sandbox: &Sandbox, confinement: &mut Confinement) -> Result<(), SetupError> {
    let writable_roots: Vec<&PathBuf> = match sandbox.mode {
        SandboxMode::WorkspaceWrite => sandbox
            .writable_roots
            .iter()
            .filter(|root| Some(root.as_path()) != sandbox.exec.temp_dir.as_deref())
            .collect(),
        SandboxMode::ReadOnly | SandboxMode::DangerFullAccess => Vec::new(),
    };
    let (placeholders, nested) = with_run(|run| -> Result<_, SetupError> {
        for directory in &sandbox.exec.made_hidden {
            if !run.made.contains(directory) {
                make_private_directory(directory)?;
                run.made.push(directory.clone());
            }
        }
        for root in &writable_roots {
            if run.guarded.contains(root) {
                continue;
            }
            for name in protected_in_workspace() {
                if let Some(placeholder) = place_holder(&root.join(name))? {
                    run.placeholders.push(placeholder);
                }
            }
            run.guarded.push((*root).clone());
        }
        let roots: Vec<PathBuf> = writable_roots.iter().map(|root| (*root).clone()).collect();
        let stale = run.nested.as_ref().is_none_or(|(looked_in, known)| {
            *looked_in != roots || known.iter().any(|path| !path.exists())
        });
        if stale {
            let found = protected_below(&writable_roots, &sandbox.exec.hidden);
            run.nested = Some((roots, found));
        }
        Ok((
            run.placeholders
                .iter()
                .map(|(path, _)| path.clone())
                .collect::<Vec<_>>(),
            run.nested
                .as_ref()
                .map(|(_, found)| found.clone())
                .unwrap_or_default(),
        ))
    })?;
    confinement.hidden.extend(placeholders);
    for path in nested {
        if !confinement.read_only.contains(&path) {
            confinement.read_only.push(path);
        }
    }
    let uid = nix::unistd::getuid().as_raw();
    let variable = |name: &str| std::env::var_os(name);
    for path in sockets::session_socket_paths(&variable, uid) {
        let beneath_a_root = confinement
            .reachable
            .iter()
            .any(|root| path.starts_with(root) || root.starts_with(&path));
        if !beneath_a_root && std::fs::symlink_metadata(&path).is_ok() {
            confinement.hidden.push(path);
        }
    }
    Ok(())
}

/// Make `directory` (one of pincer's, to be hidden) when it does not exist, mode 0700.
fn make_private_directory(directory: &Path) -> Result<(), SetupError> {
    if std::fs::symlink_metadata(directory).is_ok() {
        return Ok(());
    }
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(directory)
        .map_err(could(format!(
            "make '{}' so that commands cannot create it",
            directory.display()
        )))
}

/// Whether `directory` (opened) is a placeholder: an empty directory of this user's with mode
/// 000.
fn is_placeholder(directory: &File) -> bool {
    let Ok(metadata) = directory.metadata() else {
        return false;
    };
    if !metadata.is_dir()
        || metadata.mode() & 0o7777 != 0
        || metadata.uid() != nix::unistd::geteuid().as_raw()
    {
        return false;
    }
    let Ok(copy) = directory.try_clone() else {
        return false;
    };
    let Ok(mut entries) = nix::dir::Dir::from_fd(copy.into()) else {
        return false;
    };
    entries.iter().flatten().all(|entry| {
        let name = entry.file_name().to_bytes();
        name == b"." || name == b".."
    })
}

/// Whether `path` names the directory `directory` is open on.
fn still_at(directory: &File, path: &Path) -> bool {
    match (directory.metadata(), std::fs::symlink_metadata(path)) {
        (Ok(held), Ok(there)) => held.ino() == there.ino() && held.dev() == there.dev(),
        _ => false,
    }
}

/// Open the directory at `path` that may be mode 000 (only its owner gets here): made
/// readable for as long as the open takes.
fn open_own_directory(path: &Path) -> std::io::Result<File> {
    let metadata = std::fs::symlink_metadata(path)?;
    if !metadata.is_dir() || metadata.uid() != nix::unistd::geteuid().as_raw() {
        return Err(std::io::Error::other("not a directory of this user's"));
    }
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o500))?;
    let opened = File::open(path);
    if let Ok(directory) = &opened {
        directory.set_permissions(std::fs::Permissions::from_mode(0o000))?;
    }
    opened
}

/// Put a placeholder at `path` when nothing is there, or take over one already there (made
/// by another run, live or dead); `None` when something real is there.
fn place_holder(path: &Path) -> Result<Option<(PathBuf, Flock<File>)>, SetupError> {
    let failed =
        could::<std::io::Error>(format!("keep commands from creating '{}'", path.display()));
    // A run that removes its placeholder as this one takes it over: try again.
    for _ in 0..3 {
        let directory = match std::fs::DirBuilder::new().mode(0o700).create(path) {
            Ok(()) => {
                let directory = File::open(path).map_err(&failed)?;
                directory
                    .set_permissions(std::fs::Permissions::from_mode(0o000))
                    .map_err(&failed)?;
                directory
            }
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {
                let looks_like_one = std::fs::symlink_metadata(path).is_ok_and(|metadata| {
                    metadata.is_dir()
                        && metadata.mode() & 0o7777 == 0
                        && metadata.uid() == nix::unistd::geteuid().as_raw()
                });
                if !looks_like_one {
                    return Ok(None);
                }
                match open_own_directory(path) {
                    Ok(directory) if is_placeholder(&directory) => directory,
                    Ok(_) => return Ok(None),
                    Err(error) if error.kind() == std::io::ErrorKind::NotFound => continue,
                    Err(error) => return Err(failed(error)),
                }
            }
            Err(error) => return Err(failed(error)),
        };
        let lock = Flock::lock(directory, FlockArg::LockShared)
            .map_err(|(_, error)| failed(error.into()))?;
        if still_at(&lock, path) {
            return Ok(Some((path.to_path_buf(), lock)));
        }
    }
    Err(failed(std::io::Error::other(
        "another run kept removing its placeholder",
    )))
}

/// Remove the placeholder at `path` when this run is the last to hold it and it is still one.
fn remove_placeholder(path: &Path, lock: Flock<File>) {
    let Ok(directory) = lock.unlock() else {
        return;
    };
    if let Ok(exclusive) = Flock::lock(directory, FlockArg::LockExclusiveNonblock)
        && is_placeholder(&exclusive)
        && still_at(&exclusive, path)
    {
        let _ = std::fs::remove_dir(path);
    }
}

/// Every `.git`, `.pincer`, `.claude` and `.codex` below `roots` (a root's own are protected
/// already), not following links and not entering what is `hidden` or a protected directory.
fn protected_below(roots: &[&PathBuf], hidden: &[PathBuf]) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending: Vec<(PathBuf, bool)> =
        roots.iter().map(|root| ((*root).clone(), true)).collect();
    while let Some((directory, is_root)) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&directory) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let path = entry.path();
            if protected_in_workspace().any(|protected| name == protected) {
                if !is_root {
                    found.push(path);
                }
                continue;
            }
            if entry.file_type().is_ok_and(|kind| kind.is_dir())
                && !hidden.iter().any(|hidden| path.starts_with(hidden))
            {
                pending.push((path, false));
            }
        }
    }
    found.sort();
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protected_directories_are_found_at_every_depth_below_the_roots() {
        let directory = tempfile::tempdir().unwrap();
        let root = directory.path().canonicalize().unwrap();
        for path in [
            ".git/hooks",
            "lib/.git/hooks",
            "vendor/a/b/.claude",
            "vendor/a/.codex",
            "secret/.git",
            "ok/src",
        ] {
            std::fs::create_dir_all(root.join(path)).unwrap();
        }
        std::fs::create_dir_all(root.join("worktree")).unwrap();
        std::fs::write(root.join("worktree/.git"), "gitdir: ../.git/worktrees/w\n").unwrap();
        std::os::unix::fs::symlink(root.join("lib"), root.join("link")).unwrap();
        let found = protected_below(&[&root], &[root.join("secret")]);
        assert_eq!(
            found,
            [
                root.join("lib/.git"),
                root.join("vendor/a/.codex"),
                root.join("vendor/a/b/.claude"),
                root.join("worktree/.git")
            ]
        );
    }

    #[test]
    fn a_placeholder_is_made_taken_over_and_removed_by_its_last_holder() {
        use std::os::unix::fs::PermissionsExt as _;
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join(".git");
        let first = place_holder(&path).unwrap().unwrap();
        assert!(is_placeholder(&first.1));
        assert_eq!(
            std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0
        );
        // Another run takes it over; the first to finish leaves it to the other.
        let second = place_holder(&path).unwrap().unwrap();
        remove_placeholder(&first.0, first.1);
        assert!(path.exists());
        remove_placeholder(&second.0, second.1);
        assert!(!path.exists());
        // A real directory is never a placeholder, and never removed, even at mode 000.
        std::fs::create_dir(&path).unwrap();
        assert!(place_holder(&path).unwrap().is_none());
        std::fs::write(path.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o000)).unwrap();
        assert!(place_holder(&path).unwrap().is_none());
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert!(path.join("HEAD").exists());
    }
}
