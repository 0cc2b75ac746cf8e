//! OpenAI Chat Completions streams and error bodies, byte for byte (reference §2, §5): each event
//! is `data: {chunk}` with no `event:` line; the first delta carries only the role; finish is a
//! chunk with an empty delta and `finish_reason`; with `stream_options.include_usage` a separate
//! chunk with `"choices":[]` carries usage; the stream ends with `data: [DONE]`.
//!
//! OpenAI's own chunks come from [`text_stream`] and friends; llama.cpp's (keys in its insertion
//! order, the GGUF path as model, `timings` in the usage chunk, `reasoning_content` deltas, the
//! `error:` field) from [`reasoning_stream`] and [`llamacpp_error_field_stream`].
//!
//! Self-contained (serde_json only) so that the parser's unit tests can include it as well.

use serde_json::{Value, json};

/// Usage as the wire reports it: `input_total` (`prompt_tokens`) includes `cached`, `output`
/// (`completion_tokens`) includes `reasoning`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage4 {
    pub input_total: u64,
    pub cached: u64,
    pub output: u64,
    pub reasoning: u64,
}

/// The completion id of OpenAI streams.
pub const COMPLETION_ID: &str = "chatcmpl-CF3kVq8xYb2NwR7tLm0aPz4sD9uEh";
/// The model OpenAI streams report.
pub const MODEL: &str = "gpt-4o-mini-2024-07-18";
/// The completion id of llama.cpp streams.
pub const LLAMACPP_ID: &str = "chatcmpl-Xq4TbW9nLc2Rm8VhJf0sKd7Pz3GyAe1u";
/// The model llama.cpp streams report: the GGUF path.
pub const LLAMACPP_MODEL: &str = "/models/Qwen3-0.6B-Q8_0.gguf";

/// A plain answer streamed in `chunks`.
pub fn text_stream(chunks: &[&str], usage: Usage4) -> Vec<u8> {
    text_stream_ending(chunks, usage, "stop")
}

/// [`text_stream`] with another `finish_reason` (`length`, `content_filter`, …).
pub fn text_stream_ending(chunks: &[&str], usage: Usage4, finish_reason: &str) -> Vec<u8> {
    let mut writer = OpenAiWriter::default();
    writer.delta(
        json!({"role": "assistant", "content": "", "refusal": null}),
        None,
    );
    for chunk in chunks {
        writer.delta(json!({"content": chunk}), None);
    }
    writer.delta(json!({}), Some(finish_reason));
    writer.usage(usage);
    writer.done();
    writer.out.into_bytes()
}

/// Optional text, then tool calls `(id, name, arguments_json)` at indexes 0, 1, …: the first
/// fragment of each carries id, type and name with empty arguments, the rest argument pieces.
pub fn tool_call_stream(
    text: Option<&str>,
    calls: &[(&str, &str, &str)],
    usage: Usage4,
) -> Vec<u8> {
    let mut writer = OpenAiWriter::default();
    match text {
        Some(text) => {
            writer.delta(
                json!({"role": "assistant", "content": "", "refusal": null}),
                None,
            );
            for piece in fragments(text, 6) {
                writer.delta(json!({"content": piece}), None);
            }
        }
        None => writer.delta(
            json!({"role": "assistant", "content": null, "refusal": null}),
            None,
        ),
    }
    for (index, (id, name, arguments)) in calls.iter().enumerate() {
        writer.delta(
            json!({"tool_calls": [{"index": index, "id": id, "type": "function",
                "function": {"name": name, "arguments": ""}}]}),
            None,
        );
        for piece in fragments(arguments, 5) {
            writer.delta(
                json!({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}),
                None,
            );
        }
    }
    writer.delta(json!({}), Some("tool_calls"));
    writer.usage(usage);
    writer.done();
    writer.out.into_bytes()
}

/// llama.cpp with a reasoning model: `reasoning_content` deltas, then `content` deltas, the
/// finish chunk, the usage chunk with `timings` and `cached_tokens`, `[DONE]`.
pub fn reasoning_stream(reasoning: &[&str], text: &[&str], usage: Usage4) -> Vec<u8> {
    let mut writer = LlamaCppWriter::default();
    writer.delta(json!({"role": "assistant", "content": null}), None);
    for piece in reasoning {
        writer.delta(json!({"reasoning_content": piece}), None);
    }
    for piece in text {
        writer.delta(json!({"content": piece}), None);
    }
    writer.delta(json!({}), Some("stop"));
    writer.usage(usage);
    writer.out.push_str("data: [DONE]\n\n");
    writer.out.into_bytes()
}

/// Ollama's `/v1` with a thinking model: reasoning in `delta.reasoning`, then text.
pub fn ollama_reasoning_stream(reasoning: &[&str], text: &[&str], usage: Usage4) -> Vec<u8> {
    let mut out = String::new();
    let chunk = |delta: Value, finish: Option<&str>| {
        json!({"id": "chatcmpl-417", "object": "chat.completion.chunk", "created": 1_757_500_000,
            "model": "qwen3:0.6b", "system_fingerprint": "fp_ollama",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    for piece in reasoning {
        let data = chunk(
            json!({"role": "assistant", "content": "", "reasoning": piece}),
            None,
        );
        out.push_str(&format!("data: {data}\n\n"));
    }
    for piece in text {
        let data = chunk(json!({"role": "assistant", "content": piece}), None);
        out.push_str(&format!("data: {data}\n\n"));
    }
    let data = chunk(json!({"role": "assistant", "content": ""}), Some("stop"));
    out.push_str(&format!("data: {data}\n\n"));
    let data = json!({"id": "chatcmpl-417", "object": "chat.completion.chunk", "created": 1_757_500_000,
        "model": "qwen3:0.6b", "system_fingerprint": "fp_ollama", "choices": [],
        "usage": {"prompt_tokens": usage.input_total, "completion_tokens": usage.output,
            "total_tokens": usage.input_total + usage.output}});
    out.push_str(&format!("data: {data}\n\ndata: [DONE]\n\n"));
    out.into_bytes()
}

/// Text, then an OpenAI mid-stream error: `data: {"error":{…}}` and the connection ends.
pub fn error_chunk_stream(text: &str, error_type: &str, code: &str, message: &str) -> Vec<u8> {
    let mut writer = OpenAiWriter::default();
    writer.delta(
        json!({"role": "assistant", "content": "", "refusal": null}),
        None,
    );
    writer.delta(json!({"content": text}), None);
    let error = error_envelope(error_type, Some(code), message, None);
    writer.out.push_str(&format!("data: {error}\n\n"));
    writer.out.into_bytes()
}

/// llama.cpp's mid-stream failure: a non-standard `error:` SSE field, then `data: [DONE]`.
pub fn llamacpp_error_field_stream(text: &str, message: &str) -> Vec<u8> {
    let mut writer = LlamaCppWriter::default();
    writer.delta(json!({"role": "assistant", "content": null}), None);
    writer.delta(json!({"content": text}), None);
    let error = json!({"code": 500, "message": message, "type": "server_error"});
    writer
        .out
        .push_str(&format!("error: {error}\n\ndata: [DONE]\n\n"));
    writer.out.into_bytes()
}

/// The standard error envelope (OpenAI, Ollama).
pub fn error_envelope(
    error_type: &str,
    code: Option<&str>,
    message: &str,
    param: Option<&str>,
) -> Value {
    json!({"error": {"message": message, "type": error_type, "param": param, "code": code}})
}

/// A realistic OpenAI error body for `status` (reference §2.5): 400 context overflow, 401 bad key,
/// 404 unknown model, 429 rate limit (with a `try again in` delay), anything else a server error.
pub fn error_body(status: u16) -> Value {
    match status {
        400 => error_envelope(
            "invalid_request_error",
            Some("context_length_exceeded"),
            "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens. Please reduce the length of the messages.",
            Some("messages"),
        ),
        401 => error_envelope(
            "invalid_request_error",
            Some("invalid_api_key"),
            "Incorrect API key provided: sk-inval**************-key. You can find your API key at https://platform.openai.com/account/api-keys.",
            None,
        ),
        404 => error_envelope(
            "invalid_request_error",
            Some("model_not_found"),
            "The model `gpt-9-nonexistent` does not exist or you do not have access to it.",
            None,
        ),
        429 => error_envelope(
            "tokens",
            Some("rate_limit_exceeded"),
            "Rate limit reached for gpt-4o in organization org-Xb3kP0qR7sT2uV9w on tokens per min (TPM): Limit 30000, Used 29937, Requested 385. Please try again in 644ms. Visit https://platform.openai.com/account/rate-limits to learn more.",
            None,
        ),
        _ => error_envelope(
            "server_error",
            None,
            "The server had an error while processing your request. Sorry about that!",
            None,
        ),
    }
}

/// llama.cpp's context overflow (HTTP 400, even for streaming requests).
pub fn llamacpp_context_error_body() -> Value {
    json!({"error": {"code": 400, "message": "request (2009 tokens) exceeds the available context size (512 tokens), try increasing it",
        "type": "exceed_context_size_error", "n_prompt_tokens": 2009, "n_ctx": 512}})
}

/// vLLM's flat error body (older versions, still common).
pub fn vllm_error_body() -> Value {
    json!({"object": "error", "message": "This model's maximum context length is 32768 tokens. However, you requested 41648 tokens (37552 in the messages, 4096 in the completion). Please reduce the length of the messages or completion.",
        "type": "BadRequestError", "param": null, "code": 400})
}

/// Ollama's unknown model (HTTP 404).
pub fn ollama_model_not_found_body(model: &str) -> Value {
    error_envelope(
        "not_found_error",
        None,
        &format!("model \"{model}\" not found, try pulling it first"),
        None,
    )
}

// ---------------------------------------------------------------------------------------------

/// OpenAI's chunk layout, with the 2026 `obfuscation` field.
#[derive(Default)]
struct OpenAiWriter {
    out: String,
    count: usize,
}

impl OpenAiWriter {
    fn chunk(&mut self, choices: Value, usage: Value) {
        const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        let obfuscation: String = (0..(3 + self.count * 5 % 11))
            .map(|position| ALPHABET[(self.count * 13 + position * 7) % ALPHABET.len()] as char)
            .collect();
        self.count += 1;
        let data = json!({"id": COMPLETION_ID, "object": "chat.completion.chunk",
            "created": 1_757_500_000, "model": MODEL, "service_tier": "default",
            "system_fingerprint": "fp_560af6e559", "choices": choices, "usage": usage,
            "obfuscation": obfuscation});
        self.out.push_str(&format!("data: {data}\n\n"));
    }

    fn delta(&mut self, delta: Value, finish_reason: Option<&str>) {
        self.chunk(
            json!([{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish_reason}]),
            Value::Null,
        );
    }

    fn usage(&mut self, usage: Usage4) {
        self.chunk(
            json!([]),
            json!({"prompt_tokens": usage.input_total, "completion_tokens": usage.output,
                "total_tokens": usage.input_total + usage.output,
                "prompt_tokens_details": {"cached_tokens": usage.cached, "audio_tokens": 0},
                "completion_tokens_details": {"reasoning_tokens": usage.reasoning, "audio_tokens": 0,
                    "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0}}),
        );
    }

    fn done(&mut self) {
        self.out.push_str("data: [DONE]\n\n");
    }
}

/// llama.cpp's chunk layout (`server.cpp`: keys in insertion order, no `usage: null`).
#[derive(Default)]
struct LlamaCppWriter {
    out: String,
}

impl LlamaCppWriter {
    fn delta(&mut self, delta: Value, finish_reason: Option<&str>) {
        let data = json!({"choices": [{"finish_reason": finish_reason, "index": 0, "delta": delta}],
            "created": 1_757_500_000, "id": LLAMACPP_ID, "model": LLAMACPP_MODEL,
            "system_fingerprint": "b6097-9ac8bac4", "object": "chat.completion.chunk"});
        self.out.push_str(&format!("data: {data}\n\n"));
    }

    fn usage(&mut self, usage: Usage4) {
        let data = json!({"choices": [], "created": 1_757_500_000, "id": LLAMACPP_ID,
            "model": LLAMACPP_MODEL, "system_fingerprint": "b6097-9ac8bac4",
            "object": "chat.completion.chunk",
            "usage": {"completion_tokens": usage.output, "prompt_tokens": usage.input_total,
                "total_tokens": usage.input_total + usage.output,
                "prompt_tokens_details": {"cached_tokens": usage.cached}},
            "timings": {"cache_n": usage.cached, "prompt_n": usage.input_total - usage.cached,
                "prompt_ms": 21.418, "prompt_per_token_ms": 21.418, "prompt_per_second": 46.69,
                "predicted_n": usage.output, "predicted_ms": 312.07,
                "predicted_per_token_ms": 9.752, "predicted_per_second": 102.54}});
        self.out.push_str(&format!("data: {data}\n\n"));
    }
}

/// `text` in pieces of about `size` bytes, split at character boundaries.
fn fragments(text: &str, size: usize) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut start = 0;
    while start < text.len() {
        let mut end = (start + size).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        pieces.push(&text[start..end]);
        start = end;
    }
    pieces
}
