//! What `sessions list`, `status` and lookups need to know about a session, derived from its
//! entries in one pass. Pure: no I/O here.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::context;
use super::ids::IdSet;
use super::record::{AgentMessage, Entry, SessionHeader, SessionInfoEntry, StopReason, Usage};
use crate::conversation::{ContextOccupancy, Prices, TokenUsage};

/// Usage of one model within a session.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelTotals {
    /// Summed usage of every call.
    pub usage: TokenUsage,
    /// Cost as recorded in the messages by whoever wrote them (pi records it; used when the
    /// catalog does not know the model).
    pub recorded_cost_usd: f64,
    /// Number of model calls.
    pub calls: u64,
    /// The part of `usage` that was replayed from a cassette (`pincer.replayed` entries): no
    /// model was called for it, so it costs nothing.
    #[serde(default)]
    pub replayed: TokenUsage,
}

/// A session's facts, as cached in the index.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SessionSummary {
    /// Session id (header).
    pub id: String,
    /// Name from the latest `session_info` entry.
    pub name: Option<String>,
    /// Workspace directory (header).
    pub cwd: String,
    /// Creation time (header, ISO).
    pub created: String,
    /// Time of the last entry (ISO), or the creation time.
    pub updated: String,
    /// Provider of the current model.
    pub provider: Option<String>,
    /// Current model id.
    pub model: Option<String>,
    /// Current thinking level.
    pub thinking_level: Option<String>,
    /// User prompts in the file.
    pub turns: u64,
    /// Message entries in the file.
    pub messages: u64,
    /// Entries in the file (header excluded).
    pub entries: u64,
    /// Usage of the last successful model call.
    pub last_usage: Option<TokenUsage>,
    /// Model of the last successful call, as `provider/model`.
    pub last_model: Option<String>,
    /// Context tokens now: the last successful call's, or an estimate after a later compaction.
    pub context_tokens: Option<u64>,
    /// Whether `context_tokens` is an estimate (chars / 4) rather than reported usage.
    pub context_estimated: bool,
    /// Usage per `provider/model`.
    pub usage_by_model: BTreeMap<String, ModelTotals>,
    /// Compaction entries in the file.
    pub compactions: u64,
    /// Whether the last assistant message was aborted or failed.
    pub last_run_aborted: bool,
    /// The error message of that last failed message.
    pub last_error: Option<String>,
    /// CLI-backend session ids by backend (from `pincer.<backend>` custom entries).
    pub backend_sessions: BTreeMap<String, String>,
    /// The parent session file, for forks.
    pub parent_session: Option<String>,
}

impl SessionSummary {
    /// Cumulative usage over every model.
    pub fn cumulative_usage(&self) -> TokenUsage {
        let mut total = TokenUsage::default();
        for totals in self.usage_by_model.values() {
            total.add(&totals.usage);
        }
        total
    }

    /// How full the context is now, against `window` when it is known.
    pub fn occupancy(&self, window: Option<u64>) -> Option<ContextOccupancy> {
        occupancy_of(self.context_tokens, window)
    }

    /// What the session's calls cost: priced by `prices_of(provider, model)` where that knows
    /// the model, else as the messages recorded it.
    pub fn cost(&self, prices_of: impl Fn(&str, &str) -> Option<Prices>) -> f64 {
        self.usage_by_model
            .iter()
            .map(|(key, totals)| {
                let (provider, model) = key.split_once('/').unwrap_or(("", key.as_str()));
                let (used, replayed) = (&totals.usage, &totals.replayed);
                match prices_of(provider, model) {
                    Some(prices) => {
                        prices
                            .cost(&TokenUsage {
                                input: used.input.saturating_sub(replayed.input),
                                output: used.output.saturating_sub(replayed.output),
                                cache_read: used.cache_read.saturating_sub(replayed.cache_read),
                                cache_write: used.cache_write.saturating_sub(replayed.cache_write),
                                ..TokenUsage::default()
                            })
                            .total
                    }
                    None => totals.recorded_cost_usd,
                }
            })
            .sum()
    }

    /// The current `provider/model`, when known.
    pub fn model_ref(&self) -> Option<String> {
        model_ref(self.provider.as_deref(), self.model.as_deref()).map(Cow::into_owned)
    }
}

/// A session's model as `provider/model`, or the model alone when no provider is recorded.
pub fn model_ref<'a>(provider: Option<&str>, model: Option<&'a str>) -> Option<Cow<'a, str>> {
    match (provider, model?) {
        (Some(provider), model) => Some(Cow::Owned(format!("{provider}/{model}"))),
        (None, model) => Some(Cow::Borrowed(model)),
    }
}

/// How full a context of `tokens` is, against `window` when it is known.
pub fn occupancy_of(tokens: Option<u64>, window: Option<u64>) -> Option<ContextOccupancy> {
    let usage = TokenUsage {
        input: tokens?,
        ..TokenUsage::default()
    };
    Some(ContextOccupancy::of(&usage, window))
}

/// Prefix of `custom` entry types pincer owns.
pub const PINCER_CUSTOM_PREFIX: &str = "pincer.";

/// Summarize a session from its header and entries.
///
/// Spend is summed over the whole file (every branch cost money); everything that describes the
/// conversation as it stands — model, thinking level, turns, context, whether the last run
/// failed — comes from the current branch (root → last entry), as a resume would see it.
pub fn summarize(header: &SessionHeader, entries: &[Entry]) -> SessionSummary {
    let mut summary = new_summary(header);
    for entry in entries {
        add_file_entry(&mut summary, &facts(entry));
    }
    // Whether a compaction came after the last successful call on the branch.
    let mut compacted = false;
    for entry in context::branch_path(entries, None) {
        add_branch_entry(&mut summary, &mut compacted, &facts(entry));
    }
    summary.context_tokens = summary.last_usage.map(|usage| usage.context_tokens());
    if compacted {
        // The last reported usage predates the compaction: estimate what the model will see now.
        let rebuilt = context::build_context(entries, None);
        summary.context_tokens = Some(estimate_tokens(&rebuilt.messages));
        summary.context_estimated = true;
    }
    summary
}

/// The summary of a session without entries: its header's facts.
fn new_summary(header: &SessionHeader) -> SessionSummary {
    SessionSummary {
        id: header.id.clone(),
        cwd: header.cwd.clone(),
        created: header.timestamp.clone(),
        updated: header.timestamp.clone(),
        parent_session: header.parent_session.clone(),
        ..SessionSummary::default()
    }
}

/// What a summary reads of one entry: where it hangs in the tree, its time, and the few fields
/// the summary is made of. Borrowed from an [`Entry`] ([`facts`]) or straight from a line's
/// text ([`super::record_fast::summary_entry`]), so both feed the same rules below.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EntryFacts<'a> {
    /// The entry's id.
    pub id: &'a str,
    /// Its parent's id.
    pub parent_id: Option<&'a str>,
    /// Its time (ISO).
    pub timestamp: &'a str,
    /// What else the summary reads of it.
    pub kind: Facts<'a>,
}

/// The part of an entry a summary reads, by kind.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Facts<'a> {
    /// A `session_info` entry and the name it sets (before trimming).
    SessionInfo {
        name: Option<&'a str>,
    },
    Compaction,
    /// A `custom` entry of pincer's holding a CLI backend's session id.
    BackendSession {
        backend: &'a str,
        session_id: &'a str,
    },
    /// A `pincer.replayed` entry: the usage of the assistant message before it came from a
    /// cassette.
    Replayed {
        provider: &'a str,
        model: &'a str,
        usage: TokenUsage,
    },
    ModelChange {
        provider: &'a str,
        model_id: &'a str,
    },
    ThinkingLevelChange {
        thinking_level: &'a str,
    },
    UserMessage,
    AssistantMessage(AssistantFacts<'a>),
    /// A message of another role (a tool result, pi's other roles).
    OtherMessage,
    /// Any other entry (a label, a branch summary, another custom entry, …).
    Other,
}

/// What a summary reads of an assistant message.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AssistantFacts<'a> {
    pub provider: &'a str,
    pub model: &'a str,
    pub usage: &'a Usage,
    pub stop_reason: StopReason,
    pub error_message: Option<&'a str>,
}

/// What a summary reads of `entry`.
pub fn facts(entry: &Entry) -> EntryFacts<'_> {
    let kind = match entry {
        Entry::SessionInfo(info) => Facts::SessionInfo {
            name: info.name.as_deref(),
        },
        Entry::Compaction(_) => Facts::Compaction,
        Entry::Custom(custom) => backend_session(&custom.custom_type, custom.data.as_ref()),
        Entry::ModelChange(change) => Facts::ModelChange {
            provider: &change.provider,
            model_id: &change.model_id,
        },
        Entry::ThinkingLevelChange(change) => Facts::ThinkingLevelChange {
            thinking_level: &change.thinking_level,
        },
        Entry::Message(message_entry) => match &message_entry.message {
            AgentMessage::User(_) => Facts::UserMessage,
            AgentMessage::Assistant(assistant) => Facts::AssistantMessage(AssistantFacts {
                provider: &assistant.provider,
                model: &assistant.model,
                usage: &assistant.usage,
                stop_reason: assistant.stop_reason,
                error_message: assistant.error_message.as_deref(),
            }),
            _ => Facts::OtherMessage,
        },
        _ => Facts::Other,
    };
    EntryFacts {
        id: entry.id(),
        parent_id: entry.parent_id(),
        timestamp: entry.timestamp(),
        kind,
    }
}

/// The `customType` of the entry that follows a replayed assistant message. The message keeps
/// pi's shape (its `cost` is zero); this entry says which provider, model and usage were
/// replayed, so a summary does not price them from the catalog.
pub const REPLAYED: &str = "pincer.replayed";

/// The `data` of a [`REPLAYED`] entry.
pub fn replayed_data(provider: &str, model: &str, usage: &TokenUsage) -> serde_json::Value {
    serde_json::json!({
        "provider": provider,
        "model": model,
        "usage": {
            "input": usage.input,
            "output": usage.output,
            "cacheRead": usage.cache_read,
            "cacheWrite": usage.cache_write,
        },
    })
}

/// What a summary reads of a `custom` entry of type `custom_type` with `data`: the replayed
/// usage of a [`REPLAYED`] entry, or the CLI backend's session id of one of pincer's
/// (`pincer.<backend>` with `data.sessionId`).
pub fn backend_session<'a>(custom_type: &'a str, data: Option<&'a serde_json::Value>) -> Facts<'a> {
    if custom_type == REPLAYED {
        let text = |key: &str| data.and_then(|data| data.get(key)?.as_str());
        let count = |key: &str| {
            data.and_then(|data| data.get("usage")?.get(key)?.as_u64())
                .unwrap_or(0)
        };
        return match (text("provider"), text("model")) {
            (Some(provider), Some(model)) => Facts::Replayed {
                provider,
                model,
                usage: TokenUsage {
                    input: count("input"),
                    output: count("output"),
                    cache_read: count("cacheRead"),
                    cache_write: count("cacheWrite"),
                    ..TokenUsage::default()
                },
            },
            _ => Facts::Other,
        };
    }
    match (
        custom_type.strip_prefix(PINCER_CUSTOM_PREFIX),
        data.and_then(|data| data.get("sessionId"))
            .and_then(serde_json::Value::as_str),
    ) {
        (Some(backend), Some(session_id)) => Facts::BackendSession {
            backend,
            session_id,
        },
        _ => Facts::Other,
    }
}

/// A summary made in one pass over a file's entries, fed one at a time without keeping them
/// (a full reindex reads every session this way, SPEC §12.1). It gives the summary
/// [`summarize`] gives for the same header and entries, or declines
/// ([`Summarizer::add`] returns `false`, [`Summarizer::finish`] `None`) where that would need
/// the entries again: a file whose current branch is not the whole file (a fork inside it, a
/// repeated id), or one whose context must be rebuilt to be estimated (a compaction after the
/// last reported usage).
#[derive(Debug)]
pub struct Summarizer {
    summary: SessionSummary,
    /// Whether a compaction came after the last successful call so far.
    compacted: bool,
    /// A hash of every id so far: a repeated id would make [`context::branch_path`] skip
    /// entries. Two ids of the same hash read as repeated, which only costs the full summary.
    ids: IdSet<u64>,
    /// The last entry's id.
    leaf: Option<String>,
}

impl Summarizer {
    /// A summary of the session of `header` before any entry.
    pub fn new(header: &SessionHeader) -> Summarizer {
        Summarizer {
            summary: new_summary(header),
            compacted: false,
            ids: IdSet::default(),
            leaf: None,
        }
    }

    /// Take the file's next entry. `false` when the entries so far are not one line of
    /// descent, each the child of the one before it with no id seen twice: then the current
    /// branch (found from the last entry back) is not every entry in order, and only
    /// [`summarize`] over all of them can tell it.
    #[must_use]
    pub fn add(&mut self, entry: &EntryFacts<'_>) -> bool {
        if let Some(leaf) = &self.leaf {
            // The root's parent is not looked at: the walk back from the leaf ends there
            // anyway (a dangling or repeated parent ends it too).
            let parent = entry.parent_id.filter(|parent| !parent.is_empty());
            if parent != Some(leaf.as_str()) {
                return false;
            }
        }
        let hash = std::hash::BuildHasher::hash_one(
            &std::hash::BuildHasherDefault::<super::ids::IdHasher>::default(),
            entry.id,
        );
        if !self.ids.insert(hash) {
            return false;
        }
        add_file_entry(&mut self.summary, entry);
        add_branch_entry(&mut self.summary, &mut self.compacted, entry);
        match &mut self.leaf {
            Some(leaf) => {
                leaf.clear();
                leaf.push_str(entry.id);
            }
            None => self.leaf = Some(entry.id.to_owned()),
        }
        true
    }

    /// The summary and the last entry's id; `None` when a compaction follows the last
    /// reported usage, so that the context must be rebuilt from the entries to be estimated.
    pub fn finish(mut self) -> Option<(SessionSummary, Option<String>)> {
        if self.compacted {
            return None;
        }
        self.summary.context_tokens = self.summary.last_usage.map(|usage| usage.context_tokens());
        Some((self.summary, self.leaf))
    }
}

/// A summary carried forward over entries appended after it, see [`extend`].
#[derive(Debug, Clone, PartialEq)]
pub struct Extension {
    /// The summary of the longer file. Its `context_tokens` is the last reported usage; when
    /// `estimate_context` is set the caller replaces it with an estimate of the rebuilt context.
    pub summary: SessionSummary,
    /// Whether a compaction follows the last successful call, so that the context must be
    /// rebuilt and estimated (as [`summarize`] does).
    pub estimate_context: bool,
}

/// Carry `previous` (the summary of a file whose last entry was `previous_leaf`) forward over
/// `appended`, the entries written after it, without looking at the older entries again.
///
/// Only a linear extension qualifies: each appended entry's parent must be the entry before it,
/// the first one's the old leaf, so the branch is the old branch plus `appended`. Anything else
/// (a branch from an older entry, a repeated id) returns `None`: summarize the whole file.
pub fn extend(
    previous: &SessionSummary,
    previous_leaf: Option<&str>,
    appended: &[Entry],
) -> Option<Extension> {
    let mut expected_parent = previous_leaf;
    let mut fresh: std::collections::HashSet<&str> = std::collections::HashSet::new();
    for entry in appended {
        let parent = entry.parent_id().filter(|parent| !parent.is_empty());
        if parent != expected_parent
            || entry.id().is_empty()
            || Some(entry.id()) == previous_leaf
            || !fresh.insert(entry.id())
        {
            return None;
        }
        expected_parent = Some(entry.id());
    }
    let mut summary = previous.clone();
    for entry in appended {
        add_file_entry(&mut summary, &facts(entry));
    }
    let mut compacted = previous.context_estimated;
    for entry in appended {
        add_branch_entry(&mut summary, &mut compacted, &facts(entry));
    }
    summary.context_tokens = summary.last_usage.map(|usage| usage.context_tokens());
    summary.context_estimated = false;
    Some(Extension {
        summary,
        estimate_context: compacted,
    })
}

/// The facts every entry of the file contributes to, whatever its branch.
fn add_file_entry(summary: &mut SessionSummary, entry: &EntryFacts<'_>) {
    summary.entries += 1;
    if entry.timestamp > summary.updated.as_str() {
        entry.timestamp.clone_into(&mut summary.updated);
    }
    match entry.kind {
        Facts::SessionInfo { name } => summary.name = trimmed_name(name),
        Facts::Compaction => summary.compactions += 1,
        Facts::BackendSession {
            backend,
            session_id,
        } => {
            summary
                .backend_sessions
                .insert(backend.to_owned(), session_id.to_owned());
        }
        Facts::UserMessage | Facts::OtherMessage => summary.messages += 1,
        Facts::AssistantMessage(assistant) => {
            summary.messages += 1;
            // Looked up before a key is made: a session's calls are nearly all of one model.
            let totals = match summary
                .usage_by_model
                .iter_mut()
                .find(|(key, _)| is_model_key(key, assistant.provider, assistant.model))
            {
                Some((_, totals)) => totals,
                None => summary
                    .usage_by_model
                    .entry(format!("{}/{}", assistant.provider, assistant.model))
                    .or_default(),
            };
            totals.usage.add(&usage_of(assistant.usage));
            totals.recorded_cost_usd += assistant.usage.cost.total;
            totals.calls += 1;
        }
        Facts::Replayed {
            provider,
            model,
            usage,
        } => {
            if let Some((_, totals)) = summary
                .usage_by_model
                .iter_mut()
                .find(|(key, _)| is_model_key(key, provider, model))
            {
                totals.replayed.add(&usage);
            }
        }
        _ => {}
    }
}

/// Whether `key` is `provider/model`.
fn is_model_key(key: &str, provider: &str, model: &str) -> bool {
    key.strip_prefix(provider)
        .and_then(|rest| rest.strip_prefix('/'))
        == Some(model)
}

/// The name a `session_info` entry sets: trimmed, and cleared when empty.
pub fn session_name(info: &SessionInfoEntry) -> Option<String> {
    trimmed_name(info.name.as_deref())
}

fn trimmed_name(name: Option<&str>) -> Option<String> {
    name.map(str::trim)
        .filter(|name| !name.is_empty())
        .map(str::to_owned)
}

/// The facts the branch's entries decide, taken in root → leaf order. `compacted` tells whether
/// a compaction came after the last successful call so far.
fn add_branch_entry(summary: &mut SessionSummary, compacted: &mut bool, entry: &EntryFacts<'_>) {
    match entry.kind {
        Facts::ModelChange { provider, model_id } => {
            set_text(&mut summary.provider, provider);
            set_text(&mut summary.model, model_id);
        }
        Facts::ThinkingLevelChange { thinking_level } => {
            set_text(&mut summary.thinking_level, thinking_level);
        }
        Facts::Compaction => *compacted = true,
        Facts::UserMessage => summary.turns += 1,
        Facts::AssistantMessage(assistant) => {
            set_text(&mut summary.provider, assistant.provider);
            set_text(&mut summary.model, assistant.model);
            let usage = usage_of(assistant.usage);
            let failed = matches!(
                assistant.stop_reason,
                StopReason::Aborted | StopReason::Error
            );
            summary.last_run_aborted = failed;
            summary.last_error = if failed {
                assistant.error_message.map(str::to_owned)
            } else {
                None
            };
            if !failed && usage.context_tokens() > 0 {
                summary.last_usage = Some(usage);
                if !summary
                    .last_model
                    .as_deref()
                    .is_some_and(|key| is_model_key(key, assistant.provider, assistant.model))
                {
                    summary.last_model =
                        Some(format!("{}/{}", assistant.provider, assistant.model));
                }
                *compacted = false;
            }
        }
        _ => {}
    }
}

/// `*slot = Some(text)`, reusing the slot's allocation.
fn set_text(slot: &mut Option<String>, text: &str) {
    match slot {
        Some(kept) => text.clone_into(kept),
        None => *slot = Some(text.to_owned()),
    }
}

fn usage_of(usage: &Usage) -> TokenUsage {
    TokenUsage {
        input: usage.input,
        output: usage.output,
        cache_read: usage.cache_read,
        cache_write: usage.cache_write,
        cache_write_1h: 0,
        reasoning: 0,
        web_search_requests: usage.web_search_requests,
    }
}

/// pi's chars/4 estimate (rounded up per message) of what the messages cost in context.
pub fn estimate_tokens(messages: &[AgentMessage]) -> u64 {
    messages
        .iter()
        .map(|message| {
            serde_json::to_value(message)
                .ok()
                .map_or(0, |value| estimate_characters(&value).div_ceil(4) as u64)
        })
        .sum()
}

/// Characters pi counts for one message: text, thinking, tool-call names and arguments, and a
/// fixed 4,800 characters (1,200 tokens) per image.
fn estimate_characters(message: &serde_json::Value) -> usize {
    use serde_json::Value;
    let length = |text: &str| text.encode_utf16().count();
    if let Some(summary) = message.get("summary").and_then(Value::as_str) {
        return length(summary);
    }
    match message.get("content") {
        Some(Value::String(text)) => length(text),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .map(|block| match block.get("type").and_then(Value::as_str) {
                Some("text") => block.get("text").and_then(Value::as_str).map_or(0, length),
                Some("thinking") => block
                    .get("thinking")
                    .and_then(Value::as_str)
                    .map_or(0, length),
                Some("toolCall") => {
                    block.get("name").and_then(Value::as_str).map_or(0, length)
                        + block
                            .get("arguments")
                            .map_or(0, |arguments| length(&arguments.to_string()))
                }
                Some("image") => 4_800,
                _ => 0,
            })
            .sum(),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_line;
    use crate::record::Line;
    use pretty_assertions::assert_eq;

    fn entries(lines: &[&str]) -> Vec<Entry> {
        lines
            .iter()
            .map(|text| match parse_line(text).unwrap() {
                Line::Entry(entry) => entry,
                Line::Header(_) => panic!("no header here"),
            })
            .collect()
    }

    fn header() -> SessionHeader {
        match parse_line(r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#).unwrap() {
            Line::Header(header) => header,
            Line::Entry(_) => panic!("a header"),
        }
    }

    const LINES: [&str; 4] = [
        r#"{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}"#,
        r#"{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[],"api":"a","provider":"p","model":"m","usage":{"input":5,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":6,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.5}},"stopReason":"stop","timestamp":2}}"#,
        r#"{"type":"thinking_level_change","id":"t1","parentId":"a1","timestamp":"2026-01-01T00:00:03.000Z","thinkingLevel":"high"}"#,
        r#"{"type":"message","id":"u2","parentId":"t1","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"user","content":"more","timestamp":3}}"#,
    ];

    #[test]
    fn usage_a_pincer_replayed_entry_names_is_priced_at_nothing_and_the_rest_at_the_table() {
        let replayed = r#"{"type":"custom","customType":"pincer.replayed","data":{"provider":"p","model":"m","usage":{"input":5,"output":1,"cacheRead":0,"cacheWrite":0}},"id":"r1","parentId":"a1","timestamp":"2026-01-01T00:00:02.500Z"}"#;
        let second = r#"{"type":"message","id":"a2","parentId":"u2","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"assistant","content":[],"api":"a","provider":"p","model":"m","usage":{"input":7,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":9,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":5}}"#;
        let lines = [LINES[0], LINES[1], replayed, LINES[3], second];
        let summary = summarize(&header(), &entries(&lines));
        let totals = &summary.usage_by_model["p/m"];
        assert_eq!((totals.usage.input, totals.usage.output), (12, 3));
        assert_eq!((totals.replayed.input, totals.replayed.output), (5, 1));
        let prices = Prices {
            input: 3.0,
            output: 15.0,
            ..Prices::default()
        };
        let only_a2 = TokenUsage {
            input: 7,
            output: 2,
            ..TokenUsage::default()
        };
        let cost = summary.cost(|_, _| Some(prices));
        assert!(cost > 0.0);
        assert!((cost - prices.cost(&only_a2).total).abs() < 1e-12, "{cost}");
        // The fast reader gives the same facts.
        for line in lines {
            let fast = crate::record_fast::summary_entry(line).unwrap();
            assert_eq!(fast.facts(), facts(&entries(&[line])[0]));
        }
    }

    #[test]
    fn extending_a_summary_by_linear_appends_equals_summarizing_everything() {
        let all = entries(&LINES);
        let before = summarize(&header(), &all[..2]);
        let extension = extend(&before, Some("a1"), &all[2..]).unwrap();
        assert!(!extension.estimate_context);
        assert_eq!(extension.summary, summarize(&header(), &all));
        assert_eq!(extension.summary.turns, 2);
        assert_eq!(extension.summary.thinking_level.as_deref(), Some("high"));
    }

    #[test]
    fn appends_that_do_not_continue_the_old_leaf_are_not_extended() {
        let all = entries(&LINES);
        let before = summarize(&header(), &all[..2]);
        assert_eq!(
            extend(&before, Some("u1"), &all[2..]),
            None,
            "t1 continues a1, not u1"
        );
        assert_eq!(
            extend(&before, Some("a1"), &all[3..]),
            None,
            "u2 does not continue a1"
        );
        assert_eq!(
            extend(&before, Some("a1"), &[all[2].clone(), all[2].clone()]),
            None,
            "a repeated id"
        );
    }
}
