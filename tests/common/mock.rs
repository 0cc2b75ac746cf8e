//! An in-process HTTP/1.1 server that plays scripted provider responses byte for byte and records
//! every request it receives.
//!
//! Each test scripts a sequence of [`Reply`]s (one per request, in order). Streaming bodies are
//! sent with chunked transfer encoding, one chunk per [`Piece::Data`], flushed immediately, so a
//! test controls exactly where the bytes are split and when they arrive. Fault pieces cut the
//! connection mid-stream ([`Piece::Close`]) or stall it ([`Piece::Stall`]); a [`Gate`] holds a
//! reply until the test releases it ([`Piece::Wait`]). The server binds to
//! 127.0.0.1 only and stops when dropped.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use serde_json::Value;

/// One part of a streamed body.
#[derive(Debug, Clone)]
pub enum Piece {
    /// Bytes sent as one chunk.
    Data(Vec<u8>),
    /// Wait before the next piece.
    Delay(Duration),
    /// Stop sending (no terminating chunk) and keep the connection open this long, then close.
    Stall(Duration),
    /// Close the connection now, without the terminating chunk: a truncated body.
    Close,
    /// Hold the rest of the reply until the test opens the gate (at most 60 s, so that a test
    /// that fails before opening it leaves no process waiting forever).
    Wait(Gate),
}

/// A latch a test opens to release the replies waiting on it ([`Piece::Wait`]).
#[derive(Debug, Clone, Default)]
pub struct Gate(Arc<(Mutex<bool>, Condvar)>);

impl Gate {
    pub fn new() -> Gate {
        Gate::default()
    }

    /// Release every reply waiting on this gate, now and later.
    pub fn open(&self) {
        let (open, changed) = &*self.0;
        *open.lock().unwrap() = true;
        changed.notify_all();
    }

    fn wait(&self) {
        let (open, changed) = &*self.0;
        let guard = open.lock().unwrap();
        let _ = changed
            .wait_timeout_while(guard, Duration::from_secs(60), |open| !*open)
            .unwrap();
    }
}

/// The body of a reply.
#[derive(Debug, Clone)]
pub enum Body {
    /// A complete body with `content-length`.
    Full(Vec<u8>),
    /// A chunked body sent piece by piece.
    Chunked(Vec<Piece>),
}

/// One scripted response.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Body,
}

impl Reply {
    /// A JSON body with `status`.
    pub fn json(status: u16, body: &Value) -> Reply {
        Reply {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            body: Body::Full(serde_json::to_vec(body).unwrap()),
        }
    }

    /// Any body with `status` and content type.
    pub fn raw(status: u16, content_type: &str, body: &[u8]) -> Reply {
        Reply {
            status,
            headers: vec![("content-type".into(), content_type.into())],
            body: Body::Full(body.to_vec()),
        }
    }

    /// A 200 event stream sent as one chunk per SSE event (split at blank lines).
    pub fn sse(stream: &[u8]) -> Reply {
        Reply::sse_pieces(split_events(stream).into_iter().map(Piece::Data).collect())
    }

    /// A 200 event stream sent in pieces of `size` bytes (splitting lines and code points).
    pub fn sse_split(stream: &[u8], size: usize) -> Reply {
        Reply::sse_pieces(
            stream
                .chunks(size)
                .map(|chunk| Piece::Data(chunk.to_vec()))
                .collect(),
        )
    }

    /// A 200 event stream from explicit pieces.
    pub fn sse_pieces(pieces: Vec<Piece>) -> Reply {
        Reply {
            status: 200,
            headers: vec![
                (
                    "content-type".into(),
                    "text/event-stream; charset=utf-8".into(),
                ),
                ("cache-control".into(), "no-cache".into()),
            ],
            body: Body::Chunked(pieces),
        }
    }

    /// Add a response header.
    pub fn header(mut self, name: &str, value: &str) -> Reply {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Insert a delay before every data piece (a slowly streaming model).
    pub fn paced(mut self, delay: Duration) -> Reply {
        if let Body::Chunked(pieces) = &mut self.body {
            let mut paced = Vec::with_capacity(pieces.len() * 2);
            for piece in pieces.drain(..) {
                if matches!(piece, Piece::Data(_)) {
                    paced.push(Piece::Delay(delay));
                }
                paced.push(piece);
            }
            *pieces = paced;
        }
        self
    }
}

/// Split an SSE byte stream after each blank line (`\n\n` or `\r\n\r\n`).
pub fn split_events(stream: &[u8]) -> Vec<Vec<u8>> {
    let mut events = Vec::new();
    let mut start = 0;
    let mut index = 0;
    while index < stream.len() {
        let end = if stream[index..].starts_with(b"\r\n\r\n") {
            Some(index + 4)
        } else if stream[index..].starts_with(b"\n\n") {
            Some(index + 2)
        } else {
            None
        };
        match end {
            Some(end) => {
                events.push(stream[start..end].to_vec());
                start = end;
                index = end;
            }
            None => index += 1,
        }
    }
    if start < stream.len() {
        events.push(stream[start..].to_vec());
    }
    events
}

/// A request as the mock received it.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    /// Path with query string.
    pub path: String,
    /// Header names lower-cased.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Recorded {
    /// The body parsed as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }

    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(key, _)| *key == name)
            .map(|(_, value)| value.as_str())
    }
}

/// The running server.
pub struct MockServer {
    address: std::net::SocketAddr,
    requests: Arc<Mutex<Vec<Recorded>>>,
    stop: Arc<AtomicBool>,
}

impl MockServer {
    /// Start a server that answers the n-th request with the n-th reply (and with a 500 JSON
    /// error once the script is used up).
    pub fn start(replies: Vec<Reply>) -> MockServer {
        MockServer::start_with(Box::new(replies.into_iter()), "127.0.0.1:0")
    }

    /// Start a server that answers requests with `replies` in a cycle, forever (benchmarks).
    pub fn start_cycle(replies: Vec<Reply>, address: &str) -> MockServer {
        MockServer::start_with(Box::new(replies.into_iter().cycle()), address)
    }

    fn start_with(replies: Box<dyn Iterator<Item = Reply> + Send>, address: &str) -> MockServer {
        let listener = TcpListener::bind(address).unwrap();
        let address = listener.local_addr().unwrap();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let script = Arc::new(Mutex::new(replies));
        {
            let requests = Arc::clone(&requests);
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = stream else { continue };
                    let requests = Arc::clone(&requests);
                    let script = Arc::clone(&script);
                    std::thread::spawn(move || serve(stream, &requests, &script));
                }
            });
        }
        MockServer {
            address,
            requests,
            stop,
        }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.address)
    }

    /// Every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().unwrap().clone()
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect(self.address);
    }
}

fn read_request(stream: &TcpStream) -> Option<Recorded> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line).ok()?;
    let mut parts = request_line.split_whitespace();
    let method = parts.next()?.to_owned();
    let path = parts.next()?.to_owned();
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).ok()?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
    }
    let length = headers
        .iter()
        .find(|(name, _)| name == "content-length")
        .and_then(|(_, value)| value.parse::<usize>().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(Recorded {
        method,
        path,
        headers,
        body,
    })
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        529 => "Overloaded",
        _ => "Status",
    }
}

fn serve(
    mut stream: TcpStream,
    requests: &Mutex<Vec<Recorded>>,
    script: &Mutex<Box<dyn Iterator<Item = Reply> + Send>>,
) {
    let _ = stream.set_nodelay(true);
    let Some(request) = read_request(&stream) else {
        return;
    };
    requests.lock().unwrap().push(request);
    let reply = script.lock().unwrap().next().unwrap_or_else(|| {
        Reply::json(
            500,
            &serde_json::json!({"error": {"message": "mock server: no scripted reply left"}}),
        )
    });
    let mut head = format!("HTTP/1.1 {} {}\r\n", reply.status, reason(reply.status));
    for (name, value) in &reply.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("connection: close\r\n");
    match reply.body {
        Body::Full(bytes) => {
            head.push_str(&format!("content-length: {}\r\n\r\n", bytes.len()));
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(&bytes);
            let _ = stream.flush();
        }
        Body::Chunked(pieces) => {
            head.push_str("transfer-encoding: chunked\r\n\r\n");
            if stream.write_all(head.as_bytes()).is_err() {
                return;
            }
            let _ = stream.flush();
            for piece in pieces {
                match piece {
                    Piece::Data(bytes) => {
                        if bytes.is_empty() {
                            continue;
                        }
                        let mut chunk = format!("{:x}\r\n", bytes.len()).into_bytes();
                        chunk.extend_from_slice(&bytes);
                        chunk.extend_from_slice(b"\r\n");
                        if stream
                            .write_all(&chunk)
                            .and_then(|()| stream.flush())
                            .is_err()
                        {
                            return;
                        }
                    }
                    Piece::Delay(duration) => std::thread::sleep(duration),
                    Piece::Wait(gate) => gate.wait(),
                    Piece::Stall(duration) => {
                        std::thread::sleep(duration);
                        return;
                    }
                    Piece::Close => {
                        let _ = stream.shutdown(std::net::Shutdown::Both);
                        return;
                    }
                }
            }
            let _ = stream.write_all(b"0\r\n\r\n");
            let _ = stream.flush();
        }
    }
}
