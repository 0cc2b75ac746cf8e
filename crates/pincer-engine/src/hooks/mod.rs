//! Hooks (SPEC §14): commands that run at fixed points of a turn, in Claude Code's hook format so
//! that existing hook scripts work unchanged, headless — they never prompt — and never skipped
//! silently.
//!
//! - [`config`]: where hooks come from (config.toml `[[hooks.EVENT]]`, `--settings FILE|JSON`)
//!   and the checks that make a bad declaration exit 2.
//! - [`Matcher`]: Claude Code's matcher rules over tool names (pincer's and claude's) and sources.
//! - [`protocol`]: the stdin JSON of each event and what exit codes and stdout JSON mean.
//! - `runner`: one command, in the `exec` sandbox, its own process group, killed at its timeout
//!   or on cancellation.
//!
//! The engines see a [`Hooks`] (the set plus what every hook is told) and call [`Hooks::run`]
//! for one [`Fire`]: the matching hooks start at once and run concurrently, their answers are
//! combined into one [`Verdict`], and each start and finish is reported to a callback (the
//! engines turn those into events; this module prints nothing).

mod callback;
pub mod config;
mod matcher;
pub mod protocol;
mod runner;

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

pub use config::{Sources, resolve};
pub use matcher::Matcher;
pub use protocol::{Fire, Verdict};

use crate::tools::{Sandbox, SandboxMode};

/// A hook's `timeout` when it sets none (Claude Code's default too).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The events pincer runs hooks for, in Claude Code's names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HookEvent {
    /// A run starts, resumes a session, or goes on after a compaction.
    SessionStart,
    /// Before the prompt is recorded and sent.
    UserPromptSubmit,
    /// Before a tool call runs.
    PreToolUse,
    /// After a tool call succeeded.
    PostToolUse,
    /// Before a compaction.
    PreCompact,
    /// The model answered without calling a tool.
    Stop,
    /// The run is over.
    SessionEnd,
}

impl HookEvent {
    /// Every event, in the order of a run.
    pub const ALL: [HookEvent; 7] = [
        HookEvent::SessionStart,
        HookEvent::UserPromptSubmit,
        HookEvent::PreToolUse,
        HookEvent::PostToolUse,
        HookEvent::PreCompact,
        HookEvent::Stop,
        HookEvent::SessionEnd,
    ];

    /// Claude Code's name.
    pub fn as_str(self) -> &'static str {
        match self {
            HookEvent::SessionStart => "SessionStart",
            HookEvent::UserPromptSubmit => "UserPromptSubmit",
            HookEvent::PreToolUse => "PreToolUse",
            HookEvent::PostToolUse => "PostToolUse",
            HookEvent::PreCompact => "PreCompact",
            HookEvent::Stop => "Stop",
            HookEvent::SessionEnd => "SessionEnd",
        }
    }

    /// The event of a Claude Code name.
    pub fn from_name(name: &str) -> Option<HookEvent> {
        HookEvent::ALL
            .into_iter()
            .find(|event| event.as_str() == name)
    }

    /// Whether exit code 2 (or a `block` decision) changes what happens: the tool does not run
    /// (PreToolUse), the model hears the reason (PostToolUse), the run ends (UserPromptSubmit),
    /// the model goes on (Stop). Elsewhere it is shown on stderr.
    pub fn can_block(self) -> bool {
        matches!(
            self,
            HookEvent::PreToolUse
                | HookEvent::PostToolUse
                | HookEvent::UserPromptSubmit
                | HookEvent::Stop
        )
    }
}

/// One declared hook.
#[derive(Debug, Clone, PartialEq)]
pub struct Hook {
    /// When it runs.
    pub event: HookEvent,
    /// Which tools (or sources) it runs for.
    pub matcher: Matcher,
    /// The command line (`sh -c`).
    pub command: String,
    /// Killed after this long.
    pub timeout: Duration,
    /// Run in the `exec` sandbox (SPEC §10); `false` only when the declaration says so.
    pub sandbox: bool,
    /// Where it was declared: `config.toml`, `--settings 'FILE'`, `--settings JSON`, the SDK.
    pub origin: String,
    /// An agent SDK's callback id (`initialize`'s `hookCallbackIds`): the hook is asked over the
    /// control channel ([`crate::control`]) with the same input, and answers with the same
    /// output JSON, instead of running `command` (then only a label).
    pub callback: Option<String>,
}

impl Hook {
    /// The Claude Agent SDK's permission prompt (`can_use_tool`, SPEC §16) as a PreToolUse hook
    /// for every tool: asked over the control channel where claude would ask, its answer read
    /// as a hook's `permissionDecision`.
    pub fn permission_prompt(timeout: Duration) -> Hook {
        Hook {
            event: HookEvent::PreToolUse,
            matcher: Matcher::all(),
            command: "the SDK's can_use_tool".to_owned(),
            timeout,
            sandbox: false,
            origin: "--permission-prompt-tool stdio".to_owned(),
            callback: Some(callback::CAN_USE_TOOL.to_owned()),
        }
    }

    /// Whether it is [`Hook::permission_prompt`].
    pub fn is_permission_prompt(&self) -> bool {
        self.callback.as_deref() == Some(callback::CAN_USE_TOOL)
    }

    /// A sandboxed hook with a 10 s timeout, for tests.
    #[cfg(test)]
    pub fn for_tests(event: HookEvent, matcher: Option<&str>, command: &str) -> Hook {
        Hook {
            event,
            matcher: Matcher::parse(matcher).unwrap_or_else(|error| panic!("{error}")),
            command: command.to_owned(),
            timeout: Duration::from_secs(10),
            sandbox: true,
            origin: "config.toml".to_owned(),
            callback: None,
        }
    }
}

/// The hooks of a run, in declaration order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HookSet {
    /// Every hook.
    pub hooks: Vec<Hook>,
}

impl HookSet {
    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.hooks.is_empty()
    }

    /// Whether `event` has any hook.
    pub fn has(&self, event: HookEvent) -> bool {
        self.hooks.iter().any(|hook| hook.event == event)
    }

    /// The hooks of `event`, in order.
    pub fn of(&self, event: HookEvent) -> impl Iterator<Item = &Hook> {
        self.hooks.iter().filter(move |hook| hook.event == event)
    }

    /// The hooks a firing runs: the permission prompt only for a call it may ask about.
    pub fn matching<'a>(&'a self, fire: &Fire<'_>) -> Vec<&'a Hook> {
        let subjects = fire.subjects();
        let may_ask = !matches!(fire, Fire::PreToolUse { may_ask: false, .. });
        self.of(fire.event())
            .filter(|hook| subjects.is_empty() || hook.matcher.matches(&subjects))
            .filter(|hook| may_ask || !hook.is_permission_prompt())
            .collect()
    }
}

/// What every hook of a run is told and run with.
#[derive(Debug, Clone)]
pub struct HookContext {
    /// pincer's session id (empty when the run keeps none).
    pub session_id: String,
    /// The session file (empty when the run keeps none).
    pub transcript_path: String,
    /// The workspace: the hooks' working directory and `CLAUDE_PROJECT_DIR`.
    pub cwd: PathBuf,
    /// Claude Code's permission mode for the run's sandbox (`default`, `acceptEdits`,
    /// `bypassPermissions`).
    pub permission_mode: String,
    /// The model id (SessionStart's `model`).
    pub model: String,
    /// The `exec` sandbox, with the environment commands get.
    pub sandbox: Sandbox,
    /// The trace context the hooks continue: the span that starts each (SPEC §17).
    pub trace: crate::trace::ChildTrace,
    /// The agent SDK driving the run, if one does: its hook callbacks and permission prompt
    /// go out on its channel, and the rules it added decide first.
    pub sdk: Option<crate::control::Sdk>,
}

impl HookContext {
    /// A context with no sandbox around `workspace`, for tests.
    #[cfg(test)]
    pub fn for_tests(workspace: &std::path::Path) -> HookContext {
        HookContext {
            session_id: "s1".into(),
            transcript_path: "/h/s1.jsonl".into(),
            cwd: workspace.to_path_buf(),
            permission_mode: "acceptEdits".into(),
            model: "m".into(),
            sandbox: Sandbox::unrestricted(workspace),
            trace: crate::trace::ChildTrace::default(),
            sdk: None,
        }
    }
}

/// The run's hooks, ready to fire.
#[derive(Debug, Clone)]
pub struct Hooks {
    /// What was declared.
    pub set: HookSet,
    /// What they are told and run with.
    pub context: HookContext,
}

/// A hook about to run or finished, for the `system/hook_started` and `system/hook_response`
/// lines and `-v`'s stderr line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookProgress {
    /// It starts.
    Started(HookStarted),
    /// It finished.
    Finished(HookFinished),
}

/// A hook that starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookStarted {
    /// A fresh id shared with its `Finished`.
    pub id: String,
    /// `PreToolUse:Bash`, `SessionStart:startup`, `Stop`.
    pub name: String,
    /// The event's name.
    pub event: &'static str,
    /// The command line.
    pub command: String,
}

/// A finished hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookFinished {
    /// As in its [`HookStarted`].
    pub id: String,
    /// As in its [`HookStarted`].
    pub name: String,
    /// As in its [`HookStarted`].
    pub event: &'static str,
    /// As in its [`HookStarted`].
    pub command: String,
    /// What it printed.
    pub stdout: String,
    /// What it printed on stderr.
    pub stderr: String,
    /// Its exit code, when it exited.
    pub exit_code: Option<i32>,
    /// `success` (exit 0), `error` (any other end) or `cancelled` (the run was).
    pub outcome: &'static str,
    /// How it ended, in words (`exit 2`, `timed out after 5 s`, …).
    pub ending: String,
    /// How long it ran.
    pub duration: Duration,
}

impl Hooks {
    /// Whether `event` has any hook.
    pub fn has(&self, event: HookEvent) -> bool {
        self.set.has(event)
    }

    /// Run the hooks `fire` matches, all at once, and combine what they say. `cancel` kills
    /// them; `progress` hears of each start and finish. The SDK's permission prompt comes after
    /// the other PreToolUse hooks, as claude's does: only when none allowed or refused the call,
    /// about the arguments as they left them.
    pub async fn run(
        &self,
        fire: &Fire<'_>,
        cancel: &CancellationToken,
        progress: &mut dyn FnMut(&HookProgress),
    ) -> Verdict {
        let (prompts, hooks): (Vec<&Hook>, Vec<&Hook>) = self
            .set
            .matching(fire)
            .into_iter()
            .partition(|hook| hook.is_permission_prompt());
        // Asked only where claude asks, in the run's permission mode.
        let asks = match fire {
            Fire::PreToolUse { tool, .. } => callback::asks(
                &self.context.permission_mode,
                crate::tools::claude_name(tool),
            ),
            _ => false,
        };
        let mut input = fire.input(&self.context);
        let mut verdict = self.run_all(&hooks, fire, &input, cancel, progress).await;
        if prompts.is_empty() || verdict.block.is_some() {
            return verdict;
        }
        // The rules the SDK added with its answers (`updatedPermissions`) decide before it is
        // asked again, as claude's session rules do: a deny one in any mode.
        if let Fire::PreToolUse {
            tool,
            input: arguments,
            ..
        } = fire
            && let Some(sdk) = &self.context.sdk
        {
            let arguments = verdict.updated_input.as_ref().unwrap_or(arguments);
            match callback::session_rule(&sdk.rules, tool, arguments) {
                Some(callback::SessionRule::Deny(message)) => {
                    verdict.block = Some(message);
                    verdict.sdk_refusal = true;
                    return verdict;
                }
                Some(callback::SessionRule::Allow) => return verdict,
                None => {}
            }
        }
        if !asks || verdict.allow {
            return verdict;
        }
        if let (Fire::PreToolUse { tool, .. }, Some(updated)) = (fire, &verdict.updated_input) {
            input["tool_input"] = protocol::claude_tool_input(tool, updated, &self.context.cwd);
        }
        let prompted = self.run_all(&prompts, fire, &input, cancel, progress).await;
        // The other hooks did not block: a block now is the SDK's denial alone.
        verdict.sdk_refusal = prompted.block.is_some();
        verdict.absorb(prompted);
        verdict
    }

    /// Run `hooks` on `input`, all at once, and combine what they say.
    async fn run_all(
        &self,
        hooks: &[&Hook],
        fire: &Fire<'_>,
        input: &serde_json::Value,
        cancel: &CancellationToken,
        progress: &mut dyn FnMut(&HookProgress),
    ) -> Verdict {
        if hooks.is_empty() {
            return Verdict::default();
        }
        let event = fire.event();
        let name = fire.label();
        let stdin = input.to_string().into_bytes();
        let mut running = Vec::with_capacity(hooks.len());
        for hook in hooks {
            let started = HookStarted {
                id: uuid::Uuid::new_v4().to_string(),
                name: name.clone(),
                event: event.as_str(),
                command: hook.command.clone(),
            };
            progress(&HookProgress::Started(started.clone()));
            let task = match &hook.callback {
                Some(id) => tokio::spawn(callback::run(
                    self.context.sdk.clone(),
                    id.clone(),
                    input.clone(),
                    hook.timeout,
                    cancel.clone(),
                )),
                None => {
                    let launch = self.launch(hook, stdin.clone());
                    tokio::spawn(runner::run(launch, cancel.clone()))
                }
            };
            running.push((started, task));
        }
        let mut verdict = Verdict::default();
        for (started, task) in running {
            let mut run = task.await.unwrap_or_else(|error| runner::Run {
                ending: runner::Ending::NotStarted(error.to_string()),
                stdout: String::new(),
                stderr: String::new(),
                duration: Duration::ZERO,
                notes: Vec::new(),
            });
            verdict.absorb(protocol::interpret(event, &run, &name, &started.command));
            verdict.warnings.append(&mut run.notes);
            progress(&HookProgress::Finished(finished(started, run)));
        }
        verdict
    }

    fn launch(&self, hook: &Hook, stdin: Vec<u8>) -> runner::Launch {
        let context = &self.context;
        let mut sandbox = context.sandbox.clone();
        if !hook.sandbox {
            sandbox.mode = SandboxMode::DangerFullAccess;
        }
        let mut environment: Vec<(OsString, OsString)> = Vec::new();
        if let Some(temp) = &sandbox.exec.temp_dir {
            for name in ["TMPDIR", "TMP", "TEMP"] {
                environment.push((name.into(), temp.into()));
            }
        }
        environment.push(("CLAUDE_PROJECT_DIR".into(), context.cwd.clone().into()));
        runner::Launch {
            command: hook.command.clone(),
            directory: context.cwd.clone(),
            sandbox,
            environment,
            trace: context.trace.clone(),
            stdin,
            timeout: hook.timeout,
        }
    }
}

fn finished(started: HookStarted, run: runner::Run) -> HookFinished {
    let (outcome, ending) = match &run.ending {
        runner::Ending::Exited(0) => ("success", "exit 0".to_owned()),
        runner::Ending::Exited(code) => ("error", format!("exit {code}")),
        runner::Ending::Signalled(signal) => ("error", format!("killed by signal {signal}")),
        runner::Ending::TimedOut(timeout) => (
            "error",
            format!("timed out after {} s", timeout.as_secs_f64()),
        ),
        runner::Ending::Cancelled => ("cancelled", "cancelled".to_owned()),
        runner::Ending::NotStarted(reason) => ("error", format!("not started: {reason}")),
    };
    HookFinished {
        id: started.id,
        name: started.name,
        event: started.event,
        command: started.command,
        exit_code: run.ending.code(),
        stdout: run.stdout,
        stderr: run.stderr,
        outcome,
        ending,
        duration: run.duration,
    }
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use serde_json::json;

    use super::*;

    fn hooks(list: Vec<Hook>) -> (tempfile::TempDir, Hooks) {
        let workspace = tempfile::tempdir().unwrap();
        let context = HookContext::for_tests(workspace.path());
        (
            workspace,
            Hooks {
                set: HookSet { hooks: list },
                context,
            },
        )
    }

    #[tokio::test]
    async fn the_hooks_of_an_event_run_concurrently_and_any_deny_wins() {
        let (_workspace, hooks) = hooks(vec![
            Hook::for_tests(HookEvent::PreToolUse, Some("Bash"), "sleep 0.5; exit 0"),
            Hook::for_tests(
                HookEvent::PreToolUse,
                Some("exec"),
                "sleep 0.5; echo 'no pushes' >&2; exit 2",
            ),
            Hook::for_tests(HookEvent::PreToolUse, Some("Read"), "echo never; exit 2"),
            Hook::for_tests(HookEvent::PostToolUse, None, "exit 2"),
        ]);
        let input = json!({"command": "git push"});
        let fire = Fire::PreToolUse {
            tool: "exec",
            input: &input,
            id: "t1",
            may_ask: true,
        };
        let mut seen = Vec::new();
        let started = Instant::now();
        let verdict = hooks
            .run(&fire, &CancellationToken::new(), &mut |progress| {
                seen.push(progress.clone());
            })
            .await;
        assert!(started.elapsed() < Duration::from_millis(950));
        assert_eq!(verdict.block.as_deref(), Some("no pushes"));
        assert_eq!(seen.len(), 4);
        let HookProgress::Finished(last) = &seen[3] else {
            panic!("{seen:?}")
        };
        assert_eq!(
            (last.name.as_str(), last.exit_code, last.outcome),
            ("PreToolUse:Bash", Some(2), "error")
        );
    }

    #[tokio::test]
    async fn a_hook_reads_claudes_input_in_the_workspace_with_claude_project_dir() {
        let (workspace, hooks) = hooks(vec![Hook::for_tests(
            HookEvent::UserPromptSubmit,
            Some("ignored for this event"),
            "cat > input.json; echo \"$CLAUDE_PROJECT_DIR\" > dir.txt",
        )]);
        let verdict = hooks
            .run(
                &Fire::UserPromptSubmit { prompt: "hello" },
                &CancellationToken::new(),
                &mut |_| {},
            )
            .await;
        assert_eq!(verdict, Verdict::default());
        let input: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(workspace.path().join("input.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(input["hook_event_name"], "UserPromptSubmit");
        assert_eq!(input["prompt"], "hello");
        assert_eq!(
            std::fs::read_to_string(workspace.path().join("dir.txt")).unwrap(),
            format!("{}\n", workspace.path().display())
        );
    }
}
