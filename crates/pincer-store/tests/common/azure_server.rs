//! A real Azure Blob Storage server for tests: Azurite, the official emulator, run by
//! `scripts/azure-test-server` (which installs it from npm under target/ on first use) on a free
//! loopback port, in memory.
//!
//! Standard library only, so any test binary of the workspace can include this file
//! (`#[path = ".../crates/pincer-store/tests/common/azure_server.rs"] mod azure_server;`).
//! [`AzureServer::shared`] starts one server per test binary; each test works in its own
//! container ([`AzureServer::container`]). The server stops when the test process ends, however
//! it ends: it exits when its standard input, held by this process, closes.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

/// A running Azurite blob service.
pub struct AzureServer {
    /// `http://127.0.0.1:PORT`
    pub endpoint: String,
    pub port: u16,
    child: Mutex<Child>,
    /// The script's commands and answers, one line each: held together, one exchange at a time.
    /// Its standard input kept open: the server stops when it closes.
    /// `None` once stopped.
    control: Mutex<Option<(ChildStdin, BufReader<ChildStdout>)>>,
}

/// The repository's root: the first parent of this crate with `scripts/azure-test-server`.
fn repository_root() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest
        .ancestors()
        .find(|dir| dir.join("scripts/azure-test-server").is_file())
        .map(Path::to_path_buf)
        .unwrap_or_else(|| panic!("no scripts/azure-test-server above {}", manifest.display()))
}

impl AzureServer {
    /// The test binary's server, started on first use.
    pub fn shared() -> &'static AzureServer {
        static SERVER: OnceLock<AzureServer> = OnceLock::new();
        SERVER.get_or_init(|| AzureServer::start().unwrap_or_else(|error| panic!("{error}")))
    }

    /// A server of its own.
    pub fn start() -> Result<AzureServer, String> {
        let script = repository_root().join("scripts/azure-test-server");
        let log = std::env::temp_dir().join(format!(
            "pincer-azure-test-server-{}.log",
            std::process::id()
        ));
        let log_file = std::fs::File::create(&log).map_err(|error| error.to_string())?;
        let mut child = Command::new(&script)
            .arg("run")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(log_file))
            .spawn()
            .map_err(|error| format!("cannot run {}: {error}", script.display()))?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let mut stdout = BufReader::new(child.stdout.take().ok_or("no stdout")?);
        let mut line = String::new();
        // The first run installs Azurite from npm (about half a minute).
        stdout
            .read_line(&mut line)
            .map_err(|error| error.to_string())?;
        let Some(address) = line.trim().strip_prefix("listening on ") else {
            let _ = child.kill();
            let _ = child.wait();
            let log_text = std::fs::read_to_string(&log).unwrap_or_default();
            return Err(format!(
                "the Azure test server (Azurite) did not start: {}\n\
                 It is installed by `scripts/azure-test-server install` (node and npm, and the \
                 npm registry); .ci/run does that.\n{log_text}",
                script.display()
            ));
        };
        let port = address
            .rsplit(':')
            .next()
            .and_then(|port| port.parse().ok())
            .ok_or_else(|| format!("unexpected server line {line:?}"))?;
        Ok(AzureServer {
            endpoint: format!("http://127.0.0.1:{port}"),
            port,
            child: Mutex::new(child),
            control: Mutex::new(Some((stdin, stdout))),
        })
    }

    /// A new, empty container with a unique name.
    pub fn container(&self) -> String {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let container = format!(
            "pincer-test-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::SeqCst)
        );
        let mut control = self
            .control
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let (stdin, stdout) = control.as_mut().expect("the Azure test server is stopped");
        writeln!(stdin, "container {container}").expect("ask the Azure test server");
        stdin.flush().expect("ask the Azure test server");
        let mut answer = String::new();
        stdout
            .read_line(&mut answer)
            .expect("read the Azure test server's answer");
        assert_eq!(
            answer.trim(),
            format!("created {container}"),
            "creating container {container}"
        );
        container
    }

    /// The environment of a client of this server: the emulator's switch and its blob
    /// endpoint (the account and its key are Azurite's well-known ones, pincer's defaults for
    /// the emulator).
    pub fn environment(&self) -> Vec<(String, String)> {
        self.environment_for(&self.endpoint)
    }

    /// The same with another endpoint (a proxy in front of this server).
    pub fn environment_for(&self, endpoint: &str) -> Vec<(String, String)> {
        [
            ("AZURE_STORAGE_USE_EMULATOR", "true"),
            ("AZURITE_BLOB_STORAGE_URL", endpoint),
        ]
        .iter()
        .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
        .collect()
    }

    /// Stop the server now: close its standard input (the script then stops Azurite, its own
    /// child, which a kill of the script would leave behind) and wait for it.
    pub fn stop(&self) {
        self.control
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        let mut child = self
            .child
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let _ = child.wait();
    }
}

impl Drop for AzureServer {
    fn drop(&mut self) {
        self.stop();
    }
}
