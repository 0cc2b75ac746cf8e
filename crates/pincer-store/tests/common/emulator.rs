//! A storage server for tests run by one of the repository's scripts (`scripts/s3-test-server`:
//! moto; `scripts/azure-test-server`: Azurite), which installs it under target/ on first use and
//! serves it on a free loopback port. The script prints `listening on ADDRESS`, may answer one
//! line per line of commands on its standard input, and stops when that input closes — so the
//! server ends with the test process, however it ends.
//!
//! Standard library only, so any test binary of the workspace can include it beside the
//! server's own helper (`s3_server.rs`, `azure_server.rs`), which uses it as
//! `super::emulator`.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

/// A running server.
pub struct Emulator {
    /// `http://127.0.0.1:PORT`
    pub endpoint: String,
    pub port: u16,
    /// What it is, for messages: `the S3 test server (moto)`.
    name: &'static str,
    child: Mutex<Child>,
    /// The script's standard input and output, one exchange at a time; `None` once stopped.
    control: Mutex<Option<(ChildStdin, BufReader<ChildStdout>)>>,
    /// Whether [`Emulator::stop`] kills the script (moto: the script is the server) or only
    /// closes its input (Azurite: the script stops its own child, which a kill would leave).
    kill: bool,
}

/// The repository's root: the first parent of this crate holding `script`.
fn repository_root(script: &str) -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest
        .ancestors()
        .find(|dir| dir.join(script).is_file())
        .map(Path::to_path_buf)
        .unwrap_or_else(|| panic!("no {script} above {}", manifest.display()))
}

/// A bucket or container name no other test of any test binary uses.
pub fn unique_name() -> String {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    format!(
        "pincer-test-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::SeqCst)
    )
}

impl Emulator {
    /// Run `script` (`scripts/…`) and wait for its server to listen; `install` says what its
    /// first run installs, for the message when it does not start.
    pub fn start(
        script: &str,
        name: &'static str,
        install: &str,
        kill: bool,
    ) -> Result<Emulator, String> {
        let path = repository_root(script).join(script);
        let stem = Path::new(script)
            .file_name()
            .map_or_else(String::new, |name| name.to_string_lossy().into_owned());
        let log = std::env::temp_dir().join(format!("pincer-{stem}-{}.log", std::process::id()));
        let log_file = std::fs::File::create(&log).map_err(|error| error.to_string())?;
        let mut child = Command::new(&path)
            .arg("run")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(log_file))
            .spawn()
            .map_err(|error| format!("cannot run {}: {error}", path.display()))?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let mut stdout = BufReader::new(child.stdout.take().ok_or("no stdout")?);
        let mut line = String::new();
        // The first run installs the server (half a minute to a minute).
        stdout
            .read_line(&mut line)
            .map_err(|error| error.to_string())?;
        let Some(address) = line.trim().strip_prefix("listening on ") else {
            let _ = child.kill();
            let _ = child.wait();
            let log_text = std::fs::read_to_string(&log).unwrap_or_default();
            return Err(format!(
                "{name} did not start: {}\nIt is installed by `{script} install` ({install}); \
                 .ci/run does that.\n{log_text}",
                path.display()
            ));
        };
        let port = address
            .rsplit(':')
            .next()
            .and_then(|port| port.parse().ok())
            .ok_or_else(|| format!("unexpected server line {line:?}"))?;
        Ok(Emulator {
            endpoint: format!("http://127.0.0.1:{port}"),
            port,
            name,
            child: Mutex::new(child),
            control: Mutex::new(Some((stdin, stdout))),
            kill,
        })
    }

    /// Send the script one line of command and read its one-line answer.
    pub fn ask(&self, command: &str) -> String {
        let mut control = self.control.lock().unwrap_or_else(PoisonError::into_inner);
        let name = self.name;
        let (stdin, stdout) = control
            .as_mut()
            .unwrap_or_else(|| panic!("{name} is stopped"));
        writeln!(stdin, "{command}").unwrap_or_else(|error| panic!("ask {name}: {error}"));
        stdin
            .flush()
            .unwrap_or_else(|error| panic!("ask {name}: {error}"));
        let mut answer = String::new();
        stdout
            .read_line(&mut answer)
            .unwrap_or_else(|error| panic!("read {name}'s answer: {error}"));
        answer.trim().to_owned()
    }

    /// Stop the server now and wait for it.
    pub fn stop(&self) {
        self.control
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        let mut child = self.child.lock().unwrap_or_else(PoisonError::into_inner);
        if self.kill {
            let _ = child.kill();
        }
        let _ = child.wait();
    }
}

impl Drop for Emulator {
    fn drop(&mut self) {
        self.stop();
    }
}
