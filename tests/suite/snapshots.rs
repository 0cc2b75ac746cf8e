//! insta snapshots (`tests/suite/snapshots/*.snap`) of what scripts and people read: every
//! command's `--help`, the `--json` result object and the stream-json lines of a tool turn.
//! Values that differ between runs (ids, durations, pincer's version, the temporary home) are
//! replaced by placeholders before the comparison, so a snapshot changes only when the output
//! does.
//!
//! A mismatch fails the test with a diff (and, outside CI, leaves a `.snap.new` beside the
//! snapshot for `cargo insta review`); `INSTA_UPDATE=always cargo test --test all snapshots`
//! rewrites the snapshots without cargo-insta.

use clap::CommandFactory as _;
use pincer::cli::Cli;
use serde_json::{Value, json};

use super::cli_surface::leaf_commands;
use super::run_flags::tool_turn;
use crate::common::{Home, code, stderr, stdout};

/// `value` with what differs between runs replaced: ids, durations, the version, the prompt
/// overhead, and the home's paths (the workspace first, then the temporary root it lives in).
fn normalize(mut value: Value, home: &Home) -> Value {
    fn walk(value: &mut Value, paths: &[(String, &str)]) {
        match value {
            Value::Object(map) => {
                for (key, item) in map.iter_mut() {
                    match key.as_str() {
                        "session_id" | "uuid" | "entry_id" if item.is_string() => {
                            *item = json!("<id>");
                        }
                        "duration_ms" | "duration_api_ms" => *item = json!(0),
                        "pincer_version" => *item = json!("<version>"),
                        // The system prompt holds the date and the workspace's path.
                        "overhead_tokens" if item.is_u64() => *item = json!("<tokens>"),
                        _ => walk(item, paths),
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|item| walk(item, paths)),
            Value::String(text) => {
                for (path, placeholder) in paths {
                    *text = text.replace(path.as_str(), placeholder);
                }
            }
            _ => {}
        }
    }
    let paths = [
        (home.workspace.to_string_lossy().into_owned(), "<workspace>"),
        (home.root.path().to_string_lossy().into_owned(), "<root>"),
    ];
    walk(&mut value, &paths);
    value
}

/// Every stdout line of `output` as JSON, normalized, pretty-printed as one array.
fn normalized_lines(output: &std::process::Output, home: &Home) -> String {
    let lines: Vec<Value> = stdout(output)
        .lines()
        .map(|line| normalize(serde_json::from_str(line).unwrap(), home))
        .collect();
    serde_json::to_string_pretty(&lines).unwrap()
}

#[test]
fn the_stream_json_lines_of_a_tool_turn() {
    let home = Home::new();
    let output = tool_turn(&home, &["--output-format", "stream-json"]);
    insta::assert_snapshot!(
        "stream_json_tool_turn",
        normalized_lines(&output, &home),
        "pincer run 'read a.txt' --output-format stream-json"
    );
}

#[test]
fn the_json_result_of_a_tool_turn() {
    let home = Home::new();
    let output = tool_turn(&home, &["--json"]);
    let result = normalize(serde_json::from_str(&stdout(&output)).unwrap(), &home);
    insta::assert_snapshot!(
        "json_result_tool_turn",
        serde_json::to_string_pretty(&result).unwrap(),
        "pincer run 'read a.txt' --json"
    );
}

/// `pincer --help` and the `--help` of every command below it that a user can run: each leaf
/// and each command that groups leaves (`sessions`, `auth`, …).
#[test]
fn the_help_of_every_command() {
    let mut leaves = Vec::new();
    leaf_commands(&Cli::command(), &mut Vec::new(), &mut leaves);
    let mut commands: Vec<Vec<String>> = vec![Vec::new()];
    for leaf in &leaves {
        for end in 1..=leaf.len() {
            if !commands.contains(&leaf[..end].to_vec()) {
                commands.push(leaf[..end].to_vec());
            }
        }
    }
    let home = Home::new();
    for command in &commands {
        let mut args: Vec<&str> = command.iter().map(String::as_str).collect();
        args.push("--help");
        let output = home.run(&args);
        let shown = format!("pincer {}", args.join(" "));
        assert_eq!(code(&output), 0, "{shown}: {}", stderr(&output));
        let name = ["help"]
            .into_iter()
            .chain(command.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join("_");
        insta::assert_snapshot!(name, stdout(&output), &shown);
    }
}
