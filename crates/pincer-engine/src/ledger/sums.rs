//! What the ledger's lines cost per UTC day, kept in `usage-ledger.sums.json` beside the
//! ledger, so that a budget check reads only the lines appended since the sums were last
//! written: its cost stays flat however many runs a month holds (a backward read of a month of
//! a busy fleet's runs took milliseconds per run).
//!
//! Invariants:
//! - The sums are derived and disposable: they name the ledger file they were read from (its
//!   device and inode) and the byte offset they cover, always the end of a whole line. A
//!   missing, unreadable or foreign sums file, a ledger replaced or cut shorter, or a window
//!   that starts before the first day summed, is read from the ledger again, as before there
//!   were sums.
//! - Every line is counted once: those before the offset in the day sums, those after it read
//!   forwards from the offset, whatever the order of their times.
//! - Windows start at UTC midnight ([`super::window`]), so a day's sum falls wholly inside or
//!   outside each window.
//! - Writing the sums never fails a check (a read-only or full data directory): they are
//!   replaced by rename, never fsynced, and written again when the lines past them grow.

use std::collections::BTreeMap;
use std::fs::File;
use std::io;
use std::os::unix::fs::{FileExt as _, MetadataExt as _};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use time::{Date, OffsetDateTime, Time};

use super::store::{self, Line as _, Reading, Spend};

/// The sums' file name, beside the ledger.
pub const FILE_NAME: &str = "usage-ledger.sums.json";

/// How many lines past the sums a check reads before it writes the sums again.
const REWRITE_AFTER: usize = 256;

/// The bytes read per step of the forward read.
const CHUNK: usize = 64 * 1024;

/// The file's shape; a different `version` is read from the ledger again.
const VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Sums {
    version: u32,
    /// The ledger these were read from.
    device: u64,
    inode: u64,
    /// The ledger's bytes summed: up to the end of a whole line.
    offset: u64,
    /// The first day whose sum is complete (every earlier day is left out), as a Julian day
    /// number.
    from: i32,
    /// What the runs that ended on each day (UTC, Julian day numbers) from `from` on cost.
    days: BTreeMap<i32, f64>,
}

/// The sums file of the ledger at `ledger`.
pub fn path(ledger: &Path) -> PathBuf {
    ledger.with_file_name(FILE_NAME)
}

/// What the runs that ended on each UTC day from `since`'s day on cost, one `(midnight, cost)`
/// per day with runs; no ledger is no spending.
pub fn spent_by_day(
    ledger: &Path,
    since: OffsetDateTime,
) -> io::Result<Vec<(OffsetDateTime, f64)>> {
    let Some(file) = store::open(ledger)? else {
        return Ok(Vec::new());
    };
    let metadata = file.metadata()?;
    let length = metadata.len();
    let first_day = since.to_offset(time::UtcOffset::UTC).date().to_julian_day();
    let kept = read(&path(ledger)).filter(|sums| {
        sums.version == VERSION
            && sums.device == metadata.dev()
            && sums.inode == metadata.ino()
            && sums.offset <= length
            && sums.from <= first_day
    });
    let (mut sums, fresh) = match kept {
        Some(sums) => (sums, false),
        None => {
            // From scratch: back from the end of the last whole line to the window's start.
            let offset = end_of_last_line(&file, length)?;
            let reading: Reading<Spend> = store::read_back(&file, offset, since)?;
            let mut sums = Sums {
                version: VERSION,
                device: metadata.dev(),
                inode: metadata.ino(),
                offset,
                from: first_day,
                days: BTreeMap::new(),
            };
            for spend in &reading.records {
                add(&mut sums.days, sums.from, spend);
            }
            (sums, true)
        }
    };
    let tail = read_forward(&file, sums.offset, length)?;
    let mut days = sums.days.clone();
    for spend in tail.whole.iter().chain(&tail.torn) {
        add(&mut days, sums.from, spend);
    }
    if fresh || tail.whole.len() >= REWRITE_AFTER {
        // Only whole lines go into the sums: a line torn at the end stays past the offset.
        for spend in &tail.whole {
            add(&mut sums.days, sums.from, spend);
        }
        sums.offset = tail.end;
        sums.from = first_day;
        sums.days.retain(|day, _| *day >= first_day);
        write(&path(ledger), &sums);
    }
    Ok(days
        .into_iter()
        .filter(|(day, _)| *day >= first_day)
        .filter_map(|(day, cost)| {
            let day = Date::from_julian_day(day).ok()?;
            Some((day.with_time(Time::MIDNIGHT).assume_utc(), cost))
        })
        .collect())
}

/// Count `spend` into its day, when the day is summed.
fn add(days: &mut BTreeMap<i32, f64>, from: i32, spend: &Spend) {
    let Some(ended) = spend.ended() else {
        return;
    };
    let day = ended.to_offset(time::UtcOffset::UTC).date().to_julian_day();
    if day >= from {
        *days.entry(day).or_insert(0.0) += spend.cost_usd;
    }
}

/// The lines read forwards past the sums.
struct Tail {
    /// Those a newline ends.
    whole: Vec<Spend>,
    /// A last line without its newline (torn, or being written), when it reads.
    torn: Option<Spend>,
    /// The offset just past the last newline read (the start when there was none).
    end: u64,
}

/// The lines of `file` from byte `start` to `end`.
fn read_forward(file: &File, start: u64, end: u64) -> io::Result<Tail> {
    let mut reading = Reading::<Spend>::default();
    let mut tail = Tail {
        whole: Vec::new(),
        torn: None,
        end: start,
    };
    let mut position = start;
    let mut pending: Vec<u8> = Vec::new();
    while position < end {
        let size = usize::try_from(end - position).map_or(CHUNK, |left| left.min(CHUNK));
        let mut buffer = vec![0_u8; size];
        file.read_exact_at(&mut buffer, position)?;
        let mut from = 0;
        for newline in memchr::memchr_iter(b'\n', &buffer) {
            pending.extend_from_slice(&buffer[from..newline]);
            tail.whole.extend(reading.take(&pending));
            pending.clear();
            from = newline + 1;
            tail.end = position + newline as u64 + 1;
        }
        pending.extend_from_slice(&buffer[from..]);
        position += size as u64;
    }
    tail.torn = reading.take(&pending);
    Ok(tail)
}

/// The offset just past the last newline of the first `length` bytes of `file` (0 when none).
fn end_of_last_line(file: &File, length: u64) -> io::Result<u64> {
    let mut end = length;
    while end > 0 {
        let start = end.saturating_sub(CHUNK as u64);
        let mut buffer = vec![0_u8; usize::try_from(end - start).unwrap_or(0)];
        file.read_exact_at(&mut buffer, start)?;
        if let Some(newline) = memchr::memrchr(b'\n', &buffer) {
            return Ok(start + newline as u64 + 1);
        }
        end = start;
    }
    Ok(0)
}

fn read(path: &Path) -> Option<Sums> {
    let file = crate::fs::open_regular(path, false).ok()?;
    serde_json::from_reader(io::BufReader::new(file)).ok()
}

fn write(path: &Path, sums: &Sums) {
    if let Ok(bytes) = serde_json::to_vec(sums) {
        let _ = crate::fs::replace_unsynced(path, &bytes);
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;

    use time::Duration;
    use time::macros::datetime;

    use super::*;

    use crate::ledger::test_record as record;

    /// What a check without sums finds: every line since `since`, summed per day.
    fn by_reading(ledger: &Path, since: OffsetDateTime) -> BTreeMap<OffsetDateTime, f64> {
        let reading: Reading<Spend> = store::read_since(ledger, since).unwrap();
        let mut days = BTreeMap::new();
        for spend in &reading.records {
            let day = spend.ended().unwrap().date().with_time(Time::MIDNIGHT);
            *days.entry(day.assume_utc()).or_insert(0.0) += spend.cost_usd;
        }
        days
    }

    fn by_sums(ledger: &Path, since: OffsetDateTime) -> BTreeMap<OffsetDateTime, f64> {
        spent_by_day(ledger, since).unwrap().into_iter().collect()
    }

    fn close(left: &BTreeMap<OffsetDateTime, f64>, right: &BTreeMap<OffsetDateTime, f64>) {
        assert_eq!(
            left.keys().collect::<Vec<_>>(),
            right.keys().collect::<Vec<_>>()
        );
        for (day, cost) in left {
            assert!(
                (cost - right[day]).abs() < 1e-9,
                "{day}: {cost} {}",
                right[day]
            );
        }
    }

    fn stored(ledger: &Path) -> Sums {
        serde_json::from_slice(&std::fs::read(path(ledger)).unwrap()).unwrap()
    }

    #[test]
    fn the_sums_agree_with_reading_every_line_as_the_ledger_grows() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = store::path(dir.path());
        let month = datetime!(2026-06-01 00:00 UTC);
        let week = datetime!(2026-06-15 00:00 UTC);
        let mut time = datetime!(2026-05-30 12:00 UTC);
        for round in 0..12 {
            for run in 0..100 {
                time += Duration::minutes(37);
                // A clock that stepped back a little now and then.
                let ended = if run % 17 == 0 {
                    time - Duration::minutes(20)
                } else {
                    time
                };
                store::append(&ledger, &record(ended, 0.01 * f64::from(run % 7))).unwrap();
            }
            for since in [month, week] {
                close(&by_sums(&ledger, since), &by_reading(&ledger, since));
            }
            assert!(round > 0 || path(&ledger).is_file(), "no sums written");
        }
        // The sums cover most of the ledger: a check reads fewer lines than one rewrite's worth.
        let length = std::fs::metadata(&ledger).unwrap().len();
        let sums = stored(&ledger);
        let tail = read_forward(&File::open(&ledger).unwrap(), sums.offset, length).unwrap();
        assert!(tail.whole.len() < REWRITE_AFTER, "{}", tail.whole.len());
    }

    #[test]
    fn a_check_reads_only_the_lines_past_the_sums() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = store::path(dir.path());
        let since = datetime!(2026-06-01 00:00 UTC);
        store::append(&ledger, &record(datetime!(2026-06-02 10:00 UTC), 1.0)).unwrap();
        assert_eq!(
            spent_by_day(&ledger, since).unwrap(),
            [(datetime!(2026-06-02 00:00 UTC), 1.0)]
        );
        // Sums that say more than the ledger holds before their offset are believed: proof
        // that the lines before the offset are not read again.
        let mut sums = stored(&ledger);
        sums.days
            .insert(sums.days.keys().next().copied().unwrap(), 5.0);
        write(&path(&ledger), &sums);
        store::append(&ledger, &record(datetime!(2026-06-03 10:00 UTC), 2.0)).unwrap();
        assert_eq!(
            spent_by_day(&ledger, since).unwrap(),
            [
                (datetime!(2026-06-02 00:00 UTC), 5.0),
                (datetime!(2026-06-03 00:00 UTC), 2.0)
            ]
        );
        assert_eq!(stored(&ledger), sums, "not written again for one line");
    }

    #[test]
    fn sums_that_do_not_fit_the_ledger_are_read_again() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = store::path(dir.path());
        let since = datetime!(2026-06-10 00:00 UTC);
        store::append(&ledger, &record(datetime!(2026-06-01 10:00 UTC), 1.0)).unwrap();
        store::append(&ledger, &record(datetime!(2026-06-10 10:00 UTC), 2.0)).unwrap();
        let expected = [(datetime!(2026-06-10 00:00 UTC), 2.0)];
        assert_eq!(spent_by_day(&ledger, since).unwrap(), expected);
        // A wider window than the days summed.
        let earlier = datetime!(2026-06-01 00:00 UTC);
        assert_eq!(
            spent_by_day(&ledger, earlier).unwrap(),
            [(datetime!(2026-06-01 00:00 UTC), 1.0), expected[0]]
        );
        // Garbage, a replaced ledger, a ledger cut shorter than the offset.
        std::fs::write(path(&ledger), "{not json").unwrap();
        assert_eq!(spent_by_day(&ledger, since).unwrap(), expected);
        let copy = dir.path().join("copy");
        std::fs::copy(&ledger, &copy).unwrap();
        let mut sums = stored(&ledger);
        sums.days.clear();
        write(&path(&ledger), &sums);
        std::fs::rename(&copy, &ledger).unwrap();
        assert_eq!(spent_by_day(&ledger, since).unwrap(), expected, "new inode");
        let mut sums = stored(&ledger);
        sums.days.clear();
        write(&path(&ledger), &sums);
        std::fs::write(&ledger, "").unwrap();
        store::append(&ledger, &record(datetime!(2026-06-10 11:00 UTC), 3.0)).unwrap();
        assert_eq!(
            spent_by_day(&ledger, since).unwrap(),
            [(datetime!(2026-06-10 00:00 UTC), 3.0)],
            "cut shorter"
        );
        // No ledger, no spending; an unwritable sums file changes nothing.
        std::fs::remove_file(&ledger).unwrap();
        assert_eq!(spent_by_day(&ledger, since).unwrap(), []);
    }

    /// Trust IV (#45), "pincer's own files": a line with a negative cost, written by whoever
    /// could write the ledger, must not make room in a budget; nor may one whose cost is no
    /// number a sum can hold.
    #[test]
    fn lines_whose_cost_is_negative_or_not_a_number_are_never_summed() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = store::path(dir.path());
        let since = datetime!(2026-06-01 00:00 UTC);
        store::append(&ledger, &record(datetime!(2026-06-02 10:00 UTC), 1.5)).unwrap();
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&ledger)
            .unwrap();
        for cost in ["-1e9", "-0.5", "1e999", "-1e999", "\"NaN\"", "null"] {
            writeln!(
                file,
                r#"{{"time":"2026-06-02T11:00:00.000Z","cost_usd":{cost},"exit_class":"success"}}"#
            )
            .unwrap();
        }
        let expected = [(datetime!(2026-06-02 00:00 UTC), 1.5)];
        assert_eq!(spent_by_day(&ledger, since).unwrap(), expected);
        // Summed again from the sums file, and by a reading without it.
        assert_eq!(spent_by_day(&ledger, since).unwrap(), expected);
        std::fs::remove_file(path(&ledger)).unwrap();
        let reading: Reading<Spend> = store::read_since(&ledger, since).unwrap();
        assert_eq!(reading.records.len(), 1);
        assert_eq!(reading.skipped, 6);
        let all = store::read_all(&ledger).unwrap();
        assert_eq!(all.records.len(), 1);
        assert_eq!(all.skipped, 6);
    }

    #[test]
    fn a_torn_last_line_counts_but_stays_past_the_offset() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = store::path(dir.path());
        let since = datetime!(2026-06-01 00:00 UTC);
        store::append(&ledger, &record(datetime!(2026-06-02 10:00 UTC), 1.0)).unwrap();
        let whole = std::fs::metadata(&ledger).unwrap().len();
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&ledger)
            .unwrap();
        // Torn after its cost: it reads, and a budget counts it.
        file.write_all(br#"{"time":"2026-06-02T11:00:00.000Z","cost_usd":2.0,"num"#)
            .unwrap();
        assert_eq!(
            spent_by_day(&ledger, since).unwrap(),
            [(datetime!(2026-06-02 00:00 UTC), 3.0)]
        );
        assert_eq!(stored(&ledger).offset, whole);
        // The next append starts a line of its own; the torn one is still counted once.
        store::append(&ledger, &record(datetime!(2026-06-02 12:00 UTC), 4.0)).unwrap();
        assert_eq!(
            spent_by_day(&ledger, since).unwrap(),
            [(datetime!(2026-06-02 00:00 UTC), 7.0)]
        );
    }
}
