//! MCP servers (SPEC §13) end to end: a real MCP server built on rmcp's server side
//! (`examples/mcp_test_server.rs`) over stdio, Streamable HTTP (SSE replies with a session, and
//! JSON replies) and legacy HTTP+SSE, driven by the mock provider calling `mcp__…` tools on every
//! protocol; results, timeouts, crashes, the policy, required servers, startup timeouts,
//! shutdown on SIGTERM without orphans, the configuration rules and the CLI backends.

use std::io::BufRead as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::common::mock::{MockServer, Reply};
use crate::common::protocols::{self, Protocol, offered_tools};
use crate::common::{Home, code, stderr, stdout};

/// The test server binary.
pub(crate) fn server_binary() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| crate::common::example_binary("mcp_test_server"))
}

/// A `--mcp-config` JSON document with one stdio test server `name` in `mode`, `extra` keys
/// merged into its entry.
pub(crate) fn stdio_server(name: &str, mode: &str, log: Option<&Path>, extra: Value) -> Value {
    let mut args = vec![json!(mode)];
    if let Some(log) = log {
        args.push(json!("--log"));
        args.push(json!(log));
    }
    let mut entry = json!({"command": server_binary(), "args": args});
    if let (Some(entry), Some(extra)) = (entry.as_object_mut(), extra.as_object()) {
        entry.extend(extra.clone());
    }
    json!({"mcpServers": {name: entry}})
}

/// A test server serving HTTP, stopped (by its own pid) when dropped.
struct HttpServer {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    base: String,
}

impl HttpServer {
    fn start(json_replies: bool, log: &Path) -> HttpServer {
        let mut command = Command::new(server_binary());
        command.arg("http").arg("--log").arg(log);
        if json_replies {
            command.arg("--json");
        }
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        HttpServer {
            child,
            base: line.trim().to_owned(),
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn tool_call(protocol: &Protocol, id: &str, name: &str, arguments: Value) -> Reply {
    Reply::sse(&(protocol.tool_call)(id, name, &arguments))
}

fn answer(protocol: &Protocol, text: &str) -> Reply {
    Reply::sse(&(protocol.text)(&[text]))
}

/// `pincer run -m MODEL --output-format stream-json ARGS… go` against `mock`.
fn run(home: &Home, protocol: &Protocol, mock: &MockServer, args: &[&str]) -> Output {
    let mut all = vec![
        "run",
        "-m",
        protocol.model,
        "--output-format",
        "stream-json",
    ];
    all.extend_from_slice(args);
    all.push("go");
    home.pincer()
        .provider(protocol, mock)
        .fast_retries()
        .args(&all)
        .output()
}

fn events(output: &Output) -> Vec<Value> {
    stdout(output)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect()
}

fn init_servers(output: &Output) -> Value {
    let events = events(output);
    let init = events
        .iter()
        .find(|event| event["subtype"] == "init")
        .unwrap_or_else(|| panic!("no init event in {}", stdout(output)));
    init["mcp_servers"].clone()
}

fn result(output: &Output) -> Value {
    events(output).last().cloned().unwrap_or(Value::Null)
}

/// The session's messages, in order.
fn session_messages(home: &Home) -> Vec<Value> {
    let mut messages = Vec::new();
    for entry in std::fs::read_dir(home.sessions_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path
            .extension()
            .is_some_and(|extension| extension == "jsonl")
        {
            for line in std::fs::read_to_string(path).unwrap().lines() {
                let value: Value = serde_json::from_str(line).unwrap();
                if value["type"] == "message" {
                    messages.push(value["message"].clone());
                }
            }
        }
    }
    messages
}

/// The text of the tool results stored in the session, in order.
fn stored_results(home: &Home) -> Vec<(String, bool, String)> {
    session_messages(home)
        .iter()
        .filter(|message| message["role"] == "toolResult")
        .map(|message| {
            let text: Vec<String> = message["content"]
                .as_array()
                .unwrap()
                .iter()
                .map(|block| match block["type"].as_str() {
                    Some("text") => block["text"].as_str().unwrap().to_owned(),
                    Some(other) => {
                        format!("<{other} {}>", block["mimeType"].as_str().unwrap_or(""))
                    }
                    None => String::new(),
                })
                .collect();
            (
                message["toolName"].as_str().unwrap().to_owned(),
                message["isError"] == true,
                text.join("|"),
            )
        })
        .collect()
}

/// The lines of a test server's log, waiting up to 10 s for one that starts with `prefix`.
fn wait_for_log(log: &Path, prefix: &str) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let lines: Vec<String> = std::fs::read_to_string(log)
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect();
        if lines.iter().any(|line| line.starts_with(prefix)) || Instant::now() > deadline {
            return lines;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The pids logged as `PREFIX N`.
fn logged_pids(log: &Path, prefix: &str) -> Vec<i32> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| line.strip_prefix(prefix))
        .map(|pid| pid.trim().parse().unwrap())
        .collect()
}

/// `pincer run --json --mcp-config CONFIG go`, sent `signal` once `log` has a line starting
/// with `ready`: its output and the log's lines at that moment.
fn run_until_signal(
    home: &Home,
    protocol: &Protocol,
    mock: &MockServer,
    (config, log, ready): (&Value, &Path, &str),
    signal: nix::sys::signal::Signal,
) -> (Output, Vec<String>) {
    let child = home
        .pincer()
        .provider(protocol, mock)
        .fast_retries()
        .args(["run", "-m", protocol.model, "--json", "--mcp-config"])
        .arg(config.to_string())
        .arg("go")
        .spawn();
    let lines = wait_for_log(log, ready);
    assert!(
        lines.iter().any(|line| line.starts_with(ready)),
        "{lines:?}"
    );
    let pincer = nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap());
    nix::sys::signal::kill(pincer, signal).unwrap();
    (child.wait_with_output().unwrap(), lines)
}

/// Every server process that logged its pid to `log` is gone.
fn assert_servers_gone(log: &Path, what: &str) {
    for pid in logged_pids(log, "pid ") {
        assert!(gone(pid), "{what}: server {pid} still running");
    }
}

/// Whether process `pid` is gone (a zombie awaiting its reaper counts as gone), within 5 s.
fn gone(pid: i32) -> bool {
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"));
        match stat {
            Err(_) => return true,
            Ok(stat) if stat.contains(") Z ") => return true,
            Ok(_) => std::thread::sleep(Duration::from_millis(20)),
        }
    }
    false
}

#[test]
fn mcp_tools_are_offered_and_called_on_every_protocol_and_recorded_in_the_session() {
    for protocol in protocols::all() {
        let home = Home::new();
        let log = home.root.path().join("server.log");
        let config = stdio_server("test", "stdio", Some(&log), json!({}));
        let mock = MockServer::start(vec![
            tool_call(
                &protocol,
                "call_1",
                "mcp__test__echo",
                json!({"text": "hi"}),
            ),
            answer(&protocol, "done"),
        ]);
        let output = run(
            &home,
            &protocol,
            &mock,
            &["--mcp-config", &config.to_string()],
        );
        assert_eq!(code(&output), 0, "{}: {}", protocol.name, stderr(&output));
        let requests = mock.requests();
        assert_eq!(requests.len(), 2, "{}", protocol.name);
        let offered = offered_tools(&requests[0].json());
        for tool in [
            "read",
            "mcp__test__echo",
            "mcp__test__lookup",
            "mcp__test__spawn",
        ] {
            assert!(
                offered.contains(&tool.to_owned()),
                "{}: {offered:?}",
                protocol.name
            );
        }
        let second = String::from_utf8_lossy(&requests[1].body).into_owned();
        assert!(second.contains("echo: hi"), "{}: {second}", protocol.name);
        let servers = init_servers(&output);
        assert_eq!(servers[0]["name"], "test", "{}", protocol.name);
        assert_eq!(servers[0]["status"], "connected");
        assert_eq!(servers[0]["transport"], "stdio");
        assert_eq!(servers[0]["tools"].as_array().unwrap().len(), 10);
        assert!(
            events(&output)
                .iter()
                .find(|event| event["subtype"] == "init")
                .unwrap()["tools"]
                .as_array()
                .unwrap()
                .contains(&json!("mcp__test__echo"))
        );
        assert_eq!(
            stored_results(&home),
            [("mcp__test__echo".to_owned(), false, "echo: hi".to_owned())],
            "{}",
            protocol.name
        );
        let calls: Vec<String> = session_messages(&home)
            .iter()
            .filter(|message| message["role"] == "assistant")
            .flat_map(|message| message["content"].as_array().cloned().unwrap_or_default())
            .filter(|block| block["type"] == "toolCall")
            .map(|block| block["name"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(calls, ["mcp__test__echo"], "{}", protocol.name);
        // The server was stopped when the run ended: its stdin closed.
        let lines = wait_for_log(&log, "stdin closed");
        assert!(lines.contains(&"stdin closed".to_owned()), "{lines:?}");
        assert_servers_gone(&log, protocol.name);
    }
}

#[test]
fn results_map_text_images_structured_content_errors_and_crashes() {
    let protocol = protocols::anthropic();
    let home = Home::new();
    let config = stdio_server("t", "stdio", None, json!({}));
    let mock = MockServer::start(vec![
        tool_call(&protocol, "c1", "mcp__t__image", json!({})),
        tool_call(
            &protocol,
            "c2",
            "mcp__t__structured",
            json!({"a": 1, "b": 2}),
        ),
        tool_call(&protocol, "c3", "mcp__t__fail", json!({})),
        tool_call(&protocol, "c4", "mcp__t__crash", json!({})),
        tool_call(&protocol, "c5", "mcp__t__echo", json!({"text": "after"})),
        answer(&protocol, "done"),
    ]);
    let output = run(
        &home,
        &protocol,
        &mock,
        &["--mcp-config", &config.to_string()],
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let results = stored_results(&home);
    assert_eq!(
        results[0],
        (
            "mcp__t__image".to_owned(),
            false,
            "a red pixel|<image image/png>".to_owned()
        )
    );
    assert_eq!(
        results[1],
        (
            "mcp__t__structured".to_owned(),
            false,
            r#"{"sum":3.0}"#.to_owned()
        )
    );
    assert_eq!(
        results[2],
        (
            "mcp__t__fail".to_owned(),
            true,
            "the tool failed on purpose".to_owned()
        )
    );
    let (name, is_error, text) = &results[3];
    assert_eq!((name.as_str(), *is_error), ("mcp__t__crash", true));
    assert!(
        text.contains("closed the connection during the call"),
        "{text}"
    );
    assert!(
        text.contains("crashing now, in the middle of a call"),
        "{text}"
    );
    let (_, is_error, text) = &results[4];
    assert!(*is_error && text.contains("is no longer running"), "{text}");
    // The image went to the model as an image block.
    let body = mock.requests()[1].json();
    let sent = body["messages"].to_string();
    assert!(
        sent.contains("\"type\":\"image\"") && sent.contains("iVBORw0KGgo"),
        "{sent}"
    );
}

#[test]
fn a_call_past_its_tool_timeout_is_cancelled_on_the_server_and_reported() {
    let protocol = protocols::openai();
    let home = Home::new();
    let log = home.root.path().join("server.log");
    let config = stdio_server(
        "slow",
        "stdio",
        Some(&log),
        json!({"tool_timeout_sec": 0.5}),
    );
    let mock = MockServer::start(vec![
        tool_call(&protocol, "c1", "mcp__slow__sleep", json!({"seconds": 30})),
        answer(&protocol, "done"),
    ]);
    let started = Instant::now();
    let output = run(
        &home,
        &protocol,
        &mock,
        &["--mcp-config", &config.to_string()],
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(started.elapsed() < Duration::from_secs(15));
    let (_, is_error, text) = &stored_results(&home)[0];
    assert!(*is_error, "{text}");
    assert!(
        text.contains("timed out after 0.5 s (tool_timeout_sec of server 'slow')"),
        "{text}"
    );
    let lines = wait_for_log(&log, "cancelled");
    assert!(
        lines
            .iter()
            .any(|line| line.starts_with("cancelled ") && line.contains("timed out")),
        "{lines:?}"
    );
}

#[test]
fn streamable_http_and_legacy_sse_servers_work_with_headers_sessions_and_a_bearer_token() {
    let protocol = protocols::anthropic();
    let home = Home::new();
    let log = home.root.path().join("http.log");
    let json_log = home.root.path().join("json.log");
    let sessions = HttpServer::start(false, &log);
    let json_replies = HttpServer::start(true, &json_log);
    let token = "mcp-bearer-token-1234";
    let config = home.home.join("config.toml");
    std::fs::write(
        &config,
        format!(
            "[mcp_servers.sess]\nurl = \"{}/mcp\"\nbearer_token_env_var = \"MCP_TOKEN\"\n\
             http_headers = {{ \"X-Team\" = \"ops\" }}\n\n\
             [mcp_servers.plain]\nurl = \"{}/mcp\"\n\n\
             [mcp_servers.old]\ntype = \"sse\"\nurl = \"{}/sse\"\n",
            sessions.base, json_replies.base, sessions.base
        ),
    )
    .unwrap();
    let mock = MockServer::start(vec![
        tool_call(&protocol, "c1", "mcp__sess__echo", json!({"text": "one"})),
        tool_call(&protocol, "c2", "mcp__plain__echo", json!({"text": "two"})),
        tool_call(
            &protocol,
            "c3",
            "mcp__old__structured",
            json!({"a": 2, "b": 2}),
        ),
        answer(&protocol, "done"),
    ]);
    let output = home
        .pincer()
        .provider(&protocol, &mock)
        .fast_retries()
        .env("MCP_TOKEN", token)
        .args([
            "-v",
            "run",
            "-m",
            protocol.model,
            "--output-format",
            "stream-json",
            "go",
        ])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let transports: Vec<(String, String)> = init_servers(&output)
        .as_array()
        .unwrap()
        .iter()
        .map(|server| {
            assert_eq!(server["status"], "connected", "{server}");
            (
                server["name"].as_str().unwrap().to_owned(),
                server["transport"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    // config.toml's tables come in name order.
    assert_eq!(
        transports,
        [
            ("old".to_owned(), "sse".to_owned()),
            ("plain".to_owned(), "http".to_owned()),
            ("sess".to_owned(), "http".to_owned())
        ]
    );
    let texts: Vec<String> = stored_results(&home)
        .into_iter()
        .map(|(_, _, text)| text)
        .collect();
    assert_eq!(texts, ["echo: one", "echo: two", r#"{"sum":4.0}"#]);
    let lines = std::fs::read_to_string(&log).unwrap();
    assert!(
        lines.contains(&format!("header authorization: Bearer {token}")),
        "{lines}"
    );
    assert!(lines.contains("header x-team: ops"), "{lines}");
    assert!(lines.contains("header mcp-session-id: "), "{lines}");
    // The token is sent to its server only: never printed, stored or sent to the model.
    assert!(!stdout(&output).contains(token));
    assert!(!stderr(&output).contains(token));
    for request in mock.requests() {
        assert!(!String::from_utf8_lossy(&request.body).contains(token));
    }
    for message in session_messages(&home) {
        assert!(!message.to_string().contains(token));
    }
}

#[test]
fn a_stdio_server_gets_pincers_environment_without_credentials_plus_its_env_and_v_shows_its_stderr()
{
    let protocol = protocols::anthropic();
    let home = Home::new();
    let config = stdio_server(
        "t",
        "stdio",
        None,
        json!({"env": {"SERVER_MODE": "ci", "SERVICE_TOKEN": "svc-token-98765"}}),
    );
    let mock = MockServer::start(vec![
        tool_call(
            &protocol,
            "c1",
            "mcp__t__env",
            json!({"name": "ANTHROPIC_API_KEY"}),
        ),
        tool_call(&protocol, "c2", "mcp__t__env", json!({"name": "KEY_COPY"})),
        tool_call(
            &protocol,
            "c3",
            "mcp__t__env",
            json!({"name": "SERVER_MODE"}),
        ),
        tool_call(
            &protocol,
            "c4",
            "mcp__t__env",
            json!({"name": "PINCER_HOME"}),
        ),
        // A server that shows the token it was given: redacted like pincer's own keys.
        tool_call(
            &protocol,
            "c5",
            "mcp__t__env",
            json!({"name": "SERVICE_TOKEN"}),
        ),
        answer(&protocol, "done"),
    ]);
    let output = home
        .pincer()
        .provider(&protocol, &mock)
        .fast_retries()
        .env("KEY_COPY", protocols::KEY)
        .args([
            "-v",
            "run",
            "-m",
            protocol.model,
            "--mcp-config",
            &config.to_string(),
            "go",
        ])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let texts: Vec<String> = stored_results(&home)
        .into_iter()
        .map(|(_, _, text)| text)
        .collect();
    assert_eq!(
        texts,
        [
            "(unset)",
            "(unset)",
            "ci",
            home.home.to_string_lossy().as_ref(),
            "[REDACTED]"
        ]
    );
    assert!(!String::from_utf8_lossy(&mock.requests()[5].body).contains("svc-token-98765"));
    // -v shows what the server writes to stderr.
    let text = stderr(&output);
    assert!(
        text.contains("mcp[t]: test server ready on stdio"),
        "{text}"
    );
    assert!(text.contains("mcp: server 't' connected in "), "{text}");
}

/// `pincer run` (stream-json) with `--mcp-config config` and `extra` arguments before `run`.
fn run_with_config(
    home: &Home,
    protocol: &Protocol,
    (config, extra): (&Value, &[&str]),
    env: &[(&str, &str)],
) -> Output {
    let mock = MockServer::start(vec![answer(protocol, "done")]);
    let mut command = home.pincer().provider(protocol, &mock).fast_retries();
    for (name, value) in env {
        command = command.env(name, value);
    }
    command
        .args(extra)
        .args([
            "run",
            "-m",
            protocol.model,
            "--output-format",
            "stream-json",
            "--mcp-config",
        ])
        .arg(config.to_string())
        .arg("go")
        .output()
}

#[test]
fn a_key_variable_reaches_a_servers_url_headers_args_or_env_only_when_config_toml_allows_it() {
    let protocol = protocols::anthropic();
    let home = Home::new();
    // A profile of another provider refers to a variable: that one is a key variable too.
    home.add_profile_from_env("openai", "MY_OPENAI_KEY");
    let profile_key = "sk-proj-PROFILE-mcp-31415926";
    let http_log = home.root.path().join("http.log");
    let stdio_log = home.root.path().join("stdio.log");
    let env_log = home.root.path().join("env.log");
    let http = HttpServer::start(false, &http_log);
    let mut config = json!({"mcpServers": {
        "web": {
            "type": "http",
            "url": format!("{}/mcp?key=${{ANTHROPIC_API_KEY}}", http.base),
            "headers": {"X-Team": "${ANTHROPIC_API_KEY:-none}"},
        },
    }});
    config["mcpServers"]["argv"] = stdio_server(
        "argv",
        "stdio",
        Some(&stdio_log),
        json!({"args": ["stdio", "--log", stdio_log, "--token=${ANTHROPIC_API_KEY}"]}),
    )["mcpServers"]["argv"]
        .clone();
    config["mcpServers"]["env"] = stdio_server(
        "env",
        "stdio",
        Some(&env_log),
        json!({"env": {"SERVICE_KEY": "${MY_OPENAI_KEY}"}}),
    )["mcpServers"]["env"]
        .clone();
    let env = [("MY_OPENAI_KEY", profile_key)];

    let output = run_with_config(&home, &protocol, (&config, &[]), &env);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let servers = init_servers(&output);
    for (index, (name, variable)) in [
        ("web", "ANTHROPIC_API_KEY"),
        ("argv", "ANTHROPIC_API_KEY"),
        ("env", "MY_OPENAI_KEY"),
    ]
    .into_iter()
    .enumerate()
    {
        let server = &servers[index];
        assert_eq!(server["name"], name, "{servers}");
        assert_eq!(server["status"], "failed", "{server}");
        let error = server["error"].as_str().unwrap();
        assert!(error.contains(&format!("${{{variable}}}")), "{error}");
        assert!(
            error.contains(&format!("[mcp.allow_key_env] {name} = [\"{variable}\"]")),
            "{error}"
        );
        // The warning says the same.
        let text = stderr(&output);
        assert!(
            text.contains(&format!("MCP server '{name}' failed to start: "))
                && text.contains(&format!("{name} = [\"{variable}\"]")),
            "{text}"
        );
    }
    // Nothing was started or connected to: no key in an argv, a URL or a header.
    assert!(!stdio_log.exists(), "the argv server was started");
    assert!(!env_log.exists(), "the env server was started");
    let logged = std::fs::read_to_string(&http_log).unwrap_or_default();
    assert!(
        !logged.contains("uri "),
        "the web server was reached: {logged}"
    );
    for text in [stdout(&output), stderr(&output)] {
        assert!(
            !text.contains(protocols::KEY) && !text.contains(profile_key),
            "{text}"
        );
    }

    // Allowed per server and variable in config.toml, each gets its key.
    let allow = [
        "-c",
        "mcp.allow_key_env.web=[\"ANTHROPIC_API_KEY\"]",
        "-c",
        "mcp.allow_key_env.argv=[\"ANTHROPIC_API_KEY\"]",
        "-c",
        "mcp.allow_key_env.env=[\"MY_OPENAI_KEY\"]",
    ];
    let output = run_with_config(&home, &protocol, (&config, &allow), &env);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let servers = init_servers(&output);
    for server in servers.as_array().unwrap() {
        assert_eq!(server["status"], "connected", "{server}");
    }
    let argv = wait_for_log(&stdio_log, "argv ");
    assert!(
        argv.contains(&format!(
            "argv stdio --log {} --token={}",
            stdio_log.display(),
            protocols::KEY
        )),
        "{argv:?}"
    );
    let logged = std::fs::read_to_string(&http_log).unwrap();
    assert!(
        logged.contains(&format!("uri /mcp?key={}", protocols::KEY)),
        "{logged}"
    );
    assert!(
        logged.contains(&format!("header x-team: {}", protocols::KEY)),
        "{logged}"
    );
    assert!(
        !stderr(&output).contains("allow_key_env"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn the_policy_decides_which_mcp_tools_are_offered_and_refuses_the_others() {
    let protocol = protocols::anthropic();
    let config = stdio_server("t", "stdio", None, json!({"disabled_tools": ["spawn"]})).to_string();
    let cases: [(&[&str], &[&str], &[&str]); 5] = [
        (
            &["--disallowed-tools", "mcp__t__echo"],
            &["mcp__t__lookup"],
            &["mcp__t__echo", "mcp__t__spawn"],
        ),
        (
            &["--allowed-tools", "mcp__t__e*"],
            &["mcp__t__echo", "mcp__t__env"],
            &["read", "mcp__t__lookup"],
        ),
        (
            &["--sandbox", "read-only"],
            &["mcp__t__lookup", "read"],
            &["mcp__t__echo", "write"],
        ),
        (
            &[
                "--sandbox",
                "read-only",
                "--allowed-tools",
                "read,mcp__t__echo",
            ],
            &["mcp__t__echo", "read"],
            &["mcp__t__lookup", "mcp__t__env"],
        ),
        (
            &["--tools", "read,group:mcp:t"],
            &["read", "mcp__t__echo"],
            &["exec"],
        ),
    ];
    for (flags, offered, absent) in cases {
        let home = Home::new();
        let mock = MockServer::start(vec![
            tool_call(&protocol, "c1", "mcp__t__echo", json!({"text": "x"})),
            answer(&protocol, "done"),
        ]);
        let mut args = vec!["--mcp-config", config.as_str()];
        args.extend_from_slice(flags);
        let output = run(&home, &protocol, &mock, &args);
        assert_eq!(code(&output), 0, "{flags:?}: {}", stderr(&output));
        let tools = offered_tools(&mock.requests()[0].json());
        for tool in offered {
            assert!(
                tools.contains(&(*tool).to_owned()),
                "{flags:?}: {tool} not in {tools:?}"
            );
        }
        for tool in absent {
            assert!(
                !tools.contains(&(*tool).to_owned()),
                "{flags:?}: {tool} in {tools:?}"
            );
        }
        let echo_offered = offered.contains(&"mcp__t__echo");
        let (_, is_error, text) = &stored_results(&home)[0];
        assert_eq!(!*is_error, echo_offered, "{flags:?}: {text}");
        let denials = result(&output)["permission_denials"].clone();
        if echo_offered {
            assert_eq!(denials, json!([]), "{flags:?}");
        } else {
            assert!(text.starts_with("Permission denied"), "{flags:?}: {text}");
            assert_eq!(denials[0]["tool_name"], "mcp__t__echo", "{flags:?}");
        }
    }
}

#[test]
fn a_required_server_that_fails_ends_the_run_before_any_request_and_leaves_no_session() {
    let protocol = protocols::anthropic();
    let home = Home::new();
    let config = stdio_server("db", "exit", None, json!({"required": true}));
    let mock = MockServer::start(vec![answer(&protocol, "never")]);
    let mut all = vec!["run", "-m", protocol.model, "--json", "--mcp-config"];
    let config = config.to_string();
    all.push(&config);
    all.push("go");
    let output = home
        .pincer()
        .provider(&protocol, &mock)
        .fast_retries()
        .args(&all)
        .output();
    assert_eq!(code(&output), 1, "{}", stderr(&output));
    assert!(mock.requests().is_empty());
    let result: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(result["is_error"], true);
    assert_eq!(result["error"]["kind"], "mcp");
    let message = result["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("required MCP server 'db' failed to start"),
        "{message}"
    );
    let text = stderr(&output);
    assert!(
        text.contains("error: required MCP server 'db' failed to start"),
        "{text}"
    );
    assert!(
        text.contains("fatal: the test server was told to fail at startup"),
        "{text}"
    );
    assert!(!home.sessions_dir().exists() || session_messages(&home).is_empty());
}

#[test]
fn a_failed_server_is_a_warning_and_failed_in_the_init_event_and_the_turn_goes_on() {
    let protocol = protocols::openai_chat();
    let home = Home::new();
    let log = home.root.path().join("hang.log");
    let mut config = stdio_server(
        "hang",
        "hang",
        Some(&log),
        json!({"startup_timeout_sec": 0.5}),
    );
    config["mcpServers"]["broken"] = json!({"command": "/nonexistent/mcp-server"});
    // A port nothing listens on.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    config["mcpServers"]["down"] = json!({"type": "http", "url": format!("http://{closed}/mcp")});
    let mock = MockServer::start(vec![answer(&protocol, "answered anyway")]);
    let output = run(
        &home,
        &protocol,
        &mock,
        &["--mcp-config", &config.to_string()],
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let servers = init_servers(&output);
    assert_eq!(servers[0]["name"], "hang");
    assert_eq!(servers[0]["status"], "failed");
    assert_eq!(
        servers[0]["error"],
        "did not start within 0.5 s (startup_timeout_sec)"
    );
    assert_eq!(servers[1]["name"], "broken");
    assert_eq!(servers[1]["status"], "failed");
    assert!(
        servers[1]["error"]
            .as_str()
            .unwrap()
            .contains("cannot start '/nonexistent/mcp-server'")
    );
    assert_eq!(servers[2]["status"], "failed");
    let error = servers[2]["error"].as_str().unwrap();
    assert!(
        error.starts_with("initialize failed (send initialize request): error sending request")
            && error.contains("Connection refused"),
        "{error}"
    );
    let text = stderr(&output);
    assert!(
        text.contains("warning: MCP server 'hang' failed to start: did not start within 0.5 s"),
        "{text}"
    );
    assert!(
        text.contains("warning: MCP server 'broken' failed to start"),
        "{text}"
    );
    assert_eq!(
        offered_tools(&mock.requests()[0].json())
            .iter()
            .filter(|t| t.starts_with("mcp__"))
            .count(),
        0
    );
    assert_servers_gone(&log, "the server that never answered");
}

#[test]
fn sigterm_during_a_call_stops_the_server_and_everything_it_started() {
    let protocol = protocols::anthropic();
    let home = Home::new();
    let log = home.root.path().join("server.log");
    let config = stdio_server("t", "stdio", Some(&log), json!({}));
    let mock = MockServer::start(vec![
        tool_call(&protocol, "c1", "mcp__t__spawn", json!({})),
        tool_call(&protocol, "c2", "mcp__t__sleep", json!({"seconds": 60})),
        answer(&protocol, "never"),
    ]);
    let (output, lines) = run_until_signal(
        &home,
        &protocol,
        &mock,
        (&config, &log, "sleep started"),
        nix::sys::signal::Signal::SIGTERM,
    );
    assert_eq!(code(&output), 143, "{}", stderr(&output));
    let result: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(result["subtype"], "error_interrupted");
    let server = logged_pids(&log, "pid ");
    let grandchild = logged_pids(&log, "grandchild ");
    assert_eq!((server.len(), grandchild.len()), (1, 1), "{lines:?}");
    assert!(gone(server[0]), "the server {} was left running", server[0]);
    assert!(
        gone(grandchild[0]),
        "the server's child {} was left running",
        grandchild[0]
    );
    let lines = std::fs::read_to_string(&log).unwrap();
    assert!(
        lines.contains("cancelled "),
        "the server was not told: {lines}"
    );
}

#[test]
fn sigint_while_servers_start_and_the_timeout_during_a_call_leave_no_server_behind() {
    let protocol = protocols::anthropic();
    // SIGINT while a server that never answers `initialize` holds up the start.
    let home = Home::new();
    let log = home.root.path().join("hang.log");
    let config = stdio_server(
        "hang",
        "hang",
        Some(&log),
        json!({"startup_timeout_sec": 60}),
    );
    let mock = MockServer::start(vec![answer(&protocol, "never")]);
    let started = Instant::now();
    let (output, _) = run_until_signal(
        &home,
        &protocol,
        &mock,
        (&config, &log, "pid "),
        nix::sys::signal::Signal::SIGINT,
    );
    assert_eq!(code(&output), 130, "{}", stderr(&output));
    assert!(started.elapsed() < Duration::from_secs(30));
    let result: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(result["subtype"], "error_interrupted");
    assert!(mock.requests().is_empty());
    assert_servers_gone(&log, "the starting server");

    // --timeout while a call runs.
    let home = Home::new();
    let log = home.root.path().join("slow.log");
    let config = stdio_server("slow", "stdio", Some(&log), json!({}));
    let mock = MockServer::start(vec![
        tool_call(&protocol, "c1", "mcp__slow__sleep", json!({"seconds": 60})),
        answer(&protocol, "never"),
    ]);
    let output = home
        .pincer()
        .provider(&protocol, &mock)
        .fast_retries()
        .args([
            "run",
            "-m",
            protocol.model,
            "--json",
            "--timeout",
            "2",
            "--mcp-config",
            &config.to_string(),
            "go",
        ])
        .output();
    assert_eq!(code(&output), 124, "{}", stderr(&output));
    let (_, is_error, text) = &stored_results(&home)[0];
    assert!(
        *is_error && text.contains("the turn was interrupted"),
        "{text}"
    );
    let lines = std::fs::read_to_string(&log).unwrap();
    assert!(lines.contains("cancelled "), "{lines}");
    assert_servers_gone(&log, "the server of the timed-out call");
}

#[test]
fn a_workspace_mcp_json_starts_nothing_unless_named_or_enabled() {
    let protocol = protocols::anthropic();
    let home = Home::new();
    let marker = home.root.path().join("started");
    let log = home.root.path().join("ws.log");
    let config = stdio_server("ws", "stdio", Some(&log), json!({}));
    std::fs::write(home.workspace.join(".mcp.json"), config.to_string()).unwrap();
    let mock = MockServer::start(vec![
        answer(&protocol, "a"),
        answer(&protocol, "b"),
        answer(&protocol, "c"),
    ]);
    let output = run(&home, &protocol, &mock, &[]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(init_servers(&output), json!([]));
    assert!(
        !log.exists() && !marker.exists(),
        "the workspace's server was started"
    );
    let named = run(&home, &protocol, &mock, &["--mcp-config", ".mcp.json"]);
    assert_eq!(code(&named), 0, "{}", stderr(&named));
    assert_eq!(init_servers(&named)[0]["status"], "connected");
    let enabled = run(
        &home,
        &protocol,
        &mock,
        &["-c", "mcp.load_workspace=true", "--approve-workspace-mcp"],
    );
    assert_eq!(code(&enabled), 0, "{}", stderr(&enabled));
    assert_eq!(init_servers(&enabled)[0]["name"], "ws");
    let requests = mock.requests();
    assert!(!offered_tools(&requests[0].json()).contains(&"mcp__ws__echo".to_owned()));
    assert!(offered_tools(&requests[1].json()).contains(&"mcp__ws__echo".to_owned()));
}

/// Issue #45, hole 3 (second half): with `[mcp] load_workspace = true`, a repository that ships
/// a `.mcp.json`, or changes one the user approved, got its server started on the next run,
/// outside every sandbox. A server starts only as the user approved it for that workspace
/// (claude asks per project server too); a new or changed one is refused, not started, and the
/// message says how to approve it.
#[test]
fn a_workspace_mcp_server_that_is_new_or_changed_since_approval_is_not_started() {
    let protocol = protocols::anthropic();
    let home = Home::new();
    let log = home.root.path().join("ws.log");
    let shipped = stdio_server("ws", "stdio", Some(&log), json!({}));
    std::fs::write(home.workspace.join(".mcp.json"), shipped.to_string()).unwrap();
    let mock = MockServer::start((0..4).map(|n| answer(&protocol, &n.to_string())).collect());
    let load = ["-c", "mcp.load_workspace=true"];

    // The repository shipped it: nothing starts until the user approves.
    let shipped_run = run(&home, &protocol, &mock, &load);
    assert_eq!(code(&shipped_run), 0, "{}", stderr(&shipped_run));
    assert!(
        !log.exists(),
        "a server the user never approved was started"
    );
    let server = &init_servers(&shipped_run)[0];
    assert_eq!(server["status"], "failed", "{server}");
    let reason = server["error"].as_str().unwrap_or_default();
    assert!(
        reason.contains("'ws' of the workspace's .mcp.json is not approved"),
        "{reason}"
    );
    assert!(
        reason.contains("pincer status --mcp --approve-workspace-mcp"),
        "{reason}"
    );
    assert!(
        stderr(&shipped_run).contains("not approved"),
        "{}",
        stderr(&shipped_run)
    );

    // Approved as it is: it starts, now and on the next run without the flag.
    let approve = home
        .pincer()
        .args([
            "-v",
            "-c",
            "mcp.load_workspace=true",
            "status",
            "--mcp",
            "--approve-workspace-mcp",
        ])
        .output();
    assert_eq!(code(&approve), 0, "{}", stderr(&approve));
    assert!(stderr(&approve).contains("approved the workspace's MCP servers (ws)"));
    std::fs::remove_file(&log).unwrap();
    let approved_run = run(&home, &protocol, &mock, &load);
    assert_eq!(code(&approved_run), 0, "{}", stderr(&approved_run));
    assert_eq!(init_servers(&approved_run)[0]["status"], "connected");
    assert!(log.exists());
    std::fs::remove_file(&log).unwrap();

    // The repository changes what it runs (same name, another argument): refused again.
    let changed = stdio_server(
        "ws",
        "stdio",
        Some(&log),
        json!({"env": {"LD_PRELOAD": "x"}}),
    );
    std::fs::write(home.workspace.join(".mcp.json"), changed.to_string()).unwrap();
    let changed_run = run(&home, &protocol, &mock, &load);
    assert_eq!(code(&changed_run), 0, "{}", stderr(&changed_run));
    assert!(!log.exists(), "a changed server was started");
    let reason = init_servers(&changed_run)[0]["error"].clone();
    assert!(
        reason
            .as_str()
            .unwrap_or_default()
            .contains("changed since you approved it"),
        "{reason}"
    );
    let requests = mock.requests();
    assert!(!offered_tools(&requests[0].json()).contains(&"mcp__ws__echo".to_owned()));
    assert!(offered_tools(&requests[1].json()).contains(&"mcp__ws__echo".to_owned()));
    assert!(!offered_tools(&requests[2].json()).contains(&"mcp__ws__echo".to_owned()));
}

#[test]
fn bad_server_declarations_are_usage_errors_naming_the_server_and_the_key() {
    let home = Home::new();
    let cases: [(&[&str], &str); 4] = [
        (
            &[
                "run",
                "--mcp-config",
                r#"{"mcpServers": {"gh": {"comand": "x"}}}"#,
                "go",
            ],
            "MCP server 'gh' in --mcp-config JSON: unknown field `comand`",
        ),
        (
            &[
                "run",
                "--mcp-config",
                r#"{"mcpServers": {"gh": {"url": "http://h/mcp"}}}"#,
                "go",
            ],
            "MCP server 'gh' in --mcp-config JSON: has a `url` but no `type`",
        ),
        (
            &["run", "--mcp-config", "missing.json", "go"],
            "cannot read MCP config 'missing.json'",
        ),
        (
            &["-c", "mcp_servers.fs.args=[\"x\"]", "run", "go"],
            "MCP server 'fs' in config.toml: has neither `command` (stdio) nor `url` (HTTP)",
        ),
    ];
    for (args, expected) in cases {
        let output = home.run(args);
        assert_eq!(code(&output), 2, "{args:?}: {}", stderr(&output));
        let text = stderr(&output);
        assert!(
            text.contains(&format!("error: {expected}")),
            "{args:?}: {text}"
        );
        assert!(text.contains("hint: "), "{text}");
    }
    std::fs::write(
        home.home.join("config.toml"),
        "[mcp_servers.fs]\ncommand = \"x\"\ncomand = \"y\"\n",
    )
    .unwrap();
    let output = home.run(&["run", "go"]);
    assert_eq!(code(&output), 2);
    let text = stderr(&output);
    assert!(
        text.contains("unknown key 'comand' in table [mcp_servers.fs]")
            && text.contains("(line 3)"),
        "{text}"
    );
}

#[test]
fn status_mcp_lists_each_servers_tools_and_its_failures_with_stderr() {
    let home = Home::new();
    let mut config = stdio_server("good", "stdio", None, json!({}));
    config["mcpServers"]["bad"] =
        stdio_server("bad", "exit", None, json!({}))["mcpServers"]["bad"].clone();
    let config = config.to_string();
    let text = home.run(&["status", "--mcp", "--mcp-config", &config]);
    assert_eq!(code(&text), 1, "{}", stderr(&text));
    let shown = stdout(&text);
    assert!(
        shown.contains("  good (stdio, --mcp-config JSON): connected in "),
        "{shown}"
    );
    assert!(
        shown.contains("    mcp__good__lookup  (readOnlyHint)\n"),
        "{shown}"
    );
    assert!(
        shown.contains("  bad (stdio, --mcp-config JSON): failed: initialize failed"),
        "{shown}"
    );
    assert!(
        shown.contains("    stderr: fatal: the test server was told to fail at startup"),
        "{shown}"
    );
    let json_output = home.run(&["status", "--mcp", "--json", "--mcp-config", &config]);
    let report: Value = serde_json::from_str(&stdout(&json_output)).unwrap();
    let good = &report["mcp_servers"][0];
    assert_eq!(good["status"], "connected");
    assert_eq!(good["server"], "pincer-test-server 1.0.0");
    assert_eq!(
        good["tools"][6],
        json!({"name": "mcp__good__lookup", "tool": "lookup", "read_only": true})
    );
    let bad = &report["mcp_servers"][1];
    assert_eq!(bad["status"], "failed");
    assert_eq!(
        bad["stderr_tail"],
        json!(["fatal: the test server was told to fail at startup"])
    );
    let all_good = home.run(&[
        "status",
        "--mcp",
        "--mcp-config",
        &stdio_server("g", "stdio", None, json!({})).to_string(),
    ]);
    assert_eq!(code(&all_good), 0, "{}", stderr(&all_good));
}

#[test]
fn cli_backends_get_the_servers_claude_as_a_file_and_codex_as_overrides() {
    let home = Home::new();
    let config = json!({"mcpServers": {
        "fs": {"command": "npx", "args": ["-y", "fs"], "env": {"TOKEN": "${FS_TOKEN}", "LITERAL": "s3cret-value"}},
        "gh": {"type": "http", "url": "https://api.example/mcp", "headers": {"Authorization": "Bearer ${GH}"}}
    }})
    .to_string();
    let with_variables = |args: &[&str]| {
        home.pincer()
            .env("FS_TOKEN", "fs-token-value")
            .env("GH", "gh-token-value")
            .args(args)
            .output()
    };
    let claude = with_variables(&[
        "run",
        "-m",
        "claude-cli/sonnet",
        "--dry-run",
        "--strict-mcp-config",
        "--mcp-config",
        &config,
        "--disallowed-tools",
        "mcp__gh__delete",
        "go",
    ]);
    assert_eq!(code(&claude), 0, "{}", stderr(&claude));
    let report: Value = serde_json::from_str(&stdout(&claude)).unwrap();
    let argv: Vec<String> = serde_json::from_value(report["child"]["argv"].clone()).unwrap();
    let file = crate::suite::backends::after(&argv, "--mcp-config").unwrap();
    assert!(file.ends_with("mcp-config.json"), "{argv:?}");
    assert!(argv.contains(&"--strict-mcp-config".to_owned()), "{argv:?}");
    let allowed = argv
        .iter()
        .find(|arg| arg.starts_with("--allowedTools="))
        .unwrap();
    assert!(
        allowed.contains("mcp__fs") && allowed.contains("mcp__gh"),
        "{allowed}"
    );
    assert!(
        argv.iter()
            .any(|arg| arg.starts_with("--disallowedTools=") && arg.contains("mcp__gh__delete"))
    );
    let shown = &report["child"]["mcp_config"]["mcpServers"];
    assert_eq!(
        shown["fs"]["env"],
        json!({"TOKEN": "${FS_TOKEN}", "LITERAL": "(hidden)"})
    );
    assert!(!stdout(&claude).contains("s3cret-value"));
    assert_eq!(
        report["mcp_servers"][0]["env_names"],
        json!(["TOKEN", "LITERAL"])
    );
    assert!(!stdout(&claude).contains("fs-token-value"));

    let codex = with_variables(&[
        "run",
        "-m",
        "codex-cli/gpt-5-codex",
        "--dry-run",
        "--mcp-config",
        &config,
        "go",
    ]);
    assert_eq!(code(&codex), 0, "{}", stderr(&codex));
    let report: Value = serde_json::from_str(&stdout(&codex)).unwrap();
    let argv = report["child"]["argv"].to_string();
    assert!(argv.contains(r#"mcp_servers.fs.command=\"npx\""#), "{argv}");
    assert!(
        argv.contains(r#"mcp_servers.fs.env_vars=[\"LITERAL\",\"TOKEN\"]"#),
        "{argv}"
    );
    assert!(
        argv.contains(r#"mcp_servers.gh.url=\"https://api.example/mcp\""#),
        "{argv}"
    );
    assert!(
        !argv.contains("s3cret-value") && !argv.contains("token-value"),
        "{argv}"
    );
    let names = report["child"]["env_names"].to_string();
    assert!(
        names.contains("\"LITERAL\"") && names.contains("PINCER_MCP_1_HEADER_0"),
        "{names}"
    );
}

/// `@modelcontextprotocol/server-everything` through npx, from npm's cache unless
/// `PINCER_TEST_NPX_NETWORK=1` lets npx fetch it (the suite runs offline).
#[test]
fn the_reference_server_everything_answers_a_call_when_npx_has_it() {
    let Some(npx) = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|directory| directory.join("npx"))
            .find(|candidate| candidate.is_file())
    }) else {
        eprintln!(
            "skipped: npx is not on PATH, so @modelcontextprotocol/server-everything cannot run"
        );
        return;
    };
    let offline = std::env::var_os("PINCER_TEST_NPX_NETWORK").is_none();
    let protocol = protocols::anthropic();
    let home = Home::new();
    let config = json!({"mcpServers": {"everything": {
        "command": npx, "args": ["-y", "@modelcontextprotocol/server-everything"],
        "startup_timeout_sec": 60
    }}})
    .to_string();
    let mock = MockServer::start(vec![
        tool_call(
            &protocol,
            "c1",
            "mcp__everything__echo",
            json!({"message": "hello from pincer"}),
        ),
        answer(&protocol, "done"),
    ]);
    let mut command = home.pincer().provider(&protocol, &mock).fast_retries();
    // npx keeps its cache under the real home.
    if let Some(real_home) = std::env::var_os("HOME") {
        command = command.env("HOME", real_home);
    }
    if offline {
        command = command.env("npm_config_offline", "true");
    }
    let output = command
        .args([
            "-v",
            "run",
            "-m",
            protocol.model,
            "--output-format",
            "stream-json",
            "--mcp-config",
            &config,
            "go",
        ])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let server = init_servers(&output)[0].clone();
    if server["status"] != "connected" {
        let text = stderr(&output);
        let unreachable = [
            "ENOTCACHED",
            "ENOTFOUND",
            "EAI_AGAIN",
            "ECONNREFUSED",
            "ETIMEDOUT",
        ];
        if unreachable.iter().any(|code| text.contains(code)) {
            eprintln!(
                "skipped: npx cannot get @modelcontextprotocol/server-everything here{}: {}",
                if offline {
                    " from its cache (PINCER_TEST_NPX_NETWORK=1 lets it fetch)"
                } else {
                    ""
                },
                server["error"]
            );
            return;
        }
        panic!("server-everything failed: {server}\n{text}");
    }
    let (name, is_error, text) = &stored_results(&home)[0];
    assert_eq!(name, "mcp__everything__echo");
    assert!(!*is_error && text.contains("hello from pincer"), "{text}");
}

/// An MCP tool that answers 100 KB: the context gets its head and tail and the path of a file
/// in the run's private temp dir holding all of it, which a command of the turn reads.
#[test]
fn a_long_mcp_result_goes_to_a_file_and_the_context_gets_head_and_tail() {
    let protocol = protocols::anthropic();
    let home = Home::new();
    let config = stdio_server("test", "stdio", None, json!({}));
    let long = format!("start {} end", "x".repeat(100_000));
    let mock = MockServer::start(vec![
        tool_call(
            &protocol,
            "call_1",
            "mcp__test__echo",
            json!({ "text": long }),
        ),
        tool_call(
            &protocol,
            "call_2",
            "exec",
            json!({"command": "wc -c \"$TMPDIR\"/mcp-output-*.txt"}),
        ),
        answer(&protocol, "done"),
    ]);
    let output = run(
        &home,
        &protocol,
        &mock,
        &["--mcp-config", &config.to_string()],
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let requests = mock.requests();
    let results =
        |index: usize| crate::common::wire::anthropic::tool_results(&requests[index].json());
    let echoed = results(1)["call_1"].0.clone();
    assert!(echoed.starts_with("echo: start xxx"), "{}", &echoed[..40]);
    assert!(echoed.ends_with("xxx end"));
    assert!(echoed.contains("bytes of output not shown"), "{echoed}");
    assert!(echoed.len() < 33 * 1024);
    let counted = results(2)["call_2"].0.clone();
    let whole = format!("echo: {long}").len();
    assert!(counted.starts_with(&format!("{whole} ")), "{counted}");
    // The session records that the model saw a shortened result.
    let stored = session_messages(&home)
        .into_iter()
        .find(|message| message["toolName"] == "mcp__test__echo")
        .unwrap();
    assert_eq!(
        stored["details"]["truncated"], true,
        "{}",
        stored["details"]
    );
}
