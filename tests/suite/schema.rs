//! Every line pincer prints in `--json` and stream-json fits the serde types of
//! `output/schema.rs`, which deny unknown fields (SPEC §3.2, §3.3). The recorded runs are the
//! other suites' scenarios — a tool turn, retries after a broken stream and after 529s, a
//! fallback to a second model, a credential rotation, a compaction, claude and codex CLI turns,
//! a CLI compaction and a failed CLI turn — run again in each JSON mode and parsed line by line
//! with `common::schema`.
//!
//! `--verbose` is not a mode here: it only adds to stderr, never a stdout line
//! ([`verbose_adds_no_stdout_line`]).
//!
//! The same lines are held to the JSON Schemas committed under `docs/reference/schemas/`
//! (derived from those types by schemars, and what the reference pages are rendered from), with
//! the `jsonschema` crate: a schema that says less or other than pincer prints fails here. The
//! codex JSONL of `pincer exec --json`, which has no parser of its own, is held to its schema.

use std::path::Path;
use std::process::Output;
use std::sync::LazyLock;

use pincer::output::schema::{Line, SystemLine};
use serde_json::{Value, json};

use super::backends::Bench;
use super::{compaction, failover, hooks, run_flags};
use crate::common::mock::{MockServer, Reply};
use crate::common::protocols;
use crate::common::schema::{Printed, printed};
use crate::common::{Home, code, stderr, stdout};

const STREAM: &[&str] = &["--output-format", "stream-json"];
const PARTIAL: &[&str] = &[
    "--output-format",
    "stream-json",
    "--include-partial-messages",
];
const JSON: &[&str] = &["--json"];

/// Run `scenario` (it makes its own home and mocks) with the output flags of each JSON mode and
/// parse every stdout line strictly. A line that does not fit fails the test, naming the
/// scenario, the mode, the line and serde's error. Beyond that: stream-json starts with
/// `system/init`, ends with the one result object and holds a line `wanted` accepts (the line
/// the scenario exists for, the result for a failure); `stream_event` lines appear exactly with
/// `--include-partial-messages`; `--json` prints the result object alone. Every run exits
/// `exit`, and the result's `is_error` says whether that is 0.
fn check(
    name: &str,
    exit: i32,
    scenario: impl Fn(&[&str]) -> Output,
    wanted: fn(&Printed) -> bool,
) {
    check_each(name, exit, scenario, &[wanted]);
}

/// [`check`], with every one of `wanted` found in each stream-json mode.
fn check_each(
    name: &str,
    exit: i32,
    scenario: impl Fn(&[&str]) -> Output,
    wanted: &[fn(&Printed) -> bool],
) {
    for mode in [STREAM, PARTIAL, JSON] {
        let output = scenario(mode);
        let context = format!("{name} with {}", mode.join(" "));
        assert_eq!(code(&output), exit, "{context}: {}", stderr(&output));
        let text = stdout(&output);
        let printed = printed(&text).unwrap_or_else(|error| panic!("{context}: {error}"));
        assert_lines_fit(&STREAM_JSON_SCHEMA, &context, &text);
        let Some((Printed::Result(result), lines)) = printed.split_last() else {
            panic!("{context}: the last line is not the result object:\n{text}");
        };
        assert_eq!(result.is_error, exit != 0, "{context}");
        let lines: Vec<&Line> = lines
            .iter()
            .map(|printed| match printed {
                Printed::Line(line) => line,
                Printed::Result(_) => panic!("{context}: a result before the last line:\n{text}"),
            })
            .collect();
        if mode == JSON {
            assert!(lines.is_empty(), "{context}: more than the result:\n{text}");
            assert_lines_fit(&RESULT_SCHEMA, &context, &text);
            continue;
        }
        assert!(
            matches!(lines.first(), Some(Line::System(SystemLine::Init(_)))),
            "{context}: the first line is not system/init:\n{text}"
        );
        for wanted in wanted {
            assert!(
                printed.iter().any(wanted),
                "{context}: a line this scenario is about is missing:\n{text}"
            );
        }
        let partials = lines
            .iter()
            .filter(|line| matches!(line, Line::StreamEvent(_)))
            .count();
        assert_eq!(
            partials > 0,
            mode == PARTIAL,
            "{context}: {partials} stream_event lines:\n{text}"
        );
    }
}

fn is_tool_result(printed: &Printed) -> bool {
    matches!(printed, Printed::Line(Line::User(_)))
}

/// The `system` line `printed` is, if it is one.
fn system(printed: &Printed) -> Option<&SystemLine> {
    match printed {
        Printed::Line(Line::System(line)) => Some(line),
        _ => None,
    }
}

#[test]
fn a_tool_turn_fits_the_schema() {
    check_each(
        "a tool turn",
        0,
        |mode| run_flags::tool_turn(&Home::new(), mode),
        &[is_tool_result, |printed| {
            matches!(printed, Printed::Line(Line::Assistant(_)))
        }],
    );
}

#[test]
fn a_retry_after_a_broken_stream_fits_the_schema() {
    check(
        "a broken stream, retried",
        0,
        |mode| failover::broken_stream_then_answer(&Home::new(), mode).0,
        |printed| {
            matches!(system(printed), Some(SystemLine::ApiRetry(retry))
                if retry.discarded_partial == Some(true))
        },
    );
}

#[test]
fn retries_after_529s_fit_the_schema() {
    check(
        "two 529s, retried",
        0,
        |mode| run_flags::overloaded_twice_then_answer(&Home::new(), mode).0,
        |printed| matches!(system(printed), Some(SystemLine::ApiRetry(_))),
    );
}

#[test]
fn a_fallback_to_a_second_model_fits_the_schema() {
    check(
        "a fallback",
        0,
        |mode| failover::overloaded_then_fallback(&Home::new(), mode).0,
        |printed| matches!(system(printed), Some(SystemLine::ModelFallback(_))),
    );
}

#[test]
fn a_credential_rotation_fits_the_schema() {
    check(
        "a rotation",
        0,
        |mode| run_flags::rejected_key_then_next_profile(&Home::new(), mode).0,
        |printed| matches!(system(printed), Some(SystemLine::AuthRotation(_))),
    );
}

#[test]
fn a_compaction_fits_the_schema() {
    check(
        "a compaction",
        0,
        |mode| compaction::threshold_compaction(&Home::new(), mode).0,
        |printed| {
            matches!(system(printed), Some(SystemLine::CompactBoundary(boundary))
                if boundary.backend.is_none())
        },
    );
}

#[test]
fn hook_events_fit_the_schema() {
    check(
        "a tool turn with hooks and --include-hook-events",
        0,
        |mode| hooks::hooked_tool_turn(&Home::new(), mode),
        |printed| {
            matches!(system(printed), Some(SystemLine::HookResponse(response))
                if response.exit_code == Some(2))
        },
    );
}

/// A turn of a CLI backend: `fixture` of `backend` replayed by the fake, `-m model`.
fn cli_turn(backend: &str, fixture: &str, model: &str, mode: &[&str]) -> Output {
    let mut args = vec!["run", "-m", model, "go"];
    args.extend(mode);
    Bench::new().run(backend, &[fixture], &args)
}

#[test]
fn a_claude_cli_tool_turn_fits_the_schema() {
    check(
        "a claude-cli tool turn",
        0,
        |mode| cli_turn("claude-cli", "tool-turn.jsonl", "claude-cli/sonnet", mode),
        is_tool_result,
    );
}

#[test]
fn a_codex_cli_tool_turn_fits_the_schema() {
    check(
        "a codex-cli tool turn",
        0,
        |mode| {
            cli_turn(
                "codex-cli",
                "tool-turn.jsonl",
                "codex-cli/gpt-5-codex",
                mode,
            )
        },
        is_tool_result,
    );
}

#[test]
fn a_claude_cli_compaction_fits_the_schema() {
    check(
        "a claude-cli compaction",
        0,
        |mode| cli_turn("claude-cli", "compaction.jsonl", "claude-cli/sonnet", mode),
        |printed| {
            matches!(system(printed), Some(SystemLine::CompactBoundary(boundary))
                if boundary.backend.as_deref() == Some("claude-cli"))
        },
    );
}

#[test]
fn a_failed_claude_cli_turn_fits_the_schema() {
    check(
        "a claude-cli rate limit",
        4,
        |mode| {
            cli_turn(
                "claude-cli",
                "rate-limit-result.jsonl",
                "claude-cli/sonnet",
                mode,
            )
        },
        |printed| {
            matches!(printed, Printed::Result(result)
                if result.error.as_ref().is_some_and(|error| error.status == Some(429)))
        },
    );
}

#[test]
fn verbose_adds_no_stdout_line() {
    let kinds = |verbose: &[&str]| -> Vec<String> {
        let mut mode = STREAM.to_vec();
        mode.extend(verbose);
        let output = run_flags::tool_turn(&Home::new(), &mode);
        stdout(&output)
            .lines()
            .map(|line| {
                let value: serde_json::Value = serde_json::from_str(line).unwrap();
                format!("{}/{}", value["type"], value["subtype"])
            })
            .collect()
    };
    assert_eq!(kinds(&["--verbose"]), kinds(&[]));
}

/// The JSON pointers of every object in `value` that the schema closes: all but the open ones
/// (a tool call's `input`, and `modelUsage`, a map keyed by model).
fn closed_objects(value: &Value, pointer: String, found: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if !pointer.ends_with("/input") && !pointer.ends_with("/modelUsage") {
                found.push(pointer.clone());
            }
            for (key, item) in map {
                closed_objects(item, format!("{pointer}/{key}"), found);
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                closed_objects(item, format!("{pointer}/{index}"), found);
            }
        }
        _ => {}
    }
}

/// The strict parse itself: one undeclared field in any closed object of any line of a real
/// run (partial messages included, down to `message_stop`, which has no fields of its own) is
/// an error that names the field.
#[test]
fn an_undeclared_field_anywhere_is_an_error() {
    let output = run_flags::tool_turn(&Home::new(), PARTIAL);
    let text = stdout(&output);
    printed(&text).unwrap();
    let mut checked = 0;
    for line in text.lines() {
        let value: Value = serde_json::from_str(line).unwrap();
        let mut objects = Vec::new();
        closed_objects(&value, String::new(), &mut objects);
        for pointer in objects {
            let mut grown = value.clone();
            grown.pointer_mut(&pointer).unwrap()["undeclared"] = json!(1);
            let error = printed(&grown.to_string()).expect_err(&format!(
                "an undeclared field at {pointer:?} passed: {grown}"
            ));
            assert!(error.contains("undeclared"), "{error}");
            checked += 1;
        }
    }
    assert!(text.contains(r#"{"type":"message_stop"}"#), "{text}");
    assert!(checked > 30, "{checked} objects");
}

/// A schema of `docs/reference/schemas/`, as committed, compiled.
fn committed_schema(name: &str) -> jsonschema::Validator {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("docs/reference/schemas")
        .join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    let schema: Value = serde_json::from_str(&text).unwrap();
    jsonschema::validator_for(&schema).unwrap_or_else(|error| panic!("{name}: {error}"))
}

static STREAM_JSON_SCHEMA: LazyLock<jsonschema::Validator> =
    LazyLock::new(|| committed_schema("stream-json.schema.json"));
static RESULT_SCHEMA: LazyLock<jsonschema::Validator> =
    LazyLock::new(|| committed_schema("result.schema.json"));
static CODEX_EVENTS_SCHEMA: LazyLock<jsonschema::Validator> =
    LazyLock::new(|| committed_schema("codex-events.schema.json"));

/// Every line of `text` is valid under `schema`; else the line, and where and why it is not.
fn assert_lines_fit(schema: &jsonschema::Validator, context: &str, text: &str) {
    for (index, line) in text.lines().enumerate() {
        let value: Value = serde_json::from_str(line)
            .unwrap_or_else(|error| panic!("{context}: line {}: {error}", index + 1));
        let errors: Vec<String> = schema
            .iter_errors(&value)
            .map(|error| format!("at {:?}: {error}", error.instance_path().to_string()))
            .collect();
        assert!(
            errors.is_empty(),
            "{context}: line {} does not fit the committed schema:\n{}\n{line}",
            index + 1,
            errors.join("\n")
        );
    }
}

/// The kinds of the lines of `text` (`system/init`, `assistant`, …).
fn kinds_of(text: &str) -> Vec<String> {
    text.lines()
        .map(|line| {
            let value: Value = serde_json::from_str(line).unwrap();
            match value.get("subtype").and_then(Value::as_str) {
                Some(subtype) => format!("{}/{subtype}", value["type"].as_str().unwrap_or("")),
                None => value["type"].as_str().unwrap_or("").to_owned(),
            }
        })
        .collect()
}

#[test]
fn codex_exec_events_fit_the_committed_json_schema() {
    let home = Home::new();
    std::fs::write(home.workspace.join("a.txt"), "alpha\n").unwrap();
    let protocol = protocols::anthropic();
    let server = MockServer::start(vec![
        Reply::sse(&(protocol.tool_call)(
            "toolu_1",
            "read",
            &json!({"path": "a.txt"}),
        )),
        Reply::sse(&(protocol.text)(&["It says alpha."])),
    ]);
    let output = home
        .pincer()
        .provider(&protocol, &server)
        .args(["exec", "--json", "read a.txt"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let text = stdout(&output);
    assert_lines_fit(&CODEX_EVENTS_SCHEMA, "exec --json", &text);
    let kinds = kinds_of(&text);
    for kind in [
        "thread.started",
        "turn.started",
        "item.started",
        "item.completed",
        "turn.completed",
    ] {
        assert!(kinds.iter().any(|seen| seen == kind), "{kind}: {kinds:?}");
    }
}
