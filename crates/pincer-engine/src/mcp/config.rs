//! Which MCP servers a run uses, merged from every place they can be declared (SPEC §13):
//! `[mcp_servers.NAME]` in `config.toml` (codex's keys, `-c` overrides included), the workspace's
//! `.mcp.json` when `mcp.load_workspace = true`, and each `--mcp-config FILE|JSON` (claude's
//! `{"mcpServers": {…}}`), later sources replacing earlier servers of the same name.
//! `--strict-mcp-config` keeps only the `--mcp-config` servers.
//!
//! Pure apart from reading the named files: the environment is a lookup function, so `${VAR}`
//! references (claude's `.mcp.json` syntax, `${VAR:-default}` too) expand without touching the
//! process. Every problem is an [`McpConfigError`] naming the server and the key, which
//! `commands/` turns into exit 2.
//!
//! A `${VAR}` naming a key variable ([`KeyVariables`]: a provider's, an `api_key_env`, one an
//! auth profile refers to) is not expanded unless `[mcp.allow_key_env]` in config.toml names
//! the server and the variable: a `.mcp.json` could otherwise send a key to any host in a URL
//! or header, or show it in `ps` through argv. Such a server keeps the reference as written
//! and is marked [`ServerSpec::refused`]: it is not started, nor handed to a CLI backend, and
//! its failure says which variable and which opt-in. codex's own keys in config.toml
//! (`bearer_token_env_var`, `env_http_headers`, `env_vars`) name their variables explicitly in
//! the user's file and are not restricted.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// How an MCP server is reached (`type`, claude's word for it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum McpTransportKind {
    /// A child process speaking JSON-RPC on stdin/stdout.
    Stdio,
    /// Streamable HTTP.
    Http,
    /// The legacy HTTP+SSE transport (protocol version 2024-11-05).
    Sse,
}

/// `[mcp_servers.NAME]`: one MCP server, with codex's keys (SPEC §13). A server has either
/// `command` (stdio) or `url` (Streamable HTTP, or legacy SSE with `type = "sse"`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct McpServerConfig {
    /// The transport. Default: `stdio` with `command`, `http` with `url`.
    #[serde(rename = "type")]
    pub transport: Option<McpTransportKind>,
    /// stdio: the program, on `PATH` or a path.
    pub command: Option<String>,
    /// stdio: its arguments. Default: none.
    #[serde(default)]
    pub args: Vec<String>,
    /// stdio: variables added to its environment (which is pincer's minus the credential
    /// variables of `[tools.exec] clear_env`). Default: none.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// stdio: variables passed on from pincer's environment by name, credential variables
    /// included. Default: none.
    #[serde(default)]
    pub env_vars: Vec<String>,
    /// stdio: its working directory, relative to the workspace. Default: the workspace.
    pub cwd: Option<String>,
    /// http/sse: the server's URL.
    pub url: Option<String>,
    /// http: the variable holding a bearer token for `Authorization`. Default: none.
    pub bearer_token_env_var: Option<String>,
    /// http/sse: headers sent with every request. Default: none.
    #[serde(default)]
    pub http_headers: BTreeMap<String, String>,
    /// http/sse: headers whose values come from the named variables. Default: none.
    #[serde(default)]
    pub env_http_headers: BTreeMap<String, String>,
    /// Seconds the server has to start and list its tools. Default: 10.
    pub startup_timeout_sec: Option<f64>,
    /// Seconds one tool call may take. Default: 60.
    pub tool_timeout_sec: Option<f64>,
    /// `false` leaves the server out. Default: true.
    pub enabled: Option<bool>,
    /// `true`: a run stops (exit 1) when the server does not start. Default: false.
    pub required: Option<bool>,
    /// Only these tools of the server are offered. Default: all.
    pub enabled_tools: Option<Vec<String>>,
    /// These tools of the server are never offered. Default: none.
    #[serde(default)]
    pub disabled_tools: Vec<String>,
}

/// `startup_timeout_sec` when not set.
pub const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(10);
/// `tool_timeout_sec` when not set.
pub const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(60);
/// The workspace file claude reads its project servers from.
pub const WORKSPACE_FILE: &str = ".mcp.json";

/// The servers of one run, merged and resolved.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct McpConfig {
    /// In declaration order; names are unique.
    pub servers: Vec<ServerSpec>,
    /// `--strict-mcp-config` was given (passed on to `claude`).
    pub strict: bool,
    /// The workspace's `.mcp.json` when the registry of consumed files refused it (a link out of
    /// the workspace, a FIFO, a file a run wrote): its servers are not loaded (issue #45).
    pub refused: Vec<crate::consumed::Refusal>,
}

impl McpConfig {
    /// The servers that are not switched off with `enabled = false`.
    pub fn enabled(&self) -> impl Iterator<Item = &ServerSpec> {
        self.servers.iter().filter(|server| server.enabled)
    }
}

/// One server, resolved: `${VAR}` references expanded, defaults filled in.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerSpec {
    /// The name it was declared under (the `SERVER` of `mcp__SERVER__TOOL`).
    pub name: String,
    /// Where it was declared, for messages: `config.toml`, `--mcp-config FILE`, …
    pub origin: String,
    /// How to reach it.
    pub transport: TransportSpec,
    /// `false`: declared but not started.
    pub enabled: bool,
    /// A failure to start ends the run (exit 1) before any model request.
    pub required: bool,
    /// How long starting and listing tools may take.
    pub startup_timeout: Duration,
    /// How long one `tools/call` may take.
    pub tool_timeout: Duration,
    /// Only these tools are offered, when set.
    pub enabled_tools: Option<Vec<String>>,
    /// These tools are never offered.
    pub disabled_tools: Vec<String>,
    /// The server as claude's `.mcp.json` would declare it, `${VAR}` references kept
    /// unexpanded, so that a `--mcp-config` file written for `claude` carries variable names
    /// rather than their values.
    pub claude_form: Value,
    /// Why the server must not be started: it refers to a key variable that `[mcp.allow_key_env]`
    /// does not allow it (the message names the variable and the opt-in). `None`: it may start.
    pub refused: Option<String>,
}

impl ServerSpec {
    /// Whether a tool of this server passes `enabled_tools` / `disabled_tools`.
    pub fn offers(&self, tool: &str) -> bool {
        self.enabled_tools
            .as_ref()
            .is_none_or(|enabled| enabled.iter().any(|name| name == tool))
            && !self.disabled_tools.iter().any(|name| name == tool)
    }
}

/// The three transports.
#[derive(Debug, Clone, PartialEq)]
pub enum TransportSpec {
    /// A child process in its own process group.
    Stdio {
        /// Program, on `PATH` or a path.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Added to its environment (expanded values).
        env: BTreeMap<String, String>,
        /// Passed on from pincer's environment by name.
        env_vars: Vec<String>,
        /// Working directory, relative to the workspace; `None`: the workspace.
        cwd: Option<PathBuf>,
    },
    /// Streamable HTTP (JSON and SSE replies, `Mcp-Session-Id`).
    Http {
        /// The endpoint.
        url: String,
        /// The variable holding the bearer token (read when the server starts).
        bearer_token_env_var: Option<String>,
        /// Headers with literal (expanded) values.
        headers: BTreeMap<String, String>,
        /// Headers whose values come from variables: header → variable.
        env_headers: BTreeMap<String, String>,
    },
    /// Legacy HTTP+SSE: a GET event stream that names the URL to POST messages to.
    Sse {
        /// The event-stream endpoint.
        url: String,
        /// The variable holding the bearer token.
        bearer_token_env_var: Option<String>,
        /// Headers with literal values.
        headers: BTreeMap<String, String>,
        /// Headers whose values come from variables.
        env_headers: BTreeMap<String, String>,
    },
    /// An agent SDK's in-process server (`{"type": "sdk", "name": N}`), reached over the
    /// control channel (SPEC §16).
    Sdk {
        /// The name the SDK knows it by (`server_name` of its `mcp_message` requests).
        server: String,
    },
}

impl TransportSpec {
    /// `stdio`, `http`, `sse` or `sdk`, as the init event and `status --mcp` say it.
    pub fn kind(&self) -> &'static str {
        match self {
            TransportSpec::Sdk { .. } => "sdk",
            TransportSpec::Stdio { .. } => "stdio",
            TransportSpec::Http { .. } => "http",
            TransportSpec::Sse { .. } => "sse",
        }
    }
}

/// A server declaration pincer cannot use: a usage error (exit 2) naming the server and key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum McpConfigError {
    /// A `--mcp-config` file that cannot be read.
    #[error("cannot read MCP config '{path}': {message}")]
    Read {
        /// As given.
        path: String,
        /// What the operating system said.
        message: String,
    },
    /// Not JSON, or not `{"mcpServers": {…}}`.
    #[error("invalid MCP config {origin}: {message}")]
    Format {
        /// `--mcp-config FILE`, `--mcp-config JSON`, `.mcp.json`.
        origin: String,
        /// What is wrong.
        message: String,
    },
    /// One server's declaration is wrong.
    #[error("MCP server '{server}' in {origin}: {problem}")]
    Server {
        /// The server's name.
        server: String,
        /// Where it was declared.
        origin: String,
        /// The key at fault, when one is.
        key: Option<String>,
        /// What is wrong, naming the key.
        problem: String,
    },
}

impl McpConfigError {
    /// What the user can do about it.
    pub fn hint(&self) -> String {
        match self {
            McpConfigError::Read { .. } => {
                "pass a readable file, or the JSON itself: --mcp-config '{\"mcpServers\": {…}}'"
                    .to_owned()
            }
            McpConfigError::Format { .. } => "the file holds {\"mcpServers\": {\"NAME\": \
                 {\"command\": …, \"args\": […]} | {\"type\": \"http\", \"url\": …}}}, as claude's \
                 .mcp.json does"
                .to_owned(),
            McpConfigError::Server { .. } => "a server has `command` (stdio) or `url` (with \
                 `type` = \"http\" or \"sse\"); docs/guide/mcp.md lists the keys"
                .to_owned(),
        }
    }
}

/// The variables that hold provider keys, and which of them a server may still be given.
#[derive(Debug, Clone, Copy)]
pub struct KeyVariables<'a> {
    /// The built-in providers' key variables, every `api_key_env`, every variable an auth
    /// profile refers to.
    pub names: &'a [String],
    /// `[mcp.allow_key_env]`: server name → the key variables it may be given.
    pub allowed: &'a BTreeMap<String, Vec<String>>,
}

impl KeyVariables<'_> {
    /// Whether `${variable}` in `server`'s declaration must stay unexpanded.
    pub fn refused(&self, server: &str, variable: &str) -> bool {
        self.names.iter().any(|name| name == variable)
            && !self
                .allowed
                .get(server)
                .is_some_and(|allowed| allowed.iter().any(|name| name == variable))
    }
}

/// The inputs to merge, as `commands/` collected them.
#[derive(Debug, Clone, Copy)]
pub struct Sources<'a> {
    /// `[mcp_servers]` of `config.toml`, `-c` overrides applied.
    pub config_toml: &'a BTreeMap<String, McpServerConfig>,
    /// `mcp.load_workspace`.
    pub load_workspace: bool,
    /// The workspace directory (for `.mcp.json`).
    pub workspace: &'a Path,
    /// Each `--mcp-config` argument: a file path, or JSON when it starts with `{`.
    pub flags: &'a [String],
    /// `--strict-mcp-config`.
    pub strict: bool,
    /// What `${VAR}` may not expand to without an opt-in.
    pub keys: KeyVariables<'a>,
    /// The consumed files runs wrote (a `.mcp.json` a run wrote is refused).
    pub written: &'a crate::consumed::Written,
}

/// Merge the sources into the run's servers.
pub fn resolve(
    sources: &Sources<'_>,
    environment: &dyn Fn(&str) -> Option<String>,
) -> Result<McpConfig, McpConfigError> {
    let mut servers: Vec<ServerSpec> = Vec::new();
    let mut refused = Vec::new();
    let mut add = |server: ServerSpec| match servers.iter_mut().find(|s| s.name == server.name) {
        Some(existing) => *existing = server,
        None => servers.push(server),
    };
    if !sources.strict {
        for (name, table) in sources.config_toml {
            add(from_toml(name, table)?);
        }
        // A directory there is another run's placeholder for a missing file: nothing to read.
        if sources.load_workspace && sources.workspace.join(WORKSPACE_FILE).is_file() {
            match read_workspace_file(sources.workspace, sources.written) {
                Ok(text) => {
                    for server in from_json(&text, WORKSPACE_FILE, environment, &sources.keys)? {
                        add(server);
                    }
                }
                Err(refusal) => refused.push(refusal),
            }
        }
    }
    for flag in sources.flags {
        let trimmed = flag.trim_start();
        let (text, origin) = if trimmed.starts_with('{') {
            (flag.clone(), "--mcp-config JSON".to_owned())
        } else {
            (read(flag)?, format!("--mcp-config '{flag}'"))
        };
        for server in from_json(&text, &origin, environment, &sources.keys)? {
            add(server);
        }
    }
    Ok(McpConfig {
        servers,
        strict: sources.strict,
        refused,
    })
}

/// Why the workspace's `.mcp.json` would not be read, if it is there and refused (`status`).
pub fn workspace_refusal(
    workspace: &Path,
    written: &crate::consumed::Written,
) -> Option<crate::consumed::Refusal> {
    let there = std::fs::symlink_metadata(workspace.join(WORKSPACE_FILE)).is_ok();
    there
        .then(|| read_workspace_file(workspace, written).err())
        .flatten()
}

/// The largest `.mcp.json` read: a server list, not data.
const MAX_WORKSPACE_FILE_BYTES: u64 = 1024 * 1024;

/// The workspace's `.mcp.json`, read as the registry of consumed files declares it
/// (`consumed::MCP_JSON`): a link out of the workspace, a FIFO or an oversized file is refused
/// with the reason and what to do, never followed or waited on.
fn read_workspace_file(
    workspace: &Path,
    written: &crate::consumed::Written,
) -> Result<String, crate::consumed::Refusal> {
    let path = workspace.join(WORKSPACE_FILE);
    let bytes = crate::consumed::read(
        &crate::consumed::MCP_JSON,
        workspace,
        Path::new(WORKSPACE_FILE),
        &[],
        MAX_WORKSPACE_FILE_BYTES,
        written,
    )
    .map_err(|refused| refused.of(&path))?
    .unwrap_or_default();
    String::from_utf8(bytes).map_err(|error| crate::consumed::Refusal {
        path: path.clone(),
        reason: error.to_string(),
        fix: "save it as UTF-8 JSON".to_owned(),
    })
}

fn read(path: &str) -> Result<String, McpConfigError> {
    std::fs::read_to_string(path).map_err(|error| McpConfigError::Read {
        path: path.to_owned(),
        message: error.to_string(),
    })
}

/// The characters a server name may use: they become part of tool names, which providers
/// limit to `[a-zA-Z0-9_-]`; claude's own names are the same.
fn check_name(name: &str, origin: &str) -> Result<(), McpConfigError> {
    let valid = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.');
    if valid {
        Ok(())
    } else {
        Err(McpConfigError::Server {
            server: name.to_owned(),
            origin: origin.to_owned(),
            key: None,
            problem: "the name may only use letters, digits, `_`, `-` and `.`".to_owned(),
        })
    }
}

fn seconds(
    value: Option<f64>,
    default: Duration,
    key: &str,
    server: &str,
    origin: &str,
) -> Result<Duration, McpConfigError> {
    match value {
        None => Ok(default),
        Some(seconds) => Duration::try_from_secs_f64(seconds)
            .ok()
            .filter(|duration| !duration.is_zero())
            .ok_or_else(|| McpConfigError::Server {
                server: server.to_owned(),
                origin: origin.to_owned(),
                key: Some(key.to_owned()),
                problem: format!("`{key}` must be a number of seconds above 0, not {seconds}"),
            }),
    }
}

/// One `[mcp_servers.NAME]` table.
fn from_toml(name: &str, table: &McpServerConfig) -> Result<ServerSpec, McpConfigError> {
    const ORIGIN: &str = "config.toml";
    check_name(name, ORIGIN)?;
    let problem = |key: &str, problem: String| McpConfigError::Server {
        server: name.to_owned(),
        origin: ORIGIN.to_owned(),
        key: Some(key.to_owned()),
        problem,
    };
    let kind = match (table.transport, &table.command, &table.url) {
        (_, Some(_), Some(_)) => {
            return Err(problem(
                "url",
                "has both `command` and `url`; a server has one of them".to_owned(),
            ));
        }
        (None | Some(McpTransportKind::Stdio), Some(_), None) => McpTransportKind::Stdio,
        (None, None, Some(_)) => McpTransportKind::Http,
        (Some(kind @ (McpTransportKind::Http | McpTransportKind::Sse)), None, Some(_)) => kind,
        (Some(McpTransportKind::Stdio), None, _) => {
            return Err(problem(
                "command",
                "has `type = \"stdio\"` but no `command`".to_owned(),
            ));
        }
        (Some(kind), Some(_), None) => {
            return Err(problem(
                "command",
                format!(
                    "has `type = \"{}\"` and a `command`; give `url` for an HTTP server",
                    kind_name(kind)
                ),
            ));
        }
        (_, None, None) => {
            return Err(problem(
                "command",
                "has neither `command` (stdio) nor `url` (HTTP)".to_owned(),
            ));
        }
    };
    let stdio_only = [
        ("args", !table.args.is_empty()),
        ("env", !table.env.is_empty()),
        ("env_vars", !table.env_vars.is_empty()),
        ("cwd", table.cwd.is_some()),
    ];
    let http_only = [
        ("bearer_token_env_var", table.bearer_token_env_var.is_some()),
        ("http_headers", !table.http_headers.is_empty()),
        ("env_http_headers", !table.env_http_headers.is_empty()),
    ];
    let misplaced = if kind == McpTransportKind::Stdio {
        http_only.iter().find(|(_, set)| *set)
    } else {
        stdio_only.iter().find(|(_, set)| *set)
    };
    if let Some((key, _)) = misplaced {
        return Err(problem(
            key,
            format!(
                "sets `{key}`, which a {} server does not take",
                kind_name(kind)
            ),
        ));
    }
    let transport = match kind {
        McpTransportKind::Stdio => TransportSpec::Stdio {
            command: table.command.clone().unwrap_or_default(),
            args: table.args.clone(),
            env: table.env.clone(),
            env_vars: table.env_vars.clone(),
            cwd: table.cwd.as_ref().map(PathBuf::from),
        },
        McpTransportKind::Http => TransportSpec::Http {
            url: checked_url(table.url.as_deref().unwrap_or_default(), name, ORIGIN)?,
            bearer_token_env_var: table.bearer_token_env_var.clone(),
            headers: table.http_headers.clone(),
            env_headers: table.env_http_headers.clone(),
        },
        McpTransportKind::Sse => TransportSpec::Sse {
            url: checked_url(table.url.as_deref().unwrap_or_default(), name, ORIGIN)?,
            bearer_token_env_var: table.bearer_token_env_var.clone(),
            headers: table.http_headers.clone(),
            env_headers: table.env_http_headers.clone(),
        },
    };
    let claude_form = claude_form_of(&transport);
    Ok(ServerSpec {
        name: name.to_owned(),
        origin: ORIGIN.to_owned(),
        transport,
        enabled: table.enabled.unwrap_or(true),
        required: table.required.unwrap_or(false),
        startup_timeout: seconds(
            table.startup_timeout_sec,
            DEFAULT_STARTUP_TIMEOUT,
            "startup_timeout_sec",
            name,
            ORIGIN,
        )?,
        tool_timeout: seconds(
            table.tool_timeout_sec,
            DEFAULT_TOOL_TIMEOUT,
            "tool_timeout_sec",
            name,
            ORIGIN,
        )?,
        enabled_tools: table.enabled_tools.clone(),
        disabled_tools: table.disabled_tools.clone(),
        claude_form,
        refused: None,
    })
}

fn kind_name(kind: McpTransportKind) -> &'static str {
    match kind {
        McpTransportKind::Stdio => "stdio",
        McpTransportKind::Http => "http",
        McpTransportKind::Sse => "sse",
    }
}

fn checked_url(url: &str, server: &str, origin: &str) -> Result<String, McpConfigError> {
    let url = url.trim();
    if url.starts_with("http://") || url.starts_with("https://") {
        Ok(url.to_owned())
    } else {
        Err(McpConfigError::Server {
            server: server.to_owned(),
            origin: origin.to_owned(),
            key: Some("url".to_owned()),
            problem: format!("`url` must start with http:// or https://, not '{url}'"),
        })
    }
}

/// A TOML-declared server in claude's `.mcp.json` form: secrets that come from variables stay
/// `${VAR}` references.
fn claude_form_of(transport: &TransportSpec) -> Value {
    match transport {
        TransportSpec::Sdk { server } => json!({"type": "sdk", "name": server}),
        TransportSpec::Stdio {
            command,
            args,
            env,
            env_vars,
            cwd: _,
        } => {
            let mut environment: Map<String, Value> = env
                .iter()
                .map(|(name, value)| (name.clone(), Value::String(value.clone())))
                .collect();
            for name in env_vars {
                environment.insert(name.clone(), Value::String(format!("${{{name}}}")));
            }
            json!({"type": "stdio", "command": command, "args": args, "env": environment})
        }
        TransportSpec::Http {
            url,
            bearer_token_env_var,
            headers,
            env_headers,
        }
        | TransportSpec::Sse {
            url,
            bearer_token_env_var,
            headers,
            env_headers,
        } => {
            let mut all: Map<String, Value> = headers
                .iter()
                .map(|(name, value)| (name.clone(), Value::String(value.clone())))
                .collect();
            for (header, variable) in env_headers {
                all.insert(header.clone(), Value::String(format!("${{{variable}}}")));
            }
            if let Some(variable) = bearer_token_env_var {
                all.insert(
                    "Authorization".to_owned(),
                    Value::String(format!("Bearer ${{{variable}}}")),
                );
            }
            json!({"type": transport.kind(), "url": url, "headers": all})
        }
    }
}

/// An agent SDK's in-process server, `{"type": "sdk", "name": N}` (`N` defaults to the key), with
/// the default timeouts.
fn sdk_server(name: String, raw: &Value, origin: &str) -> ServerSpec {
    let server = raw
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or(&name)
        .to_owned();
    ServerSpec {
        transport: TransportSpec::Sdk {
            server: server.clone(),
        },
        claude_form: json!({"type": "sdk", "name": server}),
        name,
        origin: origin.to_owned(),
        enabled: true,
        required: false,
        startup_timeout: DEFAULT_STARTUP_TIMEOUT,
        tool_timeout: DEFAULT_TOOL_TIMEOUT,
        enabled_tools: None,
        disabled_tools: Vec::new(),
        refused: None,
    }
}

/// `{"mcpServers": {NAME: ENTRY}}`, claude's format.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ClaudeFile {
    mcp_servers: Map<String, Value>,
}

/// One entry of `mcpServers`: claude's keys, and codex's per-server settings, which claude's
/// own files do not have (pincer reads them; the file written for `claude` leaves them out).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ClaudeEntry {
    #[serde(rename = "type")]
    transport: Option<McpTransportKind>,
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    cwd: Option<String>,
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    startup_timeout_sec: Option<f64>,
    tool_timeout_sec: Option<f64>,
    enabled: Option<bool>,
    required: Option<bool>,
    enabled_tools: Option<Vec<String>>,
    #[serde(default)]
    disabled_tools: Vec<String>,
}

/// The keys of [`ClaudeEntry`] that claude's own files use; the rest are pincer's additions.
const CLAUDE_KEYS: [&str; 7] = ["type", "command", "args", "env", "cwd", "url", "headers"];

/// The servers of one claude-format document.
fn from_json(
    text: &str,
    origin: &str,
    environment: &dyn Fn(&str) -> Option<String>,
    keys: &KeyVariables<'_>,
) -> Result<Vec<ServerSpec>, McpConfigError> {
    let format_error = |message: String| McpConfigError::Format {
        origin: origin.to_owned(),
        message,
    };
    let document: Value =
        serde_json::from_str(text).map_err(|error| format_error(error.to_string()))?;
    let file: ClaudeFile =
        serde_json::from_value(document).map_err(|error| format_error(error.to_string()))?;
    let mut servers = Vec::new();
    for (name, raw) in file.mcp_servers {
        check_name(&name, origin)?;
        let problem = |key: Option<&str>, problem: String| McpConfigError::Server {
            server: name.clone(),
            origin: origin.to_owned(),
            key: key.map(str::to_owned),
            problem,
        };
        if raw.get("type").and_then(Value::as_str) == Some("sdk") {
            servers.push(sdk_server(name, &raw, origin));
            continue;
        }
        let entry: ClaudeEntry = serde_json::from_value(raw.clone())
            .map_err(|error| problem(serde_key(&error.to_string()), error.to_string()))?;
        // (key, variable) of every reference to a key variable left unexpanded.
        let refusals: RefCell<Vec<(String, String)>> = RefCell::new(Vec::new());
        let expand = |key: &str, value: &str| {
            let lookup = |variable: &str| {
                if keys.refused(&name, variable) {
                    refusals
                        .borrow_mut()
                        .push((key.to_owned(), variable.to_owned()));
                    return Some(format!("${{{variable}}}"));
                }
                environment(variable)
            };
            expand_variables(value, &lookup).map_err(|UnsetVariable(variable)| {
                problem(
                    Some(key),
                    format!(
                        "`{key}` refers to ${{{variable}}}, which is not set (write \
                         ${{{variable}:-default}} for a default)"
                    ),
                )
            })
        };
        let expand_map = |key: &str, map: &BTreeMap<String, String>| {
            map.iter()
                .map(|(name, value)| Ok((name.clone(), expand(&format!("{key}.{name}"), value)?)))
                .collect::<Result<BTreeMap<_, _>, McpConfigError>>()
        };
        let transport = match (entry.transport, &entry.command, &entry.url) {
            (None | Some(McpTransportKind::Stdio), Some(command), None) => {
                if !entry.headers.is_empty() {
                    return Err(problem(
                        Some("headers"),
                        "sets `headers`, which a stdio server does not take".to_owned(),
                    ));
                }
                TransportSpec::Stdio {
                    command: expand("command", command)?,
                    args: entry
                        .args
                        .iter()
                        .enumerate()
                        .map(|(index, arg)| expand(&format!("args[{index}]"), arg))
                        .collect::<Result<_, _>>()?,
                    env: expand_map("env", &entry.env)?,
                    env_vars: Vec::new(),
                    cwd: entry
                        .cwd
                        .as_deref()
                        .map(|cwd| expand("cwd", cwd).map(PathBuf::from))
                        .transpose()?,
                }
            }
            (Some(kind @ (McpTransportKind::Http | McpTransportKind::Sse)), None, Some(url)) => {
                let misplaced = [
                    ("args", !entry.args.is_empty()),
                    ("env", !entry.env.is_empty()),
                    ("cwd", entry.cwd.is_some()),
                ];
                if let Some((key, _)) = misplaced.iter().find(|(_, set)| *set) {
                    return Err(problem(
                        Some(key),
                        format!("sets `{key}`, which an HTTP server does not take"),
                    ));
                }
                let url = checked_url(&expand("url", url)?, &name, origin)?;
                let headers = expand_map("headers", &entry.headers)?;
                if kind == McpTransportKind::Http {
                    TransportSpec::Http {
                        url,
                        bearer_token_env_var: None,
                        headers,
                        env_headers: BTreeMap::new(),
                    }
                } else {
                    TransportSpec::Sse {
                        url,
                        bearer_token_env_var: None,
                        headers,
                        env_headers: BTreeMap::new(),
                    }
                }
            }
            (None, None, Some(_)) => {
                return Err(problem(
                    Some("type"),
                    "has a `url` but no `type`; write \"type\": \"http\" (or \"sse\" for the \
                     legacy transport)"
                        .to_owned(),
                ));
            }
            (_, Some(_), Some(_)) => {
                return Err(problem(
                    Some("url"),
                    "has both `command` and `url`; a server has one of them".to_owned(),
                ));
            }
            (Some(McpTransportKind::Stdio), None, _) | (None, None, None) => {
                return Err(problem(
                    Some("command"),
                    "has no `command` (or `type` and `url` for an HTTP server)".to_owned(),
                ));
            }
            (Some(_), _, None) => {
                return Err(problem(
                    Some("url"),
                    "is an HTTP server without a `url`".to_owned(),
                ));
            }
        };
        let mut claude_form: Map<String, Value> = raw
            .as_object()
            .map(|object| {
                object
                    .iter()
                    .filter(|(key, _)| CLAUDE_KEYS.contains(&key.as_str()))
                    .map(|(key, value)| (key.clone(), value.clone()))
                    .collect()
            })
            .unwrap_or_default();
        claude_form
            .entry("type")
            .or_insert_with(|| Value::String(transport.kind().to_owned()));
        let refused = refusal(&name, &refusals.into_inner());
        servers.push(ServerSpec {
            startup_timeout: seconds(
                entry.startup_timeout_sec,
                DEFAULT_STARTUP_TIMEOUT,
                "startup_timeout_sec",
                &name,
                origin,
            )?,
            tool_timeout: seconds(
                entry.tool_timeout_sec,
                DEFAULT_TOOL_TIMEOUT,
                "tool_timeout_sec",
                &name,
                origin,
            )?,
            name,
            origin: origin.to_owned(),
            transport,
            enabled: entry.enabled.unwrap_or(true),
            required: entry.required.unwrap_or(false),
            enabled_tools: entry.enabled_tools,
            disabled_tools: entry.disabled_tools,
            claude_form: Value::Object(claude_form),
            refused,
        });
    }
    Ok(servers)
}

/// Why `server` is not started, from the (key, variable) references it was refused, if any:
/// the first place, every variable, and the config.toml line that would allow them.
fn refusal(server: &str, refusals: &[(String, String)]) -> Option<String> {
    let (key, _) = refusals.first()?;
    let mut variables: Vec<&str> = Vec::new();
    for (_, variable) in refusals {
        if !variables.contains(&variable.as_str()) {
            variables.push(variable);
        }
    }
    let references: Vec<String> = variables
        .iter()
        .map(|variable| format!("${{{variable}}}"))
        .collect();
    let quoted: Vec<String> = variables
        .iter()
        .map(|variable| format!("\"{variable}\""))
        .collect();
    let what = if variables.len() == 1 {
        "the provider key variable"
    } else {
        "the provider key variables"
    };
    Some(format!(
        "its `{key}` refers to {what} {}, and pincer puts no key into a server's command line, \
         URL, headers or environment unless config.toml allows it: [mcp.allow_key_env] \
         {server} = [{}]",
        references.join(" and "),
        quoted.join(", ")
    ))
}

/// The key serde names in "unknown field `x`" or "missing field `x`".
fn serde_key(message: &str) -> Option<&str> {
    let start = message.find('`')? + 1;
    let end = start + message[start..].find('`')?;
    Some(&message[start..end])
}

/// A `${VAR}` without a default whose variable is unset.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("${{{0}}} is not set")]
pub struct UnsetVariable(pub String);

/// `${VAR}` and `${VAR:-default}` replaced by the variable's value (claude's `.mcp.json`
/// expansion); [`UnsetVariable`] for a variable that is unset and has no default. A `$` not followed
/// by `{` is kept as it is.
pub fn expand_variables(
    text: &str,
    environment: &dyn Fn(&str) -> Option<String>,
) -> Result<String, UnsetVariable> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return Ok(out);
        };
        let inner = &after[..end];
        let (name, default) = match inner.split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (inner, None),
        };
        match (environment(name), default) {
            (Some(value), _) => out.push_str(&value),
            (None, Some(default)) => out.push_str(default),
            (None, None) => return Err(UnsetVariable(name.to_owned())),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn environment(name: &str) -> Option<String> {
        match name {
            "TOKEN" => Some("t-123".to_owned()),
            "HOME" => Some("/home/ci".to_owned()),
            _ => None,
        }
    }

    fn json_servers(text: &str) -> Result<Vec<ServerSpec>, McpConfigError> {
        let keys = KeyVariables {
            names: &[],
            allowed: &BTreeMap::new(),
        };
        from_json(text, "--mcp-config JSON", &environment, &keys)
    }

    fn toml_server(text: &str) -> Result<ServerSpec, McpConfigError> {
        let table: McpServerConfig = toml::from_str(text).unwrap();
        from_toml("fs", &table)
    }

    #[test]
    fn variables_expand_with_defaults_and_an_unset_one_is_named() {
        assert_eq!(
            expand_variables("${HOME}/x:${MISSING:-d}:$PATH:${", &environment).unwrap(),
            "/home/ci/x:d:$PATH:${"
        );
        assert_eq!(
            expand_variables("Bearer ${NOPE}", &environment),
            Err(UnsetVariable("NOPE".to_owned()))
        );
    }

    #[test]
    fn a_claude_file_gives_stdio_and_http_servers_with_expanded_values_and_raw_forms() {
        let servers = json_servers(
            r#"{"mcpServers": {
                "fs": {"command": "npx", "args": ["-y", "server-fs", "${HOME}"], "env": {"K": "${TOKEN}"}},
                "gh": {"type": "http", "url": "https://api.example/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}, "required": true, "tool_timeout_sec": 5}
            }}"#,
        )
        .unwrap();
        assert_eq!(servers.len(), 2);
        assert_eq!(
            servers[0].transport,
            TransportSpec::Stdio {
                command: "npx".to_owned(),
                args: vec!["-y".into(), "server-fs".into(), "/home/ci".into()],
                env: BTreeMap::from([("K".to_owned(), "t-123".to_owned())]),
                env_vars: vec![],
                cwd: None,
            }
        );
        assert_eq!(servers[0].claude_form["env"]["K"], "${TOKEN}");
        assert_eq!(servers[0].claude_form["type"], "stdio");
        assert!(servers[1].required);
        assert_eq!(servers[1].tool_timeout, Duration::from_secs(5));
        assert_eq!(servers[1].startup_timeout, DEFAULT_STARTUP_TIMEOUT);
        assert_eq!(
            servers[1].claude_form,
            json!({"type": "http", "url": "https://api.example/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}})
        );
        match &servers[1].transport {
            TransportSpec::Http { headers, .. } => {
                assert_eq!(headers["Authorization"], "Bearer t-123");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_key_variable_stays_unexpanded_and_refuses_the_server_unless_allowed_for_it() {
        let names = ["ANTHROPIC_API_KEY".to_owned(), "WORK_KEY".to_owned()];
        let allowed = BTreeMap::from([("ok".to_owned(), vec!["WORK_KEY".to_owned()])]);
        let keys = KeyVariables {
            names: &names,
            allowed: &allowed,
        };
        let environment = |name: &str| match name {
            "ANTHROPIC_API_KEY" => Some("sk-ant-secret".to_owned()),
            "WORK_KEY" => Some("work-secret".to_owned()),
            "HOME" => Some("/home/ci".to_owned()),
            _ => None,
        };
        let servers = from_json(
            r#"{"mcpServers": {
                "web": {"type": "http", "url": "https://h/mcp?k=${ANTHROPIC_API_KEY}", "headers": {"X": "${WORK_KEY:-none}"}},
                "ok": {"command": "s", "args": ["${HOME}", "--key=${WORK_KEY}"], "env": {"K": "${ANTHROPIC_API_KEY:-}"}},
                "plain": {"command": "s", "args": ["${HOME}"]}
            }}"#,
            ".mcp.json",
            &environment,
            &keys,
        )
        .unwrap();
        match &servers[0].transport {
            TransportSpec::Http { url, headers, .. } => {
                assert_eq!(url, "https://h/mcp?k=${ANTHROPIC_API_KEY}");
                assert_eq!(headers["X"], "${WORK_KEY}");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            servers[0].refused.as_deref(),
            Some(
                "its `url` refers to the provider key variables ${ANTHROPIC_API_KEY} and \
                 ${WORK_KEY}, and pincer puts no key into a server's command line, URL, headers \
                 or environment unless config.toml allows it: [mcp.allow_key_env] web = \
                 [\"ANTHROPIC_API_KEY\", \"WORK_KEY\"]"
            )
        );
        // Allowed: WORK_KEY for `ok`; its env still names a key it was not allowed.
        match &servers[1].transport {
            TransportSpec::Stdio { args, env, .. } => {
                assert_eq!(args, &["/home/ci", "--key=work-secret"]);
                assert_eq!(env["K"], "${ANTHROPIC_API_KEY}");
            }
            other => panic!("{other:?}"),
        }
        let reason = servers[1].refused.as_deref().unwrap_or_default();
        assert!(
            reason.starts_with(
                "its `env.K` refers to the provider key variable ${ANTHROPIC_API_KEY},"
            ) && reason.ends_with("[mcp.allow_key_env] ok = [\"ANTHROPIC_API_KEY\"]"),
            "{reason}"
        );
        assert_eq!(servers[2].refused, None);
    }

    #[test]
    fn bad_claude_entries_name_the_server_and_the_key() {
        let cases = [
            (r#"{"mcpServers": {"a": {"comand": "x"}}}"#, "comand"),
            (r#"{"mcpServers": {"a": {"url": "http://h/mcp"}}}"#, "type"),
            (
                r#"{"mcpServers": {"a": {"command": "x", "url": "http://h"}}}"#,
                "url",
            ),
            (r#"{"mcpServers": {"a": {"args": ["x"]}}}"#, "command"),
            (
                r#"{"mcpServers": {"a": {"command": "x", "env": {"T": "${UNSET}"}}}}"#,
                "env.T",
            ),
            (
                r#"{"mcpServers": {"a": {"type": "http", "url": "ftp://h"}}}"#,
                "url",
            ),
            (
                r#"{"mcpServers": {"a": {"command": "x", "tool_timeout_sec": 0}}}"#,
                "tool_timeout_sec",
            ),
            (
                r#"{"mcpServers": {"a": {"type": "sse", "url": "http://h", "env": {"A": "1"}}}}"#,
                "env",
            ),
        ];
        for (text, key) in cases {
            match json_servers(text) {
                Err(McpConfigError::Server {
                    server,
                    key: Some(found),
                    ..
                }) => {
                    assert_eq!(server, "a", "{text}");
                    assert_eq!(found, key, "{text}");
                }
                other => panic!("{text}: {other:?}"),
            }
        }
        assert!(matches!(
            json_servers(r#"{"servers": {}}"#),
            Err(McpConfigError::Format { .. })
        ));
        assert!(matches!(
            json_servers("not json"),
            Err(McpConfigError::Format { .. })
        ));
        assert!(matches!(
            json_servers(r#"{"mcpServers": {"a b": {"command": "x"}}}"#),
            Err(McpConfigError::Server { key: None, .. })
        ));
    }

    #[test]
    fn toml_servers_take_codex_keys_and_defaults() {
        let server = toml_server(
            "command = \"srv\"\nargs = [\"--stdio\"]\nenv_vars = [\"GITHUB_TOKEN\"]\ncwd = \"tools\"\n\
             startup_timeout_sec = 2.5\nenabled_tools = [\"read\"]\ndisabled_tools = [\"write\"]\n",
        )
        .unwrap();
        assert_eq!(server.startup_timeout, Duration::from_millis(2500));
        assert_eq!(server.tool_timeout, DEFAULT_TOOL_TIMEOUT);
        assert!(server.enabled && !server.required);
        assert!(server.offers("read") && !server.offers("write") && !server.offers("other"));
        assert_eq!(server.claude_form["env"]["GITHUB_TOKEN"], "${GITHUB_TOKEN}");

        let http = toml_server(
            "url = \"http://127.0.0.1:9/mcp\"\nbearer_token_env_var = \"TOKEN\"\n\
             env_http_headers = { \"X-Team\" = \"TEAM\" }\n",
        )
        .unwrap();
        assert_eq!(http.transport.kind(), "http");
        assert_eq!(
            http.claude_form["headers"],
            json!({"Authorization": "Bearer ${TOKEN}", "X-Team": "${TEAM}"})
        );
        let sse = toml_server("type = \"sse\"\nurl = \"http://127.0.0.1:9/sse\"\n").unwrap();
        assert_eq!(sse.transport.kind(), "sse");
    }

    #[test]
    fn bad_toml_servers_name_the_key() {
        let cases = [
            ("command = \"x\"\nurl = \"http://h\"\n", "url"),
            ("args = [\"x\"]\n", "command"),
            ("url = \"http://h\"\nenv = { A = \"1\" }\n", "env"),
            (
                "command = \"x\"\nbearer_token_env_var = \"T\"\n",
                "bearer_token_env_var",
            ),
            ("type = \"sse\"\ncommand = \"x\"\n", "command"),
            (
                "command = \"x\"\nstartup_timeout_sec = -1\n",
                "startup_timeout_sec",
            ),
            ("url = \"localhost:8080\"\n", "url"),
        ];
        for (text, key) in cases {
            match toml_server(text) {
                Err(McpConfigError::Server {
                    server,
                    key: Some(found),
                    ..
                }) => {
                    assert_eq!(server, "fs", "{text}");
                    assert_eq!(found, key, "{text}");
                }
                other => panic!("{text}: {other:?}"),
            }
        }
    }

    /// Issue #45: a repository's `.mcp.json` that links out of the workspace is refused, not
    /// followed (here to a server list elsewhere on the machine).
    #[test]
    fn a_workspace_mcp_json_linking_out_of_the_workspace_is_refused() {
        let outside = tempfile::tempdir().unwrap();
        let target = outside.path().join("servers.json");
        std::fs::write(&target, r#"{"mcpServers": {"planted": {"command": "x"}}}"#).unwrap();
        let workspace = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(&target, workspace.path().join(WORKSPACE_FILE)).unwrap();
        let toml = BTreeMap::new();
        let allowed = BTreeMap::new();
        let sources = Sources {
            config_toml: &toml,
            load_workspace: true,
            workspace: workspace.path(),
            flags: &[],
            strict: false,
            keys: KeyVariables {
                names: &[],
                allowed: &allowed,
            },
            written: &crate::consumed::Written::default(),
        };
        let config = resolve(&sources, &environment).unwrap();
        assert!(config.servers.is_empty(), "{config:?}");
        assert_eq!(config.refused.len(), 1, "{config:?}");
        let refusal = &config.refused[0];
        assert_eq!(refusal.path, workspace.path().join(WORKSPACE_FILE));
        assert!(refusal.reason.contains("outside"), "{refusal:?}");
    }

    #[test]
    fn later_sources_replace_earlier_servers_and_strict_keeps_only_the_flags() {
        let directory = tempfile::tempdir().unwrap();
        std::fs::write(
            directory.path().join(WORKSPACE_FILE),
            r#"{"mcpServers": {"ws": {"command": "ws-server"}}}"#,
        )
        .unwrap();
        let file = directory.path().join("servers.json");
        std::fs::write(&file, r#"{"mcpServers": {"fs": {"command": "from-file"}}}"#).unwrap();
        let toml: BTreeMap<String, McpServerConfig> = BTreeMap::from([(
            "fs".to_owned(),
            toml::from_str("command = \"from-toml\"").unwrap(),
        )]);
        let flags = vec![
            file.to_string_lossy().into_owned(),
            r#"{"mcpServers": {"extra": {"command": "x"}}}"#.to_owned(),
        ];
        let allowed = BTreeMap::new();
        let written = crate::consumed::Written::default();
        let sources = |strict, load_workspace, flags: &'static [String]| Sources {
            config_toml: &toml,
            load_workspace,
            workspace: directory.path(),
            flags,
            strict,
            keys: KeyVariables {
                names: &[],
                allowed: &allowed,
            },
            written: &written,
        };
        let names = |config: &McpConfig| -> Vec<String> {
            config.servers.iter().map(|s| s.name.clone()).collect()
        };
        let flags: &'static [String] = Box::leak(flags.into_boxed_slice());
        let merged = resolve(&sources(false, false, flags), &environment).unwrap();
        assert_eq!(names(&merged), ["fs", "extra"]);
        assert!(
            matches!(&merged.servers[0].transport, TransportSpec::Stdio { command, .. } if command == "from-file")
        );
        let with_workspace = resolve(&sources(false, true, &[]), &environment).unwrap();
        assert_eq!(names(&with_workspace), ["fs", "ws"]);
        let without = resolve(&sources(false, false, &[]), &environment).unwrap();
        assert_eq!(names(&without), ["fs"]);
        let strict = resolve(&sources(true, true, flags), &environment).unwrap();
        assert_eq!(names(&strict), ["fs", "extra"]);
        assert_eq!(
            strict.servers[0].origin,
            format!("--mcp-config '{}'", flags[0])
        );
        let missing = resolve(
            &sources(
                false,
                false,
                Box::leak(vec!["/nonexistent/x.json".to_owned()].into_boxed_slice()),
            ),
            &environment,
        );
        assert!(matches!(missing, Err(McpConfigError::Read { .. })));
    }

    #[test]
    fn an_sdk_server_is_reached_by_its_name_over_the_control_channel() {
        let servers =
            json_servers(r#"{"mcpServers": {"kv": {"type": "sdk", "name": "kv-store"}}}"#).unwrap();
        assert_eq!(servers.len(), 1);
        assert_eq!(servers[0].name, "kv");
        assert_eq!(
            servers[0].transport,
            TransportSpec::Sdk {
                server: "kv-store".to_owned()
            }
        );
        assert_eq!(servers[0].transport.kind(), "sdk");
    }
}
