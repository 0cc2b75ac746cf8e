//! A fast reader for the entries pincer and pi write, straight from the line's text into the
//! typed records of [`super::record`], without first building a `serde_json::Value` of the line
//! (whose maps hash every key: about two thirds of the time of reading a big session or
//! reindexing a home, SPEC §12.1).
//!
//! It takes only the plainest shape of each record: the tag (`type`, or a message's `role`) as
//! the object's first key, a known entry type, role and block type, no field the record does not
//! name (so every `extra` map is empty) and no key twice. Anything else — an unknown type, a
//! field kept in `extra`, a tag further down, a record that is not valid — is declined with
//! `None`, and the caller reads the line the general way ([`super::parse::parse_line`]), which
//! also words the errors. So whenever this reader gives an entry, it is the entry the general
//! reader gives; `tests::the_fast_reader_agrees_with_the_general_one` holds it to that.

use std::borrow::Cow;
use std::fmt;

use serde::de::value::MapAccessDeserializer;
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use super::record::{
    AgentMessage, AssistantContent, AssistantMessage, BranchSummaryEntry, CompactionEntry,
    ContentBlock, CustomEntry, CustomMessageEntry, Entry, ImageContent, LabelEntry, MessageContent,
    MessageEntry, ModelChangeEntry, SessionHeader, SessionInfoEntry, StopReason, TextContent,
    ThinkingContent, ThinkingLevelChangeEntry, ToolCall, ToolResultMessage, Usage, UserMessage,
};
use super::summary::{AssistantFacts, EntryFacts, Facts};

/// The entry on `line`, when it has the plain shape this reader takes (see the module header).
pub(super) fn parse_entry(line: &str) -> Option<Entry> {
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
pub(super) fn parse_entry_for_summary(line: &str) -> Option<Entry> {
    SUMMARY_ONLY.set(true);
    let entry = parse_entry(line);
    SUMMARY_ONLY.set(false);
    entry
}

thread_local! {
    /// Set while [`parse_entry_for_summary`] reads a line. Thread-local with a reason (issue
    /// #48): serde's `Deserialize` takes no argument, so the reader's mode reaches the field
    /// deserializers this way, for one call on one thread; it carries no state of a run.
    static SUMMARY_ONLY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Check, without copying it, that the value next in `deserializer` is what the general reader
/// would take for a `String` (`string`) or a `serde_json::Value`: its JSON is valid, and (for
/// a string) it is one. An escaped UTF-16 surrogate is declined rather than checked (the
/// general reader refuses a lone one, which this quick check would not see).
fn skip_value<'de, D: Deserializer<'de>>(deserializer: D, string: bool) -> Result<(), D::Error> {
    let raw = <&'de serde_json::value::RawValue>::deserialize(deserializer)?;
    let text = raw.get();
    if (string && !text.starts_with('"')) || has_escaped_surrogate(text) {
        return Err(declined());
    }
    Ok(())
}

/// Whether `text` holds `\ud` or `\uD` (what starts an escaped UTF-16 surrogate), in one pass.
fn has_escaped_surrogate(text: &str) -> bool {
    let bytes = text.as_bytes();
    memchr::memchr_iter(b'\\', bytes).any(|at| {
        bytes.get(at + 1) == Some(&b'u') && matches!(bytes.get(at + 2), Some(b'd' | b'D'))
    })
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

// ---- A summary's reader ----------------------------------------------------------------------

/// One entry as a summary reads it ([`summary_entry`]): its ids and time, and the few fields
/// of [`EntryFacts`], with every string borrowed from the line unless it holds an escape.
#[derive(Debug)]
pub(super) struct SummaryEntry<'a> {
    id: Cow<'a, str>,
    parent_id: Option<Cow<'a, str>>,
    timestamp: Cow<'a, str>,
    kind: SummaryKind<'a>,
}

#[derive(Debug)]
enum SummaryKind<'a> {
    SessionInfo(Option<Cow<'a, str>>),
    Compaction,
    Custom {
        custom_type: Cow<'a, str>,
        data: Option<Value>,
    },
    ModelChange {
        provider: Cow<'a, str>,
        model_id: Cow<'a, str>,
    },
    ThinkingLevelChange(Cow<'a, str>),
    User,
    Assistant {
        provider: Cow<'a, str>,
        model: Cow<'a, str>,
        usage: Usage,
        stop_reason: StopReason,
        error_message: Option<Cow<'a, str>>,
    },
    OtherMessage,
    Other,
}

impl SummaryEntry<'_> {
    /// What the summary reads of the entry.
    pub(super) fn facts(&self) -> EntryFacts<'_> {
        let kind = match &self.kind {
            SummaryKind::SessionInfo(name) => Facts::SessionInfo {
                name: name.as_deref(),
            },
            SummaryKind::Compaction => Facts::Compaction,
            SummaryKind::Custom { custom_type, data } => {
                super::summary::backend_session(custom_type, data.as_ref())
            }
            SummaryKind::ModelChange { provider, model_id } => {
                Facts::ModelChange { provider, model_id }
            }
            SummaryKind::ThinkingLevelChange(thinking_level) => {
                Facts::ThinkingLevelChange { thinking_level }
            }
            SummaryKind::User => Facts::UserMessage,
            SummaryKind::Assistant {
                provider,
                model,
                usage,
                stop_reason,
                error_message,
            } => Facts::AssistantMessage(AssistantFacts {
                provider,
                model,
                usage,
                stop_reason: *stop_reason,
                error_message: error_message.as_deref(),
            }),
            SummaryKind::OtherMessage => Facts::OtherMessage,
            SummaryKind::Other => Facts::Other,
        };
        EntryFacts {
            id: &self.id,
            parent_id: self.parent_id.as_deref(),
            timestamp: &self.timestamp,
            kind,
        }
    }
}

/// The entry on `line` as a summary reads it, without building the [`Entry`]: no text, payload
/// or field the summary does not read is copied or kept, and what it reads is borrowed from the
/// line. It takes only lines [`parse_entry_for_summary`] takes (the same shapes, checked the
/// same way, field for field), and then their facts are that entry's
/// (`summary_tests::the_summary_reader_reads_what_the_entry_says`); `None` for any other line.
pub(super) fn summary_entry(line: &str) -> Option<SummaryEntry<'_>> {
    let mut deserializer = serde_json::Deserializer::from_str(line);
    let Tagged(entry) = Tagged::<SummaryEntry<'_>>::deserialize(&mut deserializer).ok()?;
    deserializer.end().ok()?;
    Some(entry)
}

/// The session header on `line`, when it has the plain shape (no field the header does not
/// name, no key twice): then it is the header the general reader gives
/// (`summary_tests::the_header_reader_agrees_with_the_general_one`); `None` for any other line.
pub(super) fn parse_header(line: &str) -> Option<SessionHeader> {
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    struct PlainHeader<'a> {
        #[serde(rename = "type", borrow)]
        kind: Kept<'a>,
        #[serde(default)]
        version: Option<u32>,
        id: String,
        timestamp: String,
        #[serde(default)]
        cwd: Option<String>,
        #[serde(default)]
        parent_session: Option<String>,
    }

    let mut deserializer = serde_json::Deserializer::from_str(line);
    let header = PlainHeader::deserialize(&mut deserializer).ok()?;
    deserializer.end().ok()?;
    (header.kind.0 == "session").then(|| SessionHeader {
        version: header.version,
        id: header.id,
        timestamp: header.timestamp,
        cwd: header.cwd.unwrap_or_default(),
        parent_session: header.parent_session,
        extra: Map::new(),
    })
}

/// A string kept by the summary's reader: borrowed from the line when it has no escape.
struct Kept<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Kept<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeptVisitor;

        impl<'de> Visitor<'de> for KeptVisitor {
            type Value = Kept<'de>;

            fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
                formatter.write_str("a string")
            }

            fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<Kept<'de>, E> {
                Ok(Kept(Cow::Borrowed(text)))
            }

            fn visit_str<E: de::Error>(self, text: &str) -> Result<Kept<'de>, E> {
                Ok(Kept(Cow::Owned(text.to_owned())))
            }

            fn visit_string<E: de::Error>(self, text: String) -> Result<Kept<'de>, E> {
                Ok(Kept(Cow::Owned(text)))
            }
        }

        deserializer.deserialize_str(KeptVisitor)
    }
}

fn kept(text: Option<Kept<'_>>) -> Option<Cow<'_, str>> {
    text.map(|text| text.0)
}

/// A string the summary does not read, checked as a `String` is (escapes included) and not
/// kept.
#[derive(Default)]
struct Unread;

impl<'de> Deserialize<'de> for Unread {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct UnreadVisitor;

        impl Visitor<'_> for UnreadVisitor {
            type Value = Unread;

            fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
                formatter.write_str("a string")
            }

            fn visit_str<E: de::Error>(self, _: &str) -> Result<Unread, E> {
                Ok(Unread)
            }
        }

        deserializer.deserialize_str(UnreadVisitor)
    }
}

/// A JSON payload the summary does not read, checked as [`payload`] checks it.
struct SkippedPayload;

impl<'de> Deserialize<'de> for SkippedPayload {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        skip_value(deserializer, false).map(|()| SkippedPayload)
    }
}

/// A record read as a map whose first key is its tag ([`tagged`]), for the summary's reader.
trait TaggedRecord<'de>: Sized {
    /// The tag's key.
    const TAG: &'static str;
    /// What the record is, for serde's error.
    const WHAT: &'static str;
    /// The record of the tag `tag`, from the rest of the map.
    fn pick<A: MapAccess<'de>>(tag: &str, rest: MapAccessDeserializer<A>)
    -> Result<Self, A::Error>;
}

/// A [`TaggedRecord`] as serde reads it.
struct Tagged<T>(T);

impl<'de, T: TaggedRecord<'de>> Deserialize<'de> for Tagged<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TaggedVisitor<T>(std::marker::PhantomData<T>);

        impl<'de, T: TaggedRecord<'de>> Visitor<'de> for TaggedVisitor<T> {
            type Value = Tagged<T>;

            fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
                formatter.write_str(T::WHAT)
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Tagged<T>, A::Error> {
                tagged(map, T::TAG, T::pick).map(Tagged)
            }
        }

        deserializer.deserialize_map(TaggedVisitor(std::marker::PhantomData))
    }
}

/// Declares the record an entry type is read into by the summary's reader, the fields of its
/// `Fast…` counterpart above (with the same serde attributes) after `id`, `parentId` and
/// `timestamp`.
macro_rules! summary_record {
    ($name:ident { $($(#[$attribute:meta])* $field:ident: $type:ty,)* }) => {
        #[derive(serde::Deserialize)]
        #[serde(rename_all = "camelCase", deny_unknown_fields)]
        struct $name<'a> {
            #[serde(borrow)]
            id: Kept<'a>,
            #[serde(borrow)]
            parent_id: Option<Kept<'a>>,
            #[serde(borrow)]
            timestamp: Kept<'a>,
            $($(#[$attribute])* $field: $type,)*
        }
    };
}

summary_record!(SummaryMessageEntry {
    #[serde(borrow)]
    message: Tagged<SummaryMessage<'a>>,
});
summary_record!(SummaryThinkingLevelChange {
    #[serde(borrow)]
    thinking_level: Kept<'a>,
});
summary_record!(SummaryModelChange {
    #[serde(borrow)]
    provider: Kept<'a>,
    #[serde(borrow)]
    model_id: Kept<'a>,
});
summary_record!(SummaryCompaction {
    #[expect(dead_code, reason = "checked, not read")]
    summary: SkippedText,
    #[serde(default)]
    #[expect(dead_code, reason = "checked, not read")]
    first_kept_entry_id: Unread,
    #[serde(default)]
    #[expect(dead_code, reason = "checked, not read")]
    tokens_before: u64,
    #[serde(default)]
    #[expect(dead_code, reason = "checked, not read")]
    details: Option<SkippedPayload>,
    #[serde(default)]
    #[expect(dead_code, reason = "checked, not read")]
    from_hook: Option<bool>,
});
summary_record!(SummaryBranchSummary {
    #[expect(dead_code, reason = "checked, not read")]
    from_id: Unread,
    #[expect(dead_code, reason = "checked, not read")]
    summary: SkippedText,
    #[serde(default)]
    #[expect(dead_code, reason = "checked, not read")]
    details: Option<SkippedPayload>,
    #[serde(default)]
    #[expect(dead_code, reason = "checked, not read")]
    from_hook: Option<bool>,
});
summary_record!(SummaryCustom {
    #[serde(borrow)]
    custom_type: Kept<'a>,
    #[serde(default, deserialize_with = "present_data")]
    data: Option<Value>,
});
summary_record!(SummaryCustomMessage {
    #[expect(dead_code, reason = "checked, not read")]
    custom_type: Unread,
    #[expect(dead_code, reason = "checked, not read")]
    content: SkippedContent,
    #[serde(default)]
    #[expect(dead_code, reason = "checked, not read")]
    display: bool,
    #[serde(default)]
    #[expect(dead_code, reason = "checked, not read")]
    details: Option<SkippedPayload>,
});
summary_record!(SummaryLabel {
    #[expect(dead_code, reason = "checked, not read")]
    target_id: Unread,
    #[serde(default)]
    #[expect(dead_code, reason = "checked, not read")]
    label: Option<Unread>,
});
summary_record!(SummarySessionInfo {
    #[serde(default, borrow)]
    name: Option<Kept<'a>>,
});

impl<'a> SummaryEntry<'a> {
    fn of(
        id: Kept<'a>,
        parent_id: Option<Kept<'a>>,
        timestamp: Kept<'a>,
        kind: SummaryKind<'a>,
    ) -> Self {
        SummaryEntry {
            id: id.0,
            parent_id: kept(parent_id),
            timestamp: timestamp.0,
            kind,
        }
    }
}

impl<'de: 'a, 'a> TaggedRecord<'de> for SummaryEntry<'a> {
    const TAG: &'static str = "type";
    const WHAT: &'static str = "a session entry";

    fn pick<A: MapAccess<'de>>(
        kind: &str,
        rest: MapAccessDeserializer<A>,
    ) -> Result<Self, A::Error> {
        Ok(match kind {
            "message" => {
                let entry = SummaryMessageEntry::deserialize(rest)?;
                let kind = match entry.message.0 {
                    SummaryMessage::User => SummaryKind::User,
                    SummaryMessage::Assistant(assistant) => SummaryKind::Assistant {
                        provider: assistant.provider.0,
                        model: assistant.model.0,
                        usage: assistant.usage,
                        stop_reason: assistant.stop_reason,
                        error_message: kept(assistant.error_message),
                    },
                    SummaryMessage::ToolResult => SummaryKind::OtherMessage,
                };
                SummaryEntry::of(entry.id, entry.parent_id, entry.timestamp, kind)
            }
            "thinking_level_change" => {
                let entry = SummaryThinkingLevelChange::deserialize(rest)?;
                let kind = SummaryKind::ThinkingLevelChange(entry.thinking_level.0);
                SummaryEntry::of(entry.id, entry.parent_id, entry.timestamp, kind)
            }
            "model_change" => {
                let entry = SummaryModelChange::deserialize(rest)?;
                let kind = SummaryKind::ModelChange {
                    provider: entry.provider.0,
                    model_id: entry.model_id.0,
                };
                SummaryEntry::of(entry.id, entry.parent_id, entry.timestamp, kind)
            }
            "compaction" => {
                let entry = SummaryCompaction::deserialize(rest)?;
                SummaryEntry::of(
                    entry.id,
                    entry.parent_id,
                    entry.timestamp,
                    SummaryKind::Compaction,
                )
            }
            "branch_summary" => {
                let entry = SummaryBranchSummary::deserialize(rest)?;
                SummaryEntry::of(
                    entry.id,
                    entry.parent_id,
                    entry.timestamp,
                    SummaryKind::Other,
                )
            }
            "custom" => {
                let entry = SummaryCustom::deserialize(rest)?;
                let kind = SummaryKind::Custom {
                    custom_type: entry.custom_type.0,
                    data: entry.data,
                };
                SummaryEntry::of(entry.id, entry.parent_id, entry.timestamp, kind)
            }
            "custom_message" => {
                let entry = SummaryCustomMessage::deserialize(rest)?;
                SummaryEntry::of(
                    entry.id,
                    entry.parent_id,
                    entry.timestamp,
                    SummaryKind::Other,
                )
            }
            "label" => {
                let entry = SummaryLabel::deserialize(rest)?;
                SummaryEntry::of(
                    entry.id,
                    entry.parent_id,
                    entry.timestamp,
                    SummaryKind::Other,
                )
            }
            "session_info" => {
                let entry = SummarySessionInfo::deserialize(rest)?;
                let kind = SummaryKind::SessionInfo(kept(entry.name));
                SummaryEntry::of(entry.id, entry.parent_id, entry.timestamp, kind)
            }
            _ => return Err(declined()),
        })
    }
}

/// A message as the summary reads it.
enum SummaryMessage<'a> {
    User,
    Assistant(SummaryAssistant<'a>),
    ToolResult,
}

impl<'de: 'a, 'a> TaggedRecord<'de> for SummaryMessage<'a> {
    const TAG: &'static str = "role";
    const WHAT: &'static str = "a message";

    fn pick<A: MapAccess<'de>>(
        role: &str,
        rest: MapAccessDeserializer<A>,
    ) -> Result<Self, A::Error> {
        Ok(match role {
            "user" => {
                SummaryUser::deserialize(rest)?;
                SummaryMessage::User
            }
            "assistant" => SummaryMessage::Assistant(SummaryAssistant::deserialize(rest)?),
            "toolResult" => {
                SummaryToolResult::deserialize(rest)?;
                SummaryMessage::ToolResult
            }
            _ => return Err(declined()),
        })
    }
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct SummaryUser {
    #[expect(dead_code, reason = "checked, not read")]
    content: SkippedContent,
    #[expect(dead_code, reason = "checked, not read")]
    timestamp: i64,
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct SummaryAssistant<'a> {
    #[expect(dead_code, reason = "checked, not read")]
    content: SkippedBlocks<SummaryAssistantBlock>,
    #[expect(dead_code, reason = "checked, not read")]
    api: Unread,
    #[serde(borrow)]
    provider: Kept<'a>,
    #[serde(borrow)]
    model: Kept<'a>,
    #[serde(default)]
    usage: Usage,
    stop_reason: StopReason,
    #[expect(dead_code, reason = "checked, not read")]
    timestamp: i64,
    #[serde(default, borrow)]
    error_message: Option<Kept<'a>>,
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct SummaryToolResult {
    #[expect(dead_code, reason = "checked, not read")]
    tool_call_id: Unread,
    #[expect(dead_code, reason = "checked, not read")]
    tool_name: Unread,
    #[expect(dead_code, reason = "checked, not read")]
    content: SkippedBlocks<SummaryBlock>,
    #[serde(default)]
    #[expect(dead_code, reason = "checked, not read")]
    details: Option<SkippedPayload>,
    #[serde(default)]
    #[expect(dead_code, reason = "checked, not read")]
    is_error: bool,
    #[expect(dead_code, reason = "checked, not read")]
    timestamp: i64,
}

/// `content` of a user or custom message, checked as [`FastMessageContent`] reads it: a
/// string, or a list of blocks.
struct SkippedContent;

impl<'de> Deserialize<'de> for SkippedContent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ContentVisitor;

        impl<'de> Visitor<'de> for ContentVisitor {
            type Value = SkippedContent;

            fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
                formatter.write_str("a string or an array of blocks")
            }

            fn visit_str<E: de::Error>(self, _: &str) -> Result<SkippedContent, E> {
                Ok(SkippedContent)
            }

            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<SkippedContent, A::Error> {
                skip_blocks::<A, SummaryBlock>(seq).map(|()| SkippedContent)
            }
        }

        deserializer.deserialize_any(ContentVisitor)
    }
}

/// A list of blocks of the kind `T`, each checked and none kept.
struct SkippedBlocks<T>(std::marker::PhantomData<T>);

impl<'de, T: TaggedRecord<'de>> Deserialize<'de> for SkippedBlocks<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct BlocksVisitor<T>(std::marker::PhantomData<T>);

        impl<'de, T: TaggedRecord<'de>> Visitor<'de> for BlocksVisitor<T> {
            type Value = SkippedBlocks<T>;

            fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
                formatter.write_str("an array of blocks")
            }

            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<SkippedBlocks<T>, A::Error> {
                skip_blocks::<A, T>(seq).map(|()| SkippedBlocks(std::marker::PhantomData))
            }
        }

        deserializer.deserialize_seq(BlocksVisitor(std::marker::PhantomData))
    }
}

fn skip_blocks<'de, A: SeqAccess<'de>, T: TaggedRecord<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<Tagged<T>>()?.is_some() {}
    Ok(())
}

/// A block of a user message, a tool result or a custom message, checked as
/// [`FastContentBlock`] reads it.
struct SummaryBlock;

impl<'de> TaggedRecord<'de> for SummaryBlock {
    const TAG: &'static str = "type";
    const WHAT: &'static str = "a content block";

    fn pick<A: MapAccess<'de>>(
        kind: &str,
        rest: MapAccessDeserializer<A>,
    ) -> Result<Self, A::Error> {
        match kind {
            "text" => SummaryText::deserialize(rest).map(|_| SummaryBlock),
            "image" => SummaryImage::deserialize(rest).map(|_| SummaryBlock),
            _ => Err(declined()),
        }
    }
}

/// A block of an assistant message, checked as [`FastAssistantContent`] reads it.
struct SummaryAssistantBlock;

impl<'de> TaggedRecord<'de> for SummaryAssistantBlock {
    const TAG: &'static str = "type";
    const WHAT: &'static str = "an assistant content block";

    fn pick<A: MapAccess<'de>>(
        kind: &str,
        rest: MapAccessDeserializer<A>,
    ) -> Result<Self, A::Error> {
        match kind {
            "text" => SummaryText::deserialize(rest).map(|_| SummaryAssistantBlock),
            "thinking" => SummaryThinking::deserialize(rest).map(|_| SummaryAssistantBlock),
            "toolCall" => SummaryToolCall::deserialize(rest).map(|_| SummaryAssistantBlock),
            _ => Err(declined()),
        }
    }
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct SummaryText {
    #[expect(dead_code, reason = "checked, not read")]
    text: SkippedText,
    #[serde(default)]
    #[expect(dead_code, reason = "checked, not read")]
    text_signature: Option<Unread>,
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct SummaryThinking {
    #[expect(dead_code, reason = "checked, not read")]
    thinking: SkippedText,
    #[serde(default)]
    #[expect(dead_code, reason = "checked, not read")]
    thinking_signature: Option<SkippedText>,
    #[serde(default)]
    #[expect(dead_code, reason = "checked, not read")]
    redacted: Option<bool>,
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct SummaryToolCall {
    #[expect(dead_code, reason = "checked, not read")]
    id: Unread,
    #[expect(dead_code, reason = "checked, not read")]
    name: Unread,
    #[expect(dead_code, reason = "checked, not read")]
    arguments: SkippedPayload,
    #[serde(default)]
    #[expect(dead_code, reason = "checked, not read")]
    thought_signature: Option<Unread>,
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct SummaryImage {
    #[expect(dead_code, reason = "checked, not read")]
    data: SkippedText,
    #[expect(dead_code, reason = "checked, not read")]
    mime_type: Unread,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{Line, parse_value};

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

    /// The summary's reader on `line` against the entry's reader: it takes nothing the
    /// entry's reader declines, and what it takes it reads as that entry says.
    fn check_summary_reader(line: &str) -> bool {
        let Some(read) = summary_entry(line) else {
            return false;
        };
        let whole = parse_entry_for_summary(line);
        assert!(
            whole.is_some(),
            "taken by the summary's reader only: {line}"
        );
        if let Some(whole) = whole {
            assert_eq!(read.facts(), crate::summary::facts(&whole), "{line}");
        }
        true
    }

    #[test]
    fn the_header_reader_agrees_with_the_general_one() {
        use crate::parse::parse_line;
        use crate::record::Line;
        let plain = r#"{"type":"session","version":3,"id":"0198-a","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w \"x\"","parentSession":"/s/p.jsonl"}"#;
        let lines = [
            plain,
            r#"{"type":"session","id":"s","timestamp":"t"}"#,
            r#"{"version":2,"type":"session","id":"s","timestamp":"t","cwd":null,"parentSession":null}"#,
            r#"{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/w","extra":1}"#,
            r#"{"type":"session","version":3,"id":"s","id":"t","timestamp":"t","cwd":"/w"}"#,
            r#"{"type":"session","version":3.0,"id":"s","timestamp":"t","cwd":"/w"}"#,
            r#"{"type":"session","version":-3,"id":"s","timestamp":"t","cwd":"/w"}"#,
            r#"{"type":"message","id":"s","timestamp":"t","cwd":"/w"}"#,
            r#"{"type":"session","version":3,"timestamp":"t","cwd":"/w"}"#,
            r#"{"type":"session","version":3,"id":7,"timestamp":"t","cwd":"/w"}"#,
            r#"{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/w"} x"#,
        ];
        assert!(parse_header(plain).is_some());
        let mut changed_lines = Vec::new();
        for position in 0..plain.len() {
            for replacement in [b'"', b'1', b'{', b'}', b' ', b'x', b'\\', b'n', b','] {
                let mut changed = plain.as_bytes().to_vec();
                changed[position] = replacement;
                changed_lines.extend(String::from_utf8(changed));
            }
        }
        for line in lines
            .iter()
            .copied()
            .chain(changed_lines.iter().map(String::as_str))
        {
            if let Some(header) = parse_header(line) {
                match parse_line(line) {
                    Ok(Line::Header(general)) => assert_eq!(header, general, "{line}"),
                    other => panic!("taken by the header reader only: {line}: {other:?}"),
                }
            }
        }
    }

    #[test]
    fn the_summary_reader_reads_what_the_entry_says() {
        for line in super::tests::PLAIN {
            assert!(check_summary_reader(line), "declined: {line}");
        }
        for line in super::tests::DECLINED {
            assert!(!check_summary_reader(line), "taken: {line}");
        }
        // Escaped strings are read (and kept where the summary reads them), not declined.
        for line in [
            r#"{"type":"session_info","id":"a\u0062","parentId":"\"p\"","timestamp":"t\n","name":" caf\u00e9 "}"#,
            r#"{"type":"model_change","id":"1","parentId":null,"timestamp":"t","provider":"p\/q","modelId":"m\u0020"}"#,
            r#"{"type":"message","id":"1","parentId":null,"timestamp":"t","message":{"role":"assistant","content":[{"type":"toolCall","id":"c\"","name":"n","arguments":{"x":"\n"}}],"api":"a","provider":"p","model":"m","usage":{"input":3,"other":[1]},"stopReason":"aborted","timestamp":2,"errorMessage":"bad \"thing\""}}"#,
            r#"{"type":"custom","customType":"pincer.codex-cli","data":{"sessionId":"x","sessionId":"y\u0021"},"id":"1","parentId":null,"timestamp":"t"}"#,
        ] {
            assert!(check_summary_reader(line), "declined: {line}");
        }
        // Every line cut short anywhere, and with each byte changed, too.
        for line in super::tests::PLAIN {
            for end in 0..line.len() {
                if let Some(cut) = line.get(..end) {
                    assert!(!check_summary_reader(cut), "{cut}");
                }
            }
            let bytes = line.as_bytes();
            for position in 0..bytes.len() {
                for replacement in [b'"', b'1', b'{', b']', b' ', b'x', b'\\', b'n'] {
                    let mut changed = bytes.to_vec();
                    changed[position] = replacement;
                    if let Ok(changed) = String::from_utf8(changed) {
                        check_summary_reader(&changed);
                    }
                }
            }
        }
    }

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
