//! What the commands show of MCP servers (SPEC §13): the `--dry-run` list (nothing started,
//! variable names instead of values) and `status --mcp`, which starts each enabled server, lists
//! its tools and stops it. A turn's servers are configured and started by the engine
//! (`engine/plan/mcp.rs`); the turn itself only sees an `McpSet`.

use super::Context;
use crate::cli::McpArgs;
use crate::error::{CliError, CliResult, Exit};
use crate::lenient::Lenient;
use crate::mcp::{McpConfig, McpSet, ServerState};
use crate::output::report::{
    McpDisabledServer, McpDryRunServer, McpServerReport, McpStartedServer, McpStatus, McpToolReport,
};
use crate::scope::{CancelScope, cancelled_error};
use serde_json::Value;

/// The servers as `--dry-run` shows them: nothing started, variable names instead of values
/// (`env` and headers by name only; command, args and URL as declared, `${VAR}` unexpanded).
pub(crate) fn dry_run(config: &McpConfig) -> Vec<McpDryRunServer> {
    config
        .servers
        .iter()
        .map(|server| {
            let form = DeclaredForm::of(&server.claude_form);
            McpDryRunServer {
                name: server.name.clone(),
                origin: server.origin.clone(),
                transport: server.transport.kind().to_owned(),
                enabled: server.enabled,
                required: server.required,
                command: form.command,
                args: form.args,
                url: form.url,
                env_names: names(&form.env),
                header_names: names(&form.headers),
                startup_timeout_sec: server.startup_timeout.as_secs_f64(),
                tool_timeout_sec: server.tool_timeout.as_secs_f64(),
                enabled_tools: server.enabled_tools.clone(),
                disabled_tools: server.disabled_tools.clone(),
            }
        })
        .collect()
}

/// What `--dry-run` shows of a server as declared (claude's `.mcp.json` form): its command,
/// args and URL as written, whatever their JSON type, and the names of its variables and
/// headers. A part of another shape than claude's is shown as none.
#[derive(serde::Deserialize, Default)]
struct DeclaredForm {
    #[serde(default)]
    command: Option<Value>,
    #[serde(default)]
    args: Option<Value>,
    #[serde(default)]
    url: Option<Value>,
    #[serde(default)]
    env: Lenient<serde_json::Map<String, Value>>,
    #[serde(default)]
    headers: Lenient<serde_json::Map<String, Value>>,
}

impl DeclaredForm {
    fn of(form: &Value) -> Self {
        serde::Deserialize::deserialize(form).unwrap_or_default()
    }
}

/// The names of a declared object (`env`, `headers`), in their order.
fn names(object: &Lenient<serde_json::Map<String, Value>>) -> Vec<String> {
    object
        .0
        .iter()
        .flat_map(|object| object.keys().cloned())
        .collect()
}

/// `pincer status --mcp`: start each enabled server, list its tools, stop it. The report, and
/// whether every server started.
pub(crate) fn status_report(context: &Context, args: &McpArgs) -> CliResult<(McpStatus, bool)> {
    let config = crate::plan::mcp::config(
        context,
        &args.mcp_config,
        args.strict_mcp_config,
        args.approve_workspace_mcp,
        &crate::consumed::Written::load(&context.settings.paths.state_dir),
    )?;
    let scope = CancelScope::start(context.started, None)?;
    let start = crate::plan::mcp::start_context(
        context,
        &[],
        scope.cancellation().token.clone(),
        (
            crate::provider::http::client()
                .map_err(|error| CliError::new(Exit::RunFailed, error.to_string()))?,
            None,
            None,
        ),
    )?;
    let set = scope
        .wait(McpSet::start(&config, &start))
        .map_err(cancelled_error)?;
    let statuses = set.statuses();
    scope.block_on(set.shutdown());
    let all_up = statuses
        .iter()
        .all(|status| status.state == ServerState::Connected);
    let mcp_servers = config
        .servers
        .iter()
        .map(
            |server| match statuses.iter().find(|s| s.name == server.name) {
                Some(status) => McpServerReport::Started(McpStartedServer {
                    name: status.name.clone(),
                    status: status.state.as_str().to_owned(),
                    transport: status.transport.to_owned(),
                    origin: server.origin.clone(),
                    required: status.required,
                    server: status.server_info.clone(),
                    startup_ms: u64::try_from(status.startup.as_millis()).unwrap_or(u64::MAX),
                    pid: status.pid,
                    listed_tools: status.listed_tools,
                    tools: status
                        .tools
                        .iter()
                        .map(|tool| McpToolReport {
                            name: tool.name.clone(),
                            tool: tool.tool.clone(),
                            read_only: tool.read_only,
                        })
                        .collect(),
                    error: status.error.clone(),
                    stderr_tail: status.stderr_tail.clone(),
                }),
                None => McpServerReport::Disabled(McpDisabledServer {
                    name: server.name.clone(),
                    status: "disabled".to_owned(),
                    transport: server.transport.kind().to_owned(),
                    origin: server.origin.clone(),
                    required: server.required,
                }),
            },
        )
        .collect();
    Ok((McpStatus { mcp_servers }, all_up))
}

/// The text form of [`status_report`].
pub(crate) fn render_status(report: &McpStatus) -> String {
    if report.mcp_servers.is_empty() {
        return "No MCP servers are configured (config.toml [mcp_servers], --mcp-config, or \
                .mcp.json with mcp.load_workspace = true).\n"
            .to_owned();
    }
    let mut out = String::from("MCP servers\n");
    for server in &report.mcp_servers {
        let server = match server {
            McpServerReport::Started(server) => server,
            McpServerReport::Disabled(server) => {
                out.push_str(&format!(
                    "  {} ({}, {}): disabled (enabled = false)\n",
                    server.name, server.transport, server.origin
                ));
                continue;
            }
        };
        let head = format!(
            "  {} ({}, {})",
            server.name, server.transport, server.origin
        );
        if server.status == "connected" {
            let mut line = format!(
                "{head}: connected in {} ms, {} tools",
                server.startup_ms,
                server.tools.len()
            );
            if let Some(info) = &server.server {
                line.push_str(&format!(" ({info})"));
            }
            out.push_str(&line);
            out.push('\n');
            for tool in &server.tools {
                let marker = if tool.read_only {
                    "  (readOnlyHint)"
                } else {
                    ""
                };
                out.push_str(&format!("    {}{marker}\n", tool.name));
            }
        } else {
            out.push_str(&format!(
                "{head}: failed: {}\n",
                server.error.as_deref().unwrap_or_default()
            ));
            for line in &server.stderr_tail {
                out.push_str(&format!("    stderr: {line}\n"));
            }
        }
    }
    out
}
