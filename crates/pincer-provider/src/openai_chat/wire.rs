//! Serde types of the OpenAI Chat Completions API (`POST /v1/chat/completions`, `stream: true`)
//! and the compatible servers that speak it (llama.cpp, Ollama, vLLM, LM Studio, OpenRouter).
//!
//! Shapes follow the API reference (<https://platform.openai.com/docs/api-reference/chat/create>,
//! chunk object at <https://platform.openai.com/docs/api-reference/chat-streaming>) and the
//! recordings summarized in `shared/reference/provider-wire-formats.md` §2 and §5. Only the fields
//! pincer reads are declared. Error bodies use the envelope of [`crate::openai::wire`].

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::openai::wire::ErrorField;

// ---------------------------------------------------------------------------------------------
// Request

/// The request body (reference §2.2).
#[derive(Debug, Serialize)]
pub struct ChatRequest {
    pub model: String,
    pub stream: bool,
    /// `{"include_usage": true}`: usage arrives in one chunk after the finish chunk.
    pub stream_options: StreamOptions,
    pub messages: Vec<ChatMessage>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<ChatTool>,
    /// For models that do not reason.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
    /// For reasoning models, which reject `max_tokens`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_completion_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning_effort: Option<&'static str>,
    /// `--json-schema`: `{"type": "json_schema", "json_schema": {name, schema, strict}}` (API
    /// reference: "Create chat completion", `response_format`). OpenAI-compatible servers that
    /// take it (vLLM, llama.cpp, Ollama's `/v1`) use the same shape.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_format: Option<ResponseFormat>,
}

/// `response_format`.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ResponseFormat {
    JsonSchema { json_schema: JsonSchemaFormat },
}

/// `response_format.json_schema`.
#[derive(Debug, Serialize)]
pub struct JsonSchemaFormat {
    pub name: String,
    pub schema: Value,
    pub strict: bool,
}

/// `stream_options`.
#[derive(Debug, Serialize)]
pub struct StreamOptions {
    pub include_usage: bool,
}

/// One message, tagged by `role`.
#[derive(Debug, Serialize)]
#[serde(tag = "role")]
pub enum ChatMessage {
    #[serde(rename = "system")]
    System { content: String },
    #[serde(rename = "user")]
    User { content: UserContent },
    /// `content` is left out when the turn only calls tools.
    #[serde(rename = "assistant")]
    Assistant {
        #[serde(skip_serializing_if = "Option::is_none")]
        content: Option<String>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ChatToolCall>,
    },
    #[serde(rename = "tool")]
    Tool {
        tool_call_id: String,
        content: String,
    },
}

/// User content: a string, or parts when there are images.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum UserContent {
    Text(String),
    Parts(Vec<ContentPart>),
}

/// A part of user content.
#[derive(Debug, Serialize)]
#[serde(tag = "type")]
pub enum ContentPart {
    #[serde(rename = "text")]
    Text { text: String },
    #[serde(rename = "image_url")]
    ImageUrl { image_url: ImageUrl },
}

/// `{"url": "data:image/png;base64,…"}`.
#[derive(Debug, Serialize)]
pub struct ImageUrl {
    pub url: String,
}

/// `{"id","type":"function","function":{"name","arguments"}}` with `arguments` as JSON text.
#[derive(Debug, Serialize)]
pub struct ChatToolCall {
    pub id: String,
    #[serde(rename = "type")]
    pub call_type: &'static str,
    pub function: FunctionCall,
}

/// The function of a tool call.
#[derive(Debug, Serialize)]
pub struct FunctionCall {
    pub name: String,
    pub arguments: String,
}

/// `{"type":"function","function":{"name","description","parameters"}}`.
#[derive(Debug, Serialize)]
pub struct ChatTool {
    #[serde(rename = "type")]
    pub tool_type: &'static str,
    pub function: FunctionDefinition,
}

/// A tool's declaration.
#[derive(Debug, Serialize)]
pub struct FunctionDefinition {
    pub name: String,
    pub description: String,
    pub parameters: Value,
}

// ---------------------------------------------------------------------------------------------
// Stream (reference §2.3, §5)

/// One `chat.completion.chunk`, or an error payload (`{"error":{…}}`, reference §2.5).
#[derive(Debug, Deserialize)]
pub struct Chunk {
    pub id: Option<String>,
    pub model: Option<String>,
    #[serde(default)]
    pub choices: Vec<Choice>,
    /// `null` on every chunk but the usage chunk (some servers put it on the finish chunk).
    pub usage: Option<ChunkUsage>,
    pub error: Option<ErrorField>,
}

/// A choice of a chunk (pincer asks for one).
#[derive(Debug, Deserialize)]
pub struct Choice {
    pub delta: Option<Delta>,
    pub finish_reason: Option<String>,
}

/// What a chunk adds.
#[derive(Debug, Default, Deserialize)]
pub struct Delta {
    pub content: Option<String>,
    /// llama.cpp, vLLM, DeepSeek.
    pub reasoning_content: Option<String>,
    /// Ollama, newer vLLM, OpenRouter.
    pub reasoning: Option<String>,
    pub refusal: Option<String>,
    pub tool_calls: Option<Vec<ToolCallDelta>>,
}

/// A tool call fragment: the first one of a call has `id` and `function.name`.
#[derive(Debug, Deserialize)]
pub struct ToolCallDelta {
    /// Missing on some servers that send each call whole.
    pub index: Option<usize>,
    pub id: Option<String>,
    pub function: Option<FunctionDelta>,
}

/// `function` of a fragment.
#[derive(Debug, Deserialize)]
pub struct FunctionDelta {
    pub name: Option<String>,
    pub arguments: Option<String>,
}

/// `usage` (reference §2.4).
#[derive(Debug, Deserialize)]
pub struct ChunkUsage {
    #[serde(default)]
    pub prompt_tokens: u64,
    #[serde(default)]
    pub completion_tokens: u64,
    pub prompt_tokens_details: Option<PromptTokensDetails>,
    pub completion_tokens_details: Option<CompletionTokensDetails>,
}

/// `prompt_tokens_details`.
#[derive(Debug, Deserialize)]
pub struct PromptTokensDetails {
    #[serde(default)]
    pub cached_tokens: u64,
    /// 2026: prompt tokens written to the cache by this call.
    #[serde(default)]
    pub cache_write_tokens: u64,
}

/// `completion_tokens_details`.
#[derive(Debug, Deserialize)]
pub struct CompletionTokensDetails {
    #[serde(default)]
    pub reasoning_tokens: u64,
}
