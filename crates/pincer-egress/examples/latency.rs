//! What the egress proxy adds to a request on loopback (issue #50: a benchmark, not a timed
//! test; the target is under 1 ms).
//!
//!     cargo run --release -p pincer-egress --example latency [REQUESTS]
//!
//! A stand-in server and the proxy run on this process's runtime; a client thread sends small
//! GET requests one after another and times each, in five ways: straight to the server on one
//! kept-alive connection (the baseline); as plain HTTP through the proxy (one kept-alive
//! connection to the proxy, which decides each request and opens a connection to the server
//! for it); inside one CONNECT tunnel; a new connection and CONNECT tunnel for every request
//! (against a new direct connection every request); and plain HTTP through the forwarder and
//! the proxy's unix socket, the way a sandboxed command reaches it. It prints the median and
//! the 90th percentile of each, and the median added to its baseline.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use pincer_egress::Policy;
use pincer_egress::forwarder::{self, Route};
use pincer_egress::proxy::{Listener, Proxy};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _};

const BODY: &str = "{\"name\":\"left-pad\",\"version\":\"1.3.0\"}\n";

fn main() {
    let requests: usize = std::env::args()
        .nth(1)
        .and_then(|count| count.parse().ok())
        .unwrap_or(2000);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let origin = runtime.block_on(origin());
    let directory = std::env::temp_dir().join(format!("egress-bench-{}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap();
    let socket = directory.join("proxy.sock");
    let _ = std::fs::remove_file(&socket);
    let (proxy, _running) = runtime.block_on(async {
        let mut policy = Policy::new();
        policy.allow("registry.npmjs.org").unwrap();
        policy
            .pin("registry.npmjs.org", &[origin.to_string()])
            .unwrap();
        let tcp = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = tcp.local_addr().unwrap();
        let unix = tokio::net::UnixListener::bind(&socket).unwrap();
        let running = Proxy::builder(policy)
            .build()
            .spawn([Listener::Tcp(tcp), Listener::Unix(unix)]);
        (address, running)
    });
    let forward = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let forwarded = forward.local_addr().unwrap();
    forwarder::spawn(forward, socket.clone(), Route::Proxy).unwrap();

    let direct = "GET /left-pad HTTP/1.1\r\nHost: registry.npmjs.org\r\n\r\n";
    let proxied =
        "GET http://registry.npmjs.org/left-pad HTTP/1.1\r\nHost: registry.npmjs.org\r\n\r\n";
    let connect = "CONNECT registry.npmjs.org:80 HTTP/1.1\r\nHost: registry.npmjs.org:80\r\n\r\n";

    println!("{requests} requests each, one after another, on loopback");
    println!("{:<44} {:>10} {:>10} {:>12}", "", "median", "p90", "added");
    let baseline = kept_alive(origin, None, direct, requests);
    report("direct, one kept-alive connection", &baseline, None);
    let plain = kept_alive(proxy, None, proxied, requests);
    report("plain HTTP through the proxy", &plain, Some(&baseline));
    let tunnel = kept_alive(proxy, Some(connect), direct, requests);
    report("inside one CONNECT tunnel", &tunnel, Some(&baseline));
    let fresh_direct = fresh(origin, None, direct, requests);
    report("direct, a new connection each", &fresh_direct, None);
    let fresh_tunnel = fresh(proxy, Some(connect), direct, requests);
    report(
        "a new CONNECT tunnel each",
        &fresh_tunnel,
        Some(&fresh_direct),
    );
    let through_forwarder = kept_alive(forwarded, None, proxied, requests);
    report(
        "plain HTTP via forwarder and unix socket",
        &through_forwarder,
        Some(&baseline),
    );
    // The baseline again: how much the machine drifted while the others ran.
    let again = kept_alive(origin, None, direct, requests);
    report(
        "direct, one kept-alive connection (again)",
        &again,
        Some(&baseline),
    );
    let _ = std::fs::remove_dir_all(&directory);
}

/// The stand-in registry: answers every request with [`BODY`], keeping connections alive.
async fn origin() -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let (stream, _) = listener.accept().await.unwrap();
            let _ = stream.set_nodelay(true);
            tokio::spawn(async move {
                let mut stream = tokio::io::BufReader::new(stream);
                let response = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{BODY}",
                    BODY.len()
                );
                loop {
                    let mut line = String::new();
                    loop {
                        line.clear();
                        if stream.read_line(&mut line).await.unwrap_or(0) == 0 {
                            return;
                        }
                        if line == "\r\n" {
                            break;
                        }
                    }
                    if stream
                        .get_mut()
                        .write_all(response.as_bytes())
                        .await
                        .is_err()
                    {
                        return;
                    }
                }
            });
        }
    });
    address
}

fn open(address: SocketAddr, tunnel: Option<&str>) -> BufReader<TcpStream> {
    let stream = TcpStream::connect(address).unwrap();
    stream.set_nodelay(true).unwrap();
    let mut reader = BufReader::new(stream);
    if let Some(connect) = tunnel {
        reader.get_mut().write_all(connect.as_bytes()).unwrap();
        read_head(&mut reader);
    }
    reader
}

/// Read a response's head; its Content-Length.
fn read_head(reader: &mut BufReader<TcpStream>) -> usize {
    let mut length = 0;
    let mut line = String::new();
    loop {
        line.clear();
        reader.read_line(&mut line).unwrap();
        if line == "\r\n" || line.is_empty() {
            return length;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().unwrap();
        }
    }
}

fn round_trip(reader: &mut BufReader<TcpStream>, request: &str) {
    reader.get_mut().write_all(request.as_bytes()).unwrap();
    let length = read_head(reader);
    let mut body = vec![0_u8; length];
    reader.read_exact(&mut body).unwrap();
}

fn kept_alive(
    address: SocketAddr,
    tunnel: Option<&str>,
    request: &str,
    count: usize,
) -> Vec<Duration> {
    let mut reader = open(address, tunnel);
    for _ in 0..count / 10 {
        round_trip(&mut reader, request);
    }
    (0..count)
        .map(|_| {
            let started = Instant::now();
            round_trip(&mut reader, request);
            started.elapsed()
        })
        .collect()
}

fn fresh(address: SocketAddr, tunnel: Option<&str>, request: &str, count: usize) -> Vec<Duration> {
    (0..count)
        .map(|_| {
            let started = Instant::now();
            let mut reader = open(address, tunnel);
            round_trip(&mut reader, request);
            started.elapsed()
        })
        .collect()
}

fn percentile(sorted: &[Duration], share: f64) -> Duration {
    let at = ((sorted.len() - 1) as f64 * share).round() as usize;
    sorted[at]
}

fn report(name: &str, times: &[Duration], baseline: Option<&[Duration]>) {
    let mut sorted = times.to_vec();
    sorted.sort();
    let median = percentile(&sorted, 0.5);
    let added = baseline.map(|baseline| {
        let mut base = baseline.to_vec();
        base.sort();
        median.as_secs_f64() - percentile(&base, 0.5).as_secs_f64()
    });
    println!(
        "{name:<44} {:>8.0} µs {:>8.0} µs {:>12}",
        median.as_secs_f64() * 1e6,
        percentile(&sorted, 0.9).as_secs_f64() * 1e6,
        added.map_or_else(String::new, |added| format!("{:+.0} µs", added * 1e6)),
    );
}
