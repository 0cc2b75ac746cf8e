//! A fast reader for the entries pincer and pi write, straight from the line's text into the
//! typed records of [`super::record`], without first building a `serde_json::Value` of the line
//! (whose maps hash every key: about two thirds of the time of reading a big session or
//! reindexing a home, SPEC §12.1).
//!
//! It takes only the plainest shape of each record: the tag (`type`, or a message's `role`) as
//! the object's first key, a known entry type, role and block type, no field the record does not
//! name (so every `extra` map is empty) and no key twice. Anything else — an unknown type, a
//! field kept in `extra`, a tag further down, a record that is not valid — is declined with
//! `None`, and the caller reads the line the general way ([`super::record::parse_line`]), which
//! also words the errors. So whenever this reader gives an entry, it is the entry the general
//! reader gives; `tests::the_fast_reader_agrees_with_the_general_one` holds it to that.

use std::fmt;

use serde::de::value::MapAccessDeserializer;
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use super::record::{
    AgentMessage, AssistantContent, AssistantMessage, BranchSummaryEntry, CompactionEntry,
    ContentBlock, CustomEntry, CustomMessageEntry, Entry, ImageContent, LabelEntry, MessageContent,
    MessageEntry, ModelChangeEntry, SessionInfoEntry, StopReason, TextContent, ThinkingContent,
    ThinkingLevelChangeEntry, ToolCall, ToolResultMessage, Usage, UserMessage,
};

/// The entry on `line`, when it has the plain shape this reader takes (see the module header).
pub fn parse_entry(line: &str) -> Option<Entry> {
    let mut deserializer = serde_json::Deserializer::from_str(line);
    let entry = FastEntry::deserialize(&mut deserializer).ok()?;
    deserializer.end().ok()?;
    Some(entry.0)
}

/// [`parse_entry`] for the index's summary ([`super::summary::summarize`]), which looks at no
/// text or payload: texts, summaries, tool arguments, images and `details` are checked as the
/// records require but not kept (they read as empty, `details` as `null`; a custom entry's
/// `data` is kept). It takes the lines [`parse_entry`] takes, but for one with an escaped UTF-16
/// surrogate in such a text (the caller reads that one in full). Never give such an entry to
/// anything but a summary that rebuilds no context.
pub fn parse_entry_for_summary(line: &str) -> Option<Entry> {
    SUMMARY_ONLY.set(true);
    let entry = parse_entry(line);
    SUMMARY_ONLY.set(false);
    entry
}

thread_local! {
    /// Set while [`parse_entry_for_summary`] reads a line.
    static SUMMARY_ONLY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Check, without copying it, that the value next in `deserializer` is what the general reader
/// would take for a `String` (`string`) or a `serde_json::Value`: its JSON is valid, and (for
/// a string) it is one. An escaped UTF-16 surrogate is declined rather than checked (the
/// general reader refuses a lone one, which this quick check would not see).
fn skip_value<'de, D: Deserializer<'de>>(deserializer: D, string: bool) -> Result<(), D::Error> {
    let raw = <&'de serde_json::value::RawValue>::deserialize(deserializer)?;
    let text = raw.get();
    if (string && !text.starts_with('"')) || text.contains("\\ud") || text.contains("\\uD") {
        return Err(declined());
    }
    Ok(())
}

/// A text the summary does not read: kept, or checked and left empty.
fn text<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    if SUMMARY_ONLY.get() {
        skip_value(deserializer, true).map(|()| String::new())
    } else {
        String::deserialize(deserializer)
    }
}

/// [`text`] for an optional one.
fn optional_text<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    if SUMMARY_ONLY.get() {
        Option::<SkippedText>::deserialize(deserializer).map(|text| text.map(|_| String::new()))
    } else {
        Option::<String>::deserialize(deserializer)
    }
}

/// A string [`text`] skips, as an `Option`'s content.
struct SkippedText;

impl<'de> Deserialize<'de> for SkippedText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        skip_value(deserializer, true).map(|()| SkippedText)
    }
}

/// A JSON payload the summary does not read: kept, or checked and left `null`.
fn payload<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Value, D::Error> {
    if SUMMARY_ONLY.get() {
        skip_value(deserializer, false).map(|()| Value::Null)
    } else {
        Value::deserialize(deserializer)
    }
}

/// A short string read without allocating: a tag value, compared with the known ones.
struct Tag {
    bytes: [u8; 24],
    length: usize,
}

impl Tag {
    fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes[..self.length]).unwrap_or("")
    }
}

impl<'de> Deserialize<'de> for Tag {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TagVisitor;

        impl Visitor<'_> for TagVisitor {
            type Value = Tag;

            fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
                formatter.write_str("a short string")
            }

            fn visit_str<E: de::Error>(self, text: &str) -> Result<Tag, E> {
                let mut tag = Tag {
                    bytes: [0; 24],
                    length: text.len(),
                };
                tag.bytes
                    .get_mut(..text.len())
                    .ok_or_else(|| E::custom("not a tag this reader knows"))?
                    .copy_from_slice(text.as_bytes());
                Ok(tag)
            }
        }

        deserializer.deserialize_str(TagVisitor)
    }
}

/// Reads an object whose first key is `tag` and hands its value and the rest of the object to
/// `pick`, which deserializes the record of that tag from the remaining fields.
fn tagged<'de, A, T>(
    mut map: A,
    tag: &str,
    pick: impl FnOnce(&str, MapAccessDeserializer<A>) -> Result<T, A::Error>,
) -> Result<T, A::Error>
where
    A: MapAccess<'de>,
{
    let first: Option<Tag> = map.next_key()?;
    if first.as_ref().map(Tag::as_str) != Some(tag) {
        return Err(de::Error::custom("the tag is not the first key"));
    }
    let value: Tag = map.next_value()?;
    pick(value.as_str(), MapAccessDeserializer::new(map))
}

fn declined<E: de::Error>() -> E {
    E::custom("left to the general reader")
}

/// A visitor that reads a map through a function (the tag dispatch of each enum).
struct MapWith<F>(&'static str, F);

impl<'de, T, F> Visitor<'de> for MapWith<F>
where
    F: FnOnce(&mut dyn ErasedMap<'de>) -> Option<T>,
{
    type Value = T;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str(self.0)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
        let mut holder = Some(map);
        (self.1)(&mut holder).ok_or_else(declined)
    }
}

/// A map access that can be taken once, behind a trait object (so one closure type serves
/// every `MapAccess`).
trait ErasedMap<'de> {
    fn entry(&mut self) -> Option<Entry>;
    fn agent_message(&mut self) -> Option<AgentMessage>;
    fn content_block(&mut self) -> Option<ContentBlock>;
    fn assistant_content(&mut self) -> Option<AssistantContent>;
}

impl<'de, A: MapAccess<'de>> ErasedMap<'de> for Option<A> {
    fn entry(&mut self) -> Option<Entry> {
        let map = self.take()?;
        tagged(map, "type", |kind, rest| {
            Ok(match kind {
                "message" => Entry::Message(FastMessageEntry::deserialize(rest)?.into()),
                "thinking_level_change" => {
                    Entry::ThinkingLevelChange(FastThinkingLevelChange::deserialize(rest)?.into())
                }
                "model_change" => Entry::ModelChange(FastModelChange::deserialize(rest)?.into()),
                "compaction" => Entry::Compaction(FastCompaction::deserialize(rest)?.into()),
                "branch_summary" => {
                    Entry::BranchSummary(FastBranchSummary::deserialize(rest)?.into())
                }
                "custom" => Entry::Custom(FastCustom::deserialize(rest)?.into()),
                "custom_message" => {
                    Entry::CustomMessage(FastCustomMessage::deserialize(rest)?.into())
                }
                "label" => Entry::Label(FastLabel::deserialize(rest)?.into()),
                "session_info" => Entry::SessionInfo(FastSessionInfo::deserialize(rest)?.into()),
                _ => return Err(declined()),
            })
        })
        .ok()
    }

    fn agent_message(&mut self) -> Option<AgentMessage> {
        let map = self.take()?;
        tagged(map, "role", |role, rest| {
            Ok(match role {
                "user" => AgentMessage::User(FastUser::deserialize(rest)?.into()),
                "assistant" => AgentMessage::Assistant(FastAssistant::deserialize(rest)?.into()),
                "toolResult" => AgentMessage::ToolResult(FastToolResult::deserialize(rest)?.into()),
                _ => return Err(declined()),
            })
        })
        .ok()
    }

    fn content_block(&mut self) -> Option<ContentBlock> {
        let map = self.take()?;
        tagged(map, "type", |kind, rest| {
            Ok(match kind {
                "text" => ContentBlock::Text(FastText::deserialize(rest)?.into()),
                "image" => ContentBlock::Image(FastImage::deserialize(rest)?.into()),
                _ => return Err(declined()),
            })
        })
        .ok()
    }

    fn assistant_content(&mut self) -> Option<AssistantContent> {
        let map = self.take()?;
        tagged(map, "type", |kind, rest| {
            Ok(match kind {
                "text" => AssistantContent::Text(FastText::deserialize(rest)?.into()),
                "thinking" => AssistantContent::Thinking(FastThinking::deserialize(rest)?.into()),
                "toolCall" => AssistantContent::ToolCall(FastToolCall::deserialize(rest)?.into()),
                _ => return Err(declined()),
            })
        })
        .ok()
    }
}

/// Declares a newtype read as a map through one of the [`ErasedMap`] dispatchers.
macro_rules! tagged_newtype {
    ($name:ident, $inner:ty, $method:ident, $what:literal) => {
        struct $name($inner);

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                deserializer
                    .deserialize_map(MapWith($what, |map: &mut dyn ErasedMap<'de>| map.$method()))
                    .map($name)
            }
        }
    };
}

tagged_newtype!(FastEntry, Entry, entry, "a session entry");
tagged_newtype!(FastAgentMessage, AgentMessage, agent_message, "a message");
tagged_newtype!(
    FastContentBlock,
    ContentBlock,
    content_block,
    "a content block"
);
tagged_newtype!(
    FastAssistantContent,
    AssistantContent,
    assistant_content,
    "an assistant content block"
);

/// `content` of a user or custom message: a string, or a list of blocks.
struct FastMessageContent(MessageContent);

impl<'de> Deserialize<'de> for FastMessageContent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ContentVisitor;

        impl<'de> Visitor<'de> for ContentVisitor {
            type Value = FastMessageContent;

            fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
                formatter.write_str("a string or an array of blocks")
            }

            fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
                let kept = if SUMMARY_ONLY.get() {
                    String::new()
                } else {
                    text.to_owned()
                };
                Ok(FastMessageContent(MessageContent::Text(kept)))
            }

            fn visit_string<E: de::Error>(self, text: String) -> Result<Self::Value, E> {
                Ok(FastMessageContent(MessageContent::Text(text)))
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut blocks = Vec::with_capacity(seq.size_hint().unwrap_or(1));
                while let Some(FastContentBlock(block)) = seq.next_element()? {
                    blocks.push(block);
                }
                Ok(FastMessageContent(MessageContent::Blocks(exact(blocks))))
            }
        }

        deserializer.deserialize_any(ContentVisitor)
    }
}

fn blocks<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<ContentBlock>, D::Error> {
    let blocks = Vec::<FastContentBlock>::deserialize(deserializer)?;
    Ok(exact(blocks.into_iter().map(|block| block.0).collect()))
}

fn assistant_blocks<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<AssistantContent>, D::Error> {
    let blocks = Vec::<FastAssistantContent>::deserialize(deserializer)?;
    Ok(exact(blocks.into_iter().map(|block| block.0).collect()))
}

/// `blocks` without the room a growing list keeps (room for four blocks where one or two were
/// read): a long session holds tens of thousands of these lists.
fn exact<T>(mut blocks: Vec<T>) -> Vec<T> {
    blocks.shrink_to_fit();
    blocks
}

fn message_content<'de, D: Deserializer<'de>>(deserializer: D) -> Result<MessageContent, D::Error> {
    FastMessageContent::deserialize(deserializer).map(|content| content.0)
}

fn agent_message<'de, D: Deserializer<'de>>(deserializer: D) -> Result<AgentMessage, D::Error> {
    FastAgentMessage::deserialize(deserializer).map(|message| message.0)
}

/// As in the records: an explicit `null` is kept as `Some(Value::Null)` (a [`payload`]).
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    payload(deserializer).map(Some)
}

/// A custom entry's `data`, kept even for a summary (it holds a CLI backend's session id).
fn present_data<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

// The records without their `extra` maps, field for field with the same serde attributes as
// in `record.rs`; `deny_unknown_fields` declines what the records would keep in `extra`.

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct FastMessageEntry {
    id: String,
    parent_id: Option<String>,
    timestamp: String,
    #[serde(deserialize_with = "agent_message")]
    message: AgentMessage,
}

impl From<FastMessageEntry> for MessageEntry {
    fn from(fast: FastMessageEntry) -> MessageEntry {
        MessageEntry {
            id: fast.id,
            parent_id: fast.parent_id,
            timestamp: fast.timestamp,
            message: fast.message,
            extra: Map::new(),
        }
    }
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct FastThinkingLevelChange {
    id: String,
    parent_id: Option<String>,
    timestamp: String,
    thinking_level: String,
}

impl From<FastThinkingLevelChange> for ThinkingLevelChangeEntry {
    fn from(fast: FastThinkingLevelChange) -> ThinkingLevelChangeEntry {
        ThinkingLevelChangeEntry {
            id: fast.id,
            parent_id: fast.parent_id,
            timestamp: fast.timestamp,
            thinking_level: fast.thinking_level,
            extra: Map::new(),
        }
    }
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct FastModelChange {
    id: String,
    parent_id: Option<String>,
    timestamp: String,
    provider: String,
    model_id: String,
}

impl From<FastModelChange> for ModelChangeEntry {
    fn from(fast: FastModelChange) -> ModelChangeEntry {
        ModelChangeEntry {
            id: fast.id,
            parent_id: fast.parent_id,
            timestamp: fast.timestamp,
            provider: fast.provider,
            model_id: fast.model_id,
            extra: Map::new(),
        }
    }
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct FastCompaction {
    id: String,
    parent_id: Option<String>,
    timestamp: String,
    #[serde(deserialize_with = "text")]
    summary: String,
    #[serde(default)]
    first_kept_entry_id: String,
    #[serde(default)]
    tokens_before: u64,
    #[serde(default, deserialize_with = "present")]
    details: Option<Value>,
    #[serde(default)]
    from_hook: Option<bool>,
}

impl From<FastCompaction> for CompactionEntry {
    fn from(fast: FastCompaction) -> CompactionEntry {
        CompactionEntry {
            id: fast.id,
            parent_id: fast.parent_id,
            timestamp: fast.timestamp,
            summary: fast.summary,
            first_kept_entry_id: fast.first_kept_entry_id,
            tokens_before: fast.tokens_before,
            details: fast.details,
            from_hook: fast.from_hook,
            extra: Map::new(),
        }
    }
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct FastBranchSummary {
    id: String,
    parent_id: Option<String>,
    timestamp: String,
    from_id: String,
    #[serde(deserialize_with = "text")]
    summary: String,
    #[serde(default, deserialize_with = "present")]
    details: Option<Value>,
    #[serde(default)]
    from_hook: Option<bool>,
}

impl From<FastBranchSummary> for BranchSummaryEntry {
    fn from(fast: FastBranchSummary) -> BranchSummaryEntry {
        BranchSummaryEntry {
            id: fast.id,
            parent_id: fast.parent_id,
            timestamp: fast.timestamp,
            from_id: fast.from_id,
            summary: fast.summary,
            details: fast.details,
            from_hook: fast.from_hook,
            extra: Map::new(),
        }
    }
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct FastCustom {
    custom_type: String,
    #[serde(default, deserialize_with = "present_data")]
    data: Option<Value>,
    id: String,
    parent_id: Option<String>,
    timestamp: String,
}

impl From<FastCustom> for CustomEntry {
    fn from(fast: FastCustom) -> CustomEntry {
        CustomEntry {
            custom_type: fast.custom_type,
            data: fast.data,
            id: fast.id,
            parent_id: fast.parent_id,
            timestamp: fast.timestamp,
            extra: Map::new(),
        }
    }
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct FastCustomMessage {
    custom_type: String,
    #[serde(deserialize_with = "message_content")]
    content: MessageContent,
    #[serde(default)]
    display: bool,
    #[serde(default, deserialize_with = "present")]
    details: Option<Value>,
    id: String,
    parent_id: Option<String>,
    timestamp: String,
}

impl From<FastCustomMessage> for CustomMessageEntry {
    fn from(fast: FastCustomMessage) -> CustomMessageEntry {
        CustomMessageEntry {
            custom_type: fast.custom_type,
            content: fast.content,
            display: fast.display,
            details: fast.details,
            id: fast.id,
            parent_id: fast.parent_id,
            timestamp: fast.timestamp,
            extra: Map::new(),
        }
    }
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct FastLabel {
    id: String,
    parent_id: Option<String>,
    timestamp: String,
    target_id: String,
    #[serde(default)]
    label: Option<String>,
}

impl From<FastLabel> for LabelEntry {
    fn from(fast: FastLabel) -> LabelEntry {
        LabelEntry {
            id: fast.id,
            parent_id: fast.parent_id,
            timestamp: fast.timestamp,
            target_id: fast.target_id,
            label: fast.label,
            extra: Map::new(),
        }
    }
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct FastSessionInfo {
    id: String,
    parent_id: Option<String>,
    timestamp: String,
    #[serde(default)]
    name: Option<String>,
}

impl From<FastSessionInfo> for SessionInfoEntry {
    fn from(fast: FastSessionInfo) -> SessionInfoEntry {
        SessionInfoEntry {
            id: fast.id,
            parent_id: fast.parent_id,
            timestamp: fast.timestamp,
            name: fast.name,
            extra: Map::new(),
        }
    }
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct FastUser {
    #[serde(deserialize_with = "message_content")]
    content: MessageContent,
    timestamp: i64,
}

impl From<FastUser> for UserMessage {
    fn from(fast: FastUser) -> UserMessage {
        UserMessage {
            content: fast.content,
            timestamp: fast.timestamp,
            extra: Map::new(),
        }
    }
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct FastAssistant {
    #[serde(deserialize_with = "assistant_blocks")]
    content: Vec<AssistantContent>,
    api: String,
    provider: String,
    model: String,
    #[serde(default)]
    usage: Usage,
    stop_reason: StopReason,
    timestamp: i64,
    #[serde(default)]
    error_message: Option<String>,
}

impl From<FastAssistant> for AssistantMessage {
    fn from(fast: FastAssistant) -> AssistantMessage {
        AssistantMessage {
            content: fast.content,
            api: fast.api,
            provider: fast.provider,
            model: fast.model,
            usage: fast.usage,
            stop_reason: fast.stop_reason,
            timestamp: fast.timestamp,
            extra: Map::new(),
            error_message: fast.error_message,
        }
    }
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct FastToolResult {
    tool_call_id: String,
    tool_name: String,
    #[serde(deserialize_with = "blocks")]
    content: Vec<ContentBlock>,
    #[serde(default, deserialize_with = "present")]
    details: Option<Value>,
    #[serde(default)]
    is_error: bool,
    timestamp: i64,
}

impl From<FastToolResult> for ToolResultMessage {
    fn from(fast: FastToolResult) -> ToolResultMessage {
        ToolResultMessage {
            tool_call_id: fast.tool_call_id,
            tool_name: fast.tool_name,
            content: fast.content,
            details: fast.details,
            is_error: fast.is_error,
            timestamp: fast.timestamp,
            extra: Map::new(),
        }
    }
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct FastText {
    #[serde(deserialize_with = "text")]
    text: String,
    #[serde(default)]
    text_signature: Option<String>,
}

impl From<FastText> for TextContent {
    fn from(fast: FastText) -> TextContent {
        TextContent {
            text: fast.text,
            text_signature: fast.text_signature,
            // A text with citations has a field this reader declines: read the general way.
            citations: None,
            extra: Map::new(),
        }
    }
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct FastThinking {
    #[serde(deserialize_with = "text")]
    thinking: String,
    #[serde(default, deserialize_with = "optional_text")]
    thinking_signature: Option<String>,
    #[serde(default)]
    redacted: Option<bool>,
}

impl From<FastThinking> for ThinkingContent {
    fn from(fast: FastThinking) -> ThinkingContent {
        ThinkingContent {
            thinking: fast.thinking,
            thinking_signature: fast.thinking_signature,
            redacted: fast.redacted,
            extra: Map::new(),
        }
    }
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct FastToolCall {
    id: String,
    name: String,
    #[serde(deserialize_with = "payload")]
    arguments: Value,
    #[serde(default)]
    thought_signature: Option<String>,
}

impl From<FastToolCall> for ToolCall {
    fn from(fast: FastToolCall) -> ToolCall {
        ToolCall {
            id: fast.id,
            name: fast.name,
            arguments: fast.arguments,
            thought_signature: fast.thought_signature,
            extra: Map::new(),
        }
    }
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct FastImage {
    #[serde(deserialize_with = "text")]
    data: String,
    mime_type: String,
}

impl From<FastImage> for ImageContent {
    fn from(fast: FastImage) -> ImageContent {
        ImageContent {
            data: fast.data,
            mime_type: fast.mime_type,
            extra: Map::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::record::{Line, parse_value};

    pub(super) fn general(line: &str) -> Option<Entry> {
        match parse_value(line).and_then(Line::from_value) {
            Ok(Line::Entry(entry)) => Some(entry),
            _ => None,
        }
    }

    /// Lines of every record pincer writes, in its own shape.
    pub(super) const PLAIN: &[&str] = &[
        r#"{"type":"model_change","id":"90d0ff3b","parentId":null,"timestamp":"2026-12-01T14:43:23.669Z","provider":"anthropic","modelId":"claude-sonnet-4-5"}"#,
        r#"{"type":"thinking_level_change","id":"aaa8fc37","parentId":"90d0ff3b","timestamp":"2026-12-01T14:43:23.670Z","thinkingLevel":"off"}"#,
        r#"{"type":"message","id":"8e7dfc33","parentId":"aaa8fc37","timestamp":"2026-12-01T14:43:23.670Z","message":{"role":"user","content":[{"type":"text","text":"hi \"there\"\n\u2028"}],"timestamp":1796136203669}}"#,
        r#"{"type":"message","id":"8e7dfc34","parentId":"aaa8fc37","timestamp":"2026-12-01T14:43:23.670Z","message":{"role":"user","content":"plain","timestamp":1}}"#,
        r#"{"type":"message","id":"8e7dfc35","parentId":"aaa8fc37","timestamp":"2026-12-01T14:43:23.670Z","message":{"role":"user","content":[{"type":"text","text":"see"},{"type":"image","data":"aGk=","mimeType":"image/png"}],"timestamp":1}}"#,
        r#"{"type":"message","id":"65ab88ab","parentId":"8e7dfc33","timestamp":"2026-12-01T14:43:23.689Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hm","thinkingSignature":"sig"},{"type":"text","text":"The build is green.","textSignature":"msg_1"},{"type":"toolCall","id":"toolu_1","name":"read","arguments":{"path":"a.rs","limit":2.5,"deep":{"b":[1,-2,null]}},"thoughtSignature":"t"}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":1200,"output":40,"cacheRead":0,"cacheWrite":0,"totalTokens":1240,"cost":{"input":0.0036,"output":0.0006,"cacheRead":0,"cacheWrite":0,"total":0.014499000000000001}},"stopReason":"toolUse","timestamp":1796136203689}}"#,
        r#"{"type":"message","id":"65ab88ac","parentId":"8e7dfc33","timestamp":"2026-12-01T14:43:23.689Z","message":{"role":"assistant","content":[],"api":"openai-responses","provider":"openai","model":"gpt-5","usage":{"input":1,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":1,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"error","timestamp":2,"errorMessage":"boom"}}"#,
        r#"{"type":"message","id":"65ab88ad","parentId":"65ab88ac","timestamp":"2026-12-01T14:43:23.689Z","message":{"role":"toolResult","toolCallId":"toolu_1","toolName":"read","content":[{"type":"text","text":"fn main() {}"}],"details":null,"isError":false,"timestamp":3}}"#,
        r#"{"type":"compaction","id":"c1","parentId":"65ab88ad","timestamp":"2026-12-01T14:43:24.000Z","summary":"Goal: fix","firstKeptEntryId":"8e7dfc33","tokensBefore":151230,"details":{"readFiles":["a.rs"],"modifiedFiles":[]},"fromHook":false}"#,
        r#"{"type":"compaction","id":"c2","parentId":"c1","timestamp":"2026-12-01T14:43:24.000Z","summary":"s"}"#,
        r#"{"type":"branch_summary","id":"b1","parentId":"c1","timestamp":"2026-12-01T14:43:24.000Z","fromId":"root","summary":"elsewhere","details":null}"#,
        r#"{"type":"custom","customType":"pincer.claude-cli","data":{"sessionId":"abc"},"id":"d1","parentId":"b1","timestamp":"2026-12-01T14:43:24.000Z"}"#,
        r#"{"type":"custom","customType":"x","id":"d2","parentId":"b1","timestamp":"2026-12-01T14:43:24.000Z"}"#,
        r#"{"type":"custom_message","customType":"note","content":[{"type":"text","text":"n"}],"display":true,"id":"e1","parentId":"d1","timestamp":"2026-12-01T14:43:24.000Z"}"#,
        r#"{"type":"label","id":"f1","parentId":"e1","timestamp":"2026-12-01T14:43:24.000Z","targetId":"e1","label":"here"}"#,
        r#"{"type":"session_info","id":"a0000001","parentId":null,"timestamp":"2026-11-30T10:00:01.000Z","name":"weekly"}"#,
        r#"{"type":"session_info","id":"a0000002","parentId":"a0000001","timestamp":"2026-11-30T10:00:01.000Z"}"#,
    ];

    /// Lines the fast reader leaves to the general one: extras, odd order, unknown kinds, bad
    /// records, duplicates, non-objects.
    pub(super) const DECLINED: &[&str] = &[
        r#"{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/w"}"#,
        r#"{"type":"model_change","id":"1","parentId":null,"timestamp":"t","provider":"p","modelId":"m","extraField":1}"#,
        r#"{"id":"1","type":"model_change","parentId":null,"timestamp":"t","provider":"p","modelId":"m"}"#,
        r#"{"type":"future_kind","id":"1","parentId":null,"timestamp":"t"}"#,
        r#"{"type":"message","id":"1","parentId":null,"timestamp":"t","message":{"content":"x","role":"user","timestamp":1}}"#,
        r#"{"type":"message","id":"1","parentId":null,"timestamp":"t","message":{"role":"bashExecution","command":"ls"}}"#,
        r#"{"type":"message","id":"1","parentId":null,"timestamp":"t","message":{"role":"user","content":[{"type":"audio","x":1}],"timestamp":1}}"#,
        r#"{"type":"message","id":"1","parentId":null,"timestamp":"t","message":{"role":"assistant","content":[],"api":"a","provider":"p","model":"m","stopReason":"stop","timestamp":2,"responseId":"r"}}"#,
        r#"{"type":"message","id":"1","parentId":null,"timestamp":"t","message":{"role":"user","content":7,"timestamp":1}}"#,
        r#"{"type":"message","id":"1","parentId":null,"timestamp":"t","message":{"role":"user","content":"x","timestamp":1.5}}"#,
        r#"{"type":"model_change","id":"1","parentId":null,"timestamp":"t","provider":"p","modelId":"m","provider":"q"}"#,
        r#"{"type":"label","id":"1","parentId":null,"timestamp":"t"}"#,
        r#"{"type":"session_info","id":"1","parentId":null,"timestamp":"t","name":"n"} trailing"#,
        r#"[1,2]"#,
        r#""text""#,
        r#"{"type":"message""#,
        "",
    ];

    #[test]
    fn the_fast_reader_takes_every_record_pincer_writes() {
        for line in PLAIN {
            let fast = parse_entry(line);
            assert!(fast.is_some(), "declined: {line}");
            assert_eq!(fast, general(line), "{line}");
        }
    }

    #[test]
    fn the_fast_reader_agrees_with_the_general_one() {
        for line in PLAIN.iter().chain(DECLINED) {
            if let Some(fast) = parse_entry(line) {
                assert_eq!(Some(fast), general(line), "{line}");
            }
        }
        for line in DECLINED {
            assert_eq!(parse_entry(line), None, "taken: {line}");
        }
        // Every line cut short anywhere, and with each byte changed, too.
        for line in PLAIN {
            for end in 0..line.len() {
                if let Some(cut) = line.get(..end) {
                    assert_eq!(parse_entry(cut), None, "{cut}");
                }
            }
            let bytes = line.as_bytes();
            for position in 0..bytes.len() {
                for replacement in [b'"', b'1', b'{', b']', b' ', b'x', b'\\'] {
                    let mut changed = bytes.to_vec();
                    changed[position] = replacement;
                    let Ok(changed) = String::from_utf8(changed) else {
                        continue;
                    };
                    if let Some(fast) = parse_entry(&changed) {
                        assert_eq!(Some(fast), general(&changed), "{changed}");
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod summary_tests {
    use super::*;

    #[test]
    fn a_line_read_for_a_summary_is_taken_as_for_the_whole_entry_but_for_escaped_surrogates() {
        for line in super::tests::PLAIN.iter().chain(super::tests::DECLINED) {
            let whole = parse_entry(line);
            let light = parse_entry_for_summary(line);
            assert_eq!(whole.is_some(), light.is_some(), "{line}");
            if let (Some(whole), Some(light)) = (whole, light) {
                assert_eq!(
                    (
                        whole.kind(),
                        whole.id(),
                        whole.parent_id(),
                        whole.timestamp()
                    ),
                    (
                        light.kind(),
                        light.id(),
                        light.parent_id(),
                        light.timestamp()
                    )
                );
            }
        }
        // A lone surrogate is refused by the general reader; the summary reader does not take
        // an escaped surrogate at all, in a text or in a payload.
        for lone in [
            r#"{"type":"message","id":"1","parentId":null,"timestamp":"t","message":{"role":"user","content":[{"type":"text","text":"a\ud800b"}],"timestamp":1}}"#,
            r#"{"type":"message","id":"1","parentId":null,"timestamp":"t","message":{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"n","arguments":{"x":"\udfff"}}],"api":"a","provider":"p","model":"m","stopReason":"stop","timestamp":2}}"#,
        ] {
            assert_eq!(super::tests::general(lone), None, "{lone}");
            assert_eq!(parse_entry(lone), None, "{lone}");
            assert_eq!(parse_entry_for_summary(lone), None, "{lone}");
        }
        let pair = r#"{"type":"message","id":"1","parentId":null,"timestamp":"t","message":{"role":"user","content":[{"type":"text","text":"\ud83d\ude00"}],"timestamp":1}}"#;
        assert!(parse_entry(pair).is_some());
        assert_eq!(parse_entry_for_summary(pair), None);
        // Outside it, texts are kept again.
        let Some(Entry::Message(message)) = parse_entry(super::tests::PLAIN[3]) else {
            panic!("a user message");
        };
        assert!(matches!(
            message.message,
            AgentMessage::User(UserMessage { content: MessageContent::Text(ref text), .. }) if text == "plain"
        ));
    }
}
