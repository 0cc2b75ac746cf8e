//! What stdout carries (SPEC §3, §3.1, §3.2; issue #47 items 1–3, issue #46 item 5): in text
//! mode the answer alone — the last assistant message, never the text written before a tool
//! call — written once, whole, when stdout is not a terminal; result objects on one line; and a
//! result that cannot be written is an error, while a reader that went away is not.

use std::fs::File;
use std::process::Stdio;
use std::time::Duration;

use pretty_assertions::assert_eq;
use serde_json::json;

use crate::common::mock::{MockServer, Reply};
use crate::common::protocols;
use crate::common::wire::anthropic::{self as wire, Usage4};
use crate::common::{Home, code, stderr, stdout};

fn usage() -> Usage4 {
    Usage4 {
        input: 40,
        output: 9,
        cache_read: 0,
        cache_write: 0,
    }
}

/// What the model says before it calls a tool: the text `msg=$(pincer run …)` must not get.
const BEFORE_TOOL: &str = "Let me read the README first.";

/// A tool turn: text, then an `exec` of `echo hi`; then the answer.
fn tool_turn_with_text() -> Vec<Reply> {
    let arguments = json!({"command": "echo hi"}).to_string();
    vec![
        Reply::sse(&wire::tool_use_stream(
            Some(BEFORE_TOOL),
            &[("toolu_01", "exec", &arguments)],
            usage(),
        )),
        Reply::sse(&wire::text_stream(&["It says ", "hi."], usage())),
    ]
}

/// Regression (#47 item 1): `msg=$(pincer run …)` after a tool turn got the text before the
/// tool call, a blank line, then the answer. The three faces of text mode — `run`, claude's
/// `-p` and codex's `exec` — print the last message alone; the text before the tool call shows
/// on stderr with `-v` (stderr is not a terminal here) and nowhere without it.
#[test]
fn text_mode_stdout_is_the_last_message_alone_after_a_tool_turn_in_every_face() {
    let model = protocols::anthropic().model;
    let faces: [(&str, Vec<&str>); 3] = [
        ("run", vec!["run", "-m", model, "go"]),
        ("claude -p", vec!["-p", "go", "--model", model]),
        (
            "codex exec",
            vec!["exec", "-m", model, "--skip-git-repo-check", "go"],
        ),
    ];
    for (face, args) in faces {
        for verbose in [false, true] {
            let home = Home::new();
            let server = MockServer::start(tool_turn_with_text());
            let mut command = home.pincer().provider(&protocols::anthropic(), &server);
            if verbose {
                command = command.arg("-v");
            }
            let output = command.args(&args).output();
            assert_eq!(code(&output), 0, "{face}: {}", stderr(&output));
            assert_eq!(stdout(&output), "It says hi.\n", "{face}, -v {verbose}");
            let log = stderr(&output);
            assert_eq!(
                log.lines().any(|line| line == BEFORE_TOOL),
                verbose,
                "{face}, -v {verbose}: {log}"
            );
            assert_eq!(server.requests().len(), 2, "{face}");
        }
    }
}

/// The answer of a run, streamed as many small pieces `pace` apart, ending with its `tag`.
fn slow_answer(tag: usize, pace: Duration) -> Reply {
    let words: Vec<String> = (0..12).map(|word| format!("w{word}-{tag} ")).collect();
    let mut chunks: Vec<&str> = words.iter().map(String::as_str).collect();
    let end = format!("end-{tag}.");
    chunks.push(&end);
    Reply::sse(&wire::text_stream(&chunks, usage())).paced(pace)
}

/// Regression (#47 item 2): `xargs -P4 … pincer run … > out` interleaved four answers word by
/// word. Four runs share one open file, as a shell's `>` gives it to the jobs of `xargs -P`
/// (one file description, one offset); their answers stream in pieces at the same time, and
/// still each answer is one whole line of the file.
#[test]
fn parallel_runs_into_one_file_write_whole_answers_that_never_interleave() {
    const RUNS: usize = 4;
    let home = Home::new();
    let out = home.workspace.join("answers.txt");
    let shared = File::create(&out).unwrap();
    let servers: Vec<MockServer> = (0..RUNS)
        .map(|tag| MockServer::start(vec![slow_answer(tag, Duration::from_millis(25))]))
        .collect();
    let children: Vec<_> = servers
        .iter()
        .map(|server| {
            let mut command = home
                .pincer()
                .provider(&protocols::anthropic(), server)
                .args(["run", "--ephemeral", "go"])
                .command();
            command
                .stdout(Stdio::from(shared.try_clone().unwrap()))
                .stderr(Stdio::null());
            command.spawn().unwrap()
        })
        .collect();
    for mut child in children {
        assert!(child.wait().unwrap().success());
    }
    let text = std::fs::read_to_string(&out).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.sort_unstable();
    let mut expected: Vec<String> = (0..RUNS)
        .map(|tag| {
            let words: String = (0..12).map(|word| format!("w{word}-{tag} ")).collect();
            format!("{words}end-{tag}.")
        })
        .collect();
    expected.sort_unstable();
    assert_eq!(lines, expected, "{text:?}");
    assert!(text.ends_with('\n'));
}

/// Regression (#46 item 5): `run --json … >/dev/full` warned and exited 0 with nothing on
/// stdout. A result (or an answer) that cannot be written is an error exit, named on stderr,
/// and the turn is saved all the same.
#[test]
fn a_result_that_cannot_be_written_is_an_error_exit_and_the_turn_stays_saved() {
    for format in ["text", "json", "stream-json"] {
        let home = Home::new();
        let protocol = protocols::anthropic();
        let server = MockServer::start(vec![Reply::sse(&(protocol.text)(&["the answer"]))]);
        let mut command = home
            .pincer()
            .provider(&protocol, &server)
            .args(["--output-format", format, "run", "-m", protocol.model, "go"])
            .command();
        command
            .stdout(File::options().write(true).open("/dev/full").unwrap())
            .stderr(Stdio::piped());
        let output = command.output().unwrap();
        let err = stderr(&output);
        assert_eq!(code(&output), 1, "{format}: {err}");
        let what = match format {
            "text" => "the answer",
            "json" => "the result",
            _ => "the run's events",
        };
        assert!(
            err.contains(&format!(
                "error: cannot write {what} to stdout: No space left on device"
            )),
            "{format}: {err}"
        );
        assert!(
            err.contains("hint: the turn is saved: `pincer sessions show "),
            "{err}"
        );
        // The turn is in the session.
        let lines = home.session_lines();
        assert!(
            lines
                .iter()
                .any(|line| line.to_string().contains("the answer")),
            "{format}: {lines:?}"
        );
    }
}

/// A reader that goes away before the answer (`pincer run … | head -c0`, a closed pipe) is
/// not an error: the run ends quietly with its own exit code, as it always did.
#[test]
fn a_reader_that_went_away_is_not_an_error() {
    for format in ["text", "json"] {
        let home = Home::new();
        let protocol = protocols::anthropic();
        let server = MockServer::start(vec![
            Reply::sse(&(protocol.text)(&["the ", "answer"])).paced(Duration::from_millis(150)),
        ]);
        let mut child = home
            .pincer()
            .provider(&protocol, &server)
            .args(["--output-format", format, "run", "-m", protocol.model, "go"])
            .spawn();
        drop(child.stdout.take());
        let output = child.wait_with_output().unwrap();
        assert_eq!(code(&output), 0, "{format}: {}", stderr(&output));
        assert!(!stderr(&output).contains("error"), "{}", stderr(&output));
    }
}

/// Regression (#47 item 3): `compact --json` and the maintenance commands' `--json` were
/// pretty-printed over many lines, which broke `>> results.jsonl` and line readers. Through a
/// pipe every result object is one line, the rule `run --json` already kept.
#[test]
fn every_commands_json_result_is_one_line_through_a_pipe() {
    let home = Home::new();
    let protocol = protocols::anthropic();
    let server = MockServer::start(vec![Reply::sse(&(protocol.text)(&["the answer"]))]);
    let output = home
        .pincer()
        .provider(&protocol, &server)
        .args(["run", "--json", "-m", protocol.model, "--name", "one", "go"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let commands: [&[&str]; 7] = [
        &["run", "--json", "-m", protocol.model, "--dry-run", "go"],
        &["status", "one", "--json"],
        &["status", "--json"],
        &["usage", "--json"],
        &["auth", "--json"],
        &["sessions", "list", "--json"],
        &["compact", "one", "--dry-run", "--json"],
    ];
    for args in commands {
        let output = home
            .pincer()
            .provider(&protocol, &server)
            .args(args)
            .output();
        assert_eq!(code(&output), 0, "{args:?}: {}", stderr(&output));
        let out = stdout(&output);
        assert_eq!(out.lines().count(), 1, "{args:?}: {out}");
        assert!(out.ends_with('\n'), "{args:?}: {out:?}");
        serde_json::from_str::<serde_json::Value>(&out)
            .unwrap_or_else(|error| panic!("{args:?}: {error}: {out}"));
    }
}

/// Regression (#47 item 6): costs printed as `0.022418999999999998`, the noise of adding
/// floats. Every amount in dollars carries the digits its prices can mean: 1,518 input, 1,111
/// output and 777 cache-read tokens on claude-sonnet-4-5 (3, 15 and 0.30 $/M) are $0.0214521,
/// in the result object, `status` and `usage` alike.
#[test]
fn costs_print_the_digits_the_price_table_carries_in_every_output() {
    let home = Home::new();
    let protocol = protocols::anthropic();
    let usage = Usage4 {
        input: 1_518,
        output: 1_111,
        cache_read: 777,
        cache_write: 0,
    };
    let server = MockServer::start(vec![Reply::sse(&wire::text_stream(&["the answer"], usage))]);
    let output = home
        .pincer()
        .provider(&protocol, &server)
        .args(["run", "--json", "-m", protocol.model, "--name", "one", "go"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let result = stdout(&output);
    assert!(
        result.contains(r#""total_cost_usd":0.0214521,"#),
        "{result}"
    );
    assert!(result.contains(r#""costUSD":0.0214521,"#), "{result}");
    for args in [&["status", "one", "--json"][..], &["usage", "--json"]] {
        let output = home.pincer().args(args).output();
        assert_eq!(code(&output), 0, "{args:?}: {}", stderr(&output));
        let out = stdout(&output);
        assert!(
            out.contains(r#""total_cost_usd":0.0214521,"#),
            "{args:?}: {out}"
        );
        assert!(!out.contains("99999"), "{args:?}: {out}");
    }
}

/// Regression (#47 item 5): codex users asked for a version after an output change broke
/// their parsers. The init event, the result object of every face and `compact --json` carry
/// `schema_version`, and the published JSON Schemas pin the same number.
#[test]
fn the_init_event_and_every_result_object_carry_the_schema_version() {
    let home = Home::new();
    let protocol = protocols::anthropic();
    let server = MockServer::start(vec![
        Reply::sse(&(protocol.text)(&["one"])),
        Reply::sse(&(protocol.text)(&["two"])),
    ]);
    let streamed = home
        .pincer()
        .provider(&protocol, &server)
        .args([
            "--output-format",
            "stream-json",
            "run",
            "-m",
            protocol.model,
        ])
        .args(["--name", "one", "go"])
        .output();
    assert_eq!(code(&streamed), 0, "{}", stderr(&streamed));
    let lines: Vec<serde_json::Value> = stdout(&streamed)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let (init, result) = (&lines[0], &lines[lines.len() - 1]);
    assert_eq!(init["subtype"], "init", "{init}");
    assert_eq!(init["schema_version"], 2, "{init}");
    assert_eq!(result["type"], "result", "{result}");
    assert_eq!(result["schema_version"], 2, "{result}");

    let commands: [&[&str]; 3] = [
        &["resume", "one", "--json", "again"],
        &["compact", "one", "--dry-run", "--json"],
        // An early failure's result object too.
        &["resume", "no-such-session", "--json", "x"],
    ];
    for args in commands {
        let output = home
            .pincer()
            .provider(&protocol, &server)
            .args(args)
            .output();
        let value: serde_json::Value = serde_json::from_str(&stdout(&output))
            .unwrap_or_else(|error| panic!("{args:?}: {error}: {}", stderr(&output)));
        assert_eq!(value["schema_version"], 2, "{args:?}: {value}");
    }

    let schemas = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/reference/schemas");
    for name in ["result.schema.json", "stream-json.schema.json"] {
        let text = std::fs::read_to_string(schemas.join(name)).unwrap();
        assert!(text.contains(r#""const": 2"#), "{name}");
        assert!(text.contains("schema_version"), "{name}");
    }
}
