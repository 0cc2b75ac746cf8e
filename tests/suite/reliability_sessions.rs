//! The session store under stress (SPEC §3.2, §5.3, §5.4, §12.2): `sessions prune` racing a
//! resume, a full disk, and lines the reader refuses that `sessions repair` must fix.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::common::mock::{MockServer, Reply};
use crate::common::protocols::{self, Protocol};
use crate::common::{Home, Pincer, SessionBuilder, code, hold_lock, skip, stderr, stdout};

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
