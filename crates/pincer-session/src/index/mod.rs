//! The session index: `<sessions>/index.sqlite3`, a cache of every session's summary, so that
//! lookups by id, id prefix or name, `--last`, `list` and `status` read a few rows instead of
//! every file (SPEC §5.2, §12.1). The database itself is in [`db`].
//!
//! The index is derived: the session files are the truth (pi's format, readable by pi), and
//! the database is built again from them when it is missing, corrupt, of another schema or
//! summary version, or cannot be opened. A row is trusted only while its file has the size and
//! mtime it recorded: every row a command uses is checked against its file (one stat) and
//! summarized again when it changed ([`Index`]es handed to commands hold only such rows).
//! `--last` stats every file of its scope (the workspace's, or all with `--all`) before it trusts
//! the rows' order: an append by another program changes a file's stamp, not the directory's, and
//! makes an older session the newest ([`db::Db::changed_since_read`]).
//!
//! Which files exist is known without listing the directory on every run:
//! - pincer's own creates, renames and removals of session files run inside the database's
//!   write transaction ([`changing`]); the directory's stamp (its mtime and ctime) is read
//!   before the change, and when it is the recorded one, the stamp after the change is
//!   recorded, with the rows of the changed files, in the same transaction;
//! - files others add or remove (pi, `cp`, `rm`) change the directory's stamp: a command that
//!   finds a stamp other than the recorded one reads the directory's names (no stat of the
//!   files the rows know), summarizes the names no row knows, drops the rows whose files are
//!   gone, and records the stamp — only when the directory had stood unchanged for a clock
//!   tick before the listing ([`db::DirStamp::settled`], git's "racy" rule: a change in the
//!   same tick could carry the same time);
//! - residual race: a change by another program in the same timestamp tick as one of
//!   pincer's own (within about 10 ms on Linux) leaves the stamp as pincer recorded it, so that
//!   file is not seen by lookups until the directory changes again or a command that lists
//!   everything (`sessions list --all`, `--json`) runs. On NFS, the client's attribute cache
//!   (up to a minute by default) delays the stamp of a change made on another machine alike.
//!
//! A failed write (a full disk, a read-only home) never fails a command that only reads: the
//! answer is computed from the files, in memory, as if there were no database.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::UNIX_EPOCH;

use serde::{Deserialize, Serialize};

use super::parse::parse_line;
use super::record::Line;
use super::store::{self, SessionError};
use super::summary::{self, SessionSummary, summarize};
use super::{context, tail};

pub mod db;

pub use db::{DB_FILE, changing, make_lock_file};

/// Bumped when the cached summary changes shape; rows of another version are built again.
pub const INDEX_VERSION: u32 = 2;

/// One session file as the index knows it.
///
/// Stored as one flat JSON object (the summary's fields beside the index's own); it is read
/// through [`StoredEntry`], because serde's `flatten` would first buffer every entry into an
/// untyped tree, which made reading a 10,000-session index several times slower.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "StoredEntry")]
pub struct IndexEntry {
    /// File name inside the sessions directory.
    pub file: String,
    /// Size in bytes when summarized.
    pub size: u64,
    /// Modification time in nanoseconds since the epoch when summarized.
    pub mtime_ns: u64,
    /// Why the file could not be fully read (corrupt line, unknown version, …), if so.
    pub problem: Option<String>,
    /// Whether the file ends in a torn line that the next append will repair.
    #[serde(default)]
    pub torn_tail: bool,
    /// The id of the file's last entry when summarized, so that entries appended later can be
    /// summarized on their own (see [`refresh`]). Absent for empty, damaged or old-format files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leaf: Option<String>,
    /// The summary.
    #[serde(flatten)]
    pub summary: SessionSummary,
}

/// [`IndexEntry`] as stored: every field at one level, as `#[serde(flatten)]` writes it. The
/// summary's fields are listed again here; building the summary below names each of them, so a
/// field added to [`SessionSummary`] fails to compile until it is added here too.
#[derive(Deserialize)]
struct StoredEntry {
    file: String,
    size: u64,
    mtime_ns: u64,
    problem: Option<String>,
    #[serde(default)]
    torn_tail: bool,
    #[serde(default)]
    leaf: Option<String>,
    id: String,
    name: Option<String>,
    cwd: String,
    created: String,
    updated: String,
    provider: Option<String>,
    model: Option<String>,
    thinking_level: Option<String>,
    turns: u64,
    messages: u64,
    entries: u64,
    last_usage: Option<crate::conversation::TokenUsage>,
    last_model: Option<String>,
    context_tokens: Option<u64>,
    context_estimated: bool,
    usage_by_model: BTreeMap<String, summary::ModelTotals>,
    compactions: u64,
    last_run_aborted: bool,
    last_error: Option<String>,
    backend_sessions: BTreeMap<String, String>,
    parent_session: Option<String>,
}

impl From<StoredEntry> for IndexEntry {
    fn from(stored: StoredEntry) -> IndexEntry {
        IndexEntry {
            file: stored.file,
            size: stored.size,
            mtime_ns: stored.mtime_ns,
            problem: stored.problem,
            torn_tail: stored.torn_tail,
            leaf: stored.leaf,
            summary: SessionSummary {
                id: stored.id,
                name: stored.name,
                cwd: stored.cwd,
                created: stored.created,
                updated: stored.updated,
                provider: stored.provider,
                model: stored.model,
                thinking_level: stored.thinking_level,
                turns: stored.turns,
                messages: stored.messages,
                entries: stored.entries,
                last_usage: stored.last_usage,
                last_model: stored.last_model,
                context_tokens: stored.context_tokens,
                context_estimated: stored.context_estimated,
                usage_by_model: stored.usage_by_model,
                compactions: stored.compactions,
                last_run_aborted: stored.last_run_aborted,
                last_error: stored.last_error,
                backend_sessions: stored.backend_sessions,
                parent_session: stored.parent_session,
            },
        }
    }
}

/// The whole index.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Index {
    /// Format version of this cache.
    pub version: u32,
    /// Entries keyed by file name.
    pub sessions: BTreeMap<String, IndexEntry>,
}

/// What a refresh found and did, for the caller to report.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RefreshReport {
    /// Why the index was rebuilt from scratch, when it was.
    pub rebuilt: Option<String>,
    /// How many files were read again because they changed.
    pub rescanned: usize,
    /// Whether the index file was rewritten.
    pub written: bool,
    /// Why the index file could not be rewritten, when it could not (the refresh still
    /// succeeds: the index is only a cache).
    pub unsaved: Option<String>,
}

/// The result of looking a session up.
#[derive(Debug)]
pub enum Lookup<'a> {
    /// Exactly one session matches.
    One(&'a IndexEntry),
    /// Nothing matches.
    NotFound,
    /// Several sessions match a prefix or a name.
    Ambiguous(Vec<&'a IndexEntry>),
}

impl Lookup<'_> {
    /// Whether exactly one session matched.
    pub fn is_one(&self) -> bool {
        matches!(self, Lookup::One(_))
    }
}

impl Index {
    /// An index of no session, of this version.
    pub fn empty() -> Index {
        Index {
            version: INDEX_VERSION,
            sessions: BTreeMap::new(),
        }
    }

    /// Entries sorted newest first (by last activity, then creation, then file name), so that
    /// `--last` and listings are deterministic.
    pub fn newest_first(&self) -> Vec<&IndexEntry> {
        let mut entries: Vec<&IndexEntry> = self.sessions.values().collect();
        entries.sort_by_key(|&entry| {
            newest_first(&entry.summary.updated, &entry.summary.created, &entry.file)
        });
        entries
    }

    /// Find a session by full id, name, or unique id prefix (in that order of precedence).
    pub fn find(&self, query: &str) -> Lookup<'_> {
        let valid = || {
            self.sessions
                .values()
                .filter(|entry| !entry.summary.id.is_empty())
        };
        let by_id: Vec<&IndexEntry> = valid().filter(|entry| entry.summary.id == query).collect();
        if !by_id.is_empty() {
            return one_or_many(by_id);
        }
        let by_name: Vec<&IndexEntry> = valid()
            .filter(|entry| entry.summary.name.as_deref() == Some(query))
            .collect();
        if !by_name.is_empty() {
            return one_or_many(by_name);
        }
        if query.is_empty() {
            return Lookup::NotFound;
        }
        let query_lower = query.to_ascii_lowercase();
        let by_prefix: Vec<&IndexEntry> = valid()
            .filter(|entry| {
                entry
                    .summary
                    .id
                    .to_ascii_lowercase()
                    .starts_with(&query_lower)
            })
            .collect();
        one_or_many(by_prefix)
    }

    /// The most recently active session whose workspace is `cwd` (any workspace with `all`).
    pub fn last(&self, cwd: &Path, all: bool) -> Option<&IndexEntry> {
        let cwd = cwd.to_string_lossy();
        self.newest_first()
            .into_iter()
            .filter(|entry| entry.problem.is_none() || !entry.summary.id.is_empty())
            .find(|entry| all || entry.summary.cwd == cwd)
    }

    /// The entry of a given file name.
    pub fn by_file(&self, file: &str) -> Option<&IndexEntry> {
        self.sessions.get(file)
    }

    /// The name of the session at `path`, when this index knows one: what a busy session's
    /// error names it by ([`crate::store::SessionError::naming`]).
    pub fn name_of(&self, path: &Path) -> Option<&str> {
        let file = path.file_name()?.to_str()?;
        self.by_file(file)?.summary.name.as_deref()
    }

    /// The damaged sessions only, summarized again from their files by [`summarize_damaged`]:
    /// a fallback for a lookup that found nothing, since an index written by an older pincer kept
    /// neither the name of a damaged session nor, when its header was the damage, its id. Only
    /// the damaged files are read, which are few.
    pub fn damaged_rescanned(&self, dir: &Path) -> Index {
        let sessions = self
            .sessions
            .iter()
            .filter(|(_, entry)| entry.problem.is_some())
            .filter_map(|(name, entry)| {
                let path = dir.join(name);
                let bytes = std::fs::read(&path).ok()?;
                let mut entry = entry.clone();
                entry.summary = summarize_damaged(&path, &bytes);
                Some((name.clone(), entry))
            })
            .collect();
        Index {
            version: self.version,
            sessions,
        }
    }

    /// For every session id of the index, its [`short_ids`].
    pub fn short_ids(&self) -> std::collections::HashMap<&str, &str> {
        short_ids(
            self.sessions
                .values()
                .map(|entry| entry.summary.id.as_str()),
        )
    }
}

/// For each of `ids`, the shortest prefix that no other id starts with, and at least
/// [`SHORT_ID_MIN`] characters (SPEC §1.5). The first 8 hex digits of a UUIDv7 are its
/// timestamp, so sessions made within a minute of each other need more; a prefix never ends in
/// the id's `-`. Ids compare without regard to case, as [`Index::find`] does.
pub fn short_ids<'a>(
    ids: impl Iterator<Item = &'a str>,
) -> std::collections::HashMap<&'a str, &'a str> {
    // Sorted by their lowercase forms, borrowed when an id has no capital (a UUID has none):
    // compared a byte at a time through `to_ascii_lowercase`, the sort was most of the time of
    // a listing's page.
    let mut ids: Vec<(Cow<'a, str>, &'a str)> = ids
        .filter(|id| !id.is_empty())
        .map(|id| {
            let lower = if id.bytes().any(|byte| byte.is_ascii_uppercase()) {
                Cow::Owned(id.to_ascii_lowercase())
            } else {
                Cow::Borrowed(id)
            };
            (lower, id)
        })
        .collect();
    ids.sort_unstable();
    ids.dedup_by(|right, left| right.0 == left.0);
    let ids: Vec<&str> = ids.into_iter().map(|(_, id)| id).collect();
    let common = |left: &str, right: &str| {
        left.bytes()
            .zip(right.bytes())
            .take_while(|(a, b)| a.eq_ignore_ascii_case(b))
            .count()
    };
    let mut short = std::collections::HashMap::with_capacity(ids.len());
    for (position, id) in ids.iter().enumerate() {
        let before = position
            .checked_sub(1)
            .map_or(0, |previous| common(ids[previous], id));
        let after = ids.get(position + 1).map_or(0, |next| common(next, id));
        let mut length = (before.max(after) + 1).max(SHORT_ID_MIN);
        while id.as_bytes().get(length - 1) == Some(&b'-') {
            length += 1;
        }
        short.insert(*id, id.get(..length).unwrap_or(id));
    }
    short
}

/// The key that sorts sessions newest first: by last activity, then creation, then file name,
/// each descending.
pub fn newest_first<'a>(
    updated: &'a str,
    created: &'a str,
    file: &'a str,
) -> std::cmp::Reverse<[&'a str; 3]> {
    std::cmp::Reverse([updated, created, file])
}

/// The fewest characters of a session id that listings show (SPEC §1.5).
pub const SHORT_ID_MIN: usize = 8;

fn one_or_many(mut entries: Vec<&IndexEntry>) -> Lookup<'_> {
    match entries.len() {
        0 => Lookup::NotFound,
        1 => Lookup::One(entries.remove(0)),
        _ => {
            entries.sort_by(|left, right| left.file.cmp(&right.file));
            Lookup::Ambiguous(entries)
        }
    }
}

pub(super) fn file_stamp(metadata: &std::fs::Metadata) -> (u64, u64) {
    let mtime = metadata
        .modified()
        .ok()
        .and_then(|time| time.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |duration| {
            u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX)
        });
    (metadata.len(), mtime)
}

/// Summarize one session file for the index, tolerating damage: a corrupt file still gets an
/// entry (with its header, when readable) and a `problem`.
pub fn summarize_file(path: &Path) -> Result<IndexEntry, SessionError> {
    summarize_file_in(None, path)
}

/// [`summarize_file`] for a file of the directory `dir` holds open, when it does: the file is
/// opened relative to it (the kernel looks up one name, not the whole path), stamped from the
/// open file and read into this thread's buffer (one open, one fstat, two reads and a close
/// per file: a full reindex reads every session).
fn summarize_file_in(dir: Option<&std::fs::File>, path: &Path) -> Result<IndexEntry, SessionError> {
    let name = path.file_name().unwrap_or_default();
    let opened = match dir {
        Some(dir) => nix::fcntl::openat(
            dir,
            name,
            nix::fcntl::OFlag::O_RDONLY | nix::fcntl::OFlag::O_CLOEXEC,
            nix::sys::stat::Mode::empty(),
        )
        .map(std::fs::File::from)
        .map_err(std::io::Error::from),
        None => std::fs::File::open(path),
    };
    let stat_error = |source| SessionError::Io {
        action: "cannot stat",
        path: path.to_owned(),
        source,
    };
    // A file that cannot be opened is still stat'ed and summarized as damaged, as before.
    let (metadata, file) = match opened {
        Ok(file) => (file.metadata().map_err(stat_error)?, Some(file)),
        Err(_) => (std::fs::metadata(path).map_err(stat_error)?, None),
    };
    let (size, mtime_ns) = file_stamp(&metadata);
    let mut entry = IndexEntry {
        file: name.to_string_lossy().into_owned(),
        size,
        mtime_ns,
        problem: None,
        torn_tail: false,
        leaf: None,
        summary: SessionSummary::default(),
    };
    with_read_buffer(|buffer| {
        // Most files are clean and current: one parse per line is enough. Anything else (an
        // older version, a torn or corrupt line) goes through the store's tolerant loader.
        let bytes = file.and_then(|file| {
            use std::io::Read as _;
            buffer.reserve(usize::try_from(size).unwrap_or(0).saturating_add(1));
            // Through `take`: `File::read_to_end` would ask the kernel for the size again (a
            // stat and a seek per file) to size a buffer that is already big enough.
            file.take(u64::MAX)
                .read_to_end(buffer)
                .ok()
                .map(|_| buffer.as_slice())
        });
        if let Some((summary, leaf)) = bytes.and_then(summarize_clean) {
            entry.summary = summary;
            entry.leaf = leaf;
            return;
        }
        match store::load(path) {
            Ok(loaded) => {
                entry.torn_tail = loaded.torn.is_some();
                if !loaded.needs_migration() && loaded.torn.is_none() {
                    entry.leaf = loaded.leaf_id().map(str::to_owned);
                }
                entry.summary = summarize(&loaded.header, &loaded.entries);
            }
            Err(error) => {
                entry.problem = Some(error.to_string());
                entry.summary = summarize_damaged(path, bytes.unwrap_or_default());
            }
        }
    });
    Ok(entry)
}

/// Above this many bytes, the buffer [`with_read_buffer`] lends is not kept for the next file:
/// one big session does not hold its size for the rest of the process.
const KEPT_READ_BUFFER: usize = 4 << 20;

/// Runs `read` with this thread's empty file buffer, kept from one file to the next so that a
/// reindex allocates (and the kernel maps and faults in) no new buffer per file.
fn with_read_buffer<T>(read: impl FnOnce(&mut Vec<u8>) -> T) -> T {
    thread_local! {
        static BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    BUFFER.with(|cell| match cell.try_borrow_mut() {
        Ok(mut buffer) => {
            buffer.clear();
            let result = read(&mut buffer);
            if buffer.capacity() > KEPT_READ_BUFFER {
                *buffer = Vec::new();
            }
            result
        }
        // Lent already (a summary inside a summary): a buffer of its own.
        Err(_) => read(&mut Vec::new()),
    })
}

/// What can still be told of a session file the loader refuses: the summary of every line that
/// parses on its own — so the session keeps its name, which lives in a `session_info` entry
/// anywhere in the file — under its header, or under a header rebuilt from the file name when
/// the first line is damaged ([`store::salvaged_header`]). An id found nowhere stays empty, and
/// lookups skip such an entry.
pub fn summarize_damaged(path: &Path, bytes: &[u8]) -> SessionSummary {
    let mut lines = bytes
        .split(|byte| *byte == b'\n')
        .filter(|line| !line.trim_ascii().is_empty());
    let first = lines.next().unwrap_or_default();
    let parse = |line: &[u8]| {
        std::str::from_utf8(line)
            .ok()
            .and_then(|text| parse_line(text.trim()).ok())
    };
    let mut entries = Vec::new();
    let header = match parse(first) {
        Some(Line::Header(header)) => Some(header),
        Some(Line::Entry(entry)) => {
            entries.push(entry);
            store::salvaged_header(path, b"")
        }
        None => store::salvaged_header(path, first),
    };
    entries.extend(lines.filter_map(|line| match parse(line) {
        Some(Line::Entry(entry)) => Some(entry),
        _ => None,
    }));
    header.map_or_else(SessionSummary::default, |header| {
        summarize(&header, &entries)
    })
}

/// The summary and leaf of a session file of the current version whose every line is whole and
/// parses, reading each line once; `None` for any other file. [`store::load`] would give the
/// same entries, but it checks every line twice and keeps copies for a repair, which made a full
/// reindex of 10,000 sessions more than twice as slow.
///
/// The summary is made in one pass that keeps no entry ([`summary::Summarizer`]), each line read
/// for its facts only ([`super::record_fast::summary_entry`]: no text or payload copied). A file
/// that pass cannot summarize alone — a fork inside it, or a compaction after the last reported
/// usage, whose context must be rebuilt to be estimated — is read again into its entries
/// ([`summarize_lines`]).
pub fn summarize_clean(bytes: &[u8]) -> Option<(SessionSummary, Option<String>)> {
    let text = std::str::from_utf8(bytes).ok()?;
    if !text.ends_with('\n') {
        return None;
    }
    match summarize_streaming(text) {
        Streamed::Summary(summarized) => Some(summarized),
        Streamed::Unreadable => None,
        Streamed::NeedsEntries => {
            let summarized = summarize_lines(text, true)?;
            if summarized.0.context_estimated {
                return summarize_lines(text, false);
            }
            Some(summarized)
        }
    }
}

/// What [`summarize_streaming`] made of a file.
#[expect(
    clippy::large_enum_variant,
    reason = "made once per file and unpacked at once: boxing would cost an allocation per file"
)]
enum Streamed {
    /// The summary and the leaf.
    Summary((SessionSummary, Option<String>)),
    /// A line no reader takes, or a header of no current session file.
    Unreadable,
    /// The summary needs the entries (see [`summary::Summarizer`]).
    NeedsEntries,
}

/// [`summarize_lines`] in one pass that keeps no entry, where the file allows it.
fn summarize_streaming(text: &str) -> Streamed {
    let mut lines = text
        .split('\n')
        .map(str::trim)
        .filter(|line| !line.is_empty());
    let Some(first) = lines.next() else {
        return Streamed::Unreadable;
    };
    let header = super::record_fast::parse_header(first).or_else(|| match parse_line(first) {
        Ok(Line::Header(header)) => Some(header),
        _ => None,
    });
    let Some(header) = header.filter(|header| header.version == Some(store::CURRENT_VERSION))
    else {
        return Streamed::Unreadable;
    };
    let mut summarizer = summary::Summarizer::new(&header);
    for line in lines {
        let taken = if let Some(entry) = super::record_fast::summary_entry(line) {
            summarizer.add(&entry.facts())
        } else {
            // An entry of another shape (a field pincer does not know, a tag further down):
            // read the general way, as [`summarize_lines`] does.
            let entry = super::record_fast::parse_entry_for_summary(line)
                .map_or_else(|| parse_line(line), |entry| Ok(Line::Entry(entry)));
            match entry {
                Ok(Line::Entry(entry)) => summarizer.add(&summary::facts(&entry)),
                _ => return Streamed::Unreadable,
            }
        };
        if !taken {
            return Streamed::NeedsEntries;
        }
    }
    summarizer
        .finish()
        .map_or(Streamed::NeedsEntries, Streamed::Summary)
}

/// [`summarize_clean`] over `text`, reading the entries for a summary only with `light`.
fn summarize_lines(text: &str, light: bool) -> Option<(SessionSummary, Option<String>)> {
    let mut lines = text
        .split('\n')
        .map(str::trim)
        .filter(|line| !line.is_empty());
    let Ok(Line::Header(header)) = parse_line(lines.next()?) else {
        return None;
    };
    if header.version != Some(store::CURRENT_VERSION) {
        return None;
    }
    let mut entries = Vec::new();
    for line in lines {
        let fast = light
            .then(|| super::record_fast::parse_entry_for_summary(line))
            .flatten();
        match fast.map_or_else(|| parse_line(line), |entry| Ok(Line::Entry(entry))) {
            Ok(Line::Entry(entry)) => entries.push(entry),
            _ => return None,
        }
    }
    let leaf = entries.last().map(|entry| entry.id().to_owned());
    Some((summarize(&header, &entries), leaf))
}

/// The entry of a file that only grew since `known` was taken, from the appended entries alone;
/// `None` when that is not safe (see [`summary::extend`]) and the file must be read in full.
///
/// A file "only grew" when it is longer, its header is the same session's, the old size still
/// ends with a newline right after the old leaf entry, and the appended bytes are whole entries
/// that continue the old leaf. This is a cheap check, not proof that no older byte changed:
/// like the size-and-mtime rule, it trusts that session files are only ever appended to.
fn extend_entry(path: &Path, known: &IndexEntry, size: u64, mtime_ns: u64) -> Option<IndexEntry> {
    if known.problem.is_some() || known.torn_tail || size <= known.size {
        return None;
    }
    // An old index entry without a leaf, or a file with entries but no recorded leaf.
    if known.leaf.is_none() && known.summary.entries > 0 {
        return None;
    }
    let header = read_header(path)?;
    let summary = &known.summary;
    if header.version != Some(store::CURRENT_VERSION)
        || header.id != summary.id
        || header.timestamp != summary.created
        || header.cwd != summary.cwd
        || header.parent_session != summary.parent_session
    {
        return None;
    }
    if let Some(leaf) = &known.leaf
        && tail::entry_id_before(path, known.size).ok()?.as_ref() != Some(leaf)
    {
        return None;
    }
    let appended = tail::entries_between(path, known.size, size).ok()??;
    let extension = summary::extend(summary, known.leaf.as_deref(), &appended)?;
    let mut summary = extension.summary;
    if extension.estimate_context {
        // A compaction after the last reported usage: estimate the rebuilt context, which the
        // tail reader rebuilds without reading the whole file.
        let tail = tail::load(path).ok()?;
        let rebuilt = context::build_context(&tail.session.entries, None);
        summary.context_tokens = Some(summary::estimate_tokens(&rebuilt.messages));
        summary.context_estimated = true;
    }
    Some(IndexEntry {
        file: known.file.clone(),
        size,
        mtime_ns,
        problem: None,
        torn_tail: false,
        leaf: appended
            .last()
            .map(|entry| entry.id().to_owned())
            .or_else(|| known.leaf.clone()),
        summary,
    })
}

/// Whether `entry` describes the session file at `path` as it is now: the same size and mtime,
/// and readable.
pub fn describes(entry: &IndexEntry, path: &Path) -> bool {
    std::fs::metadata(path)
        .is_ok_and(|metadata| file_stamp(&metadata) == (entry.size, entry.mtime_ns))
        && entry.problem.is_none()
}

/// The header of a session file, read from its first line only.
pub fn read_header(path: &Path) -> Option<super::record::SessionHeader> {
    use std::io::BufRead;
    let file = std::fs::File::open(path).ok()?;
    let mut line = String::new();
    std::io::BufReader::new(file).read_line(&mut line).ok()?;
    match parse_line(line.trim_end()) {
        Ok(Line::Header(header)) => Some(header),
        _ => None,
    }
}

enum Freshness {
    /// The entry still describes the file.
    Unchanged,
    /// The file changed (or is new): its new entry.
    Updated(Box<IndexEntry>),
    /// The file is gone (or vanished between the stat and the read).
    Gone,
}

/// Check one file against its known entry, extending the entry from the appended bytes when
/// the file only grew, and summarizing it in full otherwise.
fn check_file(known: Option<&IndexEntry>, path: &Path) -> Freshness {
    let Ok(metadata) = std::fs::metadata(path) else {
        return Freshness::Gone;
    };
    check_stamped(known, path, file_stamp(&metadata))
}

/// [`check_file`] for a file of the directory `dir` holds open: the stat is made relative to
/// it, so the kernel looks up one name instead of walking the whole path (a warm refresh of a
/// big home is a stat per file and little else).
fn check_file_in(
    dir: Option<&std::fs::File>,
    known: Option<&IndexEntry>,
    name: &str,
    path: &Path,
) -> Freshness {
    let Some(dir) = dir else {
        return check_file(known, path);
    };
    if known.is_none() {
        // Nothing to compare a stamp with (a file new to the index, or a rebuild): the summary
        // stamps the file it opens.
        return match summarize_file_in(Some(dir), path) {
            Ok(entry) => Freshness::Updated(Box::new(entry)),
            Err(_) => Freshness::Gone,
        };
    }
    match stamp_in(dir, name) {
        Some(stamp) => check_stamped(known, path, stamp),
        None => Freshness::Gone,
    }
}

/// The size and mtime of the file `name` of the directory `dir` holds open (stat'ed relative to
/// it), as [`file_stamp`] gives them; `None` when it is gone.
fn stamp_in(dir: &std::fs::File, name: &str) -> Option<(u64, u64)> {
    nix::sys::stat::fstatat(dir, name, nix::fcntl::AtFlags::empty())
        .ok()
        .map(|stat| stat_stamp(&stat))
}

/// What [`file_stamp`] makes of the same file, from `fstatat`'s answer.
fn stat_stamp(stat: &nix::sys::stat::FileStat) -> (u64, u64) {
    let size = u64::try_from(stat.st_size).unwrap_or(0);
    let mtime = match (
        u64::try_from(stat.st_mtime),
        u64::try_from(stat.st_mtime_nsec),
    ) {
        (Ok(seconds), Ok(nanos)) => seconds.saturating_mul(1_000_000_000).saturating_add(nanos),
        _ => 0,
    };
    (size, mtime)
}

fn check_stamped(
    known: Option<&IndexEntry>,
    path: &Path,
    (size, mtime_ns): (u64, u64),
) -> Freshness {
    if known.is_some_and(|entry| entry.size == size && entry.mtime_ns == mtime_ns) {
        return Freshness::Unchanged;
    }
    let extended = known.and_then(|known| extend_entry(path, known, size, mtime_ns));
    match extended.map_or_else(|| summarize_file(path), Ok) {
        Ok(entry) => Freshness::Updated(Box::new(entry)),
        Err(_) => Freshness::Gone,
    }
}

/// Put a check's outcome into the index; returns whether the entry changed.
fn apply(index: &mut Index, name: &str, freshness: Freshness) -> bool {
    match freshness {
        Freshness::Unchanged => false,
        Freshness::Updated(entry) => {
            index.sessions.insert(name.to_owned(), *entry);
            true
        }
        Freshness::Gone => index.sessions.remove(name).is_some(),
    }
}

/// How many outcomes a worker of [`check_files_into`] hands over at once.
const SENT_TOGETHER: usize = 16;

/// Below this many files one thread checks them all: starting threads would cost more.
pub(super) const PARALLEL_FROM: usize = 256;

/// Check every file against the index, on several threads for a big directory (a stat each
/// when the index is warm, a full read of every file for a rebuild); returns the positions in
/// `files` of those whose entry must change, with the outcome.
fn check_files(dir: &Path, index: &Index, files: &[(String, PathBuf)]) -> Vec<(usize, Freshness)> {
    let mut changed = Vec::new();
    check_files_into(dir, index, files, |position, freshness| {
        changed.push((position, freshness));
    });
    changed
}

/// [`check_files`], handing each changed file's position and outcome to `sink` on the calling
/// thread as soon as a worker has it: a rebuild stores rows while the workers still read files,
/// so the two cores of a small machine are both busy from the first file to the last.
fn check_files_into(
    dir: &Path,
    index: &Index,
    files: &[(String, PathBuf)],
    mut sink: impl FnMut(usize, Freshness),
) {
    let handle = std::fs::File::open(dir).ok();
    // Each file's entry, found in one walk along both (they are sorted alike), not by a
    // search per file.
    let mut entries = index.sessions.iter().peekable();
    let known: Vec<Option<&IndexEntry>> = files
        .iter()
        .map(|(name, _)| {
            while entries.next_if(|(entry, _)| *entry < name).is_some() {}
            entries
                .next_if(|(entry, _)| *entry == name)
                .map(|(_, entry)| entry)
        })
        .collect();
    let check = |position: usize| {
        let (name, path) = &files[position];
        match check_file_in(handle.as_ref(), known[position], name, path) {
            Freshness::Unchanged => None,
            freshness => Some((position, freshness)),
        }
    };
    let workers = std::thread::available_parallelism().map_or(1, |count| count.get().min(8));
    if files.len() < PARALLEL_FROM || workers < 2 {
        for (position, freshness) in (0..files.len()).filter_map(check) {
            sink(position, freshness);
        }
        return;
    }
    // Files differ a lot in size, so each worker takes the next unchecked file rather than a
    // fixed share.
    let next = AtomicUsize::new(0);
    let done = std::thread::scope(|scope| {
        // Outcomes go in batches: handing each over on its own woke this thread once per file,
        // about a tenth of a rebuild's time.
        let (sender, receiver) =
            std::sync::mpsc::sync_channel::<Vec<(usize, Freshness)>>(1024 / SENT_TOGETHER);
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                let sender = sender.clone();
                let check = &check;
                let next = &next;
                scope.spawn(move || {
                    let mut batch = Vec::with_capacity(SENT_TOGETHER);
                    loop {
                        let position = next.fetch_add(1, Ordering::Relaxed);
                        if position >= files.len() {
                            break;
                        }
                        if let Some(found) = check(position) {
                            batch.push(found);
                            if batch.len() == SENT_TOGETHER
                                && sender
                                    .send(std::mem::replace(
                                        &mut batch,
                                        Vec::with_capacity(SENT_TOGETHER),
                                    ))
                                    .is_err()
                            {
                                return;
                            }
                        }
                    }
                    if !batch.is_empty() {
                        let _ = sender.send(batch);
                    }
                })
            })
            .collect();
        drop(sender);
        let mut seen = vec![false; files.len()];
        for (position, freshness) in receiver.into_iter().flatten() {
            seen[position] = true;
            sink(position, freshness);
        }
        let panicked = handles.into_iter().any(|handle| handle.join().is_err());
        (!panicked).then_some(()).ok_or(seen)
    });
    // A worker that panicked lost what it was checking: check again on this thread every file
    // whose outcome did not arrive.
    if let Err(seen) = done {
        for position in (0..files.len()).filter(|position| !seen[*position]) {
            if let Some((position, freshness)) = check(position) {
                sink(position, freshness);
            }
        }
    }
}

/// Every session of `dir`, each checked against its file (a stat of every file: only for the
/// commands that show every session), with what had to be done.
pub fn refresh(dir: &Path) -> Result<(Index, RefreshReport), SessionError> {
    let mut report = RefreshReport::default();
    let Some(mut db) = db::Db::open(dir) else {
        return Ok((Index::empty(), report));
    };
    db.ensure_built()?;
    let mut index = Index::empty();
    index.sessions = db
        .all()
        .into_iter()
        .map(|entry| (entry.file.clone(), entry))
        .collect();
    let files = session_files(dir)?;
    let before = index.sessions.len();
    let mut next_file = files.iter().map(|(file, _)| file.as_str()).peekable();
    let mut gone = Vec::new();
    index.sessions.retain(|name, _| {
        while next_file.next_if(|file| *file < name.as_str()).is_some() {}
        let kept = next_file.next_if_eq(&name.as_str()).is_some();
        if !kept {
            gone.push(name.clone());
        }
        kept
    });
    let mut changed = index.sessions.len() != before;
    for file in gone {
        let _ = db.remove(&file);
    }
    for (position, freshness) in check_files(dir, &index, &files) {
        let name = &files[position].0;
        if let Freshness::Updated(entry) = &freshness {
            let _ = db.put(entry);
        } else if matches!(freshness, Freshness::Gone) {
            let _ = db.remove(name);
        }
        if apply(&mut index, name, freshness) {
            report.rescanned += 1;
            changed = true;
        }
    }
    report.rescanned += db.summarized;
    report.rebuilt = db.rebuilt.clone();
    report.unsaved = db.unsaved.clone();
    report.written = (changed || report.rebuilt.is_some()) && !db.in_memory();
    Ok((index, report))
}

/// What a command looks sessions up by, for [`scoped`].
#[derive(Debug, Default)]
pub struct Wanted<'a> {
    /// Session arguments (id, id prefix, name, file).
    pub queries: Vec<&'a str>,
    /// `--last`: the workspace, and whether any workspace will do (`--all`).
    pub last: Option<(&'a Path, bool)>,
}

/// The sessions of `dir` that `wanted` can mean, each checked against its file: an [`Index`]
/// over which [`Index::find`], [`Index::last`] and [`Index::damaged_rescanned`] answer as over
/// every session, found by the database's indexes (SPEC §12.1: a run costs the same in a home
/// of 100 sessions or 500,000).
pub fn scoped(dir: &Path, wanted: &Wanted<'_>) -> Result<(Index, RefreshReport), SessionError> {
    scoped_in(dir, wanted, false)
}

/// [`scoped`] for a lookup that found nothing (#46 item 3). For a query that can be a name,
/// before the same lookups, every row's file is stat'ed (the ones changed since their row was
/// read are read again, as a name another program gave: [`db::Db::relisted`]): a stat per
/// session, never a summary of each nor the directory's names in memory. A `--last` or a full session id ([`is_session_id`]) that
/// found nothing costs what a hit costs: neither can be changed by an append, and a file
/// another program added changed the directory's stamp (but for the residual race of the
/// module's doc, which a hit has too).
pub fn rechecked(dir: &Path, wanted: &Wanted<'_>) -> Result<(Index, RefreshReport), SessionError> {
    scoped_in(dir, wanted, true)
}

/// Whether `query` has the shape of a session id (a UUID, `8-4-4-4-12` hex digits): a lookup
/// by it that found nothing is answered from the files' names and the rows, without a stat of
/// every file (a name of that shape another program gave is found once the index reads it).
pub fn is_session_id(query: &str) -> bool {
    let groups: Vec<&str> = query.split('-').collect();
    groups.len() == 5
        && groups.iter().zip([8, 4, 4, 4, 12]).all(|(group, length)| {
            group.len() == length && group.bytes().all(|byte| byte.is_ascii_hexdigit())
        })
}

fn scoped_in(
    dir: &Path,
    wanted: &Wanted<'_>,
    recheck: bool,
) -> Result<(Index, RefreshReport), SessionError> {
    let mut report = RefreshReport::default();
    let mut index = Index::empty();
    let Some(mut db) = db::Db::open(dir) else {
        return Ok((index, report));
    };
    db.ensure_built()?;
    // Only a name can have changed in a file the index knows (an append): a session's id and
    // workspace are in its header, which is never rewritten, and the files no row knows were
    // read when the directory's stamp changed (`ensure_built`). So a `--last` or a full id that
    // found nothing is answered as a hit is, from the rows; a query that can be a name reads
    // the names again and every file's stamp.
    if recheck && wanted.queries.iter().any(|query| !is_session_id(query)) {
        // Also in the index itself, for a database that could not be written.
        for entry in db.relisted()? {
            index.sessions.insert(entry.file.clone(), entry);
        }
    }
    for query in &wanted.queries {
        for known in db.candidates(query) {
            if let Some(entry) = db.fresh(known) {
                index.sessions.insert(entry.file.clone(), entry);
            }
        }
    }
    if let Some((cwd, all)) = wanted.last {
        let cwd = cwd.to_string_lossy();
        let scope = (!all).then_some(&*cwd);
        // Rows are ordered by the time they recorded; a file another program appended to since
        // is newer than its row says, so those are read again first (#46 item 2).
        let changed: Vec<IndexEntry> = db
            .changed_since_read(scope)
            .into_iter()
            .filter(|entry| entry.problem.is_none() || !entry.summary.id.is_empty())
            .collect();
        let mut first: Option<IndexEntry> = None;
        'pages: for page in 0.. {
            let rows = db.newest(scope, page * LAST_PAGE, LAST_PAGE);
            if rows.is_empty() {
                break;
            }
            for known in rows {
                // A row only grows newer when it is checked (files are appended to), so the
                // first one that is still there and usable is the newest.
                if let Some(entry) = db.fresh(known)
                    && (entry.problem.is_none() || !entry.summary.id.is_empty())
                {
                    first = Some(entry);
                    break 'pages;
                }
            }
        }
        // The rows read again were put back in order when the database could be written; when
        // it could not, the newest of them and the first row decide.
        let newest = first.into_iter().chain(changed).min_by(|left, right| {
            newest_first(&left.summary.updated, &left.summary.created, &left.file).cmp(
                &newest_first(&right.summary.updated, &right.summary.created, &right.file),
            )
        });
        if let Some(entry) = newest {
            index.sessions.insert(entry.file.clone(), entry);
        }
    }
    report.rebuilt = db.rebuilt.clone();
    report.unsaved = db.unsaved.clone();
    Ok((index, report))
}

/// How many sessions `dir` has, and how many of them ran in `cwd`.
pub fn counts(dir: &Path, cwd: &str) -> Result<((usize, usize), RefreshReport), SessionError> {
    let mut report = RefreshReport::default();
    let Some(mut db) = db::Db::open(dir) else {
        return Ok(((0, 0), report));
    };
    db.ensure_built()?;
    let counts = db.counts(cwd);
    report.rebuilt = db.rebuilt.clone();
    report.unsaved = db.unsaved.clone();
    Ok((counts, report))
}

/// How many rows `--last` reads at a time.
const LAST_PAGE: usize = 8;

/// Sessions newest first, each session id's shortest unique prefix, and what the index did.
pub type Newest = (
    Vec<IndexEntry>,
    std::collections::HashMap<String, String>,
    RefreshReport,
);

/// The newest sessions of `dir` (of the workspace `cwd`, of any with `None`) that `keep`
/// keeps, at most `limit` (all with `None`), each checked against its file, newest first; and
/// for each of their ids its shortest unique prefix among every session's ([`short_ids`]).
pub fn newest(
    dir: &Path,
    cwd: Option<&str>,
    limit: Option<usize>,
    keep: impl Fn(&IndexEntry) -> bool,
) -> Result<Newest, SessionError> {
    let mut report = RefreshReport::default();
    let Some(mut db) = db::Db::open(dir) else {
        return Ok((Vec::new(), std::collections::HashMap::new(), report));
    };
    db.ensure_built()?;
    let wanted = limit.unwrap_or(usize::MAX);
    let mut shown: Vec<IndexEntry> = Vec::new();
    let page = wanted.clamp(1, LISTING_PAGE);
    let mut after: Option<[String; 3]> = None;
    while shown.len() < wanted {
        let rows = db.newest_after(cwd, after.as_ref(), page);
        let Some(last) = rows.last() else {
            break;
        };
        after = Some(sort_key(last));
        for known in rows {
            if let Some(entry) = db.fresh(known)
                && keep(&entry)
            {
                shown.push(entry);
            }
        }
    }
    shown.sort_by(|left, right| {
        newest_first(&left.summary.updated, &left.summary.created, &left.file).cmp(&newest_first(
            &right.summary.updated,
            &right.summary.created,
            &right.file,
        ))
    });
    shown.truncate(wanted);
    let ids: Vec<&str> = shown
        .iter()
        .map(|entry| entry.summary.id.as_str())
        .collect();
    // A listing of every row has every id's neighbours in it already.
    let neighbours = if shown.len() == db.len() {
        Vec::new()
    } else {
        db.neighbour_ids(&ids)
    };
    let short: std::collections::HashMap<String, String> = short_ids(
        ids.iter()
            .copied()
            .chain(neighbours.iter().map(String::as_str)),
    )
    .into_iter()
    .map(|(id, short)| (id.to_owned(), short.to_owned()))
    .collect();
    report.rebuilt = db.rebuilt.clone();
    report.unsaved = db.unsaved.clone();
    Ok((shown, short, report))
}

/// How many rows a [`Listing`] reads at a time.
const LISTING_PAGE: usize = 256;

/// The key a row is sorted by newest first (`updated`, `created`, `file`), as the index's
/// columns hold it.
fn sort_key(entry: &IndexEntry) -> [String; 3] {
    [
        entry.summary.updated.clone(),
        entry.summary.created.clone(),
        entry.file.clone(),
    ]
}

/// The sessions of a sessions directory newest first, read from the index a page at a time
/// (`sessions list`): nothing holds every row, so a listing's memory does not grow with the
/// home, and each page starts where the last ended in the index's order.
pub struct Listing {
    db: Option<db::Db>,
    cwd: Option<String>,
    report: RefreshReport,
}

impl Listing {
    /// The listing of the sessions of `dir` (of the workspace `cwd`, of any with `None`). For
    /// a listing of `every` session, the rows whose files changed since they were read
    /// (another program appended a turn) are read again first, so that each comes at its place
    /// in the order; a listing of the newest few checks only the rows it shows, and costs the
    /// same in any home.
    pub fn open(dir: &Path, cwd: Option<&str>, every: bool) -> Result<Listing, SessionError> {
        let mut report = RefreshReport::default();
        let db = match db::Db::open(dir) {
            Some(mut db) => {
                db.ensure_built()?;
                if every {
                    db.changed_since_read(cwd);
                }
                report.rebuilt = db.rebuilt.clone();
                report.unsaved = db.unsaved.clone();
                Some(db)
            }
            None => None,
        };
        Ok(Listing {
            db,
            cwd: cwd.map(str::to_owned),
            report,
        })
    }

    /// What the index did when the listing opened it.
    pub fn report(&self) -> &RefreshReport {
        &self.report
    }

    /// Call `each` with the sessions `keep` keeps, at most `limit` (all with `None`), newest
    /// first, each checked against its file, and with its id's shortest unique prefix among
    /// every session's ([`short_ids`]); the first error of `each` ends the walk.
    pub fn each<E>(
        &mut self,
        limit: Option<usize>,
        keep: impl Fn(&IndexEntry) -> bool,
        mut each: impl FnMut(&IndexEntry, &str) -> Result<(), E>,
    ) -> Result<(), E> {
        let Some(db) = self.db.as_mut() else {
            return Ok(());
        };
        let mut left = limit.unwrap_or(usize::MAX);
        let mut after: Option<[String; 3]> = None;
        while left > 0 {
            let rows = db.newest_after(
                self.cwd.as_deref(),
                after.as_ref(),
                left.clamp(1, LISTING_PAGE),
            );
            let Some(last) = rows.last() else {
                break;
            };
            after = Some(sort_key(last));
            let mut page: Vec<IndexEntry> = rows
                .into_iter()
                .filter_map(|known| db.fresh(known))
                .filter(|entry| keep(entry))
                .collect();
            // A file changed since `open` read it again is newer than its row was.
            page.sort_by(|left, right| {
                newest_first(&left.summary.updated, &left.summary.created, &left.file).cmp(
                    &newest_first(&right.summary.updated, &right.summary.created, &right.file),
                )
            });
            page.truncate(left);
            left -= page.len();
            let ids: Vec<&str> = page.iter().map(|entry| entry.summary.id.as_str()).collect();
            let neighbours = db.neighbour_ids(&ids);
            let short = short_ids(
                ids.iter()
                    .copied()
                    .chain(neighbours.iter().map(String::as_str)),
            );
            for entry in &page {
                let id = entry.summary.id.as_str();
                each(entry, short.get(id).copied().unwrap_or(id))?;
            }
        }
        Ok(())
    }
}

/// A session the index says was last used before a prune's cutoff: what the prune needs of
/// its row to check the file before it removes it (the file is checked against these, and
/// read again when it changed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OldRow {
    /// File name inside the sessions directory.
    pub file: String,
    /// Size in bytes when summarized.
    pub size: u64,
    /// Modification time in nanoseconds since the epoch when summarized.
    pub mtime_ns: u64,
    /// Whether the file could not be fully read.
    pub damaged: bool,
    /// The session's last activity when summarized.
    pub updated: String,
    /// Its name, if it has one: what a busy session's error names it by.
    pub name: Option<String>,
}

impl OldRow {
    /// What a prune needs of `entry` (the command layer's tests build rows with it).
    pub fn of(entry: &IndexEntry) -> OldRow {
        OldRow {
            file: entry.file.clone(),
            size: entry.size,
            mtime_ns: entry.mtime_ns,
            damaged: entry.problem.is_some(),
            updated: entry.summary.updated.clone(),
            name: entry.summary.name.clone(),
        }
    }

    /// Whether this row describes the session file at `path` as it is now: the same size and
    /// mtime, and readable (as [`describes`]).
    pub fn describes(&self, path: &Path) -> bool {
        !self.damaged
            && std::fs::metadata(path)
                .is_ok_and(|metadata| file_stamp(&metadata) == (self.size, self.mtime_ns))
    }
}

/// The sessions of `dir` last used before `cutoff_ms` (milliseconds since the epoch), of the
/// workspace `cwd` (any with `None`), oldest first, as the rows say (the caller checks each
/// against its file before acting).
pub fn older_than(
    dir: &Path,
    cutoff_ms: i64,
    cwd: Option<&str>,
) -> Result<(Vec<OldRow>, RefreshReport), SessionError> {
    let mut report = RefreshReport::default();
    let Some(mut db) = db::Db::open(dir) else {
        return Ok((Vec::new(), report));
    };
    db.ensure_built()?;
    let rows = db.older_than(cutoff_ms, cwd);
    report.rebuilt = db.rebuilt.clone();
    report.unsaved = db.unsaved.clone();
    Ok((rows, report))
}

/// Update the index for one session file a command just wrote, created or removed, without
/// looking at the others (a run must not stat every session on its way out): its row is
/// summarized again from the appended entries when the file only grew, and dropped when the
/// file is gone.
pub fn update_one(dir: &Path, path: &Path) -> Result<(), SessionError> {
    let Some(name) = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
    else {
        return Ok(());
    };
    if path.parent() != Some(dir) {
        return Ok(());
    }
    let Some(mut db) = db::Db::open(dir) else {
        return Ok(());
    };
    if db.in_memory() || db.rebuilt.is_some() {
        // Nothing to keep up to date: the next command that needs the index builds it.
        return Ok(());
    }
    let known = db.row(&name);
    match check_file(known.as_ref(), path) {
        Freshness::Unchanged => {}
        Freshness::Updated(entry) => {
            let _ = db.put(&entry);
        }
        Freshness::Gone => {
            let _ = db.remove(&name);
        }
    }
    Ok(())
}

/// The index's entry for the session file at `path` of `dir`, without refreshing anything,
/// and only when it still describes the file (same size and mtime).
pub fn cached_entry(dir: &Path, path: &Path) -> Option<IndexEntry> {
    let parent = path.parent()?;
    let same_dir =
        parent == dir || std::fs::canonicalize(parent).ok()? == std::fs::canonicalize(dir).ok()?;
    if !same_dir || !dir.join(DB_FILE).exists() {
        return None;
    }
    let name = path.file_name()?.to_string_lossy().into_owned();
    let mut db = db::Db::open(dir)?;
    let entry = db.row(&name)?;
    describes(&entry, path).then_some(entry)
}

/// Every learned context window of `dir`, by `provider/model` (see `learned_windows`).
pub fn learned_windows(dir: &Path) -> Vec<(String, u64)> {
    if !dir.join(DB_FILE).exists() {
        return db::read_old_learned_windows(dir);
    }
    db::Db::open(dir)
        .map(|db| db.learned_windows())
        .unwrap_or_default()
}

/// The learned window of `model_ref` in `dir`.
pub fn learned_window(dir: &Path, model_ref: &str) -> Option<u64> {
    if !dir.join(DB_FILE).exists() {
        return db::read_old_learned_windows(dir)
            .into_iter()
            .find(|(model, _)| model == model_ref)
            .map(|(_, tokens)| tokens);
    }
    db::Db::open(dir)?.learned_window(model_ref)
}

/// Remember a learned window in the index database of `dir`.
pub fn remember_window(dir: &Path, model_ref: &str, tokens: u64) -> Result<(), SessionError> {
    let mut db = db::Db::open(dir).ok_or_else(|| SessionError::Io {
        action: "cannot open the session index in",
        path: dir.to_owned(),
        source: std::io::Error::from(std::io::ErrorKind::NotFound),
    })?;
    if db.in_memory() {
        return Err(SessionError::Io {
            action: "cannot write the session index in",
            path: dir.to_owned(),
            source: std::io::Error::other(db.unsaved.clone().unwrap_or_default()),
        });
    }
    db.remember_window(model_ref, tokens)
        .map_err(|error| SessionError::Io {
            action: "cannot write the session index in",
            path: dir.to_owned(),
            source: std::io::Error::other(error.to_string()),
        })
}

/// The `*.jsonl` files of the sessions directory, by name.
pub fn session_files(dir: &Path) -> Result<Vec<(String, PathBuf)>, SessionError> {
    let mut files: Vec<(String, PathBuf)> = session_file_names(dir)?
        .into_iter()
        .map(|name| {
            let path = dir.join(&name);
            (name, path)
        })
        .collect();
    files.sort();
    Ok(files)
}

/// The names of the `*.jsonl` files of the sessions directory, in directory order.
pub fn session_file_names(dir: &Path) -> Result<Vec<String>, SessionError> {
    let reader = std::fs::read_dir(dir).map_err(|source| SessionError::Io {
        action: "cannot list",
        path: dir.to_owned(),
        source,
    })?;
    Ok(reader
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| is_session_file_name(name))
        .collect())
}

/// Whether a file of the sessions directory is a session, by its name.
pub fn is_session_file_name(name: &str) -> bool {
    name.ends_with(".jsonl") && !name.starts_with('.')
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::{Value, json};
    use std::io::Write as _;

    const FILE: &str = "2026-01-01T00-00-00-000Z_s1.jsonl";

    #[test]
    fn a_stat_relative_to_the_directory_stamps_a_file_as_its_metadata_does() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE);
        std::fs::write(&path, "{}\n").unwrap();
        let link = dir.path().join("2026-01-01T00-00-00-000Z_link.jsonl");
        std::os::unix::fs::symlink(&path, &link).unwrap();
        let handle = std::fs::File::open(dir.path()).unwrap();
        for (name, path) in [
            (FILE, &path),
            ("2026-01-01T00-00-00-000Z_link.jsonl", &link),
        ] {
            let stat =
                nix::sys::stat::fstatat(&handle, name, nix::fcntl::AtFlags::empty()).unwrap();
            let stamp = file_stamp(&std::fs::metadata(path).unwrap());
            assert_eq!(stat_stamp(&stat), stamp, "{name}");
            assert_ne!(stamp.1, 0);
        }
    }

    fn entry(kind: &str, id: &str, parent: Option<&str>, fields: Value) -> String {
        let mut object = json!({"type": kind, "id": id, "parentId": parent,
            "timestamp": format!("2026-01-02T00:00:{:02}.000Z", id.len() * 3 % 60)});
        if let (Some(object), Value::Object(fields)) = (object.as_object_mut(), fields) {
            object.extend(fields);
        }
        object.to_string() + "\n"
    }

    fn user(id: &str, parent: Option<&str>) -> String {
        entry(
            "message",
            id,
            parent,
            json!({"message": {"role": "user", "content": format!("prompt {id}"), "timestamp": 1}}),
        )
    }

    fn assistant(id: &str, parent: &str, input: u64, stop: &str) -> String {
        entry(
            "message",
            id,
            Some(parent),
            json!({"message": {"role": "assistant", "content": [{"type": "text", "text": "answer"}],
                "api": "anthropic-messages", "provider": "anthropic", "model": "claude-sonnet-4-5",
                "usage": {"input": input, "output": 40, "cacheRead": 7, "cacheWrite": 0, "totalTokens": input + 47,
                    "cost": {"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0, "total": 0.25}},
                "stopReason": stop, "errorMessage": if stop == "error" { Some("boom") } else { None },
                "timestamp": 2}}),
        )
    }

    fn setup(lines: &[String]) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE);
        let header = r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#;
        std::fs::write(&path, format!("{header}\n{}", lines.concat())).unwrap();
        (dir, path)
    }

    fn append(path: &Path, lines: &[String]) {
        let mut file = std::fs::OpenOptions::new().append(true).open(path).unwrap();
        file.write_all(lines.concat().as_bytes()).unwrap();
    }

    fn refresh_and_compare(dir: &Path, path: &Path) -> IndexEntry {
        let (index, report) = refresh(dir).unwrap();
        assert_eq!(report.rescanned, 1);
        let merged = index.by_file(FILE).unwrap().clone();
        assert_eq!(merged, summarize_file(path).unwrap());
        merged
    }

    fn index_of(ids: &[&str]) -> Index {
        let mut index = Index::default();
        for id in ids {
            let entry = IndexEntry {
                file: format!("{id}.jsonl"),
                size: 0,
                mtime_ns: 0,
                problem: None,
                torn_tail: false,
                leaf: None,
                summary: SessionSummary {
                    id: (*id).to_owned(),
                    ..SessionSummary::default()
                },
            };
            index.sessions.insert(entry.file.clone(), entry);
        }
        index
    }

    #[test]
    fn a_summary_read_without_the_texts_equals_the_summary_of_the_whole_entries() {
        let named = entry(
            "session_info",
            "n1",
            Some("a1"),
            json!({"name": " weekly "}),
        );
        let child = entry(
            "custom",
            "c1",
            Some("n1"),
            json!({"customType": "pincer.claude-cli", "data": {"sessionId": "child-1"}}),
        );
        let compaction = entry(
            "compaction",
            "k1",
            Some("c1"),
            json!({"summary": "what happened", "firstKeptEntryId": "u1", "tokensBefore": 900}),
        );
        let lines = [
            user("u1", None),
            assistant("a1", "u1", 300, "stop"),
            named,
            child,
        ];
        for lines in [lines.to_vec(), [&lines[..], &[compaction]].concat()] {
            let (_dir, path) = setup(&lines);
            let text = std::fs::read_to_string(&path).unwrap();
            let full = summarize_lines(&text, false).unwrap();
            assert_eq!(summarize_clean(text.as_bytes()).unwrap(), full);
            let loaded = store::load(&path).unwrap();
            assert_eq!(full.0, summarize(&loaded.header, &loaded.entries));
            assert_eq!(full.0.name.as_deref(), Some("weekly"));
            assert_eq!(full.0.backend_sessions["claude-cli"], "child-1");
        }
    }

    /// Varied session files, each with whether the one-pass summary takes it alone (the rest
    /// are read into their entries, or left to the store).
    fn varied_sessions() -> Vec<(&'static str, String, bool)> {
        let header = |extra: &str| {
            format!(
                "{{\"type\":\"session\",\"version\":3,\"id\":\"s1\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/w\"{extra}}}\n"
            )
        };
        let plain = header("");
        let model = entry(
            "model_change",
            "m1",
            None,
            json!({"provider": "openai", "modelId": "gpt-5"}),
        );
        let thinking = entry(
            "thinking_level_change",
            "t1",
            Some("m1"),
            json!({"thinkingLevel": "high"}),
        );
        let tool_call = entry(
            "message",
            "a1",
            Some("u1"),
            json!({"message": {"role": "assistant", "content": [{"type": "thinking", "thinking": "hm", "thinkingSignature": "sig"},
                {"type": "toolCall", "id": "call_1", "name": "read", "arguments": {"path": "a.rs"}}],
                "api": "openai-responses", "provider": "openai", "model": "gpt-5",
                "usage": {"input": 1200, "output": 40, "cacheRead": 100, "cacheWrite": 0, "totalTokens": 1340,
                    "cost": {"input": 0.1, "output": 0.2, "cacheRead": 0.0, "cacheWrite": 0.0, "total": 0.30000000000000004}},
                "stopReason": "toolUse", "timestamp": 2}}),
        );
        let tool_result = entry(
            "message",
            "r1",
            Some("a1"),
            json!({"message": {"role": "toolResult", "toolCallId": "call_1", "toolName": "read",
                "content": [{"type": "text", "text": "fn main() {}"}, {"type": "image", "data": "aGk=", "mimeType": "image/png"}],
                "details": {"lines": 1}, "isError": false, "timestamp": 3}}),
        );
        let pincer_made = [
            model.clone(),
            thinking.clone(),
            user("u1", Some("t1")),
            tool_call.clone(),
            tool_result.clone(),
            assistant("a2", "r1", 1500, "stop"),
        ]
        .concat();
        // pi's own shapes: fields pincer does not know (`responseId`), other roles, an unknown
        // entry type, labels, custom messages, branch summaries.
        let pi_made = [
            user("u1", None),
            entry(
                "message",
                "a1",
                Some("u1"),
                json!({"message": {"role": "assistant", "content": [{"type": "text", "text": "hi"}],
                    "api": "anthropic-messages", "provider": "anthropic", "model": "claude-opus-4",
                    "usage": {"input": 10, "output": 2, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 12,
                        "cost": {"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0, "total": 0.001}},
                    "stopReason": "stop", "timestamp": 2, "responseId": "msg_1"}}),
            ),
            entry(
                "message",
                "x1",
                Some("a1"),
                json!({"message": {"role": "bashExecution", "command": "ls", "output": "a", "exitCode": 0, "timestamp": 3}}),
            ),
            entry("future_kind", "f1", Some("x1"), json!({"payload": [1, 2]})),
            entry(
                "label",
                "l1",
                Some("f1"),
                json!({"targetId": "a1", "label": "here"}),
            ),
            entry(
                "custom_message",
                "cm1",
                Some("l1"),
                json!({"customType": "note", "content": "remember", "display": true}),
            ),
            entry(
                "branch_summary",
                "bs1",
                Some("cm1"),
                json!({"fromId": "a1", "summary": "elsewhere", "details": null}),
            ),
            user("u2", Some("bs1")),
            assistant("a2", "u2", 30, "stop"),
        ]
        .concat();
        let compaction = |id: &str, parent: &str| {
            entry(
                "compaction",
                id,
                Some(parent),
                json!({"summary": "so far", "firstKeptEntryId": "u1", "tokensBefore": 1540, "details": {"readFiles": []}}),
            )
        };
        let compacted_last = [
            user("u1", None),
            assistant("a1", "u1", 1500, "stop"),
            compaction("c1", "a1"),
            user("u2", Some("c1")),
        ]
        .concat();
        let compacted_then_called = [
            user("u1", None),
            assistant("a1", "u1", 1500, "stop"),
            compaction("c1", "a1"),
            user("u2", Some("c1")),
            assistant("a2", "u2", 700, "stop"),
        ]
        .concat();
        let forked = [
            user("u1", None),
            assistant("a1", "u1", 1500, "stop"),
            user("b1", Some("u1")),
            assistant("b2", "b1", 20, "stop"),
        ]
        .concat();
        let name = |id: &str, parent: &str, name: Value| {
            entry("session_info", id, Some(parent), json!({ "name": name }))
        };
        let renamed = [
            user("u1", None),
            name("n1", "u1", json!(" weekly ")),
            assistant("a1", "n1", 10, "stop"),
            name("n2", "a1", json!("  ")),
            name("n3", "n2", json!("final")),
            name("n4", "n3", Value::Null),
            name("n5", "n4", json!("last \"one\"")),
        ]
        .concat();
        let backend = |id: &str, parent: &str, kind: &str, data: Value| {
            entry(
                "custom",
                id,
                Some(parent),
                json!({"customType": kind, "data": data}),
            )
        };
        let backends = [
            user("u1", None),
            backend(
                "k1",
                "u1",
                "pincer.claude-cli",
                json!({"sessionId": "claude-1"}),
            ),
            backend(
                "k2",
                "k1",
                "pincer.codex-cli",
                json!({"sessionId": "codex-1", "more": [1]}),
            ),
            backend(
                "k3",
                "k2",
                "pincer.claude-cli",
                json!({"sessionId": "claude-2"}),
            ),
            backend("k4", "k3", "pincer.gemini-cli", json!({"other": 1})),
            backend("k5", "k4", "someone.else", json!({"sessionId": "no"})),
            assistant("a1", "k5", 10, "stop"),
        ]
        .concat();
        let aborted = [
            user("u1", None),
            assistant("a1", "u1", 500, "stop"),
            user("u2", Some("a1")),
            assistant("a2", "u2", 0, "error"),
            user("u3", Some("a2")),
            assistant("a3", "u3", 0, "aborted"),
        ]
        .concat();
        let failed_last = [
            user("u1", None),
            assistant("a1", "u1", 500, "stop"),
            user("u2", Some("a1")),
            assistant("a2", "u2", 0, "error"),
        ]
        .concat();
        let repeated_id = [
            user("u1", None),
            assistant("a1", "u1", 500, "stop"),
            user("u1", Some("a1")),
        ]
        .concat();
        let clean = [user("u1", None), assistant("a1", "u1", 500, "stop")].concat();
        vec![
            ("pincer-made", format!("{plain}{pincer_made}"), true),
            ("pi-made", format!("{plain}{pi_made}"), true),
            (
                "compaction after the last call",
                format!("{plain}{compacted_last}"),
                false,
            ),
            (
                "compaction, then a call",
                format!("{plain}{compacted_then_called}"),
                true,
            ),
            ("fork inside the file", format!("{plain}{forked}"), false),
            ("renamed", format!("{plain}{renamed}"), true),
            ("backend sessions", format!("{plain}{backends}"), true),
            ("aborted last run", format!("{plain}{aborted}"), true),
            ("failed last run", format!("{plain}{failed_last}"), true),
            ("repeated id", format!("{plain}{repeated_id}"), false),
            (
                "forked from another file",
                format!(
                    "{}{clean}",
                    header(",\"parentSession\":\"/s/2026-01-01T00-00-00-000Z_s0.jsonl\"")
                ),
                true,
            ),
            ("header only", plain.clone(), true),
            (
                "dangling first parent",
                format!(
                    "{plain}{}{}",
                    user("u1", Some("gone")),
                    assistant("a1", "u1", 5, "stop")
                ),
                true,
            ),
            (
                "CRLF and blank lines",
                format!("{plain}\n{}\n", clean.replace('\n', "\r\n")),
                true,
            ),
            (
                "escaped ids",
                format!(
                    "{plain}{}{}",
                    user("u\\u0031", None).replace("u\\\\u0031", "u\\u0031"),
                    assistant("a1", "u1", 5, "stop")
                ),
                true,
            ),
            (
                "damaged line",
                format!(
                    "{plain}{}not json\n{}",
                    user("u1", None),
                    assistant("a1", "u1", 5, "stop")
                ),
                false,
            ),
            (
                "torn tail",
                format!("{plain}{clean}{{\"type\":\"mess"),
                false,
            ),
            (
                "damaged header",
                format!("{{\"type\":\"sess\n{clean}"),
                false,
            ),
            (
                "old version",
                format!("{}{clean}", plain.replace("\"version\":3", "\"version\":2")),
                false,
            ),
            (
                "first version",
                format!(
                    "{}{}",
                    plain.replace("\"version\":3,", ""),
                    "{\"type\":\"message\",\"timestamp\":\"2026-01-02T00:00:01.000Z\",\"message\":{\"role\":\"user\",\"content\":\"hi\",\"timestamp\":1}}\n"
                ),
                false,
            ),
            (
                "not UTF-8",
                format!("{plain}{clean}").replace("prompt", "pr\u{fffd}mpt"),
                false,
            ),
        ]
    }

    #[test]
    fn a_summary_made_in_one_pass_is_the_summary_of_the_loaded_entries() {
        for (what, text, streamed) in varied_sessions() {
            let (dir, path) = setup(&[]);
            let mut bytes = text.into_bytes();
            if what == "not UTF-8" {
                // A byte that is no UTF-8 inside a prompt: the store refuses the line.
                let at = bytes
                    .windows(3)
                    .position(|window| window == "\u{fffd}".as_bytes())
                    .unwrap();
                bytes.splice(at..at + 3, [0xff]);
            }
            std::fs::write(&path, &bytes).unwrap();
            let new = summarize_file(&path).unwrap();
            // The same entry, read in the file's directory as a rebuild reads it.
            let handle = std::fs::File::open(dir.path()).unwrap();
            assert_eq!(
                summarize_file_in(Some(&handle), &path).unwrap(),
                new,
                "{what}"
            );
            match store::load(&path) {
                Ok(loaded) => {
                    assert_eq!(new.problem, None, "{what}");
                    assert_eq!(
                        new.summary,
                        summarize(&loaded.header, &loaded.entries),
                        "{what}"
                    );
                    assert_eq!(new.torn_tail, loaded.torn.is_some(), "{what}");
                    let leaf = (!loaded.needs_migration() && loaded.torn.is_none())
                        .then(|| loaded.leaf_id().map(str::to_owned))
                        .flatten();
                    assert_eq!(new.leaf, leaf, "{what}");
                }
                Err(error) => {
                    assert_eq!(new.problem, Some(error.to_string()), "{what}");
                    assert_eq!(new.summary, summarize_damaged(&path, &bytes), "{what}");
                }
            }
            let text = std::str::from_utf8(&bytes).ok();
            let one_pass = text.map(summarize_streaming);
            match one_pass {
                Some(Streamed::Summary(summarized)) => {
                    assert!(streamed, "{what}: summarized in one pass");
                    let text = text.unwrap();
                    assert_eq!(Some(summarized), summarize_lines(text, false), "{what}");
                }
                _ => assert!(!streamed, "{what}: not summarized in one pass"),
            }
        }
    }

    #[test]
    fn short_ids_are_the_shortest_unique_prefixes_of_at_least_eight_characters() {
        let index = index_of(&[
            "0199a000-1111-7000-8000-000000000001",
            "0199a000-1234-7000-8000-000000000002",
            "0199A000-2222-7000-8000-000000000003",
            "0199b000-0000-7000-8000-000000000004",
            "",
        ]);
        let short = index.short_ids();
        assert_eq!(short.len(), 4);
        assert_eq!(short["0199a000-1111-7000-8000-000000000001"], "0199a000-11");
        assert_eq!(short["0199a000-1234-7000-8000-000000000002"], "0199a000-12");
        // Never ending in the dash, and case does not make a prefix unique.
        assert_eq!(short["0199A000-2222-7000-8000-000000000003"], "0199A000-2");
        assert_eq!(short["0199b000-0000-7000-8000-000000000004"], "0199b000");
        for (id, prefix) in &short {
            match index.find(prefix) {
                Lookup::One(entry) => assert_eq!(entry.summary.id, *id),
                other => panic!("{prefix}: {other:?}"),
            }
        }
    }

    #[test]
    fn appended_entries_merge_into_the_cached_summary_as_a_full_summary_says() {
        let (dir, path) = setup(&[user("u1", None), assistant("a1", "u1", 1000, "stop")]);
        let first = refresh_and_compare(dir.path(), &path);
        assert_eq!(first.leaf.as_deref(), Some("a1"));

        append(
            &path,
            &[user("u2", Some("a1")), assistant("a2", "u2", 2000, "stop")],
        );
        let merged = refresh_and_compare(dir.path(), &path);
        assert_eq!(merged.summary.turns, 2);
        assert_eq!(merged.summary.context_tokens, Some(2047));

        // A compaction after the last call: the context is estimated from the rebuilt context.
        append(
            &path,
            &[entry(
                "compaction",
                "c1",
                Some("a2"),
                json!({"summary": "all so far", "firstKeptEntryId": "u2", "tokensBefore": 2047}),
            )],
        );
        let merged = refresh_and_compare(dir.path(), &path);
        assert!(merged.summary.context_estimated);

        // Still after the compaction (a prompt, then a failed call): estimated again.
        append(
            &path,
            &[user("u3", Some("c1")), assistant("a3", "u3", 0, "error")],
        );
        let merged = refresh_and_compare(dir.path(), &path);
        assert!(merged.summary.context_estimated);
        assert!(merged.summary.last_run_aborted);
        assert_eq!(merged.summary.last_error.as_deref(), Some("boom"));

        // Settings, a name, a backend session id, then a successful call.
        append(
            &path,
            &[
                entry(
                    "model_change",
                    "m1",
                    Some("a3"),
                    json!({"provider": "openai", "modelId": "gpt-5"}),
                ),
                entry(
                    "thinking_level_change",
                    "t1",
                    Some("m1"),
                    json!({"thinkingLevel": "low"}),
                ),
                entry("session_info", "n1", Some("t1"), json!({"name": "renamed"})),
                entry(
                    "custom",
                    "k1",
                    Some("n1"),
                    json!({"customType": "pincer.claude-cli", "data": {"sessionId": "cli-1"}}),
                ),
                user("u4", Some("k1")),
                assistant("a4", "u4", 3000, "stop"),
            ],
        );
        let merged = refresh_and_compare(dir.path(), &path);
        assert_eq!(merged.summary.name.as_deref(), Some("renamed"));
        assert_eq!(merged.summary.thinking_level.as_deref(), Some("low"));
        assert!(!merged.summary.context_estimated);
        assert_eq!(merged.summary.entries, 13);
        assert_eq!(merged.leaf.as_deref(), Some("a4"));
    }

    #[test]
    fn only_the_appended_bytes_are_read_again() {
        let (dir, path) = setup(&[user("u1", None), assistant("a1", "u1", 1000, "stop")]);
        refresh(dir.path()).unwrap();
        // Change an old usage in place, same length: a full summary would see 9000.
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replace("\"input\":1000", "\"input\":9000")).unwrap();
        append(
            &path,
            &[user("u2", Some("a1")), assistant("a2", "u2", 10, "stop")],
        );
        let (index, _) = refresh(dir.path()).unwrap();
        let merged = index.by_file(FILE).unwrap();
        assert_eq!(merged.summary.cumulative_usage().input, 1010);
        assert_eq!(
            summarize_file(&path)
                .unwrap()
                .summary
                .cumulative_usage()
                .input,
            9010
        );
    }

    #[test]
    fn a_branch_from_an_older_entry_or_a_torn_tail_is_summarized_in_full() {
        let (dir, path) = setup(&[user("u1", None), assistant("a1", "u1", 1000, "stop")]);
        refresh(dir.path()).unwrap();
        append(&path, &[user("b1", Some("u1"))]);
        let merged = refresh_and_compare(dir.path(), &path);
        assert_eq!(merged.summary.turns, 2, "u1 and b1 on the new branch");
        assert_eq!(merged.summary.last_usage, None, "a1 is off the branch");

        append(&path, &["{\"type\":\"mess".to_owned()]);
        let merged = refresh_and_compare(dir.path(), &path);
        assert!(merged.torn_tail);
        assert_eq!(merged.leaf, None);
    }

    #[test]
    fn the_one_parse_summary_of_a_clean_file_equals_the_stores_and_damaged_files_are_left_to_the_store()
     {
        let (_dir, path) = setup(&[
            user("u1", None),
            assistant("a1", "u1", 1000, "stop"),
            entry("session_info", "n1", Some("a1"), json!({"name": "named"})),
            user("u2", Some("n1")),
            assistant("a2", "u2", 0, "error"),
        ]);
        let bytes = std::fs::read(&path).unwrap();
        let loaded = store::load(&path).unwrap();
        let (summary, leaf) = summarize_clean(&bytes).unwrap();
        assert_eq!(summary, summarize(&loaded.header, &loaded.entries));
        assert_eq!(summary.name.as_deref(), Some("named"));
        assert_eq!(leaf.as_deref(), Some("a2"));

        let mut torn = bytes.clone();
        torn.extend_from_slice(b"{\"type\":\"mess");
        assert_eq!(summarize_clean(&torn), None);
        let old_version =
            String::from_utf8(bytes.clone())
                .unwrap()
                .replacen("\"version\":3", "\"version\":2", 1);
        assert_eq!(summarize_clean(old_version.as_bytes()), None);
        let corrupt = String::from_utf8(bytes)
            .unwrap()
            .replacen("}\n{", "}\nnot json\n{", 1);
        assert_eq!(summarize_clean(corrupt.as_bytes()), None);
        std::fs::write(&path, &corrupt).unwrap();
        let damaged = summarize_file(&path).unwrap();
        assert!(
            damaged
                .problem
                .as_deref()
                .is_some_and(|problem| problem.contains("line 2")),
            "the store reports the bad line: {:?}",
            damaged.problem
        );
        assert_eq!(damaged.summary.id, "s1");
    }
}
