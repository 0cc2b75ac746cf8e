//! The embedded agent turn: the model ⇄ tools loop, its persistence, and the system prompt.
//!
//! The loop reports everything as [`crate::output::events::Event`]s to a sink and never asks which
//! output mode is on. Every completed message is appended (and synced) before the next request.

pub mod compact;
pub mod compaction;
pub mod context_files;
pub mod heartbeat;
pub mod prompt;
pub mod skills;
pub mod turn;
