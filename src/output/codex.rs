//! `pincer exec --experimental-json`: a turn's events as `codex exec`'s JSONL, the stream the
//! Codex SDK (`@openai/codex-sdk`) reads (SPEC §16).
//!
//! The SDK parses every stdout line as a `ThreadEvent` (a line that does not parse throws), takes
//! `thread.id` from `thread.started`, the final response from the last completed
//! `agent_message`, the usage from `turn.completed` (which must carry one), and throws with
//! `turn.failed.error.message`. So:
//! - `thread.started` carries pincer's session id (what `exec resume ID` continues) and comes
//!   first with `turn.started`, also for a run that fails before its turn;
//! - the final `agent_message` is the result's answer (the structured output as compact JSON
//!   with `--output-schema`, as codex prints it), written when the turn ends; the text of earlier
//!   model calls (said before tool calls) is an `agent_message` of its own as it completes;
//! - a turn that fails ends with `error` then `turn.failed` naming the failure, never with
//!   `turn.completed` and an empty answer; the process exits non-zero, as codex does.
//!
//! Tool calls become codex's items: `exec` a `command_execution`, `write`/`edit`/`apply_patch` a
//! `file_change`, `mcp__SERVER__TOOL` an `mcp_tool_call`. pincer's other tools (`read`, `grep`,
//! `find`, `ls`, `web_fetch`) are `command_execution` items too, whose command is the tool's name
//! and its JSON arguments: codex does that work through shell commands, so applications written
//! for the SDK show and count it as commands, and the SDK's item union is closed (an item type
//! of pincer's own would fall through an application's `switch`). Thinking is a `reasoning` item,
//! a provider's web search a `web_search` item, another model taking over after a failure a
//! non-fatal `error` item.
//!
//! The types below are the wire shapes of `@openai/codex-sdk` 0.163's `ThreadEvent` and
//! `ThreadItem` (its `dist/index.d.ts`), as codex 0.171 prints them.

use std::collections::HashMap;
use std::io;

use serde::Serialize;
use serde_json::Value;

use super::schema::RunResult;
use super::{OutputSink, Stdout, Undelivered};
use crate::conversation::{AssistantBlock, ContentBlock, ToolResultMessage};
use crate::engine::event::{Event, EventSink, ToolStart};

/// One line of `codex exec --experimental-json`.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(tag = "type")]
pub(crate) enum ThreadEvent {
    /// The thread (pincer's session) the turn runs in.
    #[serde(rename = "thread.started")]
    ThreadStarted {
        /// The id `exec resume` continues.
        thread_id: String,
    },
    /// The turn began.
    #[serde(rename = "turn.started")]
    TurnStarted,
    /// The turn ended well.
    #[serde(rename = "turn.completed")]
    TurnCompleted {
        /// Tokens of the whole turn.
        usage: Usage,
    },
    /// The turn failed.
    #[serde(rename = "turn.failed")]
    TurnFailed {
        /// Why.
        error: ThreadError,
    },
    /// An item began (a command or MCP call in progress).
    #[serde(rename = "item.started")]
    ItemStarted {
        /// The item as it stands.
        item: ThreadItem,
    },
    /// An item reached its end.
    #[serde(rename = "item.completed")]
    ItemCompleted {
        /// The item as it ended.
        item: ThreadItem,
    },
    /// The error that ends the turn (before `turn.failed`).
    #[serde(rename = "error")]
    Error {
        /// What went wrong.
        message: String,
    },
}

/// `turn.failed.error`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub(crate) struct ThreadError {
    /// What went wrong.
    pub message: String,
}

/// `turn.completed.usage`, with OpenAI's meaning: `input_tokens` counts every prompt token, the
/// cached ones included; `output_tokens` counts reasoning too.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, schemars::JsonSchema)]
pub(crate) struct Usage {
    /// Every prompt token.
    pub input_tokens: u64,
    /// The share of `input_tokens` read from the provider's cache.
    pub cached_input_tokens: u64,
    /// The share of `input_tokens` written to the provider's cache.
    pub cache_write_input_tokens: u64,
    /// Every generated token.
    pub output_tokens: u64,
    /// The reasoning share of `output_tokens`, where the provider reports it.
    pub reasoning_output_tokens: u64,
}

/// One item of the thread: its id (`item_0`, `item_1`, … in the order items begin) and what it is.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub(crate) struct ThreadItem {
    /// `item_N`.
    pub id: String,
    /// The item's type and fields.
    #[serde(flatten)]
    pub details: ItemDetails,
}

/// The kinds of items.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum ItemDetails {
    /// What the model said: the answer (JSON with `--output-schema`), or text before tool calls.
    AgentMessage {
        /// The text.
        text: String,
    },
    /// The model's reasoning.
    Reasoning {
        /// The text.
        text: String,
    },
    /// A command (`exec`), or another of pincer's tools shown as one.
    CommandExecution {
        /// The command line.
        command: String,
        /// What it printed.
        aggregated_output: String,
        /// Its exit code, once it ended with one.
        exit_code: Option<i64>,
        /// Where it stands.
        status: ItemStatus,
    },
    /// Files the model changed.
    FileChange {
        /// One per file.
        changes: Vec<FileUpdateChange>,
        /// `completed` or `failed`.
        status: ItemStatus,
    },
    /// A call of an MCP server's tool.
    McpToolCall {
        /// The server's name.
        server: String,
        /// The tool's name on the server.
        tool: String,
        /// The arguments.
        arguments: Value,
        /// What it returned, when it succeeded.
        result: Option<McpResult>,
        /// What went wrong, when it failed.
        error: Option<ThreadError>,
        /// Where it stands.
        status: ItemStatus,
    },
    /// A search the provider ran.
    WebSearch {
        /// What was searched for.
        query: String,
    },
    /// Something that went wrong without ending the turn.
    Error {
        /// What.
        message: String,
    },
}

/// Where an item stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ItemStatus {
    /// Running.
    InProgress,
    /// Ended well.
    Completed,
    /// Ended badly.
    Failed,
}

/// One file of a `file_change`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub(crate) struct FileUpdateChange {
    /// The path as the model gave it.
    pub path: String,
    /// What happened to it.
    pub kind: PatchChangeKind,
}

/// What happened to a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum PatchChangeKind {
    /// Created.
    Add,
    /// Removed.
    Delete,
    /// Changed.
    Update,
}

/// `mcp_tool_call.result`: MCP content blocks.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub(crate) struct McpResult {
    /// `{"type": "text", "text": …}` or `{"type": "image", "data": …, "mimeType": …}`.
    pub content: Vec<McpContent>,
    /// Always null: the tool's `structuredContent` is JSON text among `content`, as the model
    /// read it.
    pub structured_content: Option<Value>,
}

/// One MCP content block.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum McpContent {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// A base64 image.
    Image {
        /// Base64 data.
        data: String,
        /// `image/png`, …
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
}

/// What a tool call is shown as.
#[derive(Debug, Clone, PartialEq)]
enum ToolItem {
    /// A `command_execution` with this command line.
    Command(String),
    /// A `file_change` of these files (their kinds known from the arguments), or of the file
    /// `write` wrote (add or update, known from its result).
    FileChange(Vec<FileUpdateChange>),
    /// The file `write` wrote.
    Write(String),
    /// An `mcp_tool_call`.
    Mcp {
        server: String,
        tool: String,
        arguments: Value,
    },
    /// Not shown: the final-answer tool of `--output-schema`.
    Hidden,
}

/// The codex lines of a run: which events make a line, what each line holds.
#[derive(Debug, Default)]
pub(crate) struct CodexLines {
    /// Whether `thread.started` and `turn.started` are out.
    started: bool,
    /// Items begun so far (the next id).
    items: usize,
    /// The text of the last completed model call, held until the next call or a tool shows it
    /// was not the answer (the answer is written from the result).
    held_text: Option<String>,
    /// Tool calls begun and not yet answered: their item id and what they are shown as.
    running: HashMap<String, (String, ToolItem)>,
}

impl CodexLines {
    /// The lines for one event (none for the events only text mode and the progress show).
    pub(crate) fn lines(&mut self, event: &Event) -> Vec<ThreadEvent> {
        let mut lines = Vec::new();
        match event {
            Event::Init(init) => self.start(init.session_id.clone(), &mut lines),
            Event::Assistant(done) => {
                self.flush_held(&mut lines);
                let mut text = String::new();
                for block in &done.message.content {
                    match block {
                        AssistantBlock::Text(block) => text.push_str(&block.text),
                        AssistantBlock::Thinking(thinking)
                            if !thinking.thinking.trim().is_empty() =>
                        {
                            let details = ItemDetails::Reasoning {
                                text: thinking.thinking.clone(),
                            };
                            lines.push(self.completed(details));
                        }
                        AssistantBlock::ServerTool(call) => {
                            let details = ItemDetails::WebSearch {
                                query: search_query(&call.input),
                            };
                            lines.push(self.completed(details));
                        }
                        AssistantBlock::Thinking(_) | AssistantBlock::ToolCall(_) => {}
                    }
                }
                if !text.trim().is_empty() {
                    self.held_text = Some(text);
                }
            }
            Event::ToolStarted(start) => {
                self.flush_held(&mut lines);
                let shown = tool_item(start);
                let id = self.next_id();
                let started = match &shown {
                    ToolItem::Command(command) => Some(ItemDetails::CommandExecution {
                        command: command.clone(),
                        aggregated_output: String::new(),
                        exit_code: None,
                        status: ItemStatus::InProgress,
                    }),
                    ToolItem::Mcp {
                        server,
                        tool,
                        arguments,
                    } => Some(ItemDetails::McpToolCall {
                        server: server.clone(),
                        tool: tool.clone(),
                        arguments: arguments.clone(),
                        result: None,
                        error: None,
                        status: ItemStatus::InProgress,
                    }),
                    // codex shows a file change once it is applied.
                    ToolItem::FileChange(_) | ToolItem::Write(_) | ToolItem::Hidden => None,
                };
                if let Some(details) = started {
                    lines.push(ThreadEvent::ItemStarted {
                        item: ThreadItem {
                            id: id.clone(),
                            details,
                        },
                    });
                }
                self.running.insert(start.id.clone(), (id, shown));
            }
            Event::ToolResult(done) => {
                // The final-answer tool of `--output-schema` is answered without starting.
                if let Some((id, shown)) = self.running.remove(&done.result.tool_call_id)
                    && let Some(details) = completed_tool(shown, &done.result)
                {
                    lines.push(ThreadEvent::ItemCompleted {
                        item: ThreadItem { id, details },
                    });
                }
            }
            Event::Fallback(fallback) => {
                let details = ItemDetails::Error {
                    message: format!(
                        "{} failed ({}): {}; {} continues the turn",
                        fallback.from, fallback.reason, fallback.error, fallback.to
                    ),
                };
                lines.push(self.completed(details));
            }
            _ => {}
        }
        lines
    }

    /// The lines that end the run: the answer and `turn.completed`, or the failure.
    pub(crate) fn finish(&mut self, result: &RunResult) -> Vec<ThreadEvent> {
        let mut lines = Vec::new();
        self.start(result.session_id.clone(), &mut lines);
        if result.is_error {
            // What the model said before the failure is shown as it would have been.
            self.flush_held(&mut lines);
            let message = failure_message(result);
            lines.push(ThreadEvent::Error {
                message: message.clone(),
            });
            lines.push(ThreadEvent::TurnFailed {
                error: ThreadError { message },
            });
            return lines;
        }
        // The held text is the last call's; the answer (structured output included) replaces it.
        self.held_text = None;
        let answer = result.answer_text();
        if !answer.is_empty() {
            let details = ItemDetails::AgentMessage { text: answer };
            lines.push(self.completed(details));
        }
        let usage = &result.usage;
        lines.push(ThreadEvent::TurnCompleted {
            usage: Usage {
                input_tokens: usage
                    .input_tokens
                    .saturating_add(usage.cache_read_input_tokens)
                    .saturating_add(usage.cache_creation_input_tokens),
                cached_input_tokens: usage.cache_read_input_tokens,
                cache_write_input_tokens: usage.cache_creation_input_tokens,
                output_tokens: usage.output_tokens,
                reasoning_output_tokens: usage.reasoning_tokens,
            },
        });
        lines
    }

    /// `thread.started` (when the run has a session) and `turn.started`, once.
    fn start(&mut self, session_id: Option<String>, lines: &mut Vec<ThreadEvent>) {
        if self.started {
            return;
        }
        self.started = true;
        if let Some(thread_id) = session_id {
            lines.push(ThreadEvent::ThreadStarted { thread_id });
        }
        lines.push(ThreadEvent::TurnStarted);
    }

    /// The held text as an `agent_message`: the model went on after it.
    fn flush_held(&mut self, lines: &mut Vec<ThreadEvent>) {
        if let Some(text) = self.held_text.take() {
            lines.push(self.completed(ItemDetails::AgentMessage { text }));
        }
    }

    fn next_id(&mut self) -> String {
        let id = format!("item_{}", self.items);
        self.items += 1;
        id
    }

    /// A new item, completed at once.
    fn completed(&mut self, details: ItemDetails) -> ThreadEvent {
        ThreadEvent::ItemCompleted {
            item: ThreadItem {
                id: self.next_id(),
                details,
            },
        }
    }
}

/// The message of `turn.failed`: the failure that ended the run, else its last error.
fn failure_message(result: &RunResult) -> String {
    result
        .error
        .as_ref()
        .map(|error| error.message.clone())
        .or_else(|| result.errors.last().cloned())
        .unwrap_or_else(|| format!("the turn failed ({})", result.terminal_reason))
}

/// A web search's query (Gemini gives several).
fn search_query(input: &Value) -> String {
    if let Some(query) = input.get("query").and_then(Value::as_str) {
        return query.to_owned();
    }
    input
        .get("queries")
        .and_then(Value::as_array)
        .map(|queries| {
            queries
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join("; ")
        })
        .unwrap_or_default()
}

/// A string argument, under any of `names`.
fn argument<'a>(input: &'a Value, names: &[&str]) -> Option<&'a str> {
    names
        .iter()
        .find_map(|name| input.get(name).and_then(Value::as_str))
}

/// What a tool call is shown as, by the tool's name: pincer's own names, and those the CLI
/// backends report (claude's `Bash`, `Write`, `Edit`; codex's own item types).
fn tool_item(start: &ToolStart) -> ToolItem {
    let input = &start.input;
    let path = || argument(input, &["path", "file_path"]).unwrap_or_default();
    let update = |path: &str| {
        ToolItem::FileChange(vec![FileUpdateChange {
            path: path.to_owned(),
            kind: PatchChangeKind::Update,
        }])
    };
    match start.name.as_str() {
        "exec" | "Bash" | "command_execution" => ToolItem::Command(
            argument(input, &["command", "cmd"])
                .unwrap_or_default()
                .to_owned(),
        ),
        "write" => ToolItem::Write(path().to_owned()),
        "edit" | "Edit" | "MultiEdit" | "Write" => update(path()),
        "apply_patch" => ToolItem::FileChange(patch_changes(
            argument(input, &["input", "patch"]).unwrap_or_default(),
        )),
        "file_change" => ToolItem::FileChange(codex_changes(input)),
        "mcp_tool_call" => ToolItem::Mcp {
            server: argument(input, &["server"]).unwrap_or_default().to_owned(),
            tool: argument(input, &["tool"]).unwrap_or_default().to_owned(),
            arguments: input.get("arguments").cloned().unwrap_or(Value::Null),
        },
        crate::structured::NAME => ToolItem::Hidden,
        name => match name
            .strip_prefix("mcp__")
            .and_then(|rest| rest.split_once("__"))
        {
            Some((server, tool)) => ToolItem::Mcp {
                server: server.to_owned(),
                tool: tool.to_owned(),
                arguments: input.clone(),
            },
            None => ToolItem::Command(format!("{name} {input}")),
        },
    }
}

/// The files an `apply_patch` input names, from its `*** Add/Update/Delete File:` headers.
fn patch_changes(patch: &str) -> Vec<FileUpdateChange> {
    patch
        .lines()
        .filter_map(|line| {
            let line = line.trim();
            let (kind, path) = if let Some(path) = line.strip_prefix("*** Add File:") {
                (PatchChangeKind::Add, path)
            } else if let Some(path) = line.strip_prefix("*** Update File:") {
                (PatchChangeKind::Update, path)
            } else if let Some(path) = line.strip_prefix("*** Delete File:") {
                (PatchChangeKind::Delete, path)
            } else {
                return None;
            };
            Some(FileUpdateChange {
                path: path.trim().to_owned(),
                kind,
            })
        })
        .collect()
}

/// The changes of a codex-cli `file_change` call, as the codex backend reports them.
fn codex_changes(input: &Value) -> Vec<FileUpdateChange> {
    input
        .get("changes")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|change| {
            let path = change.get("path")?.as_str()?.to_owned();
            let kind = match change.get("kind").and_then(Value::as_str) {
                Some("add") => PatchChangeKind::Add,
                Some("delete") => PatchChangeKind::Delete,
                _ => PatchChangeKind::Update,
            };
            Some(FileUpdateChange { path, kind })
        })
        .collect()
}

/// The completed item of an answered tool call (none for a hidden one).
fn completed_tool(shown: ToolItem, result: &ToolResultMessage) -> Option<ItemDetails> {
    let status = if result.is_error {
        ItemStatus::Failed
    } else {
        ItemStatus::Completed
    };
    let text = result_text(result);
    let details = result.details.as_ref();
    Some(match shown {
        ToolItem::Command(command) => {
            // `exec` reports its exit code; other tools succeed (0) or fail (1).
            let exit_code = match details.and_then(|details| details.get("exit_code")) {
                Some(code) => code.as_i64(),
                None => Some(i64::from(result.is_error)),
            };
            ItemDetails::CommandExecution {
                command,
                aggregated_output: text,
                exit_code,
                status,
            }
        }
        ToolItem::FileChange(changes) => ItemDetails::FileChange { changes, status },
        ToolItem::Write(path) => {
            let created = details
                .and_then(|details| details.get("created"))
                .and_then(Value::as_bool);
            let kind = if created == Some(true) {
                PatchChangeKind::Add
            } else {
                PatchChangeKind::Update
            };
            ItemDetails::FileChange {
                changes: vec![FileUpdateChange { path, kind }],
                status,
            }
        }
        ToolItem::Mcp {
            server,
            tool,
            arguments,
        } => {
            let (result, error) = if result.is_error {
                (None, Some(ThreadError { message: text }))
            } else {
                (Some(mcp_result(result)), None)
            };
            ItemDetails::McpToolCall {
                server,
                tool,
                arguments,
                result,
                error,
                status,
            }
        }
        ToolItem::Hidden => return None,
    })
}

/// A tool result's text blocks, joined.
fn result_text(result: &ToolResultMessage) -> String {
    result
        .content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Text(text) => Some(text.text.as_str()),
            ContentBlock::Image(_) => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// An MCP tool's result as MCP content blocks.
fn mcp_result(result: &ToolResultMessage) -> McpResult {
    McpResult {
        content: result
            .content
            .iter()
            .map(|block| match block {
                ContentBlock::Text(text) => McpContent::Text {
                    text: text.text.clone(),
                },
                ContentBlock::Image(image) => McpContent::Image {
                    data: image.data.clone(),
                    mime_type: image.mime_type.clone(),
                },
            })
            .collect(),
        // pincer hands the model a tool's `structuredContent` as JSON text among the blocks.
        structured_content: None,
    }
}

/// The codex sink: the lines on stdout as they happen. A write that fails is kept and reported
/// by `finish`; nothing more is written after it.
#[derive(Debug, Default)]
pub(crate) struct CodexSink {
    lines: CodexLines,
    stdout: Stdout,
    failed: Option<io::Error>,
}

impl CodexSink {
    fn write(&mut self, lines: Vec<ThreadEvent>) -> io::Result<()> {
        // As `codex exec`: after SIGINT or SIGTERM nothing more (no `error`, no `turn.failed`);
        // the process ends by the signal, which the Codex SDK reports as an `AbortError`.
        if crate::scope::signal_received().is_some() {
            return Ok(());
        }
        for line in lines {
            self.stdout.json_line(&line)?;
        }
        Ok(())
    }
}

impl EventSink for CodexSink {
    fn emit(&mut self, event: &Event) {
        let lines = self.lines.lines(event);
        if self.failed.is_none()
            && let Err(error) = self.write(lines)
        {
            self.failed = Some(error);
        }
    }
}

impl OutputSink for CodexSink {
    fn finish(&mut self, result: &RunResult) -> Result<(), Undelivered> {
        if let Some(error) = self.failed.take() {
            return Err(Undelivered::Stdout(error));
        }
        let lines = self.lines.finish(result);
        self.write(lines).map_err(Undelivered::Stdout)
    }
}

#[cfg(test)]
#[path = "codex_tests.rs"]
mod tests;
