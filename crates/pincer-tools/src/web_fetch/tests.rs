//! `web_fetch` against the loopback mock server of the integration tests: private addresses are
//! allowed for the happy paths (the server is on 127.0.0.1) and refused for the guard's test.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::*;
use crate::mock_server::{Body, MockServer, Piece, Reply};
use crate::policy::{PolicySpec, ToolPolicy};
use crate::test_support::Workspace;

const PAGE: &str = r#"<!doctype html><html><head><title>Guide</title>
<script>document.write("not content")</script></head><body>
<h1>Getting started</h1>
<p>Read <a href="/docs/next.html">the next page</a> first.</p>
<pre><code class="language-sh">cargo install pincer
</code></pre>
<ul><li>fast</li><li>small</li></ul>
</body></html>"#;

/// A workspace whose web access allows loopback (the mock) unless `private` is false.
fn workspace(private: bool) -> Workspace {
    let mut workspace = Workspace::new();
    workspace.context.sandbox.web = WebAccess {
        allow_private: private,
        policy: None,
        network_rules: None,
    };
    workspace
}

async fn fetch_tool(workspace: &Workspace, arguments: Value) -> ToolOutput {
    workspace.call("web_fetch", arguments).await
}

fn redirect(status: u16, location: &str) -> Reply {
    Reply::raw(status, "text/plain", b"moved").header("location", location)
}

#[tokio::test]
async fn an_html_page_comes_back_as_markdown_with_absolute_links() {
    let server = MockServer::start(vec![Reply::raw(
        200,
        "text/html; charset=utf-8",
        PAGE.as_bytes(),
    )]);
    let url = format!("{}/docs/start.html", server.url());
    let output = fetch_tool(&workspace(true), json!({"url": url})).await;
    assert!(!output.is_error, "{}", output.text_content());
    assert_eq!(
        output.text_content(),
        format!(
            "URL: {url}\nContent-Type: text/html; charset=utf-8\n\n\
             # Getting started\n\n\
             Read [the next page]({}/docs/next.html) first.\n\n\
             ```sh\ncargo install pincer\n```\n\n\
             - fast\n- small",
            server.url()
        )
    );
    let details = output.details.unwrap();
    assert_eq!(details["status"], 200);
    assert_eq!(details["truncated"], false);
    let request = &server.requests()[0];
    assert_eq!(request.method, "GET");
    assert_eq!(request.path, "/docs/start.html");
    assert!(request.header("accept").unwrap().starts_with("text/html"));
    assert!(request.header("user-agent").unwrap().starts_with("pincer/"));
    // No compression asked for: a small body cannot inflate past the cap.
    assert_eq!(request.header("accept-encoding"), None);
}

#[tokio::test]
async fn text_and_raw_formats_and_plain_text_types_come_back_as_asked() {
    let server = MockServer::start(vec![
        Reply::raw(200, "text/html", PAGE.as_bytes()),
        Reply::raw(200, "text/html", PAGE.as_bytes()),
        Reply::json(200, &json!({"name": "pincer", "tags": ["cli"]})),
    ]);
    let workspace = workspace(true);
    let text = fetch_tool(&workspace, json!({"url": server.url(), "format": "text"})).await;
    assert!(
        text.text_content().ends_with(
            "\n\nGetting started\nRead the next page first.\ncargo install pincer\nfast\nsmall"
        ),
        "{}",
        text.text_content()
    );
    let raw = fetch_tool(&workspace, json!({"url": server.url(), "format": "raw"})).await;
    assert!(raw.text_content().ends_with(PAGE), "{}", raw.text_content());
    let data = fetch_tool(&workspace, json!({"url": server.url()})).await;
    assert_eq!(
        data.text_content(),
        format!(
            "URL: {}/\nContent-Type: application/json\n\n{{\"name\":\"pincer\",\"tags\":[\"cli\"]}}",
            server.url()
        )
    );
    let bad = fetch_tool(&workspace, json!({"url": server.url(), "format": "pdf"})).await;
    assert_eq!(
        bad.text_content(),
        "Invalid argument 'format': expected one of markdown, text, raw"
    );
}

#[tokio::test]
async fn a_redirect_chain_is_followed_and_the_final_url_reported() {
    let server = MockServer::start(vec![
        redirect(301, "/second"),
        redirect(302, "third?x=1"),
        redirect(307, "/final"),
        Reply::raw(200, "text/plain", b"arrived\n"),
    ]);
    let start = format!("{}/first", server.url());
    let output = fetch_tool(&workspace(true), json!({"url": start})).await;
    assert!(!output.is_error, "{}", output.text_content());
    assert_eq!(
        output.text_content(),
        format!(
            "URL: {}/final (redirected from {start})\nContent-Type: text/plain\n\narrived\n",
            server.url()
        )
    );
    let paths: Vec<String> = server
        .requests()
        .iter()
        .map(|request| request.path.clone())
        .collect();
    assert_eq!(paths, ["/first", "/second", "/third?x=1", "/final"]);
    assert_eq!(output.details.unwrap()["redirects"], 3);
}

#[tokio::test]
async fn a_chain_longer_than_five_redirects_stops_without_a_sixth() {
    let replies = (0..10)
        .map(|hop| redirect(302, &format!("/hop{}", hop + 1)))
        .collect();
    let server = MockServer::start(replies);
    let output = fetch_tool(
        &workspace(true),
        json!({"url": format!("{}/hop0", server.url())}),
    )
    .await;
    assert!(output.is_error);
    assert_eq!(
        output.text_content(),
        format!(
            "Stopped after 5 redirects: {0}/hop5 redirected again, to {0}/hop6. Fetch that URL \
             directly if it is the page you want.",
            server.url()
        )
    );
    assert_eq!(server.requests().len(), 6);
}

#[tokio::test]
async fn a_body_past_ten_megabytes_is_cut_and_the_rest_never_read() {
    let megabyte = vec![b'a'; 1024 * 1024];
    let mut pieces: Vec<Piece> = (0..11).map(|_| Piece::Data(megabyte.clone())).collect();
    // A server that would keep the call waiting if the rest were read.
    pieces.push(Piece::Stall(Duration::from_secs(20)));
    let server = MockServer::start(vec![Reply {
        status: 200,
        headers: vec![("content-type".into(), "text/plain".into())],
        body: Body::Chunked(pieces),
    }]);
    let started = Instant::now();
    let output = fetch_tool(
        &workspace(true),
        json!({"url": server.url(), "max_chars": 100}),
    )
    .await;
    assert!(started.elapsed() < Duration::from_secs(15));
    assert!(!output.is_error, "{}", output.text_content());
    let text = output.text_content();
    assert!(
        text.ends_with(&format!(
            "\n\n{}\n\n[Content truncated: showing the first 100 of 10485760 characters. Call \
             again with a larger max_chars (at most 200000) to see more.]\n\n[The response is \
             larger than 10 MB: only its first 10 MB were read.]",
            "a".repeat(100)
        )),
        "{}",
        &text[text.len().saturating_sub(400)..]
    );
    let details = output.details.unwrap();
    assert_eq!(details["bytes"], 10 * 1024 * 1024);
    assert_eq!(details["body_cut"], true);
}

#[tokio::test]
async fn a_binary_content_type_is_an_error_naming_it_and_its_body_is_not_read() {
    let server = MockServer::start(vec![
        Reply::raw(200, "image/png", b"\x89PNG\r\n\x1a\n"),
        Reply::raw(200, "application/octet-stream", b"\0\x01\x02binary"),
        Reply::raw(200, "application/octet-stream", b"plain after all\n"),
    ]);
    let workspace = workspace(true);
    let image = fetch_tool(&workspace, json!({"url": server.url()})).await;
    assert!(image.is_error);
    assert_eq!(image.refusal, None);
    assert_eq!(
        image.text_content(),
        format!(
            "URL: {}/\nContent-Type: image/png\n\nThe response is image/png, 8 bytes, not text: \
             web_fetch returns HTML, text and JSON only.",
            server.url()
        )
    );
    let sniffed = fetch_tool(&workspace, json!({"url": server.url()})).await;
    assert!(sniffed.is_error);
    assert!(
        sniffed
            .text_content()
            .ends_with("The response is binary data, 9 bytes, not text: web_fetch returns HTML, text and JSON only."),
        "{}",
        sniffed.text_content()
    );
    let text = fetch_tool(&workspace, json!({"url": server.url()})).await;
    assert!(!text.is_error, "{}", text.text_content());
    assert!(text.text_content().ends_with("\n\nplain after all\n"));
}

#[tokio::test]
async fn an_http_error_status_is_an_error_result_that_still_shows_the_page() {
    let server = MockServer::start(vec![Reply::raw(
        404,
        "text/html",
        b"<h1>Not here</h1><p>Try the <a href='/'>home page</a>.</p>",
    )]);
    let output = fetch_tool(&workspace(true), json!({"url": server.url()})).await;
    assert!(output.is_error);
    assert_eq!(
        output.text_content(),
        format!(
            "URL: {0}/\nStatus: 404 Not Found\nContent-Type: text/html\n\n# Not here\n\nTry the \
             [home page]({0}/).",
            server.url()
        )
    );
}

#[tokio::test]
async fn loopback_is_refused_without_allow_private_and_nothing_is_sent() {
    let server = MockServer::start(vec![Reply::raw(200, "text/plain", b"secret")]);
    let output = fetch_tool(&workspace(false), json!({"url": server.url()})).await;
    assert_eq!(output.refusal, Some(Refusal::Network));
    assert_eq!(
        output.text_content(),
        format!(
            "Refused to fetch {}/: 127.0.0.1 is a loopback address. web_fetch reaches public \
             addresses only (tools.web_fetch.allow_private = true in pincer's config allows the \
             others).",
            server.url()
        )
    );
    // By name too: `localhost` and whatever resolves to loopback.
    let port = server.url().rsplit(':').next().unwrap().to_owned();
    let named = fetch_tool(
        &workspace(false),
        json!({"url": format!("http://localhost:{port}/")}),
    )
    .await;
    assert_eq!(named.refusal, Some(Refusal::Network));
    assert!(server.requests().is_empty());
}

#[tokio::test]
async fn a_redirect_the_policy_does_not_allow_is_refused_by_the_policy() {
    let server = MockServer::start(vec![
        redirect(302, "/docs/page"),
        redirect(302, "/private/keys"),
        Reply::raw(200, "text/plain", b"never sent"),
    ]);
    let allow = vec![format!("web_fetch({}/docs/*)", server.url())];
    let policy = ToolPolicy::new(&PolicySpec {
        profile: Some("full"),
        allow: &allow,
        ..PolicySpec::default()
    })
    .unwrap();
    let mut workspace = workspace(true);
    workspace.context.sandbox.web.policy = Some(Arc::new(policy));
    let output = fetch_tool(
        &workspace,
        json!({"url": format!("{}/docs/", server.url())}),
    )
    .await;
    assert_eq!(output.refusal, Some(Refusal::Policy));
    assert_eq!(
        output.text_content(),
        format!(
            "Permission denied: {0}/docs/page redirected to {0}/private/keys, and The web_fetch \
             call was refused: the URL `{0}/private/keys` is not allowed; the allow rules for \
             web_fetch are `web_fetch({0}/docs/*)`. Try a different approach that stays within \
             them.",
            server.url()
        )
    );
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn with_network_rules_a_host_they_do_not_allow_is_refused_first_url_and_redirect_alike() {
    // Issue #50: web_fetch follows the rules that limit commands' network.
    let server = MockServer::start(vec![
        redirect(302, "http://unnamed.example.test/collect?secret=1"),
        Reply::raw(200, "text/plain", b"never sent"),
    ]);
    let port = server.url().rsplit(':').next().unwrap().to_owned();
    let mut rules = pincer_egress::Policy::new();
    rules.allow(&format!("127.0.0.1:{port}")).unwrap();
    let mut workspace = workspace(true);
    workspace.context.sandbox.web.network_rules = Some(Arc::new(rules));
    let output = fetch_tool(
        &workspace,
        json!({"url": format!("{}/start", server.url())}),
    )
    .await;
    assert_eq!(
        output.refusal,
        Some(Refusal::Network),
        "{}",
        output.text_content()
    );
    assert_eq!(
        output.text_content(),
        "Refused to fetch http://unnamed.example.test/collect?secret=1: no rule allows it. The \
         network rules (--allow-host, [sandbox.network]) limit web_fetch as they limit commands."
    );
    assert_eq!(server.requests().len(), 1);
    // A first URL they do not allow is refused before anything is sent.
    let output = fetch_tool(
        &workspace,
        json!({"url": format!("http://localhost:{port}/start")}),
    )
    .await;
    assert_eq!(output.refusal, Some(Refusal::Network));
    assert!(
        output.text_content().contains("no rule allows it"),
        "{}",
        output.text_content()
    );
    assert_eq!(server.requests().len(), 1);
}

/// A workspace whose web_fetch follows `rules` (SPEC §20), with the address guard on.
fn ruled(rules: &[&str], denied: &[&str], pins: &[(&str, &str)]) -> Workspace {
    let mut policy = pincer_egress::Policy::new();
    for rule in rules {
        policy.allow(rule).unwrap();
    }
    for rule in denied {
        policy.deny(rule).unwrap();
    }
    for (name, address) in pins {
        policy.pin(name, &[*address]).unwrap();
    }
    let mut workspace = workspace(false);
    workspace.context.sandbox.web.network_rules = Some(Arc::new(policy));
    workspace
}

#[tokio::test]
async fn under_network_rules_a_named_host_on_a_private_address_is_reached_and_a_pin_routes_it() {
    // Issue #50: one decision for the proxy and web_fetch. A host the rules name is reachable
    // on a private address ("unless named"), and `resolve` pins route web_fetch as they route
    // commands: docs.example.test resolves nowhere but to its pin.
    let server = MockServer::start(vec![
        Reply::raw(200, "text/plain", b"pinned page"),
        Reply::raw(200, "text/plain", b"named address"),
    ]);
    let address = server.url().trim_start_matches("http://").to_owned();
    let workspace = ruled(
        &["docs.example.test", &address],
        &[],
        &[("docs.example.test", &address)],
    );
    let output = fetch_tool(&workspace, json!({"url": "http://docs.example.test/page"})).await;
    assert!(!output.is_error, "{}", output.text_content());
    assert!(output.text_content().ends_with("pinned page"));
    assert_eq!(server.requests()[0].path, "/page");
    assert_eq!(
        server.requests()[0].header("host"),
        Some("docs.example.test")
    );
    // An address the rules name is reachable though it is loopback.
    let output = fetch_tool(
        &workspace,
        json!({"url": format!("http://{address}/direct")}),
    )
    .await;
    assert!(!output.is_error, "{}", output.text_content());
    assert!(output.text_content().ends_with("named address"));
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn under_network_rules_a_deny_rule_on_a_network_refuses_the_addresses_a_host_reaches() {
    // Issue #50: deny wins, on the addresses as in the proxy: an allowed name pinned into a
    // denied network is refused, and nothing is sent.
    let server = MockServer::start(vec![Reply::raw(200, "text/plain", b"never sent")]);
    let address = server.url().trim_start_matches("http://").to_owned();
    let workspace = ruled(
        &["docs.example.test"],
        &["127.0.0.0/8"],
        &[("docs.example.test", &address)],
    );
    let output = fetch_tool(&workspace, json!({"url": "http://docs.example.test/page"})).await;
    assert_eq!(
        output.refusal,
        Some(Refusal::Network),
        "{}",
        output.text_content()
    );
    assert_eq!(
        output.text_content(),
        "Refused to fetch http://docs.example.test/page: denied by the rule 127.0.0.0/8. The \
         network rules (--allow-host, [sandbox.network]) limit web_fetch as they limit commands."
    );
    assert!(server.requests().is_empty());
}

#[tokio::test]
async fn the_whole_call_is_bounded_by_its_time_limit() {
    let server = MockServer::start(vec![Reply {
        status: 200,
        headers: vec![("content-type".into(), "text/plain".into())],
        body: Body::Chunked(vec![
            Piece::Data(b"partial".to_vec()),
            Piece::Stall(Duration::from_secs(20)),
        ]),
    }]);
    let limits = Limits {
        total: Duration::from_millis(500),
        ..LIMITS
    };
    let access = WebAccess {
        allow_private: true,
        policy: None,
        network_rules: None,
    };
    let started = Instant::now();
    let error = fetch(
        Url::parse(&server.url()).unwrap(),
        &access,
        &limits,
        &CancellationToken::new(),
    )
    .await
    .unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(
        error.to_string(),
        format!("Fetching {}/ timed out after 0.5 seconds.", server.url())
    );
}

#[tokio::test]
async fn urls_that_are_not_http_are_rejected_before_anything_is_sent() {
    let workspace = workspace(true);
    for (url, message) in [
        (
            "file:///etc/passwd",
            "web_fetch fetches http and https URLs only, not file: file:///etc/passwd",
        ),
        (
            "docs.rs",
            "Invalid URL 'docs.rs': relative URL without a base.",
        ),
    ] {
        let output = fetch_tool(&workspace, json!({"url": url})).await;
        assert!(output.is_error);
        assert_eq!(output.text_content(), message);
    }
    let output = fetch_tool(&workspace, json!({"url": "http://x", "max_chars": 0})).await;
    assert_eq!(
        output.text_content(),
        "Invalid argument 'max_chars': expected a positive whole number"
    );
}

#[tokio::test]
async fn a_refused_connection_is_an_error_result_that_says_why() {
    // A port nothing listens on: bind one, note it, close it.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/");
    let output = fetch_tool(&workspace(true), json!({"url": url})).await;
    assert!(output.is_error);
    assert_eq!(output.refusal, None);
    let text = output.text_content();
    assert!(
        text.starts_with(&format!("Could not fetch {url}: ")),
        "{text}"
    );
    assert!(text.contains("Connection refused"), "{text}");
    // reqwest's own line ("error sending request for url (…)") would only repeat the URL.
    assert!(!text.contains("error sending request"), "{text}");
}

#[tokio::test]
async fn a_name_that_resolves_to_loopback_is_refused_at_connection_time() {
    // The machine's own name usually maps to a loopback address in /etc/hosts; it is not caught
    // by name, so only the client's resolver can refuse it.
    let Ok(host) = std::fs::read_to_string("/proc/sys/kernel/hostname") else {
        eprintln!("skipped: no /proc/sys/kernel/hostname");
        return;
    };
    let host = host.trim().to_owned();
    let loopback = tokio::net::lookup_host((host.as_str(), 0))
        .await
        .is_ok_and(|mut found| found.all(|address| address.ip().is_loopback()));
    if host.is_empty() || host.contains("localhost") || !loopback {
        eprintln!("skipped: this machine's name '{host}' does not resolve to loopback only");
        return;
    }
    let server = MockServer::start(vec![Reply::raw(200, "text/plain", b"internal")]);
    let port = server.url().rsplit(':').next().unwrap().to_owned();
    let url = format!("http://{host}:{port}/");
    let output = fetch_tool(&workspace(false), json!({"url": url})).await;
    assert_eq!(
        output.refusal,
        Some(Refusal::Network),
        "{}",
        output.text_content()
    );
    assert!(
        output
            .text_content()
            .starts_with(&format!("Refused to fetch {url}: {host} resolves to 127.")),
        "{}",
        output.text_content()
    );
    assert!(server.requests().is_empty());
    // With private addresses allowed, the same name reaches the server.
    let allowed = fetch_tool(&workspace(true), json!({"url": url})).await;
    assert!(
        allowed.text_content().ends_with("\n\ninternal"),
        "{}",
        allowed.text_content()
    );
}
