//! `pincer exec`: codex exec's command line, as the Codex SDK builds it (SPEC §16), run as
//! `run` or, with `resume THREAD_ID` after the flags, as `resume` of that session.
//!
//! The SDK writes the prompt on stdin and options as codex flags and `--config key=value`
//! overrides. No SDK option ends the run with exit 2: each `--config` key is either
//! - one of codex's settings pincer has under another name (`model_reasoning_effort` is
//!   `--thinking`, `web_search` is `tools.web_search`, `openai_base_url` is
//!   `providers.openai.base_url`, `sandbox_mode` is `--sandbox`), applied;
//! - `approval_policy`, accepted as it is: codex exec never asks either, and pincer's tool
//!   policy and sandbox decide;
//! - a key of pincer's own config (`model`, `sandbox_workspace_write.network_access`,
//!   `mcp_servers.NAME.*`), applied as `-c` is;
//! - anything else, left out with one warning line on stderr.
//!
//! `CODEX_API_KEY` (the SDK's `apiKey`) is the OpenAI key. With `--json`/`--experimental-json`
//! stdout carries codex's JSONL events (`output::codex`).

use std::path::Path;
use std::time::Instant;

use super::{build_context, turn};
use crate::cli::{
    ExecArgs, ExecCommand, GlobalArgs, OutputFormat, ResumeArgs, RunArgs, SandboxMode,
    ThinkingLevel,
};
use crate::config::ConfigError;
use crate::config::file::ConfigFile;
use crate::error::{CliResult, Exit};
use crate::output::{Diagnostics, Format};

/// Run `pincer exec`.
pub(super) fn exec(
    global: &GlobalArgs,
    args: &ExecArgs,
    diagnostics: &Diagnostics,
    started: Instant,
) -> CliResult<Exit> {
    let plan = plan(global, args, &crate::settings::process_env);
    for warning in &plan.warnings {
        diagnostics.warn(warning);
    }
    let context = build_context(&plan.global, diagnostics.clone(), plan.format, started);
    match plan.turn {
        Turn::Run(run) => turn::run(plan.format, started, &context, &run),
        Turn::Resume(resume) => turn::resume(plan.format, started, &context, &resume),
    }
}

/// What `exec` runs: the global flags with the config overrides pincer applies, the format,
/// the turn, and what to warn about.
#[derive(Debug)]
struct Plan {
    global: GlobalArgs,
    format: Format,
    turn: Turn,
    warnings: Vec<String>,
}

/// A new session's turn, or a continued one's.
#[derive(Debug)]
enum Turn {
    Run(Box<RunArgs>),
    Resume(Box<ResumeArgs>),
}

/// The plan of `exec` with `args`, the environment read through `env`.
fn plan(global: &GlobalArgs, args: &ExecArgs, env: &dyn Fn(&str) -> Option<String>) -> Plan {
    let mut turn_args = args.turn.clone();
    let config = translate_config(&global.config, env);
    let mut warnings = config.warnings;
    if turn_args.thinking.is_none() && turn_args.max_thinking_tokens.is_none() {
        turn_args.thinking = config.thinking;
    }
    let sandbox_given = turn_args.sandbox.is_some()
        || turn_args.dangerously_skip_permissions
        || turn_args.full_auto
        || turn_args.permission_mode.is_some();
    if !sandbox_given {
        turn_args.sandbox = config.sandbox;
    }
    for (flag, value) in [
        ("--thread-source", &args.thread_source),
        ("--cyber-access-program", &args.cyber_access_program),
    ] {
        if let Some(value) = value {
            warnings.push(format!(
                "ignoring {flag} {value}: pincer has no such setting"
            ));
        }
    }
    let mut global = global.clone();
    global.config = config.overrides;
    let format = if args.experimental_json || global.json {
        Format::CodexJson
    } else {
        match global.output_format {
            Some(OutputFormat::Json) => Format::Json,
            Some(OutputFormat::StreamJson) => Format::StreamJson,
            Some(OutputFormat::Text) | None => Format::Text,
        }
    };
    global.json = false;
    let turn = match &args.command {
        None => Turn::Run(Box::new(RunArgs {
            prompt: args.prompt.clone(),
            session_id: None,
            name: None,
            idempotency_key: None,
            resume: None,
            continue_last: false,
            fork_session: false,
            turn: turn_args,
        })),
        Some(ExecCommand::Resume(resume)) => {
            turn_args.image.extend(resume.image.iter().cloned());
            Turn::Resume(Box::new(ResumeArgs {
                session: resume.session.clone(),
                prompt: resume.prompt.clone().or_else(|| args.prompt.clone()),
                last: resume.last,
                all: false,
                fork: false,
                create: false,
                name: None,
                session_id: None,
                turn: turn_args,
            }))
        }
    };
    Plan {
        global,
        format,
        turn,
        warnings,
    }
}

/// codex's `--config` overrides as pincer applies them.
#[derive(Debug, Default, PartialEq)]
struct ConfigTranslation {
    /// `-c` overrides of pincer's config, in order.
    overrides: Vec<String>,
    /// From `model_reasoning_effort`.
    thinking: Option<ThinkingLevel>,
    /// From `sandbox_mode`.
    sandbox: Option<SandboxMode>,
    /// One line per key left out or changed in meaning.
    warnings: Vec<String>,
}

/// Sort `specs` (`KEY=VALUE`, the value TOML or a bare word) into what pincer applies and what
/// it warns about; `CODEX_API_KEY` in `env` becomes the OpenAI key.
fn translate_config(specs: &[String], env: &dyn Fn(&str) -> Option<String>) -> ConfigTranslation {
    let mut translation = ConfigTranslation::default();
    for spec in specs {
        let Some((key, value_text)) = spec.split_once('=') else {
            // clap already refused it; keep pincer's own message.
            translation.overrides.push(spec.clone());
            continue;
        };
        let (key, value_text) = (key.trim(), value_text.trim());
        let value = value_text
            .parse::<toml::Value>()
            .ok()
            .and_then(|value| value.as_str().map(str::to_owned))
            .unwrap_or_else(|| value_text.to_owned());
        match key {
            "model_reasoning_effort" => translation.thinking = effort(&value, &mut translation),
            "web_search" | "tools.web_search" => {
                let on = match value.as_str() {
                    "live" | "true" => Some(true),
                    "cached" => {
                        translation.warnings.push(
                            "web_search=\"cached\": pincer has no cached search; the provider \
                             searches live"
                                .to_owned(),
                        );
                        Some(true)
                    }
                    "disabled" | "false" => Some(false),
                    _ => None,
                };
                match on {
                    Some(on) => translation.overrides.push(format!("tools.web_search={on}")),
                    None => translation.warnings.push(ignored(spec, "an unknown value")),
                }
            }
            "approval_policy" => {
                if !matches!(
                    value.as_str(),
                    "never" | "on-request" | "on-failure" | "untrusted"
                ) {
                    translation.warnings.push(ignored(spec, "an unknown value"));
                }
            }
            "openai_base_url" => translation
                .overrides
                .push(format!("providers.openai.base_url={value_text}")),
            "sandbox_mode" => match value.as_str() {
                "read-only" => translation.sandbox = Some(SandboxMode::ReadOnly),
                "workspace-write" => translation.sandbox = Some(SandboxMode::WorkspaceWrite),
                "danger-full-access" => translation.sandbox = Some(SandboxMode::DangerFullAccess),
                _ => translation.warnings.push(ignored(spec, "an unknown value")),
            },
            _ => match ConfigFile::with_overrides(
                toml::Table::new(),
                std::slice::from_ref(spec),
                Path::new("-c"),
            ) {
                Err(ConfigError::UnknownKey { .. }) => translation
                    .warnings
                    .push(ignored(spec, "pincer has no such setting")),
                // pincer's own key: a bad value is reported as `-c` reports it.
                Ok(_) | Err(_) => translation.overrides.push(spec.clone()),
            },
        }
    }
    if env("CODEX_API_KEY").is_some_and(|key| !key.is_empty()) {
        translation
            .overrides
            .push("providers.openai.api_key_env=\"CODEX_API_KEY\"".to_owned());
    }
    translation
}

/// `model_reasoning_effort` as a thinking level.
fn effort(value: &str, translation: &mut ConfigTranslation) -> Option<ThinkingLevel> {
    let level = match value {
        "none" => ThinkingLevel::Off,
        "minimal" => ThinkingLevel::Minimal,
        "low" => ThinkingLevel::Low,
        "medium" => ThinkingLevel::Medium,
        "high" => ThinkingLevel::High,
        "xhigh" | "max" => ThinkingLevel::Xhigh,
        "ultra" | "persistent" => {
            translation.warnings.push(format!(
                "model_reasoning_effort=\"{value}\": pincer's highest level is xhigh; using it"
            ));
            ThinkingLevel::Xhigh
        }
        _ => {
            translation.warnings.push(format!(
                "ignoring --config model_reasoning_effort=\"{value}\": an unknown level"
            ));
            return None;
        }
    };
    Some(level)
}

/// The warning for a `--config` override left out.
fn ignored(spec: &str, why: &str) -> String {
    format!("ignoring --config {spec}: {why}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Cli, Command, TurnArgs};

    fn exec_plan(args: &[&str], env: &[(&str, &str)]) -> Plan {
        let cli = Cli::try_parse_args_with(
            std::iter::once("pincer").chain(args.iter().copied()),
            &|_| None,
        )
        .unwrap_or_else(|error| panic!("{error}"));
        let Command::Exec(exec) = &cli.command else {
            panic!("not exec: {:?}", cli.command);
        };
        let env: Vec<(String, String)> = env
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect();
        plan(&cli.global, exec, &|name| {
            env.iter()
                .find(|(variable, _)| variable == name)
                .map(|(_, value)| value.clone())
        })
    }

    fn turn_args(plan: &Plan) -> &TurnArgs {
        match &plan.turn {
            Turn::Run(run) => &run.turn,
            Turn::Resume(resume) => &resume.turn,
        }
    }

    #[test]
    fn the_argv_the_sdk_builds_for_a_new_thread_is_a_run_printing_codex_events() {
        let plan = exec_plan(
            &[
                "exec",
                "--experimental-json",
                "--config",
                "openai_base_url=\"http://127.0.0.1:9/v1\"",
                "--model",
                "openai/gpt-5",
                "--sandbox",
                "read-only",
                "--cd",
                "/tmp",
                "--add-dir",
                "/srv",
                "--skip-git-repo-check",
                "--output-schema",
                "/tmp/schema.json",
                "--config",
                "model_reasoning_effort=\"high\"",
                "--config",
                "sandbox_workspace_write.network_access=true",
                "--config",
                "web_search=\"live\"",
                "--config",
                "approval_policy=\"never\"",
                "--image",
                "a.png",
            ],
            &[],
        );
        assert_eq!(plan.format, Format::CodexJson);
        assert!(plan.warnings.is_empty(), "{:?}", plan.warnings);
        assert_eq!(
            plan.global.config,
            [
                "providers.openai.base_url=\"http://127.0.0.1:9/v1\"",
                "sandbox_workspace_write.network_access=true",
                "tools.web_search=true",
            ]
        );
        assert_eq!(plan.global.cd.as_deref(), Some(Path::new("/tmp")));
        let Turn::Run(run) = &plan.turn else {
            panic!("a new thread is a run");
        };
        assert_eq!(run.prompt, None, "the prompt comes on stdin");
        let turn = &run.turn;
        assert_eq!(turn.model.as_deref(), Some("openai/gpt-5"));
        assert_eq!(turn.sandbox, Some(SandboxMode::ReadOnly));
        assert_eq!(turn.thinking, Some(ThinkingLevel::High));
        assert_eq!(turn.add_dir, [Path::new("/srv")]);
        assert_eq!(
            turn.output_schema.as_deref(),
            Some(Path::new("/tmp/schema.json"))
        );
        assert_eq!(turn.image, [Path::new("a.png")]);
    }

    #[test]
    fn resume_after_the_flags_continues_that_session_with_the_images_after_it() {
        let plan = exec_plan(
            &[
                "exec",
                "--json",
                "--cd",
                "/tmp",
                "--skip-git-repo-check",
                "resume",
                "0199a000-0000-7000-8000-000000000001",
                "--image",
                "b.png",
            ],
            &[],
        );
        assert_eq!(plan.format, Format::CodexJson);
        assert!(!plan.global.json, "--json means codex's events here");
        let Turn::Resume(resume) = &plan.turn else {
            panic!("resume ID is a resume");
        };
        assert_eq!(
            resume.session.as_deref(),
            Some("0199a000-0000-7000-8000-000000000001")
        );
        assert_eq!(resume.prompt, None);
        assert!(!resume.last && !resume.fork && !resume.create);
        assert_eq!(resume.turn.image, [Path::new("b.png")]);
    }

    #[test]
    fn without_json_exec_prints_the_answer_as_run_does() {
        let plan = exec_plan(&["exec", "say hi"], &[]);
        assert_eq!(plan.format, Format::Text);
        let Turn::Run(run) = &plan.turn else {
            panic!("a run");
        };
        assert_eq!(run.prompt.as_deref(), Some("say hi"));
    }

    #[test]
    fn config_keys_pincer_lacks_and_unknown_values_are_warned_about_never_refused() {
        let plan = exec_plan(
            &[
                "exec",
                "--json",
                "-c",
                "model_verbosity=\"low\"",
                "-c",
                "features.web_search_request=true",
                "-c",
                "web_search=\"sometimes\"",
                "-c",
                "model_reasoning_effort=\"ultra\"",
                "-c",
                "approval_policy=\"whenever\"",
                "-c",
                "web_search=\"cached\"",
                "--thread-source",
                "app",
                "--cyber-access-program",
                "standard",
            ],
            &[],
        );
        assert_eq!(plan.global.config, ["tools.web_search=true"]);
        assert_eq!(turn_args(&plan).thinking, Some(ThinkingLevel::Xhigh));
        assert_eq!(
            plan.warnings,
            [
                "ignoring --config model_verbosity=\"low\": pincer has no such setting",
                "ignoring --config features.web_search_request=true: pincer has no such setting",
                "ignoring --config web_search=\"sometimes\": an unknown value",
                "model_reasoning_effort=\"ultra\": pincer's highest level is xhigh; using it",
                "ignoring --config approval_policy=\"whenever\": an unknown value",
                "web_search=\"cached\": pincer has no cached search; the provider searches live",
                "ignoring --thread-source app: pincer has no such setting",
                "ignoring --cyber-access-program standard: pincer has no such setting",
            ]
        );
    }

    #[test]
    fn pincers_own_keys_pass_through_and_flags_win_over_codex_settings() {
        let plan = exec_plan(
            &[
                "exec",
                "--json",
                "--thinking",
                "low",
                "-s",
                "workspace-write",
                "-c",
                "model=\"openai/gpt-5\"",
                "-c",
                "mcp_servers.kv.command=\"kv-server\"",
                "-c",
                "model_reasoning_effort=\"high\"",
                "-c",
                "sandbox_mode=\"read-only\"",
                "-c",
                "web_search=\"disabled\"",
            ],
            &[("CODEX_API_KEY", "sk-codex")],
        );
        assert!(plan.warnings.is_empty(), "{:?}", plan.warnings);
        assert_eq!(
            plan.global.config,
            [
                "model=\"openai/gpt-5\"",
                "mcp_servers.kv.command=\"kv-server\"",
                "tools.web_search=false",
                "providers.openai.api_key_env=\"CODEX_API_KEY\"",
            ]
        );
        assert_eq!(turn_args(&plan).thinking, Some(ThinkingLevel::Low));
        assert_eq!(turn_args(&plan).sandbox, Some(SandboxMode::WorkspaceWrite));

        let plan = exec_plan(&["exec", "-c", "sandbox_mode=\"read-only\""], &[]);
        assert_eq!(turn_args(&plan).sandbox, Some(SandboxMode::ReadOnly));
    }
}
