//! The `result` object: the last thing a run prints in `json` and `stream-json` modes (SPEC §3.2).
//!
//! This is public API that scripts parse: fields are only ever added, never renamed or removed.
//! Field names follow `claude -p --output-format json` where claude has the field.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// How a run ended, as `subtype` (claude-compatible names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResultSubtype {
    /// The turn completed.
    Success,
    /// `--max-turns` stopped the run.
    ErrorMaxTurns,
    /// `--max-budget-usd` stopped the run.
    ErrorMaxBudgetUsd,
    /// Any other failure.
    ErrorDuringExecution,
    /// `--timeout` reached.
    ErrorTimeout,
    /// SIGINT or SIGTERM.
    ErrorInterrupted,
    /// `--json-schema` answers stayed invalid.
    ErrorMaxStructuredOutputRetries,
}

/// Token usage in claude's field names, cumulative over this run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResultUsage {
    /// Uncached prompt tokens.
    pub input_tokens: u64,
    /// Prompt tokens written to the cache.
    pub cache_creation_input_tokens: u64,
    /// Prompt tokens read from the cache.
    pub cache_read_input_tokens: u64,
    /// Generated tokens.
    pub output_tokens: u64,
    /// The reasoning share of the output.
    pub reasoning_tokens: u64,
}

/// Per-model usage (claude's `modelUsage` values).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ModelUsage {
    /// Uncached prompt tokens.
    pub input_tokens: u64,
    /// Generated tokens.
    pub output_tokens: u64,
    /// Prompt tokens read from the cache.
    pub cache_read_input_tokens: u64,
    /// Prompt tokens written to the cache.
    pub cache_creation_input_tokens: u64,
    /// Cost in US dollars.
    #[serde(rename = "costUSD")]
    pub cost_usd: f64,
    /// The model's context window, when known.
    pub context_window: Option<u64>,
}

/// Context occupancy after the run (SPEC §8).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResultContext {
    /// Tokens in context after the last successful call.
    pub tokens: u64,
    /// The window, when known.
    pub window: Option<u64>,
    /// Percent of the window, one decimal.
    pub percent: Option<f64>,
}

/// The error of a failed run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResultError {
    /// The class: `usage`, `auth`, `rate_limit`, `context_overflow`, `timeout`, …
    pub kind: String,
    /// One line for people.
    pub message: String,
    /// The provider involved, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// The HTTP status, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// Whether trying again later may succeed.
    pub retryable: bool,
}

/// The terminal record of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunResult {
    /// Always `"result"`.
    #[serde(rename = "type")]
    pub kind: String,
    /// How the run ended.
    pub subtype: ResultSubtype,
    /// True exactly when the exit code is non-zero.
    pub is_error: bool,
    /// The final assistant text.
    pub result: String,
    /// The session's id (absent when the run never got one).
    pub session_id: Option<String>,
    /// The session's name.
    pub session_name: Option<String>,
    /// Model round-trips in this run.
    pub num_turns: u32,
    /// Wall-clock time of the run.
    pub duration_ms: u64,
    /// Time spent waiting on the provider or child.
    pub duration_api_ms: u64,
    /// Cost of this run.
    pub total_cost_usd: f64,
    /// Usage summed over this run.
    pub usage: ResultUsage,
    /// Usage per model.
    #[serde(rename = "modelUsage")]
    pub model_usage: BTreeMap<String, ModelUsage>,
    /// Context occupancy after the run.
    pub context: ResultContext,
    /// Why the model stopped, in claude's words: `end_turn`, `max_tokens`, `tool_use`,
    /// `stop_sequence`, `refusal` or `pause_turn`, whatever the provider.
    pub stop_reason: Option<String>,
    /// The provider's own word for it (`end_turn`, `completed`, `length`, `STOP`, …).
    pub provider_stop_reason: Option<String>,
    /// Why the run stopped: `completed`, `max_turns`, `error`, …
    pub terminal_reason: String,
    /// Error messages, oldest first.
    pub errors: Vec<String>,
    /// The error, when `is_error`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ResultError>,
    /// Tool calls the policy refused.
    pub permission_denials: Vec<serde_json::Value>,
    /// The parsed answer under `--json-schema`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structured_output: Option<serde_json::Value>,
    /// The model reference used.
    pub model: Option<String>,
    /// The provider used.
    pub provider: Option<String>,
    /// `api`, `claude-cli` or `codex-cli`.
    pub backend: Option<String>,
    /// Compactions in this run.
    pub compactions: u32,
    /// On heartbeat runs: whether the reply was `HEARTBEAT_OK`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub heartbeat_ok: Option<bool>,
    /// A fresh UUIDv4 for this line, as on every stream-json line.
    pub uuid: String,
}

impl RunResult {
    /// A result for a run that failed before any model call (config, usage, lock, …).
    pub fn early_error(
        subtype: ResultSubtype,
        kind: &str,
        message: &str,
        duration_ms: u64,
    ) -> RunResult {
        RunResult {
            kind: "result".to_owned(),
            subtype,
            is_error: true,
            result: String::new(),
            session_id: None,
            session_name: None,
            num_turns: 0,
            duration_ms,
            duration_api_ms: 0,
            total_cost_usd: 0.0,
            usage: ResultUsage::default(),
            model_usage: BTreeMap::new(),
            context: ResultContext::default(),
            stop_reason: None,
            provider_stop_reason: None,
            terminal_reason: "error".to_owned(),
            errors: vec![message.to_owned()],
            error: Some(ResultError {
                kind: kind.to_owned(),
                message: message.to_owned(),
                provider: None,
                status: None,
                retryable: false,
            }),
            permission_denials: Vec::new(),
            structured_output: None,
            model: None,
            provider: None,
            backend: None,
            compactions: 0,
            heartbeat_ok: None,
            uuid: super::events::new_uuid(),
        }
    }
}
