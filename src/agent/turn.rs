//! The agent loop: stream the assistant message, run its tool calls, append the results, repeat
//! until the model stops calling tools or a guardrail, the timeout or a signal stops it.
//!
//! Invariants: every completed message (assistant or tool result) is persisted and synced before
//! the next request; an interrupted message is persisted as `aborted` with its partial text, a
//! failed one as `error` with the message; the request never carries an invalid transcript
//! (unanswered tool calls get synthetic error results).

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::compact::{self, SummaryModel};
use super::compaction;
use super::render;
use super::transcript::Transcript;
use crate::config::ModelInfo;
use crate::conversation::TokenUsage;
use crate::output::events::{Event, EventSink, Phase, ToolEnd, ToolStart};
use crate::output::partial::MessageEnd;
use crate::output::stop_reason::claude_stop_reason;
use crate::provider::classify::{FailureKind, classify};
use crate::provider::http::{CallOutcome, Endpoint};
use crate::provider::retry::{self, RetryNotice, RetryPolicy};
use crate::provider::{
    self, Accumulator, ApiKind, ModelRequest, ProviderError, StreamEvent, ThinkingLevel,
    ToolDefinition,
};
use crate::session::record::{
    AgentMessage, AssistantContent, AssistantMessage, ContentBlock, StopReason, TextContent,
    ToolResultMessage,
};
use crate::session::store::SessionError;
use crate::settings::CompactionSettings;
use crate::tools::policy::{Decision, ToolPolicy};
use crate::tools::{self, Sandbox, ToolContext};

/// Assistant turns at the end of the conversation whose tool results pruning never touches.
const PROTECTED_RECENT_TURNS: usize = 3;

/// Why the run was cancelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CancelReason {
    /// SIGINT.
    Interrupt,
    /// SIGTERM.
    Terminate,
    /// `--timeout` reached.
    Timeout,
}

impl CancelReason {
    /// What ended the run, as the result object and the aborted message say it.
    pub fn message(self) -> &'static str {
        match self {
            CancelReason::Interrupt => "interrupted by SIGINT",
            CancelReason::Terminate => "terminated by SIGTERM",
            CancelReason::Timeout => "the run's --timeout was reached",
        }
    }
}

/// A cancellation token plus the reason it fired, set once by whoever cancels first.
#[derive(Debug, Clone, Default)]
pub struct Cancellation {
    /// The token every await watches.
    pub token: CancellationToken,
    reason: Arc<OnceLock<CancelReason>>,
}

impl Cancellation {
    /// A fresh, uncancelled state.
    pub fn new() -> Cancellation {
        Cancellation::default()
    }

    /// Cancel for `reason` (the first reason wins).
    pub fn cancel(&self, reason: CancelReason) {
        let _ = self.reason.set(reason);
        self.token.cancel();
    }

    /// Why it was cancelled, if it was.
    pub fn reason(&self) -> Option<CancelReason> {
        self.reason.get().copied()
    }
}

/// Everything fixed for one turn.
#[derive(Debug, Clone)]
pub struct TurnSettings {
    /// Wire protocol.
    pub api: ApiKind,
    /// Where requests go.
    pub endpoint: Endpoint,
    /// Provider name (`anthropic`, `ollama`, …).
    pub provider: String,
    /// Model id as the provider spells it.
    pub model: String,
    /// The system prompt, sent on every request.
    pub system_prompt: String,
    /// Tools offered.
    pub tools: Vec<ToolDefinition>,
    /// Reasoning level.
    pub thinking: ThinkingLevel,
    /// `--max-thinking-tokens`: the exact budget, while the turn runs at `thinking` (a step down
    /// after a rejected level drops it).
    pub thinking_budget: Option<u64>,
    /// Output token limit per call.
    pub max_output_tokens: u64,
    /// Catalog facts (prices, window), when known.
    pub model_info: Option<ModelInfo>,
    /// `--max-turns`: model round-trips allowed.
    pub max_turns: Option<u32>,
    /// `--max-budget-usd`.
    pub max_budget_usd: Option<f64>,
    /// Longest silence from the provider.
    pub idle_timeout: Duration,
    /// The session id for event lines.
    pub session_id: Option<String>,
    /// Workspace for tools.
    pub workspace: PathBuf,
    /// Which tools are offered and which calls are allowed.
    pub policy: ToolPolicy,
    /// The MCP servers whose tools are offered next to the built-in ones (SPEC §13).
    pub mcp: std::sync::Arc<crate::mcp::McpSet>,
    /// Where file tools may reach and what `exec` may write.
    pub sandbox: Sandbox,
    /// Automatic compaction.
    pub compaction: CompactionSettings,
    /// The model's context window, when known (compaction needs it).
    pub context_window: Option<u64>,
    /// Retries of failed calls before any output (SPEC §9.3).
    pub retry: RetryPolicy,
    /// Further credentials to rotate to when the current one is rejected, rate-limited or out
    /// of credit, in order (the endpoint carries the first).
    pub spare_credentials: Vec<Credential>,
    /// The credential in use: its profile id (None for an environment variable) and source.
    pub credential: Credential,
    /// The profile store, to record successes, failures and cooldowns.
    pub auth_file: Option<std::path::PathBuf>,
}

/// A credential the turn may use.
#[derive(Clone)]
pub struct Credential {
    /// The profile id, or None for an environment variable.
    pub profile_id: Option<String>,
    /// `profile:ID` or `env:VAR`.
    pub source: String,
    /// The key (never printed).
    pub key: Option<String>,
    /// Whether the profile is in a cooldown or disabled now (it is tried last).
    pub cooling: bool,
}

impl std::fmt::Debug for Credential {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Credential")
            .field("source", &self.source)
            .finish_non_exhaustive()
    }
}

/// Record a credential's outcome in the profile store (cooldowns persist across processes).
fn record_outcome(
    auth_file: Option<&std::path::Path>,
    credential: &Credential,
    provider: &str,
    failure: Option<&str>,
) {
    let (Some(path), Some(profile_id)) = (auth_file, credential.profile_id.as_deref()) else {
        return;
    };
    let now = u64::try_from(now_millis()).unwrap_or(0);
    let _ = crate::auth::AuthFile::new(path).update(|store| {
        let stats = store
            .usage_stats
            .get(profile_id)
            .cloned()
            .unwrap_or_default();
        let updated = match failure {
            Some(kind) => crate::auth::cooldown::record_failure(&stats, kind, now),
            None => {
                store
                    .last_good
                    .insert(provider.to_owned(), profile_id.to_owned());
                crate::auth::cooldown::record_success(&stats, now)
            }
        };
        store.usage_stats.insert(profile_id.to_owned(), updated);
        Ok(())
    });
}

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
    /// Tool calls the policy refused (`{tool_name, tool_use_id, tool_input}`, as claude reports).
    pub permission_denials: Vec<Value>,
    /// Compactions in this run.
    pub compactions: u32,
    /// Estimated context after a compaction that followed the last call (the last call's usage
    /// no longer describes the context then).
    pub context_estimate: Option<u64>,
    /// The context window an overflow error stated, when it is smaller than the one the turn
    /// started with (or that was unknown): the turn used it from then on, and `commands/`
    /// remembers it for the model (SPEC §7).
    pub learned_window: Option<u64>,
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
            compactions: 0,
            context_estimate: None,
            learned_window: None,
        }
    }
}

/// The messages as they go to the model: failed and aborted assistant messages are left out (pi
/// does the same), every tool call gets a result (a synthetic error result for a missing one),
/// and tool results without a call are dropped.
pub fn request_messages(messages: &[AgentMessage]) -> Vec<AgentMessage> {
    let kept: Vec<&AgentMessage> = messages
        .iter()
        .filter(|message| match message {
            AgentMessage::Assistant(assistant) => !matches!(
                assistant.stop_reason,
                StopReason::Error | StopReason::Aborted
            ),
            _ => true,
        })
        .collect();
    let mut output: Vec<AgentMessage> = Vec::with_capacity(kept.len());
    let mut index = 0;
    while index < kept.len() {
        let message = kept[index];
        index += 1;
        match message {
            AgentMessage::ToolResult(_) => {
                // Results are consumed right after their assistant message; one here is orphaned.
                continue;
            }
            AgentMessage::Assistant(assistant) => {
                output.push(message.clone());
                let calls: Vec<(String, String)> = assistant
                    .content
                    .iter()
                    .filter_map(|block| match block {
                        AssistantContent::ToolCall(call) => {
                            Some((call.id.clone(), call.name.clone()))
                        }
                        _ => None,
                    })
                    .collect();
                let mut answered = HashSet::new();
                while index < kept.len() {
                    let AgentMessage::ToolResult(result) = kept[index] else {
                        break;
                    };
                    index += 1;
                    if calls.iter().any(|(id, _)| *id == result.tool_call_id)
                        && answered.insert(result.tool_call_id.clone())
                    {
                        output.push(kept[index - 1].clone());
                    }
                }
                for (id, name) in calls {
                    if !answered.contains(&id) {
                        output.push(AgentMessage::ToolResult(ToolResultMessage {
                            tool_call_id: id,
                            tool_name: name,
                            content: vec![text_block(
                                "missing tool result in session history; inserted as an error so the transcript stays valid",
                            )],
                            details: None,
                            is_error: true,
                            timestamp: 0,
                            extra: Map::new(),
                        }));
                    }
                }
            }
            _ => output.push(message.clone()),
        }
    }
    output
}

/// Whether an assistant message says anything (text that is not only whitespace).
fn has_answer(message: &AssistantMessage) -> bool {
    message.content.iter().any(|block| match block {
        AssistantContent::Text(text) => !text.text.trim().is_empty(),
        _ => false,
    })
}

/// A text content block.
pub fn text_block(text: &str) -> ContentBlock {
    ContentBlock::Text(TextContent {
        text: text.to_owned(),
        text_signature: None,
        extra: Map::new(),
    })
}

/// Milliseconds since the epoch (pi's message timestamps).
pub fn now_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |duration| {
            i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
        })
}

fn usage_cost(info: Option<&ModelInfo>, usage: &TokenUsage) -> crate::session::record::Cost {
    let Some(info) = info else {
        return crate::session::record::Cost::default();
    };
    let cost = info.usage_cost(usage);
    crate::session::record::Cost {
        input: cost.input,
        output: cost.output,
        cache_read: cost.cache_read,
        cache_write: cost.cache_write,
        total: cost.total,
    }
}

struct Progress {
    text_printed: bool,
    separator_pending: bool,
    /// Text the current call has shown so far.
    call_text: String,
    /// Whether the current call has passed on anything visible (text, thinking, a tool call):
    /// then a failure is a broken stream, which the retry loop leaves to the turn.
    call_output: bool,
    /// After a broken stream: the text the retried call is expected to repeat.
    replay: Replay,
}

/// What a retried call does with text the broken call already showed (SPEC §9.3): a retry that
/// repeats it shows only what follows, so nothing is printed twice; a retry that goes its own way
/// is shown in full after a notice.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
struct Replay {
    /// Text already shown that the retried call should repeat; empty when no replay is active.
    shown: String,
    /// How many bytes of `shown` the retried call has repeated so far.
    matched: usize,
}

/// The fate of one text delta of a retried call.
#[derive(Debug, PartialEq, Eq)]
enum ReplayStep {
    /// Show this text (all of the delta, or the part after the repeated text).
    Show(String),
    /// The delta repeats text already shown: show nothing.
    Hide,
    /// The retried call differs from what was shown: this is its whole text so far.
    Diverged(String),
}

impl Replay {
    fn start(shown: String) -> Replay {
        Replay { shown, matched: 0 }
    }

    fn active(&self) -> bool {
        !self.shown.is_empty()
    }

    fn pass(&mut self, delta: &str) -> ReplayStep {
        if !self.active() {
            return ReplayStep::Show(delta.to_owned());
        }
        let rest = &self.shown[self.matched..];
        let common: usize = rest
            .chars()
            .zip(delta.chars())
            .take_while(|(left, right)| left == right)
            .map(|(left, _)| left.len_utf8())
            .sum();
        if common == delta.len() {
            self.matched += common;
            if self.matched == self.shown.len() {
                *self = Replay::default();
            }
            return ReplayStep::Hide;
        }
        if common == rest.len() {
            *self = Replay::default();
            return ReplayStep::Show(delta[common..].to_owned());
        }
        let mut whole = self.shown[..self.matched].to_owned();
        whole.push_str(delta);
        *self = Replay::default();
        ReplayStep::Diverged(whole)
    }

    /// At the end of the retried call: the text it repeated, when it stopped short of what was
    /// shown (a shorter answer is a different answer too).
    fn finish(&mut self) -> Option<String> {
        let active = self.active();
        let repeated = self.shown[..self.matched].to_owned();
        *self = Replay::default();
        active.then_some(repeated)
    }
}

/// Said on stderr when a retried call does not repeat the text the broken call printed.
const DIVERGED_NOTICE: &str = "the retried answer differs from the text printed before the \
     stream broke off; the retried answer follows in full";

/// The stream-json `api_retry` event, with one field saying what kind of retry it is when it is
/// not a plain resend.
fn retry_event(
    attempt: u32,
    delay: Duration,
    error: &str,
    session_id: Option<&str>,
    extra: Option<(&str, Value)>,
) -> Event {
    let mut line = serde_json::json!({
        "type": "system",
        "subtype": "api_retry",
        "attempt": attempt,
        "delay_ms": u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
        "error": error,
        "session_id": session_id,
    });
    if let (Some((key, value)), Some(object)) = (extra, line.as_object_mut()) {
        object.insert(key.to_owned(), value);
    }
    Event::System(line)
}

/// The next lower reasoning level, for a provider that rejected the current one.
pub fn lower_thinking(level: ThinkingLevel) -> Option<ThinkingLevel> {
    match level {
        ThinkingLevel::Off => None,
        ThinkingLevel::Minimal => Some(ThinkingLevel::Off),
        ThinkingLevel::Low => Some(ThinkingLevel::Minimal),
        ThinkingLevel::Medium => Some(ThinkingLevel::Low),
        ThinkingLevel::High => Some(ThinkingLevel::Medium),
        ThinkingLevel::Xhigh => Some(ThinkingLevel::High),
    }
}

/// Whether a failure says the reasoning setting was refused (a 400 naming thinking, reasoning
/// effort or the thinking budget), as opposed to any other malformed request.
pub fn rejects_thinking(error: &ProviderError, kind: FailureKind) -> bool {
    if kind != FailureKind::Format {
        return false;
    }
    let message = error.to_string().to_lowercase();
    ["thinking", "reasoning", "budget_tokens", "effort"]
        .iter()
        .any(|word| message.contains(word))
}

/// Run the loop. `messages` holds the context including the new user message (already
/// persisted by the caller); completed messages are appended to it and to `transcript`.
pub async fn run(
    settings: &TurnSettings,
    client: &reqwest::Client,
    messages: &mut Vec<AgentMessage>,
    transcript: &mut Transcript,
    sink: &mut dyn EventSink,
    cancellation: &Cancellation,
) -> TurnReport {
    let mut report = TurnReport::empty(Ending::Completed);
    let mut overflow_retried = false;
    let mut endpoint = settings.endpoint.clone();
    let mut credential = settings.credential.clone();
    let mut spares = settings.spare_credentials.iter();
    let mut success_recorded = false;
    let api_name = provider::protocol(settings.api, &empty_request(settings)).api_name;
    let tool_context = ToolContext {
        workspace: settings.workspace.clone(),
        cancel: cancellation.token.clone(),
        sandbox: settings.sandbox.clone(),
    };
    // Tool output may echo a key (`env`, a `.env` file): scrub it before it is stored or sent.
    // MCP servers' tokens too: a server may echo what it was configured with.
    let mcp_secrets = settings.mcp.secrets();
    let redactor = crate::redact::Redactor::with_environment(
        std::iter::once(&settings.credential)
            .chain(&settings.spare_credentials)
            .filter_map(|credential| credential.key.as_deref())
            .chain(mcp_secrets.iter().map(String::as_str)),
        crate::settings::process_env,
    );
    let mut progress = Progress {
        text_printed: false,
        separator_pending: false,
        call_text: String::new(),
        call_output: false,
        replay: Replay::default(),
    };
    let mut thinking = settings.thinking;
    let mut stream_retries = 0;
    let mut jitter = retry::Jitter::from_clock();
    // The window compaction and pruning work with; an overflow error may correct it.
    let mut window = settings.context_window;
    // Records a cancellation seen outside a model call (see `end_cancelled`).
    let abort = |report, transcript: &mut Transcript, messages: &mut Vec<AgentMessage>, reason| {
        end_cancelled(report, settings, api_name, (transcript, messages), reason)
    };
    loop {
        if let Some(reason) = cancellation.reason() {
            return abort(report, transcript, messages, reason);
        }
        let mut outgoing = request_messages(messages);
        if let Some(window) = window {
            // Old oversized tool results are trimmed or cleared in the request only (SPEC §7).
            let context_tokens = compaction::cut::estimate_context_tokens(messages);
            compaction::prune::prune(
                &mut outgoing,
                context_tokens,
                window,
                PROTECTED_RECENT_TURNS,
            );
        }
        let request = ModelRequest {
            model: settings.model.clone(),
            system_prompt: settings.system_prompt.clone(),
            messages: outgoing,
            tools: settings.tools.clone(),
            thinking,
            thinking_budget: settings
                .thinking_budget
                .filter(|_| thinking == settings.thinking),
            max_output_tokens: settings.max_output_tokens,
            reasoning_model: settings
                .model_info
                .as_ref()
                .is_some_and(|info| info.reasoning),
        };
        let build = || provider::protocol(settings.api, &request);
        let started = Instant::now();
        let session_id = settings.session_id.clone();
        progress.call_text.clear();
        progress.call_output = false;
        let _ = sink.emit(&Event::Phase(Phase::Connecting(format!(
            "{}/{}",
            settings.provider, settings.model
        ))));
        let outcome = {
            // Both callbacks write events; they never run at the same time.
            let shared_sink = std::cell::RefCell::new(&mut *sink);
            let mut on_event = |event: &StreamEvent| {
                let mut sink = shared_sink.borrow_mut();
                progress.call_output |= retry::shows_output(event);
                if let StreamEvent::TextDelta { text, .. } = event
                    && !text.is_empty()
                {
                    let shown = match progress.replay.pass(text) {
                        ReplayStep::Show(shown) => shown,
                        ReplayStep::Hide => String::new(),
                        ReplayStep::Diverged(whole) => {
                            let _ = sink.emit(&Event::Notice(DIVERGED_NOTICE.to_owned()));
                            progress.separator_pending = true;
                            whole
                        }
                    };
                    progress.call_text.push_str(text);
                    if !shown.is_empty() {
                        if progress.separator_pending {
                            progress.separator_pending = false;
                            let _ = sink.emit(&Event::TextDelta("\n\n".to_owned()));
                        }
                        progress.text_printed = true;
                        let _ = sink.emit(&Event::TextDelta(shown));
                    }
                }
                let _ = sink.emit(&Event::Stream(event.clone()));
            };
            let mut on_retry = |notice: RetryNotice| {
                let _ = shared_sink.borrow_mut().emit(&retry_event(
                    notice.attempt,
                    notice.delay,
                    &notice.error,
                    session_id.as_deref(),
                    None,
                ));
            };
            let (outcome, _retries) = retry::call_with_retries(
                client,
                &endpoint,
                &build,
                settings.idle_timeout,
                &cancellation.token,
                &mut on_event,
                &mut on_retry,
                &settings.retry,
            )
            .await;
            outcome
        };
        report.api_duration += started.elapsed();
        if let Some(repeated) = progress.replay.finish()
            && matches!(outcome, CallOutcome::Complete(_))
        {
            // The retried answer stopped short of the text already printed: print it whole.
            let _ = sink.emit(&Event::Notice(DIVERGED_NOTICE.to_owned()));
            let _ = sink.emit(&Event::TextDelta(format!("\n\n{repeated}")));
        }
        let (accumulator, failure) = match outcome {
            CallOutcome::Complete(accumulator) => (accumulator, None),
            CallOutcome::Failed { error, partial } => (partial, Some(Err(error))),
            CallOutcome::Cancelled { partial } => (partial, Some(Ok(()))),
        };
        let stop_override = match &failure {
            None => None,
            Some(Ok(())) => Some(StopReason::Aborted),
            Some(Err(_)) => Some(StopReason::Error),
        };
        let mut message = accumulator.message(
            api_name,
            &settings.provider,
            &settings.model,
            now_millis(),
            stop_override,
        );
        message.usage.cost = usage_cost(settings.model_info.as_ref(), &accumulator.usage());
        if failure.is_some() {
            discard_tool_calls(&mut message);
        }
        if let Some(Err(error)) = &failure {
            message.error_message = Some(error.to_string());
        }
        if let Some(Ok(())) = &failure {
            message.error_message = Some(
                cancellation
                    .reason()
                    .unwrap_or(CancelReason::Interrupt)
                    .message()
                    .to_owned(),
            );
        }
        account(&mut report, settings, &accumulator, failure.is_none());
        report.provider_stop_reason = accumulator.provider_stop_reason().map(str::to_owned);
        report.stop_reason = accumulator
            .finish_reason()
            .and_then(|reason| claude_stop_reason(reason, accumulator.provider_stop_reason()));
        let stored = AgentMessage::Assistant(message.clone());
        // A failed call that produced nothing is recorded too, so `status` can say why.
        let entry_id = match transcript.append_message(&stored) {
            Ok(id) => id,
            Err(error) => {
                report.ending = Ending::Persistence(error);
                return report;
            }
        };
        messages.push(stored);
        match failure {
            Some(Ok(())) => {
                report.final_text = accumulator.text();
                report.ending =
                    Ending::Cancelled(cancellation.reason().unwrap_or(CancelReason::Interrupt));
                return report;
            }
            Some(Err(error)) => {
                let kind = classify(&error);
                if rejects_thinking(&error, kind)
                    && let Some(lower) = lower_thinking(thinking)
                {
                    // A model or endpoint without that reasoning level: step down and resend.
                    let _ = sink.emit(&retry_event(
                        1,
                        Duration::ZERO,
                        &error.to_string(),
                        settings.session_id.as_deref(),
                        Some(("thinking_level", lower.as_str().into())),
                    ));
                    if let Err(failure) = transcript.append(
                        "thinking_level_change",
                        serde_json::json!({"thinkingLevel": lower.as_str()}),
                    ) {
                        report.ending = Ending::Persistence(failure);
                        return report;
                    }
                    thinking = lower;
                    continue;
                }
                if progress.call_output {
                    match resend_broken_stream(
                        settings,
                        &error,
                        (&mut stream_retries, &mut jitter),
                        &mut progress,
                        sink,
                        cancellation,
                    )
                    .await
                    {
                        BrokenStream::Resend => continue,
                        BrokenStream::Cancelled(reason) => {
                            return abort(report, transcript, messages, reason);
                        }
                        BrokenStream::GiveUp => {}
                    }
                }
                if matches!(
                    kind,
                    FailureKind::Auth | FailureKind::Billing | FailureKind::RateLimit
                ) {
                    record_outcome(
                        settings.auth_file.as_deref(),
                        &credential,
                        &settings.provider,
                        Some(kind.as_str()),
                    );
                    if let Some(next) = spares.next() {
                        let _ = sink.emit(&Event::System(serde_json::json!({
                            "type": "system",
                            "subtype": "auth_rotation",
                            "provider": settings.provider,
                            "from_profile": credential.source,
                            "to_profile": next.source,
                            "reason": kind.as_str(),
                            "session_id": settings.session_id,
                        })));
                        credential = next.clone();
                        endpoint.api_key.clone_from(&next.key);
                        success_recorded = false;
                        if !progress.call_text.is_empty() {
                            progress.replay =
                                Replay::start(std::mem::take(&mut progress.call_text));
                        }
                        continue;
                    }
                }
                if kind == FailureKind::ContextOverflow
                    && let Some(stated) = smaller_stated_window(&error, window)
                {
                    window = Some(stated);
                    report.learned_window = Some(stated);
                }
                if kind == FailureKind::ContextOverflow && !overflow_retried {
                    // Compact once and retry; a second overflow ends the run (exit 6).
                    overflow_retried = true;
                    match compact_now(
                        settings,
                        (client, &endpoint),
                        messages,
                        transcript,
                        sink,
                        cancellation,
                        &mut report,
                        (Trigger::Overflow, window),
                    )
                    .await
                    {
                        Ok(true) => continue,
                        Ok(false) => {
                            if let Some(reason) = cancellation.reason() {
                                return abort(report, transcript, messages, reason);
                            }
                        }
                        Err(failure) => {
                            report.ending = Ending::Persistence(failure);
                            return report;
                        }
                    }
                }
                report.ending = Ending::Failed { error, kind };
                return report;
            }
            None => {}
        }
        // Counted once it completed: retries, rotations and re-sends made it only once.
        report.model_calls += 1;
        if !success_recorded {
            // Once per credential and run: the store is shared by every cron job.
            success_recorded = true;
            record_outcome(
                settings.auth_file.as_deref(),
                &credential,
                &settings.provider,
                None,
            );
        }
        let message_id = accumulator
            .response_id()
            .map_or_else(|| format!("msg_{entry_id}"), str::to_owned);
        let _ = sink.emit(&Event::MessageEnd(MessageEnd {
            stop_reason: report.stop_reason,
            usage: accumulator.usage(),
        }));
        let _ = sink.emit(&Event::Assistant(render::assistant_line(
            &message,
            &message_id,
            (report.stop_reason, accumulator.provider_stop_reason()),
            settings.session_id.as_deref(),
            Some(entry_id.as_str()),
        )));
        report.final_text = accumulator.text();
        if progress.text_printed {
            progress.separator_pending = true;
        }
        let calls: Vec<(String, String, Value)> = message
            .content
            .iter()
            .filter_map(|block| match block {
                AssistantContent::ToolCall(call) => {
                    Some((call.id.clone(), call.name.clone(), call.arguments.clone()))
                }
                _ => None,
            })
            .collect();
        let over_threshold =
            needs_compaction(settings, window, accumulator.usage().context_tokens());
        if calls.is_empty() && message.stop_reason == StopReason::Length && !has_answer(&message) {
            // All the output went to reasoning (or nowhere): an empty success would hide it.
            report.ending = Ending::OutputLimit {
                max_output_tokens: Some(settings.max_output_tokens),
            };
            return report;
        }
        if calls.is_empty() {
            if over_threshold
                && let Err(failure) = compact_now(
                    settings,
                    (client, &endpoint),
                    messages,
                    transcript,
                    sink,
                    cancellation,
                    &mut report,
                    (Trigger::Auto, window),
                )
                .await
            {
                report.ending = Ending::Persistence(failure);
                return report;
            }
            if let Some(reason) = cancellation.reason() {
                // Interrupted while compacting after the answer.
                return abort(report, transcript, messages, reason);
            }
            report.ending = Ending::Completed;
            return report;
        }
        for (id, name, arguments) in calls {
            let _ = sink.emit(&Event::ToolStarted(ToolStart {
                id: id.clone(),
                name: name.clone(),
                input: arguments.clone(),
            }));
            let decision = settings.policy.check(&name, &arguments);
            let output = if cancellation.token.is_cancelled() {
                tools::ToolOutput::error("not run: the turn was interrupted")
            } else if let Decision::Deny { reason, .. } = decision {
                tools::ToolOutput::refused(
                    tools::Refusal::Policy,
                    format!("Permission denied: {reason}"),
                )
            } else if settings.mcp.has_tool(&name) {
                // An MCP tool: the call goes to its server (SPEC §13).
                settings
                    .mcp
                    .call(&name, &arguments, &cancellation.token)
                    .await
            } else {
                tools::execute(&name, &arguments, &tool_context).await
            };
            // Every refusal, by the policy or by the sandbox inside the tool, is listed.
            if output.refusal.is_some() {
                report.permission_denials.push(serde_json::json!({
                    "tool_name": name,
                    "tool_use_id": id,
                    "tool_input": arguments,
                }));
            }
            let _ = sink.emit(&Event::ToolFinished(ToolEnd {
                id: id.clone(),
                is_error: output.is_error,
            }));
            let output = redactor.tool_output(output);
            let result = ToolResultMessage {
                tool_call_id: id,
                tool_name: name,
                content: output.content,
                details: output.details,
                is_error: output.is_error,
                timestamp: now_millis(),
                extra: Map::new(),
            };
            let stored = AgentMessage::ToolResult(result.clone());
            let entry_id = match transcript.append_message(&stored) {
                Ok(id) => id,
                Err(error) => {
                    report.ending = Ending::Persistence(error);
                    return report;
                }
            };
            messages.push(stored);
            let _ = sink.emit(&Event::User(render::tool_result_line(
                &result,
                settings.session_id.as_deref(),
                Some(entry_id.as_str()),
            )));
        }
        if let Some(reason) = cancellation.reason() {
            return abort(report, transcript, messages, reason);
        }
        // Over the threshold with the tool results appended: compact before the next request.
        if over_threshold
            && let Err(failure) = compact_now(
                settings,
                (client, &endpoint),
                messages,
                transcript,
                sink,
                cancellation,
                &mut report,
                (Trigger::Auto, window),
            )
            .await
        {
            report.ending = Ending::Persistence(failure);
            return report;
        }
        if settings
            .max_turns
            .is_some_and(|limit| report.model_calls >= limit)
        {
            report.ending = Ending::MaxTurns;
            return report;
        }
        if settings
            .max_budget_usd
            .is_some_and(|budget| report.cost_usd >= budget)
        {
            report.ending = Ending::MaxBudget;
            return report;
        }
    }
}

/// End the turn as cancelled when the cancellation is seen outside a model call — before the
/// first one, between tools and the next call, while compacting or waiting to resend. An empty
/// `aborted` assistant message records it (SPEC §5.5), as an interrupted call records its partial
/// text, so that the next resume and `status` know the turn was cut short.
fn end_cancelled(
    mut report: TurnReport,
    settings: &TurnSettings,
    api_name: &str,
    (transcript, messages): (&mut Transcript, &mut Vec<AgentMessage>),
    reason: CancelReason,
) -> TurnReport {
    let message = AgentMessage::Assistant(crate::session::record::AssistantMessage {
        content: Vec::new(),
        api: api_name.to_owned(),
        provider: settings.provider.clone(),
        model: settings.model.clone(),
        usage: crate::session::record::Usage::default(),
        stop_reason: StopReason::Aborted,
        timestamp: now_millis(),
        extra: Map::new(),
        error_message: Some(reason.message().to_owned()),
    });
    report.ending = match transcript.append_message(&message) {
        Ok(_) => {
            messages.push(message);
            Ending::Cancelled(reason)
        }
        Err(error) => Ending::Persistence(error),
    };
    report
}

/// What became of a call whose stream broke after it had shown something.
enum BrokenStream {
    /// Wait done: send the same request again.
    Resend,
    /// Cancelled while waiting to resend.
    Cancelled(CancelReason),
    /// Not retryable, or the retries are used up: the failure stands.
    GiveUp,
}

/// A stream that broke after it passed on text, thinking or a tool call's arguments is sent again
/// like a failed request (SPEC §9.3), whether or not tools ran in earlier calls: their results
/// are in the transcript, so the resent call is the same request and runs nothing twice. The
/// broken call's tool calls were dropped before it was stored (see [`discard_tool_calls`]); its
/// text is replayed so that what was printed is not printed again.
async fn resend_broken_stream(
    settings: &TurnSettings,
    error: &ProviderError,
    (retries, jitter): (&mut u32, &mut retry::Jitter),
    progress: &mut Progress,
    sink: &mut dyn EventSink,
    cancellation: &Cancellation,
) -> BrokenStream {
    let retry::RetryDecision::RetryAfter(delay) = retry::decide(
        &settings.retry,
        *retries,
        error,
        false,
        jitter.next_fraction(),
    ) else {
        return BrokenStream::GiveUp;
    };
    *retries += 1;
    let _ = sink.emit(&retry_event(
        *retries,
        delay,
        &error.to_string(),
        settings.session_id.as_deref(),
        Some(("discarded_partial", Value::Bool(true))),
    ));
    let notice = if progress.call_text.is_empty() {
        format!("the stream broke off ({error}); retrying the call")
    } else {
        format!(
            "the stream broke off ({error}); retrying the call, the text above is continued, \
             not repeated"
        )
    };
    let _ = sink.emit(&Event::Notice(notice));
    tokio::select! {
        () = cancellation.token.cancelled() => {
            return BrokenStream::Cancelled(
                cancellation.reason().unwrap_or(CancelReason::Interrupt),
            );
        }
        () = tokio::time::sleep(delay) => {}
    }
    progress.replay = Replay::start(std::mem::take(&mut progress.call_text));
    BrokenStream::Resend
}

/// Remove the tool calls of a message that did not complete (broken, failed or interrupted):
/// none of them runs, and the session never holds a call without a result.
fn discard_tool_calls(message: &mut crate::session::record::AssistantMessage) {
    message
        .content
        .retain(|block| !matches!(block, AssistantContent::ToolCall(_)));
}

/// Why a compaction runs before the next request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Trigger {
    /// The last call's context passed the window minus the reserve.
    Auto,
    /// The provider refused the request as too long.
    Overflow,
}

impl Trigger {
    /// `compact_metadata.trigger`.
    fn as_str(self) -> &'static str {
        match self {
            Trigger::Auto => "auto",
            Trigger::Overflow => "overflow",
        }
    }
}

/// Whether a context of `context_tokens` leaves less than the reserve free in `window` (the
/// reserve capped at a quarter of the window, SPEC §7). An unknown window never compacts.
fn needs_compaction(settings: &TurnSettings, window: Option<u64>, context_tokens: u64) -> bool {
    let reserve = compaction::cap_to_window(settings.compaction.reserve_tokens, window);
    settings.compaction.enabled
        && window.is_some_and(|window| compaction::should_compact(context_tokens, window, reserve))
}

/// The window an overflow error states, when it is below `window` (or `window` is unknown).
fn smaller_stated_window(error: &ProviderError, window: Option<u64>) -> Option<u64> {
    crate::provider::classify::reported_window(error)
        .filter(|stated| window.is_none_or(|window| *stated < window))
}

/// Compact the transcript now and rebuild `messages` from it. `Ok(false)`: nothing to compact.
/// The recent messages kept are capped at a quarter of `window`; after an overflow the session
/// is compacted even when the estimate says it fits (see [`compaction::cut::plan_for_overflow`]).
#[expect(
    clippy::too_many_arguments,
    reason = "the loop's state, passed through"
)]
async fn compact_now(
    settings: &TurnSettings,
    (client, endpoint): (&reqwest::Client, &Endpoint),
    messages: &mut Vec<AgentMessage>,
    transcript: &mut Transcript,
    sink: &mut dyn EventSink,
    cancellation: &Cancellation,
    report: &mut TurnReport,
    (trigger, window): (Trigger, Option<u64>),
) -> Result<bool, SessionError> {
    let keep_recent_tokens =
        compaction::cap_to_window(settings.compaction.keep_recent_tokens, window);
    let plan = match trigger {
        Trigger::Auto => None,
        Trigger::Overflow => {
            let plan =
                compaction::cut::plan_for_overflow(transcript.entries(), None, keep_recent_tokens);
            if plan.is_none() {
                return Ok(false);
            }
            plan
        }
    };
    let summary_model = SummaryModel {
        api: settings.api,
        // The credential in use now (it may have rotated during the turn).
        endpoint,
        model: &settings.model,
        max_output_tokens: settings.max_output_tokens.min(16_384),
        idle_timeout: settings.idle_timeout,
    };
    let _ = sink.emit(&Event::Phase(Phase::Compacting));
    let started = Instant::now();
    let outcome = compact::run(
        client,
        &summary_model,
        transcript,
        keep_recent_tokens,
        None,
        &cancellation.token,
        messages,
        plan,
    )
    .await?;
    report.api_duration += started.elapsed();
    let Some(compacted) = outcome else {
        return Ok(false);
    };
    report.compactions += 1;
    report.usage.add(&compacted.usage);
    let cost = usage_cost(settings.model_info.as_ref(), &compacted.usage).total;
    report.cost_usd += cost;
    let totals = report
        .model_usage
        .entry(settings.model.clone())
        .or_default();
    totals.usage.add(&compacted.usage);
    totals.cost_usd += cost;
    report.context_estimate = Some(compacted.tokens_after);
    let _ = sink.emit(&Event::System(serde_json::json!({
        "type": "system",
        "subtype": "compact_boundary",
        "session_id": settings.session_id,
        "compact_metadata": {
            "trigger": trigger.as_str(),
            "pre_tokens": compacted.tokens_before,
            "post_tokens": compacted.tokens_after,
        },
    })));
    Ok(true)
}

fn empty_request(settings: &TurnSettings) -> ModelRequest {
    ModelRequest {
        model: settings.model.clone(),
        system_prompt: String::new(),
        messages: Vec::new(),
        tools: Vec::new(),
        thinking: ThinkingLevel::Off,
        thinking_budget: None,
        max_output_tokens: 1,
        reasoning_model: false,
    }
}

fn account(
    report: &mut TurnReport,
    settings: &TurnSettings,
    accumulator: &Accumulator,
    success: bool,
) {
    let usage = accumulator.usage();
    report.usage.add(&usage);
    let cost = usage_cost(settings.model_info.as_ref(), &usage).total;
    report.cost_usd += cost;
    let totals = report
        .model_usage
        .entry(settings.model.clone())
        .or_default();
    totals.usage.add(&usage);
    totals.cost_usd += cost;
    if success && usage.context_tokens() > 0 {
        report.last_usage = Some(usage);
        report.context_estimate = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::record::{AssistantMessage, MessageContent, ToolCall, Usage, UserMessage};

    fn user(text: &str) -> AgentMessage {
        AgentMessage::User(UserMessage {
            content: MessageContent::Text(text.to_owned()),
            timestamp: 0,
            extra: Map::new(),
        })
    }

    fn assistant(calls: &[&str], stop: StopReason) -> AgentMessage {
        AgentMessage::Assistant(AssistantMessage {
            content: calls
                .iter()
                .map(|id| {
                    AssistantContent::ToolCall(ToolCall {
                        id: (*id).to_owned(),
                        name: "read".to_owned(),
                        arguments: serde_json::json!({}),
                        thought_signature: None,
                        extra: Map::new(),
                    })
                })
                .collect(),
            api: "a".into(),
            provider: "p".into(),
            model: "m".into(),
            usage: Usage::default(),
            stop_reason: stop,
            timestamp: 0,
            extra: Map::new(),
            error_message: None,
        })
    }

    fn result(id: &str) -> AgentMessage {
        AgentMessage::ToolResult(ToolResultMessage {
            tool_call_id: id.to_owned(),
            tool_name: "read".into(),
            content: vec![text_block("ok")],
            details: None,
            is_error: false,
            timestamp: 0,
            extra: Map::new(),
        })
    }

    fn shape(messages: &[AgentMessage]) -> Vec<String> {
        messages
            .iter()
            .map(|message| match message {
                AgentMessage::User(_) => "user".to_owned(),
                AgentMessage::Assistant(_) => "assistant".to_owned(),
                AgentMessage::ToolResult(result) => format!(
                    "result:{}{}",
                    result.tool_call_id,
                    if result.is_error { "!" } else { "" }
                ),
                AgentMessage::Other(_) => "other".to_owned(),
            })
            .collect()
    }

    #[test]
    fn a_missing_tool_result_is_synthesized_as_an_error() {
        let messages = vec![
            user("q"),
            assistant(&["a", "b"], StopReason::ToolUse),
            result("a"),
            user("next"),
        ];
        assert_eq!(
            shape(&request_messages(&messages)),
            ["user", "assistant", "result:a", "result:b!", "user"]
        );
    }

    #[test]
    fn failed_and_aborted_messages_and_orphan_results_are_left_out() {
        let messages = vec![
            user("q"),
            assistant(&[], StopReason::Error),
            result("zz"),
            user("again"),
            assistant(&["c"], StopReason::Aborted),
            result("c"),
        ];
        assert_eq!(shape(&request_messages(&messages)), ["user", "user"]);
    }

    #[test]
    fn a_retry_that_repeats_the_shown_text_shows_only_what_follows() {
        let mut replay = Replay::start("Hello wor".to_owned());
        assert_eq!(replay.pass("Hel"), ReplayStep::Hide);
        assert_eq!(replay.pass("lo w"), ReplayStep::Hide);
        assert_eq!(replay.pass("orld."), ReplayStep::Show("ld.".to_owned()));
        assert!(!replay.active());
        assert_eq!(replay.pass(" More"), ReplayStep::Show(" More".to_owned()));
        assert_eq!(replay.finish(), None);
    }

    #[test]
    fn a_retry_that_ends_exactly_at_the_shown_text_shows_nothing_more() {
        let mut replay = Replay::start("Grüße".to_owned());
        assert_eq!(replay.pass("Grü"), ReplayStep::Hide);
        assert_eq!(replay.pass("ße"), ReplayStep::Hide);
        assert_eq!(replay.finish(), None);
    }

    #[test]
    fn a_retry_that_goes_its_own_way_returns_its_whole_text() {
        let mut replay = Replay::start("First try".to_owned());
        assert_eq!(replay.pass("Fir"), ReplayStep::Hide);
        assert_eq!(
            replay.pass("m answer"),
            ReplayStep::Diverged("Firm answer".to_owned())
        );
        assert_eq!(replay.pass("!"), ReplayStep::Show("!".to_owned()));
    }

    #[test]
    fn a_retry_shorter_than_the_shown_text_is_reported_at_the_end() {
        let mut replay = Replay::start("Hello world".to_owned());
        assert_eq!(replay.pass("Hello"), ReplayStep::Hide);
        assert_eq!(replay.finish(), Some("Hello".to_owned()));
        assert_eq!(Replay::default().finish(), None);
    }

    #[test]
    fn thinking_steps_down_one_level_at_a_time_to_off() {
        let mut level = ThinkingLevel::Xhigh;
        let mut seen = vec![level.as_str()];
        while let Some(lower) = lower_thinking(level) {
            level = lower;
            seen.push(level.as_str());
        }
        assert_eq!(seen, ["xhigh", "high", "medium", "low", "minimal", "off"]);
    }

    #[test]
    fn only_a_format_error_about_reasoning_counts_as_a_rejected_thinking_level() {
        let error = |message: &str| ProviderError::Transport {
            provider: "anthropic".into(),
            message: message.into(),
        };
        assert!(rejects_thinking(
            &error("thinking is not supported by this model"),
            FailureKind::Format
        ));
        assert!(rejects_thinking(
            &error("Unsupported value: 'reasoning_effort' does not support 'minimal'"),
            FailureKind::Format
        ));
        assert!(!rejects_thinking(
            &error("messages: roles must alternate"),
            FailureKind::Format
        ));
        assert!(!rejects_thinking(
            &error("thinking overloaded"),
            FailureKind::Overloaded
        ));
    }
}
