//! Where a turn's messages go: a locked session file, or nowhere (`--no-session-persistence`).
//! Either way the entries are also kept in memory, so that compaction can plan its cut over the
//! branch as it stands.

use std::collections::HashSet;

use serde_json::{Value, json};

use super::record::{self, AgentMessage, Entry};
use super::store::{SessionError, SessionWriter};
use crate::conversation::Message;

/// The record of a turn.
#[derive(Debug)]
pub struct Transcript {
    writer: Option<SessionWriter>,
    entries: Vec<Entry>,
    ids: HashSet<String>,
}

impl Transcript {
    /// Append to a locked session file whose current entries are `entries`.
    pub fn persisted(writer: SessionWriter, entries: Vec<Entry>) -> Transcript {
        Transcript::with(Some(writer), entries)
    }

    /// Keep nothing on disk; `entries` is the context the turn starts from.
    pub fn ephemeral(entries: Vec<Entry>) -> Transcript {
        Transcript::with(None, entries)
    }

    fn with(writer: Option<SessionWriter>, entries: Vec<Entry>) -> Transcript {
        let ids = entries.iter().map(|entry| entry.id().to_owned()).collect();
        Transcript {
            writer,
            entries,
            ids,
        }
    }

    /// The entries so far, in file order (the last one is the leaf).
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Release the file and its lock; later appends only reach memory.
    pub fn close(&mut self) {
        self.writer = None;
    }

    /// Append one completed message and `fdatasync` the file (which also makes any entries
    /// appended before it durable). Returns the entry id.
    pub fn append_message(&mut self, message: &Message) -> Result<String, SessionError> {
        self.append_record(&AgentMessage::from(message))
    }

    /// Append one message already in pi's shape (a CLI child's record) and sync.
    pub fn append_record(&mut self, message: &AgentMessage) -> Result<String, SessionError> {
        let value = serde_json::to_value(message)
            .map_err(|error| SessionError::Serialize(error.to_string()))?;
        let id = self.append("message", json!({ "message": value }))?;
        self.sync()?;
        Ok(id)
    }

    /// Append an entry of another kind (`model_change`, `compaction`, …) without a sync of its
    /// own: the next message's sync covers it (SPEC §5.3 syncs per message).
    pub fn append(&mut self, kind: &str, fields: Value) -> Result<String, SessionError> {
        let id = record::new_entry_id(&|candidate: &str| self.ids.contains(candidate));
        let parent = self.entries.last().map(|leaf| leaf.id().to_owned());
        let entry = record::build_entry(kind, &id, parent.as_deref(), fields)
            .map_err(|error| SessionError::Serialize(error.to_string()))?;
        if let Some(writer) = &mut self.writer {
            writer.append(&entry)?;
        }
        self.ids.insert(id.clone());
        self.entries.push(entry);
        Ok(id)
    }

    /// `fdatasync` the file (nothing to do when ephemeral).
    pub fn sync(&self) -> Result<(), SessionError> {
        match &self.writer {
            Some(writer) => writer.sync(),
            None => Ok(()),
        }
    }
}
