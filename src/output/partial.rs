//! `--include-partial-messages`: the neutral stream of every provider and backend, re-told as
//! Anthropic's raw stream events, which is what `claude -p` puts in its `stream_event` lines
//! (SPEC §3.3; `shared/reference/claude-output/stream-json-partial-tool-turn.jsonl`).
//!
//! Per model call: `message_start` (a message object with an empty `content`), then per content
//! block `content_block_start`, `content_block_delta`s (`text_delta`, `thinking_delta`,
//! `signature_delta`, `input_json_delta`) and `content_block_stop`, then `message_delta` (claude's
//! stop reason and the call's usage) and `message_stop`. Block indices count from 0 in each
//! message, in the order the blocks first appear.
//!
//! Choices, and why:
//! - `message_start` waits for the call's first content: a call retried before it showed anything
//!   leaves no trace, so a script never sees a message that did not happen. A call whose stream
//!   broke after content has no `content_block_stop`/`message_stop`; the `system` line that
//!   starts the call over (`api_retry`, `auth_rotation`, `model_fallback`) carries
//!   `discarded_partial: true`: its partial text is to be dropped (`events::StreamJsonLines`).
//! - Blocks are sequential, as Anthropic sends them: a block stops when the next one starts. Text
//!   or reasoning that continues a block after another began (inline `<think>` tags split one
//!   wire block into two that alternate) continues in a new block of its kind; tool arguments are
//!   never split that way (no provider interleaves them).
//! - A tool call whose arguments arrive whole (Gemini) gets them as one `input_json_delta`, so
//!   concatenating `partial_json` gives the input for every provider.
//! - Gemini's signatures on text parts have no Anthropic counterpart and are left out.
//! - A provider web search is told as Anthropic tells its own: a `server_tool_use` block whose
//!   input follows as `input_json_delta`, then a `web_search_tool_result` block, whole; a
//!   citation is a `citations_delta` in its text block (which starts then if it has not yet).

use serde_json::{Map, Value};

use super::schema::{
    AssistantWord, MessageWord, RawBlock, RawDelta, RawEvent, RawMessage, RawMessageDelta,
    ServerToolUsage, WireUsage,
};
use crate::conversation::{ServerToolCall, StreamEvent, TokenUsage};
use crate::engine::event::MessageEnd;

/// What kind of block a claude index holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Text,
    Thinking,
    ToolUse,
    RedactedThinking,
    ServerToolUse,
    ServerToolResult,
}

/// A message whose `message_start` has been written.
#[derive(Debug, Default)]
struct Open {
    /// Claude indices given out so far.
    next_index: usize,
    /// The block being written: (neutral block, claude index, kind).
    current: Option<(usize, usize, Kind)>,
    /// Tool calls by neutral block → claude index (their arguments always go to their block).
    tools: Vec<(usize, usize)>,
    /// Server tool calls by neutral block → (their id, whether input was written).
    server_calls: Vec<(usize, String, bool)>,
}

/// Turns neutral stream events into claude's raw stream events, one model call at a time.
#[derive(Debug, Default)]
pub(crate) struct PartialMessages {
    /// The call's id and model from its start event, until its `message_start` is written.
    start: Option<(Option<String>, Option<String>)>,
    /// The latest usage snapshot of the call.
    usage: TokenUsage,
    open: Option<Open>,
    /// The model named in `system/init`, for a provider that does not name it.
    model: Option<String>,
}

impl PartialMessages {
    /// An encoder; `model` names the model when the provider's stream does not.
    pub(crate) fn new(model: Option<String>) -> PartialMessages {
        PartialMessages {
            model,
            ..PartialMessages::default()
        }
    }

    /// The raw events for one neutral event (often none).
    pub(crate) fn on_stream(&mut self, event: &StreamEvent) -> Vec<RawEvent> {
        let mut out = Vec::new();
        match event {
            StreamEvent::Start { response_id, model } => {
                // A new call: whatever was open belonged to a call that broke off.
                self.open = None;
                self.usage = TokenUsage::default();
                self.start = Some((response_id.clone(), model.clone()));
            }
            StreamEvent::Usage(usage) => self.usage = *usage,
            StreamEvent::TextDelta { block, text } if !text.is_empty() => {
                let index = self.block(*block, Kind::Text, &mut out);
                out.push(delta(index, RawDelta::TextDelta { text: text.clone() }));
            }
            StreamEvent::ThinkingDelta { block, text } if !text.is_empty() => {
                let index = self.block(*block, Kind::Thinking, &mut out);
                out.push(delta(
                    index,
                    RawDelta::ThinkingDelta {
                        thinking: text.clone(),
                    },
                ));
            }
            StreamEvent::ThinkingSignature { block, signature } => {
                if let Some(index) = self.current_index(*block, Kind::Thinking) {
                    out.push(delta(
                        index,
                        RawDelta::SignatureDelta {
                            signature: signature.clone(),
                        },
                    ));
                }
            }
            StreamEvent::RedactedThinking { block, data } => {
                self.start_block(
                    *block,
                    Kind::RedactedThinking,
                    RawBlock::RedactedThinking { data: data.clone() },
                    &mut out,
                );
            }
            StreamEvent::ToolCallStart { block, id, name } => {
                self.start_tool(*block, id, name, &mut out);
            }
            StreamEvent::ToolCallArguments { block, fragment } if !fragment.is_empty() => {
                if let Some(index) = self.tool_index(*block) {
                    out.push(delta(
                        index,
                        RawDelta::InputJsonDelta {
                            partial_json: fragment.clone(),
                        },
                    ));
                }
            }
            StreamEvent::ToolCall {
                block,
                id,
                name,
                arguments,
                ..
            } => {
                let index = self.start_tool(*block, id, name, &mut out);
                out.push(delta(
                    index,
                    RawDelta::InputJsonDelta {
                        partial_json: arguments.to_string(),
                    },
                ));
            }
            StreamEvent::ServerToolStart { block, id, name } => {
                self.start_server_tool(*block, id, name, &mut out);
            }
            StreamEvent::ServerToolInput { block, fragment } if !fragment.is_empty() => {
                self.server_input(*block, fragment, &mut out);
            }
            StreamEvent::ServerToolResult {
                block,
                results,
                error,
                payload,
            } => {
                let call = ServerToolCall {
                    id: self.server_id(*block).unwrap_or_default(),
                    results: results.clone(),
                    error: error.clone(),
                    payload: payload.clone(),
                    ..ServerToolCall::default()
                };
                self.server_result(*block, &call, &mut out);
            }
            StreamEvent::ServerTool { block, call } => {
                if self.server_id(*block).is_none() {
                    self.start_server_tool(*block, &call.id, &call.name, &mut out);
                }
                if !call.input.is_null() && !self.server_input_written(*block) {
                    self.server_input(*block, &call.input.to_string(), &mut out);
                }
                self.server_result(*block, call, &mut out);
            }
            StreamEvent::Citation { block, citation } => {
                let index = self.block(*block, Kind::Text, &mut out);
                out.push(delta(
                    index,
                    RawDelta::CitationsDelta {
                        citation: super::web_search::citation(citation),
                    },
                ));
            }
            StreamEvent::TextDelta { .. }
            | StreamEvent::ThinkingDelta { .. }
            | StreamEvent::ToolCallArguments { .. }
            | StreamEvent::ServerToolInput { .. }
            | StreamEvent::TextSignature { .. }
            | StreamEvent::Finish { .. } => {}
        }
        out
    }

    fn start_server_tool(&mut self, block: usize, id: &str, name: &str, out: &mut Vec<RawEvent>) {
        self.start_block(
            block,
            Kind::ServerToolUse,
            RawBlock::ServerToolUse {
                id: id.to_owned(),
                name: name.to_owned(),
                input: Value::Object(Map::new()),
            },
            out,
        );
        if let Some(open) = &mut self.open {
            open.server_calls.push((block, id.to_owned(), false));
        }
    }

    fn server_call(&mut self, block: usize) -> Option<&mut (usize, String, bool)> {
        self.open
            .as_mut()?
            .server_calls
            .iter_mut()
            .rev()
            .find(|(neutral, _, _)| *neutral == block)
    }

    fn server_id(&mut self, block: usize) -> Option<String> {
        self.server_call(block).map(|(_, id, _)| id.clone())
    }

    fn server_input_written(&mut self, block: usize) -> bool {
        self.server_call(block)
            .is_some_and(|(_, _, written)| *written)
    }

    /// Input of the server call in `block`, while its block is the one being written.
    fn server_input(&mut self, block: usize, fragment: &str, out: &mut Vec<RawEvent>) {
        let Some(index) = self.current_index(block, Kind::ServerToolUse) else {
            return;
        };
        if let Some(call) = self.server_call(block) {
            call.2 = true;
        }
        out.push(delta(
            index,
            RawDelta::InputJsonDelta {
                partial_json: fragment.to_owned(),
            },
        ));
    }

    /// The result block of the server call in `block`, when there is an outcome to show.
    fn server_result(&mut self, block: usize, call: &ServerToolCall, out: &mut Vec<RawEvent>) {
        if let Some(content) = super::web_search::result_content(call) {
            self.start_block(
                block,
                Kind::ServerToolResult,
                RawBlock::WebSearchToolResult {
                    tool_use_id: call.id.clone(),
                    content,
                },
                out,
            );
        }
    }

    /// Whether a message has been started and not completed (a call showed content).
    pub(crate) fn is_open(&self) -> bool {
        self.open.is_some()
    }

    /// The open message will not be completed (its call is being made again, or by another
    /// credential or model): forget it.
    pub(crate) fn abandon(&mut self) {
        self.open = None;
        self.start = None;
    }

    /// The call completed: stop the open block, then `message_delta` and `message_stop`.
    pub(crate) fn on_end(&mut self, end: &MessageEnd) -> Vec<RawEvent> {
        let mut out = Vec::new();
        self.usage = end.usage;
        self.ensure_open(&mut out);
        self.stop_current(&mut out);
        out.push(RawEvent::MessageDelta {
            delta: RawMessageDelta {
                stop_reason: end.stop_reason.map(str::to_owned),
                stop_sequence: None,
            },
            usage: wire_usage(&end.usage),
        });
        out.push(RawEvent::MessageStop {});
        self.open = None;
        self.start = None;
        self.usage = TokenUsage::default();
        out
    }

    /// Write `message_start` if it has not been written for this call.
    fn ensure_open(&mut self, out: &mut Vec<RawEvent>) -> &mut Open {
        if self.open.is_none() {
            let (id, model) = self.start.take().unwrap_or_default();
            let id = id.unwrap_or_else(|| format!("msg_{}", uuid::Uuid::new_v4().simple()));
            let model = model.or_else(|| self.model.clone());
            out.push(RawEvent::MessageStart {
                message: RawMessage {
                    id,
                    kind: MessageWord::Value,
                    role: AssistantWord::Value,
                    model,
                    content: Vec::new(),
                    stop_reason: None,
                    stop_sequence: None,
                    usage: wire_usage(&self.usage),
                },
            });
        }
        self.open.get_or_insert_with(Open::default)
    }

    fn stop_current(&mut self, out: &mut Vec<RawEvent>) {
        if let Some(open) = &mut self.open
            && let Some((_, index, _)) = open.current.take()
        {
            out.push(RawEvent::ContentBlockStop { index });
        }
    }

    /// The claude index of the block being written, when it is `block` of `kind`.
    fn current_index(&self, block: usize, kind: Kind) -> Option<usize> {
        let (neutral, index, current_kind) = self.open.as_ref()?.current?;
        (neutral == block && current_kind == kind).then_some(index)
    }

    /// The claude index for content of `kind` in neutral `block`, starting a block if needed.
    fn block(&mut self, block: usize, kind: Kind, out: &mut Vec<RawEvent>) -> usize {
        self.ensure_open(out);
        if let Some(index) = self.current_index(block, kind) {
            return index;
        }
        let content_block = match kind {
            Kind::Thinking => RawBlock::Thinking {
                thinking: String::new(),
                signature: String::new(),
            },
            _ => RawBlock::Text {
                text: String::new(),
            },
        };
        self.start_block(block, kind, content_block, out)
    }

    fn start_block(
        &mut self,
        block: usize,
        kind: Kind,
        content_block: RawBlock,
        out: &mut Vec<RawEvent>,
    ) -> usize {
        self.ensure_open(out);
        self.stop_current(out);
        let open = self.ensure_open(out);
        let index = open.next_index;
        open.next_index += 1;
        open.current = Some((block, index, kind));
        out.push(RawEvent::ContentBlockStart {
            index,
            content_block,
        });
        index
    }

    fn start_tool(&mut self, block: usize, id: &str, name: &str, out: &mut Vec<RawEvent>) -> usize {
        let index = self.start_block(
            block,
            Kind::ToolUse,
            RawBlock::ToolUse {
                id: id.to_owned(),
                name: name.to_owned(),
                input: Value::Object(Map::new()),
            },
            out,
        );
        if let Some(open) = &mut self.open {
            open.tools.push((block, index));
        }
        index
    }

    fn tool_index(&self, block: usize) -> Option<usize> {
        self.open
            .as_ref()?
            .tools
            .iter()
            .rev()
            .find(|(neutral, _)| *neutral == block)
            .map(|(_, index)| *index)
    }
}

fn delta(index: usize, delta: RawDelta) -> RawEvent {
    RawEvent::ContentBlockDelta { index, delta }
}

/// Usage in Anthropic's field names (the three prompt parts are disjoint, SPEC §8).
pub(crate) fn wire_usage(usage: &TokenUsage) -> WireUsage {
    WireUsage {
        input_tokens: usage.input,
        cache_creation_input_tokens: usage.cache_write,
        cache_read_input_tokens: usage.cache_read,
        output_tokens: usage.output,
        server_tool_use: (usage.web_search_requests > 0).then_some(ServerToolUsage {
            web_search_requests: usage.web_search_requests,
        }),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn types<T: serde::Serialize>(events: &[T]) -> Vec<String> {
        events
            .iter()
            .map(|event| serde_json::to_value(event).unwrap())
            .map(|event: Value| {
                let kind = event["type"].as_str().unwrap_or_default();
                match event["delta"]["type"].as_str() {
                    Some(delta) if kind == "content_block_delta" => {
                        format!("{}:{delta}", event["index"])
                    }
                    _ if event.get("index").is_some() => format!("{kind}:{}", event["index"]),
                    _ => kind.to_owned(),
                }
            })
            .collect()
    }

    fn run(events: &[StreamEvent], end: Option<&str>) -> Vec<Value> {
        let mut encoder = PartialMessages::new(Some("fallback-model".into()));
        let mut out: Vec<RawEvent> = events
            .iter()
            .flat_map(|event| encoder.on_stream(event))
            .collect();
        if let Some(stop) = end {
            let stop = match stop {
                "tool_use" => "tool_use",
                _ => "end_turn",
            };
            out.extend(encoder.on_end(&MessageEnd {
                stop_reason: Some(stop),
                usage: TokenUsage {
                    input: 5,
                    output: 7,
                    ..TokenUsage::default()
                },
            }));
        }
        out.iter()
            .map(|event| serde_json::to_value(event).unwrap())
            .collect()
    }

    #[test]
    fn a_search_is_told_as_a_server_tool_use_and_its_result_and_a_citation_as_a_delta() {
        let citation = crate::conversation::Citation {
            url: "https://a.example/".into(),
            title: Some("A".into()),
            cited_text: Some("a fact".into()),
            payload: None,
        };
        let anthropic = run(
            &[
                StreamEvent::ServerToolStart {
                    block: 0,
                    id: "srvtoolu_1".into(),
                    name: "web_search".into(),
                },
                StreamEvent::ServerToolInput {
                    block: 0,
                    fragment: "{\"query\":\"a\"}".into(),
                },
                StreamEvent::ServerToolResult {
                    block: 0,
                    results: vec![crate::conversation::WebResult {
                        url: "https://a.example/".into(),
                        title: Some("A".into()),
                    }],
                    error: None,
                    payload: Some(json!([])),
                },
                StreamEvent::Citation {
                    block: 2,
                    citation: citation.clone(),
                },
                StreamEvent::TextDelta {
                    block: 2,
                    text: "A fact.".into(),
                },
            ],
            Some("end_turn"),
        );
        assert_eq!(
            types(&anthropic),
            [
                "message_start",
                "content_block_start:0",
                "0:input_json_delta",
                "content_block_stop:0",
                "content_block_start:1",
                "content_block_stop:1",
                "content_block_start:2",
                "2:citations_delta",
                "2:text_delta",
                "content_block_stop:2",
                "message_delta",
                "message_stop"
            ]
        );
        assert_eq!(
            anthropic[1]["content_block"],
            json!({"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}})
        );
        assert_eq!(
            anthropic[4]["content_block"],
            json!({"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1",
                   "content": [{"type": "web_search_result", "url": "https://a.example/", "title": "A"}]})
        );
        assert_eq!(
            anthropic[7]["delta"]["citation"],
            json!({"type": "web_search_result_location", "url": "https://a.example/",
                   "title": "A", "cited_text": "a fact"})
        );
        // A whole call (Gemini) gets its input as one piece and its result block.
        let whole = run(
            &[StreamEvent::ServerTool {
                block: 3,
                call: crate::conversation::ServerToolCall {
                    id: "search_1".into(),
                    name: "web_search".into(),
                    input: json!({"queries": ["a"]}),
                    results: Vec::new(),
                    error: Some("unavailable".into()),
                    payload: None,
                },
            }],
            None,
        );
        assert_eq!(
            types(&whole),
            [
                "message_start",
                "content_block_start:0",
                "0:input_json_delta",
                "content_block_stop:0",
                "content_block_start:1"
            ]
        );
        assert_eq!(
            whole[4]["content_block"]["content"],
            json!({"type": "web_search_tool_result_error", "error_code": "unavailable"})
        );
    }

    #[test]
    fn thinking_text_and_a_streamed_tool_call_become_three_sequential_blocks() {
        let events = [
            StreamEvent::Start {
                response_id: Some("msg_1".into()),
                model: Some("claude-x".into()),
            },
            StreamEvent::Usage(TokenUsage {
                input: 5,
                ..TokenUsage::default()
            }),
            StreamEvent::ThinkingDelta {
                block: 0,
                text: "hm".into(),
            },
            StreamEvent::ThinkingSignature {
                block: 0,
                signature: "sig".into(),
            },
            StreamEvent::TextDelta {
                block: 1,
                text: "Let me look".into(),
            },
            StreamEvent::ToolCallStart {
                block: 2,
                id: "toolu_1".into(),
                name: "read".into(),
            },
            StreamEvent::ToolCallArguments {
                block: 2,
                fragment: String::new(),
            },
            StreamEvent::ToolCallArguments {
                block: 2,
                fragment: "{\"path\":".into(),
            },
            StreamEvent::ToolCallArguments {
                block: 2,
                fragment: "\"a\"}".into(),
            },
        ];
        let out = run(&events, Some("tool_use"));
        assert_eq!(
            types(&out),
            [
                "message_start",
                "content_block_start:0",
                "0:thinking_delta",
                "0:signature_delta",
                "content_block_stop:0",
                "content_block_start:1",
                "1:text_delta",
                "content_block_stop:1",
                "content_block_start:2",
                "2:input_json_delta",
                "2:input_json_delta",
                "content_block_stop:2",
                "message_delta",
                "message_stop",
            ]
        );
        assert_eq!(out[0]["message"]["id"], "msg_1");
        assert_eq!(out[0]["message"]["model"], "claude-x");
        assert_eq!(out[0]["message"]["usage"]["input_tokens"], 5);
        assert_eq!(
            out[8]["content_block"],
            json!({"type": "tool_use", "id": "toolu_1", "name": "read", "input": {}})
        );
        assert_eq!(out[12]["delta"]["stop_reason"], "tool_use");
        assert_eq!(out[12]["usage"]["output_tokens"], 7);
    }

    #[test]
    fn a_whole_tool_call_arrives_as_one_input_json_delta() {
        let events = [StreamEvent::ToolCall {
            block: 0,
            id: "call_0".into(),
            name: "ls".into(),
            arguments: json!({"path": "."}),
            thought_signature: None,
        }];
        let out = run(&events, Some("tool_use"));
        assert_eq!(out[0]["message"]["model"], "fallback-model");
        assert!(
            out[0]["message"]["id"]
                .as_str()
                .unwrap()
                .starts_with("msg_")
        );
        let input: String = out
            .iter()
            .filter_map(|event| event["delta"]["partial_json"].as_str())
            .collect();
        assert_eq!(
            serde_json::from_str::<Value>(&input).unwrap(),
            json!({"path": "."})
        );
    }

    #[test]
    fn a_call_retried_before_any_content_leaves_nothing_and_a_broken_one_no_stop() {
        let start = StreamEvent::Start {
            response_id: Some("msg_a".into()),
            model: None,
        };
        let mut encoder = PartialMessages::default();
        // Started, then retried before any content: nothing written.
        assert!(encoder.on_stream(&start).is_empty());
        assert!(
            encoder
                .on_stream(&StreamEvent::Usage(TokenUsage::default()))
                .is_empty()
        );
        // The retry starts over and shows text, then breaks: no stop events.
        assert!(encoder.on_stream(&start).is_empty());
        let written = encoder.on_stream(&StreamEvent::TextDelta {
            block: 0,
            text: "half".into(),
        });
        assert_eq!(
            types(&written),
            ["message_start", "content_block_start:0", "0:text_delta"]
        );
        // The next call is a message of its own, counted from index 0.
        assert!(encoder.on_stream(&start).is_empty());
        let written = encoder.on_stream(&StreamEvent::TextDelta {
            block: 0,
            text: "whole".into(),
        });
        assert_eq!(
            types(&written),
            ["message_start", "content_block_start:0", "0:text_delta"]
        );
    }

    #[test]
    fn text_that_resumes_after_inline_reasoning_continues_in_a_new_block() {
        let events = [
            StreamEvent::TextDelta {
                block: 1,
                text: "a ".into(),
            },
            StreamEvent::ThinkingDelta {
                block: 0,
                text: "x".into(),
            },
            StreamEvent::TextDelta {
                block: 1,
                text: "b".into(),
            },
        ];
        let out = run(&events, Some("end_turn"));
        assert_eq!(
            types(&out),
            [
                "message_start",
                "content_block_start:0",
                "0:text_delta",
                "content_block_stop:0",
                "content_block_start:1",
                "1:thinking_delta",
                "content_block_stop:1",
                "content_block_start:2",
                "2:text_delta",
                "content_block_stop:2",
                "message_delta",
                "message_stop",
            ]
        );
    }

    #[test]
    fn an_empty_answer_is_still_a_whole_message() {
        let out = run(&[], Some("end_turn"));
        assert_eq!(
            types(&out),
            ["message_start", "message_delta", "message_stop"]
        );
    }
}
