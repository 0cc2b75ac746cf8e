//! The JSON objects the store writes beside the segments: lease, manifest, idempotency keys,
//! names. Each carries `format` so a later pincer can tell an older layout.

use serde::{Deserialize, Serialize};

/// The layout version these records describe.
pub(crate) const FORMAT: u32 = 1;

/// `lease.json`: who may commit to the session.
///
/// Never judged by a time written in it: a waiter watches the object's version (its ETag) and
/// takes the lease over only when it has seen that version unchanged for `ttl_ms` on its own
/// monotonic clock. `renewal` and `nonce` change on every write, so every write changes the
/// ETag (S3's ETag of a plain PUT is the MD5 of the bytes) and a writer can recognise its own
/// write after an ambiguous answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct LeaseRecord {
    pub(crate) format: u32,
    pub(crate) holder: String,
    pub(crate) host: String,
    /// Incremented by every new holder (a take-over or an acquisition after a release).
    pub(crate) epoch: u64,
    pub(crate) ttl_ms: u64,
    pub(crate) state: LeaseState,
    pub(crate) renewal: u64,
    pub(crate) nonce: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum LeaseState {
    Held,
    Released,
}

/// `manifest.json`, updated by compare-and-swap after each commit. It may lag behind the
/// segments (a writer that died between its segment and the manifest): the segments are the
/// truth, and the next holder brings the manifest up to date. Every segment up to `segments`
/// has its idempotency key object written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// The layout version.
    pub format: u32,
    /// The session id.
    pub session: String,
    /// How many segments are recorded (segments 1 to this one).
    pub segments: u64,
    /// The turn number of the last recorded segment, when its commit gave one.
    pub last_turn: Option<u64>,
    /// The latest snapshot (written after a compaction): a cold resume may start from it and
    /// read only the segments after `through`.
    pub snapshot: Option<SnapshotReference>,
}

/// Where the latest snapshot is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SnapshotReference {
    /// The snapshot stands for segments 1 to this one.
    pub through: u64,
}

impl Manifest {
    pub(crate) fn empty(session: &str) -> Self {
        Self {
            format: FORMAT,
            session: session.to_owned(),
            segments: 0,
            last_turn: None,
            snapshot: None,
        }
    }

    /// The union of two views of the manifest: the later segment count and snapshot.
    pub(crate) fn merge(&self, other: &Self) -> Self {
        let (segments, last_turn) = if other.segments > self.segments {
            (other.segments, other.last_turn)
        } else {
            (self.segments, self.last_turn)
        };
        let snapshot = match (self.snapshot, other.snapshot) {
            (Some(mine), Some(theirs)) => Some(if theirs.through > mine.through {
                theirs
            } else {
                mine
            }),
            (mine, theirs) => mine.or(theirs),
        };
        Self {
            format: FORMAT,
            session: self.session.clone(),
            segments,
            last_turn,
            snapshot,
        }
    }
}

/// `keys/<sha256>.json`: the segment that committed the turn of an idempotency key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct KeyRecord {
    pub(crate) format: u32,
    pub(crate) key_sha256: String,
    pub(crate) segment: u64,
    pub(crate) turn: Option<u64>,
}

/// `names/<name>.json` (and its reference under the session): a name's session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct NameRecord {
    pub(crate) format: u32,
    pub(crate) name: String,
    pub(crate) session: String,
}

/// `store.json`: the store passed the consistency check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct CheckedMarker {
    pub(crate) format: u32,
    pub(crate) checked_by: String,
}

/// The user metadata every segment carries (`x-amz-meta-*` on S3, `x-ms-meta-*` on Azure,
/// `x-goog-meta-*` on GCS). Names are lowercase letters and digits only: Azure refuses a name
/// that is not a C# identifier (a hyphen: 400 InvalidMetadata), and proxies such as nginx drop
/// headers with underscores by default.
pub(crate) mod segment_metadata {
    /// The turn number the commit gave.
    pub(crate) const TURN: &str = "pincerturn";
    /// The SHA-256 of the commit's idempotency key.
    pub(crate) const KEY: &str = "pincerkey";
    /// A random id of the commit, so a writer recognises its own segment after a retried PUT.
    pub(crate) const COMMIT: &str = "pincercommit";

    /// Every name above.
    #[cfg(test)]
    pub(crate) const ALL: [&str; 3] = [TURN, KEY, COMMIT];
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue #49: a segment's metadata with a hyphen in its name was refused by Azure's blob
    /// service (Azurite: 400 InvalidMetadata), so no session could be committed to `az://`.
    #[test]
    fn segment_metadata_names_are_ones_every_object_store_accepts() {
        for name in segment_metadata::ALL {
            assert!(
                !name.is_empty()
                    && name.starts_with(|first: char| first.is_ascii_lowercase())
                    && name
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit()),
                "{name:?}"
            );
        }
    }

    #[test]
    fn merging_manifests_keeps_the_later_count_and_snapshot() {
        let mut mine = Manifest::empty("s");
        mine.segments = 5;
        mine.last_turn = Some(5);
        mine.snapshot = Some(SnapshotReference { through: 4 });
        let mut theirs = Manifest::empty("s");
        theirs.segments = 7;
        theirs.last_turn = Some(9);
        theirs.snapshot = Some(SnapshotReference { through: 2 });
        let merged = mine.merge(&theirs);
        assert_eq!(merged.segments, 7);
        assert_eq!(merged.last_turn, Some(9));
        assert_eq!(merged.snapshot, Some(SnapshotReference { through: 4 }));
        assert_eq!(theirs.merge(&mine), merged);
    }
}
