//! Session files in pi's JSONL format (version 3), shared with pi and OpenClaw (SPEC §5).
//!
//! `record` holds the serde types of every line and the line codec, `migrate` brings v1 and v2
//! files up to v3 on the raw JSON before typing, and `context` rebuilds what the model sees from
//! the root→leaf path. All three are pure: reading, locking and appending files happen elsewhere.

pub mod context;
pub mod migrate;
pub mod record;
