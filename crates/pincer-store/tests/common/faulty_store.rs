//! An object store wrapper for tests and the benchmark (`Store::wrap`): it counts requests,
//! and can lie the way some S3-compatible servers do (ignore `If-None-Match` or `If-Match`,
//! list from a lagging index), fail writes to some objects, or hold a write until released.

#![allow(dead_code)]

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use futures_util::StreamExt;
use futures_util::stream::BoxStream;
use pincer_store::object_store::path::Path;
use pincer_store::object_store::{
    CopyOptions, GetOptions, GetResult, ListResult, MultipartUpload, ObjectMeta, ObjectStore,
    PutMode, PutMultipartOptions, PutOptions, PutPayload, PutResult, Result,
};

/// What the wrapper does besides passing requests on.
#[derive(Debug, Default)]
pub struct Faults {
    /// Treat create-only writes as plain writes.
    pub ignore_create: bool,
    /// Treat compare-and-swap writes as plain writes.
    pub ignore_if_match: bool,
    /// Leave objects written through this wrapper out of listings.
    pub lagging_listing: bool,
    /// Fail writes whose path contains this.
    pub fail_writes_to: Option<String>,
    /// Hold writes whose path contains this until [`Hold::release`].
    pub hold_writes_to: Option<(String, Arc<Hold>)>,
}

/// A write held by the wrapper.
#[derive(Debug, Default)]
pub struct Hold {
    pub reached: tokio::sync::Notify,
    pub released: tokio::sync::Notify,
}

#[derive(Debug, Default)]
pub struct Counts {
    pub gets: AtomicUsize,
    pub puts: AtomicUsize,
    pub lists: AtomicUsize,
    pub deletes: AtomicUsize,
}

impl Counts {
    pub fn total(&self) -> usize {
        [&self.gets, &self.puts, &self.lists, &self.deletes]
            .iter()
            .map(|count| count.load(Ordering::SeqCst))
            .sum()
    }
}

#[derive(Debug)]
pub struct FaultyStore {
    inner: Arc<dyn ObjectStore>,
    faults: Faults,
    pub counts: Arc<Counts>,
    written: Mutex<HashSet<Path>>,
}

impl FaultyStore {
    pub fn new(inner: Arc<dyn ObjectStore>, faults: Faults) -> Self {
        Self {
            inner,
            faults,
            counts: Arc::default(),
            written: Mutex::default(),
        }
    }

    pub fn counting(inner: Arc<dyn ObjectStore>, counts: Arc<Counts>) -> Self {
        Self {
            inner,
            faults: Faults::default(),
            counts,
            written: Mutex::default(),
        }
    }
}

impl std::fmt::Display for FaultyStore {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "FaultyStore({})", self.inner)
    }
}

#[async_trait]
impl ObjectStore for FaultyStore {
    async fn put_opts(
        &self,
        location: &Path,
        payload: PutPayload,
        mut options: PutOptions,
    ) -> Result<PutResult> {
        self.counts.puts.fetch_add(1, Ordering::SeqCst);
        let text = location.to_string();
        if let Some(fragment) = &self.faults.fail_writes_to
            && text.contains(fragment.as_str())
        {
            return Err(pincer_store::object_store::Error::Generic {
                store: "FaultyStore",
                source: "injected failure: connection reset".into(),
            });
        }
        if let Some((fragment, hold)) = &self.faults.hold_writes_to
            && text.contains(fragment.as_str())
        {
            hold.reached.notify_one();
            hold.released.notified().await;
        }
        match options.mode {
            PutMode::Create if self.faults.ignore_create => options.mode = PutMode::Overwrite,
            PutMode::Update(_) if self.faults.ignore_if_match => {
                options.mode = PutMode::Overwrite;
            }
            _ => {}
        }
        let result = self.inner.put_opts(location, payload, options).await?;
        self.written
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(location.clone());
        Ok(result)
    }

    async fn put_multipart_opts(
        &self,
        location: &Path,
        options: PutMultipartOptions,
    ) -> Result<Box<dyn MultipartUpload>> {
        self.counts.puts.fetch_add(1, Ordering::SeqCst);
        self.inner.put_multipart_opts(location, options).await
    }

    async fn get_opts(&self, location: &Path, options: GetOptions) -> Result<GetResult> {
        self.counts.gets.fetch_add(1, Ordering::SeqCst);
        self.inner.get_opts(location, options).await
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, Result<Path>>,
    ) -> BoxStream<'static, Result<Path>> {
        self.counts.deletes.fetch_add(1, Ordering::SeqCst);
        self.inner.delete_stream(locations)
    }

    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, Result<ObjectMeta>> {
        self.counts.lists.fetch_add(1, Ordering::SeqCst);
        let listed = self.inner.list(prefix);
        self.hide_written(listed)
    }

    fn list_with_offset(
        &self,
        prefix: Option<&Path>,
        offset: &Path,
    ) -> BoxStream<'static, Result<ObjectMeta>> {
        self.counts.lists.fetch_add(1, Ordering::SeqCst);
        let listed = self.inner.list_with_offset(prefix, offset);
        self.hide_written(listed)
    }

    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> Result<ListResult> {
        self.counts.lists.fetch_add(1, Ordering::SeqCst);
        self.inner.list_with_delimiter(prefix).await
    }

    async fn copy_opts(&self, from: &Path, to: &Path, options: CopyOptions) -> Result<()> {
        self.inner.copy_opts(from, to, options).await
    }
}

impl FaultyStore {
    fn hide_written(
        &self,
        listed: BoxStream<'static, Result<ObjectMeta>>,
    ) -> BoxStream<'static, Result<ObjectMeta>> {
        if !self.faults.lagging_listing {
            return listed;
        }
        let hidden = self
            .written
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        listed
            .filter(move |meta| {
                let keep = meta
                    .as_ref()
                    .map_or(true, |meta| !hidden.contains(&meta.location));
                futures_util::future::ready(keep)
            })
            .boxed()
    }
}
