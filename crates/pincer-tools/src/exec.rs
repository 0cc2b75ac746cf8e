//! `exec`: run a shell command and return its combined output.
//!
//! The command runs as `sh -c COMMAND` in a process group of its own, with stdin from /dev/null
//! and stdout and stderr sharing one pipe, so the output interleaves exactly as it was written.
//! A detached reader thread feeds the pipe into a channel that this task awaits alongside the exit
//! status, the timeout and the cancellation token — nothing here blocks the runtime. Long output
//! is shortened to its head and tail, the whole of it written to a file in the run's private
//! temp dir that the model can read ([`super::capture`]).
//!
//! A timeout or a cancellation kills the whole process group (SIGKILL), grandchildren included.
//! When the shell exits but a background process it started still holds the pipe, the output is
//! collected for a short grace period and the background process is left running.
//!
//! Sandbox (SPEC §10): the command's environment is built explicitly — pincer's minus the
//! credential variables, plus `TMPDIR`/`TMP`/`TEMP` pointing at the run's private temp dir, plus
//! the call's `env` — and in `workspace-write` and `read-only` the shell is started through
//! [`super::confine`]: in a private mount namespace (`.git` and the agents' dirs read-only,
//! pincer's own dirs hidden) under Landlock where the system allows it, with Landlock alone
//! otherwise (said once on stderr). `read-only` refuses to run commands without Landlock.
//! `danger-full-access` runs them unconfined, with the same environment.

use std::ffi::OsString;
use std::io::Read as _;
use std::os::unix::process::ExitStatusExt as _;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::sync::Arc;
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use serde_json::{Value, json};

use crate::conversation::ContentBlock;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::arguments::{self, Arguments};
use super::capture::Capture;
use super::confine::{self, LandlockSupport, landlock_support};
use super::paths::Access;
use super::sandbox::{Sandbox, SandboxMode};
use super::{Refusal, ToolContext, ToolDefinition, ToolError, ToolOutput, make_definition, paths};

/// Seconds a command may run when the call does not say.
pub const DEFAULT_TIMEOUT_SECONDS: f64 = 120.0;
/// How long output is still collected after the shell exits while something else holds the pipe.
const PIPE_GRACE: Duration = Duration::from_millis(250);
pub fn definition() -> ToolDefinition {
    make_definition(
        "exec",
        "Run a shell command (sh -c, in workdir or the workspace); returns stdout and stderr \
         together, a non-zero exit as an error. Killed after timeout seconds (default 120). Empty stdin: nothing interactive. Output over 32 KB keeps its first 8 KB \
         and last 24 KB; the whole is saved to a file the result names.",
        json!({
            "command": {"type": "string"},
            "workdir": {"type": "string"},
            "timeout": {"type": "number", "exclusiveMinimum": 0},
            "env": {"type": "object", "additionalProperties": {"type": "string"}}
        }),
        &["command"],
    )
}

/// What to run.
#[derive(Debug, Clone)]
struct Invocation {
    command: String,
    directory: std::path::PathBuf,
    timeout: Duration,
    /// The environment the command starts from; `None` inherits pincer's.
    base_environment: Option<Arc<Vec<(OsString, OsString)>>>,
    /// Set on top: the temp dir variables, then the call's `env`.
    environment: Vec<(OsString, OsString)>,
    /// Mode, roots and what the command may see.
    sandbox: Sandbox,
}

/// How the command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ending {
    Exited(Option<i32>, Option<i32>),
    TimedOut,
    Cancelled,
}

pub async fn run(
    arguments: &Arguments<'_>,
    context: &ToolContext,
) -> Result<ToolOutput, ToolError> {
    let command = arguments.required_string(&["command", "cmd"])?;
    let require_confinement = context.sandbox.mode == SandboxMode::ReadOnly;
    if require_confinement && let LandlockSupport::NotSupported(reason) = landlock_support() {
        return Err(ToolError::refused(
            Refusal::SandboxMode,
            format!(
                "exec is disabled: the sandbox is read-only and commands can only run under \
                 Landlock, which is not available here ({reason})."
            ),
        ));
    }
    let directory = match arguments.optional_string(&["workdir", "cwd"])? {
        None => context.workspace.clone(),
        Some(raw) => {
            let directory = paths::check(context, raw, Access::Read)?;
            if !directory.is_dir() {
                return Err(ToolError::Rejected(format!(
                    "Working directory not found: {raw}"
                )));
            }
            directory
        }
    };
    let timeout_seconds = arguments
        .optional_seconds(&["timeout"])?
        .unwrap_or(DEFAULT_TIMEOUT_SECONDS);
    // The span that starts it, when the run is traced (SPEC §17); the call's own `env` wins.
    let mut environment: Vec<(OsString, OsString)> = context.trace.environment();
    if let Some(temp) = &context.sandbox.exec.temp_dir {
        for name in ["TMPDIR", "TMP", "TEMP"] {
            environment.push((name.into(), temp.into()));
        }
    }
    environment.extend(
        call_environment(arguments)?
            .into_iter()
            .map(|(name, value)| (name.into(), value.into())),
    );
    let invocation = Invocation {
        command: command.to_owned(),
        directory,
        timeout: Duration::try_from_secs_f64(timeout_seconds)
            .map_err(|_| arguments::invalid(&["timeout"], "a positive number of seconds"))?,
        base_environment: context.sandbox.exec.environment.clone(),
        environment,
        sandbox: context.sandbox.clone(),
    };
    let (ending, output) = run_command(&invocation, &context.cancel).await?;
    Ok(render(ending, output, timeout_seconds))
}

fn call_environment(arguments: &Arguments<'_>) -> Result<Vec<(String, String)>, ToolError> {
    match arguments.get(&["env"]) {
        None => Ok(Vec::new()),
        Some(Value::Object(variables)) => variables
            .iter()
            .map(|(name, value)| {
                let value = match value {
                    Value::String(text) => text.clone(),
                    Value::Number(number) => number.to_string(),
                    Value::Bool(flag) => flag.to_string(),
                    _ => return Err(arguments::invalid(&[&format!("env.{name}")], "a string")),
                };
                if name.is_empty() || name.contains('=') || name.contains('\0') {
                    return Err(arguments::invalid(
                        &[&format!("env.{name}")],
                        "a variable name without '=' or NUL",
                    ));
                }
                Ok((name.clone(), value))
            })
            .collect(),
        Some(_) => Err(arguments::invalid(
            &["env"],
            "an object of variable names to strings",
        )),
    }
}

/// Give a command `exec`'s environment and working directory: `base` (pincer's environment
/// minus the credential variables) instead of the inherited one when given, `environment` on
/// top (the trace variables of the span that starts it first, when the run is traced), run in
/// `directory`. Hooks (`crate::hooks`) start theirs so too. The process group (or
/// session) is [`confine::spawn_confined`]'s to make.
pub fn in_environment(
    command: &mut std::process::Command,
    base: Option<&[(OsString, OsString)]>,
    environment: &[(OsString, OsString)],
    directory: &Path,
) {
    if let Some(base) = base {
        command
            .env_clear()
            .envs(base.iter().map(|(name, value)| (name, value)));
    }
    command
        .envs(environment.iter().map(|(name, value)| (name, value)))
        .current_dir(directory);
}

/// Kills the process group when dropped, unless disarmed: a call abandoned half-way (its future
/// dropped) must not leave the command running. Hooks (`crate::hooks`) use it for theirs too.
pub struct GroupKiller {
    pub group: Option<Pid>,
}

impl GroupKiller {
    pub fn kill(&mut self) {
        if let Some(group) = self.group.take() {
            // ESRCH (already gone) is the only expected failure and needs no handling. A
            // launcher that has not made its session yet is reached by its pid.
            let _ = killpg(group, Signal::SIGKILL);
            let _ = nix::sys::signal::kill(group, Signal::SIGKILL);
        }
    }
}

impl Drop for GroupKiller {
    fn drop(&mut self) {
        self.kill();
    }
}

async fn run_command(
    invocation: &Invocation,
    cancel: &CancellationToken,
) -> Result<(Ending, super::capture::Captured), ToolError> {
    let (reader, writer) =
        std::io::pipe().map_err(|error| ToolError::io("create a pipe for", "exec", error))?;
    let writer_for_stderr = writer
        .try_clone()
        .map_err(|error| ToolError::io("create a pipe for", "exec", error))?;
    let (started, mut finished) = spawn_confined(invocation, writer, writer_for_stderr).await?;
    let mut killer = GroupKiller {
        group: Some(started),
    };

    let mut chunks = spawn_reader(reader);
    let mut output = Capture::new(invocation.sandbox.exec.temp_dir.as_deref(), "exec");
    let deadline = tokio::time::sleep(invocation.timeout);
    let grace = tokio::time::sleep(Duration::from_secs(86_400));
    tokio::pin!(deadline, grace);
    let mut pipe_open = true;
    let mut status: Option<ExitStatus> = None;

    let ending = loop {
        if let Some(status) = status
            && !pipe_open
        {
            break exited(status);
        }
        tokio::select! {
            chunk = chunks.recv(), if pipe_open => match chunk {
                Some(bytes) => output.push(&bytes),
                None => pipe_open = false,
            },
            result = &mut finished, if status.is_none() => {
                let exit_status = result
                    .unwrap_or_else(|_| Err(std::io::Error::other("the waiting thread ended")))
                    .map_err(|error| ToolError::io("wait for", "the command", error))?;
                status = Some(exit_status);
                grace.as_mut().reset(Instant::now() + PIPE_GRACE);
            },
            () = &mut deadline, if status.is_none() => break Ending::TimedOut,
            () = cancel.cancelled(), if status.is_none() => break Ending::Cancelled,
            () = &mut grace, if status.is_some() => {
                if let Some(status) = status {
                    break exited(status);
                }
            },
        }
    };

    match ending {
        Ending::TimedOut | Ending::Cancelled => {
            killer.kill();
            // The waiting thread reaps the shell; the group is gone, so that happens at once.
            let _ = finished.await;
            // Whatever was written before the kill and is still in the pipe.
            while let Ok(bytes) = chunks.try_recv() {
                output.push(&bytes);
            }
        }
        Ending::Exited(..) => {
            // Finished normally: background processes it started on purpose stay alive.
            killer.group = None;
        }
    }
    Ok((ending, output.finish()))
}

/// Start the shell, confined as the sandbox says, from a dedicated thread that then waits for it
/// and reports its exit status. Returns the shell's process group and the exit-status receiver.
async fn spawn_confined(
    invocation: &Invocation,
    stdout: std::io::PipeWriter,
    stderr: std::io::PipeWriter,
) -> Result<(Pid, oneshot::Receiver<std::io::Result<ExitStatus>>), ToolError> {
    let (started_sender, started) = oneshot::channel::<Result<Pid, ToolError>>();
    let (finished_sender, finished) = oneshot::channel();
    let invocation = invocation.clone();
    std::thread::spawn(move || {
        let arguments = [OsString::from("-c"), OsString::from(&invocation.command)];
        let directory = invocation.directory.clone();
        let base = invocation.base_environment.clone();
        let environment = invocation.environment.clone();
        // The shell from a directory no repository chose (not a `sh` at `.` on PATH).
        let roots: Vec<&std::path::Path> = invocation
            .sandbox
            .writable_roots
            .iter()
            .map(std::path::PathBuf::as_path)
            .collect();
        let shell = super::program::shell(&roots);
        let spawned = confine::spawn_confined(
            &invocation.sandbox,
            shell.as_os_str(),
            &arguments,
            move |mut command| {
                in_environment(
                    &mut command,
                    base.as_deref().map(Vec::as_slice),
                    &environment,
                    &directory,
                );
                command
                    .stdin(Stdio::null())
                    .stdout(Stdio::from(stdout))
                    .stderr(Stdio::from(stderr));
                let spawned = command.spawn();
                // The command keeps our copies of the pipe's write end; drop them so EOF can arrive.
                drop(command);
                spawned
            },
        );
        let mut child: std::process::Child = match spawned {
            Ok(Ok(child)) => child,
            Ok(Err(error)) => {
                let _ = started_sender.send(Err(ToolError::io(
                    "start",
                    &format!("sh in {}", display(&invocation.directory)),
                    error,
                )));
                return;
            }
            Err(refusal) => {
                let _ = started_sender.send(Err(ToolError::refused(
                    Refusal::SandboxMode,
                    refusal.to_string(),
                )));
                return;
            }
        };
        let group = i32::try_from(child.id()).map(Pid::from_raw);
        let Ok(group) = group else {
            let _ = child.kill();
            let _ = child.wait();
            let _ = started_sender.send(Err(ToolError::Rejected(
                "the command's process id is out of range".to_owned(),
            )));
            return;
        };
        if started_sender.send(Ok(group)).is_err() {
            // The call was abandoned before it learnt the group: do not leave the command behind.
            let _ = killpg(group, Signal::SIGKILL);
        }
        let _ = finished_sender.send(child.wait());
    });
    let group = started
        .await
        .map_err(|_| ToolError::Rejected("the command could not be started".to_owned()))??;
    Ok((group, finished))
}

fn exited(status: ExitStatus) -> Ending {
    Ending::Exited(status.code(), status.signal())
}

/// A detached thread that forwards the pipe's bytes until EOF. It is not joined: a background
/// process may hold the pipe open long after the call has returned, and the thread simply ends
/// when that process does (or when the receiver is gone and the next read returns).
fn spawn_reader(mut reader: std::io::PipeReader) -> mpsc::UnboundedReceiver<Vec<u8>> {
    let (sender, receiver) = mpsc::unbounded_channel();
    std::thread::spawn(move || {
        let mut buffer = vec![0_u8; 64 * 1024];
        loop {
            match reader.read(&mut buffer) {
                Ok(0) => break,
                Ok(count) => {
                    if sender.send(buffer[..count].to_vec()).is_err() {
                        break;
                    }
                }
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
    });
    receiver
}

fn display(path: &Path) -> String {
    path.display().to_string()
}

/// The result the model sees: output, then what happened.
fn render(ending: Ending, output: super::capture::Captured, timeout_seconds: f64) -> ToolOutput {
    let truncated = output.shortened;
    let mut text = String::new();
    if output.text.is_empty() {
        text.push_str("(no output)");
    } else {
        text.push_str(&output.text);
    }
    let (status_line, exit_code, is_error) = match ending {
        Ending::Exited(Some(0), _) => (None, Some(0), false),
        Ending::Exited(Some(code), _) => (
            Some(format!("Command exited with code {code}")),
            Some(code),
            true,
        ),
        Ending::Exited(None, signal) => (
            Some(format!(
                "Command was killed by signal {}",
                signal.map_or_else(|| "unknown".to_owned(), |number| number.to_string())
            )),
            None,
            true,
        ),
        Ending::TimedOut => (
            Some(format!(
                "Command timed out after {} seconds and was killed",
                format_seconds(timeout_seconds)
            )),
            None,
            true,
        ),
        Ending::Cancelled => (
            Some("Command was cancelled and killed".to_owned()),
            None,
            true,
        ),
    };
    if let Some(status_line) = status_line {
        text.push_str(if text.ends_with('\n') { "\n" } else { "\n\n" });
        text.push_str(&status_line);
    }
    ToolOutput {
        content: vec![ContentBlock::text(text)],
        is_error,
        refusal: None,
        details: Some(json!({
            "exit_code": exit_code,
            "timed_out": ending == Ending::TimedOut,
            "cancelled": ending == Ending::Cancelled,
            "truncated": truncated,
        })),
    }
}

/// `120` rather than `120.0`; fractions kept when given.
fn format_seconds(seconds: f64) -> String {
    if seconds.fract() == 0.0 && seconds < 1e15 {
        format!("{seconds:.0}")
    } else {
        seconds.to_string()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use serde_json::json;

    use super::super::test_support::Workspace;

    #[tokio::test]
    async fn a_successful_command_returns_its_output_and_exit_code_zero() {
        let workspace = Workspace::new();
        let output = workspace
            .call("exec", json!({"command": "echo hello; pwd"}))
            .await;
        assert!(!output.is_error);
        assert_eq!(
            output.text_content(),
            format!("hello\n{}\n", workspace.context.workspace.display())
        );
        assert_eq!(
            output.details,
            Some(
                json!({"exit_code": 0, "timed_out": false, "cancelled": false, "truncated": false})
            )
        );
    }

    #[tokio::test]
    async fn stdout_and_stderr_interleave_in_the_order_they_were_written() {
        let workspace = Workspace::new();
        let output = workspace
            .call(
                "exec",
                json!({"command": "echo one; echo two >&2; echo three; echo four >&2"}),
            )
            .await;
        assert_eq!(output.text_content(), "one\ntwo\nthree\nfour\n");
    }

    #[tokio::test]
    async fn a_non_zero_exit_is_an_error_carrying_the_output_and_the_code() {
        let workspace = Workspace::new();
        let output = workspace
            .call("exec", json!({"command": "echo broken >&2; exit 3"}))
            .await;
        assert!(output.is_error);
        assert_eq!(
            output.text_content(),
            "broken\n\nCommand exited with code 3"
        );
        assert_eq!(output.details.as_ref().unwrap()["exit_code"], 3);
    }

    #[tokio::test]
    async fn a_silent_failure_says_there_was_no_output() {
        let workspace = Workspace::new();
        let output = workspace.call("exec", json!({"command": "false"})).await;
        assert!(output.is_error);
        assert_eq!(
            output.text_content(),
            "(no output)\n\nCommand exited with code 1"
        );
    }

    #[tokio::test]
    async fn workdir_and_env_shape_where_and_with_what_the_command_runs() {
        let workspace = Workspace::new();
        workspace.write("sub/marker", "");
        let output = workspace
            .call(
                "exec",
                json!({"command": "ls; echo \"$GREETING\"", "workdir": "sub", "env": {"GREETING": "hi there"}}),
            )
            .await;
        assert!(!output.is_error);
        assert_eq!(output.text_content(), "marker\nhi there\n");
    }

    #[tokio::test]
    async fn a_missing_workdir_is_an_error() {
        let workspace = Workspace::new();
        let output = workspace
            .call("exec", json!({"command": "true", "workdir": "nowhere"}))
            .await;
        assert!(output.is_error);
        assert_eq!(
            output.text_content(),
            "Working directory not found: nowhere"
        );
    }

    #[tokio::test]
    async fn a_timeout_kills_the_shell_and_the_grandchildren_it_started() {
        let workspace = Workspace::new();
        let started = Instant::now();
        let output = workspace
            .call(
                "exec",
                json!({"command": "sleep 30 & echo $! > bg.pid; echo started; sleep 30", "timeout": 1}),
            )
            .await;
        assert!(started.elapsed().as_secs_f64() < 5.0);
        assert!(output.is_error);
        assert_eq!(
            output.text_content(),
            "started\n\nCommand timed out after 1 seconds and was killed"
        );
        assert_eq!(
            output.details,
            Some(
                json!({"exit_code": null, "timed_out": true, "cancelled": false, "truncated": false})
            )
        );
        let grandchild = workspace.read("bg.pid").trim().to_owned();
        // Killed: gone, or a zombie waiting for init to reap it.
        let mut alive = true;
        for _ in 0..50 {
            match std::fs::read_to_string(format!("/proc/{grandchild}/stat")) {
                Err(_) => alive = false,
                Ok(stat) => alive = !stat.contains(") Z "),
            }
            if !alive {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert!(!alive, "background sleep {grandchild} survived the timeout");
    }

    #[tokio::test]
    async fn cancellation_kills_the_command_and_says_so() {
        let workspace = Workspace::new();
        let cancel = workspace.context.cancel.clone();
        // Time for the shell to start and echo even on a loaded machine.
        tokio::spawn(async move {
            tokio::time::sleep(std::time::Duration::from_millis(1000)).await;
            cancel.cancel();
        });
        let started = Instant::now();
        let output = workspace
            .call("exec", json!({"command": "echo waiting; sleep 30"}))
            .await;
        assert!(started.elapsed().as_secs_f64() < 5.0);
        assert!(output.is_error);
        assert_eq!(
            output.text_content(),
            "waiting\n\nCommand was cancelled and killed"
        );
        assert_eq!(output.details.as_ref().unwrap()["cancelled"], true);
    }

    #[tokio::test]
    async fn long_output_keeps_its_head_and_tail_and_says_how_much_is_not_shown() {
        let workspace = Workspace::new();
        let output = workspace
            .call("exec", json!({"command": "seq 1 100000"}))
            .await;
        assert!(!output.is_error);
        let text = output.text_content();
        let full: String = (1..=100_000).map(|number| format!("{number}\n")).collect();
        assert!(text.starts_with("1\n2\n3\n"), "{}", &text[..40]);
        assert!(text.ends_with("99999\n100000\n"));
        // No private temp dir here: the middle is not saved anywhere.
        assert!(
            text.contains(&format!(
                "bytes of output not shown (the command printed {} bytes); it was not saved",
                full.len()
            )),
            "{text}"
        );
        assert!(text.len() < 33 * 1024);
        assert_eq!(output.details.as_ref().unwrap()["truncated"], true);
    }

    #[tokio::test]
    async fn a_background_process_holding_the_pipe_does_not_stall_the_call() {
        let workspace = Workspace::new();
        let started = Instant::now();
        let output = workspace
            .call("exec", json!({"command": "sleep 3 & echo done"}))
            .await;
        assert!(started.elapsed().as_secs_f64() < 2.0);
        assert!(!output.is_error);
        assert_eq!(output.text_content(), "done\n");
    }

    #[tokio::test]
    async fn an_env_value_that_is_not_a_string_is_named_in_the_error() {
        let workspace = Workspace::new();
        let output = workspace
            .call("exec", json!({"command": "true", "env": {"LIST": [1]}}))
            .await;
        assert!(output.is_error);
        assert_eq!(
            output.text_content(),
            "Invalid argument 'env.LIST': expected a string"
        );
    }
}
