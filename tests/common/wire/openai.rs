//! OpenAI Responses API streams and error bodies, byte for byte as the service sends them
//! (reference §3): every event is `event: <type>` + `data: {"type", "sequence_number", …}`, delta
//! events carry an `obfuscation` string, the response object repeats the request settings, and
//! usage arrives only in the terminal event. There is no `[DONE]`.
//!
//! Self-contained (serde_json only) so that the parser's unit tests can include it as well.

use serde_json::{Map, Value, json};

/// Usage as the wire reports it: `input_total` includes `cached`, `output` includes `reasoning`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage4 {
    pub input_total: u64,
    pub cached: u64,
    pub output: u64,
    pub reasoning: u64,
}

/// The response id every stream here uses.
pub const RESPONSE_ID: &str = "resp_0c4b2a9e6f1d83570068c1f2a4b5e08195a3d7c6e2b1f4a890";
/// The model the streams report.
pub const MODEL: &str = "gpt-5-2025-08-07";
/// The message item id.
pub const MESSAGE_ID: &str = "msg_0c4b2a9e6f1d83570068c1f2a7d6708195b2e4f1a3c5d7e9f0";
/// The reasoning item id.
pub const REASONING_ID: &str = "rs_0c4b2a9e6f1d83570068c1f2a5c3f48195bd0e27a6f3c18d42";
/// The encrypted reasoning payload of [`reasoning_stream`].
pub const ENCRYPTED_CONTENT: &str = "gAAAAABowfKlq3Vx9hT2mN8bE4rQ0sLzW6yJ1cXo5dPkAf7gHiUe_RtYn2MvBwZ3qSjKa8LpOx4CuDy9NmIl0Fh6TgEs1VbWr5Xz7Qk-enc==";

/// A plain answer streamed in `chunks`.
pub fn text_stream(chunks: &[&str], usage: Usage4) -> Vec<u8> {
    let mut writer = Writer::new();
    writer.start();
    let message = writer.message(0, chunks);
    writer.finish("completed", vec![message], usage, Value::Null, Value::Null);
    writer.into_bytes()
}

/// Optional text, then one `function_call` item per `(call_id, name, arguments_json)`, with the
/// arguments streamed in small fragments. Item ids are `fc_…`; the call ids are the ones given.
pub fn tool_call_stream(
    text: Option<&str>,
    calls: &[(&str, &str, &str)],
    usage: Usage4,
) -> Vec<u8> {
    let mut writer = Writer::new();
    writer.start();
    let mut output = Vec::new();
    if let Some(text) = text {
        output.push(writer.message(0, &[text]));
    }
    for (call_id, name, arguments) in calls {
        let index = output.len();
        output.push(writer.function_call(index, call_id, name, arguments));
    }
    writer.finish("completed", output, usage, Value::Null, Value::Null);
    writer.into_bytes()
}

/// A reasoning item (one summary part per entry of `summary`, then its encrypted content), then
/// the answer `text`.
pub fn reasoning_stream(summary: &[&str], text: &str, usage: Usage4) -> Vec<u8> {
    let mut writer = Writer::new();
    writer.start();
    let reasoning = writer.reasoning(0, summary);
    let message = writer.message(1, &[text]);
    writer.finish(
        "completed",
        vec![reasoning, message],
        usage,
        Value::Null,
        Value::Null,
    );
    writer.into_bytes()
}

/// The item id of the `n`-th `web_search_call` of [`web_search_stream`].
pub fn search_id(n: usize) -> String {
    format!("ws_0c4b2a9e6f1d83570068c1f2a6{n:02}e48195b7c1d0e9f8a7b6c5d4")
}

/// The `web_search_call` item as [`web_search_stream`] finishes it.
pub fn search_item(n: usize, query: &str, sources: &[&str]) -> Value {
    json!({
        "id": search_id(n),
        "type": "web_search_call",
        "status": "completed",
        "action": {
            "type": "search",
            "query": query,
            "sources": sources.iter().map(|url| json!({"type": "url", "url": url})).collect::<Vec<_>>()
        }
    })
}

/// A web search answer (docs: "Web search", Responses streaming events): one `web_search_call`
/// item per `(query, source urls)` (added, `in_progress`, `searching`, `completed`, done with its
/// action and sources), then `answer` with one `url_citation` per `(url, title)` of `citations`
/// (streamed as `response.output_text.annotation.added`, repeated in the finished item), then,
/// when `tool` is given, a `function_call` `(call_id, name, arguments_json)`.
pub fn web_search_stream(
    searches: &[(&str, &[&str])],
    answer: &str,
    citations: &[(&str, &str)],
    tool: Option<(&str, &str, &str)>,
    usage: Usage4,
) -> Vec<u8> {
    let mut writer = Writer::new();
    writer.start();
    let mut output = Vec::new();
    for (n, (query, sources)) in searches.iter().enumerate() {
        let index = output.len();
        output.push(writer.web_search_call(index, n, query, sources));
    }
    let index = output.len();
    output.push(writer.cited_message(index, answer, citations));
    if let Some((call_id, name, arguments)) = tool {
        let index = output.len();
        output.push(writer.function_call(index, call_id, name, arguments));
    }
    writer.finish("completed", output, usage, Value::Null, Value::Null);
    writer.into_bytes()
}

/// The reasoning item exactly as [`reasoning_stream`] finishes it (what pincer must echo back).
pub fn reasoning_item(summary: &[&str]) -> Value {
    json!({
        "id": REASONING_ID,
        "type": "reasoning",
        "encrypted_content": ENCRYPTED_CONTENT,
        "summary": summary.iter().map(|text| json!({"type": "summary_text", "text": text})).collect::<Vec<_>>(),
    })
}

/// Text cut off by `max_output_tokens`: ends with `response.incomplete`.
pub fn incomplete_stream(chunks: &[&str], usage: Usage4) -> Vec<u8> {
    let mut writer = Writer::new();
    writer.start();
    let message = writer.message_with_status(0, chunks, "incomplete");
    writer.finish(
        "incomplete",
        vec![message],
        usage,
        json!({"reason": "max_output_tokens"}),
        Value::Null,
    );
    writer.into_bytes()
}

/// A reasoning item that used up `max_output_tokens`: no message, `response.incomplete`.
pub fn reasoning_incomplete_stream(summary: &[&str], usage: Usage4) -> Vec<u8> {
    let mut writer = Writer::new();
    writer.start();
    let reasoning = writer.reasoning(0, summary);
    writer.finish(
        "incomplete",
        vec![reasoning],
        usage,
        json!({"reason": "max_output_tokens"}),
        Value::Null,
    );
    writer.into_bytes()
}

/// The stream of [`text_stream`] without its terminal event, as if the connection broke.
pub fn text_stream_without_terminal(chunks: &[&str]) -> Vec<u8> {
    let mut writer = Writer::new();
    writer.start();
    writer.message(0, chunks);
    writer.into_bytes()
}

/// A mid-stream failure as recorded: `response.created`, `response.in_progress`, an `error` event
/// with the nested error object, then `response.failed` with `error {code, message}`.
pub fn error_stream(error_type: &str, code: &str, message: &str) -> Vec<u8> {
    let mut writer = Writer::new();
    writer.start();
    writer.event(
        "error",
        json!({"error": {"type": error_type, "code": code, "message": message, "param": null}}),
    );
    let response = response_object(
        "failed",
        Vec::new(),
        None,
        Value::Null,
        json!({"code": code, "message": message}),
    );
    writer.event("response.failed", json!({"response": response}));
    writer.into_bytes()
}

/// The standard error envelope.
pub fn error_envelope(
    error_type: &str,
    code: Option<&str>,
    message: &str,
    param: Option<&str>,
) -> Value {
    json!({"error": {"message": message, "type": error_type, "param": param, "code": code}})
}

/// A realistic error body for `status` (reference §2.5, §3.5): 400 context overflow, 401 bad key,
/// 404 unknown model, 429 rate limit (with a `try again in` delay), 500 server error, 503
/// overloaded; anything else a generic server error.
pub fn error_body(status: u16) -> Value {
    match status {
        400 => error_envelope(
            "invalid_request_error",
            Some("context_length_exceeded"),
            "Your input exceeds the context window of this model. Please adjust your input and try again.",
            Some("input"),
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
            "Rate limit reached for gpt-5 in organization org-Xb3kP0qR7sT2uV9w on tokens per min (TPM): Limit 30000, Used 29937, Requested 385. Please try again in 644ms. Visit https://platform.openai.com/account/rate-limits to learn more.",
            None,
        ),
        503 => error_envelope(
            "server_error",
            Some("server_is_overloaded"),
            "The server is overloaded. Please try again later.",
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

/// The 429 body that must not be retried: the quota is used up.
pub fn insufficient_quota_body() -> Value {
    error_envelope(
        "insufficient_quota",
        Some("insufficient_quota"),
        "You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.",
        None,
    )
}

// ---------------------------------------------------------------------------------------------

struct Writer {
    out: String,
    sequence: u64,
}

impl Writer {
    fn new() -> Writer {
        Writer {
            out: String::new(),
            sequence: 0,
        }
    }

    fn into_bytes(self) -> Vec<u8> {
        self.out.into_bytes()
    }

    /// `event: kind` and `data: {"type": kind, "sequence_number": n, …fields}`.
    fn event(&mut self, kind: &str, fields: Value) {
        let mut data = Map::new();
        data.insert("type".into(), json!(kind));
        data.insert("sequence_number".into(), json!(self.sequence));
        if let Value::Object(fields) = fields {
            data.extend(fields);
        }
        self.sequence += 1;
        self.out
            .push_str(&format!("event: {kind}\ndata: {}\n\n", Value::Object(data)));
    }

    fn obfuscation(&self, delta: &str) -> String {
        // The service pads each delta event to a random length; the padding is noise.
        const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        let length = 16usize.saturating_sub(delta.len() % 16).max(3);
        (0..length)
            .map(|position| {
                let seed = self.sequence as usize * 31 + position * 7 + delta.len();
                ALPHABET[seed % ALPHABET.len()] as char
            })
            .collect()
    }

    fn start(&mut self) {
        let response = response_object("in_progress", Vec::new(), None, Value::Null, Value::Null);
        self.event("response.created", json!({"response": response.clone()}));
        self.event("response.in_progress", json!({"response": response}));
    }

    fn message(&mut self, index: usize, chunks: &[&str]) -> Value {
        self.message_with_status(index, chunks, "completed")
    }

    fn message_with_status(&mut self, index: usize, chunks: &[&str], status: &str) -> Value {
        self.event(
            "response.output_item.added",
            json!({"output_index": index, "item": {"id": MESSAGE_ID, "type": "message",
                "status": "in_progress", "content": [], "phase": "final_answer", "role": "assistant"}}),
        );
        self.event(
            "response.content_part.added",
            json!({"item_id": MESSAGE_ID, "output_index": index, "content_index": 0,
                "part": {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}}),
        );
        for chunk in chunks {
            let obfuscation = self.obfuscation(chunk);
            self.event(
                "response.output_text.delta",
                json!({"item_id": MESSAGE_ID, "output_index": index, "content_index": 0,
                    "delta": chunk, "logprobs": [], "obfuscation": obfuscation}),
            );
        }
        let text: String = chunks.concat();
        self.event(
            "response.output_text.done",
            json!({"item_id": MESSAGE_ID, "output_index": index, "content_index": 0,
                "text": text, "logprobs": []}),
        );
        let part = json!({"type": "output_text", "annotations": [], "logprobs": [], "text": text});
        self.event(
            "response.content_part.done",
            json!({"item_id": MESSAGE_ID, "output_index": index, "content_index": 0, "part": part}),
        );
        let item = json!({"id": MESSAGE_ID, "type": "message", "status": status,
            "content": [part], "phase": "final_answer", "role": "assistant"});
        self.event(
            "response.output_item.done",
            json!({"output_index": index, "item": item}),
        );
        item
    }

    fn web_search_call(&mut self, index: usize, n: usize, query: &str, sources: &[&str]) -> Value {
        let id = search_id(n);
        self.event(
            "response.output_item.added",
            json!({"output_index": index, "item": {"id": id, "type": "web_search_call", "status": "in_progress"}}),
        );
        for stage in ["in_progress", "searching", "completed"] {
            self.event(
                &format!("response.web_search_call.{stage}"),
                json!({"output_index": index, "item_id": id}),
            );
        }
        let item = search_item(n, query, sources);
        self.event(
            "response.output_item.done",
            json!({"output_index": index, "item": item}),
        );
        item
    }

    /// A message whose text carries `url_citation` annotations spanning the whole answer.
    fn cited_message(&mut self, index: usize, text: &str, citations: &[(&str, &str)]) -> Value {
        self.event(
            "response.output_item.added",
            json!({"output_index": index, "item": {"id": MESSAGE_ID, "type": "message",
                "status": "in_progress", "content": [], "role": "assistant"}}),
        );
        self.event(
            "response.content_part.added",
            json!({"item_id": MESSAGE_ID, "output_index": index, "content_index": 0,
                "part": {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}}),
        );
        for fragment in fragments(text, 7) {
            let obfuscation = self.obfuscation(fragment);
            self.event(
                "response.output_text.delta",
                json!({"item_id": MESSAGE_ID, "output_index": index, "content_index": 0,
                    "delta": fragment, "logprobs": [], "obfuscation": obfuscation}),
            );
        }
        let annotations: Vec<Value> = citations
            .iter()
            .map(|(url, title)| {
                json!({"type": "url_citation", "start_index": 0, "end_index": text.len(),
                    "title": title, "url": url})
            })
            .collect();
        for (annotation_index, annotation) in annotations.iter().enumerate() {
            self.event(
                "response.output_text.annotation.added",
                json!({"item_id": MESSAGE_ID, "output_index": index, "content_index": 0,
                    "annotation_index": annotation_index, "annotation": annotation}),
            );
        }
        self.event(
            "response.output_text.done",
            json!({"item_id": MESSAGE_ID, "output_index": index, "content_index": 0,
                "text": text, "logprobs": []}),
        );
        let part = json!({"type": "output_text", "annotations": annotations, "logprobs": [], "text": text});
        self.event(
            "response.content_part.done",
            json!({"item_id": MESSAGE_ID, "output_index": index, "content_index": 0, "part": part}),
        );
        let item = json!({"id": MESSAGE_ID, "type": "message", "status": "completed",
            "content": [part], "role": "assistant"});
        self.event(
            "response.output_item.done",
            json!({"output_index": index, "item": item}),
        );
        item
    }

    fn function_call(&mut self, index: usize, call_id: &str, name: &str, arguments: &str) -> Value {
        let item_id = format!("fc_0c4b2a9e6f1d83570068c1f2a8{index:02}d48195a6b3c2d1e0f9a8b7c6");
        self.event(
            "response.output_item.added",
            json!({"output_index": index, "item": {"id": item_id, "type": "function_call",
                "status": "in_progress", "arguments": "", "call_id": call_id, "name": name}}),
        );
        for fragment in fragments(arguments, 9) {
            let obfuscation = self.obfuscation(fragment);
            self.event(
                "response.function_call_arguments.delta",
                json!({"item_id": item_id, "output_index": index, "delta": fragment,
                    "obfuscation": obfuscation}),
            );
        }
        self.event(
            "response.function_call_arguments.done",
            json!({"item_id": item_id, "output_index": index, "arguments": arguments}),
        );
        let item = json!({"id": item_id, "type": "function_call", "status": "completed",
            "arguments": arguments, "call_id": call_id, "name": name});
        self.event(
            "response.output_item.done",
            json!({"output_index": index, "item": item}),
        );
        item
    }

    fn reasoning(&mut self, index: usize, summary: &[&str]) -> Value {
        self.event(
            "response.output_item.added",
            json!({"output_index": index, "item": {"id": REASONING_ID, "type": "reasoning", "summary": []}}),
        );
        for (summary_index, text) in summary.iter().enumerate() {
            self.event(
                "response.reasoning_summary_part.added",
                json!({"item_id": REASONING_ID, "output_index": index, "summary_index": summary_index,
                    "part": {"type": "summary_text", "text": ""}}),
            );
            for fragment in fragments(text, 12) {
                let obfuscation = self.obfuscation(fragment);
                self.event(
                    "response.reasoning_summary_text.delta",
                    json!({"item_id": REASONING_ID, "output_index": index,
                        "summary_index": summary_index, "delta": fragment, "obfuscation": obfuscation}),
                );
            }
            self.event(
                "response.reasoning_summary_text.done",
                json!({"item_id": REASONING_ID, "output_index": index,
                    "summary_index": summary_index, "text": text}),
            );
            self.event(
                "response.reasoning_summary_part.done",
                json!({"item_id": REASONING_ID, "output_index": index, "summary_index": summary_index,
                    "part": {"type": "summary_text", "text": text}}),
            );
        }
        let item = reasoning_item(summary);
        self.event(
            "response.output_item.done",
            json!({"output_index": index, "item": item}),
        );
        item
    }

    fn finish(
        &mut self,
        status: &str,
        output: Vec<Value>,
        usage: Usage4,
        incomplete_details: Value,
        error: Value,
    ) {
        let kind = format!("response.{status}");
        let response = response_object(status, output, Some(usage), incomplete_details, error);
        self.event(&kind, json!({"response": response}));
    }
}

/// The response object as the service repeats it in `response.created` and the terminal events.
fn response_object(
    status: &str,
    output: Vec<Value>,
    usage: Option<Usage4>,
    incomplete_details: Value,
    error: Value,
) -> Value {
    let usage = usage.map_or(Value::Null, |usage| {
        json!({
            "input_tokens": usage.input_total,
            "input_tokens_details": {"cached_tokens": usage.cached},
            "output_tokens": usage.output,
            "output_tokens_details": {"reasoning_tokens": usage.reasoning},
            "total_tokens": usage.input_total + usage.output,
        })
    });
    json!({
        "id": RESPONSE_ID,
        "object": "response",
        "created_at": 1_757_500_000,
        "status": status,
        "background": false,
        "error": error,
        "incomplete_details": incomplete_details,
        "instructions": null,
        "max_output_tokens": 32000,
        "max_tool_calls": null,
        "model": MODEL,
        "output": output,
        "parallel_tool_calls": true,
        "previous_response_id": null,
        "prompt_cache_key": null,
        "reasoning": {"effort": "low", "summary": "detailed"},
        "safety_identifier": null,
        "service_tier": "default",
        "store": false,
        "temperature": 1.0,
        "text": {"format": {"type": "text"}, "verbosity": "medium"},
        "tool_choice": "auto",
        "tools": [],
        "top_logprobs": 0,
        "top_p": 1.0,
        "truncation": "disabled",
        "usage": usage,
        "user": null,
        "metadata": {}
    })
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
