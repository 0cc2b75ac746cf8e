//! Anthropic Messages responses for the mock server, byte for byte in the recorded format
//! (`shared/reference/provider-wire-formats.md` §1.3, §1.4, §1.6): an `event:` line equal to the
//! payload's `type`, compact JSON right-padded with spaces before its closing brace, the
//! keep-alive written `{"type": "ping"}` with its space, 2026 usage objects (`cache_creation`,
//! `service_tier`, `inference_geo`), and tool input streamed as `input_json_delta` pieces cut
//! mid-token after an empty first piece.

use std::collections::HashMap;

use serde_json::{Value, json};

/// The four token counts a response reports, as the test wants them normalized back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Usage4 {
    /// Uncached prompt tokens (`input_tokens`).
    pub input: u64,
    /// Generated tokens (`output_tokens`).
    pub output: u64,
    /// `cache_read_input_tokens`.
    pub cache_read: u64,
    /// `cache_creation_input_tokens`.
    pub cache_write: u64,
}

/// The model the responses claim to be.
pub const MODEL: &str = "claude-sonnet-4-5-20250929";
/// The `id` of every response message.
pub const MESSAGE_ID: &str = "msg_01XFDUDYJgAACzvnptvVoYEL";
/// The `request_id` of error bodies.
pub const REQUEST_ID: &str = "req_011CSHoEeqs5C35K2UUqR7Fy";

/// A plain answer: one text block streamed as `chunks`, `end_turn`.
pub fn text_stream(chunks: &[&str], usage: Usage4) -> Vec<u8> {
    let mut stream = Stream::start(usage);
    stream.text_block(0, chunks);
    stream.finish("end_turn", usage)
}

/// An optional text block, then one `tool_use` block per `(id, name, arguments_json)`, ending
/// with `tool_use`. Arguments arrive as an empty piece, then pieces cut every few characters
/// (inside keys and strings); empty arguments send only the empty piece, as the API does for a
/// call without input.
pub fn tool_use_stream(text: Option<&str>, calls: &[(&str, &str, &str)], usage: Usage4) -> Vec<u8> {
    let mut stream = Stream::start(usage);
    let mut index = 0;
    if let Some(text) = text {
        stream.text_block(index, &split(text, &[6, 11]));
        index += 1;
    }
    for (id, name, arguments) in calls {
        stream.tool_use_block(index, (id, name), arguments);
        index += 1;
    }
    stream.finish("tool_use", usage)
}

/// One search of [`web_search_stream`]: the `server_tool_use` id, the query, and the pages it
/// finds as `(url, title)`.
#[derive(Debug, Clone, Copy)]
pub struct Search<'a> {
    pub id: &'a str,
    pub query: &'a str,
    pub results: &'a [(&'a str, &'a str)],
}

/// The `encrypted_content` of the `n`-th result of search `id` (what pincer must echo back).
pub fn encrypted_content(id: &str, n: usize) -> String {
    format!("EqgfCioIARgBIiQ3-{id}-{n}")
}

/// The `encrypted_index` of the citation of [`web_search_stream`].
pub const ENCRYPTED_INDEX: &str = "Eo8BCioIAhgBIiQyYjQ0";

/// A web search answer as the API streams it (docs: "Web search tool"): `intro` text, then per
/// search a `server_tool_use` block (its `{"query": …}` input in pieces) and a
/// `web_search_tool_result` block (whole in its start event, each result with
/// `encrypted_content` and `page_age`), then `answer` in a text block that opens with a
/// `citations_delta` citing the first result of the first search, then, when `tool` is given,
/// a client `tool_use` `(id, name, arguments_json)`. Ends with `stop_reason`; the final usage
/// counts the searches in `server_tool_use.web_search_requests`.
pub fn web_search_stream(
    intro: &str,
    searches: &[Search<'_>],
    answer: &str,
    tool: Option<(&str, &str, &str)>,
    stop_reason: &str,
    usage: Usage4,
) -> Vec<u8> {
    let mut stream = Stream::start(usage);
    stream.text_block(0, &split(intro, &[7]));
    let mut index = 1;
    for search in searches {
        stream.event(
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": {
                "id": search.id, "type": "server_tool_use", "name": "web_search", "input": {}
            }}),
        );
        let input = json!({"query": search.query}).to_string();
        for piece in split(&input, &[4, 9]) {
            stream.input_delta(index, piece);
        }
        stream.block_stop(index);
        index += 1;
        let results: Vec<Value> = search
            .results
            .iter()
            .enumerate()
            .map(|(n, (url, title))| {
                json!({"type": "web_search_result", "title": title, "url": url,
                       "encrypted_content": encrypted_content(search.id, n), "page_age": "April 2, 2026"})
            })
            .collect();
        stream.event(
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": {
                "type": "web_search_tool_result", "tool_use_id": search.id, "content": results
            }}),
        );
        stream.block_stop(index);
        index += 1;
    }
    stream.event(
        "content_block_start",
        json!({"type": "content_block_start", "index": index,
               "content_block": {"citations": [], "type": "text", "text": ""}}),
    );
    if let Some((url, title)) = searches.first().and_then(|search| search.results.first()) {
        stream.event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": index, "delta": {
            "type": "citations_delta", "citation": {
                "type": "web_search_result_location", "cited_text": answer, "url": url,
                "title": title, "encrypted_index": ENCRYPTED_INDEX
            }}}),
        );
    }
    for piece in split(answer, &[6, 11]) {
        stream.text_delta(index, piece);
    }
    stream.block_stop(index);
    index += 1;
    if let Some((id, name, arguments)) = tool {
        stream.tool_use_block(index, (id, name), arguments);
    }
    stream.finish_with_searches(stop_reason, usage, searches.len() as u64)
}

/// A thinking block (reasoning in pieces, an empty thinking delta, then the signature), then a
/// text block, `end_turn`.
pub fn thinking_stream(thinking: &str, signature: &str, text: &str, usage: Usage4) -> Vec<u8> {
    let mut stream = Stream::start(usage);
    stream.event(
        "content_block_start",
        json!({"type": "content_block_start", "index": 0,
               "content_block": {"type": "thinking", "thinking": "", "signature": ""}}),
    );
    stream.ping();
    let mut pieces = split(thinking, &[17, 23]);
    pieces.push("");
    for piece in pieces {
        stream.event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0,
                   "delta": {"type": "thinking_delta", "thinking": piece}}),
        );
    }
    stream.event(
        "content_block_delta",
        json!({"type": "content_block_delta", "index": 0,
               "delta": {"type": "signature_delta", "signature": signature}}),
    );
    stream.block_stop(0);
    stream.text_block(1, &split(text, &[8, 13]));
    stream.finish("end_turn", usage)
}

/// A thinking block that used up the output limit: reasoning, no text, `max_tokens`.
pub fn thinking_cut_stream(thinking: &str, usage: Usage4) -> Vec<u8> {
    let mut stream = Stream::start(usage);
    stream.event(
        "content_block_start",
        json!({"type": "content_block_start", "index": 0,
               "content_block": {"type": "thinking", "thinking": "", "signature": ""}}),
    );
    for piece in split(thinking, &[17, 23]) {
        stream.event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0,
                   "delta": {"type": "thinking_delta", "thinking": piece}}),
        );
    }
    stream.block_stop(0);
    stream.finish("max_tokens", usage)
}

/// [`text_stream`] whose cache write went to the 1-hour cache (`cache_creation` split).
pub fn text_stream_one_hour_cache(chunks: &[&str], usage: Usage4) -> Vec<u8> {
    let mut stream = Stream::start_with_split(usage, (0, usage.cache_write));
    stream.text_block(0, chunks);
    stream.finish("end_turn", usage)
}

/// A 200 stream that sends `after_text` (in pieces), then an `event: error` with `error_type` and
/// `message`, and ends there (no `message_stop`).
pub fn error_event_stream(after_text: &str, error_type: &str, message: &str) -> Vec<u8> {
    let mut stream = Stream::start(Usage4 {
        input: 25,
        output: 1,
        ..Usage4::default()
    });
    stream.event(
        "content_block_start",
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
    );
    stream.ping();
    for piece in split(after_text, &[5, 9]) {
        stream.text_delta(0, piece);
    }
    // The SDKs' own fixture writes this payload with spaces after the separators.
    let error_type = serde_json::to_string(error_type).unwrap();
    let message = serde_json::to_string(message).unwrap();
    let payload =
        format!(r#"{{"type": "error", "error": {{"type": {error_type}, "message": {message}}}}}"#);
    stream
        .bytes
        .extend_from_slice(format!("event: error\ndata: {payload}\n\n").as_bytes());
    stream.bytes
}

/// The JSON body of an error response: `{"type":"error","error":{…},"request_id":"req_…"}`.
pub fn error_body(error_type: &str, message: &str) -> Value {
    json!({
        "type": "error",
        "error": {"type": error_type, "message": message},
        "request_id": REQUEST_ID
    })
}

/// Every `tool_result` block of a Messages request body: call id → (text, `is_error`), the
/// text joined from the block's text parts when it has several.
pub fn tool_results(body: &Value) -> HashMap<String, (String, bool)> {
    let mut found = HashMap::new();
    for message in body["messages"].as_array().into_iter().flatten() {
        for block in message["content"].as_array().into_iter().flatten() {
            if block["type"] != "tool_result" {
                continue;
            }
            let text = match &block["content"] {
                Value::String(text) => text.clone(),
                Value::Array(parts) => parts
                    .iter()
                    .filter_map(|part| part["text"].as_str())
                    .collect::<Vec<_>>()
                    .join("\n"),
                _ => String::new(),
            };
            found.insert(
                block["tool_use_id"].as_str().unwrap_or_default().to_owned(),
                (text, block["is_error"] == true),
            );
        }
    }
    found
}

/// An event stream under construction.
struct Stream {
    bytes: Vec<u8>,
    /// How many events were written, to vary the padding as the recordings do.
    count: usize,
}

impl Stream {
    /// `message_start` with the prompt usage and one output token so far.
    fn start(usage: Usage4) -> Stream {
        Stream::start_with_split(usage, (usage.cache_write, 0))
    }

    /// [`Stream::start`] with the cache write split `(5 minutes, 1 hour)`.
    fn start_with_split(usage: Usage4, (five_minutes, one_hour): (u64, u64)) -> Stream {
        let mut stream = Stream {
            bytes: Vec::new(),
            count: 0,
        };
        stream.event(
            "message_start",
            json!({"type": "message_start", "message": {
                "model": MODEL,
                "id": MESSAGE_ID,
                "type": "message",
                "role": "assistant",
                "content": [],
                "stop_reason": null,
                "stop_sequence": null,
                "stop_details": null,
                "usage": {
                    "input_tokens": usage.input,
                    "cache_creation_input_tokens": usage.cache_write,
                    "cache_read_input_tokens": usage.cache_read,
                    "cache_creation": {
                        "ephemeral_5m_input_tokens": five_minutes,
                        "ephemeral_1h_input_tokens": one_hour
                    },
                    "output_tokens": 1,
                    "service_tier": "standard",
                    "inference_geo": "not_available"
                }
            }}),
        );
        stream
    }

    /// One event, its compact JSON padded before the final `}` like the recordings.
    fn event(&mut self, name: &str, payload: Value) {
        let json = serde_json::to_string(&payload).unwrap();
        let body = json.strip_suffix('}').unwrap();
        let padding = " ".repeat([1, 7, 4, 12, 2, 6, 0, 3][self.count % 8]);
        self.count += 1;
        self.bytes
            .extend_from_slice(format!("event: {name}\ndata: {body}{padding}}}\n\n").as_bytes());
    }

    fn ping(&mut self) {
        self.bytes
            .extend_from_slice(b"event: ping\ndata: {\"type\": \"ping\"}\n\n");
    }

    fn text_delta(&mut self, index: usize, text: &str) {
        self.event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": index,
                   "delta": {"type": "text_delta", "text": text}}),
        );
    }

    fn text_block(&mut self, index: usize, chunks: &[&str]) {
        self.event(
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}}),
        );
        if index == 0 {
            self.ping();
        }
        for chunk in chunks {
            self.text_delta(index, chunk);
        }
        self.block_stop(index);
    }

    /// A `tool_use` block: arguments as an empty piece, then pieces cut every few characters.
    fn tool_use_block(&mut self, index: usize, (id, name): (&str, &str), arguments: &str) {
        self.event(
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": {
                "type": "tool_use", "id": id, "name": name, "input": {}, "caller": {"type": "direct"}
            }}),
        );
        let mut pieces = vec![""];
        pieces.extend(split(arguments, &[3, 9, 5, 14]));
        for piece in pieces {
            self.input_delta(index, piece);
        }
        self.block_stop(index);
    }

    fn input_delta(&mut self, index: usize, piece: &str) {
        self.event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": index,
                   "delta": {"type": "input_json_delta", "partial_json": piece}}),
        );
    }

    fn block_stop(&mut self, index: usize) {
        self.event(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        );
    }

    /// `message_delta` with the cumulative usage, then `message_stop`.
    fn finish(self, stop_reason: &str, usage: Usage4) -> Vec<u8> {
        self.finish_with_searches(stop_reason, usage, 0)
    }

    /// [`Stream::finish`], the usage counting `searches` web searches when there were some.
    fn finish_with_searches(mut self, stop_reason: &str, usage: Usage4, searches: u64) -> Vec<u8> {
        let mut wire_usage = json!({
            "input_tokens": usage.input,
            "cache_creation_input_tokens": usage.cache_write,
            "cache_read_input_tokens": usage.cache_read,
            "output_tokens": usage.output
        });
        if searches > 0 {
            wire_usage["server_tool_use"] = json!({"web_search_requests": searches});
        }
        self.event(
            "message_delta",
            json!({"type": "message_delta",
            "delta": {"stop_reason": stop_reason, "stop_sequence": null, "stop_details": null},
            "usage": wire_usage}),
        );
        self.bytes
            .extend_from_slice(b"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
        self.bytes
    }
}

/// Cut `text` into pieces whose lengths (in characters) cycle through `sizes`.
fn split<'a>(text: &'a str, sizes: &[usize]) -> Vec<&'a str> {
    let mut pieces = Vec::new();
    let mut rest = text;
    let mut turn = 0;
    while !rest.is_empty() {
        let size = sizes[turn % sizes.len()];
        turn += 1;
        let end = rest
            .char_indices()
            .nth(size)
            .map_or(rest.len(), |(position, _)| position);
        pieces.push(&rest[..end]);
        rest = &rest[end..];
    }
    pieces
}

#[cfg(test)]
mod tests {
    //! The helpers' output goes through the real decoder, parser and accumulator.

    use pincer::provider::anthropic::stream::Parser;
    use pincer::provider::sse::SseDecoder;
    use pincer::provider::{Accumulator, StreamParser};

    use super::*;

    /// Parse `bytes` in 5-byte chunks; returns the message as JSON, or the error text.
    fn run(bytes: &[u8]) -> Result<Value, String> {
        let mut decoder = SseDecoder::new();
        let mut parser = Parser::new();
        let mut accumulator = Accumulator::new();
        for chunk in bytes.chunks(5) {
            for event in decoder.feed(chunk) {
                for neutral in parser.on_event(&event).map_err(|error| error.to_string())? {
                    accumulator.apply(&neutral);
                }
            }
        }
        assert!(parser.is_finished());
        let message = accumulator.message("anthropic-messages", "anthropic", MODEL, 0, None);
        Ok(
            serde_json::to_value(pincer::session::record::AssistantMessage::from(&message))
                .unwrap(),
        )
    }

    const USAGE: Usage4 = Usage4 {
        input: 7,
        output: 30,
        cache_read: 4000,
        cache_write: 120,
    };

    #[test]
    fn a_text_stream_parses_to_its_chunks_and_usage() {
        let bytes = text_stream(&["Hel", "lo — wörld"], USAGE);
        let text = String::from_utf8(bytes.clone()).unwrap();
        assert!(text.contains("event: ping\ndata: {\"type\": \"ping\"}\n\n"));
        assert!(text.contains("\"inference_geo\":\"not_available\""));
        let message = run(&bytes).unwrap();
        assert_eq!(
            message["content"],
            json!([{"type": "text", "text": "Hello — wörld"}])
        );
        assert_eq!(message["usage"]["input"], 7);
        assert_eq!(message["usage"]["output"], 30);
        assert_eq!(message["usage"]["cacheRead"], 4000);
        assert_eq!(message["usage"]["cacheWrite"], 120);
        assert_eq!(message["stopReason"], "stop");
    }

    #[test]
    fn a_tool_use_stream_parses_to_its_calls_with_arguments_rejoined() {
        let bytes = tool_use_stream(
            Some("Let me look."),
            &[
                (
                    "toolu_01A09q90qw90lq917835lq9",
                    "read",
                    r#"{"path": "src/main.rs", "limit": 20}"#,
                ),
                ("toolu_01B7mP2xQ4rT9vW1yZ3cD5eF", "ls", ""),
            ],
            USAGE,
        );
        let text = String::from_utf8(bytes.clone()).unwrap();
        assert!(text.contains(r#""partial_json":"{\"p"}"#));
        let message = run(&bytes).unwrap();
        assert_eq!(
            message["content"],
            json!([
                {"type": "text", "text": "Let me look."},
                {"type": "toolCall", "id": "toolu_01A09q90qw90lq917835lq9", "name": "read",
                 "arguments": {"path": "src/main.rs", "limit": 20}},
                {"type": "toolCall", "id": "toolu_01B7mP2xQ4rT9vW1yZ3cD5eF", "name": "ls", "arguments": {}}
            ])
        );
        assert_eq!(message["stopReason"], "toolUse");
    }

    #[test]
    fn a_thinking_stream_parses_to_signed_thinking_then_text() {
        let message = run(&thinking_stream(
            "Two plus two is four, simple arithmetic.",
            "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds",
            "It is 4.",
            USAGE,
        ))
        .unwrap();
        assert_eq!(
            message["content"],
            json!([
                {"type": "thinking", "thinking": "Two plus two is four, simple arithmetic.",
                 "thinkingSignature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"},
                {"type": "text", "text": "It is 4."}
            ])
        );
    }

    #[test]
    fn a_web_search_stream_parses_to_the_search_its_results_and_a_cited_answer() {
        let message = run(&web_search_stream(
            "Looking.",
            &[Search {
                id: "srvtoolu_01",
                query: "rust release",
                results: &[("https://blog.rust-lang.org/", "Rust Blog")],
            }],
            "It shipped.",
            None,
            "end_turn",
            USAGE,
        ))
        .unwrap();
        assert_eq!(message["content"][1]["type"], "serverToolCall");
        assert_eq!(
            message["content"][1]["arguments"],
            json!({"query": "rust release"})
        );
        assert_eq!(
            message["content"][1]["providerData"][0]["encrypted_content"],
            encrypted_content("srvtoolu_01", 0)
        );
        assert_eq!(message["content"][2]["text"], "It shipped.");
        assert_eq!(
            message["content"][2]["citations"][0]["providerData"]["encrypted_index"],
            ENCRYPTED_INDEX
        );
        assert_eq!(message["usage"]["webSearchRequests"], 1);
    }

    #[test]
    fn an_error_event_stream_fails_with_the_message_after_its_text() {
        let bytes = error_event_stream("Partial answer", "overloaded_error", "Overloaded");
        let text = String::from_utf8(bytes.clone()).unwrap();
        assert!(text.ends_with(
            "event: error\ndata: {\"type\": \"error\", \"error\": {\"type\": \"overloaded_error\", \"message\": \"Overloaded\"}}\n\n"
        ));
        assert_eq!(
            run(&bytes),
            Err("anthropic stream error: Overloaded".to_owned())
        );
    }

    #[test]
    fn an_error_body_is_the_documented_envelope() {
        let body = error_body(
            "rate_limit_error",
            "Number of request tokens has exceeded your per-minute rate limit",
        );
        let details = pincer::provider::anthropic::stream::parse_error_body(429, &body.to_string());
        assert_eq!(details.error_type.as_deref(), Some("rate_limit_error"));
        assert_eq!(
            details.message,
            "Number of request tokens has exceeded your per-minute rate limit"
        );
        assert_eq!(body["request_id"], REQUEST_ID);
    }
}
