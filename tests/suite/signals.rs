//! SIGTERM, SIGINT and `--timeout` in every phase of a run (SPEC §2, §3.2, §5.5): reading a
//! held-open stdin (with and without a prompt argument), waiting for a prompt, waiting for a
//! session lock, connecting, streaming, running a tool and compacting. Each phase is held open by
//! the test (a pipe it never closes, a lock it holds, a server that never answers or stalls), and
//! each way of ending it must give the documented exit code, one `result` object on stdout in the
//! JSON modes, a prompt return, and a session that still loads — with the interrupted turn
//! recorded as `aborted` once the turn had started.

use std::any::Any;
use std::io::Write as _;
use std::net::TcpListener;
use std::process::Child;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use nix::sys::signal::Signal;
use serde_json::{Value, json};

use crate::common::integrity::{check_session, session_files};
use crate::common::mock::{MockServer, Piece, Reply, split_events};
use crate::common::protocols;
use crate::common::wire::anthropic::{self as wire, Usage4};
use crate::common::{Home, hold_lock, stderr};

/// The `--timeout` every timeout case uses: long enough for every phase to be reached on a busy
/// machine.
const TIMEOUT: f64 = 2.5;
/// How long after the start a signal case waits at least before it signals.
const SETTLE: Duration = Duration::from_millis(1_200);
/// Cases run side by side (each one mostly waits).
const PARALLEL: usize = 4;
/// How much later than asked a run may end.
const SLACK: Duration = Duration::from_millis(500);
/// How long a case waits before it gives up on a run that does not end.
const HANG: Duration = Duration::from_secs(8);

fn usage(input: u64) -> Usage4 {
    Usage4 {
        input,
        output: 10,
        cache_read: 0,
        cache_write: 0,
    }
}

fn text(answer: &str, input: u64) -> Reply {
    Reply::sse(&wire::text_stream(&[answer], usage(input)))
}

/// A first turn in `home`, named `busy`, so that a phase can resume it.
fn seed(home: &Home) {
    let server = MockServer::start(vec![text("first answer", 100)]);
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["run", "--name", "busy", "first question"])
        .output();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
}

/// A TCP port that accepts connections and never answers, counting them.
fn silent_server() -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let accepted = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&accepted);
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming() {
            count.fetch_add(1, Ordering::SeqCst);
            held.push(stream);
        }
    });
    (url, accepted)
}

fn stalled_after_text() -> Reply {
    let events = split_events(&wire::text_stream(&["partial", " more"], usage(100)));
    let first = events
        .iter()
        .position(|event| String::from_utf8_lossy(event).contains("partial"))
        .unwrap();
    let mut pieces: Vec<Piece> = events[..=first].iter().cloned().map(Piece::Data).collect();
    pieces.push(Piece::Stall(Duration::from_secs(30)));
    Reply::sse_pieces(pieces)
}

/// A run held in one phase, and what keeps it there.
struct Held {
    child: Child,
    /// When the process was started (the `--timeout` counts from there).
    spawned: Instant,
    /// Whatever must stay alive for the phase to last: an open pipe, a lock, a server.
    _keep: Vec<Box<dyn Any>>,
    /// Says whether the run really reached the phase (checked after it ended).
    reached: Box<dyn Fn() -> bool>,
    /// Whether the turn had started (the session then records an `aborted` message).
    turn_started: bool,
}

/// One phase: how to start a run that stays in it, given extra flags for the run.
struct Phase {
    name: &'static str,
    start: fn(&Home, &[&str]) -> Held,
}

fn always() -> Box<dyn Fn() -> bool> {
    Box::new(|| true)
}

/// `run` with `args` and a stdin pipe that gets `data` and then stays open.
fn stdin_phase(home: &Home, args: &[&str], data: &[u8]) -> Held {
    let mut child = home
        .pincer()
        .provider_url(&protocols::anthropic(), "http://127.0.0.1:9")
        .args(args)
        .spawn_with_open_stdin();
    let spawned = Instant::now();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(data).unwrap();
    stdin.flush().unwrap();
    Held {
        child,
        spawned,
        _keep: vec![Box::new(stdin)],
        reached: always(),
        turn_started: false,
    }
}

fn phases() -> Vec<Phase> {
    vec![
        Phase {
            name: "reading a held-open stdin after a prompt argument",
            start: |home, extra| {
                let mut args = vec!["run"];
                args.extend_from_slice(extra);
                args.push("summarize the context");
                stdin_phase(home, &args, b"some context\n")
            },
        },
        Phase {
            name: "reading a held-open stdin as the prompt",
            start: |home, extra| {
                let mut args = vec!["run"];
                args.extend_from_slice(extra);
                stdin_phase(home, &args, b"the prompt, still coming")
            },
        },
        Phase {
            name: "waiting for a prompt on an idle pipe",
            start: |home, extra| {
                let mut args = vec!["run", "--stdin-timeout", "30"];
                args.extend_from_slice(extra);
                stdin_phase(home, &args, b"")
            },
        },
        Phase {
            name: "waiting for a session lock",
            start: |home, extra| {
                seed(home);
                let lock = hold_lock(&session_files(&home.sessions_dir()).remove(0));
                let mut args = vec!["resume", "--wait", "10"];
                args.extend_from_slice(extra);
                args.extend(["busy", "next question"]);
                let child = home
                    .pincer()
                    .provider_url(&protocols::anthropic(), "http://127.0.0.1:9")
                    .args(args)
                    .spawn();
                Held {
                    child,
                    spawned: Instant::now(),
                    _keep: vec![Box::new(lock)],
                    reached: always(),
                    turn_started: false,
                }
            },
        },
        Phase {
            name: "connecting to a server that never answers",
            start: |home, extra| {
                let (url, accepted) = silent_server();
                let mut args = vec!["run"];
                args.extend_from_slice(extra);
                args.push("hello");
                let child = home
                    .pincer()
                    .provider_url(&protocols::anthropic(), &url)
                    .args(args)
                    .spawn();
                Held {
                    child,
                    spawned: Instant::now(),
                    _keep: Vec::new(),
                    reached: Box::new(move || accepted.load(Ordering::SeqCst) == 1),
                    turn_started: true,
                }
            },
        },
        Phase {
            name: "streaming",
            start: |home, extra| {
                let server = MockServer::start(vec![stalled_after_text()]);
                let mut args = vec!["run"];
                args.extend_from_slice(extra);
                args.push("hello");
                let child = home
                    .pincer()
                    .provider(&protocols::anthropic(), &server)
                    .args(args)
                    .spawn();
                Held {
                    child,
                    spawned: Instant::now(),
                    _keep: vec![Box::new(server)],
                    reached: always(),
                    turn_started: true,
                }
            },
        },
        Phase {
            name: "running a tool",
            start: |home, extra| {
                let command = json!({"command": "echo started > started.txt; sleep 30"});
                let server = MockServer::start(vec![
                    Reply::sse(&wire::tool_use_stream(
                        None,
                        &[("toolu_sleep", "exec", &command.to_string())],
                        usage(100),
                    )),
                    text("never sent", 100),
                ]);
                let mut args = vec!["run"];
                args.extend_from_slice(extra);
                args.push("sleep a while");
                let child = home
                    .pincer()
                    .provider(&protocols::anthropic(), &server)
                    .args(args)
                    .spawn();
                let started = home.workspace.join("started.txt");
                Held {
                    child,
                    spawned: Instant::now(),
                    _keep: vec![Box::new(server)],
                    reached: Box::new(move || started.exists()),
                    turn_started: true,
                }
            },
        },
        Phase {
            name: "compacting",
            start: |home, extra| {
                seed(home);
                let server = Arc::new(MockServer::start(vec![
                    // 2,900 of a 3,000-token window: compaction follows the answer.
                    text("second answer", 2_890),
                    Reply::sse_pieces(vec![Piece::Stall(Duration::from_secs(30))]),
                ]));
                let mut args = vec![
                    "-c",
                    "providers.anthropic.models.claude-sonnet-4-5.context_window=3000",
                    "-c",
                    "compaction.keep_recent_tokens=5",
                    "resume",
                ];
                args.extend_from_slice(extra);
                args.extend(["busy", "second question"]);
                let child = home
                    .pincer()
                    .provider(&protocols::anthropic(), &server)
                    .args(args)
                    .spawn();
                let seen = Arc::clone(&server);
                Held {
                    child,
                    spawned: Instant::now(),
                    _keep: vec![Box::new(server)],
                    reached: Box::new(move || seen.requests().len() == 2),
                    turn_started: true,
                }
            },
        },
    ]
}

/// How a case ends the run.
#[derive(Debug, Clone, Copy)]
enum Stop {
    Signal(Signal),
    Timeout,
}

impl Stop {
    fn exit(self) -> i32 {
        match self {
            Stop::Signal(Signal::SIGINT) => 130,
            Stop::Signal(_) => 143,
            Stop::Timeout => 124,
        }
    }

    fn subtype(self) -> &'static str {
        match self {
            Stop::Signal(_) => "error_interrupted",
            Stop::Timeout => "error_timeout",
        }
    }

    fn kind(self) -> &'static str {
        match self {
            Stop::Signal(_) => "interrupted",
            Stop::Timeout => "timeout",
        }
    }
}

/// Wait for `child` to exit, at most `limit`; kill it after that. Returns its exit code (None
/// when it was killed by a signal or had to be killed) and the output.
fn wait(mut child: Child, limit: Duration) -> (Option<i32>, String, String, bool) {
    let deadline = Instant::now() + limit;
    let mut hung = false;
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if Instant::now() > deadline {
            hung = true;
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
        hung,
    )
}

/// The phase's run in `format`, ended by `stop`: every failed expectation, as text.
fn check(phase: &Phase, stop: Stop, format: &str) -> Vec<String> {
    let context = format!("{} / {stop:?} / {format}", phase.name);
    let mut failures = Vec::new();
    let mut expect = |ok: bool, message: String| {
        if !ok {
            failures.push(format!("{context}: {message}"));
        }
    };
    let home = Home::new();
    let timeout = TIMEOUT.to_string();
    let mut extra = vec!["--output-format", format];
    if let Stop::Timeout = stop {
        extra.extend(["--timeout", timeout.as_str()]);
    }
    let held = (phase.start)(&home, &extra);
    let pid = nix::unistd::Pid::from_raw(i32::try_from(held.child.id()).unwrap());
    let ended_by = match stop {
        Stop::Signal(signal) => {
            // Well inside the phase, and far from any of its own limits.
            let give_up = held.spawned + HANG / 2;
            while !(held.reached)() && Instant::now() < give_up {
                std::thread::sleep(Duration::from_millis(20));
            }
            std::thread::sleep(Duration::from_millis(200));
            if let Some(rest) = (held.spawned + SETTLE).checked_duration_since(Instant::now()) {
                std::thread::sleep(rest);
            }
            let sent = Instant::now();
            nix::sys::signal::kill(pid, signal).unwrap();
            sent + SLACK
        }
        Stop::Timeout => held.spawned + Duration::from_secs_f64(TIMEOUT) + SLACK,
    };
    let (exit, out, err, hung) = wait(held.child, HANG);
    let ended = Instant::now();
    expect(!hung, format!("still running after {HANG:?}"));
    expect(
        ended <= ended_by,
        format!(
            "ended {:?} late",
            ended.saturating_duration_since(ended_by - SLACK)
        ),
    );
    expect(
        exit == Some(stop.exit()),
        format!("exit {exit:?}, expected {}: {err}", stop.exit()),
    );
    expect(
        (held.reached)(),
        "the run never reached the phase".to_owned(),
    );
    let lines: Vec<&str> = out.lines().collect();
    let result: Value = lines
        .last()
        .and_then(|line| serde_json::from_str(line).ok())
        .unwrap_or(Value::Null);
    if format == "json" {
        expect(lines.len() == 1, format!("stdout is not one line: {out:?}"));
    } else {
        let parsed = lines
            .iter()
            .all(|line| serde_json::from_str::<Value>(line).is_ok());
        expect(parsed, format!("stdout is not JSON lines: {out:?}"));
    }
    expect(
        result["type"] == "result"
            && result["subtype"] == stop.subtype()
            && result["is_error"] == true
            && result["error"]["kind"] == stop.kind(),
        format!("result: {result}"),
    );
    // The session, when there is one, still loads; a started turn is recorded as aborted.
    for file in session_files(&home.sessions_dir()) {
        let entries = check_session(&file, false).entries;
        let output = home
            .pincer()
            .provider_url(&protocols::anthropic(), "http://127.0.0.1:9")
            .args(["sessions", "show", file.to_str().unwrap()])
            .output();
        expect(
            output.status.code() == Some(0),
            format!("sessions show: {}", stderr(&output)),
        );
        let last = entries
            .iter()
            .rev()
            .find(|entry| entry["type"] == "message")
            .map(|entry| entry["message"].clone())
            .unwrap_or(Value::Null);
        if held.turn_started {
            expect(
                last["role"] == "assistant" && last["stopReason"] == "aborted",
                format!("the last message is not an aborted one: {last}"),
            );
        }
        expect(
            !entries.iter().any(|entry| entry["type"] == "compaction"),
            "an interrupted compaction was written".to_owned(),
        );
    }
    failures
}

/// Every phase in both JSON modes, a few cases at a time.
fn check_all(stop: Stop) {
    let phases = phases();
    let cases: Vec<(&Phase, &str)> = phases
        .iter()
        .flat_map(|phase| ["json", "stream-json"].map(|format| (phase, format)))
        .collect();
    let mut failures = Vec::new();
    for chunk in cases.chunks(PARALLEL) {
        std::thread::scope(|scope| {
            let running: Vec<_> = chunk
                .iter()
                .map(|&(phase, format)| scope.spawn(move || check(phase, stop, format)))
                .collect();
            for case in running {
                failures.extend(case.join().unwrap());
            }
        });
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn sigterm_in_every_phase_exits_143_with_a_result_and_a_loadable_session() {
    check_all(Stop::Signal(Signal::SIGTERM));
}

#[test]
fn sigint_in_every_phase_exits_130_with_a_result_and_a_loadable_session() {
    check_all(Stop::Signal(Signal::SIGINT));
}

#[test]
fn the_timeout_counts_from_the_start_and_ends_every_phase_with_124_and_a_result() {
    check_all(Stop::Timeout);
}

#[test]
fn a_timeout_that_fires_anywhere_before_the_first_answer_ends_with_124_and_a_result() {
    // Tiny timeouts land in whichever early phase the run is in: settings, stdin, the index,
    // creating the session, connecting.
    for timeout in ["0.001", "0.02", "0.05", "0.1", "0.2", "0.4"] {
        let home = Home::new();
        let server = MockServer::start(vec![
            text("slow answer", 100).paced(Duration::from_millis(500)),
        ]);
        let started = Instant::now();
        let output = home
            .pincer()
            .provider(&protocols::anthropic(), &server)
            .args([
                "run",
                "--name",
                "early",
                "--timeout",
                timeout,
                "--json",
                "hello",
            ])
            .output();
        let limit = Duration::from_secs_f64(timeout.parse().unwrap()) + SLACK;
        assert!(
            started.elapsed() <= limit,
            "{timeout}: took {:?}",
            started.elapsed()
        );
        assert_eq!(
            output.status.code(),
            Some(124),
            "{timeout}: {}",
            stderr(&output)
        );
        let result: Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|error| panic!("{timeout}: {error}"));
        assert_eq!(result["subtype"], "error_timeout", "{timeout}");
        assert_eq!(result["error"]["kind"], "timeout", "{timeout}");
        for file in session_files(&home.sessions_dir()) {
            let entries = check_session(&file, false).entries;
            let messages: Vec<&Value> = entries
                .iter()
                .filter(|entry| entry["type"] == "message")
                .map(|entry| &entry["message"])
                .collect();
            if let Some(last) = messages.last() {
                assert_eq!(last["stopReason"], "aborted", "{timeout}: {last}");
            }
        }
    }
}
