//! Provider faults, table-driven across the four wire protocols (SPEC §9.2, §9.3, §12.2): HTTP
//! errors with and without retry headers, errors and resets in the middle of a stream, stalls,
//! truncated and malformed streams, HTML error pages and empty bodies.
//!
//! A retryable fault is retried before any output, and also after output has streamed — text,
//! thinking or a tool call's arguments, in the first call or after tools ran (SPEC §9.3; the text
//! already printed is not printed again, a partial tool call never runs). The second table below
//! breaks a stream in each of those places for every protocol. A fault
//! that retrying cannot fix (a malformed event, `x-should-retry: false`) ends the run with the
//! partial answer recorded as an error message.
//!
//! Every fault is run twice. Alone, with retries off: the run must end with the documented exit
//! code, a `result` object whose `error.kind` classifies the fault, and a sound session. Followed
//! by a good answer, with retries on: a retryable fault must be retried once and the answer
//! printed exactly once; any other fault must not be retried.

use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use serde_json::Value;

use crate::common::integrity::{check_session, session_files};
use crate::common::mock::{MockServer, Piece, Reply, split_events};
use crate::common::protocols::{self, Protocol};
use crate::common::{Home, code, stderr, stdout};

/// What a fault must lead to.
struct Expect {
    exit: i32,
    kind: &'static str,
    retried: bool,
}

const fn expect(exit: i32, kind: &'static str, retried: bool) -> Expect {
    Expect {
        exit,
        kind,
        retried,
    }
}

/// One fault: a name, the reply that carries it, and what it must lead to.
struct Fault {
    name: &'static str,
    reply: fn(&Protocol) -> Reply,
    expect: fn(&Protocol) -> Expect,
}

fn http_error(protocol: &Protocol, status: u16) -> Reply {
    Reply::json(status, &(protocol.error_body)(status))
}

/// The events of a short text answer.
fn events(protocol: &Protocol) -> Vec<Vec<u8>> {
    split_events(&(protocol.text)(&["partial ", "answer"]))
}

/// The index of the first event that carries answer text.
fn first_text_event(events: &[Vec<u8>]) -> usize {
    events
        .iter()
        .position(|event| String::from_utf8_lossy(event).contains("partial"))
        .unwrap()
}

/// The events up to and including the first text, then `tail`.
fn after_first_text(protocol: &Protocol, tail: Vec<Piece>) -> Reply {
    let events = events(protocol);
    let first = first_text_event(&events);
    let mut pieces: Vec<Piece> = events[..=first].iter().cloned().map(Piece::Data).collect();
    pieces.extend(tail);
    Reply::sse_pieces(pieces)
}

fn faults() -> Vec<Fault> {
    vec![
        Fault {
            name: "429 without retry headers",
            reply: |p| http_error(p, 429),
            expect: |_| expect(4, "rate_limit", true),
        },
        Fault {
            name: "429 with retry-after 0",
            reply: |p| http_error(p, 429).header("retry-after", "0"),
            expect: |_| expect(4, "rate_limit", true),
        },
        Fault {
            name: "429 with retry-after-ms 20",
            reply: |p| http_error(p, 429).header("retry-after-ms", "20"),
            expect: |_| expect(4, "rate_limit", true),
        },
        Fault {
            name: "529 overloaded",
            reply: |p| http_error(p, 529),
            expect: |_| expect(4, "overloaded", true),
        },
        Fault {
            name: "500 internal error",
            reply: |p| http_error(p, 500),
            expect: |_| expect(4, "overloaded", true),
        },
        Fault {
            name: "503 with retry-after-ms",
            reply: |p| http_error(p, 503).header("retry-after-ms", "15"),
            expect: |_| expect(4, "overloaded", true),
        },
        Fault {
            name: "503 with x-should-retry false",
            reply: |p| http_error(p, 503).header("x-should-retry", "false"),
            expect: |_| expect(4, "overloaded", false),
        },
        Fault {
            name: "a mid-stream error event",
            reply: |p| Reply::sse(&(p.mid_stream_error)("partial ")),
            // Retried whether it comes before the first text (OpenAI Responses) or after it.
            expect: |_| expect(4, "overloaded", true),
        },
        Fault {
            name: "a connection reset in an event after text",
            reply: |p| {
                let events = events(p);
                let first = first_text_event(&events);
                let next = &events[first + 1];
                after_first_text(
                    p,
                    vec![Piece::Data(next[..next.len() / 2].to_vec()), Piece::Close],
                )
            },
            expect: |_| expect(4, "timeout", true),
        },
        Fault {
            name: "a stall past the idle timeout after text",
            reply: |p| after_first_text(p, vec![Piece::Stall(Duration::from_secs(5))]),
            expect: |_| expect(4, "timeout", true),
        },
        Fault {
            name: "a stream that ends after text, before its last event",
            reply: |p| after_first_text(p, Vec::new()),
            expect: |_| expect(4, "timeout", true),
        },
        Fault {
            name: "a connection reset in the first event",
            reply: |p| {
                let first = events(p).remove(0);
                Reply::sse_pieces(vec![
                    Piece::Data(first[..first.len() / 2].to_vec()),
                    Piece::Close,
                ])
            },
            expect: |_| expect(4, "timeout", true),
        },
        Fault {
            name: "a stall past the idle timeout before any event",
            reply: |_| Reply::sse_pieces(vec![Piece::Stall(Duration::from_secs(5))]),
            expect: |_| expect(4, "timeout", true),
        },
        Fault {
            name: "a stream that ends before any text",
            reply: |p| {
                let events = events(p);
                let first = first_text_event(&events);
                Reply::sse_pieces(events[..first].iter().cloned().map(Piece::Data).collect())
            },
            expect: |_| expect(4, "timeout", true),
        },
        Fault {
            name: "malformed JSON in an event",
            reply: |p| {
                let events = events(p);
                let first = first_text_event(&events);
                let event = String::from_utf8(events[first].clone()).unwrap();
                let data = event.find("data: ").unwrap() + "data: ".len();
                let broken = format!("{}{{\"broken\": [1, 2\n\n", &event[..data]);
                let mut pieces: Vec<Piece> =
                    events[..first].iter().cloned().map(Piece::Data).collect();
                pieces.push(Piece::Data(broken.into_bytes()));
                pieces.extend(events[first + 1..].iter().cloned().map(Piece::Data));
                Reply::sse_pieces(pieces)
            },
            expect: |_| expect(1, "unknown", false),
        },
        Fault {
            name: "an HTML error page from a proxy",
            reply: |_| {
                Reply::raw(
                    502,
                    "text/html",
                    b"<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>",
                )
            },
            expect: |_| expect(4, "overloaded", true),
        },
        Fault {
            name: "an empty 200 body",
            reply: |_| Reply::sse_pieces(Vec::new()),
            expect: |_| expect(4, "timeout", true),
        },
    ]
}

/// Every session file is sound and `sessions show` loads it.
fn assert_sessions_intact(home: &Home, protocol: &Protocol, server: &MockServer, context: &str) {
    let files = session_files(&home.sessions_dir());
    assert_eq!(files.len(), 1, "{context}");
    for file in files {
        check_session(&file, false);
        let output = home
            .pincer()
            .provider(protocol, server)
            .fast_retries()
            .args(["sessions", "show", file.to_str().unwrap()])
            .output();
        assert_eq!(code(&output), 0, "{context}: {}", stderr(&output));
    }
}

fn run_args(protocol: &Protocol, retries: u32) -> Vec<String> {
    [
        "-c",
        &format!("retry.max_retries={retries}"),
        "run",
        "-m",
        protocol.model,
        "--json",
        "--idle-timeout",
        "0.4",
        "hello",
    ]
    .map(str::to_owned)
    .to_vec()
}

fn run(
    home: &Home,
    protocol: &Protocol,
    server: &MockServer,
    retries: u32,
) -> (i32, Value, String) {
    let output = home
        .pincer()
        .provider(protocol, server)
        .fast_retries()
        .args(run_args(protocol, retries))
        .output();
    let text = stdout(&output);
    let result: Value = serde_json::from_str(text.trim()).unwrap_or_else(|error| {
        panic!(
            "{}: stdout is not one result object ({error}): {text:?}\nstderr: {}",
            protocol.name,
            stderr(&output)
        )
    });
    (code(&output), result, stderr(&output))
}

fn check_fault(protocol: &Protocol, fault: &Fault) -> Vec<String> {
    let context = format!("{} / {}", protocol.name, fault.name);
    let expect = (fault.expect)(protocol);
    let mut failures = Vec::new();
    let mut check = |ok: bool, message: String| {
        if !ok {
            failures.push(format!("{context}: {message}"));
        }
    };

    // Alone, retries off: a classified error.
    let home = Home::new();
    let server = MockServer::start(vec![(fault.reply)(protocol)]);
    let (exit, result, err) = run(&home, protocol, &server, 0);
    check(
        exit == expect.exit,
        format!("exit {exit}, expected {}: {err}", expect.exit),
    );
    check(
        result["error"]["kind"] == expect.kind,
        format!(
            "error.kind {}, expected {}",
            result["error"]["kind"], expect.kind
        ),
    );
    check(result["is_error"] == true, format!("is_error: {result}"));
    check(result["type"] == "result", format!("type: {result}"));
    check(
        err.lines()
            .filter(|line| line.starts_with("error:"))
            .count()
            == 1,
        format!("one error line on stderr: {err}"),
    );
    check(
        server.requests().len() == 1,
        format!("{} requests", server.requests().len()),
    );
    assert_sessions_intact(&home, protocol, &server, &context);

    // Followed by a good answer, retries on.
    let home = Home::new();
    let good = (protocol.text)(&["recovered"]);
    let server = MockServer::start(vec![(fault.reply)(protocol), Reply::sse(&good)]);
    let started = Instant::now();
    let (exit, result, err) = run(&home, protocol, &server, 2);
    let requests = server.requests().len();
    if expect.retried {
        check(exit == 0, format!("exit {exit} after a retry: {err}"));
        check(result["result"] == "recovered", format!("result: {result}"));
        check(requests == 2, format!("{requests} requests"));
    } else {
        check(
            exit == expect.exit,
            format!("exit {exit} without retry: {err}"),
        );
        check(
            requests == 1,
            format!("{requests} requests: must not retry"),
        );
    }
    check(
        started.elapsed() < Duration::from_secs(4),
        format!("took {:?}", started.elapsed()),
    );
    assert_sessions_intact(&home, protocol, &server, &context);
    failures
}

fn check_protocol(protocol: Protocol) {
    let failures: Vec<String> = faults()
        .iter()
        .flat_map(|fault| check_fault(&protocol, fault))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn anthropic_faults_end_in_a_retry_or_a_classified_error_with_an_intact_session() {
    check_protocol(protocols::anthropic());
}

#[test]
fn openai_responses_faults_end_in_a_retry_or_a_classified_error_with_an_intact_session() {
    check_protocol(protocols::openai());
}

#[test]
fn openai_chat_faults_end_in_a_retry_or_a_classified_error_with_an_intact_session() {
    check_protocol(protocols::openai_chat());
}

#[test]
fn gemini_faults_end_in_a_retry_or_a_classified_error_with_an_intact_session() {
    check_protocol(protocols::gemini());
}

#[test]
fn a_server_asking_for_a_wait_over_a_minute_is_not_waited_for() {
    for protocol in protocols::all() {
        let home = Home::new();
        let server = MockServer::start(vec![
            http_error(&protocol, 429).header("retry-after", "3600"),
            Reply::sse(&(protocol.text)(&["late"])),
        ]);
        let started = Instant::now();
        let (exit, result, err) = run(&home, &protocol, &server, 3);
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "{}",
            protocol.name
        );
        assert_eq!(exit, 4, "{}: {err}", protocol.name);
        assert_eq!(result["error"]["kind"], "rate_limit", "{}", protocol.name);
        assert_eq!(server.requests().len(), 1, "{}", protocol.name);
    }
}

#[test]
fn stream_json_ends_with_a_result_line_after_a_provider_fault() {
    let protocol = protocols::anthropic();
    let home = Home::new();
    let server = MockServer::start(vec![Reply::json(529, &(protocol.error_body)(529))]);
    let output = home
        .pincer()
        .provider(&protocol, &server)
        .fast_retries()
        .args([
            "-c",
            "retry.max_retries=0",
            "run",
            "-m",
            protocol.model,
            "--output-format",
            "stream-json",
            "hi",
        ])
        .output();
    assert_eq!(code(&output), 4, "{}", stderr(&output));
    let lines: Vec<Value> = stdout(&output)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let last = lines.last().unwrap();
    assert_eq!(last["type"], "result");
    assert_eq!(last["is_error"], true);
    assert_eq!(last["error"]["kind"], "overloaded");
}

// ----- broken streams: every protocol × where it breaks × whether a tool ran before -----

/// What the stream was carrying when the connection dropped.
#[derive(Debug, Clone, Copy)]
enum BreakIn {
    Text,
    Thinking,
    ToolArguments,
}

/// The tool calls of the matrix append a line to this file, so the test counts how often each
/// one really ran.
const SIDE_EFFECT_FILE: &str = "ran.txt";

fn exec_call(protocol: &Protocol, id: &str, line: &str) -> Vec<u8> {
    let arguments = serde_json::json!({"command": format!("echo {line} >> {SIDE_EFFECT_FILE}")});
    (protocol.tool_call)(id, "exec", &arguments)
}

/// `stream` up to and including the first event that contains one of `markers`, then a reset.
fn cut_after(stream: &[u8], markers: &[&str]) -> Reply {
    let events = split_events(stream);
    let index = events
        .iter()
        .position(|event| {
            let event = String::from_utf8_lossy(event);
            markers.iter().any(|marker| event.contains(marker))
        })
        .unwrap_or_else(|| panic!("no event with {markers:?}"));
    let mut pieces: Vec<Piece> = events[..=index].iter().cloned().map(Piece::Data).collect();
    pieces.push(Piece::Close);
    Reply::sse_pieces(pieces)
}

/// The scripted replies of one case, the index of the broken one, the answer pincer must print
/// and the lines the side-effect file must hold at the end.
struct Script {
    replies: Vec<Reply>,
    broken: usize,
    answer: &'static str,
    side_effects: Vec<&'static str>,
}

fn script(protocol: &Protocol, break_in: BreakIn, after_tool: bool) -> Script {
    let mut replies = Vec::new();
    let mut side_effects = Vec::new();
    if after_tool {
        replies.push(Reply::sse(&exec_call(protocol, "call_first", "first")));
        side_effects.push("first");
    }
    let broken = replies.len();
    let answer = match break_in {
        BreakIn::Text => {
            let stream = (protocol.text)(&["partial ", "answer"]);
            replies.push(cut_after(&stream, &["partial"]));
            replies.push(Reply::sse(&stream));
            "partial answer"
        }
        BreakIn::Thinking => {
            let stream = (protocol.thinking)("pondering the question at length", "the answer");
            replies.push(cut_after(&stream, &["pondering"]));
            replies.push(Reply::sse(&stream));
            "the answer"
        }
        BreakIn::ToolArguments => {
            let stream = exec_call(protocol, "call_second", "second");
            // The first piece of the arguments (`{"c…` inside a JSON string), or Gemini's whole
            // call in a chunk before the one that finishes the message.
            replies.push(cut_after(&stream, &[r#"{\"c"#, "functionCall"]));
            replies.push(Reply::sse(&stream));
            side_effects.push("second");
            replies.push(Reply::sse(&(protocol.text)(&["done"])));
            "done"
        }
    };
    Script {
        replies,
        broken,
        answer,
        side_effects,
    }
}

/// The session's messages, after checking the file's structure and that `sessions show` loads it.
fn session_messages(home: &Home, protocol: &Protocol, server: &MockServer) -> Vec<Value> {
    assert_sessions_intact(home, protocol, server, protocol.name);
    let file = session_files(&home.sessions_dir()).remove(0);
    check_session(&file, false)
        .entries
        .into_iter()
        .filter(|entry| entry["type"] == "message")
        .map(|entry| entry["message"].clone())
        .collect()
}

fn check_broken_stream(protocol: &Protocol, break_in: BreakIn, after_tool: bool) -> Vec<String> {
    let context = format!(
        "{} / break in {break_in:?}{}",
        protocol.name,
        if after_tool { " after a tool ran" } else { "" }
    );
    let mut failures = Vec::new();
    let mut check = |ok: bool, message: String| {
        if !ok {
            failures.push(format!("{context}: {message}"));
        }
    };
    for format in ["text", "stream-json"] {
        let home = Home::new();
        let script = script(protocol, break_in, after_tool);
        let expected_requests = script.replies.len();
        let server = MockServer::start(script.replies);
        let output = home
            .pincer()
            .provider(protocol, &server)
            .fast_retries()
            .args([
                "-c",
                "retry.max_retries=2",
                "run",
                "-m",
                protocol.model,
                "--output-format",
                format,
                "go",
            ])
            .output();
        let (out, err) = (stdout(&output), stderr(&output));
        check(
            code(&output) == 0,
            format!("{format}: exit {}: {err}", code(&output)),
        );
        let requests = server.requests();
        check(
            requests.len() == expected_requests,
            format!(
                "{format}: {} requests, expected {expected_requests}",
                requests.len()
            ),
        );
        if requests.len() > script.broken + 1 {
            check(
                requests[script.broken].json() == requests[script.broken + 1].json(),
                format!("{format}: the retried request differs from the broken one"),
            );
        }
        let ran =
            std::fs::read_to_string(home.workspace.join(SIDE_EFFECT_FILE)).unwrap_or_default();
        check(
            ran.lines().collect::<Vec<_>>() == script.side_effects,
            format!(
                "{format}: the tools ran as {ran:?}, expected {:?}",
                script.side_effects
            ),
        );
        let calls = expected_requests - 1;
        if format == "text" {
            check(
                out == format!("{}\n", script.answer),
                format!("stdout {out:?}, expected the answer once"),
            );
            check(
                err.matches("retrying the call").count() == 1,
                format!("one retry notice on stderr: {err}"),
            );
        } else {
            // Every line is one JSON object (a line that is not used to turn silently into
            // `null` and be left out of the counts).
            let mut lines: Vec<Value> = Vec::new();
            for line in out.lines() {
                match serde_json::from_str(line) {
                    Ok(value) => lines.push(value),
                    Err(error) => check(false, format!("{format}: not JSON ({error}): {line:?}")),
                }
            }
            let count = |subtype: &str| {
                lines
                    .iter()
                    .filter(|line| line["type"] == subtype || line["subtype"] == subtype)
                    .count()
            };
            check(
                count("assistant") == calls,
                format!("{} assistant events, expected {calls}", count("assistant")),
            );
            let retries: Vec<&Value> = lines
                .iter()
                .filter(|line| line["subtype"] == "api_retry")
                .collect();
            check(
                retries.len() == 1 && retries[0]["discarded_partial"] == true,
                format!("one api_retry with discarded_partial: {retries:?}"),
            );
            let last = lines.last().cloned().unwrap_or(Value::Null);
            check(
                last["type"] == "result"
                    && last["is_error"] == false
                    && last["result"] == script.answer,
                format!("last line: {last}"),
            );
        }
        let messages = session_messages(&home, protocol, &server);
        let assistants: Vec<&Value> = messages
            .iter()
            .filter(|message| message["role"] == "assistant")
            .collect();
        let good = assistants
            .iter()
            .filter(|message| message["stopReason"] != "error")
            .count();
        check(
            good == calls,
            format!("{format}: {good} good assistant messages, expected {calls}"),
        );
        for message in assistants
            .iter()
            .filter(|message| message["stopReason"] == "error")
        {
            let has_call = message["content"]
                .as_array()
                .is_some_and(|content| content.iter().any(|block| block["type"] == "toolCall"));
            check(
                !has_call,
                format!("{format}: the broken attempt kept a tool call: {message}"),
            );
        }
        let results = messages
            .iter()
            .filter(|message| message["role"] == "toolResult")
            .count();
        check(
            results == script.side_effects.len(),
            format!(
                "{format}: {results} tool results, expected {}",
                script.side_effects.len()
            ),
        );
    }
    failures
}

fn check_broken_streams(protocol: Protocol) {
    let mut failures = Vec::new();
    for break_in in [BreakIn::Text, BreakIn::Thinking, BreakIn::ToolArguments] {
        for after_tool in [false, true] {
            failures.extend(check_broken_stream(&protocol, break_in, after_tool));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn anthropic_streams_broken_anywhere_are_retried_without_rerunning_tools() {
    check_broken_streams(protocols::anthropic());
}

#[test]
fn openai_responses_streams_broken_anywhere_are_retried_without_rerunning_tools() {
    check_broken_streams(protocols::openai());
}

#[test]
fn openai_chat_streams_broken_anywhere_are_retried_without_rerunning_tools() {
    check_broken_streams(protocols::openai_chat());
}

#[test]
fn gemini_streams_broken_anywhere_are_retried_without_rerunning_tools() {
    check_broken_streams(protocols::gemini());
}
