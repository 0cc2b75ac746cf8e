//! `write`: create or overwrite a file with the given text, creating missing parent directories.
//!
//! In a confined sandbox the file is replaced atomically (a temporary in the same directory,
//! renamed over it) and keeps its permission bits; hard links to the old file keep the old
//! content. In `danger-full-access` it is written in place.

use serde_json::json;

use super::arguments::Arguments;
use super::paths::Access;
use super::{ToolContext, ToolDefinition, ToolError, ToolOutput, make_definition, paths};

pub(super) fn definition() -> ToolDefinition {
    make_definition(
        "write",
        "Create or overwrite a file, and its parent directories. To change part of a file, use \
         edit.",
        json!({
            "path": {"type": "string"},
            "content": {"type": "string"}
        }),
        &["path", "content"],
    )
}

pub(super) fn run(
    arguments: &Arguments<'_>,
    context: &ToolContext,
) -> Result<ToolOutput, ToolError> {
    let raw_path = arguments.required_string(&["path", "file_path"])?;
    let content = arguments.required_string(&["content"])?;
    let path = paths::check(context, raw_path, Access::Write)?;
    if path.is_dir() {
        return Err(ToolError::Rejected(format!(
            "{raw_path} is a directory; give a file path to write."
        )));
    }
    // Whether the file is new, for views that tell an added file from a changed one (codex's
    // `file_change` kinds).
    let created = !path.exists();
    paths::replace_file(context, &path, content.as_bytes())
        .map_err(|error| ToolError::file("write", raw_path, error))?;
    Ok(ToolOutput::text(format!(
        "Successfully wrote {} bytes to {raw_path}",
        content.len()
    ))
    .with_details(json!({"bytes": content.len(), "created": created})))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::test_support::Workspace;
    use crate::conversation::SandboxMode;

    #[tokio::test]
    async fn a_fifo_is_neither_written_into_nor_replaced() {
        use std::os::unix::fs::FileTypeExt as _;
        for mode in [SandboxMode::WorkspaceWrite, SandboxMode::DangerFullAccess] {
            let workspace = Workspace::with_mode(mode);
            let fifo = workspace.fifo("pipe");
            for (tool, arguments) in [
                ("write", json!({"path": "pipe", "content": "x"})),
                (
                    "edit",
                    json!({"path": "pipe", "oldText": "a", "newText": "b"}),
                ),
            ] {
                let output = workspace.call(tool, arguments).await;
                assert!(output.is_error, "{mode:?} {tool}");
                assert!(
                    output
                        .text_content()
                        .starts_with("pipe is a FIFO (named pipe), not a regular file"),
                    "{mode:?} {tool}: {}",
                    output.text_content()
                );
            }
            let kind = std::fs::symlink_metadata(&fifo).unwrap().file_type();
            assert!(kind.is_fifo(), "{mode:?}: the FIFO was replaced");
        }
    }

    #[tokio::test]
    async fn writing_creates_parent_directories_and_reports_the_byte_count() {
        let workspace = Workspace::new();
        let output = workspace
            .call("write", json!({"path": "a/b/c.txt", "content": "héllo\n"}))
            .await;
        assert!(!output.is_error);
        assert_eq!(
            output.text_content(),
            "Successfully wrote 7 bytes to a/b/c.txt"
        );
        assert_eq!(workspace.read("a/b/c.txt"), "héllo\n");
        assert_eq!(output.details.unwrap()["created"], true);
    }

    #[tokio::test]
    async fn writing_overwrites_an_existing_file_entirely() {
        let workspace = Workspace::new();
        workspace.write("f.txt", "old and long content\n");
        let output = workspace
            .call("write", json!({"file_path": "f.txt", "content": "new"}))
            .await;
        assert!(!output.is_error);
        assert_eq!(workspace.read("f.txt"), "new");
        assert_eq!(output.details.unwrap()["created"], false);
    }

    #[tokio::test]
    async fn writing_to_a_directory_is_an_error() {
        let workspace = Workspace::new();
        workspace.write("dir/x", "");
        let output = workspace
            .call("write", json!({"path": "dir", "content": "x"}))
            .await;
        assert!(output.is_error);
        assert_eq!(
            output.text_content(),
            "dir is a directory; give a file path to write."
        );
    }
}
