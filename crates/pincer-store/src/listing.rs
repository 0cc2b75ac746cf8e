//! What a listing says about a session without reading its segments: for `sessions list` and
//! `sessions prune` against a store.

use std::time::SystemTime;

use futures_util::TryStreamExt;

use crate::error::StoreError;
use crate::layout::{SessionId, segment_number};
use crate::records::NameRecord;
use crate::store::Store;

/// One session as the store's listing and its small objects describe it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionFacts {
    pub session: SessionId,
    /// How many segments it has (1 to this one): its committed turns, or pushed files.
    pub segments: u64,
    /// The bytes of its segments: the size of the file `Store::pull` gives.
    pub bytes: u64,
    /// The last turn number a commit gave (the manifest's; None when no commit gave one).
    pub last_turn: Option<u64>,
    /// The names that point to it, sorted.
    pub names: Vec<String>,
    /// When its first segment was written, by the store's clock (for display; ordering never
    /// depends on it).
    pub created: Option<SystemTime>,
    /// When its last segment was written, by the store's clock: its age, for display and for
    /// pruning (ordering never depends on it).
    pub updated: Option<SystemTime>,
}

impl Store {
    /// What the store says about `session` without reading its segments, or None when it has
    /// none: one listing of the session's folder (a request per 1,000 objects: each committed
    /// turn is a segment, and a key object when it had an idempotency key), one read of its
    /// manifest, and two reads per name it claimed (the claim, and the name's own object, since
    /// a claim that lost a race leaves its claim behind).
    pub async fn session_facts(
        &self,
        session: &SessionId,
    ) -> Result<Option<SessionFacts>, StoreError> {
        let segments_prefix = self.layout.segments(session);
        let names_prefix = self.layout.name_references(session);
        let objects: Vec<object_store::ObjectMeta> = self
            .objects
            .list(Some(&self.layout.session(session)))
            .try_collect()
            .await
            .map_err(|error| self.errors.classify(&error))?;
        let mut numbers = Vec::new();
        let mut bytes = 0;
        let mut created: Option<(u64, SystemTime)> = None;
        let mut updated: Option<(u64, SystemTime)> = None;
        let mut references = Vec::new();
        for meta in &objects {
            if meta.location.prefix_matches(&segments_prefix) {
                let Some(number) = segment_number(&meta.location) else {
                    continue;
                };
                numbers.push(number);
                bytes += meta.size;
                let written = SystemTime::from(meta.last_modified);
                if created.is_none_or(|(first, _)| number < first) {
                    created = Some((number, written));
                }
                if updated.is_none_or(|(last, _)| number > last) {
                    updated = Some((number, written));
                }
            } else if meta.location.prefix_matches(&names_prefix) {
                references.push(meta.location.clone());
            }
        }
        if numbers.is_empty() {
            return Ok(None);
        }
        numbers.sort_unstable();
        crate::session::check_contiguous(self, session, 0, &numbers)?;
        let mut names = Vec::new();
        for reference in references {
            let Some(fetched) = self.fetch(&reference).await? else {
                continue;
            };
            let record: NameRecord = serde_json::from_slice(&fetched.bytes)
                .map_err(|error| self.errors.corrupt(reference.as_ref(), error))?;
            if self.resolve_name(&record.name).await?.as_ref() == Some(session) {
                names.push(record.name);
            }
        }
        names.sort();
        let last_turn = self
            .manifest(session)
            .await?
            .and_then(|manifest| manifest.last_turn);
        Ok(Some(SessionFacts {
            session: session.clone(),
            segments: numbers.len() as u64,
            bytes,
            last_turn,
            names,
            created: created.map(|(_, time)| time),
            updated: updated.map(|(_, time)| time),
        }))
    }
}
