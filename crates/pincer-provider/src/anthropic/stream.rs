//! Maps the Messages API event stream to neutral [`StreamEvent`]s, and error bodies to
//! [`ErrorDetails`]. Pure: SSE events in, neutral events out.
//!
//! Block numbers are the wire `index`. Usage starts from `message_start.message.usage`; each
//! `message_delta.usage` carries cumulative values that replace the fields it has (the SDK's
//! accumulator does the same), except that an `iterations[]` array, when present, is summed
//! instead: with server-side compaction the top-level fields describe only the last iteration
//! and would lose the cache read (reference §1.4). `usage.server_tool_use.web_search_requests`
//! is the call's search count.
//!
//! Web search (`provider::web_search`): a `server_tool_use` block is a server tool call whose
//! input streams like a client call's; the `web_search_tool_result` block that follows names it
//! and completes it (the result block itself becomes no block of its own); a `citations_delta`
//! on a text block is a citation of it. Blocks, deltas and events of other kinds (document
//! citations, compaction) are skipped.

use std::collections::HashMap;

use serde::Deserialize as _;
use serde_json::Value;

use super::wire::{
    CitationWire, ContentBlockDelta, ContentBlockStart, ErrorEnvelope, ErrorObject,
    StreamEvent as WireEvent, WebSearchContent, WireUsage,
};
use crate::conversation::StopReason;
use crate::conversation::StreamEvent;
use crate::conversation::TokenUsage;
use crate::conversation::{Citation, ServerToolCall, WebResult};
use crate::sse::SseEvent;
use crate::{ErrorDetails, ProviderError, StreamParser};

/// The provider name in errors.
const PROVIDER: &str = "anthropic";

/// How much of a body that is not the JSON error envelope becomes the message.
const BODY_SUMMARY_CHARACTERS: usize = 200;

/// The kind of each content block seen, so that deltas reach only blocks they belong to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BlockKind {
    Text,
    Thinking,
    RedactedThinking,
    ToolUse,
    ServerToolUse,
    /// A kind this parser skips, with all of its deltas.
    Skipped,
}

/// The stream parser.
#[derive(Debug, Default)]
pub struct Parser {
    finished: bool,
    blocks: HashMap<usize, BlockKind>,
    /// Server tool call ids → their blocks, for the result blocks that name them.
    server_calls: HashMap<String, usize>,
    usage: TokenUsage,
    reported_usage: Option<TokenUsage>,
}

impl Parser {
    /// A new parser.
    pub fn new() -> Parser {
        Parser::default()
    }

    fn on_wire_event(
        &mut self,
        event: WireEvent,
        raw: &str,
    ) -> Result<Vec<StreamEvent>, ProviderError> {
        let mut events = Vec::new();
        match event {
            WireEvent::MessageStart { message } => {
                events.push(StreamEvent::Start {
                    response_id: message.id,
                    model: message.model,
                });
                if let Some(usage) = &message.usage {
                    self.apply_usage(usage);
                }
                self.report_usage(&mut events);
            }
            WireEvent::ContentBlockStart {
                index,
                content_block,
            } => self.on_block_start(index, content_block, &mut events),
            WireEvent::ContentBlockDelta { index, delta } => {
                self.on_block_delta(index, delta, &mut events);
            }
            WireEvent::MessageDelta { delta, usage } => {
                if let Some(usage) = &usage {
                    self.apply_usage(usage);
                }
                self.report_usage(&mut events);
                if let Some(provider_reason) = delta.stop_reason {
                    events.push(StreamEvent::Finish {
                        reason: stop_reason(&provider_reason),
                        provider_reason,
                    });
                }
            }
            WireEvent::MessageStop => self.finished = true,
            WireEvent::Error { error } => {
                return Err(ProviderError::stream(PROVIDER, details_of(error), raw));
            }
            WireEvent::ContentBlockStop { .. } | WireEvent::Ping | WireEvent::Unknown => {}
        }
        Ok(events)
    }

    fn on_block_start(
        &mut self,
        index: usize,
        block: ContentBlockStart,
        events: &mut Vec<StreamEvent>,
    ) {
        let kind = match block {
            ContentBlockStart::Text { text } => {
                if !text.is_empty() {
                    events.push(StreamEvent::TextDelta { block: index, text });
                }
                BlockKind::Text
            }
            ContentBlockStart::Thinking {
                thinking,
                signature,
            } => {
                if !thinking.is_empty() {
                    events.push(StreamEvent::ThinkingDelta {
                        block: index,
                        text: thinking,
                    });
                }
                if !signature.is_empty() {
                    events.push(StreamEvent::ThinkingSignature {
                        block: index,
                        signature,
                    });
                }
                BlockKind::Thinking
            }
            ContentBlockStart::RedactedThinking { data } => {
                events.push(StreamEvent::RedactedThinking { block: index, data });
                BlockKind::RedactedThinking
            }
            ContentBlockStart::ToolUse { id, name } => {
                events.push(StreamEvent::ToolCallStart {
                    block: index,
                    id,
                    name,
                });
                BlockKind::ToolUse
            }
            ContentBlockStart::ServerToolUse { id, name } => {
                self.server_calls.insert(id.clone(), index);
                events.push(StreamEvent::ServerToolStart {
                    block: index,
                    id,
                    name,
                });
                BlockKind::ServerToolUse
            }
            ContentBlockStart::WebSearchToolResult {
                tool_use_id,
                content,
            } => {
                events.push(self.search_result(index, tool_use_id, content));
                BlockKind::Skipped
            }
            ContentBlockStart::Unknown => BlockKind::Skipped,
        };
        self.blocks.insert(index, kind);
    }

    fn on_block_delta(
        &mut self,
        index: usize,
        delta: ContentBlockDelta,
        events: &mut Vec<StreamEvent>,
    ) {
        // A delta for a block whose start never came (a spliced stream) is taken at its word,
        // except tool input, which is useless without the call's id and name.
        let kind = self.blocks.get(&index).copied();
        let event = match delta {
            ContentBlockDelta::TextDelta { text }
                if !text.is_empty() && matches!(kind, None | Some(BlockKind::Text)) =>
            {
                StreamEvent::TextDelta { block: index, text }
            }
            ContentBlockDelta::ThinkingDelta { thinking }
                if !thinking.is_empty() && matches!(kind, None | Some(BlockKind::Thinking)) =>
            {
                StreamEvent::ThinkingDelta {
                    block: index,
                    text: thinking,
                }
            }
            ContentBlockDelta::SignatureDelta { signature }
                if matches!(kind, None | Some(BlockKind::Thinking)) =>
            {
                StreamEvent::ThinkingSignature {
                    block: index,
                    signature,
                }
            }
            ContentBlockDelta::InputJsonDelta { partial_json }
                if !partial_json.is_empty() && kind == Some(BlockKind::ToolUse) =>
            {
                StreamEvent::ToolCallArguments {
                    block: index,
                    fragment: partial_json,
                }
            }
            ContentBlockDelta::InputJsonDelta { partial_json }
                if !partial_json.is_empty() && kind == Some(BlockKind::ServerToolUse) =>
            {
                StreamEvent::ServerToolInput {
                    block: index,
                    fragment: partial_json,
                }
            }
            ContentBlockDelta::CitationsDelta { citation }
                if matches!(kind, None | Some(BlockKind::Text)) =>
            {
                match citation_of(citation) {
                    Some(citation) => StreamEvent::Citation {
                        block: index,
                        citation,
                    },
                    None => return,
                }
            }
            _ => return,
        };
        events.push(event);
    }

    /// The event for a `web_search_tool_result` block at `index`: the outcome of the call it
    /// names, or — for a call this stream never started — a whole call of its own.
    fn search_result(&self, index: usize, tool_use_id: String, content: Value) -> StreamEvent {
        let (results, error) = match WebSearchContent::deserialize(&content) {
            Ok(WebSearchContent::Results(results)) => (
                results
                    .into_iter()
                    .map(|result| WebResult {
                        url: result.url,
                        title: result.title,
                    })
                    .collect(),
                None,
            ),
            Ok(WebSearchContent::Error(error)) => (
                Vec::new(),
                Some(error.error_code.unwrap_or_else(|| "unknown".to_owned())),
            ),
            Err(_) => (Vec::new(), None),
        };
        match self.server_calls.get(&tool_use_id) {
            Some(&block) => StreamEvent::ServerToolResult {
                block,
                results,
                error,
                payload: Some(content),
            },
            None => StreamEvent::ServerTool {
                block: index,
                call: ServerToolCall {
                    id: tool_use_id,
                    name: "web_search".to_owned(),
                    input: Value::Object(serde_json::Map::new()),
                    results,
                    error,
                    payload: Some(content),
                },
            },
        }
    }

    fn apply_usage(&mut self, usage: &WireUsage) {
        match usage.iterations.as_deref() {
            Some(iterations) if !iterations.is_empty() => {
                let sum = |field: fn(&super::wire::IterationUsage) -> u64| -> u64 {
                    iterations.iter().map(field).sum()
                };
                self.usage.input = sum(|iteration| iteration.input_tokens);
                self.usage.cache_read = sum(|iteration| iteration.cache_read_input_tokens);
                self.usage.cache_write = sum(|iteration| iteration.cache_creation_input_tokens);
                self.usage.cache_write_1h = sum(|iteration| {
                    iteration
                        .cache_creation
                        .map_or(0, |split| split.ephemeral_1h_input_tokens)
                });
                self.usage.output = sum(|iteration| iteration.output_tokens);
            }
            _ => {
                let fields = [
                    (usage.input_tokens, &mut self.usage.input),
                    (usage.cache_read_input_tokens, &mut self.usage.cache_read),
                    (
                        usage.cache_creation_input_tokens,
                        &mut self.usage.cache_write,
                    ),
                    (usage.output_tokens, &mut self.usage.output),
                ];
                for (value, field) in fields {
                    if let Some(value) = value {
                        *field = value;
                    }
                }
                if let Some(split) = usage.cache_creation {
                    self.usage.cache_write_1h = split.ephemeral_1h_input_tokens;
                }
            }
        }
        if let Some(thinking) = usage
            .output_tokens_details
            .as_ref()
            .and_then(|details| details.thinking_tokens)
        {
            self.usage.reasoning = thinking;
        }
        if let Some(searches) = usage
            .server_tool_use
            .and_then(|server| server.web_search_requests)
        {
            self.usage.web_search_requests = searches;
        }
    }

    /// Emit the usage snapshot when it differs from the last one emitted.
    fn report_usage(&mut self, events: &mut Vec<StreamEvent>) {
        if self.reported_usage != Some(self.usage) {
            self.reported_usage = Some(self.usage);
            events.push(StreamEvent::Usage(self.usage));
        }
    }
}

impl StreamParser for Parser {
    fn on_event(&mut self, event: &SseEvent) -> Result<Vec<StreamEvent>, ProviderError> {
        if let Some(error) = &event.error {
            let details = ErrorDetails {
                message: error.clone(),
                ..ErrorDetails::default()
            };
            return Err(ProviderError::stream(PROVIDER, details, error));
        }
        if event.data.trim().is_empty() {
            return Ok(Vec::new());
        }
        let wire: WireEvent = serde_json::from_str(&event.data)
            .map_err(|error| ProviderError::decode(PROVIDER, error.to_string(), &event.data))?;
        self.on_wire_event(wire, &event.data)
    }

    fn is_finished(&self) -> bool {
        self.finished
    }
}

/// The neutral stop reason for the API's `stop_reason` (reference §1.5). Unknown words mean the
/// model stopped normally.
pub fn stop_reason(provider_reason: &str) -> StopReason {
    match provider_reason {
        "max_tokens" | "model_context_window_exceeded" => StopReason::Length,
        "tool_use" => StopReason::ToolUse,
        "refusal" => StopReason::Error,
        _ => StopReason::Stop,
    }
}

/// A web search citation, with the provider's object kept to echo back; `None` for document
/// citations, which carry no URL.
fn citation_of(citation: Value) -> Option<Citation> {
    match CitationWire::deserialize(&citation).ok()? {
        CitationWire::WebSearchResultLocation {
            url,
            title,
            cited_text,
        } => Some(Citation {
            url,
            title,
            cited_text,
            payload: Some(citation),
        }),
        CitationWire::Other => None,
    }
}

fn details_of(error: ErrorObject) -> ErrorDetails {
    ErrorDetails {
        error_type: Some(error.error_type),
        code: error.details.and_then(|details| details.error_code),
        message: error.message,
        ..ErrorDetails::default()
    }
}

/// Map an error response body to details: the JSON envelope
/// `{"type":"error","error":{"type","message"},"request_id"}`, or, for anything else (an HTML page
/// from a proxy, a bare text), the start of the body as the message.
pub fn parse_error_body(status: u16, body: &str) -> ErrorDetails {
    if let Ok(envelope) = serde_json::from_str::<ErrorEnvelope>(body) {
        return details_of(envelope.error);
    }
    let text = body.trim();
    let message = if text.is_empty() {
        format!("HTTP {status} with an empty body")
    } else {
        text.chars().take(BODY_SUMMARY_CHARACTERS).collect()
    };
    ErrorDetails {
        message,
        ..ErrorDetails::default()
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;
    use crate::Accumulator;

    const TEXT: &[u8] = include_bytes!("../../../../tests/fixtures/anthropic/text.sse");
    const TOOL_USE: &[u8] =
        include_bytes!("../../../../tests/fixtures/anthropic/tool_use_nested_args.sse");
    const THINKING: &[u8] =
        include_bytes!("../../../../tests/fixtures/anthropic/thinking_with_signature.sse");
    const PARALLEL: &[u8] =
        include_bytes!("../../../../tests/fixtures/anthropic/parallel_zero_arg_tools.sse");
    const OVERLOADED: &[u8] =
        include_bytes!("../../../../tests/fixtures/anthropic/error_overloaded.sse");

    /// What a parser made of a whole stream.
    #[derive(Debug, PartialEq)]
    struct Outcome {
        events: Vec<StreamEvent>,
        error: Option<String>,
        finished: bool,
    }

    /// Parse `stream` whole and in every chunking `parse_all_ways` tries; all must agree.
    fn parse_fixture(stream: &[u8]) -> Outcome {
        let outcome = crate::test_support::parse_all_ways(Parser::new, stream);
        Outcome {
            events: outcome.events,
            error: outcome.error.map(|error| error.to_string()),
            finished: outcome.finished,
        }
    }

    fn message_of(events: &[StreamEvent]) -> serde_json::Value {
        let mut accumulator = Accumulator::new();
        for event in events {
            accumulator.apply(event);
        }
        let message = accumulator.message("anthropic-messages", "anthropic", "claude", 0, None);
        pincer_session::pi_fixtures::pi_json(&message)
    }

    fn usage(input: u64, output: u64, cache_read: u64, cache_write: u64) -> StreamEvent {
        StreamEvent::Usage(TokenUsage {
            input,
            output,
            cache_read,
            cache_write,
            cache_write_1h: 0,
            reasoning: 0,
            web_search_requests: 0,
        })
    }

    fn sse(data: &str) -> SseEvent {
        SseEvent {
            event: None,
            data: data.into(),
            error: None,
        }
    }

    #[test]
    fn the_text_fixture_yields_start_text_usage_and_an_end_turn_finish() {
        let outcome = parse_fixture(TEXT);
        assert!(outcome.finished);
        assert_eq!(outcome.error, None);
        assert_eq!(
            outcome.events,
            vec![
                StreamEvent::Start {
                    response_id: Some("msg_01PU4SWJR43AoiPx2RA7hfcf".into()),
                    model: Some("claude-sonnet-4-5-20250929".into()),
                },
                usage(16, 1, 0, 0),
                StreamEvent::TextDelta {
                    block: 0,
                    text: "Hello".into()
                },
                StreamEvent::TextDelta {
                    block: 0,
                    text: " to".into()
                },
                StreamEvent::TextDelta {
                    block: 0,
                    text: " you \u{2014} caf\u{e9}.".into()
                },
                usage(16, 9, 0, 0),
                StreamEvent::Finish {
                    reason: StopReason::Stop,
                    provider_reason: "end_turn".into()
                },
            ]
        );
    }

    #[test]
    fn the_nested_arguments_fixture_joins_json_pieces_split_mid_token() {
        let outcome = parse_fixture(TOOL_USE);
        assert!(outcome.finished);
        let message = message_of(&outcome.events);
        assert_eq!(
            message["content"],
            json!([
                {"type": "text", "text": "I'll plan the trip."},
                {"type": "toolCall", "id": "toolu_01T1x1fJ34qAmk2tNTrN7Up6", "name": "plan_trip", "arguments": {
                    "itinerary": {"cities": ["Paris", "Lyon"], "nights": {"Paris": 2, "Lyon": 1}},
                    "travelers": [{"name": "Ana", "age": 34}],
                    "notes": "window seat, \"quiet\" car"
                }}
            ])
        );
        assert_eq!(message["stopReason"], "toolUse");
        assert_eq!(
            message["usage"],
            json!({"input": 3, "output": 112, "cacheRead": 4565, "cacheWrite": 12, "totalTokens": 4692,
                   "cost": {"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0, "total": 0.0}})
        );
    }

    #[test]
    fn the_thinking_fixture_keeps_the_reasoning_and_its_signature_before_the_text() {
        let outcome = parse_fixture(THINKING);
        assert!(outcome.finished);
        let message = message_of(&outcome.events);
        assert_eq!(
            message["content"],
            json!([
                {"type": "thinking",
                 "thinking": "The user greets me. I should answer briefly.",
                 "thinkingSignature": "EuYBCkQYAiJAk7JxeiLUwvEG+ieVefBBoien7A7BpUQB64WbblMdoI+Kk6pPciBbKpMWfsuaXo0E5/IikaaWgTrXii7wlDhunRIM9GWKw9yeT6PbBIJrGgwnmdTJHy9fzgTHttEiMLDOicGD2LyT9mzjlkksOfrqG//Bm1/yY5fyvW7O81rxq4inHDt+OUVW/B0aq22RTipQdde0yYh8Op7aDP6K+Vrscx7mU1PGA0cj2Mn6vt4XguR6MJT1bfe2yuNizU7ip+tr7nCGBaw1DXKDTQO6hu0z82eOxIZgzhVhuBdvX/U8KWQ="},
                {"type": "text", "text": "Hello! How can I help?"}
            ])
        );
        assert_eq!(message["stopReason"], "stop");
        assert_eq!(message["usage"]["output"], 58);
    }

    #[test]
    fn parallel_zero_argument_calls_get_empty_object_arguments() {
        let outcome = parse_fixture(PARALLEL);
        assert!(outcome.finished);
        let message = message_of(&outcome.events);
        assert_eq!(
            message["content"],
            json!([
                {"type": "text", "text": "I'll check both."},
                {"type": "toolCall", "id": "toolu_01Sdq4E5tQKRrAQxygYSZS2E", "name": "llm_version", "arguments": {}},
                {"type": "toolCall", "id": "toolu_01HKSJkLoYmodW2ycKQt3LoD", "name": "llm_time", "arguments": {}}
            ])
        );
        assert_eq!(message["stopReason"], "toolUse");
        assert!(
            !outcome
                .events
                .iter()
                .any(|event| matches!(event, StreamEvent::ToolCallArguments { .. }))
        );
    }

    #[test]
    fn an_overloaded_error_event_after_text_is_a_stream_error_with_its_type() {
        let whole = parse_fixture(OVERLOADED);
        assert!(!whole.finished);
        assert_eq!(
            whole.error.as_deref(),
            Some("anthropic stream error: Overloaded")
        );
        assert_eq!(
            whole.events.last(),
            Some(&StreamEvent::TextDelta {
                block: 0,
                text: " counting: one, two".into()
            })
        );
        let mut parser = Parser::new();
        let error = parser
            .on_event(&sse(r#"{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}"#))
            .unwrap_err();
        assert_eq!(
            error.details(),
            Some(&ErrorDetails {
                error_type: Some("overloaded_error".into()),
                code: None,
                message: "Overloaded".into(),
                retry_delay: None,
                quota_id: None,
            })
        );
    }

    #[test]
    fn delta_usage_replaces_only_the_fields_it_carries() {
        let mut parser = Parser::new();
        parser
            .on_event(&sse(r#"{"type":"message_start","message":{"id":"msg_01A","model":"claude-haiku-4-5","usage":{"input_tokens":3,"cache_creation_input_tokens":4565,"cache_read_input_tokens":0,"output_tokens":1}}}"#))
            .unwrap();
        let events = parser
            .on_event(&sse(r#"{"type":"message_delta","delta":{"stop_reason":"max_tokens","stop_sequence":null},"usage":{"output_tokens":8192}}"#))
            .unwrap();
        assert_eq!(
            events,
            vec![
                usage(3, 8192, 0, 4565),
                StreamEvent::Finish {
                    reason: StopReason::Length,
                    provider_reason: "max_tokens".into()
                }
            ]
        );
    }

    #[test]
    fn iterations_are_summed_instead_of_trusting_the_last_iterations_top_level_fields() {
        let mut parser = Parser::new();
        parser
            .on_event(&sse(r#"{"type":"message_start","message":{"id":"msg_01B","model":"claude-opus-4-6","usage":{"input_tokens":5,"cache_creation_input_tokens":0,"cache_read_input_tokens":55096,"output_tokens":1}}}"#))
            .unwrap();
        let events = parser
            .on_event(&sse(r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"input_tokens":23000,"cache_read_input_tokens":0,"cache_creation_input_tokens":0,"output_tokens":1000,"output_tokens_details":{"thinking_tokens":400},"iterations":[{"type":"compaction","input_tokens":5,"output_tokens":3500,"cache_read_input_tokens":55096,"cache_creation_input_tokens":0},{"type":"message","input_tokens":23000,"output_tokens":1000,"cache_read_input_tokens":0,"cache_creation_input_tokens":120}]}}"#))
            .unwrap();
        assert_eq!(
            events[0],
            StreamEvent::Usage(TokenUsage {
                input: 23005,
                output: 4500,
                cache_read: 55096,
                cache_write: 120,
                cache_write_1h: 0,
                reasoning: 400,
                web_search_requests: 0,
            })
        );
    }

    #[test]
    fn an_unchanged_usage_is_not_reported_twice() {
        let mut parser = Parser::new();
        parser
            .on_event(&sse(r#"{"type":"message_start","message":{"id":"msg_01C","usage":{"input_tokens":1,"output_tokens":2}}}"#))
            .unwrap();
        let events = parser
            .on_event(&sse(r#"{"type":"message_delta","delta":{"stop_reason":null},"usage":{"output_tokens":2}}"#))
            .unwrap();
        assert_eq!(events, Vec::new());
    }

    #[test]
    fn each_stop_reason_maps_to_its_neutral_reason() {
        let cases = [
            ("end_turn", StopReason::Stop),
            ("stop_sequence", StopReason::Stop),
            ("pause_turn", StopReason::Stop),
            ("max_tokens", StopReason::Length),
            ("model_context_window_exceeded", StopReason::Length),
            ("tool_use", StopReason::ToolUse),
            ("refusal", StopReason::Error),
            ("something_new", StopReason::Stop),
        ];
        for (word, reason) in cases {
            assert_eq!(stop_reason(word), reason, "{word}");
        }
    }

    #[test]
    fn unknown_events_blocks_and_deltas_are_skipped_and_redacted_thinking_passes_through() {
        let mut parser = Parser::new();
        let stream = [
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"compaction","content":""}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"query\":\"x\"}"}}"#,
            r#"{"type":"content_block_start","index":1,"content_block":{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix"}}"#,
            r#"{"type":"content_block_start","index":2,"content_block":{"type":"text","text":""}}"#,
            r#"{"type":"content_block_delta","index":2,"delta":{"type":"citations_delta","citation":{"type":"char_location"}}}"#,
            r#"{"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":"ok"}}"#,
            r#"{"type":"brand_new_event","payload":1}"#,
            r#"{"type": "ping"}"#,
        ];
        let mut events = Vec::new();
        for data in stream {
            events.extend(parser.on_event(&sse(data)).unwrap());
        }
        assert_eq!(
            events,
            vec![
                StreamEvent::RedactedThinking {
                    block: 1,
                    data: "EmwKAhgBEgy3va3pzix".into()
                },
                StreamEvent::TextDelta {
                    block: 2,
                    text: "ok".into()
                },
            ]
        );
        assert!(!parser.is_finished());
    }

    /// A search as the API streams it (docs: "Web search tool", streaming): text, the
    /// `server_tool_use` with its query in pieces, the `web_search_tool_result` whole, then text
    /// with a citation, and the search count in the final usage.
    const WEB_SEARCH: [&str; 12] = [
        r#"{"type":"message_start","message":{"id":"msg_01W","model":"claude-sonnet-4-5","usage":{"input_tokens":2679,"output_tokens":3}}}"#,
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":"I'll look."}}"#,
        r#"{"type":"content_block_stop","index":0}"#,
        r#"{"type":"content_block_start","index":1,"content_block":{"id":"srvtoolu_014hJH82Qum7Td6UV8gDXThB","type":"server_tool_use","name":"web_search","input":{}}}"#,
        r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"query\": \"rust 1.9"}}"#,
        r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"5 release\"}"}}"#,
        r#"{"type":"content_block_start","index":2,"content_block":{"type":"web_search_tool_result","tool_use_id":"srvtoolu_014hJH82Qum7Td6UV8gDXThB","content":[{"type":"web_search_result","title":"Announcing Rust 1.95","url":"https://blog.rust-lang.org/1.95","encrypted_content":"EqgfCioIARgBIiQ3","page_age":"April 2, 2026"}]}}"#,
        r#"{"type":"content_block_start","index":3,"content_block":{"citations":[],"type":"text","text":""}}"#,
        r#"{"type":"content_block_delta","index":3,"delta":{"type":"citations_delta","citation":{"type":"web_search_result_location","cited_text":"Rust 1.95 is out","url":"https://blog.rust-lang.org/1.95","title":"Announcing Rust 1.95","encrypted_index":"Eo8BCioIAhgB"}}}"#,
        r#"{"type":"content_block_delta","index":3,"delta":{"type":"text_delta","text":"It is out."}}"#,
        r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":510,"server_tool_use":{"web_search_requests":1}}}"#,
        r#"{"type":"message_stop"}"#,
    ];

    #[test]
    fn a_web_search_becomes_one_server_tool_block_and_a_citation_of_the_text() {
        let mut parser = Parser::new();
        let mut events = Vec::new();
        for data in WEB_SEARCH {
            events.extend(parser.on_event(&sse(data)).unwrap());
        }
        assert!(parser.is_finished());
        assert!(events.contains(&StreamEvent::ServerToolStart {
            block: 1,
            id: "srvtoolu_014hJH82Qum7Td6UV8gDXThB".into(),
            name: "web_search".into(),
        }));
        let message = message_of(&events);
        assert_eq!(
            message["content"],
            json!([
                {"type": "text", "text": "I'll look."},
                {"type": "serverToolCall", "id": "srvtoolu_014hJH82Qum7Td6UV8gDXThB",
                 "name": "web_search", "arguments": {"query": "rust 1.95 release"},
                 "results": [{"url": "https://blog.rust-lang.org/1.95", "title": "Announcing Rust 1.95"}],
                 "providerData": [{"type": "web_search_result", "title": "Announcing Rust 1.95",
                     "url": "https://blog.rust-lang.org/1.95", "encrypted_content": "EqgfCioIARgBIiQ3",
                     "page_age": "April 2, 2026"}]},
                {"type": "text", "text": "It is out.", "citations": [{
                    "url": "https://blog.rust-lang.org/1.95", "title": "Announcing Rust 1.95",
                    "citedText": "Rust 1.95 is out",
                    "providerData": {"type": "web_search_result_location", "cited_text": "Rust 1.95 is out",
                        "url": "https://blog.rust-lang.org/1.95", "title": "Announcing Rust 1.95",
                        "encrypted_index": "Eo8BCioIAhgB"}}]}
            ])
        );
        assert_eq!(message["usage"]["webSearchRequests"], 1);
        assert_eq!(message["stopReason"], "stop");
    }

    #[test]
    fn the_search_and_the_citations_go_back_as_they_came_only_while_search_is_offered() {
        let mut parser = Parser::new();
        let mut accumulator = Accumulator::new();
        for data in WEB_SEARCH {
            for event in parser.on_event(&sse(data)).unwrap() {
                accumulator.apply(&event);
            }
        }
        let assistant = accumulator.message(
            "anthropic-messages",
            "anthropic",
            "claude-sonnet-4-5",
            0,
            None,
        );
        let request = |web_search| crate::ModelRequest {
            cache_key: None,
            cache_writes: Some(crate::conversation::CacheTtl::default()),
            model: "claude-sonnet-4-5".into(),
            system_prompt: String::new(),
            messages: vec![
                crate::conversation::Message::User(crate::conversation::UserMessage {
                    content: crate::conversation::MessageContent::Text("news?".into()),
                    timestamp: 0,
                }),
                crate::conversation::Message::Assistant(assistant.clone()),
            ]
            .into(),
            tools: Vec::new(),
            thinking: crate::ThinkingLevel::Off,
            thinking_budget: None,
            max_output_tokens: 1024,
            reasoning_model: false,
            web_search,
            output_format: None,
        };
        let searching = crate::anthropic::request::build_request(&request(Some(
            crate::web_search::WebSearch { max_uses: 3 },
        )))
        .json();
        assert_eq!(
            searching["tools"],
            json!([{"type": "web_search_20250305", "name": "web_search", "max_uses": 3}])
        );
        let content = &searching["messages"][1]["content"];
        assert_eq!(
            content[1],
            json!({"type": "server_tool_use", "id": "srvtoolu_014hJH82Qum7Td6UV8gDXThB",
                   "name": "web_search", "input": {"query": "rust 1.95 release"}})
        );
        assert_eq!(content[2]["type"], "web_search_tool_result");
        assert_eq!(
            content[2]["content"][0]["encrypted_content"],
            "EqgfCioIARgBIiQ3"
        );
        assert_eq!(
            content[3]["citations"][0]["encrypted_index"],
            "Eo8BCioIAhgB"
        );
        let plain = crate::anthropic::request::build_request(&request(None)).json();
        assert_eq!(plain.get("tools"), None);
        assert_eq!(
            plain["messages"][1]["content"],
            json!([{"type": "text", "text": "I'll look."}, {"type": "text", "text": "It is out."}])
        );
    }

    #[test]
    fn a_failed_search_keeps_its_error_code() {
        let mut parser = Parser::new();
        let mut events = Vec::new();
        for data in [
            r#"{"type":"content_block_start","index":0,"content_block":{"id":"srvtoolu_02","type":"server_tool_use","name":"web_search","input":{}}}"#,
            r#"{"type":"content_block_start","index":1,"content_block":{"type":"web_search_tool_result","tool_use_id":"srvtoolu_02","content":{"type":"web_search_tool_result_error","error_code":"max_uses_exceeded"}}}"#,
        ] {
            events.extend(parser.on_event(&sse(data)).unwrap());
        }
        let message = message_of(&events);
        assert_eq!(message["content"][0]["error"], "max_uses_exceeded");
        assert_eq!(message["content"][0]["results"], json!([]));
    }

    #[test]
    fn a_malformed_payload_is_a_decode_error_that_keeps_the_payload() {
        let mut parser = Parser::new();
        let error = parser
            .on_event(&sse(
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_del"#,
            ))
            .unwrap_err();
        match error {
            ProviderError::Decode { raw, .. } => {
                assert_eq!(
                    raw,
                    r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_del"#
                );
            }
            other => panic!("expected a decode error, got {other:?}"),
        }
    }

    #[test]
    fn an_error_envelope_body_gives_type_message_and_spend_limit_code() {
        assert_eq!(
            parse_error_body(
                529,
                r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_011CSHoEeqs5C35K2UUqR7Fy"}"#
            ),
            ErrorDetails {
                error_type: Some("overloaded_error".into()),
                code: None,
                message: "Overloaded".into(),
                retry_delay: None,
                quota_id: None,
            }
        );
        let spend = parse_error_body(
            429,
            r#"{"type":"error","error":{"type":"rate_limit_error","message":"Spend limit reached","details":{"error_code":"enforced_spend_limit_reached"}},"request_id":null}"#,
        );
        assert_eq!(spend.code.as_deref(), Some("enforced_spend_limit_reached"));
        assert_eq!(spend.error_type.as_deref(), Some("rate_limit_error"));
    }

    #[test]
    fn a_non_json_body_gives_its_first_200_characters_as_the_message() {
        let page = format!(
            "<html><head><title>413 Request Entity Too Large</title></head>{}</html>",
            "é".repeat(300)
        );
        let details = parse_error_body(413, &page);
        assert_eq!(details.error_type, None);
        assert_eq!(details.message.chars().count(), 200);
        assert!(
            details
                .message
                .starts_with("<html><head><title>413 Request Entity Too Large")
        );
        assert_eq!(
            parse_error_body(502, "  ").message,
            "HTTP 502 with an empty body"
        );
    }
}
