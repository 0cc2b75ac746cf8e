//! Prompt caching on the wire (README "Prompt caching"): the cache lifetime asked of Anthropic
//! (`[cache] ttl`), where its four breakpoints go over turns and a compaction, and the fixed
//! overhead every request carries (system prompt and tool definitions) as `status` and the
//! result report it.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::common::mock::MockServer;
use crate::common::wire::anthropic::Usage4;
use crate::common::{Home, anthropic_tool_turn, code, stderr, stdout};

const USAGE: Usage4 = Usage4 {
    input: 100,
    output: 10,
    cache_read: 0,
    cache_write: 0,
};

/// Every `cache_control` object of a request body, in document order.
fn breakpoints(body: &Value) -> Vec<Value> {
    fn collect(value: &Value, found: &mut Vec<Value>) {
        match value {
            Value::Object(map) => {
                if let Some(control) = map.get("cache_control") {
                    found.push(control.clone());
                }
                map.values().for_each(|value| collect(value, found));
            }
            Value::Array(items) => items.iter().for_each(|value| collect(value, found)),
            _ => {}
        }
    }
    let mut found = Vec::new();
    collect(body, &mut found);
    found
}

/// A tool turn (an `ls` call, then "Done.") against the mock with `config` overrides.
fn tool_turn(home: &Home, config: &[&str]) -> (std::process::Output, MockServer) {
    let server = MockServer::start(anthropic_tool_turn(
        "Looking.",
        ("toolu_", "ls"),
        &[json!({})],
        USAGE,
    ));
    let mut args: Vec<&str> = Vec::new();
    for value in config {
        args.extend(["-c", value]);
    }
    args.extend(["run", "-m", "anthropic/claude-sonnet-4-5", "list the files"]);
    let output = home.pincer().providers(&server).args(args).output();
    (output, server)
}

#[test]
fn a_one_hour_cache_ttl_goes_on_every_anthropic_breakpoint() {
    let home = Home::new();
    let (output, server) = tool_turn(&home, &["cache.ttl=\"1h\""]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    // Tools, system and the prompt; then tools, system, the prompt and the tool result.
    for (request, count) in requests.iter().zip([3, 4]) {
        assert_eq!(
            breakpoints(&request.json()),
            vec![json!({"type": "ephemeral", "ttl": "1h"}); count],
            "every breakpoint asks for an hour"
        );
    }
}

#[test]
fn the_default_five_minute_cache_sends_breakpoints_without_a_ttl() {
    let home = Home::new();
    let (output, server) = tool_turn(&home, &[]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    for request in server.requests() {
        let found = breakpoints(&request.json());
        assert!(!found.is_empty());
        assert!(
            found
                .iter()
                .all(|control| *control == json!({"type": "ephemeral"})),
            "{found:?}"
        );
    }
    // Said explicitly, the default is the same request.
    let home = Home::new();
    let (output, server) = tool_turn(&home, &["cache.ttl=\"5m\""]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let found = breakpoints(&server.requests()[0].json());
    assert!(
        found
            .iter()
            .all(|control| *control == json!({"type": "ephemeral"}))
    );
}

#[test]
fn a_cache_ttl_other_than_5m_or_1h_is_refused_before_any_request() {
    let home = Home::new();
    let (output, server) = tool_turn(&home, &["cache.ttl=\"30m\""]);
    assert_eq!(code(&output), 2, "{}", stderr(&output));
    assert!(stderr(&output).contains("cache.ttl"), "{}", stderr(&output));
    assert!(server.requests().is_empty());
}

#[test]
fn status_and_dry_run_show_the_cache_ttl() {
    let home = Home::new();
    std::fs::write(home.home.join("config.toml"), "[cache]\nttl = \"1h\"\n").unwrap();
    let output = home.run(&["status", "--json"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let status: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(status["cache"]["ttl"], "1h");
    let text = stdout(&home.run(&["status"]));
    assert!(text.contains("cache ttl:      1h"), "{text}");

    let server = MockServer::start(Vec::new());
    let output = home
        .pincer()
        .providers(&server)
        .args([
            "run",
            "--dry-run",
            "-m",
            "anthropic/claude-sonnet-4-5",
            "hi",
        ])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let plan: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(plan["cache_ttl"], "1h");
    assert_eq!(
        plan["body"]["system"][0]["cache_control"],
        json!({"type": "ephemeral", "ttl": "1h"})
    );
}
