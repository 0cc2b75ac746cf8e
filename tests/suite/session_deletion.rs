//! `sessions rm`, `prune` and `repair` delete or rewrite only session files of the sessions
//! directory: a file whose first line is a session header (for `repair`, a session whose header
//! is damaged too), directly in the directory, not a link. `sessions rm ./main.rs` used to delete
//! the Rust file.

use serde_json::json;

use crate::common::{Home, SessionBuilder, code, stderr, stdout};

const ID_A: &str = "019ad3c1-0000-7000-8000-00000000000a";
const ID_B: &str = "019ad3c1-0000-7000-8000-00000000000b";
const MAIN_RS: &str = "fn main() {\n    println!(\"hello\");\n}\n";

fn session(home: &Home, id: &str) -> SessionBuilder {
    let mut session = SessionBuilder::new(id, &home.workspace);
    session.user("hello there");
    session.assistant("general kenobi", [1, 100, 0, 0]);
    session
}

/// A refusal: exit 2, and the message names the file and says why.
fn assert_refused(output: &std::process::Output, file: &str) {
    let text = stderr(output);
    assert_eq!(code(output), 2, "{text}");
    assert!(text.contains(file), "{text}");
    assert!(text.contains("sessions directory"), "{text}");
    assert!(text.contains("hint:"), "{text}");
}

#[test]
fn sessions_rm_of_a_workspace_file_refuses_and_leaves_it() {
    let home = Home::new();
    let main = home.workspace.join("main.rs");
    std::fs::write(&main, MAIN_RS).unwrap();
    for argument in ["./main.rs", main.to_str().unwrap()] {
        let output = home.run(&["sessions", "rm", argument]);
        assert_refused(&output, "main.rs");
        let forced = home.run(&["sessions", "rm", "--force", argument]);
        assert_refused(&forced, "main.rs");
    }
    assert_eq!(std::fs::read_to_string(&main).unwrap(), MAIN_RS);
    assert!(!home.workspace.join("main.rs.lock").exists());
}

#[test]
fn sessions_rm_of_a_session_file_outside_the_store_refuses() {
    let home = Home::new();
    let outside = home.workspace.join("copy.jsonl");
    let text = session(&home, ID_A).to_jsonl();
    std::fs::write(&outside, &text).unwrap();
    let output = home.run(&["sessions", "rm", "copy.jsonl"]);
    assert_refused(&output, "copy.jsonl");
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), text);
}

#[test]
fn sessions_rm_of_a_link_in_the_store_removes_nothing() {
    let home = Home::new();
    let genuine = home.write_session(&session(&home, ID_A));
    let main = home.workspace.join("main.rs");
    std::fs::write(&main, MAIN_RS).unwrap();
    let link = home
        .sessions_dir()
        .join(format!("2026-11-30T10-00-00-000Z_{ID_B}.jsonl"));
    std::os::unix::fs::symlink(&main, &link).unwrap();
    let output = home.run(&["sessions", "rm", link.to_str().unwrap()]);
    assert_refused(&output, ID_B);
    assert!(
        std::fs::symlink_metadata(&link).is_ok(),
        "the link was removed"
    );
    assert_eq!(std::fs::read_to_string(&main).unwrap(), MAIN_RS);
    // `..` out of the store and back is the same file, and a genuine session still goes.
    let roundabout = home
        .sessions_dir()
        .join("..")
        .join("sessions")
        .join(genuine.file_name().unwrap());
    let output = home.run(&["sessions", "rm", roundabout.to_str().unwrap()]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(!genuine.exists());
}

#[test]
fn sessions_rm_of_a_file_in_the_store_that_is_no_session_refuses() {
    let home = Home::new();
    home.write_session(&session(&home, ID_A));
    let stray = home.sessions_dir().join("notes.jsonl");
    std::fs::write(&stray, "{\"note\": \"mine\"}\n").unwrap();
    let output = home.run(&["sessions", "rm", stray.to_str().unwrap()]);
    let text = stderr(&output);
    assert_eq!(code(&output), 2, "{text}");
    assert!(
        text.contains("notes.jsonl") && text.contains("session header"),
        "{text}"
    );
    assert!(stray.exists());
}

#[test]
fn repair_refuses_a_file_outside_the_store_and_still_repairs_its_own() {
    let home = Home::new();
    let main = home.workspace.join("main.rs");
    std::fs::write(&main, MAIN_RS).unwrap();
    // A damaged session outside the store: repair would rewrite it and add a side file.
    let mut lines: Vec<String> = session(&home, ID_A)
        .to_jsonl()
        .lines()
        .map(str::to_owned)
        .collect();
    lines.insert(2, "{not json".to_owned());
    let damaged = lines.join("\n") + "\n";
    let outside = home.workspace.join("damaged.jsonl");
    std::fs::write(&outside, &damaged).unwrap();
    for (argument, file) in [
        ("./main.rs", "main.rs"),
        ("./damaged.jsonl", "damaged.jsonl"),
    ] {
        let output = home.run(&["sessions", "repair", argument]);
        assert_refused(&output, file);
    }
    assert_eq!(std::fs::read_to_string(&main).unwrap(), MAIN_RS);
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), damaged);
    let workspace_files = std::fs::read_dir(&home.workspace).unwrap().count();
    assert_eq!(workspace_files, 2, "a side file or lock was made");

    let inside = home.write_session(&session(&home, ID_B));
    std::fs::write(&inside, &damaged).unwrap();
    let output = home.run(&["sessions", "repair", inside.to_str().unwrap()]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(
        stdout(&output).contains("move corrupt line(s) 3"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn prune_keeps_a_link_in_the_store_and_what_it_points_to() {
    let home = Home::new();
    let old = |id: &str| {
        let mut builder =
            SessionBuilder::new(id, &home.workspace).created("2020-01-01T00:00:00.000Z");
        builder.user("ancient");
        builder
    };
    let genuine = home.write_session(&old(ID_A));
    // An old session kept elsewhere, linked into the store.
    let elsewhere = home.root.path().join("archive.jsonl");
    let text = old(ID_B).to_jsonl();
    std::fs::write(&elsewhere, &text).unwrap();
    let link = home
        .sessions_dir()
        .join(format!("2020-01-01T00-00-00-000Z_{ID_B}.jsonl"));
    std::os::unix::fs::symlink(&elsewhere, &link).unwrap();
    let output = home.run(&[
        "sessions",
        "prune",
        "--older-than",
        "30d",
        "--all",
        "--json",
    ]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let report: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(report["removed"], json!([genuine]));
    assert_eq!(report["skipped"], json!([link]));
    assert!(
        stderr(&output).contains("sessions directory"),
        "{}",
        stderr(&output)
    );
    assert!(!genuine.exists());
    assert!(
        std::fs::symlink_metadata(&link).is_ok(),
        "the link was removed"
    );
    assert_eq!(std::fs::read_to_string(&elsewhere).unwrap(), text);
}
