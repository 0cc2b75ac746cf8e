//! The records of a pi session file, format version 3: one header line, then one entry per line.
//!
//! The shapes follow pi's own code, not only its docs: `session-manager.ts` of
//! `@mariozechner/pi-coding-agent` for entries and `types.ts` of `@mariozechner/pi-ai` for
//! messages (checked against pi 0.73.1; the format is described in pi's `docs/session-format.md`).
//!
//! Invariants this module keeps, because pi and OpenClaw read the same files:
//! - Fields are written in the order pi writes them, so a line pi wrote serializes back to the
//!   identical bytes. That order is not always `type, id, parentId, timestamp, …`: pi builds
//!   `custom` and `custom_message` entries with their payload first, and an assistant message gets
//!   `errorMessage` after `timestamp` (providers add it when the stream fails).
//! - Nothing is lost: unknown fields land in each record's `extra` map and are written back at the
//!   end; unknown entry types, message roles and content blocks are kept verbatim as JSON values.
//! - Optional fields that were absent stay absent, while `parentId` is always written (`null` for a
//!   root), as pi does. `details`/`data` that were an explicit `null` stay `null`.
//! - [`to_line`] formats numbers the way JavaScript's `JSON.stringify` does (`0`, not `0.0`;
//!   `1e-7`, `0.000001`), so costs survive a rewrite byte for byte, and escapes U+2028/U+2029 so
//!   that no line-oriented reader ever sees a line break inside a record.
//!
//! Entry structs serialize their fields only; the `type` (or `role`) tag belongs to the enclosing
//! enum ([`Entry`], [`AgentMessage`], [`AssistantContent`], [`ContentBlock`]). Serialize an entry
//! through [`Entry`], never a bare `MessageEntry`.

use std::io;

use serde::de::{DeserializeOwned, Error as _};
use serde::ser::SerializeMap as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::conversation;

/// The format version pincer writes and migrates older files to.
pub const CURRENT_VERSION: u32 = 3;

/// Why a line could not be read or written. Each variant keeps serde's own message.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// The line is not JSON at all (a torn append, or a foreign file).
    #[error("not valid JSON: {0}")]
    Syntax(#[source] serde_json::Error),
    /// The line is JSON but not an object with a string `type`, so it is no session record.
    #[error("not a session record: expected a JSON object with a string \"type\" field")]
    MissingType,
    /// A record of a known type lacks a field or has one of the wrong shape.
    #[error("invalid \"{kind}\" record: {source}")]
    Invalid {
        kind: String,
        #[source]
        source: serde_json::Error,
    },
    /// A value could not be turned into JSON (a map with non-string keys, say).
    #[error("cannot serialize session record: {0}")]
    Serialize(#[source] serde_json::Error),
}

// ---------------------------------------------------------------------------------------------
// Header

/// Line 1 of every session file: `{"type":"session","version":3,"id":…,"timestamp":…,"cwd":…}`.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionHeader {
    /// Absent in version 1 files.
    pub version: Option<u32>,
    /// The session id (a UUID; pi uses v7).
    pub id: String,
    /// ISO 8601 creation time.
    pub timestamp: String,
    /// The directory the session was started in.
    pub cwd: String,
    /// Path of the session file this one was forked or branched from.
    pub parent_session: Option<String>,
    /// Fields pincer does not know, written back after the known ones.
    pub extra: Map<String, Value>,
}

impl SessionHeader {
    /// A current header of the session `id` in `/work`, made now: for tests.
    #[cfg(test)]
    pub fn for_test(id: &str) -> SessionHeader {
        SessionHeader {
            version: Some(CURRENT_VERSION),
            id: id.to_owned(),
            timestamp: now_iso(),
            cwd: "/work".to_owned(),
            parent_session: None,
            extra: serde_json::Map::new(),
        }
    }
}

impl Serialize for SessionHeader {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // Written by hand because the `type` tag must come first, before `version`.
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("type", "session")?;
        if let Some(version) = self.version {
            map.serialize_entry("version", &version)?;
        }
        map.serialize_entry("id", &self.id)?;
        map.serialize_entry("timestamp", &self.timestamp)?;
        map.serialize_entry("cwd", &self.cwd)?;
        if let Some(parent_session) = &self.parent_session {
            map.serialize_entry("parentSession", parent_session)?;
        }
        for (key, value) in &self.extra {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for SessionHeader {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        header_from_value(value).map_err(D::Error::custom)
    }
}

fn header_from_value(value: Value) -> Result<SessionHeader, RecordError> {
    let invalid = |source| RecordError::Invalid {
        kind: "session".to_owned(),
        source,
    };
    let Value::Object(mut map) = value else {
        return Err(RecordError::MissingType);
    };
    match map.shift_remove("type") {
        Some(Value::String(kind)) if kind == "session" => {}
        _ => {
            return Err(invalid(serde_json::Error::custom(
                "expected \"type\":\"session\"",
            )));
        }
    }
    let version = take_optional(&mut map, "version").map_err(invalid)?;
    let id = take_required(&mut map, "id").map_err(invalid)?;
    let timestamp = take_required(&mut map, "timestamp").map_err(invalid)?;
    // pi tolerates headers without a cwd (very old files) and shows "" for them.
    let cwd = take_optional(&mut map, "cwd")
        .map_err(invalid)?
        .unwrap_or_default();
    let parent_session = take_optional(&mut map, "parentSession").map_err(invalid)?;
    Ok(SessionHeader {
        version,
        id,
        timestamp,
        cwd,
        parent_session,
        extra: map,
    })
}

fn take_required<T: DeserializeOwned>(
    map: &mut Map<String, Value>,
    key: &'static str,
) -> Result<T, serde_json::Error> {
    let value = map
        .shift_remove(key)
        .ok_or_else(|| serde_json::Error::custom(format!("missing field `{key}`")))?;
    serde_json::from_value(value)
}

fn take_optional<T: DeserializeOwned>(
    map: &mut Map<String, Value>,
    key: &'static str,
) -> Result<Option<T>, serde_json::Error> {
    match map.shift_remove(key) {
        None | Some(Value::Null) => Ok(None),
        Some(value) => serde_json::from_value(value).map(Some),
    }
}

// ---------------------------------------------------------------------------------------------
// Entries

/// Every line after the header. The variant is chosen by the `type` field.
#[derive(Debug, Clone, PartialEq)]
pub enum Entry {
    /// `message`: a user, assistant, tool result or coding-agent message.
    Message(MessageEntry),
    /// `thinking_level_change`: sets the reasoning level from here on.
    ThinkingLevelChange(ThinkingLevelChangeEntry),
    /// `model_change`: sets the provider and model from here on.
    ModelChange(ModelChangeEntry),
    /// `compaction`: replaces the history before `first_kept_entry_id` by a summary.
    Compaction(CompactionEntry),
    /// `branch_summary`: what happened on a branch the conversation came back from.
    BranchSummary(BranchSummaryEntry),
    /// `custom`: extension state, never sent to the model (pincer's own use `pincer.*` types).
    Custom(CustomEntry),
    /// `custom_message`: extension text or images sent to the model as a user message.
    CustomMessage(CustomMessageEntry),
    /// `label`: a bookmark on another entry (an absent label clears it).
    Label(LabelEntry),
    /// `session_info`: the session's display name.
    SessionInfo(SessionInfoEntry),
    /// Any other `type`, kept verbatim so a newer pi's entries survive pincer.
    Unknown(Value),
}

/// `{"type":"message","id","parentId","timestamp","message"}`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageEntry {
    pub id: String,
    pub parent_id: Option<String>,
    pub timestamp: String,
    pub message: AgentMessage,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `{"type":"thinking_level_change","id","parentId","timestamp","thinkingLevel"}`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThinkingLevelChangeEntry {
    pub id: String,
    pub parent_id: Option<String>,
    pub timestamp: String,
    /// `off`, `minimal`, `low`, `medium`, `high` or `xhigh` in pi today; kept as text.
    pub thinking_level: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `{"type":"model_change","id","parentId","timestamp","provider","modelId"}`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelChangeEntry {
    pub id: String,
    pub parent_id: Option<String>,
    pub timestamp: String,
    pub provider: String,
    pub model_id: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `{"type":"compaction","id","parentId","timestamp","summary","firstKeptEntryId","tokensBefore",
/// "details"?,"fromHook"?}`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactionEntry {
    pub id: String,
    pub parent_id: Option<String>,
    pub timestamp: String,
    pub summary: String,
    /// Defaults to "" (matches nothing, so nothing is kept) when an extension or a v1 migration
    /// left it out, rather than refusing the whole file.
    #[serde(default)]
    pub first_kept_entry_id: String,
    #[serde(default)]
    pub tokens_before: u64,
    /// pi's default compaction stores `{readFiles, modifiedFiles}` here.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub details: Option<Value>,
    /// `true` when an extension wrote the summary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_hook: Option<bool>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `{"type":"branch_summary","id","parentId","timestamp","fromId","summary","details"?,"fromHook"?}`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BranchSummaryEntry {
    pub id: String,
    pub parent_id: Option<String>,
    pub timestamp: String,
    /// The entry the branch was left from; `"root"` when it started before the first entry.
    pub from_id: String,
    pub summary: String,
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub details: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_hook: Option<bool>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `{"type":"custom","customType","data"?,"id","parentId","timestamp"}`: pi writes the payload
/// before the id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CustomEntry {
    pub custom_type: String,
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub data: Option<Value>,
    pub id: String,
    pub parent_id: Option<String>,
    pub timestamp: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `{"type":"custom_message","customType","content","display","details"?,"id","parentId",
/// "timestamp"}`: pi writes the payload before the id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CustomMessageEntry {
    pub custom_type: String,
    pub content: MessageContent,
    /// Whether pi's TUI shows it. Extensions may leave it out; that reads as `false`.
    #[serde(default)]
    pub display: bool,
    /// Extension metadata, not sent to the model.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub details: Option<Value>,
    pub id: String,
    pub parent_id: Option<String>,
    pub timestamp: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `{"type":"label","id","parentId","timestamp","targetId","label"?}`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LabelEntry {
    pub id: String,
    pub parent_id: Option<String>,
    pub timestamp: String,
    pub target_id: String,
    /// Absent when the label is cleared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `{"type":"session_info","id","parentId","timestamp","name"?}`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionInfoEntry {
    pub id: String,
    pub parent_id: Option<String>,
    pub timestamp: String,
    /// The latest `session_info` names the session; an empty or absent name clears it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Keeps an explicit `null` as `Some(Value::Null)`; `#[serde(default)]` makes a missing field
/// `None`. Plain `Option<Value>` would turn `null` into `None` and drop the field on rewrite.
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

/// The tag goes first, then the entry's fields in declaration order.
#[derive(Serialize)]
#[serde(tag = "type")]
enum EntryRef<'a> {
    #[serde(rename = "message")]
    Message(&'a MessageEntry),
    #[serde(rename = "thinking_level_change")]
    ThinkingLevelChange(&'a ThinkingLevelChangeEntry),
    #[serde(rename = "model_change")]
    ModelChange(&'a ModelChangeEntry),
    #[serde(rename = "compaction")]
    Compaction(&'a CompactionEntry),
    #[serde(rename = "branch_summary")]
    BranchSummary(&'a BranchSummaryEntry),
    #[serde(rename = "custom")]
    Custom(&'a CustomEntry),
    #[serde(rename = "custom_message")]
    CustomMessage(&'a CustomMessageEntry),
    #[serde(rename = "label")]
    Label(&'a LabelEntry),
    #[serde(rename = "session_info")]
    SessionInfo(&'a SessionInfoEntry),
}

impl Serialize for Entry {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Entry::Message(entry) => EntryRef::Message(entry).serialize(serializer),
            Entry::ThinkingLevelChange(entry) => {
                EntryRef::ThinkingLevelChange(entry).serialize(serializer)
            }
            Entry::ModelChange(entry) => EntryRef::ModelChange(entry).serialize(serializer),
            Entry::Compaction(entry) => EntryRef::Compaction(entry).serialize(serializer),
            Entry::BranchSummary(entry) => EntryRef::BranchSummary(entry).serialize(serializer),
            Entry::Custom(entry) => EntryRef::Custom(entry).serialize(serializer),
            Entry::CustomMessage(entry) => EntryRef::CustomMessage(entry).serialize(serializer),
            Entry::Label(entry) => EntryRef::Label(entry).serialize(serializer),
            Entry::SessionInfo(entry) => EntryRef::SessionInfo(entry).serialize(serializer),
            Entry::Unknown(value) => value.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for Entry {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Entry::from_value(value).map_err(D::Error::custom)
    }
}

impl Entry {
    /// Types a parsed line (after [`super::migrate::migrate`] ran on it).
    pub fn from_value(value: Value) -> Result<Self, RecordError> {
        let Some(kind) = value.get("type").and_then(Value::as_str) else {
            return Err(RecordError::MissingType);
        };
        Ok(match kind {
            "message" => Entry::Message(typed(value, "message")?),
            "thinking_level_change" => {
                Entry::ThinkingLevelChange(typed(value, "thinking_level_change")?)
            }
            "model_change" => Entry::ModelChange(typed(value, "model_change")?),
            "compaction" => Entry::Compaction(typed(value, "compaction")?),
            "branch_summary" => Entry::BranchSummary(typed(value, "branch_summary")?),
            "custom" => Entry::Custom(typed(value, "custom")?),
            "custom_message" => Entry::CustomMessage(typed(value, "custom_message")?),
            "label" => Entry::Label(typed(value, "label")?),
            "session_info" => Entry::SessionInfo(typed(value, "session_info")?),
            _ => Entry::Unknown(value),
        })
    }

    /// The entry id (8 hex characters when pi or pincer wrote it); "" for an unknown entry
    /// without one.
    pub fn id(&self) -> &str {
        match self {
            Entry::Message(entry) => &entry.id,
            Entry::ThinkingLevelChange(entry) => &entry.id,
            Entry::ModelChange(entry) => &entry.id,
            Entry::Compaction(entry) => &entry.id,
            Entry::BranchSummary(entry) => &entry.id,
            Entry::Custom(entry) => &entry.id,
            Entry::CustomMessage(entry) => &entry.id,
            Entry::Label(entry) => &entry.id,
            Entry::SessionInfo(entry) => &entry.id,
            Entry::Unknown(value) => value.get("id").and_then(Value::as_str).unwrap_or(""),
        }
    }

    /// The parent entry, `None` for a root.
    pub fn parent_id(&self) -> Option<&str> {
        match self {
            Entry::Message(entry) => entry.parent_id.as_deref(),
            Entry::ThinkingLevelChange(entry) => entry.parent_id.as_deref(),
            Entry::ModelChange(entry) => entry.parent_id.as_deref(),
            Entry::Compaction(entry) => entry.parent_id.as_deref(),
            Entry::BranchSummary(entry) => entry.parent_id.as_deref(),
            Entry::Custom(entry) => entry.parent_id.as_deref(),
            Entry::CustomMessage(entry) => entry.parent_id.as_deref(),
            Entry::Label(entry) => entry.parent_id.as_deref(),
            Entry::SessionInfo(entry) => entry.parent_id.as_deref(),
            Entry::Unknown(value) => value.get("parentId").and_then(Value::as_str),
        }
    }

    /// The ISO 8601 time the entry was appended ("" for an unknown entry without one).
    pub fn timestamp(&self) -> &str {
        match self {
            Entry::Message(entry) => &entry.timestamp,
            Entry::ThinkingLevelChange(entry) => &entry.timestamp,
            Entry::ModelChange(entry) => &entry.timestamp,
            Entry::Compaction(entry) => &entry.timestamp,
            Entry::BranchSummary(entry) => &entry.timestamp,
            Entry::Custom(entry) => &entry.timestamp,
            Entry::CustomMessage(entry) => &entry.timestamp,
            Entry::Label(entry) => &entry.timestamp,
            Entry::SessionInfo(entry) => &entry.timestamp,
            Entry::Unknown(value) => value.get("timestamp").and_then(Value::as_str).unwrap_or(""),
        }
    }

    /// The `type` string as it appears in the file.
    pub fn kind(&self) -> &str {
        match self {
            Entry::Message(_) => "message",
            Entry::ThinkingLevelChange(_) => "thinking_level_change",
            Entry::ModelChange(_) => "model_change",
            Entry::Compaction(_) => "compaction",
            Entry::BranchSummary(_) => "branch_summary",
            Entry::Custom(_) => "custom",
            Entry::CustomMessage(_) => "custom_message",
            Entry::Label(_) => "label",
            Entry::SessionInfo(_) => "session_info",
            Entry::Unknown(value) => value.get("type").and_then(Value::as_str).unwrap_or(""),
        }
    }
}

/// Deserializes a tagged object into the struct for its tag, minus the tag itself (which would
/// otherwise be swallowed by the struct's `extra` map and written twice).
fn typed<T: DeserializeOwned>(value: Value, kind: &str) -> Result<T, RecordError> {
    serde_json::from_value(without_key(value, "type")).map_err(|source| RecordError::Invalid {
        kind: kind.to_owned(),
        source,
    })
}

/// Like [`typed`], for the nested records (messages, content blocks) read inside a serde
/// deserializer: the error names the part, since serde_json cannot point into a `Value`.
fn typed_part<T: DeserializeOwned, E: serde::de::Error>(
    value: Value,
    tag: &str,
    what: &str,
) -> Result<T, E> {
    serde_json::from_value(without_key(value, tag))
        .map_err(|error| E::custom(format!("{what}: {error}")))
}

fn without_key(value: Value, key: &str) -> Value {
    match value {
        Value::Object(mut map) => {
            map.shift_remove(key);
            Value::Object(map)
        }
        other => other,
    }
}

// ---------------------------------------------------------------------------------------------
// Lines

/// One line of a session file.
#[derive(Debug, Clone, PartialEq)]
#[expect(
    clippy::large_enum_variant,
    reason = "a Line is unpacked right after parsing and nearly every line is an entry; boxing \
              would cost an allocation per line to shrink a value nobody keeps"
)]
pub enum Line {
    Header(SessionHeader),
    Entry(Entry),
}

impl Line {
    /// Types a parsed line: `"type":"session"` is the header, anything else an entry.
    pub fn from_value(value: Value) -> Result<Self, RecordError> {
        match value.get("type").and_then(Value::as_str) {
            Some("session") => header_from_value(value).map(Line::Header),
            _ => Entry::from_value(value).map(Line::Entry),
        }
    }
}

impl Serialize for Line {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Line::Header(header) => header.serialize(serializer),
            Line::Entry(entry) => entry.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for Line {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Line::from_value(value).map_err(D::Error::custom)
    }
}

/// Parses one line into raw JSON, for [`super::migrate::migrate`] and other untyped work. Floats
/// are exact, so writing the value back with [`to_line`] reproduces the line.
pub fn parse_value(line: &str) -> Result<Value, RecordError> {
    // serde_json's `float_roundtrip` feature (on in Cargo.toml) reads every float exactly, so
    // pi's 17-digit costs such as `0.014499000000000001` survive a rewrite unchanged.
    serde_json::from_str(line).map_err(RecordError::Syntax)
}

/// Serializes a record as one complete line: JSON, then `'\n'`. Numbers are written as
/// JavaScript writes them and U+2028/U+2029 are escaped, so the result holds exactly one line
/// break, at the end, and a line pi wrote comes back byte for byte.
pub fn to_line<T: Serialize + ?Sized>(value: &T) -> Result<String, RecordError> {
    let mut buffer = Vec::with_capacity(256);
    let mut serializer = serde_json::Serializer::with_formatter(&mut buffer, JavaScriptFormatter);
    value
        .serialize(&mut serializer)
        .map_err(RecordError::Serialize)?;
    buffer.push(b'\n');
    // serde_json only ever writes UTF-8; the lossy branch cannot be taken.
    Ok(String::from_utf8(buffer)
        .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned()))
}

/// serde_json's compact output with two changes that make it match `JSON.stringify` where it
/// matters for sessions (string escapes of control characters already match).
struct JavaScriptFormatter;

impl serde_json::ser::Formatter for JavaScriptFormatter {
    fn write_f64<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: f64) -> io::Result<()> {
        writer.write_all(javascript_number(value).as_bytes())
    }

    fn write_f32<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: f32) -> io::Result<()> {
        self.write_f64(writer, f64::from(value))
    }

    fn write_string_fragment<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        // JSON allows U+2028/U+2029 and NEL (U+0085) raw, but JavaScript line readers, Python's
        // `str.splitlines` and some editors treat them as line breaks; escaping keeps every record
        // on exactly one line for all of them (SPEC §5.3).
        let mut written = 0;
        for (index, character) in fragment.char_indices() {
            let escape = match character {
                '\u{2028}' => "\\u2028",
                '\u{2029}' => "\\u2029",
                '\u{0085}' => "\\u0085",
                _ => continue,
            };
            writer.write_all(&fragment.as_bytes()[written..index])?;
            writer.write_all(escape.as_bytes())?;
            written = index + character.len_utf8();
        }
        writer.write_all(&fragment.as_bytes()[written..])
    }
}

/// ECMAScript `Number::toString` for a finite double: the shortest digits that round-trip, the
/// closest of them to the exact value (std's `{:e}` sometimes picks another, e.g. `…715.13` for
/// `…715.12`; serde_json's own formatter, ryu, picks the same as JavaScript), laid out as plain
/// decimal when the decimal point falls within -6..=21 digits and as `d.ddde±x` otherwise.
/// Integral values carry no `.0`.
fn javascript_number(value: f64) -> String {
    if !value.is_finite() {
        // JSON.stringify writes null for NaN and infinities (serde_json never passes them here).
        return "null".to_owned();
    }
    if value == 0.0 {
        return "0".to_owned();
    }
    let Ok(shortest) = serde_json::to_string(&value.abs()) else {
        return value.to_string();
    };
    let Some((digits, point)) = decimal_digits(&shortest) else {
        return value.to_string();
    };
    let digit_count = digits.len() as i64;
    let mut text = String::with_capacity(digits.len() + 8);
    if value < 0.0 {
        text.push('-');
    }
    if digit_count <= point && point <= 21 {
        text.push_str(&digits);
        text.extend(std::iter::repeat_n('0', (point - digit_count) as usize));
    } else if 0 < point && point <= 21 {
        let (whole, fraction) = digits.split_at(point as usize);
        text.push_str(whole);
        text.push('.');
        text.push_str(fraction);
    } else if -6 < point && point <= 0 {
        text.push_str("0.");
        text.extend(std::iter::repeat_n('0', (-point) as usize));
        text.push_str(&digits);
    } else {
        let (first, rest) = digits.split_at(1);
        text.push_str(first);
        if !rest.is_empty() {
            text.push('.');
            text.push_str(rest);
        }
        text.push('e');
        text.push(if point > 0 { '+' } else { '-' });
        text.push_str(&(point - 1).abs().to_string());
    }
    text
}

/// Splits a positive decimal literal (`123.45`, `0.001`, `1.5e-7`, `1e21`) into its significant
/// digits and the position of the decimal point relative to them (ECMAScript's k digits and n):
/// the value is `0.DIGITS × 10^point`.
fn decimal_digits(literal: &str) -> Option<(String, i64)> {
    let (mantissa, exponent) = match literal.split_once(['e', 'E']) {
        Some((mantissa, exponent)) => (mantissa, exponent.parse::<i64>().ok()?),
        None => (literal, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all_digits = format!("{whole}{fraction}");
    let leading_zeros = all_digits.len() - all_digits.trim_start_matches('0').len();
    let digits = all_digits.trim_matches('0');
    if digits.is_empty() || !digits.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    let point = whole.len() as i64 + exponent - leading_zeros as i64;
    Some((digits.to_owned(), point))
}

// ---------------------------------------------------------------------------------------------
// Messages

/// The `message` of a `message` entry, chosen by `role`.
#[derive(Debug, Clone, PartialEq)]
pub enum AgentMessage {
    User(UserMessage),
    Assistant(AssistantMessage),
    ToolResult(ToolResultMessage),
    /// pi's coding-agent roles (`bashExecution`, `custom`, `branchSummary`, `compactionSummary`)
    /// and anything newer, kept verbatim.
    Other(Value),
}

/// `{"role":"user","content","timestamp"}`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UserMessage {
    pub content: MessageContent,
    /// Epoch milliseconds.
    pub timestamp: i64,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `{"role":"assistant","content","api","provider","model","usage","stopReason","timestamp",
/// …,"errorMessage"?}`. pi-ai's providers add `responseId` while streaming and `errorMessage`
/// on failure, both after `timestamp`; `responseId` and other extras stay in `extra`, which is
/// written before `errorMessage` to keep that order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AssistantMessage {
    pub content: Vec<AssistantContent>,
    /// pi-ai's API name, e.g. `anthropic-messages`, `openai-responses`.
    pub api: String,
    pub provider: String,
    pub model: String,
    #[serde(default)]
    pub usage: Usage,
    pub stop_reason: StopReason,
    /// Epoch milliseconds.
    pub timestamp: i64,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_message: Option<String>,
}

/// `{"role":"toolResult","toolCallId","toolName","content","details"?,"isError","timestamp"}`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultMessage {
    pub tool_call_id: String,
    pub tool_name: String,
    pub content: Vec<ContentBlock>,
    /// Tool-specific metadata for UIs; not sent to the model.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub details: Option<Value>,
    #[serde(default)]
    pub is_error: bool,
    /// Epoch milliseconds.
    pub timestamp: i64,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Token counts of one assistant message. Missing counts read as 0 (older files lack some).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Usage {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    pub total_tokens: u64,
    pub cost: Cost,
    /// pincer's: the provider web searches the call ran; written only when there were some
    /// (pi has no such field and ignores it).
    #[serde(skip_serializing_if = "is_zero")]
    pub web_search_requests: u64,
}

/// Dollar cost of one assistant message, per token class.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Cost {
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
    /// pincer's: the web searches' cost (in `total` too); written only when not 0.
    #[serde(skip_serializing_if = "is_zero_cost")]
    pub web_search: f64,
    pub total: f64,
}

fn is_zero(count: &u64) -> bool {
    *count == 0
}

fn is_zero_cost(cost: &f64) -> bool {
    *cost == 0.0
}

/// Why the assistant stopped: the neutral vocabulary's reason, whose serde form is the file's.
pub use crate::conversation::StopReason;

/// The `content` of a user message or custom message: a plain string or a list of blocks.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum MessageContent {
    Text(String),
    Blocks(Vec<ContentBlock>),
}

impl<'de> Deserialize<'de> for MessageContent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // By hand for a useful error: untagged enums only say "did not match any variant".
        match Value::deserialize(deserializer)? {
            Value::String(text) => Ok(MessageContent::Text(text)),
            Value::Array(blocks) => serde_json::from_value(Value::Array(blocks))
                .map(MessageContent::Blocks)
                .map_err(D::Error::custom),
            other => Err(D::Error::custom(format!(
                "content must be a string or an array of blocks, found {other}"
            ))),
        }
    }
}

/// A block of user, tool result or custom message content.
#[derive(Debug, Clone, PartialEq)]
pub enum ContentBlock {
    Text(TextContent),
    Image(ImageContent),
    /// Any other block `type`, kept verbatim.
    Unknown(Value),
}

/// A block of assistant content.
#[derive(Debug, Clone, PartialEq)]
pub enum AssistantContent {
    Text(TextContent),
    Thinking(ThinkingContent),
    ToolCall(ToolCall),
    /// pincer's: a tool the provider ran itself (web search).
    ServerToolCall(ServerToolCallContent),
    /// Any other block `type`, kept verbatim.
    Unknown(Value),
}

/// `{"type":"text","text","textSignature"?,"citations"?}`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TextContent {
    pub text: String,
    /// Provider metadata that must be sent back with the text (OpenAI Responses item ids).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_signature: Option<String>,
    /// pincer's: the web sources the text cites (provider web search). pi does not write it and
    /// ignores it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub citations: Option<Vec<CitationContent>>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One of `citations`: `{"url","title"?,"citedText"?,"providerData"?}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CitationContent {
    #[serde(default)]
    pub url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cited_text: Option<String>,
    /// The provider's citation object, echoed back to it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_data: Option<Value>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// pincer's `{"type":"serverToolCall","id","name","arguments","results","error"?,
/// "providerData"?}`: a tool the provider ran on its side (web search), with what it found. pi
/// skips block types it does not know when it builds a request, so a pi that continues the
/// session simply does not send it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerToolCallContent {
    pub id: String,
    pub name: String,
    /// The query, as the provider states it.
    #[serde(default)]
    pub arguments: Value,
    /// The pages found: `{"url","title"?}`.
    #[serde(default)]
    pub results: Vec<WebResultContent>,
    /// The provider's error code when the search failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The provider's own record of the outcome, echoed back to it on later requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_data: Option<Value>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One of `results`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WebResultContent {
    #[serde(default)]
    pub url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `{"type":"thinking","thinking","thinkingSignature"?,"redacted"?}`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThinkingContent {
    pub thinking: String,
    /// Anthropic's signature (or the encrypted payload of redacted thinking); must be replayed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_signature: Option<String>,
    /// `true` when the provider redacted the reasoning; the payload is in the signature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redacted: Option<bool>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `{"type":"toolCall","id","name","arguments","thoughtSignature"?}`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    /// The parsed JSON arguments (an object in practice).
    pub arguments: Value,
    /// Gemini's thought signature, to be sent back with the call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thought_signature: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `{"type":"image","data","mimeType"}` with base64 `data`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageContent {
    pub data: String,
    pub mime_type: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Serialize)]
#[serde(tag = "role")]
enum MessageRef<'a> {
    #[serde(rename = "user")]
    User(&'a UserMessage),
    #[serde(rename = "assistant")]
    Assistant(&'a AssistantMessage),
    #[serde(rename = "toolResult")]
    ToolResult(&'a ToolResultMessage),
}

impl Serialize for AgentMessage {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            AgentMessage::User(message) => MessageRef::User(message).serialize(serializer),
            AgentMessage::Assistant(message) => {
                MessageRef::Assistant(message).serialize(serializer)
            }
            AgentMessage::ToolResult(message) => {
                MessageRef::ToolResult(message).serialize(serializer)
            }
            AgentMessage::Other(value) => value.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for AgentMessage {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        let role = value.get("role").and_then(Value::as_str);
        Ok(match role {
            Some("user") => AgentMessage::User(typed_part(value, "role", "user message")?),
            Some("assistant") => {
                AgentMessage::Assistant(typed_part(value, "role", "assistant message")?)
            }
            Some("toolResult") => {
                AgentMessage::ToolResult(typed_part(value, "role", "toolResult message")?)
            }
            _ => AgentMessage::Other(value),
        })
    }
}

impl AgentMessage {
    /// The `role` as written in the file ("" for a message without one).
    pub fn role(&self) -> &str {
        match self {
            AgentMessage::User(_) => "user",
            AgentMessage::Assistant(_) => "assistant",
            AgentMessage::ToolResult(_) => "toolResult",
            AgentMessage::Other(value) => value.get("role").and_then(Value::as_str).unwrap_or(""),
        }
    }
}

#[derive(Serialize)]
#[serde(tag = "type")]
enum ContentBlockRef<'a> {
    #[serde(rename = "text")]
    Text(&'a TextContent),
    #[serde(rename = "image")]
    Image(&'a ImageContent),
}

impl Serialize for ContentBlock {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            ContentBlock::Text(block) => ContentBlockRef::Text(block).serialize(serializer),
            ContentBlock::Image(block) => ContentBlockRef::Image(block).serialize(serializer),
            ContentBlock::Unknown(value) => value.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for ContentBlock {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        let block_type = value.get("type").and_then(Value::as_str);
        Ok(match block_type {
            Some("text") => ContentBlock::Text(typed_part(value, "type", "text block")?),
            Some("image") => ContentBlock::Image(typed_part(value, "type", "image block")?),
            _ => ContentBlock::Unknown(value),
        })
    }
}

#[derive(Serialize)]
#[serde(tag = "type")]
enum AssistantContentRef<'a> {
    #[serde(rename = "text")]
    Text(&'a TextContent),
    #[serde(rename = "thinking")]
    Thinking(&'a ThinkingContent),
    #[serde(rename = "toolCall")]
    ToolCall(&'a ToolCall),
    #[serde(rename = "serverToolCall")]
    ServerToolCall(&'a ServerToolCallContent),
}

impl Serialize for AssistantContent {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            AssistantContent::Text(block) => AssistantContentRef::Text(block).serialize(serializer),
            AssistantContent::Thinking(block) => {
                AssistantContentRef::Thinking(block).serialize(serializer)
            }
            AssistantContent::ToolCall(block) => {
                AssistantContentRef::ToolCall(block).serialize(serializer)
            }
            AssistantContent::ServerToolCall(block) => {
                AssistantContentRef::ServerToolCall(block).serialize(serializer)
            }
            AssistantContent::Unknown(value) => value.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for AssistantContent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        let block_type = value.get("type").and_then(Value::as_str);
        Ok(match block_type {
            Some("text") => AssistantContent::Text(typed_part(value, "type", "text block")?),
            Some("thinking") => {
                AssistantContent::Thinking(typed_part(value, "type", "thinking block")?)
            }
            Some("toolCall") => {
                AssistantContent::ToolCall(typed_part(value, "type", "toolCall block")?)
            }
            Some("serverToolCall") => {
                AssistantContent::ServerToolCall(typed_part(value, "type", "serverToolCall block")?)
            }
            _ => AssistantContent::Unknown(value),
        })
    }
}

// ---------------------------------------------------------------------------------------------
// The neutral vocabulary, to and from pi's message shapes

impl AgentMessage {
    /// The message as a model sees it, moved out of the record. `None` for pi's coding-agent
    /// roles, which the context rebuild turns into user messages first. Unknown blocks and
    /// fields stay behind: they are kept in the file, not sent.
    pub fn into_conversation(self) -> Option<conversation::Message> {
        Some(match self {
            AgentMessage::User(user) => conversation::Message::User(conversation::UserMessage {
                content: user.content.into_conversation(),
                timestamp: user.timestamp,
            }),
            AgentMessage::Assistant(assistant) => {
                conversation::Message::Assistant(assistant.into_conversation())
            }
            AgentMessage::ToolResult(result) => {
                conversation::Message::ToolResult(conversation::ToolResultMessage {
                    tool_call_id: result.tool_call_id,
                    tool_name: result.tool_name,
                    content: blocks_into_conversation(result.content),
                    details: result.details,
                    is_error: result.is_error,
                    timestamp: result.timestamp,
                })
            }
            AgentMessage::Other(_) => return None,
        })
    }
}

impl AssistantMessage {
    /// The neutral form (see [`AgentMessage::into_conversation`]).
    pub fn into_conversation(self) -> conversation::AssistantMessage {
        conversation::AssistantMessage {
            content: self
                .content
                .into_iter()
                .filter_map(|block| match block {
                    AssistantContent::Text(text) => {
                        Some(conversation::AssistantBlock::Text(text.into()))
                    }
                    AssistantContent::Thinking(thinking) => Some(
                        conversation::AssistantBlock::Thinking(conversation::ThinkingBlock {
                            thinking: thinking.thinking,
                            signature: thinking.thinking_signature,
                            redacted: thinking.redacted.unwrap_or(false),
                        }),
                    ),
                    AssistantContent::ToolCall(call) => Some(
                        conversation::AssistantBlock::ToolCall(conversation::ToolCall {
                            id: call.id,
                            name: call.name,
                            arguments: call.arguments,
                            thought_signature: call.thought_signature,
                        }),
                    ),
                    AssistantContent::ServerToolCall(server) => {
                        Some(conversation::AssistantBlock::ServerTool(server.into()))
                    }
                    AssistantContent::Unknown(_) => None,
                })
                .collect::<Vec<_>>()
                .into_boxed_slice()
                .into_vec(),
            api: self.api,
            provider: self.provider,
            model: self.model,
            usage: conversation::TokenUsage {
                input: self.usage.input,
                output: self.usage.output,
                cache_read: self.usage.cache_read,
                cache_write: self.usage.cache_write,
                web_search_requests: self.usage.web_search_requests,
                ..conversation::TokenUsage::default()
            },
            cost: conversation::Cost {
                input: self.usage.cost.input,
                output: self.usage.cost.output,
                cache_read: self.usage.cost.cache_read,
                cache_write: self.usage.cost.cache_write,
                web_search: self.usage.cost.web_search,
                total: self.usage.cost.total,
            },
            stop_reason: self.stop_reason,
            timestamp: self.timestamp,
            error_message: self.error_message,
        }
    }
}

impl MessageContent {
    fn into_conversation(self) -> conversation::MessageContent {
        match self {
            MessageContent::Text(text) => conversation::MessageContent::Text(text),
            MessageContent::Blocks(blocks) => {
                conversation::MessageContent::Blocks(blocks_into_conversation(blocks))
            }
        }
    }
}

fn blocks_into_conversation(blocks: Vec<ContentBlock>) -> Vec<conversation::ContentBlock> {
    blocks
        .into_iter()
        .filter_map(|block| match block {
            ContentBlock::Text(text) => Some(conversation::ContentBlock::Text(text.into())),
            ContentBlock::Image(image) => Some(conversation::ContentBlock::Image(
                conversation::ImageBlock {
                    data: image.data,
                    mime_type: image.mime_type,
                },
            )),
            ContentBlock::Unknown(_) => None,
        })
        .collect::<Vec<_>>()
        // Collected in place, the list would keep the room of the records' larger blocks.
        .into_boxed_slice()
        .into_vec()
}

impl From<TextContent> for conversation::TextBlock {
    fn from(text: TextContent) -> conversation::TextBlock {
        conversation::TextBlock {
            text: text.text,
            signature: text.text_signature,
            citations: text
                .citations
                .unwrap_or_default()
                .into_iter()
                .map(|citation| conversation::Citation {
                    url: citation.url,
                    title: citation.title,
                    cited_text: citation.cited_text,
                    payload: citation.provider_data,
                })
                .collect(),
        }
    }
}

impl From<&conversation::TextBlock> for TextContent {
    fn from(text: &conversation::TextBlock) -> TextContent {
        TextContent {
            text: text.text.clone(),
            text_signature: text.signature.clone(),
            citations: (!text.citations.is_empty()).then(|| {
                text.citations
                    .iter()
                    .map(|citation| CitationContent {
                        url: citation.url.clone(),
                        title: citation.title.clone(),
                        cited_text: citation.cited_text.clone(),
                        provider_data: citation.payload.clone(),
                        extra: Map::new(),
                    })
                    .collect()
            }),
            extra: Map::new(),
        }
    }
}

impl From<ServerToolCallContent> for conversation::ServerToolCall {
    fn from(server: ServerToolCallContent) -> conversation::ServerToolCall {
        conversation::ServerToolCall {
            id: server.id,
            name: server.name,
            input: server.arguments,
            results: server
                .results
                .into_iter()
                .map(|result| conversation::WebResult {
                    url: result.url,
                    title: result.title,
                })
                .collect(),
            error: server.error,
            payload: server.provider_data,
        }
    }
}

impl From<&conversation::ServerToolCall> for ServerToolCallContent {
    fn from(server: &conversation::ServerToolCall) -> ServerToolCallContent {
        ServerToolCallContent {
            id: server.id.clone(),
            name: server.name.clone(),
            arguments: server.input.clone(),
            results: server
                .results
                .iter()
                .map(|result| WebResultContent {
                    url: result.url.clone(),
                    title: result.title.clone(),
                    extra: Map::new(),
                })
                .collect(),
            error: server.error.clone(),
            provider_data: server.payload.clone(),
            extra: Map::new(),
        }
    }
}

impl From<&conversation::ContentBlock> for ContentBlock {
    fn from(block: &conversation::ContentBlock) -> ContentBlock {
        match block {
            conversation::ContentBlock::Text(text) => ContentBlock::Text(text.into()),
            conversation::ContentBlock::Image(image) => ContentBlock::Image(ImageContent {
                data: image.data.clone(),
                mime_type: image.mime_type.clone(),
                extra: Map::new(),
            }),
        }
    }
}

impl From<&conversation::MessageContent> for MessageContent {
    fn from(content: &conversation::MessageContent) -> MessageContent {
        match content {
            conversation::MessageContent::Text(text) => MessageContent::Text(text.clone()),
            conversation::MessageContent::Blocks(blocks) => {
                MessageContent::Blocks(blocks.iter().map(ContentBlock::from).collect())
            }
        }
    }
}

impl From<&conversation::AssistantMessage> for AssistantMessage {
    fn from(message: &conversation::AssistantMessage) -> AssistantMessage {
        let usage = &message.usage;
        AssistantMessage {
            content: message
                .content
                .iter()
                .map(|block| match block {
                    conversation::AssistantBlock::Text(text) => AssistantContent::Text(text.into()),
                    conversation::AssistantBlock::Thinking(thinking) => {
                        AssistantContent::Thinking(ThinkingContent {
                            thinking: thinking.thinking.clone(),
                            thinking_signature: thinking.signature.clone(),
                            redacted: thinking.redacted.then_some(true),
                            extra: Map::new(),
                        })
                    }
                    conversation::AssistantBlock::ToolCall(call) => {
                        AssistantContent::ToolCall(ToolCall {
                            id: call.id.clone(),
                            name: call.name.clone(),
                            arguments: call.arguments.clone(),
                            thought_signature: call.thought_signature.clone(),
                            extra: Map::new(),
                        })
                    }
                    conversation::AssistantBlock::ServerTool(server) => {
                        AssistantContent::ServerToolCall(server.into())
                    }
                })
                .collect(),
            api: message.api.clone(),
            provider: message.provider.clone(),
            model: message.model.clone(),
            usage: Usage {
                input: usage.input,
                output: usage.output,
                cache_read: usage.cache_read,
                cache_write: usage.cache_write,
                total_tokens: usage.input + usage.output + usage.cache_read + usage.cache_write,
                cost: Cost {
                    input: message.cost.input,
                    output: message.cost.output,
                    cache_read: message.cost.cache_read,
                    cache_write: message.cost.cache_write,
                    web_search: message.cost.web_search,
                    total: message.cost.total,
                },
                web_search_requests: usage.web_search_requests,
            },
            stop_reason: message.stop_reason,
            timestamp: message.timestamp,
            extra: Map::new(),
            error_message: message.error_message.clone(),
        }
    }
}

impl From<&conversation::Message> for AgentMessage {
    fn from(message: &conversation::Message) -> AgentMessage {
        match message {
            conversation::Message::User(user) => AgentMessage::User(UserMessage {
                content: (&user.content).into(),
                timestamp: user.timestamp,
                extra: Map::new(),
            }),
            conversation::Message::Assistant(assistant) => {
                AgentMessage::Assistant(assistant.into())
            }
            conversation::Message::ToolResult(result) => {
                AgentMessage::ToolResult(ToolResultMessage {
                    tool_call_id: result.tool_call_id.clone(),
                    tool_name: result.tool_name.clone(),
                    content: result.content.iter().map(ContentBlock::from).collect(),
                    details: result.details.clone(),
                    is_error: result.is_error,
                    timestamp: result.timestamp,
                    extra: Map::new(),
                })
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Ids and times

/// A new entry id: the first 8 hex characters of a v4 UUID, redrawn while `taken` says the id is
/// in use; after 100 collisions, a full UUID (as pi does, so ids stay unique in any file).
pub fn new_entry_id(taken: &impl Fn(&str) -> bool) -> String {
    for _ in 0..100 {
        let mut id = Uuid::new_v4().simple().to_string();
        id.truncate(8);
        if !taken(&id) {
            return id;
        }
    }
    Uuid::new_v4().to_string()
}

/// An entry a run writes, typed: the one place the kinds and keys of the entries pincer makes
/// are spelled (as pi writes them). [`NewEntry::kind`] and [`NewEntry::fields`] feed
/// [`build_entry`].
#[derive(Debug, Clone, Copy)]
pub enum NewEntry<'a> {
    /// A completed message.
    Message(&'a AgentMessage),
    /// The session's model from here on.
    ModelChange {
        provider: &'a str,
        model_id: &'a str,
    },
    /// The session's thinking level from here on (`off` … `xhigh`).
    ThinkingLevelChange { level: &'a str },
    /// The session's name (none: the session has no name from here on, as a fork of a named
    /// session made without one).
    SessionInfo { name: Option<&'a str> },
    /// A compaction: the summary that replaces the entries before `first_kept_entry_id`.
    Compaction {
        summary: &'a str,
        first_kept_entry_id: &'a str,
        tokens_before: u64,
        details: &'a Value,
    },
    /// An extension's record (pi's `custom`): pincer's structured output, CLI-child events.
    Custom {
        custom_type: &'a str,
        data: &'a Value,
    },
}

impl NewEntry<'_> {
    /// The entry's `type`.
    pub fn kind(&self) -> &'static str {
        match self {
            NewEntry::Message(_) => "message",
            NewEntry::ModelChange { .. } => "model_change",
            NewEntry::ThinkingLevelChange { .. } => "thinking_level_change",
            NewEntry::SessionInfo { .. } => "session_info",
            NewEntry::Compaction { .. } => "compaction",
            NewEntry::Custom { .. } => "custom",
        }
    }

    /// The entry's fields after `type`, `id`, `parentId` and `timestamp`.
    pub fn fields(&self) -> Result<Value, RecordError> {
        Ok(match self {
            NewEntry::Message(message) => serde_json::json!({
                "message": serde_json::to_value(message)
                    .map_err(RecordError::Syntax)?
            }),
            NewEntry::ModelChange { provider, model_id } => {
                serde_json::json!({"provider": provider, "modelId": model_id})
            }
            NewEntry::ThinkingLevelChange { level } => serde_json::json!({"thinkingLevel": level}),
            NewEntry::SessionInfo { name: Some(name) } => serde_json::json!({"name": name}),
            NewEntry::SessionInfo { name: None } => serde_json::json!({}),
            NewEntry::Compaction {
                summary,
                first_kept_entry_id,
                tokens_before,
                details,
            } => serde_json::json!({
                "summary": summary,
                "firstKeptEntryId": first_kept_entry_id,
                "tokensBefore": tokens_before,
                "details": details,
            }),
            NewEntry::Custom { custom_type, data } => {
                serde_json::json!({"customType": custom_type, "data": data})
            }
        })
    }

    /// The whole entry, stamped now.
    pub fn build(&self, id: &str, parent_id: Option<&str>) -> Result<Entry, RecordError> {
        build_entry(self.kind(), id, parent_id, self.fields()?)
    }
}

/// A new entry of `kind` stamped now: `{type, id, parentId, timestamp}` in pi's order, then
/// `fields` (an object). The one place entries are made from scratch.
pub fn build_entry(
    kind: &str,
    id: &str,
    parent_id: Option<&str>,
    fields: Value,
) -> Result<Entry, RecordError> {
    let mut object = Map::new();
    object.insert("type".to_owned(), Value::String(kind.to_owned()));
    object.insert("id".to_owned(), Value::String(id.to_owned()));
    object.insert(
        "parentId".to_owned(),
        parent_id.map_or(Value::Null, |parent| Value::String(parent.to_owned())),
    );
    object.insert("timestamp".to_owned(), Value::String(now_iso()));
    if let Value::Object(fields) = fields {
        object.extend(fields);
    }
    Entry::from_value(Value::Object(object))
}

/// The current UTC time as JavaScript's `Date.prototype.toISOString` writes it:
/// `2026-11-30T13:41:23.123Z`, the form of every entry and header timestamp.
pub fn now_iso() -> String {
    iso_millis(OffsetDateTime::now_utc())
}

/// A time in Unix milliseconds written as [`now_iso`] writes the current one (the number
/// itself when it is past what a date can hold).
pub fn iso_of_millis(millis: u64) -> String {
    OffsetDateTime::from_unix_timestamp_nanos(i128::from(millis) * 1_000_000)
        .map_or_else(|_| millis.to_string(), iso_millis)
}

/// `time` (UTC) as JavaScript's `toISOString` writes it: milliseconds and a `Z`.
pub fn iso_millis(time: OffsetDateTime) -> String {
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        time.year(),
        u8::from(time.month()),
        time.day(),
        time.hour(),
        time.minute(),
        time.second(),
        time.millisecond(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_line;
    use pretty_assertions::assert_eq;
    use std::path::PathBuf;

    fn fixture_dir() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sessions")
    }

    /// Every v3 fixture: the ones pi's SessionManager wrote and the hand-built edge cases.
    fn v3_fixtures() -> Vec<(String, String)> {
        [
            "pi-v3-linear.jsonl",
            "pi-v3-branched.jsonl",
            "edge-cases-v3.jsonl",
        ]
        .iter()
        .map(|name| {
            let text = std::fs::read_to_string(fixture_dir().join(name)).unwrap();
            (name.to_string(), text)
        })
        .collect()
    }

    fn entries_of(text: &str) -> Vec<Entry> {
        text.lines()
            .skip(1)
            .map(|line| match parse_line(line).unwrap() {
                Line::Entry(entry) => entry,
                Line::Header(_) => panic!("a second header in {line}"),
            })
            .collect()
    }

    #[test]
    fn every_fixture_line_serializes_back_to_identical_bytes() {
        let mut checked = 0;
        for (name, text) in v3_fixtures() {
            for (number, line) in text.lines().enumerate() {
                let parsed = parse_line(line)
                    .unwrap_or_else(|error| panic!("{name}:{}: {error}", number + 1));
                assert_eq!(
                    to_line(&parsed).unwrap(),
                    format!("{line}\n"),
                    "{name}:{}",
                    number + 1
                );
                checked += 1;
            }
        }
        assert!(checked >= 40, "only {checked} lines checked");
    }

    #[test]
    fn migrated_legacy_files_written_by_pi_also_round_trip_as_raw_values() {
        // pi appends the ids of migrated v1 entries at the end of each object; the typed structs
        // reorder them, but a rewrite from the raw values keeps pi's bytes.
        for name in ["v1.pi-migrated.jsonl", "v2.pi-migrated.jsonl"] {
            let text = std::fs::read_to_string(fixture_dir().join(name)).unwrap();
            for line in text.lines() {
                let value = parse_value(line).unwrap();
                assert_eq!(to_line(&value).unwrap(), format!("{line}\n"));
                parse_line(line).unwrap();
            }
        }
    }

    #[test]
    fn the_first_line_is_the_header_and_the_rest_are_entries() {
        let (_, text) = &v3_fixtures()[1];
        let Line::Header(header) = parse_line(text.lines().next().unwrap()).unwrap() else {
            panic!("line 1 is not a header");
        };
        assert_eq!(header.version, Some(3));
        assert_eq!(header.cwd, "/home/dev/project");
        assert_eq!(header.parent_session, None);
        assert!(header.extra.is_empty());
        let entries = entries_of(text);
        let kinds: Vec<&str> = entries.iter().map(Entry::kind).collect();
        for kind in [
            "message",
            "model_change",
            "thinking_level_change",
            "compaction",
            "branch_summary",
            "custom",
            "custom_message",
            "label",
            "session_info",
        ] {
            assert!(kinds.contains(&kind), "no {kind} entry in {kinds:?}");
        }
        assert!(
            !entries
                .iter()
                .any(|entry| matches!(entry, Entry::Unknown(_)))
        );
        assert_eq!(entries[0].parent_id(), None);
        assert_eq!(entries[1].parent_id(), Some(entries[0].id()));
        assert!(entries.iter().all(|entry| entry.id().len() == 8));
        assert!(entries.iter().all(|entry| entry.timestamp().ends_with('Z')));
    }

    #[test]
    fn unknown_fields_on_entries_and_messages_are_kept_in_extra() {
        let (_, text) = &v3_fixtures()[1];
        let entries = entries_of(text);
        let Entry::ModelChange(model_change) = &entries[0] else {
            panic!("first entry is {}", entries[0].kind());
        };
        assert_eq!(
            model_change.extra.get("pincerFutureField"),
            Some(&serde_json::json!({"kept": true, "note": "unknown to pincer"}))
        );
        let assistant = entries
            .iter()
            .find_map(|entry| match entry {
                Entry::Message(MessageEntry {
                    message: AgentMessage::Assistant(message),
                    ..
                }) if message.extra.contains_key("pincerTrace") => Some(message),
                _ => None,
            })
            .unwrap();
        assert_eq!(assistant.extra["responseId"], "msg_01XyZ");
        assert_eq!(assistant.extra["pincerTrace"]["latencyMs"], 812.5);
        assert_eq!(assistant.stop_reason, StopReason::ToolUse);
        assert_eq!(assistant.usage.cache_write, 1400);
        assert_eq!(assistant.usage.total_tokens, 1523 + 312 + 1400);
        let AssistantContent::Thinking(thinking) = &assistant.content[0] else {
            panic!("first block is not thinking");
        };
        assert_eq!(
            thinking.thinking_signature.as_deref(),
            Some("EqQBCkgIARABGAIiQH3sig==")
        );
        let AssistantContent::ToolCall(call) = &assistant.content[2] else {
            panic!("third block is not a tool call");
        };
        assert_eq!(call.name, "ls");
        assert_eq!(call.arguments, serde_json::json!({"path": "."}));
    }

    #[test]
    fn typed_fields_hold_the_values_pi_wrote() {
        let (_, text) = &v3_fixtures()[1];
        let entries = entries_of(text);
        let failed_tool = entries
            .iter()
            .find_map(|entry| match entry {
                Entry::Message(MessageEntry {
                    message: AgentMessage::ToolResult(result),
                    ..
                }) if result.is_error => Some(result),
                _ => None,
            })
            .unwrap();
        assert_eq!(failed_tool.tool_name, "read");
        assert_eq!(
            failed_tool.details,
            Some(serde_json::json!({"path": "notes.md"}))
        );
        let custom = entries
            .iter()
            .find_map(|entry| match entry {
                Entry::Custom(custom) => Some(custom),
                _ => None,
            })
            .unwrap();
        assert_eq!(custom.custom_type, "pincer.claude-cli");
        assert_eq!(
            custom.data.as_ref().unwrap()["sessionId"],
            "3f0c2d9e-5b7a-4c1e-9d2f-8a6b4e1c0d37"
        );
        let compaction = entries
            .iter()
            .find_map(|entry| match entry {
                Entry::Compaction(compaction) => Some(compaction),
                _ => None,
            })
            .unwrap();
        assert_eq!(compaction.tokens_before, 12345);
        assert_eq!(
            compaction.details.as_ref().unwrap()["readFiles"],
            serde_json::json!(["notes.md"])
        );
        assert_eq!(compaction.from_hook, None);
        let failed_answer = entries
            .iter()
            .find_map(|entry| match entry {
                Entry::Message(MessageEntry {
                    message: AgentMessage::Assistant(message),
                    ..
                }) if message.stop_reason == StopReason::Error => Some(message),
                _ => None,
            })
            .unwrap();
        assert_eq!(
            failed_answer.error_message.as_deref(),
            Some("429 rate limit exceeded")
        );
        let info = entries
            .iter()
            .find_map(|entry| match entry {
                Entry::SessionInfo(info) => Some(info),
                _ => None,
            })
            .unwrap();
        assert_eq!(info.name.as_deref(), Some("Fixture session"));
    }

    #[test]
    fn unknown_entry_types_roles_and_blocks_are_kept_verbatim() {
        let (_, text) = &v3_fixtures()[2];
        let entries = entries_of(text);
        let unknown = entries
            .iter()
            .find(|entry| entry.kind() == "pincer_future_entry")
            .unwrap();
        assert!(matches!(unknown, Entry::Unknown(_)));
        assert_eq!(unknown.id(), "e000000e");
        assert_eq!(unknown.parent_id(), Some("e000000d"));
        let roles: Vec<&str> = entries
            .iter()
            .filter_map(|entry| match entry {
                Entry::Message(message) => Some(message.message.role()),
                _ => None,
            })
            .collect();
        assert_eq!(
            roles,
            [
                "user",
                "assistant",
                "bashExecution",
                "bashExecution",
                "custom",
                "toolResult",
                "user"
            ]
        );
        let Entry::Message(MessageEntry {
            message: AgentMessage::Assistant(assistant),
            ..
        }) = &entries[1]
        else {
            panic!("second entry is not an assistant message");
        };
        assert!(
            matches!(&assistant.content[3], AssistantContent::Unknown(value) if value["type"] == "futureBlock")
        );
        let AssistantContent::Thinking(thinking) = &assistant.content[0] else {
            panic!("first block is not thinking");
        };
        assert_eq!(thinking.redacted, Some(true));
    }

    #[test]
    fn a_web_search_and_its_citations_survive_the_file_and_the_conversation_both_ways() {
        // What pincer writes for an answer that searched: a serverToolCall block, a text with
        // citations, the search count and its cost in the usage.
        let line = r#"{"type":"message","id":"5e4c0001","parentId":"5e4c0000","timestamp":"2026-04-02T08:00:00.000Z","message":{"role":"assistant","content":[{"type":"serverToolCall","id":"srvtoolu_01","name":"web_search","arguments":{"query":"rust 1.95"},"results":[{"url":"https://blog.rust-lang.org/1.95","title":"Announcing Rust 1.95"},{"url":"https://example.com/"}],"providerData":[{"type":"web_search_result","url":"https://blog.rust-lang.org/1.95","encrypted_content":"Eqgf"}]},{"type":"serverToolCall","id":"srvtoolu_02","name":"web_search","arguments":{"query":"x"},"results":[],"error":"max_uses_exceeded","providerData":{"type":"web_search_tool_result_error","error_code":"max_uses_exceeded"}},{"type":"text","text":"It is out.","citations":[{"url":"https://blog.rust-lang.org/1.95","title":"Announcing Rust 1.95","citedText":"Rust 1.95 is out","providerData":{"type":"web_search_result_location","encrypted_index":"Eo8B"}}]}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,"cost":{"input":0.00003,"output":0.000075,"cacheRead":0,"cacheWrite":0,"webSearch":0.02,"total":0.020105},"webSearchRequests":2},"stopReason":"stop","timestamp":1775116800000}}"#;
        let parsed = parse_line(line).unwrap();
        assert_eq!(to_line(&parsed).unwrap(), format!("{line}\n"));
        let Line::Entry(Entry::Message(entry)) = parsed else {
            panic!("not a message entry");
        };
        let conversation::Message::Assistant(assistant) =
            entry.message.clone().into_conversation().unwrap()
        else {
            panic!("not an assistant message");
        };
        let conversation::AssistantBlock::ServerTool(search) = &assistant.content[0] else {
            panic!("the first block is not the search");
        };
        assert_eq!(search.input, serde_json::json!({"query": "rust 1.95"}));
        assert_eq!(search.results[1].title, None);
        assert!(matches!(
            &assistant.content[1],
            conversation::AssistantBlock::ServerTool(failed) if failed.error.as_deref() == Some("max_uses_exceeded")
        ));
        let conversation::AssistantBlock::Text(text) = &assistant.content[2] else {
            panic!("the third block is not text");
        };
        assert_eq!(
            text.citations[0].cited_text.as_deref(),
            Some("Rust 1.95 is out")
        );
        assert_eq!(assistant.usage.web_search_requests, 2);
        assert_eq!(assistant.cost.web_search, 0.02);
        // Back to the record: the same bytes.
        let rebuilt = MessageEntry {
            message: AgentMessage::from(&conversation::Message::Assistant(assistant)),
            ..entry
        };
        assert_eq!(
            to_line(&Entry::Message(rebuilt)).unwrap(),
            format!("{line}\n")
        );
    }

    #[test]
    fn explicit_nulls_and_absent_optionals_stay_as_they_were() {
        let line = r#"{"type":"compaction","id":"c0000001","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","summary":"s","firstKeptEntryId":"x","tokensBefore":1,"details":null}"#;
        let Line::Entry(Entry::Compaction(compaction)) = parse_line(line).unwrap() else {
            panic!("not a compaction");
        };
        assert_eq!(compaction.details, Some(Value::Null));
        assert_eq!(compaction.from_hook, None);
        assert_eq!(
            to_line(&Entry::Compaction(compaction)).unwrap(),
            format!("{line}\n")
        );
    }

    #[test]
    fn a_root_entry_writes_parent_id_as_null() {
        let entry = Entry::SessionInfo(SessionInfoEntry {
            id: "abcdef01".into(),
            parent_id: None,
            timestamp: "2026-01-01T00:00:00.000Z".into(),
            name: None,
            extra: Map::new(),
        });
        assert_eq!(
            to_line(&entry).unwrap(),
            "{\"type\":\"session_info\",\"id\":\"abcdef01\",\"parentId\":null,\"timestamp\":\"2026-01-01T00:00:00.000Z\"}\n"
        );
    }

    #[test]
    fn line_separators_and_carriage_returns_stay_inside_one_line() {
        let text = "a\u{2028}b\u{2029}c\r\nd\re\u{85}f";
        let entry = Entry::Message(MessageEntry {
            id: "0badcafe".into(),
            parent_id: Some("feedf00d".into()),
            timestamp: "2026-01-01T00:00:00.000Z".into(),
            message: AgentMessage::User(UserMessage {
                content: MessageContent::Text(text.into()),
                timestamp: 1,
                extra: Map::new(),
            }),
            extra: Map::new(),
        });
        let line = to_line(&entry).unwrap();
        assert_eq!(line.matches('\n').count(), 1);
        assert!(line.ends_with('\n'));
        assert!(!line.contains(['\r', '\u{2028}', '\u{2029}', '\u{85}']));
        assert!(line.contains(r"a\u2028b\u2029c\r\nd\re\u0085f"));
        assert_eq!(
            parse_line(line.trim_end_matches('\n')).unwrap(),
            Line::Entry(entry)
        );
    }

    #[test]
    fn numbers_are_written_the_way_javascript_writes_them() {
        let cases: [(f64, &str); 16] = [
            (0.0, "0"),
            (-0.0, "0"),
            (1.0, "1"),
            (100.0, "100"),
            (1.5, "1.5"),
            (-0.5, "-0.5"),
            (0.1 + 0.2, "0.30000000000000004"),
            (0.000001, "0.000001"),
            (0.0000015, "0.0000015"),
            (1e-7, "1e-7"),
            (1.25e-9, "1.25e-9"),
            (1e21, "1e+21"),
            (123456789012345680000.0, "123456789012345680000"),
            (f64::MAX, "1.7976931348623157e+308"),
            (137_362_064_077_715.12, "137362064077715.12"),
            (5e-324, "5e-324"),
        ];
        for (value, expected) in cases {
            assert_eq!(javascript_number(value), expected, "{value:e}");
        }
        assert_eq!(
            to_line(&Cost::default()).unwrap(),
            "{\"input\":0,\"output\":0,\"cacheRead\":0,\"cacheWrite\":0,\"total\":0}\n"
        );
    }

    #[test]
    fn long_floats_are_read_exactly() {
        let line =
            r#"{"total":0.014499000000000001,"list":[0.30000000000000004,"1.5",-2.5e-7],"n":7}"#;
        let value = parse_value(line).unwrap();
        assert_eq!(value["total"].as_f64(), Some(0.014_499_000_000_000_001));
        assert_eq!(value["list"][0].as_f64(), Some(0.1 + 0.2));
        assert_eq!(to_line(&value).unwrap(), format!("{line}\n"));
    }

    #[test]
    fn malformed_lines_are_errors_that_say_why() {
        let torn = parse_line(r#"{"type":"message","id":"ab"#).unwrap_err();
        assert!(matches!(torn, RecordError::Syntax(_)), "{torn}");
        let untyped = parse_line(r#"{"id":"abcdef01"}"#).unwrap_err();
        assert!(matches!(untyped, RecordError::MissingType), "{untyped}");
        let incomplete = parse_line(
            r#"{"type":"model_change","id":"abcdef01","parentId":null,"timestamp":"t","provider":"x"}"#,
        )
        .unwrap_err();
        assert_eq!(
            incomplete.to_string(),
            "invalid \"model_change\" record: missing field `modelId`"
        );
        let bad_role = parse_line(
            r#"{"type":"message","id":"abcdef01","parentId":null,"timestamp":"t","message":{"role":"user"}}"#,
        )
        .unwrap_err();
        assert!(bad_role.to_string().contains("user message"), "{bad_role}");
    }

    #[test]
    fn new_entry_ids_are_eight_hex_characters_and_avoid_taken_ones() {
        let id = new_entry_id(&|_| false);
        assert_eq!(id.len(), 8);
        assert!(
            id.chars()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
        );
        let first = id.clone();
        let other = new_entry_id(&|candidate| candidate == first);
        assert_ne!(other, first);
        let everything_taken = new_entry_id(&|candidate| candidate.len() == 8);
        assert_eq!(everything_taken.len(), 36, "falls back to a full UUID");
    }

    #[test]
    fn a_time_in_milliseconds_is_written_like_the_entries_timestamps() {
        assert_eq!(iso_of_millis(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso_of_millis(1_796_166_000_123), "2026-12-01T23:00:00.123Z");
        assert_eq!(iso_of_millis(u64::MAX), u64::MAX.to_string());
    }

    #[test]
    fn timestamps_look_like_javascript_to_iso_string() {
        let time = time::macros::datetime!(2026-11-30 13:41:23.123456 UTC);
        assert_eq!(iso_millis(time), "2026-11-30T13:41:23.123Z");
        let now = now_iso();
        assert_eq!(now.len(), 24);
        assert!(
            time::OffsetDateTime::parse(&now, &time::format_description::well_known::Rfc3339)
                .is_ok()
        );
    }
}
