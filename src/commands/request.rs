//! The flags of `run` and `resume`, as the plain [`TurnRequest`] the engine takes: clap's types
//! stop here.

use std::time::Duration;

use crate::agent::prompt::PromptMode;
use crate::cli::TurnArgs;
use crate::conversation::SandboxMode;
use crate::error::{CliError, CliResult};
use crate::plan::{CassetteRequest, PermissionMode, TurnRequest};
use crate::provider::ThinkingLevel;

/// `--timeout`, checked: more than 0 seconds.
pub(super) fn run_timeout(args: &TurnArgs) -> CliResult<Option<Duration>> {
    match args.timeout {
        Some(timeout) if !(timeout > 0.0 && timeout.is_finite()) => {
            Err(CliError::usage("--timeout must be more than 0 seconds")
                .with_hint("give a number of seconds such as 600 or 0.5"))
        }
        timeout => Ok(crate::plan::seconds(timeout)),
    }
}

impl From<&TurnArgs> for TurnRequest {
    fn from(args: &TurnArgs) -> TurnRequest {
        // codex's --full-auto: edits in the workspace, no approvals (a headless run never asks).
        let sandbox = if args.dangerously_skip_permissions {
            Some(SandboxMode::DangerFullAccess)
        } else if args.full_auto {
            Some(SandboxMode::WorkspaceWrite)
        } else {
            args.sandbox.map(SandboxMode::from)
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
            allow_host: args.allow_host.clone(),
            add_dir: args.add_dir.clone(),
            web_search: args.web_search,
            max_turns: args.max_turns,
            max_budget_usd: args.max_budget_usd,
            idle_timeout: args.idle_timeout,
            image: args.image.clone(),
            inline_images: Vec::new(),
            no_session_persistence: args.no_session_persistence,
            heartbeat: args.heartbeat,
            approve_workspace_files: args.approve_workspace_files,
            json_schema: args.json_schema.clone(),
            output_schema: args.output_schema.clone(),
            dry_run: args.dry_run,
            mcp_config: args.mcp.mcp_config.clone(),
            strict_mcp_config: args.mcp.strict_mcp_config,
            approve_workspace_mcp: args.mcp.approve_workspace_mcp,
            settings: args.settings.clone(),
            sdk_hooks: Vec::new(),
            claude_names: false,
            kept_mcp: None,
            sdk: None,
            interrupt: None,
            live_model: None,
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

impl From<crate::cli::SandboxMode> for SandboxMode {
    fn from(mode: crate::cli::SandboxMode) -> SandboxMode {
        use crate::cli::SandboxMode as Flag;
        match mode {
            Flag::ReadOnly => SandboxMode::ReadOnly,
            Flag::WorkspaceWrite => SandboxMode::WorkspaceWrite,
            Flag::DangerFullAccess => SandboxMode::DangerFullAccess,
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
