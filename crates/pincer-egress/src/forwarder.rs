//! The forwarder: the way from inside a command's network namespace to the proxy (SPEC §20).
//!
//! The command's namespace has only loopback, and the proxy runs outside it on a unix socket,
//! which a path in the file system reaches from any network namespace. The forwarder runs
//! inside (in the sandbox's launcher, after it entered the namespace and before Landlock and
//! seccomp), listens on the namespace's loopback, and pipes each connection to that socket:
//! - [`Route::Proxy`]: the proxy's own port (what `HTTP_PROXY`, `HTTPS_PROXY` and `ALL_PROXY`
//!   name); the client speaks HTTP or SOCKS5 to the proxy through it.
//! - [`Route::Connect`]: a fixed destination, for clients that know nothing of proxies (a
//!   database driver on `localhost:5432`): the forwarder opens a `CONNECT` tunnel to that
//!   destination for each connection, so the proxy decides it and reports a refusal like any
//!   other.
//!
//! std only — threads and blocking I/O, no runtime — so the launcher, which must start fast,
//! links nothing more. Each connection takes two threads with small stacks while it is open.
//! The forwarder lives as long as its process: the launcher's threads end when the launcher
//! does, with the command.

use std::io::{self, Read, Write};
use std::net::{Ipv4Addr, Ipv6Addr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::thread;

/// Where a listener's connections go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// To the proxy, as they are.
    Proxy,
    /// Through a `CONNECT` tunnel to this `host:port` (`localhost:5432`, `[::1]:5432`).
    Connect(String),
}

/// The variables that point a command's clients at the forwarder on `port` of its loopback:
/// `HTTP_PROXY` and `HTTPS_PROXY` (HTTP, `CONNECT` for https), `ALL_PROXY` (SOCKS5 with the name
/// resolved by the proxy, `socks5h`), each also in lowercase (curl reads only `http_proxy` in
/// lowercase; most tools read either), and `NO_PROXY` for the namespace's own loopback, where
/// the command's own servers and the fixed routes ([`Route::Connect`]) listen.
pub fn proxy_variables(port: u16) -> Vec<(&'static str, String)> {
    let http = format!("http://127.0.0.1:{port}");
    let socks = format!("socks5h://127.0.0.1:{port}");
    let local = "localhost,127.0.0.1,::1".to_owned();
    vec![
        ("HTTP_PROXY", http.clone()),
        ("http_proxy", http.clone()),
        ("HTTPS_PROXY", http.clone()),
        ("https_proxy", http),
        ("ALL_PROXY", socks.clone()),
        ("all_proxy", socks),
        ("NO_PROXY", local.clone()),
        ("no_proxy", local),
    ]
}

/// Listen on `port` of the loopback: `127.0.0.1`, and `::1` when the namespace has IPv6 (its
/// failure is not an error). Port 0 picks a free port for both.
pub fn bind_loopback(port: u16) -> io::Result<Vec<TcpListener>> {
    let v4 = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, port)))?;
    let port = v4.local_addr()?.port();
    let mut listeners = vec![v4];
    if let Ok(v6) = TcpListener::bind(SocketAddr::from((Ipv6Addr::LOCALHOST, port))) {
        listeners.push(v6);
    }
    Ok(listeners)
}

/// The stack of each thread: a copy loop needs little more than its buffer.
const STACK: usize = 128 * 1024;

/// The most a `CONNECT` answer's head may take.
const MAX_HEAD: usize = 16 * 1024;

/// Accept connections on `listener` and pipe each to the proxy's socket at `target` along
/// `route`, each on threads of its own. Returns only when accepting fails.
pub fn serve(listener: &TcpListener, target: &Path, route: &Route) -> io::Error {
    loop {
        let client = match listener.accept() {
            Ok((client, _)) => client,
            // The client gave up before we took it, or descriptors ran out for a moment: keep
            // serving the others, as the proxy does.
            Err(error) if transient_accept_error(&error) => {
                thread::sleep(std::time::Duration::from_millis(10));
                continue;
            }
            Err(error) => return error,
        };
        let target = target.to_path_buf();
        let route = route.clone();
        let started = thread::Builder::new()
            .name("egress-forward".to_owned())
            .stack_size(STACK)
            .spawn(move || {
                let _ = forward(client, &target, &route);
            });
        // Out of threads: this connection is dropped (closed), the next may fare better.
        drop(started);
    }
}

/// [`serve`] on a thread of its own.
pub fn spawn(
    listener: TcpListener,
    target: PathBuf,
    route: Route,
) -> io::Result<thread::JoinHandle<io::Error>> {
    thread::Builder::new()
        .name("egress-listen".to_owned())
        .stack_size(STACK)
        .spawn(move || serve(&listener, &target, &route))
}

/// An `accept` failure that a listener outlives: the proxy's and the forwarder's one rule.
pub(crate) fn transient_accept_error(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::Interrupted
            | io::ErrorKind::WouldBlock
    ) || matches!(error.raw_os_error(), Some(23 | 24)) // ENFILE, EMFILE
}

/// One connection: reach the proxy, open the tunnel when the route asks for one, then copy
/// both ways until both sides are done.
fn forward(client: TcpStream, target: &Path, route: &Route) -> io::Result<()> {
    let _ = client.set_nodelay(true);
    let mut proxy = UnixStream::connect(target)?;
    if let Route::Connect(destination) = route {
        let early = open_tunnel(&mut proxy, destination)?;
        (&client).write_all(&early)?;
    }
    let upstream_reader = proxy.try_clone()?;
    let client_reader = client.try_clone()?;
    let proxy_writer = proxy;
    let client_writer = client;
    let upward = thread::Builder::new()
        .name("egress-upward".to_owned())
        .stack_size(STACK)
        .spawn(move || {
            copy_then_close(client_reader, &proxy_writer, |s| {
                s.shutdown(Shutdown::Write)
            })
        })?;
    copy_then_close(upstream_reader, &client_writer, |s| {
        s.shutdown(Shutdown::Write)
    });
    let _ = upward.join();
    Ok(())
}

/// Copy `from` into `to` until `from` ends, then tell `to` nothing more comes.
fn copy_then_close<R: Read, W>(mut from: R, to: &W, close: impl Fn(&W) -> io::Result<()>)
where
    for<'a> &'a W: Write,
{
    let mut writer = to;
    let _ = io::copy(&mut from, &mut writer);
    let _ = close(to);
}

/// Ask the proxy for a tunnel to `destination`; the bytes the server sent after the proxy's
/// answer, which belong to the client.
fn open_tunnel(proxy: &mut UnixStream, destination: &str) -> io::Result<Vec<u8>> {
    write!(
        proxy,
        "CONNECT {destination} HTTP/1.1\r\nHost: {destination}\r\n\r\n"
    )?;
    let mut received = Vec::new();
    let mut chunk = [0_u8; 4096];
    let end = loop {
        let count = proxy.read(&mut chunk)?;
        if count == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the proxy closed the connection before it answered",
            ));
        }
        received.extend_from_slice(&chunk[..count]);
        if let Some(at) = received.windows(4).position(|window| window == b"\r\n\r\n") {
            break at + 4;
        }
        if received.len() > MAX_HEAD {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "the proxy's answer has no end",
            ));
        }
    };
    let status = received
        .split(|&byte| byte == b' ')
        .nth(1)
        .unwrap_or_default();
    if status != b"200" {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "the proxy refused {destination}: {}",
                String::from_utf8_lossy(
                    received
                        .split(|&byte| byte == b'\r')
                        .next()
                        .unwrap_or_default()
                )
            ),
        ));
    }
    Ok(received.split_off(end))
}
