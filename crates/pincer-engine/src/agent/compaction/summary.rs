//! The compaction summary: the request for the one summarization call, and the final text that
//! goes into the `compaction` entry (SPEC §7).
//!
//! The model's summary has six fixed sections (prompts in `prompts/`, our own wording of pi's
//! structure). Whatever the model writes, the final text ends with what pincer can state from the
//! transcript itself — the files read and modified and the tool calls that failed — as OpenClaw's
//! compaction safeguard does. When the call fails, the same lists under a note take the summary's
//! place, so the history is still cut and the run does not die of its own size.
//!
//! The file lists are also stored as the entry's `details` (`{readFiles, modifiedFiles}`, the
//! shape pi and OpenClaw write), from which the next compaction carries them over.

use std::collections::{BTreeSet, HashSet};

use serde_json::{Value, json};

use super::cut::CutPlan;
use crate::conversation::{self, Message, UserMessage};
use crate::session::record::{AgentMessage, AssistantContent, ContentBlock, MessageContent};

const SYSTEM_PROMPT: &str = include_str!("prompts/system.md");
const SUMMARIZE_PROMPT: &str = include_str!("prompts/summarize.md");
const UPDATE_PROMPT: &str = include_str!("prompts/update.md");
const TURN_PREFIX_PROMPT: &str = include_str!("prompts/turn_prefix.md");

/// At most this many tool failures are listed (OpenClaw's `MAX_TOOL_FAILURES`).
pub const MAX_TOOL_FAILURES: usize = 8;
/// Each listed failure is cut to this many characters (OpenClaw's `MAX_TOOL_FAILURE_CHARS`).
pub const MAX_TOOL_FAILURE_CHARS: usize = 240;
/// Tool results are cut to this many characters in the text the model summarizes: the summary
/// needs what a tool found, not every line of it (pi 0.58's `TOOL_RESULT_MAX_CHARS`).
const TOOL_RESULT_MAX_CHARS: usize = 2_000;

/// Replaces the model's summary when the summarization call failed.
const FALLBACK_NOTE: &str = "No summary is available: the call that summarizes the earlier \
    conversation failed, so those messages were removed from the context without one. Only what \
    pincer recorded from them is listed here; ask the user when something important seems to be \
    missing.";

/// Files the summarized messages touched. A path may be in both sets; [`details`] and
/// [`finish_summary`] list a modified file only as modified.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileOperations {
    /// Paths given to `read`.
    pub read: BTreeSet<String>,
    /// Paths given to `write` or `edit`, and files named in an `apply_patch` patch.
    pub modified: BTreeSet<String>,
}

impl FileOperations {
    /// Files that were read and never modified, sorted.
    fn read_only(&self) -> impl Iterator<Item = &String> {
        self.read.difference(&self.modified)
    }
}

/// Collects the files the messages' tool calls read and modified, starting from the lists of the
/// previous compaction's `details` (`readFiles`/`modifiedFiles`), so they survive compaction
/// after compaction. Tool names are matched without regard to case, and the argument may be
/// `path` or `file_path`, as the tools accept both.
pub fn file_operations(
    messages: &[AgentMessage],
    previous_details: Option<&Value>,
) -> FileOperations {
    let mut files = FileOperations::default();
    if let Some(details) = previous_details {
        let paths = |key: &str| -> Vec<String> {
            details
                .get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        };
        files.read.extend(paths("readFiles"));
        files.modified.extend(paths("modifiedFiles"));
    }

    for message in messages {
        let AgentMessage::Assistant(assistant) = message else {
            continue;
        };
        for block in &assistant.content {
            let AssistantContent::ToolCall(call) = block else {
                continue;
            };
            let argument = |keys: &[&str]| {
                keys.iter()
                    .find_map(|key| call.arguments.get(*key).and_then(Value::as_str))
                    .filter(|value| !value.is_empty())
            };
            match call.name.to_ascii_lowercase().as_str() {
                "read" => {
                    if let Some(path) = argument(&["path", "file_path"]) {
                        files.read.insert(path.to_owned());
                    }
                }
                "write" | "edit" => {
                    if let Some(path) = argument(&["path", "file_path"]) {
                        files.modified.insert(path.to_owned());
                    }
                }
                "apply_patch" => {
                    if let Some(patch) = argument(&["input", "patch"]) {
                        files.modified.extend(patched_files(patch));
                    }
                }
                _ => {}
            }
        }
    }
    files
}

/// The files a `*** Begin Patch` patch adds, deletes, updates or moves to. Read line by line
/// without validating the patch: a patch that failed still shows what the model meant to change.
fn patched_files(patch: &str) -> impl Iterator<Item = String> + '_ {
    const HEADERS: [&str; 4] = [
        "*** Add File: ",
        "*** Delete File: ",
        "*** Update File: ",
        "*** Move to: ",
    ];
    patch.lines().filter_map(|line| {
        HEADERS
            .iter()
            .find_map(|header| line.trim_end().strip_prefix(header))
            .map(str::trim)
            .filter(|path| !path.is_empty())
            .map(str::to_owned)
    })
}

/// The tool calls that failed, as `tool: first line of the error`, each cut to
/// [`MAX_TOOL_FAILURE_CHARS`] characters (ending in `...` when cut), one per tool call id.
/// When more than [`MAX_TOOL_FAILURES`] failed, the most recent ones are kept: they are the ones
/// the continuing work is most likely to run into again.
pub fn tool_failures(messages: &[AgentMessage]) -> Vec<String> {
    let mut seen = HashSet::new();
    let mut failures: Vec<String> = messages
        .iter()
        .filter_map(|message| match message {
            AgentMessage::ToolResult(result) if result.is_error => Some(result),
            _ => None,
        })
        .filter(|result| result.tool_call_id.is_empty() || seen.insert(&result.tool_call_id))
        .map(|result| {
            let text = blocks_text(&result.content);
            let first_line = text
                .lines()
                .map(|line| line.split_whitespace().collect::<Vec<_>>().join(" "))
                .find(|line| !line.is_empty())
                .unwrap_or_else(|| "(no error text)".to_owned());
            let tool = if result.tool_name.is_empty() {
                "tool"
            } else {
                &result.tool_name
            };
            cut_chars(&format!("{tool}: {first_line}"), MAX_TOOL_FAILURE_CHARS)
        })
        .collect();
    let excess = failures.len().saturating_sub(MAX_TOOL_FAILURES);
    failures.drain(..excess);
    failures
}

/// `text` shortened to at most `limit` characters, the last three being `...` when it was cut.
fn cut_chars(text: &str, limit: usize) -> String {
    if text.chars().count() <= limit {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(limit.saturating_sub(3)).collect();
    cut.push_str("...");
    cut
}

/// The one summarization call: a system prompt and one user message.
#[derive(Debug, Clone, PartialEq)]
pub struct SummaryRequest {
    /// The summarizer's role (not pincer's agent prompt).
    pub system_prompt: String,
    /// One user message. Its text blocks are, in order: the conversation to summarize, the
    /// previous summary (when there is one), the prefix of a split turn (when the cut split one),
    /// and the instructions.
    pub messages: Vec<Message>,
}

/// Builds the summarization request for a plan. `instructions` is the user's optional focus
/// (`pincer compact` may pass one); blank instructions are ignored.
///
/// The conversation is serialized as labelled text (`[User]: …`, `[Assistant]: …`) rather than
/// sent as messages, so the model reads it as a document instead of continuing it. The user
/// message's timestamp is 0: the caller stamps it if it cares.
pub fn summary_request(plan: &CutPlan, instructions: Option<&str>) -> SummaryRequest {
    let conversation = if plan.to_summarize.is_empty() {
        "(no earlier messages: the text to summarize is the turn prefix below)".to_owned()
    } else {
        serialize_conversation(&plan.to_summarize)
    };
    let mut parts = vec![format!("<conversation>\n{conversation}\n</conversation>")];
    if let Some(previous) = &plan.previous_summary {
        parts.push(format!(
            "<previous-summary>\n{previous}\n</previous-summary>"
        ));
    }
    if !plan.turn_prefix.is_empty() {
        parts.push(format!(
            "<turn-prefix>\n{}\n</turn-prefix>",
            serialize_conversation(&plan.turn_prefix)
        ));
    }

    let mut prompt = String::from(if plan.previous_summary.is_some() {
        UPDATE_PROMPT.trim_end()
    } else {
        SUMMARIZE_PROMPT.trim_end()
    });
    if !plan.turn_prefix.is_empty() {
        prompt.push_str("\n\n");
        prompt.push_str(TURN_PREFIX_PROMPT.trim_end());
    }
    if let Some(focus) = instructions
        .map(str::trim)
        .filter(|focus| !focus.is_empty())
    {
        prompt.push_str("\n\nAdditional focus: ");
        prompt.push_str(focus);
    }
    parts.push(prompt);

    let blocks = parts
        .into_iter()
        .map(conversation::ContentBlock::text)
        .collect();
    SummaryRequest {
        system_prompt: SYSTEM_PROMPT.trim_end().to_owned(),
        messages: vec![Message::User(UserMessage {
            content: conversation::MessageContent::Blocks(blocks),
            timestamp: 0,
        })],
    }
}

/// The text of the `compaction` entry: the model's summary, or the fallback note when the call
/// failed (`None`) or returned nothing, then the sections `## Files read`, `## Files modified`
/// and `## Tool Failures` (each only when it has items).
pub fn finish_summary(
    model_summary: Option<&str>,
    files: &FileOperations,
    failures: &[String],
) -> String {
    let mut summary = model_summary
        .map(str::trim)
        .filter(|text| !text.is_empty())
        .unwrap_or(FALLBACK_NOTE)
        .to_owned();
    let mut section = |heading: &str, items: Vec<&String>| {
        if items.is_empty() {
            return;
        }
        summary.push_str("\n\n## ");
        summary.push_str(heading);
        for item in items {
            summary.push_str("\n- ");
            summary.push_str(item);
        }
    };
    section("Files read", files.read_only().collect());
    section("Files modified", files.modified.iter().collect());
    section("Tool Failures", failures.iter().collect());
    summary
}

/// The `details` of the `compaction` entry: `{"readFiles": [...], "modifiedFiles": [...]}`, both
/// sorted, a file that was read and modified listed only as modified (pi's `computeFileLists`).
pub fn details(files: &FileOperations) -> Value {
    json!({
        "readFiles": files.read_only().collect::<Vec<_>>(),
        "modifiedFiles": files.modified,
    })
}

/// The messages as labelled paragraphs, separated by blank lines (the layout of pi's
/// `serializeConversation`, with tool names and errors labelled).
fn serialize_conversation(messages: &[AgentMessage]) -> String {
    let mut parts = Vec::new();
    for message in messages {
        match message {
            AgentMessage::User(user) => {
                let text = match &user.content {
                    MessageContent::Text(text) => text.clone(),
                    MessageContent::Blocks(blocks) => blocks_text(blocks),
                };
                push_labelled(&mut parts, "User", &text);
            }
            AgentMessage::Assistant(assistant) => {
                let mut thinking = Vec::new();
                let mut text = Vec::new();
                let mut calls = Vec::new();
                let mut searches = Vec::new();
                for block in &assistant.content {
                    match block {
                        AssistantContent::Thinking(block) if block.redacted != Some(true) => {
                            thinking.push(block.thinking.as_str());
                        }
                        AssistantContent::Text(block) => text.push(block.text.as_str()),
                        AssistantContent::ToolCall(call) => {
                            calls.push(format!(
                                "{}({})",
                                call.name,
                                call_arguments(&call.arguments)
                            ));
                        }
                        // The provider's web search: what was asked and which pages it found.
                        AssistantContent::ServerToolCall(search) => {
                            let pages: Vec<&str> = search
                                .results
                                .iter()
                                .map(|result| result.url.as_str())
                                .collect();
                            searches.push(format!(
                                "{}({}) -> {}",
                                search.name,
                                call_arguments(&search.arguments),
                                pages.join(", ")
                            ));
                        }
                        _ => {}
                    }
                }
                push_labelled(&mut parts, "Assistant thinking", &thinking.join("\n"));
                push_labelled(&mut parts, "Assistant", &text.join("\n"));
                push_labelled(&mut parts, "Assistant tool calls", &calls.join("; "));
                push_labelled(&mut parts, "Assistant web searches", &searches.join("; "));
            }
            AgentMessage::ToolResult(result) => {
                let label = if result.is_error {
                    format!("Tool error ({})", result.tool_name)
                } else {
                    format!("Tool result ({})", result.tool_name)
                };
                let text = truncate_for_summary(&blocks_text(&result.content));
                push_labelled(&mut parts, &label, &text);
            }
            AgentMessage::Other(value) => {
                let field = |key: &str| value.get(key).and_then(Value::as_str).unwrap_or("");
                match message.role() {
                    "custom" => {
                        let text = match value.get("content") {
                            Some(Value::String(text)) => text.clone(),
                            Some(blocks @ Value::Array(_)) => {
                                serde_json::from_value::<Vec<ContentBlock>>(blocks.clone())
                                    .map(|blocks| blocks_text(&blocks))
                                    .unwrap_or_default()
                            }
                            _ => String::new(),
                        };
                        push_labelled(&mut parts, "User", &text);
                    }
                    "bashExecution" => {
                        let text = format!(
                            "ran `{}`\n{}",
                            field("command"),
                            truncate_for_summary(field("output"))
                        );
                        push_labelled(&mut parts, "User shell command", &text);
                    }
                    "branchSummary" => {
                        push_labelled(&mut parts, "Summary of another branch", field("summary"));
                    }
                    "compactionSummary" => {
                        push_labelled(&mut parts, "Earlier summary", field("summary"));
                    }
                    _ => {}
                }
            }
        }
    }
    parts.join("\n\n")
}

fn push_labelled(parts: &mut Vec<String>, label: &str, text: &str) {
    if !text.trim().is_empty() {
        parts.push(format!("[{label}]: {text}"));
    }
}

/// `key=JSON value` pairs of a tool call's arguments, or the raw JSON when they are no object.
fn call_arguments(arguments: &Value) -> String {
    match arguments {
        Value::Object(map) => map
            .iter()
            .map(|(key, value)| format!("{key}={value}"))
            .collect::<Vec<_>>()
            .join(", "),
        other => other.to_string(),
    }
}

fn truncate_for_summary(text: &str) -> String {
    let length = text.chars().count();
    if length <= TOOL_RESULT_MAX_CHARS {
        return text.to_owned();
    }
    let head: String = text.chars().take(TOOL_RESULT_MAX_CHARS).collect();
    format!(
        "{head}\n\n[... {} more characters truncated]",
        length - TOOL_RESULT_MAX_CHARS
    )
}

/// The text blocks of a content list, concatenated (images and unknown blocks left out).
fn blocks_text(blocks: &[ContentBlock]) -> String {
    blocks
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Text(block) => Some(block.text.as_str()),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn message(value: Value) -> AgentMessage {
        serde_json::from_value(value).unwrap()
    }

    fn calls(calls: Value) -> AgentMessage {
        message(json!({
            "role": "assistant", "content": calls,
            "api": "openai-responses", "provider": "openai", "model": "gpt-5",
            "usage": {}, "stopReason": "toolUse", "timestamp": 1,
        }))
    }

    fn call(name: &str, arguments: Value) -> Value {
        json!({"type": "toolCall", "id": "c", "name": name, "arguments": arguments})
    }

    fn failure(call_id: &str, tool: &str, text: &str) -> AgentMessage {
        message(json!({
            "role": "toolResult", "toolCallId": call_id, "toolName": tool,
            "content": [{"type": "text", "text": text}], "isError": true, "timestamp": 2,
        }))
    }

    fn set(paths: &[&str]) -> BTreeSet<String> {
        paths.iter().map(|path| (*path).to_owned()).collect()
    }

    fn plan(to_summarize: Vec<AgentMessage>) -> CutPlan {
        CutPlan {
            first_kept_entry_id: "k".into(),
            to_summarize,
            turn_prefix: Vec::new(),
            previous_summary: None,
            previous_details: None,
            tokens_before: 0,
            kept_tokens: 0,
        }
    }

    /// The text blocks of the request's single user message.
    fn request_parts(request: &SummaryRequest) -> Vec<String> {
        let [Message::User(user)] = request.messages.as_slice() else {
            panic!("expected one user message, got {:?}", request.messages);
        };
        let conversation::MessageContent::Blocks(blocks) = &user.content else {
            panic!("expected blocks");
        };
        blocks
            .iter()
            .map(|block| match block {
                conversation::ContentBlock::Text(text) => text.text.clone(),
                other => panic!("unexpected block {other:?}"),
            })
            .collect()
    }

    #[test]
    fn a_web_search_is_summarized_as_its_query_and_the_pages_it_found() {
        let text = serialize_conversation(&[calls(json!([
            {"type": "serverToolCall", "id": "srvtoolu_1", "name": "web_search",
             "arguments": {"query": "rust 1.95"},
             "results": [{"url": "https://blog.rust-lang.org/"}, {"url": "https://lwn.net/"}]},
            {"type": "text", "text": "It shipped."}
        ]))]);
        assert!(
            text.contains(
                "[Assistant web searches]: web_search(query=\"rust 1.95\") -> \
                 https://blog.rust-lang.org/, https://lwn.net/"
            ),
            "{text}"
        );
    }

    #[test]
    fn file_operations_come_from_read_write_edit_and_patch_calls() {
        let patch = "*** Begin Patch\n*** Add File: docs/new.md\n+hi\n*** Delete File: old.txt\n\
                     *** Update File: src/a.py\n*** Move to: src/b.py\n@@\n-x\n+y\n*** End Patch";
        let messages = vec![
            calls(json!([
                call("read", json!({"path": "src/lib.rs"})),
                call("Read", json!({"file_path": "README.md"})),
                call("write", json!({"path": "out.txt", "content": "x"})),
            ])),
            calls(json!([
                call(
                    "edit",
                    json!({"path": "src/lib.rs", "old": "a", "new": "b"})
                ),
                call("apply_patch", json!({"input": patch})),
                call("exec", json!({"command": "cat secret.txt"})),
                call("read", json!({})),
            ])),
        ];
        let files = file_operations(&messages, None);
        assert_eq!(files.read, set(&["README.md", "src/lib.rs"]));
        assert_eq!(
            files.modified,
            set(&[
                "docs/new.md",
                "old.txt",
                "out.txt",
                "src/a.py",
                "src/b.py",
                "src/lib.rs"
            ])
        );
    }

    #[test]
    fn file_lists_of_the_previous_compaction_are_carried_over() {
        let previous = json!({"readFiles": ["notes.md"], "modifiedFiles": ["Cargo.toml"]});
        let messages = vec![calls(json!([call("read", json!({"path": "src/main.rs"}))]))];
        let files = file_operations(&messages, Some(&previous));
        assert_eq!(files.read, set(&["notes.md", "src/main.rs"]));
        assert_eq!(files.modified, set(&["Cargo.toml"]));
    }

    #[test]
    fn details_list_a_file_read_and_modified_only_as_modified() {
        let files = FileOperations {
            read: set(&["b.rs", "a.rs"]),
            modified: set(&["b.rs", "c.rs"]),
        };
        assert_eq!(
            details(&files),
            json!({"readFiles": ["a.rs"], "modifiedFiles": ["b.rs", "c.rs"]})
        );
        assert_eq!(
            details(&FileOperations::default()),
            json!({"readFiles": [], "modifiedFiles": []})
        );
    }

    #[test]
    fn tool_failures_give_the_tool_and_the_first_line_of_its_error() {
        let messages = vec![
            failure(
                "1",
                "exec",
                "\n  command   exited with code 2\nstderr: boom",
            ),
            failure("1", "exec", "the same call again"),
            message(json!({
                "role": "toolResult", "toolCallId": "2", "toolName": "read",
                "content": [{"type": "text", "text": "fine"}], "isError": false, "timestamp": 2,
            })),
            failure("3", "read", ""),
        ];
        assert_eq!(
            tool_failures(&messages),
            ["exec: command exited with code 2", "read: (no error text)"]
        );
    }

    #[test]
    fn tool_failures_keep_the_latest_eight_each_cut_to_240_characters() {
        let mut messages: Vec<AgentMessage> = (0..10)
            .map(|index| failure(&index.to_string(), "edit", &format!("failure {index}")))
            .collect();
        messages.push(failure("long", "write", &"é".repeat(500)));
        let failures = tool_failures(&messages);
        assert_eq!(failures.len(), 8);
        assert_eq!(failures[0], "edit: failure 3");
        assert_eq!(failures[6], "edit: failure 9");
        let last = &failures[7];
        assert_eq!(last.chars().count(), 240);
        assert!(last.starts_with("write: éé"));
        assert!(last.ends_with("é..."));
    }

    #[test]
    fn the_finished_summary_appends_files_and_failures_to_the_model_text() {
        let files = FileOperations {
            read: set(&["a.rs", "b.rs"]),
            modified: set(&["b.rs"]),
        };
        let failures = vec!["exec: exited with code 1".to_owned()];
        assert_eq!(
            finish_summary(Some("## Goal\nShip it.\n"), &files, &failures),
            "## Goal\nShip it.\n\n## Files read\n- a.rs\n\n## Files modified\n- b.rs\n\n\
             ## Tool Failures\n- exec: exited with code 1"
        );
        assert_eq!(
            finish_summary(Some("## Goal\nShip it."), &FileOperations::default(), &[]),
            "## Goal\nShip it."
        );
    }

    #[test]
    fn a_failed_summary_call_leaves_a_note_and_the_lists() {
        let files = FileOperations {
            read: BTreeSet::new(),
            modified: set(&["src/main.rs"]),
        };
        let failures = vec!["read: no such file".to_owned()];
        let expected = format!(
            "{FALLBACK_NOTE}\n\n## Files modified\n- src/main.rs\n\n## Tool Failures\n- read: no such file"
        );
        assert_eq!(finish_summary(None, &files, &failures), expected);
        // An empty answer is no summary either.
        assert_eq!(finish_summary(Some("  \n"), &files, &failures), expected);
        assert!(FALLBACK_NOTE.starts_with("No summary is available"));
    }

    #[test]
    fn a_first_summary_request_holds_the_serialized_conversation_and_the_six_sections() {
        let long_output = "x".repeat(2_500);
        let messages = vec![
            message(json!({"role": "user", "content": "Fix the build", "timestamp": 1})),
            message(json!({
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "check cargo"},
                    {"type": "text", "text": "Looking."},
                    {"type": "toolCall", "id": "c1", "name": "exec",
                     "arguments": {"command": "cargo build", "timeout": 60}},
                ],
                "api": "anthropic-messages", "provider": "anthropic", "model": "claude",
                "usage": {}, "stopReason": "toolUse", "timestamp": 2,
            })),
            message(json!({
                "role": "toolResult", "toolCallId": "c1", "toolName": "exec",
                "content": [{"type": "text", "text": long_output}], "isError": true,
                "timestamp": 3,
            })),
        ];
        let request = summary_request(&plan(messages), Some("  the linker error "));
        assert!(
            request
                .system_prompt
                .starts_with("You write context checkpoints.")
        );
        let parts = request_parts(&request);
        assert_eq!(parts.len(), 2);
        assert_eq!(
            parts[0],
            format!(
                "<conversation>\n[User]: Fix the build\n\n[Assistant thinking]: check cargo\n\n\
                 [Assistant]: Looking.\n\n[Assistant tool calls]: exec(command=\"cargo build\", \
                 timeout=60)\n\n[Tool error (exec)]: {}\n\n[... 500 more characters truncated]\n\
                 </conversation>",
                "x".repeat(2_000)
            )
        );
        let instructions = &parts[1];
        for heading in [
            "## Goal\n",
            "## Constraints & Preferences\n",
            "## Progress\n### Done\n",
            "### In Progress\n",
            "### Blocked\n",
            "## Key Decisions\n",
            "## Next Steps\n",
            "## Critical Context\n",
        ] {
            assert!(instructions.contains(heading), "missing {heading:?}");
        }
        assert!(instructions.starts_with("Write a checkpoint summary"));
        assert!(instructions.ends_with("\n\nAdditional focus: the linker error"));
        assert!(!instructions.contains("Turn Context"));
    }

    #[test]
    fn an_update_request_carries_the_previous_summary_and_the_turn_prefix_as_parts() {
        let mut plan = plan(Vec::new());
        plan.previous_summary = Some("## Goal\nOld goal".into());
        plan.turn_prefix = vec![
            message(json!({"role": "user", "content": "Refactor io.rs", "timestamp": 1})),
            AgentMessage::Other(json!({
                "role": "bashExecution", "command": "ls", "output": "io.rs", "timestamp": 1,
            })),
        ];
        let parts = request_parts(&summary_request(&plan, Some("   ")));
        assert_eq!(parts.len(), 4);
        assert!(parts[0].starts_with("<conversation>\n(no earlier messages"));
        assert_eq!(
            parts[1],
            "<previous-summary>\n## Goal\nOld goal\n</previous-summary>"
        );
        assert_eq!(
            parts[2],
            "<turn-prefix>\n[User]: Refactor io.rs\n\n[User shell command]: ran `ls`\nio.rs\n\
             </turn-prefix>"
        );
        assert!(parts[3].starts_with("<previous-summary> holds the checkpoint summary"));
        assert!(parts[3].contains("## Critical Context\n"));
        assert!(parts[3].contains("**Turn Context (split turn):**"));
        assert!(parts[3].contains("## Context for Suffix\n"));
        assert!(!parts[3].contains("Additional focus"));
    }
}
