//! pincer's engine (README, Architecture): one turn, run from a resolved plan. The turn is a step
//! machine over the API engine and the CLI engine with failover between models and the recorder
//! that writes the session (`engine`); prompts, context files, skills and compaction (`agent`);
//! the CLI backends (`backend`); MCP clients (`mcp`); hooks (`hooks`); the SDK control channel
//! (`control`); structured output (`structured`); auth profiles (`auth`); the spend ledger
//! (`ledger`).
//!
//! Nothing here reads a configuration file, parses a command line, renders output or exports
//! telemetry: the `pincer` binary resolves those and hands the engine plain values (a child's
//! trace context is a [`trace::ChildTrace`]).

pub use pincer_base::conversation;
pub(crate) use pincer_base::{cancel, consumed, fs, lenient, redact, secret, trace};
pub(crate) use pincer_provider as provider;
pub(crate) use pincer_provider::cassette;
pub(crate) use pincer_session as session;
pub(crate) use pincer_tools as tools;

pub mod agent;
pub mod auth;
pub mod backend;
pub mod control;
pub mod engine;
pub mod hooks;
pub mod ledger;
pub mod mcp;
pub mod structured;
