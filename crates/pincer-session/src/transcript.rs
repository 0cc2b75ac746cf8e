//! Where a turn's messages go: a locked session file, or nowhere (`--no-session-persistence`).
//! Either way the entries are also kept in memory, so that compaction can plan its cut over the
//! branch as it stands.

use super::ids::IdSet;
use super::record::{self, AgentMessage, Entry, NewEntry};
use super::store::{SessionError, SessionWriter};
use crate::conversation::Message;

/// The record of a turn.
#[derive(Debug)]
pub struct Transcript {
    writer: Option<SessionWriter>,
    entries: Vec<Entry>,
    ids: IdSet,
    /// Whether entries were written since the last sync.
    unsynced: bool,
    /// The session file, when the entries a resume started from were left without their
    /// messages' content ([`super::context::take_context`]), to be read again from it by
    /// [`Transcript::load_full`].
    thin: Option<std::path::PathBuf>,
}

impl Transcript {
    /// Append to a locked session file whose current entries are `entries`.
    pub fn persisted(writer: SessionWriter, entries: Vec<Entry>) -> Transcript {
        Transcript::with(Some(writer), entries)
    }

    /// [`Transcript::persisted`] for entries whose messages' content was moved out into the
    /// turn's context ([`super::context::take_context`]): [`Transcript::entries`] then shows
    /// them without it until [`Transcript::load_full`] reads them again.
    pub fn persisted_thin(writer: SessionWriter, entries: Vec<Entry>) -> Transcript {
        let path = writer.path().to_owned();
        let mut transcript = Transcript::with(Some(writer), entries);
        transcript.thin = Some(path);
        transcript
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
            unsynced: false,
            thin: None,
        }
    }

    /// The entries so far, in file order (the last one is the leaf). Those a resume started
    /// from may lack their messages' content ([`Transcript::persisted_thin`]): what reads the
    /// content (a compaction) calls [`Transcript::load_full`] first.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Make [`Transcript::entries`] whole again, reading the session's end back from its file
    /// (which holds every entry appended since, under the lock this transcript has).
    pub fn load_full(&mut self) -> Result<(), SessionError> {
        let Some(path) = &self.thin else {
            return Ok(());
        };
        let tail = super::tail::load(path)?;
        self.entries = tail.session.entries;
        self.thin = None;
        Ok(())
    }

    /// Sync what was appended since the last sync (SPEC §5.3: at the end of a run), then release
    /// the file and its lock; later appends only reach memory.
    pub fn close(&mut self) -> Result<(), SessionError> {
        let synced = self.sync();
        self.writer = None;
        synced
    }

    /// Append one completed message and `fdatasync` the file (which also makes any entries
    /// appended before it durable). Returns the entry id.
    pub fn append_message(&mut self, message: &Message) -> Result<String, SessionError> {
        self.append_record(&AgentMessage::from(message))
    }

    /// Append one message already in pi's shape (a CLI child's record) and sync.
    pub fn append_record(&mut self, message: &AgentMessage) -> Result<String, SessionError> {
        let id = self.append(NewEntry::Message(message))?;
        self.sync()?;
        Ok(id)
    }

    /// Append an entry without a sync of its own (a message's sync covers the entries before
    /// it: SPEC §5.3 syncs per message). Returns the entry id.
    pub fn append(&mut self, entry: NewEntry<'_>) -> Result<String, SessionError> {
        let id = record::new_entry_id(&|candidate: &str| self.ids.contains(candidate));
        let parent = self.entries.last().map(|leaf| leaf.id().to_owned());
        let entry = entry
            .build(&id, parent.as_deref())
            .map_err(|error| SessionError::Serialize(error.to_string()))?;
        if let Some(writer) = &mut self.writer {
            writer.append(&entry)?;
            self.unsynced = true;
        }
        self.ids.insert(id.clone());
        self.entries.push(entry);
        Ok(id)
    }

    /// `fdatasync` the file, when something was written since the last sync (nothing to do
    /// when ephemeral).
    pub fn sync(&mut self) -> Result<(), SessionError> {
        match &mut self.writer {
            Some(writer) if self.unsynced => {
                writer.sync()?;
                self.unsynced = false;
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversation::{MessageContent, UserMessage};
    use crate::record::SessionHeader;
    use crate::{context, store, tail};

    #[test]
    fn a_thin_transcript_reads_its_entries_back_in_full_with_what_was_appended() {
        let dir = tempfile::tempdir().unwrap();
        let header = SessionHeader {
            version: Some(store::CURRENT_VERSION),
            id: "0199a000-0000-7000-8000-000000000001".to_owned(),
            timestamp: record::now_iso(),
            cwd: "/work".to_owned(),
            parent_session: None,
            extra: serde_json::Map::new(),
        };
        let (writer, loaded) = store::create_locked(dir.path(), &header, &[]).unwrap();
        let path = writer.path().to_owned();
        let mut transcript = Transcript::persisted(writer, loaded.entries);
        let said = |text: &str| {
            Message::User(UserMessage {
                content: MessageContent::Text(text.to_owned()),
                timestamp: 1,
            })
        };
        transcript.append_message(&said("first")).unwrap();
        transcript.close().unwrap();

        let (writer, mut opened, _) = tail::open_for_append(&path, None).unwrap();
        let taken = context::take_context(&mut opened.session.entries, None);
        assert_eq!(taken.messages.len(), 1);
        let mut transcript = Transcript::persisted_thin(writer, opened.session.entries);
        assert_ne!(transcript.entries(), store::load(&path).unwrap().entries);
        transcript.append_message(&said("second")).unwrap();
        transcript.load_full().unwrap();
        assert_eq!(transcript.entries(), store::load(&path).unwrap().entries);
        assert_eq!(transcript.entries().len(), 2);
    }
}
