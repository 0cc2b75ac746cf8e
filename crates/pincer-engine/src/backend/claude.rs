//! Reading `claude -p --output-format stream-json --verbose --include-partial-messages`.
//!
//! claude emits one `assistant` event per content block, all with the same `message.id`; they
//! are merged into one pincer message. Per-call usage comes from the raw `message_start` and
//! `message_delta` events (the `assistant` events carry the usage of the stream's start, with
//! an output count of 1). The final `result` event says whether the turn failed (`is_error`),
//! whatever the exit code.

use serde::Deserialize;
use serde_json::Value;

use crate::conversation::StreamEvent;
use crate::conversation::TokenUsage;
use crate::conversation::{AssistantBlock, StopReason, TextBlock, ThinkingBlock, ToolCall};
use crate::provider::anthropic::wire::CacheCreation;
use crate::session::store::SessionError;

use super::ChildRecord;

/// One line of claude's stream-json output (the parts pincer reads; other types are skipped).
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Line {
    /// `system` events, by subtype.
    System(SystemEvent),
    /// One content block of an assistant message (claude splits a message into several).
    Assistant {
        /// The (partial) Anthropic message.
        message: WireMessage,
    },
    /// Tool results sent back to the model.
    User {
        /// The user message carrying `tool_result` blocks.
        message: UserWire,
        /// claude's structured form of the result (kept as the entry's details).
        #[serde(default)]
        tool_use_result: Option<Value>,
    },
    /// A raw Anthropic stream event (`--include-partial-messages`).
    StreamEvent {
        /// The event.
        event: RawEvent,
    },
    /// The final record of the run.
    Result(ResultEvent),
    /// Anything else (`rate_limit_event`, `tool_progress`, …).
    #[serde(other)]
    Other,
}

/// `system` subtypes.
#[derive(Debug, Deserialize)]
#[serde(tag = "subtype", rename_all = "snake_case")]
pub enum SystemEvent {
    /// The first line.
    Init {
        /// The child's session id.
        session_id: String,
    },
    /// claude compacted its session.
    CompactBoundary {
        /// Trigger and sizes.
        #[serde(default)]
        compact_metadata: CompactMetadata,
    },
    /// claude retries an API call.
    ApiRetry {
        /// Attempt number.
        #[serde(default)]
        attempt: Option<u64>,
        /// Delay before it.
        #[serde(default)]
        retry_delay_ms: Option<u64>,
        /// What failed.
        #[serde(default)]
        error: Option<Value>,
    },
    /// `status`, hooks, notifications, …
    #[serde(other)]
    Other,
}

/// `compact_boundary.compact_metadata`.
#[derive(Debug, Default, Deserialize)]
pub struct CompactMetadata {
    /// `auto` or `manual`.
    #[serde(default)]
    pub trigger: Option<String>,
    /// Tokens before.
    #[serde(default)]
    pub pre_tokens: Option<u64>,
    /// Tokens after, when reported.
    #[serde(default)]
    pub post_tokens: Option<u64>,
}

/// An Anthropic message as claude relays it.
#[derive(Debug, Deserialize)]
pub struct WireMessage {
    /// Message id (shared by the blocks of one model call).
    #[serde(default)]
    pub id: String,
    /// The model that answered.
    #[serde(default)]
    pub model: Option<String>,
    /// Content blocks.
    #[serde(default)]
    pub content: Vec<WireBlock>,
    /// `end_turn`, `tool_use`, … (null while streaming).
    #[serde(default)]
    pub stop_reason: Option<String>,
    /// Usage (at the stream's start in `assistant` events).
    #[serde(default)]
    pub usage: WireUsage,
}

/// An assistant content block.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum WireBlock {
    /// Text.
    Text {
        /// The text.
        #[serde(default)]
        text: String,
    },
    /// Reasoning.
    Thinking {
        /// The reasoning text.
        #[serde(default)]
        thinking: String,
        /// Its signature.
        #[serde(default)]
        signature: Option<String>,
    },
    /// A tool call.
    ToolUse {
        /// Call id.
        id: String,
        /// Tool name (`Read`, `Bash`, …).
        name: String,
        /// Arguments.
        #[serde(default)]
        input: Value,
    },
    /// Anything else.
    #[serde(other)]
    Other,
}

/// Anthropic usage counts; absent ones stay `None` (a `message_delta` sends only some).
#[derive(Debug, Default, Clone, Copy, Deserialize)]
pub struct WireUsage {
    /// Uncached input.
    #[serde(default)]
    pub input_tokens: Option<u64>,
    /// Output.
    #[serde(default)]
    pub output_tokens: Option<u64>,
    /// Read from the cache.
    #[serde(default)]
    pub cache_read_input_tokens: Option<u64>,
    /// Written to the cache.
    #[serde(default)]
    pub cache_creation_input_tokens: Option<u64>,
    /// The cache write by lifetime (the 1-hour part is priced higher).
    #[serde(default)]
    pub cache_creation: Option<CacheCreation>,
    /// `{"web_search_requests": N, …}`: the searches the call ran.
    #[serde(default)]
    pub server_tool_use: Option<ServerToolUse>,
}

/// `usage.server_tool_use`.
#[derive(Debug, Default, Clone, Copy, Deserialize)]
pub struct ServerToolUse {
    /// Web searches.
    #[serde(default)]
    pub web_search_requests: Option<u64>,
}

impl WireUsage {
    /// Normalized (SPEC §8): the three prompt parts are disjoint and
    /// `cache_creation_input_tokens` is the cache write.
    pub fn normalized(self) -> TokenUsage {
        self.over(TokenUsage::default())
    }

    /// `base` with the counts this object has replaced.
    pub fn over(self, base: TokenUsage) -> TokenUsage {
        TokenUsage {
            input: self.input_tokens.unwrap_or(base.input),
            output: self.output_tokens.unwrap_or(base.output),
            cache_read: self.cache_read_input_tokens.unwrap_or(base.cache_read),
            cache_write: self.cache_creation_input_tokens.unwrap_or(base.cache_write),
            cache_write_1h: self
                .cache_creation
                .map_or(base.cache_write_1h, |split| split.ephemeral_1h_input_tokens),
            reasoning: base.reasoning,
            web_search_requests: self
                .server_tool_use
                .and_then(|server| server.web_search_requests)
                .unwrap_or(base.web_search_requests),
        }
    }
}

/// A `user` message.
#[derive(Debug, Deserialize)]
pub struct UserWire {
    /// Its blocks.
    #[serde(default)]
    pub content: Vec<UserBlock>,
}

/// A block of a `user` message.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum UserBlock {
    /// A tool's result.
    ToolResult {
        /// The call it answers.
        tool_use_id: String,
        /// A string or text blocks.
        #[serde(default)]
        content: Value,
        /// Whether the tool failed.
        #[serde(default)]
        is_error: Option<bool>,
    },
    /// Anything else.
    #[serde(other)]
    Other,
}

/// A raw Anthropic stream event.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum RawEvent {
    /// A model call starts.
    MessageStart {
        /// The message so far (id, model, prompt usage).
        message: WireMessage,
    },
    /// A content block starts.
    ContentBlockStart {
        /// Block number.
        #[serde(default)]
        index: usize,
        /// The block.
        content_block: WireBlock,
    },
    /// A piece of a block.
    ContentBlockDelta {
        /// Block number.
        #[serde(default)]
        index: usize,
        /// The piece.
        delta: Delta,
    },
    /// The call's final stop reason and usage.
    MessageDelta {
        /// Stop reason.
        #[serde(default)]
        delta: MessageDeltaBody,
        /// Final counts.
        #[serde(default)]
        usage: WireUsage,
    },
    /// `content_block_stop`, `message_stop`, `ping`, …
    #[serde(other)]
    Other,
}

/// A content block delta.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Delta {
    /// Text.
    TextDelta {
        /// The new text.
        text: String,
    },
    /// Reasoning.
    ThinkingDelta {
        /// The new reasoning text.
        thinking: String,
    },
    /// Tool arguments.
    InputJsonDelta {
        /// A JSON fragment.
        partial_json: String,
    },
    /// The signature of a thinking block.
    SignatureDelta {
        /// The opaque signature.
        signature: String,
    },
    /// Anything else.
    #[serde(other)]
    Other,
}

/// `message_delta.delta`.
#[derive(Debug, Default, Deserialize)]
pub struct MessageDeltaBody {
    /// Why the call stopped.
    #[serde(default)]
    pub stop_reason: Option<String>,
}

/// claude's final `result` event, the parts pincer uses.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ResultEvent {
    /// `success`, `error_max_turns`, `error_during_execution`, …
    #[serde(default)]
    pub subtype: String,
    /// Whether the run failed (also with `subtype: success`, claude-code#79500).
    #[serde(default)]
    pub is_error: bool,
    /// The final text, or the error prose.
    #[serde(default)]
    pub result: String,
    /// Error messages of the error subtypes.
    #[serde(default)]
    pub errors: Vec<String>,
    /// The API's HTTP status when a call failed.
    #[serde(default)]
    pub api_error_status: Option<u16>,
    /// Model calls.
    #[serde(default)]
    pub num_turns: Option<u32>,
    /// Time in API calls.
    #[serde(default)]
    pub duration_api_ms: Option<u64>,
    /// Tool calls claude refused.
    #[serde(default)]
    pub permission_denials: Vec<Denial>,
    /// With `--json-schema`: the answer's value, as claude parsed it (its `result` text may
    /// be empty then).
    #[serde(default)]
    pub structured_output: Option<Value>,
}

/// A tool call claude refused.
#[derive(Debug, Clone, Deserialize)]
pub struct Denial {
    /// The tool.
    #[serde(default)]
    pub tool_name: String,
    /// The call id.
    #[serde(default)]
    pub tool_use_id: String,
    /// Its arguments.
    #[serde(default)]
    pub tool_input: Value,
}

/// The translator's state over one run.
#[derive(Debug, Default)]
pub struct ClaudeStream {
    /// The child's session id (`system/init`).
    pub session_id: Option<String>,
    /// The `result` event, once seen.
    pub result: Option<ResultEvent>,
    /// Messages whose usage came from the raw stream (more exact than the `assistant` event's).
    usage_from_stream: Vec<String>,
}

fn text_of(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|block| block.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

impl ClaudeStream {
    /// Handle one stdout line; `Ok(false)` when it is not one of claude's JSON events.
    pub fn line(
        &mut self,
        line: &str,
        recorder: &mut dyn ChildRecord,
    ) -> Result<bool, SessionError> {
        let Ok(event) = serde_json::from_str::<Line>(line) else {
            return Ok(false);
        };
        match event {
            Line::StreamEvent { event } => self.raw(event, recorder)?,
            Line::Assistant { message } => self.assistant(message, recorder)?,
            Line::User {
                message,
                tool_use_result,
            } => {
                for block in message.content {
                    if let UserBlock::ToolResult {
                        tool_use_id,
                        content,
                        is_error,
                    } = block
                    {
                        recorder.tool_result(
                            &tool_use_id,
                            &text_of(&content),
                            is_error.unwrap_or(false),
                            tool_use_result.clone(),
                        )?;
                    }
                }
            }
            Line::System(SystemEvent::Init { session_id }) => {
                self.session_id = Some(session_id);
            }
            Line::System(SystemEvent::CompactBoundary { compact_metadata }) => {
                recorder.compaction(
                    compact_metadata.trigger.as_deref().unwrap_or("auto"),
                    compact_metadata.pre_tokens,
                    compact_metadata.post_tokens,
                )?;
            }
            Line::System(SystemEvent::ApiRetry {
                attempt,
                retry_delay_ms,
                error,
            }) => recorder.child_retry(
                attempt,
                retry_delay_ms,
                match error {
                    Some(Value::String(text)) => text,
                    Some(other) => other.to_string(),
                    None => String::new(),
                },
            ),
            // The message being assembled is completed by the caller, which knows from this
            // event whether it is an answer or an error (`is_error`).
            Line::Result(result) => self.result = Some(result),
            Line::System(SystemEvent::Other) | Line::Other => {}
        }
        Ok(true)
    }

    /// A raw Anthropic stream event (`--include-partial-messages`).
    fn raw(&mut self, event: RawEvent, recorder: &mut dyn ChildRecord) -> Result<(), SessionError> {
        match event {
            RawEvent::MessageStart { message } => {
                recorder.begin(&message.id)?;
                recorder.set_usage(message.usage.normalized());
                self.usage_from_stream.push(message.id.clone());
                recorder.stream(&StreamEvent::Start {
                    response_id: Some(message.id),
                    model: message.model,
                });
            }
            RawEvent::ContentBlockStart {
                index,
                content_block: WireBlock::ToolUse { id, name, .. },
            } => recorder.stream(&StreamEvent::ToolCallStart {
                block: index,
                id,
                name,
            }),
            RawEvent::ContentBlockDelta { index, delta } => match delta {
                Delta::TextDelta { text } => {
                    recorder.text_delta(&text);
                    recorder.stream(&StreamEvent::TextDelta { block: index, text });
                }
                Delta::ThinkingDelta { thinking } => recorder.stream(&StreamEvent::ThinkingDelta {
                    block: index,
                    text: thinking,
                }),
                Delta::InputJsonDelta { partial_json } => {
                    recorder.stream(&StreamEvent::ToolCallArguments {
                        block: index,
                        fragment: partial_json,
                    });
                }
                Delta::SignatureDelta { signature } => {
                    recorder.stream(&StreamEvent::ThinkingSignature {
                        block: index,
                        signature,
                    });
                }
                Delta::Other => {}
            },
            RawEvent::MessageDelta { delta, usage } => {
                // The call's final counts: output always, prompt parts when present.
                let usage = usage.over(recorder.usage().unwrap_or_default());
                recorder.set_usage(usage);
                recorder.stream(&StreamEvent::Usage(usage));
                if let Some(reason) = delta.stop_reason {
                    recorder.set_stop(&reason);
                    let normalized = match reason.as_str() {
                        "tool_use" => StopReason::ToolUse,
                        "max_tokens" => StopReason::Length,
                        _ => StopReason::Stop,
                    };
                    recorder.stream(&StreamEvent::Finish {
                        reason: normalized,
                        provider_reason: reason,
                    });
                }
            }
            RawEvent::ContentBlockStart { .. } | RawEvent::Other => {}
        }
        Ok(())
    }

    /// A whole-block `assistant` event.
    fn assistant(
        &mut self,
        message: WireMessage,
        recorder: &mut dyn ChildRecord,
    ) -> Result<(), SessionError> {
        recorder.begin(&message.id)?;
        if !self.usage_from_stream.contains(&message.id) {
            recorder.set_usage(message.usage.normalized());
        }
        if let Some(reason) = &message.stop_reason {
            recorder.set_stop(reason);
        }
        for block in message.content {
            let content = match block {
                WireBlock::Text { text } => AssistantBlock::Text(TextBlock::new(text)),
                WireBlock::Thinking {
                    thinking,
                    signature,
                } => AssistantBlock::Thinking(ThinkingBlock {
                    thinking,
                    signature,
                    redacted: false,
                }),
                WireBlock::ToolUse { id, name, input } => AssistantBlock::ToolCall(ToolCall {
                    id,
                    name,
                    arguments: input,
                    thought_signature: None,
                }),
                WireBlock::Other => continue,
            };
            recorder.push(content);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_recorded_claude_events_parse_into_their_variants() {
        let init = r#"{"type":"system","subtype":"init","cwd":"/w","session_id":"016f0b54","tools":["Bash"],"model":"claude-opus-4-8[1m]"}"#;
        assert!(matches!(
            serde_json::from_str::<Line>(init).unwrap(),
            Line::System(SystemEvent::Init { session_id }) if session_id == "016f0b54"
        ));
        let delta = r#"{"type":"stream_event","event":{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"input_tokens":19572,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":21}},"session_id":"s"}"#;
        let Line::StreamEvent {
            event: RawEvent::MessageDelta { delta, usage },
        } = serde_json::from_str::<Line>(delta).unwrap()
        else {
            panic!("not a message_delta");
        };
        assert_eq!(delta.stop_reason.as_deref(), Some("end_turn"));
        assert_eq!(usage.normalized().context_tokens(), 19_593);
        let compact = r#"{"type":"system","subtype":"compact_boundary","compact_metadata":{"trigger":"manual","pre_tokens":5}}"#;
        assert!(matches!(
            serde_json::from_str::<Line>(compact).unwrap(),
            Line::System(SystemEvent::CompactBoundary { compact_metadata }) if compact_metadata.pre_tokens == Some(5)
        ));
        let other = r#"{"type":"rate_limit_event","rate_limit_info":{}}"#;
        assert!(matches!(
            serde_json::from_str::<Line>(other).unwrap(),
            Line::Other
        ));
        // Only a partial update of the counts: the others stay as they were.
        let update = WireUsage {
            output_tokens: Some(402),
            ..WireUsage::default()
        };
        let before = TokenUsage {
            input: 12,
            output: 1,
            cache_read: 18_133,
            cache_write: 5_210,
            cache_write_1h: 0,
            reasoning: 0,
            web_search_requests: 0,
        };
        assert_eq!(update.over(before).output, 402);
        assert_eq!(update.over(before).cache_write, 5_210);
    }
}
