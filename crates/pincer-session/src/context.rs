//! Rebuilds what the model sees from a session's entries: pi's `buildSessionContext` followed by
//! its `convertToLlm`, as one pure function.
//!
//! The context follows the root→leaf path through the entry tree (entries on other branches are
//! never seen). Settings come from the whole path: the last `thinking_level_change` ("off" when
//! none) and the last `model_change` or assistant message. If the path holds a compaction, the
//! last one wins: its summary comes first, then the path entries before it starting at its
//! `firstKeptEntryId` (none when that id is not among them), then every entry after it.
//!
//! Only `message`, `custom_message` and non-empty `branch_summary` entries contribute; pi's
//! coding-agent roles are turned into user messages with pi's exact wrapper texts, so the result
//! holds only user, assistant and tool result messages — ready for a provider.
//!
//! Unlike pi, the walk is cycle-safe: a `parentId` loop ends the path instead of hanging.

use super::ids::IdMap;

use serde_json::{Map, Value};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use super::record::{
    AgentMessage, AssistantMessage, BranchSummaryEntry, CompactionEntry, ContentBlock,
    CustomMessageEntry, Entry, MessageContent, TextContent, ToolResultMessage, UserMessage,
};

/// pi's `COMPACTION_SUMMARY_PREFIX`/`SUFFIX` (`core/messages.ts`).
const COMPACTION_SUMMARY_PREFIX: &str = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n";
const COMPACTION_SUMMARY_SUFFIX: &str = "\n</summary>";
/// pi's `BRANCH_SUMMARY_PREFIX`/`SUFFIX`; note there is no newline before the closing tag.
const BRANCH_SUMMARY_PREFIX: &str =
    "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n";
const BRANCH_SUMMARY_SUFFIX: &str = "</summary>";

/// What a turn starts from.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionContext {
    /// The messages to send, oldest first: only `User`, `Assistant` and `ToolResult`.
    pub messages: Vec<AgentMessage>,
    /// The reasoning level in effect at the leaf ("off" unless a change says otherwise).
    pub thinking_level: String,
    /// `(provider, model id)` in effect at the leaf, if any entry set one.
    pub model: Option<(String, String)>,
    /// The id of the compaction that shaped `messages`, if any.
    pub compaction_id: Option<String>,
}

impl SessionContext {
    /// The messages in the neutral vocabulary, moved out (what a model request is built from).
    pub fn into_conversation(self) -> Vec<crate::conversation::Message> {
        self.messages
            .into_iter()
            .filter_map(AgentMessage::into_conversation)
            .collect::<Vec<_>>()
            // Collected in place, the list would keep the room of the larger records.
            .into_boxed_slice()
            .into_vec()
    }
}

/// The entries from the root to `leaf_id`, root first. An absent or unknown leaf means the last
/// entry of the file (pi's current leaf after loading). A dangling `parentId` ends the path at
/// that entry, and so does a `parentId` that would revisit an entry.
pub fn branch_path<'a>(entries: &'a [Entry], leaf_id: Option<&str>) -> Vec<&'a Entry> {
    path_indices(entries, leaf_id)
        .into_iter()
        .map(|index| &entries[index])
        .collect()
}

/// [`branch_path`] as positions in `entries`.
fn path_indices(entries: &[Entry], leaf_id: Option<&str>) -> Vec<usize> {
    // Later entries win on a duplicate id, as in pi's id index.
    let by_id: IdMap<&str, usize> = entries
        .iter()
        .enumerate()
        .map(|(index, entry)| (entry.id(), index))
        .collect();
    let leaf = leaf_id
        .filter(|id| !id.is_empty())
        .and_then(|id| by_id.get(id).copied())
        .or_else(|| entries.len().checked_sub(1));
    let mut path = Vec::new();
    // By position: every step but the first goes through `by_id`, which holds one position
    // per id (and the first, the last entry, is its id's), so a position seen again is an id
    // seen again.
    let mut visited = vec![false; entries.len()];
    let mut current = leaf;
    while let Some(index) = current {
        let entry = &entries[index];
        if std::mem::replace(&mut visited[index], true) {
            break;
        }
        path.push(index);
        current = entry
            .parent_id()
            .filter(|parent| !parent.is_empty())
            .and_then(|parent| by_id.get(parent).copied());
    }
    path.reverse();
    path
}

/// Rebuilds the context at `leaf_id` (see [`branch_path`] for how the leaf is chosen).
pub fn build_context(entries: &[Entry], leaf_id: Option<&str>) -> SessionContext {
    let (shape, mut context) = shape(entries, leaf_id);
    for index in shape.contributing() {
        append(&entries[index], &mut context.messages);
    }
    context
}

/// [`build_context`], moving the messages out of `entries` rather than copying them: a message
/// entry on the context's path keeps its kind, ids, model, usage and stop reason, but no longer
/// its content (see [`thin_message`]). For a resume, whose earlier entries are kept only to
/// append after them and are read again in full when a compaction needs them
/// ([`super::transcript::Transcript::load_full`]): a long session is then not held twice.
pub fn take_context(entries: &mut [Entry], leaf_id: Option<&str>) -> SessionContext {
    let (shape, mut context) = shape(entries, leaf_id);
    for index in shape.contributing() {
        match &mut entries[index] {
            Entry::Message(entry) if !matches!(entry.message, AgentMessage::Other(_)) => {
                context.messages.push(thin_message(&mut entry.message));
            }
            entry => append(entry, &mut context.messages),
        }
    }
    context
}

/// Replaces `message` by a copy without its content (and a tool result's `details`), and
/// returns the original.
fn thin_message(message: &mut AgentMessage) -> AgentMessage {
    let thin = match &*message {
        AgentMessage::User(user) => AgentMessage::User(UserMessage {
            content: MessageContent::Blocks(Vec::new()),
            timestamp: user.timestamp,
            extra: user.extra.clone(),
        }),
        AgentMessage::Assistant(assistant) => AgentMessage::Assistant(AssistantMessage {
            content: Vec::new(),
            api: assistant.api.clone(),
            provider: assistant.provider.clone(),
            model: assistant.model.clone(),
            usage: assistant.usage.clone(),
            stop_reason: assistant.stop_reason,
            timestamp: assistant.timestamp,
            extra: assistant.extra.clone(),
            error_message: assistant.error_message.clone(),
        }),
        AgentMessage::ToolResult(result) => AgentMessage::ToolResult(ToolResultMessage {
            tool_call_id: result.tool_call_id.clone(),
            tool_name: result.tool_name.clone(),
            content: Vec::new(),
            details: None,
            is_error: result.is_error,
            timestamp: result.timestamp,
            extra: result.extra.clone(),
        }),
        AgentMessage::Other(value) => AgentMessage::Other(value.clone()),
    };
    std::mem::replace(message, thin)
}

/// Which path entries a context is made of: all of them, or the latest compaction's summary,
/// the entries from its first kept one to it, and everything after it.
struct Shape {
    path: Vec<usize>,
    /// The compaction's position in `path`, and where the kept entries start (in `path`).
    compaction: Option<(usize, Option<usize>)>,
}

impl Shape {
    /// The entries whose messages follow the compaction summary (if any), in order.
    fn contributing(&self) -> Vec<usize> {
        match self.compaction {
            None => self.path.clone(),
            Some((at, first_kept)) => {
                let kept = first_kept.map_or(&[][..], |first| &self.path[first..at]);
                kept.iter().chain(&self.path[at + 1..]).copied().collect()
            }
        }
    }
}

/// The path, the settings in effect at the leaf, and the compaction summary (the context's
/// first message) when the path has a compaction.
fn shape(entries: &[Entry], leaf_id: Option<&str>) -> (Shape, SessionContext) {
    let path = path_indices(entries, leaf_id);
    let mut thinking_level = String::from("off");
    let mut model = None;
    let mut compaction: Option<(usize, &CompactionEntry)> = None;
    for (position, &index) in path.iter().enumerate() {
        match &entries[index] {
            Entry::ThinkingLevelChange(change) => thinking_level.clone_from(&change.thinking_level),
            Entry::ModelChange(change) => {
                model = Some((change.provider.clone(), change.model_id.clone()));
            }
            Entry::Message(message) => {
                if let AgentMessage::Assistant(assistant) = &message.message {
                    model = Some((assistant.provider.clone(), assistant.model.clone()));
                }
            }
            Entry::Compaction(entry) => compaction = Some((position, entry)),
            _ => {}
        }
    }
    let mut messages = Vec::new();
    let compaction = compaction.map(|(at, entry)| {
        messages.push(compaction_summary(entry));
        let first_kept = path[..at]
            .iter()
            .position(|&kept| entries[kept].id() == entry.first_kept_entry_id);
        (at, first_kept, entry.id.clone())
    });
    let context = SessionContext {
        messages,
        thinking_level,
        model,
        compaction_id: compaction.as_ref().map(|(_, _, id)| id.clone()),
    };
    let shape = Shape {
        path,
        compaction: compaction.map(|(at, first_kept, _)| (at, first_kept)),
    };
    (shape, context)
}

/// The model-facing message(s) of one path entry, if it has any.
fn append(entry: &Entry, messages: &mut Vec<AgentMessage>) {
    match entry {
        Entry::Message(entry) => messages.extend(for_model(&entry.message)),
        Entry::CustomMessage(entry) => messages.push(custom_message(entry)),
        Entry::BranchSummary(entry) if !entry.summary.is_empty() => {
            messages.push(branch_summary(entry));
        }
        _ => {}
    }
}

/// pi's `convertToLlm` for one stored message: provider roles pass through, coding-agent roles
/// become user messages, `bashExecution` marked `excludeFromContext` and unknown roles vanish.
fn for_model(message: &AgentMessage) -> Option<AgentMessage> {
    let AgentMessage::Other(value) = message else {
        return Some(message.clone());
    };
    let timestamp = value.get("timestamp").and_then(Value::as_i64).unwrap_or(0);
    let blocks = match value.get("role").and_then(Value::as_str)? {
        "custom" => match value.get("content")? {
            Value::String(text) => vec![text_block(text.clone())],
            blocks @ Value::Array(_) => serde_json::from_value(blocks.clone()).ok()?,
            _ => return None,
        },
        "bashExecution" => {
            if truthy(value.get("excludeFromContext")) {
                return None;
            }
            vec![text_block(bash_execution_text(value))]
        }
        "branchSummary" => vec![text_block(wrap(
            BRANCH_SUMMARY_PREFIX,
            value.get("summary"),
            BRANCH_SUMMARY_SUFFIX,
        ))],
        "compactionSummary" => vec![text_block(wrap(
            COMPACTION_SUMMARY_PREFIX,
            value.get("summary"),
            COMPACTION_SUMMARY_SUFFIX,
        ))],
        _ => return None,
    };
    Some(user_message(blocks, timestamp))
}

fn compaction_summary(entry: &CompactionEntry) -> AgentMessage {
    let text = format!(
        "{COMPACTION_SUMMARY_PREFIX}{}{COMPACTION_SUMMARY_SUFFIX}",
        entry.summary
    );
    user_message(vec![text_block(text)], epoch_millis(&entry.timestamp))
}

fn branch_summary(entry: &BranchSummaryEntry) -> AgentMessage {
    let text = format!(
        "{BRANCH_SUMMARY_PREFIX}{}{BRANCH_SUMMARY_SUFFIX}",
        entry.summary
    );
    user_message(vec![text_block(text)], epoch_millis(&entry.timestamp))
}

fn custom_message(entry: &CustomMessageEntry) -> AgentMessage {
    let blocks = match &entry.content {
        MessageContent::Text(text) => vec![text_block(text.clone())],
        MessageContent::Blocks(blocks) => blocks.clone(),
    };
    user_message(blocks, epoch_millis(&entry.timestamp))
}

/// pi's `bashExecutionToText`: the command, its output in a fence, then how it ended.
fn bash_execution_text(message: &Value) -> String {
    let command = message.get("command").and_then(Value::as_str).unwrap_or("");
    let mut text = format!("Ran `{command}`\n");
    match message.get("output").and_then(Value::as_str) {
        Some(output) if !output.is_empty() => text.push_str(&format!("```\n{output}\n```")),
        _ => text.push_str("(no output)"),
    }
    if truthy(message.get("cancelled")) {
        text.push_str("\n\n(command cancelled)");
    } else if let Some(code) = message.get("exitCode").filter(|code| code.is_number())
        && code.as_f64() != Some(0.0)
    {
        text.push_str(&format!("\n\nCommand exited with code {code}"));
    }
    if truthy(message.get("truncated"))
        && let Some(path) = message
            .get("fullOutputPath")
            .and_then(Value::as_str)
            .filter(|path| !path.is_empty())
    {
        text.push_str(&format!("\n\n[Output truncated. Full output: {path}]"));
    }
    text
}

fn wrap(prefix: &str, summary: Option<&Value>, suffix: &str) -> String {
    let summary = summary.and_then(Value::as_str).unwrap_or("");
    format!("{prefix}{summary}{suffix}")
}

/// JavaScript truthiness for the flags pi tests with `if (flag)`.
fn truthy(value: Option<&Value>) -> bool {
    match value {
        None | Some(Value::Null) => false,
        Some(Value::Bool(flag)) => *flag,
        Some(Value::Number(number)) => number.as_f64().is_some_and(|n| n != 0.0 && !n.is_nan()),
        Some(Value::String(text)) => !text.is_empty(),
        Some(Value::Array(_) | Value::Object(_)) => true,
    }
}

fn text_block(text: String) -> ContentBlock {
    ContentBlock::Text(TextContent {
        text,
        text_signature: None,
        citations: None,
        extra: Map::new(),
    })
}

fn user_message(blocks: Vec<ContentBlock>, timestamp: i64) -> AgentMessage {
    AgentMessage::User(UserMessage {
        content: MessageContent::Blocks(blocks),
        timestamp,
        extra: Map::new(),
    })
}

/// An entry's ISO timestamp as epoch milliseconds (pi: `new Date(timestamp).getTime()`); 0 when
/// it does not parse.
fn epoch_millis(timestamp: &str) -> i64 {
    OffsetDateTime::parse(timestamp, &Rfc3339)
        .map(|time| (time.unix_timestamp_nanos() / 1_000_000) as i64)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_line;
    use crate::record::{
        AssistantContent, AssistantMessage, CustomEntry, LabelEntry, Line, MessageEntry,
        ModelChangeEntry, SessionInfoEntry, StopReason, ThinkingLevelChangeEntry, Usage, to_line,
    };
    use pretty_assertions::assert_eq;
    use serde_json::json;
    use std::path::PathBuf;

    // ----- builders for hand-made trees -----

    fn message_entry(id: &str, parent: Option<&str>, message: AgentMessage) -> Entry {
        Entry::Message(MessageEntry {
            id: id.into(),
            parent_id: parent.map(Into::into),
            timestamp: "2026-01-01T00:00:01.000Z".into(),
            message,
            extra: Map::new(),
        })
    }

    fn user(id: &str, parent: Option<&str>, text: &str) -> Entry {
        message_entry(
            id,
            parent,
            AgentMessage::User(UserMessage {
                content: MessageContent::Text(text.into()),
                timestamp: 1,
                extra: Map::new(),
            }),
        )
    }

    fn assistant(id: &str, parent: Option<&str>, text: &str) -> Entry {
        message_entry(
            id,
            parent,
            AgentMessage::Assistant(AssistantMessage {
                content: vec![AssistantContent::Text(TextContent {
                    text: text.into(),
                    text_signature: None,
                    extra: Map::new(),
                    citations: None,
                })],
                api: "anthropic-messages".into(),
                provider: "anthropic".into(),
                model: "claude-sonnet-4-5".into(),
                usage: Usage::default(),
                stop_reason: StopReason::Stop,
                timestamp: 2,
                extra: Map::new(),
                error_message: None,
            }),
        )
    }

    fn compaction(id: &str, parent: &str, first_kept: &str, summary: &str) -> Entry {
        Entry::Compaction(CompactionEntry {
            id: id.into(),
            parent_id: Some(parent.into()),
            timestamp: "2026-01-01T00:00:02.500Z".into(),
            summary: summary.into(),
            first_kept_entry_id: first_kept.into(),
            tokens_before: 1000,
            details: None,
            from_hook: None,
            extra: Map::new(),
        })
    }

    fn custom(id: &str, parent: &str) -> Entry {
        Entry::Custom(CustomEntry {
            custom_type: "pincer.claude-cli".into(),
            data: Some(json!({"sessionId": "abc"})),
            id: id.into(),
            parent_id: Some(parent.into()),
            timestamp: "2026-01-01T00:00:03.000Z".into(),
            extra: Map::new(),
        })
    }

    /// The texts of the messages, in order, whatever their role.
    fn texts(context: &SessionContext) -> Vec<String> {
        context
            .messages
            .iter()
            .map(|message| match message {
                AgentMessage::User(user) => match &user.content {
                    MessageContent::Text(text) => text.clone(),
                    MessageContent::Blocks(blocks) => blocks
                        .iter()
                        .map(|block| match block {
                            ContentBlock::Text(text) => text.text.clone(),
                            other => format!("{other:?}"),
                        })
                        .collect::<Vec<_>>()
                        .join("|"),
                },
                AgentMessage::Assistant(assistant) => assistant
                    .content
                    .iter()
                    .map(|block| match block {
                        AssistantContent::Text(text) => text.text.clone(),
                        other => format!("{other:?}"),
                    })
                    .collect::<Vec<_>>()
                    .join("|"),
                other => format!("{other:?}"),
            })
            .collect()
    }

    fn ids(path: &[&Entry]) -> Vec<String> {
        path.iter().map(|entry| entry.id().to_owned()).collect()
    }

    #[test]
    fn taking_the_context_gives_the_built_one_and_leaves_the_entries_without_content() {
        let entries = vec![
            user("u1", None, "old question"),
            assistant("a1", Some("u1"), "old answer"),
            user("u2", Some("a1"), "kept question"),
            assistant("a2", Some("u2"), "kept answer"),
            compaction("c1", "a2", "u2", "we talked"),
            custom("x1", "c1"),
            user("u3", Some("x1"), "new question"),
        ];
        let mut taken = entries.clone();
        assert_eq!(
            take_context(&mut taken, None),
            build_context(&entries, None)
        );
        // Ids, kinds and parents stay; the messages sent lost their text, the others kept it.
        assert_eq!(
            taken.iter().map(Entry::id).collect::<Vec<_>>(),
            entries.iter().map(Entry::id).collect::<Vec<_>>()
        );
        let text_of = |entry: &Entry| match entry {
            Entry::Message(entry) => texts(&SessionContext {
                messages: vec![entry.message.clone()],
                thinking_level: String::new(),
                model: None,
                compaction_id: None,
            })
            .concat(),
            _ => String::new(),
        };
        assert_eq!(text_of(&taken[0]), "old question");
        assert_eq!(text_of(&taken[2]), "");
        assert_eq!(text_of(&taken[6]), "");
        let (Entry::Message(whole), Entry::Message(thin)) = (&entries[3], &taken[3]) else {
            panic!("message entries");
        };
        let (AgentMessage::Assistant(whole), AgentMessage::Assistant(thin)) =
            (&whole.message, &thin.message)
        else {
            panic!("assistant messages");
        };
        assert_eq!(
            (&thin.provider, &thin.model, &thin.usage, thin.stop_reason),
            (
                &whole.provider,
                &whole.model,
                &whole.usage,
                whole.stop_reason
            )
        );
        assert!(thin.content.is_empty());
    }

    // ----- hand-made trees -----

    #[test]
    fn without_compaction_every_message_on_the_path_is_sent_in_order() {
        let entries = vec![
            Entry::ThinkingLevelChange(ThinkingLevelChangeEntry {
                id: "t1".into(),
                parent_id: None,
                timestamp: "2026-01-01T00:00:00.000Z".into(),
                thinking_level: "high".into(),
                extra: Map::new(),
            }),
            user("u1", Some("t1"), "hello"),
            assistant("a1", Some("u1"), "hi"),
            user("u2", Some("a1"), "bye"),
        ];
        let context = build_context(&entries, None);
        assert_eq!(texts(&context), ["hello", "hi", "bye"]);
        assert_eq!(context.thinking_level, "high");
        assert_eq!(
            context.model,
            Some(("anthropic".to_owned(), "claude-sonnet-4-5".to_owned()))
        );
        assert_eq!(context.compaction_id, None);
    }

    #[test]
    fn an_empty_session_has_no_messages_thinking_off_and_no_model() {
        let context = build_context(&[], None);
        assert_eq!(context.messages, Vec::new());
        assert_eq!(context.thinking_level, "off");
        assert_eq!(context.model, None);
        assert!(branch_path(&[], Some("anything")).is_empty());
    }

    #[test]
    fn a_compaction_sends_its_summary_then_the_kept_entries_then_what_follows() {
        let entries = vec![
            user("u1", None, "old question"),
            assistant("a1", Some("u1"), "old answer"),
            user("u2", Some("a1"), "kept question"),
            assistant("a2", Some("u2"), "kept answer"),
            compaction("c1", "a2", "u2", "we talked"),
            user("u3", Some("c1"), "new question"),
        ];
        let context = build_context(&entries, None);
        assert_eq!(
            texts(&context),
            [
                "The conversation history before this point was compacted into the following summary:\n\n<summary>\nwe talked\n</summary>",
                "kept question",
                "kept answer",
                "new question",
            ]
        );
        assert_eq!(context.compaction_id.as_deref(), Some("c1"));
        let AgentMessage::User(summary) = &context.messages[0] else {
            panic!("the summary is not a user message");
        };
        assert_eq!(
            summary.timestamp, 1_767_225_602_500,
            "the compaction's time in ms"
        );
    }

    #[test]
    fn only_the_last_compaction_on_the_path_counts() {
        let entries = vec![
            user("u1", None, "first"),
            compaction("c1", "u1", "u1", "one"),
            user("u2", Some("c1"), "second"),
            compaction("c2", "u2", "u2", "two"),
            user("u3", Some("c2"), "third"),
        ];
        let context = build_context(&entries, None);
        assert_eq!(context.compaction_id.as_deref(), Some("c2"));
        assert_eq!(texts(&context).len(), 3);
        assert!(texts(&context)[0].contains("<summary>\ntwo\n</summary>"));
        assert_eq!(texts(&context)[1..], ["second", "third"]);
    }

    #[test]
    fn a_compaction_whose_first_kept_entry_is_missing_keeps_nothing_before_it() {
        let entries = vec![
            user("u1", None, "old question"),
            assistant("a1", Some("u1"), "old answer"),
            compaction("c1", "a1", "gone0000", "summary"),
            user("u2", Some("c1"), "after"),
        ];
        let context = build_context(&entries, None);
        assert_eq!(context.messages.len(), 2);
        assert!(texts(&context)[0].ends_with("<summary>\nsummary\n</summary>"));
        assert_eq!(texts(&context)[1], "after");
    }

    #[test]
    fn a_first_kept_entry_after_the_compaction_does_not_count_as_kept() {
        let entries = vec![
            user("u1", None, "old"),
            compaction("c1", "u1", "u2", "summary"),
            user("u2", Some("c1"), "after"),
        ];
        assert_eq!(texts(&build_context(&entries, None))[1..], ["after"]);
    }

    #[test]
    fn the_leaf_picks_the_branch_and_the_other_branch_is_absent() {
        let entries = vec![
            user("u1", None, "question"),
            assistant("a1", Some("u1"), "answer on branch one"),
            assistant("a2", Some("u1"), "answer on branch two"),
            user("u2", Some("a1"), "follow-up on branch one"),
        ];
        let at_end = build_context(&entries, None);
        assert_eq!(
            texts(&at_end),
            [
                "question",
                "answer on branch one",
                "follow-up on branch one"
            ]
        );
        let on_two = build_context(&entries, Some("a2"));
        assert_eq!(texts(&on_two), ["question", "answer on branch two"]);
        assert_eq!(ids(&branch_path(&entries, Some("a2"))), ["u1", "a2"]);
    }

    #[test]
    fn a_branch_summary_is_sent_as_a_wrapped_user_message_unless_empty() {
        let summary = |id: &str, parent: &str, text: &str| {
            Entry::BranchSummary(BranchSummaryEntry {
                id: id.into(),
                parent_id: Some(parent.into()),
                timestamp: "2026-01-01T00:00:04.000Z".into(),
                from_id: "a2".into(),
                summary: text.into(),
                details: None,
                from_hook: None,
                extra: Map::new(),
            })
        };
        let entries = vec![
            user("u1", None, "question"),
            summary("b0", "u1", ""),
            summary("b1", "b0", "tried another way"),
            user("u2", Some("b1"), "go on"),
        ];
        assert_eq!(
            texts(&build_context(&entries, None)),
            [
                "question",
                "The following is a summary of a branch that this conversation came back from:\n\n<summary>\ntried another way</summary>",
                "go on",
            ]
        );
    }

    #[test]
    fn custom_entries_labels_names_and_settings_never_reach_the_model() {
        let entries = vec![
            user("u1", None, "question"),
            custom("x1", "u1"),
            Entry::Label(LabelEntry {
                id: "l1".into(),
                parent_id: Some("x1".into()),
                timestamp: "2026-01-01T00:00:05.000Z".into(),
                target_id: "u1".into(),
                label: Some("mark".into()),
                extra: Map::new(),
            }),
            Entry::SessionInfo(SessionInfoEntry {
                id: "s1".into(),
                parent_id: Some("l1".into()),
                timestamp: "2026-01-01T00:00:06.000Z".into(),
                name: Some("name".into()),
                extra: Map::new(),
            }),
            Entry::ModelChange(ModelChangeEntry {
                id: "m1".into(),
                parent_id: Some("s1".into()),
                timestamp: "2026-01-01T00:00:07.000Z".into(),
                provider: "openai".into(),
                model_id: "gpt-5".into(),
                extra: Map::new(),
            }),
            Entry::Unknown(
                json!({"type": "future", "id": "f1", "parentId": "m1", "timestamp": "t"}),
            ),
            user("u2", Some("f1"), "again"),
        ];
        let context = build_context(&entries, None);
        assert_eq!(texts(&context), ["question", "again"]);
        assert_eq!(
            context.model,
            Some(("openai".to_owned(), "gpt-5".to_owned()))
        );
        assert_eq!(
            branch_path(&entries, None).len(),
            7,
            "all of them are on the path"
        );
    }

    #[test]
    fn a_custom_message_is_sent_as_a_user_message_with_blocks() {
        let entries = vec![Entry::CustomMessage(CustomMessageEntry {
            custom_type: "pincer.note".into(),
            content: MessageContent::Text("remember this".into()),
            display: false,
            details: Some(json!({"hidden": true})),
            id: "n1".into(),
            parent_id: None,
            timestamp: "2026-01-01T00:00:00.000Z".into(),
            extra: Map::new(),
        })];
        let context = build_context(&entries, None);
        let AgentMessage::User(message) = &context.messages[0] else {
            panic!("not a user message");
        };
        assert_eq!(
            to_line(message).unwrap(),
            "{\"content\":[{\"type\":\"text\",\"text\":\"remember this\"}],\"timestamp\":1767225600000}\n"
        );
    }

    #[test]
    fn a_parent_id_cycle_ends_the_path_instead_of_hanging() {
        let entries = vec![
            user("u1", Some("u3"), "one"),
            user("u2", Some("u1"), "two"),
            user("u3", Some("u2"), "three"),
        ];
        assert_eq!(ids(&branch_path(&entries, None)), ["u1", "u2", "u3"]);
        assert_eq!(
            texts(&build_context(&entries, Some("u1"))),
            ["two", "three", "one"]
        );
        let self_loop = vec![user("u1", Some("u1"), "alone")];
        assert_eq!(texts(&build_context(&self_loop, None)), ["alone"]);
    }

    #[test]
    fn an_unknown_leaf_id_falls_back_to_the_last_entry() {
        let entries = vec![
            user("u1", None, "question"),
            assistant("a1", Some("u1"), "first answer"),
            assistant("a2", Some("u1"), "second answer"),
        ];
        assert_eq!(
            texts(&build_context(&entries, Some("nope0000"))),
            ["question", "second answer"]
        );
        assert_eq!(ids(&branch_path(&entries, Some(""))), ["u1", "a2"]);
    }

    #[test]
    fn a_dangling_parent_id_makes_that_entry_the_root() {
        let entries = vec![
            user("u1", None, "lost"),
            user("u2", Some("missing0"), "orphan"),
        ];
        assert_eq!(texts(&build_context(&entries, None)), ["orphan"]);
    }

    // ----- pi's own output -----

    fn load(name: &str) -> (Vec<Entry>, Value) {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sessions");
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        let entries = text
            .lines()
            .skip(1)
            .map(|line| match parse_line(line).unwrap() {
                Line::Entry(entry) => entry,
                Line::Header(_) => panic!("second header"),
            })
            .collect();
        let expected_name = name.replace(".jsonl", ".context.json");
        let expected = std::fs::read_to_string(dir.join(expected_name)).unwrap();
        (entries, serde_json::from_str(&expected).unwrap())
    }

    /// Our context in the shape pi's generator script recorded (`convertToLlm` output).
    fn as_pi_json(context: &SessionContext) -> Value {
        let messages: Vec<Value> = context
            .messages
            .iter()
            .map(|message| serde_json::from_str(&to_line(message).unwrap()).unwrap())
            .collect();
        json!({
            "messages": messages,
            "thinkingLevel": context.thinking_level,
            "model": context.model.as_ref().map(|(provider, model_id)| json!({"provider": provider, "modelId": model_id})),
        })
    }

    #[test]
    fn contexts_match_what_pi_rebuilds_from_the_same_files() {
        let mut compared = 0;
        for name in [
            "pi-v3-linear.jsonl",
            "pi-v3-branched.jsonl",
            "edge-cases-v3.jsonl",
        ] {
            let (entries, expected) = load(name);
            for (leaf, expected_context) in expected.as_object().unwrap() {
                let leaf_id = (leaf != "default").then_some(leaf.as_str());
                let ours = as_pi_json(&build_context(&entries, leaf_id));
                assert_eq!(&ours, expected_context, "{name} at leaf {leaf}");
                compared += 1;
            }
        }
        assert_eq!(compared, 5);
    }

    #[test]
    fn the_branched_pi_session_uses_its_compaction_and_the_current_branch() {
        let (entries, _) = load("pi-v3-branched.jsonl");
        let context = build_context(&entries, None);
        let compaction = entries.iter().find(|e| e.kind() == "compaction").unwrap();
        assert_eq!(context.compaction_id.as_deref(), Some(compaction.id()));
        assert_eq!(context.thinking_level, "medium");
        assert_eq!(
            context.model,
            Some(("anthropic".to_owned(), "claude-sonnet-4-5".to_owned()))
        );
        let texts = texts(&context);
        assert!(texts[0].starts_with(COMPACTION_SUMMARY_PREFIX));
        assert_eq!(texts[1], "Now write notes.md with a summary.");
        assert!(
            !texts
                .iter()
                .any(|text| text.starts_with("Describe this screenshot")),
            "compacted away"
        );
        assert!(
            !texts
                .iter()
                .any(|text| text.contains("rate limit exceeded")),
            "other branch"
        );
        assert!(
            texts
                .iter()
                .any(|text| text.starts_with(BRANCH_SUMMARY_PREFIX))
        );
        assert_eq!(
            texts.last().map(String::as_str),
            Some("Continuing with notes.md.")
        );
        assert!(context.messages.iter().all(|m| matches!(
            m,
            AgentMessage::User(_) | AgentMessage::Assistant(_) | AgentMessage::ToolResult(_)
        )));
    }

    #[test]
    fn the_failed_branch_of_the_pi_session_has_its_own_model() {
        let (entries, _) = load("pi-v3-branched.jsonl");
        let failed = entries
            .iter()
            .find(|entry| match entry {
                Entry::Message(message) => matches!(
                    &message.message,
                    AgentMessage::Assistant(assistant) if assistant.stop_reason == StopReason::Error
                ),
                _ => false,
            })
            .unwrap();
        let context = build_context(&entries, Some(failed.id()));
        assert_eq!(
            context.model,
            Some(("openai".to_owned(), "gpt-5".to_owned()))
        );
        assert!(!texts(&context).iter().any(|text| text == "Only notes.md."));
    }

    #[test]
    fn coding_agent_roles_become_user_messages_like_pi_converts_them() {
        let (entries, _) = load("edge-cases-v3.jsonl");
        let context = build_context(&entries, Some("e000000a"));
        let texts = texts(&context);
        assert_eq!(
            texts[2],
            "Ran `ls`\n```\na\nb\n```\n\nCommand exited with code 2\n\n[Output truncated. Full output: /tmp/out.txt]"
        );
        assert_eq!(texts[3], "from a hook", "the custom role");
        assert!(
            !texts.iter().any(|text| text.contains("secret")),
            "excluded from context"
        );
        assert_eq!(context.messages.len(), 6);
    }
}
