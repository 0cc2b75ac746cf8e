//! The network by name (SPEC §20, issue #50): a confined command reaches the hosts the user
//! named, through pincer's egress proxy, and nothing else. Local servers on the host's loopback
//! stand for the internet; `[sandbox.network] resolve` pins the names to them. Each attack is
//! the model's `exec` call, scripted by the mock. Tests that need user namespaces, python or npm
//! say why they were skipped.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;

use crate::common::mock::MockServer;
use crate::common::protocols;
use crate::common::{Home, code, skip, stderr, stdout};
use crate::suite::exec_sandbox::{exec_turn, have, results, user_namespaces_here};

const MODEL: &str = "anthropic/claude-sonnet-4-5";
const PYTHON: &str = "/usr/bin/python3";

/// Whether this machine can hold the rules (user namespaces) and has python to play the
/// command with; else says why the test is skipped.
fn can_run(test: &str) -> bool {
    if !user_namespaces_here() {
        skip(
            test,
            "user namespaces are not available here (unshare -Urm fails)",
        );
        return false;
    }
    if !Path::new(PYTHON).exists() {
        skip(test, "no /usr/bin/python3 to play the command with");
        return false;
    }
    true
}

/// A plain HTTP server on the host's loopback that answers every request with `body` and
/// counts the requests; it serves until the test ends.
fn http_server(body: &'static str) -> (u16, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let served = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&served);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            count.fetch_add(1, Ordering::SeqCst);
            std::thread::spawn(move || answer(stream, body.as_bytes(), "text/plain"));
        }
    });
    (port, served)
}

/// Read one request's head; its first line.
fn read_head(stream: &TcpStream) -> String {
    let mut reader = BufReader::new(stream);
    let mut first = String::new();
    let _ = reader.read_line(&mut first);
    let mut line = String::new();
    while reader.read_line(&mut line).is_ok_and(|read| read > 2) {
        line.clear();
    }
    first.trim().to_owned()
}

/// Read one request's head and answer it with `body`.
fn answer(stream: TcpStream, body: &[u8], content_type: &str) {
    read_head(&stream);
    respond(&stream, body, content_type);
}

/// Answer with `body`, and close.
fn respond(mut stream: &TcpStream, body: &[u8], content_type: &str) {
    let _ = write!(
        stream,
        "HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\n\
         connection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(body);
}

/// A python command that fetches `url` through the proxy variables and prints the body, or
/// `refused STATUS` / `failed ERROR`.
fn fetch(url: &str) -> String {
    format!(
        "{PYTHON} -c \"
import urllib.request, urllib.error
try:
    print(urllib.request.urlopen('{url}', timeout=10).read().decode())
except urllib.error.HTTPError as error:
    print('refused', error.code)
except Exception as error:
    print('failed', error)
\""
    )
}

/// `pincer run` with the mock as the provider, in stream-json, after checking it exited 0.
fn run_ok(home: &Home, server: &MockServer, args: &[&str]) -> std::process::Output {
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), server)
        .args(args)
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    output
}

/// A local server standing for the host `allowed` (answering `body`), which the config allows,
/// and one for `unnamed`, which it does not: both names pinned to their server, `extra` TOML
/// after the rules. Each server with the count of the requests it served.
fn allowed_and_unnamed(
    home: &Home,
    (allowed, body): (&str, &'static str),
    unnamed: &str,
    extra: &str,
) -> [(u16, Arc<AtomicUsize>); 2] {
    let reached = http_server(body);
    let other = http_server("the other host");
    std::fs::write(
        home.home.join("config.toml"),
        format!(
            "[sandbox.network]\nallow = [\"{allowed}\"]\n\
             resolve = {{ \"{allowed}\" = \"127.0.0.1:{}\", \"{unnamed}\" = \"127.0.0.1:{}\" }}\n{extra}",
            reached.0, other.0
        ),
    )
    .unwrap();
    [reached, other]
}

/// The stream-json lines of a run.
fn lines(output: &std::process::Output) -> Vec<Value> {
    stdout(output)
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .collect()
}

#[test]
fn an_allowed_name_reaches_its_server_and_an_unnamed_one_is_refused_and_reported() {
    let home = Home::new();
    if !can_run("an_allowed_name_reaches_its_server…") {
        return;
    }
    let [(_, allowed), (_, other)] = allowed_and_unnamed(
        &home,
        ("docs.example.test", "hello from the allowed host"),
        "evil.example.test",
        "",
    );
    let server = MockServer::start(exec_turn(&[
        &fetch("http://docs.example.test/page"),
        &fetch("http://evil.example.test/steal"),
        &fetch("http://evil.example.test/again"),
    ]));
    let events_file = home.root.path().join("events.jsonl");
    let output = run_ok(
        &home,
        &server,
        &[
            "--output-format",
            "stream-json",
            "--verbose",
            "run",
            "--events-file",
            events_file.to_str().unwrap(),
            "-m",
            MODEL,
            "fetch",
        ],
    );
    let results = results(&server);
    assert_eq!(results["c0"].0, "hello from the allowed host\n");
    assert_eq!(results["c1"].0, "refused 403\n");
    assert_eq!(results["c2"].0, "refused 403\n");
    assert_eq!(allowed.load(Ordering::SeqCst), 1);
    assert_eq!(
        other.load(Ordering::SeqCst),
        0,
        "the unnamed host was reached"
    );

    // Said once on stderr, with what to allow.
    let stderr = stderr(&output);
    assert_eq!(
        stderr
            .matches("refused a connection to evil.example.test:80")
            .count(),
        1,
        "{stderr}"
    );
    assert!(
        stderr.contains("--allow-host evil.example.test:80"),
        "{stderr}"
    );
    let lines = lines(&output);
    // One event per refused host.
    let events: Vec<&Value> = lines
        .iter()
        .filter(|line| line["subtype"] == "network_denial")
        .collect();
    assert_eq!(events.len(), 1, "{lines:?}");
    assert_eq!(events[0]["host"], "evil.example.test");
    assert_eq!(events[0]["port"], 80);
    assert_eq!(events[0]["reason"], "not_allowed");
    // The same event in --events-file.
    let recorded = std::fs::read_to_string(&events_file).unwrap();
    let recorded: Vec<Value> = recorded
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .filter(|line: &Value| line["subtype"] == "network_denial")
        .collect();
    assert_eq!(recorded.len(), 1, "{recorded:?}");
    assert_eq!(recorded[0]["host"], "evil.example.test");
    // The result counts every refusal.
    let result = lines.last().unwrap();
    assert_eq!(result["type"], "result");
    assert_eq!(
        result["network_denials"],
        serde_json::json!([{
            "host": "evil.example.test",
            "port": 80,
            "reason": "not_allowed",
            "protocol": "http",
            "count": 2
        }]),
        "{result}"
    );
    // The init event shows the rules in force.
    let init = lines.iter().find(|line| line["subtype"] == "init").unwrap();
    assert_eq!(init["sandbox"]["network"], "limited", "{init}");
    assert!(
        init["sandbox"]["network_rules"]
            .as_str()
            .unwrap()
            .starts_with("allow docs.example.test"),
        "{init}"
    );
}

#[test]
fn a_process_that_ignores_the_proxy_variables_reaches_nothing() {
    let home = Home::new();
    if !can_run("a_process_that_ignores_the_proxy_variables…") {
        return;
    }
    let (port, served) = http_server("reached");
    // The name is allowed and pinned to the server: only the proxy can take a client there.
    std::fs::write(
        home.home.join("config.toml"),
        format!(
            "[sandbox.network]\nresolve = {{ \"reached.example.test\" = \"127.0.0.1:{port}\" }}\n"
        ),
    )
    .unwrap();
    let connect = format!(
        "{PYTHON} -c \"
import socket
for host, port in (('127.0.0.1', {port}), ('reached.example.test', 80), ('reached.example.test', {port})):
    try:
        socket.create_connection((host, port), timeout=3)
        print('CONNECTED')
    except OSError as error:
        print('no network')
\""
    );
    let server = MockServer::start(exec_turn(&[
        &connect,
        &fetch("http://reached.example.test/"),
    ]));
    run_ok(
        &home,
        &server,
        &[
            "--json",
            "run",
            "-m",
            MODEL,
            "--allow-host",
            "reached.example.test",
            "connect",
        ],
    );
    let results = results(&server);
    assert_eq!(results["c0"].0, "no network\nno network\nno network\n");
    // Through the proxy, the same name is reached: the rule was in force.
    assert_eq!(results["c1"].0, "reached\n");
    assert_eq!(served.load(Ordering::SeqCst), 1);
}

#[test]
fn a_loopback_port_rule_reaches_a_local_server_through_the_fixed_route() {
    let home = Home::new();
    if !can_run("a_loopback_port_rule_reaches…") {
        return;
    }
    // A server that speaks first, as a database does.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut stream = stream;
            let _ = stream.write_all(b"220 database ready\n");
            let mut buffer = [0_u8; 64];
            let read = stream.read(&mut buffer).unwrap_or(0);
            let _ = stream.write_all(&buffer[..read]);
        }
    });
    let client = format!(
        "{PYTHON} -c \"
import socket
connection = socket.create_connection(('127.0.0.1', {port}), timeout=5)
greeting = connection.makefile().readline()
connection.sendall(b'ping')
print(greeting.strip(), connection.recv(64).decode())
\""
    );
    let server = MockServer::start(exec_turn(&[&client]));
    run_ok(
        &home,
        &server,
        &[
            "--json",
            "run",
            "-m",
            MODEL,
            "--allow-host",
            &format!("localhost:{port}"),
            "query",
        ],
    );
    assert_eq!(results(&server)["c0"].0, "220 database ready ping\n");
}

#[test]
fn a_bad_pattern_is_a_usage_error_naming_it_and_where_it_was_written() {
    let home = Home::new();
    let server = MockServer::start(Vec::new());
    let flag = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["run", "-m", MODEL, "--allow-host", "*.org", "hi"])
        .output();
    assert_eq!(code(&flag), 2, "{}", stderr(&flag));
    let said = stderr(&flag);
    assert!(said.contains("--allow-host"), "{said}");
    assert!(said.contains("\"*.org\""), "{said}");

    std::fs::write(
        home.home.join("config.toml"),
        "[sandbox.network]\nallow = [\"registry.npmjs.org\", \"127.1\"]\n",
    )
    .unwrap();
    let file = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["run", "-m", MODEL, "hi"])
        .output();
    assert_eq!(code(&file), 2, "{}", stderr(&file));
    let said = stderr(&file);
    assert!(said.contains("sandbox.network.allow"), "{said}");
    assert!(said.contains("(line 2)"), "{said}");
    assert!(said.contains("\"127.1\""), "{said}");
    assert!(server.requests().is_empty());
}

/// A `package.json` that depends on `left-pad` and whose test prints what it required.
const PACKAGE_JSON: &str = r#"{
  "name": "uses-left-pad",
  "version": "1.0.0",
  "private": true,
  "dependencies": { "left-pad": "1.3.0" },
  "scripts": { "test": "node -e \"console.log('padded:' + require('left-pad')('7', 3, '0'))\"" }
}
"#;

/// A gzipped tar of `package/package.json` and `package/index.js` for left-pad 1.3.0, built
/// with the system's tar.
fn left_pad_tarball(directory: &Path) -> Vec<u8> {
    let package = directory.join("package");
    std::fs::create_dir_all(&package).unwrap();
    std::fs::write(
        package.join("package.json"),
        r#"{"name":"left-pad","version":"1.3.0","main":"index.js"}"#,
    )
    .unwrap();
    std::fs::write(
        package.join("index.js"),
        "module.exports = (s, n, c) => String(s).padStart(n, c);\n",
    )
    .unwrap();
    let tarball = directory.join("left-pad-1.3.0.tgz");
    let status = std::process::Command::new("tar")
        .arg("-czf")
        .arg(&tarball)
        .arg("-C")
        .arg(directory)
        .arg("package")
        .status()
        .unwrap();
    assert!(status.success());
    std::fs::read(tarball).unwrap()
}

/// The SHA-512 of `bytes` in npm's integrity form, through the system's openssl or sha512sum.
fn integrity(bytes: &[u8], directory: &Path) -> String {
    let file = directory.join("tarball-for-hash");
    std::fs::write(&file, bytes).unwrap();
    let output = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "sha512sum '{}' | cut -d' ' -f1 | xxd -r -p | base64 -w0",
            file.display()
        ))
        .output()
        .unwrap();
    format!("sha512-{}", String::from_utf8(output.stdout).unwrap())
}

#[test]
fn npm_ci_and_npm_test_run_with_the_npm_preset_against_a_local_registry() {
    let home = Home::new();
    if !can_run("npm_ci_and_npm_test_run_with_the_npm_preset…") {
        return;
    }
    if !have("npm") || !have("node") || !have("xxd") {
        skip(
            "npm_ci_and_npm_test_run_with_the_npm_preset…",
            "npm, node or xxd is missing",
        );
        return;
    }
    // The registry stand-in: left-pad's metadata and tarball, on the host's loopback.
    let scratch = tempfile::tempdir().unwrap();
    let tarball: &'static [u8] = Box::leak(left_pad_tarball(scratch.path()).into_boxed_slice());
    let integrity = integrity(tarball, scratch.path());
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let metadata: &'static str = Box::leak(
        serde_json::json!({
            "name": "left-pad",
            "dist-tags": { "latest": "1.3.0" },
            "versions": { "1.3.0": {
                "name": "left-pad",
                "version": "1.3.0",
                "main": "index.js",
                "dist": {
                    "tarball": "http://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz",
                    "integrity": integrity,
                }
            }}
        })
        .to_string()
        .into_boxed_str(),
    );
    let requests = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let seen = Arc::clone(&requests);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let seen = Arc::clone(&seen);
            std::thread::spawn(move || {
                let request_line = read_head(&stream);
                seen.lock().unwrap().push(request_line.clone());
                if request_line.contains(".tgz") {
                    respond(&stream, tarball, "application/octet-stream");
                } else {
                    respond(&stream, metadata.as_bytes(), "application/json");
                }
            });
        }
    });
    std::fs::write(home.workspace.join("package.json"), PACKAGE_JSON).unwrap();
    let lock = serde_json::json!({
        "name": "uses-left-pad",
        "version": "1.0.0",
        "lockfileVersion": 3,
        "requires": true,
        "packages": {
            "": { "name": "uses-left-pad", "version": "1.0.0", "dependencies": { "left-pad": "1.3.0" } },
            "node_modules/left-pad": {
                "version": "1.3.0",
                "resolved": "http://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz",
                "integrity": integrity,
            }
        }
    });
    std::fs::write(
        home.workspace.join("package-lock.json"),
        serde_json::to_string_pretty(&lock).unwrap(),
    )
    .unwrap();
    // npm over plain HTTP to the registry's name, pinned to the stand-in; its cache in the
    // workspace (the home directory is not writable in the sandbox).
    std::fs::write(
        home.workspace.join(".npmrc"),
        "registry=http://registry.npmjs.org/\ncache=./.npm-cache\naudit=false\nfund=false\n\
         update-notifier=false\n",
    )
    .unwrap();
    std::fs::write(
        home.home.join("config.toml"),
        format!(
            "[sandbox.network]\nresolve = {{ \"registry.npmjs.org\" = \"127.0.0.1:{port}\" }}\n"
        ),
    )
    .unwrap();
    let server = MockServer::start(exec_turn(&["npm ci && npm test"]));
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args([
            "--json",
            "run",
            "--sandbox",
            "workspace-write",
            "--allow-host",
            "@npm",
            "-m",
            MODEL,
            "npm ci && npm test",
        ])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let results = results(&server);
    let (text, is_error) = &results["c0"];
    assert!(!is_error, "{text}");
    assert!(text.contains("padded:007"), "{text}");
    let requests = requests.lock().unwrap();
    assert!(
        requests
            .iter()
            .any(|line| line.contains("left-pad-1.3.0.tgz")),
        "{requests:?}"
    );
    let result: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(result["network_denials"], serde_json::json!([]), "{result}");
}

#[test]
fn without_user_namespaces_a_command_that_asked_for_rules_is_refused_not_given_the_network() {
    let home = Home::new();
    if !Path::new(PYTHON).exists() {
        skip("without_user_namespaces_a_command…", "no /usr/bin/python3");
        return;
    }
    let (port, served) = http_server("reached");
    std::fs::write(
        home.home.join("config.toml"),
        format!(
            "[sandbox.network]\nallow = [\"reached.example.test\", \"127.0.0.1:{port}\"]\n\
             resolve = {{ \"reached.example.test\" = \"127.0.0.1:{port}\" }}\n"
        ),
    )
    .unwrap();
    let server = MockServer::start(exec_turn(&[&format!(
        "{PYTHON} -c \"import socket; socket.create_connection(('127.0.0.1', {port})); \
         print('CONNECTED')\"; echo COMMAND-RAN"
    )]));
    let Some(output) = crate::suite::exec_sandbox::without_user_namespaces(
        &home,
        &server,
        &["--json", "run", "-m", MODEL, "reach out"],
    ) else {
        return;
    };
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let (text, is_error) = &results(&server)["c0"];
    assert!(is_error, "{text}");
    assert!(
        text.contains(
            "the network rules (--allow-host, [sandbox.network]) need user namespaces, which \
             are not available here"
        ),
        "{text}"
    );
    assert!(!text.contains("COMMAND-RAN"), "the command ran: {text}");
    assert_eq!(served.load(Ordering::SeqCst), 0);
}

#[test]
fn status_and_dry_run_show_the_rules_in_force_and_allow_network_wins_with_a_warning() {
    let home = Home::new();
    std::fs::write(
        home.home.join("config.toml"),
        "[sandbox.network]\nallow = [\"@pypi\"]\ndeny = [\"evil.pythonhosted.org\"]\n",
    )
    .unwrap();
    let server = MockServer::start(Vec::new());
    let status = run_ok(&home, &server, &["status", "--json"]);
    let status: Value = serde_json::from_str(&stdout(&status)).unwrap();
    assert_eq!(
        status["sandbox"]["exec_network_rules"],
        "allow pypi.org (@pypi), files.pythonhosted.org (@pypi); deny evil.pythonhosted.org",
        "{status}"
    );
    let dry = run_ok(
        &home,
        &server,
        &[
            "run",
            "-m",
            MODEL,
            "--allow-host",
            "localhost:5432",
            "--dry-run",
            "hi",
        ],
    );
    let dry: Value = serde_json::from_str(&stdout(&dry)).unwrap();
    assert_eq!(
        dry["sandbox"]["exec_network_rules"],
        "allow pypi.org (@pypi), files.pythonhosted.org (@pypi), localhost:5432; deny \
         evil.pythonhosted.org",
        "{dry}"
    );
    let network = dry["sandbox"]["exec_network"].as_str().unwrap();
    if user_namespaces_here() {
        assert!(network.starts_with("limited:"), "{network}");
    }
    // The whole network wins over the rules, and says so.
    let open = run_ok(
        &home,
        &server,
        &["run", "-m", MODEL, "--allow-network", "--dry-run", "hi"],
    );
    let said = stderr(&open);
    assert!(
        said.contains("--allow-host and [sandbox.network] have no effect on this run"),
        "{said}"
    );
    let open: Value = serde_json::from_str(&stdout(&open)).unwrap();
    assert!(
        open["sandbox"]["exec_network"]
            .as_str()
            .unwrap()
            .starts_with("on")
    );
    assert!(
        open["sandbox"].get("exec_network_rules").is_none(),
        "{open}"
    );
}

#[test]
fn a_raw_tcp_client_reaches_an_allowed_host_through_socks5_and_an_unnamed_one_is_refused() {
    let home = Home::new();
    if !can_run("a_raw_tcp_client_reaches_an_allowed_host_through_socks5…") {
        return;
    }
    // An echo server stands for a non-HTTP service.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut stream = stream;
            let mut buffer = [0_u8; 64];
            let read = stream.read(&mut buffer).unwrap_or(0);
            let _ = stream.write_all(&buffer[..read]);
        }
    });
    std::fs::write(
        home.home.join("config.toml"),
        format!(
            "[sandbox.network]\nallow = [\"raw.example.test:7\"]\n\
             resolve = {{ \"raw.example.test\" = \"127.0.0.1:{port}\", \
             \"other.example.test\" = \"127.0.0.1:{port}\" }}\n"
        ),
    )
    .unwrap();
    // SOCKS5 by hand, to the proxy ALL_PROXY names, with the name for the proxy to resolve.
    let socks = |name: &str| {
        format!(
            "{PYTHON} -c \"
import os, socket, struct
host, port = os.environ['ALL_PROXY'].rsplit('/', 1)[1].split(':')
s = socket.create_connection((host, int(port)), timeout=5)
s.sendall(b'\\x05\\x01\\x00'); assert s.recv(2) == b'\\x05\\x00'
name = b'{name}'
s.sendall(b'\\x05\\x01\\x00\\x03' + bytes([len(name)]) + name + struct.pack('>H', 7))
reply = s.recv(10)
if reply[1] != 0:
    print('refused', reply[1])
else:
    s.sendall(b'ping'); print(s.recv(64).decode())
\""
        )
    };
    let server = MockServer::start(exec_turn(&[
        &socks("raw.example.test"),
        &socks("other.example.test"),
    ]));
    let output = run_ok(&home, &server, &["--json", "run", "-m", MODEL, "talk"]);
    let results = results(&server);
    assert_eq!(results["c0"].0, "ping\n");
    assert_eq!(results["c1"].0, "refused 2\n");
    let result: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(result["network_denials"][0]["host"], "other.example.test");
    assert_eq!(result["network_denials"][0]["protocol"], "socks5");
}

#[test]
fn a_hook_goes_through_the_same_rules_when_the_user_limited_the_network() {
    let home = Home::new();
    if !can_run("a_hook_goes_through_the_same_rules…") {
        return;
    }
    let hook = format!(
        "{{ {}; {}; }} > hook-fetched.txt",
        fetch("http://hooked.example.test/"),
        fetch("http://unhooked.example.test/")
    );
    let [_, (_, other)] = allowed_and_unnamed(
        &home,
        ("hooked.example.test", "hook reached its host"),
        "unhooked.example.test",
        &format!(
            "[[hooks.UserPromptSubmit]]\ncommand = {}\n",
            Value::String(hook)
        ),
    );
    let server = MockServer::start(exec_turn(&["echo ok"]));
    let output = run_ok(&home, &server, &["--json", "run", "-m", MODEL, "go"]);
    assert_eq!(
        std::fs::read_to_string(home.workspace.join("hook-fetched.txt")).unwrap(),
        "hook reached its host\nrefused 403\n"
    );
    assert_eq!(other.load(Ordering::SeqCst), 0);
    let result: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(
        result["network_denials"][0]["host"], "unhooked.example.test",
        "{result}"
    );
}

#[test]
fn claudes_sandbox_settings_allowed_and_denied_domains_are_rules_too() {
    // What claude's Agent SDK passes for its `sandbox` option, in claude's settings format.
    let home = Home::new();
    let server = MockServer::start(Vec::new());
    let settings = r#"{"sandbox": {"network": {"allowedDomains": ["*.example.test"], "deniedDomains": ["evil.example.test"]}}}"#;
    let dry = run_ok(
        &home,
        &server,
        &[
            "run",
            "-m",
            MODEL,
            "--settings",
            settings,
            "--dry-run",
            "hi",
        ],
    );
    let dry: Value = serde_json::from_str(&stdout(&dry)).unwrap();
    assert_eq!(
        dry["sandbox"]["exec_network_rules"], "allow *.example.test; deny evil.example.test",
        "{dry}"
    );
    let bad = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["run", "-m", MODEL, "--dry-run", "hi", "--settings"])
        .arg(r#"{"sandbox": {"network": {"allowedDomains": ["*"]}}}"#)
        .output();
    assert_eq!(code(&bad), 2, "{}", stderr(&bad));
    let said = stderr(&bad);
    assert!(
        said.contains("--settings JSON: sandbox.network.allowedDomains: the network rule \"*\""),
        "{said}"
    );
}

/// A stdio MCP server, in python, with one tool `fetch` that fetches its `url` as `fetch`
/// above does (through the proxy variables when it has them); it speaks MCP's newline-delimited
/// JSON-RPC.
const FETCHING_SERVER: &str = r#"
import json, sys, urllib.request, urllib.error
def fetch(url):
    try:
        return urllib.request.urlopen(url, timeout=10).read().decode()
    except urllib.error.HTTPError as error:
        return 'refused %d' % error.code
    except Exception as error:
        return 'failed %s' % error
for line in sys.stdin:
    message = json.loads(line)
    method, ident = message.get('method'), message.get('id')
    if ident is None:
        continue
    if method == 'initialize':
        result = {'protocolVersion': message['params']['protocolVersion'],
                  'capabilities': {'tools': {}}, 'serverInfo': {'name': 'web', 'version': '1'}}
    elif method == 'tools/list':
        result = {'tools': [{'name': 'fetch', 'description': 'Fetch a URL.', 'inputSchema': {
            'type': 'object', 'properties': {'url': {'type': 'string'}}, 'required': ['url']}}]}
    elif method == 'tools/call':
        text = fetch(message['params']['arguments']['url'])
        result = {'content': [{'type': 'text', 'text': text}]}
    else:
        result = {}
    print(json.dumps({'jsonrpc': '2.0', 'id': ident, 'result': result}), flush=True)
"#;

/// The `--mcp-config` of the fetching server `web`, its script written in `home`, with
/// `extra` keys in its entry.
fn fetching_server(home: &Home, extra: Value) -> String {
    let script = home.root.path().join("fetching_server.py");
    std::fs::write(&script, FETCHING_SERVER).unwrap();
    let mut entry = serde_json::json!({"command": PYTHON, "args": [script]});
    if let (Some(entry), Some(extra)) = (entry.as_object_mut(), extra.as_object()) {
        entry.extend(extra.clone());
    }
    serde_json::json!({"mcpServers": {"web": entry}}).to_string()
}

/// The model's calls of the fetching server's tool, one per URL.
fn fetch_turn(urls: &[&str]) -> Vec<crate::common::mock::Reply> {
    let arguments: Vec<Value> = urls
        .iter()
        .map(|url| serde_json::json!({ "url": url }))
        .collect();
    crate::common::anthropic_tool_turn(
        "Fetching.",
        ("f", "mcp__web__fetch"),
        &arguments,
        crate::suite::exec_sandbox::usage(),
    )
}

#[test]
fn an_mcp_stdio_server_reaches_only_the_hosts_the_rules_allow() {
    // Issue #50: "the same for exec, hooks started by the model's tools and MCP servers". The
    // model calls the server's tool with a host no rule names: without the server's own network
    // namespace it would reach it (here: fail to resolve the pinned names at all).
    let home = Home::new();
    if !can_run("an_mcp_stdio_server_reaches_only_the_hosts…") {
        return;
    }
    let [(_, allowed), (other_port, other)] = allowed_and_unnamed(
        &home,
        ("docs.example.test", "hello from the allowed host"),
        "evil.example.test",
        "",
    );
    let config = fetching_server(&home, serde_json::json!({"required": true}));
    // The unnamed host by name, and by its address: a server without a network namespace of
    // its own would reach the second one (which NO_PROXY sends to the namespace's own
    // loopback, where nothing listens).
    let direct = format!("http://127.0.0.1:{other_port}/direct");
    let server = MockServer::start(fetch_turn(&[
        "http://docs.example.test/page",
        "http://evil.example.test/steal",
        &direct,
    ]));
    let output = run_ok(
        &home,
        &server,
        &[
            "--json",
            "run",
            "--mcp-config",
            &config,
            "-m",
            MODEL,
            "fetch",
        ],
    );
    let results = results(&server);
    assert_eq!(
        results["f0"].0, "hello from the allowed host",
        "{results:?}"
    );
    assert_eq!(results["f1"].0, "refused 403", "{results:?}");
    assert!(
        results["f2"].0.starts_with("failed") && results["f2"].0.contains("refused"),
        "{results:?}"
    );
    assert_eq!(allowed.load(Ordering::SeqCst), 1);
    assert_eq!(
        other.load(Ordering::SeqCst),
        0,
        "the unnamed host was reached"
    );
    assert!(
        stderr(&output).contains("refused a connection to evil.example.test:80"),
        "{}",
        stderr(&output)
    );
    let result: Value = serde_json::from_str(&stdout(&output)).unwrap();
    let denied: Vec<&str> = result["network_denials"]
        .as_array()
        .unwrap()
        .iter()
        .map(|denial| denial["host"].as_str().unwrap())
        .collect();
    assert_eq!(denied, ["evil.example.test"], "{result}");
}

/// An agent SDK keeps its MCP servers across the prompts of its process; under network rules it
/// keeps the egress proxy they reach too, so a host a kept server is refused in a later turn is
/// in that turn's `network_denials` (the server used to go on through the first turn's proxy,
/// whose refusals no later result listed).
#[test]
fn a_kept_mcp_servers_refusal_in_a_later_sdk_turn_is_in_that_turns_result() {
    let home = Home::new();
    if !can_run("a_kept_mcp_servers_refusal_in_a_later_sdk_turn…") {
        return;
    }
    let [(_, allowed), (_, other)] = allowed_and_unnamed(
        &home,
        ("docs.example.test", "hello from the allowed host"),
        "evil.example.test",
        "",
    );
    let config = fetching_server(&home, serde_json::json!({}));
    let mut replies = fetch_turn(&["http://docs.example.test/page"]);
    replies.extend(fetch_turn(&["http://evil.example.test/later"]));
    let server = MockServer::start(replies);
    let mut child = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args([
            "--output-format",
            "stream-json",
            "--verbose",
            "--input-format",
            "stream-json",
            "--mcp-config",
            &config,
            "--model",
            MODEL,
        ])
        .spawn_with_open_stdin();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut turn = |prompt: &str| -> Value {
        writeln!(
            stdin,
            r#"{{"type":"user","message":{{"role":"user","content":"{prompt}"}},"parent_tool_use_id":null,"session_id":"default"}}"#
        )
        .unwrap();
        loop {
            let line = lines
                .next()
                .expect("stdout closed before a result")
                .unwrap();
            let value: Value = serde_json::from_str(&line).unwrap();
            if value["type"] == "result" {
                return value;
            }
        }
    };
    let first = turn("fetch the docs");
    assert_eq!(first["network_denials"], serde_json::json!([]), "{first}");
    let second = turn("fetch the other one");
    let denied: Vec<&str> = second["network_denials"]
        .as_array()
        .unwrap()
        .iter()
        .map(|denial| denial["host"].as_str().unwrap())
        .collect();
    assert_eq!(denied, ["evil.example.test"], "{second}");
    drop(stdin);
    let _ = child.wait();
    assert_eq!(allowed.load(Ordering::SeqCst), 1);
    assert_eq!(
        other.load(Ordering::SeqCst),
        0,
        "the unnamed host was reached"
    );
}

#[test]
fn without_user_namespaces_an_mcp_server_under_rules_is_not_started_rather_than_given_the_network()
{
    let home = Home::new();
    if !Path::new(PYTHON).exists() {
        skip(
            "without_user_namespaces_an_mcp_server…",
            "no /usr/bin/python3",
        );
        return;
    }
    std::fs::write(
        home.home.join("config.toml"),
        "[sandbox.network]\nallow = [\"docs.example.test\"]\n",
    )
    .unwrap();
    let config = fetching_server(&home, serde_json::json!({"required": true}));
    let server = MockServer::start(fetch_turn(&["http://docs.example.test/"]));
    let Some(output) = crate::suite::exec_sandbox::without_user_namespaces(
        &home,
        &server,
        &["--json", "run", "--mcp-config", &config, "-m", MODEL, "go"],
    ) else {
        return;
    };
    // A required server that cannot start ends the run before any request.
    assert_eq!(code(&output), 1, "{}", stderr(&output));
    let stderr = stderr(&output);
    assert!(
        stderr.contains("required MCP server 'web' failed to start")
            && stderr.contains(
                "the network rules (--allow-host, [sandbox.network]) need user namespaces, \
                 which are not available here"
            ),
        "{stderr}"
    );
    assert!(server.requests().is_empty());
}
