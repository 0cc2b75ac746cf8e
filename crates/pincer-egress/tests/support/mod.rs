//! What the suites share: stand-in servers, a running proxy, and curl.

use std::net::{IpAddr, SocketAddr};
use std::process::Output;
use std::sync::{Arc, Mutex};

use pincer_egress::proxy::{Listener, Proxy, Running};
use pincer_egress::{Denial, Policy, StaticResolver};
use tokio::io::{AsyncBufReadExt as _, AsyncReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::net::{TcpListener, TcpStream};

/// An HTTP/1.1 server on loopback standing in for a site: it answers every request with
/// `NAME METHOD TARGET`, or a redirect to `Location` for `/redirect`, keeps connections alive,
/// and keeps the head of every request it got.
pub struct Origin {
    pub address: SocketAddr,
    pub heads: Arc<Mutex<Vec<String>>>,
}

impl Origin {
    pub async fn start(name: &'static str, redirect_to: Option<String>) -> Origin {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let heads: Arc<Mutex<Vec<String>>> = Arc::default();
        let kept = Arc::clone(&heads);
        tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    return;
                };
                let heads = Arc::clone(&kept);
                let redirect_to = redirect_to.clone();
                tokio::spawn(async move {
                    let mut stream = BufReader::new(stream);
                    loop {
                        let mut head = String::new();
                        loop {
                            let mut line = String::new();
                            match stream.read_line(&mut line).await {
                                Ok(0) | Err(_) => return,
                                Ok(_) => {}
                            }
                            if line == "\r\n" {
                                break;
                            }
                            head.push_str(&line);
                        }
                        heads.lock().unwrap().push(head.clone());
                        let mut words = head.split(' ');
                        let method = words.next().unwrap_or_default().to_owned();
                        let target = words.next().unwrap_or_default().to_owned();
                        let response = match (&redirect_to, target.as_str()) {
                            (Some(location), "/redirect") => format!(
                                "HTTP/1.1 302 Found\r\nLocation: {location}\r\n\
                                 Content-Length: 0\r\n\r\n"
                            ),
                            _ => {
                                let body = format!("{name} {method} {target}\n");
                                format!(
                                    "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\
                                     Keep-Alive: timeout=5\r\nConnection: keep-alive\r\n\r\n{body}",
                                    body.len()
                                )
                            }
                        };
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
        Origin { address, heads }
    }

    pub fn port(&self) -> u16 {
        self.address.port()
    }

    pub fn heads(&self) -> Vec<String> {
        self.heads.lock().unwrap().clone()
    }
}

/// A TCP server on `address` that greets each client with `hello NAME\n`, then echoes.
pub async fn echo(address: &str, name: &'static str) -> SocketAddr {
    let listener = TcpListener::bind(address).await.unwrap();
    let bound = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let Ok((mut stream, _)) = listener.accept().await else {
                return;
            };
            tokio::spawn(async move {
                if stream
                    .write_all(format!("hello {name}\n").as_bytes())
                    .await
                    .is_err()
                {
                    return;
                }
                let (mut reader, mut writer) = stream.split();
                let _ = tokio::io::copy(&mut reader, &mut writer).await;
            });
        }
    });
    bound
}

/// A proxy serving a TCP port on loopback, with the denials its callback got.
pub struct Started {
    pub address: SocketAddr,
    pub running: Running,
    pub reported: Arc<Mutex<Vec<Denial>>>,
}

impl Started {
    pub fn url(&self) -> String {
        format!("http://{}", self.address)
    }

    pub fn reported(&self) -> Vec<Denial> {
        self.reported.lock().unwrap().clone()
    }
}

/// Start a proxy for `policy` with `resolver` on a TCP port of loopback.
pub async fn start(policy: Policy, resolver: StaticResolver) -> Started {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let reported: Arc<Mutex<Vec<Denial>>> = Arc::default();
    let sink = Arc::clone(&reported);
    let proxy = Proxy::builder(policy)
        .resolver(resolver)
        .on_denial(move |denial| sink.lock().unwrap().push(denial.clone()))
        .build();
    let running = proxy.spawn([Listener::Tcp(listener)]);
    Started {
        address,
        running,
        reported,
    }
}

/// A policy from allow rules and pins (`host`, address).
pub fn policy(allow: &[&str], deny: &[&str], pins: &[(&str, String)]) -> Policy {
    let mut policy = Policy::new();
    for rule in allow {
        policy.allow(rule).unwrap();
    }
    for rule in deny {
        policy.deny(rule).unwrap();
    }
    for (host, address) in pins {
        policy.pin(host, &[address.as_str()]).unwrap();
    }
    policy
}

pub fn loopback() -> IpAddr {
    IpAddr::from([127, 0, 0, 1])
}

/// Run curl with `arguments` (and no proxy from the environment unless `environment` sets
/// one); stdout carries the body, then the status code on a line of its own.
pub async fn curl(arguments: &[&str], environment: &[(&str, &str)]) -> Output {
    let mut command = tokio::process::Command::new("curl");
    command
        .args(["-sS", "--max-time", "10", "-w", "\n%{http_code}"])
        .args(arguments);
    for name in [
        "http_proxy",
        "HTTP_PROXY",
        "https_proxy",
        "HTTPS_PROXY",
        "all_proxy",
        "ALL_PROXY",
        "no_proxy",
        "NO_PROXY",
    ] {
        command.env_remove(name);
    }
    command.envs(environment.iter().copied());
    command
        .output()
        .await
        .expect("curl runs (the tests use it as a real proxy client)")
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Send `request` on a fresh connection to `address` and read until the server closes or
/// `until` appears.
pub async fn exchange(stream: &mut TcpStream, request: &[u8], until: &str) -> String {
    stream.write_all(request).await.unwrap();
    let mut received = Vec::new();
    let mut chunk = [0_u8; 4096];
    while !String::from_utf8_lossy(&received).contains(until) {
        let count =
            tokio::time::timeout(std::time::Duration::from_secs(10), stream.read(&mut chunk))
                .await
                .expect("an answer within 10 s")
                .unwrap();
        if count == 0 {
            break;
        }
        received.extend_from_slice(&chunk[..count]);
    }
    String::from_utf8_lossy(&received).into_owned()
}
