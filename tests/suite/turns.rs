//! End-to-end agent turns against the mock server, the same scenarios for each of the four wire
//! protocols: the real binary, real HTTP, byte-exact provider streams.

use std::process::Output;
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::common::mock::{MockServer, Piece, Recorded, Reply, split_events};
use crate::common::protocols::{self, KEY, Protocol};
use crate::common::{Home, code, stderr, stdout};

/// `pincer run -m MODEL ARGS…` against the mock as `protocol`.
fn run(home: &Home, protocol: &Protocol, server: &MockServer, args: &[&str]) -> Output {
    home.pincer()
        .provider(protocol, server)
        .args(["run", "-m", protocol.model])
        .args(args)
        .output()
}

fn messages(lines: &[Value]) -> Vec<Value> {
    lines
        .iter()
        .filter(|line| line["type"] == "message")
        .map(|line| line["message"].clone())
        .collect()
}

fn assert_no_secret(request: &Recorded) {
    assert!(!request.path.contains(KEY), "key in URL: {}", request.path);
    assert!(!String::from_utf8_lossy(&request.body).contains(KEY));
}

pub fn a_text_turn_streams_the_answer_and_stores_exact_usage(protocol: &Protocol) {
    let home = Home::new();
    let (stream, usage) = (
        (protocol.text)(&["Hello", ", wor", "ld!"]),
        protocol.text_usage,
    );
    let server = MockServer::start(vec![Reply::sse(&stream)]);
    let output = run(&home, protocol, &server, &["say hello"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(stdout(&output), "Hello, world!\n");
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let (header, value) = (protocol.key_header)(KEY);
    assert_eq!(
        requests[0].header(header),
        Some(value.as_str()),
        "{:?}",
        requests[0].headers
    );
    assert_no_secret(&requests[0]);
    let body = requests[0].json();
    assert!(body.to_string().contains("say hello"));
    assert!(
        body.to_string().contains("You are pincer"),
        "the system prompt is sent"
    );

    let lines = home.session_lines();
    assert_eq!(lines[0]["type"], "session");
    let stored = messages(&lines);
    assert_eq!(stored.len(), 2);
    assert_eq!(stored[0]["role"], "user");
    assert_eq!(stored[1]["role"], "assistant");
    assert_eq!(
        stored[1]["content"],
        json!([{"type": "text", "text": "Hello, world!"}])
    );
    assert_eq!(stored[1]["stopReason"], "stop");
    let [input, output_tokens, cache_read, cache_write] = usage;
    assert_eq!(stored[1]["usage"]["input"], input);
    assert_eq!(stored[1]["usage"]["output"], output_tokens);
    assert_eq!(stored[1]["usage"]["cacheRead"], cache_read);
    assert_eq!(stored[1]["usage"]["cacheWrite"], cache_write);
    assert!(stored[1]["usage"]["cost"]["total"].as_f64().unwrap() > 0.0);
}

pub fn the_json_result_reports_usage_context_and_cost(protocol: &Protocol) {
    let home = Home::new();
    let (stream, usage) = (protocol.cached_text)("cached answer");
    let server = MockServer::start(vec![Reply::sse(&stream)]);
    let output = run(&home, protocol, &server, &["--json", "hi"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let result: Value = serde_json::from_str(&stdout(&output)).unwrap();
    let [input, output_tokens, cache_read, cache_write] = usage;
    assert_eq!(result["type"], "result");
    assert_eq!(result["subtype"], "success");
    assert_eq!(result["is_error"], false);
    assert_eq!(result["result"], "cached answer");
    assert_eq!(result["num_turns"], 1);
    assert_eq!(result["usage"]["input_tokens"], input);
    assert_eq!(result["usage"]["output_tokens"], output_tokens);
    assert_eq!(result["usage"]["cache_read_input_tokens"], cache_read);
    assert_eq!(result["usage"]["cache_creation_input_tokens"], cache_write);
    assert_eq!(
        result["context"]["tokens"],
        input + output_tokens + cache_read + cache_write
    );
    assert!(result["context"]["window"].as_u64().unwrap() > 0);
    let stored = messages(&home.session_lines());
    let recorded_cost = stored[1]["usage"]["cost"]["total"].as_f64().unwrap();
    assert!((result["total_cost_usd"].as_f64().unwrap() - recorded_cost).abs() < 1e-12);
    assert!(recorded_cost > 0.0);
    assert_eq!(result["session_id"], lines_session_id(&home));
}

fn lines_session_id(home: &Home) -> Value {
    home.session_lines()[0]["id"].clone()
}

pub fn a_tool_turn_reads_a_real_file_and_sends_the_result_back(protocol: &Protocol) {
    let home = Home::new();
    std::fs::write(home.workspace.join("notes.txt"), "the secret is 42\n").unwrap();
    let call = (protocol.tool_call)("call_read_1", "read", &json!({"path": "notes.txt"}));
    let answer = (protocol.text)(&["The secret is 42."]);
    let server = MockServer::start(vec![Reply::sse(&call), Reply::sse(&answer)]);
    let output = run(
        &home,
        protocol,
        &server,
        &["--output-format", "stream-json", "what is the secret?"],
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let stored_id = (protocol.stored_call_id)("call_read_1");
    let sent = (protocol.tool_result)(&requests[1].json(), &stored_id)
        .unwrap_or_else(|| panic!("no tool result for {stored_id} in {}", requests[1].json()));
    assert!(sent.contains("the secret is 42"), "{sent}");

    let events: Vec<Value> = stdout(&output)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let kinds: Vec<String> = events
        .iter()
        .map(|event| {
            format!(
                "{}{}",
                event["type"].as_str().unwrap(),
                event["subtype"]
                    .as_str()
                    .map(|subtype| format!("/{subtype}"))
                    .unwrap_or_default()
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "system/init",
            "assistant",
            "user",
            "assistant",
            "result/success"
        ]
    );
    let tool_use = events[1]["message"]["content"]
        .as_array()
        .unwrap()
        .iter()
        .find(|block| block["type"] == "tool_use")
        .unwrap();
    assert_eq!(tool_use["name"], "read");
    assert_eq!(tool_use["input"], json!({"path": "notes.txt"}));
    assert_eq!(
        events[2]["message"]["content"][0]["tool_use_id"],
        stored_id.as_str()
    );
    assert_eq!(
        events[3]["message"]["content"][0]["text"],
        "The secret is 42."
    );
    assert_eq!(events[4]["result"], "The secret is 42.");
    assert_eq!(events[4]["num_turns"], 2);
    let session_id = events[0]["session_id"].clone();
    assert!(events.iter().all(|event| event["session_id"] == session_id));

    let stored = messages(&home.session_lines());
    let roles: Vec<&str> = stored
        .iter()
        .map(|message| message["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "assistant", "toolResult", "assistant"]);
    assert_eq!(stored[1]["stopReason"], "toolUse");
    assert_eq!(stored[2]["toolName"], "read");
    assert_eq!(stored[2]["isError"], false);
}

pub fn thinking_is_stored_but_not_printed(protocol: &Protocol) {
    let home = Home::new();
    let stream = (protocol.thinking)("Let me consider the question.", "Forty-two.");
    let server = MockServer::start(vec![Reply::sse(&stream)]);
    let output = run(&home, protocol, &server, &["--thinking", "low", "think"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(stdout(&output), "Forty-two.\n");
    let stored = messages(&home.session_lines());
    let content = stored[1]["content"].as_array().unwrap();
    let thinking = content
        .iter()
        .find(|block| block["type"] == "thinking")
        .unwrap();
    assert!(
        thinking["thinking"].as_str().unwrap().contains("consider"),
        "{thinking}"
    );
    let lines = home.session_lines();
    assert!(
        lines
            .iter()
            .any(|line| line["type"] == "thinking_level_change" && line["thinkingLevel"] == "low")
    );
}

pub fn an_http_error_maps_to_its_exit_code_and_result_error(protocol: &Protocol) {
    let home = Home::new();
    let (reply, expected_code, kind) = (protocol.known_error)();
    let server = MockServer::start(vec![reply]);
    // Retries are tested on their own; here the first answer must decide.
    let output = home
        .pincer()
        .provider(protocol, &server)
        .args([
            "-c",
            "retry.max_retries=0",
            "run",
            "-m",
            protocol.model,
            "--json",
            "hi",
        ])
        .output();
    assert_eq!(code(&output), expected_code, "{}", stderr(&output));
    let result: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(result["is_error"], true);
    assert_eq!(result["error"]["kind"], kind);
    assert!(result["error"]["status"].as_u64().is_some());
    assert!(
        stderr(&output).starts_with("error: "),
        "{}",
        stderr(&output)
    );
    let stored = messages(&home.session_lines());
    assert_eq!(stored.last().unwrap()["stopReason"], "error");
    assert!(!stderr(&output).contains(KEY) && !stdout(&output).contains(KEY));
}

pub fn a_resume_sends_the_earlier_turn(protocol: &Protocol) {
    let home = Home::new();
    let first = (protocol.text)(&["First answer."]);
    let second = (protocol.text)(&["Second answer."]);
    let server = MockServer::start(vec![Reply::sse(&first), Reply::sse(&second)]);
    let output = run(
        &home,
        protocol,
        &server,
        &["--name", "daily", "first question"],
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    // From another directory, by name.
    let elsewhere = home.root.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let output = home
        .pincer()
        .provider(protocol, &server)
        .current_dir(&elsewhere)
        .args(["resume", "daily", "second question"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(stdout(&output), "Second answer.\n");
    let requests = server.requests();
    let body = requests[1].json().to_string();
    for text in ["first question", "First answer.", "second question"] {
        assert!(body.contains(text), "{text} missing from {body}");
    }
    assert!(body.find("first question") < body.find("second question"));
    let roles: Vec<String> = messages(&home.session_lines())
        .iter()
        .map(|message| message["role"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(roles, ["user", "assistant", "user", "assistant"]);
    // The Responses API routes by a cache key: both runs send the session's id, so the second
    // request meets the first one's cache. The other protocols cache by prefix alone.
    let id = home.session_lines()[0]["id"].as_str().unwrap().to_owned();
    for request in &requests {
        let key = request.json().get("prompt_cache_key").cloned();
        match protocol.name {
            "openai" => assert_eq!(key, Some(Value::String(id.clone()))),
            _ => assert_eq!(key, None),
        }
    }
}

pub fn an_idle_stream_times_out_with_exit_4(protocol: &Protocol) {
    let home = Home::new();
    let stream = (protocol.text)(&["partial ", "answer"]);
    let mut pieces: Vec<Piece> = split_events(&stream)
        .into_iter()
        .take(1)
        .map(Piece::Data)
        .collect();
    pieces.push(Piece::Stall(Duration::from_secs(10)));
    let server = MockServer::start(vec![Reply::sse_pieces(pieces)]);
    let started = Instant::now();
    let output = run(
        &home,
        protocol,
        &server,
        &[
            "--idle-timeout",
            "0.5",
            "--json",
            "-c",
            "retry.max_retries=0",
            "hi",
        ],
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(code(&output), 4, "{}", stderr(&output));
    let result: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(result["error"]["kind"], "timeout", "{result}");
    let stored = messages(&home.session_lines());
    assert_eq!(stored.last().unwrap()["stopReason"], "error");
}

pub fn sigterm_mid_stream_records_an_aborted_message(protocol: &Protocol) {
    let home = Home::new();
    let stream = (protocol.text)(&["one ", "two ", "three ", "four"]);
    // Everything up to the first text arrives at once; then the model "thinks" for a long time.
    let events = split_events(&stream);
    let first_text = events
        .iter()
        .position(|event| String::from_utf8_lossy(event).contains("one "))
        .unwrap();
    let mut pieces: Vec<Piece> = events[..=first_text]
        .iter()
        .cloned()
        .map(Piece::Data)
        .collect();
    pieces.push(Piece::Delay(Duration::from_secs(30)));
    pieces.extend(events[first_text + 1..].iter().cloned().map(Piece::Data));
    let server = MockServer::start(vec![Reply::sse_pieces(pieces)]);
    let child = home
        .pincer()
        .provider(protocol, &server)
        .args(["run", "-m", protocol.model, "count"])
        .spawn();
    std::thread::sleep(Duration::from_millis(1_000));
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap()),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(code(&output), 143, "{}", stderr(&output));
    let stored = messages(&home.session_lines());
    let last = stored.last().unwrap();
    assert_eq!(last["role"], "assistant");
    assert_eq!(last["stopReason"], "aborted");
    assert!(
        last["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("one "),
        "{last}"
    );
    // The session still loads.
    let status = home
        .pincer()
        .provider(protocol, &server)
        .args(["status", "--last", "--json"])
        .output();
    assert_eq!(code(&status), 0, "{}", stderr(&status));
    let value: Value = serde_json::from_str(&stdout(&status)).unwrap();
    assert_eq!(value["last_run_aborted"], true);
}

macro_rules! turn_tests {
    ($module:ident, $protocol:expr) => {
        mod $module {
            use super::*;
            #[test]
            fn a_text_turn_streams_the_answer_and_stores_exact_usage() {
                super::a_text_turn_streams_the_answer_and_stores_exact_usage(&$protocol);
            }
            #[test]
            fn the_json_result_reports_usage_context_and_cost() {
                super::the_json_result_reports_usage_context_and_cost(&$protocol);
            }
            #[test]
            fn a_tool_turn_reads_a_real_file_and_sends_the_result_back() {
                super::a_tool_turn_reads_a_real_file_and_sends_the_result_back(&$protocol);
            }
            #[test]
            fn thinking_is_stored_but_not_printed() {
                super::thinking_is_stored_but_not_printed(&$protocol);
            }
            #[test]
            fn an_http_error_maps_to_its_exit_code_and_result_error() {
                super::an_http_error_maps_to_its_exit_code_and_result_error(&$protocol);
            }
            #[test]
            fn a_resume_sends_the_earlier_turn() {
                super::a_resume_sends_the_earlier_turn(&$protocol);
            }
            #[test]
            fn an_idle_stream_times_out_with_exit_4() {
                super::an_idle_stream_times_out_with_exit_4(&$protocol);
            }
            #[test]
            fn sigterm_mid_stream_records_an_aborted_message() {
                super::sigterm_mid_stream_records_an_aborted_message(&$protocol);
            }
        }
    };
}

turn_tests!(gemini, protocols::gemini());
turn_tests!(anthropic, protocols::anthropic());
turn_tests!(openai, protocols::openai());
turn_tests!(openai_chat, protocols::openai_chat());

/// A turn against a plain `http://` URL reads no TLS root (SPEC §12.1): neither `SSL_CERT_FILE`
/// nor a file of `SSL_CERT_DIR` is opened. It used to load the roots while building the HTTP
/// client, before any request.
#[test]
fn a_plain_http_turn_reads_no_tls_roots() {
    let home = Home::new();
    let protocol = protocols::anthropic();
    let server = MockServer::start(vec![Reply::sse(&(protocol.text)(&["fine"]))]);
    // The bundle, and the one file of the certificate directory, are FIFOs nobody writes to:
    // opening one to read blocks, so a turn that loaded the trust roots would hang here
    // instead of answering.
    let directory = home.root.path().join("certs");
    std::fs::create_dir(&directory).unwrap();
    let bundle = home.root.path().join("bundle.pem");
    let made = std::process::Command::new("mkfifo")
        .arg(&bundle)
        .arg(directory.join("root.pem"))
        .status()
        .unwrap();
    assert!(made.success());
    let mut child = home
        .pincer()
        .provider(&protocol, &server)
        .env("SSL_CERT_FILE", &bundle)
        .env("SSL_CERT_DIR", &directory)
        .args(["run", "-m", protocol.model, "is it fine?"])
        .spawn();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            panic!("the turn did not end: it opened SSL_CERT_FILE or a file of SSL_CERT_DIR");
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let output = child.wait_with_output().unwrap();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(stdout(&output), "fine\n");
    assert_eq!(server.requests().len(), 1);
}
