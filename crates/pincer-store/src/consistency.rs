//! The check a store passes before it holds sessions: conditional writes are honoured and a
//! listing shows what was just written (and not what was just deleted). Some S3-compatible
//! servers ignore `If-None-Match`/`If-Match` or list from a lagging index; with them two
//! writers could both "create" one segment, so such a store is refused.

use bytes::Bytes;
use object_store::Attributes;
use object_store::path::Path;

use crate::error::StoreError;
use crate::records::{CheckedMarker, FORMAT};
use crate::store::{Created, Replaced, Store};

impl Store {
    /// Run the consistency check once per store: skipped when `store.json` says a check
    /// passed, else run and recorded.
    pub async fn ensure_checked(&self) -> Result<(), StoreError> {
        let marker = self.layout.checked_marker();
        if self.fetch(&marker).await?.is_some() {
            return Ok(());
        }
        self.check_consistency().await?;
        let record = CheckedMarker {
            format: FORMAT,
            checked_by: concat!("pincer-store ", env!("CARGO_PKG_VERSION")).to_owned(),
        };
        let bytes = Bytes::from(serde_json::to_vec(&record).unwrap_or_default());
        self.create(&marker, bytes, Attributes::new()).await?;
        Ok(())
    }

    /// Check the guarantees sessions rely on, with scratch objects under `.pincer-check/`
    /// (removed afterwards): a create-only write succeeds once and fails the second time; a
    /// listing shows the object at once; a compare-and-swap with a stale ETag fails and one
    /// with the current ETag succeeds; a deleted object leaves the listing.
    /// [`StoreError::Inconsistent`] names the guarantee that failed.
    pub async fn check_consistency(&self) -> Result<(), StoreError> {
        let probe = uuid::Uuid::new_v4().to_string();
        let area = self.layout.check_area(&probe);
        let object = area.clone().join("object");
        let result = self.run_checks(&area, &object).await;
        let cleanup = self.delete_all(vec![object]).await;
        result.and(cleanup)
    }

    async fn run_checks(&self, area: &Path, object: &Path) -> Result<(), StoreError> {
        let fail = |detail: &str| StoreError::Inconsistent {
            store: self.errors.store.clone(),
            detail: detail.to_owned(),
        };
        let first = match self
            .create(object, Bytes::from_static(b"first"), Attributes::new())
            .await?
        {
            Created::Created { etag } => etag,
            Created::Exists => {
                return Err(fail(
                    "a create-only write of a new object failed as if it existed",
                ));
            }
        };
        if let Created::Created { .. } = self
            .create(object, Bytes::from_static(b"second"), Attributes::new())
            .await?
        {
            return Err(fail(
                "a create-only write over an existing object succeeded (If-None-Match is ignored)",
            ));
        }
        if self.list(area).await? != vec![object.clone()] {
            return Err(fail(
                "a listing right after a write does not show exactly the object written",
            ));
        }
        match self.fetch(object).await? {
            Some(fetched) if fetched.bytes.as_ref() == b"first" && fetched.etag == first => {}
            _ => {
                return Err(fail(
                    "an object read right after its write is not what was written",
                ));
            }
        }
        let second = match self
            .replace(object, Bytes::from_static(b"third"), &first)
            .await?
        {
            Replaced::Replaced { etag } if etag != first => etag,
            Replaced::Replaced { .. } => {
                return Err(fail("a write with new content kept the object's ETag"));
            }
            Replaced::Stale => {
                return Err(fail("a compare-and-swap with the current ETag failed"));
            }
        };
        if let Replaced::Replaced { .. } = self
            .replace(object, Bytes::from_static(b"fourth"), &first)
            .await?
        {
            return Err(fail(
                "a compare-and-swap with a stale ETag succeeded (If-Match is ignored)",
            ));
        }
        match self.fetch(object).await? {
            Some(fetched) if fetched.bytes.as_ref() == b"third" && fetched.etag == second => {}
            _ => {
                return Err(fail(
                    "an object read after a compare-and-swap is not what was written",
                ));
            }
        }
        self.delete_all(vec![object.clone()]).await?;
        if !self.list(area).await?.is_empty() {
            return Err(fail(
                "a listing right after a delete still shows the deleted object",
            ));
        }
        Ok(())
    }
}
