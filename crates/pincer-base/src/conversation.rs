//! The neutral vocabulary every layer speaks: messages and their content blocks, tool calls and
//! results, tool definitions, the stream events a model call produces, and token usage with the
//! accounting rules of SPEC §8.
//!
//! Nothing here knows a file format or a wire protocol: `session::record` maps these types to
//! and from pi's session entries (byte for byte), and each `provider/` module maps them to its
//! API's wire types. The one transcript repair every request needs ([`repair`]) is done here,
//! once, so that no provider has to guess.
//!
//! Invariants (SPEC §8): `input`, `cache_read` and `cache_write` are disjoint parts of the prompt,
//! so the prompt size is their sum; `reasoning` is part of `output`. Context occupancy is a
//! snapshot of the last successful call, never a sum over calls.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Normalized token counts of one call (or a sum of calls).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenUsage {
    /// Uncached prompt tokens.
    pub input: u64,
    /// Generated tokens, reasoning included.
    pub output: u64,
    /// Prompt tokens served from the cache.
    pub cache_read: u64,
    /// Prompt tokens written to the cache by this call.
    pub cache_write: u64,
    /// The share of `cache_write` written to Anthropic's 1-hour cache (priced higher than the
    /// default 5-minute cache); 0 where the provider has no such split.
    #[serde(default)]
    pub cache_write_1h: u64,
    /// The reasoning share of `output`, where the provider reports it.
    pub reasoning: u64,
    /// Searches the provider's server-side web search ran for the call (claude's
    /// `server_tool_use.web_search_requests`); not tokens, but billed per search.
    #[serde(default)]
    pub web_search_requests: u64,
}

impl TokenUsage {
    /// Tokens of the prompt: the three disjoint prompt parts.
    pub fn prompt_tokens(&self) -> u64 {
        self.input + self.cache_read + self.cache_write
    }

    /// The context this call left behind: prompt plus output (SPEC §8).
    pub fn context_tokens(&self) -> u64 {
        self.prompt_tokens() + self.output
    }

    /// Add another call's usage (for cumulative totals).
    pub fn add(&mut self, other: &TokenUsage) {
        self.input += other.input;
        self.output += other.output;
        self.cache_read += other.cache_read;
        self.cache_write += other.cache_write;
        self.cache_write_1h += other.cache_write_1h;
        self.reasoning += other.reasoning;
        self.web_search_requests += other.web_search_requests;
    }
}

// ---------------------------------------------------------------------------------------------
// Messages

/// One message of a conversation, as a model sees it.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// What the user (or a tool-less system step such as a summary) said.
    User(UserMessage),
    /// What the model answered.
    Assistant(AssistantMessage),
    /// The result of one tool call, sent back to the model.
    ToolResult(ToolResultMessage),
}

/// A user message.
#[derive(Debug, Clone, PartialEq)]
pub struct UserMessage {
    /// Plain text or blocks: some OpenAI-compatible servers take only a plain string, so the
    /// difference is kept.
    pub content: MessageContent,
    /// Epoch milliseconds.
    pub timestamp: i64,
}

/// The content of a user message.
#[derive(Debug, Clone, PartialEq)]
pub enum MessageContent {
    /// One plain string.
    Text(String),
    /// Text and image blocks.
    Blocks(Vec<ContentBlock>),
}

impl MessageContent {
    /// The text of every text block, joined by newlines.
    pub fn text(&self) -> String {
        match self {
            MessageContent::Text(text) => text.clone(),
            MessageContent::Blocks(blocks) => blocks_text(blocks),
        }
    }
}

/// A block of user or tool-result content.
#[derive(Debug, Clone, PartialEq)]
pub enum ContentBlock {
    /// Text.
    Text(TextBlock),
    /// A base64 image.
    Image(ImageBlock),
}

impl ContentBlock {
    /// A plain text block.
    pub fn text(text: impl Into<String>) -> ContentBlock {
        ContentBlock::Text(TextBlock::new(text))
    }
}

/// The text of every text block, joined by newlines.
pub fn blocks_text(blocks: &[ContentBlock]) -> String {
    blocks
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Text(text) => Some(text.text.as_str()),
            ContentBlock::Image(_) => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Text, with the provider metadata that must travel back with it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TextBlock {
    /// The text.
    pub text: String,
    /// Provider metadata echoed back unchanged (OpenAI Responses item ids, Gemini signatures).
    pub signature: Option<String>,
    /// The web sources the text cites (provider web search), in the order they arrived.
    pub citations: Vec<Citation>,
}

impl TextBlock {
    /// Text without a signature.
    pub fn new(text: impl Into<String>) -> TextBlock {
        TextBlock {
            text: text.into(),
            ..TextBlock::default()
        }
    }
}

/// A web source a text block cites: Anthropic `web_search_result_location`, OpenAI
/// `url_citation`, Gemini grounding support.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Citation {
    /// The page.
    pub url: String,
    /// Its title, when the provider gives one.
    pub title: Option<String>,
    /// The cited passage (Anthropic `cited_text`), or the part of the answer it supports
    /// (Gemini's segment text).
    pub cited_text: Option<String>,
    /// The provider's citation object, echoed back unchanged where the protocol takes it
    /// (Anthropic's carries `encrypted_index`).
    pub payload: Option<Value>,
}

/// A tool the provider ran on its own side during the call — today its web search (Anthropic
/// `server_tool_use` + `web_search_tool_result`, an OpenAI `web_search_call` item, Gemini's
/// `google_search` grounding). Kept in the session and shown; never run by pincer, and never
/// answered with a tool result.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ServerToolCall {
    /// The provider's id of the call (`srvtoolu_…`, `ws_…`), or one pincer made up (Gemini).
    pub id: String,
    /// The tool: `web_search`.
    pub name: String,
    /// What it was asked: `{"query": …}` (Gemini: `{"queries": […]}`).
    pub input: Value,
    /// What it found, in order.
    pub results: Vec<WebResult>,
    /// The provider's error code when the search failed (`max_uses_exceeded`, …).
    pub error: Option<String>,
    /// The provider's own record of the outcome, echoed back unchanged on later requests where
    /// the protocol needs it: Anthropic's `web_search_tool_result.content` (with the
    /// `encrypted_content` the model reads), OpenAI's `web_search_call` item. `None` until the
    /// result arrives (a call cut short has none and is never sent back).
    pub payload: Option<Value>,
}

/// One search result.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct WebResult {
    /// The page.
    pub url: String,
    /// Its title, when known.
    pub title: Option<String>,
}

/// A base64-encoded image.
#[derive(Debug, Clone, PartialEq)]
pub struct ImageBlock {
    /// Base64 data.
    pub data: String,
    /// `image/png`, `image/jpeg`, …
    pub mime_type: String,
}

/// A model's answer to one request.
#[derive(Debug, Clone, PartialEq)]
pub struct AssistantMessage {
    /// Text, reasoning and tool calls, in the order the model produced them.
    pub content: Vec<AssistantBlock>,
    /// The wire protocol's name (`anthropic-messages`, `openai-responses`, …).
    pub api: String,
    /// The provider (`anthropic`, `ollama`, …).
    pub provider: String,
    /// The model id as the provider spells it.
    pub model: String,
    /// Token usage of the call.
    pub usage: TokenUsage,
    /// Its cost.
    pub cost: Cost,
    /// Why the model stopped.
    pub stop_reason: StopReason,
    /// Epoch milliseconds.
    pub timestamp: i64,
    /// What went wrong, for a failed or aborted message.
    pub error_message: Option<String>,
}

impl AssistantMessage {
    /// The tool calls, in order.
    pub fn tool_calls(&self) -> impl Iterator<Item = &ToolCall> {
        self.content.iter().filter_map(|block| match block {
            AssistantBlock::ToolCall(call) => Some(call),
            _ => None,
        })
    }

    /// The visible text, blocks joined without separators (as streamed).
    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter_map(|block| match block {
                AssistantBlock::Text(text) => Some(text.text.as_str()),
                _ => None,
            })
            .collect()
    }
}

/// A block of an assistant message.
#[derive(Debug, Clone, PartialEq)]
pub enum AssistantBlock {
    /// Visible text.
    Text(TextBlock),
    /// Reasoning.
    Thinking(ThinkingBlock),
    /// A call of a tool.
    ToolCall(ToolCall),
    /// A tool the provider ran itself (web search), with its outcome: not a client call.
    ServerTool(ServerToolCall),
}

/// Reasoning, with the signature the provider needs to see again.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ThinkingBlock {
    /// The reasoning text (empty when redacted).
    pub thinking: String,
    /// Anthropic's signature, or the encrypted payload of redacted reasoning.
    pub signature: Option<String>,
    /// Whether the provider returned the reasoning encrypted only.
    pub redacted: bool,
}

/// A call of a tool.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The id the result quotes.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The parsed JSON arguments (an object in practice).
    pub arguments: Value,
    /// Gemini's thought signature, sent back with the call.
    pub thought_signature: Option<String>,
}

/// The result of one tool call.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResultMessage {
    /// The call it answers.
    pub tool_call_id: String,
    /// The tool's name.
    pub tool_name: String,
    /// What the model gets back.
    pub content: Vec<ContentBlock>,
    /// Tool-specific metadata for people and UIs; never sent to the model.
    pub details: Option<Value>,
    /// Whether the call failed.
    pub is_error: bool,
    /// Epoch milliseconds.
    pub timestamp: i64,
}

impl ToolResultMessage {
    /// An error result for `call` saying `text`.
    pub fn error(call: &ToolCall, text: impl Into<String>, timestamp: i64) -> ToolResultMessage {
        ToolResultMessage {
            tool_call_id: call.id.clone(),
            tool_name: call.name.clone(),
            content: vec![ContentBlock::text(text)],
            details: None,
            is_error: true,
            timestamp,
        }
    }
}

/// Dollar cost of one call, per token class.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Cost {
    /// Uncached prompt tokens.
    pub input: f64,
    /// Generated tokens.
    pub output: f64,
    /// Cached prompt tokens read.
    pub cache_read: f64,
    /// Prompt tokens written to the cache.
    pub cache_write: f64,
    /// Provider web searches (billed per search, not per token).
    pub web_search: f64,
    /// The sum.
    pub total: f64,
}

/// A model's prices in USD per million tokens of each kind, from the model catalog.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Prices {
    /// Uncached input.
    pub input: f64,
    /// Output, reasoning included.
    pub output: f64,
    /// Cache reads.
    pub cache_read: f64,
    /// Cache writes to the default (5-minute) cache.
    pub cache_write: f64,
    /// Cache writes to Anthropic's 1-hour cache.
    pub cache_write_1h: f64,
    /// USD per provider web search (catalogs quote it per 1,000 searches).
    pub web_search: f64,
}

impl Prices {
    /// The cost of `usage` (one call's, or a sum of calls'). The four counts are disjoint, as
    /// pincer normalizes them (SPEC §8); 1-hour cache writes are priced at their own rate, web
    /// searches per search.
    pub fn cost(&self, usage: &TokenUsage) -> Cost {
        let price = |tokens: u64, per_million: f64| tokens as f64 * per_million / 1_000_000.0;
        let long = usage.cache_write_1h.min(usage.cache_write);
        let input = price(usage.input, self.input);
        let output = price(usage.output, self.output);
        let cache_read = price(usage.cache_read, self.cache_read);
        let cache_write =
            price(usage.cache_write - long, self.cache_write) + price(long, self.cache_write_1h);
        let web_search = usage.web_search_requests as f64 * self.web_search;
        Cost {
            input,
            output,
            cache_read,
            cache_write,
            web_search,
            total: input + output + cache_read + cache_write + web_search,
        }
    }
}

impl std::ops::AddAssign for Cost {
    fn add_assign(&mut self, other: Cost) {
        self.input += other.input;
        self.output += other.output;
        self.cache_read += other.cache_read;
        self.cache_write += other.cache_write;
        self.web_search += other.web_search;
        self.total += other.total;
    }
}

/// Why a model stopped. Its serde form is the session file's `stopReason` (pi's spelling).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum StopReason {
    /// It finished its answer.
    Stop,
    /// It ran into the output limit.
    Length,
    /// It wants tool results.
    ToolUse,
    /// The call failed.
    Error,
    /// A signal or the timeout stopped it.
    Aborted,
}

/// Milliseconds since the epoch (message timestamps).
pub fn now_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |duration| {
            i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
        })
}

/// Reasoning levels (SPEC §1.2 `--thinking`), mapped per provider elsewhere.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum ThinkingLevel {
    /// No reasoning.
    Off,
    /// The least reasoning the provider supports.
    Minimal,
    /// Low.
    Low,
    /// Medium.
    Medium,
    /// High.
    High,
    /// The most the provider offers.
    Xhigh,
}

impl ThinkingLevel {
    /// The name used in `config.toml` and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Off => "off",
            Self::Minimal => "minimal",
            Self::Low => "low",
            Self::Medium => "medium",
            Self::High => "high",
            Self::Xhigh => "xhigh",
        }
    }

    /// The level [`ThinkingLevel::as_str`] names (as sessions record it), if any.
    pub fn from_name(name: &str) -> Option<Self> {
        [
            Self::Off,
            Self::Minimal,
            Self::Low,
            Self::Medium,
            Self::High,
            Self::Xhigh,
        ]
        .into_iter()
        .find(|level| level.as_str() == name)
    }
}

/// How long a provider keeps a prompt-cache entry it is asked to write (`[cache] ttl`). Only
/// Anthropic takes it (`cache_control.ttl`); the other providers cache by prefix on their own
/// terms.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
pub enum CacheTtl {
    /// Five minutes, refreshed by every hit: the API's default, written at 1.25x the input price.
    #[default]
    #[serde(rename = "5m")]
    FiveMinutes,
    /// One hour, written at 2x the input price: cheaper for sessions whose turns come more than
    /// five minutes apart (cron), whose cache would otherwise expire between turns.
    #[serde(rename = "1h")]
    OneHour,
}

impl CacheTtl {
    /// The name used in `config.toml` and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::FiveMinutes => "5m",
            Self::OneHour => "1h",
        }
    }
}

/// The wire protocol a provider speaks (SPEC §4.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
pub enum ApiKind {
    /// Anthropic Messages API.
    #[serde(rename = "anthropic")]
    Anthropic,
    /// OpenAI Responses API.
    #[serde(rename = "openai")]
    OpenAi,
    /// OpenAI Chat Completions, for OpenAI-compatible servers (ollama, vllm, openrouter, …).
    #[serde(rename = "openai-chat")]
    OpenAiChat,
    /// Gemini `streamGenerateContent`.
    #[serde(rename = "google")]
    Google,
}

impl ApiKind {
    /// The name used in `config.toml`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Anthropic => "anthropic",
            Self::OpenAi => "openai",
            Self::OpenAiChat => "openai-chat",
            Self::Google => "google",
        }
    }
}

/// How a model is held to `--json-schema` (SPEC §3.4). Whatever the mode, pincer validates the
/// answer itself and sends an invalid one back with the errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum StructuredMode {
    /// The API's own JSON Schema mode on every call, tools offered beside it (Anthropic
    /// `output_config.format`, OpenAI `text.format` / `response_format`, Gemini 3
    /// `responseJsonSchema`).
    Native,
    /// The API's JSON Schema mode only on calls that offer no tools: the model cannot combine
    /// the two (Gemini 2.5). An invalid answer is asked again without tools, under the schema.
    NativeWithoutTools,
    /// A final-answer tool `structured_output` whose input schema is the user's: the model
    /// calls it last, and its input is the answer.
    Tool,
    /// The schema in the system prompt, nothing else.
    Instructions,
}

impl StructuredMode {
    /// The name used in `config.toml` and `models.toml`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Native => "native",
            Self::NativeWithoutTools => "native-without-tools",
            Self::Tool => "tool",
            Self::Instructions => "instructions",
        }
    }
}

/// Sandbox modes (SPEC §10).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxMode {
    /// No writes; `exec` only under OS read-only enforcement.
    ReadOnly,
    /// Writes confined to the workspace and the run's private temp dir.
    WorkspaceWrite,
    /// No confinement.
    DangerFullAccess,
}

impl SandboxMode {
    /// The name used in `config.toml` and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ReadOnly => "read-only",
            Self::WorkspaceWrite => "workspace-write",
            Self::DangerFullAccess => "danger-full-access",
        }
    }

    /// Whether this mode allows no more than `ceiling` does: read-only, then workspace-write,
    /// then danger-full-access, each allowing all the one before it does.
    pub fn within(self, ceiling: SandboxMode) -> bool {
        self.reach() <= ceiling.reach()
    }

    /// The place of the mode in that order.
    const fn reach(self) -> u8 {
        match self {
            Self::ReadOnly => 0,
            Self::WorkspaceWrite => 1,
            Self::DangerFullAccess => 2,
        }
    }
}

/// What is said to the model for a tool call whose result the history lacks.
pub const MISSING_RESULT: &str =
    "missing tool result in session history; inserted as an error so the transcript stays valid";

/// The conversation as it may be sent to a model — the one transcript repair every provider
/// relies on: failed and aborted assistant messages are left out (pi does the same), every tool
/// call is answered right after its message, once and in call order (a synthetic error result
/// for a missing one), and tool results without a call are dropped. Providers may still merge or split turns the way
/// their API wants, but never need to invent content. When nothing needs repairing (the usual
/// case) the messages come back borrowed, not copied: a long session is not held twice.
pub fn repair(messages: &[Message]) -> std::borrow::Cow<'_, [Message]> {
    /// A message of the output: one of the input's (by position), or a made-up result.
    enum Part {
        Kept(usize),
        Made(Box<Message>),
    }
    let kept: Vec<(usize, &Message)> = messages
        .iter()
        .enumerate()
        .filter(|(_, message)| match message {
            Message::Assistant(assistant) => !matches!(
                assistant.stop_reason,
                StopReason::Error | StopReason::Aborted
            ),
            _ => true,
        })
        .collect();
    let mut output: Vec<Part> = Vec::with_capacity(kept.len());
    let mut index = 0;
    while index < kept.len() {
        let (position, message) = kept[index];
        index += 1;
        let Message::Assistant(assistant) = message else {
            // A result here is consumed by no call: it is orphaned.
            if !matches!(message, Message::ToolResult(_)) {
                output.push(Part::Kept(position));
            }
            continue;
        };
        output.push(Part::Kept(position));
        let mut results: Vec<(usize, &ToolResultMessage)> = Vec::new();
        while let Some((position, Message::ToolResult(result))) = kept.get(index) {
            index += 1;
            results.push((*position, result));
        }
        // Each call answered once, in call order; results of other calls are orphans.
        let mut answered = HashSet::new();
        for call in assistant.tool_calls() {
            if !answered.insert(call.id.as_str()) {
                continue;
            }
            output.push(
                match results
                    .iter()
                    .find(|(_, result)| result.tool_call_id == call.id)
                {
                    Some((position, _)) => Part::Kept(*position),
                    None => Part::Made(Box::new(Message::ToolResult(ToolResultMessage::error(
                        call,
                        MISSING_RESULT,
                        0,
                    )))),
                },
            );
        }
    }
    // Nothing to repair (the usual case): the messages themselves, not a copy of them.
    let unchanged = output.len() == messages.len()
        && output
            .iter()
            .enumerate()
            .all(|(index, part)| matches!(part, Part::Kept(position) if *position == index));
    if unchanged {
        return std::borrow::Cow::Borrowed(messages);
    }
    std::borrow::Cow::Owned(
        output
            .into_iter()
            .map(|part| match part {
                Part::Kept(position) => messages[position].clone(),
                Part::Made(message) => *message,
            })
            .collect(),
    )
}

/// pi's chars/4 estimate (rounded up per message) of what the messages cost in context: text,
/// thinking, tool-call names and arguments, and a fixed 4,800 characters (1,200 tokens) per image.
pub fn estimate_tokens(messages: &[Message]) -> u64 {
    messages.iter().map(message_tokens).sum()
}

/// The context the conversation fills now: the last successful call's reported usage (SPEC §8)
/// plus estimates of the messages after it; estimates alone when no call reported usage.
pub fn estimate_context_tokens(messages: &[Message]) -> u64 {
    let last_reported = messages
        .iter()
        .enumerate()
        .rev()
        .find_map(|(index, message)| {
            let Message::Assistant(assistant) = message else {
                return None;
            };
            if matches!(
                assistant.stop_reason,
                StopReason::Error | StopReason::Aborted
            ) {
                return None;
            }
            let tokens = assistant.usage.context_tokens();
            (tokens > 0).then_some((index, tokens))
        });
    match last_reported {
        Some((index, tokens)) => tokens + estimate_tokens(&messages[index + 1..]),
        None => estimate_tokens(messages),
    }
}

fn message_tokens(message: &Message) -> u64 {
    let length = |text: &str| text.encode_utf16().count();
    let blocks = |blocks: &[ContentBlock]| -> usize {
        blocks
            .iter()
            .map(|block| match block {
                ContentBlock::Text(text) => length(&text.text),
                ContentBlock::Image(_) => 4_800,
            })
            .sum()
    };
    let characters = match message {
        Message::User(user) => match &user.content {
            MessageContent::Text(text) => length(text),
            MessageContent::Blocks(content) => blocks(content),
        },
        Message::ToolResult(result) => blocks(&result.content),
        Message::Assistant(assistant) => assistant
            .content
            .iter()
            .map(|block| match block {
                AssistantBlock::Text(text) => length(&text.text),
                AssistantBlock::Thinking(thinking) => length(&thinking.thinking),
                AssistantBlock::ToolCall(call) => {
                    length(&call.name) + length(&call.arguments.to_string())
                }
                AssistantBlock::ServerTool(server) => {
                    length(&server.input.to_string())
                        + server
                            .payload
                            .as_ref()
                            .map_or(0, |payload| length(&payload.to_string()))
                }
            })
            .sum(),
    };
    characters.div_ceil(4) as u64
}

// ---------------------------------------------------------------------------------------------
// Tools and streams

/// A tool the model may call.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDefinition {
    /// The tool's name.
    pub name: String,
    /// What it does, for the model.
    pub description: String,
    /// JSON Schema of its arguments (an object schema).
    pub parameters: Value,
}

/// What every request carries besides the messages: the system prompt and the tool definitions
/// (name, description and parameter schema), estimated like the messages (characters / 4,
/// rounded up). Pruning measures the context with it; `status` and the result report it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Overhead {
    /// The system prompt's share.
    pub system_prompt_tokens: u64,
    /// The tool definitions' share.
    pub tool_tokens: u64,
}

impl Overhead {
    /// The overhead of a request with `system_prompt` and `tools`.
    pub fn of(system_prompt: &str, tools: &[ToolDefinition]) -> Overhead {
        let characters = |text: &str| text.encode_utf16().count();
        let tools: usize = tools
            .iter()
            .map(|tool| {
                characters(&tool.name)
                    + characters(&tool.description)
                    + characters(&tool.parameters.to_string())
            })
            .sum();
        Overhead {
            system_prompt_tokens: (characters(system_prompt) as u64).div_ceil(4),
            tool_tokens: (tools as u64).div_ceil(4),
        }
    }

    /// Both shares.
    pub fn tokens(&self) -> u64 {
        self.system_prompt_tokens + self.tool_tokens
    }
}

/// The provider-neutral stream vocabulary. `block` numbers content blocks in the order they
/// appear in the final message; a parser assigns them.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    /// The response started (ids for logs and errors).
    Start {
        /// The provider's response or message id.
        response_id: Option<String>,
        /// The model that answers, as the provider reports it.
        model: Option<String>,
    },
    /// Visible text.
    TextDelta {
        /// Content block number.
        block: usize,
        /// The new text.
        text: String,
    },
    /// A signature attached to a text block (Gemini `thoughtSignature` on text parts).
    TextSignature {
        /// Content block number.
        block: usize,
        /// The opaque signature, echoed back unchanged.
        signature: String,
    },
    /// Reasoning text.
    ThinkingDelta {
        /// Content block number.
        block: usize,
        /// The new reasoning text.
        text: String,
    },
    /// The signature of a thinking block (Anthropic `signature_delta`; OpenAI's encrypted
    /// reasoning item as JSON), echoed back unchanged on later requests. Replaces any earlier one.
    ThinkingSignature {
        /// Content block number.
        block: usize,
        /// The opaque signature.
        signature: String,
    },
    /// Reasoning the provider returns only encrypted (Anthropic `redacted_thinking`).
    RedactedThinking {
        /// Content block number.
        block: usize,
        /// The opaque payload.
        data: String,
    },
    /// A tool call begins.
    ToolCallStart {
        /// Content block number.
        block: usize,
        /// The call id that the result must quote.
        id: String,
        /// The tool's name.
        name: String,
    },
    /// A fragment of the tool call's JSON arguments (concatenated in order).
    ToolCallArguments {
        /// Content block number.
        block: usize,
        /// The fragment.
        fragment: String,
    },
    /// A whole tool call at once (Gemini), with parsed arguments.
    ToolCall {
        /// Content block number.
        block: usize,
        /// The call id (generated when the provider gives none).
        id: String,
        /// The tool's name.
        name: String,
        /// The arguments.
        arguments: Value,
        /// Gemini `thoughtSignature` on the call part.
        thought_signature: Option<String>,
    },
    /// A tool the provider runs on its side begins (Anthropic `server_tool_use`, an OpenAI
    /// `web_search_call` item): nothing for pincer to run.
    ServerToolStart {
        /// Content block number.
        block: usize,
        /// The provider's call id.
        id: String,
        /// The tool (`web_search`).
        name: String,
    },
    /// A fragment of the server tool's JSON input (concatenated in order).
    ServerToolInput {
        /// Content block number.
        block: usize,
        /// The fragment.
        fragment: String,
    },
    /// The outcome of the server tool call in `block` (Anthropic sends it as a block of its
    /// own that names the call; it completes the call's block).
    ServerToolResult {
        /// The call's content block.
        block: usize,
        /// What it found.
        results: Vec<WebResult>,
        /// The provider's error code, when it failed.
        error: Option<String>,
        /// The provider's record of the outcome, to echo back.
        payload: Option<Value>,
    },
    /// A whole server tool call with its outcome at once (OpenAI's finished item, Gemini's
    /// grounding metadata); replaces whatever `block` held.
    ServerTool {
        /// Content block number.
        block: usize,
        /// The call.
        call: ServerToolCall,
    },
    /// A citation on a text block.
    Citation {
        /// The text's content block.
        block: usize,
        /// The source.
        citation: Citation,
    },
    /// Usage so far: a complete snapshot that replaces the previous one (already normalized
    /// per SPEC §8: `input` excludes cached tokens).
    Usage(TokenUsage),
    /// The model finished.
    Finish {
        /// Normalized stop reason.
        reason: StopReason,
        /// The provider's own word (`end_turn`, `tool_calls`, `STOP`, …).
        provider_reason: String,
    },
}

/// How full the context window is (SPEC §8).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ContextOccupancy {
    /// Tokens in context after the last successful call.
    pub tokens: u64,
    /// The model's context window, when known.
    pub window: Option<u64>,
    /// `tokens / window` in percent, one decimal, when the window is known.
    pub percent: Option<f64>,
}

impl ContextOccupancy {
    /// Occupancy of `usage` (the last successful call) in a window of `window` tokens.
    pub fn of(usage: &TokenUsage, window: Option<u64>) -> ContextOccupancy {
        let tokens = usage.context_tokens();
        let percent = window
            .filter(|window| *window > 0)
            .map(|window| (tokens as f64 * 1000.0 / window as f64).round() / 10.0);
        ContextOccupancy {
            tokens,
            window,
            percent,
        }
    }

    /// Compact form for tables: `85.6k/200k 43%`.
    pub fn short(&self) -> String {
        match (self.window, self.percent) {
            (Some(window), Some(percent)) => format!(
                "{}/{} {}%",
                compact_count(self.tokens),
                compact_count(window),
                percent.round()
            ),
            _ => compact_count(self.tokens),
        }
    }
}

/// `85601` → `85.6k`, `200000` → `200k`, `1048576` → `1.0M`, small numbers as they are.
pub fn compact_count(count: u64) -> String {
    if count < 1_000 {
        count.to_string()
    } else if count < 1_000_000 {
        let thousands = count as f64 / 1_000.0;
        if count.is_multiple_of(1_000) {
            format!("{}k", count / 1_000)
        } else {
            format!("{thousands:.1}k")
        }
    } else if count.is_multiple_of(1_000_000) {
        format!("{}M", count / 1_000_000)
    } else {
        format!("{:.1}M", count as f64 / 1_000_000.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thinking_level_is_found_by_the_name_sessions_record() {
        for level in [
            ThinkingLevel::Off,
            ThinkingLevel::Medium,
            ThinkingLevel::Xhigh,
        ] {
            assert_eq!(ThinkingLevel::from_name(level.as_str()), Some(level));
        }
        assert_eq!(ThinkingLevel::from_name("max"), None);
    }

    fn user(text: &str) -> Message {
        Message::User(UserMessage {
            content: MessageContent::Text(text.to_owned()),
            timestamp: 0,
        })
    }

    fn assistant(calls: &[&str], stop: StopReason) -> Message {
        Message::Assistant(AssistantMessage {
            content: calls
                .iter()
                .map(|id| {
                    AssistantBlock::ToolCall(ToolCall {
                        id: (*id).to_owned(),
                        name: "read".to_owned(),
                        arguments: serde_json::json!({}),
                        thought_signature: None,
                    })
                })
                .collect(),
            api: "a".into(),
            provider: "p".into(),
            model: "m".into(),
            usage: TokenUsage::default(),
            cost: Cost::default(),
            stop_reason: stop,
            timestamp: 0,
            error_message: None,
        })
    }

    fn result(id: &str) -> Message {
        Message::ToolResult(ToolResultMessage {
            tool_call_id: id.to_owned(),
            tool_name: "read".into(),
            content: vec![ContentBlock::text("ok")],
            details: None,
            is_error: false,
            timestamp: 0,
        })
    }

    fn shape(messages: &[Message]) -> Vec<String> {
        messages
            .iter()
            .map(|message| match message {
                Message::User(_) => "user".to_owned(),
                Message::Assistant(_) => "assistant".to_owned(),
                Message::ToolResult(result) => format!(
                    "result:{}{}",
                    result.tool_call_id,
                    if result.is_error { "!" } else { "" }
                ),
            })
            .collect()
    }

    #[test]
    fn repair_synthesizes_a_missing_tool_result_as_an_error() {
        let messages = vec![
            user("q"),
            assistant(&["a", "b"], StopReason::ToolUse),
            result("a"),
            user("next"),
        ];
        assert_eq!(
            shape(&repair(&messages)),
            ["user", "assistant", "result:a", "result:b!", "user"]
        );
    }

    #[test]
    fn repair_leaves_out_failed_and_aborted_messages_and_orphan_results() {
        let messages = vec![
            user("q"),
            assistant(&[], StopReason::Error),
            result("zz"),
            user("again"),
            assistant(&["c"], StopReason::Aborted),
            result("c"),
        ];
        assert_eq!(shape(&repair(&messages)), ["user", "user"]);
    }

    #[test]
    fn repair_answers_each_call_once_in_call_order() {
        let messages = vec![
            user("q"),
            assistant(&["a", "b"], StopReason::ToolUse),
            result("b"),
            result("a"),
            result("a"),
        ];
        assert_eq!(
            shape(&repair(&messages)),
            ["user", "assistant", "result:a", "result:b"]
        );
    }

    #[test]
    fn context_occupancy_of_the_seeds_worked_example_is_85601_of_200000() {
        let usage = TokenUsage {
            input: 1,
            cache_write: 500,
            cache_read: 85_000,
            output: 100,
            cache_write_1h: 0,
            reasoning: 0,
            web_search_requests: 0,
        };
        let occupancy = ContextOccupancy::of(&usage, Some(200_000));
        assert_eq!(occupancy.tokens, 85_601);
        assert_eq!(occupancy.percent, Some(42.8));
        assert_eq!(occupancy.short(), "85.6k/200k 43%");
    }

    #[test]
    fn cumulative_usage_sums_every_kind() {
        let mut total = TokenUsage::default();
        let call = TokenUsage {
            input: 10,
            output: 20,
            cache_read: 30,
            cache_write: 40,
            cache_write_1h: 0,
            reasoning: 5,
            web_search_requests: 0,
        };
        total.add(&call);
        total.add(&call);
        assert_eq!(total.prompt_tokens(), 160);
        assert_eq!(total.output, 40);
        assert_eq!(total.reasoning, 10);
    }

    #[test]
    fn compact_counts_read_like_a_table_cell() {
        assert_eq!(compact_count(999), "999");
        assert_eq!(compact_count(1_500), "1.5k");
        assert_eq!(compact_count(200_000), "200k");
        assert_eq!(compact_count(1_048_576), "1.0M");
        assert_eq!(compact_count(2_000_000), "2M");
    }

    #[test]
    fn the_overhead_counts_the_system_prompt_and_each_tool_name_description_and_schema() {
        let tools = [ToolDefinition {
            name: "ls".into(),
            description: "List.".into(),
            parameters: serde_json::json!({"type": "object"}),
        }];
        // 2 + 5 + 17 characters of tool, rounded up to 6 tokens; 9 of prompt, 3 tokens.
        let overhead = Overhead::of("Be terse.", &tools);
        assert_eq!(overhead.system_prompt_tokens, 3);
        assert_eq!(overhead.tool_tokens, 6);
        assert_eq!(overhead.tokens(), 9);
        assert_eq!(Overhead::of("", &[]).tokens(), 0);
    }
}
