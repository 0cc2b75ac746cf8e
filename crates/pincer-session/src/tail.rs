//! Reading a session from its end, so that resuming a big file costs what its rebuilt context
//! costs, not what the file weighs (SPEC §12.1).
//!
//! The context of a session is the root→leaf branch, and when that branch holds a compaction only
//! the part from the latest compaction's `firstKeptEntryId` on matters (see
//! [`super::context::build_context`]). The leaf is the last entry of the file and every parent is
//! written before its children, so walking the file backwards from its end, line by line,
//! following `parentId`s, reaches everything a resume needs and can stop there:
//! - at the latest compaction's first kept entry, when the branch has a compaction;
//! - right at the compaction when its `firstKeptEntryId` is empty;
//! - at the root otherwise (then the whole branch is the context, and is read).
//!
//! What was read is returned as a [`LoadedSession`] whose entries are the file's last ones, every
//! entry from the stopping point to the end (other branches included), in file order. Both
//! [`super::context::build_context`] and compaction planning (the engine's `compaction::cut::plan`)
//! give the same result over them as over the whole file: the branch walk ends at the first kept
//! entry (its parent is not among them), and that is where both start looking.
//!
//! The rules of [`store::load`] hold for the part that is read: a torn final line is reported (a
//! bad last line counts as torn too), a bad line before valid ones is corruption. Whenever the
//! reader meets something it does not handle itself — corruption, an old format version, a
//! second header, a parent written after its child — it hands the file to [`store::load`], which
//! gives the exact answer or error a full load gives. A bad line in the part not read is not
//! seen; `sessions repair` and the index (which summarizes new files in full) still find it.
//!
//! Three small facts may lie before the stopping point: the session's name (its latest
//! `session_info`), and the model and thinking level in effect (the branch's latest
//! `model_change` or assistant message, and `thinking_level_change`). [`complete_facts`] takes
//! them from the index when its entry is fresh, and otherwise walks on towards the start of the
//! file, fully parsing only the few lines that can decide them.
//!
//! Entry ids: a writer avoids the ids of the entries read, not of the whole file; scanning the
//! rest for ids would cost the full read this module exists to avoid. A new 8-hex id equals an
//! unread one with probability n / 2^32 for n unread entries (about 2e-5 per new entry in a
//! 100 MB file). Even then the branch the new entry extends keeps its context: every parent link
//! from the first kept entry to the leaf names an entry that was read, so a full reader (where
//! later entries win a repeated id) still walks from the leaf through the first kept entry. What
//! can change is older history: the path a full reader shows before the first kept entry, or a
//! branch a user later forks off before the new entry.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use super::context::branch_path;
use super::ids::IdSet;
use super::record::{self, AgentMessage, Entry, Line, SessionHeader};
use super::store::{
    self, CURRENT_VERSION, LoadedSession, SessionError, SessionLock, SessionWriter, TornRepair,
    TornTail,
};
use super::summary::{SessionSummary, session_name};

/// How much is read per step backwards; a longer line doubles it until the line fits.
const CHUNK: usize = 64 * 1024;
/// A first line longer than this is not a header worth reading here (the full reader decides).
const MAX_HEADER: usize = 1024 * 1024;

/// The settings a resume continues with, which may lie anywhere before the leaf.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionFacts {
    /// The name set by the file's latest `session_info` entry.
    pub name: Option<String>,
    /// `(provider, model id)` from the branch's latest `model_change` or assistant message.
    pub model: Option<(String, String)>,
    /// The branch's latest `thinking_level_change`.
    pub thinking_level: Option<String>,
}

impl SessionFacts {
    /// The model as `provider/model`, when one is recorded.
    pub fn model_ref(&self) -> Option<String> {
        self.model
            .as_ref()
            .map(|(provider, model)| format!("{provider}/{model}"))
    }

    /// The same facts as an index summary of the whole file states them.
    pub fn from_summary(summary: &SessionSummary) -> SessionFacts {
        SessionFacts {
            name: summary.name.clone(),
            model: summary.provider.clone().zip(summary.model.clone()),
            thinking_level: summary.thinking_level.clone(),
        }
    }
}

/// The facts of a fully loaded session: what [`complete_facts`] must agree with.
pub fn facts_of(entries: &[Entry]) -> SessionFacts {
    let mut facts = SessionFacts::default();
    for entry in entries {
        if let Entry::SessionInfo(info) = entry {
            facts.name = session_name(info);
        }
    }
    for entry in branch_path(entries, None) {
        match entry {
            Entry::ModelChange(change) => {
                facts.model = Some((change.provider.clone(), change.model_id.clone()));
            }
            Entry::Message(message) => {
                if let AgentMessage::Assistant(assistant) = &message.message {
                    facts.model = Some((assistant.provider.clone(), assistant.model.clone()));
                }
            }
            Entry::ThinkingLevelChange(change) => {
                facts.thinking_level = Some(change.thinking_level.clone());
            }
            _ => {}
        }
    }
    facts
}

/// A session read from its end.
#[derive(Debug, Clone)]
pub struct TailSession {
    /// Header, the entries read (the file's last ones, in file order) and a torn tail. Its
    /// `entries` rebuild the same context as the whole file's.
    pub session: LoadedSession,
    /// Byte offset of the first entry read; 0 when the full reader loaded the file.
    pub start: u64,
    /// Whether every entry of the file was read.
    pub whole: bool,
    /// The facts, as far as the part read decides them (see [`complete_facts`]).
    pub facts: SessionFacts,
    walk: Walk,
}

/// Which facts the part read decided, and where a walk for the others goes on.
#[derive(Debug, Clone, Default)]
struct Walk {
    name: bool,
    model: bool,
    thinking: bool,
    /// The id of the next branch entry further back, when the branch goes on.
    branch_next: Option<String>,
    /// Where the header ends.
    floor: u64,
}

impl Walk {
    fn decided() -> Walk {
        Walk {
            name: true,
            model: true,
            thinking: true,
            ..Walk::default()
        }
    }

    fn all(&self) -> bool {
        self.name && self.model && self.thinking
    }
}

fn io_error(action: &'static str, path: &Path, source: io::Error) -> SessionError {
    SessionError::Io {
        action,
        path: path.to_owned(),
        source,
    }
}

/// Read what a resume needs from the end of the session file at `path`. A torn tail is reported
/// in `session.torn`, not repaired (that needs the lock: [`open_for_append`]).
pub fn load(path: &Path) -> Result<TailSession, SessionError> {
    let file = File::open(path).map_err(|error| io_error("cannot read", path, error))?;
    let length = file
        .metadata()
        .map_err(|error| io_error("cannot stat", path, error))?
        .len();
    let Some((header, floor)) =
        read_header(&file, length).map_err(|error| io_error("cannot read", path, error))?
    else {
        return load_whole(path);
    };
    let walked =
        walk(&file, floor, length).map_err(|error| io_error("cannot read", path, error))?;
    let Some(walked) = walked else {
        return load_whole(path);
    };
    Ok(TailSession {
        session: LoadedSession {
            path: path.to_owned(),
            header,
            entries: walked.entries,
            disk_version: CURRENT_VERSION,
            torn: walked.torn,
        },
        start: walked.start,
        whole: walked.whole,
        facts: walked.facts,
        walk: walked.walk,
    })
}

/// Like [`store::open_for_append`], but reads only the end of the file a resume needs: lock,
/// read the tail, repair a torn tail, migrate an old format (which reads the whole file; such
/// files are rare and small). The writer knows the ids of the entries read.
pub fn open_for_append(
    path: &Path,
    wait: Option<Duration>,
) -> Result<(SessionWriter, TailSession, Option<TornRepair>), SessionError> {
    open_locked(SessionLock::acquire(path, wait)?)
}

/// [`open_for_append`] for a session whose lock the caller already holds (a caller that waits
/// for the lock in its own way, e.g. one a signal can interrupt).
pub fn open_locked(
    lock: SessionLock,
) -> Result<(SessionWriter, TailSession, Option<TornRepair>), SessionError> {
    let path = lock.session_path().to_owned();
    let path = path.as_path();
    let mut tail = load(path)?;
    let mut torn_repair = None;
    if let Some(torn) = tail.session.torn.take() {
        torn_repair = Some(store::repair_torn_tail(path, &torn)?);
    }
    if tail.session.needs_migration() {
        store::rewrite(&tail.session, "pre-migration")?;
        tail.session.disk_version = CURRENT_VERSION;
        tail.session.header.version = Some(CURRENT_VERSION);
    }
    let writer = SessionWriter::open(lock, &tail.session)?;
    Ok((writer, tail, torn_repair))
}

/// The full reader's answer, in the tail reader's shape.
fn load_whole(path: &Path) -> Result<TailSession, SessionError> {
    let session = store::load(path)?;
    let facts = facts_of(&session.entries);
    Ok(TailSession {
        session,
        start: 0,
        whole: true,
        facts,
        walk: Walk::decided(),
    })
}

/// The facts of the session: those the tail decided, else the index's summary of the whole file
/// (`cached`, called only when needed; it must describe the file as it is now), else a walk on
/// towards the start of the file.
pub fn complete_facts(
    tail: &TailSession,
    cached: impl FnOnce() -> Option<SessionSummary>,
) -> Result<SessionFacts, SessionError> {
    if tail.walk.all() {
        return Ok(tail.facts.clone());
    }
    if let Some(summary) = cached() {
        return Ok(SessionFacts::from_summary(&summary));
    }
    let path = &tail.session.path;
    let file = File::open(path).map_err(|error| io_error("cannot read", path, error))?;
    match walk_facts(&file, tail).map_err(|error| io_error("cannot read", path, error))? {
        Some(facts) => Ok(facts),
        None => Ok(facts_of(&store::load(path)?.entries)),
    }
}

/// The header from the first line, and where that line ends; `None` when the first line is not
/// a version 3 header the fast path can take (empty, torn, old, newer, malformed).
fn read_header(file: &File, length: u64) -> io::Result<Option<(SessionHeader, u64)>> {
    let mut bytes = Vec::new();
    let mut newline = None;
    while newline.is_none() && (bytes.len() as u64) < length && bytes.len() < MAX_HEADER {
        let step = 4096.min((length - bytes.len() as u64) as usize);
        let offset = bytes.len();
        bytes.resize(offset + step, 0);
        file.read_exact_at(&mut bytes[offset..], offset as u64)?;
        newline = bytes[offset..]
            .iter()
            .position(|byte| *byte == b'\n')
            .map(|position| offset + position);
    }
    let Some(end) = newline else {
        return Ok(None);
    };
    let Ok(text) = std::str::from_utf8(&bytes[..end]) else {
        return Ok(None);
    };
    let Ok(value) = record::parse_value(text.trim()) else {
        return Ok(None);
    };
    let version = value.get("version").and_then(Value::as_u64).unwrap_or(1);
    if version != u64::from(CURRENT_VERSION) || !value.get("id").is_some_and(Value::is_string) {
        return Ok(None);
    }
    match Line::from_value(value) {
        Ok(Line::Header(header)) => Ok(Some((header, end as u64 + 1))),
        _ => Ok(None),
    }
}

/// One line, read backwards.
#[derive(Debug)]
struct RawLine {
    /// Byte offset of its first byte.
    offset: u64,
    /// Its bytes, without the newline.
    bytes: Vec<u8>,
    /// Whether a newline ended it (only the file's last line can lack one).
    terminated: bool,
}

/// The lines of `[floor, end)` of a file, last first, read in chunks from the end.
struct BackwardLines<'a> {
    file: &'a File,
    floor: u64,
    /// Bytes before this offset are not loaded yet.
    pos: u64,
    /// Bytes `[pos, pos + buf.len())`, loaded and not returned; it ends at a line end.
    buf: Vec<u8>,
}

impl<'a> BackwardLines<'a> {
    fn new(file: &'a File, floor: u64, end: u64) -> BackwardLines<'a> {
        BackwardLines {
            file,
            floor,
            pos: end.max(floor),
            buf: Vec::new(),
        }
    }

    fn next_line(&mut self) -> io::Result<Option<RawLine>> {
        loop {
            let terminated = self.buf.last() == Some(&b'\n');
            let body = self.buf.len() - usize::from(terminated);
            let start = match memchr::memrchr(b'\n', &self.buf[..body]) {
                Some(newline) => Some(newline + 1),
                None if self.pos == self.floor && !self.buf.is_empty() => Some(0),
                None if self.pos == self.floor => return Ok(None),
                None => None,
            };
            if let Some(start) = start {
                let mut bytes = self.buf.split_off(start);
                if terminated {
                    bytes.pop();
                }
                return Ok(Some(RawLine {
                    offset: self.pos + start as u64,
                    bytes,
                    terminated,
                }));
            }
            self.load_more()?;
        }
    }

    /// Prepend the chunk before `pos`: at least [`CHUNK`] bytes, and as many as are already
    /// held, so a long line costs reads that double rather than a copy per chunk.
    fn load_more(&mut self) -> io::Result<()> {
        let want = CHUNK.max(self.buf.len()) as u64;
        let start = self.pos.saturating_sub(want).max(self.floor);
        let length = (self.pos - start) as usize;
        let mut bytes = vec![0; length + self.buf.len()];
        self.file.read_exact_at(&mut bytes[..length], start)?;
        bytes[length..].copy_from_slice(&self.buf);
        self.buf = bytes;
        self.pos = start;
        Ok(())
    }
}

/// What the backward walk found.
#[derive(Debug)]
struct Walked {
    entries: Vec<Entry>,
    start: u64,
    whole: bool,
    torn: Option<TornTail>,
    facts: SessionFacts,
    walk: Walk,
}

/// Walk back from the end of the file. `Ok(None)`: something only the full reader should judge.
fn walk(file: &File, floor: u64, end: u64) -> io::Result<Option<Walked>> {
    let mut lines = BackwardLines::new(file, floor, end);
    let mut reversed: Vec<Entry> = Vec::new();
    let mut seen: IdSet = IdSet::default();
    let mut torn: Option<TornTail> = None;
    let mut facts = SessionFacts::default();
    let mut state = Walk {
        floor,
        ..Walk::default()
    };
    let mut leaf_found = false;
    let mut branch_ended = false;
    // The latest compaction's first kept entry, once the branch passed that compaction.
    let mut keep_from: Option<String> = None;
    let mut start = end;
    let mut stopped = false;
    while let Some(line) = lines.next_line()? {
        let text = std::str::from_utf8(&line.bytes).ok().map(str::trim);
        if text.is_some_and(str::is_empty) {
            continue;
        }
        let parsed = text.and_then(super::parse::parse_object_entry);
        if !line.terminated {
            // The file's last bytes without a newline: a write cut short, or a complete entry
            // that only lacks its newline (which still counts as an entry).
            let complete = parsed.is_some();
            torn = Some(TornTail {
                offset: line.offset,
                bytes: line.bytes.clone(),
                complete,
            });
            if !complete {
                continue;
            }
        }
        let Some(parsed) = parsed else {
            if torn.is_none() && reversed.is_empty() {
                // A malformed line with nothing valid after it is a torn tail too.
                torn = Some(TornTail {
                    offset: line.offset,
                    bytes: line.bytes,
                    complete: false,
                });
                continue;
            }
            return Ok(None);
        };
        let Ok(entry) = parsed else {
            return Ok(None);
        };
        let id = entry.id().to_owned();
        let first_time = seen.insert(id.clone());
        if !state.name
            && let Entry::SessionInfo(info) = &entry
        {
            facts.name = session_name(info);
            state.name = true;
        }
        let on_branch = if leaf_found {
            !branch_ended && first_time && state.branch_next.as_deref() == Some(id.as_str())
        } else {
            leaf_found = true;
            true
        };
        let mut stop = false;
        if on_branch {
            note_branch_facts(&entry, &mut facts, &mut state);
            match (&keep_from, &entry) {
                (None, Entry::Compaction(compaction)) => {
                    keep_from = Some(compaction.first_kept_entry_id.clone());
                    // Nothing before a compaction without a kept entry is ever sent again.
                    stop = compaction.first_kept_entry_id.is_empty();
                }
                (Some(keep), _) => stop = *keep == id,
                _ => {}
            }
            state.branch_next = entry
                .parent_id()
                .filter(|parent| !parent.is_empty())
                .map(str::to_owned);
            match &state.branch_next {
                // A parent written after its child, or an id used twice: the full reader's
                // "later entries win" rule decides what that means.
                Some(parent) if seen.contains(parent) => return Ok(None),
                Some(_) => {}
                None => {
                    branch_ended = true;
                    state.model = true;
                    state.thinking = true;
                    stop = true;
                }
            }
        }
        start = line.offset;
        reversed.push(entry);
        if stop {
            stopped = true;
            break;
        }
    }
    if !stopped {
        // Back at the header: everything was read, every fact is decided.
        state = Walk {
            floor,
            ..Walk::decided()
        };
    }
    reversed.reverse();
    Ok(Some(Walked {
        entries: reversed,
        start,
        whole: !stopped,
        torn,
        facts,
        walk: state,
    }))
}

/// Record the model or thinking level a branch entry sets, when no later one did.
fn note_branch_facts(entry: &Entry, facts: &mut SessionFacts, state: &mut Walk) {
    match entry {
        Entry::ModelChange(change) if !state.model => {
            facts.model = Some((change.provider.clone(), change.model_id.clone()));
            state.model = true;
        }
        Entry::Message(message) if !state.model => {
            if let AgentMessage::Assistant(assistant) = &message.message {
                facts.model = Some((assistant.provider.clone(), assistant.model.clone()));
                state.model = true;
            }
        }
        Entry::ThinkingLevelChange(change) if !state.thinking => {
            facts.thinking_level = Some(change.thinking_level.clone());
            state.thinking = true;
        }
        _ => {}
    }
}

/// Just enough of a line to follow the branch and see whether it can decide a fact.
#[derive(Deserialize)]
struct Peek {
    #[serde(rename = "type")]
    kind: Option<String>,
    id: Option<String>,
    #[serde(rename = "parentId")]
    parent_id: Option<String>,
    message: Option<PeekMessage>,
}

#[derive(Deserialize)]
struct PeekMessage {
    role: Option<String>,
}

/// Walk on from where the tail stopped, for the facts it left open. `Ok(None)`: a line that does
/// not parse (the caller asks the full reader).
fn walk_facts(file: &File, tail: &TailSession) -> io::Result<Option<SessionFacts>> {
    let mut facts = tail.facts.clone();
    let mut state = tail.walk.clone();
    let mut lines = BackwardLines::new(file, state.floor, tail.start);
    while !state.all() {
        let Some(line) = lines.next_line()? else {
            break;
        };
        let Some(text) = std::str::from_utf8(&line.bytes).ok().map(str::trim) else {
            return Ok(None);
        };
        if text.is_empty() {
            continue;
        }
        let Ok(peek) = serde_json::from_str::<Peek>(text) else {
            return Ok(None);
        };
        let kind = peek.kind.as_deref().unwrap_or("");
        let on_branch = state.branch_next.is_some() && peek.id == state.branch_next;
        let names = !state.name && kind == "session_info";
        let sets_model = kind == "model_change"
            || (kind == "message"
                && peek
                    .message
                    .as_ref()
                    .is_some_and(|message| message.role.as_deref() == Some("assistant")));
        let decides = on_branch
            && ((!state.model && sets_model)
                || (!state.thinking && kind == "thinking_level_change"));
        if names || decides {
            // Only these few lines are typed in full, so the facts follow the full reader's
            // rules exactly (an assistant message that does not type does not set the model).
            let Ok(Line::Entry(entry)) = super::parse::parse_line(text) else {
                return Ok(None);
            };
            if let Entry::SessionInfo(info) = &entry {
                facts.name = session_name(info);
                state.name = true;
            }
            if on_branch {
                note_branch_facts(&entry, &mut facts, &mut state);
            }
        }
        if on_branch {
            state.branch_next = peek.parent_id.filter(|parent| !parent.is_empty());
            if state.branch_next.is_none() {
                state.model = true;
                state.thinking = true;
            }
        }
    }
    Ok(Some(facts))
}

/// The entries in bytes `[from, to)` of a file, which must be whole lines that each parse as an
/// entry; `Ok(None)` otherwise (a torn or malformed line, or `from` not at a line start). For
/// the index, to summarize only what was appended since it last looked.
pub fn entries_between(
    path: &Path,
    from: u64,
    to: u64,
) -> Result<Option<Vec<Entry>>, SessionError> {
    if from == 0 || to <= from {
        return Ok(None);
    }
    let file = File::open(path).map_err(|error| io_error("cannot read", path, error))?;
    let mut bytes = vec![0; (to - from + 1) as usize];
    file.read_exact_at(&mut bytes, from - 1)
        .map_err(|error| io_error("cannot read", path, error))?;
    if bytes.first() != Some(&b'\n') || bytes.last() != Some(&b'\n') {
        return Ok(None);
    }
    let mut entries = Vec::new();
    for raw in bytes[1..].split(|byte| *byte == b'\n') {
        let Ok(text) = std::str::from_utf8(raw).map(str::trim) else {
            return Ok(None);
        };
        if text.is_empty() {
            continue;
        }
        match super::parse::parse_line(text) {
            Ok(Line::Entry(entry)) => entries.push(entry),
            _ => return Ok(None),
        }
    }
    Ok(Some(entries))
}

/// The id of the last entry before byte `end`, read backwards; `None` when the line there is
/// not an entry.
pub fn entry_id_before(path: &Path, end: u64) -> Result<Option<String>, SessionError> {
    let file = File::open(path).map_err(|error| io_error("cannot read", path, error))?;
    let mut lines = BackwardLines::new(&file, 0, end);
    while let Some(line) = lines
        .next_line()
        .map_err(|error| io_error("cannot read", path, error))?
    {
        let Some(text) = std::str::from_utf8(&line.bytes).ok().map(str::trim) else {
            return Ok(None);
        };
        if text.is_empty() {
            continue;
        }
        return Ok(match super::parse::parse_line(text) {
            Ok(Line::Entry(entry)) if line.terminated => Some(entry.id().to_owned()),
            _ => None,
        });
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::build_context;
    use pretty_assertions::assert_eq;
    use serde_json::json;
    use std::path::PathBuf;

    // ----- session lines as pi and pincer write them -----

    const HEADER: &str = r#"{"type":"session","version":3,"id":"0197a1b2-0000-7000-8000-000000000001","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/work"}"#;

    fn stamp(n: usize) -> String {
        format!(
            "2026-01-01T{:02}:{:02}:{:02}.000Z",
            n / 3600 % 24,
            n / 60 % 60,
            n % 60
        )
    }

    fn line(kind: &str, id: &str, parent: Option<&str>, fields: Value) -> String {
        let mut object =
            json!({"type": kind, "id": id, "parentId": parent, "timestamp": stamp(id.len())});
        if let (Some(object), Value::Object(fields)) = (object.as_object_mut(), fields) {
            object.extend(fields);
        }
        object.to_string()
    }

    fn user(id: &str, parent: Option<&str>, text: &str) -> String {
        line(
            "message",
            id,
            parent,
            json!({"message": {"role": "user", "content": text, "timestamp": 1}}),
        )
    }

    fn assistant(id: &str, parent: Option<&str>, text: &str, model: &str) -> String {
        line(
            "message",
            id,
            parent,
            json!({"message": {
                "role": "assistant",
                "content": [{"type": "text", "text": text}],
                "api": "anthropic-messages", "provider": "anthropic", "model": model,
                "usage": {"input": 900, "output": 40, "cacheRead": 0, "cacheWrite": 0,
                          "totalTokens": 940, "cost": {"input": 0.0, "output": 0.0,
                          "cacheRead": 0.0, "cacheWrite": 0.0, "total": 0.001}},
                "stopReason": "stop", "timestamp": 2
            }}),
        )
    }

    fn compaction(id: &str, parent: &str, first_kept: &str) -> String {
        line(
            "compaction",
            id,
            Some(parent),
            json!({"summary": format!("summary at {id}"), "firstKeptEntryId": first_kept, "tokensBefore": 5000}),
        )
    }

    fn thinking(id: &str, parent: Option<&str>, level: &str) -> String {
        line(
            "thinking_level_change",
            id,
            parent,
            json!({"thinkingLevel": level}),
        )
    }

    fn model_change(id: &str, parent: Option<&str>, model: &str) -> String {
        line(
            "model_change",
            id,
            parent,
            json!({"provider": "anthropic", "modelId": model}),
        )
    }

    fn named(id: &str, parent: Option<&str>, name: &str) -> String {
        line("session_info", id, parent, json!({"name": name}))
    }

    fn write(dir: &tempfile::TempDir, lines: &[String], ending: &str) -> PathBuf {
        let path = dir.path().join("s.jsonl");
        let mut text = format!("{HEADER}\n");
        text.push_str(&lines.join("\n"));
        text.push_str(ending);
        std::fs::write(&path, text).unwrap();
        path
    }

    /// A linear conversation of `turns` user/assistant pairs with ids `u{n}`/`a{n}`, after a
    /// thinking level and a model; returns the lines and the last id.
    fn conversation(turns: usize, text: &str) -> (Vec<String>, String) {
        let mut lines = vec![
            thinking("t0", None, "high"),
            model_change("m0", Some("t0"), "claude-sonnet-4-5"),
            named("n0", Some("m0"), "first name"),
        ];
        let mut parent = "n0".to_owned();
        for turn in 0..turns {
            let (u, a) = (format!("u{turn}"), format!("a{turn}"));
            lines.push(user(&u, Some(&parent), &format!("{text} question {turn}")));
            lines.push(assistant(
                &a,
                Some(&u),
                &format!("{text} answer {turn}"),
                "claude-sonnet-4-5",
            ));
            parent = a;
        }
        (lines, parent)
    }

    /// The tail load agrees with the full load: same messages, same facts (the context's model
    /// and thinking level are those facts). That compaction plans the same from either is the
    /// engine's test (`compaction::cut`), above this crate.
    fn assert_equivalent(path: &Path) -> TailSession {
        let full = store::load(path).unwrap();
        let tail = load(path).unwrap();
        let (from_tail, from_file) = (
            build_context(&tail.session.entries, None),
            build_context(&full.entries, None),
        );
        assert_eq!(from_tail.messages, from_file.messages);
        assert_eq!(from_tail.compaction_id, from_file.compaction_id);
        assert_eq!(
            complete_facts(&tail, || None).unwrap(),
            facts_of(&full.entries)
        );
        assert_eq!(tail.session.torn, full.torn);
        assert_eq!(tail.session.header, full.header);
        tail
    }

    fn ids(tail: &TailSession) -> Vec<&str> {
        tail.session.entries.iter().map(Entry::id).collect()
    }

    // ----- the backward reader -----

    #[test]
    fn lines_come_back_last_first_across_chunk_boundaries_inside_lines_and_characters() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lines");
        // Lines longer than a chunk, of three- and four-byte characters, so chunk boundaries
        // fall inside lines and inside characters.
        let long = "✓🙂é".repeat(9_000);
        let lines = [
            "head".to_owned(),
            long.clone(),
            "x".to_owned(),
            String::new(),
            long.clone() + "end",
        ];
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        let file = File::open(&path).unwrap();
        let end = file.metadata().unwrap().len();
        let mut reader = BackwardLines::new(&file, 5, end);
        let mut seen = Vec::new();
        while let Some(line) = reader.next_line().unwrap() {
            assert!(line.terminated);
            seen.push((line.offset, String::from_utf8(line.bytes).unwrap()));
        }
        let long_len = long.len() as u64;
        assert_eq!(
            seen,
            vec![
                (5 + long_len + 1 + 2 + 1, long.clone() + "end"),
                (5 + long_len + 1 + 2, String::new()),
                (5 + long_len + 1, "x".to_owned()),
                (5, long),
            ]
        );
    }

    #[test]
    fn an_unterminated_last_line_is_returned_as_such() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lines");
        std::fs::write(&path, "a\nbc\ndef").unwrap();
        let file = File::open(&path).unwrap();
        let mut reader = BackwardLines::new(&file, 0, 8);
        let first = reader.next_line().unwrap().unwrap();
        assert_eq!(
            (first.offset, first.bytes, first.terminated),
            (5, b"def".to_vec(), false)
        );
        let second = reader.next_line().unwrap().unwrap();
        assert_eq!(
            (second.offset, second.bytes, second.terminated),
            (2, b"bc".to_vec(), true)
        );
        let third = reader.next_line().unwrap().unwrap();
        assert_eq!((third.offset, third.bytes), (0, b"a".to_vec()));
        assert!(reader.next_line().unwrap().is_none());
    }

    // ----- where the walk stops -----

    #[test]
    fn a_compaction_near_the_end_stops_the_read_at_its_first_kept_entry() {
        let dir = tempfile::tempdir().unwrap();
        let (mut lines, last) = conversation(300, "some text");
        lines.push(compaction("c1", &last, "u297"));
        lines.push(user("u-after", Some("c1"), "and now?"));
        let path = write(&dir, &lines, "\n");
        let tail = assert_equivalent(&path);
        assert_eq!(
            ids(&tail),
            [
                "u297", "a297", "u298", "a298", "u299", "a299", "c1", "u-after"
            ]
        );
        assert!(!tail.whole);
        let text = std::fs::read_to_string(&path).unwrap();
        let kept_at = text.find(r#""id":"u297""#).unwrap();
        assert_eq!(
            tail.start as usize,
            text[..kept_at].rfind('\n').unwrap() + 1
        );
        // The thinking level and name lie before the cut: the walk goes on for them.
        assert_eq!(
            complete_facts(&tail, || None).unwrap(),
            SessionFacts {
                name: Some("first name".into()),
                model: Some(("anthropic".into(), "claude-sonnet-4-5".into())),
                thinking_level: Some("high".into()),
            }
        );
    }

    #[test]
    fn facts_come_from_a_fresh_index_summary_when_the_tail_leaves_them_open() {
        let dir = tempfile::tempdir().unwrap();
        let (mut lines, last) = conversation(5, "t");
        lines.push(compaction("c1", &last, "u4"));
        let path = write(&dir, &lines, "\n");
        let tail = load(&path).unwrap();
        let cached = SessionSummary {
            name: Some("from the index".into()),
            provider: Some("openai".into()),
            model: Some("gpt-5".into()),
            thinking_level: Some("low".into()),
            ..SessionSummary::default()
        };
        let facts = complete_facts(&tail, || Some(cached)).unwrap();
        assert_eq!(facts.model_ref().as_deref(), Some("openai/gpt-5"));
        assert_eq!(facts.name.as_deref(), Some("from the index"));
        assert_eq!(facts.thinking_level.as_deref(), Some("low"));
    }

    #[test]
    fn facts_decided_inside_the_tail_need_no_index() {
        let dir = tempfile::tempdir().unwrap();
        let (mut lines, last) = conversation(5, "t");
        lines.push(compaction("c1", &last, "u4"));
        lines.push(thinking("t1", Some("c1"), "low"));
        lines.push(named("n1", Some("t1"), "  "));
        let path = write(&dir, &lines, "\n");
        let tail = assert_equivalent(&path);
        let facts = complete_facts(&tail, || panic!("the index is not needed")).unwrap();
        assert_eq!(facts.thinking_level.as_deref(), Some("low"));
        assert_eq!(facts.name, None, "a blank name clears it");
        assert_eq!(
            facts.model_ref().as_deref(),
            Some("anthropic/claude-sonnet-4-5")
        );
    }

    #[test]
    fn without_a_compaction_the_whole_branch_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let (lines, _) = conversation(40, "t");
        let path = write(&dir, &lines, "\n");
        let tail = assert_equivalent(&path);
        assert_eq!(tail.session.entries.len(), 83);
        assert_eq!(ids(&tail)[0], "t0");
    }

    #[test]
    fn a_branch_whose_ancestors_are_far_back_is_followed_to_its_root() {
        let dir = tempfile::tempdir().unwrap();
        let (mut lines, _) = conversation(200, "main line");
        // A branch from an early turn, written at the end.
        lines.push(user("b1", Some("a3"), "a different question"));
        lines.push(assistant(
            "b2",
            Some("b1"),
            "a different answer",
            "claude-opus-4-1",
        ));
        let path = write(&dir, &lines, "\n");
        let tail = assert_equivalent(&path);
        let context = build_context(&tail.session.entries, None);
        assert_eq!(context.messages.len(), 10, "u0..a3 and b1, b2");
        assert_eq!(
            complete_facts(&tail, || None)
                .unwrap()
                .model_ref()
                .as_deref(),
            Some("anthropic/claude-opus-4-1")
        );
    }

    #[test]
    fn a_compaction_on_a_branch_keeps_entries_from_before_the_branch_point() {
        let dir = tempfile::tempdir().unwrap();
        let (mut lines, _) = conversation(200, "main line");
        lines.push(user("b1", Some("a150"), "branch"));
        lines.push(compaction("c1", "b1", "u149"));
        lines.push(user("b2", Some("c1"), "after"));
        let path = write(&dir, &lines, "\n");
        let tail = assert_equivalent(&path);
        assert_eq!(ids(&tail)[0], "u149");
        assert!(!tail.whole);
    }

    #[test]
    fn a_compaction_whose_first_kept_entry_is_missing_keeps_nothing_before_it() {
        let dir = tempfile::tempdir().unwrap();
        let (mut lines, last) = conversation(30, "t");
        lines.push(compaction("c1", &last, "gone"));
        lines.push(user("u-after", Some("c1"), "next"));
        let path = write(&dir, &lines, "\n");
        let tail = assert_equivalent(&path);
        let context = build_context(&tail.session.entries, None);
        assert_eq!(
            context.messages.len(),
            2,
            "the summary and the prompt after it"
        );

        // An empty firstKeptEntryId is known to match nothing: the read stops at the compaction.
        let (mut lines, last) = conversation(30, "t");
        lines.push(compaction("c1", &last, ""));
        lines.push(user("u-after", Some("c1"), "next"));
        let path = write(&dir, &lines, "\n");
        let tail = assert_equivalent(&path);
        assert_eq!(ids(&tail), ["c1", "u-after"]);
    }

    #[test]
    fn the_latest_compaction_wins_even_when_it_keeps_entries_before_an_older_one() {
        let dir = tempfile::tempdir().unwrap();
        let (mut lines, last) = conversation(50, "t");
        lines.push(compaction("c1", &last, "u48"));
        lines.push(user("x1", Some("c1"), "more"));
        lines.push(compaction("c2", "x1", "u45"));
        lines.push(user("x2", Some("c2"), "even more"));
        let path = write(&dir, &lines, "\n");
        let tail = assert_equivalent(&path);
        assert_eq!(ids(&tail)[0], "u45");
    }

    #[test]
    fn a_parent_written_after_its_child_is_left_to_the_full_reader() {
        let dir = tempfile::tempdir().unwrap();
        let lines = vec![
            user("u1", Some("u2"), "odd"),
            user("u2", None, "root"),
            user("u3", Some("u1"), "leaf"),
        ];
        let path = write(&dir, &lines, "\n");
        let tail = assert_equivalent(&path);
        assert!(tail.whole);
        assert_eq!(tail.start, 0, "loaded by the full reader");
    }

    // ----- damage -----

    #[test]
    fn a_torn_tail_is_reported_as_the_full_reader_reports_it() {
        let dir = tempfile::tempdir().unwrap();
        let (mut lines, last) = conversation(20, "t");
        lines.push(compaction("c1", &last, "u19"));
        let cut_short = user("u-torn", Some("c1"), "half");
        lines.push(cut_short[..30].to_owned());
        let path = write(&dir, &lines, "");
        let tail = assert_equivalent(&path);
        let torn = tail.session.torn.clone().unwrap();
        assert!(!torn.complete);
        assert_eq!(torn.bytes, cut_short.as_bytes()[..30].to_vec());
        assert_eq!(ids(&tail), ["u19", "a19", "c1"]);

        // A whole entry without its newline still counts.
        let (mut lines, last) = conversation(20, "t");
        lines.push(compaction("c1", &last, "u19"));
        lines.push(user("u-last", Some("c1"), "complete"));
        let path = write(&dir, &lines, "");
        let tail = assert_equivalent(&path);
        assert!(tail.session.torn.as_ref().unwrap().complete);
        assert_eq!(tail.session.entries.last().unwrap().id(), "u-last");

        // A malformed last line with a newline is torn too.
        let (mut lines, last) = conversation(20, "t");
        lines.push(compaction("c1", &last, "u19"));
        lines.push("{\"type\":\"mess".to_owned());
        let path = write(&dir, &lines, "\n\n");
        let tail = assert_equivalent(&path);
        assert_eq!(
            tail.session.torn.unwrap().bytes,
            b"{\"type\":\"mess".to_vec()
        );
    }

    #[test]
    fn a_torn_tail_is_repaired_before_appending() {
        let dir = tempfile::tempdir().unwrap();
        let (mut lines, last) = conversation(20, "t");
        lines.push(compaction("c1", &last, "u19"));
        lines.push("{\"type\":\"mess".to_owned());
        let path = write(&dir, &lines, "");
        let (mut writer, tail, repair) = open_for_append(&path, None).unwrap();
        assert!(matches!(repair, Some(store::TornRepair::MovedTo(_))));
        assert_eq!(writer.leaf(), Some("c1"));
        assert_eq!(ids(&tail), ["u19", "a19", "c1"]);
        let entry = store::new_entry(
            &writer,
            record::NewEntry::SessionInfo {
                name: Some("after repair"),
            },
        )
        .unwrap();
        writer.append(&entry).unwrap();
        let reloaded = store::load(&path).unwrap();
        assert!(reloaded.torn.is_none());
        assert_eq!(reloaded.entries.last().unwrap().parent_id(), Some("c1"));
    }

    #[test]
    fn a_corrupt_line_in_the_part_read_is_refused_with_its_line_number() {
        let dir = tempfile::tempdir().unwrap();
        let (mut lines, last) = conversation(20, "t");
        lines.push(compaction("c1", &last, "u18"));
        lines.push(user("u-after", Some("c1"), "next"));
        // Line 1 is the header; u19 is on line 2 + 3 + 2 * 19.
        let at = lines
            .iter()
            .position(|text| text.contains(r#""id":"u19""#))
            .unwrap();
        lines[at] = "{not json".to_owned();
        let path = write(&dir, &lines, "\n");
        match load(&path) {
            Err(SessionError::Corrupt { line, .. }) => assert_eq!(line, at + 2),
            other => panic!("expected corruption, got {other:?}"),
        }
    }

    #[test]
    fn a_corrupt_line_before_the_part_read_is_not_seen() {
        let dir = tempfile::tempdir().unwrap();
        let (mut lines, last) = conversation(20, "t");
        lines.push(compaction("c1", &last, "u18"));
        lines[10] = "{not json".to_owned();
        let path = write(&dir, &lines, "\n");
        assert!(matches!(
            store::load(&path),
            Err(SessionError::Corrupt { .. })
        ));
        let tail = load(&path).unwrap();
        assert_eq!(ids(&tail), ["u18", "a18", "u19", "a19", "c1"]);
    }

    #[test]
    fn old_format_versions_go_through_the_full_reader() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v2.jsonl");
        let text = [
            r#"{"type":"session","version":2,"id":"s2","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#.to_owned(),
            user("u1", None, "hi"),
        ]
        .join("\n")
            + "\n";
        std::fs::write(&path, text).unwrap();
        let tail = load(&path).unwrap();
        assert_eq!(tail.session.disk_version, 2);
        assert!(tail.session.needs_migration());
        assert_eq!(ids(&tail), ["u1"]);
    }

    // ----- generated sessions -----

    /// xorshift64*, so generated sessions are the same on every run.
    struct Random(u64);

    impl Random {
        fn below(&mut self, bound: usize) -> usize {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % bound
        }
    }

    /// A session with turns, tool calls, model and thinking changes, names, compactions and the
    /// odd branch from an older entry.
    fn generated(seed: u64, count: usize) -> Vec<String> {
        let mut random = Random(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
        let mut lines = Vec::new();
        let mut ids: Vec<String> = Vec::new();
        let mut leaf: Option<String> = None;
        for n in 0..count {
            let id = format!("{:08x}", n * 7919 + 17);
            let parent = match leaf.clone() {
                Some(_) if random.below(40) == 0 => Some(ids[random.below(ids.len())].clone()),
                other => other,
            };
            let parent = parent.as_deref();
            let text = "word ".repeat(1 + random.below(60)) + "é✓";
            let line = match random.below(20) {
                0 => thinking(&id, parent, ["off", "low", "high"][random.below(3)]),
                1 => model_change(
                    &id,
                    parent,
                    ["claude-sonnet-4-5", "claude-haiku-4-5"][random.below(2)],
                ),
                2 => named(&id, parent, &format!("name {n}")),
                3 if ids.len() > 4 => {
                    let keep = if random.below(4) == 0 {
                        String::new()
                    } else {
                        ids[ids.len() - 1 - random.below(4)].clone()
                    };
                    compaction(&id, parent.unwrap_or(""), &keep)
                }
                4 => line(
                    "message",
                    &id,
                    parent,
                    json!({"message": {"role": "toolResult", "toolCallId": "call_1", "toolName": "read",
                        "content": [{"type": "text", "text": text}], "isError": false, "timestamp": 3}}),
                ),
                5..=11 => user(&id, parent, &text),
                _ => assistant(
                    &id,
                    parent,
                    &text,
                    ["claude-sonnet-4-5", "claude-opus-4-1"][random.below(2)],
                ),
            };
            lines.push(line);
            ids.push(id.clone());
            leaf = Some(id);
        }
        lines
    }

    #[test]
    fn generated_sessions_rebuild_the_same_context_from_the_tail_as_from_the_whole_file() {
        let dir = tempfile::tempdir().unwrap();
        let mut partial = 0;
        for seed in 0..40 {
            let lines = generated(seed, 20 + seed as usize * 6);
            let path = write(&dir, &lines, "\n");
            let tail = assert_equivalent(&path);
            partial += usize::from(!tail.whole);
        }
        assert!(
            partial > 12,
            "many generated sessions are read only in part ({partial})"
        );
    }

    #[test]
    fn entries_between_reads_only_whole_appended_lines() {
        let dir = tempfile::tempdir().unwrap();
        let (lines, _) = conversation(3, "t");
        let path = write(&dir, &lines, "\n");
        let old = std::fs::metadata(&path).unwrap().len();
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str(&(user("u9", Some("a2"), "more") + "\n"));
        std::fs::write(&path, &text).unwrap();
        let new = text.len() as u64;
        let appended = entries_between(&path, old, new).unwrap().unwrap();
        assert_eq!(appended.iter().map(Entry::id).collect::<Vec<_>>(), ["u9"]);
        assert_eq!(entry_id_before(&path, old).unwrap().as_deref(), Some("a2"));
        assert!(
            entries_between(&path, old + 1, new).unwrap().is_none(),
            "not at a line start"
        );
        assert!(
            entries_between(&path, old, new - 1).unwrap().is_none(),
            "a torn last line"
        );
    }
}
