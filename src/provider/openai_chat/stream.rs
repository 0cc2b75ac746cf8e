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
use crate::conversation::TokenUsage;
use crate::provider::openai::stream::details_from_error_field;
use crate::provider::sse::SseEvent;
use crate::provider::{ErrorDetails, ProviderError, StreamEvent, StreamParser};
use crate::session::record::StopReason;

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

fn stop_reason(word: &str) -> StopReason {
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
        reasoning: usage
            .completion_tokens_details
            .as_ref()
            .map_or(0, |details| details.reasoning_tokens),
    }
}

/// Map an error response body to details: the OpenAI envelope, llama.cpp's (numeric `code`),
/// vLLM's flat body, or text (see [`crate::provider::openai::stream::parse_error_body`]).
pub fn parse_error_body(status: u16, body: &str) -> ErrorDetails {
    crate::provider::openai::stream::parse_error_body(status, body)
}
