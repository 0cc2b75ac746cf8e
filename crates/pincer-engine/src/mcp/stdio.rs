//! A stdio MCP server's process (SPEC §13): started in a process group of its own with an
//! environment built explicitly, its stderr drained, stopped with its whole group.
//!
//! The environment is pincer's minus the credential variables (the same clear list and key
//! values `exec` removes, SPEC §10), then the server's `env_vars` passed on by name and its
//! `env` on top. stderr is read line by line by a task: each line goes to the `on_stderr`
//! callback (shown with `-v`) and the last lines are kept for error messages and
//! `status --mcp`. Stopping closes stdin first (the MCP way to ask a stdio server to exit),
//! then signals the group — SIGTERM, then SIGKILL after a grace period — so that what the
//! server started (`npx` → `node`) goes too. Dropping a [`StdioProcess`] that was not stopped
//! kills the group at once: no exit path leaves a server behind.

use std::collections::{BTreeMap, VecDeque};
use std::ffi::OsString;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::io::AsyncBufReadExt as _;
use tokio::process::{ChildStderr, ChildStdin, ChildStdout};
use tokio::sync::watch;

/// Lines of stderr kept for messages.
const STDERR_TAIL_LINES: usize = 20;
/// Characters of one kept stderr line.
const STDERR_LINE_CHARS: usize = 500;

/// Called with (server, line) for every line a server writes to stderr.
pub type StderrSink = Arc<dyn Fn(&str, &str) + Send + Sync>;

/// The network rules a stdio server follows (SPEC §13, §20): the run's egress proxy, and the
/// loopback ports that lead to one destination each (`Policy::loopback_routes()`).
#[derive(Clone)]
pub struct ServerNetwork {
    /// The run's egress proxy: the server's only way out.
    pub egress: Arc<dyn crate::tools::Egress>,
    /// The fixed routes (`5432` to `localhost:5432`).
    pub routes: Vec<(u16, String)>,
}

/// What to start.
pub(super) struct Launch<'a> {
    pub(super) server: &'a str,
    pub(super) command: &'a str,
    pub(super) args: &'a [String],
    pub(super) directory: &'a Path,
    pub(super) environment: Vec<(OsString, OsString)>,
    pub(super) on_stderr: Option<StderrSink>,
    pub(super) trace: &'a crate::trace::ChildTrace,
    /// With network rules: only the network confined, through the run's egress proxy.
    pub(super) network: Option<&'a ServerNetwork>,
}

/// A running (or exited) server process and its group.
pub(super) struct StdioProcess {
    group: Pid,
    watch: ProcessWatch,
    /// The group was stopped (or found empty): nothing to kill on drop.
    stopped: bool,
    /// The egress proxy its network goes through, kept serving as long as the server runs
    /// (servers kept across the turns of an SDK session outlive the turn that started them).
    _network: Option<ServerNetwork>,
}

/// What others may read about a server process while it runs: its exit status and stderr.
#[derive(Clone)]
pub(super) struct ProcessWatch {
    exit: watch::Receiver<Option<ExitStatus>>,
    stderr: Arc<Mutex<VecDeque<String>>>,
}

impl ProcessWatch {
    /// How the server exited, once it has.
    pub(super) fn exit_status(&self) -> Option<ExitStatus> {
        *self.exit.borrow()
    }

    /// The last lines it wrote to stderr, oldest first.
    pub(super) fn stderr_tail(&self) -> Vec<String> {
        self.stderr
            .lock()
            .map(|lines| lines.iter().cloned().collect())
            .unwrap_or_default()
    }
}

/// The server's environment: `parent` minus `clear` and the variables holding `secrets`, then
/// `env_vars` passed on from `parent`, then `env`.
pub(super) fn environment(
    parent: &[(OsString, OsString)],
    clear: &[String],
    secrets: &[String],
    env_vars: &[String],
    env: &BTreeMap<String, String>,
) -> Vec<(OsString, OsString)> {
    let mut add: BTreeMap<String, String> = BTreeMap::new();
    for name in env_vars {
        if let Some((_, value)) = parent
            .iter()
            .find(|(key, _)| key.as_os_str() == name.as_str())
        {
            add.insert(name.clone(), value.to_string_lossy().into_owned());
        }
    }
    add.extend(
        env.iter()
            .map(|(name, value)| (name.clone(), value.clone())),
    );
    let secrets: Vec<&str> = secrets.iter().map(String::as_str).collect();
    crate::tools::child_environment(parent.iter().cloned(), clear, &secrets, &add)
}

/// The executable `command` names, as `execvp` would find it: a path with a slash relative to
/// `directory`, else the first executable file of that name in the `PATH` of `environment`.
fn find_program(
    command: &str,
    directory: &Path,
    environment: &[(OsString, OsString)],
) -> std::io::Result<std::path::PathBuf> {
    use std::os::unix::fs::PermissionsExt as _;
    let executable = |path: &Path| {
        std::fs::metadata(path)
            .is_ok_and(|metadata| metadata.is_file() && metadata.permissions().mode() & 0o111 != 0)
    };
    if command.contains('/') {
        let path = directory.join(command);
        return if executable(&path) {
            Ok(path)
        } else {
            Err(std::fs::metadata(&path)
                .err()
                .unwrap_or_else(|| std::io::Error::from(std::io::ErrorKind::PermissionDenied)))
        };
    }
    // A relative PATH entry would be looked up in the server's directory, often the
    // workspace: such entries are skipped, and so are entries inside that directory, as for a
    // CLI backend's child (`crate::tools::program`).
    let search = environment
        .iter()
        .find(|(name, _)| name == "PATH")
        .map(|(_, value)| value.as_os_str());
    crate::tools::program::find(command, search, &[directory])
        .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound))
}

/// Why a stdio server did not start.
#[derive(Debug, thiserror::Error)]
pub(super) enum SpawnError {
    #[error("cannot start '{command}' in '{}': {source}", .directory.display())]
    CannotStart {
        command: String,
        directory: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error("the server exited as it started")]
    ExitedAtOnce,
    #[error("cannot connect to the server's stdin and stdout")]
    NoPipes,
    /// The network rules cannot hold for it (no user namespaces, no egress proxy): not
    /// started, rather than given the whole network.
    #[error("{0}")]
    Unconfined(String),
}

impl StdioProcess {
    /// Start the server; its stdout and stdin are the MCP transport.
    pub(super) fn spawn(
        launch: Launch<'_>,
    ) -> Result<(StdioProcess, ChildStdout, ChildStdin), SpawnError> {
        let cannot_start = |source: std::io::Error| SpawnError::CannotStart {
            command: launch.command.to_owned(),
            directory: launch.directory.to_owned(),
            source,
        };
        // Checked here: through the launcher, a missing program would only show as an exit.
        let program = find_program(launch.command, launch.directory, &launch.environment)
            .map_err(cannot_start)?;
        let arguments: Vec<OsString> = launch.args.iter().map(OsString::from).collect();
        // A session of its own: the server never has the user's terminal (SPEC §10). Its files
        // are its own (SPEC §13), its network the rules' when the user set any (SPEC §20).
        let mut command = match launch.network {
            None => crate::tools::spawn_in_session(
                program.as_os_str(),
                &arguments,
                tokio::process::Command::from,
            ),
            Some(network) => crate::tools::spawn_network_confined(
                network.egress.as_ref(),
                network.routes.clone(),
                program.as_os_str(),
                &arguments,
                tokio::process::Command::from,
            )
            .map_err(|error| SpawnError::Unconfined(error.to_string()))?,
        };
        command
            .env_clear()
            .envs(launch.environment.iter().map(|(name, value)| (name, value)))
            // The span that starts it, when the run is traced (SPEC §17).
            .envs(launch.trace.environment())
            .current_dir(launch.directory)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command.spawn().map_err(cannot_start)?;
        let group = child
            .id()
            .and_then(|id| i32::try_from(id).ok())
            .map(Pid::from_raw)
            .ok_or(SpawnError::ExitedAtOnce)?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = killpg(group, Signal::SIGKILL);
            return Err(SpawnError::NoPipes);
        };
        let (exit_sender, exit) = watch::channel(None);
        tokio::spawn(async move {
            let status = child.wait().await.ok();
            let _ = exit_sender.send(status);
        });
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        tokio::spawn(drain(
            stderr,
            launch.server.to_owned(),
            Arc::clone(&tail),
            launch.on_stderr,
        ));
        Ok((
            StdioProcess {
                group,
                watch: ProcessWatch { exit, stderr: tail },
                stopped: false,
                _network: launch.network.cloned(),
            },
            stdout,
            stdin,
        ))
    }

    /// The process (group leader) id.
    pub(super) fn pid(&self) -> i32 {
        self.group.as_raw()
    }

    /// Its exit status and stderr, for readers elsewhere.
    pub(super) fn watch(&self) -> ProcessWatch {
        self.watch.clone()
    }

    /// How the server exited, once it has.
    pub(super) fn exit_status(&self) -> Option<ExitStatus> {
        self.watch.exit_status()
    }

    /// The last lines it wrote to stderr, oldest first.
    pub(super) fn stderr_tail(&self) -> Vec<String> {
        self.watch.stderr_tail()
    }

    /// Wait until the server has exited, at most `limit`. Whether it has.
    pub(super) async fn wait_exit(&mut self, limit: Duration) -> bool {
        let exited = tokio::time::timeout(limit, self.watch.exit.wait_for(Option::is_some)).await;
        matches!(exited, Ok(Ok(_)))
    }

    /// Stop the group, its stdin already closed: wait `grace` for the server to exit, then
    /// SIGTERM whatever of the group is left, wait `grace` again, then SIGKILL.
    pub(super) async fn stop(&mut self, grace: Duration) {
        if self.stopped {
            return;
        }
        let leader_gone = self.wait_exit(grace).await;
        if !leader_gone || self.group_alive() {
            let _ = killpg(self.group, Signal::SIGTERM);
            let deadline = tokio::time::Instant::now() + grace;
            while self.group_alive() && tokio::time::Instant::now() < deadline {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            let _ = killpg(self.group, Signal::SIGKILL);
            // Reaped by the waiting task; a killed leader goes at once.
            self.wait_exit(Duration::from_millis(200)).await;
        }
        self.stopped = true;
    }

    /// Whether any process of the group is still there.
    fn group_alive(&self) -> bool {
        killpg(self.group, None).is_ok()
    }
}

impl Drop for StdioProcess {
    fn drop(&mut self) {
        if !self.stopped {
            // ESRCH (already gone) is the only expected failure and needs no handling.
            let _ = killpg(self.group, Signal::SIGKILL);
        }
    }
}

async fn drain(
    stderr: ChildStderr,
    server: String,
    tail: Arc<Mutex<VecDeque<String>>>,
    on_stderr: Option<StderrSink>,
) {
    let mut lines = tokio::io::BufReader::new(stderr).split(b'\n');
    while let Ok(Some(line)) = lines.next_segment().await {
        let line = String::from_utf8_lossy(&line);
        let line = line.trim_end_matches('\r');
        if let Some(sink) = &on_stderr {
            sink(&server, line);
        }
        let kept: String = line.chars().take(STDERR_LINE_CHARS).collect();
        if let Ok(mut lines) = tail.lock() {
            if lines.len() == STDERR_TAIL_LINES {
                lines.pop_front();
            }
            lines.push_back(kept);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_environment_drops_credentials_passes_named_variables_and_adds_env() {
        let parent: Vec<(OsString, OsString)> = [
            ("PATH", "/usr/bin"),
            ("ANTHROPIC_API_KEY", "sk-ant-1"),
            ("COPY", "sk-ant-1"),
            ("GITHUB_TOKEN", "ghp-1"),
            ("OPENAI_API_KEY", "sk-oa-2"),
        ]
        .iter()
        .map(|(name, value)| ((*name).into(), (*value).into()))
        .collect();
        let environment = environment(
            &parent,
            &["ANTHROPIC_API_KEY".to_owned(), "OPENAI_API_KEY".to_owned()],
            &["sk-ant-1".to_owned()],
            &["OPENAI_API_KEY".to_owned(), "NOT_SET".to_owned()],
            &BTreeMap::from([("MODE".to_owned(), "ci".to_owned())]),
        );
        let names: Vec<String> = environment
            .iter()
            .map(|(name, value)| format!("{}={}", name.to_string_lossy(), value.to_string_lossy()))
            .collect();
        assert_eq!(
            names,
            [
                "PATH=/usr/bin",
                "GITHUB_TOKEN=ghp-1",
                "MODE=ci",
                "OPENAI_API_KEY=sk-oa-2"
            ]
        );
    }

    /// Whether `pid` is gone (or a zombie: its parent has not reaped it yet) within 2 s.
    async fn gone(pid: Pid) -> bool {
        for _ in 0..200 {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            if nix::sys::signal::kill(pid, None).is_err() || stat.contains(") Z ") {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        false
    }

    #[tokio::test]
    async fn stopping_kills_what_the_server_started_and_drop_kills_the_group() {
        let directory = std::env::temp_dir();
        let pid_file = tempfile::NamedTempFile::new().unwrap();
        let script = format!(
            "sleep 1000 & echo $! > {}; echo started >&2; read line; exit 0",
            pid_file.path().display()
        );
        let args = vec!["-c".to_owned(), script];
        let lines: Arc<Mutex<Vec<String>>> = Arc::default();
        let seen = Arc::clone(&lines);
        let (mut process, _stdout, stdin) = StdioProcess::spawn(Launch {
            server: "sh",
            command: "sh",
            args: &args,
            directory: &directory,
            environment: std::env::vars_os().collect(),
            on_stderr: Some(Arc::new(move |server: &str, line: &str| {
                seen.lock().unwrap().push(format!("{server}: {line}"));
            })),
            trace: &crate::trace::ChildTrace::default(),
            network: None,
        })
        .unwrap();
        let grandchild = loop {
            let text = std::fs::read_to_string(pid_file.path()).unwrap();
            if let Ok(pid) = text.trim().parse::<i32>() {
                break Pid::from_raw(pid);
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        };
        drop(stdin);
        process.stop(Duration::from_millis(300)).await;
        assert!(process.exit_status().is_some());
        // The background `sleep` was in the group: gone too.
        assert!(
            gone(grandchild).await,
            "the server's child {grandchild} survived"
        );
        assert_eq!(process.stderr_tail(), ["started"]);
        assert_eq!(lines.lock().unwrap().as_slice(), ["sh: started"]);

        let (process, _stdout, _stdin) = StdioProcess::spawn(Launch {
            server: "sh",
            command: "sh",
            args: &["-c".to_owned(), "sleep 1000".to_owned()],
            directory: &directory,
            environment: std::env::vars_os().collect(),
            on_stderr: None,
            trace: &crate::trace::ChildTrace::default(),
            network: None,
        })
        .unwrap();
        let group = Pid::from_raw(process.pid());
        drop(process);
        assert!(gone(group).await, "the dropped server {group} survived");
    }
}
