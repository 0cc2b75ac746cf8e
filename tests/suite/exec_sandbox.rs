//! The `exec` protections of SPEC §10, end to end: the real binary, the model's commands scripted
//! by the mock provider, real namespaces and Landlock where this machine has them.
//!
//! The attacks of issue 13 must fail — a key read from the environment or from pincer's files,
//! `.git/hooks` written, `config.toml` rewritten under a `PINCER_HOME` in `/tmp`, `/tmp` written
//! outside the run's private dir — and ordinary work must still succeed: git reading `.git`,
//! compiling, `make`, test scripts, files in the workspace and in `$TMPDIR`. Tests that need a
//! protection the machine lacks print why they were skipped.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{Value, json};

use crate::common::mock::{Body, Gate, MockServer, Piece, Reply};
use crate::common::protocols::{self, Protocol};
use crate::common::wire::anthropic::{self as wire, Usage4};
use crate::common::{
    Home, anthropic_tool_turn, assert_none_running, background_sleeper, code, running_with, skip,
    stderr, stdout,
};

const KEY: &str = "sk-ant-EXECLEAK-7c1d9e2f4a6b8c0d";
const PROFILE_KEY: &str = "sk-ant-PROFILEKEY-5e4d3c2b1a09f8e7";
const MODEL: &str = "anthropic/claude-sonnet-4-5";

fn anthropic() -> Protocol {
    protocols::anthropic()
}

pub(crate) fn usage() -> Usage4 {
    Usage4 {
        input: 10,
        output: 5,
        cache_read: 0,
        cache_write: 0,
    }
}

/// One model turn calling `exec` once per command (ids `c0`, `c1`, …), then an answer.
pub(crate) fn exec_turn(commands: &[&str]) -> Vec<Reply> {
    let arguments: Vec<Value> = commands
        .iter()
        .map(|command| json!({ "command": command }))
        .collect();
    anthropic_tool_turn("Running.", ("c", "exec"), &arguments, usage())
}

/// Each tool result the second request sent back: id → (text, is_error).
pub(crate) fn results(server: &MockServer) -> HashMap<String, (String, bool)> {
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "expected a tool turn and an answer");
    wire::tool_results(&requests[1].json())
}

/// The JSON a command that asks no model prints (with a key and a provider that answers
/// nothing), after checking that it exited 0.
fn json_of(home: &Home, args: &[&str]) -> Value {
    let server = MockServer::start(Vec::new());
    let output = home
        .pincer()
        .provider(&anthropic(), &server)
        .key(&anthropic(), KEY)
        .args(args)
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    serde_json::from_str(&stdout(&output)).unwrap()
}

/// What `status --json` says `exec` gets here.
pub(crate) fn protection(home: &Home) -> Value {
    json_of(home, &["status", "--json"])["sandbox"].clone()
}

/// What `run --dry-run` (touching nothing) prints.
fn dry_run(home: &Home) -> Value {
    json_of(home, &["run", "-m", MODEL, "--dry-run", "hi"])
}

/// Whether this machine lets an unprivileged process create user and mount namespaces, asked
/// without pincer (`unshare` from util-linux), so that a broken launcher cannot turn the tests
/// that need them into skips.
pub(crate) fn user_namespaces_here() -> bool {
    Command::new("unshare")
        .args(["-Urm", "true"])
        .output()
        .is_ok_and(|output| output.status.success())
}

/// `true` when this machine has user namespaces and Landlock, so pincer must use both;
/// otherwise prints why the calling test is skipped.
fn full_protection(home: &Home, test: &str) -> bool {
    let sandbox = protection(home);
    let landlock = sandbox["exec_landlock"].as_str().unwrap_or_default();
    if landlock.starts_with("Landlock not available") {
        skip(test, landlock);
        return false;
    }
    if !user_namespaces_here() {
        skip(
            test,
            "user namespaces are not available here (unshare -Urm fails)",
        );
        return false;
    }
    true
}

/// The key as it may appear: raw, hex and the middle of its base64 at each alignment.
fn key_forms(key: &str) -> Vec<String> {
    let mut forms = vec![key.to_owned()];
    let hex: String = key.bytes().map(|byte| format!("{byte:02x}")).collect();
    forms.push(hex.to_ascii_uppercase());
    forms.push(hex);
    for engine in [
        base64::engine::general_purpose::STANDARD,
        base64::engine::general_purpose::URL_SAFE,
    ] {
        for offset in 0..3 {
            let mut shifted = vec![b'x'; offset];
            shifted.extend_from_slice(key.as_bytes());
            let encoded = engine.encode(&shifted);
            forms.push(encoded[4..encoded.len() - 4].to_owned());
        }
    }
    forms
}

fn assert_no_key(label: &str, text: &str) {
    for key in [KEY, PROFILE_KEY] {
        for form in key_forms(key) {
            assert!(!text.contains(&form), "{label} holds {form}:\n{text}");
        }
    }
}

fn session_files(home: &Home) -> Vec<PathBuf> {
    std::fs::read_dir(home.sessions_dir())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            path.extension()
                .is_some_and(|extension| extension == "jsonl")
        })
        .collect()
}

/// `git ARGS` in `directory` with a committer set, asserting it succeeded.
pub(crate) fn git(directory: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(["-c", "user.email=t@example.com", "-c", "user.name=t"])
        .args(args)
        .current_dir(directory)
        .env("HOME", directory)
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

/// Whether `program` is on this machine's PATH.
pub(crate) fn have(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|output| output.status.success())
}

#[test]
fn exec_gets_no_key_in_its_environment_and_no_encoded_key_reaches_the_session_or_the_provider() {
    let home = Home::new();
    std::fs::write(
        home.home.join("config.toml"),
        "[tools.exec]\nenv = { ADDED_BY_CONFIG = \"yes\" }\n",
    )
    .unwrap();
    // A key the command finds on its own (a stray file): only redaction can catch it.
    std::fs::write(home.workspace.join("found.txt"), format!("token={KEY}\n")).unwrap();
    let server = MockServer::start(exec_turn(&[
        "printf %s \"$ANTHROPIC_API_KEY\" | base64; printf 'copy:%s\\n' \"$KEY_COPY\"; env | grep -c sk-ant || true",
        "echo \"added=$ADDED_BY_CONFIG tmp=$TMPDIR $TMP $TEMP\"",
        "base64 found.txt; base64 -w 0 found.txt | tr '+/' '-_'; echo; xxd -p found.txt; od -An -tx1 found.txt | tr -d ' \\n'; echo",
        "tr '\\0' '\\n' < /proc/$PPID/environ | grep -c ANTHROPIC",
    ]));
    let output = home
        .pincer()
        .provider(&anthropic(), &server)
        .key(&anthropic(), KEY)
        .env("KEY_COPY", KEY)
        .args(["--json", "run", "-m", MODEL, "look around"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let results = results(&server);

    let (environment, _) = &results["c0"];
    assert_eq!(environment, "copy:\n0\n", "the key variables are gone");
    let (added, is_error) = &results["c1"];
    assert!(!is_error, "{added}");
    let temp = added
        .split_whitespace()
        .find_map(|word| word.strip_prefix("tmp="))
        .unwrap()
        .to_owned();
    assert!(temp.contains("pincer-exec-"), "{added}");
    assert_eq!(added.trim(), format!("added=yes tmp={temp} {temp} {temp}"));
    assert!(
        !Path::new(&temp).exists(),
        "the private temp dir outlived the run"
    );
    let (encoded, _) = &results["c2"];
    assert_eq!(encoded.matches("[REDACTED]").count(), 4, "{encoded}");
    let (environ, is_error) = &results["c3"];
    assert!(
        *is_error,
        "pincer's own environment was readable: {environ}"
    );

    // No form of the key anywhere: stdout, stderr, the requests, the session file.
    assert_no_key("stdout", &stdout(&output));
    assert_no_key("stderr", &stderr(&output));
    for request in server.requests() {
        assert_eq!(request.header("x-api-key"), Some(KEY));
        assert_no_key("request body", &String::from_utf8_lossy(&request.body));
    }
    for file in session_files(&home) {
        assert_no_key("session file", &std::fs::read_to_string(file).unwrap());
    }
}

/// The `pincer-exec-*` directories in the temp dir the tests give pincer.
fn private_temp_dirs(home: &Home) -> Vec<String> {
    std::fs::read_dir(&home.tmp)
        .unwrap()
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("pincer-exec-"))
        .collect()
}

#[test]
fn the_private_temp_dir_is_made_by_the_first_command_not_by_the_run() {
    let home = Home::new();
    let mut replies = exec_turn(&["stat -c %a \"$TMPDIR\" && ls -A \"$TMPDIR\" | wc -l"]);
    // The model's first answer waits until the test has looked at the temp dir.
    let gate = Gate::new();
    let Body::Chunked(pieces) = &mut replies[0].body else {
        panic!("a streamed reply");
    };
    pieces.insert(0, Piece::Wait(gate.clone()));
    let server = MockServer::start(replies);
    let child = home
        .pincer()
        .provider(&anthropic(), &server)
        .key(&anthropic(), KEY)
        .args(["run", "-m", MODEL, "look around"])
        .spawn();
    let deadline = Instant::now() + Duration::from_secs(60);
    while server.requests().is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    // Set up, prompt sent, no command yet: no directory.
    assert_eq!(server.requests().len(), 1);
    assert_eq!(private_temp_dirs(&home), Vec::<String>::new());
    gate.open();
    let output = child.wait_with_output().unwrap();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(results(&server)["c0"], ("700\n0\n".to_owned(), false));
    assert_eq!(private_temp_dirs(&home), Vec::<String>::new());
}

#[test]
fn exec_cannot_read_pincers_files_write_git_rewrite_the_config_or_write_tmp_outside_its_dir() {
    let home = Home::new();
    if !full_protection(&home, "exec_cannot_read_pincers_files…") {
        return;
    }
    let config = "model = \"anthropic/claude-sonnet-4-5\"\n";
    std::fs::write(home.home.join("config.toml"), config).unwrap();
    let profiles = json!({"version": 1, "profiles": {"anthropic:work": {
        "type": "api_key", "provider": "anthropic", "key": PROFILE_KEY}}})
    .to_string();
    std::fs::write(home.home.join("auth-profiles.json"), &profiles).unwrap();
    git(&home.workspace, &["init", "-q"]);
    std::fs::write(home.workspace.join("tracked.txt"), "v1\n").unwrap();
    git(&home.workspace, &["add", "."]);
    git(&home.workspace, &["commit", "-q", "-m", "first"]);
    let escape = std::env::temp_dir().join(format!("pincer-escape-{}", std::process::id()));
    let server = MockServer::start(exec_turn(&[
        "cat \"$PINCER_HOME/auth-profiles.json\" | base64",
        "echo x > .git/hooks/pre-commit",
        "printf 'base_url = \"http://evil\"\\n' >> \"$PINCER_HOME/config.toml\"",
        &format!("echo x > '{}'", escape.display()),
        "ls -A \"$PINCER_HOME\" | wc -l",
        "git -c user.email=a@b -c user.name=n commit -q --allow-empty -m sneaky",
        "echo scratch > \"$TMPDIR/f\" && cat \"$TMPDIR/f\"",
    ]));
    let output = home
        .pincer()
        .provider(&anthropic(), &server)
        .key(&anthropic(), KEY)
        .args(["--json", "run", "-m", MODEL, "attack"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let results = results(&server);
    for (id, expected) in [
        ("c0", "No such file or directory"),
        ("c1", "Read-only file system"),
        ("c2", "Read-only file system"),
        ("c3", "Permission denied"),
        ("c5", "Read-only file system"),
    ] {
        let (text, _) = &results[id];
        assert!(text.contains(expected), "{id}: {text}");
    }
    assert_eq!(
        results["c4"].0, "0\n",
        "pincer's home is empty for commands"
    );
    assert_eq!(results["c6"], ("scratch\n".to_owned(), false));
    // Nothing changed on disk.
    assert!(!home.workspace.join(".git/hooks/pre-commit").exists());
    assert_eq!(
        std::fs::read_to_string(home.home.join("config.toml")).unwrap(),
        config
    );
    // pincer itself records the profile's use; the profiles are what the test wrote.
    let stored: Value = serde_json::from_str(
        &std::fs::read_to_string(home.home.join("auth-profiles.json")).unwrap(),
    )
    .unwrap();
    let written: Value = serde_json::from_str(&profiles).unwrap();
    assert_eq!(stored["profiles"], written["profiles"]);
    assert!(!escape.exists());
    let log = Command::new("git")
        .args(["rev-list", "--count", "HEAD"])
        .current_dir(&home.workspace)
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&log.stdout), "1\n");
    assert_no_key(
        "request body",
        &String::from_utf8_lossy(&server.requests()[1].body),
    );
    // Full protection is not announced.
    assert!(
        !stderr(&output).contains("reduced protection"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn ordinary_work_succeeds_inside_the_sandbox() {
    let home = Home::new();
    if !full_protection(&home, "ordinary_work_succeeds_inside_the_sandbox") {
        return;
    }
    if !have("git") || !have("cc") || !have("make") {
        skip(
            "ordinary_work_succeeds_inside_the_sandbox",
            "git, cc or make missing",
        );
        return;
    }
    git(&home.workspace, &["init", "-q"]);
    std::fs::write(home.workspace.join("README"), "hello\n").unwrap();
    std::fs::write(
        home.workspace.join("Makefile"),
        "hello: hello.c\n\tcc -o hello hello.c\n",
    )
    .unwrap();
    std::fs::write(
        home.workspace.join("hello.c"),
        "#include <stdio.h>\nint main(void) { puts(\"hi from c\"); return 0; }\n",
    )
    .unwrap();
    std::fs::write(
        home.workspace.join("test.sh"),
        "set -e\nout=$(./hello)\n[ \"$out\" = 'hi from c' ] && echo 'tests passed'\n",
    )
    .unwrap();
    git(&home.workspace, &["add", "."]);
    git(&home.workspace, &["commit", "-q", "-m", "first"]);
    std::fs::write(home.workspace.join("README"), "hello again\n").unwrap();
    let server = MockServer::start(exec_turn(&[
        "git status --short && git log --oneline | wc -l && git diff --stat | tail -1",
        "make -s && ./hello && sh test.sh",
        "mkdir -p build/out && echo data > build/out/file && cat build/out/file && stat -c %u build/out/file",
        "cd \"$TMPDIR\" && git init -q repo && cd repo && echo x > f && git add f && git -c user.email=a@b -c user.name=n commit -q -m x && git log --oneline | wc -l",
        "python3 -c 'import tempfile; print(tempfile.gettempdir())' 2>/dev/null || echo \"$TMPDIR\"",
        "echo quiet > /dev/null && echo to-null-ok",
    ]));
    let output = home
        .pincer()
        .provider(&anthropic(), &server)
        .key(&anthropic(), KEY)
        .args(["--json", "run", "-m", MODEL, "work"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let results = results(&server);
    for id in ["c0", "c1", "c2", "c3", "c4", "c5"] {
        assert!(!results[id].1, "{id} failed: {}", results[id].0);
    }
    assert_eq!(
        results["c0"].0,
        " M README\n1\n 1 file changed, 1 insertion(+), 1 deletion(-)\n"
    );
    assert_eq!(results["c1"].0, "hi from c\ntests passed\n");
    let uid = std::fs::metadata(&home.workspace).map(|metadata| {
        use std::os::unix::fs::MetadataExt as _;
        metadata.uid()
    });
    assert_eq!(results["c2"].0, format!("data\n{}\n", uid.unwrap()));
    assert_eq!(results["c3"].0, "1\n");
    assert!(
        results["c4"].0.contains("pincer-exec-"),
        "{}",
        results["c4"].0
    );
    assert_eq!(results["c5"].0, "to-null-ok\n");
    assert!(home.workspace.join("hello").exists());
    assert_eq!(
        std::fs::read_to_string(home.workspace.join("build/out/file")).unwrap(),
        "data\n"
    );
}

#[test]
fn no_command_can_create_a_protected_directory_at_a_root_and_a_nested_one_is_protected_next() {
    let home = Home::new();
    if !have("git") {
        skip(
            "no_command_can_create_a_protected_directory…",
            "git is missing",
        );
        return;
    }
    if !full_protection(&home, "no_command_can_create_a_protected_directory…") {
        return;
    }
    // The cron idiom: a workspace that is not a repository yet. A command must not make it one
    // (a hook or filter set there would run the next time git is used in it), nor give it an
    // agent configuration. A repository already below the root (a checkout of checkouts) is
    // protected like the root's, also after its parent is renamed.
    std::fs::create_dir_all(home.workspace.join("vendor")).unwrap();
    git(&home.workspace.join("vendor"), &["init", "-q", "lib"]);
    let server = MockServer::start(exec_turn(&[
        "git init -q; git config filter.x.clean 'touch ran-outside'; echo rc=$?",
        "mkdir -p .claude && echo '{}' > .claude/settings.json; echo rc=$?",
        "mkdir .codex .pincer 2>&1; ls -A",
        "echo x > vendor/lib/.git/hooks/pre-commit; echo rc=$?",
        "mv vendor elsewhere && echo moved",
        "echo x > elsewhere/lib/.git/hooks/pre-commit; echo rc=$?",
    ]));
    let output = home
        .pincer()
        .provider(&anthropic(), &server)
        .key(&anthropic(), KEY)
        .args(["--json", "run", "-m", MODEL, "init"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let results = results(&server);
    assert!(
        results["c0"].0.contains("Read-only file system") && !results["c0"].0.contains("rc=0"),
        "{:?}",
        results["c0"]
    );
    assert!(
        results["c1"].0.contains("Read-only file system"),
        "{:?}",
        results["c1"]
    );
    assert!(
        results["c2"].0.contains("File exists"),
        "{:?}",
        results["c2"]
    );
    for id in ["c3", "c5"] {
        assert!(
            results[id].0.contains("Read-only file system"),
            "{id}: {:?}",
            results[id]
        );
    }
    assert_eq!(results["c4"], ("moved\n".to_owned(), false));
    // Nothing was created, and the placeholders are gone with the run.
    for name in [".git", ".claude", ".codex", ".pincer"] {
        assert!(
            !home.workspace.join(name).exists(),
            "{name} is left in the workspace"
        );
    }
    assert!(!home.workspace.join("ran-outside").exists());
    assert!(
        !home
            .workspace
            .join("elsewhere/lib/.git/hooks/pre-commit")
            .exists()
    );
}

#[test]
fn a_pincer_home_holding_the_workspace_stays_visible_but_its_files_are_hidden_and_this_is_said() {
    let home = Home::new();
    if !full_protection(&home, "a_pincer_home_holding_the_workspace…") {
        return;
    }
    // PINCER_HOME is the workspace's parent.
    let parent = home.root.path().canonicalize().unwrap();
    std::fs::write(
        parent.join("auth-profiles.json"),
        "{\"version\": 1, \"profiles\": {}}",
    )
    .unwrap();
    std::fs::write(parent.join("config.toml"), "").unwrap();
    let server = MockServer::start(exec_turn(&[
        "cat \"$PINCER_HOME/auth-profiles.json\"",
        "echo 'model = \"x/y\"' > \"$PINCER_HOME/config.toml\"",
        "echo still > works.txt && cat works.txt",
    ]));
    let output = home
        .pincer()
        .provider(&anthropic(), &server)
        .key(&anthropic(), KEY)
        .env("PINCER_HOME", &parent)
        .args(["--json", "run", "-m", MODEL, "look"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let results = results(&server);
    // The store is not there for commands: the home is rebuilt without pincer's entries.
    assert!(
        results["c0"].1 && results["c0"].0.contains("No such file or directory"),
        "{:?}",
        results["c0"]
    );
    assert!(results["c1"].1, "{:?}", results["c1"]);
    assert_eq!(
        std::fs::read_to_string(parent.join("config.toml")).unwrap(),
        ""
    );
    assert_eq!(results["c2"], ("still\n".to_owned(), false));
    let warning = stderr(&output);
    assert_eq!(warning.matches("warning: exec:").count(), 1, "{warning}");
    assert!(
        warning.contains(&format!(
            "{} contains the workspace or the temp dir and is not hidden",
            parent.display()
        )),
        "{warning}"
    );
}

/// Runs pincer in a user namespace that may not create further ones, so the launcher cannot
/// set up its own: Landlock alone is left.
pub(crate) fn without_user_namespaces(
    home: &Home,
    server: &MockServer,
    args: &[&str],
) -> Option<Output> {
    let probe = Command::new("unshare")
        .args([
            "-Ur",
            "sh",
            "-c",
            "echo 0 > /proc/sys/user/max_user_namespaces",
        ])
        .output();
    if !probe.is_ok_and(|output| output.status.success()) {
        skip(
            "without_user_namespaces…",
            "cannot run pincer without user namespaces here (unshare -Ur)",
        );
        return None;
    }
    let output = home
        .pincer()
        .provider(&anthropic(), server)
        .key(&anthropic(), KEY)
        .inside(
            "unshare",
            [
                "-Ur",
                "sh",
                "-c",
                "echo 0 > /proc/sys/user/max_user_namespaces && exec \"$0\" \"$@\"",
            ],
        )
        .args(args)
        .output();
    Some(output)
}

#[test]
fn without_user_namespaces_no_host_socket_no_network_and_no_pincer_file_is_reachable() {
    let home = Home::new();
    let sandbox = protection(&home);
    let landlock = sandbox["exec_landlock"].as_str().unwrap_or_default();
    if landlock.starts_with("Landlock not available") || !Path::new("/usr/bin/python3").exists() {
        skip("without_user_namespaces_no_host_socket…", landlock);
        return;
    }
    // A host service on a unix socket outside the roots, one on the host's loopback, and the
    // credential store outside the roots.
    let service =
        std::os::unix::net::UnixListener::bind(home.root.path().join("svc.sock")).unwrap();
    service.set_nonblocking(true).unwrap();
    let host = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    host.set_nonblocking(true).unwrap();
    std::fs::write(
        home.home.join("auth-profiles.json"),
        format!("{{\"version\": 1, \"profiles\": {{}}, \"note\": \"{PROFILE_KEY}\"}}"),
    )
    .unwrap();
    let python = |code: &str| format!("/usr/bin/python3 -c \"{code}\" 2>&1 | tail -1");
    let server = MockServer::start(exec_turn(&[
        &python(&format!(
            "import socket; socket.socket(socket.AF_UNIX).connect('{}'); print('CONNECTED')",
            home.root.path().join("svc.sock").display()
        )),
        &python(&format!(
            "import socket; socket.create_connection(('127.0.0.1', {})); print('CONNECTED')",
            host.local_addr().unwrap().port()
        )),
        "cat \"$PINCER_HOME/auth-profiles.json\"",
        "tty; echo rc=$?",
    ]));
    let Some(output) =
        without_user_namespaces(&home, &server, &["--json", "run", "-m", MODEL, "reach out"])
    else {
        return;
    };
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let results = results(&server);
    for id in ["c0", "c1"] {
        assert!(
            results[id].0.contains("PermissionError"),
            "{id}: {:?}",
            results[id]
        );
    }
    assert!(service.accept().is_err() && host.accept().is_err());
    assert!(
        results["c2"].0.contains("Permission denied"),
        "{:?}",
        results["c2"]
    );
    assert_eq!(results["c3"].0, "not a tty\nrc=1\n");
    let warning = stderr(&output);
    assert!(
        warning.contains("the network is off: without user namespaces"),
        "{warning}"
    );
}

#[test]
fn without_user_namespaces_the_weaker_protection_is_said_once_and_reported() {
    let home = Home::new();
    let sandbox = protection(&home);
    let landlock = sandbox["exec_landlock"].as_str().unwrap_or_default();
    if landlock.starts_with("Landlock not available") {
        skip("without_user_namespaces…", landlock);
        return;
    }
    let outside = home.root.path().join("outside.txt");
    let server = MockServer::start(exec_turn(&[
        "echo one > a.txt",
        "echo two > .git-less.txt",
        &format!("echo three > '{}'", outside.display()),
    ]));
    let Some(output) =
        without_user_namespaces(&home, &server, &["run", "-m", MODEL, "three commands"])
    else {
        return;
    };
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    // The answer alone, not the text before the tool calls (SPEC §3.1).
    assert_eq!(stdout(&output), "Done.\n");
    let warning = stderr(&output);
    assert_eq!(warning.matches("warning: exec:").count(), 1, "{warning}");
    assert!(
        warning.contains("reduced protection (landlock)"),
        "{warning}"
    );
    assert!(
        warning.contains("no mount namespace (user namespaces are not available"),
        "{warning}"
    );
    assert_eq!(
        std::fs::read_to_string(home.workspace.join("a.txt")).unwrap(),
        "one\n"
    );
    // Reduced is not none: Landlock alone still keeps writes inside the workspace.
    let results = results(&server);
    assert!(
        results["c2"].0.contains("Permission denied"),
        "{:?}",
        results["c2"]
    );
    assert!(!outside.exists(), "Landlock let a command write outside");

    // What status remembered out here is not believed in another user namespace.
    assert_eq!(
        home.home.join("state/exec-probe.json").is_file(),
        sandbox["exec_protection"] == "namespace+landlock"
    );
    let idle = MockServer::start(Vec::new());
    let status = without_user_namespaces(&home, &idle, &["status", "--json"]).unwrap();
    let status: Value = serde_json::from_str(&stdout(&status)).unwrap();
    assert_eq!(status["sandbox"]["exec_protection"], "landlock");
    assert!(
        status["sandbox"]["exec_namespace"]
            .as_str()
            .unwrap()
            .starts_with("not available: "),
        "{status}"
    );
    let text = without_user_namespaces(&home, &idle, &["status"]).unwrap();
    assert!(
        stdout(&text).contains("sandbox:        workspace-write (exec protection: landlock)"),
        "{}",
        stdout(&text)
    );
    let dry =
        without_user_namespaces(&home, &idle, &["run", "-m", MODEL, "--dry-run", "hi"]).unwrap();
    let dry: Value = serde_json::from_str(&stdout(&dry)).unwrap();
    assert_eq!(dry["sandbox"]["exec_protection"], "landlock");
}

#[test]
fn status_and_dry_run_say_which_exec_protection_is_in_force() {
    let home = Home::new();
    let sandbox = protection(&home);
    let level = sandbox["exec_protection"].as_str().unwrap().to_owned();
    assert!(
        ["namespace+landlock", "namespace", "landlock", "none"].contains(&level.as_str()),
        "{sandbox}"
    );
    assert_eq!(sandbox["exec_enforced"], level != "none");
    let server = MockServer::start(Vec::new());
    let mut dry = dry_run(&home);
    // Probed by status just now; the dry run reuses a full protection that status remembered.
    assert!(sandbox["exec_probed_at"].is_null(), "{sandbox}");
    let remembered = dry["sandbox"]["exec_probed_at"].take();
    assert_eq!(
        remembered.is_string(),
        level == "namespace+landlock",
        "{dry}"
    );
    let mut probed = sandbox.clone();
    probed["exec_probed_at"] = Value::Null;
    assert_eq!(dry["sandbox"], probed);
    let danger = home
        .pincer()
        .provider(&anthropic(), &server)
        .key(&anthropic(), KEY)
        .args([
            "run",
            "-m",
            MODEL,
            "--sandbox",
            "danger-full-access",
            "--dry-run",
            "hi",
        ])
        .output();
    let danger: Value = serde_json::from_str(&stdout(&danger)).unwrap();
    assert_eq!(danger["sandbox"]["exec_protection"], "none");
    assert!(
        danger["sandbox"]["exec_enforcement"]
            .as_str()
            .unwrap()
            .starts_with("none (danger-full-access"),
        "{danger}"
    );
    // A dry run and status create no temp dir and leave the home empty, but for the probe
    // status remembered when it found the full protection.
    if level == "namespace+landlock" {
        assert_eq!(names_in(&home.home), ["state"]);
        assert_eq!(names_in(&home.home.join("state")), ["exec-probe.json"]);
    } else {
        assert_eq!(names_in(&home.home), Vec::<String>::new());
    }

    // Where Landlock is there, the level names it (with the namespace when this machine has
    // user namespaces) and a command really cannot write outside the workspace.
    let landlock = sandbox["exec_landlock"].as_str().unwrap_or_default();
    if landlock.starts_with("Landlock not available") {
        skip(
            "status_and_dry_run_say_which_exec_protection_is_in_force (the Landlock part)",
            landlock,
        );
        return;
    }
    let expected = if user_namespaces_here() {
        "namespace+landlock"
    } else {
        "landlock"
    };
    assert_eq!(level, expected, "{sandbox}");
    let outside = home.root.path().join("outside.txt");
    let server = MockServer::start(exec_turn(&[&format!(
        "echo escaped > '{}'",
        outside.display()
    )]));
    let output = home
        .pincer()
        .provider(&anthropic(), &server)
        .key(&anthropic(), KEY)
        .args(["--json", "run", "-m", MODEL, "escape"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let results = results(&server);
    assert!(
        results["c0"].1 && results["c0"].0.contains("Permission denied"),
        "{:?}",
        results["c0"]
    );
    assert!(!outside.exists(), "a command wrote outside the workspace");
}

#[test]
fn an_unprivileged_user_gets_the_same_protection() {
    let home = Home::new();
    if !nix_is_root() || !have("setpriv") {
        skip(
            "an_unprivileged_user_gets_the_same_protection",
            "needs root and setpriv to switch to an unprivileged uid",
        );
        return;
    }
    if !full_protection(&home, "an_unprivileged_user_gets_the_same_protection") {
        return;
    }
    let nobody = "65534";
    git(&home.workspace, &["init", "-q"]);
    std::fs::write(home.home.join("auth-profiles.json"), "{}").unwrap();
    let chown = Command::new("chown")
        .args(["-R", &format!("{nobody}:{nobody}")])
        .arg(home.root.path())
        .status()
        .unwrap();
    assert!(chown.success());
    let server = MockServer::start(exec_turn(&[
        "id -u && stat -c %u .git && touch made.txt && stat -c %u made.txt",
        "echo x > .git/hooks/pre-commit",
        "cat \"$PINCER_HOME/auth-profiles.json\"",
        "git status --short | wc -l",
    ]));
    let output = home
        .pincer()
        .provider(&anthropic(), &server)
        .key(&anthropic(), KEY)
        .inside(
            "setpriv",
            ["--reuid", nobody, "--regid", nobody, "--clear-groups"],
        )
        .args(["--json", "run", "-m", MODEL, "as nobody"])
        .output();
    if code(&output) != 0 && stderr(&output).contains("Permission denied") {
        skip(
            "an_unprivileged_user_gets_the_same_protection",
            &format!("nobody cannot run the test binary: {}", stderr(&output)),
        );
        return;
    }
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let results = results(&server);
    assert_eq!(
        results["c0"],
        (format!("{nobody}\n{nobody}\n{nobody}\n"), false)
    );
    assert!(
        results["c1"].0.contains("Read-only file system"),
        "{:?}",
        results["c1"]
    );
    assert!(
        results["c2"].0.contains("No such file or directory"),
        "{:?}",
        results["c2"]
    );
    assert_eq!(results["c3"], ("1\n".to_owned(), false));
    assert!(
        !stderr(&output).contains("reduced protection"),
        "{}",
        stderr(&output)
    );
}

fn nix_is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|output| output.stdout == b"0\n")
}

#[test]
fn a_timeout_still_kills_the_launched_command_and_everything_it_started() {
    let home = Home::new();
    let (sleeper, marker) = background_sleeper(&home.workspace);
    let arguments = json!({
        "command": format!("{sleeper} echo started; sleep 30"),
        "timeout": 1,
    })
    .to_string();
    let server = MockServer::start(vec![
        Reply::sse(&wire::tool_use_stream(
            None,
            &[("c0", "exec", &arguments)],
            usage(),
        )),
        Reply::sse(&wire::text_stream(&["Done."], usage())),
    ]);
    let started = std::time::Instant::now();
    let output = home
        .pincer()
        .provider(&anthropic(), &server)
        .key(&anthropic(), KEY)
        .args(["--json", "run", "-m", MODEL, "wait"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(started.elapsed().as_secs() < 10);
    assert_eq!(
        results(&server)["c0"],
        (
            "started\n\nCommand timed out after 1 seconds and was killed".to_owned(),
            true
        )
    );
    assert_none_running(&marker, "the background sleep");
}

#[test]
fn sigterm_during_a_command_ends_the_run_with_143_and_kills_the_command() {
    let home = Home::new();
    let (sleeper, marker) = background_sleeper(&home.workspace);
    let server = MockServer::start(exec_turn(&[&format!("{sleeper} sleep 30")]));
    let child = home
        .pincer()
        .provider(&anthropic(), &server)
        .key(&anthropic(), KEY)
        .args(["--json", "run", "-m", MODEL, "wait"])
        .spawn();
    for _ in 0..250 {
        if !running_with(&marker).is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(!running_with(&marker).is_empty(), "the sleep never started");
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap()),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(code(&output), 143, "{}", stderr(&output));
    let result: Value = serde_json::from_str(stdout(&output).trim()).unwrap();
    assert_eq!(result["is_error"], true);
    assert_none_running(&marker, "the background sleep");
}

#[test]
fn a_second_checkout_given_with_add_dir_is_worked_in_but_its_git_stays_read_only() {
    let home = Home::new();
    if !have("git") {
        skip("a_second_checkout_given_with_add_dir…", "git is missing");
        return;
    }
    if !full_protection(&home, "a_second_checkout_given_with_add_dir…") {
        return;
    }
    let checkout = home.root.path().join("sibling");
    std::fs::create_dir(&checkout).unwrap();
    let checkout = checkout.canonicalize().unwrap();
    git(&checkout, &["init", "-q"]);
    let outside = home.root.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    let sibling = |name: &str| checkout.join(name).to_string_lossy().into_owned();
    let commands = [
        format!(
            "cd '{}' && echo built > out.txt && cat out.txt && git status --short",
            checkout.display()
        ),
        format!("echo x > '{}'", sibling(".git/hooks/pre-commit")),
        format!("echo x > '{}/escape'", outside.display()),
    ];
    let write = json!({"path": sibling("from-tool.txt"), "content": "tool\n"}).to_string();
    let protected = json!({"path": sibling(".git/config"), "content": "x"}).to_string();
    let mut calls: Vec<(String, &str, String)> = commands
        .iter()
        .enumerate()
        .map(|(index, command)| {
            (
                format!("c{index}"),
                "exec",
                json!({ "command": command }).to_string(),
            )
        })
        .collect();
    calls.push(("w0".to_owned(), "write", write));
    calls.push(("w1".to_owned(), "write", protected));
    let calls: Vec<(&str, &str, &str)> = calls
        .iter()
        .map(|(id, name, arguments)| (id.as_str(), *name, arguments.as_str()))
        .collect();
    let server = MockServer::start(vec![
        Reply::sse(&wire::tool_use_stream(Some("Working."), &calls, usage())),
        Reply::sse(&wire::text_stream(&["Done."], usage())),
    ]);
    let output = home
        .pincer()
        .provider(&anthropic(), &server)
        .key(&anthropic(), KEY)
        .args([
            "--json",
            "run",
            "-m",
            MODEL,
            "--add-dir",
            checkout.to_str().unwrap(),
            "work in both",
        ])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let results = results(&server);
    assert_eq!(results["c0"], ("built\n?? out.txt\n".to_owned(), false));
    assert!(
        results["c1"].0.contains("Read-only file system"),
        "{:?}",
        results["c1"]
    );
    assert!(
        results["c2"].0.contains("Permission denied"),
        "{:?}",
        results["c2"]
    );
    assert!(!results["w0"].1, "{}", results["w0"].0);
    assert!(results["w1"].1, "{}", results["w1"].0);
    assert!(
        results["w1"]
            .0
            .contains("read-only in the workspace-write sandbox"),
        "{}",
        results["w1"].0
    );
    assert_eq!(
        std::fs::read_to_string(checkout.join("from-tool.txt")).unwrap(),
        "tool\n"
    );
    assert!(!checkout.join(".git/hooks/pre-commit").exists());
    assert!(std::fs::read_dir(&outside).unwrap().next().is_none());
    let result: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(
        result["permission_denials"][0]["tool_use_id"], "w1",
        "{result}"
    );
}

/// The names in `dir`, sorted.
fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn status_remembers_a_full_protection_until_something_it_depends_on_changes() {
    let home = Home::new();
    let test = "status_remembers_a_full_protection_until_something_it_depends_on_changes";
    if !full_protection(&home, test) {
        return;
    }
    let memo = home.home.join("state/exec-probe.json");
    let recorded: Value = serde_json::from_slice(&std::fs::read(&memo).unwrap()).unwrap();
    let companion = assert_cmd::cargo::cargo_bin("pincer-exec-sandbox");
    assert_eq!(recorded["launcher"], companion.to_str().unwrap());
    let fingerprint = recorded["fingerprint"].as_str().unwrap().to_owned();
    for part in ["boot ", "\nns user:[", "\nstatus Seccomp:", "\ntemp "] {
        assert!(fingerprint.contains(part), "{part}: {fingerprint}");
    }

    // Reused, and said so.
    let sandbox = protection(&home);
    assert_eq!(sandbox["exec_protection"], "namespace+landlock");
    assert_eq!(sandbox["exec_launcher"], companion.to_str().unwrap());
    let probed_at = sandbox["exec_probed_at"].as_str().unwrap().to_owned();
    assert!(
        probed_at.ends_with('Z') && probed_at.len() == 24,
        "{probed_at}"
    );
    let idle = MockServer::start(Vec::new());
    let text = home
        .pincer()
        .provider(&anthropic(), &idle)
        .key(&anthropic(), KEY)
        .arg("status")
        .output();
    assert!(
        stdout(&text).contains(&format!(
            "exec probed:    {probed_at}, remembered (`status --fresh-probe` probes again)\n"
        )),
        "{}",
        stdout(&text)
    );

    // `--fresh-probe` probes again and remembers the new probe.
    let fresh = home
        .pincer()
        .provider(&anthropic(), &idle)
        .key(&anthropic(), KEY)
        .args(["status", "--json", "--fresh-probe"])
        .output();
    assert_eq!(code(&fresh), 0, "{}", stderr(&fresh));
    let fresh: Value = serde_json::from_str(&stdout(&fresh)).unwrap();
    assert!(fresh["sandbox"]["exec_probed_at"].is_null(), "{fresh}");
    assert_eq!(fresh["sandbox"]["exec_protection"], "namespace+landlock");
    let after: Value = serde_json::from_slice(&std::fs::read(&memo).unwrap()).unwrap();
    assert!(after["probed_at_ms"].as_u64() >= recorded["probed_at_ms"].as_u64());

    // A memo of anything else (another boot; a launcher a probe would not try) is not
    // believed: the probe runs and its own outcome is remembered instead.
    for (key, value) in [
        ("fingerprint", fingerprint.replacen("boot ", "boot 0", 1)),
        ("launcher", "/nonexistent/pincer-exec-sandbox".to_owned()),
    ] {
        let mut forged = after.clone();
        forged[key] = Value::from(value);
        std::fs::write(&memo, forged.to_string()).unwrap();
        let sandbox = protection(&home);
        assert!(sandbox["exec_probed_at"].is_null(), "{key}: {sandbox}");
        assert_eq!(sandbox["exec_launcher"], companion.to_str().unwrap());
        let rewritten: Value = serde_json::from_slice(&std::fs::read(&memo).unwrap()).unwrap();
        assert_eq!(rewritten["fingerprint"], fingerprint.as_str());
        assert_eq!(rewritten["launcher"], companion.to_str().unwrap());
    }
    // A damaged memo is no memo either.
    std::fs::write(&memo, "{\"fingerprint\": ").unwrap();
    assert!(protection(&home)["exec_probed_at"].is_null());

    // A dry run reads the memo but writes none.
    std::fs::remove_file(&memo).unwrap();
    assert!(dry_run(&home)["sandbox"]["exec_probed_at"].is_null());
    assert!(!memo.exists());
    protection(&home);
    assert!(dry_run(&home)["sandbox"]["exec_probed_at"].is_string());
}

/// A hard link (or, on another file system, a copy) of the built pincer in a fresh directory
/// of its own: pincer without the companion launcher beside it.
fn pincer_alone() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let built = assert_cmd::cargo::cargo_bin("pincer");
    let alone = dir.path().join("pincer");
    if std::fs::hard_link(&built, &alone).is_err() {
        std::fs::copy(&built, &alone).unwrap();
    }
    (dir, alone)
}

#[test]
fn commands_start_through_the_companion_launcher_or_pincer_itself_when_it_is_missing_or_stale() {
    use std::os::unix::fs::PermissionsExt as _;
    let home = Home::new();
    if !full_protection(&home, "commands_start_through_the_companion_launcher…") {
        return;
    }
    std::fs::write(home.home.join("auth-profiles.json"), "{}").unwrap();
    let companion = assert_cmd::cargo::cargo_bin("pincer-exec-sandbox");
    let sandbox = protection(&home);
    assert_eq!(sandbox["exec_launcher"], companion.to_str().unwrap());
    assert_eq!(sandbox["exec_protection"], "namespace+landlock");

    let (dir, alone) = pincer_alone();
    let stale = dir.path().join("pincer-exec-sandbox");
    for beside in [
        None,
        Some("echo 'pincer-exec-sandbox 0.0.1 0000000000000000'"),
        Some("exit 0"),
    ] {
        if let Some(script) = beside {
            std::fs::write(&stale, format!("#!/bin/sh\n{script}\n")).unwrap();
            std::fs::set_permissions(&stale, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let idle = MockServer::start(Vec::new());
        let status = home
            .pincer()
            .binary(&alone)
            .provider(&anthropic(), &idle)
            .args(["status", "--json"])
            .output();
        assert_eq!(code(&status), 0, "{}", stderr(&status));
        let status: Value = serde_json::from_str(&stdout(&status)).unwrap();
        assert_eq!(
            status["sandbox"]["exec_launcher"], "/proc/self/exe",
            "{beside:?}"
        );
        assert_eq!(
            status["sandbox"]["exec_protection"], "namespace+landlock",
            "{beside:?}"
        );

        // And commands run confined through pincer itself: the home is hidden from them.
        let server = MockServer::start(exec_turn(&[
            "cat \"$PINCER_HOME/auth-profiles.json\"; echo confined",
        ]));
        let output = home
            .pincer()
            .binary(&alone)
            .provider(&anthropic(), &server)
            .args(["run", "-m", MODEL, "look"])
            .output();
        assert_eq!(code(&output), 0, "{}", stderr(&output));
        let (text, _) = &results(&server)["c0"];
        assert!(
            text.contains("No such file or directory") && text.ends_with("confined\n"),
            "{beside:?}: {text}"
        );
    }
}

/// A command that prints 1 MB: the model gets its head and tail and the path of a file holding
/// every byte, which a later command of the turn reads whole.
#[test]
fn long_output_goes_to_a_file_the_model_can_read_and_the_context_gets_head_and_tail() {
    let home = Home::new();
    let call = |id: &str, command: &str| {
        Reply::sse(&wire::tool_use_stream(
            None,
            &[(id, "exec", &json!({ "command": command }).to_string())],
            usage(),
        ))
    };
    let server = MockServer::start(vec![
        call("c0", "seq 1 150000"),
        call(
            "c1",
            "cat \"$TMPDIR\"/exec-output-*.txt | wc -l; cat \"$TMPDIR\"/exec-output-*.txt | tail -n 1",
        ),
        Reply::sse(&wire::text_stream(&["Done."], usage())),
    ]);
    let output = home
        .pincer()
        .provider(&anthropic(), &server)
        .args(["run", "count"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let requests = server.requests();
    let first = wire::tool_results(&requests[1].json());
    let (text, is_error) = &first["c0"];
    assert!(!is_error);
    let whole: usize = (1..=150_000).map(|n: u32| n.to_string().len() + 1).sum();
    assert!(text.starts_with("1\n2\n3\n"), "{}", &text[..20]);
    assert!(text.ends_with("149999\n150000\n"));
    assert!(
        text.contains(&format!(
            "(the command printed {whole} bytes); the whole output is in "
        )),
        "{}",
        &text[8_000..8_400]
    );
    assert!(
        text.len() < 33 * 1024,
        "{} bytes in the context",
        text.len()
    );
    let second = wire::tool_results(&requests[2].json());
    assert_eq!(
        second["c1"].0.split_whitespace().collect::<Vec<_>>(),
        ["150000", "150000"]
    );
}
