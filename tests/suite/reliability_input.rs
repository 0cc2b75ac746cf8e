//! Bad input, table-driven (SPEC §2, §3.5, §12.2): bad flags and combinations, stdin edge cases,
//! corrupt and foreign files. Every row must end with exactly one `error:` line and a hint, the
//! documented exit code, a `result` object when `--json` was asked for and the arguments parsed,
//! and not one byte changed under the test's home and workspace.

use std::process::Output;

use pretty_assertions::assert_eq;
use serde_json::Value;

use crate::common::integrity::tree_fingerprint;
use crate::common::protocols;
use crate::common::{Home, SessionBuilder, code, stderr, stdout};

/// A key that is never sent anywhere: the base URL points at a closed port.
const KEY: &str = "sk-ant-bad-input-0000-5555";

struct Row {
    name: &'static str,
    args: &'static [&'static str],
    stdin: &'static [u8],
    /// Files to put in place first.
    setup: fn(&Home),
    exit: i32,
    /// Text the error must contain.
    says: &'static str,
    /// Whether clap accepted the arguments (then `--json` on `run`/`resume` must still print a
    /// result object).
    parsed: bool,
}

const SESSION_ID: &str = "0199a333-0000-7000-8000-000000000001";

fn nothing(_: &Home) {}

fn a_session(home: &Home) {
    let mut session = SessionBuilder::new(SESSION_ID, &home.workspace);
    session.user("hello");
    session.assistant("hi", [1, 1, 0, 0]);
    home.write_session(&session);
}

fn future_version_session(home: &Home) {
    let dir = home.sessions_dir();
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join(format!("2026-11-30T10-00-00-000Z_{SESSION_ID}.jsonl")),
        format!(
            "{{\"type\":\"session\",\"version\":9,\"id\":\"{SESSION_ID}\",\"timestamp\":\"2026-11-30T10:00:00.000Z\",\"cwd\":\"/\"}}\n{{\"type\":\"hologram\",\"id\":\"x\"}}\n"
        ),
    )
    .unwrap();
}

fn garbage_in_the_middle(home: &Home) {
    let mut session = SessionBuilder::new(SESSION_ID, &home.workspace);
    session.user("hello");
    session.assistant("hi", [1, 1, 0, 0]);
    let path = home.write_session(&session);
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.insert(2, "{\"type\":\"message\",\"id\":\"tor");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
}

fn headerless_session(home: &Home) {
    let dir = home.sessions_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let mut session = SessionBuilder::new(SESSION_ID, &home.workspace);
    session.user("hello");
    let body: String = session
        .lines
        .iter()
        .map(|line| format!("{line}\n"))
        .collect();
    std::fs::write(
        dir.join(format!("2026-11-30T10-00-00-000Z_{SESSION_ID}.jsonl")),
        body,
    )
    .unwrap();
}

fn config_with_unknown_key(home: &Home) {
    std::fs::write(
        home.home.join("config.toml"),
        "model = \"anthropic/claude-sonnet-4-5\"\nbogus_key = 1\n",
    )
    .unwrap();
}

fn config_not_toml(home: &Home) {
    std::fs::write(home.home.join("config.toml"), "model = [unclosed\n").unwrap();
}

fn auth_store_not_json(home: &Home) {
    let path = home.home.join("auth-profiles.json");
    std::fs::write(&path, "{\"version\":1,\"profiles\":{").unwrap();
    set_mode(&path, 0o600);
}

fn set_mode(path: &std::path::Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn rows() -> Vec<Row> {
    let row = |name, args, exit, says, parsed| Row {
        name,
        args,
        stdin: b"",
        setup: nothing,
        exit,
        says,
        parsed,
    };
    vec![
        row(
            "zero max turns",
            &["run", "--max-turns", "0", "hi"],
            2,
            "--max-turns",
            false,
        ),
        row(
            "non-numeric max turns",
            &["run", "--max-turns", "abc", "hi"],
            2,
            "--max-turns",
            false,
        ),
        row(
            "zero timeout",
            &["run", "--timeout", "0", "hi"],
            2,
            "--timeout",
            true,
        ),
        row(
            "negative budget",
            &["run", "--max-budget-usd", "-5", "hi"],
            2,
            "-5",
            false,
        ),
        row(
            "json and output-format together",
            &["run", "--json", "--output-format", "text", "hi"],
            2,
            "cannot be used with",
            false,
        ),
        row(
            "a session id that is not a UUID",
            &["run", "--session-id", "nope", "hi"],
            2,
            "not a UUID",
            true,
        ),
        row(
            "an unknown thinking level",
            &["run", "--thinking", "huge", "hi"],
            2,
            "huge",
            false,
        ),
        row(
            "a missing image",
            &["run", "-i", "/nonexistent.png", "hi"],
            2,
            "/nonexistent.png",
            true,
        ),
        row(
            "a missing system prompt file",
            &["run", "--system-prompt-file", "/nonexistent.md", "hi"],
            2,
            "/nonexistent.md",
            true,
        ),
        row(
            "resume without a session",
            &["resume"],
            2,
            "required arguments",
            false,
        ),
        row(
            "resume of an unknown session",
            &["resume", "nosuch", "hi"],
            2,
            "no session matches 'nosuch'",
            true,
        ),
        row(
            "resume --last with no session",
            &["resume", "--last", "hi"],
            2,
            "no session",
            true,
        ),
        row(
            "an unknown tool",
            &["run", "--tools", "nosuchtool", "hi"],
            2,
            "unknown tool",
            true,
        ),
        row(
            "an unknown provider",
            &["run", "-m", "nosuchprovider/x", "hi"],
            2,
            "unknown provider",
            true,
        ),
        row(
            "an unknown sandbox mode",
            &["run", "--sandbox", "wide", "hi"],
            2,
            "wide",
            false,
        ),
        row(
            "a bad stdin timeout",
            &["run", "--stdin-timeout", "abc", "hi"],
            2,
            "abc",
            false,
        ),
        row("an unknown flag", &["--bogus"], 2, "--bogus", false),
        row(
            "an unknown -c key",
            &["-c", "nosuchkey=1", "status"],
            2,
            "unknown key 'nosuchkey'",
            true,
        ),
        row(
            "no prompt and no stdin",
            &["run", "--no-stdin"],
            2,
            "no prompt",
            true,
        ),
        row(
            "an empty prompt argument",
            &["run", ""],
            2,
            "the prompt is empty",
            true,
        ),
        row(
            "an unknown session to show",
            &["sessions", "show", "nosuch"],
            2,
            "nosuch",
            true,
        ),
        row(
            "a missing workspace",
            &["-C", "/nonexistent-dir", "run", "hi"],
            2,
            "/nonexistent-dir",
            true,
        ),
        Row {
            stdin: b"\xff\xfe not utf-8",
            ..row(
                "stdin that is not UTF-8",
                &["run", "-"],
                2,
                "not valid UTF-8",
                true,
            )
        },
        Row {
            stdin: b"   \n\t\n",
            ..row(
                "stdin of only whitespace",
                &["run"],
                2,
                "the prompt is empty",
                true,
            )
        },
        Row {
            stdin: b"abcdefghijklmnop",
            ..row(
                "stdin over the size limit",
                &["-c", "stdin.max_bytes=4", "run"],
                2,
                "larger than 4 bytes",
                true,
            )
        },
        Row {
            setup: future_version_session,
            ..row(
                "a session of an unknown future version",
                &["resume", SESSION_ID, "hi"],
                2,
                "version",
                true,
            )
        },
        Row {
            setup: garbage_in_the_middle,
            ..row(
                "a session with a damaged middle line",
                &["resume", SESSION_ID, "hi"],
                2,
                "line 3",
                true,
            )
        },
        Row {
            setup: headerless_session,
            ..row(
                "a session file without a header",
                &["resume", SESSION_ID, "hi"],
                2,
                "",
                true,
            )
        },
        Row {
            setup: config_with_unknown_key,
            ..row(
                "a config file with an unknown key",
                &["status"],
                2,
                "unknown key 'bogus_key'",
                true,
            )
        },
        Row {
            setup: config_not_toml,
            ..row(
                "a config file that is not TOML",
                &["run", "hi"],
                2,
                "config.toml",
                true,
            )
        },
        Row {
            setup: auth_store_not_json,
            ..row(
                "an auth store that is not JSON",
                &["run", "hi"],
                2,
                "auth store",
                true,
            )
        },
        Row {
            setup: a_session,
            ..row(
                "fork at an unknown entry",
                &["sessions", "fork", SESSION_ID, "--at", "ffffffff"],
                2,
                "ffffffff",
                true,
            )
        },
    ]
}

fn invoke(home: &Home, args: &[&str], stdin: &[u8]) -> Output {
    let anthropic = protocols::anthropic();
    home.pincer()
        .provider_url(&anthropic, "http://127.0.0.1:9")
        .key(&anthropic, KEY)
        .args(args)
        .stdin(stdin.to_vec())
        .output()
}

/// The fingerprint without the session index: it is a cache that any command reading the store
/// may create or refresh (README, "Where things live"), so it is not user data.
fn without_index(mut tree: Fingerprint) -> Fingerprint {
    // The index and its build lock (in the lock directory, which the lock alone may have made)
    // are a cache, not the user's files.
    tree.retain(|path, _| {
        !path.starts_with("home/sessions/index.sqlite3")
            && !path.starts_with("home/sessions/.locks/index.sqlite3")
            && path != "home/sessions/.locks/"
    });
    tree
}

type Fingerprint = std::collections::BTreeMap<String, (u32, Vec<u8>)>;

fn check(row: &Row) -> Vec<String> {
    let mut failures = Vec::new();
    let mut fail = |message: String| failures.push(format!("{}: {message}", row.name));
    let home = Home::new();
    (row.setup)(&home);
    let before = without_index(tree_fingerprint(home.root.path()));
    let output = invoke(&home, row.args, row.stdin);
    let err = stderr(&output);
    if code(&output) != row.exit {
        fail(format!(
            "exit {}, expected {}: {err}",
            code(&output),
            row.exit
        ));
    }
    let errors: Vec<&str> = err
        .lines()
        .filter(|line| line.starts_with("error:"))
        .collect();
    if errors.len() != 1 {
        fail(format!("{} error lines: {err}", errors.len()));
    }
    if !errors.first().is_some_and(|line| line.contains(row.says)) {
        fail(format!("the error does not say {:?}: {err}", row.says));
    }
    let hinted = err.lines().any(|line| {
        line.starts_with("hint:")
            || line.contains("try '--help'")
            || line.contains("possible values")
    });
    if !hinted {
        fail(format!("no hint: {err}"));
    }
    if err.contains(KEY) || stdout(&output).contains(KEY) {
        fail("the key was printed".to_owned());
    }
    let after = without_index(tree_fingerprint(home.root.path()));
    if after != before {
        let changed: Vec<&String> = after
            .keys()
            .chain(before.keys())
            .filter(|key| after.get(*key) != before.get(*key))
            .collect();
        fail(format!("files changed on disk: {changed:?}"));
    }
    let turn_command = row.args.iter().any(|arg| matches!(*arg, "run" | "resume"));
    if row.parsed && turn_command {
        let mut args = vec!["--json"];
        args.extend_from_slice(row.args);
        let output = invoke(&home, &args, row.stdin);
        if code(&output) != row.exit {
            fail(format!("--json: exit {}", code(&output)));
        }
        match serde_json::from_str::<Value>(stdout(&output).trim()) {
            Ok(result) if result["type"] == "result" && result["is_error"] == true => {}
            _ => fail(format!("--json: no result object: {:?}", stdout(&output))),
        }
        if without_index(tree_fingerprint(home.root.path())) != before {
            fail("--json: files changed on disk".to_owned());
        }
    }
    failures
}

#[test]
fn every_bad_input_gets_one_error_with_a_hint_its_exit_code_and_changes_nothing() {
    let rows = rows();
    let failures: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = rows
            .chunks(rows.len().div_ceil(4))
            .map(|chunk| scope.spawn(move || chunk.iter().flat_map(check).collect::<Vec<String>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|handle| handle.join().unwrap())
            .collect()
    });
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn an_auth_store_readable_by_others_is_used_with_a_warning_and_left_unchanged() {
    let home = Home::new();
    let path = home.home.join("auth-profiles.json");
    std::fs::write(&path, "{\"version\":1,\"profiles\":{}}").unwrap();
    set_mode(&path, 0o644);
    let before = tree_fingerprint(home.root.path());
    let output = invoke(&home, &["auth", "list"], b"");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let err = stderr(&output);
    assert!(err.starts_with("warning:"), "{err}");
    assert!(err.contains("chmod 600"), "{err}");
    assert_eq!(tree_fingerprint(home.root.path()), before);
}

#[test]
fn a_truncated_index_is_rebuilt_and_the_sessions_are_untouched() {
    let home = Home::new();
    a_session(&home);
    let index = home.sessions_dir().join("index.sqlite3");
    let output = invoke(&home, &["sessions", "--json"], b"");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    for suffix in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(home.sessions_dir().join(format!("index.sqlite3{suffix}")));
    }
    let whole = std::fs::read(&index).unwrap();
    std::fs::write(&index, &whole[..whole.len() / 2]).unwrap();
    let before = without_index(tree_fingerprint(home.root.path()));
    let output = invoke(&home, &["sessions", "--json"], b"");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let listed: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert!(listed.to_string().contains(SESSION_ID), "{listed}");
    assert!(stderr(&output).contains("index"), "{}", stderr(&output));
    // Only the cache changed, and it reads whole again.
    assert_eq!(without_index(tree_fingerprint(home.root.path())), before);
    let output = invoke(&home, &["sessions", "--json"], b"");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(!stderr(&output).contains("index"), "{}", stderr(&output));
    assert!(stdout(&output).contains(SESSION_ID));
}
