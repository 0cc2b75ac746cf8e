//! Profile cooldowns across runs (SPEC §9.1, §9.3): an outcome lands on the profile the run
//! used and on no other, a burst of parallel failures is one failure, and a cooldown never
//! lasts longer than its own step, whatever the clock said when it was written.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::common::mock::{Body, Gate, MockServer, Piece, Reply};
use crate::common::protocols;
use crate::common::wire::anthropic as wire;
use crate::common::{Home, Pincer, code, stderr, stdout};

const MINUTE_MS: u64 = 60_000;

fn now_ms() -> u64 {
    u64::try_from(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap()
}

fn store(home: &Home) -> Value {
    serde_json::from_slice(&std::fs::read(home.home.join("auth-profiles.json")).unwrap()).unwrap()
}

fn write_store(home: &Home, store: &Value) {
    std::fs::write(
        home.home.join("auth-profiles.json"),
        serde_json::to_vec_pretty(store).unwrap(),
    )
    .unwrap();
}

fn rate_limit_body() -> Value {
    wire::error_body(
        "rate_limit_error",
        "Number of request tokens has exceeded your per-minute rate limit",
    )
}

/// A run on the Anthropic mock with the profiles only (no key in the environment) and no retry.
fn profile_run(home: &Home, server: &MockServer) -> Pincer {
    home.pincer()
        .provider(&protocols::anthropic(), server)
        .fast_retries()
        .env_remove(protocols::anthropic().key_var)
        .args([
            "-c",
            "retry.max_retries=0",
            "run",
            "--no-session-persistence",
            "--json",
        ])
}

#[test]
fn a_profile_removed_and_added_again_during_a_run_does_not_inherit_the_runs_failure() {
    let home = Home::new();
    home.add_profile("anthropic", "work", "sk-ant-old-key-0001");
    // The 429's body is held until the profile has been replaced.
    let gate = Gate::new();
    let held = Reply {
        status: 429,
        headers: vec![("content-type".into(), "application/json".into())],
        body: Body::Chunked(vec![
            Piece::Wait(gate.clone()),
            Piece::Data(serde_json::to_vec(&rate_limit_body()).unwrap()),
        ]),
    };
    let server = MockServer::start(vec![held]);
    let child = profile_run(&home, &server).arg("go").spawn();
    let waiting = Instant::now();
    while server.requests().is_empty() {
        assert!(waiting.elapsed() < Duration::from_secs(20), "no request");
        std::thread::sleep(Duration::from_millis(20));
    }
    let removed = home.run(&["auth", "remove", "anthropic:work"]);
    assert_eq!(code(&removed), 0, "{}", stderr(&removed));
    home.add_profile("anthropic", "work", "sk-ant-new-key-0002");
    gate.open();
    let output = child.wait_with_output().unwrap();
    assert_eq!(code(&output), 4, "{}", stderr(&output));

    let stats = &store(&home)["usageStats"]["anthropic:work"];
    assert!(stats.get("cooldownUntil").is_none(), "{stats}");
    assert!(stats.get("errorCount").is_none(), "{stats}");
    let status: Value =
        serde_json::from_str(&stdout(&home.run(&["auth", "status", "--json"]))).unwrap();
    assert_eq!(status["profiles"][0]["available"], true, "{status}");
}

#[test]
fn thirty_two_parallel_runs_rate_limited_together_cool_the_profile_down_one_minute() {
    let home = Home::new();
    home.add_profile("anthropic", "shared", "sk-ant-shared-0001");
    let server = MockServer::start_cycle(vec![Reply::json(429, &rate_limit_body())], "127.0.0.1:0");
    let children: Vec<_> = (0..32)
        .map(|_| profile_run(&home, &server).arg("go").spawn())
        .collect();
    for child in children {
        let output = child.wait_with_output().unwrap();
        assert_eq!(code(&output), 4, "{}", stderr(&output));
    }
    let stats = &store(&home)["usageStats"]["anthropic:shared"];
    assert_eq!(stats["errorCount"], 1, "{stats}");
    assert_eq!(stats["failureCounts"], json!({"rate_limit": 1}), "{stats}");
    let started = stats["lastFailureAt"].as_u64().unwrap();
    assert_eq!(
        stats["cooldownUntil"].as_u64().unwrap() - started,
        MINUTE_MS,
        "{stats}"
    );
}

#[test]
fn twenty_parallel_runs_on_twenty_profiles_lose_no_update_of_the_store() {
    let home = Home::new();
    for number in 0..20 {
        home.add_profile(
            "anthropic",
            &format!("p{number}"),
            &format!("sk-ant-parallel-{number:04}"),
        );
    }
    let server = MockServer::start_cycle(vec![Reply::json(429, &rate_limit_body())], "127.0.0.1:0");
    let children: Vec<_> = (0..20)
        .map(|number| {
            profile_run(&home, &server)
                .args(["--auth-profile", &format!("p{number}"), "go"])
                .spawn()
        })
        .collect();
    for child in children {
        let output = child.wait_with_output().unwrap();
        assert_eq!(code(&output), 4, "{}", stderr(&output));
        // Valid after every run, not only at the end (`store` fails on a torn file).
        assert!(store(&home)["profiles"].is_object());
    }
    let stats = &store(&home)["usageStats"];
    for number in 0..20 {
        let profile = &stats[format!("anthropic:p{number}")];
        assert_eq!(profile["errorCount"], 1, "p{number}: {stats}");
    }
}

#[test]
fn a_cooldown_written_with_the_clock_a_day_ahead_lasts_at_most_its_own_step() {
    let home = Home::new();
    home.add_profile("anthropic", "skewed", "sk-ant-skewed-0001");
    home.add_profile("anthropic", "spare", "sk-ant-spare-0002");
    let now = now_ms();
    let day = 24 * 60 * MINUTE_MS;
    let mut value = store(&home);
    // What a run on a machine whose clock was a day ahead wrote after one rate limit.
    value["usageStats"] = json!({
        "anthropic:skewed": {"cooldownUntil": now + day + MINUTE_MS, "errorCount": 1,
                             "failureCounts": {"rate_limit": 1}, "lastFailureAt": now + day}
    });
    write_store(&home, &value);

    let status: Value = serde_json::from_str(&stdout(&home.run(&["status", "--json"]))).unwrap();
    let skewed = status["credentials"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|provider| provider["sources"].as_array().unwrap())
        .find(|source| source["source"] == "profile:anthropic:skewed")
        .unwrap()
        .clone();
    assert_eq!(skewed["state"], "cooldown", "{skewed}");
    let until = time::OffsetDateTime::parse(
        skewed["until"].as_str().unwrap(),
        &time::format_description::well_known::Rfc3339,
    )
    .unwrap();
    let until_ms = u64::try_from(until.unix_timestamp_nanos() / 1_000_000).unwrap();
    assert!(until_ms <= now_ms() + MINUTE_MS, "{skewed}");

    // A run settles it in the store: from then on it ends a minute after it was first seen.
    let server = MockServer::start(vec![Reply::sse(&(protocols::anthropic().text)(&["ok"]))]);
    let before_run = now_ms();
    let output = profile_run(&home, &server).arg("go").output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let stats = &store(&home)["usageStats"]["anthropic:skewed"];
    let until = stats["cooldownUntil"].as_u64().unwrap();
    assert!(
        until > before_run && until <= now_ms() + MINUTE_MS,
        "{stats}"
    );
    assert!(
        stats["lastFailureAt"].as_u64().unwrap() <= now_ms(),
        "{stats}"
    );
    assert_eq!(stats["errorCount"], 1, "{stats}");
}
