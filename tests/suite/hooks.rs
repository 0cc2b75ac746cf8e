//! Hooks (SPEC §14) end to end: real `sh` hook commands declared in config.toml or in a Claude
//! Code settings file, the model's tool calls scripted by the mock provider. Each event's stdin
//! is written to a file by the hook and checked field by field; blocks, denials, context, the
//! Stop loop and its bound, timeouts, the sandbox, the stream-json lines and the CLI backends'
//! arguments are checked on what pincer printed, exited with and sent.

use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::common::integrity::session_files;
use crate::common::mock::{MockServer, Reply};
use crate::common::protocols;
use crate::common::schema::printed;
use crate::common::wire::anthropic::{self as wire, Usage4};
use crate::common::{
    Home, anthropic_tool_turn, assert_none_running, background_sleeper, code, running_with, skip,
    stderr, stdout,
};
use crate::suite::backends::Bench;
// One model turn calling `exec` once per command (ids `c0`, `c1`, …), then "Done.".
use crate::suite::exec_sandbox::{exec_turn, usage};

/// A hook command that appends its stdin, one JSON document per line, to `log/NAME.jsonl` in
/// the workspace.
fn log_stdin(name: &str) -> String {
    format!("mkdir -p log && cat >> log/{name}.jsonl && echo >> log/{name}.jsonl")
}

/// What the hook `log_stdin(name)` read, one value per run.
fn logged(home: &Home, name: &str) -> Vec<Value> {
    let path = home.workspace.join("log").join(format!("{name}.jsonl"));
    match std::fs::read_to_string(&path) {
        Ok(text) => text
            .lines()
            .filter(|line| !line.trim().is_empty())
            .map(|line| serde_json::from_str(line).unwrap())
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// Write config.toml's `[[hooks.EVENT]]` tables: (event, matcher, command, extra TOML lines).
fn write_hooks(home: &Home, hooks: &[(&str, Option<&str>, &str, &str)]) {
    let mut text = String::new();
    for (event, matcher, command, extra) in hooks {
        text.push_str(&format!("[[hooks.{event}]]\n"));
        if let Some(matcher) = matcher {
            text.push_str(&format!("matcher = {}\n", toml_string(matcher)));
        }
        text.push_str(&format!("command = {}\n{extra}\n", toml_string(command)));
    }
    std::fs::write(home.home.join("config.toml"), text).unwrap();
}

fn toml_string(text: &str) -> String {
    Value::String(text.to_owned()).to_string()
}

fn text_reply(answer: &str) -> Reply {
    Reply::sse(&wire::text_stream(&[answer], usage()))
}

/// `pincer run -m anthropic… --output-format json ARGS… PROMPT` against `server`.
fn run(home: &Home, server: &MockServer, args: &[&str], prompt: &str) -> Output {
    let protocol = protocols::anthropic();
    home.pincer()
        .provider(&protocol, server)
        .args(["run", "-m", protocol.model, "--output-format", "json"])
        .args(args)
        .arg(prompt)
        .output()
}

fn result_of(output: &Output) -> Value {
    let text = stdout(output);
    let last = text.lines().last().unwrap_or_default();
    serde_json::from_str(last).unwrap_or_else(|error| panic!("{error}: {text}"))
}

fn lines_of(output: &Output) -> Vec<Value> {
    stdout(output)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// The one session file of `home`.
fn session_file(home: &Home) -> std::path::PathBuf {
    let files = session_files(&home.sessions_dir());
    assert_eq!(files.len(), 1, "{files:?}");
    files[0].clone()
}

/// The common fields claude documents for every event.
fn assert_common(input: &Value, event: &str, home: &Home, session_id: &str) {
    assert_eq!(input["hook_event_name"], event, "{input}");
    assert_eq!(input["session_id"], session_id, "{input}");
    assert_eq!(input["cwd"], home.workspace.to_string_lossy().as_ref());
    assert_eq!(input["permission_mode"], "acceptEdits");
    let transcript = input["transcript_path"].as_str().unwrap();
    assert_eq!(Path::new(transcript), session_file(home));
}

// ----- every event, with claude's documented input -----

#[test]
fn each_event_fires_once_with_claudes_documented_input() {
    let home = Home::new();
    let events = [
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "Stop",
        "SessionEnd",
    ];
    let commands: Vec<String> = events.iter().map(|event| log_stdin(event)).collect();
    let hooks: Vec<(&str, Option<&str>, &str, &str)> = events
        .iter()
        .zip(&commands)
        .map(|(event, command)| (*event, None, command.as_str(), ""))
        .collect();
    write_hooks(&home, &hooks);
    let server = MockServer::start(exec_turn(&["echo hi from exec"]));
    let output = run(&home, &server, &[], "list the files");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let result = result_of(&output);
    let session_id = result["session_id"].as_str().unwrap().to_owned();
    assert_eq!(result["result"], "Done.");

    let mut inputs = Vec::new();
    for event in events {
        let runs = logged(&home, event);
        assert_eq!(runs.len(), 1, "{event}: {runs:?}");
        assert_common(&runs[0], event, &home, &session_id);
        inputs.push(runs[0].clone());
    }
    let [start, submit, pre, post, stop, end] = &inputs[..] else {
        unreachable!()
    };
    assert_eq!(start["source"], "startup");
    assert_eq!(start["model"], "claude-sonnet-4-5");
    assert_eq!(submit["prompt"], "list the files");
    assert_eq!(pre["tool_name"], "Bash");
    assert_eq!(pre["tool_input"], json!({"command": "echo hi from exec"}));
    assert_eq!(pre["tool_use_id"], "c0");
    assert_eq!(post["tool_name"], "Bash");
    assert_eq!(post["tool_use_id"], "c0");
    assert_eq!(post["tool_response"]["stdout"], "hi from exec\n");
    assert_eq!(post["tool_response"]["is_error"], false);
    assert_eq!(post["tool_response"]["interrupted"], false);
    assert_eq!(stop["stop_hook_active"], false);
    assert_eq!(stop["last_assistant_message"], "Done.");
    assert_eq!(end["reason"], "other");

    // A resumed session starts with the `resume` source.
    let server = MockServer::start(vec![text_reply("Again.")]);
    let protocol = protocols::anthropic();
    let output = home
        .pincer()
        .provider(&protocol, &server)
        .args(["resume", &session_id, "--output-format", "json", "more"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let starts = logged(&home, "SessionStart");
    assert_eq!(starts.len(), 2);
    assert_eq!(starts[1]["source"], "resume");
    assert_eq!(starts[1]["session_id"], session_id.as_str());
}

#[test]
fn a_compaction_fires_pre_compact_then_session_start_compact_whose_context_reaches_the_model() {
    let home = Home::new();
    let context = "echo 'Remember: the release branch is frozen.'";
    write_hooks(
        &home,
        &[
            ("PreCompact", None, &log_stdin("PreCompact"), ""),
            (
                "SessionStart",
                Some("compact"),
                &log_stdin("SessionStart"),
                "",
            ),
            ("SessionStart", Some("compact"), context, ""),
        ],
    );
    std::fs::write(home.workspace.join("notes.txt"), "alpha\n").unwrap();
    let big = Usage4 {
        input: 2_880,
        ..usage()
    };
    let server = MockServer::start(vec![
        Reply::sse(&wire::tool_use_stream(
            None,
            &[("toolu_big", "read", "{\"path\":\"notes.txt\"}")],
            big,
        )),
        text_reply("## Goal\nShip it."),
        text_reply("Done after compaction."),
    ]);
    let output = run(
        &home,
        &server,
        &[
            "-c",
            "providers.anthropic.models.claude-sonnet-4-5.context_window=3000",
            "-c",
            "compaction.keep_recent_tokens=5",
            "-c",
            "compaction.reserve_tokens=500",
        ],
        "read the notes",
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let result = result_of(&output);
    assert_eq!(result["compactions"], 1);
    let pre = logged(&home, "PreCompact");
    assert_eq!(pre.len(), 1);
    assert_eq!(pre[0]["trigger"], "auto");
    assert_eq!(pre[0]["custom_instructions"], "");
    // Only the `compact` source matches: the run's own start is `startup`.
    let starts = logged(&home, "SessionStart");
    assert_eq!(starts.len(), 1, "{starts:?}");
    assert_eq!(starts[0]["source"], "compact");
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    let system = requests[2].json()["system"].to_string();
    assert!(system.contains("the release branch is frozen"), "{system}");
    assert!(
        !requests[0].json()["system"]
            .to_string()
            .contains("release branch")
    );
}

#[test]
fn pincer_compact_fires_pre_compact_with_the_manual_trigger_and_the_instructions() {
    let home = Home::new();
    write_hooks(&home, &[("PreCompact", None, &log_stdin("PreCompact"), "")]);
    let server = MockServer::start(vec![
        text_reply("First answer."),
        text_reply("Second answer."),
        text_reply("## Goal\nShip it."),
    ]);
    let output = run(&home, &server, &["--name", "long"], "first question");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let protocol = protocols::anthropic();
    let pincer = || home.pincer().provider(&protocol, &server);
    let output = pincer()
        .args(["resume", "long", "second question"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let output = pincer()
        .args(["-c", "compaction.keep_recent_tokens=5", "compact", "long"])
        .args(["--instructions", "keep the parser notes", "--json"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let runs = logged(&home, "PreCompact");
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0]["trigger"], "manual");
    assert_eq!(runs[0]["custom_instructions"], "keep the parser notes");
    assert_eq!(runs[0]["hook_event_name"], "PreCompact");
    assert_eq!(
        Path::new(runs[0]["transcript_path"].as_str().unwrap()),
        session_file(&home)
    );
}

// ----- PreToolUse -----

#[test]
fn a_pre_tool_use_hook_exiting_2_keeps_the_tool_from_running_on_every_protocol() {
    for protocol in protocols::all() {
        let home = Home::new();
        write_hooks(
            &home,
            &[(
                "PreToolUse",
                Some("Bash"),
                "echo 'pushing is not allowed here' >&2; exit 2",
                "",
            )],
        );
        let arguments = json!({"command": "touch pushed"});
        let server = MockServer::start(vec![
            Reply::sse(&(protocol.tool_call)("c0", "exec", &arguments)),
            Reply::sse(&(protocol.text)(&["Understood."])),
        ]);
        let output = home
            .pincer()
            .provider(&protocol, &server)
            .args(["run", "-m", protocol.model, "--output-format", "json", "go"])
            .output();
        assert_eq!(code(&output), 0, "{}: {}", protocol.name, stderr(&output));
        assert!(
            !home.workspace.join("pushed").exists(),
            "{}: the tool ran",
            protocol.name
        );
        let result = result_of(&output);
        let call_id = (protocol.stored_call_id)("c0");
        assert_eq!(
            result["permission_denials"],
            json!([{"tool_name": "exec", "tool_use_id": call_id, "tool_input": arguments}]),
            "{}",
            protocol.name
        );
        let sent = (protocol.tool_result)(&server.requests()[1].json(), "c0")
            .unwrap_or_else(|| panic!("{}: no tool result sent", protocol.name));
        assert!(
            sent.contains("Blocked by a PreToolUse hook: pushing is not allowed here"),
            "{}: {sent}",
            protocol.name
        );
    }
}

#[test]
fn a_json_deny_decision_blocks_and_an_allowed_call_still_meets_the_policy() {
    let home = Home::new();
    let deny = r#"cat > /dev/null; echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "writes are reviewed by a human"}}'"#;
    let allow =
        r#"cat > /dev/null; echo '{"hookSpecificOutput": {"permissionDecision": "allow"}}'"#;
    write_hooks(
        &home,
        &[
            ("PreToolUse", Some("Write"), deny, ""),
            ("PreToolUse", Some("exec"), allow, ""),
        ],
    );
    let replies = vec![
        Reply::sse(&wire::tool_use_stream(
            None,
            &[
                ("w0", "write", "{\"path\":\"out.txt\",\"content\":\"x\"}"),
                ("e0", "exec", "{\"command\":\"rm -rf build\"}"),
            ],
            usage(),
        )),
        text_reply("Done."),
    ];
    let server = MockServer::start(replies);
    let output = run(
        &home,
        &server,
        &["--disallowed-tools", "exec(rm *)"],
        "write it",
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(!home.workspace.join("out.txt").exists());
    let results = wire::tool_results(&server.requests()[1].json());
    let (write, write_error) = &results["w0"];
    assert!(*write_error);
    assert!(
        write.contains("Blocked by a PreToolUse hook: writes are reviewed by a human"),
        "{write}"
    );
    // A hook's allow does not lift the policy's deny rule.
    let (exec, exec_error) = &results["e0"];
    assert!(*exec_error && exec.contains("Permission denied"), "{exec}");
    let result = result_of(&output);
    let denied: Vec<&str> = result["permission_denials"]
        .as_array()
        .unwrap()
        .iter()
        .map(|denial| denial["tool_use_id"].as_str().unwrap())
        .collect();
    assert_eq!(denied, ["w0", "e0"]);
}

#[test]
fn a_hooks_updated_input_is_what_the_tool_runs_with() {
    let home = Home::new();
    let rewrite = r#"cat > /dev/null; echo '{"hookSpecificOutput": {"permissionDecision": "allow", "updatedInput": {"command": "echo rewritten > rewritten.txt"}}}'"#;
    write_hooks(&home, &[("PreToolUse", Some("Bash"), rewrite, "")]);
    let server = MockServer::start(exec_turn(&["echo original > original.txt"]));
    let output = run(&home, &server, &[], "go");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(home.workspace.join("rewritten.txt").exists());
    assert!(!home.workspace.join("original.txt").exists());
}

// ----- PostToolUse -----

#[test]
fn post_tool_use_sees_the_tool_response_and_its_feedback_and_context_reach_the_model() {
    let home = Home::new();
    std::fs::write(home.workspace.join("notes.txt"), "alpha\nbeta\n").unwrap();
    let feedback = r#"cat > /dev/null; echo '{"decision": "block", "reason": "lint found 2 problems", "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "the file is generated"}}'"#;
    write_hooks(
        &home,
        &[
            ("PostToolUse", Some("Read"), &log_stdin("PostToolUse"), ""),
            ("PostToolUse", Some("read"), feedback, ""),
        ],
    );
    let server = MockServer::start(anthropic_tool_turn(
        "Reading.",
        ("r", "read"),
        &[json!({"path": "notes.txt"})],
        usage(),
    ));
    let output = run(&home, &server, &[], "read it");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let post = logged(&home, "PostToolUse");
    assert_eq!(post.len(), 1);
    assert_eq!(post[0]["tool_name"], "Read");
    let notes = home.workspace.join("notes.txt");
    assert_eq!(
        post[0]["tool_input"]["file_path"],
        notes.to_string_lossy().as_ref()
    );
    let response = &post[0]["tool_response"];
    assert!(
        response["output"].as_str().unwrap().contains("alpha"),
        "{response}"
    );
    assert_eq!(response["success"], true);
    assert_eq!(response["filePath"], notes.to_string_lossy().as_ref());
    let results = wire::tool_results(&server.requests()[1].json());
    let (text, is_error) = &results["r0"];
    assert!(!is_error);
    assert!(text.contains("alpha"), "{text}");
    assert!(
        text.contains("PostToolUse hook feedback: lint found 2 problems"),
        "{text}"
    );
    assert!(text.contains("the file is generated"), "{text}");
}

// ----- Stop -----

/// A Stop hook that asks for one more turn unless a Stop hook already did.
const STOP_ONCE: &str = r#"input=$(cat); case "$input" in *'"stop_hook_active":true'*) exit 0;; esac; echo 'run the tests first' >&2; exit 2"#;

#[test]
fn a_stop_hook_makes_the_model_go_on_once_with_the_reason_and_stop_hook_active_set() {
    let home = Home::new();
    write_hooks(
        &home,
        &[
            ("Stop", None, &log_stdin("Stop"), ""),
            ("Stop", None, STOP_ONCE, ""),
        ],
    );
    let server = MockServer::start(vec![text_reply("All done."), text_reply("Tests pass now.")]);
    let output = run(&home, &server, &[], "fix the bug");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let result = result_of(&output);
    assert_eq!(result["result"], "Tests pass now.");
    assert_eq!(result["num_turns"], 2);
    let stops = logged(&home, "Stop");
    assert_eq!(stops.len(), 2);
    assert_eq!(stops[0]["stop_hook_active"], false);
    assert_eq!(stops[0]["last_assistant_message"], "All done.");
    assert_eq!(stops[1]["stop_hook_active"], true);
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let messages = requests[1].json()["messages"].clone();
    let last = messages.as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["role"], "user");
    assert!(
        last["content"]
            .to_string()
            .contains("Stop hook feedback:\\nrun the tests first"),
        "{last}"
    );
    // The continuation is in the session, as claude keeps it in its transcript.
    let session = std::fs::read_to_string(session_file(&home)).unwrap();
    assert!(session.contains("run the tests first"));
}

#[test]
fn a_valid_json_schema_answer_goes_on_to_the_stop_hooks_and_the_next_answer_is_checked_too() {
    let home = Home::new();
    write_hooks(
        &home,
        &[
            ("Stop", None, &log_stdin("Stop"), ""),
            ("Stop", None, STOP_ONCE, ""),
        ],
    );
    let server = MockServer::start(vec![
        text_reply(r#"{"ok": false}"#),
        text_reply(r#"{"ok": true}"#),
    ]);
    let schema = r#"{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}"#;
    let output = run(&home, &server, &["--json-schema", schema], "fix the bug");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let result = result_of(&output);
    assert_eq!(result["structured_output"], serde_json::json!({"ok": true}));
    assert_eq!(result["num_turns"], 2);
    let stops = logged(&home, "Stop");
    assert_eq!(stops.len(), 2, "the Stop hooks run after each valid answer");
    assert_eq!(stops[0]["last_assistant_message"], r#"{"ok": false}"#);
    assert_eq!(stops[1]["stop_hook_active"], true);
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn a_stop_hook_that_always_blocks_is_bounded_by_max_turns() {
    let home = Home::new();
    write_hooks(&home, &[("Stop", None, "echo 'not yet' >&2; exit 2", "")]);
    let server = MockServer::start(vec![
        text_reply("One."),
        text_reply("Two."),
        text_reply("Three."),
        text_reply("Four."),
    ]);
    let output = run(&home, &server, &["--max-turns", "3"], "go");
    assert_eq!(code(&output), 5, "{}", stderr(&output));
    assert_eq!(server.requests().len(), 3);
    let result = result_of(&output);
    assert_eq!(result["subtype"], "error_max_turns");
    assert_eq!(result["num_turns"], 3);
}

// ----- UserPromptSubmit and SessionStart -----

#[test]
fn a_blocked_prompt_ends_the_run_with_exit_1_before_anything_is_sent_or_recorded() {
    let home = Home::new();
    write_hooks(
        &home,
        &[
            (
                "UserPromptSubmit",
                None,
                r#"grep -q 'sk-live' && { echo 'the prompt holds a key' >&2; exit 2; }; exit 0"#,
                "",
            ),
            ("SessionEnd", None, &log_stdin("SessionEnd"), ""),
        ],
    );
    let server = MockServer::start(vec![text_reply("never")]);
    let output = run(&home, &server, &[], "deploy with sk-live-123");
    assert_eq!(code(&output), 1, "{}", stderr(&output));
    assert!(server.requests().is_empty());
    let result = result_of(&output);
    assert_eq!(result["is_error"], true);
    assert_eq!(result["error"]["kind"], "hook");
    assert!(
        result["error"]["message"]
            .as_str()
            .unwrap()
            .contains("the prompt holds a key")
    );
    assert!(
        stderr(&output).contains("a UserPromptSubmit hook blocked the prompt"),
        "{}",
        stderr(&output)
    );
    let session = std::fs::read_to_string(session_file(&home)).unwrap();
    assert!(!session.contains("sk-live"), "{session}");
    assert_eq!(logged(&home, "SessionEnd").len(), 1);
}

#[test]
fn session_start_and_user_prompt_submit_context_reaches_the_model_in_the_user_message() {
    let home = Home::new();
    write_hooks(
        &home,
        &[
            (
                "SessionStart",
                Some("startup"),
                "echo 'Branch: main, 3 files changed'",
                "",
            ),
            (
                "UserPromptSubmit",
                None,
                r#"cat > /dev/null; echo '{"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "Ticket ABC-12 is about the parser"}}'"#,
                "",
            ),
        ],
    );
    let server = MockServer::start(vec![text_reply("Noted.")]);
    let output = run(&home, &server, &[], "what changed?");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let body = server.requests()[0].json();
    let user = body["messages"][0]["content"].to_string();
    for expected in [
        "what changed?",
        "Branch: main, 3 files changed",
        "Ticket ABC-12 is about the parser",
    ] {
        assert!(user.contains(expected), "{expected}: {user}");
    }
}

// ----- execution -----

/// A PreToolUse hook that starts a five-minute sleep in the background
/// ([`background_sleeper`]) and waits for it; `extra` is added to its table.
fn sleeper_hook(home: &Home, extra: &str) {
    let (sleeper, _) = background_sleeper(&home.workspace);
    write_hooks(
        home,
        &[("PreToolUse", None, &format!("{sleeper} wait"), extra)],
    );
}

/// The `sleep` of [`sleeper_hook`] was killed with the hook.
fn assert_sleeper_gone(home: &Home) {
    let (_, marker) = background_sleeper(&home.workspace);
    assert_none_running(&marker, "the hook's child");
}

#[test]
fn a_hanging_hook_is_killed_with_its_children_at_its_timeout_and_the_run_goes_on() {
    let home = Home::new();
    sleeper_hook(&home, "timeout = 1");
    let server = MockServer::start(exec_turn(&["echo ran > ran.txt"]));
    let started = Instant::now();
    let output = run(&home, &server, &[], "go");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(started.elapsed() < Duration::from_secs(20));
    assert!(
        stderr(&output).contains("did not finish within 1 s and was killed"),
        "{}",
        stderr(&output)
    );
    // A hook that fails is not a block (claude's rule): the tool ran.
    assert!(home.workspace.join("ran.txt").exists());
    assert_sleeper_gone(&home);
}

#[test]
fn sigterm_during_a_hook_kills_its_process_group_and_records_the_turn() {
    let home = Home::new();
    sleeper_hook(&home, "");
    let server = MockServer::start(exec_turn(&["echo never > never.txt"]));
    let protocol = protocols::anthropic();
    let child = home
        .pincer()
        .provider(&protocol, &server)
        .args(["run", "-m", protocol.model, "--output-format", "json", "go"])
        .spawn();
    let (_, marker) = background_sleeper(&home.workspace);
    let deadline = Instant::now() + Duration::from_secs(20);
    while running_with(&marker).is_empty() {
        assert!(Instant::now() < deadline, "the hook never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    let pincer = nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap());
    nix::sys::signal::kill(pincer, nix::sys::signal::Signal::SIGTERM).unwrap();
    let started = Instant::now();
    let output = child.wait_with_output().unwrap();
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(code(&output), 143, "{}", stderr(&output));
    assert!(!home.workspace.join("never.txt").exists());
    assert_sleeper_gone(&home);
    let session = std::fs::read_to_string(session_file(&home)).unwrap();
    assert!(session.contains("\"aborted\""), "{session}");
    // The call the hook was guarding was never started.
    assert!(
        session.contains("not run: the turn was interrupted"),
        "{session}"
    );
}

#[test]
fn hooks_run_in_the_exec_sandbox_unless_they_opt_out() {
    let home = Home::new();
    let outside = home.root.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let status = home.run(&["status", "--json"]);
    let status: Value = serde_json::from_str(&stdout(&status)).unwrap();
    let landlock = status["sandbox"]["exec_landlock"]
        .as_str()
        .unwrap_or_default();
    if landlock.starts_with("Landlock not available") {
        skip(
            "hooks_run_in_the_exec_sandbox_unless_they_opt_out",
            landlock,
        );
        return;
    }
    // `sh` exits 2 when a redirection fails, which would be a block: 1 is a failed hook.
    let write = |name: &str| format!("echo x > {}/{name} || exit 1", outside.display());
    write_hooks(
        &home,
        &[
            ("UserPromptSubmit", None, &write("confined"), ""),
            ("UserPromptSubmit", None, &write("free"), "sandbox = false"),
            // No key reaches a hook, sandboxed or not.
            ("UserPromptSubmit", None, "env > env.txt", "sandbox = false"),
        ],
    );
    let server = MockServer::start(vec![text_reply("ok")]);
    let output = run(&home, &server, &[], "go");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(!outside.join("confined").exists());
    assert!(outside.join("free").exists());
    assert!(
        stderr(&output).contains("UserPromptSubmit hook `echo x >"),
        "{}",
        stderr(&output)
    );
    let env = std::fs::read_to_string(home.workspace.join("env.txt")).unwrap();
    assert!(!env.contains(protocols::KEY), "{env}");
    assert!(env.contains(&format!("CLAUDE_PROJECT_DIR={}", home.workspace.display())));
}

// ----- sources -----

/// Claude Code's project settings with a hook that logs PreToolUse.
fn claude_settings(home: &Home) -> std::path::PathBuf {
    let directory = home.workspace.join(".claude");
    std::fs::create_dir_all(&directory).unwrap();
    let settings = json!({
        "permissions": {"allow": ["Bash(git status)"]},
        "hooks": {
            "PreToolUse": [{
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": log_stdin("FromSettings"), "timeout": 10}]
            }]
        }
    });
    let path = directory.join("settings.json");
    std::fs::write(&path, settings.to_string()).unwrap();
    path
}

#[test]
fn a_claude_settings_file_is_run_only_when_named_with_settings() {
    let home = Home::new();
    claude_settings(&home);
    let server = MockServer::start(exec_turn(&["echo one"]));
    let output = run(&home, &server, &[], "go");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(logged(&home, "FromSettings").is_empty());

    let server = MockServer::start(exec_turn(&["echo two"]));
    let output = run(
        &home,
        &server,
        &["--settings", ".claude/settings.json"],
        "go",
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let runs = logged(&home, "FromSettings");
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0]["tool_input"]["command"], "echo two");
    assert!(
        stderr(&output)
            .contains("pincer reads only `hooks` from a settings file; ignored: permissions"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_bad_hook_declaration_exits_2_naming_the_entry() {
    let home = Home::new();
    let cases: [(&str, &[&str]); 4] = [
        (
            "[[hooks.PreToolUse]]\nmatcher = \"exec(\"\ncommand = \"x\"\n",
            &["[[hooks.PreToolUse]] #1", "`matcher` \"exec(\""],
        ),
        ("[[hooks.PreToolUse]]\ncomand = \"x\"\n", &["comand"]),
        ("[[hooks.PreTool]]\ncommand = \"x\"\n", &["PreTool"]),
        (
            "[[hooks.Stop]]\ncommand = \"x\"\ntimeout = -1\n",
            &["[[hooks.Stop]] #1", "`timeout`"],
        ),
    ];
    for (config, expected) in cases {
        std::fs::write(home.home.join("config.toml"), config).unwrap();
        let server = MockServer::start(Vec::new());
        let output = run(&home, &server, &[], "go");
        assert_eq!(code(&output), 2, "{config}: {}", stderr(&output));
        for text in expected {
            assert!(
                stderr(&output).contains(text),
                "{text}: {}",
                stderr(&output)
            );
        }
        assert!(server.requests().is_empty());
    }
    std::fs::write(home.home.join("config.toml"), "").unwrap();
    let server = MockServer::start(Vec::new());
    let output = run(
        &home,
        &server,
        &[
            "--settings",
            r#"{"hooks": {"Stop": [{"hooks": [{"type": "command"}]}]}}"#,
        ],
        "go",
    );
    assert_eq!(code(&output), 2, "{}", stderr(&output));
    assert!(
        stderr(&output)
            .contains("hook hooks.Stop[0].hooks[0] in --settings JSON: `command` is missing"),
        "{}",
        stderr(&output)
    );
}

/// The hook script of the Claude Code docs' Bash guard, unchanged: it reads the command with
/// `jq` and refuses `git push`.
const BASH_GUARD: &str = r#"#!/bin/bash
command=$(jq -r '.tool_input.command')
if echo "$command" | grep -q 'git push'; then
  echo "Blocked: git push is not allowed from CI agents" >&2
  exit 2
fi
exit 0
"#;

#[test]
fn an_existing_jq_bash_guard_blocks_git_push_and_lets_other_commands_run() {
    if std::process::Command::new("jq")
        .arg("--version")
        .output()
        .is_err()
    {
        skip(
            "an_existing_jq_bash_guard_blocks_git_push_and_lets_other_commands_run",
            "jq is not installed",
        );
        return;
    }
    let home = Home::new();
    let hooks = home.workspace.join(".claude").join("hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    let script = hooks.join("block-push.sh");
    std::fs::write(&script, BASH_GUARD).unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let settings = json!({"hooks": {"PreToolUse": [{
        "matcher": "Bash",
        "hooks": [{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/block-push.sh"}]
    }]}});
    std::fs::write(
        home.workspace.join(".claude").join("settings.json"),
        settings.to_string(),
    )
    .unwrap();
    let server = MockServer::start(exec_turn(&[
        "git push origin main && touch pushed",
        "echo checked > checked.txt",
    ]));
    let output = run(
        &home,
        &server,
        &["--settings", ".claude/settings.json"],
        "ship it",
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(!home.workspace.join("pushed").exists());
    assert!(home.workspace.join("checked.txt").exists());
    let results = wire::tool_results(&server.requests()[1].json());
    assert!(
        results["c0"]
            .0
            .contains("Blocked: git push is not allowed from CI agents"),
        "{:?}",
        results["c0"]
    );
    assert!(results["c0"].1);
    assert!(!results["c1"].1, "{:?}", results["c1"]);
    assert_eq!(
        result_of(&output)["permission_denials"][0]["tool_input"]["command"],
        "git push origin main && touch pushed"
    );
}

/// The hooks guide's CI guard: its script and its config.toml entry, as printed there.
fn readme_guard() -> (String, String) {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/guide/hooks.md"))
            .unwrap();
    let section = &readme[readme
        .find("A CI guard that keeps the agent from pushing")
        .unwrap()..];
    let start = "cat > .claude/hooks/no-push.sh <<'SH'\n";
    let script = &section[section.find(start).unwrap() + start.len()..];
    let script = &script[..script.find("\nSH\n").unwrap() + 1];
    let toml = &section[section.find("```toml\n").unwrap() + "```toml\n".len()..];
    let toml = &toml[..toml.find("```").unwrap()];
    (script.to_owned(), toml.to_owned())
}

#[test]
fn the_readmes_ci_guard_blocks_git_push_as_documented() {
    if std::process::Command::new("jq")
        .arg("--version")
        .output()
        .is_err()
    {
        skip(
            "the_readmes_ci_guard_blocks_git_push_as_documented",
            "jq is not installed",
        );
        return;
    }
    let (script, toml) = readme_guard();
    let home = Home::new();
    let hooks = home.workspace.join(".claude").join("hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    let path = hooks.join("no-push.sh");
    std::fs::write(&path, script).unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(home.home.join("config.toml"), toml).unwrap();
    let server = MockServer::start(exec_turn(&[
        "git tag v1 && git push --tags",
        "echo fine > fine.txt",
    ]));
    let output = run(&home, &server, &[], "tag the release and push it");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let results = wire::tool_results(&server.requests()[1].json());
    assert!(
        results["c0"].0.contains("git push is not allowed from CI"),
        "{:?}",
        results["c0"]
    );
    assert!(home.workspace.join("fine.txt").exists());
    let denials = &result_of(&output)["permission_denials"];
    assert_eq!(denials.as_array().unwrap().len(), 1, "{denials}");
}

// ----- visibility -----

/// A tool turn with a PreToolUse hook that blocks the call and a Stop hook that lets the turn
/// end, run with `--include-hook-events` and `mode`'s output flags (the schema suite runs it
/// too).
pub(crate) fn hooked_tool_turn(home: &Home, mode: &[&str]) -> Output {
    write_hooks(
        home,
        &[
            (
                "PreToolUse",
                Some("Bash"),
                "echo no >&2; exit 2",
                "timeout = 5",
            ),
            ("Stop", None, "exit 0", "sandbox = false"),
        ],
    );
    let protocol = protocols::anthropic();
    let server = MockServer::start(exec_turn(&["echo hi"]));
    home.pincer()
        .provider(&protocol, &server)
        .args(["run", "-m", protocol.model, "--include-hook-events"])
        .args(mode)
        .arg("go")
        .output()
}

#[test]
fn init_lists_the_hooks_and_include_hook_events_adds_started_and_response_lines() {
    let home = Home::new();
    let output = hooked_tool_turn(
        &home,
        &["-v", "--output-format", "stream-json", "--verbose"],
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    // Every line is one the public schema declares.
    printed(&stdout(&output)).unwrap();
    let lines = lines_of(&output);
    assert_eq!(
        lines[0]["hooks"],
        json!({
            "PreToolUse": [{"matcher": "Bash", "command": "echo no >&2; exit 2", "timeout": 5.0,
                            "sandbox": true, "origin": "config.toml", "runner": "pincer"}],
            "Stop": [{"command": "exit 0", "timeout": 60.0, "sandbox": false,
                      "origin": "config.toml", "runner": "pincer"}]
        })
    );
    let started: Vec<&Value> = lines
        .iter()
        .filter(|line| line["subtype"] == "hook_started")
        .collect();
    let responses: Vec<&Value> = lines
        .iter()
        .filter(|line| line["subtype"] == "hook_response")
        .collect();
    assert_eq!(started.len(), 2);
    assert_eq!(responses.len(), 2);
    assert_eq!(started[0]["hook_name"], "PreToolUse:Bash");
    assert_eq!(started[0]["hook_event"], "PreToolUse");
    assert_eq!(responses[0]["hook_id"], started[0]["hook_id"]);
    assert_eq!(responses[0]["exit_code"], 2);
    assert_eq!(responses[0]["outcome"], "error");
    assert_eq!(responses[0]["stderr"], "no\n");
    assert_eq!(responses[1]["hook_name"], "Stop");
    assert_eq!(responses[1]["outcome"], "success");
    // The PreToolUse lines come before the tool's result.
    let first = |test: &dyn Fn(&Value) -> bool| lines.iter().position(test).unwrap();
    assert!(
        first(&|line| line["subtype"] == "hook_response") < first(&|line| line["type"] == "user")
    );
    // -v: one stderr line per hook run.
    let errors = stderr(&output);
    assert!(
        errors.contains("hook PreToolUse:Bash echo no >&2; exit 2: exit 2"),
        "{errors}"
    );
    assert!(errors.contains("hook Stop exit 0: exit 0"), "{errors}");

    // Without the flag: no hook lines, the init still lists them.
    let protocol = protocols::anthropic();
    let server = MockServer::start(exec_turn(&["echo hi"]));
    let output = home
        .pincer()
        .provider(&protocol, &server)
        .args(["run", "-m", protocol.model])
        .args(["--output-format", "stream-json", "--verbose", "go"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let lines = lines_of(&output);
    assert!(lines.iter().all(|line| line["subtype"] != "hook_started"));
    assert_eq!(lines[0]["hooks"]["PreToolUse"][0]["matcher"], "Bash");
}

#[test]
fn a_hook_saying_continue_false_stops_the_turn_with_exit_1() {
    let home = Home::new();
    write_hooks(
        &home,
        &[(
            "PostToolUse",
            None,
            r#"cat > /dev/null; echo '{"continue": false, "stopReason": "quota for today reached"}'"#,
            "",
        )],
    );
    let server = MockServer::start(exec_turn(&["echo one", "echo two > two.txt"]));
    let output = run(&home, &server, &[], "go");
    assert_eq!(code(&output), 1, "{}", stderr(&output));
    let result = result_of(&output);
    assert_eq!(result["error"]["kind"], "hook");
    assert_eq!(result["terminal_reason"], "hook_stopped");
    assert!(
        result["error"]["message"]
            .as_str()
            .unwrap()
            .contains("quota for today reached")
    );
    // The second call was not run and the model was not called again.
    assert!(!home.workspace.join("two.txt").exists());
    assert_eq!(server.requests().len(), 1);
}

// ----- CLI backends -----

#[test]
fn claude_gets_the_hooks_as_a_settings_file_and_codex_as_config_overrides() {
    let settings = json!({"hooks": {
        "PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command", "command": "guard.sh", "timeout": 5}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "check.sh"}]}],
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "touch fired"}]}]
    }})
    .to_string();
    let bench = Bench::new();
    let output = bench.run(
        "claude-cli",
        &["text-turn.jsonl"],
        &[
            "run",
            "-m",
            "claude-cli/sonnet",
            "--settings",
            &settings,
            "hi",
        ],
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let call = bench.call(0);
    assert_eq!(
        call["settings"],
        json!({"hooks": {
            "PreToolUse": [{"matcher": "exec|Bash", "hooks": [{"type": "command", "command": "guard.sh", "timeout": 5}]}],
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "touch fired", "timeout": 60}]}],
            "Stop": [{"hooks": [{"type": "command", "command": "check.sh", "timeout": 60}]}]
        }})
    );
    // The child runs them: pincer fires none itself.
    assert!(!bench.home.workspace.join("fired").exists());
    let file =
        crate::suite::backends::after(&crate::suite::backends::argv(&call), "--settings").unwrap();
    assert!(
        !Path::new(&file).exists(),
        "the file is removed with the run"
    );
    assert!(
        stderr(&output)
            .contains("claude-cli runs the run's 3 hook(s) itself, outside pincer's exec sandbox"),
        "{}",
        stderr(&output)
    );

    let bench = Bench::new();
    let output = bench.run(
        "codex-cli",
        &["tool-turn.jsonl"],
        &[
            "run",
            "-m",
            "codex-cli/gpt-5-codex",
            "--settings",
            &settings,
            "hi",
        ],
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let argv: Vec<String> = bench.call(0)["argv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|arg| arg.as_str().unwrap().to_owned())
        .collect();
    for expected in [
        "hooks.PreToolUse=[{ matcher = \"exec|Bash\", hooks = [{ type = \"command\", command = \"guard.sh\", timeout = 5 }] }]",
        "hooks.Stop=[{ hooks = [{ type = \"command\", command = \"check.sh\", timeout = 60 }] }]",
        "--dangerously-bypass-hook-trust",
    ] {
        assert!(
            argv.contains(&expected.to_owned()),
            "{expected} not in {argv:?}"
        );
    }
    assert!(stderr(&output).contains("codex-cli runs the run's 3 hook(s) itself"));
}
