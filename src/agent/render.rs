//! The stream-json shapes of a turn's events, mirroring `claude -p --output-format stream-json`
//! (see `shared/reference/claude-output/`): assistant messages with Anthropic-shaped content,
//! user messages carrying `tool_result` blocks, and `stream_event` wrappers for deltas.

use serde_json::{Value, json};

use crate::provider::StreamEvent;
use crate::session::record::{AssistantContent, AssistantMessage, ContentBlock, ToolResultMessage};

/// The `assistant` line for a completed message.
pub fn assistant_line(
    message: &AssistantMessage,
    message_id: &str,
    (stop_reason, provider_stop_reason): (Option<&str>, Option<&str>),
    session_id: Option<&str>,
    entry_id: Option<&str>,
) -> Value {
    let content: Vec<Value> = message
        .content
        .iter()
        .filter_map(|block| match block {
            AssistantContent::Text(text) => Some(json!({"type": "text", "text": text.text})),
            AssistantContent::Thinking(thinking) => Some(json!({
                "type": "thinking",
                "thinking": thinking.thinking,
                "signature": thinking.thinking_signature.clone().unwrap_or_default(),
            })),
            AssistantContent::ToolCall(call) => Some(json!({
                "type": "tool_use",
                "id": call.id,
                "name": call.name,
                "input": call.arguments,
            })),
            AssistantContent::Unknown(_) => None,
        })
        .collect();
    json!({
        "type": "assistant",
        "message": {
            "id": message_id,
            "type": "message",
            "role": "assistant",
            "model": message.model,
            "content": content,
            "stop_reason": stop_reason,
            "stop_sequence": null,
            "usage": {
                "input_tokens": message.usage.input,
                "cache_creation_input_tokens": message.usage.cache_write,
                "cache_read_input_tokens": message.usage.cache_read,
                "output_tokens": message.usage.output,
            },
            "provider_stop_reason": provider_stop_reason,
        },
        "parent_tool_use_id": null,
        "session_id": session_id,
        "uuid": entry_id,
    })
}

fn blocks_json(blocks: &[ContentBlock]) -> Vec<Value> {
    blocks
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Text(text) => Some(json!({"type": "text", "text": text.text})),
            ContentBlock::Image(image) => Some(json!({
                "type": "image",
                "source": {"type": "base64", "media_type": image.mime_type, "data": image.data},
            })),
            ContentBlock::Unknown(_) => None,
        })
        .collect()
}

/// The `user` line carrying one tool result.
pub fn tool_result_line(
    result: &ToolResultMessage,
    session_id: Option<&str>,
    entry_id: Option<&str>,
) -> Value {
    json!({
        "type": "user",
        "message": {
            "role": "user",
            "content": [{
                "tool_use_id": result.tool_call_id,
                "type": "tool_result",
                "content": blocks_json(&result.content),
                "is_error": result.is_error,
            }],
        },
        "parent_tool_use_id": null,
        "session_id": session_id,
        "uuid": entry_id,
    })
}

/// A neutral stream event as JSON, for `stream_event` lines.
pub fn neutral_event(event: &StreamEvent) -> Value {
    match event {
        StreamEvent::Start { response_id, model } => {
            json!({"type": "message_start", "response_id": response_id, "model": model})
        }
        StreamEvent::TextDelta { block, text } => {
            json!({"type": "text_delta", "index": block, "text": text})
        }
        StreamEvent::TextSignature { block, .. } => {
            json!({"type": "text_signature", "index": block})
        }
        StreamEvent::ThinkingDelta { block, text } => {
            json!({"type": "thinking_delta", "index": block, "thinking": text})
        }
        StreamEvent::ThinkingSignature { block, .. } => {
            json!({"type": "signature_delta", "index": block})
        }
        StreamEvent::RedactedThinking { block, .. } => {
            json!({"type": "redacted_thinking", "index": block})
        }
        StreamEvent::ToolCallStart { block, id, name } => {
            json!({"type": "tool_use_start", "index": block, "id": id, "name": name})
        }
        StreamEvent::ToolCallArguments { block, fragment } => {
            json!({"type": "input_json_delta", "index": block, "partial_json": fragment})
        }
        StreamEvent::ToolCall {
            block,
            id,
            name,
            arguments,
            ..
        } => {
            json!({"type": "tool_use", "index": block, "id": id, "name": name, "input": arguments})
        }
        StreamEvent::Usage(usage) => json!({
            "type": "usage",
            "input_tokens": usage.input,
            "cache_creation_input_tokens": usage.cache_write,
            "cache_read_input_tokens": usage.cache_read,
            "output_tokens": usage.output,
            "reasoning_tokens": usage.reasoning,
        }),
        StreamEvent::Finish {
            provider_reason, ..
        } => {
            json!({"type": "message_stop", "stop_reason": provider_reason})
        }
    }
}
