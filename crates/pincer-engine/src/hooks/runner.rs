//! Running one hook command: `sh -c COMMAND` in the workspace, in a process group of its own,
//! confined as `exec` commands are (SPEC §10, [`crate::tools::spawn_confined`]) unless the hook
//! opted out, with the environment `exec` commands get (no credential variables) plus
//! `CLAUDE_PROJECT_DIR`. The input goes to its stdin, stdout and stderr are read apart. A
//! timeout or a cancellation kills the whole group; a hook that exits while something it
//! started still holds its output gets a short grace period, then what it wrote is taken as is.

use std::ffi::OsString;
use std::os::unix::process::ExitStatusExt as _;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::time::{Duration, Instant};

use nix::unistd::Pid;
use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWriteExt as _};
use tokio_util::sync::CancellationToken;

use crate::tools::Sandbox;
use crate::tools::exec::GroupKiller;

/// Bytes of stdout and of stderr kept (the rest is read and dropped).
const MAX_OUTPUT_BYTES: usize = 1024 * 1024;
/// How long output is still read after the hook exits while something else holds its pipes.
const PIPE_GRACE: Duration = Duration::from_millis(250);

/// What to run.
#[derive(Debug, Clone)]
pub struct Launch {
    /// The command line.
    pub command: String,
    /// Where (the workspace).
    pub directory: PathBuf,
    /// The confinement and the environment commands start with.
    pub sandbox: Sandbox,
    /// Set on top of the sandbox's environment.
    pub environment: Vec<(OsString, OsString)>,
    /// The trace context the hook continues.
    pub trace: crate::trace::ChildTrace,
    /// Written to its stdin, which is then closed.
    pub stdin: Vec<u8>,
    /// Killed after this long.
    pub timeout: Duration,
}

/// How it ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    /// Exited with this code.
    Exited(i32),
    /// Killed by this signal (not by pincer).
    Signalled(i32),
    /// Ran past its timeout and was killed.
    TimedOut(Duration),
    /// The run was cancelled and the hook killed.
    Cancelled,
    /// It could not be started (why).
    NotStarted(String),
}

/// One finished hook.
#[derive(Debug, Clone)]
pub struct Run {
    pub ending: Ending,
    pub stdout: String,
    pub stderr: String,
    pub duration: Duration,
    /// What pincer has to say of the run beside its outcome, as warnings: the parts of an SDK
    /// callback's answer it does not apply.
    pub notes: Vec<String>,
}

impl Ending {
    /// The exit code, when it exited.
    pub fn code(&self) -> Option<i32> {
        match self {
            Ending::Exited(code) => Some(*code),
            _ => None,
        }
    }
}

/// Run `launch` to its end (or its timeout, or `cancel`).
pub async fn run(launch: Launch, cancel: CancellationToken) -> Run {
    let started = Instant::now();
    let mut child = match spawn(&launch) {
        Ok(child) => child,
        Err(reason) => {
            return Run {
                ending: Ending::NotStarted(reason.to_string()),
                stdout: String::new(),
                stderr: String::new(),
                duration: started.elapsed(),
                notes: Vec::new(),
            };
        }
    };
    let mut killer = GroupKiller {
        group: child
            .id()
            .and_then(|id| i32::try_from(id).ok())
            .map(Pid::from_raw),
    };
    let stdin = child.stdin.take();
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let mut out = Vec::new();
    let mut err = Vec::new();
    let ending = {
        let feed = async {
            if let Some(mut pipe) = stdin {
                // A hook that does not read its input may exit first: the broken pipe is fine.
                let _ = pipe.write_all(&launch.stdin).await;
            }
        };
        let io = async { tokio::join!(feed, drain(stdout, &mut out), drain(stderr, &mut err)) };
        tokio::pin!(io);
        let deadline = tokio::time::sleep(launch.timeout);
        let grace = tokio::time::sleep(Duration::from_secs(86_400));
        tokio::pin!(deadline, grace);
        let mut io_done = false;
        let mut status: Option<std::io::Result<ExitStatus>> = None;
        loop {
            if io_done && let Some(status) = status.take() {
                break exited(status);
            }
            tokio::select! {
                _ = &mut io, if !io_done => io_done = true,
                result = child.wait(), if status.is_none() => {
                    status = Some(result);
                    grace.as_mut().reset(tokio::time::Instant::now() + PIPE_GRACE);
                },
                () = &mut deadline, if status.is_none() => break Ending::TimedOut(launch.timeout),
                () = cancel.cancelled(), if status.is_none() => break Ending::Cancelled,
                () = &mut grace, if status.is_some() => {
                    if let Some(status) = status.take() {
                        break exited(status);
                    }
                },
            }
        }
    };
    match ending {
        Ending::TimedOut(_) | Ending::Cancelled => {
            killer.kill();
            let _ = child.wait().await;
        }
        // Finished by itself: what it left running on purpose stays.
        _ => killer.group = None,
    }
    Run {
        ending,
        stdout: String::from_utf8_lossy(&out).into_owned(),
        stderr: String::from_utf8_lossy(&err).into_owned(),
        duration: started.elapsed(),
        notes: Vec::new(),
    }
}

fn exited(status: std::io::Result<ExitStatus>) -> Ending {
    match status {
        Ok(status) => match (status.code(), status.signal()) {
            (Some(code), _) => Ending::Exited(code),
            (None, Some(signal)) => Ending::Signalled(signal),
            (None, None) => Ending::NotStarted("it ended without an exit status".to_owned()),
        },
        Err(error) => Ending::NotStarted(format!("waiting for it failed: {error}")),
    }
}

/// Read `pipe` to its end into `into`, keeping the first [`MAX_OUTPUT_BYTES`].
async fn drain(pipe: Option<impl AsyncRead + Unpin>, into: &mut Vec<u8>) {
    let Some(mut pipe) = pipe else { return };
    let mut buffer = vec![0_u8; 16 * 1024];
    loop {
        match pipe.read(&mut buffer).await {
            Ok(0) | Err(_) => break,
            Ok(count) => {
                let room = MAX_OUTPUT_BYTES.saturating_sub(into.len());
                into.extend_from_slice(&buffer[..count.min(room)]);
            }
        }
    }
}

/// Why a hook's shell did not start.
#[derive(Debug, thiserror::Error)]
enum SpawnError {
    /// The sandbox refused to start it.
    #[error(transparent)]
    Refused(#[from] crate::tools::SetupError),
    /// The system could not start it.
    #[error("sh in {}: {source}", directory.display())]
    Start {
        directory: std::path::PathBuf,
        source: std::io::Error,
    },
}

/// Start the shell as the sandbox says, with piped stdio, in its own process group.
fn spawn(launch: &Launch) -> Result<tokio::process::Child, SpawnError> {
    let arguments = [OsString::from("-c"), OsString::from(&launch.command)];
    let base = launch.sandbox.exec.environment.clone();
    // The span that starts it, when the run is traced (SPEC §17); the hook's own variables win.
    let mut environment = launch.trace.environment();
    environment.extend(launch.environment.iter().cloned());
    let directory = launch.directory.clone();
    // The confined start may happen on a thread of its own: it needs the runtime's handle to
    // register the child.
    let runtime = tokio::runtime::Handle::current();
    // Hooks are the user's own commands: confined like `exec`, but a hook that reports to a
    // chat or a tracker keeps the network — unless the user limited it by name (SPEC §20):
    // then hooks reach the hosts the rules allow, as commands do.
    let mut sandbox = launch.sandbox.clone();
    if sandbox.exec.network_rules.is_empty() {
        sandbox.exec.network = true;
    }
    // The shell from a directory no repository chose (not a `sh` at `.` on PATH).
    let roots: Vec<&std::path::Path> = sandbox
        .writable_roots
        .iter()
        .map(std::path::PathBuf::as_path)
        .collect();
    let shell = crate::tools::program::shell(&roots);
    let spawned = crate::tools::spawn_confined(
        &sandbox,
        shell.as_os_str(),
        &arguments,
        move |mut command| {
            let _entered = runtime.enter();
            crate::tools::exec::in_environment(
                &mut command,
                base.as_deref().map(Vec::as_slice),
                &environment,
                &directory,
            );
            tokio::process::Command::from(command)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .kill_on_drop(true)
                .spawn()
        },
    )?;
    spawned.map_err(|source| SpawnError::Start {
        directory: launch.directory.clone(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn launch(command: &str, timeout: Duration) -> Launch {
        let directory = std::env::temp_dir();
        Launch {
            command: command.to_owned(),
            sandbox: Sandbox::unrestricted(&directory),
            directory,
            environment: vec![("HOOK_TEST".into(), "yes".into())],
            trace: crate::trace::ChildTrace::default(),
            stdin: b"{\"hello\": 1}".to_vec(),
            timeout,
        }
    }

    #[tokio::test]
    async fn stdin_goes_in_and_stdout_and_stderr_come_back_apart_with_the_exit_code() {
        let run = run(
            launch(
                "cat; echo \" $HOOK_TEST\"; echo oops >&2; exit 3",
                Duration::from_secs(10),
            ),
            CancellationToken::new(),
        )
        .await;
        assert_eq!(run.ending, Ending::Exited(3));
        assert_eq!(run.stdout, "{\"hello\": 1} yes\n");
        assert_eq!(run.stderr, "oops\n");
    }

    #[tokio::test]
    async fn a_hook_past_its_timeout_is_killed_with_what_it_started() {
        let started = Instant::now();
        let run = run(
            launch("sleep 30 & sleep 30", Duration::from_millis(300)),
            CancellationToken::new(),
        )
        .await;
        assert_eq!(run.ending, Ending::TimedOut(Duration::from_millis(300)));
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    #[tokio::test]
    async fn a_cancellation_kills_it_at_once() {
        let cancel = CancellationToken::new();
        let trigger = cancel.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(100)).await;
            trigger.cancel();
        });
        let run = run(launch("sleep 30", Duration::from_secs(30)), cancel).await;
        assert_eq!(run.ending, Ending::Cancelled);
        assert!(run.duration < Duration::from_secs(5));
    }

    #[tokio::test]
    async fn a_background_process_holding_the_pipe_does_not_hold_the_hook() {
        let run = run(
            launch("echo done; sleep 5 &", Duration::from_secs(10)),
            CancellationToken::new(),
        )
        .await;
        assert_eq!(run.ending, Ending::Exited(0));
        assert_eq!(run.stdout, "done\n");
        assert!(run.duration < Duration::from_secs(3), "{:?}", run.duration);
    }
}
