//! The result object of a turn (SPEC §3.2), built from what the failover chain reported: how its
//! ending shows (subtype, exit code, error, terminal reason), its usage, context and cost.
//! Pure: the command prints it and maps the failure to its exit.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::engine::{CancelReason, Ending, TurnReport};
use crate::error::{ErrorKind, Exit, FailureOutcome as _};
use crate::output::schema::{
    Denial, ModelUsage, NetworkDenial, ResultContext, ResultError, ResultSubtype, ResultUsage,
    ResultWord, RunResult, ServerToolUsage, new_uuid,
};
use crate::plan::{ChainOutcome, MAX_OUTPUT_TOKENS_SENT};
use crate::provider::ProviderError;
use crate::provider::classify::FailureKind;

/// Milliseconds, saturated.
pub(crate) fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// The session a result speaks of.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct SessionRef<'a> {
    pub(crate) id: Option<&'a str>,
    pub(crate) name: Option<&'a str>,
}

/// A finished turn's result object, its exit code and the failure that ended it, if any.
pub(crate) struct TurnResult {
    pub(crate) result: RunResult,
    pub(crate) exit: Exit,
    pub(crate) failure: Option<Failure>,
}

/// The result object of a turn that ran: `elapsed` since the process started, `heartbeat` when
/// the run was a heartbeat (its `heartbeat_ok` is then set).
pub(crate) fn turn_result(
    outcome: &ChainOutcome,
    session: SessionRef<'_>,
    elapsed: Duration,
    heartbeat: bool,
) -> TurnResult {
    let report = &outcome.report;
    let window = outcome.window;
    let (subtype, exit, error, terminal) = verdict(outcome);
    let result = RunResult {
        kind: ResultWord::Value,
        schema_version: super::schema::SchemaVersion,
        subtype,
        is_error: exit != Exit::Success,
        result: report.final_text.clone(),
        session_id: session.id.map(str::to_owned),
        session_name: session.name.map(str::to_owned),
        num_turns: report.model_calls,
        duration_ms: millis(elapsed),
        duration_api_ms: millis(report.api_duration),
        total_cost_usd: report.cost_usd,
        usage: ResultUsage {
            input_tokens: report.usage.input,
            cache_creation_input_tokens: report.usage.cache_write,
            cache_read_input_tokens: report.usage.cache_read,
            output_tokens: report.usage.output,
            reasoning_tokens: report.usage.reasoning,
            server_tool_use: ServerToolUsage {
                web_search_requests: report.usage.web_search_requests,
            },
        },
        model_usage: model_usage(report, window),
        context: result_context(report, window),
        stop_reason: report.stop_reason.map(str::to_owned),
        provider_stop_reason: report.provider_stop_reason.clone(),
        terminal_reason: terminal.to_owned(),
        // Every failed attempt of the chain, then the failure that ended the run when it is
        // not one of them.
        errors: {
            let mut errors = outcome.errors.clone();
            if let Some(failure) = &error
                && (errors.is_empty() || !matches!(report.ending, Ending::Failed { .. }))
            {
                errors.push(failure.message.clone());
            }
            errors
        },
        error: error.as_ref().map(|failure| ResultError {
            kind: failure.kind,
            message: failure.message.clone(),
            provider: Some(outcome.provider.clone()),
            status: failure.status,
            retryable: failure.retryable,
            retry_after_s: failure.retry_after_s,
        }),
        permission_denials: report
            .permission_denials
            .iter()
            .map(|denial| Denial {
                tool_name: denial.tool_name.clone(),
                tool_use_id: denial.tool_use_id.clone(),
                tool_input: denial.tool_input.clone(),
            })
            .collect(),
        network_denials: report.network_denials.iter().map(network_denial).collect(),
        structured_output: report.structured_output.clone(),
        model: Some(outcome.model.clone()),
        provider: Some(outcome.provider.clone()),
        backend: Some(outcome.backend.to_owned()),
        compactions: report.compactions,
        heartbeat_ok: heartbeat.then(|| {
            exit == Exit::Success && crate::agent::heartbeat::is_heartbeat_ok(&report.final_text)
        }),
        uuid: new_uuid(),
    };
    TurnResult {
        result,
        exit,
        failure: error,
    }
}

/// One entry of `network_denials`: the denial's own JSON form, in which the fields of its
/// reason (`rule`, `address`, `kind`, `error`) are the entry's details.
fn network_denial(denial: &pincer_egress::Denial) -> NetworkDenial {
    serde_json::to_value(denial)
        .and_then(serde_json::from_value)
        .unwrap_or_else(|_| NetworkDenial {
            host: denial.host.clone(),
            port: denial.port,
            reason: denial.reason.code().to_owned(),
            protocol: denial.protocol.as_str().to_owned(),
            count: denial.count,
            details: std::collections::BTreeMap::new(),
        })
}

/// The result object of a run that failed before or outside its turn: `kind` and `message` of
/// its error, or the cancellation that ended it.
pub(crate) fn early_result(
    cancelled: Option<CancelReason>,
    (kind, message): (ErrorKind, &str),
    elapsed: Duration,
) -> RunResult {
    match cancelled {
        Some(reason) => {
            let (subtype, _, failure, terminal) = cancelled_failure(reason);
            let mut result =
                RunResult::early_error(subtype, failure.kind, &failure.message, millis(elapsed));
            terminal.clone_into(&mut result.terminal_reason);
            if let Some(error) = &mut result.error {
                error.retryable = failure.retryable;
            }
            result
        }
        // A `[budget]` is a guardrail like --max-budget-usd, across runs (SPEC §18).
        None if kind == ErrorKind::BudgetExceeded => {
            let mut result = RunResult::early_error(
                ResultSubtype::ErrorMaxBudgetUsd,
                kind,
                message,
                millis(elapsed),
            );
            "budget".clone_into(&mut result.terminal_reason);
            result
        }
        None => RunResult::early_error(
            ResultSubtype::ErrorDuringExecution,
            kind,
            message,
            millis(elapsed),
        ),
    }
}

/// What to say when the final message ran out of output tokens before any answer: which limit,
/// and the setting that raises it.
fn output_limit_message(outcome: &ChainOutcome, max_output_tokens: Option<u64>) -> String {
    match max_output_tokens {
        Some(limit) => format!(
            "the model used its whole output limit ({limit} tokens) without writing an answer; \
             raise `max_output` under [providers.{}.models.\"{}\"] in config.toml (pincer sends \
             at most {MAX_OUTPUT_TOKENS_SENT}), or lower --thinking",
            outcome.provider, outcome.model
        ),
        None => format!(
            "{} stopped at its output limit without writing an answer; raise the CLI's own limit \
             (claude: CLAUDE_CODE_MAX_OUTPUT_TOKENS in [backends.{}.env]), or lower --thinking",
            outcome.backend, outcome.backend
        ),
    }
}

/// Why a run failed, for the result object and stderr.
pub(crate) struct Failure {
    pub(crate) kind: ErrorKind,
    pub(crate) message: String,
    pub(crate) status: Option<u16>,
    pub(crate) retryable: bool,
    /// The seconds the provider asked to wait, rounded up.
    pub(crate) retry_after_s: Option<u64>,
}

/// Whether running again later may mend a failed model call: its kind's rule, and for a
/// connection that failed, its cause (a refused, timed-out or closed connection may heal; a
/// name that does not resolve or a failed TLS handshake does not).
fn provider_retryable(error: &ProviderError, kind: FailureKind) -> bool {
    match error {
        ProviderError::Connect(failure) => failure.cause.may_heal(),
        _ => kind.error_kind().retryable(),
    }
}

/// The wait the provider asked for (`Retry-After`, or its body's delay), in whole seconds
/// rounded up.
fn provider_retry_after(error: &ProviderError) -> Option<u64> {
    crate::provider::retry::requested_wait(error)
        .map(|wait| wait.as_millis().div_ceil(1000))
        .map(|seconds| u64::try_from(seconds).unwrap_or(u64::MAX))
}

/// The result's subtype, exit code, error and terminal reason of a run that a signal or the
/// timeout ended, before or during its turn.
fn cancelled_failure(reason: CancelReason) -> (ResultSubtype, Exit, Failure, &'static str) {
    let (subtype, kind) = match reason {
        CancelReason::Timeout => (ResultSubtype::ErrorTimeout, ErrorKind::Timeout),
        CancelReason::Interrupt | CancelReason::Terminate | CancelReason::Requested => {
            (ResultSubtype::ErrorInterrupted, ErrorKind::Interrupted)
        }
    };
    let failure = Failure {
        kind,
        message: reason.message().into(),
        status: None,
        retryable: kind.retryable(),
        retry_after_s: None,
    };
    (
        subtype,
        crate::error::Exit::from(reason),
        failure,
        kind.as_str(),
    )
}

/// A failure that retrying the same run would not mend.
fn stopped(kind: ErrorKind, message: String) -> Option<Failure> {
    Some(Failure {
        kind,
        message,
        status: None,
        retryable: false,
        retry_after_s: None,
    })
}

/// How the turn's ending shows: the result's subtype, the exit code, the failure (if any) and
/// the terminal reason.
fn verdict(outcome: &ChainOutcome) -> (ResultSubtype, Exit, Option<Failure>, &'static str) {
    let report = &outcome.report;
    match &report.ending {
        Ending::Completed => (ResultSubtype::Success, Exit::Success, None, "completed"),
        Ending::MaxTurns => (
            ResultSubtype::ErrorMaxTurns,
            Exit::Guardrail,
            stopped(
                ErrorKind::MaxTurns,
                format!(
                    "stopped after --max-turns {} model calls",
                    report.model_calls
                ),
            ),
            "max_turns",
        ),
        Ending::MaxBudget => (
            ResultSubtype::ErrorMaxBudgetUsd,
            Exit::Guardrail,
            stopped(
                ErrorKind::MaxBudgetUsd,
                format!(
                    "stopped at ${:.4}, the --max-budget-usd limit",
                    report.cost_usd
                ),
            ),
            "max_budget_usd",
        ),
        Ending::Failed { error, kind } if outcome.exhausted => (
            ResultSubtype::ErrorDuringExecution,
            // Every model of the chain failed over: the service as a whole is unavailable.
            Exit::Unavailable,
            Some(Failure {
                kind: kind.error_kind(),
                message: format!(
                    "all {} models failed; the last: {error}",
                    outcome.errors.len()
                ),
                status: error.status(),
                // The service as a whole may come back, unless the last model could not be
                // reached at an address that will not heal.
                retryable: !matches!(error, ProviderError::Connect(failure) if !failure.cause.may_heal()),
                retry_after_s: provider_retry_after(error),
            }),
            "error",
        ),
        Ending::Failed { error, kind } => (
            ResultSubtype::ErrorDuringExecution,
            kind.exit(),
            Some(Failure {
                kind: kind.error_kind(),
                message: error.to_string(),
                status: error.status(),
                retryable: provider_retryable(error, *kind),
                retry_after_s: provider_retry_after(error),
            }),
            "error",
        ),
        Ending::OutputLimit { max_output_tokens } => (
            ResultSubtype::ErrorDuringExecution,
            Exit::RunFailed,
            stopped(
                ErrorKind::OutputLimit,
                output_limit_message(outcome, *max_output_tokens),
            ),
            "error",
        ),
        Ending::Cancelled(reason) => {
            let (subtype, exit, failure, terminal) = cancelled_failure(*reason);
            (subtype, exit, Some(failure), terminal)
        }
        Ending::Persistence(failure) => (
            ResultSubtype::ErrorDuringExecution,
            Exit::RunFailed,
            stopped(ErrorKind::Persistence, failure.to_string()),
            "error",
        ),
        Ending::StructuredOutputInvalid { errors, retries } => (
            ResultSubtype::ErrorMaxStructuredOutputRetries,
            Exit::RunFailed,
            stopped(
                ErrorKind::StructuredOutput,
                crate::structured::failure_message(errors, *retries),
            ),
            "error",
        ),
        Ending::NotStarted(failure) => (
            ResultSubtype::ErrorDuringExecution,
            Exit::Usage,
            stopped(ErrorKind::NotStarted, failure.message.clone()),
            "error",
        ),
        Ending::HookStopped { event, reason } => (
            ResultSubtype::ErrorDuringExecution,
            Exit::RunFailed,
            stopped(
                crate::error::ErrorKind::Hook,
                format!("a {event} hook stopped the run: {reason}"),
            ),
            "hook_stopped",
        ),
    }
}

/// The context the turn ends with: the estimate after a compaction that followed the last call,
/// else the last call's usage, against the last model's window.
fn result_context(report: &TurnReport, window: Option<u64>) -> ResultContext {
    let occupancy = match report.context_estimate {
        Some(tokens) => Some(crate::conversation::ContextOccupancy::of(
            &crate::conversation::TokenUsage {
                input: tokens,
                ..Default::default()
            },
            window,
        )),
        None => report
            .last_usage
            .map(|usage| crate::conversation::ContextOccupancy::of(&usage, window)),
    };
    occupancy.map_or(
        ResultContext {
            tokens: 0,
            window,
            percent: None,
            overhead_tokens: report.overhead_tokens,
        },
        |occupancy| ResultContext {
            tokens: occupancy.tokens,
            window: occupancy.window,
            percent: occupancy.percent,
            overhead_tokens: report.overhead_tokens,
        },
    )
}

/// The result's `modelUsage`: per model id.
fn model_usage(report: &TurnReport, window: Option<u64>) -> BTreeMap<String, ModelUsage> {
    report
        .model_usage
        .iter()
        .map(|(model, totals)| {
            let usage = ModelUsage {
                input_tokens: totals.usage.input,
                output_tokens: totals.usage.output,
                cache_read_input_tokens: totals.usage.cache_read,
                cache_creation_input_tokens: totals.usage.cache_write,
                web_search_requests: totals.usage.web_search_requests,
                cost_usd: totals.cost_usd,
                context_window: window,
            };
            (model.clone(), usage)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::ProviderError;
    use crate::provider::classify::FailureKind;

    fn outcome(ending: Ending) -> ChainOutcome {
        ChainOutcome {
            report: TurnReport::empty(ending),
            backend: "api",
            last_model: "anthropic/claude-sonnet-4-5".to_owned(),
            provider: "anthropic".to_owned(),
            model: "claude-sonnet-4-5".to_owned(),
            window: Some(200_000),
            errors: Vec::new(),
            exhausted: false,
        }
    }

    fn transport_failure() -> Ending {
        Ending::Failed {
            error: ProviderError::Transport {
                provider: "anthropic".to_owned(),
                message: "connection refused".to_owned(),
            },
            kind: FailureKind::Timeout,
        }
    }

    #[test]
    fn a_completed_turn_is_a_success_with_no_error() {
        let (subtype, exit, failure, terminal) = verdict(&outcome(Ending::Completed));
        assert_eq!(subtype, ResultSubtype::Success);
        assert_eq!(exit, Exit::Success);
        assert!(failure.is_none());
        assert_eq!(terminal, "completed");
    }

    #[test]
    fn a_guardrail_stop_is_exit_3_and_not_retryable() {
        let (subtype, exit, failure, terminal) = verdict(&outcome(Ending::MaxTurns));
        assert_eq!(subtype, ResultSubtype::ErrorMaxTurns);
        assert_eq!(exit, Exit::Guardrail);
        let failure = failure.expect("a failure");
        assert_eq!(failure.kind, "max_turns");
        assert!(!failure.retryable);
        assert_eq!(terminal, "max_turns");
    }

    #[test]
    fn a_chain_that_ran_out_is_unavailable_and_counts_its_models() {
        let mut ran_out = outcome(transport_failure());
        ran_out.exhausted = true;
        ran_out.errors = vec!["a: down".to_owned(), "b: down".to_owned()];
        let (_, exit, failure, _) = verdict(&ran_out);
        assert_eq!(exit, Exit::Unavailable);
        let failure = failure.expect("a failure");
        assert!(
            failure
                .message
                .starts_with("all 2 models failed; the last: "),
            "{}",
            failure.message
        );
        assert!(failure.retryable);
        let single = verdict(&outcome(transport_failure()));
        assert_eq!(single.1, FailureKind::Timeout.exit());
    }

    #[test]
    fn a_timeout_is_exit_124_and_retryable_an_interrupt_is_not() {
        let (subtype, exit, failure, terminal) =
            verdict(&outcome(Ending::Cancelled(CancelReason::Timeout)));
        assert_eq!(
            (subtype, exit, terminal),
            (ResultSubtype::ErrorTimeout, Exit::Timeout, "timeout")
        );
        assert!(failure.expect("a failure").retryable);
        let (subtype, exit, failure, _) =
            verdict(&outcome(Ending::Cancelled(CancelReason::Interrupt)));
        assert_eq!(
            (subtype, exit),
            (ResultSubtype::ErrorInterrupted, Exit::Interrupted)
        );
        assert!(!failure.expect("a failure").retryable);
    }

    #[test]
    fn the_result_lists_the_final_failure_after_the_chain_errors_only_when_it_is_another() {
        let mut failed_over = outcome(Ending::MaxBudget);
        failed_over.errors = vec!["openai/gpt-5: down (network)".to_owned()];
        let turn = turn_result(&failed_over, SessionRef::default(), Duration::ZERO, false);
        assert_eq!(turn.result.errors.len(), 2, "{:?}", turn.result.errors);
        assert_eq!(turn.exit, Exit::Guardrail);
        assert!(turn.result.is_error);
        assert_eq!(turn.result.heartbeat_ok, None);
        let mut failed = outcome(transport_failure());
        failed.errors = vec!["anthropic/claude-sonnet-4-5: down (network)".to_owned()];
        let turn = turn_result(&failed, SessionRef::default(), Duration::ZERO, true);
        assert_eq!(turn.result.errors, failed.errors);
        assert_eq!(turn.result.heartbeat_ok, Some(false));
    }

    #[test]
    fn an_early_cancellation_says_which_signal_with_its_terminal_reason() {
        let result = early_result(
            Some(CancelReason::Terminate),
            (ErrorKind::Unknown, "ignored"),
            Duration::from_millis(5),
        );
        assert_eq!(result.subtype, ResultSubtype::ErrorInterrupted);
        assert_eq!(result.terminal_reason, "interrupted");
        assert_eq!(result.duration_ms, 5);
        let error = result.error.expect("an error");
        assert_eq!(
            (error.kind.as_str(), error.retryable),
            ("interrupted", false)
        );
        let result = early_result(None, (ErrorKind::Auth, "no key"), Duration::ZERO);
        assert_eq!(result.subtype, ResultSubtype::ErrorDuringExecution);
        assert_eq!(result.error.expect("an error").kind, "auth");
    }
}
