//! Sending a model request and driving its protocol's parser over the SSE body.
//!
//! Every wait is bounded: the response head and each body read are under the idle timeout, and
//! every await also watches the run's cancellation token. EOF before the protocol's terminal
//! event is an error (never a silently shortened answer). Requests are never re-sent here:
//! retrying is a decision for the caller, which knows whether output already reached the user.

use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use tokio_util::sync::CancellationToken;

use super::error::{HttpFailure, truncate};
use super::sse::SseDecoder;
use super::{Accumulator, AuthStyle, ErrorDetails, Protocol, ProviderError, StreamEvent};
use crate::secret::Secret;

/// Where a request goes and with which credential.
#[derive(Clone)]
pub struct Endpoint {
    /// Provider name, for errors (`anthropic`, `ollama`, …).
    pub provider: String,
    /// Base URL without the API path (`https://api.anthropic.com`, `http://127.0.0.1:11434/v1`).
    pub base_url: String,
    /// The key, when the provider needs one. Exposed only in `headers_for`, in a header marked
    /// sensitive; never logged.
    pub api_key: Option<Secret>,
    /// Extra headers from config.
    pub headers: Vec<(String, String)>,
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Endpoint")
            .field("provider", &self.provider)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key)
            .finish_non_exhaustive()
    }
}

/// How a model call ended.
#[derive(Debug)]
pub enum CallOutcome {
    /// The stream reached its terminal event.
    Complete(Accumulator),
    /// The call failed; `partial` holds whatever streamed before the failure.
    Failed {
        /// Why.
        error: ProviderError,
        /// What arrived before.
        partial: Accumulator,
    },
    /// The run was cancelled (signal or wall-clock timeout) while waiting.
    Cancelled {
        /// What arrived before.
        partial: Accumulator,
    },
}

/// Build the HTTP client once per process. TLS is rustls with the ring provider.
pub fn client() -> Result<reqwest::Client, ProviderError> {
    // Installing twice is harmless (the second call reports the first provider back).
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .user_agent(concat!("pincer/", env!("CARGO_PKG_VERSION")))
        .connect_timeout(Duration::from_secs(30))
        .build()
        .map_err(|error| ProviderError::Transport {
            provider: "http".to_owned(),
            message: format!("cannot build the HTTP client: {error}"),
        })
}

fn headers_for(endpoint: &Endpoint, protocol: &Protocol) -> HeaderMap {
    let mut headers = HeaderMap::new();
    let pairs = protocol
        .request
        .headers
        .iter()
        .chain(endpoint.headers.iter());
    for (name, value) in pairs {
        if let (Ok(name), Ok(value)) = (
            HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_str(value),
        ) {
            headers.insert(name, value);
        }
    }
    if let Some(key) = &endpoint.api_key {
        let key = key.expose();
        let (name, value) = match protocol.auth {
            AuthStyle::XApiKey => ("x-api-key", key.to_owned()),
            AuthStyle::Bearer => ("authorization", format!("Bearer {key}")),
            AuthStyle::GoogApiKey => ("x-goog-api-key", key.to_owned()),
        };
        if let Ok(mut value) = HeaderValue::from_str(&value) {
            value.set_sensitive(true);
            headers.insert(HeaderName::from_static(name), value);
        }
    }
    headers
}

/// The full URL of a request: base URL plus the protocol's path.
pub fn url(endpoint: &Endpoint, protocol: &Protocol) -> String {
    format!(
        "{}{}",
        endpoint.base_url.trim_end_matches('/'),
        protocol.request.path
    )
}

/// A retry delay from `retry-after-ms` or `retry-after` (seconds).
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let text = |name: &str| headers.get(name).and_then(|value| value.to_str().ok());
    if let Some(milliseconds) =
        text("retry-after-ms").and_then(|value| value.trim().parse::<f64>().ok())
    {
        return Some(Duration::from_secs_f64(milliseconds.max(0.0) / 1000.0));
    }
    text("retry-after")
        .and_then(|value| value.trim().parse::<f64>().ok())
        .map(|seconds| Duration::from_secs_f64(seconds.max(0.0)))
}

/// Send the request and stream the answer, calling `on_event` for every neutral event as it
/// arrives (before the next read), so text reaches stdout without buffering.
pub async fn call(
    client: &reqwest::Client,
    endpoint: &Endpoint,
    mut protocol: Protocol,
    idle_timeout: Duration,
    cancel: &CancellationToken,
    on_event: &mut dyn FnMut(&StreamEvent),
) -> CallOutcome {
    let provider = endpoint.provider.clone();
    let mut accumulator = Accumulator::new();
    let transport = |message: String| ProviderError::Transport {
        provider: provider.clone(),
        message,
    };
    let request = client
        .post(url(endpoint, &protocol))
        .headers(headers_for(endpoint, &protocol))
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .body(serde_json::to_vec(&protocol.request.body).unwrap_or_default())
        .send();
    let response = tokio::select! {
        () = cancel.cancelled() => return CallOutcome::Cancelled { partial: accumulator },
        outcome = tokio::time::timeout(idle_timeout, request) => match outcome {
            Err(_) => return CallOutcome::Failed {
                error: ProviderError::IdleTimeout { provider: provider.clone(), after: idle_timeout },
                partial: accumulator,
            },
            Ok(Err(error)) => return CallOutcome::Failed {
                error: transport(without_url(&error)),
                partial: accumulator,
            },
            Ok(Ok(response)) => response,
        },
    };
    let status = response.status().as_u16();
    if !response.status().is_success() {
        let headers = response.headers().clone();
        let body = tokio::select! {
            () = cancel.cancelled() => return CallOutcome::Cancelled { partial: accumulator },
            body = tokio::time::timeout(idle_timeout, response.bytes()) => match body {
                Ok(Ok(bytes)) => String::from_utf8_lossy(&bytes).into_owned(),
                _ => String::new(),
            },
        };
        let mut details: ErrorDetails = (protocol.parse_error_body)(status, &body);
        if details.message.is_empty() {
            details.message = format!("HTTP {status} with an empty body");
        }
        let header_text = |name: &str| {
            headers
                .get(name)
                .and_then(|value| value.to_str().ok())
                .map(str::to_owned)
        };
        let failure = HttpFailure {
            provider: provider.clone(),
            status,
            request_id: header_text("request-id").or_else(|| header_text("x-request-id")),
            retry_after: retry_after(&headers),
            should_retry: header_text("x-should-retry").map(|value| value == "true"),
            body: truncate(&body, 64 * 1024),
            details,
        };
        return CallOutcome::Failed {
            error: ProviderError::Http(Box::new(failure)),
            partial: accumulator,
        };
    }
    let mut response = response;
    let mut decoder = SseDecoder::new();
    let mut splitter = protocol
        .inline_think_tags
        .then(super::think_tags::InlineTagSplitter::new);
    loop {
        let chunk = tokio::select! {
            () = cancel.cancelled() => return CallOutcome::Cancelled { partial: accumulator },
            chunk = tokio::time::timeout(idle_timeout, response.chunk()) => chunk,
        };
        let bytes = match chunk {
            Ok(Ok(Some(bytes))) => bytes,
            Ok(Ok(None)) => {
                if protocol.parser.is_finished() {
                    return CallOutcome::Complete(accumulator);
                }
                return CallOutcome::Failed {
                    error: ProviderError::UnexpectedEof { provider },
                    partial: accumulator,
                };
            }
            // A server that keeps the connection open after the terminal event is done anyway.
            Err(_) if protocol.parser.is_finished() => return CallOutcome::Complete(accumulator),
            Err(_) => {
                return CallOutcome::Failed {
                    error: ProviderError::IdleTimeout {
                        provider,
                        after: idle_timeout,
                    },
                    partial: accumulator,
                };
            }
            Ok(Err(error)) => {
                if protocol.parser.is_finished() {
                    return CallOutcome::Complete(accumulator);
                }
                return CallOutcome::Failed {
                    error: transport(without_url(&error)),
                    partial: accumulator,
                };
            }
        };
        for event in decoder.feed(&bytes) {
            match protocol.parser.on_event(&event) {
                Ok(events) => {
                    for event in events {
                        let neutral = match &mut splitter {
                            Some(splitter) => splitter.apply(event),
                            None => vec![event],
                        };
                        for neutral in &neutral {
                            accumulator.apply(neutral);
                            on_event(neutral);
                        }
                    }
                }
                Err(error) => {
                    return CallOutcome::Failed {
                        error,
                        partial: accumulator,
                    };
                }
            }
        }
    }
}

/// A reqwest error's text without the URL (which is harmless today, but keys must never be able
/// to reach an error message through a URL).
fn without_url(error: &reqwest::Error) -> String {
    let mut text = error.to_string();
    if let Some(url) = error.url() {
        text = text.replace(url.as_str(), "<url>");
    }
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
