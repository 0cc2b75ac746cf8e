//! The plan of a turn: everything a turn needs, resolved from the settings and a plain request
//! before anything is created — the chain of models with their credentials, the settings every
//! attempt shares and each attempt's own, the tools, sandbox, MCP servers, hooks, structured
//! output and replay — and the links the failover loop ([`super::failover`]) runs.

mod request;

pub(crate) use request::{CassetteRequest, PermissionMode, TurnInput, TurnRequest};

use super::TurnReport;

/// The most output tokens a request asks for, whatever the model allows.
pub(crate) const MAX_OUTPUT_TOKENS_SENT: u64 = 32_000;

/// The turn across the failover chain, with what `finish` needs of the link that ran last.
pub(crate) struct ChainOutcome {
    /// The attempts' reports added up; ending, text and context are the last attempt's.
    pub(crate) report: TurnReport,
    /// `api`, `claude-cli` or `codex-cli`: what ran the last attempt.
    pub(crate) backend: &'static str,
    /// `provider/model`, provider and model id of the last attempt.
    pub(crate) last_model: String,
    pub(crate) provider: String,
    pub(crate) model: String,
    /// The last attempt's context window.
    pub(crate) window: Option<u64>,
    /// One line per failed attempt: `provider/model: message (kind)`.
    pub(crate) errors: Vec<String>,
    /// More than one model was tried and every one failed over: the chain ran out.
    pub(crate) exhausted: bool,
}
