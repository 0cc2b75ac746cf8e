//! Model providers: one request builder and one stream parser per wire protocol, behind one
//! provider-neutral vocabulary.
//!
//! Each protocol module (`anthropic`, `openai`, `openai_chat`, `gemini`) has:
//! - `wire.rs`: serde types of the real API (requests, stream events, error bodies);
//! - `request.rs`: a pure `build_request(&ModelRequest) -> HttpRequest`;
//! - `stream.rs`: a `Parser` implementing [`StreamParser`], mapping wire events to
//!   [`StreamEvent`]s, and `parse_error_body`, mapping an error response to [`ErrorDetails`].
//!
//! [`http`] sends a request and drives a parser over the SSE body with an idle timeout;
//! [`Accumulator`] folds neutral events into the assistant message stored in the session.
//! Providers receive a key; they never look up credentials themselves.
//!
//! [`cassette`] records and replays what [`http`] exchanges (and what the engine's CLI backends
//! run): it lives with the transport it wraps.

// The base layer's modules under the names this crate's modules use.
use pincer_base::{conversation, fs, redact, secret, tls};

pub mod accumulate;
pub mod anthropic;
pub mod cassette;
pub mod classify;
pub mod connect;
pub mod error;
pub mod gemini;
pub mod http;
pub mod openai;
pub mod openai_chat;
pub mod retry;
pub mod sse;
pub mod stop_reason;
#[cfg(test)]
pub mod test_support;

/// The integration tests' mock HTTP server, for the unit tests that need a real socket (the
/// retry loop).
#[cfg(test)]
#[allow(
    dead_code,
    unreachable_pub,
    reason = "each unit test uses only some of the mock server's helpers; the integration tests share the file, where its items are public"
)]
#[path = "../../../tests/common/mock.rs"]
pub(crate) mod mock_server;
pub mod think_tags;
pub mod web_search;

pub use accumulate::Accumulator;
pub use connect::{ConnectCause, ConnectFailure};
pub use error::{ErrorDetails, ProviderError};

use serde_json::Value;

use crate::conversation::Message;
pub use crate::conversation::{ApiKind, ThinkingLevel};
use crate::conversation::{StreamEvent, ToolDefinition};
use sse::SseEvent;

/// What the agent asks of a model, independent of the protocol.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelRequest<'a> {
    /// The model id as the provider spells it (`claude-sonnet-4-5`, `gpt-5`, …).
    pub model: String,
    /// The system prompt (empty: none).
    pub system_prompt: String,
    /// The conversation: user, assistant and tool-result messages, oldest first; borrowed from
    /// the turn's own messages whenever the request sends them unchanged.
    pub messages: std::borrow::Cow<'a, [Message]>,
    /// Tools offered.
    pub tools: Vec<ToolDefinition>,
    /// Reasoning level.
    pub thinking: ThinkingLevel,
    /// An exact thinking budget in tokens (`--max-thinking-tokens`), used by the protocols that
    /// take one (Anthropic `budget_tokens`, Gemini `thinkingBudget`) instead of the level's; the
    /// others go by `thinking`, which the caller sets to the nearest level.
    pub thinking_budget: Option<u64>,
    /// Upper bound on generated tokens.
    pub max_output_tokens: u64,
    /// Whether the model is a reasoning model (catalog), which changes some parameters.
    pub reasoning_model: bool,
    /// The provider's server-side web search, when the turn asks for it and the model has it
    /// ([`web_search`]).
    pub web_search: Option<web_search::WebSearch>,
    /// `--json-schema` enforced by the API on this call's answer (SPEC §3.4): Anthropic
    /// `output_config.format`, Responses `text.format`, Chat `response_format`, Gemini
    /// `responseJsonSchema`. Tool calls stay possible; only the text answer is constrained.
    pub output_format: Option<OutputFormat>,
    /// A key that routes requests sharing a prefix to the same prompt cache (the Responses
    /// API's `prompt_cache_key`; the other protocols cache by prefix alone): the session id.
    pub cache_key: Option<String>,
    /// Whether the request marks its prompt for the provider's cache, and how long what it writes
    /// should live where the protocol takes a lifetime (Anthropic's `cache_control.ttl`). `None`
    /// for a one-off prompt no later request repeats (the compaction summary call): a cache write
    /// costs more than plain input (Anthropic: 1.25x, 2x for an hour), so none is asked for.
    pub cache_writes: Option<crate::conversation::CacheTtl>,
}

/// The JSON Schema an API holds the answer to, already shaped for that API's dialect
/// (`structured::dialect`).
#[derive(Debug, Clone, PartialEq)]
pub struct OutputFormat {
    /// The format's name where the API wants one (OpenAI: `^[a-zA-Z0-9_-]{1,64}$`).
    pub name: String,
    /// The schema.
    pub schema: Value,
    /// OpenAI's `strict`: the schema follows the strict subset (every property required,
    /// `additionalProperties: false`), so decoding is constrained to it.
    pub strict: bool,
}

/// How a protocol carries the credential.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthStyle {
    /// `x-api-key: KEY` (Anthropic).
    XApiKey,
    /// `Authorization: Bearer KEY` (OpenAI and compatible servers).
    Bearer,
    /// `x-goog-api-key: KEY` (Gemini; never in the URL).
    GoogApiKey,
}

/// A request ready to send, built without I/O. The credential is added by [`http`].
#[derive(Debug, Clone, PartialEq)]
pub struct HttpRequest {
    /// Path and query appended to the provider's base URL (`/v1/messages`,
    /// `/models/gemini-2.5-pro:streamGenerateContent?alt=sse`, …).
    pub path: String,
    /// Extra headers (never secrets): `anthropic-version`, `accept`, …
    pub headers: Vec<(String, String)>,
    /// The JSON body, serialized: a request is built straight into the bytes that are sent,
    /// with no `serde_json::Value` of it in between (for a long session that would be one more
    /// copy of the whole conversation, SPEC §12.1).
    pub body: Vec<u8>,
}

/// `body` serialized, into a buffer sized up front for a conversation of `messages` (about twice
/// its text): a buffer that grew by doubling would leave each smaller one it outgrew behind in
/// the heap, which for a long session is more memory than the body itself. Room that is not
/// written is never touched, so the generous estimate costs nothing.
pub fn json_body(body: &impl serde::Serialize, messages: &[Message]) -> Vec<u8> {
    use crate::conversation::{AssistantBlock, ContentBlock, MessageContent};
    let blocks = |blocks: &[ContentBlock]| -> usize {
        blocks
            .iter()
            .map(|block| match block {
                ContentBlock::Text(text) => text.text.len(),
                ContentBlock::Image(image) => image.data.len(),
            })
            .sum()
    };
    let text: usize = messages
        .iter()
        .map(|message| {
            256 + match message {
                Message::User(user) => match &user.content {
                    MessageContent::Text(text) => text.len(),
                    MessageContent::Blocks(content) => blocks(content),
                },
                Message::ToolResult(result) => blocks(&result.content),
                Message::Assistant(assistant) => assistant
                    .content
                    .iter()
                    .map(|block| match block {
                        AssistantBlock::Text(text) => text.text.len(),
                        AssistantBlock::Thinking(thinking) => {
                            thinking.thinking.len()
                                + thinking.signature.as_ref().map_or(0, String::len)
                        }
                        AssistantBlock::ToolCall(call) => 256 + call.name.len(),
                        // Search results come back with their encrypted pages: a few KB.
                        AssistantBlock::ServerTool(_) => 8 * 1024,
                    })
                    .sum(),
            }
        })
        .sum();
    let mut bytes = Vec::with_capacity(2 * text + 64 * 1024);
    // Cannot fail: every map in a request body has string keys.
    let _ = serde_json::to_writer(&mut bytes, body);
    bytes
}

impl HttpRequest {
    /// The body as JSON, for what reads it rather than sends it (a dry run, a cassette).
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }
}

/// A protocol's stream parser: wire events in, neutral events out.
pub trait StreamParser {
    /// Handle one SSE event. A mid-stream error event is returned as `Err`.
    fn on_event(&mut self, event: &SseEvent) -> Result<Vec<StreamEvent>, ProviderError>;

    /// Whether the protocol's terminal event has been seen, so that EOF is a normal end
    /// (Anthropic `message_stop`, Responses `response.completed`, Chat `[DONE]`, a Gemini chunk
    /// with `finishReason`).
    fn is_finished(&self) -> bool;
}

/// Everything protocol-specific the HTTP layer needs.
pub struct Protocol {
    /// How the key is sent.
    pub auth: AuthStyle,
    /// The request.
    pub request: HttpRequest,
    /// A fresh parser for the response stream.
    pub parser: Box<dyn StreamParser + Send>,
    /// Maps an error response body to details.
    pub parse_error_body: fn(u16, &str) -> ErrorDetails,
    /// The `api` string stored in assistant messages (pi's names: `anthropic-messages`,
    /// `openai-responses`, `openai-completions`, `google-generative-ai`).
    pub api_name: &'static str,
    /// Whether the text may carry inline `<think>`/`<final>` tags to split out (local models
    /// behind OpenAI-compatible servers).
    pub inline_think_tags: bool,
}

/// The `api` name stored in assistant messages of `api` (pi's names).
pub fn api_name(api: ApiKind) -> &'static str {
    match api {
        ApiKind::Anthropic => "anthropic-messages",
        ApiKind::OpenAi => "openai-responses",
        ApiKind::OpenAiChat => "openai-completions",
        ApiKind::Google => "google-generative-ai",
    }
}

/// Build the protocol pieces for `api`.
pub fn protocol(api: ApiKind, request: &ModelRequest) -> Protocol {
    match api {
        ApiKind::Anthropic => Protocol {
            auth: AuthStyle::XApiKey,
            request: anthropic::request::build_request(request),
            parser: Box::new(anthropic::stream::Parser::new()),
            parse_error_body: anthropic::stream::parse_error_body,
            api_name: api_name(ApiKind::Anthropic),
            inline_think_tags: false,
        },
        ApiKind::OpenAi => Protocol {
            auth: AuthStyle::Bearer,
            request: openai::request::build_request(request),
            parser: Box::new(openai::stream::Parser::new()),
            parse_error_body: openai::stream::parse_error_body,
            api_name: api_name(ApiKind::OpenAi),
            inline_think_tags: false,
        },
        ApiKind::OpenAiChat => Protocol {
            auth: AuthStyle::Bearer,
            request: openai_chat::request::build_request(request),
            parser: Box::new(openai_chat::stream::Parser::new()),
            parse_error_body: openai_chat::stream::parse_error_body,
            api_name: api_name(ApiKind::OpenAiChat),
            inline_think_tags: true,
        },
        ApiKind::Google => Protocol {
            auth: AuthStyle::GoogApiKey,
            request: gemini::request::build_request(request),
            parser: Box::new(gemini::stream::Parser::new()),
            parse_error_body: gemini::stream::parse_error_body,
            api_name: api_name(ApiKind::Google),
            inline_think_tags: false,
        },
    }
}
