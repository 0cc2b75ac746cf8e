//! The real Claude Agent SDK for Python (`claude-agent-sdk`, pinned) drives pincer as its
//! `claude` (SPEC §16): `ClaudeAgentOptions(cli_path=<pincer>)`, nothing else changed. Each case
//! is a small Python script; each asserts what the mock provider received and what the SDK
//! returned.
//!
//! The SDK is installed from its source distribution (the wheels bundle a 170 MB `claude`) into
//! a virtual environment once per target directory (`target/tmp/claude-sdk-VERSION`), or taken
//! from `PINCER_CLAUDE_SDK_PYTHON` (a Python that imports `claude_agent_sdk`). Without python3,
//! venv or the package the tests fail: the registry is reachable in CI.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::mock::{MockServer, Reply};
use crate::common::protocols;
use crate::common::sdk::{self, provider_env};
use crate::common::{Home, code, stderr};

/// The SDK version the suite runs (the one of `reference/agent-sdk/claude-2.1.197-python-sdk`).
const SDK_VERSION: &str = "0.2.189";

/// A Python that imports the SDK, installed on first use.
fn sdk_python() -> PathBuf {
    static PYTHON: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    PYTHON
        .get_or_init(install_sdk)
        .clone()
        .unwrap_or_else(|error| panic!("the Claude Agent SDK is not available: {error}"))
}

fn install_sdk() -> Result<PathBuf, String> {
    if let Some(python) = std::env::var_os("PINCER_CLAUDE_SDK_PYTHON") {
        return Ok(PathBuf::from(python));
    }
    let target = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let cache = target.join(format!("claude-sdk-{SDK_VERSION}"));
    let python = |venv: &Path| venv.join("bin/python");
    if python(&cache.join("venv")).is_file() {
        return Ok(python(&cache.join("venv")));
    }
    // Made beside the cache, then moved in whole: an install cut short is never taken for one.
    // A venv records its path, so it is made at a path of its own and moved by renaming the
    // directory that holds it.
    let staging = tempfile::tempdir_in(target).map_err(|error| error.to_string())?;
    let venv = staging.path().join("venv");
    let run = |command: &mut Command, what: &str| -> Result<(), String> {
        let output = command
            .output()
            .map_err(|error| format!("cannot run {what} ({error}); install python3 with venv"))?;
        if output.status.success() {
            Ok(())
        } else {
            Err(format!(
                "{what} failed: {}",
                String::from_utf8_lossy(&output.stderr)
            ))
        }
    };
    run(
        Command::new("python3").args(["-m", "venv"]).arg(&venv),
        "python3 -m venv",
    )?;
    run(
        Command::new(python(&venv)).args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-binary",
            "claude-agent-sdk",
            &format!("claude-agent-sdk=={SDK_VERSION}"),
        ]),
        "pip install claude-agent-sdk",
    )?;
    // The venv's scripts name the directory it was made in; its interpreter finds its packages
    // wherever the directory is, and only the interpreter is used.
    let kept = staging.keep();
    if std::fs::rename(&kept, &cache).is_err() {
        // Another test process installed it first.
        let _ = std::fs::remove_dir_all(&kept);
    }
    let installed = python(&cache.join("venv"));
    if installed.is_file() {
        Ok(installed)
    } else {
        Err(format!("no {}", installed.display()))
    }
}

/// What every case's script starts with: the SDK imported, `spec` (pincer's path, its
/// environment, the workspace and model), `out` to print one JSON line, and `options(**more)`.
const PRELUDE: &str = r#"
import asyncio, json, os, dataclasses
from claude_agent_sdk import *
spec = json.loads(os.environ["PINCER_SPEC"])
def out(value):
    print(json.dumps(value, default=lambda o: dataclasses.asdict(o) if dataclasses.is_dataclass(o) else str(o)), flush=True)
def options(**more):
    return ClaudeAgentOptions(cli_path=spec["pincer"], env=spec["env"], cwd=spec["workspace"], model=spec["model"], **more)
def kind(message):
    return type(message).__name__
"#;

/// Run `script` (inside `async def main()`) under the SDK's Python with pincer in `home` (its
/// environment plus `env`, the model `model`); every JSON line it printed.
fn drive(home: &Home, model: &str, env: &[(&str, String)], script: &str) -> Vec<Value> {
    let mut spec = sdk::spec(home, env);
    spec.insert("model".to_owned(), json!(model));
    let body: String = script.lines().map(|line| format!("    {line}\n")).collect();
    let program = format!("{PRELUDE}\nasync def main():\n{body}\nasyncio.run(main())\n");
    let mut python = Command::new(sdk_python());
    python.args(["-c", &program]);
    sdk::run_script(
        home,
        python,
        &[("PINCER_SPEC", Value::Object(spec).to_string())],
    )
}

/// The mock as `protocol`: the model calls `(id, tool, input)`, then answers `answer`.
fn tool_then_answer(
    protocol: &protocols::Protocol,
    (id, tool, input): (&str, &str, Value),
    answer: &str,
) -> MockServer {
    MockServer::start(vec![
        Reply::sse(&(protocol.tool_call)(id, tool, &input)),
        Reply::sse(&(protocol.text)(&[answer])),
    ])
}

/// The messages of `lines` of one kind.
fn of_kind<'a>(lines: &'a [Value], kind: &str) -> Vec<&'a Value> {
    lines.iter().filter(|line| line["kind"] == kind).collect()
}

/// `query()` as the SDK's README shows it: the SDK's command line is accepted, `initialize` is
/// answered, the one prompt runs after stdin closed, and the answer and result come back.
#[test]
fn query_runs_one_turn_and_returns_the_answer_and_a_result() {
    let protocol = protocols::anthropic();
    let home = Home::new();
    let server = MockServer::start(vec![Reply::sse(&(protocol.text)(&[
        "Hello from MOCK-4a1e.",
    ]))]);
    let lines = drive(
        &home,
        protocol.model,
        &provider_env(&protocol, &server),
        r#"
async for message in query(prompt="Say hello. PROMPT-77d2", options=options()):
    out({"kind": kind(message), "message": message})
"#,
    );
    let results = of_kind(&lines, "ResultMessage");
    assert_eq!(results.len(), 1, "{lines:#?}");
    let result = &results[0]["message"];
    assert_eq!(result["is_error"], false, "{result}");
    assert_eq!(result["result"], "Hello from MOCK-4a1e.");
    let session = result["session_id"].as_str().unwrap();
    let assistant = of_kind(&lines, "AssistantMessage");
    assert_eq!(
        assistant[0]["message"]["content"][0]["text"],
        "Hello from MOCK-4a1e."
    );
    let output = home.run(&["sessions", "path", session]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    // The SDK checks the version of the claude whose protocol pincer speaks.
    let init = &of_kind(&lines, "SystemMessage")[0]["message"];
    assert_eq!(init["subtype"], "init", "{init}");
    assert_eq!(init["data"]["claude_code_version"], "2.1.197", "{init}");
    // Regression (#47 item 17): init named pincer's tools (`read`, `exec`) while the
    // `tool_use` blocks of the same stream say `Read` and `Bash`; both use claude's names.
    let tools = &init["data"]["tools"];
    for name in ["Read", "Bash", "Edit", "Write", "Glob", "Grep", "LS"] {
        assert!(
            tools.as_array().unwrap().iter().any(|tool| tool == name),
            "{name}: {tools}"
        );
    }
    for name in ["read", "exec", "edit"] {
        assert!(
            !tools.as_array().unwrap().iter().any(|tool| tool == name),
            "{name}: {tools}"
        );
    }

    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert!(
        requests[0]
            .json()
            .to_string()
            .contains("Say hello. PROMPT-77d2")
    );
}

/// `ClaudeSDKClient`: two prompts in one process run on one session (the second request carries
/// the first turn), and `set_model` changes the model of the next turn.
#[test]
fn a_client_runs_two_turns_on_one_session_and_set_model_applies_to_the_next() {
    let protocol = protocols::anthropic();
    let home = Home::new();
    let server = MockServer::start(vec![
        Reply::sse(&(protocol.text)(&["First answer FIRST-91."])),
        Reply::sse(&(protocol.text)(&["Second answer SECOND-27."])),
    ]);
    let lines = drive(
        &home,
        protocol.model,
        &provider_env(&protocol, &server),
        r#"
async with ClaudeSDKClient(options=options()) as client:
    await client.query("Remember ALPHA-5c.")
    async for message in client.receive_response():
        out({"kind": kind(message), "message": message})
    await client.set_model("anthropic/claude-haiku-4-5")
    await client.query("What did I ask you to remember?")
    async for message in client.receive_response():
        out({"kind": kind(message), "message": message})
"#,
    );
    let results = of_kind(&lines, "ResultMessage");
    assert_eq!(results.len(), 2, "{lines:#?}");
    assert_eq!(results[0]["message"]["result"], "First answer FIRST-91.");
    assert_eq!(results[1]["message"]["result"], "Second answer SECOND-27.");
    assert_eq!(
        results[0]["message"]["session_id"],
        results[1]["message"]["session_id"]
    );

    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let second = requests[1].json();
    let sent = second["messages"].to_string();
    assert!(
        sent.contains("ALPHA-5c") && sent.contains("FIRST-91"),
        "{second}"
    );
    assert_eq!(requests[0].json()["model"], "claude-sonnet-4-5");
    assert_eq!(second["model"], "claude-haiku-4-5");
}

/// `set_model` while a turn runs changes the model of that turn's next request, as in claude:
/// the first answer (a tool call) streams slowly, the model is set meanwhile, and the request
/// that carries the tool's result goes to the new model. The session records the change.
#[test]
fn set_model_during_a_turn_applies_to_its_next_request() {
    let protocol = protocols::anthropic();
    let home = Home::new();
    std::fs::write(home.workspace.join("notes.txt"), "The token is SWITCH-4d\n").unwrap();
    let server = MockServer::start(vec![
        Reply::sse(&(protocol.tool_call)(
            "toolu_1",
            "read",
            &json!({"path": "notes.txt"}),
        ))
        .paced(Duration::from_millis(400)),
        Reply::sse(&(protocol.text)(&["The token is SWITCH-4d."])),
    ]);
    let lines = drive(
        &home,
        protocol.model,
        &provider_env(&protocol, &server),
        r#"
async with ClaudeSDKClient(options=options()) as client:
    await client.query("Read notes.txt.")
    await asyncio.sleep(1)
    await client.set_model("anthropic/claude-haiku-4-5")
    async for message in client.receive_response():
        out({"kind": kind(message), "message": message})
"#,
    );
    let results = of_kind(&lines, "ResultMessage");
    assert_eq!(results.len(), 1, "{lines:#?}");
    assert_eq!(results[0]["message"]["result"], "The token is SWITCH-4d.");
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].json()["model"], "claude-sonnet-4-5");
    let second = requests[1].json();
    assert_eq!(second["model"], "claude-haiku-4-5", "{second}");
    // The same turn: the new model gets the tool's result.
    assert!(
        second["messages"].to_string().contains("SWITCH-4d"),
        "{second}"
    );
    let changes: Vec<Value> = home
        .session_lines()
        .into_iter()
        .filter(|line| line["type"] == "model_change")
        .map(|line| line["modelId"].clone())
        .collect();
    assert_eq!(
        changes,
        [json!("claude-sonnet-4-5"), json!("claude-haiku-4-5")]
    );
}

/// `resume=` in a second process continues the session the first made.
#[test]
fn resume_continues_the_session_of_an_earlier_query() {
    let protocol = protocols::anthropic();
    let home = Home::new();
    let server = MockServer::start(vec![
        Reply::sse(&(protocol.text)(&["Noted BETA-3f."])),
        Reply::sse(&(protocol.text)(&["It was BETA-3f."])),
    ]);
    let env = provider_env(&protocol, &server);
    let first = drive(
        &home,
        protocol.model,
        &env,
        r#"
async for message in query(prompt="Remember BETA-3f.", options=options()):
    out({"kind": kind(message), "message": message})
"#,
    );
    let session = of_kind(&first, "ResultMessage")[0]["message"]["session_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let second = drive(
        &home,
        protocol.model,
        &env,
        &format!(
            r#"
async for message in query(prompt="What was it?", options=options(resume="{session}")):
    out({{"kind": kind(message), "message": message}})
"#
        ),
    );
    assert_eq!(
        of_kind(&second, "ResultMessage")[0]["message"]["session_id"],
        session.as_str()
    );
    let requests = server.requests();
    assert!(
        requests[1].json()["messages"]
            .to_string()
            .contains("Noted BETA-3f.")
    );
}

/// `interrupt()` during a slow answer ends the turn with an error result at once; the client can
/// go on.
#[test]
fn interrupt_ends_the_turn_in_progress_with_an_error_result() {
    let protocol = protocols::anthropic();
    let home = Home::new();
    let words: Vec<String> = (0..40).map(|n| format!("word{n} ")).collect();
    let chunks: Vec<&str> = words.iter().map(String::as_str).collect();
    let server = MockServer::start(vec![
        Reply::sse(&(protocol.text)(&chunks)).paced(Duration::from_millis(250)),
        Reply::sse(&(protocol.text)(&["After the interrupt AFTER-8."])),
    ]);
    let lines = drive(
        &home,
        protocol.model,
        &provider_env(&protocol, &server),
        r#"
async with ClaudeSDKClient(options=options()) as client:
    await client.query("Write a long text.")
    await asyncio.sleep(2)
    await client.interrupt()
    async for message in client.receive_response():
        out({"kind": kind(message), "message": message})
    await client.query("Now say something short.")
    async for message in client.receive_response():
        out({"kind": kind(message), "message": message})
"#,
    );
    let results = of_kind(&lines, "ResultMessage");
    assert_eq!(results.len(), 2, "{lines:#?}");
    assert_eq!(results[0]["message"]["is_error"], true, "{:#}", results[0]);
    // As claude ends an interrupted turn.
    assert_eq!(
        results[0]["message"]["subtype"], "error_during_execution",
        "{:#}",
        results[0]
    );
    assert_eq!(
        results[1]["message"]["result"],
        "After the interrupt AFTER-8."
    );
    // Regression (#47 item 17): no signal was sent, and nothing says one was.
    let said = format!("{lines:?}{:?}", home.session_lines());
    assert!(!said.contains("SIGINT"), "{said}");
    assert!(
        home.session_lines().iter().any(|line| line
            .to_string()
            .contains("interrupted by the client's interrupt request")),
        "{:#?}",
        home.session_lines()
    );
    // The stream was cut well before its 40 pieces (10 s) ended.
    assert!(
        results[0]["message"]["duration_ms"].as_u64().unwrap() < 8_000,
        "{:#}",
        results[0]
    );
}

/// The SDK's options pincer has no counterpart for are accepted with a warning each, never exit
/// 2, and an unknown control request gets an error answer rather than silence.
#[test]
fn sdk_options_without_a_counterpart_are_warned_about_and_the_turn_runs() {
    let protocol = protocols::anthropic();
    let home = Home::new();
    let server = MockServer::start(vec![Reply::sse(&(protocol.text)(&["Fine FINE-2."]))]);
    let lines = drive(
        &home,
        protocol.model,
        &provider_env(&protocol, &server),
        r#"
opts = options(setting_sources=["user", "project"], betas=["context-1m-2025-08-07"], thinking={"type": "adaptive"}, extra_args={"some-future-flag": "x"})
async with ClaudeSDKClient(options=opts) as client:
    try:
        await client.get_context_usage()
        out({"kind": "unexpected"})
    except Exception as error:
        out({"kind": "refused", "message": str(error)})
    await client.query("Fine?")
    async for message in client.receive_response():
        out({"kind": kind(message), "message": message})
"#,
    );
    let refused = of_kind(&lines, "refused");
    assert_eq!(refused.len(), 1, "{lines:#?}");
    assert!(
        refused[0]["message"]
            .as_str()
            .unwrap()
            .contains("get_context_usage"),
        "{lines:#?}"
    );
    assert_eq!(
        of_kind(&lines, "ResultMessage")[0]["message"]["result"],
        "Fine FINE-2."
    );
}

/// A PreToolUse hook callback registered through `initialize` is asked over the control channel
/// with Claude Code's hook input, and its deny stops the call: the model gets the reason, not
/// the file.
#[test]
fn a_hook_callback_is_asked_before_a_tool_and_its_deny_stops_the_call() {
    let protocol = protocols::anthropic();
    let home = Home::new();
    std::fs::write(
        home.workspace.join("notes.txt"),
        "The token is SECRET-0d1\n",
    )
    .unwrap();
    let server = tool_then_answer(
        &protocol,
        ("toolu_1", "read", json!({"path": "notes.txt"})),
        "The hook blocked it.",
    );
    let lines = drive(
        &home,
        protocol.model,
        &provider_env(&protocol, &server),
        r#"
seen = []
async def guard(input_data, tool_use_id, context):
    seen.append({"tool_name": input_data["tool_name"], "event": input_data["hook_event_name"], "tool_use_id": tool_use_id, "file_path": input_data["tool_input"].get("file_path")})
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "Blocked by test hook: HOOKDENY-77"}}
opts = options(hooks={"PreToolUse": [HookMatcher(matcher="Read", hooks=[guard])]})
async for message in query(prompt="Read notes.txt and tell me the token.", options=opts):
    out({"kind": kind(message), "message": message})
out({"kind": "seen", "message": seen})
"#,
    );
    let seen = &of_kind(&lines, "seen")[0]["message"];
    assert_eq!(seen.as_array().map(Vec::len), Some(1), "{lines:#?}");
    assert_eq!(seen[0]["tool_name"], "Read");
    assert_eq!(seen[0]["event"], "PreToolUse");
    assert_eq!(seen[0]["tool_use_id"], "toolu_1");
    assert!(
        seen[0]["file_path"]
            .as_str()
            .is_some_and(|path| path.ends_with("/notes.txt")),
        "{seen}"
    );
    assert_eq!(
        of_kind(&lines, "ResultMessage")[0]["message"]["result"],
        "The hook blocked it."
    );
    // The SDK sees claude's tool name and arguments, and claude's tool_use_result.
    let call = &of_kind(&lines, "AssistantMessage")[0]["message"]["content"][0];
    assert_eq!(call["name"], "Read", "{call}");
    assert!(
        call["input"]["file_path"]
            .as_str()
            .is_some_and(|path| path.ends_with("/notes.txt")),
        "{call}"
    );
    let denied = &of_kind(&lines, "UserMessage")[0]["message"];
    assert!(
        denied["tool_use_result"]
            .as_str()
            .is_some_and(|text| text.starts_with("Error: ") && text.contains("HOOKDENY-77")),
        "{denied}"
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let sent = requests[1].json()["messages"].to_string();
    assert!(sent.contains("HOOKDENY-77"), "{sent}");
    assert!(!sent.contains("SECRET-0d1"), "{sent}");
}

/// `pincer -p "…"` (claude's print mode, which scripts written for claude use) runs one turn as
/// `pincer run` does, claude's flags included.
#[test]
fn claude_print_mode_runs_one_turn() {
    let protocol = protocols::anthropic();
    let home = Home::new();
    let server = MockServer::start(vec![Reply::sse(&(protocol.text)(&["Printed PRINT-5e."]))]);
    let mut pincer = home.pincer();
    for (name, value) in provider_env(&protocol, &server) {
        pincer = pincer.env(name, value);
    }
    let output = pincer
        .args([
            "-p",
            "Say it. PROMPT-p1",
            "--output-format",
            "json",
            "--model",
            protocol.model,
        ])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let result: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(result["result"], "Printed PRINT-5e.");
    assert!(
        server.requests()[0]
            .json()
            .to_string()
            .contains("PROMPT-p1")
    );
}

/// A tool turn as the SDK shows it: the model's `Read` call, the result the SDK gets back (and
/// the model too), then the answer.
#[test]
fn a_tool_turn_shows_claude_s_tool_call_and_its_result() {
    let protocol = protocols::anthropic();
    let home = Home::new();
    std::fs::write(home.workspace.join("notes.txt"), "The token is MAGIC-7a1\n").unwrap();
    let server = tool_then_answer(
        &protocol,
        ("toolu_9", "read", json!({"path": "notes.txt"})),
        "The token is MAGIC-7a1.",
    );
    let lines = drive(
        &home,
        protocol.model,
        &provider_env(&protocol, &server),
        r#"
async for message in query(prompt="Read notes.txt and tell me the token.", options=options()):
    out({"kind": kind(message), "message": message})
"#,
    );
    let call = &of_kind(&lines, "AssistantMessage")[0]["message"]["content"][0];
    assert_eq!(call["name"], "Read", "{call}");
    assert_eq!(call["id"], "toolu_9", "{call}");
    let result = &of_kind(&lines, "UserMessage")[0]["message"];
    assert!(
        result["content"].to_string().contains("MAGIC-7a1"),
        "{result}"
    );
    // Issue #47 item 17: claude's object for a Read, not the text
    // (shared/reference/agent-sdk/claude-2.1.197-python-sdk/query_tool.jsonl).
    assert_eq!(
        result["tool_use_result"],
        json!({"type": "text", "file": {
            "filePath": call["input"]["file_path"], "content": "The token is MAGIC-7a1\n",
            "numLines": 2, "startLine": 1, "totalLines": 2
        }}),
        "{result}"
    );
    let done = &of_kind(&lines, "ResultMessage")[0]["message"];
    assert_eq!(done["result"], "The token is MAGIC-7a1.");
    assert_eq!(done["num_turns"], 2, "{done}");
    let requests = server.requests();
    assert!(
        requests[1].json()["messages"]
            .to_string()
            .contains("MAGIC-7a1")
    );
}

/// `output_format` (a JSON schema) reaches the provider, and the SDK gets the parsed answer as
/// `structured_output`.
#[test]
fn output_format_gives_structured_output() {
    let protocol = protocols::anthropic();
    let home = Home::new();
    let answer = r#"{"answer": "SO-c1e"}"#;
    let server = MockServer::start(vec![Reply::sse(&(protocol.text)(&[answer]))]);
    let lines = drive(
        &home,
        protocol.model,
        &provider_env(&protocol, &server),
        r#"
schema = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"], "additionalProperties": False}
async for message in query(prompt="Answer in JSON.", options=options(output_format={"type": "json_schema", "schema": schema})):
    out({"kind": kind(message), "message": message})
"#,
    );
    let done = &of_kind(&lines, "ResultMessage")[0]["message"];
    assert_eq!(done["is_error"], false, "{done}");
    assert_eq!(done["structured_output"], json!({"answer": "SO-c1e"}));
    // The schema went out with the request (Anthropic's native structured output).
    let body = server.requests()[0].json().to_string();
    assert!(body.contains(r#""required":["answer"]"#), "{body}");
}

/// `can_use_tool` (`--permission-prompt-tool stdio`) is asked before a command as claude asks
/// it, and its deny stops the call: the command does not run, the model gets the message, and
/// the result lists the denial.
#[test]
fn can_use_tool_is_asked_before_a_command_and_its_deny_stops_the_call() {
    let protocol = protocols::anthropic();
    let home = Home::new();
    let server = tool_then_answer(
        &protocol,
        ("toolu_1", "exec", json!({"command": "echo RAN > ran.txt"})),
        "It was denied.",
    );
    let lines = drive(
        &home,
        protocol.model,
        &provider_env(&protocol, &server),
        r#"
seen = []
async def decide(tool_name, tool_input, context):
    seen.append({"tool_name": tool_name, "input": tool_input})
    return PermissionResultDeny(message="Not allowed: DENIED-5a")
async with ClaudeSDKClient(options=options(can_use_tool=decide)) as client:
    await client.query("Write ran.txt.")
    async for message in client.receive_response():
        out({"kind": kind(message), "message": message})
out({"kind": "seen", "message": seen})
"#,
    );
    let seen = &of_kind(&lines, "seen")[0]["message"];
    assert_eq!(
        seen,
        &json!([{"tool_name": "Bash", "input": {"command": "echo RAN > ran.txt"}}]),
        "{lines:#?}"
    );
    assert!(!home.workspace.join("ran.txt").exists());
    let result = &of_kind(&lines, "ResultMessage")[0]["message"];
    assert_eq!(result["result"], "It was denied.");
    let denials = result["permission_denials"].as_array().unwrap();
    assert_eq!(denials.len(), 1, "{result}");
    assert_eq!(denials[0]["tool_use_id"], "toolu_1");
    let sent = server.requests()[1].json()["messages"].to_string();
    assert!(sent.contains("Not allowed: DENIED-5a"), "{sent}");
}

/// `can_use_tool`'s allow with `updatedInput` runs the changed command, not the model's.
#[test]
fn can_use_tool_allowing_with_an_updated_input_runs_the_changed_command() {
    let protocol = protocols::anthropic();
    let home = Home::new();
    let server = tool_then_answer(
        &protocol,
        (
            "toolu_1",
            "exec",
            json!({"command": "echo ORIGINAL-1 > out.txt"}),
        ),
        "Done.",
    );
    let lines = drive(
        &home,
        protocol.model,
        &provider_env(&protocol, &server),
        r#"
async def decide(tool_name, tool_input, context):
    return PermissionResultAllow(updated_input={"command": "echo CHANGED-2 > out.txt"})
async with ClaudeSDKClient(options=options(can_use_tool=decide)) as client:
    await client.query("Write out.txt.")
    async for message in client.receive_response():
        out({"kind": kind(message), "message": message})
"#,
    );
    let result = &of_kind(&lines, "ResultMessage")[0]["message"];
    assert_eq!(result["result"], "Done.", "{lines:#?}");
    assert_eq!(result["permission_denials"], json!([]), "{result}");
    let written = std::fs::read_to_string(home.workspace.join("out.txt")).unwrap();
    assert_eq!(written.trim(), "CHANGED-2");
}

/// An in-process MCP server (`@tool` and `create_sdk_mcp_server`) is reached over the control
/// channel: the model is offered `mcp__kv__lookup`, the call runs in the SDK's process, and its
/// result reaches the model.
#[test]
fn an_sdk_mcp_servers_tool_runs_in_the_sdk_and_its_result_reaches_the_model() {
    let protocol = protocols::anthropic();
    let home = Home::new();
    let server = tool_then_answer(
        &protocol,
        ("toolu_1", "mcp__kv__lookup", json!({"key": "alpha"})),
        "Found it.",
    );
    let lines = drive(
        &home,
        protocol.model,
        &provider_env(&protocol, &server),
        r#"
calls = []
@tool("lookup", "Look up the value stored under a key", {"key": str})
async def lookup(args):
    calls.append(args)
    return {"content": [{"type": "text", "text": f"value of {args['key']} is MCPVAL-e49f"}]}
kv = create_sdk_mcp_server(name="kv", version="1.0.0", tools=[lookup])
async for message in query(prompt="Look up alpha.", options=options(mcp_servers={"kv": kv})):
    out({"kind": kind(message), "message": message})
out({"kind": "calls", "message": calls})
"#,
    );
    assert_eq!(
        of_kind(&lines, "calls")[0]["message"],
        json!([{"key": "alpha"}]),
        "{lines:#?}"
    );
    assert_eq!(
        of_kind(&lines, "ResultMessage")[0]["message"]["result"],
        "Found it."
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let offered = requests[0].json()["tools"].to_string();
    assert!(offered.contains("mcp__kv__lookup"), "{offered}");
    let sent = requests[1].json()["messages"].to_string();
    assert!(sent.contains("value of alpha is MCPVAL-e49f"), "{sent}");
}

/// Whether process `pid` still runs (a zombie does not count), allowing it two seconds to go.
fn still_running(pid: &str) -> bool {
    let running = || {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            !stat
                .rsplit_once(") ")
                .is_some_and(|(_, rest)| rest.starts_with('Z'))
        })
    };
    let deadline = std::time::Instant::now() + Duration::from_secs(2);
    while running() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    running()
}

/// claude keeps its MCP servers for the whole process, and so does pincer: two prompts of one
/// `ClaudeSDKClient` reach the same stdio server, started once, so its state carries over (the
/// second `increment` counts 2), and the server is stopped when the SDK closes the session.
#[test]
fn a_clients_mcp_server_is_started_once_and_keeps_its_state_across_prompts() {
    let protocol = protocols::anthropic();
    let home = Home::new();
    let log = home.root.path().join("counter.log");
    let server = MockServer::start(vec![
        Reply::sse(&(protocol.tool_call)(
            "toolu_1",
            "mcp__counter__increment",
            &json!({}),
        )),
        Reply::sse(&(protocol.text)(&["Counted once."])),
        Reply::sse(&(protocol.tool_call)(
            "toolu_2",
            "mcp__counter__increment",
            &json!({}),
        )),
        Reply::sse(&(protocol.text)(&["Counted again."])),
    ]);
    let config = json!({
        "command": crate::suite::mcp::server_binary(),
        "args": ["stdio", "--log", log],
    });
    let lines = drive(
        &home,
        protocol.model,
        &provider_env(&protocol, &server),
        &format!(
            r#"
async with ClaudeSDKClient(options=options(mcp_servers={{"counter": {config}}})) as client:
    for prompt in ["Count once.", "Count again."]:
        await client.query(prompt)
        async for message in client.receive_response():
            out({{"kind": kind(message), "message": message}})
"#
        ),
    );
    let results = of_kind(&lines, "ResultMessage");
    assert_eq!(results.len(), 2, "{lines:#?}");
    assert_eq!(results[1]["message"]["result"], "Counted again.");
    let requests = server.requests();
    assert_eq!(requests.len(), 4);
    let first = requests[1].json()["messages"].to_string();
    assert!(first.contains("count 1"), "{first}");
    let second = requests[3].json()["messages"].to_string();
    assert!(second.contains("count 2"), "{second}");
    let logged = std::fs::read_to_string(&log).unwrap();
    let pids: Vec<&str> = logged
        .lines()
        .filter_map(|line| line.strip_prefix("pid "))
        .collect();
    assert_eq!(
        pids.len(),
        1,
        "the server was started more than once:\n{logged}"
    );
    // Stopped the orderly way when the SDK closed pincer's stdin, and gone.
    assert!(
        logged.lines().any(|line| line == "stdin closed"),
        "{logged}"
    );
    assert!(!still_running(pids[0]), "the MCP server outlived pincer");
}

/// `can_use_tool` is not asked where claude does not ask: before a tool that only reads, nor
/// before a call an `allowed_tools` rule names.
#[test]
fn can_use_tool_is_not_asked_before_reading_nor_for_an_explicitly_allowed_call() {
    let protocol = protocols::anthropic();
    let home = Home::new();
    std::fs::write(home.workspace.join("notes.txt"), "The token is READ-4c\n").unwrap();
    let server = MockServer::start(vec![
        Reply::sse(&(protocol.tool_call)(
            "toolu_1",
            "read",
            &json!({"path": "notes.txt"}),
        )),
        Reply::sse(&(protocol.tool_call)(
            "toolu_2",
            "exec",
            &json!({"command": "touch ok-7.txt"}),
        )),
        Reply::sse(&(protocol.text)(&["Both ran."])),
    ]);
    let lines = drive(
        &home,
        protocol.model,
        &provider_env(&protocol, &server),
        r#"
seen = []
async def decide(tool_name, tool_input, context):
    seen.append(tool_name)
    return PermissionResultDeny(message="asked")
opts = options(can_use_tool=decide, allowed_tools=["Read", "Bash(touch:*)"])
async with ClaudeSDKClient(options=opts) as client:
    await client.query("Read notes.txt, then make ok-7.txt.")
    async for message in client.receive_response():
        out({"kind": kind(message), "message": message})
out({"kind": "seen", "message": seen})
"#,
    );
    assert_eq!(
        of_kind(&lines, "seen")[0]["message"],
        json!([]),
        "{lines:#?}"
    );
    assert_eq!(
        of_kind(&lines, "ResultMessage")[0]["message"]["result"],
        "Both ran."
    );
    let requests = server.requests();
    let sent = requests[1].json()["messages"].to_string();
    assert!(sent.contains("READ-4c"), "{sent}");
    assert!(
        home.workspace.join("ok-7.txt").exists(),
        "{}",
        requests[2].json()["messages"]
    );
}

/// A deny with `interrupt` ends the turn: the command does not run and the model is not asked
/// again.
#[test]
fn can_use_tool_denying_with_interrupt_ends_the_turn() {
    let protocol = protocols::anthropic();
    let home = Home::new();
    let server = tool_then_answer(
        &protocol,
        ("toolu_1", "exec", json!({"command": "echo RAN > ran.txt"})),
        "Should not be asked.",
    );
    let lines = drive(
        &home,
        protocol.model,
        &provider_env(&protocol, &server),
        r#"
async def decide(tool_name, tool_input, context):
    return PermissionResultDeny(message="Stop here STOP-3", interrupt=True)
async with ClaudeSDKClient(options=options(can_use_tool=decide)) as client:
    await client.query("Write ran.txt.")
    async for message in client.receive_response():
        out({"kind": kind(message), "message": message})
"#,
    );
    assert_eq!(of_kind(&lines, "ResultMessage").len(), 1, "{lines:#?}");
    assert!(!home.workspace.join("ran.txt").exists());
    assert_eq!(server.requests().len(), 1);
}

/// The hooks come first, as in claude: a PreToolUse hook callback that refuses the call leaves
/// `can_use_tool` unasked.
#[test]
fn can_use_tool_is_not_asked_about_a_call_a_hook_refused() {
    let protocol = protocols::anthropic();
    let home = Home::new();
    let server = tool_then_answer(
        &protocol,
        ("toolu_1", "exec", json!({"command": "echo RAN > ran.txt"})),
        "The hook refused.",
    );
    let lines = drive(
        &home,
        protocol.model,
        &provider_env(&protocol, &server),
        r#"
seen = []
async def decide(tool_name, tool_input, context):
    seen.append(tool_name)
    return PermissionResultAllow()
async def guard(input_data, tool_use_id, context):
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "HOOKDENY-19"}}
opts = options(can_use_tool=decide, hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[guard])]})
async with ClaudeSDKClient(options=opts) as client:
    await client.query("Write ran.txt.")
    async for message in client.receive_response():
        out({"kind": kind(message), "message": message})
out({"kind": "seen", "message": seen})
"#,
    );
    assert_eq!(
        of_kind(&lines, "seen")[0]["message"],
        json!([]),
        "{lines:#?}"
    );
    assert!(!home.workspace.join("ran.txt").exists());
    let sent = server.requests()[1].json()["messages"].to_string();
    assert!(sent.contains("HOOKDENY-19"), "{sent}");
}

/// An `updatedInput` in claude's argument names (`new_string`) is what the edit writes.
#[test]
fn can_use_tool_updating_an_edit_in_claudes_names_changes_what_is_written() {
    let protocol = protocols::anthropic();
    let home = Home::new();
    std::fs::write(home.workspace.join("a.txt"), "old line\n").unwrap();
    let server = tool_then_answer(
        &protocol,
        (
            "toolu_1",
            "edit",
            json!({"path": "a.txt", "oldText": "old line", "newText": "MODEL-1"}),
        ),
        "Edited.",
    );
    let lines = drive(
        &home,
        protocol.model,
        &provider_env(&protocol, &server),
        r#"
seen = []
async def decide(tool_name, tool_input, context):
    seen.append({"tool_name": tool_name, "new_string": tool_input.get("new_string")})
    return PermissionResultAllow(updated_input={**tool_input, "new_string": "SDK-2"})
async with ClaudeSDKClient(options=options(can_use_tool=decide)) as client:
    await client.query("Edit a.txt.")
    async for message in client.receive_response():
        out({"kind": kind(message), "message": message})
out({"kind": "seen", "message": seen})
"#,
    );
    assert_eq!(
        of_kind(&lines, "seen")[0]["message"],
        json!([{"tool_name": "Edit", "new_string": "MODEL-1"}]),
        "{lines:#?}"
    );
    let written = std::fs::read_to_string(home.workspace.join("a.txt")).unwrap();
    assert_eq!(written, "SDK-2\n");
}

/// A 1×1 PNG, as an SDK user sends an image.
const PNG_BASE64: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

/// An image block (base64 source) in an SDK `user` line reaches the model as an image, beside
/// the prompt's text.
#[test]
fn an_image_in_a_user_message_reaches_the_model_as_an_image() {
    let protocol = protocols::anthropic();
    let home = Home::new();
    let server = MockServer::start(vec![Reply::sse(&(protocol.text)(&["A dot."]))]);
    let script = r#"
async def messages():
    yield {"type": "user", "session_id": "", "parent_tool_use_id": None, "message": {"role": "user", "content": [
        {"type": "text", "text": "What is in this image? IMG-PROMPT-3c"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "PNG"}},
    ]}}
async for message in query(prompt=messages(), options=options()):
    out({"kind": kind(message), "message": message})
"#
    .replace("\"PNG\"", &format!("\"{PNG_BASE64}\""));
    let lines = drive(
        &home,
        protocol.model,
        &provider_env(&protocol, &server),
        &script,
    );
    let result = &of_kind(&lines, "ResultMessage")[0]["message"];
    assert_eq!(result["result"], "A dot.", "{lines:#?}");
    let requests = server.requests();
    let content = &requests[0].json()["messages"][0]["content"];
    let blocks = content.as_array().expect("content blocks");
    assert!(
        blocks.iter().any(|block| block["type"] == "text"
            && block["text"] == "What is in this image? IMG-PROMPT-3c"),
        "{content}"
    );
    let image = blocks
        .iter()
        .find(|block| block["type"] == "image")
        .unwrap_or_else(|| panic!("no image block: {content}"));
    assert_eq!(image["source"]["data"], PNG_BASE64, "{image}");
    assert_eq!(image["source"]["media_type"], "image/png", "{image}");
}

/// `can_use_tool` gets claude's `permission_suggestions` (a rule for this very command), and a
/// denial reaches the model as the SDK's bare message, as claude sends it.
#[test]
fn can_use_tool_gets_claudes_suggestions_and_a_denial_is_the_sdks_bare_message() {
    let protocol = protocols::anthropic();
    let home = Home::new();
    let server = tool_then_answer(
        &protocol,
        ("toolu_1", "exec", json!({"command": "echo RAN > ran.txt"})),
        "It was denied.",
    );
    let lines = drive(
        &home,
        protocol.model,
        &provider_env(&protocol, &server),
        r#"
seen = []
async def decide(tool_name, tool_input, context):
    seen.append([dataclasses.asdict(suggestion) for suggestion in context.suggestions])
    return PermissionResultDeny(message="Not allowed: DENIED-8e")
async with ClaudeSDKClient(options=options(can_use_tool=decide)) as client:
    await client.query("Write ran.txt.")
    async for message in client.receive_response():
        out({"kind": kind(message), "message": message})
out({"kind": "seen", "message": seen})
"#,
    );
    let seen = &of_kind(&lines, "seen")[0]["message"];
    assert_eq!(
        seen[0][0],
        json!({"type": "addRules", "rules": [{"tool_name": "Bash", "rule_content": "echo RAN > ran.txt"}],
            "behavior": "allow", "mode": null, "directories": null, "destination": "localSettings"}),
        "{lines:#?}"
    );
    let messages = server.requests()[1].json()["messages"].clone();
    let result = messages
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|message| message["content"].as_array().cloned().unwrap_or_default())
        .find(|block| block["type"] == "tool_result")
        .unwrap_or_else(|| panic!("no tool result: {messages}"));
    let text = match &result["content"] {
        Value::String(text) => text.clone(),
        blocks => blocks[0]["text"].as_str().unwrap_or_default().to_owned(),
    };
    assert_eq!(text, "Not allowed: DENIED-8e", "{result}");
    assert_eq!(result["is_error"], true, "{result}");
}

/// An allow with `updatedPermissions` applies for the rest of the process, as claude's session
/// rules do: a call an added allow rule names runs without asking, one an added deny rule names
/// is refused without asking.
#[test]
fn can_use_tool_updated_permissions_add_session_rules_for_later_calls() {
    let protocol = protocols::anthropic();
    let home = Home::new();
    let call = |id: &str, command: &str| {
        Reply::sse(&(protocol.tool_call)(
            id,
            "exec",
            &json!({ "command": command }),
        ))
    };
    let server = MockServer::start(vec![
        call("toolu_1", "touch one.txt"),
        call("toolu_2", "touch two.txt"),
        call("toolu_3", "touch three.txt"),
        Reply::sse(&(protocol.text)(&["Done."])),
    ]);
    let lines = drive(
        &home,
        protocol.model,
        &provider_env(&protocol, &server),
        r#"
from claude_agent_sdk.types import PermissionRuleValue, PermissionUpdate
seen = []
async def decide(tool_name, tool_input, context):
    seen.append(tool_input["command"])
    return PermissionResultAllow(updated_permissions=[
        PermissionUpdate(type="addRules", behavior="allow", destination="session",
            rules=[PermissionRuleValue(tool_name="Bash", rule_content="touch two.txt")]),
        PermissionUpdate(type="addRules", behavior="deny", destination="session",
            rules=[PermissionRuleValue(tool_name="Bash", rule_content="touch three.txt")]),
    ])
async with ClaudeSDKClient(options=options(can_use_tool=decide)) as client:
    await client.query("Make three files.")
    async for message in client.receive_response():
        out({"kind": kind(message), "message": message})
out({"kind": "seen", "message": seen})
"#,
    );
    assert_eq!(
        of_kind(&lines, "seen")[0]["message"],
        json!(["touch one.txt"]),
        "{lines:#?}"
    );
    assert!(home.workspace.join("one.txt").exists());
    assert!(home.workspace.join("two.txt").exists());
    assert!(!home.workspace.join("three.txt").exists());
    let result = &of_kind(&lines, "ResultMessage")[0]["message"];
    let denials = result["permission_denials"].as_array().unwrap();
    assert_eq!(denials.len(), 1, "{result}");
    assert_eq!(denials[0]["tool_use_id"], "toolu_3");
}

/// The Claude Agent SDK for TypeScript (`@anthropic-ai/claude-agent-sdk`, pinned) drives pincer
/// as its `claude`: `query({options: {pathToClaudeCodeExecutable: <pincer>}})`, nothing else
/// changed. Installed with npm once per target directory (without the optional packages that
/// bundle a `claude` binary), or taken from `PINCER_CLAUDE_TS_SDK_DIR` (a directory holding
/// `node_modules/@anthropic-ai/claude-agent-sdk`).
mod typescript {
    use std::path::PathBuf;
    use std::process::Command;
    use std::sync::OnceLock;

    use serde_json::{Value, json};

    use super::{of_kind, tool_then_answer};
    use crate::common::Home;
    use crate::common::mock::{MockServer, Reply};
    use crate::common::protocols;
    use crate::common::sdk::{self, provider_env};

    /// The version of `reference/agent-sdk/claude-2.1.197-ts-sdk`'s captures.
    const SDK_VERSION: &str = "0.3.334";

    fn sdk_module() -> PathBuf {
        static MODULE: OnceLock<Result<PathBuf, String>> = OnceLock::new();
        MODULE
            .get_or_init(install_sdk)
            .clone()
            .unwrap_or_else(|error| {
                panic!("the TypeScript Claude Agent SDK is not available: {error}")
            })
    }

    fn install_sdk() -> Result<PathBuf, String> {
        sdk::npm_module(
            "@anthropic-ai/claude-agent-sdk",
            SDK_VERSION,
            "sdk.mjs",
            &format!("claude-ts-sdk-{SDK_VERSION}"),
            "PINCER_CLAUDE_TS_SDK_DIR",
        )
    }

    /// The SDK imported, `spec`, `out` to print one JSON line, and `options(more)`.
    const PRELUDE: &str = r#"
const { query } = await import(process.env.CLAUDE_SDK_URL);
const spec = JSON.parse(process.env.PINCER_SPEC);
const out = (value) => console.log(JSON.stringify(value));
const options = (more) => ({ pathToClaudeCodeExecutable: spec.pincer, env: spec.env, cwd: spec.workspace, model: spec.model, ...more });
"#;

    fn drive(home: &Home, model: &str, env: &[(&str, String)], script: &str) -> Vec<Value> {
        let mut spec = sdk::spec(home, env);
        spec.insert("model".to_owned(), json!(model));
        let module = sdk_module();
        let mut node = Command::new("node");
        node.args(["--input-type=module", "-e", &format!("{PRELUDE}{script}")]);
        sdk::run_script(
            home,
            node,
            &[
                ("CLAUDE_SDK_URL", format!("file://{}", module.display())),
                ("PINCER_SPEC", Value::Object(spec).to_string()),
            ],
        )
    }

    /// `query()` runs one turn: the prompt reaches the model, the answer and a result come back.
    #[test]
    fn the_typescript_sdks_query_returns_the_answer_and_a_result() {
        let protocol = protocols::anthropic();
        let home = Home::new();
        let server = MockServer::start(vec![Reply::sse(&(protocol.text)(&[
            "Hello from TS-MOCK-51.",
        ]))]);
        let lines = drive(
            &home,
            protocol.model,
            &provider_env(&protocol, &server),
            r#"
for await (const message of query({ prompt: "Say hello. TS-PROMPT-0b", options: options({}) })) {
    out({ kind: message.type, message });
}
"#,
        );
        let results = of_kind(&lines, "result");
        assert_eq!(results.len(), 1, "{lines:#?}");
        assert_eq!(results[0]["message"]["is_error"], false, "{lines:#?}");
        assert_eq!(results[0]["message"]["result"], "Hello from TS-MOCK-51.");
        let sent = server.requests()[0].json().to_string();
        assert!(sent.contains("Say hello. TS-PROMPT-0b"), "{sent}");
    }

    /// A tool turn: the model's command runs in the workspace and its output reaches the model.
    #[test]
    fn the_typescript_sdks_tool_turn_runs_the_command_and_sends_its_output() {
        let protocol = protocols::anthropic();
        let home = Home::new();
        let server = tool_then_answer(
            &protocol,
            ("toolu_1", "exec", json!({"command": "echo TS-TOOL-7d"})),
            "It printed it.",
        );
        let lines = drive(
            &home,
            protocol.model,
            &provider_env(&protocol, &server),
            r#"
const opts = options({ permissionMode: "bypassPermissions", allowDangerouslySkipPermissions: true });
for await (const message of query({ prompt: "Run echo.", options: opts })) {
    out({ kind: message.type, message });
}
"#,
        );
        let results = of_kind(&lines, "result");
        assert_eq!(
            results[0]["message"]["result"], "It printed it.",
            "{lines:#?}"
        );
        let requests = server.requests();
        assert_eq!(requests.len(), 2);
        let sent = requests[1].json()["messages"].to_string();
        assert!(sent.contains("TS-TOOL-7d"), "{sent}");
    }

    /// The system prompt the provider got in `body`, as one text.
    fn system_of(body: &Value) -> String {
        match &body["system"] {
            Value::String(text) => text.clone(),
            Value::Array(blocks) => blocks
                .iter()
                .filter_map(|block| block["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n"),
            _ => String::new(),
        }
    }

    /// The TypeScript SDK sends `systemPrompt` and `appendSystemPrompt` in `initialize`, not on
    /// the command line (issue #47 item 15: pincer dropped both and sent its own prompt). A
    /// custom prompt replaces pincer's, the boundary marker left out; a preset's `append` is
    /// added to pincer's; an `initialize` field pincer has no counterpart for is named on
    /// stderr, and the turn runs.
    #[test]
    fn the_typescript_sdks_system_prompt_and_its_append_reach_the_model() {
        let protocol = protocols::anthropic();
        let home = Home::new();
        let server = MockServer::start(vec![
            Reply::sse(&(protocol.text)(&["Custom."])),
            Reply::sse(&(protocol.text)(&["Appended."])),
        ]);
        let lines = drive(
            &home,
            protocol.model,
            &provider_env(&protocol, &server),
            r#"
const { SYSTEM_PROMPT_DYNAMIC_BOUNDARY } = await import(process.env.CLAUDE_SDK_URL);
const stderr = (text) => out({ kind: "stderr", text });
const custom = options({ systemPrompt: ["You are RELEASE-BOT-3a.", SYSTEM_PROMPT_DYNAMIC_BOUNDARY, "Session SESSION-9f."], stderr });
for await (const message of query({ prompt: "One.", options: custom })) {
    out({ kind: message.type, message });
}
const preset = options({ systemPrompt: { type: "preset", preset: "claude_code", append: "Always sign APPEND-77c." }, agents: { helper: { description: "d", prompt: "p" } }, stderr });
for await (const message of query({ prompt: "Two.", options: preset })) {
    out({ kind: message.type, message });
}
"#,
        );
        let results = of_kind(&lines, "result");
        assert_eq!(results.len(), 2, "{lines:#?}");
        assert_eq!(results[1]["message"]["result"], "Appended.", "{lines:#?}");
        let requests = server.requests();
        let custom = system_of(&requests[0].json());
        assert_eq!(custom, "You are RELEASE-BOT-3a.\n\nSession SESSION-9f.");
        let preset = system_of(&requests[1].json());
        assert!(preset.starts_with("You are pincer"), "{preset}");
        assert!(preset.ends_with("Always sign APPEND-77c."), "{preset}");
        let stderr: String = of_kind(&lines, "stderr")
            .iter()
            .filter_map(|line| line["text"].as_str())
            .collect();
        assert!(
            stderr.contains("initialize's agents: pincer has no counterpart; ignored"),
            "{stderr}"
        );
        assert_eq!(
            stderr.matches("has no counterpart").count(),
            1,
            "only the preset query's agents are unknown: {stderr}"
        );
    }

    /// The TypeScript SDK sends `mcpServers` in `initialize` (with `--await-initialize`) to keep
    /// their keys off the command line; the server runs and its tool reaches the model.
    #[test]
    fn the_typescript_sdks_mcp_servers_sent_in_initialize_run() {
        let protocol = protocols::anthropic();
        let home = Home::new();
        let log = home.root.path().join("counter.log");
        let server = MockServer::start(vec![
            Reply::sse(&(protocol.tool_call)(
                "toolu_1",
                "mcp__counter__increment",
                &json!({}),
            )),
            Reply::sse(&(protocol.text)(&["Counted."])),
        ]);
        let config = json!({
            "type": "stdio",
            "command": crate::suite::mcp::server_binary(),
            "args": ["stdio", "--log", log],
        });
        let lines = drive(
            &home,
            protocol.model,
            &provider_env(&protocol, &server),
            &format!(
                r#"
const stderr = (text) => out({{ kind: "stderr", text }});
const opts = options({{ mcpServers: {{ counter: {config} }}, allowedTools: ["mcp__counter__increment"], stderr }});
for await (const message of query({{ prompt: "Count.", options: opts }})) {{
    out({{ kind: message.type, message }});
}}
"#
            ),
        );
        let results = of_kind(&lines, "result");
        assert_eq!(results[0]["message"]["result"], "Counted.", "{lines:#?}");
        let requests = server.requests();
        assert_eq!(requests.len(), 2, "{lines:#?}");
        let tools = requests[0].json()["tools"].to_string();
        assert!(tools.contains("mcp__counter__increment"), "{tools}");
        let sent = requests[1].json()["messages"].to_string();
        assert!(sent.contains("count 1"), "{sent}");
        let stderr: String = of_kind(&lines, "stderr")
            .iter()
            .filter_map(|line| line["text"].as_str())
            .collect();
        assert!(!stderr.contains("await-initialize"), "{stderr}");
    }
}

/// SIGTERM between two prompts (the SDK's process still holding stdin open) ends the process
/// with 143, as it does during a turn: once a turn has installed its handlers, nothing else
/// would hear it, and the process would wait on stdin for ever.
#[test]
fn sigterm_between_prompts_ends_the_process() {
    use std::io::{BufRead as _, BufReader, Write as _};
    let protocol = protocols::anthropic();
    let home = Home::new();
    let server = MockServer::start(vec![Reply::sse(&(protocol.text)(&["First answer."]))]);
    let mut pincer = home.pincer();
    for (name, value) in provider_env(&protocol, &server) {
        pincer = pincer.env(name, value);
    }
    let mut child = pincer
        .args([
            "--output-format",
            "stream-json",
            "--verbose",
            "--input-format",
            "stream-json",
            "--model",
            protocol.model,
        ])
        .spawn_with_open_stdin();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(
        stdin,
        r#"{{"type":"control_request","request_id":"req_1","request":{{"subtype":"initialize"}}}}"#
    )
    .unwrap();
    writeln!(
        stdin,
        r#"{{"type":"user","message":{{"role":"user","content":"Say it."}},"parent_tool_use_id":null,"session_id":"default"}}"#
    )
    .unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let mut lines = stdout.lines();
    loop {
        let line = lines
            .next()
            .expect("stdout closed before a result")
            .unwrap();
        let value: Value = serde_json::from_str(&line).unwrap();
        if value["type"] == "result" {
            assert_eq!(value["result"], "First answer.", "{line}");
            break;
        }
    }
    // The turn is over and stdin stays open: the process waits for the next prompt.
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap()),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "pincer ignored SIGTERM between prompts"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    drop(stdin);
    assert_eq!(status.code(), Some(143));
}
