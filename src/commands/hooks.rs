//! What the commands say and do of hooks (SPEC §14) outside a turn: the `--dry-run` list and
//! `pincer compact`'s PreCompact hooks. A turn's hooks are resolved and fired by the engine
//! (`engine/plan/hooks.rs`, `engine/api.rs`); a CLI backend gets the set to run in its own format
//! (`backend/hooks.rs`).

use super::Context;
use crate::engine::event::{Event, EventSink};
use crate::error::CliResult;
use crate::hooks::{Fire, HookContext, HookEvent, HookProgress, HookSet, Hooks};
use crate::output::Diagnostics;
use crate::tools::{Sandbox, SandboxMode};
use std::path::Path;
use std::sync::Arc;

/// What `--dry-run` shows of the hooks.
pub(crate) fn dry_run(set: &HookSet) -> Vec<crate::output::report::HookDryRun> {
    set.hooks
        .iter()
        .map(|hook| crate::output::report::HookDryRun {
            event: hook.event.as_str().to_owned(),
            matcher: hook.matcher.text().map(str::to_owned),
            command: hook.command.clone(),
            timeout: hook.timeout.as_secs_f64(),
            sandbox: hook.sandbox,
            origin: hook.origin.clone(),
        })
        .collect()
}

/// `pincer compact`'s PreCompact hooks (trigger `manual`, `instructions` as given), from
/// config.toml, in the configured sandbox with `exec`'s environment (every key variable, every
/// known key and `keys` removed from it).
/// Their warnings and `-v` lines go to stderr.
pub(crate) fn pre_compact_manual(
    context: &Context,
    runtime: &tokio::runtime::Runtime,
    (session_id, path): (&str, &Path),
    instructions: Option<&str>,
    keys: &[&str],
) -> CliResult<()> {
    let set = crate::plan::hooks::resolve(context, &[])?;
    if !set.has(HookEvent::PreCompact) {
        return Ok(());
    }
    let mode = context.settings.tools.sandbox;
    let temp = (mode != SandboxMode::DangerFullAccess).then(crate::tools::PrivateTemp::new);
    let mut sandbox = Sandbox::new(
        mode,
        &context.workspace,
        &[],
        &context.settings.paths,
        temp.as_ref().map(crate::tools::PrivateTemp::path),
    );
    let exec = &context.settings.tools.exec;
    let known = context.known_keys()?;
    sandbox.exec.environment = Some(Arc::new(crate::tools::child_environment(
        std::env::vars_os(),
        &known.clear_list(&exec.clear_env),
        &known.patterns(keys),
        &exec.env,
    )));
    let hooks = Hooks {
        set,
        context: HookContext {
            session_id: session_id.to_owned(),
            transcript_path: path.to_string_lossy().into_owned(),
            cwd: context.workspace.clone(),
            permission_mode: "default".to_owned(),
            model: String::new(),
            sandbox,
            trace: crate::telemetry::child_trace(),
            sdk: None,
        },
    };
    let fire = Fire::PreCompact {
        trigger: "manual",
        instructions: instructions.unwrap_or_default(),
    };
    let cancel = tokio_util::sync::CancellationToken::new();
    let mut sink = StderrSink(&context.diagnostics);
    runtime.block_on(crate::engine::hooks::fire(
        &hooks, &fire, &cancel, &mut sink,
    ));
    Ok(())
}

/// Hook events outside a turn: warnings and notices on stderr, one `-v` line per hook.
struct StderrSink<'a>(&'a Diagnostics);

impl EventSink for StderrSink<'_> {
    fn emit(&mut self, event: &Event) {
        match event {
            Event::Warning(message) => self.0.warn(message),
            Event::Notice(message) => self.0.info(message),
            Event::Hook(HookProgress::Finished(finished)) => {
                self.0.detail(&crate::output::progress::hook_line(finished));
            }
            _ => {}
        }
    }
}
