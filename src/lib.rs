//! pincer: run one AI-agent turn against a session kept on disk.
//!
//! The binary (`main.rs`) parses the command line and hands it to [`commands::dispatch`]; everything
//! else lives here so that the integration tests reach the same code the binary runs.
//!
//! Only `output/` writes to stdout or stderr; the crate-wide lints below make the compiler enforce it.
#![deny(clippy::print_stdout, clippy::print_stderr)]
#![warn(unreachable_pub)]

// The base layer's modules, under the names the layers above still use (`crate::fs`, ...).
pub use pincer_base::conversation;
pub(crate) use pincer_base::{cancel, consumed, fs, lenient, redact, secret, tls, trace};
// The session layer, under the name the layers above still use (`crate::session::index`, ...).
pub use pincer_session as session;
// The provider layer and its cassettes, under the names the layers above still use.
pub use pincer_provider as provider;
pub(crate) use pincer_provider::cassette;
// The built-in tools, under the name the layers above still use.
pub use pincer_tools as tools;
// The engine's modules, under the names the command layer still uses (`crate::engine::...`).
pub use pincer_engine::{agent, backend, engine};
pub(crate) use pincer_engine::{auth, control, hooks, ledger, mcp, structured};

pub mod cli;
pub mod commands;
pub mod config;
pub mod docs;
pub(crate) mod egress;
pub(crate) mod error;
pub(crate) mod input;
pub mod output;
pub(crate) mod plan;
pub(crate) mod remote;
pub(crate) mod scope;
pub(crate) mod session_setup;
pub(crate) mod settings;
pub(crate) mod suggest;
pub(crate) mod telemetry;

/// The integration tests' mock HTTP server, for the unit tests that need a real socket (the
/// provider retry loop, `web_fetch`).
#[cfg(test)]
#[allow(
    dead_code,
    unreachable_pub,
    reason = "each unit test uses only some of the mock server's helpers; the integration tests share the file, where its items are public"
)]
#[path = "../tests/common/mock.rs"]
pub(crate) mod mock_server;
