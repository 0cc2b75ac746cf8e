//! Serde types of the Gemini Generative Language API v1beta (`streamGenerateContent?alt=sse`).
//!
//! Request shapes follow <https://ai.google.dev/api/generate-content#request-body> and the
//! recorded request in `simonw/llm-gemini:tests/cassettes/test_gemini/test_tools_with_gemini_3_thought_signatures.yaml`;
//! response shapes follow <https://ai.google.dev/api/generate-content#generatecontentresponse>
//! and the SSE recordings in `pydantic/pydantic-ai:tests/models/cassettes/test_google/*.yaml`
//! (see `shared/reference/provider-wire-formats.md` §4). Every response field is optional:
//! a chunk carries only what changed, and unknown fields are ignored.

use serde::{Deserialize, Serialize};
use serde_json::Value;

// ---------------------------------------------------------------------------------------------
// Request

/// The body of `POST /models/{model}:streamGenerateContent`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GenerateContentRequest {
    /// The conversation, alternating `user` and `model` turns, starting with `user`.
    pub contents: Vec<Content>,
    /// The system prompt, absent when empty.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system_instruction: Option<SystemInstruction>,
    /// One entry holding every function declaration; absent without tools.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<Tool>,
    /// Output limit and thinking settings.
    pub generation_config: GenerationConfig,
}

/// A turn of the conversation (`Content`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Content {
    /// `user` or `model`.
    pub role: Role,
    /// The turn's parts.
    pub parts: Vec<Part>,
}

/// Who speaks a turn. Function responses are `user` turns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The person, and tool results.
    User,
    /// The model.
    Model,
}

/// `systemInstruction`: a role-less content.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SystemInstruction {
    /// Text parts of the system prompt.
    pub parts: Vec<Part>,
}

/// A `Part`: one of `text`, `inlineData`, `functionCall`, `functionResponse` (others such as
/// `executableCode` are ignored when received), with the `thought` flag and `thoughtSignature`
/// metadata. Field order matches what the API and SDKs write.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Part {
    /// Text, or a thought summary when `thought` is true.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Whether `text` is the model's reasoning.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thought: Option<bool>,
    /// An inline image (base64).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inline_data: Option<Blob>,
    /// A whole function call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function_call: Option<FunctionCall>,
    /// The result of a function call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function_response: Option<FunctionResponse>,
    /// Opaque signature to echo back on the same part.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thought_signature: Option<String>,
}

/// `inlineData`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Blob {
    /// `image/png`, …
    pub mime_type: String,
    /// Base64 bytes.
    pub data: String,
}

/// `functionCall`: arrives whole, with parsed arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionCall {
    /// A call id, when the API assigns one (not sent back: Gemini pairs by order and name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The function's name.
    pub name: String,
    /// The arguments object.
    #[serde(default)]
    pub args: Value,
}

/// `functionResponse`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionResponse {
    /// The function's name.
    pub name: String,
    /// `{"output": …}` or `{"error": …}`.
    pub response: FunctionOutcome,
}

/// The free-form `response` object of a function response, in the two shapes the Gemini docs
/// recommend: `{"output": text}` on success, `{"error": text}` on failure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FunctionOutcome {
    /// The tool's output.
    Output(String),
    /// The tool's error message.
    Error(String),
}

/// One `tools` entry: the function declarations, or a built-in tool.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Tool {
    /// The functions the model may call.
    Functions {
        #[serde(rename = "functionDeclarations")]
        function_declarations: Vec<FunctionDeclaration>,
    },
    /// `{"google_search": {}}`: grounding with Google Search (docs: "Grounding with Google
    /// Search", the REST spelling).
    GoogleSearch { google_search: GoogleSearch },
}

/// The (empty) settings of `google_search`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct GoogleSearch {}

/// A function declaration, with an OpenAPI-subset `parameters` schema.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FunctionDeclaration {
    /// The function's name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// Its arguments (absent when it takes none: Gemini rejects an object without properties).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parameters: Option<Value>,
}

/// `generationConfig`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GenerationConfig {
    /// Upper bound on generated tokens.
    pub max_output_tokens: u64,
    /// Thinking settings, absent to keep the model's default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thinking_config: Option<ThinkingConfig>,
    /// `application/json` with `--json-schema` (API reference: `GenerationConfig`,
    /// `responseMimeType`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_mime_type: Option<&'static str>,
    /// The answer's JSON Schema (`responseJsonSchema`, the JSON Schema field; the older
    /// `responseSchema` takes only the OpenAPI subset).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_json_schema: Option<Value>,
}

/// `thinkingConfig` (Gemini 2.5 budgets; Gemini 3 still accepts them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ThinkingConfig {
    /// Ask for thought summaries in the stream.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub include_thoughts: Option<bool>,
    /// Reasoning tokens allowed; 0 disables thinking (Flash models only).
    pub thinking_budget: u64,
}

// ---------------------------------------------------------------------------------------------
// Response

/// One SSE `data:` payload: an error envelope, or a full `GenerateContentResponse`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum StreamPayload {
    /// `{"error": {…}}` or `[{"error": {…}}]`.
    Error(ErrorBody),
    /// A normal chunk.
    Response(GenerateContentResponse),
}

/// `GenerateContentResponse`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GenerateContentResponse {
    /// Candidates (one unless `candidateCount` is set).
    #[serde(default)]
    pub candidates: Vec<Candidate>,
    /// Set when the prompt itself was blocked (then there are no candidates).
    #[serde(default)]
    pub prompt_feedback: Option<PromptFeedback>,
    /// Running token counts, repeated in every chunk.
    #[serde(default)]
    pub usage_metadata: Option<UsageMetadata>,
    /// The model that answers (`gemini-2.5-flash`).
    #[serde(default)]
    pub model_version: Option<String>,
    /// The response id, the same in every chunk.
    #[serde(default)]
    pub response_id: Option<String>,
}

/// A `Candidate`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Candidate {
    /// New parts (deltas for text); absent in a bare safety stop.
    #[serde(default)]
    pub content: Option<CandidateContent>,
    /// `STOP`, `MAX_TOKENS`, `SAFETY`, … on the last chunk.
    #[serde(default)]
    pub finish_reason: Option<String>,
    /// A human explanation of the finish reason, when given.
    #[serde(default)]
    pub finish_message: Option<String>,
    /// The candidate's index (absent means 0).
    #[serde(default)]
    pub index: Option<u32>,
    /// What Google Search grounding found (with `google_search`), usually on the last chunk.
    #[serde(default)]
    pub grounding_metadata: Option<GroundingMetadata>,
}

/// `groundingMetadata` (docs: "Grounding with Google Search", response): the queries run, the
/// pages found (`groundingChunks`), and which part of the answer each page supports
/// (`groundingSupports`, by chunk index).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct GroundingMetadata {
    pub web_search_queries: Vec<String>,
    pub grounding_chunks: Vec<GroundingChunk>,
    pub grounding_supports: Vec<GroundingSupport>,
}

/// One page found: `{"web": {"uri", "title"}}` (the URI is a Google redirect to the page).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct GroundingChunk {
    pub web: Option<WebChunk>,
}

/// `groundingChunks[].web`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct WebChunk {
    pub uri: String,
    pub title: Option<String>,
}

/// A part of the answer and the chunks that support it.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct GroundingSupport {
    pub segment: Option<Segment>,
    pub grounding_chunk_indices: Vec<usize>,
}

/// `groundingSupports[].segment`: the supported text.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct Segment {
    pub text: Option<String>,
}

/// A candidate's `content` (its `role` is always `model` and is not needed).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct CandidateContent {
    /// The parts of this chunk.
    #[serde(default)]
    pub parts: Vec<Part>,
}

/// `promptFeedback`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptFeedback {
    /// `SAFETY`, `BLOCKLIST`, `PROHIBITED_CONTENT`, `OTHER`, …
    #[serde(default)]
    pub block_reason: Option<String>,
    /// A human explanation, when given.
    #[serde(default)]
    pub block_reason_message: Option<String>,
}

/// `usageMetadata`. `promptTokenCount` includes `cachedContentTokenCount`;
/// `candidatesTokenCount` excludes `thoughtsTokenCount` (reference §4.4).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct UsageMetadata {
    /// The whole prompt, cached part included.
    pub prompt_token_count: u64,
    /// The cached part of the prompt.
    pub cached_content_token_count: u64,
    /// Visible output.
    pub candidates_token_count: u64,
    /// Reasoning output.
    pub thoughts_token_count: u64,
    /// Prompt tokens added by built-in tools (search results, …).
    pub tool_use_prompt_token_count: u64,
    /// The sum of the above, cached tokens counted once.
    pub total_token_count: u64,
}

// ---------------------------------------------------------------------------------------------
// Errors

/// An error body: the envelope alone, or wrapped in an array as in non-SSE streams
/// (gemini-cli error dumps, reference §4.6).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum ErrorBody {
    /// `[{"error": {…}}]`. Tried first: serde would also read an array as a struct's fields.
    List(Vec<ErrorEnvelope>),
    /// `{"error": {…}}`.
    Single(ErrorEnvelope),
}

impl ErrorBody {
    /// The (first) error.
    pub fn into_error(self) -> Option<GoogleError> {
        match self {
            ErrorBody::Single(envelope) => Some(envelope.error),
            ErrorBody::List(envelopes) => {
                envelopes.into_iter().next().map(|envelope| envelope.error)
            }
        }
    }
}

/// The error envelope `{"error": {"code", "message", "status", "details"}}`
/// (<https://ai.google.dev/gemini-api/docs/troubleshooting>, reference §4.6).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ErrorEnvelope {
    /// The error.
    pub error: GoogleError,
}

/// A `google.rpc.Status`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct GoogleError {
    /// The HTTP status.
    pub code: Option<u16>,
    /// The human message.
    pub message: String,
    /// The canonical status (`RESOURCE_EXHAUSTED`, `INVALID_ARGUMENT`, …).
    pub status: Option<String>,
    /// Typed details.
    pub details: Vec<ErrorDetail>,
}

/// One violated quota of a `google.rpc.QuotaFailure`
/// (<https://ai.google.dev/gemini-api/docs/rate-limits>).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct QuotaViolation {
    /// Which quota: `GenerateRequestsPerMinutePerProjectPerModel-FreeTier`,
    /// `GenerateRequestsPerDayPerProjectPerModel-FreeTier`, …
    pub quota_id: Option<String>,
    /// The metric counted (`generativelanguage.googleapis.com/generate_content_free_tier_requests`).
    pub quota_metric: Option<String>,
}

/// An entry of `details`, chosen by `@type`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "@type")]
pub enum ErrorDetail {
    /// Machine-readable cause (`API_KEY_INVALID`).
    #[serde(rename = "type.googleapis.com/google.rpc.ErrorInfo")]
    ErrorInfo {
        /// The cause.
        #[serde(default)]
        reason: Option<String>,
        /// Its domain (`googleapis.com`).
        #[serde(default)]
        domain: Option<String>,
    },
    /// When to retry.
    #[serde(rename = "type.googleapis.com/google.rpc.RetryInfo")]
    RetryInfo {
        /// A protobuf Duration in JSON form: `"34.4s"`.
        #[serde(default, rename = "retryDelay")]
        retry_delay: Option<String>,
    },
    /// Which quota was exceeded.
    #[serde(rename = "type.googleapis.com/google.rpc.QuotaFailure")]
    QuotaFailure {
        /// The violated quotas.
        #[serde(default)]
        violations: Vec<QuotaViolation>,
    },
    /// `Help`, `LocalizedMessage`, `BadRequest` and anything newer.
    #[serde(other)]
    Other,
}
