//! Claude Code's hook protocol (its hooks reference, code.claude.com/docs/en/hooks): the JSON a
//! hook reads on stdin, and what its exit code and stdout mean.
//!
//! Input: `session_id`, `transcript_path`, `cwd`, `permission_mode`, `hook_event_name`, then the
//! event's own fields — `source` and `model` (SessionStart), `prompt` (UserPromptSubmit),
//! `tool_name`, `tool_input`, `tool_use_id` (PreToolUse) and `tool_response` (PostToolUse),
//! `trigger` and `custom_instructions` (PreCompact), `stop_hook_active` and
//! `last_assistant_message` (Stop), `reason` (SessionEnd). Tools appear under Claude Code's names
//! where they have one (`Bash`, `Read`, …) and their input carries Claude Code's argument names
//! too (`file_path`, absolute; `old_string`, `new_string`), so existing hook scripts read what
//! they expect.
//!
//! Output: exit 0 proceeds, its stdout may be JSON (`continue`, `stopReason`, `systemMessage`,
//! `decision` + `reason`, `hookSpecificOutput` with `permissionDecision`,
//! `permissionDecisionReason`, `updatedInput`, `additionalContext`) — plain stdout of a
//! SessionStart or UserPromptSubmit hook is context for the model, as in Claude Code; exit 2
//! blocks with stderr as the reason where the event can block (PreToolUse, UserPromptSubmit,
//! Stop; PostToolUse passes it to the model), and is shown on stderr elsewhere; any other exit,
//! a timeout or a failure to start is a non-blocking error shown on stderr. The answers of the
//! hooks of one event are combined: any block or deny wins, contexts add up.

use std::path::Path;

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::HookEvent;
use super::runner::{Ending, Run};

/// One firing of an event, with what its hooks are told.
#[derive(Debug, Clone)]
pub enum Fire<'a> {
    /// A run starts (`startup`), resumes a session (`resume`), or goes on after a compaction
    /// (`compact`).
    SessionStart {
        /// `startup`, `resume` or `compact`.
        source: &'a str,
    },
    /// The prompt is about to be recorded and sent.
    UserPromptSubmit {
        /// The prompt's text.
        prompt: &'a str,
    },
    /// A tool call is about to run.
    PreToolUse {
        /// pincer's tool name.
        tool: &'a str,
        /// The call's arguments.
        input: &'a Value,
        /// The call id.
        id: &'a str,
        /// The policy would let the call run and no allow rule names it: a permission prompt
        /// (the SDK's `can_use_tool`) may be asked about it.
        may_ask: bool,
    },
    /// A tool call succeeded.
    PostToolUse {
        /// pincer's tool name.
        tool: &'a str,
        /// The arguments it ran with.
        input: &'a Value,
        /// Its result, as [`tool_response`] makes it.
        response: Value,
        /// The call id.
        id: &'a str,
    },
    /// A compaction is about to run.
    PreCompact {
        /// `manual` or `auto`.
        trigger: &'a str,
        /// The focus given to the summarizer (empty for automatic ones).
        instructions: &'a str,
    },
    /// The model answered without calling a tool.
    Stop {
        /// A Stop hook already made the model go on in this run.
        active: bool,
        /// The answer's text.
        last_message: &'a str,
    },
    /// The run is over.
    SessionEnd {
        /// `other` (claude's word for an ending that is not `/clear` or a logout).
        reason: &'a str,
    },
}

impl Fire<'_> {
    /// The event.
    pub fn event(&self) -> HookEvent {
        match self {
            Fire::SessionStart { .. } => HookEvent::SessionStart,
            Fire::UserPromptSubmit { .. } => HookEvent::UserPromptSubmit,
            Fire::PreToolUse { .. } => HookEvent::PreToolUse,
            Fire::PostToolUse { .. } => HookEvent::PostToolUse,
            Fire::PreCompact { .. } => HookEvent::PreCompact,
            Fire::Stop { .. } => HookEvent::Stop,
            Fire::SessionEnd { .. } => HookEvent::SessionEnd,
        }
    }

    /// The names the matchers are tried on: a tool's pincer and Claude Code names, the source,
    /// trigger or reason; nothing for the events whose matcher Claude Code ignores.
    pub fn subjects(&self) -> Vec<&str> {
        match self {
            Fire::PreToolUse { tool, .. } | Fire::PostToolUse { tool, .. } => {
                let claude = crate::tools::claude_name(tool);
                if claude == *tool {
                    vec![tool]
                } else {
                    vec![tool, claude]
                }
            }
            Fire::SessionStart { source } => vec![source],
            Fire::PreCompact { trigger, .. } => vec![trigger],
            Fire::SessionEnd { reason } => vec![reason],
            Fire::UserPromptSubmit { .. } | Fire::Stop { .. } => Vec::new(),
        }
    }

    /// The `hook_name` of the stream-json lines: `PreToolUse:Bash`, `SessionStart:startup`,
    /// `Stop`.
    pub fn label(&self) -> String {
        let event = self.event().as_str();
        match self {
            Fire::PreToolUse { tool, .. } | Fire::PostToolUse { tool, .. } => {
                format!("{event}:{}", crate::tools::claude_name(tool))
            }
            Fire::SessionStart { source } => format!("{event}:{source}"),
            Fire::PreCompact { trigger, .. } => format!("{event}:{trigger}"),
            Fire::SessionEnd { reason } => format!("{event}:{reason}"),
            Fire::UserPromptSubmit { .. } | Fire::Stop { .. } => event.to_owned(),
        }
    }

    /// The JSON on the hooks' stdin.
    pub fn input(&self, context: &super::HookContext) -> Value {
        let mut input = Map::new();
        input.insert("session_id".into(), json!(context.session_id));
        input.insert("transcript_path".into(), json!(context.transcript_path));
        input.insert("cwd".into(), json!(context.cwd.to_string_lossy()));
        input.insert("permission_mode".into(), json!(context.permission_mode));
        input.insert("hook_event_name".into(), json!(self.event().as_str()));
        let fields = match self {
            Fire::SessionStart { source } => json!({"source": source, "model": context.model}),
            Fire::UserPromptSubmit { prompt } => json!({"prompt": prompt}),
            Fire::PreToolUse {
                tool, input, id, ..
            } => json!({
                "tool_name": crate::tools::claude_name(tool),
                "tool_input": claude_tool_input(tool, input, &context.cwd),
                "tool_use_id": id,
            }),
            Fire::PostToolUse {
                tool,
                input,
                response,
                id,
            } => json!({
                "tool_name": crate::tools::claude_name(tool),
                "tool_input": claude_tool_input(tool, input, &context.cwd),
                "tool_response": response,
                "tool_use_id": id,
            }),
            Fire::PreCompact {
                trigger,
                instructions,
            } => json!({"trigger": trigger, "custom_instructions": instructions}),
            Fire::Stop {
                active,
                last_message,
            } => json!({"stop_hook_active": active, "last_assistant_message": last_message}),
            Fire::SessionEnd { reason } => json!({"reason": reason}),
        };
        if let Value::Object(fields) = fields {
            input.extend(fields);
        }
        Value::Object(input)
    }
}

/// A tool's arguments with Claude Code's names added where pincer's differ: `file_path`
/// (absolute) beside `path` for the file tools, `old_string` / `new_string` beside `oldText` /
/// `newText`. The model's own keys stay as they are.
pub fn claude_tool_input(tool: &str, input: &Value, workspace: &Path) -> Value {
    let Value::Object(arguments) = input else {
        return input.clone();
    };
    let mut arguments = arguments.clone();
    if matches!(tool, "read" | "write" | "edit")
        && !arguments.contains_key("file_path")
        && let Some(path) = arguments.get("path").and_then(Value::as_str)
    {
        let absolute = workspace.join(path);
        arguments.insert(
            "file_path".into(),
            json!(absolute.to_string_lossy().into_owned()),
        );
    }
    for (pincer, claude) in [("oldText", "old_string"), ("newText", "new_string")] {
        if !arguments.contains_key(claude)
            && let Some(value) = arguments.get(pincer).cloned()
        {
            arguments.insert(claude.into(), value);
        }
    }
    Value::Object(arguments)
}

/// Arguments in claude's names (a permission prompt's `updatedInput`, `tool` claude's name) as
/// pincer's tools take them: `file_path`, `old_string` and `new_string` of the file tools become
/// `path`, `oldText` and `newText`.
pub fn pincer_tool_input(tool: &str, input: &Value) -> Value {
    let Value::Object(arguments) = input else {
        return input.clone();
    };
    let mut arguments = arguments.clone();
    if matches!(tool, "Read" | "Write" | "Edit" | "MultiEdit") {
        for (claude, pincer) in [
            ("file_path", "path"),
            ("old_string", "oldText"),
            ("new_string", "newText"),
        ] {
            if let Some(value) = arguments.remove(claude) {
                arguments.insert(pincer.into(), value);
            }
        }
    }
    Value::Object(arguments)
}

/// A tool result as PostToolUse hooks get it in `tool_response`: its text and details, with
/// Claude Code's fields where they mean the same (`stdout`, `stderr` and `interrupted` for
/// `exec`, `filePath` and `success` for the file tools).
pub fn tool_response(
    tool: &str,
    input: &Value,
    text: &str,
    is_error: bool,
    details: Option<&Value>,
    workspace: &Path,
) -> Value {
    let mut response = json!({"output": text, "is_error": is_error});
    if let Some(details) = details {
        response["details"] = details.clone();
    }
    match tool {
        "exec" => {
            let flag = |key: &str| details.and_then(|d| d.get(key)).and_then(Value::as_bool);
            response["stdout"] = json!(text);
            response["stderr"] = json!("");
            response["interrupted"] =
                json!(flag("timed_out").unwrap_or(false) || flag("cancelled").unwrap_or(false));
        }
        "read" | "write" | "edit" => {
            if let Some(path) = claude_tool_input(tool, input, workspace)
                .get("file_path")
                .and_then(Value::as_str)
            {
                response["filePath"] = json!(path);
            }
            response["success"] = json!(!is_error);
        }
        _ => {}
    }
    response
}

/// What the hooks of one firing decided, combined.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Verdict {
    /// Blocked (exit 2, `decision: "block"`, `permissionDecision: "deny"` or `"ask"`), with the
    /// reasons.
    pub block: Option<String>,
    /// The block is the Claude Agent SDK's own refusal (its `can_use_tool` denial, or a deny
    /// rule it added): the model gets the message as is, as claude sends it.
    pub sdk_refusal: bool,
    /// A PreToolUse hook allowed the call (`permissionDecision: "allow"`); the tool policy's
    /// deny rules still apply.
    pub allow: bool,
    /// A PreToolUse hook's `updatedInput`: the call runs with these arguments.
    pub updated_input: Option<Value>,
    /// Text for the model (`additionalContext`, and plain stdout where it counts as context).
    pub context: Vec<String>,
    /// `continue: false`: the turn stops, with this reason.
    pub stop: Option<String>,
    /// Non-blocking errors, for stderr.
    pub warnings: Vec<String>,
    /// `systemMessage`s, for the person reading stderr.
    pub messages: Vec<String>,
}

impl Verdict {
    fn add_block(&mut self, reason: String) {
        match &mut self.block {
            Some(reasons) => {
                reasons.push('\n');
                reasons.push_str(&reason);
            }
            None => self.block = Some(reason),
        }
    }

    /// Add another hook's verdict: any block wins, contexts and messages add up, the first stop
    /// and the last updated input count.
    pub fn absorb(&mut self, other: Verdict) {
        if let Some(reason) = other.block {
            self.add_block(reason);
        }
        self.allow |= other.allow;
        if other.updated_input.is_some() {
            self.updated_input = other.updated_input;
        }
        self.context.extend(other.context);
        if self.stop.is_none() {
            self.stop = other.stop;
        }
        self.warnings.extend(other.warnings);
        self.messages.extend(other.messages);
    }
}

/// The JSON a hook may print on exit 0.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Output {
    #[serde(rename = "continue")]
    proceed: Option<bool>,
    stop_reason: Option<String>,
    system_message: Option<String>,
    decision: Option<String>,
    reason: Option<String>,
    hook_specific_output: Option<SpecificOutput>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct SpecificOutput {
    permission_decision: Option<String>,
    permission_decision_reason: Option<String>,
    updated_input: Option<Value>,
    additional_context: Option<String>,
}

/// What one hook's run means for `event`. `label` and `command` name it in messages.
pub fn interpret(event: HookEvent, run: &Run, label: &str, command: &str) -> Verdict {
    let mut verdict = Verdict::default();
    let stderr = run.stderr.trim();
    let named = format!("{label} hook `{}`", short(command));
    match &run.ending {
        Ending::Exited(0) => read_output(event, run.stdout.trim(), &named, &mut verdict),
        Ending::Exited(2) if event.can_block() => verdict.add_block(if stderr.is_empty() {
            format!("blocked by the {named} (exit code 2)")
        } else {
            stderr.to_owned()
        }),
        Ending::Exited(code) => verdict.warnings.push(with_stderr(
            format!("the {named} exited with code {code}"),
            stderr,
        )),
        Ending::Signalled(signal) => verdict.warnings.push(with_stderr(
            format!("the {named} was killed by signal {signal}"),
            stderr,
        )),
        Ending::TimedOut(timeout) => verdict.warnings.push(format!(
            "the {named} did not finish within {} s and was killed",
            timeout.as_secs_f64()
        )),
        // The run is being cancelled; that says it already.
        Ending::Cancelled => {}
        Ending::NotStarted(reason) => verdict
            .warnings
            .push(format!("the {named} could not be started: {reason}")),
    }
    verdict
}

fn with_stderr(message: String, stderr: &str) -> String {
    if stderr.is_empty() {
        message
    } else {
        format!("{message}: {stderr}")
    }
}

/// A command for a message: its first line, at most 80 characters.
fn short(command: &str) -> String {
    let line = command.lines().next().unwrap_or_default();
    if line.chars().count() > 80 || line.len() < command.trim_end().len() {
        format!("{}…", line.chars().take(80).collect::<String>())
    } else {
        line.to_owned()
    }
}

/// Exit 0: stdout is JSON when it looks like it, else plain text (context for SessionStart and
/// UserPromptSubmit).
fn read_output(event: HookEvent, stdout: &str, named: &str, verdict: &mut Verdict) {
    let takes_plain_context =
        matches!(event, HookEvent::SessionStart | HookEvent::UserPromptSubmit);
    if !stdout.starts_with('{') {
        if takes_plain_context && !stdout.is_empty() {
            verdict.context.push(stdout.to_owned());
        }
        return;
    }
    let output: Output = match serde_json::from_str(stdout) {
        Ok(output) => output,
        Err(error) => {
            verdict.warnings.push(format!(
                "the {named} printed output that is not valid hook JSON ({error}); it is ignored"
            ));
            return;
        }
    };
    if output.proceed == Some(false) {
        verdict.stop = Some(
            output
                .stop_reason
                .clone()
                .unwrap_or_else(|| format!("stopped by the {named}")),
        );
    }
    verdict.messages.extend(output.system_message);
    let reason = || {
        output
            .reason
            .clone()
            .unwrap_or_else(|| format!("blocked by the {named}"))
    };
    match output.decision.as_deref() {
        Some("block") if event.can_block() => verdict.add_block(reason()),
        // The older PreToolUse spelling of `permissionDecision: "allow"`.
        Some("approve") if event == HookEvent::PreToolUse => verdict.allow = true,
        _ => {}
    }
    let Some(specific) = output.hook_specific_output else {
        return;
    };
    if event == HookEvent::PreToolUse {
        let reason = specific.permission_decision_reason.clone();
        match specific.permission_decision.as_deref() {
            Some("deny") => {
                verdict.add_block(reason.unwrap_or_else(|| format!("denied by the {named}")));
            }
            Some("ask") => verdict.add_block(format!(
                "{} (the hook asked for confirmation, and a headless run cannot ask)",
                reason.unwrap_or_else(|| format!("the {named} wants the call confirmed"))
            )),
            Some("allow") => verdict.allow = true,
            _ => {}
        }
        verdict.updated_input = specific.updated_input;
    }
    verdict.context.extend(specific.additional_context);
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::time::Duration;

    use super::*;

    fn run(ending: Ending, stdout: &str, stderr: &str) -> Run {
        Run {
            ending,
            stdout: stdout.to_owned(),
            stderr: stderr.to_owned(),
            duration: Duration::ZERO,
            notes: Vec::new(),
        }
    }

    fn verdict(event: HookEvent, ending: Ending, stdout: &str, stderr: &str) -> Verdict {
        interpret(event, &run(ending, stdout, stderr), "Test", "guard.sh")
    }

    #[test]
    fn exit_two_blocks_with_stderr_where_the_event_can_block_and_warns_elsewhere() {
        let blocked = verdict(
            HookEvent::PreToolUse,
            Ending::Exited(2),
            "ignored",
            "no pushes\n",
        );
        assert_eq!(blocked.block.as_deref(), Some("no pushes"));
        let shown = verdict(HookEvent::SessionEnd, Ending::Exited(2), "", "late");
        assert_eq!(shown.block, None);
        assert_eq!(
            shown.warnings,
            ["the Test hook `guard.sh` exited with code 2: late"]
        );
        let other = verdict(HookEvent::PreToolUse, Ending::Exited(1), "", "oops");
        assert_eq!(other.block, None);
        assert_eq!(other.warnings.len(), 1);
    }

    #[test]
    fn json_decisions_deny_allow_context_and_stop() {
        let deny = verdict(
            HookEvent::PreToolUse,
            Ending::Exited(0),
            r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "not here"}}"#,
            "",
        );
        assert_eq!(deny.block.as_deref(), Some("not here"));
        let allow = verdict(
            HookEvent::PreToolUse,
            Ending::Exited(0),
            r#"{"hookSpecificOutput": {"permissionDecision": "allow", "updatedInput": {"command": "ls"}}}"#,
            "",
        );
        assert!(allow.allow && allow.block.is_none());
        assert_eq!(allow.updated_input, Some(json!({"command": "ls"})));
        let stop = verdict(
            HookEvent::Stop,
            Ending::Exited(0),
            r#"{"decision": "block", "reason": "tests fail", "systemMessage": "checking"}"#,
            "",
        );
        assert_eq!(stop.block.as_deref(), Some("tests fail"));
        assert_eq!(stop.messages, ["checking"]);
        let halt = verdict(
            HookEvent::PostToolUse,
            Ending::Exited(0),
            r#"{"continue": false, "stopReason": "enough", "hookSpecificOutput": {"additionalContext": "note"}}"#,
            "",
        );
        assert_eq!(halt.stop.as_deref(), Some("enough"));
        assert_eq!(halt.context, ["note"]);
    }

    #[test]
    fn plain_stdout_is_context_only_where_claude_makes_it_context() {
        let start = verdict(
            HookEvent::SessionStart,
            Ending::Exited(0),
            "branch main\n",
            "",
        );
        assert_eq!(start.context, ["branch main"]);
        let pre = verdict(HookEvent::PreToolUse, Ending::Exited(0), "chatter", "");
        assert!(pre.context.is_empty() && pre.warnings.is_empty());
        let broken = verdict(HookEvent::Stop, Ending::Exited(0), "{broken", "");
        assert_eq!(broken.warnings.len(), 1);
    }

    #[test]
    fn a_timeout_or_a_failed_start_is_a_warning_and_a_cancellation_is_silent() {
        let late = verdict(
            HookEvent::PreToolUse,
            Ending::TimedOut(Duration::from_millis(1500)),
            "",
            "",
        );
        assert_eq!(
            late.warnings,
            ["the Test hook `guard.sh` did not finish within 1.5 s and was killed"]
        );
        assert!(late.block.is_none());
        let missing = verdict(HookEvent::Stop, Ending::NotStarted("no sh".into()), "", "");
        assert_eq!(missing.warnings.len(), 1);
        assert_eq!(
            verdict(HookEvent::Stop, Ending::Cancelled, "", ""),
            Verdict::default()
        );
    }

    #[test]
    fn any_block_wins_when_verdicts_are_combined() {
        let mut combined = Verdict {
            allow: true,
            context: vec!["a".into()],
            ..Verdict::default()
        };
        combined.absorb(Verdict {
            block: Some("first".into()),
            ..Verdict::default()
        });
        combined.absorb(Verdict {
            block: Some("second".into()),
            context: vec!["b".into()],
            ..Verdict::default()
        });
        assert_eq!(combined.block.as_deref(), Some("first\nsecond"));
        assert_eq!(combined.context, ["a", "b"]);
    }

    #[test]
    fn tool_input_gains_claudes_argument_names() {
        let input = claude_tool_input(
            "edit",
            &json!({"path": "src/a.rs", "oldText": "x", "newText": "y"}),
            &PathBuf::from("/w"),
        );
        assert_eq!(
            input,
            json!({"path": "src/a.rs", "oldText": "x", "newText": "y",
                   "file_path": "/w/src/a.rs", "old_string": "x", "new_string": "y"})
        );
        let exec = claude_tool_input("exec", &json!({"command": "git push"}), Path::new("/w"));
        assert_eq!(exec, json!({"command": "git push"}));
    }

    #[test]
    fn claudes_argument_names_map_back_to_pincers_for_the_file_tools_only() {
        let edit = pincer_tool_input(
            "Edit",
            &json!({"file_path": "/w/a.txt", "old_string": "x", "new_string": "y"}),
        );
        assert_eq!(
            edit,
            json!({"path": "/w/a.txt", "oldText": "x", "newText": "y"})
        );
        let bash = json!({"command": "ls", "file_path": "kept"});
        assert_eq!(pincer_tool_input("Bash", &bash), bash);
    }

    #[test]
    fn stdin_carries_claudes_common_and_event_fields() {
        let context = super::super::HookContext::for_tests(Path::new("/w"));
        let fire = Fire::PreToolUse {
            tool: "exec",
            input: &json!({"command": "ls"}),
            id: "toolu_1",
            may_ask: true,
        };
        assert_eq!(fire.label(), "PreToolUse:Bash");
        assert_eq!(fire.subjects(), ["exec", "Bash"]);
        assert_eq!(
            fire.input(&context),
            json!({
                "session_id": "s1",
                "transcript_path": "/h/s1.jsonl",
                "cwd": "/w",
                "permission_mode": "acceptEdits",
                "hook_event_name": "PreToolUse",
                "tool_name": "Bash",
                "tool_input": {"command": "ls"},
                "tool_use_id": "toolu_1"
            })
        );
    }
}
