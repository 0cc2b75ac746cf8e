//! Builds a Chat Completions request (`POST /chat/completions`, reference §2.2) from a
//! [`ModelRequest`]. Pure.
//!
//! The system prompt is the first message; thinking blocks are dropped (Chat Completions has no
//! way to send reasoning back); tool results become `tool` messages, text only.

use super::wire::{
    ChatMessage, ChatRequest, ChatTool, ChatToolCall, ContentPart, FunctionCall,
    FunctionDefinition, ImageUrl, JsonSchemaFormat, ResponseFormat, StreamOptions, UserContent,
};
use crate::conversation::{AssistantBlock, ContentBlock, Message, MessageContent};
use crate::openai::request::{
    arguments_text, call_id, data_url, reasoning_effort, tool_result_text,
};
use crate::{HttpRequest, ModelRequest};

/// Build the HTTP request for `request`.
pub fn build_request(request: &ModelRequest) -> HttpRequest {
    let mut messages = Vec::new();
    if !request.system_prompt.is_empty() {
        messages.push(ChatMessage::System {
            content: request.system_prompt.clone(),
        });
    }
    messages.extend(request.messages.iter().filter_map(chat_message));
    let max_tokens = (request.max_output_tokens > 0).then_some(request.max_output_tokens);
    let body = ChatRequest {
        model: request.model.clone(),
        stream: true,
        stream_options: StreamOptions {
            include_usage: true,
        },
        messages,
        tools: request
            .tools
            .iter()
            .map(|tool| ChatTool {
                tool_type: "function",
                function: FunctionDefinition {
                    name: tool.name.clone(),
                    description: tool.description.clone(),
                    parameters: tool.parameters.clone(),
                },
            })
            .collect(),
        max_tokens: max_tokens.filter(|_| !request.reasoning_model),
        max_completion_tokens: max_tokens.filter(|_| request.reasoning_model),
        reasoning_effort: reasoning_effort(request),
        response_format: request
            .output_format
            .as_ref()
            .map(|format| ResponseFormat::JsonSchema {
                json_schema: JsonSchemaFormat {
                    name: format.name.clone(),
                    schema: format.schema.clone(),
                    strict: format.strict,
                },
            }),
    };
    HttpRequest {
        path: "/chat/completions".to_owned(),
        headers: vec![("accept".to_owned(), "text/event-stream".to_owned())],
        // Serializing plain structs of strings and JSON values cannot fail.
        body: crate::json_body(&body, &request.messages),
    }
}

fn chat_message(message: &Message) -> Option<ChatMessage> {
    match message {
        Message::User(user) => {
            let content = match &user.content {
                MessageContent::Text(text) => UserContent::Text(text.clone()),
                MessageContent::Blocks(blocks) => {
                    let parts: Vec<ContentPart> = blocks
                        .iter()
                        .map(|block| match block {
                            ContentBlock::Text(text) => ContentPart::Text {
                                text: text.text.clone(),
                            },
                            ContentBlock::Image(image) => ContentPart::ImageUrl {
                                image_url: ImageUrl {
                                    url: data_url(image),
                                },
                            },
                        })
                        .collect();
                    if parts.is_empty() {
                        return None;
                    }
                    UserContent::Parts(parts)
                }
            };
            Some(ChatMessage::User { content })
        }
        Message::Assistant(assistant) => {
            let text: String = assistant
                .content
                .iter()
                .filter_map(|block| match block {
                    AssistantBlock::Text(text) => Some(text.text.as_str()),
                    _ => None,
                })
                .collect();
            let tool_calls: Vec<ChatToolCall> = assistant
                .content
                .iter()
                .filter_map(|block| match block {
                    AssistantBlock::ToolCall(call) => Some(ChatToolCall {
                        id: call_id(&call.id),
                        call_type: "function",
                        function: FunctionCall {
                            name: call.name.clone(),
                            arguments: arguments_text(call),
                        },
                    }),
                    _ => None,
                })
                .collect();
            // An assistant turn with neither (only thinking, or an aborted empty answer) is left
            // out: servers reject an assistant message without content or tool calls.
            if text.is_empty() && tool_calls.is_empty() {
                return None;
            }
            Some(ChatMessage::Assistant {
                content: (!text.is_empty()).then_some(text),
                tool_calls,
            })
        }
        Message::ToolResult(result) => Some(ChatMessage::Tool {
            tool_call_id: call_id(&result.tool_call_id),
            content: tool_result_text(result, "Chat Completions"),
        }),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::ThinkingLevel;
    use crate::conversation::ToolDefinition;
    use serde_json::Value;

    fn message(value: Value) -> Message {
        pincer_session::pi_fixtures::pi_message(value)
    }

    fn request(messages: Vec<Message>) -> ModelRequest<'static> {
        ModelRequest {
            cache_key: None,
            cache_writes: Some(crate::conversation::CacheTtl::default()),
            model: "gpt-4o-mini".into(),
            system_prompt: "You are terse.".into(),
            messages: messages.into(),
            tools: vec![ToolDefinition {
                name: "multiply".into(),
                description: "Multiply two numbers.".into(),
                parameters: json!({"type": "object", "properties": {"a": {"type": "integer"}}}),
            }],
            thinking: ThinkingLevel::Medium,
            thinking_budget: None,
            max_output_tokens: 4096,
            reasoning_model: false,
            output_format: None,
            web_search: None,
        }
    }

    fn conversation() -> Vec<Message> {
        vec![
            message(json!({"role": "user", "timestamp": 1, "content": "What is 1231 * 2331?"})),
            message(
                json!({"role": "assistant", "timestamp": 2, "api": "openai-completions",
                "provider": "openai", "model": "gpt-4o-mini", "stopReason": "toolUse",
                "content": [
                    {"type": "thinking", "thinking": "Multiply.", "thinkingSignature": "sig"},
                    {"type": "text", "text": "Computing."},
                    {"type": "toolCall", "id": "call_1EYW", "name": "multiply",
                     "arguments": {"a": 1231, "b": 2331}}
                ]}),
            ),
            message(
                json!({"role": "toolResult", "timestamp": 3, "toolCallId": "call_1EYW",
                "toolName": "multiply", "isError": false,
                "content": [{"type": "text", "text": "2869461"}]}),
            ),
            message(
                json!({"role": "assistant", "timestamp": 4, "api": "openai-completions",
                "provider": "openai", "model": "gpt-4o-mini", "stopReason": "stop",
                "content": [{"type": "thinking", "thinking": "only thoughts"}]}),
            ),
            message(json!({"role": "user", "timestamp": 5, "content": [
                {"type": "text", "text": "And this?"},
                {"type": "image", "data": "iVBORw0", "mimeType": "image/png"}
            ]})),
        ]
    }

    #[test]
    fn a_full_conversation_becomes_the_recorded_request_shape() {
        let built = build_request(&request(conversation()));
        assert_eq!(built.path, "/chat/completions");
        assert_eq!(
            built.json(),
            json!({
                "model": "gpt-4o-mini",
                "stream": true,
                "stream_options": {"include_usage": true},
                "messages": [
                    {"role": "system", "content": "You are terse."},
                    {"role": "user", "content": "What is 1231 * 2331?"},
                    {"role": "assistant", "content": "Computing.", "tool_calls": [
                        {"id": "call_1EYW", "type": "function",
                         "function": {"name": "multiply", "arguments": "{\"a\":1231,\"b\":2331}"}}
                    ]},
                    {"role": "tool", "tool_call_id": "call_1EYW", "content": "2869461"},
                    {"role": "user", "content": [
                        {"type": "text", "text": "And this?"},
                        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0"}}
                    ]}
                ],
                "tools": [{"type": "function", "function": {"name": "multiply",
                    "description": "Multiply two numbers.",
                    "parameters": {"type": "object", "properties": {"a": {"type": "integer"}}}}}],
                "max_tokens": 4096
            })
        );
    }

    #[test]
    fn a_reasoning_model_gets_max_completion_tokens_and_the_effort() {
        let mut reasoning = request(Vec::new());
        reasoning.reasoning_model = true;
        reasoning.tools.clear();
        reasoning.system_prompt.clear();
        let body = build_request(&reasoning).json();
        assert_eq!(
            body,
            json!({"model": "gpt-4o-mini", "stream": true, "stream_options": {"include_usage": true},
                "messages": [], "max_completion_tokens": 4096, "reasoning_effort": "medium"})
        );
        reasoning.thinking = ThinkingLevel::Off;
        let body = build_request(&reasoning).json();
        assert!(body.get("reasoning_effort").is_none());
        assert_eq!(body["max_completion_tokens"], 4096);
    }

    #[test]
    fn a_tool_only_turn_has_no_content_and_pi_composite_ids_are_split() {
        let messages = vec![
            message(
                json!({"role": "assistant", "timestamp": 2, "api": "openai-responses",
                "provider": "openai", "model": "gpt-5", "stopReason": "toolUse",
                "content": [{"type": "toolCall", "id": "call_9|fc_0b", "name": "ls", "arguments": {}}]}),
            ),
            message(
                json!({"role": "toolResult", "timestamp": 3, "toolCallId": "call_9|fc_0b",
                "toolName": "ls", "isError": false,
                "content": [{"type": "image", "data": "R0lG", "mimeType": "image/gif"}]}),
            ),
        ];
        let mut bare = request(messages);
        bare.system_prompt.clear();
        let body = build_request(&bare).json();
        assert_eq!(
            body["messages"],
            json!([
                {"role": "assistant", "tool_calls": [{"id": "call_9", "type": "function",
                    "function": {"name": "ls", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "call_9",
                 "content": "[image (image/gif) omitted: Chat Completions accepts only text in tool results]"}
            ])
        );
    }

    #[test]
    fn a_json_schema_goes_in_response_format_json_schema() {
        let mut built = request(vec![message(
            json!({"role": "user", "timestamp": 1, "content": "Is it ok?"}),
        )]);
        built.output_format = Some(crate::test_support::output_format());
        let body = build_request(&built).json();
        assert_eq!(
            body["response_format"],
            json!({"type": "json_schema", "json_schema": {"name": "structured_output",
                "schema": {"type": "object", "properties": {"ok": {"type": "boolean"}},
                    "required": ["ok"], "additionalProperties": false},
                "strict": true}})
        );
        assert_eq!(body["tools"][0]["function"]["name"], "multiply");
    }
}
