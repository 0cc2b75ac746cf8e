//! What the `session_summary` fuzz target and its seeds compare: the index's one-pass reader
//! against the full loader. Nothing in pincer calls it.

use std::path::Path;

use serde_json::{Value, json};

/// What the index's one-pass reader makes of the session file at `path` (its summary and leaf,
/// as JSON) beside what the full loader makes of the same file, when the one-pass reader takes
/// it; `None` when it declines the file (the index then loads it in full itself). A file the
/// loader refuses, finds torn or would migrate is described by a string, which no summary
/// equals.
pub fn summaries_of(path: &Path) -> Option<(Value, Value)> {
    let bytes = std::fs::read(path).ok()?;
    let (summary, leaf) = super::index::summarize_clean(&bytes)?;
    let fast = json!({"summary": summary, "leaf": leaf});
    let full = match super::store::load(path) {
        Ok(loaded) if loaded.torn.is_some() => json!("torn"),
        Ok(loaded) if loaded.needs_migration() => json!("needs migration"),
        Ok(loaded) => json!({
            "summary": super::summary::summarize(&loaded.header, &loaded.entries),
            "leaf": loaded.leaf_id(),
        }),
        Err(error) => json!(error.to_string()),
    };
    Some((fast, full))
}
