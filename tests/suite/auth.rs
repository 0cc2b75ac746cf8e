//! `pincer auth`: the profile store on disk, its modes and locking, and that no secret is printed.

use std::os::unix::fs::PermissionsExt;
use std::process::Output;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::common::{Home, code, stderr, stdout};

/// Distinctive enough that finding it anywhere in output is a leak.
const KEY: &str = "sk-proj-LEAKCANARY-7f3e9d2c1b0a-a1b2";

fn auth_file(home: &Home) -> std::path::PathBuf {
    home.home.join("auth-profiles.json")
}

fn add_with_stdin(home: &Home, args: &[&str], secret: &str) -> Output {
    home.pincer()
        .arg("auth")
        .arg("add")
        .args(args)
        .stdin(secret)
        .output()
}

fn json_of(output: &Output) -> Value {
    assert_eq!(code(output), 0, "{}", stderr(output));
    serde_json::from_str(&stdout(output)).unwrap()
}

fn assert_no_leak(output: &Output) {
    assert!(!stdout(output).contains(KEY), "stdout: {}", stdout(output));
    assert!(!stderr(output).contains(KEY), "stderr: {}", stderr(output));
    assert!(!stdout(output).contains("LEAKCANARY"));
    assert!(!stderr(output).contains("LEAKCANARY"));
}

fn mode(path: &std::path::Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn add_from_stdin_stores_the_key_privately_and_list_shows_only_a_fingerprint() {
    let home = Home::new();
    let added = add_with_stdin(&home, &["openai"], &format!("  {KEY}\n"));
    assert_eq!(code(&added), 0, "{}", stderr(&added));
    assert_no_leak(&added);
    assert!(stderr(&added).contains("added auth profile openai:default (api_key, sk-…a1b2)"));

    let file = auth_file(&home);
    assert_eq!(mode(&file), 0o600);
    assert_eq!(mode(&home.home), 0o700);
    let stored: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(stored["version"], 1);
    assert_eq!(
        stored["profiles"]["openai:default"],
        json!({"type": "api_key", "provider": "openai", "key": KEY})
    );

    let listed = home.run(&["auth", "list"]);
    assert_eq!(code(&listed), 0, "{}", stderr(&listed));
    assert_no_leak(&listed);
    let text = stdout(&listed);
    assert!(text.contains("openai:default"), "{text}");
    assert!(text.contains("sk-…a1b2"), "{text}");

    let as_json = home.run(&["auth", "--json"]);
    assert_no_leak(&as_json);
    let value = json_of(&as_json);
    assert_eq!(value["profiles"][0]["id"], "openai:default");
    assert_eq!(value["profiles"][0]["secret"], "sk-…a1b2");
    assert_eq!(value["profiles"][0]["source"], "stored");

    for args in [&["auth", "status"][..], &["auth", "status", "--json"]] {
        let output = home.run(args);
        assert_eq!(code(&output), 0, "{}", stderr(&output));
        assert_no_leak(&output);
    }
}

#[test]
fn a_second_add_gets_the_next_id_and_a_named_add_uses_the_name() {
    let home = Home::new();
    assert_eq!(
        code(&add_with_stdin(
            &home,
            &["anthropic"],
            "sk-ant-0000000000000001"
        )),
        0
    );
    assert_eq!(
        code(&add_with_stdin(
            &home,
            &["anthropic"],
            "sk-ant-0000000000000002"
        )),
        0
    );
    let named = add_with_stdin(
        &home,
        &["anthropic", "--name", "work", "--type", "token", "--json"],
        "tok-0000000000000003",
    );
    let value = json_of(&named);
    assert_eq!(value["id"], "anthropic:work");
    assert_eq!(value["type"], "token");
    let listed = json_of(&home.run(&["auth", "list", "--json"]));
    let ids: Vec<&str> = listed["profiles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|profile| profile["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["anthropic:2", "anthropic:default", "anthropic:work"]);

    // The same name again is refused rather than silently replacing a secret.
    let again = add_with_stdin(
        &home,
        &["anthropic", "--name", "work"],
        "tok-other-123456789",
    );
    assert_eq!(code(&again), 2);
    assert!(
        stderr(&again).contains("'anthropic:work' already exists"),
        "{}",
        stderr(&again)
    );
}

#[test]
fn empty_or_multi_line_stdin_is_refused_and_nothing_is_written() {
    let home = Home::new();
    let empty = add_with_stdin(&home, &["openai"], "\n");
    assert_eq!(code(&empty), 2);
    assert!(
        stderr(&empty).contains("no secret given"),
        "{}",
        stderr(&empty)
    );
    let two_lines = add_with_stdin(&home, &["openai"], "sk-one-0123456789\nsk-two-0123456789\n");
    assert_eq!(code(&two_lines), 2);
    assert!(!auth_file(&home).exists());
}

#[test]
fn from_env_stores_a_reference_and_never_reads_the_variable() {
    let home = Home::new();
    let output = home
        .pincer()
        .args([
            "auth",
            "add",
            "openai",
            "--name",
            "ci",
            "--from-env",
            "CI_OPENAI_KEY",
        ])
        .env("CI_OPENAI_KEY", KEY)
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_no_leak(&output);
    let text = std::fs::read_to_string(auth_file(&home)).unwrap();
    assert!(!text.contains(KEY));
    let stored: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        stored["profiles"]["openai:ci"],
        json!({"type": "api_key", "provider": "openai", "keyRef": {"source": "env", "name": "CI_OPENAI_KEY"}})
    );
    let listed = json_of(&home.run(&["auth", "--json"]));
    assert_eq!(listed["profiles"][0]["secret"], "env:CI_OPENAI_KEY");

    let command = home
        .pincer()
        .args([
            "auth",
            "add",
            "openai",
            "--type",
            "token",
            "--command",
            "pass show openai",
        ])
        .output();
    assert_eq!(code(&command), 0, "{}", stderr(&command));
    let stored: Value =
        serde_json::from_str(&std::fs::read_to_string(auth_file(&home)).unwrap()).unwrap();
    assert_eq!(
        stored["profiles"]["openai:default"]["tokenRef"],
        json!({"source": "command", "command": "pass show openai"})
    );
}

#[test]
fn order_is_set_by_full_or_short_ids_and_shown_back() {
    let home = Home::new();
    for name in ["home", "work"] {
        let output = add_with_stdin(
            &home,
            &["anthropic", "--name", name],
            "sk-ant-0123456789abcdef",
        );
        assert_eq!(code(&output), 0, "{}", stderr(&output));
    }
    let automatic = json_of(&home.run(&["auth", "order", "anthropic", "--json"]));
    assert_eq!(automatic["explicit"], false);
    assert_eq!(
        automatic["order"],
        json!(["anthropic:home", "anthropic:work"])
    );

    let set = home.run(&["auth", "order", "anthropic", "work", "anthropic:home"]);
    assert_eq!(code(&set), 0, "{}", stderr(&set));
    assert_eq!(stdout(&set), "1. anthropic:work\n2. anthropic:home\n");
    let shown = json_of(&home.run(&["auth", "order", "anthropic", "--json"]));
    assert_eq!(shown["explicit"], true);
    assert_eq!(shown["order"], json!(["anthropic:work", "anthropic:home"]));
    let stored: Value =
        serde_json::from_str(&std::fs::read_to_string(auth_file(&home)).unwrap()).unwrap();
    assert_eq!(
        stored["order"],
        json!({"anthropic": ["anthropic:work", "anthropic:home"]})
    );

    let unknown = home.run(&["auth", "order", "anthropic", "work", "nope"]);
    assert_eq!(code(&unknown), 2);
    assert!(
        stderr(&unknown).contains("no auth profile 'nope'"),
        "{}",
        stderr(&unknown)
    );
    let twice = home.run(&["auth", "order", "anthropic", "work", "work"]);
    assert_eq!(code(&twice), 2);
}

#[test]
fn remove_deletes_the_profile_and_its_order_entry_and_a_missing_id_exits_2() {
    let home = Home::new();
    add_with_stdin(&home, &["openai"], "sk-0123456789abcdef0");
    add_with_stdin(&home, &["openai"], "sk-0123456789abcdef1");
    assert_eq!(
        code(&home.run(&["auth", "order", "openai", "2", "default"])),
        0
    );

    let removed = home.run(&["auth", "remove", "openai:2", "--json"]);
    assert_eq!(
        json_of(&removed),
        json!({"removed": "openai:2", "provider": "openai"})
    );
    let stored: Value =
        serde_json::from_str(&std::fs::read_to_string(auth_file(&home)).unwrap()).unwrap();
    assert_eq!(stored["profiles"].as_object().unwrap().len(), 1);
    assert_eq!(stored["order"], json!({"openai": ["openai:default"]}));

    let missing = home.run(&["auth", "remove", "openai:2"]);
    assert_eq!(code(&missing), 2);
    assert!(
        stderr(&missing).contains("no auth profile 'openai:2'"),
        "{}",
        stderr(&missing)
    );
}

#[test]
fn a_corrupt_store_exits_2_naming_the_file_and_line_and_is_left_unchanged() {
    let home = Home::new();
    let file = auth_file(&home);
    let broken = "{\n  \"version\": 1,\n  \"profiles\": {\n    \"openai:default\": {\"type\": \"api_key\",,}\n  }\n}\n";
    std::fs::write(&file, broken).unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    for output in [
        home.run(&["auth", "list"]),
        add_with_stdin(&home, &["openai"], "sk-0123456789abcdef0"),
        home.run(&["auth", "reset"]),
    ] {
        assert_eq!(code(&output), 2, "{}", stderr(&output));
        let message = stderr(&output);
        assert!(
            message.contains(&format!(
                "auth store '{}' is not valid: line 4",
                file.display()
            )),
            "{message}"
        );
        assert!(message.contains("never overwrites"), "{message}");
    }
    assert_eq!(std::fs::read_to_string(&file).unwrap(), broken);
}

#[test]
fn a_store_readable_by_others_is_still_used_with_a_warning() {
    let home = Home::new();
    let file = auth_file(&home);
    std::fs::write(
        &file,
        r#"{"version":1,"profiles":{"openai:x":{"type":"api_key","provider":"openai","key":"sk-0123456789abcdef"}}}"#,
    )
    .unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let output = home.run(&["auth", "list", "--json"]);
    assert!(
        stderr(&output).contains("is readable by group or others (mode 0644)"),
        "{}",
        stderr(&output)
    );
    assert_eq!(json_of(&output)["profiles"][0]["id"], "openai:x");
}

#[test]
fn status_shows_cooldowns_and_reset_clears_them_but_keeps_unknown_fields() {
    let home = Home::new();
    let file = auth_file(&home);
    // Within the step of a second failure (5 minutes); a window further away is cut to it.
    let now = u64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap();
    let until = now + 3 * 60_000;
    let until_iso = pincer::session::record::iso_of_millis(until);
    let store = json!({
        "version": 1,
        "profiles": {
            "anthropic:a": {"type": "api_key", "provider": "anthropic", "key": "sk-ant-0123456789abcdef", "email": "me@example.com"}
        },
        "usageStats": {
            "anthropic:a": {"lastUsed": 1_700_000_000_000u64, "cooldownUntil": until, "errorCount": 2,
                            "failureCounts": {"rate_limit": 2}, "lastFailureAt": 1_700_000_000_000u64}
        },
        "fromAnotherTool": true
    });
    std::fs::write(&file, serde_json::to_string(&store).unwrap()).unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();

    let status = json_of(&home.run(&["auth", "status", "--json"]));
    let profile = &status["profiles"][0];
    assert_eq!(profile["available"], false);
    assert_eq!(profile["cooldown_until"], until_iso);
    assert_eq!(profile["last_used"], "2023-11-14T22:13:20.000Z");
    assert_eq!(profile["failure_counts"], json!({"rate_limit": 2}));
    assert_eq!(profile["error_count"], 2);

    let text = stdout(&home.run(&["auth", "status"]));
    assert!(
        text.contains(&format!("cooldown until: {until_iso}")),
        "{text}"
    );
    assert!(text.contains("failures:       rate_limit 2"), "{text}");

    let missing = home.run(&["auth", "reset", "anthropic:zzz"]);
    assert_eq!(code(&missing), 2);
    let reset = home.run(&["auth", "reset", "anthropic:a"]);
    assert_eq!(code(&reset), 0, "{}", stderr(&reset));

    let status = json_of(&home.run(&["auth", "status", "--json"]));
    assert_eq!(status["profiles"][0]["available"], true);
    assert_eq!(status["profiles"][0]["cooldown_until"], Value::Null);
    assert_eq!(status["profiles"][0]["error_count"], 0);
    let stored: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(stored["fromAnotherTool"], true);
    assert_eq!(stored["profiles"]["anthropic:a"]["email"], "me@example.com");
    assert_eq!(
        stored["usageStats"]["anthropic:a"]["lastUsed"],
        1_700_000_000_000u64
    );
    assert_eq!(mode(&file), 0o600);
}

#[test]
fn ten_parallel_adds_all_land_in_one_valid_store() {
    let home = Home::new();
    let outputs: Vec<Output> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..10)
            .map(|number| {
                let home = &home;
                scope.spawn(move || {
                    add_with_stdin(
                        home,
                        &["openai"],
                        &format!("sk-parallel-{number:04}-0123456789"),
                    )
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|handle| handle.join().unwrap())
            .collect()
    });
    for output in &outputs {
        assert_eq!(code(output), 0, "{}", stderr(output));
    }
    let stored: Value =
        serde_json::from_str(&std::fs::read_to_string(auth_file(&home)).unwrap()).unwrap();
    let profiles = stored["profiles"].as_object().unwrap();
    assert_eq!(profiles.len(), 10);
    let mut keys: Vec<&str> = profiles
        .values()
        .map(|profile| profile["key"].as_str().unwrap())
        .collect();
    keys.sort_unstable();
    let expected: Vec<String> = (0..10)
        .map(|number| format!("sk-parallel-{number:04}-0123456789"))
        .collect();
    assert_eq!(keys, expected);
    assert!(profiles.contains_key("openai:default"));
    assert!(profiles.contains_key("openai:10"));
    // No temp files left behind next to the store.
    let stray: Vec<String> = std::fs::read_dir(&home.home)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".tmp"))
        .collect();
    assert!(stray.is_empty(), "{stray:?}");
}

#[test]
fn status_lists_profiles_with_their_state_but_never_their_secrets() {
    let home = crate::common::Home::new();
    let key = "sk-ant-status-canary-98765";
    let output = home
        .pincer()
        .args(["auth", "add", "anthropic"])
        .stdin(key)
        .output();
    assert_eq!(output.status.code(), Some(0));
    let output = home.pincer().args(["status", "--json"]).output();
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(!text.contains(key), "{text}");
    let status: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(status["auth_profiles"][0]["id"], "anthropic:default");
    assert_eq!(status["auth_profiles"][0]["provider"], "anthropic");
    assert!(
        status["auth_profiles"][0]["source"]
            .as_str()
            .unwrap()
            .contains('…')
    );
}
