//! The session store's test server for the root suite (issue #49): the store crate's moto
//! helper (`crates/pincer-store/tests/common/s3_server.rs`, standard library only), and a store
//! per test, each in a bucket of its own on the test binary's one server.
//!
//! ```ignore
//! let store = S3Store::new();
//! home_a.pincer().store(&store).args(["run", "--name", "n", "hi"]).output();
//! home_b.pincer().store(&store).args(["resume", "n", "again"]).output();
//! ```

#[path = "../../crates/pincer-store/tests/common/s3_server.rs"]
mod server;

#[path = "../../crates/pincer-store/tests/common/azure_server.rs"]
mod azure_server;

#[path = "../../crates/pincer-store/tests/common/emulator.rs"]
mod emulator;

pub use azure_server::AzureServer;
pub use server::S3Server;

/// A store for one test: `s3://BUCKET/sessions` on a moto server, and the variables that reach
/// it (the endpoint over plain HTTP, a region, dummy credentials); or, from
/// [`S3Store::azure`], `az://CONTAINER/sessions` on Azurite.
#[derive(Debug, Clone)]
pub struct S3Store {
    pub url: String,
    pub bucket: String,
    pub environment: Vec<(String, String)>,
}

impl S3Store {
    /// A new, empty bucket on the test binary's shared server.
    pub fn new() -> S3Store {
        S3Store::on(S3Server::shared())
    }

    /// A new, empty container on the test binary's shared Azurite (Azure Blob Storage)
    /// server, and the emulator's variables.
    pub fn azure() -> S3Store {
        let server = AzureServer::shared();
        let container = server.container();
        S3Store {
            url: format!("az://{container}/sessions"),
            bucket: container,
            environment: server.environment(),
        }
    }

    /// A new, empty bucket on `server` (a server of a test's own, which it may stop).
    pub fn on(server: &S3Server) -> S3Store {
        let bucket = server.bucket();
        S3Store {
            url: format!("s3://{bucket}/sessions"),
            bucket,
            environment: server.environment(),
        }
    }
}
