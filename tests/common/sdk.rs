//! What the agent-SDK suites share (`suite::claude_sdk`, `suite::codex_sdk`): pincer as an SDK
//! sees it — the program and the environment it is started with, handed to a script as JSON —
//! and the run of a script whose stdout is one JSON value per line.

use std::process::Command;

use serde_json::{Map, Value, json};

use super::mock::MockServer;
use super::protocols::{KEY, Protocol};
use super::{Home, code, stderr, stdout};

/// `{"pincer": PATH, "env": {...}, "workspace": DIR}`: pincer in `home` with `env` added, as
/// an SDK is told to start it.
pub fn spec(home: &Home, env: &[(&str, String)]) -> Map<String, Value> {
    let mut pincer = home.pincer();
    for (name, value) in env {
        pincer = pincer.env(name, value);
    }
    let command = pincer.command();
    let environment: Map<String, Value> = command
        .get_envs()
        .filter_map(|(name, value)| {
            Some((
                name.to_str()?.to_owned(),
                Value::String(value?.to_str()?.to_owned()),
            ))
        })
        .collect();
    let spec = json!({
        "pincer": command.get_program().to_str().unwrap(),
        "env": environment,
        "workspace": home.workspace,
    });
    match spec {
        Value::Object(spec) => spec,
        _ => unreachable!("a JSON object"),
    }
}

/// Run `script` (its environment cleared but for `PATH`, `HOME` in the test's home, `env`) in the
/// workspace; it must exit 0. Every line it printed, parsed.
pub fn run_script(home: &Home, mut script: Command, env: &[(&str, String)]) -> Vec<Value> {
    script
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home.root.path())
        .current_dir(&home.workspace);
    for (name, value) in env {
        script.env(name, value);
    }
    let output = script
        .output()
        .unwrap_or_else(|error| panic!("cannot run {script:?}: {error}"));
    assert_eq!(
        code(&output),
        0,
        "the script failed:\n{}\n{}",
        stdout(&output),
        stderr(&output)
    );
    stdout(&output)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|error| panic!("{error}: {line}")))
        .collect()
}

/// `protocol` pointed at `server` through the environment pincer inherits from the SDK.
pub fn provider_env(protocol: &Protocol, server: &MockServer) -> Vec<(&'static str, String)> {
    vec![
        (protocol.base_url_var, protocol.base_url(&server.url())),
        (protocol.key_var, KEY.to_owned()),
    ]
}
