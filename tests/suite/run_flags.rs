//! `run`/`resume` flags and guardrails end to end (Anthropic wire format), and the public JSON
//! schemas re-parsed strictly.

use std::process::Output;
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::common::mock::{MockServer, Piece, Reply, split_events};
use crate::common::protocols;
use crate::common::schema::result_of;
use crate::common::wire::anthropic::{self as wire, Usage4};
use crate::common::{Home, code, hold_lock, stderr, stdout};

fn usage() -> Usage4 {
    Usage4 {
        input: 100,
        output: 10,
        cache_read: 1_000,
        cache_write: 200,
    }
}

fn text(answer: &str) -> Reply {
    Reply::sse(&wire::text_stream(&[answer], usage()))
}

fn tool(id: &str, name: &str, arguments: Value) -> Reply {
    Reply::sse(&wire::tool_use_stream(
        None,
        &[(id, name, &arguments.to_string())],
        usage(),
    ))
}

fn session_files(home: &Home) -> Vec<std::path::PathBuf> {
    let Ok(reader) = std::fs::read_dir(home.sessions_dir()) else {
        return Vec::new();
    };
    let mut files: Vec<_> = reader
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            path.extension()
                .is_some_and(|extension| extension == "jsonl")
        })
        .collect();
    files.sort();
    files
}

#[test]
fn the_json_result_parses_strictly_and_matches_the_stored_session() {
    let home = Home::new();
    let server = MockServer::start(vec![text("done")]);
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["run", "--json", "--name", "strict", "go"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let result = result_of(&output);
    assert_eq!(serde_json::to_value(result.kind).unwrap(), "result");
    assert_eq!(result.result, "done");
    assert_eq!(result.session_name.as_deref(), Some("strict"));
    assert_eq!(result.backend.as_deref(), Some("api"));
    assert_eq!(result.usage.cache_read_input_tokens, 1_000);
    assert_eq!(result.usage.cache_creation_input_tokens, 200);
    assert_eq!(result.context.tokens, 1_310);
    assert_eq!(result.context.window, Some(200_000));
    // claude-sonnet-4-5: $3 in, $15 out, $0.30 cache read, $3.75 cache write per million.
    let expected = (100.0 * 3.0 + 10.0 * 15.0 + 1_000.0 * 0.30 + 200.0 * 3.75) / 1e6;
    assert!(
        (result.total_cost_usd - expected).abs() < 1e-12,
        "{}",
        result.total_cost_usd
    );
    let model_usage = &result.model_usage["claude-sonnet-4-5"];
    assert_eq!(model_usage.cache_read_input_tokens, 1_000);
    assert_eq!(result.stop_reason.as_deref(), Some("end_turn"));
    let files = session_files(&home);
    assert_eq!(files.len(), 1);
    assert!(
        files[0]
            .to_string_lossy()
            .contains(result.session_id.as_deref().unwrap())
    );
}

#[test]
fn stream_json_lines_parse_and_partial_messages_carry_deltas() {
    let home = Home::new();
    let server = MockServer::start(vec![Reply::sse(&wire::text_stream(
        &["Hel", "lo"],
        usage(),
    ))]);
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args([
            "run",
            "--output-format",
            "stream-json",
            "--include-partial-messages",
            "go",
        ])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let lines: Vec<Value> = stdout(&output)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines[0]["type"], "system");
    assert_eq!(lines[0]["subtype"], "init");
    assert_eq!(lines[0]["backend"], "api");
    let deltas: String = lines
        .iter()
        .filter(|line| {
            line["type"] == "stream_event" && line["event"]["delta"]["type"] == "text_delta"
        })
        .map(|line| line["event"]["delta"]["text"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(deltas, "Hello");
    let assistant = lines
        .iter()
        .find(|line| line["type"] == "assistant")
        .unwrap();
    assert_eq!(
        assistant["message"]["content"],
        json!([{"type": "text", "text": "Hello"}])
    );
    assert_eq!(
        assistant["message"]["usage"]["cache_read_input_tokens"],
        1_000
    );
    assert_eq!(lines.last().unwrap()["type"], "result");
    result_of(&output);
}

#[test]
fn output_last_message_and_events_file_are_written_while_stdout_keeps_text() {
    let home = Home::new();
    let server = MockServer::start(vec![tool("toolu_1", "ls", json!({})), text("final words")]);
    let last = home.root.path().join("last.txt");
    let events = home.root.path().join("events.jsonl");
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args([
            "run",
            "-o",
            last.to_str().unwrap(),
            "--events-file",
            events.to_str().unwrap(),
            "list",
        ])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(stdout(&output), "final words\n");
    assert_eq!(std::fs::read_to_string(&last).unwrap(), "final words");
    let lines: Vec<Value> = std::fs::read_to_string(&events)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let kinds: Vec<&str> = lines
        .iter()
        .map(|line| line["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["system", "assistant", "user", "assistant", "result"]
    );
}

#[test]
fn a_preassigned_session_id_is_used_and_cannot_be_reused() {
    let home = Home::new();
    let id = "0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9";
    let server = MockServer::start(vec![text("one"), text("two")]);
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["run", "--session-id", id, "--json", "go"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(result_of(&output).session_id.as_deref(), Some(id));
    let again = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["run", "--session-id", id, "go"])
        .output();
    assert_eq!(code(&again), 2);
    assert!(
        stderr(&again).contains("already exists"),
        "{}",
        stderr(&again)
    );
}

#[test]
fn resume_create_makes_the_named_session_once_then_continues_it() {
    let home = Home::new();
    let server = MockServer::start(vec![text("first"), text("second")]);
    let first = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["resume", "--create", "nightly", "--json", "check"])
        .output();
    assert_eq!(code(&first), 0, "{}", stderr(&first));
    let second = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["resume", "--create", "nightly", "--json", "check again"])
        .output();
    assert_eq!(code(&second), 0, "{}", stderr(&second));
    assert_eq!(result_of(&first).session_id, result_of(&second).session_id);
    assert_eq!(session_files(&home).len(), 1);
    let body = server.requests()[1].json().to_string();
    assert!(body.contains("first") && body.contains("check again"));
}

#[test]
fn resume_fork_continues_in_a_copy_and_leaves_the_original_alone() {
    let home = Home::new();
    let server = MockServer::start(vec![text("original"), text("forked")]);
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["run", "--name", "base", "start"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let original = session_files(&home).remove(0);
    let before = std::fs::read(&original).unwrap();
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["resume", "base", "--fork", "--json", "branch off"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(std::fs::read(&original).unwrap(), before);
    let files = session_files(&home);
    assert_eq!(files.len(), 2);
    let forked = files.into_iter().find(|file| *file != original).unwrap();
    let text = std::fs::read_to_string(forked).unwrap();
    assert!(text.contains("original") && text.contains("branch off"));
    let header: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(header["parentSession"], original.to_str().unwrap());
}

#[test]
fn no_session_persistence_writes_nothing() {
    let home = Home::new();
    let server = MockServer::start(vec![text("ephemeral answer")]);
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["run", "--no-session-persistence", "go"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(stdout(&output), "ephemeral answer\n");
    assert!(session_files(&home).is_empty());
}

#[test]
fn an_image_is_attached_to_the_prompt() {
    let home = Home::new();
    let png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89";
    let image = home.workspace.join("pixel.png");
    std::fs::write(&image, png).unwrap();
    let server = MockServer::start(vec![text("a pixel")]);
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["run", "-i", image.to_str().unwrap(), "describe"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let body = server.requests()[0].json();
    let content = body["messages"][0]["content"].as_array().unwrap();
    let block = content
        .iter()
        .find(|block| block["type"] == "image")
        .unwrap();
    assert_eq!(block["source"]["media_type"], "image/png");
    use base64::Engine as _;
    assert_eq!(
        block["source"]["data"],
        base64::engine::general_purpose::STANDARD.encode(png)
    );
}

#[test]
fn max_turns_stops_a_tool_loop_with_exit_5() {
    let home = Home::new();
    let server = MockServer::start(vec![tool("toolu_1", "ls", json!({})), text("never sent")]);
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["run", "--max-turns", "1", "--json", "go"])
        .output();
    assert_eq!(code(&output), 5, "{}", stderr(&output));
    let result = result_of(&output);
    assert_eq!(
        result.subtype,
        pincer::output::schema::ResultSubtype::ErrorMaxTurns
    );
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn max_budget_stops_a_tool_loop_with_exit_5() {
    let home = Home::new();
    let server = MockServer::start(vec![tool("toolu_1", "ls", json!({})), text("never sent")]);
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["run", "--max-budget-usd", "0.000001", "--json", "go"])
        .output();
    assert_eq!(code(&output), 5, "{}", stderr(&output));
    assert_eq!(
        result_of(&output).subtype,
        pincer::output::schema::ResultSubtype::ErrorMaxBudgetUsd
    );
}

fn stalled_after_first_text() -> Reply {
    let events = split_events(&wire::text_stream(&["partial", " more"], usage()));
    let first = events
        .iter()
        .position(|event| String::from_utf8_lossy(event).contains("partial"))
        .unwrap();
    let mut pieces: Vec<Piece> = events[..=first].iter().cloned().map(Piece::Data).collect();
    pieces.push(Piece::Stall(Duration::from_secs(30)));
    Reply::sse_pieces(pieces)
}

#[test]
fn the_wall_clock_timeout_ends_the_run_with_124_and_records_it() {
    let home = Home::new();
    let server = MockServer::start(vec![stalled_after_first_text()]);
    let started = Instant::now();
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["run", "--timeout", "1", "--json", "go"])
        .output();
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(code(&output), 124, "{}", stderr(&output));
    let result = result_of(&output);
    assert_eq!(
        result.subtype,
        pincer::output::schema::ResultSubtype::ErrorTimeout
    );
    let error = result.error.expect("an error");
    assert_eq!(error.kind, "timeout");
    assert!(error.retryable, "{error:?}");
    let text = std::fs::read_to_string(&session_files(&home)[0]).unwrap();
    let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(last["message"]["stopReason"], "aborted");
    assert_eq!(last["message"]["content"][0]["text"], "partial");
}

#[test]
fn sigint_ends_the_run_with_130() {
    let home = Home::new();
    let server = MockServer::start(vec![stalled_after_first_text()]);
    let child = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["run", "go"])
        .spawn();
    std::thread::sleep(Duration::from_millis(800));
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap()),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(code(&output), 130, "{}", stderr(&output));
    // Through a pipe text mode writes the answer whole at the end (SPEC §3.1); an interrupted
    // turn has none, so `msg=$(pincer run …)` gets nothing rather than half a sentence. The
    // partial message is in the session, marked aborted.
    assert_eq!(stdout(&output), "");
    let lines = home.session_lines();
    let last = lines.last().unwrap();
    assert_eq!(last["message"]["stopReason"], "aborted", "{last}");
    assert_eq!(last["message"]["content"][0]["text"], "partial", "{last}");
}

#[test]
fn status_sums_usage_and_cost_over_the_session_runs() {
    let home = Home::new();
    let server = MockServer::start(vec![text("one"), text("two")]);
    home.pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["run", "--name", "sum", "a"])
        .success();
    home.pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["resume", "sum", "b"])
        .success();
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["status", "sum", "--json"])
        .output();
    let status: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(status["usage"]["input_tokens"], 200);
    assert_eq!(status["usage"]["cache_read_input_tokens"], 2_000);
    assert_eq!(status["usage"]["cache_creation_input_tokens"], 400);
    assert_eq!(status["context"]["tokens"], 1_310, "a snapshot, not a sum");
    let expected = 2.0 * (100.0 * 3.0 + 10.0 * 15.0 + 1_000.0 * 0.30 + 200.0 * 3.75) / 1e6;
    assert!((status["total_cost_usd"].as_f64().unwrap() - expected).abs() < 1e-12);
    assert_eq!(status["turns"], 2);
}

#[test]
fn a_busy_session_makes_resume_exit_75() {
    let home = Home::new();
    let server = MockServer::start(vec![text("one")]);
    home.pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["run", "--name", "busy", "a"])
        .success();
    let file = session_files(&home).remove(0);
    let lock = hold_lock(&file);
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["resume", "busy", "--json", "b"])
        .output();
    assert_eq!(code(&output), 75, "{}", stderr(&output));
    // Issue #47 item 4: retryable, and the session is named by its id, not its file.
    let error = result_of(&output).error.unwrap();
    assert_eq!(error.kind, "session_busy");
    assert!(error.retryable, "{error:?}");
    let id = file
        .file_stem()
        .unwrap()
        .to_str()
        .unwrap()
        .rsplit_once('_')
        .unwrap()
        .1;
    assert!(
        error
            .message
            .starts_with(&format!("session {id} ('busy') is busy: another run")),
        "{error:?}"
    );
    assert!(!error.message.contains(file.to_str().unwrap()), "{error:?}");
    // Nothing says when the other run ends: no `retry_after_s`.
    assert_eq!(error.retry_after_s, None, "{error:?}");
    // stderr says the same, once, with what to do; the session's name appears once.
    let text = stderr(&output);
    let line = format!("error: session {id} ('busy') is busy: another run");
    assert_eq!(text.matches(&line).count(), 1, "{text}");
    assert_eq!(text.matches("('busy')").count(), 1, "{text}");
    assert!(text.contains("hint: wait for "), "{text}");
    assert!(text.contains("--wait SECS"), "{text}");
    assert!(!text.contains(file.to_str().unwrap()), "{text}");
    // Text mode: nothing on stdout, the same error on stderr.
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["resume", "busy", "b"])
        .output();
    assert_eq!(code(&output), 75, "{}", stderr(&output));
    assert_eq!(stdout(&output), "");
    assert!(stderr(&output).contains(&line), "{}", stderr(&output));
    // `sessions rename` and `sessions repair` find the session by name too, and say it.
    for args in [
        &["sessions", "rename", "busy", "other"][..],
        &["sessions", "repair", "busy"][..],
    ] {
        let output = home.pincer().args(args).output();
        assert_eq!(code(&output), 75, "{args:?}: {}", stderr(&output));
        assert!(
            stderr(&output).contains(&format!("error: session {id} ('busy') is busy")),
            "{args:?}: {}",
            stderr(&output)
        );
    }
    drop(lock);
}

/// A tool turn: the model reads `a.txt` ("alpha"), then answers "It says alpha."; `mode` (the
/// output flags) goes after the prompt. The recorded run of the tool-turn snapshot and of
/// `schema.rs`.
pub(crate) fn tool_turn(home: &Home, mode: &[&str]) -> Output {
    std::fs::write(home.workspace.join("a.txt"), "alpha\n").unwrap();
    let server = MockServer::start(vec![
        tool("toolu_01A", "read", json!({"path": "a.txt"})),
        text("It says alpha."),
    ]);
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["run", "read a.txt"])
        .args(mode)
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(server.requests().len(), 2);
    output
}

#[test]
fn a_truncated_stream_is_an_error_not_a_short_answer() {
    let home = Home::new();
    let events = split_events(&wire::text_stream(&["half an ", "answer"], usage()));
    let first = events
        .iter()
        .position(|event| String::from_utf8_lossy(event).contains("half an"))
        .unwrap();
    let mut pieces: Vec<Piece> = events[..=first].iter().cloned().map(Piece::Data).collect();
    pieces.push(Piece::Close);
    let server = MockServer::start(vec![Reply::sse_pieces(pieces)]);
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["-c", "retry.max_retries=0", "run", "--json", "go"])
        .output();
    assert_eq!(code(&output), 4, "{}", stderr(&output));
    let result = result_of(&output);
    assert!(result.is_error);
    assert_eq!(result.error.unwrap().kind, "timeout");
    let text = std::fs::read_to_string(&session_files(&home)[0]).unwrap();
    let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(last["message"]["stopReason"], "error");
    assert_eq!(last["message"]["content"][0]["text"], "half an ");
}

#[test]
fn a_mid_stream_error_event_is_classified_and_recorded() {
    let home = Home::new();
    let stream = wire::error_event_stream("Working on", "overloaded_error", "Overloaded");
    let server = MockServer::start(vec![Reply::sse(&stream)]);
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["-c", "retry.max_retries=0", "run", "--json", "go"])
        .output();
    assert_eq!(code(&output), 4, "{}", stderr(&output));
    let error = result_of(&output).error.unwrap();
    assert_eq!(error.kind, "overloaded");
    assert!(error.retryable);
    assert!(error.message.contains("Overloaded"), "{}", error.message);
}

#[test]
fn a_thinking_signature_is_sent_back_unchanged_on_resume() {
    let home = Home::new();
    let signature = "EqQBCkYIBxgCKkDsigPINCERunchanged==";
    let server = MockServer::start(vec![
        Reply::sse(&wire::thinking_stream(
            "Weighing it.",
            signature,
            "Yes.",
            usage(),
        )),
        text("Still yes."),
    ]);
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["run", "--thinking", "low", "--name", "thinker", "sure?"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["resume", "thinker", "really?"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let body = server.requests()[1].json();
    let assistant = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|message| message["role"] == "assistant")
        .unwrap();
    let thinking = assistant["content"]
        .as_array()
        .unwrap()
        .iter()
        .find(|block| block["type"] == "thinking")
        .unwrap();
    assert_eq!(thinking["signature"], signature);
    assert_eq!(thinking["thinking"], "Weighing it.");
    // The level persisted in the session applies to the resumed turn.
    assert_eq!(body["thinking"]["type"], "enabled");
}

fn offered_tools(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .map(|tool| tool["name"].as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn the_tools_flag_and_deny_rules_decide_what_the_model_is_offered() {
    let home = Home::new();
    let server = MockServer::start(vec![text("a"), text("b"), text("c")]);
    home.pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["run", "--tools", "read,ls", "go"])
        .success();
    home.pincer()
        .provider(&protocols::anthropic(), &server)
        .args([
            "run",
            "--disallowed-tools",
            "exec",
            "--allowed-tools",
            "group:fs",
            "go",
        ])
        .success();
    home.pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["-c", "tools.profile=\"minimal\"", "run", "go"])
        .success();
    let requests = server.requests();
    assert_eq!(offered_tools(&requests[0].json()), ["read", "ls"]);
    assert_eq!(
        offered_tools(&requests[1].json()),
        ["read", "write", "edit", "ls", "find", "grep"]
    );
    assert_eq!(
        offered_tools(&requests[2].json()),
        ["read", "ls", "find", "grep"]
    );
}

#[test]
fn a_denied_call_returns_an_error_result_and_is_listed_in_permission_denials() {
    let home = Home::new();
    std::fs::write(home.workspace.join("keep.txt"), "precious").unwrap();
    let server = MockServer::start(vec![
        tool("toolu_rm", "exec", json!({"command": "rm keep.txt"})),
        text("I was not allowed to remove it."),
    ]);
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args([
            "run",
            "--allowed-tools",
            "exec(git *),read",
            "--json",
            "clean up",
        ])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(home.workspace.join("keep.txt").exists());
    let result = result_of(&output);
    assert_eq!(
        serde_json::to_value(&result.permission_denials).unwrap(),
        json!([
            {"tool_name": "exec", "tool_use_id": "toolu_rm", "tool_input": {"command": "rm keep.txt"}}
        ])
    );
    let second = server.requests()[1].json();
    let sent = second["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|message| message["content"].as_array().cloned().unwrap_or_default())
        .find(|block| block["type"] == "tool_result")
        .unwrap();
    assert_eq!(sent["is_error"], true);
    assert!(
        sent["content"].to_string().contains("Permission denied"),
        "{sent}"
    );
}

#[test]
fn an_unknown_tool_rule_is_a_usage_error() {
    let home = Home::new();
    let server = MockServer::start(vec![]);
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["run", "--allowed-tools", "Teleport", "go"])
        .output();
    assert_eq!(code(&output), 2, "{}", stderr(&output));
    assert!(stderr(&output).contains("Teleport"), "{}", stderr(&output));
    assert!(server.requests().is_empty());
}

#[test]
fn a_pi_written_session_with_a_compaction_resumes_with_the_summary_and_kept_messages() {
    let home = Home::new();
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("crates/pincer-session/tests/fixtures/sessions/pi-v3-branched.jsonl");
    let copy = home.root.path().join("pi-session.jsonl");
    std::fs::copy(&fixture, &copy).unwrap();
    let before = std::fs::read_to_string(&copy).unwrap();
    let server = MockServer::start(vec![text("continuing")]);
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args([
            "resume",
            copy.to_str().unwrap(),
            "-m",
            "anthropic/claude-sonnet-4-5",
            "go on",
        ])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let body = server.requests()[0].json();
    let first_user = body["messages"][0]["content"].to_string();
    assert!(
        first_user.contains(
            "The conversation history before this point was compacted into the following summary"
        ),
        "{first_user}"
    );
    let sent = body.to_string();
    assert!(
        sent.contains("Which files did you touch?"),
        "kept/after-compaction messages are sent"
    );
    assert!(sent.contains("go on"));
    // Appended, never rewritten: the old bytes are a prefix of the new file.
    let after = std::fs::read_to_string(&copy).unwrap();
    assert!(after.starts_with(&before));
}

fn overloaded() -> Reply {
    Reply::json(529, &wire::error_body("overloaded_error", "Overloaded"))
}

/// Two 529s, then the answer "made it"; `mode` goes after the prompt. Also a recorded run of
/// `schema.rs`.
pub(crate) fn overloaded_twice_then_answer(home: &Home, mode: &[&str]) -> (Output, MockServer) {
    let server = MockServer::start(vec![overloaded(), overloaded(), text("made it")]);
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["-c", "retry.base_delay_ms=10", "run", "go"])
        .args(mode)
        .output();
    (output, server)
}

#[test]
fn overloaded_twice_then_success_is_retried_with_api_retry_events_and_printed_once() {
    let home = Home::new();
    let (output, server) = overloaded_twice_then_answer(&home, &["--output-format", "stream-json"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let lines: Vec<Value> = stdout(&output)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let retries: Vec<&Value> = lines
        .iter()
        .filter(|line| line["subtype"] == "api_retry")
        .collect();
    assert_eq!(retries.len(), 2);
    assert_eq!(retries[0]["attempt"], 1);
    assert!(retries[0]["error"].as_str().unwrap().contains("Overloaded"));
    assert_eq!(server.requests().len(), 3);
    assert_eq!(lines.last().unwrap()["result"], "made it");
    let plain = MockServer::start(vec![overloaded(), text("once")]);
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &plain)
        .args(["-c", "retry.base_delay_ms=10", "run", "go"])
        .output();
    assert_eq!(stdout(&output), "once\n");
}

#[test]
fn a_long_retry_after_is_not_slept_on() {
    let home = Home::new();
    let limited = Reply::json(429, &wire::error_body("rate_limit_error", "rate limited"))
        .header("retry-after", "600");
    let server = MockServer::start(vec![limited]);
    let started = Instant::now();
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["run", "--json", "go"])
        .output();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(code(&output), 4, "{}", stderr(&output));
    assert_eq!(server.requests().len(), 1);
}

/// The keys of the two Anthropic profiles of [`rejected_key_then_next_profile`].
const PROFILE_KEYS: (&str, &str) = ("sk-ant-profile-AAAA-0001", "sk-ant-profile-BBBB-0002");

/// Two Anthropic profiles and no key in the environment; the first key tried is rejected (401),
/// the other one answers. `mode` goes after the prompt. Also a recorded run of `schema.rs`.
pub(crate) fn rejected_key_then_next_profile(home: &Home, mode: &[&str]) -> (Output, MockServer) {
    home.add_profile("anthropic", "a", PROFILE_KEYS.0);
    home.add_profile("anthropic", "b", PROFILE_KEYS.1);
    let server = MockServer::start(vec![
        Reply::json(
            401,
            &wire::error_body("authentication_error", "invalid x-api-key"),
        ),
        text("answered with the second key"),
    ]);
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .env_remove("ANTHROPIC_API_KEY")
        .args(["run", "go"])
        .args(mode)
        .output();
    (output, server)
}

#[test]
fn a_rejected_profile_rotates_to_the_next_and_its_cooldown_is_persisted() {
    let home = Home::new();
    let (key_a, key_b) = PROFILE_KEYS;
    let (output, server) =
        rejected_key_then_next_profile(&home, &["--output-format", "stream-json"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let lines: Vec<Value> = stdout(&output)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let rotation = lines
        .iter()
        .find(|line| line["subtype"] == "auth_rotation")
        .unwrap();
    assert_eq!(rotation["reason"], "auth");
    let requests = server.requests();
    let first = requests[0].header("x-api-key").unwrap().to_owned();
    let second = requests[1].header("x-api-key").unwrap().to_owned();
    assert_ne!(first, second);
    assert!([key_a, key_b].contains(&first.as_str()) && [key_a, key_b].contains(&second.as_str()));
    for text in [stdout(&output), stderr(&output)] {
        assert!(
            !text.contains(key_a) && !text.contains(key_b),
            "a key leaked: {text}"
        );
    }
    let failed_profile = if first == key_a {
        "anthropic:a"
    } else {
        "anthropic:b"
    };
    let store: Value =
        serde_json::from_slice(&std::fs::read(home.home.join("auth-profiles.json")).unwrap())
            .unwrap();
    let stats = &store["usageStats"][failed_profile];
    assert!(stats["cooldownUntil"].as_u64().unwrap() > 0, "{store}");
    assert_eq!(stats["failureCounts"]["auth"], 1);

    // The next run starts with the healthy profile: the cooling one goes last.
    let server = MockServer::start(vec![text("fine")]);
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .env_remove("ANTHROPIC_API_KEY")
        .args(["run", "go"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(
        server.requests()[0].header("x-api-key"),
        Some(second.as_str())
    );

    // --auth-profile pins one profile.
    let server = MockServer::start(vec![text("pinned")]);
    let pinned = if failed_profile == "anthropic:a" {
        "a"
    } else {
        "b"
    };
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .env_remove("ANTHROPIC_API_KEY")
        .args(["run", "--auth-profile", pinned, "go"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(
        server.requests()[0].header("x-api-key"),
        Some(first.as_str())
    );
}

// ---- peer spellings (claude -p, codex exec) and run details ----

fn session_lines(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

#[test]
fn run_resume_continues_that_session_like_claude_p_resume() {
    let home = Home::new();
    let server = MockServer::start(vec![text("first answer"), text("second answer")]);
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["run", "--name", "triage", "first question"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["run", "-r", "triage", "--json", "second question"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let files = session_files(&home);
    assert_eq!(files.len(), 1, "no new session");
    let body = server.requests()[1].json().to_string();
    assert!(
        body.contains("first question")
            && body.contains("first answer")
            && body.contains("second question"),
        "{body}"
    );
    let header = &session_lines(&files[0])[0];
    assert_eq!(
        result_of(&output).session_id.as_deref(),
        header["id"].as_str()
    );
}

#[test]
fn run_resume_with_fork_session_continues_in_a_copy_with_the_given_id() {
    let home = Home::new();
    let server = MockServer::start(vec![text("base answer"), text("forked answer")]);
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["run", "--name", "base", "start"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let original = session_files(&home).remove(0);
    let before = std::fs::read(&original).unwrap();
    let id = "0199a000-0000-7000-8000-00000000f0f0";
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args([
            "run",
            "--resume",
            "base",
            "--fork-session",
            "--session-id",
            id,
            "--json",
            "branch",
        ])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(result_of(&output).session_id.as_deref(), Some(id));
    assert_eq!(std::fs::read(&original).unwrap(), before);
    let forked = session_files(&home)
        .into_iter()
        .find(|file| file.to_string_lossy().contains(id))
        .expect("a session file with the new id");
    let text = std::fs::read_to_string(forked).unwrap();
    assert!(
        text.contains("base answer") && text.contains("branch"),
        "{text}"
    );
}

#[test]
fn resume_session_id_names_the_new_session_and_needs_fork_or_create() {
    let home = Home::new();
    let server = MockServer::start(vec![text("made"), text("forked")]);
    let id = "0199a000-0000-7000-8000-0000000000c1";
    // Refused without --fork/--create, before anything is read or sent.
    for args in [
        &["resume", "nightly", "--session-id", id, "go"][..],
        &["run", "-r", "nightly", "--session-id", id, "go"][..],
    ] {
        let output = home
            .pincer()
            .provider(&protocols::anthropic(), &server)
            .args(args)
            .output();
        assert_eq!(code(&output), 2, "{args:?}");
        let message = stderr(&output);
        assert!(
            message.contains("--session-id names a new session"),
            "{message}"
        );
        assert!(
            message.contains("hint: add --fork (or --fork-session)"),
            "{message}"
        );
    }
    assert!(server.requests().is_empty());
    // --create makes the session with that id; the next run continues it.
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args([
            "resume",
            "--create",
            "nightly",
            "--session-id",
            id,
            "--json",
            "go",
        ])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(result_of(&output).session_id.as_deref(), Some(id));
    // Another id for the existing session is a mistake, not a silent rename.
    let other = "0199a000-0000-7000-8000-0000000000c2";
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["resume", "--create", "nightly", "--session-id", other, "go"])
        .output();
    assert_eq!(code(&output), 2);
    assert!(
        stderr(&output).contains(&format!("already exists with id {id}")),
        "{}",
        stderr(&output)
    );
    // --fork with an id already taken is refused.
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["resume", "nightly", "--fork", "--session-id", id, "go"])
        .output();
    assert_eq!(code(&output), 2);
    assert!(
        stderr(&output).contains("already exists"),
        "{}",
        stderr(&output)
    );
    assert_eq!(server.requests().len(), 1);
}

fn dry_run(home: &Home, server: &MockServer, args: &[&str]) -> Value {
    let mut argv = vec!["run", "--dry-run"];
    argv.extend_from_slice(args);
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), server)
        .args(&argv)
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    serde_json::from_str(&stdout(&output)).unwrap()
}

#[test]
fn full_auto_is_workspace_write_and_the_codex_no_ops_are_accepted() {
    let home = Home::new();
    let server = MockServer::start(vec![]);
    std::fs::write(
        home.home.join("config.toml"),
        "[tools]\nsandbox = \"read-only\"\n",
    )
    .unwrap();
    assert_eq!(
        dry_run(&home, &server, &["x"])["sandbox"]["mode"],
        "read-only"
    );
    let report = dry_run(
        &home,
        &server,
        &[
            "--full-auto",
            "--skip-git-repo-check",
            "--strict-config",
            "x",
        ],
    );
    assert_eq!(report["sandbox"]["mode"], "workspace-write");
    assert_eq!(
        dry_run(&home, &server, &["-s", "danger-full-access", "x"])["sandbox"]["mode"],
        "danger-full-access"
    );
    assert_eq!(
        dry_run(
            &home,
            &server,
            &["--dangerously-bypass-approvals-and-sandbox", "x"]
        )["sandbox"]["mode"],
        "danger-full-access"
    );
    assert_eq!(
        dry_run(&home, &server, &["--permission-mode", "auto", "x"])["sandbox"]["mode"],
        "workspace-write"
    );
    // The workspace is no git repository, and nothing asks for one.
    assert!(!home.workspace.join(".git").exists());
}

#[test]
fn max_thinking_tokens_is_the_anthropic_budget_and_the_nearest_level_in_the_session() {
    let home = Home::new();
    let server = MockServer::start(vec![text("thought"), text("thought less")]);
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["run", "--max-thinking-tokens", "5000", "--name", "t", "go"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let body = server.requests()[0].json();
    assert_eq!(
        body["thinking"],
        json!({"type": "enabled", "budget_tokens": 5000})
    );
    // The budget comes on top of the visible output (claude-sonnet-4-5: 32,000 at most).
    assert_eq!(body["max_tokens"], json!(32_000 + 5000));
    let lines = session_lines(&session_files(&home)[0]);
    assert!(
        lines.iter().any(
            |line| line["type"] == "thinking_level_change" && line["thinkingLevel"] == "medium"
        ),
        "5000 is nearest to medium's 8192 by ratio: {lines:?}"
    );
    // Below the API's minimum the budget is raised to 1024; 0 turns thinking off.
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["resume", "t", "--max-thinking-tokens", "300", "again"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(
        server.requests()[1].json()["thinking"]["budget_tokens"],
        1024
    );
    let report = dry_run(&home, &server, &["--max-thinking-tokens", "0", "x"]);
    assert_eq!(report["thinking"], "off");
    assert!(report["body"].get("thinking").is_none(), "{report}");
}

#[test]
fn max_thinking_tokens_is_gemini_thinking_budget_and_the_nearest_openai_effort() {
    use crate::common::wire::{gemini, openai};
    let home = Home::new();
    let google = MockServer::start(vec![Reply::sse(&gemini::text_stream(
        &["ok"],
        gemini::Usage4::new(10, 0, 2, 5),
    ))]);
    let output = home
        .pincer()
        .key(&protocols::gemini(), "AIza-test-0000")
        // The bare URL, without the version path the harness would add: pincer must add it.
        .env("GEMINI_BASE_URL", google.url())
        .args([
            "run",
            "-m",
            "google/gemini-2.5-flash",
            "--max-thinking-tokens",
            "3000",
            "go",
        ])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let request = &google.requests()[0];
    assert_eq!(
        request.json()["generationConfig"]["thinkingConfig"],
        json!({"includeThoughts": true, "thinkingBudget": 3000})
    );
    // GEMINI_BASE_URL without a version path gets /v1beta, as Google's SDK appends it.
    assert!(
        request
            .path
            .starts_with("/v1beta/models/gemini-2.5-flash:streamGenerateContent"),
        "{}",
        request.path
    );

    let server = MockServer::start(vec![Reply::sse(&openai::text_stream(
        &["ok"],
        openai::Usage4 {
            input_total: 10,
            cached: 0,
            output: 2,
            reasoning: 1,
        },
    ))]);
    let output = home
        .pincer()
        .provider(&protocols::openai(), &server)
        .args([
            "run",
            "-m",
            "openai/gpt-5",
            "--max-thinking-tokens",
            "20000",
            "go",
        ])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(server.requests()[0].json()["reasoning"]["effort"], "high");
}

#[test]
fn thinking_that_cannot_be_sent_to_an_unknown_model_is_warned_about() {
    use crate::common::wire::openai;
    let home = Home::new();
    let reply = || {
        Reply::sse(&openai::text_stream(
            &["ok"],
            openai::Usage4 {
                input_total: 10,
                cached: 0,
                output: 2,
                reasoning: 0,
            },
        ))
    };
    let server = MockServer::start(vec![reply(), reply(), reply()]);
    let run_openai = |args: &[&str]| {
        home.pincer()
            .provider(&protocols::openai(), &server)
            .args(args)
            .output()
    };
    let output = run_openai(&[
        "run",
        "-m",
        "openai/my-finetune",
        "--thinking",
        "high",
        "go",
    ]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let warning = stderr(&output);
    assert!(
        warning.contains(
            "--thinking high is not sent: no catalog entry says openai/my-finetune reasons"
        ),
        "{warning}"
    );
    assert!(
        warning.contains("[providers.openai.models.\"my-finetune\"]"),
        "{warning}"
    );
    assert!(server.requests()[0].json().get("reasoning").is_none());
    // A model known to reason gets its effort and no warning; no flag, no warning.
    for args in [
        &["run", "-m", "openai/gpt-5", "--thinking", "high", "go"][..],
        &["run", "-m", "openai/my-finetune", "go"][..],
    ] {
        let output = run_openai(args);
        assert_eq!(code(&output), 0, "{}", stderr(&output));
        assert!(
            !stderr(&output).contains("is not sent"),
            "{args:?}: {}",
            stderr(&output)
        );
    }
}
