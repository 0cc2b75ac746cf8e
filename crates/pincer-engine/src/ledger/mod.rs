//! The spend ledger (SPEC §18): one JSON line per run that called a model, appended to
//! `<data dir>/usage-ledger.jsonl`, and what is decided from it — `pincer usage` reports and the
//! `[budget]` verdict a run gets before its first request.
//!
//! Invariants:
//! - The ledger is not derived from anything: it lives beside `sessions/`, never in the session
//!   index's database, so deleting or rebuilding the index loses nothing.
//! - One run appends at most one line, with one `write` on a descriptor opened with `O_APPEND`
//!   ([`store::append`]): concurrent runs never interleave their bytes on a local filesystem. A
//!   run killed before that write appends nothing; a line torn any other way (a full disk) is
//!   skipped by every reader and never fails `usage` or a budget check, and the next append
//!   starts on a line of its own.
//! - The file is 0600 and a directory pincer creates for it 0700, as the rest of the home.
//! - Times are UTC: days start at 00:00 UTC, weeks on Monday 00:00 UTC, months on the 1st at
//!   00:00 UTC ([`window`]). A budget check reads the per-day sums kept beside the ledger and
//!   the lines appended after them ([`sums`]), so its cost stays flat in the file's size and
//!   the window's runs; `pincer usage --since` reads backwards from the end and stops before
//!   its window starts.
//! - Nothing here prints; `commands/usage.rs` wires the ledger to the run and the report.

pub mod reserve;
pub mod store;
pub mod summary;
pub mod sums;
pub mod window;

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

/// The ledger's file name in the data directory.
pub const FILE_NAME: &str = "usage-ledger.jsonl";

/// What one run spent: one line of the ledger. Readers accept lines with fields they do not
/// know (a newer pincer may add some), so this type never denies unknown fields.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// When the run ended, UTC, RFC 3339 with milliseconds (`2026-06-01T09:30:00.123Z`).
    pub time: String,
    /// The provider of the model that answered (or last failed).
    pub provider: Option<String>,
    /// That model's id.
    pub model: Option<String>,
    /// `api`, `claude-cli` or `codex-cli`.
    pub backend: Option<String>,
    /// The auth profile whose key the run used; `None` for a key from the environment.
    pub profile: Option<String>,
    /// pincer's session id.
    pub session_id: Option<String>,
    /// The session's name.
    pub session_name: Option<String>,
    /// `--tag`.
    pub tag: Option<String>,
    /// Uncached prompt tokens.
    pub input_tokens: u64,
    /// Prompt tokens written to the cache.
    pub cache_creation_input_tokens: u64,
    /// Prompt tokens read from the cache.
    pub cache_read_input_tokens: u64,
    /// Output tokens, reasoning included.
    pub output_tokens: u64,
    /// The reasoning share of the output.
    pub reasoning_tokens: u64,
    /// The run's `total_cost_usd`.
    pub cost_usd: f64,
    /// Completed model round trips.
    pub num_turns: u32,
    /// Wall time of the run.
    pub duration_ms: u64,
    /// The process's exit code.
    pub exit_code: u8,
    /// Its class: `success`, `run_failed`, `guardrail`, `timeout`, `interrupted`, …
    pub exit_class: String,
}

impl Record {
    /// When the run ended, or `None` when the line's time does not parse.
    pub fn ended(&self) -> Option<OffsetDateTime> {
        parse_time(&self.time)
    }
}

/// `time` written as every ledger line writes it: UTC, milliseconds, a `Z` (as session entries).
pub fn format_time(time: OffsetDateTime) -> String {
    crate::session::record::iso_millis(time.to_offset(time::UtcOffset::UTC))
}

/// An RFC 3339 time (any offset). The form [`format_time`] writes is read without the general
/// parser: a budget check reads thousands of them.
pub fn parse_time(text: &str) -> Option<OffsetDateTime> {
    written_time(text.as_bytes()).or_else(|| {
        OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339).ok()
    })
}

/// `2026-06-01T09:30:00.123Z` exactly, else `None`.
fn written_time(text: &[u8]) -> Option<OffsetDateTime> {
    let [
        y1,
        y2,
        y3,
        y4,
        b'-',
        mo1,
        mo2,
        b'-',
        d1,
        d2,
        b'T',
        h1,
        h2,
        b':',
        mi1,
        mi2,
        b':',
        s1,
        s2,
        b'.',
        ms1,
        ms2,
        ms3,
        b'Z',
    ] = *text
    else {
        return None;
    };
    let number = |digits: &[u8]| {
        digits.iter().try_fold(0_u16, |total, digit| {
            digit
                .is_ascii_digit()
                .then(|| total * 10 + u16::from(digit - b'0'))
        })
    };
    let narrow = |digits: &[u8]| number(digits).and_then(|value| u8::try_from(value).ok());
    let date = time::Date::from_calendar_date(
        i32::from(number(&[y1, y2, y3, y4])?),
        time::Month::try_from(narrow(&[mo1, mo2])?).ok()?,
        narrow(&[d1, d2])?,
    )
    .ok()?;
    let time = time::Time::from_hms_milli(
        narrow(&[h1, h2])?,
        narrow(&[mi1, mi2])?,
        narrow(&[s1, s2])?,
        number(&[ms1, ms2, ms3])?,
    )
    .ok()?;
    Some(date.with_time(time).assume_utc())
}

/// A ledger line that ended at `time` and cost `cost_usd`, for the tests of the ledger's files.
#[cfg(test)]
pub fn test_record(time: OffsetDateTime, cost_usd: f64) -> Record {
    Record {
        time: format_time(time),
        cost_usd,
        exit_class: "success".to_owned(),
        ..Record::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_is_written_in_utc_with_milliseconds_and_read_back() {
        let time = time::macros::datetime!(2026-06-01 09:30:00.123 +02:00);
        let written = format_time(time);
        assert_eq!(written, "2026-06-01T07:30:00.123Z");
        assert_eq!(parse_time(&written), Some(time));
        assert_eq!(parse_time("yesterday"), None);
        // Other offsets and precisions go through the general parser.
        assert_eq!(
            parse_time("2026-06-01T09:30:00+02:00"),
            Some(time::macros::datetime!(2026-06-01 07:30:00 UTC))
        );
        assert_eq!(
            parse_time("2026-06-01T07:30:00.5Z"),
            Some(time::macros::datetime!(2026-06-01 07:30:00.5 UTC))
        );
        for bad in [
            "2026-13-01T07:30:00.000Z",
            "2026-06-31T07:30:00.000Z",
            "2026-06-01T24:30:00.000Z",
        ] {
            assert_eq!(parse_time(bad), None, "{bad}");
        }
    }
}
