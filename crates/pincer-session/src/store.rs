//! Session files on disk: creation, tolerant loading, locking, appending (SPEC §5.2–5.5).
//!
//! Invariants this module keeps:
//! - a session file always starts with its header: new files are created whole by rename;
//! - every entry is one complete line written with one `write` call; the file is `fdatasync`ed
//!   after each completed message and at the end of a run, not per token;
//! - a torn final line (a crash mid-append) is moved to `<file>.torn-<timestamp>` before the next
//!   append, never silently dropped; a bad line in the middle is corruption and loading refuses
//!   it with its line number until `sessions repair` moves it aside — a damaged or lost header
//!   (line 1, with entries after it) too, which the repair rebuilds from the file name;
//! - loading and `sessions repair` judge lines with one function (`type_lines`): a line that is
//!   JSON but no valid record (a wrong type, a second header) is refused by the one and moved
//!   aside by the other, so a session loading refuses is always one a repair fixes;
//! - only the holder of `<file>.lock` appends; a file that vanished mid-run is not recreated.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use super::ids::IdSet;
use super::record::{self, Entry, Line, SessionHeader};
use crate::fs::{self as pfs, FileLock, LockError};

pub use super::error::SessionError;
pub use super::record::CURRENT_VERSION;

/// A final line that was cut short, found at load time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TornTail {
    /// Byte offset where the torn line starts.
    pub offset: u64,
    /// The bytes of the torn line (without any newline).
    pub bytes: Vec<u8>,
    /// Whether the bytes are a complete, valid entry missing only its newline.
    pub complete: bool,
}

/// A session file read into memory.
#[derive(Debug, Clone)]
pub struct LoadedSession {
    /// The file.
    pub path: PathBuf,
    /// Its header (migrated to v3 in memory when older).
    pub header: SessionHeader,
    /// Its entries in file order (migrated in memory when older).
    pub entries: Vec<Entry>,
    /// The version found on disk.
    pub disk_version: u32,
    /// A torn final line, if any (not part of `entries` unless `complete`).
    pub torn: Option<TornTail>,
}

impl LoadedSession {
    /// The id of the current leaf: the last entry in file order.
    pub fn leaf_id(&self) -> Option<&str> {
        self.entries.last().map(Entry::id)
    }

    /// Whether the file needs rewriting before pincer may append to it.
    pub fn needs_migration(&self) -> bool {
        self.disk_version < CURRENT_VERSION
    }
}

/// A line that could not be parsed, with its position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadLine {
    /// 1-based line number.
    pub line: usize,
    /// Byte offset of the line's start.
    pub offset: u64,
    /// Byte length including its newline, if it had one.
    pub length: u64,
    /// Why it was rejected.
    pub reason: String,
}

/// The raw result of scanning a file: which lines are JSON objects (not yet typed), which not.
#[derive(Debug)]
struct Scan {
    header: Header,
    /// The lines after the header that are JSON objects, in file order.
    lines: Vec<ScannedLine>,
    /// The lines that are no JSON object.
    bad: Vec<BadLine>,
    torn: Option<TornTail>,
}

/// A line that is a JSON object, with its place in the file.
#[derive(Debug)]
struct ScannedLine {
    /// 1-based line number.
    number: usize,
    /// Byte offset of the line's start.
    offset: u64,
    /// Byte length including its newline, if it had one.
    length: u64,
    /// The line without surrounding whitespace.
    text: String,
}

impl ScannedLine {
    /// This line as one the reader refuses, for `reason`.
    fn refused(&self, reason: String) -> BadLine {
        BadLine {
            line: self.number,
            offset: self.offset,
            length: self.length,
            reason,
        }
    }
}

/// The first line of a scanned file.
#[derive(Debug)]
enum Header {
    /// A session header as far as its `type` and `id` tell (its value and its line); typing it
    /// may still refuse it ([`type_lines`]).
    Valid(Value, ScannedLine),
    /// The first line is not a header, but entries follow: a session whose header was damaged.
    Damaged(BadLine),
    /// The first line is an entry: a session whose header was lost.
    Missing,
}

/// Whether a JSON object has the shape of a session entry (`type`, `id`, `parentId`), so that a
/// file whose first line is damaged but whose other lines are entries is told apart from a file
/// that is no session at all.
fn is_entry_shaped(value: &Value) -> bool {
    value.get("type").is_some_and(Value::is_string)
        && value.get("id").is_some_and(Value::is_string)
        && value.get("parentId").is_some()
}

/// Why a line of a session file is no JSON value.
#[derive(Debug, thiserror::Error)]
enum Unparsable {
    #[error("invalid UTF-8")]
    Utf8,
    #[error(transparent)]
    Json(serde_json::Error),
}

fn scan_bytes(path: &Path, bytes: &[u8]) -> Result<Scan, SessionError> {
    let mut header: Option<(Value, ScannedLine)> = None;
    // The first line when it is no header; scanning goes on to see whether entries follow.
    let mut bad_header: Option<BadLine> = None;
    let mut header_missing = false;
    let mut entries_follow = false;
    let mut lines = Vec::new();
    let mut bad = Vec::new();
    let mut torn = None;
    let mut offset = 0usize;
    let mut number = 0usize;
    while offset < bytes.len() {
        number += 1;
        let rest = &bytes[offset..];
        let (raw, length, terminated) = match memchr::memchr(b'\n', rest) {
            Some(end) => (&rest[..end], end + 1, true),
            None => (rest, rest.len(), false),
        };
        let start = offset;
        offset += length;
        let text = String::from_utf8_lossy(raw);
        let trimmed = text.trim();
        if trimmed.is_empty() {
            continue;
        }
        let parsed: Result<Value, Unparsable> = if std::str::from_utf8(raw).is_err() {
            Err(Unparsable::Utf8)
        } else {
            serde_json::from_str::<Value>(trimmed).map_err(Unparsable::Json)
        };
        let scanned = || ScannedLine {
            number,
            offset: start as u64,
            length: length as u64,
            text: trimmed.to_owned(),
        };
        if !terminated {
            // The last bytes of the file, without a newline: a write cut short by a crash.
            torn = Some(TornTail {
                offset: start as u64,
                bytes: raw.to_vec(),
                complete: parsed.as_ref().is_ok_and(Value::is_object),
            });
            if let (Ok(value), true) = (
                &parsed,
                header.is_some() || bad_header.is_some() || header_missing,
            ) && value.is_object()
            {
                entries_follow |= is_entry_shaped(value);
                lines.push(scanned());
            }
            break;
        }
        let first = header.is_none() && bad_header.is_none() && !header_missing;
        let bad_line = |reason: String| BadLine {
            line: number,
            offset: start as u64,
            length: length as u64,
            reason,
        };
        match parsed {
            Ok(value) if first => {
                if value.get("type").and_then(Value::as_str) == Some("session")
                    && value.get("id").is_some_and(Value::is_string)
                {
                    header = Some((value, scanned()));
                } else if is_entry_shaped(&value) {
                    header_missing = true;
                    entries_follow = true;
                    lines.push(scanned());
                } else {
                    bad_header = Some(bad_line("not a session header".to_owned()));
                }
            }
            Ok(value) if value.is_object() => {
                entries_follow |= is_entry_shaped(&value);
                lines.push(scanned());
            }
            Ok(_) => bad.push(bad_line("not a JSON object".to_owned())),
            Err(reason) if first => bad_header = Some(bad_line(format!("not JSON ({reason})"))),
            Err(reason) => bad.push(bad_line(reason.to_string())),
        }
    }
    let header = match (header, bad_header) {
        (Some((value, line)), _) => Header::Valid(value, line),
        (None, _) if header_missing => Header::Missing,
        (None, Some(bad_header)) if entries_follow => Header::Damaged(bad_header),
        (None, Some(bad_header)) => {
            return Err(SessionError::NotASession {
                path: path.to_owned(),
                reason: format!("line {} is {}", bad_header.line, bad_header.reason),
            });
        }
        (None, None) => {
            return Err(SessionError::NotASession {
                path: path.to_owned(),
                reason: "the file is empty".to_owned(),
            });
        }
    };
    // A malformed line with nothing valid after it is a torn tail too (a crash can leave a
    // newline-terminated fragment when a later write landed first); anything earlier is corruption.
    let bad_is_last = bad
        .last()
        .is_some_and(|last_bad| lines.last().is_none_or(|line| line.number < last_bad.line));
    if torn.is_none()
        && bad_is_last
        && let Some(last_bad) = bad.pop()
    {
        let start = last_bad.offset as usize;
        let end = start + last_bad.length as usize;
        let mut fragment = bytes[start..end.min(bytes.len())].to_vec();
        if fragment.last() == Some(&b'\n') {
            fragment.pop();
        }
        torn = Some(TornTail {
            offset: last_bad.offset,
            bytes: fragment,
            complete: false,
        });
    }
    Ok(Scan {
        header,
        lines,
        bad,
        torn,
    })
}

/// A scanned file as the reader types it: the header and entries it accepts, and every line it
/// refuses. [`load`] refuses the file for the first refused line and [`repair`] moves them all
/// aside: both go by this one judgement, so a repair fixes whatever loading refuses.
struct Typed {
    /// The header; `None` when there is none to type, or when it is refused (then its line is
    /// among `refused`).
    header: Option<SessionHeader>,
    /// The entries accepted, in file order.
    entries: Vec<Entry>,
    /// The lines refused, in file order.
    refused: Vec<BadLine>,
    /// The version on disk (the current one for a file without a readable header, which a
    /// repair gives a header of the current version).
    version: u64,
}

/// Type `header` and the `lines` after it, migrating an older version in memory first. Fails
/// only for a version newer than this build reads, which no repair can help.
fn type_lines(
    path: &Path,
    header: Option<(&Value, &ScannedLine)>,
    lines: &[ScannedLine],
) -> Result<Typed, SessionError> {
    let version = header.map_or(u64::from(CURRENT_VERSION), |(value, _)| {
        value.get("version").and_then(Value::as_u64).unwrap_or(1)
    });
    if version > u64::from(CURRENT_VERSION) {
        return Err(SessionError::UnknownVersion {
            path: path.to_owned(),
            version,
        });
    }
    let migrated = match header {
        Some((value, _)) if version < u64::from(CURRENT_VERSION) => {
            Some(migrated_lines(value, lines)?)
        }
        _ => None,
    };
    let mut refused = Vec::new();
    let header = header.and_then(|(_, line)| {
        let text = migrated
            .as_ref()
            .map_or(line.text.as_str(), |(text, _)| text);
        let damaged = |reason: &dyn std::fmt::Display| {
            line.refused(format!("the session header is damaged: {reason}"))
        };
        match super::parse::parse_line(text) {
            Ok(Line::Header(header)) => Some(header),
            Ok(Line::Entry(_)) => {
                refused.push(damaged(&"not a session header"));
                None
            }
            Err(error) => {
                refused.push(damaged(&error));
                None
            }
        }
    });
    let mut entries = Vec::with_capacity(lines.len());
    for (index, line) in lines.iter().enumerate() {
        let text = migrated
            .as_ref()
            .map_or(line.text.as_str(), |(_, texts)| &texts[index]);
        match super::parse::parse_line(text) {
            Ok(Line::Entry(entry)) => entries.push(entry),
            Ok(Line::Header(_)) => refused.push(line.refused("a second session header".to_owned())),
            Err(error) => refused.push(line.refused(error.to_string())),
        }
    }
    Ok(Typed {
        header,
        entries,
        refused,
        version,
    })
}

/// The header's and the lines' text migrated to the current version ([`super::migrate`]).
fn migrated_lines(
    header: &Value,
    lines: &[ScannedLine],
) -> Result<(String, Vec<String>), SessionError> {
    let to_text = |value: &Value| {
        serde_json::to_string(value).map_err(|error| SessionError::Serialize(error.to_string()))
    };
    let mut header = header.clone();
    // Every scanned line parsed as a JSON object; one that somehow does not stays `null`, which
    // the typing then refuses.
    let mut values: Vec<Value> = lines
        .iter()
        .map(|line| serde_json::from_str(&line.text).unwrap_or(Value::Null))
        .collect();
    super::migrate::migrate(&mut header, &mut values);
    let texts = values.iter().map(to_text).collect::<Result<_, _>>()?;
    Ok((to_text(&header)?, texts))
}

/// Read and parse a session file. Mid-file corruption is an error; a torn tail is reported in
/// [`LoadedSession::torn`] (not repaired: that needs the lock, see [`repair_torn_tail`]).
pub fn load(path: &Path) -> Result<LoadedSession, SessionError> {
    let bytes =
        std::fs::read(path).map_err(|error| SessionError::io("cannot read", path, error))?;
    let scan = scan_bytes(path, &bytes)?;
    let header = match &scan.header {
        Header::Valid(value, line) => (value, line),
        Header::Damaged(bad) => {
            return Err(SessionError::Corrupt {
                path: path.to_owned(),
                line: bad.line,
                reason: format!("the session header is damaged: {}", bad.reason),
            });
        }
        Header::Missing => {
            return Err(SessionError::Corrupt {
                path: path.to_owned(),
                line: 1,
                reason: "the session header is missing (the file starts with an entry)".to_owned(),
            });
        }
    };
    let typed = type_lines(path, Some(header), &scan.lines)?;
    if let Some(bad) = scan
        .bad
        .iter()
        .chain(&typed.refused)
        .min_by_key(|bad| bad.line)
    {
        return Err(SessionError::Corrupt {
            path: path.to_owned(),
            line: bad.line,
            reason: bad.reason.clone(),
        });
    }
    let Some(header) = typed.header else {
        return Err(SessionError::NotASession {
            path: path.to_owned(),
            reason: "the session header is damaged".to_owned(),
        });
    };
    Ok(LoadedSession {
        path: path.to_owned(),
        header,
        entries: typed.entries,
        disk_version: u32::try_from(typed.version).unwrap_or(CURRENT_VERSION),
        torn: scan.torn,
    })
}

/// The side file a repair moves bytes into: `<file>.<what>-<timestamp>`.
fn side_path(path: &Path, what: &str) -> PathBuf {
    let stamp = record::now_iso().replace([':', '.'], "-");
    let mut name = path.as_os_str().to_owned();
    name.push(format!(".{what}-{stamp}"));
    let mut candidate = PathBuf::from(&name);
    let mut counter = 1;
    while candidate.exists() {
        let mut numbered = name.clone();
        numbered.push(format!("-{counter}"));
        candidate = PathBuf::from(numbered);
        counter += 1;
    }
    candidate
}

/// What a torn-tail repair did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TornRepair {
    /// The final line was a complete entry missing its newline: the newline was added.
    Completed,
    /// The fragment was moved to this side file and cut from the session.
    MovedTo(PathBuf),
}

/// Repair a torn final line. Call with the session lock held.
pub fn repair_torn_tail(path: &Path, torn: &TornTail) -> Result<TornRepair, SessionError> {
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .map_err(|error| SessionError::io("cannot open", path, error))?;
    if torn.complete {
        let mut file = file;
        use std::io::Seek;
        file.seek(io::SeekFrom::End(0))
            .and_then(|_| file.write_all(b"\n"))
            .and_then(|()| file.sync_data())
            .map_err(|error| SessionError::io("cannot repair", path, error))?;
        return Ok(TornRepair::Completed);
    }
    let side = side_path(path, "torn");
    let mut saved = torn.bytes.clone();
    saved.push(b'\n');
    pfs::create_new_atomic(&side, &saved)
        .map_err(|error| SessionError::io("cannot save the torn line to", &side, error))?;
    file.set_len(torn.offset)
        .and_then(|()| file.sync_data())
        .map_err(|error| SessionError::io("cannot truncate", path, error))?;
    Ok(TornRepair::MovedTo(side))
}

/// A header written in place of a damaged one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RebuiltHeader {
    /// The session id, from the file name (or what the damaged line still showed).
    pub id: String,
    /// The workspace written into it.
    pub cwd: String,
    /// Whether the cwd was read from the damaged line (else it is the repairing command's).
    pub cwd_recovered: bool,
    /// Whether it replaced a damaged first line (else the header was missing and is added).
    pub replaced: bool,
}

/// What `sessions repair` did to a file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RepairReport {
    /// Lines moved out, by 1-based line number.
    pub dropped_lines: Vec<usize>,
    /// The header that replaced a damaged first line (which is among `dropped_lines`).
    pub rebuilt_header: Option<RebuiltHeader>,
    /// Where the dropped bytes went.
    pub side_file: Option<PathBuf>,
    /// Whether a torn tail was completed or moved.
    pub torn: Option<TornRepair>,
    /// Whether an old-format file was rewritten as v3.
    pub migrated_from: Option<u32>,
}

impl RepairReport {
    /// Whether nothing needed fixing.
    pub fn is_clean(&self) -> bool {
        self.dropped_lines.is_empty()
            && self.rebuilt_header.is_none()
            && self.torn.is_none()
            && self.migrated_from.is_none()
    }
}

/// Fix what can be fixed: move corrupt lines (and a torn tail) into a side file and rewrite the
/// session without them; migrate old versions. A damaged header is moved aside too and replaced
/// by one rebuilt from the file name and what the damaged line still shows (see
/// [`salvaged_header`]), with `fallback_cwd` when its cwd is unreadable. Nothing is deleted:
/// every removed byte is kept in the side file. Call with the session lock held. With `dry_run`,
/// only report.
pub fn repair(
    path: &Path,
    dry_run: bool,
    fallback_cwd: &str,
) -> Result<RepairReport, SessionError> {
    let bytes =
        std::fs::read(path).map_err(|error| SessionError::io("cannot read", path, error))?;
    let mut scan = scan_bytes(path, &bytes)?;
    let mut typed = match &scan.header {
        Header::Valid(value, line) => type_lines(path, Some((value, line)), &scan.lines)?,
        Header::Damaged(_) | Header::Missing => type_lines(path, None, &scan.lines)?,
    };
    // A header the reader refuses is damaged like one that is no JSON: it is set aside and
    // rebuilt, and the lines after it are typed again as the rebuilt header's version reads them.
    if typed.header.is_none()
        && let Header::Valid(_, line) = &scan.header
    {
        let refusal = typed
            .refused
            .iter()
            .find(|bad| bad.line == line.number)
            .map_or_else(
                || "not a session header".to_owned(),
                |bad| bad.reason.clone(),
            );
        scan.header = Header::Damaged(line.refused(refusal));
        typed = type_lines(path, None, &scan.lines)?;
    }
    // Whatever the reader refuses is moved aside, in file order.
    scan.bad.extend(typed.refused);
    scan.bad.sort_by_key(|bad| bad.line);
    let version = typed.version;
    let mut report = RepairReport::default();
    let mut rebuilt = None;
    let damaged_header = match &scan.header {
        Header::Valid(..) => None,
        Header::Damaged(bad) => {
            let start = bad.offset as usize;
            Some((
                &bytes[start..(start + bad.length as usize).min(bytes.len())],
                Some(bad.clone()),
            ))
        }
        Header::Missing => Some((&[][..], None)),
    };
    if let Some((damaged, bad)) = damaged_header {
        let Some(mut header) = salvaged_header(path, damaged) else {
            return Err(SessionError::NotASession {
                path: path.to_owned(),
                reason: "its header is damaged and neither the file name nor the damaged line \
                    holds a session id"
                    .to_owned(),
            });
        };
        let cwd_recovered = !header.cwd.is_empty();
        if !cwd_recovered {
            fallback_cwd.clone_into(&mut header.cwd);
        }
        report.rebuilt_header = Some(RebuiltHeader {
            id: header.id.clone(),
            cwd: header.cwd.clone(),
            cwd_recovered,
            replaced: bad.is_some(),
        });
        rebuilt = Some(serialize_line(&Line::Header(header))?);
        scan.bad.splice(0..0, bad);
    }
    if scan.bad.is_empty() && rebuilt.is_none() {
        if let Some(torn) = &scan.torn {
            report.torn = Some(if dry_run {
                if torn.complete {
                    TornRepair::Completed
                } else {
                    TornRepair::MovedTo(side_path(path, "torn"))
                }
            } else {
                repair_torn_tail(path, torn)?
            });
        }
        if version < u64::from(CURRENT_VERSION) {
            report.migrated_from = Some(u32::try_from(version).unwrap_or(1));
            if !dry_run {
                let loaded = load(path)?;
                rewrite(&loaded, "pre-migration")?;
            }
        }
        return Ok(report);
    }
    // Rebuild the file without the bad lines (and without a torn fragment).
    let mut kept = Vec::with_capacity(bytes.len());
    if let Some(header) = &rebuilt {
        kept.extend_from_slice(header.as_bytes());
    }
    let mut dropped = Vec::new();
    let mut offset = 0usize;
    for bad in &scan.bad {
        let start = bad.offset as usize;
        kept.extend_from_slice(&bytes[offset..start]);
        let end = start + bad.length as usize;
        dropped.extend_from_slice(&bytes[start..end]);
        if !bytes[start..end].ends_with(b"\n") {
            dropped.push(b'\n');
        }
        report.dropped_lines.push(bad.line);
        offset = end;
    }
    let tail_end = scan
        .torn
        .as_ref()
        .filter(|torn| !torn.complete)
        .map_or(bytes.len(), |torn| torn.offset as usize);
    if offset < tail_end {
        kept.extend_from_slice(&bytes[offset..tail_end]);
    }
    if let Some(torn) = scan.torn.as_ref().filter(|torn| !torn.complete) {
        dropped.extend_from_slice(&torn.bytes);
        dropped.push(b'\n');
    }
    if !kept.ends_with(b"\n") {
        kept.push(b'\n');
    }
    // A lost header is only added back: then nothing may need keeping aside.
    let side = (!dropped.is_empty()).then(|| side_path(path, "corrupt"));
    report.side_file.clone_from(&side);
    if dry_run {
        return Ok(report);
    }
    if let Some(side) = &side {
        pfs::create_new_atomic(side, &dropped)
            .map_err(|error| SessionError::io("cannot write the side file", side, error))?;
    }
    pfs::write_atomic(path, &kept)
        .map_err(|error| SessionError::io("cannot rewrite", path, error))?;
    if version < u64::from(CURRENT_VERSION) {
        report.migrated_from = Some(u32::try_from(version).unwrap_or(1));
        let loaded = load(path)?;
        rewrite(&loaded, "pre-migration")?;
    }
    Ok(report)
}

/// Rewrite a loaded session in the current format, keeping the previous bytes in a side file.
pub(super) fn rewrite(loaded: &LoadedSession, what: &str) -> Result<PathBuf, SessionError> {
    let path = &loaded.path;
    let side = side_path(path, what);
    let original =
        std::fs::read(path).map_err(|error| SessionError::io("cannot read", path, error))?;
    pfs::create_new_atomic(&side, &original)
        .map_err(|error| SessionError::io("cannot back up", &side, error))?;
    let mut header = loaded.header.clone();
    header.version = Some(CURRENT_VERSION);
    let mut text = serialize_line(&Line::Header(header))?;
    for entry in &loaded.entries {
        text.push_str(&serialize_line(&Line::Entry(entry.clone()))?);
    }
    pfs::write_atomic(path, text.as_bytes())
        .map_err(|error| SessionError::io("cannot rewrite", path, error))?;
    Ok(side)
}

fn serialize_line(line: &Line) -> Result<String, SessionError> {
    match line {
        Line::Header(header) => record::to_line(header),
        Line::Entry(entry) => record::to_line(entry),
    }
    .map_err(|error| SessionError::Serialize(error.to_string()))
}

/// File name for a new session: `<ISO timestamp with : and . replaced by ->_<uuid>.jsonl`.
///
/// One path component whatever the timestamp holds: every character but ASCII letters, digits,
/// `-` and `+` becomes `-`. A session copied from a session store is named from a header
/// another machine wrote (SPEC §19), and a `/` in its timestamp must not put the file outside
/// the sessions directory (an absolute one would replace the directory in `join`).
pub fn file_name(timestamp_iso: &str, id: &str) -> String {
    let stamp: String = timestamp_iso
        .chars()
        .map(|character| match character {
            'A'..='Z' | 'a'..='z' | '0'..='9' | '-' | '+' => character,
            _ => '-',
        })
        .collect();
    format!("{stamp}_{id}.jsonl")
}

/// The session id a file name of [`file_name`]'s shape holds (`None` for another name).
pub fn id_in_file_name(name: &str) -> Option<&str> {
    let (_, id) = name.strip_suffix(".jsonl")?.rsplit_once('_')?;
    uuid::Uuid::try_parse(id).ok().map(|_| id)
}

/// The session id a file name of [`file_name`]'s shape holds, and its creation time when that
/// reads back as a timestamp: what is known of a session whose header is unreadable.
pub fn identity_from_file_name(path: &Path) -> Option<(String, Option<String>)> {
    let stem = path.file_name()?.to_str()?.strip_suffix(".jsonl")?;
    let (stamp, id) = stem.rsplit_once('_')?;
    uuid::Uuid::parse_str(id).ok()?;
    // `2026-11-30T10-00-00-000Z` was `2026-11-30T10:00:00.000Z`.
    let mut timestamp = stamp.as_bytes().to_vec();
    if timestamp.len() == 24 {
        timestamp[13] = b':';
        timestamp[16] = b':';
        timestamp[19] = b'.';
    }
    let timestamp = String::from_utf8(timestamp).ok().filter(|timestamp| {
        time::OffsetDateTime::parse(timestamp, &time::format_description::well_known::Rfc3339)
            .is_ok()
    });
    Some((id.to_owned(), timestamp))
}

/// A header for a session whose first line (`damaged`) is not a readable header: the id and
/// creation time from the file name, else from the damaged line, and the cwd and parent session
/// from the damaged line when they can still be read there (the cwd is empty otherwise). `None`
/// when no id can be found.
pub fn salvaged_header(path: &Path, damaged: &[u8]) -> Option<SessionHeader> {
    let text = String::from_utf8_lossy(damaged);
    let (named_id, named_time) = identity_from_file_name(path).unzip();
    let id = named_id.or_else(|| salvaged_string(&text, "id"))?;
    Some(SessionHeader {
        version: Some(CURRENT_VERSION),
        id,
        timestamp: named_time
            .flatten()
            .or_else(|| salvaged_string(&text, "timestamp"))
            .unwrap_or_else(record::now_iso),
        cwd: salvaged_string(&text, "cwd").unwrap_or_default(),
        parent_session: salvaged_string(&text, "parentSession"),
        extra: serde_json::Map::new(),
    })
}

/// The string value of `"key":` in a line that may not parse as a whole.
fn salvaged_string(text: &str, key: &str) -> Option<String> {
    let pattern = format!("\"{key}\"");
    text.match_indices(&pattern).find_map(|(position, _)| {
        let rest = text[position + pattern.len()..]
            .trim_start()
            .strip_prefix(':')?;
        let mut values =
            serde_json::Deserializer::from_str(rest.trim_start()).into_iter::<String>();
        values.next()?.ok()
    })
}

/// Create a new session file holding `header` and `entries`, atomically (never headerless).
pub fn create(
    dir: &Path,
    header: &SessionHeader,
    entries: &[Entry],
) -> Result<PathBuf, SessionError> {
    pfs::create_dir_all(dir)
        .map_err(|error| SessionError::io("cannot create the sessions directory", dir, error))?;
    pfs::sweep_staging_if_due(dir);
    let path = dir.join(file_name(&header.timestamp, &header.id));
    // In the index's transaction, so that the next command knows the file without listing
    // the directory (`session::index`).
    super::index::db::changing(dir, |touched| {
        let created = create_file(&path, header, entries, pfs::create_new_atomic);
        touched.push(path.clone());
        created
    })
}

/// [`create`], with the new session's lock taken before the file appears and kept: no other
/// run can take the session between its creation and this one's first append.
pub fn create_locked(
    dir: &Path,
    header: &SessionHeader,
    entries: &[Entry],
) -> Result<(SessionWriter, LoadedSession), SessionError> {
    pfs::create_dir_all(dir)
        .map_err(|error| SessionError::io("cannot create the sessions directory", dir, error))?;
    pfs::sweep_staging_if_due(dir);
    let path = dir.join(file_name(&header.timestamp, &header.id));
    // The lock file and the session file are made in the index's transaction, so that the
    // next command knows them without listing the directory (`session::index`).
    let lock = super::index::db::changing(dir, |touched| {
        let lock = SessionLock::acquire(&path, None)?;
        // The writer's first sync makes the file and its name durable (SPEC §5.3 syncs per
        // message), so the creation itself does not sync: one fdatasync and one directory
        // fsync before the first request instead of three syncs.
        let created = create_file(&path, header, entries, pfs::create_new_unsynced);
        touched.push(path.clone());
        created.map(|_| lock)
    })?;
    let (mut writer, loaded, _) = open_locked(lock)?;
    writer.directory_unsynced = Some(dir.to_owned());
    Ok((writer, loaded))
}

fn create_file(
    path: &Path,
    header: &SessionHeader,
    entries: &[Entry],
    create: fn(&Path, &[u8]) -> io::Result<()>,
) -> Result<PathBuf, SessionError> {
    let path = path.to_owned();
    let mut text = serialize_line(&Line::Header(header.clone()))?;
    for entry in entries {
        text.push_str(&serialize_line(&Line::Entry(entry.clone()))?);
    }
    create(&path, text.as_bytes())
        .map_err(|error| SessionError::io("cannot create", &path, error))?;
    Ok(path)
}

/// The directory beside session files that holds their lock files, so that no empty lock file
/// sits beside each session. Its own entries change only its stamp, not the sessions
/// directory's, which the index watches (`session::index`).
pub const LOCKS_DIR: &str = ".locks";

/// The lock file of the session at `path`: `.locks/<file>.lock` in the session's directory.
pub fn lock_file(path: &Path) -> PathBuf {
    let dir = path.parent().unwrap_or(Path::new(""));
    let mut name = path.file_name().unwrap_or_default().to_owned();
    name.push(".lock");
    dir.join(LOCKS_DIR).join(name)
}

/// The exclusive right to append to one session, held until dropped.
#[derive(Debug)]
pub struct SessionLock {
    legacy: Option<FileLock>,
    lock: FileLock,
    path: PathBuf,
}

impl SessionLock {
    /// Lock the session at `path`: fail at once when busy, or wait up to `wait`.
    ///
    /// An older pincer locked `<file>.lock` beside the session. Where such a file is there (a
    /// home an older pincer used), it is locked too, first, so that an older pincer running on
    /// the same session is still kept out; pincer no longer creates it.
    pub fn acquire(path: &Path, wait: Option<Duration>) -> Result<SessionLock, SessionError> {
        Self::take(path, |lock_file| FileLock::acquire(lock_file, wait))
    }

    /// Lock the session at `path` if it is free, to remove it at once: no wait, and no note of
    /// the holder written only to be deleted ([`FileLock::acquire_briefly`]).
    pub fn acquire_to_remove(path: &Path) -> Result<SessionLock, SessionError> {
        Self::take(path, FileLock::acquire_briefly)
    }

    fn take(
        path: &Path,
        acquire: impl Fn(&Path) -> Result<FileLock, LockError>,
    ) -> Result<SessionLock, SessionError> {
        let refused = |error| {
            SessionError::from_lock(
                error,
                || format!("session '{}'", path.display()),
                |holder| SessionError::Busy {
                    id: super::error::session_label(path),
                    name: None,
                    holder,
                },
            )
        };
        let take = |lock_file: &Path| acquire(lock_file).map_err(refused);
        let legacy_file = pfs::lock_path(path);
        let legacy = match legacy_file.exists() {
            true => Some(take(&legacy_file)?),
            false => None,
        };
        let lock_file = lock_file(path);
        let lock = match acquire(&lock_file) {
            // The first lock of a home, or one whose `.locks` was removed: make it, once.
            Err(LockError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
                let dir = path.parent().unwrap_or(Path::new(""));
                super::index::db::make_locks_dir(dir, &dir.join(LOCKS_DIR)).map_err(|source| {
                    refused(LockError::Io {
                        path: dir.join(LOCKS_DIR),
                        source,
                    })
                })?;
                take(&lock_file)?
            }
            taken => taken.map_err(refused)?,
        };
        Ok(SessionLock {
            legacy,
            lock,
            path: path.to_owned(),
        })
    }

    /// Whether some run holds the lock of the session at `path` now (an older pincer holds
    /// `<file>.lock` beside it).
    pub fn is_held(path: &Path) -> bool {
        FileLock::is_held(&lock_file(path)) || FileLock::is_held(&pfs::lock_path(path))
    }

    /// The session file this lock guards.
    pub fn session_path(&self) -> &Path {
        &self.path
    }

    /// Remove the lock files of a session that was just deleted, still holding them.
    pub fn remove_files(&self) {
        self.lock.remove_file(&lock_file(&self.path));
        if let Some(legacy) = &self.legacy {
            legacy.remove_file(&pfs::lock_path(&self.path));
        }
    }
}

/// Load a session for appending: lock it, repair a torn tail (with a warning for the caller),
/// migrate an old format (keeping the old bytes aside), and open it for appends.
pub fn open_for_append(
    path: &Path,
    wait: Option<Duration>,
) -> Result<(SessionWriter, LoadedSession, Option<TornRepair>), SessionError> {
    open_locked(SessionLock::acquire(path, wait)?)
}

/// [`open_for_append`] for a session whose lock is already held.
pub fn open_locked(
    lock: SessionLock,
) -> Result<(SessionWriter, LoadedSession, Option<TornRepair>), SessionError> {
    let path = lock.session_path().to_owned();
    let mut loaded = load(&path)?;
    let mut torn_repair = None;
    if let Some(torn) = loaded.torn.take() {
        torn_repair = Some(repair_torn_tail(&path, &torn)?);
    }
    if loaded.needs_migration() {
        rewrite(&loaded, "pre-migration")?;
        loaded.disk_version = CURRENT_VERSION;
        loaded.header.version = Some(CURRENT_VERSION);
    }
    let writer = SessionWriter::open(lock, &loaded)?;
    Ok((writer, loaded, torn_repair))
}

/// Appends entries to a locked session file.
#[derive(Debug)]
pub struct SessionWriter {
    lock: SessionLock,
    file: File,
    identity: (u64, u64),
    ids: IdSet,
    leaf: Option<String>,
    /// The directory of a file created without a sync, to fsync with the file's first sync.
    directory_unsynced: Option<PathBuf>,
}

impl SessionWriter {
    /// Open `loaded.path` for appending under `lock`.
    pub fn open(lock: SessionLock, loaded: &LoadedSession) -> Result<SessionWriter, SessionError> {
        let path = &loaded.path;
        let file = OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(|error| SessionError::io("cannot open for appending", path, error))?;
        let metadata = file
            .metadata()
            .map_err(|error| SessionError::io("cannot stat", path, error))?;
        Ok(SessionWriter {
            lock,
            file,
            identity: (metadata.dev(), metadata.ino()),
            ids: loaded
                .entries
                .iter()
                .map(|entry| entry.id().to_owned())
                .collect(),
            leaf: loaded.leaf_id().map(str::to_owned),
            directory_unsynced: None,
        })
    }

    /// The session file.
    pub fn path(&self) -> &Path {
        self.lock.session_path()
    }

    /// The current leaf (parent of the next entry).
    pub fn leaf(&self) -> Option<&str> {
        self.leaf.as_deref()
    }

    /// A fresh entry id, unique among the entries the writer was opened with: the whole file's
    /// after [`open_for_append`], the entries read after [`super::tail::open_for_append`] (see
    /// [`super::tail`] for why that is enough).
    pub fn next_id(&self) -> String {
        record::new_entry_id(&|candidate: &str| self.ids.contains(candidate))
    }

    /// Append one entry as one write of one complete line; the entry becomes the leaf.
    pub fn append(&mut self, entry: &Entry) -> Result<(), SessionError> {
        let path = self.lock.session_path().to_owned();
        // The file must still be the one we opened: never write into a vanished or replaced file.
        match std::fs::metadata(&path) {
            Ok(metadata) if (metadata.dev(), metadata.ino()) == self.identity => {}
            _ => return Err(SessionError::Vanished { path }),
        }
        let line = serialize_line(&Line::Entry(entry.clone()))?;
        self.file
            .write_all(line.as_bytes())
            .map_err(|error| SessionError::io("cannot append to", &path, error))?;
        self.ids.insert(entry.id().to_owned());
        self.leaf = Some(entry.id().to_owned());
        Ok(())
    }

    /// `fdatasync` the file: call after each completed message and at the end of a run. The
    /// first sync of a file [`create_locked`] made also fsyncs its directory, after the file, so
    /// that its name survives a power loss only with its content.
    pub fn sync(&mut self) -> Result<(), SessionError> {
        self.file
            .sync_data()
            .map_err(|error| SessionError::io("cannot sync", self.lock.session_path(), error))?;
        if let Some(dir) = &self.directory_unsynced {
            pfs::sync_dir(dir).map_err(|error| SessionError::io("cannot sync", dir, error))?;
            self.directory_unsynced = None;
        }
        Ok(())
    }
}

/// Build `entry`, filling `id`, `parentId` and `timestamp` for `writer`.
pub fn new_entry(
    writer: &SessionWriter,
    entry: record::NewEntry<'_>,
) -> Result<Entry, SessionError> {
    entry
        .build(&writer.next_id(), writer.leaf())
        .map_err(|error| SessionError::Serialize(error.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "7f3e9a10-1111-4222-8333-444455556666";

    /// Issue #49: a header from a session store names the local copy; its timestamp can
    /// never make the name a path.
    #[test]
    fn a_file_name_is_one_path_component_whatever_the_timestamp_holds() {
        assert_eq!(
            file_name("2026-11-30T10:00:00.000Z", ID),
            format!("2026-11-30T10-00-00-000Z_{ID}.jsonl")
        );
        assert_eq!(
            file_name("2026-11-30T10:00:00+02:00", ID),
            format!("2026-11-30T10-00-00+02-00_{ID}.jsonl")
        );
        for hostile in ["/etc/cron.d/x", "../../x", "a\\b", "x\0y", "/"] {
            let name = file_name(hostile, ID);
            assert_eq!(Path::new(&name).components().count(), 1, "{name}");
            assert!(!name.contains('/') && !name.starts_with('.'), "{name}");
            assert_eq!(id_in_file_name(&name), Some(ID), "{name}");
        }
    }

    fn file_in(dir: &Path, text: &str) -> PathBuf {
        let path = dir.join(format!("2026-11-30T10-00-00-000Z_{ID}.jsonl"));
        std::fs::write(&path, text).unwrap();
        path
    }

    const ENTRY: &str = r#"{"type":"session_info","id":"a0000001","parentId":null,"timestamp":"2026-11-30T10:00:01.000Z","name":"weekly"}"#;
    const ENTRY2: &str = r#"{"type":"session_info","id":"a0000002","parentId":"a0000001","timestamp":"2026-11-30T10:00:02.000Z","name":"daily"}"#;

    #[test]
    fn a_lock_file_an_older_pincer_left_is_held_too() {
        let dir = tempfile::tempdir().unwrap();
        let path = file_in(dir.path(), "");
        // A home an older pincer used: `<file>.lock` beside the session.
        let legacy = pfs::lock_path(&path);
        std::fs::write(&legacy, "").unwrap();
        let lock = SessionLock::acquire(&path, None).unwrap();
        assert!(lock_file(&path).exists());
        // What an older pincer would do: lock the file beside the session, without waiting.
        assert!(
            FileLock::acquire(&legacy, None).is_err(),
            "an older pincer got in"
        );
        drop(lock);
        assert!(FileLock::acquire(&legacy, None).is_ok());
        // And the other way round: an older pincer holding it keeps this one out.
        let old = FileLock::acquire(&legacy, None).unwrap();
        assert!(SessionLock::is_held(&path));
        assert!(SessionLock::acquire(&path, None).is_err());
        drop(old);
        assert!(!SessionLock::is_held(&path));
    }

    #[test]
    fn a_new_session_gets_no_lock_file_beside_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = file_in(dir.path(), "");
        let lock = SessionLock::acquire(&path, None).unwrap();
        assert!(SessionLock::is_held(&path));
        assert!(!pfs::lock_path(&path).exists());
        assert_eq!(
            lock_file(&path),
            dir.path().join(".locks").join(format!(
                "{}.lock",
                path.file_name().unwrap().to_string_lossy()
            ))
        );
        drop(lock);
        assert!(!SessionLock::is_held(&path));
    }

    #[test]
    fn the_file_name_gives_back_the_id_and_the_creation_time() {
        let path = Path::new("/s").join(file_name("2026-11-30T10:00:00.000Z", ID));
        assert_eq!(
            identity_from_file_name(&path),
            Some((ID.to_owned(), Some("2026-11-30T10:00:00.000Z".to_owned())))
        );
        let odd_stamp = Path::new(&format!("/s/yesterday_{ID}.jsonl")).to_owned();
        assert_eq!(
            identity_from_file_name(&odd_stamp),
            Some((ID.to_owned(), None))
        );
        assert_eq!(identity_from_file_name(Path::new("/s/notes.jsonl")), None);
        assert_eq!(identity_from_file_name(Path::new("/s/a_b.jsonl")), None);
    }

    #[test]
    fn fields_are_read_from_a_header_line_that_does_not_parse() {
        let text = r#"{"type":"session",,"parentId":"p","cwd" : "/w \"x\"","id":"abc""#;
        assert_eq!(salvaged_string(text, "cwd").as_deref(), Some(r#"/w "x""#));
        assert_eq!(salvaged_string(text, "id").as_deref(), Some("abc"));
        assert_eq!(salvaged_string(text, "timestamp"), None);
        assert_eq!(salvaged_string(r#"{"cwd":"/unterminated"#, "cwd"), None);
    }

    #[test]
    fn a_damaged_header_before_entries_is_corruption_at_line_1() {
        let dir = tempfile::tempdir().unwrap();
        let path = file_in(dir.path(), &format!("{{\"type\":\"sess\n{ENTRY}\n"));
        match load(&path) {
            Err(SessionError::Corrupt { line, reason, .. }) => {
                assert_eq!(line, 1);
                assert!(reason.contains("header is damaged"), "{reason}");
            }
            other => panic!("{other:?}"),
        }
        let report = repair(&path, false, "/fallback").unwrap();
        assert_eq!(report.dropped_lines, [1]);
        assert_eq!(
            report.rebuilt_header,
            Some(RebuiltHeader {
                id: ID.to_owned(),
                cwd: "/fallback".to_owned(),
                cwd_recovered: false,
                replaced: true,
            })
        );
        let loaded = load(&path).unwrap();
        assert_eq!(loaded.header.id, ID);
        assert_eq!(loaded.header.timestamp, "2026-11-30T10:00:00.000Z");
        assert_eq!(loaded.entries.len(), 1);
    }

    #[test]
    fn a_lost_header_is_corruption_at_line_1_and_repair_adds_it_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = file_in(dir.path(), &format!("{ENTRY}\n"));
        match load(&path) {
            Err(SessionError::Corrupt { line, reason, .. }) => {
                assert_eq!(line, 1);
                assert!(reason.contains("header is missing"), "{reason}");
            }
            other => panic!("{other:?}"),
        }
        let report = repair(&path, false, "/w").unwrap();
        assert!(report.dropped_lines.is_empty());
        assert_eq!(report.side_file, None);
        assert!(report.rebuilt_header.is_some_and(|header| !header.replaced));
        let loaded = load(&path).unwrap();
        assert_eq!(
            (loaded.header.cwd.as_str(), loaded.entries.len()),
            ("/w", 1)
        );
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.ends_with(&format!("\n{ENTRY}\n")), "{text}");
    }

    /// Lines that are JSON objects but no record the reader accepts.
    const REFUSED_RECORDS: [&str; 7] = [
        r#"{"type":"message","id":"b0000001","parentId":null,"timestamp":"2026-11-30T10:00:01.000Z","message":{"role":"user","content":5,"timestamp":1}}"#,
        r#"{"id":"b0000002","parentId":null,"timestamp":"2026-11-30T10:00:01.000Z"}"#,
        r#"{"type":"model_change","id":"b0000003","parentId":null,"timestamp":"2026-11-30T10:00:01.000Z","provider":7,"modelId":"x"}"#,
        r#"{"type":"label","id":12,"parentId":null,"timestamp":"2026-11-30T10:00:01.000Z","targetId":"a","label":"x"}"#,
        r#"{"type":"session","version":3,"id":"7f3e9a10-1111-4222-8333-444455556666","timestamp":"2026-11-30T10:00:00.000Z","cwd":"/"}"#,
        r#"{"type":"thinking_level_change","id":"b0000004","parentId":null,"timestamp":"2026-11-30T10:00:01.000Z","thinkingLevel":{"high":true}}"#,
        r#"{"type":"message","id":"b0000005","parentId":null,"timestamp":"2026-11-30T10:00:01.000Z","message":{"role":"assistant","content":[],"api":"a","provider":"p","model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"sleepy","timestamp":9}}"#,
    ];

    /// First lines: good and damaged headers of several versions, and none at all.
    const HEADERS: [&str; 6] = [
        r#"{"type":"session","version":3,"id":"7f3e9a10-1111-4222-8333-444455556666","timestamp":"2026-11-30T10:00:00.000Z","cwd":"/w"}"#,
        r#"{"type":"session","version":2,"id":"7f3e9a10-1111-4222-8333-444455556666","timestamp":"2026-11-30T10:00:00.000Z","cwd":"/w"}"#,
        r#"{"type":"session","version":3,"id":"7f3e9a10-1111-4222-8333-444455556666","cwd":"/w"}"#,
        r#"{"type":"session","version":"3","id":"7f3e9a10-1111-4222-8333-444455556666","timestamp":"2026-11-30T10:00:00.000Z","cwd":"/w"}"#,
        r#"{"type":"sess"#,
        ENTRY,
    ];

    /// xorshift64*, so the generated files are the same on every run.
    struct Random(u64);

    impl Random {
        fn below(&mut self, bound: usize) -> usize {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % bound
        }
    }

    /// A session file of valid entries, refused records, lines that are no JSON object, blank
    /// lines and perhaps a torn tail, under one of [`HEADERS`].
    fn generated_file(seed: u64) -> String {
        let mut random = Random(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
        let mut text = format!("{}\n", HEADERS[random.below(HEADERS.len())]);
        let mut parent = "null".to_owned();
        for n in 0..random.below(12) {
            let line = match random.below(10) {
                0 => REFUSED_RECORDS[random.below(REFUSED_RECORDS.len())].to_owned(),
                1 => "not json at all".to_owned(),
                2 => "[1,2]".to_owned(),
                3 => String::new(),
                _ => {
                    let id = format!("{:08x}", 0xc000_0000_u32 + n as u32);
                    let line = format!(
                        r#"{{"type":"session_info","id":"{id}","parentId":{parent},"timestamp":"2026-11-30T10:00:0{}.000Z","name":"n{n}"}}"#,
                        n % 10
                    );
                    parent = format!("\"{id}\"");
                    line
                }
            };
            text.push_str(&line);
            text.push('\n');
        }
        match random.below(4) {
            0 => text.push_str(r#"{"type":"message","id":"dead"#),
            1 => text.push_str(REFUSED_RECORDS[random.below(REFUSED_RECORDS.len())]),
            _ => {}
        }
        text
    }

    /// The property that keeps `sessions repair` and the reader in step: whatever line loading
    /// refuses, a repair (and its dry run) names and moves aside, after which the file loads;
    /// and a file that loads needs no line moved.
    #[test]
    fn repair_moves_aside_exactly_the_lines_loading_refuses() {
        let dir = tempfile::tempdir().unwrap();
        let mut refused = 0;
        for seed in 0..600 {
            let text = generated_file(seed);
            let path = file_in(dir.path(), &text);
            let loaded = load(&path);
            let dry = repair(&path, true, "/w");
            assert_eq!(
                std::fs::read_to_string(&path).unwrap(),
                text,
                "{seed}: dry run"
            );
            match &loaded {
                Ok(_) => {
                    let report = dry.unwrap();
                    assert!(
                        report.dropped_lines.is_empty(),
                        "{seed}: {report:?}\n{text}"
                    );
                    assert_eq!(report.rebuilt_header, None, "{seed}\n{text}");
                }
                Err(SessionError::Corrupt { line, .. }) => {
                    refused += 1;
                    let report = dry.unwrap();
                    assert!(
                        report.dropped_lines.contains(line)
                            || (*line == 1 && report.rebuilt_header.is_some()),
                        "{seed}: load refuses line {line}, repair would move {:?}\n{text}",
                        report.dropped_lines
                    );
                    let done = repair(&path, false, "/w").unwrap();
                    assert_eq!(done.dropped_lines, report.dropped_lines, "{seed}");
                    let reloaded = load(&path);
                    assert!(reloaded.is_ok(), "{seed}: {reloaded:?}\n{text}");
                    assert_eq!(reloaded.unwrap().torn, None, "{seed}");
                }
                Err(error) => {
                    assert!(
                        dry.is_err(),
                        "{seed}: load: {error}; repair: {dry:?}\n{text}"
                    );
                }
            }
            std::fs::remove_dir_all(dir.path()).unwrap();
            std::fs::create_dir(dir.path()).unwrap();
        }
        assert!(
            refused > 200,
            "most generated files need a repair ({refused})"
        );
    }

    #[test]
    fn a_second_header_or_an_invalid_record_in_the_middle_is_moved_aside_whole() {
        let dir = tempfile::tempdir().unwrap();
        for record in REFUSED_RECORDS {
            let header = HEADERS[0];
            let text = format!("{header}\n{ENTRY}\n{record}\n{ENTRY2}\n");
            let path = file_in(dir.path(), &text);
            assert!(
                matches!(load(&path), Err(SessionError::Corrupt { line: 3, .. })),
                "{record}"
            );
            let report = repair(&path, false, "/w").unwrap();
            assert_eq!(report.dropped_lines, [3], "{record}");
            let side = report.side_file.unwrap();
            assert_eq!(
                std::fs::read_to_string(&side).unwrap(),
                format!("{record}\n")
            );
            assert_eq!(
                std::fs::read_to_string(&path).unwrap(),
                format!("{header}\n{ENTRY}\n{ENTRY2}\n")
            );
            std::fs::remove_file(side).unwrap();
        }
    }

    #[test]
    fn a_header_the_reader_refuses_is_rebuilt_from_the_file_name() {
        let dir = tempfile::tempdir().unwrap();
        // No timestamp: a header by its type and id, but not one the reader takes.
        let path = file_in(dir.path(), &format!("{}\n{ENTRY}\n", HEADERS[2]));
        match load(&path) {
            Err(SessionError::Corrupt { line, reason, .. }) => {
                assert_eq!(line, 1);
                assert!(reason.contains("header is damaged"), "{reason}");
            }
            other => panic!("{other:?}"),
        }
        let report = repair(&path, false, "/elsewhere").unwrap();
        assert_eq!(report.dropped_lines, [1]);
        assert_eq!(
            report.rebuilt_header,
            Some(RebuiltHeader {
                id: ID.to_owned(),
                cwd: "/w".to_owned(),
                cwd_recovered: true,
                replaced: true,
            })
        );
        let loaded = load(&path).unwrap();
        assert_eq!(loaded.header.timestamp, "2026-11-30T10:00:00.000Z");
        assert_eq!(loaded.entries.len(), 1);
    }

    #[test]
    fn a_file_of_other_json_lines_is_still_no_session() {
        let dir = tempfile::tempdir().unwrap();
        let path = file_in(
            dir.path(),
            "{\"uuid\":\"1\",\"type\":\"user\"}\n{\"x\":2}\n",
        );
        assert!(matches!(load(&path), Err(SessionError::NotASession { .. })));
        assert!(matches!(
            repair(&path, true, "/w"),
            Err(SessionError::NotASession { .. })
        ));
        let path = file_in(dir.path(), "garbage\n");
        match load(&path) {
            Err(SessionError::NotASession { reason, .. }) => {
                assert!(reason.starts_with("line 1 is not JSON"), "{reason}");
            }
            other => panic!("{other:?}"),
        }
    }
}
