//! Sessions on disk in pi's JSONL format (version 3): record types, migration of older versions,
//! context rebuild, the writer and tolerant reader, summaries and the index.
//!
//! Only `store` writes session files; only `index` writes `index.sqlite3`; only `learned_windows`
//! writes the windows learned from overflow errors; a name is given only under the lock of
//! `names`; a file is deleted or repaired only once `ownership` proves it a session file of the
//! sessions directory.

pub(crate) mod context;
pub(crate) mod error;
pub(crate) mod fork;
#[doc(hidden)]
pub mod fuzz_support;
pub(crate) mod ids;
pub(crate) mod index;
pub(crate) mod learned_windows;
pub(crate) mod listing;
pub(crate) mod migrate;
pub(crate) mod names;
pub(crate) mod ownership;
pub mod parse;
pub mod record;
mod record_fast;
pub(crate) mod resolve;
pub(crate) mod setup;
pub mod store;
pub(crate) mod summary;
pub mod tail;
pub mod transcript;
