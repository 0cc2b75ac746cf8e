//! `web_fetch` end to end: the real binary, the model's calls scripted by the mock provider, the
//! pages served by loopback mocks. The public internet is played by a mock HTTP proxy
//! (`HTTP_PROXY`): a request for `http://docs.example/` reaches it in absolute form, so a
//! redirect from a "public" host to a private address can be tested without leaving the machine.

use std::process::Output;

use serde_json::{Value, json};

use crate::common::command::Pincer;
use crate::common::mock::{MockServer, Reply};
use crate::common::protocols;
use crate::common::wire::anthropic::{Usage4, tool_results};
use crate::common::{Home, anthropic_tool_turn, code, stderr, stdout};

const KEY: &str = "sk-ant-WEBFETCH-3f9a1c7e5b2d4f60";
const MODEL: &str = "anthropic/claude-sonnet-4-5";

fn usage() -> Usage4 {
    Usage4 {
        input: 10,
        output: 5,
        cache_read: 0,
        cache_write: 0,
    }
}

/// One model turn calling `web_fetch` once per URL (ids `w0`, `w1`, …), then an answer.
fn fetch_turn(urls: &[String]) -> Vec<Reply> {
    let arguments: Vec<Value> = urls.iter().map(|url| json!({ "url": url })).collect();
    anthropic_tool_turn("Reading.", ("w", "web_fetch"), &arguments, usage())
}

/// pincer with the key in the environment and `provider` as Anthropic, `web_fetch` offered
/// (the `full` profile).
fn pincer(home: &Home, provider: &MockServer) -> Pincer {
    plain(home, provider).args(["-c", "tools.profile=full"])
}

/// pincer with the key in the environment and `provider` as Anthropic, the default profile.
fn plain(home: &Home, provider: &MockServer) -> Pincer {
    let anthropic = protocols::anthropic();
    home.pincer()
        .provider(&anthropic, provider)
        .key(&anthropic, KEY)
}

fn run(command: Pincer, args: &[&str]) -> Output {
    command.args(args).output()
}

/// The tools a dry run would offer.
fn offered(home: &Home, args: &[&str]) -> Vec<String> {
    let server = MockServer::start(Vec::new());
    let output = run(
        plain(home, &server),
        &[&["run", "--dry-run"], args, &["hi"]].concat(),
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let report: Value = serde_json::from_str(&stdout(&output)).unwrap();
    report["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool.as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn web_fetch_comes_with_the_full_profile_or_by_name_and_read_only_needs_it_named() {
    let home = Home::new();
    let has = |args: &[&str]| offered(&home, args).contains(&"web_fetch".to_owned());
    assert!(
        !has(&[]),
        "the default (coding) profile does not reach the network"
    );
    assert!(has(&["-c", "tools.profile=full"]));
    assert!(has(&["--tools", "default,web_fetch"]));
    assert!(has(&["--tools", "read,WebFetch"]));
    assert!(!has(&[
        "-c",
        "tools.profile=full",
        "--sandbox",
        "read-only"
    ]));
    assert!(!has(&[
        "-c",
        "tools.profile=full",
        "--permission-mode",
        "plan"
    ]));
    assert!(has(&[
        "--sandbox",
        "read-only",
        "--tools",
        "read,group:web"
    ]));
    assert!(has(&[
        "-c",
        "tools.profile=full",
        "--sandbox",
        "read-only",
        "--allowed-tools",
        "group:read web_fetch(https://docs.rs/*)",
    ]));
}

#[test]
fn a_fetched_page_reaches_the_model_as_markdown_with_a_key_in_it_redacted() {
    let home = Home::new();
    let page = format!(
        "<html><body><h1>Setup</h1><p>Export the key <code>{KEY}</code> and run \
         <a href=\"/next\">the next step</a>.</p></body></html>"
    );
    let site = MockServer::start(vec![Reply::raw(200, "text/html", page.as_bytes())]);
    let provider = MockServer::start(fetch_turn(&[format!("{}/guide.html", site.url())]));
    let output = run(
        pincer(&home, &provider),
        &[
            "--json",
            "run",
            "-m",
            MODEL,
            "-c",
            "tools.web_fetch.allow_private=true",
            "read the guide",
        ],
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(site.requests()[0].path, "/guide.html");
    let requests = provider.requests();
    assert_eq!(requests.len(), 2);
    let results = tool_results(&requests[1].json());
    let (text, is_error) = &results["w0"];
    assert!(!is_error, "{text}");
    assert!(text.contains("# Setup"), "{text}");
    assert!(text.contains("Export the key `[REDACTED]`"), "{text}");
    assert!(
        text.contains(&format!("[the next step]({}/next)", site.url())),
        "{text}"
    );
    for (label, content) in [
        ("stdout", stdout(&output)),
        ("stderr", stderr(&output)),
        (
            "request",
            String::from_utf8_lossy(&requests[1].body).into_owned(),
        ),
    ] {
        assert!(!content.contains(KEY), "{label} holds the key");
    }
    for entry in std::fs::read_dir(home.sessions_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path
            .extension()
            .is_some_and(|extension| extension == "jsonl")
        {
            assert!(!std::fs::read_to_string(path).unwrap().contains(KEY));
        }
    }
}

#[test]
fn without_allow_private_a_loopback_page_is_refused_listed_and_never_requested() {
    let home = Home::new();
    let site = MockServer::start(vec![Reply::raw(200, "text/plain", b"internal")]);
    let provider = MockServer::start(fetch_turn(&[format!("{}/admin", site.url())]));
    let output = run(
        pincer(&home, &provider),
        &["--json", "run", "-m", MODEL, "read it"],
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(site.requests().is_empty());
    let results = tool_results(&provider.requests()[1].json());
    assert_eq!(
        results["w0"],
        (
            format!(
                "Refused to fetch {}/admin: 127.0.0.1 is a loopback address. web_fetch reaches \
                 public addresses only (tools.web_fetch.allow_private = true in pincer's config \
                 allows the others).",
                site.url()
            ),
            true
        )
    );
    let result: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(result["permission_denials"][0]["tool_name"], "web_fetch");
    assert_eq!(result["permission_denials"][0]["tool_use_id"], "w0");
}

#[test]
fn through_a_proxy_redirects_to_a_private_address_or_past_the_allow_rules_are_refused() {
    let home = Home::new();
    let provider = MockServer::start(fetch_turn(&[
        "http://docs.example/ok".to_owned(),
        "http://docs.example/to-private".to_owned(),
        "http://docs.example/to-elsewhere".to_owned(),
    ]));
    // The proxy plays the internet: three pages of docs.example, in the order they are asked;
    // the second redirects to the provider's own loopback address.
    let proxy = MockServer::start(vec![
        Reply::raw(200, "text/plain", b"fetched through the proxy\n"),
        Reply::raw(302, "text/plain", b"")
            .header("location", &format!("{}/secret", provider.url())),
        Reply::raw(302, "text/plain", b"").header("location", "http://other.example/"),
    ]);
    let output = run(
        pincer(&home, &provider)
            .env("HTTP_PROXY", proxy.url())
            // The provider is on loopback too, and must not be proxied.
            .env("NO_PROXY", "127.0.0.1"),
        &[
            "--json",
            "run",
            "-m",
            MODEL,
            "--allowed-tools",
            "group:fs web_fetch(http://docs.example/*)",
            "read the docs",
        ],
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let paths: Vec<String> = proxy
        .requests()
        .iter()
        .map(|request| request.path.clone())
        .collect();
    assert_eq!(
        paths,
        [
            "http://docs.example/ok",
            "http://docs.example/to-private",
            "http://docs.example/to-elsewhere"
        ],
        "each page asked of the proxy once, no redirect followed"
    );
    let requests = provider.requests();
    assert_eq!(
        requests.len(),
        2,
        "nothing requested /secret of the provider's port"
    );
    let results = tool_results(&requests[1].json());
    assert!(!results["w0"].1, "{}", results["w0"].0);
    assert!(results["w0"].0.ends_with("\n\nfetched through the proxy\n"));
    assert!(results["w1"].1);
    assert!(
        results["w1"]
            .0
            .starts_with("Refused to fetch http://127.0.0.1:")
            && results["w1"]
                .0
                .contains("/secret: 127.0.0.1 is a loopback address."),
        "{}",
        results["w1"].0
    );
    assert!(results["w2"].1);
    assert!(
        results["w2"].0.starts_with(
            "Permission denied: http://docs.example/to-elsewhere redirected to \
             http://other.example/, and The web_fetch call was refused: the URL \
             `http://other.example/` is not allowed"
        ),
        "{}",
        results["w2"].0
    );
    let result: Value = serde_json::from_str(&stdout(&output)).unwrap();
    let denied: Vec<&str> = result["permission_denials"]
        .as_array()
        .unwrap()
        .iter()
        .map(|denial| denial["tool_use_id"].as_str().unwrap())
        .collect();
    assert_eq!(denied, ["w1", "w2"]);
}

/// This machine's name when it resolves to loopback addresses only (as `/etc/hosts` usually
/// says), so a proxy can be named by something the guard does not refuse by name alone.
fn loopback_host_name() -> Option<String> {
    use std::net::ToSocketAddrs as _;
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").ok()?;
    let host = host.trim().to_owned();
    let loopback = (host.as_str(), 0)
        .to_socket_addrs()
        .is_ok_and(|mut found| found.all(|address| address.ip().is_loopback()));
    (!host.is_empty() && !host.contains("localhost") && loopback).then_some(host)
}

#[test]
fn the_proxys_own_name_passes_the_guard_only_for_the_connection_to_the_proxy() {
    let test = "the_proxys_own_name_passes_the_guard_only_for_the_connection_to_the_proxy";
    let Some(host) = loopback_host_name() else {
        crate::common::skip(
            test,
            "this machine's name does not resolve to loopback only",
        );
        return;
    };
    let home = Home::new();
    // A private service on the proxy's machine, reached by the proxy's name.
    let internal = MockServer::start(vec![
        Reply::raw(200, "text/plain", b"internal one"),
        Reply::raw(200, "text/plain", b"internal two"),
    ]);
    let internal_port = internal.url().rsplit(':').next().unwrap().to_owned();
    let behind = format!("http://{host}:{internal_port}/behind");
    // The proxy plays the internet under a name that resolves to loopback; the second page it
    // serves redirects to the service on the proxy's own name.
    let proxy = MockServer::start(vec![
        Reply::raw(200, "text/plain", b"fetched through the proxy\n"),
        Reply::raw(302, "text/plain", b"").header("location", &behind),
    ]);
    let proxy_port = proxy.url().rsplit(':').next().unwrap().to_owned();
    let direct = format!("http://{host}:{internal_port}/direct");
    let provider = MockServer::start(fetch_turn(&[
        "http://docs.example/ok".to_owned(),
        direct.clone(),
        "http://docs.example/to-the-proxy-host".to_owned(),
    ]));
    let output = run(
        pincer(&home, &provider)
            .env("HTTP_PROXY", format!("http://{host}:{proxy_port}"))
            // The proxy's name is not proxied (nor the provider): a request for it goes
            // straight to it, as a request for any other name would.
            .env("NO_PROXY", format!("127.0.0.1,{host}")),
        &["--json", "run", "-m", MODEL, "read the docs"],
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(
        internal.requests().is_empty(),
        "the service behind the proxy's name was reached: {:?}",
        internal
            .requests()
            .iter()
            .map(|request| request.path.clone())
            .collect::<Vec<_>>()
    );
    let paths: Vec<String> = proxy
        .requests()
        .iter()
        .map(|request| request.path.clone())
        .collect();
    assert_eq!(
        paths,
        [
            "http://docs.example/ok",
            "http://docs.example/to-the-proxy-host"
        ]
    );
    let results = tool_results(&provider.requests()[1].json());
    assert!(!results["w0"].1, "{}", results["w0"].0);
    assert!(results["w0"].0.ends_with("\n\nfetched through the proxy\n"));
    for (id, url) in [("w1", &direct), ("w2", &behind)] {
        assert!(results[id].1, "{id}: {}", results[id].0);
        assert!(
            results[id]
                .0
                .starts_with(&format!("Refused to fetch {url}: {host} resolves to 127.")),
            "{id}: {}",
            results[id].0
        );
    }
    let result: Value = serde_json::from_str(&stdout(&output)).unwrap();
    let denied: Vec<&str> = result["permission_denials"]
        .as_array()
        .unwrap()
        .iter()
        .map(|denial| denial["tool_use_id"].as_str().unwrap())
        .collect();
    assert_eq!(denied, ["w1", "w2"]);

    // A scheme the proxy does not carry goes direct too: only HTTPS is proxied here, so an
    // http URL on the proxy's name is an ordinary request, and refused.
    let provider = MockServer::start(fetch_turn(std::slice::from_ref(&direct)));
    let output = run(
        pincer(&home, &provider)
            .env("HTTPS_PROXY", format!("http://{host}:{proxy_port}"))
            .env("NO_PROXY", "127.0.0.1"),
        &["--json", "run", "-m", MODEL, "read it"],
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(internal.requests().is_empty());
    let results = tool_results(&provider.requests()[1].json());
    assert!(results["w0"].1, "{}", results["w0"].0);
    assert!(
        results["w0"].0.starts_with(&format!(
            "Refused to fetch {direct}: {host} resolves to 127."
        )),
        "{}",
        results["w0"].0
    );
}
