//! What the model is offered and what it may do, end to end against the mock provider: `exec`
//! allow rules read with a shell grammar, read-only runs that offer no writing tool on every
//! protocol, and every refusal (policy, sandbox mode, confinement, protected path) listed in
//! `permission_denials` (SPEC §10).

use std::process::Output;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::common::mock::{MockServer, Reply};
use crate::common::protocols::{self, Protocol, offered_tools};
use crate::common::{Home, code, stderr, stdout};

const WRITING_TOOLS: [&str; 3] = ["write", "edit", "apply_patch"];

fn text(protocol: &Protocol, answer: &str) -> Reply {
    Reply::sse(&(protocol.text)(&[answer]))
}

fn tool(protocol: &Protocol, id: &str, name: &str, arguments: Value) -> Reply {
    Reply::sse(&(protocol.tool_call)(id, name, &arguments))
}

/// The mock's replies for a turn whose model makes `calls` (id, tool, arguments) one per step,
/// then answers `answer`.
fn scripted(protocol: &Protocol, calls: &[(String, &str, Value)], answer: &str) -> Vec<Reply> {
    let mut replies: Vec<Reply> = calls
        .iter()
        .map(|(id, name, arguments)| tool(protocol, id, name, arguments.clone()))
        .collect();
    replies.push(text(protocol, answer));
    replies
}

/// `pincer run -m MODEL FLAGS… PROMPT` against the mock; the run must succeed.
fn run_turn(home: &Home, protocol: &Protocol, server: &MockServer, flags: &[&str]) -> Output {
    // The run's temp dir is a writable root; the harness gives it its own (`home.tmp`), so the
    // rest of the test's scratch space counts as outside the workspace.
    let output = home
        .pincer()
        .provider(protocol, server)
        .args(["run", "-m", protocol.model])
        .args(flags)
        .arg("go")
        .output();
    assert_eq!(code(&output), 0, "{}: {}", protocol.name, stderr(&output));
    output
}

/// `permission_denials` as claude reports it for these calls.
fn denials(calls: &[(String, &str, Value)]) -> Value {
    calls
        .iter()
        .map(|(id, name, arguments)| {
            json!({"tool_name": name, "tool_use_id": id, "tool_input": arguments})
        })
        .collect()
}

fn result_of(output: &Output) -> Value {
    let text = stdout(output);
    let last = text.lines().last().unwrap_or_default();
    serde_json::from_str(last).unwrap_or_else(|error| panic!("{error}: {last}"))
}

/// The tool results the model was sent in a request body, as text, in order.
fn tool_results(body: &Value) -> Vec<String> {
    fn walk(value: &Value, results: &mut Vec<String>) {
        match value {
            Value::Array(items) => items.iter().for_each(|item| walk(item, results)),
            Value::Object(object) => {
                let kind = object.get("type").and_then(Value::as_str);
                if kind == Some("tool_result") {
                    results.push(object["content"].to_string());
                    return;
                }
                object.values().for_each(|inner| walk(inner, results));
            }
            _ => {}
        }
    }
    let mut results = Vec::new();
    walk(&body["messages"], &mut results);
    results
}

#[test]
fn an_exec_allow_rule_never_runs_a_command_line_that_is_not_plain_commands() {
    let protocol = protocols::anthropic();
    let home = Home::new();
    // Each line would create `pwned` (or write a file) if the shell ran it.
    let attacks = [
        "git log \"$(touch pwned)\"",
        "git status\ntouch pwned",
        "git status; touch pwned",
        "bash -c 'touch pwned'",
        "eval touch pwned",
        "git log > pwned",
        "git log `touch pwned`",
        "env GIT_DIR=x touch pwned",
        "git status & touch pwned",
        "git log <<EOF\n$(touch pwned)\nEOF",
    ];
    let mut calls: Vec<(String, &str, Value)> = attacks
        .iter()
        .enumerate()
        .map(|(index, line)| (format!("toolu_{index}"), "exec", json!({"command": line})))
        .collect();
    // A plain command the rules allow still runs, `;` inside quotes included.
    calls.push((
        "toolu_ok".to_owned(),
        "exec",
        json!({"command": "touch 'ran; fine'"}),
    ));
    let server = MockServer::start(scripted(&protocol, &calls, "I stayed within the rules."));
    let output = run_turn(
        &home,
        &protocol,
        &server,
        &[
            "--allowed-tools",
            "exec(git *),exec(touch 'ran; fine')",
            "--json",
        ],
    );
    assert!(!home.workspace.join("pwned").exists());
    assert!(home.workspace.join("ran; fine").exists());
    let result = result_of(&output);
    assert_eq!(
        result["permission_denials"],
        denials(&calls[..attacks.len()])
    );
    let last = server.requests().last().unwrap().json();
    let results = tool_results(&last);
    assert_eq!(results.len(), attacks.len() + 1);
    for (line, sent) in attacks.iter().zip(&results) {
        assert!(sent.contains("Permission denied"), "{line:?}: {sent}");
    }
    assert!(
        results[0].contains("a command substitution"),
        "{}",
        results[0]
    );
    assert!(
        !results[attacks.len()].contains("Permission denied"),
        "{}",
        results[attacks.len()]
    );
}

#[test]
fn an_exec_deny_rule_is_not_bypassed_by_aliases_sourced_text_or_command_running_wrappers() {
    let protocol = protocols::anthropic();
    let home = Home::new();
    // Each line would delete `victim` if the shell ran it.
    let attacks = [
        "alias x=rm; x -rf victim",
        "alias x=rm\nx -rf victim",
        ". /dev/stdin <<< 'rm -rf victim'",
        "source <(echo rm -rf victim)",
        ". /dev/stdin <<EOF\nrm -rf victim\nEOF",
        "flock lockfile rm -rf victim",
        "flock -c 'rm -rf victim' lockfile",
        "flock lockfile -c 'rm -rf victim'",
        "script -qc 'rm -rf victim' /dev/null",
        "busybox rm -rf victim",
        "env -S 'rm -rf victim'",
        "env --split-string='rm -rf victim'",
        "env -S'rm\\_-rf\\_victim'",
    ];
    let mut calls: Vec<(String, &str, Value)> = attacks
        .iter()
        .enumerate()
        .map(|(index, line)| (format!("toolu_{index}"), "exec", json!({"command": line})))
        .collect();
    // Ordinary lines through the same programs still run.
    for (index, line) in [
        "env FOO=1 touch ran-env",
        "flock lockfile touch ran-flock",
        "flock lockfile -c 'touch ran-flock-c'",
        "env -S 'touch ran-split'",
    ]
    .iter()
    .enumerate()
    {
        calls.push((format!("toolu_ok{index}"), "exec", json!({"command": line})));
    }
    std::fs::create_dir(home.workspace.join("victim")).unwrap();
    std::fs::write(home.workspace.join("victim/keep.txt"), "still here\n").unwrap();
    let server = MockServer::start(scripted(&protocol, &calls, "I stayed within the rules."));
    let output = run_turn(
        &home,
        &protocol,
        &server,
        &["--disallowed-tools", "exec(rm *)", "--json"],
    );
    assert!(home.workspace.join("victim/keep.txt").exists());
    let result = result_of(&output);
    assert_eq!(
        result["permission_denials"],
        denials(&calls[..attacks.len()])
    );
    let last = server.requests().last().unwrap().json();
    let results = tool_results(&last);
    assert_eq!(results.len(), calls.len());
    for (line, sent) in attacks.iter().zip(&results) {
        assert!(sent.contains("Permission denied"), "{line:?}: {sent}");
        assert!(sent.contains("exec(rm *)"), "{line:?}: {sent}");
    }
    assert!(results[0].contains("an alias can make any word run any command"));
    for made in ["ran-env", "ran-flock", "ran-flock-c", "ran-split"] {
        assert!(home.workspace.join(made).exists(), "{made}: {results:?}");
    }
}

/// The tool names the system prompt lists on its `## Tools` line, from a request body's text.
fn prompt_tool_names(body: &str) -> Vec<String> {
    let start = body.find("## Tools\\n").expect("a tools section") + "## Tools\\n".len();
    let end = start + body[start..].find(". Call them").expect("the list's end");
    body[start..end].split(", ").map(str::to_owned).collect()
}

#[test]
fn read_only_runs_offer_no_writing_tool_on_any_protocol() {
    for protocol in protocols::all() {
        let home = Home::new();
        let server = MockServer::start(vec![
            text(&protocol, "looked"),
            text(&protocol, "planned"),
            text(&protocol, "wrote"),
        ]);
        let mut init_tools = Vec::new();
        for mode in [
            ["--sandbox", "read-only"],
            ["--permission-mode", "plan"],
            ["--sandbox", "workspace-write"],
        ] {
            let output = run_turn(
                &home,
                &protocol,
                &server,
                &[mode[0], mode[1], "--output-format", "stream-json"],
            );
            let init: Value = stdout(&output)
                .lines()
                .map(|line| serde_json::from_str::<Value>(line).unwrap())
                .find(|event| event["subtype"] == "init")
                .unwrap();
            init_tools.push(init["tools"].clone());
        }
        let requests = server.requests();
        assert_eq!(requests.len(), 3, "{}", protocol.name);
        for (index, request) in requests.iter().enumerate() {
            let body = request.json();
            let tools = offered_tools(&body);
            let prompt = body.to_string();
            let read_only = index < 2;
            assert!(
                tools.contains(&"read".to_owned()),
                "{}: {tools:?}",
                protocol.name
            );
            let listed = prompt_tool_names(&prompt);
            assert!(listed.contains(&"read".to_owned()), "{}", protocol.name);
            for writing in WRITING_TOOLS {
                let offered = tools.iter().any(|name| name == writing);
                let described = listed.iter().any(|name| name == writing);
                // One editing vocabulary per request: apply_patch on the Responses API,
                // write and edit everywhere else.
                let expected =
                    !read_only && ((writing == "apply_patch") == (protocol.name == "openai"));
                assert_eq!(
                    offered, expected,
                    "{} request {index}: {writing} in {tools:?}",
                    protocol.name
                );
                assert_eq!(
                    described, expected,
                    "{} request {index}: {writing} in the prompt",
                    protocol.name
                );
            }
            assert_eq!(
                init_tools[index],
                json!(tools),
                "{}: system/init lists what the request offers",
                protocol.name
            );
        }
    }
}

#[test]
fn a_read_only_dry_run_shows_no_writing_tool() {
    let protocol = protocols::openai();
    let home = Home::new();
    let server = MockServer::start(vec![]);
    let output = run_turn(
        &home,
        &protocol,
        &server,
        &["--sandbox", "read-only", "--dry-run"],
    );
    let report: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(
        report["tools"],
        json!(["read", "exec", "ls", "find", "grep"])
    );
    assert_eq!(report["tool_policy"]["offered"], report["tools"]);
    assert_eq!(
        offered_tools(&report["body"]),
        ["read", "exec", "ls", "find", "grep"]
    );
    assert!(server.requests().is_empty());
}

#[test]
fn every_sandbox_refusal_is_an_error_result_listed_in_permission_denials() {
    let protocol = protocols::anthropic();
    let home = Home::new();
    let outside = home.root.path().join("outside.txt");
    std::fs::write(&outside, "outside secret").unwrap();
    std::fs::create_dir_all(home.workspace.join(".git")).unwrap();
    std::fs::write(home.workspace.join(".git/config"), "[core]\n").unwrap();
    std::os::unix::fs::symlink(home.root.path(), home.workspace.join("escape")).unwrap();
    let calls = [
        (
            "toolu_outside".to_owned(),
            "read",
            json!({"path": "../outside.txt"}),
        ),
        (
            "toolu_link".to_owned(),
            "read",
            json!({"path": "escape/outside.txt"}),
        ),
        (
            "toolu_git".to_owned(),
            "write",
            json!({"path": ".git/config", "content": "[core]\n\thooksPath = /tmp\n"}),
        ),
        // An ordinary failure is an error result, not a refusal.
        (
            "toolu_missing".to_owned(),
            "read",
            json!({"path": "missing.txt"}),
        ),
    ];
    let server = MockServer::start(scripted(&protocol, &calls, "refused"));
    let output = run_turn(&home, &protocol, &server, &["--json"]);
    assert_eq!(
        std::fs::read_to_string(home.workspace.join(".git/config")).unwrap(),
        "[core]\n"
    );
    let result = result_of(&output);
    assert_eq!(result["permission_denials"], denials(&calls[..3]));
    let results = tool_results(&server.requests().last().unwrap().json());
    assert_eq!(results.len(), 4);
    assert!(
        results[0].contains("is outside the workspace"),
        "{}",
        results[0]
    );
    assert!(
        results[1].contains("is outside the workspace"),
        "{}",
        results[1]
    );
    assert!(
        results[2].contains("read-only in the workspace-write sandbox"),
        "{}",
        results[2]
    );
    assert!(results[3].contains("File not found"), "{}", results[3]);
    assert!(!results.iter().any(|sent| sent.contains("outside secret")));
}

#[test]
fn a_writing_call_in_read_only_is_refused_and_listed() {
    let protocol = protocols::openai_chat();
    let home = Home::new();
    let calls = [(
        "call_w".to_owned(),
        "write",
        json!({"path": "notes.txt", "content": "x"}),
    )];
    let server = MockServer::start(scripted(&protocol, &calls, "could not"));
    let output = run_turn(
        &home,
        &protocol,
        &server,
        &["--sandbox", "read-only", "--json"],
    );
    assert!(!home.workspace.join("notes.txt").exists());
    let result = result_of(&output);
    assert_eq!(result["permission_denials"], denials(&calls));
    let body = server.requests()[1].json().to_string();
    assert!(body.contains("read-only sandbox"), "{body}");
}

#[test]
fn a_comma_inside_an_allow_pattern_on_the_command_line_belongs_to_the_pattern() {
    // clap used to split `--allowed-tools` at every comma, parentheses or not.
    let protocol = protocols::anthropic();
    let home = Home::new();
    let calls = [(
        "toolu_comma".to_owned(),
        "exec",
        json!({"command": "touch a,b"}),
    )];
    let server = MockServer::start(scripted(&protocol, &calls, "Done."));
    let output = run_turn(
        &home,
        &protocol,
        &server,
        &["--allowed-tools", "exec(touch a,b),read", "--json"],
    );
    let result = result_of(&output);
    assert_eq!(result["is_error"], false, "{result}");
    assert!(home.workspace.join("a,b").exists());
    assert_eq!(result["permission_denials"], json!([]));
}
