//! Running a CLI child under supervision.
//!
//! The child gets a process group of its own, an environment built from scratch, stdin from a
//! pipe (the prompt) or /dev/null, and its stdout read line by line; every line goes to the
//! caller as it arrives. The idle watchdog (no stdout line for `idle`), the wall-clock
//! `--timeout`, SIGINT and SIGTERM kill the whole group with SIGKILL, so nothing the child
//! started outlives the run. After a normal exit the group is killed too: a grandchild still
//! holding the pipe open must neither hang pincer nor stay behind.
//!
//! With a cassette (SPEC §15, [`Tape`]): recording runs the child as usual and appends its
//! stdout lines (with their time offsets), its stderr tail and its exit status; replaying starts
//! no process at all and feeds the recorded lines to the same handler, then ends as recorded.

use std::ffi::OsString;
use std::ops::ControlFlow;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncReadExt as _, AsyncWriteExt as _, BufReader};

use crate::cancel::{CancelReason, Cancellation};
use crate::cassette::{
    Cassette, ChildInteraction, Chunk, End, EndReason, Line, Playback, Step, Wait,
};

/// stderr bytes kept (the tail) for error messages.
const STDERR_KEEP: usize = 64 * 1024;
/// How long stdout is still read after the child exited while something else holds the pipe.
const EXIT_GRACE: Duration = Duration::from_millis(300);

/// How the child run ended.
#[derive(Debug)]
pub enum ChildEnd {
    /// It exited (or was killed by something else); `code` is `None` for a signal death.
    Exited {
        /// Exit code.
        code: Option<i32>,
        /// The tail of its stderr.
        stderr: String,
    },
    /// No output for longer than the idle limit; the group was killed.
    Idle {
        /// The limit.
        after: Duration,
        /// The tail of its stderr.
        stderr: String,
    },
    /// The timeout or a signal; the group was killed.
    Cancelled(CancelReason),
    /// The line handler asked to stop (a session write failed); the group was killed.
    Stopped,
    /// Replaying, the cassette has no run for this request; or recording, the cassette cannot
    /// be written. The message says which (with a diff for a miss).
    Cassette(String),
}

/// What to start.
pub struct Spawn<'a> {
    /// Executable (a name on `PATH` or a path).
    pub program: &'a str,
    /// Arguments.
    pub args: &'a [String],
    /// The complete environment.
    pub env: &'a [(OsString, OsString)],
    /// Working directory.
    pub cwd: &'a Path,
    /// Bytes for stdin, or `None` for /dev/null.
    pub stdin: Option<&'a [u8]>,
    /// The trace context the child continues: the model call's span, when the run is traced.
    pub trace: &'a crate::trace::ChildTrace,
    /// The cassette to record the run to or replay it from.
    pub tape: Option<Tape<'a>>,
}

/// A child run's place in a cassette.
#[derive(Debug, Clone, Copy)]
pub struct Tape<'a> {
    /// The cassette.
    pub cassette: &'a Cassette,
    /// `claude-cli` / `codex-cli`.
    pub provider: &'a str,
    /// pincer's model id for the child.
    pub model: &'a str,
    /// Files written for the child that are part of what it is asked (the system prompt file):
    /// recorded and compared by name and text.
    pub files: &'a [&'a Path],
}

/// Run the child; `on_line` sees each stdout line (without its newline) as it arrives. The run's
/// cancellation (`--timeout`, SIGINT, SIGTERM, watched by the caller) kills the group.
pub async fn run(
    spawn: &Spawn<'_>,
    idle: Duration,
    cancel: &Cancellation,
    on_line: &mut dyn FnMut(&str) -> ControlFlow<()>,
) -> std::io::Result<ChildEnd> {
    let Some(tape) = spawn.tape else {
        return supervise(spawn, idle, cancel, on_line).await;
    };
    let request = recorded_request(spawn, tape.files);
    if tape.cassette.is_replay() {
        return Ok(replay(tape, &request, idle, cancel, on_line).await);
    }
    let started = Instant::now();
    let since_start = || u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    let mut lines = Vec::new();
    let end = supervise(spawn, idle, cancel, &mut |line| {
        lines.push(Chunk::text(since_start(), line));
        on_line(line)
    })
    .await?;
    let (reason, code, stderr) = match &end {
        ChildEnd::Exited { code, stderr } => (EndReason::Exit, *code, stderr),
        ChildEnd::Idle { stderr, .. } => (EndReason::Idle, None, stderr),
        // Nothing to replay: the run was cut short by this process, not by the child.
        ChildEnd::Cancelled(_) | ChildEnd::Stopped | ChildEnd::Cassette(_) => return Ok(end),
    };
    let line = Line::Child(ChildInteraction {
        provider: tape.provider.to_owned(),
        model: tape.model.to_owned(),
        request,
        lines,
        stderr: stderr.clone(),
        end: End {
            ms: since_start(),
            reason,
            code,
            message: None,
        },
    });
    Ok(match tape.cassette.write(line, &[]) {
        Ok(()) => end,
        Err(error) => ChildEnd::Cassette(error.to_string()),
    })
}

/// What a child run is asked, as a cassette records it: the arguments after the program, stdin,
/// and the text of the request's files by name.
fn recorded_request(spawn: &Spawn<'_>, files: &[&Path]) -> Value {
    let files: serde_json::Map<String, Value> = files
        .iter()
        .map(|path| {
            let name = path
                .file_name()
                .map_or_else(|| path.to_string_lossy(), |name| name.to_string_lossy());
            let text = std::fs::read(path)
                .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
                .unwrap_or_default();
            (name.into_owned(), Value::String(text))
        })
        .collect();
    json!({
        "argv": spawn.args,
        "stdin": spawn.stdin.map(|bytes| String::from_utf8_lossy(bytes).into_owned()),
        "files": files,
    })
}

/// A recorded run fed to `on_line`, ending as it ended; no process is started.
async fn replay(
    tape: Tape<'_>,
    request: &Value,
    idle: Duration,
    cancel: &Cancellation,
    on_line: &mut dyn FnMut(&str) -> ControlFlow<()>,
) -> ChildEnd {
    let recorded = match tape.cassette.take_child(tape.provider, request) {
        Ok(recorded) => recorded,
        Err(miss) => return ChildEnd::Cassette(miss.0),
    };
    let mut playback = Playback::new(&recorded.lines, &recorded.end, tape.cassette.paced());
    while let Some(step) = playback.next_step() {
        let at = match &step {
            Step::Chunk { at, .. } | Step::End { at, .. } => *at,
        };
        match playback.wait(at, idle, &cancel.token).await {
            Wait::Ready => {}
            Wait::Idle => {
                return ChildEnd::Idle {
                    after: idle,
                    stderr: recorded.stderr,
                };
            }
            Wait::Cancelled => {
                return ChildEnd::Cancelled(cancel.reason().unwrap_or(CancelReason::Interrupt));
            }
        }
        match step {
            Step::Chunk { bytes, .. } => {
                if on_line(&String::from_utf8_lossy(&bytes)).is_break() {
                    return ChildEnd::Stopped;
                }
            }
            Step::End { end, .. } if end.reason == EndReason::Idle => {
                return ChildEnd::Idle {
                    after: idle,
                    stderr: recorded.stderr,
                };
            }
            Step::End { end, .. } => {
                return ChildEnd::Exited {
                    code: end.code,
                    stderr: recorded.stderr,
                };
            }
        }
    }
    ChildEnd::Exited {
        code: None,
        stderr: recorded.stderr,
    }
}

/// The stderr collected, waiting briefly for a grandchild that still holds the pipe.
async fn stderr_text(task: Option<tokio::task::JoinHandle<String>>) -> String {
    match task {
        Some(task) => tokio::time::timeout(EXIT_GRACE, task)
            .await
            .ok()
            .and_then(Result::ok)
            .unwrap_or_default(),
        None => String::new(),
    }
}

fn kill_group(group: Option<u32>) {
    if let Some(group) = group.and_then(|id| i32::try_from(id).ok()) {
        let _ = killpg(Pid::from_raw(group), Signal::SIGKILL);
    }
}

/// Start `spawn`'s child in a process group of its own, with its stdin written and its stderr
/// kept (the last [`STDERR_KEEP`] bytes) on tasks of their own.
fn start(
    spawn: &Spawn<'_>,
) -> std::io::Result<(
    tokio::process::Child,
    Option<tokio::task::JoinHandle<String>>,
)> {
    // A bare name is looked up on the child's PATH, but never in a directory the repository
    // chose (`.`, a relative entry, the workspace's own `bin/`): `crate::tools::program`.
    let program = if spawn.program.contains('/') {
        std::path::PathBuf::from(spawn.program)
    } else {
        let search = spawn
            .env
            .iter()
            .find(|(name, _)| name == "PATH")
            .map(|(_, value)| value.as_os_str());
        crate::tools::program::find(spawn.program, search, &[spawn.cwd])
            .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound))?
    };
    let mut command = tokio::process::Command::new(program);
    command
        .args(spawn.args)
        .env_clear()
        .envs(spawn.env.iter().map(|(name, value)| (name, value)))
        // The model call's span, when the run is traced (SPEC §17).
        .envs(spawn.trace.environment())
        .current_dir(spawn.cwd)
        .process_group(0)
        .stdin(if spawn.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let mut child = command.spawn()?;
    if let (Some(bytes), Some(mut pipe)) = (spawn.stdin, child.stdin.take()) {
        let bytes = bytes.to_vec();
        // A child that exits without reading its stdin must not fail the run (EPIPE).
        tokio::spawn(async move {
            let _ = pipe.write_all(&bytes).await;
            let _ = pipe.shutdown().await;
        });
    }
    let stderr_task = child.stderr.take().map(|mut pipe| {
        tokio::spawn(async move {
            let mut kept: Vec<u8> = Vec::new();
            let mut buffer = [0_u8; 8192];
            while let Ok(read) = pipe.read(&mut buffer).await {
                if read == 0 {
                    break;
                }
                kept.extend_from_slice(&buffer[..read]);
                if kept.len() > STDERR_KEEP * 2 {
                    kept.drain(..kept.len() - STDERR_KEEP);
                }
            }
            String::from_utf8_lossy(&kept).into_owned()
        })
    });
    Ok((child, stderr_task))
}

/// The line the child wrote, to `on_line`: whether the reader wants no more.
fn hand_over(line: &mut Vec<u8>, on_line: &mut dyn FnMut(&str) -> ControlFlow<()>) -> bool {
    let text = String::from_utf8_lossy(line).into_owned();
    line.clear();
    on_line(text.trim_end()).is_break()
}

async fn supervise(
    spawn: &Spawn<'_>,
    idle: Duration,
    cancel: &Cancellation,
    on_line: &mut dyn FnMut(&str) -> ControlFlow<()>,
) -> std::io::Result<ChildEnd> {
    let (mut child, stderr_task) = start(spawn)?;
    let group = child.id();
    let Some(stdout) = child.stdout.take() else {
        kill_group(group);
        return Ok(ChildEnd::Stopped);
    };
    let mut reader = BufReader::new(stdout);
    let mut line: Vec<u8> = Vec::new();
    let mut exit_code: Option<Option<i32>> = None;
    let mut grace_until: Option<tokio::time::Instant> = None;
    let mut stdout_open = true;
    loop {
        let idle_until = tokio::time::Instant::now() + idle;
        let stop_at = grace_until.unwrap_or(idle_until);
        tokio::select! {
            read = reader.read_until(b'\n', &mut line), if stdout_open => {
                match read {
                    Ok(0) | Err(_) => {
                        stdout_open = false;
                        if !line.is_empty() && hand_over(&mut line, on_line) {
                            kill_group(group);
                            return Ok(ChildEnd::Stopped);
                        }
                        if exit_code.is_some() {
                            break;
                        }
                    }
                    Ok(_) => {
                        if hand_over(&mut line, on_line) {
                            kill_group(group);
                            return Ok(ChildEnd::Stopped);
                        }
                    }
                }
            }
            status = child.wait(), if exit_code.is_none() => {
                exit_code = Some(status.ok().and_then(|status| status.code()));
                if !stdout_open {
                    break;
                }
                grace_until = Some(tokio::time::Instant::now() + EXIT_GRACE);
            }
            () = tokio::time::sleep_until(stop_at) => {
                if grace_until.is_some_and(|grace| tokio::time::Instant::now() >= grace) {
                    break;
                }
                kill_group(group);
                let _ = child.wait().await;
                let stderr = stderr_text(stderr_task).await;
                return Ok(ChildEnd::Idle { after: idle, stderr });
            }
            () = cancel.token.cancelled() => {
                kill_group(group);
                let _ = child.wait().await;
                return Ok(ChildEnd::Cancelled(
                    cancel.reason().unwrap_or(CancelReason::Interrupt),
                ));
            }
        }
    }
    // Whatever the child left running goes with it.
    kill_group(group);
    let stderr = stderr_text(stderr_task).await;
    Ok(ChildEnd::Exited {
        code: exit_code.flatten(),
        stderr,
    })
}
