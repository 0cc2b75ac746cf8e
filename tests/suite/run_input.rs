//! The input contract of SPEC §2 and the checks `run` makes before any model call.

use std::io::Write as _;
use std::os::unix::process::CommandExt as _;
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use serde_json::Value;

use crate::common::mock::{MockServer, Reply};
use crate::common::protocols;
use crate::common::{Home, Pincer, code, stderr, stdout};

fn dry_run_messages(output: &std::process::Output) -> Value {
    assert_eq!(code(output), 0, "{}", stderr(output));
    let report: Value = serde_json::from_str(&stdout(output)).unwrap();
    report["body"]["messages"].clone()
}

#[test]
fn an_inherited_pipe_that_never_writes_does_not_hold_up_a_prompt_argument() {
    let home = Home::new();
    let mut child = home
        .pincer()
        .key(&protocols::anthropic(), protocols::KEY)
        .args(["run", "--dry-run", "hello"])
        .spawn_with_open_stdin();
    // Keep the write end open and silent, as a CI step's inherited pipe is.
    let _stdin = child.stdin.take();
    let started = Instant::now();
    let output = child.wait_with_output().unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    let messages = dry_run_messages(&output);
    assert_eq!(messages[0]["content"][0]["text"], "hello");
}

#[test]
fn dev_null_with_a_prompt_proceeds_and_without_one_exits_2() {
    let home = Home::new();
    let output = home
        .pincer()
        .key(&protocols::anthropic(), protocols::KEY)
        .args(["run", "--dry-run", "hello"])
        .output();
    assert_eq!(dry_run_messages(&output)[0]["content"][0]["text"], "hello");
    let output = home
        .pincer()
        .key(&protocols::anthropic(), protocols::KEY)
        .args(["run"])
        .output();
    assert_eq!(code(&output), 2);
    assert!(
        stderr(&output).contains("error: the prompt is empty"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn piped_context_is_appended_to_the_prompt_in_a_stdin_block() {
    let home = Home::new();
    let output = home
        .pincer()
        .key(&protocols::anthropic(), "k")
        .args(["run", "--dry-run", "write the commit message"])
        .stdin("diff --git a/x b/x\n+hello\n")
        .output();
    let messages = dry_run_messages(&output);
    assert_eq!(
        messages[0]["content"][0]["text"],
        "write the commit message\n\n<stdin>\ndiff --git a/x b/x\n+hello\n</stdin>"
    );
}

#[test]
fn a_dash_reads_the_whole_prompt_from_stdin() {
    let home = Home::new();
    let output = home
        .pincer()
        .key(&protocols::anthropic(), "k")
        .args(["run", "--dry-run", "-"])
        .stdin("summarize this repository")
        .output();
    assert_eq!(
        dry_run_messages(&output)[0]["content"][0]["text"],
        "summarize this repository"
    );
}

#[test]
fn stdin_that_never_sends_a_prompt_times_out_with_exit_2() {
    let home = Home::new();
    let mut child = home
        .pincer()
        .key(&protocols::anthropic(), protocols::KEY)
        .args(["run", "--stdin-timeout", "0.3"])
        .spawn_with_open_stdin();
    let _stdin = child.stdin.take();
    let output = child.wait_with_output().unwrap();
    assert_eq!(code(&output), 2);
    assert!(
        stderr(&output).contains("no prompt arrived on stdin within 0.3 s"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn oversized_and_invalid_utf8_stdin_are_refused_with_exit_2() {
    let home = Home::new();
    let output = home
        .pincer()
        .key(&protocols::anthropic(), "k")
        .args(["-c", "stdin.max_bytes=16", "run", "--dry-run", "-"])
        .stdin("x".repeat(17))
        .output();
    assert_eq!(code(&output), 2, "{}", stderr(&output));
    assert!(
        stderr(&output).contains("larger than 16 bytes"),
        "{}",
        stderr(&output)
    );

    let output = home
        .pincer()
        .key(&protocols::anthropic(), protocols::KEY)
        .args(["run", "--dry-run", "-"])
        .stdin(b"caf\xff\xfe".to_vec())
        .output();
    assert_eq!(code(&output), 2);
    assert!(
        stderr(&output).contains("not valid UTF-8"),
        "{}",
        stderr(&output)
    );

    let output = home
        .pincer()
        .key(&protocols::anthropic(), protocols::KEY)
        .args(["run", "--dry-run", "--lossy-stdin", "-"])
        .stdin(b"caf\xff".to_vec())
        .output();
    assert_eq!(
        dry_run_messages(&output)[0]["content"][0]["text"],
        "caf\u{fffd}"
    );
    assert!(stderr(&output).contains("warning:"), "{}", stderr(&output));
}

#[test]
fn without_credentials_run_exits_3_and_json_mode_still_prints_a_result() {
    let home = Home::new();
    let output = home.run(&["run", "-m", "anthropic/claude-sonnet-4-5", "--json", "hi"]);
    assert_eq!(code(&output), 3, "{}", stderr(&output));
    let result: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(result["is_error"], true);
    assert_eq!(result["error"]["kind"], "auth");
    assert!(
        stderr(&output).contains("ANTHROPIC_API_KEY"),
        "{}",
        stderr(&output)
    );
    // Credentials are checked before anything is created: no session file is left behind.
    let session_files = std::fs::read_dir(home.sessions_dir())
        .map(|reader| {
            reader
                .filter(|entry| {
                    entry
                        .as_ref()
                        .unwrap()
                        .path()
                        .extension()
                        .is_some_and(|extension| extension == "jsonl")
                })
                .count()
        })
        .unwrap_or(0);
    assert_eq!(session_files, 0);
}

#[test]
fn a_dry_run_shows_the_request_and_changes_nothing() {
    let home = Home::new();
    let output = home
        .pincer()
        .key(&protocols::openai(), "sk-test")
        .args([
            "run",
            "--dry-run",
            "-m",
            "openai/gpt-5",
            "--append-system-prompt",
            "Answer in French.",
            "hello",
        ])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let report: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(report["provider"], "openai");
    assert_eq!(report["model"], "gpt-5");
    assert_eq!(report["credentials"], "found");
    assert!(
        report["system_prompt"]
            .as_str()
            .unwrap()
            .ends_with("Answer in French.")
    );
    assert!(
        report["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|tool| tool == "apply_patch")
    );
    assert!(!stdout(&output).contains("sk-test"));
    assert!(!home.sessions_dir().exists());
}

#[test]
fn a_session_id_that_is_not_a_uuid_is_a_usage_error() {
    let home = Home::new();
    let output = home
        .pincer()
        .key(&protocols::anthropic(), "k")
        .args(["run", "--session-id", "nope", "hi"])
        .output();
    assert_eq!(code(&output), 2);
    assert!(
        stderr(&output).contains("is not a UUID"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn an_alias_and_the_credential_default_pick_the_model() {
    let home = Home::new();
    let output = home
        .pincer()
        .key(&protocols::anthropic(), "k")
        .args(["run", "--dry-run", "-m", "sonnet", "hi"])
        .output();
    let report: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(report["provider"], "anthropic");
    assert_eq!(report["model"], "claude-sonnet-4-5");

    // No -m and no configured model: the first provider with a key (here only OpenAI's).
    let output = home
        .pincer()
        .key(&protocols::openai(), "k")
        .args(["run", "--dry-run", "hi"])
        .output();
    let report: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(report["provider"], "openai");
    assert_eq!(report["api"], "openai-responses");
    assert!(report["url"].as_str().unwrap().ends_with("/v1/responses"));

    // The configured default wins over the environment.
    let output = home
        .pincer()
        .key(&protocols::openai(), "k")
        .args([
            "-c",
            "model=google/gemini-2.5-pro",
            "run",
            "--dry-run",
            "hi",
        ])
        .output();
    let report: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(report["provider"], "google");
    assert_eq!(report["credentials"], "missing");
    assert!(!report["url"].as_str().unwrap().contains("key="));
}

/// The text of the first user message in a request the mock received (Anthropic's shape).
fn sent_prompt(server: &MockServer) -> String {
    let requests = server.requests();
    assert_eq!(requests.len(), 1, "{requests:?}");
    requests[0].json()["messages"][0]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

fn answering_server() -> MockServer {
    let protocol = protocols::anthropic();
    MockServer::start(vec![Reply::sse(&(protocol.text)(&["done"]))])
}

/// `sh -c 'WRITER | pincer ARGS…'`: both sides of the pipe in one process group, as a shell
/// pipeline puts them.
fn in_a_pipeline_after(command: Pincer, writer: &str) -> Pincer {
    command.inside("sh", ["-c", &format!("{writer} | \"$0\" \"$@\"")])
}

#[test]
fn a_pipeline_writer_slower_than_the_window_is_waited_for_with_a_prompt_argument() {
    let home = Home::new();
    let server = answering_server();
    let command = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["run", "-m", protocols::anthropic().model, "summarize"]);
    let output = in_a_pipeline_after(command, "sh -c 'sleep 1; echo data'").output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(sent_prompt(&server), "summarize\n\n<stdin>\ndata\n</stdin>");
    assert!(!stderr(&output).contains("ignored"), "{}", stderr(&output));
}

#[test]
fn a_pipeline_writer_slower_than_the_window_is_waited_for_without_a_prompt_argument() {
    let home = Home::new();
    let server = answering_server();
    let command = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args([
            "run",
            "-m",
            protocols::anthropic().model,
            "--stdin-timeout",
            "0.3",
        ]);
    let output = in_a_pipeline_after(command, "sh -c 'sleep 1; echo the prompt'").output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(sent_prompt(&server), "the prompt\n");
}

#[test]
fn a_pipe_held_open_outside_the_pipeline_is_ignored_after_the_window_with_a_notice() {
    let home = Home::new();
    let server = answering_server();
    let (reader, writer) = std::io::pipe().unwrap();
    // The write end belongs to a process in a process group of its own (a CI runner's or a
    // supervisor's inherited pipe); the test's own copy is closed.
    let mut holder = std::process::Command::new("sleep")
        .arg("30")
        .stdout(writer)
        .process_group(0)
        .spawn()
        .unwrap();
    let started = Instant::now();
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["run", "-m", protocols::anthropic().model, "summarize"])
        .command()
        .stdin(reader)
        .output()
        .unwrap();
    let elapsed = started.elapsed();
    let _ = holder.kill();
    let _ = holder.wait();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
    assert_eq!(sent_prompt(&server), "summarize");
    let text = stderr(&output);
    assert!(
        text.contains("stdin was ignored: nothing arrived within 0.5 s")
            && text.contains("--stdin-timeout 0"),
        "{text}"
    );
}

#[test]
fn an_inherited_pipe_held_by_the_parent_is_ignored_with_a_notice() {
    let home = Home::new();
    let mut child = home
        .pincer()
        .key(&protocols::anthropic(), protocols::KEY)
        .args(["run", "--dry-run", "hello"])
        .spawn_with_open_stdin();
    // The parent (here the test, elsewhere a CI runner) keeps the write end open and silent; it
    // shares pincer's process group, but it is no member of a pipeline.
    let _stdin = child.stdin.take();
    let output = child.wait_with_output().unwrap();
    assert_eq!(dry_run_messages(&output)[0]["content"][0]["text"], "hello");
    assert!(
        stderr(&output).contains("stdin was ignored"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_regular_file_on_stdin_is_read_whole() {
    let home = Home::new();
    let path = home.root.path().join("big.txt");
    let line = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n";
    let content = line.repeat(64 * 1024); // 4 MiB
    std::fs::write(&path, &content).unwrap();
    let output = home
        .pincer()
        .key(&protocols::anthropic(), protocols::KEY)
        .args(["run", "--dry-run", "look"])
        .command()
        .stdin(std::fs::File::open(&path).unwrap())
        .output()
        .unwrap();
    let messages = dry_run_messages(&output);
    let sent = messages[0]["content"][0]["text"].as_str().unwrap();
    assert_eq!(
        sent.len(),
        "look\n\n<stdin>\n".len() + content.len() + "</stdin>".len()
    );
    assert!(sent.ends_with(&format!("{line}</stdin>")));
}

#[test]
fn stdin_timeout_0_waits_for_a_late_writer_outside_any_pipeline() {
    let home = Home::new();
    let mut child = home
        .pincer()
        .key(&protocols::anthropic(), protocols::KEY)
        .args(["run", "--dry-run", "--stdin-timeout", "0", "hello"])
        .spawn_with_open_stdin();
    let mut stdin = child.stdin.take().unwrap();
    std::thread::sleep(Duration::from_millis(1200));
    stdin.write_all(b"late data\n").unwrap();
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    assert_eq!(
        dry_run_messages(&output)[0]["content"][0]["text"],
        "hello\n\n<stdin>\nlate data\n</stdin>"
    );
}
