//! A delegated attempt: the settings of a `claude` or `codex` child for one candidate, and what
//! such a child cannot enforce, said out loud.

use super::TurnRequest;
use super::attempt::Shared;
use super::env::RunEnv;
use super::models::Candidate;
use crate::engine::api::ApiSettings;
use crate::error::{CliError, CliResult};

/// The settings of a delegated attempt: `attempt` was built for this candidate (its system
/// prompt and guardrails).
pub(crate) fn cli_settings(
    context: &dyn RunEnv,
    args: &TurnRequest,
    shared: &Shared,
    (candidate, backend): (&Candidate, crate::backend::CliBackend),
    attempt: &ApiSettings,
) -> CliResult<crate::engine::cli::CliSettings> {
    let backend_settings = context
        .settings()
        .backend(backend.name())
        .ok_or_else(|| CliError::usage(format!("unknown CLI backend '{}'", backend.name())))?
        .clone();
    let images = args
        .image
        .iter()
        .map(|path| {
            std::fs::canonicalize(path).map_err(|error| {
                CliError::usage(format!("cannot read image '{}': {error}", path.display()))
            })
        })
        .collect::<CliResult<Vec<_>>>()?;
    let model = &candidate.resolved.reference.model;
    let child_model = backend.child_model(model, crate::config::catalog().resolve_alias(model));
    // The model may come from the session file (a resume without `-m`), which may have been
    // shared or edited: a name that could pass for an option never reaches the child.
    if let Some(problem) = crate::backend::child_model_problem(&child_model) {
        return Err(CliError::usage(format!(
            "the model name {:?} cannot be passed to {}: {problem}",
            child_model.chars().take(80).collect::<String>(),
            backend.name()
        ))
        .with_hint(format!(
            "name the model with -m (e.g. -m {}/{})",
            backend.name(),
            match backend {
                crate::backend::CliBackend::Claude => "sonnet",
                crate::backend::CliBackend::Codex => "gpt-5-codex",
            }
        )));
    }
    let known = context.known_keys()?;
    let (variables, patterns) = known.for_backend(context.settings().store.url.is_some());
    let mut environment = crate::backend::child_environment(
        (backend, &backend_settings),
        std::env::vars_os(),
        (&variables, &patterns),
    );
    if backend == crate::backend::CliBackend::Codex {
        // codex passes variables on to its MCP servers by name: they are set in its environment.
        let overrides = crate::backend::mcp::codex_overrides(&shared.mcp_config, &shared.policy);
        for (name, value) in overrides.env {
            environment.retain(|(existing, _)| existing.as_os_str() != name.as_str());
            environment.push((name.into(), value.into()));
        }
    }
    Ok(crate::engine::cli::CliSettings {
        backend,
        environment,
        mcp: shared.mcp_config.clone(),
        trace: crate::telemetry::child_trace(),
        hooks: shared.hooks.set.clone(),
        project_settings: shared.claude_project_settings,
        backend_settings,
        model: model.clone(),
        child_model,
        system_prompt: attempt.system_prompt.clone(),
        policy: shared.policy.clone(),
        sandbox: shared.sandbox_mode,
        added_dirs: shared.sandbox.added_dirs.clone(),
        web_search: shared.web_search.asked,
        thinking: shared.thinking_asked,
        max_turns: attempt.max_turns,
        max_budget_usd: attempt.max_budget_usd,
        images,
        idle_timeout: attempt.idle_timeout,
        prices: context
            .settings()
            .model_info(backend.name(), model)
            .map(|info| info.prices()),
        workspace: context.workspace().to_path_buf(),
        redactor: shared.redactor.clone(),
        structured: super::structured::child_plan(
            context,
            shared.output_schema.as_ref(),
            &candidate.resolved,
        ),
    })
}

/// Said out loud rather than dropped: codex exec has no switch for these, and a child runs the
/// hooks with its own rules.
pub(crate) fn warn_unenforced(
    context: &dyn RunEnv,
    args: &TurnRequest,
    shared: &Shared,
    backend: crate::backend::CliBackend,
) {
    let hooks = &shared.hooks.set;
    if let Some(warning) = crate::backend::hooks::sandbox_warning(hooks, backend.name()) {
        context.warn(&warning);
    }
    super::mcp::warn_refused(context, &shared.mcp_config, backend.name());
    if !shared.sandbox.exec.network_rules.is_empty() {
        // The child runs its own tools under its own sandbox: the egress proxy is pincer's.
        context.warn(&format!(
            "--allow-host and [sandbox.network] do not reach {}'s own tools: its commands get \
             its own sandbox's network",
            backend.name()
        ));
    }
    if backend != crate::backend::CliBackend::Codex {
        return;
    }
    for warning in crate::backend::hooks::codex_overrides(hooks).warnings {
        context.warn(&warning);
    }
    let unenforced: Vec<&str> = [
        (
            !args.allowed_tools.is_empty() || !args.disallowed_tools.is_empty(),
            "--allowed-tools/--disallowed-tools rules",
        ),
        (args.max_turns.is_some(), "--max-turns"),
        (args.max_budget_usd.is_some(), "--max-budget-usd"),
    ]
    .into_iter()
    .filter_map(|(given, flag)| given.then_some(flag))
    .collect();
    if !unenforced.is_empty() {
        context.warn(&format!(
            "codex exec cannot enforce {}; only the sandbox mode limits what it does",
            unenforced.join(", ")
        ));
    }
    for warning in crate::backend::mcp::codex_overrides(&shared.mcp_config, &shared.policy).warnings
    {
        context.warn(&warning);
    }
}
