//! `--dry-run`: the primary model's request (or the child a CLI backend would start) as the
//! turn would send it, as JSON on stdout, with the session, tools, sandbox, MCP servers and hooks
//! it resolved. Nothing is created, locked or sent.

use super::Context;
use crate::error::CliResult;
use crate::output::report::{ChildInvocation, DryRun};
use crate::plan::TurnRequest;
use crate::plan::child::cli_settings;
use crate::plan::turn::{DryRunParts, Known};
use crate::provider::http::Endpoint;
use crate::provider::{self, ModelRequest};

/// `--dry-run`: the primary model's request (or child invocation) as JSON on stdout, touching
/// nothing.
pub(crate) fn print(
    context: &Context,
    args: &TurnRequest,
    parts: &DryRunParts,
    known: &Known,
) -> CliResult<()> {
    let DryRunParts {
        setup,
        shared,
        chain,
        first,
        user,
    } = parts;
    let primary = &chain[0];
    let settings = &first.settings;
    let mut report = DryRun {
        kind: "dry_run".to_owned(),
        session_id: setup.session_id.clone(),
        model: settings.model.clone(),
        provider: settings.provider.clone(),
        backend: known.backend.unwrap_or("api").to_owned(),
        fallbacks: chain[1..]
            .iter()
            .map(|candidate| candidate.model_ref.clone())
            .collect(),
        system_prompt: settings.system_prompt.clone(),
        system_prompt_sections: first.prompt.sections.clone(),
        workspace_files: first.prompt.files.clone(),
        skills: shared.skills.clone(),
        tools: settings
            .tools
            .iter()
            .map(|tool| tool.name.clone())
            .collect(),
        tool_policy: shared.policy.describe(),
        // Touching nothing: a remembered probe is read, never written.
        sandbox: super::status::sandbox_report(
            &shared.sandbox,
            &context.settings.paths.state_dir,
            crate::tools::ProbeMemory::ReadOnly,
        ),
        mcp_servers: super::mcp::dry_run(&shared.mcp_config),
        hooks: super::hooks::dry_run(&shared.hooks.set),
        api: None,
        url: None,
        credentials: None,
        thinking: None,
        cache_ttl: None,
        overhead_tokens: None,
        body: None,
        child: None,
    };
    match primary.resolved.cli {
        Some(backend) => {
            let cli = cli_settings(context, args, shared, (primary, backend), settings)?;
            report.child = Some(child_invocation(&cli, backend, &shared.prompt));
        }
        None => {
            let mut messages = setup.context.clone();
            messages.push(user.clone());
            let mut request = ModelRequest {
                model: settings.model.clone(),
                system_prompt: settings.system_prompt.clone(),
                messages: crate::conversation::repair(&messages),
                tools: settings.tools.clone(),
                thinking: shared.thinking,
                thinking_budget: settings.thinking_budget,
                max_output_tokens: settings.max_output_tokens,
                reasoning_model: settings.reasoning_model,
                output_format: None,
                web_search: settings.web_search,
                cache_key: settings.cache_key.clone(),
                cache_writes: Some(settings.cache_ttl),
            };
            if let Some(plan) = &settings.structured {
                plan.shape(&mut request, false);
            }
            let protocol = provider::protocol(settings.api, &request);
            let endpoint = Endpoint {
                api_key: None,
                ..settings.endpoint.clone()
            };
            report.api = Some(protocol.api_name.to_owned());
            report.url = Some(provider::http::url(&endpoint, &protocol));
            report.credentials = Some(
                if !primary.credentials.is_empty() {
                    "found"
                } else if primary.needs_key {
                    "missing"
                } else {
                    "not needed"
                }
                .to_owned(),
            );
            report.thinking = Some(shared.thinking.as_str().to_owned());
            report.cache_ttl = Some(settings.cache_ttl.as_str().to_owned());
            report.overhead_tokens = Some(
                crate::conversation::Overhead::of(&settings.system_prompt, &settings.tools)
                    .tokens(),
            );
            report.body = Some(protocol.request.json());
        }
    }
    let mut stdout = crate::output::Stdout::new();
    stdout.json_report(&report).map_err(super::stdout_error)
}

/// The child a CLI backend would start, as `--dry-run` shows it: variable names, never values.
fn child_invocation(
    cli: &crate::engine::cli::CliSettings,
    backend: crate::backend::CliBackend,
    prompt: &str,
) -> ChildInvocation {
    let invocation = crate::engine::cli::describe(cli, prompt);
    let claude = backend == crate::backend::CliBackend::Claude;
    ChildInvocation {
        program: invocation.program,
        argv: invocation.args,
        prompt_via_stdin: invocation.stdin.is_some(),
        env_names: cli
            .environment
            .iter()
            .map(|(name, _)| name.to_string_lossy().into_owned())
            .collect(),
        cleared_env: cli.backend_settings.clear_env.clone(),
        mcp_config: claude
            .then(|| crate::backend::mcp::claude_config_shown(&cli.mcp, &cli.policy))
            .flatten(),
        hook_settings: claude
            .then(|| crate::backend::hooks::claude_settings(&cli.hooks))
            .flatten(),
    }
}
