//! The Landlock ruleset of a confined command (SPEC §10): where it may write, what it may read,
//! and what it may reach besides files.
//!
//! Writes: beneath the roots, the private temp dir and a few harmless devices. Reads: the whole
//! file system except `/dev` — of which only the devices a shell needs are readable (a root-run
//! command must not read a raw disk, and no command may open a terminal) — and except the paths
//! the caller excludes: pincer's own files, when no mount namespace hides them. Landlock only
//! adds rights along a hierarchy, so "everything but X" is built by granting every sibling
//! along the way from `/` to X ([`read_grants`]), with the listing of the directories on the way
//! left readable (names, never contents).
//!
//! Beyond files, where the kernel has them (Landlock ABI 6): no connecting to an abstract unix
//! socket and no signal to a process outside the command's own domain; and with the network
//! closed but no network namespace (ABI 4), no TCP bind or connect at all. Everything is best
//! effort by ABI: an older kernel enforces what it knows ("partially enforced").

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use std::os::unix::fs::FileTypeExt as _;

use landlock::{
    ABI, Access as _, AccessFs, AccessNet, BitFlags, LandlockStatus, PathBeneath, PathFd, Ruleset,
    RulesetAttr as _, RulesetCreatedAttr as _, RulesetError, RulesetStatus, Scope,
};

use super::LandlockSupport;

/// The Landlock ABI whose file-system rights are requested; older kernels enforce a subset.
const FILE_ABI: ABI = ABI::V5;

/// Devices a shell writes to in every confined mode.
pub(super) const WRITABLE_DEVICES: [&str; 5] = [
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
];
/// Entries of `/dev` that stay readable besides [`WRITABLE_DEVICES`] (links into `/proc` and
/// shared memory). The terminals (`tty*`, `pts`, `console`, `vcs*`) and every disk are not.
const READABLE_DEVICES: [&str; 5] = [
    "/dev/fd",
    "/dev/stdin",
    "/dev/stdout",
    "/dev/stderr",
    "/dev/shm",
];
/// The pseudo-terminal devices, readable and writable only where a private `devpts` replaced
/// the system's (the mount namespace): there they reach no terminal but the command's own.
pub(super) const PRIVATE_TERMINALS: [&str; 2] = ["/dev/pts", "/dev/ptmx"];

/// What a command may do, for [`restrict_current_thread`].
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(super) struct Rules {
    /// Paths beneath which everything is allowed (roots, temp dir, devices).
    pub writable: Vec<PathBuf>,
    /// Paths (and what is beneath them) that stay unreadable; the command may still list the
    /// directory that holds them.
    pub unreadable: Vec<PathBuf>,
    /// Readable besides the rest (a skill's directory inside an unreadable one).
    pub readable: Vec<PathBuf>,
    /// TCP bind and connect allowed (no network namespace closes it otherwise).
    pub tcp: bool,
}

impl Rules {
    /// The rules of the launcher's probe of Landlock: writes beneath `writable`, nothing else
    /// taken away.
    pub(super) fn writing(writable: Vec<PathBuf>) -> Rules {
        Rules {
            writable,
            unreadable: Vec::new(),
            readable: Vec::new(),
            tcp: true,
        }
    }
}

/// Restrict the calling thread (and what it starts from now on) to `rules`. Paths that do not
/// exist are left out: a missing device must not void the whole ruleset.
pub(super) fn restrict_current_thread(rules: &Rules) -> LandlockSupport {
    let mut unreadable = rules.unreadable.clone();
    unreadable.push(PathBuf::from("/dev"));
    let grants = read_grants(&unreadable, &mut list_directory);
    let mut readable: Vec<PathBuf> = grants.readable;
    readable.extend(READABLE_DEVICES.iter().map(PathBuf::from));
    readable.extend(rules.readable.iter().cloned());
    let mut ruleset = Ruleset::default()
        .handle_access(AccessFs::from_all(FILE_ABI))
        .and_then(|ruleset| ruleset.scope(Scope::AbstractUnixSocket | Scope::Signal));
    if !rules.tcp {
        ruleset = ruleset
            .and_then(|ruleset| ruleset.handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp));
    }
    let result = ruleset
        .and_then(|ruleset| ruleset.create())
        .and_then(|ruleset| {
            ruleset.add_rules(beneath(
                &grants.listed,
                AccessFs::ReadDir | AccessFs::Execute,
            ))
        })
        .and_then(|ruleset| ruleset.add_rules(beneath(&readable, AccessFs::from_read(FILE_ABI))))
        .and_then(|ruleset| {
            ruleset.add_rules(beneath(&rules.writable, AccessFs::from_all(FILE_ABI)))
        })
        .and_then(|ruleset| ruleset.restrict_self());
    match result {
        Ok(status) => match status.ruleset {
            RulesetStatus::FullyEnforced => LandlockSupport::FullyEnforced,
            RulesetStatus::PartiallyEnforced => LandlockSupport::PartiallyEnforced,
            RulesetStatus::NotEnforced => LandlockSupport::NotSupported(match status.landlock {
                LandlockStatus::NotEnabled => {
                    "Landlock is built into the kernel but not enabled (see the lsm= boot option)"
                        .to_owned()
                }
                LandlockStatus::NotImplemented => {
                    "the kernel does not implement Landlock".to_owned()
                }
                LandlockStatus::Available { .. } => {
                    "the kernel refused the Landlock ruleset".to_owned()
                }
            }),
        },
        Err(error) => LandlockSupport::NotSupported(error.to_string()),
    }
}

/// Rules granting `access` beneath each of `paths` that is a directory, a regular file or a
/// device (a file gets the file rights of `access`); anything else — missing, a socket, a
/// pipe behind a link — is left out, as Landlock would refuse the whole ruleset for it.
fn beneath<P: AsRef<Path>>(
    paths: &[P],
    access: BitFlags<AccessFs>,
) -> impl Iterator<Item = Result<PathBeneath<PathFd>, RulesetError>> {
    paths.iter().filter_map(move |path| {
        let metadata = std::fs::metadata(path.as_ref()).ok()?;
        let kind = metadata.file_type();
        let access = if kind.is_dir() {
            access
        } else if kind.is_file() || kind.is_char_device() || kind.is_block_device() {
            access & AccessFs::from_file(FILE_ABI)
        } else {
            return None;
        };
        let descriptor = PathFd::new(path.as_ref()).ok()?;
        Some(Ok(PathBeneath::new(descriptor, access)))
    })
}

/// The entries of `directory` (none when it cannot be read).
fn list_directory(directory: &Path) -> Vec<OsString> {
    std::fs::read_dir(directory)
        .map(|entries| entries.flatten().map(|entry| entry.file_name()).collect())
        .unwrap_or_default()
}

/// How "read everything but these" is said to Landlock.
#[derive(Debug, Default, PartialEq, Eq)]
struct ReadGrants {
    /// Paths readable with everything beneath them.
    readable: Vec<PathBuf>,
    /// Directories on the way to an unreadable path: listed (and searched), not read.
    listed: Vec<PathBuf>,
}

/// Everything readable but `unreadable` (absolute paths), from `/` down: each directory that
/// holds an unreadable path is listed only, and each of its other entries is readable whole
/// (`list` gives a directory's entry names). An entry that is a symbolic link is granted only
/// when it leads nowhere unreadable (the rule would attach to its target).
fn read_grants(unreadable: &[PathBuf], list: &mut dyn FnMut(&Path) -> Vec<OsString>) -> ReadGrants {
    let excluded: BTreeSet<&Path> = unreadable
        .iter()
        .map(PathBuf::as_path)
        .filter(|path| path.is_absolute())
        .collect();
    let mut grants = ReadGrants::default();
    let mut pending = vec![PathBuf::from("/")];
    while let Some(directory) = pending.pop() {
        if excluded.contains(directory.as_path()) {
            continue;
        }
        let holds_excluded = excluded
            .iter()
            .any(|path| path.starts_with(&directory) && *path != directory);
        if !holds_excluded {
            if leads_into(&directory, &excluded) {
                continue;
            }
            grants.readable.push(directory);
            continue;
        }
        let mut names = list(&directory);
        names.sort();
        for name in names.into_iter().rev() {
            pending.push(directory.join(name));
        }
        grants.listed.push(directory);
    }
    grants
}

/// Whether `path` is a symbolic link whose target is (or is beneath, or holds) an excluded path.
fn leads_into(path: &Path, excluded: &BTreeSet<&Path>) -> bool {
    let Ok(metadata) = std::fs::symlink_metadata(path) else {
        return false;
    };
    if !metadata.file_type().is_symlink() {
        return false;
    }
    let Ok(target) = std::fs::canonicalize(path) else {
        return true;
    };
    excluded
        .iter()
        .any(|excluded| target.starts_with(excluded) || excluded.starts_with(&target))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fake tree: each directory's entries.
    fn lister<'a>(tree: &'a [(&'a str, &'a [&'a str])]) -> impl FnMut(&Path) -> Vec<OsString> + 'a {
        move |directory: &Path| {
            tree.iter()
                .find(|(path, _)| Path::new(path) == directory)
                .map(|(_, names)| names.iter().map(OsString::from).collect())
                .unwrap_or_default()
        }
    }

    #[test]
    fn everything_is_readable_but_the_excluded_paths_whose_ancestors_are_only_listed() {
        let tree: &[(&str, &[&str])] = &[
            ("/", &["etc", "dev", "home", "usr"]),
            ("/home", &["u", "v"]),
            ("/home/u", &[".config", "project"]),
            ("/home/u/.config", &["pincer", "git"]),
        ];
        let grants = read_grants(
            &["/dev".into(), "/home/u/.config/pincer".into()],
            &mut lister(tree),
        );
        assert_eq!(
            grants.listed,
            [
                PathBuf::from("/"),
                "/home".into(),
                "/home/u".into(),
                "/home/u/.config".into()
            ]
        );
        assert_eq!(
            grants.readable,
            [
                PathBuf::from("/etc"),
                "/home/u/.config/git".into(),
                "/home/u/project".into(),
                "/home/v".into(),
                "/usr".into()
            ]
        );
    }

    #[test]
    fn nothing_excluded_reads_the_whole_tree() {
        let grants = read_grants(&[], &mut lister(&[]));
        assert_eq!(grants.readable, [PathBuf::from("/")]);
        assert!(grants.listed.is_empty());
    }

    #[test]
    fn a_link_into_an_excluded_directory_is_not_granted() {
        let directory = tempfile::tempdir().unwrap();
        let base = directory.path().canonicalize().unwrap();
        std::fs::create_dir_all(base.join("secret/inner")).unwrap();
        std::fs::create_dir_all(base.join("open")).unwrap();
        std::os::unix::fs::symlink(base.join("secret/inner"), base.join("into")).unwrap();
        std::os::unix::fs::symlink(base.join("open"), base.join("elsewhere")).unwrap();
        let excluded = base.join("secret");
        let mut real = |path: &Path| list_directory(path);
        let grants = read_grants(std::slice::from_ref(&excluded), &mut real);
        assert!(grants.readable.contains(&base.join("open")));
        assert!(grants.readable.contains(&base.join("elsewhere")));
        assert!(!grants.readable.contains(&base.join("into")));
        assert!(
            !grants
                .readable
                .iter()
                .any(|path| path.starts_with(&excluded))
        );
        assert!(grants.listed.contains(&base));
    }
}
