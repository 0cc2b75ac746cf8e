//! Budget reservations (SPEC §18): a `[budget]` is a reservation, not a check. Before its first
//! request a run takes the ledger's lock, sums the window's spend and every live reservation,
//! and — when that is under each limit — leaves a reservation of its worst case before it lets
//! go; at its end the reservation is settled: the run's ledger line is appended and the
//! reservation removed, under the same lock, so that a check sees one or the other, never both
//! and never neither.
//!
//! Invariants:
//! - A reservation is a file of `usage-reservations/` beside the ledger (0600 in a 0700
//!   directory), created under the ledger's lock and held, for the whole run, under an open file
//!   description lock of the run's own process. It counts while that lock is held: the kernel
//!   drops the lock when the process dies, however it dies, so a killed run's reservation stops
//!   counting at once (no expiry to wait for) — also on NFS, which carries the lock to the
//!   server — and the next run that takes the ledger's lock removes its file.
//! - The ledger itself stays one line per finished run: readers of `usage-ledger.jsonl`
//!   (`pincer usage`, older pincers, a user's script) never see a reservation.
//! - The bound: a run starts only while spend plus live reservations is under every limit, and
//!   each admitted run adds its reservation. Of N runs started together, all but the last
//!   admitted reserved less than the limit between them, so they spend at most the limit plus
//!   one run's reservation — as long as each run stays within its reservation
//!   (`--max-budget-usd` holds a run to its amount plus the model call that crosses it).
//! - A reservation file that is not a regular file, does not parse, or names an amount that is
//!   negative or not a number counts as the default reservation while it is locked: a live run
//!   is never counted as free.

use std::fs::{File, OpenOptions};
use std::io::{self, Read as _, Write as _};
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use nix::fcntl::OFlag;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::window::{Budget, BudgetState, earliest_start, states};
use super::{Record, store, sums};
use crate::fs::{FileLock, LockError};

/// The directory of reservations, beside the ledger.
pub const DIR_NAME: &str = "usage-reservations";

/// How long a run waits for another that holds the ledger's lock (a check or a settlement holds
/// it for milliseconds), unless `--timeout` ends the wait sooner.
pub const LEDGER_LOCK_WAIT: Duration = Duration::from_secs(30);

/// How long a settlement waits for the ledger's lock before it appends its line without it (a
/// run's spend is never left out of the ledger for want of the lock).
const SETTLE_LOCK_WAIT: Duration = Duration::from_secs(10);

/// What a reservation file holds.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Held {
    /// The run's worst case, in US dollars.
    reserved_usd: f64,
    /// When the run reserved it.
    started: String,
    /// The run's process id, for a person looking at the directory.
    pid: u32,
}

/// The reservations directory of the ledger at `ledger`.
pub fn dir(ledger: &Path) -> PathBuf {
    ledger.with_file_name(DIR_NAME)
}

/// Why a run may not reserve.
#[derive(Debug)]
pub enum Refused {
    /// A budget's spend and the live reservations have reached its limit.
    Budget(BudgetState),
    /// The ledger's lock could not be taken (busy past the wait, or `--timeout`).
    Lock(LockError),
    /// The ledger or the reservations could not be read or written.
    Io(io::Error),
}

impl From<io::Error> for Refused {
    fn from(error: io::Error) -> Refused {
        Refused::Io(error)
    }
}

/// A run's reservation, held until it is settled or dropped (a run that ends before any
/// request, or fails before its line is written, drops it: the file goes, nothing is spent).
#[derive(Debug)]
pub struct Reservation {
    /// The reservation file, open and locked for as long as the run lives.
    file: Option<File>,
    path: PathBuf,
    ledger: PathBuf,
}

impl Reservation {
    /// Settle the reservation with the run's ledger line: under the ledger's lock, the line is
    /// appended and then the reservation removed.
    pub fn settle(mut self, record: &Record) -> io::Result<()> {
        let lock = FileLock::acquire(&crate::fs::lock_path(&self.ledger), Some(SETTLE_LOCK_WAIT));
        let appended = store::append(&self.ledger, record);
        self.release();
        drop(lock);
        appended
    }

    /// Remove the file while its lock is held, then let go of the lock.
    fn release(&mut self) {
        if let Some(file) = self.file.take() {
            let _ = std::fs::remove_file(&self.path);
            drop(file);
        }
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        self.release();
    }
}

/// Take the ledger's lock, and reserve `amount_usd` for a run starting `now` when every budget
/// of `budgets` has room: its spend (the ledger) plus the live reservations under its limit.
/// The reservations of dead runs are removed on the way.
pub fn reserve(
    ledger: &Path,
    budgets: &[Budget],
    now: OffsetDateTime,
    amount_usd: f64,
) -> Result<Reservation, Refused> {
    let Some(start) = earliest_start(budgets, now) else {
        return Err(Refused::Io(io::Error::other(
            "no budget to reserve against",
        )));
    };
    if let Some(parent) = ledger.parent() {
        crate::fs::create_dir_all(parent)?;
    }
    let lock = FileLock::acquire(&crate::fs::lock_path(ledger), Some(LEDGER_LOCK_WAIT))
        .map_err(Refused::Lock)?;
    let by_day = sums::spent_by_day(ledger, start)?;
    let live = live_reservations(&dir(ledger), amount_usd, true)?;
    let states = with_reserved(states(budgets, &by_day, now), &live);
    if let Some(state) = super::window::verdict(&states) {
        return Err(Refused::Budget(*state));
    }
    let reservation = create(ledger, amount_usd, now)?;
    drop(lock);
    Ok(reservation)
}

/// Each of `budgets` against the ledger and the live reservations, without taking the lock or
/// reserving (a dry run's warning, `status`).
pub fn states_now(
    ledger: &Path,
    budgets: &[Budget],
    now: OffsetDateTime,
    amount_usd: f64,
) -> io::Result<Vec<BudgetState>> {
    let Some(start) = earliest_start(budgets, now) else {
        return Ok(Vec::new());
    };
    let by_day = sums::spent_by_day(ledger, start)?;
    let live = live_reservations(&dir(ledger), amount_usd, false)?;
    Ok(with_reserved(states(budgets, &by_day, now), &live))
}

/// `states` with the live reservations `live` added to each.
fn with_reserved(mut states: Vec<BudgetState>, live: &[f64]) -> Vec<BudgetState> {
    let reserved: f64 = live.iter().sum();
    for state in &mut states {
        state.reserved_usd = reserved;
        state.runs_in_progress = live.len();
    }
    states
}

/// The amounts of the reservations of `dir` that a live run holds. With `sweep` (under the
/// ledger's lock), the files no run holds are removed.
fn live_reservations(dir: &Path, default_usd: f64, sweep: bool) -> io::Result<Vec<f64>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(error),
    };
    let mut live = Vec::new();
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name();
        if !name.to_string_lossy().ends_with(".json") {
            continue;
        }
        let path = entry.path();
        // Without following a link, and without blocking on a FIFO: whatever is not a regular
        // file holds no lock and is swept.
        let Ok(mut file) = crate::fs::open_regular(&path, false) else {
            if sweep {
                let _ = std::fs::remove_file(&path);
            }
            continue;
        };
        if !crate::fs::is_locked(&file).unwrap_or(true) {
            if sweep {
                let _ = std::fs::remove_file(&path);
            }
            continue;
        }
        let mut text = String::new();
        let amount = file
            .read_to_string(&mut text)
            .ok()
            .and_then(|_| serde_json::from_str::<Held>(&text).ok())
            .map(|held| held.reserved_usd)
            .filter(|amount| amount.is_finite() && *amount >= 0.0)
            .unwrap_or(default_usd);
        live.push(amount);
    }
    Ok(live)
}

/// Create and lock this run's reservation file.
fn create(ledger: &Path, amount_usd: f64, now: OffsetDateTime) -> io::Result<Reservation> {
    let dir = dir(ledger);
    crate::fs::create_dir_all(&dir)?;
    let path = dir.join(format!("{}.json", uuid::Uuid::now_v7()));
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags((OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC).bits())
        .open(&path)?;
    if !crate::fs::try_lock(&file)? {
        let _ = std::fs::remove_file(&path);
        return Err(io::Error::other(format!(
            "cannot lock the new reservation '{}'",
            path.display()
        )));
    }
    let held = Held {
        reserved_usd: amount_usd,
        started: super::format_time(now),
        pid: std::process::id(),
    };
    let written = serde_json::to_vec(&held)
        .map_err(io::Error::other)
        .and_then(|bytes| file.write_all(&bytes));
    let reservation = Reservation {
        file: Some(file),
        path,
        ledger: ledger.to_owned(),
    };
    // A reservation whose amount could not be written still counts (as the default) while held.
    let _ = written;
    Ok(reservation)
}

#[cfg(test)]
mod tests {
    use time::macros::datetime;

    use super::*;
    use crate::ledger::window::Period;

    const NOW: OffsetDateTime = datetime!(2026-06-03 15:20:00 UTC);

    fn daily(limit_usd: f64) -> Vec<Budget> {
        vec![Budget {
            period: Period::Day,
            limit_usd,
        }]
    }

    fn refused_budget(result: Result<Reservation, Refused>) -> BudgetState {
        match result {
            Err(Refused::Budget(state)) => state,
            other => panic!("not refused by a budget: {other:?}"),
        }
    }

    #[test]
    fn runs_reserve_until_the_reservations_reach_the_limit_and_settling_frees_the_rest() {
        let home = tempfile::tempdir().unwrap();
        let ledger = store::path(home.path());
        let budgets = daily(2.5);
        let first = reserve(&ledger, &budgets, NOW, 1.0).unwrap();
        let second = reserve(&ledger, &budgets, NOW, 1.0).unwrap();
        let third = reserve(&ledger, &budgets, NOW, 1.0).unwrap();
        // 3.0 reserved: over the limit, so a fourth run may not start.
        let state = refused_budget(reserve(&ledger, &budgets, NOW, 1.0));
        assert_eq!((state.spent_usd, state.reserved_usd), (0.0, 3.0));
        assert_eq!(state.runs_in_progress, 3);
        // The first run spent less than it reserved: room for one more.
        first
            .settle(&crate::ledger::test_record(NOW, 0.25))
            .unwrap();
        let fourth = reserve(&ledger, &budgets, NOW, 1.0).unwrap();
        let state = refused_budget(reserve(&ledger, &budgets, NOW, 1.0));
        assert_eq!((state.spent_usd, state.reserved_usd), (0.25, 3.0));
        drop((second, third, fourth));
        assert_eq!(
            std::fs::read_dir(dir(&ledger)).unwrap().count(),
            0,
            "a dropped reservation leaves no file"
        );
        let state = &states_now(&ledger, &budgets, NOW, 1.0).unwrap()[0];
        assert_eq!((state.spent_usd, state.reserved_usd), (0.25, 0.0));
    }

    #[test]
    fn a_reservation_nobody_holds_counts_for_nothing_and_is_swept() {
        let home = tempfile::tempdir().unwrap();
        let ledger = store::path(home.path());
        let budgets = daily(1.0);
        let held = reserve(&ledger, &budgets, NOW, 5.0).unwrap();
        refused_budget(reserve(&ledger, &budgets, NOW, 0.1));
        // What a killed run leaves: its file, with no lock on it.
        let left = dir(&ledger).join("0199a000-0000-7000-8000-000000000001.json");
        std::fs::copy(&held.path, &left).unwrap();
        drop(held);
        assert!(left.exists());
        let live = reserve(&ledger, &budgets, NOW, 0.1).unwrap();
        assert!(!left.exists(), "swept by the next reservation");
        drop(live);
    }

    #[test]
    fn a_locked_reservation_that_does_not_parse_counts_as_the_default() {
        let home = tempfile::tempdir().unwrap();
        let ledger = store::path(home.path());
        let held = reserve(&ledger, &daily(10.0), NOW, 1.0).unwrap();
        std::fs::write(&held.path, r#"{"reserved_usd":-1e9,"started":"x","pid":1}"#).unwrap();
        let state = &states_now(&ledger, &daily(10.0), NOW, 3.0).unwrap()[0];
        assert_eq!(state.reserved_usd, 3.0);
        drop(held);
    }
}
