//! A provider that cannot be reached, or that does not know the model, says so (issue #47
//! items 7 and 8): the message names the URL and the cause — refused, a name that does not
//! resolve, a TLS handshake that failed, a server that never answers — and the hint fits it (a
//! typo in `ANTHROPIC_BASE_URL`, ollama not running), never "try again later" for a refused
//! connection nor `error.kind: timeout`. Every case is a real failing socket on loopback or a
//! name under `.invalid` (RFC 6761: never resolves), and every 404 is the provider's own body.

use std::net::TcpListener;

use serde_json::Value;

use crate::common::mock::{MockServer, Reply};
use crate::common::protocols::{self, Protocol};
use crate::common::{Home, code, stderr, stdout};

/// A loopback port nothing listens on: bound, then let go.
fn closed_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `pincer run --json` against `url` for `protocol`: the exit code, stderr, and the result.
fn run_against(protocol: &Protocol, url: &str, extra: &[&str]) -> (i32, String, Value) {
    let home = Home::new();
    let output = home
        .pincer()
        .provider_url(protocol, url)
        .fast_retries()
        .args(["run", "--json", "-m", protocol.model])
        .args(extra)
        .arg("hello")
        .output();
    let result: Value = serde_json::from_str(stdout(&output).trim())
        .unwrap_or_else(|error| panic!("{error}: {}", stdout(&output)));
    (code(&output), stderr(&output), result)
}

#[test]
fn a_refused_connection_names_the_url_the_cause_and_the_variable_to_check() {
    let port = closed_port();
    let url = format!("http://127.0.0.1:{port}");
    let (exit, said, result) = run_against(&protocols::anthropic(), &url, &[]);
    assert_eq!(exit, 4, "{said}");
    assert_eq!(result["error"]["kind"], "connection", "{result}");
    assert_eq!(result["error"]["retryable"], true);
    let message = result["error"]["message"].as_str().unwrap();
    assert!(
        message.contains(&format!("cannot connect to {url}")) && message.contains("refused"),
        "{message}"
    );
    assert!(
        said.contains(&format!(
            "hint: nothing is listening at 127.0.0.1:{port}: start the server, or correct the \
             port in ANTHROPIC_BASE_URL"
        )),
        "{said}"
    );
    assert!(!said.contains("try again later"), "{said}");
}

#[test]
fn ollama_not_running_is_said_with_how_to_start_it() {
    let home = Home::new();
    let port = closed_port();
    let output = home
        .pincer()
        .env("OLLAMA_HOST", format!("127.0.0.1:{port}"))
        .fast_retries()
        .args(["run", "-m", "ollama/qwen3", "hello"])
        .output();
    let said = stderr(&output);
    assert_eq!(code(&output), 4, "{said}");
    assert!(
        said.contains(&format!(
            "ollama: cannot connect to http://127.0.0.1:{port}/v1: connection refused"
        )),
        "{said}"
    );
    assert!(
        said.contains("hint: is ollama running? start it with `ollama serve`"),
        "{said}"
    );
}

#[test]
fn a_host_name_that_does_not_resolve_points_at_a_typo_in_the_base_url_and_is_not_retried() {
    let server = MockServer::start(Vec::new());
    let url = "http://pincer-typo.invalid:8080";
    let (exit, said, result) = run_against(&protocols::openai(), url, &[]);
    assert_eq!(exit, 4, "{said}");
    assert_eq!(result["error"]["kind"], "connection", "{result}");
    let message = result["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("cannot connect to http://pincer-typo.invalid:8080/v1")
            && message.contains("does not resolve"),
        "{message}"
    );
    assert!(
        said.contains(
            "hint: the host 'pincer-typo.invalid' is unknown: look for a typo in OPENAI_BASE_URL"
        ),
        "{said}"
    );
    // No retry can make the name resolve (issue #47 item 4): not retryable, one attempt, no
    // `api_retry` waits.
    assert_eq!(result["error"]["retryable"], false, "{result}");
    assert_eq!(result["errors"].as_array().unwrap().len(), 1, "{result}");
    assert!(server.requests().is_empty());
}

#[test]
fn an_https_url_to_a_plain_http_server_is_a_failed_tls_handshake_with_the_http_hint() {
    let server = MockServer::start(Vec::new());
    let url = server.url().replace("http://", "https://");
    let (exit, said, result) = run_against(&protocols::anthropic(), &url, &[]);
    assert_eq!(exit, 4, "{said}");
    assert_eq!(result["error"]["kind"], "connection", "{result}");
    let message = result["error"]["message"].as_str().unwrap();
    assert!(
        message.contains(&format!("cannot connect to {url}"))
            && message.contains("TLS handshake failed"),
        "{message}"
    );
    assert_eq!(result["error"]["retryable"], false, "{result}");
    assert!(
        said.contains(
            "hint: if the server speaks plain HTTP, use an http:// URL in ANTHROPIC_BASE_URL"
        ),
        "{said}"
    );
}

#[test]
fn a_server_that_never_answers_is_a_timeout_that_names_the_url() {
    // Bound and listening: the kernel completes the handshake, nothing ever reads or writes.
    let silent = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", silent.local_addr().unwrap());
    let (exit, said, result) = run_against(
        &protocols::anthropic(),
        &url,
        &["--idle-timeout", "0.5", "-c", "retry.max_retries=0"],
    );
    assert_eq!(exit, 4, "{said}");
    assert_eq!(result["error"]["kind"], "timeout", "{result}");
    let message = result["error"]["message"].as_str().unwrap();
    assert!(
        message.contains(&format!("no response from {url} within 0.5 s")),
        "{message}"
    );
    assert!(
        said.contains("check that ANTHROPIC_BASE_URL points at the provider's API"),
        "{said}"
    );
    drop(silent);
}

#[test]
fn a_model_the_provider_does_not_know_says_so_and_suggests_the_nearest_one_in_every_protocol() {
    let cases = [
        (
            protocols::anthropic(),
            "claude-sonet-4-5",
            "anthropic/claude-sonnet-4-5",
        ),
        (protocols::openai(), "gpt-5-mni", "openai/gpt-5-mini"),
        (
            protocols::openai_chat(),
            "gpt-5-mni",
            "openai-chat/gpt-5-mini",
        ),
        (
            protocols::gemini(),
            "gemini-2.5-flsh",
            "google/gemini-2.5-flash",
        ),
    ];
    for (protocol, typo, meant) in cases {
        let server = MockServer::start(vec![(protocol.model_not_found)(typo)]);
        let provider = protocol.model.split('/').next().unwrap();
        let home = Home::new();
        let output = home
            .pincer()
            .provider(&protocol, &server)
            .args([
                "run",
                "--json",
                "-m",
                &format!("{provider}/{typo}"),
                "hello",
            ])
            .output();
        let said = stderr(&output);
        assert_eq!(code(&output), 1, "{}: {said}", protocol.name);
        let result: Value = serde_json::from_str(stdout(&output).trim()).unwrap();
        assert_eq!(result["error"]["kind"], "model_not_found", "{result}");
        assert_eq!(result["error"]["status"], 404, "{result}");
        assert!(
            said.contains(&format!(
                "hint: {provider} does not know the model '{typo}': did you mean `-m {meant}`?"
            )),
            "{}: {said}",
            protocol.name
        );
    }
}

#[test]
fn an_ollama_model_that_is_not_pulled_says_how_to_pull_it() {
    let server = MockServer::start(vec![Reply::json(
        404,
        &serde_json::json!({"error": {"message": "model \"qwen9\" not found, try pulling it first",
            "type": "api_error", "param": null, "code": null}}),
    )]);
    let home = Home::new();
    let output = home
        .pincer()
        .env("OLLAMA_HOST", server.url())
        .args(["run", "-m", "ollama/qwen9", "hello"])
        .output();
    let said = stderr(&output);
    assert_eq!(code(&output), 1, "{said}");
    assert!(
        said.contains(
            "hint: ollama does not know the model 'qwen9': pull it first with `ollama pull qwen9`"
        ),
        "{said}"
    );
}

/// Issue #47 item 4: a rate limit whose `Retry-After` is longer than pincer waits ends the run
/// as retryable, with the provider's wait in `retry_after_s`, so a script knows when to run
/// again.
#[test]
fn a_rate_limit_with_retry_after_is_retryable_and_says_when() {
    let server = MockServer::start(vec![
        Reply::json(
            429,
            &crate::common::wire::anthropic::error_body("rate_limit_error", "rate limited"),
        )
        .header("retry-after", "900"),
    ]);
    let (exit, said, result) = run_against(&protocols::anthropic(), &server.url(), &[]);
    assert_eq!(exit, 4, "{said}");
    assert_eq!(result["error"]["kind"], "rate_limit", "{result}");
    assert_eq!(result["error"]["retryable"], true, "{result}");
    assert_eq!(result["error"]["retry_after_s"], 900, "{result}");
}
