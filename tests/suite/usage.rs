//! The spend ledger, `pincer usage` and `[budget]` across runs (SPEC §18), against the mock
//! Anthropic provider whose every answer reports usage, so that every run costs something:
//! 100 input, 10 output, 1,000 cache-read and 200 cache-write tokens of claude-sonnet-4-5.

use std::os::unix::fs::PermissionsExt as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use pincer::output::schema::ResultSubtype;
use pincer::output::usage::UsageReport;
use serde_json::{Value, json};

use crate::common::mock::{MockServer, Piece, Reply};
use crate::common::protocols;
use crate::common::schema::result_of;
use crate::common::wire::anthropic::{self as wire, Usage4};
use crate::common::{Home, code, stderr, stdout};

/// What one run of these tests costs: claude-sonnet-4-5 at $3 in, $15 out, $0.30 cache read and
/// $3.75 cache write per million tokens.
const RUN_COST: f64 = (100.0 * 3.0 + 10.0 * 15.0 + 1_000.0 * 0.30 + 200.0 * 3.75) / 1e6;

fn text(answer: &str) -> Reply {
    let usage = Usage4 {
        input: 100,
        output: 10,
        cache_read: 1_000,
        cache_write: 200,
    };
    Reply::sse(&wire::text_stream(&[answer], usage))
}

fn ledger(home: &Home) -> PathBuf {
    home.home.join("usage-ledger.jsonl")
}

/// The ledger's lines, each parsed as JSON (a line that does not parse fails the test).
fn ledger_lines(home: &Home) -> Vec<Value> {
    std::fs::read_to_string(ledger(home))
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|error| panic!("{error}: {line}")))
        .collect()
}

/// `pincer run --json ARGS… PROMPT` against `server`.
fn run(home: &Home, server: &MockServer, args: &[&str]) -> std::process::Output {
    home.pincer()
        .provider(&protocols::anthropic(), server)
        .args(["run", "--json"])
        .args(args)
        .output()
}

/// `pincer usage --json ARGS…`, parsed strictly.
fn usage_report(home: &Home, args: &[&str]) -> UsageReport {
    let output = home.pincer().args(["usage", "--json"]).args(args).output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    serde_json::from_str(&stdout(&output))
        .unwrap_or_else(|error| panic!("{error}:\n{}", stdout(&output)))
}

fn close(left: f64, right: f64) -> bool {
    (left - right).abs() < 1e-9
}

#[test]
fn a_run_appends_one_ledger_line_with_what_it_spent() {
    let home = Home::new();
    let server = MockServer::start(vec![text("done")]);
    let output = run(
        &home,
        &server,
        &["--name", "audit", "--tag", "nightly", "go"],
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let result = result_of(&output);
    let lines = ledger_lines(&home);
    assert_eq!(lines.len(), 1);
    let line = &lines[0];
    assert_eq!(line["cost_usd"].as_f64().unwrap(), result.total_cost_usd);
    assert!(close(result.total_cost_usd, RUN_COST));
    assert_eq!(line["session_id"].as_str(), result.session_id.as_deref());
    let mode = std::fs::metadata(ledger(&home))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    // The shape of a line, with what differs between runs replaced.
    let mut shown = line.clone();
    shown["time"] = json!("<time>");
    shown["session_id"] = json!("<id>");
    shown["duration_ms"] = json!(0);
    insta::assert_snapshot!(
        "ledger_line",
        serde_json::to_string_pretty(&shown).unwrap(),
        "pincer run --json --name audit --tag nightly go"
    );
}

#[test]
fn usage_totals_and_groups_runs_in_text_and_json() {
    let home = Home::new();
    let server = MockServer::start(vec![text("a"), text("b"), text("c")]);
    for args in [
        &["--tag", "review", "one"][..],
        &["--tag", "review", "--name", "weekly", "two"],
        &["three"],
    ] {
        let output = run(&home, &server, args);
        assert_eq!(code(&output), 0, "{}", stderr(&output));
    }
    let report = usage_report(&home, &["--by", "tag"]);
    assert_eq!(report.runs, 3);
    assert!(close(report.total_cost_usd, 3.0 * RUN_COST));
    assert_eq!(report.usage.cache_read_input_tokens, 3_000);
    let groups: Vec<(Option<&str>, u64)> = report
        .groups
        .iter()
        .map(|group| (group.key.as_deref(), group.runs))
        .collect();
    assert_eq!(groups, [(Some("review"), 2), (None, 1)]);

    let by_model = usage_report(&home, &["--by", "model", "--since", "1h"]);
    assert_eq!(by_model.groups.len(), 1);
    assert_eq!(
        by_model.groups[0].key.as_deref(),
        Some("anthropic/claude-sonnet-4-5")
    );
    assert_eq!(by_model.groups[0].runs, 3);
    // A window that holds none of them.
    let future = usage_report(&home, &["--since", "2999-01-01"]);
    assert_eq!(future.runs, 0);
    assert_eq!(future.total_cost_usd, 0.0);

    let mut json: Value = serde_json::to_value(&report).unwrap();
    json["ledger"] = json!("<home>/usage-ledger.jsonl");
    insta::assert_snapshot!(
        "usage_by_tag_json",
        serde_json::to_string_pretty(&json).unwrap(),
        "pincer usage --json --by tag"
    );
    let output = home.run(&["usage", "--by", "tag"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    insta::assert_snapshot!(
        "usage_by_tag_text",
        stdout(&output),
        "pincer usage --by tag"
    );
}

#[test]
fn usage_without_a_ledger_is_an_empty_report_and_a_bad_since_is_exit_2() {
    let home = Home::new();
    let report = usage_report(&home, &["--by", "day"]);
    assert_eq!(report.runs, 0);
    assert!(report.groups.is_empty());
    assert!(!ledger(&home).exists(), "reading creates nothing");
    let output = home.run(&["usage", "--since", "last tuesday"]);
    assert_eq!(code(&output), 2, "{}", stderr(&output));
    assert!(stderr(&output).contains("RFC 3339"), "{}", stderr(&output));
    let output = home.run(&["run", "--tag", "", "hello"]);
    assert_eq!(code(&output), 2, "{}", stderr(&output));
}

#[test]
fn thirty_two_concurrent_runs_append_thirty_two_whole_lines() {
    let home = Home::new();
    let server = MockServer::start((0..32).map(|_| text("ok")).collect());
    let children: Vec<_> = (0..32)
        .map(|n| {
            home.pincer()
                .provider(&protocols::anthropic(), &server)
                .args(["run", "--json", "--tag", &format!("worker-{n}"), "go"])
                .spawn()
        })
        .collect();
    let mut spent = 0.0;
    for child in children {
        let output = child.wait_with_output().unwrap();
        assert_eq!(code(&output), 0, "{}", stderr(&output));
        spent += result_of(&output).total_cost_usd;
    }
    let lines = ledger_lines(&home);
    assert_eq!(lines.len(), 32);
    let mut tags: Vec<&str> = lines
        .iter()
        .map(|line| line["tag"].as_str().unwrap())
        .collect();
    tags.sort_unstable();
    tags.dedup();
    assert_eq!(tags.len(), 32, "every run's own line");
    let report = usage_report(&home, &[]);
    assert_eq!(report.runs, 32);
    assert_eq!(report.skipped_lines, 0);
    assert!(
        close(report.total_cost_usd, spent),
        "{} != {spent}",
        report.total_cost_usd
    );
}

#[test]
fn a_run_killed_mid_request_leaves_the_ledger_readable() {
    let home = Home::new();
    let stalled = Reply::sse_pieces(vec![Piece::Stall(Duration::from_secs(30))]);
    let server = MockServer::start(vec![text("first"), stalled]);
    let output = run(&home, &server, &["first"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let mut child = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["run", "--json", "second"])
        .spawn();
    let deadline = Instant::now() + Duration::from_secs(20);
    while server.requests().len() < 2 {
        assert!(Instant::now() < deadline, "the second run sent no request");
        std::thread::sleep(Duration::from_millis(10));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(ledger_lines(&home).len(), 1, "a killed run appends nothing");
    let report = usage_report(&home, &["--since", "1d"]);
    assert_eq!(report.runs, 1);
    assert_eq!(report.skipped_lines, 0);
}

#[test]
fn a_run_that_times_out_mid_request_is_in_the_ledger_with_its_exit_class() {
    let home = Home::new();
    let stalled = Reply::sse_pieces(vec![Piece::Stall(Duration::from_secs(30))]);
    let server = MockServer::start(vec![stalled]);
    let output = run(&home, &server, &["--timeout", "1", "--tag", "slow", "go"]);
    assert_eq!(code(&output), 124, "{}", stderr(&output));
    let lines = ledger_lines(&home);
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["exit_code"], 124);
    assert_eq!(lines[0]["exit_class"], "timeout");
    assert_eq!(lines[0]["tag"], "slow");
    let report = usage_report(&home, &[]);
    assert_eq!((report.runs, report.failed_runs), (1, 1));
}

#[test]
fn a_torn_last_line_is_skipped_without_an_error() {
    let home = Home::new();
    let server = MockServer::start(vec![text("one"), text("two")]);
    assert_eq!(code(&run(&home, &server, &["one"])), 0);
    let mut bytes = std::fs::read(ledger(&home)).unwrap();
    bytes.extend_from_slice(br#"{"time":"2026-06-01T10:00:00.000Z","provider":"anthr"#);
    std::fs::write(ledger(&home), &bytes).unwrap();
    for args in [&[][..], &["--since", "7d"], &["--by", "day"]] {
        let report = usage_report(&home, args);
        assert_eq!(report.runs, 1, "{args:?}");
        assert_eq!(report.skipped_lines, 1, "{args:?}");
    }
    // The next run's line is whole, on a line of its own.
    assert_eq!(code(&run(&home, &server, &["two"])), 0);
    let report = usage_report(&home, &[]);
    assert_eq!(report.runs, 2);
    assert_eq!(report.skipped_lines, 1);
}

#[test]
fn a_daily_budget_reached_by_earlier_runs_stops_the_next_before_any_request() {
    let home = Home::new();
    // One run reaches the limit exactly.
    std::fs::write(
        home.home.join("config.toml"),
        format!("[budget]\ndaily_usd = {RUN_COST}\nmonthly_usd = 100\n"),
    )
    .unwrap();
    let server = MockServer::start(vec![text("first"), text("never")]);
    let first = run(&home, &server, &["first"]);
    assert_eq!(code(&first), 0, "{}", stderr(&first));
    let refused = run(&home, &server, &["--name", "refused", "second"]);
    assert_eq!(code(&refused), 5, "{}", stderr(&refused));
    assert_eq!(server.requests().len(), 1, "no request after the budget");
    let result = result_of(&refused);
    assert!(result.is_error);
    assert_eq!(result.subtype, ResultSubtype::ErrorMaxBudgetUsd);
    assert_eq!(result.terminal_reason, "budget");
    let error = result.error.unwrap();
    assert_eq!(error.kind, "budget_exceeded");
    let tomorrow = time::OffsetDateTime::now_utc().date().next_day().unwrap();
    for wanted in [
        "daily budget".to_owned(),
        "budget.daily_usd".to_owned(),
        format!("${RUN_COST:.4}"),
        format!("resets at {tomorrow}T00:00:00Z"),
    ] {
        assert!(
            error.message.contains(&wanted),
            "{wanted}: {}",
            error.message
        );
    }
    assert!(stderr(&refused).contains("hint:"), "{}", stderr(&refused));
    // Nothing was started: no session for the refused run, no ledger line.
    assert_eq!(
        std::fs::read_dir(home.sessions_dir())
            .unwrap()
            .filter(|entry| {
                entry
                    .as_ref()
                    .unwrap()
                    .path()
                    .extension()
                    .is_some_and(|extension| extension == "jsonl")
            })
            .count(),
        1
    );
    assert_eq!(ledger_lines(&home).len(), 1);
    // A dry run calls nothing and is not refused; `usage` shows the budget reached.
    let dry = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["run", "--dry-run", "third"])
        .output();
    assert_eq!(code(&dry), 0, "{}", stderr(&dry));
    assert!(
        stderr(&dry).contains("without --dry-run this run would exit 5: the daily budget"),
        "{}",
        stderr(&dry)
    );
    let report = usage_report(&home, &[]);
    let budgets: Vec<(&str, bool)> = report
        .budgets
        .iter()
        .map(|budget| (budget.budget.as_str(), budget.exceeded))
        .collect();
    assert_eq!(budgets, [("daily", true), ("monthly", false)]);
    let status = home.run(&["status"]);
    assert_eq!(code(&status), 0, "{}", stderr(&status));
    assert!(
        stdout(&status).contains("(reached: runs exit 5)"),
        "{}",
        stdout(&status)
    );
    // Raised for one run with -c, the run goes ahead.
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["-c", "budget.daily_usd=1", "run", "--json", "fourth"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
}

#[test]
fn the_ledger_outlives_the_session_index() {
    let home = Home::new();
    let server = MockServer::start(vec![text("one"), text("two")]);
    assert_eq!(code(&run(&home, &server, &["--name", "kept", "one"])), 0);
    let mut removed = 0;
    for entry in std::fs::read_dir(home.sessions_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.to_string_lossy().contains("index.sqlite3") {
            std::fs::remove_file(&path).unwrap();
            removed += 1;
        }
    }
    assert!(removed > 0, "the test removes the index");
    let output = home.run(&["sessions", "list", "--all"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(code(&run(&home, &server, &["two"])), 0);
    let report = usage_report(&home, &["--by", "session"]);
    assert_eq!(report.runs, 2);
    assert!(
        report
            .groups
            .iter()
            .any(|group| group.key.as_deref() == Some("kept"))
    );
}

/// `[budget]` in this home's config.toml.
fn budget(home: &Home, table: &str) {
    std::fs::write(home.home.join("config.toml"), format!("[budget]\n{table}")).unwrap();
}

/// `count` runs of `args` started together; their outputs, in start order.
fn together(
    home: &Home,
    server: &MockServer,
    count: usize,
    args: &[&str],
) -> Vec<std::process::Output> {
    let children: Vec<_> = (0..count)
        .map(|n| {
            home.pincer()
                .provider(&protocols::anthropic(), server)
                .args(["run", "--json", "--tag", &format!("worker-{n}")])
                .args(args)
                .arg("go")
                .spawn()
        })
        .collect();
    children
        .into_iter()
        .map(|child| child.wait_with_output().unwrap())
        .collect()
}

/// Each refusal of `outputs` is a budget's: exit 5, a result object whose error is
/// `budget_exceeded`. Returns how many ran (exit 0).
fn ran_or_refused_by_budget(outputs: &[std::process::Output]) -> usize {
    let mut ran = 0;
    for output in outputs {
        match code(output) {
            0 => ran += 1,
            5 => {
                let result = result_of(output);
                assert_eq!(result.error.unwrap().kind, "budget_exceeded");
            }
            other => panic!("exit {other}: {}", stderr(output)),
        }
    }
    ran
}

/// Trust IV (#45) item 4: six runs started together against a daily budget that one run uses
/// up all ran. Each run now reserves its worst case (here the default `reserve_usd`, $1) under
/// the ledger's lock before its first request: one runs, five exit 5 before any request.
#[test]
fn six_runs_started_together_against_a_budget_one_run_uses_up_run_once() {
    let home = Home::new();
    budget(&home, &format!("daily_usd = {RUN_COST}\n"));
    let server = MockServer::start((0..6).map(|_| text("ok")).collect());
    let outputs = together(&home, &server, 6, &[]);
    assert_eq!(ran_or_refused_by_budget(&outputs), 1);
    assert_eq!(server.requests().len(), 1, "one request in all");
    assert_eq!(ledger_lines(&home).len(), 1);
    let refusal = outputs.iter().find(|output| code(output) == 5).unwrap();
    let message = result_of(refusal).error.unwrap().message;
    assert!(
        message.contains("the daily budget is spent")
            || message.contains("reserved by 1 run(s) in progress"),
        "{message}"
    );
    assert_eq!(
        std::fs::read_dir(home.home.join("usage-reservations"))
            .unwrap()
            .count(),
        0,
        "every reservation settled or dropped"
    );
}

/// Reliability IV (#46) item 6: 32 simultaneous runs spent 9.9× a daily budget. With
/// reservations, runs that each reserve their `--max-budget-usd` spend at most the limit plus
/// one run's reservation (docs: `[budget]`): here a limit of 3.5 runs lets exactly four run.
#[test]
fn thirty_two_concurrent_runs_spend_at_most_the_limit_and_one_runs_reservation() {
    let home = Home::new();
    let limit = 3.5 * RUN_COST;
    budget(&home, &format!("daily_usd = {limit}\n"));
    let server = MockServer::start((0..32).map(|_| text("ok")).collect());
    let max = RUN_COST.to_string();
    let outputs = together(&home, &server, 32, &["--max-budget-usd", &max]);
    let ran = ran_or_refused_by_budget(&outputs);
    let report = usage_report(&home, &[]);
    assert!(
        report.total_cost_usd <= limit + RUN_COST,
        "spent {} against a limit of {limit} and a reservation of {RUN_COST}",
        report.total_cost_usd
    );
    assert_eq!(
        ran, 4,
        "runs while spend and reservations are under 3.5 runs"
    );
    assert_eq!(server.requests().len(), 4);
    assert_eq!(report.runs, 4);
}

/// A reservation is held by a lock of its run's process: a run killed mid-request stops
/// reserving at once, without an expiry to wait for, and its file is swept.
#[test]
fn a_killed_runs_reservation_stops_counting_at_once() {
    let home = Home::new();
    budget(&home, &format!("daily_usd = {}\n", RUN_COST / 2.0));
    let stalled = Reply::sse_pieces(vec![Piece::Stall(Duration::from_secs(30))]);
    let server = MockServer::start(vec![stalled, text("after")]);
    let mut child = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["run", "--json", "--max-budget-usd", "0.25", "first"])
        .spawn();
    let deadline = Instant::now() + Duration::from_secs(20);
    while server.requests().is_empty() {
        assert!(Instant::now() < deadline, "the first run sent no request");
        std::thread::sleep(Duration::from_millis(10));
    }
    let refused = run(&home, &server, &["second"]);
    assert_eq!(code(&refused), 5, "{}", stderr(&refused));
    let message = result_of(&refused).error.unwrap().message;
    assert!(
        message.contains("$0.2500 reserved by 1 run(s) in progress"),
        "{message}"
    );
    child.kill().unwrap();
    child.wait().unwrap();
    let third = run(&home, &server, &["third"]);
    assert_eq!(code(&third), 0, "{}", stderr(&third));
    assert_eq!(
        std::fs::read_dir(home.home.join("usage-reservations"))
            .unwrap()
            .count(),
        0,
        "the killed run's reservation was swept"
    );
}

/// Trust IV (#45), "pincer's own files": a prompt-injected model appends a ledger line with
/// `cost_usd: -1e9` (here with every permission, so that the write lands whatever else
/// protects the home). The line is never summed: the next run is still refused.
#[test]
fn a_negative_cost_line_written_by_a_command_does_not_disable_the_budget() {
    let home = Home::new();
    budget(&home, &format!("daily_usd = {}\n", 1.5 * RUN_COST));
    let ledger = ledger(&home);
    let line = format!(
        r#"{{"time":"{}","cost_usd":-1e9,"exit_class":"success"}}"#,
        time::OffsetDateTime::now_utc()
            .format(&time::format_description::well_known::Rfc3339)
            .unwrap()
    );
    let command = json!({
        "command": format!("printf '%s\\n' '{line}' >> '{}'", ledger.display())
    })
    .to_string();
    let server = MockServer::start(vec![
        Reply::sse(&wire::tool_use_stream(
            None,
            &[("c1", "exec", &command)],
            Usage4 {
                input: 100,
                output: 10,
                cache_read: 1_000,
                cache_write: 200,
            },
        )),
        text("done"),
        text("never"),
    ]);
    let first = run(
        &home,
        &server,
        &["--sandbox", "danger-full-access", "make room"],
    );
    assert_eq!(code(&first), 0, "{}", stderr(&first));
    let text = std::fs::read_to_string(&ledger).unwrap();
    assert!(text.contains("-1e9"), "the command wrote its line: {text}");
    let next = run(&home, &server, &["again"]);
    assert_eq!(code(&next), 5, "{}", stderr(&next));
    assert_eq!(server.requests().len(), 2, "no request after the budget");
    let report = usage_report(&home, &[]);
    assert!(close(report.total_cost_usd, 2.0 * RUN_COST));
    assert_eq!(report.skipped_lines, 1);
}

/// A replayed turn called no model: it costs nothing in its result, in its session and in
/// `status`, whose price table would otherwise price the recorded usage (issue #47 item 11: the
/// keyless quick start said "no cost" and `status --last` showed one). A real turn on the same
/// session afterwards costs what it costs, and only it reaches the ledger.
#[test]
fn a_replayed_turn_costs_nothing_in_its_result_session_and_status_and_a_real_one_after_it_does() {
    let home = Home::new();
    let cassette =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/quickstart.cassette.jsonl");
    let replayed = home
        .pincer()
        .args(["run", "--json", "--replay-mode", "lenient", "--replay"])
        .arg(&cassette)
        .arg("What is in this directory?")
        .output();
    assert_eq!(code(&replayed), 0, "{}", stderr(&replayed));
    let result = result_of(&replayed);
    assert_eq!(result.total_cost_usd, 0.0);
    assert!(
        result.usage.input_tokens > 0,
        "the replayed usage is still reported"
    );
    let status = |home: &Home| -> Value {
        let output = home.run(&["status", "--last", "--json"]);
        assert_eq!(code(&output), 0, "{}", stderr(&output));
        serde_json::from_str(&stdout(&output)).unwrap()
    };
    let before = status(&home);
    assert_eq!(before["total_cost_usd"], 0.0, "{before}");
    assert!(
        before["usage"]["input_tokens"].as_u64().unwrap() > 0,
        "{before}"
    );
    let file = before["file"].as_str().unwrap().to_owned();
    let session = std::fs::read_to_string(&file).unwrap();
    let markers: Vec<Value> = session
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|entry| entry["customType"] == "pincer.replayed")
        .collect();
    assert_eq!(markers.len(), 2, "one per replayed call:\n{session}");
    assert_eq!(markers[0]["type"], "custom");
    assert_eq!(markers[0]["data"]["model"], "claude-sonnet-4-5");

    let server = MockServer::start(vec![text("real")]);
    let real = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args([
            "resume",
            "--last",
            "--json",
            "-m",
            "anthropic/claude-sonnet-4-5",
            "and now?",
        ])
        .output();
    assert_eq!(code(&real), 0, "{}", stderr(&real));
    assert!(close(result_of(&real).total_cost_usd, RUN_COST));
    let after = status(&home);
    assert!(
        close(after["total_cost_usd"].as_f64().unwrap(), RUN_COST),
        "{after}"
    );
    assert_eq!(ledger_lines(&home).len(), 1);
}
