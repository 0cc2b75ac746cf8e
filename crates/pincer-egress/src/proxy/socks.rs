//! The SOCKS5 side of the proxy (RFC 1928), for clients that are not HTTP: no authentication,
//! the `CONNECT` command only, destinations as a domain name (resolved here, never by the
//! client), an IPv4 or an IPv6 address. `BIND` and `UDP ASSOCIATE` are answered "command not
//! supported"; a refused destination "connection not allowed by ruleset".

use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWrite, AsyncWriteExt as _};

use super::{Shared, Unreached, tunnel};
use crate::denial::{DenialReason, Protocol};

/// The first byte of every SOCKS5 message.
pub(super) const VERSION: u8 = 5;

const NO_AUTHENTICATION: u8 = 0;
const NO_ACCEPTABLE_METHOD: u8 = 0xff;
const CONNECT: u8 = 1;
const IPV4: u8 = 1;
const DOMAIN: u8 = 3;
const IPV6: u8 = 4;

/// Reply codes (RFC 1928 §6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reply {
    Succeeded = 0,
    GeneralFailure = 1,
    NotAllowed = 2,
    HostUnreachable = 4,
    ConnectionRefused = 5,
    TtlExpired = 6,
    CommandNotSupported = 7,
    AddressTypeNotSupported = 8,
}

/// Serve a SOCKS5 client whose version byte was already read.
pub(super) async fn serve<S>(shared: &Shared, mut stream: S)
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let request = tokio::time::timeout(shared.timeouts.handshake, handshake(&mut stream)).await;
    let (host, port) = match request {
        Ok(Ok(Ok(destination))) => destination,
        Ok(Ok(Err(reply))) => {
            let _ = send_reply(&mut stream, reply, None).await;
            return;
        }
        Ok(Err(_)) | Err(_) => return,
    };
    match shared.dial(&host, port, Protocol::Socks5).await {
        Ok(upstream) => {
            let bound = upstream.local_addr().ok();
            if send_reply(&mut stream, Reply::Succeeded, bound)
                .await
                .is_ok()
            {
                tunnel(stream, upstream).await;
            }
        }
        Err(Unreached::Refused(reason)) => {
            let reply = match reason {
                DenialReason::ResolutionFailed { .. } => Reply::HostUnreachable,
                DenialReason::InvalidHost { .. } => Reply::GeneralFailure,
                DenialReason::NotAllowed
                | DenialReason::DeniedByRule { .. }
                | DenialReason::PrivateAddress { .. } => Reply::NotAllowed,
            };
            let _ = send_reply(&mut stream, reply, None).await;
        }
        Err(Unreached::Failed(error)) => {
            let reply = match error.kind() {
                io::ErrorKind::TimedOut => Reply::TtlExpired,
                io::ErrorKind::ConnectionRefused => Reply::ConnectionRefused,
                _ => Reply::HostUnreachable,
            };
            let _ = send_reply(&mut stream, reply, None).await;
        }
    }
}

/// The method negotiation and the request: the destination, or the reply that refuses it.
async fn handshake<S>(stream: &mut S) -> io::Result<Result<(String, u16), Reply>>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let count = stream.read_u8().await?;
    let mut methods = vec![0_u8; usize::from(count)];
    stream.read_exact(&mut methods).await?;
    if !methods.contains(&NO_AUTHENTICATION) {
        stream.write_all(&[VERSION, NO_ACCEPTABLE_METHOD]).await?;
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            "the client offers no method without authentication",
        ));
    }
    stream.write_all(&[VERSION, NO_AUTHENTICATION]).await?;
    let mut head = [0_u8; 4];
    stream.read_exact(&mut head).await?;
    let [version, command, _reserved, kind] = head;
    if version != VERSION {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "not a SOCKS5 request",
        ));
    }
    let host = match kind {
        IPV4 => {
            let mut octets = [0_u8; 4];
            stream.read_exact(&mut octets).await?;
            Ipv4Addr::from(octets).to_string()
        }
        IPV6 => {
            let mut octets = [0_u8; 16];
            stream.read_exact(&mut octets).await?;
            Ipv6Addr::from(octets).to_string()
        }
        DOMAIN => {
            let length = stream.read_u8().await?;
            let mut name = vec![0_u8; usize::from(length)];
            stream.read_exact(&mut name).await?;
            String::from_utf8_lossy(&name).into_owned()
        }
        _ => return Ok(Err(Reply::AddressTypeNotSupported)),
    };
    let port = stream.read_u16().await?;
    if command != CONNECT {
        return Ok(Err(Reply::CommandNotSupported));
    }
    Ok(Ok((host, port)))
}

async fn send_reply<S>(stream: &mut S, reply: Reply, bound: Option<SocketAddr>) -> io::Result<()>
where
    S: AsyncWrite + Unpin,
{
    let bound = bound.unwrap_or_else(|| SocketAddr::new(IpAddr::V4(Ipv4Addr::UNSPECIFIED), 0));
    let mut message = vec![VERSION, reply as u8, 0];
    match bound.ip() {
        IpAddr::V4(address) => {
            message.push(IPV4);
            message.extend_from_slice(&address.octets());
        }
        IpAddr::V6(address) => {
            message.push(IPV6);
            message.extend_from_slice(&address.octets());
        }
    }
    message.extend_from_slice(&bound.port().to_be_bytes());
    stream.write_all(&message).await?;
    stream.flush().await
}
