//! A session's segments: commits (create-only, numbered), reads of only the segments a caller
//! lacks, the manifest and idempotency keys kept beside them, snapshots, listing and deletion.
//!
//! The commit point of a turn is the creation of its segment; everything written after it
//! (the idempotency key object, the manifest) is bookkeeping that the next holder repairs if
//! a writer died before it. The invariant that makes the repair cheap: every segment up to the
//! manifest's count has its key object, so only the segments after the count are ever looked
//! at one by one.

use std::sync::atomic::Ordering;

use bytes::Bytes;
use futures_util::{StreamExt, TryStreamExt};
use object_store::{Attribute, Attributes};

use crate::error::StoreError;
use crate::layout::{SessionId, key_digest};
use crate::lease::{Lease, Progress, Unrecorded};
use crate::records::{FORMAT, KeyRecord, Manifest, SnapshotReference, segment_metadata};
use crate::store::{Created, Replaced, Store};

/// What a commit says about its turn.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommitMeta {
    /// The turn number (kept in the segment's metadata and the manifest).
    pub turn: Option<u64>,
    /// A key that identifies the step that produced the turn: a retried step finds its
    /// committed turn with [`Store::find_turn_by_key`], and a second commit with the same key
    /// commits nothing.
    pub idempotency_key: Option<String>,
}

/// Where a committed turn is: what a `checkpoint` event reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkpoint {
    pub session: SessionId,
    /// The segment that holds the turn.
    pub segment: u64,
    pub turn: Option<u64>,
}

/// The answer of [`Lease::commit`].
#[derive(Debug)]
pub enum CommitOutcome {
    /// The segment was created: the turn is committed.
    Committed {
        checkpoint: Checkpoint,
        /// The bookkeeping after the commit point (key object, manifest) failed; the turn is
        /// committed all the same and the next holder repairs it. For a warning.
        bookkeeping: Option<StoreError>,
    },
    /// A turn with this idempotency key was already committed; nothing was written.
    AlreadyCommitted(Checkpoint),
}

/// One segment read from the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    pub number: u64,
    /// Whole pi v3 JSONL lines; segment 1 starts with the session's header line.
    pub bytes: Bytes,
    pub turn: Option<u64>,
}

/// A snapshot read from the store: the caller's compacted stand-in for segments 1 to
/// `through`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    pub through: u64,
    pub bytes: Bytes,
}

/// How many times a compare-and-swap of the manifest is tried against concurrent writers.
const MANIFEST_ATTEMPTS: usize = 8;

impl Lease {
    /// Commit `segment` (whole pi v3 JSONL lines; the first segment starts with the header
    /// line of this session) as the segment after [`Lease::head`].
    ///
    /// [`StoreError::Fenced`] when another writer created that segment first, and
    /// [`StoreError::LeaseLost`] when the lease was taken over: either way nothing was written
    /// and the turn is not committed.
    pub async fn commit(
        &self,
        segment: Bytes,
        meta: CommitMeta,
    ) -> Result<CommitOutcome, StoreError> {
        let inner = &self.inner;
        let store = &inner.store;
        let mut progress = inner.progress.lock().await;
        let number = progress.head + 1;
        check_segment(&inner.session, number, &segment)?;
        let digest = meta
            .idempotency_key
            .as_deref()
            .map(key_digest)
            .transpose()?;
        self.ensure_live().await?;
        if let Some(digest) = &digest
            && let Some(found) = self.committed_key(&progress, digest).await?
        {
            return Ok(CommitOutcome::AlreadyCommitted(found));
        }
        let commit_id = uuid::Uuid::new_v4().to_string();
        let mut attributes = Attributes::new();
        attributes.insert(
            Attribute::ContentType,
            "application/x-ndjson".to_owned().into(),
        );
        attributes.insert(
            Attribute::Metadata(segment_metadata::COMMIT.into()),
            commit_id.clone().into(),
        );
        if let Some(turn) = meta.turn {
            attributes.insert(
                Attribute::Metadata(segment_metadata::TURN.into()),
                turn.to_string().into(),
            );
        }
        if let Some(digest) = &digest {
            attributes.insert(
                Attribute::Metadata(segment_metadata::KEY.into()),
                digest.clone().into(),
            );
        }
        let path = store.layout.segment(&inner.session, number);
        if let Created::Exists = store.create(&path, segment, attributes).await? {
            // Another writer's segment, or this one after a retried request whose answer was
            // lost: only the commit id tells.
            let attributes = store.attributes(&path).await?;
            let ours = attributes
                .as_ref()
                .and_then(|found| found.get(&Attribute::Metadata(segment_metadata::COMMIT.into())))
                .is_some_and(|found| found.as_ref() == commit_id);
            if !ours {
                return Err(StoreError::Fenced {
                    session: inner.session.to_string(),
                    segment: number,
                });
            }
        }
        progress.head = number;
        inner.head.store(number, Ordering::SeqCst);
        progress.unrecorded.push(Unrecorded {
            number,
            key_digest: digest,
            turn: meta.turn,
        });
        let bookkeeping = self.record(&mut progress, None).await.err();
        Ok(CommitOutcome::Committed {
            checkpoint: Checkpoint {
                session: inner.session.clone(),
                segment: number,
                turn: meta.turn,
            },
            bookkeeping,
        })
    }

    /// Keep `bytes` as the session's snapshot through segment `through` (written by the
    /// caller after a compaction: enough to resume from, without segments 1 to `through`).
    pub async fn write_snapshot(&self, through: u64, bytes: Bytes) -> Result<(), StoreError> {
        let inner = &self.inner;
        let mut progress = inner.progress.lock().await;
        if through == 0 || through > progress.head {
            return Err(Store::invalid(
                "snapshot",
                format!(
                    "a snapshot of session {} stands for segments 1 to 1..={}, not {through}",
                    inner.session, progress.head
                ),
            ));
        }
        check_segment(&inner.session, 1, &bytes)?;
        self.ensure_live().await?;
        let path = inner.store.layout.snapshot(&inner.session, through);
        // One that exists stands for the same segments: keep it.
        inner.store.create(&path, bytes, Attributes::new()).await?;
        self.record(&mut progress, Some(SnapshotReference { through }))
            .await
    }

    /// Delete the session: its segments, snapshots, keys, manifest, the names that point to
    /// it, and last the lease.
    pub async fn delete_session(self) -> Result<(), StoreError> {
        self.ensure_live().await?;
        let inner = &self.inner;
        let store = &inner.store;
        let _progress = inner.progress.lock().await;
        let lease_path = store.layout.lease(&inner.session);
        let mut doomed = Vec::new();
        for reference in store
            .list(&store.layout.name_references(&inner.session))
            .await?
        {
            if let Some(fetched) = store.fetch(&reference).await? {
                let record: crate::records::NameRecord = serde_json::from_slice(&fetched.bytes)
                    .map_err(|error| store.errors.corrupt(reference.as_ref(), error))?;
                // The name may point elsewhere: a claim that lost the race leaves its reference.
                if store.resolve_name(&record.name).await?.as_ref() == Some(&inner.session) {
                    doomed.push(store.layout.name(&record.name));
                }
            }
        }
        store.delete_all(doomed).await?;
        let objects: Vec<_> = store
            .list(&store.layout.session(&inner.session))
            .await?
            .into_iter()
            .filter(|path| *path != lease_path)
            .collect();
        store.delete_all(objects).await?;
        store.delete_all(vec![lease_path]).await
    }

    /// The checkpoint of `digest`'s turn, if one was committed: its key object, or one of
    /// this holder's segments not yet recorded.
    async fn committed_key(
        &self,
        progress: &Progress,
        digest: &str,
    ) -> Result<Option<Checkpoint>, StoreError> {
        let session = &self.inner.session;
        if let Some(found) = progress
            .unrecorded
            .iter()
            .find(|unrecorded| unrecorded.key_digest.as_deref() == Some(digest))
        {
            return Ok(Some(Checkpoint {
                session: session.clone(),
                segment: found.number,
                turn: found.turn,
            }));
        }
        self.inner.store.key_object(session, digest).await
    }

    /// Write the key objects of the unrecorded segments, then the manifest (with `snapshot`
    /// when given) by compare-and-swap.
    async fn record(
        &self,
        progress: &mut Progress,
        snapshot: Option<SnapshotReference>,
    ) -> Result<(), StoreError> {
        let inner = &self.inner;
        let store = &inner.store;
        for unrecorded in &progress.unrecorded {
            if let Some(digest) = &unrecorded.key_digest {
                let record = KeyRecord {
                    format: FORMAT,
                    key_sha256: digest.clone(),
                    segment: unrecorded.number,
                    turn: unrecorded.turn,
                };
                let path = store.layout.key(&inner.session, digest);
                store
                    .create(&path, json(&record), Attributes::new())
                    .await?;
            }
        }
        let mut wanted = progress.manifest.clone();
        if let Some(last) = progress.unrecorded.last() {
            wanted.segments = last.number;
            wanted.last_turn = last.turn;
        }
        if snapshot.is_some() {
            wanted.snapshot = snapshot;
        }
        let path = store.layout.manifest(&inner.session);
        for _ in 0..MANIFEST_ATTEMPTS {
            let written = match &progress.manifest_etag {
                None => match store
                    .create(&path, json(&wanted), Attributes::new())
                    .await?
                {
                    Created::Created { etag } => Some(etag),
                    Created::Exists => None,
                },
                Some(etag) => match store.replace(&path, json(&wanted), etag).await? {
                    Replaced::Replaced { etag } => Some(etag),
                    Replaced::Stale => None,
                },
            };
            if let Some(etag) = written {
                progress.manifest = wanted;
                progress.manifest_etag = Some(etag);
                progress.unrecorded.clear();
                return Ok(());
            }
            // Someone else wrote it (a writer fenced a moment ago): merge, try again.
            let (current, etag) = store.manifest_with_etag(&inner.session).await?;
            wanted = wanted.merge(&current);
            progress.manifest_etag = etag;
        }
        Err(StoreError::Unavailable {
            store: store.errors.store.clone(),
            detail: format!(
                "the manifest of session {} kept changing under {MANIFEST_ATTEMPTS} compare-and-swaps",
                inner.session
            ),
            timed_out: false,
        })
    }

    /// Learn the session's state after taking the lease: the manifest, the segments after it
    /// (each listed, so [`Lease::head`] is the true last one), and bring the manifest up to date
    /// when a writer died before its bookkeeping.
    pub(crate) async fn load_progress(&self) -> Result<(), StoreError> {
        let inner = &self.inner;
        let store = &inner.store;
        let mut progress = inner.progress.lock().await;
        let (manifest, etag) = store.manifest_with_etag(&inner.session).await?;
        let tail = store
            .segment_numbers(&inner.session, manifest.segments)
            .await?;
        check_contiguous(store, &inner.session, manifest.segments, &tail)?;
        let mut unrecorded = Vec::with_capacity(tail.len());
        for number in &tail {
            let attributes = store
                .attributes(&store.layout.segment(&inner.session, *number))
                .await?
                .unwrap_or_default();
            unrecorded.push(Unrecorded {
                number: *number,
                key_digest: metadata(&attributes, segment_metadata::KEY),
                turn: metadata(&attributes, segment_metadata::TURN)
                    .and_then(|turn| turn.parse().ok()),
            });
        }
        progress.head = tail.last().copied().unwrap_or(manifest.segments);
        inner.head.store(progress.head, Ordering::SeqCst);
        progress.manifest = manifest;
        progress.manifest_etag = etag;
        progress.unrecorded = unrecorded;
        if !progress.unrecorded.is_empty() {
            // Best effort: a commit tries again.
            let _ = self.record(&mut progress, None).await;
        }
        Ok(())
    }
}

impl Store {
    /// The segments of `session` after segment `after` (all of them for None), in order: what
    /// a caller with a local copy up to `after` lacks. Segments never change once written, so
    /// a cached segment is never read again.
    pub async fn read_segments(
        &self,
        session: &SessionId,
        after: Option<u64>,
    ) -> Result<Vec<Segment>, StoreError> {
        let after = after.unwrap_or(0);
        let numbers = self.segment_numbers(session, after).await?;
        check_contiguous(self, session, after, &numbers)?;
        futures_util::stream::iter(numbers)
            .map(|number| self.read_segment(session, number))
            .buffered(self.options.read_concurrency.max(1))
            .try_collect()
            .await
    }

    /// Segment `number` of `session` alone (a retried step's committed turn, found by its key).
    pub async fn read_segment(
        &self,
        session: &SessionId,
        number: u64,
    ) -> Result<Segment, StoreError> {
        let path = self.layout.segment(session, number);
        let fetched = self
            .fetch(&path)
            .await?
            .ok_or_else(|| StoreError::NotFound {
                store: self.errors.store.clone(),
                what: format!("segment {number} of session {session} (deleted while being read)"),
            })?;
        Ok(Segment {
            number,
            turn: metadata(&fetched.attributes, segment_metadata::TURN)
                .and_then(|turn| turn.parse().ok()),
            bytes: fetched.bytes,
        })
    }

    /// The session's manifest (None for a session with none yet).
    pub async fn manifest(&self, session: &SessionId) -> Result<Option<Manifest>, StoreError> {
        let path = self.layout.manifest(session);
        match self.fetch(&path).await? {
            Some(fetched) => serde_json::from_slice(&fetched.bytes)
                .map(Some)
                .map_err(|error| self.errors.corrupt("manifest.json", error)),
            None => Ok(None),
        }
    }

    pub(crate) async fn manifest_with_etag(
        &self,
        session: &SessionId,
    ) -> Result<(Manifest, Option<String>), StoreError> {
        let path = self.layout.manifest(session);
        match self.fetch(&path).await? {
            Some(fetched) => {
                let manifest = serde_json::from_slice(&fetched.bytes)
                    .map_err(|error| self.errors.corrupt("manifest.json", error))?;
                Ok((manifest, Some(fetched.etag)))
            }
            None => Ok((Manifest::empty(session.as_str()), None)),
        }
    }

    /// The latest snapshot of the session, if one was written: resume from its bytes, then
    /// [`Store::read_segments`] after `through`.
    pub async fn read_snapshot(&self, session: &SessionId) -> Result<Option<Snapshot>, StoreError> {
        let Some(SnapshotReference { through }) = self
            .manifest(session)
            .await?
            .and_then(|manifest| manifest.snapshot)
        else {
            return Ok(None);
        };
        let fetched = self
            .fetch(&self.layout.snapshot(session, through))
            .await?
            .ok_or_else(|| {
                self.errors
                    .corrupt("the manifest's snapshot", "it is missing")
            })?;
        Ok(Some(Snapshot {
            through,
            bytes: fetched.bytes,
        }))
    }

    /// The committed turn of idempotency key `key` in `session`, if any.
    pub async fn find_turn_by_key(
        &self,
        session: &SessionId,
        key: &str,
    ) -> Result<Option<Checkpoint>, StoreError> {
        let digest = key_digest(key)?;
        if let Some(found) = self.key_object(session, &digest).await? {
            return Ok(Some(found));
        }
        // A writer that died between its segment and its key object: only the segments after
        // the manifest's count can be such.
        let (manifest, _) = self.manifest_with_etag(session).await?;
        for number in self.segment_numbers(session, manifest.segments).await? {
            let attributes = self
                .attributes(&self.layout.segment(session, number))
                .await?
                .unwrap_or_default();
            if metadata(&attributes, segment_metadata::KEY).as_deref() == Some(digest.as_str()) {
                return Ok(Some(Checkpoint {
                    session: session.clone(),
                    segment: number,
                    turn: metadata(&attributes, segment_metadata::TURN)
                        .and_then(|turn| turn.parse().ok()),
                }));
            }
        }
        Ok(None)
    }

    async fn key_object(
        &self,
        session: &SessionId,
        digest: &str,
    ) -> Result<Option<Checkpoint>, StoreError> {
        let Some(fetched) = self.fetch(&self.layout.key(session, digest)).await? else {
            return Ok(None);
        };
        let record: KeyRecord = serde_json::from_slice(&fetched.bytes)
            .map_err(|error| self.errors.corrupt("an idempotency key object", error))?;
        Ok(Some(Checkpoint {
            session: session.clone(),
            segment: record.segment,
            turn: record.turn,
        }))
    }

    /// The ids of every session in the store (one listing request per thousand).
    pub async fn list_sessions(&self) -> Result<Vec<SessionId>, StoreError> {
        let listed = self
            .objects
            .list_with_delimiter(Some(&self.layout.sessions()))
            .await
            .map_err(|error| self.errors.classify(&error))?;
        let mut sessions: Vec<SessionId> = listed
            .common_prefixes
            .iter()
            .filter_map(|prefix| SessionId::parse(prefix.filename()?).ok())
            .collect();
        sessions.sort();
        Ok(sessions)
    }
}

/// The user metadata `name` of an object.
fn metadata(attributes: &Attributes, name: &'static str) -> Option<String> {
    attributes
        .get(&Attribute::Metadata(name.into()))
        .map(|value| value.as_ref().to_owned())
}

fn json<T: serde::Serialize>(value: &T) -> Bytes {
    Bytes::from(serde_json::to_vec(value).unwrap_or_default())
}

/// Listed segments must follow `after` without a gap: a gap is a listing that is not
/// consistent, or objects removed by hand.
pub(crate) fn check_contiguous(
    store: &Store,
    session: &SessionId,
    after: u64,
    numbers: &[u64],
) -> Result<(), StoreError> {
    for (offset, number) in (1..).zip(numbers) {
        let expected = after + offset;
        if *number != expected {
            return Err(StoreError::Inconsistent {
                store: store.errors.store.clone(),
                detail: format!(
                    "segment {expected} of session {session} is missing (the listing has {number} after {})",
                    expected - 1
                ),
            });
        }
    }
    Ok(())
}

/// The line types pi v3 files have; a segment's lines are checked to be JSON objects with one.
#[derive(serde::Deserialize)]
struct Line<'a> {
    #[serde(rename = "type", borrow)]
    kind: std::borrow::Cow<'a, str>,
    #[serde(borrow, default)]
    id: Option<std::borrow::Cow<'a, str>>,
}

/// A segment is whole JSONL lines, each a JSON object with a `type`; the first segment starts
/// with the header line of `session` and no other has a header: so the segments concatenated
/// are a pi v3 file, and a torn write can never be committed.
pub(crate) fn check_segment(
    session: &SessionId,
    number: u64,
    segment: &[u8],
) -> Result<(), StoreError> {
    let invalid = |detail: String| {
        Store::invalid(
            "segment",
            format!("segment {number} of session {session}: {detail}"),
        )
    };
    if segment.is_empty() {
        return Err(invalid("it is empty".to_owned()));
    }
    if !segment.ends_with(b"\n") {
        return Err(invalid(
            "it does not end with a newline (a torn line)".to_owned(),
        ));
    }
    for (index, line) in segment[..segment.len() - 1]
        .split(|byte| *byte == b'\n')
        .enumerate()
    {
        let line_number = index + 1;
        let parsed: Line<'_> = serde_json::from_slice(line).map_err(|error| {
            invalid(format!(
                "line {line_number} is not a pi session line ({error})"
            ))
        })?;
        let header = parsed.kind == "session";
        match (number, line_number, header) {
            (1, 1, true) if parsed.id.as_deref() != Some(session.as_str()) => {
                return Err(invalid(format!(
                    "the header's id is {:?}, not the session's",
                    parsed.id.as_deref().unwrap_or_default()
                )));
            }
            (1, 1, true) => {}
            (1, 1, false) => {
                return Err(invalid(
                    "the first line is not the session header".to_owned(),
                ));
            }
            (_, _, true) => {
                return Err(invalid(format!(
                    "line {line_number} is a second session header"
                )));
            }
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session() -> SessionId {
        SessionId::parse("0195f0c2-7a3e-7000-8000-000000000001").unwrap()
    }

    const HEADER: &str = r#"{"type":"session","version":3,"id":"0195f0c2-7a3e-7000-8000-000000000001","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#;
    const MESSAGE: &str = r#"{"type":"message","id":"a1b2c3d4","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}"#;

    #[test]
    fn a_first_segment_must_open_with_this_sessions_header() {
        let good = format!("{HEADER}\n{MESSAGE}\n");
        assert!(check_segment(&session(), 1, good.as_bytes()).is_ok());
        let headless = format!("{MESSAGE}\n");
        let error = check_segment(&session(), 1, headless.as_bytes()).unwrap_err();
        assert!(
            error.to_string().contains("not the session header"),
            "{error}"
        );
        let other = HEADER.replace("000000000001", "000000000002") + "\n";
        assert!(check_segment(&session(), 1, other.as_bytes()).is_err());
    }

    #[test]
    fn a_torn_or_headered_later_segment_is_refused() {
        let torn = format!("{MESSAGE}\n{{\"type\":\"mess");
        let error = check_segment(&session(), 2, torn.as_bytes()).unwrap_err();
        assert!(error.to_string().contains("torn line"), "{error}");
        let second_header = format!("{HEADER}\n");
        assert!(check_segment(&session(), 2, second_header.as_bytes()).is_err());
        let not_json = "not json\n";
        let error = check_segment(&session(), 2, not_json.as_bytes()).unwrap_err();
        assert!(error.to_string().contains("line 1"), "{error}");
        assert!(check_segment(&session(), 2, format!("{MESSAGE}\n").as_bytes()).is_ok());
        assert!(check_segment(&session(), 2, b"").is_err());
    }
}
