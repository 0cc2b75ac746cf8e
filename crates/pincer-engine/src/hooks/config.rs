//! Which hooks a run has, from the two places they can be declared (SPEC §14): config.toml's
//! `[[hooks.EVENT]]` tables (`-c` overrides included) and each `--settings FILE|JSON`, Claude
//! Code's settings format `{"hooks": {EVENT: [{"matcher": …, "hooks": [{"type": "command",
//! "command": …, "timeout": …}]}]}}`. A workspace's `.claude/settings.json` is read only when it
//! is named with `--settings`: a repository must not be able to make pincer start processes.
//!
//! Pure apart from reading the named files. A declaration pincer cannot run as written — a
//! matcher that is no regular expression, no command, a bad timeout — is a [`HookConfigError`]
//! naming the entry (exit 2). What a claude settings file holds that pincer does not run (events
//! it has no counterpart for, `prompt` or `http` hooks, settings other than `hooks`) is a
//! warning, never a silent skip.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{DEFAULT_TIMEOUT, Hook, HookEvent, HookSet, Matcher};

/// `[hooks]`: one array of tables per event, in Claude Code's event names (SPEC §14). Each entry
/// is run in the order written, all entries of an event concurrently.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HooksConfig {
    /// `[[hooks.SessionStart]]`: a run starts (`startup`), resumes a session (`resume`), or
    /// continues after a compaction (`compact`); the matcher is matched against that source.
    #[serde(rename = "SessionStart", default)]
    pub session_start: Vec<HookConfig>,
    /// `[[hooks.UserPromptSubmit]]`: before the prompt is recorded and sent.
    #[serde(rename = "UserPromptSubmit", default)]
    pub user_prompt_submit: Vec<HookConfig>,
    /// `[[hooks.PreToolUse]]`: before a tool call runs; the matcher is matched against the
    /// tool's name.
    #[serde(rename = "PreToolUse", default)]
    pub pre_tool_use: Vec<HookConfig>,
    /// `[[hooks.PostToolUse]]`: after a tool call succeeded.
    #[serde(rename = "PostToolUse", default)]
    pub post_tool_use: Vec<HookConfig>,
    /// `[[hooks.PreCompact]]`: before a compaction (`manual` or `auto`).
    #[serde(rename = "PreCompact", default)]
    pub pre_compact: Vec<HookConfig>,
    /// `[[hooks.Stop]]`: the model answered without calling a tool.
    #[serde(rename = "Stop", default)]
    pub stop: Vec<HookConfig>,
    /// `[[hooks.SessionEnd]]`: the run is over.
    #[serde(rename = "SessionEnd", default)]
    pub session_end: Vec<HookConfig>,
}

/// One `[[hooks.EVENT]]` entry.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HookConfig {
    /// A regular expression over the tool name (pincer's, Claude Code's, `mcp__…`), or the
    /// event's source; a plain name or `A|B` matches exactly. Default: everything.
    pub matcher: Option<String>,
    /// The command line, run as `sh -c COMMAND` in the workspace.
    pub command: String,
    /// Seconds before the command is killed. Default: 60.
    pub timeout: Option<f64>,
    /// `false` runs the command outside the `exec` sandbox of SPEC §10. Default: true.
    pub sandbox: Option<bool>,
}

/// A hook declaration pincer cannot use: a usage error (exit 2) naming the entry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HookConfigError {
    /// A `--settings` file that cannot be read.
    #[error("cannot read settings '{path}': {message}")]
    Read {
        /// As given.
        path: String,
        /// What the operating system said.
        message: String,
    },
    /// Not JSON, or not claude's settings shape.
    #[error("invalid settings {origin}: {message}")]
    Format {
        /// `--settings FILE` or `--settings JSON`.
        origin: String,
        /// What is wrong.
        message: String,
    },
    /// One entry is wrong.
    #[error("hook {entry} in {origin}: {problem}")]
    Entry {
        /// `[[hooks.PreToolUse]] #2`, `hooks.Stop[0].hooks[1]`.
        entry: String,
        /// `config.toml`, `--settings 'FILE'`, `--settings JSON`.
        origin: String,
        /// What is wrong, naming the key.
        problem: String,
    },
}

impl HookConfigError {
    /// What the user can do about it.
    pub fn hint(&self) -> String {
        match self {
            HookConfigError::Read { .. } => {
                "pass a readable file, or the JSON itself: --settings '{\"hooks\": {…}}'".to_owned()
            }
            HookConfigError::Format { .. } => "the file holds {\"hooks\": {\"PreToolUse\": \
                 [{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": …}]}]}}, \
                 as Claude Code's settings.json does"
                .to_owned(),
            HookConfigError::Entry { .. } => "a hook has a `command`, an optional `matcher` (a \
                 regular expression over the tool name) and an optional `timeout` in seconds; \
                 docs/guide/hooks.md has examples"
                .to_owned(),
        }
    }
}

/// The inputs, as `commands/` collected them.
#[derive(Debug, Clone, Copy)]
pub struct Sources<'a> {
    /// `[hooks]` of config.toml, `-c` overrides applied.
    pub config_toml: &'a HooksConfig,
    /// Each `--settings` argument: a file path, or JSON when it starts with `{`.
    pub settings: &'a [String],
}

/// The run's hooks, and what was declared but is not run.
#[derive(Debug, Clone, Default)]
pub struct Resolved {
    /// config.toml's first, then each `--settings` in order.
    pub set: HookSet,
    /// One sentence per thing left out, for stderr.
    pub warnings: Vec<String>,
}

/// Collect the hooks of `sources`.
pub fn resolve(sources: &Sources<'_>) -> Result<Resolved, HookConfigError> {
    let mut resolved = Resolved::default();
    let table = sources.config_toml;
    let events: [(HookEvent, &Vec<HookConfig>); 7] = [
        (HookEvent::SessionStart, &table.session_start),
        (HookEvent::UserPromptSubmit, &table.user_prompt_submit),
        (HookEvent::PreToolUse, &table.pre_tool_use),
        (HookEvent::PostToolUse, &table.post_tool_use),
        (HookEvent::PreCompact, &table.pre_compact),
        (HookEvent::Stop, &table.stop),
        (HookEvent::SessionEnd, &table.session_end),
    ];
    for (event, entries) in events {
        for (position, entry) in entries.iter().enumerate() {
            let place = Place {
                entry: format!("[[hooks.{}]] #{}", event.as_str(), position + 1),
                origin: "config.toml".to_owned(),
            };
            resolved.set.hooks.push(place.hook(
                event,
                entry.matcher.as_deref(),
                Some(&entry.command),
                entry.timeout,
                entry.sandbox,
            )?);
        }
    }
    for flag in sources.settings {
        let trimmed = flag.trim_start();
        let (text, origin) = if trimmed.starts_with('{') {
            (flag.clone(), "--settings JSON".to_owned())
        } else {
            let text = std::fs::read_to_string(flag).map_err(|error| HookConfigError::Read {
                path: flag.clone(),
                message: error.to_string(),
            })?;
            (text, format!("--settings '{flag}'"))
        };
        from_settings(&text, &origin, &mut resolved)?;
    }
    Ok(resolved)
}

/// Where an entry was declared, for its error.
struct Place {
    entry: String,
    origin: String,
}

impl Place {
    fn error(&self, problem: String) -> HookConfigError {
        HookConfigError::Entry {
            entry: self.entry.clone(),
            origin: self.origin.clone(),
            problem,
        }
    }

    /// One hook, checked.
    fn hook(
        &self,
        event: HookEvent,
        matcher: Option<&str>,
        command: Option<&str>,
        timeout: Option<f64>,
        sandbox: Option<bool>,
    ) -> Result<Hook, HookConfigError> {
        let matcher = Matcher::parse(matcher).map_err(|reason| {
            self.error(format!(
                "`matcher` {:?} is not a regular expression: {reason}",
                matcher.unwrap_or_default()
            ))
        })?;
        let command = match command.map(str::trim) {
            Some(command) if !command.is_empty() => command.to_owned(),
            _ => return Err(self.error("`command` is missing or empty".to_owned())),
        };
        let timeout = match timeout {
            None => DEFAULT_TIMEOUT,
            Some(seconds) => Duration::try_from_secs_f64(seconds)
                .ok()
                .filter(|duration| !duration.is_zero())
                .ok_or_else(|| {
                    self.error(format!(
                        "`timeout` must be a number of seconds above 0, not {seconds}"
                    ))
                })?,
        };
        Ok(Hook {
            event,
            matcher,
            command,
            timeout,
            sandbox: sandbox.unwrap_or(true),
            origin: self.origin.clone(),
            callback: None,
        })
    }
}

/// claude's settings file: only `hooks` is pincer's business.
#[derive(Deserialize)]
struct SettingsFile {
    #[serde(default)]
    hooks: Option<serde_json::Map<String, Value>>,
    #[serde(default, rename = "disableAllHooks")]
    disable_all_hooks: bool,
    #[serde(flatten)]
    other: serde_json::Map<String, Value>,
}

/// One matcher group of an event.
#[derive(Deserialize)]
struct Group {
    #[serde(default)]
    matcher: Option<String>,
    #[serde(default)]
    hooks: Vec<Handler>,
}

/// One hook handler of a group.
#[derive(Deserialize)]
struct Handler {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    command: Option<String>,
    #[serde(default)]
    timeout: Option<f64>,
    /// pincer's own key (as in config.toml): `false` runs outside the exec sandbox.
    #[serde(default)]
    sandbox: Option<bool>,
    #[serde(default, rename = "async")]
    run_async: bool,
}

fn from_settings(text: &str, origin: &str, resolved: &mut Resolved) -> Result<(), HookConfigError> {
    let format = |message: String| HookConfigError::Format {
        origin: origin.to_owned(),
        message,
    };
    let file: SettingsFile =
        serde_json::from_str(text).map_err(|error| format(error.to_string()))?;
    if !file.other.is_empty() {
        let keys: Vec<&str> = file.other.keys().map(String::as_str).collect();
        resolved.warnings.push(format!(
            "{origin}: pincer reads only `hooks` from a settings file; ignored: {}",
            keys.join(", ")
        ));
    }
    let Some(events) = file.hooks else {
        return Ok(());
    };
    if file.disable_all_hooks {
        resolved.warnings.push(format!(
            "{origin}: `disableAllHooks` is set; none of its hooks run"
        ));
        return Ok(());
    }
    for (name, groups) in events {
        let groups: Vec<Group> = serde_json::from_value(groups)
            .map_err(|error| format(format!("hooks.{name}: {error}")))?;
        let Some(event) = HookEvent::from_name(&name) else {
            let count: usize = groups.iter().map(|group| group.hooks.len()).sum();
            resolved.warnings.push(format!(
                "{origin}: pincer has no {name} event; its {count} hook(s) are not run"
            ));
            continue;
        };
        for (group_index, group) in groups.iter().enumerate() {
            for (index, handler) in group.hooks.iter().enumerate() {
                let place = Place {
                    entry: format!("hooks.{name}[{group_index}].hooks[{index}]"),
                    origin: origin.to_owned(),
                };
                match handler.kind.as_deref() {
                    Some("command") | None => {}
                    Some(other) => {
                        resolved.warnings.push(format!(
                            "{origin}: {} is a `{other}` hook; pincer runs only `command` hooks, \
                             so it is not run",
                            place.entry
                        ));
                        continue;
                    }
                }
                if handler.run_async {
                    resolved.warnings.push(format!(
                        "{origin}: {} asks to run in the background (`async`); pincer runs it \
                         and waits for it",
                        place.entry
                    ));
                }
                resolved.set.hooks.push(place.hook(
                    event,
                    group.matcher.as_deref(),
                    handler.command.as_deref(),
                    handler.timeout,
                    handler.sandbox,
                )?);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve_settings(settings: &[&str]) -> Result<Resolved, HookConfigError> {
        let settings: Vec<String> = settings.iter().map(|text| (*text).to_owned()).collect();
        resolve(&Sources {
            config_toml: &HooksConfig::default(),
            settings: &settings,
        })
    }

    #[test]
    fn config_toml_entries_come_first_with_their_defaults_then_settings_in_order() {
        let table = HooksConfig {
            pre_tool_use: vec![HookConfig {
                matcher: Some("exec".into()),
                command: "guard.sh".into(),
                timeout: None,
                sandbox: Some(false),
            }],
            ..HooksConfig::default()
        };
        let settings = [r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "check", "timeout": 5}]}]}}"#.to_owned()];
        let resolved = resolve(&Sources {
            config_toml: &table,
            settings: &settings,
        })
        .unwrap();
        let hooks = &resolved.set.hooks;
        assert_eq!(hooks.len(), 2);
        assert_eq!(hooks[0].event, HookEvent::PreToolUse);
        assert_eq!(hooks[0].timeout, DEFAULT_TIMEOUT);
        assert!(!hooks[0].sandbox);
        assert_eq!(hooks[0].origin, "config.toml");
        assert_eq!(hooks[1].event, HookEvent::Stop);
        assert_eq!(hooks[1].timeout, Duration::from_secs(5));
        assert!(hooks[1].sandbox);
        assert_eq!(hooks[1].origin, "--settings JSON");
        assert!(resolved.warnings.is_empty(), "{:?}", resolved.warnings);
    }

    #[test]
    fn a_bad_matcher_or_a_missing_command_names_the_entry() {
        let error = resolve_settings(&[
            r#"{"hooks": {"PreToolUse": [{"matcher": "Bash(", "hooks": [{"type": "command", "command": "x"}]}]}}"#,
        ])
        .unwrap_err();
        assert!(
            matches!(&error, HookConfigError::Entry { entry, .. } if entry == "hooks.PreToolUse[0].hooks[0]"),
            "{error}"
        );
        assert!(error.to_string().contains("`matcher` \"Bash(\""), "{error}");
        let error =
            resolve_settings(&[r#"{"hooks": {"Stop": [{"hooks": [{"type": "command"}]}]}}"#])
                .unwrap_err();
        assert!(
            error.to_string().contains("`command` is missing"),
            "{error}"
        );
        let error = resolve_settings(&[
            r#"{"hooks": {"Stop": [{"hooks": [{"command": "x", "timeout": 0}]}]}}"#,
        ])
        .unwrap_err();
        assert!(error.to_string().contains("`timeout` must be"), "{error}");
        let table = HooksConfig {
            stop: vec![HookConfig::default(), HookConfig::default()],
            ..HooksConfig::default()
        };
        let error = resolve(&Sources {
            config_toml: &table,
            settings: &[],
        })
        .unwrap_err();
        assert_eq!(
            error.to_string(),
            "hook [[hooks.Stop]] #1 in config.toml: `command` is missing or empty"
        );
    }

    #[test]
    fn what_pincer_does_not_run_is_a_warning_not_a_silent_skip() {
        let resolved = resolve_settings(&[r#"{
            "permissions": {"allow": ["Bash"]},
            "hooks": {
                "Notification": [{"hooks": [{"type": "command", "command": "notify"}]}],
                "PreToolUse": [{"matcher": "Bash", "hooks": [
                    {"type": "prompt", "prompt": "is this safe?"},
                    {"type": "command", "command": "guard", "async": true}
                ]}]
            }
        }"#])
        .unwrap();
        assert_eq!(resolved.set.hooks.len(), 1);
        assert_eq!(resolved.set.hooks[0].command, "guard");
        let warnings = resolved.warnings.join("\n");
        for expected in [
            "ignored: permissions",
            "no Notification event; its 1 hook(s) are not run",
            "hooks.PreToolUse[0].hooks[0] is a `prompt` hook",
            "(`async`); pincer runs it and waits",
        ] {
            assert!(warnings.contains(expected), "{expected}: {warnings}");
        }
    }

    #[test]
    fn settings_that_are_not_json_or_not_readable_are_errors() {
        assert!(matches!(
            resolve_settings(&["{not json"]).unwrap_err(),
            HookConfigError::Format { .. }
        ));
        assert!(matches!(
            resolve_settings(&["/nonexistent/settings.json"]).unwrap_err(),
            HookConfigError::Read { .. }
        ));
        assert!(matches!(
            resolve_settings(&[r#"{"hooks": {"Stop": {"command": "x"}}}"#]).unwrap_err(),
            HookConfigError::Format { .. }
        ));
    }
}
