//! `pincer status`, config handling, and the commands that refuse what cannot apply.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::common::protocols;
use crate::common::{Home, SessionBuilder, code, skip, stderr, stdout};

const ID: &str = "019ad3c1-0000-7000-8000-0000000000aa";

#[test]
fn status_reports_context_occupancy_from_the_last_successful_call_per_the_seeds_example() {
    let home = Home::new();
    let mut session = SessionBuilder::new(ID, &home.workspace);
    session.entry(
        "model_change",
        json!({"provider": "anthropic", "modelId": "claude-sonnet-4-5"}),
    );
    session.user("first");
    session.assistant("big context", [1, 100, 85_000, 500]);
    session.user("second");
    // A failed call afterwards must not replace the snapshot.
    session.assistant_with("anthropic", "claude-sonnet-4-5", "", [0, 0, 0, 0], "error");
    home.write_session(&session);

    let output = home.run(&["status", ID, "--json"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let value: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(value["context"]["tokens"], 85_601);
    assert_eq!(value["context"]["window"], 200_000);
    assert_eq!(value["context"]["percent"], 42.8);
    assert_eq!(value["turns"], 2);
    assert_eq!(value["last_run_aborted"], true);
    assert_eq!(value["locked"], false);
    assert_eq!(value["usage"]["cache_read_input_tokens"], 85_000);
    assert_eq!(value["last_call_usage"]["cache_creation_input_tokens"], 500);
    // Catalog prices for claude-sonnet-4-5: $3 in, $15 out, $0.30 cache read, $3.75 cache write.
    let expected_cost = (1.0 * 3.0 + 100.0 * 15.0 + 85_000.0 * 0.30 + 500.0 * 3.75) / 1e6;
    let cost = value["total_cost_usd"].as_f64().unwrap();
    assert!(
        (cost - expected_cost).abs() < 1e-9,
        "{cost} vs {expected_cost}"
    );

    let text = stdout(&home.run(&["status", ID]));
    assert!(text.contains("85,601 / 200,000 tokens (42.8%)"), "{text}");
    assert!(text.contains("anthropic/claude-sonnet-4-5 (api)"), "{text}");
}

#[test]
fn status_counts_cumulative_usage_over_every_call() {
    let home = Home::new();
    let mut session = SessionBuilder::new(ID, &home.workspace);
    session.user("a");
    session.assistant("x", [10, 20, 30, 40]);
    session.user("b");
    session.assistant("y", [1, 2, 3, 4]);
    home.write_session(&session);
    let value: Value = serde_json::from_str(&stdout(&home.run(&["status", ID, "--json"]))).unwrap();
    assert_eq!(value["usage"]["input_tokens"], 11);
    assert_eq!(value["usage"]["output_tokens"], 22);
    assert_eq!(value["usage"]["cache_read_input_tokens"], 33);
    assert_eq!(value["usage"]["cache_creation_input_tokens"], 44);
    assert_eq!(
        value["context"]["tokens"], 10,
        "a snapshot of the last call, not a sum"
    );
}

#[test]
fn status_after_a_compaction_estimates_the_context_instead_of_reusing_stale_usage() {
    let home = Home::new();
    let mut session = SessionBuilder::new(ID, &home.workspace);
    session.user("a");
    let kept = session.assistant("x", [10, 20, 90_000, 40]);
    session.entry(
        "compaction",
        json!({"summary": "s".repeat(400), "firstKeptEntryId": kept, "tokensBefore": 90_070}),
    );
    home.write_session(&session);
    let value: Value = serde_json::from_str(&stdout(&home.run(&["status", ID, "--json"]))).unwrap();
    assert_eq!(value["compactions"], 1);
    assert_eq!(value["context"]["estimated"], true);
    let tokens = value["context"]["tokens"].as_u64().unwrap();
    assert!(tokens < 1_000, "estimated {tokens}");
}

#[test]
fn status_without_a_session_names_credential_variables_but_never_their_values() {
    let home = Home::new();
    let secret = "sk-ant-test-SECRET-0123456789";
    let output = home
        .pincer()
        .key(&protocols::anthropic(), secret)
        .args(["status", "--json"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let text = stdout(&output);
    assert!(!text.contains("SECRET"), "{text}");
    let value: Value = serde_json::from_str(&text).unwrap();
    let anthropic = value["credentials"]
        .as_array()
        .unwrap()
        .iter()
        .find(|item| item["provider"] == "anthropic")
        .unwrap()
        .clone();
    assert_eq!(anthropic["source"], "env:ANTHROPIC_API_KEY");
    assert_eq!(anthropic["usable"], true);
    let openai = value["credentials"]
        .as_array()
        .unwrap()
        .iter()
        .find(|item| item["provider"] == "openai")
        .unwrap()
        .clone();
    assert_eq!(openai["usable"], false);
    assert_eq!(value["sessions"], 0);
    assert_eq!(
        value["paths"]["sessions_dir"],
        home.home.join("sessions").to_str().unwrap()
    );
}

#[test]
fn status_without_a_session_reports_stored_profiles_and_their_cooldowns_in_both_views() {
    let home = Home::new();
    for (provider, name, key) in [
        ("anthropic", "work", "sk-ant-work-SECRET-1111"),
        ("anthropic", "spare", "sk-ant-spare-SECRET-2222"),
        ("google", "main", "AIzaSy-main-SECRET-3333"),
    ] {
        home.add_profile(provider, name, key);
    }
    // As earlier runs would have left them: one key cooling, one disabled for billing.
    let path = home.home.join("auth-profiles.json");
    let mut store: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    // Within their steps (5 minutes for a second rate limit, 5 hours for a first billing
    // failure): a window further away is cut to its step (SPEC §9.3).
    let now = u64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap();
    let until = now + 3 * 60_000;
    let until_iso = pincer::session::record::iso_of_millis(until);
    store["usageStats"] = json!({
        "anthropic:spare": {"cooldownUntil": until, "errorCount": 2, "failureCounts": {"rate_limit": 2}},
        "google:main": {"disabledUntil": until, "disabledReason": "billing", "errorCount": 1,
                        "failureCounts": {"billing": 1}}
    });
    std::fs::write(&path, serde_json::to_vec_pretty(&store).unwrap()).unwrap();

    let output = home.run(&["status", "--json"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let text = stdout(&output);
    assert!(!text.contains("SECRET"), "{text}");
    let value: Value = serde_json::from_str(&text).unwrap();
    let provider = |name: &str| {
        value["credentials"]
            .as_array()
            .unwrap()
            .iter()
            .find(|item| item["provider"] == name)
            .unwrap()
            .clone()
    };
    let anthropic = provider("anthropic");
    assert_eq!(anthropic["usable"], true, "{anthropic}");
    assert_eq!(anthropic["source"], "profile:anthropic:work");
    assert_eq!(
        anthropic["sources"][1],
        json!({"source": "profile:anthropic:spare", "secret": anthropic["sources"][1]["secret"],
               "state": "cooldown", "until": until_iso, "reason": "rate_limit"})
    );
    let google = provider("google");
    assert_eq!(google["usable"], false, "{google}");
    assert_eq!(google["source"], Value::Null);
    assert_eq!(google["sources"][0]["state"], "disabled");
    assert_eq!(google["sources"][0]["reason"], "billing");
    let profiles = value["auth_profiles"].as_array().unwrap();
    let spare = profiles
        .iter()
        .find(|profile| profile["id"] == "anthropic:spare")
        .unwrap();
    assert_eq!(spare["state"], "cooldown");
    assert_eq!(spare["until"], until_iso);

    let output = home.run(&["status"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let text = stdout(&output);
    assert!(!text.contains("SECRET"), "{text}");
    let line_of = |start: &str| {
        text.lines()
            .find(|line| line.trim_start().starts_with(start))
            .unwrap_or_else(|| panic!("no line for {start}: {text}"))
            .to_owned()
    };
    let anthropic = line_of("anthropic ");
    assert!(
        anthropic.contains("profile:anthropic:work (") && anthropic.contains("1 in cooldown"),
        "{anthropic}"
    );
    assert!(line_of("google ").contains("none usable now"), "{text}");
    assert!(line_of("openai ").ends_with(" none"), "{text}");
    assert!(line_of("ollama ").ends_with("none needed"), "{text}");
    assert!(
        line_of("anthropic:spare").ends_with(&format!("cooldown until {until_iso} (rate_limit)")),
        "{text}"
    );
    assert!(
        line_of("google:main").ends_with(&format!("disabled until {until_iso} (billing)")),
        "{text}"
    );
}

#[test]
fn status_shows_whether_a_run_holds_the_lock() {
    let home = Home::new();
    let mut session = SessionBuilder::new(ID, &home.workspace);
    session.user("a");
    let path = home.write_session(&session);
    let lock = crate::common::hold_lock(&path);
    let value: Value = serde_json::from_str(&stdout(&home.run(&["status", ID, "--json"]))).unwrap();
    assert_eq!(value["locked"], true);
    drop(lock);
    let value: Value = serde_json::from_str(&stdout(&home.run(&["status", ID, "--json"]))).unwrap();
    assert_eq!(value["locked"], false);
}

#[test]
fn an_unknown_config_key_is_an_error_naming_it() {
    let home = Home::new();
    std::fs::write(
        home.home.join("config.toml"),
        "model = \"anthropic/claude-sonnet-4-5\"\nmodle = 1\n",
    )
    .unwrap();
    let output = home.run(&["status"]);
    assert_eq!(code(&output), 2);
    assert!(stderr(&output).contains("modle"), "{}", stderr(&output));
    assert!(stdout(&output).is_empty());
}

#[test]
fn a_config_override_sets_the_default_model_and_an_unknown_override_is_rejected() {
    let home = Home::new();
    let output = home.run(&["-c", "model=openai/gpt-5", "status", "--json"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let value: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(value["model"], "openai/gpt-5");
    let output = home.run(&["status", "-c", "no_such_key=1"]);
    assert_eq!(code(&output), 2);
    assert!(
        stderr(&output).contains("no_such_key"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_bad_config_file_still_yields_a_json_result_for_run() {
    let home = Home::new();
    std::fs::write(home.home.join("config.toml"), "this is = = not toml").unwrap();
    let output = home.run(&["run", "--json", "hello"]);
    assert_eq!(code(&output), 2);
    let value: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(value["is_error"], true);
    assert!(
        value["error"]["message"]
            .as_str()
            .unwrap()
            .contains("config.toml")
    );
}

#[test]
fn auth_test_without_any_credential_exits_3_with_a_hint() {
    let home = Home::new();
    let output = home.run(&["auth", "test"]);
    assert_eq!(code(&output), 3);
    assert!(
        stderr(&output).contains("no credentials to test"),
        "{}",
        stderr(&output)
    );
    assert!(stderr(&output).contains("pincer auth add"));
}

#[test]
fn status_describes_the_current_branch_but_counts_spend_on_every_branch() {
    let home = Home::new();
    let mut session = SessionBuilder::new(ID, &home.workspace);
    let root = session.user("question");
    // An abandoned branch with a big, expensive call on another model.
    session.entry(
        "model_change",
        json!({"provider": "openai", "modelId": "gpt-5"}),
    );
    session.assistant_with("openai", "gpt-5", "abandoned", [50_000, 10, 0, 0], "stop");
    // The current branch (it ends the file): forked from the first question.
    session.entry_under(
        Some(&root),
        "message",
        json!({"message": {"role": "user", "content": "retry", "timestamp": 1}}),
    );
    session.assistant("kept", [100, 20, 0, 0]);
    home.write_session(&session);
    let value: Value = serde_json::from_str(&stdout(&home.run(&["status", ID, "--json"]))).unwrap();
    assert_eq!(value["provider"], "anthropic");
    assert_eq!(value["context"]["tokens"], 120);
    assert_eq!(value["turns"], 2);
    assert_eq!(value["usage"]["input_tokens"], 50_100);
}

/// Runs pincer where permissions bite: as `nobody` through `setpriv` when the tests run as root
/// (root reads and writes through any mode), as the current user otherwise. `None` when neither
/// can be arranged.
fn unprivileged(home: &Home, args: &[&str]) -> Option<std::process::Output> {
    // Files this process creates belong to its effective user.
    let as_root = std::os::unix::fs::MetadataExt::uid(&std::fs::metadata(&home.home).unwrap()) == 0;
    let mut command = home
        .pincer()
        .provider_url(&protocols::anthropic(), "http://127.0.0.1:9")
        .args(args);
    if as_root {
        let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"]
            .into_iter()
            .find(|path| std::path::Path::new(path).exists())?;
        command = command.inside(
            setpriv,
            ["--reuid=65534", "--regid=65534", "--clear-groups"],
        );
    }
    Some(command.output())
}

fn set_mode(path: &std::path::Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[test]
fn permission_problems_on_the_home_are_usage_errors_with_a_hint_in_every_command() {
    let home = Home::new();
    // Let the unprivileged user reach the workspace and the home at all.
    set_mode(home.root.path(), 0o755);
    set_mode(&home.workspace, 0o777);
    let expect_access_error = |args: &[&str], path: &std::path::Path| -> bool {
        let Some(output) = unprivileged(&home, args) else {
            return false;
        };
        let message = stderr(&output);
        assert_eq!(code(&output), 2, "{args:?}: {message}");
        assert!(message.starts_with("error: "), "{args:?}: {message}");
        assert!(
            message.contains(&format!(
                "hint: check the owner and permissions of '{}'",
                path.display()
            )),
            "{args:?}: {message}"
        );
        true
    };

    // A home pincer may read but not write: nothing can be created in it.
    set_mode(&home.home, 0o555);
    if !expect_access_error(&["run", "hello"], &home.sessions_dir()) {
        skip(
            "permission_problems_on_the_home_are_usage_errors_with_a_hint_in_every_command",
            "running as root without setpriv, so permissions cannot bite",
        );
        return;
    }
    expect_access_error(
        &["resume", "--create", "nightly", "hello"],
        &home.sessions_dir(),
    );
    let lock = home.home.join("auth-profiles.json.lock");
    // From here on `unprivileged` can run (the first check would have skipped the test).
    let output = unprivileged(&home, &["auth", "add", "anthropic", "--from-env", "KEY"]).unwrap();
    assert_eq!(code(&output), 2, "{}", stderr(&output));
    assert!(
        stderr(&output).contains(&format!(
            "check the owner and permissions of '{}'",
            lock.display()
        )),
        "{}",
        stderr(&output)
    );
    // In --json mode the result object says so too.
    let output = unprivileged(&home, &["run", "--json", "hello"]).unwrap();
    assert_eq!(code(&output), 2);
    let result: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(result["is_error"], true);

    // A sessions directory pincer may not read.
    set_mode(&home.home, 0o755);
    std::fs::create_dir(home.sessions_dir()).unwrap();
    set_mode(&home.sessions_dir(), 0o000);
    for args in [
        &["sessions", "list"][..],
        &["status"][..],
        &["status", "--json"][..],
        &["resume", "--last", "hello"][..],
        &["compact", "--last"][..],
        &["sessions", "rm", "nightly"][..],
    ] {
        expect_access_error(args, &home.sessions_dir());
    }
    set_mode(&home.sessions_dir(), 0o755);

    // An unreadable config file and auth store.
    let config = home.home.join("config.toml");
    std::fs::write(&config, "").unwrap();
    set_mode(&config, 0o000);
    expect_access_error(&["status"], &config);
    set_mode(&config, 0o644);
    let store = home.home.join("auth-profiles.json");
    std::fs::write(&store, "{\"version\": 1, \"profiles\": {}}").unwrap();
    set_mode(&store, 0o000);
    for args in [
        &["auth", "list"][..],
        &["status"][..],
        &["run", "hello"][..],
    ] {
        expect_access_error(args, &store);
    }
}
