//! Sending a model request and driving its protocol's parser over the SSE body.
//!
//! Every wait is bounded: the response head and each body read are under the idle timeout, and
//! every await also watches the run's cancellation token. EOF before the protocol's terminal
//! event is an error (never a silently shortened answer). Requests are never re-sent here:
//! retrying is a decision for the caller, which knows whether output already reached the user.

use std::sync::Arc;
use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use tokio_util::sync::CancellationToken;

use crate::cassette::{Cassette, End, EndReason, HttpTape, Playback, Step, Wait};

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

/// Build the HTTP client once per process. TLS is rustls with the ring provider; the trust
/// roots are read only when a server's certificate is first checked (see [`crate::tls`]), so a
/// client that only ever calls `http://` URLs reads none.
pub fn client() -> Result<reqwest::Client, ProviderError> {
    let failed = |error: &dyn std::fmt::Display| ProviderError::Transport {
        provider: "http".to_owned(),
        message: format!("cannot build the HTTP client: {error}"),
    };
    let tls = crate::tls::client_config().map_err(|error| failed(&error))?;
    reqwest::Client::builder()
        .user_agent(concat!("pincer/", env!("CARGO_PKG_VERSION")))
        .connect_timeout(Duration::from_secs(30))
        .tls_backend_preconfigured(tls)
        .build()
        .map_err(|error| failed(&error))
}

/// How model requests travel (SPEC §15). Every model call goes through [`call`] with one of
/// these, so recording and replaying cover turns, retries, failover, compaction and `auth test`
/// alike, without the callers knowing which one they hold.
#[derive(Debug, Clone)]
pub enum Transport {
    /// Over the network.
    Network(reqwest::Client),
    /// Over the network, each exchange also appended to a cassette.
    Recording {
        /// The client that sends.
        client: reqwest::Client,
        /// Where exchanges go.
        cassette: Arc<Cassette>,
    },
    /// From a cassette: no socket is opened, ever.
    Replaying(Arc<Cassette>),
}

impl Transport {
    /// The HTTP client, unless replaying (a replay opens no socket).
    pub fn client(&self) -> Option<&reqwest::Client> {
        match self {
            Transport::Network(client) | Transport::Recording { client, .. } => Some(client),
            Transport::Replaying(_) => None,
        }
    }

    /// Whether the answers come from a cassette (a replay calls no model and costs nothing).
    pub fn replaying(&self) -> bool {
        matches!(self, Transport::Replaying(_))
    }

    /// The cassette, when recording or replaying.
    pub fn cassette(&self) -> Option<&Arc<Cassette>> {
        match self {
            Transport::Network(_) => None,
            Transport::Recording { cassette, .. } | Transport::Replaying(cassette) => {
                Some(cassette)
            }
        }
    }

    /// Wait `delay` before a retry, unless replaying as fast as possible (a replay's clock is the
    /// cassette's). `false` when `cancel` fired first.
    pub async fn pause(&self, delay: Duration, cancel: &CancellationToken) -> bool {
        if let Transport::Replaying(cassette) = self
            && !cassette.paced()
        {
            return !cancel.is_cancelled();
        }
        tokio::select! {
            () = cancel.cancelled() => false,
            () = tokio::time::sleep(delay) => true,
        }
    }
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

/// The value of response header `name` (lower case) among the kept ones.
fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(key, _)| key == name)
        .map(|(_, value)| value.as_str())
}

/// A retry delay from `retry-after-ms` or `retry-after` (seconds).
fn retry_after(headers: &[(String, String)]) -> Option<Duration> {
    if let Some(milliseconds) =
        header(headers, "retry-after-ms").and_then(|value| value.trim().parse::<f64>().ok())
    {
        return Some(Duration::from_secs_f64(milliseconds.max(0.0) / 1000.0));
    }
    header(headers, "retry-after")
        .and_then(|value| value.trim().parse::<f64>().ok())
        .map(|seconds| Duration::from_secs_f64(seconds.max(0.0)))
}

/// One read of a response body, from the network or a cassette.
enum Read {
    Chunk(Vec<u8>),
    End,
    Idle,
    Broken(String),
    Cancelled,
}

/// A response body being read.
enum Body {
    Network(reqwest::Response),
    Replay(Playback),
}

impl Body {
    /// The next read, bounded by the idle timeout and the cancellation token.
    async fn read(&mut self, idle_timeout: Duration, cancel: &CancellationToken) -> Read {
        match self {
            Body::Network(response) => tokio::select! {
                () = cancel.cancelled() => Read::Cancelled,
                chunk = tokio::time::timeout(idle_timeout, response.chunk()) => match chunk {
                    Ok(Ok(Some(bytes))) => Read::Chunk(bytes.to_vec()),
                    Ok(Ok(None)) => Read::End,
                    Ok(Err(error)) => Read::Broken(without_url(&error)),
                    Err(_) => Read::Idle,
                },
            },
            Body::Replay(playback) => {
                let Some(step) = playback.next_step() else {
                    return Read::End;
                };
                let at = match &step {
                    Step::Chunk { at, .. } | Step::End { at, .. } => *at,
                };
                match playback.wait(at, idle_timeout, cancel).await {
                    Wait::Ready => {}
                    Wait::Idle => return Read::Idle,
                    Wait::Cancelled => return Read::Cancelled,
                }
                match step {
                    Step::Chunk { bytes, .. } => Read::Chunk(bytes),
                    Step::End { end, .. } => ended(&end),
                }
            }
        }
    }
}

/// The read a recorded end replays as.
fn ended(end: &End) -> Read {
    match end.reason {
        EndReason::Eof | EndReason::Exit => Read::End,
        EndReason::Idle => Read::Idle,
        EndReason::Reset => Read::Broken(end.message.clone().unwrap_or_default()),
    }
}

/// A response whose head arrived: the status, the headers a cassette keeps, the body.
struct Head {
    status: u16,
    headers: Vec<(String, String)>,
}

/// How sending a request went.
enum Sent {
    Response(Head, Body),
    /// No response: the failure, as a read.
    Failed(Read),
    /// Replaying, and the cassette has no answer for this request.
    Unmatched(String),
    /// The request never left: this process or the system has no file descriptor left
    /// (what ran out, and what to do).
    OutOfFileDescriptors(String),
    /// The request never reached the provider (refused, DNS, TLS, …).
    Unreachable(Box<super::connect::ConnectFailure>),
}

/// Send the request over `transport`, up to the response head.
async fn send(
    transport: &Transport,
    endpoint: &Endpoint,
    protocol: &mut Protocol,
    idle_timeout: Duration,
    cancel: &CancellationToken,
) -> Sent {
    let client = match transport {
        Transport::Network(client) | Transport::Recording { client, .. } => client,
        Transport::Replaying(cassette) => {
            let path = crate::cassette::recorded_path(&protocol.request.path);
            return match cassette.take_http(&endpoint.provider, &path, &protocol.request.json()) {
                Err(miss) => Sent::Unmatched(miss.0),
                Ok(interaction) => {
                    let playback =
                        Playback::new(&interaction.chunks, &interaction.end, cassette.paced());
                    match interaction.status {
                        Some(status) => Sent::Response(
                            Head {
                                status,
                                headers: interaction.headers.into_iter().collect(),
                            },
                            Body::Replay(playback),
                        ),
                        // No response was recorded: replay the failure, at its time.
                        None => match Body::Replay(playback).read(idle_timeout, cancel).await {
                            Read::End | Read::Chunk(_) => Sent::Failed(Read::Broken(
                                "the recorded request got no response".to_owned(),
                            )),
                            read => Sent::Failed(read),
                        },
                    }
                }
            };
        }
    };
    let request = client
        .post(url(endpoint, protocol))
        .headers(headers_for(endpoint, protocol))
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .body(std::mem::take(&mut protocol.request.body))
        .send();
    tokio::select! {
        () = cancel.cancelled() => Sent::Failed(Read::Cancelled),
        outcome = tokio::time::timeout(idle_timeout, request) => match outcome {
            Err(_) => Sent::Failed(Read::Idle),
            Ok(Err(error)) => {
                if let Some(message) = out_of_file_descriptors(&error) {
                    return Sent::OutOfFileDescriptors(message);
                }
                match super::connect::ConnectFailure::of(
                    &endpoint.provider,
                    &endpoint.base_url,
                    &error,
                ) {
                    Some(failure) => Sent::Unreachable(Box::new(failure)),
                    None => Sent::Failed(Read::Broken(without_url(&error))),
                }
            }
            Ok(Ok(response)) => {
                let headers = crate::cassette::KEPT_HEADERS
                    .iter()
                    .filter_map(|name| {
                        let value = response.headers().get(*name)?.to_str().ok()?;
                        Some(((*name).to_owned(), value.to_owned()))
                    })
                    .collect();
                Sent::Response(
                    Head { status: response.status().as_u16(), headers },
                    Body::Network(response),
                )
            }
        },
    }
}

/// Send the request and stream the answer, calling `on_event` for every neutral event as it
/// arrives (before the next read), so text reaches stdout without buffering. When recording,
/// the exchange is appended to the cassette once it is over (unless it was cancelled).
pub async fn call(
    transport: &Transport,
    endpoint: &Endpoint,
    protocol: Protocol,
    idle_timeout: Duration,
    cancel: &CancellationToken,
    on_event: &mut dyn FnMut(&StreamEvent),
) -> CallOutcome {
    let mut tape = matches!(transport, Transport::Recording { .. }).then(|| {
        HttpTape::new(
            &endpoint.provider,
            &protocol.request.path,
            &protocol.request.json(),
        )
    });
    let outcome = exchange(
        transport,
        endpoint,
        protocol,
        idle_timeout,
        cancel,
        on_event,
        tape.as_mut(),
    )
    .await;
    let (Transport::Recording { cassette, .. }, Some(tape)) = (transport, tape) else {
        return outcome;
    };
    // Neither a cancelled call nor one this machine could not make says anything about the
    // provider: a replay has nothing to play back.
    if matches!(
        outcome,
        CallOutcome::Cancelled { .. }
            | CallOutcome::Failed {
                error: ProviderError::LocalResource { .. },
                ..
            }
    ) {
        return outcome;
    }
    let secrets: Vec<&str> = endpoint
        .api_key
        .iter()
        .map(Secret::redaction_pattern)
        .chain(
            endpoint
                .headers
                .iter()
                .filter(|(name, _)| crate::cassette::is_sensitive_header(name))
                .map(|(_, value)| value.as_str()),
        )
        .collect();
    match cassette.write(tape.finish(), &secrets) {
        Ok(()) => outcome,
        Err(error) => CallOutcome::Failed {
            error: ProviderError::Cassette {
                provider: endpoint.provider.clone(),
                message: error.to_string(),
            },
            partial: match outcome {
                CallOutcome::Complete(partial)
                | CallOutcome::Failed { partial, .. }
                | CallOutcome::Cancelled { partial } => partial,
            },
        },
    }
}

/// [`call`]'s exchange, noting every read on `tape` when recording.
async fn exchange(
    transport: &Transport,
    endpoint: &Endpoint,
    mut protocol: Protocol,
    idle_timeout: Duration,
    cancel: &CancellationToken,
    on_event: &mut dyn FnMut(&StreamEvent),
    mut tape: Option<&mut HttpTape>,
) -> CallOutcome {
    let provider = endpoint.provider.clone();
    let accumulator = Accumulator::new();
    let failed =
        |error: ProviderError, partial: Accumulator| CallOutcome::Failed { error, partial };
    let (head, mut body) =
        match send(transport, endpoint, &mut protocol, idle_timeout, cancel).await {
            Sent::Response(head, body) => (head, body),
            Sent::Unmatched(message) => {
                return failed(ProviderError::Cassette { provider, message }, accumulator);
            }
            Sent::OutOfFileDescriptors(message) => {
                return failed(
                    ProviderError::LocalResource { provider, message },
                    accumulator,
                );
            }
            Sent::Unreachable(failure) => {
                if let Some(tape) = tape.as_deref_mut() {
                    note(tape, &Read::Broken(failure.to_string()));
                }
                return failed(ProviderError::Connect(failure), accumulator);
            }
            Sent::Failed(read) => {
                if let Some(tape) = tape.as_deref_mut() {
                    note(tape, &read);
                }
                return match read {
                    Read::Idle => failed(
                        ProviderError::NoResponse {
                            provider,
                            url: super::connect::shown_url(&endpoint.base_url),
                            after: idle_timeout,
                        },
                        accumulator,
                    ),
                    Read::Broken(message) => {
                        failed(ProviderError::Transport { provider, message }, accumulator)
                    }
                    _ => CallOutcome::Cancelled {
                        partial: accumulator,
                    },
                };
            }
        };
    if let Some(tape) = tape.as_deref_mut() {
        tape.head(head.status, &head.headers);
    }
    if !(200..300).contains(&head.status) {
        let mut bytes = Vec::new();
        loop {
            let read = body.read(idle_timeout, cancel).await;
            if let Some(tape) = tape.as_deref_mut() {
                note(tape, &read);
            }
            match read {
                Read::Chunk(chunk) => bytes.extend_from_slice(&chunk),
                Read::Cancelled => {
                    return CallOutcome::Cancelled {
                        partial: accumulator,
                    };
                }
                Read::End | Read::Idle | Read::Broken(_) => break,
            }
        }
        let body = String::from_utf8_lossy(&bytes).into_owned();
        return failed(
            http_failure(&provider, &protocol, &head, &body),
            accumulator,
        );
    }
    stream(
        &provider,
        &mut protocol,
        (&mut body, tape),
        idle_timeout,
        cancel,
        on_event,
        accumulator,
    )
    .await
}

/// Record a read on the tape.
fn note(tape: &mut HttpTape, read: &Read) {
    match read {
        Read::Chunk(bytes) => tape.chunk(bytes),
        Read::End => tape.end(EndReason::Eof, None),
        Read::Idle => tape.end(EndReason::Idle, None),
        Read::Broken(message) => tape.end(EndReason::Reset, Some(message.clone())),
        Read::Cancelled => {}
    }
}

/// The failure an error status stands for.
fn http_failure(provider: &str, protocol: &Protocol, head: &Head, body: &str) -> ProviderError {
    let status = head.status;
    let mut details: ErrorDetails = (protocol.parse_error_body)(status, body);
    if details.message.is_empty() {
        details.message = format!("HTTP {status} with an empty body");
    }
    let text = |name: &str| header(&head.headers, name).map(str::to_owned);
    ProviderError::Http(Box::new(HttpFailure {
        provider: provider.to_owned(),
        status,
        request_id: text("request-id").or_else(|| text("x-request-id")),
        retry_after: retry_after(&head.headers),
        should_retry: text("x-should-retry").map(|value| value == "true"),
        body: truncate(body, 64 * 1024),
        details,
    }))
}

/// Drive the protocol's parser over a 2xx body until its terminal event and the body's end.
async fn stream(
    provider: &str,
    protocol: &mut Protocol,
    (body, mut tape): (&mut Body, Option<&mut HttpTape>),
    idle_timeout: Duration,
    cancel: &CancellationToken,
    on_event: &mut dyn FnMut(&StreamEvent),
    mut accumulator: Accumulator,
) -> CallOutcome {
    let provider = provider.to_owned();
    let mut decoder = SseDecoder::new();
    let mut splitter = protocol
        .inline_think_tags
        .then(super::think_tags::InlineTagSplitter::new);
    loop {
        let read = body.read(idle_timeout, cancel).await;
        if let Some(tape) = tape.as_deref_mut() {
            note(tape, &read);
        }
        let finished = protocol.parser.is_finished();
        let bytes = match read {
            Read::Chunk(bytes) => bytes,
            Read::Cancelled => {
                return CallOutcome::Cancelled {
                    partial: accumulator,
                };
            }
            // A server that keeps the connection open (or breaks it) after the terminal event
            // is done anyway.
            Read::End | Read::Idle | Read::Broken(_) if finished => {
                return CallOutcome::Complete(accumulator);
            }
            Read::End => {
                return CallOutcome::Failed {
                    error: ProviderError::UnexpectedEof { provider },
                    partial: accumulator,
                };
            }
            Read::Idle => {
                return CallOutcome::Failed {
                    error: ProviderError::IdleTimeout {
                        provider,
                        after: idle_timeout,
                    },
                    partial: accumulator,
                };
            }
            Read::Broken(message) => {
                return CallOutcome::Failed {
                    error: ProviderError::Transport { provider, message },
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
/// When a request failed because this process (`EMFILE`) or the system (`ENFILE`) ran out of
/// file descriptors — opening the socket, or resolving the host — what ran out and what to do;
/// `None` for any other failure. The cause is an `io::Error` somewhere in the source chain
/// (reqwest → hyper-util's connect error → the socket's error).
fn out_of_file_descriptors(error: &reqwest::Error) -> Option<String> {
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        if let Some(io_error) = cause.downcast_ref::<std::io::Error>()
            && crate::fs::out_of_file_descriptors(io_error)
        {
            return Some(format!(
                "{io_error}: {}",
                crate::fs::file_descriptor_advice(io_error)
            ));
        }
        source = cause.source();
    }
    None
}

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
