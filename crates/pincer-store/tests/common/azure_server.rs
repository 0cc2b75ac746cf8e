//! A real Azure Blob Storage server for tests: Azurite, the official emulator, run by
//! `scripts/azure-test-server` (which installs it from npm under target/ on first use) on a free
//! loopback port, in memory.
//!
//! Standard library only, so any test binary of the workspace can include this file
//! (`#[path = ".../crates/pincer-store/tests/common/azure_server.rs"] mod azure_server;`),
//! with `emulator.rs` beside it as `mod emulator;`.
//! [`AzureServer::shared`] starts one server per test binary; each test works in its own
//! container ([`AzureServer::container`]). The server stops when the test process ends, however
//! it ends: it exits when its standard input, held by this process, closes.

#![allow(dead_code)]

use std::sync::OnceLock;

use super::emulator::{Emulator, unique_name};

/// A running Azurite blob service: its `endpoint` and `port` are the [`Emulator`]'s.
pub struct AzureServer(Emulator);

impl std::ops::Deref for AzureServer {
    type Target = Emulator;
    fn deref(&self) -> &Emulator {
        &self.0
    }
}

impl AzureServer {
    /// The test binary's server, started on first use.
    pub fn shared() -> &'static AzureServer {
        static SERVER: OnceLock<AzureServer> = OnceLock::new();
        SERVER.get_or_init(|| AzureServer::start().unwrap_or_else(|error| panic!("{error}")))
    }

    /// A server of its own. Stopping it closes the script's input, and the script stops
    /// Azurite, its own child, which a kill of the script would leave behind.
    pub fn start() -> Result<AzureServer, String> {
        Emulator::start(
            "scripts/azure-test-server",
            "the Azure test server (Azurite)",
            "node and npm, and the npm registry",
            false,
        )
        .map(AzureServer)
    }

    /// A new, empty container with a unique name, made by the script (Azure wants the
    /// request signed).
    pub fn container(&self) -> String {
        let container = unique_name();
        assert_eq!(
            self.ask(&format!("container {container}")),
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
}
