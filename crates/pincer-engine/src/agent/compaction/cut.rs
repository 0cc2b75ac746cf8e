//! Where to cut a branch for compaction, and what the summary has to cover: pi's
//! `prepareCompaction` and `findCutPoint` (`core/compaction/compaction.ts`, pi 0.73).
//!
//! The rules, on the root→leaf path only (other branches are never looked at):
//! - Nothing to do when the path ends in a compaction, or when the recent messages worth
//!   `keep_recent_tokens` already reach back to where the summarized region starts.
//! - The region starts at the latest compaction's first kept entry (its kept messages were not in
//!   its summary, so the new summary must absorb them), or right after that compaction when the
//!   kept entry is not on the path, or at the root.
//! - Walking back from the newest message, estimates (chars/4) are added up until they reach
//!   `keep_recent_tokens`; the cut goes to the first valid cut point at or after that message.
//!   Valid: user, assistant and pi's coding-agent messages, `custom_message` and `branch_summary`
//!   entries. Never a tool result: it must stay behind the call that asked for it.
//! - Entries other than `message` right before the cut stay with the kept part: settings
//!   (model or thinking changes, labels, …) so the kept messages keep the settings they ran
//!   under, and custom messages or branch summaries that lead into the kept prompt.
//! - A cut that lands inside a turn (not on a user message) splits it: the turn's messages before
//!   the cut become the `turn_prefix`, summarized on their own, and the history before the turn
//!   is summarized as usual.
//!
//! One deliberate difference from pi: whether a turn is split is decided on the message the cut
//! point found, before the cut moves back over settings entries. pi decides it on the moved cut,
//! so a model change right before a user message made it treat the whole previous turn as the
//! prefix of a split turn.

use serde_json::{Map, Value, json};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::session::context::{branch_path, build_context};
use crate::session::record::{AgentMessage, Entry, MessageContent, StopReason};
use crate::session::summary::estimate_tokens;

/// What a compaction has to do: where the kept part starts and what the summary replaces.
#[derive(Debug, Clone, PartialEq)]
pub struct CutPlan {
    /// The entry the kept part starts at (the new compaction entry's `firstKeptEntryId`).
    pub first_kept_entry_id: String,
    /// Messages on the branch, from the latest compaction's kept part (or the root) up to the
    /// cut, that the summary replaces. Coding-agent messages keep their pi roles (`custom`,
    /// `branchSummary`, `bashExecution`).
    pub to_summarize: Vec<AgentMessage>,
    /// When the cut falls inside a turn: that turn's messages before the cut, summarized
    /// separately. Empty otherwise.
    pub turn_prefix: Vec<AgentMessage>,
    /// The latest compaction's summary on the branch, to be updated rather than rewritten.
    pub previous_summary: Option<String>,
    /// The latest compaction's `details` (its `readFiles`/`modifiedFiles`), to carry the file
    /// lists over; `None` when an extension wrote that compaction (`fromHook`), as in pi.
    pub previous_details: Option<Value>,
    /// Context tokens before compaction: the last reported usage on the branch plus estimates
    /// of the messages after it (pi's `estimateContextTokens`).
    pub tokens_before: u64,
    /// Estimated tokens of the messages that stay (from the cut to the leaf).
    pub kept_tokens: u64,
}

/// Plans the compaction of the branch ending at `leaf_id` (the last entry when `None` or
/// unknown), keeping about `keep_recent_tokens` of recent messages.
///
/// Returns `None` when there is nothing to do: an empty branch, a branch that already ends in a
/// compaction, or one whose messages since the last compaction all fit in the budget.
pub fn plan(entries: &[Entry], leaf_id: Option<&str>, keep_recent_tokens: u64) -> Option<CutPlan> {
    let path = branch_path(entries, leaf_id);
    if matches!(path.last(), None | Some(Entry::Compaction(_))) {
        return None;
    }

    let previous = path
        .iter()
        .enumerate()
        .rev()
        .find_map(|(index, entry)| match entry {
            Entry::Compaction(compaction) => Some((index, compaction)),
            _ => None,
        });
    let region_start = previous.map_or(0, |(index, compaction)| {
        path.iter()
            .position(|entry| {
                !compaction.first_kept_entry_id.is_empty()
                    && entry.id() == compaction.first_kept_entry_id
            })
            .unwrap_or(index + 1)
    });

    let cut = find_cut(&path, region_start, keep_recent_tokens);
    let first_kept_entry_id = path.get(cut.first_kept)?.id();
    if first_kept_entry_id.is_empty() {
        // An entry without an id cannot be named as the first kept one (an unmigrated file).
        return None;
    }

    let history_end = cut.turn_start.unwrap_or(cut.first_kept);
    let to_summarize = messages_of(&path[region_start.min(history_end)..history_end]);
    let turn_prefix = match cut.turn_start {
        Some(turn_start) => messages_of(&path[turn_start..cut.first_kept]),
        None => Vec::new(),
    };
    if to_summarize.is_empty() && turn_prefix.is_empty() {
        return None;
    }

    let kept_tokens = messages_of(&path[cut.first_kept..])
        .iter()
        .map(message_tokens)
        .sum();
    let tokens_before = estimate_context_tokens(&build_context(entries, leaf_id).messages);

    Some(CutPlan {
        first_kept_entry_id: first_kept_entry_id.to_owned(),
        to_summarize,
        turn_prefix,
        previous_summary: previous.map(|(_, compaction)| compaction.summary.clone()),
        previous_details: previous
            .filter(|(_, compaction)| compaction.from_hook != Some(true))
            .and_then(|(_, compaction)| compaction.details.clone()),
        tokens_before,
        kept_tokens,
    })
}

/// The plan after the provider refused a request as too long (SPEC §7): compact even when the
/// estimate says everything fits. The usual plan first; when `keep_recent_tokens` already covers
/// the whole history since the last compaction, the current turn alone is kept (from its prompt
/// on) and everything before it is summarized. `None` when the current turn is all there is: then
/// nothing can be cut, and the overflow stands.
pub fn plan_for_overflow(
    entries: &[Entry],
    leaf_id: Option<&str>,
    keep_recent_tokens: u64,
) -> Option<CutPlan> {
    plan(entries, leaf_id, keep_recent_tokens).or_else(|| {
        plan(
            entries,
            leaf_id,
            current_turn_tokens(entries, leaf_id).max(1),
        )
    })
}

/// The estimated tokens of the messages from the branch's last turn start to its leaf: as a
/// `keep_recent_tokens` budget, it makes [`find_cut`] stop exactly at that turn's prompt.
fn current_turn_tokens(entries: &[Entry], leaf_id: Option<&str>) -> u64 {
    let mut tokens = 0;
    for entry in branch_path(entries, leaf_id).into_iter().rev() {
        if let Entry::Message(entry) = entry {
            tokens += message_tokens(&entry.message);
        }
        if is_turn_start(entry) {
            break;
        }
    }
    tokens
}

/// pi's `estimateContextTokens`: the context the last successful call reported, plus chars/4
/// estimates of everything after it; the sum of estimates when no call reported usage.
///
/// Unlike pi, an assistant message whose usage is all zeros counts as "no usage" (pincer's CLI
/// backends and old files may record none), so the search goes on to an earlier call.
pub fn estimate_context_tokens(messages: &[AgentMessage]) -> u64 {
    let last_reported = messages
        .iter()
        .enumerate()
        .rev()
        .find_map(|(index, message)| {
            let AgentMessage::Assistant(assistant) = message else {
                return None;
            };
            if matches!(
                assistant.stop_reason,
                StopReason::Error | StopReason::Aborted
            ) {
                return None;
            }
            let usage = &assistant.usage;
            // SPEC §8: prompt (three disjoint parts) plus output; `totalTokens` only as a fallback.
            let tokens = usage.input + usage.output + usage.cache_read + usage.cache_write;
            let tokens = if tokens > 0 {
                tokens
            } else {
                usage.total_tokens
            };
            (tokens > 0).then_some((index, tokens))
        });
    match last_reported {
        Some((index, tokens)) => {
            tokens
                + messages[index + 1..]
                    .iter()
                    .map(message_tokens)
                    .sum::<u64>()
        }
        None => messages.iter().map(message_tokens).sum(),
    }
}

/// pi's `estimateTokens` for one message. The shared estimate in `session::summary` reads
/// `content`/`summary`; pi's `bashExecution` keeps its text in `command` and `output` instead.
pub fn message_tokens(message: &AgentMessage) -> u64 {
    if let AgentMessage::Other(value) = message
        && message.role() == "bashExecution"
    {
        let length = |key: &str| {
            value
                .get(key)
                .and_then(Value::as_str)
                .map_or(0, |text| text.encode_utf16().count())
        };
        return (length("command") + length("output")).div_ceil(4) as u64;
    }
    estimate_tokens(std::slice::from_ref(message))
}

/// Where the kept part starts (`first_kept`) and, for a split turn, where that turn starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Cut {
    first_kept: usize,
    turn_start: Option<usize>,
}

fn find_cut(path: &[&Entry], start: usize, keep_recent_tokens: u64) -> Cut {
    let cut_points: Vec<usize> = (start..path.len())
        .filter(|&index| is_cut_point(path[index]))
        .collect();
    let Some(&first_cut_point) = cut_points.first() else {
        return Cut {
            first_kept: start,
            turn_start: None,
        };
    };

    // Keeping everything is the default when the budget is never reached.
    let mut cut_point = first_cut_point;
    let mut accumulated = 0;
    for index in (start..path.len()).rev() {
        // Only `message` entries count, as in pi: custom messages and branch summaries are
        // valid cut points but do not fill the budget.
        let Entry::Message(entry) = path[index] else {
            continue;
        };
        accumulated += message_tokens(&entry.message);
        if accumulated >= keep_recent_tokens {
            if let Some(&point) = cut_points.iter().find(|&&point| point >= index) {
                cut_point = point;
            }
            break;
        }
    }

    // Settings entries directly before the cut go with the kept part; a message or an earlier
    // compaction ends that.
    let mut first_kept = cut_point;
    while first_kept > start
        && !matches!(
            path[first_kept - 1],
            Entry::Message(_) | Entry::Compaction(_)
        )
    {
        first_kept -= 1;
    }

    let starts_turn =
        matches!(path[cut_point], Entry::Message(entry) if entry.message.role() == "user");
    let turn_start = if starts_turn {
        None
    } else {
        (start..=cut_point)
            .rev()
            .find(|&index| is_turn_start(path[index]))
            .filter(|&turn_start| turn_start < first_kept)
    };
    Cut {
        first_kept,
        turn_start,
    }
}

/// Whether the kept part may start at this entry.
fn is_cut_point(entry: &Entry) -> bool {
    match entry {
        Entry::Message(entry) => matches!(
            entry.message.role(),
            "user"
                | "assistant"
                | "bashExecution"
                | "custom"
                | "branchSummary"
                | "compactionSummary"
        ),
        Entry::BranchSummary(_) | Entry::CustomMessage(_) => true,
        _ => false,
    }
}

/// Whether a turn begins at this entry: a user prompt, a user-run shell command, or an entry the
/// model sees as a user message.
fn is_turn_start(entry: &Entry) -> bool {
    match entry {
        Entry::Message(entry) => matches!(entry.message.role(), "user" | "bashExecution"),
        Entry::BranchSummary(_) | Entry::CustomMessage(_) => true,
        _ => false,
    }
}

/// The messages of path entries, as pi's `getMessageFromEntryForCompaction` gives them:
/// messages as stored, custom messages and branch summaries in pi's `custom`/`branchSummary`
/// roles, compactions and settings entries not at all.
fn messages_of(entries: &[&Entry]) -> Vec<AgentMessage> {
    entries
        .iter()
        .filter_map(|entry| match entry {
            Entry::Message(entry) => Some(entry.message.clone()),
            Entry::CustomMessage(entry) => {
                let mut message = Map::new();
                message.insert("role".into(), json!("custom"));
                message.insert("customType".into(), json!(entry.custom_type));
                let content = match &entry.content {
                    MessageContent::Text(text) => json!(text),
                    MessageContent::Blocks(blocks) => json!(blocks),
                };
                message.insert("content".into(), content);
                message.insert("display".into(), json!(entry.display));
                if let Some(details) = &entry.details {
                    message.insert("details".into(), details.clone());
                }
                message.insert("timestamp".into(), json!(epoch_millis(&entry.timestamp)));
                Some(AgentMessage::Other(Value::Object(message)))
            }
            Entry::BranchSummary(entry) => Some(AgentMessage::Other(json!({
                "role": "branchSummary",
                "summary": entry.summary,
                "fromId": entry.from_id,
                "timestamp": epoch_millis(&entry.timestamp),
            }))),
            _ => None,
        })
        .collect()
}

/// An ISO entry timestamp as epoch milliseconds, the unit message timestamps use; 0 when it
/// does not parse.
fn epoch_millis(timestamp: &str) -> i64 {
    OffsetDateTime::parse(timestamp, &Rfc3339)
        .map(|time| (time.unix_timestamp_nanos() / 1_000_000) as i64)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::parse::parse_line;
    use crate::session::record::Line;
    use pretty_assertions::assert_eq;

    // ----- entries from JSON literals, as they appear in a session file -----

    fn entry(value: Value) -> Entry {
        match parse_line(&value.to_string()).unwrap() {
            Line::Entry(entry) => entry,
            Line::Header(_) => panic!("a header is no entry"),
        }
    }

    fn message(id: &str, parent: Option<&str>, message: Value) -> Entry {
        entry(json!({
            "type": "message", "id": id, "parentId": parent,
            "timestamp": "2026-01-01T00:00:00.000Z", "message": message,
        }))
    }

    /// A user message of `tokens` estimated tokens (4 characters each).
    fn user(id: &str, parent: Option<&str>, tokens: usize) -> Entry {
        message(
            id,
            parent,
            json!({"role": "user", "content": "u".repeat(tokens * 4), "timestamp": 1}),
        )
    }

    fn assistant(id: &str, parent: Option<&str>, tokens: usize) -> Entry {
        assistant_with_usage(id, parent, tokens, json!({}))
    }

    fn assistant_with_usage(id: &str, parent: Option<&str>, tokens: usize, usage: Value) -> Entry {
        message(
            id,
            parent,
            json!({
                "role": "assistant",
                "content": [{"type": "text", "text": "a".repeat(tokens * 4)}],
                "api": "anthropic-messages", "provider": "anthropic", "model": "claude",
                "usage": usage, "stopReason": "stop", "timestamp": 2,
            }),
        )
    }

    /// An assistant message that only calls `read` (about 8 tokens).
    fn tool_call(id: &str, parent: Option<&str>, call_id: &str) -> Entry {
        message(
            id,
            parent,
            json!({
                "role": "assistant",
                "content": [{"type": "toolCall", "id": call_id, "name": "read",
                             "arguments": {"path": "src/main.rs"}}],
                "api": "anthropic-messages", "provider": "anthropic", "model": "claude",
                "usage": {}, "stopReason": "toolUse", "timestamp": 2,
            }),
        )
    }

    fn tool_result(id: &str, parent: Option<&str>, call_id: &str, tokens: usize) -> Entry {
        message(
            id,
            parent,
            json!({
                "role": "toolResult", "toolCallId": call_id, "toolName": "read",
                "content": [{"type": "text", "text": "r".repeat(tokens * 4)}],
                "isError": false, "timestamp": 3,
            }),
        )
    }

    fn compaction(id: &str, parent: &str, first_kept: &str, summary: &str) -> Entry {
        entry(json!({
            "type": "compaction", "id": id, "parentId": parent,
            "timestamp": "2026-01-01T00:00:05.000Z", "summary": summary,
            "firstKeptEntryId": first_kept, "tokensBefore": 5000,
            "details": {"readFiles": ["a.rs"], "modifiedFiles": ["b.rs"]},
        }))
    }

    fn model_change(id: &str, parent: &str) -> Entry {
        entry(json!({
            "type": "model_change", "id": id, "parentId": parent,
            "timestamp": "2026-01-01T00:00:03.000Z", "provider": "openai", "modelId": "gpt-5",
        }))
    }

    /// The first characters of each message's text, to compare message lists compactly.
    fn heads(messages: &[AgentMessage]) -> Vec<String> {
        messages
            .iter()
            .map(|message| {
                let value = serde_json::to_value(message).unwrap();
                let text = match &value["content"] {
                    Value::String(text) => text.clone(),
                    Value::Array(blocks) => blocks[0]
                        .get("text")
                        .or_else(|| blocks[0].get("name"))
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_owned(),
                    _ => value["summary"].as_str().unwrap_or("").to_owned(),
                };
                format!(
                    "{}:{}",
                    message.role(),
                    text.chars().take(1).collect::<String>()
                )
            })
            .collect()
    }

    /// Compaction plans from a tail load (what a resume reads) equal the plans from the whole
    /// file, whatever `keep_recent_tokens` is: moved here from the session crate's tail tests,
    /// which cannot see the engine's planner.
    #[test]
    fn a_tail_load_plans_the_same_compaction_as_the_whole_file() {
        let mut entries = vec![user("u0", None, 300), assistant("a0", Some("u0"), 300)];
        let mut parent = "a0".to_owned();
        for turn in 1..12 {
            let (u, a) = (format!("u{turn}"), format!("a{turn}"));
            entries.push(user(&u, Some(&parent), 50 * turn));
            entries.push(assistant(&a, Some(&u), 40 * turn));
            if turn == 5 {
                entries.push(compaction("c5", &a, "u4", "first five turns"));
                parent = "c5".to_owned();
            } else {
                parent = a;
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("session.jsonl");
        let mut text = String::from(
            r#"{"type":"session","version":3,"id":"0197a1b2-0000-7000-8000-000000000001","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/work"}"#,
        );
        text.push('\n');
        for entry in &entries {
            text.push_str(&crate::session::record::to_line(entry).unwrap());
        }
        std::fs::write(&path, text).unwrap();
        let full = crate::session::store::load(&path).unwrap();
        let tail = crate::session::tail::load(&path).unwrap();
        assert!(
            tail.session.entries.len() < full.entries.len(),
            "the tail is a tail"
        );
        for keep in [0, 50, 400, 20_000] {
            assert_eq!(
                plan(&tail.session.entries, None, keep),
                plan(&full.entries, None, keep),
                "plans with keep_recent_tokens = {keep}"
            );
        }
    }

    #[test]
    fn nothing_is_planned_when_everything_fits_in_the_budget() {
        let entries = vec![user("u1", None, 100), assistant("a1", Some("u1"), 100)];
        assert_eq!(plan(&entries, None, 1_000), None);
        assert_eq!(plan(&[], None, 1_000), None);
    }

    #[test]
    fn an_overflow_keeps_only_the_current_turn_when_everything_fits_the_budget() {
        let entries = vec![
            user("u1", None, 100),
            assistant("a1", Some("u1"), 100),
            model_change("m1", "a1"),
            user("u2", Some("m1"), 30),
            tool_call("a2", Some("u2"), "call-2"),
            tool_result("t2", Some("a2"), "call-2", 50),
        ];
        assert_eq!(plan(&entries, None, 20_000), None);
        let plan = plan_for_overflow(&entries, None, 20_000).unwrap();
        assert_eq!(plan.first_kept_entry_id, "m1");
        assert_eq!(heads(&plan.to_summarize), ["user:u", "assistant:a"]);
        assert!(plan.turn_prefix.is_empty());
    }

    #[test]
    fn an_overflow_in_the_first_turn_has_nothing_to_cut() {
        let entries = vec![user("u1", None, 5_000)];
        assert_eq!(plan_for_overflow(&entries, None, 128), None);
        let entries = vec![
            user("u1", None, 5_000),
            tool_call("a1", Some("u1"), "call-1"),
            tool_result("t1", Some("a1"), "call-1", 50),
        ];
        assert_eq!(plan_for_overflow(&entries, None, 128), None);
        // A big tool result inside the first turn is summarized away with the turn's start.
        let entries = vec![
            user("u1", None, 10),
            tool_call("a1", Some("u1"), "call-1"),
            tool_result("t1", Some("a1"), "call-1", 5_000),
            tool_call("a2", Some("t1"), "call-2"),
            tool_result("t2", Some("a2"), "call-2", 10),
        ];
        let plan = plan_for_overflow(&entries, None, 128).unwrap();
        assert_eq!(plan.first_kept_entry_id, "a2");
        assert_eq!(
            heads(&plan.turn_prefix),
            ["user:u", "assistant:r", "toolResult:r"]
        );
    }

    #[test]
    fn an_overflow_with_a_small_budget_cuts_as_usual() {
        let entries = vec![
            user("u1", None, 100),
            assistant("a1", Some("u1"), 100),
            user("u2", Some("a1"), 100),
            assistant("a2", Some("u2"), 100),
        ];
        assert_eq!(
            plan_for_overflow(&entries, None, 200),
            plan(&entries, None, 200)
        );
    }

    #[test]
    fn nothing_is_planned_when_the_branch_already_ends_in_a_compaction() {
        let entries = vec![
            user("u1", None, 100),
            assistant("a1", Some("u1"), 100),
            user("u2", Some("a1"), 100),
            compaction("c1", "u2", "u2", "done"),
        ];
        assert_eq!(plan(&entries, None, 10), None);
    }

    #[test]
    fn the_cut_lands_on_the_user_message_that_fills_the_budget() {
        let entries = vec![
            user("u1", None, 100),
            assistant("a1", Some("u1"), 100),
            user("u2", Some("a1"), 100),
            assistant("a2", Some("u2"), 100),
        ];
        let plan = plan(&entries, None, 200).unwrap();
        assert_eq!(plan.first_kept_entry_id, "u2");
        assert_eq!(heads(&plan.to_summarize), ["user:u", "assistant:a"]);
        assert!(plan.turn_prefix.is_empty());
        assert_eq!(plan.previous_summary, None);
        assert_eq!(plan.kept_tokens, 200);
        // No usage anywhere: the context is the sum of the estimates.
        assert_eq!(plan.tokens_before, 400);
    }

    #[test]
    fn a_cut_that_would_land_on_a_tool_result_moves_to_the_next_assistant_message() {
        // Walking back, the budget is reached inside the big tool result t1; the cut goes to
        // a2, the first valid point after it, which splits the turn of u1.
        let entries = vec![
            user("u0", None, 50),
            assistant("a0", Some("u0"), 50),
            user("u1", Some("a0"), 50),
            tool_call("a1", Some("u1"), "call-1"),
            tool_result("t1", Some("a1"), "call-1", 400),
            assistant("a2", Some("t1"), 10),
        ];
        let plan = plan(&entries, None, 300).unwrap();
        assert_eq!(plan.first_kept_entry_id, "a2");
        assert_eq!(heads(&plan.to_summarize), ["user:u", "assistant:a"]);
        assert_eq!(
            heads(&plan.turn_prefix),
            ["user:u", "assistant:r", "toolResult:r"]
        );
        assert_eq!(plan.kept_tokens, 10);
    }

    #[test]
    fn a_split_turn_at_the_start_of_the_history_has_only_a_prefix() {
        let entries = vec![
            user("u1", None, 10),
            assistant("a1", Some("u1"), 100),
            assistant("a2", Some("a1"), 100),
        ];
        let plan = plan(&entries, None, 100).unwrap();
        assert_eq!(plan.first_kept_entry_id, "a2");
        assert!(plan.to_summarize.is_empty());
        assert_eq!(heads(&plan.turn_prefix), ["user:u", "assistant:a"]);
    }

    #[test]
    fn settings_entries_before_the_cut_stay_with_the_kept_part_without_splitting_a_turn() {
        let entries = vec![
            user("u1", None, 100),
            assistant("a1", Some("u1"), 100),
            model_change("m1", "a1"),
            user("u2", Some("m1"), 100),
            assistant("a2", Some("u2"), 100),
        ];
        let plan = plan(&entries, None, 200).unwrap();
        assert_eq!(plan.first_kept_entry_id, "m1");
        assert_eq!(heads(&plan.to_summarize), ["user:u", "assistant:a"]);
        assert!(plan.turn_prefix.is_empty());
    }

    #[test]
    fn a_previous_compaction_is_updated_and_its_kept_messages_are_summarized_again() {
        let entries = vec![
            user("u1", None, 100),
            assistant("a1", Some("u1"), 100),
            user("u2", Some("a1"), 100),
            assistant("a2", Some("u2"), 100),
            compaction("c1", "a2", "u2", "the old summary"),
            user("u3", Some("c1"), 100),
            assistant("a3", Some("u3"), 100),
            user("u4", Some("a3"), 100),
            assistant("a4", Some("u4"), 100),
        ];
        let plan = plan(&entries, None, 200).unwrap();
        assert_eq!(plan.first_kept_entry_id, "u4");
        // From the old first kept entry u2; u1/a1 are already in the old summary and the
        // compaction entry itself is no message.
        assert_eq!(
            heads(&plan.to_summarize),
            ["user:u", "assistant:a", "user:u", "assistant:a"]
        );
        assert_eq!(plan.to_summarize.len(), 4);
        assert_eq!(plan.previous_summary.as_deref(), Some("the old summary"));
        assert_eq!(
            plan.previous_details,
            Some(json!({"readFiles": ["a.rs"], "modifiedFiles": ["b.rs"]}))
        );
    }

    #[test]
    fn nothing_is_planned_when_the_kept_part_of_the_last_compaction_still_fits() {
        let entries = vec![
            user("u1", None, 100),
            assistant("a1", Some("u1"), 100),
            compaction("c1", "a1", "a1", "summary"),
            user("u2", Some("c1"), 10),
        ];
        assert_eq!(plan(&entries, None, 1_000), None);
    }

    #[test]
    fn a_compaction_whose_kept_entry_is_gone_starts_the_region_right_after_it() {
        let entries = vec![
            user("u1", None, 100),
            compaction("c1", "u1", "missing", "summary"),
            user("u2", Some("c1"), 100),
            assistant("a2", Some("u2"), 100),
            user("u3", Some("a2"), 100),
        ];
        let plan = plan(&entries, None, 100).unwrap();
        assert_eq!(plan.first_kept_entry_id, "u3");
        assert_eq!(heads(&plan.to_summarize), ["user:u", "assistant:a"]);
    }

    #[test]
    fn entries_on_another_branch_are_ignored() {
        // a1 has two children: u2 (an abandoned branch, written last) and u3 (the leaf's).
        let entries = vec![
            user("u1", None, 100),
            assistant("a1", Some("u1"), 100),
            user("u3", Some("a1"), 100),
            assistant("a3", Some("u3"), 100),
            user("u2", Some("a1"), 1_000),
            assistant("a2", Some("u2"), 1_000),
        ];
        let plan = plan(&entries, Some("a3"), 200).unwrap();
        assert_eq!(plan.first_kept_entry_id, "u3");
        assert_eq!(heads(&plan.to_summarize), ["user:u", "assistant:a"]);
        assert_eq!(plan.tokens_before, 400);

        // Without a leaf, the last entry's branch is planned.
        let other = super::plan(&entries, None, 1_000).unwrap();
        assert_eq!(other.first_kept_entry_id, "a2");
        assert_eq!(heads(&other.turn_prefix), ["user:u"]);
    }

    #[test]
    fn tokens_before_start_from_the_last_reported_usage() {
        let entries = vec![
            user("u1", None, 100),
            assistant_with_usage(
                "a1",
                Some("u1"),
                100,
                json!({"input": 10, "output": 40, "cacheRead": 900, "cacheWrite": 50}),
            ),
            user("u2", Some("a1"), 30),
            assistant("a2", Some("u2"), 20),
        ];
        let plan = plan(&entries, None, 50).unwrap();
        // 1,000 reported by a1, then the estimates of u2 and a2 (a2 reports nothing).
        assert_eq!(plan.tokens_before, 1_050);
        assert_eq!(plan.first_kept_entry_id, "u2");
        assert_eq!(plan.kept_tokens, 50);
    }

    #[test]
    fn custom_messages_are_summarized_in_pi_s_custom_role() {
        let entries = vec![
            entry(json!({
                "type": "custom_message", "customType": "note", "content": "remember this",
                "display": true, "id": "n1", "parentId": null,
                "timestamp": "2026-01-01T00:00:01.000Z",
            })),
            user("u1", Some("n1"), 100),
            assistant("a1", Some("u1"), 100),
            entry(json!({
                "type": "custom_message", "customType": "note", "content": "for u2",
                "display": false, "id": "n2", "parentId": "a1",
                "timestamp": "2026-01-01T00:00:02.000Z",
            })),
            user("u2", Some("n2"), 100),
            assistant("a2", Some("u2"), 100),
        ];
        let plan = plan(&entries, None, 200).unwrap();
        // The custom message right before the cut stays with the prompt it came with.
        assert_eq!(plan.first_kept_entry_id, "n2");
        assert_eq!(plan.to_summarize.len(), 3);
        assert_eq!(
            plan.to_summarize[0],
            AgentMessage::Other(json!({
                "role": "custom", "customType": "note", "content": "remember this",
                "display": true, "timestamp": 1_767_225_601_000_i64,
            }))
        );
        assert_eq!(heads(&plan.to_summarize[1..]), ["user:u", "assistant:a"]);
        assert_eq!(plan.kept_tokens, 202);
    }

    #[test]
    fn a_shell_command_message_is_estimated_from_its_command_and_output() {
        let message = AgentMessage::Other(json!({
            "role": "bashExecution", "command": "ls", "output": "a".repeat(14),
            "exitCode": 0, "timestamp": 1,
        }));
        assert_eq!(message_tokens(&message), 4);
    }
}
