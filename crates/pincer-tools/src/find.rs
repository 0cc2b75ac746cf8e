//! `find`: files (and directories) whose path matches a glob, below a search root.
//!
//! The walk is [`super::walk`]'s: hidden entries and ignored files are skipped as ripgrep skips
//! them. It runs on several threads, so the results are sorted before they are cut to the limit;
//! the output is the same on every run.

use std::sync::Mutex;

use ignore::WalkState;
use serde_json::json;

use super::arguments::Arguments;
use super::paths::Access;
use super::walk::{self, PathFilter};
use super::{ToolContext, ToolDefinition, ToolError, ToolOutput, make_definition, paths};

/// Results listed when the call does not say.
pub(super) const DEFAULT_LIMIT: u64 = 1000;

pub(super) fn definition() -> ToolDefinition {
    make_definition(
        "find",
        "Find files by glob: `*.rs` matches names at any depth, `src/**/test_*.py` paths under \
         path (default: the workspace). Skips gitignored and hidden files. Sorted paths relative \
         to path, directories ending in /; at most limit (default 1000).",
        json!({
            "pattern": {"type": "string"},
            "path": {"type": "string"},
            "limit": {"type": "integer", "minimum": 1}
        }),
        &["pattern"],
    )
}

pub(super) fn run(
    arguments: &Arguments<'_>,
    context: &ToolContext,
) -> Result<ToolOutput, ToolError> {
    let pattern = arguments.required_string(&["pattern"])?;
    let raw_path = arguments.optional_string(&["path"])?.unwrap_or(".");
    let limit = usize::try_from(
        arguments
            .optional_count(&["limit"])?
            .unwrap_or(DEFAULT_LIMIT),
    )
    .unwrap_or(usize::MAX)
    .max(1);
    let filter = PathFilter::new(pattern, "pattern")?;
    let root = paths::check(context, raw_path, Access::Read)?;
    if !root.exists() {
        return Err(ToolError::PathNotFound {
            path: raw_path.to_owned(),
        });
    }
    if !root.is_dir() {
        return Err(ToolError::Rejected(format!(
            "Not a directory: {raw_path}. find searches below a directory."
        )));
    }
    walk::refuse_unreadable_rules(&root, raw_path)?;

    let found = Mutex::new(Vec::new());
    let walk = walk::builder(&root, &context.sandbox);
    walk.builder.build_parallel().run(|| {
        let root = &root;
        let filter = &filter;
        let found = &found;
        Box::new(move |entry| {
            let Ok(entry) = entry else {
                return WalkState::Continue;
            };
            if entry.depth() == 0 {
                return WalkState::Continue;
            }
            let relative = paths::relative_display(root, entry.path());
            if filter.matches(&relative) {
                let is_directory = entry.file_type().is_some_and(|kind| kind.is_dir());
                let shown = if is_directory {
                    format!("{relative}/")
                } else {
                    relative
                };
                if let Ok(mut found) = found.lock() {
                    found.push(shown);
                }
            }
            WalkState::Continue
        })
    });
    let mut found = found
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    found.sort();
    let total = found.len();
    let mut text = if total == 0 {
        format!("No files found matching pattern {pattern}")
    } else {
        found.truncate(limit);
        found.join("\n")
    };
    if total > limit {
        text.push_str(&format!(
            "\n\n[Showing {limit} of {total} results. Narrow the pattern or raise limit to see more.]"
        ));
    }
    if let Some(note) = walk.skipped_note(&root) {
        text.push_str("\n\n");
        text.push_str(&note);
    }
    if total == 0 {
        return Ok(ToolOutput::text(text));
    }
    Ok(ToolOutput::text(text).with_details(json!({"results": total, "truncated": total > limit})))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::test_support::Workspace;

    fn tree() -> Workspace {
        let workspace = Workspace::new();
        workspace.write(".gitignore", "target/\n*.log\n");
        workspace.write("src/main.rs", "");
        workspace.write("src/tools/mod.rs", "");
        workspace.write("src/notes.md", "");
        workspace.write("build.rs", "");
        workspace.write("target/debug/gen.rs", "");
        workspace.write("debug.log", "");
        workspace.write(".hidden/secret.rs", "");
        workspace
    }

    #[tokio::test]
    async fn a_bare_pattern_matches_names_at_any_depth_and_skips_ignored_and_hidden_files() {
        let workspace = tree();
        let output = workspace.call("find", json!({"pattern": "*.rs"})).await;
        assert!(!output.is_error);
        assert_eq!(
            output.text_content(),
            "build.rs\nsrc/main.rs\nsrc/tools/mod.rs"
        );
    }

    #[tokio::test]
    async fn a_pattern_with_a_slash_is_matched_against_the_relative_path() {
        let workspace = tree();
        let direct = workspace.call("find", json!({"pattern": "src/*.rs"})).await;
        assert_eq!(direct.text_content(), "src/main.rs");
        let deep = workspace.call("find", json!({"pattern": "**/*.rs"})).await;
        assert_eq!(
            deep.text_content(),
            "build.rs\nsrc/main.rs\nsrc/tools/mod.rs"
        );
    }

    #[tokio::test]
    async fn results_are_relative_to_the_search_root_and_directories_end_with_a_slash() {
        let workspace = tree();
        let output = workspace
            .call("find", json!({"pattern": "*", "path": "src"}))
            .await;
        assert_eq!(
            output.text_content(),
            "main.rs\nnotes.md\ntools/\ntools/mod.rs"
        );
    }

    #[tokio::test]
    async fn the_limit_cuts_sorted_results_and_gives_the_total() {
        let workspace = tree();
        let output = workspace
            .call("find", json!({"pattern": "**/*.rs", "limit": 2}))
            .await;
        assert_eq!(
            output.text_content(),
            "build.rs\nsrc/main.rs\n\n[Showing 2 of 3 results. Narrow the pattern or raise limit to see more.]"
        );
    }

    #[tokio::test]
    async fn no_match_is_a_plain_result() {
        let workspace = tree();
        let output = workspace.call("find", json!({"pattern": "*.py"})).await;
        assert!(!output.is_error);
        assert_eq!(
            output.text_content(),
            "No files found matching pattern *.py"
        );
    }
}
