//! The public JSON of a run: the `result` object (`--json`, and the last line of stream-json) and
//! every stream-json line of SPEC §3.3. This is the only place their shape is decided.
//!
//! The shapes mirror `claude -p --output-format json|stream-json` where claude has the field
//! (`shared/reference/claude-output/`). They are public API that scripts parse: fields are only
//! ever added, never renamed or removed. Every type also deserializes with
//! `deny_unknown_fields`, so a test that parses recorded runs with them fails when a line grows a
//! field this file does not declare.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

// ---------------------------------------------------------------------------------------------
// Constant words

macro_rules! word {
    ($(#[$doc:meta])* $name:ident = $text:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
        pub enum $name {
            #[default]
            #[serde(rename = $text)]
            #[doc = concat!("`", $text, "`")]
            Value,
        }
    };
}

word!(/// `"message"`.
    MessageWord = "message");
word!(/// `"text"`.
    TextWord = "text");
word!(/// `"assistant"`.
    AssistantWord = "assistant");
word!(/// `"user"`.
    UserWord = "user");
word!(/// `"tool_result"`.
    ToolResultWord = "tool_result");
word!(/// `"base64"`.
    Base64Word = "base64");
word!(/// `"result"`.
    ResultWord = "result");
word!(/// `"web_search_result_location"`.
    WebSearchLocationWord = "web_search_result_location");
word!(/// `"web_search_result"`.
    WebSearchResultWord = "web_search_result");
word!(/// `"web_search_tool_result_error"`.
    WebSearchErrorWord = "web_search_tool_result_error");

/// The version of pincer's JSON output: the result object, the stream-json lines and the
/// `compact --json` reports (and their JSON Schemas under `docs/reference/schemas/`). Adding a
/// field or a value to an open set is compatible and keeps it; renaming or removing a field,
/// changing a type or a meaning, or adding a value to a closed set (`subtype`, `error.kind`)
/// bumps it. A parser checks it against the version it was written for.
///
/// 2: `tool_use_result` (under an agent SDK) is what claude gives: an object for `Read`, the
/// content blocks for an MCP tool; it was always the result's text.
pub const SCHEMA_VERSION: u32 = 2;

/// `schema_version`: always [`SCHEMA_VERSION`], so no constructor can forget or misstate it;
/// reading another version is an error that names both.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SchemaVersion;

impl Serialize for SchemaVersion {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u32(SCHEMA_VERSION)
    }
}

impl<'de> Deserialize<'de> for SchemaVersion {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match u32::deserialize(deserializer)? {
            SCHEMA_VERSION => Ok(SchemaVersion),
            other => Err(serde::de::Error::custom(format!(
                "schema_version {other}, where this pincer writes {SCHEMA_VERSION}"
            ))),
        }
    }
}

impl schemars::JsonSchema for SchemaVersion {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        "SchemaVersion".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "The version of pincer's JSON output, bumped on any incompatible change.",
            "type": "integer",
            "const": SCHEMA_VERSION,
        })
    }
}

// ---------------------------------------------------------------------------------------------
// stream-json lines

/// One stream-json line other than the final `result` (which is [`RunResult`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Line {
    /// A `system` line, by subtype.
    System(SystemLine),
    /// A completed assistant message.
    Assistant(AssistantLine),
    /// Tool results sent back to the model.
    User(UserLine),
    /// A raw stream event (`--include-partial-messages`): one of Anthropic's raw stream events,
    /// whatever the provider or backend.
    StreamEvent(StreamEventLine),
}

/// `system` lines.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "subtype", rename_all = "snake_case")]
pub enum SystemLine {
    /// The first line of a run.
    Init(InitLine),
    /// A model call is made again.
    ApiRetry(ApiRetryLine),
    /// The provider's next credential takes over.
    AuthRotation(AuthRotationLine),
    /// The next model of the failover chain takes over.
    ModelFallback(ModelFallbackLine),
    /// The session was compacted.
    CompactBoundary(CompactBoundaryLine),
    /// A hook starts (`--include-hook-events`), as claude writes it.
    HookStarted(HookStartedLine),
    /// A hook finished (`--include-hook-events`), as claude writes it.
    HookResponse(HookResponseLine),
    /// The answer just received (its `assistant` line came before) did not match
    /// `--json-schema`; the model is asked again with these errors.
    StructuredOutputRetry(StructuredOutputRetryLine),
    /// A confined command's connection to a host no rule allows was refused by the egress
    /// proxy (SPEC §20): once per host, when it is first refused.
    NetworkDenial(NetworkDenialLine),
    /// The turn was committed to the session store (`--store`): where it is.
    Checkpoint(CheckpointLine),
}

/// `system/init`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InitLine {
    /// The version of this output, bumped on any incompatible change.
    pub schema_version: SchemaVersion,
    /// The workspace.
    pub cwd: String,
    /// pincer's session id.
    pub session_id: Option<String>,
    /// The tools offered, by name.
    pub tools: Vec<String>,
    /// The model id.
    pub model: String,
    /// The provider (or CLI backend).
    pub provider: String,
    /// `api`, `claude-cli` or `codex-cli`.
    pub backend: String,
    /// Always `default`: a headless run never asks.
    #[serde(rename = "permissionMode")]
    pub permission_mode: String,
    /// `environment` when a key is used, else `none`.
    #[serde(rename = "apiKeySource")]
    pub api_key_source: String,
    /// The MCP servers of the run.
    pub mcp_servers: Vec<McpServerLine>,
    /// The hooks loaded for the run, by event (SPEC §14).
    pub hooks: BTreeMap<String, Vec<InitHookLine>>,
    /// What the tools may touch and reach (SPEC §10).
    pub sandbox: InitSandboxLine,
    /// The files pincer reads from the workspace as configuration or prompt that it refused to
    /// read this run (a link out of the workspace, a FIFO, a file a run wrote), each with what
    /// to do; also warnings on stderr (issue #45).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refused_files: Vec<RefusedFileLine>,
    /// pincer's version.
    pub pincer_version: String,
    /// Under an agent SDK only: the version of claude's CLI whose protocol pincer speaks (the
    /// SDK checks it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claude_code_version: Option<String>,
    /// A fresh UUIDv4 per line.
    pub uuid: String,
}

/// `system/init`'s `sandbox`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InitSandboxLine {
    /// `read-only`, `workspace-write` or `danger-full-access`.
    pub mode: String,
    /// `off` (commands have only a loopback interface of their own), `limited` (only the
    /// hosts of `network_rules`, through pincer's egress proxy) or `on`. Whether this system
    /// can close it is in `pincer status` and `--dry-run`.
    pub network: String,
    /// With `network` `limited`: the rules in force, in one line (`allow registry.npmjs.org
    /// (@npm), localhost:5432; deny …; NAME resolves to ADDRESS`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network_rules: Option<String>,
    /// With `--web-search` or `tools.web_search`: `on` when the first model's request carries
    /// the provider's search, `off` when it does not (the network is closed, or limited without
    /// the provider's host, or the model cannot search; a warning on stderr says why).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub web_search: Option<String>,
}

/// One entry of `system/init`'s `refused_files`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RefusedFileLine {
    /// The file.
    pub path: String,
    /// Why pincer did not read it.
    pub reason: String,
    /// What to do about it.
    pub fix: String,
}

/// One entry of `system/init`'s `mcp_servers`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct McpServerLine {
    /// Its name.
    pub name: String,
    /// `connected`, `failed` or `delegated`.
    pub status: String,
    /// `stdio`, `http` or `sse`.
    pub transport: String,
    /// The tools offered from it.
    pub tools: Vec<String>,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// One hook of `system/init`'s `hooks`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InitHookLine {
    /// The matcher as written (absent: every tool or source).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matcher: Option<String>,
    /// The command line.
    pub command: String,
    /// Seconds before it is killed.
    pub timeout: f64,
    /// Whether it runs in the `exec` sandbox.
    pub sandbox: bool,
    /// Where it was declared: `config.toml`, `--settings 'FILE'`, `--settings JSON`.
    pub origin: String,
    /// Who runs it: `pincer`, `claude-cli` or `codex-cli`.
    pub runner: String,
}

/// `system/hook_started`, as claude writes it with `--include-hook-events`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HookStartedLine {
    /// Shared with its `hook_response`.
    pub hook_id: String,
    /// `PreToolUse:Bash`, `SessionStart:startup`, `Stop`.
    pub hook_name: String,
    /// The event.
    pub hook_event: String,
    /// The command line (pincer's addition: several hooks may share a name).
    pub command: String,
    /// pincer's session id.
    pub session_id: Option<String>,
    /// A fresh UUIDv4 per line.
    pub uuid: String,
}

/// `system/hook_response`, as claude writes it with `--include-hook-events`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HookResponseLine {
    /// As in its `hook_started`.
    pub hook_id: String,
    /// As in its `hook_started`.
    pub hook_name: String,
    /// As in its `hook_started`.
    pub hook_event: String,
    /// stdout, then stderr.
    pub output: String,
    /// What it printed.
    pub stdout: String,
    /// What it printed on stderr.
    pub stderr: String,
    /// Its exit code; absent when it did not exit by itself (timeout, cancelled, not started).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// `success` (exit 0), `error` or `cancelled`.
    pub outcome: String,
    /// How long it ran (pincer's addition).
    pub duration_ms: u64,
    /// pincer's session id.
    pub session_id: Option<String>,
    /// A fresh UUIDv4 per line.
    pub uuid: String,
}

/// `system/api_retry`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ApiRetryLine {
    /// The attempt this starts, when known.
    pub attempt: Option<u64>,
    /// The wait before it, when known.
    pub delay_ms: Option<u64>,
    /// What failed.
    pub error: String,
    /// pincer's session id.
    pub session_id: Option<String>,
    /// The lower reasoning level the call is made with, for a refused level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_level: Option<String>,
    /// `true` when text, thinking or tool arguments already streamed for the call that is made
    /// again: drop the partial `stream_event` content collected since its `message_start`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discarded_partial: Option<bool>,
    /// A fresh UUIDv4 per line.
    pub uuid: String,
}

/// `system/auth_rotation`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AuthRotationLine {
    /// The provider.
    pub provider: String,
    /// The credential that failed (`profile:ID`, `env:VAR`).
    pub from_profile: String,
    /// The one tried next.
    pub to_profile: String,
    /// The failure class.
    pub reason: String,
    /// pincer's session id.
    pub session_id: Option<String>,
    /// As in [`ApiRetryLine::discarded_partial`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discarded_partial: Option<bool>,
    /// A fresh UUIDv4 per line.
    pub uuid: String,
}

/// `system/model_fallback`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ModelFallbackLine {
    /// `provider/model` that failed.
    pub from: String,
    /// `provider/model` tried next.
    pub to: String,
    /// The failure class.
    pub reason: String,
    /// The failure.
    pub error: String,
    /// pincer's session id.
    pub session_id: Option<String>,
    /// As in [`ApiRetryLine::discarded_partial`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discarded_partial: Option<bool>,
    /// A fresh UUIDv4 per line.
    pub uuid: String,
}

/// `system/compact_boundary`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CompactBoundaryLine {
    /// pincer's session id.
    pub session_id: Option<String>,
    /// What happened.
    pub compact_metadata: CompactMetadata,
    /// The CLI backend that compacted its own session; absent when pincer compacted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backend: Option<String>,
    /// A fresh UUIDv4 per line.
    pub uuid: String,
}

/// `system/structured_output_retry`: the answer just received (its `assistant` line came
/// before) did not match `--json-schema`; the model is asked again with these errors.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StructuredOutputRetryLine {
    /// The retry this starts (1 for the first).
    pub attempt: u32,
    /// `structured_output.max_retries`.
    pub max_retries: u32,
    /// The validation errors, `path: message`.
    pub errors: Vec<String>,
    /// pincer's session id.
    pub session_id: Option<String>,
    /// A fresh UUIDv4 per line.
    pub uuid: String,
}

/// `system/network_denial`: a host a confined command could not reach (SPEC §20).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NetworkDenialLine {
    /// The refused host, as the client asked for it (canonical where it could be read).
    pub host: String,
    /// The port of the refused connection.
    pub port: u16,
    /// `not_allowed`, `denied_by_rule`, `private_address`, `resolution_failed` or
    /// `invalid_host`.
    pub reason: String,
    /// The same, in a sentence: `refused a connection to evil.tld:443: no rule allows it`.
    pub message: String,
    /// What to allow, when a rule would help.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// `connect` (an HTTP CONNECT tunnel), `http` (plain HTTP) or `socks5`.
    pub protocol: String,
    /// pincer's session id.
    pub session_id: Option<String>,
    /// A fresh UUIDv4 per line.
    pub uuid: String,
}

/// `system/checkpoint`: the turn was committed to the session store (`--store`, SPEC §19),
/// after its last event and before the result; a fleet engine's activity heartbeats it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckpointLine {
    /// pincer's session id.
    pub session_id: String,
    /// The store's segment that holds the turn: 1 for the session's first, one more per commit.
    pub segment: u64,
    /// The session's turn number: 1 for its first committed turn, one more per turn.
    pub turn: Option<u64>,
    /// A fresh UUIDv4 per line.
    pub uuid: String,
}

/// One entry of the result's `network_denials` (SPEC §20): a host the egress proxy refused,
/// with how many connections to it were refused.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct NetworkDenial {
    /// The refused host.
    pub host: String,
    /// The port of its first refused connection.
    pub port: u16,
    /// `not_allowed`, `denied_by_rule`, `private_address`, `resolution_failed` or
    /// `invalid_host`; the fields that go with it (`rule`, `address`, `kind`, `error`) follow.
    pub reason: String,
    /// `connect`, `http` or `socks5`: how its first refused connection came.
    pub protocol: String,
    /// How many connections to it were refused.
    pub count: u64,
    /// The reason's details: `rule` (denied_by_rule), `address` and `kind` (private_address),
    /// `error` (resolution_failed, invalid_host).
    #[serde(flatten)]
    pub details: BTreeMap<String, Value>,
}

/// `compact_boundary.compact_metadata`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CompactMetadata {
    /// `auto`, `manual` or `overflow`.
    pub trigger: String,
    /// Context tokens before.
    pub pre_tokens: Option<u64>,
    /// Context tokens after (an estimate).
    pub post_tokens: Option<u64>,
}

/// `assistant`: a completed model call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AssistantLine {
    /// The message, Anthropic-shaped.
    pub message: AssistantWire,
    /// Always null: pincer runs no sub-agents.
    pub parent_tool_use_id: Option<String>,
    /// pincer's session id.
    pub session_id: Option<String>,
    /// The session entry the message was stored as (pi's 8-hex id).
    pub entry_id: Option<String>,
    /// A fresh UUIDv4 per line.
    pub uuid: String,
}

/// An Anthropic-shaped assistant message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AssistantWire {
    /// The provider's message id.
    pub id: String,
    /// `message`.
    #[serde(rename = "type")]
    pub kind: MessageWord,
    /// `assistant`.
    pub role: AssistantWord,
    /// The model id.
    pub model: String,
    /// Text, thinking and tool calls.
    pub content: Vec<AssistantContent>,
    /// claude's stop reason.
    pub stop_reason: Option<String>,
    /// Always null.
    pub stop_sequence: Option<String>,
    /// The call's usage.
    pub usage: WireUsage,
    /// The provider's own stop word.
    pub provider_stop_reason: Option<String>,
}

/// A block of an assistant message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum AssistantContent {
    /// Visible text.
    Text {
        /// The text.
        text: String,
        /// The web sources it cites (provider web search); absent when none.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        citations: Vec<TextCitation>,
    },
    /// A search the provider ran on its side (`--web-search`), whatever the provider: not a
    /// tool call pincer runs, and no `tool_result` answers it.
    ServerToolUse {
        /// The provider's call id.
        id: String,
        /// `web_search`.
        name: String,
        /// What was searched for (`{"query": …}`).
        input: Value,
    },
    /// What that search found.
    WebSearchToolResult {
        /// The call it belongs to.
        tool_use_id: String,
        /// The results, or the error.
        content: WebSearchContent,
    },
    /// Reasoning.
    Thinking {
        /// The reasoning text.
        thinking: String,
        /// Its signature ("" when none).
        signature: String,
    },
    /// A tool call.
    ToolUse {
        /// The call id.
        id: String,
        /// The tool.
        name: String,
        /// The arguments.
        input: Value,
    },
}

/// A citation of a text block, as Anthropic shapes a web search citation (without its
/// `encrypted_index`, which is the provider's business).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TextCitation {
    /// `web_search_result_location`.
    #[serde(rename = "type")]
    pub kind: WebSearchLocationWord,
    /// The page.
    pub url: String,
    /// Its title.
    pub title: Option<String>,
    /// The passage cited, when the provider says.
    pub cited_text: Option<String>,
}

/// The `content` of a `web_search_tool_result`: the results, or what went wrong.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum WebSearchContent {
    /// The pages found.
    Results(Vec<WebSearchResultLine>),
    /// The search failed.
    Error(WebSearchErrorLine),
}

/// One page found (without the `encrypted_content` the provider sends its model).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WebSearchResultLine {
    /// `web_search_result`.
    #[serde(rename = "type")]
    pub kind: WebSearchResultWord,
    /// The page.
    pub url: String,
    /// Its title, when known.
    pub title: Option<String>,
}

/// A failed search.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WebSearchErrorLine {
    /// `web_search_tool_result_error`.
    #[serde(rename = "type")]
    pub kind: WebSearchErrorWord,
    /// The provider's code (`max_uses_exceeded`, `too_many_requests`, …).
    pub error_code: String,
}

/// Usage in Anthropic's field names (the three prompt parts are disjoint, SPEC §8).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct WireUsage {
    /// Uncached prompt tokens.
    pub input_tokens: u64,
    /// Prompt tokens written to the cache.
    pub cache_creation_input_tokens: u64,
    /// Prompt tokens read from the cache.
    pub cache_read_input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// The call's provider web searches; absent when it ran none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_tool_use: Option<ServerToolUsage>,
}

/// `server_tool_use`: tools the provider ran itself, as claude counts them.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct ServerToolUsage {
    /// Web searches.
    pub web_search_requests: u64,
}

/// `user`: a tool result sent back to the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UserLine {
    /// The message.
    pub message: UserWire,
    /// Always null.
    pub parent_tool_use_id: Option<String>,
    /// pincer's session id.
    pub session_id: Option<String>,
    /// The session entry the result was stored as.
    pub entry_id: Option<String>,
    /// Under an agent SDK only, as claude adds it: for `Read`, the file it returned; for an MCP
    /// tool, the server's content blocks; for a failed call, `Error: …`; for any other tool, the
    /// result's text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_result: Option<ToolUseResult>,
    /// A fresh UUIDv4 per line.
    pub uuid: String,
}

/// claude's `tool_use_result`: what a tool gave, in the shape claude's own tool gives it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum ToolUseResult {
    /// `Read` of a text file: `{"type": "text", "file": {…}}`.
    File(ReadToolResult),
    /// An MCP tool's content blocks, as the server gave them.
    Content(Vec<ResultContent>),
    /// Any other result: its text, `Error: …` for a failed call.
    Text(String),
}

/// The `tool_use_result` of a `Read` of a text file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadToolResult {
    /// `text`.
    #[serde(rename = "type")]
    pub kind: TextWord,
    /// The lines it returned.
    pub file: ReadFile,
}

/// What a `Read` returned of a file, in claude's names.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ReadFile {
    /// The file, as the `Read` call's `file_path` names it.
    pub file_path: String,
    /// The lines returned, verbatim (no line numbers, no note about the rest).
    pub content: String,
    /// How many lines `content` holds (a final newline starts an empty last line, as claude
    /// counts).
    pub num_lines: u64,
    /// The first line returned, 1-based.
    pub start_line: u64,
    /// The lines of the whole file.
    pub total_lines: u64,
}

/// A user message carrying tool results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UserWire {
    /// `user`.
    pub role: UserWord,
    /// The results.
    pub content: Vec<ToolResultWire>,
}

/// A `tool_result` block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ToolResultWire {
    /// The call it answers.
    pub tool_use_id: String,
    /// `tool_result`.
    #[serde(rename = "type")]
    pub kind: ToolResultWord,
    /// Text and images.
    pub content: Vec<ResultContent>,
    /// Whether the call failed.
    pub is_error: bool,
}

/// A block of a tool result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ResultContent {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// An image.
    Image {
        /// Its bytes.
        source: ImageSource,
    },
}

/// A base64 image source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ImageSource {
    /// `base64`.
    #[serde(rename = "type")]
    pub kind: Base64Word,
    /// `image/png`, …
    pub media_type: String,
    /// The data.
    pub data: String,
}

/// `stream_event`: one of Anthropic's raw stream events, whatever the provider or backend.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StreamEventLine {
    /// The raw event.
    pub event: RawEvent,
    /// pincer's session id.
    pub session_id: Option<String>,
    /// Always null.
    pub parent_tool_use_id: Option<String>,
    /// A fresh UUIDv4 per line.
    pub uuid: String,
}

/// Anthropic's raw stream events, as `claude -p --include-partial-messages` relays them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum RawEvent {
    /// A model call's message begins (empty content).
    MessageStart {
        /// The message so far.
        message: RawMessage,
    },
    /// A content block begins.
    ContentBlockStart {
        /// Its index in the message.
        index: usize,
        /// Its empty form.
        content_block: RawBlock,
    },
    /// More of a content block.
    ContentBlockDelta {
        /// The block's index.
        index: usize,
        /// The new part.
        delta: RawDelta,
    },
    /// A content block is complete.
    ContentBlockStop {
        /// The block's index.
        index: usize,
    },
    /// The message's stop reason and usage.
    MessageDelta {
        /// The stop reason.
        delta: RawMessageDelta,
        /// The call's usage.
        usage: WireUsage,
    },
    /// The message is complete. A struct variant with no fields rather than a unit variant:
    /// serde lets a unit variant of an internally tagged enum ignore extra fields, and this one
    /// must refuse them like every other line.
    MessageStop {},
}

/// The message of `message_start`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawMessage {
    /// The provider's message id (or a made-up `msg_…`).
    pub id: String,
    /// `message`.
    #[serde(rename = "type")]
    pub kind: MessageWord,
    /// `assistant`.
    pub role: AssistantWord,
    /// The model.
    pub model: Option<String>,
    /// Always empty.
    pub content: Vec<Value>,
    /// Always null.
    pub stop_reason: Option<String>,
    /// Always null.
    pub stop_sequence: Option<String>,
    /// Usage so far.
    pub usage: WireUsage,
}

/// The empty block of `content_block_start`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum RawBlock {
    /// Text (empty).
    Text {
        /// "".
        text: String,
    },
    /// Reasoning (empty).
    Thinking {
        /// "".
        thinking: String,
        /// "".
        signature: String,
    },
    /// Reasoning the provider returned encrypted.
    RedactedThinking {
        /// The payload.
        data: String,
    },
    /// A tool call (arguments follow as `input_json_delta`).
    ToolUse {
        /// The call id.
        id: String,
        /// The tool.
        name: String,
        /// Always `{}`.
        input: Value,
    },
    /// A search the provider runs itself (its input follows as `input_json_delta`).
    ServerToolUse {
        /// The provider's call id.
        id: String,
        /// `web_search`.
        name: String,
        /// Always `{}`.
        input: Value,
    },
    /// What that search found, whole.
    WebSearchToolResult {
        /// The call it belongs to.
        tool_use_id: String,
        /// The results, or the error.
        content: WebSearchContent,
    },
}

/// The new part of a block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum RawDelta {
    /// Text.
    TextDelta {
        /// The text.
        text: String,
    },
    /// Reasoning.
    ThinkingDelta {
        /// The reasoning.
        thinking: String,
    },
    /// A reasoning block's signature.
    SignatureDelta {
        /// The signature.
        signature: String,
    },
    /// A fragment of a tool call's JSON arguments (concatenated in order).
    InputJsonDelta {
        /// The fragment.
        partial_json: String,
    },
    /// A citation of the text block.
    CitationsDelta {
        /// The source.
        citation: TextCitation,
    },
}

/// `message_delta.delta`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawMessageDelta {
    /// claude's stop reason.
    pub stop_reason: Option<String>,
    /// Always null.
    pub stop_sequence: Option<String>,
}

// ---------------------------------------------------------------------------------------------
// The result object

/// How a run ended, in claude's words (SPEC §3.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ResultSubtype {
    /// Exit 0.
    Success,
    /// `--max-turns` stopped the run.
    ErrorMaxTurns,
    /// `--max-budget-usd` stopped the run.
    ErrorMaxBudgetUsd,
    /// Anything else that failed.
    ErrorDuringExecution,
    /// `--timeout`.
    ErrorTimeout,
    /// SIGINT or SIGTERM.
    ErrorInterrupted,
    /// The answer never matched `--json-schema`.
    ErrorMaxStructuredOutputRetries,
}

/// `usage`: summed over the run.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct ResultUsage {
    /// Uncached prompt tokens.
    pub input_tokens: u64,
    /// Prompt tokens written to the cache.
    pub cache_creation_input_tokens: u64,
    /// Prompt tokens read from the cache.
    pub cache_read_input_tokens: u64,
    /// Output tokens, reasoning included.
    pub output_tokens: u64,
    /// The reasoning share of the output.
    pub reasoning_tokens: u64,
    /// Provider web searches of the run, as claude reports them.
    pub server_tool_use: ServerToolUsage,
}

/// One entry of `modelUsage`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ModelUsage {
    /// Uncached prompt tokens.
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// Cache reads.
    pub cache_read_input_tokens: u64,
    /// Cache writes.
    pub cache_creation_input_tokens: u64,
    /// Provider web searches.
    pub web_search_requests: u64,
    /// Cost in USD.
    #[serde(rename = "costUSD", serialize_with = "super::money::usd")]
    pub cost_usd: f64,
    /// The model's window, when known.
    pub context_window: Option<u64>,
}

/// `context`: how full the window is after the run (SPEC §8).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResultContext {
    /// Tokens in context.
    pub tokens: u64,
    /// The window, when known.
    pub window: Option<u64>,
    /// Percent of the window, one decimal.
    pub percent: Option<f64>,
    /// What every request of the turn carried besides the messages: the system prompt and the
    /// tool definitions, estimated as characters / 4. Absent for a CLI backend.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overhead_tokens: Option<u64>,
}

/// `error`: why the run failed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResultError {
    /// The kind of failure, from a closed set: each has its exit code and retry rule.
    pub kind: crate::error::ErrorKind,
    /// What happened.
    pub message: String,
    /// The provider, when one was involved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// The HTTP status, when there was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// Whether running again later may succeed.
    pub retryable: bool,
    /// When the provider said when to try again (`Retry-After`, or its error body's delay): the
    /// seconds to wait, rounded up. A busy session has none: nothing says when the run holding
    /// it ends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after_s: Option<u64>,
}

/// One entry of `permission_denials`, as claude reports it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Denial {
    /// The tool.
    pub tool_name: String,
    /// The call id.
    pub tool_use_id: String,
    /// Its arguments.
    pub tool_input: Value,
}

/// The `result` object: printed once at the end of every run whose arguments parsed, in the
/// JSON modes, failures included (SPEC §3.2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunResult {
    /// `result`.
    #[serde(rename = "type")]
    pub kind: ResultWord,
    /// The version of this output, bumped on any incompatible change.
    pub schema_version: SchemaVersion,
    /// How it ended.
    pub subtype: ResultSubtype,
    /// Exactly when the exit code is not 0.
    pub is_error: bool,
    /// The final answer's text.
    pub result: String,
    /// pincer's session id.
    pub session_id: Option<String>,
    /// The session's name.
    pub session_name: Option<String>,
    /// Completed model round trips of this run.
    pub num_turns: u32,
    /// Wall time.
    pub duration_ms: u64,
    /// Time in model calls.
    pub duration_api_ms: u64,
    /// Cost of this run.
    #[serde(serialize_with = "super::money::usd")]
    pub total_cost_usd: f64,
    /// Usage of this run.
    pub usage: ResultUsage,
    /// Usage per model.
    #[serde(rename = "modelUsage")]
    pub model_usage: BTreeMap<String, ModelUsage>,
    /// Context occupancy.
    pub context: ResultContext,
    /// claude's stop reason of the last call.
    pub stop_reason: Option<String>,
    /// The provider's own stop word.
    pub provider_stop_reason: Option<String>,
    /// `completed`, `max_turns`, `max_budget_usd`, `budget` (a `[budget]` refused the run before
    /// it started), `timeout`, `interrupted`, `error`.
    pub terminal_reason: String,
    /// Every failure of the run, failed failover attempts included.
    pub errors: Vec<String>,
    /// The failure that ended the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ResultError>,
    /// Tool calls refused by the policy, the sandbox or confinement.
    pub permission_denials: Vec<Denial>,
    /// Hosts the run's commands were refused by the network rules (SPEC §20), each once with
    /// its count; empty when no rule limited the network.
    #[serde(default)]
    pub network_denials: Vec<NetworkDenial>,
    /// The parsed answer with `--json-schema`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_output: Option<Value>,
    /// The model that answered.
    pub model: Option<String>,
    /// Its provider.
    pub provider: Option<String>,
    /// `api`, `claude-cli` or `codex-cli`.
    pub backend: Option<String>,
    /// Compactions in this run.
    pub compactions: u32,
    /// Heartbeat runs: whether the reply was `HEARTBEAT_OK`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heartbeat_ok: Option<bool>,
    /// A fresh UUIDv4.
    pub uuid: String,
}

impl RunResult {
    /// What text mode prints and `-o FILE` holds: the structured output as one line of compact
    /// JSON with `--json-schema`, else the final answer's text.
    pub fn answer_text(&self) -> String {
        match &self.structured_output {
            Some(value) => value.to_string(),
            None => self.result.clone(),
        }
    }

    /// The result of a run that failed before any model call.
    pub fn early_error(
        subtype: ResultSubtype,
        kind: crate::error::ErrorKind,
        message: &str,
        duration_ms: u64,
    ) -> RunResult {
        RunResult {
            kind: ResultWord::Value,
            schema_version: SchemaVersion,
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
                kind,
                message: message.to_owned(),
                provider: None,
                status: None,
                retryable: kind.retryable(),
                retry_after_s: None,
            }),
            permission_denials: Vec::new(),
            network_denials: Vec::new(),
            structured_output: None,
            model: None,
            provider: None,
            backend: None,
            compactions: 0,
            heartbeat_ok: None,
            uuid: new_uuid(),
        }
    }
}

/// A fresh UUIDv4, as claude stamps every line.
pub fn new_uuid() -> String {
    uuid::Uuid::new_v4().to_string()
}
