//! What a turn reports while it runs: meaning-level events, in the order things happen.
//!
//! Both engines (the API engine and the CLI engine) and the failover loop emit these to an
//! [`EventSink`]; they never ask which output mode is on and never build JSON. `output/` turns
//! them into text on stdout, stream-json lines (`output::schema`) and progress on stderr;
//! `commands/` persists what must outlive the run (credential outcomes in the profile store).
//! Adding an event is one variant here and one rendering in `output/`.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;

use crate::conversation::{
    AssistantMessage, StreamEvent, ThinkingLevel, TokenUsage, ToolResultMessage,
};

/// Something that happened during a run.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// The turn is about to make its first request (stream-json `system/init`).
    Init(Init),
    /// What the first request sends: the user message and the system prompt. No output renders
    /// it; telemetry exports it only when asked to capture message content (SPEC §17).
    Input(Input),
    /// A chunk of the answer for the person reading stdout (text mode), as it streams; the
    /// engines already took out text a retried call repeats.
    TextDelta(String),
    /// A neutral event of the model call in progress, as it arrives (stream-json `stream_event`
    /// lines with `--include-partial-messages`; the spinner's phase).
    Stream(StreamEvent),
    /// The model call in progress completed (closes its `stream_event` message).
    MessageEnd(MessageEnd),
    /// A model call completed: its whole message, as stored.
    Assistant(AssistantDone),
    /// A tool call's result, as stored and sent back to the model.
    ToolResult(ToolResultDone),
    /// A model call is made again (a resend, a broken stream, a lower thinking level).
    Retry(Retry),
    /// The turn continues with the provider's next credential.
    Rotation(Rotation),
    /// The turn continues with the next model of the failover chain.
    Fallback(Fallback),
    /// The session was compacted (by pincer, or by a CLI child in its own session).
    Compaction(Compaction),
    /// A credential worked or failed: `commands/` records it in the profile store, so that
    /// cooldowns hold across processes.
    Credential(CredentialOutcome),
    /// A sentence for the person reading text mode (stderr); the JSON modes carry the same
    /// fact in another event.
    Notice(String),
    /// A warning for stderr in every output mode (a cron log shows why another model answered).
    Warning(String),
    /// What the run waits for now (progress on stderr only).
    Phase(Phase),
    /// A tool call is about to run (progress on stderr only).
    ToolStarted(ToolStart),
    /// A tool call finished (progress on stderr only; its result is the `ToolResult` event).
    ToolFinished(ToolEnd),
    /// A hook started or finished (SPEC §14): stream-json `system/hook_started` and
    /// `system/hook_response` with `--include-hook-events`, a stderr line with `-v`.
    Hook(crate::hooks::HookProgress),
    /// The answer did not match `--json-schema`: it is sent back with the errors.
    StructuredRetry(StructuredRetry),
    /// The egress proxy refused a host a command asked for (SPEC §20), the first time it did
    /// (its stderr line was said as it happened): stream-json `system/network_denial`.
    NetworkDenial(pincer_egress::Denial),
    /// The turn was committed to the session store (SPEC §19): stream-json
    /// `system/checkpoint`, after the turn's last event and before the result.
    Checkpoint(Checkpoint),
}

/// Where a committed turn is in the session store: what a fleet engine's activity heartbeats.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkpoint {
    pub session_id: String,
    /// The store's segment that holds the turn (1 for the session's first).
    pub segment: u64,
    /// The session's turn number (1 for its first committed turn).
    pub turn: Option<u64>,
}

/// An answer sent back for not matching `--json-schema`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StructuredRetry {
    /// The retry this starts (1 for the first).
    pub attempt: u32,
    /// `structured_output.max_retries`.
    pub max_retries: u32,
    /// The validation errors (`path: message`).
    pub errors: Vec<String>,
}

/// Where events go.
pub trait EventSink {
    /// Take one event. It cannot fail: a sink whose output is gone keeps its first error and
    /// reports it when the run's record is written (`OutputSink::finish`); the turn goes on.
    fn emit(&mut self, event: &Event);
}

/// What the turn starts with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Init {
    /// pincer's session id (none with nothing kept and no id given).
    pub session_id: Option<String>,
    /// The workspace.
    pub cwd: PathBuf,
    /// The tools offered, by name.
    pub tools: Vec<String>,
    /// The model id.
    pub model: String,
    /// The provider, or the CLI backend's name.
    pub provider: String,
    /// `api`, `claude-cli` or `codex-cli`.
    pub backend: &'static str,
    /// Whether a key was found for the model (`environment`) or none is used (`none`).
    pub api_key_source: &'static str,
    /// The MCP servers of the run and what became of them (SPEC §13).
    pub mcp_servers: Vec<McpServer>,
    /// The hooks loaded for the run (SPEC §14), in declaration order.
    pub hooks: Vec<InitHook>,
    /// The sandbox mode (`read-only`, `workspace-write`, `danger-full-access`).
    pub sandbox: &'static str,
    /// Whether commands reach the network (`on`), only the hosts the rules name (`limited`) or
    /// only a loopback of their own (`off`).
    pub network: &'static str,
    /// With `limited`: the rules in force, in one line.
    pub network_rules: Option<String>,
    /// When the run asks for the provider's web search: whether the first model's request has it
    /// (`on`) or not (`off`: the network is closed or limited without the provider's host, or
    /// the model cannot search; a warning said why).
    pub web_search: Option<&'static str>,
    /// The consumed files pincer did not read (issue #45), each also a warning on stderr.
    pub refused_files: Vec<crate::consumed::Refusal>,
}

/// A hook as the turn starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InitHook {
    /// Its event (`PreToolUse`, …).
    pub event: &'static str,
    /// Its matcher as written.
    pub matcher: Option<String>,
    /// The command line.
    pub command: String,
    /// When it is killed.
    pub timeout: Duration,
    /// Whether it runs in the `exec` sandbox.
    pub sandbox: bool,
    /// Where it was declared.
    pub origin: String,
    /// Who runs it: `pincer`, or the CLI backend it is handed to.
    pub runner: &'static str,
}

/// The text of a turn's first request ([`Event::Input`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    /// The user message's text: the prompt, stdin, and what prompt hooks added.
    pub prompt: String,
    /// The system prompt (empty when the model gets none).
    pub system: String,
}

/// How starting an MCP server went, for its telemetry span.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpStart {
    /// When starting began (wall clock).
    pub at: std::time::SystemTime,
    /// How long it took, to `tools/list` answered or the failure.
    pub took: Duration,
    /// The kind of failure (`timeout`, `connect`, `initialize`, …); none when it started.
    pub error_class: Option<&'static str>,
}

/// An MCP server as the turn starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpServer {
    /// Its name.
    pub name: String,
    /// `connected`, `failed`, or `delegated` (a CLI backend starts it).
    pub status: String,
    /// `stdio`, `http` or `sse`.
    pub transport: String,
    /// The tools offered from it, by their `mcp__SERVER__TOOL` names.
    pub tools: Vec<String>,
    /// Why it failed.
    pub error: Option<String>,
    /// How its start went; none when a CLI backend starts it.
    pub start: Option<McpStart>,
}

/// A completed model call, for the `message_delta` of partial messages.
#[derive(Debug, Clone, PartialEq)]
pub struct MessageEnd {
    /// claude's stop reason (`end_turn`, `tool_use`, …).
    pub stop_reason: Option<&'static str>,
    /// The call's usage.
    pub usage: TokenUsage,
}

/// A completed assistant message.
#[derive(Debug, Clone, PartialEq)]
pub struct AssistantDone {
    /// The message as stored.
    pub message: AssistantMessage,
    /// The provider's message id (or one made from the entry id).
    pub message_id: String,
    /// claude's stop reason.
    pub stop_reason: Option<&'static str>,
    /// The provider's own stop word.
    pub provider_stop_reason: Option<String>,
    /// The session entry it was stored as.
    pub entry_id: Option<String>,
}

/// A stored tool result.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResultDone {
    /// The result.
    pub result: ToolResultMessage,
    /// The session entry it was stored as.
    pub entry_id: Option<String>,
}

/// A model call made again.
#[derive(Debug, Clone, PartialEq)]
pub struct Retry {
    /// The attempt this starts (1 for the first retry), when known.
    pub attempt: Option<u64>,
    /// The wait before it, when known.
    pub delay: Option<Duration>,
    /// What failed.
    pub error: String,
    /// Why the call is made again.
    pub kind: RetryKind,
}

/// Why a call is made again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryKind {
    /// The request failed before any output: the same request again.
    Resend,
    /// The stream broke after it showed something: what it showed is discarded.
    DiscardedPartial,
    /// The provider refused the reasoning level: the request again one level lower.
    ThinkingLevel(ThinkingLevel),
    /// A CLI child retried its own API call.
    Child,
}

/// The provider's next credential takes over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rotation {
    /// The provider.
    pub provider: String,
    /// `profile:ID` or `env:VAR` that failed.
    pub from: String,
    /// The one tried next.
    pub to: String,
    /// The failure class.
    pub reason: &'static str,
}

/// The next model of the chain takes over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fallback {
    /// `provider/model` that failed.
    pub from: String,
    /// `provider/model` tried next.
    pub to: String,
    /// The failure class.
    pub reason: &'static str,
    /// The failure.
    pub error: String,
}

/// A compaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compaction {
    /// `auto`, `manual` or `overflow`.
    pub trigger: String,
    /// Context tokens before, when known.
    pub pre_tokens: Option<u64>,
    /// Context tokens after, when known.
    pub post_tokens: Option<u64>,
    /// The CLI backend that compacted its own session (none: pincer did).
    pub backend: Option<&'static str>,
}

/// How a stored credential fared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CredentialOutcome {
    /// The provider.
    pub provider: String,
    /// The profile (environment keys have none and are not recorded).
    pub profile_id: String,
    /// The failure class, or `None` for a success.
    pub failure: Option<&'static str>,
}

/// A phase of the run that no other event announces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Phase {
    /// A model request is on its way (the model reference, or the CLI backend's name).
    Connecting(String),
    /// The transcript is being summarized.
    Compacting,
}

/// A tool call about to run.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolStart {
    /// The call id.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// Its arguments.
    pub input: Value,
}

/// A tool call that finished.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolEnd {
    /// The call id.
    pub id: String,
    /// Whether the tool reported an error (or the call was refused).
    pub is_error: bool,
    /// Whether a hook, the policy or the sandbox refused it (a permission denial).
    pub refused: bool,
}
