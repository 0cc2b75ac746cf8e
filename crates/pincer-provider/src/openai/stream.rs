//! Parses a Responses API event stream (reference §3.2–§3.5) into neutral [`StreamEvent`]s.
//!
//! Block numbers are the items' `output_index`, so a reasoning item, a message and each function
//! call are separate blocks in the order the model produced them; the summary parts of one
//! reasoning item share its block (separated by a blank line). Compatible servers that leave
//! `output_index` out (llama.cpp) are followed by item id instead.
//!
//! A finished reasoning item is emitted whole, as JSON text, in a [`StreamEvent::ThinkingSignature`]
//! — that is what `request.rs` echoes back on the next turn.
//!
//! Web search (`provider::web_search`): a `web_search_call` item is a server tool call, started
//! when the item is added and completed whole from the finished item (its `action` and sources);
//! the finished item is kept as the call's payload, to be echoed back. Each `url_citation`
//! annotation (`response.output_text.annotation.added`, or only in the finished message item)
//! is a citation of the message's text. The Responses usage has no search count: each
//! `web_search_call` whose action is a search counts one.
//!
//! The stream ends with `response.completed`, `response.incomplete` or `response.failed`; there
//! is no `[DONE]`. An `error` event or `response.failed` is returned as an error.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use super::wire::{
    Annotation, ErrorBody, ErrorField, ErrorObject, MessageContent, OutputItem, Response,
    ResponsesEvent, Usage, WebSearchAction,
};
use crate::conversation::StopReason;
use crate::conversation::StreamEvent;
use crate::conversation::TokenUsage;
use crate::conversation::{Citation, ServerToolCall, WebResult};
use crate::sse::SseEvent;
use crate::{ErrorDetails, ProviderError, StreamParser};

const PROVIDER: &str = "openai";

/// The neutral name of the built-in search.
const WEB_SEARCH: &str = "web_search";

/// A `url_citation` annotation as a citation, the annotation kept to be stored; `None` for the
/// other annotation kinds (file citations).
fn citation_of(annotation: Value) -> Option<Citation> {
    match Annotation::deserialize(&annotation).ok()? {
        Annotation::UrlCitation { url, title } => Some(Citation {
            url,
            title,
            cited_text: None,
            payload: Some(annotation),
        }),
        Annotation::Other => None,
    }
}

/// The stream parser.
#[derive(Debug, Default)]
pub struct Parser {
    finished: bool,
    /// The block number after the highest one seen.
    next_block: usize,
    /// Item ids (and call ids) to block numbers, for events without `output_index`.
    blocks_by_item: HashMap<String, usize>,
    /// The most recently added item, for events that name no item at all.
    current: Option<usize>,
    /// Blocks that received deltas: their `.done` events repeat what is already known.
    streamed: HashSet<usize>,
    /// Blocks whose tool call start was emitted.
    started_calls: HashSet<usize>,
    /// Message blocks that received citation events (their finished item repeats them).
    cited: HashSet<usize>,
    /// Web searches run, for the usage.
    searches: u64,
}

impl Parser {
    /// A new parser.
    pub fn new() -> Parser {
        Parser::default()
    }

    fn block(&mut self, output_index: Option<usize>, item_id: Option<&str>) -> usize {
        let block = output_index
            .or_else(|| item_id.and_then(|id| self.blocks_by_item.get(id).copied()))
            .or(self.current)
            .unwrap_or(self.next_block);
        self.next_block = self.next_block.max(block + 1);
        block
    }

    fn remember(&mut self, block: usize, ids: [Option<&str>; 2]) {
        for id in ids.into_iter().flatten() {
            self.blocks_by_item.insert(id.to_owned(), block);
        }
        self.current = Some(block);
    }

    fn on_wire_event(
        &mut self,
        event: ResponsesEvent,
        raw: &str,
    ) -> Result<Vec<StreamEvent>, ProviderError> {
        let mut events = Vec::new();
        match event {
            ResponsesEvent::Created { response } => events.push(StreamEvent::Start {
                response_id: response.id,
                model: response.model,
            }),
            ResponsesEvent::OutputItemAdded { output_index, item } => {
                // A new item: without `output_index` it goes after every block seen so far.
                let block = self.block(output_index.or(Some(self.next_block)), None);
                match item {
                    OutputItem::FunctionCall {
                        id,
                        call_id,
                        name,
                        arguments,
                    } => {
                        self.remember(block, [id.as_deref(), Some(&call_id)]);
                        self.start_call(block, call_id, name, &mut events);
                        if !arguments.is_empty() {
                            self.streamed.insert(block);
                            events.push(StreamEvent::ToolCallArguments {
                                block,
                                fragment: arguments,
                            });
                        }
                    }
                    OutputItem::Message { id, .. } | OutputItem::Reasoning { id, .. } => {
                        self.remember(block, [id.as_deref(), None]);
                    }
                    OutputItem::WebSearchCall { id, .. } => {
                        self.remember(block, [id.as_deref(), None]);
                        events.push(StreamEvent::ServerToolStart {
                            block,
                            id: id.unwrap_or_else(|| format!("ws_{block}")),
                            name: WEB_SEARCH.to_owned(),
                        });
                    }
                    OutputItem::Other => self.current = Some(block),
                }
            }
            ResponsesEvent::OutputTextAnnotationAdded {
                output_index,
                item_id,
                annotation,
            } => {
                let block = self.block(output_index, item_id.as_deref());
                if let Some(citation) = citation_of(annotation) {
                    self.cited.insert(block);
                    events.push(StreamEvent::Citation { block, citation });
                }
            }
            ResponsesEvent::OutputTextDelta {
                output_index,
                item_id,
                delta,
            }
            | ResponsesEvent::RefusalDelta {
                output_index,
                item_id,
                delta,
            } => {
                let block = self.block(output_index, item_id.as_deref());
                self.streamed.insert(block);
                events.push(StreamEvent::TextDelta { block, text: delta });
            }
            ResponsesEvent::ReasoningSummaryPartAdded {
                output_index,
                item_id,
                summary_index,
            } => {
                let block = self.block(output_index, item_id.as_deref());
                if summary_index > 0 && self.streamed.contains(&block) {
                    events.push(StreamEvent::ThinkingDelta {
                        block,
                        text: "\n\n".to_owned(),
                    });
                }
            }
            ResponsesEvent::ReasoningSummaryTextDelta {
                output_index,
                item_id,
                delta,
            }
            | ResponsesEvent::ReasoningTextDelta {
                output_index,
                item_id,
                delta,
            } => {
                let block = self.block(output_index, item_id.as_deref());
                self.streamed.insert(block);
                events.push(StreamEvent::ThinkingDelta { block, text: delta });
            }
            ResponsesEvent::FunctionCallArgumentsDelta {
                output_index,
                item_id,
                delta,
            } => {
                let block = self.block(output_index, item_id.as_deref());
                self.streamed.insert(block);
                events.push(StreamEvent::ToolCallArguments {
                    block,
                    fragment: delta,
                });
            }
            ResponsesEvent::FunctionCallArgumentsDone {
                output_index,
                item_id,
                arguments,
            } => {
                let block = self.block(output_index, item_id.as_deref());
                if self.streamed.insert(block) {
                    events.push(StreamEvent::ToolCallArguments {
                        block,
                        fragment: arguments,
                    });
                }
            }
            ResponsesEvent::OutputItemDone { output_index, item } => {
                self.on_item_done(output_index, &item, raw, &mut events)?;
            }
            ResponsesEvent::Completed { response } => {
                self.finished = true;
                push_usage(&response, self.searches, &mut events);
                let reason = if self.started_calls.is_empty() {
                    StopReason::Stop
                } else {
                    StopReason::ToolUse
                };
                events.push(StreamEvent::Finish {
                    reason,
                    provider_reason: response.status.unwrap_or_else(|| "completed".to_owned()),
                });
            }
            ResponsesEvent::Incomplete { response } => {
                self.finished = true;
                push_usage(&response, self.searches, &mut events);
                let word = response
                    .incomplete_details
                    .and_then(|details| details.reason)
                    .unwrap_or_else(|| "incomplete".to_owned());
                let reason = match word.as_str() {
                    "content_filter" => StopReason::Error,
                    _ => StopReason::Length,
                };
                events.push(StreamEvent::Finish {
                    reason,
                    provider_reason: word,
                });
            }
            ResponsesEvent::Failed { response } => {
                self.finished = true;
                let details = match response.error {
                    Some(error) => details_from(error),
                    None => ErrorDetails {
                        message: "the response failed without an error object".to_owned(),
                        ..ErrorDetails::default()
                    },
                };
                return Err(ProviderError::stream(PROVIDER, details, raw));
            }
            ResponsesEvent::Error {
                error,
                code,
                message,
            } => {
                let details = match error {
                    Some(error) => details_from(error),
                    None => details_from(ErrorObject {
                        message: message.unwrap_or_default(),
                        error_type: None,
                        code,
                    }),
                };
                return Err(ProviderError::stream(PROVIDER, details, raw));
            }
            ResponsesEvent::Unknown => {}
        }
        Ok(events)
    }

    /// A finished `web_search_call` as a server tool call; a search counts toward the usage.
    fn search_call(
        &mut self,
        block: usize,
        id: Option<String>,
        status: Option<String>,
        action: Option<WebSearchAction>,
        item: &Value,
    ) -> ServerToolCall {
        let action = action.unwrap_or(WebSearchAction {
            kind: None,
            query: None,
            url: None,
            sources: Vec::new(),
        });
        let kind = action.kind.unwrap_or_else(|| "search".to_owned());
        if kind == "search" {
            self.searches += 1;
        }
        let input = match (&action.query, &action.url) {
            (Some(query), _) => serde_json::json!({ "query": query }),
            (None, Some(url)) => serde_json::json!({ "action": kind, "url": url }),
            (None, None) => serde_json::json!({ "action": kind }),
        };
        let results = action
            .sources
            .into_iter()
            .filter_map(|source| source.url)
            .map(|url| WebResult { url, title: None })
            .collect();
        ServerToolCall {
            id: id.unwrap_or_else(|| format!("ws_{block}")),
            name: WEB_SEARCH.to_owned(),
            input,
            results,
            error: status.filter(|status| status == "failed"),
            payload: Some(item.clone()),
        }
    }

    fn start_call(
        &mut self,
        block: usize,
        id: String,
        name: String,
        events: &mut Vec<StreamEvent>,
    ) {
        if self.started_calls.insert(block) {
            events.push(StreamEvent::ToolCallStart { block, id, name });
        }
    }

    /// A finished item: the reasoning item's signature, and whatever a server sent only here
    /// (text or arguments without deltas).
    fn on_item_done(
        &mut self,
        output_index: Option<usize>,
        item: &Value,
        raw: &str,
        events: &mut Vec<StreamEvent>,
    ) -> Result<(), ProviderError> {
        let parsed = OutputItem::deserialize(item)
            .map_err(|error| ProviderError::decode(PROVIDER, error.to_string(), raw))?;
        match parsed {
            OutputItem::Message { id, content } => {
                let block = self.block(output_index, id.as_deref());
                let mut text = String::new();
                let mut annotations = Vec::new();
                for part in content {
                    match part {
                        MessageContent::OutputText {
                            text: part,
                            annotations: found,
                        } => {
                            text.push_str(&part);
                            annotations.extend(found);
                        }
                        MessageContent::Refusal { refusal } => text.push_str(&refusal),
                        MessageContent::Other => {}
                    }
                }
                if !self.streamed.contains(&block) && !text.is_empty() {
                    events.push(StreamEvent::TextDelta { block, text });
                }
                if self.cited.insert(block) {
                    events.extend(
                        annotations
                            .into_iter()
                            .filter_map(citation_of)
                            .map(|citation| StreamEvent::Citation { block, citation }),
                    );
                }
            }
            OutputItem::WebSearchCall { id, status, action } => {
                let block = self.block(output_index, id.as_deref());
                let call = self.search_call(block, id, status, action, item);
                events.push(StreamEvent::ServerTool { block, call });
            }
            OutputItem::Reasoning { id, summary } => {
                let block = self.block(output_index, id.as_deref());
                if !self.streamed.contains(&block) {
                    let texts: Vec<String> = summary
                        .into_iter()
                        .map(|part| part.text)
                        .filter(|text| !text.is_empty())
                        .collect();
                    if !texts.is_empty() {
                        events.push(StreamEvent::ThinkingDelta {
                            block,
                            text: texts.join("\n\n"),
                        });
                    }
                }
                events.push(StreamEvent::ThinkingSignature {
                    block,
                    signature: item.to_string(),
                });
            }
            OutputItem::FunctionCall {
                id,
                call_id,
                name,
                arguments,
            } => {
                let block = self.block(output_index, id.as_deref().or(Some(&call_id)));
                self.start_call(block, call_id, name, events);
                if self.streamed.insert(block) {
                    events.push(StreamEvent::ToolCallArguments {
                        block,
                        fragment: arguments,
                    });
                }
            }
            OutputItem::Other => {}
        }
        Ok(())
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
        // Compatible servers may end with `[DONE]`; the terminal event has already been seen.
        if self.finished || data.is_empty() || data == "[DONE]" {
            return Ok(Vec::new());
        }
        match serde_json::from_str::<ResponsesEvent>(data) {
            Ok(wire_event) => self.on_wire_event(wire_event, data),
            Err(decode_error) => match serde_json::from_str::<ErrorBody>(data) {
                // An error object without a `type` (some compatible servers).
                Ok(ErrorBody {
                    error: Some(error), ..
                }) => Err(ProviderError::stream(
                    PROVIDER,
                    details_from_error_field(error),
                    data,
                )),
                _ => Err(ProviderError::decode(
                    PROVIDER,
                    decode_error.to_string(),
                    data,
                )),
            },
        }
    }

    fn is_finished(&self) -> bool {
        self.finished
    }
}

/// The usage of a terminal event, normalized per SPEC §8.
///
/// Reading of reference §3.3: `input_tokens` is the whole prompt. `cached_tokens` is a part of it
/// (read from the cache), and so is `cache_write_tokens` (the pydantic recording reports 4020 input
/// tokens of which 4012 were written, and the next call reads those 4012 as cached): the tokens
/// written are counted in `input_tokens` but not in `cached_tokens`. Both are subtracted, leaving
/// the three disjoint parts `input + cache_read + cache_write = input_tokens`.
fn push_usage(response: &Response, searches: u64, events: &mut Vec<StreamEvent>) {
    if let Some(usage) = &response.usage {
        events.push(StreamEvent::Usage(TokenUsage {
            web_search_requests: searches,
            ..normalize_usage(usage)
        }));
    }
}

fn normalize_usage(usage: &Usage) -> TokenUsage {
    let (cached, written) = usage
        .input_tokens_details
        .as_ref()
        .map_or((0, 0), |details| {
            (details.cached_tokens, details.cache_write_tokens)
        });
    TokenUsage {
        input: usage
            .input_tokens
            .saturating_sub(cached)
            .saturating_sub(written),
        output: usage.output_tokens,
        cache_read: cached,
        cache_write: written,
        cache_write_1h: 0,
        reasoning: usage
            .output_tokens_details
            .as_ref()
            .map_or(0, |details| details.reasoning_tokens),
        web_search_requests: 0,
    }
}

/// Map an error response body to details. Shared with Chat Completions: the OpenAI envelope
/// `{"error":{"message","type","param","code"}}` (also Ollama's and llama.cpp's, whose `code` is
/// the numeric status), vLLM's flat `{"object":"error","message","type","code"}`, a bare
/// `{"error":"…"}`, and anything else as text (its first 200 characters).
pub fn parse_error_body(status: u16, body: &str) -> ErrorDetails {
    if let Ok(parsed) = serde_json::from_str::<ErrorBody>(body) {
        match parsed {
            ErrorBody {
                error: Some(error), ..
            } => return details_from_error_field(error),
            ErrorBody {
                error: None,
                message: Some(message),
                error_type,
                code,
            } => {
                return details_from(ErrorObject {
                    message,
                    error_type,
                    code,
                });
            }
            ErrorBody { .. } => {}
        }
    }
    let text = body.trim();
    let message = if text.is_empty() {
        format!("HTTP {status} with an empty body")
    } else {
        text.chars().take(200).collect()
    };
    ErrorDetails {
        message,
        ..ErrorDetails::default()
    }
}

pub fn details_from_error_field(field: ErrorField) -> ErrorDetails {
    match field {
        ErrorField::Object(error) => details_from(error),
        ErrorField::Text(message) => ErrorDetails {
            message,
            ..ErrorDetails::default()
        },
    }
}

fn details_from(error: ErrorObject) -> ErrorDetails {
    ErrorDetails {
        retry_delay: retry_delay(&error.message),
        error_type: error.error_type,
        code: error.code,
        message: error.message,
        quota_id: None,
    }
}

/// The wait a rate-limit message asks for: `… Please try again in 644ms.` or `… in 1.5s.`
/// (the pattern Codex parses, reference §2.5).
fn retry_delay(message: &str) -> Option<Duration> {
    const MARKER: &str = "try again in ";
    let start = message.to_ascii_lowercase().find(MARKER)? + MARKER.len();
    let rest = &message[start..];
    let number_end = rest
        .find(|character: char| !(character.is_ascii_digit() || character == '.'))
        .unwrap_or(rest.len());
    let amount: f64 = rest[..number_end].parse().ok()?;
    let unit = &rest[number_end..];
    let seconds = if unit.starts_with("ms") {
        amount / 1000.0
    } else if unit.starts_with('s') {
        amount
    } else {
        return None;
    };
    Duration::try_from_secs_f64(seconds).ok()
}

/// The byte streams the mock server plays in integration tests, checked here against the parser.
#[cfg(test)]
#[allow(
    dead_code,
    unreachable_pub,
    reason = "only some of the mock server's helpers are exercised here; the integration tests share the file, where its items are public"
)]
#[path = "../../../../tests/common/wire/openai.rs"]
mod wire_streams;

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::wire_streams::{self, Usage4};
    use super::*;
    use crate::Accumulator;
    use crate::conversation::{AssistantBlock, AssistantMessage, Message};

    const TEXT: &[u8] = include_bytes!("../../../../tests/fixtures/openai/text.sse");
    const FUNCTION_CALL: &[u8] =
        include_bytes!("../../../../tests/fixtures/openai/function_call.sse");
    const REASONING: &[u8] = include_bytes!("../../../../tests/fixtures/openai/reasoning.sse");
    const INCOMPLETE: &[u8] =
        include_bytes!("../../../../tests/fixtures/openai/incomplete_max_output_tokens.sse");
    const FAILED_QUOTA: &[u8] =
        include_bytes!("../../../../tests/fixtures/openai/failed_quota.sse");

    use crate::test_support::{Outcome, parse_all_ways};

    fn parse(bytes: &[u8]) -> Outcome {
        parse_all_ways(Parser::new, bytes)
    }

    fn message(events: &[StreamEvent]) -> AssistantMessage {
        let mut accumulator = Accumulator::new();
        for event in events {
            accumulator.apply(event);
        }
        accumulator.message("openai-responses", "openai", "gpt-5", 7, None)
    }

    fn content_json(message: &AssistantMessage) -> serde_json::Value {
        pincer_session::pi_fixtures::pi_content(message)
    }

    fn usage(
        input: u64,
        output: u64,
        cache_read: u64,
        cache_write: u64,
        reasoning: u64,
    ) -> StreamEvent {
        StreamEvent::Usage(TokenUsage {
            input,
            output,
            cache_read,
            cache_write,
            cache_write_1h: 0,
            reasoning,
            web_search_requests: 0,
        })
    }

    #[test]
    fn a_text_answer_yields_start_deltas_usage_without_cached_tokens_and_stop() {
        let outcome = parse(TEXT);
        assert!(outcome.error.is_none());
        assert!(outcome.finished);
        assert_eq!(
            outcome.events,
            vec![
                StreamEvent::Start {
                    response_id: Some(
                        "resp_68c1f9a0b7e48195a2d43c6f1e0b5a7d0e9f8c7b6a5d4e3f".into()
                    ),
                    model: Some("gpt-5.5-2026-04-23".into()),
                },
                StreamEvent::TextDelta {
                    block: 0,
                    text: "Café".into()
                },
                StreamEvent::TextDelta {
                    block: 0,
                    text: " is open".into()
                },
                StreamEvent::TextDelta {
                    block: 0,
                    text: " — pong.".into()
                },
                usage(52, 9, 3968, 0, 0),
                StreamEvent::Finish {
                    reason: StopReason::Stop,
                    provider_reason: "completed".into(),
                },
            ]
        );
    }

    #[test]
    fn parallel_function_calls_become_tool_calls_keyed_by_call_id_with_tool_use() {
        let outcome = parse(FUNCTION_CALL);
        assert!(outcome.error.is_none());
        let message = message(&outcome.events);
        assert_eq!(
            content_json(&message),
            json!([
                {"type": "toolCall", "id": "call_sVidsfFJ6zlzRpelrPkTPlpd", "name": "multiply",
                 "arguments": {"a": 1231, "b": 2331}},
                {"type": "toolCall", "id": "call_Xo2Hq7LmN4vB8sD1fG6jK3pR", "name": "multiply",
                 "arguments": {"a": 7, "b": 6}}
            ])
        );
        assert_eq!(message.stop_reason, StopReason::ToolUse);
        assert!(outcome.events.contains(&usage(82, 50, 0, 0, 0)));
        assert!(outcome.events.contains(&StreamEvent::Finish {
            reason: StopReason::ToolUse,
            provider_reason: "completed".into(),
        }));
    }

    const REASONING_ITEM: &str = r#"{"id":"rs_0b7d2f4a6c8e01350068c1fb13b6c88195a0d2e4f6a8c1e3","type":"reasoning","encrypted_content":"gAAAAABowfsZ3kX9mQ2vT8nL1pR6yW0cJ4hF7dS5aG3eK1uB9oN2iM8tV6xZ0qC4wE7rY5lH3jP1sD9fA2gU8kO6bI4nT0mQ7vX5cL3zR1yW9eJ_==","summary":[{"type":"summary_text","text":"**Counting letters**\n\nThe word \"strawberry\" has three r's."},{"type":"summary_text","text":"**Double-checking**\n\ns-t-r-a-w-b-e-r-r-y: r at 3, 8, 9."}]}"#;

    #[test]
    fn a_reasoning_item_becomes_one_thinking_block_signed_with_the_item_json() {
        let outcome = parse(REASONING);
        assert!(outcome.error.is_none());
        let message = message(&outcome.events);
        assert_eq!(
            content_json(&message),
            json!([
                {"type": "thinking",
                 "thinking": "**Counting letters**\n\nThe word \"strawberry\" has three r's.\n\n**Double-checking**\n\ns-t-r-a-w-b-e-r-r-y: r at 3, 8, 9.",
                 "thinkingSignature": REASONING_ITEM},
                {"type": "text", "text": "There are **3** r's in “strawberry”."}
            ])
        );
        // 4020 prompt tokens of which 4012 were written to the cache: 8 plain input tokens.
        assert!(outcome.events.contains(&usage(8, 214, 0, 4012, 192)));
        assert_eq!(message.usage.context_tokens(), 4020 + 214);
    }

    #[test]
    fn the_stored_reasoning_item_is_echoed_unchanged_in_the_next_request() {
        let assistant = message(&parse(REASONING).events);
        let request = crate::ModelRequest {
            cache_key: None,
            cache_writes: Some(crate::conversation::CacheTtl::default()),
            model: "gpt-5".into(),
            system_prompt: String::new(),
            messages: vec![Message::Assistant(assistant)].into(),
            tools: Vec::new(),
            thinking: crate::ThinkingLevel::Medium,
            thinking_budget: None,
            max_output_tokens: 0,
            reasoning_model: true,
            output_format: None,
            web_search: None,
        };
        let body = crate::openai::request::build_request(&request).json();
        assert_eq!(body["input"][0].to_string(), REASONING_ITEM);
        assert_eq!(body["input"][1]["content"][0]["type"], "output_text");
    }

    #[test]
    fn an_incomplete_response_cut_by_max_output_tokens_ends_with_length() {
        let outcome = parse(INCOMPLETE);
        assert!(outcome.error.is_none());
        assert!(outcome.finished);
        let message = message(&outcome.events);
        assert_eq!(message.stop_reason, StopReason::Length);
        assert!(outcome.events.contains(&StreamEvent::Finish {
            reason: StopReason::Length,
            provider_reason: "max_output_tokens".into(),
        }));
        assert!(outcome.events.contains(&usage(19, 16, 0, 0, 16)));
        // The reasoning item had no summary and no encrypted content: an empty thinking block.
        let AssistantBlock::Thinking(thinking) = &message.content[0] else {
            panic!("expected a thinking block, got {:?}", message.content);
        };
        assert_eq!(thinking.thinking, "");
        assert_eq!(
            thinking.signature.as_deref(),
            Some(
                r#"{"id":"rs_0e3a5c7e9b1d24680068c1fc0b3c4d8195e5f7a9b1c3d5e7","type":"reasoning","summary":[]}"#
            )
        );
    }

    #[test]
    fn a_quota_error_event_mid_stream_is_a_stream_error_with_type_and_code() {
        let outcome = parse(FAILED_QUOTA);
        assert_eq!(
            outcome.events.len(),
            1,
            "only the start: {:?}",
            outcome.events
        );
        let Some(ProviderError::Stream {
            provider,
            details,
            raw,
        }) = outcome.error
        else {
            panic!("expected a stream error, got {:?}", outcome.error);
        };
        assert_eq!(provider, "openai");
        assert_eq!(details.error_type.as_deref(), Some("insufficient_quota"));
        assert_eq!(details.code.as_deref(), Some("insufficient_quota"));
        assert!(
            details
                .message
                .starts_with("You exceeded your current quota")
        );
        assert!(raw.contains("\"sequence_number\":2"));
    }

    #[test]
    fn response_failed_alone_and_a_flat_error_event_are_errors_too() {
        let mut parser = Parser::new();
        let failed = SseEvent {
            event: Some("response.failed".into()),
            data: r#"{"type":"response.failed","sequence_number":9,"response":{"id":"resp_1","status":"failed","error":{"code":"rate_limit_exceeded","message":"Rate limit reached for gpt-5. Please try again in 1.5s."},"usage":null}}"#.into(),
            error: None,
        };
        let error = parser.on_event(&failed).unwrap_err();
        let details = error.details().unwrap();
        assert_eq!(details.code.as_deref(), Some("rate_limit_exceeded"));
        assert_eq!(details.retry_delay, Some(Duration::from_millis(1500)));
        assert!(parser.is_finished());

        let flat = SseEvent {
            event: Some("error".into()),
            data: r#"{"type":"error","sequence_number":3,"code":"server_error","message":"The server had an error.","param":null}"#.into(),
            error: None,
        };
        let error = Parser::new().on_event(&flat).unwrap_err();
        assert_eq!(
            error.details().unwrap().code.as_deref(),
            Some("server_error")
        );
        assert_eq!(error.details().unwrap().message, "The server had an error.");
    }

    #[test]
    fn unknown_events_are_ignored_and_a_stream_without_terminal_event_is_unfinished() {
        let mut stream = wire_streams::text_stream_without_terminal(&["half"]);
        stream.extend_from_slice(
            b"event: response.web_search_call.searching\ndata: {\"type\":\"response.web_search_call.searching\",\"sequence_number\":8,\"output_index\":1,\"item_id\":\"ws_1\"}\n\n",
        );
        let outcome = parse(&stream);
        assert!(outcome.error.is_none());
        assert!(!outcome.finished);
        assert_eq!(message(&outcome.events).content.len(), 1);
        assert_eq!(
            outcome.events.last(),
            Some(&StreamEvent::TextDelta {
                block: 0,
                text: "half".into()
            })
        );
    }

    #[test]
    fn llama_cpp_events_without_output_index_follow_items_by_id() {
        let stream = concat!(
            "data: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_local\",\"model\":\"qwen3\",\"status\":\"in_progress\"}}\n\n",
            "data: {\"type\":\"response.output_item.added\",\"item\":{\"id\":\"msg_a\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[]}}\n\n",
            "data: {\"type\":\"response.output_text.delta\",\"item_id\":\"msg_a\",\"delta\":\"Calling.\"}\n\n",
            "data: {\"type\":\"response.output_item.added\",\"item\":{\"arguments\":\"\",\"call_id\":\"fc_abc\",\"name\":\"echo\",\"type\":\"function_call\",\"status\":\"in_progress\"}}\n\n",
            "data: {\"type\":\"response.function_call_arguments.delta\",\"delta\":\"{\\\"message\\\":\",\"item_id\":\"fc_abc\"}\n\n",
            "data: {\"type\":\"response.function_call_arguments.delta\",\"delta\":\"\\\"hi\\\"}\",\"item_id\":\"fc_abc\"}\n\n",
            "data: {\"type\":\"response.output_item.done\",\"item\":{\"type\":\"function_call\",\"status\":\"completed\",\"arguments\":\"{\\\"message\\\":\\\"hi\\\"}\",\"call_id\":\"fc_abc\",\"name\":\"echo\"}}\n\n",
            "data: {\"type\":\"response.completed\",\"response\":{\"id\":\"resp_local\",\"status\":\"completed\",\"usage\":{\"input_tokens\":10,\"output_tokens\":4}}}\n\n",
            "data: [DONE]\n\n",
        );
        let outcome = parse(stream.as_bytes());
        assert!(outcome.error.is_none());
        assert!(outcome.finished);
        let message = message(&outcome.events);
        assert_eq!(
            content_json(&message),
            json!([
                {"type": "text", "text": "Calling."},
                {"type": "toolCall", "id": "fc_abc", "name": "echo", "arguments": {"message": "hi"}}
            ])
        );
        assert_eq!(message.stop_reason, StopReason::ToolUse);
        assert!(outcome.events.contains(&usage(10, 4, 0, 0, 0)));
    }

    #[test]
    fn text_and_arguments_sent_only_in_done_events_are_not_lost() {
        let stream = concat!(
            "data: {\"type\":\"response.output_item.added\",\"output_index\":0,\"item\":{\"id\":\"fc_1\",\"type\":\"function_call\",\"call_id\":\"call_1\",\"name\":\"ls\",\"arguments\":\"\"}}\n\n",
            "data: {\"type\":\"response.function_call_arguments.done\",\"output_index\":0,\"item_id\":\"fc_1\",\"arguments\":\"{\\\"path\\\":\\\".\\\"}\"}\n\n",
            "data: {\"type\":\"response.output_item.done\",\"output_index\":0,\"item\":{\"id\":\"fc_1\",\"type\":\"function_call\",\"call_id\":\"call_1\",\"name\":\"ls\",\"arguments\":\"{\\\"path\\\":\\\".\\\"}\"}}\n\n",
            "data: {\"type\":\"response.output_item.done\",\"output_index\":1,\"item\":{\"id\":\"msg_1\",\"type\":\"message\",\"content\":[{\"type\":\"output_text\",\"text\":\"Listed.\"}]}}\n\n",
        );
        let message = message(&parse(stream.as_bytes()).events);
        assert_eq!(
            content_json(&message),
            json!([
                {"type": "toolCall", "id": "call_1", "name": "ls", "arguments": {"path": "."}},
                {"type": "text", "text": "Listed."}
            ])
        );
    }

    #[test]
    fn the_mock_servers_streams_parse_into_the_messages_they_describe() {
        let usage4 = Usage4 {
            input_total: 1200,
            cached: 1024,
            output: 40,
            reasoning: 12,
        };

        let text = parse(&wire_streams::text_stream(&["Hel", "lo ", "wörld"], usage4));
        assert!(text.finished);
        assert_eq!(
            content_json(&message(&text.events)),
            json!([{"type": "text", "text": "Hello wörld"}])
        );
        assert!(text.events.contains(&usage(176, 40, 1024, 0, 12)));

        let calls = parse(&wire_streams::tool_call_stream(
            Some("Checking."),
            &[
                ("call_A1", "read", r#"{"path":"src/main.rs"}"#),
                ("call_B2", "ls", "{}"),
            ],
            usage4,
        ));
        assert_eq!(
            content_json(&message(&calls.events)),
            json!([
                {"type": "text", "text": "Checking."},
                {"type": "toolCall", "id": "call_A1", "name": "read", "arguments": {"path": "src/main.rs"}},
                {"type": "toolCall", "id": "call_B2", "name": "ls", "arguments": {}}
            ])
        );

        let summary = ["First, look.", "Then answer."];
        let reasoning = parse(&wire_streams::reasoning_stream(&summary, "42", usage4));
        let reasoning_message = message(&reasoning.events);
        let AssistantBlock::Thinking(thinking) = &reasoning_message.content[0] else {
            panic!("expected thinking first: {:?}", reasoning_message.content);
        };
        assert_eq!(thinking.thinking, "First, look.\n\nThen answer.");
        let signature: serde_json::Value =
            serde_json::from_str(thinking.signature.as_deref().unwrap()).unwrap();
        assert_eq!(signature, wire_streams::reasoning_item(&summary));

        let cut = parse(&wire_streams::incomplete_stream(&["Lorem ip"], usage4));
        assert_eq!(message(&cut.events).stop_reason, StopReason::Length);

        let failed = parse(&wire_streams::error_stream(
            "server_error",
            "server_error",
            "An error occurred while processing your request.",
        ));
        assert_eq!(
            failed.error.unwrap().details().unwrap().message,
            "An error occurred while processing your request."
        );
    }

    #[test]
    fn a_web_search_call_is_a_server_tool_block_and_url_citations_cite_the_text() {
        let usage4 = Usage4 {
            input_total: 900,
            cached: 0,
            output: 60,
            reasoning: 0,
        };
        let outcome = parse(&wire_streams::web_search_stream(
            &[("rust 1.95 release", &["https://blog.rust-lang.org/1.95"])],
            "Rust 1.95 is out.",
            &[("https://blog.rust-lang.org/1.95", "Announcing Rust 1.95")],
            None,
            usage4,
        ));
        assert!(outcome.finished);
        assert!(outcome.events.contains(&StreamEvent::ServerToolStart {
            block: 0,
            id: wire_streams::search_id(0),
            name: "web_search".into(),
        }));
        let message = message(&outcome.events);
        let item =
            wire_streams::search_item(0, "rust 1.95 release", &["https://blog.rust-lang.org/1.95"]);
        assert_eq!(
            content_json(&message),
            json!([
                {"type": "serverToolCall", "id": wire_streams::search_id(0), "name": "web_search",
                 "arguments": {"query": "rust 1.95 release"},
                 "results": [{"url": "https://blog.rust-lang.org/1.95"}],
                 "providerData": item},
                {"type": "text", "text": "Rust 1.95 is out.", "citations": [{
                    "url": "https://blog.rust-lang.org/1.95", "title": "Announcing Rust 1.95",
                    "providerData": {"type": "url_citation", "start_index": 0, "end_index": 17,
                        "title": "Announcing Rust 1.95", "url": "https://blog.rust-lang.org/1.95"}}]}
            ])
        );
        assert_eq!(message.usage.web_search_requests, 1);
        assert_eq!(message.stop_reason, StopReason::Stop);
    }

    #[test]
    fn an_earlier_search_is_sent_back_as_its_type_status_and_action_without_sources() {
        let usage4 = Usage4::default();
        let assistant = message(
            &parse(&wire_streams::web_search_stream(
                &[("weather", &["https://weather.example/"])],
                "Sunny.",
                &[],
                Some(("call_W1", "read", r#"{"path":"notes.md"}"#)),
                usage4,
            ))
            .events,
        );
        let request = crate::ModelRequest {
            cache_key: None,
            cache_writes: Some(crate::conversation::CacheTtl::default()),
            model: "gpt-5".into(),
            system_prompt: String::new(),
            messages: vec![Message::Assistant(assistant)].into(),
            tools: Vec::new(),
            thinking: crate::ThinkingLevel::Off,
            thinking_budget: None,
            max_output_tokens: 0,
            reasoning_model: true,
            web_search: Some(crate::web_search::WebSearch::default()),
            output_format: None,
        };
        let body = crate::openai::request::build_request(&request).json();
        assert_eq!(
            body["input"][0],
            json!({"type": "web_search_call", "status": "completed",
                   "action": {"type": "search", "query": "weather"}})
        );
        assert_eq!(body["input"][1]["content"][0]["text"], "Sunny.");
        assert_eq!(body["input"][2]["type"], "function_call");
        assert_eq!(body["tools"], json!([{"type": "web_search"}]));
        assert_eq!(body["include"], json!(["web_search_call.action.sources"]));
    }

    #[test]
    fn error_bodies_of_openai_llama_cpp_vllm_and_html_are_understood() {
        let openai = parse_error_body(429, &wire_streams::error_body(429).to_string());
        assert_eq!(openai.error_type.as_deref(), Some("tokens"));
        assert_eq!(openai.code.as_deref(), Some("rate_limit_exceeded"));
        assert_eq!(openai.retry_delay, Some(Duration::from_millis(644)));

        let overflow = parse_error_body(400, &wire_streams::error_body(400).to_string());
        assert_eq!(overflow.code.as_deref(), Some("context_length_exceeded"));
        assert!(overflow.message.contains("exceeds the context window"));

        let llama = parse_error_body(
            400,
            r#"{"error":{"code":400,"message":"request (2009 tokens) exceeds the available context size (512 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":2009,"n_ctx":512}}"#,
        );
        assert_eq!(
            llama.error_type.as_deref(),
            Some("exceed_context_size_error")
        );
        assert_eq!(llama.code.as_deref(), Some("400"));
        assert!(llama.message.starts_with("request (2009 tokens) exceeds"));

        let vllm = parse_error_body(
            400,
            r#"{"object":"error","message":"This model's maximum context length is 32768 tokens.","type":"BadRequestError","param":null,"code":400}"#,
        );
        assert_eq!(vllm.error_type.as_deref(), Some("BadRequestError"));
        assert_eq!(
            vllm.message,
            "This model's maximum context length is 32768 tokens."
        );

        let bare = parse_error_body(
            404,
            r#"{"error":"model \"qwen9\" not found, try pulling it first"}"#,
        );
        assert_eq!(
            bare.message,
            "model \"qwen9\" not found, try pulling it first"
        );

        let html = format!("<html><body>{}</body></html>", "é".repeat(300));
        let page = parse_error_body(502, &html);
        assert_eq!(page.message.chars().count(), 200);
        assert!(page.message.starts_with("<html><body>éé"));
        assert_eq!(page.error_type, None);

        assert_eq!(
            parse_error_body(503, "  ").message,
            "HTTP 503 with an empty body"
        );
    }

    #[test]
    fn a_retry_delay_is_read_only_from_a_try_again_phrase_with_a_unit() {
        assert_eq!(
            retry_delay("Please try again in 20s."),
            Some(Duration::from_secs(20))
        );
        assert_eq!(
            retry_delay("Please Try again in 250ms"),
            Some(Duration::from_millis(250))
        );
        assert_eq!(retry_delay("Please try again later."), None);
        assert_eq!(retry_delay("try again in 5 minutes"), None);
    }
}
