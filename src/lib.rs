//! pincer: run one AI-agent turn against a session kept on disk.
//!
//! The binary (`main.rs`) parses the command line and hands it to [`commands::dispatch`]; everything
//! else lives here so that the integration tests reach the same code the binary runs.
//!
//! Only `output/` writes to stdout or stderr; the crate-wide lints below make the compiler enforce it.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod agent;
pub mod auth;
pub mod backend;
pub mod cancel;
pub mod cassette;
pub mod cli;
pub mod commands;
pub mod config;
pub mod control;
pub mod conversation;
pub mod docs;
pub mod engine;
pub mod error;
pub mod fs;
pub mod hooks;
pub mod input;
pub mod ledger;
pub mod mcp;
pub mod output;
pub mod provider;
pub mod redact;
pub mod secret;
pub mod session;
pub mod settings;
pub mod structured;
pub mod telemetry;
pub mod tls;
pub mod tools;

/// The integration tests' mock HTTP server, for the unit tests that need a real socket (the
/// provider retry loop, `web_fetch`).
#[cfg(test)]
#[allow(
    dead_code,
    reason = "each unit test uses only some of the mock server's helpers"
)]
#[path = "../tests/common/mock.rs"]
pub(crate) mod mock_server;
