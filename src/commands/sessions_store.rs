//! `pincer sessions …` against a session store (`--store`, SPEC §19): `list`, `show`, `export`,
//! `rm` and `prune` read and change the store's sessions; `push` moves local sessions into it and
//! `pull` writes a local copy of one.
//!
//! # The local copy
//! A session of the store is its segments; concatenated in key order they are a pi v3 file. The
//! local copy is that file under the sessions directory (its usual name, so the index, `resume`
//! and pi find it), described by the record `resume` keeps (`remote::session`:
//! `<state>/store/<id>.json`, the store's URL, the file, how many segments and bytes of it are
//! the store's). `show`, `export` and `pull` read only the segments after the record's (one
//! listing, one read per new segment) and append them; a copy without a record, or one whose
//! length differs from it, is compared with the store's whole file. A local file is never
//! overwritten: one with turns the store lacks, or another history, is left as it is (`pull`
//! refuses to replace one that differs, naming it; `show` reads the store's copy instead).
//!
//! # What a command costs in requests
//! `list`: one listing of the sessions (per 1,000), then per session one listing of its folder
//! (per 1,000 objects), a read of its manifest and two reads per name (see
//! `pincer_store::Store::session_facts`). `show`/`export`/`pull` of a cached session: one
//! listing and one read per segment the copy lacks. `rm`: the lease (a read and a write), a
//! listing of the folder and one delete request per object.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use pincer_store::{NameClaim, SessionFacts, SessionId, Store, StoreError};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use super::Context;
use super::sessions::{age, last_used_before};
use crate::cli::{
    SessionsArgs, SessionsCommand, SessionsExportArgs, SessionsListArgs, SessionsPruneArgs,
    SessionsPullArgs, SessionsPushArgs, SessionsRmArgs, SessionsShowArgs,
};
use crate::error::{CliError, CliResult, Exit};
use crate::output::Stdout;
use crate::output::report::{
    PushOutcome, SessionPulled, SessionPushed, SessionsPushed, StoreSessionListItem,
    StoreSessionsPruned, StoreSessionsRemoved,
};
use crate::remote::Found;
use crate::remote::session::{CacheRecord, cache_dir};
use crate::remote::{self, store_error};
use crate::session::index;
use crate::session::store::SessionLock;

/// Run a `sessions` subcommand against `store`; None for the subcommands that stay local
/// (`fork`, `rename`, `path`, `repair`).
pub(super) fn dispatch(
    context: &Context,
    store: &Remote,
    args: &SessionsArgs,
) -> CliResult<Option<Exit>> {
    let exit = match &args.command {
        None => list(context, store, &args.list)?,
        Some(SessionsCommand::List(list_args)) => list(context, store, list_args)?,
        Some(SessionsCommand::Show(show_args)) => show(context, store, show_args)?,
        Some(SessionsCommand::Export(export_args)) => export(context, store, export_args)?,
        Some(SessionsCommand::Rm(rm_args)) => remove(context, store, rm_args)?,
        Some(SessionsCommand::Prune(prune_args)) => prune(context, store, prune_args)?,
        Some(SessionsCommand::Push(push_args)) => push(context, store, push_args)?,
        Some(SessionsCommand::Pull(pull_args)) => pull(context, store, pull_args)?,
        Some(
            SessionsCommand::Fork(_)
            | SessionsCommand::Rename(_)
            | SessionsCommand::Path(_)
            | SessionsCommand::Repair(_),
        ) => return Ok(None),
    };
    Ok(Some(exit))
}

/// `push` or `pull` without a store.
pub(super) fn needs_store(command: &str) -> CliError {
    CliError::usage(format!("sessions {command} needs a session store"))
        .with_hint("name one with --store URL, PINCER_STORE or [store] url in config.toml")
}

/// Wait for a busy lease (`--wait`), or not at all.
fn wait(context: &Context) -> Duration {
    context.wait.unwrap_or(Duration::ZERO)
}

/// The store, checked once (its consistency check runs at its first use and is recorded in it).
fn checked(store: &Remote) -> CliResult<()> {
    store.run(remote::checked(store))
}

/// The store and the one runtime every request of a command runs on: a store's connections
/// belong to the runtime that opened them (`remote`'s module doc).
pub(super) struct Remote {
    store: Store,
    runtime: tokio::runtime::Runtime,
}

impl Remote {
    pub(super) fn new(store: Store) -> CliResult<Remote> {
        Ok(Remote {
            store,
            runtime: super::runtime()?,
        })
    }

    /// Run `future` to its end on the command's runtime.
    fn run<F: std::future::Future>(&self, future: F) -> F::Output {
        self.runtime.block_on(future)
    }
}

impl std::ops::Deref for Remote {
    type Target = Store;

    fn deref(&self) -> &Store {
        &self.store
    }
}

fn json(value: &impl serde::Serialize) -> CliResult<()> {
    Stdout::new()
        .json_report(value)
        .map_err(super::stdout_error)
}

fn text(text: &str) -> CliResult<()> {
    Stdout::new().write(text).map_err(super::stdout_error)
}

/// A time of the store's clock as ISO 8601.
fn iso(time: SystemTime) -> Option<String> {
    OffsetDateTime::from(time).format(&Rfc3339).ok()
}

// ------------------------------------------------------------------------------------ resolve

/// The session of the store that `query` names: its full id, its name, or a unique prefix of
/// its id ([`crate::remote::find`], as `resume` finds it). The message of a miss names the
/// store (its URL without credentials).
fn find(store: &Remote, query: &str) -> CliResult<SessionId> {
    match store
        .run(crate::remote::find(store, query))
        .map_err(store_error)?
    {
        Found::One(id) => Ok(id),
        Found::None => Err(CliError::usage(format!(
            "no session '{query}' in the session store {}",
            store.url()
        ))
        .with_hint("`pincer sessions list` with the same --store lists the store's sessions")),
        Found::Many(sessions) => Err(crate::remote::ambiguous(query, store, &sessions)),
    }
}

// --------------------------------------------------------------------------------------- list

/// Every session of the store, newest first.
fn every_session(store: &Remote) -> CliResult<Vec<SessionFacts>> {
    store
        .run(async {
            let ids = store.list_sessions().await?;
            let mut facts = Vec::with_capacity(ids.len());
            // A few sessions at a time: each is a listing and a read or two.
            for chunk in ids.chunks(16) {
                let mut described = tokio::task::JoinSet::new();
                for id in chunk {
                    let (store, id) = (Store::clone(store), id.clone());
                    described.spawn(async move { store.session_facts(&id).await });
                }
                while let Some(joined) = described.join_next().await {
                    let one = joined.map_err(|error| StoreError::Unavailable {
                        store: store.url().to_owned(),
                        detail: format!("a listing task failed: {error}"),
                        timed_out: false,
                    })?;
                    facts.extend(one?);
                }
            }
            facts.sort_by(|a, b| b.updated.cmp(&a.updated).then(a.session.cmp(&b.session)));
            Ok(facts)
        })
        .map_err(store_error)
}

/// `--cwd` has no meaning for a store: its sessions come from many machines' directories.
fn refuse_cwd(cwd: Option<&Path>) -> CliResult<()> {
    match cwd {
        Some(_) => Err(CliError::usage(
            "--cwd does not apply to a session store: its sessions come from many machines",
        )
        .with_hint(
            "list the store's sessions with --name GLOB, or the local ones with --store ''",
        )),
        None => Ok(()),
    }
}

fn list(context: &Context, store: &Remote, args: &SessionsListArgs) -> CliResult<Exit> {
    refuse_cwd(args.cwd.as_deref())?;
    let matcher = match &args.name {
        Some(pattern) => Some(
            globset::Glob::new(pattern)
                .map_err(|error| CliError::usage(format!("--name: {error}")))?
                .compile_matcher(),
        ),
        None => None,
    };
    checked(store)?;
    let items: Vec<StoreSessionListItem> = every_session(store)?
        .into_iter()
        .filter(|facts| {
            matcher
                .as_ref()
                .is_none_or(|matcher| facts.names.iter().any(|name| matcher.is_match(name)))
        })
        .take(args.limit.unwrap_or(usize::MAX))
        .map(|facts| StoreSessionListItem {
            id: facts.session.to_string(),
            name: facts.names.first().cloned(),
            created: facts.created.and_then(iso),
            updated: facts.updated.and_then(iso),
            segments: facts.segments,
            last_turn: facts.last_turn,
            bytes: facts.bytes,
            names: facts.names,
        })
        .collect();
    if context.format.is_json() {
        json(&items)?;
    } else {
        text(&list_table(&items, OffsetDateTime::now_utc()))?;
    }
    Ok(Exit::Success)
}

/// The shortest prefix of each id, 8 characters at least, that no other id starts with.
fn short_ids(ids: &[&str]) -> Vec<String> {
    ids.iter()
        .map(|id| {
            let shared = ids
                .iter()
                .filter(|other| *other != id)
                .map(|other| {
                    id.bytes()
                        .zip(other.bytes())
                        .take_while(|(a, b)| a == b)
                        .count()
                })
                .max()
                .unwrap_or(0);
            id.chars().take((shared + 1).max(8)).collect()
        })
        .collect()
}

/// The text listing: id (short), name, age by the store's clock, segments, last turn, bytes.
fn list_table(items: &[StoreSessionListItem], now: OffsetDateTime) -> String {
    let ids: Vec<&str> = items.iter().map(|item| item.id.as_str()).collect();
    let header = ["ID", "NAME", "AGE", "SEGMENTS", "TURN", "BYTES"].map(str::to_owned);
    let rows: Vec<[String; 6]> = std::iter::once(header)
        .chain(items.iter().zip(short_ids(&ids)).map(|(item, short)| {
            [
                short,
                item.name.clone().unwrap_or_else(|| "-".to_owned()),
                item.updated
                    .as_deref()
                    .map_or_else(|| "-".to_owned(), |updated| age(updated, now)),
                item.segments.to_string(),
                item.last_turn
                    .map_or_else(|| "-".to_owned(), |turn| turn.to_string()),
                item.bytes.to_string(),
            ]
        }))
        .collect();
    let mut widths = [0; 6];
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in &rows {
        let mut line = String::new();
        for (column, cell) in row.iter().enumerate() {
            line.push_str(cell);
            if column + 1 < row.len() {
                let pad = widths[column] - cell.chars().count() + 2;
                line.extend(std::iter::repeat_n(' ', pad));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

// ------------------------------------------------------------------------------ the local copy

/// The record of `id`'s local copy that `resume` keeps too (`remote::session`), when it is
/// this store's and `file` (`length` bytes) is still exactly what it recorded.
fn read_record(
    context: &Context,
    store: &Store,
    id: &SessionId,
    file: &Path,
    length: u64,
) -> Option<CacheRecord> {
    CacheRecord::read(
        &cache_dir(&context.settings.paths.state_dir),
        id,
        store.url(),
    )
    .filter(|record| {
        file.file_name().is_some_and(|name| *name == *record.file) && record.length == length
    })
}

/// Record that `file` is segments 1 to `head` of `id`, `length` bytes, exactly, as `resume`
/// does.
fn write_record(
    context: &Context,
    store: &Store,
    id: &SessionId,
    file: &Path,
    (head, length, turn): (u64, u64, u64),
) {
    CacheRecord {
        url: store.url().to_owned(),
        file: file
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned(),
        head,
        length,
        turn,
    }
    .write(&cache_dir(&context.settings.paths.state_dir), id);
}

/// The last turn after `segments`, from their turn numbers or by counting on from `turn`;
/// `head` when nothing says (as `resume` counts).
fn last_turn(turn: Option<u64>, segments: &[pincer_store::Segment], head: u64) -> u64 {
    segments
        .iter()
        .fold(turn, |turn, segment| {
            segment.turn.or(turn.map(|turn| turn + 1))
        })
        .unwrap_or(head)
}

fn write_failed(file: &Path, error: impl std::fmt::Display) -> CliError {
    CliError::new(
        Exit::RunFailed,
        format!("cannot write the local copy '{}': {error}", file.display()),
    )
}

/// The local file of session `id`, if this home has one.
fn local_file(context: &Context, id: &SessionId) -> CliResult<Option<PathBuf>> {
    let wanted = index::Wanted {
        queries: vec![id.as_str()],
        last: None,
    };
    let found = super::load_scoped(context, &wanted)?;
    Ok(
        super::lookup_selector(context, &found, Some(id.as_str()), false, false)?
            .ok()
            .filter(|path| {
                crate::session::store::id_in_file_name(
                    &path.file_name().unwrap_or_default().to_string_lossy(),
                ) == Some(id.as_str())
            }),
    )
}

/// The header timestamp of a pi v3 file's first line, for the local file's name.
fn header_timestamp(bytes: &[u8]) -> String {
    let first = bytes
        .split(|byte| *byte == b'\n')
        .next()
        .unwrap_or_default();
    serde_json::from_slice::<serde_json::Value>(first)
        .ok()
        .and_then(|header| header["timestamp"].as_str().map(str::to_owned))
        .unwrap_or_else(|| "1970-01-01T00:00:00.000Z".to_owned())
}

/// Where a local copy is, and what bringing it up to date did.
#[derive(Debug)]
struct Synced {
    /// The file to read: the local copy, or (when the local file has turns the store lacks) a
    /// temporary file with the store's copy.
    file: PathBuf,
    /// The segments in it.
    segments: u64,
    /// The segments read from the store.
    fetched: u64,
    bytes: u64,
    /// A local file left alone because it differs from the store's copy.
    diverged: Option<PathBuf>,
    /// Holds the temporary copy while it is read.
    _temporary: Option<tempfile::TempDir>,
}

/// Bring the local copy of `id` up to the store's last segment, reading only the segments it
/// lacks; a local file that differs from the store's copy is never touched.
fn sync(context: &Context, store: &Remote, id: &SessionId) -> CliResult<Synced> {
    let local = local_file(context, id)?;
    let Some(file) = local else {
        let segments = store
            .run(store.read_segments(id, None))
            .map_err(store_error)?;
        let Some(last) = segments.last() else {
            return Err(store_error(StoreError::NotFound {
                store: store.url().to_owned(),
                what: format!("session {id}"),
            }));
        };
        let head = last.number;
        let bytes: Vec<u8> = segments
            .iter()
            .flat_map(|segment| segment.bytes.iter().copied())
            .collect();
        let file = context
            .sessions_dir()
            .join(crate::session::store::file_name(
                &header_timestamp(&bytes),
                id.as_str(),
            ));
        if std::fs::symlink_metadata(&file).is_ok() {
            // A file the index does not know by this id (an id that is no UUID): compared,
            // never replaced.
            return sync_existing(context, store, id, file);
        }
        std::fs::create_dir_all(context.sessions_dir())
            .map_err(|error| write_failed(&file, error))?;
        crate::fs::write_atomic(&file, &bytes).map_err(|error| write_failed(&file, error))?;
        let length = bytes.len() as u64;
        write_record(
            context,
            store,
            id,
            &file,
            (head, length, last_turn(None, &segments, head)),
        );
        let _ = index::update_one(context.sessions_dir(), &file);
        return Ok(Synced {
            file,
            segments: head,
            fetched: head,
            bytes: length,
            diverged: None,
            _temporary: None,
        });
    };
    sync_existing(context, store, id, file)
}

/// [`sync`] of the local file `file` of `id`.
fn sync_existing(
    context: &Context,
    store: &Remote,
    id: &SessionId,
    file: PathBuf,
) -> CliResult<Synced> {
    // A run of this machine appends under this lock: the copy is read and extended under it.
    let lock = SessionLock::acquire(&file, context.wait).map_err(super::session_error)?;
    let bytes = std::fs::read(&file).map_err(|error| {
        CliError::new(
            Exit::RunFailed,
            format!("cannot read '{}': {error}", file.display()),
        )
    })?;
    let record = read_record(context, store, id, &file, bytes.len() as u64);
    let (start, after, turn) = match &record {
        Some(record) => (bytes.len(), record.head, Some(record.turn)),
        None => (0, 0, None),
    };
    let segments = store
        .run(store.read_segments(id, Some(after)))
        .map_err(store_error)?;
    let fetched = segments.len() as u64;
    let head = segments.last().map_or(after, |segment| segment.number);
    if after == 0 && segments.is_empty() {
        return Err(store_error(StoreError::NotFound {
            store: store.url().to_owned(),
            what: format!("session {id}"),
        }));
    }
    let turn = last_turn(turn, &segments, head);
    let mut stored = bytes[..start].to_vec();
    for segment in &segments {
        stored.extend_from_slice(&segment.bytes);
    }
    let synced = |file: PathBuf, temporary, diverged| Synced {
        file,
        segments: head,
        fetched,
        bytes: stored.len() as u64,
        diverged,
        _temporary: temporary,
    };
    if stored.starts_with(&bytes) {
        // The local copy is the store's copy or a start of it: add the rest.
        if stored.len() > bytes.len() {
            append(&file, &stored[bytes.len()..])?;
            let _ = index::update_one(context.sessions_dir(), &file);
        }
        write_record(context, store, id, &file, (head, stored.len() as u64, turn));
        drop(lock);
        return Ok(synced(file, None, None));
    }
    drop(lock);
    if bytes.starts_with(&stored) {
        // The local file continues the store's copy (turns run here without the store): it
        // stays as it is.
        return Ok(synced(file.clone(), None, Some(file)));
    }
    // The two differ: the store's copy goes to a temporary file, the local file is kept. (A
    // record never describes a file that differs, so `stored` is the whole store's copy.)
    let directory = tempfile::tempdir().map_err(|error| write_failed(&file, error))?;
    let temporary = directory.path().join(file.file_name().unwrap_or_default());
    std::fs::write(&temporary, &stored).map_err(|error| write_failed(&temporary, error))?;
    Ok(synced(temporary, Some(directory), Some(file)))
}

/// Append `bytes` (whole lines) to the local copy and flush them to the disk.
fn append(file: &Path, bytes: &[u8]) -> CliResult<()> {
    use std::io::Write as _;
    let mut handle = std::fs::OpenOptions::new()
        .append(true)
        .open(file)
        .map_err(|error| write_failed(file, error))?;
    handle
        .write_all(bytes)
        .and_then(|()| handle.sync_data())
        .map_err(|error| write_failed(file, error))
}

// ---------------------------------------------------------------------------- show, export, pull

fn show(context: &Context, store: &Remote, args: &SessionsShowArgs) -> CliResult<Exit> {
    checked(store)?;
    let id = find(store, &args.session)?;
    let synced = sync(context, store, &id)?;
    tell_diverged(context, &synced);
    super::sessions::show_file(context, &synced.file, args.tree)
}

fn export(context: &Context, store: &Remote, args: &SessionsExportArgs) -> CliResult<Exit> {
    checked(store)?;
    let id = find(store, &args.session)?;
    let synced = sync(context, store, &id)?;
    tell_diverged(context, &synced);
    super::sessions::export_file(&synced.file, args)
}

fn tell_diverged(context: &Context, synced: &Synced) {
    match &synced.diverged {
        Some(local) if *local == synced.file => context.diagnostics.warn(&format!(
            "the local copy '{}' has turns the session store lacks; `pincer sessions push` adds them",
            local.display()
        )),
        Some(local) => context.diagnostics.warn(&format!(
            "the local file '{}' differs from the session store's copy: showing the store's",
            local.display()
        )),
        None => {}
    }
}

fn pull(context: &Context, store: &Remote, args: &SessionsPullArgs) -> CliResult<Exit> {
    checked(store)?;
    let id = find(store, &args.session)?;
    let synced = sync(context, store, &id)?;
    if let Some(local) = &synced.diverged
        && *local != synced.file
    {
        return Err(CliError::usage(format!(
            "the local file '{}' of session {id} differs from the session store's copy; nothing was written",
            local.display()
        ))
        .with_hint(
            "keep it with `pincer sessions fork` (a new id), or move it away and pull again",
        ));
    }
    tell_diverged(context, &synced);
    if context.format.is_json() {
        json(&SessionPulled {
            store: store.url().to_owned(),
            id: id.to_string(),
            file: synced.file,
            segments: synced.segments,
            fetched: synced.fetched,
            bytes: synced.bytes,
        })?;
    } else {
        text(&format!("{}\n", synced.file.display()))?;
        context.diagnostics.detail(&format!(
            "{} segment(s), {} read from {}",
            synced.segments,
            synced.fetched,
            store.url()
        ));
    }
    Ok(Exit::Success)
}

// ----------------------------------------------------------------------------------------- push

/// A local session to push: its id, name and file.
struct Local {
    id: String,
    name: Option<String>,
    file: PathBuf,
}

fn locals(context: &Context, args: &SessionsPushArgs) -> CliResult<Vec<Local>> {
    let mut locals = Vec::new();
    if args.all {
        let mut listing = index::Listing::open(context.sessions_dir(), None, true)
            .map_err(super::session_error)?;
        super::tell_index_report(context, listing.report());
        listing.each(
            None,
            |_| true,
            |entry, _| {
                locals.push(Local {
                    id: entry.summary.id.clone(),
                    name: entry.summary.name.clone(),
                    file: context.sessions_dir().join(&entry.file),
                });
                Ok::<(), CliError>(())
            },
        )?;
        return Ok(locals);
    }
    let wanted = index::Wanted {
        queries: args.sessions.iter().map(String::as_str).collect(),
        last: None,
    };
    let found = super::load_scoped(context, &wanted)?;
    for query in &args.sessions {
        let file = super::resolve_selector(context, &found, Some(query), false, false)?;
        let loaded = crate::session::store::load(&file).map_err(super::session_error)?;
        locals.push(Local {
            id: loaded.header.id.clone(),
            name: found.name_of(&file).map(str::to_owned),
            file,
        });
    }
    Ok(locals)
}

fn push(context: &Context, store: &Remote, args: &SessionsPushArgs) -> CliResult<Exit> {
    let locals = locals(context, args)?;
    checked(store)?;
    let holder = remote::holder();
    let ttl = remote::lease_ttl(&context.settings)?;
    let mut reports = Vec::new();
    let mut first_error: Option<CliError> = None;
    for local in locals {
        let report = match push_one(context, store, &holder, ttl, &local) {
            Ok(report) => report,
            Err(error) => {
                context.diagnostics.error(&error);
                let report = SessionPushed {
                    id: local.id.clone(),
                    file: local.file.clone(),
                    outcome: PushOutcome::Refused,
                    segments: None,
                    name: None,
                    error: Some(error.message.clone()),
                };
                first_error.get_or_insert(error);
                report
            }
        };
        if !context.format.is_json() {
            let what = match report.outcome {
                PushOutcome::Pushed => "pushed",
                PushOutcome::Extended => "pushed the new turns of",
                PushOutcome::AlreadyInStore => "already in the store:",
                PushOutcome::Refused => "not pushed:",
            };
            context
                .diagnostics
                .info(&format!("{what} {} ({})", report.id, report.file.display()));
        }
        reports.push(report);
    }
    if context.format.is_json() {
        json(&SessionsPushed {
            store: store.url().to_owned(),
            sessions: reports,
        })?;
    }
    Ok(first_error.map_or(Exit::Success, |error| error.exit))
}

fn push_one(
    context: &Context,
    store: &Remote,
    holder: &pincer_store::Holder,
    ttl: Duration,
    local: &Local,
) -> CliResult<SessionPushed> {
    let id = SessionId::parse(&local.id).map_err(store_error)?;
    // No run of this machine appends while the file is pushed.
    let lock = SessionLock::acquire(&local.file, context.wait)
        .map_err(|error| super::session_error(error.naming(local.name.as_deref())))?;
    let bytes = std::fs::read(&local.file).map_err(|error| {
        CliError::new(
            Exit::RunFailed,
            format!("cannot read '{}': {error}", local.file.display()),
        )
    })?;
    let pushed = store
        .run(store.push(&id, pincer_store::Bytes::from(bytes.clone()), holder, ttl))
        .map_err(|error| match error {
            StoreError::Diverged { .. } => CliError::usage(error.to_string()).with_hint(
                "the store's copy was continued elsewhere: `pincer sessions pull` it, or push a \
                 fork of this file (`pincer sessions fork`)",
            ),
            error => store_error(error),
        })?;
    write_record(
        context,
        store,
        &id,
        &local.file,
        (pushed.head, bytes.len() as u64, pushed.head),
    );
    drop(lock);
    let outcome = match pushed.segment {
        None => PushOutcome::AlreadyInStore,
        Some(1) => PushOutcome::Pushed,
        Some(_) => PushOutcome::Extended,
    };
    let (name, error) = match &local.name {
        None => (None, None),
        Some(name) => match store.run(store.claim_name(name, &id)) {
            Ok(NameClaim::Claimed) => (Some(name.clone()), None),
            Ok(NameClaim::Taken(other)) => {
                let message = format!(
                    "the session store gives the name '{name}' to session {other}; session {id} \
                     is in the store without it"
                );
                context.diagnostics.warn(&message);
                (None, Some(message))
            }
            Err(error) => return Err(store_error(error)),
        },
    };
    Ok(SessionPushed {
        id: local.id.clone(),
        file: local.file.clone(),
        outcome,
        segments: Some(pushed.head),
        name,
        error,
    })
}

// ------------------------------------------------------------------------------------ rm, prune

fn remove(context: &Context, store: &Remote, args: &SessionsRmArgs) -> CliResult<Exit> {
    checked(store)?;
    let holder = remote::holder();
    let ttl = remote::lease_ttl(&context.settings)?;
    let mut removed = Vec::new();
    let mut first_error: Option<CliError> = None;
    for query in &args.sessions {
        let id = match find(store, query) {
            Ok(id) => id,
            Err(error) if args.force && error.exit == Exit::Usage => {
                context
                    .diagnostics
                    .detail(&format!("skipping '{query}': {}", error.message));
                continue;
            }
            Err(error) => return Err(error),
        };
        if removed.contains(&id.to_string()) {
            continue;
        }
        // The lease first: a session another writer holds is busy (exit 75, holder named).
        let deleted = store.run(async {
            let lease = store
                .acquire_lease(&id, &holder, ttl, wait(context))
                .await?;
            lease.delete_session().await
        });
        match deleted {
            Ok(()) => removed.push(id.to_string()),
            Err(error) => {
                let error = store_error(error);
                context.diagnostics.error(&error);
                first_error.get_or_insert(error);
            }
        }
    }
    if context.format.is_json() {
        json(&StoreSessionsRemoved {
            store: store.url().to_owned(),
            removed,
        })?;
    } else {
        for id in &removed {
            context
                .diagnostics
                .info(&format!("removed {id} from {}", store.url()));
        }
    }
    Ok(first_error.map_or(Exit::Success, |error| error.exit))
}

fn prune(context: &Context, store: &Remote, args: &SessionsPruneArgs) -> CliResult<Exit> {
    refuse_cwd(args.cwd.as_deref())?;
    let age_limit = crate::ledger::window::parse_duration(&args.older_than).ok_or_else(|| {
        CliError::usage(format!(
            "--older-than '{}' is not a duration",
            args.older_than
        ))
        .with_hint("use a number with a unit: 30d, 12h, 90m, 2w, or sums like 1d12h")
    })?;
    checked(store)?;
    let cutoff = OffsetDateTime::now_utc() - age_limit;
    let old: Vec<SessionFacts> = every_session(store)?
        .into_iter()
        .filter(|facts| {
            facts
                .updated
                .and_then(iso)
                .is_some_and(|updated| last_used_before(&updated, cutoff))
        })
        .collect();
    let mut removed = Vec::new();
    let mut skipped = Vec::new();
    if !args.dry_run {
        let holder = remote::holder();
        let ttl = remote::lease_ttl(&context.settings)?;
        for facts in &old {
            match prune_one(context, store, &holder, ttl, facts) {
                Ok(true) => removed.push(facts.session.to_string()),
                Ok(false) => {
                    context.diagnostics.detail(&format!(
                        "kept {}: it was written to while the prune ran",
                        facts.session
                    ));
                    skipped.push(facts.session.to_string());
                }
                Err(error) => {
                    context
                        .diagnostics
                        .warn(&format!("kept {}: {}", facts.session, error.message));
                    skipped.push(facts.session.to_string());
                }
            }
        }
    } else {
        removed = old.iter().map(|facts| facts.session.to_string()).collect();
    }
    if context.format.is_json() {
        let (would_remove, removed) = if args.dry_run {
            (Some(removed), None)
        } else {
            (None, Some(removed))
        };
        json(&StoreSessionsPruned {
            store: store.url().to_owned(),
            dry_run: args.dry_run,
            removed,
            would_remove,
            skipped,
        })?;
    } else {
        let verb = if args.dry_run {
            "would remove"
        } else {
            "removed"
        };
        let mut out = String::new();
        for id in &removed {
            out.push_str(&format!("{verb} {id}\n"));
        }
        text(&out)?;
        context.diagnostics.info(&format!(
            "{verb} {} session(s) from {}, kept {} (busy, or written to meanwhile)",
            removed.len(),
            store.url(),
            skipped.len()
        ));
    }
    Ok(Exit::Success)
}

/// Remove one old session under its lease, unless a commit came after the listing (then it
/// is not old any more: false).
fn prune_one(
    context: &Context,
    store: &Remote,
    holder: &pincer_store::Holder,
    ttl: Duration,
    facts: &SessionFacts,
) -> CliResult<bool> {
    store
        .run(async {
            let lease = store
                .acquire_lease(&facts.session, holder, ttl, wait(context))
                .await?;
            if lease.head() != facts.segments {
                lease.release().await?;
                return Ok(false);
            }
            lease.delete_session().await?;
            Ok(true)
        })
        .map_err(store_error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_ids_are_eight_characters_or_as_many_as_tell_them_apart() {
        let ids = [
            "0195f0c2-7a3e-7000-8000-000000000001",
            "0195f0c2-7a3e-7000-8000-000000000002",
            "a1b2c3d4-0000-7000-8000-000000000000",
        ];
        assert_eq!(
            short_ids(&ids),
            [
                "0195f0c2-7a3e-7000-8000-000000000001",
                "0195f0c2-7a3e-7000-8000-000000000002",
                "a1b2c3d4"
            ]
        );
    }
}
