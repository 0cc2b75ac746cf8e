//! `run` and `resume`: the flags become a [`TurnRequest`] (`commands::request`), the session
//! flags a [`setup::Choice`]; the plan (`plan::turn`) resolves and runs the turn; this file sets up
//! the output (progress on stderr, the chosen stdout format, `--events-file`, `-o`), records
//! credential outcomes as they happen, and prints the result object.
//!
//! Every run that parsed its arguments ends with one `result` object in the JSON modes, also when
//! it fails before any model call (SPEC §3.2).

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::{Context, load_scoped, lookup_selector, report_torn, resolve_error};
use crate::cli::{ResumeArgs, RunArgs, TurnArgs};
use crate::engine::CancelReason;
use crate::engine::event::{Event, EventSink};
use crate::error::{CliError, CliResult, Exit};
use crate::output::events::{EventsFile, OutputSink, sink_for};
use crate::output::progress::{ProgressSink, stderr_line};
use crate::output::result::{SessionRef, TurnResult, turn_result};
use crate::output::schema::RunResult;
use crate::output::{Format, Undelivered};
use crate::plan::ChainOutcome;
use crate::plan::turn::{Execution, Front, Known};
use crate::plan::{self, TurnRequest};
use crate::remote::session::RunStore;
use crate::scope::{CancelScope, cancelled_error};
use crate::session::index::{self, Index};
use crate::session::store::{SessionError, SessionLock, TornRepair};
use crate::session_setup as setup;

/// `pincer run`; `run -r SESSION` / `run --continue` (claude's spellings) are `resume`.
pub(crate) fn run(
    format: Format,
    started: Instant,
    context: &CliResult<Context>,
    args: &RunArgs,
) -> CliResult<Exit> {
    run_with(format, started, context, args, &|_| {})
}

/// [`run`], with `adjust` applied to the request the flags make (an agent SDK's front-end adds
/// what its protocol registered).
pub(crate) fn run_with(
    format: Format,
    started: Instant,
    context: &CliResult<Context>,
    args: &RunArgs,
    adjust: &dyn Fn(&mut TurnRequest),
) -> CliResult<Exit> {
    match args.as_resume() {
        Some(resume_args) => drive(
            format,
            started,
            context,
            &resume_args.turn,
            &TurnPlan::Resume(&resume_args),
            adjust,
        ),
        None => drive(
            format,
            started,
            context,
            &args.turn,
            &TurnPlan::Run(args),
            adjust,
        ),
    }
}

/// `pincer resume`.
pub(crate) fn resume(
    format: Format,
    started: Instant,
    context: &CliResult<Context>,
    args: &ResumeArgs,
) -> CliResult<Exit> {
    let plan = TurnPlan::Resume(args);
    drive(format, started, context, &args.turn, &plan, &|_| {})
}

enum TurnPlan<'a> {
    Run(&'a RunArgs),
    Resume(&'a ResumeArgs),
}

impl TurnPlan<'_> {
    /// The session the flags choose.
    fn choice(&self) -> setup::Choice<'_> {
        match self {
            // `--idempotency-key K`: the session named K, created or continued.
            TurnPlan::Run(args) if args.idempotency_key.is_some() => {
                setup::Choice::Resume(setup::Resume {
                    session: args.idempotency_key.as_deref(),
                    create: true,
                    session_id: args.session_id.as_deref(),
                    ..setup::Resume::default()
                })
            }
            TurnPlan::Run(args) => setup::Choice::New(setup::New {
                session_id: args.session_id.as_deref(),
                name: args.name.as_deref(),
            }),
            TurnPlan::Resume(args) => {
                let (session, _) = args.session_and_prompt();
                setup::Choice::Resume(setup::Resume {
                    session,
                    last: args.last,
                    all: args.all,
                    create: args.create,
                    fork: args.fork,
                    name: args.name.as_deref(),
                    session_id: args.session_id.as_deref(),
                })
            }
        }
    }
}

/// What the session's setup asks of the command: its home, workspace and `--wait`, a lock wait
/// that gives way to a signal or the timeout, the index's lookups and what they tell the user.
struct Host<'run> {
    context: &'run Context,
    scope: &'run CancelScope,
    /// The `PROMPT` argument, for the hint of a session that does not exist.
    prompt: Option<&'run str>,
    /// The session store (SPEC §19), when the run uses one.
    remote: Option<RunStore<'run>>,
}

impl setup::Host for Host<'_> {
    fn sessions_dir(&self) -> &Path {
        self.context.sessions_dir()
    }

    fn workspace(&self) -> &Path {
        &self.context.workspace
    }

    fn wait(&self) -> Option<Duration> {
        self.context.wait
    }

    fn lock(&self, path: &Path) -> CliResult<Result<SessionLock, SessionError>> {
        self.scope
            .lock_session(path, self.context.wait)
            .map_err(cancelled_error)
    }

    fn resolve(
        &self,
        index: &Index,
        session: Option<&str>,
        last: bool,
        all: bool,
    ) -> CliResult<PathBuf> {
        match lookup_selector(self.context, index, session, last, all)? {
            Ok(path) => Ok(path),
            Err(crate::session::resolve::ResolveError::NoMatch(query)) => {
                let hint = unknown_session_hint(&query, self.prompt);
                Err(
                    resolve_error(crate::session::resolve::ResolveError::NoMatch(query))
                        .with_hint(hint),
                )
            }
            Err(error) => Err(resolve_error(error)),
        }
    }

    fn scoped_index(&self, wanted: &index::Wanted<'_>) -> CliResult<Index> {
        load_scoped(self.context, wanted)
    }

    fn torn(&self, path: &Path, torn: Option<&TornRepair>) {
        report_torn(self.context, path, torn);
    }

    fn warn(&self, message: &str) {
        self.context.diagnostics.warn(message);
    }

    fn remote(&self) -> Option<&RunStore<'_>> {
        self.remote.as_ref()
    }
}

/// `pincer resume "now add tests"` is claude's `--continue` habit: the one positional value is
/// the session, so no prompt arrives. When that value reads like a prompt (it has spaces), the
/// missing prompt's error says how to send it to the latest session instead.
fn prompt_taken_as_session(plan: &TurnPlan<'_>, error: CliError) -> CliError {
    match plan {
        TurnPlan::Resume(args)
            if error.exit == Exit::Usage
                && let (Some(session), None) = args.session_and_prompt()
                && !args.create
                && session.contains(char::is_whitespace) =>
        {
            let hint = continue_hint(session);
            error.with_hint(hint)
        }
        _ => error,
    }
}

fn continue_hint(prompt: &str) -> String {
    format!(
        "'{prompt}' was taken as a session; to send it to this directory's latest session, type: \
         pincer resume --last {}",
        crate::error::quote_prompt(prompt)
    )
}

/// What to type when `resume SESSION` finds no such session: `--last` when the value was
/// meant as the prompt, else `--create` to make a session of that name on first use.
fn unknown_session_hint(session: &str, prompt: Option<&str>) -> String {
    match prompt {
        None if session.contains(char::is_whitespace) => continue_hint(session),
        _ => format!(
            "to create it on first use, type: pincer resume --create {} {}",
            crate::error::shell_quote(session),
            prompt.map_or_else(|| "\"…\"".to_owned(), crate::error::quote_prompt)
        ),
    }
}

fn drive(
    format: Format,
    started: Instant,
    context: &CliResult<Context>,
    turn_args: &TurnArgs,
    plan: &TurnPlan<'_>,
    adjust: &dyn Fn(&mut TurnRequest),
) -> CliResult<Exit> {
    let mut request = TurnRequest::from(turn_args);
    adjust(&mut request);
    let meter = super::usage::Meter::default();
    let mut sink = match run_sink(format, context, turn_args, &request, &meter) {
        Ok(sink) => sink,
        Err((mut sink, error)) => {
            return fail(&mut *sink, format, started, &Known::default(), error);
        }
    };
    let mut known = Known::default();
    let context = match context {
        Ok(context) => context,
        Err(error) => return fail(&mut *sink, format, started, &known, error.clone()),
    };
    let (scope, reservation) = match start_run(context, turn_args, &request, started) {
        Ok(started) => started,
        Err(error) => return fail(&mut *sink, format, started, &known, error),
    };
    let prompt_argument = match plan {
        TurnPlan::Run(run_args) => run_args.prompt.as_deref(),
        TurnPlan::Resume(resume_args) => resume_args.session_and_prompt().1,
    };
    let idempotency_key = match plan {
        TurnPlan::Run(run_args) => run_args.idempotency_key.as_deref(),
        TurnPlan::Resume(_) => None,
    };
    // The session store (SPEC §19): checked at its first use; a dry run touches nothing.
    let remote = match open_store(context, &scope, idempotency_key, request.dry_run) {
        Ok(remote) => remote,
        Err(error) => return fail(&mut *sink, format, started, &known, error),
    };
    let host = Host {
        context,
        scope: &scope,
        prompt: prompt_argument,
        remote,
    };
    // A retried step whose turn for its key was already saved: that turn's result, again,
    // without a model call and without changing anything.
    if let Some(key) = idempotency_key
        && !request.dry_run
    {
        match recorded_turn(&host, &plan.choice(), key) {
            Ok(Some(result)) => return replay_recorded(&mut *sink, format, &result),
            Ok(None) => {}
            Err(error) => return fail(&mut *sink, format, started, &known, error),
        }
    }
    let front = Front {
        env: context,
        host: &host,
        choice: plan.choice(),
        scope: &scope,
    };
    let mut read = || {
        plan::input::read(context, &request, prompt_argument, &scope)
            .map_err(|error| prompt_taken_as_session(plan, error))
    };
    let executed = plan::turn::execute(&front, &request, &mut read, &mut *sink, &mut known);
    // Another try of this step committed its turn while this one waited for the lease.
    if let Some(result) = host.remote.as_ref().and_then(RunStore::take_replayed)
        && let Ok(result) = serde_json::from_value::<RunResult>(result)
    {
        return replay_recorded(&mut *sink, format, &result);
    }
    match executed {
        Ok(Execution::DryRun(parts)) => {
            match super::dry_run::print(context, &request, &parts, &known) {
                Ok(()) => Ok(Exit::Success),
                Err(error) => fail(&mut *sink, format, started, &known, error),
            }
        }
        Ok(Execution::Turn { setup, outcome }) => {
            let finished = finish(context, &setup, &outcome, request.heartbeat);
            if let Err(error) =
                save_turn(&host, &setup, &finished.result, idempotency_key, &mut *sink)
            {
                let (result, exit) = (&finished.result, finished.exit);
                super::usage::record_run(context, turn_args, (&meter, reservation), result, exit);
                return fail(&mut *sink, format, started, &known, error);
            }
            let (result, exit) = (&finished.result, finished.exit);
            super::usage::record_run(context, turn_args, (&meter, reservation), result, exit);
            deliver(context, (format, turn_args), &mut *sink, finished)
        }
        Err(error) => fail(&mut *sink, format, started, &known, error),
    }
}

/// Where the run's events go: the output mode's sink (with `--events-file`), metered for the
/// ledger, traced when telemetry is on, with the progress on stderr and the credential outcomes
/// saved in front of it. When `--events-file` cannot be opened, the error with a sink to report
/// it through.
fn run_sink<'a>(
    format: Format,
    context: &'a CliResult<Context>,
    turn_args: &TurnArgs,
    request: &TurnRequest,
    meter: &super::usage::Meter,
) -> Result<Box<dyn OutputSink + 'a>, (Box<dyn OutputSink + 'a>, CliError)> {
    // Heartbeat runs and structured output print the answer only at the end.
    let hold_text = request.heartbeat || plan::structured::requested(request);
    let sink_with = |events_file| {
        sink_for(
            format,
            (
                turn_args.include_partial_messages,
                turn_args.include_hook_events,
                request.claude_names,
            ),
            hold_text,
            events_file,
        )
    };
    let events_file = match open_user_files(turn_args) {
        Ok(file) => file,
        Err(error) => return Err((sink_with(None), error)),
    };
    let base = meter.watch(sink_with(events_file));
    Ok(match context {
        Ok(context) => {
            let base =
                crate::telemetry::watch(base, &context.settings.config.telemetry, &|warning| {
                    context.diagnostics.warn(warning);
                });
            Box::new(RunSink {
                // Progress on stderr sees every event first (spinner, tool lines).
                inner: Box::new(ProgressSink::new(
                    base,
                    &context.diagnostics,
                    format,
                    hold_text,
                )),
                auth_file: crate::auth::AuthFile::new(&context.settings.paths.auth_file),
                context,
            })
        }
        Err(_) => base,
    })
}

/// The run's cancel scope and its budget reservation. Signals and the timeout cover the command
/// from here on, stdin included (SPEC §2); a front-end that keeps MCP servers across turns runs
/// every turn on their runtime. Budgets across runs (SPEC §18): a run that would start over one
/// ends here, exit 5, before any session, server, child or request; else it holds its
/// reservation until its line is in the ledger (or it ends without a request, and the
/// reservation goes).
fn start_run(
    context: &Context,
    turn_args: &TurnArgs,
    request: &TurnRequest,
    started: Instant,
) -> CliResult<(CancelScope, Option<crate::ledger::reserve::Reservation>)> {
    let start_scope = |timeout| match &request.kept_mcp {
        Some(kept) => CancelScope::start_on(kept.runtime(), started, timeout),
        None => CancelScope::start(started, timeout),
    };
    let scope = super::request::run_timeout(turn_args)
        .and_then(start_scope)?
        .interruptible(request.interrupt.as_ref());
    let reservation = super::usage::check_budget(context, request)?;
    Ok((scope, reservation))
}

/// A retried step's recorded result, printed again: its turn was saved, nothing runs.
fn replay_recorded(
    sink: &mut dyn OutputSink,
    format: Format,
    result: &RunResult,
) -> CliResult<Exit> {
    match sink.finish(result) {
        Ok(()) | Err(Undelivered::EventsFile(_)) => Ok(Exit::Success),
        Err(Undelivered::Stdout(error)) => Err(not_delivered(format, result, &error)),
    }
}

/// Print a saved turn's result (and `--output-last-message`'s file): the exit is the run's, or
/// the failure to deliver the result when the run itself succeeded.
fn deliver(
    context: &Context,
    (format, turn_args): (Format, &TurnArgs),
    sink: &mut dyn OutputSink,
    finished: Finished,
) -> CliResult<Exit> {
    let Finished {
        result,
        exit,
        error,
    } = finished;
    let delivered = sink.finish(&result);
    if let Some(path) = &turn_args.output_last_message
        && !result.is_error
        && let Err(write_error) = crate::fs::write_for_user(path, result.answer_text().as_bytes())
    {
        return Err(CliError::new(
            Exit::RunFailed,
            format!("cannot write '{}': {write_error}", path.display()),
        ));
    }
    match (error, delivered) {
        (Some(error), delivered) => {
            // The run's own failure is what its exit code reports.
            if let Err(undelivered) = delivered {
                context.diagnostics.warn(&undelivered_message(&undelivered));
            }
            Err(error)
        }
        (None, Err(Undelivered::EventsFile(error))) => {
            context.diagnostics.warn(&error.to_string());
            Ok(exit)
        }
        (None, Err(Undelivered::Stdout(error))) => Err(not_delivered(format, &result, &error)),
        (None, Ok(())) => Ok(exit),
    }
}

/// The store the run uses, checked, with the command's runtime to call it on; None without
/// one, and for a dry run (which touches nothing).
fn open_store<'run>(
    context: &Context,
    scope: &'run CancelScope,
    key: Option<&str>,
    dry_run: bool,
) -> CliResult<Option<RunStore<'run>>> {
    if dry_run {
        return Ok(None);
    }
    let Some(store) = crate::remote::open(&context.settings)? else {
        return Ok(None);
    };
    let ttl = crate::remote::lease_ttl(&context.settings)?;
    scope
        .wait(crate::remote::checked(&store))
        .map_err(cancelled_error)??;
    Ok(Some(RunStore::new(
        store,
        scope,
        (ttl, context.wait),
        &context.settings.paths.state_dir,
        key.map(str::to_owned),
    )))
}

/// The result recorded for idempotency key `key`: in the store's segment of the turn that
/// committed it, or without a store in the local session named `key`.
fn recorded_turn(
    host: &Host<'_>,
    choice: &setup::Choice<'_>,
    key: &str,
) -> CliResult<Option<RunResult>> {
    let recorded = match &host.remote {
        Some(remote) => remote.recorded_turn(key)?,
        None => {
            let index = setup::index_for(host, choice)?;
            if !index.find(key).is_one() {
                return Ok(None);
            }
            let path = setup::Host::resolve(host, &index, Some(key), false, false)?;
            let bytes = std::fs::read(&path).map_err(|error| {
                CliError::new(
                    Exit::RunFailed,
                    format!("cannot read '{}': {error}", path.display()),
                )
            })?;
            crate::remote::session::recorded_result(&bytes, key)
        }
    };
    Ok(recorded.and_then(|value| serde_json::from_value(value).ok()))
}

/// After a turn: record its result under `--idempotency-key` when it succeeded, then commit
/// it to the store (with the `checkpoint` event) when the run uses one.
fn save_turn(
    host: &Host<'_>,
    setup: &setup::SessionSetup,
    result: &RunResult,
    key: Option<&str>,
    sink: &mut dyn OutputSink,
) -> CliResult<()> {
    let succeeded = !result.is_error;
    if let (Some(key), Some(path), true) = (key, &setup.path, succeeded) {
        let leaf = setup
            .transcript
            .entries()
            .last()
            .map(|entry| entry.id().to_owned());
        let value = serde_json::to_value(result)
            .map_err(|error| CliError::new(Exit::RunFailed, error.to_string()))?;
        crate::remote::session::record_turn_result(
            path,
            leaf.as_deref(),
            key,
            &value,
            host.context.wait,
        )?;
    }
    let Some(remote) = &host.remote else {
        return Ok(());
    };
    if let Some(checkpoint) = remote.commit(succeeded, result.compactions > 0)? {
        sink.emit(&Event::Checkpoint(crate::engine::event::Checkpoint {
            session_id: checkpoint.session.to_string(),
            segment: checkpoint.segment,
            turn: checkpoint.turn,
        }));
    }
    Ok(())
}

/// Open `--events-file` (emptied) and check that `-o` may be written at the end, before
/// anything else runs: a link or a file that is not a regular one at either path ends the run
/// with exit 2 before any model request (SPEC §10). `--record` is opened with the cassette.
fn open_user_files(turn_args: &TurnArgs) -> CliResult<Option<EventsFile>> {
    if let Some(path) = &turn_args.output_last_message {
        crate::fs::check_writable_for_user(path)
            .map_err(|error| super::user_file_error("answer file (-o)", path, &error))?;
    }
    turn_args
        .events_file
        .as_ref()
        .map(|path| {
            crate::fs::open_for_user(path, crate::fs::UserFile::Truncate)
                .map(|file| EventsFile::new(file, path))
                .map_err(|error| super::user_file_error("events file", path, &error))
        })
        .transpose()
}

/// What the run persists or says itself, around the output: credential outcomes go to the
/// profile store as they happen (so cooldowns hold across cron runs), warnings to stderr in
/// every mode.
struct RunSink<'run> {
    inner: Box<dyn OutputSink>,
    auth_file: crate::auth::AuthFile,
    /// The command's context: its diagnostics, and the store as the run read it, which says
    /// which profile each outcome belongs to.
    context: &'run Context,
}

impl RunSink<'_> {
    /// Record `outcome` on the profile the run used — not on one added since under the same id.
    fn record(&self, outcome: &crate::engine::event::CredentialOutcome) {
        let diagnostics = &self.context.diagnostics;
        let used = self
            .context
            .auth_store()
            .ok()
            .and_then(|store| store.profiles.get(&outcome.profile_id));
        let Some(used) = used else {
            return;
        };
        let now = u64::try_from(crate::conversation::now_millis()).unwrap_or(0);
        match self.auth_file.record_outcome(
            &outcome.provider,
            &outcome.profile_id,
            used,
            outcome.failure,
            now,
        ) {
            Ok(true) => {}
            Ok(false) => diagnostics.detail(&format!(
                "profile {} was removed or replaced during the run; its outcome is not recorded",
                outcome.profile_id
            )),
            Err(error) => diagnostics.detail(&format!(
                "cannot record the outcome of profile {}: {error}",
                outcome.profile_id
            )),
        }
    }
}

impl EventSink for RunSink<'_> {
    fn emit(&mut self, event: &Event) {
        match event {
            Event::Credential(outcome) => self.record(outcome),
            Event::Warning(message) => self.context.diagnostics.warn(message),
            _ => {}
        }
        self.inner.emit(event)
    }
}

impl OutputSink for RunSink<'_> {
    fn finish(&mut self, result: &RunResult) -> Result<(), Undelivered> {
        self.inner.finish(result)
    }
}

fn fail(
    sink: &mut dyn OutputSink,
    format: Format,
    started: Instant,
    known: &Known,
    error: CliError,
) -> CliResult<Exit> {
    if format.is_json() {
        let mut result = crate::output::result::early_result(
            cancel_reason(error.exit),
            (error.kind(), &error.message),
            started.elapsed(),
        );
        result.session_id.clone_from(&known.session_id);
        result.session_name.clone_from(&known.session_name);
        result.model.clone_from(&known.model);
        result.provider.clone_from(&known.provider);
        result.backend = Some(known.backend.unwrap_or("api").to_owned());
        if let Err(undelivered) = sink.finish(&result) {
            stderr_line(&format!("warning: {}", undelivered_message(&undelivered)));
        }
    }
    Err(error)
}

/// What a run whose own outcome stands says about what it could not write.
fn undelivered_message(undelivered: &Undelivered) -> String {
    match undelivered {
        Undelivered::Stdout(error) => format!("cannot write the result to stdout: {error}"),
        // It names the file.
        Undelivered::EventsFile(error) => error.to_string(),
    }
}

/// A run that went well but whose answer or result object could not be written to stdout (a
/// full disk): not a success, since its reader did not get it (SPEC §3.2, issue #46 item 5).
/// The turn is saved as it is after any run; the hint says where to find it.
fn not_delivered(format: Format, result: &RunResult, error: &std::io::Error) -> CliError {
    let what = match format {
        Format::Text => "the answer",
        Format::Json => "the result",
        Format::StreamJson | Format::CodexJson => "the run's events",
    };
    let error = CliError::new(
        Exit::RunFailed,
        format!("cannot write {what} to stdout: {error}"),
    );
    match &result.session_id {
        Some(id) => error.with_hint(format!(
            "the turn is saved: `pincer sessions show {id}` shows the answer"
        )),
        None => error,
    }
}

/// The signal or timeout behind an exit code of a cancelled command.
fn cancel_reason(exit: Exit) -> Option<CancelReason> {
    match exit {
        Exit::Timeout => Some(CancelReason::Timeout),
        Exit::Interrupted => Some(CancelReason::Interrupt),
        Exit::Terminated => Some(CancelReason::Terminate),
        _ => None,
    }
}

/// A turn's result object, exit code, and the error to report when it failed.
struct Finished {
    result: Box<RunResult>,
    exit: Exit,
    error: Option<CliError>,
}

fn finish(
    context: &Context,
    setup: &setup::SessionSetup,
    outcome: &ChainOutcome,
    heartbeat: bool,
) -> Finished {
    let session = SessionRef {
        id: setup.session_id.as_deref(),
        name: setup.session_name.as_deref(),
    };
    let TurnResult {
        result,
        exit,
        failure,
    } = turn_result(outcome, session, context.started.elapsed(), heartbeat);
    let hint = match &outcome.report.ending {
        crate::engine::Ending::Failed { error, kind } => super::failure_hint::for_failure(
            &context.settings,
            error,
            *kind,
            (&outcome.provider, &outcome.model),
        ),
        _ => None,
    };
    let cli_error = failure.map(|failure| {
        let error = CliError::new(exit, failure.message);
        if let Some(hint) = hint {
            return error.with_hint(hint);
        }
        match exit {
            Exit::Auth => error.with_hint("check the provider's API key"),
            Exit::Unavailable => error.with_hint("the provider is unavailable; try again later"),
            Exit::Guardrail => {
                error.with_hint("raise the limit, or resume the session to continue")
            }
            _ => error,
        }
    });
    let _ = std::io::stderr().flush();
    Finished {
        result: Box::new(result),
        exit,
        error: cli_error,
    }
}
