//! A standalone mock provider for benchmarks: serves scripted Anthropic and OpenAI streams on
//! loopback, in a cycle, until killed. It reuses the test suite's mock server and wire builders,
//! so the bytes are the ones the tests check.
//!
//! Usage: `mock_provider SCENARIO [--deltas N] [--pace-us N] [--times FILE]`, printing the base
//! URL on stdout. Scenarios:
//! - `anthropic-text`, `chat-text`, `responses-text`: one short answer (Anthropic Messages,
//!   OpenAI Chat Completions, OpenAI Responses);
//! - `anthropic-tool`: a `read` of `bench.txt`, then an answer;
//! - `anthropic-grep`, `anthropic-find`: one call of the `grep` tool (pattern [`GREP_PATTERN`])
//!   or the `find` tool (pattern [`FIND_PATTERN`]) on the workspace, then an answer;
//! - `quickstart`: `ls` of the workspace and a `read` of README.md in one message, then an answer
//!   about that turn (what `scripts/record-quickstart` records into
//!   `examples/quickstart.cassette.jsonl`);
//! - `anthropic-mcp`: one call of `mcp__bench__echo` (an MCP server named `bench`, e.g.
//!   `examples/mcp_test_server.rs stdio`), then an answer; `anthropic-mcp-calls` and
//!   `anthropic-read-calls`: [`PARALLEL_CALLS`] calls of `mcp__bench__echo` or of `read` on
//!   `bench.txt` in one message, then an answer (their difference is the cost of an MCP call);
//! - `anthropic-stream`: an answer of `--deltas` text deltas (`<0000>`, `<0001>`, …), one chunk
//!   each, `--pace-us` microseconds apart. Just before writing each delta it notes the wall clock
//!   (nanoseconds since the epoch); when the stream is done it appends `INDEX NANOS` lines to the
//!   `--times` file, so that a reader of the client's stdout can compute each delta's delay;
//! - `tokens` (for `scripts/tokens`): any of the four protocols, told apart by the request path
//!   (`/v1/messages`, `/v1/responses`, `/v1/chat/completions`, `…:streamGenerateContent`), each
//!   reply chosen from the request itself, so that any number of runs and resumes, compactions
//!   included, can be scripted by their prompts alone: a request without tools (a compaction's
//!   summary call) gets [`SUMMARY`]; a prompt holding a directive `<<call TOOL {JSON
//!   arguments}>>` gets that one tool call, once (while the conversation has fewer tool calls
//!   than directives); any other request (after the tool result, or a prompt without a
//!   directive) gets [`ANSWER`]. The
//!   reported input tokens are the body's bytes / 4 (what the compaction decision sees). With
//!   `--dump DIR`, each request body is written to `DIR/NNNNNN.json` (numbered from 1) and the
//!   text of the reply it got (the answer, or the tool's name and arguments) to `NNNNNN.out`,
//!   both before the reply is sent.

#![expect(
    clippy::print_stdout,
    reason = "the URL on stdout is this program's interface"
)]
#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "shared test helpers"
)]

#[path = "../tests/common/mock.rs"]
mod mock;

#[path = "../tests/common/wire/anthropic.rs"]
mod anthropic;

#[path = "../tests/common/wire/openai.rs"]
mod openai;

#[path = "../tests/common/wire/openai_chat.rs"]
mod openai_chat;

#[path = "../tests/common/wire/gemini.rs"]
mod gemini;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The regular expression the `anthropic-grep` scenario asks the `grep` tool for.
const GREP_PATTERN: &str = "NEEDLE_[0-9]+";
/// The glob the `anthropic-find` scenario asks the `find` tool for.
const FIND_PATTERN: &str = "*_42.rs";
/// Tool calls in one message in the `anthropic-mcp-calls` and `anthropic-read-calls` scenarios.
const PARALLEL_CALLS: usize = 20;

const ANSWER: [&str; 3] = [
    "The build is green. ",
    "All 42 tests passed, ",
    "and nothing needs attention.",
];

/// The quickstart's answer: true in whatever directory the replay runs.
const QUICKSTART_ANSWER: [&str; 4] = [
    "I listed this directory with the `ls` tool and read its README.md with `read`; ",
    "both tools ran for real, on your files. This answer was replayed from ",
    "examples/quickstart.cassette.jsonl: no key, no network, no cost.\n\n",
    "To ask a real model, set ANTHROPIC_API_KEY (or OPENAI_API_KEY, GEMINI_API_KEY) and run pincer without --replay; add --record FILE to keep a run for CI.",
];

const ANTHROPIC_USAGE: anthropic::Usage4 = anthropic::Usage4 {
    input: 1_200,
    output: 40,
    cache_read: 0,
    cache_write: 0,
};

struct Options {
    scenario: String,
    deltas: usize,
    pace: Duration,
    times: Option<PathBuf>,
    dump: Option<PathBuf>,
}

fn options() -> Options {
    let mut options = Options {
        scenario: "anthropic-text".to_owned(),
        deltas: 200,
        pace: Duration::from_micros(2_000),
        times: None,
        dump: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--deltas" => options.deltas = args.next().and_then(|n| n.parse().ok()).unwrap_or(200),
            "--pace-us" => {
                options.pace =
                    Duration::from_micros(args.next().and_then(|n| n.parse().ok()).unwrap_or(0));
            }
            "--times" => options.times = args.next().map(PathBuf::from),
            "--dump" => options.dump = args.next().map(PathBuf::from),
            _ => options.scenario = arg,
        }
    }
    options
}

fn tool_turn(name: &str, arguments: &str) -> Vec<mock::Reply> {
    vec![
        mock::Reply::sse(&anthropic::tool_use_stream(
            None,
            &[("toolu_01Bench", name, arguments)],
            ANTHROPIC_USAGE,
        )),
        mock::Reply::sse(&anthropic::text_stream(&ANSWER, ANTHROPIC_USAGE)),
    ]
}

/// `PARALLEL_CALLS` calls of `name` in one message, then an answer.
fn parallel_turn(name: &str, arguments: &str) -> Vec<mock::Reply> {
    let ids: Vec<String> = (0..PARALLEL_CALLS)
        .map(|index| format!("toolu_01Bench{index:02}"))
        .collect();
    let calls: Vec<(&str, &str, &str)> = ids
        .iter()
        .map(|id| (id.as_str(), name, arguments))
        .collect();
    vec![
        mock::Reply::sse(&anthropic::tool_use_stream(None, &calls, ANTHROPIC_USAGE)),
        mock::Reply::sse(&anthropic::text_stream(&ANSWER, ANTHROPIC_USAGE)),
    ]
}

fn main() {
    let options = options();
    let replies = match options.scenario.as_str() {
        "anthropic-text" => vec![mock::Reply::sse(&anthropic::text_stream(
            &ANSWER,
            ANTHROPIC_USAGE,
        ))],
        "chat-text" => vec![mock::Reply::sse(&openai_chat::text_stream(
            &ANSWER,
            openai_chat::Usage4 {
                input_total: 1_200,
                cached: 0,
                output: 40,
                reasoning: 0,
            },
        ))],
        "responses-text" => vec![mock::Reply::sse(&openai::text_stream(
            &ANSWER,
            openai::Usage4 {
                input_total: 1_200,
                cached: 0,
                output: 40,
                reasoning: 0,
            },
        ))],
        "anthropic-tool" => tool_turn("read", "{\"path\":\"bench.txt\"}"),
        "anthropic-grep" => tool_turn(
            "grep",
            &serde_json::json!({"pattern": GREP_PATTERN}).to_string(),
        ),
        "anthropic-find" => tool_turn(
            "find",
            &serde_json::json!({"pattern": FIND_PATTERN}).to_string(),
        ),
        "quickstart" => vec![
            mock::Reply::sse(&anthropic::tool_use_stream(
                None,
                &[
                    ("toolu_01QuickstartLs", "ls", "{\"path\":\".\"}"),
                    ("toolu_02QuickstartRead", "read", "{\"path\":\"README.md\"}"),
                ],
                ANTHROPIC_USAGE,
            )),
            mock::Reply::sse(&anthropic::text_stream(&QUICKSTART_ANSWER, ANTHROPIC_USAGE)),
        ],
        "anthropic-mcp" => tool_turn("mcp__bench__echo", "{\"text\":\"hi\"}"),
        "anthropic-mcp-calls" => parallel_turn("mcp__bench__echo", "{\"text\":\"hi\"}"),
        "anthropic-read-calls" => parallel_turn("read", "{\"path\":\"bench.txt\"}"),
        "anthropic-stream" => {
            serve_timed_stream(&options);
            return;
        }
        "tokens" => {
            serve_tokens(options.dump.as_deref());
            return;
        }
        other => {
            let _ = writeln!(std::io::stderr(), "unknown scenario '{other}'");
            std::process::exit(2);
        }
    };
    let server = mock::MockServer::start_cycle(replies, "127.0.0.1:0");
    println!("{}", server.url());
    let _ = std::io::stdout().flush();
    loop {
        std::thread::park();
    }
}

/// The `anthropic-stream` scenario: its own accept loop, since the shared mock does not say when
/// each piece left. One connection at a time is enough for a benchmark that runs one client.
fn serve_timed_stream(options: &Options) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    println!("http://{}", listener.local_addr().unwrap());
    let _ = std::io::stdout().flush();
    let texts: Vec<String> = (0..options.deltas).map(|i| format!("<{i:04}>")).collect();
    let chunks: Vec<&str> = texts.iter().map(String::as_str).collect();
    let events = mock::split_events(&anthropic::text_stream(&chunks, ANTHROPIC_USAGE));
    for stream in listener.incoming().flatten() {
        if read_request(&stream).is_none() {
            continue;
        }
        let times = send_paced(stream, &events, options.pace);
        if let Some(path) = &options.times {
            let mut lines = String::new();
            for (index, nanos) in times.iter().enumerate() {
                lines.push_str(&format!("{index} {nanos}\n"));
            }
            let appended = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .and_then(|mut file| file.write_all(lines.as_bytes()));
            if let Err(error) = appended {
                let _ = writeln!(
                    std::io::stderr(),
                    "cannot write {}: {error}",
                    path.display()
                );
            }
        }
    }
}

/// Reads one request's head and body: its path and its body.
fn read_request(stream: &TcpStream) -> Option<(String, Vec<u8>)> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line).ok()?;
    let path = request_line.split_whitespace().nth(1)?.to_owned();
    let mut length = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().ok()?;
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some((path, body))
}

/// Writes the events as chunks, pausing before each text delta, and returns the wall-clock
/// nanoseconds at which each delta was handed to the socket.
fn send_paced(mut stream: TcpStream, events: &[Vec<u8>], pace: Duration) -> Vec<u128> {
    let _ = stream.set_nodelay(true);
    let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\n\
                cache-control: no-cache\r\nconnection: close\r\ntransfer-encoding: chunked\r\n\r\n";
    let mut times = Vec::new();
    if stream.write_all(head.as_bytes()).is_err() {
        return times;
    }
    for event in events {
        let is_delta = event
            .windows(b"text_delta".len())
            .any(|window| window == b"text_delta");
        if is_delta {
            std::thread::sleep(pace);
        }
        let mut chunk = format!("{:x}\r\n", event.len()).into_bytes();
        chunk.extend_from_slice(event);
        chunk.extend_from_slice(b"\r\n");
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_nanos());
        if stream.write_all(&chunk).is_err() {
            return times;
        }
        if is_delta {
            times.push(now);
        }
    }
    let _ = stream.write_all(b"0\r\n\r\n");
    times
}

/// What the `tokens` scenario answers a summary call (a request without tools) with: the
/// sections pincer's compaction prompt asks for, about as long as a model writes them for a
/// session of file reads.
const SUMMARY: &str = "## Goal\nReview the project's files one by one and report what each does.\n\n\
## Constraints & Preferences\n- Read only; change nothing.\n\n\
## Progress\n### Done\n- [x] Read the earlier files and reported on each: small modules, no \
problems found.\n### In Progress\n- [ ] The remaining files, in order.\n### Blocked\n- (none)\n\n\
## Key Decisions\n- **One file per turn**: the user asks for each by name.\n\n\
## Next Steps\n1. Read the next file the user names and report on it.\n\n\
## Critical Context\n- Every file so far was a self-contained module of about 8 KB.";

/// A wire protocol of the `tokens` scenario, told apart by the request path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Protocol {
    Anthropic,
    Responses,
    Chat,
    Gemini,
}

impl Protocol {
    fn of(path: &str) -> Option<Protocol> {
        let path = path.split('?').next().unwrap_or(path);
        if path.ends_with("/messages") {
            Some(Protocol::Anthropic)
        } else if path.ends_with("/responses") {
            Some(Protocol::Responses)
        } else if path.ends_with("/chat/completions") {
            Some(Protocol::Chat)
        } else if path.ends_with(":streamGenerateContent") {
            Some(Protocol::Gemini)
        } else {
            None
        }
    }

    /// The request's conversation: its messages, input items or contents.
    fn conversation(self, body: &serde_json::Value) -> Option<&Vec<serde_json::Value>> {
        match self {
            Protocol::Anthropic | Protocol::Chat => body["messages"].as_array(),
            Protocol::Responses => body["input"].as_array(),
            Protocol::Gemini => body["contents"].as_array(),
        }
    }
}

/// What the `tokens` scenario replies.
#[derive(Debug, PartialEq, Eq)]
enum Step {
    /// The compaction summary.
    Summary,
    /// One call of `tool` with these JSON arguments.
    Call { tool: String, arguments: String },
    /// The final answer.
    Answer,
}

/// The reply a request calls for (see the module comment): the tool call of the newest
/// directive while the conversation has fewer tool calls than directives, else the answer.
/// Counting instead of looking at the last message keeps this right for clients that merge a
/// new prompt into the message holding the last tool results (claude does).
fn step(protocol: Protocol, body: &serde_json::Value) -> Step {
    if body["tools"].as_array().is_none_or(Vec::is_empty) {
        return Step::Summary;
    }
    let Some(items) = protocol.conversation(body) else {
        return Step::Answer;
    };
    let mut texts = Vec::new();
    items.iter().for_each(|item| strings(item, &mut texts));
    let mut directives: Vec<Step> = texts.iter().filter_map(|text| directive(text)).collect();
    let calls: usize = items.iter().map(tool_calls).sum();
    if calls < directives.len() {
        directives.pop().unwrap_or(Step::Answer)
    } else {
        Step::Answer
    }
}

/// How many tool calls `value` holds, in any protocol's shape.
fn tool_calls(value: &serde_json::Value) -> usize {
    match value {
        serde_json::Value::Array(items) => items.iter().map(tool_calls).sum(),
        serde_json::Value::Object(members) => {
            let own = match members.get("type").and_then(serde_json::Value::as_str) {
                Some("tool_use" | "function_call" | "custom_tool_call" | "local_shell_call") => 1,
                _ => usize::from(members.contains_key("functionCall")),
            };
            let chat = members
                .get("tool_calls")
                .and_then(serde_json::Value::as_array)
                .map_or(0, Vec::len);
            own + chat
                + members
                    .iter()
                    .filter(|(key, _)| key.as_str() != "tool_calls")
                    .map(|(_, member)| tool_calls(member))
                    .sum::<usize>()
        }
        _ => 0,
    }
}

/// Every string in `value`, depth first.
fn strings<'a>(value: &'a serde_json::Value, out: &mut Vec<&'a str>) {
    match value {
        serde_json::Value::String(text) => out.push(text),
        serde_json::Value::Array(items) => items.iter().for_each(|item| strings(item, out)),
        serde_json::Value::Object(members) => members.values().for_each(|item| strings(item, out)),
        _ => {}
    }
}

/// The `<<call TOOL {JSON}>>` directive in `text`, if there is one.
fn directive(text: &str) -> Option<Step> {
    let start = text.find("<<call ")? + "<<call ".len();
    let rest = &text[start..];
    let end = rest.find(">>")?;
    let (tool, arguments) = rest[..end].split_once(' ')?;
    Some(Step::Call {
        tool: tool.to_owned(),
        arguments: arguments.trim().to_owned(),
    })
}

/// The event stream for `step` in `protocol`, reporting `input` prompt tokens; and the text of
/// the reply (what `--dump` writes beside the request).
fn tokens_reply(protocol: Protocol, step: &Step, sequence: usize, input: u64) -> (Vec<u8>, String) {
    let text = match step {
        Step::Summary => SUMMARY.to_owned(),
        Step::Answer => ANSWER.concat(),
        Step::Call { tool, arguments } => format!("{tool} {arguments}"),
    };
    let output = (text.len() as u64).div_ceil(4);
    let id = match protocol {
        Protocol::Anthropic => format!("toolu_01Tokens{sequence:06}"),
        _ => format!("call_tokens{sequence:06}"),
    };
    let stream = match (protocol, step) {
        (Protocol::Anthropic, Step::Call { tool, arguments }) => anthropic::tool_use_stream(
            None,
            &[(&id, tool, arguments)],
            anthropic_usage(input, output),
        ),
        (Protocol::Anthropic, _) => {
            anthropic::text_stream(&[&text], anthropic_usage(input, output))
        }
        (Protocol::Responses, Step::Call { tool, arguments }) => openai::tool_call_stream(
            None,
            &[(&id, tool, arguments)],
            responses_usage(input, output),
        ),
        (Protocol::Responses, _) => openai::text_stream(&[&text], responses_usage(input, output)),
        (Protocol::Chat, Step::Call { tool, arguments }) => openai_chat::tool_call_stream(
            None,
            &[(&id, tool, arguments)],
            chat_usage(input, output),
        ),
        (Protocol::Chat, _) => openai_chat::text_stream(&[&text], chat_usage(input, output)),
        (Protocol::Gemini, Step::Call { tool, arguments }) => {
            let arguments = serde_json::from_str(arguments).unwrap_or(serde_json::Value::Null);
            gemini::function_call_stream(
                &[(tool, arguments)],
                "",
                gemini::Usage4::new(input, 0, output, 0),
            )
        }
        (Protocol::Gemini, _) => {
            gemini::text_stream(&[&text], gemini::Usage4::new(input, 0, output, 0))
        }
    };
    // The wire builders give every response the same ids; a client that merges the pieces of one
    // message by id (claude does, when it reloads a session) would merge every answer of the
    // session into one message. Each reply gets its own.
    let mut stream = String::from_utf8_lossy(&stream).into_owned();
    for id in [
        anthropic::MESSAGE_ID,
        openai::RESPONSE_ID,
        openai::MESSAGE_ID,
        openai_chat::COMPLETION_ID,
        gemini::RESPONSE_ID,
    ] {
        stream = stream.replace(id, &format!("{id}{sequence:06}"));
    }
    (stream.into_bytes(), text)
}

fn anthropic_usage(input: u64, output: u64) -> anthropic::Usage4 {
    anthropic::Usage4 {
        input,
        output,
        cache_read: 0,
        cache_write: 0,
    }
}

fn responses_usage(input: u64, output: u64) -> openai::Usage4 {
    openai::Usage4 {
        input_total: input,
        cached: 0,
        output,
        reasoning: 0,
    }
}

fn chat_usage(input: u64, output: u64) -> openai_chat::Usage4 {
    openai_chat::Usage4 {
        input_total: input,
        cached: 0,
        output,
        reasoning: 0,
    }
}

/// The `tokens` scenario: one request at a time (a benchmark runs one client), each written to
/// `dump` before it is answered, so that the requests are all on disk when the client exits.
fn serve_tokens(dump: Option<&std::path::Path>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    println!("http://{}", listener.local_addr().unwrap());
    let _ = std::io::stdout().flush();
    let mut sequence = 0;
    for mut stream in listener.incoming().flatten() {
        let Some((path, body)) = read_request(&stream) else {
            continue;
        };
        let Some(protocol) = Protocol::of(&path) else {
            let _ = stream.write_all(
                b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
            );
            continue;
        };
        sequence += 1;
        let json: serde_json::Value =
            serde_json::from_slice(&body).unwrap_or(serde_json::Value::Null);
        let step = step(protocol, &json);
        let input = (body.len() as u64).div_ceil(4);
        let (reply, text) = tokens_reply(protocol, &step, sequence, input);
        if let Some(dump) = dump {
            let written = std::fs::write(dump.join(format!("{sequence:06}.json")), &body)
                .and_then(|()| std::fs::write(dump.join(format!("{sequence:06}.out")), &text));
            if let Err(error) = written {
                let _ = writeln!(
                    std::io::stderr(),
                    "cannot write to {}: {error}",
                    dump.display()
                );
                std::process::exit(1);
            }
        }
        let head = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\n\
             cache-control: no-cache\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
            reply.len()
        );
        let _ = stream
            .write_all(head.as_bytes())
            .and_then(|()| stream.write_all(&reply));
    }
}
