//! The plan of a turn: everything a turn needs, resolved from the settings and a plain request
//! before anything is created — the chain of models with their credentials, the settings every
//! attempt shares and each attempt's own, the tools, sandbox, MCP servers, hooks, structured
//! output and replay — and the links the failover loop ([`super::failover`]) runs.

pub(crate) mod attempt;
pub(crate) mod chain;
pub(crate) mod child;
pub(crate) mod env;
pub(crate) mod hooks;
pub(crate) mod input;
pub(crate) mod keys;
pub(crate) mod mcp;
pub(crate) mod models;
pub(crate) mod replay;
mod request;
pub(crate) mod resolved;
#[cfg(test)]
mod resolved_tests;
pub(crate) mod structured;
#[cfg(test)]
pub(crate) mod test_env;
pub(crate) mod turn;
pub(crate) mod web_search;

pub(crate) use request::{CassetteRequest, LiveModel, PermissionMode, TurnInput, TurnRequest};

use crate::engine::TurnReport;
use env::RunEnv;
use std::path::PathBuf;
use std::time::Duration;

/// The session a turn writes to, as the plan needs it: the id (a prompt-cache key, what hooks
/// are told) and the file.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct SessionRef<'a> {
    pub(crate) id: Option<&'a str>,
    pub(crate) path: Option<&'a std::path::Path>,
}

/// Seconds as a duration (negative ones as zero).
pub(crate) fn seconds(value: Option<f64>) -> Option<Duration> {
    value.map(|seconds| Duration::from_secs_f64(seconds.max(0.0)))
}

/// The most output tokens a request asks for, whatever the model allows.
pub(crate) const MAX_OUTPUT_TOKENS_SENT: u64 = 32_000;

/// The turn across the failover chain, with what `finish` needs of the link that ran last.
pub(crate) struct ChainOutcome {
    /// The attempts' reports added up; ending, text and context are the last attempt's.
    pub(crate) report: TurnReport,
    /// `api`, `claude-cli` or `codex-cli`: what ran the last attempt.
    pub(crate) backend: &'static str,
    /// `provider/model`, provider and model id of the last attempt.
    pub(crate) last_model: String,
    pub(crate) provider: String,
    pub(crate) model: String,
    /// The last attempt's context window.
    pub(crate) window: Option<u64>,
    /// One line per failed attempt: `provider/model: message (kind)`.
    pub(crate) errors: Vec<String>,
    /// More than one model was tried and every one failed over: the chain ran out.
    pub(crate) exhausted: bool,
}

/// The context window of `provider/model`: the catalog's or config's, or the smaller one an
/// overflow error taught (SPEC §7), or that one alone when the model is unknown.
pub(crate) fn model_window(context: &dyn RunEnv, provider: &str, model: &str) -> Option<u64> {
    let known = context
        .settings()
        .model_info(provider, model)
        .map(|info| info.context_window);
    let learned = crate::session::learned_windows::lookup(
        context.sessions_dir(),
        &format!("{provider}/{model}"),
    );
    crate::session::learned_windows::narrowed(known, learned)
}

/// The `[retry]` settings as the policy the provider's retry loop applies (SPEC §9.3).
pub(crate) fn retry_policy(context: &dyn RunEnv) -> crate::provider::retry::RetryPolicy {
    let retry = &context.settings().retry;
    crate::provider::retry::RetryPolicy {
        max_retries: retry.max_retries,
        base: Duration::from_millis(retry.base_delay_ms),
        cap: Duration::from_millis(retry.max_delay_ms),
        ..crate::provider::retry::RetryPolicy::default()
    }
}

/// Find the skills for `context`'s workspace: the default places and `skills.paths` when
/// `enabled` (and the configuration allows it), then `flags` (relative to the current
/// directory). Every problem is a warning on stderr naming the file; none fails the run.
pub(crate) fn discover_skills(
    context: &dyn RunEnv,
    flags: &[PathBuf],
    enabled: bool,
    written: &crate::consumed::Written,
) -> crate::agent::skills::Discovery {
    let settings = context.settings();
    let flags: Vec<PathBuf> = flags
        .iter()
        .map(|path| std::path::absolute(path).unwrap_or_else(|_| path.clone()))
        .collect();
    let discovery = crate::agent::skills::discover(&crate::agent::skills::Places {
        config_dir: &settings.paths.config_dir,
        workspace: context.workspace(),
        enabled: enabled && settings.skills.enabled,
        config_paths: &settings.skills.paths,
        flag_paths: &flags,
        written,
    });
    for refusal in &discovery.refused {
        context.warn(&refusal.warning());
    }
    for problem in &discovery.skipped {
        context.warn(&format!(
            "skipped skill '{}': {}",
            problem.path.display(),
            problem.message
        ));
    }
    for problem in &discovery.warnings {
        context.warn(&format!(
            "skill '{}': {}",
            problem.path.display(),
            problem.message
        ));
    }
    for shadowed in &discovery.shadowed {
        context.warn(&format!(
            "skill '{}' in '{}' shadows the one in '{}'",
            shadowed.name,
            shadowed.shadowed_by.display(),
            shadowed.path.display()
        ));
    }
    discovery
}
