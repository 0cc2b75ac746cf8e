//! The CLI engine: a turn delegated to the `claude` or `codex` binary (SPEC §4.2). Its one step
//! is the child's run — argv and environment built, the child supervised, what it does recorded
//! in pincer's session as it happens and reported as the same events the API engine emits — and
//! a stale child session makes that step come again once, with a fresh child session seeded
//! with pincer's transcript.
//!
//! Built from `backend/`'s parts (argv, environment, child process, stream readers) and the
//! recorder (`engine::recorder`). The report is filled exactly as the API engine fills it, so
//! `commands/` builds the same result object for every backend.

use std::ffi::OsString;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::json;

use super::event::Event;
use super::recorder::{Recorder, RecorderState};
use super::step::{Engine, Step, Turn};
use super::structured::{Answers, Judgement, feedback_message};
use super::{CancelReason, Denial, Ending, TurnReport};
use crate::backend::child::{self, ChildEnd, Spawn};
use crate::backend::claude::ClaudeStream;
use crate::backend::codex::{CodexStream, RawUsage};
use crate::backend::{self, BackendSettings, ChildRecord, CliBackend, Invocation, Request};
use crate::cassette::Cassette;
use crate::conversation::{Message, Prices, StopReason, ThinkingLevel};
use crate::provider::ProviderError;
use crate::provider::classify::FailureKind;
use crate::redact::Redactor;
use crate::session::record::Entry;
use crate::session::store::SessionError;
use crate::session::transcript::Transcript;
use crate::structured::Plan;
use crate::tools::SandboxMode;
use crate::tools::policy::ToolPolicy;

/// Everything fixed for one delegated turn, resolved by `commands/`.
#[derive(Debug, Clone)]
pub struct CliSettings {
    /// Which CLI.
    pub backend: CliBackend,
    /// `[backends.NAME]`.
    pub backend_settings: BackendSettings,
    /// pincer's model id (after `claude-cli/`), as the session records it.
    pub model: String,
    /// The model as the child takes it (`backend::CliBackend::child_model`).
    pub child_model: String,
    /// The system prompt, rebuilt for this turn.
    pub system_prompt: String,
    /// The tool policy, mapped onto the child's flags.
    pub policy: ToolPolicy,
    /// The sandbox mode.
    pub sandbox: SandboxMode,
    /// `--add-dir` and `tools.add_dirs`, canonical.
    pub added_dirs: Vec<PathBuf>,
    /// `--web-search` / `tools.web_search`: the child's own web search is turned on.
    pub web_search: bool,
    /// The reasoning level asked for, if any (the child keeps its default otherwise).
    pub thinking: Option<ThinkingLevel>,
    /// `--max-turns`.
    pub max_turns: Option<u32>,
    /// `--max-budget-usd`.
    pub max_budget_usd: Option<f64>,
    /// Images to attach, canonical.
    pub images: Vec<PathBuf>,
    /// Longest silence from the child.
    pub idle_timeout: Duration,
    /// The model's prices, when the catalog knows them.
    pub prices: Option<Prices>,
    /// The workspace the child runs in.
    pub workspace: PathBuf,
    /// The MCP servers named for the run, passed on in the child's own format (SPEC §13).
    pub mcp: crate::mcp::McpConfig,
    /// The trace context the child continues (SPEC §17).
    pub trace: crate::trace::ChildTrace,
    /// The run's hooks, passed on in the child's own format (SPEC §14).
    pub hooks: crate::hooks::HookSet,
    /// claude: whether it may load the workspace's `.claude` settings (issue #45).
    pub project_settings: bool,
    /// The child's environment, built explicitly (`backend::child_environment`).
    pub environment: Vec<(OsString, OsString)>,
    /// Scrubs keys from the child's tool results before they are stored or shown.
    pub redactor: Redactor,
    /// `--json-schema`: passed to the child, and its answer checked the same way (SPEC §3.4).
    pub structured: Option<Plan>,
}

/// A delegated turn that could not start: the child's binary is missing, or its files could
/// not be written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StartFailure {
    /// The child's binary could not be started (a usage problem), rather than pincer's own
    /// files for it.
    pub missing_binary: bool,
    /// What went wrong.
    pub message: String,
    /// What to do about it.
    pub hint: Option<String>,
}

/// The child session a previous turn recorded: the `data` of the `pincer.<backend>` entry.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Recorded {
    #[serde(default)]
    session_id: Option<String>,
    /// The workspace the child session belongs to.
    #[serde(default)]
    cwd: Option<String>,
    /// codex: the thread's cumulative usage after that turn.
    #[serde(default)]
    cumulative_usage: Option<RawUsage>,
}

fn recorded(transcript: &Transcript, backend: CliBackend) -> Recorded {
    let kind = backend.custom_type();
    transcript
        .entries()
        .iter()
        .rev()
        .find_map(|entry| match entry {
            Entry::Custom(custom) if custom.custom_type == kind => custom.data.clone(),
            _ => None,
        })
        .and_then(|data| serde_json::from_value(data).ok())
        .unwrap_or_default()
}

/// The translator of the running child's output, and what it has seen so far.
enum Dialect {
    Claude(ClaudeStream),
    Codex(CodexStream),
}

impl Dialect {
    fn child_session(&self) -> Option<String> {
        match self {
            Dialect::Claude(stream) => stream.session_id.clone(),
            Dialect::Codex(stream) => stream.thread_id.clone(),
        }
    }
}

/// How one child run ended, for the turn.
enum Verdict {
    Done(Ending),
    /// The child session is gone: start a fresh one (once).
    Stale(String),
}

/// The request for one child run.
fn request<'a>(
    settings: &'a CliSettings,
    (prompt, resume): (&'a str, Option<&'a str>),
    fresh_session_id: &'a str,
    files: &'a ChildFiles,
) -> Request<'a> {
    Request {
        backend: settings.backend,
        settings: &settings.backend_settings,
        model: &settings.child_model,
        system_prompt: &settings.system_prompt,
        prompt,
        images: &settings.images,
        policy: &settings.policy,
        sandbox: settings.sandbox,
        added_dirs: &settings.added_dirs,
        web_search: settings.web_search,
        thinking: settings.thinking,
        max_turns: settings.max_turns,
        max_budget_usd: settings.max_budget_usd,
        resume,
        fresh_session_id,
        system_prompt_file: &files.prompt,
        mcp: &settings.mcp,
        mcp_config_file: files.mcp.as_deref(),
        hooks: &settings.hooks,
        settings_file: files.settings.as_deref(),
        project_settings: settings.project_settings,
        json_schema: match settings.backend {
            CliBackend::Claude => settings.structured.as_ref().map(Plan::native_schema),
            CliBackend::Codex => None,
        },
        output_schema_file: files.schema.as_deref(),
    }
}

/// The name of codex's `--output-schema` file in the run's private directory.
const OUTPUT_SCHEMA_FILE: &str = "output-schema.json";

/// codex's `--output-schema` content, with `--json-schema` (claude takes it inline instead).
fn codex_schema(settings: &CliSettings) -> Option<&serde_json::Value> {
    match settings.backend {
        CliBackend::Codex => settings.structured.as_ref().map(Plan::native_schema),
        CliBackend::Claude => None,
    }
}

/// The files a child run reads, in the run's private directory.
#[derive(Debug, Clone)]
struct ChildFiles {
    /// The system prompt.
    prompt: PathBuf,
    /// claude's `--mcp-config`, when the run has MCP servers.
    mcp: Option<PathBuf>,
    /// claude's `--settings` with the run's hooks, when it has any.
    settings: Option<PathBuf>,
    /// codex's `--output-schema`, with `--json-schema`.
    schema: Option<PathBuf>,
}

/// The name of claude's `--settings` file in the run's private directory.
const SETTINGS_FILE: &str = "settings.json";

/// The name of claude's `--mcp-config` file in the run's private directory.
const MCP_CONFIG_FILE: &str = "mcp-config.json";

/// claude's `--mcp-config` content for the run, if it has MCP servers (codex takes them as
/// `-c` overrides instead).
fn claude_mcp(settings: &CliSettings) -> Option<serde_json::Value> {
    match settings.backend {
        CliBackend::Claude => backend::mcp::claude_config(&settings.mcp, &settings.policy),
        CliBackend::Codex => None,
    }
}

/// claude's `--settings` content for the run, if it has hooks (codex takes them as `-c`
/// overrides instead).
fn claude_hooks(settings: &CliSettings) -> Option<serde_json::Value> {
    match settings.backend {
        CliBackend::Claude => backend::hooks::claude_settings(&settings.hooks),
        CliBackend::Codex => None,
    }
}

/// The child a fresh turn would start with `prompt` (`--dry-run`): no file is written.
pub fn describe(settings: &CliSettings, prompt: &str) -> Invocation {
    let directory = std::env::temp_dir().join("pincer-cli-XXXXXX");
    let files = ChildFiles {
        prompt: directory.join("system-prompt.md"),
        mcp: claude_mcp(settings).map(|_| directory.join(MCP_CONFIG_FILE)),
        settings: claude_hooks(settings).map(|_| directory.join(SETTINGS_FILE)),
        schema: codex_schema(settings).map(|_| directory.join(OUTPUT_SCHEMA_FILE)),
    };
    backend::invocation(&request(
        settings,
        (prompt, None),
        "00000000-0000-4000-8000-000000000000",
        &files,
    ))
}

/// Write one of the files the child reads (`what` names it in the error) into the run's private
/// directory.
fn write_request_file(
    directory: &Path,
    name: &str,
    text: &str,
    what: &str,
) -> Result<PathBuf, StartFailure> {
    let file = directory.join(name);
    crate::fs::write_atomic(&file, text.as_bytes()).map_err(|error| StartFailure {
        missing_binary: false,
        message: format!("cannot write {what} '{}': {error}", file.display()),
        hint: None,
    })?;
    Ok(file)
}

/// What the engine keeps between child runs.
pub struct CliEngine<'run> {
    settings: &'run CliSettings,
    cassette: Option<&'run Cassette>,
    record: RecorderState,
    previous: Recorded,
    /// The child session to continue (none: a fresh one).
    resume: Option<String>,
    /// A recorded child session id that is none (said once, at the first child run).
    unusable_id: Option<String>,
    reseeded: bool,
    /// The new prompt, and pincer's transcript before it (for a fresh child session).
    prompt: String,
    history: Vec<Message>,
    /// The private directory of the system prompt file (removed with the engine).
    _directory: tempfile::TempDir,
    files: ChildFiles,
    answers: Answers,
    workspace: String,
    started: Instant,
    dialect: Option<Dialect>,
}

impl<'run> CliEngine<'run> {
    /// An engine for one turn: the system prompt file is written now.
    pub fn new(
        settings: &'run CliSettings,
        cassette: Option<&'run Cassette>,
        turn: &Turn<'_>,
    ) -> Result<CliEngine<'run>, StartFailure> {
        let directory = tempfile::Builder::new()
            .prefix("pincer-cli-")
            .tempdir()
            .map_err(|error| StartFailure {
                missing_binary: false,
                message: format!("cannot create a temporary directory: {error}"),
                hint: None,
            })?;
        let prompt_file = write_request_file(
            directory.path(),
            "system-prompt.md",
            &settings.system_prompt,
            "the system prompt file",
        )?;
        // claude reads the run's MCP servers (SPEC §13) and hooks (SPEC §14) from files of its
        // own format.
        let write = |name: &str, what: &str, content: Option<serde_json::Value>| match content {
            Some(content) => write_request_file(
                directory.path(),
                name,
                &content.to_string(),
                &format!("the {what} file"),
            )
            .map(Some),
            None => Ok(None),
        };
        let files = ChildFiles {
            mcp: write(MCP_CONFIG_FILE, "MCP config", claude_mcp(settings))?,
            settings: write(SETTINGS_FILE, "hook settings", claude_hooks(settings))?,
            schema: write(
                OUTPUT_SCHEMA_FILE,
                "output schema",
                codex_schema(settings).cloned(),
            )?,
            prompt: prompt_file,
        };
        let previous = recorded(turn.transcript, settings.backend);
        let workspace = settings.workspace.to_string_lossy().into_owned();
        // A child session is bound to its directory (claude keys sessions by cwd): from another
        // workspace, start a fresh one seeded with the transcript instead of failing.
        let resume = previous
            .session_id
            .clone()
            .filter(|_| previous.cwd.as_deref().is_none_or(|cwd| cwd == workspace));
        // An id no CLI makes (a shared or edited session file) is dropped like a stale one:
        // never on the child's argv, and the turn goes on in a fresh, seeded child session.
        let (resume, unusable_id) = match resume {
            Some(id) if !backend::is_child_session_id(&id) => (None, Some(id)),
            resume => (resume, None),
        };
        let (prompt, history) = match turn.messages.split_last() {
            Some((Message::User(user), history)) => (user.content.text(), history.to_vec()),
            _ => (String::new(), turn.messages.clone()),
        };
        Ok(CliEngine {
            settings,
            cassette,
            record: RecorderState::new(
                settings.backend,
                &settings.model,
                settings.prices,
                settings.redactor.clone(),
            ),
            previous,
            resume,
            unusable_id,
            reseeded: false,
            prompt,
            history,
            _directory: directory,
            files,
            answers: Answers::default(),
            workspace,
            started: Instant::now(),
            dialect: None,
        })
    }

    /// `Step::CallModel`: one child run, recorded as it goes.
    async fn run_child(&mut self, turn: &mut Turn<'_>) -> Step {
        let settings = self.settings;
        let backend = settings.backend;
        if let Some(id) = self.unusable_id.take() {
            turn.sink.emit(&Event::Warning(format!(
                "the recorded {name} session id {shown:?} is not a session id {name} makes (a \
                 UUID); starting a fresh one seeded with this session's transcript",
                name = backend.name(),
                shown = id.chars().take(80).collect::<String>(),
            )));
        }
        let fresh_id = uuid::Uuid::new_v4().to_string();
        // A fresh child session after earlier turns (a stale session, another directory, or a
        // session that used another backend) gets pincer's transcript as its opening context.
        let text = if self.resume.is_none() && !self.history.is_empty() {
            backend::reseeded_prompt(&self.history, &self.prompt)
        } else {
            self.prompt.clone()
        };
        let invocation = backend::invocation(&request(
            settings,
            (&text, self.resume.as_deref()),
            &fresh_id,
            &self.files,
        ));
        let mut request_files = vec![self.files.prompt.as_path()];
        request_files.extend(self.files.schema.as_deref());
        let spawn = Spawn {
            program: &invocation.program,
            args: &invocation.args,
            env: &settings.environment,
            cwd: &settings.workspace,
            stdin: invocation.stdin.as_deref(),
            trace: &settings.trace,
            tape: self.cassette.map(|cassette| child::Tape {
                cassette,
                provider: backend.name(),
                model: &settings.model,
                files: &request_files,
            }),
        };
        let mut dialect = self.dialect_for_run();
        let mut write_error: Option<SessionError> = None;
        let mut noise: Vec<String> = Vec::new();
        let mut recorder = Recorder::new(
            &mut self.record,
            turn.transcript,
            turn.sink,
            &mut turn.report,
        );
        recorder.connecting();
        let end = child::run(
            &spawn,
            settings.idle_timeout,
            turn.cancellation,
            &mut |line| {
                let handled = match &mut dialect {
                    Dialect::Claude(stream) => stream.line(line, &mut recorder),
                    Dialect::Codex(stream) => stream.line(line, &mut recorder),
                };
                match handled {
                    Ok(true) => ControlFlow::Continue(()),
                    Ok(false) => {
                        // Not an event: log chatter, kept for an error message.
                        if !line.trim().is_empty() && noise.len() < 20 {
                            noise.push(line.to_owned());
                        }
                        ControlFlow::Continue(())
                    }
                    Err(error) => {
                        write_error = Some(error);
                        ControlFlow::Break(())
                    }
                }
            },
        )
        .await;
        let end = match end {
            Ok(end) => end,
            Err(error) => return Step::Done(cannot_start(backend, &invocation.program, &error)),
        };
        let verdict = judge(
            backend,
            &end,
            &dialect,
            &noise,
            self.resume.is_some(),
            write_error,
        );
        self.dialect = Some(dialect);
        self.after_child(verdict, turn)
    }

    /// The translator for this child run's output (codex: with the thread's usage so far, to
    /// tell this turn's from the cumulative count).
    fn dialect_for_run(&self) -> Dialect {
        match self.settings.backend {
            CliBackend::Claude => Dialect::Claude(ClaudeStream::default()),
            CliBackend::Codex => {
                let mut stream = CodexStream::default();
                stream.previous = self
                    .previous
                    .session_id
                    .clone()
                    .zip(self.previous.cumulative_usage)
                    .filter(|_| self.resume.is_some());
                Dialect::Codex(stream)
            }
        }
    }

    /// What comes after the child's run: a stale child session starts a fresh one (once), else
    /// the turn ends.
    fn after_child(&mut self, verdict: Verdict, turn: &mut Turn<'_>) -> Step {
        let ending = match verdict {
            Verdict::Stale(message) if !self.reseeded => {
                self.reseeded = true;
                turn.sink.emit(&Event::Warning(format!(
                    "the {} session {} is gone ({}); starting a fresh one seeded with this \
                     session's transcript",
                    self.settings.backend.name(),
                    self.resume.as_deref().unwrap_or_default(),
                    message.lines().next().unwrap_or_default()
                )));
                self.resume = None;
                return Step::CallModel;
            }
            Verdict::Stale(message) => {
                let (error, _) = backend::child_failure(self.settings.backend, &message, None);
                Ending::Failed {
                    error,
                    kind: FailureKind::SessionExpired,
                }
            }
            Verdict::Done(ending) => ending,
        };
        match self.conclude(ending, turn) {
            Ending::Completed if self.settings.structured.is_some() => Step::CheckAnswer(None),
            ending => Step::Done(ending),
        }
    }

    /// `Step::CheckAnswer`: the child's answer (claude's parsed `structured_output`, else the
    /// answer's text) is checked like the API engine's; an invalid one is sent back by resuming
    /// the child's session with the errors.
    fn check_answer(&mut self, turn: &mut Turn<'_>) -> Step {
        let Some(plan) = &self.settings.structured else {
            return Step::Done(Ending::Completed);
        };
        let parsed = match &self.dialect {
            Some(Dialect::Claude(stream)) => stream
                .result
                .as_ref()
                .and_then(|result| result.structured_output.clone()),
            _ => None,
        };
        let verdict = match parsed {
            Some(value) => plan.schema().check_value(value),
            None => plan.check_text(&turn.report.final_text),
        };
        let judged = self.answers.judge(plan, verdict, turn);
        match judged {
            Err(error) => Step::Done(Ending::Persistence(error)),
            Ok(Judgement::Accepted(value)) => {
                if turn.report.final_text.trim().is_empty() {
                    turn.report.final_text = value.to_string();
                }
                Step::Done(Ending::Completed)
            }
            Ok(Judgement::Exhausted(ending)) => Step::Done(ending),
            Ok(Judgement::Retry(errors)) => {
                let Some(session) = self
                    .dialect
                    .as_ref()
                    .and_then(Dialect::child_session)
                    .filter(|id| backend::is_child_session_id(id))
                else {
                    // Nothing to resume (or an id no CLI makes): the errors cannot reach the
                    // child.
                    return Step::Done(Ending::StructuredOutputInvalid { errors, retries: 0 });
                };
                let feedback = plan.feedback(&errors);
                let message = feedback_message(feedback.clone());
                if let Err(error) = turn.record_message(&message) {
                    return Step::Done(Ending::Persistence(error));
                }
                // codex's usage is cumulative per thread: the next run's delta is against this
                // one's.
                if let Some(Dialect::Codex(stream)) = &self.dialect {
                    self.previous = Recorded {
                        session_id: Some(session.clone()),
                        cwd: Some(self.workspace.clone()),
                        cumulative_usage: stream.cumulative,
                    };
                }
                self.resume = Some(session);
                self.prompt = feedback;
                Step::CallModel
            }
        }
    }

    /// Finish the record of the turn: the last message (completed, failed or aborted), the
    /// child's session id, and the report from what the child said at the end.
    fn conclude(&mut self, ending: Ending, turn: &mut Turn<'_>) -> Ending {
        let failure_text = match &ending {
            Ending::Failed { error, .. } => Some((StopReason::Error, error.to_string())),
            Ending::Cancelled(reason) => Some((StopReason::Aborted, reason.message().to_owned())),
            _ => None,
        };
        let mut ending = ending;
        let dialect = self.dialect.as_ref();
        let workspace = &self.workspace;
        let mut recorder = Recorder::new(
            &mut self.record,
            turn.transcript,
            turn.sink,
            &mut turn.report,
        );
        let mut write = || -> Result<(), SessionError> {
            match &failure_text {
                // A failure that produced nothing is recorded too, so `status` can say why.
                Some(failure) => {
                    if !recorder.has_pending() {
                        recorder.set_stop("error");
                    }
                    recorder.flush(Some(failure.clone()))?;
                }
                None => recorder.flush(None)?,
            }
            if let Some(id) = dialect.and_then(Dialect::child_session) {
                let mut data = json!({"sessionId": id, "cwd": workspace});
                if let Some(Dialect::Codex(stream)) = dialect
                    && let Some(usage) = stream.cumulative
                {
                    data["cumulativeUsage"] = usage.to_json();
                }
                recorder.child_session(data)?;
            }
            Ok(())
        };
        if !matches!(ending, Ending::Persistence(_) | Ending::NotStarted(_))
            && let Err(error) = write()
        {
            ending = Ending::Persistence(error);
        }
        let report = &mut turn.report;
        self.finish_report(report, &mut ending);
        ending
    }

    /// What only the child's final record says (claude's `result`): its answer, turn count,
    /// refusals and API time.
    fn finish_report(&self, report: &mut TurnReport, ending: &mut Ending) {
        if let Some(Dialect::Claude(stream)) = &self.dialect
            && let Some(result) = &stream.result
        {
            if matches!(ending, Ending::Completed) && !result.result.is_empty() {
                report.final_text.clone_from(&result.result);
            }
            if let Some(turns) = result.num_turns {
                report.model_calls = report.model_calls.max(turns);
            }
            report.permission_denials = result
                .permission_denials
                .iter()
                .map(|denial| Denial {
                    tool_name: denial.tool_name.clone(),
                    tool_use_id: denial.tool_use_id.clone(),
                    tool_input: denial.tool_input.clone(),
                })
                .collect();
            report.api_duration = result
                .duration_api_ms
                .map_or_else(|| self.started.elapsed(), Duration::from_millis);
        } else {
            report.api_duration = self.started.elapsed();
        }
        if matches!(ending, Ending::Completed)
            && report.stop_reason == Some("max_tokens")
            && report.final_text.trim().is_empty()
        {
            // As on the API path: the child's last message was cut before it said anything.
            *ending = Ending::OutputLimit {
                max_output_tokens: None,
            };
        }
        if !matches!(
            ending,
            Ending::Completed
                | Ending::MaxTurns
                | Ending::MaxBudget
                | Ending::Cancelled(_)
                | Ending::StructuredOutputInvalid { .. }
        ) {
            // Never an error text as the answer (SPEC §4.2.9).
            report.final_text.clear();
        }
    }
}

impl Engine for CliEngine<'_> {
    async fn step(&mut self, step: Step, turn: &mut Turn<'_>) -> Step {
        match step {
            // The child runs its own tool loop: its one step is the run.
            Step::Done(ending) => Step::Done(ending),
            Step::CheckAnswer(_) => self.check_answer(turn),
            _ => self.run_child(turn).await,
        }
    }

    /// Cut short before or between child runs: recorded like a child killed by the signal.
    fn interrupted(&mut self, reason: CancelReason, turn: &mut Turn<'_>) -> Ending {
        self.conclude(Ending::Cancelled(reason), turn)
    }
}

/// Decide how a child run ended.
fn judge(
    backend: CliBackend,
    end: &ChildEnd,
    dialect: &Dialect,
    noise: &[String],
    resumed: bool,
    write_error: Option<SessionError>,
) -> Verdict {
    if let Some(error) = write_error {
        return Verdict::Done(Ending::Persistence(error));
    }
    let (code, stderr) = match end {
        ChildEnd::Stopped => {
            return Verdict::Done(Ending::Persistence(SessionError::Serialize(
                "the session could not be written".to_owned(),
            )));
        }
        ChildEnd::Cancelled(reason) => return Verdict::Done(Ending::Cancelled(*reason)),
        ChildEnd::Cassette(message) => {
            return Verdict::Done(Ending::Failed {
                error: ProviderError::Cassette {
                    provider: backend.name().to_owned(),
                    message: message.clone(),
                },
                kind: FailureKind::Cassette,
            });
        }
        ChildEnd::Idle { after, .. } => {
            return Verdict::Done(Ending::Failed {
                error: ProviderError::IdleTimeout {
                    provider: backend.name().to_owned(),
                    after: *after,
                },
                kind: FailureKind::Timeout,
            });
        }
        ChildEnd::Exited { code, stderr } => (*code, stderr.as_str()),
    };
    let evidence = |extra: &str| -> String {
        let mut parts: Vec<&str> = Vec::new();
        if !extra.trim().is_empty() {
            parts.push(extra.trim());
        }
        if !stderr.trim().is_empty() {
            parts.push(stderr.trim());
        }
        let noise = noise.join("\n");
        let mut text = parts.join("\n");
        if text.is_empty() {
            text = noise;
        }
        if text.is_empty() {
            text = match code {
                Some(code) => format!("{} exited with status {code}", backend.name()),
                None => format!("{} was killed by a signal", backend.name()),
            };
        }
        text
    };
    let failure = |text: String, status: Option<u16>| -> Verdict {
        let (error, kind) = backend::child_failure(backend, &text, status);
        if kind == FailureKind::SessionExpired && resumed {
            return Verdict::Stale(text);
        }
        Verdict::Done(Ending::Failed { error, kind })
    };
    match dialect {
        Dialect::Claude(stream) => match &stream.result {
            Some(result) if !result.is_error && result.subtype == "success" && code == Some(0) => {
                Verdict::Done(Ending::Completed)
            }
            Some(result) if result.subtype == "error_max_turns" => Verdict::Done(Ending::MaxTurns),
            Some(result) if result.subtype == "error_max_budget_usd" => {
                Verdict::Done(Ending::MaxBudget)
            }
            // claude gave up on its own retries: the same end as pincer's.
            Some(result) if result.subtype == "error_max_structured_output_retries" => {
                Verdict::Done(Ending::StructuredOutputInvalid {
                    errors: result.errors.clone(),
                    retries: 0,
                })
            }
            Some(result) => {
                let mut text = result.errors.join("\n");
                if text.is_empty() {
                    text.clone_from(&result.result);
                }
                failure(evidence(&text), result.api_error_status)
            }
            None => failure(evidence(""), None),
        },
        Dialect::Codex(stream) => match (&stream.failure, stream.completed, code) {
            (None, true, Some(0)) => Verdict::Done(Ending::Completed),
            (Some(message), _, _) => failure(evidence(message), None),
            _ => failure(evidence(""), None),
        },
    }
}

/// How a turn ends when the CLI `program` of `backend` could not be started.
fn cannot_start(backend: CliBackend, program: &str, error: &std::io::Error) -> Ending {
    Ending::NotStarted(StartFailure {
        missing_binary: true,
        message: format!("cannot start '{program}': {error}"),
        hint: Some(format!(
            "install the CLI, or set backends.{}.command to its path",
            backend.name()
        )),
    })
}

/// Run one delegated turn: `messages` holds the context with the new user message last (already
/// in `transcript`); what the child does is appended to the transcript.
pub async fn run(
    settings: &CliSettings,
    cassette: Option<&Cassette>,
    messages: &mut Vec<Message>,
    transcript: &mut Transcript,
    sink: &mut dyn super::EventSink,
    cancellation: &super::Cancellation,
) -> Result<TurnReport, StartFailure> {
    let before = transcript.entries().len();
    let mut turn = Turn {
        messages,
        transcript,
        sink,
        cancellation,
        report: TurnReport::empty(Ending::Completed),
    };
    let mut engine = CliEngine::new(settings, cassette, &turn)?;
    super::step::drive(&mut engine, &mut turn).await;
    // The child's messages went to the session only: bring the context along for a fallback
    // that comes after this turn.
    for entry in &turn.transcript.entries()[before..] {
        if let Entry::Message(entry) = entry
            && let Some(message) = entry.message.clone().into_conversation()
        {
            turn.messages.push(message);
        }
    }
    match std::mem::replace(&mut turn.report.ending, Ending::Completed) {
        Ending::NotStarted(failure) => Err(failure),
        ending => {
            turn.report.ending = ending;
            Ok(turn.report)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_file_that_cannot_be_written_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let gone = dir.path().join("gone");
        let failure = write_request_file(&gone, "mcp.json", "{}", "the MCP config file")
            .expect_err("the directory does not exist");
        let file = gone.join("mcp.json");
        assert!(
            failure.message.starts_with(&format!(
                "cannot write the MCP config file '{}': ",
                file.display()
            )),
            "{}",
            failure.message
        );
        assert!(!failure.missing_binary);
    }
}
