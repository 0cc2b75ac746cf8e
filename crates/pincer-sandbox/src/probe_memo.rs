//! What a report of the exec sandbox (`status`, `--dry-run`) remembers of its last probe.
//!
//! The launcher's probe starts a process that enters namespaces (SPEC §10), which costs more
//! than the rest of `pincer status` together. A probe that found the full protection (the
//! namespace through the launcher, and Landlock) is remembered in the state directory with a
//! fingerprint of everything its outcome depends on that can change while pincer stays the same:
//! the boot, this build and its launcher files, the namespaces, credentials, seccomp state and
//! security label pincer runs with, the kernel's switches for user namespaces, the AppArmor
//! policy's revision, and the temp dir the probe covers. A report reuses it only while the
//! fingerprint, read again each time, is unchanged; any difference, or anything it cannot read,
//! means a fresh probe.
//!
//! Only full protection is remembered, and only reports use it: commands always start through
//! the launcher, which sets the namespace up again and fails closed. A memo that is stale or
//! written by someone else can make a report claim protection that the next command then does
//! not get — that command is refused, never run less confined — and can never make a report
//! hide a protection or make pincer choose a weaker one.

use std::fmt::Write as _;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The memo's file in the state directory.
pub(super) const FILE: &str = "exec-probe.json";

/// A remembered probe.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Memo {
    /// What the outcome depended on when it was probed ([`fingerprint`]).
    pub fingerprint: String,
    /// When it was probed (Unix milliseconds).
    pub probed_at_ms: u64,
    /// The launcher commands started through.
    pub launcher: PathBuf,
    /// Whether Landlock was only partially enforced (an older kernel ABI).
    pub landlock_partial: bool,
}

/// The memo in `state_dir` when its fingerprint is `fingerprint`.
pub(super) fn recall(state_dir: &Path, fingerprint: &str) -> Option<Memo> {
    let text = std::fs::read(state_dir.join(FILE)).ok()?;
    let memo: Memo = serde_json::from_slice(&text).ok()?;
    (memo.fingerprint == fingerprint).then_some(memo)
}

/// Remember `memo` in `state_dir`, if it can be written: a report that cannot remember simply
/// probes again next time. Not synced: a memo lost to a power cut goes with the boot it was
/// made for.
pub(super) fn remember(state_dir: &Path, memo: &Memo) {
    let Ok(text) = serde_json::to_vec(memo) else {
        return;
    };
    if crate::fs::create_dir_all(state_dir).is_ok() {
        crate::fs::sweep_staging(state_dir);
        let _ = crate::fs::replace_unsynced(&state_dir.join(FILE), &text);
    }
}

/// The namespaces pincer runs in (`/proc/self/ns/*`): another container, or a process moved
/// into other namespaces, has other ids.
const NAMESPACES: [&str; 7] = ["user", "mnt", "pid", "net", "ipc", "uts", "cgroup"];

/// The lines of `/proc/self/status` that decide what the launcher may do: ids, capabilities,
/// `no_new_privs` and seccomp filters.
const STATUS_FIELDS: [&str; 11] = [
    "Uid:",
    "Gid:",
    "Groups:",
    "CapInh:",
    "CapPrm:",
    "CapEff:",
    "CapBnd:",
    "CapAmb:",
    "NoNewPrivs:",
    "Seccomp:",
    "Seccomp_filters:",
];

/// Files that may be missing or unreadable (a kernel without the switch, no securityfs): their
/// absence is part of the fingerprint too.
const SWITCHES: [&str; 7] = [
    "/proc/sys/user/max_user_namespaces",
    "/proc/sys/user/max_mnt_namespaces",
    "/proc/sys/kernel/unprivileged_userns_clone",
    "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
    "/proc/sys/kernel/apparmor_restrict_unprivileged_unconfined",
    "/proc/self/attr/current",
    "/sys/kernel/security/apparmor/revision",
];

/// Everything the probe of `launcher` (covering `temp`) depends on, read now; `None` when a
/// part that must be known (the boot, pincer's own executable and the launcher, the namespaces,
/// the process status) cannot be read.
pub(super) fn fingerprint(answer: &str, launcher: &Path, temp: &Path) -> Option<String> {
    let mut text = String::new();
    let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
    let _ = writeln!(text, "boot {}", boot.trim());
    let _ = writeln!(text, "build {answer}");
    let exe = std::env::current_exe().ok()?;
    for file in [exe.as_path(), launcher] {
        let _ = writeln!(text, "file {} {}", file.display(), identity(file)?);
    }
    for namespace in NAMESPACES {
        let link = std::fs::read_link(format!("/proc/self/ns/{namespace}")).ok()?;
        let _ = writeln!(text, "ns {}", link.display());
    }
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    for line in status.lines() {
        if STATUS_FIELDS.iter().any(|field| line.starts_with(field)) {
            let _ = writeln!(
                text,
                "status {}",
                line.split_whitespace().collect::<Vec<_>>().join(" ")
            );
        }
    }
    for switch in SWITCHES {
        let value = std::fs::read_to_string(switch);
        let value = value
            .as_deref()
            .map_or("-", |value| value.trim_end_matches(['\n', '\0']));
        let _ = writeln!(text, "switch {switch} {value}");
    }
    // Which directory it is, not what it holds: files come and go in a temp dir all the time.
    let temp_identity = std::fs::metadata(temp).map_or_else(
        |_| "-".to_owned(),
        |metadata| {
            format!(
                "{}:{} {:o}",
                metadata.dev(),
                metadata.ino(),
                metadata.mode()
            )
        },
    );
    let _ = writeln!(text, "temp {} {temp_identity}", temp.display());
    Some(text)
}

/// Which file `path` is and what it holds, as far as its metadata tells: replaced, rebuilt or
/// touched, it reads differently.
fn identity(path: &Path) -> Option<String> {
    let metadata = std::fs::metadata(path).ok()?;
    Some(format!(
        "{}:{} {} {}.{} {}.{}",
        metadata.dev(),
        metadata.ino(),
        metadata.size(),
        metadata.mtime(),
        metadata.mtime_nsec(),
        metadata.ctime(),
        metadata.ctime_nsec()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_memo_is_recalled_only_under_the_same_fingerprint() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        let memo = Memo {
            fingerprint: "boot 1\n".to_owned(),
            probed_at_ms: 7,
            launcher: PathBuf::from("/usr/bin/pincer-exec-sandbox"),
            landlock_partial: false,
        };
        assert_eq!(recall(&state, "boot 1\n"), None);
        remember(&state, &memo);
        assert_eq!(recall(&state, "boot 1\n"), Some(memo));
        assert_eq!(recall(&state, "boot 2\n"), None);
        // A damaged memo is no memo.
        std::fs::write(state.join(FILE), b"{\"fingerprint\": ").unwrap();
        assert_eq!(recall(&state, "boot 1\n"), None);
    }

    #[test]
    fn the_fingerprint_changes_with_the_launcher_and_the_temp_dir() {
        let dir = tempfile::tempdir().unwrap();
        let launcher = dir.path().join("launcher");
        std::fs::write(&launcher, b"one").unwrap();
        let temp = dir.path().join("tmp");
        std::fs::create_dir(&temp).unwrap();
        let first = fingerprint("answer", &launcher, &temp).unwrap();
        assert_eq!(fingerprint("answer", &launcher, &temp).unwrap(), first);
        for line in [
            "boot ",
            "build answer",
            "ns user:[",
            "ns mnt:[",
            "status Seccomp:",
        ] {
            assert!(first.contains(line), "{line}: {first}");
        }
        assert_ne!(fingerprint("other build", &launcher, &temp).unwrap(), first);
        assert_ne!(fingerprint("answer", &launcher, dir.path()).unwrap(), first);
        // Files coming and going in the temp dir change nothing.
        std::fs::write(temp.join("scratch"), b"x").unwrap();
        assert_eq!(fingerprint("answer", &launcher, &temp).unwrap(), first);
        // The launcher rebuilt in place: same path, other contents.
        std::fs::write(&launcher, b"three").unwrap();
        assert_ne!(fingerprint("answer", &launcher, &temp).unwrap(), first);
        std::fs::remove_file(&launcher).unwrap();
        assert_eq!(fingerprint("answer", &launcher, &temp), None);
    }
}
