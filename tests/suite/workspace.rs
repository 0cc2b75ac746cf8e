//! Workspace context on every turn, heartbeat runs, inline reasoning tags and the sandbox, end to
//! end against the mock provider.

use std::process::{Command, Output, Stdio};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::common::mock::{MockServer, Reply};
use crate::common::wire::anthropic::{self as wire, Usage4};
use crate::common::wire::openai_chat;
use crate::common::{Home, code, stderr, stdout};

fn usage() -> Usage4 {
    Usage4 {
        input: 10,
        output: 5,
        cache_read: 0,
        cache_write: 0,
    }
}

fn text(answer: &str) -> Reply {
    Reply::sse(&wire::text_stream(&[answer], usage()))
}

fn tool(id: &str, name: &str, arguments: Value) -> Reply {
    Reply::sse(&wire::tool_use_stream(
        None,
        &[(id, name, &arguments.to_string())],
        usage(),
    ))
}

fn pincer(home: &Home, server: &MockServer) -> Command {
    let mut command = Command::new(assert_cmd::cargo::cargo_bin("pincer"));
    command
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("PINCER_HOME", &home.home)
        .env("ANTHROPIC_API_KEY", "k")
        .env("ANTHROPIC_BASE_URL", server.url())
        .env("OPENAI_API_KEY", "k")
        .env("OPENAI_BASE_URL", format!("{}/v1", server.url()))
        // The temp dir is a writable root too: give the run its own so that the test's scratch
        // space (itself under /tmp) counts as outside.
        .env("TMPDIR", home.root.path().join("tmp"))
        .current_dir(&home.workspace)
        .stdin(Stdio::null());
    command
}

fn run(home: &Home, server: &MockServer, args: &[&str]) -> Output {
    std::fs::create_dir_all(home.root.path().join("tmp")).unwrap();
    pincer(home, server).args(args).output().unwrap()
}

fn system_prompt(body: &Value) -> String {
    body["system"]
        .as_array()
        .map(|blocks| {
            blocks
                .iter()
                .map(|block| block["text"].as_str().unwrap_or(""))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_resume_sends_agents_md_and_that_resumes_appended_prompt() {
    let home = Home::new();
    std::fs::write(
        home.workspace.join("AGENTS.md"),
        "Always run `make check` before committing.\n",
    )
    .unwrap();
    std::fs::write(home.workspace.join("SOUL.md"), "Be brief.\n").unwrap();
    let server = MockServer::start(vec![text("one"), text("two")]);
    let first = run(
        &home,
        &server,
        &[
            "run",
            "--name",
            "ctx",
            "--append-system-prompt",
            "FIRST-APPEND",
            "hi",
        ],
    );
    assert_eq!(code(&first), 0, "{}", stderr(&first));
    let second = run(
        &home,
        &server,
        &[
            "resume",
            "ctx",
            "--append-system-prompt",
            "SECOND-APPEND",
            "again",
        ],
    );
    assert_eq!(code(&second), 0, "{}", stderr(&second));
    let requests = server.requests();
    let first_prompt = system_prompt(&requests[0].json());
    let second_prompt = system_prompt(&requests[1].json());
    for prompt in [&first_prompt, &second_prompt] {
        assert!(
            prompt.contains("Always run `make check` before committing."),
            "{prompt}"
        );
        assert!(prompt.contains("Be brief."), "{prompt}");
    }
    assert!(first_prompt.contains("FIRST-APPEND"));
    assert!(second_prompt.ends_with("SECOND-APPEND"), "{second_prompt}");
    assert!(
        !second_prompt.contains("FIRST-APPEND"),
        "appends apply to the turn they are given on"
    );
}

#[test]
fn claude_md_is_the_fallback_and_no_context_files_and_prompt_modes_leave_files_out() {
    let home = Home::new();
    std::fs::write(home.workspace.join("CLAUDE.md"), "CLAUDE-RULES").unwrap();
    let server = MockServer::start(vec![text("a"), text("b"), text("c"), text("d")]);
    assert_eq!(code(&run(&home, &server, &["run", "hi"])), 0);
    assert_eq!(
        code(&run(&home, &server, &["run", "--no-context-files", "hi"])),
        0
    );
    assert_eq!(
        code(&run(
            &home,
            &server,
            &[
                "run",
                "--prompt-mode",
                "none",
                "--append-system-prompt",
                "ONLY-THIS",
                "hi"
            ]
        )),
        0
    );
    assert_eq!(
        code(&run(
            &home,
            &server,
            &["run", "--system-prompt", "REPLACED", "hi"]
        )),
        0
    );
    let prompts: Vec<String> = server
        .requests()
        .iter()
        .map(|request| system_prompt(&request.json()))
        .collect();
    assert!(prompts[0].contains("CLAUDE-RULES"));
    assert!(!prompts[1].contains("CLAUDE-RULES"));
    assert_eq!(prompts[2], "ONLY-THIS");
    assert!(prompts[3].starts_with("REPLACED"));
    assert!(!prompts[3].contains("CLAUDE-RULES"));
}

#[test]
fn a_dry_run_reports_prompt_sizes_per_section_and_per_file() {
    let home = Home::new();
    std::fs::write(home.workspace.join("AGENTS.md"), "x".repeat(30_000)).unwrap();
    let server = MockServer::start(vec![]);
    let output = run(&home, &server, &["run", "--dry-run", "hi"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let report: Value = serde_json::from_str(&stdout(&output)).unwrap();
    let files = report["workspace_files"].as_array().unwrap();
    assert_eq!(files[0]["name"], "AGENTS.md");
    assert_eq!(files[0]["original_chars"], 30_000);
    assert_eq!(files[0]["truncated"], true);
    assert!(files[0]["chars"].as_u64().unwrap() <= 21_000);
    let sections: Vec<&str> = report["system_prompt_sections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|section| section["name"].as_str().unwrap())
        .collect();
    assert!(
        sections.contains(&"workspace_files") && sections.contains(&"tools"),
        "{sections:?}"
    );
    assert!(
        report["system_prompt"]
            .as_str()
            .unwrap()
            .contains("characters cut")
    );
}

#[test]
fn a_heartbeat_ok_reply_prints_nothing_and_exits_0() {
    let home = Home::new();
    std::fs::write(
        home.workspace.join("HEARTBEAT.md"),
        "Check that the backup ran.\n",
    )
    .unwrap();
    let server = MockServer::start(vec![
        text("HEARTBEAT_OK"),
        text("HEARTBEAT_OK"),
        text("The backup FAILED at 03:00."),
    ]);
    let quiet = run(
        &home,
        &server,
        &["resume", "--create", "beat", "--heartbeat"],
    );
    assert_eq!(code(&quiet), 0, "{}", stderr(&quiet));
    assert_eq!(stdout(&quiet), "");
    let json = run(
        &home,
        &server,
        &["resume", "--create", "beat", "--heartbeat", "--json"],
    );
    let result: Value = serde_json::from_str(&stdout(&json)).unwrap();
    assert_eq!(result["heartbeat_ok"], true);
    let loud = run(&home, &server, &["resume", "beat", "--heartbeat"]);
    assert_eq!(code(&loud), 0);
    assert_eq!(stdout(&loud), "The backup FAILED at 03:00.\n");
    let body = server.requests()[0].json();
    assert!(
        system_prompt(&body).contains("Check that the backup ran."),
        "HEARTBEAT.md is in the prompt"
    );
    assert!(
        body.to_string().contains("HEARTBEAT_OK"),
        "the heartbeat prompt is sent"
    );
}

#[test]
fn inline_think_tags_from_a_local_model_become_thinking() {
    let home = Home::new();
    let stream = openai_chat::text_stream(
        &["<thi", "nk>The user wants", " a number.</think>", "Four."],
        openai_chat::Usage4 {
            input_total: 20,
            cached: 0,
            output: 12,
            reasoning: 0,
        },
    );
    let server = MockServer::start(vec![Reply::sse(&stream)]);
    let output = run(
        &home,
        &server,
        &["run", "-m", "openai-chat/gpt-4o-mini", "2+2?"],
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(stdout(&output), "Four.\n");
    let file = std::fs::read_dir(home.sessions_dir())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .find(|path| {
            path.extension()
                .is_some_and(|extension| extension == "jsonl")
        })
        .unwrap();
    let text = std::fs::read_to_string(file).unwrap();
    let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(
        last["message"]["content"],
        json!([
            {"type": "thinking", "thinking": "The user wants a number."},
            {"type": "text", "text": "Four."}
        ])
    );
}

#[test]
fn the_sandbox_keeps_writes_inside_the_workspace_and_read_only_refuses_them() {
    let home = Home::new();
    let outside = home.root.path().join("outside.txt");
    let server = MockServer::start(vec![
        tool(
            "toolu_1",
            "write",
            json!({"path": outside.to_str().unwrap(), "content": "escaped"}),
        ),
        text("could not"),
        tool(
            "toolu_2",
            "write",
            json!({"path": "inside.txt", "content": "hello"}),
        ),
        text("refused"),
    ]);
    let output = run(&home, &server, &["run", "--json", "write outside"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(!outside.exists());
    let output = run(
        &home,
        &server,
        &["run", "--sandbox", "read-only", "--json", "write inside"],
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(!home.workspace.join("inside.txt").exists());
    let requests = server.requests();
    for (index, expected) in [(1, "outside"), (3, "read-only")] {
        let body = requests[index].json().to_string();
        assert!(
            body.contains(expected),
            "request {index} should report the refusal: {body}"
        );
    }
}

#[test]
fn status_reports_the_sandbox_and_the_prompt_sizes() {
    let home = Home::new();
    std::fs::write(home.workspace.join("AGENTS.md"), "Rules here.\n").unwrap();
    let server = MockServer::start(vec![]);
    let output = run(&home, &server, &["status", "--json"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let status: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(status["sandbox"]["mode"], "workspace-write");
    assert!(
        status["sandbox"]["exec_enforcement"]
            .as_str()
            .unwrap()
            .len()
            > 3
    );
    assert_eq!(
        status["system_prompt"]["workspace_files"][0]["name"],
        "AGENTS.md"
    );
    assert_eq!(status["system_prompt"]["workspace_files"][0]["chars"], 11);
    let text = stdout(&run(&home, &server, &["status"]));
    assert!(
        text.contains("context files:  AGENTS.md (11 chars)"),
        "{text}"
    );
}

#[test]
fn add_dir_is_listed_in_the_dry_run_and_the_prompt_and_applies_to_that_turn_only() {
    let home = Home::new();
    let lib = home.root.path().join("lib");
    std::fs::create_dir(&lib).unwrap();
    let lib = lib.canonicalize().unwrap();
    let server = MockServer::start(vec![text("first"), text("second")]);
    // Relative to the current directory, like the shell completes it.
    let dry = run(
        &home,
        &server,
        &["run", "--dry-run", "--add-dir", "../lib", "hi"],
    );
    assert_eq!(code(&dry), 0, "{}", stderr(&dry));
    let report: Value = serde_json::from_str(&stdout(&dry)).unwrap();
    assert_eq!(report["sandbox"]["added_dirs"], json!([lib]));
    assert!(
        report["sandbox"]["exec_enforcement"]
            .as_str()
            .unwrap()
            .contains("the added directory")
            || report["sandbox"]["exec_landlock"]
                .as_str()
                .unwrap()
                .starts_with("Landlock not available"),
        "{report}"
    );
    let listing = format!(
        "Additional directories, readable and writable like the workspace (use absolute \
         paths):\n- {}",
        lib.display()
    );
    assert!(
        report["system_prompt"].as_str().unwrap().contains(&listing),
        "{}",
        report["system_prompt"]
    );

    let output = run(
        &home,
        &server,
        &["run", "--json", "--add-dir", lib.to_str().unwrap(), "hi"],
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let session = serde_json::from_str::<Value>(&stdout(&output)).unwrap()["session_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let resumed = run(&home, &server, &["resume", "--json", &session, "again"]);
    assert_eq!(code(&resumed), 0, "{}", stderr(&resumed));
    let requests = server.requests();
    assert!(system_prompt(&requests[0].json()).contains(&listing));
    // Not remembered: the resumed turn has the workspace alone.
    assert!(!system_prompt(&requests[1].json()).contains("Additional directories"));
}

#[test]
fn a_missing_or_non_directory_add_dir_is_a_usage_error_naming_it_and_creates_nothing() {
    let home = Home::new();
    std::fs::write(home.root.path().join("file.txt"), "x").unwrap();
    let server = MockServer::start(vec![]);
    for (argument, problem) in [
        ("../missing", "does not exist"),
        ("../file.txt", "is not a directory"),
    ] {
        let output = run(&home, &server, &["run", "--add-dir", argument, "hi"]);
        assert_eq!(code(&output), 2, "{}", stderr(&output));
        assert_eq!(
            stderr(&output),
            format!(
                "error: additional directory '{argument}' (--add-dir) {problem}\nhint: pass an \
                 existing directory to --add-dir\n"
            )
        );
    }
    std::fs::write(
        home.home.join("config.toml"),
        "[tools]\nadd_dirs = [\"../nowhere\"]\n",
    )
    .unwrap();
    let output = run(&home, &server, &["run", "hi"]);
    assert_eq!(code(&output), 2, "{}", stderr(&output));
    assert!(
        stderr(&output).starts_with(
            "error: additional directory '../nowhere' (tools.add_dirs) does not exist"
        ),
        "{}",
        stderr(&output)
    );
    assert!(server.requests().is_empty());
    assert!(!home.sessions_dir().exists());
}

#[test]
fn status_lists_the_configured_added_directories() {
    let home = Home::new();
    std::fs::create_dir(home.root.path().join("docs")).unwrap();
    let docs = home.root.path().join("docs").canonicalize().unwrap();
    // Relative to the workspace.
    std::fs::write(
        home.home.join("config.toml"),
        "[tools]\nadd_dirs = [\"../docs\"]\n",
    )
    .unwrap();
    let server = MockServer::start(vec![]);
    let output = run(&home, &server, &["status", "--json"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let status: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(status["sandbox"]["added_dirs"], json!([docs]));
    assert_eq!(status["sandbox"]["web_fetch_private_addresses"], "refused");
    let text = stdout(&run(&home, &server, &["status"]));
    assert!(
        text.contains(&format!("added dirs:     {}\n", docs.display())),
        "{text}"
    );
}
