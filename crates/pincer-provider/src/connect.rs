//! Why a request never reached the provider, as a typed value read from the transport's error
//! chain: nothing listening (refused), a host name that does not resolve, a TLS handshake that
//! failed, a connect that timed out, a network that cannot reach the host, or a connection
//! closed before any response. The cause decides the hint a user gets (a typo in
//! `ANTHROPIC_BASE_URL` is not "try again later", ollama not running is not a timeout) and
//! whether an immediate retry can help.
//!
//! The URL shown is the base URL without credentials, query or fragment, so that nothing a
//! URL may carry reaches a message.

use std::error::Error as StdError;

/// What went wrong while connecting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConnectCause {
    /// Nothing accepts connections at the address (`ECONNREFUSED`).
    Refused,
    /// The host name does not resolve.
    Dns,
    /// The TLS handshake failed: a plain-HTTP server behind an `https` URL, or a certificate
    /// the trust roots reject.
    Tls,
    /// The connection was not made within the connect timeout.
    Timeout,
    /// The network or the host is unreachable from here.
    Unreachable,
    /// The server closed or reset the connection before its response began (a TLS server
    /// behind an `http` URL does this).
    Closed,
    /// Anything else the transport reported.
    Other,
}

impl ConnectCause {
    /// The cause in a few words, for the message.
    pub fn describe(self) -> &'static str {
        match self {
            ConnectCause::Refused => "connection refused (nothing is listening there)",
            ConnectCause::Dns => "the host name does not resolve",
            ConnectCause::Tls => "the TLS handshake failed",
            ConnectCause::Timeout => "the connection timed out",
            ConnectCause::Unreachable => "the network or host is unreachable",
            ConnectCause::Closed => "the server closed the connection before answering",
            ConnectCause::Other => "the connection failed",
        }
    }

    /// Whether trying again within seconds may succeed: a server restarting, a dropped
    /// connection. A name that does not resolve or a handshake that fails stays so until
    /// someone changes the URL or the server.
    pub fn may_heal(self) -> bool {
        !matches!(self, ConnectCause::Dns | ConnectCause::Tls)
    }
}

/// A request that never reached the provider.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectFailure {
    /// Provider name.
    pub provider: String,
    /// The base URL, without credentials, query or fragment.
    pub url: String,
    /// Why.
    pub cause: ConnectCause,
    /// What the lowest layer said (`Connection refused (os error 111)`), for the curious.
    pub detail: String,
}

impl std::fmt::Display for ConnectFailure {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            formatter,
            "{}: cannot connect to {}: {}",
            self.provider,
            self.url,
            self.cause.describe()
        )?;
        if !self.detail.is_empty() {
            write!(formatter, " ({})", self.detail)?;
        }
        Ok(())
    }
}

impl ConnectFailure {
    /// The failure a transport error stands for, when it happened before any response:
    /// `None` for an error of another kind (a body, a redirect), which stays a plain
    /// transport failure.
    pub fn of(provider: &str, base_url: &str, error: &reqwest::Error) -> Option<ConnectFailure> {
        let chain = chain(error);
        let cause = cause_of(&chain, error.is_connect(), error.is_timeout())?;
        Some(ConnectFailure {
            provider: provider.to_owned(),
            url: shown_url(base_url),
            cause,
            detail: detail(&chain, cause),
        })
    }

    /// The host and port the URL names (`127.0.0.1:11434`), for hints.
    pub fn address(&self) -> String {
        match reqwest::Url::parse(&self.url) {
            Ok(url) => match (url.host_str(), url.port_or_known_default()) {
                (Some(host), Some(port)) => format!("{host}:{port}"),
                (Some(host), None) => host.to_owned(),
                _ => self.url.clone(),
            },
            Err(_) => self.url.clone(),
        }
    }

    /// The host the URL names, for hints.
    pub fn host(&self) -> String {
        reqwest::Url::parse(&self.url)
            .ok()
            .and_then(|url| url.host_str().map(str::to_owned))
            .unwrap_or_else(|| self.url.clone())
    }
}

/// One link of an error's source chain: its text, and what it is when it is one of the types
/// that tell the cause.
struct Link {
    text: String,
    io_kind: Option<std::io::ErrorKind>,
    tls: bool,
}

/// The error and its sources, in order. An I/O error's source is its inner error's source, so
/// the inner error itself (rustls wraps its error in an `io::Error`, which hyper wraps in
/// another) is looked at through `get_ref`, as a link of its own.
fn chain(error: &reqwest::Error) -> Vec<Link> {
    let mut links = Vec::new();
    let mut current: Option<&(dyn StdError + 'static)> = Some(error);
    while let Some(link) = current {
        let mut inner: Option<&(dyn StdError + 'static)> = Some(link);
        while let Some(layer) = inner {
            let io = layer.downcast_ref::<std::io::Error>();
            links.push(Link {
                text: layer.to_string(),
                io_kind: io.map(std::io::Error::kind),
                tls: layer.is::<rustls::Error>(),
            });
            inner = io
                .and_then(std::io::Error::get_ref)
                .map(|inner| inner as &(dyn StdError + 'static));
        }
        current = link.source();
    }
    links
}

/// The cause, from the chain: typed links first (a rustls error, an I/O error's kind), then
/// the fixed texts of hyper-util's connector (`dns error`, `tcp connect error`) and of
/// reqwest's resolver (`error resolving DNS`).
fn cause_of(chain: &[Link], connecting: bool, timed_out: bool) -> Option<ConnectCause> {
    use std::io::ErrorKind;
    // tokio-rustls says "tls handshake eof" when the server closes during the handshake (a
    // plain-HTTP server that gave up on the ClientHello).
    if chain
        .iter()
        .any(|link| link.tls || link.text.to_ascii_lowercase().contains("tls handshake"))
    {
        return Some(ConnectCause::Tls);
    }
    let kinds: Vec<ErrorKind> = chain.iter().filter_map(|link| link.io_kind).collect();
    let has = |kind: ErrorKind| kinds.contains(&kind);
    if has(ErrorKind::ConnectionRefused) {
        return Some(ConnectCause::Refused);
    }
    if chain
        .iter()
        .any(|link| link.text == "dns error" || link.text == "error resolving DNS")
    {
        return Some(ConnectCause::Dns);
    }
    if has(ErrorKind::NetworkUnreachable) || has(ErrorKind::HostUnreachable) {
        return Some(ConnectCause::Unreachable);
    }
    if timed_out || has(ErrorKind::TimedOut) {
        return Some(ConnectCause::Timeout);
    }
    let closed = [
        ErrorKind::ConnectionReset,
        ErrorKind::ConnectionAborted,
        ErrorKind::BrokenPipe,
        ErrorKind::UnexpectedEof,
    ]
    .into_iter()
    .any(has)
        || chain.iter().any(|link| {
            let text = link.text.to_ascii_lowercase();
            text.contains("connection closed before message completed")
                || text.contains("invalid http version")
                || text.contains("received http/0.9")
        });
    if closed {
        return Some(ConnectCause::Closed);
    }
    connecting.then_some(ConnectCause::Other)
}

/// The lowest layer's own words (the last link), where they add to the cause: a refusal, a
/// timeout or a closed connection says all there is in its cause's words.
fn detail(chain: &[Link], cause: ConnectCause) -> String {
    let Some(last) = chain.last() else {
        return String::new();
    };
    let text = last.text.trim();
    match cause {
        ConnectCause::Refused | ConnectCause::Timeout | ConnectCause::Closed => String::new(),
        // "failed to lookup address information: Name or service not known": the part after
        // the colon is the resolver's answer.
        ConnectCause::Dns => text
            .rsplit_once(": ")
            .map_or(text, |(_, answer)| answer)
            .to_owned(),
        _ => text.to_owned(),
    }
}

/// `url` as a message may show it: scheme, host, port and path; no user name, password,
/// query or fragment.
pub fn shown_url(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(mut parsed) => {
            let _ = parsed.set_username("");
            let _ = parsed.set_password(None);
            parsed.set_query(None);
            parsed.set_fragment(None);
            parsed.as_str().trim_end_matches('/').to_owned()
        }
        Err(_) => "the configured base URL (not a valid URL)".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(text: &str, io_kind: Option<std::io::ErrorKind>, tls: bool) -> Link {
        Link {
            text: text.to_owned(),
            io_kind,
            tls,
        }
    }

    #[test]
    fn the_cause_is_read_from_the_chain_typed_links_first() {
        use std::io::ErrorKind;
        let refused = [
            link("error sending request", None, false),
            link("tcp connect error", None, false),
            link(
                "Connection refused (os error 111)",
                Some(ErrorKind::ConnectionRefused),
                false,
            ),
        ];
        assert_eq!(cause_of(&refused, true, false), Some(ConnectCause::Refused));
        let dns = [
            link("client error (Connect)", None, false),
            link("dns error", None, false),
            link(
                "failed to lookup address information: Name or service not known",
                Some(ErrorKind::Other),
                false,
            ),
        ];
        assert_eq!(cause_of(&dns, true, false), Some(ConnectCause::Dns));
        assert_eq!(detail(&dns, ConnectCause::Dns), "Name or service not known");
        let tls = [
            link("client error (Connect)", None, false),
            link(
                "received corrupt message",
                Some(ErrorKind::InvalidData),
                true,
            ),
        ];
        assert_eq!(cause_of(&tls, true, false), Some(ConnectCause::Tls));
        let tls_eof = [
            link("client error (Connect)", None, false),
            link("tls handshake eof", Some(ErrorKind::UnexpectedEof), false),
        ];
        assert_eq!(cause_of(&tls_eof, true, false), Some(ConnectCause::Tls));
        let timeout = [link("operation timed out", None, false)];
        assert_eq!(cause_of(&timeout, true, true), Some(ConnectCause::Timeout));
        let closed = [
            link("client error (SendRequest)", None, false),
            link("connection closed before message completed", None, false),
        ];
        assert_eq!(cause_of(&closed, false, false), Some(ConnectCause::Closed));
        let other = [link("something new", None, false)];
        assert_eq!(cause_of(&other, true, false), Some(ConnectCause::Other));
        assert_eq!(cause_of(&other, false, false), None);
    }

    #[test]
    fn a_shown_url_carries_no_credentials_query_or_fragment() {
        assert_eq!(
            shown_url("https://user:secret@proxy.example:8443/v1?key=abc#top"),
            "https://proxy.example:8443/v1"
        );
        assert_eq!(
            shown_url("http://127.0.0.1:11434/v1/"),
            "http://127.0.0.1:11434/v1"
        );
        assert!(!shown_url("not a url with sk-secret").contains("sk-secret"));
    }

    #[test]
    fn the_message_names_the_url_and_the_cause() {
        let failure = ConnectFailure {
            provider: "ollama".to_owned(),
            url: "http://127.0.0.1:11434/v1".to_owned(),
            cause: ConnectCause::Refused,
            detail: String::new(),
        };
        assert_eq!(
            failure.to_string(),
            "ollama: cannot connect to http://127.0.0.1:11434/v1: connection refused (nothing is \
             listening there)"
        );
        assert_eq!(failure.address(), "127.0.0.1:11434");
        assert_eq!(failure.host(), "127.0.0.1");
    }
}
