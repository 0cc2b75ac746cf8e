//! A turn on a session kept in the store (SPEC §19): the session is found or created in the
//! store, its lease taken (exit 75 at once when held, or waited for with `--wait`) and renewed
//! while the turn runs, the segments the local copy lacks appended to it before the turn, and
//! what the turn appended committed as the next segment after it.
//!
//! The local session file stays what the turn writes to, under its local lock, as without a
//! store: it is a cache of the store's segments (their concatenation is the file). A record
//! per session under the state directory (`store/<id>.json`) says how much of the file the
//! store holds: its length and the last segment. A file that no longer has that length (a turn
//! that was not committed) is rebuilt from the store at the next resume, after its uncommitted
//! copy was kept aside (`store/uncommitted/`).
//!
//! `resume --last` with a store is refused: which session is "the newest" of a workspace
//! across machines depends on their clocks, which the store never compares, and finding out
//! would read every session's header in a shared bucket. Name the session (id or name).

use std::cell::RefCell;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use pincer_store::{
    Checkpoint, CommitMeta, CommitOutcome, KeepAlive, Lease, NameClaim, SessionId, Store,
    StoreError,
};

use super::store_error;
use crate::error::{CliError, CliResult, Exit, session_error};
use crate::scope::{CancelScope, cancelled_error};
use crate::session::index::Index;
use crate::session::record::NewEntry;
use crate::session::store::{self as local, SessionLock};
use crate::session_setup::{self as setup, Choice, Host, SessionSetup};

/// The custom entry type (pi ignores `custom` entries) that records a turn run with
/// `--idempotency-key`: the key and the turn's result object, so that a retry prints it again.
pub(crate) const TURN_RESULT: &str = "pincer.turn_result";

/// The longest a run waits to give its lease back.
const RELEASE_WAIT: Duration = Duration::from_secs(5);

/// The store a run uses, with what calling it needs: the command's runtime (its scope), the
/// lease's TTL, how long to wait for a busy session, and the lease of the session set up.
pub(crate) struct RunStore<'run> {
    pub(crate) store: Store,
    pub(crate) scope: &'run CancelScope,
    pub(crate) ttl: Duration,
    pub(crate) wait: Duration,
    /// `<state dir>/store`: the records of what each local session file holds of the store.
    pub(crate) cache_dir: PathBuf,
    /// `--idempotency-key`.
    pub(crate) key: Option<String>,
    /// The session's lease, from its setup to its commit (or release).
    held: RefCell<Option<Held>>,
    /// The result of this step's turn, found committed once the lease was taken (another try
    /// of the same `--idempotency-key` committed it while this one waited): the setup stops,
    /// and the command prints it ([`RunStore::take_replayed`]).
    replayed: RefCell<Option<serde_json::Value>>,
}

/// A session whose lease this run holds.
struct Held {
    session: SessionId,
    lease: Lease,
    /// Renews the lease until dropped.
    renewing: KeepAlive,
    /// The local session file.
    path: PathBuf,
    /// How many bytes of it the store holds.
    committed: u64,
    /// The last committed turn.
    turn: u64,
}

/// What the local record of a session says the file holds of the store (`sessions pull`,
/// `show` and `export` keep it too, in `commands/sessions_store.rs`).
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct CacheRecord {
    /// The store, its URL without credentials.
    pub(crate) url: String,
    /// The local file's name under the sessions directory.
    pub(crate) file: String,
    /// The file holds segments 1 to `head`: its first `length` bytes, exactly.
    pub(crate) head: u64,
    pub(crate) length: u64,
    /// The last committed turn.
    pub(crate) turn: u64,
}

impl CacheRecord {
    /// The record of `session` in `cache_dir`, when there is one for the store `url`.
    pub(crate) fn read(cache_dir: &Path, session: &SessionId, url: &str) -> Option<CacheRecord> {
        let bytes = std::fs::read(record_path(cache_dir, session)).ok()?;
        serde_json::from_slice::<CacheRecord>(&bytes)
            .ok()
            .filter(|record| record.url == url)
    }

    /// Keep it as the record of `session` in `cache_dir`. Best effort: a record not written
    /// costs a whole read of the session next time.
    pub(crate) fn write(&self, cache_dir: &Path, session: &SessionId) {
        let _ = crate::fs::create_dir_all(cache_dir);
        if let Ok(bytes) = serde_json::to_vec(self) {
            let _ = crate::fs::write_atomic(&record_path(cache_dir, session), &bytes);
        }
    }
}

/// The directory of the records: `<state>/store/`.
pub(crate) fn cache_dir(state_dir: &Path) -> PathBuf {
    state_dir.join("store")
}

/// Where the record of `session` is kept in `cache_dir`: `<id>.json`.
fn record_path(cache_dir: &Path, session: &SessionId) -> PathBuf {
    cache_dir.join(format!("{session}.json"))
}

impl<'run> RunStore<'run> {
    pub(crate) fn new(
        store: Store,
        scope: &'run CancelScope,
        (ttl, wait): (Duration, Option<Duration>),
        state_dir: &Path,
        key: Option<String>,
    ) -> Self {
        Self {
            store,
            scope,
            ttl,
            wait: wait.unwrap_or(Duration::ZERO),
            cache_dir: cache_dir(state_dir),
            key,
            held: RefCell::new(None),
            replayed: RefCell::new(None),
        }
    }

    /// Run a store call on the command's runtime; a signal or the timeout ends the wait.
    fn call<T>(
        &self,
        future: impl std::future::Future<Output = Result<T, StoreError>>,
    ) -> CliResult<T> {
        self.scope
            .wait(future)
            .map_err(cancelled_error)?
            .map_err(store_error)
    }

    fn take_lease(&self, session: &SessionId) -> CliResult<Lease> {
        let holder = super::holder();
        self.call(
            self.store
                .acquire_lease(session, &holder, self.ttl, self.wait),
        )
    }

    /// Give the lease back, also after a signal or the timeout ended the turn (a lease left
    /// behind would keep the next runner waiting for its TTL); bounded, as the store may be
    /// the reason the run is ending.
    fn release(&self, lease: Lease) {
        let _ = self
            .scope
            .block_on(async { tokio::time::timeout(RELEASE_WAIT, lease.release()).await });
    }

    fn read_record(&self, session: &SessionId) -> Option<CacheRecord> {
        CacheRecord::read(&self.cache_dir, session, self.store.url())
    }

    fn write_record(&self, session: &SessionId, record: &CacheRecord) {
        record.write(&self.cache_dir, session);
    }

    /// The session a turn writes to, in the store: see the module's doc.
    pub(crate) fn setup(
        &self,
        host: &dyn Host,
        index: &Index,
        choice: &Choice<'_>,
    ) -> CliResult<SessionSetup> {
        match choice {
            Choice::New(args) => {
                let id = setup::new_session_id(index, args.session_id)?;
                let session = session_id(&id)?;
                if let Some(name) = args.name {
                    self.claim(name, &session)?;
                }
                let lease = self.take_lease(&session)?;
                if lease.head() > 0 {
                    // Another machine found the name and committed to it first: continue that.
                    return self.continue_session(host, index, session, lease, (args.name, None));
                }
                let made = setup::create_session(host, id, args.name, false);
                self.hold(session, lease, made, (0, 0))
            }
            Choice::Resume(args) => {
                if args.fork {
                    return Err(CliError::usage(
                        "--fork is not available with a session store yet",
                    )
                    .with_hint(
                        "`pincer sessions pull SESSION` makes a local copy to fork with --store ''",
                    ));
                }
                let Some(selector) = args.session.filter(|_| !args.last) else {
                    return Err(CliError::usage(
                        "--last is not available with a session store: the newest session across \
                         machines would depend on their clocks",
                    )
                    .with_hint("name the session: pincer resume SESSION \"…\" (an id or a name)"));
                };
                let (session, fresh) = if args.create {
                    self.find_or_claim(index, selector, args.session_id)?
                } else {
                    (self.find(selector)?, false)
                };
                if let Some(name) = args.name
                    && name != selector
                {
                    self.claim(name, &session)?;
                }
                let lease = self.take_lease(&session)?;
                let lease = self.unless_recorded(&session, lease)?;
                // A machine that found the name may have taken the lease and committed first:
                // then this one continues that session rather than starting it again.
                if fresh && lease.head() == 0 {
                    let made = setup::create_session(
                        host,
                        session.as_str().to_owned(),
                        Some(selector),
                        false,
                    );
                    return self.hold(session, lease, made, (0, 0));
                }
                let create_name = args.create.then_some(selector);
                self.continue_session(host, index, session, lease, (create_name, args.name))
            }
        }
    }

    /// Continue `session` under `lease`: the local copy brought up to the store's, or (its
    /// creator ended before its first commit) the local file it left here, else a new one named
    /// `create_name`; `rename` is `--name` given to a resume.
    fn continue_session(
        &self,
        host: &dyn Host,
        index: &Index,
        session: SessionId,
        lease: Lease,
        (create_name, rename): (Option<&str>, Option<&str>),
    ) -> CliResult<SessionSetup> {
        let synced = match self.sync_local(host, &session, Some(lease.head())) {
            Ok(synced) => synced,
            Err(error) => {
                self.release(lease);
                return Err(error);
            }
        };
        let Some((path, committed, turn)) = synced else {
            // Named, but its creator ended before its first commit: continue the local
            // file it left here (all of it goes into the first segment), else start it
            // afresh.
            let made = match local_file_of(host.sessions_dir(), &session) {
                Some(path) => setup::open_session(host, index, &path, false),
                None => {
                    setup::create_session(host, session.as_str().to_owned(), create_name, false)
                }
            };
            return self.hold(session, lease, made, (0, 0));
        };
        let opened = setup::open_session(host, index, &path, false).and_then(|mut made| {
            if let Some(name) = rename
                && made.session_name.as_deref() != Some(name)
            {
                made.transcript
                    .append(NewEntry::SessionInfo { name: Some(name) })
                    .map_err(session_error)?;
                made.session_name = Some(name.to_owned());
            }
            Ok(made)
        });
        self.hold(session, lease, opened, (committed, turn))
    }

    /// Keep the lease for the commit (and renew it meanwhile) once the local session is set
    /// up, with how many bytes of it the store holds and its last committed turn; release it
    /// when the setup failed.
    fn hold(
        &self,
        session: SessionId,
        lease: Lease,
        made: CliResult<SessionSetup>,
        (committed, turn): (u64, u64),
    ) -> CliResult<SessionSetup> {
        let made = match made {
            Ok(made) => made,
            Err(error) => {
                self.release(lease);
                return Err(error);
            }
        };
        let path = made.path.clone().unwrap_or_default();
        // The renewals are a task on the command's runtime: it runs whenever the turn waits.
        let renewing = self.scope.block_on(async { lease.keep_alive() });
        *self.held.borrow_mut() = Some(Held {
            session,
            lease,
            renewing,
            path,
            committed,
            turn,
        });
        Ok(made)
    }

    /// A name's claim for `session`; a name another session has is a usage error.
    fn claim(&self, name: &str, session: &SessionId) -> CliResult<()> {
        match self.call(self.store.claim_name(name, session))? {
            NameClaim::Claimed => Ok(()),
            NameClaim::Taken(other) if &other == session => Ok(()),
            NameClaim::Taken(other) => Err(CliError::usage(format!(
                "the name '{name}' belongs to session {other} in the store {}",
                self.store.url()
            ))
            .with_hint(format!(
                "continue it with `pincer resume {name}`, or choose another name"
            ))),
        }
    }

    /// `resume --create NAME` / `run --idempotency-key NAME`: the session of that name, or a new
    /// one claiming it (of two machines claiming it at once, one creates it and the other
    /// continues it).
    fn find_or_claim(
        &self,
        index: &Index,
        name: &str,
        wanted_id: Option<&str>,
    ) -> CliResult<(SessionId, bool)> {
        if let Some(found) = self.call(self.store.resolve_name(name))? {
            return Ok((found, false));
        }
        let id = setup::new_session_id(index, wanted_id)?;
        let session = session_id(&id)?;
        match self.call(self.store.claim_name(name, &session))? {
            NameClaim::Claimed => Ok((session, true)),
            NameClaim::Taken(other) => Ok((other, false)),
        }
    }

    /// The model and thinking level the session `selector` names recorded, when this machine
    /// has no copy of it yet (a resume on a fresh runner without `-m` continues with the
    /// session's model, as a local resume does): the local copy is brought here first, before
    /// the lease (segments are never rewritten), so the setup under the lease reads only what
    /// was committed since. Nothing when the session has no segment yet, or is not there (the
    /// setup then says so).
    pub(crate) fn peek_recorded(
        &self,
        host: &dyn Host,
        selector: &str,
    ) -> CliResult<(Option<String>, Option<String>)> {
        let Ok(session) = self.find(selector) else {
            return Ok((None, None));
        };
        let Some((path, _, _)) = self.sync_local(host, &session, None)? else {
            return Ok((None, None));
        };
        let tail = crate::session::tail::load(&path).map_err(session_error)?;
        let facts = crate::session::tail::complete_facts(&tail, || None).map_err(session_error)?;
        Ok((facts.model_ref(), facts.thinking_level.clone()))
    }

    /// `SESSION` in the store: an id, a name, or the start of an id ([`super::find`]).
    fn find(&self, selector: &str) -> CliResult<SessionId> {
        match self.call(super::find(&self.store, selector))? {
            super::Found::One(session) => Ok(session),
            super::Found::None => Err(CliError::usage(format!(
                "no session '{selector}' in the store {}",
                self.store.url()
            ))
            .with_hint(format!(
                "to create it on first use, type: pincer resume --create {} \"…\"; a session of \
                 this machine goes into the store with `pincer sessions push`",
                crate::error::shell_quote(selector)
            ))),
            super::Found::Many(sessions) => Err(super::ambiguous(selector, &self.store, &sessions)),
        }
    }

    /// Bring the local file up to the store's last segment (`head`, the lease's, when one is
    /// held): append the segments it lacks (warm), or write it whole from the store's snapshot
    /// and segments (cold: no record, or a file that differs from it — a local file that holds
    /// what the store lacks is kept aside first, never overwritten). The file, its committed
    /// length and the last turn; None for a session with no segment yet.
    fn sync_local(
        &self,
        host: &dyn Host,
        session: &SessionId,
        head: Option<u64>,
    ) -> CliResult<Option<(PathBuf, u64, u64)>> {
        if head == Some(0) {
            return Ok(None);
        }
        if let Some(record) = self.read_record(session) {
            let path = host.sessions_dir().join(&record.file);
            let length = std::fs::metadata(&path).map(|meta| meta.len()).ok();
            if length == Some(record.length) && head.is_none_or(|head| record.head <= head) {
                let segments = self.call(self.store.read_segments(session, Some(record.head)))?;
                let mut length = record.length;
                let mut turn = record.turn;
                if !segments.is_empty() {
                    let lock = host.lock(&path)?.map_err(session_error)?;
                    let mut file = std::fs::OpenOptions::new()
                        .append(true)
                        .open(&path)
                        .map_err(|error| local_error("cannot open", &path, &error))?;
                    for segment in &segments {
                        file.write_all(&segment.bytes)
                            .map_err(|error| local_error("cannot append to", &path, &error))?;
                        length += segment.bytes.len() as u64;
                        turn = segment.turn.unwrap_or(turn + 1);
                    }
                    file.sync_data()
                        .map_err(|error| local_error("cannot sync", &path, &error))?;
                    drop(lock);
                }
                let head = segments
                    .last()
                    .map_or(record.head, |segment| segment.number);
                self.write_record(
                    session,
                    &CacheRecord {
                        url: self.store.url().to_owned(),
                        file: record.file,
                        head,
                        length,
                        turn,
                    },
                );
                return Ok(Some((path, length, turn)));
            }
        }
        // Cold: from the latest snapshot when there is one, then the segments after it.
        let snapshot = self.call(self.store.read_snapshot(session))?;
        let (mut bytes, after) = match snapshot {
            Some(snapshot) => (snapshot.bytes.to_vec(), snapshot.through),
            None => (Vec::new(), 0),
        };
        let segments = self.call(self.store.read_segments(session, Some(after)))?;
        if after == 0 && segments.is_empty() {
            return Ok(None);
        }
        let head = segments.last().map_or(after, |segment| segment.number);
        let mut turn = match segments.last() {
            Some(_) => None,
            None => self
                .call(self.store.manifest(session))?
                .and_then(|manifest| manifest.last_turn),
        };
        for segment in &segments {
            bytes.extend_from_slice(&segment.bytes);
            turn = segment.turn.or(turn.map(|turn| turn + 1));
        }
        let turn = turn.unwrap_or(head);
        let file = local_file_name(session, &bytes).ok_or_else(|| {
            CliError::new(
                crate::error::ErrorKind::StoreRefused.exit(),
                format!(
                    "session {session} in the store {} does not start with a session header",
                    self.store.url()
                ),
            )
            .with_kind(crate::error::ErrorKind::StoreRefused)
            .with_hint("its first segment was not written by pincer; `pincer sessions pull` shows what it holds")
        })?;
        let dir = host.sessions_dir();
        crate::fs::create_dir_all(dir)
            .map_err(|error| local_error("cannot create", dir, &error))?;
        let path = dir.join(&file);
        let lock = host.lock(&path)?.map_err(session_error)?;
        // Turns run here that the store never got (a turn cut short before its commit, a
        // resume with the store turned off): kept, never overwritten.
        if let Ok(local) = std::fs::read(&path)
            && !bytes.starts_with(&local)
        {
            match self.keep_aside(session, &path) {
                Ok(aside) => host.warn(&format!(
                    "the local copy of session {session} holds what the store does not; it is \
                     kept at '{}' and the session continues from the store's copy",
                    aside.display()
                )),
                Err(error) => {
                    return Err(local_error("cannot keep aside", &path, &error).with_hint(
                        "the local copy holds turns the store does not; nothing was changed",
                    ));
                }
            }
        }
        crate::session::index::changing(dir, |touched| {
            touched.push(path.clone());
            crate::fs::write_atomic(&path, &bytes)
        })
        .map_err(|error| local_error("cannot write", &path, &error))?;
        drop::<SessionLock>(lock);
        let length = bytes.len() as u64;
        self.write_record(
            session,
            &CacheRecord {
                url: self.store.url().to_owned(),
                file,
                head,
                length,
                turn,
            },
        );
        Ok(Some((path, length, turn)))
    }

    /// After the turn: commit what it appended to the local file as the next segment, record
    /// the idempotency key with it when the turn succeeded, and release the lease. The
    /// checkpoint of the committed turn, or None when there was nothing to commit (or no
    /// session was set up). A commit that fails keeps the turn's local copy aside and says
    /// where.
    pub(crate) fn commit(&self, succeeded: bool, compacted: bool) -> CliResult<Option<Checkpoint>> {
        let Some(held) = self.held.borrow_mut().take() else {
            return Ok(None);
        };
        let Held {
            session,
            lease,
            renewing,
            path,
            committed,
            turn,
        } = held;
        let bytes = match read_from(&path, committed) {
            Ok(bytes) => bytes,
            Err(error) => {
                drop(renewing);
                self.release(lease);
                return Err(local_error("cannot read", &path, &error));
            }
        };
        if bytes.is_empty() {
            drop(renewing);
            self.release(lease);
            return Ok(None);
        }
        let meta = CommitMeta {
            turn: Some(turn + 1),
            idempotency_key: self.key.clone().filter(|_| succeeded),
        };
        let length = committed + bytes.len() as u64;
        let outcome = self.scope.block_on(lease.commit(bytes.into(), meta));
        drop(renewing);
        match outcome {
            Ok(CommitOutcome::Committed {
                checkpoint,
                bookkeeping,
            }) => {
                if compacted {
                    self.write_snapshot(&lease, checkpoint.segment, &path);
                }
                self.release(lease);
                if let Some(file) = path.file_name() {
                    self.write_record(
                        &session,
                        &CacheRecord {
                            url: self.store.url().to_owned(),
                            file: file.to_string_lossy().into_owned(),
                            head: checkpoint.segment,
                            length,
                            turn: turn + 1,
                        },
                    );
                }
                if let Some(error) = bookkeeping {
                    crate::output::progress::stderr_line(&format!(
                        "warning: the turn is committed, but the store's bookkeeping is behind \
                         (the next run repairs it): {error}"
                    ));
                }
                Ok(Some(checkpoint))
            }
            Ok(CommitOutcome::AlreadyCommitted(checkpoint)) => {
                self.release(lease);
                Err(self.not_committed(
                    &session,
                    &path,
                    store_error(StoreError::Fenced {
                        session: session.to_string(),
                        segment: checkpoint.segment,
                    }),
                ))
            }
            Err(error) => {
                self.release(lease);
                Err(self.not_committed(&session, &path, store_error(error)))
            }
        }
    }

    /// After a turn that compacted: the whole session as the store's snapshot through its new
    /// head, so that a cold resume reads one object instead of every segment. The turn is
    /// committed whatever happens here: a failure is a warning.
    fn write_snapshot(&self, lease: &Lease, through: u64, path: &Path) {
        let written = match std::fs::read(path) {
            Ok(bytes) => self
                .scope
                .block_on(lease.write_snapshot(through, bytes.into()))
                .map_err(|error| error.to_string()),
            Err(error) => Err(format!("cannot read '{}': {error}", path.display())),
        };
        if let Err(error) = written {
            crate::output::progress::stderr_line(&format!(
                "warning: the turn is committed, but its snapshot was not written (a cold resume \
                 reads every segment instead): {error}"
            ));
        }
    }

    /// `lease`, unless another try of this step (`--idempotency-key`) committed its turn while
    /// this one waited for it: then the lease is given back, the recorded result kept for
    /// [`RunStore::take_replayed`], and the setup stops — the model is not called again.
    fn unless_recorded(&self, session: &SessionId, lease: Lease) -> CliResult<Lease> {
        let Some(key) = self.key.as_deref().filter(|_| lease.head() > 0) else {
            return Ok(lease);
        };
        let recorded = match self.call(self.store.find_turn_by_key(session, key)) {
            Ok(Some(checkpoint)) => self
                .call(self.store.read_segment(session, checkpoint.segment))
                .map(|segment| recorded_result(&segment.bytes, key)),
            Ok(None) => return Ok(lease),
            Err(error) => Err(error),
        };
        self.release(lease);
        match recorded? {
            Some(result) => {
                *self.replayed.borrow_mut() = Some(result);
                Err(CliError::new(
                    Exit::Success,
                    format!("the turn of step '{key}' was committed by another try meanwhile"),
                ))
            }
            None => Err(CliError::new(
                crate::error::ErrorKind::StoreRefused.exit(),
                format!(
                    "the turn of step '{key}' is committed in the store {}, but its result is \
                     not recorded with it",
                    self.store.url()
                ),
            )
            .with_kind(crate::error::ErrorKind::StoreRefused)),
        }
    }

    /// The recorded result a setup stopped on ([`RunStore::unless_recorded`]), once.
    pub(crate) fn take_replayed(&self) -> Option<serde_json::Value> {
        self.replayed.borrow_mut().take()
    }

    /// Give the lease back without committing (a run that ended before its turn).
    fn release_held(&self) {
        if let Some(held) = self.held.borrow_mut().take() {
            drop(held.renewing);
            self.release(held.lease);
        }
    }

    /// A turn the store did not take: its local copy is kept aside (the local file is rebuilt
    /// from the store at the next resume), and the error says where.
    fn not_committed(&self, session: &SessionId, path: &Path, error: CliError) -> CliError {
        let message = match self.keep_aside(session, path) {
            Ok(aside) => format!(
                "{}; the turn is not in the store; its local copy is kept at '{}'",
                error.message,
                aside.display()
            ),
            Err(copy_error) => format!(
                "{}; the turn is not in the store; its local copy is in '{}' until the next \
                 resume (it could not be kept aside: {copy_error})",
                error.message,
                path.display()
            ),
        };
        CliError { message, ..error }
    }

    /// A copy of the local file `path` of `session` under `store/uncommitted/`: what the store
    /// does not hold, kept before the file is rebuilt from the store.
    fn keep_aside(&self, session: &SessionId, path: &Path) -> std::io::Result<PathBuf> {
        let directory = self.cache_dir.join("uncommitted");
        let aside = directory.join(format!("{session}-{}.jsonl", uuid::Uuid::now_v7()));
        crate::fs::create_dir_all(&directory)?;
        std::fs::copy(path, &aside)?;
        Ok(aside)
    }

    /// The recorded result of the turn a retried step with `key` already committed, if any.
    pub(crate) fn recorded_turn(&self, key: &str) -> CliResult<Option<serde_json::Value>> {
        let Some(session) = self.call(self.store.resolve_name(key))? else {
            return Ok(None);
        };
        let Some(checkpoint) = self.call(self.store.find_turn_by_key(&session, key))? else {
            return Ok(None);
        };
        let segment = self.call(self.store.read_segment(&session, checkpoint.segment))?;
        Ok(recorded_result(&segment.bytes, key))
    }
}

/// A lease still held when the run lets go of the store — a run that ended before its turn, or
/// whose saving failed before the commit — is given back, not left to run out its TTL.
impl Drop for RunStore<'_> {
    fn drop(&mut self) {
        self.release_held();
    }
}

fn session_id(id: &str) -> CliResult<SessionId> {
    SessionId::parse(id).map_err(store_error)
}

fn local_error(action: &str, path: &Path, error: &std::io::Error) -> CliError {
    CliError::new(
        Exit::RunFailed,
        format!("{action} '{}': {error}", path.display()),
    )
}

/// The local file of `session` in `dir`, by its name (`<timestamp>_<id>.jsonl`).
fn local_file_of(dir: &Path, session: &SessionId) -> Option<PathBuf> {
    let suffix = format!("_{session}.jsonl");
    std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|entry| entry.path())
        .find(|path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.ends_with(&suffix))
        })
}

/// The bytes of `path` from `offset` on.
fn read_from(path: &Path, offset: u64) -> std::io::Result<Vec<u8>> {
    use std::io::{Read as _, Seek as _};
    let mut file = std::fs::File::open(path)?;
    file.seek(std::io::SeekFrom::Start(offset))?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// The local file name of a session whose file starts with `bytes`: from its header's
/// timestamp and id, as a local session is named.
fn local_file_name(session: &SessionId, bytes: &[u8]) -> Option<String> {
    let first = bytes.split(|byte| *byte == b'\n').next()?;
    let header: serde_json::Value = serde_json::from_slice(first).ok()?;
    (header.get("type")?.as_str()? == "session").then_some(())?;
    let timestamp = header.get("timestamp")?.as_str()?;
    Some(local::file_name(timestamp, session.as_str()))
}

/// The last result recorded for `key` in session bytes (JSONL): the `data.result` of a
/// [`TURN_RESULT`] custom entry whose `data.key` is `key`.
pub(crate) fn recorded_result(bytes: &[u8], key: &str) -> Option<serde_json::Value> {
    bytes
        .rsplit(|byte| *byte == b'\n')
        .filter(|line| memchr_contains(line, TURN_RESULT.as_bytes()))
        .filter_map(|line| serde_json::from_slice::<serde_json::Value>(line).ok())
        .filter(|entry| {
            entry.get("type").and_then(serde_json::Value::as_str) == Some("custom")
                && entry.get("customType").and_then(serde_json::Value::as_str) == Some(TURN_RESULT)
                && entry
                    .pointer("/data/key")
                    .and_then(serde_json::Value::as_str)
                    == Some(key)
        })
        .find_map(|entry| entry.pointer("/data/result").cloned())
}

fn memchr_contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle)
}

/// Append the record of a turn run with `--idempotency-key` to its session file: a `custom`
/// entry (pi ignores it) holding the key and the turn's result object, after the turn's last
/// entry, under the session's lock.
pub(crate) fn record_turn_result(
    path: &Path,
    leaf: Option<&str>,
    key: &str,
    result: &serde_json::Value,
    wait: Option<Duration>,
) -> CliResult<()> {
    let data = serde_json::json!({ "key": key, "result": result });
    let entry = NewEntry::Custom {
        custom_type: TURN_RESULT,
        data: &data,
    }
    .build(&crate::session::record::new_entry_id(&|_| false), leaf)
    .map_err(|error| CliError::new(Exit::RunFailed, error.to_string()))?;
    let mut line = serde_json::to_string(&entry)
        .map_err(|error| CliError::new(Exit::RunFailed, error.to_string()))?;
    line.push('\n');
    let lock = SessionLock::acquire(path, wait).map_err(session_error)?;
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .map_err(|error| local_error("cannot open", path, &error))?;
    file.write_all(line.as_bytes())
        .and_then(|()| file.sync_data())
        .map_err(|error| local_error("cannot append to", path, &error))?;
    drop(lock);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_result_recorded_for_a_key_is_found_among_other_lines() {
        let lines = [
            r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#,
            r#"{"type":"custom","customType":"pincer.turn_result","data":{"key":"k","result":{"n":1}},"id":"a","parentId":null,"timestamp":"t"}"#,
            r#"{"type":"custom","customType":"pincer.turn_result","data":{"key":"other","result":{"n":9}},"id":"b","parentId":"a","timestamp":"t"}"#,
            r#"{"type":"custom","customType":"pincer.turn_result","data":{"key":"k","result":{"n":2}},"id":"c","parentId":"b","timestamp":"t"}"#,
        ];
        let bytes = (lines.join("\n") + "\n").into_bytes();
        assert_eq!(
            recorded_result(&bytes, "k"),
            Some(serde_json::json!({"n": 2}))
        );
        assert_eq!(recorded_result(&bytes, "none"), None);
    }

    #[test]
    fn a_local_file_is_named_from_the_header_as_a_local_session_is() {
        let session = SessionId::parse("0195f0c2-7a3e-7000-8000-000000000001").unwrap();
        let bytes = br#"{"type":"session","version":3,"id":"0195f0c2-7a3e-7000-8000-000000000001","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}
"#;
        assert_eq!(
            local_file_name(&session, bytes).as_deref(),
            Some("2026-01-01T00-00-00-000Z_0195f0c2-7a3e-7000-8000-000000000001.jsonl")
        );
        assert_eq!(local_file_name(&session, b"{\"type\":\"message\"}\n"), None);
    }
}
