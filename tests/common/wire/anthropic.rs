//! Anthropic Messages responses for the mock server, byte for byte in the recorded format
//! (`shared/reference/provider-wire-formats.md` §1.3, §1.4, §1.6): an `event:` line equal to the
//! payload's `type`, compact JSON right-padded with spaces before its closing brace, the
//! keep-alive written `{"type": "ping"}` with its space, 2026 usage objects (`cache_creation`,
//! `service_tier`, `inference_geo`), and tool input streamed as `input_json_delta` pieces cut
//! mid-token after an empty first piece.

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
        stream.event(
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": {
                "type": "tool_use", "id": id, "name": name, "input": {}, "caller": {"type": "direct"}
            }}),
        );
        let mut pieces = vec![""];
        pieces.extend(split(arguments, &[3, 9, 5, 14]));
        for piece in pieces {
            stream.event(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": index,
                       "delta": {"type": "input_json_delta", "partial_json": piece}}),
            );
        }
        stream.block_stop(index);
        index += 1;
    }
    stream.finish("tool_use", usage)
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

    fn block_stop(&mut self, index: usize) {
        self.event(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        );
    }

    /// `message_delta` with the cumulative usage, then `message_stop`.
    fn finish(mut self, stop_reason: &str, usage: Usage4) -> Vec<u8> {
        self.event(
            "message_delta",
            json!({"type": "message_delta",
            "delta": {"stop_reason": stop_reason, "stop_sequence": null, "stop_details": null},
            "usage": {
                "input_tokens": usage.input,
                "cache_creation_input_tokens": usage.cache_write,
                "cache_read_input_tokens": usage.cache_read,
                "output_tokens": usage.output
            }}),
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
