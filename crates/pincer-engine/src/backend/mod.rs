//! The CLI backends (SPEC §4.2): a turn delegated to the `claude` or `codex` binary.
//!
//! This module knows the two children: how to call them ([`Invocation`]: argv, environment,
//! stdin, for fresh and resumed turns), how to read them (`claude` stream-json and `codex exec
//! --json` events, translated into pincer's own events and session entries as they arrive), how
//! to supervise them ([`child`]: own process group, idle watchdog, `--timeout` and signals kill
//! the group) and how to read their failures (classified like provider errors, §9.2).
//! The CLI engine (`engine/cli.rs`) runs a turn with these parts.

pub mod child;
pub mod claude;
pub mod codex;
pub mod hooks;
pub mod mcp;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::conversation::{
    AssistantBlock, Message, StopReason, StreamEvent, TokenUsage, ToolDefinition,
};
use crate::provider::classify::{FailureKind, classify_parts};
use crate::provider::error::ErrorDetails;
use crate::provider::{ProviderError, ThinkingLevel};
use crate::session::store::SessionError;
use crate::tools::SandboxMode;
use crate::tools::policy::ToolPolicy;

/// Prompts longer than this (bytes) go to the child's stdin rather than its argv: far below the
/// kernel's 128 KiB limit for one argument, and it keeps long pasted input out of `ps`.
pub const PROMPT_ARG_LIMIT: usize = 8 * 1024;

/// Characters of pincer's transcript carried into a fresh child session after a stale one.
const SEED_SUMMARY_CHARS: usize = 24_000;

/// Which CLI a turn is delegated to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CliBackend {
    /// Claude Code (`claude -p`).
    Claude,
    /// OpenAI Codex (`codex exec`).
    Codex,
}

impl CliBackend {
    /// The backend for a provider name (`claude-cli`, `codex-cli`).
    pub fn from_provider(provider: &str) -> Option<CliBackend> {
        match provider {
            "claude-cli" => Some(CliBackend::Claude),
            "codex-cli" => Some(CliBackend::Codex),
            _ => None,
        }
    }

    /// The variables the CLI itself reads an API key from. The only key variables its child
    /// may inherit, and only when its `clear_env` leaves them out: the user chose to have the
    /// CLI use that key rather than its own login.
    pub fn own_key_variables(self) -> &'static [&'static str] {
        match self {
            CliBackend::Claude => &["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"],
            CliBackend::Codex => &["OPENAI_API_KEY", "CODEX_API_KEY"],
        }
    }

    /// The provider / backend name (`claude-cli`, `codex-cli`).
    pub fn name(self) -> &'static str {
        match self {
            CliBackend::Claude => "claude-cli",
            CliBackend::Codex => "codex-cli",
        }
    }

    /// The `customType` of the entry recording the child's session id.
    pub fn custom_type(self) -> String {
        format!(
            "{}{}",
            crate::session::summary::PINCER_CUSTOM_PREFIX,
            self.name()
        )
    }

    /// The model name the child's `--model` / `-m` takes for pincer's model id.
    ///
    /// claude understands its own aliases (`opus`, `sonnet`, `haiku`, `opusplan`, `default`) and
    /// full ids; pincer's versioned aliases (`sonnet-4.5`, `opus-4.1`, …) become the catalog's
    /// full id. codex takes OpenAI ids; pincer's catalog aliases become the id they name.
    /// `alias` is what the model catalog makes of `model` (`provider`, full id), if anything.
    pub fn child_model(self, model: &str, alias: Option<(&str, &str)>) -> String {
        let model = model.trim();
        match self {
            CliBackend::Claude => {
                if matches!(
                    model,
                    "opus" | "sonnet" | "haiku" | "opusplan" | "default" | "best"
                ) || model.starts_with("claude-")
                {
                    return model.to_owned();
                }
                match alias {
                    Some(("anthropic", id)) => id.to_owned(),
                    _ => model.to_owned(),
                }
            }
            CliBackend::Codex => match alias {
                Some(("openai", id)) => id.to_owned(),
                _ => model.to_owned(),
            },
        }
    }
}

/// Whether `id` is a child session id as claude and codex make them: a UUID, hyphenated
/// (claude's session ids, codex's thread ids). The id a turn resumes comes from the session
/// file, which may have been shared or edited: nothing else reaches the child's argv.
pub fn is_child_session_id(id: &str) -> bool {
    // 36 characters is the hyphenated form only (the simple, braced and URN forms differ).
    id.len() == 36 && uuid::Uuid::try_parse(id).is_ok()
}

/// Why `model` cannot be given to a child as its model name, if it cannot. The name may come
/// from a session file; even attached with `=` it must not read as an option or hold
/// characters no model name has.
pub fn child_model_problem(model: &str) -> Option<&'static str> {
    if model.is_empty() {
        Some("it is empty")
    } else if model.starts_with('-') {
        Some("it starts with '-'")
    } else if model
        .chars()
        .any(|character| character.is_whitespace() || character.is_control())
    {
        Some("it holds white space or control characters")
    } else {
        None
    }
}

/// One CLI backend, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackendSettings {
    /// Default: `claude` / `codex`.
    pub command: String,
    /// Default: empty.
    pub extra_args: Vec<String>,
    /// Default: `settings::DEFAULT_CLEAR_ENV`.
    pub clear_env: Vec<String>,
    /// Default: empty.
    pub env: BTreeMap<String, String>,
}

/// Where the stream readers (`claude`, `codex`) put what the child does, as they read it: the
/// CLI engine's recorder writes it to pincer's session and reports it as events. The readers only
/// translate; they keep no session and emit nothing themselves.
pub trait ChildRecord {
    /// Text of the answer as it streams.
    fn text_delta(&mut self, text: &str);
    /// A neutral event of the child's model call as it streams.
    fn stream(&mut self, event: &StreamEvent);
    /// Start (or continue) the assistant message `id`; another id completes the one before.
    fn begin(&mut self, id: &str) -> Result<(), SessionError>;
    /// Add a content block to the message being assembled.
    fn push(&mut self, block: AssistantBlock);
    /// The usage of the message being assembled (a complete snapshot).
    fn set_usage(&mut self, usage: TokenUsage);
    /// The usage of the message being assembled so far.
    fn usage(&self) -> Option<TokenUsage>;
    /// The provider's stop word of the message being assembled.
    fn set_stop(&mut self, reason: &str);
    /// Complete the message being assembled (`failure`: as aborted or failed, with why).
    fn flush(&mut self, failure: Option<(StopReason, String)>) -> Result<(), SessionError>;
    /// A tool result the child reported.
    fn tool_result(
        &mut self,
        call_id: &str,
        text: &str,
        is_error: bool,
        details: Option<serde_json::Value>,
    ) -> Result<(), SessionError>;
    /// The child compacted its own session.
    fn compaction(
        &mut self,
        trigger: &str,
        pre_tokens: Option<u64>,
        post_tokens: Option<u64>,
    ) -> Result<(), SessionError>;
    /// The child retries its own API call.
    fn child_retry(&mut self, attempt: Option<u64>, delay_ms: Option<u64>, error: String);
}

/// What a delegated turn asks of the child.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    /// Which CLI.
    pub backend: CliBackend,
    /// Its settings (`[backends.NAME]`).
    pub settings: &'a BackendSettings,
    /// The model as the child takes it ([`CliBackend::child_model`]).
    pub model: &'a str,
    /// The full system prompt, workspace context and appended texts included.
    pub system_prompt: &'a str,
    /// The user's prompt (stdin block included).
    pub prompt: &'a str,
    /// Images attached with `--image`, as absolute paths.
    pub images: &'a [PathBuf],
    /// The tool policy.
    pub policy: &'a ToolPolicy,
    /// The sandbox mode.
    pub sandbox: SandboxMode,
    /// Extra roots (`--add-dir`, `tools.add_dirs`), absolute: claude's and codex's `--add-dir`.
    pub added_dirs: &'a [PathBuf],
    /// `--web-search`: claude's `WebSearch` tool offered and allowed, codex's
    /// `web_search="live"`.
    pub web_search: bool,
    /// The reasoning level, when one was asked for.
    pub thinking: Option<ThinkingLevel>,
    /// `--max-turns`, passed to claude (codex has no such flag).
    pub max_turns: Option<u32>,
    /// `--max-budget-usd`, passed to claude.
    pub max_budget_usd: Option<f64>,
    /// The child session to resume, when there is one.
    pub resume: Option<&'a str>,
    /// The id a fresh claude session gets (`--session-id`), so it is known before any output.
    pub fresh_session_id: &'a str,
    /// Where the system prompt file is written.
    pub system_prompt_file: &'a Path,
    /// The run's MCP servers, which the child starts itself (SPEC §13).
    pub mcp: &'a crate::mcp::McpConfig,
    /// claude: where the `--mcp-config` file for them is written, when there are any.
    pub mcp_config_file: Option<&'a Path>,
    /// The run's hooks, which the child runs itself (SPEC §14).
    pub hooks: &'a crate::hooks::HookSet,
    /// claude: where the `--settings` file with them is written, when there are any.
    pub settings_file: Option<&'a Path>,
    /// claude: whether it may load the workspace's `.claude` settings; when not (pincer refused
    /// one, issue #45), `--setting-sources=user`.
    pub project_settings: bool,
    /// claude: `--json-schema`, the schema inline (claude takes no file for it).
    pub json_schema: Option<&'a Value>,
    /// codex: `--output-schema FILE`, the schema's file in OpenAI's strict form.
    pub output_schema_file: Option<&'a Path>,
}

/// How to start the child.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    /// The executable.
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Bytes for its stdin (the prompt when it is long); `None` = stdin is /dev/null.
    pub stdin: Option<Vec<u8>>,
}

/// The child's environment, built explicitly: pincer's own minus `clear_env`, minus every key
/// variable of any provider or profile (`variables`) and any variable holding a known key
/// (`secrets`), plus `env`. The one exception is the CLI's own key variables that `clear_env`
/// does not list ([`CliBackend::own_key_variables`]): they pass as they are. Nothing is
/// inherited implicitly, so a removed key cannot come back (SPEC §4.2.6, §10).
pub fn child_environment(
    (backend, settings): (CliBackend, &BackendSettings),
    parent: impl Iterator<Item = (OsString, OsString)>,
    (variables, secrets): (&[String], &[&str]),
) -> Vec<(OsString, OsString)> {
    let parent: Vec<(OsString, OsString)> = parent.collect();
    let kept: Vec<&str> = backend
        .own_key_variables()
        .iter()
        .copied()
        .filter(|name| !settings.clear_env.iter().any(|cleared| cleared == name))
        .collect();
    let mut clear = settings.clear_env.clone();
    clear.extend(
        variables
            .iter()
            .filter(|name| !kept.contains(&name.as_str()))
            .cloned(),
    );
    // Added back after the filters, so that a key's value does not remove its own variable.
    let mut add: BTreeMap<String, String> = parent
        .iter()
        .filter(|(name, _)| kept.iter().any(|kept| name.as_os_str() == *kept))
        .filter_map(|(name, value)| Some((name.to_str()?.to_owned(), value.to_str()?.to_owned())))
        .collect();
    add.extend(settings.env.clone());
    crate::tools::child_environment(parent.into_iter(), &clear, secrets, &add)
}

/// The argv, and stdin, of one child run.
pub fn invocation(request: &Request<'_>) -> Invocation {
    let (prompt, via_stdin) = prompt_text(request);
    let mut args = match request.backend {
        CliBackend::Claude => claude_args(request),
        CliBackend::Codex => codex_args(request),
    };
    args.extend(request.settings.extra_args.iter().cloned());
    // `--` ends the options: a prompt starting with `-` stays a prompt, and variadic options
    // (claude's `--allowedTools`, codex's `--image`) cannot swallow it.
    match request.backend {
        CliBackend::Claude => {
            if !via_stdin {
                args.push("--".to_owned());
                args.push(prompt.clone());
            }
        }
        CliBackend::Codex => {
            args.push("--".to_owned());
            if let Some(thread) = request.resume {
                args.push(thread.to_owned());
            }
            args.push(if via_stdin {
                "-".to_owned()
            } else {
                prompt.clone()
            });
        }
    }
    Invocation {
        program: request.settings.command.clone(),
        args,
        stdin: via_stdin.then(|| prompt.into_bytes()),
    }
}

/// The prompt the child gets (claude references images as `@path` in it), and whether it goes
/// through stdin.
fn prompt_text(request: &Request<'_>) -> (String, bool) {
    let mut prompt = request.prompt.to_owned();
    if request.backend == CliBackend::Claude && !request.images.is_empty() {
        prompt.push_str("\n\n");
        for image in request.images {
            prompt.push('@');
            prompt.push_str(&image.to_string_lossy());
            prompt.push('\n');
        }
        prompt.truncate(prompt.trim_end().len());
    }
    let via_stdin = prompt.len() > PROMPT_ARG_LIMIT;
    (prompt, via_stdin)
}

fn claude_args(request: &Request<'_>) -> Vec<String> {
    let mut args: Vec<String> = [
        "-p",
        "--output-format",
        "stream-json",
        "--verbose",
        // Always: text mode streams token by token, and per-call usage comes from
        // `message_delta`. pincer shows the raw deltas only with --include-partial-messages.
        "--include-partial-messages",
    ]
    .iter()
    .map(|arg| (*arg).to_owned())
    .collect();
    // Every value is attached with `=` (here and below): a value is then never a word of its
    // own that the child could read as an option — claude's `--resume` takes its value only
    // optionally, so `--resume --settings=…` would be a resume and a settings file.
    args.push(format!("--model={}", request.model));
    if let Some(effort) = request.thinking.and_then(claude_effort) {
        args.push(format!("--effort={effort}"));
    }
    // The file variant: the prompt (workspace files included) can be large, and argv is
    // visible to every user of the machine.
    args.push(format!(
        "--append-system-prompt-file={}",
        request.system_prompt_file.to_string_lossy()
    ));
    match request.resume {
        Some(id) => args.push(format!("--resume={id}")),
        None => args.push(format!("--session-id={}", request.fresh_session_id)),
    }
    let mut tools = claude_tools(request.policy, request.sandbox);
    if request.web_search {
        // Outside the policy's mapping: the search is asked for by name, not by profile.
        tools.offered.push(CLAUDE_WEB_SEARCH.to_owned());
        tools.allowed.push(CLAUDE_WEB_SEARCH.to_owned());
    }
    args.push(format!("--tools={}", tools.offered.join(",")));
    if let Some(file) = request.mcp_config_file {
        args.push(format!("--mcp-config={}", file.to_string_lossy()));
        let (allowed, disallowed) = mcp::claude_permissions(request.mcp, request.policy);
        tools.allowed.extend(allowed);
        tools.disallowed.extend(disallowed);
    }
    if request.mcp.strict {
        args.push("--strict-mcp-config".to_owned());
    }
    if let Some(file) = request.settings_file {
        args.push(format!("--settings={}", file.to_string_lossy()));
    }
    if !request.project_settings {
        args.push("--setting-sources=user".to_owned());
    }
    if !tools.allowed.is_empty() {
        args.push(format!("--allowedTools={}", tools.allowed.join(",")));
    }
    if !tools.disallowed.is_empty() {
        args.push(format!("--disallowedTools={}", tools.disallowed.join(",")));
    }
    // `--add-dir` takes several values; the `=` form keeps each flag to one.
    for directory in request.added_dirs {
        args.push(format!("--add-dir={}", directory.to_string_lossy()));
    }
    args.push(format!(
        "--permission-mode={}",
        claude_permission_mode(request.sandbox)
    ));
    if let Some(turns) = request.max_turns {
        args.push(format!("--max-turns={turns}"));
    }
    if let Some(budget) = request.max_budget_usd {
        args.push(format!("--max-budget-usd={budget}"));
    }
    // On resumed turns too: the schema holds the answer of this turn (SPEC §3.4).
    if let Some(schema) = request.json_schema {
        args.push(format!("--json-schema={schema}"));
    }
    args
}

fn codex_args(request: &Request<'_>) -> Vec<String> {
    let mut args: Vec<String> = vec!["exec".to_owned()];
    // Options of `exec` itself, before `resume`, which does not take `--add-dir`. Values are
    // attached with `=` (as for claude): never a word of their own.
    for directory in request.added_dirs {
        args.push(format!("--add-dir={}", directory.to_string_lossy()));
    }
    if request.resume.is_some() {
        args.push("resume".to_owned());
    }
    args.extend(
        ["--json", "--skip-git-repo-check"]
            .iter()
            .map(|arg| (*arg).to_owned()),
    );
    args.push(format!("--model={}", request.model));
    // `exec resume` refuses `--sandbox`; the config override is accepted by both.
    match request.sandbox {
        SandboxMode::DangerFullAccess => {
            args.push("--dangerously-bypass-approvals-and-sandbox".to_owned());
        }
        mode => {
            args.push("-c".to_owned());
            args.push(format!("sandbox_mode=\"{}\"", mode.as_str()));
            args.push("-c".to_owned());
            args.push("approval_policy=\"never\"".to_owned());
        }
    }
    args.push("-c".to_owned());
    args.push(format!(
        "model_instructions_file={}",
        toml_string(&request.system_prompt_file.to_string_lossy())
    ));
    if let Some(effort) = request.thinking.and_then(codex_effort) {
        args.push("-c".to_owned());
        args.push(format!("model_reasoning_effort=\"{effort}\""));
    }
    if request.web_search {
        // The setting that replaced `tools.web_search = true` (and `--search`, which `exec`
        // does not take); accepted by `exec resume` too.
        args.push("-c".to_owned());
        args.push("web_search=\"live\"".to_owned());
    }
    args.extend(mcp::codex_overrides(request.mcp, request.policy).args);
    args.extend(hooks::codex_overrides(request.hooks).args);
    // `exec resume` takes it too (codex PR #23123).
    if let Some(file) = request.output_schema_file {
        args.push(format!("--output-schema={}", file.to_string_lossy()));
    }
    for image in request.images {
        args.push(format!("--image={}", image.to_string_lossy()));
    }
    args
}

/// A TOML basic string (for `-c key=value`, which codex parses as TOML).
fn toml_string(text: &str) -> String {
    Value::String(text.to_owned()).to_string()
}

fn claude_effort(level: ThinkingLevel) -> Option<&'static str> {
    match level {
        ThinkingLevel::Off => None,
        ThinkingLevel::Minimal | ThinkingLevel::Low => Some("low"),
        ThinkingLevel::Medium => Some("medium"),
        ThinkingLevel::High => Some("high"),
        ThinkingLevel::Xhigh => Some("xhigh"),
    }
}

fn codex_effort(level: ThinkingLevel) -> Option<&'static str> {
    match level {
        // Off means "as the model comes": codex's own default.
        ThinkingLevel::Off => None,
        ThinkingLevel::Minimal => Some("minimal"),
        ThinkingLevel::Low => Some("low"),
        ThinkingLevel::Medium => Some("medium"),
        ThinkingLevel::High => Some("high"),
        ThinkingLevel::Xhigh => Some("xhigh"),
    }
}

/// claude's permission mode for pincer's sandbox mode. Headless claude refuses whatever would
/// need a prompt, so the allowed tools are also listed in `--allowedTools`.
fn claude_permission_mode(sandbox: SandboxMode) -> &'static str {
    match sandbox {
        SandboxMode::ReadOnly => "default",
        SandboxMode::WorkspaceWrite => "acceptEdits",
        SandboxMode::DangerFullAccess => "bypassPermissions",
    }
}

/// claude's web search tool (`--web-search`).
const CLAUDE_WEB_SEARCH: &str = "WebSearch";

/// pincer's tools and claude's equivalents.
const CLAUDE_TOOLS: [(&str, &[&str]); 9] = crate::tools::CLAUDE_EQUIVALENTS;

/// claude's `--tools`, `--allowedTools` and `--disallowedTools` for a policy.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClaudeTools {
    /// The tool set the child offers its model.
    pub offered: Vec<String>,
    /// Auto-approved tools and argument patterns.
    pub allowed: Vec<String>,
    /// Refused argument patterns.
    pub disallowed: Vec<String>,
}

/// Map the policy onto claude's tools: pincer's offered tools become their claude equivalents
/// (read-only drops the writing ones and `Bash`, which claude cannot confine), and argument
/// rules (`exec(git *)`) become claude patterns (`Bash(git *)`). URL rules become claude's
/// `WebFetch(domain:HOST)`: an allow rule only when it says no more than a host (otherwise the
/// call is left to need a permission, which headless claude refuses), a deny rule always, widened
/// to its host when it says more.
pub fn claude_tools(policy: &ToolPolicy, sandbox: SandboxMode) -> ClaudeTools {
    let described = policy.describe();
    let rules = |key: &str| -> Vec<String> {
        described[key]
            .as_array()
            .map(|rules| {
                rules
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    };
    let offered_pincer = policy.offered();
    let writes = ["write", "edit", "apply_patch", "exec"];
    let mut tools = ClaudeTools::default();
    let allow_patterns: Vec<(String, String)> = rules("allow")
        .iter()
        .filter_map(|rule| pattern_rule(rule))
        .collect();
    for (pincer, claude) in CLAUDE_TOOLS {
        if !offered_pincer.contains(&pincer)
            || (sandbox == SandboxMode::ReadOnly && writes.contains(&pincer))
        {
            continue;
        }
        let restricted: Vec<&(String, String)> = allow_patterns
            .iter()
            .filter(|(tool, _)| tool == pincer)
            .collect();
        for name in claude {
            tools.offered.push((*name).to_owned());
            if restricted.is_empty() {
                tools.allowed.push((*name).to_owned());
            } else {
                for (_, pattern) in &restricted {
                    if let Some(pattern) = claude_pattern(pincer, pattern, false) {
                        tools.allowed.push(format!("{name}({pattern})"));
                    }
                }
            }
        }
    }
    for rule in rules("deny") {
        if let Some((tool, pattern)) = pattern_rule(&rule)
            && let Some((pincer, claude)) = CLAUDE_TOOLS.iter().find(|(name, _)| *name == tool)
            && let Some(pattern) = claude_pattern(pincer, &pattern, true)
        {
            for name in *claude {
                tools.disallowed.push(format!("{name}({pattern})"));
            }
        }
    }
    tools
}

/// A pincer rule's pattern as claude writes it for the same tool (see [`claude_tools`]).
fn claude_pattern(tool: &str, pattern: &str, deny: bool) -> Option<String> {
    if tool != "web_fetch" {
        return Some(pattern.to_owned());
    }
    crate::tools::url_pattern::UrlPattern::new(pattern)
        .ok()?
        .claude_rule(deny)
}

/// `exec(git *)` → (`exec`, `git *`).
fn pattern_rule(rule: &str) -> Option<(String, String)> {
    let (tool, rest) = rule.split_once('(')?;
    let pattern = rest.strip_suffix(')')?;
    Some((tool.trim().to_owned(), pattern.to_owned()))
}

/// The tools the child offers, for the system prompt's tools section (so it describes what the
/// model really has, never "tools are disabled"); with `web_search`, its search tool too.
pub fn prompt_tools(
    backend: CliBackend,
    policy: &ToolPolicy,
    sandbox: SandboxMode,
    web_search: bool,
) -> Vec<ToolDefinition> {
    let describe = |name: &str, description: &str| ToolDefinition {
        name: name.to_owned(),
        description: description.to_owned(),
        parameters: serde_json::json!({"type": "object"}),
    };
    let mut tools: Vec<ToolDefinition> = match backend {
        CliBackend::Claude => claude_tools(policy, sandbox)
            .offered
            .iter()
            .map(|name| {
                let description = match name.as_str() {
                    "Read" => "read a file",
                    "Write" => "create or overwrite a file",
                    "Edit" | "MultiEdit" => "replace exact text in a file",
                    "NotebookEdit" => "edit a Jupyter notebook cell",
                    "Bash" => "run a shell command",
                    "LS" => "list a directory",
                    "Glob" => "find files by glob pattern",
                    "Grep" => "search file contents with a regular expression",
                    "WebFetch" => "fetch a web page",
                    _ => "a Claude Code tool",
                };
                describe(name, description)
            })
            .collect(),
        CliBackend::Codex => {
            let mut tools = vec![describe(
                "shell",
                "run a shell command (codex's sandbox applies)",
            )];
            if sandbox != SandboxMode::ReadOnly {
                tools.push(describe("apply_patch", "edit files with a patch"));
            }
            tools.push(describe("update_plan", "keep a step-by-step plan"));
            tools
        }
    };
    if web_search {
        let name = match backend {
            CliBackend::Claude => CLAUDE_WEB_SEARCH,
            CliBackend::Codex => "web_search",
        };
        tools.push(describe(name, "search the web"));
    }
    tools
}

/// Whether a child's error output says its session is gone (claude: `No conversation found
/// with session ID: …`; codex: no rollout / thread for the id).
pub fn is_stale_session(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    [
        "no conversation found",
        "conversation not found",
        "session not found",
        "no rollout found",
        "thread not found",
        "no saved session",
        "no session found",
    ]
    .iter()
    .any(|pattern| lower.contains(pattern))
}

/// Classify a child's error text (SPEC §9.2), and build the error the turn reports.
pub fn child_failure(
    backend: CliBackend,
    text: &str,
    status: Option<u16>,
) -> (ProviderError, FailureKind) {
    let message = text.trim();
    let message = if message.is_empty() {
        "the CLI failed without saying why"
    } else {
        message
    };
    let status = status.or_else(|| api_error_status(message));
    let error_type = embedded_error_type(message);
    let lower = message.to_ascii_lowercase();
    let kind = if is_stale_session(message) {
        FailureKind::SessionExpired
    } else {
        match classify_parts(status, error_type.as_deref(), None, message) {
            FailureKind::Unknown | FailureKind::Format if status.is_none() => {
                message_kind(&lower).unwrap_or(FailureKind::Unknown)
            }
            kind => kind,
        }
    };
    let details = ErrorDetails {
        error_type,
        code: None,
        message: crate::provider::error::truncate(message, 2048),
        ..ErrorDetails::default()
    };
    let error = match status {
        Some(status) => ProviderError::Http(Box::new(crate::provider::error::HttpFailure {
            provider: backend.name().to_owned(),
            status,
            details,
            body: crate::provider::error::truncate(message, 4096),
            request_id: None,
            retry_after: None,
            should_retry: None,
        })),
        None => ProviderError::stream(backend.name(), details, message),
    };
    (error, kind)
}

/// Message patterns the CLIs print for failures that carry no status.
fn message_kind(lower: &str) -> Option<FailureKind> {
    let has = |patterns: &[&str]| patterns.iter().any(|pattern| lower.contains(pattern));
    if has(&[
        "rate limit",
        "rate_limit",
        "too many requests",
        "usage limit",
        "hit your limit",
    ]) {
        return Some(FailureKind::RateLimit);
    }
    if has(&["overloaded", "service unavailable"]) {
        return Some(FailureKind::Overloaded);
    }
    if has(&[
        "invalid api key",
        "please run /login",
        "not logged in",
        "login required",
        "authentication",
        "unauthorized",
        "oauth token",
    ]) {
        return Some(FailureKind::Auth);
    }
    if has(&["quota", "credit balance", "billing"]) {
        return Some(FailureKind::Billing);
    }
    if has(&["timed out", "timeout", "connection reset", "network error"]) {
        return Some(FailureKind::Timeout);
    }
    if has(&[
        "model not found",
        "does not exist",
        "unknown model",
        "invalid model",
    ]) {
        return Some(FailureKind::ModelNotFound);
    }
    None
}

/// The HTTP status in claude's `API Error: 429 {…}` or codex's `last status: 429`.
fn api_error_status(text: &str) -> Option<u16> {
    for marker in ["API Error: ", "last status: ", "status: ", "status code "] {
        if let Some(index) = text.find(marker) {
            let digits: String = text[index + marker.len()..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            if let Ok(status) = digits.parse::<u16>()
                && (400..600).contains(&status)
            {
                return Some(status);
            }
        }
    }
    None
}

/// The provider error type quoted inside a child's message (`"type":"rate_limit_error"`).
fn embedded_error_type(text: &str) -> Option<String> {
    let start = text.find('{')?;
    let end = text.rfind('}')?;
    let value: Value = serde_json::from_str(text.get(start..=end)?).ok()?;
    value
        .pointer("/error/type")
        .or_else(|| value.get("type").filter(|kind| *kind != "error"))
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// The prompt of a fresh child session replacing a stale one: pincer's transcript, summarized
/// (the newest part kept when long), then the user's prompt.
pub fn reseeded_prompt(history: &[Message], prompt: &str) -> String {
    let mut lines: Vec<String> = Vec::new();
    for message in history {
        match message {
            Message::User(user) => {
                let text = user.content.text();
                if !text.trim().is_empty() {
                    lines.push(format!("User: {}", text.trim()));
                }
            }
            Message::Assistant(assistant) => {
                for block in &assistant.content {
                    match block {
                        AssistantBlock::Text(text) if !text.text.trim().is_empty() => {
                            lines.push(format!("Assistant: {}", text.text.trim()));
                        }
                        AssistantBlock::ToolCall(call) => {
                            lines.push(format!(
                                "Assistant called {}({})",
                                call.name, call.arguments
                            ));
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    let mut summary = lines.join("\n");
    if summary.chars().count() > SEED_SUMMARY_CHARS {
        let skip = summary.chars().count() - SEED_SUMMARY_CHARS;
        summary = format!(
            "[… {skip} earlier characters left out …]\n{}",
            summary.chars().skip(skip).collect::<String>()
        );
    }
    if summary.is_empty() {
        return prompt.to_owned();
    }
    format!(
        "<previous_conversation>\nThis conversation continues an earlier one whose CLI session \
         is no longer available. The transcript so far:\n{summary}\n</previous_conversation>\n\n{prompt}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_keeps_only_its_own_key_variable_and_only_when_clear_env_leaves_it_out() {
        let parent: Vec<(OsString, OsString)> = [
            ("PATH", "/usr/bin"),
            ("ANTHROPIC_API_KEY", "sk-ant-own"),
            ("OPENAI_API_KEY", "sk-other"),
            ("MY_PROFILE_VAR", "sk-profile"),
            ("COPY", "sk-profile"),
            ("KEEP_ME", "kept"),
        ]
        .into_iter()
        .map(|(name, value)| (name.into(), value.into()))
        .collect();
        let variables: Vec<String> = ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "MY_PROFILE_VAR"]
            .map(str::to_owned)
            .to_vec();
        // The own key is among the known ones too: its value does not remove it.
        let secrets = ["sk-ant-own", "sk-profile"];
        let names = |clear: &[&str]| {
            let settings = BackendSettings {
                command: "claude".to_owned(),
                extra_args: Vec::new(),
                clear_env: clear.iter().map(|name| (*name).to_owned()).collect(),
                env: BTreeMap::from([("ADDED".to_owned(), "1".to_owned())]),
            };
            child_environment(
                (CliBackend::Claude, &settings),
                parent.clone().into_iter(),
                (&variables, &secrets),
            )
            .into_iter()
            .map(|(name, _)| name.to_string_lossy().into_owned())
            .collect::<Vec<String>>()
        };
        // Additions come last, in name order.
        assert_eq!(names(&["KEEP_ME"]), ["PATH", "ADDED", "ANTHROPIC_API_KEY"]);
        assert_eq!(names(&["ANTHROPIC_API_KEY"]), ["PATH", "KEEP_ME", "ADDED"]);
        // codex's own variable is not claude's.
        assert!(!names(&[]).contains(&"OPENAI_API_KEY".to_owned()));
    }

    #[test]
    fn rate_limit_and_stale_session_texts_are_classified() {
        let (_, kind) = child_failure(
            CliBackend::Claude,
            r#"API Error: 429 {"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}"#,
            None,
        );
        assert_eq!(kind, FailureKind::RateLimit);
        let (_, kind) = child_failure(
            CliBackend::Codex,
            "exceeded retry limit, last status: 429 Too Many Requests",
            None,
        );
        assert_eq!(kind, FailureKind::RateLimit);
        let (error, kind) = child_failure(
            CliBackend::Claude,
            "No conversation found with session ID: 6c1d2e8a-0000-4000-8000-000000000000",
            None,
        );
        assert_eq!(kind, FailureKind::SessionExpired);
        assert_eq!(error.status(), None);
        let (_, kind) = child_failure(
            CliBackend::Claude,
            "Invalid API key · Please run /login",
            None,
        );
        assert_eq!(kind, FailureKind::Auth);
        let (_, kind) = child_failure(CliBackend::Claude, "Prompt is too long", None);
        assert_eq!(kind, FailureKind::ContextOverflow);
    }

    #[test]
    fn only_hyphenated_uuids_are_child_session_ids() {
        assert!(is_child_session_id("016f0b54-dd8e-485f-a113-19150799070c"));
        assert!(is_child_session_id("0199a213-81c0-7800-8aa1-bbab2a035a53"));
        for not_one in [
            "",
            "-r",
            r#"--settings={"hooks":{}}"#,
            r#"x --settings={"hooks":{}}"#,
            "016f0b54dd8e485fa11319150799070c",
            "{016f0b54-dd8e-485f-a113-19150799070c}",
            "urn:uuid:016f0b54-dd8e-485f-a113-19150799070c",
            " 016f0b54-dd8e-485f-a113-19150799070",
        ] {
            assert!(!is_child_session_id(not_one), "{not_one}");
        }
    }

    #[test]
    fn a_model_name_that_could_pass_for_an_option_cannot_reach_a_child() {
        for fine in [
            "sonnet",
            "claude-opus-4-8[1m]",
            "gpt-5-codex",
            "qwen3:8b",
            "a/b",
        ] {
            assert_eq!(child_model_problem(fine), None, "{fine}");
        }
        assert_eq!(
            child_model_problem(r#"--settings={"hooks":{}}"#),
            Some("it starts with '-'")
        );
        assert!(child_model_problem("sonnet --settings=x").is_some());
        assert!(child_model_problem("sonnet\u{1b}[2J").is_some());
        assert!(child_model_problem("").is_some());
    }

    #[test]
    fn every_value_on_a_childs_argv_is_attached_to_its_flag() {
        let settings = BackendSettings {
            command: "claude".to_owned(),
            extra_args: Vec::new(),
            clear_env: Vec::new(),
            env: BTreeMap::new(),
        };
        let policy = ToolPolicy::default();
        let mcp = crate::mcp::McpConfig::default();
        let hooks = crate::hooks::HookSet::default();
        let schema = serde_json::json!({"type": "object"});
        let image = PathBuf::from("/w/pic.png");
        let added = PathBuf::from("/w/sibling");
        for backend in [CliBackend::Claude, CliBackend::Codex] {
            let request = Request {
                backend,
                settings: &settings,
                model: "sonnet",
                system_prompt: "",
                prompt: "-- hi",
                images: std::slice::from_ref(&image),
                policy: &policy,
                sandbox: SandboxMode::WorkspaceWrite,
                added_dirs: std::slice::from_ref(&added),
                web_search: false,
                thinking: Some(ThinkingLevel::High),
                max_turns: Some(3),
                max_budget_usd: Some(0.5),
                resume: Some("016f0b54-dd8e-485f-a113-19150799070c"),
                fresh_session_id: "0199a213-81c0-7800-8aa1-bbab2a035a53",
                system_prompt_file: Path::new("/tmp/pincer-cli-x/system-prompt.md"),
                mcp: &mcp,
                mcp_config_file: Some(Path::new("/tmp/pincer-cli-x/mcp-config.json")),
                hooks: &hooks,
                settings_file: Some(Path::new("/tmp/pincer-cli-x/settings.json")),
                project_settings: false,
                json_schema: Some(&schema),
                output_schema_file: Some(Path::new("/tmp/pincer-cli-x/output-schema.json")),
            };
            let args = invocation(&request).args;
            let end = args.iter().position(|arg| arg == "--").unwrap();
            // Before `--`, every word is a flag, a `--flag=value`, a fixed word of the CLI's
            // (`-p`'s mode, `exec`, `resume`) or a `-c` override pincer builds.
            let mut words = args[..end].iter().peekable();
            while let Some(word) = words.next() {
                match word.as_str() {
                    "-c" => assert!(words.next().is_some_and(|value| !value.starts_with('-'))),
                    "--output-format" => assert_eq!(words.next().unwrap(), "stream-json"),
                    "exec" | "resume" => {}
                    flag => assert!(flag.starts_with('-'), "{backend:?}: {flag} in {args:?}"),
                }
            }
            let resume = match backend {
                CliBackend::Claude => "--resume=016f0b54-dd8e-485f-a113-19150799070c",
                CliBackend::Codex => "016f0b54-dd8e-485f-a113-19150799070c",
            };
            assert!(args.iter().any(|arg| arg == resume), "{args:?}");
            assert!(args.iter().any(|arg| arg == "--model=sonnet"), "{args:?}");
        }
    }

    #[test]
    fn web_fetch_rules_become_claudes_domain_rules_or_stay_unapproved() {
        let allow = [
            "group:read".to_owned(),
            "web_fetch(https://docs.rs/*)".to_owned(),
            "web_fetch(https://github.com/rust-lang/*)".to_owned(),
        ];
        let deny = ["web_fetch(https://docs.rs/private/*)".to_owned()];
        let policy = ToolPolicy::new(&crate::tools::policy::PolicySpec {
            profile: Some("full"),
            exact: None,
            allow: &allow,
            deny: &deny,
        })
        .unwrap();
        let tools = claude_tools(&policy, SandboxMode::WorkspaceWrite);
        assert_eq!(tools.offered, ["Read", "LS", "Glob", "Grep", "WebFetch"]);
        // The path-level rule cannot be said to claude: those calls are not pre-approved.
        assert_eq!(
            tools.allowed,
            ["Read", "LS", "Glob", "Grep", "WebFetch(domain:docs.rs)"]
        );
        // A deny rule is widened to its host rather than dropped.
        assert_eq!(tools.disallowed, ["WebFetch(domain:docs.rs)"]);
        let coding = claude_tools(&ToolPolicy::default(), SandboxMode::WorkspaceWrite);
        assert!(!coding.offered.contains(&"WebFetch".to_owned()));
    }
}
