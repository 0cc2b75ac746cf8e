//! The script contract of SPEC §3 across every provider: the result's accounting fields
//! (`num_turns`, `stop_reason` in claude's words, `output_limit`, 1-hour cache prices).

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::common::mock::{MockServer, Reply};
use crate::common::protocols::{self, Protocol};
use crate::common::wire::anthropic::{self as wire, Usage4};
use crate::common::{Home, code, stderr, stdout};

const KEY: &str = "sk-contract-test-0000-5555";

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
    protocols::output(
        protocols::command(home, protocol, &server.url(), KEY),
        &with_model,
    )
}

/// The result object, parsed strictly (unknown fields fail).
fn result_of(output: &std::process::Output) -> pincer::output::result::RunResult {
    let text = stdout(output);
    let last = text.lines().last().unwrap_or_default();
    serde_json::from_str(last).unwrap_or_else(|error| panic!("{error}: {last}"))
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
    let mut command = protocols::command(&home, &anthropic, &failing.url(), KEY);
    for (name, value) in (openai.env)(&fallback.url(), KEY) {
        command.env(name, value);
    }
    let output = protocols::output(
        command,
        &[
            "-c",
            "retry.max_retries=0",
            "run",
            "--json",
            "--fallback-model",
            openai.model,
            "go",
        ],
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let result = result_of(&output);
    assert_eq!(result.result, "done");
    assert_eq!(result.provider.as_deref(), Some("openai"));
    // Two completed calls of the fallback; the overloaded attempt never completed.
    assert_eq!(result.num_turns, 2);
}

#[test]
fn stop_reason_is_claudes_word_for_every_provider_and_the_raw_word_is_kept() {
    // (protocol, provider word of a text answer, of a tool call)
    let words = [
        ("anthropic", "end_turn", "tool_use"),
        ("openai", "completed", "completed"),
        ("openai-chat", "stop", "tool_calls"),
        ("gemini", "STOP", "STOP"),
    ];
    for (protocol, (name, text_word, tool_word)) in protocols::all().iter().zip(words) {
        assert_eq!(protocol.name, name);
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
        let lines: Vec<Value> = stdout(&output)
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
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
            pincer::output::result::ResultSubtype::ErrorDuringExecution,
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
