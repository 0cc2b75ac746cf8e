//! Serde types of the OpenAI Responses API (`POST /v1/responses`, `stream: true`).
//!
//! Shapes follow the API reference (<https://platform.openai.com/docs/api-reference/responses>,
//! streaming events at <https://platform.openai.com/docs/api-reference/responses-streaming>) and the
//! recordings summarized in `shared/reference/provider-wire-formats.md` §3. Only the fields pincer
//! reads are declared; everything else in an event is ignored, and event types not listed here
//! decode to [`ResponsesEvent::Unknown`].
//!
//! The error envelope ([`ErrorObject`]) is shared with Chat Completions, which uses the same one.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

// ---------------------------------------------------------------------------------------------
// Request

/// The request body (reference §3.1). Field order is the order of the recorded requests.
#[derive(Debug, Serialize)]
pub struct ResponsesRequest {
    pub model: String,
    pub stream: bool,
    /// Always `false`: pincer keeps the conversation itself and echoes reasoning items back.
    pub store: bool,
    /// `["reasoning.encrypted_content"]` when reasoning is requested, so it can be echoed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub include: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<ReasoningOptions>,
    /// The system prompt.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<u64>,
    pub input: Vec<InputItem>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<Tool>,
    /// `--json-schema`: `{"format": {"type": "json_schema", …}}` (API reference: "Create a
    /// model response", `text.format`; guide: "Structured Outputs").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<TextOptions>,
    /// The session id: requests with the same key and prefix are routed to the same cache
    /// (API reference: "Create a model response", `prompt_cache_key`; guide: "Prompt caching").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_cache_key: Option<String>,
}

/// `text`: how the output text is shaped.
#[derive(Debug, Serialize)]
pub struct TextOptions {
    pub format: TextFormat,
}

/// `text.format`: the Responses API spells the schema's name, schema and `strict` flat.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TextFormat {
    JsonSchema {
        name: String,
        schema: Value,
        strict: bool,
    },
}

/// One entry of `tools`.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Tool {
    Function(FunctionTool),
    /// `{"type":"web_search"}`: the built-in web search (the generally available name; the
    /// older `web_search_preview` is not used).
    WebSearch(WebSearchTool),
}

/// `{"type":"web_search"}`.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename = "web_search")]
pub struct WebSearchTool {}

/// `{"effort": "low", "summary": "auto"}`.
#[derive(Debug, Serialize)]
pub struct ReasoningOptions {
    pub effort: &'static str,
    pub summary: &'static str,
}

/// One entry of `input`.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum InputItem {
    /// `{"role":"user","content":[…]}`: user input.
    User(UserInput),
    /// Items with a `type`: assistant messages, function calls and their outputs.
    Typed(TypedInputItem),
    /// A reasoning item from an earlier response, echoed back exactly as it was received.
    Echoed(Value),
}

/// A user message.
#[derive(Debug, Serialize)]
pub struct UserInput {
    /// Always `"user"`.
    pub role: &'static str,
    pub content: Vec<InputContent>,
}

/// A part of a user message.
#[derive(Debug, Serialize)]
#[serde(tag = "type")]
pub enum InputContent {
    #[serde(rename = "input_text")]
    Text { text: String },
    /// `image_url` is a `data:` URL.
    #[serde(rename = "input_image")]
    Image {
        image_url: String,
        detail: &'static str,
    },
}

/// Input items tagged by `type`.
#[derive(Debug, Serialize)]
#[serde(tag = "type")]
pub enum TypedInputItem {
    /// An earlier assistant answer: `{"type":"message","role":"assistant","content":[…]}`.
    #[serde(rename = "message")]
    AssistantMessage {
        role: &'static str,
        content: Vec<OutputTextContent>,
    },
    /// An earlier tool call; `call_id` links it to its output.
    #[serde(rename = "function_call")]
    FunctionCall {
        call_id: String,
        name: String,
        /// The arguments as JSON text.
        arguments: String,
    },
    /// A tool's result.
    #[serde(rename = "function_call_output")]
    FunctionCallOutput { call_id: String, output: String },
}

/// `{"type":"output_text","text":…}` inside an assistant message.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename = "output_text")]
pub struct OutputTextContent {
    pub text: String,
}

/// A tool, flat: `{"type":"function","name",…}` (not nested under `function` as in Chat).
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename = "function")]
pub struct FunctionTool {
    pub name: String,
    pub description: String,
    pub parameters: Value,
    pub strict: bool,
}

// ---------------------------------------------------------------------------------------------
// Stream events (reference §3.2)

/// One streamed event; the SSE `event:` line repeats `type`, so only the data is decoded.
///
/// `output_index` is optional throughout: OpenAI always sends it, but llama.cpp's `/v1/responses`
/// leaves it out and links deltas to items by `item_id` only.
#[derive(Debug, Deserialize)]
#[serde(tag = "type")]
pub enum ResponsesEvent {
    #[serde(rename = "response.created")]
    Created { response: Response },
    #[serde(rename = "response.output_item.added")]
    OutputItemAdded {
        output_index: Option<usize>,
        item: OutputItem,
    },
    /// The item is kept as JSON: a finished reasoning item is stored verbatim as a signature.
    #[serde(rename = "response.output_item.done")]
    OutputItemDone {
        output_index: Option<usize>,
        item: Value,
    },
    #[serde(rename = "response.output_text.delta")]
    OutputTextDelta {
        output_index: Option<usize>,
        item_id: Option<String>,
        delta: String,
    },
    #[serde(rename = "response.refusal.delta")]
    RefusalDelta {
        output_index: Option<usize>,
        item_id: Option<String>,
        delta: String,
    },
    #[serde(rename = "response.function_call_arguments.delta")]
    FunctionCallArgumentsDelta {
        output_index: Option<usize>,
        item_id: Option<String>,
        delta: String,
    },
    #[serde(rename = "response.function_call_arguments.done")]
    FunctionCallArgumentsDone {
        output_index: Option<usize>,
        item_id: Option<String>,
        arguments: String,
    },
    /// A citation added to an output text (web search).
    #[serde(rename = "response.output_text.annotation.added")]
    OutputTextAnnotationAdded {
        output_index: Option<usize>,
        item_id: Option<String>,
        annotation: Value,
    },
    #[serde(rename = "response.reasoning_summary_part.added")]
    ReasoningSummaryPartAdded {
        output_index: Option<usize>,
        item_id: Option<String>,
        #[serde(default)]
        summary_index: usize,
    },
    #[serde(rename = "response.reasoning_summary_text.delta")]
    ReasoningSummaryTextDelta {
        output_index: Option<usize>,
        item_id: Option<String>,
        delta: String,
    },
    /// Raw chain of thought (open-weight models behind compatible servers).
    #[serde(rename = "response.reasoning_text.delta")]
    ReasoningTextDelta {
        output_index: Option<usize>,
        item_id: Option<String>,
        delta: String,
    },
    #[serde(rename = "response.completed")]
    Completed { response: Response },
    #[serde(rename = "response.incomplete")]
    Incomplete { response: Response },
    #[serde(rename = "response.failed")]
    Failed { response: Response },
    /// `{"type":"error","error":{…}}` as recorded, or `{"type":"error","code","message","param"}`
    /// as openai-python's `ResponseErrorEvent` declares it.
    #[serde(rename = "error")]
    Error {
        error: Option<ErrorObject>,
        #[serde(default, deserialize_with = "code_text")]
        code: Option<String>,
        message: Option<String>,
    },
    /// `response.in_progress`, content part events, `.done` events, tool families pincer does
    /// not use, and anything newer.
    #[serde(other)]
    Unknown,
}

/// The response object of `response.created` and the terminal events.
#[derive(Debug, Deserialize)]
pub struct Response {
    pub id: Option<String>,
    pub model: Option<String>,
    pub status: Option<String>,
    pub usage: Option<Usage>,
    pub incomplete_details: Option<IncompleteDetails>,
    pub error: Option<ErrorObject>,
}

/// `{"reason": "max_output_tokens" | "content_filter"}`.
#[derive(Debug, Deserialize)]
pub struct IncompleteDetails {
    pub reason: Option<String>,
}

/// An output item, as announced by `response.output_item.added` or finished by `.done`.
#[derive(Debug, Deserialize)]
#[serde(tag = "type")]
pub enum OutputItem {
    #[serde(rename = "message")]
    Message {
        id: Option<String>,
        #[serde(default)]
        content: Vec<MessageContent>,
    },
    #[serde(rename = "function_call")]
    FunctionCall {
        /// The item id (`fc_…`); llama.cpp sends none.
        id: Option<String>,
        /// The id a `function_call_output` must quote (`call_…`).
        call_id: String,
        name: String,
        #[serde(default)]
        arguments: String,
    },
    #[serde(rename = "reasoning")]
    Reasoning {
        id: Option<String>,
        #[serde(default)]
        summary: Vec<SummaryPart>,
    },
    /// A search the API ran (docs: "Web search"); `action` arrives with the finished item.
    #[serde(rename = "web_search_call")]
    WebSearchCall {
        id: Option<String>,
        #[serde(default)]
        status: Option<String>,
        #[serde(default)]
        action: Option<WebSearchAction>,
    },
    #[serde(other)]
    Other,
}

/// What a `web_search_call` did: `search` (with `query` and, when asked for in `include`,
/// `sources`), `open_page`, `find` (`find_in_page`).
#[derive(Debug, Deserialize)]
pub struct WebSearchAction {
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
    #[serde(default)]
    pub query: Option<String>,
    /// `open_page`/`find`: the page.
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    pub sources: Vec<WebSearchSource>,
}

/// `{"type":"url","url":…}`.
#[derive(Debug, Deserialize)]
pub struct WebSearchSource {
    #[serde(default)]
    pub url: Option<String>,
}

/// An annotation of output text; only `url_citation`s (web search) are read.
#[derive(Debug, Deserialize)]
#[serde(tag = "type")]
pub enum Annotation {
    #[serde(rename = "url_citation")]
    UrlCitation {
        url: String,
        #[serde(default)]
        title: Option<String>,
    },
    #[serde(other)]
    Other,
}

/// A part of a finished message item.
#[derive(Debug, Deserialize)]
#[serde(tag = "type")]
pub enum MessageContent {
    #[serde(rename = "output_text")]
    OutputText {
        text: String,
        /// Kept as JSON: each `url_citation` is stored as it came.
        #[serde(default)]
        annotations: Vec<serde_json::Value>,
    },
    #[serde(rename = "refusal")]
    Refusal { refusal: String },
    #[serde(other)]
    Other,
}

/// `{"type":"summary_text","text":…}`.
#[derive(Debug, Deserialize)]
pub struct SummaryPart {
    #[serde(default)]
    pub text: String,
}

/// `response.usage` (reference §3.3).
#[derive(Debug, Deserialize)]
pub struct Usage {
    #[serde(default)]
    pub input_tokens: u64,
    pub input_tokens_details: Option<InputTokensDetails>,
    #[serde(default)]
    pub output_tokens: u64,
    pub output_tokens_details: Option<OutputTokensDetails>,
}

/// `input_tokens_details`.
#[derive(Debug, Deserialize)]
pub struct InputTokensDetails {
    #[serde(default)]
    pub cached_tokens: u64,
    /// 2026: prompt tokens written to the cache by this call.
    #[serde(default)]
    pub cache_write_tokens: u64,
}

/// `output_tokens_details`.
#[derive(Debug, Deserialize)]
pub struct OutputTokensDetails {
    #[serde(default)]
    pub reasoning_tokens: u64,
}

// ---------------------------------------------------------------------------------------------
// Errors (reference §2.5, §3.5, §5)

/// An error response body: the OpenAI envelope `{"error":{…}}` (also Ollama, llama.cpp), or vLLM's
/// flat `{"object":"error","message",…}`.
#[derive(Debug, Deserialize)]
pub struct ErrorBody {
    pub error: Option<ErrorField>,
    pub message: Option<String>,
    #[serde(rename = "type")]
    pub error_type: Option<String>,
    #[serde(default, deserialize_with = "code_text")]
    pub code: Option<String>,
}

/// The `error` member: normally an object, a bare string on some compatible servers.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum ErrorField {
    Object(ErrorObject),
    Text(String),
}

/// `{"message","type","param","code"}`. llama.cpp and vLLM send a numeric `code` (the HTTP
/// status); it is kept as text.
#[derive(Debug, Default, Deserialize)]
pub struct ErrorObject {
    #[serde(default)]
    pub message: String,
    #[serde(rename = "type")]
    pub error_type: Option<String>,
    #[serde(default, deserialize_with = "code_text")]
    pub code: Option<String>,
}

/// A `code` that may be a string, a number or null.
fn code_text<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    Ok(match Value::deserialize(deserializer)? {
        Value::String(text) => Some(text),
        Value::Number(number) => Some(number.to_string()),
        _ => None,
    })
}
