//! An agent SDK's hook callback (SPEC §16): the hook's input goes to the SDK as a
//! `hook_callback` control request, and its answer is the output JSON a command hook would have
//! printed, so [`super::protocol::interpret`] reads both alike. An error answer, no answer in
//! time or a closed channel is a warning, as a failing command hook's is.
//!
//! The SDK's permission prompt (`can_use_tool`, with `--permission-prompt-tool stdio`) rides the
//! same seam: a PreToolUse hook whose callback is [`CAN_USE_TOOL`], run where claude would ask
//! ([`asks`]) after the other hooks, and its `allow`/`deny` answer becomes a `permissionDecision`, so a denial is a
//! hook's refusal (listed in `permission_denials`) and `updatedInput` replaces the arguments.

use std::sync::{Mutex, PoisonError};

/// The rules an SDK added, as the hooks get them (see [`Sdk`]).
type Rules = Mutex<PermissionRules>;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::runner::{Ending, Run};
use crate::control::{Answer, PermissionRules, Sdk};

/// The callback id of the SDK's permission prompt: not one the SDK registers (those are
/// `hook_N`), so it cannot be taken for a hook callback.
pub(super) const CAN_USE_TOOL: &str = "pincer:can_use_tool";

/// Whether claude asks its permission prompt about `tool` (claude's name) in `mode`: never in
/// `bypassPermissions` (nor `dontAsk`, which refuses instead of asking, nor `auto`, which decides
/// alone); not for the tools that only read; in `acceptEdits` not for the file edits.
pub(super) fn asks(mode: &str, tool: &str) -> bool {
    let edits = matches!(tool, "Edit" | "Write" | "MultiEdit" | "NotebookEdit");
    match mode {
        "bypassPermissions" | "dontAsk" | "auto" => false,
        "acceptEdits" if edits => false,
        _ => edits || matches!(tool, "Bash" | "WebFetch") || tool.starts_with("mcp__"),
    }
}

/// What a rule the SDK added says of a call.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum SessionRule {
    /// An allow rule names it: it runs without asking.
    Allow,
    /// A deny rule names it: it is refused with this message, without asking.
    Deny(String),
}

/// What the rules the SDK added (`rules`) say of `tool` (pincer's name) called with
/// `arguments`; a deny rule wins.
pub(super) fn session_rule(rules: &Rules, tool: &str, arguments: &Value) -> Option<SessionRule> {
    use crate::tools::policy::{Decision, PolicySpec, ToolPolicy};
    let rules = rules.lock().unwrap_or_else(PoisonError::into_inner);
    if rules.allow.is_empty() && rules.deny.is_empty() {
        return None;
    }
    let claude = crate::tools::claude_name(tool);
    let names_tool = |rule: &String| rule == tool || rule == claude;
    if tool.starts_with("mcp__") {
        // MCP tools: a rule names the tool whole.
        if rules.deny.iter().any(names_tool) {
            return Some(SessionRule::Deny(denial(claude)));
        }
        return rules
            .allow
            .iter()
            .any(names_tool)
            .then_some(SessionRule::Allow);
    }
    let policy = |allow: &[String], deny: &[String]| {
        ToolPolicy::new(&PolicySpec {
            profile: Some("full"),
            exact: None,
            allow,
            deny,
        })
        .ok()
    };
    if let Some(policy) = policy(&[], &rules.deny)
        && let Decision::Deny { .. } = policy.check(tool, arguments)
    {
        return Some(SessionRule::Deny(denial(claude)));
    }
    policy(&rules.allow, &[])
        .is_some_and(|policy| policy.allows_explicitly(tool, arguments))
        .then_some(SessionRule::Allow)
}

/// The tool result of a call a rule the SDK added refused.
fn denial(claude_tool: &str) -> String {
    format!("Permission to use {claude_tool} has been denied.")
}

/// Keep the `addRules` updates of an allow answer (`updatedPermissions`) in `rules`, for the
/// rest of the SDK's session; the warnings say which ones pincer does not apply.
fn record_updates(rules: &Rules, answer: &Value) -> Vec<String> {
    let mut warnings = Vec::new();
    let Some(updates) = answer.get("updatedPermissions").and_then(Value::as_array) else {
        return warnings;
    };
    let mut rules = rules.lock().unwrap_or_else(PoisonError::into_inner);
    for update in updates {
        let kind = update.get("type").and_then(Value::as_str).unwrap_or("");
        let behavior = update.get("behavior").and_then(Value::as_str).unwrap_or("");
        let list = match (kind, behavior) {
            ("addRules", "allow") => &mut rules.allow,
            ("addRules", "deny") => &mut rules.deny,
            _ => {
                warnings.push(format!(
                    "the SDK's permission update {update} is not applied (pincer applies addRules with behavior allow or deny)"
                ));
                continue;
            }
        };
        for rule in update
            .get("rules")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let Some(text) = rule_text(rule) else {
                continue;
            };
            let spec_rules = [text.clone()];
            let spec = crate::tools::policy::PolicySpec {
                profile: Some("full"),
                exact: None,
                allow: &spec_rules,
                deny: &[],
            };
            match crate::tools::policy::ToolPolicy::new(&spec) {
                Ok(_) => list.push(text),
                Err(error) => warnings.push(format!(
                    "the SDK's permission rule {text} is not applied ({error})"
                )),
            }
        }
    }
    warnings
}

/// A rule of an update (`{toolName, ruleContent?}`) in pincer's syntax: `Bash(npm test)`, or
/// the tool's name alone for every use of it.
fn rule_text(rule: &Value) -> Option<String> {
    let tool = rule.get("toolName").and_then(Value::as_str)?;
    match rule.get("ruleContent").and_then(Value::as_str) {
        Some(content) if !content.is_empty() => Some(format!("{tool}({content})")),
        _ => Some(tool.to_owned()),
    }
}

/// What claude suggests with its `can_use_tool` request (`permission_suggestions`): a rule that
/// allows this very command (`localSettings`, as claude proposes it), for a command; a rule for
/// the tool whole, for an MCP tool; `acceptEdits` for this session, for a file edit.
fn permission_suggestions(tool: &str, input: &Value) -> Value {
    let rule = |rule: Value| json!([{"type": "addRules", "rules": [rule], "behavior": "allow", "destination": "localSettings"}]);
    match tool {
        "Bash" => match input.get("command").and_then(Value::as_str) {
            Some(command) => rule(json!({"toolName": "Bash", "ruleContent": command})),
            None => json!([]),
        },
        "Edit" | "Write" | "MultiEdit" | "NotebookEdit" => {
            json!([{"type": "setMode", "mode": "acceptEdits", "destination": "session"}])
        }
        _ if tool.starts_with("mcp__") => rule(json!({"toolName": tool})),
        _ => json!([]),
    }
}

/// The SDK's `can_use_tool` answer as hook output JSON: `allow` (with `updatedInput` in pincer's
/// argument names) or `deny` with its message; `interrupt: true` also ends the turn. With it,
/// what of the answer's permission updates is not applied.
fn permission_output(rules: &Rules, answer: &Value, tool: &str) -> (Value, Vec<String>) {
    let specific =
        |decision: &str| json!({"hookEventName": "PreToolUse", "permissionDecision": decision});
    match answer.get("behavior").and_then(Value::as_str) {
        Some("allow") => {
            let warnings = record_updates(rules, answer);
            let mut specific = specific("allow");
            if let Some(updated) = answer.get("updatedInput").filter(|input| input.is_object()) {
                specific["updatedInput"] = super::protocol::pincer_tool_input(tool, updated);
            }
            (json!({"hookSpecificOutput": specific}), warnings)
        }
        behavior => {
            let message = answer
                .get("message")
                .and_then(Value::as_str)
                .filter(|message| !message.is_empty())
                .map_or_else(
                    || match behavior {
                        Some("deny") => "the SDK's can_use_tool denied the call".to_owned(),
                        _ => format!("the SDK's can_use_tool gave no decision ({answer})"),
                    },
                    str::to_owned,
                );
            let mut specific = specific("deny");
            specific["permissionDecisionReason"] = json!(message);
            let mut output = json!({"hookSpecificOutput": specific});
            if answer.get("interrupt").and_then(Value::as_bool) == Some(true) {
                output["continue"] = json!(false);
                output["stopReason"] = json!(message);
            }
            (output, Vec::new())
        }
    }
}

/// Ask the SDK's callback `id` about `input` (the hook input JSON).
pub(super) async fn run(
    sdk: Option<Sdk>,
    id: String,
    input: Value,
    timeout: Duration,
    cancel: CancellationToken,
) -> Run {
    let started = Instant::now();
    let run = |ending: Ending, stdout: String, stderr: String| Run {
        ending,
        stdout,
        stderr,
        duration: started.elapsed(),
        notes: Vec::new(),
    };
    let Some(Sdk { channel, rules }) = sdk else {
        return run(
            Ending::NotStarted("no agent SDK drives this run".to_owned()),
            String::new(),
            String::new(),
        );
    };
    let tool_use_id = input.get("tool_use_id").cloned().unwrap_or(Value::Null);
    let tool = input
        .get("tool_name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let prompt = id == CAN_USE_TOOL;
    let request = if prompt {
        let tool_input = input
            .get("tool_input")
            .cloned()
            .unwrap_or_else(|| json!({}));
        json!({
            "subtype": "can_use_tool",
            "tool_name": tool,
            "display_name": tool,
            "permission_suggestions": permission_suggestions(&tool, &tool_input),
            "input": tool_input,
            "tool_use_id": tool_use_id,
        })
    } else {
        json!({
            "subtype": "hook_callback",
            "callback_id": id,
            "input": input,
            "tool_use_id": tool_use_id,
        })
    };
    let answer = channel.request(request, timeout, &cancel).await;
    if prompt {
        // A permission prompt that gets no decision refuses the call: never run unasked.
        let missing = match &answer {
            Answer::Success(output) => {
                let (output, notes) = permission_output(&rules, output, &tool);
                return Run {
                    notes,
                    ..run(Ending::Exited(0), output.to_string(), String::new())
                };
            }
            Answer::Error(message) => format!("it answered with an error: {message}"),
            Answer::TimedOut => format!("no answer within {} s", timeout.as_secs()),
            Answer::Closed => "the SDK closed its input".to_owned(),
            Answer::Cancelled => return run(Ending::Cancelled, String::new(), String::new()),
        };
        let deny = json!({"behavior": "deny", "message": format!(
            "the SDK's can_use_tool gave no decision ({missing}); the call was not run"
        )});
        let (output, _) = permission_output(&rules, &deny, &tool);
        return run(Ending::Exited(0), output.to_string(), String::new());
    }
    match answer {
        Answer::Success(output) => {
            let output = if output.is_null() { json!({}) } else { output };
            run(Ending::Exited(0), output.to_string(), String::new())
        }
        Answer::Error(message) => run(Ending::Exited(1), String::new(), message),
        Answer::TimedOut => run(Ending::TimedOut(timeout), String::new(), String::new()),
        Answer::Cancelled => run(Ending::Cancelled, String::new(), String::new()),
        Answer::Closed => run(
            Ending::NotStarted("the SDK closed its input".to_owned()),
            String::new(),
            String::new(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn claude_asks_about_commands_edits_fetches_and_mcp_tools_as_the_mode_says() {
        for tool in ["Bash", "Edit", "Write", "WebFetch", "mcp__kv__lookup"] {
            assert!(asks("default", tool), "{tool}");
            assert!(!asks("bypassPermissions", tool), "{tool}");
        }
        for tool in ["Read", "Glob", "Grep", "LS"] {
            assert!(!asks("default", tool), "{tool}");
        }
        assert!(!asks("acceptEdits", "Edit"));
        assert!(asks("acceptEdits", "Bash"));
    }

    #[test]
    fn claude_suggests_a_rule_for_the_command_and_accept_edits_for_an_edit() {
        assert_eq!(
            permission_suggestions("Bash", &json!({"command": "echo X > x.txt"})),
            json!([{"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "echo X > x.txt"}],
                "behavior": "allow", "destination": "localSettings"}])
        );
        assert_eq!(
            permission_suggestions("Write", &json!({}))[0]["mode"],
            "acceptEdits"
        );
        assert_eq!(permission_suggestions("Read", &json!({})), json!([]));
    }

    #[test]
    fn added_rules_allow_or_deny_later_calls_and_a_deny_wins() {
        let rules = Rules::default();
        let command = |command: &str| json!({ "command": command });
        assert_eq!(
            session_rule(&rules, "exec", &command("echo UNIT-RULE-1")),
            None
        );
        let warnings = record_updates(
            &rules,
            &json!({"updatedPermissions": [
                {"type": "addRules", "behavior": "allow", "destination": "session",
                    "rules": [{"toolName": "Bash", "ruleContent": "echo UNIT-RULE-1"},
                              {"toolName": "Bash", "ruleContent": "echo UNIT-RULE-2:*"}]},
                {"type": "addRules", "behavior": "deny", "destination": "session",
                    "rules": [{"toolName": "Bash", "ruleContent": "echo UNIT-RULE-2 no"}]},
                {"type": "setMode", "mode": "acceptEdits", "destination": "session"},
            ]}),
        );
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].starts_with("the SDK's permission update {\"type\":\"setMode\""),
            "{warnings:?}"
        );
        assert_eq!(
            session_rule(&rules, "exec", &command("echo UNIT-RULE-1")),
            Some(SessionRule::Allow)
        );
        assert_eq!(
            session_rule(&rules, "exec", &command("echo UNIT-RULE-2 yes")),
            Some(SessionRule::Allow)
        );
        assert_eq!(
            session_rule(&rules, "exec", &command("echo UNIT-RULE-2 no")),
            Some(SessionRule::Deny(
                "Permission to use Bash has been denied.".to_owned()
            ))
        );
        assert_eq!(
            session_rule(&rules, "exec", &command("echo UNIT-RULE-3")),
            None
        );
    }

    #[test]
    fn an_allow_becomes_an_allow_decision_and_a_deny_a_refusal_that_may_end_the_turn() {
        let rules = Rules::default();
        let (allow, warnings) = permission_output(
            &rules,
            &json!({"behavior": "allow", "updatedInput": {"command": "echo hi"}}),
            "Bash",
        );
        assert_eq!(warnings, Vec::<String>::new());
        assert_eq!(
            allow,
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                "permissionDecision": "allow", "updatedInput": {"command": "echo hi"}}})
        );
        let (deny, _) = permission_output(
            &rules,
            &json!({"behavior": "deny", "message": "no"}),
            "Bash",
        );
        assert_eq!(deny["hookSpecificOutput"]["permissionDecision"], "deny");
        assert_eq!(deny["hookSpecificOutput"]["permissionDecisionReason"], "no");
        assert_eq!(deny.get("continue"), None);
        let (interrupt, _) = permission_output(
            &rules,
            &json!({"behavior": "deny", "message": "stop", "interrupt": true}),
            "Bash",
        );
        assert_eq!(interrupt["continue"], false);
        let (odd, _) = permission_output(&rules, &json!({"behavior": "maybe"}), "Bash");
        assert_eq!(odd["hookSpecificOutput"]["permissionDecision"], "deny");
    }
}
