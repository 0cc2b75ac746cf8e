//! Builds a Responses API request (`POST /responses`, reference §3.1) from a [`ModelRequest`].
//!
//! Pure. The conversation is sent in full every time (`store: false`), so reasoning survives
//! across turns only by echoing the encrypted reasoning items the model returned: pincer stores
//! each one as a thinking block whose signature is the item's JSON text (see `stream.rs`), and
//! sends it back here unchanged. Thinking blocks of other origins carry nothing the API can use and
//! are dropped.
//!
//! Web search (`request.web_search`): the `web_search` tool after the functions, and
//! `web_search_call.action.sources` in `include` so the finished call lists what it found. The
//! `web_search_call` items of earlier answers are sent back (as codex does with `store: false`:
//! type, status and action, without the sources or the item id), whether or not this request
//! searches: a reasoning item the call followed must not lose its following item.
//!
//! A few helpers are shared with the Chat Completions builder, which maps the same session
//! content.

use serde_json::{Map, Value};

use super::wire::{
    FunctionTool, InputContent, InputItem, OutputTextContent, ReasoningOptions, ResponsesRequest,
    TextFormat, TextOptions, Tool, TypedInputItem, UserInput, WebSearchTool,
};
use crate::conversation::{
    AssistantBlock, ContentBlock, ImageBlock, Message, MessageContent, ToolCall, ToolResultMessage,
};
use crate::{HttpRequest, ModelRequest, ThinkingLevel};

/// Build the HTTP request for `request`.
pub fn build_request(request: &ModelRequest) -> HttpRequest {
    let reasoning = reasoning_effort(request).map(|effort| ReasoningOptions {
        effort,
        summary: "auto",
    });
    let mut include = Vec::new();
    if reasoning.is_some() {
        include.push("reasoning.encrypted_content".to_owned());
    }
    if request.web_search.is_some() {
        include.push("web_search_call.action.sources".to_owned());
    }
    let mut tools: Vec<Tool> = request
        .tools
        .iter()
        .map(|tool| {
            Tool::Function(FunctionTool {
                name: tool.name.clone(),
                description: tool.description.clone(),
                parameters: tool.parameters.clone(),
                strict: false,
            })
        })
        .collect();
    if request.web_search.is_some() {
        tools.push(Tool::WebSearch(WebSearchTool {}));
    }
    let body = ResponsesRequest {
        model: request.model.clone(),
        stream: true,
        store: false,
        include,
        reasoning,
        instructions: (!request.system_prompt.is_empty()).then(|| request.system_prompt.clone()),
        max_output_tokens: (request.max_output_tokens > 0).then_some(request.max_output_tokens),
        input: request.messages.iter().flat_map(input_items).collect(),
        tools,
        text: request.output_format.as_ref().map(|format| TextOptions {
            format: TextFormat::JsonSchema {
                name: format.name.clone(),
                schema: format.schema.clone(),
                strict: format.strict,
            },
        }),
        prompt_cache_key: request.cache_key.clone(),
    };
    HttpRequest {
        path: "/responses".to_owned(),
        headers: vec![("accept".to_owned(), "text/event-stream".to_owned())],
        // Serializing plain structs of strings and JSON values cannot fail.
        body: crate::json_body(&body, &request.messages),
    }
}

/// The reasoning effort to ask for: none for a model that does not reason (such models reject
/// the parameter) or when thinking is off. The Responses API has no level above `high` for most
/// models, so `xhigh` asks for `high`.
pub fn reasoning_effort(request: &ModelRequest) -> Option<&'static str> {
    if !request.reasoning_model {
        return None;
    }
    match request.thinking {
        ThinkingLevel::Off => None,
        ThinkingLevel::Minimal => Some("minimal"),
        ThinkingLevel::Low => Some("low"),
        ThinkingLevel::Medium => Some("medium"),
        ThinkingLevel::High | ThinkingLevel::Xhigh => Some("high"),
    }
}

fn input_items(message: &Message) -> Vec<InputItem> {
    match message {
        Message::User(user) => {
            let content = user_content(&user.content);
            if content.is_empty() {
                return Vec::new();
            }
            vec![InputItem::User(UserInput {
                role: "user",
                content,
            })]
        }
        Message::Assistant(assistant) => assistant
            .content
            .iter()
            .filter_map(assistant_item)
            .collect(),
        Message::ToolResult(result) => {
            vec![InputItem::Typed(TypedInputItem::FunctionCallOutput {
                call_id: call_id(&result.tool_call_id),
                output: tool_result_text(result, "the Responses API"),
            })]
        } // pi's coding-agent roles are turned into user messages before a request is built.
    }
}

fn user_content(content: &MessageContent) -> Vec<InputContent> {
    match content {
        MessageContent::Text(text) => vec![InputContent::Text { text: text.clone() }],
        MessageContent::Blocks(blocks) => blocks
            .iter()
            .map(|block| match block {
                ContentBlock::Text(text) => InputContent::Text {
                    text: text.text.clone(),
                },
                ContentBlock::Image(image) => InputContent::Image {
                    image_url: data_url(image),
                    detail: "auto",
                },
            })
            .collect(),
    }
}

fn assistant_item(block: &AssistantBlock) -> Option<InputItem> {
    match block {
        AssistantBlock::Text(text) if !text.text.is_empty() => {
            Some(InputItem::Typed(TypedInputItem::AssistantMessage {
                role: "assistant",
                content: vec![OutputTextContent {
                    text: text.text.clone(),
                }],
            }))
        }
        AssistantBlock::Thinking(thinking) => thinking
            .signature
            .as_deref()
            .and_then(echoable_reasoning_item)
            .map(|item| InputItem::Echoed(Value::Object(item))),
        AssistantBlock::ToolCall(call) => Some(InputItem::Typed(TypedInputItem::FunctionCall {
            call_id: call_id(&call.id),
            name: call.name.clone(),
            arguments: arguments_text(call),
        })),
        AssistantBlock::ServerTool(server) => server
            .payload
            .as_ref()
            .and_then(echoable_search_call)
            .map(|item| InputItem::Echoed(Value::Object(item))),
        AssistantBlock::Text(_) => None,
    }
}

/// An earlier `web_search_call` item in the form the API takes back: its type, status and
/// action, without the sources (they are output only) or the id (with `store: false` nothing is
/// kept under it). `None` for another provider's search.
fn echoable_search_call(payload: &Value) -> Option<Map<String, Value>> {
    let item = payload.as_object()?;
    if item.get("type").and_then(Value::as_str) != Some("web_search_call") {
        return None;
    }
    let mut echoed = Map::new();
    echoed.insert("type".to_owned(), Value::from("web_search_call"));
    for key in ["status", "action"] {
        if let Some(value) = item.get(key) {
            echoed.insert(key.to_owned(), value.clone());
        }
    }
    if let Some(Value::Object(action)) = echoed.get_mut("action") {
        action.shift_remove("sources");
    }
    Some(echoed)
}

/// The reasoning item stored in a thinking signature, when it is one that can be sent back:
/// a JSON object of type `reasoning` with encrypted content. With `store: false` the API keeps
/// nothing, so an item without `encrypted_content` would be looked up by id and rejected.
fn echoable_reasoning_item(signature: &str) -> Option<Map<String, Value>> {
    let item: Map<String, Value> = serde_json::from_str(signature).ok()?;
    let is_reasoning = item.get("type").and_then(Value::as_str) == Some("reasoning");
    let has_content = item
        .get("encrypted_content")
        .and_then(Value::as_str)
        .is_some_and(|content| !content.is_empty());
    (is_reasoning && has_content).then_some(item)
}

/// The call id to send. pi stores Responses tool calls as `call_id|item_id`; only the part before
/// `|` is the call id, and using it on both sides keeps calls and outputs paired.
pub fn call_id(stored: &str) -> String {
    stored.split('|').next().unwrap_or(stored).to_owned()
}

/// A tool call's arguments as JSON text. Arguments that were not valid JSON when they arrived are
/// stored as a string and sent back as that same text.
pub fn arguments_text(call: &ToolCall) -> String {
    match &call.arguments {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// A tool result as text. Tool outputs here are text only, so images are left out with a note
/// that says so (in place of each image).
pub fn tool_result_text(result: &ToolResultMessage, api: &str) -> String {
    let parts: Vec<String> = result
        .content
        .iter()
        .map(|block| match block {
            ContentBlock::Text(text) => text.text.clone(),
            ContentBlock::Image(image) => format!(
                "[image ({}) omitted: {api} accepts only text in tool results]",
                image.mime_type
            ),
        })
        .collect();
    parts.join("\n")
}

/// `data:<mime>;base64,<data>`.
pub fn data_url(image: &ImageBlock) -> String {
    format!("data:{};base64,{}", image.mime_type, image.data)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::conversation::ToolDefinition;

    fn message(value: Value) -> Message {
        pincer_session::pi_fixtures::pi_message(value)
    }

    fn request(messages: Vec<Message>) -> ModelRequest<'static> {
        ModelRequest {
            cache_key: None,
            cache_writes: Some(crate::conversation::CacheTtl::default()),
            model: "gpt-5".into(),
            system_prompt: "You are terse.".into(),
            messages: messages.into(),
            tools: vec![ToolDefinition {
                name: "read".into(),
                description: "Read a file.".into(),
                parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
            }],
            thinking: ThinkingLevel::Low,
            thinking_budget: None,
            max_output_tokens: 32000,
            reasoning_model: true,
            output_format: None,
            web_search: None,
        }
    }

    const REASONING_ITEM: &str = r#"{"id":"rs_0a1","type":"reasoning","encrypted_content":"gAAAAB-enc","summary":[{"type":"summary_text","text":"Plan"}]}"#;

    fn conversation() -> Vec<Message> {
        vec![
            message(json!({"role": "user", "timestamp": 1, "content": [
                {"type": "text", "text": "What is in this picture?"},
                {"type": "image", "data": "iVBORw0", "mimeType": "image/png"}
            ]})),
            message(
                json!({"role": "assistant", "timestamp": 2, "api": "openai-responses",
                "provider": "openai", "model": "gpt-5", "stopReason": "toolUse",
                "content": [
                    {"type": "thinking", "thinking": "Plan", "thinkingSignature": REASONING_ITEM},
                    {"type": "thinking", "thinking": "from Claude", "thinkingSignature": "EqQBCkYIBRgC"},
                    {"type": "text", "text": "Let me look."},
                    {"type": "toolCall", "id": "call_Ab1|fc_0b2", "name": "read",
                     "arguments": {"path": "a.txt"}}
                ]}),
            ),
            message(
                json!({"role": "toolResult", "timestamp": 3, "toolCallId": "call_Ab1|fc_0b2",
                "toolName": "read", "isError": false, "content": [
                    {"type": "text", "text": "hello"},
                    {"type": "image", "data": "R0lG", "mimeType": "image/gif"}
                ]}),
            ),
            message(json!({"role": "user", "timestamp": 4, "content": "Thanks"})),
        ]
    }

    #[test]
    fn a_full_conversation_becomes_the_recorded_request_shape() {
        let built = build_request(&request(conversation()));
        assert_eq!(built.path, "/responses");
        assert_eq!(
            built.headers,
            vec![("accept".to_owned(), "text/event-stream".to_owned())]
        );
        assert_eq!(
            built.json(),
            json!({
                "model": "gpt-5",
                "stream": true,
                "store": false,
                "include": ["reasoning.encrypted_content"],
                "reasoning": {"effort": "low", "summary": "auto"},
                "instructions": "You are terse.",
                "max_output_tokens": 32000,
                "input": [
                    {"role": "user", "content": [
                        {"type": "input_text", "text": "What is in this picture?"},
                        {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0", "detail": "auto"}
                    ]},
                    {"id": "rs_0a1", "type": "reasoning", "encrypted_content": "gAAAAB-enc",
                     "summary": [{"type": "summary_text", "text": "Plan"}]},
                    {"type": "message", "role": "assistant",
                     "content": [{"type": "output_text", "text": "Let me look."}]},
                    {"type": "function_call", "call_id": "call_Ab1", "name": "read",
                     "arguments": "{\"path\":\"a.txt\"}"},
                    {"type": "function_call_output", "call_id": "call_Ab1",
                     "output": "hello\n[image (image/gif) omitted: the Responses API accepts only text in tool results]"},
                    {"role": "user", "content": [{"type": "input_text", "text": "Thanks"}]}
                ],
                "tools": [{"type": "function", "name": "read", "description": "Read a file.",
                    "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
                    "strict": false}]
            })
        );
    }

    #[test]
    fn the_echoed_reasoning_item_keeps_its_exact_text_and_key_order() {
        let built = build_request(&request(conversation()));
        assert_eq!(built.json()["input"][1].to_string(), REASONING_ITEM);
    }

    #[test]
    fn thinking_off_or_a_non_reasoning_model_sends_no_reasoning_parameters() {
        let mut off = request(Vec::new());
        off.thinking = ThinkingLevel::Off;
        let mut plain_model = request(Vec::new());
        plain_model.reasoning_model = false;
        plain_model.thinking = ThinkingLevel::High;
        for built in [build_request(&off), build_request(&plain_model)] {
            let json = built.json();
            let body = json.as_object().unwrap();
            assert!(!body.contains_key("reasoning"));
            assert!(!body.contains_key("include"));
            assert_eq!(body["input"], json!([]));
        }
    }

    #[test]
    fn xhigh_asks_for_high_and_an_empty_system_prompt_and_no_tools_are_left_out() {
        let mut bare = request(Vec::new());
        bare.thinking = ThinkingLevel::Xhigh;
        bare.system_prompt.clear();
        bare.tools.clear();
        let body = build_request(&bare).json();
        assert_eq!(
            body["reasoning"],
            json!({"effort": "high", "summary": "auto"})
        );
        let keys: Vec<&str> = body
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "model",
                "stream",
                "store",
                "include",
                "reasoning",
                "max_output_tokens",
                "input"
            ]
        );
    }

    #[test]
    fn a_reasoning_item_without_encrypted_content_is_not_echoed() {
        let assistant = message(
            json!({"role": "assistant", "timestamp": 2, "api": "openai-responses",
            "provider": "openai", "model": "gpt-5", "stopReason": "stop",
            "content": [
                {"type": "thinking", "thinking": "", "thinkingSignature": r#"{"id":"rs_1","type":"reasoning","summary":[]}"#},
                {"type": "text", "text": "Done."}
            ]}),
        );
        let body = build_request(&request(vec![assistant])).json();
        assert_eq!(
            body["input"],
            json!([{"type": "message", "role": "assistant",
                    "content": [{"type": "output_text", "text": "Done."}]}])
        );
    }

    #[test]
    fn arguments_kept_as_text_are_sent_back_as_that_text() {
        let call = ToolCall {
            id: "call_1".into(),
            name: "edit".into(),
            arguments: json!("{\"path\": \"a"),
            thought_signature: None,
        };
        assert_eq!(arguments_text(&call), "{\"path\": \"a");
    }

    #[test]
    fn a_json_schema_goes_in_text_format_with_its_name_and_strict_flag() {
        let mut built = request(vec![message(
            json!({"role": "user", "timestamp": 1, "content": "Is it ok?"}),
        )]);
        built.output_format = Some(crate::test_support::output_format());
        let body = build_request(&built).json();
        assert_eq!(
            body["text"],
            json!({"format": {"type": "json_schema", "name": "structured_output",
                "schema": {"type": "object", "properties": {"ok": {"type": "boolean"}},
                    "required": ["ok"], "additionalProperties": false},
                "strict": true}})
        );
        assert_eq!(body["tools"][0]["name"], "read");
    }
}
