//! MCP servers for a command (SPEC §13): the merged configuration, starting the servers of a
//! turn (warnings, the `required` rule, cancellation), what the init event, `--dry-run` and
//! `status --mcp` show of them.
//!
//! The turn itself only sees an `McpSet`; everything a person reads about the servers is said
//! here, through `Diagnostics` and `Stdout`.

use std::sync::Arc;

use serde_json::Value;

use super::Context;
use super::cancel::{CancelScope, cancelled_error};
use crate::cli::McpArgs;
use crate::engine::event::McpServer;
use crate::error::{CliError, CliResult, Exit};
use crate::mcp::{McpConfig, McpConfigError, McpSet, ServerState, ServerStatus, StartContext};
use crate::output::report::{
    McpDisabledServer, McpDryRunServer, McpServerReport, McpStartedServer, McpStatus, McpToolReport,
};

/// The `error.kind` of a run stopped by a required server.
const ERROR_KIND: &str = "mcp";

/// The servers of this run: config.toml's (with `-c`), the workspace's `.mcp.json` when
/// `mcp.load_workspace = true`, and `--mcp-config`'s (`flags`; with `strict` those alone). A bad
/// declaration is exit 2.
pub(crate) fn config(context: &Context, flags: &[String], strict: bool) -> CliResult<McpConfig> {
    let file = &context.settings.config;
    let known = context.known_keys()?;
    let sources = crate::mcp::config::Sources {
        config_toml: &file.mcp_servers,
        load_workspace: file.mcp.load_workspace.unwrap_or(false),
        workspace: &context.workspace,
        flags,
        strict,
        keys: crate::mcp::config::KeyVariables {
            names: &known.variables,
            allowed: &file.mcp.allow_key_env,
        },
    };
    crate::mcp::config::resolve(&sources, &crate::settings::process_env).map_err(config_error)
}

fn config_error(error: McpConfigError) -> CliError {
    let hint = error.hint();
    CliError::usage(error.to_string()).with_hint(hint)
}

/// What starting needs: the workspace, pincer's environment minus `[tools.exec] clear_env`,
/// every key variable and every known key (the run's `keys` among them), the HTTP client, `-v`'s
/// stderr lines.
fn start_context(
    context: &Context,
    keys: &[&str],
    cancel: tokio_util::sync::CancellationToken,
    http: reqwest::Client,
) -> CliResult<StartContext> {
    let known = context.known_keys()?;
    let diagnostics = context.diagnostics.clone();
    let on_stderr: Option<crate::mcp::StderrSink> = (diagnostics.verbosity() > 0).then(|| {
        Arc::new(move |server: &str, line: &str| {
            diagnostics.detail(&format!("mcp[{server}]: {line}"))
        }) as crate::mcp::StderrSink
    });
    Ok(StartContext {
        workspace: context.workspace.clone(),
        environment: Arc::new(std::env::vars_os().collect()),
        clear_env: known.clear_list(&context.settings.tools.exec.clear_env),
        secrets: known
            .patterns(keys)
            .into_iter()
            .map(str::to_owned)
            .collect(),
        http,
        on_stderr,
        cancel,
    })
}

/// Start the enabled servers for a turn, before its first request. A server that fails is a
/// warning (and `status: "failed"` in the init event); a `required` one ends the run: exit 1
/// with `error.kind = "mcp"`, its servers stopped. `http` is the turn's HTTP client.
pub(crate) fn start_for_turn(
    context: &Context,
    scope: &CancelScope,
    config: &McpConfig,
    keys: &[&str],
    http: &reqwest::Client,
) -> CliResult<Arc<McpSet>> {
    if config.enabled().next().is_none() {
        return Ok(Arc::new(McpSet::empty()));
    }
    let start = start_context(
        context,
        keys,
        scope.cancellation().token.clone(),
        http.clone(),
    )?;
    let set = scope
        .wait(McpSet::start(config, &start))
        .map_err(cancelled_error)?;
    for status in set.statuses() {
        match status.state {
            ServerState::Connected => context.diagnostics.detail(&format!(
                "mcp: server '{}' connected in {} ms ({} tools)",
                status.name,
                status.startup.as_millis(),
                status.tools.len()
            )),
            ServerState::Failed if !status.required => context.diagnostics.warn(&format!(
                "{}; its tools are not offered",
                failure_line(&status)
            )),
            ServerState::Failed => {}
        }
    }
    if let Some(failed) = set.required_failure() {
        let error = CliError::new(Exit::RunFailed, failure_line(failed))
            .with_kind(ERROR_KIND)
            .with_hint(failure_hint(failed));
        scope.block_on(set.shutdown());
        return Err(error);
    }
    Ok(Arc::new(set))
}

/// "MCP server 'x' failed to start: why".
fn failure_line(status: &ServerStatus) -> String {
    let kind = if status.required {
        "required MCP server"
    } else {
        "MCP server"
    };
    format!(
        "{kind} '{}' failed to start: {}",
        status.name,
        status.error.as_deref().unwrap_or("unknown error")
    )
}

fn failure_hint(status: &ServerStatus) -> String {
    match status.stderr_tail.last() {
        Some(line) => format!(
            "its stderr ended with: {line}; `pincer status --mcp` shows more (-v shows it all)"
        ),
        None => "`pincer status --mcp` starts each server and reports what happens".to_owned(),
    }
}

/// The init event's `mcp_servers`.
pub(crate) fn init_servers(set: &McpSet) -> Vec<McpServer> {
    set.statuses()
        .iter()
        .map(|status| McpServer {
            name: status.name.clone(),
            status: status.state.as_str().to_owned(),
            transport: status.transport.to_owned(),
            tools: status.tools.iter().map(|tool| tool.name.clone()).collect(),
            error: status.error.clone(),
        })
        .collect()
}

/// The init event's `mcp_servers` when a CLI backend runs the turn: the child starts them,
/// except those refused a key variable, which fail.
pub(crate) fn delegated_servers(config: &McpConfig) -> Vec<McpServer> {
    config
        .enabled()
        .map(|server| McpServer {
            name: server.name.clone(),
            status: match server.refused {
                None => "delegated",
                Some(_) => "failed",
            }
            .to_owned(),
            transport: server.transport.kind().to_owned(),
            tools: Vec::new(),
            error: server.refused.clone(),
        })
        .collect()
}

/// Said when a CLI backend runs the turn: the servers refused a key variable are not handed to
/// it (`backend::mcp` leaves them out).
pub(crate) fn warn_refused(context: &Context, config: &McpConfig, backend: &str) {
    for server in config.enabled() {
        if let Some(reason) = &server.refused {
            context.diagnostics.warn(&format!(
                "MCP server '{}' is not passed to {backend}: {reason}",
                server.name
            ));
        }
    }
}

/// The servers as `--dry-run` shows them: nothing started, variable names instead of values
/// (`env` and headers by name only; command, args and URL as declared, `${VAR}` unexpanded).
pub(crate) fn dry_run(config: &McpConfig) -> Vec<McpDryRunServer> {
    let names = |value: Option<&Value>| -> Vec<String> {
        value
            .and_then(Value::as_object)
            .map(|object| object.keys().cloned().collect())
            .unwrap_or_default()
    };
    config
        .servers
        .iter()
        .map(|server| {
            let form = &server.claude_form;
            McpDryRunServer {
                name: server.name.clone(),
                origin: server.origin.clone(),
                transport: server.transport.kind().to_owned(),
                enabled: server.enabled,
                required: server.required,
                command: form.get("command").cloned(),
                args: form.get("args").cloned(),
                url: form.get("url").cloned(),
                env_names: names(form.get("env")),
                header_names: names(form.get("headers")),
                startup_timeout_sec: server.startup_timeout.as_secs_f64(),
                tool_timeout_sec: server.tool_timeout.as_secs_f64(),
                enabled_tools: server.enabled_tools.clone(),
                disabled_tools: server.disabled_tools.clone(),
            }
        })
        .collect()
}

/// `pincer status --mcp`: start each enabled server, list its tools, stop it. The report, and
/// whether every server started.
pub(crate) fn status_report(context: &Context, args: &McpArgs) -> CliResult<(McpStatus, bool)> {
    let config = config(context, &args.mcp_config, args.strict_mcp_config)?;
    let scope = CancelScope::start(context.started, None)?;
    let start = start_context(
        context,
        &[],
        scope.cancellation().token.clone(),
        crate::provider::http::client()
            .map_err(|error| CliError::new(Exit::RunFailed, error.to_string()))?,
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
