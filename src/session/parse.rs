//! Reading one line of a session file: the entries pincer and pi write go straight into their
//! records through the hand-written reader (`record_fast.rs`); anything else, and anything that
//! reader declines, through serde and a [`Value`](serde_json::Value) (`record.rs`).

use std::path::Path;

use serde_json::{Value, json};

use super::record::{Entry, Line, RecordError, parse_value};
use super::record_fast::parse_entry;

/// Parses one line of a session file (without its trailing newline, though one is tolerated).
/// The entries pincer and pi write are read straight into their records
/// ([`super::record_fast`]); anything else goes through a [`Value`].
pub fn parse_line(line: &str) -> Result<Line, RecordError> {
    if let Some(entry) = parse_entry(line) {
        return Ok(Line::Entry(entry));
    }
    Line::from_value(parse_value(line)?)
}

/// The entry on `line` when it is one; `None` when it is no JSON object at all, `Some(Err)`
/// when it is an object but no entry (a header, or an invalid record). For readers that tell a
/// torn or foreign line apart from a bad record.
pub fn parse_object_entry(line: &str) -> Option<Result<Entry, RecordError>> {
    if let Some(entry) = parse_entry(line) {
        return Some(Ok(entry));
    }
    let value = parse_value(line).ok().filter(Value::is_object)?;
    Some(match Line::from_value(value) {
        Ok(Line::Entry(entry)) => Ok(entry),
        Ok(Line::Header(_)) => Err(RecordError::MissingType),
        Err(error) => Err(error),
    })
}

/// For the `session_summary` fuzz target and its seeds: what the index's one-pass reader makes
/// of the session file at `path` (its summary and leaf, as JSON) beside what the full loader
/// makes of the same file, when the one-pass reader takes it; `None` when it declines the file
/// (the index then loads it in full itself). A file the loader refuses, finds torn or would
/// migrate is described by a string, which no summary equals.
#[doc(hidden)]
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
