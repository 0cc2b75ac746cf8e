//! Secrets stay secret (SPEC §12.2): with one distinctive key in the environment and another in
//! an auth profile, every command in every output mode — successes, failures, `--dry-run`,
//! verbose — is run, and neither key may appear on stdout or stderr, in a session file, the
//! index, an events file or an `-o` file, in the argv of the `exec` tool's child, or in tool output
//! that is stored or sent back to the model (it is replaced by `[REDACTED]`).

use std::path::Path;
use std::process::Output;

use serde_json::json;

use crate::common::mock::{MockServer, Reply};
use crate::common::protocols;
use crate::common::wire::anthropic as wire;
use crate::common::{Home, code, stderr, stdout};

const ENV_KEY: &str = "sk-ant-ENVLEAK-9f8e7d6c5b4a3210";
const PROFILE_KEY: &str = "sk-ant-PROFILELEAK-0a1b2c3d4e5f";
const MODEL: &str = "anthropic/claude-sonnet-4-5";

fn usage() -> wire::Usage4 {
    wire::Usage4 {
        input: 40,
        output: 10,
        cache_read: 0,
        cache_write: 0,
    }
}

fn assert_clean(label: &str, text: &str) {
    for key in [ENV_KEY, PROFILE_KEY] {
        assert!(!text.contains(key), "{label} leaks {key}:\n{text}");
    }
    // A prefix long enough to be recognisable is a leak too.
    assert!(!text.contains(&ENV_KEY[..20]), "{label}: {text}");
    assert!(!text.contains(&PROFILE_KEY[..20]), "{label}: {text}");
}

fn assert_output_clean(label: &str, output: &Output) {
    assert_clean(&format!("{label} stdout"), &stdout(output));
    assert_clean(&format!("{label} stderr"), &stderr(output));
}

/// Every file under `root` except the auth store (which holds the profile key by design) and the
/// test's own `.env` fixture.
fn assert_files_clean(root: &Path) {
    let mut stack = vec![root.to_path_buf()];
    let mut scanned = 0;
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path
                .file_name()
                .is_some_and(|name| name == "auth-profiles.json" || name == ".env")
            {
                continue;
            }
            let bytes = std::fs::read(&path).unwrap();
            assert_clean(
                &path.display().to_string(),
                &String::from_utf8_lossy(&bytes),
            );
            scanned += 1;
        }
    }
    assert!(scanned > 5, "only {scanned} files scanned");
}

/// A turn that reads a `.env` file holding the key and runs a command that prints its own argv,
/// its parent's argv and the key variable, then answers.
fn tool_turn() -> Vec<Reply> {
    let command = "printf 'self:'; tr '\\0' ' ' < /proc/$$/cmdline; printf '\\nparent:'; \
                   tr '\\0' ' ' < /proc/$PPID/cmdline; printf '\\nenv:%s\\n' \"$ANTHROPIC_API_KEY\"";
    vec![
        Reply::sse(&wire::tool_use_stream(
            Some("Checking."),
            &[
                ("toolu_read", "read", &json!({"path": ".env"}).to_string()),
                (
                    "toolu_exec",
                    "exec",
                    &json!({"command": command}).to_string(),
                ),
            ],
            usage(),
        )),
        Reply::sse(&wire::text_stream(&["All ", "checked."], usage())),
    ]
}

const MODES: [&[&str]; 3] = [&[], &["--json"], &["--output-format", "stream-json"]];

#[test]
fn keys_never_leak_through_any_command_output_mode_or_file() {
    let home = Home::new();
    std::fs::write(
        home.workspace.join(".env"),
        format!("ANTHROPIC_API_KEY={ENV_KEY}\nWORK_KEY={PROFILE_KEY}\n"),
    )
    .unwrap();
    let idle = MockServer::start(Vec::new());
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &idle)
        .key(&protocols::anthropic(), ENV_KEY)
        .args(["auth", "add", "anthropic", "--name", "work"])
        .stdin(PROFILE_KEY.as_bytes())
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_output_clean("auth add", &output);
    let events = home.root.path().join("events");
    std::fs::create_dir_all(&events).unwrap();

    for (index, mode) in MODES.iter().enumerate() {
        let events_file = events.join(format!("run-{index}.jsonl"));
        let answer_file = events.join(format!("answer-{index}.txt"));
        let mut args: Vec<&str> = mode.to_vec();
        let events_arg = events_file.to_str().unwrap();
        let answer_arg = answer_file.to_str().unwrap();
        args.extend([
            "-vv",
            "run",
            "-m",
            MODEL,
            "--events-file",
            events_arg,
            "-o",
            answer_arg,
            "check the environment",
        ]);
        let server = MockServer::start(tool_turn());
        let output = home
            .pincer()
            .provider(&protocols::anthropic(), &server)
            .key(&protocols::anthropic(), ENV_KEY)
            .args(&args)
            .output();
        assert_eq!(code(&output), 0, "mode {mode:?}: {}", stderr(&output));
        assert_output_clean(&format!("run {mode:?}"), &output);
        let requests = server.requests();
        assert_eq!(requests.len(), 2);
        // The profile key is the one sent, in a header only.
        assert_eq!(requests[0].header("x-api-key"), Some(PROFILE_KEY));
        for request in &requests {
            assert_clean("request path", &request.path);
            assert_clean("request body", &String::from_utf8_lossy(&request.body));
        }
        // The tool results reached the model redacted, and the exec child's argv (and its
        // parent's, pincer's own) was captured and holds no key.
        let sent = String::from_utf8_lossy(&requests[1].body).into_owned();
        assert!(sent.contains("ANTHROPIC_API_KEY=[REDACTED]"), "{sent}");
        assert!(sent.contains("WORK_KEY=[REDACTED]"), "{sent}");
        assert!(sent.contains("self:"), "{sent}");
        assert!(sent.contains("parent:"), "{sent}");
        assert!(sent.contains("pincer"), "the parent argv was read: {sent}");

        // Failures: a rejected key (the profile goes into cooldown, the env key is tried), an
        // unreachable server, and the dry run that prints the whole request.
        let rejected = MockServer::start(vec![
            Reply::json(
                401,
                &wire::error_body("authentication_error", "invalid x-api-key"),
            ),
            Reply::json(
                401,
                &wire::error_body("authentication_error", "invalid x-api-key"),
            ),
        ]);
        let mut failing: Vec<&str> = mode.to_vec();
        failing.extend([
            "-v",
            "run",
            "-m",
            MODEL,
            "--events-file",
            events_arg,
            "fail",
        ]);
        let output = home
            .pincer()
            .provider(&protocols::anthropic(), &rejected)
            .key(&protocols::anthropic(), ENV_KEY)
            .args(&failing)
            .output();
        assert_eq!(code(&output), 3, "{}", stderr(&output));
        assert_output_clean(&format!("401 {mode:?}"), &output);
        let mut dry: Vec<&str> = mode.to_vec();
        dry.extend(["run", "-m", MODEL, "--dry-run", "what would be sent"]);
        let output = home
            .pincer()
            .provider(&protocols::anthropic(), &idle)
            .key(&protocols::anthropic(), ENV_KEY)
            .args(&dry)
            .output();
        assert_eq!(code(&output), 0, "{}", stderr(&output));
        assert_output_clean(&format!("dry run {mode:?}"), &output);
        // The environment key is the fallback when profiles are unusable: still never printed.
        let mut resume: Vec<&str> = mode.to_vec();
        resume.extend(["resume", "--last", "--dry-run", "again"]);
        let output = home
            .pincer()
            .provider(&protocols::anthropic(), &idle)
            .key(&protocols::anthropic(), ENV_KEY)
            .args(&resume)
            .output();
        assert_eq!(code(&output), 0, "{}", stderr(&output));
        assert_output_clean(&format!("resume dry run {mode:?}"), &output);
    }

    // Every other command, in both of its output shapes.
    let server = MockServer::start_cycle(
        vec![Reply::sse(&wire::text_stream(
            &["## Goal\nsummary"],
            usage(),
        ))],
        "127.0.0.1:0",
    );
    let commands: [&[&str]; 13] = [
        &["status"],
        &["status", "--last"],
        &["sessions"],
        &["sessions", "show", "--last"],
        &["sessions", "show", "--last", "--tree"],
        &["sessions", "export", "--last", "--format", "jsonl"],
        &["sessions", "export", "--last", "--format", "markdown"],
        &["auth"],
        &["auth", "status"],
        &["compact", "--last", "--keep-recent-tokens", "1"],
        &["resume", "--last", "one more"],
        &["resume", "--last", "--auth-profile", "nosuch", "x"],
        &["sessions", "repair", "--last", "--dry-run"],
    ];
    for command in commands {
        for json in [false, true] {
            let mut args: Vec<&str> = Vec::new();
            if json {
                args.push("--json");
            }
            args.extend_from_slice(command);
            let output = home
                .pincer()
                .provider(&protocols::anthropic(), &server)
                .key(&protocols::anthropic(), ENV_KEY)
                .args(&args)
                .output();
            assert_output_clean(&format!("{args:?}"), &output);
        }
    }
    // The session files, index, events files and answer files.
    assert_files_clean(home.root.path());
    // And the store itself keeps the key only as the profile's secret, never twice.
    let store = std::fs::read_to_string(home.home.join("auth-profiles.json")).unwrap();
    assert_eq!(store.matches(PROFILE_KEY).count(), 1);
    assert!(!store.contains(ENV_KEY));
}

/// The key of an OpenAI profile that stores a reference to `MY_OPENAI_KEY`.
const REFERENCED_KEY: &str = "sk-proj-REFLEAK-4b3a29181706f5e4d3";
/// The key a Google profile stores in the auth store itself.
const STORED_KEY: &str = "AIzaSy-STOREDLEAK-8d7c6b5a49382716";

fn assert_no_other_key(label: &str, text: &str) {
    for key in [REFERENCED_KEY, STORED_KEY] {
        assert!(!text.contains(key), "{label} leaks {key}:\n{text}");
        assert!(
            !text.contains(&key[..16]),
            "{label} leaks a prefix of {key}:\n{text}"
        );
    }
}

#[test]
fn every_profiles_key_stays_out_of_children_and_is_redacted_whatever_provider_the_run_uses() {
    let home = Home::new();
    // Profiles of providers this run does not use: one refers to a variable, one stores its key.
    home.add_profile_from_env("openai", "MY_OPENAI_KEY");
    let added = home
        .pincer()
        .args(["auth", "add", "google"])
        .stdin(STORED_KEY.as_bytes())
        .output();
    assert_eq!(code(&added), 0, "{}", stderr(&added));
    // A file in the workspace that holds both keys, as a command may find them.
    std::fs::write(
        home.workspace.join("keys.txt"),
        format!("openai={REFERENCED_KEY}\ngoogle={STORED_KEY}\n"),
    )
    .unwrap();
    // Hooks, in the sandbox and out of it, write down their environment.
    std::fs::write(
        home.home.join("config.toml"),
        "[[hooks.UserPromptSubmit]]\ncommand = \"env > hook-sandboxed.env\"\n\n\
         [[hooks.UserPromptSubmit]]\ncommand = \"env > hook-free.env\"\nsandbox = false\n",
    )
    .unwrap();
    let mcp = json!({"mcpServers": {"t": {
        "command": crate::suite::mcp::server_binary(),
        "args": ["stdio"],
    }}});
    let env_call = |name: &str| json!({ "name": name }).to_string();
    let server = MockServer::start(vec![
        Reply::sse(&wire::tool_use_stream(
            Some("Looking around."),
            &[
                ("c_env", "exec", &json!({"command": "env"}).to_string()),
                (
                    "c_cat",
                    "exec",
                    &json!({"command": "cat keys.txt"}).to_string(),
                ),
                ("m_ref", "mcp__t__env", &env_call("MY_OPENAI_KEY")),
                ("m_copy", "mcp__t__env", &env_call("KEY_COPY")),
            ],
            usage(),
        )),
        Reply::sse(&wire::text_stream(&["Done."], usage())),
    ]);
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .env("MY_OPENAI_KEY", REFERENCED_KEY)
        // A copy of the stored key under a name nothing refers to: removed by its value.
        .env("KEY_COPY", STORED_KEY)
        .args([
            "--output-format",
            "stream-json",
            "-v",
            "run",
            "-m",
            MODEL,
            "--mcp-config",
            &mcp.to_string(),
            "look",
        ])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let results = wire::tool_results(&requests[1].json());
    let (environment, failed) = &results["c_env"];
    assert!(!failed, "{environment}");
    assert!(environment.contains("PATH="), "{environment}");
    for name in ["MY_OPENAI_KEY=", "KEY_COPY="] {
        assert!(
            !environment.contains(name),
            "exec sees {name}: {environment}"
        );
    }
    // What a command finds in a file is redacted before the model, the session or stdout
    // see it.
    assert_eq!(
        results["c_cat"],
        ("openai=[REDACTED]\ngoogle=[REDACTED]\n".to_owned(), false)
    );
    assert_eq!(results["m_ref"], ("(unset)".to_owned(), false));
    assert_eq!(results["m_copy"], ("(unset)".to_owned(), false));
    for hook in ["hook-sandboxed.env", "hook-free.env"] {
        let environment = std::fs::read_to_string(home.workspace.join(hook)).unwrap();
        assert!(environment.contains("PATH="), "{hook}: {environment}");
        for name in ["MY_OPENAI_KEY=", "KEY_COPY="] {
            assert!(
                !environment.contains(name),
                "{hook} sees {name}: {environment}"
            );
        }
    }
    assert_no_other_key("stdout", &stdout(&output));
    assert_no_other_key("stderr", &stderr(&output));
    for request in &requests {
        assert_no_other_key("request body", &String::from_utf8_lossy(&request.body));
    }
    let sessions = home.sessions_dir();
    let mut scanned = 0;
    for entry in std::fs::read_dir(&sessions).unwrap() {
        let path = entry.unwrap().path();
        if path
            .extension()
            .is_some_and(|extension| extension == "jsonl")
        {
            assert_no_other_key(
                &path.display().to_string(),
                &std::fs::read_to_string(&path).unwrap(),
            );
            scanned += 1;
        }
    }
    assert_eq!(scanned, 1);
}
