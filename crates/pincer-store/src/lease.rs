//! The lease: one writer per session, across machines, with no clock compared across machines.
//!
//! Taking it: create `lease.json` if there is none (create-only), or replace a released one
//! by compare-and-swap on its ETag. A lease held by someone else is busy; a waiter polls it
//! (conditional GETs) and takes it over by compare-and-swap only once it has watched the
//! *same version* (ETag) unchanged for the lease's TTL on its own monotonic clock. No time
//! written by another machine is ever read as a time.
//!
//! Keeping it: the holder renews by compare-and-swap (each write changes the ETag); a renewal
//! that finds another version means the lease was lost. The holder renews on its own clock
//! ([`Lease::keep_alive`] every third of the TTL) and before a commit when its last renewal is
//! older than half the TTL.
//!
//! The lease is what keeps writers polite; the create-only segments are what keep them safe: a
//! holder that was paused past its lease and wakes up can only try to create a segment number
//! that someone else already created, which fails ([`StoreError::Fenced`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;

use crate::error::StoreError;
use crate::layout::SessionId;
use crate::records::{FORMAT, LeaseRecord, LeaseState, Manifest};
use crate::store::{Created, Fetched, Polled, Replaced, Store};

/// Who asks for a lease: an id unique to the run (a UUID) and the machine's name, shown to
/// the writers who find the session busy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holder {
    pub id: String,
    pub host: String,
}

impl Holder {
    pub fn new(id: impl Into<String>, host: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            host: host.into(),
        }
    }
}

/// The shortest TTL accepted: renewals every third of it must fit in a round trip.
const MIN_TTL: Duration = Duration::from_millis(300);

/// A held lease on one session: the right to commit its next segments. Release it with
/// [`Lease::release`]; a lease that is dropped instead expires after its TTL.
#[derive(Debug)]
pub struct Lease {
    pub(crate) inner: Arc<LeaseInner>,
}

#[derive(Debug)]
pub(crate) struct LeaseInner {
    pub(crate) store: Store,
    pub(crate) session: SessionId,
    pub(crate) ttl: Duration,
    /// The lease object as this holder last wrote it.
    object: tokio::sync::Mutex<HeldObject>,
    /// Set when a renewal found another writer's version.
    lost: AtomicBool,
    /// The last segment of the session as this holder knows it (listed when the lease was
    /// taken, then each of its commits).
    pub(crate) head: AtomicU64,
    /// What commits update: serialises the commits of one holder.
    pub(crate) progress: tokio::sync::Mutex<Progress>,
}

#[derive(Debug)]
struct HeldObject {
    etag: String,
    record: LeaseRecord,
    /// When the request that wrote the current version was sent (the holder's own clock).
    written_at: Instant,
    released: bool,
}

/// The holder's view of the session's bookkeeping.
#[derive(Debug)]
pub(crate) struct Progress {
    pub(crate) head: u64,
    pub(crate) manifest: Manifest,
    /// None while there is no manifest object.
    pub(crate) manifest_etag: Option<String>,
    /// Segments after the manifest's count whose key objects and manifest entry are still to
    /// be written: (number, key digest, turn).
    pub(crate) unrecorded: Vec<Unrecorded>,
}

#[derive(Debug, Clone)]
pub(crate) struct Unrecorded {
    pub(crate) number: u64,
    pub(crate) key_digest: Option<String>,
    pub(crate) turn: Option<u64>,
}

impl LeaseRecord {
    fn first(holder: &Holder, ttl: Duration, epoch: u64) -> Self {
        Self {
            format: FORMAT,
            holder: holder.id.clone(),
            host: holder.host.clone(),
            epoch,
            ttl_ms: u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX),
            state: LeaseState::Held,
            renewal: 0,
            nonce: uuid::Uuid::new_v4().to_string(),
        }
    }

    fn ttl(&self) -> Duration {
        Duration::from_millis(self.ttl_ms)
    }

    fn to_bytes(&self) -> Bytes {
        Bytes::from(serde_json::to_vec(self).unwrap_or_default())
    }
}

/// What the waiter has seen of someone else's lease.
struct Observation {
    etag: String,
    record: LeaseRecord,
    /// When this waiter first saw this version, on its own clock.
    since: Instant,
    /// Whether a later poll found it unchanged (until then it was watched for no time).
    confirmed: bool,
}

impl Store {
    /// Take the lease of `session` for `holder`, waiting up to `wait` while another writer
    /// holds it. The lease's `ttl` is how long it stays valid without a renewal.
    ///
    /// Busy ([`StoreError::Busy`]) when `wait` ran out, with how long a waiter must still watch
    /// the lease before it may take it over (its TTL for a caller that did not wait). A lease
    /// whose holder died is taken over by a waiter that saw it unchanged for its TTL.
    pub async fn acquire_lease(
        &self,
        session: &SessionId,
        holder: &Holder,
        ttl: Duration,
        wait: Duration,
    ) -> Result<Lease, StoreError> {
        if ttl < MIN_TTL {
            return Err(Store::invalid(
                "lease TTL",
                format!("{ttl:?} is shorter than {MIN_TTL:?}"),
            ));
        }
        let path = self.layout.lease(session);
        let deadline = Instant::now() + wait;
        let mut observed: Option<Observation> = None;
        // The record of this waiter's last write: an answer lost on the way back ("exists",
        // "stale" after a retried request that had landed) is recognised by its nonce.
        let mut attempted: Option<LeaseRecord> = None;
        loop {
            let polled = match &observed {
                Some(seen) => self.fetch_if_changed(&path, &seen.etag).await?,
                None => Polled::Changed(self.fetch(&path).await?),
            };
            match polled {
                Polled::Unchanged => {
                    if let Some(seen) = observed.as_mut() {
                        seen.confirmed = true;
                    }
                }
                Polled::Changed(None) => {
                    let record = LeaseRecord::first(holder, ttl, 1);
                    attempted = Some(record.clone());
                    if let Created::Created { etag } = self
                        .create(&path, record.to_bytes(), Default::default())
                        .await?
                    {
                        return self.took(session, record, etag).await;
                    }
                    observed = None;
                    continue;
                }
                Polled::Changed(Some(fetched)) => {
                    let record = self.lease_record(&fetched)?;
                    if attempted
                        .as_ref()
                        .is_some_and(|mine| mine.nonce == record.nonce)
                    {
                        return self.took(session, record, fetched.etag).await;
                    }
                    if record.state == LeaseState::Released {
                        let next = LeaseRecord::first(holder, ttl, record.epoch + 1);
                        attempted = Some(next.clone());
                        if let Replaced::Replaced { etag } =
                            self.replace(&path, next.to_bytes(), &fetched.etag).await?
                        {
                            return self.took(session, next, etag).await;
                        }
                        observed = None;
                        continue;
                    }
                    observed = Some(Observation {
                        etag: fetched.etag,
                        record,
                        since: Instant::now(),
                        confirmed: false,
                    });
                }
            }
            let Some(seen) = &observed else { continue };
            let held_for = seen.record.ttl();
            let watched = if seen.confirmed {
                seen.since.elapsed()
            } else {
                Duration::ZERO
            };
            if watched >= held_for {
                // Unchanged for its whole TTL on this machine's clock: its holder stopped
                // renewing it.
                let next = LeaseRecord::first(holder, ttl, seen.record.epoch + 1);
                attempted = Some(next.clone());
                if let Replaced::Replaced { etag } =
                    self.replace(&path, next.to_bytes(), &seen.etag).await?
                {
                    return self.took(session, next, etag).await;
                }
                observed = None;
                continue;
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(StoreError::Busy {
                    session: session.to_string(),
                    holder: seen.record.holder.clone(),
                    host: seen.record.host.clone(),
                    retry_after: held_for - watched,
                });
            }
            let pause = self
                .options
                .poll_interval
                .min(deadline - now)
                .min(held_for - watched);
            tokio::time::sleep(pause).await;
        }
    }

    fn lease_record(&self, fetched: &Fetched) -> Result<LeaseRecord, StoreError> {
        serde_json::from_slice(&fetched.bytes)
            .map_err(|error| self.errors.corrupt("lease.json", error))
    }

    /// The lease was taken: learn the session's state. A failure here gives the lease back.
    async fn took(
        &self,
        session: &SessionId,
        record: LeaseRecord,
        etag: String,
    ) -> Result<Lease, StoreError> {
        let ttl = record.ttl();
        let lease = Lease {
            inner: Arc::new(LeaseInner {
                store: self.clone(),
                session: session.clone(),
                ttl,
                object: tokio::sync::Mutex::new(HeldObject {
                    etag,
                    record,
                    written_at: Instant::now(),
                    released: false,
                }),
                lost: AtomicBool::new(false),
                head: AtomicU64::new(0),
                progress: tokio::sync::Mutex::new(Progress {
                    head: 0,
                    manifest: Manifest::empty(session.as_str()),
                    manifest_etag: None,
                    unrecorded: Vec::new(),
                }),
            }),
        };
        match lease.load_progress().await {
            Ok(()) => Ok(lease),
            Err(error) => {
                let _ = lease.release().await;
                Err(error)
            }
        }
    }
}

impl Lease {
    /// The session this lease is for.
    pub fn session(&self) -> &SessionId {
        &self.inner.session
    }

    /// The last segment of the session: the next commit creates the one after it. Read the
    /// segments up to this one before committing.
    pub fn head(&self) -> u64 {
        self.inner.head.load(Ordering::SeqCst)
    }

    /// The lease's TTL.
    pub fn ttl(&self) -> Duration {
        self.inner.ttl
    }

    /// The lease's epoch: 1 for the session's first holder, one more for each later one.
    pub async fn epoch(&self) -> u64 {
        self.inner.object.lock().await.record.epoch
    }

    /// Whether a renewal found the lease taken over.
    pub fn is_lost(&self) -> bool {
        self.inner.lost.load(Ordering::SeqCst)
    }

    /// Renew the lease now (compare-and-swap on its version). [`StoreError::LeaseLost`] when
    /// another writer took it over; an unavailable store is an error that leaves the lease as
    /// it was (renew again before its TTL runs out).
    pub async fn renew(&self) -> Result<(), StoreError> {
        self.inner.renew().await
    }

    /// Renew the lease in the background, every third of its TTL, until the returned guard is
    /// dropped or the lease is lost or released. Needs a Tokio runtime.
    pub fn keep_alive(&self) -> KeepAlive {
        let inner = Arc::clone(&self.inner);
        let period = self.inner.ttl / 3;
        let task = tokio::spawn(async move {
            loop {
                tokio::time::sleep(period).await;
                match inner.renew().await {
                    Ok(()) => {}
                    Err(StoreError::LeaseLost { .. }) => break,
                    Err(StoreError::Invalid { .. }) => break,
                    // Unavailable: try again at the next tick; a commit renews first when the
                    // last renewal is old.
                    Err(_) => {}
                }
            }
        });
        KeepAlive { task }
    }

    /// Give the lease back so the next writer need not wait for it to expire. A lease that
    /// was already lost is not an error.
    pub async fn release(self) -> Result<(), StoreError> {
        self.inner.release().await
    }

    /// Fail unless this holder may still write: not lost, and renewed within half its TTL
    /// (renewing now when not).
    pub(crate) async fn ensure_live(&self) -> Result<(), StoreError> {
        if self.is_lost() {
            return Err(self.inner.lost_error());
        }
        let written_at = self.inner.object.lock().await.written_at;
        if written_at.elapsed() >= self.inner.ttl / 2 {
            self.inner.renew().await?;
        }
        Ok(())
    }
}

impl LeaseInner {
    fn lost_error(&self) -> StoreError {
        StoreError::LeaseLost {
            session: self.session.to_string(),
        }
    }

    async fn renew(&self) -> Result<(), StoreError> {
        let mut object = self.object.lock().await;
        if object.released {
            return Err(Store::invalid(
                "lease",
                format!("the lease of session {} was released", self.session),
            ));
        }
        if self.lost.load(Ordering::SeqCst) {
            return Err(self.lost_error());
        }
        let mut next = object.record.clone();
        next.renewal += 1;
        next.nonce = uuid::Uuid::new_v4().to_string();
        self.write(&mut object, next).await
    }

    async fn release(&self) -> Result<(), StoreError> {
        let mut object = self.object.lock().await;
        if object.released || self.lost.load(Ordering::SeqCst) {
            return Ok(());
        }
        let mut next = object.record.clone();
        next.state = LeaseState::Released;
        next.renewal += 1;
        next.nonce = uuid::Uuid::new_v4().to_string();
        match self.write(&mut object, next).await {
            Ok(()) | Err(StoreError::LeaseLost { .. }) => {
                object.released = true;
                Ok(())
            }
            Err(error) => Err(error),
        }
    }

    /// Replace the lease object with `next` if it is still this holder's version.
    async fn write(&self, object: &mut HeldObject, next: LeaseRecord) -> Result<(), StoreError> {
        let path = self.store.layout.lease(&self.session);
        let sent = Instant::now();
        let etag = match self
            .store
            .replace(&path, next.to_bytes(), &object.etag)
            .await?
        {
            Replaced::Replaced { etag } => etag,
            Replaced::Stale => {
                // Either another writer's version, or this write landed and its answer was
                // lost (the retried request then met its own ETag change).
                let current = self.store.fetch(&path).await?;
                match current {
                    Some(fetched) if self.store.lease_record(&fetched)?.nonce == next.nonce => {
                        fetched.etag
                    }
                    _ => {
                        self.lost.store(true, Ordering::SeqCst);
                        return Err(self.lost_error());
                    }
                }
            }
        };
        object.etag = etag;
        object.record = next;
        object.written_at = sent;
        Ok(())
    }
}

/// Renews a lease in the background while it lives ([`Lease::keep_alive`]).
#[derive(Debug)]
pub struct KeepAlive {
    task: tokio::task::JoinHandle<()>,
}

impl Drop for KeepAlive {
    fn drop(&mut self) {
        self.task.abort();
    }
}
