//! Workspace context on every turn, heartbeat runs, inline reasoning tags and the sandbox, end to
//! end against the mock provider.

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
    let first = home
        .pincer()
        .providers(&server)
        .args([
            "run",
            "--name",
            "ctx",
            "--append-system-prompt",
            "FIRST-APPEND",
            "hi",
        ])
        .output();
    assert_eq!(code(&first), 0, "{}", stderr(&first));
    let second = home
        .pincer()
        .providers(&server)
        .args([
            "resume",
            "ctx",
            "--append-system-prompt",
            "SECOND-APPEND",
            "again",
        ])
        .output();
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
    for args in [
        &["run", "hi"][..],
        &["run", "--no-context-files", "hi"],
        &[
            "run",
            "--prompt-mode",
            "none",
            "--append-system-prompt",
            "ONLY-THIS",
            "hi",
        ],
        &["run", "--system-prompt", "REPLACED", "hi"],
    ] {
        let output = home.pincer().providers(&server).args(args).output();
        assert_eq!(code(&output), 0, "{args:?}: {}", stderr(&output));
    }
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
    let output = home
        .pincer()
        .providers(&server)
        .args(["run", "--dry-run", "hi"])
        .output();
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
    let quiet = home
        .pincer()
        .providers(&server)
        .args(["resume", "--create", "beat", "--heartbeat"])
        .output();
    assert_eq!(code(&quiet), 0, "{}", stderr(&quiet));
    assert_eq!(stdout(&quiet), "");
    let json = home
        .pincer()
        .providers(&server)
        .args(["resume", "--create", "beat", "--heartbeat", "--json"])
        .output();
    let result: Value = serde_json::from_str(&stdout(&json)).unwrap();
    assert_eq!(result["heartbeat_ok"], true);
    let loud = home
        .pincer()
        .providers(&server)
        .args(["resume", "beat", "--heartbeat"])
        .output();
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
    let output = home
        .pincer()
        .providers(&server)
        .args(["run", "-m", "openai-chat/gpt-4o-mini", "2+2?"])
        .output();
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

/// Guards confinement end to end: a write outside the workspace, and any write in a read-only
/// run, does not happen; the model gets an error result saying why; the run lists the call in
/// `permission_denials`. (It used to grep whole request bodies for "outside" and "read-only",
/// which the call's own path and the system prompt always contain: the checks now read the tool
/// result of the call itself.)
#[test]
fn the_sandbox_keeps_writes_inside_the_workspace_and_read_only_refuses_them() {
    let home = Home::new();
    let outside = home.root.path().join("outside.txt");
    let escape = json!({"path": outside.to_str().unwrap(), "content": "escaped"});
    let inside = json!({"path": "inside.txt", "content": "hello"});
    let server = MockServer::start(vec![
        tool("toolu_1", "write", escape.clone()),
        text("could not"),
        tool("toolu_2", "write", inside.clone()),
        text("refused"),
    ]);
    let runs = [
        (vec!["run", "--json", "write outside"], "toolu_1", escape),
        (
            vec!["run", "--sandbox", "read-only", "--json", "write inside"],
            "toolu_2",
            inside,
        ),
    ];
    for (args, id, input) in &runs {
        let output = home.pincer().providers(&server).args(args).output();
        assert_eq!(code(&output), 0, "{}", stderr(&output));
        let result: Value = serde_json::from_str(stdout(&output).trim()).unwrap();
        assert_eq!(
            result["permission_denials"],
            json!([{"tool_name": "write", "tool_use_id": id, "tool_input": input}]),
            "{result}"
        );
    }
    assert!(!outside.exists());
    assert!(!home.workspace.join("inside.txt").exists());
    let requests = server.requests();
    assert_eq!(requests.len(), 4);
    for (index, id, expected) in [
        (1, "toolu_1", "is outside the workspace"),
        (3, "toolu_2", "the read-only sandbox allows no file"),
    ] {
        let results = wire::tool_results(&requests[index].json());
        let (text, is_error) = &results[id];
        assert!(*is_error, "{id} is an error result: {text}");
        assert!(text.contains(expected), "{id} says why: {text}");
    }
}

#[test]
fn status_reports_the_sandbox_and_the_prompt_sizes() {
    let home = Home::new();
    std::fs::write(home.workspace.join("AGENTS.md"), "Rules here.\n").unwrap();
    let server = MockServer::start(vec![]);
    let output = home
        .pincer()
        .providers(&server)
        .args(["status", "--json"])
        .output();
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
    let text = stdout(&home.pincer().providers(&server).args(["status"]).output());
    assert!(
        text.contains("context files:  AGENTS.md (11 chars)"),
        "{text}"
    );
}

/// pincer with every protocol at `server`, run with `args`.
fn run(home: &Home, server: &MockServer, args: &[&str]) -> std::process::Output {
    home.pincer().providers(server).args(args).output()
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
