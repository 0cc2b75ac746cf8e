//! A real MCP server for pincer's tests, built on rmcp's server side. Not part of pincer: `cargo
//! test` builds it next to the test binary (`target/debug/examples/mcp_test_server`).
//!
//! ```text
//! mcp_test_server stdio [--log FILE]          serve on stdin/stdout
//! mcp_test_server http [--json] [--log FILE]  serve Streamable HTTP at /mcp and legacy
//!                                             HTTP+SSE at /sse; prints the base URL first
//! mcp_test_server hang                        read stdin, never answer (startup timeout)
//! mcp_test_server exit                        write to stderr and exit 3 at once
//! ```
//!
//! Tools: `echo {text}`, `fail` (an `isError` result), `sleep {seconds}` (cancellable),
//! `image` (text and a PNG), `structured {a, b}` (only `structuredContent`), `crash` (the
//! process exits mid-call), `lookup {key}` (`readOnlyHint: true`), `env {name}` (a variable of
//! the server's environment), `spawn` (starts a background `sleep` and returns its pid),
//! `increment` (counts its calls in this process and returns the count: state a client keeps
//! only by keeping the server).
//! `--log FILE` appends what the tests check afterwards: `pid N`, `argv ARGS…`,
//! `cancelled ID REASON`, and for HTTP requests `uri PATH?QUERY`, `header NAME: VALUE` and
//! `session ID`.

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test helper: it reports on its streams and stops at the first surprise"
)]

use std::collections::HashMap;
use std::convert::Infallible;
use std::io::Write as _;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use http_body_util::{BodyExt as _, Full, combinators::BoxBody};
use hyper::body::{Bytes, Frame, Incoming};
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelledNotificationParam,
    ClientJsonRpcMessage, ContentBlock, Implementation, ListToolsResult, PaginatedRequestParams,
    ProtocolVersion, ServerCapabilities, ServerConfig, ServerJsonRpcMessage, Tool, ToolAnnotations,
};
use rmcp::service::{NotificationContext, RequestContext, RoleServer};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService, Transport};
use rmcp::{ErrorData, ServerHandler};
use serde_json::{Value, json};
use tokio::sync::mpsc;

/// A 1×1 red PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/// Appends lines to the `--log` file, if any.
#[derive(Clone, Default)]
struct Log(Option<Arc<Mutex<std::fs::File>>>);

impl Log {
    fn open(path: Option<&str>) -> Log {
        Log(path.map(|path| {
            let file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .unwrap();
            Arc::new(Mutex::new(file))
        }))
    }

    fn line(&self, text: &str) {
        if let Some(file) = &self.0 {
            let mut file = file.lock().unwrap();
            writeln!(file, "{text}").unwrap();
            file.flush().unwrap();
        }
    }
}

#[derive(Clone)]
struct TestServer {
    log: Log,
    /// `increment`'s calls so far.
    count: Arc<AtomicU64>,
}

fn schema(value: Value) -> Arc<serde_json::Map<String, Value>> {
    Arc::new(value.as_object().cloned().unwrap())
}

fn tools() -> Vec<Tool> {
    let string = |name: &str| {
        schema(
            json!({"type": "object", "properties": {name: {"type": "string"}}, "required": [name]}),
        )
    };
    vec![
        Tool::new("echo", "Echo the text back.", string("text")),
        Tool::new(
            "fail",
            "Fail with an error result.",
            schema(json!({"type": "object"})),
        ),
        Tool::new(
            "sleep",
            "Sleep for some seconds.",
            schema(json!({"type": "object", "properties": {"seconds": {"type": "number"}}})),
        ),
        Tool::new(
            "image",
            "Return a tiny image.",
            schema(json!({"type": "object"})),
        ),
        Tool::new(
            "structured",
            "Add two numbers, as structured content.",
            schema(
                json!({"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}}),
            ),
        ),
        Tool::new(
            "crash",
            "Exit in the middle of the call.",
            schema(json!({"type": "object"})),
        ),
        Tool::new("lookup", "Look a key up, changing nothing.", string("key"))
            .annotate(ToolAnnotations::new().read_only(true)),
        Tool::new("env", "Return an environment variable.", string("name")),
        Tool::new(
            "spawn",
            "Start a background process.",
            schema(json!({"type": "object"})),
        ),
        Tool::new(
            "increment",
            "Add one to this server's counter and return it.",
            schema(json!({"type": "object"})),
        ),
    ]
}

fn text(text: impl Into<String>) -> Result<CallToolResponse, ErrorData> {
    Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
}

impl ServerHandler for TestServer {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
        info.protocol_version = ProtocolVersion::V_2025_06_18;
        info.server_info = Implementation::new("pincer-test-server", "1.0.0");
        info
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = request.arguments.unwrap_or_default();
        let argument = |name: &str| arguments.get(name).cloned().unwrap_or(Value::Null);
        match request.name.as_ref() {
            "echo" => text(format!("echo: {}", argument("text").as_str().unwrap_or(""))),
            "fail" => Ok(CallToolResult::error(vec![ContentBlock::text(
                "the tool failed on purpose",
            )])
            .into()),
            "sleep" => {
                let seconds = argument("seconds").as_f64().unwrap_or(30.0);
                self.log.line("sleep started");
                tokio::select! {
                    () = tokio::time::sleep(Duration::from_secs_f64(seconds)) => text("slept"),
                    () = context.ct.cancelled() => {
                        self.log.line("sleep interrupted");
                        text("interrupted")
                    }
                }
            }
            "image" => Ok(CallToolResult::success(vec![
                ContentBlock::text("a red pixel"),
                ContentBlock::image(PNG, "image/png"),
            ])
            .into()),
            "structured" => {
                let sum =
                    argument("a").as_f64().unwrap_or(0.0) + argument("b").as_f64().unwrap_or(0.0);
                let mut result = CallToolResult::success(vec![]);
                result.structured_content = Some(json!({"sum": sum}));
                Ok(result.into())
            }
            "crash" => {
                eprintln!("crashing now, in the middle of a call");
                std::process::exit(3);
            }
            "lookup" => text(format!(
                "looked up {}",
                argument("key").as_str().unwrap_or("")
            )),
            "env" => {
                let name = argument("name");
                let name = name.as_str().unwrap_or("");
                text(std::env::var(name).unwrap_or_else(|_| "(unset)".to_owned()))
            }
            "spawn" => {
                let child = std::process::Command::new("sleep")
                    .arg("1000")
                    .stdin(std::process::Stdio::null())
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::null())
                    .spawn()
                    .unwrap();
                let pid = child.id();
                self.log.line(&format!("grandchild {pid}"));
                // Left running on purpose: the test checks that stopping the server's group ends it.
                std::mem::forget(child);
                text(pid.to_string())
            }
            "increment" => {
                let count = self.count.fetch_add(1, Ordering::SeqCst) + 1;
                self.log.line(&format!("increment {count}"));
                text(format!("count {count}"))
            }
            other => Err(ErrorData::invalid_params(format!("no tool {other}"), None)),
        }
    }

    async fn on_cancelled(
        &self,
        notification: CancelledNotificationParam,
        _context: NotificationContext<RoleServer>,
    ) {
        let id = notification
            .request_id
            .map(|id| id.to_string())
            .unwrap_or_default();
        self.log.line(&format!(
            "cancelled {id} {}",
            notification.reason.unwrap_or_default()
        ));
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| args.iter().any(|arg| arg == name);
    let value = |name: &str| {
        args.iter()
            .position(|arg| arg == name)
            .and_then(|index| args.get(index + 1))
            .map(String::as_str)
    };
    let log = Log::open(value("--log"));
    log.line(&format!("pid {}", std::process::id()));
    log.line(&format!("argv {}", args.join(" ")));
    let server = TestServer {
        log: log.clone(),
        count: Arc::default(),
    };
    match args.first().map(String::as_str) {
        Some("stdio") => {
            eprintln!("test server ready on stdio");
            let running = rmcp::serve_server(server, rmcp::transport::stdio())
                .await
                .unwrap();
            let _ = running.waiting().await;
            log.line("stdin closed");
        }
        Some("http") => serve_http(server, flag("--json"), log).await,
        Some("hang") => {
            eprintln!("reading stdin, answering nothing");
            let mut sink = Vec::new();
            let _ = tokio::io::AsyncReadExt::read_to_end(&mut tokio::io::stdin(), &mut sink).await;
            // Still not answering: only a signal ends this.
            std::future::pending::<()>().await;
        }
        Some("exit") => {
            eprintln!("fatal: the test server was told to fail at startup");
            std::process::exit(3);
        }
        _ => {
            eprintln!("usage: mcp_test_server stdio|http [--json]|hang|exit [--log FILE]");
            std::process::exit(2);
        }
    }
}

type Body = BoxBody<Bytes, Infallible>;

/// Legacy SSE sessions: id → where POSTed messages go.
type Sessions = Arc<Mutex<HashMap<String, mpsc::Sender<ClientJsonRpcMessage>>>>;

async fn serve_http(server: TestServer, json_response: bool, log: Log) {
    let config = if json_response {
        StreamableHttpServerConfig::default()
            .with_legacy_session_mode(false)
            .with_json_response(true)
    } else {
        StreamableHttpServerConfig::default()
    };
    let handler = server.clone();
    let service: StreamableHttpService<TestServer, LocalSessionManager> =
        StreamableHttpService::new(
            move || Ok(handler.clone()),
            Arc::new(LocalSessionManager::default()),
            config,
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    println!("http://{}", listener.local_addr().unwrap());
    std::io::stdout().flush().unwrap();
    let sessions: Sessions = Arc::default();
    let counter = Arc::new(AtomicU64::new(0));
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let service = service.clone();
        let (server, log, sessions, counter) = (
            server.clone(),
            log.clone(),
            sessions.clone(),
            counter.clone(),
        );
        tokio::spawn(async move {
            let handle = hyper::service::service_fn(move |request: Request<Incoming>| {
                let (service, server, log, sessions, counter) = (
                    service.clone(),
                    server.clone(),
                    log.clone(),
                    sessions.clone(),
                    counter.clone(),
                );
                async move {
                    log.line(&format!("uri {}", request.uri()));
                    for name in ["authorization", "x-team", "mcp-session-id"] {
                        if let Some(value) = request.headers().get(name) {
                            log.line(&format!("header {name}: {}", value.to_str().unwrap_or("?")));
                        }
                    }
                    let path = request.uri().path().to_owned();
                    let response: Response<Body> = if path.starts_with("/mcp") {
                        service.handle(request).await
                    } else if path == "/sse" {
                        open_sse(server, &sessions, &counter)
                    } else if path == "/messages" {
                        post_message(request, &sessions).await
                    } else {
                        status(404)
                    };
                    Ok::<_, Infallible>(response)
                }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), handle)
                .await;
        });
    }
}

fn status(code: u16) -> Response<Body> {
    Response::builder()
        .status(code)
        .body(Full::new(Bytes::new()).boxed())
        .unwrap()
}

/// `GET /sse`: a new session whose first event names its POST endpoint.
fn open_sse(server: TestServer, sessions: &Sessions, counter: &AtomicU64) -> Response<Body> {
    let id = counter.fetch_add(1, Ordering::SeqCst).to_string();
    let (events, body) = mpsc::channel::<Bytes>(64);
    let (incoming_sender, incoming) = mpsc::channel(64);
    sessions.lock().unwrap().insert(id.clone(), incoming_sender);
    let endpoint = format!("event: endpoint\ndata: /messages?sessionId={id}\n\n");
    events.try_send(Bytes::from(endpoint)).unwrap();
    tokio::spawn(async move {
        let transport = SessionTransport { events, incoming };
        if let Ok(running) = rmcp::serve_server(server, transport).await {
            let _ = running.waiting().await;
        }
    });
    Response::builder()
        .header("content-type", "text/event-stream")
        .header("cache-control", "no-cache")
        .body(SseBody(body).boxed())
        .unwrap()
}

/// `POST /messages?sessionId=ID`: one client message for that session.
async fn post_message(request: Request<Incoming>, sessions: &Sessions) -> Response<Body> {
    let id = request
        .uri()
        .query()
        .and_then(|query| query.strip_prefix("sessionId="))
        .unwrap_or_default()
        .to_owned();
    let Some(sender) = sessions.lock().unwrap().get(&id).cloned() else {
        return status(404);
    };
    let bytes = request.into_body().collect().await.unwrap().to_bytes();
    let Ok(message) = serde_json::from_slice::<ClientJsonRpcMessage>(&bytes) else {
        return status(400);
    };
    let _ = sender.send(message).await;
    status(202)
}

/// The event stream of one legacy session.
struct SseBody(mpsc::Receiver<Bytes>);

impl hyper::body::Body for SseBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        self.0
            .poll_recv(context)
            .map(|chunk| chunk.map(|bytes| Ok(Frame::data(bytes))))
    }
}

/// rmcp's server over one legacy session: messages out as `message` events, in from POSTs.
struct SessionTransport {
    events: mpsc::Sender<Bytes>,
    incoming: mpsc::Receiver<ClientJsonRpcMessage>,
}

impl Transport<RoleServer> for SessionTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), std::io::Error>> + Send + 'static {
        let events = self.events.clone();
        async move {
            let data = serde_json::to_string(&item).map_err(std::io::Error::other)?;
            events
                .send(Bytes::from(format!("event: message\ndata: {data}\n\n")))
                .await
                .map_err(|_| std::io::Error::other("the event stream is closed"))
        }
    }

    fn receive(&mut self) -> impl Future<Output = Option<ClientJsonRpcMessage>> + Send {
        self.incoming.recv()
    }

    async fn close(&mut self) -> Result<(), std::io::Error> {
        Ok(())
    }
}
