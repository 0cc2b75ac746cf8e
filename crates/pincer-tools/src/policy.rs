//! The tool policy (SPEC §10): which tools a run offers the model, and which calls it may make.
//!
//! Pure: built once from the profile, `--tools`, and the allow and deny rules (config plus
//! `--allowed-tools` / `--disallowed-tools`), then asked about every call. Nothing here touches
//! the file system or prompts anyone; headless runs never ask, they refuse and say why.
//!
//! How the pieces combine, in order (each step can only remove, as OpenClaw's chained filters do):
//! 1. The base set is `--tools` when given (`""` = no tools), else the profile's (default `coding`).
//! 2. A non-empty allow list restricts: a tool stays only if some allow rule names it. Claude
//!    Code's `--allowedTools` pre-approves calls that would otherwise prompt; with no prompts, the
//!    closest meaning is "only these". An allow list therefore never adds a tool the base set lacks.
//! 3. A deny rule without a pattern removes its tools. Deny always wins.
//!
//! Calls of offered tools are then checked against the rules with patterns: a deny rule whose
//! pattern matches refuses the call; when the tool's allow rules all carry patterns, the call must
//! match one of them. Patterns are `NAME(PATTERN)`: for `exec` the command (`git *`, or Claude's
//! prefix form `git:*`), for the file tools the path argument as a glob relative to the workspace,
//! for `web_fetch` the URL ([`super::url_pattern`]: `https://docs.rs/*`, `*.python.org`).
//!
//! `web_fetch` reaches the network, so it is in the `full` profile only, and the `read-only`
//! sandbox offers it only when `--tools` or an allow rule names it (by name, `WebFetch` or
//! `group:web`; `*` does not count): a run that must not change anything should not send what it
//! read anywhere either, unless told to.
//!
//! `exec` patterns read the command line with a shell grammar ([`super::command_line`]): an allow
//! pattern matches only a line of plain commands joined by `;`, `&&`, `||`, `|` or newlines, each
//! of which it (or another allow pattern) matches; a deny pattern is compared with every command
//! found anywhere in the line, and refuses an unclear line whose text it could match. They are
//! still a guard, not a boundary: an allowed program can be talked into running something else
//! (`git -c core.pager=…`, scripts it writes), so `exec(bash *)` or `exec(*)` allow everything.
//! The sandbox is what confines the process. Path patterns are compared with the path as written
//! and, when links lead elsewhere, with where they lead (a link to a denied file is denied); the
//! workspace confinement in [`super::paths`] keeps both inside the roots.
//!
//! MCP tools (SPEC §13) join through [`ToolPolicy::with_mcp_tools`] once their servers have
//! started. Rules name them as `mcp__SERVER__TOOL` (`*` wildcards allowed, e.g.
//! `mcp__github__*`), `mcp__SERVER` or `group:mcp:SERVER` for one server's tools, and `group:mcp`
//! for all of them; `*` covers them too. They take no argument patterns. The profile does not
//! limit them (they are configured one by one), but `--tools`, allow rules and deny rules do, in
//! the same three steps. MCP tools run outside pincer's sandbox, so under `read-only` only
//! those annotated `readOnlyHint: true`, or named by an allow rule other than `*`, are offered.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use globset::{GlobBuilder, GlobMatcher};
use serde_json::{Value, json};

use super::command_line::{self, DenyCandidates, NotPlain, SimpleCommand, collapse_whitespace};
use super::url_pattern::{UrlPattern, wildcard_match};
use super::{ALL_TOOLS, Arguments, CODING_TOOLS, WRITING_TOOLS, apply_patch};
use crate::conversation::SandboxMode;

/// The tools that read the file system without changing it.
const READ_ONLY_TOOLS: &[&str] = &["read", "ls", "find", "grep"];
/// `group:fs`: every tool that takes a path.
const FILE_TOOLS: &[&str] = &["read", "write", "edit", "ls", "find", "grep", "apply_patch"];
/// `group:runtime`.
const RUNTIME_TOOLS: &[&str] = &["exec"];
/// `group:web`: the tools that reach the network.
const WEB_TOOLS: &[&str] = &["web_fetch"];

/// Claude Code tools that pincer has no counterpart for; named in the error hint so a copied
/// `--allowedTools` list fails with a clear reason instead of a generic one.
const CLAUDE_TOOLS_WITHOUT_EQUIVALENT: &[&str] = &[
    "WebSearch",
    "NotebookEdit",
    "NotebookRead",
    "Task",
    "TodoWrite",
    "BashOutput",
    "KillShell",
];

/// A named base tool set (`[tools] profile`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// Looking only: read, ls, find, grep.
    Minimal,
    /// The file tools and `exec`: every built-in tool but `web_fetch`. The default.
    Coding,
    /// Every built-in tool: `coding` plus `web_fetch`, which reaches the network.
    Full,
}

impl Profile {
    /// The profile's name as written in config and shown by `status`.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Minimal => "minimal",
            Profile::Coding => "coding",
            Profile::Full => "full",
        }
    }

    /// The tools of the profile, in [`ALL_TOOLS`] order.
    pub fn tools(self) -> &'static [&'static str] {
        match self {
            Profile::Minimal => READ_ONLY_TOOLS,
            Profile::Coding => CODING_TOOLS,
            Profile::Full => &ALL_TOOLS,
        }
    }
}

impl FromStr for Profile {
    type Err = PolicyError;

    fn from_str(text: &str) -> Result<Profile, PolicyError> {
        match text.trim() {
            "minimal" => Ok(Profile::Minimal),
            "coding" => Ok(Profile::Coding),
            "full" => Ok(Profile::Full),
            other => Err(PolicyError::UnknownProfile {
                profile: other.to_owned(),
            }),
        }
    }
}

/// Where a rule came from, for error messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleList {
    /// `--tools`.
    Tools,
    /// `[tools] allow` or `--allowed-tools`.
    Allow,
    /// `[tools] deny` or `--disallowed-tools`.
    Deny,
}

impl fmt::Display for RuleList {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(match self {
            RuleList::Tools => "--tools entry",
            RuleList::Allow => "allow rule",
            RuleList::Deny => "deny rule",
        })
    }
}

/// A policy that cannot be built. Every variant is a usage error (exit 2) naming the rule.
#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    /// `[tools] profile` is not one of the three names.
    #[error("unknown tool profile `{profile}`")]
    UnknownProfile { profile: String },
    /// A rule names no tool, group or alias that pincer knows.
    #[error("unknown tool `{name}` in the {list} `{rule}`")]
    UnknownTool {
        list: RuleList,
        rule: String,
        name: String,
    },
    /// A rule is not `NAME` or `NAME(PATTERN)`, or has a pattern where none may be.
    #[error("the {list} `{rule}` {problem}")]
    Malformed {
        list: RuleList,
        rule: String,
        problem: &'static str,
    },
    /// A path pattern is not a valid glob.
    #[error("the {list} `{rule}` has an invalid pattern: {source}")]
    InvalidPattern {
        list: RuleList,
        rule: String,
        #[source]
        source: globset::Error,
    },
}

impl PolicyError {
    /// What the user can do about it (shown after `hint: `).
    pub fn hint(&self) -> String {
        match self {
            PolicyError::UnknownProfile { .. } => {
                "valid profiles: minimal, coding, full".to_owned()
            }
            PolicyError::UnknownTool { name, .. }
                if CLAUDE_TOOLS_WITHOUT_EQUIVALENT.contains(&name.as_str()) =>
            {
                format!("pincer has no equivalent of Claude Code's {name}; {VALID_NAMES}")
            }
            PolicyError::UnknownTool { .. } => VALID_NAMES.to_owned(),
            PolicyError::Malformed {
                list: RuleList::Tools,
                ..
            } => "--tools takes tool and group names only; put patterns in --allowed-tools or \
                  --disallowed-tools"
                .to_owned(),
            PolicyError::Malformed { .. } | PolicyError::InvalidPattern { .. } => {
                "write a rule as NAME or NAME(PATTERN), e.g. `exec(git *)`, `Bash(git:*)`, \
                 `read(./src/**)`; separate rules with commas or spaces"
                    .to_owned()
            }
        }
    }
}

const VALID_NAMES: &str = "valid names: read, write, edit, exec, ls, find, grep, apply_patch, \
     web_fetch, group:fs, group:runtime, group:read, group:web, group:mcp, group:mcp:SERVER, \
     mcp__SERVER__TOOL, * (Claude Code's Bash, Read, Write, Edit, MultiEdit, Glob, Grep, LS and \
     WebFetch also work)";

/// The inputs of a policy, as settings resolved them.
#[derive(Debug, Clone, Copy, Default)]
pub struct PolicySpec<'a> {
    /// `[tools] profile`; `None` means `coding`.
    pub profile: Option<&'a str>,
    /// `--tools`: the exact base set, names and groups without patterns; `""` means no tools.
    /// When given, the profile is ignored. `default` inside it stands for the profile's set.
    pub exact: Option<&'a str>,
    /// Allow rules: `[tools] allow` followed by `--allowed-tools`. Each string may hold several
    /// rules separated by commas or spaces.
    pub allow: &'a [String],
    /// Deny rules: `[tools] deny` followed by `--disallowed-tools`.
    pub deny: &'a [String],
}

/// The verdict on one tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Run it.
    Allow,
    /// Do not run it; send `reason` to the model as the tool's error result.
    Deny {
        /// The rule that refused the call, as the user wrote it (or `--tools …`/`profile=…`
        /// when the base set lacks the tool).
        rule: String,
        /// A sentence for the model: what was refused, by which rule, and what to do instead.
        reason: String,
    },
}

impl Decision {
    /// Whether the call may run.
    pub fn is_allowed(&self) -> bool {
        matches!(self, Decision::Allow)
    }
}

/// An MCP tool the run could offer, as its server described it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpTool {
    /// The name offered to the model (`mcp__SERVER__TOOL`, sanitized).
    pub name: String,
    /// The server's name as configured.
    pub server: String,
    /// The tool's own name on the server.
    pub tool: String,
    /// The server annotated it `readOnlyHint: true`.
    pub read_only: bool,
}

/// What a rule says about MCP tools.
#[derive(Debug, Clone, PartialEq, Eq)]
enum McpSelector {
    /// `*`: every tool, MCP tools included (not an explicit allow under `read-only`).
    Everything,
    /// `group:mcp`.
    All,
    /// `group:mcp:SERVER` or `mcp__SERVER`.
    Server(String),
    /// `mcp__SERVER__TOOL`, `*` matching any text.
    Tool(String),
}

impl McpSelector {
    fn names(&self, tool: &McpTool) -> bool {
        match self {
            McpSelector::Everything | McpSelector::All => true,
            // The offered name carries the server's name as providers accept it.
            McpSelector::Server(server) => {
                *server == tool.server || tool.name.starts_with(&format!("mcp__{server}__"))
            }
            McpSelector::Tool(pattern) => {
                wildcard_match(pattern, &tool.name)
                    || wildcard_match(pattern, &format!("mcp__{}__{}", tool.server, tool.tool))
            }
        }
    }

    /// Whether it could name a tool of `server` (tools unknown).
    fn covers_server(&self, server: &str) -> bool {
        match self {
            McpSelector::Everything | McpSelector::All => true,
            McpSelector::Server(name) => name == server,
            McpSelector::Tool(_) => false,
        }
    }

    /// The selector a `NAME` stands for, when it is an MCP name.
    fn parse(name: &str) -> Option<McpSelector> {
        if name == "group:mcp" {
            return Some(McpSelector::All);
        }
        if let Some(server) = name.strip_prefix("group:mcp:") {
            return (!server.is_empty()).then(|| McpSelector::Server(server.to_owned()));
        }
        let rest = name.strip_prefix("mcp__")?;
        if rest.is_empty() {
            return None;
        }
        Some(if rest.contains("__") {
            McpSelector::Tool(name.to_owned())
        } else {
            McpSelector::Server(rest.to_owned())
        })
    }
}

/// How much of one MCP server a policy lets through, before its tools are known (for the CLI
/// backends, which start the servers themselves).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpAccess {
    /// None of its tools.
    Denied,
    /// Only the tools these `mcp__SERVER__TOOL` patterns name.
    Tools(Vec<String>),
    /// All of its tools (deny patterns aside).
    All,
}

/// The resolved policy of one run.
#[derive(Debug, Clone)]
pub struct ToolPolicy {
    profile: Profile,
    /// `--tools` as given, when given.
    exact: Option<String>,
    base: Vec<&'static str>,
    allow: Vec<Rule>,
    deny: Vec<Rule>,
    offered: Vec<&'static str>,
    /// The workspace as a normalized absolute path, so absolute path arguments can be compared
    /// with relative patterns.
    workspace: Option<String>,
    /// The sandbox is `read-only`: the tools that only write files are not offered, nor
    /// `web_fetch` unless [`ToolPolicy::web_named`].
    read_only: bool,
    /// `--tools` or an allow rule names `web_fetch` explicitly (not through `*` or `default`).
    web_named: bool,
    /// `--tools`' MCP entries, when `--tools` is given.
    exact_mcp: Vec<McpSelector>,
    /// The MCP tools the servers listed.
    mcp_tools: Vec<McpTool>,
    /// Those of them that are offered, by name.
    offered_mcp: Vec<String>,
}

impl Default for ToolPolicy {
    /// The `coding` profile with no rules: its tools, every call.
    fn default() -> ToolPolicy {
        ToolPolicy {
            profile: Profile::Coding,
            exact: None,
            base: CODING_TOOLS.to_vec(),
            allow: Vec::new(),
            deny: Vec::new(),
            offered: CODING_TOOLS.to_vec(),
            workspace: None,
            read_only: false,
            web_named: false,
            exact_mcp: Vec::new(),
            mcp_tools: Vec::new(),
            offered_mcp: Vec::new(),
        }
    }
}

impl ToolPolicy {
    /// Resolve the spec; any unknown name or malformed rule is an error naming it.
    pub fn new(spec: &PolicySpec<'_>) -> Result<ToolPolicy, PolicyError> {
        let profile = match spec.profile {
            Some(name) => name.parse()?,
            None => Profile::Coding,
        };
        let (base, exact_mcp) = match spec.exact {
            Some(exact) => exact_set(exact, profile)?,
            None => (profile.tools().to_vec(), Vec::new()),
        };
        let allow = parse_rules(spec.allow, RuleList::Allow)?;
        let deny = parse_rules(spec.deny, RuleList::Deny)?;
        let names_web = |rule: &Rule| rule.names("web_fetch") && !rule.everything;
        // `--tools` parsed without error above: every entry but `default` is a rule.
        let web_named = allow.iter().any(names_web)
            || spec.exact.is_some_and(|exact| {
                split_rules(exact, RuleList::Tools)
                    .unwrap_or_default()
                    .iter()
                    .filter(|entry| *entry != "default")
                    .filter_map(|entry| parse_rule(entry, RuleList::Tools).ok())
                    .any(|rule| names_web(&rule))
            });
        let mut policy = ToolPolicy {
            profile,
            exact: spec.exact.map(str::to_owned),
            base,
            allow,
            deny,
            offered: Vec::new(),
            workspace: None,
            read_only: false,
            web_named,
            exact_mcp,
            mcp_tools: Vec::new(),
            offered_mcp: Vec::new(),
        };
        policy.offered = policy.still_offered();
        Ok(policy)
    }

    /// The same policy knowing the MCP tools the servers listed: those it lets through are
    /// offered ([`ToolPolicy::offered_mcp`]) and may be called.
    #[must_use]
    pub fn with_mcp_tools(mut self, tools: Vec<McpTool>) -> ToolPolicy {
        self.mcp_tools = tools;
        self.offered_mcp = self.still_offered_mcp();
        self
    }

    fn still_offered_mcp(&self) -> Vec<String> {
        self.mcp_tools
            .iter()
            .filter(|tool| self.mcp_removal(tool).is_none())
            .map(|tool| tool.name.clone())
            .collect()
    }

    /// The MCP tools to offer, by name, in the order the servers listed them.
    pub fn offered_mcp(&self) -> Vec<String> {
        self.offered_mcp.clone()
    }

    /// Why the MCP tool is not offered, as (rule, explanation), or `None` when it is.
    fn mcp_removal(&self, tool: &McpTool) -> Option<(String, String)> {
        if let Some(rule) = self.deny.iter().find(|rule| {
            rule.mcp
                .as_ref()
                .is_some_and(|selector| selector.names(tool))
        }) {
            return Some((
                rule.text.clone(),
                format!("removed by the deny rule `{}`", rule.text),
            ));
        }
        let allowed_by = |explicit: bool| {
            self.allow.iter().any(|rule| {
                rule.mcp.as_ref().is_some_and(|selector| {
                    selector.names(tool) && !(explicit && *selector == McpSelector::Everything)
                })
            })
        };
        if self.read_only && !tool.read_only && !allowed_by(true) {
            return Some((
                "sandbox=read-only".to_owned(),
                "MCP tools run outside the sandbox, and under read-only only those marked                  readOnlyHint or named by an allow rule are offered"
                    .to_owned(),
            ));
        }
        if let Some(exact) = &self.exact
            && !self.exact_mcp.iter().any(|selector| selector.names(tool))
        {
            return Some((
                format!("--tools {exact:?}"),
                format!("--tools {exact:?} does not include it"),
            ));
        }
        if !self.allow.is_empty() && !allowed_by(false) {
            return Some(self.not_allowed());
        }
        None
    }

    /// How much of the MCP server `server` the policy lets through, its tools unknown: what a
    /// CLI backend, which starts the servers itself, is told to allow.
    pub fn mcp_access(&self, server: &str) -> McpAccess {
        let selectors = |rules: &[Rule]| -> Vec<McpSelector> {
            rules.iter().filter_map(|rule| rule.mcp.clone()).collect()
        };
        if selectors(&self.deny)
            .iter()
            .any(|selector| selector.covers_server(server))
        {
            return McpAccess::Denied;
        }
        let restricting: Option<Vec<McpSelector>> = if self.exact.is_some() {
            Some(self.exact_mcp.clone())
        } else if !self.allow.is_empty() || self.read_only {
            Some(
                selectors(&self.allow)
                    .into_iter()
                    .filter(|selector| !(self.read_only && *selector == McpSelector::Everything))
                    .collect(),
            )
        } else {
            None
        };
        let Some(restricting) = restricting else {
            return McpAccess::All;
        };
        if restricting
            .iter()
            .any(|selector| selector.covers_server(server))
        {
            return McpAccess::All;
        }
        let prefix = format!("mcp__{server}__");
        let tools: Vec<String> = restricting
            .into_iter()
            .filter_map(|selector| match selector {
                McpSelector::Tool(pattern) if pattern.starts_with(&prefix) => Some(pattern),
                _ => None,
            })
            .collect();
        if tools.is_empty() {
            McpAccess::Denied
        } else {
            McpAccess::Tools(tools)
        }
    }

    /// The `mcp__SERVER__TOOL` deny rules, as written.
    pub fn mcp_deny_patterns(&self) -> Vec<String> {
        self.deny
            .iter()
            .filter_map(|rule| match &rule.mcp {
                Some(McpSelector::Tool(pattern)) => Some(pattern.clone()),
                _ => None,
            })
            .collect()
    }

    /// The same policy under the sandbox `mode`: `read-only` (also `--permission-mode plan`)
    /// offers none of the tools that only write files, so the model is never shown a tool that
    /// cannot succeed, and a call of one anyway is refused by the policy.
    #[must_use]
    pub fn with_sandbox(mut self, mode: SandboxMode) -> ToolPolicy {
        self.read_only = mode == SandboxMode::ReadOnly;
        self.offered = self.still_offered();
        self.offered_mcp = self.still_offered_mcp();
        self
    }

    fn still_offered(&self) -> Vec<&'static str> {
        ALL_TOOLS
            .iter()
            .copied()
            .filter(|tool| self.removal(tool).is_none())
            .collect()
    }

    /// The same policy, comparing path arguments with patterns relative to `workspace` (the
    /// absolute workspace directory). Without it, absolute path arguments match only absolute
    /// patterns.
    #[must_use]
    pub fn with_workspace(mut self, workspace: &Path) -> ToolPolicy {
        self.workspace = Some(normalize_absolute(&workspace.to_string_lossy()));
        self
    }

    /// The tools to offer the model, in [`ALL_TOOLS`] order.
    pub fn offered(&self) -> Vec<&'static str> {
        self.offered.clone()
    }

    /// Whether the call may run. Tools that are not offered are refused too, in case a model
    /// calls one anyway.
    pub fn check(&self, tool: &str, arguments: &Value) -> Decision {
        if let Some(mcp) = self.mcp_tools.iter().find(|mcp| mcp.name == tool) {
            return match self.mcp_removal(mcp) {
                None => Decision::Allow,
                Some((rule, why)) => Decision::Deny {
                    rule,
                    reason: format!(
                        "The {tool} tool is not available in this run ({why}). Use one of the \
                         available tools instead: {}.",
                        self.offered_list()
                    ),
                },
            };
        }
        if !ALL_TOOLS.contains(&tool) {
            return Decision::Deny {
                rule: tool.to_owned(),
                reason: format!(
                    "There is no tool named {tool} in this run. Use one of the available tools: {}.",
                    self.offered_list()
                ),
            };
        }
        if let Some((rule, why)) = self.removal(tool) {
            return Decision::Deny {
                rule,
                reason: format!(
                    "The {tool} tool is not available in this run ({why}). Use one of the \
                     available tools instead: {}.",
                    self.offered_list()
                ),
            };
        }
        let patterned = |rules: &[Rule]| {
            rules
                .iter()
                .any(|rule| rule.names(tool) && rule.pattern.is_some())
        };
        // Reading a command line or a patch costs a parse: only when a pattern will look at it.
        if !patterned(&self.deny) && !patterned(&self.allow) {
            return Decision::Allow;
        }
        let subjects = Subjects::of(tool, arguments, self.workspace.as_deref());

        for rule in self.deny.iter().filter(|rule| rule.names(tool)) {
            let Some(pattern) = &rule.pattern else {
                continue;
            };
            if let Some(what) = subjects.first_denied_by(pattern) {
                return Decision::Deny {
                    rule: rule.text.clone(),
                    reason: format!(
                        "The {tool} call was refused: {what} matches the deny rule `{}`. Try a \
                         different approach that this rule does not cover.",
                        rule.text
                    ),
                };
            }
        }

        let allow_rules: Vec<&Rule> = self.allow.iter().filter(|rule| rule.names(tool)).collect();
        if self.allow.is_empty() || allow_rules.iter().any(|rule| rule.pattern.is_none()) {
            return Decision::Allow;
        }
        let patterns: Vec<&Pattern> = allow_rules
            .iter()
            .filter_map(|rule| rule.pattern.as_ref())
            .collect();
        match subjects.first_not_allowed(&patterns) {
            None => Decision::Allow,
            Some(what) => {
                let rules = allow_rules
                    .iter()
                    .map(|rule| format!("`{}`", rule.text))
                    .collect::<Vec<_>>()
                    .join(", ");
                Decision::Deny {
                    rule: allow_rules
                        .iter()
                        .map(|rule| rule.text.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                    reason: format!(
                        "The {tool} call was refused: {what}; the allow rules for {tool} are \
                         {rules}. Try a different approach that stays within them."
                    ),
                }
            }
        }
    }

    /// Whether an allow rule names this call itself: the tool by name or group (not `*`), its
    /// pattern, when it has one, matching the arguments. Claude Code does not ask its permission
    /// prompt about such a call, so neither does pincer's (the Claude Agent SDK's `can_use_tool`).
    pub fn allows_explicitly(&self, tool: &str, arguments: &Value) -> bool {
        if let Some(mcp) = self.mcp_tools.iter().find(|mcp| mcp.name == tool) {
            return self.allow.iter().any(|rule| {
                !rule.everything
                    && rule.mcp.as_ref().is_some_and(|selector| {
                        *selector != McpSelector::Everything && selector.names(mcp)
                    })
            });
        }
        let rules: Vec<&Rule> = self
            .allow
            .iter()
            .filter(|rule| !rule.everything && rule.names(tool))
            .collect();
        if rules.iter().any(|rule| rule.pattern.is_none()) {
            return !rules.is_empty();
        }
        let patterns: Vec<&Pattern> = rules
            .iter()
            .filter_map(|rule| rule.pattern.as_ref())
            .collect();
        !patterns.is_empty()
            && Subjects::of(tool, arguments, self.workspace.as_deref())
                .first_not_allowed(&patterns)
                .is_none()
    }

    /// The policy as `status` and `--dry-run` show it.
    pub fn describe(&self) -> Value {
        let texts = |rules: &[Rule]| -> Vec<String> {
            rules.iter().map(|rule| rule.text.clone()).collect()
        };
        let mut described = json!({
            "profile": self.profile.name(),
            "tools": self.exact,
            "offered": self.offered,
            "allow": texts(&self.allow),
            "deny": texts(&self.deny),
        });
        if !self.mcp_tools.is_empty()
            && let Some(object) = described.as_object_mut()
        {
            object.insert("offered_mcp".to_owned(), json!(self.offered_mcp));
        }
        described
    }

    /// Why `tool` is not offered, as (rule, explanation), or `None` when it is.
    fn removal(&self, tool: &str) -> Option<(String, String)> {
        if let Some(rule) = self
            .deny
            .iter()
            .find(|rule| rule.pattern.is_none() && rule.names(tool))
        {
            return Some((
                rule.text.clone(),
                format!("removed by the deny rule `{}`", rule.text),
            ));
        }
        if self.read_only && WRITING_TOOLS.contains(&tool) {
            return Some((
                "sandbox=read-only".to_owned(),
                "the read-only sandbox allows no file to be created, changed or deleted".to_owned(),
            ));
        }
        if !self.base.contains(&tool) {
            return Some(match &self.exact {
                Some(exact) => (
                    format!("--tools {exact:?}"),
                    format!("--tools {exact:?} does not include it"),
                ),
                None => (
                    format!("profile={}", self.profile.name()),
                    format!("the {} profile does not include it", self.profile.name()),
                ),
            });
        }
        if self.read_only && WEB_TOOLS.contains(&tool) && !self.web_named {
            return Some((
                "sandbox=read-only".to_owned(),
                "the read-only sandbox offers web_fetch only when --tools or an allow rule names \
                 it"
                .to_owned(),
            ));
        }
        if !self.allow.is_empty() && !self.allow.iter().any(|rule| rule.names(tool)) {
            return Some(self.not_allowed());
        }
        None
    }

    /// (rule, explanation) for a tool that no allow rule names.
    fn not_allowed(&self) -> (String, String) {
        let rules = self
            .allow
            .iter()
            .map(|rule| rule.text.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        let why = format!("no allow rule names it; the allow rules are {rules}");
        (rules, why)
    }

    fn offered_list(&self) -> String {
        let all: Vec<&str> = self
            .offered
            .iter()
            .copied()
            .chain(self.offered_mcp.iter().map(String::as_str))
            .collect();
        if all.is_empty() {
            "none".to_owned()
        } else {
            all.join(", ")
        }
    }
}

/// One allow or deny rule.
#[derive(Debug, Clone)]
struct Rule {
    /// As the user wrote it, for messages.
    text: String,
    /// The tools it names (a group names several).
    tools: &'static [&'static str],
    /// Named as `*`: every tool, none of them by name.
    everything: bool,
    /// `None`: every call of those tools.
    pattern: Option<Pattern>,
    /// The MCP tools it names, if any.
    mcp: Option<McpSelector>,
}

impl Rule {
    fn names(&self, tool: &str) -> bool {
        self.tools.contains(&tool)
    }
}

/// What a rule's parentheses restrict.
#[derive(Debug, Clone)]
enum Pattern {
    /// `exec`: the command line.
    Command(CommandPattern),
    /// The file tools: the path argument.
    Path(PathPattern),
    /// `web_fetch`: the URL.
    Url(UrlPattern),
}

/// A pattern for `exec` commands, compared with whitespace runs collapsed to one space.
#[derive(Debug, Clone)]
enum CommandPattern {
    /// Claude Code's `git:*`: the command is `git` or starts with the word `git`.
    Prefix(String),
    /// `*` matches any text, spaces and slashes included; without `*` the command must be equal.
    /// A trailing ` *` also matches the bare command (`git *` matches `git`).
    Wildcard(String),
}

impl CommandPattern {
    fn new(raw: &str) -> CommandPattern {
        let pattern = collapse_whitespace(raw);
        match pattern.strip_suffix(":*") {
            Some(prefix) if !prefix.trim().is_empty() => {
                CommandPattern::Prefix(prefix.trim().to_owned())
            }
            _ => CommandPattern::Wildcard(pattern),
        }
    }

    fn matches(&self, command: &str) -> bool {
        match self {
            CommandPattern::Prefix(prefix) => {
                command == prefix
                    || command
                        .strip_prefix(prefix.as_str())
                        .is_some_and(|rest| rest.starts_with(' '))
            }
            CommandPattern::Wildcard(pattern) => {
                wildcard_match(pattern, command)
                    || pattern
                        .strip_suffix(" *")
                        .is_some_and(|bare| bare == command)
            }
        }
    }
}

/// A glob over a path argument.
#[derive(Debug, Clone)]
struct PathPattern {
    /// Compared with the absolute path rather than the workspace-relative one.
    absolute: bool,
    glob: GlobMatcher,
    /// For `dir/**`: `dir` itself, so `grep(src/**)` allows searching `src`.
    directory: Option<GlobMatcher>,
}

impl PathPattern {
    fn new(raw: &str) -> Result<PathPattern, globset::Error> {
        let raw = raw.trim();
        // Claude Code writes absolute patterns as `//abs/path`; a single slash works too.
        let (absolute, text) = if let Some(rest) = raw.strip_prefix("//") {
            (true, format!("/{rest}"))
        } else if raw.starts_with('/') {
            (true, raw.to_owned())
        } else {
            let mut text = raw;
            while let Some(rest) = text.strip_prefix("./") {
                text = rest;
            }
            let text = if text.is_empty() { "." } else { text };
            (false, text.to_owned())
        };
        let directory = match text.strip_suffix("/**") {
            Some("") => Some(compile_glob("/")?),
            Some(base) => Some(compile_glob(base)?),
            None => None,
        };
        Ok(PathPattern {
            absolute,
            glob: compile_glob(&text)?,
            directory,
        })
    }

    fn matches(&self, subject: &PathSubject) -> bool {
        let candidate = if self.absolute {
            subject.absolute.as_deref()
        } else {
            subject.relative.as_deref()
        };
        candidate.is_some_and(|path| {
            self.glob.is_match(path)
                || self
                    .directory
                    .as_ref()
                    .is_some_and(|directory| directory.is_match(path))
        })
    }
}

/// `*` stays within one path component, `**` crosses them, as in `.gitignore`.
fn compile_glob(text: &str) -> Result<GlobMatcher, globset::Error> {
    Ok(GlobBuilder::new(text)
        .literal_separator(true)
        .build()?
        .compile_matcher())
}

/// A path argument in the forms patterns compare with.
#[derive(Debug, Clone)]
struct PathSubject {
    /// As the model sent it, for messages.
    shown: String,
    /// Relative to the workspace, normalized (`.` for the workspace itself); `None` when the
    /// path leaves the workspace or the workspace is unknown for an absolute path.
    relative: Option<String>,
    /// Absolute and normalized; `None` for a relative path when the workspace is unknown.
    absolute: Option<String>,
}

impl PathSubject {
    fn new(raw: &str, workspace: Option<&str>) -> PathSubject {
        let absolute = if raw.starts_with('/') {
            Some(normalize_absolute(raw))
        } else {
            workspace.map(|workspace| normalize_absolute(&format!("{workspace}/{raw}")))
        };
        let relative = match (workspace, &absolute) {
            (Some(workspace), Some(absolute)) => relative_to(workspace, absolute),
            _ if raw.starts_with('/') => None,
            _ => normalize_relative(raw),
        };
        PathSubject {
            shown: raw.to_owned(),
            relative,
            absolute,
        }
    }

    /// The path `raw` leads to once links are followed, as a subject of its own: the longest
    /// part that exists resolved on disk, the rest appended (`..` applied), as the sandbox
    /// resolves a target ([`crate::sandbox::canonical_target`]). `None` when it leads nowhere else
    /// (or the workspace is unknown for a relative path). A deny rule for `.env` must refuse
    /// `docs/notes.md -> ../.env` and `mirror/.env` with `mirror -> .` (CVE-2026-25724 against
    /// Claude Code), and an allow rule must cover where the call really goes.
    fn through_links(raw: &str, workspace: Option<&str>) -> Option<PathSubject> {
        let joined = if raw.starts_with('/') {
            PathBuf::from(raw)
        } else {
            Path::new(workspace?).join(raw)
        };
        let real = crate::sandbox::canonical_target(&joined);
        let absolute = normalize_absolute(&real.to_string_lossy());
        let workspace = workspace.map(|workspace| {
            std::fs::canonicalize(workspace).map_or_else(
                |_| workspace.to_owned(),
                |canonical| normalize_absolute(&canonical.to_string_lossy()),
            )
        });
        let relative = workspace
            .as_deref()
            .and_then(|workspace| relative_to(workspace, &absolute));
        let lexical = PathSubject::new(raw, workspace.as_deref());
        if lexical.absolute.as_deref() == Some(absolute.as_str()) {
            return None;
        }
        let target = relative.clone().unwrap_or_else(|| absolute.clone());
        Some(PathSubject {
            shown: format!("{raw}`, which leads to `{target}"),
            relative,
            absolute: Some(absolute),
        })
    }

    /// `raw` as written and, when links lead elsewhere, where they lead.
    fn both(raw: &str, workspace: Option<&str>) -> Vec<PathSubject> {
        let mut subjects = vec![PathSubject::new(raw, workspace)];
        subjects.extend(PathSubject::through_links(raw, workspace));
        subjects
    }
}

/// What the patterns of one call are compared with.
#[derive(Debug, Clone)]
enum Subjects {
    /// `exec`.
    Commands {
        /// The plain commands of the command line, all of which must be allowed; or why the line
        /// is not plain commands, which no allow pattern matches.
        strict: Result<Vec<SimpleCommand>, NotPlain>,
        /// Every command found anywhere in the line, with its variants: any of them matching a
        /// deny pattern refuses the call.
        broad: DenyCandidates,
        /// The call sets environment variables through its `env` argument.
        sets_environment: bool,
    },
    /// The file tools: every path the call touches (a patch may touch several).
    Paths(Vec<PathSubject>),
    /// `web_fetch`: the URL as written and as parsed.
    Url(String, reqwest::Url),
    /// The argument patterns look at is absent or not a string; the tool will refuse the call
    /// itself, but a pattern cannot approve it.
    Missing(&'static str),
}

impl Subjects {
    fn of(tool: &str, arguments: &Value, workspace: Option<&str>) -> Subjects {
        let Ok(arguments) = Arguments::new(arguments) else {
            return Subjects::Missing("arguments object");
        };
        let path = |names: &[&str], default: Option<&str>, missing: &'static str| match arguments
            .get(names)
            .map(Value::as_str)
        {
            Some(Some(raw)) => Subjects::Paths(PathSubject::both(raw, workspace)),
            None => match default {
                Some(raw) => Subjects::Paths(PathSubject::both(raw, workspace)),
                None => Subjects::Missing(missing),
            },
            Some(None) => Subjects::Missing(missing),
        };
        // The argument names mirror what each tool accepts, aliases included, so a pattern
        // cannot be sidestepped by using the other name.
        match tool {
            "exec" => match arguments.get(&["command", "cmd"]).and_then(Value::as_str) {
                Some(command) => {
                    let sets_environment = match arguments.get(&["env"]) {
                        Some(Value::Object(variables)) => !variables.is_empty(),
                        Some(_) => true,
                        None => false,
                    };
                    Subjects::Commands {
                        strict: command_line::plain_commands(command),
                        broad: command_line::deny_candidates(command),
                        sets_environment,
                    }
                }
                None => Subjects::Missing("command"),
            },
            "read" | "write" | "edit" => path(&["path", "file_path"], None, "path"),
            "ls" => path(&["path", "dir_path"], Some("."), "path"),
            "find" | "grep" => path(&["path"], Some("."), "path"),
            // A URL that does not parse fetches nothing: the tool reports it.
            "web_fetch" => match arguments.get(&["url"]).and_then(Value::as_str) {
                Some(raw) => match reqwest::Url::parse(raw.trim()) {
                    Ok(url) => Subjects::Url(raw.to_owned(), url),
                    Err(_) => Subjects::Missing("url that parses"),
                },
                None => Subjects::Missing("url"),
            },
            "apply_patch" => match arguments.get(&["input", "patch"]).and_then(Value::as_str) {
                // A patch that does not parse writes nothing: the tool reports the parse error,
                // which helps the model more than a refusal would.
                Some(input) => Subjects::Paths(
                    apply_patch::parse(input)
                        .map(|patch| patch_paths(&patch))
                        .unwrap_or_default()
                        .iter()
                        .flat_map(|raw| PathSubject::both(raw, workspace))
                        .collect(),
                ),
                None => Subjects::Missing("input"),
            },
            _ => Subjects::Missing("arguments object"),
        }
    }

    /// A description of the first subject a deny pattern matches.
    fn first_denied_by(&self, pattern: &Pattern) -> Option<String> {
        match (self, pattern) {
            (Subjects::Commands { broad, .. }, Pattern::Command(_)) if broad.opaque.is_some() => {
                broad
                    .opaque
                    .as_ref()
                    .map(|why| format!("the command line (which {why})"))
            }
            (Subjects::Commands { broad, .. }, Pattern::Command(pattern)) => broad
                .texts
                .iter()
                .find(|command| pattern.matches(command))
                .map(|command| format!("the command `{command}`")),
            (Subjects::Paths(paths), Pattern::Path(pattern)) => paths
                .iter()
                .find(|path| pattern.matches(path))
                .map(|path| format!("the path `{}`", path.shown)),
            (Subjects::Url(shown, url), Pattern::Url(pattern)) => {
                pattern.matches(url).then(|| format!("the URL `{shown}`"))
            }
            _ => None,
        }
    }

    /// A description of the first subject no allow pattern matches, or `None` when all match.
    fn first_not_allowed(&self, patterns: &[&Pattern]) -> Option<String> {
        let command_allowed = |command: &str| {
            patterns.iter().any(|pattern| match pattern {
                Pattern::Command(pattern) => pattern.matches(command),
                Pattern::Path(_) | Pattern::Url(_) => false,
            })
        };
        let path_allowed = |path: &PathSubject| {
            patterns.iter().any(|pattern| match pattern {
                Pattern::Path(pattern) => pattern.matches(path),
                Pattern::Command(_) | Pattern::Url(_) => false,
            })
        };
        let url_allowed = |url: &reqwest::Url| {
            patterns.iter().any(|pattern| match pattern {
                Pattern::Url(pattern) => pattern.matches(url),
                Pattern::Command(_) | Pattern::Path(_) => false,
            })
        };
        match self {
            Subjects::Commands {
                sets_environment: true,
                ..
            } => Some(
                "setting environment variables through `env` is not allowed when only some \
                 commands may run, because variables can change what a command does; run the \
                 command without `env`"
                    .to_owned(),
            ),
            Subjects::Commands {
                strict: Err(not_plain),
                ..
            } => Some(format!(
                "the command line has {not_plain}, and allow rules only match plain commands \
                 joined by `;`, `&&`, `||` or `|`"
            )),
            // An empty line runs nothing; only a pattern that matches the empty text allows it.
            Subjects::Commands {
                strict: Ok(commands),
                ..
            } if commands.is_empty() => {
                (!command_allowed("")).then(|| "the empty command is not allowed".to_owned())
            }
            Subjects::Commands {
                strict: Ok(commands),
                ..
            } => commands
                .iter()
                .find(|command| {
                    !command_allowed(&command.matched_text()) && !command_allowed(&command.text)
                })
                .map(|command| format!("the command `{}` is not allowed", command.text)),
            Subjects::Paths(paths) => paths
                .iter()
                .find(|path| !path_allowed(path))
                .map(|path| format!("the path `{}` is not allowed", path.shown)),
            Subjects::Url(shown, url) => {
                (!url_allowed(url)).then(|| format!("the URL `{shown}` is not allowed"))
            }
            Subjects::Missing(argument) => Some(format!(
                "it has no `{argument}` argument to check against the allow rules"
            )),
        }
    }
}

/// Every path a patch adds, deletes, updates or moves to.
fn patch_paths(patch: &apply_patch::Patch) -> Vec<String> {
    let mut paths = Vec::new();
    for operation in &patch.operations {
        match operation {
            apply_patch::Operation::Add { path, .. } | apply_patch::Operation::Delete { path } => {
                paths.push(path.clone());
            }
            apply_patch::Operation::Update { path, move_to, .. } => {
                paths.push(path.clone());
                paths.extend(move_to.clone());
            }
        }
    }
    paths
}

/// The tools a name stands for: a built-in name, a group, `*`, or an alias (Claude Code's
/// capitalised names, OpenClaw's `bash` and `apply-patch`).
fn tools_named(name: &str) -> Option<&'static [&'static str]> {
    Some(match name {
        "*" => &ALL_TOOLS,
        "group:fs" => FILE_TOOLS,
        "group:runtime" => RUNTIME_TOOLS,
        // Not in SPEC §10, accepted because "only look" is the most common restriction.
        "group:read" => READ_ONLY_TOOLS,
        "read" | "Read" => &["read"],
        "write" | "Write" => &["write"],
        "edit" | "Edit" | "MultiEdit" => &["edit"],
        "exec" | "Bash" | "bash" => &["exec"],
        "ls" | "LS" => &["ls"],
        "find" | "Glob" => &["find"],
        "grep" | "Grep" => &["grep"],
        "apply_patch" | "apply-patch" => &["apply_patch"],
        "group:web" => WEB_TOOLS,
        "web_fetch" | "WebFetch" => &["web_fetch"],
        _ => return None,
    })
}

/// `--tools`: a union of names and groups, in [`ALL_TOOLS`] order, and its MCP entries.
fn exact_set(
    text: &str,
    profile: Profile,
) -> Result<(Vec<&'static str>, Vec<McpSelector>), PolicyError> {
    let mut named: Vec<&'static str> = Vec::new();
    let mut mcp = Vec::new();
    for entry in split_rules(text, RuleList::Tools)? {
        if entry == "default" {
            // Claude Code's `--tools default`.
            named.extend(profile.tools());
            continue;
        }
        let rule = parse_rule(&entry, RuleList::Tools)?;
        named.extend(rule.tools);
        mcp.extend(rule.mcp);
    }
    let tools = ALL_TOOLS
        .iter()
        .copied()
        .filter(|tool| named.contains(tool))
        .collect();
    Ok((tools, mcp))
}

fn parse_rules(lists: &[String], list: RuleList) -> Result<Vec<Rule>, PolicyError> {
    let mut rules = Vec::new();
    for text in lists {
        for entry in split_rules(text, list)? {
            rules.push(parse_rule(&entry, list)?);
        }
    }
    Ok(rules)
}

/// Split a list on commas and whitespace outside parentheses: `"exec(git *),read"` is two
/// rules, the space inside the parentheses belongs to the pattern.
fn split_rules(text: &str, list: RuleList) -> Result<Vec<String>, PolicyError> {
    let mut rules = Vec::new();
    let mut current = String::new();
    let mut depth = 0_usize;
    for character in text.chars() {
        match character {
            '(' => {
                depth += 1;
                current.push(character);
            }
            ')' => {
                current.push(character);
                depth = depth.checked_sub(1).ok_or_else(|| PolicyError::Malformed {
                    list,
                    rule: current.clone(),
                    problem: "has a `)` without a matching `(`",
                })?;
            }
            ',' if depth == 0 => rules.extend(finish(&mut current)),
            _ if depth == 0 && character.is_whitespace() => rules.extend(finish(&mut current)),
            _ => current.push(character),
        }
    }
    if depth > 0 {
        return Err(PolicyError::Malformed {
            list,
            rule: current,
            problem: "has a `(` without a closing `)`",
        });
    }
    rules.extend(finish(&mut current));
    Ok(rules)
}

fn finish(current: &mut String) -> Option<String> {
    let rule = std::mem::take(current);
    (!rule.is_empty()).then_some(rule)
}

/// One `NAME` or `NAME(PATTERN)`, parentheses already known to balance.
fn parse_rule(text: &str, list: RuleList) -> Result<Rule, PolicyError> {
    let malformed = |problem| PolicyError::Malformed {
        list,
        rule: text.to_owned(),
        problem,
    };
    let (name, pattern) = match text.find('(') {
        None => (text, None),
        Some(open) => {
            if closing_parenthesis(text, open) != Some(text.len() - 1) {
                return Err(malformed("has text after its closing `)`"));
            }
            (&text[..open], Some(text[open + 1..text.len() - 1].trim()))
        }
    };
    if name.is_empty() {
        return Err(malformed("has no tool name before `(`"));
    }
    let mcp = if name == "*" {
        Some(McpSelector::Everything)
    } else {
        McpSelector::parse(name)
    };
    if mcp.is_some() && name != "*" {
        if pattern.is_some() {
            return Err(malformed(
                "puts a pattern on an MCP tool; MCP rules name tools only",
            ));
        }
        return Ok(Rule {
            text: text.to_owned(),
            tools: &[],
            pattern: None,
            everything: false,
            mcp,
        });
    }
    let tools = tools_named(name).ok_or_else(|| PolicyError::UnknownTool {
        list,
        rule: text.to_owned(),
        name: name.to_owned(),
    })?;
    let pattern = match pattern {
        None => None,
        Some(_) if list == RuleList::Tools => {
            return Err(malformed("has a pattern, but --tools only names tools"));
        }
        Some("") => {
            return Err(malformed(
                "has an empty pattern; write the name alone to cover every call",
            ));
        }
        Some(_) if name == "*" => {
            return Err(malformed(
                "puts a pattern on `*`; name the tool the pattern is for",
            ));
        }
        Some(pattern) if tools == RUNTIME_TOOLS => {
            Some(Pattern::Command(CommandPattern::new(pattern)))
        }
        Some(pattern) if tools == WEB_TOOLS => {
            Some(Pattern::Url(UrlPattern::new(pattern).map_err(malformed)?))
        }
        Some(pattern) => Some(Pattern::Path(PathPattern::new(pattern).map_err(
            |source| PolicyError::InvalidPattern {
                list,
                rule: text.to_owned(),
                source,
            },
        )?)),
    };
    Ok(Rule {
        text: text.to_owned(),
        tools,
        everything: name == "*",
        pattern,
        mcp,
    })
}

/// The byte index of the `)` that closes the `(` at `open`.
fn closing_parenthesis(text: &str, open: usize) -> Option<usize> {
    let mut depth = 0_usize;
    for (index, character) in text.char_indices().skip_while(|(index, _)| *index < open) {
        match character {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(index);
                }
            }
            _ => {}
        }
    }
    None
}

/// `/a/./b/../c` → `/a/c`; `..` at the root stays at the root.
fn normalize_absolute(path: &str) -> String {
    let mut components: Vec<&str> = Vec::new();
    for component in path.split('/') {
        match component {
            "" | "." => {}
            ".." => {
                components.pop();
            }
            other => components.push(other),
        }
    }
    format!("/{}", components.join("/"))
}

/// `./src/../lib/a.rs` → `lib/a.rs`; the empty path is `.`; `None` when `..` leaves the root.
fn normalize_relative(path: &str) -> Option<String> {
    let mut components: Vec<&str> = Vec::new();
    for component in path.split('/') {
        match component {
            "" | "." => {}
            ".." => {
                components.pop()?;
            }
            other => components.push(other),
        }
    }
    Some(if components.is_empty() {
        ".".to_owned()
    } else {
        components.join("/")
    })
}

/// `absolute` relative to `root` (both normalized), or `None` when it lies outside.
fn relative_to(root: &str, absolute: &str) -> Option<String> {
    if root == absolute {
        return Some(".".to_owned());
    }
    let rest = if root == "/" {
        absolute.strip_prefix('/')
    } else {
        absolute.strip_prefix(root)?.strip_prefix('/')
    }?;
    Some(rest.to_owned())
}

impl super::sandbox::UrlGate for ToolPolicy {
    fn refuse_url(&self, url: &str) -> Option<String> {
        match self.check("web_fetch", &serde_json::json!({ "url": url })) {
            Decision::Allow => None,
            Decision::Deny { reason, .. } => Some(reason),
        }
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|item| (*item).to_owned()).collect()
    }

    fn build(
        profile: Option<&str>,
        exact: Option<&str>,
        allow: &[&str],
        deny: &[&str],
    ) -> Result<ToolPolicy, PolicyError> {
        let allow = strings(allow);
        let deny = strings(deny);
        ToolPolicy::new(&PolicySpec {
            profile,
            exact,
            allow: &allow,
            deny: &deny,
        })
    }

    fn policy(allow: &[&str], deny: &[&str]) -> ToolPolicy {
        build(None, None, allow, deny).unwrap()
    }

    fn command(text: &str) -> Value {
        json!({ "command": text })
    }

    fn path(text: &str) -> Value {
        json!({ "path": text })
    }

    /// Check `(allow rules, command line, allowed)` cases against a policy of those rules.
    fn assert_exec_allowed(cases: &[(&[&str], &str, bool)]) {
        for (allow, text, expected) in cases {
            let policy = policy(allow, &[]);
            assert_eq!(
                policy.check("exec", &command(text)).is_allowed(),
                *expected,
                "allow {allow:?}, command {text:?}"
            );
        }
    }

    fn refusing_rule(decision: Decision) -> Option<String> {
        match decision {
            Decision::Allow => None,
            Decision::Deny { rule, .. } => Some(rule),
        }
    }

    #[test]
    fn profiles_offer_their_tools_and_coding_is_the_default() {
        let coding = CODING_TOOLS.to_vec();
        let cases: [(Option<&str>, Vec<&str>); 4] = [
            (None, coding.clone()),
            (Some("minimal"), vec!["read", "ls", "find", "grep"]),
            (Some("coding"), coding),
            // Only `full` reaches the network.
            (Some("full"), ALL_TOOLS.to_vec()),
        ];
        for (profile, expected) in cases {
            let policy = build(profile, None, &[], &[]).unwrap();
            assert_eq!(policy.offered(), expected, "profile {profile:?}");
        }
        assert_eq!(ToolPolicy::default().offered(), CODING_TOOLS.to_vec());
        assert!(!CODING_TOOLS.contains(&"web_fetch"));
        assert_eq!(
            refusing_rule(
                ToolPolicy::default().check("web_fetch", &json!({"url": "https://docs.rs/"}))
            ),
            Some("profile=coding".to_owned())
        );
    }

    #[test]
    fn tools_lists_accept_names_groups_claude_names_and_separators() {
        let cases: [(&str, &[&str]); 13] = [
            ("", &[]),
            ("   ", &[]),
            (
                "group:fs",
                &["read", "write", "edit", "ls", "find", "grep", "apply_patch"],
            ),
            ("group:runtime", &["exec"]),
            ("group:read", &["read", "ls", "find", "grep"]),
            ("Bash,Read", &["read", "exec"]),
            ("Write Edit", &["write", "edit"]),
            ("MultiEdit", &["edit"]),
            ("Glob, Grep, LS", &["ls", "find", "grep"]),
            ("bash apply-patch", &["exec", "apply_patch"]),
            ("grep,read,read", &["read", "grep"]),
            ("*", &ALL_TOOLS),
            ("exec group:read", &["read", "exec", "ls", "find", "grep"]),
        ];
        for (exact, expected) in cases {
            let policy = build(None, Some(exact), &[], &[]).unwrap();
            assert_eq!(policy.offered(), expected.to_vec(), "--tools {exact:?}");
        }
    }

    #[test]
    fn tools_default_stands_for_the_profile_set() {
        let policy = build(Some("minimal"), Some("default,exec"), &[], &[]).unwrap();
        assert_eq!(policy.offered(), ["read", "exec", "ls", "find", "grep"]);
    }

    #[test]
    fn an_empty_tools_list_offers_nothing_and_refuses_every_call() {
        let policy = build(Some("full"), Some(""), &[], &[]).unwrap();
        assert!(policy.offered().is_empty());
        assert_eq!(
            policy.check("read", &path("a.txt")),
            Decision::Deny {
                rule: "--tools \"\"".to_owned(),
                reason: "The read tool is not available in this run (--tools \"\" does not \
                         include it). Use one of the available tools instead: none."
                    .to_owned(),
            }
        );
    }

    #[test]
    fn the_tools_list_replaces_the_profile() {
        let policy = build(Some("minimal"), Some("exec"), &[], &[]).unwrap();
        assert_eq!(policy.offered(), ["exec"]);
        assert!(policy.check("exec", &command("make")).is_allowed());
        assert_eq!(
            refusing_rule(policy.check("read", &path("a"))),
            Some("--tools \"exec\"".to_owned())
        );
    }

    #[test]
    fn a_tool_outside_the_profile_is_refused_naming_the_profile() {
        let policy = build(Some("minimal"), None, &[], &[]).unwrap();
        assert_eq!(
            policy.check("write", &json!({"path": "a", "content": "x"})),
            Decision::Deny {
                rule: "profile=minimal".to_owned(),
                reason: "The write tool is not available in this run (the minimal profile does \
                         not include it). Use one of the available tools instead: read, ls, \
                         find, grep."
                    .to_owned(),
            }
        );
    }

    #[test]
    fn an_allow_list_restricts_the_offered_tools_and_never_adds_to_the_base() {
        let cases: [(Option<&str>, &[&str], &[&str]); 4] = [
            (None, &["exec(git *)", "read"], &["read", "exec"]),
            (
                None,
                &["Bash(git:*)", "group:read"],
                &["read", "exec", "ls", "find", "grep"],
            ),
            // The profile is the ceiling: allowing exec does not bring it into `minimal`.
            (Some("minimal"), &["exec", "read"], &["read"]),
            (None, &[""], CODING_TOOLS),
        ];
        for (profile, allow, expected) in cases {
            let policy = build(profile, None, allow, &[]).unwrap();
            assert_eq!(policy.offered(), expected.to_vec(), "allow {allow:?}");
        }
    }

    #[test]
    fn a_tool_no_allow_rule_names_is_refused_listing_the_allow_rules() {
        let policy = policy(&["exec(git *)", "read"], &[]);
        assert_eq!(
            refusing_rule(policy.check("write", &json!({"path": "a", "content": ""}))),
            Some("exec(git *), read".to_owned())
        );
    }

    #[test]
    fn exec_allow_patterns_match_each_simple_command() {
        let cases: [(&[&str], &str, bool); 24] = [
            (&["exec(git *)"], "git status", true),
            (&["exec(git *)"], "rm -rf /", false),
            (&["exec(git *)"], "git", true),
            (&["exec(git *)"], "gitk", false),
            (&["exec(git *)"], "git    log   --oneline", true),
            (&["exec(git *)"], "  git status  ", true),
            (&["exec(git *)"], "git status && rm -rf /", false),
            (&["exec(git *)"], "git status; rm -rf /", false),
            (&["exec(git *)"], "git status\nrm -rf /", false),
            (&["exec(git *)"], "git log | sh", false),
            (&["exec(git *)"], "git log & rm -rf /", false),
            (&["exec(git *)"], "git log $(rm -rf /)", false),
            (&["exec(git *)"], "git log \"$(rm -rf /)\"", false),
            (&["exec(git *)"], "git log `rm -rf /`", false),
            (&["exec(git *)"], "(rm -rf /)", false),
            (&["exec(git *)"], "FOO=1 git status", false),
            (&["exec(git *)"], "git log 2>&1", true),
            // In dash `&>` is `&` then `>`: a background job and a file created.
            (&["exec(git *)"], "git log &> out.txt", false),
            (&["exec(git *)"], "git commit -m 'fix; rm -rf /'", true),
            (&["exec(git *)", "exec(grep *)"], "git log | grep fix", true),
            (&["Bash(git:*)"], "git log --oneline", true),
            (&["Bash(git:*)"], "gitk", false),
            (&["Bash(npm run test:*)"], "npm run test -- --watch", true),
            (&["Bash(npm run test:*)"], "npm run build", false),
        ];
        assert_exec_allowed(&cases);
    }

    #[test]
    fn an_exec_refusal_names_the_command_and_the_allow_rules() {
        let policy = policy(&["exec(git *)"], &[]);
        assert_eq!(
            policy.check("exec", &command("git status && rm -rf /")),
            Decision::Deny {
                rule: "exec(git *)".to_owned(),
                reason: "The exec call was refused: the command `rm -rf /` is not allowed; the \
                         allow rules for exec are `exec(git *)`. Try a different approach that \
                         stays within them."
                    .to_owned(),
            }
        );
    }

    #[test]
    fn exec_patterns_read_the_cmd_alias_and_refuse_a_missing_command() {
        let policy = policy(&["exec(git *)"], &[]);
        assert!(
            policy
                .check("exec", &json!({"cmd": "git diff"}))
                .is_allowed()
        );
        assert!(!policy.check("exec", &json!({"cmd": "rm x"})).is_allowed());
        assert!(!policy.check("exec", &json!({})).is_allowed());
        assert!(!policy.check("exec", &json!("git status")).is_allowed());
        // Without patterns there is nothing to check: the tool reports the missing argument.
        assert!(ToolPolicy::default().check("exec", &json!({})).is_allowed());
    }

    #[test]
    fn environment_variables_are_refused_when_only_some_commands_may_run() {
        let restricted = policy(&["exec(git *)"], &[]);
        let with_environment = json!({"command": "git log", "env": {"GIT_PAGER": "rm -rf ~"}});
        let Decision::Deny { reason, .. } = restricted.check("exec", &with_environment) else {
            panic!("expected a refusal");
        };
        assert!(reason.contains("through `env` is not allowed"), "{reason}");
        let empty_environment = json!({"command": "git log", "env": {}});
        assert!(restricted.check("exec", &empty_environment).is_allowed());
        let unrestricted = policy(&["exec"], &[]);
        assert!(unrestricted.check("exec", &with_environment).is_allowed());
    }

    fn url(text: &str) -> Value {
        json!({ "url": text })
    }

    #[test]
    fn web_fetch_is_named_by_its_name_claudes_name_and_group_web() {
        for name in ["web_fetch", "WebFetch", "group:web"] {
            let policy = build(Some("full"), Some(name), &[], &[]).unwrap();
            assert_eq!(policy.offered(), ["web_fetch"], "--tools {name}");
        }
        let policy = build(None, Some("default,web_fetch"), &[], &[]).unwrap();
        assert_eq!(policy.offered(), ALL_TOOLS.to_vec());
        let denied = build(Some("full"), None, &[], &["group:web"]).unwrap();
        assert_eq!(denied.offered(), CODING_TOOLS.to_vec());
    }

    #[test]
    fn url_patterns_allow_and_deny_web_fetch_calls_by_url() {
        let allowed = build(
            Some("full"),
            None,
            &[
                "group:fs",
                "web_fetch(https://docs.rs/*)",
                "WebFetch(domain:*.python.org)",
            ],
            &["web_fetch(https://docs.rs/private/*)"],
        )
        .unwrap();
        let cases = [
            ("https://docs.rs/serde/", true),
            ("https://docs.python.org/3/", true),
            ("https://docs.rs/private/keys", false),
            ("https://evil.example/?next=https://docs.rs/", false),
            ("https://docs.rs.evil.example/", false),
            ("http://docs.rs/", false),
            ("not a url", false),
        ];
        for (text, expected) in cases {
            assert_eq!(
                allowed.check("web_fetch", &url(text)).is_allowed(),
                expected,
                "{text}"
            );
        }
        assert!(!allowed.check("web_fetch", &json!({})).is_allowed());
        assert_eq!(
            allowed.check("web_fetch", &url("https://docs.rs/private/keys")),
            Decision::Deny {
                rule: "web_fetch(https://docs.rs/private/*)".to_owned(),
                reason: "The web_fetch call was refused: the URL `https://docs.rs/private/keys` \
                         matches the deny rule `web_fetch(https://docs.rs/private/*)`. Try a \
                         different approach that this rule does not cover."
                    .to_owned(),
            }
        );
        // A deny pattern alone leaves every other URL allowed.
        let denying = build(Some("full"), None, &[], &["web_fetch(*.internal)"]).unwrap();
        assert!(
            denying
                .check("web_fetch", &url("https://docs.rs/"))
                .is_allowed()
        );
        assert!(
            !denying
                .check("web_fetch", &url("http://wiki.internal/x"))
                .is_allowed()
        );
    }

    #[test]
    fn read_only_offers_web_fetch_only_when_a_rule_names_it() {
        let full = build(Some("full"), None, &[], &[]).unwrap();
        let read_only = full.clone().with_sandbox(SandboxMode::ReadOnly);
        assert_eq!(read_only.offered(), ["read", "exec", "ls", "find", "grep"]);
        assert_eq!(
            read_only.check("web_fetch", &url("https://docs.rs/")),
            Decision::Deny {
                rule: "sandbox=read-only".to_owned(),
                reason: "The web_fetch tool is not available in this run (the read-only \
                         sandbox offers web_fetch only when --tools or an allow rule names it). \
                         Use one of the available tools instead: read, exec, ls, find, grep."
                    .to_owned(),
            }
        );
        // `*` names every tool, none of them explicitly.
        let star = build(Some("full"), Some("*"), &[], &[])
            .unwrap()
            .with_sandbox(SandboxMode::ReadOnly);
        assert!(!star.offered().contains(&"web_fetch"));
        let by_tools = build(None, Some("read,web_fetch"), &[], &[])
            .unwrap()
            .with_sandbox(SandboxMode::ReadOnly);
        assert_eq!(by_tools.offered(), ["read", "web_fetch"]);
        let by_allow = build(
            Some("full"),
            None,
            &["group:read", "web_fetch(https://docs.rs/*)"],
            &[],
        )
        .unwrap()
        .with_sandbox(SandboxMode::ReadOnly);
        assert_eq!(
            by_allow.offered(),
            ["read", "ls", "find", "grep", "web_fetch"]
        );
        assert!(
            by_allow
                .check("web_fetch", &url("https://docs.rs/x"))
                .is_allowed()
        );
    }

    #[test]
    fn a_read_only_sandbox_offers_no_writing_tool_and_refuses_a_call_of_one() {
        let read_only = ToolPolicy::default().with_sandbox(SandboxMode::ReadOnly);
        assert_eq!(read_only.offered(), ["read", "exec", "ls", "find", "grep"]);
        assert_eq!(read_only.describe()["offered"], json!(read_only.offered()));
        assert_eq!(
            read_only.check("write", &json!({"path": "a", "content": ""})),
            Decision::Deny {
                rule: "sandbox=read-only".to_owned(),
                reason: "The write tool is not available in this run (the read-only sandbox \
                         allows no file to be created, changed or deleted). Use one of the \
                         available tools instead: read, exec, ls, find, grep."
                    .to_owned(),
            }
        );
        for mode in [SandboxMode::WorkspaceWrite, SandboxMode::DangerFullAccess] {
            let writable = policy(&["group:fs"], &[]).with_sandbox(mode);
            assert_eq!(
                writable.offered(),
                ["read", "write", "edit", "ls", "find", "grep", "apply_patch"]
            );
        }
        // Leaving read-only again restores the tools.
        let back = read_only.with_sandbox(SandboxMode::WorkspaceWrite);
        assert_eq!(back.offered(), CODING_TOOLS.to_vec());
    }

    #[test]
    fn a_deny_rule_without_a_pattern_removes_the_tool() {
        let policy = policy(&[], &["exec", "Write"]);
        assert_eq!(
            policy.offered(),
            ["read", "edit", "ls", "find", "grep", "apply_patch"]
        );
        assert_eq!(
            policy.check("exec", &command("ls")),
            Decision::Deny {
                rule: "exec".to_owned(),
                reason: "The exec tool is not available in this run (removed by the deny rule \
                         `exec`). Use one of the available tools instead: read, edit, ls, find, \
                         grep, apply_patch."
                    .to_owned(),
            }
        );
    }

    #[test]
    fn exec_allow_patterns_never_match_what_is_not_plain_commands() {
        // (allow rules, command line, allowed)
        let cases: [(&[&str], &str, bool); 39] = [
            (&["exec(git *)"], "git log \"$(rm -rf ~)\"", false),
            (&["exec(git *)"], "git log '$(rm -rf ~)'", true),
            (&["exec(git *)"], "git log \"`rm -rf ~`\"", false),
            (&["exec(git *)"], "git log $HOME", false),
            (&["exec(git *)"], "eval git status", false),
            (&["exec(git *)"], "git apply <<EOF\n+rm\nEOF", false),
            (&["exec(git *)"], "git log > notes.txt", false),
            (&["exec(git *)"], "git log >> notes.txt", false),
            (&["exec(git *)"], "git log 2>&1", true),
            (&["exec(git *)"], "git log >/dev/null 2>&1", true),
            (&["exec(git *)"], "bash -c 'git status'", false),
            (&["exec(git *)"], "sh -c \"git status; rm -rf x\"", false),
            (&["exec(bash *)"], "bash -c 'rm -rf x'", true),
            (&["exec(git *)"], "git status\nrm -rf x", false),
            (&["exec(git *)"], "git status\n\ngit log\n", true),
            (&["exec(git *)"], "git status #\nrm -rf x", false),
            (&["exec(git *)"], "git status # rm -rf x", false),
            (&["exec(git *)"], "git commit -m \"a; b\"", true),
            (&["exec(git *)"], "git commit -m 'a && rm -rf x'", true),
            (&["exec(git *)"], "env FOO=x rm x", false),
            (&["exec(git *)"], "env GIT_DIR=x git status", false),
            (&["exec(git *)"], "A=b git status", false),
            (&["exec(git *)"], "exec git status", false),
            (&["exec(git *)"], "(git status)", false),
            (&["exec(git *)"], "{ git status; }", false),
            (&["exec(git *)"], "g() { rm x; }; git status", false),
            (&["exec(git *)"], "git status &", false),
            (&["exec(git *)"], "git status )", false),
            (&["exec(git *)"], "gi\\\nt status", false),
            (&["exec(git *)"], "git log \\\n  --oneline", true),
            (&["exec(git *)"], "\"git\" 'status'", true),
            (&["Bash(git:*)"], "git status && rm x", false),
            (&["Bash(git:*)"], "git diff \"$(cat x)\"", false),
            (
                &["Bash(git:*)", "Bash(grep:*)"],
                "git log | grep -c fix",
                true,
            ),
            // `exec(*)` still wants plain commands; the bare name allows every line.
            (&["exec(*)"], "echo $HOME", false),
            // Patterns see the words without quotes, and the command as written.
            (&["exec(git commit -m *)"], "git commit -m 'a b'", true),
            (&["exec(touch 'a b')"], "touch 'a b'", true),
            (&["exec(touch 'a b')"], "touch a b", false),
            (&["exec"], "echo $HOME", true),
        ];
        assert_exec_allowed(&cases);
    }

    #[test]
    fn a_refusal_of_a_line_that_is_not_plain_says_what_is_in_it() {
        let policy = policy(&["exec(git *)"], &[]);
        assert_eq!(
            policy.check("exec", &command("git log \"$(rm -rf ~)\"")),
            Decision::Deny {
                rule: "exec(git *)".to_owned(),
                reason: "The exec call was refused: the command line has a command substitution \
                         (`$(rm -rf ~)`), and allow rules only match plain commands joined by \
                         `;`, `&&`, `||` or `|`; the allow rules for exec are `exec(git *)`. Try \
                         a different approach that stays within them."
                    .to_owned(),
            }
        );
        let Decision::Deny { reason, .. } = policy.check("exec", &command("")) else {
            panic!("an empty line matches only a pattern for the empty text");
        };
        assert!(
            reason.contains("the empty command is not allowed"),
            "{reason}"
        );
        assert!(
            self::policy(&["exec(*)"], &[])
                .check("exec", &command(""))
                .is_allowed()
        );
    }

    #[test]
    fn exec_deny_patterns_find_commands_anywhere_and_refuse_what_they_cannot_read() {
        let cases: [(&str, bool); 18] = [
            ("git log \"$(rm -rf ~)\"", false),
            ("bash -c 'rm x'", false),
            ("sh -c \"cd /tmp && rm -r x\"", false),
            ("sh <<EOF\nrm x\nEOF", false),
            ("echo 'rm x' | sh", false),
            ("find . -name '*.o' -exec rm {} +", false),
            ("ls | xargs rm", false),
            ("/bin/rm x", false),
            ("\\rm x", false),
            ("r\\\nm x", false),
            ("$(echo rm) x", false),
            ("A=rm; $A x", false),
            ("git status ) rm x", false),
            ("eval 'rm x'", false),
            ("git rm --cached x", true),
            ("echo 'rm x'", true),
            ("git log \"$(date)\"", true),
            ("cat <<EOF\nrm is a command\nEOF", true),
        ];
        let policy = policy(&[], &["exec(rm *)"]);
        for (text, expected) in cases {
            assert_eq!(
                policy.check("exec", &command(text)).is_allowed(),
                expected,
                "command {text:?}"
            );
        }
        assert_eq!(
            policy.check("exec", &command("$(echo rm) x")),
            Decision::Deny {
                rule: "exec(rm *)".to_owned(),
                reason: "The exec call was refused: the command line (which runs a command whose \
                         name is computed, `$(echo rm)`) matches the deny rule `exec(rm *)`. Try \
                         a different approach that this rule does not cover."
                    .to_owned(),
            }
        );
    }

    #[test]
    fn exec_deny_patterns_see_through_chains_wrappers_and_assignments() {
        let cases: [(&str, bool); 11] = [
            ("rm -rf /", false),
            ("rm", false),
            ("ls && rm -rf build", false),
            ("sudo rm -rf /", false),
            ("FOO=1 rm x", false),
            ("env -i rm x", false),
            ("if true; then rm x; fi", false),
            ("echo $(rm x)", false),
            ("git rm --cached x", true),
            ("echo 'rm x'", true),
            ("ls -la", true),
        ];
        let policy = policy(&[], &["exec(rm *)"]);
        assert_eq!(policy.offered(), CODING_TOOLS.to_vec());
        for (text, expected) in cases {
            assert_eq!(
                policy.check("exec", &command(text)).is_allowed(),
                expected,
                "command {text:?}"
            );
        }
    }

    #[test]
    fn exec_deny_patterns_see_through_aliases_sourced_text_and_command_running_wrappers() {
        let refused = [
            // An alias can make any word run any command: every exec deny rule refuses it.
            "alias x=rm; x -rf /",
            "alias x=rm\nx -rf /",
            "alias ll='ls -l'; ll",
            "command alias x=rm",
            "eval 'alias x=rm'",
            "sh <<EOF\nalias x=rm\nx -rf y\nEOF",
            // Text a `.` or `source` reads from stdin, a here-doc or a process substitution.
            ". /dev/stdin <<< 'rm -rf x'",
            "source /dev/stdin <<< 'rm -rf x'",
            "source <(echo rm -rf x)",
            ". <(printf 'rm -rf x')",
            ". /dev/stdin <<EOF\nrm -rf x\nEOF",
            ". <<EOF\nrm -rf x\nEOF",
            "command . /dev/stdin <<< 'rm -rf x'",
            // Programs that run a command: in their words, or as a script of their own.
            "flock /tmp/l rm -rf x",
            "flock -x -w 5 /tmp/l rm -rf x",
            "flock -c 'rm -rf x' /tmp/l",
            "flock /tmp/l -c 'rm -rf x'",
            "flock --command='rm -rf x' /tmp/l",
            "flock -xc 'rm -rf x' /tmp/l",
            "script -c 'rm -rf x' /dev/null",
            "script -qc 'rm -rf x' /dev/null",
            "script --command 'rm -rf x' /dev/null",
            "script -q -c'rm -rf x' /dev/null",
            "busybox rm -rf x",
            "busybox sh -c 'rm -rf x'",
            "/bin/busybox rm -rf x",
            "env -S 'rm -rf x'",
            "env -S'rm -rf x'",
            "env -S 'rm -rf' x",
            "env --split-string='rm -rf x'",
            "env --split-string 'rm -rf x'",
            "env -iS 'rm -rf x'",
            "env -S 'FOO=1 rm -rf x'",
            "env -S \"sh -c 'rm -rf x'\"",
            "su -c 'rm -rf x'",
            "runuser -u nobody -- rm -rf x",
            "unshare -r rm -rf x",
        ];
        let policy = policy(&[], &["exec(rm *)"]);
        let bypassed: Vec<&str> = refused
            .into_iter()
            .filter(|text| {
                refusing_rule(policy.check("exec", &command(text))).as_deref() != Some("exec(rm *)")
            })
            .collect();
        assert_eq!(bypassed, Vec::<&str>::new());
        assert_eq!(
            policy.check("exec", &command("alias x=rm; x -rf /")),
            Decision::Deny {
                rule: "exec(rm *)".to_owned(),
                reason: "The exec call was refused: the command line (which uses `alias` in \
                         `alias x=rm`, and an alias can make any word run any command) matches \
                         the deny rule `exec(rm *)`. Try a different approach that this rule \
                         does not cover."
                    .to_owned(),
            }
        );
        for allowed in [
            "env FOO=1 cargo test",
            "env -u HOME cargo test",
            "flock /tmp/l cargo test",
            "flock -c 'cargo test' /tmp/l",
            "script -qc 'cargo test' /dev/null",
            "busybox ls",
            "env -S 'cargo test'",
            ". ./env.sh",
            "source ~/.cargo/env && cargo build",
            "echo alias",
            "git log --grep alias",
        ] {
            assert!(
                policy.check("exec", &command(allowed)).is_allowed(),
                "command {allowed:?}"
            );
        }
        // Allow rules: a wrapper is allowed by a rule for the wrapper (deny still wins), and an
        // alias definition is never plain.
        let wrapped = self::policy(&["exec(flock *)", "exec(cargo *)"], &["exec(rm *)"]);
        assert!(
            wrapped
                .check("exec", &command("flock /tmp/l cargo test"))
                .is_allowed()
        );
        assert!(
            !wrapped
                .check("exec", &command("flock /tmp/l rm -rf x"))
                .is_allowed()
        );
        assert!(
            !wrapped
                .check("exec", &command("flock -c 'rm -rf x' /tmp/l"))
                .is_allowed()
        );
        let everything = self::policy(&["exec"], &[]);
        assert!(
            everything
                .check("exec", &command("alias x=rm"))
                .is_allowed()
        );
        let any_plain = self::policy(&["exec(*)"], &[]);
        assert!(!any_plain.check("exec", &command("alias x=rm")).is_allowed());
        let aliases = self::policy(&["exec(alias *)", "exec(x *)"], &[]);
        assert!(
            !aliases
                .check("exec", &command("alias x=rm; x -rf /"))
                .is_allowed()
        );
    }

    #[test]
    fn deny_wins_over_allow() {
        let whole = policy(&["exec", "read"], &["Bash"]);
        assert_eq!(whole.offered(), ["read"]);
        assert_eq!(
            refusing_rule(whole.check("exec", &command("ls"))),
            Some("Bash".to_owned())
        );

        let narrow = policy(&["exec(git *)"], &["exec(git push*)"]);
        assert!(narrow.check("exec", &command("git status")).is_allowed());
        assert_eq!(
            narrow.check("exec", &command("git push --force origin")),
            Decision::Deny {
                rule: "exec(git push*)".to_owned(),
                reason: "The exec call was refused: the command `git push --force origin` \
                         matches the deny rule `exec(git push*)`. Try a different approach that \
                         this rule does not cover."
                    .to_owned(),
            }
        );
    }

    #[test]
    fn path_allow_patterns_match_the_path_relative_to_the_workspace() {
        let cases: [(&str, &str, &str, bool); 17] = [
            ("read(./src/**)", "read", "src/main.rs", true),
            ("read(./src/**)", "read", "./src/a/b/c.rs", true),
            ("read(./src/**)", "read", "src//lib.rs", true),
            ("read(./src/**)", "read", "secrets.txt", false),
            ("read(./src/**)", "read", "src/../secrets.txt", false),
            ("read(./src/**)", "read", "../outside/src/a.rs", false),
            ("read(./src/**)", "read", "/ws/src/main.rs", true),
            ("read(./src/**)", "read", "/elsewhere/src/main.rs", false),
            ("read(src/*.rs)", "read", "src/a.rs", true),
            ("read(src/*.rs)", "read", "src/a/b.rs", false),
            ("Read(//etc/**)", "read", "/etc/hosts", true),
            ("read(/etc/hosts)", "read", "etc/hosts", false),
            ("group:read(src/**)", "grep", "src", true),
            ("group:read(src/**)", "grep", ".", false),
            ("group:read(src/**)", "ls", "src/tools", true),
            ("group:fs(docs/**)", "write", "docs/a.md", true),
            ("read(**)", "read", "any/where.txt", true),
        ];
        for (rule, tool, raw, expected) in cases {
            let policy = policy(&[rule], &[]).with_workspace(Path::new("/ws"));
            assert_eq!(
                policy.check(tool, &path(raw)).is_allowed(),
                expected,
                "rule {rule}, {tool} {raw}"
            );
        }
    }

    #[test]
    fn without_a_workspace_absolute_paths_match_only_absolute_patterns() {
        let policy = policy(&["read(src/**)", "read(/etc/*)"], &[]);
        assert!(policy.check("read", &path("src/a.rs")).is_allowed());
        assert!(!policy.check("read", &path("/ws/src/a.rs")).is_allowed());
        assert!(policy.check("read", &path("/etc/hosts")).is_allowed());
    }

    #[test]
    fn path_patterns_read_each_tools_argument_names_and_defaults() {
        let policy = policy(&["group:fs(src/**)"], &[]).with_workspace(Path::new("/ws"));
        let cases: [(&str, Value, bool); 9] = [
            (
                "edit",
                json!({"file_path": "src/a.rs", "old_string": "a", "new_string": "b"}),
                true,
            ),
            (
                "edit",
                json!({"file_path": "b.rs", "old_string": "a", "new_string": "b"}),
                false,
            ),
            (
                "write",
                json!({"file_path": "/ws/src/new.rs", "content": ""}),
                true,
            ),
            ("ls", json!({"dir_path": "src"}), true),
            ("ls", json!({}), false),
            ("find", json!({"pattern": "*.rs"}), false),
            ("find", json!({"pattern": "*.rs", "path": "src"}), true),
            ("grep", json!({"pattern": "x", "path": "src/tools"}), true),
            ("read", json!({"path": 7}), false),
        ];
        for (tool, arguments, expected) in cases {
            assert_eq!(
                policy.check(tool, &arguments).is_allowed(),
                expected,
                "{tool} {arguments}"
            );
        }
    }

    #[test]
    fn a_path_deny_pattern_refuses_matching_paths_only() {
        let policy = policy(&[], &["group:fs(.env)", "write(./secrets/**)"])
            .with_workspace(Path::new("/ws"));
        assert_eq!(policy.offered(), CODING_TOOLS.to_vec());
        let cases: [(&str, &str, bool); 6] = [
            ("read", ".env", false),
            ("read", "/ws/.env", false),
            ("read", "sub/../.env", false),
            ("read", "src/.env", true),
            ("write", "secrets/key", false),
            ("read", "secrets/key", true),
        ];
        for (tool, raw, expected) in cases {
            let arguments = json!({"path": raw, "content": ""});
            assert_eq!(
                policy.check(tool, &arguments).is_allowed(),
                expected,
                "{tool} {raw}"
            );
        }
        assert_eq!(
            policy.check("read", &path("./.env")),
            Decision::Deny {
                rule: "group:fs(.env)".to_owned(),
                reason: "The read call was refused: the path `./.env` matches the deny rule \
                         `group:fs(.env)`. Try a different approach that this rule does not \
                         cover."
                    .to_owned(),
            }
        );
    }

    #[test]
    fn apply_patch_is_checked_against_every_path_in_the_patch() {
        let patch =
            |body: &str| json!({"input": format!("*** Begin Patch\n{body}*** End Patch\n")});
        let allowed = policy(&["apply_patch(src/**)"], &[]);
        let inside =
            patch("*** Add File: src/new.rs\n+fn main() {}\n*** Delete File: src/old.rs\n");
        assert!(allowed.check("apply_patch", &inside).is_allowed());
        let moved_out = patch("*** Update File: src/a.rs\n*** Move to: secrets/a.rs\n@@\n-a\n+b\n");
        assert_eq!(
            refusing_rule(allowed.check("apply_patch", &moved_out)),
            Some("apply_patch(src/**)".to_owned())
        );
        // A patch that does not parse writes nothing; the tool itself explains why.
        assert!(
            allowed
                .check("apply_patch", &json!({"input": "not a patch"}))
                .is_allowed()
        );
        assert!(!allowed.check("apply_patch", &json!({})).is_allowed());

        let denied = policy(&[], &["group:fs(secrets/**)"]);
        let deletion = patch("*** Delete File: src/a.rs\n*** Delete File: secrets/b\n");
        let Decision::Deny { reason, .. } = denied.check("apply_patch", &deletion) else {
            panic!("expected a refusal");
        };
        assert!(reason.contains("the path `secrets/b`"), "{reason}");
    }

    #[test]
    fn rule_lists_split_on_commas_and_spaces_outside_parentheses() {
        let cases: [(&str, &[&str]); 6] = [
            ("exec(git *),read", &["exec(git *)", "read"]),
            ("exec(git *) read", &["exec(git *)", "read"]),
            ("exec(echo a,b), grep", &["exec(echo a,b)", "grep"]),
            ("exec(echo (a b))", &["exec(echo (a b))"]),
            (" , ,read,,", &["read"]),
            (
                "Bash(npm run test:*)\tRead(./src/**)",
                &["Bash(npm run test:*)", "Read(./src/**)"],
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(
                split_rules(text, RuleList::Allow).unwrap(),
                strings(expected),
                "{text:?}"
            );
        }
    }

    #[test]
    fn a_comma_inside_a_pattern_belongs_to_the_pattern() {
        let policy = policy(&["exec(echo a,b),read(notes,v2.txt)"], &[]);
        assert_eq!(policy.offered(), ["read", "exec"]);
        assert!(policy.check("exec", &command("echo a,b")).is_allowed());
        assert!(!policy.check("exec", &command("echo a")).is_allowed());
        assert!(policy.check("read", &path("notes,v2.txt")).is_allowed());
        assert!(!policy.check("read", &path("notes")).is_allowed());
    }

    #[test]
    fn bad_rules_and_names_are_rejected_naming_the_rule() {
        // (allow list, deny list, the start of the message)
        let cases: [(&[&str], &[&str], &str); 12] = [
            (&["Foo"], &[], "unknown tool `Foo` in the allow rule `Foo`"),
            (
                &[],
                &["exec,Teleport(x)"],
                "unknown tool `Teleport` in the deny rule `Teleport(x)`",
            ),
            (
                &["BASH"],
                &[],
                "unknown tool `BASH` in the allow rule `BASH`",
            ),
            (
                &["group:net"],
                &[],
                "unknown tool `group:net` in the allow rule `group:net`",
            ),
            (
                &["web_fetch(ftp://x/*)"],
                &[],
                "the allow rule `web_fetch(ftp://x/*)` has a URL pattern whose scheme is not \
                 http, https or *",
            ),
            (
                &["exec(git *"],
                &[],
                "the allow rule `exec(git *` has a `(` without a closing `)`",
            ),
            (
                &["exec)"],
                &[],
                "the allow rule `exec)` has a `)` without a matching `(`",
            ),
            (
                &["exec()"],
                &[],
                "the allow rule `exec()` has an empty pattern",
            ),
            (
                &["*(x)"],
                &[],
                "the allow rule `*(x)` puts a pattern on `*`",
            ),
            (
                &["exec(a)b"],
                &[],
                "the allow rule `exec(a)b` has text after its closing `)`",
            ),
            (
                &["(git *)"],
                &[],
                "the allow rule `(git *)` has no tool name before `(`",
            ),
            (
                &[],
                &["read([)"],
                "the deny rule `read([)` has an invalid pattern",
            ),
        ];
        for (allow, deny, expected) in cases {
            let message = build(None, None, allow, deny).unwrap_err().to_string();
            assert!(
                message.starts_with(expected),
                "got {message}, expected {expected}"
            );
        }
    }

    #[test]
    fn bad_profiles_and_tools_entries_are_rejected_naming_them() {
        let cases: [(Option<&str>, Option<&str>, &str); 3] = [
            (
                None,
                Some("read,Shell"),
                "unknown tool `Shell` in the --tools entry `Shell`",
            ),
            (Some("huge"), None, "unknown tool profile `huge`"),
            (
                None,
                Some("exec(git *)"),
                "the --tools entry `exec(git *)` has a pattern, but --tools only names tools",
            ),
        ];
        for (profile, exact, expected) in cases {
            let message = build(profile, exact, &[], &[]).unwrap_err().to_string();
            assert_eq!(message, expected);
        }
    }

    #[test]
    fn error_hints_list_the_valid_names() {
        let unknown = build(None, None, &["Foo"], &[]).unwrap_err();
        assert!(
            unknown.hint().starts_with("valid names: read, write"),
            "{}",
            unknown.hint()
        );
        let claude = build(None, None, &["WebSearch"], &[]).unwrap_err();
        assert!(
            claude
                .hint()
                .starts_with("pincer has no equivalent of Claude Code's WebSearch; valid names:"),
            "{}",
            claude.hint()
        );
        let profile = build(Some("max"), None, &[], &[]).unwrap_err();
        assert_eq!(profile.hint(), "valid profiles: minimal, coding, full");
        let pattern = build(None, Some("read(x)"), &[], &[]).unwrap_err();
        assert!(
            pattern.hint().contains("--allowed-tools"),
            "{}",
            pattern.hint()
        );
    }

    #[test]
    fn an_unknown_tool_call_is_refused_listing_the_offered_tools() {
        let policy = build(Some("minimal"), None, &[], &[]).unwrap();
        assert_eq!(
            policy.check("teleport", &json!({})),
            Decision::Deny {
                rule: "teleport".to_owned(),
                reason: "There is no tool named teleport in this run. Use one of the available \
                         tools: read, ls, find, grep."
                    .to_owned(),
            }
        );
    }

    #[test]
    fn describe_shows_profile_tools_offered_and_rules() {
        let policy = build(
            Some("full"),
            None,
            &["exec(git *),read", "group:read"],
            &["exec(git push*)"],
        )
        .unwrap();
        assert_eq!(
            policy.describe(),
            json!({
                "profile": "full",
                "tools": null,
                "offered": ["read", "exec", "ls", "find", "grep"],
                "allow": ["exec(git *)", "read", "group:read"],
                "deny": ["exec(git push*)"],
            })
        );
        let exact = build(None, Some("read"), &[], &[]).unwrap();
        assert_eq!(exact.describe()["tools"], "read");
        assert_eq!(exact.describe()["offered"], json!(["read"]));
    }

    #[test]
    fn wildcards_match_any_text_and_literals_match_exactly() {
        let cases: [(&str, &str, bool); 10] = [
            ("git *", "git status", true),
            ("git *", "git", false),
            ("git *", "gitk x", false),
            ("*", "", true),
            ("*", "anything at all /", true),
            ("make", "make", true),
            ("make", "make all", false),
            ("a*b*c", "a-b-b-c", true),
            ("a*b*c", "a-c-b", false),
            ("*ab*ab", "abab", true),
        ];
        for (pattern, text, expected) in cases {
            assert_eq!(
                wildcard_match(pattern, text),
                expected,
                "{pattern} vs {text}"
            );
        }
    }

    #[test]
    fn paths_normalize_lexically() {
        assert_eq!(normalize_absolute("/a/./b/../c/"), "/a/c");
        assert_eq!(normalize_absolute("/../x"), "/x");
        assert_eq!(
            normalize_relative("./src/../lib/a.rs").as_deref(),
            Some("lib/a.rs")
        );
        assert_eq!(normalize_relative(".").as_deref(), Some("."));
        assert_eq!(normalize_relative("a/../../b"), None);
        assert_eq!(relative_to("/ws", "/ws").as_deref(), Some("."));
        assert_eq!(relative_to("/ws", "/ws/a/b").as_deref(), Some("a/b"));
        assert_eq!(relative_to("/ws", "/wsx/a"), None);
        assert_eq!(relative_to("/", "/a").as_deref(), Some("a"));
    }

    fn mcp_tool(server: &str, tool: &str, read_only: bool) -> McpTool {
        McpTool {
            name: format!("mcp__{server}__{tool}"),
            server: server.to_owned(),
            tool: tool.to_owned(),
            read_only,
        }
    }

    fn mcp_tools() -> Vec<McpTool> {
        vec![
            mcp_tool("fs", "read_file", true),
            mcp_tool("fs", "write_file", false),
            mcp_tool("github", "get_issue", false),
        ]
    }

    fn with_mcp(
        exact: Option<&str>,
        allow: &[&str],
        deny: &[&str],
        mode: SandboxMode,
    ) -> ToolPolicy {
        build(None, exact, allow, deny)
            .unwrap()
            .with_sandbox(mode)
            .with_mcp_tools(mcp_tools())
    }

    #[test]
    fn mcp_tools_follow_tools_allow_and_deny_rules_but_not_the_profile() {
        let all = strings(&[
            "mcp__fs__read_file",
            "mcp__fs__write_file",
            "mcp__github__get_issue",
        ]);
        let write = SandboxMode::WorkspaceWrite;
        type Case<'a> = (Option<&'a str>, &'a [&'a str], &'a [&'a str], Vec<String>);
        let cases: [Case<'_>; 9] = [
            (None, &[], &[], all.clone()),
            (Some("read"), &[], &[], vec![]),
            (Some("read,group:mcp"), &[], &[], all.clone()),
            (
                Some("mcp__github"),
                &[],
                &[],
                strings(&["mcp__github__get_issue"]),
            ),
            (
                None,
                &["mcp__github__*"],
                &[],
                strings(&["mcp__github__get_issue"]),
            ),
            (None, &["group:mcp:fs"], &[], all[..2].to_vec()),
            (None, &["read"], &[], vec![]),
            (
                None,
                &[],
                &["mcp__fs__write_file"],
                strings(&["mcp__fs__read_file", "mcp__github__get_issue"]),
            ),
            (None, &["*"], &["group:mcp"], vec![]),
        ];
        for (exact, allow, deny, expected) in cases {
            let policy = with_mcp(exact, allow, deny, write);
            assert_eq!(
                policy.offered_mcp(),
                expected,
                "{exact:?} {allow:?} {deny:?}"
            );
        }
        let minimal = build(Some("minimal"), None, &[], &[])
            .unwrap()
            .with_mcp_tools(mcp_tools());
        assert_eq!(minimal.offered_mcp(), all);
        // An allow rule naming only MCP tools leaves no built-in tool, as any allow list does.
        assert!(
            with_mcp(None, &["mcp__github__*"], &[], write)
                .offered()
                .is_empty()
        );
    }

    #[test]
    fn read_only_offers_mcp_tools_marked_read_only_or_allowed_by_name() {
        let read_only = SandboxMode::ReadOnly;
        assert_eq!(
            with_mcp(None, &[], &[], read_only).offered_mcp(),
            ["mcp__fs__read_file"]
        );
        assert_eq!(
            with_mcp(None, &["*"], &[], read_only).offered_mcp(),
            ["mcp__fs__read_file"],
            "`*` is not an explicit allow"
        );
        assert_eq!(
            with_mcp(None, &["read", "mcp__github__get_issue"], &[], read_only).offered_mcp(),
            ["mcp__github__get_issue"]
        );
        let policy = with_mcp(None, &[], &[], read_only);
        let decision = policy.check("mcp__fs__write_file", &json!({}));
        assert_eq!(
            refusing_rule(decision).as_deref(),
            Some("sandbox=read-only")
        );
        assert!(policy.check("mcp__fs__read_file", &json!({})).is_allowed());
    }

    #[test]
    fn calls_of_mcp_tools_that_are_not_offered_are_refused_by_the_rule() {
        let policy = with_mcp(
            None,
            &[],
            &["group:mcp:github"],
            SandboxMode::WorkspaceWrite,
        );
        assert!(
            policy
                .check("mcp__fs__write_file", &json!({"path": "x"}))
                .is_allowed()
        );
        match policy.check("mcp__github__get_issue", &json!({})) {
            Decision::Deny { rule, reason } => {
                assert_eq!(rule, "group:mcp:github");
                assert!(reason.contains("mcp__fs__read_file"), "{reason}");
            }
            Decision::Allow => panic!("allowed"),
        }
        assert_eq!(
            refusing_rule(policy.check("mcp__other__tool", &json!({}))).as_deref(),
            Some("mcp__other__tool")
        );
        let error = build(None, None, &["mcp__fs__read_file(/etc/*)"], &[]).unwrap_err();
        assert!(error.to_string().contains("MCP"), "{error}");
    }

    #[test]
    fn mcp_access_says_how_much_of_a_server_a_cli_backend_may_use() {
        let write = SandboxMode::WorkspaceWrite;
        let access = |allow: &[&str], deny: &[&str], mode| {
            build(None, None, allow, deny)
                .unwrap()
                .with_sandbox(mode)
                .mcp_access("fs")
        };
        assert_eq!(access(&[], &[], write), McpAccess::All);
        assert_eq!(access(&[], &["mcp__fs"], write), McpAccess::Denied);
        assert_eq!(access(&["read"], &[], write), McpAccess::Denied);
        assert_eq!(access(&["group:mcp"], &[], write), McpAccess::All);
        assert_eq!(
            access(&["mcp__fs__read_file", "mcp__gh__x"], &[], write),
            McpAccess::Tools(strings(&["mcp__fs__read_file"]))
        );
        assert_eq!(access(&[], &[], SandboxMode::ReadOnly), McpAccess::Denied);
        assert_eq!(
            access(&["*"], &[], SandboxMode::ReadOnly),
            McpAccess::Denied
        );
        let policy = build(None, None, &[], &["mcp__fs__write_file", "group:mcp:x"]).unwrap();
        assert_eq!(policy.mcp_deny_patterns(), ["mcp__fs__write_file"]);
    }

    #[test]
    fn only_a_rule_that_names_the_call_allows_it_explicitly() {
        let ls = command("ls -la");
        assert!(policy(&["exec"], &[]).allows_explicitly("exec", &ls));
        assert!(policy(&["Bash(ls:*)"], &[]).allows_explicitly("exec", &ls));
        assert!(!policy(&["Bash(git:*)"], &[]).allows_explicitly("exec", &ls));
        assert!(!policy(&["*"], &[]).allows_explicitly("exec", &ls));
        assert!(!policy(&[], &[]).allows_explicitly("exec", &ls));
        assert!(!policy(&["read"], &[]).allows_explicitly("exec", &ls));
        let tools = vec![mcp_tool("kv", "lookup", true)];
        let named = policy(&["mcp__kv__lookup"], &[]).with_mcp_tools(tools.clone());
        assert!(named.allows_explicitly("mcp__kv__lookup", &json!({})));
        let everything = policy(&["*"], &[]).with_mcp_tools(tools);
        assert!(!everything.allows_explicitly("mcp__kv__lookup", &json!({})));
    }
}
