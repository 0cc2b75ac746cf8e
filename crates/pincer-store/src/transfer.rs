//! Whole session files in and out: `pull` is the segments concatenated (a pi v3 file), `push`
//! adds what a local file has beyond the store's copy as one segment.

use std::time::Duration;

use bytes::{Bytes, BytesMut};

use crate::error::StoreError;
use crate::layout::SessionId;
use crate::lease::Holder;
use crate::session::{CommitMeta, CommitOutcome};
use crate::store::Store;

/// A session file read from the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pulled {
    /// The segments concatenated: a pi v3 session file.
    pub bytes: Bytes,
    /// The last segment in it.
    pub head: u64,
}

/// What a push did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pushed {
    /// The segment created for the new part of the file (None: the store had all of it).
    pub segment: Option<u64>,
    /// The session's last segment afterwards.
    pub head: u64,
}

impl Store {
    /// The whole session as one pi v3 file.
    pub async fn pull(&self, session: &SessionId) -> Result<Pulled, StoreError> {
        let segments = self.read_segments(session, None).await?;
        let Some(last) = segments.last() else {
            return Err(StoreError::NotFound {
                store: self.errors.store.clone(),
                what: format!("session {session}"),
            });
        };
        let head = last.number;
        let mut bytes =
            BytesMut::with_capacity(segments.iter().map(|segment| segment.bytes.len()).sum());
        for segment in segments {
            bytes.extend_from_slice(&segment.bytes);
        }
        Ok(Pulled {
            bytes: bytes.freeze(),
            head,
        })
    }

    /// Move a local session file into the store: the whole file as its first segment, or,
    /// when the store's copy is a prefix of the file (a session pulled, then continued here),
    /// the rest as one more segment. [`StoreError::Diverged`] when the store's copy is not a
    /// prefix of the file; [`StoreError::Busy`] when another writer holds the lease.
    pub async fn push(
        &self,
        session: &SessionId,
        file: Bytes,
        holder: &Holder,
        ttl: Duration,
    ) -> Result<Pushed, StoreError> {
        let lease = self
            .acquire_lease(session, holder, ttl, Duration::ZERO)
            .await?;
        let result = async {
            let stored = self.read_segments(session, None).await?;
            let stored_length: usize = stored.iter().map(|segment| segment.bytes.len()).sum();
            let mut offset = 0;
            for segment in &stored {
                let end = offset + segment.bytes.len();
                if file.get(offset..end) != Some(segment.bytes.as_ref()) {
                    return Err(StoreError::Diverged {
                        session: session.to_string(),
                        head: lease.head(),
                    });
                }
                offset = end;
            }
            if stored_length == file.len() {
                return Ok(Pushed {
                    segment: None,
                    head: lease.head(),
                });
            }
            match lease
                .commit(file.slice(stored_length..), CommitMeta::default())
                .await?
            {
                CommitOutcome::Committed { checkpoint, .. } => Ok(Pushed {
                    segment: Some(checkpoint.segment),
                    head: checkpoint.segment,
                }),
                CommitOutcome::AlreadyCommitted(checkpoint) => Ok(Pushed {
                    segment: None,
                    head: checkpoint.segment,
                }),
            }
        }
        .await;
        let released = lease.release().await;
        let pushed = result?;
        released?;
        Ok(pushed)
    }
}
