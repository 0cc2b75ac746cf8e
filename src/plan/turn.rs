//! One turn, put together: the checks that come before anything is created (schema, cassette,
//! MCP and hook declarations, the prompt, the model chain and its credentials, tool rules), the
//! MCP servers, the session, the shared and first attempt's settings, the prompt hooks, then the
//! failover loop over the chain and the session closed behind it. A front-end (the `run` and
//! `resume` commands) reads the input, gives a [`Front`], and renders what comes back.

use std::path::PathBuf;

use super::attempt::{Attempt, Shared, attempt_settings, shared_settings};
use super::chain::{ChainLinks, SwitchModel, run_chain};
use super::env::RunEnv;
use super::models::{Candidate, chain_keys, default_model, model_chain};
use super::{ChainOutcome, TurnInput, TurnRequest};
use crate::conversation::SandboxMode;
use crate::conversation::{ContentBlock, Message, MessageContent, UserMessage};
use crate::engine::event::{Event, EventSink, Init, Input};
use crate::engine::{CancelReason, Ending};
use crate::error::{CliError, CliResult, Exit, session_error};
use crate::plan;
use crate::provider::ThinkingLevel;
use crate::provider::http::Transport;
use crate::scope::CancelScope;
use crate::session::index::{self, Index};
use crate::session::record::NewEntry;
use crate::session::transcript::Transcript;
use crate::session_setup as setup;

/// What a turn is run from: the run around it, where its session is and which one, and the
/// scope that cancels it.
#[derive(Clone, Copy)]
pub(crate) struct Front<'run> {
    pub(crate) env: &'run dyn RunEnv,
    pub(crate) host: &'run dyn setup::Host,
    pub(crate) choice: setup::Choice<'run>,
    pub(crate) scope: &'run CancelScope,
}

/// What [`execute`] did.
pub(crate) enum Execution {
    /// `--dry-run`: everything resolved, nothing created, nothing sent.
    DryRun(Box<DryRunParts>),
    /// The turn ran (or failed inside the chain): the session and the chain's outcome.
    Turn {
        setup: Box<setup::SessionSetup>,
        outcome: Box<ChainOutcome>,
    },
}

/// What a dry run shows: the session as it is, and the primary model's first attempt.
pub(crate) struct DryRunParts {
    pub(crate) setup: setup::SessionSetup,
    pub(crate) shared: Shared,
    pub(crate) chain: Vec<Candidate>,
    pub(crate) first: Attempt,
    pub(crate) user: Message,
}

/// What the command knows about the run so far, for the result object of a failure.
#[derive(Debug, Default, Clone)]
pub(crate) struct Known {
    pub(crate) session_id: Option<String>,
    pub(crate) session_name: Option<String>,
    pub(crate) model: Option<String>,
    pub(crate) provider: Option<String>,
    /// `claude-cli` / `codex-cli` for a delegated turn (None: the API).
    pub(crate) backend: Option<&'static str>,
}

pub(crate) fn execute(
    front: &Front<'_>,
    args: &TurnRequest,
    read_input: &mut dyn FnMut() -> CliResult<TurnInput>,
    sink: &mut dyn EventSink,
    known: &mut Known,
) -> CliResult<Execution> {
    let Front {
        env: context,
        host,
        choice,
        scope,
    } = *front;
    // The flags and the configuration, resolved: every usage error among them is found before
    // anything is read, created or sent (issue #48).
    let plan::resolved::TurnPlan {
        output_schema,
        cassette,
        added_dirs,
        hooks: hook_set,
        policy,
        web_search,
        network_rules,
    } = plan::resolved::resolve(context, args, &choice)?;
    // Issue #45: what earlier runs wrote to consumed files is approved before anything is
    // loaded, and what this run writes is watched from before the first tool call to the end.
    let mut watch = watch_consumed(context, args, &added_dirs)?;
    // What earlier runs wrote and nobody approved, read once (after the approval above) for
    // every loader of this turn.
    let written = crate::consumed::Written::load(&context.settings().paths.state_dir);
    // A bad MCP server declaration is a usage error (SPEC §13), found before anything waits.
    let mcp_config = plan::mcp::config(
        context,
        &args.mcp_config,
        args.strict_mcp_config,
        args.approve_workspace_mcp,
        &written,
    )?;
    let input = read_input()?;
    let (index, chain, recorded_thinking) =
        resolve_chain(context, args, (host, &choice), &cassette, known)?;
    // The network by name (SPEC §20), the rules resolved above: the proxy serves the commands
    // and the MCP stdio servers alike.
    let network = plan::attempt::run_network(context, args, (network_rules, &added_dirs))?;
    let mut transport = None;
    let mcp = start_mcp(
        context,
        args,
        scope,
        (&chain, network.as_ref()),
        &mcp_config,
        &cassette,
        &mut transport,
    )?;
    let policy = policy.with_mcp_tools(mcp.tools());
    // `--web-search` the primary model cannot honour is a usage error: before the session.
    plan::web_search::check_primary(
        context.settings(),
        web_search,
        &chain[0].resolved,
        !policy.offered().is_empty() || !policy.offered_mcp().is_empty(),
    )?;

    // A dry run resolves everything and prints the request, touching nothing.
    let mut setup = if args.dry_run {
        setup::dry_run_context(host, &index, &choice)?
    } else {
        setup::setup_session(host, &index, &choice, args.no_session_persistence)?
    };
    known.session_id.clone_from(&setup.session_id);
    if let Some(watch) = &mut watch {
        watch.session.clone_from(&setup.session_id);
    }
    known.session_name.clone_from(&setup.session_name);
    let (shared, user) = shared_settings(
        context,
        args,
        input,
        &chain,
        plan::attempt::TurnFacts {
            policy,
            mcp,
            mcp_config,
            added_dirs: &added_dirs,
            recorded_thinking,
            output_schema,
            network,
            hook_set,
            session: plan::SessionRef {
                id: setup.session_id.as_deref(),
                path: setup.path.as_deref(),
            },
            written: &written,
        },
    )?;
    let primary = &chain[0];
    let first = attempt_settings(context, args, &shared, primary);
    if args.dry_run {
        return Ok(Execution::DryRun(Box::new(DryRunParts {
            setup,
            shared,
            chain,
            first,
            user,
        })));
    }

    sink.emit(&Event::Init(init_event(
        context, &setup, &first, primary, &shared, known,
    )));
    if let Some(id) = &setup.session_id {
        context.note(&format!("session: {id}"));
    }
    let user = prompt_hooks(context, (scope, &choice), primary, &shared, user, sink)?;
    sink.emit(&Event::Input(Input {
        prompt: match &user {
            Message::User(message) => message.content.text(),
            _ => String::new(),
        },
        system: first.settings.system_prompt.clone(),
    }));
    let mut messages = start_turn(&mut setup, primary, shared.thinking, user)?;
    let client = match transport {
        Some(transport) => transport,
        None => cassette.transport()?,
    };
    let links = ChainLinks {
        context,
        args,
        shared: &shared,
        chain: &chain,
        links: chain.iter().map(Candidate::link).collect(),
        first: Some(first),
        client: &client,
        messages: &mut messages,
        transcript: &mut setup.transcript,
        cancellation: scope.cancellation(),
        switch: SwitchModel::for_request(context, args, &shared),
    };
    let mut outcome = end_turn(context, scope, links, sink)?;
    if let Some(mut watch) = watch {
        report_written(context, &mut watch);
    }
    close_session(context, &mut setup, primary, &outcome)?;
    // A lock wait that --timeout cut short (the credential store's while the turn recorded a
    // credential's outcome, the index's after it) ends the run as the timeout does in any other
    // phase (SPEC §2), though the turn itself is complete in the session.
    if crate::fs::wait_cut_by_deadline() && matches!(outcome.report.ending, Ending::Completed) {
        outcome.report.ending = Ending::Cancelled(CancelReason::Timeout);
    }
    Ok(Execution::Turn {
        setup: Box::new(setup),
        outcome: Box::new(outcome),
    })
}

/// Run the chain, then stop what the turn started: every exit path of the turn stops the MCP
/// servers here (the others drop the set, which kills their process groups at once) unless the
/// front-end keeps them for its next turns, and an API turn's SessionEnd hooks run.
fn end_turn(
    context: &dyn RunEnv,
    scope: &CancelScope,
    links: ChainLinks<'_>,
    sink: &mut dyn EventSink,
) -> CliResult<ChainOutcome> {
    let shared = links.shared;
    let kept = links.args.kept_mcp.is_some();
    let api = links.chain[0].resolved.cli.is_none();
    let outcome = scope.block_on(run_chain(links, sink));
    if !kept {
        scope.block_on(shared.mcp.shutdown());
    }
    if api {
        plan::hooks::session_end(context, scope, &shared.hooks, sink);
    }
    outcome
}

/// Record a fallback's model change, then sync and release the session before refreshing its
/// index entry.
fn close_session(
    context: &dyn RunEnv,
    setup: &mut setup::SessionSetup,
    primary: &Candidate,
    outcome: &ChainOutcome,
) -> CliResult<()> {
    // A fallback answers this turn only: the session stays on the model it was run with — or
    // on the one `set_model` switched the turn to, recorded when it took over.
    if outcome.report.switched_model.is_none() && outcome.last_model != primary.model_ref {
        append_model_change(&mut setup.transcript, primary)?;
    }
    setup.transcript.close().map_err(session_error)?;
    if let Some(path) = &setup.path {
        let _ = index::update_one(context.sessions_dir(), path);
    }
    Ok(())
}

/// Resolve every model of the chain and its credentials before anything is created, so a run
/// that cannot start leaves no session behind. Also returns the index (looked up only when the
/// turn names a session) and the thinking level the session recorded.
fn resolve_chain(
    context: &dyn RunEnv,
    args: &TurnRequest,
    (host, choice): (&dyn setup::Host, &setup::Choice<'_>),
    cassette: &plan::replay::RunCassette,
    known: &mut Known,
) -> CliResult<(Index, Vec<Candidate>, Option<ThinkingLevel>)> {
    let index = setup::index_for(host, choice)?;
    let (recorded_model, recorded_thinking) = setup::peek_recorded(host, &index, choice)?;
    let recorded_thinking = recorded_thinking
        .as_deref()
        .and_then(ThinkingLevel::from_name);
    let reference = match (&args.model, &recorded_model, &context.settings().model) {
        (Some(model), _, _) => model.clone(),
        (None, Some(recorded), _) => recorded.clone(),
        (None, None, configured) => match (cassette.default_model(), configured) {
            (Some(replayed), _) => replayed,
            (None, Some(configured)) => configured.clone(),
            (None, None) => default_model(context)?,
        },
    };
    let chain = model_chain(context, args, &reference)?;
    let primary = &chain[0];
    known.model = Some(primary.resolved.reference.model.clone());
    known.provider = Some(primary.resolved.reference.provider.clone());
    known.backend = primary.resolved.cli.map(crate::backend::CliBackend::name);
    if let Some(pinned) = &args.auth_profile
        && primary.credentials.is_empty()
    {
        return Err(CliError::new(
            Exit::Auth,
            format!(
                "auth profile '{pinned}' is not usable for provider '{}'",
                primary.resolved.reference.provider
            ),
        )
        .with_hint("`pincer auth status` lists the profiles and their state"));
    }
    if !args.dry_run && chain.iter().all(Candidate::missing_key) {
        return Err(plan::models::no_credentials(
            context.settings(),
            &primary.resolved.reference.provider,
        ));
    }
    Ok((index, chain, recorded_thinking))
}

/// MCP servers (SPEC §13): they start before the session is created, so that a required one
/// that fails leaves nothing behind. A turn that only delegates to a CLI hands the servers to
/// the child instead. The model calls' transport is built here when the servers need its HTTP
/// client too (building one costs a few milliseconds).
fn start_mcp(
    context: &dyn RunEnv,
    args: &TurnRequest,
    scope: &CancelScope,
    (chain, network): (&[Candidate], Option<&plan::attempt::RunNetwork>),
    mcp_config: &crate::mcp::McpConfig,
    cassette: &plan::replay::RunCassette,
    transport: &mut Option<Transport>,
) -> CliResult<std::sync::Arc<crate::mcp::McpSet>> {
    if args.dry_run
        || mcp_config.enabled().next().is_none()
        || chain
            .iter()
            .all(|candidate| candidate.resolved.cli.is_some())
    {
        return Ok(std::sync::Arc::new(crate::mcp::McpSet::empty()));
    }
    let keys = chain_keys(chain);
    let transport = transport.insert(cassette.transport()?);
    let http = match transport.client() {
        Some(client) => client.clone(),
        // A replay calls no model, but the servers still run for real.
        None => crate::provider::http::client()
            .map_err(|error| CliError::new(Exit::RunFailed, error.to_string()))?,
    };
    let sdk_channel = args.sdk.as_ref().map(|sdk| &sdk.channel);
    let run = (
        &http,
        sdk_channel,
        network.and_then(plan::attempt::RunNetwork::for_servers),
    );
    match &args.kept_mcp {
        Some(kept) => kept.start_or_reuse(context, scope, mcp_config, &keys, run),
        None => plan::mcp::start_for_turn(context, scope, mcp_config, &keys, run),
    }
}

/// SessionStart and UserPromptSubmit (SPEC §14), before the prompt is recorded: what they say
/// for the model follows the prompt in the user message; a block ends the run (after the
/// SessionEnd hooks). A CLI backend runs its own.
fn prompt_hooks(
    context: &dyn RunEnv,
    (scope, choice): (&CancelScope, &setup::Choice<'_>),
    primary: &Candidate,
    shared: &Shared,
    mut user: Message,
    sink: &mut dyn EventSink,
) -> CliResult<Message> {
    if primary.resolved.cli.is_some() {
        return Ok(user);
    }
    let source = match choice {
        setup::Choice::New(_) => "startup",
        setup::Choice::Resume(_) => "resume",
    };
    let hooks = &shared.hooks;
    match plan::hooks::before_prompt(scope, hooks, (source, &shared.prompt), sink) {
        Ok(texts) => {
            if let Message::User(UserMessage {
                content: MessageContent::Blocks(blocks),
                ..
            }) = &mut user
            {
                blocks.extend(texts.into_iter().map(ContentBlock::text));
            }
            Ok(user)
        }
        Err(error) => {
            plan::hooks::session_end(context, scope, hooks, sink);
            Err(error)
        }
    }
}

/// Record model and thinking changes, so the session says what the next turn will use, and the
/// user message; the conversation the model is sent.
fn start_turn(
    setup: &mut setup::SessionSetup,
    primary: &Candidate,
    thinking: ThinkingLevel,
    user: Message,
) -> CliResult<Vec<Message>> {
    if setup.recorded_model.as_deref() != Some(primary.model_ref.as_str()) {
        append_model_change(&mut setup.transcript, primary)?;
    }
    if setup.recorded_thinking.as_deref() != Some(thinking.as_str()) {
        setup
            .transcript
            .append(NewEntry::ThinkingLevelChange {
                level: thinking.as_str(),
            })
            .map_err(session_error)?;
    }
    setup
        .transcript
        .append_message(&user)
        .map_err(session_error)?;
    let mut messages = std::mem::take(&mut setup.context);
    messages.push(user);
    Ok(messages)
}

/// The `system/init` event: what the turn starts with.
fn init_event(
    context: &dyn RunEnv,
    setup: &setup::SessionSetup,
    first: &Attempt,
    primary: &Candidate,
    shared: &Shared,
    known: &Known,
) -> Init {
    Init {
        session_id: setup.session_id.clone(),
        cwd: context.workspace().to_path_buf(),
        tools: first
            .settings
            .tools
            .iter()
            .map(|tool| tool.name.clone())
            .collect(),
        model: first.settings.model.clone(),
        provider: first.settings.provider.clone(),
        backend: known.backend.unwrap_or("api"),
        api_key_source: if first.settings.endpoint.api_key.is_some() {
            "environment"
        } else {
            "none"
        },
        mcp_servers: if primary.resolved.cli.is_some() {
            plan::mcp::delegated_servers(&shared.mcp_config)
        } else {
            plan::mcp::init_servers(&shared.mcp)
        },
        hooks: plan::hooks::init_hooks(&shared.hooks.set, known.backend.unwrap_or("pincer")),
        sandbox: shared.sandbox.mode.as_str(),
        network: if shared.sandbox.exec.network
            || shared.sandbox.mode == SandboxMode::DangerFullAccess
        {
            "on"
        } else if !shared.sandbox.exec.network_rules.is_empty() {
            "limited"
        } else {
            "off"
        },
        network_rules: (!shared.sandbox.exec.network
            && shared.sandbox.mode != SandboxMode::DangerFullAccess
            && !shared.sandbox.exec.network_rules.is_empty())
        .then(|| crate::egress::describe(&shared.sandbox.exec.network_rules)),
        // A CLI backend's child searches itself; an API model's request has it or not.
        web_search: shared.web_search.asked.then_some(
            if primary.resolved.cli.is_some() || first.settings.web_search.is_some() {
                "on"
            } else {
                "off"
            },
        ),
        refused_files: shared
            .refused
            .iter()
            .chain(&shared.mcp_config.refused)
            .cloned()
            .collect(),
    }
}

/// `--approve-workspace-files`, then the [`crate::consumed::Watch`] of the run's roots (none
/// for a dry run: nothing runs).
fn watch_consumed(
    context: &dyn RunEnv,
    args: &TurnRequest,
    added_dirs: &[PathBuf],
) -> CliResult<Option<crate::consumed::Watch>> {
    let settings = context.settings();
    let mut roots = vec![context.workspace().to_path_buf()];
    roots.extend(added_dirs.iter().cloned());
    let state_dir = &settings.paths.state_dir;
    if args.approve_workspace_files {
        let approved = crate::consumed::Written::approve(state_dir, &roots).map_err(|error| {
            CliError::new(
                Exit::RunFailed,
                format!(
                    "{}: cannot update the record of files runs wrote: {error}",
                    crate::consumed::APPROVE_FLAG
                ),
            )
        })?;
        context.note(&format!(
            "{}: {approved} file(s) that earlier runs wrote here are read again",
            crate::consumed::APPROVE_FLAG
        ));
    }
    if args.dry_run {
        return Ok(None);
    }
    let names = crate::agent::context_files::read_only_names(
        &settings.workspace.files,
        &settings.workspace.writable,
    );
    Ok(Some(crate::consumed::Watch::start(
        &roots, &names, state_dir,
    )))
}

/// Record what the run wrote to consumed files, and say so: the next run holds them back.
fn report_written(context: &dyn RunEnv, watch: &mut crate::consumed::Watch) {
    match watch.finish() {
        Ok(written) => {
            for path in written {
                context.warn(&format!(
                    "this run wrote '{}', which pincer reads as configuration or prompt; the \
                     next run will not read it until you approve it ({})",
                    path.display(),
                    crate::consumed::APPROVE_FLAG
                ));
            }
        }
        Err(error) => context.warn(&format!(
            "cannot record the consumed files this run wrote: {error}"
        )),
    }
}

fn append_model_change(transcript: &mut Transcript, candidate: &Candidate) -> CliResult<()> {
    transcript
        .append(NewEntry::ModelChange {
            provider: &candidate.resolved.reference.provider,
            model_id: &candidate.resolved.reference.model,
        })
        .map(|_| ())
        .map_err(session_error)
}

/// The extra roots of the tools (SPEC §10): `tools.add_dirs` (relative paths start at the
/// workspace) then `flags` (`--add-dir`, relative to the current directory), canonical. A
/// directory that is missing or not a directory is a usage error naming it, before anything runs.
pub(crate) fn added_dirs(context: &dyn RunEnv, flags: &[PathBuf]) -> CliResult<Vec<PathBuf>> {
    let configured = context
        .settings()
        .tools
        .add_dirs
        .iter()
        .map(|path| (context.workspace().join(path), path, "tools.add_dirs"));
    let given = flags.iter().map(|path| (path.clone(), path, "--add-dir"));
    configured
        .chain(given)
        .map(|(resolved, shown, origin)| {
            let unusable = |problem: String| {
                CliError::usage(format!(
                    "additional directory '{}' ({origin}) {problem}",
                    shown.display()
                ))
                .with_hint(format!("pass an existing directory to {origin}"))
            };
            let canonical = std::fs::canonicalize(&resolved).map_err(|error| {
                unusable(if error.kind() == std::io::ErrorKind::NotFound {
                    "does not exist".to_owned()
                } else {
                    format!("is not usable: {error}")
                })
            })?;
            if !canonical.is_dir() {
                return Err(unusable("is not a directory".to_owned()));
            }
            Ok(canonical)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::test_env::TestEnv;

    #[test]
    fn an_added_directory_that_is_missing_or_a_file_is_a_usage_error_naming_its_origin() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("file");
        std::fs::write(&file, "x").unwrap();
        let env = TestEnv::new("[tools]\nadd_dirs = [\"/nonexistent/pincer-plan-test\"]\n");
        let error = added_dirs(&env, &[]).err().unwrap();
        assert_eq!(error.exit, Exit::Usage);
        assert!(
            error.message.contains("(tools.add_dirs) does not exist"),
            "{error:?}"
        );
        let env = TestEnv::new("");
        let error = added_dirs(&env, std::slice::from_ref(&file)).err().unwrap();
        assert!(
            error.message.contains("(--add-dir) is not a directory"),
            "{error:?}"
        );
        let found = added_dirs(&env, &[dir.path().to_owned()]).unwrap();
        assert_eq!(found, [dir.path().canonicalize().unwrap()]);
    }
}
