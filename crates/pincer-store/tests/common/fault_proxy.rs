//! A TCP proxy in front of the S3 test server that can fail the way networks do: refuse
//! (the server went away: open connections cut, new ones closed at once), hang (connections
//! accepted and never answered: a slow store), or stall one upload partway through its body
//! (so a writer can be killed mid-commit). Standard library only.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Forward,
    /// Cut every connection, close new ones at once.
    Refuse,
    /// Accept connections and never answer.
    Hang,
}

pub struct FaultProxy {
    pub port: u16,
    state: Arc<State>,
}

struct State {
    upstream: u16,
    mode: Mutex<Mode>,
    connections: Mutex<Vec<TcpStream>>,
    stall: Mutex<Option<Stall>>,
    closed: AtomicBool,
}

/// Stop forwarding a request once `after` bytes of it have gone through, when its request line
/// contains `fragment`.
struct Stall {
    fragment: Vec<u8>,
    after: usize,
    reached: mpsc::Sender<()>,
}

impl FaultProxy {
    pub fn start(upstream: u16) -> FaultProxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the proxy");
        let port = listener.local_addr().expect("proxy address").port();
        let state = Arc::new(State {
            upstream,
            mode: Mutex::new(Mode::Forward),
            connections: Mutex::new(Vec::new()),
            stall: Mutex::new(None),
            closed: AtomicBool::new(false),
        });
        let accepting = Arc::clone(&state);
        std::thread::spawn(move || {
            for client in listener.incoming() {
                if accepting.closed.load(Ordering::SeqCst) {
                    return;
                }
                let Ok(client) = client else { continue };
                let state = Arc::clone(&accepting);
                std::thread::spawn(move || serve(&state, client));
            }
        });
        FaultProxy { port, state }
    }

    /// `http://127.0.0.1:PORT`
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn set_mode(&self, mode: Mode) {
        *lock(&self.state.mode) = mode;
        if mode != Mode::Forward {
            self.cut_connections();
        }
    }

    /// Cut every open connection.
    pub fn cut_connections(&self) {
        for connection in lock(&self.state.connections).drain(..) {
            let _ = connection.shutdown(Shutdown::Both);
        }
    }

    /// Stall the next request whose request line contains `fragment` once `after` bytes of it
    /// went through; the receiver hears when that happened.
    pub fn stall_request(&self, fragment: &str, after: usize) -> mpsc::Receiver<()> {
        let (sender, receiver) = mpsc::channel();
        *lock(&self.state.stall) = Some(Stall {
            fragment: fragment.as_bytes().to_vec(),
            after,
            reached: sender,
        });
        receiver
    }
}

impl Drop for FaultProxy {
    fn drop(&mut self) {
        self.state.closed.store(true, Ordering::SeqCst);
        self.cut_connections();
        // Wake the accept loop so it sees `closed`.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn serve(state: &Arc<State>, client: TcpStream) {
    let mode = *lock(&state.mode);
    match mode {
        Mode::Refuse => {
            let _ = client.shutdown(Shutdown::Both);
            return;
        }
        Mode::Hang => {
            lock(&state.connections).push(client.try_clone().expect("clone a socket"));
            // Read and drop what comes, answer nothing, until cut.
            let mut sink = [0_u8; 8192];
            let mut client = client;
            while matches!(client.read(&mut sink), Ok(n) if n > 0) {}
            return;
        }
        Mode::Forward => {}
    }
    let Ok(upstream) = TcpStream::connect(("127.0.0.1", state.upstream)) else {
        let _ = client.shutdown(Shutdown::Both);
        return;
    };
    {
        let mut connections = lock(&state.connections);
        connections.push(client.try_clone().expect("clone a socket"));
        connections.push(upstream.try_clone().expect("clone a socket"));
    }
    let (mut from_upstream, mut to_client) = (
        upstream.try_clone().expect("clone a socket"),
        client.try_clone().expect("clone a socket"),
    );
    std::thread::spawn(move || {
        let _ = std::io::copy(&mut from_upstream, &mut to_client);
        let _ = to_client.shutdown(Shutdown::Both);
        let _ = from_upstream.shutdown(Shutdown::Both);
    });
    forward_requests(state, client, upstream);
}

/// Client to server, watching for the request to stall.
fn forward_requests(state: &Arc<State>, mut client: TcpStream, mut upstream: TcpStream) {
    let mut buffer = vec![0_u8; 64 * 1024];
    // Bytes of the watched request forwarded so far (None: not in a watched request).
    let mut watched: Option<usize> = None;
    loop {
        let read = match client.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(read) => read,
        };
        let chunk = &buffer[..read];
        if watched.is_none() {
            let stall = lock(&state.stall);
            if let Some(stall) = stall.as_ref()
                && chunk
                    .windows(stall.fragment.len())
                    .any(|window| window == stall.fragment)
            {
                watched = Some(0);
            }
        }
        let mut chunk = chunk;
        if let Some(sent) = watched.as_mut() {
            let mut stall = lock(&state.stall);
            if let Some(active) = stall.as_ref() {
                let room = active.after.saturating_sub(*sent);
                if chunk.len() >= room {
                    let _ = upstream.write_all(&chunk[..room]);
                    let _ = active.reached.send(());
                    *stall = None;
                    drop(stall);
                    // Forward nothing more: read and drop what the client still sends until it
                    // goes away (killed) or the proxy closes. The server never sees the rest.
                    let _ = client.set_read_timeout(Some(Duration::from_millis(20)));
                    let mut sink = [0_u8; 8192];
                    while !state.closed.load(Ordering::SeqCst) {
                        match client.read(&mut sink) {
                            Ok(0) => break,
                            Ok(_) => {}
                            Err(error)
                                if matches!(
                                    error.kind(),
                                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                                ) => {}
                            Err(_) => break,
                        }
                    }
                    let _ = upstream.shutdown(Shutdown::Both);
                    let _ = client.shutdown(Shutdown::Both);
                    return;
                }
                *sent += chunk.len();
            } else {
                watched = None;
            }
            chunk = &buffer[..read];
        }
        if upstream.write_all(chunk).is_err() {
            break;
        }
    }
    let _ = upstream.shutdown(Shutdown::Both);
    let _ = client.shutdown(Shutdown::Both);
}
