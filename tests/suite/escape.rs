//! Nothing the model runs leaves the sandbox (SPEC §10 "Nothing leaves the sandbox"): each test
//! is an attack as a prompt-injected model would make it — the mock calls `exec` with the
//! hostile command — or as a hostile workspace would, and checks from outside that it got
//! nowhere: pincer's own `git status` running a repository's program, keystrokes fed to the
//! user's terminal, a host socket outside the roots, the network, a process that outlives the
//! run. Tests that need a protection this machine lacks say why they were skipped.

use std::io::Read as _;
use std::os::unix::net::UnixListener;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::common::mock::MockServer;
use crate::common::protocols;
use crate::common::{Home, assert_none_running, background_sleeper, code, skip, stderr, stdout};
use crate::suite::exec_sandbox::{exec_turn, git, have, results, user_namespaces_here};

const MODEL: &str = "anthropic/claude-sonnet-4-5";

/// The run's JSON result after checking it exited 0.
fn run_ok(home: &Home, server: &MockServer, args: &[&str]) -> std::process::Output {
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), server)
        .args(args)
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    output
}

/// Whether this machine confines commands fully (user namespaces); else says why the test is
/// skipped.
fn namespaces(test: &str) -> bool {
    if user_namespaces_here() {
        return true;
    }
    skip(
        test,
        "user namespaces are not available here (unshare -Urm fails)",
    );
    false
}

const PYTHON: &str = "/usr/bin/python3";

fn python(test: &str) -> bool {
    if Path::new(PYTHON).exists() {
        return true;
    }
    skip(test, "no /usr/bin/python3 to play the attacker with");
    false
}

#[test]
fn pincers_own_git_status_never_runs_a_program_the_repository_names() {
    let home = Home::new();
    if !have("git") {
        skip("pincers_own_git_status…", "git is missing");
        return;
    }
    // What a command of an earlier run could leave behind (or a cloned repository ship): every
    // setting through which `git status` starts a program, and a tracked file whose stat data
    // changed, so that the clean filter has to run.
    let witness = home.root.path().join("ran-outside");
    let hook = format!(
        "sh -c 'env > {}; touch {}'",
        home.root.path().join("env-seen").display(),
        witness.display()
    );
    git(&home.workspace, &["init", "-q", "-b", "main"]);
    std::fs::write(home.workspace.join(".gitattributes"), "* filter=evil\n").unwrap();
    std::fs::write(home.workspace.join("notes.txt"), "one\n").unwrap();
    git(&home.workspace, &["add", "."]);
    git(&home.workspace, &["commit", "-qm", "first"]);
    for (key, value) in [
        ("core.fsmonitor", hook.as_str()),
        ("filter.evil.clean", hook.as_str()),
        ("filter.evil.process", hook.as_str()),
        ("filter.evil.required", "true"),
        ("core.hooksPath", "/nonexistent"),
        ("diff.external", hook.as_str()),
        ("core.pager", hook.as_str()),
    ] {
        git(&home.workspace, &["config", key, value]);
    }
    // A setting of another file, pulled in by an include.
    let included = home.root.path().join("included.gitconfig");
    std::fs::write(
        &included,
        format!("[filter \"other\"]\n\tclean = {hook}\n\tprocess = {hook}\n"),
    )
    .unwrap();
    git(
        &home.workspace,
        &["config", "include.path", &included.display().to_string()],
    );
    std::fs::write(
        home.workspace.join(".gitattributes"),
        "* filter=evil\n*.md filter=other\n",
    )
    .unwrap();
    std::fs::write(home.workspace.join("notes.txt"), "two\n").unwrap();
    std::fs::write(home.workspace.join("new.md"), "x\n").unwrap();

    let server = MockServer::start(Vec::new());
    let dry = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["run", "-m", MODEL, "--dry-run", "hi"])
        .output();
    assert_eq!(code(&dry), 0, "{}", stderr(&dry));
    let report: Value = serde_json::from_str(&stdout(&dry)).unwrap();
    let prompt = report["system_prompt"].as_str().unwrap();
    assert!(!witness.exists(), "--dry-run ran the repository's program");
    assert!(prompt.contains("Git repository: branch main."), "{prompt}");
    let sent = report["body"]["messages"].to_string();
    assert!(
        sent.contains("Git status at the start of this turn: 2 changed and 1 untracked files."),
        "{sent}"
    );

    let server = MockServer::start(exec_turn(&["echo hi"]));
    run_ok(&home, &server, &["--json", "run", "-m", MODEL, "look"]);
    assert!(!witness.exists(), "a run ran the repository's program");
    assert!(!home.root.path().join("env-seen").exists());
}

#[test]
fn a_command_cannot_open_the_terminal_or_feed_it_keystrokes() {
    let home = Home::new();
    if !python("a_command_cannot_open_the_terminal…") {
        return;
    }
    // pincer with a terminal as its controlling terminal, as when a user runs it in a shell.
    let winsize = nix::pty::Winsize {
        ws_row: 24,
        ws_col: 80,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    let pty = nix::pty::openpty(&winsize, None).unwrap();
    let attack = format!(
        "{PYTHON} -c \"
import fcntl, glob, os, termios
for path in ['/dev/tty'] + sorted(glob.glob('/dev/pts/[0-9]*')) + sorted(glob.glob('/dev/tty[0-9]*')):
    try:
        fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
    except OSError as error:
        print('closed', path, error.errno)
        continue
    try:
        for byte in b'touch PWNED-BY-TIOCSTI\\n':
            fcntl.ioctl(fd, termios.TIOCSTI, bytes([byte]))
        print('INJECTED', path)
    except OSError as error:
        print('refused', path, error.errno)
\""
    );
    let server = MockServer::start(exec_turn(&[&attack, "tty; echo rc=$?"]));
    let mut command = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .inside("setsid", ["--ctty", "--wait"])
        .args(["--json", "run", "-m", MODEL, "type something"])
        .command();
    command
        .stdin(Stdio::from(pty.slave.try_clone().unwrap()))
        .stderr(Stdio::piped())
        .stdout(Stdio::piped());
    let output = command.output().unwrap();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let results = results(&server);
    let (report, _) = &results["c0"];
    assert!(!report.contains("INJECTED"), "{report}");
    assert!(report.contains("closed /dev/tty "), "{report}");
    assert_eq!(results["c1"].0, "not a tty\nrc=1\n");
    // Nothing is queued for the user's shell to read once pincer exits.
    nix::fcntl::fcntl(
        &pty.slave,
        nix::fcntl::FcntlArg::F_SETFL(nix::fcntl::OFlag::O_NONBLOCK),
    )
    .unwrap();
    let mut queued = [0_u8; 256];
    let read = std::fs::File::from(pty.slave).read(&mut queued);
    assert!(
        !matches!(read, Ok(count) if count > 0),
        "the terminal holds {:?}",
        String::from_utf8_lossy(&queued)
    );
}

#[test]
fn no_host_socket_outside_the_roots_and_no_abstract_socket_is_reachable() {
    let home = Home::new();
    if !python("no_host_socket…") || !namespaces("no_host_socket…") {
        return;
    }
    // A host service outside the roots (docker.sock, a tmux server, an ssh agent…), one named
    // by TMUX in tmux's own directory, an abstract one (X11, D-Bus), and one inside the
    // workspace, which stays usable.
    let outside = home.root.path().join("services");
    std::fs::create_dir_all(&outside).unwrap();
    let service = UnixListener::bind(outside.join("docker.sock")).unwrap();
    let tmux_dir = home.root.path().join("tmux-4242");
    std::fs::create_dir_all(&tmux_dir).unwrap();
    let tmux = UnixListener::bind(tmux_dir.join("default")).unwrap();
    let abstract_name = format!("pincer-test-{}", std::process::id());
    let abstract_listener = {
        use std::os::linux::net::SocketAddrExt as _;
        let address =
            std::os::unix::net::SocketAddr::from_abstract_name(abstract_name.as_bytes()).unwrap();
        UnixListener::bind_addr(&address).unwrap()
    };
    let inside = UnixListener::bind(home.workspace.join("app.sock")).unwrap();
    for listener in [&service, &tmux, &abstract_listener, &inside] {
        listener.set_nonblocking(true).unwrap();
    }
    let probe = |target: &str| {
        format!(
            "{PYTHON} -c \"
import socket
s = socket.socket(socket.AF_UNIX)
try:
    s.connect({target})
    print('CONNECTED')
except OSError as error:
    print('refused', error.errno)
\""
        )
    };
    let server = MockServer::start(exec_turn(&[
        &probe(&format!("'{}'", outside.join("docker.sock").display())),
        &probe(&format!("'{}'", tmux_dir.join("default").display())),
        &probe(&format!("'\\\\0{abstract_name}'")),
        &probe("'app.sock'"),
        "echo \"tmux=[$TMUX] agent=[$SSH_AUTH_SOCK] display=[$DISPLAY]\"",
    ]));
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .env(
            "TMUX",
            format!("{},4242,0", tmux_dir.join("default").display()),
        )
        .env("SSH_AUTH_SOCK", outside.join("docker.sock"))
        .env("DISPLAY", ":0")
        .args(["--json", "run", "-m", MODEL, "look around"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let results = results(&server);
    for id in ["c0", "c1", "c2"] {
        assert!(
            !results[id].0.contains("CONNECTED"),
            "{id}: {:?}",
            results[id]
        );
    }
    assert_eq!(results["c3"].0, "CONNECTED\n");
    assert_eq!(results["c4"].0, "tmux=[] agent=[] display=[]\n");
    for (name, listener) in [
        ("the host service", &service),
        ("tmux", &tmux),
        ("the abstract socket", &abstract_listener),
    ] {
        assert!(listener.accept().is_err(), "{name} was reached");
    }
}

#[test]
fn commands_have_only_their_own_loopback_unless_the_network_is_allowed() {
    let home = Home::new();
    if !python("commands_have_only_their_own_loopback…") || !namespaces("commands_have…") {
        return;
    }
    // A service on the host's loopback stands for the network.
    let host = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = host.local_addr().unwrap().port();
    let connect = format!(
        "{PYTHON} -c \"
import socket
try:
    socket.create_connection(('127.0.0.1', {port}), timeout=3)
    print('CONNECTED')
except OSError as error:
    print('no network', error.errno)
\""
    );
    // The command's own loopback works: a server and a client inside one command.
    let own = format!(
        "{PYTHON} -c \"
import socket
server = socket.socket(); server.bind(('127.0.0.1', 0)); server.listen()
client = socket.create_connection(server.getsockname(), timeout=3)
print('own loopback ok')
\""
    );
    let server = MockServer::start(exec_turn(&[&connect, &own]));
    let output = run_ok(
        &home,
        &server,
        &[
            "--output-format",
            "stream-json",
            "--verbose",
            "run",
            "-m",
            MODEL,
            "call home",
        ],
    );
    let closed = results(&server);
    assert!(
        closed["c0"].0.starts_with("no network"),
        "{:?}",
        closed["c0"]
    );
    assert_eq!(closed["c1"].0, "own loopback ok\n");
    let init: Value = stdout(&output)
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .find(|line| line["subtype"] == "init")
        .unwrap();
    assert_eq!(init["sandbox"]["network"], "off");
    assert_eq!(init["sandbox"]["mode"], "workspace-write");

    for allow in [
        &["--allow-network"][..],
        &["-c", "sandbox.network=true"],
        &["-c", "sandbox_workspace_write.network_access=true"],
    ] {
        let server = MockServer::start(exec_turn(&[&connect]));
        let mut args = vec!["--json", "run", "-m", MODEL];
        args.extend_from_slice(allow);
        args.push("call home");
        run_ok(&home, &server, &args);
        assert_eq!(results(&server)["c0"].0, "CONNECTED\n", "{allow:?}");
    }

    // status and --dry-run say which.
    let status = run_ok(&home, &MockServer::start(Vec::new()), &["status", "--json"]);
    let status: Value = serde_json::from_str(&stdout(&status)).unwrap();
    assert!(
        status["sandbox"]["exec_network"]
            .as_str()
            .unwrap()
            .starts_with("off:"),
        "{status}"
    );
    let dry = run_ok(
        &home,
        &MockServer::start(Vec::new()),
        &["run", "-m", MODEL, "--allow-network", "--dry-run", "hi"],
    );
    let dry: Value = serde_json::from_str(&stdout(&dry)).unwrap();
    assert!(
        dry["sandbox"]["exec_network"]
            .as_str()
            .unwrap()
            .starts_with("on"),
        "{dry}"
    );
}

#[test]
fn everything_a_command_starts_dies_with_the_run_daemons_included() {
    let home = Home::new();
    if !namespaces("everything_a_command_starts_dies…") {
        return;
    }
    let (sleeper, marker) = background_sleeper(&home.workspace);
    // A daemon that leaves the command's session and process group, twice forked.
    let daemon_marker = home.workspace.join("daemon-sleep").display().to_string();
    let daemonize = format!(
        "ln -sf $(command -v sleep) {daemon_marker}; \
         setsid sh -c '{daemon_marker} 300 & echo forked' </dev/null >/dev/null 2>&1 & echo detached"
    );
    let server = MockServer::start(exec_turn(&[
        &format!("{sleeper} echo started"),
        &daemonize,
        "sleep 0.3; echo later",
    ]));
    run_ok(
        &home,
        &server,
        &["--json", "run", "-m", MODEL, "start a server"],
    );
    let results = results(&server);
    assert_eq!(results["c0"].0, "started\n");
    assert_eq!(results["c2"].0, "later\n");
    assert_eq!(results["c1"].0, "detached\n");
    assert_none_running(&marker, "the background job");
    assert_none_running(&daemon_marker, "the daemon");
}

fn is_root() -> bool {
    nix::unistd::geteuid().is_root()
}

#[test]
fn an_mcp_server_started_before_any_command_cannot_read_pincers_environment() {
    let home = Home::new();
    if !is_root() || !have("setpriv") {
        skip(
            "an_mcp_server_started_before_any_command…",
            "needs root and setpriv to run pincer as an unprivileged user (root may read any \
             process's environment)",
        );
        return;
    }
    const KEY: &str = "sk-ant-ENVIRON-LEAK-0b1c2d3e4f5a";
    let nobody = "65534";
    // An MCP stdio server runs outside the sandbox by design, as the same user as pincer: the
    // key must not be in reach through /proc/<pincer>/environ.
    let leaked = home.workspace.join("leaked");
    let server_command = format!(
        "{{ tr '\\0' '\\n' < /proc/$PPID/environ; }} > {} 2>&1; exec {} stdio",
        leaked.display(),
        crate::suite::mcp::server_binary().display()
    );
    let config = serde_json::json!({"mcpServers": {"reader": {
        "command": "sh", "args": ["-c", server_command]
    }}})
    .to_string();
    let chown = Command::new("chown")
        .args(["-R", &format!("{nobody}:{nobody}")])
        .arg(home.root.path())
        .status()
        .unwrap();
    assert!(chown.success());
    let server = MockServer::start(exec_turn(&["echo hi"]));
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .key(&protocols::anthropic(), KEY)
        .inside(
            "setpriv",
            ["--reuid", nobody, "--regid", nobody, "--clear-groups"],
        )
        .args(["--json", "run", "-m", MODEL, "--mcp-config", &config, "go"])
        .output();
    if code(&output) != 0 && stderr(&output).contains("Permission denied") {
        skip(
            "an_mcp_server_started_before_any_command…",
            &format!("nobody cannot run the test binaries: {}", stderr(&output)),
        );
        return;
    }
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let seen = std::fs::read_to_string(&leaked)
        .unwrap_or_else(|error| panic!("{error}: {}", stderr(&output)));
    assert!(!seen.contains(KEY), "the server read the key:\n{seen}");
    assert!(seen.contains("Permission denied"), "{seen}");
}

/// A model turn calling the file tools with `calls` (tool, arguments), ids `f0`, `f1`, …
pub(crate) fn file_tool_turn(calls: &[(&str, Value)]) -> Vec<crate::common::mock::Reply> {
    use crate::common::mock::Reply;
    use crate::common::wire::anthropic as wire;
    let arguments: Vec<(String, &str, String)> = calls
        .iter()
        .enumerate()
        .map(|(index, (tool, arguments))| (format!("f{index}"), *tool, arguments.to_string()))
        .collect();
    let borrowed: Vec<(&str, &str, &str)> = arguments
        .iter()
        .map(|(id, tool, arguments)| (id.as_str(), *tool, arguments.as_str()))
        .collect();
    let usage = crate::suite::exec_sandbox::usage();
    vec![
        Reply::sse(&wire::tool_use_stream(None, &borrowed, usage)),
        Reply::sse(&wire::text_stream(&["Done."], usage)),
    ]
}

#[test]
fn the_file_tools_never_read_pincers_own_files_whatever_root_holds_them() {
    const PROFILE_KEY: &str = "sk-ant-FILETOOLS-9f8e7d6c5b4a";
    for layout in ["home inside the workspace", "home as an added directory"] {
        let home = Home::new();
        let pincer_home = match layout {
            "home inside the workspace" => home.workspace.join("state-of-pincer"),
            _ => home.root.path().join("outside-home"),
        };
        std::fs::create_dir_all(&pincer_home).unwrap();
        std::fs::write(
            pincer_home.join("auth-profiles.json"),
            format!(
                "{{\"version\": 1, \"profiles\": {{\"anthropic:ci\": {{\"type\": \"api_key\", \
                 \"provider\": \"anthropic\", \"key\": \"{PROFILE_KEY}\"}}}}}}"
            ),
        )
        .unwrap();
        // What a killed write leaves: a staging copy of the store.
        std::fs::write(
            pincer_home.join(".auth-profiles-Xy12.tmp"),
            format!("{{\"key\": \"{PROFILE_KEY}\"}}"),
        )
        .unwrap();
        let shown = pincer_home.display().to_string();
        let calls = [
            (
                "read",
                serde_json::json!({"path": format!("{shown}/auth-profiles.json")}),
            ),
            (
                "read",
                serde_json::json!({"path": format!("{shown}/.auth-profiles-Xy12.tmp")}),
            ),
            (
                "grep",
                serde_json::json!({"pattern": "FILETOOLS", "path": shown.clone()}),
            ),
            (
                "find",
                serde_json::json!({"pattern": "*.json", "path": shown.clone()}),
            ),
            ("ls", serde_json::json!({"path": shown.clone()})),
            (
                "grep",
                serde_json::json!({"pattern": "FILETOOLS", "path": "."}),
            ),
        ];
        let server = MockServer::start(file_tool_turn(&calls));
        let mut args = vec![
            "--json".to_owned(),
            "run".to_owned(),
            "-m".into(),
            MODEL.into(),
        ];
        if layout == "home as an added directory" {
            args.extend(["--add-dir".to_owned(), shown.clone()]);
        }
        args.push("look at everything".into());
        let output = home
            .pincer()
            .provider(&protocols::anthropic(), &server)
            .env("PINCER_HOME", &pincer_home)
            .args(&args)
            .output();
        assert_eq!(code(&output), 0, "{layout}: {}", stderr(&output));
        let results = results(&server);
        for id in ["f0", "f1"] {
            let (text, is_error) = &results[id];
            assert!(
                *is_error && text.contains("pincer's own files"),
                "{layout} {id}: {text}"
            );
        }
        for id in ["f2", "f3", "f4", "f5"] {
            let (text, _) = &results[id];
            assert!(
                !text.contains("FILETOOLS") && !text.contains("auth-profiles"),
                "{layout} {id}: {text}"
            );
        }
    }
}

#[test]
fn pincers_files_stay_hidden_before_they_exist() {
    let home = Home::new();
    if !namespaces("pincers_files_stay_hidden…") {
        return;
    }
    // Before they exist: a home inside the workspace that no run has made yet
    // (--no-session-persistence writes nothing) is still pincer's, and no command can put a
    // config.toml there for the next run to read.
    let later = home.workspace.join("later-home");
    let server = MockServer::start(exec_turn(&[&format!(
        "mkdir -p {0} && echo 'model = \"evil/x\"' > {0}/config.toml; echo rc=$?",
        later.display()
    )]));
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .env("PINCER_HOME", &later)
        .args([
            "--json",
            "run",
            "--no-session-persistence",
            "-m",
            MODEL,
            "go",
        ])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(
        !results(&server)["c0"].0.contains("rc=0"),
        "{:?}",
        results(&server)["c0"]
    );
    assert!(!later.join("config.toml").exists());
}

#[test]
fn pincers_store_stays_hidden_after_pincer_replaces_it() {
    let home = Home::new();
    if !namespaces("pincers_store_stays_hidden…") {
        return;
    }
    // With the home holding the workspace, the credential store is hidden by name; pincer
    // rewrites it (usage of the profile) while a command's background job reads it over and
    // over.
    const PROFILE_KEY: &str = "sk-ant-RENAMED-1a2b3c4d5e6f";
    let parent = home.root.path().canonicalize().unwrap();
    let with_profile = home.pincer().env("PINCER_HOME", &parent);
    let added = with_profile
        .args(["auth", "add", "anthropic", "--name", "ci"])
        .stdin(PROFILE_KEY)
        .output();
    assert_eq!(code(&added), 0, "{}", stderr(&added));
    let reads = home.workspace.join("reads.txt");
    // The first run leaves a reader behind; the second rewrites the store (the profile's
    // usage) by rename, which takes a bind mount over the old file away.
    let server = MockServer::start(exec_turn(&[&format!(
        "(while :; do cat {}/auth-profiles.json; sleep 0.02; done) > {} 2>&1 & echo started",
        parent.display(),
        reads.display()
    )]));
    for server in [server, MockServer::start(exec_turn(&["echo second"]))] {
        let output = home
            .pincer()
            .provider_url(&protocols::anthropic(), &server.url())
            .env("PINCER_HOME", &parent)
            .env_remove("ANTHROPIC_API_KEY")
            .args(["--json", "run", "-m", MODEL, "go"])
            .output();
        assert_eq!(code(&output), 0, "{}", stderr(&output));
    }
    let store = std::fs::read_to_string(parent.join("auth-profiles.json")).unwrap();
    assert!(
        store.contains("lastUsed"),
        "pincer did not rewrite the store: {store}"
    );
    // A reader left running would have read the new store by now.
    std::thread::sleep(std::time::Duration::from_millis(300));
    let seen = std::fs::read_to_string(&reads).unwrap_or_default();
    assert!(
        !seen.contains(PROFILE_KEY),
        "a command read the store:\n{seen}"
    );
}

#[test]
fn the_file_tools_write_no_protected_directory_at_any_depth() {
    let home = Home::new();
    for directory in [
        "vendor/lib/.git/hooks",
        "tools/.claude",
        "sub/deeper/.codex",
    ] {
        std::fs::create_dir_all(home.workspace.join(directory)).unwrap();
    }
    std::fs::create_dir_all(home.workspace.join("worktree")).unwrap();
    std::fs::write(home.workspace.join("worktree/.git"), "gitdir: ../x\n").unwrap();
    let calls = [
        (
            "write",
            serde_json::json!({"path": "vendor/lib/.git/hooks/pre-commit", "content": "evil"}),
        ),
        (
            "write",
            serde_json::json!({"path": "tools/.claude/settings.json", "content": "{}"}),
        ),
        (
            "write",
            serde_json::json!({"path": "sub/deeper/.codex/config.toml", "content": "x"}),
        ),
        (
            "write",
            serde_json::json!({"path": "new/.pincer/skills/x/SKILL.md", "content": "x"}),
        ),
        (
            "write",
            serde_json::json!({"path": "worktree/.git", "content": "gitdir: /etc\n"}),
        ),
        (
            "write",
            serde_json::json!({"path": "vendor/lib/notes.git", "content": "fine"}),
        ),
    ];
    let server = MockServer::start(file_tool_turn(&calls));
    run_ok(&home, &server, &["--json", "run", "-m", MODEL, "edit"]);
    let results = results(&server);
    for id in ["f0", "f1", "f2", "f3", "f4"] {
        let (text, is_error) = &results[id];
        assert!(*is_error && text.contains("read-only"), "{id}: {text}");
    }
    assert!(!results["f5"].1, "{:?}", results["f5"]);
    assert!(
        !home
            .workspace
            .join("vendor/lib/.git/hooks/pre-commit")
            .exists()
    );
    assert!(!home.workspace.join("new/.pincer").exists());
    assert_eq!(
        std::fs::read_to_string(home.workspace.join("worktree/.git")).unwrap(),
        "gitdir: ../x\n"
    );
}
