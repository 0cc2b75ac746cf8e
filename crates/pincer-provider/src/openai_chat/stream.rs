//! Parses a Chat Completions stream (reference §2.3–§2.5, §5) into neutral [`StreamEvent`]s.
//!
//! Blocks are numbered in the order their content first appears: the reasoning (from
//! `delta.reasoning_content`, or `delta.reasoning` on Ollama and newer vLLM), the text, then each
//! tool call — in practice reasoning, text, tools. Tool call fragments are grouped by `index`; a
//! call starts once its name is known (the first fragment carries it on every known server).
//!
//! The finish chunk gives the stop reason, the usage chunk after it (`"choices":[]`) the usage,
//! and `data: [DONE]` ends the stream. A chunk with an `error` key (OpenAI, OpenRouter) or an
//! SSE `error:` field (llama.cpp) is returned as an error.

use super::wire::{Chunk, ChunkUsage, Delta, ToolCallDelta};
use crate::conversation::StopReason;
use crate::conversation::StreamEvent;
use crate::conversation::TokenUsage;
use crate::openai::stream::details_from_error_field;
use crate::sse::SseEvent;
use crate::{ErrorDetails, ProviderError, StreamParser};

const PROVIDER: &str = "openai-chat";

/// The stream parser.
#[derive(Debug, Default)]
pub struct Parser {
    finished: bool,
    started: bool,
    finish_seen: bool,
    next_block: usize,
    thinking_block: Option<usize>,
    text_block: Option<usize>,
    /// Tool calls in the order they appeared.
    tools: Vec<ToolState>,
}

#[derive(Debug)]
struct ToolState {
    index: usize,
    block: usize,
    id: Option<String>,
    name: String,
    started: bool,
    /// Arguments received before the call could start.
    pending: String,
}

impl Parser {
    /// A new parser.
    pub fn new() -> Parser {
        Parser::default()
    }

    fn allocate(&mut self) -> usize {
        let block = self.next_block;
        self.next_block += 1;
        block
    }

    fn on_chunk(&mut self, chunk: Chunk) -> Vec<StreamEvent> {
        let mut events = Vec::new();
        if !self.started && (chunk.id.is_some() || chunk.model.is_some()) {
            self.started = true;
            events.push(StreamEvent::Start {
                response_id: chunk.id,
                model: chunk.model,
            });
        }
        for choice in chunk.choices {
            if let Some(delta) = choice.delta {
                self.on_delta(delta, &mut events);
            }
            if let Some(word) = choice.finish_reason.filter(|word| !word.is_empty()) {
                self.start_pending_calls(&mut events);
                if !self.finish_seen {
                    self.finish_seen = true;
                    events.push(StreamEvent::Finish {
                        reason: stop_reason(&word),
                        provider_reason: word,
                    });
                }
            }
        }
        if let Some(usage) = &chunk.usage {
            events.push(StreamEvent::Usage(normalize_usage(usage)));
        }
        events
    }

    fn on_delta(&mut self, delta: Delta, events: &mut Vec<StreamEvent>) {
        let reasoning = delta
            .reasoning_content
            .filter(|text| !text.is_empty())
            .or(delta.reasoning.filter(|text| !text.is_empty()));
        if let Some(text) = reasoning {
            let block = match self.thinking_block {
                Some(block) => block,
                None => {
                    let block = self.allocate();
                    self.thinking_block = Some(block);
                    block
                }
            };
            events.push(StreamEvent::ThinkingDelta { block, text });
        }
        for text in [delta.content, delta.refusal].into_iter().flatten() {
            if text.is_empty() {
                continue;
            }
            let block = match self.text_block {
                Some(block) => block,
                None => {
                    let block = self.allocate();
                    self.text_block = Some(block);
                    block
                }
            };
            events.push(StreamEvent::TextDelta { block, text });
        }
        for (position, fragment) in delta.tool_calls.into_iter().flatten().enumerate() {
            self.on_tool_fragment(position, fragment, events);
        }
    }

    fn on_tool_fragment(
        &mut self,
        position: usize,
        fragment: ToolCallDelta,
        events: &mut Vec<StreamEvent>,
    ) {
        let index = fragment.index.unwrap_or(position);
        let id = fragment.id.filter(|id| !id.is_empty());
        let existing = self.tools.iter().rposition(|tool| tool.index == index);
        // A different id at a known index is a new call (servers that send each call whole, all
        // at index 0); the same id repeated is the same call.
        let slot = match existing {
            Some(slot)
                if id.is_none() || self.tools[slot].id.is_none() || self.tools[slot].id == id =>
            {
                slot
            }
            _ => {
                let block = self.allocate();
                self.tools.push(ToolState {
                    index,
                    block,
                    id: None,
                    name: String::new(),
                    started: false,
                    pending: String::new(),
                });
                self.tools.len() - 1
            }
        };
        let tool = &mut self.tools[slot];
        let (name, arguments) = fragment
            .function
            .map_or((None, None), |function| (function.name, function.arguments));
        if !tool.started {
            if tool.id.is_none() {
                tool.id = id;
            }
            if let Some(name) = name.filter(|name| !name.is_empty()) {
                tool.name = name;
            }
        }
        let arguments = arguments.unwrap_or_default();
        if tool.started {
            if !arguments.is_empty() {
                events.push(StreamEvent::ToolCallArguments {
                    block: tool.block,
                    fragment: arguments,
                });
            }
        } else {
            tool.pending.push_str(&arguments);
            if !tool.name.is_empty() {
                start_call(tool, events);
            }
        }
    }

    /// At the end, calls still waiting for a name start with what they have.
    fn start_pending_calls(&mut self, events: &mut Vec<StreamEvent>) {
        for tool in self.tools.iter_mut().filter(|tool| !tool.started) {
            start_call(tool, events);
        }
    }
}

fn start_call(tool: &mut ToolState, events: &mut Vec<StreamEvent>) {
    tool.started = true;
    events.push(StreamEvent::ToolCallStart {
        block: tool.block,
        id: tool
            .id
            .clone()
            .unwrap_or_else(|| format!("call_{}", tool.index)),
        name: tool.name.clone(),
    });
    if !tool.pending.is_empty() {
        events.push(StreamEvent::ToolCallArguments {
            block: tool.block,
            fragment: std::mem::take(&mut tool.pending),
        });
    }
}

impl StreamParser for Parser {
    fn on_event(&mut self, event: &SseEvent) -> Result<Vec<StreamEvent>, ProviderError> {
        if let Some(error) = &event.error {
            return Err(ProviderError::stream(
                PROVIDER,
                parse_error_body(0, error),
                error,
            ));
        }
        let data = event.data.trim();
        if self.finished || data.is_empty() {
            return Ok(Vec::new());
        }
        if data == "[DONE]" {
            self.finished = true;
            let mut events = Vec::new();
            self.start_pending_calls(&mut events);
            return Ok(events);
        }
        let chunk: Chunk = serde_json::from_str(data)
            .map_err(|error| ProviderError::decode(PROVIDER, error.to_string(), data))?;
        if let Some(error) = chunk.error {
            return Err(ProviderError::stream(
                PROVIDER,
                details_from_error_field(error),
                data,
            ));
        }
        Ok(self.on_chunk(chunk))
    }

    fn is_finished(&self) -> bool {
        self.finished
    }
}

/// The neutral stop reason for a `finish_reason`.
pub fn stop_reason(word: &str) -> StopReason {
    match word {
        "length" => StopReason::Length,
        "tool_calls" | "function_call" => StopReason::ToolUse,
        "content_filter" | "error" => StopReason::Error,
        _ => StopReason::Stop,
    }
}

/// Usage normalized per SPEC §8: `prompt_tokens` includes `cached_tokens` (and the 2026
/// `cache_write_tokens`, read as in the Responses API: see `openai::stream`), so both are taken
/// out of `input`. `completion_tokens` already includes `reasoning_tokens`; adding them again
/// would double count (reference §2.4).
fn normalize_usage(usage: &ChunkUsage) -> TokenUsage {
    let (cached, written) = usage
        .prompt_tokens_details
        .as_ref()
        .map_or((0, 0), |details| {
            (details.cached_tokens, details.cache_write_tokens)
        });
    TokenUsage {
        input: usage
            .prompt_tokens
            .saturating_sub(cached)
            .saturating_sub(written),
        output: usage.completion_tokens,
        cache_read: cached,
        cache_write: written,
        cache_write_1h: 0,
        reasoning: usage
            .completion_tokens_details
            .as_ref()
            .map_or(0, |details| details.reasoning_tokens),
        web_search_requests: 0,
    }
}

/// Map an error response body to details: the OpenAI envelope, llama.cpp's (numeric `code`),
/// vLLM's flat body, or text (see [`crate::openai::stream::parse_error_body`]).
pub fn parse_error_body(status: u16, body: &str) -> ErrorDetails {
    crate::openai::stream::parse_error_body(status, body)
}

/// The byte streams the mock server plays in integration tests, checked here against the parser.
#[cfg(test)]
#[allow(
    dead_code,
    unreachable_pub,
    reason = "only some of the mock server's helpers are exercised here; the integration tests share the file, where its items are public"
)]
#[path = "../../../../tests/common/wire/openai_chat.rs"]
mod wire_streams;

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::wire_streams::{self, Usage4};
    use super::*;
    use crate::Accumulator;
    use crate::conversation::AssistantMessage;

    const TEXT: &[u8] = include_bytes!("../../../../tests/fixtures/openai_chat/text.sse");
    const PARALLEL_TOOL_CALLS: &[u8] =
        include_bytes!("../../../../tests/fixtures/openai_chat/parallel_tool_calls.sse");
    const LLAMACPP_REASONING: &[u8] =
        include_bytes!("../../../../tests/fixtures/openai_chat/llamacpp_reasoning.sse");
    const LLAMACPP_ERROR_FIELD: &[u8] =
        include_bytes!("../../../../tests/fixtures/openai_chat/llamacpp_error_field.sse");
    const USAGE_CACHED: &[u8] =
        include_bytes!("../../../../tests/fixtures/openai_chat/usage_cached.sse");

    use crate::test_support::{Outcome, parse_all_ways};

    fn parse(bytes: &[u8]) -> Outcome {
        parse_all_ways(Parser::new, bytes)
    }

    fn message(events: &[StreamEvent]) -> AssistantMessage {
        let mut accumulator = Accumulator::new();
        for event in events {
            accumulator.apply(event);
        }
        accumulator.message("openai-completions", "openai", "gpt-4o-mini", 7, None)
    }

    fn content_json(message: &AssistantMessage) -> serde_json::Value {
        pincer_session::pi_fixtures::pi_content(message)
    }

    fn usage(input: u64, output: u64, cache_read: u64, reasoning: u64) -> StreamEvent {
        StreamEvent::Usage(TokenUsage {
            input,
            output,
            cache_read,
            cache_write: 0,
            cache_write_1h: 0,
            reasoning,
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
    fn a_text_answer_yields_start_deltas_finish_then_usage_and_ends_at_done() {
        let outcome = parse(TEXT);
        assert!(outcome.error.is_none());
        assert!(outcome.finished);
        let text = |text: &str| StreamEvent::TextDelta {
            block: 0,
            text: text.into(),
        };
        assert_eq!(
            outcome.events,
            vec![
                StreamEvent::Start {
                    response_id: Some("chatcmpl-CF4aT9kLw2XbQ7nR1mVz8pYc3sDeH".into()),
                    model: Some("gpt-4o-mini-2024-07-18".into()),
                },
                text("The"),
                text(" answer"),
                text(" is"),
                text(" 2,869,461"),
                text(" — naïve"),
                text("ly checked."),
                StreamEvent::Finish {
                    reason: StopReason::Stop,
                    provider_reason: "stop".into(),
                },
                usage(54, 20, 0, 0),
            ]
        );
    }

    #[test]
    fn the_stream_is_not_finished_before_done() {
        let without_done = &TEXT[..TEXT.len() - "data: [DONE]\n\n".len()];
        let outcome = parse(without_done);
        assert!(!outcome.finished);
        assert_eq!(outcome.events.last(), Some(&usage(54, 20, 0, 0)));
    }

    #[test]
    fn parallel_tool_calls_are_accumulated_by_index_into_separate_blocks() {
        let outcome = parse(PARALLEL_TOOL_CALLS);
        assert!(outcome.error.is_none());
        let message = message(&outcome.events);
        assert_eq!(
            content_json(&message),
            json!([
                {"type": "toolCall", "id": "call_1EYWDzueHEp8OsB8jJSEp7WB", "name": "multiply",
                 "arguments": {"a": 1231, "b": 2331}},
                {"type": "toolCall", "id": "call_Hk3Lm9Qp2Rs7Tv4Wx8Yz1Ab", "name": "read",
                 "arguments": {"path": "notes/café.md"}}
            ])
        );
        assert_eq!(message.stop_reason, StopReason::ToolUse);
        assert!(outcome.events.contains(&StreamEvent::ToolCallStart {
            block: 1,
            id: "call_Hk3Lm9Qp2Rs7Tv4Wx8Yz1Ab".into(),
            name: "read".into(),
        }));
    }

    #[test]
    fn llama_cpp_reasoning_content_comes_before_the_text_and_cached_prompt_tokens_are_split_out() {
        let outcome = parse(LLAMACPP_REASONING);
        assert!(outcome.error.is_none());
        assert!(outcome.finished);
        let message = message(&outcome.events);
        assert_eq!(
            content_json(&message),
            json!([
                {"type": "thinking", "thinking": "Okay, the user says hi. I should greet back."},
                {"type": "text", "text": "Hello! How can I help?"}
            ])
        );
        assert!(outcome.events.contains(&usage(1, 31, 17, 0)));
        assert!(outcome.events.contains(&StreamEvent::Start {
            response_id: Some("chatcmpl-nQ8vT2xK5mB9rL1wZ7cY4hP0sJ3dF6gA".into()),
            model: Some("/models/Qwen3-0.6B-Q8_0.gguf".into()),
        }));
    }

    #[test]
    fn a_llama_cpp_error_field_is_a_stream_error_not_an_empty_success() {
        let outcome = parse(LLAMACPP_ERROR_FIELD);
        assert_eq!(
            message(&outcome.events).content.len(),
            1,
            "the partial text stays available"
        );
        let Some(ProviderError::Stream {
            provider, details, ..
        }) = outcome.error
        else {
            panic!("expected a stream error, got {:?}", outcome.error);
        };
        assert_eq!(provider, "openai-chat");
        assert_eq!(details.error_type.as_deref(), Some("server_error"));
        assert_eq!(details.code.as_deref(), Some("500"));
        assert!(
            details
                .message
                .starts_with("Failed to parse tool call arguments")
        );
    }

    #[test]
    fn reasoning_tokens_are_not_added_on_top_of_completion_tokens() {
        let outcome = parse(USAGE_CACHED);
        assert!(outcome.events.contains(&usage(117, 210, 4480, 192)));
        let message = message(&outcome.events);
        assert_eq!(message.usage.context_tokens(), 4597 + 210);
    }

    #[test]
    fn an_error_chunk_mid_stream_is_a_stream_error_with_its_code() {
        let stream = wire_streams::error_chunk_stream(
            "Partial",
            "server_error",
            "server_error",
            "The server had an error while processing your request.",
        );
        let outcome = parse(&stream);
        let error = outcome.error.unwrap();
        assert_eq!(
            error.details().unwrap().code.as_deref(),
            Some("server_error")
        );
        assert_eq!(
            error.details().unwrap().message,
            "The server had an error while processing your request."
        );
        assert_eq!(message(&outcome.events).content.len(), 1);

        // OpenRouter: an error object with a numeric code inside an otherwise normal chunk.
        let openrouter = sse(
            r#"{"id":"gen-1","object":"chat.completion.chunk","error":{"code":502,"message":"Provider returned error"},"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}]}"#,
        );
        let error = Parser::new().on_event(&openrouter).unwrap_err();
        assert_eq!(error.details().unwrap().code.as_deref(), Some("502"));
    }

    #[test]
    fn the_mock_servers_streams_parse_into_the_messages_they_describe() {
        let usage4 = Usage4 {
            input_total: 300,
            cached: 256,
            output: 30,
            reasoning: 0,
        };
        let text = parse(&wire_streams::text_stream(&["Hi", " there"], usage4));
        assert!(text.finished);
        assert_eq!(message(&text.events).content.len(), 1);
        assert!(text.events.contains(&usage(44, 30, 256, 0)));

        let calls = parse(&wire_streams::tool_call_stream(
            Some("Let me check that file."),
            &[
                ("call_A1", "read", r#"{"path":"a.txt"}"#),
                ("call_B2", "ls", "{}"),
            ],
            usage4,
        ));
        let calls_message = message(&calls.events);
        assert_eq!(
            content_json(&calls_message),
            json!([
                {"type": "text", "text": "Let me check that file."},
                {"type": "toolCall", "id": "call_A1", "name": "read", "arguments": {"path": "a.txt"}},
                {"type": "toolCall", "id": "call_B2", "name": "ls", "arguments": {}}
            ])
        );
        assert_eq!(calls_message.stop_reason, StopReason::ToolUse);

        let reasoning = parse(&wire_streams::reasoning_stream(
            &["Think", "ing."],
            &["Done."],
            usage4,
        ));
        assert_eq!(
            content_json(&message(&reasoning.events)),
            json!([{"type": "thinking", "thinking": "Thinking."}, {"type": "text", "text": "Done."}])
        );

        let ollama = parse(&wire_streams::ollama_reasoning_stream(
            &["Hmm", "."],
            &["Yes."],
            usage4,
        ));
        assert!(ollama.finished);
        assert_eq!(
            content_json(&message(&ollama.events)),
            json!([{"type": "thinking", "thinking": "Hmm."}, {"type": "text", "text": "Yes."}])
        );
        assert!(ollama.events.contains(&usage(300, 30, 0, 0)));

        let failure = parse(&wire_streams::llamacpp_error_field_stream("Hal", "boom"));
        assert_eq!(failure.error.unwrap().details().unwrap().message, "boom");
    }

    #[test]
    fn calls_sent_whole_at_one_index_with_different_ids_stay_separate() {
        let mut parser = Parser::new();
        let mut events = Vec::new();
        for data in [
            r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":"","tool_calls":[{"id":"call_a","index":0,"type":"function","function":{"name":"read","arguments":"{\"path\":\"a\"}"}}]},"finish_reason":null}]}"#,
            r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":"","tool_calls":[{"id":"call_b","index":0,"type":"function","function":{"name":"read","arguments":"{\"path\":\"b\"}"}}]},"finish_reason":null}]}"#,
            r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":"tool_calls"}]}"#,
            "[DONE]",
        ] {
            events.extend(parser.on_event(&sse(data)).unwrap());
        }
        assert_eq!(
            content_json(&message(&events)),
            json!([
                {"type": "toolCall", "id": "call_a", "name": "read", "arguments": {"path": "a"}},
                {"type": "toolCall", "id": "call_b", "name": "read", "arguments": {"path": "b"}}
            ])
        );
    }

    #[test]
    fn a_call_without_id_or_name_at_first_still_starts_with_what_arrives() {
        let mut parser = Parser::new();
        let mut events = Vec::new();
        for data in [
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"q\":"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"grep","arguments":"1}"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
        ] {
            events.extend(parser.on_event(&sse(data)).unwrap());
        }
        assert_eq!(
            content_json(&message(&events)),
            json!([{"type": "toolCall", "id": "call_0", "name": "grep", "arguments": {"q": 1}}])
        );
    }

    #[test]
    fn finish_reasons_map_to_stop_reasons() {
        assert_eq!(stop_reason("stop"), StopReason::Stop);
        assert_eq!(stop_reason("length"), StopReason::Length);
        assert_eq!(stop_reason("tool_calls"), StopReason::ToolUse);
        assert_eq!(stop_reason("function_call"), StopReason::ToolUse);
        assert_eq!(stop_reason("content_filter"), StopReason::Error);
        assert_eq!(stop_reason("eos"), StopReason::Stop);
    }

    #[test]
    fn a_chunk_that_is_not_json_is_a_decode_error_and_unknown_fields_are_ignored() {
        let error = Parser::new().on_event(&sse("{not json")).unwrap_err();
        assert!(matches!(error, ProviderError::Decode { .. }));
        let events = Parser::new()
            .on_event(&sse(
                r#"{"id":"x","choices":[{"index":0,"delta":{"content":"a","audio":{"id":"q"}},"future":1}],"x_groq":{"id":"req_1"}}"#,
            ))
            .unwrap();
        assert_eq!(events.len(), 2);
    }

    #[test]
    fn error_bodies_are_parsed_like_the_responses_api_ones() {
        let body = wire_streams::vllm_error_body().to_string();
        let vllm = parse_error_body(400, &body);
        assert_eq!(vllm.error_type.as_deref(), Some("BadRequestError"));
        assert!(
            vllm.message
                .contains("maximum context length is 32768 tokens")
        );

        let llama = parse_error_body(
            400,
            &wire_streams::llamacpp_context_error_body().to_string(),
        );
        assert_eq!(
            llama.error_type.as_deref(),
            Some("exceed_context_size_error")
        );

        let ollama = parse_error_body(
            404,
            &wire_streams::ollama_model_not_found_body("qwen9").to_string(),
        );
        assert_eq!(ollama.error_type.as_deref(), Some("not_found_error"));
        assert_eq!(ollama.code, None);
        assert_eq!(
            ollama.message,
            "model \"qwen9\" not found, try pulling it first"
        );

        let rate = parse_error_body(429, &wire_streams::error_body(429).to_string());
        assert_eq!(rate.code.as_deref(), Some("rate_limit_exceeded"));
        assert_eq!(
            rate.retry_delay,
            Some(std::time::Duration::from_millis(644))
        );
    }
}
