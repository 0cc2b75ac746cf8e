//! Compaction end to end: on the threshold, on each provider's overflow error, on demand.

use std::process::Output;

use pincer::output::report::{CompactPlan, CompactReport};
use pretty_assertions::assert_eq;
use serde_json::Value;

use super::reports::typed;

use crate::common::mock::{MockServer, Reply};
use crate::common::protocols;
use crate::common::wire::{anthropic, gemini, openai, openai_chat};
use crate::common::{Home, Pincer, code, stderr, stdout};

const SUMMARY: &str = "## Goal\nShip the parser.\n## Next Steps\nWrite tests.";

fn anthropic_text(answer: &str, input: u64) -> Reply {
    Reply::sse(&anthropic::text_stream(
        &[answer],
        anthropic::Usage4 {
            input,
            output: 20,
            cache_read: 0,
            cache_write: 0,
        },
    ))
}

/// Small windows and budgets so that short conversations compact.
const TIGHT: [&str; 4] = [
    "-c",
    "compaction.keep_recent_tokens=5",
    "-c",
    "compaction.reserve_tokens=500",
];

/// pincer with every provider at `server` and the [`TIGHT`] budget.
fn run(home: &Home, server: &MockServer, args: &[&str]) -> Output {
    home.pincer()
        .providers(server)
        .args(TIGHT)
        .args(args)
        .output()
}

/// The session file of a home that holds one.
fn session_file(home: &Home) -> std::path::PathBuf {
    std::fs::read_dir(home.sessions_dir())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .find(|path| {
            path.extension()
                .is_some_and(|extension| extension == "jsonl")
        })
        .unwrap()
}

fn session_lines(home: &Home) -> Vec<Value> {
    std::fs::read_to_string(session_file(home))
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

fn seed_session(home: &Home, server_replies: Vec<Reply>, model: &str) -> MockServer {
    let server = MockServer::start(server_replies);
    let output = run(
        home,
        &server,
        &[
            "run",
            "-m",
            model,
            "--name",
            "long",
            "first question about the parser",
        ],
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    server
}

/// A 3,000-token window for claude-sonnet-4-5.
const WINDOW: [&str; 2] = [
    "-c",
    "providers.anthropic.models.claude-sonnet-4-5.context_window=3000",
];

/// A session "long" seeded with one answer, then resumed in a [`WINDOW`]: the second answer
/// reports 2,900 tokens of context, which crosses the threshold, so pincer compacts with a
/// summary call. `mode` goes after the prompt; "Third answer." stays queued on the mock. Also
/// a recorded run of `schema.rs`.
pub(crate) fn threshold_compaction(home: &Home, mode: &[&str]) -> (Output, MockServer) {
    let server = seed_session(
        home,
        vec![
            anthropic_text("First answer.", 100),
            anthropic_text("Second answer.", 2_880),
            anthropic_text(SUMMARY, 50),
            anthropic_text("Third answer.", 200),
        ],
        "anthropic/claude-sonnet-4-5",
    );
    let mut args = WINDOW.to_vec();
    args.extend(["resume", "long", "second question"]);
    args.extend(mode);
    let output = run(home, &server, &args);
    (output, server)
}

#[test]
fn crossing_the_threshold_compacts_with_a_summary_call_and_the_next_turn_carries_it() {
    let home = Home::new();
    let (output, server) = threshold_compaction(&home, &["--output-format", "stream-json"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let events: Vec<Value> = stdout(&output)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let boundary = events
        .iter()
        .find(|event| event["subtype"] == "compact_boundary")
        .unwrap();
    assert_eq!(boundary["compact_metadata"]["trigger"], "auto");
    assert_eq!(boundary["compact_metadata"]["pre_tokens"], 2_900);
    let result = events.last().unwrap();
    assert_eq!(result["compactions"], 1);
    assert_eq!(result["result"], "Second answer.");

    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    let summary_request = requests[2].json().to_string();
    for section in [
        "Goal",
        "Constraints & Preferences",
        "Next Steps",
        "Critical Context",
    ] {
        assert!(summary_request.contains(section), "{section} missing");
    }
    assert!(summary_request.contains("first question about the parser"));
    assert!(
        requests[2].json()["tools"].is_null()
            || requests[2].json()["tools"] == serde_json::json!([])
    );

    let lines = session_lines(&home);
    let compaction = lines
        .iter()
        .find(|line| line["type"] == "compaction")
        .unwrap();
    assert!(
        compaction["summary"]
            .as_str()
            .unwrap()
            .starts_with("## Goal\nShip the parser.")
    );
    assert_eq!(compaction["tokensBefore"], 2_900);
    assert!(compaction["firstKeptEntryId"].as_str().is_some());

    // The next turn sends the summary plus what was kept.
    let mut args = WINDOW.to_vec();
    args.extend(["resume", "long", "third question"]);
    let output = run(&home, &server, &args);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let next = server.requests()[3].json();
    let first = next["messages"][0]["content"].to_string();
    assert!(
        first.contains("compacted into the following summary"),
        "{first}"
    );
    assert!(first.contains("Ship the parser."));
    assert!(
        !next.to_string().contains("first question about the parser"),
        "summarized away"
    );
    let status: Value =
        serde_json::from_str(&stdout(&run(&home, &server, &["status", "long", "--json"]))).unwrap();
    assert_eq!(status["compactions"], 1);
}

struct Overflow {
    model: &'static str,
    overflow: fn() -> Reply,
    text: fn(&str) -> Reply,
}

fn overflow_cases() -> Vec<(&'static str, Overflow)> {
    vec![
        (
            "anthropic",
            Overflow {
                model: "anthropic/claude-sonnet-4-5",
                overflow: || {
                    Reply::json(
                        400,
                        &anthropic::error_body(
                            "invalid_request_error",
                            "prompt is too long: 219898 tokens > 200000 maximum",
                        ),
                    )
                },
                text: |answer| anthropic_text(answer, 100),
            },
        ),
        (
            "openai",
            Overflow {
                model: "openai/gpt-5",
                overflow: || Reply::json(400, &openai::error_body(400)),
                text: |answer| {
                    Reply::sse(&openai::text_stream(
                        &[answer],
                        openai::Usage4 {
                            input_total: 100,
                            cached: 0,
                            output: 20,
                            reasoning: 0,
                        },
                    ))
                },
            },
        ),
        (
            "gemini",
            Overflow {
                model: "google/gemini-2.5-flash",
                overflow: || {
                    Reply::json(
                        400,
                        &gemini::error_body(
                            400,
                            "INVALID_ARGUMENT",
                            "The input token count (1196265) exceeds the maximum number of tokens allowed (1048575).",
                        ),
                    )
                },
                text: |answer| {
                    Reply::sse(&gemini::text_stream(
                        &[answer],
                        gemini::Usage4::new(100, 0, 20, 0),
                    ))
                },
            },
        ),
        (
            "llama.cpp",
            Overflow {
                model: "openai-chat/gpt-4o-mini",
                overflow: || Reply::json(400, &openai_chat::llamacpp_context_error_body()),
                text: |answer| {
                    Reply::sse(&openai_chat::text_stream(
                        &[answer],
                        openai_chat::Usage4 {
                            input_total: 100,
                            cached: 0,
                            output: 20,
                            reasoning: 0,
                        },
                    ))
                },
            },
        ),
    ]
}

#[test]
fn each_providers_overflow_error_leads_to_one_compaction_and_one_retry() {
    for (name, case) in overflow_cases() {
        let home = Home::new();
        let server = seed_session(
            &home,
            vec![
                (case.text)("First answer."),
                (case.overflow)(),
                (case.text)(SUMMARY),
                (case.text)("Recovered."),
            ],
            case.model,
        );
        let output = run(&home, &server, &["resume", "long", "--json", "and now?"]);
        assert_eq!(code(&output), 0, "{name}: {}", stderr(&output));
        let result: Value = serde_json::from_str(&stdout(&output)).unwrap();
        assert_eq!(result["result"], "Recovered.", "{name}");
        assert_eq!(result["compactions"], 1, "{name}");
        assert_eq!(server.requests().len(), 4, "{name}");
        let retried = server.requests()[3].json().to_string();
        assert!(
            retried.contains("Ship the parser."),
            "{name}: the retry carries the summary"
        );
    }
}

#[test]
fn a_second_overflow_exits_6_and_leaves_a_loadable_session() {
    let home = Home::new();
    let overflow = || {
        Reply::json(
            400,
            &anthropic::error_body(
                "invalid_request_error",
                "prompt is too long: 219898 tokens > 200000 maximum",
            ),
        )
    };
    let server = seed_session(
        &home,
        vec![
            anthropic_text("First answer.", 100),
            overflow(),
            anthropic_text(SUMMARY, 50),
            overflow(),
        ],
        "anthropic/claude-sonnet-4-5",
    );
    let output = run(&home, &server, &["resume", "long", "--json", "again"]);
    assert_eq!(code(&output), 6, "{}", stderr(&output));
    let result: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(result["error"]["kind"], "context_overflow");
    assert_eq!(server.requests().len(), 4);
    let status = run(&home, &server, &["status", "long", "--json"]);
    assert_eq!(code(&status), 0, "{}", stderr(&status));
    assert_eq!(code(&run(&home, &server, &["sessions", "show", "long"])), 0);
}

#[test]
fn pincer_compact_dry_run_changes_nothing_and_compact_appends_an_entry() {
    let home = Home::new();
    let server = seed_session(
        &home,
        vec![
            anthropic_text("First answer.", 100),
            anthropic_text("Second.", 120),
            anthropic_text(SUMMARY, 40),
        ],
        "anthropic/claude-sonnet-4-5",
    );
    assert_eq!(code(&run(&home, &server, &["resume", "long", "more"])), 0);
    let file = session_file(&home);
    let before = std::fs::read(&file).unwrap();
    let dry = run(&home, &server, &["compact", "long", "--dry-run", "--json"]);
    assert_eq!(code(&dry), 0, "{}", stderr(&dry));
    // One line through a pipe (#47 item 3): `>> plans.jsonl` works.
    assert_eq!(stdout(&dry).lines().count(), 1, "{}", stdout(&dry));
    let mut plan: CompactPlan = typed(&stdout(&dry));
    assert!(plan.would_compact);
    assert!(plan.tokens_before.unwrap() > 0);
    plan.session_id = "<id>".to_owned();
    plan.first_kept_entry_id = plan.first_kept_entry_id.map(|_| "<entry>".to_owned());
    insta::assert_snapshot!("compact_plan", serde_json::to_string_pretty(&plan).unwrap());
    assert_eq!(std::fs::read(&file).unwrap(), before);
    assert_eq!(server.requests().len(), 2);

    let output = run(
        &home,
        &server,
        &[
            "compact",
            "long",
            "--instructions",
            "focus on the parser",
            "--json",
        ],
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(stdout(&output).lines().count(), 1, "{}", stdout(&output));
    let mut report: CompactReport = typed(&stdout(&output));
    assert!(report.compacted);
    assert!(report.tokens_after.unwrap() < 2_000);
    report.session_id = "<id>".to_owned();
    report.first_kept_entry_id = report.first_kept_entry_id.map(|_| "<entry>".to_owned());
    insta::assert_snapshot!("compact", serde_json::to_string_pretty(&report).unwrap());
    assert!(
        server.requests()[2]
            .json()
            .to_string()
            .contains("focus on the parser")
    );
    let after = std::fs::read_to_string(&file).unwrap();
    assert!(
        after.as_bytes().starts_with(&before),
        "appended, never rewritten"
    );
    let last: Value = serde_json::from_str(after.lines().last().unwrap()).unwrap();
    assert_eq!(last["type"], "compaction");
}

#[test]
fn pincer_compact_with_a_cli_backend_is_refused_with_what_to_do_and_changes_nothing() {
    let home = Home::new();
    let server = seed_session(
        &home,
        vec![anthropic_text("First answer.", 100)],
        "anthropic/claude-sonnet-4-5",
    );
    let file = session_file(&home);
    let before = std::fs::read(&file).unwrap();
    let output = run(
        &home,
        &server,
        &["compact", "long", "-m", "claude-cli/sonnet"],
    );
    assert_eq!(code(&output), 2, "{}", stderr(&output));
    let text = stderr(&output);
    assert!(
        text.contains(
            "error: cannot compact with the claude-cli backend: its CLI compacts its own session"
        ),
        "{text}"
    );
    assert!(text.contains("hint: pass -m with an API model"), "{text}");
    assert!(!text.contains("not available yet"), "{text}");
    assert_eq!(std::fs::read(&file).unwrap(), before);
    assert_eq!(server.requests().len(), 1);
}

/// A session whose first turn read a 30,000-character log (7,500 tokens by pincer's measure:
/// above 30 % of a window of 20,000), followed by four short turns; its path and the log.
fn session_with_an_old_log(home: &Home) -> (std::path::PathBuf, String) {
    use crate::common::SessionBuilder;
    use serde_json::json;
    let mut session = SessionBuilder::new("019ad3c1-0000-7000-8000-00000000beef", &home.workspace);
    session.entry(
        "model_change",
        json!({"provider": "anthropic", "modelId": "claude-sonnet-4-5"}),
    );
    session.user("read the log");
    session.entry("message", json!({"message": {
        "role": "assistant",
        "content": [{"type": "toolCall", "id": "toolu_log", "name": "read", "arguments": {"path": "big.log"}}],
        "api": "anthropic-messages", "provider": "anthropic", "model": "claude-sonnet-4-5",
        "usage": {"input": 100, "output": 10, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 110,
                  "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
        "stopReason": "toolUse", "timestamp": 1
    }}));
    // 7,500 tokens by pincer's measure (characters / 4 of the messages as they are in the
    // session, never the usage a call reported): above 30 % of the window of 20,000.
    let huge = format!("HEAD-MARKER{}TAIL-MARKER", "x".repeat(30_000));
    session.entry(
        "message",
        json!({"message": {
            "role": "toolResult", "toolCallId": "toolu_log", "toolName": "read",
            "content": [{"type": "text", "text": huge}], "isError": false, "timestamp": 2
        }}),
    );
    for turn in 0..4 {
        session.user(&format!("question {turn}"));
        session.assistant(&format!("answer {turn}"), [7_000, 50, 0, 0]);
    }
    (home.write_session(&session), huge)
}

/// Resume the session of [`session_with_an_old_log`] with a window of 20,000 and compaction off.
fn resume_with_a_small_window(home: &Home, server: &MockServer) -> Output {
    home.pincer()
        .providers(server)
        .args([
            "-c",
            "providers.anthropic.models.claude-sonnet-4-5.context_window=20000",
            "-c",
            "compaction.enabled=false",
            "resume",
            "019ad3c1",
            "next",
        ])
        .output()
}

#[test]
fn an_old_oversized_tool_result_is_trimmed_in_the_request_but_not_in_the_session() {
    let home = Home::new();
    let (path, huge) = session_with_an_old_log(&home);
    let before = std::fs::read(&path).unwrap();
    let server = MockServer::start(vec![anthropic_text("fine", 100)]);
    let output = resume_with_a_small_window(&home, &server);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let sent = server.requests()[0].json().to_string();
    assert!(
        sent.contains("HEAD-MARKER") && sent.contains("TAIL-MARKER"),
        "head and tail kept"
    );
    assert!(
        !sent.contains(&"x".repeat(4_000)),
        "the middle is cut from the request"
    );
    let after = std::fs::read(&path).unwrap();
    assert!(
        after.starts_with(&before),
        "the session keeps the full result"
    );
    assert!(String::from_utf8_lossy(&after).contains(&huge));
}

/// Every request of a run starts with the whole previous request: the pruning decision is
/// made from the session's messages, not from the usage the last call reported (which is the
/// pruned size, and made the next request go out unpruned, writing the cache again).
#[test]
fn each_request_of_a_pruned_session_extends_the_previous_one() {
    let home = Home::new();
    session_with_an_old_log(&home);
    let small = anthropic::Usage4 {
        input: 100,
        output: 10,
        cache_read: 0,
        cache_write: 0,
    };
    let server = MockServer::start(vec![
        Reply::sse(&anthropic::tool_use_stream(
            None,
            &[("toolu_ls", "ls", "{}")],
            small,
        )),
        anthropic_text("fine", 100),
    ]);
    let output = resume_with_a_small_window(&home, &server);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let requests = server.requests();
    // The breakpoints (`cache_control`) move to the newest turns on every request by design;
    // what must not change is the content before them.
    fn without_breakpoints(value: &mut Value) {
        match value {
            Value::Object(map) => {
                map.remove("cache_control");
                map.values_mut().for_each(without_breakpoints);
            }
            Value::Array(items) => items.iter_mut().for_each(without_breakpoints),
            _ => {}
        }
    }
    let messages = |index: usize| {
        let mut messages = requests[index].json()["messages"].clone();
        without_breakpoints(&mut messages);
        messages.as_array().unwrap().clone()
    };
    let (first, second) = (messages(0), messages(1));
    assert!(
        !first.last().unwrap().to_string().contains("TAIL-MARKER")
            && first
                .iter()
                .any(|message| message.to_string().contains("[Old tool result")),
        "the first request is pruned"
    );
    assert_eq!(
        second[..first.len()],
        first[..],
        "the second request rewrote the prefix"
    );
}

#[test]
fn a_tool_loop_that_crosses_the_threshold_compacts_before_its_next_request() {
    let home = Home::new();
    std::fs::write(home.workspace.join("notes.txt"), "alpha\n").unwrap();
    let server = seed_session(
        &home,
        vec![
            anthropic_text("First answer.", 100),
            Reply::sse(&anthropic::tool_use_stream(
                None,
                &[("toolu_big", "read", "{\"path\":\"notes.txt\"}")],
                anthropic::Usage4 {
                    input: 2_880,
                    output: 20,
                    cache_read: 0,
                    cache_write: 0,
                },
            )),
            anthropic_text(SUMMARY, 50),
            anthropic_text("Done after compaction.", 300),
        ],
        "anthropic/claude-sonnet-4-5",
    );
    let output = run(
        &home,
        &server,
        &[
            "-c",
            "providers.anthropic.models.claude-sonnet-4-5.context_window=3000",
            "resume",
            "long",
            "--json",
            "read the notes",
        ],
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let result: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(result["result"], "Done after compaction.");
    assert_eq!(result["compactions"], 1);
    let requests = server.requests();
    assert_eq!(requests.len(), 4);
    assert!(
        requests[2].json().to_string().contains("Goal"),
        "the third request is the summary call"
    );
    let last = requests[3].json();
    assert!(
        last["messages"][0]["content"]
            .to_string()
            .contains("Ship the parser.")
    );
    let sent = last.to_string();
    assert!(
        sent.contains("toolu_big"),
        "the tool call and its result stay together after the cut"
    );
    assert!(sent.contains("alpha"));
}

// ----- small windows with default settings (SPEC §7) -----

/// The session index database, where windows learned from overflow errors are remembered,
/// per model.
const INDEX_DB: &str = "index.sqlite3";

fn llama_text(answer: &str, input: u64) -> Reply {
    Reply::sse(&openai_chat::text_stream(
        &[answer],
        openai_chat::Usage4 {
            input_total: input,
            cached: 0,
            output: 20,
            reasoning: 0,
        },
    ))
}

/// `count` sentences of ordinary prose, about 50 characters each.
fn prose(topic: &str, count: usize) -> String {
    (0..count)
        .map(|index| format!("Sentence {index} about {topic} keeps the context busy. "))
        .collect()
}

/// `resume small PROMPT` in stream-json: its events, and the trigger of its compaction if any.
fn resume_small(home: &Home, server: &MockServer, prompt: &str) -> (Vec<Value>, Value) {
    let output = home
        .pincer()
        .providers(server)
        .args(["resume", "small", "--output-format", "stream-json", prompt])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let events: Vec<Value> = stdout(&output)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let trigger = events
        .iter()
        .find(|event| event["subtype"] == "compact_boundary")
        .map_or(Value::Null, |event| {
            event["compact_metadata"]["trigger"].clone()
        });
    (events, trigger)
}

/// The learned windows as `{"windows": {"provider/model": tokens}}`.
fn learned_windows(home: &Home) -> Value {
    let mut windows = serde_json::Map::new();
    if let Ok(connection) = rusqlite::Connection::open(home.sessions_dir().join(INDEX_DB))
        && let Ok(mut statement) = connection.prepare("SELECT model, tokens FROM learned_windows")
    {
        let rows = statement
            .query_map([], |row| {
                Ok((row.get::<_, String>(0)?, row.get::<_, i64>(1)?))
            })
            .unwrap();
        for (model, tokens) in rows.flatten() {
            windows.insert(model, Value::from(tokens));
        }
    }
    serde_json::json!({ "windows": windows })
}

/// Defaults only (no TIGHT budget): a first turn of about 1,000 estimated tokens.
fn seed_with_defaults(home: &Home, server: &MockServer, model: &str) {
    let output = home
        .pincer()
        .providers(server)
        .args([
            "run",
            "-m",
            model,
            "--name",
            "small",
            &prose("the parser", 40),
        ])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
}

#[test]
fn a_llama_cpp_overflow_compacts_with_default_settings_and_the_window_is_remembered() {
    let home = Home::new();
    let model = "openai-chat/qwen3-0.6b";
    let server = MockServer::start(vec![
        llama_text(&prose("the answer", 40), 300),
        Reply::json(400, &openai_chat::llamacpp_context_error_body()),
        llama_text(SUMMARY, 60),
        llama_text("Recovered.", 200),
        // The next run knows the 512-token window: 430 tokens of context cross 512 − 128.
        llama_text("Second answer.", 430),
        llama_text(SUMMARY, 60),
    ]);
    seed_with_defaults(&home, &server, model);
    let (events, trigger) = resume_small(&home, &server, "and now?");
    assert_eq!(trigger, "overflow", "{events:?}");
    let result = events.last().unwrap();
    assert_eq!(result["result"], "Recovered.");
    assert_eq!(result["compactions"], 1);
    assert_eq!(result["context"]["window"], 512, "{result}");
    let requests = server.requests();
    assert_eq!(requests.len(), 4);
    assert!(
        requests[2].json().to_string().contains("Critical Context"),
        "the third request is the summary call"
    );
    assert!(requests[3].json().to_string().contains("Ship the parser."));
    assert_eq!(learned_windows(&home)["windows"][model], 512);

    // The next run of that model compacts on its own once it passes 512 − 25 %: the kept 25 %
    // (128 tokens) is the new prompt, the rest is summarized.
    let (events, trigger) = resume_small(&home, &server, &prose("the follow-up", 12));
    assert_eq!(trigger, "auto", "{events:?}");
    assert_eq!(events.last().unwrap()["result"], "Second answer.");
    assert_eq!(server.requests().len(), 6);
}

#[test]
fn a_configured_4k_window_compacts_at_142_percent_with_default_settings() {
    let home = Home::new();
    let model = "openai-chat/qwen3-4k";
    let window = "providers.openai-chat.models.qwen3-4k.context_window=4096";
    let server = MockServer::start(vec![
        llama_text("First answer.", 900),
        // 5,800 tokens: 142 % of the window.
        llama_text("Second answer.", 5_800),
        llama_text(SUMMARY, 60),
    ]);
    let output = home
        .pincer()
        .providers(&server)
        .args(["-c", window, "run", "-m", model, "--name", "small", "first"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let output = home
        .pincer()
        .providers(&server)
        .args([
            "-c",
            window,
            "resume",
            "small",
            "--json",
            &prose("the second question", 120),
        ])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let result: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(result["compactions"], 1, "{result}");
    assert_eq!(result["context"]["window"], 4096);
    assert_eq!(server.requests().len(), 3);
    let compaction = session_lines(&home)
        .into_iter()
        .find(|line| line["type"] == "compaction")
        .unwrap();
    assert_eq!(compaction["tokensBefore"], 5_820);
}

#[test]
fn a_gemini_overflow_compacts_even_when_the_estimate_fits_and_teaches_the_window() {
    let home = Home::new();
    let model = "google/gemma-3-27b-it";
    let gemini_text = |answer: &str| {
        Reply::sse(&gemini::text_stream(
            &[answer],
            gemini::Usage4::new(100, 0, 20, 0),
        ))
    };
    let server = MockServer::start(vec![
        gemini_text("First answer."),
        Reply::json(
            400,
            &gemini::error_body(
                400,
                "INVALID_ARGUMENT",
                "The input token count (140000) exceeds the maximum number of tokens allowed (131072).",
            ),
        ),
        gemini_text(SUMMARY),
        gemini_text("Recovered."),
    ]);
    seed_with_defaults(&home, &server, model);
    let output = home
        .pincer()
        .providers(&server)
        .args(["resume", "small", "--json", "and now?"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let result: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(result["result"], "Recovered.");
    assert_eq!(result["compactions"], 1);
    assert_eq!(result["context"]["window"], 131_072);
    let requests = server.requests();
    assert_eq!(requests.len(), 4);
    // The retry keeps the current turn and carries the summary of the one before.
    let retried = requests[3].json().to_string();
    assert!(retried.contains("Ship the parser."));
    assert!(retried.contains("and now?"));
    assert!(!retried.contains("Sentence 39 about the parser"));
    assert_eq!(learned_windows(&home)["windows"][model], 131_072);
}

#[test]
fn a_prompt_too_big_for_a_tiny_window_ends_with_exit_6_after_one_compaction() {
    let home = Home::new();
    let model = "openai-chat/qwen3-0.6b";
    let overflow = || Reply::json(400, &openai_chat::llamacpp_context_error_body());
    let server = MockServer::start(vec![
        llama_text("First answer.", 300),
        overflow(),
        llama_text(SUMMARY, 60),
        overflow(),
    ]);
    seed_with_defaults(&home, &server, model);
    let output = home
        .pincer()
        .providers(&server)
        .args(["resume", "small", "--json", &prose("a huge request", 200)])
        .output();
    assert_eq!(code(&output), 6, "{}", stderr(&output));
    let result: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(result["error"]["kind"], "context_overflow");
    assert_eq!(result["compactions"], 1);
    assert_eq!(server.requests().len(), 4);
    home.pincer()
        .providers(&server)
        .args(["sessions", "show", "small"])
        .success();

    // A first turn has nothing to compact: one request, exit 6 at once, no summary call.
    let home = Home::new();
    let server = MockServer::start(vec![overflow(), llama_text(SUMMARY, 60)]);
    let output = home
        .pincer()
        .providers(&server)
        .args(["run", "-m", model, "--json", &prose("a huge request", 200)])
        .output();
    assert_eq!(code(&output), 6, "{}", stderr(&output));
    assert_eq!(server.requests().len(), 1);
}

// ------------------------------------------------- a failed summary: `pincer compact` changes nothing

/// A session named `long` of two turns on `protocol`, then `failures` as the next replies.
fn two_turns_then(
    home: &Home,
    protocol: &protocols::Protocol,
    failures: Vec<Reply>,
) -> (MockServer, std::path::PathBuf) {
    let mut replies = vec![
        Reply::sse(&(protocol.text)(&["First answer."])),
        Reply::sse(&(protocol.text)(&["Second answer."])),
    ];
    replies.extend(failures);
    let server = MockServer::start(replies);
    let turns: [&[&str]; 2] = [
        &[
            "run",
            "-m",
            protocol.model,
            "--name",
            "long",
            "first question",
        ],
        &["resume", "long", "second question"],
    ];
    for args in turns {
        let output = failing_compact_command(home, protocol, &server)
            .args(args)
            .output();
        assert_eq!(code(&output), 0, "{}: {}", protocol.name, stderr(&output));
    }
    (server, session_file(home))
}

/// `protocol`'s pincer with a tight compaction budget and two fast retries.
fn failing_compact_command(
    home: &Home,
    protocol: &protocols::Protocol,
    server: &MockServer,
) -> Pincer {
    home.pincer()
        .provider(protocol, server)
        .fast_retries()
        .args(TIGHT)
        .args(["-c", "retry.max_retries=2"])
}

/// The provider's answer to a revoked key.
fn unauthorized(protocol: &protocols::Protocol) -> Reply {
    Reply::json(401, &(protocol.error_body)(401))
}

#[test]
fn pincer_compact_whose_summary_is_refused_exits_3_and_leaves_the_session_byte_for_byte() {
    for protocol in [
        protocols::anthropic(),
        protocols::openai(),
        protocols::gemini(),
    ] {
        let home = Home::new();
        let (server, file) = two_turns_then(&home, &protocol, vec![unauthorized(&protocol)]);
        let before = std::fs::read(&file).unwrap();
        let output = failing_compact_command(&home, &protocol, &server)
            .args(["compact", "long", "--json"])
            .output();
        let name = protocol.name;
        assert_eq!(code(&output), 3, "{name}: {}", stderr(&output));
        assert_eq!(
            std::fs::read(&file).unwrap(),
            before,
            "{name}: file changed"
        );
        // One summary call: a rejected key is not retried.
        assert_eq!(server.requests().len(), 3, "{name}");
        let result: Value = serde_json::from_str(&stdout(&output)).unwrap();
        assert_eq!(result["type"], "result", "{name}");
        assert_eq!(result["is_error"], true, "{name}");
        assert_eq!(result["subtype"], "error_during_execution", "{name}");
        assert_eq!(result["error"]["kind"], "auth", "{name}");
        assert_eq!(result["error"]["status"], 401, "{name}");
        assert_eq!(result["session_name"], "long", "{name}");
        assert!(result["session_id"].is_string(), "{name}");
        let err = stderr(&output);
        assert!(
            err.contains("error: the summary call failed"),
            "{name}: {err}"
        );
        assert!(err.contains("not changed"), "{name}: {err}");
        assert!(err.contains("hint: "), "{name}: {err}");
        assert!(!err.contains("fallback"), "{name}: {err}");
    }
}

#[test]
fn pincer_compact_during_an_outage_exits_4_after_its_retries_and_changes_nothing() {
    for protocol in [protocols::anthropic(), protocols::openai_chat()] {
        let home = Home::new();
        let overloaded = Reply::json(529, &(protocol.error_body)(529));
        let mut replies = vec![overloaded; 3];
        // The provider is back for the next resume.
        replies.push(Reply::sse(&(protocol.text)(&["Third answer."])));
        let (server, file) = two_turns_then(&home, &protocol, replies);
        let before = std::fs::read(&file).unwrap();
        let output = failing_compact_command(&home, &protocol, &server)
            .args(["compact", "long"])
            .output();
        let name = protocol.name;
        assert_eq!(code(&output), 4, "{name}: {}", stderr(&output));
        assert_eq!(
            stdout(&output),
            "",
            "{name}: text mode prints nothing on failure"
        );
        assert_eq!(
            std::fs::read(&file).unwrap(),
            before,
            "{name}: file changed"
        );
        // The first attempt and max_retries=2 retries.
        assert_eq!(server.requests().len(), 2 + 3, "{name}");
        let err = stderr(&output);
        assert!(
            err.contains("error: the summary call failed"),
            "{name}: {err}"
        );
        assert!(err.contains("again later"), "{name}: {err}");

        // The next resume still sends the whole conversation (it used to be run without a
        // scripted answer and its exit ignored; now it must succeed).
        let output = failing_compact_command(&home, &protocol, &server)
            .args(["resume", "long", "third question"])
            .output();
        assert_eq!(code(&output), 0, "{name}: {}", stderr(&output));
        assert_eq!(stdout(&output), "Third answer.\n", "{name}");
        let requests = server.requests();
        assert_eq!(requests.len(), 2 + 3 + 1, "{name}");
        let last = requests.last().unwrap().json().to_string();
        assert!(last.contains("first question"), "{name}: {last}");
    }
}

#[test]
fn a_run_whose_summary_call_fails_still_cuts_the_history_with_the_fallback_summary() {
    let home = Home::new();
    let server = seed_session(
        &home,
        vec![
            anthropic_text("First answer.", 100),
            anthropic_text("Second answer.", 2_880),
            Reply::json(
                529,
                &anthropic::error_body("overloaded_error", "Overloaded"),
            ),
        ],
        "anthropic/claude-sonnet-4-5",
    );
    let output = run(
        &home,
        &server,
        &[
            "-c",
            "providers.anthropic.models.claude-sonnet-4-5.context_window=3000",
            "resume",
            "long",
            "--json",
            "second question",
        ],
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let result: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(result["compactions"], 1);
    let lines = session_lines(&home);
    let compaction = lines
        .iter()
        .find(|line| line["type"] == "compaction")
        .expect("the run compacted");
    assert!(
        compaction["summary"]
            .as_str()
            .unwrap()
            .starts_with("No summary is available"),
        "{compaction}"
    );
}
