//! The turn: a step machine over one [`Engine`] trait with two implementations — the API engine
//! (`api`, built from `agent/`'s parts: prompts, compaction, tools, providers) and the CLI engine
//! (`cli`, built from `backend/`'s child process and stream readers) — and the failover loop
//! (`failover`) that runs the chain of models.
//!
//! The engines report meaning-level [`Event`]s to an [`EventSink`] (rendered by `output/`,
//! persisted where needed by `commands/`) and fill a [`TurnReport`]; they see no clap types, no
//! output mode and no configuration file: everything arrives resolved.

pub mod api;
pub mod cli;
pub mod event;
pub mod failover;
pub mod hooks;
pub mod recorder;
mod replay;
mod report;
pub mod step;
mod structured;

pub use crate::cancel::{CancelReason, Cancellation};
pub use event::{Event, EventSink};
pub use report::{Denial, Ending, ModelTotals, SwitchedModel, TurnReport};
