//! The session store under stress (SPEC §3.2, §5.3, §5.4, §12.2): `sessions prune` racing a
//! resume, a full disk, lines the reader refuses that `sessions repair` must fix, and `compact`
//! and the turn commands ending every failure — a busy or unknown session, a full disk, a
//! read-only home, too few file descriptors — with their result object, never a panic.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use pincer::output::schema::RunResult;

use crate::common::mock::{MockServer, Reply};
use crate::common::protocols::{self, Protocol};
use crate::common::schema::printed;
use crate::common::{
    Home, Pincer, SessionBuilder, code, hold_lock, session_lock_file, skip, stderr, stdout,
};

const OLD_A: &str = "019ad3c1-0000-7000-8000-0000000000a1";
const OLD_B: &str = "019ad3c1-0000-7000-8000-0000000000b2";

fn anthropic() -> Protocol {
    protocols::anthropic()
}

/// The time now, as session entries write it.
fn now_iso() -> String {
    time::OffsetDateTime::now_utc()
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap()
}

/// A session of one exchange on `anthropic/claude-sonnet-4-5`, created at `created`.
fn old_session(home: &Home, id: &str, created: &str) -> PathBuf {
    let mut session = SessionBuilder::new(id, &home.workspace).created(created);
    session.entry(
        "model_change",
        json!({"provider": "anthropic", "modelId": "claude-sonnet-4-5"}),
    );
    session.user("an old question");
    session.assistant("an old answer", [10, 20, 0, 0]);
    home.write_session(&session)
}

fn file_name(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

fn names(paths: &Value) -> Vec<String> {
    let mut names: Vec<String> = paths
        .as_array()
        .unwrap()
        .iter()
        .map(|path| file_name(Path::new(path.as_str().unwrap())))
        .collect();
    names.sort();
    names
}

/// Whether process `pid` has `path` open.
fn has_open(pid: u32, path: &Path) -> bool {
    std::fs::read_dir(format!("/proc/{pid}/fd")).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|entry| std::fs::read_link(entry.path()).is_ok_and(|target| target == path))
    })
}

fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !done() {
        assert!(Instant::now() < deadline, "timed out: {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

// ------------------------------------------------------------------------ prune against resume

#[test]
fn prune_keeps_a_session_that_a_resume_wrote_to_while_prune_waited_for_its_lock() {
    let home = Home::new();
    let resumed = old_session(&home, OLD_A, "2020-01-01T00:00:00.000Z");
    let untouched = old_session(&home, OLD_B, "2020-01-02T00:00:00.000Z");
    // A run holds the old session: prune picks it from the index, then waits for its lock.
    let lock = hold_lock(&resumed);
    let prune = home
        .pincer()
        .args(["sessions", "prune", "--older-than", "30d", "--json"])
        .args(["--wait", "60"])
        .spawn();
    let lock_file = session_lock_file(&resumed);
    wait_for("prune waits for the resumed session's lock", || {
        has_open(prune.id(), &lock_file)
    });
    // Meanwhile the run writes a new turn, as a resume does, and lets go.
    let fresh = format!(
        "{{\"type\":\"message\",\"id\":\"c0000001\",\"parentId\":\"a0000003\",\"timestamp\":\"{}\",\"message\":{{\"role\":\"user\",\"content\":\"a new question\",\"timestamp\":1}}}}\n",
        now_iso()
    );
    let mut text = std::fs::read_to_string(&resumed).unwrap();
    text.push_str(&fresh);
    std::fs::write(&resumed, &text).unwrap();
    drop(lock);

    let output = prune.wait_with_output().unwrap();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(resumed.exists(), "prune deleted a session resumed under it");
    assert_eq!(std::fs::read_to_string(&resumed).unwrap(), text);
    assert!(!untouched.exists(), "the other old session is pruned");
    let report: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(names(&report["removed"]), [file_name(&untouched)]);
    assert_eq!(names(&report["skipped"]), Vec::<String>::new());
}

// -------------------------------------------------------------------------------- a full disk

/// Whether this machine lets the tests mount a tmpfs in a private mount namespace
/// (`unshare -rm`, user namespaces; or as root).
fn private_tmpfs_available(home: &Home) -> bool {
    let probe = home.root.path().join("probe");
    std::fs::create_dir_all(&probe).unwrap();
    std::process::Command::new("unshare")
        .args(["-rm", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs \"$0\""])
        .arg(&probe)
        .output()
        .is_ok_and(|output| output.status.success())
}

/// `command` with its `PINCER_HOME` on a tmpfs of its own (in a private mount namespace) that
/// holds a copy of the home as it is now and is full but for `free_kib` KiB. What is left in
/// its sessions directory afterwards is listed into `listing`.
fn on_full_disk(command: Pincer, free_kib: u64, listing: &Path) -> Pincer {
    let script = format!(
        r#"set -e
stage=$(mktemp -d)
cp -a "$PINCER_HOME/." "$stage/"
mount -t tmpfs -o size=1m tmpfs "$PINCER_HOME" || exit 97
cp -a "$stage/." "$PINCER_HOME/"
head -c {spare} /dev/zero > "$PINCER_HOME/spare"
cat /dev/zero > "$PINCER_HOME/filler" 2>/dev/null || true
rm -f "$PINCER_HOME/spare"
set +e
"$0" "$@"
code=$?
ls -a "$PINCER_HOME/sessions" > "{listing}"
exit $code"#,
        spare = free_kib * 1024,
        listing = listing.display(),
    );
    command.inside("unshare", ["-rm", "sh", "-c", &script])
}

#[test]
fn on_a_full_disk_sessions_can_be_read_and_prune_frees_space() {
    let home = Home::new();
    if !private_tmpfs_available(&home) {
        skip(
            "on_a_full_disk_sessions_can_be_read_and_prune_frees_space",
            "cannot mount a tmpfs in a private mount namespace",
        );
        return;
    }
    let old: Vec<PathBuf> = (1..=4)
        .map(|n| {
            old_session(
                &home,
                &format!("019ad3c1-0000-7000-8000-00000000010{n}"),
                &format!("2020-01-0{n}T00:00:00.000Z"),
            )
        })
        .collect();
    // Enough recent sessions that the index outgrows a few free KiB; no index yet, so every
    // command wants to write one.
    let recent: Vec<PathBuf> = (10..22)
        .map(|n| {
            let id = format!("019ad3c1-0000-7000-8000-0000000002{n}");
            let path = old_session(&home, &id, "2020-02-01T00:00:00.000Z");
            let mut text = std::fs::read_to_string(&path).unwrap();
            text.push_str(&format!(
                "{{\"type\":\"session_info\",\"id\":\"c0000001\",\"parentId\":\"a0000003\",\"timestamp\":\"{}\",\"name\":\"recent-{n}\"}}\n",
                now_iso()
            ));
            std::fs::write(&path, text).unwrap();
            path
        })
        .collect();
    let listing = home.root.path().join("listing");
    let recent_id = "019ad3c1-0000-7000-8000-000000000210";
    for free_kib in [0, 4, 8] {
        for args in [
            &["sessions", "list", "--json"][..],
            &["sessions", "list"][..],
            &["sessions", "show", recent_id],
            &["sessions", "path", recent_id],
            &["sessions", "prune", "--older-than", "30d", "--dry-run"],
            &["status", recent_id, "--json"],
            &["status", recent_id],
        ] {
            let output = on_full_disk(home.pincer().args(args), free_kib, &listing).output();
            assert_eq!(
                code(&output),
                0,
                "{args:?} with {free_kib} KiB free: {}",
                stderr(&output)
            );
            assert!(!stdout(&output).is_empty(), "{args:?}");
        }
    }
    let output = on_full_disk(
        home.pincer()
            .args(["sessions", "prune", "--older-than", "30d", "--json"]),
        0,
        &listing,
    )
    .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let report: Value = serde_json::from_str(&stdout(&output)).unwrap();
    let mut expected: Vec<String> = old.iter().map(|path| file_name(path)).collect();
    expected.sort();
    assert_eq!(names(&report["removed"]), expected, "{}", stderr(&output));
    assert_eq!(names(&report["skipped"]), Vec::<String>::new());
    let left = std::fs::read_to_string(&listing).unwrap();
    for path in &old {
        assert!(!left.contains(&file_name(path)), "{left}");
    }
    for path in &recent {
        assert!(left.contains(&file_name(path)), "{left}");
    }
}

// --------------------------------------------------------------------- lines the reader refuses

const REFUSED: &str = "019ad3c1-0000-7000-8000-0000000000c3";

/// Lines that are JSON objects but no record the reader accepts, and where they go.
const BAD_RECORDS: [(&str, usize, &str); 8] = [
    (
        "a message whose content is a number",
        3,
        r#"{"type":"message","id":"b0000001","parentId":"a0000001","timestamp":"2026-11-30T10:00:01.500Z","message":{"role":"user","content":5,"timestamp":1}}"#,
    ),
    (
        "an entry without a type",
        3,
        r#"{"id":"b0000001","parentId":"a0000001","timestamp":"2026-11-30T10:00:01.500Z"}"#,
    ),
    (
        "a model change whose provider is a number",
        3,
        r#"{"type":"model_change","id":"b0000001","parentId":"a0000001","timestamp":"2026-11-30T10:00:01.500Z","provider":7,"modelId":"x"}"#,
    ),
    (
        "an entry whose id is a number",
        3,
        r#"{"type":"label","id":12,"parentId":"a0000001","timestamp":"2026-11-30T10:00:01.500Z","targetId":"a0000001","label":"x"}"#,
    ),
    (
        "a second session header",
        3,
        r#"{"type":"session","version":3,"id":"019ad3c1-0000-7000-8000-0000000000c3","timestamp":"2026-11-30T10:00:00.000Z","cwd":"/"}"#,
    ),
    (
        "an assistant message with an unknown stop reason, last",
        0,
        r#"{"type":"message","id":"b0000001","parentId":"a0000003","timestamp":"2026-11-30T10:00:09.000Z","message":{"role":"assistant","content":[{"type":"text","text":"x"}],"api":"anthropic-messages","provider":"anthropic","model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"sleepy","timestamp":9}}"#,
    ),
    (
        "a thinking level change whose level is an object",
        3,
        r#"{"type":"thinking_level_change","id":"b0000001","parentId":"a0000001","timestamp":"2026-11-30T10:00:01.500Z","thinkingLevel":{"high":true}}"#,
    ),
    (
        "a header without a timestamp",
        1,
        r#"{"type":"session","version":3,"id":"019ad3c1-0000-7000-8000-0000000000c3","cwd":"/"}"#,
    ),
];

/// The session `REFUSED` with `line` at line `at` (1 replaces the header; 0 appends it).
fn session_with(home: &Home, at: usize, line: &str) -> PathBuf {
    let path = old_session(home, REFUSED, "2026-11-30T10:00:00.000Z");
    let mut lines: Vec<String> = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    match at {
        0 => lines.push(line.to_owned()),
        1 => lines[0] = line.to_owned(),
        at => lines.insert(at - 1, line.to_owned()),
    }
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

#[test]
fn whatever_line_resume_refuses_repair_sets_aside_and_the_session_resumes() {
    for (case, at, line) in BAD_RECORDS {
        let home = Home::new();
        let path = session_with(&home, at, line);
        let number = if at == 0 { 5 } else { at };
        let server = MockServer::start(vec![Reply::sse(&(anthropic().text)(&["resumed"]))]);
        let resume = || {
            home.pincer()
                .provider(&anthropic(), &server)
                .args(["resume", REFUSED, "go on"])
                .output()
        };
        let damaged = std::fs::read(&path).unwrap();
        let refused = resume();
        let error = stderr(&refused);
        assert_eq!(code(&refused), 2, "{case}: {error}");
        assert!(
            error.contains(&format!("corrupt at line {number}")),
            "{case}: {error}"
        );
        assert!(error.contains("pincer sessions repair"), "{case}: {error}");

        let dry = home.run(&["sessions", "repair", REFUSED, "--dry-run", "--json"]);
        assert_eq!(code(&dry), 0, "{case}: {}", stderr(&dry));
        let report: Value = serde_json::from_str(&stdout(&dry)).unwrap();
        assert_eq!(report["clean"], false, "{case}: {report}");
        assert_eq!(report["dropped_lines"], json!([number]), "{case}: {report}");
        assert_eq!(std::fs::read(&path).unwrap(), damaged, "{case}: dry run");

        let repair = home.run(&["sessions", "repair", REFUSED]);
        assert_eq!(code(&repair), 0, "{case}: {}", stderr(&repair));
        assert!(
            stdout(&repair).contains(&format!("corrupt line(s) {number}")),
            "{case}: {}",
            stdout(&repair)
        );
        let side: Vec<PathBuf> = std::fs::read_dir(home.sessions_dir())
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.to_string_lossy().contains(".corrupt-"))
            .collect();
        assert_eq!(side.len(), 1, "{case}");
        assert_eq!(
            std::fs::read_to_string(&side[0]).unwrap(),
            format!("{line}\n"),
            "{case}: the line is kept aside"
        );
        let resumed = resume();
        assert_eq!(code(&resumed), 0, "{case}: {}", stderr(&resumed));
        assert_eq!(stdout(&resumed).trim(), "resumed", "{case}");
        let again = home.run(&["sessions", "repair", REFUSED]);
        assert_eq!(stdout(&again), "nothing to repair\n", "{case}");
    }
}

// ------------------------------------------------------------- compact: a result for every failure

const COMPACTED: &str = "019ad3c1-0000-7000-8000-0000000000d4";

/// A session of two exchanges that `compact` (with a small `keep_recent_tokens`) compacts.
fn compactable(home: &Home) -> PathBuf {
    let mut session = SessionBuilder::new(COMPACTED, &home.workspace);
    session.entry(
        "model_change",
        json!({"provider": "anthropic", "modelId": "claude-sonnet-4-5"}),
    );
    session.user(&"the first question, at some length. ".repeat(20));
    session.assistant(
        &"the first answer, at some length. ".repeat(20),
        [100, 200, 0, 0],
    );
    session.user(&"the second question, at some length. ".repeat(20));
    session.assistant(
        &"the second answer, at some length. ".repeat(20),
        [400, 200, 0, 0],
    );
    home.write_session(&session)
}

/// `compact SESSION --json` at `server`, keeping few tokens.
fn compact_command(home: &Home, server: &MockServer, session: &str) -> Pincer {
    home.pincer()
        .provider(&anthropic(), server)
        .args(["-c", "compaction.keep_recent_tokens=5"])
        .args(["compact", session, "--json"])
}

/// The one result object of a failed `compact --json`, with its exit code and error kind.
fn failed_result(output: &Output, exit: i32, kind: &str, what: &str) -> Value {
    let error = stderr(output);
    assert_eq!(code(output), exit, "{what}: {error}");
    let text = stdout(output);
    // One object, which the schema of the result takes.
    serde_json::from_str::<RunResult>(&text)
        .unwrap_or_else(|problem| panic!("{what}: {problem}\n{text}"));
    let result: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(result["type"], "result", "{what}");
    assert_eq!(result["is_error"], true, "{what}");
    assert_eq!(result["error"]["kind"], kind, "{what}: {result}");
    assert!(error.starts_with("error: "), "{what}: {error}");
    result
}

#[test]
fn compact_json_prints_its_result_object_when_the_session_is_busy_or_unknown() {
    let home = Home::new();
    let path = compactable(&home);
    let server = MockServer::start(vec![]);
    let lock = hold_lock(&path);
    let busy = compact_command(&home, &server, COMPACTED).output();
    let result = failed_result(&busy, 75, "session_busy", "busy");
    assert!(
        result["error"]["message"]
            .as_str()
            .unwrap()
            .contains("busy"),
        "{result}"
    );
    assert_eq!(result["session_id"], COMPACTED, "{result}");
    drop(lock);

    let unknown = compact_command(&home, &server, "no-such-session").output();
    failed_result(&unknown, 2, "usage", "unknown session");
    let dry = home
        .pincer()
        .args(["compact", "no-such-session", "--dry-run", "--json"])
        .output();
    failed_result(&dry, 2, "usage", "unknown session, dry run");
    let bad_config = home
        .pincer()
        .args(["-c", "compaction.keep_recent_tokens=\"many\""])
        .args(["compact", COMPACTED, "--json"])
        .output();
    failed_result(&bad_config, 2, "usage", "bad config");
    assert!(server.requests().is_empty());
}

#[test]
fn compact_json_prints_its_result_object_on_a_full_disk_and_in_a_read_only_home() {
    let home = Home::new();
    if !private_tmpfs_available(&home) {
        skip(
            "compact_json_prints_its_result_object_on_a_full_disk_and_in_a_read_only_home",
            "cannot mount a tmpfs in a private mount namespace",
        );
        return;
    }
    let path = compactable(&home);
    let before = std::fs::read(&path).unwrap();
    // A summary longer than any slack in the file's last page.
    let summary = "## Goal\nShip the parser.\n".repeat(400);
    let server = MockServer::start(vec![Reply::sse(&(anthropic().text)(&[&summary]))]);
    let listing = home.root.path().join("listing");
    let full = on_full_disk(compact_command(&home, &server, COMPACTED), 0, &listing).output();
    let result = failed_result(&full, 1, "run_failed", "full disk");
    assert!(
        result["error"]["message"]
            .as_str()
            .unwrap()
            .contains("No space left on device"),
        "{result}"
    );
    assert_eq!(result["session_id"], COMPACTED, "{result}");

    let script = r#"mount --bind "$PINCER_HOME" "$PINCER_HOME" && mount -o remount,bind,ro "$PINCER_HOME" || exit 97
exec "$0" "$@""#;
    let read_only = compact_command(&home, &server, COMPACTED)
        .inside("unshare", ["-rm", "sh", "-c", script])
        .output();
    let result = failed_result(&read_only, 2, "usage", "read-only home");
    assert!(
        result["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Read-only file system"),
        "{result}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

// ---------------------------------------------------------------------- too few file descriptors

/// `command` under `ulimit -n LIMIT`.
fn with_open_file_limit(command: Pincer, limit: u32) -> Pincer {
    let script = format!("ulimit -n {limit} && exec \"$0\" \"$@\"");
    command.inside("sh", ["-c", &script])
}

#[test]
fn a_tiny_open_file_limit_ends_every_command_with_an_error_or_success_never_a_panic() {
    let home = Home::new();
    let session = old_session(&home, OLD_A, "2026-11-30T10:00:00.000Z");
    let _ = session;
    let protocol = anthropic();
    let commands: [&[&str]; 6] = [
        &["--json", "run", "-m", protocol.model, "hello"],
        &[
            "--output-format",
            "stream-json",
            "run",
            "-m",
            protocol.model,
            "hello",
        ],
        &["--json", "resume", OLD_A, "hello"],
        &["--json", "compact", OLD_A],
        &["status", "--json"],
        &["sessions", "list", "--json"],
    ];
    for limit in 4..=24 {
        for args in commands {
            let server = MockServer::start(vec![
                Reply::sse(&(protocol.text)(&["answer"])),
                Reply::sse(&(protocol.text)(&["answer"])),
            ]);
            let output = with_open_file_limit(
                home.pincer()
                    .provider(&protocol, &server)
                    .fast_retries()
                    .args(["-c", "compaction.keep_recent_tokens=5"]),
                limit,
            )
            .args(args)
            .output();
            let error = stderr(&output);
            if code(&output) == 127 && error.contains("error while loading shared libraries") {
                // The dynamic loader gave up before pincer ran.
                continue;
            }
            let what = format!("ulimit -n {limit}: {args:?}");
            assert!(!error.contains("panicked"), "{what}: {error}");
            assert_ne!(code(&output), 101, "{what}: {error}");
            let turn = ["run", "resume", "compact"]
                .iter()
                .any(|command| args.contains(command));
            if turn && code(&output) != 0 {
                let result = result_object(&stdout(&output))
                    .unwrap_or_else(|| panic!("{what}: no result object: {error}"));
                assert_eq!(result["type"], "result", "{what}");
                assert_eq!(result["is_error"], true, "{what}");
                if result["error"]["kind"] == "local_resource" {
                    assert!(error.contains("ulimit -n"), "{what}: {error}");
                }
            }
        }
    }
}

#[test]
fn running_out_of_open_files_while_connecting_is_a_local_error_that_is_not_retried() {
    let home = Home::new();
    if !Path::new("/usr/bin/prlimit").exists() {
        skip(
            "running_out_of_open_files_while_connecting_is_a_local_error_that_is_not_retried",
            "needs prlimit(1) to lower a running process's open file limit",
        );
        return;
    }
    let protocol = anthropic();
    // The first call is answered with an overload and a request to come back in two seconds:
    // time enough to take the process's last free file descriptor away before it reconnects.
    let server = MockServer::start(vec![
        Reply::json(529, &(protocol.error_body)(529)).header("retry-after", "2"),
        Reply::sse(&(protocol.text)(&["never"])),
    ]);
    let child = home
        .pincer()
        .provider(&protocol, &server)
        .fast_retries()
        .args([
            "--output-format",
            "stream-json",
            "run",
            "-m",
            protocol.model,
            "hello",
        ])
        .spawn();
    wait_for("the first model call", || server.requests().len() == 1);
    let limited = std::process::Command::new("prlimit")
        .arg(format!("--pid={}", child.id()))
        .arg("--nofile=3:")
        .output()
        .unwrap();
    assert!(limited.status.success(), "{}", stderr(&limited));
    let output = child.wait_with_output().unwrap();
    let error = stderr(&output);
    assert_eq!(code(&output), 1, "{error}");
    printed(&stdout(&output)).unwrap_or_else(|problem| panic!("{problem}"));
    let retries = stdout(&output)
        .lines()
        .filter(|line| serde_json::from_str::<Value>(line).unwrap()["subtype"] == "api_retry")
        .count();
    assert_eq!(
        retries,
        1,
        "only the overload is retried: {}",
        stdout(&output)
    );
    let result: Value = serde_json::from_str(stdout(&output).lines().last().unwrap()).unwrap();
    assert_eq!(result["error"]["kind"], "local_resource", "{result}");
    assert_eq!(result["error"]["retryable"], false, "{result}");
    let message = result["error"]["message"].as_str().unwrap();
    assert!(message.contains("open files"), "{message}");
    assert!(message.contains("ulimit -n"), "{message}");
    assert_eq!(server.requests().len(), 1);
}

/// The result object that ends `stdout`: a pretty-printed one (`compact`) or the last line
/// (`run`, `resume`), every line of stream-json fitting the schema.
fn result_object(stdout: &str) -> Option<Value> {
    if let Ok(result) = serde_json::from_str::<RunResult>(stdout) {
        return serde_json::to_value(result).ok();
    }
    printed(stdout).ok()?;
    serde_json::from_str(stdout.lines().last()?).ok()
}
