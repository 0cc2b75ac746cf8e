//! Links, FIFOs, sockets and devices where pincer writes a file for the user or where a file tool
//! reads or writes one (SPEC §10): a planted symlink never leads a write elsewhere, a FIFO never
//! blocks a run, and each refusal says what the file is.
//!
//! Each attack is run as it happened: a link planted at `--events-file`, `--record`, `-o` or
//! `sessions export --output` pointing at a file outside (a fake `~/.bashrc` under the test's
//! root), a FIFO made where pincer writes or where the model reads, greps or edits. Every run is
//! bounded ([`bounded`]): a run that blocks is killed and the test fails saying so.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::command::Pincer;
use crate::common::mock::{MockServer, Reply};
use crate::common::protocols;
use crate::common::wire::anthropic::{self as wire, Usage4};
use crate::common::{Home, code, stderr, stdout};

const MODEL: &str = "anthropic/claude-sonnet-4-5";
/// Longer than any of these runs takes on a busy machine; a run past it is blocked.
const LIMIT: Duration = Duration::from_secs(30);
const BASHRC: &str = "export PATH=\"$HOME/bin:$PATH\"\n";

fn usage() -> Usage4 {
    Usage4 {
        input: 10,
        output: 5,
        cache_read: 0,
        cache_write: 0,
    }
}

/// Run to the end, or kill the run after [`LIMIT`] and fail: `what` says what blocked.
fn bounded(pincer: Pincer, what: &str) -> Output {
    let mut child = pincer.spawn();
    let deadline = Instant::now() + LIMIT;
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("pincer hung: {what}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    child.wait_with_output().unwrap()
}

fn mkfifo(path: &Path) {
    let made = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(made.success(), "mkfifo {}", path.display());
}

fn is_fifo(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt as _;
    std::fs::symlink_metadata(path).is_ok_and(|metadata| metadata.file_type().is_fifo())
}

fn is_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|metadata| metadata.file_type().is_symlink())
}

/// A fake `~/.bashrc` outside the workspace, and a link to it at `name` in the workspace.
fn planted_link(home: &Home, name: &str) -> (PathBuf, PathBuf) {
    let bashrc = home.root.path().join(".bashrc");
    std::fs::write(&bashrc, BASHRC).unwrap();
    let link = home.workspace.join(name);
    std::os::unix::fs::symlink(&bashrc, &link).unwrap();
    (bashrc, link)
}

/// One answer, for runs that are expected never to ask for it.
fn answer_server() -> MockServer {
    MockServer::start(vec![Reply::sse(&wire::text_stream(&["hi"], usage()))])
}

fn run_with(home: &Home, server: &MockServer, args: &[&str]) -> Pincer {
    home.pincer()
        .provider(&protocols::anthropic(), server)
        .args(["run", "-m", MODEL])
        .args(args)
}

/// A refusal of a file pincer was to write for the user: exit 2, `error:` and `hint:` on
/// stderr naming the file, no model request made.
fn assert_refused(output: &Output, server: &MockServer, file: &str, what: &str) {
    let text = stderr(output);
    assert_eq!(code(output), 2, "{text}");
    assert!(text.contains("error:"), "{text}");
    assert!(text.contains("hint:"), "{text}");
    assert!(text.contains(file), "{text}");
    assert!(text.contains(what), "{text}");
    assert!(server.requests().is_empty(), "a model request was made");
}

// ------------------------------------------------------------------------ files for the user

#[test]
fn an_events_file_link_to_a_file_outside_is_refused_and_the_file_is_untouched() {
    let home = Home::new();
    let (bashrc, link) = planted_link(&home, "events.jsonl");
    let server = answer_server();
    let output = bounded(
        run_with(&home, &server, &["--events-file", "events.jsonl", "hello"]),
        "events file link",
    );
    assert_refused(&output, &server, "events.jsonl", "symbolic link");
    assert_eq!(std::fs::read_to_string(&bashrc).unwrap(), BASHRC);
    assert!(is_link(&link));
}

#[test]
fn a_fifo_as_the_events_file_is_refused_without_hanging() {
    let home = Home::new();
    mkfifo(&home.workspace.join("events.fifo"));
    let server = answer_server();
    let output = bounded(
        run_with(&home, &server, &["--events-file", "events.fifo", "hello"]),
        "opening a FIFO as the events file",
    );
    assert_refused(&output, &server, "events.fifo", "FIFO");
}

#[test]
fn a_cassette_link_writes_nothing_through_it_dangling_or_not() {
    let home = Home::new();
    // An empty file outside (a fresh `~/.bash_logout`) and a link to where none is yet.
    let empty = home.root.path().join(".bash_logout");
    std::fs::write(&empty, "").unwrap();
    std::os::unix::fs::symlink(&empty, home.workspace.join("empty.cassette")).unwrap();
    let missing = home.root.path().join("created-outside.jsonl");
    std::os::unix::fs::symlink(&missing, home.workspace.join("dangling.cassette")).unwrap();
    for cassette in ["empty.cassette", "dangling.cassette"] {
        let server = answer_server();
        let output = bounded(
            run_with(&home, &server, &["--record", cassette, "hello"]),
            "recording through a link",
        );
        assert_refused(&output, &server, cassette, "symbolic link");
    }
    assert_eq!(std::fs::read(&empty).unwrap(), b"");
    assert!(!missing.exists(), "the dangling link was followed");
}

#[test]
fn a_fifo_as_the_cassette_is_refused_without_hanging() {
    let home = Home::new();
    mkfifo(&home.workspace.join("cassette.fifo"));
    let server = answer_server();
    let output = bounded(
        run_with(&home, &server, &["--record", "cassette.fifo", "hello"]),
        "opening a FIFO as the cassette",
    );
    assert_refused(&output, &server, "cassette.fifo", "FIFO");
}

#[test]
fn a_last_message_link_is_refused_before_any_model_request() {
    let home = Home::new();
    let (bashrc, link) = planted_link(&home, "answer.txt");
    let server = answer_server();
    let output = bounded(
        run_with(&home, &server, &["-o", "answer.txt", "hello"]),
        "-o through a link",
    );
    assert_refused(&output, &server, "answer.txt", "symbolic link");
    assert_eq!(std::fs::read_to_string(&bashrc).unwrap(), BASHRC);
    assert!(is_link(&link), "the link was replaced");
}

#[test]
fn a_fifo_as_the_last_message_file_is_refused_and_kept() {
    let home = Home::new();
    let fifo = home.workspace.join("answer.fifo");
    mkfifo(&fifo);
    let server = answer_server();
    let output = bounded(
        run_with(&home, &server, &["-o", "answer.fifo", "hello"]),
        "-o into a FIFO",
    );
    assert_refused(&output, &server, "answer.fifo", "FIFO");
    assert!(is_fifo(&fifo));
}

#[test]
fn plain_files_for_the_user_are_still_created_and_replaced() {
    let home = Home::new();
    std::fs::write(home.workspace.join("events.jsonl"), "old events\n").unwrap();
    std::fs::write(home.workspace.join("answer.txt"), "old answer").unwrap();
    let server = answer_server();
    let output = bounded(
        run_with(
            &home,
            &server,
            &[
                "--events-file",
                "events.jsonl",
                "-o",
                "answer.txt",
                "--record",
                "new.cassette",
                "hello",
            ],
        ),
        "plain files",
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let events = std::fs::read_to_string(home.workspace.join("events.jsonl")).unwrap();
    assert!(!events.contains("old events"), "{events}");
    assert!(events.contains("\"type\":\"result\""), "{events}");
    assert_eq!(
        std::fs::read_to_string(home.workspace.join("answer.txt")).unwrap(),
        "hi"
    );
    let cassette = std::fs::read_to_string(home.workspace.join("new.cassette")).unwrap();
    assert_eq!(cassette.lines().count(), 2, "{cassette}");
}

#[test]
fn sessions_export_refuses_to_write_through_a_link_or_into_a_fifo() {
    let home = Home::new();
    let server = answer_server();
    let first = run_with(&home, &server, &["--name", "kept", "hello"]).output();
    assert_eq!(code(&first), 0, "{}", stderr(&first));
    let (bashrc, link) = planted_link(&home, "export.md");
    let fifo = home.workspace.join("export.fifo");
    mkfifo(&fifo);
    for (file, what) in [("export.md", "symbolic link"), ("export.fifo", "FIFO")] {
        let output = bounded(
            home.pincer()
                .args(["sessions", "export", "kept", "--output", file]),
            "sessions export",
        );
        let text = stderr(&output);
        assert_eq!(code(&output), 2, "{text}");
        assert!(text.contains(file) && text.contains(what), "{text}");
        assert!(text.contains("hint:"), "{text}");
    }
    assert_eq!(std::fs::read_to_string(&bashrc).unwrap(), BASHRC);
    assert!(is_link(&link));
    assert!(is_fifo(&fifo));
}

#[test]
fn generating_the_docs_never_writes_through_a_planted_link() {
    let generate = crate::common::example_binary("generate-docs");
    let home = Home::new();
    let repository = home.root.path().join("repository");
    std::fs::create_dir_all(repository.join("man/man1")).unwrap();
    let bashrc = home.root.path().join(".bashrc");
    std::fs::write(&bashrc, BASHRC).unwrap();
    std::os::unix::fs::symlink(&bashrc, repository.join("man/man1/pincer.1")).unwrap();
    let output = bounded(
        home.pincer()
            .binary(&generate)
            .arg("--out")
            .arg(&repository),
        "generate-docs",
    );
    let text = stderr(&output);
    assert_eq!(code(&output), 2, "{text}");
    assert!(
        text.contains("pincer.1") && text.contains("symbolic link"),
        "{text}"
    );
    assert_eq!(std::fs::read_to_string(&bashrc).unwrap(), BASHRC);

    // A linked directory would have its other files deleted as stale pages.
    let elsewhere = home.root.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("notes.txt"), "keep me").unwrap();
    let second = home.root.path().join("second");
    std::fs::create_dir_all(&second).unwrap();
    std::os::unix::fs::symlink(&elsewhere, second.join("completions")).unwrap();
    let output = bounded(
        home.pincer().binary(&generate).arg("--out").arg(&second),
        "generate-docs",
    );
    let text = stderr(&output);
    assert_eq!(code(&output), 2, "{text}");
    assert!(
        text.contains("completions") && text.contains("symbolic link"),
        "{text}"
    );
    assert_eq!(
        std::fs::read_to_string(elsewhere.join("notes.txt")).unwrap(),
        "keep me"
    );
}

// ------------------------------------------------------------------------------- file tools

/// One model turn calling each `(tool, arguments)` (ids `t0`, `t1`, …), then an answer.
fn tool_turn(calls: &[(&str, Value)]) -> Vec<Reply> {
    let arguments: Vec<String> = calls.iter().map(|(_, value)| value.to_string()).collect();
    let ids: Vec<String> = (0..calls.len()).map(|index| format!("t{index}")).collect();
    let calls: Vec<(&str, &str, &str)> = calls
        .iter()
        .zip(&ids)
        .zip(&arguments)
        .map(|(((tool, _), id), arguments)| (id.as_str(), *tool, arguments.as_str()))
        .collect();
    vec![
        Reply::sse(&wire::tool_use_stream(Some("Looking."), &calls, usage())),
        Reply::sse(&wire::text_stream(&["Done."], usage())),
    ]
}

/// The tool results the second request sent back, in call order: (text, is_error).
fn results_in_order(server: &MockServer, count: usize) -> Vec<(String, bool)> {
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "expected a tool turn and an answer");
    let mut found = wire::tool_results(&requests[1].json());
    (0..count)
        .map(|index| found.remove(&format!("t{index}")).unwrap())
        .collect()
}

fn tool_run(home: &Home, calls: &[(&str, Value)], extra: &[&str], what: &str) -> MockServer {
    let server = MockServer::start(tool_turn(calls));
    let output = bounded(
        run_with(home, &server, extra).arg("look at the files"),
        what,
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    // Text mode prints the answer alone, not the text before the tool calls (SPEC §3.1).
    assert_eq!(stdout(&output), "Done.\n");
    server
}

#[test]
fn reading_or_editing_a_fifo_is_an_error_at_once_and_writing_leaves_it_a_fifo() {
    let home = Home::new();
    let fifo = home.workspace.join("pipe");
    mkfifo(&fifo);
    let calls = [
        ("read", json!({"path": "pipe"})),
        (
            "edit",
            json!({"path": "pipe", "oldText": "a", "newText": "b"}),
        ),
        ("write", json!({"path": "pipe", "content": "into the pipe"})),
    ];
    let server = tool_run(&home, &calls, &[], "a file tool on a FIFO");
    for (index, (text, is_error)) in results_in_order(&server, calls.len()).iter().enumerate() {
        assert!(is_error, "call {index}: {text}");
        assert!(
            text.contains("pipe") && text.contains("is a FIFO"),
            "call {index}: {text}"
        );
    }
    assert!(is_fifo(&fifo), "the FIFO was replaced");
}

#[test]
fn reading_a_socket_or_a_device_names_what_it_is() {
    let home = Home::new();
    let _listener = std::os::unix::net::UnixListener::bind(home.workspace.join("sock")).unwrap();
    std::os::unix::fs::symlink("/dev/null", home.workspace.join("null")).unwrap();
    let calls = [
        ("read", json!({"path": "sock"})),
        ("read", json!({"path": "null"})),
    ];
    // Full access: the link to /dev/null is followed there, so the device itself is reached.
    let server = tool_run(
        &home,
        &calls,
        &["--sandbox", "danger-full-access"],
        "reading a socket",
    );
    let results = results_in_order(&server, calls.len());
    assert!(
        results[0].1 && results[0].0.contains("is a socket"),
        "{results:?}"
    );
    assert!(
        results[1].1 && results[1].0.contains("is a character device"),
        "{results:?}"
    );
}

#[test]
fn grep_and_find_skip_fifos_sockets_and_unreadable_ignore_files_and_find_the_rest() {
    let home = Home::new();
    std::fs::write(home.workspace.join("notes.txt"), "the needle is here\n").unwrap();
    mkfifo(&home.workspace.join("needle.fifo"));
    let _listener =
        std::os::unix::net::UnixListener::bind(home.workspace.join("needle.sock")).unwrap();
    // A directory whose `.gitignore` is a FIFO: reading its rules would block the walk.
    std::fs::create_dir(home.workspace.join("trap")).unwrap();
    mkfifo(&home.workspace.join("trap/.gitignore"));
    std::fs::write(home.workspace.join("trap/needle.txt"), "needle\n").unwrap();
    let calls = [
        ("grep", json!({"pattern": "needle"})),
        ("find", json!({"pattern": "*needle*"})),
        ("grep", json!({"pattern": "needle", "path": "needle.fifo"})),
    ];
    let server = tool_run(&home, &calls, &[], "grep over a FIFO");
    let results = results_in_order(&server, calls.len());
    let (grep, grep_error) = &results[0];
    assert!(!grep_error, "{grep}");
    assert!(grep.contains("notes.txt:1:the needle is here"), "{grep}");
    assert!(
        grep.contains("trap") && grep.contains(".gitignore is a FIFO"),
        "{grep}"
    );
    let (find, find_error) = &results[1];
    assert!(!find_error, "{find}");
    assert!(find.contains("needle.fifo"), "{find}");
    assert!(
        find.contains("trap") && find.contains(".gitignore is a FIFO"),
        "{find}"
    );
    let (fifo, fifo_error) = &results[2];
    assert!(*fifo_error && fifo.contains("is a FIFO"), "{fifo}");
}

/// `sub/.git` names a git directory whose `commondir` is a FIFO: the ignore rules of `sub` are
/// read through it, and that read blocks. The run must still end at SIGTERM and at
/// `--timeout`, with its exit code and the session lock released.
#[test]
fn a_grep_blocked_in_a_read_still_ends_at_sigterm_and_at_the_timeout() {
    let home = Home::new();
    let git_directory = home.root.path().join("gitdir");
    std::fs::create_dir_all(&git_directory).unwrap();
    mkfifo(&git_directory.join("commondir"));
    std::fs::create_dir_all(home.workspace.join("sub")).unwrap();
    std::fs::write(
        home.workspace.join("sub/.git"),
        format!("gitdir: {}\n", git_directory.display()),
    )
    .unwrap();
    std::fs::write(home.workspace.join("sub/a.txt"), "x\n").unwrap();
    for (name, extra, signal, expected) in [
        ("blocked-signal", &[][..], true, 143),
        ("blocked-timeout", &["--timeout", "3"][..], false, 124),
    ] {
        let server = MockServer::start(tool_turn(&[("grep", json!({"pattern": "x"}))]));
        let mut child = run_with(&home, &server, extra)
            .args(["--name", name, "search"])
            .spawn();
        let started = Instant::now();
        if signal {
            // Wait until the model asked for the grep, then a moment for the walk to block.
            while server.requests().is_empty() && started.elapsed() < LIMIT {
                std::thread::sleep(Duration::from_millis(20));
            }
            std::thread::sleep(Duration::from_millis(500));
            nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap()),
                nix::sys::signal::Signal::SIGTERM,
            )
            .unwrap();
        }
        let signalled = Instant::now();
        while child.try_wait().unwrap().is_none() {
            if signalled.elapsed() > Duration::from_secs(10) {
                let _ = child.kill();
                let _ = child.wait();
                panic!("the run did not end (signal: {signal})");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let output = child.wait_with_output().unwrap();
        assert_eq!(code(&output), expected, "{}", stderr(&output));
        // The lock is free again: a second resume of the session goes ahead.
        let next = MockServer::start(vec![Reply::sse(&wire::text_stream(&["ok"], usage()))]);
        let resumed = home
            .pincer()
            .provider(&protocols::anthropic(), &next)
            .args(["resume", name, "-m", MODEL, "again"])
            .output();
        assert_eq!(code(&resumed), 0, "{}", stderr(&resumed));
    }
}
