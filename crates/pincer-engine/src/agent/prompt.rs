//! The system prompt (SPEC §6.1), rebuilt and sent on every request.
//!
//! Full mode, in order: identity and role, tools, safety, skills (SPEC §6.5; not on heartbeat
//! runs), workspace, runtime, workspace files, heartbeat rules (heartbeat runs only), then the
//! appended texts. `minimal` keeps tools, safety and runtime; `none` keeps only what the user
//! supplied; `--system-prompt` replaces everything but the appended texts. Sections are separated by a blank line and measured in characters for
//! `--dry-run` and `status --json`.
//!
//! Everything here is a pure function of its inputs; the repository's state comes from
//! [`super::git`]: its branch goes in the prompt, its change counts in the turn's user message
//! ([`git_status_note`]), so that editing a file does not change the prompt. The inputs carry
//! the date, not the time, so a cron job's prompt stays byte-identical within a day and provider
//! prompt caching keeps working.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use super::git::GitSummary;

use super::context_files::ContextFile;
use super::heartbeat::HEARTBEAT_OK;
use super::skills::Skill;
use crate::conversation::ToolDefinition;

/// How much of the built-in prompt is sent (`--prompt-mode`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum PromptMode {
    /// Every section.
    #[default]
    Full,
    /// Tools, safety and runtime only.
    Minimal,
    /// Only user-supplied text.
    None,
}

impl PromptMode {}

/// What the system prompt is built from.
#[derive(Debug, Clone)]
pub struct PromptInputs<'a> {
    /// The workspace directory.
    pub workspace: &'a Path,
    /// `provider/model`.
    pub model: &'a str,
    /// The tools offered.
    pub tools: &'a [ToolDefinition],
    /// Which sections to send.
    pub mode: PromptMode,
    /// `--system-prompt` text: replaces everything but the appended texts.
    pub replace: Option<&'a str>,
    /// `--append-system-prompt` and configured texts, in order.
    pub append: &'a [String],
    /// Local date and UTC offset (no time of day, for prompt caching).
    pub now: &'a str,
    /// The sandbox mode's name: `read-only`, `workspace-write` or `danger-full-access`.
    pub sandbox: &'a str,
    /// Extra roots (`--add-dir`, `tools.add_dirs`), absolute.
    pub added_dirs: &'a [PathBuf],
    /// Workspace context files, already loaded and capped.
    pub files: &'a [ContextFile],
    /// Skills to list, in order (sorted by name, so the prompt stays cacheable); skills only a
    /// person may start are left out here.
    pub skills: &'a [Skill],
    /// Whether this is a heartbeat run.
    pub heartbeat: bool,
    /// The repository state, when the workspace is one.
    pub git: Option<&'a GitSummary>,
}

/// The size of one section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SectionSize {
    /// `identity`, `tools`, `safety`, `skills`, `workspace`, `runtime`, `workspace_files`,
    /// `heartbeat`, `system_prompt` (a replacement) or `append`.
    pub name: String,
    /// Its length in characters, separators between sections not included.
    pub chars: usize,
}

/// One workspace file as it went into the prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileReport {
    /// Its title in the prompt.
    pub name: String,
    /// Where it was read from.
    pub path: PathBuf,
    /// Characters sent.
    pub chars: usize,
    /// Characters in the file.
    pub original_chars: usize,
    /// Whether the cap cut it.
    pub truncated: bool,
}

/// The system prompt and what it is made of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuiltPrompt {
    /// The text sent as the system prompt (empty when there is nothing to send).
    pub text: String,
    /// Sections in order.
    pub sections: Vec<SectionSize>,
    /// Workspace files included, in order.
    pub files: Vec<FileReport>,
}

/// Build the system prompt.
pub fn build(inputs: &PromptInputs<'_>) -> BuiltPrompt {
    let mut sections: Vec<(&str, String)> = Vec::new();
    let mut files = Vec::new();
    match (inputs.replace, inputs.mode) {
        (Some(text), _) => sections.push(("system_prompt", text.trim_end().to_owned())),
        (None, PromptMode::None) => {}
        (None, PromptMode::Minimal) => {
            sections.push(("tools", tools_section(inputs.tools)));
            sections.push(("safety", safety_section(inputs.sandbox)));
            sections.push(("runtime", runtime_section(inputs)));
        }
        (None, PromptMode::Full) => {
            sections.push(("identity", IDENTITY.to_owned()));
            sections.push(("tools", tools_section(inputs.tools)));
            sections.push(("safety", safety_section(inputs.sandbox)));
            if !inputs.heartbeat
                && let Some(text) = skills_section(inputs.skills, inputs.tools)
            {
                sections.push(("skills", text));
            }
            sections.push(("workspace", workspace_section(inputs)));
            sections.push(("runtime", runtime_section(inputs)));
            if !inputs.files.is_empty() {
                let (text, reports) = files_section(inputs.files);
                sections.push(("workspace_files", text));
                files = reports;
            }
            if inputs.heartbeat {
                sections.push(("heartbeat", heartbeat_section()));
            }
        }
    }
    for text in inputs.append {
        let text = text.trim_end();
        if !text.trim_start().is_empty() {
            sections.push(("append", text.to_owned()));
        }
    }
    sections.retain(|(_, text)| !text.is_empty());

    let text = sections
        .iter()
        .map(|(_, text)| text.as_str())
        .collect::<Vec<_>>()
        .join("\n\n");
    let sections = sections
        .iter()
        .map(|(name, text)| SectionSize {
            name: (*name).to_owned(),
            chars: text.chars().count(),
        })
        .collect();
    BuiltPrompt {
        text,
        sections,
        files,
    }
}

const IDENTITY: &str = "You are pincer, a coding agent run by a script, cron or CI; nobody can \
answer questions mid-run. When something is unclear, make the most reasonable choice, say which, \
and go on. Check your work. End with a concise answer that stands alone as the \
command's output: what you did, found, and left for a person.";

/// The tools by name: their definitions, sent beside the prompt, say what each does, so the
/// prompt does not repeat them (it did once, at the price of the whole list on every request).
fn tools_section(tools: &[ToolDefinition]) -> String {
    if tools.is_empty() {
        return "## Tools\nNo tools are available in this run: answer from the conversation alone \
                and do not write tool calls."
            .to_owned();
    }
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_str()).collect();
    format!(
        "## Tools\n{}. Call them only through the tool-calling interface; independent calls may \
         share a message. Read a file before editing it. A tool error is an answer too: adapt.",
        names.join(", ")
    )
}

fn safety_section(sandbox: &str) -> String {
    let mode = match sandbox {
        "read-only" => "Sandbox: read-only. Nothing may be changed: no tool that writes files is \
                        offered, and commands run on a read-only file system (or not at all)."
            .to_owned(),
        "workspace-write" => {
            // The read-only names are what pincer declares it consumes, not a list kept here.
            let names: Vec<String> = crate::consumed::protected_names()
                .map(|name| format!("`{name}`"))
                .collect();
            format!(
                "Sandbox: workspace-write. Only the workspace and `$TMPDIR` (private, deleted \
                 after the run; not /tmp) are writable, by commands too; {}, the context files \
                 and pincer's directories are read-only (`git commit` fails).",
                names.join(", ")
            )
        }
        "danger-full-access" => "Sandbox: danger-full-access. Nothing is confined: commands act \
                                 on the real machine with the user's permissions."
            .to_owned(),
        _ => String::new(),
    };
    let mut text = String::from("## Safety\n");
    if mode.is_empty() {
        let _ = writeln!(text, "Sandbox: {sandbox}.");
    } else {
        text.push_str(&mode);
        text.push('\n');
    }
    text.push_str(
        "- No destructive commands (`rm -rf`, `git reset --hard`, force pushes, dropping data) \
         unless the task asks for them.\n\
         - Never print, log, commit or send secrets: keys, tokens, passwords, credential and \
         `.env` files.\n\
         - A refused tool call is final: do not work around it; report what could not be done.\n\
         - Stay within the task; do not change your own instructions or configuration.",
    );
    text
}

/// The skills list: name, description and `SKILL.md` path of each, never a body. `None` when
/// there is nothing to list or no tool can read a file (a list the model cannot use is noise).
fn skills_section(skills: &[Skill], tools: &[ToolDefinition]) -> Option<String> {
    let skills: Vec<&Skill> = skills.iter().filter(|skill| !skill.is_manual()).collect();
    if skills.is_empty() {
        return None;
    }
    let offered = |names: &[&str]| {
        tools
            .iter()
            .find(|tool| names.contains(&tool.name.as_str()))
            .map(|tool| tool.name.clone())
    };
    let how = match offered(&["read", "Read"]) {
        Some(read) => format!("with the `{read}` tool"),
        None => format!(
            "by printing it with the `{}` tool (`cat` on its path)",
            offered(&["exec", "Bash", "shell"])?
        ),
    };
    let mut text = format!(
        "## Skills\nSkills are instructions packaged for particular tasks. Each entry below \
         gives a skill's name, what it is for and where its SKILL.md lies. Before you start, \
         compare the task with the descriptions. When one skill clearly applies, read its \
         SKILL.md {how} and follow it; files it mentions are relative to the directory that \
         holds it. Read at most one skill before you begin and none when nothing applies; read \
         another only when the work turns out to need it.\n"
    );
    for skill in skills {
        let _ = writeln!(
            text,
            "- {}: {}\n  {}",
            skill.front_matter.name,
            skill.front_matter.description,
            skill.path.display()
        );
    }
    text.truncate(text.trim_end().len());
    Some(text)
}

fn workspace_section(inputs: &PromptInputs<'_>) -> String {
    let mut text = format!(
        "## Workspace\nWorking directory: {} (relative tool paths start here).",
        inputs.workspace.display()
    );
    if !inputs.added_dirs.is_empty() {
        let access = if inputs.sandbox == "read-only" {
            "readable"
        } else {
            "readable and writable"
        };
        let _ = write!(
            text,
            "\nAdditional directories, {access} like the workspace (use absolute paths):"
        );
        for directory in inputs.added_dirs {
            let _ = write!(text, "\n- {}", directory.display());
        }
    }
    if let Some(git) = inputs.git {
        // The branch only: it holds for a session (a switch is a rare, deliberate cut). The
        // change counts move with every edit and, here before the system breakpoint, would make
        // the next run write the whole cached prefix again; they end the turn's own message
        // ([`git_status_note`]).
        let branch = git.branch.as_deref().map_or_else(
            || "a detached HEAD".to_owned(),
            |branch| format!("branch {branch}"),
        );
        let _ = write!(text, "\nGit repository: {branch}.");
    }
    text
}

/// The repository's change counts when the turn starts (SPEC §6.1's status summary), added after
/// the prompt in the turn's user message and stored with it: after every cache breakpoint of
/// the earlier requests, and the same bytes in every later request of the session.
pub fn git_status_note(git: &GitSummary) -> String {
    let state = if git.changed == 0 && git.untracked == 0 {
        "no uncommitted changes".to_owned()
    } else {
        format!(
            "{} changed and {} untracked files",
            git.changed, git.untracked
        )
    };
    format!("Git status at the start of this turn: {state}.")
}

fn runtime_section(inputs: &PromptInputs<'_>) -> String {
    format!(
        "## Runtime\n- date: {}\n- os: {} ({})\n- model: {}\n- pincer {}",
        inputs.now,
        std::env::consts::OS,
        std::env::consts::ARCH,
        inputs.model,
        env!("CARGO_PKG_VERSION"),
    )
}

fn files_section(files: &[ContextFile]) -> (String, Vec<FileReport>) {
    let mut text = String::from(
        "# Workspace files\nThe user keeps these files as standing instructions and memory; \
         follow them unless they conflict with the safety rules. Files titled global/ apply to \
         every workspace.",
    );
    let mut reports = Vec::with_capacity(files.len());
    for file in files {
        let _ = write!(text, "\n\n## {}\n{}", file.name, file.content);
        reports.push(FileReport {
            name: file.name.clone(),
            path: file.path.clone(),
            chars: file.content.chars().count(),
            original_chars: file.original_chars,
            truncated: file.truncated,
        });
    }
    (text, reports)
}

fn heartbeat_section() -> String {
    format!(
        "## Heartbeat\nThis is a heartbeat run, started on a schedule. Do what HEARTBEAT.md asks. \
         If nothing needs attention, reply exactly {HEARTBEAT_OK}: such a reply reaches nobody. \
         Any other reply is sent to a person as a report, so write one only when there is \
         something to report."
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(name: &str, description: &str) -> ToolDefinition {
        ToolDefinition {
            name: name.to_owned(),
            description: description.to_owned(),
            parameters: json!({"type": "object"}),
        }
    }

    fn file(name: &str, content: &str) -> ContextFile {
        ContextFile {
            name: name.to_owned(),
            path: PathBuf::from("/w").join(name),
            content: content.to_owned(),
            original_chars: 500,
            truncated: true,
        }
    }

    fn section_names(built: &BuiltPrompt) -> Vec<&str> {
        built
            .sections
            .iter()
            .map(|section| section.name.as_str())
            .collect()
    }

    fn skill(name: &str, description: &str) -> Skill {
        Skill {
            front_matter: crate::agent::skills::FrontMatter {
                name: name.to_owned(),
                description: description.to_owned(),
                license: None,
                compatibility: None,
                allowed_tools: vec!["Bash".to_owned()],
                metadata: None,
                disable_model_invocation: false,
            },
            path: PathBuf::from(format!("/config/skills/{name}/SKILL.md")),
            source: crate::agent::skills::SkillSource::Global,
        }
    }

    struct Fixture {
        tools: Vec<ToolDefinition>,
        files: Vec<ContextFile>,
        skills: Vec<Skill>,
        append: Vec<String>,
        git: GitSummary,
    }

    impl Fixture {
        fn new() -> Self {
            Self {
                tools: vec![
                    tool("read", "Read a file.\nMore detail the prompt leaves out."),
                    tool("exec", "Run a command."),
                ],
                files: vec![
                    file("AGENTS.md", "Run cargo test before committing."),
                    file("global/USER.md", "The user is Ada."),
                ],
                skills: vec![
                    skill("deploy", "Ship the service to staging."),
                    skill("triage", "Sort the on-call queue."),
                ],
                append: vec!["Always answer in French.".to_owned(), "  \n".to_owned()],
                git: GitSummary {
                    branch: Some("main".to_owned()),
                    changed: 2,
                    untracked: 1,
                },
            }
        }

        fn inputs(&self) -> PromptInputs<'_> {
            PromptInputs {
                workspace: Path::new("/w"),
                model: "anthropic/claude-sonnet-4-5",
                tools: &self.tools,
                mode: PromptMode::Full,
                replace: None,
                append: &self.append,
                now: "2026-11-30 (Monday), UTC+01:00",
                sandbox: "workspace-write",
                added_dirs: &[],
                files: &self.files,
                skills: &self.skills,
                heartbeat: false,
                git: Some(&self.git),
            }
        }
    }

    #[test]
    fn full_mode_has_every_section_in_order_with_appends_last() {
        let fixture = Fixture::new();
        let built = build(&fixture.inputs());
        assert_eq!(
            section_names(&built),
            vec![
                "identity",
                "tools",
                "safety",
                "skills",
                "workspace",
                "runtime",
                "workspace_files",
                "append"
            ]
        );
        let text = &built.text;
        assert!(text.starts_with("You are pincer"));
        // The tools by name only: their definitions describe them.
        assert!(text.contains("## Tools\nread, exec. Call them only through"));
        assert!(!text.contains("Read a file.") && !text.contains("More detail"));
        assert!(text.contains("Sandbox: workspace-write."));
        assert!(text.contains("Working directory: /w "));
        assert!(text.contains("Git repository: branch main.\n\n## Runtime"));
        assert!(text.contains("- date: 2026-11-30 (Monday), UTC+01:00\n"));
        assert!(text.contains("- model: anthropic/claude-sonnet-4-5\n"));
        assert!(text.contains(&format!("- pincer {}", env!("CARGO_PKG_VERSION"))));
        assert!(text.contains(
            "\n\n## AGENTS.md\nRun cargo test before committing.\n\n## global/USER.md\nThe user is Ada.\n\nAlways answer in French."
        ));
        assert!(text.ends_with("\n\nAlways answer in French."));
        assert!(!text.contains("## Heartbeat"));
    }

    #[test]
    fn the_skills_section_lists_name_description_and_path_after_safety() {
        let fixture = Fixture::new();
        let built = build(&fixture.inputs());
        let text = &built.text;
        let start = text.find("## Skills\n").unwrap();
        assert!(text[..start].contains("## Safety"));
        assert!(
            text[start..]
                .starts_with("## Skills\nSkills are instructions packaged for particular tasks.")
        );
        assert!(text.contains("read its SKILL.md with the `read` tool and follow it"));
        assert!(text.contains("Read at most one skill before you begin"));
        assert!(text.contains(
            "\n- deploy: Ship the service to staging.\n  /config/skills/deploy/SKILL.md\n- triage: \
             Sort the on-call queue.\n  /config/skills/triage/SKILL.md\n\n## Workspace"
        ));
        // Reported, never granted or shown: allowed-tools stays out of the prompt.
        assert!(!text.contains("Bash"));
    }

    #[test]
    fn the_skills_section_names_the_tool_that_can_read_and_is_left_out_without_one() {
        let fixture = Fixture::new();
        let exec_only = vec![tool("exec", "Run a command.")];
        let built = build(&PromptInputs {
            tools: &exec_only,
            ..fixture.inputs()
        });
        assert!(
            built.text.contains(
                "read its SKILL.md by printing it with the `exec` tool (`cat` on its path)"
            )
        );
        let claude = vec![tool("Read", "read a file"), tool("Bash", "run")];
        let built = build(&PromptInputs {
            tools: &claude,
            ..fixture.inputs()
        });
        assert!(built.text.contains("with the `Read` tool"));
        let built = build(&PromptInputs {
            tools: &[],
            ..fixture.inputs()
        });
        assert!(!section_names(&built).contains(&"skills"));
    }

    #[test]
    fn skills_only_a_person_may_start_are_not_listed_and_none_means_no_section() {
        let fixture = Fixture::new();
        let mut manual = skill("manual", "Only by hand.");
        manual.front_matter.disable_model_invocation = true;
        let only_manual = vec![manual];
        let built = build(&PromptInputs {
            skills: &only_manual,
            ..fixture.inputs()
        });
        assert!(!section_names(&built).contains(&"skills"));
        assert!(!built.text.contains("manual"));
        let built = build(&PromptInputs {
            skills: &[],
            ..fixture.inputs()
        });
        assert!(!built.text.contains("## Skills"));
    }

    #[test]
    fn section_sizes_are_characters_and_add_up_to_the_text() {
        let fixture = Fixture::new();
        let built = build(&fixture.inputs());
        let separators = 2 * (built.sections.len() - 1);
        let sum: usize = built.sections.iter().map(|section| section.chars).sum();
        assert_eq!(sum + separators, built.text.chars().count());
        let append = built.sections.last().unwrap();
        assert_eq!(append.chars, "Always answer in French.".len());
    }

    #[test]
    fn files_are_reported_with_their_sizes() {
        let fixture = Fixture::new();
        let built = build(&fixture.inputs());
        assert_eq!(
            built.files,
            vec![
                FileReport {
                    name: "AGENTS.md".to_owned(),
                    path: PathBuf::from("/w/AGENTS.md"),
                    chars: 33,
                    original_chars: 500,
                    truncated: true,
                },
                FileReport {
                    name: "global/USER.md".to_owned(),
                    path: PathBuf::from("/w/global/USER.md"),
                    chars: 16,
                    original_chars: 500,
                    truncated: true,
                },
            ]
        );
    }

    #[test]
    fn heartbeat_runs_add_the_heartbeat_rules_after_the_files() {
        let fixture = Fixture::new();
        let built = build(&PromptInputs {
            heartbeat: true,
            ..fixture.inputs()
        });
        assert_eq!(
            section_names(&built)[4..],
            ["runtime", "workspace_files", "heartbeat", "append"]
        );
        assert!(built.text.contains("reply exactly HEARTBEAT_OK"));
        assert!(
            !built.text.contains("## Skills"),
            "heartbeat runs list no skills"
        );
    }

    #[test]
    fn minimal_mode_keeps_tools_safety_and_runtime() {
        let fixture = Fixture::new();
        let built = build(&PromptInputs {
            mode: PromptMode::Minimal,
            heartbeat: true,
            ..fixture.inputs()
        });
        assert_eq!(
            section_names(&built),
            vec!["tools", "safety", "runtime", "append"]
        );
        assert!(built.text.starts_with("## Tools\n"));
        assert!(built.files.is_empty());
        assert!(!built.text.contains("## Skills"));
    }

    #[test]
    fn none_mode_sends_only_user_text() {
        let fixture = Fixture::new();
        let built = build(&PromptInputs {
            mode: PromptMode::None,
            ..fixture.inputs()
        });
        assert_eq!(built.text, "Always answer in French.");
        let empty = build(&PromptInputs {
            mode: PromptMode::None,
            append: &[],
            ..fixture.inputs()
        });
        assert_eq!(empty.text, "");
        assert!(empty.sections.is_empty());
    }

    #[test]
    fn a_replacement_keeps_only_the_appended_texts_in_every_mode() {
        let fixture = Fixture::new();
        for mode in [PromptMode::Full, PromptMode::Minimal, PromptMode::None] {
            let built = build(&PromptInputs {
                mode,
                replace: Some("Be terse.\n"),
                ..fixture.inputs()
            });
            assert_eq!(built.text, "Be terse.\n\nAlways answer in French.");
            assert_eq!(section_names(&built), vec!["system_prompt", "append"]);
            assert!(built.files.is_empty());
        }
    }

    #[test]
    fn the_safety_section_explains_each_sandbox_mode() {
        assert!(safety_section("read-only").contains("no tool that writes files is offered"));
        assert!(safety_section("danger-full-access").contains("Nothing is confined"));
        assert!(safety_section("workspace-write").contains("`$TMPDIR` (private, deleted"));
        // Every name pincer protects because it consumes it, from the registry.
        for name in crate::consumed::protected_names() {
            assert!(safety_section("workspace-write").contains(&format!("`{name}`")));
        }
        assert!(
            safety_section("custom").starts_with("## Safety\nSandbox: custom.\n- No destructive")
        );
        for mode in ["read-only", "workspace-write", "danger-full-access"] {
            assert!(safety_section(mode).contains("secrets"));
        }
    }

    #[test]
    fn without_tools_or_a_repository_the_prompt_says_so_plainly() {
        let fixture = Fixture::new();
        let built = build(&PromptInputs {
            tools: &[],
            git: None,
            files: &[],
            ..fixture.inputs()
        });
        assert!(built.text.contains("## Tools\nNo tools are available"));
        assert!(!built.text.contains("Git repository"));
        assert!(!section_names(&built).contains(&"workspace_files"));
        let detached = GitSummary {
            branch: None,
            changed: 0,
            untracked: 0,
        };
        let built = build(&PromptInputs {
            git: Some(&detached),
            ..fixture.inputs()
        });
        assert!(built.text.contains("Git repository: a detached HEAD.\n"));
    }

    #[test]
    fn the_change_counts_are_a_note_for_the_turn_not_part_of_the_system_prompt() {
        let fixture = Fixture::new();
        let clean = GitSummary {
            changed: 0,
            untracked: 0,
            ..fixture.git.clone()
        };
        // The prompt is the same whatever the counts, so a cached prefix survives an edit.
        assert_eq!(
            build(&fixture.inputs()),
            build(&PromptInputs {
                git: Some(&clean),
                ..fixture.inputs()
            })
        );
        assert!(!build(&fixture.inputs()).text.contains("changed"));
        assert_eq!(
            git_status_note(&fixture.git),
            "Git status at the start of this turn: 2 changed and 1 untracked files."
        );
        assert_eq!(
            git_status_note(&clean),
            "Git status at the start of this turn: no uncommitted changes."
        );
    }

    #[test]
    fn added_directories_are_listed_in_the_workspace_section_with_their_access() {
        let fixture = Fixture::new();
        let added = [PathBuf::from("/srv/lib"), PathBuf::from("/srv/docs")];
        let built = build(&PromptInputs {
            added_dirs: &added,
            ..fixture.inputs()
        });
        assert!(built.text.contains(
            "Working directory: /w (relative tool paths start here).\nAdditional directories, \
             readable and writable like the workspace (use absolute paths):\n- /srv/lib\n- \
             /srv/docs\nGit repository:"
        ));
        let read_only = build(&PromptInputs {
            added_dirs: &added,
            sandbox: "read-only",
            ..fixture.inputs()
        });
        assert!(
            read_only
                .text
                .contains("Additional directories, readable like the workspace")
        );
        assert!(
            !build(&fixture.inputs())
                .text
                .contains("Additional directories")
        );
    }

    #[test]
    fn the_prompt_is_identical_for_identical_inputs() {
        let fixture = Fixture::new();
        assert_eq!(build(&fixture.inputs()), build(&fixture.inputs()));
    }
}
