//! The API engine: a turn against a provider's API, one [`Step`] at a time — stream the
//! assistant message, run its tool calls, append the results, and again — until the model stops
//! calling tools, a guardrail, the timeout or a signal ends it. Failed calls are retried,
//! re-sent after a broken stream, continued with the next credential or a lower reasoning level,
//! or compacted and sent again, each as a step of its own.
//!
//! Built from `agent/`'s parts (compaction, prompts), `tools/` and `provider/`. Invariants: every
//! completed message (assistant or tool result) is persisted and synced before the next request;
//! an interrupted message is persisted as `aborted` with its partial text, a failed one as
//! `error` with the message, and never with its tool calls; the request always carries a
//! repaired transcript (`conversation::repair`).

use std::borrow::Cow;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::event::{
    AssistantDone, Compaction as Compacted, CredentialOutcome, Event, MessageEnd, Phase, Retry,
    RetryKind, Rotation, ToolEnd, ToolResultDone, ToolStart,
};
use super::replay::{DIVERGED_NOTICE, Replay, ReplayStep};
use super::step::{Compaction, Engine, Step, Turn};
use super::structured::{Answers, Judgement, feedback_message};
use super::{CancelReason, Denial, Ending};
use crate::agent::compact::{self, SummaryModel};
use crate::agent::compaction::{self, CompactionRules};
use crate::conversation::StructuredMode;
use crate::conversation::{
    self, AssistantBlock, AssistantMessage, ContentBlock, Cost, Message, MessageContent, Prices,
    StopReason, StreamEvent, ThinkingLevel, TokenUsage, ToolCall, ToolDefinition,
    ToolResultMessage, UserMessage, now_millis,
};
use crate::hooks::{Fire, HookEvent, Hooks};
use crate::provider::classify::{FailureKind, classify};
use crate::provider::http::{CallOutcome, Endpoint, Transport};
use crate::provider::retry::{self, RetryNotice, RetryPolicy};
use crate::provider::stop_reason::claude_stop_reason;
use crate::provider::{self, Accumulator, ApiKind, ModelRequest, ProviderError};
use crate::redact::Redactor;
use crate::secret::Secret;
use crate::session::record::NewEntry;
use crate::session::store::SessionError;
use crate::structured::Plan;
use crate::tools::policy::{Decision, ToolPolicy};
use crate::tools::{self, Sandbox, ToolContext};

/// Assistant turns at the end of the conversation whose tool results pruning never touches.
const PROTECTED_RECENT_TURNS: usize = 3;

/// Everything fixed for one API turn, resolved by `commands/`.
#[derive(Debug, Clone)]
pub struct ApiSettings {
    /// Wire protocol.
    pub api: ApiKind,
    /// Where requests go (with the first credential's key).
    pub endpoint: Endpoint,
    /// Provider name (`anthropic`, `ollama`, …).
    pub provider: String,
    /// Model id as the provider spells it.
    pub model: String,
    /// The system prompt, sent on every request.
    pub system_prompt: String,
    /// Where the provider routes requests to its prompt cache by a key (the Responses API's
    /// `prompt_cache_key`): the session's id, so every request of a session meets its cache.
    pub cache_key: Option<String>,
    /// `[cache] ttl`: how long the provider keeps what a request writes to its prompt cache.
    pub cache_ttl: crate::conversation::CacheTtl,
    /// Tools offered.
    pub tools: Vec<ToolDefinition>,
    /// Reasoning level.
    pub thinking: ThinkingLevel,
    /// `--max-thinking-tokens`: the exact budget, while the turn runs at `thinking` (a step down
    /// after a refused level drops it).
    pub thinking_budget: Option<u64>,
    /// Output token limit per call.
    pub max_output_tokens: u64,
    /// Whether the catalog says the model reasons (some parameters change).
    pub reasoning_model: bool,
    /// The provider's server-side web search, when the turn asks for it and the model has it.
    pub web_search: Option<crate::provider::web_search::WebSearch>,
    /// The model's prices, when the catalog knows them.
    pub prices: Option<Prices>,
    /// The model's context window, when known (compaction and pruning need it).
    pub context_window: Option<u64>,
    /// `--max-turns`: model round trips allowed.
    pub max_turns: Option<u32>,
    /// `--max-budget-usd`.
    pub max_budget_usd: Option<f64>,
    /// Longest silence from the provider.
    pub idle_timeout: Duration,
    /// Workspace for tools.
    pub workspace: PathBuf,
    /// The trace context the tools' children continue (SPEC §17).
    pub trace: crate::trace::ChildTrace,
    /// Which tools are offered and which calls are allowed.
    pub policy: ToolPolicy,
    /// The MCP servers started for the turn, whose tools are offered beside the built-ins.
    pub mcp: std::sync::Arc<crate::mcp::McpSet>,
    /// The run's hooks (SPEC §14): PreToolUse, PostToolUse, Stop, PreCompact and
    /// SessionStart after a compaction fire in the turn.
    pub hooks: std::sync::Arc<Hooks>,
    /// Where file tools may reach and what `exec` may write.
    pub sandbox: Sandbox,
    /// Automatic compaction.
    pub compaction: CompactionRules,
    /// Retries of failed calls before any output (SPEC §9.3).
    pub retry: RetryPolicy,
    /// The credential in use first.
    pub credential: Credential,
    /// Further credentials to rotate to when one is rejected, rate-limited or out of credit.
    pub spare_credentials: Vec<Credential>,
    /// Scrubs the keys (and their encodings) from tool output before it is stored or sent.
    pub redactor: Redactor,
    /// `--json-schema`: how this model is held to the schema (SPEC §3.4).
    pub structured: Option<Plan>,
}

/// A credential the turn may use.
#[derive(Debug, Clone)]
pub struct Credential {
    /// The profile id, or `None` for an environment variable (whose outcomes are not recorded).
    pub profile_id: Option<String>,
    /// `profile:ID` or `env:VAR`.
    pub source: String,
    /// The key.
    pub key: Option<Secret>,
    /// Whether the profile is in a cooldown or disabled now (it is tried last).
    pub cooling: bool,
}

/// A model the front-end switches the running turn to (an agent SDK's `set_model`), asked
/// before each model request. The engine resolves nothing itself: the plan turns the model into
/// the settings the remaining requests are sent with.
pub trait ModelSwitch {
    /// `None` when no other model was asked for since the last request; else the settings of
    /// the model asked for (`current`'s limits kept), or why it cannot take over (the turn
    /// keeps its model).
    fn take(&self, current: &ApiSettings) -> Option<Result<ApiSettings, SwitchRefused>>;
}

/// Why a model asked for by [`ModelSwitch`] cannot take over the running turn, which goes on
/// with its own model.
#[derive(Debug)]
pub struct SwitchRefused {
    /// The model as the front-end named it.
    pub asked: String,
    /// Why it cannot take over.
    pub why: String,
    /// `provider/model` the turn goes on with.
    pub keeps: String,
}

impl std::fmt::Display for SwitchRefused {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            formatter,
            "set_model {}: {}; this turn goes on with {}",
            self.asked, self.why, self.keeps
        )
    }
}

/// What the engine keeps between steps.
pub struct ApiEngine<'run> {
    /// The turn's settings; a model switch replaces them with the new model's.
    settings: Cow<'run, ApiSettings>,
    transport: &'run Transport,
    /// Asked before each request whether the front-end switched the model.
    switch: Option<&'run dyn ModelSwitch>,
    /// The endpoint with the credential in use now.
    endpoint: Endpoint,
    credential: Credential,
    spares: std::vec::IntoIter<Credential>,
    /// The credential in use has been recorded as working (once per credential and run: the
    /// store is shared by every cron job).
    success_recorded: bool,
    api_name: &'static str,
    tool_context: ToolContext,
    shown: Shown,
    /// The reasoning level in use (a refused level steps down).
    thinking: ThinkingLevel,
    stream_retries: u32,
    jitter: retry::Jitter,
    /// The window compaction and pruning work with; an overflow error may correct it.
    window: Option<u64>,
    overflow_retried: bool,
    /// The last answer's context passed the threshold: compact after its tool results.
    compact_after_tools: bool,
    /// A Stop hook made the model go on (the next Stop hooks are told so).
    stop_hook_active: bool,
    /// A hook said `continue: false`: the tool calls left are not run and the turn ends.
    hook_stop: Option<(&'static str, String)>,
    /// What SessionStart hooks said after a compaction, added to the system prompt of the
    /// requests that follow.
    hook_context: Vec<String>,
    /// `--json-schema`'s plan (the API's JSON mode may be refused, then the tool takes over).
    structured: Option<Plan>,
    /// What every request carries besides the messages, estimated like them (characters / 4):
    /// the system prompt and the tool definitions. Pruning measures the context with it.
    fixed_tokens: u64,
    answers: Answers,
    /// The model answered once without tools: a `native-without-tools` model is now asked
    /// under the schema, without tools.
    final_call: bool,
}

/// The system prompt and tool definitions of every request, in tokens estimated as characters /
/// 4 like the messages'.
fn fixed_tokens(settings: &ApiSettings) -> u64 {
    conversation::Overhead::of(&settings.system_prompt, &settings.tools).tokens()
}

/// What the person reading stdout has seen.
#[derive(Default)]
struct Shown {
    text_printed: bool,
    separator_pending: bool,
    /// Text the current call has shown so far.
    call_text: String,
    /// Whether the current call has passed on anything (text, thinking, tool arguments): then a
    /// failure is a broken stream, which the engine re-sends itself.
    call_output: bool,
    /// After a broken stream: the text the re-sent call is expected to repeat.
    replay: Replay,
}

impl<'run> ApiEngine<'run> {
    /// An engine for one turn under `settings`, calling over `transport`.
    pub fn new(
        settings: &'run ApiSettings,
        transport: &'run Transport,
        switch: Option<&'run dyn ModelSwitch>,
        turn: &Turn<'_>,
    ) -> ApiEngine<'run> {
        ApiEngine {
            settings: Cow::Borrowed(settings),
            transport,
            switch,
            endpoint: settings.endpoint.clone(),
            credential: settings.credential.clone(),
            spares: settings.spare_credentials.clone().into_iter(),
            success_recorded: false,
            api_name: provider::api_name(settings.api),
            tool_context: ToolContext {
                workspace: settings.workspace.clone(),
                cancel: turn.cancellation.token.clone(),
                sandbox: settings.sandbox.clone(),
                trace: settings.trace.clone(),
            },
            shown: Shown::default(),
            thinking: settings.thinking,
            stream_retries: 0,
            jitter: retry::Jitter::from_clock(),
            window: settings.context_window,
            overflow_retried: false,
            compact_after_tools: false,
            stop_hook_active: false,
            hook_stop: None,
            hook_context: Vec::new(),
            structured: settings.structured.clone(),
            fixed_tokens: fixed_tokens(settings),
            answers: Answers::default(),
            final_call: false,
        }
    }

    fn request<'m>(&self, messages: &'m [Message]) -> ModelRequest<'m> {
        let settings = &*self.settings;
        let mut outgoing = conversation::repair(messages);
        if let Some(window) = self.window {
            // Old oversized tool results are trimmed or cleared in the request only (SPEC §7),
            // in a copy made only then. Measured from the unpruned messages, never from the
            // last call's usage (already the pruned size): the decision must not flip between
            // requests, or the cached prefix is written again on every other one.
            let context_tokens = conversation::estimate_tokens(messages) + self.fixed_tokens;
            if let Some(plan) =
                compaction::prune::plan(&outgoing, context_tokens, window, PROTECTED_RECENT_TURNS)
            {
                compaction::prune::apply(outgoing.to_mut(), &plan);
            }
        }
        let system_prompt = if self.hook_context.is_empty() {
            settings.system_prompt.clone()
        } else {
            format!(
                "{}\n\n{}",
                settings.system_prompt,
                self.hook_context.join("\n\n")
            )
        };
        let mut request = ModelRequest {
            model: settings.model.clone(),
            system_prompt,
            messages: outgoing,
            tools: settings.tools.clone(),
            thinking: self.thinking,
            thinking_budget: settings
                .thinking_budget
                .filter(|_| self.thinking == settings.thinking),
            max_output_tokens: settings.max_output_tokens,
            reasoning_model: settings.reasoning_model,
            web_search: settings.web_search,
            output_format: None,
            cache_key: settings.cache_key.clone(),
            cache_writes: Some(settings.cache_ttl),
        };
        if let Some(plan) = &self.structured {
            plan.shape(&mut request, self.final_call);
        }
        request
    }

    /// Text of the call as it streams: shown unless a re-sent call repeats it.
    fn show_text(shown: &mut Shown, sink: &mut dyn super::EventSink, text: &str) {
        let visible = match shown.replay.pass(text) {
            ReplayStep::Show(visible) => visible,
            ReplayStep::Hide => String::new(),
            ReplayStep::Diverged(whole) => {
                sink.emit(&Event::Notice(DIVERGED_NOTICE.to_owned()));
                shown.separator_pending = true;
                whole
            }
        };
        shown.call_text.push_str(text);
        if !visible.is_empty() {
            if shown.separator_pending {
                shown.separator_pending = false;
                sink.emit(&Event::TextDelta("\n\n".to_owned()));
            }
            shown.text_printed = true;
            sink.emit(&Event::TextDelta(visible));
        }
    }

    /// One model call, with the retries of SPEC §9.3 before any output.
    async fn call(&mut self, turn: &mut Turn<'_>) -> CallOutcome {
        let request = self.request(turn.messages);
        let api = self.settings.api;
        let build = || provider::protocol(api, &request);
        self.shown.call_text.clear();
        self.shown.call_output = false;
        turn.sink.emit(&Event::Phase(Phase::Connecting(format!(
            "{}/{}",
            self.settings.provider, self.settings.model
        ))));
        let started = Instant::now();
        // Both callbacks write events; they never run at the same time.
        let sink = std::cell::RefCell::new(&mut *turn.sink);
        let shown = &mut self.shown;
        let mut on_event = |event: &StreamEvent| {
            let mut sink = sink.borrow_mut();
            shown.call_output |= retry::shows_output(event);
            if let StreamEvent::TextDelta { text, .. } = event
                && !text.is_empty()
            {
                Self::show_text(shown, &mut **sink, text);
            }
            sink.emit(&Event::Stream(event.clone()));
        };
        let mut on_retry = |notice: RetryNotice| {
            sink.borrow_mut().emit(&retry_event(
                notice.attempt,
                notice.delay,
                &notice.error,
                RetryKind::Resend,
            ));
        };
        let (outcome, _retries) = retry::call_with_retries(
            self.transport,
            &self.endpoint,
            &build,
            self.settings.idle_timeout,
            &turn.cancellation.token,
            &mut on_event,
            &mut on_retry,
            &self.settings.retry,
        )
        .await;
        turn.report.api_duration += started.elapsed();
        if let Some(repeated) = self.shown.replay.finish()
            && matches!(outcome, CallOutcome::Complete(_))
        {
            // The re-sent answer stopped short of the text already printed: print it whole.
            turn.sink.emit(&Event::Notice(DIVERGED_NOTICE.to_owned()));
            turn.sink.emit(&Event::TextDelta(format!("\n\n{repeated}")));
        }
        outcome
    }

    /// The front-end switched the model since the last request: the requests left go to the
    /// new one (its provider, credentials, window and prices; the turn's own state — hooks,
    /// answers checked, compactions — carries on), and the session records the change. A model
    /// that cannot take over is a warning, and the turn keeps its model.
    fn switch_model(&mut self, turn: &mut Turn<'_>) -> Result<(), SessionError> {
        let Some(switch) = self.switch else {
            return Ok(());
        };
        let settings = match switch.take(&self.settings) {
            None => return Ok(()),
            Some(Err(refused)) => {
                turn.sink.emit(&Event::Warning(refused.to_string()));
                return Ok(());
            }
            Some(Ok(settings)) => settings,
        };
        turn.record_entry(
            NewEntry::ModelChange {
                provider: &settings.provider,
                model_id: &settings.model,
            },
            false,
        )?;
        turn.report.switched_model = Some(super::SwitchedModel {
            provider: settings.provider.clone(),
            model: settings.model.clone(),
        });
        // A window the old model's overflow taught is not the new model's: the report names
        // the switched model, so the lesson is dropped rather than remembered for the wrong one.
        turn.report.learned_window = None;
        self.endpoint = settings.endpoint.clone();
        self.credential = settings.credential.clone();
        self.spares = settings.spare_credentials.clone().into_iter();
        self.success_recorded = false;
        self.api_name = provider::api_name(settings.api);
        self.thinking = settings.thinking;
        self.window = settings.context_window;
        // How the answer is held to the schema depends on the model.
        self.structured = settings.structured.clone();
        self.fixed_tokens = fixed_tokens(&settings);
        self.settings = Cow::Owned(settings);
        Ok(())
    }

    /// `Step::CallModel`: call, record the message (whatever became of the call), and decide.
    async fn call_model(&mut self, turn: &mut Turn<'_>) -> Step {
        if let Err(error) = self.switch_model(turn) {
            return Step::Done(Ending::Persistence(error));
        }
        let outcome = self.call(turn).await;
        let (accumulator, failure) = match outcome {
            CallOutcome::Complete(accumulator) => (accumulator, None),
            CallOutcome::Failed { error, partial } => (partial, Some(Err(error))),
            CallOutcome::Cancelled { partial } => (partial, Some(Ok(()))),
        };
        let reason = turn
            .cancellation
            .reason()
            .unwrap_or(CancelReason::Interrupt);
        let mut message = accumulator.message(
            self.api_name,
            &self.settings.provider,
            &self.settings.model,
            now_millis(),
            match &failure {
                None => None,
                Some(Ok(())) => Some(StopReason::Aborted),
                Some(Err(_)) => Some(StopReason::Error),
            },
        );
        message.cost = self.cost(&accumulator.usage());
        match &failure {
            None => {}
            Some(outcome) => {
                // A call that did not complete runs no tool and leaves no call without a result.
                message
                    .content
                    .retain(|block| !matches!(block, AssistantBlock::ToolCall(_)));
                message.error_message = Some(match outcome {
                    Err(error) => error.to_string(),
                    Ok(()) => reason.message().to_owned(),
                });
            }
        }
        self.account(turn, &accumulator, failure.is_none());
        let report = &mut turn.report;
        report.provider_stop_reason = accumulator.provider_stop_reason().map(str::to_owned);
        report.stop_reason = accumulator
            .finish_reason()
            .and_then(|reason| claude_stop_reason(reason, accumulator.provider_stop_reason()));
        let stored = Message::Assistant(message.clone());
        // A failed call that produced nothing is recorded too, so `status` can say why.
        let entry_id = match turn.record(stored) {
            Ok(id) => id,
            Err(error) => return Step::Done(Ending::Persistence(error)),
        };
        if self.transport.replaying() {
            // The session says which usage was replayed, so `status` prices it at nothing.
            let data = crate::session::summary::replayed_data(
                &self.settings.provider,
                &self.settings.model,
                &accumulator.usage(),
            );
            if let Err(error) = turn.record_entry(
                NewEntry::Custom {
                    custom_type: crate::session::summary::REPLAYED,
                    data: &data,
                },
                false,
            ) {
                return Step::Done(Ending::Persistence(error));
            }
        }
        match failure {
            Some(Ok(())) => {
                turn.report.final_text = accumulator.text();
                Step::Done(Ending::Cancelled(reason))
            }
            Some(Err(error)) => self.after_failure(error, turn),
            None => self.after_answer(message, &accumulator, entry_id, turn),
        }
    }

    /// What a failed call leads to, in order: a lower reasoning level, a re-sent broken stream,
    /// the next credential, a compaction, or the end of the turn.
    fn after_failure(&mut self, error: ProviderError, turn: &mut Turn<'_>) -> Step {
        let kind = classify(&error);
        if kind == FailureKind::Format
            && rejects_output_format(&error)
            && let Some(warning) = self.structured.as_mut().and_then(Plan::fall_back_to_tool)
        {
            turn.sink
                .emit(&Event::Warning(format!("{warning} ({error})")));
            self.final_call = false;
            return Step::CallModel;
        }
        if rejects_thinking(&error, kind)
            && let Some(lower) = lower_thinking(self.thinking)
        {
            turn.sink.emit(&retry_event(
                1,
                Duration::ZERO,
                &error.to_string(),
                RetryKind::ThinkingLevel(lower),
            ));
            return Step::LowerThinking(lower);
        }
        if self.shown.call_output
            && let Some(delay) = self.resend_delay(&error, turn)
        {
            return Step::Resend(delay);
        }
        if matches!(
            kind,
            FailureKind::Auth | FailureKind::Billing | FailureKind::RateLimit
        ) {
            self.credential_outcome(turn, Some(kind.as_str()));
            if self.spares.len() > 0 {
                return Step::RotateCredential(kind);
            }
        }
        if kind == FailureKind::ContextOverflow {
            if let Some(stated) = crate::provider::classify::reported_window(&error)
                .filter(|stated| self.window.is_none_or(|window| *stated < window))
            {
                self.window = Some(stated);
                turn.report.learned_window = Some(stated);
            }
            if !self.overflow_retried {
                // Compact once and retry; a second overflow ends the run (exit 6).
                self.overflow_retried = true;
                return Step::Compact(Compaction::Overflow(error, kind));
            }
        }
        Step::Done(Ending::Failed { error, kind })
    }

    /// A stream that broke after it passed on text, thinking or a tool call's arguments is sent
    /// again like a failed request (SPEC §9.3), whether or not tools ran in earlier calls: their
    /// results are in the transcript, so the re-sent call is the same request and runs nothing
    /// twice. `None` when the failure is not retryable or the retries are used up.
    fn resend_delay(&mut self, error: &ProviderError, turn: &mut Turn<'_>) -> Option<Duration> {
        let retry::RetryDecision::RetryAfter(delay) = retry::decide(
            &self.settings.retry,
            self.stream_retries,
            error,
            false,
            self.jitter.next_fraction(),
        ) else {
            return None;
        };
        self.stream_retries += 1;
        turn.sink.emit(&retry_event(
            self.stream_retries,
            delay,
            &error.to_string(),
            RetryKind::DiscardedPartial,
        ));
        let notice = if self.shown.call_text.is_empty() {
            format!("the stream broke off ({error}); retrying the call")
        } else {
            format!(
                "the stream broke off ({error}); retrying the call, the text above is \
                 continued, not repeated"
            )
        };
        turn.sink.emit(&Event::Notice(notice));
        Some(delay)
    }

    /// A completed answer: count it, show it, and go on to its tools or end the turn.
    fn after_answer(
        &mut self,
        message: AssistantMessage,
        accumulator: &Accumulator,
        entry_id: String,
        turn: &mut Turn<'_>,
    ) -> Step {
        // Counted once it completed: retries, rotations and re-sends made it only once.
        turn.report.model_calls += 1;
        if !self.success_recorded {
            self.success_recorded = true;
            self.credential_outcome(turn, None);
        }
        let stop_reason = turn.report.stop_reason;
        turn.sink.emit(&Event::MessageEnd(MessageEnd {
            stop_reason,
            usage: accumulator.usage(),
        }));
        let calls: Vec<ToolCall> = message.tool_calls().cloned().collect();
        let output_limit =
            calls.is_empty() && message.stop_reason == StopReason::Length && !has_answer(&message);
        turn.sink.emit(&Event::Assistant(AssistantDone {
            message,
            message_id: accumulator
                .response_id()
                .map_or_else(|| format!("msg_{entry_id}"), str::to_owned),
            stop_reason,
            provider_stop_reason: accumulator.provider_stop_reason().map(str::to_owned),
            entry_id: Some(entry_id),
        }));
        turn.report.final_text = accumulator.text();
        if self.shown.text_printed {
            self.shown.separator_pending = true;
        }
        if output_limit {
            // All the output went to reasoning (or nowhere): an empty success would hide it.
            return Step::Done(Ending::OutputLimit {
                max_output_tokens: Some(self.settings.max_output_tokens),
            });
        }
        if let Some(step) = self.answer_step(&calls) {
            return step;
        }
        let over_threshold = self.needs_compaction(accumulator.usage().context_tokens());
        if calls.is_empty()
            && crate::provider::stop_reason::is_pause(accumulator.provider_stop_reason())
        {
            // Not the end of the turn: the paused answer is continued by the next call.
            return if over_threshold {
                Step::Compact(Compaction::AfterTools)
            } else {
                Step::Guard
            };
        }
        if calls.is_empty() && self.settings.hooks.has(HookEvent::Stop) {
            return Step::Stopping {
                compact: over_threshold,
            };
        }
        if calls.is_empty() {
            return if over_threshold {
                Step::Compact(Compaction::AfterAnswer)
            } else {
                Step::Done(Ending::Completed)
            };
        }
        self.compact_after_tools = over_threshold;
        Step::RunTools(calls)
    }

    /// With `--json-schema`: the answer to check — a message without tool calls, or a call of
    /// the final-answer tool on its own (among other calls it is refused, see `run_tool`).
    fn answer_step(&self, calls: &[ToolCall]) -> Option<Step> {
        let plan = self.structured.as_ref()?;
        match calls {
            [] => Some(Step::CheckAnswer(None)),
            [call] if plan.is_answer_tool(&call.name) => {
                Some(Step::CheckAnswer(Some(call.clone())))
            }
            _ => None,
        }
    }

    /// `Step::CheckAnswer`: a valid answer ends the turn with its value; an invalid one goes
    /// back to the model (a user message, or the final-answer tool's error result) until the
    /// retries are used up.
    fn check_answer(&mut self, call: Option<ToolCall>, turn: &mut Turn<'_>) -> Step {
        let Some(plan) = &self.structured else {
            return Step::Done(Ending::Completed);
        };
        let verdict = match &call {
            Some(call) => {
                // The call has no text: its input is the answer the result shows.
                turn.report.final_text = call.arguments.to_string();
                plan.check_tool_input(&call.arguments)
            }
            None => plan.check_text(&turn.report.final_text),
        };
        let judged = self.answers.judge(plan, verdict, turn);
        let judgement = match judged {
            Ok(judgement) => judgement,
            Err(error) => return Step::Done(Ending::Persistence(error)),
        };
        let (answer, next) = match judgement {
            Judgement::Accepted(value) => {
                let context = turn
                    .report
                    .last_usage
                    .map_or(0, |usage| usage.context_tokens());
                let compact = self.needs_compaction(context);
                // A valid answer is where the turn would stop: the Stop hooks have their say.
                let next = if self.settings.hooks.has(HookEvent::Stop) {
                    Step::Stopping { compact }
                } else if compact {
                    Step::Compact(Compaction::AfterAnswer)
                } else {
                    Step::Done(Ending::Completed)
                };
                if call.is_some() {
                    turn.report.final_text = value.to_string();
                }
                (("Answer accepted.".to_owned(), false), next)
            }
            Judgement::Exhausted(ending) => {
                let Ending::StructuredOutputInvalid { errors, .. } = &ending else {
                    return Step::Done(ending);
                };
                ((plan.feedback(errors), true), Step::Done(ending))
            }
            Judgement::Retry(errors) => {
                let feedback = plan.feedback(&errors);
                if plan.mode() == StructuredMode::NativeWithoutTools {
                    self.final_call = true;
                }
                if call.is_none() {
                    let message = feedback_message(feedback);
                    if let Err(error) = turn.record(message) {
                        return Step::Done(Ending::Persistence(error));
                    }
                    return Step::Guard;
                }
                ((feedback, true), Step::Guard)
            }
        };
        // The final-answer call is answered like any call, so the transcript stays valid.
        if let Some(call) = &call {
            let (text, is_error) = answer;
            let result = ToolResultMessage {
                tool_call_id: call.id.clone(),
                tool_name: call.name.clone(),
                content: vec![conversation::ContentBlock::text(&text)],
                details: None,
                is_error,
                timestamp: now_millis(),
            };
            if let Err(error) = self.record_tool_result(result, turn) {
                return Step::Done(Ending::Persistence(error));
            }
        }
        next
    }

    /// The hosts the egress proxy refused since the last look (SPEC §20): an event each, and
    /// the run's whole list (with counts) in the report.
    fn network_denials(&self, turn: &mut Turn<'_>) {
        let Some(egress) = self.settings.sandbox.exec.egress.get() else {
            return;
        };
        for denial in egress.take_new_denials() {
            turn.sink.emit(&Event::NetworkDenial(denial));
        }
        turn.report.network_denials = egress.denials();
    }

    /// Store a tool result, add it to the context and show it.
    fn record_tool_result(
        &self,
        result: ToolResultMessage,
        turn: &mut Turn<'_>,
    ) -> Result<(), SessionError> {
        let entry_id = turn.record(Message::ToolResult(result.clone()))?;
        turn.sink.emit(&Event::ToolResult(ToolResultDone {
            result,
            entry_id: Some(entry_id),
        }));
        Ok(())
    }

    /// `Step::RunTools`: each call in order, refused or run, its result recorded and shown.
    async fn run_tools(&mut self, calls: Vec<ToolCall>, turn: &mut Turn<'_>) -> Step {
        for call in calls {
            let result = self.run_tool(&call, turn).await;
            if let Err(error) = self.record_tool_result(result, turn) {
                return Step::Done(Ending::Persistence(error));
            }
        }
        if let Some((event, reason)) = self.hook_stop.take() {
            return Step::Done(Ending::HookStopped { event, reason });
        }
        if self.compact_after_tools {
            // Over the threshold with the results appended: compact before the next request.
            Step::Compact(Compaction::AfterTools)
        } else {
            Step::Guard
        }
    }

    /// One tool call: refused by a PreToolUse hook or the policy, or run (and shown to the
    /// PostToolUse hooks); every refusal is listed. What the hooks say for the model follows the
    /// tool's own output in the result.
    async fn run_tool(&mut self, call: &ToolCall, turn: &mut Turn<'_>) -> ToolResultMessage {
        turn.sink.emit(&Event::ToolStarted(ToolStart {
            id: call.id.clone(),
            name: call.name.clone(),
            input: call.arguments.clone(),
        }));
        let mut notes = Vec::new();
        let mut arguments = call.arguments.clone();
        let output = if turn.cancellation.token.is_cancelled() {
            tools::ToolOutput::error("not run: the turn was interrupted")
        } else if let Some((event, _)) = &self.hook_stop {
            tools::ToolOutput::error(format!("not run: a {event} hook stopped the turn"))
        } else if self
            .structured
            .as_ref()
            .is_some_and(|plan| plan.is_answer_tool(&call.name))
        {
            tools::ToolOutput::error(
                "not accepted: call structured_output on its own, as the last step, once the \
                 other tools' results are back",
            )
        } else {
            match self
                .pre_tool_use(call, &mut arguments, &mut notes, turn)
                .await
            {
                Some(refused) => refused,
                // A signal while the hooks ran: the call is not started.
                None if turn.cancellation.token.is_cancelled() => {
                    tools::ToolOutput::error("not run: the turn was interrupted")
                }
                None => self.execute_tool(&call.name, &arguments, turn).await,
            }
        };
        // Every refusal, by a hook, the policy or the sandbox inside the tool, is listed.
        if output.refusal.is_some() {
            turn.report.permission_denials.push(Denial {
                tool_name: call.name.clone(),
                tool_use_id: call.id.clone(),
                tool_input: arguments.clone(),
            });
        }
        turn.sink.emit(&Event::ToolFinished(ToolEnd {
            id: call.id.clone(),
            is_error: output.is_error,
            refused: output.refusal.is_some(),
        }));
        self.network_denials(turn);
        let mut output = output;
        self.settings
            .redactor
            .scrub_blocks(&mut output.content, &mut output.details);
        if !output.is_error && output.refusal.is_none() {
            self.post_tool_use(call, &arguments, &output, &mut notes, turn)
                .await;
        }
        // What the hooks said is scrubbed like the tool's own output.
        let mut notes: Vec<ContentBlock> = notes.into_iter().map(ContentBlock::text).collect();
        self.settings.redactor.scrub_blocks(&mut notes, &mut None);
        output.content.extend(notes);
        ToolResultMessage {
            tool_call_id: call.id.clone(),
            tool_name: call.name.clone(),
            content: output.content,
            details: output.details,
            is_error: output.is_error,
            timestamp: now_millis(),
        }
    }

    /// The call as the policy allows it: an MCP server's tool, or a built-in.
    async fn execute_tool(
        &self,
        name: &str,
        arguments: &serde_json::Value,
        turn: &mut Turn<'_>,
    ) -> tools::ToolOutput {
        if let Decision::Deny { reason, .. } = self.settings.policy.check(name, arguments) {
            tools::ToolOutput::refused(
                tools::Refusal::Policy,
                format!("Permission denied: {reason}"),
            )
        } else if self.settings.mcp.has_tool(name) {
            // An MCP tool: the call goes to its server (SPEC §13).
            let cancel = &turn.cancellation.token;
            let temp_dir = self.settings.sandbox.exec.temp_dir.as_deref();
            self.settings
                .mcp
                .call(name, arguments, cancel, temp_dir)
                .await
        } else {
            tools::execute(name, arguments, &self.tool_context).await
        }
    }

    /// The PreToolUse hooks: `Some` refusal when one blocked or denied the call; a hook's
    /// `updatedInput` replaces `arguments` (the policy then checks those). `allow` does not
    /// override the policy: pincer never prompts, so there is nothing to skip.
    async fn pre_tool_use(
        &mut self,
        call: &ToolCall,
        arguments: &mut serde_json::Value,
        notes: &mut Vec<String>,
        turn: &mut Turn<'_>,
    ) -> Option<tools::ToolOutput> {
        let hooks = &self.settings.hooks;
        if !hooks.has(HookEvent::PreToolUse) {
            return None;
        }
        let policy = &self.settings.policy;
        let fire = Fire::PreToolUse {
            tool: &call.name,
            input: arguments,
            id: &call.id,
            may_ask: policy.check(&call.name, arguments).is_allowed()
                && !policy.allows_explicitly(&call.name, arguments),
        };
        let verdict = super::hooks::fire(hooks, &fire, &turn.cancellation.token, turn.sink).await;
        notes.extend(verdict.context);
        if let Some(reason) = verdict.stop {
            self.hook_stop = Some((HookEvent::PreToolUse.as_str(), reason));
        }
        if let Some(reason) = verdict.block {
            let text = if verdict.sdk_refusal {
                reason
            } else {
                format!("Blocked by a PreToolUse hook: {reason}")
            };
            return Some(tools::ToolOutput::refused(tools::Refusal::Hook, text));
        }
        if let Some(updated) = verdict.updated_input {
            *arguments = updated;
        }
        None
    }

    /// The PostToolUse hooks of a call that succeeded: a block reason and any context go to the
    /// model after the tool's output.
    async fn post_tool_use(
        &mut self,
        call: &ToolCall,
        arguments: &serde_json::Value,
        output: &tools::ToolOutput,
        notes: &mut Vec<String>,
        turn: &mut Turn<'_>,
    ) {
        let hooks = &self.settings.hooks;
        if !hooks.has(HookEvent::PostToolUse) || turn.cancellation.token.is_cancelled() {
            return;
        }
        let fire = Fire::PostToolUse {
            tool: &call.name,
            input: arguments,
            response: crate::hooks::protocol::tool_response(
                &call.name,
                arguments,
                &output.text_content(),
                output.is_error,
                output.details.as_ref(),
                &self.settings.workspace,
            ),
            id: &call.id,
        };
        let verdict = super::hooks::fire(hooks, &fire, &turn.cancellation.token, turn.sink).await;
        if let Some(reason) = verdict.block {
            notes.push(format!("PostToolUse hook feedback: {reason}"));
        }
        notes.extend(verdict.context);
        if let Some(reason) = verdict.stop {
            self.hook_stop = Some((HookEvent::PostToolUse.as_str(), reason));
        }
    }

    /// `Step::Stopping`: the Stop hooks. A block makes the model go on with the reason as a
    /// user message (bounded by `--max-turns` through the guard); otherwise the turn ends.
    async fn stopping(&mut self, compact: bool, turn: &mut Turn<'_>) -> Step {
        let fire = Fire::Stop {
            active: self.stop_hook_active,
            last_message: &turn.report.final_text,
        };
        let verdict = super::hooks::fire(
            &self.settings.hooks,
            &fire,
            &turn.cancellation.token,
            turn.sink,
        )
        .await;
        let go_on = verdict
            .block
            .filter(|_| verdict.stop.is_none() && !turn.cancellation.token.is_cancelled());
        let Some(reason) = go_on else {
            return if compact {
                Step::Compact(Compaction::AfterAnswer)
            } else {
                Step::Done(Ending::Completed)
            };
        };
        self.stop_hook_active = true;
        let message = Message::User(UserMessage {
            content: MessageContent::Text(format!("Stop hook feedback:\n{reason}")),
            timestamp: now_millis(),
        });
        if let Err(error) = turn.record(message) {
            return Step::Done(Ending::Persistence(error));
        }
        if compact {
            Step::Compact(Compaction::AfterTools)
        } else {
            Step::Guard
        }
    }

    /// `Step::RotateCredential`: the next credential of the provider takes over.
    fn rotate_credential(&mut self, kind: FailureKind, turn: &mut Turn<'_>) -> Step {
        let Some(next) = self.spares.next() else {
            return Step::Done(Ending::Failed {
                error: ProviderError::Transport {
                    provider: self.settings.provider.clone(),
                    message: "no further credential".to_owned(),
                },
                kind,
            });
        };
        turn.sink.emit(&Event::Rotation(Rotation {
            provider: self.settings.provider.clone(),
            from: self.credential.source.clone(),
            to: next.source.clone(),
            reason: kind.as_str(),
        }));
        self.credential = next.clone();
        self.endpoint.api_key.clone_from(&next.key);
        self.success_recorded = false;
        if !self.shown.call_text.is_empty() {
            self.shown.replay = Replay::start(std::mem::take(&mut self.shown.call_text));
        }
        Step::CallModel
    }

    /// `Step::LowerThinking`: record the level that is tried now and send again.
    fn step_thinking_down(&mut self, level: ThinkingLevel, turn: &mut Turn<'_>) -> Step {
        if let Err(failure) = turn.record_entry(
            NewEntry::ThinkingLevelChange {
                level: level.as_str(),
            },
            false,
        ) {
            return Step::Done(Ending::Persistence(failure));
        }
        self.thinking = level;
        Step::CallModel
    }

    /// `Step::Resend`: wait (a replay does not), then the same request again. A signal during
    /// the wait is seen by the driver before the call.
    async fn resend(&mut self, delay: Duration, turn: &mut Turn<'_>) -> Step {
        self.transport.pause(delay, &turn.cancellation.token).await;
        self.shown.replay = Replay::start(std::mem::take(&mut self.shown.call_text));
        Step::CallModel
    }

    /// `Step::Compact`.
    async fn compact(&mut self, compaction: Compaction, turn: &mut Turn<'_>) -> Step {
        let trigger = match compaction {
            Compaction::Overflow(..) => Trigger::Overflow,
            Compaction::AfterAnswer | Compaction::AfterTools => Trigger::Auto,
        };
        let compacted = match self.compact_now(turn, trigger).await {
            Ok(compacted) => compacted,
            Err(failure) => return Step::Done(Ending::Persistence(failure)),
        };
        match compaction {
            Compaction::Overflow(_, _) if compacted => Step::CallModel,
            Compaction::Overflow(error, kind) => match turn.cancellation.reason() {
                Some(reason) => Step::Done(self.interrupted(reason, turn)),
                None => Step::Done(Ending::Failed { error, kind }),
            },
            Compaction::AfterAnswer => match turn.cancellation.reason() {
                // Interrupted while compacting after the answer.
                Some(reason) => Step::Done(self.interrupted(reason, turn)),
                None => Step::Done(Ending::Completed),
            },
            Compaction::AfterTools => Step::Guard,
        }
    }

    /// Compact the transcript now and rebuild the context from it. `Ok(false)`: nothing to
    /// compact. The recent messages kept are capped at a quarter of the window; after an
    /// overflow the session is compacted even when the estimate says it fits.
    async fn compact_now(
        &mut self,
        turn: &mut Turn<'_>,
        trigger: Trigger,
    ) -> Result<bool, SessionError> {
        let settings = &*self.settings;
        let keep_recent_tokens =
            compaction::cap_to_window(settings.compaction.keep_recent_tokens, self.window);
        let plan = match trigger {
            Trigger::Auto => None,
            Trigger::Overflow => {
                turn.transcript.load_full()?;
                let plan = compaction::cut::plan_for_overflow(
                    turn.transcript.entries(),
                    None,
                    keep_recent_tokens,
                );
                if plan.is_none() {
                    return Ok(false);
                }
                plan
            }
        };
        let summary_model = SummaryModel {
            api: settings.api,
            // The credential in use now (it may have rotated during the turn).
            endpoint: &self.endpoint,
            model: &settings.model,
            max_output_tokens: settings.max_output_tokens.min(16_384),
            idle_timeout: settings.idle_timeout,
        };
        if self.settings.hooks.has(HookEvent::PreCompact) {
            let fire = Fire::PreCompact {
                trigger: "auto",
                instructions: "",
            };
            let hooks = &self.settings.hooks;
            super::hooks::fire(hooks, &fire, &turn.cancellation.token, turn.sink).await;
        }
        turn.sink.emit(&Event::Phase(Phase::Compacting));
        let started = Instant::now();
        let outcome = compact::run(
            self.transport,
            &summary_model,
            turn.transcript,
            keep_recent_tokens,
            None,
            &turn.cancellation.token,
            turn.messages,
            plan,
        )
        .await?;
        turn.report.api_duration += started.elapsed();
        let Some(compacted) = outcome else {
            return Ok(false);
        };
        let report = &mut turn.report;
        report.compactions += 1;
        let cost = self.cost(&compacted.usage).total;
        report.usage.add(&compacted.usage);
        report.cost_usd += cost;
        let totals = report
            .model_usage
            .entry(settings.model.clone())
            .or_default();
        totals.usage.add(&compacted.usage);
        totals.cost_usd += cost;
        report.context_estimate = Some(compacted.tokens_after);
        turn.sink.emit(&Event::Compaction(Compacted {
            trigger: trigger.as_str().to_owned(),
            pre_tokens: Some(compacted.tokens_before),
            post_tokens: Some(compacted.tokens_after),
            backend: None,
        }));
        if self.settings.hooks.has(HookEvent::SessionStart) {
            let fire = Fire::SessionStart { source: "compact" };
            let hooks = &self.settings.hooks;
            let verdict =
                super::hooks::fire(hooks, &fire, &turn.cancellation.token, turn.sink).await;
            self.hook_context.extend(verdict.context);
        }
        Ok(true)
    }

    /// `Step::Guard`: `--max-turns` and `--max-budget-usd` stop a tool loop before its next
    /// call.
    fn guard(&self, turn: &Turn<'_>) -> Step {
        let settings = &*self.settings;
        if settings
            .max_turns
            .is_some_and(|limit| turn.report.model_calls >= limit)
        {
            return Step::Done(Ending::MaxTurns);
        }
        if settings
            .max_budget_usd
            .is_some_and(|budget| turn.report.cost_usd >= budget)
        {
            return Step::Done(Ending::MaxBudget);
        }
        Step::CallModel
    }

    /// Whether a context of `context_tokens` leaves less than the reserve free in the window
    /// (the reserve capped at a quarter of the window, SPEC §7). An unknown window never
    /// compacts.
    fn needs_compaction(&self, context_tokens: u64) -> bool {
        let rules = &self.settings.compaction;
        let reserve = compaction::cap_to_window(rules.reserve_tokens, self.window);
        rules.enabled
            && self
                .window
                .is_some_and(|window| compaction::should_compact(context_tokens, window, reserve))
    }

    /// Tell `commands/` how the credential in use fared (it records cooldowns in the store).
    fn credential_outcome(&self, turn: &mut Turn<'_>, failure: Option<&'static str>) {
        if let Some(profile_id) = &self.credential.profile_id {
            turn.sink.emit(&Event::Credential(CredentialOutcome {
                provider: self.settings.provider.clone(),
                profile_id: profile_id.clone(),
                failure,
            }));
        }
    }

    /// What a call cost: nothing when it was replayed, else its usage at the model's prices.
    fn cost(&self, usage: &TokenUsage) -> Cost {
        match self.settings.prices {
            Some(prices) if !self.transport.replaying() => prices.cost(usage),
            _ => Cost::default(),
        }
    }

    /// Add a call's usage and cost to the report; a completed call's usage is the new context
    /// snapshot (SPEC §8).
    fn account(&self, turn: &mut Turn<'_>, accumulator: &Accumulator, success: bool) {
        let usage = accumulator.usage();
        let cost = self.cost(&usage).total;
        let report = &mut turn.report;
        report.usage.add(&usage);
        report.cost_usd += cost;
        let totals = report
            .model_usage
            .entry(self.settings.model.clone())
            .or_default();
        totals.usage.add(&usage);
        totals.cost_usd += cost;
        if success && usage.context_tokens() > 0 {
            report.last_usage = Some(usage);
            report.context_estimate = None;
        }
    }
}

impl Engine for ApiEngine<'_> {
    async fn step(&mut self, step: Step, turn: &mut Turn<'_>) -> Step {
        match step {
            Step::CallModel => self.call_model(turn).await,
            Step::RunTools(calls) => self.run_tools(calls, turn).await,
            Step::Resend(delay) => self.resend(delay, turn).await,
            Step::RotateCredential(kind) => self.rotate_credential(kind, turn),
            Step::LowerThinking(level) => self.step_thinking_down(level, turn),
            Step::Compact(compaction) => self.compact(compaction, turn).await,
            Step::Guard => self.guard(turn),
            Step::Stopping { compact } => self.stopping(compact, turn).await,
            Step::CheckAnswer(call) => self.check_answer(call, turn),
            Step::Done(ending) => Step::Done(ending),
        }
    }

    /// A cancellation seen outside a model call — before the first one, between tools and the
    /// next call, while compacting or waiting to re-send — is recorded as an empty `aborted`
    /// message (SPEC §5.5), as an interrupted call records its partial text, so that the next
    /// resume and `status` know the turn was cut short.
    fn interrupted(&mut self, reason: CancelReason, turn: &mut Turn<'_>) -> Ending {
        let message = Message::Assistant(AssistantMessage {
            content: Vec::new(),
            api: self.api_name.to_owned(),
            provider: self.settings.provider.clone(),
            model: self.settings.model.clone(),
            usage: TokenUsage::default(),
            cost: Cost::default(),
            stop_reason: StopReason::Aborted,
            timestamp: now_millis(),
            error_message: Some(reason.message().to_owned()),
        });
        match turn.record(message) {
            Ok(_) => Ending::Cancelled(reason),
            Err(error) => Ending::Persistence(error),
        }
    }
}

/// Why a compaction runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Trigger {
    /// The context passed the window minus the reserve.
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

/// The `Retry` event of a call made again.
fn retry_event(attempt: u32, delay: Duration, error: &str, kind: RetryKind) -> Event {
    Event::Retry(Retry {
        attempt: Some(u64::from(attempt)),
        delay: Some(delay),
        error: error.to_owned(),
        kind,
    })
}

/// Whether an assistant message says anything (text that is not only whitespace).
fn has_answer(message: &AssistantMessage) -> bool {
    message.content.iter().any(|block| match block {
        AssistantBlock::Text(text) => !text.text.trim().is_empty(),
        _ => false,
    })
}

/// Whether a refused request names the API's JSON Schema mode (Anthropic `output_config`,
/// OpenAI `text.format` / `response_format`, Gemini `responseJsonSchema` or its refusal of a
/// JSON mime type beside function calling), rather than anything else malformed.
pub fn rejects_output_format(error: &ProviderError) -> bool {
    let message = error.to_string().to_lowercase();
    [
        "output_config",
        "output_format",
        "response_format",
        "text.format",
        "json_schema",
        "responsejsonschema",
        "response_json_schema",
        "responsemimetype",
        "response_mime_type",
        "response mime type",
    ]
    .iter()
    .any(|word| message.contains(word))
}

/// The next lower reasoning level, for a provider that refused the current one.
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

/// Run one API turn: `messages` holds the context with the new user message last (already in
/// `transcript`); completed messages are appended to both.
pub async fn run(
    settings: &ApiSettings,
    transport: &Transport,
    switch: Option<&dyn ModelSwitch>,
    messages: &mut Vec<Message>,
    transcript: &mut crate::session::transcript::Transcript,
    sink: &mut dyn super::EventSink,
    cancellation: &super::Cancellation,
) -> super::TurnReport {
    let mut turn = Turn {
        messages,
        transcript,
        sink,
        cancellation,
        report: super::TurnReport::empty(Ending::Completed),
    };
    let mut engine = ApiEngine::new(settings, transport, switch, &turn);
    turn.report.overhead_tokens = Some(engine.fixed_tokens);
    super::step::drive(&mut engine, &mut turn).await;
    // Refusals since the last tool call (a command's background job, a hook): in the result too.
    engine.network_denials(&mut turn);
    turn.report
}

#[cfg(test)]
mod tests {
    use super::*;

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
