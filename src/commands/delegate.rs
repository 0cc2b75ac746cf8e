//! A turn delegated to a CLI backend (`claude-cli`, `codex-cli`; SPEC §4.2): build the child's
//! argv and environment, run it under supervision, record what it does in pincer's session as
//! it happens, and report the turn exactly as the API path does, so that `finish` builds the
//! same result object and `sessions show`, `status` and `resume` work the same for every
//! backend.

use std::ops::ControlFlow;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::Context;
use crate::agent::transcript::Transcript;
use crate::agent::turn::{Cancellation, Ending, TurnReport};
use crate::backend::child::{self, ChildEnd, Spawn};
use crate::backend::claude::ClaudeStream;
use crate::backend::codex::{CodexStream, RawUsage};
use crate::backend::record::Recorder;
use crate::backend::{self, CliBackend, Request};
use crate::cli::TurnArgs;
use crate::config::file::SandboxMode;
use crate::error::{CliError, CliResult, Exit};
use crate::output::events::EventSink;
use crate::provider::classify::FailureKind;
use crate::provider::{ProviderError, ThinkingLevel};
use crate::session::record::{AgentMessage, Entry, StopReason};
use crate::session::store::SessionError;
use crate::tools::policy::ToolPolicy;

/// What the command resolved for the delegated turn.
pub(super) struct Delegation<'a> {
    /// Which CLI.
    pub(super) backend: CliBackend,
    /// pincer's model id (after `claude-cli/`).
    pub(super) model: &'a str,
    /// The system prompt, rebuilt for this turn.
    pub(super) system_prompt: &'a str,
    /// The tool policy.
    pub(super) policy: &'a ToolPolicy,
    /// The sandbox mode.
    pub(super) sandbox: SandboxMode,
    /// The reasoning level asked for, if any.
    pub(super) thinking: Option<ThinkingLevel>,
    /// pincer's session id, for event lines.
    pub(super) session_id: Option<&'a str>,
    /// The run's MCP servers, which the child starts (SPEC §13).
    pub(super) mcp: &'a crate::mcp::McpConfig,
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

/// The text of the new user message (the last one).
fn prompt_of(messages: &[AgentMessage]) -> String {
    match messages.last() {
        Some(AgentMessage::User(user)) => backend::user_text(&user.content),
        _ => String::new(),
    }
}

/// The argv and environment names a delegated turn would use (`--dry-run`).
pub(super) fn dry_run(
    context: &Context,
    args: &TurnArgs,
    delegation: &Delegation<'_>,
    prompt: &str,
) -> CliResult<Value> {
    let settings = backend_settings(context, delegation.backend)?;
    let images = image_paths(args)?;
    let directory = std::env::temp_dir().join("pincer-cli-XXXXXX");
    let file = directory.join("system-prompt.md");
    let mcp_file = directory.join(MCP_CONFIG_FILE);
    let mcp_shown = match delegation.backend {
        CliBackend::Claude => backend::mcp::claude_config_shown(delegation.mcp, delegation.policy),
        CliBackend::Codex => None,
    };
    let mut request = request_for(
        args,
        delegation,
        settings,
        (prompt, &images),
        None,
        "00000000-0000-4000-8000-000000000000",
        &file,
    );
    request.mcp_config_file = mcp_shown.as_ref().map(|_| mcp_file.as_path());
    let invocation = backend::invocation(&request);
    let environment: Vec<String> = child_environment(settings, delegation)
        .into_iter()
        .map(|(name, _)| name.to_string_lossy().into_owned())
        .collect();
    Ok(json!({
        "program": invocation.program,
        "argv": invocation.args,
        "prompt_via_stdin": invocation.stdin.is_some(),
        "env_names": environment,
        "cleared_env": settings.clear_env,
        "mcp_config": mcp_shown,
    }))
}

/// The name of claude's `--mcp-config` file in the run's temporary directory.
const MCP_CONFIG_FILE: &str = "mcp-config.json";

/// The child's environment: the backend's, plus what codex passes on to MCP servers by name.
fn child_environment(
    settings: &crate::settings::BackendSettings,
    delegation: &Delegation<'_>,
) -> Vec<(std::ffi::OsString, std::ffi::OsString)> {
    let mut environment = backend::child_environment(settings, std::env::vars_os());
    if delegation.backend == CliBackend::Codex {
        for (name, value) in backend::mcp::codex_overrides(delegation.mcp, delegation.policy).env {
            environment.retain(|(existing, _)| existing.as_os_str() != name.as_str());
            environment.push((name.into(), value.into()));
        }
    }
    environment
}

fn backend_settings(
    context: &Context,
    backend: CliBackend,
) -> CliResult<&crate::settings::BackendSettings> {
    context
        .settings
        .backend(backend.name())
        .ok_or_else(|| CliError::usage(format!("unknown CLI backend '{}'", backend.name())))
}

fn image_paths(args: &TurnArgs) -> CliResult<Vec<PathBuf>> {
    args.image
        .iter()
        .map(|path| {
            std::fs::canonicalize(path).map_err(|error| {
                CliError::usage(format!("cannot read image '{}': {error}", path.display()))
            })
        })
        .collect()
}

fn request_for<'a>(
    args: &TurnArgs,
    delegation: &'a Delegation<'a>,
    settings: &'a crate::settings::BackendSettings,
    (prompt, images): (&'a str, &'a [PathBuf]),
    resume: Option<&'a str>,
    fresh_session_id: &'a str,
    system_prompt_file: &'a std::path::Path,
) -> Request<'a> {
    Request {
        backend: delegation.backend,
        settings,
        model: delegation.model,
        system_prompt: delegation.system_prompt,
        prompt,
        images,
        policy: delegation.policy,
        sandbox: delegation.sandbox,
        thinking: delegation.thinking,
        max_turns: args.max_turns,
        max_budget_usd: args.max_budget_usd,
        resume,
        fresh_session_id,
        system_prompt_file,
        mcp: delegation.mcp,
        mcp_config_file: None,
    }
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

/// How an attempt ended, for the turn.
enum Verdict {
    Done(Ending),
    /// The child session is gone: start a fresh one (once).
    Stale(String),
}

/// Run the turn through the CLI. `messages` is the context with the new user message last (it
/// is already in `transcript`); the assistant messages, tool results, compactions and the
/// child's session id are appended here.
pub(super) async fn run_delegated(
    context: &Context,
    args: &TurnArgs,
    delegation: &Delegation<'_>,
    messages: &[AgentMessage],
    transcript: &mut Transcript,
    sink: &mut dyn EventSink,
    cancellation: &Cancellation,
) -> CliResult<TurnReport> {
    let backend = delegation.backend;
    let settings = backend_settings(context, backend)?;
    if backend == CliBackend::Codex {
        // Said out loud rather than dropped: codex exec has no switch for these.
        let unenforced: Vec<&str> = [
            (
                !args.allowed_tools.is_empty() || !args.disallowed_tools.is_empty(),
                "--allowed-tools/--disallowed-tools rules",
            ),
            (args.max_turns.is_some(), "--max-turns"),
            (args.max_budget_usd.is_some(), "--max-budget-usd"),
        ]
        .into_iter()
        .filter_map(|(given, flag)| given.then_some(flag))
        .collect();
        if !unenforced.is_empty() {
            context.diagnostics.warn(&format!(
                "codex exec cannot enforce {}; only the sandbox mode limits what it does",
                unenforced.join(", ")
            ));
        }
        for warning in backend::mcp::codex_overrides(delegation.mcp, delegation.policy).warnings {
            context.diagnostics.warn(&warning);
        }
    }
    let started = Instant::now();
    let images = image_paths(args)?;
    let prompt = prompt_of(messages);
    let history = &messages[..messages.len().saturating_sub(1)];
    let previous = recorded(transcript, backend);
    let workspace = context.workspace.to_string_lossy().into_owned();
    // A child session is bound to its directory (claude keys sessions by cwd): from another
    // workspace, start a fresh one seeded with the transcript instead of failing.
    let mut resume = previous
        .session_id
        .clone()
        .filter(|_| previous.cwd.as_deref().is_none_or(|cwd| cwd == workspace));
    let directory = tempfile::Builder::new()
        .prefix("pincer-cli-")
        .tempdir()
        .map_err(|error| {
            CliError::new(
                Exit::RunFailed,
                format!("cannot create a temporary directory: {error}"),
            )
        })?;
    let prompt_file = directory.path().join("system-prompt.md");
    crate::fs::write_atomic(&prompt_file, delegation.system_prompt.as_bytes()).map_err(
        |error| {
            CliError::new(
                Exit::RunFailed,
                format!("cannot write the system prompt file: {error}"),
            )
        },
    )?;
    // claude reads the run's MCP servers from a file of its own format (SPEC §13).
    let mcp_file = directory.path().join(MCP_CONFIG_FILE);
    let mcp_file = match backend::mcp::claude_config(delegation.mcp, delegation.policy) {
        Some(config) if backend == CliBackend::Claude => {
            crate::fs::write_atomic(&mcp_file, config.to_string().as_bytes()).map_err(|error| {
                CliError::new(
                    Exit::RunFailed,
                    format!("cannot write the MCP config file: {error}"),
                )
            })?;
            Some(mcp_file)
        }
        _ => None,
    };
    let environment = child_environment(settings, delegation);
    let idle = args
        .idle_timeout
        .map(|seconds| Duration::from_secs_f64(seconds.max(0.0)))
        .unwrap_or(Duration::from_secs(context.settings.timeouts.idle_secs));
    let model_info = context
        .settings
        .model_info(backend.name(), delegation.model);
    let mut recorder = Recorder::new(
        transcript,
        sink,
        backend,
        delegation.model,
        model_info,
        delegation.session_id.map(str::to_owned),
    );
    let mut reseeded = false;
    loop {
        let fresh_id = uuid::Uuid::new_v4().to_string();
        // A fresh child session after earlier turns (a stale session, another directory, or a
        // session that used another backend) gets pincer's transcript as its opening context.
        let text = if resume.is_none() && !history.is_empty() {
            backend::reseeded_prompt(history, &prompt)
        } else {
            prompt.clone()
        };
        let mut request = request_for(
            args,
            delegation,
            settings,
            (&text, &images),
            resume.as_deref(),
            &fresh_id,
            &prompt_file,
        );
        request.mcp_config_file = mcp_file.as_deref();
        let invocation = backend::invocation(&request);
        let spawn = Spawn {
            program: &invocation.program,
            args: &invocation.args,
            env: &environment,
            cwd: &context.workspace,
            stdin: invocation.stdin.as_deref(),
        };
        let mut dialect = match backend {
            CliBackend::Claude => Dialect::Claude(ClaudeStream::default()),
            CliBackend::Codex => {
                let mut stream = CodexStream::default();
                stream.previous = previous
                    .session_id
                    .clone()
                    .zip(previous.cumulative_usage)
                    .filter(|_| resume.is_some());
                Dialect::Codex(stream)
            }
        };
        let mut write_error: Option<SessionError> = None;
        let mut noise: Vec<String> = Vec::new();
        recorder.connecting();
        let end = child::run(&spawn, idle, cancellation, &mut |line| {
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
        })
        .await
        .map_err(|error| {
            CliError::new(
                Exit::Usage,
                format!("cannot start '{}': {error}", invocation.program),
            )
            .with_hint(format!(
                "install the CLI, or set backends.{}.command to its path",
                backend.name()
            ))
        })?;
        let verdict = judge(
            backend,
            &end,
            &dialect,
            &noise,
            resume.is_some(),
            write_error,
        );
        match verdict {
            Verdict::Stale(message) if !reseeded => {
                reseeded = true;
                context.diagnostics.warn(&format!(
                    "the {} session {} is gone ({}); starting a fresh one seeded with this session's transcript",
                    backend.name(),
                    resume.as_deref().unwrap_or_default(),
                    message.lines().next().unwrap_or_default()
                ));
                resume = None;
                continue;
            }
            Verdict::Stale(message) => {
                let (error, _) = backend::child_failure(backend, &message, None);
                let ending = Ending::Failed {
                    error,
                    kind: FailureKind::SessionExpired,
                };
                return Ok(conclude(recorder, ending, &dialect, started, &workspace));
            }
            Verdict::Done(ending) => {
                return Ok(conclude(recorder, ending, &dialect, started, &workspace));
            }
        }
    }
}

/// Decide how an attempt ended.
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

/// Finish the record of the turn: the last message (completed, failed or aborted), the child's
/// session id, and the report.
fn conclude(
    mut recorder: Recorder<'_>,
    ending: Ending,
    dialect: &Dialect,
    started: Instant,
    workspace: &str,
) -> TurnReport {
    let failure_text = match &ending {
        Ending::Completed | Ending::MaxTurns | Ending::MaxBudget | Ending::OutputLimit { .. } => {
            None
        }
        Ending::Failed { error, .. } => Some((StopReason::Error, error.to_string())),
        Ending::Cancelled(reason) => Some((StopReason::Aborted, reason.message().to_owned())),
        Ending::Persistence(_) => None,
    };
    let mut ending = ending;
    let write = |recorder: &mut Recorder<'_>| -> Result<(), SessionError> {
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
        if let Some(id) = dialect.child_session() {
            let mut data = json!({"sessionId": id, "cwd": workspace});
            if let Dialect::Codex(stream) = dialect
                && let Some(usage) = stream.cumulative
            {
                data["cumulativeUsage"] = usage.to_json();
            }
            recorder.child_session(data)?;
        }
        Ok(())
    };
    if !matches!(ending, Ending::Persistence(_))
        && let Err(error) = write(&mut recorder)
    {
        ending = Ending::Persistence(error);
    }
    let mut report =
        std::mem::replace(&mut recorder.report, crate::backend::record::empty_report());
    if let Dialect::Claude(stream) = dialect
        && let Some(result) = &stream.result
    {
        if matches!(ending, Ending::Completed) && !result.result.is_empty() {
            report.final_text.clone_from(&result.result);
        }
        if let Some(turns) = result.num_turns {
            report.model_calls = report.model_calls.max(turns);
        }
        report
            .permission_denials
            .clone_from(&result.permission_denials);
        report.api_duration = result
            .duration_api_ms
            .map_or_else(|| started.elapsed(), Duration::from_millis);
    } else {
        report.api_duration = started.elapsed();
    }
    if matches!(ending, Ending::Completed)
        && report.stop_reason == Some("max_tokens")
        && report.final_text.trim().is_empty()
    {
        // As on the API path: the child's last message was cut before it said anything.
        ending = Ending::OutputLimit {
            max_output_tokens: None,
        };
    }
    if !matches!(
        ending,
        Ending::Completed | Ending::MaxTurns | Ending::MaxBudget
    ) && !matches!(ending, Ending::Cancelled(_))
    {
        // Never an error text as the answer (SPEC §4.2.9).
        report.final_text.clear();
    }
    report.ending = ending;
    report
}
