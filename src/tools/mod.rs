//! The built-in tools of the embedded path (SPEC §10): read, write, edit, exec, ls, find, grep,
//! apply_patch. (Interface fixed; implementations to be written.)

use std::path::PathBuf;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::provider::ToolDefinition;
use crate::session::record::ContentBlock;

/// Names of every built-in tool, in the order they are offered.
pub const ALL_TOOLS: [&str; 8] = [
    "read",
    "write",
    "edit",
    "exec",
    "ls",
    "find",
    "grep",
    "apply_patch",
];

/// What a tool call runs against.
#[derive(Debug, Clone)]
pub struct ToolContext {
    /// The workspace directory (absolute, canonical). Relative paths resolve against it.
    pub workspace: PathBuf,
    /// Cancelled on SIGINT/SIGTERM/timeout: long tools (exec) stop and report it.
    pub cancel: CancellationToken,
}

/// A tool's result, as sent back to the model and stored in the session.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// Text and image blocks.
    pub content: Vec<ContentBlock>,
    /// Whether the call failed (the model sees the content either way).
    pub is_error: bool,
    /// Structured details for the session file (diffs, exit codes, truncation), not sent.
    pub details: Option<Value>,
}

/// The definitions (name, description, JSON Schema) of the named tools, in `names` order;
/// unknown names are skipped.
pub fn definitions(names: &[&str]) -> Vec<ToolDefinition> {
    names
        .iter()
        .map(|name| ToolDefinition {
            name: (*name).to_owned(),
            description: String::new(),
            parameters: serde_json::json!({"type": "object", "properties": {}}),
        })
        .collect()
}

/// Run one tool call. Never panics and never returns `Err`: failures are error results that the
/// model can read and act on.
pub async fn execute(name: &str, _arguments: &Value, _context: &ToolContext) -> ToolOutput {
    ToolOutput {
        content: vec![ContentBlock::Text(crate::session::record::TextContent {
            text: format!("tool '{name}' is not implemented"),
            text_signature: None,
            extra: serde_json::Map::new(),
        })],
        is_error: true,
        details: None,
    }
}
