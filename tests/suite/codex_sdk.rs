//! The real Codex SDK (`@openai/codex-sdk`, pinned) drives pincer as its `codex` (SPEC §16):
//! `new Codex({codexPathOverride: <pincer>})`, nothing else changed. Each case is a small node
//! script; each asserts what the mock provider received and what the SDK returned.
//!
//! The SDK is installed with npm once per target directory (`target/tmp/codex-sdk-VERSION`,
//! without the optional `codex` binaries it would otherwise download), or taken from
//! `PINCER_CODEX_SDK_DIR` (a directory holding `node_modules/@openai/codex-sdk`). Without node,
//! npm or the package the tests fail: `.ci/run` installs node and npm, and the registry is
//! reachable there.

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use serde_json::{Value, json};

use crate::common::mock::{MockServer, Piece, Reply};
use crate::common::protocols::{self, KEY, offered_tools};
use crate::common::sdk::{self, provider_env};
use crate::common::{Home, code, stderr};

/// The SDK version the suite runs (the newest on npm when the captures of
/// `reference/agent-sdk/codex-0.171-codex-sdk` were made).
const SDK_VERSION: &str = "0.163.0";

/// The SDK's entry module, installed on first use.
fn sdk_module() -> PathBuf {
    static MODULE: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    MODULE
        .get_or_init(install_sdk)
        .clone()
        .unwrap_or_else(|error| panic!("the Codex SDK is not available: {error}"))
}

fn install_sdk() -> Result<PathBuf, String> {
    sdk::npm_module(
        "@openai/codex-sdk",
        SDK_VERSION,
        "dist/index.js",
        &format!("codex-sdk-{SDK_VERSION}"),
        "PINCER_CODEX_SDK_DIR",
    )
}

/// What every case's script starts with: the SDK imported, `spec` (pincer's path, the
/// environment it runs with, the workspace and model), `out` to print one JSON line, and the
/// thread options of the SDK's own tests.
const PRELUDE: &str = r#"
const { Codex } = await import(process.env.CODEX_SDK_URL);
const spec = JSON.parse(process.env.PINCER_SPEC);
const out = (value) => console.log(JSON.stringify(value));
const threadOptions = { workingDirectory: spec.workspace, skipGitRepoCheck: true, model: spec.model };
const codex = new Codex({ codexPathOverride: spec.pincer, env: spec.env, ...spec.options });
"#;

/// Run `script` under node with the SDK pointed at pincer in `home` (its environment plus
/// `env`, the model `model`, more `Codex` options in `options`); every line it printed.
fn drive(
    home: &Home,
    (model, env, options): (&str, &[(&str, String)], Value),
    script: &str,
) -> Vec<Value> {
    let mut spec = sdk::spec(home, env);
    spec.insert("model".to_owned(), json!(model));
    spec.insert("options".to_owned(), options);
    let module = sdk_module();
    let mut node = Command::new("node");
    node.args(["--input-type=module", "-e", &format!("{PRELUDE}{script}")]);
    sdk::run_script(
        home,
        node,
        &[
            ("CODEX_SDK_URL", format!("file://{}", module.display())),
            ("PINCER_SPEC", Value::Object(spec).to_string()),
        ],
    )
}

/// The session file `id` names exists (`sessions path` finds it).
fn assert_session_exists(home: &Home, id: &str) {
    let output = home.run(&["sessions", "path", id]);
    assert_eq!(code(&output), 0, "no session {id}: {}", stderr(&output));
}

/// The SDK's `baseUrl` and `apiKey` options (`--config openai_base_url=…`, `CODEX_API_KEY`) reach
/// OpenAI's provider; the answer, the items and the usage are what `thread.run` returns.
#[test]
fn a_text_turn_returns_the_answer_items_and_usage_with_the_sdks_base_url_and_key() {
    let protocol = protocols::openai();
    let home = Home::new();
    let server = MockServer::start(vec![Reply::sse(&(protocol.text)(&[
        "Mock answer ANS-898c75526e.",
    ]))]);
    let options = json!({"baseUrl": protocol.base_url(&server.url()), "apiKey": KEY});
    let lines = drive(
        &home,
        (protocol.model, &[], options),
        r#"
const thread = codex.startThread(threadOptions);
const turn = await thread.run("Say hello. PROMPT-1bd9c9894c");
out({ id: thread.id, ...turn });
"#,
    );
    let turn = &lines[0];
    assert_eq!(turn["finalResponse"], "Mock answer ANS-898c75526e.");
    assert_eq!(
        turn["items"],
        json!([{"id": "item_0", "type": "agent_message", "text": "Mock answer ANS-898c75526e."}])
    );
    assert_eq!(
        turn["usage"],
        json!({"input_tokens": 30, "cached_input_tokens": 0, "cache_write_input_tokens": 0,
            "output_tokens": 11, "reasoning_output_tokens": 0})
    );
    assert_session_exists(&home, turn["id"].as_str().unwrap());

    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let (header, value) = (protocol.key_header)(KEY);
    assert_eq!(requests[0].header(header), Some(value.as_str()));
    let body = requests[0].json();
    assert_eq!(body["model"], "gpt-5");
    assert!(
        body["input"]
            .to_string()
            .contains("Say hello. PROMPT-1bd9c9894c"),
        "{body}"
    );
}

/// The model calls `exec`: the SDK gets a `command_execution` item with the command, its output
/// and exit code, then the answer; the model got the command's output back.
#[test]
fn a_tool_turn_returns_the_command_execution_item_and_the_mock_gets_its_output() {
    let protocol = protocols::anthropic();
    let home = Home::new();
    std::fs::write(
        home.workspace.join("notes.txt"),
        "The token is MAGIC-fab7b7359ad4\n",
    )
    .unwrap();
    let server = MockServer::start(vec![
        Reply::sse(&(protocol.tool_call)(
            "toolu_1",
            "exec",
            &json!({"command": "cat notes.txt"}),
        )),
        Reply::sse(&(protocol.text)(&[
            "I read the file. It contains the token MAGIC-fab7b7359ad4.",
        ])),
    ]);
    let lines = drive(
        &home,
        (protocol.model, &provider_env(&protocol, &server), json!({})),
        r#"
const thread = codex.startThread(threadOptions);
const turn = await thread.run("Read the file notes.txt and tell me the token in it.");
out(turn);
"#,
    );
    let turn = &lines[0];
    assert_eq!(
        turn["items"],
        json!([
            {"id": "item_0", "type": "command_execution", "command": "cat notes.txt",
             "aggregated_output": "The token is MAGIC-fab7b7359ad4\n", "exit_code": 0,
             "status": "completed"},
            {"id": "item_1", "type": "agent_message",
             "text": "I read the file. It contains the token MAGIC-fab7b7359ad4."},
        ])
    );
    assert_eq!(
        turn["finalResponse"],
        "I read the file. It contains the token MAGIC-fab7b7359ad4."
    );
    // Two model calls' usage, added up.
    assert_eq!(turn["usage"]["input_tokens"], 50);
    assert_eq!(turn["usage"]["output_tokens"], 24);

    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let first = requests[0].json();
    assert!(
        offered_tools(&first).contains(&"exec".to_owned()),
        "{first}"
    );
    assert!(
        first["messages"]
            .to_string()
            .contains("notes.txt and tell me")
    );
    let result = (protocol.tool_result)(&requests[1].json(), "toolu_1").unwrap();
    assert!(result.contains("MAGIC-fab7b7359ad4"), "{result}");
}

/// `codex.resumeThread(id)` runs `exec … resume ID`: the same session continues, with the
/// first turn in the context the model gets.
#[test]
fn resume_thread_continues_the_session_the_first_turn_made() {
    let protocol = protocols::anthropic();
    let home = Home::new();
    let server = MockServer::start(vec![
        Reply::sse(&(protocol.text)(&["Answer 1 ANS-bd27cb44eb."])),
        Reply::sse(&(protocol.text)(&["Answer 2 FIRST-e003ed1d72."])),
    ]);
    let lines = drive(
        &home,
        (protocol.model, &provider_env(&protocol, &server), json!({})),
        r#"
const first = codex.startThread(threadOptions);
const one = await first.run("Remember this code: FIRST-e003ed1d72.");
const again = codex.resumeThread(first.id, threadOptions);
const two = await again.run("What code did I give you?");
out({ first: first.id, again: again.id, one: one.finalResponse, two: two.finalResponse });
"#,
    );
    let result = &lines[0];
    assert_eq!(result["one"], "Answer 1 ANS-bd27cb44eb.");
    assert_eq!(result["two"], "Answer 2 FIRST-e003ed1d72.");
    assert_eq!(
        result["again"], result["first"],
        "thread.started names the same thread again"
    );
    assert_session_exists(&home, result["first"].as_str().unwrap());
    let sessions = crate::common::integrity::session_files(&home.sessions_dir());
    assert_eq!(sessions.len(), 1, "{sessions:?}");

    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let context = requests[1].json()["messages"].to_string();
    for said in [
        "Remember this code: FIRST-e003ed1d72.",
        "Answer 1 ANS-bd27cb44eb.",
        "What code did I give you?",
    ] {
        assert!(context.contains(said), "{said} missing from {context}");
    }
}

/// `outputSchema` is `--output-schema FILE`: the provider gets the schema, the SDK's
/// `finalResponse` is the JSON answer.
#[test]
fn an_output_schema_reaches_the_provider_and_the_final_response_is_the_json() {
    let protocol = protocols::openai();
    let home = Home::new();
    let server = MockServer::start(vec![Reply::sse(&(protocol.text)(&[
        r#"{"answer":"SO-c9fcbae295"}"#,
    ]))]);
    let lines = drive(
        &home,
        (protocol.model, &provider_env(&protocol, &server), json!({})),
        r#"
const schema = {
  type: "object",
  properties: { answer: { type: "string" } },
  required: ["answer"],
  additionalProperties: false,
};
const thread = codex.startThread(threadOptions);
const turn = await thread.run("Give the answer as JSON.", { outputSchema: schema });
out({ finalResponse: turn.finalResponse, parsed: JSON.parse(turn.finalResponse) });
"#,
    );
    assert_eq!(lines[0]["finalResponse"], r#"{"answer":"SO-c9fcbae295"}"#);
    assert_eq!(lines[0]["parsed"]["answer"], "SO-c9fcbae295");

    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let format = &requests[0].json()["text"]["format"];
    assert_eq!(format["type"], "json_schema", "{format}");
    assert_eq!(
        format["schema"]["properties"],
        json!({"answer": {"type": "string"}})
    );
    assert_eq!(format["schema"]["required"], json!(["answer"]));
}

/// A turn the provider refuses fails in the SDK with pincer's message: `turn.failed`, never an
/// empty answer; streamed, the events say so too.
#[test]
fn a_failed_turn_throws_in_the_sdk_with_the_reason() {
    let protocol = protocols::anthropic();
    let home = Home::new();
    let refused = || Reply::json(401, &(protocol.error_body)(401));
    let server = MockServer::start(vec![refused(), refused()]);
    let lines = drive(
        &home,
        (protocol.model, &provider_env(&protocol, &server), json!({})),
        r#"
try {
  const turn = await codex.startThread(threadOptions).run("hello");
  out({ returned: turn });
} catch (error) {
  out({ thrown: error.message });
}
const seen = [];
try {
  const { events } = await codex.startThread(threadOptions).runStreamed("hello");
  for await (const event of events) seen.push(event);
} catch (error) {
  seen.push({ thrown: error.message });
}
out(seen);
"#,
    );
    let thrown = lines[0]["thrown"]
        .as_str()
        .unwrap_or_else(|| panic!("run() returned: {}", lines[0]));
    assert!(thrown.contains("invalid x-api-key"), "{thrown}");
    let kinds: Vec<&str> = lines[1]
        .as_array()
        .unwrap()
        .iter()
        .map(|event| event["type"].as_str().unwrap_or("thrown"))
        .collect();
    assert_eq!(
        kinds,
        [
            "thread.started",
            "turn.started",
            "error",
            "turn.failed",
            "thrown"
        ]
    );
    // Read to the end, the stream also reports the non-zero exit with pincer's stderr.
    let last = lines[1].as_array().unwrap().last().unwrap()["thrown"]
        .as_str()
        .unwrap();
    assert!(last.starts_with("Codex Exec exited with code 3"), "{last}");
}

/// Every thread option the SDK has becomes a flag or `--config` key pincer applies or accepts:
/// the run succeeds, the reasoning level and web search reach the request, and an image of a
/// resumed thread (`--image` after `resume ID`) reaches it too.
#[test]
fn every_thread_option_is_applied_or_accepted_and_an_image_reaches_a_resumed_thread() {
    let protocol = protocols::openai();
    let home = Home::new();
    let extra = home.root.path().join("extra");
    std::fs::create_dir_all(&extra).unwrap();
    std::fs::write(home.workspace.join("pic.png"), b"\x89PNG\r\n\x1a\n0000").unwrap();
    let server = MockServer::start(vec![
        Reply::sse(&(protocol.text)(&["first ANS-1"])),
        Reply::sse(&(protocol.text)(&["second ANS-2"])),
    ]);
    let options = json!({"config": {"model_verbosity": "low"}, "extra": extra});
    let lines = drive(
        &home,
        (protocol.model, &provider_env(&protocol, &server), options),
        r#"
const options = {
  ...threadOptions,
  sandboxMode: "read-only",
  modelReasoningEffort: "high",
  networkAccessEnabled: true,
  webSearchMode: "live",
  approvalPolicy: "never",
  additionalDirectories: [spec.options.extra],
};
const thread = codex.startThread(options);
const one = await thread.run("first");
const again = codex.resumeThread(thread.id, options);
const two = await again.run([
  { type: "text", text: "what is in the picture?" },
  { type: "local_image", path: "pic.png" },
]);
out({ one: one.finalResponse, two: two.finalResponse });
"#,
    );
    assert_eq!(
        lines[0],
        json!({"one": "first ANS-1", "two": "second ANS-2"})
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    for request in &requests {
        let body = request.json();
        assert_eq!(body["reasoning"]["effort"], "high", "{body}");
        assert!(
            body["tools"].to_string().contains("\"web_search"),
            "{}",
            body["tools"]
        );
    }
    let second = requests[1].json()["input"].to_string();
    assert!(second.contains("input_image"), "{second}");
    assert!(second.contains("what is in the picture?"), "{second}");
}

/// An MCP server given in the SDK's `config` (codex's `mcp_servers` keys, pincer's too) starts,
/// and the model's call of its tool is an `mcp_tool_call` item with the server's answer.
#[test]
fn an_mcp_server_from_the_sdks_config_is_called_and_shown_as_an_mcp_tool_call() {
    let protocol = protocols::anthropic();
    let home = Home::new();
    let server = MockServer::start(vec![
        Reply::sse(&(protocol.tool_call)(
            "toolu_1",
            "mcp__test__echo",
            &json!({"text": "hi"}),
        )),
        Reply::sse(&(protocol.text)(&["The server said hi."])),
    ]);
    let binary = crate::suite::mcp::server_binary();
    let options =
        json!({"config": {"mcp_servers": {"test": {"command": binary, "args": ["stdio"]}}}});
    let lines = drive(
        &home,
        (protocol.model, &provider_env(&protocol, &server), options),
        r#"
const turn = await codex.startThread(threadOptions).run("Call echo with hi.");
out(turn);
"#,
    );
    assert_eq!(
        lines[0]["items"],
        json!([
            {"id": "item_0", "type": "mcp_tool_call", "server": "test", "tool": "echo",
             "arguments": {"text": "hi"},
             "result": {"content": [{"type": "text", "text": "echo: hi"}], "structured_content": null},
             "error": null, "status": "completed"},
            {"id": "item_1", "type": "agent_message", "text": "The server said hi."},
        ])
    );
    let requests = server.requests();
    assert!(
        offered_tools(&requests[0].json()).contains(&"mcp__test__echo".to_owned()),
        "the server's tool is offered"
    );
    let result = (protocol.tool_result)(&requests[1].json(), "toolu_1").unwrap();
    assert!(result.contains("echo: hi"), "{result}");
}

/// A provider that takes the request and never answers: a turn that is still running.
fn stalled() -> Reply {
    Reply::sse_pieces(vec![Piece::Stall(std::time::Duration::from_secs(30))])
}

/// Regression (#47 item 16): after SIGTERM `pincer exec` went on to print `error` and
/// `turn.failed`, so the SDK threw a plain `Error`, and the Vercel codex-cli provider crashed
/// its host. Aborted through its `AbortSignal` (which sends SIGTERM), the SDK sees no event
/// after the abort and throws an `AbortError`, as with `codex`.
#[test]
fn an_aborted_turn_throws_an_abort_error_in_the_sdk_and_no_event_follows_the_abort() {
    let protocol = protocols::anthropic();
    let home = Home::new();
    let server = MockServer::start(vec![stalled()]);
    let lines = drive(
        &home,
        (protocol.model, &provider_env(&protocol, &server), json!({})),
        r#"
const controller = new AbortController();
const seen = [];
try {
  const { events } = await codex.startThread(threadOptions)
    .runStreamed("hello", { signal: controller.signal });
  for await (const event of events) {
    seen.push(event.type);
    if (event.type === "turn.started") setTimeout(() => controller.abort(), 700);
  }
  out({ seen, returned: true });
} catch (error) {
  out({ seen, name: error.name, message: error.message });
}
"#,
    );
    let outcome = &lines[0];
    assert_eq!(outcome["name"], "AbortError", "{outcome}");
    assert_eq!(
        outcome["seen"],
        json!(["thread.started", "turn.started"]),
        "{outcome}"
    );
    // The abort came while the model call was running.
    assert_eq!(server.requests().len(), 1);
}

/// The same without the SDK: SIGTERM or SIGINT during the turn, and `pincer exec --json` ends
/// by that signal (not exit 143 or 130) with nothing on stdout after it.
#[test]
fn exec_ends_by_the_signal_it_got_and_prints_nothing_after_it() {
    use std::os::unix::process::ExitStatusExt;

    use nix::sys::signal::Signal;

    for signal in [Signal::SIGTERM, Signal::SIGINT] {
        let protocol = protocols::anthropic();
        let home = Home::new();
        let server = MockServer::start(vec![stalled()]);
        let child = home
            .pincer()
            .provider(&protocol, &server)
            .args([
                "exec",
                "--json",
                "-m",
                protocol.model,
                "--skip-git-repo-check",
            ])
            .arg("hello")
            .spawn();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while server.requests().is_empty() {
            assert!(
                std::time::Instant::now() < deadline,
                "no request reached the mock"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap());
        nix::sys::signal::kill(pid, signal).unwrap();
        let output = child.wait_with_output().unwrap();
        assert_eq!(
            output.status.signal(),
            Some(signal as i32),
            "{signal}: {:?}: {}",
            output.status,
            stderr(&output)
        );
        let out = String::from_utf8_lossy(&output.stdout);
        let kinds: Vec<String> = out
            .lines()
            .map(|line| serde_json::from_str::<Value>(line).unwrap()["type"].to_string())
            .collect();
        assert_eq!(
            kinds,
            [r#""thread.started""#, r#""turn.started""#],
            "{signal}: {out}"
        );
    }
}
