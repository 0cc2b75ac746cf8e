//! The legacy HTTP+SSE transport (MCP 2024-11-05), which rmcp no longer ships as a client: a GET
//! opens an event stream whose first `endpoint` event names the URL to POST messages to; the
//! server's messages arrive as `message` events on the stream.
//!
//! Only the framing is here. The JSON-RPC messages are rmcp's own types, and rmcp's client runs
//! the protocol over this [`Transport`] as over any other. Every wait is bounded by the caller
//! (the startup timeout, the tool timeout); the stream reader ends with the transport.

use std::borrow::Cow;
use std::collections::BTreeMap;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::service::RoleClient;
use rmcp::transport::Transport;
use tokio::sync::{mpsc, oneshot};

use crate::provider::sse::SseDecoder;

/// Why the transport failed.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct LegacySseError(String);

/// An open event stream and where to POST.
pub struct LegacySse {
    client: reqwest::Client,
    post_url: String,
    headers: HeaderMap,
    incoming: mpsc::Receiver<ServerJsonRpcMessage>,
    reader: tokio::task::JoinHandle<()>,
}

/// A configured header that HTTP cannot carry.
#[derive(Debug, thiserror::Error)]
pub(super) enum HeaderError {
    #[error("'{0}' is not a valid HTTP header name")]
    Name(String),
    #[error("the value of header '{0}' is not valid in HTTP")]
    Value(String),
    #[error("the bearer token is not valid in an HTTP header")]
    Bearer,
}

/// Why the event stream could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error("GET {url} failed: {chain}")]
    Request { url: String, chain: String },
    #[error("GET {url} answered HTTP {status}")]
    Status {
        url: String,
        status: reqwest::StatusCode,
    },
    #[error("the event stream of {0} ended before its `endpoint` event")]
    NoEndpoint(String),
}

/// The headers of every request: `headers`, and `Authorization: Bearer TOKEN` when a token is
/// given (marked sensitive, so it is never logged).
pub(super) fn header_map(
    headers: &BTreeMap<String, String>,
    bearer: Option<&str>,
) -> Result<HeaderMap, HeaderError> {
    let mut map = HeaderMap::new();
    for (name, value) in headers {
        let name =
            HeaderName::from_bytes(name.as_bytes()).map_err(|_| HeaderError::Name(name.clone()))?;
        let mut value =
            HeaderValue::from_str(value).map_err(|_| HeaderError::Value(name.to_string()))?;
        value.set_sensitive(true);
        map.insert(name, value);
    }
    if let Some(token) = bearer {
        let mut value =
            HeaderValue::from_str(&format!("Bearer {token}")).map_err(|_| HeaderError::Bearer)?;
        value.set_sensitive(true);
        map.insert(reqwest::header::AUTHORIZATION, value);
    }
    Ok(map)
}

impl LegacySse {
    /// Open the event stream at `url` and wait for its `endpoint` event.
    pub async fn connect(
        client: reqwest::Client,
        url: &str,
        headers: HeaderMap,
    ) -> Result<LegacySse, ConnectError> {
        let response = client
            .get(url)
            .headers(headers.clone())
            .header(reqwest::header::ACCEPT, "text/event-stream")
            .send()
            .await
            .map_err(|error| ConnectError::Request {
                url: url.to_owned(),
                chain: super::error_chain(&error),
            })?;
        let status = response.status();
        if !status.is_success() {
            return Err(ConnectError::Status {
                url: url.to_owned(),
                status,
            });
        }
        let (endpoint_sender, endpoint) = oneshot::channel();
        let (message_sender, incoming) = mpsc::channel(64);
        let reader = tokio::spawn(read_events(response, endpoint_sender, message_sender));
        let endpoint = endpoint
            .await
            .map_err(|_| ConnectError::NoEndpoint(url.to_owned()))?;
        Ok(LegacySse {
            post_url: resolve(url, &endpoint),
            client,
            headers,
            incoming,
            reader,
        })
    }
}

impl Drop for LegacySse {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

/// Read SSE events until the stream ends: the first `endpoint` event's data goes to
/// `endpoint`, every `message` event to `messages`. Unparseable messages are skipped, as the
/// other transports skip them.
async fn read_events(
    mut response: reqwest::Response,
    endpoint: oneshot::Sender<String>,
    messages: mpsc::Sender<ServerJsonRpcMessage>,
) {
    let mut decoder = SseDecoder::new();
    let mut endpoint = Some(endpoint);
    while let Ok(Some(chunk)) = response.chunk().await {
        for event in decoder.feed(&chunk) {
            match event.event.as_deref() {
                Some("endpoint") => {
                    if let Some(sender) = endpoint.take() {
                        let _ = sender.send(event.data.trim().to_owned());
                    }
                }
                None | Some("message") => {
                    if let Ok(message) = serde_json::from_str(&event.data)
                        && messages.send(message).await.is_err()
                    {
                        return;
                    }
                }
                Some(_) => {}
            }
        }
    }
}

/// The `endpoint` event's URI against the stream's URL: absolute as it is, `/path` on the same
/// origin, anything else relative to the stream's directory.
fn resolve(base: &str, endpoint: &str) -> String {
    if endpoint.starts_with("http://") || endpoint.starts_with("https://") {
        return endpoint.to_owned();
    }
    let scheme_end = base.find("://").map_or(0, |index| index + 3);
    let origin_end = base[scheme_end..]
        .find('/')
        .map_or(base.len(), |index| scheme_end + index);
    if endpoint.starts_with('/') {
        return format!("{}{endpoint}", &base[..origin_end]);
    }
    let path = base[origin_end..].split(['?', '#']).next().unwrap_or("");
    let directory = path.rfind('/').map_or("", |index| &path[..index]);
    format!("{}{directory}/{endpoint}", &base[..origin_end])
}

impl Transport<RoleClient> for LegacySse {
    type Error = LegacySseError;

    fn name() -> Cow<'static, str> {
        "legacy-sse".into()
    }

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), LegacySseError>> + Send + 'static {
        let request = self
            .client
            .post(&self.post_url)
            .headers(self.headers.clone())
            .json(&item);
        async move {
            let response = request.send().await.map_err(|error| {
                LegacySseError(format!("POST failed: {}", super::error_chain(&error)))
            })?;
            let status = response.status();
            if status.is_success() {
                Ok(())
            } else {
                Err(LegacySseError(format!("POST answered HTTP {status}")))
            }
        }
    }

    fn receive(&mut self) -> impl Future<Output = Option<ServerJsonRpcMessage>> + Send {
        self.incoming.recv()
    }

    async fn close(&mut self) -> Result<(), LegacySseError> {
        self.reader.abort();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_endpoint_resolves_against_the_stream_url() {
        let base = "http://127.0.0.1:8080/mcp/sse?x=1";
        assert_eq!(
            resolve(base, "/messages?sessionId=a"),
            "http://127.0.0.1:8080/messages?sessionId=a"
        );
        assert_eq!(
            resolve(base, "messages?sessionId=a"),
            "http://127.0.0.1:8080/mcp/messages?sessionId=a"
        );
        assert_eq!(
            resolve(base, "https://other.example/m"),
            "https://other.example/m"
        );
        assert_eq!(
            resolve("http://h:1", "/m"),
            "http://h:1/m",
            "a base without a path"
        );
    }

    #[test]
    fn header_values_are_sensitive_and_a_bad_name_is_named() {
        let headers = BTreeMap::from([("X-Team".to_owned(), "ops".to_owned())]);
        let map = header_map(&headers, Some("tok")).unwrap();
        assert!(map["authorization"].is_sensitive());
        assert_eq!(map["authorization"], "Bearer tok");
        assert!(map["x-team"].is_sensitive());
        let bad = BTreeMap::from([("bad name".to_owned(), "v".to_owned())]);
        assert!(
            header_map(&bad, None)
                .unwrap_err()
                .to_string()
                .contains("'bad name'")
        );
    }
}
