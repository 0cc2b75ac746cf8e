//! The ledger file: append one line, read lines back (all of them, or backwards from the end to
//! a time), skipping any line that does not parse.

use std::fs::{File, OpenOptions};
use std::io::{self, BufRead as _, BufReader, Write as _};
use std::os::unix::fs::{FileExt as _, OpenOptionsExt as _};
use std::path::{Path, PathBuf};

use nix::fcntl::{Flock, FlockArg, OFlag};
use time::{Duration, OffsetDateTime};

use super::{FILE_NAME, Record};

/// How far back of a window's start a backward read goes on: a record is written when its run
/// ends, so the file is in time order but for a clock that stepped back; a step of up to this
/// much still counts every run of the window.
const CLOCK_SLACK: Duration = Duration::HOUR;

/// The bytes read per step of a backward read.
const CHUNK: u64 = 64 * 1024;

/// The ledger of a data directory.
pub fn path(data_dir: &Path) -> PathBuf {
    data_dir.join(FILE_NAME)
}

/// Append `record` as one line. The directory is created (0700) and the file too (0600) when
/// missing; a link or anything but a regular file in the ledger's place is refused. The line
/// goes out in one `write` with `O_APPEND`, so that concurrent runs never interleave; when the
/// file does not end in a newline (a line torn by a full disk), the line starts with one, so
/// that only the torn line is lost. The look at the last byte and the write are made under an
/// exclusive `flock` of the file: a line that crosses a page is copied a page at a time, and a
/// run that looked at the end in between took the line for torn and wrote an empty line before
/// its own (`thirty_two_concurrent_runs_append_thirty_two_whole_lines`, seen once in six runs of
/// the suite). Not fsynced: a power cut may lose the last runs' lines, a kill cannot.
pub fn append(path: &Path, record: &Record) -> io::Result<()> {
    if let Some(parent) = path.parent() {
        crate::fs::create_dir_all(parent)?;
    }
    let file = OpenOptions::new()
        .read(true)
        .append(true)
        .create(true)
        .mode(0o600)
        .custom_flags((OFlag::O_NOFOLLOW | OFlag::O_NONBLOCK | OFlag::O_CLOEXEC).bits())
        .open(path)?;
    let file = crate::fs::regular_only(file)?;
    // Held for a look and a write; a lock another run holds is released as quickly.
    let mut file =
        Flock::lock(file, FlockArg::LockExclusive).map_err(|(_, errno)| io::Error::from(errno))?;
    let mut line = Vec::with_capacity(512);
    let length = file.metadata()?.len();
    if length > 0 {
        let mut last = [0_u8];
        file.read_exact_at(&mut last, length - 1)?;
        if last[0] != b'\n' {
            line.push(b'\n');
        }
    }
    serde_json::to_writer(&mut line, record)?;
    line.push(b'\n');
    file.write_all(&line)
}

/// What a read found.
#[derive(Debug, Clone, PartialEq)]
pub struct Reading<T = Record> {
    /// The lines read, in the file's order.
    pub records: Vec<T>,
    /// Lines that did not parse (a torn line) or whose cost is below zero or not a number,
    /// skipped.
    pub skipped: usize,
}

impl<T> Default for Reading<T> {
    fn default() -> Self {
        Reading {
            records: Vec::new(),
            skipped: 0,
        }
    }
}

impl<T: Line> Reading<T> {
    pub(super) fn take(&mut self, line: &[u8]) -> Option<T> {
        if line.iter().all(u8::is_ascii_whitespace) {
            return None;
        }
        let parsed = T::quick(line).or_else(|| serde_json::from_slice::<T>(line).ok());
        match parsed {
            // A cost below zero or not a number is nobody's spend: a line that says so (written
            // by hand, or by a command that could write the file) is never summed, so it cannot
            // make room in a budget.
            Some(record) if record.cost_usd().is_finite() && record.cost_usd() >= 0.0 => {
                Some(record)
            }
            _ => {
                self.skipped += 1;
                None
            }
        }
    }
}

/// What a ledger line is read as: the whole [`Record`], or only what a budget needs
/// ([`Spend`]), which reads several times faster.
pub trait Line: serde::de::DeserializeOwned {
    /// When the run ended; `None` when the line's time does not parse.
    fn ended(&self) -> Option<OffsetDateTime>;

    /// What the run cost, as the line says.
    fn cost_usd(&self) -> f64;

    /// The line read without the JSON parser, when it has the shape pincer writes; `None`
    /// sends it to the parser.
    fn quick(_line: &[u8]) -> Option<Self> {
        None
    }
}

impl Line for Record {
    fn ended(&self) -> Option<OffsetDateTime> {
        super::parse_time(&self.time)
    }

    fn cost_usd(&self) -> f64 {
        self.cost_usd
    }
}

/// The two fields of a line that a budget check needs.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
pub struct Spend {
    /// When the run ended, as written.
    pub time: String,
    /// What it cost.
    pub cost_usd: f64,
}

impl Line for Spend {
    fn ended(&self) -> Option<OffsetDateTime> {
        super::parse_time(&self.time)
    }

    fn cost_usd(&self) -> f64 {
        self.cost_usd
    }

    /// A line pincer wrote starts with `{"time":"…"` and holds `"cost_usd":NUMBER` once: that
    /// key cannot occur inside a JSON string (a quote there is escaped), so it is found
    /// without parsing the rest, which makes a budget check several times cheaper. A line
    /// torn after its cost counts (a budget errs on the side of spending less).
    fn quick(line: &[u8]) -> Option<Spend> {
        const TIME: &[u8] = br#"{"time":""#;
        const COST: &[u8] = br#""cost_usd":"#;
        let rest = line.strip_prefix(TIME)?;
        let end = memchr::memchr(b'"', rest)?;
        let time = std::str::from_utf8(&rest[..end]).ok()?.to_owned();
        let at = memchr::memmem::find(line, COST)? + COST.len();
        let digits = &line[at..];
        let length = digits
            .iter()
            .position(|byte| matches!(byte, b',' | b'}'))
            .unwrap_or(digits.len());
        let cost_usd = std::str::from_utf8(&digits[..length])
            .ok()?
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|cost| cost.is_finite())?;
        Some(Spend { time, cost_usd })
    }
}

/// Every record of the ledger at `path`; no file is an empty ledger.
pub fn read_all(path: &Path) -> io::Result<Reading> {
    let Some(file) = open(path)? else {
        return Ok(Reading::default());
    };
    let mut reading = Reading::default();
    for line in BufReader::with_capacity(CHUNK as usize, file).split(b'\n') {
        if let Some(record) = reading.take(&line?) {
            reading.records.push(record);
        }
    }
    Ok(reading)
}

/// The lines of the runs that ended at or after `since`, read backwards from the end of the
/// file until a line older than `since` by more than [`CLOCK_SLACK`]: the cost follows the
/// number of runs since then, not the size of the file. No file is an empty ledger.
pub fn read_since<T: Line>(path: &Path, since: OffsetDateTime) -> io::Result<Reading<T>> {
    let Some(file) = open(path)? else {
        return Ok(Reading::default());
    };
    let end = file.metadata()?.len();
    read_back(&file, end, since)
}

/// [`read_since`] of the open ledger `file`, from its byte `end` backwards.
pub(super) fn read_back<T: Line>(
    file: &File,
    mut end: u64,
    since: OffsetDateTime,
) -> io::Result<Reading<T>> {
    let stop_before = since.checked_sub(CLOCK_SLACK).unwrap_or(since);
    let mut reading = Reading::<T>::default();
    // The start of a line whose beginning is in a chunk not read yet.
    let mut carry: Vec<u8> = Vec::new();
    'chunks: loop {
        let start = end.saturating_sub(CHUNK);
        let mut buffer = vec![0_u8; usize::try_from(end - start).unwrap_or(0)];
        file.read_exact_at(&mut buffer, start)?;
        buffer.extend_from_slice(&carry);
        let complete_from = if start == 0 {
            0
        } else {
            match memchr::memchr(b'\n', &buffer) {
                Some(newline) => newline + 1,
                None => {
                    carry = buffer;
                    end = start;
                    continue;
                }
            }
        };
        for line in buffer[complete_from..].rsplit(|byte| *byte == b'\n') {
            let Some(record) = reading.take(line) else {
                continue;
            };
            match record.ended() {
                Some(ended) if ended < stop_before => break 'chunks,
                Some(ended) if ended >= since => reading.records.push(record),
                Some(_) => {}
                None => reading.skipped += 1,
            }
        }
        if start == 0 {
            break;
        }
        carry = buffer[..complete_from.saturating_sub(1)].to_vec();
        end = start;
    }
    reading.records.reverse();
    Ok(reading)
}

/// The ledger opened for reading, `None` when there is none; anything but a regular file in its
/// place is refused.
pub(super) fn open(path: &Path) -> io::Result<Option<File>> {
    match crate::fs::open_regular(path, false) {
        Ok(file) => Ok(Some(file)),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(error),
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt as _;

    use time::macros::datetime;

    use super::*;

    use crate::ledger::test_record as record;

    #[test]
    fn an_appended_record_reads_back_from_a_private_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = path(&dir.path().join("data"));
        let first = record(datetime!(2026-06-01 10:00 UTC), 0.25);
        append(&path, &first).unwrap();
        append(&path, &first).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let parent = std::fs::metadata(path.parent().unwrap()).unwrap();
        assert_eq!(parent.permissions().mode() & 0o777, 0o700);
        let reading = read_all(&path).unwrap();
        assert_eq!(reading.records, [first.clone(), first]);
        assert_eq!(reading.skipped, 0);
    }

    #[test]
    fn no_ledger_reads_as_an_empty_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = path(dir.path());
        assert_eq!(read_all(&path).unwrap(), Reading::default());
        let since = datetime!(2026-06-01 00:00 UTC);
        assert_eq!(
            read_since::<Record>(&path, since).unwrap(),
            Reading::default()
        );
    }

    #[test]
    fn a_torn_line_is_skipped_and_the_next_append_starts_a_line_of_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let path = path(dir.path());
        let kept = record(datetime!(2026-06-01 10:00 UTC), 1.0);
        append(&path, &kept).unwrap();
        let mut file = OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(br#"{"time":"2026-06-01T10:00:01.000Z","cost_u"#)
            .unwrap();
        let after = record(datetime!(2026-06-01 11:00 UTC), 2.0);
        append(&path, &after).unwrap();
        let reading = read_all(&path).unwrap();
        assert_eq!(reading.records, [kept.clone(), after.clone()]);
        assert_eq!(reading.skipped, 1);
        let since = read_since::<Record>(&path, datetime!(2026-06-01 00:00 UTC)).unwrap();
        assert_eq!(since.records, [kept, after]);
        assert_eq!(since.skipped, 1);
    }

    #[test]
    fn the_quick_read_of_a_spend_agrees_with_the_json_parser() {
        let mut line = record(datetime!(2026-06-01 10:00 UTC), 0.000_123_4);
        line.tag = Some(r#"a "cost_usd":99, tag"#.to_owned());
        line.session_name = Some("cost_usd".to_owned());
        let text = serde_json::to_vec(&line).unwrap();
        let quick = Spend::quick(&text).unwrap();
        let parsed: Spend = serde_json::from_slice(&text).unwrap();
        assert_eq!(quick, parsed);
        assert_eq!(quick.cost_usd, 0.000_123_4);
        // Not pincer's shape: left to the parser.
        assert_eq!(Spend::quick(br#"{"cost_usd":1,"time":"x"}"#), None);
        assert_eq!(Spend::quick(br#"{"time":"x","cost_usd":"1"}"#), None);
    }

    #[test]
    fn a_link_in_the_ledgers_place_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("elsewhere");
        std::fs::write(&target, "").unwrap();
        let path = path(dir.path());
        std::os::unix::fs::symlink(&target, &path).unwrap();
        let line = record(datetime!(2026-06-01 10:00 UTC), 1.0);
        assert!(append(&path, &line).is_err());
        assert!(read_all(&path).is_err());
        assert_eq!(std::fs::read(&target).unwrap(), b"");
    }

    #[test]
    fn reading_back_to_a_time_crosses_chunks_and_stops_before_the_window() {
        let dir = tempfile::tempdir().unwrap();
        let path = path(dir.path());
        // Lines of varied length over several chunks, one run a minute for four days.
        let start = datetime!(2026-06-01 00:00 UTC);
        let mut all = Vec::new();
        for minute in 0..(4 * 24 * 60) {
            let mut line = record(start + Duration::minutes(minute), 0.001);
            line.tag = Some("x".repeat(usize::try_from(minute % 97).unwrap()));
            all.push(line);
        }
        let mut text = Vec::new();
        for line in &all {
            serde_json::to_writer(&mut text, line).unwrap();
            text.push(b'\n');
        }
        std::fs::write(&path, &text).unwrap();
        assert!(text.len() as u64 > 4 * CHUNK);
        let since = datetime!(2026-06-03 12:00 UTC);
        let reading = read_since::<Record>(&path, since).unwrap();
        let expected: Vec<Record> = all
            .iter()
            .filter(|line| line.ended().unwrap() >= since)
            .cloned()
            .collect();
        assert_eq!(reading.records.len(), expected.len());
        assert_eq!(reading.records, expected);
        assert_eq!(reading.skipped, 0);
        // What a budget reads of the same lines: the same runs.
        let spends: Reading<Spend> = read_since(&path, since).unwrap();
        let costs: Vec<(&str, f64)> = spends
            .records
            .iter()
            .map(|spend| (spend.time.as_str(), spend.cost_usd))
            .collect();
        let expected_costs: Vec<(&str, f64)> = expected
            .iter()
            .map(|line| (line.time.as_str(), line.cost_usd))
            .collect();
        assert_eq!(costs, expected_costs);
        // From before the first line: every line.
        let reading = read_since::<Record>(&path, datetime!(2026-05-01 00:00 UTC)).unwrap();
        assert_eq!(reading.records, all);
    }

    #[test]
    fn a_clock_that_stepped_back_a_little_still_counts_the_run() {
        let dir = tempfile::tempdir().unwrap();
        let path = path(dir.path());
        let early = record(datetime!(2026-06-02 00:10 UTC), 1.0);
        let stepped = record(datetime!(2026-06-01 23:50 UTC), 1.0);
        let late = record(datetime!(2026-06-02 00:20 UTC), 1.0);
        for line in [&early, &stepped, &late] {
            append(&path, line).unwrap();
        }
        let reading = read_since::<Record>(&path, datetime!(2026-06-02 00:00 UTC)).unwrap();
        assert_eq!(reading.records, [early, late]);
    }
}
