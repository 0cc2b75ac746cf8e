//! Reading `claude -p --output-format stream-json --verbose --include-partial-messages`.
//!
//! claude emits one `assistant` event per content block, all with the same `message.id`; they
//! are merged into one pincer message. Per-call usage comes from the raw `message_start` and
//! `message_delta` events (the `assistant` events carry the usage of the stream's start, with
//! an output count of 1). The final `result` event says whether the turn failed (`is_error`),
//! whatever the exit code.

use serde_json::{Map, Value};

use crate::conversation::TokenUsage;
use crate::provider::StreamEvent;
use crate::session::record::{
    AssistantContent, StopReason, TextContent, ThinkingContent, ToolCall,
};
use crate::session::store::SessionError;

use super::record::Recorder;

/// claude's final `result` event, the parts pincer uses.
#[derive(Debug, Clone, Default)]
pub struct ClaudeResult {
    /// `subtype` (`success`, `error_max_turns`, …).
    pub subtype: String,
    /// `is_error`.
    pub is_error: bool,
    /// `result`: the final text, or the error prose.
    pub result: String,
    /// `errors`.
    pub errors: Vec<String>,
    /// `api_error_status`.
    pub api_error_status: Option<u16>,
    /// `num_turns`.
    pub num_turns: Option<u32>,
    /// `duration_api_ms`.
    pub duration_api_ms: Option<u64>,
    /// `permission_denials`.
    pub permission_denials: Vec<Value>,
}

/// The translator's state over one run.
#[derive(Debug, Default)]
pub struct ClaudeStream {
    /// The child's session id (`system/init`, every event).
    pub session_id: Option<String>,
    /// The `result` event, once seen.
    pub result: Option<ClaudeResult>,
    /// Messages whose usage came from the raw stream (more exact than the `assistant` event's).
    usage_from_stream: Vec<String>,
}

/// Normalize an Anthropic usage object (SPEC §8): the three prompt parts are disjoint and
/// `cache_creation_input_tokens` is the cache write.
pub fn usage_of(value: &Value) -> TokenUsage {
    let count = |key: &str| value.get(key).and_then(Value::as_u64).unwrap_or(0);
    TokenUsage {
        input: count("input_tokens"),
        output: count("output_tokens"),
        cache_read: count("cache_read_input_tokens"),
        cache_write: count("cache_creation_input_tokens"),
        reasoning: 0,
    }
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
    /// Handle one stdout line (already parsed).
    pub fn line(&mut self, value: &Value, recorder: &mut Recorder<'_>) -> Result<(), SessionError> {
        if self.session_id.is_none()
            && let Some(id) = value.get("session_id").and_then(Value::as_str)
        {
            self.session_id = Some(id.to_owned());
        }
        match value.get("type").and_then(Value::as_str).unwrap_or("") {
            "stream_event" => self.raw(&value["event"], recorder),
            "assistant" => self.assistant(&value["message"], recorder),
            "user" => {
                let Some(blocks) = value["message"]["content"].as_array() else {
                    return Ok(());
                };
                for block in blocks {
                    if block["type"] == "tool_result" {
                        let id = block["tool_use_id"].as_str().unwrap_or_default();
                        let details = value.get("tool_use_result").cloned();
                        recorder.tool_result(
                            id,
                            &text_of(&block["content"]),
                            block["is_error"].as_bool().unwrap_or(false),
                            details,
                        )?;
                    }
                }
                Ok(())
            }
            "system" => match value["subtype"].as_str().unwrap_or("") {
                "compact_boundary" => {
                    let metadata = &value["compact_metadata"];
                    recorder.compaction(
                        metadata["trigger"].as_str().unwrap_or("auto"),
                        metadata["pre_tokens"].as_u64(),
                        metadata["post_tokens"].as_u64(),
                    )
                }
                "api_retry" => {
                    recorder.system(serde_json::json!({
                        "type": "system",
                        "subtype": "api_retry",
                        "attempt": value["attempt"],
                        "delay_ms": value["retry_delay_ms"],
                        "error": value["error"],
                    }));
                    Ok(())
                }
                _ => Ok(()),
            },
            "result" => {
                // The message being assembled is completed by the caller, which knows from this
                // event whether it is an answer or an error (`is_error`).
                let errors = value["errors"]
                    .as_array()
                    .map(|errors| {
                        errors
                            .iter()
                            .filter_map(Value::as_str)
                            .map(str::to_owned)
                            .collect()
                    })
                    .unwrap_or_default();
                self.result = Some(ClaudeResult {
                    subtype: value["subtype"].as_str().unwrap_or_default().to_owned(),
                    is_error: value["is_error"].as_bool().unwrap_or(false),
                    result: value["result"].as_str().unwrap_or_default().to_owned(),
                    errors,
                    api_error_status: value["api_error_status"]
                        .as_u64()
                        .and_then(|status| u16::try_from(status).ok()),
                    num_turns: value["num_turns"]
                        .as_u64()
                        .and_then(|turns| u32::try_from(turns).ok()),
                    duration_api_ms: value["duration_api_ms"].as_u64(),
                    permission_denials: value["permission_denials"]
                        .as_array()
                        .cloned()
                        .unwrap_or_default(),
                });
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// A raw Anthropic stream event (`--include-partial-messages`).
    fn raw(&mut self, event: &Value, recorder: &mut Recorder<'_>) -> Result<(), SessionError> {
        let block = event["index"]
            .as_u64()
            .and_then(|index| usize::try_from(index).ok())
            .unwrap_or(0);
        match event["type"].as_str().unwrap_or("") {
            "message_start" => {
                let message = &event["message"];
                let id = message["id"].as_str().unwrap_or_default().to_owned();
                recorder.begin(&id)?;
                recorder.set_usage(usage_of(&message["usage"]));
                self.usage_from_stream.push(id.clone());
                recorder.partial(&StreamEvent::Start {
                    response_id: Some(id),
                    model: message["model"].as_str().map(str::to_owned),
                });
            }
            "content_block_start" => {
                let content = &event["content_block"];
                if content["type"] == "tool_use" {
                    recorder.partial(&StreamEvent::ToolCallStart {
                        block,
                        id: content["id"].as_str().unwrap_or_default().to_owned(),
                        name: content["name"].as_str().unwrap_or_default().to_owned(),
                    });
                }
            }
            "content_block_delta" => {
                let delta = &event["delta"];
                match delta["type"].as_str().unwrap_or("") {
                    "text_delta" => {
                        let text = delta["text"].as_str().unwrap_or_default().to_owned();
                        recorder.text_delta(&text);
                        recorder.partial(&StreamEvent::TextDelta { block, text });
                    }
                    "thinking_delta" => recorder.partial(&StreamEvent::ThinkingDelta {
                        block,
                        text: delta["thinking"].as_str().unwrap_or_default().to_owned(),
                    }),
                    "input_json_delta" => recorder.partial(&StreamEvent::ToolCallArguments {
                        block,
                        fragment: delta["partial_json"]
                            .as_str()
                            .unwrap_or_default()
                            .to_owned(),
                    }),
                    _ => {}
                }
            }
            "message_delta" => {
                // The final counts of the call: output always, prompt parts when present.
                let mut usage = recorder.usage().unwrap_or_default();
                let delta = &event["usage"];
                let update = |target: &mut u64, key: &str| {
                    if let Some(count) = delta.get(key).and_then(Value::as_u64) {
                        *target = count;
                    }
                };
                update(&mut usage.output, "output_tokens");
                update(&mut usage.input, "input_tokens");
                update(&mut usage.cache_read, "cache_read_input_tokens");
                update(&mut usage.cache_write, "cache_creation_input_tokens");
                recorder.set_usage(usage);
                recorder.partial(&StreamEvent::Usage(usage));
                if let Some(reason) = event["delta"]["stop_reason"].as_str() {
                    recorder.set_stop(reason);
                    let normalized = match reason {
                        "tool_use" => StopReason::ToolUse,
                        "max_tokens" => StopReason::Length,
                        _ => StopReason::Stop,
                    };
                    recorder.partial(&StreamEvent::Finish {
                        reason: normalized,
                        provider_reason: reason.to_owned(),
                    });
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// A whole-block `assistant` event.
    fn assistant(
        &mut self,
        message: &Value,
        recorder: &mut Recorder<'_>,
    ) -> Result<(), SessionError> {
        let id = message["id"].as_str().unwrap_or_default().to_owned();
        recorder.begin(&id)?;
        if !self.usage_from_stream.contains(&id) {
            recorder.set_usage(usage_of(&message["usage"]));
        }
        if let Some(reason) = message["stop_reason"].as_str() {
            recorder.set_stop(reason);
        }
        let Some(blocks) = message["content"].as_array() else {
            return Ok(());
        };
        for block in blocks {
            let content = match block["type"].as_str().unwrap_or("") {
                "text" => AssistantContent::Text(TextContent {
                    text: block["text"].as_str().unwrap_or_default().to_owned(),
                    text_signature: None,
                    extra: Map::new(),
                }),
                "thinking" => AssistantContent::Thinking(ThinkingContent {
                    thinking: block["thinking"].as_str().unwrap_or_default().to_owned(),
                    thinking_signature: block["signature"].as_str().map(str::to_owned),
                    redacted: None,
                    extra: Map::new(),
                }),
                "tool_use" => AssistantContent::ToolCall(ToolCall {
                    id: block["id"].as_str().unwrap_or_default().to_owned(),
                    name: block["name"].as_str().unwrap_or_default().to_owned(),
                    arguments: block["input"].clone(),
                    thought_signature: None,
                    extra: Map::new(),
                }),
                _ => continue,
            };
            recorder.push(content);
        }
        Ok(())
    }
}
