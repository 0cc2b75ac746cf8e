//! The run's hooks handed to a CLI backend (SPEC §14), which runs them itself.
//!
//! `claude` gets a `--settings` file in its own format (`{"hooks": {EVENT: [{"matcher": …,
//! "hooks": [{"type": "command", "command": …, "timeout": …}]}]}}`); `codex` gets one
//! `-c hooks.EVENT=[…]` override per event (its inline `[hooks]` tables take the same shape) and
//! `--dangerously-bypass-hook-trust`, without which `codex exec` skips hooks nobody reviewed in
//! its TUI. A matcher naming pincer's tools gains the child's names for them (`exec` becomes
//! `exec|Bash`), so one declaration guards every backend. What the child cannot do as pincer
//! would — run a hook in pincer's `exec` sandbox, match a tool it does not have — is a warning.
//! Pure: what to write and pass; `engine/cli.rs` writes the file.

use serde_json::{Map, Value, json};

use crate::hooks::{Hook, HookEvent, HookSet};

/// pincer's tools and codex's names for them (codex's shell is `Bash` to its hooks; its file
/// edits are `apply_patch`).
const CODEX_TOOLS: [(&str, &[&str]); 4] = [
    ("exec", &["Bash"]),
    ("apply_patch", &["apply_patch"]),
    ("edit", &["apply_patch"]),
    ("write", &["apply_patch"]),
];

/// Whether the event's matcher is over tool names (the others match a source, as written).
fn matches_tools(event: HookEvent) -> bool {
    matches!(event, HookEvent::PreToolUse | HookEvent::PostToolUse)
}

/// The matcher the child gets: `None` for "everything"; pincer's tool names joined by the
/// child's (`names`: pincer's tool and the child's names for it).
fn child_matcher(hook: &Hook, names: &[(&str, &[&str])]) -> Option<String> {
    let matcher = &hook.matcher;
    if matcher.is_all() {
        return None;
    }
    let text = matcher.text().unwrap_or_default().trim().to_owned();
    if !matches_tools(hook.event) {
        return Some(text);
    }
    let mut added: Vec<&str> = Vec::new();
    for (pincer, child) in names {
        if matcher.matches(&[pincer]) {
            for name in *child {
                if !matcher.matches(&[name]) && !added.contains(name) {
                    added.push(name);
                }
            }
        }
    }
    if added.is_empty() {
        return Some(text);
    }
    Some(match matcher.names() {
        // Still a plain list, matched exactly.
        Some(_) => format!("{text}|{}", added.join("|")),
        None => format!("(?:{text})|^(?:{})$", added.join("|")),
    })
}

/// Seconds, whole, as both children take them.
fn timeout_seconds(hook: &Hook) -> u64 {
    hook.timeout.as_secs_f64().ceil().max(1.0) as u64
}

/// The `--settings` file for claude, or `None` without hooks.
pub fn claude_settings(set: &HookSet) -> Option<Value> {
    if set.is_empty() {
        return None;
    }
    let mut events = Map::new();
    for event in HookEvent::ALL {
        let groups: Vec<Value> = set
            .of(event)
            // An SDK callback is answered over pincer's own control channel, not the child's.
            .filter(|hook| hook.callback.is_none())
            .map(|hook| {
                let mut group = Map::new();
                if let Some(matcher) = child_matcher(hook, &crate::tools::CLAUDE_EQUIVALENTS) {
                    group.insert("matcher".into(), json!(matcher));
                }
                group.insert(
                    "hooks".into(),
                    json!([{"type": "command", "command": hook.command, "timeout": timeout_seconds(hook)}]),
                );
                Value::Object(group)
            })
            .collect();
        if !groups.is_empty() {
            events.insert(event.as_str().into(), Value::Array(groups));
        }
    }
    Some(json!({ "hooks": events }))
}

/// What codex is given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CodexHooks {
    /// `-c`, `hooks.EVENT=[…]` pairs and the trust flag.
    pub args: Vec<String>,
    /// What codex runs differently, for stderr.
    pub warnings: Vec<String>,
}

/// A TOML string (codex parses `-c` values as TOML; JSON's escapes are TOML's).
fn toml_string(text: &str) -> String {
    Value::String(text.to_owned()).to_string()
}

/// The codex overrides for the hooks.
pub fn codex_overrides(set: &HookSet) -> CodexHooks {
    let mut out = CodexHooks::default();
    if set.is_empty() {
        return out;
    }
    for event in HookEvent::ALL {
        let groups: Vec<String> = set
            .of(event)
            // An SDK callback is answered over pincer's own control channel, not the child's.
            .filter(|hook| hook.callback.is_none())
            .map(|hook| {
                let matcher = child_matcher(hook, &CODEX_TOOLS)
                    .map(|matcher| format!("matcher = {}, ", toml_string(&matcher)))
                    .unwrap_or_default();
                format!(
                    "{{ {matcher}hooks = [{{ type = \"command\", command = {}, timeout = {} }}] }}",
                    toml_string(&hook.command),
                    timeout_seconds(hook)
                )
            })
            .collect();
        if !groups.is_empty() {
            out.args.push("-c".to_owned());
            out.args
                .push(format!("hooks.{}=[{}]", event.as_str(), groups.join(", ")));
        }
    }
    out.args.push("--dangerously-bypass-hook-trust".to_owned());
    for hook in &set.hooks {
        let Some(names) = hook.matcher.names().filter(|_| matches_tools(hook.event)) else {
            continue;
        };
        let known = names.iter().any(|name| {
            name.starts_with("mcp__")
                || CODEX_TOOLS
                    .iter()
                    .any(|(pincer, codex)| pincer == name || codex.contains(&name.as_str()))
        });
        if !known {
            out.warnings.push(format!(
                "codex-cli has no tool matching {:?}: the {} hook `{}` never runs there",
                hook.matcher.text().unwrap_or_default(),
                hook.event.as_str(),
                hook.command
            ));
        }
    }
    out
}

/// Said once per delegated run: the child runs the hooks with its own rules.
pub fn sandbox_warning(set: &HookSet, backend: &str) -> Option<String> {
    let sandboxed = set.hooks.iter().filter(|hook| hook.sandbox).count();
    (sandboxed > 0).then(|| {
        format!(
            "{backend} runs the run's {sandboxed} hook(s) itself, outside pincer's exec sandbox"
        )
    })
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn hook(event: HookEvent, matcher: Option<&str>, command: &str) -> Hook {
        Hook {
            timeout: Duration::from_millis(1500),
            ..Hook::for_tests(event, matcher, command)
        }
    }

    #[test]
    fn claude_gets_its_settings_format_with_its_tool_names_added_to_pincers() {
        let set = HookSet {
            hooks: vec![
                hook(HookEvent::PreToolUse, Some("exec"), "guard.sh"),
                hook(HookEvent::PreToolUse, Some("^(read|Bash)$"), "audit"),
                hook(HookEvent::PostToolUse, Some("Edit|Write"), "fmt"),
                hook(HookEvent::SessionStart, Some("startup"), "ctx"),
                hook(HookEvent::Stop, None, "check"),
            ],
        };
        assert_eq!(
            claude_settings(&set).unwrap(),
            json!({"hooks": {
                "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "ctx", "timeout": 2}]}],
                "PreToolUse": [
                    {"matcher": "exec|Bash", "hooks": [{"type": "command", "command": "guard.sh", "timeout": 2}]},
                    {"matcher": "(?:^(read|Bash)$)|^(?:Read)$", "hooks": [{"type": "command", "command": "audit", "timeout": 2}]}
                ],
                "PostToolUse": [{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "fmt", "timeout": 2}]}],
                "Stop": [{"hooks": [{"type": "command", "command": "check", "timeout": 2}]}]
            }})
        );
        assert_eq!(claude_settings(&HookSet::default()), None);
    }

    #[test]
    fn codex_gets_inline_hook_tables_the_trust_flag_and_warnings_for_tools_it_lacks() {
        let set = HookSet {
            hooks: vec![
                hook(
                    HookEvent::PreToolUse,
                    Some("exec"),
                    "jq -r .tool_input.command",
                ),
                hook(HookEvent::PreToolUse, Some("Read"), "audit"),
            ],
        };
        let codex = codex_overrides(&set);
        assert_eq!(
            codex.args,
            [
                "-c",
                "hooks.PreToolUse=[{ matcher = \"exec|Bash\", hooks = [{ type = \"command\", command = \"jq -r .tool_input.command\", timeout = 2 }] }, { matcher = \"Read\", hooks = [{ type = \"command\", command = \"audit\", timeout = 2 }] }]",
                "--dangerously-bypass-hook-trust",
            ]
        );
        assert_eq!(
            codex.warnings,
            [
                "codex-cli has no tool matching \"Read\": the PreToolUse hook `audit` never runs there"
            ]
        );
        assert_eq!(codex_overrides(&HookSet::default()), CodexHooks::default());
    }
}
