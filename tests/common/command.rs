//! [`Pincer`]: the one way the suite runs the pincer binary. See the header of `common/mod.rs`
//! for how to use it.

use std::ffi::{OsStr, OsString};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use super::Home;
use super::mock::MockServer;
use super::protocols::{self, Protocol};

/// A pincer command being built: a clean environment (`PATH`, `HOME`, `TMPDIR`, `PINCER_HOME`,
/// `NO_COLOR` only), run from the workspace, no stdin. Made by [`Home::pincer`].
#[must_use = "a command does nothing until it is run"]
pub struct Pincer {
    /// Another pincer executable than the one cargo built (a copy elsewhere), if any.
    binary: Option<PathBuf>,
    /// `program args…` that pincer runs inside, if any.
    wrapper: Option<(OsString, Vec<OsString>)>,
    /// Variables set (`Some`) or removed (`None`), in order, over the clean environment.
    env: Vec<(OsString, Option<OsString>)>,
    current_dir: PathBuf,
    /// Global flags put before every other argument.
    global: Vec<OsString>,
    args: Vec<OsString>,
    stdin: Option<Vec<u8>>,
}

impl Pincer {
    pub(super) fn new(home: &Home) -> Pincer {
        let clean = [
            ("PATH", std::env::var_os("PATH").unwrap_or_default()),
            ("HOME", home.root.path().into()),
            ("TMPDIR", home.tmp.clone().into()),
            ("PINCER_HOME", home.home.clone().into()),
            ("NO_COLOR", "1".into()),
        ];
        Pincer {
            binary: None,
            wrapper: None,
            env: clean
                .into_iter()
                .map(|(name, value)| (name.into(), Some(value)))
                .collect(),
            current_dir: home.workspace.clone(),
            global: Vec::new(),
            args: Vec::new(),
            stdin: None,
        }
    }

    /// Point `protocol` at `server`: its base-URL variable at the mock and [`protocols::KEY`]
    /// in its key variable (change it with [`Pincer::key`]).
    pub fn provider(self, protocol: &Protocol, server: &MockServer) -> Pincer {
        self.provider_url(protocol, &server.url())
    }

    /// [`Pincer::provider`] for a server that is not a [`MockServer`] (`http://127.0.0.1:9`, a
    /// port that never answers).
    pub fn provider_url(self, protocol: &Protocol, url: &str) -> Pincer {
        self.env(protocol.base_url_var, protocol.base_url(url))
            .key(protocol, protocols::KEY)
    }

    /// Every protocol pointed at the one `server`, each with [`protocols::KEY`].
    pub fn providers(self, server: &MockServer) -> Pincer {
        protocols::all()
            .iter()
            .fold(self, |command, protocol| command.provider(protocol, server))
    }

    /// `key` in `protocol`'s key variable (with or without a base URL).
    pub fn key(self, protocol: &Protocol, key: &str) -> Pincer {
        self.env(protocol.key_var, key)
    }

    /// Retries 10 ms apart doubling to 40 ms (`-c retry.…` before the other arguments), so
    /// that fault tests do not sleep.
    pub fn fast_retries(mut self) -> Pincer {
        for flag in ["retry.base_delay_ms=10", "retry.max_delay_ms=40"] {
            self.global.extend(["-c".into(), flag.into()]);
        }
        self
    }

    /// Sessions in `store` (`PINCER_STORE`, and the variables that reach its server).
    pub fn store(self, store: &crate::common::s3::S3Store) -> Pincer {
        store.environment.iter().fold(
            self.env("PINCER_STORE", &store.url),
            |command, (name, value)| command.env(name, value),
        )
    }

    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Pincer {
        self.args.push(arg.as_ref().to_owned());
        self
    }

    pub fn args<I, S>(mut self, args: I) -> Pincer
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.args
            .extend(args.into_iter().map(|arg| arg.as_ref().to_owned()));
        self
    }

    pub fn env(mut self, name: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Pincer {
        self.env
            .push((name.as_ref().to_owned(), Some(value.as_ref().to_owned())));
        self
    }

    pub fn env_remove(mut self, name: impl AsRef<OsStr>) -> Pincer {
        self.env.push((name.as_ref().to_owned(), None));
        self
    }

    /// Run from `dir` instead of the workspace.
    pub fn current_dir(mut self, dir: impl AsRef<Path>) -> Pincer {
        self.current_dir = dir.as_ref().to_owned();
        self
    }

    /// Feed `bytes` on stdin, then close it ([`Pincer::output`] and [`Pincer::spawn`]).
    pub fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> Pincer {
        self.stdin = Some(bytes.into());
        self
    }

    /// Run the pincer executable at `path` (a link or copy of the built one, elsewhere).
    pub fn binary(mut self, path: impl Into<PathBuf>) -> Pincer {
        self.binary = Some(path.into());
        self
    }

    /// Run pincer as `program args… pincer ARGS…`, with this environment (`setpriv`, `unshare`,
    /// `sh -c '…; exec "$0" "$@"'`).
    pub fn inside<I, S>(mut self, program: impl AsRef<OsStr>, args: I) -> Pincer
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let args = args.into_iter().map(|arg| arg.as_ref().to_owned());
        self.wrapper = Some((program.as_ref().to_owned(), args.collect()));
        self
    }

    /// The command as a [`std::process::Command`], stdin `/dev/null`, for what the builder does
    /// not cover (other stdio, `get_envs`). Panics if [`Pincer::stdin`] was given.
    pub fn command(self) -> Command {
        assert!(
            self.stdin.is_none(),
            "stdin bytes are fed by output() and spawn(), not by command()"
        );
        self.build()
    }

    fn build(self) -> Command {
        let pincer = self
            .binary
            .clone()
            .unwrap_or_else(|| assert_cmd::cargo::cargo_bin("pincer"));
        let mut command = match &self.wrapper {
            Some((program, args)) => {
                let mut command = Command::new(program);
                command.args(args).arg(pincer);
                command
            }
            None => Command::new(pincer),
        };
        command.env_clear();
        for (name, value) in &self.env {
            match value {
                Some(value) => command.env(name, value),
                None => command.env_remove(name),
            };
        }
        command
            .current_dir(&self.current_dir)
            .args(&self.global)
            .args(&self.args)
            .stdin(Stdio::null());
        command
    }

    /// Start it with stdin, stdout and stderr piped, stdin left open for the caller (take it
    /// from the child to write, hold or close it).
    pub fn spawn_with_open_stdin(self) -> Child {
        let mut command = self.command();
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command.spawn().unwrap()
    }

    /// Start it with stdout and stderr piped (and the [`Pincer::stdin`] bytes written, then
    /// closed).
    pub fn spawn(mut self) -> Child {
        let stdin = self.stdin.take();
        let mut command = self.build();
        command.stdout(Stdio::piped()).stderr(Stdio::piped());
        if stdin.is_some() {
            command.stdin(Stdio::piped());
        }
        let mut child = command.spawn().unwrap();
        if let Some(bytes) = stdin {
            let mut pipe = child.stdin.take().unwrap();
            // A thread, so that a child that answers before reading all of stdin cannot
            // deadlock the test on a full pipe.
            std::thread::spawn(move || {
                let _ = pipe.write_all(&bytes);
            });
        }
        child
    }

    /// Run it to the end and collect its output.
    pub fn output(self) -> Output {
        self.spawn().wait_with_output().unwrap()
    }

    /// [`Pincer::output`], asserting that it exited 0 (its stderr in the failure message).
    pub fn success(self) -> Output {
        let output = self.output();
        assert_eq!(
            output.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        output
    }
}
