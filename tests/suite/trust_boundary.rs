//! The boundary of issue #45 held by its structure: every file pincer declares it consumes
//! (`src/consumed.rs`, listed by `pincer status --json` as `consumed`) is read through the
//! registry's safe open, and each refusal reaches the user on stderr, in the init event and in
//! `pincer status`. A loader added without going through the registry fails here, because the
//! test plants every declared example, not a list kept in the test.

use serde_json::Value;

use crate::common::mock::{MockServer, Reply};
use crate::common::protocols;
use crate::common::{Home, code, stderr, stdout};

const MODEL: &str = "anthropic/claude-sonnet-4-5";

/// What a planted link points to: a file outside the workspace that a loader following the
/// link would put into the prompt (as a context file, a skill's description, a server list).
const SECRET: &str = "SECRET-0f9e8d7c";

/// Every feature that reads a consumed file, on.
const FEATURES: [&str; 4] = ["-c", "mcp.load_workspace=true", "-c", "skills.enabled=true"];

fn status(home: &Home) -> Value {
    let output = home
        .pincer()
        .args(FEATURES)
        .args(["status", "--json"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    serde_json::from_str(&stdout(&output)).unwrap()
}

/// The paths of a report's `refused_files`.
fn refused_paths(refused: &Value) -> Vec<String> {
    refused
        .as_array()
        .map(|items| {
            items
                .iter()
                .map(|item| {
                    assert!(
                        !item["reason"].as_str().unwrap().is_empty()
                            && !item["fix"].as_str().unwrap().is_empty(),
                        "{item}"
                    );
                    item["path"].as_str().unwrap().to_owned()
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Issue #45, "one registry of what pincer consumes … a new loader that is not in the list
/// fails a test", and "refused with a warning (stderr, the init event, `status`)": a hostile
/// repository plants every consumed file pincer reads as a link to a file outside the
/// workspace. None of it reaches the provider; each is named, with why and what to do, on
/// stderr, in `system/init`'s `refused_files` and in `pincer status`.
#[test]
fn every_consumed_file_planted_as_a_link_out_of_the_workspace_is_refused_and_reported() {
    let home = Home::new();
    let outside = home.root.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let examples: Vec<String> = status(&home)["consumed"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|consumed| consumed["examples"].as_array().unwrap().clone())
        .map(|example| example.as_str().unwrap().to_owned())
        .collect();
    assert!(examples.len() >= 5, "{examples:?}");
    for (number, example) in examples.iter().enumerate() {
        let target = outside.join(format!("secret-{number}"));
        let text = if example.ends_with(".json") {
            format!(r#"{{"mcpServers": {{"{SECRET}": {{"command": "/bin/true"}}}}}}"#)
        } else {
            format!("---\nname: planted-{number}\ndescription: {SECRET}\n---\n{SECRET}\n")
        };
        std::fs::write(&target, text).unwrap();
        let link = home.workspace.join(example);
        std::fs::create_dir_all(link.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(&target, &link).unwrap();
    }

    // A turn and a heartbeat turn (which reads HEARTBEAT.md and lists no skills) together read
    // every example.
    let mut warned = String::new();
    let mut in_init = Vec::new();
    for extra in [&[][..], &["--heartbeat"][..]] {
        let protocol = protocols::anthropic();
        let server = MockServer::start(vec![Reply::sse(&(protocol.text)(&["HEARTBEAT_OK"]))]);
        let output = home
            .pincer()
            .provider(&protocol, &server)
            .args(FEATURES)
            .args(["run", "--output-format", "stream-json", "-m", MODEL])
            .args(extra)
            .arg("hi")
            .output();
        assert_eq!(code(&output), 0, "{extra:?}: {}", stderr(&output));
        for request in server.requests() {
            let body = request.json().to_string();
            assert!(
                !body.contains(SECRET),
                "{extra:?}: a planted file was read: {body}"
            );
        }
        warned.push_str(&stderr(&output));
        let out = stdout(&output);
        let init: Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
        assert_eq!(init["subtype"], "init", "{init}");
        in_init.extend(refused_paths(&init["refused_files"]));
    }
    let in_status = refused_paths(&status(&home)["refused_files"]);
    for example in &examples {
        let path = home.workspace.join(example).display().to_string();
        assert!(
            in_init.contains(&path),
            "{example} is not in the init event's refused_files: {in_init:?}"
        );
        assert!(
            warned.contains(&format!("did not read '{path}': it is a link to")),
            "{example} was not warned about: {warned}"
        );
        if example != "HEARTBEAT.md" {
            assert!(
                in_status.contains(&path),
                "{example} is not in status: {in_status:?}"
            );
        }
    }
    let text = home.pincer().args(FEATURES).arg("status").output();
    let text = stdout(&text);
    assert!(
        text.contains("not read:") && text.contains("remove the link"),
        "{text}"
    );
}
