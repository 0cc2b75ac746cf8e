//! Links, FIFOs, sockets and devices where pincer writes a file for the user (SPEC §10): a
//! planted symlink never leads a write elsewhere, a FIFO never blocks a run, and each refusal
//! says what the file is.
//!
//! Each attack is run as it happened: a link planted at `--events-file`, `--record`, `-o` or
//! `sessions export --output` pointing at a file outside (a fake `~/.bashrc` under the test's
//! root), a FIFO made where pincer writes. Every run is bounded ([`bounded`]): a run that blocks
//! is killed and the test fails saying so.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

use crate::common::command::Pincer;
use crate::common::mock::{MockServer, Reply};
use crate::common::protocols;
use crate::common::wire::anthropic::{self as wire, Usage4};
use crate::common::{Home, code, stderr};

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
fn generate_docs_never_writes_through_a_planted_link() {
    let home = Home::new();
    let repository = home.root.path().join("repository");
    std::fs::create_dir_all(repository.join("man")).unwrap();
    let bashrc = home.root.path().join(".bashrc");
    std::fs::write(&bashrc, BASHRC).unwrap();
    std::os::unix::fs::symlink(&bashrc, repository.join("man/pincer.1")).unwrap();
    let output = bounded(
        home.pincer()
            .args(["generate-docs", "--out"])
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
        home.pincer().args(["generate-docs", "--out"]).arg(&second),
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
