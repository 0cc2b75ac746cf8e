//! An agent SDK's hook callback (SPEC §16): the hook's input goes to the SDK as a
//! `hook_callback` control request, and its answer is the output JSON a command hook would have
//! printed, so [`super::protocol::interpret`] reads both alike. An error answer, no answer in
//! time or a closed channel is a warning, as a failing command hook's is.
//!
//! The SDK's permission prompt (`can_use_tool`, with `--permission-prompt-tool stdio`) rides the
//! same seam: a PreToolUse hook whose callback is [`CAN_USE_TOOL`], run where claude would ask
//! ([`asks`]) after the other hooks, and its `allow`/`deny` answer becomes a `permissionDecision`, so a denial is a
//! hook's refusal (listed in `permission_denials`) and `updatedInput` replaces the arguments.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::runner::{Ending, Run};
use crate::control::{self, Answer};

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

/// The SDK's `can_use_tool` answer as hook output JSON: `allow` (with `updatedInput` in pincer's
/// argument names) or `deny` with its message; `interrupt: true` also ends the turn.
fn permission_output(answer: &Value, tool: &str) -> Value {
    let specific =
        |decision: &str| json!({"hookEventName": "PreToolUse", "permissionDecision": decision});
    match answer.get("behavior").and_then(Value::as_str) {
        Some("allow") => {
            let mut specific = specific("allow");
            if let Some(updated) = answer.get("updatedInput").filter(|input| input.is_object()) {
                specific["updatedInput"] = super::protocol::pincer_tool_input(tool, updated);
            }
            json!({"hookSpecificOutput": specific})
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
            output
        }
    }
}

/// Ask the SDK's callback `id` about `input` (the hook input JSON).
pub(super) async fn run(
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
    };
    let Some(channel) = control::current() else {
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
        json!({
            "subtype": "can_use_tool",
            "tool_name": tool,
            "input": input.get("tool_input").cloned().unwrap_or_else(|| json!({})),
            "tool_use_id": tool_use_id,
            "permission_suggestions": [],
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
                let output = permission_output(output, &tool).to_string();
                return run(Ending::Exited(0), output, String::new());
            }
            Answer::Error(message) => format!("it answered with an error: {message}"),
            Answer::TimedOut => format!("no answer within {} s", timeout.as_secs()),
            Answer::Closed => "the SDK closed its input".to_owned(),
            Answer::Cancelled => return run(Ending::Cancelled, String::new(), String::new()),
        };
        let deny = json!({"behavior": "deny", "message": format!(
            "the SDK's can_use_tool gave no decision ({missing}); the call was not run"
        )});
        let output = permission_output(&deny, &tool).to_string();
        return run(Ending::Exited(0), output, String::new());
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
    fn an_allow_becomes_an_allow_decision_and_a_deny_a_refusal_that_may_end_the_turn() {
        let allow = permission_output(
            &json!({"behavior": "allow", "updatedInput": {"command": "echo hi"}}),
            "Bash",
        );
        assert_eq!(
            allow,
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                "permissionDecision": "allow", "updatedInput": {"command": "echo hi"}}})
        );
        let deny = permission_output(&json!({"behavior": "deny", "message": "no"}), "Bash");
        assert_eq!(deny["hookSpecificOutput"]["permissionDecision"], "deny");
        assert_eq!(deny["hookSpecificOutput"]["permissionDecisionReason"], "no");
        assert_eq!(deny.get("continue"), None);
        let interrupt = permission_output(
            &json!({"behavior": "deny", "message": "stop", "interrupt": true}),
            "Bash",
        );
        assert_eq!(interrupt["continue"], false);
        let odd = permission_output(&json!({"behavior": "maybe"}), "Bash");
        assert_eq!(odd["hookSpecificOutput"]["permissionDecision"], "deny");
    }
}
