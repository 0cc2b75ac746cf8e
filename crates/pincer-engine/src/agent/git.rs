//! The workspace's git state (SPEC §6.1: the branch for the system prompt, the change counts
//! for the turn's user message), read so that no repository can make pincer run a command
//! (SPEC §10).
//!
//! A repository names programs in its configuration and attributes — filter drivers that
//! `git status` runs on a file whose stat data changed, an fsmonitor hook, a hooks directory —
//! and a command of an earlier run may have written them (`git init` in a workspace that was no
//! repository yet, the cron idiom). So `git` runs here only inside the exec sandbox, read-only
//! and with the network closed, with an emptied environment (no key, no session socket), every
//! setting that runs a program overridden on its command line — those of each filter driver the
//! configuration names, found first by `git config`, which runs nothing — and under a time
//! limit. Where commands cannot be confined at all, there is no summary.

use std::ffi::OsString;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::tools::{ExecProtection, Sandbox, SandboxMode};

/// The state of the workspace's git repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitSummary {
    /// The current branch; `None` on a detached HEAD.
    pub branch: Option<String>,
    /// Tracked files with staged or unstaged changes.
    pub changed: usize,
    /// Untracked files.
    pub untracked: usize,
}

/// How long both `git` calls may take together before the summary is left out.
const GIT_TIMEOUT: Duration = Duration::from_secs(2);

/// Settings that make `git status` (or anything it starts) run a program or reach elsewhere,
/// each set to nothing on the command line, which wins over every configuration file.
const NEUTRAL: [&str; 10] = [
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "core.pager=cat",
    "core.sshCommand=",
    "core.askPass=",
    "core.alternateRefsCommand=",
    "credential.helper=",
    "diff.external=",
    "status.submoduleSummary=false",
    "protocol.allow=never",
];

/// The variables `git` gets: enough to find itself and the user's own configuration.
const PASSED: [&str; 3] = ["PATH", "HOME", "XDG_CONFIG_HOME"];

/// Branch and change counts of the repository at `workspace` (when `workspace/.git` exists),
/// read by `git` confined as `sandbox` says (made read-only here, with the network closed).
/// `None` when git is missing, fails, cannot be confined, or takes longer than two seconds.
/// Blocks the calling thread for at most about that long.
///
/// `protection` is what the caller already knows of the exec sandbox here (the probe remembered
/// for `status`), so that no probe of its own is paid on every run: when it promised more than
/// the launcher can set up, git is refused and there is no summary.
pub fn git_summary(
    workspace: &Path,
    sandbox: &Sandbox,
    protection: Option<&ExecProtection>,
) -> Option<GitSummary> {
    if std::fs::symlink_metadata(workspace.join(".git")).is_err() {
        return None;
    }
    // Never a `git` the repository put on the way (a `.` or `bin` entry of PATH, a workspace
    // directory put first): that one would run outside the sandbox below.
    let roots: Vec<&Path> = std::iter::once(workspace)
        .chain(sandbox.writable_roots.iter().map(PathBuf::as_path))
        .collect();
    let git = crate::tools::program::on_path("git", &roots)?;
    let deadline = Instant::now() + GIT_TIMEOUT;
    let mut sandbox = sandbox.clone();
    if sandbox.mode != SandboxMode::ReadOnly {
        sandbox.mode = SandboxMode::ReadOnly;
    }
    sandbox.exec.network = false;
    sandbox.exec.egress = crate::tools::EgressHandle::default();
    sandbox.exec.made_hidden.clear();
    sandbox.exec.pid_namespace = false;
    // Reading the configuration runs nothing (includes are files, not programs), so it needs no
    // sandbox and costs no launch.
    let drivers = run(
        None,
        (&git, workspace),
        &[
            "config",
            "--null",
            "--name-only",
            "--get-regexp",
            "^filter\\.",
        ],
        deadline,
    );
    // `git config` exits 1 when nothing matches: no drivers.
    let drivers = drivers.map(|(_, output)| output).unwrap_or_default();
    let mut arguments: Vec<String> = vec!["--no-optional-locks".into(), "--no-pager".into()];
    for setting in NEUTRAL
        .iter()
        .map(|setting| (*setting).to_owned())
        .chain(filter_overrides(&drivers))
    {
        arguments.push("-c".into());
        arguments.push(setting);
    }
    arguments.extend(
        [
            "status",
            "--porcelain=v1",
            "--branch",
            "--ignore-submodules=all",
        ]
        .map(str::to_owned),
    );
    let arguments: Vec<&str> = arguments.iter().map(String::as_str).collect();
    let (succeeded, output) = run(
        Some((&sandbox, protection)),
        (&git, workspace),
        &arguments,
        deadline,
    )?;
    if !succeeded {
        return None;
    }
    parse_git_status(&String::from_utf8_lossy(&output))
}

/// pincer's environment cut down to [`PASSED`], plus what keeps git quiet and unlocked.
fn environment() -> Vec<(OsString, OsString)> {
    let mut environment: Vec<(OsString, OsString)> = PASSED
        .iter()
        .filter_map(|name| std::env::var_os(name).map(|value| ((*name).into(), value)))
        .collect();
    for (name, value) in [
        ("LC_ALL", "C"),
        ("GIT_OPTIONAL_LOCKS", "0"),
        ("GIT_TERMINAL_PROMPT", "0"),
        ("GIT_PAGER", "cat"),
    ] {
        environment.push((name.into(), value.into()));
    }
    environment
}

/// `-c` values that take every program away from each filter driver that `listed` (the output
/// of `git config --null --name-only --get-regexp '^filter\.'`) names.
fn filter_overrides(listed: &[u8]) -> Vec<String> {
    let mut drivers: Vec<String> = Vec::new();
    for key in listed.split(|byte| *byte == 0) {
        let key = String::from_utf8_lossy(key);
        if let Some(rest) = key.strip_prefix("filter.")
            && let Some((driver, _)) = rest.rsplit_once('.')
            && !driver.is_empty()
            && !drivers.iter().any(|known| known == driver)
        {
            drivers.push(driver.to_owned());
        }
    }
    drivers
        .iter()
        .flat_map(|driver| {
            [
                format!("filter.{driver}.clean="),
                format!("filter.{driver}.smudge="),
                format!("filter.{driver}.process="),
                format!("filter.{driver}.required=false"),
            ]
        })
        .collect()
}

/// Run `git ARGUMENTS` (`git` the program found) in `workspace` until `deadline`, confined as
/// `sandbox` says (or, for a call that runs no program of the repository's, not): whether it
/// succeeded, and its stdout. `None` when it could not start, could not be confined, or ran out
/// of time.
fn run(
    sandbox: Option<(&Sandbox, Option<&ExecProtection>)>,
    (git, workspace): (&Path, &Path),
    arguments: &[&str],
    deadline: Instant,
) -> Option<(bool, Vec<u8>)> {
    let arguments: Vec<OsString> = arguments.iter().map(OsString::from).collect();
    let environment = environment();
    let directory = workspace.to_path_buf();
    let prepare = move |mut command: std::process::Command| {
        command
            .env_clear()
            .envs(environment.iter().map(|(name, value)| (name, value)))
            .current_dir(directory)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        command.spawn()
    };
    let mut child = match sandbox {
        Some((sandbox, protection)) => {
            crate::tools::spawn_as(sandbox, protection, git.as_os_str(), &arguments, prepare)
                .ok()?
                .ok()?
        }
        None => {
            use std::os::unix::process::CommandExt as _;
            let mut command = std::process::Command::new(git);
            command.args(&arguments).process_group(0);
            prepare(command).ok()?
        }
    };
    // Read on a thread so a large status cannot fill the pipe and stall the child while this
    // thread waits.
    let mut stdout = child.stdout.take()?;
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let mut output = Vec::new();
        let result = stdout.read_to_end(&mut output).map(|_| output);
        let _ = sender.send(result);
    });
    let output = receiver
        .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        .ok()
        .and_then(Result::ok);
    // The output ended, so git is exiting: poll for its status briefly, then less often (a
    // fixed 5 ms sleep here used to add up to 5 ms to every turn in a repository).
    let mut pause = Duration::from_micros(50);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if output.is_some() && Instant::now() < deadline => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(5));
            }
            _ => break None,
        }
    };
    if status.is_none() {
        let _ = child.kill();
        let _ = child.wait();
    }
    Some((status?.success(), output?))
}

/// Parse `git status --porcelain=v1 --branch`.
fn parse_git_status(output: &str) -> Option<GitSummary> {
    let mut lines = output.lines();
    let header = lines.next()?.strip_prefix("## ")?;
    let branch = if header.starts_with("HEAD (no branch)") {
        None
    } else {
        let name = header
            .strip_prefix("No commits yet on ")
            .or_else(|| header.strip_prefix("Initial commit on "))
            .unwrap_or(header);
        let end = [name.find("..."), name.find(" [")]
            .into_iter()
            .flatten()
            .min()
            .unwrap_or(name.len());
        Some(name[..end].to_owned())
    };
    let mut summary = GitSummary {
        branch,
        changed: 0,
        untracked: 0,
    };
    for line in lines {
        if line.starts_with("??") {
            summary.untracked += 1;
        } else if !line.starts_with("!!") && !line.is_empty() {
            summary.changed += 1;
        }
    }
    Some(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn porcelain_status_is_counted_and_the_branch_read() {
        let output = "## main...origin/main [ahead 1]\n M src/lib.rs\nA  new.rs\nR  a -> b\n?? scratch.txt\n?? tmp/\n";
        assert_eq!(
            parse_git_status(output),
            Some(GitSummary {
                branch: Some("main".to_owned()),
                changed: 3,
                untracked: 2,
            })
        );
        assert_eq!(
            parse_git_status("## HEAD (no branch)\n"),
            Some(GitSummary {
                branch: None,
                changed: 0,
                untracked: 0
            })
        );
        assert_eq!(
            parse_git_status("## No commits yet on trunk\n?? a\n")
                .and_then(|summary| summary.branch),
            Some("trunk".to_owned())
        );
        assert_eq!(
            parse_git_status("## feature [gone]\n").and_then(|summary| summary.branch),
            Some("feature".to_owned())
        );
        assert_eq!(parse_git_status(""), None);
        assert_eq!(parse_git_status("garbage\n"), None);
    }

    fn sandbox(workspace: &Path) -> Sandbox {
        let home = workspace.join(".home");
        Sandbox::new(
            SandboxMode::ReadOnly,
            workspace,
            &[],
            &pincer_base::paths::Paths::under_home(&home),
            None,
        )
    }

    #[test]
    fn git_summary_is_none_outside_a_repository() {
        let workspace = tempfile::tempdir().unwrap();
        assert_eq!(
            git_summary(workspace.path(), &sandbox(workspace.path()), None),
            None
        );
    }

    #[test]
    fn every_filter_driver_of_the_configuration_is_neutralised() {
        let listed = b"filter.lfs.clean\0filter.lfs.smudge\0filter.a.b.process\0filter.x\0\
                       core.bare\0filter.lfs.required\0";
        let overrides = filter_overrides(listed);
        for expected in [
            "filter.lfs.clean=",
            "filter.lfs.smudge=",
            "filter.lfs.process=",
            "filter.lfs.required=false",
            "filter.a.b.clean=",
            "filter.a.b.process=",
        ] {
            assert!(
                overrides.iter().any(|value| value == expected),
                "{expected}: {overrides:?}"
            );
        }
        // One set per driver, nothing for keys of other sections.
        assert_eq!(overrides.len(), 8);
        assert!(!overrides.iter().any(|value| value.contains("core")));
    }

    #[test]
    fn git_summary_reads_a_real_repository() {
        let workspace = tempfile::tempdir().unwrap();
        let initialized = std::process::Command::new("git")
            .args(["init", "--quiet", "--initial-branch=trunk"])
            .arg(workspace.path())
            .status()
            .is_ok_and(|status| status.success());
        if !initialized {
            // No git on this machine: the function's None path is covered above.
            return;
        }
        std::fs::write(workspace.path().join("notes.txt"), "x").unwrap();
        assert_eq!(
            git_summary(workspace.path(), &sandbox(workspace.path()), None),
            Some(GitSummary {
                branch: Some("trunk".to_owned()),
                changed: 0,
                untracked: 1,
            })
        );
    }
}
