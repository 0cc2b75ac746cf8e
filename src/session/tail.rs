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
//! [`super::context::build_context`] and compaction planning (`agent::compaction::cut::plan`)
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
//! Entry ids: a writer avoids the ids of the entries read, not of the whole file. A new 8-hex id
//! equal to an unread one (probability n / 2^32 for n unread entries, about 2e-5 per entry in a
//! 100 MB file) cannot change any context: every parent link from the first kept entry to the
//! leaf points at an entry that was read, and the rebuilt context starts there. A full reader
//! resolving the old id to the new entry only cuts the branch short *before* the first kept
//! entry, which no context or compaction looks at.

use std::collections::HashSet;
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use super::context::branch_path;
use super::record::{self, AgentMessage, Entry, Line, SessionHeader};
use super::store::{self, CURRENT_VERSION, LoadedSession, SessionError, TornTail};
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
/// in `session.torn`, not repaired (that needs the lock: [`store::open_tail_for_append`]).
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
            let start = match self.buf[..body].iter().rposition(|byte| *byte == b'\n') {
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
    let mut seen: HashSet<String> = HashSet::new();
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
        let value = text
            .and_then(|text| record::parse_value(text).ok())
            .filter(Value::is_object);
        if !line.terminated {
            // The file's last bytes without a newline: a write cut short, or a complete entry
            // that only lacks its newline (which still counts as an entry).
            let complete = value.is_some();
            torn = Some(TornTail {
                offset: line.offset,
                bytes: line.bytes.clone(),
                complete,
            });
            if !complete {
                continue;
            }
        }
        let Some(value) = value else {
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
        let Ok(Line::Entry(entry)) = Line::from_value(value) else {
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
            let Ok(Line::Entry(entry)) = record::parse_line(text) else {
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
        match record::parse_line(text) {
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
        return Ok(match record::parse_line(text) {
            Ok(Line::Entry(entry)) if line.terminated => Some(entry.id().to_owned()),
            _ => None,
        });
    }
    Ok(None)
}
