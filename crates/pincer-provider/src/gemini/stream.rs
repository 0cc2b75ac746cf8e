//! Maps Gemini's SSE chunks (each a full `GenerateContentResponse`) to neutral stream events.
//! Pure: no I/O.
//!
//! - Consecutive text parts (or consecutive thought parts) grow one block, across chunks; a part
//!   of the other kind or a function call starts a new block. Blocks are numbered in order of
//!   appearance.
//! - A `thoughtSignature` on a text or thought part becomes that block's signature; an empty one
//!   never replaces an earlier one (some backends only sign the first delta).
//! - A `functionCall` part is a whole [`StreamEvent::ToolCall`]. Its id is the part's `id`, or
//!   `call_<responseId>_<n>`: deterministic within a response, and unique across the turns of a
//!   session, which other providers require when the history is replayed to them.
//! - `usageMetadata` is repeated with running values in every chunk; each becomes a complete
//!   [`StreamEvent::Usage`] snapshot.
//! - There is no `[DONE]`: the stream is complete once a chunk carries `finishReason`.
//! - Google Search grounding (`groundingMetadata`, the latest one seen) is told when the answer
//!   finishes: each page that supports a part of the answer becomes a citation of the last text
//!   block, then the search itself a server tool call in a block after it (its queries as the
//!   input, the pages as the results); each query counts as one web search in the usage.
//!   Nothing of it is sent back on later requests.

use std::time::Duration;

use super::wire::{
    Candidate, ErrorBody, ErrorDetail, GenerateContentResponse, GoogleError, GroundingMetadata,
    Part, StreamPayload, UsageMetadata,
};
use crate::conversation::StopReason;
use crate::conversation::StreamEvent;
use crate::conversation::TokenUsage;
use crate::conversation::{Citation, ServerToolCall, WebResult};
use crate::sse::SseEvent;
use crate::{ErrorDetails, ProviderError, StreamParser};

/// The provider name in errors.
const PROVIDER: &str = "google";

/// How many characters of a non-JSON error body become the message.
const MESSAGE_LIMIT: usize = 200;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BlockKind {
    Text,
    Thinking,
}

/// The stream parser.
#[derive(Debug, Default)]
pub struct Parser {
    started: bool,
    finished: bool,
    /// The number the next block gets.
    next_block: usize,
    /// The text or thinking block that a following part of the same kind continues.
    open: Option<(BlockKind, usize)>,
    /// Tool calls seen, for generated ids.
    calls: usize,
    /// The response id, sanitized for use in generated call ids.
    id_stem: Option<String>,
    /// The last text block, which grounding citations belong to.
    last_text: Option<usize>,
    /// The latest grounding metadata, told when the answer finishes.
    grounding: Option<GroundingMetadata>,
}

impl Parser {
    /// A new parser.
    pub fn new() -> Parser {
        Parser::default()
    }

    fn on_response(
        &mut self,
        response: GenerateContentResponse,
        raw: &str,
    ) -> Result<Vec<StreamEvent>, ProviderError> {
        let mut events = Vec::new();
        if !self.started {
            self.started = true;
            self.id_stem = response.response_id.as_deref().map(sanitize_id);
            events.push(StreamEvent::Start {
                response_id: response.response_id.clone(),
                model: response.model_version.clone(),
            });
        }
        let candidate = response
            .candidates
            .into_iter()
            .find(|candidate| candidate.index.unwrap_or(0) == 0);
        if candidate.is_none()
            && let Some(feedback) = response.prompt_feedback
            && let Some(reason) = feedback.block_reason
        {
            let message = match feedback.block_reason_message {
                Some(message) if !message.is_empty() => message,
                _ => format!("Gemini blocked the prompt ({reason})"),
            };
            return Err(ProviderError::stream(
                PROVIDER,
                ErrorDetails {
                    code: Some(reason),
                    message,
                    ..ErrorDetails::default()
                },
                raw,
            ));
        }
        let mut finish = None;
        if let Some(Candidate {
            content,
            finish_reason,
            grounding_metadata,
            ..
        }) = candidate
        {
            for part in content.map(|content| content.parts).unwrap_or_default() {
                self.on_part(part, &mut events);
            }
            finish = finish_reason.filter(|reason| !reason.is_empty());
            if grounding_metadata.is_some() {
                self.grounding = grounding_metadata;
            }
        }
        if finish.is_some() {
            self.tell_grounding(&mut events);
        }
        if let Some(usage) = response.usage_metadata {
            events.push(StreamEvent::Usage(TokenUsage {
                web_search_requests: self.searches(),
                ..normalize_usage(usage)
            }));
        }
        if let Some(word) = finish {
            self.finished = true;
            events.push(StreamEvent::Finish {
                reason: stop_reason(&word),
                provider_reason: word,
            });
        }
        Ok(events)
    }

    fn on_part(&mut self, part: Part, events: &mut Vec<StreamEvent>) {
        let signature = part
            .thought_signature
            .filter(|signature| !signature.is_empty());
        if let Some(call) = part.function_call {
            self.open = None;
            let block = self.new_block();
            let id = match call.id.filter(|id| !id.is_empty()) {
                Some(id) => id,
                None => self.generate_call_id(),
            };
            let arguments = if call.args.is_null() {
                serde_json::Value::Object(serde_json::Map::new())
            } else {
                call.args
            };
            events.push(StreamEvent::ToolCall {
                block,
                id,
                name: call.name,
                arguments,
                thought_signature: signature,
            });
            return;
        }
        let (block, kind) = match part.text {
            Some(text) => {
                let kind = if part.thought == Some(true) {
                    BlockKind::Thinking
                } else {
                    BlockKind::Text
                };
                if text.is_empty() && signature.is_none() {
                    return;
                }
                let block = self.block_for(kind);
                if kind == BlockKind::Text {
                    self.last_text = Some(block);
                }
                if !text.is_empty() {
                    events.push(match kind {
                        BlockKind::Text => StreamEvent::TextDelta { block, text },
                        BlockKind::Thinking => StreamEvent::ThinkingDelta { block, text },
                    });
                }
                (block, kind)
            }
            // A bare signature part belongs to the block it follows; other part kinds
            // (inline data, executable code, …) have no neutral form and are skipped.
            None => match self.open {
                Some((kind, block)) => (block, kind),
                None => return,
            },
        };
        if let Some(signature) = signature {
            events.push(match kind {
                BlockKind::Text => StreamEvent::TextSignature { block, signature },
                BlockKind::Thinking => StreamEvent::ThinkingSignature { block, signature },
            });
        }
    }

    /// Searches run so far: the grounding's queries.
    fn searches(&self) -> u64 {
        self.grounding
            .as_ref()
            .map_or(0, |grounding| grounding.web_search_queries.len() as u64)
    }

    /// The citations and the search of the grounding metadata (see the module header).
    fn tell_grounding(&mut self, events: &mut Vec<StreamEvent>) {
        let Some(grounding) = self.grounding.clone() else {
            return;
        };
        if grounding.web_search_queries.is_empty() && grounding.grounding_chunks.is_empty() {
            return;
        }
        let pages: Vec<WebResult> = grounding
            .grounding_chunks
            .iter()
            .filter_map(|chunk| chunk.web.as_ref())
            .map(|web| WebResult {
                url: web.uri.clone(),
                title: web.title.clone(),
            })
            .collect();
        if let Some(block) = self.last_text {
            for support in &grounding.grounding_supports {
                let cited_text = support
                    .segment
                    .as_ref()
                    .and_then(|segment| segment.text.clone());
                for page in support
                    .grounding_chunk_indices
                    .iter()
                    .filter_map(|index| grounding.grounding_chunks.get(*index))
                    .filter_map(|chunk| chunk.web.as_ref())
                {
                    events.push(StreamEvent::Citation {
                        block,
                        citation: Citation {
                            url: page.uri.clone(),
                            title: page.title.clone(),
                            cited_text: cited_text.clone(),
                            payload: None,
                        },
                    });
                }
            }
        }
        self.open = None;
        let block = self.new_block();
        let id = match &self.id_stem {
            Some(stem) => format!("search_{stem}"),
            None => format!("search_{block}"),
        };
        events.push(StreamEvent::ServerTool {
            block,
            call: ServerToolCall {
                id,
                name: "web_search".to_owned(),
                input: serde_json::json!({ "queries": grounding.web_search_queries }),
                results: pages,
                error: None,
                payload: None,
            },
        });
    }

    fn new_block(&mut self) -> usize {
        let block = self.next_block;
        self.next_block += 1;
        block
    }

    /// The open block of `kind`, or a new one.
    fn block_for(&mut self, kind: BlockKind) -> usize {
        match self.open {
            Some((open_kind, block)) if open_kind == kind => block,
            _ => {
                let block = self.new_block();
                self.open = Some((kind, block));
                block
            }
        }
    }

    fn generate_call_id(&mut self) -> String {
        let number = self.calls;
        self.calls += 1;
        match &self.id_stem {
            Some(stem) => format!("call_{stem}_{number}"),
            None => format!("call_{number}"),
        }
    }
}

impl StreamParser for Parser {
    fn on_event(&mut self, event: &SseEvent) -> Result<Vec<StreamEvent>, ProviderError> {
        if let Some(error) = &event.error {
            return Err(ProviderError::stream(
                PROVIDER,
                parse_error_body(200, error),
                error,
            ));
        }
        let data = event.data.trim();
        if data.is_empty() {
            return Ok(Vec::new());
        }
        let payload = serde_json::from_str::<StreamPayload>(data).map_err(|_| {
            // The untagged enum only says "no variant matched": report the chunk's own error.
            let message = serde_json::from_str::<GenerateContentResponse>(data)
                .err()
                .map_or_else(|| "unexpected JSON".to_owned(), |error| error.to_string());
            ProviderError::decode(PROVIDER, message, data)
        })?;
        match payload {
            StreamPayload::Error(body) => {
                let details = body.into_error().map_or_else(
                    || ErrorDetails {
                        message: "Gemini sent an error without details".to_owned(),
                        ..ErrorDetails::default()
                    },
                    error_details,
                );
                Err(ProviderError::stream(PROVIDER, details, data))
            }
            StreamPayload::Response(response) => self.on_response(response, data),
        }
    }

    fn is_finished(&self) -> bool {
        self.finished
    }
}

/// SPEC §8: the three prompt parts are disjoint (`input` excludes the cached part, and adds the
/// prompt tokens of built-in tools, which are billed as input); output includes thoughts.
fn normalize_usage(usage: UsageMetadata) -> TokenUsage {
    let cache_read = usage
        .cached_content_token_count
        .min(usage.prompt_token_count);
    TokenUsage {
        input: usage.prompt_token_count - cache_read + usage.tool_use_prompt_token_count,
        output: usage.candidates_token_count + usage.thoughts_token_count,
        cache_read,
        cache_write: 0,
        cache_write_1h: 0,
        reasoning: usage.thoughts_token_count,
        web_search_requests: 0,
    }
}

/// `STOP` ends normally (a function call also ends with `STOP`; the accumulator sees the calls),
/// `MAX_TOKENS` is a cut; every other reason (`SAFETY`, `RECITATION`, `MALFORMED_FUNCTION_CALL`,
/// …, and any newer one) means the answer was withheld or broken.
pub fn stop_reason(word: &str) -> StopReason {
    match word {
        "STOP" => StopReason::Stop,
        "MAX_TOKENS" => StopReason::Length,
        _ => StopReason::Error,
    }
}

/// Keep the characters that every provider accepts in a tool call id.
fn sanitize_id(id: &str) -> String {
    id.chars()
        .filter(|character| character.is_ascii_alphanumeric() || matches!(character, '_' | '-'))
        .collect()
}

fn error_details(error: GoogleError) -> ErrorDetails {
    let mut code = None;
    let mut retry_delay = None;
    let mut quota_id: Option<String> = None;
    for detail in &error.details {
        match detail {
            ErrorDetail::ErrorInfo {
                reason: Some(reason),
                ..
            } if code.is_none() => code = Some(reason.clone()),
            ErrorDetail::RetryInfo {
                retry_delay: Some(delay),
            } => retry_delay = parse_duration(delay),
            ErrorDetail::QuotaFailure { violations } => {
                // A per-day quota decides the class (it does not clear within minutes), so it
                // wins over a per-minute one violated at the same time.
                for id in violations.iter().filter_map(|v| v.quota_id.as_ref()) {
                    if quota_id.is_none() || crate::classify::is_daily_quota(id) {
                        quota_id = Some(id.clone());
                    }
                }
            }
            _ => {}
        }
    }
    ErrorDetails {
        error_type: error.status,
        code,
        message: error.message,
        retry_delay,
        quota_id,
    }
}

/// A protobuf `Duration` in its JSON form: decimal seconds with an `s` suffix (`"34.4s"`).
fn parse_duration(text: &str) -> Option<Duration> {
    let seconds: f64 = text.trim().strip_suffix('s')?.parse().ok()?;
    if seconds < 0.0 {
        return None;
    }
    Duration::try_from_secs_f64(seconds).ok()
}

/// Map an error response body to details: the `{"error": {…}}` envelope (also inside an
/// array), else the start of the body as the message (HTML from a proxy, plain text).
pub fn parse_error_body(status: u16, body: &str) -> ErrorDetails {
    let trimmed = body.trim();
    if let Some(error) = serde_json::from_str::<ErrorBody>(trimmed)
        .ok()
        .and_then(ErrorBody::into_error)
    {
        return error_details(error);
    }
    let message = if trimmed.is_empty() {
        format!("HTTP {status} with an empty body")
    } else {
        trimmed.chars().take(MESSAGE_LIMIT).collect()
    };
    ErrorDetails {
        message,
        ..ErrorDetails::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Accumulator;
    use crate::conversation::AssistantMessage;
    use pretty_assertions::assert_eq;
    use serde_json::{Value, json};

    const TEXT: &[u8] = include_bytes!("../../../../tests/fixtures/gemini/text.sse");
    const FUNCTION_CALL: &[u8] =
        include_bytes!("../../../../tests/fixtures/gemini/function_call_thought_signature.sse");
    const THINKING: &[u8] = include_bytes!("../../../../tests/fixtures/gemini/thinking.sse");
    const CACHED_USAGE: &[u8] =
        include_bytes!("../../../../tests/fixtures/gemini/cached_usage.sse");
    const SAFETY_BLOCK: &[u8] =
        include_bytes!("../../../../tests/fixtures/gemini/safety_block.sse");
    const PROMPT_BLOCKED: &[u8] =
        include_bytes!("../../../../tests/fixtures/gemini/prompt_blocked.sse");
    const OVERLOADED: &[u8] =
        include_bytes!("../../../../tests/fixtures/gemini/overloaded_mid_stream.sse");

    use crate::test_support::{Outcome, parse_all_ways};

    /// The Gemini tests' views of an outcome.
    trait OutcomeExt {
        fn message(&self) -> AssistantMessage;
        fn error_details(&self) -> ErrorDetails;
    }

    impl OutcomeExt for Outcome {
        fn message(&self) -> AssistantMessage {
            let mut accumulator = Accumulator::new();
            for event in &self.events {
                accumulator.apply(event);
            }
            accumulator.message("google-generative-ai", "google", "gemini", 0, None)
        }

        fn error_details(&self) -> ErrorDetails {
            self.error
                .as_ref()
                .and_then(ProviderError::details)
                .cloned()
                .unwrap()
        }
    }

    /// Parse whole, and check that chunk sizes 1, 3 and 7 give the very same result.
    fn parse(stream: &[u8]) -> Outcome {
        parse_all_ways(Parser::new, stream)
    }

    fn event(data: Value) -> SseEvent {
        SseEvent {
            data: data.to_string(),
            ..SseEvent::default()
        }
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

    #[test]
    fn text_chunks_concatenate_into_one_block_with_running_usage_and_a_stop() {
        let outcome = parse(TEXT);
        let start = StreamEvent::Start {
            response_id: Some("jHqbPlAD0wtmuNEW-sGje-z".to_owned()),
            model: Some("gemini-2.5-flash".to_owned()),
        };
        let delta = |text: &str| StreamEvent::TextDelta {
            block: 0,
            text: text.to_owned(),
        };
        assert_eq!(
            outcome.events,
            vec![
                start,
                delta("Caf\u{e9} au lait \u{2615} is"),
                usage(9, 4, 0, 0),
                delta(" espresso with\nsteamed milk"),
                usage(9, 11, 0, 0),
                delta(" \"and nothing else\"."),
                usage(9, 17, 0, 0),
                StreamEvent::Finish {
                    reason: StopReason::Stop,
                    provider_reason: "STOP".to_owned(),
                },
            ]
        );
        assert!(outcome.finished);
        let message = pincer_session::pi_fixtures::pi_json(&outcome.message());
        assert_eq!(
            message["content"],
            json!([{"type": "text", "text": "Caf\u{e9} au lait \u{2615} is espresso with\nsteamed milk \"and nothing else\"."}])
        );
        assert_eq!(message["stopReason"], "stop");
        assert_eq!(message["usage"]["totalTokens"], 26);
    }

    #[test]
    fn parallel_function_calls_become_tool_calls_with_generated_ids_and_the_first_ones_signature() {
        let outcome = parse(FUNCTION_CALL);
        assert!(outcome.finished);
        let calls: Vec<&StreamEvent> = outcome
            .events
            .iter()
            .filter(|event| matches!(event, StreamEvent::ToolCall { .. }))
            .collect();
        let signature = "0SorVT9cONZEhNaLMWkHmUqskDFoI1sX279bB2QD0v1b9recyuB9dpKNTcFpROLA15Z18v7gzkyG4U/IJIryt8EIpkv/7Y0dpbLcixzPG7OzdQEH6aZUY190J8tYu5aIeRiAqsEy28wmORmfx6IjiAvTsC+YN5v1iar2TpBCj1jj1QZkeySFLqof8XHBRqd/P8ccimKbq50jJ4621CUPRqnu8OvTO3j1E9iWovdq69g9r21/";
        assert_eq!(
            calls,
            vec![
                &StreamEvent::ToolCall {
                    block: 0,
                    id: "call_ZF2g8tiqDJXlLtgunVurbM4_0".to_owned(),
                    name: "read".to_owned(),
                    arguments: json!({"path": "src/main.rs"}),
                    thought_signature: Some(signature.to_owned()),
                },
                &StreamEvent::ToolCall {
                    block: 1,
                    id: "call_ZF2g8tiqDJXlLtgunVurbM4_1".to_owned(),
                    name: "grep".to_owned(),
                    arguments: json!({"pattern": "fn main", "limit": 5}),
                    thought_signature: None,
                },
            ]
        );
        let message = outcome.message();
        // The closing chunk's empty text part adds no block; STOP with calls is a tool use.
        assert_eq!(message.content.len(), 2);
        assert_eq!(message.stop_reason, StopReason::ToolUse);
        assert_eq!(
            outcome.events.last(),
            Some(&StreamEvent::Finish {
                reason: StopReason::Stop,
                provider_reason: "STOP".to_owned()
            })
        );
        assert_eq!((message.usage.input, message.usage.output), (131, 243));
    }

    #[test]
    fn thought_parts_form_a_thinking_block_and_the_text_keeps_its_signature() {
        let outcome = parse(THINKING);
        assert!(outcome.finished);
        let message = pincer_session::pi_fixtures::pi_json(&outcome.message());
        assert_eq!(
            message["content"],
            json!([
                {"type": "thinking", "thinking": "**Checking the arithmetic**\n\nThe user wants 17 times 23. 17 \u{d7} 20 is 340 and 17 \u{d7} 3 is 51, so 391.\n\n"},
                {"type": "text", "text": "17 \u{d7} 23 = 391.", "textSignature": "b0JKyJNG2pAMc0WDhUVCXoV7Q3T2qMQHOMso+aOU29teaE7tlHlihpnM7lf9wfJr9EbU2ICcjYXZVsZ0Wc69HILH5AtuThUCOKBwJCBSv0TWqbFQiPRlWV7gZShajJbYV/69ufe6Jzm19AZdCdtPW05ZnIJRG4gZVvxeRCytD6ZQT4Q4ifZa9rm3pIhwMlfvucKbBx1mfJX0ZBCzVuatPeODHyHVNS5Ciaw6ZEciTr+t3zJ/SveVO9IAqny2PKQLNtu5YnU/Wx1175oWmv93DRBqWI6e1lQThGLvMafazB/jt7PCanYsFKkcDcPM7LxnN510JglHWsc9S1AGuwQRz3oiN2WlRhntvAHdBE6yeEuueJgIqWm9IFsCnOrqyaNMrqOqdJzgIW6faa6C"}
            ])
        );
        let last_usage = outcome
            .events
            .iter()
            .rev()
            .find(|event| matches!(event, StreamEvent::Usage(_)));
        assert_eq!(last_usage, Some(&usage(21, 151, 0, 142)));
    }

    #[test]
    fn cached_prompt_tokens_are_taken_out_of_input_and_thoughts_count_as_output() {
        let outcome = parse(CACHED_USAGE);
        assert_eq!(
            outcome.events.iter().rev().nth(1),
            Some(&usage(334, 889, 17379, 821))
        );
        let message = outcome.message();
        assert_eq!(message.usage.cache_read, 17379);
        assert_eq!(message.usage.cache_write, 0);
        assert_eq!(message.usage.context_tokens(), 18602);
    }

    #[test]
    fn a_safety_stop_keeps_the_partial_text_and_finishes_as_an_error_with_the_wire_word() {
        let outcome = parse(SAFETY_BLOCK);
        assert!(outcome.finished);
        assert!(outcome.error.is_none());
        assert_eq!(
            outcome.events.last(),
            Some(&StreamEvent::Finish {
                reason: StopReason::Error,
                provider_reason: "SAFETY".to_owned()
            })
        );
        let message = outcome.message();
        assert_eq!(message.stop_reason, StopReason::Error);
        assert_eq!(
            pincer_session::pi_fixtures::pi_content(&message),
            json!([{"type": "text", "text": "Here is how you could"}])
        );
    }

    #[test]
    fn a_blocked_prompt_is_a_stream_error_with_the_block_reason_as_code() {
        let outcome = parse(PROMPT_BLOCKED);
        assert!(!outcome.finished);
        assert!(matches!(outcome.error, Some(ProviderError::Stream { .. })));
        let details = outcome.error_details();
        assert_eq!(details.code.as_deref(), Some("PROHIBITED_CONTENT"));
        assert_eq!(
            details.message,
            "Gemini blocked the prompt (PROHIBITED_CONTENT)"
        );
    }

    #[test]
    fn an_error_payload_mid_stream_is_an_error_after_the_text_already_streamed() {
        let outcome = parse(OVERLOADED);
        assert!(!outcome.finished);
        assert_eq!(
            outcome.events[1],
            StreamEvent::TextDelta {
                block: 0,
                text: "Let me start by".to_owned()
            }
        );
        assert_eq!(
            outcome.error_details(),
            ErrorDetails {
                error_type: Some("UNAVAILABLE".to_owned()),
                code: None,
                message: "The model is overloaded. Please try again later.".to_owned(),
                retry_delay: None,
                quota_id: None,
            }
        );
    }

    #[test]
    fn an_error_wrapped_in_an_array_is_an_error_too() {
        let mut parser = Parser::new();
        let error = parser
            .on_event(&event(json!([{"error": {"code": 500, "message": "Internal error encountered.", "status": "INTERNAL"}}])))
            .unwrap_err();
        let details = error.details().unwrap();
        assert_eq!(details.error_type.as_deref(), Some("INTERNAL"));
        assert_eq!(details.message, "Internal error encountered.");
    }

    #[test]
    fn call_ids_from_the_wire_are_kept_and_generated_ones_count_up_without_a_response_id() {
        let mut parser = Parser::new();
        let events = parser
            .on_event(&event(
                json!({"candidates": [{"content": {"role": "model", "parts": [
                    {"functionCall": {"id": "fc-7", "name": "a", "args": {"k": 1}}},
                    {"functionCall": {"name": "b"}},
                    {"functionCall": {"name": "c", "args": {}}, "thoughtSignature": ""}
                ]}}]}),
            ))
            .unwrap();
        let ids: Vec<(&str, &Value, &Option<String>)> = events
            .iter()
            .filter_map(|event| match event {
                StreamEvent::ToolCall {
                    id,
                    arguments,
                    thought_signature,
                    ..
                } => Some((id.as_str(), arguments, thought_signature)),
                _ => None,
            })
            .collect();
        assert_eq!(
            ids,
            vec![
                ("fc-7", &json!({"k": 1}), &None),
                ("call_0", &json!({}), &None),
                ("call_1", &json!({}), &None)
            ]
        );
        assert!(!parser.is_finished());
    }

    #[test]
    fn alternating_text_and_thought_parts_open_new_blocks_and_empty_signatures_are_ignored() {
        let mut parser = Parser::new();
        let events = parser
            .on_event(&event(json!({"candidates": [{"content": {"parts": [
                {"text": "a"},
                {"text": "b", "thought": true, "thoughtSignature": "t1"},
                {"text": "", "thought": true, "thoughtSignature": ""},
                {"executableCode": {"language": "PYTHON", "code": "print(1)"}},
                {"text": "c", "thoughtSignature": "x1"}
            ]}, "index": 0, "unknownField": 1}], "newTopLevel": true})))
            .unwrap();
        assert_eq!(
            events[1..].to_vec(),
            vec![
                StreamEvent::TextDelta {
                    block: 0,
                    text: "a".into()
                },
                StreamEvent::ThinkingDelta {
                    block: 1,
                    text: "b".into()
                },
                StreamEvent::ThinkingSignature {
                    block: 1,
                    signature: "t1".into()
                },
                StreamEvent::TextDelta {
                    block: 2,
                    text: "c".into()
                },
                StreamEvent::TextSignature {
                    block: 2,
                    signature: "x1".into()
                },
            ]
        );
        assert_eq!(
            events[0],
            StreamEvent::Start {
                response_id: None,
                model: None
            }
        );
    }

    #[test]
    fn unexpected_roles_and_partial_inline_data_do_not_break_a_chunk() {
        let events = Parser::new()
            .on_event(&event(
                json!({"candidates": [{"content": {"role": "function", "parts": [
                    {"inlineData": {"mimeType": "image/png"}},
                    {"text": "ok"}
                ]}}]}),
            ))
            .unwrap();
        assert_eq!(
            events[1..].to_vec(),
            vec![StreamEvent::TextDelta {
                block: 0,
                text: "ok".into()
            }]
        );
    }

    #[test]
    fn grounding_metadata_cites_the_text_and_becomes_a_search_after_it() {
        let mut parser = Parser::new();
        let mut events = parser
            .on_event(&event(json!({
                "candidates": [{"content": {"parts": [{"text": "Rust 1.95 shipped "}], "role": "model"}, "index": 0}],
                "responseId": "g-1"
            })))
            .unwrap();
        events.extend(parser.on_event(&event(json!({
            "candidates": [{
                "content": {"parts": [{"text": "in April."}], "role": "model"},
                "finishReason": "STOP",
                "index": 0,
                "groundingMetadata": {
                    "searchEntryPoint": {"renderedContent": "<div></div>"},
                    "groundingChunks": [
                        {"web": {"uri": "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AbC", "title": "rust-lang.org"}},
                        {"web": {"uri": "https://vertexaisearch.cloud.google.com/grounding-api-redirect/DeF", "title": "lwn.net"}}
                    ],
                    "groundingSupports": [{
                        "segment": {"startIndex": 0, "endIndex": 27, "text": "Rust 1.95 shipped in April."},
                        "groundingChunkIndices": [0, 1],
                        "confidenceScores": [0.9, 0.7]
                    }],
                    "webSearchQueries": ["rust 1.95 release date"]
                }
            }],
            "usageMetadata": {"promptTokenCount": 20, "candidatesTokenCount": 8, "toolUsePromptTokenCount": 96},
            "responseId": "g-1"
        })))
        .unwrap());
        assert!(parser.is_finished());
        let usage = events.iter().rev().find_map(|event| match event {
            StreamEvent::Usage(usage) => Some(*usage),
            _ => None,
        });
        assert_eq!(usage.map(|usage| usage.web_search_requests), Some(1));
        assert_eq!(usage.map(|usage| usage.input), Some(116));
        let outcome = Outcome {
            events,
            error: None,
            finished: true,
        };
        let content = pincer_session::pi_fixtures::pi_content(&outcome.message());
        assert_eq!(content[0]["text"], "Rust 1.95 shipped in April.");
        assert_eq!(content[0]["citations"].as_array().unwrap().len(), 2);
        assert_eq!(content[0]["citations"][1]["title"], "lwn.net");
        assert_eq!(
            content[0]["citations"][0]["citedText"],
            "Rust 1.95 shipped in April."
        );
        assert_eq!(
            content[1],
            json!({"type": "serverToolCall", "id": "search_g-1", "name": "web_search",
            "arguments": {"queries": ["rust 1.95 release date"]},
            "results": [
                {"url": "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AbC", "title": "rust-lang.org"},
                {"url": "https://vertexaisearch.cloud.google.com/grounding-api-redirect/DeF", "title": "lwn.net"}
            ]})
        );
    }

    #[test]
    fn finish_reasons_map_to_stop_length_and_error() {
        for (word, reason) in [
            ("STOP", StopReason::Stop),
            ("MAX_TOKENS", StopReason::Length),
            ("RECITATION", StopReason::Error),
            ("MALFORMED_FUNCTION_CALL", StopReason::Error),
            ("SOMETHING_NEW", StopReason::Error),
        ] {
            let mut parser = Parser::new();
            let events = parser
                .on_event(&event(
                    json!({"candidates": [{"finishReason": word, "index": 0}]}),
                ))
                .unwrap();
            assert_eq!(
                events.last(),
                Some(&StreamEvent::Finish {
                    reason,
                    provider_reason: word.to_owned()
                })
            );
            assert!(parser.is_finished());
        }
    }

    #[test]
    fn a_chunk_that_is_not_json_is_a_decode_error() {
        let error = Parser::new()
            .on_event(&SseEvent {
                data: "{\"candidates\": [".to_owned(),
                ..SseEvent::default()
            })
            .unwrap_err();
        assert!(matches!(error, ProviderError::Decode { .. }), "{error:?}");
    }

    #[test]
    fn the_quota_error_gives_its_status_and_retry_delay() {
        let body = r#"{
  "error": {
    "code": 429,
    "message": "You exceeded your current quota, please check your plan.",
    "status": "RESOURCE_EXHAUSTED",
    "details": [
      {
        "@type": "type.googleapis.com/google.rpc.QuotaFailure",
        "violations": [
          {
            "quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier"
          }
        ]
      },
      {
        "@type": "type.googleapis.com/google.rpc.RetryInfo",
        "retryDelay": "34.4s"
      }
    ]
  }
}
"#;
        assert_eq!(
            parse_error_body(429, body),
            ErrorDetails {
                error_type: Some("RESOURCE_EXHAUSTED".to_owned()),
                code: None,
                message: "You exceeded your current quota, please check your plan.".to_owned(),
                retry_delay: Some(Duration::from_millis(34_400)),
                quota_id: Some("GenerateRequestsPerMinutePerProjectPerModel-FreeTier".to_owned()),
            }
        );
    }

    #[test]
    fn an_invalid_key_error_gives_the_error_info_reason_as_code_even_inside_an_array() {
        let body = json!([{"error": {
            "code": 400,
            "message": "API key not valid. Please pass a valid API key.",
            "status": "INVALID_ARGUMENT",
            "details": [
                {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID",
                 "domain": "googleapis.com", "metadata": {"service": "generativelanguage.googleapis.com"}},
                {"@type": "type.googleapis.com/google.rpc.LocalizedMessage", "locale": "en-US",
                 "message": "API key not valid. Please pass a valid API key."}
            ]
        }}]);
        let details = parse_error_body(400, &body.to_string());
        assert_eq!(details.error_type.as_deref(), Some("INVALID_ARGUMENT"));
        assert_eq!(details.code.as_deref(), Some("API_KEY_INVALID"));
        assert_eq!(
            details.message,
            "API key not valid. Please pass a valid API key."
        );
        assert_eq!(details.retry_delay, None);
    }

    #[test]
    fn a_body_that_is_not_an_envelope_keeps_its_first_200_characters() {
        let html = format!("<html><body>{}</body></html>", "\u{e9}".repeat(300));
        let details = parse_error_body(502, &html);
        assert_eq!(details.message.chars().count(), 200);
        assert!(details.message.starts_with("<html><body>\u{e9}"));
        assert_eq!(details.error_type, None);
        assert_eq!(
            parse_error_body(503, "  \n").message,
            "HTTP 503 with an empty body"
        );
        assert_eq!(
            parse_error_body(500, "{\"unexpected\": true}").message,
            "{\"unexpected\": true}"
        );
    }

    #[test]
    fn retry_delays_parse_as_protobuf_durations() {
        assert_eq!(parse_duration("34s"), Some(Duration::from_secs(34)));
        assert_eq!(parse_duration("0.5s"), Some(Duration::from_millis(500)));
        assert_eq!(parse_duration("-1s"), None);
        assert_eq!(parse_duration("34"), None);
        assert_eq!(parse_duration("1e300s"), None);
    }
}
