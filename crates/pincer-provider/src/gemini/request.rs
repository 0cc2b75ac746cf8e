//! Builds the `streamGenerateContent?alt=sse` request from a [`ModelRequest`]. Pure.
//!
//! Invariants of the `contents` it produces (Gemini rejects anything else):
//! - turns alternate: consecutive same-role turns are merged, and the first turn is `user`;
//! - every function call of a model turn is answered in the next `user` turn — the conversation
//!   arrives repaired (`conversation::repair`), so results follow their calls;
//! - signatures (`thoughtSignature`) are echoed only to the API and model that issued them; a
//!   tool call without one gets the documented sentinel instead (reference §4.2).
//!
//! The API key is never part of the path: the HTTP layer sends it as `x-goog-api-key`.

use serde_json::{Map, Value};

use super::wire::{
    Blob, Content, FunctionCall, FunctionDeclaration, FunctionOutcome, FunctionResponse,
    GenerateContentRequest, GenerationConfig, GoogleSearch, Part, Role, SystemInstruction,
    ThinkingConfig, Tool,
};
use crate::conversation::{
    AssistantBlock, AssistantMessage, ContentBlock, ImageBlock, Message, MessageContent,
    ToolDefinition, ToolResultMessage,
};
use crate::{HttpRequest, ModelRequest, ThinkingLevel};

/// The `api` name stored in assistant messages produced by this protocol.
const API_NAME: &str = "google-generative-ai";

/// What Gemini accepts in place of a thought signature for a function call it did not produce
/// (`badlogic/pi-mono:packages/ai/src/providers/google-shared.ts`, Gemini thought-signature FAQ).
pub const SKIP_SIGNATURE_SENTINEL: &str = "skip_thought_signature_validator";

/// Sent as the first turn when the conversation would otherwise start with the model.
const CONTINUATION_TEXT: &str = "(continued)";

/// Build the HTTP request for `request`.
pub fn build_request(request: &ModelRequest) -> HttpRequest {
    let model = request
        .model
        .strip_prefix("models/")
        .unwrap_or(&request.model);
    let body = GenerateContentRequest {
        contents: build_contents(request),
        system_instruction: (!request.system_prompt.trim().is_empty()).then(|| SystemInstruction {
            parts: vec![text_part(request.system_prompt.clone())],
        }),
        tools: build_tools(&request.tools, request.web_search.is_some()),
        generation_config: GenerationConfig {
            max_output_tokens: request.max_output_tokens,
            thinking_config: thinking_config(request),
            response_mime_type: request.output_format.as_ref().map(|_| "application/json"),
            response_json_schema: request
                .output_format
                .as_ref()
                .map(|format| format.schema.clone()),
        },
    };
    HttpRequest {
        path: format!("/models/{model}:streamGenerateContent?alt=sse"),
        headers: vec![("accept".to_owned(), "text/event-stream".to_owned())],
        // These types hold only strings, numbers and string-keyed maps, which always serialize.
        body: crate::json_body(&body, &request.messages),
    }
}

/// Thinking budgets per level (Gemini 2.5 ranges: Flash 0–24576, Pro 128–32768). Off disables
/// thinking only on Flash models: Pro cannot turn it off, so it keeps its default there.
/// Models the catalog does not mark as reasoning models get no thinking settings at all.
fn thinking_config(request: &ModelRequest) -> Option<ThinkingConfig> {
    if !request.reasoning_model {
        return None;
    }
    let budget = match request.thinking {
        ThinkingLevel::Off => {
            return request.model.contains("flash").then_some(ThinkingConfig {
                include_thoughts: None,
                thinking_budget: 0,
            });
        }
        ThinkingLevel::Minimal => 512,
        ThinkingLevel::Low => 2048,
        ThinkingLevel::Medium => 8192,
        ThinkingLevel::High => 16384,
        ThinkingLevel::Xhigh => 24576,
    };
    // An exact budget (`--max-thinking-tokens`) replaces the level's, within the model's range.
    let budget = match request.thinking_budget {
        Some(tokens) => {
            let (least, most) = if request.model.contains("pro") {
                (128, 32_768)
            } else if request.model.contains("flash-lite") {
                (512, 24_576)
            } else {
                (1, 24_576)
            };
            tokens.clamp(least, most)
        }
        None => budget,
    };
    Some(ThinkingConfig {
        include_thoughts: Some(true),
        thinking_budget: budget,
    })
}

/// The function declarations, then `google_search` when `searching` (a separate entry, as the
/// docs write it; Gemini 2.x takes it only without functions, which `commands/` sees to).
fn build_tools(tools: &[ToolDefinition], searching: bool) -> Vec<Tool> {
    let mut entries = Vec::new();
    if !tools.is_empty() {
        entries.push(function_tool(tools));
    }
    if searching {
        entries.push(Tool::GoogleSearch {
            google_search: GoogleSearch {},
        });
    }
    entries
}

fn function_tool(tools: &[ToolDefinition]) -> Tool {
    let function_declarations = tools
        .iter()
        .map(|tool| {
            let parameters = clean_schema(tool.parameters.clone());
            let has_properties = parameters
                .get("properties")
                .and_then(Value::as_object)
                .is_some_and(|properties| !properties.is_empty());
            FunctionDeclaration {
                name: tool.name.clone(),
                description: tool.description.clone(),
                parameters: has_properties.then_some(parameters),
            }
        })
        .collect();
    Tool::Functions {
        function_declarations,
    }
}

// ---------------------------------------------------------------------------------------------
// Contents

/// Collects turns, merging consecutive turns of the same role.
#[derive(Default)]
struct Turns {
    contents: Vec<Content>,
}

impl Turns {
    fn push(&mut self, role: Role, parts: Vec<Part>) {
        if parts.is_empty() {
            return;
        }
        match self.contents.last_mut() {
            Some(last) if last.role == role => last.parts.extend(parts),
            _ => self.contents.push(Content { role, parts }),
        }
    }
}

fn build_contents(request: &ModelRequest) -> Vec<Content> {
    let mut turns = Turns::default();
    for message in request.messages.iter() {
        match message {
            Message::User(user) => turns.push(Role::User, user_parts(&user.content)),
            Message::Assistant(assistant) => {
                turns.push(Role::Model, assistant_parts(assistant, &request.model));
            }
            Message::ToolResult(result) => turns.push(Role::User, tool_result_parts(result)),
        }
    }
    let mut contents = turns.contents;
    if contents
        .first()
        .is_some_and(|first| first.role == Role::Model)
    {
        contents.insert(
            0,
            Content {
                role: Role::User,
                parts: vec![text_part(CONTINUATION_TEXT.to_owned())],
            },
        );
    }
    contents
}

fn text_part(text: String) -> Part {
    Part {
        text: Some(text),
        ..Part::default()
    }
}

fn image_part(image: &ImageBlock) -> Part {
    Part {
        inline_data: Some(Blob {
            mime_type: image.mime_type.clone(),
            data: image.data.clone(),
        }),
        ..Part::default()
    }
}

fn function_response_part(name: String, response: FunctionOutcome) -> Part {
    Part {
        function_response: Some(FunctionResponse { name, response }),
        ..Part::default()
    }
}

/// Text and image blocks; empty text is left out (Gemini rejects empty text parts).
fn block_parts(blocks: &[ContentBlock]) -> Vec<Part> {
    blocks
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Text(text) if !text.text.is_empty() => Some(text_part(text.text.clone())),
            ContentBlock::Image(image) => Some(image_part(image)),
            _ => None,
        })
        .collect()
}

fn user_parts(content: &MessageContent) -> Vec<Part> {
    match content {
        MessageContent::Text(text) if text.is_empty() => Vec::new(),
        MessageContent::Text(text) => vec![text_part(text.clone())],
        MessageContent::Blocks(blocks) => block_parts(blocks),
    }
}

/// The parts of a model turn.
fn assistant_parts(message: &AssistantMessage, model: &str) -> Vec<Part> {
    // Signatures are opaque to everyone but the model that made them: another provider's
    // signature (an Anthropic thinking signature, an OpenAI item id) would be rejected.
    let own_signatures = message.api == API_NAME && message.model == model;
    let signature = |value: &Option<String>| {
        value
            .as_ref()
            .filter(|signature| own_signatures && !signature.is_empty())
            .cloned()
    };
    let mut parts = Vec::new();
    for block in &message.content {
        match block {
            AssistantBlock::Text(text) => {
                let thought_signature = signature(&text.signature);
                if text.text.is_empty() && thought_signature.is_none() {
                    continue;
                }
                parts.push(Part {
                    text: Some(text.text.clone()),
                    thought_signature,
                    ..Part::default()
                });
            }
            AssistantBlock::Thinking(thinking) => {
                // Unsigned (or foreign) reasoning cannot be replayed as a thought.
                if thinking.redacted {
                    continue;
                }
                if let Some(thought_signature) = signature(&thinking.signature) {
                    parts.push(Part {
                        text: Some(thinking.thinking.clone()),
                        thought: Some(true),
                        thought_signature: Some(thought_signature),
                        ..Part::default()
                    });
                }
            }
            AssistantBlock::ToolCall(call) => {
                let args = if call.arguments.is_object() {
                    call.arguments.clone()
                } else {
                    Value::Object(Map::new())
                };
                parts.push(Part {
                    function_call: Some(FunctionCall {
                        id: None,
                        name: call.name.clone(),
                        args,
                    }),
                    thought_signature: Some(
                        signature(&call.thought_signature)
                            .unwrap_or_else(|| SKIP_SIGNATURE_SENTINEL.to_owned()),
                    ),
                    ..Part::default()
                });
            }
            // Grounding is Gemini's own record of the answer: nothing to send back.
            AssistantBlock::ServerTool(_) => {}
        }
    }
    parts
}

fn result_text(result: &ToolResultMessage) -> String {
    result
        .content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Text(text) => Some(text.text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn result_images(result: &ToolResultMessage) -> impl Iterator<Item = Part> + '_ {
    result.content.iter().filter_map(|block| match block {
        ContentBlock::Image(image) => Some(image_part(image)),
        _ => None,
    })
}

/// `functionResponse` with `{"output"}` or `{"error"}`; images follow as inline parts.
fn tool_result_parts(result: &ToolResultMessage) -> Vec<Part> {
    let text = result_text(result);
    let outcome = if result.is_error {
        FunctionOutcome::Error(text)
    } else {
        FunctionOutcome::Output(text)
    };
    let mut parts = vec![function_response_part(result.tool_name.clone(), outcome)];
    parts.extend(result_images(result));
    parts
}

// ---------------------------------------------------------------------------------------------
// Schemas

/// Rewrite a JSON Schema into the OpenAPI subset Gemini's `parameters` accepts
/// (<https://ai.google.dev/api/caching#Schema>). Pure; unknown input never fails.
///
/// - kept: `type`, `description`, `title`, `nullable`, `enum` (strings), `properties`,
///   `required` (only names that are properties), `items`, `anyOf`, `minimum`, `maximum`,
///   `minItems`, `maxItems`, `minLength`, `maxLength`, `minProperties`, `maxProperties`,
///   `propertyOrdering`, `pattern` (strings only), `format` (only the ones Gemini knows:
///   `enum`/`date-time` on strings, `int32`/`int64` on integers, `float`/`double` on numbers);
/// - dropped: `$schema`, `$id`, `$defs`/`definitions`, `additionalProperties`, `default`,
///   `examples`, `example`, `exclusiveMinimum`/`exclusiveMaximum`, `multipleOf`, `uniqueItems`,
///   `not`, conditionals and any other keyword;
/// - rewritten: local `$ref`s are inlined (siblings win; a recursive reference becomes
///   `{"type": "object"}`), `allOf` is merged into its parent, `oneOf` becomes `anyOf`, a `null`
///   member of `anyOf`/`oneOf`/`type: [..]`/`enum` becomes `nullable: true` (a single remaining
///   member is merged into the parent), `const: v` becomes `enum: [v]`, tuple `items: [..]` keeps
///   its first schema, a boolean schema becomes `{}`, an empty `properties` is removed, and an
///   `enum` of non-strings (Gemini allows only string enums) moves into the description;
/// - inferred: `type` is `object` with `properties`, `array` with `items`, `string` with a string
///   `enum`.
pub fn clean_schema(schema: Value) -> Value {
    let mut definitions = Map::new();
    for key in ["definitions", "$defs"] {
        if let Some(Value::Object(found)) = schema.get(key) {
            definitions.extend(found.clone());
        }
    }
    Value::Object(clean_node(schema, &definitions, &mut Vec::new()))
}

fn clean_node(
    node: Value,
    definitions: &Map<String, Value>,
    resolving: &mut Vec<String>,
) -> Map<String, Value> {
    let Value::Object(source) = node else {
        return Map::new();
    };
    let mut out = Map::new();
    let mut nullable = false;
    let mut merged: Vec<Map<String, Value>> = Vec::new();
    for (key, value) in source {
        match key.as_str() {
            "type" => match value {
                Value::String(name) if name == "null" => nullable = true,
                Value::String(name) => {
                    out.insert(key, Value::String(name));
                }
                Value::Array(names) => {
                    let mut names: Vec<String> = names
                        .into_iter()
                        .filter_map(|name| name.as_str().map(str::to_owned))
                        .collect();
                    if names.iter().any(|name| name == "null") {
                        nullable = true;
                        names.retain(|name| name != "null");
                    }
                    match names.len() {
                        0 => {}
                        1 => {
                            out.insert(key, Value::String(names.remove(0)));
                        }
                        _ => {
                            let variants = names
                                .into_iter()
                                .map(|name| {
                                    let mut variant = Map::new();
                                    variant.insert("type".to_owned(), Value::String(name));
                                    Value::Object(variant)
                                })
                                .collect();
                            out.insert("anyOf".to_owned(), Value::Array(variants));
                        }
                    }
                }
                _ => {}
            },
            "description" | "title" | "pattern" | "format" if value.is_string() => {
                out.insert(key, value);
            }
            "minimum" | "maximum" | "minLength" | "maxLength" | "minItems" | "maxItems"
            | "minProperties" | "maxProperties"
                if value.is_number() =>
            {
                out.insert(key, value);
            }
            "enum" | "required" | "propertyOrdering" if value.is_array() => {
                out.insert(key, value);
            }
            "const" => {
                out.entry("enum")
                    .or_insert_with(|| Value::Array(vec![value]));
            }
            "nullable" => nullable |= value == Value::Bool(true),
            "properties" => {
                if let Value::Object(properties) = value {
                    let cleaned: Map<String, Value> = properties
                        .into_iter()
                        .map(|(name, schema)| {
                            (
                                name,
                                Value::Object(clean_node(schema, definitions, resolving)),
                            )
                        })
                        .collect();
                    if !cleaned.is_empty() {
                        out.insert(key, Value::Object(cleaned));
                    }
                }
            }
            "items" => {
                let schema = match value {
                    Value::Array(mut tuple) if !tuple.is_empty() => tuple.swap_remove(0),
                    other => other,
                };
                out.insert(
                    key,
                    Value::Object(clean_node(schema, definitions, resolving)),
                );
            }
            "anyOf" | "oneOf" => {
                let Value::Array(members) = value else {
                    continue;
                };
                let mut variants = Vec::new();
                for member in members {
                    if is_null_schema(&member) {
                        nullable = true;
                    } else {
                        variants.push(clean_node(member, definitions, resolving));
                    }
                }
                if variants.len() == 1 {
                    merged.extend(variants);
                } else if !variants.is_empty() {
                    out.insert(
                        "anyOf".to_owned(),
                        Value::Array(variants.into_iter().map(Value::Object).collect()),
                    );
                }
            }
            "allOf" => {
                if let Value::Array(members) = value {
                    merged.extend(
                        members
                            .into_iter()
                            .map(|member| clean_node(member, definitions, resolving)),
                    );
                }
            }
            "$ref" => {
                if let Value::String(reference) = value {
                    merged.push(resolve_reference(&reference, definitions, resolving));
                }
            }
            _ => {}
        }
    }
    for extra in merged {
        merge_schema(&mut out, extra, &mut nullable);
    }
    finish_node(&mut out, nullable);
    out
}

/// `{"type": "null"}`, possibly with a description.
fn is_null_schema(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("null")
}

fn resolve_reference(
    reference: &str,
    definitions: &Map<String, Value>,
    resolving: &mut Vec<String>,
) -> Map<String, Value> {
    let name = reference
        .strip_prefix("#/$defs/")
        .or_else(|| reference.strip_prefix("#/definitions/"));
    match name.and_then(|name| definitions.get(name).map(|schema| (name, schema))) {
        Some((name, schema)) if !resolving.iter().any(|open| open == name) => {
            resolving.push(name.to_owned());
            let resolved = clean_node(schema.clone(), definitions, resolving);
            resolving.pop();
            resolved
        }
        // A recursive, remote or unknown reference: cut the structure there.
        _ => {
            let mut placeholder = Map::new();
            placeholder.insert("type".to_owned(), Value::String("object".to_owned()));
            placeholder
        }
    }
}

/// Merge `extra` (an `allOf` member, a lone `anyOf` variant or a `$ref` target) into `out`:
/// properties and required names are united, other keywords already in `out` win.
fn merge_schema(out: &mut Map<String, Value>, extra: Map<String, Value>, nullable: &mut bool) {
    for (key, value) in extra {
        match (key.as_str(), out.get_mut(&key)) {
            ("nullable", _) => *nullable |= value == Value::Bool(true),
            ("properties", Some(Value::Object(existing))) => {
                if let Value::Object(added) = value {
                    for (name, schema) in added {
                        existing.entry(name).or_insert(schema);
                    }
                }
            }
            ("required", Some(Value::Array(existing))) => {
                if let Value::Array(added) = value {
                    for name in added {
                        if !existing.contains(&name) {
                            existing.push(name);
                        }
                    }
                }
            }
            (_, Some(_)) => {}
            (_, None) => {
                out.insert(key, value);
            }
        }
    }
}

/// Checks that need the whole node: type inference, enum/format/pattern by type, `required`.
fn finish_node(out: &mut Map<String, Value>, mut nullable: bool) {
    if let Some(Value::Array(values)) = out.shift_remove("enum") {
        if values.iter().any(Value::is_null) {
            nullable = true;
        }
        let values: Vec<Value> = values
            .into_iter()
            .filter(|value| !value.is_null())
            .collect();
        if values.iter().all(Value::is_string) {
            if !values.is_empty() {
                out.insert("enum".to_owned(), Value::Array(values));
            }
        } else {
            let listed: Vec<String> = values.iter().map(Value::to_string).collect();
            let note = format!("Allowed values: {}.", listed.join(", "));
            let description = match out.get("description").and_then(Value::as_str) {
                Some(existing) if !existing.is_empty() => format!("{existing} {note}"),
                _ => note,
            };
            out.insert("description".to_owned(), Value::String(description));
        }
    }
    if !out.contains_key("type") && !out.contains_key("anyOf") {
        let inferred = if out.contains_key("properties") {
            Some("object")
        } else if out.contains_key("items") {
            Some("array")
        } else if out.contains_key("enum") {
            Some("string")
        } else {
            None
        };
        if let Some(inferred) = inferred {
            out.insert("type".to_owned(), Value::String(inferred.to_owned()));
        }
    }
    let kind = out
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let format_known = match (kind.as_str(), out.get("format").and_then(Value::as_str)) {
        (_, None) => true,
        ("string", Some(format)) => matches!(format, "enum" | "date-time"),
        ("integer", Some(format)) => matches!(format, "int32" | "int64"),
        ("number", Some(format)) => matches!(format, "float" | "double"),
        _ => false,
    };
    if !format_known {
        out.shift_remove("format");
    }
    if kind != "string" {
        out.shift_remove("pattern");
    }
    if let Some(Value::Array(required)) = out.shift_remove("required") {
        let properties = out.get("properties").and_then(Value::as_object);
        let required: Vec<Value> = required
            .into_iter()
            .filter(|name| {
                name.as_str()
                    .is_some_and(|name| properties.is_some_and(|found| found.contains_key(name)))
            })
            .collect();
        if !required.is_empty() {
            out.insert("required".to_owned(), Value::Array(required));
        }
    }
    if nullable {
        out.insert("nullable".to_owned(), Value::Bool(true));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    const MODEL: &str = "gemini-2.5-flash";

    fn message(value: Value) -> Message {
        pincer_session::pi_fixtures::pi_message(value)
    }

    fn user(text: &str) -> Message {
        message(json!({"role": "user", "content": text, "timestamp": 1}))
    }

    fn assistant(api: &str, model: &str, content: Value, stop_reason: &str) -> Message {
        message(json!({
            "role": "assistant", "content": content, "api": api, "provider": "p", "model": model,
            "usage": {}, "stopReason": stop_reason, "timestamp": 2
        }))
    }

    fn tool_result(id: &str, name: &str, text: &str, is_error: bool) -> Message {
        message(json!({
            "role": "toolResult", "toolCallId": id, "toolName": name,
            "content": [{"type": "text", "text": text}], "isError": is_error, "timestamp": 3
        }))
    }

    /// The request for `messages`, repaired as every request is before it is built.
    fn request(messages: Vec<Message>) -> ModelRequest<'static> {
        ModelRequest {
            cache_key: None,
            cache_writes: Some(crate::conversation::CacheTtl::default()),
            model: MODEL.to_owned(),
            system_prompt: String::new(),
            messages: crate::conversation::repair(&messages).into_owned().into(),
            tools: Vec::new(),
            thinking: ThinkingLevel::Off,
            thinking_budget: None,
            max_output_tokens: 8192,
            reasoning_model: true,
            output_format: None,
            web_search: None,
        }
    }

    fn contents(request: &ModelRequest) -> Value {
        build_request(request).json()["contents"].clone()
    }

    #[test]
    fn a_simple_turn_has_the_streaming_path_the_accept_header_and_no_key_anywhere() {
        let mut simple = request(vec![user("What is 5 times 3?")]);
        simple.system_prompt = "You are a helpful assistant.".to_owned();
        let built = build_request(&simple);
        assert_eq!(
            built.path,
            "/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
        );
        assert_eq!(
            built.headers,
            vec![("accept".to_owned(), "text/event-stream".to_owned())]
        );
        assert_eq!(
            built.json(),
            json!({
                "contents": [{"role": "user", "parts": [{"text": "What is 5 times 3?"}]}],
                "systemInstruction": {"parts": [{"text": "You are a helpful assistant."}]},
                "generationConfig": {"maxOutputTokens": 8192, "thinkingConfig": {"thinkingBudget": 0}}
            })
        );
        assert!(!built.path.contains("key="));
    }

    #[test]
    fn a_model_id_with_the_models_prefix_is_not_doubled_in_the_path() {
        let mut prefixed = request(vec![user("hi")]);
        prefixed.model = "models/gemini-2.5-pro".to_owned();
        assert_eq!(
            build_request(&prefixed).path,
            "/models/gemini-2.5-pro:streamGenerateContent?alt=sse"
        );
    }

    #[test]
    fn thinking_levels_map_to_budgets_and_off_only_disables_thinking_on_flash() {
        let config = |model: &str, thinking: ThinkingLevel, reasoning_model: bool| {
            let mut built = request(vec![user("hi")]);
            built.model = model.to_owned();
            built.thinking = thinking;
            built.reasoning_model = reasoning_model;
            build_request(&built).json()["generationConfig"]
                .get("thinkingConfig")
                .cloned()
        };
        assert_eq!(
            config("gemini-2.5-flash", ThinkingLevel::Off, true),
            Some(json!({"thinkingBudget": 0}))
        );
        assert_eq!(config("gemini-2.5-pro", ThinkingLevel::Off, true), None);
        let levels = [
            (ThinkingLevel::Minimal, 512),
            (ThinkingLevel::Low, 2048),
            (ThinkingLevel::Medium, 8192),
            (ThinkingLevel::High, 16384),
            (ThinkingLevel::Xhigh, 24576),
        ];
        for (level, budget) in levels {
            assert_eq!(
                config("gemini-2.5-pro", level, true),
                Some(json!({"includeThoughts": true, "thinkingBudget": budget})),
                "{level:?}"
            );
        }
        assert_eq!(config("gemini-2.0-flash", ThinkingLevel::High, false), None);
    }

    #[test]
    fn own_signatures_are_echoed_on_thoughts_text_and_calls_and_results_become_function_responses()
    {
        let history = request(vec![
            user("What is 5 times 3?"),
            assistant(
                API_NAME,
                MODEL,
                json!([
                    {"type": "thinking", "thinking": "Multiply.", "thinkingSignature": "th-sig"},
                    {"type": "thinking", "thinking": "unsigned musing"},
                    {"type": "text", "text": "Calling the tool.", "textSignature": "tx-sig"},
                    {"type": "toolCall", "id": "call_a_0", "name": "multiply",
                     "arguments": {"x": 5, "y": 3}, "thoughtSignature": "Et0BCtoB"},
                    {"type": "toolCall", "id": "call_a_1", "name": "log", "arguments": {}}
                ]),
                "toolUse",
            ),
            tool_result("call_a_0", "multiply", "15", false),
            tool_result("call_a_1", "log", "disk full", true),
        ]);
        assert_eq!(
            contents(&history),
            json!([
                {"role": "user", "parts": [{"text": "What is 5 times 3?"}]},
                {"role": "model", "parts": [
                    {"text": "Multiply.", "thought": true, "thoughtSignature": "th-sig"},
                    {"text": "Calling the tool.", "thoughtSignature": "tx-sig"},
                    {"functionCall": {"name": "multiply", "args": {"x": 5, "y": 3}}, "thoughtSignature": "Et0BCtoB"},
                    {"functionCall": {"name": "log", "args": {}}, "thoughtSignature": "skip_thought_signature_validator"}
                ]},
                {"role": "user", "parts": [
                    {"functionResponse": {"name": "multiply", "response": {"output": "15"}}},
                    {"functionResponse": {"name": "log", "response": {"error": "disk full"}}}
                ]}
            ])
        );
    }

    #[test]
    fn another_providers_signatures_are_never_sent_and_its_calls_get_the_sentinel() {
        let history = request(vec![
            user("list files"),
            assistant(
                "anthropic-messages",
                "claude-sonnet-4-5",
                json!([
                    {"type": "thinking", "thinking": "Use ls.", "thinkingSignature": "anthropic-sig"},
                    {"type": "text", "text": "Listing.", "textSignature": "msg_openai_item"},
                    {"type": "toolCall", "id": "toolu_1", "name": "ls", "arguments": {"path": "."}}
                ]),
                "toolUse",
            ),
            tool_result("toolu_1", "ls", "a.txt", false),
        ]);
        assert_eq!(
            contents(&history)[1],
            json!({"role": "model", "parts": [
                {"text": "Listing."},
                {"functionCall": {"name": "ls", "args": {"path": "."}}, "thoughtSignature": "skip_thought_signature_validator"}
            ]})
        );
    }

    #[test]
    fn turns_are_merged_start_with_user_and_every_call_is_answered_exactly_once() {
        let history = request(vec![
            assistant(
                API_NAME,
                MODEL,
                json!([{"type": "text", "text": "Earlier answer."}]),
                "stop",
            ),
            user("first"),
            user("second"),
            assistant(
                API_NAME,
                MODEL,
                json!([{"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "x"}, "thoughtSignature": "s"}]),
                "toolUse",
            ),
            // The run was interrupted before the result: the call still needs an answer. The
            // aborted answer after it is left out, and its result with it.
            user("are you there?"),
            assistant(
                API_NAME,
                MODEL,
                json!([{"type": "toolCall", "id": "c2", "name": "bash", "arguments": {"command": "make"}}]),
                "aborted",
            ),
            tool_result("c2", "bash", "interrupted", true),
        ]);
        assert_eq!(
            contents(&history),
            json!([
                {"role": "user", "parts": [{"text": "(continued)"}]},
                {"role": "model", "parts": [{"text": "Earlier answer."}]},
                {"role": "user", "parts": [{"text": "first"}, {"text": "second"}]},
                {"role": "model", "parts": [
                    {"functionCall": {"name": "read", "args": {"path": "x"}}, "thoughtSignature": "s"}
                ]},
                {"role": "user", "parts": [
                    {"functionResponse": {"name": "read", "response": {"error": crate::conversation::MISSING_RESULT}}},
                    {"text": "are you there?"}
                ]}
            ])
        );
    }

    #[test]
    fn images_travel_as_inline_data_in_user_turns_and_after_function_responses() {
        let history = request(vec![
            message(json!({"role": "user", "timestamp": 1, "content": [
                {"type": "text", "text": "What is this?"},
                {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
                {"type": "text", "text": ""}
            ]})),
            assistant(
                API_NAME,
                MODEL,
                json!([{"type": "toolCall", "id": "c1", "name": "screenshot", "arguments": {}}]),
                "toolUse",
            ),
            message(
                json!({"role": "toolResult", "toolCallId": "c1", "toolName": "screenshot",
                "content": [{"type": "text", "text": "captured"}, {"type": "image", "data": "R0lGOD", "mimeType": "image/gif"}],
                "isError": false, "timestamp": 3}),
            ),
        ]);
        let built = contents(&history);
        assert_eq!(
            built[0]["parts"],
            json!([
                {"text": "What is this?"},
                {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}
            ])
        );
        assert_eq!(
            built[2]["parts"],
            json!([
                {"functionResponse": {"name": "screenshot", "response": {"output": "captured"}}},
                {"inlineData": {"mimeType": "image/gif", "data": "R0lGOD"}}
            ])
        );
    }

    #[test]
    fn web_search_adds_google_search_after_the_functions_and_no_grounding_goes_back() {
        let mut searching = request(vec![user("news?")]);
        searching.web_search = Some(crate::web_search::WebSearch::default());
        let body = build_request(&searching).json();
        assert_eq!(body["tools"], json!([{"google_search": {}}]));
        searching.tools = vec![ToolDefinition {
            name: "ls".to_owned(),
            description: "List.".to_owned(),
            parameters: json!({"type": "object", "properties": {}}),
        }];
        let body = build_request(&searching).json();
        assert_eq!(body["tools"][0]["functionDeclarations"][0]["name"], "ls");
        assert_eq!(body["tools"][1], json!({"google_search": {}}));
    }

    #[test]
    fn tools_are_declared_with_cleaned_schemas_and_a_tool_without_arguments_has_no_parameters() {
        let mut with_tools = request(vec![user("hi")]);
        with_tools.tools = vec![
            ToolDefinition {
                name: "read".to_owned(),
                description: "Read a file.".to_owned(),
                parameters: json!({
                    "$schema": "http://json-schema.org/draft-07/schema#",
                    "type": "object",
                    "properties": {"path": {"type": "string", "description": "File path."}},
                    "required": ["path"],
                    "additionalProperties": false
                }),
            },
            ToolDefinition {
                name: "now".to_owned(),
                description: "The time.".to_owned(),
                parameters: json!({"type": "object", "properties": {}}),
            },
        ];
        assert_eq!(
            build_request(&with_tools).json()["tools"],
            json!([{"functionDeclarations": [
                {"name": "read", "description": "Read a file.", "parameters": {
                    "type": "object",
                    "properties": {"path": {"type": "string", "description": "File path."}},
                    "required": ["path"]
                }},
                {"name": "now", "description": "The time."}
            ]}])
        );
        assert_eq!(
            build_request(&request(vec![user("hi")]))
                .json()
                .get("tools"),
            None
        );
    }

    #[test]
    fn clean_schema_drops_keywords_gemini_rejects() {
        let cleaned = clean_schema(json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "urn:tool",
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "count": {"type": "integer", "default": 3, "examples": [1, 2], "exclusiveMinimum": 0,
                          "multipleOf": 1, "pattern": "^[0-9]+$", "format": "int64", "minimum": 1},
                "name": {"type": "string", "pattern": "^[a-z]+$", "format": "email", "maxLength": 20},
                "when": {"type": "string", "format": "date-time"},
                "ratio": {"type": "number", "format": "percent"},
                "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true, "minItems": 1}
            },
            "required": ["count", "ghost"]
        }));
        assert_eq!(
            cleaned,
            json!({
                "type": "object",
                "properties": {
                    "count": {"type": "integer", "format": "int64", "minimum": 1},
                    "name": {"type": "string", "pattern": "^[a-z]+$", "maxLength": 20},
                    "when": {"type": "string", "format": "date-time"},
                    "ratio": {"type": "number"},
                    "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1}
                },
                "required": ["count"]
            })
        );
    }

    #[test]
    fn clean_schema_turns_null_unions_into_nullable_and_const_into_enum() {
        let cleaned = clean_schema(json!({
            "type": "object",
            "properties": {
                "maybe": {"anyOf": [{"type": "string", "description": "inner"}, {"type": "null"}],
                          "description": "outer", "default": null},
                "either": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
                "typed": {"type": ["integer", "null"]},
                "several": {"type": ["string", "number"]},
                "mode": {"const": "fast"},
                "level": {"enum": ["low", "high", null]},
                "digits": {"type": "integer", "enum": [1, 2, 3], "description": "How many."},
                "anything": true
            }
        }));
        assert_eq!(
            cleaned["properties"],
            json!({
                "maybe": {"description": "outer", "type": "string", "nullable": true},
                "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
                "typed": {"type": "integer", "nullable": true},
                "several": {"anyOf": [{"type": "string"}, {"type": "number"}]},
                "mode": {"enum": ["fast"], "type": "string"},
                "level": {"enum": ["low", "high"], "type": "string", "nullable": true},
                "digits": {"type": "integer", "description": "How many. Allowed values: 1, 2, 3."},
                "anything": {}
            })
        );
    }

    #[test]
    fn clean_schema_inlines_references_merges_all_of_and_cuts_recursion() {
        let cleaned = clean_schema(json!({
            "$defs": {
                "Point": {"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
                          "required": ["x", "y"], "additionalProperties": false},
                "Node": {"type": "object", "properties": {"label": {"type": "string"},
                         "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}
            },
            "definitions": {"Named": {"properties": {"name": {"type": "string"}}, "required": ["name"]}},
            "type": "object",
            "properties": {
                "origin": {"$ref": "#/$defs/Point", "description": "Where to start."},
                "tree": {"$ref": "#/$defs/Node"},
                "owner": {"allOf": [{"$ref": "#/definitions/Named"}, {"properties": {"age": {"type": "integer"}}}]},
                "remote": {"$ref": "https://example.com/schema.json"}
            }
        }));
        assert_eq!(
            cleaned,
            json!({
                "type": "object",
                "properties": {
                    "origin": {"description": "Where to start.", "type": "object",
                               "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
                               "required": ["x", "y"]},
                    "tree": {"type": "object", "properties": {
                        "label": {"type": "string"},
                        "children": {"type": "array", "items": {"type": "object"}}
                    }},
                    "owner": {"properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
                              "required": ["name"], "type": "object"},
                    "remote": {"type": "object"}
                }
            })
        );
    }

    #[test]
    fn clean_schema_keeps_the_first_schema_of_a_tuple_and_drops_empty_properties() {
        let cleaned = clean_schema(json!({
            "type": "object",
            "properties": {
                "pair": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}]},
                "options": {"type": "object", "properties": {}, "additionalProperties": {"type": "string"}}
            }
        }));
        assert_eq!(
            cleaned["properties"],
            json!({
                "pair": {"type": "array", "items": {"type": "string"}},
                "options": {"type": "object"}
            })
        );
    }

    #[test]
    fn a_json_schema_sets_the_json_mime_type_and_response_json_schema() {
        let mut built = request(vec![user("Is it ok?")]);
        built.output_format = Some(crate::test_support::output_format());
        let config = &build_request(&built).json()["generationConfig"];
        assert_eq!(config["responseMimeType"], "application/json");
        assert_eq!(
            config["responseJsonSchema"],
            json!({"type": "object", "properties": {"ok": {"type": "boolean"}},
                "required": ["ok"], "additionalProperties": false})
        );
    }
}
