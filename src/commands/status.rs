//! `pincer status [SESSION|--last]`: one session's state, or the installation's (SPEC §1.6).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::auth::{iso, now_ms};
use super::{Context, ModelFacts, load_scoped, resolve_selector, stdout_error};
use crate::auth::resolve::{SourceReport, SourceState, describe_sources};
use crate::cli::StatusArgs;
use crate::conversation::compact_count;
use crate::error::{CliResult, Exit};
use crate::output::Stdout;
use crate::output::report::{
    CacheReport, CliBackendReport, CliBackends, CredentialSource, InstallationStatus,
    OverheadReport, ProviderCredentials, SandboxReport, SessionStatus, StatusContext, StatusPaths,
    StoreStatus, StoreStatusError, StoredProfile, StoredProfiles, SystemPromptReport, UsageReport,
};
use crate::session::index::IndexEntry;
use crate::session::store::SessionLock;

/// Providers whose credentials `status` reports, in the default-selection order of SPEC §11.
const PROVIDERS: [&str; 4] = ["anthropic", "openai", "google", "ollama"];

/// Run `status`.
pub(crate) fn status(context: &Context, args: &StatusArgs) -> CliResult<Exit> {
    if args.mcp {
        // Exit 1 when a server did not start, so a CI job can check its servers first.
        let (report, all_up) = super::mcp::status_report(context, &args.mcp_servers)?;
        let mut stdout = Stdout::new();
        if context.format.is_json() {
            stdout.json_report(&report).map_err(stdout_error)?;
        } else {
            stdout
                .write(&super::mcp::render_status(&report))
                .map_err(stdout_error)?;
        }
        return Ok(if all_up {
            Exit::Success
        } else {
            Exit::RunFailed
        });
    }
    status_of(context, args)
}

/// `status` without `--mcp`: one session's, or the installation's.
fn status_of(context: &Context, args: &StatusArgs) -> CliResult<Exit> {
    if args.session.is_some() || args.last {
        let wanted = crate::session::index::Wanted {
            queries: args.session.as_deref().into_iter().collect(),
            last: (args.last && args.session.is_none())
                .then_some((context.workspace.as_path(), args.all)),
        };
        let index = load_scoped(context, &wanted)?;
        let path = resolve_selector(
            context,
            &index,
            args.session.as_deref(),
            args.last,
            args.all,
        )?;
        let entry = match path
            .file_name()
            .and_then(|name| index.by_file(&name.to_string_lossy()))
        {
            Some(entry) if path.parent() == Some(context.sessions_dir()) => entry.clone(),
            _ => crate::session::index::summarize_file(&path).map_err(super::session_error)?,
        };
        let report = session_status(context, &path, &entry);
        return print(context, &report, render_session);
    }
    let cwd = context.workspace.to_string_lossy();
    let (counts, index_report) = crate::session::index::counts(context.sessions_dir(), &cwd)
        .map_err(super::session_error)?;
    super::tell_index_report(context, &index_report);
    let mut report = installation_status(context, counts, args.fresh_probe)?;
    let store_failure = match crate::remote::open(&context.settings)? {
        Some(store) => {
            let (status, failure) = store_status(context, &store)?;
            report.store = Some(status);
            failure
        }
        None => None,
    };
    print(context, &report, render)?;
    // A store that cannot hold sessions fails the command, as `status --mcp` does for a
    // server: a CI job can check its store first.
    match store_failure {
        Some(error) => Err(error),
        None => Ok(Exit::Success),
    }
}

/// Run the store's consistency check now (SPEC §19) and count its sessions.
fn store_status(
    context: &Context,
    store: &pincer_store::Store,
) -> CliResult<(StoreStatus, Option<crate::error::CliError>)> {
    let checked = crate::remote::block_on(async {
        store.check_consistency().await?;
        store.list_sessions().await
    })?;
    let mut status = StoreStatus {
        url: store.url().to_owned(),
        origin: context.settings.store.origin.to_owned(),
        reachable: true,
        consistent: Some(true),
        sessions: None,
        error: None,
    };
    match checked {
        Ok(sessions) => {
            status.sessions = Some(sessions.len());
            Ok((status, None))
        }
        Err(error) => {
            let kind = error.kind();
            status.reachable = kind != pincer_store::ErrorKind::Unavailable;
            status.consistent = match kind {
                pincer_store::ErrorKind::Inconsistent => Some(false),
                _ => None,
            };
            let error = crate::remote::store_error(error);
            status.error = Some(StoreStatusError {
                kind: error.kind().as_str().to_owned(),
                message: error.message.clone(),
            });
            Ok((status, Some(error)))
        }
    }
}

/// Print `report` as JSON or as the text `render` makes of it.
fn print<T: serde::Serialize>(
    context: &Context,
    report: &T,
    render: fn(&T) -> String,
) -> CliResult<Exit> {
    let mut stdout = Stdout::new();
    if context.format.is_json() {
        stdout.json_report(report).map_err(stdout_error)?;
    } else {
        stdout.write(&render(report)).map_err(stdout_error)?;
    }
    Ok(Exit::Success)
}

fn backend_of(provider: Option<&str>) -> &'static str {
    match provider {
        Some("claude-cli") => "claude-cli",
        Some("codex-cli") => "codex-cli",
        _ => "api",
    }
}

fn session_status(context: &Context, path: &Path, entry: &IndexEntry) -> SessionStatus {
    let summary = &entry.summary;
    let facts = ModelFacts::new(context);
    let occupancy = facts.occupancy(summary);
    SessionStatus {
        session_id: summary.id.clone(),
        session_name: summary.name.clone(),
        file: path.to_owned(),
        cwd: summary.cwd.clone(),
        backend: backend_of(summary.provider.as_deref()).to_owned(),
        provider: summary.provider.clone(),
        model: summary.model.clone(),
        backend_session_ids: summary.backend_sessions.clone(),
        thinking_level: summary.thinking_level.clone(),
        turns: summary.turns,
        messages: summary.messages,
        compactions: summary.compactions,
        context: StatusContext {
            tokens: occupancy.map(|o| o.tokens),
            window: facts.context_window(summary),
            percent: occupancy.and_then(|o| o.percent),
            estimated: summary.context_estimated,
        },
        last_call_usage: summary.last_usage.as_ref().map(UsageReport::from),
        usage: UsageReport::from(&summary.cumulative_usage()),
        total_cost_usd: facts.cost(summary),
        created: summary.created.clone(),
        last_activity: summary.updated.clone(),
        last_run_aborted: summary.last_run_aborted,
        last_error: summary.last_error.clone(),
        locked: SessionLock::is_held(path),
        problem: entry.problem.clone(),
        repair_command: entry
            .problem
            .as_ref()
            .map(|_| format!("pincer sessions repair {}", path.display())),
        torn_tail: entry.torn_tail,
    }
}

/// Where an executable named `name` is on `PATH`, found as a run would find it (no relative
/// entry: `crate::tools::program`).
fn find_on_path(name: &str) -> Option<PathBuf> {
    crate::tools::program::on_path(name, &[])
}

/// Whether a CLI's own login file exists (the file, never its content).
fn cli_logged_in(files: &[PathBuf]) -> bool {
    files.iter().any(|file| file.is_file())
}

/// One credential source as `status` shows it: never a value, a fingerprint at most.
fn source_report(report: &SourceReport) -> CredentialSource {
    let (state, until, reason) = match &report.state {
        SourceState::Ready => ("ready", None, None),
        SourceState::CoolingDown { until, reason } => {
            ("cooldown", Some(*until), Some(reason.clone()))
        }
        SourceState::Disabled { until, reason } => ("disabled", Some(*until), Some(reason.clone())),
        SourceState::Unusable(reason) => ("unusable", None, Some(reason.clone())),
    };
    CredentialSource {
        source: report.source.clone(),
        secret: report.secret.clone(),
        state: state.to_owned(),
        until: iso(until),
        reason,
    }
}

/// Per provider: the credentials a run would try, in order, and whether one is usable now; plus
/// every stored profile with its cooldown. Key commands are not run.
fn credentials(
    context: &Context,
    now: u64,
) -> CliResult<(Vec<ProviderCredentials>, StoredProfiles)> {
    let settings = &context.settings;
    let file = crate::auth::AuthFile::new(&settings.paths.auth_file);
    let (store, store_error) = match file.load() {
        Ok(store) => (store, None),
        // A store pincer may not read is the user's to fix (exit 2); a damaged one is reported.
        Err(crate::auth::AuthError::Io { path, source }) => {
            let message = format!("cannot read auth store '{}': {source}", path.display());
            if let Some(error) = super::access_error(&message, &path, &source) {
                return Err(error);
            }
            (crate::auth::Store::default(), Some(message))
        }
        Err(error) => (crate::auth::Store::default(), Some(error.to_string())),
    };
    let environment = |name: &str| std::env::var(name).ok();
    let mut providers: Vec<String> = PROVIDERS.iter().map(|name| (*name).to_owned()).collect();
    for name in settings.config.providers.keys() {
        if !providers.contains(name) && settings.provider_api(name).is_some() {
            providers.push(name.clone());
        }
    }
    let credentials = providers
        .iter()
        .map(|provider| {
            let env_vars = settings.key_env_vars(provider);
            let reports = describe_sources(&store, provider, &environment, &env_vars, now);
            let ready: Vec<&str> = reports
                .iter()
                .filter(|report| report.state == SourceState::Ready)
                .map(|report| report.source.as_str())
                .collect();
            let set: Vec<&String> = env_vars
                .iter()
                .filter(|name| environment(name).is_some_and(|value| !value.is_empty()))
                .collect();
            ProviderCredentials {
                provider: provider.clone(),
                usable: !ready.is_empty() || env_vars.is_empty(),
                source: ready.first().map(|source| (*source).to_owned()),
                sources: reports.iter().map(source_report).collect(),
                env_vars_set: set.into_iter().cloned().collect(),
                base_url: settings.base_url(provider),
            }
        })
        .collect();
    let profiles = match store_error {
        Some(error) => StoredProfiles::Unreadable { error },
        None => StoredProfiles::Read(
            store
                .profiles
                .iter()
                .map(|(id, profile)| {
                    let stats = store.usage_stats.get(id).cloned().unwrap_or_default();
                    let report =
                        describe_sources(&store, &profile.provider, &environment, &[], now)
                            .into_iter()
                            .find(|report| report.profile_id.as_deref() == Some(id.as_str()));
                    let shown = report.as_ref().map(source_report);
                    StoredProfile {
                        id: id.clone(),
                        provider: profile.provider.clone(),
                        source: profile.source_text(),
                        last_used: stats.last_used,
                        cooldown_until: stats.cooldown_until,
                        disabled_until: stats.disabled_until,
                        disabled_reason: stats.disabled_reason,
                        failure_counts: stats.failure_counts,
                        state: shown.as_ref().map(|shown| shown.state.clone()),
                        until: shown.as_ref().map(|shown| shown.until.clone()),
                        reason: shown.map(|shown| shown.reason),
                    }
                })
                .collect(),
        ),
    };
    Ok((credentials, profiles))
}

fn installation_status(
    context: &Context,
    (sessions, sessions_here): (usize, usize),
    fresh_probe: bool,
) -> CliResult<InstallationStatus> {
    let settings = &context.settings;
    let (credentials, auth_profiles) = credentials(context, now_ms())?;
    let paths = &settings.paths;
    // What runs wrote to consumed files, read once for every loader below.
    let written = crate::consumed::Written::load(&paths.state_dir);
    let loaded = crate::agent::context_files::load(
        &context.workspace,
        &paths.workspace_dir,
        &[&paths.config_dir, &paths.data_dir, &paths.state_dir],
        &settings.workspace.files,
        false,
        settings.workspace.max_file_chars,
        &written,
    );
    let files = loaded.files;
    let skills = super::discover_skills(context, &[], true, &written);
    let mut refused_files = loaded.skipped;
    refused_files.extend(skills.refused.iter().cloned());
    if settings.config.mcp.load_workspace.unwrap_or(false) {
        refused_files.extend(crate::mcp::config::workspace_refusal(
            &context.workspace,
            &written,
        ));
    }
    let sandbox = installation_sandbox(context, &crate::plan::turn::added_dirs(context, &[])?);
    let memory = if fresh_probe {
        crate::tools::ProbeMemory::Refresh
    } else {
        crate::tools::ProbeMemory::Reuse
    };
    let tool_names = default_tools(context);
    let tools = crate::tools::definitions(&tool_names);
    let built = crate::agent::prompt::build(&crate::agent::prompt::PromptInputs {
        workspace: &context.workspace,
        model: settings.model.as_deref().unwrap_or("-"),
        tools: &tools,
        mode: crate::agent::prompt::PromptMode::Full,
        replace: None,
        append: &settings.workspace.append_system_prompt,
        now: "",
        sandbox: settings.tools.sandbox.as_str(),
        added_dirs: &sandbox.added_dirs,
        files: &files,
        skills: &skills.loaded,
        heartbeat: false,
        git: None,
    });
    Ok(InstallationStatus {
        version: env!("CARGO_PKG_VERSION").to_owned(),
        model: settings.model.clone(),
        fallbacks: settings.fallbacks.clone(),
        workspace: context.workspace.clone(),
        paths: StatusPaths {
            config_file: paths.config_file.clone(),
            auth_file: paths.auth_file.clone(),
            sessions_dir: paths.sessions_dir.clone(),
        },
        credentials,
        auth_profiles,
        cli_backends: cli_backends(),
        sandbox: sandbox_report(&sandbox, &paths.state_dir, memory),
        overhead: overhead_report(&built.text, &tools),
        system_prompt: SystemPromptReport {
            chars: built.text.chars().count(),
            sections: built.sections,
            workspace_files: built.files,
        },
        skills,
        consumed: crate::consumed::report(),
        refused_files,
        cache: CacheReport {
            ttl: settings.cache_ttl.as_str().to_owned(),
        },
        sessions,
        sessions_here,
        // A ledger that cannot be read is the run's to report (exit 2), not the status's.
        budgets: super::usage::budget_report(context).unwrap_or_default(),
        store: None,
    })
}

/// Whether `claude` and `codex` are on PATH, and logged in by their own credential files
/// (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`, else under `HOME`).
fn cli_backends() -> CliBackends {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let claude_home = std::env::var_os("CLAUDE_CONFIG_DIR")
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|home| home.join(".claude")));
    let codex_home = std::env::var_os("CODEX_HOME")
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|home| home.join(".codex")));
    let cli = |name: &str, login_files: Vec<PathBuf>| {
        let found = find_on_path(name);
        CliBackendReport {
            installed: found.is_some(),
            logged_in: found.is_some() && cli_logged_in(&login_files),
            path: found,
        }
    };
    CliBackends {
        claude: cli(
            "claude",
            claude_home
                .into_iter()
                .map(|dir| dir.join(".credentials.json"))
                .collect(),
        ),
        codex: cli(
            "codex",
            codex_home
                .into_iter()
                .map(|dir| dir.join("auth.json"))
                .collect(),
        ),
    }
}

/// The built-in tools a turn run here with no flags offers: the configured profile and rules
/// under the configured sandbox, `apply_patch` instead of `write` and `edit` for a model on the
/// Responses API (as a turn decides, with the configured model or the one a turn would pick).
fn default_tools(context: &Context) -> Vec<&'static str> {
    let tools = &context.settings.tools;
    let offered = crate::tools::policy::ToolPolicy::new(&crate::tools::policy::PolicySpec {
        profile: Some(tools.profile.as_str()),
        exact: None,
        allow: &tools.allow,
        deny: &tools.deny,
    })
    .map_or_else(
        |_| crate::tools::CODING_TOOLS.to_vec(),
        |policy| policy.with_sandbox(tools.sandbox).offered(),
    );
    let responses = context
        .settings
        .model
        .clone()
        .or_else(|| crate::plan::models::default_model(context).ok())
        .and_then(|reference| crate::plan::models::resolve_model(context, &reference).ok())
        .is_some_and(|model| {
            model.cli.is_none() && model.api == crate::conversation::ApiKind::OpenAi
        });
    crate::tools::for_model(&offered, responses)
}

/// What every request of such a turn carries besides the messages (`overhead` in `status
/// --json`): the same estimate the result's `context.overhead_tokens` gives.
fn overhead_report(
    system_prompt: &str,
    tools: &[crate::conversation::ToolDefinition],
) -> OverheadReport {
    let overhead = crate::conversation::Overhead::of(system_prompt, tools);
    OverheadReport {
        tokens: overhead.tokens(),
        system_prompt_tokens: overhead.system_prompt_tokens,
        tool_tokens: overhead.tool_tokens,
        tools: tools.iter().map(|tool| tool.name.clone()).collect(),
    }
}

/// The sandbox of a turn run here with no flags.
fn installation_sandbox(context: &Context, added_dirs: &[PathBuf]) -> crate::tools::Sandbox {
    let settings = &context.settings;
    let mut sandbox = crate::tools::Sandbox::new(
        settings.tools.sandbox,
        &context.workspace,
        added_dirs,
        &settings.paths,
        None,
    );
    sandbox.web.allow_private = settings.tools.web_fetch_allow_private;
    sandbox.exec.network = settings.tools.network;
    // The config's rules (checked as it was read); no proxy: status starts no command.
    if !sandbox.exec.network
        && let Ok(rules) = crate::egress::policy(&settings.tools.network_rules, &[])
    {
        sandbox.exec.network_rules = rules;
    }
    sandbox
}

/// The sandbox as `status` and `--dry-run` report it: the mode and which protection `exec`
/// commands get here (probed once per process, SPEC §10, or remembered in `state_dir` from a
/// probe earlier this boot while nothing it depends on has changed, as `memory` says).
pub(crate) fn sandbox_report(
    sandbox: &crate::tools::Sandbox,
    state_dir: &Path,
    memory: crate::tools::ProbeMemory,
) -> SandboxReport {
    let (protection, probed_at) =
        crate::tools::ExecProtection::reported(sandbox, state_dir, memory);
    SandboxReport {
        mode: sandbox.mode.as_str().to_owned(),
        added_dirs: sandbox.added_dirs.clone(),
        web_fetch_private_addresses: if sandbox.web.allow_private {
            "allowed"
        } else {
            "refused"
        }
        .to_owned(),
        exec_protection: protection.level().to_owned(),
        exec_enforcement: protection.describe(),
        exec_enforced: protection.is_enforced(),
        exec_namespace: protection.namespace_line(),
        exec_landlock: protection.landlock.describe(),
        exec_network: protection.network_line(),
        exec_network_rules: (!sandbox.exec.network_rules.is_empty()
            && !sandbox.exec.network
            && sandbox.mode != crate::tools::SandboxMode::DangerFullAccess)
            .then(|| crate::egress::describe(&sandbox.exec.network_rules)),
        exec_launcher: protection.launcher.clone(),
        // When the protection above was probed, if not by this process.
        exec_probed_at: iso(probed_at),
    }
}

/// An optional field as the text view shows it: `-` when it is missing.
fn or_dash(value: Option<&str>) -> String {
    value.unwrap_or("-").to_owned()
}

/// One `key: value` line of the text views.
fn line(text: &mut String, key: &str, shown: String) {
    let _ = writeln!(text, "{key:<16}{shown}");
}

/// Render the installation's status as aligned `key: value` lines.
fn render(status: &InstallationStatus) -> String {
    let mut text = String::new();
    line(&mut text, "pincer:", status.version.clone());
    line(
        &mut text,
        "model:",
        match &status.model {
            Some(model) => model.clone(),
            None => "(not configured: the first provider with credentials is used)".to_owned(),
        },
    );
    line(
        &mut text,
        "workspace:",
        status.workspace.display().to_string(),
    );
    line(
        &mut text,
        "config:",
        status.paths.config_file.display().to_string(),
    );
    line(
        &mut text,
        "sessions dir:",
        status.paths.sessions_dir.display().to_string(),
    );
    render_sandbox(&mut text, &status.sandbox);
    let files: Vec<String> = status
        .system_prompt
        .workspace_files
        .iter()
        .map(|file| format!("{} ({} chars)", file.name, file.chars))
        .collect();
    line(&mut text, "context files:", none_or_joined(&files));
    let skills: Vec<String> = status
        .skills
        .loaded
        .iter()
        .map(|skill| format!("{} ({})", skill.name(), skill.source.as_str()))
        .collect();
    line(&mut text, "skills:", none_or_joined(&skills));
    for refusal in &status.refused_files {
        line(
            &mut text,
            "not read:",
            format!(
                "{}: {}; {}",
                refusal.path.display(),
                refusal.reason,
                refusal.fix
            ),
        );
    }
    let overhead = &status.overhead;
    line(
        &mut text,
        "overhead:",
        format!(
            "{} tokens per request (system prompt {}, {} tools {})",
            group(overhead.tokens),
            group(overhead.system_prompt_tokens),
            overhead.tools.len(),
            group(overhead.tool_tokens),
        ),
    );
    line(
        &mut text,
        "cache ttl:",
        format!(
            "{} (Anthropic prompt cache; `[cache] ttl`)",
            status.cache.ttl
        ),
    );
    line(
        &mut text,
        "sessions:",
        format!(
            "{} ({} in this workspace)",
            status.sessions, status.sessions_here
        ),
    );
    render_store_and_budgets(&mut text, status);
    render_credentials(&mut text, status);
    text
}

/// The session store's line, when one is configured, and a line per budget.
fn render_store_and_budgets(text: &mut String, status: &InstallationStatus) {
    if let Some(store) = &status.store {
        let state = match (&store.error, store.sessions) {
            (None, Some(sessions)) => format!("reachable, consistent, {sessions} session(s)"),
            (Some(error), _) if !store.reachable => format!("unreachable: {}", error.message),
            (Some(error), _) => format!("refused: {}", error.message),
            (None, None) => "reachable".to_owned(),
        };
        line(
            text,
            "store:",
            format!("{} ({}): {state}", store.url, store.origin),
        );
    }
    for budget in &status.budgets {
        line(
            text,
            "budget:",
            format!(
                "{} ${:.4} of ${:.2} spent, resets {}{}",
                budget.budget,
                budget.spent_usd,
                budget.limit_usd,
                budget.resets_at,
                if budget.exceeded {
                    " (reached: runs exit 5)"
                } else {
                    ""
                }
            ),
        );
    }
}

/// `none`, or the items joined by commas.
fn none_or_joined(items: &[String]) -> String {
    if items.is_empty() {
        "none".to_owned()
    } else {
        items.join(", ")
    }
}

/// The sandbox lines of `status`.
fn render_sandbox(text: &mut String, sandbox: &SandboxReport) {
    line(
        text,
        "sandbox:",
        format!(
            "{} (exec protection: {})",
            sandbox.mode, sandbox.exec_protection
        ),
    );
    line(text, "exec:", sandbox.exec_enforcement.clone());
    line(text, "network:", sandbox.exec_network.clone());
    if let Some(rules) = &sandbox.exec_network_rules {
        line(text, "network rules:", rules.clone());
    }
    if let Some(probed_at) = &sandbox.exec_probed_at {
        line(
            text,
            "exec probed:",
            format!("{probed_at}, remembered (`status --fresh-probe` probes again)"),
        );
    }
    let added: Vec<String> = sandbox
        .added_dirs
        .iter()
        .map(|dir| dir.display().to_string())
        .collect();
    if !added.is_empty() {
        line(text, "added dirs:", added.join(", "));
    }
}

/// The text view of `status SESSION`.
fn render_session(status: &SessionStatus) -> String {
    let mut text = String::new();
    let text_ref = &mut text;
    line(text_ref, "session:", status.session_id.clone());
    line(text_ref, "name:", or_dash(status.session_name.as_deref()));
    line(text_ref, "file:", status.file.display().to_string());
    line(text_ref, "cwd:", status.cwd.clone());
    line(
        text_ref,
        "model:",
        format!(
            "{} ({})",
            match (&status.provider, &status.model) {
                (Some(provider), Some(model)) => format!("{provider}/{model}"),
                _ => "-".to_owned(),
            },
            status.backend
        ),
    );
    if !status.backend_session_ids.is_empty() {
        let shown: Vec<String> = status
            .backend_session_ids
            .iter()
            .map(|(backend, id)| format!("{backend}={id}"))
            .collect();
        line(text_ref, "cli session:", shown.join(", "));
    }
    line(
        text_ref,
        "thinking:",
        or_dash(status.thinking_level.as_deref()),
    );
    line(text_ref, "turns:", status.turns.to_string());
    line(text_ref, "compactions:", status.compactions.to_string());
    let context = &status.context;
    let context_line = match (context.tokens, context.window, context.percent) {
        (Some(tokens), Some(window), Some(percent)) => format!(
            "{} / {} tokens ({percent:.1}%){}",
            group(tokens),
            group(window),
            if context.estimated { ", estimated" } else { "" }
        ),
        (Some(tokens), _, _) => format!("{} tokens (window unknown)", group(tokens)),
        _ => "-".to_owned(),
    };
    line(text_ref, "context:", context_line);
    let usage_line = |usage: Option<&UsageReport>| {
        usage.map_or_else(
            || "-".to_owned(),
            |usage| {
                format!(
                    "input {}, cache write {}, cache read {}, output {}",
                    compact_count(usage.input_tokens),
                    compact_count(usage.cache_creation_input_tokens),
                    compact_count(usage.cache_read_input_tokens),
                    compact_count(usage.output_tokens),
                )
            },
        )
    };
    line(
        text_ref,
        "last call:",
        usage_line(status.last_call_usage.as_ref()),
    );
    line(text_ref, "total usage:", usage_line(Some(&status.usage)));
    line(
        text_ref,
        "total cost:",
        format!("${:.4}", status.total_cost_usd),
    );
    line(text_ref, "last activity:", status.last_activity.clone());
    line(
        text_ref,
        "last run:",
        if status.last_run_aborted {
            format!("aborted ({})", or_dash(status.last_error.as_deref()))
        } else {
            "completed".to_owned()
        },
    );
    line(
        text_ref,
        "locked:",
        if status.locked {
            "yes, a run holds it now".to_owned()
        } else {
            "no".to_owned()
        },
    );
    if let Some(problem) = &status.problem {
        line(text_ref, "problem:", problem.clone());
        line(
            text_ref,
            "repair with:",
            or_dash(status.repair_command.as_deref()),
        );
    }
    text
}

/// The credentials and CLI backends blocks.
fn render_credentials(text: &mut String, status: &InstallationStatus) {
    text.push_str("credentials:\n");
    for credential in &status.credentials {
        let _ = writeln!(
            text,
            "  {:<15} {}",
            credential.provider,
            credential_line(credential)
        );
    }
    let waiting: Vec<&StoredProfile> = match &status.auth_profiles {
        StoredProfiles::Read(profiles) => profiles
            .iter()
            .filter(|profile| matches!(profile.state.as_deref(), Some("cooldown" | "disabled")))
            .collect(),
        StoredProfiles::Unreadable { .. } => Vec::new(),
    };
    if waiting.is_empty() {
        line(text, "cooldowns:", "none".to_owned());
    } else {
        text.push_str("cooldowns:\n");
        for profile in waiting {
            let _ = writeln!(
                text,
                "  {:<15} {}",
                profile.id,
                waiting_text(
                    profile.state.as_deref(),
                    profile.until.clone().flatten().as_deref(),
                    profile.reason.clone().flatten().as_deref()
                )
            );
        }
    }
    if let StoredProfiles::Unreadable { error } = &status.auth_profiles {
        line(text, "auth store:", error.clone());
    }
    text.push_str("cli backends:\n");
    for (name, backend) in [
        ("claude", &status.cli_backends.claude),
        ("codex", &status.cli_backends.codex),
    ] {
        let shown = if backend.installed {
            format!(
                "{} ({})",
                backend
                    .path
                    .as_ref()
                    .map_or_else(|| "-".to_owned(), |path| path.display().to_string()),
                if backend.logged_in {
                    "logged in"
                } else {
                    "not logged in"
                }
            )
        } else {
            "not installed".to_owned()
        };
        let _ = writeln!(text, "  {name:<15} {shown}");
    }
}

/// One provider's credentials: the usable sources in the order a run tries them, and how many
/// wait out a cooldown (listed under `cooldowns:`); `none` when nothing is usable.
fn credential_line(credential: &ProviderCredentials) -> String {
    let ready: Vec<String> = credential
        .sources
        .iter()
        .filter(|source| source.state == "ready")
        .map(|source| match &source.secret {
            Some(secret) => format!("{} ({secret})", source.source),
            None => source.source.clone(),
        })
        .collect();
    let waiting = credential
        .sources
        .iter()
        .filter(|source| source.is_waiting())
        .count();
    let mut line = if !ready.is_empty() {
        ready.join(", then ")
    } else if credential.usable {
        "none needed".to_owned()
    } else if waiting > 0 {
        "none usable now".to_owned()
    } else {
        "none".to_owned()
    };
    if waiting > 0 {
        let _ = write!(line, "; {waiting} in cooldown");
    }
    // A profile that cannot work (its variable unset, its token expired) is named, as
    // `auth list`, `auth status` and `auth test` name it.
    for source in credential
        .sources
        .iter()
        .filter(|source| source.state == "unusable")
    {
        let reason = source.reason.as_deref().unwrap_or("unusable");
        let _ = write!(line, "; {} unusable: {reason}", source.source);
    }
    line
}

/// `cooldown until 2026-12-01T10:05:00.000Z (rate_limit)`, for a profile.
fn waiting_text(state: Option<&str>, until: Option<&str>, reason: Option<&str>) -> String {
    let state = match state {
        Some("disabled") => "disabled",
        _ => "cooldown",
    };
    let until = or_dash(until);
    match reason.filter(|reason| !reason.is_empty()) {
        Some(reason) => format!("{state} until {until} ({reason})"),
        None => format!("{state} until {until}"),
    }
}

/// `85601` → `85,601`.
fn group(number: u64) -> String {
    let digits = number.to_string();
    let mut grouped = String::new();
    for (position, digit) in digits.chars().enumerate() {
        if position > 0 && (digits.len() - position).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    grouped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_grouped_by_thousands() {
        assert_eq!(group(85_601), "85,601");
        assert_eq!(group(200_000), "200,000");
        assert_eq!(group(999), "999");
        assert_eq!(group(1_000_000), "1,000,000");
    }
}
