//! What a front-end asks of a turn, in plain types: the `run`/`resume` flags map onto it in
//! `commands/`, and a second front-end (the agent-SDK protocol) fills the same struct. Field
//! names follow the flags they come from, so a reader can go from `--help` to the plan.

use std::path::PathBuf;

use crate::agent::prompt::PromptMode;
use crate::cassette::Matching;
use crate::conversation::ContentBlock;
use crate::conversation::SandboxMode;
use crate::provider::ThinkingLevel;

/// One turn's options (everything but the prompt itself, see [`TurnInput`]).
#[derive(Debug, Clone, Default)]
pub(crate) struct TurnRequest {
    /// `-m`: model as provider/model or an alias.
    pub(crate) model: Option<String>,
    /// `--fallback-model`, in order.
    pub(crate) fallback_model: Vec<String>,
    /// `--auth-profile`: the one profile the primary model's provider uses.
    pub(crate) auth_profile: Option<String>,
    /// `--thinking`.
    pub(crate) thinking: Option<ThinkingLevel>,
    /// claude's `--max-thinking-tokens`.
    pub(crate) max_thinking_tokens: Option<u64>,
    /// `--prompt-mode`.
    pub(crate) prompt_mode: Option<PromptMode>,
    /// `--no-context-files`.
    pub(crate) no_context_files: bool,
    /// `--skill` paths.
    pub(crate) skill: Vec<PathBuf>,
    /// `--no-skills`.
    pub(crate) no_skills: bool,
    /// `--tools`: the exact tool list.
    pub(crate) tools: Option<String>,
    /// `--allowed-tools` rules.
    pub(crate) allowed_tools: Vec<String>,
    /// `--disallowed-tools` rules.
    pub(crate) disallowed_tools: Vec<String>,
    /// The sandbox the flags ask for (`--sandbox`, `--full-auto`,
    /// `--dangerously-skip-permissions`), before claude's permission mode and the config.
    pub(crate) sandbox: Option<SandboxMode>,
    /// claude's `--permission-mode`.
    pub(crate) permission_mode: Option<PermissionMode>,
    /// `--allow-network`.
    pub(crate) allow_network: bool,
    /// `--allow-host` (SPEC §20).
    pub(crate) allow_host: Vec<String>,
    /// `--add-dir`.
    pub(crate) add_dir: Vec<PathBuf>,
    /// `--web-search`.
    pub(crate) web_search: bool,
    /// `--max-turns`.
    pub(crate) max_turns: Option<u32>,
    /// `--max-budget-usd`.
    pub(crate) max_budget_usd: Option<f64>,
    /// `--idle-timeout` in seconds.
    pub(crate) idle_timeout: Option<f64>,
    /// `-i` image paths.
    pub(crate) image: Vec<PathBuf>,
    /// Images a front-end hands over as data (an agent SDK's `user` line), after the `-i` ones.
    pub(crate) inline_images: Vec<ContentBlock>,
    /// `--no-session-persistence`.
    pub(crate) no_session_persistence: bool,
    /// `--heartbeat`.
    pub(crate) heartbeat: bool,
    /// `--approve-workspace-files`.
    pub(crate) approve_workspace_files: bool,
    /// `--json-schema SCHEMA|@FILE`.
    pub(crate) json_schema: Option<String>,
    /// codex's `--output-schema FILE`.
    pub(crate) output_schema: Option<PathBuf>,
    /// `--dry-run`.
    pub(crate) dry_run: bool,
    /// `--mcp-config` arguments.
    pub(crate) mcp_config: Vec<String>,
    /// `--strict-mcp-config`.
    pub(crate) strict_mcp_config: bool,
    /// `--approve-workspace-mcp`.
    pub(crate) approve_workspace_mcp: bool,
    /// `--settings FILE|JSON` (hooks).
    pub(crate) settings: Vec<String>,
    /// Hooks an agent SDK registered (`initialize`), run after the declared ones.
    pub(crate) sdk_hooks: Vec<crate::hooks::Hook>,
    /// An agent SDK's front-end: the stream-json lines speak claude's tool names.
    pub(crate) claude_names: bool,
    /// A front-end that runs several turns in one process keeps the MCP servers here for all of
    /// them (started once, stopped by the front-end); none: the turn starts and stops its own.
    pub(crate) kept_mcp: Option<std::sync::Arc<super::mcp::KeptServers>>,
    /// The agent SDK driving the run, if one does: its control channel and the permission
    /// rules it added, for the hooks and the MCP servers of every turn it drives.
    pub(crate) sdk: Option<crate::control::Sdk>,
    /// Where the front-end cancels the turn from while it runs (an agent SDK's `interrupt`).
    pub(crate) interrupt: Option<crate::scope::Interrupt>,
    /// A model a front-end may change while the turn runs (an agent SDK's `set_model`), and
    /// the version of it `model` was read at: a later one is sent from the next request on.
    pub(crate) live_model: Option<(std::sync::Arc<LiveModel>, u64)>,
    /// `--record` / `--replay`.
    pub(crate) cassette: CassetteRequest,
    /// `--system-prompt`: replaces the built prompt.
    pub(crate) system_prompt: Option<String>,
    /// `--system-prompt-file`.
    pub(crate) system_prompt_file: Option<PathBuf>,
    /// `--append-system-prompt`.
    pub(crate) append_system_prompt: Vec<String>,
    /// `--append-system-prompt-file`.
    pub(crate) append_system_prompt_file: Vec<PathBuf>,
    /// `--no-stdin`.
    pub(crate) no_stdin: bool,
    /// `--stdin-timeout` in seconds.
    pub(crate) stdin_timeout: Option<f64>,
    /// `--lossy-stdin`.
    pub(crate) lossy_stdin: bool,
}

/// The model a front-end's turns use, which it may change at any time (an agent SDK's
/// `set_model`): the next turn starts with it, and a turn running when it changes sends its
/// next request with it.
#[derive(Debug, Default)]
pub(crate) struct LiveModel {
    /// The model when none was set: the command line's.
    base: Option<String>,
    /// How many times it was set, and the model last set (none: back to `base`).
    set: std::sync::Mutex<(u64, Option<String>)>,
}

impl LiveModel {
    /// `base` (the command line's model) until one is set.
    pub(crate) fn new(base: Option<String>) -> LiveModel {
        LiveModel {
            base,
            set: std::sync::Mutex::default(),
        }
    }

    /// Set the model (none: back to the command line's).
    pub(crate) fn set(&self, model: Option<String>) {
        let mut set = self
            .set
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        set.0 += 1;
        set.1 = model;
    }

    /// The version and the model now.
    pub(crate) fn current(&self) -> (u64, Option<String>) {
        let set = self
            .set
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        (set.0, set.1.clone().or_else(|| self.base.clone()))
    }
}

/// `--record FILE` / `--replay FILE` and how a replay matches requests.
#[derive(Debug, Clone, Default)]
pub(crate) struct CassetteRequest {
    pub(crate) record: Option<PathBuf>,
    pub(crate) replay: Option<PathBuf>,
    pub(crate) replay_pace: bool,
    pub(crate) matching: Matching,
}

/// claude's permission modes; a headless run never asks, so each maps onto a sandbox mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PermissionMode {
    Plan,
    AcceptEdits,
    BypassPermissions,
    DontAsk,
    Auto,
    Default,
}

impl PermissionMode {
    /// claude's name of the mode, as hooks are told it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            PermissionMode::Plan => "plan",
            PermissionMode::AcceptEdits => "acceptEdits",
            PermissionMode::BypassPermissions => "bypassPermissions",
            PermissionMode::DontAsk => "dontAsk",
            PermissionMode::Auto => "auto",
            PermissionMode::Default => "default",
        }
    }
}

/// What the user gave the turn: the prompt (argument, stdin, or the heartbeat prompt) with its
/// images, and what replaces or extends the system prompt.
pub(crate) struct TurnInput {
    pub(crate) prompt: crate::input::Prompt,
    pub(crate) images: Vec<ContentBlock>,
    pub(crate) system_replace: Option<String>,
    pub(crate) appends: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_live_model_counts_its_changes_and_falls_back_to_the_command_lines() {
        let live = LiveModel::new(Some("anthropic/claude-sonnet-4-5".to_owned()));
        assert_eq!(
            live.current(),
            (0, Some("anthropic/claude-sonnet-4-5".to_owned()))
        );
        live.set(Some("haiku".to_owned()));
        assert_eq!(live.current(), (1, Some("haiku".to_owned())));
        live.set(None);
        assert_eq!(
            live.current(),
            (2, Some("anthropic/claude-sonnet-4-5".to_owned()))
        );
        assert_eq!(LiveModel::new(None).current(), (0, None));
    }
}
