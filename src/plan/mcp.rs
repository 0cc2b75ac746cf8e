//! MCP servers for a command (SPEC §13): the merged configuration, starting the servers of a
//! turn (warnings, the `required` rule, cancellation), what the init event, `--dry-run` and
//! `status --mcp` show of them.
//!
//! The turn itself only sees an `McpSet`; everything a person reads about the servers is said
//! here, through `Diagnostics` and `Stdout`.
//!
//! A run's servers live for its one turn. A front-end that runs several turns in one process
//! (an agent SDK's session) keeps them instead, in [`KeptServers`], as claude keeps its servers
//! for the life of its process: a stateful server keeps its state from one prompt to the next.

use std::sync::{Arc, Mutex, PoisonError};

use super::env::RunEnv;
use crate::engine::event::{McpServer, McpStart};
use crate::error::{CliError, CliResult, Exit};
use crate::mcp::{
    McpConfig, McpConfigError, McpSet, ServerState, ServerStatus, StartContext, StartErrorClass,
};
use crate::scope::{CancelScope, cancelled_error};

/// The `error.kind` of a run stopped by a required server.
pub(crate) const ERROR_KIND: crate::error::ErrorKind = crate::error::ErrorKind::Mcp;

/// The servers of this run: config.toml's (with `-c`), the workspace's `.mcp.json` when
/// `mcp.load_workspace = true`, and `--mcp-config`'s (`flags`; with `strict` those alone). A bad
/// declaration is exit 2. A server of `.mcp.json` starts only as the user approved it
/// (`approve`: approve them as they are now), else it is refused ([`approve_workspace`]).
pub(crate) fn config(
    context: &dyn RunEnv,
    flags: &[String],
    strict: bool,
    approve: bool,
    written: &crate::consumed::Written,
) -> CliResult<McpConfig> {
    let file = &context.settings().config;
    let known = context.known_keys()?;
    let sources = crate::mcp::config::Sources {
        config_toml: &file.mcp_servers,
        load_workspace: file.mcp.load_workspace.unwrap_or(false),
        workspace: context.workspace(),
        flags,
        strict,
        keys: crate::mcp::config::KeyVariables {
            names: &known.variables,
            allowed: &file.mcp.allow_key_env,
        },
        written,
    };
    let mut config = crate::mcp::config::resolve(&sources, &crate::settings::process_env)
        .map_err(config_error)?;
    for refusal in &config.refused {
        context.warn(&refusal.warning());
    }
    approve_workspace(context, &mut config, approve)?;
    Ok(config)
}

/// Issue #45, hole 3: a repository can ship or change `.mcp.json` between two runs, and each
/// server it names is a program pincer starts. With `approve`, record the workspace's servers
/// as they are now (in the state directory); otherwise refuse each one that is new or changed
/// since it was approved, with the way to approve it.
fn approve_workspace(context: &dyn RunEnv, config: &mut McpConfig, approve: bool) -> CliResult<()> {
    use crate::mcp::approvals::{self, Approvals};
    let from_workspace =
        |server: &crate::mcp::ServerSpec| server.origin == crate::mcp::config::WORKSPACE_FILE;
    if !approve && !config.servers.iter().any(from_workspace) {
        return Ok(());
    }
    let state_dir = &context.settings().paths.state_dir;
    let mut approvals =
        Approvals::load(state_dir).map_err(|error| CliError::new(Exit::RunFailed, error))?;
    let workspace = context.workspace();
    let mut prints = std::collections::BTreeMap::new();
    for server in config
        .servers
        .iter_mut()
        .filter(|server| from_workspace(server))
    {
        let print = approvals::fingerprint(&server.name, &server.claude_form);
        if !approve && server.refused.is_none() {
            match approvals.approved(workspace, &server.name, &print) {
                Some(true) => {}
                approved => {
                    server.refused = Some(approvals::refusal(&server.name, approved.is_some()));
                }
            }
        }
        prints.insert(server.name.clone(), print);
    }
    if approve {
        let names = prints.keys().cloned().collect::<Vec<_>>().join(", ");
        approvals.approve(workspace, prints);
        let path = approvals
            .save(state_dir)
            .map_err(|error| CliError::new(Exit::RunFailed, error))?;
        context.note(&format!(
            "approved the workspace's MCP servers ({}) in {}",
            if names.is_empty() { "none" } else { &names },
            path.display()
        ));
    }
    Ok(())
}

fn config_error(error: McpConfigError) -> CliError {
    let hint = error.hint();
    CliError::usage(error.to_string()).with_hint(hint)
}

/// What starting needs: the workspace, pincer's environment minus `[tools.exec] clear_env`,
/// every key variable and every known key (the run's `keys` among them), the HTTP client, `-v`'s
/// stderr lines.
pub(crate) fn start_context(
    context: &dyn RunEnv,
    keys: &[&str],
    cancel: tokio_util::sync::CancellationToken,
    (http, sdk_channel, network): (
        reqwest::Client,
        Option<&Arc<crate::control::Channel>>,
        Option<crate::mcp::ServerNetwork>,
    ),
) -> CliResult<StartContext> {
    let known = context.known_keys()?;
    let on_stderr: Option<crate::mcp::StderrSink> = context.detailer().map(|detail| {
        Arc::new(move |server: &str, line: &str| detail(&format!("mcp[{server}]: {line}")))
            as crate::mcp::StderrSink
    });
    Ok(StartContext {
        workspace: context.workspace().to_path_buf(),
        environment: Arc::new(std::env::vars_os().collect()),
        clear_env: known.clear_list(&context.settings().tools.exec.clear_env),
        secrets: known
            .patterns(keys)
            .into_iter()
            .map(str::to_owned)
            .collect(),
        http,
        on_stderr,
        trace: crate::telemetry::child_trace(),
        sdk_channel: sdk_channel.cloned(),
        cancel,
        network,
    })
}

/// What the run gives its servers: the turn's HTTP client, the SDK's channel, the network
/// rules a stdio server follows (SPEC §20).
pub(crate) type RunSide<'a> = (
    &'a reqwest::Client,
    Option<&'a Arc<crate::control::Channel>>,
    Option<crate::mcp::ServerNetwork>,
);

/// Start the enabled servers for a turn, before its first request. A server that fails is a
/// warning (and `status: "failed"` in the init event); a `required` one ends the run: exit 1
/// with `error.kind = "mcp"`, its servers stopped. `http` is the turn's HTTP client.
pub(crate) fn start_for_turn(
    context: &dyn RunEnv,
    scope: &CancelScope,
    config: &McpConfig,
    keys: &[&str],
    (http, sdk_channel, network): RunSide<'_>,
) -> CliResult<Arc<McpSet>> {
    if config.enabled().next().is_none() {
        return Ok(Arc::new(McpSet::empty()));
    }
    let start = start_context(
        context,
        keys,
        scope.cancellation().token.clone(),
        (http.clone(), sdk_channel, network),
    )?;
    let set = scope
        .wait(McpSet::start(config, &start))
        .map_err(cancelled_error)?;
    for status in set.statuses() {
        match status.state {
            ServerState::Connected => context.detail(&format!(
                "mcp: server '{}' connected in {} ms ({} tools)",
                status.name,
                status.startup.as_millis(),
                status.tools.len()
            )),
            ServerState::Failed if !status.required => context.warn(&format!(
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

/// MCP servers kept across the turns of one process: the first turn that needs them starts
/// them, the next ones reuse them while the configuration is the same (a changed one stops the
/// old servers and starts the new), and the front-end stops them at its end
/// ([`KeptServers::shutdown`]). Their connections, processes and stderr readers are tasks of
/// [`KeptServers::runtime`], so every turn that uses them runs on it.
pub(crate) struct KeptServers {
    /// Declared before the runtime: dropped first, while the runtime still exists. With the
    /// servers, the egress proxy they were started behind (none: no network rules).
    kept: Mutex<Option<Kept>>,
    /// The egress proxy of the front-end's turns while their rules stay the same (SPEC §20): a
    /// kept server goes on reaching the proxy it was started behind, and each turn reports
    /// what that proxy refused.
    egress: Mutex<Option<(pincer_egress::Policy, Arc<crate::egress::RunEgress>)>>,
    runtime: Arc<tokio::runtime::Runtime>,
}

/// Servers kept across turns: what they were started for, and behind which egress proxy.
struct Kept {
    config: McpConfig,
    set: Arc<McpSet>,
    egress: Option<Arc<dyn crate::tools::Egress>>,
}

impl std::fmt::Debug for KeptServers {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        formatter
            .debug_struct("KeptServers")
            .field("set", &kept.as_ref().map(|kept| &kept.set))
            .finish_non_exhaustive()
    }
}

impl KeptServers {
    /// None started yet, and the runtime they will run on.
    pub(crate) fn new() -> CliResult<KeptServers> {
        Ok(KeptServers {
            kept: Mutex::new(None),
            egress: Mutex::new(None),
            runtime: Arc::new(crate::scope::runtime()?),
        })
    }

    /// The egress proxy for a turn under `rules`: the one kept for earlier turns when their
    /// rules were the same, else one `make`s, kept for the next turns.
    pub(crate) fn egress(
        &self,
        rules: &pincer_egress::Policy,
        make: impl FnOnce() -> CliResult<Arc<crate::egress::RunEgress>>,
    ) -> CliResult<Arc<crate::egress::RunEgress>> {
        let mut kept = self.egress.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((kept_rules, egress)) = kept.as_ref()
            && kept_rules == rules
        {
            return Ok(Arc::clone(egress));
        }
        let egress = make()?;
        *kept = Some((rules.clone(), Arc::clone(&egress)));
        Ok(egress)
    }

    /// The runtime every turn of the front-end runs on.
    pub(crate) fn runtime(&self) -> Arc<tokio::runtime::Runtime> {
        Arc::clone(&self.runtime)
    }

    /// The servers of `config`: the kept ones when they were started for the same
    /// configuration behind the same egress proxy, else started now ([`start_for_turn`]) and
    /// kept, the old ones stopped. A start that ends the run (a required server failed, a
    /// signal) keeps nothing.
    pub(crate) fn start_or_reuse(
        &self,
        context: &dyn RunEnv,
        scope: &CancelScope,
        config: &McpConfig,
        keys: &[&str],
        http: RunSide<'_>,
    ) -> CliResult<Arc<McpSet>> {
        let egress = http.2.as_ref().map(|network| Arc::clone(&network.egress));
        let same_egress = |kept: &Kept| match (&kept.egress, &egress) {
            (None, None) => true,
            // The same proxy: its data, whatever vtable the pointer carries.
            (Some(kept), Some(egress)) => std::ptr::addr_eq(Arc::as_ptr(kept), Arc::as_ptr(egress)),
            _ => false,
        };
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(servers) = kept.as_ref()
            && servers.config == *config
            && same_egress(servers)
        {
            return Ok(Arc::clone(&servers.set));
        }
        if let Some(old) = kept.take() {
            scope.block_on(old.set.shutdown());
        }
        let set = start_for_turn(context, scope, config, keys, http)?;
        *kept = Some(Kept {
            config: config.clone(),
            set: Arc::clone(&set),
            egress,
        });
        Ok(set)
    }

    /// Stop the kept servers (the process is ending): connections closed, stdio servers'
    /// process groups stopped.
    pub(crate) fn shutdown(&self) {
        let kept = self
            .kept
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(kept) = kept {
            self.runtime.block_on(kept.set.shutdown());
        }
    }
}

/// "MCP server 'x' failed to start: why".
pub(crate) fn failure_line(status: &ServerStatus) -> String {
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

pub(crate) fn failure_hint(status: &ServerStatus) -> String {
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
            start: Some(McpStart {
                at: status.started_at,
                took: status.startup,
                error_class: status.error_class.map(StartErrorClass::as_str),
            }),
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
            start: None,
        })
        .collect()
}

/// Said when a CLI backend runs the turn: the servers refused a key variable are not handed to
/// it (`backend::mcp` leaves them out).
pub(crate) fn warn_refused(context: &dyn RunEnv, config: &McpConfig, backend: &str) {
    for server in config.enabled() {
        if let Some(reason) = &server.refused {
            context.warn(&format!(
                "MCP server '{}' is not passed to {backend}: {reason}",
                server.name
            ));
        }
    }
}
