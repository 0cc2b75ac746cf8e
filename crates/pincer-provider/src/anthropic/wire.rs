//! Serde types of the Anthropic Messages API, as far as pincer sends or reads them.
//!
//! Sources: the API reference (docs.claude.com/en/api/messages, `/en/api/messages-streaming`,
//! `/en/api/errors`) and the recordings summarised in `shared/reference/provider-wire-formats.md`
//! §1 (`simonw/llm-anthropic` and `pydantic/pydantic-ai` cassettes). Request types serialize in
//! the field order the official SDKs use; stream types accept any extra field, and every closed
//! set (`type` tags) has a catch-all so a new event, block or delta kind is ignored, never an
//! error.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::conversation::CacheTtl;

// ---------------------------------------------------------------------------------------------
// Request (POST /v1/messages): borrowed from the conversation, so that a long session's request
// is serialized from the messages themselves, not from a copy of them.

/// The request body (reference §1.2).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MessagesRequest<'a, M> {
    pub model: &'a str,
    pub max_tokens: u64,
    pub stream: bool,
    /// The system prompt as text blocks, so that it can carry a cache breakpoint.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system: Option<Vec<SystemBlock<'a>>>,
    /// The turns ([`MessageParam`]s), serialized as they are made (`request::Conversation`).
    pub messages: M,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<ToolEntry<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thinking: Option<ThinkingParam>,
    /// `--json-schema` (docs: "Structured outputs", JSON outputs): the text answer follows the
    /// schema; tool calls stay free.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_config: Option<OutputConfig>,
}

/// `output_config`: `{"format": {"type": "json_schema", "schema": {…}}}` (docs: "Structured
/// outputs"; it replaced the beta's top-level `output_format` and needs no beta header).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OutputConfig {
    pub format: OutputFormatParam,
}

/// `output_config.format`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum OutputFormatParam {
    JsonSchema { schema: Value },
}

/// One entry of `tools`: a client tool, or a server tool the API runs itself.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ToolEntry<'a> {
    Client(ToolParam<'a>),
    Server(ServerTool),
}

/// A server tool (docs: "Web search tool"): `{"type":"web_search_20250305","name":"web_search",
/// "max_uses":5}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type")]
pub enum ServerTool {
    #[serde(rename = "web_search_20250305")]
    WebSearch {
        name: &'static str,
        #[serde(skip_serializing_if = "Option::is_none")]
        max_uses: Option<u32>,
    },
}

/// `{"type":"ephemeral"}`: a prompt-cache breakpoint (docs: "Prompt caching"), with `ttl: "1h"`
/// for the one-hour cache (docs: "Prompt caching", "1-hour cache duration"); without it the
/// entry lives five minutes, the API's default, so the default request stays as it always was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum CacheControl {
    Ephemeral {
        #[serde(skip_serializing_if = "Option::is_none")]
        ttl: Option<&'static str>,
    },
}

impl CacheControl {
    /// A breakpoint whose entry lives `ttl`.
    pub fn lasting(ttl: CacheTtl) -> CacheControl {
        CacheControl::Ephemeral {
            ttl: match ttl {
                CacheTtl::FiveMinutes => None,
                CacheTtl::OneHour => Some(ttl.as_str()),
            },
        }
    }
}

/// One block of the `system` array.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SystemBlock<'a> {
    Text {
        text: Cow<'a, str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheControl>,
    },
}

/// Who speaks a turn. The API has no system or tool role: tool results are user content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    User,
    Assistant,
}

/// One turn of `messages`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MessageParam<'a> {
    pub role: Role,
    pub content: Vec<ContentBlockParam<'a>>,
}

/// A content block sent to the API.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlockParam<'a> {
    Text {
        text: Cow<'a, str>,
        /// The web citations of an earlier answer, echoed back as they came.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        citations: Vec<&'a Value>,
        #[serde(skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheControl>,
    },
    Image {
        source: ImageSource<'a>,
        #[serde(skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheControl>,
    },
    /// Reasoning with its signature, replayed byte for byte.
    Thinking {
        thinking: Cow<'a, str>,
        signature: Cow<'a, str>,
    },
    /// Encrypted reasoning, replayed byte for byte.
    RedactedThinking { data: Cow<'a, str> },
    ToolUse {
        id: Cow<'a, str>,
        name: Cow<'a, str>,
        input: Cow<'a, Value>,
        #[serde(skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheControl>,
    },
    /// A server tool call of an earlier answer, echoed back.
    ServerToolUse {
        id: Cow<'a, str>,
        name: Cow<'a, str>,
        input: Cow<'a, Value>,
    },
    /// Its result, echoed back unchanged.
    WebSearchToolResult {
        tool_use_id: Cow<'a, str>,
        content: &'a Value,
    },
    ToolResult {
        tool_use_id: Cow<'a, str>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        content: Vec<ToolResultBlock<'a>>,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        is_error: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheControl>,
    },
}

impl ContentBlockParam<'_> {
    /// The block's `cache_control` slot, when the API allows one there (thinking blocks cannot
    /// carry a breakpoint).
    pub fn cache_control_mut(&mut self) -> Option<&mut Option<CacheControl>> {
        match self {
            ContentBlockParam::Text { cache_control, .. }
            | ContentBlockParam::Image { cache_control, .. }
            | ContentBlockParam::ToolUse { cache_control, .. }
            | ContentBlockParam::ToolResult { cache_control, .. } => Some(cache_control),
            ContentBlockParam::Thinking { .. }
            | ContentBlockParam::RedactedThinking { .. }
            | ContentBlockParam::ServerToolUse { .. }
            | ContentBlockParam::WebSearchToolResult { .. } => None,
        }
    }
}

/// The content of a `tool_result`: text and images only.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToolResultBlock<'a> {
    Text { text: Cow<'a, str> },
    Image { source: ImageSource<'a> },
}

/// `{"type":"base64","media_type":"image/png","data":"…"}`
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ImageSource<'a> {
    Base64 {
        media_type: Cow<'a, str>,
        data: Cow<'a, str>,
    },
}

/// One entry of `tools`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolParam<'a> {
    pub name: &'a str,
    pub description: &'a str,
    pub input_schema: &'a Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<CacheControl>,
}

/// `{"type":"enabled","budget_tokens":N}` (extended thinking; `budget_tokens < max_tokens`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ThinkingParam {
    Enabled { budget_tokens: u64 },
}

// ---------------------------------------------------------------------------------------------
// Stream events (docs: "Streaming Messages"; reference §1.3)

/// One `data:` payload of the event stream, chosen by its `type` (which equals the `event:`
/// line).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum StreamEvent {
    MessageStart {
        message: MessageStart,
    },
    ContentBlockStart {
        index: usize,
        content_block: ContentBlockStart,
    },
    ContentBlockDelta {
        index: usize,
        delta: ContentBlockDelta,
    },
    ContentBlockStop {
        index: usize,
    },
    MessageDelta {
        delta: MessageDelta,
        #[serde(default)]
        usage: Option<WireUsage>,
    },
    MessageStop,
    /// Keep-alive, `{"type": "ping"}`.
    Ping,
    /// A failure after the 200 status line (`overloaded_error` most often).
    Error {
        error: ErrorObject,
    },
    /// An event type this client does not know ("we may add new event types").
    #[serde(other)]
    Unknown,
}

/// The `message` of `message_start`: an empty message with the initial usage.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct MessageStart {
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub usage: Option<WireUsage>,
}

/// The block announced by `content_block_start`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlockStart {
    Text {
        #[serde(default)]
        text: String,
    },
    Thinking {
        #[serde(default)]
        thinking: String,
        #[serde(default)]
        signature: String,
    },
    RedactedThinking {
        data: String,
    },
    /// A client tool call; `input` is `{}` here and arrives as `input_json_delta` pieces.
    ToolUse {
        id: String,
        name: String,
    },
    /// A tool the API runs itself (docs: "Web search tool", streaming): its input arrives as
    /// `input_json_delta` pieces like a client call's, and its result as the block below.
    ServerToolUse {
        id: String,
        name: String,
    },
    /// The outcome of a `server_tool_use`, whole in its start event: a list of
    /// `web_search_result`s, or a `web_search_tool_result_error`. Kept as JSON, since it is
    /// echoed back unchanged (the results carry the `encrypted_content` the model reads).
    WebSearchToolResult {
        tool_use_id: String,
        content: Value,
    },
    /// `compaction`, other server tools' results, and newer kinds.
    #[serde(other)]
    Unknown,
}

/// The `content` of a `web_search_tool_result`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum WebSearchContent {
    /// What the search found.
    Results(Vec<WebSearchResult>),
    /// `{"type":"web_search_tool_result_error","error_code":"max_uses_exceeded"}`.
    Error(WebSearchError),
}

/// One `web_search_result` (its `encrypted_content` and `page_age` stay in the echoed JSON).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct WebSearchResult {
    #[serde(default)]
    pub url: String,
    #[serde(default)]
    pub title: Option<String>,
}

/// A failed search.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct WebSearchError {
    #[serde(default)]
    pub error_code: Option<String>,
}

/// A citation of a text block (`citations_delta`). Only web search citations carry a URL;
/// document citations (`char_location`, …) have none and are not kept.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum CitationWire {
    WebSearchResultLocation {
        url: String,
        #[serde(default)]
        title: Option<String>,
        #[serde(default)]
        cited_text: Option<String>,
    },
    #[serde(other)]
    Other,
}

/// The payload of `content_block_delta`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlockDelta {
    TextDelta {
        text: String,
    },
    /// A piece of the tool input's JSON text, cut anywhere (even inside a token).
    InputJsonDelta {
        partial_json: String,
    },
    ThinkingDelta {
        thinking: String,
    },
    /// The thinking block's signature, sent once just before its `content_block_stop`.
    SignatureDelta {
        signature: String,
    },
    /// A citation added to a text block; kept as JSON to be echoed back (it carries an
    /// `encrypted_index`).
    CitationsDelta {
        citation: Value,
    },
    /// `compaction_delta`, and newer kinds.
    #[serde(other)]
    Unknown,
}

/// The `delta` of `message_delta`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct MessageDelta {
    #[serde(default)]
    pub stop_reason: Option<String>,
}

/// A usage object, from `message_start.message.usage` (initial) or `message_delta.usage`
/// (cumulative). Absent fields leave the previous values alone (reference §1.4).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct WireUsage {
    /// Uncached prompt tokens (after the last cache breakpoint).
    #[serde(default)]
    pub input_tokens: Option<u64>,
    #[serde(default)]
    pub cache_creation_input_tokens: Option<u64>,
    /// The cache write split by lifetime (5 minutes, 1 hour), priced differently.
    #[serde(default)]
    pub cache_creation: Option<CacheCreation>,
    #[serde(default)]
    pub cache_read_input_tokens: Option<u64>,
    /// Generated tokens, thinking included.
    #[serde(default)]
    pub output_tokens: Option<u64>,
    /// `{"thinking_tokens": N}` in 2026 responses.
    #[serde(default)]
    pub output_tokens_details: Option<OutputTokensDetails>,
    /// Per-iteration usage when the server ran several model calls (compaction, advisors); the
    /// top-level fields then describe only the last one (reference §1.4 pitfall).
    #[serde(default)]
    pub iterations: Option<Vec<IterationUsage>>,
    /// `{"web_search_requests": N, "web_fetch_requests": M}`: server tools run for the call.
    #[serde(default)]
    pub server_tool_use: Option<ServerToolUsage>,
}

/// `usage.server_tool_use`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
pub struct ServerToolUsage {
    #[serde(default)]
    pub web_search_requests: Option<u64>,
}

/// `usage.cache_creation` (docs: "Prompt caching", 1-hour cache duration): how many of the
/// `cache_creation_input_tokens` went to each cache lifetime.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
pub struct CacheCreation {
    /// Written with the default 5-minute lifetime (1.25× the input price).
    #[serde(default)]
    pub ephemeral_5m_input_tokens: u64,
    /// Written with `ttl: "1h"` (2× the input price).
    #[serde(default)]
    pub ephemeral_1h_input_tokens: u64,
}

/// `output_tokens_details`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct OutputTokensDetails {
    #[serde(default)]
    pub thinking_tokens: Option<u64>,
}

/// One entry of `usage.iterations`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct IterationUsage {
    #[serde(default)]
    pub input_tokens: u64,
    #[serde(default)]
    pub cache_creation_input_tokens: u64,
    #[serde(default)]
    pub cache_read_input_tokens: u64,
    #[serde(default)]
    pub output_tokens: u64,
    #[serde(default)]
    pub cache_creation: Option<CacheCreation>,
}

// ---------------------------------------------------------------------------------------------
// Errors (docs: "Errors")

/// `{"type":"error","error":{…},"request_id":"req_…"}`: the body of an error response.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ErrorEnvelope {
    pub error: ErrorObject,
    #[serde(default)]
    pub request_id: Option<String>,
}

/// `{"type":"overloaded_error","message":"Overloaded"}`, in error bodies and `error` events.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ErrorObject {
    #[serde(rename = "type")]
    pub error_type: String,
    #[serde(default)]
    pub message: String,
    /// Spend-limit 429s carry `{"error_code":"enforced_spend_limit_reached"}`.
    #[serde(default)]
    pub details: Option<ErrorObjectDetails>,
}

/// `error.details`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ErrorObjectDetails {
    #[serde(default)]
    pub error_code: Option<String>,
}
