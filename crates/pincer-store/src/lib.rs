//! pincer's session store on object storage (SPEC §19, issue #49): sessions that carry on
//! from one machine to the next, with one writer per session across machines and no clock
//! compared across machines.
//!
//! The crate speaks bytes and session ids, not pincer's types: a segment is pi v3 JSONL bytes
//! the caller gives it. It works over the `object_store` crate: `s3://bucket/prefix` (AWS and
//! every S3-compatible service with conditional writes), `gs://`, `az://`, and `memory://` for
//! tests; see [`Store::open`].
//!
//! # Layout
//! One folder per session under the store's prefix:
//!
//! ```text
//! <prefix>/store.json                                 written once the consistency check passed
//! <prefix>/names/<name>.json                          create-only: {"name", "session"}
//! <prefix>/sessions/<id>/segments/00000000000000000001.jsonl
//!                                     create-only, one per committed turn, 20-digit numbers so
//!                                     key order is turn order; the first holds the header line
//! <prefix>/sessions/<id>/manifest.json                compare-and-swap: segment count, last
//!                                                     turn, latest snapshot
//! <prefix>/sessions/<id>/lease.json                   create-or-compare-and-swap: holder,
//!                                                     host, epoch, TTL
//! <prefix>/sessions/<id>/keys/<sha256 of key>.json    create-only: idempotency key → segment
//! <prefix>/sessions/<id>/snapshots/<through>.jsonl    create-only: a compacted stand-in for
//!                                                     segments 1 to <through>
//! <prefix>/sessions/<id>/names/<name>.json            the names claimed for the session
//! ```
//!
//! The segments concatenated in key order are a valid pi v3 session file ([`Store::pull`]):
//! every commit is checked to be whole JSON lines, the first segment starting with this
//! session's header and no later one holding a header.
//!
//! # One writer per session
//! A writer takes the session's lease ([`Store::acquire_lease`]), reads the segments it lacks
//! ([`Store::read_segments`] after its cached copy, up to [`Lease::head`]), runs its turn while
//! the lease is renewed ([`Lease::keep_alive`]), and commits the turn as a create-only PUT of
//! the next segment number ([`Lease::commit`]). A busy lease is [`StoreError::Busy`]; a waiter
//! takes over a lease only after watching its version unchanged for its TTL on the waiter's
//! own monotonic clock (see the `lease` module). A holder paused past its lease that wakes up
//! finds its lease taken at the renewal before its commit, or its segment number already
//! created: [`StoreError::LeaseLost`] or [`StoreError::Fenced`], nothing written.
//!
//! # Retried steps
//! A commit may carry an idempotency key ([`CommitMeta`]); [`Store::find_turn_by_key`] finds
//! the turn a retried step already committed, and a second commit with the same key writes
//! nothing ([`CommitOutcome::AlreadyCommitted`]).
//!
//! # Errors
//! [`StoreError::kind`] sorts every failure into what a command line maps to an exit code:
//! unavailable (retryable), refused (credentials), busy, fenced, not found, inconsistent,
//! invalid, diverged. No message carries a credential (see the `error` module).

mod consistency;
mod error;
mod layout;
mod lease;
mod listing;
mod names;
mod records;
mod session;
mod store;
mod transfer;

pub use error::{ErrorKind, StoreError};
pub use layout::SessionId;
pub use lease::{Holder, KeepAlive, Lease};
pub use listing::SessionFacts;
pub use names::NameClaim;
pub use records::{Manifest, SnapshotReference};
pub use session::{Checkpoint, CommitMeta, CommitOutcome, Segment, Snapshot};
pub use store::{Environment, Store, StoreOptions, is_credential_variable};
pub use transfer::{Pulled, Pushed};

/// The bytes type of segments and session files.
pub use bytes::Bytes;

/// The object store crate this one is built on, for callers that wrap a store
/// ([`Store::wrap`]).
pub use object_store;
