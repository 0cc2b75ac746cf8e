//! The egress proxy (SPEC §20): the only way out of a sandboxed command's network namespace.
//!
//! One listener serves both protocols: a connection whose first byte is 5 speaks SOCKS5
//! ([`socks`]), any other speaks HTTP ([`http`]: `CONNECT` tunnels and plain requests in
//! absolute form, each request of a kept-alive connection decided on its own). Every
//! destination goes through [`Shared::dial`]: [`Policy::admit`] on the host and port, then the
//! addresses (written out, pinned, loopback for `localhost`, or resolved here through the
//! [`Resolve`] in use), [`Policy::check`] on all of them, and a connection to one of exactly
//! those. A refusal is noted in the [`DenialLog`]; the client gets a 403 (HTTP, with a
//! `Proxy-Status` header, RFC 9209) or reply 2, "connection not allowed by ruleset" (SOCKS5).
//! The proxy never looks inside a tunnel: TLS is the client's and the server's.
//!
//! Each accepted connection is a task of its listener's [`Proxy::serve`] future; a tunnel runs
//! in its connection's task. Dropping the future (or [`Running`]) ends the listener and every
//! connection it accepted.

mod http;
mod socks;

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream, UnixListener};
use tokio::task::JoinSet;

use crate::denial::{Denial, DenialLog, DenialReason, OnDenial, Protocol};
use crate::host::Host;
use crate::policy::{Lookup, Policy};
use crate::resolve::{Resolve, SystemResolver};

/// How long the proxy waits for each step before it gives up on a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// For a name's addresses.
    pub resolve: Duration,
    /// For each address dialed.
    pub connect: Duration,
    /// For a client's first byte, its SOCKS5 greeting and request, and an HTTP request's head.
    pub handshake: Duration,
}

impl Default for Timeouts {
    fn default() -> Timeouts {
        Timeouts {
            resolve: Duration::from_secs(10),
            connect: Duration::from_secs(10),
            handshake: Duration::from_secs(30),
        }
    }
}

/// The proxy: a policy, a resolver and a denial log, shared by every listener and connection.
#[derive(Clone)]
pub struct Proxy {
    shared: Arc<Shared>,
}

/// Builds a [`Proxy`].
pub struct Builder {
    policy: Policy,
    resolver: Arc<dyn Resolve>,
    on_denial: Option<OnDenial>,
    timeouts: Timeouts,
}

pub(crate) struct Shared {
    policy: Policy,
    resolver: Arc<dyn Resolve>,
    log: DenialLog,
    timeouts: Timeouts,
}

/// Why a destination was not reached.
#[derive(Debug)]
pub(crate) enum Unreached {
    /// The policy refused it (already in the log).
    Refused(DenialReason),
    /// Allowed, but no address answered.
    Failed(io::Error),
}

/// A listener the proxy can serve.
#[derive(Debug)]
pub enum Listener {
    Unix(UnixListener),
    Tcp(TcpListener),
}

impl From<UnixListener> for Listener {
    fn from(listener: UnixListener) -> Listener {
        Listener::Unix(listener)
    }
}

impl From<TcpListener> for Listener {
    fn from(listener: TcpListener) -> Listener {
        Listener::Tcp(listener)
    }
}

impl Builder {
    /// Resolve names with `resolver` instead of the system's.
    pub fn resolver(mut self, resolver: impl Resolve + 'static) -> Builder {
        self.resolver = Arc::new(resolver);
        self
    }

    /// Call `on_denial` with the first refusal of each host (see [`DenialLog`]).
    pub fn on_denial(mut self, on_denial: impl Fn(&Denial) + Send + Sync + 'static) -> Builder {
        self.on_denial = Some(Arc::new(on_denial));
        self
    }

    pub fn timeouts(mut self, timeouts: Timeouts) -> Builder {
        self.timeouts = timeouts;
        self
    }

    pub fn build(self) -> Proxy {
        Proxy {
            shared: Arc::new(Shared {
                policy: self.policy,
                resolver: self.resolver,
                log: DenialLog::new(self.on_denial),
                timeouts: self.timeouts,
            }),
        }
    }
}

impl Proxy {
    /// A proxy for `policy`, with the system's resolver and no denial callback.
    pub fn builder(policy: Policy) -> Builder {
        Builder {
            policy,
            resolver: Arc::new(SystemResolver),
            on_denial: None,
            timeouts: Timeouts::default(),
        }
    }

    pub fn policy(&self) -> &Policy {
        &self.shared.policy
    }

    /// Every host refused so far, each once, with counts.
    pub fn denials(&self) -> Vec<Denial> {
        self.shared.log.denials()
    }

    /// Refusals of hosts past the log's bound (see [`DenialLog::unlisted`]).
    pub fn unlisted_denials(&self) -> u64 {
        self.shared.log.unlisted()
    }

    /// Accept connections on `listener` and serve each, until accepting fails. Dropping the
    /// future ends every connection it accepted.
    pub async fn serve(&self, listener: impl Into<Listener>) -> io::Result<()> {
        let listener = listener.into();
        let mut connections = JoinSet::new();
        loop {
            tokio::select! {
                accepted = accept(&listener) => {
                    let stream = accepted?;
                    let shared = Arc::clone(&self.shared);
                    connections.spawn(async move { shared.serve_connection(stream).await });
                }
                Some(_) = connections.join_next(), if !connections.is_empty() => {}
            }
        }
    }

    /// Serve one connection that arrived some other way (a socket handed over by another
    /// process, say).
    pub async fn serve_connection<S>(&self, stream: S)
    where
        S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        Arc::clone(&self.shared).serve_connection(stream).await;
    }

    /// Serve `listeners` on tasks of the current tokio runtime, until the returned handle is
    /// stopped or dropped.
    pub fn spawn(&self, listeners: impl IntoIterator<Item = Listener>) -> Running {
        let mut tasks = JoinSet::new();
        for listener in listeners {
            let proxy = self.clone();
            tasks.spawn(async move {
                let _ = proxy.serve(listener).await;
            });
        }
        Running {
            proxy: self.clone(),
            tasks,
        }
    }
}

/// A proxy serving its listeners; dropping it stops them and ends every connection.
pub struct Running {
    proxy: Proxy,
    tasks: JoinSet<()>,
}

impl Running {
    pub fn proxy(&self) -> &Proxy {
        &self.proxy
    }

    /// Stop serving; the hosts refused while it ran.
    pub async fn stop(mut self) -> Vec<Denial> {
        self.tasks.abort_all();
        while self.tasks.join_next().await.is_some() {}
        self.proxy.denials()
    }
}

/// An accepted connection, whichever listener it came from.
enum Accepted {
    Unix(tokio::net::UnixStream),
    Tcp(TcpStream),
}

async fn accept(listener: &Listener) -> io::Result<Accepted> {
    loop {
        let accepted = match listener {
            Listener::Unix(listener) => listener.accept().await.map(|(s, _)| Accepted::Unix(s)),
            Listener::Tcp(listener) => listener.accept().await.map(|(s, _)| {
                let _ = s.set_nodelay(true);
                Accepted::Tcp(s)
            }),
        };
        match accepted {
            Ok(stream) => return Ok(stream),
            // The client gave up before we took it, or descriptors ran out for a moment: keep
            // serving the others.
            Err(error) if crate::forwarder::transient_accept_error(&error) => {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            Err(error) => return Err(error),
        }
    }
}

impl Shared {
    async fn serve_connection<S>(self: Arc<Shared>, stream: S)
    where
        S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let mut stream = stream;
        let mut first = [0_u8; 1];
        let read = tokio::time::timeout(self.timeouts.handshake, stream.read(&mut first)).await;
        if !matches!(read, Ok(Ok(1))) {
            return;
        }
        if first[0] == socks::VERSION {
            socks::serve(&self, stream).await;
        } else {
            http::serve(self, Prefixed::new(first[0], stream)).await;
        }
    }

    /// Open a connection to `host`:`port` if the policy allows it (see the module comment).
    pub(crate) async fn dial(
        &self,
        host: &str,
        port: u16,
        protocol: Protocol,
    ) -> Result<TcpStream, Unreached> {
        let refuse = |shown: String, reason: DenialReason| {
            self.log.record(Denial {
                host: shown,
                port,
                reason: reason.clone(),
                protocol,
                count: 1,
            });
            Unreached::Refused(reason)
        };
        let parsed = match Host::parse(host) {
            Ok(parsed) => parsed,
            Err(error) => {
                // The client chose these bytes and the caller prints them: no control
                // character reaches a terminal.
                let shown: String = host
                    .chars()
                    .take(255)
                    .map(|c| {
                        if c.is_control() {
                            c.escape_default().to_string()
                        } else {
                            c.to_string()
                        }
                    })
                    .collect();
                return Err(refuse(
                    shown,
                    DenialReason::InvalidHost {
                        error: error.to_string(),
                    },
                ));
            }
        };
        let shown = parsed.to_string();
        let admission = match self.policy.admit(&parsed, port) {
            Ok(admission) => admission,
            Err(reason) => return Err(refuse(shown, reason)),
        };
        let addresses: Vec<SocketAddr> = match &admission.lookup {
            Lookup::Addresses(addresses) => addresses.clone(),
            Lookup::Resolve(name) => {
                let resolved =
                    tokio::time::timeout(self.timeouts.resolve, self.resolver.resolve(name)).await;
                match resolved {
                    Ok(Ok(found)) => found
                        .into_iter()
                        .map(|address| SocketAddr::new(address, port))
                        .collect(),
                    Ok(Err(error)) => {
                        let error = error.to_string();
                        return Err(refuse(shown, DenialReason::ResolutionFailed { error }));
                    }
                    Err(_) => {
                        let error =
                            format!("no answer within {} s", self.timeouts.resolve.as_secs_f32());
                        return Err(refuse(shown, DenialReason::ResolutionFailed { error }));
                    }
                }
            }
        };
        if let Err(reason) = self.policy.check(&admission, &addresses) {
            return Err(refuse(shown, reason));
        }
        connect_any(&addresses, self.timeouts.connect)
            .await
            .map_err(Unreached::Failed)
    }
}

/// Connect to the first of `addresses` that answers (each already checked).
async fn connect_any(addresses: &[SocketAddr], timeout: Duration) -> io::Result<TcpStream> {
    let mut last = io::Error::new(io::ErrorKind::NotFound, "no address to connect to");
    for address in addresses {
        match tokio::time::timeout(timeout, TcpStream::connect(address)).await {
            Ok(Ok(stream)) => {
                let _ = stream.set_nodelay(true);
                return Ok(stream);
            }
            Ok(Err(error)) => last = error,
            Err(_) => {
                last = io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!(
                        "{address} did not answer within {} s",
                        timeout.as_secs_f32()
                    ),
                );
            }
        }
    }
    Err(last)
}

/// A stream with one byte already read from it put back in front.
pub(crate) struct Prefixed<S> {
    first: Option<u8>,
    stream: S,
}

impl<S> Prefixed<S> {
    fn new(first: u8, stream: S) -> Prefixed<S> {
        Prefixed {
            first: Some(first),
            stream,
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Prefixed<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
        buffer: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if buffer.remaining() > 0
            && let Some(first) = self.first.take()
        {
            buffer.put_slice(&[first]);
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut self.stream).poll_read(context, buffer)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Prefixed<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
        buffer: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(context, buffer)
    }

    fn poll_flush(mut self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(context)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(context)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
        buffers: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write_vectored(context, buffers)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}

impl AsyncRead for Accepted {
    fn poll_read(
        self: Pin<&mut Self>,
        context: &mut Context<'_>,
        buffer: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Accepted::Unix(stream) => Pin::new(stream).poll_read(context, buffer),
            Accepted::Tcp(stream) => Pin::new(stream).poll_read(context, buffer),
        }
    }
}

impl AsyncWrite for Accepted {
    fn poll_write(
        self: Pin<&mut Self>,
        context: &mut Context<'_>,
        buffer: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Accepted::Unix(stream) => Pin::new(stream).poll_write(context, buffer),
            Accepted::Tcp(stream) => Pin::new(stream).poll_write(context, buffer),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Accepted::Unix(stream) => Pin::new(stream).poll_flush(context),
            Accepted::Tcp(stream) => Pin::new(stream).poll_flush(context),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Accepted::Unix(stream) => Pin::new(stream).poll_shutdown(context),
            Accepted::Tcp(stream) => Pin::new(stream).poll_shutdown(context),
        }
    }
}

/// Copy both ways between a client and its destination until both sides are done.
pub(crate) async fn tunnel<A, B>(mut client: A, mut upstream: B)
where
    A: AsyncRead + AsyncWrite + Unpin,
    B: AsyncRead + AsyncWrite + Unpin,
{
    let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
}
