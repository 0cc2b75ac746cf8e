//! Sessions on disk in pi's JSONL format (version 3): record types, migration of older versions,
//! context rebuild, the writer and tolerant reader, summaries and the index.
//!
//! Only `store` writes session files; only `index` writes `index.sqlite3`; only `learned_windows`
//! writes the windows learned from overflow errors; a name is given only under the lock of
//! `names`; a file is deleted or repaired only once `ownership` proves it a session file of the
//! sessions directory.

// The base layer's modules under the names this crate's modules use.
use pincer_base::{conversation, fs};

pub mod context;
pub mod error;
pub mod fork;
#[doc(hidden)]
pub mod fuzz_support;
pub mod ids;
pub mod index;
pub mod learned_windows;
pub mod listing;
pub mod migrate;
pub mod names;
pub mod ownership;
pub mod parse;
/// Messages in pi's session format as test fixtures, for the tests of the layers that never see
/// the file format themselves (providers, compaction): `features = ["test-fixtures"]` in their
/// dev-dependencies.
#[cfg(any(test, feature = "test-fixtures"))]
#[allow(
    clippy::expect_used,
    reason = "test fixtures: a fixture that does not parse is a bug in the test"
)]
pub mod pi_fixtures;
pub mod record;
mod record_fast;
pub mod resolve;
pub mod store;
pub mod summary;
pub mod tail;
pub mod transcript;
