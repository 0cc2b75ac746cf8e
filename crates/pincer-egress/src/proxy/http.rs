//! The HTTP side of the proxy: `CONNECT host:port` tunnels and plain requests in absolute form
//! (`GET http://host/path`), over HTTP/1.1 with keep-alive.
//!
//! Every request is decided on its own, also on a kept-alive connection: a client that sends
//! an allowed request and then one for another host gets the second refused. A forwarded
//! request goes to the checked address of its URL's host, in origin form, with `Host` set to
//! that URL's authority (a `Host` naming another site is not passed on), and without the
//! hop-by-hop headers of RFC 9110 §7.6.1 (`Connection` and the headers it lists, `Keep-Alive`,
//! `Proxy-Connection`, `Proxy-Authorization`, `TE`, `Trailer`, `Transfer-Encoding`, `Upgrade`);
//! its answer loses them too. A redirect is the client's to follow: its next request comes
//! through here and is decided like any other.

use std::convert::Infallible;
use std::sync::{Arc, Mutex, PoisonError};

use bytes::Bytes;
use http_body_util::{Either, Full};
use hyper::body::Incoming;
use hyper::header::{self, HeaderMap, HeaderName, HeaderValue};
use hyper::service::service_fn;
use hyper::upgrade::OnUpgrade;
use hyper::{Method, Request, Response, StatusCode, Uri};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;

use super::{Shared, Unreached, tunnel};
use crate::denial::{DenialReason, Protocol};

type Body = Either<Incoming, Full<Bytes>>;

/// A `CONNECT` the connection's task completes once its answer is out.
type PendingTunnel = Arc<Mutex<Option<(OnUpgrade, TcpStream)>>>;

pub(super) async fn serve<S>(shared: Arc<Shared>, stream: S)
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let pending: PendingTunnel = Arc::default();
    let handshake = shared.timeouts.handshake;
    let service = {
        let pending = Arc::clone(&pending);
        service_fn(move |request| {
            let shared = Arc::clone(&shared);
            let pending = Arc::clone(&pending);
            async move { Ok::<_, Infallible>(answer(&shared, request, &pending).await) }
        })
    };
    let served = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(handshake)
        .serve_connection(TokioIo::new(stream), service)
        .with_upgrades()
        .await;
    if served.is_err() {
        return;
    }
    let tunnel_parts = pending
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .take();
    if let Some((upgrade, upstream)) = tunnel_parts
        && let Ok(upgraded) = upgrade.await
    {
        tunnel(TokioIo::new(upgraded), upstream).await;
    }
}

async fn answer(
    shared: &Shared,
    mut request: Request<Incoming>,
    pending: &PendingTunnel,
) -> Response<Body> {
    if request.method() == Method::CONNECT {
        let Some(authority) = request.uri().authority().cloned() else {
            return plain(StatusCode::BAD_REQUEST, None, "CONNECT needs host:port");
        };
        let Some(port) = authority.port_u16() else {
            return plain(StatusCode::BAD_REQUEST, None, "CONNECT needs host:port");
        };
        return match shared.dial(authority.host(), port, Protocol::Connect).await {
            Ok(upstream) => {
                let upgrade = hyper::upgrade::on(&mut request);
                *pending.lock().unwrap_or_else(PoisonError::into_inner) = Some((upgrade, upstream));
                Response::new(Either::Right(Full::new(Bytes::new())))
            }
            Err(unreached) => refusal(authority.as_str(), unreached),
        };
    }
    forward(shared, request).await
}

async fn forward(shared: &Shared, request: Request<Incoming>) -> Response<Body> {
    let uri = request.uri().clone();
    let Some(authority) = uri.authority().cloned() else {
        return plain(
            StatusCode::BAD_REQUEST,
            None,
            "this is pincer's egress proxy: send a request with the whole URL \
             (GET http://host/path) or CONNECT host:port",
        );
    };
    if uri.scheme_str() != Some("http") {
        return plain(
            StatusCode::BAD_REQUEST,
            None,
            "only http:// URLs are forwarded; use CONNECT for https",
        );
    }
    let port = authority.port_u16().unwrap_or(80);
    let upstream = match shared.dial(authority.host(), port, Protocol::Http).await {
        Ok(upstream) => upstream,
        Err(unreached) => return refusal(authority.as_str(), unreached),
    };
    let (mut parts, body) = request.into_parts();
    parts.uri = match uri.path_and_query() {
        Some(path) => Uri::from(path.clone()),
        None => Uri::from_static("/"),
    };
    parts.version = hyper::Version::HTTP_11;
    strip_hop_by_hop(&mut parts.headers);
    // The host dialed is the one the request is for (no userinfo).
    let host = authority.as_str().rsplit('@').next().unwrap_or_default();
    match HeaderValue::from_str(host) {
        Ok(value) => {
            parts.headers.insert(header::HOST, value);
        }
        Err(_) => return plain(StatusCode::BAD_REQUEST, None, "the URL's host is not valid"),
    }
    let outgoing = Request::from_parts(parts, body);
    let (mut sender, connection) =
        match hyper::client::conn::http1::handshake::<_, Incoming>(TokioIo::new(upstream)).await {
            Ok(pair) => pair,
            Err(error) => return bad_gateway(&error.to_string()),
        };
    tokio::spawn(async move {
        let _ = connection.await;
    });
    match sender.send_request(outgoing).await {
        Ok(response) => {
            let (mut parts, body) = response.into_parts();
            strip_hop_by_hop(&mut parts.headers);
            Response::from_parts(parts, Either::Left(body))
        }
        Err(error) => bad_gateway(&error.to_string()),
    }
}

/// Remove the hop-by-hop headers (see the module comment).
fn strip_hop_by_hop(headers: &mut HeaderMap) {
    let listed: Vec<HeaderName> = headers
        .get_all(header::CONNECTION)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .filter_map(|name| HeaderName::from_bytes(name.trim().as_bytes()).ok())
        .collect();
    for name in listed {
        headers.remove(name);
    }
    for name in [
        header::CONNECTION,
        HeaderName::from_static("keep-alive"),
        HeaderName::from_static("proxy-connection"),
        header::PROXY_AUTHORIZATION,
        header::PROXY_AUTHENTICATE,
        header::TE,
        header::TRAILER,
        header::TRANSFER_ENCODING,
        header::UPGRADE,
    ] {
        headers.remove(name);
    }
}

/// The answer to a destination not reached: 403 when refused, 502/504 when it did not answer.
fn refusal(destination: &str, unreached: Unreached) -> Response<Body> {
    match unreached {
        Unreached::Refused(reason) => {
            let (status, error) = match &reason {
                DenialReason::NotAllowed | DenialReason::DeniedByRule { .. } => {
                    (StatusCode::FORBIDDEN, "http_request_denied")
                }
                DenialReason::PrivateAddress { .. } => {
                    (StatusCode::FORBIDDEN, "destination_ip_prohibited")
                }
                DenialReason::ResolutionFailed { .. } => (StatusCode::BAD_GATEWAY, "dns_error"),
                DenialReason::InvalidHost { .. } => (StatusCode::BAD_REQUEST, "http_request_error"),
            };
            plain(
                status,
                Some(error),
                &format!("pincer refused the connection to {destination}: {reason}"),
            )
        }
        Unreached::Failed(error) => {
            let (status, code) = if error.kind() == std::io::ErrorKind::TimedOut {
                (StatusCode::GATEWAY_TIMEOUT, "connection_timeout")
            } else {
                (StatusCode::BAD_GATEWAY, "connection_refused")
            };
            plain(
                status,
                Some(code),
                &format!("{destination} could not be reached: {error}"),
            )
        }
    }
}

fn bad_gateway(error: &str) -> Response<Body> {
    plain(
        StatusCode::BAD_GATEWAY,
        Some("http_protocol_error"),
        &format!("the server's answer could not be read: {error}"),
    )
}

/// A short text answer from the proxy itself, with a `Proxy-Status` header (RFC 9209) when it
/// carries an error.
fn plain(status: StatusCode, error: Option<&str>, text: &str) -> Response<Body> {
    let mut response = Response::new(Either::Right(Full::new(Bytes::from(format!("{text}\n")))));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    if let Some(error) = error {
        let details = text.replace(['"', '\\'], "'");
        if let Ok(value) =
            HeaderValue::from_str(&format!("pincer; error={error}; details=\"{details}\""))
        {
            headers.insert(HeaderName::from_static("proxy-status"), value);
        }
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hop_by_hop_headers_and_those_connection_lists_are_removed() {
        let mut headers = HeaderMap::new();
        for (name, value) in [
            ("connection", "keep-alive, X-Secret-Hop"),
            ("keep-alive", "timeout=5"),
            ("proxy-connection", "keep-alive"),
            ("proxy-authorization", "Basic Zm9vOmJhcg=="),
            ("te", "trailers"),
            ("trailer", "x-checksum"),
            ("transfer-encoding", "chunked"),
            ("upgrade", "websocket"),
            ("x-secret-hop", "1"),
            ("accept", "*/*"),
            ("authorization", "Bearer end-to-end"),
        ] {
            headers.append(
                HeaderName::from_static(name),
                HeaderValue::from_static(value),
            );
        }
        strip_hop_by_hop(&mut headers);
        let left: Vec<&str> = headers.keys().map(HeaderName::as_str).collect();
        assert_eq!(left, ["accept", "authorization"]);
    }
}
