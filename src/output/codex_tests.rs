use serde_json::{Value, json};

use super::*;
use crate::conversation::{
    AssistantMessage, Cost, ImageBlock, ServerToolCall, StopReason, TextBlock, ThinkingBlock,
    ToolCall,
};
use crate::engine::event::{AssistantDone, Fallback, Init, ToolResultDone};
use crate::output::schema::{ResultSubtype, ResultUsage};

fn init(session_id: Option<&str>) -> Event {
    Event::Init(Init {
        session_id: session_id.map(str::to_owned),
        cwd: "/w".into(),
        tools: vec!["exec".into()],
        model: "m".into(),
        provider: "p".into(),
        backend: "api",
        api_key_source: "environment",
        mcp_servers: Vec::new(),
        hooks: Vec::new(),
        sandbox: "workspace-write",
        network: "off",
        network_rules: None,
        web_search: None,
        refused_files: Vec::new(),
    })
}

fn assistant(content: Vec<AssistantBlock>) -> Event {
    Event::Assistant(AssistantDone {
        message: AssistantMessage {
            content,
            api: "anthropic-messages".into(),
            provider: "anthropic".into(),
            model: "m".into(),
            usage: crate::conversation::TokenUsage::default(),
            cost: Cost::default(),
            stop_reason: StopReason::Stop,
            timestamp: 0,
            error_message: None,
        },
        message_id: "msg".into(),
        stop_reason: Some("end_turn"),
        provider_stop_reason: None,
        entry_id: None,
    })
}

fn text(text: &str) -> AssistantBlock {
    AssistantBlock::Text(TextBlock::new(text))
}

fn call(id: &str, name: &str, input: Value) -> AssistantBlock {
    AssistantBlock::ToolCall(ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: input,
        thought_signature: None,
    })
}

fn started(id: &str, name: &str, input: Value) -> Event {
    Event::ToolStarted(ToolStart {
        id: id.into(),
        name: name.into(),
        input,
    })
}

fn answered(id: &str, name: &str, text: &str, is_error: bool, details: Option<Value>) -> Event {
    Event::ToolResult(ToolResultDone {
        result: ToolResultMessage {
            tool_call_id: id.into(),
            tool_name: name.into(),
            content: vec![ContentBlock::text(text)],
            details,
            is_error,
            timestamp: 0,
        },
        entry_id: None,
    })
}

fn success(answer: &str, session_id: Option<&str>) -> RunResult {
    let mut result = RunResult::early_error(
        ResultSubtype::Success,
        crate::error::ErrorKind::RunFailed,
        "",
        0,
    );
    result.is_error = false;
    result.error = None;
    result.errors.clear();
    result.terminal_reason = "completed".into();
    result.result = answer.into();
    result.session_id = session_id.map(str::to_owned);
    result
}

/// Every line of a run: each event's, then the end's, as JSON.
fn run(events: &[Event], result: &RunResult) -> Vec<Value> {
    let mut lines = CodexLines::default();
    let mut out: Vec<ThreadEvent> = events.iter().flat_map(|e| lines.lines(e)).collect();
    out.extend(lines.finish(result));
    out.iter()
        .map(|line| serde_json::to_value(line).unwrap())
        .collect()
}

#[test]
fn a_text_turn_prints_the_lines_codex_prints() {
    let mut result = success("Mock answer.", Some("0199-s"));
    result.usage = ResultUsage {
        input_tokens: 100,
        cache_creation_input_tokens: 20,
        cache_read_input_tokens: 300,
        output_tokens: 7,
        reasoning_tokens: 2,
        ..ResultUsage::default()
    };
    let lines = run(
        &[init(Some("0199-s")), assistant(vec![text("Mock answer.")])],
        &result,
    );
    assert_eq!(
        lines,
        vec![
            json!({"type": "thread.started", "thread_id": "0199-s"}),
            json!({"type": "turn.started"}),
            json!({"type": "item.completed", "item": {"id": "item_0", "type": "agent_message", "text": "Mock answer."}}),
            json!({"type": "turn.completed", "usage": {
                "input_tokens": 420, "cached_input_tokens": 300, "cache_write_input_tokens": 20,
                "output_tokens": 7, "reasoning_output_tokens": 2}}),
        ]
    );
}

#[test]
fn an_exec_call_is_a_command_execution_started_then_completed_with_its_exit_code() {
    let lines = run(
        &[
            init(Some("s")),
            assistant(vec![
                text("Let me look."),
                call("c1", "exec", json!({"command": "cat notes.txt"})),
            ]),
            started("c1", "exec", json!({"command": "cat notes.txt"})),
            answered(
                "c1",
                "exec",
                "The token is MAGIC\n",
                false,
                Some(json!({"exit_code": 0})),
            ),
            started("c2", "exec", json!({"command": "false"})),
            answered(
                "c2",
                "exec",
                "Command exited with code 1",
                true,
                Some(json!({"exit_code": 1})),
            ),
            assistant(vec![text("It is MAGIC.")]),
        ],
        &success("It is MAGIC.", Some("s")),
    );
    let items: Vec<&Value> = lines[2..].iter().collect();
    assert_eq!(
        items[0],
        &json!({"type": "item.completed", "item": {"id": "item_0", "type": "agent_message", "text": "Let me look."}})
    );
    assert_eq!(
        items[1],
        &json!({"type": "item.started", "item": {"id": "item_1", "type": "command_execution",
            "command": "cat notes.txt", "aggregated_output": "", "exit_code": null, "status": "in_progress"}})
    );
    assert_eq!(
        items[2],
        &json!({"type": "item.completed", "item": {"id": "item_1", "type": "command_execution",
            "command": "cat notes.txt", "aggregated_output": "The token is MAGIC\n", "exit_code": 0,
            "status": "completed"}})
    );
    assert_eq!(items[4]["item"]["exit_code"], 1);
    assert_eq!(items[4]["item"]["status"], "failed");
    assert_eq!(
        items[5],
        &json!({"type": "item.completed", "item": {"id": "item_3", "type": "agent_message", "text": "It is MAGIC."}})
    );
    assert_eq!(items[6]["type"], "turn.completed");
    assert_eq!(items.len(), 7, "{lines:#?}");
}

#[test]
fn file_tools_are_file_changes_with_each_files_kind() {
    let patch = "*** Begin Patch\n*** Add File: new.txt\n+hi\n*** Update File: a.txt\n@@\n-a\n+b\n\
                 *** Delete File: old.txt\n*** End Patch";
    let lines = run(
        &[
            init(Some("s")),
            started("w1", "write", json!({"path": "fresh.txt", "content": "x"})),
            answered(
                "w1",
                "write",
                "ok",
                false,
                Some(json!({"bytes": 1, "created": true})),
            ),
            started("w2", "write", json!({"path": "fresh.txt", "content": "y"})),
            answered(
                "w2",
                "write",
                "ok",
                false,
                Some(json!({"bytes": 1, "created": false})),
            ),
            started("e1", "edit", json!({"path": "b.txt"})),
            answered("e1", "edit", "no match", true, None),
            started("p1", "apply_patch", json!({"input": patch})),
            answered("p1", "apply_patch", "Success.", false, None),
        ],
        &success("done", Some("s")),
    );
    // No item.started for file changes: codex shows them once applied.
    let changes: Vec<(Value, Value)> = lines
        .iter()
        .filter(|line| line["item"]["type"] == "file_change")
        .map(|line| {
            assert_eq!(line["type"], "item.completed");
            (
                line["item"]["changes"].clone(),
                line["item"]["status"].clone(),
            )
        })
        .collect();
    assert_eq!(
        changes,
        vec![
            (
                json!([{"path": "fresh.txt", "kind": "add"}]),
                json!("completed")
            ),
            (
                json!([{"path": "fresh.txt", "kind": "update"}]),
                json!("completed")
            ),
            (
                json!([{"path": "b.txt", "kind": "update"}]),
                json!("failed")
            ),
            (
                json!([{"path": "new.txt", "kind": "add"}, {"path": "a.txt", "kind": "update"},
                    {"path": "old.txt", "kind": "delete"}]),
                json!("completed")
            ),
        ]
    );
}

#[test]
fn an_mcp_tool_is_an_mcp_tool_call_with_its_server_tool_and_result() {
    let mut image = answered("m2", "mcp__kv__get", "", false, None);
    if let Event::ToolResult(done) = &mut image {
        done.result.content = vec![ContentBlock::Image(ImageBlock {
            data: "aGk=".into(),
            mime_type: "image/png".into(),
        })];
    }
    let lines = run(
        &[
            init(Some("s")),
            started("m1", "mcp__kv__lookup", json!({"key": "a"})),
            answered("m1", "mcp__kv__lookup", "value-a", false, None),
            started("m2", "mcp__kv__get", json!({})),
            image,
            started("m3", "mcp__kv__lookup", json!({"key": "b"})),
            answered("m3", "mcp__kv__lookup", "no such key", true, None),
        ],
        &success("done", Some("s")),
    );
    assert_eq!(
        lines[2],
        json!({"type": "item.started", "item": {"id": "item_0", "type": "mcp_tool_call",
            "server": "kv", "tool": "lookup", "arguments": {"key": "a"}, "result": null,
            "error": null, "status": "in_progress"}})
    );
    assert_eq!(
        lines[3]["item"],
        json!({"id": "item_0", "type": "mcp_tool_call", "server": "kv", "tool": "lookup",
            "arguments": {"key": "a"},
            "result": {"content": [{"type": "text", "text": "value-a"}], "structured_content": null},
            "error": null, "status": "completed"})
    );
    assert_eq!(
        lines[5]["item"]["result"]["content"],
        json!([{"type": "image", "data": "aGk=", "mimeType": "image/png"}])
    );
    assert_eq!(lines[7]["item"]["error"], json!({"message": "no such key"}));
    assert_eq!(lines[7]["item"]["result"], Value::Null);
    assert_eq!(lines[7]["item"]["status"], "failed");
}

#[test]
fn other_tools_are_command_executions_named_by_tool_and_arguments() {
    let lines = run(
        &[
            init(Some("s")),
            started("r1", "read", json!({"path": "notes.txt"})),
            answered("r1", "read", "hello", false, None),
            started("r2", "grep", json!({"pattern": "x"})),
            answered("r2", "grep", "bad pattern", true, None),
        ],
        &success("done", Some("s")),
    );
    assert_eq!(
        lines[3]["item"],
        json!({"id": "item_0", "type": "command_execution",
            "command": "read {\"path\":\"notes.txt\"}", "aggregated_output": "hello",
            "exit_code": 0, "status": "completed"})
    );
    assert_eq!(lines[5]["item"]["exit_code"], 1);
    assert_eq!(lines[5]["item"]["status"], "failed");
}

#[test]
fn thinking_and_web_searches_are_reasoning_and_web_search_items() {
    let lines = run(
        &[
            init(Some("s")),
            assistant(vec![
                AssistantBlock::Thinking(ThinkingBlock {
                    thinking: "Consider the file.".into(),
                    ..ThinkingBlock::default()
                }),
                // Redacted reasoning has no text to show.
                AssistantBlock::Thinking(ThinkingBlock {
                    redacted: true,
                    ..ThinkingBlock::default()
                }),
                AssistantBlock::ServerTool(ServerToolCall {
                    id: "ws".into(),
                    name: "web_search".into(),
                    input: json!({"query": "rust 2024"}),
                    ..ServerToolCall::default()
                }),
                text("Found it."),
            ]),
        ],
        &success("Found it.", Some("s")),
    );
    let items: Vec<Value> = lines
        .iter()
        .filter(|line| line["type"] == "item.completed")
        .map(|line| line["item"].clone())
        .collect();
    assert_eq!(
        items,
        vec![
            json!({"id": "item_0", "type": "reasoning", "text": "Consider the file."}),
            json!({"id": "item_1", "type": "web_search", "query": "rust 2024"}),
            json!({"id": "item_2", "type": "agent_message", "text": "Found it."}),
        ]
    );
}

#[test]
fn the_structured_answer_is_the_last_agent_message_and_its_tool_is_not_shown() {
    let mut result = success("", Some("s"));
    result.structured_output = Some(json!({"answer": "SO-1"}));
    let lines = run(
        &[
            init(Some("s")),
            assistant(vec![call(
                "so",
                "structured_output",
                json!({"answer": "SO-1"}),
            )]),
            answered("so", "structured_output", "accepted", false, None),
        ],
        &result,
    );
    assert_eq!(
        lines,
        vec![
            json!({"type": "thread.started", "thread_id": "s"}),
            json!({"type": "turn.started"}),
            json!({"type": "item.completed", "item": {"id": "item_0", "type": "agent_message", "text": "{\"answer\":\"SO-1\"}"}}),
            json!({"type": "turn.completed", "usage": {"input_tokens": 0, "cached_input_tokens": 0,
                "cache_write_input_tokens": 0, "output_tokens": 0, "reasoning_output_tokens": 0}}),
        ]
    );
}

#[test]
fn a_failed_turn_ends_with_error_and_turn_failed_never_turn_completed() {
    let mut result = RunResult::early_error(
        ResultSubtype::ErrorMaxTurns,
        crate::error::ErrorKind::MaxTurns,
        "stopped after 1 turn",
        0,
    );
    result.session_id = Some("s".into());
    let lines = run(
        &[
            init(Some("s")),
            assistant(vec![
                text("Working on it."),
                call("c1", "exec", json!({"command": "ls"})),
            ]),
        ],
        &result,
    );
    assert_eq!(
        lines[2..],
        [
            json!({"type": "item.completed", "item": {"id": "item_0", "type": "agent_message", "text": "Working on it."}}),
            json!({"type": "error", "message": "stopped after 1 turn"}),
            json!({"type": "turn.failed", "error": {"message": "stopped after 1 turn"}}),
        ]
    );
}

#[test]
fn a_run_that_fails_before_its_turn_still_starts_and_fails_the_turn() {
    let mut result = RunResult::early_error(
        ResultSubtype::ErrorDuringExecution,
        crate::error::ErrorKind::Auth,
        "no credentials for openai",
        0,
    );
    // With a session known, its thread comes first; without one there is no thread to name.
    result.session_id = Some("s".into());
    assert_eq!(
        run(&[], &result),
        vec![
            json!({"type": "thread.started", "thread_id": "s"}),
            json!({"type": "turn.started"}),
            json!({"type": "error", "message": "no credentials for openai"}),
            json!({"type": "turn.failed", "error": {"message": "no credentials for openai"}}),
        ]
    );
    result.session_id = None;
    assert_eq!(run(&[], &result)[0], json!({"type": "turn.started"}));
}

#[test]
fn another_model_taking_over_is_a_non_fatal_error_item() {
    let lines = run(
        &[
            init(Some("s")),
            Event::Fallback(Fallback {
                from: "anthropic/a".into(),
                to: "openai/b".into(),
                reason: "overloaded",
                error: "busy".into(),
            }),
        ],
        &success("hi", Some("s")),
    );
    assert_eq!(
        lines[2]["item"],
        json!({"id": "item_0", "type": "error",
            "message": "anthropic/a failed (overloaded): busy; openai/b continues the turn"})
    );
}

#[test]
fn cli_backend_tool_names_map_onto_the_same_items() {
    let lines = run(
        &[
            init(Some("s")),
            started("b1", "Bash", json!({"command": "ls"})),
            answered("b1", "Bash", "a\n", false, None),
            started(
                "f1",
                "file_change",
                json!({"changes": [{"path": "x", "kind": "add"}]}),
            ),
            answered("f1", "file_change", "add x", false, None),
            started(
                "m1",
                "mcp_tool_call",
                json!({"server": "kv", "tool": "get", "arguments": {"k": 1}}),
            ),
            answered("m1", "mcp_tool_call", "v", false, None),
        ],
        &success("ok", Some("s")),
    );
    let completed: Vec<&Value> = lines
        .iter()
        .filter(|line| line["type"] == "item.completed")
        .map(|line| &line["item"])
        .collect();
    assert_eq!(completed[0]["command"], "ls");
    assert_eq!(
        completed[1]["changes"],
        json!([{"path": "x", "kind": "add"}])
    );
    assert_eq!(completed[2]["server"], "kv");
    assert_eq!(completed[2]["arguments"], json!({"k": 1}));
}
