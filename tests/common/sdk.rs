//! What the agent-SDK suites share (`suite::claude_sdk`, `suite::codex_sdk`): pincer as an SDK
//! sees it — the program and the environment it is started with, handed to a script as JSON —
//! and the run of a script whose stdout is one JSON value per line.

use std::path::{Path, PathBuf};
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

/// An npm package the SDK suites drive: `module` (a path inside the package) of
/// `package@version`, installed with npm once per target directory (`target/tmp/CACHE`, without
/// optional dependencies or install scripts), or taken from the directory `override_var` names
/// (one holding `node_modules/PACKAGE`).
pub fn npm_module(
    package: &str,
    version: &str,
    module: &str,
    cache: &str,
    override_var: &str,
) -> Result<PathBuf, String> {
    let entry = |root: &Path| root.join("node_modules").join(package).join(module);
    if let Some(root) = std::env::var_os(override_var) {
        let module = entry(Path::new(&root));
        return if module.is_file() {
            Ok(module)
        } else {
            Err(format!("{override_var} has no {}", module.display()))
        };
    }
    let target = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let cache = target.join(cache);
    if entry(&cache).is_file() {
        return Ok(entry(&cache));
    }
    // Installed beside the cache, then moved in whole: a copy cut short is never taken for one.
    let staging = tempfile::tempdir_in(target).map_err(|error| error.to_string())?;
    std::fs::write(staging.path().join("package.json"), "{\"private\": true}")
        .map_err(|error| error.to_string())?;
    let output = Command::new("npm")
        .args(["install", "--prefix"])
        .arg(staging.path())
        .args([
            "--omit=optional",
            "--ignore-scripts",
            "--no-audit",
            "--no-fund",
            "--no-package-lock",
            &format!("{package}@{version}"),
        ])
        .output()
        .map_err(|error| format!("cannot run npm ({error}); install node and npm"))?;
    if !output.status.success() {
        return Err(format!(
            "npm install {package}@{version} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let staged = staging.keep();
    if std::fs::rename(&staged, &cache).is_err() {
        // Another test process installed it first.
        let _ = std::fs::remove_dir_all(&staged);
    }
    let module = entry(&cache);
    if module.is_file() {
        Ok(module)
    } else {
        Err(format!("npm installed no {}", module.display()))
    }
}
