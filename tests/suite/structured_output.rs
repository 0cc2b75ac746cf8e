//! Structured output (SPEC §3.4): `--json-schema` / `--output-schema` on every protocol against
//! the mock server (the request carries the API's own field, as recorded in
//! `tests/fixtures/<protocol>/structured_output.request.json`; answers are validated, an invalid
//! one is sent back with the errors, always-invalid ends in
//! `error_max_structured_output_retries`), the final-answer tool of a local Chat Completions
//! server, and both CLI backends with the fakes.

use std::path::Path;
use std::process::Output;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use super::backends::{Bench, after, argv};
use crate::common::mock::{MockServer, Recorded, Reply};
use crate::common::protocols::{self, Protocol, offered_tools};
use crate::common::{Home, code, stderr, stdout};

/// The schema every scenario asks for: a required enum, an optional bounded integer.
fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "verdict": {"type": "string", "enum": ["approve", "request_changes"]},
            "score": {"type": "integer", "minimum": 0, "maximum": 10}
        },
        "required": ["verdict"]
    })
}

/// The arguments of a turn whose model can only answer.
const NO_TOOLS: &[&str] = &["--tools", "", "review the diff"];

const VALID: &str = r#"{"verdict":"approve","score":9}"#;
const INVALID: &str = r#"{"verdict":"maybe","score":11}"#;

/// What `tests/fixtures/<protocol>/structured_output.request.json` says the request carries.
struct Expectation {
    /// JSON pointer → value in the request body.
    expect: Vec<(String, Value)>,
    /// Whether the API takes its JSON mode beside function declarations.
    beside_tools: bool,
}

fn expectation(protocol: &Protocol) -> Expectation {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(protocol.fixtures)
        .join("structured_output.request.json");
    let fixture: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(fixture["json_schema"], schema(), "{}", protocol.name);
    Expectation {
        expect: fixture["expect"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(pointer, value)| (pointer.clone(), value.clone()))
            .collect(),
        beside_tools: fixture["beside_tools"].as_bool().unwrap(),
    }
}

fn assert_native_field(protocol: &Protocol, request: &Recorded, present: bool) {
    let body = request.json();
    for (pointer, value) in expectation(protocol).expect {
        if present {
            assert_eq!(
                body.pointer(&pointer),
                Some(&value),
                "{} {pointer}",
                protocol.name
            );
        } else {
            assert_eq!(body.pointer(&pointer), None, "{} {pointer}", protocol.name);
        }
    }
}

/// `pincer run --json -m MODEL --json-schema SCHEMA ARGS…` against the mock as `protocol`.
fn run(home: &Home, protocol: &Protocol, server: &MockServer, args: &[&str]) -> Output {
    home.pincer()
        .provider(protocol, server)
        .args(["run", "--json", "-m", protocol.model])
        .args(["--json-schema", &schema().to_string()])
        .args(args)
        .output()
}

fn result(output: &Output) -> Value {
    // The result object is public API: it parses with the schema's strict types too.
    crate::common::schema::result_of(output);
    serde_json::from_str(&stdout(output))
        .unwrap_or_else(|error| panic!("{error}: {}", stdout(output)))
}

fn session_entries(home: &Home) -> Vec<Value> {
    let files = crate::common::integrity::session_files(&home.sessions_dir());
    assert_eq!(files.len(), 1, "{files:?}");
    crate::common::integrity::check_session(&files[0], false).entries
}

fn structured_records(entries: &[Value]) -> Vec<Value> {
    entries
        .iter()
        .filter(|entry| {
            entry["type"] == "custom" && entry["customType"] == "pincer.structured_output"
        })
        .map(|entry| entry["data"].clone())
        .collect()
}

fn roles(entries: &[Value]) -> Vec<String> {
    entries
        .iter()
        .filter(|entry| entry["type"] == "message")
        .map(|entry| entry["message"]["role"].as_str().unwrap().to_owned())
        .collect()
}

pub fn a_valid_answer_lands_in_structured_output_and_the_request_carries_the_native_field(
    protocol: &Protocol,
) {
    let home = Home::new();
    let server = MockServer::start(vec![Reply::sse(&(protocol.text)(&[VALID]))]);
    let output = run(&home, protocol, &server, NO_TOOLS);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let result = result(&output);
    assert_eq!(result["subtype"], "success");
    assert_eq!(
        result["structured_output"],
        json!({"verdict": "approve", "score": 9})
    );
    assert_eq!(result["result"], VALID);
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert_native_field(protocol, &requests[0], true);

    // The answer stays the assistant message it was; the schema's use is recorded beside it.
    let entries = session_entries(&home);
    assert_eq!(roles(&entries), ["user", "assistant"]);
    let answer = entries
        .iter()
        .rfind(|entry| entry["type"] == "message")
        .unwrap();
    assert_eq!(answer["message"]["content"][0]["text"], VALID);
    let records = structured_records(&entries);
    assert_eq!(records.len(), 1);
    assert_eq!(records[0]["valid"], true);
    assert_eq!(records[0]["attempts"], 1);
    assert_eq!(records[0]["schema"], schema());
    assert_eq!(records[0]["origin"], "--json-schema");
}

pub fn an_invalid_answer_is_sent_back_with_its_errors_once_then_the_valid_one_counts(
    protocol: &Protocol,
) {
    let home = Home::new();
    let server = MockServer::start(vec![
        Reply::sse(&(protocol.text)(&[INVALID])),
        Reply::sse(&(protocol.text)(&[VALID])),
    ]);
    let output = run(&home, protocol, &server, NO_TOOLS);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let result = result(&output);
    assert_eq!(
        result["structured_output"],
        json!({"verdict": "approve", "score": 9})
    );
    assert_eq!(result["num_turns"], 2);
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let second = String::from_utf8_lossy(&requests[1].body).into_owned();
    for needle in [
        "Your answer does not match the JSON Schema it must follow",
        r#"/verdict: \"maybe\" is not one of"#,
        "/score: 11 is greater than the maximum of 10",
    ] {
        assert!(
            second.contains(needle),
            "{} lacks {needle}: {second}",
            protocol.name
        );
    }
    assert_native_field(protocol, &requests[1], true);
    let entries = session_entries(&home);
    assert_eq!(roles(&entries), ["user", "assistant", "user", "assistant"]);
    assert_eq!(structured_records(&entries)[0]["attempts"], 2);
}

pub fn an_answer_that_never_matches_ends_with_the_retries_subtype_and_exit_1(protocol: &Protocol) {
    let home = Home::new();
    let invalid = Reply::sse(&(protocol.text)(&[INVALID]));
    let server = MockServer::start(vec![invalid.clone(), invalid.clone(), invalid]);
    let output = run(&home, protocol, &server, NO_TOOLS);
    assert_eq!(code(&output), 1, "{}", stderr(&output));
    let result = result(&output);
    assert_eq!(result["subtype"], "error_max_structured_output_retries");
    assert_eq!(result["is_error"], true);
    assert_eq!(result["result"], INVALID);
    assert_eq!(result["structured_output"], Value::Null);
    assert_eq!(result["error"]["kind"], "structured_output");
    let message = result["error"]["message"].as_str().unwrap();
    assert!(
        message
            .starts_with("the answer did not match --json-schema, also when asked 2 more times: "),
        "{message}"
    );
    assert!(
        message.contains("/score: 11 is greater than the maximum of 10"),
        "{message}"
    );
    // max_retries = 2: the first answer and two more.
    assert_eq!(server.requests().len(), 3);
    let records = structured_records(&session_entries(&home));
    assert_eq!(records[0]["valid"], false);
    assert_eq!(records[0]["attempts"], 3);
    assert!(stderr(&output).contains("error: the answer did not match --json-schema"));
}

pub fn a_tool_call_before_the_answer_still_runs_and_only_the_answer_is_held_to_the_schema(
    protocol: &Protocol,
) {
    let home = Home::new();
    std::fs::write(home.workspace.join("notes.txt"), "score: 9\n").unwrap();
    let call = (protocol.tool_call)("call_read_1", "read", &json!({"path": "notes.txt"}));
    let server = MockServer::start(vec![
        Reply::sse(&call),
        Reply::sse(&(protocol.text)(&[VALID])),
    ]);
    let output = run(&home, protocol, &server, &["review notes.txt"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(
        result(&output)["structured_output"],
        json!({"verdict": "approve", "score": 9})
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert!(offered_tools(&requests[0].json()).contains(&"read".to_owned()));
    // The API's mode rides along with the tools where it can (Gemini 2.5 cannot: its answer is
    // validated, and asked again under the schema without tools only if it is invalid).
    let beside_tools = expectation(protocol).beside_tools;
    assert_native_field(protocol, &requests[0], beside_tools);
    let stored_id = (protocol.stored_call_id)("call_read_1");
    let sent = (protocol.tool_result)(&requests[1].json(), &stored_id).unwrap();
    assert!(sent.contains("score: 9"), "{sent}");
}

macro_rules! structured_tests {
    ($module:ident, $protocol:expr) => {
        mod $module {
            use super::*;
            #[test]
            fn a_valid_answer_lands_in_structured_output_and_the_request_carries_the_native_field() {
                super::a_valid_answer_lands_in_structured_output_and_the_request_carries_the_native_field(&$protocol);
            }
            #[test]
            fn an_invalid_answer_is_sent_back_with_its_errors_once_then_the_valid_one_counts() {
                super::an_invalid_answer_is_sent_back_with_its_errors_once_then_the_valid_one_counts(&$protocol);
            }
            #[test]
            fn an_answer_that_never_matches_ends_with_the_retries_subtype_and_exit_1() {
                super::an_answer_that_never_matches_ends_with_the_retries_subtype_and_exit_1(&$protocol);
            }
            #[test]
            fn a_tool_call_before_the_answer_still_runs_and_only_the_answer_is_held_to_the_schema() {
                super::a_tool_call_before_the_answer_still_runs_and_only_the_answer_is_held_to_the_schema(&$protocol);
            }
        }
    };
}

structured_tests!(anthropic, protocols::anthropic());
structured_tests!(openai, protocols::openai());
structured_tests!(openai_chat, protocols::openai_chat());
structured_tests!(gemini, protocols::gemini());

#[test]
fn gemini_2_5_asks_again_under_the_schema_without_tools_after_an_invalid_answer() {
    let protocol = protocols::gemini();
    let home = Home::new();
    let server = MockServer::start(vec![
        Reply::sse(&(protocol.text)(&["The change looks fine."])),
        Reply::sse(&(protocol.text)(&[VALID])),
    ]);
    let output = run(&home, &protocol, &server, &["review the diff"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let requests = server.requests();
    assert!(!offered_tools(&requests[0].json()).is_empty());
    assert_native_field(&protocol, &requests[0], false);
    // The system prompt carries the schema when the API cannot.
    let system = requests[0].json()["systemInstruction"].to_string();
    assert!(system.contains("request_changes"), "{system}");
    assert!(offered_tools(&requests[1].json()).is_empty());
    assert_native_field(&protocol, &requests[1], true);
}

#[test]
fn text_mode_prints_the_value_as_one_line_of_compact_json_and_o_writes_it() {
    let protocol = protocols::openai();
    let home = Home::new();
    let pretty = "{\n  \"verdict\": \"approve\",\n  \"score\": 9\n}";
    let server = MockServer::start(vec![Reply::sse(&(protocol.text)(&[pretty]))]);
    let last = home.root.path().join("last.json");
    let output = home
        .pincer()
        .provider(&protocol, &server)
        .args(["run", "-m", protocol.model, "--tools", ""])
        .arg("-o")
        .arg(&last)
        .args(["--json-schema", &schema().to_string(), "review the diff"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(stdout(&output), format!("{VALID}\n"));
    assert_eq!(std::fs::read_to_string(&last).unwrap(), VALID);
}

#[test]
fn stream_json_shows_the_retry_and_carries_the_value_in_its_result_line() {
    let protocol = protocols::anthropic();
    let home = Home::new();
    let server = MockServer::start(vec![
        Reply::sse(&(protocol.text)(&["not json"])),
        Reply::sse(&(protocol.text)(&[VALID])),
    ]);
    let output = home
        .pincer()
        .provider(&protocol, &server)
        .args([
            "--output-format",
            "stream-json",
            "run",
            "-m",
            protocol.model,
            "--tools",
            "",
        ])
        .args(["--json-schema", &schema().to_string(), "review the diff"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    // Every line, the retry's included, parses with the schema's strict types.
    crate::common::schema::printed(&stdout(&output)).unwrap();
    let lines: Vec<Value> = stdout(&output)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let retry = lines
        .iter()
        .find(|line| line["subtype"] == "structured_output_retry")
        .unwrap();
    assert_eq!(retry["attempt"], 1);
    assert_eq!(retry["max_retries"], 2);
    let error = retry["errors"][0].as_str().unwrap();
    assert!(
        error.starts_with("(root): the answer is not JSON ("),
        "{error}"
    );
    let last = lines.last().unwrap();
    assert_eq!(last["type"], "result");
    assert_eq!(
        last["structured_output"],
        json!({"verdict": "approve", "score": 9})
    );
}

#[test]
fn output_schema_reads_the_file_and_a_bad_schema_is_exit_2_before_any_request() {
    let protocol = protocols::anthropic();
    let home = Home::new();
    let file = home.workspace.join("review.schema.json");
    std::fs::write(&file, schema().to_string()).unwrap();
    let server = MockServer::start(vec![Reply::sse(&(protocol.text)(&[VALID]))]);
    let output = home
        .pincer()
        .provider(&protocol, &server)
        .args(["run", "--json", "-m", protocol.model, "--tools", ""])
        .args(["--output-schema", "review.schema.json", "review"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(result(&output)["structured_output"]["verdict"], "approve");

    let bad = [
        (
            r#"{"type": "strng"}"#,
            "--json-schema is not a valid JSON Schema: /type: ",
        ),
        ("{type: object}", "--json-schema is not JSON: "),
        (
            "@missing.json",
            "cannot read the JSON Schema file 'missing.json': ",
        ),
    ];
    for (argument, message) in bad {
        let output = home
            .pincer()
            .provider(&protocol, &server)
            .args(["run", "--json", "-m", protocol.model])
            .args(["--json-schema", argument, "review"])
            .output();
        assert_eq!(code(&output), 2, "{argument}: {}", stderr(&output));
        let error = result(&output)["error"]["message"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(error.starts_with(message), "{argument}: {error}");
        assert!(stderr(&output).contains("hint: "), "{}", stderr(&output));
        assert!(!stderr(&output).contains("not available yet"));
    }
    // Only the first run reached the mock.
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn a_local_chat_completions_server_gets_the_final_answer_tool_and_its_input_is_the_answer() {
    let chat = protocols::openai_chat();
    let home = Home::new();
    let server = MockServer::start(vec![
        Reply::sse(&(chat.tool_call)(
            "call_1",
            "structured_output",
            &json!({"verdict": "maybe"}),
        )),
        Reply::sse(&(chat.tool_call)(
            "call_2",
            "structured_output",
            &json!({"verdict": "approve", "score": null}),
        )),
    ]);
    let output = home
        .pincer()
        .env("OLLAMA_HOST", server.url())
        .args(["run", "--json", "-m", "ollama/qwen3"])
        .args(["--json-schema", &schema().to_string(), "review the diff"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let result = result(&output);
    // An optional property answered null counts as left out.
    assert_eq!(result["structured_output"], json!({"verdict": "approve"}));
    assert_eq!(result["result"], r#"{"verdict":"approve"}"#);
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let first = requests[0].json();
    assert_eq!(first.get("response_format"), None);
    let tools = first["tools"].as_array().unwrap();
    let answer_tool = tools
        .iter()
        .find(|tool| tool["function"]["name"] == "structured_output")
        .unwrap();
    assert_eq!(answer_tool["function"]["parameters"], schema());
    assert!(tools.iter().any(|tool| tool["function"]["name"] == "read"));
    let system = first["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.contains("call the tool `structured_output` once, as your last"),
        "{system}"
    );
    // The invalid call's errors come back as its tool result.
    let sent = (chat.tool_result)(&requests[1].json(), "call_1").unwrap();
    assert!(
        sent.contains("/verdict: \\\"maybe\\\" is not one of"),
        "{sent}"
    );
    let entries = session_entries(&home);
    assert_eq!(
        roles(&entries),
        ["user", "assistant", "toolResult", "assistant", "toolResult"]
    );
    let last = entries
        .iter()
        .rfind(|entry| entry["type"] == "message")
        .unwrap();
    assert_eq!(last["message"]["isError"], false);
    assert_eq!(structured_records(&entries)[0]["mode"], "tool");
}

#[test]
fn structured_output_max_retries_is_read_from_the_config() {
    let protocol = protocols::openai();
    let home = Home::new();
    let server = MockServer::start(vec![Reply::sse(&(protocol.text)(&[INVALID]))]);
    let output = home
        .pincer()
        .provider(&protocol, &server)
        .args(["-c", "structured_output.max_retries=0"])
        .args(["run", "--json", "-m", protocol.model, "--tools", ""])
        .args(["--json-schema", &schema().to_string(), "review"])
        .output();
    assert_eq!(code(&output), 1, "{}", stderr(&output));
    assert_eq!(
        result(&output)["subtype"],
        "error_max_structured_output_retries"
    );
    assert_eq!(server.requests().len(), 1);
}

/// A delegated `run --json --json-schema` whose child answers invalidly, then validly.
fn invalid_then_valid(bench: &Bench, backend: &str, model: &str) -> Output {
    bench.run(
        backend,
        &["structured-invalid.jsonl", "structured-valid.jsonl"],
        &[
            "run",
            "--json",
            "-m",
            model,
            "--json-schema",
            &schema().to_string(),
            "review the diff",
        ],
    )
}

#[test]
fn claude_gets_the_schema_inline_and_a_fenced_invalid_answer_is_retried_by_resuming() {
    let bench = Bench::new();
    let output = invalid_then_valid(&bench, "claude-cli", "claude-cli/sonnet");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let result = result(&output);
    assert_eq!(
        result["structured_output"],
        json!({"verdict": "approve", "score": 9})
    );
    // claude's result text was empty: the value's JSON stands in for it.
    assert_eq!(result["result"], VALID);
    let first = argv(&bench.call(0));
    let inline: Value = serde_json::from_str(&after(&first, "--json-schema").unwrap()).unwrap();
    assert_eq!(inline, schema());
    let session = after(&first, "--session-id").unwrap();
    let second = argv(&bench.call(1));
    assert_eq!(
        after(&second, "--resume").as_deref(),
        Some(session.as_str())
    );
    assert!(after(&second, "--json-schema").is_some());
    let prompt = second.last().unwrap();
    assert!(
        prompt.starts_with("Your answer does not match the JSON Schema"),
        "{prompt}"
    );
    assert!(
        prompt.contains(r#"/verdict: "maybe" is not one of"#),
        "{prompt}"
    );
    let entries = bench.session_lines();
    let records = structured_records(&entries);
    assert_eq!(records.len(), 1);
    assert_eq!(records[0]["attempts"], 2);
    assert_eq!(roles(&entries), ["user", "assistant", "user", "assistant"]);
}

#[test]
fn codex_gets_the_strict_schema_file_and_an_answer_that_is_not_json_is_retried() {
    let bench = Bench::new();
    let output = invalid_then_valid(&bench, "codex-cli", "codex-cli/gpt-5-codex");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let result = result(&output);
    assert_eq!(
        result["structured_output"],
        json!({"verdict": "request_changes"})
    );
    let first = bench.call(0);
    assert!(after(&argv(&first), "--output-schema").is_some());
    let strict = &expectation(&protocols::openai()).expect[0].1["format"]["schema"];
    assert_eq!(&first["output_schema"], strict);
    let second = argv(&bench.call(1));
    assert_eq!(second[..2], ["exec".to_owned(), "resume".to_owned()]);
    assert!(after(&second, "--output-schema").is_some());
    let prompt = second.last().unwrap();
    assert!(
        prompt.contains("(root): the answer is not JSON ("),
        "{prompt}"
    );
    // The second run's usage is a delta against the first's on the same thread.
    assert_eq!(result["usage"]["input_tokens"], 315 + 1685);
}

#[test]
fn a_provider_that_refuses_its_json_mode_is_asked_again_with_the_final_answer_tool() {
    let protocol = protocols::anthropic();
    let home = Home::new();
    let refusal = crate::common::wire::anthropic::error_body(
        "invalid_request_error",
        "output_config.format: structured outputs are not supported by this model",
    );
    let server = MockServer::start(vec![
        Reply::json(400, &refusal),
        Reply::sse(&(protocol.tool_call)(
            "toolu_answer",
            "structured_output",
            &json!({"verdict": "approve", "score": 9}),
        )),
    ]);
    let output = run(
        &home,
        &protocol,
        &server,
        &["--tools", "", "review the diff"],
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(
        result(&output)["structured_output"],
        json!({"verdict": "approve", "score": 9})
    );
    assert!(
        stderr(&output).contains("the provider refused its JSON Schema mode (native)"),
        "{}",
        stderr(&output)
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert!(requests[0].json().get("output_config").is_some());
    let retried = requests[1].json();
    assert_eq!(retried.get("output_config"), None);
    assert_eq!(offered_tools(&retried), ["structured_output"]);
}
