//! A real S3-compatible server for tests: moto's server, run by `scripts/s3-test-server` (which
//! installs it into a venv under target/ on first use) on a free loopback port.
//!
//! Standard library only, so any test binary of the workspace can include this file
//! (`#[path = ".../crates/pincer-store/tests/common/s3_server.rs"] mod s3_server;`).
//! [`S3Server::shared`] starts one server per test binary; each test works in its own bucket
//! ([`S3Server::bucket`]). The server stops when the test process ends, however it ends: it
//! exits when its standard input, held by this process, closes.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

/// A running moto server.
pub struct S3Server {
    /// `http://127.0.0.1:PORT`
    pub endpoint: String,
    pub port: u16,
    child: Mutex<Child>,
    /// Kept open: the server stops when it closes.
    _stdin: Mutex<ChildStdin>,
}

/// The repository's root: the first parent of this crate with `scripts/s3-test-server`.
fn repository_root() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest
        .ancestors()
        .find(|dir| dir.join("scripts/s3-test-server").is_file())
        .map(Path::to_path_buf)
        .unwrap_or_else(|| panic!("no scripts/s3-test-server above {}", manifest.display()))
}

impl S3Server {
    /// The test binary's server, started on first use.
    pub fn shared() -> &'static S3Server {
        static SERVER: OnceLock<S3Server> = OnceLock::new();
        SERVER.get_or_init(|| S3Server::start().unwrap_or_else(|error| panic!("{error}")))
    }

    /// A server of its own (for a test that stops it).
    pub fn start() -> Result<S3Server, String> {
        let script = repository_root().join("scripts/s3-test-server");
        let log =
            std::env::temp_dir().join(format!("pincer-s3-test-server-{}.log", std::process::id()));
        let log_file = std::fs::File::create(&log).map_err(|error| error.to_string())?;
        let mut child = Command::new(&script)
            .arg("run")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(log_file))
            .spawn()
            .map_err(|error| format!("cannot run {}: {error}", script.display()))?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let mut line = String::new();
        // The first run installs moto from PyPI (about a minute).
        BufReader::new(stdout)
            .read_line(&mut line)
            .map_err(|error| error.to_string())?;
        let Some(address) = line.trim().strip_prefix("listening on ") else {
            let _ = child.kill();
            let _ = child.wait();
            let log_text = std::fs::read_to_string(&log).unwrap_or_default();
            return Err(format!(
                "the S3 test server (moto) did not start: {}\n\
                 It is installed by `scripts/s3-test-server install` (python3 with venv, and \
                 PyPI); .ci/run does that.\n{log_text}",
                script.display()
            ));
        };
        let port = address
            .rsplit(':')
            .next()
            .and_then(|port| port.parse().ok())
            .ok_or_else(|| format!("unexpected server line {line:?}"))?;
        Ok(S3Server {
            endpoint: format!("http://127.0.0.1:{port}"),
            port,
            child: Mutex::new(child),
            _stdin: Mutex::new(stdin),
        })
    }

    /// A new, empty bucket with a unique name: `PUT /<bucket>` (moto takes any credentials).
    pub fn bucket(&self) -> String {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let bucket = format!(
            "pincer-test-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::SeqCst)
        );
        let status = http(self.port, "PUT", &format!("/{bucket}"));
        assert!(
            status.starts_with("HTTP/1.1 200"),
            "creating bucket {bucket}: {status}"
        );
        bucket
    }

    /// The environment of a client of this server: its endpoint over plain HTTP and dummy
    /// credentials.
    pub fn environment(&self) -> Vec<(String, String)> {
        self.environment_for(&self.endpoint)
    }

    /// The same credentials with another endpoint (a proxy in front of this server).
    pub fn environment_for(&self, endpoint: &str) -> Vec<(String, String)> {
        [
            ("AWS_ENDPOINT_URL", endpoint),
            ("AWS_ALLOW_HTTP", "true"),
            ("AWS_REGION", "us-east-1"),
            ("AWS_ACCESS_KEY_ID", "testing-key-id"),
            ("AWS_SECRET_ACCESS_KEY", "testing-secret-access-key"),
        ]
        .iter()
        .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
        .collect()
    }

    /// Stop the server now.
    pub fn stop(&self) {
        let mut child = self
            .child
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let _ = child.kill();
        let _ = child.wait();
    }
}

impl Drop for S3Server {
    fn drop(&mut self) {
        self.stop();
    }
}

/// One plain HTTP/1.1 request; the status line of its answer.
fn http(port: u16, method: &str, path: &str) -> String {
    let mut stream =
        TcpStream::connect(("127.0.0.1", port)).expect("connect to the S3 test server");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("set a read timeout");
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    )
    .expect("send the request");
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    answer.lines().next().unwrap_or_default().to_owned()
}
