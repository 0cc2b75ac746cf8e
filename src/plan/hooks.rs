//! Hooks for a run (SPEC §14): the declared set (a bad declaration is exit 2, what is declared
//! but not run is a warning), what every hook is told, the init event's list, and the events
//! fired around the turn — SessionStart and UserPromptSubmit before the prompt is recorded,
//! SessionEnd once the turn is over. The turn fires the others itself (`engine/api.rs`); a CLI
//! backend gets the set to run in its own format (`backend/hooks.rs`).

use std::path::Path;
use std::sync::Arc;

use super::env::RunEnv;
use crate::engine::event::{EventSink, InitHook};
use crate::error::{CliError, CliResult, Exit};
use crate::hooks::{Fire, HookContext, HookEvent, HookSet, Hooks, Sources};
use crate::plan::TurnRequest;
use crate::scope::CancelScope;
use crate::tools::{Sandbox, SandboxMode};

/// The hooks of this run: config.toml's (with `-c`), then each `--settings`'s.
pub(crate) fn config(context: &dyn RunEnv, args: &TurnRequest) -> CliResult<HookSet> {
    let mut set = resolve(context, &args.settings)?;
    set.hooks.extend(args.sdk_hooks.iter().cloned());
    Ok(set)
}

pub(crate) fn resolve(context: &dyn RunEnv, settings: &[String]) -> CliResult<HookSet> {
    let sources = Sources {
        config_toml: &context.settings().config.hooks,
        settings,
    };
    let resolved = crate::hooks::resolve(&sources)
        .map_err(|error| CliError::usage(error.to_string()).with_hint(error.hint()))?;
    for warning in &resolved.warnings {
        context.warn(warning);
    }
    Ok(resolved.set)
}

/// What the run's hooks are told about it and run with.
pub(crate) struct RunFacts<'a> {
    /// The workspace: the hooks' working directory.
    pub workspace: &'a Path,
    /// pincer's session id and file, when the run keeps one.
    pub session: (Option<&'a str>, Option<&'a Path>),
    /// The model id of the primary model.
    pub model: &'a str,
    /// The tools' sandbox (hooks run in it unless they opted out).
    pub sandbox: &'a Sandbox,
    /// Its mode.
    pub sandbox_mode: SandboxMode,
}

/// The run's hooks, ready to fire.
pub(crate) fn for_run(args: &TurnRequest, set: HookSet, facts: &RunFacts<'_>) -> Arc<Hooks> {
    // Claude Code's word for the run's permissions: the flag as given, else the sandbox's.
    let permission_mode = match args.permission_mode {
        Some(mode) => mode.as_str().to_owned(),
        None => match facts.sandbox_mode {
            SandboxMode::ReadOnly => "plan",
            SandboxMode::WorkspaceWrite => "acceptEdits",
            SandboxMode::DangerFullAccess => "bypassPermissions",
        }
        .to_owned(),
    };
    let (session_id, path) = facts.session;
    Arc::new(Hooks {
        set,
        context: HookContext {
            session_id: session_id.unwrap_or_default().to_owned(),
            transcript_path: path
                .map_or_else(String::new, |path| path.to_string_lossy().into_owned()),
            cwd: facts.workspace.to_path_buf(),
            permission_mode,
            model: facts.model.to_owned(),
            sandbox: facts.sandbox.clone(),
            trace: crate::telemetry::child_trace(),
            sdk: args.sdk.clone(),
        },
    })
}

/// The init event's `hooks`; `runner` is `pincer` or the CLI backend they are handed to.
pub(crate) fn init_hooks(set: &HookSet, runner: &'static str) -> Vec<InitHook> {
    set.hooks
        .iter()
        .map(|hook| InitHook {
            event: hook.event.as_str(),
            matcher: hook.matcher.text().map(str::to_owned),
            command: hook.command.clone(),
            timeout: hook.timeout,
            sandbox: hook.sandbox,
            origin: hook.origin.clone(),
            runner,
        })
        .collect()
}

/// SessionStart (`source`: `startup` or `resume`) and UserPromptSubmit, before the prompt is
/// recorded: what they say for the model, or the error that ends the run (exit 1) when one
/// blocks the prompt or says `continue: false`.
pub(crate) fn before_prompt(
    scope: &CancelScope,
    hooks: &Hooks,
    (source, prompt): (&str, &str),
    sink: &mut dyn EventSink,
) -> CliResult<Vec<String>> {
    let cancel = &scope.cancellation().token;
    let mut context = Vec::new();
    let start = scope.block_on(crate::engine::hooks::fire(
        hooks,
        &Fire::SessionStart { source },
        cancel,
        sink,
    ));
    if let Some(reason) = start.stop {
        return Err(stopped("SessionStart", &reason));
    }
    context.extend(start.context);
    let submit = scope.block_on(crate::engine::hooks::fire(
        hooks,
        &Fire::UserPromptSubmit { prompt },
        cancel,
        sink,
    ));
    if let Some(reason) = submit.stop {
        return Err(stopped("UserPromptSubmit", &reason));
    }
    if let Some(reason) = submit.block {
        return Err(CliError::new(
            Exit::RunFailed,
            format!("a UserPromptSubmit hook blocked the prompt: {reason}"),
        )
        .with_kind(crate::error::ErrorKind::Hook)
        .with_hint("the prompt was neither recorded nor sent; -v shows every hook run"));
    }
    context.extend(submit.context);
    Ok(context)
}

/// SessionEnd, once the turn is over (not after a signal or the timeout: the run must end now,
/// which is said on stderr).
pub(crate) fn session_end(
    context: &dyn RunEnv,
    scope: &CancelScope,
    hooks: &Hooks,
    sink: &mut dyn EventSink,
) {
    if !hooks.has(HookEvent::SessionEnd) {
        return;
    }
    let cancellation = scope.cancellation();
    if cancellation.reason().is_some() {
        context.warn("the SessionEnd hooks were not run: the run was interrupted or timed out");
        return;
    }
    let fire = Fire::SessionEnd { reason: "other" };
    scope.block_on(crate::engine::hooks::fire(
        hooks,
        &fire,
        &cancellation.token,
        sink,
    ));
}

/// A run a hook stopped with `continue: false`.
fn stopped(event: &str, reason: &str) -> CliError {
    CliError::new(
        Exit::RunFailed,
        format!("a {event} hook stopped the run: {reason}"),
    )
    .with_kind(crate::error::ErrorKind::Hook)
}
