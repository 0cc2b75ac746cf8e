//! Who writes to stdin (SPEC §2, "a pipeline loses nothing"): whether the write end of the pipe
//! on stdin is held by a live member of pincer's own pipeline.
//!
//! A shell puts every member of a pipeline (`A | pincer run "…"`) in one process group, and
//! closes its own copies of the pipe once they are started: so a process of pincer's group
//! that holds the pipe open for writing is another member (A, or something A started), and
//! waiting for it loses nothing — A's end closes when A is done. A pipe inherited from a CI
//! runner, cron or a supervisor is held by a process outside the group, or by one of pincer's
//! ancestors (a runner that starts its steps without a group of their own, or a test harness):
//! waiting for those would hang, so they do not count.
//!
//! The only way to find the holders is `/proc`: each process's `fd/*` links name the pipe
//! (`pipe:[INODE]`) and its `fdinfo/*` give the open mode. The scan asks each process's group with
//! one `getpgid` call and reads the descriptors of pincer's group only, nearest pids first; it is
//! bounded by [`MAX_PROCESSES`], [`MAX_GROUP_MEMBERS`] and [`MAX_DESCRIPTORS`], and runs only
//! when it matters (a silent pipe at the end of the window). Without `/proc` nothing is found
//! and stdin is ignored, as before.

use std::collections::HashSet;
use std::fs;
use std::os::fd::AsFd;
use std::time::{Duration, Instant};

/// At most this many processes are looked at (a machine has hundreds to a few thousand).
const MAX_PROCESSES: usize = 200_000;
/// At most this many members of pincer's process group have their descriptors read.
const MAX_GROUP_MEMBERS: usize = 4_096;
/// At most this many descriptors of one process of the group are looked at.
const MAX_DESCRIPTORS: usize = 16_384;
/// Ancestors followed up from pincer (a deeper tree is not a real one).
const MAX_ANCESTORS: usize = 256;

/// What the scan for the writer of stdin found, and what it cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct WriterScan {
    /// The pid of a member of pincer's pipeline holding stdin open for writing, if any.
    pub writer: Option<u32>,
    /// Processes looked at.
    pub processes: usize,
    /// How long the scan took.
    pub elapsed: Duration,
}

/// What kind of file stdin is, as far as waiting for it goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StdinFile {
    /// A regular file (`< file`): everything is there, read it to EOF.
    Regular,
    /// A pipe (FIFO), by inode number (`pipe:[INODE]` in `/proc`).
    Pipe(u64),
    /// A terminal, socket, character device, or what `fstat` could not tell.
    Other,
}

/// What stdin is.
pub(crate) fn stdin_file() -> StdinFile {
    use nix::sys::stat::{SFlag, fstat};
    let stdin = std::io::stdin();
    let Ok(status) = fstat(stdin.as_fd()) else {
        return StdinFile::Other;
    };
    match SFlag::from_bits_truncate(status.st_mode) & SFlag::S_IFMT {
        SFlag::S_IFREG => StdinFile::Regular,
        SFlag::S_IFIFO => StdinFile::Pipe(status.st_ino),
        _ => StdinFile::Other,
    }
}

/// Look through `/proc` for a member of pincer's pipeline holding pipe `inode` open for writing.
pub(crate) fn find_writer(inode: u64) -> WriterScan {
    let started = Instant::now();
    let own_pid = std::process::id();
    let group = nix::unistd::getpgrp();
    let ancestors = ancestors(own_pid);
    let target = format!("pipe:[{inode}]");
    let mut pids: Vec<u32> = fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .take(MAX_PROCESSES)
        .filter_map(|entry| entry.file_name().to_str()?.parse().ok())
        .collect();
    // A shell starts the members of a pipeline one after the other, so the writer's pid is
    // usually just below pincer's: look there first.
    pids.sort_unstable_by_key(|pid| own_pid.wrapping_sub(*pid));
    let writer = pids
        .iter()
        .copied()
        .filter(|pid| *pid != own_pid && !ancestors.contains(pid))
        // One system call per process; only members of the group have their descriptors read.
        .filter(|pid| {
            i32::try_from(*pid).is_ok_and(|raw| {
                nix::unistd::getpgid(Some(nix::unistd::Pid::from_raw(raw))) == Ok(group)
            })
        })
        .take(MAX_GROUP_MEMBERS)
        .find(|pid| holds_for_writing(*pid, &target));
    WriterScan {
        writer,
        processes: pids.len(),
        elapsed: started.elapsed(),
    }
}

/// A process's parent, from `/proc/PID/stat`.
fn parent_of(pid: u32) -> Option<u32> {
    parse_parent(&fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// `PID (COMM) STATE PPID …`; the command name may hold spaces and parentheses, so the fields
/// are counted from the last `)`.
fn parse_parent(stat: &str) -> Option<u32> {
    let after_name = &stat[stat.rfind(')')? + 1..];
    after_name.split_whitespace().nth(1)?.parse().ok()
}

/// pincer's parent, its parent, and so on up to the root.
fn ancestors(pid: u32) -> HashSet<u32> {
    let mut found = HashSet::new();
    let mut current = pid;
    while found.len() < MAX_ANCESTORS {
        match parent_of(current) {
            Some(parent) if parent > 0 && found.insert(parent) => current = parent,
            _ => break,
        }
    }
    found
}

/// Whether process `pid` has `target` (`pipe:[INODE]`) open for writing.
fn holds_for_writing(pid: u32, target: &str) -> bool {
    let Ok(descriptors) = fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    descriptors
        .flatten()
        .take(MAX_DESCRIPTORS)
        .filter(|descriptor| {
            fs::read_link(descriptor.path()).is_ok_and(|link| link.as_os_str() == target)
        })
        .any(|descriptor| {
            let info = format!(
                "/proc/{pid}/fdinfo/{}",
                descriptor.file_name().to_string_lossy()
            );
            fs::read_to_string(info).is_ok_and(|text| opened_for_writing(&text))
        })
}

/// Whether an `fdinfo` text's `flags:` (octal) open the file write-only or read-write.
fn opened_for_writing(fdinfo: &str) -> bool {
    use nix::fcntl::OFlag;
    fdinfo
        .lines()
        .find_map(|line| line.strip_prefix("flags:"))
        .and_then(|flags| i32::from_str_radix(flags.trim(), 8).ok())
        .is_some_and(|flags| {
            let mode = flags & OFlag::O_ACCMODE.bits();
            mode == OFlag::O_WRONLY.bits() || mode == OFlag::O_RDWR.bits()
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write as _;

    #[test]
    fn the_stat_fields_are_counted_from_the_last_parenthesis() {
        assert_eq!(
            parse_parent("4242 (a (b) 9) c) S 17 4242 17 34816 4242 4194560 0"),
            Some(17)
        );
        assert_eq!(parse_parent("garbage"), None);
    }

    #[test]
    fn only_write_only_and_read_write_descriptors_count_as_writers() {
        let info = |flags: &str| format!("pos:\t0\nflags:\t{flags}\nmnt_id:\t15\nino:\t1234\n");
        assert!(!opened_for_writing(&info("02000000")));
        assert!(opened_for_writing(&info("02000001")));
        assert!(opened_for_writing(&info("0100002")));
        assert!(!opened_for_writing("pos:\t0\n"));
    }

    fn inode_of(reader: &std::io::PipeReader) -> u64 {
        nix::sys::stat::fstat(reader.as_fd()).unwrap().st_ino
    }

    #[test]
    fn a_pipe_held_by_this_process_only_has_no_writer_in_the_pipeline() {
        // The process itself is skipped: pincer never waits for its own descriptors.
        let (reader, mut writer) = std::io::pipe().unwrap();
        writer.write_all(b"x").unwrap();
        let scan = find_writer(inode_of(&reader));
        assert_eq!(scan.writer, None, "{scan:?}");
    }

    #[test]
    fn a_child_in_the_same_group_holding_the_write_end_is_found_and_one_outside_is_not() {
        let (reader, writer) = std::io::pipe().unwrap();
        let mut member = std::process::Command::new("sleep")
            .arg("30")
            .stdout(writer.try_clone().unwrap())
            .spawn()
            .unwrap();
        let mut outsider = {
            use std::os::unix::process::CommandExt as _;
            std::process::Command::new("sleep")
                .arg("30")
                .stdout(writer)
                .process_group(0)
                .spawn()
                .unwrap()
        };
        let with_member = find_writer(inode_of(&reader));
        member.kill().unwrap();
        member.wait().unwrap();
        let with_outsider_only = find_writer(inode_of(&reader));
        outsider.kill().unwrap();
        outsider.wait().unwrap();
        assert_eq!(with_member.writer, Some(member.id()), "{with_member:?}");
        assert_eq!(with_outsider_only.writer, None, "{with_outsider_only:?}");
    }
}
