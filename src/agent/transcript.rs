//! Where a turn's messages go: a locked session file, or nowhere (`--no-session-persistence`).

use serde_json::json;

use crate::session::record::{AgentMessage, Entry};
use crate::session::store::{self, SessionError, SessionWriter};

/// The record of a turn.
#[derive(Debug)]
pub enum Transcript {
    /// Appends to a session file (holding its lock).
    Persisted(SessionWriter),
    /// Keeps nothing on disk.
    Ephemeral,
}

impl Transcript {
    /// Append one completed message and sync the file. Returns the entry id, when persisted.
    pub fn append_message(
        &mut self,
        message: &AgentMessage,
    ) -> Result<Option<String>, SessionError> {
        let value = serde_json::to_value(message)
            .map_err(|error| SessionError::Serialize(error.to_string()))?;
        self.append("message", json!({ "message": value }))
    }

    /// Append an entry of another kind (`model_change`, `thinking_level_change`, …).
    pub fn append(
        &mut self,
        kind: &str,
        fields: serde_json::Value,
    ) -> Result<Option<String>, SessionError> {
        match self {
            Transcript::Ephemeral => Ok(None),
            Transcript::Persisted(writer) => {
                let entry: Entry = store::new_entry(writer, kind, fields)?;
                writer.append(&entry)?;
                writer.sync()?;
                Ok(Some(entry.id().to_owned()))
            }
        }
    }
}
