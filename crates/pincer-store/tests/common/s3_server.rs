//! A real S3-compatible server for tests: moto's server, run by `scripts/s3-test-server` (which
//! installs it into a venv under target/ on first use) on a free loopback port.
//!
//! Standard library only, so any test binary of the workspace can include this file
//! (`#[path = ".../crates/pincer-store/tests/common/s3_server.rs"] mod s3_server;`), with
//! `emulator.rs` beside it as `mod emulator;`.
//! [`S3Server::shared`] starts one server per test binary; each test works in its own bucket
//! ([`S3Server::bucket`]). The server stops when the test process ends, however it ends: it
//! exits when its standard input, held by this process, closes.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::OnceLock;
use std::time::Duration;

use super::emulator::{Emulator, unique_name};

/// A running moto server: its `endpoint` and `port` are the [`Emulator`]'s.
pub struct S3Server(Emulator);

impl std::ops::Deref for S3Server {
    type Target = Emulator;
    fn deref(&self) -> &Emulator {
        &self.0
    }
}

impl S3Server {
    /// The test binary's server, started on first use.
    pub fn shared() -> &'static S3Server {
        static SERVER: OnceLock<S3Server> = OnceLock::new();
        SERVER.get_or_init(|| S3Server::start().unwrap_or_else(|error| panic!("{error}")))
    }

    /// A server of its own (for a test that stops it).
    pub fn start() -> Result<S3Server, String> {
        Emulator::start(
            "scripts/s3-test-server",
            "the S3 test server (moto)",
            "python3 with venv, and PyPI",
            true,
        )
        .map(S3Server)
    }

    /// A new, empty bucket with a unique name: `PUT /<bucket>` (moto takes any credentials).
    pub fn bucket(&self) -> String {
        let bucket = unique_name();
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
