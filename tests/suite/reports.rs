//! The `--json` shapes of the reporting commands (`pincer::output::report`): each is pinned by
//! an insta snapshot (`tests/suite/snapshots/all__suite__reports__*.snap`) and parsed back with
//! the report types, which refuse unknown fields, and written again to the same JSON — so a
//! field added, renamed or dropped in the output fails here until the type and the snapshot say
//! so. What differs between runs (the temporary home, times) is replaced before the comparison.

use std::process::Output;

use pincer::output::report::{
    AuthAdded, AuthList, AuthOrder, AuthRemoved, AuthReset, AuthStatus, AuthTest, DryRun,
    InstallationStatus, McpStatus, SessionExport, SessionForked, SessionListItem, SessionPath,
    SessionRenamed, SessionRepaired, SessionShown, SessionStatus, SessionTreeShown, SessionsPruned,
    SessionsRemoved,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::mcp::stdio_server;
use crate::common::mock::{MockServer, Reply};
use crate::common::protocols;
use crate::common::wire::anthropic::{self as wire, Usage4};
use crate::common::{Home, SessionBuilder, code, stderr, stdout};

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
    checked_with::<T>(output, home, |_| {})
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

/// `output`'s stdout as `T` ([`typed`]), changed by `normalize` (for what differs between
/// machines), then as [`checked`] shows it.
fn checked_with<T: DeserializeOwned + Serialize>(
    output: &Output,
    home: &Home,
    normalize: impl FnOnce(&mut Value),
) -> String {
    assert_eq!(code(output), 0, "{}", stderr(output));
    let mut value = serde_json::to_value(typed::<T>(&stdout(output))).unwrap();
    normalize(&mut value);
    let root = home.root.path().to_string_lossy().into_owned();
    let time = regex::Regex::new(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z").unwrap();
    // The stamp in the name of a side file of `sessions repair`.
    let stamp = regex::Regex::new(r"\.corrupt-[0-9TZ-]+").unwrap();
    let text = serde_json::to_string_pretty(&value)
        .unwrap()
        .replace(&root, "<root>")
        .replace(env!("CARGO_MANIFEST_DIR"), "<repo>");
    let text = time.replace_all(&text, "<time>");
    stamp.replace_all(&text, ".corrupt-<time>").into_owned()
}

/// Replace the values of `keys` in the object at `value` (when they are there) with `shown`.
fn blank(value: &mut Value, keys: &[&str], shown: &str) {
    for key in keys {
        if let Some(field) = value.get_mut(*key) {
            *field = json!(shown);
        }
    }
}

/// What `exec` protection this machine has: not the report's shape.
const PROBED: [&str; 8] = [
    "exec_protection",
    "exec_enforcement",
    "exec_enforced",
    "exec_namespace",
    "exec_landlock",
    "exec_network",
    "exec_launcher",
    "exec_probed_at",
];

const SESSION: &str = "019ad3c1-0000-7000-8000-0000000000aa";
const OLD: &str = "019ad3c1-0000-7000-8000-0000000000bb";

/// A named session on the catalog's Sonnet, two turns, one of them failed.
fn write_sessions(home: &Home) {
    let mut session = SessionBuilder::new(SESSION, &home.workspace);
    session.entry(
        "model_change",
        json!({"provider": "anthropic", "modelId": "claude-sonnet-4-5"}),
    );
    session.name("report");
    session.user("first");
    session.assistant("big context", [1, 100, 85_000, 500]);
    session.user("second");
    session.assistant_with("anthropic", "claude-sonnet-4-5", "", [0, 0, 0, 0], "error");
    home.write_session(&session);
    let mut old = SessionBuilder::new(OLD, &home.workspace).created("2024-01-01T00:00:00.000Z");
    old.user("long ago");
    home.write_session(&old);
}

#[test]
fn the_json_reports_of_status() {
    let home = Home::new();
    write_sessions(&home);
    home.add_profile("anthropic", "work", "sk-ant-report-0000000000000001");
    let installation = home.run(&["status", "--json"]);
    let shown = checked_with::<InstallationStatus>(&installation, &home, |value| {
        blank(value, &["version"], "<version>");
        blank(&mut value["sandbox"], &PROBED, "<probed>");
        blank(&mut value["system_prompt"], &["chars"], "<chars>");
        for section in value["system_prompt"]["sections"].as_array_mut().unwrap() {
            blank(section, &["chars"], "<chars>");
        }
        blank(
            &mut value["overhead"],
            &["tokens", "system_prompt_tokens", "tool_tokens"],
            "<tokens>",
        );
    });
    insta::assert_snapshot!("status", shown);
    let session = home.run(&["status", SESSION, "--json"]);
    insta::assert_snapshot!("status_session", checked::<SessionStatus>(&session, &home));

    // The text views, rendered from the same reports.
    let root = home.root.path().to_string_lossy().into_owned();
    let text = stdout(&home.run(&["status", SESSION])).replace(&root, "<root>");
    insta::assert_snapshot!("status_session_text", text);
    let machine = [
        "pincer:",
        "sandbox:",
        "exec:",
        "network:",
        "exec probed:",
        "overhead:",
    ];
    let text: String = stdout(&home.run(&["status"]))
        .replace(&root, "<root>")
        .lines()
        .filter(|line| !machine.iter().any(|key| line.starts_with(key)))
        .map(|line| format!("{line}\n"))
        .collect();
    insta::assert_snapshot!("status_text", text);
}

#[test]
fn the_json_reports_of_the_sessions_commands() {
    let home = Home::new();
    write_sessions(&home);
    let listed = home.run(&["sessions", "list", "--json"]);
    insta::assert_snapshot!(
        "sessions_list",
        checked::<Vec<SessionListItem>>(&listed, &home)
    );
    let shown = home.run(&["sessions", "show", SESSION, "--json"]);
    insta::assert_snapshot!("sessions_show", checked::<SessionShown>(&shown, &home));
    let tree = home.run(&["sessions", "show", SESSION, "--tree", "--json"]);
    insta::assert_snapshot!(
        "sessions_show_tree",
        checked::<SessionTreeShown>(&tree, &home)
    );
    let exported = home.run(&["sessions", "export", SESSION, "--format", "json"]);
    insta::assert_snapshot!(
        "sessions_export",
        checked::<SessionExport>(&exported, &home)
    );
    let path = home.run(&["sessions", "path", SESSION, "--json"]);
    insta::assert_snapshot!("sessions_path", checked::<SessionPath>(&path, &home));
    let renamed = home.run(&["sessions", "rename", SESSION, "renamed", "--json"]);
    insta::assert_snapshot!(
        "sessions_rename",
        checked::<SessionRenamed>(&renamed, &home)
    );
    let forked = home.run(&[
        "sessions", "fork", SESSION, "--at", "a0000003", "--name", "branch", "--json",
    ]);
    let fork_id = serde_json::from_str::<Value>(&stdout(&forked)).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    // The new file's name starts with when it was made.
    let stamp = regex::Regex::new(&format!(r"\d{{4}}-[0-9T-]+Z_{fork_id}")).unwrap();
    let shown = checked::<SessionForked>(&forked, &home);
    let shown = stamp
        .replace_all(&shown, "<stamp>_<fork>")
        .replace(&fork_id, "<fork>");
    insta::assert_snapshot!("sessions_fork", shown);

    // A torn last line and a corrupt one in the middle.
    let file = home
        .sessions_dir()
        .join("2026-11-30T10-00-00-000Z_".to_owned() + SESSION + ".jsonl");
    let mut text = std::fs::read_to_string(&file).unwrap();
    let cut = text[..text.len() - 1].rfind('\n').unwrap() + 1;
    text.insert_str(cut, "{not json}\n");
    text.push_str("{\"type\":\"message\",\"id\":\"torn");
    std::fs::write(&file, text).unwrap();
    let repair = home.run(&["sessions", "repair", SESSION, "--dry-run", "--json"]);
    insta::assert_snapshot!(
        "sessions_repair_dry_run",
        checked::<SessionRepaired>(&repair, &home)
    );
    let repair = home.run(&["sessions", "repair", SESSION, "--json"]);
    insta::assert_snapshot!(
        "sessions_repair",
        checked::<SessionRepaired>(&repair, &home)
    );

    let would = home.run(&[
        "sessions",
        "prune",
        "--older-than",
        "30d",
        "--dry-run",
        "--json",
    ]);
    insta::assert_snapshot!(
        "sessions_prune_dry_run",
        checked::<SessionsPruned>(&would, &home)
    );
    let pruned = home.run(&["sessions", "prune", "--older-than", "30d", "--json"]);
    insta::assert_snapshot!("sessions_prune", checked::<SessionsPruned>(&pruned, &home));
    let removed = home.run(&["sessions", "rm", &fork_id, "--force", "--json"]);
    let shown = checked::<SessionsRemoved>(&removed, &home);
    let shown = stamp
        .replace_all(&shown, "<stamp>_<fork>")
        .replace(&fork_id, "<fork>");
    insta::assert_snapshot!("sessions_rm", shown);
}

/// The `--dry-run` report with its varying parts (the new session's id, the prompt, the
/// request body and their sizes, this machine's `exec` protection) replaced.
fn dry_run_shown(output: &Output, home: &Home) -> String {
    assert_eq!(code(output), 0, "{}", stderr(output));
    let id = serde_json::from_str::<Value>(&stdout(output)).unwrap()["session_id"]
        .as_str()
        .unwrap_or("<none>")
        .to_owned();
    checked_with::<DryRun>(output, home, |value| {
        blank(value, &["system_prompt", "body"], "<prompt>");
        blank(value, &["overhead_tokens"], "<tokens>");
        for section in value["system_prompt_sections"].as_array_mut().unwrap() {
            blank(section, &["chars"], "<chars>");
        }
        blank(&mut value["sandbox"], &PROBED, "<probed>");
    })
    .replace(&id, "<session>")
}

#[test]
fn the_json_reports_of_a_dry_run() {
    let bench = crate::suite::backends::Bench::new();
    let home = &bench.home;
    let config = home.home.join("config.toml");
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str("\n[[hooks.PreToolUse]]\nmatcher = \"exec\"\ncommand = \"true\"\n");
    std::fs::write(&config, text).unwrap();
    let servers = stdio_server(
        "good",
        "stdio",
        None,
        json!({"env": {"TOKEN": "${GH:-none}"}}),
    )
    .to_string();
    let api = home
        .pincer()
        .key(&protocols::anthropic(), "sk-ant-SECRET-4242")
        .args([
            "run",
            "--dry-run",
            "-m",
            "anthropic/claude-sonnet-4-5",
            "--mcp-config",
            &servers,
            "hi",
        ])
        .output();
    insta::assert_snapshot!("dry_run_api", dry_run_shown(&api, home));
    let child = home
        .pincer()
        .args([
            "run",
            "--dry-run",
            "-m",
            "claude-cli/sonnet",
            "--mcp-config",
            &servers,
            "hi",
        ])
        .output();
    insta::assert_snapshot!("dry_run_child", dry_run_shown(&child, home));
}

#[test]
fn a_skill_source_is_named_in_the_text_view_as_in_the_json() {
    use pincer::agent::skills::SkillSource;
    for source in [
        SkillSource::Global,
        SkillSource::Workspace,
        SkillSource::Config,
        SkillSource::Flag,
    ] {
        assert_eq!(serde_json::to_value(source).unwrap(), source.as_str());
    }
}

#[test]
fn a_torn_tail_in_the_repair_report_is_completed_or_moved() {
    use pincer::output::report::TornTailReport;
    let completed: TornTailReport = typed(r#""completed""#);
    assert_eq!(completed, TornTailReport::Completed("completed".to_owned()));
    let moved: TornTailReport = typed(r#"{"moved_to": "/s/a.jsonl.torn"}"#);
    assert_eq!(
        moved,
        TornTailReport::Moved {
            moved_to: "/s/a.jsonl.torn".into()
        }
    );
}
