//! `pincer sessions …` and session-file handling, end to end through the binary.

use std::time::Duration;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::common::mock::{MockServer, Reply};
use crate::common::protocols;
use crate::common::{Home, SessionBuilder, code, hold_lock, stderr, stdout};

const ID_A: &str = "019ad3c1-0000-7000-8000-00000000000a";
const ID_B: &str = "019ad3c1-0000-7000-8000-00000000000b";
const ID_C: &str = "7f3e9a10-1111-4222-8333-444455556666";

fn simple(home: &Home, id: &str, name: Option<&str>) -> std::path::PathBuf {
    let mut session = SessionBuilder::new(id, &home.workspace);
    session.entry(
        "model_change",
        json!({"provider": "anthropic", "modelId": "claude-sonnet-4-5"}),
    );
    session.user("hello there");
    session.assistant("general kenobi", [1, 100, 85_000, 500]);
    if let Some(name) = name {
        session.name(name);
    }
    home.write_session(&session)
}

fn list_json(home: &Home, args: &[&str]) -> Vec<Value> {
    let mut all = vec!["sessions", "list", "--json"];
    all.extend_from_slice(args);
    let output = home.run(&all);
    assert_eq!(code(&output), 0, "stderr: {}", stderr(&output));
    serde_json::from_str::<Vec<Value>>(&stdout(&output)).unwrap()
}

#[test]
fn list_shows_sessions_of_this_workspace_and_all_with_all() {
    let home = Home::new();
    simple(&home, ID_A, Some("alpha"));
    let elsewhere = home.root.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let mut other = SessionBuilder::new(ID_C, &std::fs::canonicalize(&elsewhere).unwrap());
    other.user("hi");
    home.write_session(&other);

    let here = list_json(&home, &[]);
    assert_eq!(here.len(), 1);
    assert_eq!(here[0]["id"], ID_A);
    assert_eq!(here[0]["name"], "alpha");
    assert_eq!(here[0]["turns"], 1);
    assert_eq!(here[0]["context"]["tokens"], 85_601);
    assert_eq!(here[0]["model"], "anthropic/claude-sonnet-4-5");

    let all = list_json(&home, &["--all"]);
    let ids: Vec<&str> = all
        .iter()
        .map(|item| item["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 2);
    assert!(ids.contains(&ID_C));

    let text = stdout(&home.run(&["sessions"]));
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("ID"), "{text}");
    assert!(lines[1].starts_with("019ad3c1  alpha"), "{text}");
    assert!(lines[1].contains("85.6k/200k 43%"), "{text}");
}

#[test]
fn list_filters_by_name_glob_and_limit() {
    let home = Home::new();
    simple(&home, ID_A, Some("nightly-build"));
    simple(&home, ID_B, Some("adhoc"));
    let named = list_json(&home, &["--name", "nightly*"]);
    assert_eq!(named.len(), 1);
    assert_eq!(named[0]["name"], "nightly-build");
    assert_eq!(list_json(&home, &["--limit", "1"]).len(), 1);
}

#[test]
fn lookup_by_full_id_prefix_name_and_path_resolves_the_same_file() {
    let home = Home::new();
    let path = simple(&home, ID_C, Some("nightly"));
    let expected = format!("{}\n", path.display());
    let file_name = path.file_name().unwrap().to_str().unwrap().to_owned();
    for query in [ID_C, "7f3e", "nightly", path.to_str().unwrap(), &file_name] {
        let output = home.run(&["sessions", "path", query]);
        assert_eq!(code(&output), 0, "{query}: {}", stderr(&output));
        assert_eq!(stdout(&output), expected, "{query}");
    }
}

#[test]
fn an_ambiguous_prefix_exits_2_and_lists_the_candidates() {
    let home = Home::new();
    simple(&home, ID_A, None);
    simple(&home, ID_B, None);
    let output = home.run(&["sessions", "path", "019ad3c1"]);
    assert_eq!(code(&output), 2);
    let error = stderr(&output);
    assert!(error.contains("'019ad3c1' matches 2 sessions"), "{error}");
    assert!(error.contains(ID_A) && error.contains(ID_B), "{error}");
    assert!(stdout(&output).is_empty());
}

/// The ID column of `sessions list` (text), in listing order.
fn listed_ids(home: &Home, args: &[&str]) -> Vec<String> {
    let mut all = vec!["sessions", "list"];
    all.extend_from_slice(args);
    let output = home.run(&all);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    stdout(&output)
        .lines()
        .skip(1)
        .map(|line| line.split_whitespace().next().unwrap().to_owned())
        .collect()
}

#[test]
fn list_shows_the_shortest_unique_id_prefix_and_each_one_resolves() {
    let home = Home::new();
    // UUIDv7s made within a minute share their first 8 hex digits (the timestamp).
    const SAME_MINUTE_1: &str = "019ad3c1-7a10-7000-8000-000000000001";
    const SAME_MINUTE_2: &str = "019ad3c1-7b20-7000-8000-000000000002";
    for id in [SAME_MINUTE_1, SAME_MINUTE_2, ID_C] {
        simple(&home, id, None);
    }
    // In another directory: not listed here, but a prefix must not match it either.
    let elsewhere = tempfile::tempdir().unwrap();
    let mut other = SessionBuilder::new(ID_A, elsewhere.path());
    other.user("elsewhere");
    home.write_session(&other);

    let mut ids = listed_ids(&home, &[]);
    ids.sort();
    assert_eq!(ids, ["019ad3c1-7a", "019ad3c1-7b", "7f3e9a10"]);
    let listed = list_json(&home, &["--all"]);
    let short_of = |id: &str| -> String {
        let item = listed.iter().find(|item| item["id"] == id).unwrap();
        item["short_id"].as_str().unwrap().to_owned()
    };
    assert_eq!(short_of(ID_A), "019ad3c1-0");
    for id in [SAME_MINUTE_1, SAME_MINUTE_2, ID_C, ID_A] {
        let short = short_of(id);
        let output = home.run(&["sessions", "show", &short, "--json"]);
        assert_eq!(code(&output), 0, "{short}: {}", stderr(&output));
        let shown: Value = serde_json::from_str(&stdout(&output)).unwrap();
        assert_eq!(shown["id"], id, "{short}");
    }

    // The 8 digits that used to be shown are ambiguous: the error lists both, with a hint.
    let output = home.run(&["sessions", "show", "019ad3c1-7"]);
    assert_eq!(code(&output), 2);
    let error = stderr(&output);
    assert!(error.contains("'019ad3c1-7' matches 2 sessions"), "{error}");
    assert!(
        error.contains(SAME_MINUTE_1) && error.contains(SAME_MINUTE_2),
        "{error}"
    );
    assert!(
        error.contains("hint: give more characters of the id"),
        "{error}"
    );
}

#[test]
fn a_short_id_is_unique_among_the_sessions_a_listing_leaves_out_too() {
    let home = Home::new();
    simple(&home, ID_C, None);
    // Elsewhere, and sharing ID_C's first eight digits: listed only with --all.
    let elsewhere = tempfile::tempdir().unwrap();
    let mut other = SessionBuilder::new("7f3e9a10-2222-4222-8333-444455556666", elsewhere.path());
    other.user("elsewhere");
    home.write_session(&other);
    // Here, the other session is not listed, yet the prefix must not match it.
    assert_eq!(listed_ids(&home, &[]), ["7f3e9a10-1"]);
    let mut all = listed_ids(&home, &["--all"]);
    all.sort();
    assert_eq!(all, ["7f3e9a10-1", "7f3e9a10-2"]);
}

#[test]
fn sessions_run_within_a_minute_list_distinct_ids_that_show_works_with() {
    let home = Home::new();
    let server = MockServer::start_cycle(
        vec![Reply::sse(&(protocols::anthropic().text)(&["ok"]))],
        "127.0.0.1:0",
    );
    for index in 0..3 {
        let output = home
            .pincer()
            .provider(&protocols::anthropic(), &server)
            .args([
                "run",
                "-m",
                "anthropic/claude-sonnet-4-5",
                &format!("task {index}"),
            ])
            .output();
        assert_eq!(code(&output), 0, "{}", stderr(&output));
    }
    let ids = listed_ids(&home, &[]);
    assert_eq!(ids.len(), 3);
    let distinct: std::collections::BTreeSet<&String> = ids.iter().collect();
    assert_eq!(distinct.len(), 3, "{ids:?}");
    for short in &ids {
        assert!(short.len() >= 8, "{short}");
        let output = home.run(&["sessions", "show", short]);
        assert_eq!(code(&output), 0, "{short}: {}", stderr(&output));
    }
}

/// The sessions index database of `home`.
fn index_db(home: &Home) -> rusqlite::Connection {
    rusqlite::Connection::open(home.sessions_dir().join("index.sqlite3")).unwrap()
}

/// The directory stamp the index recorded as matching its rows, if any.
fn recorded_stamp(home: &Home) -> Option<String> {
    index_db(home)
        .query_row("SELECT value FROM meta WHERE key = 'stamp'", [], |row| {
            row.get(0)
        })
        .ok()
}

#[test]
fn resume_by_id_trusts_the_recorded_directory_only_until_a_file_is_added_beside_it() {
    let home = Home::new();
    let path = simple(&home, ID_A, Some("nightly"));
    simple(&home, ID_B, None);
    let server = MockServer::start_cycle(
        vec![Reply::sse(&(protocols::anthropic().text)(&["ok"]))],
        "127.0.0.1:0",
    );
    let resume = |query: &str| {
        home.pincer()
            .provider(&protocols::anthropic(), &server)
            .args(["resume", query, "go on"])
            .output()
    };
    // The first runs index the sessions, create the session's lock file and record the
    // turns; a directory that has stood still since has its stamp recorded by the next lookup.
    for _ in 0..2 {
        let output = resume(ID_A);
        assert_eq!(code(&output), 0, "{}", stderr(&output));
        std::thread::sleep(Duration::from_millis(60));
    }
    let output = resume(ID_A);
    assert_eq!((code(&output), stdout(&output)), (0, "ok\n".to_owned()));
    assert!(recorded_stamp(&home).is_some());
    let output = resume("nightly");
    assert_eq!((code(&output), stdout(&output)), (0, "ok\n".to_owned()));

    // A copy of the session under another file name, as a user would make it: the lookup
    // sees both, as a refreshed index would.
    let copy = path.with_file_name(
        path.file_name()
            .unwrap()
            .to_string_lossy()
            .replacen("2026", "2025", 1),
    );
    assert_ne!(copy, path);
    std::fs::copy(&path, &copy).unwrap();
    for query in [ID_A, "nightly"] {
        let output = resume(query);
        assert_eq!(code(&output), 2, "{query}: {}", stdout(&output));
        let error = stderr(&output);
        assert!(
            error.contains(&format!("'{query}' matches 2 sessions")),
            "{error}"
        );
    }
    std::fs::remove_file(&copy).unwrap();
    let output = resume(ID_A);
    assert_eq!((code(&output), stdout(&output)), (0, "ok\n".to_owned()));
}

#[test]
fn two_sessions_with_one_name_are_listed_with_a_hint_to_rename_one() {
    let home = Home::new();
    simple(&home, ID_A, Some("twin"));
    simple(&home, ID_C, Some("twin"));
    let output = home.run(&["resume", "twin", "hello"]);
    assert_eq!(code(&output), 2);
    let error = stderr(&output);
    assert!(error.contains("'twin' matches 2 sessions"), "{error}");
    assert!(error.contains(ID_A) && error.contains(ID_C), "{error}");
    assert!(error.contains("pincer sessions rename"), "{error}");
}

#[test]
fn an_unknown_session_exits_2_with_a_hint() {
    let home = Home::new();
    simple(&home, ID_A, None);
    let output = home.run(&["sessions", "show", "nope"]);
    assert_eq!(code(&output), 2);
    assert!(stderr(&output).contains("error: no session matches 'nope'"));
    assert!(stderr(&output).contains("hint: "));
}

#[test]
fn lookup_by_name_works_from_another_directory() {
    let home = Home::new();
    let path = simple(&home, ID_A, Some("nightly"));
    let elsewhere = home.root.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let output = home
        .pincer()
        .current_dir(&elsewhere)
        .args(["sessions", "path", "nightly"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(stdout(&output).trim(), path.to_str().unwrap());
}

#[test]
fn status_last_picks_the_newest_session_of_the_workspace() {
    let home = Home::new();
    let mut older = SessionBuilder::new(ID_A, &home.workspace).created("2026-11-01T00:00:00.000Z");
    older.user("old");
    home.write_session(&older);
    let mut newer = SessionBuilder::new(ID_B, &home.workspace).created("2026-11-02T00:00:00.000Z");
    newer.user("new");
    home.write_session(&newer);
    let output = home.run(&["status", "--last", "--json"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let value: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(value["session_id"], ID_B);
}

#[test]
fn show_prints_the_current_branch_and_tree_shows_both_branches() {
    let home = Home::new();
    let mut session = SessionBuilder::new(ID_A, &home.workspace);
    let root = session.user("question");
    session.assistant("first answer", [10, 5, 0, 0]);
    session.entry_under(
        Some(&root),
        "message",
        json!({"message": {"role": "user", "content": "take two", "timestamp": 1}}),
    );
    session.assistant("second answer", [10, 5, 0, 0]);
    home.write_session(&session);

    let transcript = stdout(&home.run(&["sessions", "show", ID_A]));
    assert!(transcript.contains("user: question"), "{transcript}");
    assert!(transcript.contains("second answer"), "{transcript}");
    assert!(!transcript.contains("first answer"), "{transcript}");

    let tree = stdout(&home.run(&["sessions", "show", ID_A, "--tree"]));
    assert!(
        tree.contains("first answer") && tree.contains("second answer"),
        "{tree}"
    );
    let leaf_line = tree
        .lines()
        .find(|line| line.contains("second answer"))
        .unwrap();
    assert!(leaf_line.trim_start().starts_with('@'), "{tree}");
}

#[test]
fn export_jsonl_reproduces_the_file_and_markdown_reads_well() {
    let home = Home::new();
    let path = simple(&home, ID_A, None);
    let jsonl = home.run(&["sessions", "export", ID_A, "--format", "jsonl"]);
    assert_eq!(code(&jsonl), 0, "{}", stderr(&jsonl));
    assert_eq!(stdout(&jsonl), std::fs::read_to_string(&path).unwrap());

    let markdown = stdout(&home.run(&["sessions", "export", ID_A, "--format", "markdown"]));
    assert!(
        markdown.starts_with(&format!("# Session {ID_A}")),
        "{markdown}"
    );
    assert!(markdown.contains("## User\n\nhello there"), "{markdown}");
    assert!(markdown.contains("general kenobi"), "{markdown}");

    let json = stdout(&home.run(&["sessions", "export", ID_A, "--format", "json"]));
    let value: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(value["header"]["id"], ID_A);
    assert_eq!(value["entries"].as_array().unwrap().len(), 3);
}

#[test]
fn fork_at_an_entry_copies_the_path_into_a_new_session() {
    let home = Home::new();
    let mut session = SessionBuilder::new(ID_A, &home.workspace);
    session.user("one");
    let first_answer = session.assistant("answer one", [1, 1, 0, 0]);
    session.user("two");
    session.assistant("answer two", [1, 1, 0, 0]);
    let path = home.write_session(&session);
    let before = std::fs::read(&path).unwrap();

    let output = home.run(&["sessions", "fork", ID_A, "--at", &first_answer, "--json"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let value: Value = serde_json::from_str(&stdout(&output)).unwrap();
    let new_file = std::path::PathBuf::from(value["file"].as_str().unwrap());
    let text = std::fs::read_to_string(&new_file).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines[0]["type"], "session");
    assert_eq!(lines[0]["parentSession"], path.to_str().unwrap());
    assert_eq!(lines.len(), 3, "{text}");
    assert_eq!(lines[2]["id"], first_answer.as_str());
    assert_eq!(
        std::fs::read(&path).unwrap(),
        before,
        "the source must not change"
    );
}

#[test]
fn rename_appends_a_session_info_entry_and_names_are_unique() {
    let home = Home::new();
    let path = simple(&home, ID_A, None);
    simple(&home, ID_B, Some("taken"));
    let output = home.run(&["sessions", "rename", ID_A, "nightly"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let text = std::fs::read_to_string(&path).unwrap();
    let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(last["type"], "session_info");
    assert_eq!(last["name"], "nightly");
    assert_eq!(last["parentId"], "a0000003");
    assert_eq!(last["id"].as_str().unwrap().len(), 8);

    let clash = home.run(&["sessions", "rename", ID_A, "taken"]);
    assert_eq!(code(&clash), 2);
    assert!(
        stderr(&clash).contains("the name 'taken' is taken"),
        "{}",
        stderr(&clash)
    );
}

#[test]
fn a_torn_final_line_is_moved_to_a_side_file_before_the_next_append() {
    let home = Home::new();
    let path = simple(&home, ID_A, None);
    let intact = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        format!("{intact}{{\"type\":\"message\",\"id\":\"dead"),
    )
    .unwrap();

    // Reading works and reports the tear without touching the file.
    let status = home.run(&["status", ID_A, "--json"]);
    assert_eq!(code(&status), 0, "{}", stderr(&status));
    let value: Value = serde_json::from_str(&stdout(&status)).unwrap();
    assert_eq!(value["torn_tail"], true);

    let output = home.run(&["sessions", "rename", ID_A, "after-crash"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(stderr(&output).contains("torn line"), "{}", stderr(&output));
    let repaired = std::fs::read_to_string(&path).unwrap();
    assert!(repaired.starts_with(&intact));
    assert_eq!(repaired.lines().count(), intact.lines().count() + 1);
    let side: Vec<_> = std::fs::read_dir(home.sessions_dir())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains(".torn-"))
        .collect();
    assert_eq!(side.len(), 1, "{side:?}");
    let saved = std::fs::read_to_string(home.sessions_dir().join(&side[0])).unwrap();
    assert_eq!(saved, "{\"type\":\"message\",\"id\":\"dead\n");
}

#[test]
fn mid_file_garbage_is_refused_with_its_line_number_until_repaired() {
    let home = Home::new();
    let path = simple(&home, ID_A, None);
    let mut lines: Vec<String> = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    lines.insert(2, "this is not json".to_owned());
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let damaged = std::fs::read(&path).unwrap();

    let output = home.run(&["sessions", "show", ID_A]);
    assert_eq!(code(&output), 2);
    assert!(
        stderr(&output).contains("corrupt at line 3"),
        "{}",
        stderr(&output)
    );
    assert!(
        stderr(&output).contains("pincer sessions repair"),
        "{}",
        stderr(&output)
    );
    assert_eq!(
        std::fs::read(&path).unwrap(),
        damaged,
        "reading must not change the file"
    );

    let dry = home.run(&["sessions", "repair", ID_A, "--dry-run"]);
    assert_eq!(code(&dry), 0, "{}", stderr(&dry));
    assert!(
        stdout(&dry).contains("would move corrupt line(s) 3"),
        "{}",
        stdout(&dry)
    );
    assert_eq!(std::fs::read(&path).unwrap(), damaged);

    let repair = home.run(&["sessions", "repair", ID_A]);
    assert_eq!(code(&repair), 0, "{}", stderr(&repair));
    let repaired = std::fs::read_to_string(&path).unwrap();
    assert!(!repaired.contains("this is not json"));
    assert_eq!(repaired.lines().count(), 4);
    let side = corrupt_side_files(&home);
    assert_eq!(
        std::fs::read_to_string(&side[0]).unwrap(),
        "this is not json\n"
    );
    assert_eq!(code(&home.run(&["sessions", "show", ID_A])), 0);
}

/// The `.corrupt-` side files a repair left in the store.
fn corrupt_side_files(home: &Home) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(home.sessions_dir())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.to_string_lossy().contains(".corrupt-"))
        .collect()
}

/// Replace line `number` (1-based) of the file with `text`.
fn damage_line(path: &std::path::Path, number: usize, text: &str) -> Vec<u8> {
    let mut lines: Vec<String> = std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    lines[number - 1] = text.to_owned();
    std::fs::write(path, lines.join("\n") + "\n").unwrap();
    std::fs::read(path).unwrap()
}

/// `args` exit 2 naming the bad line and the repair command, and leave the file as it was.
fn refused_as_corrupt(home: &Home, path: &std::path::Path, args: &[&str], line: usize) {
    let before = std::fs::read(path).unwrap();
    let output = home.run(args);
    let error = stderr(&output);
    assert_eq!(code(&output), 2, "{args:?}: {error}");
    assert!(
        error.contains(&format!("corrupt at line {line}")),
        "{args:?}: {error}"
    );
    assert!(
        error.contains("hint: run `pincer sessions repair "),
        "{args:?}: {error}"
    );
    assert!(!error.contains("no session matches"), "{args:?}: {error}");
    assert!(stdout(&output).is_empty(), "{args:?}");
    assert_eq!(
        std::fs::read(path).unwrap(),
        before,
        "{args:?} changed the file"
    );
}

/// `status SESSION` shows the damage and the repair command.
fn status_shows_the_damage(home: &Home, session: &str, line: usize) {
    let output = home.run(&["status", session, "--json"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let status: Value = serde_json::from_str(&stdout(&output)).unwrap();
    let problem = status["problem"].as_str().unwrap();
    assert!(
        problem.contains(&format!("corrupt at line {line}")),
        "{problem}"
    );
    assert!(
        status["repair_command"]
            .as_str()
            .unwrap()
            .starts_with("pincer sessions repair "),
        "{status}"
    );
    let text = stdout(&home.run(&["status", session]));
    assert!(text.contains("repair with:"), "{text}");
}

#[test]
fn a_damaged_middle_line_is_reported_by_name_and_id_and_repaired_by_name() {
    let home = Home::new();
    let path = simple(&home, ID_A, Some("nightly"));
    // Line 3 is the user message; the name is on the last line.
    damage_line(
        &path,
        3,
        r#"{"type":"message","id":"a0000002","parentId":"a000"#,
    );
    for session in ["nightly", ID_A, "019ad3c1-0000"] {
        refused_as_corrupt(&home, &path, &["resume", session, "go on"], 3);
        refused_as_corrupt(&home, &path, &["sessions", "show", session], 3);
    }
    status_shows_the_damage(&home, "nightly", 3);
    let listed = list_json(&home, &[]);
    assert_eq!(listed[0]["name"], "nightly");
    assert!(listed[0]["problem"].as_str().unwrap().contains("line 3"));

    let repair = home.run(&["sessions", "repair", "nightly"]);
    assert_eq!(code(&repair), 0, "{}", stderr(&repair));
    assert!(
        stdout(&repair).contains("corrupt line(s) 3"),
        "{}",
        stdout(&repair)
    );
    let show = home.run(&["sessions", "show", "nightly"]);
    assert_eq!(code(&show), 0, "{}", stderr(&show));
}

#[test]
fn a_damaged_header_is_reported_by_id_and_name_and_repair_rebuilds_it() {
    let home = Home::new();
    let path = simple(&home, ID_C, Some("weekly"));
    let cwd = home.workspace.to_string_lossy().into_owned();
    // A doubled comma: not JSON, though the id, time and cwd can still be read.
    let damaged_header = format!(
        r#"{{"type":"session","version":3,,"id":"{ID_C}","timestamp":"2026-11-30T10:00:00.000Z","cwd":"{cwd}"}}"#
    );
    damage_line(&path, 1, &damaged_header);
    for session in [ID_C, "weekly", "7f3e9a10"] {
        refused_as_corrupt(&home, &path, &["sessions", "show", session], 1);
        refused_as_corrupt(&home, &path, &["resume", session, "go on"], 1);
    }
    status_shows_the_damage(&home, "weekly", 1);
    let error = stderr(&home.run(&["sessions", "show", "weekly"]));
    assert!(error.contains("header is damaged"), "{error}");

    let dry = home.run(&["sessions", "repair", "weekly", "--dry-run", "--json"]);
    assert_eq!(code(&dry), 0, "{}", stderr(&dry));
    let report: Value = serde_json::from_str(&stdout(&dry)).unwrap();
    assert_eq!(report["rebuilt_header"]["id"], ID_C);
    assert_eq!(report["rebuilt_header"]["cwd_recovered"], true);
    assert_eq!(report["dropped_lines"], json!([1]));

    let repair = home.run(&["sessions", "repair", ID_C]);
    assert_eq!(code(&repair), 0, "{}", stderr(&repair));
    assert!(
        stdout(&repair).contains("rebuild the damaged header"),
        "{}",
        stdout(&repair)
    );
    let repaired = std::fs::read_to_string(&path).unwrap();
    let header: Value = serde_json::from_str(repaired.lines().next().unwrap()).unwrap();
    assert_eq!(
        header,
        json!({"type": "session", "version": 3, "id": ID_C,
               "timestamp": "2026-11-30T10:00:00.000Z", "cwd": cwd})
    );
    let side = corrupt_side_files(&home);
    assert_eq!(
        std::fs::read_to_string(&side[0]).unwrap(),
        damaged_header + "\n"
    );
    let show = home.run(&["sessions", "show", "weekly", "--json"]);
    assert_eq!(code(&show), 0, "{}", stderr(&show));
    assert_eq!(list_json(&home, &[])[0]["name"], "weekly");
}

#[test]
fn a_header_damaged_beyond_reading_is_rebuilt_from_the_file_name_and_this_workspace() {
    let home = Home::new();
    let path = simple(&home, ID_C, Some("weekly"));
    damage_line(&path, 1, "\u{0}\u{0}garbage");
    refused_as_corrupt(&home, &path, &["sessions", "show", "weekly"], 1);
    let repair = home.run(&["sessions", "repair", "weekly", "--json"]);
    assert_eq!(code(&repair), 0, "{}", stderr(&repair));
    let report: Value = serde_json::from_str(&stdout(&repair)).unwrap();
    assert_eq!(report["rebuilt_header"]["cwd_recovered"], false);
    let header: Value = serde_json::from_str(
        std::fs::read_to_string(&path)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(header["id"], ID_C);
    assert_eq!(header["timestamp"], "2026-11-30T10:00:00.000Z");
    assert_eq!(header["cwd"], home.workspace.to_string_lossy().as_ref());
    assert_eq!(code(&home.run(&["sessions", "show", "weekly"])), 0);
}

#[test]
fn a_damaged_session_is_found_by_name_even_through_an_index_that_lost_its_name() {
    let home = Home::new();
    let path = simple(&home, ID_A, Some("nightly"));
    damage_line(&path, 3, "not json");
    assert_eq!(list_json(&home, &[]).len(), 1);
    // An index whose row of a damaged file lost its name (as an older pincer summarized it).
    // (The row's JSON is edited here: pincer's SQLite is built without JSON functions.)
    let db = index_db(&home);
    let entry: String = db
        .query_row(
            "SELECT entry FROM sessions WHERE name = 'nightly'",
            [],
            |row| row.get(0),
        )
        .unwrap();
    let mut entry: Value = serde_json::from_str(&entry).unwrap();
    entry["name"] = Value::Null;
    let changed = db
        .execute(
            "UPDATE sessions SET name = NULL, entry = ?1 WHERE name = 'nightly'",
            [entry.to_string()],
        )
        .unwrap();
    assert_eq!(changed, 1);
    refused_as_corrupt(&home, &path, &["sessions", "show", "nightly"], 3);
    let repair = home.run(&["sessions", "repair", "nightly"]);
    assert_eq!(code(&repair), 0, "{}", stderr(&repair));
}

#[test]
fn a_corrupt_index_is_rebuilt_with_a_warning() {
    let home = Home::new();
    simple(&home, ID_A, Some("alpha"));
    assert_eq!(list_json(&home, &[]).len(), 1);
    for suffix in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(home.sessions_dir().join(format!("index.sqlite3{suffix}")));
    }
    std::fs::write(
        home.sessions_dir().join("index.sqlite3"),
        "{ not a database, not even a header of one }".repeat(100),
    )
    .unwrap();
    let output = home.run(&["sessions", "list", "--json"]);
    assert_eq!(code(&output), 0);
    assert!(
        stderr(&output).contains("warning: rebuilt the session index"),
        "{}",
        stderr(&output)
    );
    let items: Vec<Value> = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(items[0]["name"], "alpha");
    let rows: i64 = index_db(&home)
        .query_row("SELECT count(*) FROM sessions", [], |row| row.get(0))
        .unwrap();
    assert_eq!(rows, 1);
}

#[test]
fn a_stale_index_entry_is_refreshed_when_the_file_changes() {
    let home = Home::new();
    let path = simple(&home, ID_A, None);
    assert_eq!(list_json(&home, &[])[0]["name"], Value::Null);
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(
        "{\"type\":\"session_info\",\"id\":\"bbbbbbbb\",\"parentId\":\"a0000003\",\"timestamp\":\"2026-11-30T11:00:00.000Z\",\"name\":\"later\"}\n",
    );
    std::fs::write(&path, text).unwrap();
    assert_eq!(list_json(&home, &[])[0]["name"], "later");
}

#[test]
fn a_locked_session_makes_a_second_process_exit_75_at_once() {
    let home = Home::new();
    let path = simple(&home, ID_A, None);
    let before = std::fs::read(&path).unwrap();
    let lock = hold_lock(&path);
    let started = std::time::Instant::now();
    let output = home.run(&["sessions", "rename", ID_A, "busy"]);
    assert_eq!(code(&output), 75, "{}", stderr(&output));
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(stderr(&output).contains("is busy"), "{}", stderr(&output));
    assert!(stderr(&output).contains("--wait"), "{}", stderr(&output));
    assert_eq!(std::fs::read(&path).unwrap(), before);
    drop(lock);
}

#[test]
fn with_wait_a_second_process_proceeds_after_the_lock_is_released() {
    let home = Home::new();
    let path = simple(&home, ID_A, None);
    let before = std::fs::read(&path).unwrap();
    let lock = hold_lock(&path);
    let mut child = home
        .pincer()
        .args(["--wait", "10", "sessions", "rename", ID_A, "patient"])
        .spawn();
    std::thread::sleep(Duration::from_millis(400));
    // It waits for the lock: still running, nothing written (this used to pass with a `--wait`
    // that ignored the lock, as the rename succeeded either way).
    assert!(
        child.try_wait().unwrap().is_none(),
        "the rename did not wait for the lock"
    );
    assert_eq!(std::fs::read(&path).unwrap(), before);
    drop(lock);
    let output = child.wait_with_output().unwrap();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(
        std::fs::read_to_string(&path)
            .unwrap()
            .contains("\"name\":\"patient\"")
    );
}

#[test]
fn rm_removes_a_session_but_refuses_a_locked_one() {
    let home = Home::new();
    let free = simple(&home, ID_A, None);
    let busy = simple(&home, ID_B, None);
    let lock = hold_lock(&busy);
    let output = home.run(&["sessions", "rm", ID_B]);
    assert_eq!(code(&output), 75, "{}", stderr(&output));
    assert!(busy.exists());
    drop(lock);
    let output = home.run(&["sessions", "rm", ID_A]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(!free.exists());
    assert!(busy.exists());
}

#[test]
fn prune_dry_run_changes_nothing_and_prune_removes_old_sessions() {
    let home = Home::new();
    let mut old = SessionBuilder::new(ID_A, &home.workspace).created("2020-01-01T00:00:00.000Z");
    old.user("ancient");
    let old_path = home.write_session(&old);
    let fresh_path = simple(&home, ID_B, None);
    let mut fresh = std::fs::read_to_string(&fresh_path).unwrap();
    let now = time::OffsetDateTime::now_utc()
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap();
    fresh.push_str(&format!(
        "{{\"type\":\"label\",\"id\":\"cccccccc\",\"parentId\":\"a0000003\",\"timestamp\":\"{now}\",\"targetId\":\"a0000003\",\"label\":\"x\"}}\n"
    ));
    std::fs::write(&fresh_path, fresh).unwrap();
    list_json(&home, &["--all"]);
    // The index database is a cache a dry run may bring up to date (its build lock is in the
    // lock directory); the files beside it stay as they are.
    let snapshot = |home: &Home| {
        let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(home.sessions_dir())
            .unwrap()
            .filter(|entry| {
                let entry = entry.as_ref().unwrap();
                entry.path().is_file()
                    && !entry
                        .file_name()
                        .to_string_lossy()
                        .starts_with("index.sqlite3")
            })
            .map(|entry| {
                let entry = entry.unwrap();
                (
                    entry.file_name().to_string_lossy().into_owned(),
                    std::fs::read(entry.path()).unwrap(),
                )
            })
            .collect();
        files.sort();
        files
    };
    let before = snapshot(&home);
    let dry = home.run(&["sessions", "prune", "--older-than", "30d", "--dry-run"]);
    assert_eq!(code(&dry), 0, "{}", stderr(&dry));
    assert!(stdout(&dry).contains("would remove"), "{}", stdout(&dry));
    assert!(stdout(&dry).contains(ID_A));
    assert!(!stdout(&dry).contains(ID_B));
    assert_eq!(snapshot(&home), before);

    // Another directory's old session is out of scope without --all.
    let elsewhere = home.root.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let mut foreign = SessionBuilder::new(ID_C, &std::fs::canonicalize(&elsewhere).unwrap())
        .created("2020-01-01T00:00:00.000Z");
    foreign.user("far away");
    let foreign_path = home.write_session(&foreign);

    let real = home.run(&["sessions", "prune", "--older-than", "30d"]);
    assert_eq!(code(&real), 0, "{}", stderr(&real));
    assert!(!old_path.exists());
    assert!(fresh_path.exists());
    assert!(foreign_path.exists());
    let everywhere = home.run(&["sessions", "prune", "--older-than", "30d", "--all"]);
    assert_eq!(code(&everywhere), 0, "{}", stderr(&everywhere));
    assert!(!foreign_path.exists());
    assert!(fresh_path.exists());

    let bad = home.run(&["sessions", "prune", "--older-than", "soon"]);
    assert_eq!(code(&bad), 2);
    assert!(stderr(&bad).contains("is not a duration"));
}

#[test]
fn a_v1_session_is_read_and_migrated_on_the_first_append_keeping_the_old_bytes() {
    let home = Home::new();
    std::fs::create_dir_all(home.sessions_dir()).unwrap();
    let path = home
        .sessions_dir()
        .join("2025-01-01T00-00-00-000Z_v1.jsonl");
    let cwd = home.workspace.to_str().unwrap();
    let original = format!(
        "{{\"type\":\"session\",\"id\":\"v1-session\",\"timestamp\":\"2025-01-01T00:00:00.000Z\",\"cwd\":\"{cwd}\"}}\n\
         {{\"type\":\"message\",\"timestamp\":\"2025-01-01T00:00:01.000Z\",\"message\":{{\"role\":\"user\",\"content\":\"old times\",\"timestamp\":1}}}}\n"
    );
    std::fs::write(&path, &original).unwrap();
    let show = home.run(&["sessions", "show", "v1-session"]);
    assert_eq!(code(&show), 0, "{}", stderr(&show));
    assert!(stdout(&show).contains("user: old times"));
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        original,
        "reading must not rewrite"
    );

    let rename = home.run(&["sessions", "rename", "v1-session", "vintage"]);
    assert_eq!(code(&rename), 0, "{}", stderr(&rename));
    let migrated: Vec<Value> = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(migrated[0]["version"], 3);
    assert_eq!(migrated[1]["parentId"], Value::Null);
    let message_id = migrated[1]["id"].as_str().unwrap();
    assert_eq!(migrated[2]["parentId"], message_id);
    assert_eq!(migrated[2]["name"], "vintage");
    let backup: Vec<_> = std::fs::read_dir(home.sessions_dir())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.to_string_lossy().contains(".pre-migration-"))
        .collect();
    assert_eq!(std::fs::read_to_string(&backup[0]).unwrap(), original);
}

#[test]
fn a_file_of_an_unknown_future_version_is_refused_and_left_alone() {
    let home = Home::new();
    std::fs::create_dir_all(home.sessions_dir()).unwrap();
    let path = home
        .sessions_dir()
        .join("2025-01-01T00-00-00-000Z_future.jsonl");
    let text = "{\"type\":\"session\",\"version\":9,\"id\":\"future\",\"timestamp\":\"2025-01-01T00:00:00.000Z\",\"cwd\":\"/\"}\n";
    std::fs::write(&path, text).unwrap();
    let output = home.run(&["sessions", "show", "future"]);
    assert_eq!(code(&output), 2);
    assert!(
        stderr(&output).contains("format version 9"),
        "{}",
        stderr(&output)
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
}

#[test]
fn a_closed_stdout_pipe_ends_quietly() {
    let home = Home::new();
    for index in 0..40 {
        simple(
            &home,
            &format!("019ad3c1-0000-7000-8000-0000000001{index:02}"),
            None,
        );
    }
    let mut child = home.pincer().args(["sessions", "list"]).spawn();
    drop(child.stdout.take());
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&output.stderr), "");
}

#[test]
fn an_unreadable_session_file_is_named_once_in_the_error() {
    let home = Home::new();
    let sessions = home.sessions_dir();
    std::fs::create_dir_all(&sessions).unwrap();
    // A directory where a session file should be: reading it fails.
    let path = sessions.join("2026-01-01T00-00-00-000Z_019ad3c1-0000-7000-8000-0000000000d4.jsonl");
    std::fs::create_dir(&path).unwrap();
    let output = home.run(&["sessions", "show", "019ad3c1-0000-7000-8000-0000000000d4"]);
    assert_ne!(code(&output), 0);
    let error = stderr(&output);
    assert_eq!(
        error.matches(&*path.to_string_lossy()).count(),
        1,
        "the path once: {error}"
    );
    assert!(error.contains("Is a directory"), "{error}");
}
