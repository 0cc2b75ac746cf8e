//! The Claude Agent SDK's way in (SPEC §16). The SDKs start `claude` with no subcommand,
//! `--output-format stream-json --verbose … --input-format stream-json`, then speak NDJSON on
//! stdin and stdout: a `control_request` `initialize` first, then one `user` line per prompt,
//! with `interrupt`, `set_model` and `set_permission_mode` requests at any time. `set_model`
//! applies from the next model request, of the turn running or of the next one.
//!
//! [`translate`] turns such a command line into pincer's hidden `claude-sdk` command (`main`
//! calls it before clap), mapping claude's spellings and dropping, with a one-line warning, the
//! SDK options pincer has no counterpart for: an SDK option never ends the run with exit 2.
//! [`serve`] then answers the control requests on a reader thread and runs one turn per `user`
//! line on the main thread, all on one session, printing pincer's stream-json lines (claude's
//! shape) as `run --output-format stream-json` does. When stdin closes, the turn in progress
//! finishes and the process exits (`query()` closes stdin right after its prompt).
//!
//! As in claude, the MCP servers live as long as the process: the first turn starts them, the
//! next ones reuse them (a stateful server keeps its state between prompts), and they stop when
//! stdin closes. Every turn runs on the one runtime their connections are tasks of.
//!
//! pincer's own requests ride [`crate::control`]: the hook callbacks `initialize` registers, the
//! permission prompt (`--permission-prompt-tool stdio`, a PreToolUse hook asking `can_use_tool`)
//! and the in-process MCP servers (`{"type": "sdk"}` in `--mcp-config`, or `initialize`'s
//! `sdkMcpServers`), which pincer's MCP client reaches with `mcp_message` requests.

use std::ffi::OsString;
use std::io::BufRead as _;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;
use tokio::sync::mpsc;

use clap::ValueEnum as _;
use serde::Deserialize as _;
use serde_json::Value;

use super::Context;
use super::turn;
use crate::cli::{ClaudeSdkArgs, PermissionMode, RunArgs};
use crate::control::lines::{
    Account, Answered, ControlRequest, ControlResponseLine, HookGroup, ImageSource,
    InitializeRequest, Initialized, InputBlock, InputLine, PromptText, ResponseBody, SdkMcpConfig,
    UserContent, UserMessage,
};
use crate::conversation::{ContentBlock, ImageBlock, SandboxMode};
use crate::engine::CancelReason;
use crate::error::{CliError, CliResult, Exit};
use crate::hooks::{Hook, HookEvent, Matcher};
use crate::lenient::Lenient;
use crate::output::{Format, Stdout};
use crate::plan::mcp::KeptServers;
use crate::plan::{LiveModel, TurnRequest};

/// The name `main` gives the SDK's command line.
const SUBCOMMAND: &str = "claude-sdk";

/// What pincer does of the control protocol: the requests it answers with success (every other
/// one gets an error answer) and the ones it sends.
const CAPABILITIES: &[&str] = &[
    "initialize",
    "interrupt",
    "set_model",
    "set_permission_mode",
    "hook_callback",
    "can_use_tool",
    "mcp_message",
];

/// The fields of an `initialize` request (SPEC §16) pincer applies, then the ones that change
/// nothing here (a display or subagent preference, or a cache of what pincer asks for anyway).
/// Every other field with a value is named in a warning: a turn never runs without saying what
/// of the SDK's options it left out.
const INITIALIZE_FIELDS: &[&str] = &[
    "subtype",
    "hooks",
    "sdkMcpServers",
    "systemPrompt",
    "appendSystemPrompt",
    "mcpServers",
    "disallowedTools",
    // The TypeScript SDK also passes the schema as `--json-schema`, which pincer applies.
    "jsonSchema",
    // The servers' handshake, which pincer's client does over `mcp_message` as without it.
    "sdkMcpServerManifests",
    "sdkMcpServerManifestsOrigin",
    // What the SDK can show; pincer runs no subagents and asks no dialogs.
    "promptSuggestions",
    "agentProgressSummaries",
    "forwardSubagentText",
    "forwardNestedSubagentToolCalls",
    "supportedDialogKinds",
    "perTaskStopAffordance",
    "rapidFollowupPreempt",
    "offersBypassSwitchBack",
    "keepsBypassHeld",
    "allowedControlRequests",
];

/// The `initialize` fields with a value that pincer neither applies nor can leave out without
/// changing the turn (unknown ones included), in the request's order.
fn unhonoured_fields(request: &Value) -> Vec<&str> {
    let Some(fields) = request.as_object() else {
        return Vec::new();
    };
    fields
        .iter()
        .filter(|(name, value)| !value.is_null() && !INITIALIZE_FIELDS.contains(&name.as_str()))
        .map(|(name, _)| name.as_str())
        .collect()
}

/// How long pincer waits for a hook callback's answer when `initialize` gives no `timeout`.
const CALLBACK_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);

/// How long pincer waits for `can_use_tool`'s decision (a person may be deciding); without one
/// the call is refused.
const PERMISSION_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(3600);

/// A command line rewritten for clap, and what was said about it.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Translated {
    pub(crate) args: Vec<OsString>,
    pub(crate) warnings: Vec<String>,
}

/// Whether `args` (program name first) is the SDK's: no subcommand, and `--input-format`.
fn is_sdk_command_line(args: &[OsString]) -> bool {
    let first_is_flag = args
        .get(1)
        .is_some_and(|first| first.to_string_lossy().starts_with('-'));
    first_is_flag
        && args.iter().any(|arg| {
            let arg = arg.to_string_lossy();
            arg == "--input-format" || arg.starts_with("--input-format=")
        })
}

/// Whether `args` is `claude -p …` (`--print`) with no subcommand: one turn, as `run`.
fn is_print_command_line(args: &[OsString]) -> bool {
    let first = args.get(1).map(|first| first.to_string_lossy());
    first.is_some_and(|first| first.starts_with('-'))
        && args[1..].iter().any(|arg| arg == "-p" || arg == "--print")
}

/// `args` as pincer's `claude-sdk` command when they are the SDK's command line, as `run` when
/// they are `claude -p "…"`'s, else `None`.
pub(crate) fn translate(args: &[OsString]) -> Option<Translated> {
    if !is_sdk_command_line(args) {
        if !is_print_command_line(args) {
            return None;
        }
        // `claude -p "prompt" [flags]`: pincer's `run` takes claude's flags; the ones it lacks
        // are dropped as for the SDK.
        let mut out = vec![args[0].clone(), OsString::from("run")];
        out.extend(
            args[1..]
                .iter()
                .filter(|arg| *arg != "-p" && *arg != "--print")
                .cloned(),
        );
        return Some(Translated {
            args: out,
            warnings: Vec::new(),
        });
    }
    let mut out = vec![args[0].clone(), OsString::from(SUBCOMMAND)];
    let mut warnings = Vec::new();
    let mut rest = args[1..]
        .iter()
        .map(|arg| arg.to_string_lossy().into_owned());
    while let Some(arg) = rest.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => {
                (flag.to_owned(), Some(value.to_owned()))
            }
            _ => (arg.clone(), None),
        };
        let value = |rest: &mut dyn Iterator<Item = String>| inline.clone().or_else(|| rest.next());
        match flag.as_str() {
            "--input-format" => {
                let format = value(&mut rest).unwrap_or_default();
                if format != "stream-json" {
                    warnings.push(format!(
                        "--input-format {format} is not supported with the SDK's protocol; reading stream-json"
                    ));
                }
            }
            // claude's `--thinking adaptive|disabled|enabled`: pincer's --thinking takes a level.
            "--thinking" => match value(&mut rest).as_deref() {
                Some("disabled") => out.extend(["--thinking".into(), "off".into()]),
                Some("adaptive" | "enabled") | None => {}
                Some(level) => out.extend(["--thinking".into(), level.into()]),
            },
            // The SDK waits for pincer to read `initialize` before anything else: pincer
            // always does, and applies what it carries from the first turn on.
            "--await-initialize" => {}
            "--permission-prompt-tool" => {
                let tool = value(&mut rest).unwrap_or_default();
                if tool == "stdio" {
                    out.extend(["--permission-prompt-tool".into(), tool.into()]);
                } else {
                    warnings.push(format!(
                        "--permission-prompt-tool {tool}: pincer asks only over stdio (the SDK's can_use_tool); the tool policy decides every call, as in a headless run"
                    ));
                }
            }
            _ => out.push(OsString::from(arg)),
        }
    }
    Some(Translated {
        args: out,
        warnings,
    })
}

/// Drop the argument clap rejected as unknown from an SDK command line (with its value: the SDK
/// passes no positional argument, so a word after it is its value) and say so. `None` when the
/// error is of another kind or names nothing in `args`.
pub(crate) fn drop_rejected(args: &mut Vec<OsString>, error: &clap::Error) -> Option<String> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if error.kind() != ErrorKind::UnknownArgument {
        return None;
    }
    let Some(ContextValue::String(rejected)) = error.get(ContextKind::InvalidArg) else {
        return None;
    };
    let name = rejected.split('=').next().unwrap_or(rejected).to_owned();
    let at = args.iter().position(|arg| {
        let arg = arg.to_string_lossy();
        arg == name || arg.starts_with(&format!("{name}="))
    })?;
    let removed = args.remove(at).to_string_lossy().into_owned();
    let value = if removed.contains('=') {
        None
    } else if args
        .get(at)
        .is_some_and(|next| !next.to_string_lossy().starts_with('-'))
    {
        Some(args.remove(at).to_string_lossy().into_owned())
    } else {
        None
    };
    let shown = match value {
        Some(value) if value.len() <= 40 => format!("{name} {value}"),
        Some(_) => format!("{name} …"),
        None => removed,
    };
    Some(format!("{shown}: pincer has no such option; ignored"))
}

/// What the SDK asked for: the model applies from the next request (of the turn running, or
/// the next turn), the rest from the next turn.
#[derive(Debug, Default)]
struct Controls {
    model: Arc<LiveModel>,
    permissions: Permissions,
    /// The budget a `set_model` must not escape, when one applies.
    budget: Option<BudgetGuard>,
    /// The hook callbacks `initialize` registered.
    hooks: Vec<Hook>,
    /// The in-process MCP servers `initialize` named (`sdkMcpServers`, the TypeScript SDK's way;
    /// the Python SDK names them in `--mcp-config`).
    mcp_servers: Vec<String>,
    /// What else of the turn `initialize` set.
    turn: InitializedTurn,
    /// Where an `interrupt` cancels the turn running now.
    interrupt: crate::scope::Interrupt,
}

/// The turn options `initialize` carries (the TypeScript SDK sends them there, not on the
/// command line); each applies to every turn, over the command line's.
#[derive(Debug, Default, PartialEq)]
struct InitializedTurn {
    /// `systemPrompt`: replaces the system prompt (`""`, the SDK's default, sends none, as
    /// the Python SDK's `--system-prompt ""`).
    system_prompt: Option<String>,
    /// `appendSystemPrompt`.
    append: Option<String>,
    /// `mcpServers`, as an `--mcp-config` document.
    mcp_config: Option<String>,
    /// `disallowedTools`.
    disallowed_tools: Vec<String>,
}

/// The permission mode the SDK set, under a ceiling fixed when the process starts: what the
/// command line (or, without a flag, the config) allowed. A `set_permission_mode` can lower
/// the turns' permissions, never raise them above it, as claude refuses `bypassPermissions`
/// unless launched with its skip-permissions flag (issue #45, hole 2: a control line in a piped
/// file lifted `--permission-mode plan` to danger-full-access).
#[derive(Debug)]
struct Permissions {
    /// The most the command line allowed; only [`Permissions::new`] sets it.
    ceiling: SandboxMode,
    /// The mode the last admitted `set_permission_mode` asked for.
    mode: Option<PermissionMode>,
}

impl Default for Permissions {
    /// The least: nothing above read-only is admitted.
    fn default() -> Self {
        Self::new(SandboxMode::ReadOnly)
    }
}

impl Permissions {
    fn new(ceiling: SandboxMode) -> Self {
        Self {
            ceiling,
            mode: None,
        }
    }

    /// Admit `mode` when it allows no more than the ceiling, else say why not.
    fn set(&mut self, mode: PermissionMode) -> Result<(), String> {
        let named = crate::plan::PermissionMode::from(mode);
        let asked = crate::plan::attempt::permission_sandbox(named);
        if !asked.within(self.ceiling) {
            return Err(format!(
                "set_permission_mode {}: the command line allowed at most {}, and a control request can lower permissions, never raise them; start pincer with --permission-mode {} (or --sandbox {}) to allow it",
                named.as_str(),
                self.ceiling.as_str(),
                named.as_str(),
                asked.as_str(),
            ));
        }
        self.mode = Some(mode);
        Ok(())
    }

    fn mode(&self) -> Option<PermissionMode> {
        self.mode
    }
}

/// A budget that applies to the turns (`--max-budget-usd`, `[budget]`): a `set_model` to a
/// model pincer knows no price for is refused under it (issue #45, hole 2), rather than counted
/// at a guessed price — no guess is safe for every model, and the user can give its prices in
/// config. A claude-cli model is fine: claude counts and enforces its budget itself.
#[derive(Debug)]
struct BudgetGuard {
    settings: crate::settings::Settings,
    /// Which budget, as the user wrote it.
    which: &'static str,
}

impl BudgetGuard {
    /// The guard for the command line's turns, when a budget applies to them.
    fn of(context: &Context, args: &RunArgs) -> Option<Self> {
        let budget = &context.settings.config.budget;
        let which = if args.turn.max_budget_usd.is_some() {
            "--max-budget-usd"
        } else if budget.daily_usd.is_some()
            || budget.weekly_usd.is_some()
            || budget.monthly_usd.is_some()
        {
            "the [budget] of config.toml"
        } else {
            return None;
        };
        Some(Self {
            settings: context.settings.clone(),
            which,
        })
    }

    /// Whether the turns may switch to `model`, else why not. A reference pincer cannot
    /// resolve is let through: the turn warns about it and keeps its model.
    fn admits(&self, model: &str) -> Result<(), String> {
        let Ok(reference) = self.settings.resolve_model_ref(model) else {
            return Ok(());
        };
        let priced = reference.provider == "claude-cli"
            || self
                .settings
                .model_info(&reference.provider, &reference.model)
                .is_some_and(|info| info.input_price > 0.0 || info.output_price > 0.0);
        if priced {
            return Ok(());
        }
        Err(format!(
            "set_model {model}: pincer knows no price for {reference}, so {} could not count what it spends; give its prices under [providers.{}.models.\"{}\"] in config.toml, or pick a priced model",
            self.which, reference.provider, reference.model
        ))
    }
}

/// What the reader hands the turn loop.
enum Input {
    /// A prompt.
    User(Prompt),
    /// stdin closed.
    End,
    /// SIGINT or SIGTERM reached the process: it ends with this exit, after the turn running.
    Signal(Exit),
}

/// Run the SDK's session: answer control requests, one turn per `user` line, until stdin
/// closes. The exit code is the last turn's: 0, else 1 (the SDK raises on any other).
pub(super) fn serve(
    format: Format,
    context: &CliResult<Context>,
    sdk_args: &ClaudeSdkArgs,
) -> CliResult<Exit> {
    let args = &sdk_args.run;
    let prompt = sdk_args.permission_prompt_tool.as_deref() == Some("stdio");
    if format != Format::StreamJson {
        return Err(CliError::usage(
            "--input-format stream-json needs --output-format stream-json",
        )
        .with_hint("add --output-format stream-json --verbose, as the Claude Agent SDK does"));
    }
    // The ceiling is the sandbox the command line's own turn would get; without a context the
    // turn fails anyway, and nothing is admitted above read-only meanwhile.
    let ceiling = context.as_ref().map_or(SandboxMode::ReadOnly, |context| {
        crate::plan::attempt::sandbox_mode(context, &TurnRequest::from(&args.turn))
    });
    let controls = Arc::new(Mutex::new(Controls {
        model: Arc::new(LiveModel::new(args.turn.model.clone())),
        permissions: Permissions::new(ceiling),
        budget: context
            .as_ref()
            .ok()
            .and_then(|context| BudgetGuard::of(context, args)),
        ..Controls::default()
    }));
    let live_model = Arc::clone(
        &controls
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .model,
    );
    // pincer's own requests (hook callbacks) go out on stdout, one line each.
    let sdk = crate::control::Sdk::open(Box::new(|line: &Value| {
        let _ = Stdout::new().line(&line.to_string());
    }));
    let channel = Arc::clone(&sdk.channel);
    let (sender, mut receiver) = mpsc::unbounded_channel();
    let signals = sender.clone();
    {
        let controls = Arc::clone(&controls);
        std::thread::spawn(move || {
            read_stdin(&sender, &controls, &channel);
            channel.close();
        });
    }
    // claude keeps its MCP servers for the whole process: so does pincer, across the turns.
    let kept_mcp = Arc::new(KeptServers::new()?);
    let runtime = kept_mcp.runtime();
    let signalled = watch_signals(&runtime, signals);
    let mut session = Continuation::first(args);
    let mut last = Exit::Success;
    let ended = loop {
        // Waited for on the runtime, which the signal watcher and the kept servers' tasks run
        // on: between turns they go on too.
        let Prompt { text, images } = match runtime.block_on(receiver.recv()) {
            // A signal that came while a turn ran ends the process before the next one.
            Some(Input::User(_)) if signalled.get().is_some() => break signalled.get().copied(),
            Some(Input::User(prompt)) => prompt,
            Some(Input::Signal(exit)) => break Some(exit),
            Some(Input::End) | None => break None,
        };
        // The turn starts with the model set now; one set while it runs takes over from its
        // next request.
        let (model_version, model) = live_model.current();
        let mut run_args = session.next(args, text, model, &controls);
        let mut hooks = controls
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .hooks
            .clone();
        if prompt {
            hooks.push(Hook::permission_prompt(PERMISSION_TIMEOUT));
            // claude's mode when none is given asks about edits too (pincer's own default
            // would be `acceptEdits`, from the workspace-write sandbox).
            run_args
                .turn
                .permission_mode
                .get_or_insert(PermissionMode::Default);
        }
        let interrupt = controls
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .interrupt
            .clone();
        let add_hooks = |request: &mut TurnRequest| {
            request.sdk_hooks.clone_from(&hooks);
            request.inline_images.clone_from(&images);
            request.claude_names = true;
            request.kept_mcp = Some(Arc::clone(&kept_mcp));
            request.sdk = Some(sdk.clone());
            request.interrupt = Some(interrupt.clone());
            request.live_model = Some((Arc::clone(&live_model), model_version));
        };
        last = match turn::run_with(format, Instant::now(), context, &run_args, &add_hooks) {
            Ok(exit) => exit,
            Err(error) => {
                if let Ok(context) = context {
                    context.diagnostics.error(&error);
                }
                error.exit
            }
        };
    };
    // stdin closed or a signal came: no turn follows, the servers stop.
    kept_mcp.shutdown();
    if let Some(exit) = ended {
        return Ok(exit);
    }
    Ok(if last == Exit::Success {
        Exit::Success
    } else {
        Exit::RunFailed
    })
}

/// Between turns no cancellation listens for SIGINT and SIGTERM, and once a turn has installed
/// its handlers their default action (ending the process) is gone: without this watcher a
/// signal between two prompts was lost and the process went on reading stdin. The first
/// signal is kept (a turn running is cancelled by its own handlers and the loop ends after
/// it) and wakes the loop waiting for the next prompt.
fn watch_signals(
    runtime: &tokio::runtime::Runtime,
    wake: mpsc::UnboundedSender<Input>,
) -> Arc<std::sync::OnceLock<Exit>> {
    use tokio::signal::unix::{SignalKind, signal};
    let signalled = Arc::new(std::sync::OnceLock::new());
    let (interrupt, terminate) = {
        let _entered = runtime.enter();
        (
            signal(SignalKind::interrupt()).ok(),
            signal(SignalKind::terminate()).ok(),
        )
    };
    let (Some(mut interrupt), Some(mut terminate)) = (interrupt, terminate) else {
        return signalled;
    };
    let kept = Arc::clone(&signalled);
    runtime.spawn(async move {
        let exit = tokio::select! {
            _ = interrupt.recv() => Exit::Interrupted,
            _ = terminate.recv() => Exit::Terminated,
        };
        let _ = kept.set(exit);
        let _ = wake.send(Input::Signal(exit));
    });
    signalled
}

/// Which session each turn of the process runs on: the first as the flags say (a new one with
/// an id chosen now, or `--resume`/`--continue`, forked with `--fork-session`), every later one
/// continues it.
struct Continuation {
    /// The session the next turn continues (none: the first turn).
    id: Option<String>,
    /// `--continue` without a known id: later turns continue the newest session too.
    newest: bool,
    /// Until the first turn: the id it gives the session it makes (a new one or a fork), or
    /// none when it continues one as the flags say.
    first: Option<Option<String>>,
}

impl Continuation {
    fn first(args: &RunArgs) -> Continuation {
        let continued = args.resume.is_some() || args.continue_last;
        // A new session (or a fork) gets its id now, so the next turn can find it.
        let new_id = (!continued || args.fork_session).then(|| {
            args.session_id
                .clone()
                .unwrap_or_else(|| uuid::Uuid::now_v7().to_string())
        });
        Continuation {
            id: new_id.clone().or_else(|| args.resume.clone()),
            newest: args.continue_last && !args.fork_session,
            first: Some(new_id),
        }
    }

    /// The arguments of the next turn, with `prompt` and `model` (the command line's or the
    /// one `set_model` chose).
    fn next(
        &mut self,
        args: &RunArgs,
        prompt: String,
        model: Option<String>,
        controls: &Mutex<Controls>,
    ) -> RunArgs {
        let mut run_args = args.clone();
        run_args.prompt = Some(prompt);
        // The prompt comes from the SDK's line; stdin is the protocol's.
        run_args.turn.no_stdin = true;
        if let Some(new_id) = self.first.take() {
            if new_id.is_some() {
                run_args.session_id = new_id;
            }
        } else {
            run_args.resume = if self.newest { None } else { self.id.clone() };
            run_args.continue_last = self.newest;
            run_args.fork_session = false;
            run_args.session_id = None;
            run_args.name = None;
            run_args.idempotency_key = None;
        }
        if model.is_some() {
            run_args.turn.model = model;
        }
        let controls = controls.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(mode) = controls.permissions.mode() {
            run_args.turn.permission_mode = Some(mode);
        }
        if let Some(config) = sdk_mcp_config(&controls.mcp_servers) {
            run_args.turn.mcp.mcp_config.push(config);
        }
        let set = &controls.turn;
        if let Some(text) = &set.system_prompt {
            run_args.turn.system_prompt = Some(text.clone());
            run_args.turn.system_prompt_file = None;
        }
        run_args
            .turn
            .append_system_prompt
            .extend(set.append.clone());
        run_args.turn.mcp.mcp_config.extend(set.mcp_config.clone());
        run_args
            .turn
            .disallowed_tools
            .extend(set.disallowed_tools.iter().cloned());
        run_args
    }
}

/// An `--mcp-config` document of the in-process servers `names` (`{"type": "sdk"}`), when any.
fn sdk_mcp_config(names: &[String]) -> Option<String> {
    (!names.is_empty()).then(|| json_line(&SdkMcpConfig { servers: names }))
}

/// `value` as one line of JSON (the types here always serialize).
fn json_line(value: &impl serde::Serialize) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// Read the SDK's lines until stdin closes: control requests are answered here, at once, also
/// while a turn runs; prompts go to the turn loop.
fn read_stdin(
    sender: &mpsc::UnboundedSender<Input>,
    controls: &Mutex<Controls>,
    channel: &crate::control::Channel,
) {
    let mut stdout = Stdout::new();
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else {
            break;
        };
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let message: Value = match serde_json::from_str(line) {
            Ok(message) => message,
            Err(error) => {
                crate::output::progress::stderr_line(&format!(
                    "pincer: ignored a line on stdin that is not JSON ({error})"
                ));
                continue;
            }
        };
        match InputLine::of(&message) {
            InputLine::User { message } => match message.0.and_then(user_prompt) {
                Some(prompt) => {
                    if sender.send(Input::User(prompt)).is_err() {
                        break;
                    }
                }
                None => crate::output::progress::stderr_line(
                    "pincer: ignored a user line with no text content",
                ),
            },
            InputLine::ControlRequest {
                request_id,
                request,
            } => {
                let answer = answer(&request_id, &request, controls);
                let _ = stdout.line(&json_line(&answer));
            }
            InputLine::ControlResponse => {
                channel.resolve(&message);
            }
            InputLine::Other => {}
        }
    }
    let _ = sender.send(Input::End);
}

/// A `user` line's prompt: its text and its images.
#[derive(Debug, PartialEq)]
struct Prompt {
    text: String,
    images: Vec<ContentBlock>,
}

/// The prompt of a `user` line: `message.content` as a string (the Python SDK's `query`) or a
/// list of blocks (the TypeScript SDK, and a streamed message), its text blocks joined and its
/// base64 image blocks kept as images. `None` without text.
fn user_prompt(message: UserMessage) -> Option<Prompt> {
    match message.content.0? {
        UserContent::Text(text) => Some(Prompt {
            text,
            images: Vec::new(),
        }),
        UserContent::Blocks(blocks) => {
            let mut texts = Vec::new();
            let mut images = Vec::new();
            for block in blocks.into_iter().filter_map(|block| block.0) {
                match block {
                    InputBlock::Text { text } => texts.extend(text.0),
                    InputBlock::Image { source } => images.extend(image_block(source.0)),
                    InputBlock::Other => {}
                }
            }
            (!texts.is_empty()).then(|| Prompt {
                text: texts.join("\n"),
                images,
            })
        }
    }
}

/// An `image` block with a base64 source as pincer's image; any other source is said on stderr
/// and left out (pincer fetches no image URL for the model).
fn image_block(source: Option<ImageSource>) -> Option<ContentBlock> {
    let source = source?;
    match (source.kind.0.as_deref(), source.data.0, source.media_type.0) {
        (Some("base64"), Some(data), Some(mime)) => Some(ContentBlock::Image(ImageBlock {
            data,
            mime_type: mime,
        })),
        _ => {
            crate::output::progress::stderr_line(
                "pincer: ignored an image block that is not base64 data with a media_type",
            );
            None
        }
    }
}

/// The hooks of `initialize`'s `hooks` (`{EVENT: [{matcher, hookCallbackIds, timeout?}]}`), one
/// per callback id, and a warning for each event pincer does not fire.
fn callback_hooks(declared: Option<&serde_json::Map<String, Value>>) -> (Vec<Hook>, Vec<String>) {
    let mut hooks = Vec::new();
    let mut warnings = Vec::new();
    let Some(events) = declared else {
        return (hooks, warnings);
    };
    for (name, groups) in events {
        let Some(event) = HookEvent::from_name(name) else {
            warnings.push(format!(
                "the SDK's {name} hook callbacks are not run: pincer does not fire {name}"
            ));
            continue;
        };
        let groups = Lenient::<Vec<Lenient<HookGroup>>>::deserialize(groups)
            .map(|groups| groups.0.unwrap_or_default())
            .unwrap_or_default();
        for group in groups.into_iter().map(|group| group.0.unwrap_or_default()) {
            let matcher = group.matcher.0.as_deref();
            let matcher = match Matcher::parse(matcher) {
                Ok(matcher) => matcher,
                Err(reason) => {
                    warnings.push(format!(
                        "the SDK's {name} hook matcher {matcher:?} is not a regular expression ({reason}); its callbacks are not run"
                    ));
                    continue;
                }
            };
            let timeout = group
                .timeout
                .0
                .and_then(|seconds| std::time::Duration::try_from_secs_f64(seconds).ok())
                .filter(|timeout| !timeout.is_zero())
                .unwrap_or(CALLBACK_TIMEOUT);
            let ids = group.callback_ids.0.unwrap_or_default();
            for id in ids.iter().filter_map(|id| id.0.as_deref()) {
                hooks.push(Hook {
                    event,
                    matcher: matcher.clone(),
                    command: format!("SDK callback {id}"),
                    timeout,
                    sandbox: false,
                    origin: "the SDK's initialize".to_owned(),
                    callback: Some(id.to_owned()),
                });
            }
        }
    }
    (hooks, warnings)
}

/// The `control_response` to a `control_request`: success for the requests pincer handles, an
/// error naming the subtype for every other one (never silence: the SDK would wait 60 s).
fn answer<'a>(
    request_id: &'a Value,
    request: &Value,
    controls: &Mutex<Controls>,
) -> ControlResponseLine<'a> {
    let success = |response: Option<Answered>| ControlResponseLine {
        response: ResponseBody::Success {
            request_id,
            response,
        },
    };
    let error = |error: String| ControlResponseLine {
        response: ResponseBody::Error { request_id, error },
    };
    let mut controls = controls.lock().unwrap_or_else(PoisonError::into_inner);
    match ControlRequest::of(request) {
        Ok(ControlRequest::Initialize(initialize)) => {
            let InitializeRequest {
                hooks,
                sdk_mcp_servers,
                system_prompt,
                append_system_prompt,
                mcp_servers,
                disallowed_tools,
            } = *initialize;
            let (hooks, mut warnings) = callback_hooks(hooks.0.as_ref());
            let ignored = unhonoured_fields(request);
            if !ignored.is_empty() {
                warnings.push(format!(
                    "initialize's {}: pincer has no counterpart; ignored",
                    ignored.join(", ")
                ));
            }
            let denied = disallowed_tools.0.map(|patterns| {
                patterns
                    .into_iter()
                    .filter_map(|pattern| pattern.0)
                    .collect::<Vec<_>>()
            });
            controls.turn = InitializedTurn {
                system_prompt: system_prompt.0.map(PromptText::joined),
                append: append_system_prompt.0,
                mcp_config: mcp_servers
                    .0
                    .map(|servers| json_line(&serde_json::json!({ "mcpServers": servers }))),
                disallowed_tools: denied.clone().unwrap_or_default(),
            };
            let mcp_servers_applied = controls.turn.mcp_config.is_some().then_some(true);
            let disallowed_tools_applied = denied.is_some().then_some(true);
            for warning in warnings {
                crate::output::progress::stderr_line(&format!("pincer: {warning}"));
            }
            controls.hooks = hooks;
            controls.mcp_servers = sdk_mcp_servers
                .0
                .unwrap_or_default()
                .into_iter()
                .filter_map(|name| name.0)
                .collect();
            success(Some(Answered::Initialize(Box::new(Initialized {
                commands: [],
                agents: [],
                output_style: "default",
                available_output_styles: ["default"],
                models: [],
                account: Account {},
                pid: std::process::id(),
                capabilities: CAPABILITIES,
                pincer_version: env!("CARGO_PKG_VERSION"),
                mcp_servers_applied,
                disallowed_tools_applied,
            }))))
        }
        Ok(ControlRequest::Interrupt) => {
            // Not a signal: the result and the session say who stopped the turn (#47 item 17).
            controls.interrupt.cancel(CancelReason::Requested);
            success(None)
        }
        // No model (null) is back to the command line's. A turn running now sends its next
        // request with it, as claude does.
        Ok(ControlRequest::SetModel { model }) => {
            let refused = match (&controls.budget, model.0.as_deref()) {
                (Some(budget), Some(name)) => budget.admits(name).err(),
                _ => None,
            };
            match refused {
                Some(refused) => error(refused),
                None => {
                    controls.model.set(model.0);
                    success(None)
                }
            }
        }
        Ok(ControlRequest::SetPermissionMode { mode }) => {
            let mode = mode.0.unwrap_or_default();
            match PermissionMode::from_str(&mode, false) {
                Ok(parsed) => match controls.permissions.set(parsed) {
                    Ok(()) => success(Some(Answered::Mode { mode })),
                    Err(refused) => error(refused),
                },
                Err(_) => error(format!("unknown permission mode: {mode}")),
            }
        }
        Err(unsupported) => error(unsupported.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn args(line: &[&str]) -> Vec<OsString> {
        std::iter::once("pincer")
            .chain(line.iter().copied())
            .map(OsString::from)
            .collect()
    }

    #[test]
    fn the_python_sdks_command_line_becomes_the_claude_sdk_command() {
        let translated = translate(&args(&[
            "--output-format",
            "stream-json",
            "--verbose",
            "--system-prompt",
            "",
            "--model",
            "claude-sonnet-4-5",
            "--permission-prompt-tool",
            "stdio",
            "--thinking",
            "disabled",
            "--input-format",
            "stream-json",
        ]))
        .unwrap();
        assert_eq!(
            translated.args,
            args(&[
                "claude-sdk",
                "--output-format",
                "stream-json",
                "--verbose",
                "--system-prompt",
                "",
                "--model",
                "claude-sonnet-4-5",
                "--permission-prompt-tool",
                "stdio",
                "--thinking",
                "off",
            ])
        );
        assert_eq!(translated.warnings, Vec::<String>::new());
    }

    #[test]
    fn claude_print_mode_is_a_run() {
        let translated = translate(&args(&["-p", "say hi", "--output-format", "json"])).unwrap();
        assert_eq!(
            translated.args,
            args(&["run", "say hi", "--output-format", "json"])
        );
        let translated = translate(&args(&["--model", "m", "--print", "hi"])).unwrap();
        assert_eq!(translated.args, args(&["run", "--model", "m", "hi"]));
        assert_eq!(translate(&args(&["run", "-p", "x"])), None);
    }

    #[test]
    fn a_command_line_with_a_subcommand_or_without_input_format_is_left_alone() {
        assert_eq!(
            translate(&args(&["run", "--input-format", "stream-json"])),
            None
        );
        assert_eq!(translate(&args(&["--output-format", "stream-json"])), None);
        assert_eq!(translate(&args(&[])), None);
    }

    #[test]
    fn an_option_clap_does_not_know_is_dropped_with_its_value_and_named() {
        let mut line = args(&[
            "claude-sdk",
            "--setting-sources=user,project",
            "--betas",
            "context-1m",
            "--session-mirror",
            "--model",
            "m",
        ]);
        let mut warnings = Vec::new();
        loop {
            match crate::cli::Cli::try_parse_args_with(line.clone(), &|_| None) {
                Ok(_) => break,
                Err(error) => warnings.push(drop_rejected(&mut line, &error).expect("dropped")),
            }
        }
        assert_eq!(line, args(&["claude-sdk", "--model", "m"]));
        assert_eq!(warnings.len(), 3, "{warnings:?}");
        assert!(
            warnings[1].starts_with("--betas context-1m:"),
            "{warnings:?}"
        );
    }

    #[test]
    fn every_control_request_is_answered_and_an_unknown_one_with_an_error() {
        let controls = Mutex::new(Controls {
            permissions: Permissions::new(SandboxMode::WorkspaceWrite),
            ..Controls::default()
        });
        let id = json!("r1");
        let line = |body: Value| json_line(&answer(&id, &body, &controls));
        let answer = |body: Value| serde_json::from_str::<Value>(&line(body)).unwrap();
        let init = line(json!({"subtype": "initialize", "hooks": null}));
        assert!(
            init.starts_with(
                r#"{"type":"control_response","response":{"subtype":"success","request_id":"r1","response":{"commands":[],"agents":[],"output_style":"default","#
            ),
            "{init}"
        );
        let init: Value = serde_json::from_str(&init).unwrap();
        assert_eq!(init["response"]["response"]["account"], json!({}));
        assert_eq!(
            init["response"]["response"].get("mcp_servers_applied"),
            None
        );
        assert_eq!(
            init["response"]["response"]["capabilities"],
            json!(CAPABILITIES)
        );
        let unknown = answer(json!({"subtype": "rewind_files"}));
        assert_eq!(unknown["response"]["subtype"], "error");
        assert!(
            unknown["response"]["error"]
                .as_str()
                .unwrap()
                .contains("rewind_files")
        );
        let nameless = answer(json!({"mode": "plan"}));
        assert_eq!(
            nameless["response"]["error"],
            "Unsupported control request subtype: "
        );
        let wrong = answer(json!({"subtype": "set_permission_mode", "mode": 3}));
        assert_eq!(wrong["response"]["error"], "unknown permission mode: ");
        let mode = answer(json!({"subtype": "set_permission_mode", "mode": "acceptEdits"}));
        assert_eq!(mode["response"]["response"]["mode"], "acceptEdits");
        // Issue #45, hole 2: above the command line's ceiling, refused, and the mode kept.
        let raised = answer(json!({"subtype": "set_permission_mode", "mode": "bypassPermissions"}));
        assert_eq!(raised["response"]["subtype"], "error");
        assert!(
            raised["response"]["error"]
                .as_str()
                .unwrap()
                .starts_with("set_permission_mode bypassPermissions: the command line allowed at most workspace-write"),
            "{raised}"
        );
        let interrupt = answer(json!({"subtype": "interrupt"}));
        assert_eq!(
            interrupt,
            json!({"type": "control_response", "response": {"subtype": "success", "request_id": "r1"}})
        );
        answer(json!({"subtype": "set_model", "model": "openai/gpt-5"}));
        answer(json!({"subtype": "initialize", "sdkMcpServers": ["kv", 7, "db"]}));
        let controls = controls.into_inner().unwrap();
        assert_eq!(
            sdk_mcp_config(&controls.mcp_servers).as_deref(),
            Some(
                r#"{"mcpServers":{"kv":{"type":"sdk","name":"kv"},"db":{"type":"sdk","name":"db"}}}"#
            )
        );
        assert_eq!(sdk_mcp_config(&[]), None);
        assert_eq!(
            controls.model.current(),
            (1, Some("openai/gpt-5".to_owned()))
        );
        assert_eq!(
            controls.permissions.mode(),
            Some(PermissionMode::AcceptEdits)
        );
    }

    #[test]
    fn initialize_sets_the_turns_prompt_servers_and_denials_and_names_what_it_ignores() {
        let controls = Mutex::new(Controls::default());
        let request = json!({
            "subtype": "initialize", "hooks": null, "jsonSchema": null,
            "systemPrompt": ["Be a bot.", "__SYSTEM_PROMPT_DYNAMIC_BOUNDARY__", "Today."],
            "appendSystemPrompt": "Sign it.",
            "mcpServers": {"kv": {"command": "kv-server"}},
            "disallowedTools": ["Bash(rm:*)", 4],
            "promptSuggestions": true, "title": "T", "agents": {"a": {}}, "futureField": 1,
        });
        let answered = json_line(&answer(&json!("r1"), &request, &controls));
        let answered: Value = serde_json::from_str(&answered).unwrap();
        assert_eq!(
            answered["response"]["response"]["mcp_servers_applied"],
            true
        );
        assert_eq!(
            answered["response"]["response"]["disallowed_tools_applied"],
            true
        );
        let controls = controls.into_inner().unwrap();
        assert_eq!(
            controls.turn,
            InitializedTurn {
                system_prompt: Some("Be a bot.\n\nToday.".to_owned()),
                append: Some("Sign it.".to_owned()),
                mcp_config: Some(r#"{"mcpServers":{"kv":{"command":"kv-server"}}}"#.to_owned()),
                disallowed_tools: vec!["Bash(rm:*)".to_owned()],
            }
        );
        assert_eq!(
            unhonoured_fields(&request),
            ["title", "agents", "futureField"]
        );
        #[derive(clap::Parser)]
        struct Line {
            #[command(flatten)]
            run: RunArgs,
        }
        let args = <Line as clap::Parser>::parse_from(["pincer", "--system-prompt", "argv"]).run;
        let mut session = Continuation::first(&args);
        let turn = session.next(&args, "hi".to_owned(), None, &Mutex::new(controls));
        assert_eq!(
            turn.turn.system_prompt.as_deref(),
            Some("Be a bot.\n\nToday.")
        );
        assert_eq!(turn.turn.append_system_prompt, ["Sign it."]);
        assert_eq!(turn.turn.disallowed_tools, ["Bash(rm:*)"]);
        assert_eq!(turn.turn.mcp.mcp_config.len(), 1);
        // The TypeScript SDK's default, `[""]`, is no prompt, as the Python SDK's `--system-prompt ""`.
        let empty = PromptText::Blocks(vec![Lenient(Some(String::new()))]).joined();
        assert_eq!(empty, "");
    }

    #[test]
    fn each_callback_id_is_a_hook_and_an_event_pincer_does_not_fire_is_named() {
        let (hooks, warnings) = callback_hooks(
            json!({
                "PreToolUse": [{"matcher": "Bash", "hookCallbackIds": ["hook_0", "hook_1"], "timeout": 5}],
                "Stop": [{"matcher": null, "hookCallbackIds": ["hook_2", 9]}, "not a group"],
                "SubagentStop": [{"matcher": null, "hookCallbackIds": ["hook_3"]}],
                "PostToolUse": "not a list",
            })
            .as_object(),
        );
        let ids: Vec<_> = hooks
            .iter()
            .map(|hook| hook.callback.as_deref().unwrap())
            .collect();
        assert_eq!(ids, ["hook_0", "hook_1", "hook_2"]);
        assert_eq!(hooks[0].event, HookEvent::PreToolUse);
        assert!(hooks[0].matcher.matches(&["exec", "Bash"]));
        assert_eq!(hooks[0].timeout, std::time::Duration::from_secs(5));
        assert_eq!(hooks[2].timeout, CALLBACK_TIMEOUT);
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].contains("SubagentStop"), "{warnings:?}");
    }

    #[test]
    fn a_prompt_is_a_string_or_the_text_and_image_blocks_of_a_list() {
        let prompt_of = |line: Value| match InputLine::of(&line) {
            InputLine::User { message } => message.0.and_then(user_prompt),
            _ => None,
        };
        let python = json!({"type": "user", "message": {"role": "user", "content": "hi"}});
        let prompt = prompt_of(python).unwrap();
        assert_eq!((prompt.text.as_str(), prompt.images.len()), ("hi", 0));
        let typescript = json!({"type": "user", "message": {"role": "user", "content": [
            {"type": "text", "text": "a"}, {"type": "image", "source": {}},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}},
            {"type": "text", "text": "b"}
        ]}});
        let prompt = prompt_of(typescript).unwrap();
        assert_eq!(prompt.text, "a\nb");
        assert_eq!(
            prompt.images,
            vec![ContentBlock::Image(ImageBlock {
                data: "iVBO".to_owned(),
                mime_type: "image/png".to_owned(),
            })]
        );
        let only_an_image = json!({"type": "user", "message": {"content": [
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "x"}}
        ]}});
        assert_eq!(prompt_of(only_an_image), None);
        assert_eq!(
            prompt_of(json!({"type": "user", "message": {"content": 5}})),
            None
        );
        assert_eq!(prompt_of(json!({"type": "user"})), None);
        assert!(matches!(
            InputLine::of(&json!({"no": "type"})),
            InputLine::Other
        ));
        assert!(matches!(
            InputLine::of(&json!({"type": "keep_alive"})),
            InputLine::Other
        ));
        assert!(matches!(
            InputLine::of(&json!({"type": "control_response", "response": {}})),
            InputLine::ControlResponse
        ));
    }
}
