//! pincer as an MCP client (SPEC §13): the tools of Model Context Protocol servers, offered next
//! to the built-in tools and called like them.
//!
//! The seam the turn uses is narrow:
//! - [`config::resolve`] merges `config.toml`'s `[mcp_servers]`, a workspace `.mcp.json` (only
//!   with `mcp.load_workspace = true`) and each `--mcp-config` into an [`McpConfig`]; a bad
//!   declaration is an [`McpConfigError`] naming the server and key (exit 2).
//! - [`McpSet::start`] starts every enabled server concurrently, each within its
//!   `startup_timeout`, and never fails: each server gets a [`ServerStatus`] (connected or
//!   failed, with the error and the server's stderr tail). [`McpSet::required_failure`] says
//!   whether a `required` server failed, which must end the run before any model request.
//! - [`McpSet::tool_definitions`] are the tools to offer, named `mcp__SERVER__TOOL` (cut to
//!   64 characters of `[a-zA-Z0-9_-]`, see [`names`]); [`McpSet::tools`] describes them for the
//!   tool policy (server, `readOnlyHint`).
//! - [`McpSet::call`] runs one call by its offered name and returns the same [`ToolOutput`] as
//!   the built-in tools: errors are error results, never a failed turn. It honours the
//!   server's `tool_timeout` and the cancellation token, and sends `notifications/cancelled`
//!   when it gives up on a call.
//! - [`McpSet::statuses`] feeds the `system/init` event and `status --mcp`.
//! - [`McpSet::shutdown`] closes every connection and stops every stdio server's process group
//!   (stdin closed, then SIGTERM and SIGKILL after a grace period). Dropping the set without it
//!   kills the groups at once, so no exit path leaves a server running.
//!
//! The protocol is rmcp's (the official Rust SDK): its client over the child's stdio, its
//! Streamable HTTP client (JSON and SSE replies, `Mcp-Session-Id`), and for the legacy
//! HTTP+SSE transport, which rmcp no longer ships, a small framing layer of pincer's own
//! ([`legacy_sse`]) under rmcp's client; an agent SDK's in-process server is reached over the
//! control channel (`sdk`). Nothing here prints: a server's stderr lines go to a
//! callback the caller provides (`-v` shows them).

pub mod approvals;
pub mod config;
pub mod legacy_sse;
pub mod names;
mod result;
mod sdk;
mod stdio;

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use reqwest::header::{HeaderName, HeaderValue};
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelledNotificationParam, ClientCapabilities,
    ClientConfig, ClientRequest, Implementation, ProtocolVersion, ServerResult, Tool,
};
use rmcp::service::{PeerRequestOptions, RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{Peer, ServiceError};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

pub use config::{McpConfig, McpConfigError, ServerSpec, TransportSpec};
pub use stdio::{ServerNetwork, StderrSink};

/// One offered MCP tool: the policy's description of it.
pub use crate::tools::policy::McpTool;

use crate::conversation::ToolDefinition;
use crate::tools::ToolOutput;
use names::NameTable;
use stdio::{ProcessWatch, StdioProcess};

/// How long a stopping server gets after its stdin closes, and again after SIGTERM.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(1);

/// What starting a server needs from the run.
#[derive(Clone)]
pub struct StartContext {
    /// The workspace: stdio servers start there (their `cwd` is relative to it).
    pub workspace: PathBuf,
    /// pincer's own environment, which a stdio server's is built from.
    pub environment: Arc<Vec<(OsString, OsString)>>,
    /// Variables removed from a stdio server's environment by name (`[tools.exec] clear_env`:
    /// the credential variables).
    pub clear_env: Vec<String>,
    /// Keys the run holds: a variable holding one is removed whatever its name.
    pub secrets: Vec<String>,
    /// The HTTP client for the HTTP transports.
    pub http: reqwest::Client,
    /// Receives every line a stdio server writes to stderr, with the server's name.
    pub on_stderr: Option<StderrSink>,
    /// The trace context a stdio server continues: the span that starts it (SPEC §17).
    pub trace: crate::trace::ChildTrace,
    /// The agent SDK's control channel, when one drives the run: its in-process servers
    /// (`"type": "sdk"`) are reached over it.
    pub sdk_channel: Option<Arc<crate::control::Channel>>,
    /// Cancelled on SIGINT/SIGTERM/timeout: startup gives up at once.
    pub cancel: CancellationToken,
    /// The network rules in force (SPEC §20), when the user set any and the network is not
    /// open whole: each stdio server runs in a network namespace of its own and reaches only
    /// the hosts they allow, through the run's egress proxy; its files stay its own.
    pub network: Option<ServerNetwork>,
}

impl std::fmt::Debug for StartContext {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("StartContext")
            .field("workspace", &self.workspace)
            .field("clear_env", &self.clear_env)
            .finish_non_exhaustive()
    }
}

/// Whether a server is usable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerState {
    /// Initialized, tools listed.
    Connected,
    /// Did not start, or not in time.
    Failed,
}

impl ServerState {
    /// `connected` / `failed`, as claude's init event says it.
    pub fn as_str(self) -> &'static str {
        match self {
            ServerState::Connected => "connected",
            ServerState::Failed => "failed",
        }
    }
}

/// What became of one server.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerStatus {
    /// Its name.
    pub name: String,
    /// Connected or failed.
    pub state: ServerState,
    /// `stdio`, `http` or `sse`.
    pub transport: &'static str,
    /// Declared `required`.
    pub required: bool,
    /// Its offered tools (after `enabled_tools` / `disabled_tools`).
    pub tools: Vec<McpTool>,
    /// How many tools the server listed, offered or not.
    pub listed_tools: usize,
    /// Why it failed.
    pub error: Option<String>,
    /// What kind of failure that was.
    pub error_class: Option<StartErrorClass>,
    /// When starting began (wall clock, for its telemetry span).
    pub started_at: std::time::SystemTime,
    /// The last lines of its stderr (stdio).
    pub stderr_tail: Vec<String>,
    /// The server's own name and version, from `initialize`.
    pub server_info: Option<String>,
    /// How long starting took.
    pub startup: Duration,
    /// The process id (stdio).
    pub pid: Option<i32>,
}

impl ServerStatus {}

/// The running servers of one run.
#[derive(Default)]
pub struct McpSet {
    servers: Vec<Server>,
    table: NameTable<(usize, String)>,
    definitions: Vec<ToolDefinition>,
}

impl std::fmt::Debug for McpSet {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("McpSet")
            .field(
                "servers",
                &self
                    .servers
                    .iter()
                    .map(|s| &s.status.name)
                    .collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

/// One server: what it is, what became of it, and its connection while it lasts.
struct Server {
    spec: ServerSpec,
    status: ServerStatus,
    /// For calls (cloned per call); `None` when it failed to start.
    peer: Option<Peer<RoleClient>>,
    /// Exit status and stderr of a stdio server, readable while it runs.
    watch: Option<ProcessWatch>,
    /// The tools it listed, until [`McpSet::start`] names them.
    listed: Option<Vec<Tool>>,
    /// Tokens and other secret values its configuration holds.
    secrets: Vec<String>,
    /// Taken by `shutdown`.
    running: Mutex<Option<Running>>,
}

/// What `shutdown` stops.
struct Running {
    service: RunningService<RoleClient, ClientConfig>,
    process: Option<StdioProcess>,
}

/// What connecting produced.
struct Connected {
    service: RunningService<RoleClient, ClientConfig>,
    tools: Vec<Tool>,
}

/// A failure to start, with the process (if one started) for its stderr and exit status.
struct StartFailure {
    class: StartErrorClass,
    message: String,
}

/// What kind of failure kept a server from starting: a closed set, safe to export (the message
/// may hold paths, URLs or the server's own words; the class never does).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StartErrorClass {
    /// The declaration was refused (a key variable in its environment).
    Refused,
    /// Its declaration cannot be used: a cwd that is no directory, an unset token variable, a
    /// bad header.
    Configuration,
    /// The process could not be started, or the server not reached.
    Connect,
    /// The `initialize` handshake failed.
    Initialize,
    /// `tools/list` failed.
    ToolsList,
    /// It did not start within its startup timeout.
    Timeout,
    /// The run was cancelled while it started.
    Interrupted,
}

impl StartErrorClass {
    pub fn as_str(self) -> &'static str {
        match self {
            StartErrorClass::Refused => "refused",
            StartErrorClass::Configuration => "configuration",
            StartErrorClass::Connect => "connect",
            StartErrorClass::Initialize => "initialize",
            StartErrorClass::ToolsList => "tools_list",
            StartErrorClass::Timeout => "timeout",
            StartErrorClass::Interrupted => "interrupted",
        }
    }
}

impl McpSet {
    /// A set without servers.
    pub fn empty() -> McpSet {
        McpSet::default()
    }

    /// Start every enabled server of `config` concurrently. Never fails: a server that does not
    /// start is [`ServerState::Failed`] with the reason.
    pub async fn start(config: &McpConfig, context: &StartContext) -> McpSet {
        let mut handles = Vec::new();
        for spec in config.enabled() {
            let spec = spec.clone();
            let context = context.clone();
            handles.push(tokio::spawn(async move { start_one(spec, &context).await }));
        }
        let mut servers = Vec::new();
        let mut abort_guard = AbortOnDrop(handles.iter().map(|h| h.abort_handle()).collect());
        for handle in handles {
            if let Ok(server) = handle.await {
                servers.push(server);
            }
        }
        abort_guard.0.clear();
        let mut set = McpSet {
            servers,
            table: NameTable::new(),
            definitions: Vec::new(),
        };
        set.assign_names();
        set
    }

    /// Name the tools of every connected server, in declaration order.
    fn assign_names(&mut self) {
        let mut table = NameTable::new();
        let mut definitions = Vec::new();
        for (index, server) in self.servers.iter_mut().enumerate() {
            let Some(listed) = server.listed.take() else {
                continue;
            };
            server.status.listed_tools = listed.len();
            for tool in listed {
                if !server.spec.offers(&tool.name) {
                    continue;
                }
                let name = table.assign(
                    &server.spec.name,
                    &tool.name,
                    (index, tool.name.to_string()),
                );
                definitions.push(definition(&name, &server.spec.name, &tool));
                server.status.tools.push(McpTool {
                    name,
                    server: server.spec.name.clone(),
                    tool: tool.name.to_string(),
                    read_only: tool
                        .annotations
                        .as_ref()
                        .and_then(|annotations| annotations.read_only_hint)
                        .unwrap_or(false),
                });
            }
        }
        self.table = table;
        self.definitions = definitions;
    }

    /// The first `required` server that failed, if any.
    pub fn required_failure(&self) -> Option<&ServerStatus> {
        self.servers
            .iter()
            .map(|server| &server.status)
            .find(|status| status.required && status.state == ServerState::Failed)
    }

    /// The tools to offer, with the servers' descriptions and input schemas.
    pub fn tool_definitions(&self) -> Vec<ToolDefinition> {
        self.definitions.clone()
    }

    /// The offered tools, for the policy.
    pub fn tools(&self) -> Vec<McpTool> {
        self.servers
            .iter()
            .flat_map(|server| server.status.tools.iter().cloned())
            .collect()
    }

    /// The secret values the servers were configured with (bearer tokens, credential-looking
    /// headers and `env` entries): the turn redacts them from tool results like its own keys.
    pub fn secrets(&self) -> Vec<String> {
        self.servers
            .iter()
            .flat_map(|server| server.secrets.iter().cloned())
            .collect()
    }

    /// Whether `name` is an offered MCP tool.
    pub fn has_tool(&self, name: &str) -> bool {
        self.table.get(name).is_some()
    }

    /// Every server's status, stderr tails as of now.
    pub fn statuses(&self) -> Vec<ServerStatus> {
        self.servers
            .iter()
            .map(|server| {
                let mut status = server.status.clone();
                if let Some(watch) = &server.watch {
                    status.stderr_tail = watch.stderr_tail();
                }
                status
            })
            .collect()
    }

    /// Call the tool offered as `name`. Never fails: an unknown tool, a dead server, a timeout
    /// or a cancellation is an error result saying so. A long text answer is shortened, the
    /// whole of it in a file of `temp_dir` (the run's private temp dir).
    pub async fn call(
        &self,
        name: &str,
        arguments: &Value,
        cancel: &CancellationToken,
        temp_dir: Option<&std::path::Path>,
    ) -> ToolOutput {
        let Some((index, tool)) = self.table.get(name) else {
            return ToolOutput::error(format!("Unknown tool: {name}"));
        };
        let server = &self.servers[*index];
        let server_name = &server.spec.name;
        let Some(peer) = &server.peer else {
            return ToolOutput::error(format!("The MCP server '{server_name}' is not running."));
        };
        if peer.is_transport_closed() {
            return ToolOutput::error(server.gone_message("is no longer running"));
        }
        let arguments = match arguments {
            Value::Object(map) => Some(map.clone()),
            Value::Null => None,
            _ => {
                return ToolOutput::error("Tool arguments must be a JSON object".to_owned());
            }
        };
        let mut params = CallToolRequestParams::new(tool.clone());
        params.arguments = arguments;
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let handle = match peer
            .send_request_with_option(request, PeerRequestOptions::no_options())
            .await
        {
            Ok(handle) => handle,
            Err(error) => return ToolOutput::error(server.call_error(&error)),
        };
        let id = handle.id.clone();
        let timeout = server.spec.tool_timeout;
        let reason = tokio::select! {
            response = handle.await_response() => {
                return match response {
                    Ok(ServerResult::CallToolResult(result)) => {
                        // Long text goes to a file of the run's private temp dir, as exec's.
                        crate::tools::shorten_long_text(
                            result::tool_output(server_name, tool, result),
                            "mcp",
                            temp_dir,
                        )
                    }
                    Ok(_) => ToolOutput::error(format!(
                        "The MCP server '{server_name}' answered the call of {tool} with something \
                         other than a tool result."
                    )),
                    Err(error) => ToolOutput::error(server.call_error(&error)),
                };
            }
            () = tokio::time::sleep(timeout) => format!(
                "timed out after {} (tool_timeout_sec of server '{server_name}')",
                seconds_text(timeout)
            ),
            () = cancel.cancelled() => "the turn was interrupted".to_owned(),
        };
        // The request is abandoned: tell the server, so it can stop working on it.
        let _ = peer
            .notify_cancelled(CancelledNotificationParam::new(
                Some(id),
                Some(reason.clone()),
            ))
            .await;
        ToolOutput::error(format!(
            "The call of {tool} on MCP server '{server_name}' {reason}."
        ))
    }

    /// Close every connection and stop every stdio server's process group. Servers are stopped
    /// concurrently; each gets [`SHUTDOWN_GRACE`] after its stdin closes and again after
    /// SIGTERM.
    pub async fn shutdown(&self) {
        let mut stopping = Vec::new();
        for server in &self.servers {
            let running = server
                .running
                .lock()
                .ok()
                .and_then(|mut running| running.take());
            if let Some(running) = running {
                stopping.push(tokio::spawn(stop(running)));
            }
        }
        for handle in stopping {
            let _ = handle.await;
        }
    }
}

/// Aborts the start tasks when the start itself is dropped (a signal during startup).
struct AbortOnDrop(Vec<tokio::task::AbortHandle>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        for handle in &self.0 {
            handle.abort();
        }
    }
}

async fn stop(running: Running) {
    let Running {
        mut service,
        process,
    } = running;
    // Closing the service drops the transport: a stdio server's stdin closes, an HTTP session
    // ends.
    let _ = tokio::time::timeout(SHUTDOWN_GRACE, service.close()).await;
    drop(service);
    if let Some(mut process) = process {
        process.stop(SHUTDOWN_GRACE).await;
    }
}

impl Server {
    fn call_error(&self, error: &ServiceError) -> String {
        match error {
            ServiceError::TransportClosed | ServiceError::TransportSend(_) => {
                self.gone_message("closed the connection during the call")
            }
            ServiceError::McpError(data) => format!(
                "The MCP server '{}' refused the call: {} (code {})",
                self.spec.name, data.message, data.code.0
            ),
            other => format!(
                "The call to MCP server '{}' failed: {other}",
                self.spec.name
            ),
        }
    }

    /// "The MCP server 'x' {what}", with its exit status and last stderr lines when known.
    fn gone_message(&self, what: &str) -> String {
        let mut message = format!("The MCP server '{}' {what}", self.spec.name);
        if let Some(watch) = &self.watch {
            if let Some(status) = watch.exit_status() {
                message.push_str(&format!("; it exited ({status})"));
            }
            let tail = watch.stderr_tail();
            if !tail.is_empty() {
                let last: Vec<&str> = tail
                    .iter()
                    .rev()
                    .take(5)
                    .rev()
                    .map(String::as_str)
                    .collect();
                message.push_str(&format!(". Its last stderr lines:\n{}", last.join("\n")));
            }
        }
        message.push('.');
        message
    }
}

fn seconds_text(duration: Duration) -> String {
    let seconds = duration.as_secs_f64();
    if seconds.fract() == 0.0 {
        format!("{seconds:.0} s")
    } else {
        format!("{seconds} s")
    }
}

/// The definition offered for `tool` of `server` under `name`.
fn definition(name: &str, server: &str, tool: &Tool) -> ToolDefinition {
    let description = tool
        .description
        .as_deref()
        .map(str::to_owned)
        .or_else(|| tool.title.clone())
        .unwrap_or_else(|| format!("The {} tool of MCP server {server}.", tool.name));
    let mut parameters = tool.input_schema.as_ref().clone();
    parameters
        .entry("type")
        .or_insert_with(|| Value::String("object".to_owned()));
    if parameters.get("type").and_then(Value::as_str) == Some("object") {
        parameters
            .entry("properties")
            .or_insert_with(|| Value::Object(serde_json::Map::new()));
    }
    ToolDefinition {
        name: name.to_owned(),
        description,
        parameters: Value::Object(parameters),
    }
}

/// pincer as the MCP client it introduces itself as.
fn client_info() -> ClientConfig {
    ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("pincer", env!("CARGO_PKG_VERSION")),
    )
    .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
}

/// For a server started through a package runner (`npx -y pkg`, `uvx pkg`, `pnpm dlx`,
/// `bunx`): its first start downloads the package, which can take longer than the timeout.
fn first_start_note(transport: &TransportSpec) -> &'static str {
    let TransportSpec::Stdio { command, args, .. } = transport else {
        return "";
    };
    let program = Path::new(command)
        .file_name()
        .and_then(|name| name.to_str())
        .unwrap_or(command);
    let runner = matches!(program, "npx" | "uvx" | "bunx" | "pipx")
        || (program == "pnpm" && args.first().is_some_and(|arg| arg == "dlx"));
    if runner {
        "; a package runner's first start downloads the server: run the command once by hand, \
         or raise startup_timeout_sec"
    } else {
        ""
    }
}

/// Start one server, bounded by its startup timeout and the run's cancellation.
async fn start_one(spec: ServerSpec, context: &StartContext) -> Server {
    let started = Instant::now();
    let started_at = std::time::SystemTime::now();
    let mut process: Option<StdioProcess> = None;
    let outcome = tokio::select! {
        outcome = tokio::time::timeout(spec.startup_timeout, connect(&spec, context, &mut process)) => {
            match outcome {
                Ok(outcome) => outcome,
                Err(_) => Err(StartFailure {
                    class: StartErrorClass::Timeout,
                    message: format!(
                        "did not start within {} (startup_timeout_sec){}",
                        seconds_text(spec.startup_timeout),
                        first_start_note(&spec.transport)
                    ),
                }),
            }
        }
        () = context.cancel.cancelled() => Err(StartFailure {
            class: StartErrorClass::Interrupted,
            message: "startup was interrupted".to_owned(),
        }),
    };
    let watch = process.as_ref().map(StdioProcess::watch);
    let secrets = secrets_of(&spec, context);
    let mut status = ServerStatus {
        name: spec.name.clone(),
        state: ServerState::Failed,
        transport: spec.transport.kind(),
        required: spec.required,
        tools: Vec::new(),
        listed_tools: 0,
        error: None,
        error_class: None,
        started_at,
        stderr_tail: Vec::new(),
        server_info: None,
        startup: started.elapsed(),
        pid: process.as_ref().map(StdioProcess::pid),
    };
    match outcome {
        Ok(connected) => {
            status.state = ServerState::Connected;
            status.server_info = connected.service.peer().peer_info().and_then(|info| {
                info.server_info
                    .as_ref()
                    .map(|server| format!("{} {}", server.name, server.version))
            });
            let peer = connected.service.peer().clone();
            Server {
                spec,
                status,
                peer: Some(peer),
                watch,
                listed: Some(connected.tools),
                secrets,
                running: Mutex::new(Some(Running {
                    service: connected.service,
                    process,
                })),
            }
        }
        Err(failure) => {
            let class = failure.class;
            let mut message = failure.message;
            if let Some(process) = &mut process {
                // A server that died gets a moment to be reaped, so its exit status is known.
                process.wait_exit(Duration::from_millis(50)).await;
                if let Some(exit) = process.exit_status() {
                    message = after_exit(class, message, exit);
                }
                process.stop(Duration::ZERO).await;
                status.stderr_tail = process.stderr_tail();
            }
            status.error = Some(message);
            status.error_class = Some(class);
            Server {
                spec,
                status,
                peer: None,
                watch,
                listed: None,
                secrets,
                running: Mutex::new(None),
            }
        }
    }
}

/// Connect and list the tools. A stdio server's process is left in `process` as soon as it
/// exists, so that a timeout still finds it to stop.
async fn connect(
    spec: &ServerSpec,
    context: &StartContext,
    process: &mut Option<StdioProcess>,
) -> Result<Connected, StartFailure> {
    let fail = |class, message: String| StartFailure { class, message };
    let failed = |class, error: &dyn std::fmt::Display| StartFailure {
        class,
        message: error.to_string(),
    };
    if let Some(reason) = &spec.refused {
        return Err(fail(StartErrorClass::Refused, reason.clone()));
    }
    let service = match &spec.transport {
        TransportSpec::Stdio {
            command,
            args,
            env,
            env_vars,
            cwd,
        } => {
            let directory = match cwd {
                Some(cwd) => context.workspace.join(cwd),
                None => context.workspace.clone(),
            };
            if !directory.is_dir() {
                return Err(fail(
                    StartErrorClass::Configuration,
                    format!("its cwd '{}' is not a directory", directory.display()),
                ));
            }
            let environment = stdio::environment(
                &context.environment,
                &context.clear_env,
                &context.secrets,
                env_vars,
                env,
            );
            let (started, stdout, stdin) = StdioProcess::spawn(stdio::Launch {
                server: &spec.name,
                command,
                args,
                directory: &directory,
                environment,
                on_stderr: context.on_stderr.clone(),
                trace: &context.trace,
                network: context.network.as_ref(),
            })
            .map_err(|error| failed(StartErrorClass::Connect, &error))?;
            *process = Some(started);
            initialize((stdout, stdin)).await?
        }
        TransportSpec::Http {
            url,
            bearer_token_env_var,
            headers,
            env_headers,
        } => {
            let token = bearer_token(bearer_token_env_var.as_deref(), context)?;
            let mut custom: HashMap<HeaderName, HeaderValue> = HashMap::new();
            for (name, value) in
                legacy_sse::header_map(&all_headers(headers, env_headers, context), None)
                    .map_err(|error| failed(StartErrorClass::Configuration, &error))?
            {
                if let Some(name) = name {
                    custom.insert(name, value);
                }
            }
            let mut config =
                StreamableHttpClientTransportConfig::with_uri(url.as_str()).custom_headers(custom);
            if let Some(token) = token {
                config = config.auth_header(token);
            }
            let transport =
                StreamableHttpClientTransport::with_client(context.http.clone(), config);
            initialize(transport).await?
        }
        TransportSpec::Sse {
            url,
            bearer_token_env_var,
            headers,
            env_headers,
        } => {
            let token = bearer_token(bearer_token_env_var.as_deref(), context)?;
            let headers = legacy_sse::header_map(
                &all_headers(headers, env_headers, context),
                token.as_deref(),
            )
            .map_err(|error| failed(StartErrorClass::Configuration, &error))?;
            let transport = legacy_sse::LegacySse::connect(context.http.clone(), url, headers)
                .await
                .map_err(|error| failed(StartErrorClass::Connect, &error))?;
            initialize(transport).await?
        }
        TransportSpec::Sdk { server } => {
            initialize(
                sdk::SdkServer::open(server, context.sdk_channel.clone())
                    .map_err(|error| failed(StartErrorClass::Connect, &error))?,
            )
            .await?
        }
    };
    let tools = service.peer().list_all_tools().await.map_err(|error| {
        fail(
            StartErrorClass::ToolsList,
            format!("tools/list failed: {error}"),
        )
    })?;
    Ok(Connected { service, tools })
}

/// The `initialize` handshake over `transport`.
async fn initialize<T, E, A>(
    transport: T,
) -> Result<RunningService<RoleClient, ClientConfig>, StartFailure>
where
    T: rmcp::transport::IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    rmcp::serve_client(client_info(), transport)
        .await
        .map_err(|error| StartFailure {
            class: StartErrorClass::Initialize,
            message: initialize_failure(error),
        })
}

/// What a failed `initialize` says.
fn initialize_failure(error: rmcp::service::ClientInitializeError) -> String {
    match error {
        // rmcp names the transport by its Rust type; the cause is what matters.
        rmcp::service::ClientInitializeError::TransportError { error, context } => {
            format!(
                "initialize failed ({context}): {}",
                error_chain(&*error.error)
            )
        }
        other => format!("initialize failed: {other}"),
    }
}

/// What a failed start of a stdio server says once the server is known to have exited. Its
/// exit during `initialize` is the event: whether pincer's write of the request or its read of
/// the answer noticed first (a broken pipe, a closed connection) is timing, so that part is said
/// one way.
fn after_exit(class: StartErrorClass, message: String, exit: impl std::fmt::Display) -> String {
    let said = match class {
        StartErrorClass::Initialize => "initialize failed: the server closed the connection".into(),
        _ => message,
    };
    format!("{said}; the server exited ({exit})")
}

/// An error and its sources, joined with `: ` (reqwest's "error sending request" says why only
/// in its source).
fn error_chain(error: &(dyn std::error::Error + 'static)) -> String {
    use rmcp::transport::streamable_http_client::StreamableHttpError;
    // rmcp's HTTP client error keeps reqwest's error without naming it as its source.
    if let Some(StreamableHttpError::Client(inner)) =
        error.downcast_ref::<StreamableHttpError<reqwest::Error>>()
    {
        return error_chain(inner);
    }
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// Values shorter than this are not treated as secrets (they would match everywhere).
const MIN_SECRET_CHARS: usize = 8;

/// Whether a variable or header name suggests its value is a credential.
fn sounds_secret(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    ["token", "key", "secret", "password", "auth", "credential"]
        .iter()
        .any(|word| name.contains(word))
}

/// The secret values of one server's configuration: its bearer token, the values of its
/// `env_http_headers`, and the values of headers and `env` entries whose names sound like
/// credentials (a `Bearer ` prefix taken off too).
fn secrets_of(spec: &ServerSpec, context: &StartContext) -> Vec<String> {
    let mut secrets = Vec::new();
    let mut add = |value: &str| {
        for form in [value, value.strip_prefix("Bearer ").unwrap_or(value)] {
            let form = form.trim();
            if form.len() >= MIN_SECRET_CHARS && !secrets.iter().any(|known| known == form) {
                secrets.push(form.to_owned());
            }
        }
    };
    match &spec.transport {
        TransportSpec::Sdk { .. } => {}
        TransportSpec::Stdio { env, env_vars, .. } => {
            for (name, value) in env {
                if sounds_secret(name) {
                    add(value);
                }
            }
            for name in env_vars.iter().filter(|name| sounds_secret(name)) {
                if let Some(value) = variable(context, name) {
                    add(&value);
                }
            }
        }
        TransportSpec::Http {
            bearer_token_env_var,
            headers,
            env_headers,
            ..
        }
        | TransportSpec::Sse {
            bearer_token_env_var,
            headers,
            env_headers,
            ..
        } => {
            let from_variables = bearer_token_env_var.iter().chain(env_headers.values());
            for name in from_variables {
                if let Some(value) = variable(context, name) {
                    add(&value);
                }
            }
            for (name, value) in headers {
                if sounds_secret(name) {
                    add(value);
                }
            }
        }
    }
    secrets
}

/// The value of a variable of pincer's environment.
fn variable(context: &StartContext, name: &str) -> Option<String> {
    context
        .environment
        .iter()
        .find(|(key, _)| key.as_os_str() == name)
        .map(|(_, value)| value.to_string_lossy().into_owned())
        .filter(|value| !value.is_empty())
}

fn bearer_token(
    variable_name: Option<&str>,
    context: &StartContext,
) -> Result<Option<String>, StartFailure> {
    match variable_name {
        None => Ok(None),
        Some(name) => variable(context, name)
            .map(Some)
            .ok_or_else(|| StartFailure {
                class: StartErrorClass::Configuration,
                message: format!("bearer_token_env_var names {name}, which is not set"),
            }),
    }
}

/// Literal headers plus those whose values come from variables (an unset variable leaves its
/// header out, as codex does).
fn all_headers(
    headers: &std::collections::BTreeMap<String, String>,
    env_headers: &std::collections::BTreeMap<String, String>,
    context: &StartContext,
) -> std::collections::BTreeMap<String, String> {
    let mut all = headers.clone();
    for (header, name) in env_headers {
        if let Some(value) = variable(context, name) {
            all.insert(header.clone(), value);
        }
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_gone_during_initialize_is_said_one_way_whichever_side_noticed() {
        use rmcp::service::ClientInitializeError;
        use rmcp::transport::DynamicTransportError;
        let write_failed = |kind| ClientInitializeError::TransportError {
            error: DynamicTransportError::from_parts(
                "stdio",
                std::any::TypeId::of::<()>(),
                Box::new(std::io::Error::from(kind)),
            ),
            context: "send initialize request".into(),
        };
        let said = |error| {
            after_exit(
                StartErrorClass::Initialize,
                initialize_failure(error),
                "exit status: 3",
            )
        };
        let closed = "initialize failed: the server closed the connection; the server exited (exit status: 3)";
        assert_eq!(
            said(ClientInitializeError::ConnectionClosed(
                "initialize response".into()
            )),
            closed
        );
        assert_eq!(said(write_failed(std::io::ErrorKind::BrokenPipe)), closed);
        // A server still running (any transport) keeps the cause and when it happened.
        assert_eq!(
            initialize_failure(write_failed(std::io::ErrorKind::BrokenPipe)),
            "initialize failed (send initialize request): broken pipe"
        );
        // Another step's failure keeps its own words beside the exit.
        assert_eq!(
            after_exit(
                StartErrorClass::ToolsList,
                "tools/list failed".into(),
                "signal: 9"
            ),
            "tools/list failed; the server exited (signal: 9)"
        );
    }

    #[test]
    fn a_package_runners_timeout_says_its_first_start_downloads() {
        let stdio = |command: &str, args: &[&str]| TransportSpec::Stdio {
            command: command.to_owned(),
            args: args.iter().map(|arg| (*arg).to_owned()).collect(),
            env: std::collections::BTreeMap::new(),
            env_vars: Vec::new(),
            cwd: None,
        };
        assert!(first_start_note(&stdio("npx", &["-y", "@scope/server"])).contains("downloads"));
        assert!(first_start_note(&stdio("/usr/bin/uvx", &["mcp-server-git"])).contains("once"));
        assert!(first_start_note(&stdio("pnpm", &["dlx", "server"])).contains("raise"));
        assert_eq!(first_start_note(&stdio("node", &["server.js"])), "");
    }
}
