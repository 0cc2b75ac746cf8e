//! What every attempt of a turn shares (thinking level, sandbox, tools, hooks, MCP servers, the
//! system prompt's parts, the user message) and one attempt's settings for its model.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::env::RunEnv;
use super::models::{Candidate, chain_keys};
use super::{MAX_OUTPUT_TOKENS_SENT, TurnRequest};
use super::{PermissionMode, hooks, model_window, structured, web_search};
use crate::agent::context_files;
use crate::agent::prompt::{self, PromptInputs, PromptMode};
use crate::agent::skills;
use crate::conversation::SandboxMode;
use crate::conversation::{ContentBlock, Message, MessageContent, UserMessage};
use crate::engine::api::{ApiSettings, Credential};
use crate::error::{CliError, CliResult, Exit};
use crate::provider::http::Endpoint;
use crate::provider::{self, ApiKind, ThinkingLevel};
use crate::tools::Sandbox;
use crate::tools::policy::{PolicySpec, ToolPolicy};

/// The tool policy from config and flags: config allow/deny rules first, then the flags'.
pub(crate) fn tool_policy(context: &dyn RunEnv, args: &TurnRequest) -> CliResult<ToolPolicy> {
    let tools = &context.settings().tools;
    let mut allow = tools.allow.clone();
    allow.extend(args.allowed_tools.iter().cloned());
    let mut deny = tools.deny.clone();
    deny.extend(args.disallowed_tools.iter().cloned());
    let spec = PolicySpec {
        profile: Some(tools.profile.as_str()),
        exact: args.tools.as_deref(),
        allow: &allow,
        deny: &deny,
    };
    let policy = ToolPolicy::new(&spec).map_err(|error| {
        let hint = error.hint();
        CliError::usage(error.to_string()).with_hint(hint)
    })?;
    Ok(policy
        .with_workspace(context.workspace())
        .with_sandbox(sandbox_mode(context, args)))
}

/// The sandbox mode: `--sandbox` (or codex's and claude's flags that say the same), else claude's
/// permission mode mapped onto it, else config.
pub(crate) fn sandbox_mode(context: &dyn RunEnv, args: &TurnRequest) -> SandboxMode {
    if let Some(mode) = args.sandbox {
        return mode;
    }
    match args.permission_mode {
        Some(mode) => permission_sandbox(mode),
        None => context.settings().tools.sandbox,
    }
}

/// The sandbox mode claude's permission `mode` stands for.
pub(crate) fn permission_sandbox(mode: PermissionMode) -> SandboxMode {
    match mode {
        // plan: look, do not touch.
        PermissionMode::Plan => SandboxMode::ReadOnly,
        PermissionMode::BypassPermissions => SandboxMode::DangerFullAccess,
        // acceptEdits, dontAsk, auto, default: nothing prompts in a headless run; edits stay in
        // the workspace.
        PermissionMode::AcceptEdits
        | PermissionMode::DontAsk
        | PermissionMode::Auto
        | PermissionMode::Default => SandboxMode::WorkspaceWrite,
    }
}

/// The network by name of a run (SPEC §20): the rules in force and the run's egress proxy (none
/// for `--dry-run`), shared by the commands' sandbox and the MCP stdio servers.
pub(crate) struct RunNetwork {
    rules: pincer_egress::Policy,
    egress: Option<std::sync::Arc<crate::egress::RunEgress>>,
}

impl RunNetwork {
    /// What an MCP stdio server follows: the run's proxy and the rules' fixed routes.
    pub(crate) fn for_servers(&self) -> Option<crate::mcp::ServerNetwork> {
        let egress = self.egress.as_ref()?;
        Some(crate::mcp::ServerNetwork {
            egress: std::sync::Arc::clone(egress) as std::sync::Arc<dyn crate::tools::Egress>,
            routes: self.rules.loopback_routes(),
        })
    }
}

/// The rules of `[sandbox.network]`, `--allow-host` and claude's `--settings` (SPEC §20), each
/// pattern checked: a bad one is a usage error naming it and where it was written.
pub(crate) fn network_rules(
    context: &dyn RunEnv,
    args: &TurnRequest,
) -> CliResult<pincer_egress::Policy> {
    // What claude's Agent SDK passes as its `sandbox` option comes in `--settings`.
    let (claude_allow, claude_deny) = crate::egress::from_claude_settings(&args.settings)
        .map_err(|error| CliError::new(Exit::Usage, error))?;
    let mut config = context.settings().tools.network_rules.clone();
    config.deny.extend(claude_deny);
    let mut allow_host = claude_allow;
    allow_host.extend(args.allow_host.iter().cloned());
    crate::egress::policy(&config, &allow_host)
        .map_err(|error| CliError::new(Exit::Usage, error.to_string()))
}

/// The rules (from [`network_rules`]), in force when commands are
/// confined and the network is not open whole (what they add then is said once), with the
/// run's egress proxy (not started until a command or a server needs it; none for
/// `--dry-run`), its directory outside the workspace and `added_dirs`. Only the user's config
/// and the command line carry rules (SPEC §21). `None` when no rule is in force.
pub(crate) fn run_network(
    context: &dyn RunEnv,
    args: &TurnRequest,
    (rules, added_dirs): (pincer_egress::Policy, &[PathBuf]),
) -> CliResult<Option<RunNetwork>> {
    if rules.is_empty() {
        return Ok(None);
    }
    let mode = sandbox_mode(context, args);
    if mode == SandboxMode::DangerFullAccess
        || args.allow_network
        || context.settings().tools.network
    {
        let why = if mode == SandboxMode::DangerFullAccess {
            "danger-full-access runs commands unconfined"
        } else {
            "--allow-network or [sandbox] network = true opens the whole network"
        };
        context.warn(&format!(
            "--allow-host and [sandbox.network] have no effect on this run: {why}"
        ));
        return Ok(None);
    }
    let mut egress = None;
    if !args.dry_run {
        let roots: Vec<PathBuf> = std::iter::once(context.workspace())
            .chain(added_dirs.iter().map(PathBuf::as_path))
            .map(|root| root.canonicalize().unwrap_or_else(|_| root.to_path_buf()))
            .collect();
        let make = || {
            crate::egress::RunEgress::new(rules.clone(), &roots, context.warner())
                .map(std::sync::Arc::new)
                .map_err(|error| {
                    CliError::new(
                        Exit::RunFailed,
                        format!("cannot make the directory of the egress proxy: {error}"),
                    )
                })
        };
        // A front-end that keeps its MCP servers across turns keeps the proxy they reach too.
        egress = Some(match &args.kept_mcp {
            Some(kept) => kept.egress(&rules, make)?,
            None => make()?,
        });
    }
    Ok(Some(RunNetwork { rules, egress }))
}

/// The commands' sandbox under the run's network rules, when there are any.
fn network_by_name(sandbox: &mut Sandbox, network: Option<RunNetwork>) {
    let Some(RunNetwork { rules, egress }) = network else {
        return;
    };
    if let Some(egress) = egress {
        sandbox.exec.egress = crate::tools::EgressHandle(Some(egress));
    }
    sandbox.web.network_rules = Some(std::sync::Arc::new(rules.clone()));
    sandbox.exec.network_rules = rules;
}

/// Whether the provider's web search may run under the run's network (SPEC §20, issue #50: with
/// the network off or limited, a provider-side web tool is off unless its host is allowed). It
/// reaches the web from the provider's side, so the host that stands for it is the provider's
/// own API host (`api.anthropic.com`, `api.openai.com`, …): with rules in force, the search is
/// on only when they admit that host on its port; with the network closed (the confined
/// sandbox's default, no rule) it is off; either way with a warning saying what turns it on.
/// With the network open (`--allow-network`, `danger-full-access`) it is on.
fn web_search_allowed(
    context: &dyn RunEnv,
    sandbox: &Sandbox,
    resolved: &super::models::ResolvedModel,
) -> bool {
    let host = reqwest::Url::parse(&resolved.base_url)
        .ok()
        .and_then(|url| Some((url.host_str()?.to_owned(), url.port_or_known_default()?)));
    let Some(rules) = &sandbox.web.network_rules else {
        if sandbox.mode == SandboxMode::DangerFullAccess || sandbox.exec.network {
            return true;
        }
        let allow = host.as_ref().map_or_else(
            || "the provider's host".to_owned(),
            |(host, _)| format!("--allow-host {host}"),
        );
        context.warn(&format!(
            "web search is off for {}: the sandbox closes the network, and the provider's web \
             search reaches the web for the model ({allow}, the host that stands for it, turns \
             it on; so do --allow-network and --sandbox danger-full-access)",
            resolved.reference
        ));
        return false;
    };
    let Some((host, port)) = host else {
        return false;
    };
    let admitted = pincer_egress::Host::parse(host.trim_start_matches('[').trim_end_matches(']'))
        .is_ok_and(|parsed| rules.admit(&parsed, port).is_ok());
    if !admitted {
        context.warn(&format!(
            "web search is off for {}: the network rules limit the network and do not allow \
             {host}, the provider's host that stands for its web search (--allow-host {host} \
             turns it on)",
            resolved.reference
        ));
    }
    admitted
}

/// The skills of this turn (SPEC §6.5), found only when the prompt lists them: `full` mode, no
/// `--system-prompt` replacement, not a heartbeat run. A `--skill` that cannot apply says so.
pub(crate) fn turn_skills(
    context: &dyn RunEnv,
    args: &TurnRequest,
    (mode, replaced): (PromptMode, bool),
    written: &crate::consumed::Written,
) -> skills::Discovery {
    let unused = if replaced {
        Some("--system-prompt replaces the built prompt")
    } else if mode != PromptMode::Full {
        Some("only --prompt-mode full lists skills")
    } else if args.heartbeat {
        Some("heartbeat runs list no skills")
    } else {
        None
    };
    if let Some(reason) = unused {
        if !args.skill.is_empty() {
            context.warn(&format!("--skill has no effect on this run: {reason}"));
        }
        return skills::Discovery::default();
    }
    super::discover_skills(context, &args.skill, !args.no_skills, written)
}

/// The tools' sandbox: confinement for `mode` around the workspace and the added directories,
/// exec's environment — pincer's minus `[tools.exec] clear_env`, every key variable of any
/// provider or profile and any variable holding a known key, plus `[tools.exec] env` (SPEC
/// §10) — and what web_fetch may reach (the policy goes along so that redirect targets are
/// checked against it too). Hooks run with the same environment. A weaker protection than
/// SPEC §10's is said once on stderr.
pub(crate) fn exec_sandbox(
    context: &dyn RunEnv,
    (mode, added_dirs, network): (SandboxMode, &[PathBuf], bool),
    temp_dir: Option<&Path>,
    chain: &[Candidate],
    policy: &ToolPolicy,
) -> CliResult<Sandbox> {
    let settings = &context.settings().tools.exec;
    let known = context.known_keys()?;
    let keys = known.patterns(&chain_keys(chain));
    let mut sandbox = Sandbox::new(
        mode,
        context.workspace(),
        added_dirs,
        &context.settings().paths,
        temp_dir,
    );
    sandbox.exec.network = network;
    let workspace = &context.settings().workspace;
    sandbox.protect_context_files(&crate::agent::context_files::read_only_names(
        &workspace.files,
        &workspace.writable,
    ));
    sandbox.web = crate::tools::WebAccess {
        allow_private: context.settings().tools.web_fetch_allow_private,
        policy: Some(std::sync::Arc::new(policy.clone())),
        network_rules: None,
    };
    sandbox.exec.environment = Some(std::sync::Arc::new(crate::tools::child_environment(
        std::env::vars_os(),
        &known.clear_list(&settings.clear_env),
        &keys,
        &settings.env,
    )));
    let warn = context.warner();
    sandbox.exec.notice = crate::tools::Notice(Some(std::sync::Arc::new(move |text: &str| {
        warn(&format!("exec: {text}"));
    })));
    Ok(sandbox)
}

/// OpenAI and Gemini requests carry reasoning settings only for models the catalog (or config)
/// marks as reasoning models, since the others reject them: say so when a flag asked for
/// thinking that will not be sent.
pub(crate) fn warn_unapplied_thinking(
    context: &dyn RunEnv,
    args: &TurnRequest,
    candidate: &Candidate,
    thinking: ThinkingLevel,
) {
    let flag = match (args.thinking, args.max_thinking_tokens) {
        (Some(_), _) => format!("--thinking {}", thinking.as_str()),
        (None, Some(tokens)) => format!("--max-thinking-tokens {tokens}"),
        (None, None) => return,
    };
    let resolved = &candidate.resolved;
    if thinking == ThinkingLevel::Off
        || resolved.cli.is_some()
        || resolved.api == ApiKind::Anthropic
    {
        return;
    }
    let reference = &resolved.reference;
    let reasons = context
        .settings()
        .model_info(&reference.provider, &reference.model)
        .is_some_and(|info| info.reasoning);
    if !reasons {
        context.warn(&format!(
            "{flag} is not sent: no catalog entry says {reference} reasons; if it does, set \
             reasoning = true under [providers.{}.models.\"{}\"] in config.toml",
            reference.provider, reference.model
        ));
    }
}

/// What the turn found and started before its attempts, for [`shared_settings`].
pub(crate) struct TurnFacts<'a> {
    /// The tool policy, the MCP tools joined.
    pub(crate) policy: ToolPolicy,
    /// The MCP servers started for the turn.
    pub(crate) mcp: std::sync::Arc<crate::mcp::McpSet>,
    /// The MCP servers declared for the run.
    pub(crate) mcp_config: crate::mcp::McpConfig,
    /// `--add-dir` and `tools.add_dirs`, canonical.
    pub(crate) added_dirs: &'a [PathBuf],
    /// The thinking level the session recorded.
    pub(crate) recorded_thinking: Option<ThinkingLevel>,
    /// `--json-schema`'s schema.
    pub(crate) output_schema: Option<std::sync::Arc<crate::structured::OutputSchema>>,
    /// The network rules in force, and their proxy.
    pub(crate) network: Option<RunNetwork>,
    /// The run's hooks.
    pub(crate) hook_set: crate::hooks::HookSet,
    /// The session the turn writes, if it keeps one.
    pub(crate) session: super::SessionRef<'a>,
    /// What earlier runs wrote to consumed files and nobody approved.
    pub(crate) written: &'a crate::consumed::Written,
}

/// What every attempt shares — thinking level, sandbox, the system prompt's parts — and the
/// user message of the turn.
pub(crate) fn shared_settings(
    context: &dyn RunEnv,
    args: &TurnRequest,
    input: super::TurnInput,
    chain: &[Candidate],
    facts: TurnFacts<'_>,
) -> CliResult<(Shared, Message)> {
    let TurnFacts {
        policy,
        mcp,
        mcp_config,
        added_dirs,
        recorded_thinking,
        output_schema,
        network,
        hook_set,
        session,
        written,
    } = facts;
    // claude's --max-thinking-tokens: the exact budget where the protocol takes one, the nearest
    // level everywhere else (and in the session).
    let budget_level = args
        .max_thinking_tokens
        .map(provider::anthropic::request::level_for_budget);
    let thinking_asked = args
        .thinking
        .or(budget_level)
        .or(recorded_thinking)
        .or(context.settings().thinking);
    let thinking = thinking_asked.unwrap_or(ThinkingLevel::Off);
    warn_unapplied_thinking(context, args, &chain[0], thinking);
    let sandbox_mode = sandbox_mode(context, args);
    let prompt_mode = args.prompt_mode.unwrap_or(PromptMode::Full);
    let skills = turn_skills(
        context,
        args,
        (prompt_mode, input.system_replace.is_some()),
        written,
    );
    let (files, mut refused) = workspace_files(context, args, prompt_mode, written);
    refused.extend(skills.refused.iter().cloned());
    // Issue #45: claude reads the workspace's .claude settings itself and runs their hooks; one
    // pincer would refuse (a run wrote it, or it links out) keeps claude to the user's settings.
    let claude_settings_refused = if chain
        .iter()
        .any(|candidate| candidate.resolved.cli == Some(crate::backend::CliBackend::Claude))
    {
        crate::consumed::refused_for_child(&crate::consumed::CLAUDE, context.workspace(), written)
    } else {
        Vec::new()
    };
    for refusal in &claude_settings_refused {
        context.warn(&format!(
            "{} (claude-cli runs with --setting-sources=user: no project or local settings)",
            refusal.warning()
        ));
    }
    let claude_project_settings = claude_settings_refused.is_empty();
    refused.extend(claude_settings_refused);
    // The private temp dir of exec (SPEC §10): made by the first command, removed with
    // `Shared`, on every path.
    let exec_temp = (!args.dry_run && sandbox_mode != SandboxMode::DangerFullAccess)
        .then(crate::tools::PrivateTemp::new);
    let mut sandbox = exec_sandbox(
        context,
        (
            sandbox_mode,
            added_dirs,
            args.allow_network || context.settings().tools.network,
        ),
        exec_temp.as_ref().map(crate::tools::PrivateTemp::path),
        chain,
        &policy,
    )?;
    network_by_name(&mut sandbox, network);
    // The listed SKILL.md files and their directories are readable, never writable (§6.5).
    for skill in skills.listed() {
        sandbox.allow_reading(&skill.path);
    }
    let hooks = hooks::for_run(
        args,
        hook_set,
        &hooks::RunFacts {
            workspace: context.workspace(),
            session: (session.id, session.path),
            model: &chain[0].resolved.reference.model,
            sandbox: &sandbox,
            sandbox_mode,
        },
    );
    let mut content = vec![ContentBlock::text(&input.prompt.text)];
    content.extend(input.images);
    let redactor = tool_redactor(context, &mcp, chain)?;
    let shared = Shared {
        cache_key: session.id.map(str::to_owned),
        redactor,
        policy,
        mcp,
        mcp_config,
        hooks,
        sandbox_mode,
        sandbox,
        _exec_temp: exec_temp,
        now: prompt_date(),
        prompt_mode,
        files,
        refused,
        claude_project_settings,
        skills,
        git: (prompt_mode == PromptMode::Full && input.system_replace.is_none())
            .then(|| {
                // Read inside the exec sandbox, whatever the run's mode: a repository must not
                // make pincer run anything (SPEC §10).
                let confined = Sandbox::new(
                    SandboxMode::ReadOnly,
                    context.workspace(),
                    &[],
                    &context.settings().paths,
                    None,
                );
                // The probe remembered for `status` spares each run a probe of its own (read
                // only: --dry-run writes nothing).
                let memory = if args.dry_run {
                    crate::tools::ProbeMemory::ReadOnly
                } else {
                    crate::tools::ProbeMemory::Reuse
                };
                let (protection, _) = crate::tools::ExecProtection::reported(
                    &confined,
                    &context.settings().paths.state_dir,
                    memory,
                );
                crate::agent::git::git_summary(context.workspace(), &confined, Some(&protection))
            })
            .flatten(),
        system_replace: input.system_replace,
        appends: input.appends,
        prompt: input.prompt.text,
        thinking,
        thinking_asked,
        thinking_budget: args.max_thinking_tokens.filter(|tokens| *tokens > 0),
        output_schema,
        web_search: web_search::Asked::new(args.web_search, context.settings()),
    };
    // The git change counts follow the prompt, after every cache breakpoint (SPEC §6.1, §7); a
    // CLI child is given the prompt alone.
    if let Some(git) = shared
        .git
        .as_ref()
        .filter(|_| chain[0].resolved.cli.is_none())
    {
        content.push(ContentBlock::text(prompt::git_status_note(git)));
    }
    let user = Message::User(UserMessage {
        content: MessageContent::Blocks(content),
        timestamp: crate::conversation::now_millis(),
    });
    Ok((shared, user))
}

/// The date and the UTC offset, not the time of day: the system prompt leads every request,
/// and a prompt that changed every minute would defeat prompt caching for cron turns.
pub(crate) fn prompt_date() -> String {
    time::OffsetDateTime::now_local()
        .unwrap_or_else(|_| time::OffsetDateTime::now_utc())
        .format(time::macros::format_description!(
            "[year]-[month]-[day] ([weekday]), UTC[offset_hour sign:mandatory]:[offset_minute]"
        ))
        .unwrap_or_default()
}

/// The workspace context files of the system prompt (full prompt mode only), and those that
/// were refused (each also a warning).
pub(crate) fn workspace_files(
    context: &dyn RunEnv,
    args: &TurnRequest,
    prompt_mode: PromptMode,
    written: &crate::consumed::Written,
) -> (
    Vec<context_files::ContextFile>,
    Vec<crate::consumed::Refusal>,
) {
    if args.no_context_files || prompt_mode != PromptMode::Full {
        return (Vec::new(), Vec::new());
    }
    let paths = &context.settings().paths;
    let loaded = context_files::load(
        context.workspace(),
        &paths.workspace_dir,
        &[&paths.config_dir, &paths.data_dir, &paths.state_dir],
        &context.settings().workspace.files,
        args.heartbeat,
        context.settings().workspace.max_file_chars,
        written,
    );
    for skipped in &loaded.skipped {
        context.warn(&skipped.warning());
    }
    if args.heartbeat
        && !loaded
            .files
            .iter()
            .any(|file| file.path.file_name() == Some(context_files::HEARTBEAT_FILE.as_ref()))
    {
        context.warn(&format!(
            "--heartbeat: no HEARTBEAT.md in {} or {}, so the agent has no checklist to check; \
             write the things to watch there, one per line",
            context.workspace().display(),
            context.settings().paths.workspace_dir.display()
        ));
    }
    (loaded.files, loaded.skipped)
}

/// What every attempt of the chain shares.
pub(crate) struct Shared {
    /// The session's id, sent where a provider routes requests to its prompt cache by a key.
    pub(crate) cache_key: Option<String>,
    /// What tool output is scrubbed of ([`tool_redactor`]).
    pub(crate) redactor: crate::redact::Redactor,
    pub(crate) policy: ToolPolicy,
    /// The MCP servers the API path calls (empty when nothing was started).
    pub(crate) mcp: std::sync::Arc<crate::mcp::McpSet>,
    /// The MCP servers as configured, handed to a CLI backend.
    pub(crate) mcp_config: crate::mcp::McpConfig,
    /// The run's hooks: fired by the API engine, handed to a CLI backend.
    pub(crate) hooks: std::sync::Arc<crate::hooks::Hooks>,
    pub(crate) sandbox_mode: SandboxMode,
    pub(crate) sandbox: Sandbox,
    /// The private temp dir of exec, removed with the turn's state.
    pub(crate) _exec_temp: Option<crate::tools::PrivateTemp>,
    pub(crate) now: String,
    pub(crate) prompt_mode: PromptMode,
    pub(crate) files: Vec<context_files::ContextFile>,
    /// The consumed files not read (context files, workspace skills, `.mcp.json`), for the
    /// init event (issue #45); each was also a warning.
    pub(crate) refused: Vec<crate::consumed::Refusal>,
    /// Whether a claude-cli child may load the workspace's `.claude` settings (none of them
    /// refused).
    pub(crate) claude_project_settings: bool,
    pub(crate) skills: skills::Discovery,
    pub(crate) git: Option<prompt::GitSummary>,
    pub(crate) system_replace: Option<String>,
    pub(crate) appends: Vec<String>,
    /// The prompt's text (a CLI child is given it as is).
    pub(crate) prompt: String,
    pub(crate) thinking: ThinkingLevel,
    /// The level asked for by flag, session or config, if any (a CLI child keeps its own
    /// default otherwise).
    pub(crate) thinking_asked: Option<ThinkingLevel>,
    /// `--max-thinking-tokens`, when given and not 0.
    pub(crate) thinking_budget: Option<u64>,
    /// `--json-schema`.
    pub(crate) output_schema: Option<std::sync::Arc<crate::structured::OutputSchema>>,
    /// `--web-search` / `tools.web_search`.
    pub(crate) web_search: web_search::Asked,
}

/// One attempt's settings, with the system prompt built for its model.
pub(crate) struct Attempt {
    pub(crate) settings: ApiSettings,
    pub(crate) prompt: prompt::BuiltPrompt,
}

/// The tools a candidate is offered: a CLI child's own as the policy maps onto them, else the
/// built-in tools and the MCP tools the policy lets through (SPEC §13).
pub(crate) fn attempt_tools(
    shared: &Shared,
    candidate: &Candidate,
) -> Vec<crate::conversation::ToolDefinition> {
    let resolved = &candidate.resolved;
    // One editing vocabulary: apply_patch on the Responses API, write and edit elsewhere.
    let tool_names =
        crate::tools::for_model(&shared.policy.offered(), resolved.api == ApiKind::OpenAi);
    match resolved.cli {
        // The prompt describes the child's own tools, as the policy maps onto them.
        Some(backend) => crate::backend::prompt_tools(
            backend,
            &shared.policy,
            shared.sandbox_mode,
            shared.web_search.asked,
        ),
        None => {
            // The built-in tools, then the MCP tools the policy lets through (SPEC §13).
            let offered_mcp = shared.policy.offered_mcp();
            let mut tools = crate::tools::definitions(&tool_names);
            tools.extend(
                shared
                    .mcp
                    .tool_definitions()
                    .into_iter()
                    .filter(|tool| offered_mcp.contains(&tool.name)),
            );
            tools
        }
    }
}

/// Scrubs keys from tool output (`env`, a `.env` file) before it is stored or sent: the
/// chain's (a key command's included), every key the auth store holds or refers to whatever its
/// provider, the key variables' values, and the MCP servers' tokens: a server may echo what it
/// was configured with.
pub(crate) fn tool_redactor(
    context: &dyn RunEnv,
    mcp: &crate::mcp::McpSet,
    chain: &[Candidate],
) -> CliResult<crate::redact::Redactor> {
    let mcp_secrets = mcp.secrets();
    let keys = context.known_keys()?.patterns(&chain_keys(chain));
    Ok(crate::redact::Redactor::with_environment(
        keys.into_iter()
            .chain(mcp_secrets.iter().map(String::as_str)),
        crate::settings::process_env,
    ))
}

pub(crate) fn attempt_settings(
    context: &dyn RunEnv,
    args: &TurnRequest,
    shared: &Shared,
    candidate: &Candidate,
) -> Attempt {
    let resolved = &candidate.resolved;
    let model_info = context
        .settings()
        .model_info(&resolved.reference.provider, &resolved.reference.model);
    let max_output_tokens = model_info.as_ref().map_or(8_192, |info| {
        info.max_output.clamp(1, MAX_OUTPUT_TOKENS_SENT)
    });
    let tools = attempt_tools(shared, candidate);
    let built = prompt::build(&PromptInputs {
        workspace: context.workspace(),
        model: &candidate.model_ref,
        tools: &tools,
        mode: shared.prompt_mode,
        replace: shared.system_replace.as_deref(),
        append: &shared.appends,
        now: &shared.now,
        sandbox: shared.sandbox_mode.as_str(),
        added_dirs: &shared.sandbox.added_dirs,
        files: &shared.files,
        skills: &shared.skills.loaded,
        heartbeat: args.heartbeat,
        git: shared.git.as_ref(),
    });
    let credential = candidate
        .credentials
        .first()
        .cloned()
        .unwrap_or(Credential {
            profile_id: None,
            source: "none".to_owned(),
            key: None,
            cooling: false,
        });
    let redactor = shared.redactor.clone();
    let web_search = web_search::for_attempt(
        context.settings(),
        shared.web_search,
        (resolved, !tools.is_empty()),
        &|message| context.warn(message),
    )
    .filter(|_| web_search_allowed(context, &shared.sandbox, resolved));
    let compaction = &context.settings().compaction;
    let settings = ApiSettings {
        api: resolved.api,
        endpoint: Endpoint {
            provider: resolved.reference.provider.clone(),
            base_url: resolved.base_url.clone(),
            api_key: credential.key.clone(),
            headers: resolved.headers.clone(),
        },
        provider: resolved.reference.provider.clone(),
        model: resolved.reference.model.clone(),
        system_prompt: built.text.clone(),
        cache_key: shared.cache_key.clone(),
        cache_ttl: context.settings().cache_ttl,
        trace: crate::telemetry::child_trace(),
        tools,
        thinking: shared.thinking,
        thinking_budget: shared.thinking_budget,
        max_output_tokens,
        context_window: model_window(
            context,
            &resolved.reference.provider,
            &resolved.reference.model,
        ),
        reasoning_model: model_info.as_ref().is_some_and(|info| info.reasoning),
        web_search,
        prices: model_info.as_ref().map(crate::config::ModelInfo::prices),
        max_turns: args.max_turns,
        max_budget_usd: args.max_budget_usd,
        idle_timeout: super::seconds(args.idle_timeout)
            .unwrap_or(Duration::from_secs(context.settings().timeouts.idle_secs)),
        workspace: context.workspace().to_path_buf(),
        policy: shared.policy.clone(),
        mcp: std::sync::Arc::clone(&shared.mcp),
        hooks: std::sync::Arc::clone(&shared.hooks),
        sandbox: shared.sandbox.clone(),
        compaction: crate::agent::compaction::CompactionRules {
            enabled: compaction.enabled,
            reserve_tokens: compaction.reserve_tokens,
            keep_recent_tokens: compaction.keep_recent_tokens,
        },
        credential,
        spare_credentials: candidate.credentials.iter().skip(1).cloned().collect(),
        retry: super::retry_policy(context),
        redactor,
        structured: structured::plan(context, shared.output_schema.as_ref(), resolved),
    };
    Attempt {
        settings,
        prompt: built,
    }
}
