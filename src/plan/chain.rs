//! The links the failover loop runs over the chain of models (`models.rs`): each candidate's
//! settings built when its turn comes, then the API or CLI engine.

use super::attempt::{Attempt, Shared, attempt_settings};
use super::child::{cli_settings, warn_unenforced};
use super::env::RunEnv;
use super::model_window;
use super::models::{Candidate, model_chain};
use super::{ChainOutcome, LiveModel, TurnRequest};
use crate::conversation::Message;
use crate::engine::api::{self as api_engine, ApiSettings, ModelSwitch, SwitchRefused};
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
    /// The front-end's `set_model` while the turn runs, when it has one.
    pub(crate) switch: Option<SwitchModel<'run>>,
}

/// The running turn's side of an agent SDK's `set_model` ([`LiveModel`]): a model set after the
/// turn read its own replaces the primary of the chain for the requests left (a fallback still
/// follows it when it fails over). One per turn, shared by its links: a switch is taken once.
pub(crate) struct SwitchModel<'run> {
    context: &'run dyn RunEnv,
    args: &'run TurnRequest,
    shared: &'run Shared,
    live: &'run LiveModel,
    /// The version of the model last taken.
    seen: std::sync::atomic::AtomicU64,
}

impl<'run> SwitchModel<'run> {
    /// The switch of `args`, when its front-end may change the model.
    pub(crate) fn for_request(
        context: &'run dyn RunEnv,
        args: &'run TurnRequest,
        shared: &'run Shared,
    ) -> Option<SwitchModel<'run>> {
        let (live, seen) = args.live_model.as_ref()?;
        Some(SwitchModel {
            context,
            args,
            shared,
            live,
            seen: (*seen).into(),
        })
    }
}

impl ModelSwitch for SwitchModel<'_> {
    fn take(&self, current: &ApiSettings) -> Option<Result<ApiSettings, SwitchRefused>> {
        let (version, model) = self.live.current();
        if self
            .seen
            .swap(version, std::sync::atomic::Ordering::Relaxed)
            == version
        {
            return None;
        }
        // Set back to no model at all (the command line named none): the turn keeps its
        // model, the next one resolves one as a run does.
        let reference = model?;
        let keeps = |why: &str| {
            Some(Err(SwitchRefused {
                asked: reference.clone(),
                why: why.to_owned(),
                keeps: format!("{}/{}", current.provider, current.model),
            }))
        };
        // Resolved as `--model` is: an alias or provider/model, with that provider's protocol,
        // endpoint and credentials. A model of another provider takes the rest of the turn
        // there: the conversation so far is sent in that provider's wire format, as it is to a
        // fallback of another provider.
        let candidate = match model_chain(self.context, self.args, &reference) {
            Ok(chain) => chain.into_iter().next()?,
            Err(error) => return keeps(&error.message),
        };
        if candidate.resolved.cli.is_some() {
            return keeps(
                "a CLI backend's model cannot take over a turn pincer runs; the next turn uses it",
            );
        }
        if candidate.missing_key() {
            return keeps(&format!(
                "no credentials for provider '{}'",
                candidate.resolved.reference.provider
            ));
        }
        let reference = &candidate.resolved.reference;
        if reference.provider == current.provider && reference.model == current.model {
            return None;
        }
        let mut settings =
            attempt_settings(self.context, self.args, self.shared, &candidate).settings;
        // The guardrails bound the whole turn: what is left of them carries over.
        settings.max_turns = current.max_turns;
        settings.max_budget_usd = current.max_budget_usd;
        Some(Ok(settings))
    }
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
                let switch = self
                    .switch
                    .as_ref()
                    .map(|switch| switch as &dyn ModelSwitch);
                let report = api_engine::run(
                    &attempt.settings,
                    self.client,
                    switch,
                    self.messages,
                    self.transcript,
                    sink,
                    self.cancellation,
                )
                .await;
                if let Some(window) = report.learned_window {
                    // Learned by the model that sent the last requests.
                    let model_ref = match &report.switched_model {
                        Some(switched) => format!("{}/{}", switched.provider, switched.model),
                        None => candidate.model_ref.clone(),
                    };
                    remember_window(context, args, &model_ref, window);
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
    // The model that sent the last requests: the last link's, or the one `set_model` switched
    // that link to.
    let (provider, model) = match &outcome.report.switched_model {
        Some(switched) => (switched.provider.clone(), switched.model.clone()),
        None => (
            last.resolved.reference.provider.clone(),
            last.resolved.reference.model.clone(),
        ),
    };
    Ok(ChainOutcome {
        backend: last
            .resolved
            .cli
            .map_or("api", crate::backend::CliBackend::name),
        last_model: format!("{provider}/{model}"),
        window: model_window(links.context, &provider, &model),
        report: outcome.report,
        provider,
        model,
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
    model_ref: &str,
    window: u64,
) {
    if args.no_session_persistence {
        return;
    }
    context.detail(&format!(
        "{} has a context window of {window} tokens (from its overflow error)",
        model_ref
    ));
    if let Err(error) =
        crate::session::learned_windows::remember(context.sessions_dir(), model_ref, window)
    {
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
