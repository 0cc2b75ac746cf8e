//! Reading `codex exec --json`.
//!
//! codex reports items (reasoning, agent messages, commands, file changes, MCP calls) rather
//! than model calls. Reasoning and text gather into one assistant message; a tool item completes
//! the message with a tool call, and its completion is the tool result. `turn.completed` carries
//! the usage, cumulative over the thread: the turn's share is the difference to the cumulative
//! value the previous turn recorded, with the cached part taken out of the input (SPEC §8).

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::conversation::TokenUsage;
use crate::conversation::{AssistantBlock, TextBlock, ThinkingBlock, ToolCall};
use crate::session::store::SessionError;

use super::ChildRecord;

/// codex's raw usage counters, as `turn.completed` reports them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
pub struct RawUsage {
    /// `input_tokens` (cached ones included).
    #[serde(default, rename = "input_tokens")]
    pub input: u64,
    /// `cached_input_tokens`.
    #[serde(default, rename = "cached_input_tokens")]
    pub cached: u64,
    /// `output_tokens`.
    #[serde(default, rename = "output_tokens")]
    pub output: u64,
    /// `reasoning_output_tokens`.
    #[serde(default, rename = "reasoning_output_tokens")]
    pub reasoning: u64,
}

impl RawUsage {
    /// As stored in the `pincer.codex-cli` entry.
    pub fn to_json(self) -> Value {
        json!({
            "input_tokens": self.input,
            "cached_input_tokens": self.cached,
            "output_tokens": self.output,
            "reasoning_output_tokens": self.reasoning,
        })
    }

    /// This turn's share of cumulative counters, given the previous turn's (`None` or larger
    /// counters, as after a new thread, mean the counters started from zero).
    pub fn since(self, previous: Option<RawUsage>) -> RawUsage {
        match previous {
            Some(before)
                if before.input <= self.input
                    && before.cached <= self.cached
                    && before.output <= self.output
                    && before.reasoning <= self.reasoning =>
            {
                RawUsage {
                    input: self.input - before.input,
                    cached: self.cached - before.cached,
                    output: self.output - before.output,
                    reasoning: self.reasoning - before.reasoning,
                }
            }
            _ => self,
        }
    }

    /// Normalized: the cached part is a subset of `input_tokens`, so it is subtracted.
    pub fn normalized(self) -> TokenUsage {
        TokenUsage {
            input: self.input.saturating_sub(self.cached),
            output: self.output,
            cache_read: self.cached,
            cache_write: 0,
            cache_write_1h: 0,
            reasoning: self.reasoning,
            web_search_requests: 0,
        }
    }
}

/// One line of `codex exec --json` (the parts pincer reads; other types are skipped).
#[derive(Debug, Deserialize)]
#[serde(tag = "type")]
pub enum Line {
    /// The thread (session) id, for `exec resume`.
    #[serde(rename = "thread.started")]
    ThreadStarted {
        /// The id.
        thread_id: String,
    },
    /// An item begins (commands report their start).
    #[serde(rename = "item.started")]
    ItemStarted {
        /// The item.
        item: Item,
    },
    /// An item is done.
    #[serde(rename = "item.completed")]
    ItemCompleted {
        /// The item.
        item: Item,
    },
    /// The turn is done; usage is cumulative over the thread.
    #[serde(rename = "turn.completed")]
    TurnCompleted {
        /// The counters.
        #[serde(default)]
        usage: RawUsage,
    },
    /// The turn failed.
    #[serde(rename = "turn.failed")]
    TurnFailed {
        /// Why.
        error: ErrorBody,
    },
    /// A fatal stream error.
    #[serde(rename = "error")]
    Error {
        /// Why.
        message: String,
    },
    /// `turn.started`, `item.updated`, …
    #[serde(other)]
    Other,
}

/// `{message}`.
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct ErrorBody {
    /// The message.
    pub message: String,
}

/// A thread item.
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct Item {
    /// Item id (`item_3`), used as the tool call id.
    pub id: String,
    /// What it is.
    #[serde(flatten)]
    pub kind: ItemKind,
}

/// The item types pincer records.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ItemKind {
    /// Text for the user.
    AgentMessage {
        /// The text.
        text: String,
    },
    /// A reasoning summary.
    Reasoning {
        /// The text.
        text: String,
    },
    /// A shell command.
    CommandExecution {
        /// The command line.
        command: String,
        /// stdout and stderr.
        #[serde(default)]
        aggregated_output: String,
        /// Exit code, once done.
        #[serde(default)]
        exit_code: Option<i64>,
        /// `in_progress`, `completed`, `failed`, `declined`.
        #[serde(default)]
        status: Option<String>,
    },
    /// Files patched.
    FileChange {
        /// `{path, kind}` per file.
        #[serde(default)]
        changes: Vec<FileChange>,
        /// `completed`, `failed`, …
        #[serde(default)]
        status: Option<String>,
    },
    /// An MCP tool call.
    McpToolCall {
        /// Server name.
        #[serde(default)]
        server: String,
        /// Tool name.
        #[serde(default)]
        tool: String,
        /// Arguments.
        #[serde(default)]
        arguments: Value,
        /// Result content.
        #[serde(default)]
        result: Option<Value>,
        /// Error, when it failed.
        #[serde(default)]
        error: Option<ErrorBody>,
        /// Status.
        #[serde(default)]
        status: Option<String>,
    },
    /// A web search.
    WebSearch {
        /// The query.
        #[serde(default)]
        query: String,
    },
    /// Plans, to-do lists, non-fatal errors, …
    #[serde(other)]
    Other,
}

/// One file of a `file_change`.
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct FileChange {
    /// The path.
    pub path: String,
    /// `add`, `delete`, `update`.
    #[serde(default)]
    pub kind: Option<String>,
}

impl ItemKind {
    /// The tool call this item stands for (codex's item type as the name), if it is a tool.
    fn call(&self, id: &str) -> Option<ToolCall> {
        let (name, arguments) = match self {
            ItemKind::CommandExecution { command, .. } => {
                ("command_execution", json!({"command": command}))
            }
            ItemKind::FileChange { changes, .. } => ("file_change", json!({"changes": changes})),
            ItemKind::McpToolCall {
                server,
                tool,
                arguments,
                ..
            } => (
                "mcp_tool_call",
                json!({"server": server, "tool": tool, "arguments": arguments}),
            ),
            ItemKind::WebSearch { query } => ("web_search", json!({"query": query})),
            _ => return None,
        };
        Some(ToolCall {
            id: id.to_owned(),
            name: name.to_owned(),
            arguments,
            thought_signature: None,
        })
    }

    /// The result text and error flag of a completed tool item.
    fn result(&self) -> (String, bool) {
        let failed =
            |status: &Option<String>| matches!(status.as_deref(), Some("failed" | "declined"));
        match self {
            ItemKind::CommandExecution {
                aggregated_output,
                exit_code,
                status,
                ..
            } => {
                let mut text = aggregated_output.clone();
                let nonzero = exit_code.filter(|code| *code != 0);
                if let Some(code) = nonzero {
                    if !text.is_empty() && !text.ends_with('\n') {
                        text.push('\n');
                    }
                    text.push_str(&format!("exit code {code}"));
                }
                (text, failed(status) || nonzero.is_some())
            }
            ItemKind::FileChange { changes, status } => {
                let text = changes
                    .iter()
                    .map(|change| {
                        format!(
                            "{} {}",
                            change.kind.as_deref().unwrap_or("update"),
                            change.path
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("\n");
                (text, failed(status))
            }
            ItemKind::McpToolCall {
                result,
                error,
                status,
                ..
            } => match error {
                Some(error) => (error.message.clone(), true),
                None => (
                    result
                        .as_ref()
                        .map(|result| result["content"].to_string())
                        .unwrap_or_default(),
                    failed(status),
                ),
            },
            _ => (String::new(), false),
        }
    }
}

/// The translator's state over one run.
#[derive(Debug, Default)]
pub struct CodexStream {
    /// `thread.started.thread_id`.
    pub thread_id: Option<String>,
    /// The cumulative usage `turn.completed` reported.
    pub cumulative: Option<RawUsage>,
    /// The previous turn's cumulative usage on the same thread.
    pub previous: Option<(String, RawUsage)>,
    /// A `turn.failed` / `error` message.
    pub failure: Option<String>,
    /// Whether `turn.completed` arrived.
    pub completed: bool,
    started: Vec<String>,
}

impl CodexStream {
    /// Handle one stdout line; `Ok(false)` when it is not one of codex's JSON events.
    pub fn line(
        &mut self,
        line: &str,
        recorder: &mut dyn ChildRecord,
    ) -> Result<bool, SessionError> {
        let Ok(event) = serde_json::from_str::<Line>(line) else {
            return Ok(false);
        };
        match event {
            Line::ThreadStarted { thread_id } => self.thread_id = Some(thread_id),
            Line::ItemStarted { item } => {
                if let Some(call) = item.kind.call(&item.id) {
                    self.start_call(call, recorder)?;
                }
            }
            Line::ItemCompleted { item } => match &item.kind {
                ItemKind::AgentMessage { text } => {
                    recorder.text_delta(text);
                    recorder.push(AssistantBlock::Text(TextBlock::new(text.clone())));
                }
                ItemKind::Reasoning { text } => {
                    recorder.push(AssistantBlock::Thinking(ThinkingBlock {
                        thinking: text.clone(),
                        signature: None,
                        redacted: false,
                    }));
                }
                kind => {
                    if let Some(call) = kind.call(&item.id) {
                        if !self.started.contains(&item.id) {
                            self.start_call(call, recorder)?;
                        }
                        let (text, is_error) = kind.result();
                        let details = serde_json::to_value(&item).ok();
                        recorder.tool_result(&item.id, &text, is_error, details)?;
                    }
                }
            },
            Line::TurnCompleted { usage } => {
                let previous = self
                    .previous
                    .as_ref()
                    .filter(|(thread, _)| Some(thread) == self.thread_id.as_ref())
                    .map(|(_, usage)| *usage);
                recorder.set_usage(usage.since(previous).normalized());
                recorder.set_stop("completed");
                recorder.flush(None)?;
                self.cumulative = Some(usage);
                self.completed = true;
            }
            Line::TurnFailed { error } => self.failure = Some(error.message),
            Line::Error { message } => self.failure = Some(message),
            Line::Other => {}
        }
        Ok(true)
    }

    fn start_call(
        &mut self,
        call: ToolCall,
        recorder: &mut dyn ChildRecord,
    ) -> Result<(), SessionError> {
        self.started.push(call.id.clone());
        recorder.push(AssistantBlock::ToolCall(call));
        recorder.flush(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documented_codex_events_parse_into_their_variants() {
        let started = r#"{"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"bash -lc ls","aggregated_output":"","status":"in_progress"}}"#;
        let Line::ItemStarted { item } = serde_json::from_str::<Line>(started).unwrap() else {
            panic!("not item.started");
        };
        assert_eq!(
            item.kind.call(&item.id).unwrap().arguments,
            json!({"command": "bash -lc ls"})
        );
        let failed = r#"{"type":"item.completed","item":{"id":"item_2","type":"command_execution","command":"false","aggregated_output":"boom","exit_code":2,"status":"failed"}}"#;
        let Line::ItemCompleted { item } = serde_json::from_str::<Line>(failed).unwrap() else {
            panic!("not item.completed");
        };
        assert_eq!(item.kind.result(), ("boom\nexit code 2".to_owned(), true));
        let todo =
            r#"{"type":"item.updated","item":{"id":"item_4","type":"todo_list","items":[]}}"#;
        assert!(matches!(
            serde_json::from_str::<Line>(todo).unwrap(),
            Line::Other
        ));
        let done = r#"{"type":"turn.completed","usage":{"input_tokens":24763,"cached_input_tokens":24448,"output_tokens":122}}"#;
        let Line::TurnCompleted { usage } = serde_json::from_str::<Line>(done).unwrap() else {
            panic!("not turn.completed");
        };
        assert_eq!(usage.normalized().input, 315);
    }

    #[test]
    fn cumulative_thread_usage_becomes_a_normalized_turn_delta() {
        let first = RawUsage {
            input: 24_763,
            cached: 24_448,
            output: 122,
            reasoning: 64,
        };
        let second = RawUsage {
            input: 50_000,
            cached: 48_000,
            output: 300,
            reasoning: 100,
        };
        let delta = second.since(Some(first));
        assert_eq!(
            delta.normalized(),
            TokenUsage {
                input: 1_685,
                output: 178,
                cache_read: 23_552,
                cache_write: 0,
                cache_write_1h: 0,
                reasoning: 36,
                web_search_requests: 0,
            }
        );
        // A new thread starts from zero: counters smaller than the stored ones are taken whole.
        assert_eq!(first.since(Some(second)), first);
    }
}
