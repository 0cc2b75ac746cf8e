//! Reading `codex exec --json`.
//!
//! codex reports items (reasoning, agent messages, commands, file changes, MCP calls) rather
//! than model calls. Reasoning and text gather into one assistant message; a tool item completes
//! the message with a tool call, and its completion is the tool result. `turn.completed` carries
//! the usage, cumulative over the thread: the turn's share is the difference to the cumulative
//! value the previous turn recorded, with the cached part taken out of the input (SPEC §8).

use serde_json::{Map, Value, json};

use crate::conversation::TokenUsage;
use crate::session::record::{AssistantContent, TextContent, ThinkingContent, ToolCall};
use crate::session::store::SessionError;

use super::record::Recorder;

/// codex's raw usage counters, as `turn.completed` reports them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RawUsage {
    /// `input_tokens` (cached ones included).
    pub input: u64,
    /// `cached_input_tokens`.
    pub cached: u64,
    /// `output_tokens`.
    pub output: u64,
    /// `reasoning_output_tokens`.
    pub reasoning: u64,
}

impl RawUsage {
    /// Read from a `usage` object.
    pub fn from_json(value: &Value) -> RawUsage {
        let count = |key: &str| value.get(key).and_then(Value::as_u64).unwrap_or(0);
        RawUsage {
            input: count("input_tokens"),
            cached: count("cached_input_tokens"),
            output: count("output_tokens"),
            reasoning: count("reasoning_output_tokens"),
        }
    }

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
            reasoning: self.reasoning,
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

fn is_tool(kind: &str) -> bool {
    matches!(
        kind,
        "command_execution" | "file_change" | "mcp_tool_call" | "web_search" | "collab_tool_call"
    )
}

/// The tool call an item stands for: codex's own item type as the name, its parameters as the
/// arguments.
fn call_of(item: &Value) -> ToolCall {
    let kind = item["type"].as_str().unwrap_or_default();
    let arguments = match kind {
        "command_execution" => json!({"command": item["command"]}),
        "file_change" => json!({"changes": item["changes"]}),
        "mcp_tool_call" => json!({
            "server": item["server"],
            "tool": item["tool"],
            "arguments": item["arguments"],
        }),
        "web_search" => json!({"query": item["query"]}),
        _ => item.clone(),
    };
    ToolCall {
        id: item["id"].as_str().unwrap_or_default().to_owned(),
        name: kind.to_owned(),
        arguments,
        thought_signature: None,
        extra: Map::new(),
    }
}

/// The result text and error flag of a completed tool item.
fn result_of(item: &Value) -> (String, bool) {
    let status = item["status"].as_str().unwrap_or("completed");
    let failed = matches!(status, "failed" | "declined");
    match item["type"].as_str().unwrap_or_default() {
        "command_execution" => {
            let output = item["aggregated_output"].as_str().unwrap_or_default();
            let code = item["exit_code"].as_i64();
            let mut text = output.to_owned();
            if let Some(code) = code.filter(|code| *code != 0) {
                if !text.is_empty() && !text.ends_with('\n') {
                    text.push('\n');
                }
                text.push_str(&format!("exit code {code}"));
            }
            (text, failed || code.is_some_and(|code| code != 0))
        }
        "file_change" => {
            let changes = item["changes"]
                .as_array()
                .map(|changes| {
                    changes
                        .iter()
                        .map(|change| {
                            format!(
                                "{} {}",
                                change["kind"].as_str().unwrap_or("update"),
                                change["path"].as_str().unwrap_or_default()
                            )
                        })
                        .collect::<Vec<_>>()
                        .join("\n")
                })
                .unwrap_or_default();
            (changes, failed)
        }
        "mcp_tool_call" => {
            if let Some(error) = item["error"]["message"].as_str() {
                return (error.to_owned(), true);
            }
            (item["result"]["content"].to_string(), failed)
        }
        _ => (status.to_owned(), failed),
    }
}

impl CodexStream {
    /// Handle one stdout line (already parsed).
    pub fn line(&mut self, value: &Value, recorder: &mut Recorder<'_>) -> Result<(), SessionError> {
        match value["type"].as_str().unwrap_or("") {
            "thread.started" => {
                self.thread_id = value["thread_id"].as_str().map(str::to_owned);
            }
            "item.started" => {
                let item = &value["item"];
                if is_tool(item["type"].as_str().unwrap_or_default()) {
                    self.start_call(item, recorder)?;
                }
            }
            "item.completed" => {
                let item = &value["item"];
                let kind = item["type"].as_str().unwrap_or_default();
                match kind {
                    "agent_message" => {
                        let text = item["text"].as_str().unwrap_or_default();
                        recorder.text_delta(text);
                        recorder.push(AssistantContent::Text(TextContent {
                            text: text.to_owned(),
                            text_signature: None,
                            extra: Map::new(),
                        }));
                    }
                    "reasoning" => recorder.push(AssistantContent::Thinking(ThinkingContent {
                        thinking: item["text"].as_str().unwrap_or_default().to_owned(),
                        thinking_signature: None,
                        redacted: None,
                        extra: Map::new(),
                    })),
                    kind if is_tool(kind) => {
                        let id = item["id"].as_str().unwrap_or_default().to_owned();
                        if !self.started.contains(&id) {
                            self.start_call(item, recorder)?;
                        }
                        let (text, is_error) = result_of(item);
                        recorder.tool_result(&id, &text, is_error, Some(item.clone()))?;
                    }
                    _ => {}
                }
            }
            "turn.completed" => {
                let cumulative = RawUsage::from_json(&value["usage"]);
                let previous = self
                    .previous
                    .as_ref()
                    .filter(|(thread, _)| Some(thread) == self.thread_id.as_ref())
                    .map(|(_, usage)| *usage);
                recorder.set_usage(cumulative.since(previous).normalized());
                recorder.set_stop("completed");
                recorder.flush(None)?;
                self.cumulative = Some(cumulative);
                self.completed = true;
            }
            "turn.failed" => {
                self.failure = Some(
                    value["error"]["message"]
                        .as_str()
                        .unwrap_or("the turn failed")
                        .to_owned(),
                );
            }
            "error" => {
                self.failure = Some(
                    value["message"]
                        .as_str()
                        .unwrap_or("codex reported an error")
                        .to_owned(),
                );
            }
            _ => {}
        }
        Ok(())
    }

    fn start_call(
        &mut self,
        item: &Value,
        recorder: &mut Recorder<'_>,
    ) -> Result<(), SessionError> {
        let call = call_of(item);
        self.started.push(call.id.clone());
        recorder.push(AssistantContent::ToolCall(call));
        recorder.flush(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
                reasoning: 36,
            }
        );
        // A new thread starts from zero: counters smaller than the stored ones are taken whole.
        assert_eq!(first.since(Some(second)), first);
    }
}
