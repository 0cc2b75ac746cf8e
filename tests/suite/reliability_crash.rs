//! SIGKILL at random moments (SPEC §12.2): while a session is created, while a turn streams
//! slowly and runs tools, and while a compaction summary streams. After every kill the session
//! files must still be sound — a header first, one record per line, at most a torn final line —
//! what was on disk before the killed run must still be there byte for byte, and the next
//! resume must work, repairing a torn tail with a warning.
//!
//! 132 kills in all, spread over parallel workers with delays of up to a few hundred
//! milliseconds, so the test takes seconds. `PINCER_CRASH_ITERATIONS=N` raises the number of
//! kills per worker for a longer soak (`cargo test --test all reliability_crash`).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::thread;
use std::time::Duration;

use crate::common::integrity::{check_session, session_files};
use crate::common::mock::{MockServer, Reply};
use crate::common::protocols::{self, Protocol};
use crate::common::{Home, Pincer, SessionBuilder, code, stderr};

/// A small deterministic generator: reproducible kill points from the printed seed.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, bound: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % bound.max(1)
    }
}

fn seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(7, |since| since.as_nanos() as u64)
}

fn iterations(default: usize) -> usize {
    std::env::var("PINCER_CRASH_ITERATIONS")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

fn protocol() -> Protocol {
    protocols::anthropic()
}

/// A server whose every answer streams slowly: a tool call (read a file) and a text answer in
/// turn, paced so that a kill lands in the middle of a stream, a tool run or an append.
fn slow_server() -> MockServer {
    let protocol = protocol();
    let tool = (protocol.tool_call)(
        "toolu_crash",
        "read",
        &serde_json::json!({"path": "notes.txt"}),
    );
    let text = (protocol.text)(&["one ", "two ", "three ", "four ", "five"]);
    MockServer::start_cycle(
        vec![
            Reply::sse(&tool).paced(Duration::from_millis(15)),
            Reply::sse(&text).paced(Duration::from_millis(20)),
        ],
        "127.0.0.1:0",
    )
}

/// Start `args` (output to `/dev/null`), SIGKILL it after `delay` (if it is still running),
/// reap it.
fn kill_after(command: Pincer, args: &[&str], delay: Duration) {
    let mut child = command
        .args(args)
        .command()
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    thread::sleep(delay);
    let _ = child.kill();
    child.wait().unwrap();
}

/// The complete lines of a file (up to its last '\n').
fn complete_prefix(path: &Path) -> Vec<u8> {
    let bytes = std::fs::read(path).unwrap_or_default();
    let end = bytes
        .iter()
        .rposition(|byte| *byte == b'\n')
        .map_or(0, |at| at + 1);
    bytes[..end].to_vec()
}

/// Every session file in the store is sound; returns whether any has a torn tail.
fn check_store(home: &Home) -> bool {
    let mut torn = false;
    for path in session_files(&home.sessions_dir()) {
        torn |= check_session(&path, true).torn_tail;
    }
    torn
}

/// A clean resume of `file` that must succeed and must warn about a torn tail if there is one.
fn resume_cleanly(home: &Home, server: &MockServer, file: &Path, torn: bool) {
    let output = home
        .pincer()
        .provider(&protocol(), server)
        .args([
            "resume",
            file.to_str().unwrap(),
            "--max-turns",
            "4",
            "after the crash",
        ])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    if torn {
        assert!(
            stderr(&output).contains("torn line"),
            "a torn tail is repaired with a warning: {}",
            stderr(&output)
        );
    }
    let checked = check_session(file, false);
    assert!(!checked.torn_tail);
    let show = home
        .pincer()
        .provider(&protocol(), server)
        .args(["sessions", "show", file.to_str().unwrap()])
        .output();
    assert_eq!(code(&show), 0, "{}", stderr(&show));
}

/// One worker: a session created by a first turn, then `kills` resumes killed at random
/// moments, each checked; then a clean resume.
fn resume_worker(seed: u64, kills: usize) {
    let home = Home::new();
    std::fs::write(home.workspace.join("notes.txt"), "remember the milk\n").unwrap();
    let server = slow_server();
    let output = home
        .pincer()
        .provider(&protocol(), &server)
        .args(["run", "-m", protocol().model, "--max-turns", "4", "start"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let file = session_files(&home.sessions_dir()).remove(0);
    let mut random = Lcg(seed);
    for iteration in 0..kills {
        let before = complete_prefix(&file);
        let delay = Duration::from_millis(random.below(350));
        kill_after(
            home.pincer().provider(&protocol(), &server),
            &[
                "resume",
                file.to_str().unwrap(),
                "--max-turns",
                "4",
                &format!("turn {iteration}"),
            ],
            delay,
        );
        check_store(&home);
        // Nothing that was complete before the killed run is lost or changed: the run can only
        // add (a torn tail from an earlier kill is moved aside, never merged).
        let after = std::fs::read(&file).unwrap();
        assert!(
            after.starts_with(&before),
            "seed {seed}, iteration {iteration} ({delay:?}): earlier lines changed"
        );
        assert_eq!(session_files(&home.sessions_dir()).len(), 1);
    }
    resume_cleanly(&home, &server, &file, check_store(&home));
}

#[test]
fn sigkill_during_resumed_turns_never_loses_a_completed_entry() {
    let seed = seed();
    let workers: Vec<_> = (0..4)
        .map(|worker| {
            let seed = seed.wrapping_add(worker);
            thread::spawn(move || resume_worker(seed, iterations(15)))
        })
        .collect();
    for worker in workers {
        worker.join().unwrap_or_else(|_| panic!("seed {seed}"));
    }
}

#[test]
fn sigkill_during_session_creation_leaves_no_file_or_a_file_with_its_header() {
    let seed = seed().wrapping_add(100);
    let workers: Vec<_> = (0..4)
        .map(|worker| {
            let seed = seed.wrapping_add(worker);
            thread::spawn(move || {
                let home = Home::new();
                std::fs::write(home.workspace.join("notes.txt"), "x\n").unwrap();
                let server = slow_server();
                let mut random = Lcg(seed);
                for _ in 0..iterations(10) {
                    // Process start to first append takes a few milliseconds: kill in that window
                    // and a little past it.
                    let delay = Duration::from_micros(random.below(40_000));
                    kill_after(
                        home.pincer().provider(&protocol(), &server),
                        &["run", "-m", protocol().model, "--max-turns", "2", "new"],
                        delay,
                    );
                    check_store(&home);
                }
                // Every file that exists resumes.
                let files: Vec<PathBuf> = session_files(&home.sessions_dir());
                for file in &files {
                    let torn = check_session(file, true).torn_tail;
                    resume_cleanly(&home, &server, file, torn);
                }
                // No temporary file is left looking like a session.
                for entry in std::fs::read_dir(home.sessions_dir()).into_iter().flatten() {
                    let name = entry.unwrap().file_name().to_string_lossy().into_owned();
                    assert!(
                        name.ends_with(".jsonl")
                            || name.ends_with(".lock")
                            || name.starts_with("index.sqlite3")
                            || name.contains(".torn-")
                            || name.starts_with('.'),
                        "seed {seed}: unexpected file {name}"
                    );
                }
            })
        })
        .collect();
    for worker in workers {
        worker.join().unwrap_or_else(|_| panic!("seed {seed}"));
    }
}

/// A session long enough that `compact` has something to summarize.
fn long_session(home: &Home, id: &str) -> PathBuf {
    let mut session = SessionBuilder::new(id, &home.workspace);
    for turn in 0..12 {
        session.user(&format!("question {turn}: {}", "detail ".repeat(60)));
        session.assistant(
            &format!("answer {turn}: {}", "words ".repeat(60)),
            [100, 50, 0, 0],
        );
    }
    home.write_session(&session)
}

#[test]
fn sigkill_during_compaction_leaves_the_session_loadable_and_its_history_intact() {
    let seed = seed().wrapping_add(200);
    let workers: Vec<_> = (0..4)
        .map(|worker| {
            let seed = seed.wrapping_add(worker);
            thread::spawn(move || {
                let home = Home::new();
                let id = format!("0199a222-0000-7000-8000-00000000000{worker}");
                let file = long_session(&home, &id);
                let summary = (protocol().text)(&[
                    "## Goal\n",
                    "Answer ",
                    "the ",
                    "questions.\n",
                    "## Progress\n",
                    "done",
                ]);
                let server = MockServer::start_cycle(
                    vec![Reply::sse(&summary).paced(Duration::from_millis(20))],
                    "127.0.0.1:0",
                );
                let mut random = Lcg(seed);
                for iteration in 0..iterations(8) {
                    let before = complete_prefix(&file);
                    let delay = Duration::from_millis(random.below(300));
                    kill_after(
                        home.pincer().provider(&protocol(), &server),
                        &[
                            "compact",
                            &id,
                            "-m",
                            protocol().model,
                            "--keep-recent-tokens",
                            "200",
                        ],
                        delay,
                    );
                    check_store(&home);
                    let after = std::fs::read(&file).unwrap();
                    assert!(
                        after.starts_with(&before),
                        "seed {seed}, iteration {iteration}: earlier lines changed"
                    );
                }
                // An uninterrupted compaction still works on the survivor and appends its entry.
                let torn = check_store(&home);
                let output = home
                    .pincer()
                    .provider(&protocol(), &server)
                    .args([
                        "compact",
                        &id,
                        "-m",
                        protocol().model,
                        "--keep-recent-tokens",
                        "200",
                    ])
                    .output();
                assert_eq!(code(&output), 0, "{}", stderr(&output));
                if torn {
                    assert!(stderr(&output).contains("torn line"), "{}", stderr(&output));
                }
                let compactions = check_session(&file, false)
                    .entries
                    .iter()
                    .filter(|entry| entry["type"] == "compaction")
                    .count();
                assert!(compactions >= 1);
                resume_cleanly(&home, &server, &file, false);
                // The original twelve questions are all still in the file.
                let checked = check_session(&file, false);
                let questions = checked
                    .entries
                    .iter()
                    .filter(|entry| {
                        entry["message"]["content"]
                            .to_string()
                            .contains("question ")
                    })
                    .count();
                assert!(questions >= 12, "{questions}");
            })
        })
        .collect();
    for worker in workers {
        worker.join().unwrap_or_else(|_| panic!("seed {seed}"));
    }
}
