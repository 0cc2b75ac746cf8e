//! Progress on stderr (SPEC §3, §3.1): the spinner and tool lines on a terminal (a real
//! pseudo-terminal), tool lines with `-v` when stderr is piped, nothing with `-q`, and stdout
//! untouched by any of it.

use std::io::Read as _;
use std::os::fd::OwnedFd;
use std::process::Stdio;
use std::time::Duration;

use pretty_assertions::assert_eq;
use serde_json::json;

use crate::common::mock::{MockServer, Reply};
use crate::common::protocols;
use crate::common::wire::anthropic::{self as wire, Usage4};
use crate::common::{Home, Pincer, code, stderr, stdout};

fn usage() -> Usage4 {
    Usage4 {
        input: 40,
        output: 9,
        cache_read: 0,
        cache_write: 0,
    }
}

/// A tool turn: optional text and an `exec` of `command`, then the answer, each event `pace`
/// apart.
fn tool_turn(text: Option<&str>, command: &str, pace: Duration) -> Vec<Reply> {
    let arguments = json!({"command": command}).to_string();
    vec![
        Reply::sse(&wire::tool_use_stream(
            text,
            &[("toolu_01", "exec", &arguments)],
            usage(),
        ))
        .paced(pace),
        Reply::sse(&wire::text_stream(&["It says ", "alpha."], usage())).paced(pace),
    ]
}

#[test]
fn with_v_and_stderr_piped_tool_lines_go_to_stderr_and_stdout_is_unchanged() {
    let home = Home::new();
    let plain = MockServer::start(tool_turn(None, "echo hi", Duration::ZERO));
    let quiet = home
        .pincer()
        .provider(&protocols::anthropic(), &plain)
        .args(["run", "go"])
        .output();
    assert_eq!(code(&quiet), 0, "{}", stderr(&quiet));
    assert!(!stderr(&quiet).contains("tool "), "{}", stderr(&quiet));
    for verbose in ["-v", "-vv"] {
        let server = MockServer::start(tool_turn(None, "echo hi", Duration::ZERO));
        let output = home
            .pincer()
            .provider(&protocols::anthropic(), &server)
            .args([verbose, "run", "go"])
            .output();
        assert_eq!(code(&output), 0, "{}", stderr(&output));
        assert_eq!(
            output.stdout, quiet.stdout,
            "{verbose}: stdout is the same bytes"
        );
        let log = stderr(&output);
        let line = log
            .lines()
            .find(|line| line.starts_with("tool exec echo hi: ok ("))
            .unwrap_or_else(|| panic!("{verbose}: no tool line in {log:?}"));
        assert!(line.ends_with(" ms)"), "{line}");
        // Never a spinner when stderr is not a terminal.
        assert!(!log.contains('\r') && !log.contains('\x1b'), "{log:?}");
    }
    // A failing tool says so.
    let server = MockServer::start(tool_turn(None, "exit 3", Duration::ZERO));
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["-v", "run", "go"])
        .output();
    assert!(
        stderr(&output).contains("tool exec exit 3: error ("),
        "{}",
        stderr(&output)
    );
}

#[test]
fn with_q_a_successful_tool_turn_writes_nothing_to_stderr() {
    let home = Home::new();
    for format in ["text", "json", "stream-json"] {
        let server = MockServer::start(tool_turn(None, "echo hi", Duration::ZERO));
        let output = home
            .pincer()
            .provider(&protocols::anthropic(), &server)
            .args(["-q", "--output-format", format, "run", "go"])
            .output();
        assert_eq!(code(&output), 0, "{format}");
        assert_eq!(stderr(&output), "", "{format}");
        assert!(!stdout(&output).is_empty(), "{format}");
    }
}

/// Run pincer with stderr (and, with `shared`, stdout too) on a pseudo-terminal; returns what
/// the terminal received and, when stdout was piped, stdout.
fn on_terminal(command: Pincer, args: &[&str], shared: bool) -> (String, Option<String>, i32) {
    let winsize = nix::pty::Winsize {
        ws_row: 24,
        ws_col: 120,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    let pty = nix::pty::openpty(&winsize, None).unwrap();
    // indicatif draws nothing without a `TERM` (the harness clears the environment).
    let mut command = command.env("TERM", "xterm-256color").args(args).command();
    let slave: OwnedFd = pty.slave;
    command.stderr(Stdio::from(slave.try_clone().unwrap()));
    if shared {
        command.stdout(Stdio::from(slave.try_clone().unwrap()));
    } else {
        command.stdout(Stdio::piped());
    }
    let mut child = command.spawn().unwrap();
    drop(command);
    drop(slave);
    let mut master = std::fs::File::from(pty.master);
    let reader = std::thread::spawn(move || {
        let mut seen = Vec::new();
        let mut buffer = [0u8; 4096];
        // EIO once every copy of the slave side is closed, i.e. the child is gone.
        while let Ok(count) = master.read(&mut buffer) {
            if count == 0 {
                break;
            }
            seen.extend_from_slice(&buffer[..count]);
        }
        seen
    });
    let piped = child.stdout.take().map(|mut stdout| {
        let mut text = String::new();
        stdout.read_to_string(&mut text).unwrap();
        text
    });
    let status = child.wait().unwrap();
    let seen = reader.join().unwrap();
    (
        String::from_utf8_lossy(&seen).into_owned(),
        piped,
        status.code().unwrap_or(-1),
    )
}

#[test]
fn on_a_terminal_a_spinner_shows_the_phase_and_each_finished_tool_gets_a_line() {
    let home = Home::new();
    let server = MockServer::start(tool_turn(None, "sleep 0.5", Duration::from_millis(120)));
    let (terminal, piped, status) = on_terminal(
        home.pincer().provider(&protocols::anthropic(), &server),
        &["run", "go"],
        false,
    );
    assert_eq!(status, 0, "{terminal}");
    assert_eq!(piped.as_deref(), Some("It says alpha.\n"));
    for expected in [
        "session: ",
        "connecting to anthropic/claude-sonnet-4-5",
        "tool exec sleep 0.5",
        "streaming",
        "tool exec sleep 0.5: ok (",
    ] {
        assert!(terminal.contains(expected), "{expected:?} in {terminal:?}");
    }
    // The spinner is taken down at the end: the last thing drawn leaves its line empty.
    assert!(terminal.contains('\x1b'), "{terminal:?}");

    // -q: not a byte on the terminal.
    let server = MockServer::start(tool_turn(None, "sleep 0.2", Duration::from_millis(50)));
    let (terminal, piped, status) = on_terminal(
        home.pincer().provider(&protocols::anthropic(), &server),
        &["-q", "run", "go"],
        false,
    );
    assert_eq!(status, 0);
    assert_eq!(terminal, "");
    assert_eq!(piped.as_deref(), Some("It says alpha.\n"));
}

#[test]
fn on_a_shared_terminal_the_spinner_never_draws_over_streamed_text() {
    let home = Home::new();
    let server = MockServer::start(tool_turn(
        Some("Let me check the file first."),
        "sleep 0.4",
        Duration::from_millis(150),
    ));
    let (terminal, _, status) = on_terminal(
        home.pincer().provider(&protocols::anthropic(), &server),
        &["run", "go"],
        true,
    );
    assert_eq!(status, 0, "{terminal}");
    // The spinner was there (before the text, and for the tool)…
    assert!(terminal.contains("connecting to"), "{terminal:?}");
    assert!(terminal.contains("tool exec sleep 0.4"), "{terminal:?}");
    // …but never inside a line of the answer: each streamed piece arrived 150 ms apart, long
    // enough for several spinner ticks, and still the text is contiguous.
    assert!(
        terminal.contains("Let me check the file first."),
        "{terminal:?}"
    );
    assert!(terminal.contains("It says alpha."), "{terminal:?}");
    // The text before the tool call stays on its line: what follows it is a newline, not a
    // spinner frame drawn over it.
    let after = terminal
        .split("Let me check the file first.")
        .nth(1)
        .unwrap();
    assert!(after.starts_with("\r\n"), "{after:?}");
    let answer = terminal.split("It says alpha.").nth(1).unwrap();
    assert!(answer.starts_with("\r\n"), "{answer:?}");
}

/// Terminal control sequences a model or a tool could slip into text pincer shows: OSC 52 (set
/// the clipboard), erase the screen, and a C1 CSI.
const HOSTILE: &str = "\x1b]52;c;cGluY2Vy\x07 \x1b[2J \u{9b}31m";

/// Raw bytes of [`HOSTILE`]'s sequences (any one of them on the terminal is the attack).
fn hostile_bytes(seen: &str) -> Vec<&'static str> {
    ["\x1b]52", "\x07", "\x1b[2J", "\u{9b}"]
        .into_iter()
        .filter(|raw| seen.contains(raw))
        .collect()
}

/// A turn whose tool call names and arguments and whose answer carry [`HOSTILE`].
fn hostile_turn() -> Vec<Reply> {
    let command = json!({"command": format!("echo '{HOSTILE}'")}).to_string();
    let tool = format!("evil{HOSTILE}");
    vec![
        Reply::sse(&wire::tool_use_stream(
            None,
            &[
                ("toolu_01", "exec", &command),
                ("toolu_02", &tool, &json!({"path": HOSTILE}).to_string()),
            ],
            usage(),
        ))
        .paced(Duration::from_millis(60)),
        Reply::sse(&wire::text_stream(&["Done ", HOSTILE, " end."], usage())),
    ]
}

#[test]
fn model_text_on_a_terminal_never_reaches_it_as_control_sequences_and_piped_stdout_stays_exact() {
    let home = Home::new();
    let server = MockServer::start(hostile_turn());
    let (terminal, piped, status) = on_terminal(
        home.pincer().provider(&protocols::anthropic(), &server),
        &["-v", "run", "go"],
        false,
    );
    assert_eq!(status, 0, "{terminal:?}");
    // The tool lines were drawn, with the model's sequences in a visible form.
    assert!(terminal.contains("tool exec echo"), "{terminal:?}");
    assert!(
        terminal.contains("\\u001b]52;c;cGluY2Vy\\u0007"),
        "{terminal:?}"
    );
    assert_eq!(hostile_bytes(&terminal), Vec::<&str>::new(), "{terminal:?}");
    // stdout is a pipe: the answer's bytes exactly as the model sent them.
    assert_eq!(piped.unwrap(), format!("Done {HOSTILE} end.\n"));

    // stdout on the terminal too: the answer is made safe there as well.
    let server = MockServer::start(hostile_turn());
    let (terminal, _, status) = on_terminal(
        home.pincer().provider(&protocols::anthropic(), &server),
        &["run", "go"],
        true,
    );
    assert_eq!(status, 0, "{terminal:?}");
    assert!(
        terminal.contains("Done \\u001b]52;c;cGluY2Vy\\u0007 \\u001b[2J \\u009b31m end."),
        "{terminal:?}"
    );
    assert_eq!(hostile_bytes(&terminal), Vec::<&str>::new(), "{terminal:?}");

    // JSON on a terminal stays JSON: C1 characters, which JSON leaves raw, become `\u` escapes.
    let server = MockServer::start(hostile_turn());
    let (terminal, _, status) = on_terminal(
        home.pincer().provider(&protocols::anthropic(), &server),
        &["--output-format", "stream-json", "run", "go"],
        true,
    );
    assert_eq!(status, 0, "{terminal:?}");
    assert_eq!(hostile_bytes(&terminal), Vec::<&str>::new(), "{terminal:?}");
    let result = terminal
        .lines()
        .rev()
        .find(|line| line.starts_with("{\"type\":\"result\""))
        .unwrap();
    let result: serde_json::Value = serde_json::from_str(result.trim_end()).unwrap();
    assert_eq!(result["result"], format!("Done {HOSTILE} end."));
}

#[test]
fn a_provider_error_message_reaches_stderr_with_its_control_characters_escaped() {
    let home = Home::new();
    let server = MockServer::start(vec![Reply::json(
        400,
        &json!({"type": "error", "error": {"type": "invalid_request_error", "message": HOSTILE}}),
    )]);
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["--color", "always", "run", "go"])
        .output();
    assert_ne!(code(&output), 0);
    let log = stderr(&output);
    assert!(log.contains("\\u001b]52;c;cGluY2Vy\\u0007"), "{log:?}");
    assert_eq!(hostile_bytes(&log), Vec::<&str>::new(), "{log:?}");
    // pincer's own styling stays.
    assert!(log.starts_with("\x1b[1;31merror:\x1b[0m "), "{log:?}");
}
