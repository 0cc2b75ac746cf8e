//! Reading one line of a session file: the entries pincer and pi write go straight into their
//! records through the hand-written reader (`record_fast.rs`); anything else, and anything that
//! reader declines, through serde and a [`Value`](serde_json::Value) (`record.rs`).

use serde_json::Value;

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
