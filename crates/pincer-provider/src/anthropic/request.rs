//! Builds the `POST /v1/messages` request from a [`ModelRequest`]. Pure.
//!
//! The session holds pi's messages; the Messages API is stricter than the session format, so the
//! transcript is repaired on the way out (SPEC §4.1, reference §1.2) rather than sent invalid:
//! - consecutive turns of one role are merged (a tool result is user content, so a run of tool
//!   results and a following prompt become one user turn, results first);
//! - every `tool_use` gets its `tool_result` in the very next user turn: the conversation
//!   arrives repaired (`conversation::repair` answers every call and drops orphan results), and
//!   merging keeps each result right after its call;
//! - the conversation starts with a user turn;
//! - Anthropic's refusal test string is redacted from outgoing text, so a transcript that quotes
//!   it cannot make every later request refuse.
//!
//! Replayed reasoning: a thinking block is sent back unchanged with its signature only when an
//! Anthropic Messages response produced it (`api == "anthropic-messages"`); reasoning without a
//! signature (another provider's, or an aborted stream's) is dropped, because its text is not
//! something the assistant said and the API rejects unsigned thinking blocks.
//!
//! Web search (`request.web_search`): the `web_search` server tool goes after the client tools.
//! The searches an earlier Anthropic answer ran (`server_tool_use` and its
//! `web_search_tool_result`) and its text's citations are sent back as they came — the API
//! needs them to continue a `pause_turn` and to go on after a client tool call in the same
//! answer — but only while the search tool is offered; otherwise the answer's text alone is sent.
//!
//! Prompt caching: breakpoints on the system prompt, the last tool, and the last block of the last
//! two user turns (4, the API's maximum). The newest breakpoint writes the cache for the next
//! call; the one before it reads what the previous call wrote, so repeated cron turns on one
//! session hit the cache. After a compaction the summary leads the messages and nothing moves
//! it, so the same holds from the first request after the cut (`tests/suite/prompt_cache.rs`).
//! Each breakpoint asks for the configured lifetime (`[cache] ttl`); a one-off request (the
//! compaction summary) carries none, since what it would write is never read.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::wire::{
    CacheControl, ContentBlockParam, ImageSource, MessageParam, MessagesRequest, OutputConfig,
    OutputFormatParam, Role, ServerTool, SystemBlock, ThinkingParam, ToolEntry, ToolParam,
    ToolResultBlock,
};
use crate::conversation::{
    AssistantBlock, AssistantMessage, ContentBlock, ImageBlock, Message, MessageContent,
    ServerToolCall, ToolResultMessage,
};
use crate::{HttpRequest, ModelRequest, ThinkingLevel};

/// The API version pincer speaks (docs: "Versions").
pub const API_VERSION: &str = "2023-06-01";

/// The `api` name of messages produced by this protocol; only their signatures are replayed.
const API_NAME: &str = "anthropic-messages";

/// Anthropic's documented test string that makes the model refuse (docs: "Handling stop
/// reasons", `refusal`). Sent back in a transcript, it would make every later call refuse.
pub const REFUSAL_TEST_STRING: &str = "ANTHROPIC_MAGIC_STRING_TRIGGER_REFUSAL_1FAEFB6177B4672DEE07F9D3AFC62588CCD2631EDCF22E8CCC1FB35B501C9C86";

/// The user turn put before a history that begins with the assistant (after a compaction that
/// cut the first prompt, say): the API requires the first turn to be the user's.
pub const HISTORY_START_TEXT: &str = "(earlier conversation omitted)";

/// Longest tool call id the API accepts (`^[a-zA-Z0-9_-]+$`, at most 64 characters in practice).
const TOOL_ID_LIMIT: usize = 64;

/// Build the HTTP request for `request`.
pub fn build_request(request: &ModelRequest) -> HttpRequest {
    // An exact budget (`--max-thinking-tokens`) replaces the level's, kept at the API's minimum.
    let budget = match request.thinking_budget {
        Some(tokens) if request.thinking != ThinkingLevel::Off => Some(tokens.max(MIN_BUDGET)),
        _ => thinking_budget(request.thinking),
    };
    let breakpoint = request.cache_writes.map(CacheControl::lasting);
    let system = (!request.system_prompt.is_empty()).then(|| {
        vec![SystemBlock::Text {
            text: redact(&request.system_prompt),
            cache_control: breakpoint,
        }]
    });
    let mut tools: Vec<ToolParam> = request
        .tools
        .iter()
        .map(|tool| ToolParam {
            name: &tool.name,
            description: &tool.description,
            input_schema: &tool.parameters,
            cache_control: None,
        })
        .collect();
    if let Some(last) = tools.last_mut() {
        last.cache_control = breakpoint;
    }
    let mut tools: Vec<ToolEntry> = tools.into_iter().map(ToolEntry::Client).collect();
    if let Some(search) = request.web_search {
        tools.push(ToolEntry::Server(ServerTool::WebSearch {
            name: "web_search",
            max_uses: Some(search.max_uses),
        }));
    }
    let messages = Conversation::new(&request.messages, request.web_search.is_some(), breakpoint);
    let body = MessagesRequest {
        model: &request.model,
        // Thinking tokens count against max_tokens, and the budget must stay below it: the
        // budget comes on top of the visible output the caller asked for.
        max_tokens: request.max_output_tokens + budget.unwrap_or(0),
        stream: true,
        system,
        messages,
        tools,
        thinking: budget.map(|budget_tokens| ThinkingParam::Enabled { budget_tokens }),
        output_config: request.output_format.as_ref().map(|format| OutputConfig {
            format: OutputFormatParam::JsonSchema {
                schema: format.schema.clone(),
            },
        }),
    };
    HttpRequest {
        path: "/v1/messages".to_owned(),
        headers: vec![
            ("anthropic-version".to_owned(), API_VERSION.to_owned()),
            ("accept".to_owned(), "text/event-stream".to_owned()),
        ],
        body: crate::json_body(&body, &request.messages),
    }
}

/// The smallest `budget_tokens` the API accepts.
const MIN_BUDGET: u64 = 1024;

/// The reasoning levels that think, with their `budget_tokens`.
const LEVEL_BUDGETS: [(ThinkingLevel, u64); 5] = [
    (ThinkingLevel::Minimal, MIN_BUDGET),
    (ThinkingLevel::Low, 2048),
    (ThinkingLevel::Medium, 8192),
    (ThinkingLevel::High, 16384),
    (ThinkingLevel::Xhigh, 32000),
];

/// `budget_tokens` for a reasoning level; `None` sends no `thinking` field (the API's default is
/// no thinking).
pub fn thinking_budget(level: ThinkingLevel) -> Option<u64> {
    LEVEL_BUDGETS
        .iter()
        .find(|(candidate, _)| *candidate == level)
        .map(|(_, budget)| *budget)
}

/// The level whose budget is nearest to `tokens` (by ratio: 3000 is nearer 2048 than 8192), for
/// providers that take a level rather than a budget; 0 is off.
pub fn level_for_budget(tokens: u64) -> ThinkingLevel {
    if tokens == 0 {
        return ThinkingLevel::Off;
    }
    let distance = |budget: u64| (tokens as f64 / budget as f64).ln().abs();
    LEVEL_BUDGETS
        .iter()
        .min_by(|(_, left), (_, right)| distance(*left).total_cmp(&distance(*right)))
        .map_or(ThinkingLevel::Xhigh, |(level, _)| *level)
}

/// The session's messages as a valid Messages API conversation: consecutive turns of one role
/// merged (in a user turn, tool results first), a user turn first, and cache breakpoints on the
/// last block of each of the last two user turns. It is serialized turn by turn: each turn's
/// blocks are made when the body is written and dropped right after, so a long conversation is
/// not copied into a second structure before it becomes the body. With `searching`, earlier
/// searches and citations are sent back.
pub(super) struct Conversation<'a> {
    messages: &'a [Message],
    searching: bool,
    /// The `cache_control` the marked turns carry; `None` marks none.
    breakpoint: Option<CacheControl>,
    /// The API turns: each one's role and the messages it is made of (those among them with
    /// nothing to send contribute nothing), and whether it carries a cache breakpoint.
    turns: Vec<(Role, std::ops::Range<usize>, bool)>,
}

impl<'a> Conversation<'a> {
    pub(super) fn new(
        messages: &'a [Message],
        searching: bool,
        breakpoint: Option<CacheControl>,
    ) -> Conversation<'a> {
        let mut turns: Vec<(Role, std::ops::Range<usize>, bool)> = Vec::new();
        for (index, message) in messages.iter().enumerate() {
            let Some(role) = role_of(message, searching) else {
                continue;
            };
            match turns.last_mut() {
                Some((last, range, _)) if *last == role => range.end = index + 1,
                _ => turns.push((role, index..index + 1, false)),
            }
        }
        for (_, _, marked) in turns
            .iter_mut()
            .rev()
            .filter(|(role, _, _)| *role == Role::User)
            .take(2)
        {
            *marked = true;
        }
        Conversation {
            messages,
            searching,
            breakpoint,
            turns,
        }
    }

    /// One API turn, made now.
    fn turn(&self, role: Role, range: std::ops::Range<usize>, marked: bool) -> MessageParam<'a> {
        let mut content: Vec<ContentBlockParam<'a>> = self.messages[range]
            .iter()
            .filter_map(|message| turn_of(message, self.searching))
            .flat_map(|turn| turn.content)
            .collect();
        if role == Role::User {
            // A stable sort: results keep their order, and so does the rest.
            content.sort_by_key(|block| !matches!(block, ContentBlockParam::ToolResult { .. }));
        }
        if marked
            && let Some(slot) = content
                .last_mut()
                .and_then(ContentBlockParam::cache_control_mut)
        {
            *slot = self.breakpoint;
        }
        MessageParam { role, content }
    }
}

impl serde::Serialize for Conversation<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq as _;
        let history_start = self
            .turns
            .first()
            .is_some_and(|(role, _, _)| *role == Role::Assistant);
        let mut sequence =
            serializer.serialize_seq(Some(self.turns.len() + usize::from(history_start)))?;
        if history_start {
            // A user turn too: it gets a breakpoint when fewer than two others do.
            let users = self
                .turns
                .iter()
                .filter(|(role, _, _)| *role == Role::User)
                .count();
            let mut text = text_block(Cow::Borrowed(HISTORY_START_TEXT));
            if users < 2
                && let Some(slot) = text.cache_control_mut()
            {
                *slot = self.breakpoint;
            }
            sequence.serialize_element(&MessageParam {
                role: Role::User,
                content: vec![text],
            })?;
        }
        for (role, range, marked) in &self.turns {
            sequence.serialize_element(&self.turn(*role, range.clone(), *marked))?;
        }
        sequence.end()
    }
}

/// The role of [`turn_of`]'s turn, found without making its blocks.
fn role_of(message: &Message, searching: bool) -> Option<Role> {
    let worth = |text: &str| !text.trim().is_empty();
    let user_content = |blocks: &[ContentBlock]| {
        blocks.iter().any(|block| match block {
            ContentBlock::Text(text) => worth(&text.text),
            ContentBlock::Image(_) => true,
        })
    };
    match message {
        Message::User(user) => match &user.content {
            MessageContent::Text(text) => worth(text),
            MessageContent::Blocks(blocks) => user_content(blocks),
        }
        .then_some(Role::User),
        Message::Assistant(assistant) => {
            let replay_signatures = assistant.api == API_NAME;
            let replay_searches = replay_signatures && searching;
            assistant
                .content
                .iter()
                .any(|block| match block {
                    AssistantBlock::Text(text) => worth(&text.text),
                    AssistantBlock::Thinking(thinking) => {
                        replay_signatures
                            && thinking
                                .signature
                                .as_ref()
                                .is_some_and(|signature| !signature.is_empty())
                    }
                    AssistantBlock::ToolCall(_) => true,
                    AssistantBlock::ServerTool(_) => replay_searches,
                })
                .then_some(Role::Assistant)
        }
        Message::ToolResult(_) => Some(Role::User),
    }
}

/// One session message as one API turn; `None` when nothing of it can be sent.
fn turn_of(message: &Message, searching: bool) -> Option<MessageParam<'_>> {
    let (role, content) = match message {
        Message::User(user) => (Role::User, user_blocks(&user.content)),
        Message::Assistant(assistant) => (Role::Assistant, assistant_blocks(assistant, searching)),
        Message::ToolResult(result) => (Role::User, vec![tool_result_block(result)]),
    };
    (!content.is_empty()).then_some(MessageParam { role, content })
}

fn user_blocks(content: &MessageContent) -> Vec<ContentBlockParam<'_>> {
    match content {
        MessageContent::Text(text) => non_blank(text).map(text_block).into_iter().collect(),
        MessageContent::Blocks(blocks) => blocks
            .iter()
            .filter_map(|block| match block {
                ContentBlock::Text(text) => non_blank(&text.text).map(text_block),
                ContentBlock::Image(image) => Some(ContentBlockParam::Image {
                    source: image_source(image),
                    cache_control: None,
                }),
            })
            .collect(),
    }
}

fn assistant_blocks(message: &AssistantMessage, searching: bool) -> Vec<ContentBlockParam<'_>> {
    let replay_signatures = message.api == API_NAME;
    // Another provider's searches and citations mean nothing to this API.
    let replay_searches = replay_signatures && searching;
    message
        .content
        .iter()
        .flat_map(|block| match block {
            AssistantBlock::ServerTool(server) if replay_searches => server_tool_blocks(server),
            AssistantBlock::ServerTool(_) => Vec::new(),
            other => assistant_block(other, replay_signatures, replay_searches)
                .into_iter()
                .collect(),
        })
        .collect()
}

/// An earlier search as the two blocks it came as; the result only when it arrived.
fn server_tool_blocks(server: &ServerToolCall) -> Vec<ContentBlockParam<'_>> {
    let mut blocks = vec![ContentBlockParam::ServerToolUse {
        id: tool_id(&server.id),
        name: Cow::Borrowed(&server.name),
        input: match &server.input {
            Value::Object(_) => Cow::Borrowed(&server.input),
            _ => Cow::Owned(Value::Object(Map::new())),
        },
    }];
    if let Some(content) = &server.payload {
        blocks.push(ContentBlockParam::WebSearchToolResult {
            tool_use_id: tool_id(&server.id),
            content,
        });
    }
    blocks
}

fn assistant_block(
    block: &AssistantBlock,
    replay_signatures: bool,
    replay_citations: bool,
) -> Option<ContentBlockParam<'_>> {
    match block {
        AssistantBlock::Text(text) => non_blank(&text.text).map(|redacted| {
            let citations = if replay_citations {
                text.citations
                    .iter()
                    .filter_map(|citation| citation.payload.as_ref())
                    .collect()
            } else {
                Vec::new()
            };
            ContentBlockParam::Text {
                text: redacted,
                citations,
                cache_control: None,
            }
        }),
        AssistantBlock::Thinking(thinking) => {
            let signature = thinking
                .signature
                .as_ref()
                .filter(|signature| replay_signatures && !signature.is_empty())?;
            Some(if thinking.redacted {
                ContentBlockParam::RedactedThinking {
                    data: Cow::Borrowed(signature),
                }
            } else {
                ContentBlockParam::Thinking {
                    thinking: Cow::Borrowed(&thinking.thinking),
                    signature: Cow::Borrowed(signature),
                }
            })
        }
        AssistantBlock::ToolCall(call) => Some(ContentBlockParam::ToolUse {
            id: tool_id(&call.id),
            name: Cow::Borrowed(&call.name),
            input: match &call.arguments {
                Value::Object(_) => Cow::Borrowed(&call.arguments),
                _ => Cow::Owned(Value::Object(Map::new())),
            },
            cache_control: None,
        }),
        AssistantBlock::ServerTool(_) => None,
    }
}

fn tool_result_block(result: &ToolResultMessage) -> ContentBlockParam<'_> {
    let content = result
        .content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Text(text) => {
                non_blank(&text.text).map(|text| ToolResultBlock::Text { text })
            }
            ContentBlock::Image(image) => Some(ToolResultBlock::Image {
                source: image_source(image),
            }),
        })
        .collect();
    ContentBlockParam::ToolResult {
        tool_use_id: tool_id(&result.tool_call_id),
        content,
        is_error: result.is_error,
        cache_control: None,
    }
}

/// Text worth sending (the API rejects empty and whitespace-only text blocks), redacted.
fn non_blank(text: &str) -> Option<Cow<'_, str>> {
    (!text.trim().is_empty()).then(|| redact(text))
}

fn text_block(text: Cow<'_, str>) -> ContentBlockParam<'_> {
    ContentBlockParam::Text {
        text,
        citations: Vec::new(),
        cache_control: None,
    }
}

fn image_source(image: &ImageBlock) -> ImageSource<'_> {
    ImageSource::Base64 {
        media_type: Cow::Borrowed(&image.mime_type),
        data: Cow::Borrowed(&image.data),
    }
}

fn redact(text: &str) -> Cow<'_, str> {
    static REFUSAL: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(REFUSAL_TEST_STRING));
    if REFUSAL.find(text.as_bytes()).is_some() {
        Cow::Owned(text.replace(REFUSAL_TEST_STRING, "[redacted]"))
    } else {
        Cow::Borrowed(text)
    }
}

/// A call id the API accepts. Other providers' ids (`call_…|fc_…`) may hold other characters;
/// the same mapping is applied to calls and results, so pairs stay pairs.
fn tool_id(id: &str) -> Cow<'_, str> {
    let valid =
        |character: char| character.is_ascii_alphanumeric() || character == '_' || character == '-';
    if !id.is_empty() && id.len() <= TOOL_ID_LIMIT && id.chars().all(valid) {
        return Cow::Borrowed(id);
    }
    let cleaned: String = id
        .chars()
        .map(|character| {
            if character.is_ascii_alphanumeric() || character == '_' || character == '-' {
                character
            } else {
                '_'
            }
        })
        .take(TOOL_ID_LIMIT)
        .collect();
    if cleaned.is_empty() {
        Cow::Borrowed("toolu_unnamed")
    } else {
        Cow::Owned(cleaned)
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;
    use crate::conversation::{
        Cost, MISSING_RESULT, StopReason, TextBlock, ThinkingBlock, TokenUsage, ToolCall,
        ToolDefinition, UserMessage,
    };

    /// The request for `messages`, repaired as every request is before it is built.
    fn request(messages: Vec<Message>) -> ModelRequest<'static> {
        ModelRequest {
            cache_key: None,
            cache_writes: Some(crate::conversation::CacheTtl::default()),
            model: "claude-sonnet-4-5".into(),
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

    fn user(text: &str) -> Message {
        Message::User(UserMessage {
            content: MessageContent::Text(text.into()),
            timestamp: 0,
        })
    }

    fn user_blocks(blocks: Vec<ContentBlock>) -> Message {
        Message::User(UserMessage {
            content: MessageContent::Blocks(blocks),
            timestamp: 0,
        })
    }

    fn text(text: &str) -> TextBlock {
        TextBlock::new(text)
    }

    fn image(data: &str) -> ImageBlock {
        ImageBlock {
            data: data.into(),
            mime_type: "image/png".into(),
        }
    }

    fn assistant_from(api: &str, content: Vec<AssistantBlock>) -> Message {
        Message::Assistant(AssistantMessage {
            content,
            api: api.into(),
            provider: "anthropic".into(),
            model: "claude-sonnet-4-5".into(),
            usage: TokenUsage::default(),
            cost: Cost::default(),
            stop_reason: StopReason::ToolUse,
            timestamp: 0,
            error_message: None,
        })
    }

    fn assistant(content: Vec<AssistantBlock>) -> Message {
        assistant_from(API_NAME, content)
    }

    #[test]
    fn a_turns_role_is_known_without_making_its_blocks() {
        let thinking = |signature: Option<&str>| {
            AssistantBlock::Thinking(ThinkingBlock {
                thinking: "hm".into(),
                signature: signature.map(str::to_owned),
                redacted: false,
            })
        };
        let call = AssistantBlock::ToolCall(ToolCall {
            id: "toolu_1".into(),
            name: "read".into(),
            arguments: json!({}),
            thought_signature: None,
        });
        let messages = [
            user("hi"),
            user("  \n"),
            user_blocks(vec![]),
            user_blocks(vec![ContentBlock::Text(text(" "))]),
            user_blocks(vec![ContentBlock::Image(image("aGk="))]),
            assistant(vec![]),
            assistant(vec![AssistantBlock::Text(text(" "))]),
            assistant(vec![AssistantBlock::Text(text("answer"))]),
            assistant(vec![thinking(None)]),
            assistant(vec![thinking(Some(""))]),
            assistant(vec![thinking(Some("sig"))]),
            assistant_from("openai-responses", vec![thinking(Some("sig"))]),
            assistant(vec![call]),
            Message::ToolResult(crate::conversation::ToolResultMessage {
                tool_call_id: "toolu_1".into(),
                tool_name: "read".into(),
                content: vec![],
                details: None,
                is_error: false,
                timestamp: 0,
            }),
        ];
        for message in &messages {
            assert_eq!(
                role_of(message, false),
                turn_of(message, false).map(|turn| turn.role),
                "{message:?}"
            );
        }
    }

    fn said(words: &str) -> AssistantBlock {
        AssistantBlock::Text(text(words))
    }

    fn thought(thinking: &str, signature: Option<&str>) -> AssistantBlock {
        AssistantBlock::Thinking(ThinkingBlock {
            thinking: thinking.into(),
            signature: signature.map(str::to_owned),
            redacted: false,
        })
    }

    fn call(id: &str, name: &str, arguments: Value) -> AssistantBlock {
        AssistantBlock::ToolCall(ToolCall {
            id: id.into(),
            name: name.into(),
            arguments,
            thought_signature: None,
        })
    }

    fn result(id: &str, blocks: Vec<ContentBlock>, is_error: bool) -> Message {
        Message::ToolResult(ToolResultMessage {
            tool_call_id: id.into(),
            tool_name: "read".into(),
            content: blocks,
            details: None,
            is_error,
            timestamp: 0,
        })
    }

    fn ok(id: &str, output: &str) -> Message {
        result(id, vec![ContentBlock::Text(text(output))], false)
    }

    fn messages_of(request: &ModelRequest) -> Value {
        build_request(request).json()["messages"].clone()
    }

    const EPHEMERAL: &str = "ephemeral";

    #[test]
    fn a_plain_turn_has_the_exact_body_path_and_headers() {
        let mut plain = request(vec![user("What is 2+2?")]);
        plain.system_prompt = "You are terse.".into();
        let built = build_request(&plain);
        assert_eq!(built.path, "/v1/messages");
        assert_eq!(
            built.headers,
            vec![
                ("anthropic-version".to_owned(), "2023-06-01".to_owned()),
                ("accept".to_owned(), "text/event-stream".to_owned()),
            ]
        );
        assert_eq!(
            built.json(),
            json!({
                "model": "claude-sonnet-4-5",
                "max_tokens": 8192,
                "stream": true,
                "system": [{"type": "text", "text": "You are terse.", "cache_control": {"type": EPHEMERAL}}],
                "messages": [
                    {"role": "user", "content": [
                        {"type": "text", "text": "What is 2+2?", "cache_control": {"type": EPHEMERAL}}
                    ]}
                ]
            })
        );
        // Field order as the SDKs send it (serde_json keeps insertion order here).
        let json = built.json();
        let keys: Vec<&str> = json
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            ["model", "max_tokens", "stream", "system", "messages"]
        );
    }

    #[test]
    fn an_empty_system_prompt_sends_no_system_field() {
        let built = build_request(&request(vec![user("hi")]));
        assert_eq!(built.json().get("system"), None);
        assert_eq!(built.json().get("tools"), None);
        assert_eq!(built.json().get("thinking"), None);
    }

    #[test]
    fn a_tool_loop_with_thinking_echoes_the_signed_thinking_and_pairs_the_result() {
        let mut looped = request(vec![
            user("Read a.txt"),
            assistant(vec![
                thought("The user wants the file.", Some("EoQDCm0IBhgCKkBsig==")),
                said("Reading it."),
                call(
                    "toolu_01825dXWLSoJwCst1qTsiWdb",
                    "read",
                    json!({"path": "a.txt"}),
                ),
            ]),
            ok("toolu_01825dXWLSoJwCst1qTsiWdb", "hello"),
        ]);
        looped.thinking = ThinkingLevel::Low;
        looped.tools = vec![ToolDefinition {
            name: "read".into(),
            description: "Read a file".into(),
            parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
        }];
        assert_eq!(
            build_request(&looped).json(),
            json!({
                "model": "claude-sonnet-4-5",
                "max_tokens": 8192 + 2048,
                "stream": true,
                "messages": [
                    {"role": "user", "content": [
                        {"type": "text", "text": "Read a.txt", "cache_control": {"type": EPHEMERAL}}
                    ]},
                    {"role": "assistant", "content": [
                        {"type": "thinking", "thinking": "The user wants the file.", "signature": "EoQDCm0IBhgCKkBsig=="},
                        {"type": "text", "text": "Reading it."},
                        {"type": "tool_use", "id": "toolu_01825dXWLSoJwCst1qTsiWdb", "name": "read", "input": {"path": "a.txt"}}
                    ]},
                    {"role": "user", "content": [
                        {"type": "tool_result", "tool_use_id": "toolu_01825dXWLSoJwCst1qTsiWdb",
                         "content": [{"type": "text", "text": "hello"}],
                         "cache_control": {"type": EPHEMERAL}}
                    ]}
                ],
                "tools": [{
                    "name": "read",
                    "description": "Read a file",
                    "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}},
                    "cache_control": {"type": EPHEMERAL}
                }],
                "thinking": {"type": "enabled", "budget_tokens": 2048}
            })
        );
    }

    #[test]
    fn redacted_thinking_is_replayed_as_data_and_unsigned_or_foreign_thinking_is_dropped() {
        let redacted = AssistantBlock::Thinking(ThinkingBlock {
            thinking: String::new(),
            signature: Some("EmwKAhgBEgy3va3pzix/LafPsn4a".into()),
            redacted: true,
        });
        let messages = messages_of(&request(vec![
            user("one"),
            assistant(vec![
                redacted,
                thought("unsigned, from an aborted stream", None),
                said("A"),
            ]),
            user("two"),
            assistant_from(
                "openai-responses",
                vec![
                    thought("summary", Some("{\"encrypted_content\":\"gAAA\"}")),
                    said("B"),
                ],
            ),
            user("three"),
        ]));
        assert_eq!(
            messages[1]["content"],
            json!([
                {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4a"},
                {"type": "text", "text": "A"}
            ])
        );
        assert_eq!(
            messages[3]["content"],
            json!([{"type": "text", "text": "B"}])
        );
    }

    #[test]
    fn images_in_prompts_and_tool_results_are_base64_sources() {
        let messages = messages_of(&request(vec![
            user_blocks(vec![
                ContentBlock::Text(text("What is this?")),
                ContentBlock::Image(image("iVBORw0KGgo=")),
            ]),
            assistant(vec![call("toolu_01A", "screenshot", json!({}))]),
            result(
                "toolu_01A",
                vec![
                    ContentBlock::Text(text("captured")),
                    ContentBlock::Image(image("R0lGODlh")),
                ],
                false,
            ),
        ]));
        assert_eq!(
            messages,
            json!([
                {"role": "user", "content": [
                    {"type": "text", "text": "What is this?"},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="},
                     "cache_control": {"type": EPHEMERAL}}
                ]},
                {"role": "assistant", "content": [
                    {"type": "tool_use", "id": "toolu_01A", "name": "screenshot", "input": {}}
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_01A", "content": [
                        {"type": "text", "text": "captured"},
                        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "R0lGODlh"}}
                    ], "cache_control": {"type": EPHEMERAL}}
                ]}
            ])
        );
    }

    #[test]
    fn consecutive_results_and_a_following_prompt_merge_into_one_user_turn_results_first() {
        let messages = messages_of(&request(vec![
            user("list both"),
            assistant(vec![
                call("toolu_01A", "ls", json!({"path": "a"})),
                call("toolu_01B", "ls", json!("not an object")),
            ]),
            ok("toolu_01B", "b.txt"),
            result("toolu_01A", vec![ContentBlock::Text(text("denied"))], true),
            user("and now?"),
        ]));
        assert_eq!(
            messages,
            json!([
                {"role": "user", "content": [
                    {"type": "text", "text": "list both", "cache_control": {"type": EPHEMERAL}}
                ]},
                {"role": "assistant", "content": [
                    {"type": "tool_use", "id": "toolu_01A", "name": "ls", "input": {"path": "a"}},
                    {"type": "tool_use", "id": "toolu_01B", "name": "ls", "input": {}}
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_01A", "content": [{"type": "text", "text": "denied"}], "is_error": true},
                    {"type": "tool_result", "tool_use_id": "toolu_01B", "content": [{"type": "text", "text": "b.txt"}]},
                    {"type": "text", "text": "and now?", "cache_control": {"type": EPHEMERAL}}
                ]}
            ])
        );
    }

    #[test]
    fn an_unanswered_call_gets_a_synthesized_error_result_and_an_orphan_result_is_dropped() {
        let messages = messages_of(&request(vec![
            user("go"),
            assistant(vec![call("toolu_01A", "exec", json!({"command": "make"}))]),
            // The turn was interrupted before the result was written; the user came back.
            user("what happened?"),
            assistant(vec![said("Nothing ran.")]),
            ok("toolu_01Stray", "from nowhere"),
            user("ok"),
        ]));
        assert_eq!(
            messages,
            json!([
                {"role": "user", "content": [{"type": "text", "text": "go"}]},
                {"role": "assistant", "content": [
                    {"type": "tool_use", "id": "toolu_01A", "name": "exec", "input": {"command": "make"}}
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_01A", "content": [{"type": "text", "text": MISSING_RESULT}], "is_error": true},
                    {"type": "text", "text": "what happened?", "cache_control": {"type": EPHEMERAL}}
                ]},
                {"role": "assistant", "content": [{"type": "text", "text": "Nothing ran."}]},
                {"role": "user", "content": [
                    {"type": "text", "text": "ok", "cache_control": {"type": EPHEMERAL}}
                ]}
            ])
        );
    }

    #[test]
    fn a_history_ending_in_an_unanswered_call_gets_a_final_user_turn_with_the_error_result() {
        let messages = messages_of(&request(vec![
            user("go"),
            assistant(vec![call("toolu_01A", "exec", json!({}))]),
        ]));
        assert_eq!(
            messages[2],
            json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_01A",
                 "content": [{"type": "text", "text": MISSING_RESULT}], "is_error": true,
                 "cache_control": {"type": EPHEMERAL}}
            ]})
        );
    }

    #[test]
    fn a_history_that_starts_with_the_assistant_gets_a_user_turn_first_and_same_roles_merge() {
        let messages = messages_of(&request(vec![
            assistant(vec![said("Earlier answer.")]),
            assistant(vec![said("More.")]),
            user("a"),
            user("b"),
        ]));
        assert_eq!(
            messages,
            json!([
                {"role": "user", "content": [
                    {"type": "text", "text": HISTORY_START_TEXT, "cache_control": {"type": EPHEMERAL}}
                ]},
                {"role": "assistant", "content": [
                    {"type": "text", "text": "Earlier answer."},
                    {"type": "text", "text": "More."}
                ]},
                {"role": "user", "content": [
                    {"type": "text", "text": "a"},
                    {"type": "text", "text": "b", "cache_control": {"type": EPHEMERAL}}
                ]}
            ])
        );
    }

    #[test]
    fn cache_breakpoints_go_on_system_last_tool_and_the_last_two_user_turns_only() {
        let mut long = request(vec![
            user("first"),
            assistant(vec![said("1")]),
            user("second"),
            assistant(vec![said("2")]),
            user("third"),
        ]);
        long.system_prompt = "sys".into();
        long.tools = ["read", "write"]
            .iter()
            .map(|name| ToolDefinition {
                name: (*name).into(),
                description: String::new(),
                parameters: json!({"type": "object"}),
            })
            .collect();
        let body = build_request(&long).json();
        let rendered = body.to_string();
        assert_eq!(rendered.matches("cache_control").count(), 4);
        assert_eq!(
            body["system"][0]["cache_control"],
            json!({"type": EPHEMERAL})
        );
        assert_eq!(body["tools"][0].get("cache_control"), None);
        assert_eq!(
            body["tools"][1]["cache_control"],
            json!({"type": EPHEMERAL})
        );
        assert_eq!(body["messages"][0]["content"][0].get("cache_control"), None);
        assert_eq!(
            body["messages"][2]["content"][0]["cache_control"],
            json!({"type": EPHEMERAL})
        );
        assert_eq!(
            body["messages"][4]["content"][0]["cache_control"],
            json!({"type": EPHEMERAL})
        );
    }

    #[test]
    fn a_one_hour_ttl_goes_on_every_breakpoint_the_history_start_turn_included() {
        let mut hourly = request(vec![assistant(vec![said("earlier")]), user("now")]);
        hourly.system_prompt = "sys".into();
        hourly.tools = vec![ToolDefinition {
            name: "read".into(),
            description: String::new(),
            parameters: json!({"type": "object"}),
        }];
        hourly.cache_writes = Some(crate::conversation::CacheTtl::OneHour);
        let body = build_request(&hourly).json();
        let hour = json!({"type": EPHEMERAL, "ttl": "1h"});
        assert_eq!(body["system"][0]["cache_control"], hour);
        assert_eq!(body["tools"][0]["cache_control"], hour);
        assert_eq!(
            body["messages"][0]["content"][0]["text"],
            HISTORY_START_TEXT
        );
        assert_eq!(body["messages"][0]["content"][0]["cache_control"], hour);
        assert_eq!(body["messages"][2]["content"][0]["cache_control"], hour);
        assert_eq!(body.to_string().matches("cache_control").count(), 4);
    }

    #[test]
    fn a_one_off_request_that_writes_no_cache_carries_no_breakpoint() {
        let mut summary = request(vec![user("summarize this"), assistant(vec![said("a")])]);
        summary.system_prompt = "You summarize.".into();
        summary.cache_writes = None;
        let body = build_request(&summary).json();
        assert!(!body.to_string().contains("cache_control"), "{body:#}");
    }

    #[test]
    fn each_thinking_level_has_its_budget_and_max_tokens_grows_by_it() {
        let cases = [
            (ThinkingLevel::Minimal, 1024),
            (ThinkingLevel::Low, 2048),
            (ThinkingLevel::Medium, 8192),
            (ThinkingLevel::High, 16384),
            (ThinkingLevel::Xhigh, 32000),
        ];
        for (level, budget) in cases {
            let mut thinking = request(vec![user("think")]);
            thinking.thinking = level;
            thinking.max_output_tokens = 4096;
            let body = build_request(&thinking).json();
            assert_eq!(
                body["thinking"],
                json!({"type": "enabled", "budget_tokens": budget})
            );
            assert_eq!(body["max_tokens"], json!(4096 + budget), "{level:?}");
        }
        let off = build_request(&request(vec![user("no")])).json();
        assert_eq!(off["max_tokens"], json!(8192));
    }

    #[test]
    fn the_refusal_test_string_is_redacted_from_every_outgoing_text() {
        let quoted = format!("the log says {REFUSAL_TEST_STRING}!");
        let mut poisoned = request(vec![
            user(&quoted),
            assistant(vec![said(&quoted), call("toolu_01A", "read", json!({}))]),
            ok("toolu_01A", &quoted),
        ]);
        poisoned.system_prompt = quoted.clone();
        let body = build_request(&poisoned).json();
        let rendered = body.to_string();
        assert!(!rendered.contains(REFUSAL_TEST_STRING));
        assert_eq!(rendered.matches("the log says [redacted]!").count(), 4);
    }

    #[test]
    fn foreign_call_ids_are_made_valid_the_same_way_on_call_and_result() {
        let messages = messages_of(&request(vec![
            user("go"),
            assistant_from(
                "openai-responses",
                vec![call("call_9|fc_1.2", "ls", json!({}))],
            ),
            ok("call_9|fc_1.2", "x"),
        ]));
        assert_eq!(messages[1]["content"][0]["id"], "call_9_fc_1_2");
        assert_eq!(messages[2]["content"][0]["tool_use_id"], "call_9_fc_1_2");
        assert_eq!(messages[2]["content"][0].get("is_error"), None);
    }

    #[test]
    fn blank_text_and_empty_assistant_messages_are_not_sent() {
        let messages = messages_of(&request(vec![
            user("hi"),
            assistant(vec![said("  "), thought("", None)]),
            user("again"),
        ]));
        assert_eq!(
            messages,
            json!([
                {"role": "user", "content": [
                    {"type": "text", "text": "hi"},
                    {"type": "text", "text": "again", "cache_control": {"type": EPHEMERAL}}
                ]}
            ])
        );
    }

    #[test]
    fn a_json_schema_goes_in_output_config_format_and_the_tools_stay() {
        let mut built = request(vec![user("Is it ok?")]);
        built.output_format = Some(crate::test_support::output_format());
        let body = build_request(&built).json();
        assert_eq!(
            body["output_config"],
            json!({"format": {"type": "json_schema", "schema": {"type": "object",
                "properties": {"ok": {"type": "boolean"}}, "required": ["ok"],
                "additionalProperties": false}}})
        );
        assert!(
            build_request(&request(vec![user("hi")]))
                .json()
                .get("output_config")
                .is_none()
        );
    }
}
