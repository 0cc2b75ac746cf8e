//! `<sessions>/index.json`: a cache of every session's summary, so that `list`, lookups by name
//! or prefix and `status` do not read every file (SPEC §5.2).
//!
//! The index is only a cache. The session files are the truth: an entry is trusted only while the
//! file's size and modification time match what was recorded; a missing, stale or unreadable index
//! is rebuilt from the files. It is rewritten atomically under its own lock
//! (`index.json.lock`); when another process holds that lock for long, this process computes the
//! same answer in memory and leaves the file alone.
//!
//! A command that wrote one session does not rewrite the whole index (10 MB for 10,000
//! sessions): [`update_one`] appends that file's new entry, or its removal, as one line to a
//! journal beside it (`.index.journal`, under the same lock). Every reader applies the journal's
//! lines over `index.json` in order; a full rewrite of `index.json` folds them in and removes the
//! journal, which also happens once it grows past [`JOURNAL_MAX_LINES`] or
//! [`JOURNAL_MAX_BYTES`]. `index.json` keeps its format: an older pincer ignores the journal and
//! its size-and-mtime check summarizes again what the journal knew.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, UNIX_EPOCH};

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Serialize};

use super::record::{Line, parse_line};
use super::store::{self, SessionError};
use super::summary::{self, SessionSummary, summarize};
use super::{context, tail};
use crate::fs::{self as pfs, FileLock};

/// File name of the index inside the sessions directory.
pub const INDEX_FILE: &str = "index.json";
/// Bumped when the cached summary changes shape; an index of another version is rebuilt.
pub const INDEX_VERSION: u32 = 1;
/// How long to wait for another process that is updating the index.
const INDEX_LOCK_WAIT: Duration = Duration::from_secs(5);
/// File name of the journal of single-session updates inside the sessions directory. It starts
/// with a dot, like the store's temporary files, so that a listing of the directory (and a check
/// for stray files) still shows only sessions, `index.json` and locks.
pub const JOURNAL_FILE: &str = ".index.journal";
/// A journal with more lines than this is folded into `index.json`: every reader parses all of
/// it, so it must stay small next to the index.
pub const JOURNAL_MAX_LINES: usize = 1_000;
/// A journal bigger than this is folded into `index.json` (an entry is about 1 KB).
pub const JOURNAL_MAX_BYTES: usize = 1 << 20;

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

/// Reads the `sessions` object into a list first and builds the map from it in one go: the
/// index is written in key order, so that is a linear build instead of one search per entry
/// among long file names that share their first twenty bytes.
fn sessions_in_order<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<BTreeMap<String, IndexEntry>, D::Error> {
    struct Entries;

    impl<'de> Visitor<'de> for Entries {
        type Value = Vec<(String, IndexEntry)>;

        fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
            formatter.write_str("sessions by file name")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(0));
            while let Some(entry) = map.next_entry()? {
                entries.push(entry);
            }
            Ok(entries)
        }
    }

    // `collect` sorts (linear on sorted input) and keeps the last of equal keys, as inserting
    // one by one would.
    Ok(deserializer.deserialize_map(Entries)?.into_iter().collect())
}

/// The whole index.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Index {
    /// Format version of this cache.
    pub version: u32,
    /// Entries keyed by file name.
    #[serde(deserialize_with = "sessions_in_order")]
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
    let lower = |id: &'a str| id.bytes().map(|byte| byte.to_ascii_lowercase());
    let mut ids: Vec<&str> = ids.filter(|id| !id.is_empty()).collect();
    ids.sort_unstable_by(|left, right| lower(left).cmp(lower(right)).then_with(|| left.cmp(right)));
    ids.dedup_by(|right, left| right.eq_ignore_ascii_case(left));
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

fn file_stamp(metadata: &std::fs::Metadata) -> (u64, u64) {
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
    let metadata = std::fs::metadata(path).map_err(|source| SessionError::Io {
        action: "cannot stat",
        path: path.to_owned(),
        source,
    })?;
    let (size, mtime_ns) = file_stamp(&metadata);
    let file = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut entry = IndexEntry {
        file,
        size,
        mtime_ns,
        problem: None,
        torn_tail: false,
        leaf: None,
        summary: SessionSummary::default(),
    };
    // Most files are clean and current: one parse per line is enough. Anything else (an older
    // version, a torn or corrupt line) goes through the store's tolerant loader.
    let bytes = std::fs::read(path).ok();
    if let Some((summary, leaf)) = bytes.as_deref().and_then(summarize_clean) {
        entry.summary = summary;
        entry.leaf = leaf;
        return Ok(entry);
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
            entry.summary = summarize_damaged(path, bytes.as_deref().unwrap_or_default());
        }
    }
    Ok(entry)
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
/// Each line is read for the summary only ([`super::record_fast::parse_entry_for_summary`]:
/// texts are checked, not kept), unless the summary must rebuild the context to estimate it
/// (a compaction after the last reported usage): then the file is read again in full.
fn summarize_clean(bytes: &[u8]) -> Option<(SessionSummary, Option<String>)> {
    let text = std::str::from_utf8(bytes).ok()?;
    if !text.ends_with('\n') {
        return None;
    }
    let summarized = summarize_lines(text, true)?;
    if summarized.0.context_estimated {
        return summarize_lines(text, false);
    }
    Some(summarized)
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

/// The index's entry for the session file at `path`, read from the journal and `index.json` in
/// `dir` without refreshing anything, and only when it still describes the file (same size and
/// mtime). Other sessions' entries are not parsed, so this stays cheap for big indexes.
pub fn cached_entry(dir: &Path, path: &Path) -> Option<IndexEntry> {
    let parent = path.parent()?;
    let same_dir =
        parent == dir || std::fs::canonicalize(parent).ok()? == std::fs::canonicalize(dir).ok()?;
    if !same_dir {
        return None;
    }
    let name = path.file_name()?.to_string_lossy().into_owned();
    let entry = lookup(dir, &name, &Journal::read(dir))?;
    let (size, mtime_ns) = file_stamp(&std::fs::metadata(path).ok()?);
    (entry.size == size && entry.mtime_ns == mtime_ns && entry.problem.is_none()).then_some(entry)
}

/// The entry of `name` as the journal (its newest line about it) or else `index.json` says.
fn lookup(dir: &Path, name: &str, journal: &Journal) -> Option<IndexEntry> {
    match journal.lookup(name) {
        Some(found) => found,
        None => stored_entry(&std::fs::read(dir.join(INDEX_FILE)).ok()?, name),
    }
}

/// `index.json` and its journal, for a lookup that must not parse or refresh the whole index
/// (`resume ID|NAME` in a home of 10,000 sessions, SPEC §12.1): one pass over the index's bytes
/// notes which files it knows and which entries may carry the name looked for, and only the
/// entries asked for are parsed, from the file. Valid only for an index laid out as pincer
/// writes it (compact, version first, every entry an object whose first key is `file`);
/// [`IndexText::read`] gives `None` otherwise.
pub struct IndexText {
    path: PathBuf,
    journal: Journal,
    /// Where each entry's object starts in `index.json`, by file name, in file order.
    entries: Vec<(String, u64)>,
    /// `"name":` followed by the name looked for, as JSON.
    needle: String,
    /// Where `needle` occurs in `index.json`.
    name_hits: Vec<u64>,
}

/// The session files of a directory, as [`IndexText::listing`] found them.
#[derive(Debug, PartialEq, Eq)]
pub enum Listing {
    /// Exactly the files `index.json` and its journal know.
    Known,
    /// The directory as read, by name.
    Read(Vec<String>),
}

/// Every entry object of the index, and every journal line, starts with this: inside a JSON
/// string a quote is escaped, so the bytes can only be an object whose first key is `file`.
const ENTRY_START: &[u8] = b"{\"file\":";

/// How much of `index.json` [`IndexText::read`] holds at a time: reading a 10 MB index into one
/// buffer would cost a page fault for every 4 KB of it.
const SCAN_CHUNK: usize = 256 * 1024;

impl IndexText {
    /// Read the index of `dir`, noting the entries that may name a session `name`; `None`
    /// when it is missing, of another version or laid out otherwise (then only a [`refresh`]
    /// gives the answer).
    pub fn read(dir: &Path, name: &str) -> Option<IndexText> {
        use std::io::Read as _;
        let path = dir.join(INDEX_FILE);
        let mut file = std::fs::File::open(&path).ok()?;
        let needle = format!("\"name\":{}", serde_json::to_string(name).ok()?);
        let entry_finder = memchr::memmem::Finder::new(ENTRY_START);
        let name_finder = memchr::memmem::Finder::new(needle.as_bytes());
        // Bytes kept from one chunk for the next: a match may start near a chunk's end, and
        // the file name after an entry's start must be whole to be read.
        let keep = (needle.len() + 1).max(4096);
        let head = index_head();
        let (mut entries, mut name_hits) = (Vec::new(), Vec::new());
        let mut buffer: Vec<u8> = Vec::with_capacity(SCAN_CHUNK + keep);
        // The offset in the file of `buffer[0]`.
        let mut base = 0u64;
        loop {
            let filled = buffer.len();
            buffer.resize(filled + SCAN_CHUNK, 0);
            let read = file.read(&mut buffer[filled..]).ok()?;
            buffer.truncate(filled + read);
            let end = read == 0;
            if base == 0
                && (buffer.len() >= head.len() || end)
                && !buffer.starts_with(head.as_bytes())
            {
                return None;
            }
            // Matches that start before `limit` are taken now; the others come again with the
            // bytes after them.
            let limit = if end {
                buffer.len()
            } else {
                buffer.len().saturating_sub(keep)
            };
            for position in entry_finder.find_iter(&buffer).take_while(|&at| at < limit) {
                let mut names =
                    serde_json::Deserializer::from_slice(&buffer[position + ENTRY_START.len()..])
                        .into_iter::<String>();
                entries.push((names.next()?.ok()?, base + position as u64));
            }
            name_hits.extend(
                name_finder
                    .find_iter(&buffer)
                    .take_while(|&at| at < limit)
                    .map(|at| base + at as u64),
            );
            if end {
                break;
            }
            buffer.drain(..limit);
            base += limit as u64;
        }
        Some(IndexText {
            path,
            journal: Journal::read(dir),
            entries,
            needle,
            name_hits,
        })
    }

    /// The file names the index and its journal know (the journal's lines applied in order).
    pub fn files(&self) -> std::collections::HashSet<&str> {
        let mut files: std::collections::HashSet<&str> =
            self.entries.iter().map(|(file, _)| file.as_str()).collect();
        for (file, removal) in self.journal.lines().filter_map(journal_line_head) {
            if removal {
                files.remove(file);
            } else {
                files.insert(file);
            }
        }
        files
    }

    /// The session files of `dir`: [`Listing::Known`] (those [`IndexText::files`] gives,
    /// `known`) while the journal vouches for the directory as it stands ([`ListingTimes`]),
    /// else the directory as read now. A directory that held exactly the known files, and had
    /// stood unchanged for a moment, is vouched for in the journal, so that the next reader
    /// need not read it. `None` when it cannot be read.
    pub fn listing(&self, dir: &Path, known: &std::collections::HashSet<&str>) -> Option<Listing> {
        let now = std::time::SystemTime::now();
        let before = ListingTimes::of(dir);
        if before.is_some() && before == self.journal.listing() {
            return Some(Listing::Known);
        }
        let names = session_file_names(dir).ok()?;
        if let Some(times) = before
            && times.settled(now)
            && names.len() == known.len()
            && names.iter().all(|name| known.contains(name.as_str()))
            && ListingTimes::of(dir) == Some(times)
        {
            let line = ListingLine {
                listing: times,
                version: INDEX_VERSION,
            };
            // Best effort, and never creating the journal (that would change the directory):
            // when it cannot be written, the next reader lists the directory too.
            let _ = self.journal.append(dir, &line, false);
        }
        Some(Listing::Read(names))
    }

    /// The entry of `file` as the journal's newest line about it, or else `index.json`, says
    /// (`None` too when `index.json` changed since it was read).
    pub fn entry(&self, file: &str) -> Option<IndexEntry> {
        use std::io::Seek as _;
        if let Some(found) = self.journal.lookup(file) {
            return found;
        }
        let (_, position) = self.entries.iter().find(|(known, _)| known == file)?;
        let mut reader = std::io::BufReader::new(std::fs::File::open(&self.path).ok()?);
        reader.seek(std::io::SeekFrom::Start(*position)).ok()?;
        let mut deserializer = serde_json::Deserializer::from_reader(reader);
        IndexEntry::deserialize(&mut deserializer)
            .ok()
            .filter(|entry| entry.file == file)
    }

    /// The files whose entry, in `index.json` or in a journal line, may give the session the
    /// name [`IndexText::read`] was given (a superset: the caller reads each entry and checks).
    pub fn named(&self) -> Vec<String> {
        let mut files: Vec<String> = self
            .name_hits
            .iter()
            .filter_map(|&hit| {
                let after = self.entries.partition_point(|(_, start)| *start < hit);
                after
                    .checked_sub(1)
                    .map(|index| self.entries[index].0.clone())
            })
            .collect();
        files.extend(
            self.journal
                .lines()
                .filter(|line| line.contains(&self.needle))
                .filter_map(journal_line_head)
                .map(|(file, _)| file.to_owned()),
        );
        files.sort();
        files.dedup();
        files
    }
}

/// The file a journal line is about, and whether it removes it, read from its first field
/// without parsing the line.
fn journal_line_head(line: &str) -> Option<(&str, bool)> {
    let rest = line.strip_prefix("{\"file\":\"")?;
    let end = rest.find('"')?;
    let file = &rest[..end];
    // A name with an escape in it is not one pincer's file names have.
    if file.contains('\\') {
        return None;
    }
    Some((file, !line.contains(",\"entry\":{")))
}

/// Whether `entry` describes the session file at `path` as it is now: the same size and mtime,
/// and readable.
pub fn describes(entry: &IndexEntry, path: &Path) -> bool {
    std::fs::metadata(path)
        .is_ok_and(|metadata| file_stamp(&metadata) == (entry.size, entry.mtime_ns))
        && entry.problem.is_none()
}

/// The entry of the session file at `path` as it is now: `known` when the file still has the
/// size and mtime it recorded, else the file read again (only the appended part when it only
/// grew, as [`refresh`] does); `None` when the file is gone.
pub fn fresh_entry(known: Option<&IndexEntry>, path: &Path) -> Option<IndexEntry> {
    match check_file(known, path) {
        Freshness::Unchanged => known.cloned(),
        Freshness::Updated(entry) => Some(*entry),
        Freshness::Gone => None,
    }
}

/// Deserializes an [`Index`] into the one entry named `name`, skipping the others.
struct OneSession<'a> {
    name: &'a str,
}

impl<'de> DeserializeSeed<'de> for OneSession<'_> {
    type Value = Option<IndexEntry>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for OneSession<'_> {
    type Value = Option<IndexEntry>;

    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        formatter.write_str("a session index")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut version = None;
        let mut found = None;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "version" => version = Some(map.next_value::<u32>()?),
                "sessions" => found = map.next_value_seed(SessionsMap { name: self.name })?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(found.filter(|_| version == Some(INDEX_VERSION)))
    }
}

/// The `sessions` object of the index, from which only `name` is kept.
struct SessionsMap<'a> {
    name: &'a str,
}

impl<'de> DeserializeSeed<'de> for SessionsMap<'_> {
    type Value = Option<IndexEntry>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for SessionsMap<'_> {
    type Value = Option<IndexEntry>;

    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        formatter.write_str("sessions by file name")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut found = None;
        while let Some(key) = map.next_key::<String>()? {
            if key == self.name {
                found = Some(map.next_value::<IndexEntry>()?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(found)
    }
}

/// One line of the journal: the entry of `file` as a command left it, or its removal (no
/// `entry`). `file` comes first so that a reader looking for one file can skip the other lines
/// without parsing them; `version` is the index's, and lines of another version are ignored.
#[derive(Debug, Serialize, Deserialize)]
struct JournalLine {
    file: String,
    version: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    entry: Option<IndexEntry>,
}

impl JournalLine {
    /// A line as read, when it is whole, of this index version and consistent.
    fn parse(line: &str) -> Option<JournalLine> {
        serde_json::from_str::<JournalLine>(line)
            .ok()
            .filter(|parsed| {
                parsed.version == INDEX_VERSION
                    && parsed
                        .entry
                        .as_ref()
                        .is_none_or(|entry| entry.file == parsed.file)
            })
    }
}

/// The journal's text as read under the lock (or without it, by a reader).
struct Journal {
    text: String,
    /// The length of `text` up to the end of its last whole line: a crash in the middle of an
    /// append leaves a torn last line, which is not applied.
    whole: usize,
}

impl Journal {
    /// Read the journal of `dir`; a missing or unreadable one is empty.
    fn read(dir: &Path) -> Journal {
        let bytes = std::fs::read(dir.join(JOURNAL_FILE)).unwrap_or_default();
        // Only a torn line can hold broken UTF-8 (each append writes whole lines).
        let text = String::from_utf8(bytes)
            .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned());
        let whole = text.rfind('\n').map_or(0, |position| position + 1);
        Journal { text, whole }
    }

    fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// Whether the last line is torn, so that the next append must start a new line.
    fn torn(&self) -> bool {
        self.whole < self.text.len()
    }

    /// The whole lines, oldest first.
    fn lines(&self) -> impl DoubleEndedIterator<Item = &str> {
        self.text[..self.whole]
            .split('\n')
            .filter(|line| !line.is_empty())
    }

    /// Whether the journal should be folded into `index.json` (counting torn and bad lines too).
    fn too_long(&self) -> bool {
        self.text.len() > JOURNAL_MAX_BYTES
            || self.text.bytes().filter(|byte| *byte == b'\n').count() > JOURNAL_MAX_LINES
    }

    /// Apply every line over `index`, in order.
    fn apply(&self, index: &mut Index) {
        for line in self.lines().filter_map(JournalLine::parse) {
            match line.entry {
                Some(entry) => {
                    index.sessions.insert(line.file, entry);
                }
                None => {
                    index.sessions.remove(&line.file);
                }
            }
        }
    }

    /// What the newest line about `name` says: `Some(Some(entry))`, `Some(None)` for a removal,
    /// `None` when no line names it. Only lines that start with the file's name are parsed.
    fn lookup(&self, name: &str) -> Option<Option<IndexEntry>> {
        let prefix = format!("{{\"file\":{},", serde_json::to_string(name).ok()?);
        self.lines()
            .rev()
            .filter(|line| line.starts_with(&prefix))
            .find_map(JournalLine::parse)
            .map(|line| line.entry)
    }

    /// The directory times of the newest [`ListingTimes`] line, when there is one.
    fn listing(&self) -> Option<ListingTimes> {
        self.lines()
            .rev()
            .filter(|line| line.starts_with(LISTING_START))
            .find_map(|line| serde_json::from_str::<ListingLine>(line).ok())
            .filter(|line| line.version == INDEX_VERSION)
            .map(|line| line.listing)
    }

    /// Append one line in a single write to the end of the file (`O_APPEND`), so that a crash
    /// leaves at most a torn last line; with `create` false, only to a journal that exists. No
    /// fsync: this is a cache whose every entry is checked against its file's size and mtime
    /// before use, so a line lost to a power cut only means that file is summarized again.
    fn append<T: Serialize>(&self, dir: &Path, line: &T, create: bool) -> Result<(), SessionError> {
        use std::io::Write as _;
        let path = dir.join(JOURNAL_FILE);
        let mut bytes = Vec::with_capacity(1024);
        if self.torn() {
            // End the torn line, so that it stays one bad line instead of spoiling this one.
            bytes.push(b'\n');
        }
        serde_json::to_writer(&mut bytes, line)
            .map_err(|error| SessionError::Serialize(error.to_string()))?;
        bytes.push(b'\n');
        let io_error = |source| SessionError::Io {
            action: "cannot append to the session index journal",
            path: path.clone(),
            source,
        };
        let mut file = std::fs::OpenOptions::new()
            .create(create)
            .append(true)
            .open(&path)
            .map_err(io_error)?;
        file.write_all(&bytes).map_err(io_error)
    }
}

/// The sessions directory's change and modification times (nanoseconds since the epoch) at a
/// moment its session files were exactly the ones `index.json` and its journal know.
///
/// A reader that had to list the directory and found just those files appends this to the
/// journal, as a line of its own (`{"listing":{…},"version":1}`; an older pincer skips it as a
/// line it cannot read). A later reader that finds the directory's times unchanged takes the
/// known files as the listing instead of reading ten thousand names again (about 4 ms here,
/// SPEC §12.1). Adding, removing or renaming a file in a directory updates its times (POSIX),
/// and nobody can set a change time back, so a file added since, by pincer or anything else,
/// makes the line stale, and the next reader lists the directory again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListingTimes {
    ctime_ns: u64,
    mtime_ns: u64,
}

/// Every [`ListingTimes`] line of the journal starts with this.
const LISTING_START: &str = "{\"listing\":";

/// How long the directory must have stood unchanged before a listing of it is vouched for,
/// on a filesystem with sub-millisecond times: a change right after the listing could have
/// been given the same times by a clock that ticks once a jiffy (up to 10 ms).
const LISTING_SETTLE_FINE: Duration = Duration::from_millis(20);
/// The same on a filesystem whose times have no sub-millisecond part (FAT keeps two seconds).
const LISTING_SETTLE_COARSE: Duration = Duration::from_secs(3);

/// A [`ListingTimes`] as the journal holds it.
#[derive(Serialize, Deserialize)]
struct ListingLine {
    listing: ListingTimes,
    version: u32,
}

impl ListingTimes {
    /// The times of the directory `dir` now.
    fn of(dir: &Path) -> Option<ListingTimes> {
        use std::os::unix::fs::MetadataExt as _;
        let metadata = std::fs::metadata(dir).ok()?;
        let nanos = |seconds: i64, nanos: i64| {
            u64::try_from(seconds)
                .ok()?
                .checked_mul(1_000_000_000)?
                .checked_add(u64::try_from(nanos).ok()?)
        };
        Some(ListingTimes {
            ctime_ns: nanos(metadata.ctime(), metadata.ctime_nsec())?,
            mtime_ns: nanos(metadata.mtime(), metadata.mtime_nsec())?,
        })
    }

    /// Whether, at `now`, the directory has stood unchanged long enough since these times
    /// that nothing changed in it since can carry the same times.
    fn settled(&self, now: std::time::SystemTime) -> bool {
        let Some(now) = now
            .duration_since(UNIX_EPOCH)
            .ok()
            .and_then(|since| u64::try_from(since.as_nanos()).ok())
        else {
            return false;
        };
        let latest = self.ctime_ns.max(self.mtime_ns);
        let settle = if latest.is_multiple_of(1_000_000) {
            LISTING_SETTLE_COARSE
        } else {
            LISTING_SETTLE_FINE
        };
        now.saturating_sub(latest) >= settle.as_nanos() as u64
    }
}

/// What the journal of `dir` says over `index.json`, for a reader that applies it itself: the
/// newest line about each file, its entry or `None` for a removal. `None` when the journal is
/// due to be folded into `index.json` (only a [`refresh`] does that).
pub(super) fn journal_overrides(dir: &Path) -> Option<BTreeMap<String, Option<IndexEntry>>> {
    let journal = Journal::read(dir);
    if journal.too_long() {
        return None;
    }
    Some(
        journal
            .lines()
            .filter_map(JournalLine::parse)
            .map(|line| (line.file, line.entry))
            .collect(),
    )
}

/// The session files of `dir` by name, each with its size and mtime as the index records them
/// (stat'ed relative to the directory); `None` when the directory cannot be read or a file
/// went away while it was listed.
pub(super) fn file_stamps(dir: &Path) -> Option<Vec<(String, (u64, u64))>> {
    let handle = std::fs::File::open(dir).ok()?;
    let mut stamps = session_file_names(dir)
        .ok()?
        .into_iter()
        .map(|name| stamp_in(&handle, &name).map(|stamp| (name, stamp)))
        .collect::<Option<Vec<_>>>()?;
    stamps.sort_unstable_by(|left, right| left.0.cmp(&right.0));
    Some(stamps)
}

/// Remove the journal after its lines went into a rewritten `index.json`.
fn remove_journal(dir: &Path) -> Result<(), SessionError> {
    let path = dir.join(JOURNAL_FILE);
    match std::fs::remove_file(&path) {
        Ok(()) => Ok(()),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(SessionError::Io {
            action: "cannot remove the session index journal",
            path,
            source,
        }),
    }
}

/// The first bytes of an `index.json` of this version as pincer writes it.
fn index_head() -> String {
    format!("{{\"version\":{INDEX_VERSION},\"sessions\":{{")
}

/// The entry named `name` in the text of `index.json`, parsing only that entry when the index
/// is laid out as pincer writes it (compact, version first): the key `"<name>":` is searched
/// for, which is much cheaper than tokenizing 10 MB. Anything unexpected (another layout, a
/// match that is not the entry) falls back to walking the whole index.
fn stored_entry(text: &[u8], name: &str) -> Option<IndexEntry> {
    if let Some(found) = find_stored_entry(text, name) {
        return found;
    }
    let mut deserializer = serde_json::Deserializer::from_slice(text);
    OneSession { name }.deserialize(&mut deserializer).ok()?
}

/// `Some(found)` when the search was conclusive, `None` when the index must be walked.
fn find_stored_entry(text: &[u8], name: &str) -> Option<Option<IndexEntry>> {
    if !text.starts_with(index_head().as_bytes()) {
        return None;
    }
    let key = format!("{}:", serde_json::to_string(name).ok()?);
    let mut matched = false;
    for position in memchr::memmem::find_iter(text, key.as_bytes()) {
        matched = true;
        // A key follows the opening brace or a comma; a quote inside a string is escaped.
        if !matches!(text.get(position - 1), Some(b'{' | b',')) {
            continue;
        }
        let mut deserializer = serde_json::Deserializer::from_slice(&text[position + key.len()..]);
        if let Ok(entry) = IndexEntry::deserialize(&mut deserializer)
            && entry.file == name
        {
            return Some(Some(entry));
        }
    }
    // Not even the key's text is there: the index has no such entry.
    (!matched).then_some(None)
}

/// Whether `index.json` exists and starts as this version's index does (not a full check: a
/// damaged index is found and rebuilt by the next [`refresh`]).
fn index_looks_current(index_path: &Path) -> bool {
    use std::io::Read as _;
    let head = index_head();
    let mut start = vec![0; head.len()];
    std::fs::File::open(index_path)
        .and_then(|mut file| file.read_exact(&mut start))
        .is_ok_and(|()| start == head.as_bytes())
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

/// Bring the index of `dir` up to date with the files and return it.
pub fn refresh(dir: &Path) -> Result<(Index, RefreshReport), SessionError> {
    let mut report = RefreshReport::default();
    let index_path = dir.join(INDEX_FILE);
    if !dir.exists() {
        return Ok((
            Index {
                version: INDEX_VERSION,
                sessions: BTreeMap::new(),
            },
            report,
        ));
    }
    // Hold the index lock while reading and rewriting, so two updaters never lose each other's
    // work; if it stays busy, compute in memory and do not write.
    let lock = FileLock::acquire(&pfs::lock_path(&index_path), Some(INDEX_LOCK_WAIT)).ok();
    let mut index = read_index(&index_path, &mut report);
    let journal = Journal::read(dir);
    journal.apply(&mut index);
    index.version = INDEX_VERSION;
    let files = session_files(dir)?;
    let mut changed = report.rebuilt.is_some();
    let before = index.sessions.len();
    // Both are sorted by name: one walk along `files` as the entries go by, not a search per
    // entry (file names share their first twenty bytes, so every comparison is a long one).
    let mut next_file = files.iter().map(|(file, _)| file.as_str()).peekable();
    index.sessions.retain(|name, _| {
        while next_file.next_if(|file| *file < name.as_str()).is_some() {}
        next_file.next_if_eq(&name.as_str()).is_some()
    });
    changed |= index.sessions.len() != before;
    for (position, freshness) in check_files(dir, &index, &files) {
        if apply(&mut index, &files[position].0, freshness) {
            report.rescanned += 1;
            changed = true;
        }
    }
    // A long journal is folded in even when nothing changed, so that readers stay fast.
    if (changed || journal.too_long()) && lock.is_some() {
        // A cache that cannot be saved (a full disk, a read-only home) is computed again by the
        // next command; the answer in hand stands, and the journal stays.
        match write_index(&index_path, &index) {
            Ok(()) => {
                // Its lines are in `index.json` now. Every append holds the lock we hold, so
                // none was made since the journal was read.
                if !journal.is_empty() {
                    remove_journal(dir)?;
                }
                report.written = true;
            }
            Err(error) => report.unsaved = Some(error.to_string()),
        }
    }
    drop(lock);
    Ok((index, report))
}

/// The index file as it is (without the journal), or an empty one with the reason it had to be
/// rebuilt.
fn read_index(index_path: &Path, report: &mut RefreshReport) -> Index {
    // Checking the UTF-8 of the whole file once is cheaper than serde_json checking each
    // string of a slice.
    match std::fs::read_to_string(index_path) {
        Ok(text) => {
            match parse_laid_out(&text).map_or_else(|| serde_json::from_str::<Index>(&text), Ok) {
                Ok(index) if index.version == INDEX_VERSION => index,
                Ok(index) => {
                    report.rebuilt = Some(format!(
                        "index version {} is not {INDEX_VERSION}",
                        index.version
                    ));
                    Index::default()
                }
                Err(error) => {
                    report.rebuilt = Some(format!("the index is unreadable ({error})"));
                    Index::default()
                }
            }
        }
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            report.rebuilt = Some("there is no index yet".to_owned());
            Index::default()
        }
        Err(error) => {
            report.rebuilt = Some(format!("the index cannot be read ({error})"));
            Index::default()
        }
    }
}

/// `index.json` as pincer writes it (compact, `version` then `sessions`, each entry's key its
/// `file`), its entries parsed on several threads: what `serde_json::from_str` gives for such a
/// text, in less time for a big index. `None` for a text laid out in any other way (the caller
/// parses it as it is).
fn parse_laid_out(text: &str) -> Option<Index> {
    let entries = laid_out_entries(text, |entry: &IndexEntry| entry.file.as_str())?;
    Some(Index {
        version: INDEX_VERSION,
        // Sorted already (the index is written in key order), so this is a linear build.
        sessions: entries
            .into_iter()
            .map(|entry| (entry.file.clone(), entry))
            .collect(),
    })
}

/// The entries of an `index.json` text laid out as pincer writes it, each parsed as a `T`
/// (which may borrow from `text`) on several threads for a big index, in the order they
/// are written; `file` says which file an entry is about, which must be its key. `None` for
/// a text of another version or laid out in any other way.
pub(super) fn laid_out_entries<'a, T, F>(text: &'a str, file: F) -> Option<Vec<T>>
where
    T: Deserialize<'a> + Send,
    F: Fn(&T) -> &str,
{
    let body = text.strip_prefix(&index_head())?;
    let starts: Vec<usize> = memchr::memmem::find_iter(body.as_bytes(), ENTRY_START).collect();
    // Each entry, and the offset where it ends.
    let parse = |start: &usize| -> Option<(T, usize)> {
        let mut entries = serde_json::Deserializer::from_str(&body[*start..]).into_iter::<T>();
        let entry = entries.next()?.ok()?;
        Some((entry, start + entries.byte_offset()))
    };
    let workers = std::thread::available_parallelism().map_or(1, |count| count.get().min(8));
    let parsed: Vec<(T, usize)> = if starts.len() < PARALLEL_FROM || workers < 2 {
        starts.iter().map(parse).collect::<Option<_>>()?
    } else {
        let share = starts.len().div_ceil(workers);
        std::thread::scope(|scope| {
            let handles: Vec<_> = starts
                .chunks(share)
                .map(|chunk| {
                    scope.spawn(move || chunk.iter().map(parse).collect::<Option<Vec<_>>>())
                })
                .collect();
            // The first share's vector grows to hold the others (a big allocation grows in
            // place), instead of all of them being copied into a new one.
            let mut handles = handles.into_iter();
            let mut all = handles.next()?.join().ok()??;
            all.reserve(starts.len() - all.len());
            for handle in handles {
                all.extend(handle.join().ok()??);
            }
            Some(all)
        })?
    };
    // Nothing may stand between the entries but their keys: `"<file>":`, after a `,` but for
    // the first; and after the last, the two closing braces.
    let mut position = 0;
    let mut key = Vec::new();
    for ((entry, end), start) in parsed.iter().zip(starts) {
        let gap = body.get(position..start)?;
        let gap = if position == 0 {
            gap
        } else {
            gap.strip_prefix(',')?
        };
        key.clear();
        serde_json::to_writer(&mut key, file(entry)).ok()?;
        if gap.as_bytes().strip_prefix(key.as_slice())? != b":" {
            return None;
        }
        position = *end;
    }
    if body.get(position..)?.trim_end() != "}}" {
        return None;
    }
    // Collected in place: the entries stay where they were parsed.
    Some(parsed.into_iter().map(|(entry, _)| entry).collect())
}

fn write_index(index_path: &Path, index: &Index) -> Result<(), SessionError> {
    let bytes =
        serde_json::to_vec(index).map_err(|error| SessionError::Serialize(error.to_string()))?;
    pfs::write_atomic(index_path, &bytes).map_err(|source| SessionError::Io {
        action: "cannot write the session index",
        path: index_path.to_owned(),
        source,
    })
}

/// What a file's entry should become.
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
    (name, path): &(String, PathBuf),
) -> Freshness {
    let Some(dir) = dir else {
        return check_file(known, path);
    };
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

/// Below this many files one thread checks them all: starting threads would cost more.
const PARALLEL_FROM: usize = 256;

/// Check every file against the index, on several threads for a big directory (a stat each
/// when the index is warm, a full read of every file for a rebuild); returns the positions in
/// `files` of those whose entry must change, with the outcome.
fn check_files(dir: &Path, index: &Index, files: &[(String, PathBuf)]) -> Vec<(usize, Freshness)> {
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
    let check =
        |position: usize| match check_file_in(handle.as_ref(), known[position], &files[position]) {
            Freshness::Unchanged => None,
            freshness => Some((position, freshness)),
        };
    let workers = std::thread::available_parallelism().map_or(1, |count| count.get().min(8));
    if files.len() < PARALLEL_FROM || workers < 2 {
        return (0..files.len()).filter_map(check).collect();
    }
    // Files differ a lot in size, so each worker takes the next unchecked file rather than a
    // fixed share.
    let next = AtomicUsize::new(0);
    let outcomes = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut found = Vec::new();
                    loop {
                        let position = next.fetch_add(1, Ordering::Relaxed);
                        if position >= files.len() {
                            return found;
                        }
                        found.extend(check(position));
                    }
                })
            })
            .collect();
        let mut all = Vec::new();
        for handle in handles {
            all.extend(handle.join().ok()?);
        }
        Some(all)
    });
    // A worker that panicked lost its share: check everything again on this thread.
    outcomes.unwrap_or_else(|| (0..files.len()).filter_map(check).collect())
}

/// Update the index for one session file a command just wrote, created or removed, without
/// looking at the others (a run must not stat every session on its way out): one line is
/// appended to the journal, and `index.json` is only read as far as finding the file's old
/// entry takes. Falls back to a full [`refresh`] when the index is missing or not of this
/// version, and folds the journal in when it grew too long.
pub fn update_one(dir: &Path, path: &Path) -> Result<(), SessionError> {
    let index_path = dir.join(INDEX_FILE);
    let Some(name) = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
    else {
        return Ok(());
    };
    if path.parent() != Some(dir) {
        return Ok(());
    }
    let Ok(lock) = FileLock::acquire(&pfs::lock_path(&index_path), Some(INDEX_LOCK_WAIT)) else {
        return Ok(());
    };
    if !index_looks_current(&index_path) {
        drop(lock);
        return refresh(dir).map(|_| ());
    }
    let journal = Journal::read(dir);
    let known = lookup(dir, &name, &journal);
    let line = match check_file(known.as_ref(), path) {
        Freshness::Unchanged => None,
        Freshness::Updated(entry) => Some(Some(*entry)),
        Freshness::Gone => known.is_some().then_some(None),
    };
    if let Some(entry) = line {
        let line = JournalLine {
            file: name,
            version: INDEX_VERSION,
            entry,
        };
        journal.append(dir, &line, true)?;
    }
    drop(lock);
    if journal.too_long() {
        // Once in a thousand updates: a refresh folds the journal into `index.json`.
        return refresh(dir).map(|_| ());
    }
    Ok(())
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

    /// Refresh, and check that the merged entry equals a full summary of the file.
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
    fn the_cached_entry_is_given_only_while_it_describes_the_file() {
        let (dir, path) = setup(&[user("u1", None)]);
        refresh(dir.path()).unwrap();
        let cached = cached_entry(dir.path(), &path).unwrap();
        assert_eq!(cached.summary.turns, 1);
        assert!(cached_entry(Path::new("/elsewhere"), &path).is_none());
        append(&path, &[user("u2", Some("u1"))]);
        assert!(
            cached_entry(dir.path(), &path).is_none(),
            "stale after an append"
        );
    }

    #[test]
    fn update_one_touches_only_the_named_file_and_drops_a_removed_one() {
        let (dir, path) = setup(&[user("u1", None)]);
        refresh(dir.path()).unwrap();
        // Another session appears behind the index's back: update_one must not look at it.
        let other = dir.path().join("2026-01-01T00-00-00-000Z_s2.jsonl");
        std::fs::copy(&path, &other).unwrap();
        append(&path, &[assistant("a1", "u1", 10, "stop")]);
        update_one(dir.path(), &path).unwrap();
        let read = read_with_journal;
        let index = read(dir.path());
        assert_eq!(index.sessions.len(), 1);
        assert_eq!(
            index.by_file(FILE).unwrap(),
            &summarize_file(&path).unwrap()
        );
        std::fs::remove_file(&path).unwrap();
        update_one(dir.path(), &path).unwrap();
        assert!(read(dir.path()).sessions.is_empty());
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

    #[test]
    fn hundreds_of_sessions_are_checked_on_several_threads_and_the_stored_index_reads_back_equal() {
        let dir = tempfile::tempdir().unwrap();
        let name = |number: usize| format!("2026-01-01T00-00-00-000Z_s{number:03}.jsonl");
        for number in 0..300 {
            let header = format!(
                r#"{{"type":"session","version":3,"id":"s{number:03}","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w{}"}}"#,
                number % 7
            );
            let mut text = format!("{header}\n{}", user("u1", None));
            if number % 2 == 0 {
                text.push_str(&assistant("a1", "u1", 100 + number as u64, "stop"));
            }
            std::fs::write(dir.path().join(name(number)), text).unwrap();
        }
        let (index, report) = refresh(dir.path()).unwrap();
        assert_eq!(report.rescanned, 300);
        assert_eq!(index.sessions.len(), 300);
        for number in [0, 1, 150, 299] {
            let path = dir.path().join(name(number));
            assert_eq!(
                index.by_file(&name(number)).unwrap(),
                &summarize_file(&path).unwrap()
            );
        }
        assert_eq!(
            index.by_file(&name(150)).unwrap().summary.context_tokens,
            Some(297)
        );
        let stored: Index =
            serde_json::from_slice(&std::fs::read(dir.path().join(INDEX_FILE)).unwrap()).unwrap();
        assert_eq!(stored, index);

        append(&dir.path().join(name(7)), &[user("u2", Some("u1"))]);
        std::fs::remove_file(dir.path().join(name(8))).unwrap();
        let (index, report) = refresh(dir.path()).unwrap();
        assert_eq!(report.rescanned, 1, "only the appended file is read again");
        assert_eq!(index.sessions.len(), 299);
        assert_eq!(index.by_file(&name(7)).unwrap().summary.turns, 2);
        assert!(index.by_file(&name(8)).is_none());
    }

    /// `index.json` with the journal applied, as every reader sees it.
    fn read_with_journal(dir: &Path) -> Index {
        let mut report = RefreshReport::default();
        let mut index = read_index(&dir.join(INDEX_FILE), &mut report);
        assert_eq!(report.rebuilt, None);
        Journal::read(dir).apply(&mut index);
        index
    }

    fn journal_text(dir: &Path) -> String {
        std::fs::read_to_string(dir.join(JOURNAL_FILE)).unwrap()
    }

    fn stored_bytes_and_mtime(dir: &Path) -> (Vec<u8>, std::time::SystemTime) {
        let path = dir.join(INDEX_FILE);
        (
            std::fs::read(&path).unwrap(),
            std::fs::metadata(&path).unwrap().modified().unwrap(),
        )
    }

    #[test]
    fn a_listing_is_vouched_for_only_once_the_directory_has_stood_still_for_a_clock_tick() {
        let at = |nanos: u64| UNIX_EPOCH + Duration::from_nanos(nanos);
        let fine = ListingTimes {
            ctime_ns: 1_000_000_000_123_456,
            mtime_ns: 1_000_000_000_123_000,
        };
        assert!(!fine.settled(at(fine.ctime_ns)));
        assert!(!fine.settled(at(fine.ctime_ns + 19_000_000)));
        assert!(fine.settled(at(fine.ctime_ns + 20_000_000)));
        // Before the directory's times (a clock set back): never.
        assert!(!fine.settled(at(fine.ctime_ns - 1)));
        // Times without a sub-millisecond part come from a coarse clock: seconds.
        let coarse = ListingTimes {
            ctime_ns: 1_000_000_000_000_000,
            mtime_ns: 1_000_000_000_000_000,
        };
        assert!(!coarse.settled(at(coarse.ctime_ns + 2_000_000_000)));
        assert!(coarse.settled(at(coarse.ctime_ns + 3_000_000_000)));
    }

    #[test]
    fn update_one_appends_one_journal_line_and_leaves_index_json_as_it_was() {
        let (dir, path) = setup(&[user("u1", None)]);
        refresh(dir.path()).unwrap();
        let before = stored_bytes_and_mtime(dir.path());
        append(&path, &[assistant("a1", "u1", 10, "stop")]);
        update_one(dir.path(), &path).unwrap();
        assert_eq!(stored_bytes_and_mtime(dir.path()), before);
        let journal = journal_text(dir.path());
        assert_eq!(journal.lines().count(), 1);
        assert!(journal.ends_with('\n'));
        assert!(
            journal.starts_with(&format!("{{\"file\":\"{FILE}\",\"version\":1,\"entry\":{{")),
            "{journal}"
        );
        // The journal's entry is the file's: a refresh finds nothing to do and writes nothing.
        let (index, report) = refresh(dir.path()).unwrap();
        assert_eq!(report.rescanned, 0);
        assert!(!report.written);
        assert_eq!(
            index.by_file(FILE).unwrap(),
            &summarize_file(&path).unwrap()
        );
        assert_eq!(index.by_file(FILE).unwrap().summary.turns, 1);
        assert_eq!(stored_bytes_and_mtime(dir.path()), before);
    }

    #[test]
    fn readers_see_the_newest_journal_entry_over_index_json() {
        let (dir, path) = setup(&[user("u1", None)]);
        refresh(dir.path()).unwrap();
        append(&path, &[assistant("a1", "u1", 10, "stop")]);
        update_one(dir.path(), &path).unwrap();
        append(&path, &[user("u2", Some("a1"))]);
        update_one(dir.path(), &path).unwrap();
        assert_eq!(journal_text(dir.path()).lines().count(), 2);
        let stored: Index =
            serde_json::from_slice(&std::fs::read(dir.path().join(INDEX_FILE)).unwrap()).unwrap();
        assert_eq!(stored.by_file(FILE).unwrap().summary.entries, 1);
        let cached = cached_entry(dir.path(), &path).unwrap();
        assert_eq!(cached.summary.entries, 3);
        assert_eq!(cached.leaf.as_deref(), Some("u2"));
        assert_eq!(cached, summarize_file(&path).unwrap());
        assert_eq!(read_with_journal(dir.path()).by_file(FILE), Some(&cached));
    }

    #[test]
    fn a_torn_last_journal_line_is_ignored_and_the_next_append_starts_a_line_of_its_own() {
        let (dir, path) = setup(&[user("u1", None)]);
        refresh(dir.path()).unwrap();
        append(&path, &[assistant("a1", "u1", 10, "stop")]);
        update_one(dir.path(), &path).unwrap();
        let mut journal = std::fs::OpenOptions::new()
            .append(true)
            .open(dir.path().join(JOURNAL_FILE))
            .unwrap();
        write!(
            journal,
            "{{\"file\":\"{FILE}\",\"version\":1,\"entry\":{{\"fi"
        )
        .unwrap();
        drop(journal);
        let cached = cached_entry(dir.path(), &path).unwrap();
        assert_eq!(cached.leaf.as_deref(), Some("a1"));
        assert_eq!(read_with_journal(dir.path()).by_file(FILE), Some(&cached));

        append(&path, &[user("u2", Some("a1"))]);
        update_one(dir.path(), &path).unwrap();
        let text = journal_text(dir.path());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(
            lines[1].ends_with("{\"fi"),
            "the torn line is on its own: {}",
            lines[1]
        );
        assert!(JournalLine::parse(lines[1]).is_none());
        let newest = cached_entry(dir.path(), &path).unwrap();
        assert_eq!(newest.leaf.as_deref(), Some("u2"));
        assert_eq!(newest, summarize_file(&path).unwrap());
    }

    #[test]
    fn a_refresh_that_rewrites_index_json_folds_the_journal_in_and_removes_it() {
        let (dir, path) = setup(&[user("u1", None)]);
        refresh(dir.path()).unwrap();
        append(&path, &[assistant("a1", "u1", 10, "stop")]);
        update_one(dir.path(), &path).unwrap();
        assert!(dir.path().join(JOURNAL_FILE).exists());
        // A new session makes the next refresh rewrite index.json.
        let other = "2026-01-01T00-00-00-000Z_s2.jsonl";
        std::fs::copy(&path, dir.path().join(other)).unwrap();
        let (_, report) = refresh(dir.path()).unwrap();
        assert!(report.written);
        assert_eq!(report.rescanned, 1, "only the new file is read");
        assert!(!dir.path().join(JOURNAL_FILE).exists());
        let stored: Index =
            serde_json::from_slice(&std::fs::read(dir.path().join(INDEX_FILE)).unwrap()).unwrap();
        assert_eq!(stored.sessions.len(), 2);
        assert_eq!(
            stored.by_file(FILE).unwrap(),
            &summarize_file(&path).unwrap()
        );
        assert_eq!(stored.by_file(FILE).unwrap().leaf.as_deref(), Some("a1"));
    }

    #[test]
    fn a_removal_line_hides_the_entry_that_index_json_still_holds() {
        let (dir, path) = setup(&[user("u1", None)]);
        refresh(dir.path()).unwrap();
        std::fs::remove_file(&path).unwrap();
        update_one(dir.path(), &path).unwrap();
        assert_eq!(
            journal_text(dir.path()),
            format!("{{\"file\":\"{FILE}\",\"version\":1}}\n")
        );
        let text = std::fs::read_to_string(dir.path().join(INDEX_FILE)).unwrap();
        assert_eq!(
            stored_entry(text.as_bytes(), FILE).unwrap().summary.id,
            "s1"
        );
        assert_eq!(lookup(dir.path(), FILE, &Journal::read(dir.path())), None);
        assert!(read_with_journal(dir.path()).sessions.is_empty());
        // A second removal of a file the index no longer knows adds nothing.
        update_one(dir.path(), &path).unwrap();
        assert_eq!(journal_text(dir.path()).lines().count(), 1);
    }

    #[test]
    fn update_one_calls_from_parallel_threads_all_land_in_the_journal() {
        let (dir, path) = setup(&[user("u1", None)]);
        let names: Vec<String> = (0..8)
            .map(|number| format!("2026-01-01T00-00-00-000Z_t{number}.jsonl"))
            .collect();
        for name in &names {
            std::fs::copy(&path, dir.path().join(name)).unwrap();
        }
        refresh(dir.path()).unwrap();
        std::thread::scope(|scope| {
            for name in &names {
                let session = dir.path().join(name);
                let dir = dir.path();
                scope.spawn(move || {
                    append(&session, &[assistant("a1", "u1", 10, "stop")]);
                    update_one(dir, &session).unwrap();
                });
            }
        });
        let text = journal_text(dir.path());
        let mut landed: Vec<String> = text
            .lines()
            .map(|line| JournalLine::parse(line).unwrap().file)
            .collect();
        landed.sort();
        assert_eq!(landed, names);
        let (index, report) = refresh(dir.path()).unwrap();
        assert_eq!(report.rescanned, 0, "every update is in the journal");
        for name in &names {
            assert_eq!(index.by_file(name).unwrap().leaf.as_deref(), Some("a1"));
        }
    }

    #[test]
    fn a_journal_past_its_bound_is_folded_into_index_json_by_the_next_update() {
        let (dir, path) = setup(&[user("u1", None)]);
        refresh(dir.path()).unwrap();
        let stale = JournalLine {
            file: FILE.to_owned(),
            version: INDEX_VERSION,
            entry: Some(summarize_file(&path).unwrap()),
        };
        let line = serde_json::to_string(&stale).unwrap() + "\n";
        std::fs::write(
            dir.path().join(JOURNAL_FILE),
            line.repeat(JOURNAL_MAX_LINES + 1),
        )
        .unwrap();
        append(&path, &[assistant("a1", "u1", 10, "stop")]);
        update_one(dir.path(), &path).unwrap();
        assert!(!dir.path().join(JOURNAL_FILE).exists());
        let stored: Index =
            serde_json::from_slice(&std::fs::read(dir.path().join(INDEX_FILE)).unwrap()).unwrap();
        assert_eq!(
            stored.by_file(FILE).unwrap(),
            &summarize_file(&path).unwrap()
        );
    }

    #[test]
    fn an_index_read_on_several_threads_equals_the_one_serde_reads() {
        let dir = tempfile::tempdir().unwrap();
        // More than one thread's share, with names, usage and a damaged file among them.
        for number in 0..PARALLEL_FROM + 40 {
            let header = format!(
                r#"{{"type":"session","version":3,"id":"s{number}","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}}"#
            );
            let mut text = format!("{header}\n");
            if number % 7 == 0 {
                text.push_str(&user("u1", None));
                text.push_str(&assistant("a1", "u1", 100 + number as u64, "stop"));
            }
            if number % 50 == 3 {
                text.push_str("not json\n{}\n");
            }
            std::fs::write(
                dir.path()
                    .join(format!("2026-01-01T00-00-00-000Z_s{number:03}.jsonl")),
                text,
            )
            .unwrap();
        }
        refresh(dir.path()).unwrap();
        let compact = std::fs::read_to_string(dir.path().join(INDEX_FILE)).unwrap();
        let general: Index = serde_json::from_str(&compact).unwrap();
        assert_eq!(general.sessions.len(), PARALLEL_FROM + 40);
        assert_eq!(parse_laid_out(&compact), Some(general.clone()));
        // Any other layout is left to serde.
        let pretty = serde_json::to_string_pretty(&general).unwrap();
        assert_eq!(parse_laid_out(&pretty), None);
        let renamed = compact.replacen(
            "\"2026-01-01T00-00-00-000Z_s001.jsonl\":",
            "\"another-key.jsonl\":",
            1,
        );
        assert_eq!(parse_laid_out(&renamed), None);
        assert_eq!(parse_laid_out(&format!("{compact}x")), None);
        assert_eq!(
            parse_laid_out(&index_head().replace("\"sessions\":{", "\"sessions\":{}}")),
            Some(Index {
                version: INDEX_VERSION,
                sessions: BTreeMap::new(),
            })
        );
    }

    #[test]
    fn one_entry_is_found_in_index_json_by_its_key_and_other_layouts_are_walked() {
        let dir = tempfile::tempdir().unwrap();
        for number in 0..3 {
            let header = format!(
                r#"{{"type":"session","version":3,"id":"s{number}","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}}"#
            );
            std::fs::write(
                dir.path()
                    .join(format!("2026-01-01T00-00-00-000Z_s{number}.jsonl")),
                format!("{header}\n"),
            )
            .unwrap();
        }
        refresh(dir.path()).unwrap();
        let compact = std::fs::read_to_string(dir.path().join(INDEX_FILE)).unwrap();
        let name = "2026-01-01T00-00-00-000Z_s1.jsonl";
        let found = find_stored_entry(compact.as_bytes(), name)
            .unwrap()
            .unwrap();
        assert_eq!(found.summary.id, "s1");
        assert_eq!(
            find_stored_entry(compact.as_bytes(), "absent.jsonl").unwrap(),
            None
        );
        let index: Index = serde_json::from_str(&compact).unwrap();
        let pretty = serde_json::to_string_pretty(&index).unwrap();
        assert!(
            find_stored_entry(pretty.as_bytes(), name).is_none(),
            "not pincer's layout"
        );
        assert_eq!(stored_entry(pretty.as_bytes(), name), Some(found));
    }

    #[test]
    fn update_one_without_an_index_builds_the_whole_index() {
        let (dir, path) = setup(&[user("u1", None)]);
        update_one(dir.path(), &path).unwrap();
        let index: Index =
            serde_json::from_slice(&std::fs::read(dir.path().join(INDEX_FILE)).unwrap()).unwrap();
        assert_eq!(index.sessions.len(), 1);
    }
}
