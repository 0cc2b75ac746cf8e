//! Resilience end to end (SPEC §9.3): retries that never print twice, rotation, billing
//! disables, model failover across providers, a rejected thinking level, and a profile store
//! shared by parallel runs.

use std::process::Output;
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::common::mock::{MockServer, Reply};
use crate::common::protocols;
use crate::common::wire::anthropic::{self as wire, Usage4};
use crate::common::wire::{gemini, openai};
use crate::common::{Home, code, stderr, stdout};

fn usage() -> Usage4 {
    Usage4 {
        input: 120,
        output: 8,
        cache_read: 0,
        cache_write: 0,
    }
}

fn text(chunks: &[&str]) -> Reply {
    Reply::sse(&wire::text_stream(chunks, usage()))
}

fn openai_text(answer: &str) -> Reply {
    Reply::sse(&openai::text_stream(
        &[answer],
        openai::Usage4 {
            input_total: 90,
            cached: 0,
            output: 6,
            reasoning: 0,
        },
    ))
}

fn overloaded() -> Reply {
    Reply::json(529, &wire::error_body("overloaded_error", "Overloaded"))
}

fn lines(output: &Output) -> Vec<Value> {
    stdout(output)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|error| panic!("{error}: {line}")))
        .collect()
}

fn session_text(home: &Home) -> String {
    let mut text = String::new();
    for entry in std::fs::read_dir(home.sessions_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path
            .extension()
            .is_some_and(|extension| extension == "jsonl")
        {
            text.push_str(&std::fs::read_to_string(path).unwrap());
        }
    }
    text
}

fn store(home: &Home) -> Value {
    serde_json::from_slice(&std::fs::read(home.home.join("auth-profiles.json")).unwrap()).unwrap()
}

/// A stream that breaks with an `overloaded_error` event after "Working on", then the whole
/// answer "Working on it."; `mode` goes after the prompt. Also a recorded run of `schema.rs`.
pub(crate) fn broken_stream_then_answer(home: &Home, mode: &[&str]) -> (Output, MockServer) {
    let broken = Reply::sse(&wire::error_event_stream(
        "Working on",
        "overloaded_error",
        "Overloaded",
    ));
    let server = MockServer::start(vec![broken, text(&["Working on", " it."])]);
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .fast_retries()
        .args(["run", "go"])
        .args(mode)
        .output();
    (output, server)
}

#[test]
fn a_stream_broken_after_text_is_retried_and_the_text_is_printed_once() {
    let home = Home::new();
    let (output, server) = broken_stream_then_answer(&home, &[]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(stdout(&output), "Working on it.\n");
    assert!(
        stderr(&output).contains("retrying the call"),
        "{}",
        stderr(&output)
    );
    assert_eq!(server.requests().len(), 2);

    // stream-json: one assistant message, and the retry says the partial text was dropped.
    let (output, _server) = broken_stream_then_answer(&home, &["--output-format", "stream-json"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let events = lines(&output);
    let assistants: Vec<&Value> = events
        .iter()
        .filter(|line| line["type"] == "assistant")
        .collect();
    assert_eq!(assistants.len(), 1);
    assert_eq!(
        assistants[0]["message"]["content"][0]["text"],
        "Working on it."
    );
    let retry = events
        .iter()
        .find(|line| line["subtype"] == "api_retry")
        .unwrap();
    assert_eq!(retry["discarded_partial"], true);
    assert_eq!(events.last().unwrap()["result"], "Working on it.");
}

#[test]
fn a_retried_answer_that_differs_is_printed_whole_after_a_notice() {
    let home = Home::new();
    let broken = Reply::sse(&wire::error_event_stream(
        "First try",
        "overloaded_error",
        "Overloaded",
    ));
    let server = MockServer::start(vec![broken, text(&["Second", " answer."])]);
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .fast_retries()
        .args(["run", "go"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    // Through a pipe the answer is written once, at the end: the broken first try never
    // reached stdout.
    assert_eq!(stdout(&output), "Second answer.\n");
    assert!(
        stderr(&output).contains("differs from the text printed"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_stream_broken_after_a_tool_ran_is_retried_and_the_tool_is_not_run_again() {
    let home = Home::new();
    std::fs::write(home.workspace.join("notes.txt"), "hello\n").unwrap();
    let server = MockServer::start(vec![
        Reply::sse(&wire::tool_use_stream(
            None,
            &[("toolu_01", "read", r#"{"path":"notes.txt"}"#)],
            usage(),
        )),
        Reply::sse(&wire::error_event_stream(
            "The file",
            "overloaded_error",
            "Overloaded",
        )),
        text(&["The file", " says hello."]),
    ]);
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .fast_retries()
        .args(["run", "go"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(stdout(&output), "The file says hello.\n");
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    // The resent request is the broken one: the tool's result is in it, answered once.
    assert_eq!(requests[1].json(), requests[2].json());
    let sent = requests[2].body.clone();
    let results = String::from_utf8_lossy(&sent).matches("toolu_01").count();
    assert_eq!(results, 2, "one tool_use and one tool_result for toolu_01");
}

#[test]
fn retry_after_ms_is_preferred_to_retry_after() {
    let home = Home::new();
    let limited = Reply::json(429, &wire::error_body("rate_limit_error", "slow down"))
        .header("retry-after-ms", "40")
        .header("retry-after", "30");
    let server = MockServer::start(vec![limited, text(&["after the short wait"])]);
    let started = Instant::now();
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .fast_retries()
        .args(["run", "--output-format", "stream-json", "go"])
        .output();
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let retry = lines(&output)
        .into_iter()
        .find(|line| line["subtype"] == "api_retry")
        .unwrap();
    assert_eq!(retry["delay_ms"], 40);
}

#[test]
fn x_should_retry_false_on_a_500_makes_one_request() {
    let home = Home::new();
    let server = MockServer::start(vec![
        Reply::json(500, &wire::error_body("api_error", "Internal server error"))
            .header("x-should-retry", "false"),
        text(&["not reached"]),
    ]);
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .fast_retries()
        .args(["run", "--json", "go"])
        .output();
    assert_eq!(code(&output), 4, "{}", stderr(&output));
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn insufficient_quota_disables_the_profile_for_hours_and_the_next_key_answers() {
    let home = Home::new();
    let (key_a, key_b) = ("sk-proj-quota-AAAA-01", "sk-proj-quota-BBBB-02");
    home.add_profile("openai", "a", key_a);
    home.add_profile("openai", "b", key_b);
    let anthropic = MockServer::start(vec![]);
    let server = MockServer::start(vec![
        Reply::json(429, &openai::insufficient_quota_body()),
        openai_text("paid for"),
    ]);
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &anthropic)
        .provider(&protocols::openai(), &server)
        .fast_retries()
        .env_remove(protocols::openai().key_var)
        .args(["run", "-m", "openai/gpt-5", "go"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(stdout(&output), "paid for\n");
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "the exhausted key is not retried");
    let first = requests[0].header("authorization").unwrap().to_owned();
    let second = requests[1].header("authorization").unwrap().to_owned();
    assert_ne!(first, second);
    let failed = if first.ends_with(key_a) {
        "openai:a"
    } else {
        "openai:b"
    };
    let stats = &store(&home)["usageStats"][failed];
    assert_eq!(stats["disabledReason"], "billing", "{stats}");
    let now = u64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap();
    let until = stats["disabledUntil"].as_u64().unwrap();
    assert!(
        until > now + 4 * 3_600_000,
        "disabled for about 5 hours: {stats}"
    );
    // `status` shows it.
    let status = home.pincer().args(["auth", "status"]).output();
    assert!(stdout(&status).contains("billing"), "{}", stdout(&status));
}

/// Gemini's 429 for a per-minute quota says "You exceeded your current quota" (billing words)
/// with a `retry-after` header and no `RetryInfo`: a rate limit, retried after the requested
/// wait, never the 5-hour billing disable of the profile.
fn gemini_quota(header: &str, wait: &str) -> Reply {
    Reply::json(
        429,
        &gemini::error_body(
            429,
            "RESOURCE_EXHAUSTED",
            "You exceeded your current quota, please check your plan and billing details.",
        ),
    )
    .header(header, wait)
}

fn gemini_run(home: &Home, server: &MockServer) -> Output {
    let anthropic = MockServer::start(vec![]);
    home.pincer()
        .provider(&protocols::anthropic(), &anthropic)
        .fast_retries()
        // A base URL only: the key is the stored profile.
        .env(
            protocols::gemini().base_url_var,
            protocols::gemini().base_url(&server.url()),
        )
        .args(["run", "-m", "google/gemini-2.5-flash", "go"])
        .output()
}

#[test]
fn a_gemini_quota_429_with_retry_after_is_retried_and_never_disables_the_profile() {
    let home = Home::new();
    home.add_profile("google", "main", "AIzaSy-quota-KEY-0001");
    let server = MockServer::start(vec![
        gemini_quota("retry-after", "1"),
        Reply::sse(&gemini::text_stream(
            &["after the wait"],
            gemini::Usage4::new(40, 0, 4, 0),
        )),
    ]);
    let started = Instant::now();
    let output = gemini_run(&home, &server);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(stdout(&output), "after the wait\n");
    assert_eq!(server.requests().len(), 2, "retried with the same key");
    assert!(
        started.elapsed() >= Duration::from_millis(900),
        "the retry-after wait was honoured"
    );
    let stats = &store(&home)["usageStats"]["google:main"];
    assert!(stats.get("disabledUntil").is_none(), "{stats}");
    assert!(stats.get("disabledReason").is_none(), "{stats}");
}

#[test]
fn a_gemini_quota_429_that_outlasts_the_retries_cools_the_profile_down_not_for_hours() {
    let home = Home::new();
    home.add_profile("google", "main", "AIzaSy-quota-KEY-0002");
    // A short wait keeps the test fast; the header is the same signal.
    let server = MockServer::start(
        (0..4)
            .map(|_| gemini_quota("retry-after-ms", "20"))
            .collect(),
    );
    let output = gemini_run(&home, &server);
    assert_eq!(code(&output), 4, "{}", stderr(&output));
    assert_eq!(
        server.requests().len(),
        4,
        "the first call and three retries"
    );
    let stats = &store(&home)["usageStats"]["google:main"];
    assert!(stats.get("disabledUntil").is_none(), "{stats}");
    assert_eq!(stats["failureCounts"], json!({"rate_limit": 1}), "{stats}");
    assert!(stats["cooldownUntil"].as_u64().is_some(), "{stats}");
}

/// Anthropic overloaded on the call and its one retry, then the fallback `openai/gpt-5` answers
/// "from the fallback"; `mode` goes after the prompt. Returns the Anthropic and the OpenAI mock.
/// Also a recorded run of `schema.rs`.
pub(crate) fn overloaded_then_fallback(
    home: &Home,
    mode: &[&str],
) -> (Output, MockServer, MockServer) {
    let anthropic = MockServer::start(vec![overloaded(), overloaded()]);
    let openai_server = MockServer::start(vec![openai_text("from the fallback")]);
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &anthropic)
        .provider(&protocols::openai(), &openai_server)
        .fast_retries()
        .args([
            "-c",
            "retry.max_retries=1",
            "run",
            "--fallback-model",
            "openai/gpt-5",
            "go",
        ])
        .args(mode)
        .output();
    (output, anthropic, openai_server)
}

#[test]
fn an_overloaded_provider_falls_back_to_the_next_model_and_the_session_keeps_its_model() {
    let home = Home::new();
    let (output, anthropic, openai_server) =
        overloaded_then_fallback(&home, &["--output-format", "stream-json"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(anthropic.requests().len(), 2);
    assert_eq!(openai_server.requests().len(), 1);
    let events = lines(&output);
    let fallback = events
        .iter()
        .find(|line| line["subtype"] == "model_fallback")
        .unwrap();
    assert_eq!(fallback["from"], "anthropic/claude-sonnet-4-5");
    assert_eq!(fallback["to"], "openai/gpt-5");
    assert_eq!(fallback["reason"], "overloaded");
    let result = events.last().unwrap();
    assert_eq!(result["result"], "from the fallback");
    assert_eq!(result["model"], "gpt-5");
    assert_eq!(result["provider"], "openai");
    assert_eq!(result["is_error"], false);
    let errors = result["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1);
    assert!(
        errors[0]
            .as_str()
            .unwrap()
            .starts_with("anthropic/claude-sonnet-4-5: "),
        "{errors:?}"
    );
    // The fallback system prompt names the fallback model.
    let sent = openai_server.requests()[0].json();
    assert!(
        sent["instructions"]
            .as_str()
            .unwrap()
            .contains("openai/gpt-5"),
        "{sent}"
    );
    // The session's last model_change points back at the primary, so a resume uses it.
    let session = session_text(&home);
    let last_change: Value = session
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .rfind(|entry| entry["type"] == "model_change")
        .unwrap();
    assert_eq!(last_change["provider"], "anthropic");
    let anthropic_again = MockServer::start(vec![text(&["primary is back"])]);
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &anthropic_again)
        .provider(&protocols::openai(), &openai_server)
        .fast_retries()
        .args(["resume", "--last", "again"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(stdout(&output), "primary is back\n");
}

#[test]
fn config_fallbacks_are_used_and_all_failing_exits_4_listing_every_attempt() {
    let home = Home::new();
    std::fs::write(
        home.home.join("config.toml"),
        "fallbacks = [\"openai/gpt-5\"]\n",
    )
    .unwrap();
    let anthropic = MockServer::start(vec![overloaded()]);
    let openai_server = MockServer::start(vec![Reply::json(
        503,
        &openai::error_envelope("server_error", None, "The server is overloaded", None),
    )]);
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &anthropic)
        .provider(&protocols::openai(), &openai_server)
        .fast_retries()
        .args(["-c", "retry.max_retries=0", "run", "--json", "go"])
        .output();
    assert_eq!(code(&output), 4, "{}", stderr(&output));
    let result: Value = serde_json::from_str(stdout(&output).trim()).unwrap();
    assert_eq!(result["is_error"], true);
    let errors: Vec<&str> = result["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|error| error.as_str().unwrap())
        .collect();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(errors[0].starts_with("anthropic/claude-sonnet-4-5: "));
    assert!(errors[1].starts_with("openai/gpt-5: "));
    assert!(
        result["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("all 2 models failed"),
        "{result}"
    );
    assert!(
        stderr(&output).contains("trying openai/gpt-5"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_provider_whose_profiles_all_cool_is_skipped_for_the_fallback() {
    let home = Home::new();
    home.add_profile("anthropic", "only", "sk-ant-cooling-0001");
    // Mark the only profile as cooling for an hour, as an earlier run would have.
    let path = home.home.join("auth-profiles.json");
    let mut value = store(&home);
    let until = 4_102_444_800_000_u64; // 2100-01-01
    value["usageStats"] = json!({
        "anthropic:only": {"cooldownUntil": until, "errorCount": 1, "failureCounts": {"rate_limit": 1}}
    });
    std::fs::write(&path, serde_json::to_vec_pretty(&value).unwrap()).unwrap();
    let anthropic = MockServer::start(vec![text(&["should not be asked"])]);
    let openai_server = MockServer::start(vec![openai_text("the fallback answers")]);
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &anthropic)
        .provider(&protocols::openai(), &openai_server)
        .fast_retries()
        .env_remove(protocols::anthropic().key_var)
        .args([
            "run",
            "--fallback-model",
            "openai/gpt-5",
            "--output-format",
            "stream-json",
            "go",
        ])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(anthropic.requests().is_empty());
    let events = lines(&output);
    let fallback = events
        .iter()
        .find(|line| line["subtype"] == "model_fallback")
        .unwrap();
    assert_eq!(fallback["reason"], "rate_limit");
    assert!(
        fallback["error"].as_str().unwrap().contains("cooldown"),
        "{fallback}"
    );
    assert_eq!(events.last().unwrap()["result"], "the fallback answers");
}

#[test]
fn a_rejected_thinking_level_is_retried_one_level_lower_until_accepted() {
    let home = Home::new();
    let rejected = || {
        Reply::json(
            400,
            &wire::error_body(
                "invalid_request_error",
                "thinking.budget_tokens: this model does not support extended thinking at this budget",
            ),
        )
    };
    let server = MockServer::start(vec![rejected(), rejected(), text(&["plain answer"])]);
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .fast_retries()
        .args(["run", "--thinking", "low", "go"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(stdout(&output), "plain answer\n");
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    assert!(requests[0].json().get("thinking").is_some());
    assert!(
        requests[2].json().get("thinking").is_none(),
        "{}",
        requests[2].json()
    );
    let levels: Vec<String> = session_text(&home)
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|entry| entry["type"] == "thinking_level_change")
        .map(|entry| entry["thinkingLevel"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(levels, ["low", "minimal", "off"]);
}

#[test]
fn the_keys_never_appear_in_output_sessions_the_index_or_a_dry_run() {
    let home = Home::new();
    let profile_key = "sk-ant-profile-SECRET-9e41b7";
    home.add_profile("anthropic", "main", profile_key);
    let server = MockServer::start(vec![
        Reply::json(
            401,
            &wire::error_body("authentication_error", "invalid x-api-key"),
        ),
        text(&["answered"]),
        overloaded(),
    ]);
    let events_file = home.root.path().join("events.jsonl");
    let mut outputs = Vec::new();
    for args in [
        vec![
            "run",
            "--output-format",
            "stream-json",
            "--include-partial-messages",
            "--events-file",
            events_file.to_str().unwrap(),
            "first",
        ],
        vec![
            "-c",
            "retry.max_retries=0",
            "resume",
            "--last",
            "--json",
            "second",
        ],
        vec!["run", "--dry-run", "third"],
        vec!["status", "--json"],
        vec!["auth", "list", "--json"],
        vec!["sessions", "list", "--json"],
    ] {
        outputs.push(
            home.pincer()
                .provider(&protocols::anthropic(), &server)
                .fast_retries()
                .args(args)
                .output(),
        );
    }
    assert_eq!(code(&outputs[0]), 0, "{}", stderr(&outputs[0]));
    let mut texts: Vec<String> = outputs
        .iter()
        .flat_map(|output| [stdout(output), stderr(output)])
        .collect();
    for entry in walk(&home.home) {
        if !entry.ends_with("auth-profiles.json") {
            texts.push(String::from_utf8_lossy(&std::fs::read(&entry).unwrap()).into_owned());
        }
    }
    texts.push(std::fs::read_to_string(&events_file).unwrap());
    for text in &texts {
        for key in [profile_key, protocols::KEY] {
            assert!(!text.contains(key), "a key leaked: {text}");
        }
    }
    // The sweep saw the session and the index.
    assert!(texts.iter().any(|text| text.contains("\"first\"")));
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

#[test]
fn auth_test_sends_one_small_request_per_credential_and_classifies_each() {
    let home = Home::new();
    let (good, bad) = ("sk-ant-authtest-GOOD-01", "sk-ant-authtest-BAD-002");
    home.add_profile("anthropic", "good", good);
    home.add_profile("anthropic", "bad", bad);
    let server = MockServer::start_cycle(
        vec![Reply::json(
            401,
            &wire::error_body("authentication_error", "invalid x-api-key"),
        )],
        "127.0.0.1:0",
    );
    // Answer by key: the mock replies in order, so test the profiles one at a time.
    let ok_server = MockServer::start(vec![text(&["OK"])]);
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &ok_server)
        .fast_retries()
        .env_remove(protocols::anthropic().key_var)
        .args(["auth", "test", "anthropic:good", "--json"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let report: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(report["results"][0]["ok"], true);
    assert_eq!(report["results"][0]["source"], "profile:anthropic:good");
    let sent = ok_server.requests()[0].json();
    assert_eq!(sent["model"], "claude-haiku-4-5");
    assert_eq!(sent["max_tokens"], 32);
    assert!(sent.get("tools").is_none(), "{sent}");

    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .fast_retries()
        .args(["auth", "test", "anthropic"])
        .output();
    assert_eq!(code(&output), 3, "{}", stderr(&output));
    let text = stdout(&output);
    assert_eq!(
        text.lines().count(),
        3,
        "two profiles and the env key: {text}"
    );
    assert!(text.contains("profile:anthropic:bad"), "{text}");
    assert!(text.contains("env:ANTHROPIC_API_KEY"), "{text}");
    assert!(text.contains("invalid x-api-key"), "{text}");
    for key in [good, bad, protocols::KEY] {
        assert!(!text.contains(key) && !stderr(&output).contains(key));
    }
    // The store is read, not changed: no failure was recorded by the test.
    assert!(store(&home).get("usageStats").is_none_or(|stats| {
        stats
            .as_object()
            .unwrap()
            .values()
            .all(|entry| entry.get("errorCount").is_none_or(|count| count == 0))
    }));
}

#[test]
fn a_cron_job_with_two_keys_and_a_fallback_survives_a_rate_limit_and_a_revoked_key() {
    let home = Home::new();
    home.add_profile("anthropic", "one", "sk-ant-cron-ONE-000001");
    home.add_profile("anthropic", "two", "sk-ant-cron-TWO-000002");
    std::fs::write(
        home.home.join("config.toml"),
        "fallbacks = [\"openai/gpt-5\"]\n[retry]\nmax_retries = 0\n",
    )
    .unwrap();
    let anthropic = MockServer::start(vec![
        Reply::json(429, &wire::error_body("rate_limit_error", "rate limited"))
            .header("retry-after", "120"),
        Reply::json(
            401,
            &wire::error_body("authentication_error", "invalid x-api-key"),
        ),
    ]);
    let openai_server = MockServer::start(vec![openai_text("night one"), openai_text("night two")]);
    let cron = |anthropic: &MockServer| {
        home.pincer()
            .provider(&protocols::anthropic(), anthropic)
            .provider(&protocols::openai(), &openai_server)
            .fast_retries()
            .env_remove(protocols::anthropic().key_var)
            .args(["resume", "--create", "nightly", "--json", "report"])
            .output()
    };
    let output = cron(&anthropic);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let result: Value = serde_json::from_str(stdout(&output).trim()).unwrap();
    assert_eq!(result["result"], "night one");
    assert_eq!(anthropic.requests().len(), 2);

    // Every state change is visible in `pincer status`.
    let status = home
        .pincer()
        .provider(&protocols::anthropic(), &anthropic)
        .fast_retries()
        .args(["status", "--json"])
        .output();
    let status: Value = serde_json::from_str(&stdout(&status)).unwrap();
    let profiles = status["auth_profiles"].as_array().unwrap();
    let mut reasons: Vec<String> = profiles
        .iter()
        .map(|profile| {
            assert!(profile["cooldown_until"].as_u64().is_some(), "{profile}");
            profile["failure_counts"]
                .as_object()
                .unwrap()
                .keys()
                .cloned()
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect();
    reasons.sort();
    assert_eq!(reasons, ["auth", "rate_limit"]);

    // The next night both keys still cool: Anthropic is skipped without a request.
    let quiet = MockServer::start(vec![text(&["must not be asked"])]);
    let output = cron(&quiet);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(quiet.requests().is_empty());
    let result: Value = serde_json::from_str(stdout(&output).trim()).unwrap();
    assert_eq!(result["result"], "night two");
    assert!(
        stderr(&output).contains("in cooldown"),
        "{}",
        stderr(&output)
    );
}
