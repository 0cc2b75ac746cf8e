//! `ls`: the entries of one directory, sorted case-insensitively, directories marked with `/`.
//!
//! Hidden entries are listed (unlike `find` and `grep`, which skip them), since asking for a
//! directory's contents usually means all of them. Symbolic links to directories count as
//! directories.

use serde_json::json;

use super::arguments::Arguments;
use super::paths::Access;
use super::{ToolContext, ToolDefinition, ToolError, ToolOutput, make_definition, paths};

/// Entries listed when the call does not say.
pub(super) const DEFAULT_LIMIT: u64 = 500;

pub(super) fn definition() -> ToolDefinition {
    make_definition(
        "ls",
        "List a directory (default: the workspace), sorted, hidden entries included, \
         directories ending in /; at most limit (default 500).",
        json!({
            "path": {"type": "string"},
            "limit": {"type": "integer", "minimum": 1}
        }),
        &[],
    )
}

pub(super) fn run(
    arguments: &Arguments<'_>,
    context: &ToolContext,
) -> Result<ToolOutput, ToolError> {
    let raw_path = arguments
        .optional_string(&["path", "dir_path"])?
        .unwrap_or(".");
    let limit = arguments
        .optional_count(&["limit"])?
        .unwrap_or(DEFAULT_LIMIT)
        .max(1);
    let directory = paths::check(context, raw_path, Access::Read)?;
    if !directory.exists() {
        return Err(ToolError::PathNotFound {
            path: raw_path.to_owned(),
        });
    }
    if !directory.is_dir() {
        return Err(ToolError::Rejected(format!(
            "Not a directory: {raw_path}. Use read to see a file."
        )));
    }
    let reader =
        std::fs::read_dir(&directory).map_err(|error| ToolError::io("list", raw_path, error))?;
    let mut entries = Vec::new();
    for entry in reader {
        let entry = entry.map_err(|error| ToolError::io("list", raw_path, error))?;
        // pincer's own files are not the tools' to see (SPEC §10).
        if context.sandbox.owns(&entry.path()) {
            continue;
        }
        let mut name = entry.file_name().to_string_lossy().into_owned();
        // `metadata` follows symbolic links, so a link to a directory is listed as one.
        if entry.path().is_dir() {
            name.push('/');
        }
        entries.push(name);
    }
    entries.sort_by(|left, right| {
        left.to_lowercase()
            .cmp(&right.to_lowercase())
            .then_with(|| left.cmp(right))
    });
    let total = entries.len();
    if total == 0 {
        return Ok(ToolOutput::text("(empty directory)"));
    }
    let shown = usize::try_from(limit).unwrap_or(usize::MAX).min(total);
    let mut text = entries[..shown].join("\n");
    if shown < total {
        text.push_str(&format!(
            "\n\n[Showing {shown} of {total} entries. Use limit={total} to see them all.]"
        ));
    }
    Ok(ToolOutput::text(text).with_details(json!({"entries": total, "truncated": shown < total})))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::test_support::Workspace;

    #[tokio::test]
    async fn entries_are_sorted_with_directories_marked_and_dotfiles_included() {
        let workspace = Workspace::new();
        workspace.write("b.txt", "");
        workspace.write("A.md", "");
        workspace.write(".env", "");
        workspace.write("src/lib.rs", "");
        let output = workspace.call("ls", json!({})).await;
        assert!(!output.is_error);
        assert_eq!(output.text_content(), ".env\nA.md\nb.txt\nsrc/");
    }

    #[tokio::test]
    async fn the_limit_cuts_the_list_and_says_how_many_there_are() {
        let workspace = Workspace::new();
        for name in ["a", "b", "c", "d"] {
            workspace.write(name, "");
        }
        let output = workspace.call("ls", json!({"path": ".", "limit": 2})).await;
        assert_eq!(
            output.text_content(),
            "a\nb\n\n[Showing 2 of 4 entries. Use limit=4 to see them all.]"
        );
    }

    #[tokio::test]
    async fn a_missing_directory_and_a_file_are_errors() {
        let workspace = Workspace::new();
        workspace.write("f.txt", "");
        let missing = workspace.call("ls", json!({"path": "nope"})).await;
        assert!(missing.is_error);
        assert_eq!(missing.text_content(), "Path not found: nope");
        let file = workspace.call("ls", json!({"path": "f.txt"})).await;
        assert!(file.is_error);
        assert_eq!(
            file.text_content(),
            "Not a directory: f.txt. Use read to see a file."
        );
    }

    #[tokio::test]
    async fn an_empty_directory_says_so() {
        let workspace = Workspace::new();
        std::fs::create_dir(workspace.path("empty")).unwrap();
        let output = workspace.call("ls", json!({"path": "empty"})).await;
        assert_eq!(output.text_content(), "(empty directory)");
    }
}
