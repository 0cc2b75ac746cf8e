//! The links the failover loop runs over the chain of models (`models.rs`): each candidate's
//! settings built when its turn comes, then the API or CLI engine.

use super::attempt::{Attempt, Shared, attempt_settings};
use super::child::{cli_settings, warn_unenforced};
use super::env::RunEnv;
use super::model_window;
use super::models::Candidate;
use super::{ChainOutcome, TurnRequest};
use crate::conversation::Message;
use crate::engine::api as api_engine;
use crate::engine::event::EventSink;
use crate::engine::failover;
use crate::engine::{Cancellation, TurnReport};
use crate::error::{CliError, CliResult, Exit};
use crate::provider::http::Transport;
use crate::session::transcript::Transcript;

/// The chain's links as the failover loop (`engine::failover`) runs them: each candidate's
/// settings built when its turn comes (the primary's were built for the init event already),
/// then the API or CLI engine.
pub(crate) struct ChainLinks<'run> {
    pub(crate) context: &'run dyn RunEnv,
    pub(crate) args: &'run TurnRequest,
    pub(crate) shared: &'run Shared,
    pub(crate) chain: &'run [Candidate],
    pub(crate) links: Vec<failover::Link>,
    pub(crate) first: Option<Attempt>,
    pub(crate) client: &'run Transport,
    pub(crate) messages: &'run mut Vec<Message>,
    pub(crate) transcript: &'run mut Transcript,
    pub(crate) cancellation: &'run Cancellation,
}

impl failover::Links for ChainLinks<'_> {
    type Error = CliError;

    fn links(&self) -> &[failover::Link] {
        &self.links
    }

    async fn attempt(
        &mut self,
        position: usize,
        spent: Option<&TurnReport>,
        sink: &mut dyn EventSink,
    ) -> CliResult<TurnReport> {
        let (context, args, shared) = (self.context, self.args, self.shared);
        let candidate = &self.chain[position];
        let mut attempt = match self.first.take() {
            Some(first) if position == 0 => first,
            _ => attempt_settings(context, args, shared, candidate),
        };
        let settings = &mut attempt.settings;
        (settings.max_turns, settings.max_budget_usd) =
            failover::remaining_limits((settings.max_turns, settings.max_budget_usd), spent);
        match candidate.resolved.cli {
            Some(backend) => {
                let settings = cli_settings(
                    context,
                    args,
                    shared,
                    (candidate, backend),
                    &attempt.settings,
                )?;
                warn_unenforced(context, args, shared, backend);
                crate::engine::cli::run(
                    &settings,
                    self.client.cassette().map(|cassette| &**cassette),
                    self.messages,
                    self.transcript,
                    sink,
                    self.cancellation,
                )
                .await
                .map_err(start_error)
            }
            None => {
                let report = api_engine::run(
                    &attempt.settings,
                    self.client,
                    self.messages,
                    self.transcript,
                    sink,
                    self.cancellation,
                )
                .await;
                if let Some(window) = report.learned_window {
                    remember_window(context, args, candidate, window);
                }
                Ok(report)
            }
        }
    }
}

/// Run the turn across the chain (`engine::failover`).
pub(crate) async fn run_chain(
    mut links: ChainLinks<'_>,
    sink: &mut dyn EventSink,
) -> CliResult<ChainOutcome> {
    let outcome = failover::run(&mut links, sink).await?;
    let last = &links.chain[outcome.last];
    let reference = &last.resolved.reference;
    Ok(ChainOutcome {
        report: outcome.report,
        backend: last
            .resolved
            .cli
            .map_or("api", crate::backend::CliBackend::name),
        last_model: last.model_ref.clone(),
        provider: reference.provider.clone(),
        model: reference.model.clone(),
        window: model_window(links.context, &reference.provider, &reference.model),
        exhausted: outcome.exhausted,
        errors: outcome.errors,
    })
}

/// Remember the window an overflow error taught for this model, so that its next run compacts
/// in time (SPEC §7). Not with `--no-session-persistence`, which writes nothing; a failure to
/// write only costs the lesson, with a warning.
pub(crate) fn remember_window(
    context: &dyn RunEnv,
    args: &TurnRequest,
    candidate: &Candidate,
    window: u64,
) {
    if args.no_session_persistence {
        return;
    }
    context.detail(&format!(
        "{} has a context window of {window} tokens (from its overflow error)",
        candidate.model_ref
    ));
    if let Err(error) = crate::session::learned_windows::remember(
        context.sessions_dir(),
        &candidate.model_ref,
        window,
    ) {
        context.warn(&format!("cannot remember the context window: {error}"));
    }
}

/// A CLI child that could not start: a usage error with its hint.
pub(crate) fn start_error(failure: crate::engine::cli::StartFailure) -> CliError {
    let exit = if failure.missing_binary {
        Exit::Usage
    } else {
        Exit::RunFailed
    };
    let error = CliError::new(exit, failure.message);
    match failure.hint {
        Some(hint) => error.with_hint(hint),
        None => error,
    }
}
