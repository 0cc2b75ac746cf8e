//! The run's MCP servers handed to a CLI backend (SPEC §13), which starts them itself.
//!
//! `claude` gets them as a `--mcp-config` file in its own `.mcp.json` format (with
//! `--strict-mcp-config` when pincer was given it), variables kept as `${VAR}` references
//! that claude expands; the tool policy becomes `--allowedTools` / `--disallowedTools`
//! entries (`mcp__SERVER`, `mcp__SERVER__TOOL`). `codex` gets `-c mcp_servers.NAME.KEY=VALUE`
//! overrides; values that may be secret never go on its argv: a stdio server's `env` reaches
//! it through codex's environment and `env_vars`, header values through `env_http_headers`.
//! Pure: what to write, pass and set; the CLI engine (`engine/cli.rs`) and `commands/turn.rs` do it.

use serde_json::{Map, Value, json};

use crate::mcp::{McpConfig, ServerSpec, TransportSpec};
use crate::tools::policy::{McpAccess, ToolPolicy};

/// The servers the policy lets the child use at all, with what it allows of each.
fn usable<'a>(
    config: &'a McpConfig,
    policy: &'a ToolPolicy,
) -> impl Iterator<Item = (&'a ServerSpec, McpAccess)> + 'a {
    config
        .enabled()
        // A server refused a key variable is not started here, nor by the child.
        .filter(|server| server.refused.is_none())
        .filter_map(|server| match policy.mcp_access(&server.name) {
            McpAccess::Denied => None,
            access => Some((server, access)),
        })
}

/// The `--mcp-config` file for claude: `{"mcpServers": {…}}`, or `None` without servers.
pub fn claude_config(config: &McpConfig, policy: &ToolPolicy) -> Option<Value> {
    let servers: Map<String, Value> = usable(config, policy)
        .map(|(server, _)| (server.name.clone(), server.claude_form.clone()))
        .collect();
    (!servers.is_empty()).then(|| json!({ "mcpServers": servers }))
}

/// [`claude_config`] as `--dry-run` shows it: values of `env` and headers that are not
/// `${VAR}` references are hidden.
pub fn claude_config_shown(config: &McpConfig, policy: &ToolPolicy) -> Option<Value> {
    let mut file = claude_config(config, policy)?;
    if let Some(servers) = file["mcpServers"].as_object_mut() {
        for server in servers.values_mut() {
            for key in ["env", "headers"] {
                if let Some(values) = server.get_mut(key).and_then(Value::as_object_mut) {
                    for value in values.values_mut() {
                        let is_reference = value
                            .as_str()
                            .is_some_and(|text| text.contains("${") && !has_literal_secret(text));
                        if !is_reference {
                            *value = Value::String("(hidden)".to_owned());
                        }
                    }
                }
            }
        }
    }
    Some(file)
}

/// Whether a header or variable value carries text besides `${VAR}` references and a
/// `Bearer ` prefix.
fn has_literal_secret(text: &str) -> bool {
    let mut rest = text.strip_prefix("Bearer ").unwrap_or(text).to_owned();
    while let Some(start) = rest.find("${") {
        match rest[start..].find('}') {
            Some(end) => rest.replace_range(start..start + end + 1, ""),
            None => break,
        }
    }
    !rest.trim().is_empty()
}

/// claude's `--allowedTools` and `--disallowedTools` entries for the servers: a headless claude
/// refuses every MCP tool it was not told to allow.
pub fn claude_permissions(config: &McpConfig, policy: &ToolPolicy) -> (Vec<String>, Vec<String>) {
    let mut allowed = Vec::new();
    let mut disallowed = policy.mcp_deny_patterns();
    for (server, access) in usable(config, policy) {
        let name = &server.name;
        match (&server.enabled_tools, access) {
            (None, McpAccess::All) => allowed.push(format!("mcp__{name}")),
            (Some(tools), McpAccess::All) => {
                allowed.extend(tools.iter().map(|tool| format!("mcp__{name}__{tool}")));
            }
            (_, McpAccess::Tools(patterns)) => {
                allowed.extend(patterns.into_iter().filter(|pattern| {
                    pattern
                        .strip_prefix(&format!("mcp__{name}__"))
                        .is_none_or(|tool| tool.contains('*') || server.offers(tool))
                }))
            }
            (_, McpAccess::Denied) => {}
        }
        disallowed.extend(
            server
                .disabled_tools
                .iter()
                .map(|tool| format!("mcp__{name}__{tool}")),
        );
    }
    (allowed, disallowed)
}

/// What codex is given: `-c` arguments, variables for its environment, and what could not be
/// passed on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CodexMcp {
    /// `-c`, `mcp_servers.NAME.KEY=VALUE` pairs, in order.
    pub args: Vec<String>,
    /// Variables added to codex's environment, which it passes on by name.
    pub env: Vec<(String, String)>,
    /// Servers or settings codex cannot take, for a warning.
    pub warnings: Vec<String>,
}

/// A TOML string (codex parses `-c` values as TOML).
fn toml_string(text: &str) -> String {
    Value::String(text.to_owned()).to_string()
}

fn toml_strings<'a>(items: impl IntoIterator<Item = &'a String>) -> String {
    Value::Array(
        items
            .into_iter()
            .map(|item| Value::String(item.clone()))
            .collect(),
    )
    .to_string()
}

/// The codex overrides for the servers.
pub fn codex_overrides(config: &McpConfig, policy: &ToolPolicy) -> CodexMcp {
    let mut out = CodexMcp::default();
    if config.strict {
        out.warnings.push(
            "codex also starts the MCP servers of its own config.toml: --strict-mcp-config \
             cannot stop that"
                .to_owned(),
        );
    }
    let deny = policy.mcp_deny_patterns();
    for (index, (server, access)) in usable(config, policy).enumerate() {
        let name = &server.name;
        if name.contains('.') {
            out.warnings.push(format!(
                "MCP server '{name}' is not passed to codex: its -c keys cannot hold a '.'"
            ));
            continue;
        }
        let mut set = |key: &str, value: String| {
            out.args.push("-c".to_owned());
            out.args.push(format!("mcp_servers.{name}.{key}={value}"));
        };
        let mut env_headers: Vec<(String, String)> = Vec::new();
        let mut added_env: Vec<(String, String)> = Vec::new();
        match &server.transport {
            TransportSpec::Stdio {
                command,
                args,
                env,
                env_vars,
                cwd,
            } => {
                set("command", toml_string(command));
                set("args", toml_strings(args));
                if let Some(cwd) = cwd {
                    set("cwd", toml_string(&cwd.to_string_lossy()));
                }
                let mut names: Vec<String> = env_vars.clone();
                for (variable, value) in env {
                    names.push(variable.clone());
                    added_env.push((variable.clone(), value.clone()));
                }
                if !names.is_empty() {
                    set("env_vars", toml_strings(&names));
                }
            }
            TransportSpec::Http {
                url,
                bearer_token_env_var,
                headers,
                env_headers: from_env,
            } => {
                set("url", toml_string(url));
                if let Some(variable) = bearer_token_env_var {
                    set("bearer_token_env_var", toml_string(variable));
                }
                for (number, (header, value)) in headers.iter().enumerate() {
                    let variable = format!("PINCER_MCP_{index}_HEADER_{number}");
                    env_headers.push((header.clone(), variable.clone()));
                    added_env.push((variable, value.clone()));
                }
                env_headers.extend(from_env.iter().map(|(h, v)| (h.clone(), v.clone())));
            }
            TransportSpec::Sdk { .. } => {
                out.warnings.push(format!(
                    "MCP server '{name}' is not passed to codex: it lives in the agent SDK that \
                     drives pincer"
                ));
                continue;
            }
            TransportSpec::Sse { .. } => {
                out.warnings.push(format!(
                    "MCP server '{name}' is not passed to codex: codex has no legacy HTTP+SSE \
                     transport"
                ));
                continue;
            }
        }
        if !env_headers.is_empty() {
            let table: Vec<String> = env_headers
                .iter()
                .map(|(header, variable)| {
                    format!("{} = {}", toml_string(header), toml_string(variable))
                })
                .collect();
            set("env_http_headers", format!("{{ {} }}", table.join(", ")));
        }
        set(
            "startup_timeout_sec",
            server.startup_timeout.as_secs_f64().to_string(),
        );
        set(
            "tool_timeout_sec",
            server.tool_timeout.as_secs_f64().to_string(),
        );
        if server.required {
            set("required", "true".to_owned());
        }
        let prefix = format!("mcp__{name}__");
        let mut enabled: Option<Vec<String>> = server.enabled_tools.clone();
        if let McpAccess::Tools(patterns) = access {
            let mut named = Vec::new();
            for pattern in patterns {
                let tool = pattern.strip_prefix(&prefix).unwrap_or(&pattern).to_owned();
                if tool.contains('*') {
                    out.warnings.push(format!(
                        "codex cannot take the tool pattern `{pattern}`; its server '{name}' \
                         keeps only the tools named exactly"
                    ));
                } else if server.offers(&tool) {
                    named.push(tool);
                }
            }
            enabled = Some(named);
        }
        if let Some(enabled) = &enabled {
            set("enabled_tools", toml_strings(enabled));
        }
        let mut disabled = server.disabled_tools.clone();
        disabled.extend(
            deny.iter()
                .filter_map(|pattern| pattern.strip_prefix(&prefix))
                .filter(|tool| !tool.contains('*'))
                .map(str::to_owned),
        );
        if !disabled.is_empty() {
            set("disabled_tools", toml_strings(&disabled));
        }
        out.env.extend(added_env);
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::conversation::SandboxMode;
    use crate::tools::policy::PolicySpec;

    fn config() -> McpConfig {
        let text = r#"{"mcpServers": {
            "fs": {"command": "npx", "args": ["-y", "fs-server"], "env": {"TOKEN": "${GH_TOKEN}", "MODE": "literal-secret"}},
            "gh": {"type": "http", "url": "https://api.example/mcp", "headers": {"Authorization": "Bearer ${GH_TOKEN}"}, "disabled_tools": ["delete_repo"]},
            "old": {"type": "sse", "url": "http://127.0.0.1:9/sse"}
        }}"#;
        let environment = |name: &str| (name == "GH_TOKEN").then(|| "ghp-secret".to_owned());
        let sources = crate::mcp::config::Sources {
            config_toml: &BTreeMap::new(),
            load_workspace: false,
            workspace: std::path::Path::new("/tmp"),
            flags: &[text.to_owned()],
            strict: true,
            keys: crate::mcp::config::KeyVariables {
                names: &[],
                allowed: &BTreeMap::new(),
            },
            written: &crate::consumed::Written::default(),
        };
        crate::mcp::config::resolve(&sources, &environment).unwrap()
    }

    fn policy(allow: &[&str], deny: &[&str], mode: SandboxMode) -> ToolPolicy {
        let allow: Vec<String> = allow.iter().map(|rule| (*rule).to_owned()).collect();
        let deny: Vec<String> = deny.iter().map(|rule| (*rule).to_owned()).collect();
        ToolPolicy::new(&PolicySpec {
            allow: &allow,
            deny: &deny,
            ..PolicySpec::default()
        })
        .unwrap()
        .with_sandbox(mode)
    }

    #[test]
    fn claude_gets_its_own_format_with_variables_unexpanded_and_literals_hidden_in_dry_runs() {
        let config = config();
        let open = policy(&[], &[], SandboxMode::WorkspaceWrite);
        let file = claude_config(&config, &open).unwrap();
        assert_eq!(file["mcpServers"]["fs"]["env"]["TOKEN"], "${GH_TOKEN}");
        assert_eq!(file["mcpServers"]["gh"]["type"], "http");
        assert!(!file.to_string().contains("ghp-secret"));
        let shown = claude_config_shown(&config, &open).unwrap();
        assert_eq!(shown["mcpServers"]["fs"]["env"]["MODE"], "(hidden)");
        assert_eq!(shown["mcpServers"]["fs"]["env"]["TOKEN"], "${GH_TOKEN}");
        assert_eq!(
            shown["mcpServers"]["gh"]["headers"]["Authorization"],
            "Bearer ${GH_TOKEN}"
        );
        let (allowed, disallowed) = claude_permissions(&config, &open);
        assert_eq!(allowed, ["mcp__fs", "mcp__gh", "mcp__old"]);
        assert_eq!(disallowed, ["mcp__gh__delete_repo"]);
    }

    #[test]
    fn the_policy_decides_which_servers_and_tools_the_child_may_use() {
        let config = config();
        let narrowed = policy(
            &["read", "mcp__gh__get_issue"],
            &["mcp__gh__close_issue"],
            SandboxMode::WorkspaceWrite,
        );
        let file = claude_config(&config, &narrowed).unwrap();
        let names: Vec<&String> = file["mcpServers"].as_object().unwrap().keys().collect();
        assert_eq!(names, ["gh"]);
        let (allowed, disallowed) = claude_permissions(&config, &narrowed);
        assert_eq!(allowed, ["mcp__gh__get_issue"]);
        assert_eq!(disallowed, ["mcp__gh__close_issue", "mcp__gh__delete_repo"]);
        let read_only = policy(&[], &[], SandboxMode::ReadOnly);
        assert_eq!(claude_config(&config, &read_only), None);
    }

    #[test]
    fn codex_gets_overrides_and_secret_values_only_through_its_environment() {
        let config = config();
        let open = policy(&[], &["mcp__fs__write"], SandboxMode::WorkspaceWrite);
        let codex = codex_overrides(&config, &open);
        let args = codex.args.join(" ");
        assert!(args.contains("mcp_servers.fs.command=\"npx\""), "{args}");
        assert!(
            args.contains("mcp_servers.fs.args=[\"-y\",\"fs-server\"]"),
            "{args}"
        );
        assert!(
            args.contains("mcp_servers.fs.env_vars=[\"MODE\",\"TOKEN\"]"),
            "{args}"
        );
        assert!(
            args.contains("mcp_servers.fs.disabled_tools=[\"write\"]"),
            "{args}"
        );
        assert!(
            args.contains(
                "mcp_servers.gh.env_http_headers={ \"Authorization\" = \"PINCER_MCP_1_HEADER_0\" }"
            ),
            "{args}"
        );
        assert!(
            args.contains("mcp_servers.gh.tool_timeout_sec=60"),
            "{args}"
        );
        assert!(!args.contains("secret"), "{args}");
        assert!(!args.contains("mcp_servers.old"), "{args}");
        assert_eq!(
            codex.env,
            [
                ("MODE".to_owned(), "literal-secret".to_owned()),
                ("TOKEN".to_owned(), "ghp-secret".to_owned()),
                (
                    "PINCER_MCP_1_HEADER_0".to_owned(),
                    "Bearer ghp-secret".to_owned()
                ),
            ]
        );
        assert_eq!(codex.warnings.len(), 2);
        assert!(codex.warnings[0].contains("--strict-mcp-config"));
        assert!(codex.warnings[1].contains("'old'"));
    }
}
