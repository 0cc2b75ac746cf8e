//! Gemini `streamGenerateContent?alt=sse` responses, byte for byte as the API writes them
//! (`shared/reference/provider-wire-formats.md` §4, after the SSE recordings in
//! `pydantic/pydantic-ai:tests/models/cassettes/test_google/*.yaml`):
//!
//! - every event is `data: {…}\r\n\r\n` (CRLF), with no `event:` line and no `[DONE]`;
//! - the JSON puts a space after each key's colon and none after commas
//!   (`{"text": "Hi","thought": true}`), members in the API's order;
//! - each chunk is a full `GenerateContentResponse` ending with `usageMetadata` (running values),
//!   `modelVersion` and `responseId`; the last one carries `finishReason`.
//!
//! Error bodies are returned as values for `Reply::json` (Google pretty-prints them; the layout
//! does not matter to a JSON parser).

use serde_json::{Map, Value, json};

/// The model in text and cached streams.
pub const FLASH: &str = "gemini-2.5-flash";
/// The model in thinking streams.
pub const PRO: &str = "gemini-2.5-pro";
/// The model in function-call streams (Gemini 3 signs the first call of a step).
pub const GEMINI_3: &str = "gemini-3-pro-preview";
/// `responseId` of every stream built here.
pub const RESPONSE_ID: &str = "xRs3aePZLd2hz7IPq4TmmQc";
/// The `thoughtSignature` that [`thinking_stream`] puts on its text part.
pub const TEXT_SIGNATURE: &str =
    "CiIBcsjafB5pBPlk6XhwgGfjx2cGJ0XGpv1oKn3m0lZ7Yq8KZwFyyNp8r0wD9lJ1Yz3k";

/// Token counts of a response as Gemini reports them: `prompt_total` includes `cached`
/// (`promptTokenCount` ⊇ `cachedContentTokenCount`), and `candidates` excludes `thoughts`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage4 {
    /// `promptTokenCount`: the whole prompt, cached part included.
    pub prompt_total: u64,
    /// `cachedContentTokenCount`.
    pub cached: u64,
    /// `candidatesTokenCount`: visible output.
    pub candidates: u64,
    /// `thoughtsTokenCount`: reasoning output.
    pub thoughts: u64,
}

impl Usage4 {
    /// Counts in wire terms.
    pub fn new(prompt_total: u64, cached: u64, candidates: u64, thoughts: u64) -> Usage4 {
        Usage4 {
            prompt_total,
            cached,
            candidates,
            thoughts,
        }
    }

    /// What pincer must store, in `SessionBuilder::assistant` order:
    /// `[input, output, cache_read, cache_write]` (SPEC §8).
    pub fn normalized(&self) -> [u64; 4] {
        [
            self.prompt_total - self.cached,
            self.candidates + self.thoughts,
            self.cached,
            0,
        ]
    }

    /// `usageMetadata` with `candidates` and `thoughts` generated so far, in the API's member
    /// order; zero counts are left out as the API does.
    fn metadata(&self, candidates: u64, thoughts: u64) -> Value {
        let mut metadata = Map::new();
        metadata.insert("promptTokenCount".into(), json!(self.prompt_total));
        if candidates > 0 {
            metadata.insert("candidatesTokenCount".into(), json!(candidates));
        }
        metadata.insert(
            "totalTokenCount".into(),
            json!(self.prompt_total + candidates + thoughts),
        );
        if self.cached > 0 {
            metadata.insert("cachedContentTokenCount".into(), json!(self.cached));
        }
        metadata.insert(
            "promptTokensDetails".into(),
            json!([{"modality": "TEXT", "tokenCount": self.prompt_total}]),
        );
        if self.cached > 0 {
            metadata.insert(
                "cacheTokensDetails".into(),
                json!([{"modality": "TEXT", "tokenCount": self.cached}]),
            );
        }
        if thoughts > 0 {
            metadata.insert("thoughtsTokenCount".into(), json!(thoughts));
        }
        Value::Object(metadata)
    }
}

/// Write `value` the way the Gemini API does on SSE: `"key": value`, members joined by `,`.
pub fn google_json(value: &Value) -> String {
    match value {
        Value::Object(members) => {
            let members: Vec<String> = members
                .iter()
                .map(|(key, value)| {
                    format!("{}: {}", Value::from(key.as_str()), google_json(value))
                })
                .collect();
            format!("{{{}}}", members.join(","))
        }
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(google_json).collect();
            format!("[{}]", items.join(","))
        }
        other => other.to_string(),
    }
}

/// One SSE event carrying `chunk`, CRLF-framed.
pub fn event(chunk: &Value) -> Vec<u8> {
    format!("data: {}\r\n\r\n", google_json(chunk)).into_bytes()
}

/// A chunk with one candidate holding `parts` (and `finishReason` when given).
fn chunk(parts: Vec<Value>, finish_reason: Option<&str>, usage: Value, model: &str) -> Value {
    let mut candidate = Map::new();
    candidate.insert("content".into(), json!({"parts": parts, "role": "model"}));
    if let Some(reason) = finish_reason {
        candidate.insert("finishReason".into(), json!(reason));
    }
    candidate.insert("index".into(), json!(0));
    json!({
        "candidates": [candidate],
        "usageMetadata": usage,
        "modelVersion": model,
        "responseId": RESPONSE_ID
    })
}

/// Candidate tokens after chunk `index` of `count`: growing, reaching `total` on the last.
fn running(total: u64, index: usize, count: usize) -> u64 {
    (total * (index as u64 + 1)).div_ceil(count as u64)
}

/// A `gemini-2.5-flash` answer streamed as `chunks` (one text part each), ending with `STOP`
/// on the last chunk.
pub fn text_stream(chunks: &[&str], usage: Usage4) -> Vec<u8> {
    text_stream_ending(chunks, usage, "STOP")
}

/// [`text_stream`] ending with another `finishReason` (`MAX_TOKENS`, `RECITATION`, …).
pub fn text_stream_ending(chunks: &[&str], usage: Usage4, finish_reason: &str) -> Vec<u8> {
    let count = chunks.len();
    chunks
        .iter()
        .enumerate()
        .flat_map(|(index, text)| {
            let last = index + 1 == count;
            event(&chunk(
                vec![json!({"text": text})],
                last.then_some(finish_reason),
                usage.metadata(running(usage.candidates, index, count), usage.thoughts),
                FLASH,
            ))
        })
        .collect()
}

/// A `gemini-2.5-flash` answer grounded with Google Search (docs: "Grounding with Google
/// Search"): `chunks` of text, the last chunk carrying `STOP` and the `groundingMetadata` —
/// `webSearchQueries`, a `searchEntryPoint`, one `groundingChunks` entry per `(uri, title)` of
/// `pages`, and one `groundingSupports` entry per `(text, chunk indices)` of `supports` — and
/// `toolUsePromptTokenCount` for the search results read.
pub fn grounded_stream(
    chunks: &[&str],
    queries: &[&str],
    pages: &[(&str, &str)],
    supports: &[(&str, &[usize])],
    usage: Usage4,
) -> Vec<u8> {
    let count = chunks.len();
    let mut stream = Vec::new();
    for (index, text) in chunks.iter().enumerate() {
        let last = index + 1 == count;
        let mut value = chunk(
            vec![json!({"text": text})],
            last.then_some("STOP"),
            usage.metadata(running(usage.candidates, index, count), usage.thoughts),
            FLASH,
        );
        if last {
            let mut offset = 0;
            let supports: Vec<Value> = supports
                .iter()
                .map(|(text, indices)| {
                    let segment = json!({"startIndex": offset, "endIndex": offset + text.len(), "text": text});
                    offset += text.len();
                    json!({"segment": segment, "groundingChunkIndices": indices})
                })
                .collect();
            value["candidates"][0]["groundingMetadata"] = json!({
                "searchEntryPoint": {"renderedContent": "<style>.container{}</style><div class=\"container\"></div>"},
                "groundingChunks": pages.iter().map(|(uri, title)| json!({"web": {"uri": uri, "title": title}})).collect::<Vec<_>>(),
                "groundingSupports": supports,
                "webSearchQueries": queries
            });
            value["usageMetadata"]["toolUsePromptTokenCount"] = json!(96);
        }
        stream.extend(event(&value));
    }
    stream
}

/// A Gemini 3 function-calling step: one chunk with every call (`thought_signature` on the
/// first one only, none when empty), then an empty text part with `STOP`.
pub fn function_call_stream(
    calls: &[(&str, Value)],
    thought_signature: &str,
    usage: Usage4,
) -> Vec<u8> {
    let parts = calls
        .iter()
        .enumerate()
        .map(|(index, (name, args))| {
            let mut part = Map::new();
            part.insert("functionCall".into(), json!({"name": name, "args": args}));
            if index == 0 && !thought_signature.is_empty() {
                part.insert("thoughtSignature".into(), json!(thought_signature));
            }
            Value::Object(part)
        })
        .collect();
    let metadata = usage.metadata(usage.candidates, usage.thoughts);
    let mut stream = event(&chunk(parts, None, metadata.clone(), GEMINI_3));
    stream.extend(event(&chunk(
        vec![json!({"text": ""})],
        Some("STOP"),
        metadata,
        GEMINI_3,
    )));
    stream
}

/// A `gemini-2.5-pro` answer with thought summaries: one `thought: true` part, then `text`
/// whose part carries [`TEXT_SIGNATURE`], with `STOP`.
pub fn thinking_stream(thought: &str, text: &str, usage: Usage4) -> Vec<u8> {
    let mut stream = event(&chunk(
        vec![json!({"text": thought, "thought": true})],
        None,
        usage.metadata(0, usage.thoughts),
        PRO,
    ));
    stream.extend(event(&chunk(
        vec![json!({"text": text, "thoughtSignature": TEXT_SIGNATURE})],
        Some("STOP"),
        usage.metadata(usage.candidates, usage.thoughts),
        PRO,
    )));
    stream
}

/// Thoughts that used up the output limit: one `thought: true` part, no text, `MAX_TOKENS`.
pub fn thinking_cut_stream(thought: &str, usage: Usage4) -> Vec<u8> {
    event(&chunk(
        vec![json!({"text": thought, "thought": true})],
        Some("MAX_TOKENS"),
        usage.metadata(usage.candidates, usage.thoughts),
        PRO,
    ))
}

/// Output cut by the safety filter: `text`, then a content-less chunk with `finishReason:
/// SAFETY` and the ratings that blocked it.
pub fn safety_stream(text: &str, usage: Usage4) -> Vec<u8> {
    let metadata = usage.metadata(usage.candidates, usage.thoughts);
    let mut stream = event(&chunk(
        vec![json!({"text": text})],
        None,
        metadata.clone(),
        FLASH,
    ));
    stream.extend(event(&json!({
        "candidates": [{
            "finishReason": "SAFETY",
            "index": 0,
            "safetyRatings": [
                {"category": "HARM_CATEGORY_SEXUALLY_EXPLICIT", "probability": "NEGLIGIBLE"},
                {"category": "HARM_CATEGORY_HATE_SPEECH", "probability": "NEGLIGIBLE"},
                {"category": "HARM_CATEGORY_HARASSMENT", "probability": "NEGLIGIBLE"},
                {"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "HIGH", "blocked": true}
            ]
        }],
        "usageMetadata": metadata,
        "modelVersion": FLASH,
        "responseId": RESPONSE_ID
    })));
    stream
}

/// The prompt itself blocked (`SAFETY`, `PROHIBITED_CONTENT`, …): one chunk, no candidates.
pub fn prompt_blocked_stream(block_reason: &str, prompt_tokens: u64) -> Vec<u8> {
    event(&json!({
        "promptFeedback": {"blockReason": block_reason},
        "usageMetadata": Usage4::new(prompt_tokens, 0, 0, 0).metadata(0, 0),
        "modelVersion": FLASH,
        "responseId": RESPONSE_ID
    }))
}

/// An error payload in the middle of a 200 stream (`data: {"error": {…}}`), e.g. after a
/// [`text_stream`] prefix cut before its last chunk.
pub fn error_event(code: u16, status: &str, message: &str) -> Vec<u8> {
    event(&error_body(code, status, message))
}

/// The error envelope of an HTTP error: `{"error": {"code", "message", "status"}}`.
pub fn error_body(code: u16, status: &str, message: &str) -> Value {
    json!({"error": {"code": code, "message": message, "status": status}})
}

/// The 429 with `QuotaFailure` and `RetryInfo` details
/// (`vercel/ai:packages/google/src/__fixtures__/google-429-retry-info.json`); `retry_delay` is a
/// protobuf duration such as `"34.4s"`.
pub fn quota_error_body(retry_delay: &str) -> Value {
    json!({"error": {
        "code": 429,
        "message": "You exceeded your current quota, please check your plan.",
        "status": "RESOURCE_EXHAUSTED",
        "details": [
            {
                "@type": "type.googleapis.com/google.rpc.QuotaFailure",
                "violations": [{"quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier"}]
            },
            {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": retry_delay}
        ]
    }})
}

/// The 400 (not 401) Gemini answers to a bad key, with its `ErrorInfo` reason.
pub fn api_key_invalid_body() -> Value {
    json!({"error": {
        "code": 400,
        "message": "API key not valid. Please pass a valid API key.",
        "status": "INVALID_ARGUMENT",
        "details": [
            {
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                "reason": "API_KEY_INVALID",
                "domain": "googleapis.com",
                "metadata": {"service": "generativelanguage.googleapis.com"}
            },
            {
                "@type": "type.googleapis.com/google.rpc.LocalizedMessage",
                "locale": "en-US",
                "message": "API key not valid. Please pass a valid API key."
            }
        ]
    }})
}

#[cfg(test)]
mod tests {
    use super::*;
    use pincer::conversation::{AssistantMessage, StopReason};
    use pincer::provider::gemini::stream::{Parser, parse_error_body};
    use pincer::provider::sse::SseDecoder;
    use pincer::provider::{Accumulator, StreamParser};

    /// Run `stream` through pincer's decoder and Gemini parser, in `size`-byte pieces.
    fn accumulate(stream: &[u8], size: usize) -> (AssistantMessage, bool) {
        let mut decoder = SseDecoder::new();
        let mut parser = Parser::new();
        let mut accumulator = Accumulator::new();
        for piece in stream.chunks(size) {
            for sse in decoder.feed(piece) {
                for neutral in parser.on_event(&sse).unwrap() {
                    accumulator.apply(&neutral);
                }
            }
        }
        let message = accumulator.message("google-generative-ai", "google", FLASH, 0, None);
        (message, parser.is_finished())
    }

    #[test]
    fn google_json_puts_a_space_after_colons_and_none_after_commas() {
        assert_eq!(
            google_json(
                &json!({"parts": [{"text": "a\"b", "thought": true}], "args": {}, "n": [1, 2]})
            ),
            r#"{"parts": [{"text": "a\"b","thought": true}],"args": {},"n": [1,2]}"#
        );
    }

    #[test]
    fn a_text_stream_is_crlf_framed_and_parses_into_the_text_and_normalized_usage() {
        let usage = Usage4::new(120, 100, 7, 5);
        let stream = text_stream(&["Hel", "lo", " there"], usage);
        let text = String::from_utf8(stream.clone()).unwrap();
        assert_eq!(text.matches("\r\n\r\n").count(), 3);
        assert!(text.starts_with("data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"Hel\"}],\"role\": \"model\"},\"index\": 0}],\"usageMetadata\": {\"promptTokenCount\": 120,\"candidatesTokenCount\": 3,"));
        assert!(text.ends_with("\"modelVersion\": \"gemini-2.5-flash\",\"responseId\": \"xRs3aePZLd2hz7IPq4TmmQc\"}\r\n\r\n"));
        for size in [1, 5, stream.len()] {
            let (message, finished) = accumulate(&stream, size);
            assert!(finished);
            assert_eq!(message.stop_reason, StopReason::Stop);
            let usage_stored = [
                message.usage.input,
                message.usage.output,
                message.usage.cache_read,
                message.usage.cache_write,
            ];
            assert_eq!(usage_stored, usage.normalized());
            assert_eq!(usage_stored, [20, 12, 100, 0]);
            assert_eq!(
                serde_json::to_value(
                    pincer::session::record::AssistantMessage::from(&message).content
                )
                .unwrap(),
                json!([{"type": "text", "text": "Hello there"}])
            );
        }
    }

    #[test]
    fn a_function_call_stream_signs_only_its_first_call() {
        let stream = function_call_stream(
            &[("read", json!({"path": "a.txt"})), ("ls", json!({}))],
            "Et0BCtoB",
            Usage4::new(50, 0, 12, 30),
        );
        let (message, finished) = accumulate(&stream, 7);
        assert!(finished);
        assert_eq!(message.stop_reason, StopReason::ToolUse);
        let content =
            serde_json::to_value(pincer::session::record::AssistantMessage::from(&message).content)
                .unwrap();
        assert_eq!(content[0]["name"], "read");
        assert_eq!(content[0]["arguments"], json!({"path": "a.txt"}));
        assert_eq!(content[0]["thoughtSignature"], "Et0BCtoB");
        assert_eq!(content[1]["name"], "ls");
        assert_eq!(content[1].get("thoughtSignature"), None);
        assert_eq!(message.usage.output, 42);
    }

    #[test]
    fn a_thinking_stream_gives_a_thinking_block_then_signed_text() {
        let stream = thinking_stream("Think first.", "Answer.", Usage4::new(10, 0, 2, 40));
        let (message, _) = accumulate(&stream, 3);
        assert_eq!(
            serde_json::to_value(pincer::session::record::AssistantMessage::from(&message).content)
                .unwrap(),
            json!([
                {"type": "thinking", "thinking": "Think first."},
                {"type": "text", "text": "Answer.", "textSignature": TEXT_SIGNATURE}
            ])
        );
    }

    #[test]
    fn safety_and_blocked_prompt_streams_end_as_the_parser_expects() {
        let (message, finished) = accumulate(&safety_stream("Partial", Usage4::new(9, 0, 2, 0)), 4);
        assert!(finished);
        assert_eq!(message.stop_reason, StopReason::Error);

        let mut decoder = SseDecoder::new();
        let events = decoder.feed(&prompt_blocked_stream("SAFETY", 12));
        let error = Parser::new().on_event(&events[0]).unwrap_err();
        assert_eq!(error.details().unwrap().code.as_deref(), Some("SAFETY"));

        let events = decoder.feed(&error_event(503, "UNAVAILABLE", "The model is overloaded."));
        let error = Parser::new().on_event(&events[0]).unwrap_err();
        assert_eq!(
            error.details().unwrap().error_type.as_deref(),
            Some("UNAVAILABLE")
        );
    }

    #[test]
    fn error_bodies_carry_status_reason_and_retry_delay() {
        let quota = parse_error_body(429, &quota_error_body("34.4s").to_string());
        assert_eq!(quota.error_type.as_deref(), Some("RESOURCE_EXHAUSTED"));
        assert_eq!(
            quota.retry_delay,
            Some(std::time::Duration::from_millis(34_400))
        );
        let key = parse_error_body(400, &api_key_invalid_body().to_string());
        assert_eq!(key.code.as_deref(), Some("API_KEY_INVALID"));
        let plain = parse_error_body(
            404,
            &error_body(404, "NOT_FOUND", "models/x is not found").to_string(),
        );
        assert_eq!(plain.error_type.as_deref(), Some("NOT_FOUND"));
        assert_eq!(plain.message, "models/x is not found");
    }
}
