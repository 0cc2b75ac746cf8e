//! `pincer usage`, and the ledger's two points in a turn (SPEC §18): the `[budget]` check before
//! anything is started, and the line a run appends once it has called a model.
//!
//! `commands/turn.rs` calls [`check_budget`] and [`Meter::watch`]/[`record_run`]; everything
//! else of the ledger is here and in `ledger/`.

use std::cell::RefCell;
use std::rc::Rc;

use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use super::{Context, stdout_error};
use crate::cli::{TurnArgs, UsageArgs, UsageGroup};
use crate::engine::event::{Event, EventSink, Phase};
use crate::error::{CliError, CliResult, ErrorKind, Exit};
use crate::fs::LockError;
use crate::ledger::reserve::{self, Refused, Reservation};
use crate::ledger::summary::{GroupBy, Totals, summarize};
use crate::ledger::window::{Budget, BudgetState, Period, earliest_start, parse_since, states};
use crate::ledger::{self, Record, store};
use crate::output::Stdout;
use crate::output::events::OutputSink;
use crate::output::schema::RunResult;
use crate::output::usage::{BudgetRow, UsageGroupRow, UsageReport, UsageTokens, render};
use crate::plan::TurnRequest;
use crate::settings::Settings;

/// Run `pincer usage`: exit 0 with an empty report when there is no ledger.
pub(crate) fn usage(context: &Context, args: &UsageArgs) -> CliResult<Exit> {
    let now = OffsetDateTime::now_utc();
    let since = args
        .since
        .as_deref()
        .map(|text| parse_since(text, now))
        .transpose()
        .map_err(|error| {
            CliError::usage(error.to_string())
                .with_hint("e.g. `pincer usage --since 7d` or `--since 2026-06-01`")
        })?;
    let path = ledger_path(&context.settings);
    let reading = match since {
        Some(since) => store::read_since(&path, since),
        None => store::read_all(&path),
    }
    .map_err(|error| ledger_error(&path, &error))?;
    if reading.skipped > 0 {
        context.diagnostics.detail(&format!(
            "skipped {} unreadable lines of '{}' (a line torn by a crash)",
            reading.skipped,
            path.display()
        ));
    }
    let by = args.by.map(GroupBy::from);
    let (total, groups) = summarize(&reading.records, by);
    let report = UsageReport {
        ledger: path.to_string_lossy().into_owned(),
        since: since.map(utc_text),
        by: by.map(|by| by.as_str().to_owned()),
        runs: total.runs,
        failed_runs: total.failed,
        total_cost_usd: total.cost_usd,
        usage: tokens(&total),
        groups: groups
            .into_iter()
            .map(|group| UsageGroupRow {
                key: group.key,
                runs: group.totals.runs,
                failed_runs: group.totals.failed,
                cost_usd: group.totals.cost_usd,
                usage: tokens(&group.totals),
            })
            .collect(),
        budgets: budget_report_at(context, now)?,
        skipped_lines: reading.skipped,
    };
    let mut stdout = Stdout::new();
    if context.format.is_json() {
        stdout.json_report(&report).map_err(stdout_error)?;
    } else {
        stdout.write(&render(&report)).map_err(stdout_error)?;
    }
    Ok(Exit::Success)
}

impl From<UsageGroup> for GroupBy {
    fn from(group: UsageGroup) -> GroupBy {
        match group {
            UsageGroup::Day => GroupBy::Day,
            UsageGroup::Model => GroupBy::Model,
            UsageGroup::Session => GroupBy::Session,
            UsageGroup::Tag => GroupBy::Tag,
        }
    }
}

fn tokens(totals: &Totals) -> UsageTokens {
    UsageTokens {
        input_tokens: totals.input_tokens,
        cache_creation_input_tokens: totals.cache_creation_input_tokens,
        cache_read_input_tokens: totals.cache_read_input_tokens,
        output_tokens: totals.output_tokens,
        reasoning_tokens: totals.reasoning_tokens,
    }
}

/// Each configured `[budget]` against its window now, for `usage` and `status`.
pub(crate) fn budget_report(context: &Context) -> CliResult<Vec<BudgetRow>> {
    budget_report_at(context, OffsetDateTime::now_utc())
}

fn budget_report_at(context: &Context, now: OffsetDateTime) -> CliResult<Vec<BudgetRow>> {
    Ok(budget_states(&context.settings, now)?
        .iter()
        .map(budget_row)
        .collect())
}

fn budget_row(state: &BudgetState) -> BudgetRow {
    BudgetRow {
        budget: state.budget.period.name().to_owned(),
        key: state.budget.period.key().to_owned(),
        limit_usd: state.budget.limit_usd,
        spent_usd: state.spent_usd,
        exceeded: state.exceeded(),
        window_start: utc_text(state.starts),
        resets_at: utc_text(state.resets),
    }
}

/// `2026-06-01T00:00:00Z`.
fn utc_text(time: OffsetDateTime) -> String {
    time.to_offset(time::UtcOffset::UTC)
        .format(&Rfc3339)
        .unwrap_or_else(|_| time.to_string())
}

/// The ledger of this home.
fn ledger_path(settings: &Settings) -> std::path::PathBuf {
    store::path(&settings.paths.data_dir)
}

/// The ledger could not be read: exit 2 with the path (a permission problem, or a link or a
/// directory in its place), as for pincer's other files.
fn ledger_error(path: &std::path::Path, error: &std::io::Error) -> CliError {
    let message = format!("cannot read the usage ledger '{}': {error}", path.display());
    super::access_error(&message, path, error).unwrap_or_else(|| {
        CliError::usage(message).with_hint(
            "the ledger must be a regular file pincer can read; move what is there aside",
        )
    })
}

/// The budgets `[budget]` configures, daily first.
fn budgets(settings: &Settings) -> Vec<Budget> {
    let config = &settings.config.budget;
    [
        (Period::Day, config.daily_usd),
        (Period::Week, config.weekly_usd),
        (Period::Month, config.monthly_usd),
    ]
    .into_iter()
    .filter_map(|(period, limit)| limit.map(|limit_usd| Budget { period, limit_usd }))
    .collect()
}

/// Each configured budget against the ledger, read back to the widest window's start only.
fn budget_states(settings: &Settings, now: OffsetDateTime) -> CliResult<Vec<BudgetState>> {
    let budgets = budgets(settings);
    let Some(start) = earliest_start(&budgets, now) else {
        return Ok(Vec::new());
    };
    let path = ledger_path(settings);
    let by_day = crate::ledger::sums::spent_by_day(&path, start)
        .map_err(|error| ledger_error(&path, &error))?;
    Ok(states(&budgets, &by_day, now))
}

/// Before a turn starts anything (a session, an MCP server, a child, a request): reserve the
/// run's worst case against the `[budget]`s (`ledger::reserve`), or refuse the run with exit 5
/// when a window's spend plus the reservations of the runs in progress has reached its limit.
/// The reservation is settled by [`record_run`] (or dropped, when the run ends before a
/// request). A replay calls no model and is neither checked nor reserved; a dry run calls none
/// either and still exits 0, with a warning when the real run would be refused. An unreadable
/// ledger refuses the run too (exit 2): a budget that cannot be checked is not assumed to be
/// free.
pub(crate) fn check_budget(
    context: &Context,
    request: &TurnRequest,
) -> CliResult<Option<Reservation>> {
    if request.cassette.replay.is_some() {
        return Ok(None);
    }
    let budgets = budgets(&context.settings);
    if budgets.is_empty() {
        return Ok(None);
    }
    let path = ledger_path(&context.settings);
    let amount = reservation_amount(&context.settings, request);
    let now = OffsetDateTime::now_utc();
    if request.dry_run {
        let states = reserve::states_now(&path, &budgets, now, amount)
            .map_err(|error| ledger_error(&path, &error))?;
        if let Some(state) = crate::ledger::window::verdict(&states) {
            context.diagnostics.warn(&format!(
                "without --dry-run this run would exit 5: {}",
                budget_error(state).message
            ));
        }
        return Ok(None);
    }
    match reserve::reserve(&path, &budgets, now, amount) {
        Ok(reservation) => Ok(Some(reservation)),
        Err(Refused::Budget(state)) => Err(budget_error(&state)),
        Err(Refused::Io(error)) => Err(ledger_error(&path, &error)),
        Err(Refused::Lock(error)) => Err(ledger_lock_error(&path, error)),
    }
}

/// What a run reserves: `--max-budget-usd`, else `[budget] reserve_usd`.
fn reservation_amount(settings: &Settings, request: &TurnRequest) -> f64 {
    request
        .max_budget_usd
        .or(settings.config.budget.reserve_usd)
        .unwrap_or(crate::config::file::DEFAULT_RESERVE_USD)
}

/// The ledger's lock could not be taken: exit 124 when `--timeout` ended the wait, 75 when
/// another run held it past the wait.
fn ledger_lock_error(path: &std::path::Path, error: LockError) -> CliError {
    match error {
        LockError::TimedOut { .. } => CliError::new(
            Exit::Timeout,
            format!("{error}, the lock of the usage ledger '{}'", path.display()),
        ),
        LockError::Busy { .. } => CliError::new(
            Exit::Busy,
            format!(
                "the usage ledger '{}' is {error} (waited {} s)",
                path.display(),
                reserve::LEDGER_LOCK_WAIT.as_secs()
            ),
        )
        .with_hint("another pincer is checking its budget; try again"),
        other => CliError::usage(format!("cannot check the budgets: {other}")),
    }
}

/// The refusal of a run over `state`'s budget: which budget, spent, limit, and when it resets.
fn budget_error(state: &BudgetState) -> CliError {
    let period = state.budget.period;
    let message = if state.runs_in_progress == 0 {
        format!(
            "the {} budget is spent: ${:.4} of ${:.2} since {} (budget.{}); runs start again \
             when it resets at {}",
            period.name(),
            state.spent_usd,
            state.budget.limit_usd,
            utc_text(state.starts),
            period.key(),
            utc_text(state.resets),
        )
    } else {
        format!(
            "the {} budget is taken: ${:.4} spent since {} and ${:.4} reserved by {} run(s) in \
             progress, of ${:.2} (budget.{}); runs start again as those end, or when it resets \
             at {}",
            period.name(),
            state.spent_usd,
            utc_text(state.starts),
            state.reserved_usd,
            state.runs_in_progress,
            state.budget.limit_usd,
            period.key(),
            utc_text(state.resets),
        )
    };
    CliError::new(Exit::Guardrail, message)
        .with_kind(ErrorKind::BudgetExceeded)
        .with_hint(format!(
            "wait until {}, or raise `{}` under [budget] in config.toml (`-c budget.{}=…` for one \
         run); `pincer usage --since {}` shows what was spent",
            utc_text(state.resets),
            period.key(),
            period.key(),
            utc_text(state.starts),
        ))
}

/// What a run's events tell the ledger: whether a model request went out (an API call or a CLI
/// child), and the auth profile that served it.
#[derive(Debug, Clone, Default)]
pub(crate) struct Meter(Rc<RefCell<Seen>>);

#[derive(Debug, Default)]
struct Seen {
    requests: u32,
    /// The profile of the last credential that worked, else of the last one tried.
    profile: Option<(String, bool)>,
}

impl Meter {
    /// `inner`, with this meter looking at every event on the way.
    pub(crate) fn watch(&self, inner: Box<dyn OutputSink>) -> Box<dyn OutputSink> {
        Box::new(Watched {
            inner,
            meter: self.clone(),
        })
    }

    fn see(&self, event: &Event) {
        let mut seen = self.0.borrow_mut();
        match event {
            Event::Phase(Phase::Connecting(_)) => seen.requests += 1,
            Event::Credential(outcome) => {
                let worked = outcome.failure.is_none();
                let keep = seen.profile.as_ref().is_some_and(|(_, ok)| *ok) && !worked;
                if !keep {
                    seen.profile = Some((outcome.profile_id.clone(), worked));
                }
            }
            _ => {}
        }
    }
}

struct Watched {
    inner: Box<dyn OutputSink>,
    meter: Meter,
}

impl EventSink for Watched {
    fn emit(&mut self, event: &Event) {
        self.meter.see(event);
        self.inner.emit(event);
    }
}

impl OutputSink for Watched {
    fn finish(&mut self, result: &RunResult) -> Result<(), crate::output::Undelivered> {
        self.inner.finish(result)
    }
}

/// At the end of a turn that made at least one model request, whatever its ending: append its
/// line to the ledger. A replay called no model and appends nothing. A ledger that cannot be
/// written is a warning: the run's own outcome stands.
pub(crate) fn record_run(
    context: &Context,
    turn_args: &TurnArgs,
    (meter, reservation): (&Meter, Option<Reservation>),
    result: &RunResult,
    exit: Exit,
) {
    let seen = meter.0.borrow();
    if seen.requests == 0 || turn_args.cassette.replay.is_some() {
        // Nothing spent: a reservation goes as it is dropped.
        return;
    }
    let record = Record {
        time: ledger::format_time(OffsetDateTime::now_utc()),
        provider: result.provider.clone(),
        model: result.model.clone(),
        backend: result.backend.clone(),
        profile: seen.profile.as_ref().map(|(profile, _)| profile.clone()),
        session_id: result.session_id.clone(),
        session_name: result.session_name.clone(),
        tag: turn_args.tag.clone(),
        input_tokens: result.usage.input_tokens,
        cache_creation_input_tokens: result.usage.cache_creation_input_tokens,
        cache_read_input_tokens: result.usage.cache_read_input_tokens,
        output_tokens: result.usage.output_tokens,
        reasoning_tokens: result.usage.reasoning_tokens,
        cost_usd: result.total_cost_usd,
        num_turns: result.num_turns,
        duration_ms: result.duration_ms,
        exit_code: exit.code(),
        exit_class: match exit {
            Exit::Success => "success",
            other => other.kind().as_str(),
        }
        .to_owned(),
    };
    let path = ledger_path(&context.settings);
    let appended = match reservation {
        Some(reservation) => reservation.settle(&record),
        None => store::append(&path, &record),
    };
    if let Err(error) = appended {
        context.diagnostics.warn(&format!(
            "cannot add this run to the usage ledger '{}': {error}",
            path.display()
        ));
    }
}

#[cfg(test)]
mod tests {
    use time::macros::datetime;

    use super::*;
    use crate::engine::event::CredentialOutcome;

    #[test]
    fn the_refusal_names_the_budget_the_spend_the_limit_and_the_reset() {
        let state = BudgetState {
            budget: Budget {
                period: Period::Day,
                limit_usd: 1.0,
            },
            spent_usd: 1.25,
            reserved_usd: 0.0,
            runs_in_progress: 0,
            starts: datetime!(2026-06-03 00:00 UTC),
            resets: datetime!(2026-06-04 00:00 UTC),
        };
        let error = budget_error(&state);
        assert_eq!(error.exit.code(), 5);
        assert_eq!(error.kind(), ErrorKind::BudgetExceeded);
        assert_eq!(
            error.message,
            "the daily budget is spent: $1.2500 of $1.00 since 2026-06-03T00:00:00Z \
             (budget.daily_usd); runs start again when it resets at 2026-06-04T00:00:00Z"
        );
        assert!(error.hint.unwrap().contains("daily_usd"));
    }

    fn credential(profile: &str, failure: Option<&'static str>) -> Event {
        Event::Credential(CredentialOutcome {
            provider: "anthropic".to_owned(),
            profile_id: profile.to_owned(),
            failure,
        })
    }

    #[test]
    fn the_meter_counts_requests_and_keeps_the_profile_that_worked() {
        let meter = Meter::default();
        meter.see(&Event::Phase(Phase::Connecting("anthropic/x".to_owned())));
        meter.see(&credential("anthropic:work", Some("rate_limit")));
        meter.see(&credential("anthropic:backup", None));
        meter.see(&credential("anthropic:third", Some("auth")));
        let seen = meter.0.borrow();
        assert_eq!(seen.requests, 1);
        assert_eq!(
            seen.profile,
            Some(("anthropic:backup".to_owned(), true)),
            "the profile that served the run, not one that failed after it"
        );
    }
}
