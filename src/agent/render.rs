//! The stream-json shapes of a turn's events, mirroring `claude -p --output-format stream-json`
//! (see `shared/reference/claude-output/`): assistant messages with Anthropic-shaped content and
//! user messages carrying `tool_result` blocks. Each names the session entry it was stored as in
//! `entry_id`; the line's `uuid` is stamped by the stream-json writer (`output::events`).

use serde_json::{Value, json};

use crate::conversation::{AssistantBlock, AssistantMessage, ContentBlock, ToolResultMessage};

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
        .map(|block| match block {
            AssistantBlock::Text(text) => json!({"type": "text", "text": text.text}),
            AssistantBlock::Thinking(thinking) => json!({
                "type": "thinking",
                "thinking": thinking.thinking,
                "signature": thinking.signature.clone().unwrap_or_default(),
            }),
            AssistantBlock::ToolCall(call) => json!({
                "type": "tool_use",
                "id": call.id,
                "name": call.name,
                "input": call.arguments,
            }),
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
        "entry_id": entry_id,
    })
}

fn blocks_json(blocks: &[ContentBlock]) -> Vec<Value> {
    blocks
        .iter()
        .map(|block| match block {
            ContentBlock::Text(text) => json!({"type": "text", "text": text.text}),
            ContentBlock::Image(image) => json!({
                "type": "image",
                "source": {"type": "base64", "media_type": image.mime_type, "data": image.data},
            }),
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
        "entry_id": entry_id,
    })
}
