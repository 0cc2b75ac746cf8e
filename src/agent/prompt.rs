//! The system prompt, rebuilt for every request. This is the compact form (identity, tools,
//! workspace, runtime facts, appended texts); workspace context files and the prompt modes of
//! SPEC §6 extend it.

use std::fmt::Write as _;
use std::path::Path;

use crate::provider::ToolDefinition;

/// What the system prompt is built from.
#[derive(Debug, Clone)]
pub struct PromptInputs<'a> {
    /// The workspace directory.
    pub workspace: &'a Path,
    /// `provider/model`.
    pub model: &'a str,
    /// The tools offered.
    pub tools: &'a [ToolDefinition],
    /// `--system-prompt` text: replaces everything but the appended texts.
    pub replace: Option<&'a str>,
    /// `--append-system-prompt` texts, in order.
    pub append: &'a [String],
    /// Local date and UTC offset.
    pub now: &'a str,
}

/// Build the system prompt.
pub fn build(inputs: &PromptInputs<'_>) -> String {
    let mut prompt = String::new();
    match inputs.replace {
        Some(text) => prompt.push_str(text.trim_end()),
        None => {
            prompt.push_str(
                "You are pincer, a coding agent run from scripts, cron jobs and CI. You work \
                 without a human watching: nobody can answer questions during the turn, so make \
                 reasonable decisions, use the tools to inspect and change the workspace, and \
                 finish with a concise final answer that is useful as the command's output.\n",
            );
            if !inputs.tools.is_empty() {
                prompt.push_str("\n## Tools\n");
                for tool in inputs.tools {
                    let summary = tool.description.lines().next().unwrap_or_default();
                    let _ = writeln!(prompt, "- {}: {summary}", tool.name);
                }
                prompt.push_str(
                    "Paths are relative to the workspace. Read a file before editing it.\n",
                );
            }
            let _ = write!(
                prompt,
                "\n## Workspace\n{}\n\n## Runtime\n- date: {}\n- os: {}\n- model: {}\n- pincer {}\n",
                inputs.workspace.display(),
                inputs.now,
                std::env::consts::OS,
                inputs.model,
                env!("CARGO_PKG_VERSION"),
            );
        }
    }
    for text in inputs.append {
        if !text.trim().is_empty() {
            prompt.push_str("\n\n");
            prompt.push_str(text.trim_end());
        }
    }
    prompt
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appended_texts_follow_the_built_prompt_and_a_replacement_keeps_them() {
        let append = vec!["Always answer in French.".to_owned()];
        let inputs = PromptInputs {
            workspace: Path::new("/w"),
            model: "anthropic/claude-sonnet-4-5",
            tools: &[],
            replace: None,
            append: &append,
            now: "2026-11-30T12:00:00+00:00",
        };
        let built = build(&inputs);
        assert!(built.starts_with("You are pincer"));
        assert!(built.contains("/w"));
        assert!(built.contains("2026-11-30T12:00:00+00:00"));
        assert!(built.ends_with("\n\nAlways answer in French."));

        let replaced = build(&PromptInputs {
            replace: Some("Be terse."),
            ..inputs
        });
        assert_eq!(replaced, "Be terse.\n\nAlways answer in French.");
    }
}
