//! The `--json` shapes of the reporting commands (`pincer::output::report`): each is pinned by
//! an insta snapshot (`tests/suite/snapshots/all__suite__reports__*.snap`) and parsed back with
//! the report types, which refuse unknown fields, and written again to the same JSON — so a
//! field added, renamed or dropped in the output fails here until the type and the snapshot say
//! so. What differs between runs (the temporary home, times) is replaced before the comparison.

use std::process::Output;

use pincer::output::report::{
    AuthAdded, AuthList, AuthOrder, AuthRemoved, AuthReset, AuthStatus, AuthTest, McpStatus,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::mcp::stdio_server;
use crate::common::mock::{MockServer, Reply};
use crate::common::protocols;
use crate::common::wire::anthropic::{self as wire, Usage4};
use crate::common::{Home, code, stderr, stdout};

/// `text` parsed as the report type `T` (unknown fields refused), after checking that `T`
/// writes the same JSON back.
pub(crate) fn typed<T: DeserializeOwned + Serialize>(text: &str) -> T {
    let typed: T = serde_json::from_str(text)
        .unwrap_or_else(|error| panic!("{error}: the type does not describe\n{text}"));
    let value: Value = serde_json::from_str(text).unwrap();
    assert_eq!(serde_json::to_value(&typed).unwrap(), value, "round trip");
    typed
}

/// Parse `output`'s stdout as `T` ([`typed`]) and return the JSON with the home's paths and
/// the times replaced, pretty-printed.
fn checked<T: DeserializeOwned + Serialize>(output: &Output, home: &Home) -> String {
    assert_eq!(code(output), 0, "{}", stderr(output));
    let text = stdout(output);
    let value = serde_json::to_value(typed::<T>(&text)).unwrap();
    let root = home.root.path().to_string_lossy().into_owned();
    let time = regex::Regex::new(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z").unwrap();
    let text = serde_json::to_string_pretty(&value)
        .unwrap()
        .replace(&root, "<root>");
    time.replace_all(&text, "<time>").into_owned()
}

#[test]
fn the_json_reports_of_the_auth_commands() {
    let home = Home::new();
    let added = home
        .pincer()
        .args(["auth", "add", "anthropic", "--name", "work", "--json"])
        .stdin("sk-ant-report-0000000000000001")
        .output();
    insta::assert_snapshot!("auth_add", checked::<AuthAdded>(&added, &home));
    home.add_profile_from_env("anthropic", "WORK_ANTHROPIC_KEY");
    home.add_profile("openai", "spare", "sk-report-0000000000000002");
    let listed = home.run(&["auth", "list", "--json"]);
    insta::assert_snapshot!("auth_list", checked::<AuthList>(&listed, &home));
    let ordered = home.run(&["auth", "order", "anthropic", "anthropic:work", "--json"]);
    insta::assert_snapshot!("auth_order", checked::<AuthOrder>(&ordered, &home));

    // One failing request, so that the status has a failure to show.
    let server = MockServer::start(vec![Reply::json(
        401,
        &wire::error_body("authentication_error", "invalid x-api-key"),
    )]);
    let tested = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .fast_retries()
        .args(["auth", "test", "anthropic:work", "--json"])
        .output();
    assert_eq!(code(&tested), 3, "{}", stderr(&tested));
    let report: AuthTest = serde_json::from_str(&stdout(&tested)).unwrap();
    assert_eq!(report.results[0].status, Some(Some(401)));
    let ok = MockServer::start(vec![Reply::sse(&wire::text_stream(
        &["OK"],
        Usage4 {
            input: 9,
            output: 1,
            cache_read: 0,
            cache_write: 0,
        },
    ))]);
    let tested = home
        .pincer()
        .provider(&protocols::anthropic(), &ok)
        .args(["auth", "test", "anthropic:work", "--json"])
        .output();
    let shown = checked::<AuthTest>(&tested, &home);
    let latency = regex::Regex::new(r#""latency_ms": \d+"#).unwrap();
    insta::assert_snapshot!(
        "auth_test",
        latency.replace_all(&shown, r#""latency_ms": 0"#)
    );

    let status = home.run(&["auth", "status", "--json"]);
    insta::assert_snapshot!("auth_status", checked::<AuthStatus>(&status, &home));
    let reset = home.run(&["auth", "reset", "anthropic:work", "--json"]);
    insta::assert_snapshot!("auth_reset", checked::<AuthReset>(&reset, &home));
    let removed = home.run(&["auth", "remove", "openai:spare", "--json"]);
    insta::assert_snapshot!("auth_remove", checked::<AuthRemoved>(&removed, &home));
}

#[test]
fn the_json_report_of_status_mcp() {
    let home = Home::new();
    let mut config = stdio_server("good", "stdio", None, json!({}));
    for (name, mode, extra) in [
        ("bad", "exit", json!({})),
        ("off", "stdio", json!({"enabled": false})),
    ] {
        config["mcpServers"][name] =
            stdio_server(name, mode, None, extra)["mcpServers"][name].clone();
    }
    let config = config.to_string();
    let mut output = home.run(&["status", "--mcp", "--json", "--mcp-config", &config]);
    // A server failed: exit 1, with the whole report.
    assert_eq!(code(&output), 1, "{}", stderr(&output));
    output.status = std::process::ExitStatus::default();
    let shown = checked::<McpStatus>(&output, &home);
    let varying = regex::Regex::new(r#""(startup_ms|pid)": \d+"#).unwrap();
    // Whether the connected server's greeting on stderr was read before it stopped is timing.
    let greeting =
        regex::Regex::new(r#""stderr_tail": \[\s*"test server ready on stdio"\s*\]"#).unwrap();
    let shown = varying.replace_all(&shown, r#""$1": 0"#);
    insta::assert_snapshot!(
        "status_mcp",
        greeting.replace_all(&shown, r#""stderr_tail": []"#)
    );
}

#[test]
fn a_secret_source_is_named_in_the_text_view_as_in_the_json() {
    use pincer::output::report::SecretSource;
    for source in [
        SecretSource::Stored,
        SecretSource::Env,
        SecretSource::Command,
        SecretSource::None,
    ] {
        assert_eq!(serde_json::to_value(source).unwrap(), source.as_str());
    }
}
