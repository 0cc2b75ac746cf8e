//! The session store under stress (SPEC §3.2, §5.3, §5.4, §12.2): lines the reader refuses
//! that `sessions repair` must fix.

use std::path::PathBuf;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::common::mock::{MockServer, Reply};
use crate::common::protocols::{self, Protocol};
use crate::common::{Home, SessionBuilder, code, stderr, stdout};

fn anthropic() -> Protocol {
    protocols::anthropic()
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
