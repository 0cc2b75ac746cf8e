//! `pincer status [SESSION|--last]`: one session's state, or the installation's (SPEC §1.6).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::auth::{iso_option, now_ms};
use super::{Context, ModelFacts, load_scoped, resolve_selector, stdout_error};
use crate::auth::resolve::{SourceReport, SourceState, describe_sources};
use crate::cli::StatusArgs;
use crate::conversation::compact_count;
use crate::error::{CliResult, Exit};
use crate::output::Stdout;
use crate::session::index::IndexEntry;
use crate::session::store::SessionLock;

/// Providers whose credentials `status` reports, in the default-selection order of SPEC §11.
const PROVIDERS: [&str; 4] = ["anthropic", "openai", "google", "ollama"];

/// Run `status`.
pub fn status(context: &Context, args: &StatusArgs) -> CliResult<Exit> {
    if args.mcp {
        // Exit 1 when a server did not start, so a CI job can check its servers first.
        let (report, all_up) = super::mcp::status_report(context, &args.mcp_servers)?;
        let mut stdout = Stdout::new();
        if context.format.is_json() {
            stdout.json_pretty(&report).map_err(stdout_error)?;
        } else {
            stdout
                .write(&super::mcp::render_status(&report))
                .map_err(stdout_error)?;
        }
        return Ok(if all_up {
            Exit::Success
        } else {
            Exit::RunFailed
        });
    }
    status_of(context, args)
}

/// `status` without `--mcp`: one session's, or the installation's.
fn status_of(context: &Context, args: &StatusArgs) -> CliResult<Exit> {
    let value = if args.session.is_some() || args.last {
        let wanted = crate::session::index::Wanted {
            queries: args.session.as_deref().into_iter().collect(),
            last: (args.last && args.session.is_none())
                .then_some((context.workspace.as_path(), args.all)),
        };
        let index = load_scoped(context, &wanted)?;
        let path = resolve_selector(
            context,
            &index,
            args.session.as_deref(),
            args.last,
            args.all,
        )?;
        let entry = match path
            .file_name()
            .and_then(|name| index.by_file(&name.to_string_lossy()))
        {
            Some(entry) if path.parent() == Some(context.sessions_dir()) => entry.clone(),
            _ => crate::session::index::summarize_file(&path).map_err(super::session_error)?,
        };
        session_status(context, &path, &entry)
    } else {
        let cwd = context.workspace.to_string_lossy();
        let (counts, report) = crate::session::index::counts(context.sessions_dir(), &cwd)
            .map_err(super::session_error)?;
        super::tell_index_report(context, &report);
        installation_status(context, counts, args.fresh_probe)?
    };
    let mut stdout = Stdout::new();
    if context.format.is_json() {
        stdout.json_pretty(&value).map_err(stdout_error)?;
    } else {
        stdout.write(&render(&value)).map_err(stdout_error)?;
    }
    Ok(Exit::Success)
}

fn backend_of(provider: Option<&str>) -> &'static str {
    match provider {
        Some("claude-cli") => "claude-cli",
        Some("codex-cli") => "codex-cli",
        _ => "api",
    }
}

fn session_status(context: &Context, path: &Path, entry: &IndexEntry) -> Value {
    let summary = &entry.summary;
    let facts = ModelFacts::new(context);
    let occupancy = facts.occupancy(summary);
    let cumulative = summary.cumulative_usage();
    let usage_json = |usage: &crate::conversation::TokenUsage| {
        json!({
            "input_tokens": usage.input,
            "cache_creation_input_tokens": usage.cache_write,
            "cache_read_input_tokens": usage.cache_read,
            "output_tokens": usage.output,
        })
    };
    json!({
        "session_id": summary.id,
        "session_name": summary.name,
        "file": path,
        "cwd": summary.cwd,
        "backend": backend_of(summary.provider.as_deref()),
        "provider": summary.provider,
        "model": summary.model,
        "backend_session_ids": summary.backend_sessions,
        "thinking_level": summary.thinking_level,
        "turns": summary.turns,
        "messages": summary.messages,
        "compactions": summary.compactions,
        "context": {
            "tokens": occupancy.map(|o| o.tokens),
            "window": facts.context_window(summary),
            "percent": occupancy.and_then(|o| o.percent),
            "estimated": summary.context_estimated,
        },
        "last_call_usage": summary.last_usage.as_ref().map(usage_json),
        "usage": usage_json(&cumulative),
        "total_cost_usd": facts.cost(summary),
        "created": summary.created,
        "last_activity": summary.updated,
        "last_run_aborted": summary.last_run_aborted,
        "last_error": summary.last_error,
        "locked": SessionLock::is_held(path),
        "problem": entry.problem,
        "repair_command": entry.problem.as_ref().map(|_| format!("pincer sessions repair {}", path.display())),
        "torn_tail": entry.torn_tail,
    })
}

/// Where an executable named `name` is on `PATH`.
fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|directory| directory.join(name))
        .find(|candidate| {
            use std::os::unix::fs::PermissionsExt;
            candidate.metadata().is_ok_and(|metadata| {
                metadata.is_file() && metadata.permissions().mode() & 0o111 != 0
            })
        })
}

/// Whether a CLI's own login file exists (the file, never its content).
fn cli_logged_in(files: &[PathBuf]) -> bool {
    files.iter().any(|file| file.is_file())
}

/// One credential source as `status` shows it: never a value, a fingerprint at most.
fn source_json(report: &SourceReport) -> Value {
    let (state, until, reason) = match &report.state {
        SourceState::Ready => ("ready", None, None),
        SourceState::CoolingDown { until, reason } => {
            ("cooldown", Some(*until), Some(reason.clone()))
        }
        SourceState::Disabled { until, reason } => ("disabled", Some(*until), Some(reason.clone())),
        SourceState::Unusable(reason) => ("unusable", None, Some(reason.clone())),
    };
    json!({
        "source": report.source,
        "secret": report.secret,
        "state": state,
        "until": iso_option(until),
        "reason": reason,
    })
}

/// Per provider: the credentials a run would try, in order, and whether one is usable now; plus
/// every stored profile with its cooldown. Key commands are not run.
fn credentials(context: &Context, now: u64) -> CliResult<(Vec<Value>, Value)> {
    let settings = &context.settings;
    let file = crate::auth::AuthFile::new(&settings.paths.auth_file);
    let (store, store_error) = match file.load() {
        Ok(store) => (store, None),
        // A store pincer may not read is the user's to fix (exit 2); a damaged one is reported.
        Err(crate::auth::AuthError::Io { path, source }) => {
            let message = format!("cannot read auth store '{}': {source}", path.display());
            if let Some(error) = super::access_error(&message, &path, &source) {
                return Err(error);
            }
            (crate::auth::Store::default(), Some(message))
        }
        Err(error) => (crate::auth::Store::default(), Some(error.to_string())),
    };
    let environment = |name: &str| std::env::var(name).ok();
    let mut providers: Vec<String> = PROVIDERS.iter().map(|name| (*name).to_owned()).collect();
    for name in settings.config.providers.keys() {
        if !providers.contains(name) && settings.provider_api(name).is_some() {
            providers.push(name.clone());
        }
    }
    let credentials = providers
        .iter()
        .map(|provider| {
            let env_vars = settings.key_env_vars(provider);
            let reports = describe_sources(&store, provider, &environment, &env_vars, now);
            let ready: Vec<&str> = reports
                .iter()
                .filter(|report| report.state == SourceState::Ready)
                .map(|report| report.source.as_str())
                .collect();
            let set: Vec<&String> = env_vars
                .iter()
                .filter(|name| environment(name).is_some_and(|value| !value.is_empty()))
                .collect();
            json!({
                "provider": provider,
                "usable": !ready.is_empty() || env_vars.is_empty(),
                "source": ready.first(),
                "sources": reports.iter().map(source_json).collect::<Vec<_>>(),
                "env_vars_set": set,
                "base_url": settings.base_url(provider),
            })
        })
        .collect();
    let profiles = match store_error {
        Some(error) => json!({"error": error}),
        None => Value::Array(
            store
                .profiles
                .iter()
                .map(|(id, profile)| {
                    let stats = store.usage_stats.get(id).cloned().unwrap_or_default();
                    let report =
                        describe_sources(&store, &profile.provider, &environment, &[], now)
                            .into_iter()
                            .find(|report| report.profile_id.as_deref() == Some(id.as_str()));
                    let mut value = json!({
                        "id": id,
                        "provider": profile.provider,
                        "source": profile.source_text(),
                        "last_used": stats.last_used,
                        "cooldown_until": stats.cooldown_until,
                        "disabled_until": stats.disabled_until,
                        "disabled_reason": stats.disabled_reason,
                        "failure_counts": stats.failure_counts,
                    });
                    if let Some(report) = report {
                        let shown = source_json(&report);
                        for key in ["state", "until", "reason"] {
                            value[key] = shown[key].clone();
                        }
                    }
                    value
                })
                .collect(),
        ),
    };
    Ok((credentials, profiles))
}

fn installation_status(
    context: &Context,
    (sessions, sessions_here): (usize, usize),
    fresh_probe: bool,
) -> CliResult<Value> {
    let settings = &context.settings;
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let (credentials, auth_profiles) = credentials(context, now_ms())?;
    let claude_home = std::env::var_os("CLAUDE_CONFIG_DIR")
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|home| home.join(".claude")));
    let codex_home = std::env::var_os("CODEX_HOME")
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|home| home.join(".codex")));
    let cli = |name: &str, login_files: Vec<PathBuf>| {
        let found = find_on_path(name);
        json!({
            "installed": found.is_some(),
            "path": found,
            "logged_in": found.is_some() && cli_logged_in(&login_files),
        })
    };
    let paths = &settings.paths;
    let files = crate::agent::context_files::load(
        &context.workspace,
        &paths.workspace_dir,
        &settings.workspace.files,
        false,
        settings.workspace.max_file_chars,
    )
    .files;
    let skills = super::discover_skills(context, &[], true);
    let sandbox = installation_sandbox(context, &super::added_dirs(context, &[])?);
    let memory = if fresh_probe {
        crate::tools::ProbeMemory::Refresh
    } else {
        crate::tools::ProbeMemory::Reuse
    };
    let tool_names = default_tools(context);
    let tools = crate::tools::definitions(&tool_names);
    let built = crate::agent::prompt::build(&crate::agent::prompt::PromptInputs {
        workspace: &context.workspace,
        model: settings.model.as_deref().unwrap_or("-"),
        tools: &tools,
        mode: crate::agent::prompt::PromptMode::Full,
        replace: None,
        append: &settings.workspace.append_system_prompt,
        now: "",
        sandbox: settings.tools.sandbox.as_str(),
        added_dirs: &sandbox.added_dirs,
        files: &files,
        skills: &skills.loaded,
        heartbeat: false,
        git: None,
    });
    Ok(json!({
        "version": env!("CARGO_PKG_VERSION"),
        "model": settings.model,
        "fallbacks": settings.fallbacks,
        "workspace": context.workspace,
        "paths": {
            "config_file": paths.config_file,
            "auth_file": paths.auth_file,
            "sessions_dir": paths.sessions_dir,
        },
        "credentials": credentials,
        "auth_profiles": auth_profiles,
        "cli_backends": {
            "claude": cli("claude", claude_home.into_iter().map(|dir| dir.join(".credentials.json")).collect()),
            "codex": cli("codex", codex_home.into_iter().map(|dir| dir.join("auth.json")).collect()),
        },
        "sandbox": sandbox_report(&sandbox, &paths.state_dir, memory),
        "system_prompt": {
            "chars": built.text.chars().count(),
            "sections": built.sections,
            "workspace_files": built.files,
        },
        "overhead": overhead_report(&built.text, &tools),
        "skills": skills,
        "cache": {"ttl": settings.cache_ttl.as_str()},
        "sessions": sessions,
        "sessions_here": sessions_here,
    }))
}

/// The built-in tools a turn run here with no flags offers: the configured profile and rules
/// under the configured sandbox, `apply_patch` only for a model on the Responses API (as a turn
/// decides, with the configured model or the one a turn would pick).
fn default_tools(context: &Context) -> Vec<&'static str> {
    let tools = &context.settings.tools;
    let offered = crate::tools::policy::ToolPolicy::new(&crate::tools::policy::PolicySpec {
        profile: Some(tools.profile.as_str()),
        exact: None,
        allow: &tools.allow,
        deny: &tools.deny,
    })
    .map_or_else(
        |_| crate::tools::CODING_TOOLS.to_vec(),
        |policy| policy.with_sandbox(tools.sandbox).offered(),
    );
    let responses = context
        .settings
        .model
        .clone()
        .or_else(|| super::turn::default_model(context).ok())
        .and_then(|reference| super::turn::resolve_model(context, &reference).ok())
        .is_some_and(|model| {
            model.cli.is_none() && model.api == crate::config::file::ApiKind::OpenAi
        });
    offered
        .into_iter()
        .filter(|name| *name != "apply_patch" || responses)
        .collect()
}

/// What every request of such a turn carries besides the messages (`overhead` in `status
/// --json`): the same estimate the result's `context.overhead_tokens` gives.
fn overhead_report(system_prompt: &str, tools: &[crate::conversation::ToolDefinition]) -> Value {
    let overhead = crate::conversation::Overhead::of(system_prompt, tools);
    json!({
        "tokens": overhead.tokens(),
        "system_prompt_tokens": overhead.system_prompt_tokens,
        "tool_tokens": overhead.tool_tokens,
        "tools": tools.iter().map(|tool| tool.name.as_str()).collect::<Vec<_>>(),
    })
}

/// The sandbox of a turn run here with no flags.
fn installation_sandbox(context: &Context, added_dirs: &[PathBuf]) -> crate::tools::Sandbox {
    let settings = &context.settings;
    let mut sandbox = crate::tools::Sandbox::new(
        settings.tools.sandbox,
        &context.workspace,
        added_dirs,
        &settings.paths,
        None,
    );
    sandbox.web.allow_private = settings.tools.web_fetch_allow_private;
    sandbox.exec.network = settings.tools.network;
    sandbox
}

/// The sandbox as `status` and `--dry-run` report it: the mode and which protection `exec`
/// commands get here (probed once per process, SPEC §10, or remembered in `state_dir` from a
/// probe earlier this boot while nothing it depends on has changed, as `memory` says).
pub(crate) fn sandbox_report(
    sandbox: &crate::tools::Sandbox,
    state_dir: &Path,
    memory: crate::tools::ProbeMemory,
) -> Value {
    let (protection, probed_at) =
        crate::tools::ExecProtection::reported(sandbox, state_dir, memory);
    json!({
        "mode": sandbox.mode.as_str(),
        "added_dirs": sandbox.added_dirs,
        "web_fetch_private_addresses": if sandbox.web.allow_private { "allowed" } else { "refused" },
        "exec_protection": protection.level(),
        "exec_enforcement": protection.describe(),
        "exec_enforced": protection.is_enforced(),
        "exec_namespace": protection.namespace_line(),
        "exec_landlock": protection.landlock.describe(),
        "exec_network": protection.network_line(),
        "exec_launcher": protection.launcher,
        // When the protection above was probed, if not by this process.
        "exec_probed_at": iso_option(probed_at),
    })
}

fn text_of(value: &Value) -> String {
    match value {
        Value::Null => "-".to_owned(),
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// Render a status object as aligned `key: value` lines.
fn render(value: &Value) -> String {
    let mut text = String::new();
    if value.get("session_id").is_some() {
        render_session(&mut text, value);
        return text;
    }
    let line = |text: &mut String, key: &str, shown: String| {
        let _ = writeln!(text, "{key:<16}{shown}");
    };
    line(&mut text, "pincer:", text_of(&value["version"]));
    line(
        &mut text,
        "model:",
        match value["model"].as_str() {
            Some(model) => model.to_owned(),
            None => "(not configured: the first provider with credentials is used)".to_owned(),
        },
    );
    line(&mut text, "workspace:", text_of(&value["workspace"]));
    line(
        &mut text,
        "config:",
        text_of(&value["paths"]["config_file"]),
    );
    line(
        &mut text,
        "sessions dir:",
        text_of(&value["paths"]["sessions_dir"]),
    );
    line(
        &mut text,
        "sandbox:",
        format!(
            "{} (exec protection: {})",
            text_of(&value["sandbox"]["mode"]),
            text_of(&value["sandbox"]["exec_protection"])
        ),
    );
    line(
        &mut text,
        "exec:",
        text_of(&value["sandbox"]["exec_enforcement"]),
    );
    line(
        &mut text,
        "network:",
        text_of(&value["sandbox"]["exec_network"]),
    );
    if let Some(probed_at) = value["sandbox"]["exec_probed_at"].as_str() {
        line(
            &mut text,
            "exec probed:",
            format!("{probed_at}, remembered (`status --fresh-probe` probes again)"),
        );
    }
    let added: Vec<String> = value["sandbox"]["added_dirs"]
        .as_array()
        .into_iter()
        .flatten()
        .map(text_of)
        .collect();
    if !added.is_empty() {
        line(&mut text, "added dirs:", added.join(", "));
    }
    let files: Vec<String> = value["system_prompt"]["workspace_files"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|file| {
            format!(
                "{} ({} chars)",
                text_of(&file["name"]),
                text_of(&file["chars"])
            )
        })
        .collect();
    line(
        &mut text,
        "context files:",
        if files.is_empty() {
            "none".to_owned()
        } else {
            files.join(", ")
        },
    );
    let skills: Vec<String> = value["skills"]["loaded"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|skill| {
            format!(
                "{} ({})",
                text_of(&skill["name"]),
                text_of(&skill["source"])
            )
        })
        .collect();
    line(
        &mut text,
        "skills:",
        if skills.is_empty() {
            "none".to_owned()
        } else {
            skills.join(", ")
        },
    );
    line(&mut text, "overhead:", {
        let tokens = |key: &str| {
            value["overhead"][key]
                .as_u64()
                .map_or_else(|| "-".to_owned(), group)
        };
        format!(
            "{} tokens per request (system prompt {}, {} tools {})",
            tokens("tokens"),
            tokens("system_prompt_tokens"),
            value["overhead"]["tools"].as_array().map_or(0, Vec::len),
            tokens("tool_tokens"),
        )
    });
    line(
        &mut text,
        "cache ttl:",
        format!(
            "{} (Anthropic prompt cache; `[cache] ttl`)",
            text_of(&value["cache"]["ttl"])
        ),
    );
    line(
        &mut text,
        "sessions:",
        format!(
            "{} ({} in this workspace)",
            text_of(&value["sessions"]),
            text_of(&value["sessions_here"])
        ),
    );
    render_credentials(&mut text, value);
    text
}

/// The session block of `status SESSION`.
fn render_session(text: &mut String, value: &Value) {
    let line = |text: &mut String, key: &str, shown: String| {
        let _ = writeln!(text, "{key:<16}{shown}");
    };
    line(text, "session:", text_of(&value["session_id"]));
    line(text, "name:", text_of(&value["session_name"]));
    line(text, "file:", text_of(&value["file"]));
    line(text, "cwd:", text_of(&value["cwd"]));
    line(
        text,
        "model:",
        format!(
            "{} ({})",
            match (value["provider"].as_str(), value["model"].as_str()) {
                (Some(provider), Some(model)) => format!("{provider}/{model}"),
                _ => "-".to_owned(),
            },
            text_of(&value["backend"])
        ),
    );
    if let Some(ids) = value["backend_session_ids"].as_object()
        && !ids.is_empty()
    {
        let shown: Vec<String> = ids
            .iter()
            .map(|(backend, id)| format!("{backend}={}", text_of(id)))
            .collect();
        line(text, "cli session:", shown.join(", "));
    }
    line(text, "thinking:", text_of(&value["thinking_level"]));
    line(text, "turns:", text_of(&value["turns"]));
    line(text, "compactions:", text_of(&value["compactions"]));
    let context = &value["context"];
    let context_line = match (
        context["tokens"].as_u64(),
        context["window"].as_u64(),
        context["percent"].as_f64(),
    ) {
        (Some(tokens), Some(window), Some(percent)) => format!(
            "{} / {} tokens ({percent:.1}%){}",
            group(tokens),
            group(window),
            if context["estimated"] == true {
                ", estimated"
            } else {
                ""
            }
        ),
        (Some(tokens), _, _) => format!("{} tokens (window unknown)", group(tokens)),
        _ => "-".to_owned(),
    };
    line(text, "context:", context_line);
    let usage_line = |usage: &Value| {
        if usage.is_null() {
            return "-".to_owned();
        }
        format!(
            "input {}, cache write {}, cache read {}, output {}",
            compact_count(usage["input_tokens"].as_u64().unwrap_or(0)),
            compact_count(usage["cache_creation_input_tokens"].as_u64().unwrap_or(0)),
            compact_count(usage["cache_read_input_tokens"].as_u64().unwrap_or(0)),
            compact_count(usage["output_tokens"].as_u64().unwrap_or(0)),
        )
    };
    line(text, "last call:", usage_line(&value["last_call_usage"]));
    line(text, "total usage:", usage_line(&value["usage"]));
    line(
        text,
        "total cost:",
        format!("${:.4}", value["total_cost_usd"].as_f64().unwrap_or(0.0)),
    );
    line(text, "last activity:", text_of(&value["last_activity"]));
    line(
        text,
        "last run:",
        if value["last_run_aborted"] == true {
            format!("aborted ({})", text_of(&value["last_error"]))
        } else {
            "completed".to_owned()
        },
    );
    line(
        text,
        "locked:",
        if value["locked"] == true {
            "yes, a run holds it now".to_owned()
        } else {
            "no".to_owned()
        },
    );
    if !value["problem"].is_null() {
        line(text, "problem:", text_of(&value["problem"]));
        line(text, "repair with:", text_of(&value["repair_command"]));
    }
}

/// The credentials and CLI backends blocks.
fn render_credentials(text: &mut String, value: &Value) {
    let line = |text: &mut String, key: &str, shown: String| {
        let _ = writeln!(text, "{key:<16}{shown}");
    };
    text.push_str("credentials:\n");
    for credential in value["credentials"].as_array().into_iter().flatten() {
        let _ = writeln!(
            text,
            "  {:<15} {}",
            text_of(&credential["provider"]),
            credential_line(credential)
        );
    }
    let waiting: Vec<&Value> = value["auth_profiles"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|profile| matches!(profile["state"].as_str(), Some("cooldown" | "disabled")))
        .collect();
    if waiting.is_empty() {
        line(text, "cooldowns:", "none".to_owned());
    } else {
        text.push_str("cooldowns:\n");
        for profile in waiting {
            let _ = writeln!(
                text,
                "  {:<15} {}",
                text_of(&profile["id"]),
                waiting_text(profile)
            );
        }
    }
    if let Some(error) = value["auth_profiles"]["error"].as_str() {
        line(text, "auth store:", error.to_owned());
    }
    text.push_str("cli backends:\n");
    for name in ["claude", "codex"] {
        let backend = &value["cli_backends"][name];
        let shown = if backend["installed"] == true {
            format!(
                "{} ({})",
                text_of(&backend["path"]),
                if backend["logged_in"] == true {
                    "logged in"
                } else {
                    "not logged in"
                }
            )
        } else {
            "not installed".to_owned()
        };
        let _ = writeln!(text, "  {name:<15} {shown}");
    }
}

/// One provider's credentials: the usable sources in the order a run tries them, and how many
/// wait out a cooldown (listed under `cooldowns:`); `none` when nothing is usable.
fn credential_line(credential: &Value) -> String {
    let sources: Vec<&Value> = credential["sources"]
        .as_array()
        .into_iter()
        .flatten()
        .collect();
    let ready: Vec<String> = sources
        .iter()
        .filter(|source| source["state"] == "ready")
        .map(|source| match source["secret"].as_str() {
            Some(secret) => format!("{} ({secret})", text_of(&source["source"])),
            None => text_of(&source["source"]),
        })
        .collect();
    let waiting = sources
        .iter()
        .filter(|source| matches!(source["state"].as_str(), Some("cooldown" | "disabled")))
        .count();
    let mut line = if !ready.is_empty() {
        ready.join(", then ")
    } else if credential["usable"] == true {
        "none needed".to_owned()
    } else if waiting > 0 {
        "none usable now".to_owned()
    } else {
        "none".to_owned()
    };
    if waiting > 0 {
        let _ = write!(line, "; {waiting} in cooldown");
    }
    line
}

/// `cooldown until 2026-12-01T10:05:00.000Z (rate_limit)`, for a profile or a source.
fn waiting_text(source: &Value) -> String {
    let state = match source["state"].as_str() {
        Some("disabled") => "disabled",
        _ => "cooldown",
    };
    match source["reason"]
        .as_str()
        .filter(|reason| !reason.is_empty())
    {
        Some(reason) => format!("{state} until {} ({reason})", text_of(&source["until"])),
        None => format!("{state} until {}", text_of(&source["until"])),
    }
}

/// `85601` → `85,601`.
fn group(number: u64) -> String {
    let digits = number.to_string();
    let mut grouped = String::new();
    for (position, digit) in digits.chars().enumerate() {
        if position > 0 && (digits.len() - position).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    grouped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_grouped_by_thousands() {
        assert_eq!(group(85_601), "85,601");
        assert_eq!(group(200_000), "200,000");
        assert_eq!(group(999), "999");
        assert_eq!(group(1_000_000), "1,000,000");
    }
}
