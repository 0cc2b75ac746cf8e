//! Folds neutral [`StreamEvent`]s into the assistant message that the session stores. Pure.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::conversation::{
    AssistantBlock, AssistantMessage, Citation, Cost, ServerToolCall, StopReason, StreamEvent,
    TextBlock, ThinkingBlock, TokenUsage, ToolCall,
};

#[derive(Debug, Clone)]
enum Block {
    Text {
        text: String,
        signature: Option<String>,
        citations: Vec<Citation>,
    },
    Thinking {
        text: String,
        signature: Option<String>,
        redacted: bool,
    },
    ToolCall {
        id: String,
        name: String,
        arguments: String,
        parsed: Option<Value>,
        thought_signature: Option<String>,
    },
    /// A tool the provider runs itself; its input streams as JSON text like a tool call's.
    ServerTool { call: ServerToolCall, input: String },
}

/// Builds an assistant message from a stream, and can show it half-built (for aborted turns).
#[derive(Debug, Clone, Default)]
pub struct Accumulator {
    blocks: BTreeMap<usize, Block>,
    usage: TokenUsage,
    finish: Option<(StopReason, String)>,
    response_id: Option<String>,
    model: Option<String>,
}

impl Accumulator {
    /// An empty accumulator.
    pub fn new() -> Accumulator {
        Accumulator::default()
    }

    /// Apply one event.
    pub fn apply(&mut self, event: &StreamEvent) {
        match event {
            StreamEvent::Start { response_id, model } => {
                if response_id.is_some() {
                    self.response_id.clone_from(response_id);
                }
                if model.is_some() {
                    self.model.clone_from(model);
                }
            }
            StreamEvent::TextDelta { block, text } => {
                if let Block::Text { text: existing, .. } = self.text_block(*block) {
                    existing.push_str(text);
                }
            }
            StreamEvent::TextSignature { block, signature } => {
                if let Block::Text {
                    signature: existing,
                    ..
                } = self.text_block(*block)
                {
                    *existing = Some(signature.clone());
                }
            }
            StreamEvent::Citation { block, citation } => {
                if let Block::Text { citations, .. } = self.text_block(*block) {
                    citations.push(citation.clone());
                }
            }
            StreamEvent::ServerToolStart { block, id, name } => {
                self.blocks.insert(
                    *block,
                    Block::ServerTool {
                        call: ServerToolCall {
                            id: id.clone(),
                            name: name.clone(),
                            ..ServerToolCall::default()
                        },
                        input: String::new(),
                    },
                );
            }
            StreamEvent::ServerToolInput { block, fragment } => {
                if let Some(Block::ServerTool { input, .. }) = self.blocks.get_mut(block) {
                    input.push_str(fragment);
                }
            }
            StreamEvent::ServerToolResult {
                block,
                results,
                error,
                payload,
            } => {
                if let Some(Block::ServerTool { call, .. }) = self.blocks.get_mut(block) {
                    call.results.clone_from(results);
                    call.error.clone_from(error);
                    call.payload.clone_from(payload);
                }
            }
            StreamEvent::ServerTool { block, call } => {
                self.blocks.insert(
                    *block,
                    Block::ServerTool {
                        call: call.clone(),
                        input: String::new(),
                    },
                );
            }
            StreamEvent::ThinkingDelta { block, text } => {
                if let Block::Thinking { text: existing, .. } = self.thinking(*block) {
                    existing.push_str(text);
                }
            }
            StreamEvent::ThinkingSignature { block, signature } => {
                if let Block::Thinking {
                    signature: existing,
                    ..
                } = self.thinking(*block)
                {
                    *existing = Some(signature.clone());
                }
            }
            StreamEvent::RedactedThinking { block, data } => {
                self.blocks.insert(
                    *block,
                    Block::Thinking {
                        text: String::new(),
                        signature: Some(data.clone()),
                        redacted: true,
                    },
                );
            }
            StreamEvent::ToolCallStart { block, id, name } => {
                self.blocks.insert(
                    *block,
                    Block::ToolCall {
                        id: id.clone(),
                        name: name.clone(),
                        arguments: String::new(),
                        parsed: None,
                        thought_signature: None,
                    },
                );
            }
            StreamEvent::ToolCallArguments { block, fragment } => {
                if let Some(Block::ToolCall { arguments, .. }) = self.blocks.get_mut(block) {
                    arguments.push_str(fragment);
                }
            }
            StreamEvent::ToolCall {
                block,
                id,
                name,
                arguments,
                thought_signature,
            } => {
                self.blocks.insert(
                    *block,
                    Block::ToolCall {
                        id: id.clone(),
                        name: name.clone(),
                        arguments: String::new(),
                        parsed: Some(arguments.clone()),
                        thought_signature: thought_signature.clone(),
                    },
                );
            }
            StreamEvent::Usage(usage) => self.usage = *usage,
            StreamEvent::Finish {
                reason,
                provider_reason,
            } => self.finish = Some((*reason, provider_reason.clone())),
        }
    }

    fn text_block(&mut self, block: usize) -> &mut Block {
        self.blocks.entry(block).or_insert(Block::Text {
            text: String::new(),
            signature: None,
            citations: Vec::new(),
        })
    }

    fn thinking(&mut self, block: usize) -> &mut Block {
        self.blocks.entry(block).or_insert(Block::Thinking {
            text: String::new(),
            signature: None,
            redacted: false,
        })
    }

    /// Whether a finish event arrived.
    pub fn is_finished(&self) -> bool {
        self.finish.is_some()
    }

    /// Usage so far.
    pub fn usage(&self) -> TokenUsage {
        self.usage
    }

    /// Why the model finished, when it did: a call with tool calls is a `ToolUse` whatever the
    /// provider said (Gemini ends a function-calling step with `STOP`).
    pub fn finish_reason(&self) -> Option<StopReason> {
        self.finish.as_ref().map(|(reason, _)| match reason {
            StopReason::Stop if self.has_tool_calls() => StopReason::ToolUse,
            reason => *reason,
        })
    }

    /// The provider's own stop word, when the model finished.
    pub fn provider_stop_reason(&self) -> Option<&str> {
        self.finish.as_ref().map(|(_, word)| word.as_str())
    }

    /// The provider's response id.
    pub fn response_id(&self) -> Option<&str> {
        self.response_id.as_deref()
    }

    /// The visible text so far.
    pub fn text(&self) -> String {
        self.blocks
            .values()
            .filter_map(|block| match block {
                Block::Text { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }

    /// Whether the message calls tools.
    pub fn has_tool_calls(&self) -> bool {
        self.blocks
            .values()
            .any(|block| matches!(block, Block::ToolCall { .. }))
    }

    /// The message as it stands. `stop_override` replaces the stop reason (aborted, error).
    pub fn message(
        &self,
        api: &str,
        provider: &str,
        model: &str,
        timestamp: i64,
        stop_override: Option<StopReason>,
    ) -> AssistantMessage {
        let content: Vec<AssistantBlock> = self
            .blocks
            .values()
            .filter_map(|block| match block {
                Block::Text {
                    text,
                    signature,
                    citations,
                } => {
                    if text.is_empty() && signature.is_none() && citations.is_empty() {
                        return None;
                    }
                    Some(AssistantBlock::Text(TextBlock {
                        text: text.clone(),
                        signature: signature.clone(),
                        citations: citations.clone(),
                    }))
                }
                Block::ServerTool { call, input } => {
                    let mut call = call.clone();
                    if !input.is_empty() || call.input.is_null() {
                        call.input = parse_arguments(input);
                    }
                    Some(AssistantBlock::ServerTool(call))
                }
                Block::Thinking {
                    text,
                    signature,
                    redacted,
                } => Some(AssistantBlock::Thinking(ThinkingBlock {
                    thinking: text.clone(),
                    signature: signature.clone(),
                    redacted: *redacted,
                })),
                Block::ToolCall {
                    id,
                    name,
                    arguments,
                    parsed,
                    thought_signature,
                } => Some(AssistantBlock::ToolCall(ToolCall {
                    id: id.clone(),
                    name: name.clone(),
                    arguments: parsed.clone().unwrap_or_else(|| parse_arguments(arguments)),
                    thought_signature: thought_signature.clone(),
                })),
            })
            .collect();
        let stop_reason =
            stop_override
                .or_else(|| self.finish_reason())
                .unwrap_or(if self.has_tool_calls() {
                    StopReason::ToolUse
                } else {
                    StopReason::Stop
                });
        AssistantMessage {
            content,
            api: api.to_owned(),
            provider: provider.to_owned(),
            model: model.to_owned(),
            usage: self.usage,
            cost: Cost::default(),
            stop_reason,
            timestamp,
            error_message: None,
        }
    }
}

/// Tool arguments from their streamed JSON text: empty means `{}` (Anthropic sends `""` for a
/// call without arguments); text that is not JSON is kept as a string so the tool can report it.
pub fn parse_arguments(text: &str) -> Value {
    if text.trim().is_empty() {
        return Value::Object(Map::new());
    }
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_assembled_in_block_order_with_signatures_and_arguments() {
        let mut accumulator = Accumulator::new();
        let events = [
            StreamEvent::ThinkingDelta {
                block: 0,
                text: "Let me ".into(),
            },
            StreamEvent::ThinkingDelta {
                block: 0,
                text: "look.".into(),
            },
            StreamEvent::ThinkingSignature {
                block: 0,
                signature: "sig==".into(),
            },
            StreamEvent::TextDelta {
                block: 1,
                text: "Reading".into(),
            },
            StreamEvent::ToolCallStart {
                block: 2,
                id: "toolu_1".into(),
                name: "read".into(),
            },
            StreamEvent::ToolCallArguments {
                block: 2,
                fragment: "{\"pa".into(),
            },
            StreamEvent::ToolCallArguments {
                block: 2,
                fragment: "th\":\"a.txt\"}".into(),
            },
            StreamEvent::ToolCallStart {
                block: 3,
                id: "toolu_2".into(),
                name: "ls".into(),
            },
            StreamEvent::ToolCallArguments {
                block: 3,
                fragment: String::new(),
            },
            StreamEvent::Usage(TokenUsage {
                input: 5,
                output: 7,
                cache_read: 11,
                cache_write: 13,
                cache_write_1h: 0,
                reasoning: 0,
                web_search_requests: 0,
            }),
            StreamEvent::Finish {
                reason: StopReason::ToolUse,
                provider_reason: "tool_use".into(),
            },
        ];
        for event in &events {
            accumulator.apply(event);
        }
        let message = accumulator.message("anthropic-messages", "anthropic", "claude", 42, None);
        let value = pincer_session::pi_fixtures::pi_json(&message);
        assert_eq!(
            value["content"],
            serde_json::json!([
                {"type": "thinking", "thinking": "Let me look.", "thinkingSignature": "sig=="},
                {"type": "text", "text": "Reading"},
                {"type": "toolCall", "id": "toolu_1", "name": "read", "arguments": {"path": "a.txt"}},
                {"type": "toolCall", "id": "toolu_2", "name": "ls", "arguments": {}}
            ])
        );
        assert_eq!(value["stopReason"], "toolUse");
        assert_eq!(value["usage"]["totalTokens"], 36);
    }

    #[test]
    fn a_tool_call_that_ends_with_stop_is_a_tool_use_and_an_abort_keeps_partial_text() {
        let mut accumulator = Accumulator::new();
        accumulator.apply(&StreamEvent::ToolCall {
            block: 0,
            id: "call_0".into(),
            name: "ls".into(),
            arguments: serde_json::json!({}),
            thought_signature: Some("ts".into()),
        });
        accumulator.apply(&StreamEvent::Finish {
            reason: StopReason::Stop,
            provider_reason: "STOP".into(),
        });
        assert_eq!(
            accumulator.message("g", "google", "m", 0, None).stop_reason,
            StopReason::ToolUse
        );

        let mut partial = Accumulator::new();
        partial.apply(&StreamEvent::TextDelta {
            block: 0,
            text: "half an ans".into(),
        });
        let message = partial.message("a", "p", "m", 0, Some(StopReason::Aborted));
        assert_eq!(message.stop_reason, StopReason::Aborted);
        assert_eq!(partial.text(), "half an ans");
    }

    #[test]
    fn arguments_that_are_not_json_are_kept_as_text() {
        assert_eq!(parse_arguments(""), serde_json::json!({}));
        assert_eq!(parse_arguments("{\"a\":1}"), serde_json::json!({"a": 1}));
        assert_eq!(parse_arguments("{\"a\":"), serde_json::json!("{\"a\":"));
    }
}
