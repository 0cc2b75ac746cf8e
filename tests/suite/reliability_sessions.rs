//! The session store under stress (SPEC §3.2, §5.3, §5.4, §12.2): `sessions prune` racing a
//! resume, and lines the reader refuses that `sessions repair` must fix.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::common::mock::{MockServer, Reply};
use crate::common::protocols::{self, Protocol};
use crate::common::{Home, SessionBuilder, code, hold_lock, stderr, stdout};

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
    let lock_file = PathBuf::from(format!("{}.lock", resumed.display()));
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
