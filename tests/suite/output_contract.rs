//! The script contract of SPEC §3 across every provider: the result's accounting fields
//! (`num_turns`, `stop_reason` in claude's words, `output_limit`, 1-hour cache prices).

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::common::mock::{MockServer, Reply};
use crate::common::protocols::{self, Protocol};
use crate::common::schema::result_of;
use crate::common::wire::anthropic::{self as wire, Usage4};
use crate::common::{Home, code, stderr, stdout};

/// pincer against the mock with `protocol`'s key, URL and model (`-m` goes after `run`).
fn run(
    home: &Home,
    protocol: &Protocol,
    server: &MockServer,
    args: &[&str],
) -> std::process::Output {
    let mut with_model: Vec<&str> = Vec::new();
    for arg in args {
        with_model.push(arg);
        if *arg == "run" {
            with_model.extend(["-m", protocol.model]);
        }
    }
    home.pincer()
        .provider(protocol, server)
        .fast_retries()
        .args(with_model)
        .output()
}

#[test]
fn a_call_retried_after_its_stream_broke_counts_as_one_turn() {
    for protocol in protocols::all() {
        let home = Home::new();
        let server = MockServer::start(vec![
            Reply::sse(&(protocol.mid_stream_error)("partial ")),
            Reply::sse(&(protocol.text)(&["partial ", "answer"])),
        ]);
        let output = run(&home, &protocol, &server, &["run", "--json", "go"]);
        assert_eq!(code(&output), 0, "{}: {}", protocol.name, stderr(&output));
        let result = result_of(&output);
        assert_eq!(result.result, "partial answer", "{}", protocol.name);
        assert_eq!(server.requests().len(), 2, "{}", protocol.name);
        assert_eq!(result.num_turns, 1, "{}", protocol.name);
    }
}

#[test]
fn a_failed_over_attempt_counts_no_turn_and_a_tool_turn_counts_each_call() {
    let home = Home::new();
    let anthropic = protocols::anthropic();
    let openai = protocols::openai();
    let failing = MockServer::start(vec![Reply::json(529, &(anthropic.error_body)(529))]);
    let fallback = MockServer::start(vec![
        Reply::sse(&(openai.tool_call)("call_1", "ls", &json!({}))),
        Reply::sse(&(openai.text)(&["done"])),
    ]);
    let output = home
        .pincer()
        .provider(&anthropic, &failing)
        .provider(&openai, &fallback)
        .fast_retries()
        .args([
            "-c",
            "retry.max_retries=0",
            "run",
            "--json",
            "--fallback-model",
            openai.model,
            "go",
        ])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let result = result_of(&output);
    assert_eq!(result.result, "done");
    assert_eq!(result.provider.as_deref(), Some("openai"));
    // Two completed calls of the fallback; the overloaded attempt never completed.
    assert_eq!(result.num_turns, 2);
}

#[test]
fn stop_reason_is_claudes_word_for_every_provider_and_the_raw_word_is_kept() {
    for protocol in &protocols::all() {
        let (name, (text_word, tool_word)) = (protocol.name, protocol.stop_words);
        let home = Home::new();
        let server = MockServer::start(vec![
            Reply::sse(&(protocol.tool_call)("call_1", "ls", &json!({}))),
            Reply::sse(&(protocol.text)(&["listed"])),
        ]);
        let output = run(
            &home,
            protocol,
            &server,
            &["run", "--output-format", "stream-json", "go"],
        );
        assert_eq!(code(&output), 0, "{name}: {}", stderr(&output));
        let lines = json_lines(&output);
        let assistants: Vec<&Value> = lines
            .iter()
            .filter(|line| line["type"] == "assistant")
            .collect();
        assert_eq!(assistants.len(), 2, "{name}");
        assert_eq!(
            assistants[0]["message"]["stop_reason"], "tool_use",
            "{name}"
        );
        assert_eq!(
            assistants[0]["message"]["provider_stop_reason"], tool_word,
            "{name}"
        );
        assert_eq!(
            assistants[1]["message"]["stop_reason"], "end_turn",
            "{name}"
        );
        let result = result_of(&output);
        assert_eq!(result.stop_reason.as_deref(), Some("end_turn"), "{name}");
        assert_eq!(
            result.provider_stop_reason.as_deref(),
            Some(text_word),
            "{name}"
        );
    }
}

#[test]
fn a_final_message_cut_by_the_output_limit_without_an_answer_is_an_output_limit_error() {
    for protocol in protocols::all() {
        let home = Home::new();
        let server = MockServer::start(vec![Reply::sse(&(protocol.output_limit)())]);
        let output = run(&home, &protocol, &server, &["run", "--json", "go"]);
        let name = protocol.name;
        assert_eq!(code(&output), 1, "{name}: {}", stderr(&output));
        let result = result_of(&output);
        assert!(result.is_error, "{name}");
        assert_eq!(
            result.subtype,
            pincer::output::schema::ResultSubtype::ErrorDuringExecution,
            "{name}"
        );
        assert_eq!(result.stop_reason.as_deref(), Some("max_tokens"), "{name}");
        let error = result.error.unwrap();
        assert_eq!(error.kind, "output_limit", "{name}");
        assert!(!error.retryable, "{name}");
        assert!(
            error.message.contains("max_output") && error.message.contains("config.toml"),
            "{name}: {}",
            error.message
        );
        assert!(stderr(&output).contains("max_output"), "{name}");
        assert_eq!(result.num_turns, 1, "{name}");
        // Text mode: nothing on stdout, the same exit code.
        let server = MockServer::start(vec![Reply::sse(&(protocol.output_limit)())]);
        let output = run(&home, &protocol, &server, &["run", "go"]);
        assert_eq!(code(&output), 1, "{name}");
        assert_eq!(stdout(&output), "", "{name}");
    }
}

#[test]
fn an_answer_cut_by_the_output_limit_is_still_an_answer() {
    let protocol = protocols::openai();
    let home = Home::new();
    let server = MockServer::start(vec![Reply::sse(
        &crate::common::wire::openai::incomplete_stream(
            &["The first half"],
            crate::common::wire::openai::Usage4 {
                input_total: 30,
                cached: 0,
                output: 64,
                reasoning: 0,
            },
        ),
    )]);
    let output = run(&home, &protocol, &server, &["run", "--json", "go"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let result = result_of(&output);
    assert_eq!(result.result, "The first half");
    assert_eq!(result.stop_reason.as_deref(), Some("max_tokens"));
    assert_eq!(
        result.provider_stop_reason.as_deref(),
        Some("max_output_tokens")
    );
}

#[test]
fn one_hour_cache_writes_are_priced_at_the_one_hour_rate() {
    let protocol = protocols::anthropic();
    let home = Home::new();
    let usage = Usage4 {
        input: 100,
        output: 10,
        cache_read: 1_000,
        cache_write: 2_000,
    };
    let server = MockServer::start(vec![
        Reply::sse(&wire::text_stream_one_hour_cache(&["cached"], usage)),
        Reply::sse(&wire::text_stream(&["cached"], usage)),
    ]);
    let output = run(&home, &protocol, &server, &["run", "--json", "go"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let one_hour = result_of(&output);
    // claude-sonnet-4-5: $3 in, $15 out, $0.30 cache read; cache writes $6 for 1 hour.
    let expected = (100.0 * 3.0 + 10.0 * 15.0 + 1_000.0 * 0.30 + 2_000.0 * 6.0) / 1e6;
    assert!(
        (one_hour.total_cost_usd - expected).abs() < 1e-12,
        "{} != {expected}",
        one_hour.total_cost_usd
    );
    // The same usage written to the 5-minute cache: $3.75.
    let output = run(&home, &protocol, &server, &["run", "--json", "go"]);
    let five_minutes = result_of(&output);
    let expected = (100.0 * 3.0 + 10.0 * 15.0 + 1_000.0 * 0.30 + 2_000.0 * 3.75) / 1e6;
    assert!(
        (five_minutes.total_cost_usd - expected).abs() < 1e-12,
        "{} != {expected}",
        five_minutes.total_cost_usd
    );
    // The session records the cost of the call as priced.
    let session: Vec<Value> = std::fs::read_dir(home.sessions_dir())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
        .flat_map(|path| {
            std::fs::read_to_string(path)
                .unwrap()
                .lines()
                .map(|line| serde_json::from_str::<Value>(line).unwrap())
                .collect::<Vec<_>>()
        })
        .filter(|entry| entry["message"]["role"] == "assistant")
        .collect();
    let mut cache_write_costs: Vec<f64> = session
        .iter()
        .map(|entry| {
            entry["message"]["usage"]["cost"]["cacheWrite"]
                .as_f64()
                .unwrap()
        })
        .collect();
    cache_write_costs.sort_by(f64::total_cmp);
    assert!(
        (cache_write_costs[0] - 0.0075).abs() < 1e-12,
        "{cache_write_costs:?}"
    );
    assert!(
        (cache_write_costs[1] - 0.012).abs() < 1e-12,
        "{cache_write_costs:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// stream-json partial messages shaped like claude's (SPEC §3.3)

/// The lines of a stream-json run, each parsed.
fn json_lines(output: &std::process::Output) -> Vec<Value> {
    stdout(output)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|error| panic!("{error}: {line}")))
        .collect()
}

/// A successful stream-json run with `--include-partial-messages` against `replies`: its lines,
/// checked for claude's shapes, and the tool inputs the `input_json_delta`s spell.
fn partial_run(protocol: &Protocol, replies: Vec<Reply>, prompt: &str) -> (Vec<Value>, Vec<Value>) {
    let home = Home::new();
    std::fs::write(home.workspace.join("notes.txt"), "alpha\n").unwrap();
    let server = MockServer::start(replies);
    let output = run(
        &home,
        protocol,
        &server,
        &[
            "run",
            "--output-format",
            "stream-json",
            "--include-partial-messages",
            prompt,
        ],
    );
    assert_eq!(code(&output), 0, "{}: {}", protocol.name, stderr(&output));
    let lines = json_lines(&output);
    let tools = check_claude_shapes(&lines, protocol.name);
    (lines, tools)
}

/// `jq -r 'select(.type=="stream_event" and .event.delta.type=="text_delta") | .event.delta.text'`
/// concatenated, as a script written for claude reads the answer; with `drop_discarded`, text
/// collected before an `api_retry` with `discarded_partial: true` is dropped (the README's
/// advice for broken streams).
fn claude_script_text(lines: &[Value], drop_discarded: bool) -> String {
    let mut text = String::new();
    for line in lines {
        if drop_discarded && line["type"] == "system" && line["discarded_partial"] == true {
            text.clear();
        }
        if line["type"] == "stream_event" && line["event"]["delta"]["type"] == "text_delta" {
            text.push_str(line["event"]["delta"]["text"].as_str().unwrap());
        }
    }
    text
}

/// The text of the last message's `text_delta`s.
fn last_message_text(lines: &[Value]) -> String {
    let start = lines
        .iter()
        .rposition(|line| line["event"]["type"] == "message_start")
        .unwrap();
    claude_script_text(&lines[start..], false)
}

/// Every line has a fresh UUIDv4 and the run's session id; the `stream_event`s form whole
/// messages (`message_start`, blocks numbered from 0 each with start/deltas/stop, then
/// `message_delta` and `message_stop`), one per `assistant` line; a message may break off only
/// before a `system` line with `discarded_partial: true`. Returns the tool inputs the `input_json_delta`s spell, in order.
fn check_claude_shapes(lines: &[Value], context: &str) -> Vec<Value> {
    let session = lines[0]["session_id"].as_str().unwrap().to_owned();
    let mut uuids = std::collections::BTreeSet::new();
    for line in lines {
        let uuid = line["uuid"]
            .as_str()
            .unwrap_or_else(|| panic!("{context}: no uuid: {line}"));
        assert_eq!(
            uuid::Uuid::parse_str(uuid).unwrap().get_version_num(),
            4,
            "{context}: {line}"
        );
        assert!(
            uuids.insert(uuid.to_owned()),
            "{context}: repeated uuid {uuid}"
        );
        assert_eq!(line["session_id"], session.as_str(), "{context}: {line}");
    }
    assert_eq!(lines.last().unwrap()["type"], "result", "{context}");

    #[derive(PartialEq, Debug)]
    enum State {
        Outside,
        /// In a message: the next block index, and the open block with its type.
        Message(u64, Option<(u64, String)>),
        /// After `message_delta`.
        Ending,
    }
    let mut state = State::Outside;
    let mut retried = false;
    let mut messages = 0;
    let mut tools = Vec::new();
    let mut tool_input = String::new();
    for line in lines {
        if line["type"] == "system" && line["discarded_partial"] == true {
            retried = true;
        }
        if line["type"] != "stream_event" {
            continue;
        }
        assert_eq!(line["parent_tool_use_id"], Value::Null, "{context}");
        let event = &line["event"];
        let kind = event["type"].as_str().unwrap();
        state = match (std::mem::replace(&mut state, State::Outside), kind) {
            (State::Outside, "message_start") => {
                let message = &event["message"];
                assert_eq!(message["type"], "message", "{context}");
                assert_eq!(message["role"], "assistant", "{context}");
                assert_eq!(message["content"], json!([]), "{context}");
                assert!(
                    message["id"].is_string() && message["model"].is_string(),
                    "{context}"
                );
                assert!(message["usage"]["input_tokens"].is_u64(), "{context}");
                State::Message(0, None)
            }
            (State::Message(..), "message_start") if retried => {
                retried = false;
                State::Message(0, None)
            }
            (State::Message(next, None), "content_block_start") => {
                assert_eq!(event["index"], next, "{context}: {event}");
                let block = event["content_block"]["type"].as_str().unwrap().to_owned();
                if block == "tool_use" {
                    assert_eq!(event["content_block"]["input"], json!({}), "{context}");
                    tool_input.clear();
                }
                State::Message(next + 1, Some((next, block)))
            }
            (State::Message(next, Some((index, block))), "content_block_delta") => {
                assert_eq!(event["index"], index, "{context}: {event}");
                let delta = event["delta"]["type"].as_str().unwrap();
                let allowed: &[&str] = match block.as_str() {
                    "text" => &["text_delta"],
                    "thinking" => &["thinking_delta", "signature_delta"],
                    "tool_use" => &["input_json_delta"],
                    other => panic!("{context}: unexpected block {other}"),
                };
                assert!(allowed.contains(&delta), "{context}: {delta} in {block}");
                if delta == "input_json_delta" {
                    tool_input.push_str(event["delta"]["partial_json"].as_str().unwrap());
                }
                State::Message(next, Some((index, block)))
            }
            (State::Message(next, Some((index, block))), "content_block_stop") => {
                assert_eq!(event["index"], index, "{context}: {event}");
                if block == "tool_use" {
                    tools.push(
                        serde_json::from_str::<Value>(&tool_input)
                            .unwrap_or_else(|error| panic!("{context}: {error}: {tool_input}")),
                    );
                }
                State::Message(next, None)
            }
            (State::Message(_, None), "message_delta") => {
                assert!(event["delta"]["stop_reason"].is_string(), "{context}");
                assert!(event["usage"]["output_tokens"].is_u64(), "{context}");
                State::Ending
            }
            (State::Ending, "message_stop") => {
                messages += 1;
                State::Outside
            }
            (state, kind) => panic!("{context}: {kind} in {state:?}: {event}"),
        };
    }
    assert_eq!(
        state,
        State::Outside,
        "{context}: the last message is not closed"
    );
    let assistants = lines
        .iter()
        .filter(|line| line["type"] == "assistant")
        .count();
    if lines.iter().any(|line| line["type"] == "stream_event") {
        assert_eq!(
            messages, assistants,
            "{context}: one message per assistant line"
        );
    }
    tools
}

#[test]
fn claude_scripts_read_the_answer_from_the_partial_messages_of_every_provider() {
    for protocol in protocols::all() {
        let name = protocol.name;
        let answer = (protocol.text)(&["The answer ", "is ", "forty-two."]);
        let (lines, _) = partial_run(&protocol, vec![Reply::sse(&answer)], "go");
        let result = lines.last().unwrap();
        assert_eq!(result["result"], "The answer is forty-two.", "{name}");
        assert_eq!(
            claude_script_text(&lines, false),
            "The answer is forty-two.",
            "{name}"
        );
        // Without the flag there are no stream_event lines, and still a uuid everywhere.
        let home = Home::new();
        let server = MockServer::start(vec![Reply::sse(&(protocol.text)(&["short"]))]);
        let output = run(
            &home,
            &protocol,
            &server,
            &["run", "--output-format", "stream-json", "go"],
        );
        let lines = json_lines(&output);
        check_claude_shapes(&lines, name);
        assert!(
            lines.iter().all(|line| line["type"] != "stream_event"),
            "{name}"
        );
    }
}

#[test]
fn the_input_json_deltas_of_a_tool_turn_spell_the_tool_input_for_every_provider() {
    for protocol in protocols::all() {
        let name = protocol.name;
        let input = json!({"path": "notes.txt", "limit": 20});
        let replies = vec![
            Reply::sse(&(protocol.tool_call)("call_7", "read", &input)),
            Reply::sse(&(protocol.text)(&["It says ", "alpha."])),
        ];
        let (lines, tools) = partial_run(&protocol, replies, "read notes.txt");
        assert_eq!(tools, std::slice::from_ref(&input), "{name}");
        let tool_use = lines
            .iter()
            .find(|line| line["type"] == "assistant")
            .map(|line| line["message"]["content"][0].clone())
            .unwrap();
        assert_eq!(tool_use["input"], input, "{name}");
        let start = lines
            .iter()
            .find(|line| line["event"]["content_block"]["type"] == "tool_use")
            .unwrap();
        assert_eq!(start["event"]["content_block"]["name"], "read", "{name}");
        assert_eq!(
            start["event"]["content_block"]["id"], tool_use["id"],
            "{name}"
        );
        assert_eq!(last_message_text(&lines), "It says alpha.", "{name}");
        assert_eq!(lines.last().unwrap()["result"], "It says alpha.", "{name}");
    }
}

#[test]
fn partial_text_before_a_discarding_retry_is_dropped_and_the_rest_is_the_answer() {
    for protocol in protocols::all() {
        let replies = vec![
            Reply::sse(&(protocol.mid_stream_error)("partial ")),
            Reply::sse(&(protocol.text)(&["partial ", "answer"])),
        ];
        let (lines, _) = partial_run(&protocol, replies, "go");
        let name = protocol.name;
        assert_eq!(claude_script_text(&lines, true), "partial answer", "{name}");
    }
}

#[test]
fn claude_scripts_read_the_partial_messages_of_both_cli_backends() {
    use super::backends::Bench;
    let cases = [
        ("claude-cli", "claude-cli/sonnet", "tool-turn.jsonl"),
        (
            "claude-cli",
            "claude-cli/sonnet",
            "tool-turn-no-partials.jsonl",
        ),
        ("codex-cli", "codex-cli/gpt-5-codex", "tool-turn.jsonl"),
    ];
    for (backend, model, fixture) in cases {
        let context = format!("{backend} {fixture}");
        let bench = Bench::new();
        let output = bench.run(
            backend,
            &[fixture],
            &[
                "--output-format",
                "stream-json",
                "run",
                "--include-partial-messages",
                "-m",
                model,
                "go",
            ],
        );
        assert_eq!(code(&output), 0, "{context}: {}", stderr(&output));
        let lines = json_lines(&output);
        let tools = check_claude_shapes(&lines, &context);
        let result = lines.last().unwrap();
        let answer = result["result"].as_str().unwrap();
        assert!(!answer.is_empty(), "{context}");
        assert_eq!(last_message_text(&lines), answer, "{context}");
        // The tool input the deltas spell is the one the assistant line carries.
        let called: Vec<Value> = lines
            .iter()
            .filter(|line| line["type"] == "assistant")
            .flat_map(|line| line["message"]["content"].as_array().unwrap().clone())
            .filter(|block| block["type"] == "tool_use")
            .map(|block| block["input"].clone())
            .collect();
        assert_eq!(tools, called, "{context}");
        assert_eq!(tools.len(), 1, "{context}");
        // claude's word whatever the child said: codex says `completed`, claude without partial
        // messages says nothing (its `assistant` events carry `stop_reason: null`).
        assert_eq!(result["stop_reason"], "end_turn", "{context}");
        let raw = match (backend, fixture) {
            ("codex-cli", _) => json!("completed"),
            (_, "tool-turn-no-partials.jsonl") => Value::Null,
            _ => json!("end_turn"),
        };
        assert_eq!(result["provider_stop_reason"], raw, "{context}");
    }
}

#[test]
fn a_cli_backends_answer_after_a_tool_is_printed_once_in_text_mode() {
    use super::backends::Bench;
    // codex reports the answer's text before the message it belongs to begins; it used to be
    // printed again when that message completed.
    let cases = [
        (
            "codex-cli",
            "codex-cli/gpt-5-codex",
            "Yes, there is a README.md in the repository root.\n",
        ),
        (
            "claude-cli",
            "claude-cli/sonnet",
            "I read the file. The token is MAGICe5bc4faa22dd. word0 word1 word2 word3 word4 word5\n",
        ),
    ];
    for (backend, model, answer) in cases {
        let bench = Bench::new();
        let output = bench.run(backend, &["tool-turn.jsonl"], &["run", "-m", model, "go"]);
        assert_eq!(code(&output), 0, "{backend}: {}", stderr(&output));
        assert_eq!(stdout(&output), answer, "{backend}");
    }
}
