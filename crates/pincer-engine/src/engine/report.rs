//! What a turn did: how it ended, its usage and cost, the calls it made. Both engines fill the
//! same report, so `commands/` builds the same result object for every backend.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::Value;

use super::CancelReason;
use crate::conversation::TokenUsage;
use crate::provider::ProviderError;
use crate::provider::classify::FailureKind;
use crate::session::store::SessionError;

/// How the turn ended.
#[derive(Debug)]
pub enum Ending {
    /// The model answered without calling more tools.
    Completed,
    /// `--max-turns` reached while the model still wanted to continue.
    MaxTurns,
    /// `--max-budget-usd` reached while the model still wanted to continue.
    MaxBudget,
    /// A model call failed.
    Failed {
        /// The error.
        error: ProviderError,
        /// Its class.
        kind: FailureKind,
    },
    /// The final message hit the output limit before any answer text (exit 1, `output_limit`).
    OutputLimit {
        /// The limit the request carried, when pincer set it (a CLI child sets its own).
        max_output_tokens: Option<u64>,
    },
    /// A signal or the timeout stopped the run.
    Cancelled(CancelReason),
    /// The session could not be written: the run stops rather than continue unrecorded.
    Persistence(SessionError),
    /// A CLI child could not be started (the CLI engine turns this into an error of its own).
    NotStarted(super::cli::StartFailure),
    /// A hook said `continue: false` (SPEC §14): the turn stops (exit 1, `error.kind = "hook"`).
    HookStopped {
        /// The hook's event.
        event: &'static str,
        /// Its `stopReason`.
        reason: String,
    },
    /// The answer still did not match `--json-schema` after `retries` answers were sent back
    /// (exit 1, `error_max_structured_output_retries`); the last answer is the report's text.
    StructuredOutputInvalid {
        /// The last answer's validation errors (`path: message`).
        errors: Vec<String>,
        /// `structured_output.max_retries`.
        retries: u32,
    },
}

/// A refused tool call, as claude lists it in `permission_denials`.
#[derive(Debug, Clone, PartialEq)]
pub struct Denial {
    /// The tool.
    pub tool_name: String,
    /// The call id.
    pub tool_use_id: String,
    /// Its arguments.
    pub tool_input: Value,
}

/// The model a front-end switched the turn to while it ran (an agent SDK's `set_model`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwitchedModel {
    /// The provider name.
    pub provider: String,
    /// The model id as the provider spells it.
    pub model: String,
}

/// Per-model totals for the result's `modelUsage`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelTotals {
    /// Summed usage.
    pub usage: TokenUsage,
    /// Summed cost.
    pub cost_usd: f64,
}

/// What happened in the turn.
#[derive(Debug)]
pub struct TurnReport {
    /// How it ended.
    pub ending: Ending,
    /// The last assistant message's text.
    pub final_text: String,
    /// The provider's stop word of the last call.
    pub provider_stop_reason: Option<String>,
    /// The last call's stop reason in claude's words (`end_turn`, `tool_use`, `max_tokens`, …).
    pub stop_reason: Option<&'static str>,
    /// Completed model round trips (a retried, rotated or re-sent call counts once).
    pub model_calls: u32,
    /// Usage summed over this run.
    pub usage: TokenUsage,
    /// Cost of this run.
    pub cost_usd: f64,
    /// Per model id.
    pub model_usage: BTreeMap<String, ModelTotals>,
    /// Usage of the last successful call (the context snapshot).
    pub last_usage: Option<TokenUsage>,
    /// Time spent in model calls.
    pub api_duration: Duration,
    /// Tool calls refused by the policy, the sandbox or confinement.
    pub permission_denials: Vec<Denial>,
    /// Hosts the egress proxy refused so far in the run, each once with its count (SPEC §20).
    pub network_denials: Vec<pincer_egress::Denial>,
    /// Compactions in this run.
    pub compactions: u32,
    /// Estimated context after a compaction that followed the last call (the last call's usage
    /// no longer describes the context then).
    pub context_estimate: Option<u64>,
    /// The context window an overflow error stated, when it is smaller than the one the turn
    /// started with (or that was unknown): the turn used it from then on, and `commands/`
    /// remembers it for the model (SPEC §7).
    pub learned_window: Option<u64>,
    /// What each request of the last attempt carried besides the messages (system prompt and
    /// tool definitions, estimated as characters / 4); `None` for a CLI backend, whose own
    /// prompt pincer does not see.
    pub overhead_tokens: Option<u64>,
    /// With `--json-schema`: the answer's value, once it matched the schema.
    pub structured_output: Option<Value>,
    /// The model the front-end switched the turn to, when it did: it sent the last requests.
    pub switched_model: Option<SwitchedModel>,
}

impl TurnReport {
    /// A report of nothing done yet, ending as `ending`.
    pub fn empty(ending: Ending) -> TurnReport {
        TurnReport {
            ending,
            final_text: String::new(),
            provider_stop_reason: None,
            stop_reason: None,
            model_calls: 0,
            usage: TokenUsage::default(),
            cost_usd: 0.0,
            model_usage: BTreeMap::new(),
            last_usage: None,
            api_duration: Duration::ZERO,
            permission_denials: Vec::new(),
            network_denials: Vec::new(),
            compactions: 0,
            context_estimate: None,
            learned_window: None,
            overhead_tokens: None,
            structured_output: None,
            switched_model: None,
        }
    }

    /// Add a later attempt's report (the next link of the failover chain) to this one: counts,
    /// usage, cost and denials add up; the ending, the text and the context are the later one's.
    pub fn absorb(&mut self, part: TurnReport) {
        self.model_calls += part.model_calls;
        self.usage.add(&part.usage);
        self.cost_usd += part.cost_usd;
        for (model, totals) in part.model_usage {
            let entry = self.model_usage.entry(model).or_default();
            entry.usage.add(&totals.usage);
            entry.cost_usd += totals.cost_usd;
        }
        self.api_duration += part.api_duration;
        self.permission_denials.extend(part.permission_denials);
        // The proxy's log covers the whole run: a later attempt's list holds the earlier one's.
        if !part.network_denials.is_empty() {
            self.network_denials = part.network_denials;
        }
        self.compactions += part.compactions;
        self.ending = part.ending;
        self.final_text = part.final_text;
        self.provider_stop_reason = part.provider_stop_reason;
        self.stop_reason = part.stop_reason;
        if part.last_usage.is_some() {
            self.last_usage = part.last_usage;
        }
        self.context_estimate = part.context_estimate;
        self.overhead_tokens = part.overhead_tokens;
        if part.learned_window.is_some() {
            self.learned_window = part.learned_window;
        }
        self.structured_output = part.structured_output;
        self.switched_model = part.switched_model;
    }
}
