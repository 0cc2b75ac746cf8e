//! `run` and `resume`: read the prompt, resolve the chain of models with their credentials, the
//! tool policy, sandbox and MCP servers, open or create the session, then hand the turn to the
//! failover loop (`engine::failover`) over the API and CLI engines, and build the result object
//! from the report.
//!
//! Every run that parsed its arguments ends with one `result` object in the JSON modes, also when
//! it fails before any model call (SPEC §3.2).

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::json;

use super::{Context, fork_error, load_scoped, report_torn, resolve_selector, session_error};
use crate::agent::heartbeat;
use crate::agent::prompt::PromptMode;
use crate::cli::{ResumeArgs, RunArgs, TurnArgs};
use crate::config::file::SandboxMode;
use crate::conversation::{ContentBlock, ImageBlock, Message, MessageContent, UserMessage};
use crate::engine::event::{Event, EventSink, Init};
use crate::engine::plan::ChainOutcome;
use crate::engine::plan::attempt::{
    Attempt, Shared, attempt_settings, shared_settings, tool_policy,
};
use crate::engine::plan::chain::{
    Candidate, ChainLinks, chain_keys, default_model, model_chain, run_chain,
};
use crate::engine::plan::child::cli_settings;
use crate::engine::plan::{self, CassetteRequest, PermissionMode, TurnInput, TurnRequest};
use crate::engine::scope::{CancelScope, cancelled_error};
use crate::engine::{CancelReason, Ending};
use crate::error::{CliError, CliResult, Exit};
use crate::input::{InputError, StdinOptions, StdinUse};
use crate::output::Format;
use crate::output::events::{OutputSink, sink_for};
use crate::output::progress::ProgressSink;
use crate::output::report::{ChildInvocation, DryRun};
use crate::output::result::{SessionRef, TurnResult, turn_result};
use crate::output::schema::RunResult;
use crate::provider::http::{Endpoint, Transport};
use crate::provider::{self, ModelRequest, ThinkingLevel};
use crate::session::fork;
use crate::session::index::{self, Index};
use crate::session::names::{FoundOrCreated, ensure_name_free, find_or_create, give_name};
use crate::session::record::{self, SessionHeader};
use crate::session::store;
use crate::session::tail;
use crate::session::transcript::Transcript;

/// `pincer run`; `run -r SESSION` / `run --continue` (claude's spellings) are `resume`.
pub fn run(
    format: Format,
    started: Instant,
    context: &CliResult<Context>,
    args: &RunArgs,
) -> CliResult<Exit> {
    if let Some(resume_args) = args.as_resume() {
        return resume(format, started, context, &resume_args);
    }
    let plan = TurnPlan::Run(args);
    drive(format, started, context, &args.turn, &plan)
}

/// `pincer resume`.
pub fn resume(
    format: Format,
    started: Instant,
    context: &CliResult<Context>,
    args: &ResumeArgs,
) -> CliResult<Exit> {
    let plan = TurnPlan::Resume(args);
    drive(format, started, context, &args.turn, &plan)
}

enum TurnPlan<'a> {
    Run(&'a RunArgs),
    Resume(&'a ResumeArgs),
}

/// What the command knows about the run so far, for the result object of a failure.
#[derive(Debug, Default, Clone)]
struct Known {
    session_id: Option<String>,
    session_name: Option<String>,
    model: Option<String>,
    provider: Option<String>,
    /// `claude-cli` / `codex-cli` for a delegated turn (None: the API).
    backend: Option<&'static str>,
}

fn drive(
    format: Format,
    started: Instant,
    context: &CliResult<Context>,
    turn_args: &TurnArgs,
    plan: &TurnPlan<'_>,
) -> CliResult<Exit> {
    let request = TurnRequest::from(turn_args);
    // Heartbeat runs and structured output print the answer only at the end.
    let hold_text = request.heartbeat || plan::structured::requested(&request);
    let sink_with = |events_file| {
        sink_for(
            format,
            (
                turn_args.include_partial_messages,
                turn_args.include_hook_events,
            ),
            hold_text,
            events_file,
        )
    };
    let events_file = match open_user_files(turn_args) {
        Ok(file) => file,
        Err(error) => {
            return fail(
                &mut *sink_with(None),
                format,
                started,
                &Known::default(),
                error,
            );
        }
    };
    let meter = super::usage::Meter::default();
    let base = meter.watch(sink_with(events_file));
    let mut sink: Box<dyn OutputSink + '_> = match context {
        Ok(context) => Box::new(RunSink {
            // Progress on stderr sees every event first (spinner, tool lines).
            inner: Box::new(ProgressSink::new(
                base,
                &context.diagnostics,
                format,
                hold_text,
            )),
            auth_file: crate::auth::AuthFile::new(&context.settings.paths.auth_file),
            context,
        }),
        Err(_) => base,
    };
    let mut known = Known::default();
    let context = match context {
        Ok(context) => context,
        Err(error) => return fail(&mut *sink, format, started, &known, error.clone()),
    };
    // Signals and the timeout cover the command from here on, stdin included (SPEC §2).
    let scope =
        match run_timeout(turn_args).and_then(|timeout| CancelScope::start(started, timeout)) {
            Ok(scope) => scope,
            Err(error) => return fail(&mut *sink, format, started, &known, error),
        };
    match execute(context, &request, plan, &scope, &mut *sink, &mut known) {
        Ok(Execution::DryRun) => Ok(Exit::Success),
        Ok(Execution::Turn {
            result,
            exit,
            error,
        }) => {
            super::usage::record_run(context, turn_args, &meter, &result, exit);
            if let Err(write_error) = sink.finish(&result) {
                context
                    .diagnostics
                    .warn(&format!("cannot write the result: {write_error}"));
            }
            if let Some(path) = &turn_args.output_last_message
                && !result.is_error
                && let Err(write_error) =
                    crate::fs::write_for_user(path, result.answer_text().as_bytes())
            {
                return Err(CliError::new(
                    Exit::RunFailed,
                    format!("cannot write '{}': {write_error}", path.display()),
                ));
            }
            match error {
                Some(error) => Err(error),
                None => Ok(exit),
            }
        }
        Err(error) => fail(&mut *sink, format, started, &known, error),
    }
}

/// Open `--events-file` (emptied) and check that `-o` may be written at the end, before
/// anything else runs: a link or a file that is not a regular one at either path ends the run
/// with exit 2 before any model request (SPEC §10). `--record` is opened with the cassette.
fn open_user_files(turn_args: &TurnArgs) -> CliResult<Option<std::fs::File>> {
    if let Some(path) = &turn_args.output_last_message {
        crate::fs::check_for_user(path)
            .map_err(|error| super::user_file_error("answer file (-o)", path, &error))?;
    }
    turn_args
        .events_file
        .as_ref()
        .map(|path| {
            crate::fs::open_for_user(path, crate::fs::UserFile::Truncate)
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
    fn emit(&mut self, event: &Event) -> std::io::Result<()> {
        match event {
            Event::Credential(outcome) => self.record(outcome),
            Event::Warning(message) => self.context.diagnostics.warn(message),
            _ => {}
        }
        self.inner.emit(event)
    }
}

impl OutputSink for RunSink<'_> {
    fn finish(&mut self, result: &RunResult) -> std::io::Result<()> {
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
        let _ = sink.finish(&result);
    }
    Err(error)
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

/// `--timeout`, checked: more than 0 seconds.
fn run_timeout(args: &TurnArgs) -> CliResult<Option<Duration>> {
    match args.timeout {
        Some(timeout) if !(timeout > 0.0 && timeout.is_finite()) => {
            Err(CliError::usage("--timeout must be more than 0 seconds")
                .with_hint("give a number of seconds such as 600 or 0.5"))
        }
        timeout => Ok(seconds(timeout)),
    }
}

enum Execution {
    DryRun,
    Turn {
        result: Box<RunResult>,
        exit: Exit,
        error: Option<CliError>,
    },
}

fn parse_thinking(text: &str) -> Option<ThinkingLevel> {
    match text {
        "off" => Some(ThinkingLevel::Off),
        "minimal" => Some(ThinkingLevel::Minimal),
        "low" => Some(ThinkingLevel::Low),
        "medium" => Some(ThinkingLevel::Medium),
        "high" => Some(ThinkingLevel::High),
        "xhigh" => Some(ThinkingLevel::Xhigh),
        _ => None,
    }
}

fn input_error(error: InputError) -> CliError {
    let hint = match &error {
        InputError::NoPrompt(_) | InputError::Missing => {
            "give the prompt as an argument, or pipe it in: echo \"…\" | pincer run -"
        }
        InputError::TooLarge(_) => "raise `stdin.max_bytes` in config.toml, or send less",
        InputError::InvalidUtf8(_) => "convert the input to UTF-8, or pass --lossy-stdin",
        InputError::Empty => "say what the agent should do",
        InputError::Read(_) => "check what is connected to stdin, or pass --no-stdin",
    };
    CliError::usage(error.to_string()).with_hint(hint)
}

/// Say when stdin was left unread (nothing is dropped silently, SPEC §2), and with `-v` what
/// the look for its writer found and cost.
fn report_stdin(context: &Context, stdin: StdinUse) {
    let scan_text = |scan: &crate::input::WriterScan| {
        format!(
            "looked through {} processes for its writer in {} µs",
            scan.processes,
            scan.elapsed.as_micros()
        )
    };
    match stdin {
        StdinUse::Ignored { window, scan } => {
            context.diagnostics.warn(&format!(
                "stdin was ignored: nothing arrived within {} s and no other process of this \
                 pipeline writes to it; to wait for it, pass --stdin-timeout 0 (or `-` to read \
                 the prompt itself from stdin)",
                window.as_secs_f64()
            ));
            if let Some(scan) = &scan {
                context
                    .diagnostics
                    .detail(&format!("stdin: {}", scan_text(scan)));
            }
        }
        StdinUse::Waited(scan) => context.diagnostics.detail(&format!(
            "stdin: nothing within the window, but process {} of this pipeline holds it open, so \
             it is read to the end ({})",
            scan.writer.unwrap_or_default(),
            scan_text(&scan)
        )),
        StdinUse::NotRead | StdinUse::Read => {}
    }
}

fn seconds(value: Option<f64>) -> Option<Duration> {
    value.map(|seconds| Duration::from_secs_f64(seconds.max(0.0)))
}

fn read_images(paths: &[PathBuf]) -> CliResult<Vec<ContentBlock>> {
    use base64::Engine as _;
    let mut blocks = Vec::new();
    for path in paths {
        let bytes = std::fs::read(path).map_err(|error| {
            CliError::usage(format!("cannot read image '{}': {error}", path.display()))
                .with_hint("-i takes the path of a PNG, JPEG, GIF or WebP file")
        })?;
        let mime = if bytes.starts_with(b"\x89PNG") {
            "image/png"
        } else if bytes.starts_with(&[0xff, 0xd8, 0xff]) {
            "image/jpeg"
        } else if bytes.starts_with(b"GIF8") {
            "image/gif"
        } else if bytes.len() > 12 && &bytes[0..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
            "image/webp"
        } else {
            return Err(CliError::usage(format!(
                "'{}' is not a PNG, JPEG, GIF or WebP image",
                path.display()
            )));
        };
        blocks.push(ContentBlock::Image(ImageBlock {
            data: base64::engine::general_purpose::STANDARD.encode(&bytes),
            mime_type: mime.to_owned(),
        }));
    }
    Ok(blocks)
}

fn read_text_file(path: &Path, what: &str) -> CliResult<String> {
    std::fs::read_to_string(path).map_err(|error| {
        CliError::usage(format!("cannot read {what} '{}': {error}", path.display()))
            .with_hint(format!("check the path given to {what}"))
    })
}

/// The session a turn writes to, set up per the command.
struct SessionSetup {
    transcript: Transcript,
    context: Vec<Message>,
    session_id: Option<String>,
    session_name: Option<String>,
    /// Model and thinking level recorded in the session (resume).
    recorded_model: Option<String>,
    recorded_thinking: Option<ThinkingLevel>,
    path: Option<PathBuf>,
}

fn new_header(context: &Context, id: String) -> SessionHeader {
    SessionHeader {
        version: Some(store::CURRENT_VERSION),
        id,
        timestamp: record::now_iso(),
        cwd: context.workspace.to_string_lossy().into_owned(),
        parent_session: None,
        extra: serde_json::Map::new(),
    }
}

fn create_session(
    context: &Context,
    id: String,
    name: Option<&str>,
    ephemeral: bool,
) -> CliResult<SessionSetup> {
    if ephemeral {
        return Ok(SessionSetup {
            transcript: Transcript::ephemeral(Vec::new()),
            context: Vec::new(),
            session_id: Some(id),
            session_name: name.map(str::to_owned),
            recorded_model: None,
            recorded_thinking: None,
            path: None,
        });
    }
    let header = new_header(context, id);
    // The name is in the file from its first byte, so whoever looks for it next finds it.
    let entries = match name {
        Some(name) => vec![
            record::build_entry(
                "session_info",
                &record::new_entry_id(&|_| false),
                None,
                json!({ "name": name }),
            )
            .map_err(|error| CliError::new(Exit::RunFailed, error.to_string()))?,
        ],
        None => Vec::new(),
    };
    let (writer, loaded) =
        store::create_locked(context.sessions_dir(), &header, &entries).map_err(session_error)?;
    let path = writer.path().to_owned();
    let transcript = Transcript::persisted(writer, loaded.entries);
    Ok(SessionSetup {
        transcript,
        context: Vec::new(),
        session_id: Some(loaded.header.id),
        session_name: name.map(str::to_owned),
        recorded_model: None,
        recorded_thinking: None,
        path: Some(path),
    })
}

/// Open an existing session for a turn. Only the end of the file is read: the entries from the
/// latest compaction's first kept one on (the whole branch when there is none), which rebuild the
/// context; name, model and thinking level recorded further back come from the index.
fn open_session(
    context: &Context,
    scope: &CancelScope,
    (index, path): (&Index, &Path),
    ephemeral: bool,
) -> CliResult<SessionSetup> {
    let (writer, tail) = if ephemeral {
        (None, tail::load(path).map_err(session_error)?)
    } else {
        // `--wait` gives way to a signal or the timeout.
        let lock = scope
            .lock_session(path, context.wait)
            .map_err(cancelled_error)?
            .map_err(session_error)?;
        let (writer, tail, torn) = tail::open_locked(lock).map_err(session_error)?;
        report_torn(context, path, torn.as_ref());
        (Some(writer), tail)
    };
    let facts = tail::complete_facts(&tail, || {
        // The index the turn resolved the session with, when it still describes the file.
        let known = path
            .file_name()
            .filter(|_| path.parent() == Some(context.sessions_dir()))
            .and_then(|name| index.by_file(&name.to_string_lossy()))
            .filter(|entry| index::describes(entry, path));
        match known {
            Some(entry) => Some(entry.summary.clone()),
            None => index::cached_entry(context.sessions_dir(), path).map(|entry| entry.summary),
        }
    })
    .map_err(session_error)?;
    let session_id = Some(tail.session.header.id.clone());
    let mut entries = tail.session.entries;
    // The messages move into the turn's context rather than being copied: a 100 MB session is
    // not held twice (SPEC §12.1); a compaction reads the entries again in full.
    let (rebuilt, transcript) = match writer {
        Some(writer) => (
            crate::session::context::take_context(&mut entries, None),
            Transcript::persisted_thin(writer, entries),
        ),
        None => (
            crate::session::context::build_context(&entries, None),
            Transcript::ephemeral(entries),
        ),
    };
    Ok(SessionSetup {
        transcript,
        context: rebuilt.into_conversation(),
        session_id,
        session_name: facts.name.clone(),
        recorded_model: facts.model_ref(),
        recorded_thinking: facts.thinking_level.as_deref().and_then(parse_thinking),
        path: Some(path.to_owned()),
    })
}

fn setup_session(
    context: &Context,
    scope: &CancelScope,
    index: &Index,
    plan: &TurnPlan<'_>,
    ephemeral: bool,
) -> CliResult<SessionSetup> {
    match plan {
        TurnPlan::Run(args) => {
            let id = new_session_id(index, args.session_id.as_deref())?;
            match &args.name {
                Some(name) => name_with(context, (index, ephemeral), name, None, || {
                    create_session(context, id, Some(name), ephemeral)
                }),
                None => create_session(context, id, None, ephemeral),
            }
        }
        TurnPlan::Resume(args) => {
            let (session, _) = args.session_and_prompt();
            let mut found = None;
            if args.create {
                let name = session.unwrap_or_default();
                if let crate::session::index::Lookup::One(existing) = index.find(name) {
                    if let Some(wanted) = &args.session_id
                        && !existing.summary.id.eq_ignore_ascii_case(wanted)
                    {
                        return Err(CliError::usage(format!(
                            "session '{name}' already exists with id {}, not {wanted}",
                            existing.summary.id
                        ))
                        .with_hint("--session-id names the session --create makes; leave it out to continue this one"));
                    }
                } else {
                    let id = new_session_id(index, args.session_id.as_deref())?;
                    let create = || create_session(context, id, Some(name), ephemeral);
                    if ephemeral {
                        ensure_name_free(index, name, None)?;
                        return create();
                    }
                    // Another process may be creating it right now: the one that gets the
                    // names lock first creates it, the others continue that session.
                    match find_or_create(context.sessions_dir(), context.wait, name, create)? {
                        FoundOrCreated::Created(setup) => return Ok(setup),
                        FoundOrCreated::Found(path) => found = Some(path),
                    }
                }
            }
            let path = match found {
                Some(path) => path,
                None => resolve_selector(context, index, session, args.last, args.all)?,
            };
            let path = if args.fork {
                let loaded = store::load(&path).map_err(session_error)?;
                let id = new_session_id(index, args.session_id.as_deref())?;
                match &args.name {
                    Some(name) => name_with(context, (index, ephemeral), name, None, || {
                        fork::fork(context.sessions_dir(), &loaded, None, Some(name), Some(id))
                            .map_err(fork_error)
                    })?,
                    None => fork::fork(context.sessions_dir(), &loaded, None, None, Some(id))
                        .map_err(fork_error)?,
                }
                .path
            } else {
                path
            };
            let mut setup = open_session(context, scope, (index, &path), ephemeral)?;
            if let Some(name) = &args.name
                && !args.fork
                && setup.session_name.as_deref() != Some(name.as_str())
            {
                let transcript = &mut setup.transcript;
                name_with(
                    context,
                    (index, ephemeral),
                    name,
                    setup.session_id.as_deref(),
                    || {
                        transcript
                            .append("session_info", json!({"name": name}))
                            .map_err(session_error)
                    },
                )?;
                setup.session_name = Some(name.clone());
            }
            if args.fork {
                setup.session_name = args.name.clone();
            }
            Ok(setup)
        }
    }
}

/// The id of a session about to be made: `--session-id` checked (a UUID no session has), else
/// a fresh UUIDv7.
fn new_session_id(index: &Index, requested: Option<&str>) -> CliResult<String> {
    let Some(requested) = requested else {
        return Ok(uuid::Uuid::now_v7().to_string());
    };
    let id = uuid::Uuid::parse_str(requested)
        .map_err(|_| {
            CliError::usage(format!("--session-id '{requested}' is not a UUID"))
                .with_hint("give a UUID such as 0199a000-0000-7000-8000-000000000001")
        })?
        .to_string();
    if index.find(&id).is_one() {
        return Err(
            CliError::usage(format!("a session with id {id} already exists"))
                .with_hint("resume it with `pincer resume ID`, or leave out --session-id"),
        );
    }
    Ok(id)
}

/// `resume --session-id` names the session the turn makes, so it needs --fork or --create.
fn check_resume_session_id(args: &ResumeArgs) -> CliResult<()> {
    if args.session_id.is_some() && !args.fork && !args.create {
        return Err(CliError::usage(
            "--session-id names a new session; `resume` makes one only with --fork or --create",
        )
        .with_hint(
            "add --fork (or --fork-session) to continue in a copy with that id, or --create NAME; \
             to continue a session by id, give the id as SESSION",
        ));
    }
    Ok(())
}

/// Give `name` with `give`: under the names lock when the session is persisted, and checked
/// against the index the run started with when nothing is written (`--no-session-persistence`
/// creates no file, not even the lock's).
fn name_with<T>(
    context: &Context,
    (index, ephemeral): (&Index, bool),
    name: &str,
    except_id: Option<&str>,
    give: impl FnOnce() -> CliResult<T>,
) -> CliResult<T> {
    if ephemeral {
        ensure_name_free(index, name, except_id)?;
        give()
    } else {
        give_name(context.sessions_dir(), context.wait, name, except_id, give)
    }
}

fn execute(
    context: &Context,
    args: &TurnRequest,
    plan: &TurnPlan<'_>,
    scope: &CancelScope,
    sink: &mut dyn EventSink,
    known: &mut Known,
) -> CliResult<Execution> {
    // --json-schema: a schema that cannot be used is exit 2 before anything is sent (§3.4).
    let output_schema = plan::structured::schema(args)?;
    if let TurnPlan::Resume(resume_args) = plan {
        check_resume_session_id(resume_args)?;
    }
    // --record / --replay: opened before anything is created (a bad cassette is exit 2).
    let cassette = plan::replay::RunCassette::for_turn(context, args)?;
    // A bad MCP server declaration is a usage error (SPEC §13), found before anything waits.
    let mcp_config = plan::mcp::config(context, &args.mcp_config, args.strict_mcp_config)?;
    // So is a bad hook (SPEC §14).
    let hook_set = plan::hooks::config(context, args)?;
    let input = read_input(context, args, plan, scope)?;
    let (index, chain, recorded_thinking) = resolve_chain(context, args, plan, &cassette, known)?;
    super::usage::check_budget(context, args)?;
    // A bad tool rule or a missing --add-dir is a usage error: check it before a session file
    // is created.
    let policy = tool_policy(context, args)?;
    let added_dirs = super::added_dirs(context, &args.add_dir)?;
    let mut transport = None;
    let mcp = start_mcp(
        context,
        args,
        scope,
        &chain,
        &mcp_config,
        &cassette,
        &mut transport,
    )?;
    let policy = policy.with_mcp_tools(mcp.tools());
    // `--web-search` the primary model cannot honour is a usage error: before the session.
    plan::web_search::check_primary(
        &context.settings,
        plan::web_search::Asked::new(args.web_search, &context.settings),
        &chain[0].resolved,
        !policy.offered().is_empty() || !policy.offered_mcp().is_empty(),
    )?;

    // A dry run resolves everything and prints the request, touching nothing.
    let mut setup = if args.dry_run {
        dry_run_context(context, scope, &index, plan)?
    } else {
        setup_session(context, scope, &index, plan, args.no_session_persistence)?
    };
    known.session_id.clone_from(&setup.session_id);
    known.session_name.clone_from(&setup.session_name);
    let (shared, user) = shared_settings(
        context,
        args,
        input,
        &chain,
        (policy, mcp, mcp_config),
        (&added_dirs, recorded_thinking, output_schema),
        (
            hook_set,
            plan::SessionRef {
                id: setup.session_id.as_deref(),
                path: setup.path.as_deref(),
            },
        ),
    )?;
    let primary = &chain[0];
    let first = attempt_settings(context, args, &shared, primary);
    if args.dry_run {
        dry_run(
            context,
            args,
            (&setup, &shared),
            &chain,
            (&first, user),
            known,
        )?;
        return Ok(Execution::DryRun);
    }

    let _ = sink.emit(&Event::Init(init_event(
        context, &setup, &first, primary, &shared, known,
    )));
    if (context.diagnostics.is_terminal() || context.diagnostics.verbosity() > 0)
        && let Some(id) = &setup.session_id
    {
        context.diagnostics.info(&format!("session: {id}"));
    }
    let user = prompt_hooks(context, (scope, plan), primary, &shared, user, sink)?;
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
    };
    let mut outcome = end_turn(context, scope, links, sink)?;
    close_session(context, &mut setup, primary, &outcome)?;
    // A lock wait that --timeout cut short (the credential store's while the turn recorded a
    // credential's outcome, the index's after it) ends the run as the timeout does in any other
    // phase (SPEC §2), though the turn itself is complete in the session.
    if crate::fs::wait_cut_by_deadline() && matches!(outcome.report.ending, Ending::Completed) {
        outcome.report.ending = Ending::Cancelled(CancelReason::Timeout);
    }
    Ok(finish(context, &setup, &outcome, args.heartbeat))
}

/// Run the chain, then stop what the turn started: every exit path of the turn stops the MCP
/// servers here (the others drop the set, which kills their process groups at once), and an
/// API turn's SessionEnd hooks run.
fn end_turn(
    context: &Context,
    scope: &CancelScope,
    links: ChainLinks<'_>,
    sink: &mut dyn EventSink,
) -> CliResult<ChainOutcome> {
    let shared = links.shared;
    let api = links.chain[0].resolved.cli.is_none();
    let outcome = scope.block_on(run_chain(links, sink));
    scope.block_on(shared.mcp.shutdown());
    if api {
        plan::hooks::session_end(context, scope, &shared.hooks, sink);
    }
    outcome
}

/// Record a fallback's model change, then sync and release the session before refreshing its
/// index entry.
fn close_session(
    context: &Context,
    setup: &mut SessionSetup,
    primary: &Candidate,
    outcome: &ChainOutcome,
) -> CliResult<()> {
    // A fallback answers this turn only: the session stays on the model it was run with.
    if outcome.last_model != primary.model_ref {
        append_model_change(&mut setup.transcript, primary)?;
    }
    setup.transcript.close().map_err(session_error)?;
    if let Some(path) = &setup.path {
        let _ = index::update_one(context.sessions_dir(), path);
    }
    Ok(())
}

fn read_input(
    context: &Context,
    args: &TurnRequest,
    plan: &TurnPlan<'_>,
    scope: &CancelScope,
) -> CliResult<TurnInput> {
    let prompt_argument = match plan {
        TurnPlan::Run(run_args) => run_args.prompt.as_deref(),
        TurnPlan::Resume(resume_args) => resume_args.session_and_prompt().1,
    };
    // A heartbeat run without a prompt uses the heartbeat prompt (the cron idiom).
    let prompt_argument = match prompt_argument {
        None if args.heartbeat => Some(heartbeat::default_prompt()),
        other => other,
    };
    let prompt = scope
        .read_prompt(
            prompt_argument,
            StdinOptions {
                never: args.no_stdin,
                timeout: seconds(args.stdin_timeout.or(context.settings.timeouts.stdin_secs)),
                max_bytes: context.settings.stdin_max_bytes,
                lossy: args.lossy_stdin,
            },
        )
        .map_err(cancelled_error)?
        .map_err(input_error)?;
    if prompt.lossy {
        context
            .diagnostics
            .warn("stdin was not valid UTF-8; invalid bytes were replaced (--lossy-stdin)");
    }
    report_stdin(context, prompt.stdin);
    let images = read_images(&args.image)?;
    let mut system_replace = args.system_prompt.clone();
    if let Some(path) = &args.system_prompt_file {
        system_replace = Some(read_text_file(path, "--system-prompt-file")?);
    }
    let mut appends = context.settings.workspace.append_system_prompt.clone();
    appends.extend(args.append_system_prompt.iter().cloned());
    for path in &args.append_system_prompt_file {
        appends.push(read_text_file(path, "--append-system-prompt-file")?);
    }
    Ok(TurnInput {
        prompt,
        images,
        system_replace,
        appends,
    })
}

/// Resolve every model of the chain and its credentials before anything is created, so a run
/// that cannot start leaves no session behind. Also returns the index (looked up only when the
/// turn names a session) and the thinking level the session recorded.
fn resolve_chain(
    context: &Context,
    args: &TurnRequest,
    plan: &TurnPlan<'_>,
    cassette: &plan::replay::RunCassette,
    known: &mut Known,
) -> CliResult<(Index, Vec<Candidate>, Option<ThinkingLevel>)> {
    // A plain `run` makes a fresh UUIDv7 session and looks nothing up: in a home with thousands
    // of sessions, refreshing the index would cost more than the turn.
    let index = match plan {
        TurnPlan::Run(run_args) if run_args.session_id.is_none() && run_args.name.is_none() => {
            Index::default()
        }
        TurnPlan::Run(run_args) => {
            let wanted = index::Wanted {
                queries: [&run_args.session_id, &run_args.name]
                    .into_iter()
                    .flatten()
                    .map(String::as_str)
                    .collect(),
                last: None,
            };
            load_scoped(context, &wanted)?
        }
        TurnPlan::Resume(resume_args) => {
            let (session, _) = resume_args.session_and_prompt();
            let wanted = index::Wanted {
                queries: [
                    session,
                    resume_args.name.as_deref(),
                    resume_args.session_id.as_deref(),
                ]
                .into_iter()
                .flatten()
                .collect(),
                last: (resume_args.last && session.is_none())
                    .then_some((context.workspace.as_path(), resume_args.all)),
            };
            load_scoped(context, &wanted)?
        }
    };
    let (recorded_model, recorded_thinking) = peek_recorded(context, &index, plan)?;
    let reference = match (&args.model, &recorded_model, &context.settings.model) {
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
        let variables = context
            .settings
            .key_env_vars(&primary.resolved.reference.provider)
            .join(" or ");
        return Err(CliError::new(
            Exit::Auth,
            format!(
                "no credentials for provider '{}'",
                primary.resolved.reference.provider
            ),
        )
        .with_hint(format!("set {variables}")));
    }
    Ok((index, chain, recorded_thinking))
}

/// MCP servers (SPEC §13): they start before the session is created, so that a required one
/// that fails leaves nothing behind. A turn that only delegates to a CLI hands the servers to
/// the child instead. The model calls' transport is built here when the servers need its HTTP
/// client too (building one costs a few milliseconds).
fn start_mcp(
    context: &Context,
    args: &TurnRequest,
    scope: &CancelScope,
    chain: &[Candidate],
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
    plan::mcp::start_for_turn(context, scope, mcp_config, &keys, &http)
}

/// `--dry-run`: the primary model's request (or child invocation) as JSON on stdout, touching
/// nothing.
fn dry_run(
    context: &Context,
    args: &TurnRequest,
    (setup, shared): (&SessionSetup, &Shared),
    chain: &[Candidate],
    (first, user): (&Attempt, Message),
    known: &Known,
) -> CliResult<()> {
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
            messages.push(user);
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
    stdout.json_pretty(&report).map_err(super::stdout_error)
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

/// SessionStart and UserPromptSubmit (SPEC §14), before the prompt is recorded: what they say
/// for the model follows the prompt in the user message; a block ends the run (after the
/// SessionEnd hooks). A CLI backend runs its own.
fn prompt_hooks(
    context: &Context,
    (scope, plan): (&CancelScope, &TurnPlan<'_>),
    primary: &Candidate,
    shared: &Shared,
    mut user: Message,
    sink: &mut dyn EventSink,
) -> CliResult<Message> {
    if primary.resolved.cli.is_some() {
        return Ok(user);
    }
    let source = match plan {
        TurnPlan::Run(_) => "startup",
        TurnPlan::Resume(_) => "resume",
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
    setup: &mut SessionSetup,
    primary: &Candidate,
    thinking: ThinkingLevel,
    user: Message,
) -> CliResult<Vec<Message>> {
    if setup.recorded_model.as_deref() != Some(primary.model_ref.as_str()) {
        append_model_change(&mut setup.transcript, primary)?;
    }
    if setup.recorded_thinking != Some(thinking) {
        setup
            .transcript
            .append(
                "thinking_level_change",
                json!({"thinkingLevel": thinking.as_str()}),
            )
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
    context: &Context,
    setup: &SessionSetup,
    first: &Attempt,
    primary: &Candidate,
    shared: &Shared,
    known: &Known,
) -> Init {
    Init {
        session_id: setup.session_id.clone(),
        cwd: context.workspace.clone(),
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
        } else {
            "off"
        },
    }
}

fn append_model_change(transcript: &mut Transcript, candidate: &Candidate) -> CliResult<()> {
    transcript
        .append(
            "model_change",
            json!({
                "provider": candidate.resolved.reference.provider,
                "modelId": candidate.resolved.reference.model,
            }),
        )
        .map(|_| ())
        .map_err(session_error)
}

/// The model and thinking level a resumed session recorded, read without locking anything: from
/// the index, else from the end of the file. A file the index found damaged is loaded in full, so
/// that the resume refuses it with the full reader's error.
fn peek_recorded(
    context: &Context,
    index: &Index,
    plan: &TurnPlan<'_>,
) -> CliResult<(Option<String>, Option<ThinkingLevel>)> {
    let TurnPlan::Resume(args) = plan else {
        return Ok((None, None));
    };
    let (session, _) = args.session_and_prompt();
    if args.create && !index.find(session.unwrap_or_default()).is_one() {
        return Ok((None, None));
    }
    let path = resolve_selector(context, index, session, args.last, args.all)?;
    let facts = match path
        .file_name()
        .and_then(|name| index.by_file(&name.to_string_lossy()))
    {
        Some(entry) if entry.problem.is_none() => tail::SessionFacts::from_summary(&entry.summary),
        Some(_) => {
            let loaded = store::load(&path).map_err(session_error)?;
            tail::facts_of(&loaded.entries)
        }
        None => {
            let tail = tail::load(&path).map_err(session_error)?;
            tail::complete_facts(&tail, || None).map_err(session_error)?
        }
    };
    Ok((
        facts.model_ref(),
        facts.thinking_level.as_deref().and_then(parse_thinking),
    ))
}

/// The session a dry run describes, loaded read-only (nothing is created or locked).
fn dry_run_context(
    context: &Context,
    scope: &CancelScope,
    index: &Index,
    plan: &TurnPlan<'_>,
) -> CliResult<SessionSetup> {
    let empty = |id: Option<String>| SessionSetup {
        transcript: Transcript::ephemeral(Vec::new()),
        context: Vec::new(),
        session_id: id,
        session_name: None,
        recorded_model: None,
        recorded_thinking: None,
        path: None,
    };
    match plan {
        TurnPlan::Run(args) => Ok(empty(args.session_id.clone())),
        TurnPlan::Resume(args) => {
            let (session, _) = args.session_and_prompt();
            if args.create && !index.find(session.unwrap_or_default()).is_one() {
                return Ok(empty(None));
            }
            let path = resolve_selector(context, index, session, args.last, args.all)?;
            open_session(context, scope, (index, &path), true)
        }
    }
}

fn finish(
    context: &Context,
    setup: &SessionSetup,
    outcome: &ChainOutcome,
    heartbeat: bool,
) -> Execution {
    let session = SessionRef {
        id: setup.session_id.as_deref(),
        name: setup.session_name.as_deref(),
    };
    let TurnResult {
        result,
        exit,
        failure,
    } = turn_result(outcome, session, context.started.elapsed(), heartbeat);
    let cli_error = failure.map(|failure| {
        let error = CliError::new(exit, failure.message);
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
    Execution::Turn {
        result: Box::new(result),
        exit,
        error: cli_error,
    }
}

impl From<&TurnArgs> for TurnRequest {
    fn from(args: &TurnArgs) -> TurnRequest {
        use crate::cli::SandboxMode as Flag;
        // codex's --full-auto: edits in the workspace, no approvals (a headless run never asks).
        let sandbox = if args.dangerously_skip_permissions {
            Some(SandboxMode::DangerFullAccess)
        } else if args.full_auto {
            Some(SandboxMode::WorkspaceWrite)
        } else {
            args.sandbox.map(|mode| match mode {
                Flag::ReadOnly => SandboxMode::ReadOnly,
                Flag::WorkspaceWrite => SandboxMode::WorkspaceWrite,
                Flag::DangerFullAccess => SandboxMode::DangerFullAccess,
            })
        };
        TurnRequest {
            model: args.model.clone(),
            fallback_model: args.fallback_model.clone(),
            auth_profile: args.auth_profile.clone(),
            thinking: args.thinking.map(ThinkingLevel::from),
            max_thinking_tokens: args.max_thinking_tokens,
            prompt_mode: args.prompt_mode.map(PromptMode::from),
            no_context_files: args.no_context_files,
            skill: args.skill.clone(),
            no_skills: args.no_skills,
            tools: args.tools.clone(),
            allowed_tools: args.allowed_tools.clone(),
            disallowed_tools: args.disallowed_tools.clone(),
            sandbox,
            permission_mode: args.permission_mode.map(PermissionMode::from),
            allow_network: args.allow_network,
            add_dir: args.add_dir.clone(),
            web_search: args.web_search,
            max_turns: args.max_turns,
            max_budget_usd: args.max_budget_usd,
            idle_timeout: args.idle_timeout,
            image: args.image.clone(),
            no_session_persistence: args.no_session_persistence,
            heartbeat: args.heartbeat,
            json_schema: args.json_schema.clone(),
            output_schema: args.output_schema.clone(),
            dry_run: args.dry_run,
            mcp_config: args.mcp.mcp_config.clone(),
            strict_mcp_config: args.mcp.strict_mcp_config,
            settings: args.settings.clone(),
            cassette: CassetteRequest::from(&args.cassette),
            system_prompt: args.system_prompt.clone(),
            system_prompt_file: args.system_prompt_file.clone(),
            append_system_prompt: args.append_system_prompt.clone(),
            append_system_prompt_file: args.append_system_prompt_file.clone(),
            no_stdin: args.no_stdin,
            stdin_timeout: args.stdin_timeout,
            lossy_stdin: args.lossy_stdin,
        }
    }
}

impl From<&crate::cli::CassetteArgs> for CassetteRequest {
    fn from(args: &crate::cli::CassetteArgs) -> CassetteRequest {
        CassetteRequest {
            record: args.record.clone(),
            replay: args.replay.clone(),
            replay_pace: args.replay_pace,
            matching: match args.replay_mode {
                crate::cli::ReplayMode::Strict => crate::cassette::Matching::Strict,
                crate::cli::ReplayMode::Lenient => crate::cassette::Matching::Lenient,
            },
        }
    }
}

impl From<crate::cli::ThinkingLevel> for ThinkingLevel {
    fn from(level: crate::cli::ThinkingLevel) -> ThinkingLevel {
        use crate::cli::ThinkingLevel as Flag;
        match level {
            Flag::Off => ThinkingLevel::Off,
            Flag::Minimal => ThinkingLevel::Minimal,
            Flag::Low => ThinkingLevel::Low,
            Flag::Medium => ThinkingLevel::Medium,
            Flag::High => ThinkingLevel::High,
            Flag::Xhigh => ThinkingLevel::Xhigh,
        }
    }
}

impl From<crate::cli::PromptMode> for PromptMode {
    fn from(mode: crate::cli::PromptMode) -> PromptMode {
        match mode {
            crate::cli::PromptMode::Full => PromptMode::Full,
            crate::cli::PromptMode::Minimal => PromptMode::Minimal,
            crate::cli::PromptMode::None => PromptMode::None,
        }
    }
}

impl From<crate::cli::PermissionMode> for PermissionMode {
    fn from(mode: crate::cli::PermissionMode) -> PermissionMode {
        use crate::cli::PermissionMode as Flag;
        match mode {
            Flag::Plan => PermissionMode::Plan,
            Flag::AcceptEdits => PermissionMode::AcceptEdits,
            Flag::BypassPermissions => PermissionMode::BypassPermissions,
            Flag::DontAsk => PermissionMode::DontAsk,
            Flag::Auto => PermissionMode::Auto,
            Flag::Default => PermissionMode::Default,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Cli, Command};

    fn request(flags: &[&str]) -> TurnRequest {
        let argv = ["pincer", "run"].iter().chain(flags).chain(&["hello"]);
        let cli = Cli::try_parse_args(argv).expect("the flags parse");
        let Command::Run(args) = cli.command else {
            panic!("not a run");
        };
        TurnRequest::from(&args.turn)
    }

    #[test]
    fn the_flags_that_name_a_sandbox_map_onto_it() {
        assert_eq!(request(&[]).sandbox, None);
        assert_eq!(
            request(&["--sandbox", "read-only"]).sandbox,
            Some(SandboxMode::ReadOnly)
        );
        assert_eq!(
            request(&["--full-auto"]).sandbox,
            Some(SandboxMode::WorkspaceWrite)
        );
        assert_eq!(
            request(&["--dangerously-skip-permissions"]).sandbox,
            Some(SandboxMode::DangerFullAccess)
        );
    }

    #[test]
    fn claudes_permission_mode_keeps_its_name_for_hooks() {
        let request = request(&["--permission-mode", "acceptEdits", "--thinking", "high"]);
        assert_eq!(request.permission_mode, Some(PermissionMode::AcceptEdits));
        assert_eq!(
            request.permission_mode.map(PermissionMode::as_str),
            Some("acceptEdits")
        );
        assert_eq!(request.thinking, Some(ThinkingLevel::High));
        assert_eq!(request.sandbox, None);
    }
}
