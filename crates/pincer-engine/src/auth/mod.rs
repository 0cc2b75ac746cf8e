//! Credential profiles: the store file, its secrets, cooldowns and the resolution order
//! (SPEC §9.1, §9.3).
//!
//! - [`store`] owns `<config>/auth-profiles.json` (OpenClaw's layout): created 0600 in a 0700
//!   directory, replaced atomically, mutated only under its lock after a fresh read.
//! - key material is a [`Secret`] (`crate::secret`), which prints a fingerprint, never the value.
//! - [`cooldown`] is the pure failure/success bookkeeping (1, 5, 25, 60 minutes; billing 5 h
//!   doubling to 24 h).
//! - [`resolve`] turns the store plus the environment into an ordered list of candidates.
//!
//! Nothing here prints; commands report warnings and errors.

pub mod cooldown;
pub mod resolve;
pub mod store;

use std::path::PathBuf;

pub use crate::secret::Secret;
pub use resolve::resolve;
pub use store::{AuthFile, Profile, ProfileType, SecretRef, Store};

/// Why the profile store could not be read or changed.
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    /// The file is not valid JSON or not in the expected shape. It is never overwritten.
    #[error(
        "auth store '{}' is not valid: line {line}, column {column}: {message}",
        .path.display()
    )]
    Corrupt {
        /// The store file.
        path: PathBuf,
        /// 1-based line of the problem.
        line: usize,
        /// 1-based column of the problem.
        column: usize,
        /// What the parser said.
        message: String,
    },
    /// The file declares a layout version this build does not know.
    #[error(
        "auth store '{}' has version {version}; this pincer reads version {}",
        .path.display(),
        store::STORE_VERSION
    )]
    UnsupportedVersion {
        /// The store file.
        path: PathBuf,
        /// The version found.
        version: u64,
    },
    /// Reading, writing or creating the file or its directory failed.
    #[error("cannot access auth store '{}': {source}", .path.display())]
    Io {
        /// The file or directory involved.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The store's lock could not be taken: another process held it too long, the run's
    /// `--timeout` came, or the store is where locks are not shared.
    #[error("cannot change auth store '{}': {source}", .path.display())]
    Locked {
        /// The store file.
        path: PathBuf,
        /// The lock failure.
        source: crate::fs::LockError,
    },
    /// A command referred to a profile id that is not in the store.
    #[error("no auth profile '{id}'")]
    NoSuchProfile {
        /// The id asked for.
        id: String,
    },
    /// A change was refused because it would make the store inconsistent.
    #[error("{0}")]
    Invalid(String),
}
