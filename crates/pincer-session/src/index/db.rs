//! `<sessions>/index.sqlite3`: the index as an SQLite database (see the module doc of
//! [`super`] for what it holds and how it stays true to the files).
//!
//! Opening never fails a command: a database that is missing, corrupt, of another schema or
//! pincer version is built again from the files; one that cannot be opened or written (a
//! read-only home, a full disk) is replaced for this process by one in memory, built from the
//! files, so the answer is the same and only the cost differs.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rusqlite::{Connection, OpenFlags, OptionalExtension as _, TransactionBehavior, params};

use super::{INDEX_VERSION, IndexEntry, check_files, check_files_into, session_file_names};
use crate::error::SessionError;
use crate::fs::{FileLock, LockError};

/// File name of the database inside the sessions directory.
pub const DB_FILE: &str = "index.sqlite3";

/// The layout of the tables below (`PRAGMA user_version`); another one is dropped and built
/// again. The summary's own shape is [`INDEX_VERSION`], kept in `meta`.
const SCHEMA_VERSION: i64 = 1;

/// How long a command waits for another process's build of the rows before it gives up on it
/// (a builder that died released its lock at once; `--timeout` ends the wait sooner).
const BUILD_WAIT: Duration = Duration::from_secs(3600);

/// How long to wait for another process's write transaction (they last milliseconds; a full
/// build of a big home holds one for a few seconds), and never past `--timeout`.
const BUSY_WAIT: Duration = Duration::from_secs(10);

/// How many rows a build commits at a time (#46 item 1).
const BUILD_BATCH: usize = 2000;

/// The lock a build of the rows is made under, in the sessions directory: one process builds,
/// the others wait for it (never past `--timeout`) instead of each summarizing every session
/// into memory.
/// It is made with the database (a file made later changes the directory's stamp just before
/// the build would record it), and is never removed.
pub const BUILD_LOCK_FILE: &str = "index.sqlite3.build.lock";

/// Where the build lock lives: in the sessions directory's hidden lock directory, beside the
/// sessions' own locks, private like every file of the home (nothing but sessions and the index
/// is listed in the sessions directory itself).
/// The lock directory is made when missing (the lock file itself is made by whoever opens it).
fn build_lock_path(dir: &Path) -> PathBuf {
    let locks = dir.join(crate::store::LOCKS_DIR);
    if !locks.is_dir() {
        let _ = crate::fs::create_dir_all(&locks);
    }
    locks.join(BUILD_LOCK_FILE)
}

/// What the hand-written index of earlier versions left, removed once the database is built.
const OLD_FILES: [&str; 3] = ["index.json", ".index.journal", "index.json.lock"];

/// The file learned windows were kept in before they moved into the database; read once.
const OLD_LEARNED_WINDOWS: &str = ".learned-windows.json";

const SCHEMA: &str = "
    CREATE TABLE sessions (
        file TEXT PRIMARY KEY,
        id TEXT NOT NULL,
        id_lower TEXT NOT NULL,
        name TEXT,
        cwd TEXT NOT NULL,
        created TEXT NOT NULL,
        updated TEXT NOT NULL,
        updated_ms INTEGER,
        size INTEGER NOT NULL,
        mtime_ns INTEGER NOT NULL,
        damaged INTEGER NOT NULL,
        entry TEXT NOT NULL
    );
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE learned_windows (model TEXT PRIMARY KEY, tokens INTEGER NOT NULL);
";

/// The lookups' indexes over `sessions`. A full build drops them and makes them again once the
/// rows are in: sorting each index once is several times cheaper than keeping six b-trees in
/// order through 50,000 inserts.
const INDEXES: &str = "
    CREATE INDEX sessions_by_id ON sessions (id_lower);
    CREATE INDEX sessions_by_name ON sessions (name) WHERE name IS NOT NULL;
    CREATE INDEX sessions_by_cwd ON sessions (cwd, updated, created, file);
    CREATE INDEX sessions_by_updated ON sessions (updated, created, file);
    CREATE INDEX sessions_by_age ON sessions (updated_ms);
    CREATE INDEX sessions_damaged ON sessions (damaged) WHERE damaged;
    CREATE INDEX sessions_stamps ON sessions (file, size, mtime_ns);
";

/// The index a lookup that found nothing reads every row's stamp from, in file order, without
/// reading the rows themselves (a summary each, about a kilobyte): made with the others by a
/// build, and by the first such lookup in a database built before it existed.
const STAMPS_INDEX: &str =
    "CREATE INDEX IF NOT EXISTS sessions_stamps ON sessions (file, size, mtime_ns)";

const DROP_INDEXES: &str = "
    DROP INDEX IF EXISTS sessions_by_id;
    DROP INDEX IF EXISTS sessions_by_name;
    DROP INDEX IF EXISTS sessions_by_cwd;
    DROP INDEX IF EXISTS sessions_by_updated;
    DROP INDEX IF EXISTS sessions_by_age;
    DROP INDEX IF EXISTS sessions_damaged;
    DROP INDEX IF EXISTS sessions_stamps;
";

/// How long the sessions directory must have stood unchanged before a listing of it is
/// recorded as its stamp, on a filesystem with sub-millisecond times. Linux stamps a change
/// with the coarse clock, which ticks once a jiffy (at most 10 ms, `HZ=100`): a change made
/// in the same tick as the listing could carry the same time, and would go unseen. Twice the
/// longest tick leaves room for a clock read on another CPU.
const SETTLE_FINE: Duration = Duration::from_millis(20);
/// The same where times have no sub-millisecond part (FAT keeps two seconds, some NFS servers
/// whole seconds).
const SETTLE_COARSE: Duration = Duration::from_secs(3);

/// The sessions directory's modification and change times, in nanoseconds: adding, removing or
/// renaming a file in it updates both (POSIX), and nobody can set a change time back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DirStamp {
    mtime_ns: u64,
    ctime_ns: u64,
}

impl DirStamp {
    /// The times of `dir` now.
    pub fn of(dir: &Path) -> Option<DirStamp> {
        use std::os::unix::fs::MetadataExt as _;
        let metadata = std::fs::metadata(dir).ok()?;
        let nanos = |seconds: i64, nanos: i64| {
            u64::try_from(seconds)
                .ok()?
                .checked_mul(1_000_000_000)?
                .checked_add(u64::try_from(nanos).ok()?)
        };
        Some(DirStamp {
            mtime_ns: nanos(metadata.mtime(), metadata.mtime_nsec())?,
            ctime_ns: nanos(metadata.ctime(), metadata.ctime_nsec())?,
        })
    }

    fn text(self) -> String {
        format!("{}/{}", self.mtime_ns, self.ctime_ns)
    }

    fn parse(text: &str) -> Option<DirStamp> {
        let (mtime, ctime) = text.split_once('/')?;
        Some(DirStamp {
            mtime_ns: mtime.parse().ok()?,
            ctime_ns: ctime.parse().ok()?,
        })
    }

    /// Whether, at `now`, the directory had stood unchanged long enough since these times that
    /// a later change cannot carry the same times (git's "racy" rule).
    pub fn settled(self, now: SystemTime) -> bool {
        let Some(now) = now
            .duration_since(UNIX_EPOCH)
            .ok()
            .and_then(|since| u64::try_from(since.as_nanos()).ok())
        else {
            return false;
        };
        let latest = self.ctime_ns.max(self.mtime_ns);
        let settle = if latest.is_multiple_of(1_000_000) {
            SETTLE_COARSE
        } else {
            SETTLE_FINE
        };
        now.saturating_sub(latest) >= u64::try_from(settle.as_nanos()).unwrap_or(u64::MAX)
    }
}

/// An open index database.
pub struct Db {
    conn: Connection,
    dir: PathBuf,
    /// Whether this is the in-memory stand-in for a database that cannot be used.
    in_memory: bool,
    /// Whether the in-memory stand-in holds the sessions.
    filled: bool,
    /// Why the sessions were built from the files in this process, when they were.
    pub rebuilt: Option<String>,
    /// Why the database could not be written, when it could not.
    pub unsaved: Option<String>,
    /// How many files were summarized (built or found new) by this connection.
    pub summarized: usize,
    /// The sessions directory, opened on the first [`Db::fresh`] so that each file's stat is
    /// made relative to it; `Some(None)` when it could not be opened.
    directory: Option<Option<std::fs::File>>,
    /// The database file this connection opened (device and inode, as it was just before
    /// the open), so that one found corrupt is removed only while it is still that file.
    file: Option<(u64, u64)>,
}

fn to_i64(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

fn to_u64(value: i64) -> u64 {
    u64::try_from(value).unwrap_or(0)
}

/// `updated` as milliseconds since the epoch, for the age queries of a prune.
fn updated_ms(updated: &str) -> Option<i64> {
    let time = time::OffsetDateTime::parse(updated, &time::format_description::well_known::Rfc3339)
        .ok()?;
    i64::try_from(time.unix_timestamp_nanos() / 1_000_000).ok()
}

std::thread_local! {
    /// Whether this thread runs a change inside an index write transaction ([`Db::changing`]):
    /// a second transaction opened then would wait for the first, held by the same thread.
    /// Thread-local with a reason (issue #48): it guards one thread's own call stack against
    /// re-entering, which no value passed down could see from the callee's side.
    static IN_CHANGE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// [`IN_CHANGE`] set while it lives, and set back when it is dropped, unwinding included.
struct InChange(bool);

impl InChange {
    fn enter() -> InChange {
        InChange(IN_CHANGE.replace(true))
    }
}

impl Drop for InChange {
    fn drop(&mut self) {
        IN_CHANGE.set(self.0);
    }
}

/// Whether this thread is inside [`Db::changing`]'s transaction now.
pub fn in_change() -> bool {
    IN_CHANGE.get()
}

/// Every prefix of `lower` sorts in `[lower, upper)` with this `upper`: no UTF-8 text that
/// starts with `lower` is greater than `lower` followed by the greatest character.
fn prefix_end(lower: &str) -> String {
    format!("{lower}\u{10FFFF}")
}

/// The summary of every file of `files`, read on worker threads.
fn summarize_all(dir: &Path, files: &[(String, PathBuf)]) -> Vec<IndexEntry> {
    let empty = super::Index::default();
    check_files(dir, &empty, files)
        .into_iter()
        .filter_map(|(_, freshness)| match freshness {
            super::Freshness::Updated(entry) => Some(*entry),
            _ => None,
        })
        .collect()
}

/// Of the sorted file `names` of the directory, those no row knows, and the files of the rows
/// that are not among them. The rows are read in the same (byte) order and merged against the
/// names: a sync that lists the directory holds its names, not also a set of every row's and of
/// every name (which grew a run's memory with the home, #46).
fn unknown_and_gone<'a>(conn: &Connection, names: &'a [String]) -> (Vec<&'a String>, Vec<String>) {
    let mut unknown = Vec::new();
    let mut gone = Vec::new();
    let mut next = 0;
    if let Ok(mut statement) = conn.prepare("SELECT file FROM sessions ORDER BY file")
        && let Ok(rows) = statement.query_map([], |row| row.get::<_, String>(0))
    {
        for file in rows.flatten() {
            while let Some(name) = names.get(next)
                && name.as_str() < file.as_str()
            {
                unknown.push(name);
                next += 1;
            }
            if names.get(next) == Some(&file) {
                next += 1;
            } else {
                gone.push(file);
            }
        }
    }
    unknown.extend(names.get(next..).unwrap_or_default());
    (unknown, gone)
}

/// The files of the rows whose stamp (`stat` gives it; `None` when the file is gone) is not the
/// one the row recorded, walking the stamps' own index (three columns, not the rows'
/// summaries) as it streams: a batch of rows at a time, stat'ed on a few threads (a stat is a
/// system call; a big home is hundreds of thousands of them). Only a batch and the changed
/// files are held.
fn changed_stamps(
    conn: &Connection,
    stat: impl Fn(&str) -> Option<(u64, u64)> + Sync,
) -> Vec<String> {
    const BATCH: usize = 8192;
    let threads = std::thread::available_parallelism().map_or(1, |count| count.get().min(8));
    let mut changed = Vec::new();
    let mut batch: Vec<(String, (u64, u64))> = Vec::with_capacity(BATCH);
    let mut check = |batch: &mut Vec<(String, (u64, u64))>| {
        // A small home is checked here: starting threads would cost more than its stats.
        let threads = if batch.len() < super::PARALLEL_FROM {
            1
        } else {
            threads
        };
        let part = batch.len().div_ceil(threads).max(1);
        std::thread::scope(|scope| {
            let workers: Vec<_> = batch
                .chunks(part)
                .map(|rows| {
                    scope.spawn(|| {
                        rows.iter()
                            .filter(|(file, recorded)| stat(file) != Some(*recorded))
                            .map(|(file, _)| file.clone())
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            for worker in workers {
                changed.extend(worker.join().unwrap_or_default());
            }
        });
        batch.clear();
    };
    if let Ok(mut statement) = conn.prepare("SELECT file, size, mtime_ns FROM sessions")
        && let Ok(mut rows) = statement.query([])
    {
        while let Ok(Some(row)) = rows.next() {
            let Ok(file) = row.get::<_, String>(0) else {
                continue;
            };
            let recorded = (
                to_u64(row.get::<_, i64>(1).unwrap_or(-1)),
                to_u64(row.get::<_, i64>(2).unwrap_or(-1)),
            );
            batch.push((file, recorded));
            if batch.len() == BATCH {
                check(&mut batch);
            }
        }
    }
    check(&mut batch);
    changed
}

fn row_entry(row: &rusqlite::Row<'_>) -> rusqlite::Result<Option<IndexEntry>> {
    let text: String = row.get(0)?;
    Ok(serde_json::from_str(&text).ok())
}

impl Db {
    /// Open the index of the sessions directory `dir` (creating the database, not the
    /// directory); `None` when there is no such directory. Sessions are built from the files
    /// on first use ([`Db::ensure_built`]), not here: a command that only wants learned windows
    /// does not pay for it.
    pub fn open(dir: &Path) -> Option<Db> {
        if !dir.is_dir() {
            return None;
        }
        let mut rebuilt = None;
        let mut unopened = None;
        let mut file = file_identity(dir);
        if !dir.join(DB_FILE).exists() {
            let _ = crate::fs::private_file_options().open(build_lock_path(dir));
        }
        let conn = match open_file(dir, &mut rebuilt) {
            Ok(conn) => Some(conn),
            Err(error) => {
                // Corrupt or not a database: start again from the files, once.
                note_failure(&error);
                if is_corrupt(&error) {
                    remove_corrupt_database(dir, file);
                    rebuilt = Some(unreadable(dir, &error));
                    let mut again = None;
                    file = file_identity(dir);
                    open_file(dir, &mut again)
                        .inspect_err(|error| unopened = Some(error.to_string()))
                        .ok()
                } else {
                    unopened = Some(error.to_string());
                    None
                }
            }
        };
        // A database this open created is the one it opened.
        let file = file.or_else(|| file_identity(dir));
        let mut db = match conn {
            Some(conn) => Db {
                conn,
                dir: dir.to_owned(),
                in_memory: false,
                filled: false,
                rebuilt,
                unsaved: None,
                summarized: 0,
                directory: None,
                file,
            },
            None => {
                let mut db = Db::memory(dir)?;
                db.unsaved = Some(format!(
                    "cannot open '{}' ({})",
                    dir.join(DB_FILE).display(),
                    unopened.unwrap_or_default()
                ));
                db
            }
        };
        if db.rebuilt.is_none() && !db.in_memory && !db.built() {
            db.rebuilt = Some(match db.meta("index_version") {
                Some(version) => format!("index version {version} is not {INDEX_VERSION}"),
                None => "there is no index yet".to_owned(),
            });
        }
        Some(db)
    }

    /// An empty database in memory for `dir`.
    fn memory(dir: &Path) -> Option<Db> {
        let conn = Connection::open_in_memory().ok()?;
        conn.execute_batch(SCHEMA).ok()?;
        conn.execute_batch(INDEXES).ok()?;
        Some(Db {
            conn,
            dir: dir.to_owned(),
            in_memory: true,
            filled: false,
            rebuilt: None,
            unsaved: None,
            summarized: 0,
            directory: None,
            file: None,
        })
    }

    /// Whether the database is an in-memory stand-in.
    pub fn in_memory(&self) -> bool {
        self.in_memory
    }

    fn meta(&self, key: &str) -> Option<String> {
        self.conn
            .query_row("SELECT value FROM meta WHERE key = ?1", [key], |row| {
                row.get(0)
            })
            .optional()
            .ok()
            .flatten()
    }

    /// Whether the sessions table was built by this pincer's summary.
    fn built(&self) -> bool {
        self.meta("index_version").as_deref() == Some(&INDEX_VERSION.to_string())
    }

    /// The directory stamp recorded when the rows last matched a listing.
    fn stamp(&self) -> Option<DirStamp> {
        self.meta("stamp").as_deref().and_then(DirStamp::parse)
    }

    /// Build the sessions from the files when they are not (missing, of another version), and
    /// bring the rows in line with the directory's files when the directory changed since
    /// ([`Db::sync`]).
    /// Fails only when the directory cannot be listed.
    pub fn ensure_built(&mut self) -> Result<(), SessionError> {
        if self.in_memory && self.filled {
            return Ok(());
        }
        if self.in_memory || !self.built() {
            self.build()
        } else {
            self.sync()
        }
    }

    /// Summarize every session file and store the rows, replacing what was there.
    fn build(&mut self) -> Result<(), SessionError> {
        // One builder at a time: the others wait for it here (as long as it lives, and never
        // past --timeout: exit 124), then find the rows built.
        let _building = if self.in_memory {
            None
        } else {
            match FileLock::acquire(&build_lock_path(&self.dir), Some(BUILD_WAIT)) {
                Ok(lock) => Some(Building::hold(lock)),
                Err(error @ LockError::TimedOut { .. }) => {
                    const WHAT: &str = "the session index being built by another pincer";
                    return Err(SessionError::from_lock(
                        error,
                        || WHAT.to_owned(),
                        |holder| SessionError::LockTimedOut {
                            what: WHAT.to_owned(),
                            holder,
                        },
                    ));
                }
                // A lock that cannot be taken here (a read-only home): build as before.
                Err(_) => None,
            }
        };
        if !self.in_memory && self.built() {
            return self.sync();
        }
        let now = SystemTime::now();
        let before = DirStamp::of(&self.dir);
        let files = super::session_files(&self.dir)?;
        if self.rebuilt.is_none() {
            self.rebuilt = Some("there is no index yet".to_owned());
        }
        let stored = self.while_building(|db| db.store_build(&files, before, now));
        self.filled = self.in_memory;
        match stored {
            Ok(count) => {
                self.summarized = count;
                if !self.in_memory {
                    for old in OLD_FILES {
                        let _ = std::fs::remove_file(self.dir.join(old));
                    }
                }
            }
            Err(error) => {
                let entries = summarize_all(&self.dir, &files);
                let rebuilt = self.rebuilt.take();
                let windows = self.learned_windows();
                if let Some(mut memory) = Db::memory(&self.dir) {
                    memory.rebuilt = rebuilt;
                    memory.unsaved = Some(unwritable(&self.dir, &error));
                    for (model, tokens) in windows {
                        let _ = memory.remember_window(&model, tokens);
                    }
                    let _ = memory.insert_all(&entries);
                    memory.summarized = entries.len();
                    memory.filled = true;
                    *self = memory;
                }
            }
        }
        Ok(())
    }

    /// Runs `build` (a rebuild of every row) with `synchronous = OFF`, and `NORMAL` again
    /// after: the syncs of the checkpoint that follows the build's commit (the whole database,
    /// 90 MB for 50,000 sessions) were about a tenth of a rebuild's time. The rows are a cache
    /// derived from the session files, so the risk is acceptable: a power cut soon after may
    /// leave the database damaged, and one found corrupt is built again from the files; a row
    /// is checked against its file's size and mtime before it is used, and a lost row is found
    /// again when the directory next changes or a command lists every session.
    fn while_building<T>(&mut self, build: impl FnOnce(&mut Db) -> T) -> T {
        let _ = self.conn.pragma_update(None, "synchronous", "OFF");
        let result = build(self);
        let _ = self.conn.pragma_update(None, "synchronous", "NORMAL");
        result
    }

    /// Replace the rows with the summaries of `files`, read on worker threads while this one
    /// stores each row as it arrives, committed every [`BUILD_BATCH`] rows (#46 item 1: the
    /// progress is visible, and a builder killed midway leaves its rows to the next one, which
    /// keeps those whose file still has the stamp they recorded); returns how many were stored.
    /// The lookups' indexes and the version that says the rows are complete are written at the
    /// end only. No summary is kept once stored: when a write fails, the caller reads the files
    /// again for an index in memory. The directory's stamp `before` (taken at `now`, before the
    /// listing) is recorded when it still holds after the reads. Reads nothing when another
    /// process built the index meanwhile.
    fn store_build(
        &mut self,
        files: &[(String, PathBuf)],
        before: Option<DirStamp>,
        now: SystemTime,
    ) -> rusqlite::Result<usize> {
        let stored = self.store_batches(files, before, now);
        if stored.is_err() {
            // Whatever batch was open is given up; the committed ones stay for the next build.
            let _ = self.conn.execute_batch("ROLLBACK");
        }
        stored
    }

    fn store_batches(
        &mut self,
        files: &[(String, PathBuf)],
        before: Option<DirStamp>,
        now: SystemTime,
    ) -> rusqlite::Result<usize> {
        let version = INDEX_VERSION.to_string();
        self.conn.execute_batch("BEGIN IMMEDIATE")?;
        if !self.in_memory && self.meta("index_version").as_deref() == Some(&version) {
            // Another process built it while this one waited.
            self.conn.execute_batch("COMMIT")?;
            return Ok(0);
        }
        self.conn.execute_batch(DROP_INDEXES)?;
        // The rows of a build of this version that was cut short are kept where their file
        // still has the stamp they recorded; any other rows are of another summary.
        let resumed = self.meta("building").as_deref() == Some(&version);
        let mut kept: HashSet<String> = HashSet::new();
        if resumed {
            kept = self.resumable_rows(files)?;
        } else {
            self.conn.execute("DELETE FROM sessions", [])?;
            self.conn
                .execute("DELETE FROM meta WHERE key = 'index_version'", [])?;
            set_meta(&self.conn, "building", &version)?;
        }
        let todo: Vec<(String, PathBuf)> = files
            .iter()
            .filter(|(name, _)| !kept.contains(name))
            .cloned()
            .collect();
        let mut stored = kept.len();
        let mut failed = None;
        {
            let mut insert = self.conn.prepare(INSERT)?;
            let empty = super::Index::default();
            let conn = &self.conn;
            check_files_into(&self.dir, &empty, &todo, |_, freshness| {
                if let super::Freshness::Updated(entry) = freshness
                    && failed.is_none()
                {
                    let written = insert_entry(&mut insert, &entry).and_then(|()| {
                        stored += 1;
                        if stored.is_multiple_of(BUILD_BATCH) {
                            conn.execute_batch("COMMIT; BEGIN IMMEDIATE")?;
                        }
                        Ok(())
                    });
                    if let Err(error) = written {
                        failed = Some(error);
                    }
                }
            });
        }
        if let Some(error) = failed {
            return Err(error);
        }
        self.conn.execute_batch(INDEXES)?;
        let after = DirStamp::of(&self.dir);
        let stamp = before.filter(|before| Some(*before) == after && before.settled(now));
        set_meta(&self.conn, "index_version", &version)?;
        self.conn
            .execute("DELETE FROM meta WHERE key = 'building'", [])?;
        match stamp {
            Some(stamp) => set_meta(&self.conn, "stamp", &stamp.text())?,
            None => {
                self.conn
                    .execute("DELETE FROM meta WHERE key = 'stamp'", [])?;
            }
        }
        self.conn.execute_batch("COMMIT")?;
        Ok(stored)
    }

    /// Of the rows a build that was cut short left, the files whose row still describes them
    /// (the same stamp); the other rows (their file changed, or is not among `files`) are
    /// deleted, to be read again or dropped.
    fn resumable_rows(&self, files: &[(String, PathBuf)]) -> rusqlite::Result<HashSet<String>> {
        let directory = std::fs::File::open(&self.dir).ok();
        let changed: HashSet<String> = changed_stamps(&self.conn, |file| {
            directory
                .as_ref()
                .and_then(|directory| super::stamp_in(directory, file))
        })
        .into_iter()
        .collect();
        let present: HashSet<&str> = files.iter().map(|(name, _)| name.as_str()).collect();
        let mut kept = HashSet::new();
        let mut stale = Vec::new();
        let mut all = self.conn.prepare("SELECT file FROM sessions")?;
        for file in all.query_map([], |row| row.get::<_, String>(0))? {
            let file = file?;
            if changed.contains(&file) || !present.contains(file.as_str()) {
                stale.push(file);
            } else {
                kept.insert(file);
            }
        }
        drop(all);
        let mut delete = self.conn.prepare("DELETE FROM sessions WHERE file = ?1")?;
        for file in &stale {
            delete.execute([file])?;
        }
        Ok(kept)
    }

    /// Whether the database syncs its commits (`synchronous = NORMAL`, the default) or not
    /// (`OFF`), for a run of many small transactions: a prune's batches, whose checkpoints
    /// synced the whole database about once per 1,000 pages written (fifty times for 25,000
    /// removals). As for a build ([`Db::while_building`]), the rows are a cache: a power cut may
    /// leave rows of removed files, which are dropped when a command finds their file gone, or a
    /// damaged database, which is built again.
    pub fn set_synced(&mut self, synced: bool) {
        let mode = if synced { "NORMAL" } else { "OFF" };
        let _ = self.conn.pragma_update(None, "synchronous", mode);
    }

    /// Store `entries` as rows of an index in memory, in one transaction.
    fn insert_all(&mut self, entries: &[IndexEntry]) -> rusqlite::Result<()> {
        let transaction = self.conn.transaction()?;
        {
            let mut insert = transaction.prepare(INSERT)?;
            for entry in entries {
                insert_entry(&mut insert, entry)?;
            }
        }
        set_meta(&transaction, "index_version", &INDEX_VERSION.to_string())?;
        transaction.commit()
    }

    /// When the directory's stamp is not the one recorded, read its names (no stat of the
    /// files the rows know), summarize those no row knows, drop the rows whose files are gone,
    /// and record the stamp when the directory stood still meanwhile.
    fn sync(&mut self) -> Result<(), SessionError> {
        let now = SystemTime::now();
        let Some(before) = DirStamp::of(&self.dir) else {
            return Ok(());
        };
        if self.stamp() == Some(before) {
            return Ok(());
        }
        self.relist(before, now)
    }

    /// What a lookup by a name that found nothing reads again (#46 item 3): the rows whose
    /// file's size or mtime is not the one the row recorded (or whose file is gone), read again
    /// and handed back, so that a name another program appended since the row was read is
    /// found. An append changes neither the directory nor anything but the file, so a stat per
    /// known file is the floor of a lookup by name; it is made relative to the directory while
    /// the rows' stamps stream from their own index (no row is read but the changed ones, no
    /// list of the directory's names is held: the memory of a miss does not grow with the
    /// home). Files no row knows were read by [`Db::ensure_built`] when the directory's stamp
    /// changed, as for every other lookup (the residual race of the module's doc, which a hit
    /// has too).
    pub fn relisted(&mut self) -> Result<Vec<IndexEntry>, SessionError> {
        if !self.in_memory {
            // Best effort: without it the walk reads the rows.
            let _ = self.conn.execute_batch(STAMPS_INDEX);
        }
        let directory = self
            .directory
            .get_or_insert_with(|| std::fs::File::open(&self.dir).ok())
            .as_ref();
        let stat = |file: &str| match directory {
            Some(directory) => super::stamp_in(directory, file),
            None => std::fs::metadata(self.dir.join(file))
                .ok()
                .map(|metadata| super::file_stamp(&metadata)),
        };
        let changed = changed_stamps(&self.conn, stat);
        let mut read_again = Vec::new();
        for file in changed {
            if let Some(known) = self.row(&file)
                && let Some(entry) = self.fresh(known)
            {
                read_again.push(entry);
            }
        }
        Ok(read_again)
    }

    /// Bring the rows in line with the directory's names (see [`Db::sync`]).
    fn relist(&mut self, before: DirStamp, now: SystemTime) -> Result<(), SessionError> {
        let mut names = session_file_names(&self.dir)?;
        names.sort_unstable();
        let (unknown, gone) = unknown_and_gone(&self.conn, &names);
        let unknown: Vec<(String, PathBuf)> = unknown
            .into_iter()
            .map(|name| (name.clone(), self.dir.join(name)))
            .collect();
        drop(names);
        let empty = super::Index::default();
        let entries: Vec<IndexEntry> = check_files(&self.dir, &empty, &unknown)
            .into_iter()
            .filter_map(|(_, freshness)| match freshness {
                super::Freshness::Updated(entry) => Some(*entry),
                _ => None,
            })
            .collect();
        self.summarized += entries.len();
        let after = DirStamp::of(&self.dir);
        let stamp = (after == Some(before) && before.settled(now)).then_some(before);
        let written = (|| -> rusqlite::Result<()> {
            let transaction = self
                .conn
                .transaction_with_behavior(TransactionBehavior::Immediate)?;
            {
                let mut insert = transaction.prepare(INSERT)?;
                for entry in &entries {
                    insert_entry(&mut insert, entry)?;
                }
                let mut delete = transaction.prepare("DELETE FROM sessions WHERE file = ?1")?;
                for file in &gone {
                    // A file another pincer created since the listing is not gone.
                    if std::fs::symlink_metadata(self.dir.join(file)).is_err() {
                        delete.execute([file])?;
                    }
                }
            }
            if let Some(stamp) = stamp {
                set_meta(&transaction, "stamp", &stamp.text())?;
            }
            transaction.commit()
        })();
        if let Err(error) = written {
            self.fall_back(&error)?;
        }
        Ok(())
    }

    /// Go on in memory, built from the files, after a write failed.
    fn fall_back(&mut self, error: &rusqlite::Error) -> Result<(), SessionError> {
        note_failure(error);
        if self.in_memory {
            return Ok(());
        }
        let windows = self.learned_windows();
        if let Some(mut memory) = Db::memory(&self.dir) {
            memory.unsaved = Some(unwritable(&self.dir, error));
            for (model, tokens) in windows {
                let _ = memory.remember_window(&model, tokens);
            }
            let rebuilt = self.rebuilt.take();
            memory.build()?;
            memory.rebuilt = rebuilt;
            *self = memory;
        }
        Ok(())
    }

    /// The entries `sql` (which selects `entry`) gives. A database found corrupt here is
    /// built again from the files, and asked again.
    fn entries(&mut self, sql: &str, params: &[&dyn rusqlite::ToSql]) -> Vec<IndexEntry> {
        match self.try_entries(sql, params) {
            Ok(entries) => entries,
            Err(error) if is_corrupt(&error) && !self.in_memory => {
                self.recover(&error);
                self.try_entries(sql, params).unwrap_or_default()
            }
            Err(_) => Vec::new(),
        }
    }

    fn try_entries(
        &self,
        sql: &str,
        params: &[&dyn rusqlite::ToSql],
    ) -> rusqlite::Result<Vec<IndexEntry>> {
        let mut statement = self.conn.prepare(sql)?;
        let rows = statement.query_map(params, row_entry)?;
        let mut entries = Vec::new();
        for row in rows {
            entries.extend(row?);
        }
        Ok(entries)
    }

    /// Start again from the files after the database was found corrupt.
    fn recover(&mut self, error: &rusqlite::Error) {
        let reason = unreadable(&self.dir, error);
        let dir = self.dir.clone();
        let file = self.file;
        let Some(placeholder) = Db::memory(&dir) else {
            return;
        };
        // The old connection is closed before its files go.
        drop(std::mem::replace(self, placeholder));
        remove_corrupt_database(&dir, file);
        if let Some(mut db) = Db::open(&dir) {
            db.rebuilt = Some(reason);
            // A directory that cannot be listed leaves no rows: the query finds nothing.
            let _ = db.ensure_built();
            *self = db;
        }
    }

    /// The row of `file`, as stored.
    pub fn row(&mut self, file: &str) -> Option<IndexEntry> {
        self.entries("SELECT entry FROM sessions WHERE file = ?1", &[&file])
            .into_iter()
            .next()
    }

    /// Every row.
    pub fn all(&mut self) -> Vec<IndexEntry> {
        self.entries("SELECT entry FROM sessions ORDER BY file", &[])
    }

    /// The rows a session argument can mean: its id or an id it begins (without regard to
    /// case), its name, the file it names, and the damaged sessions (whose id or name may be
    /// known only once they are read again).
    pub fn candidates(&mut self, query: &str) -> Vec<IndexEntry> {
        let lower = query.to_ascii_lowercase();
        let file = Path::new(query)
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        // One query per index: an `OR` of them would scan the whole table.
        let mut found = self.entries("SELECT entry FROM sessions WHERE name = ?1", &[&query]);
        found.extend(self.entries("SELECT entry FROM sessions WHERE file = ?1", &[&file]));
        found.extend(self.entries("SELECT entry FROM sessions WHERE damaged", &[]));
        if !query.is_empty() {
            found.extend(self.entries(
                "SELECT entry FROM sessions WHERE id_lower >= ?1 AND id_lower < ?2",
                &[&lower, &prefix_end(&lower)],
            ));
        }
        found.sort_by(|left, right| left.file.cmp(&right.file));
        found.dedup_by(|left, right| left.file == right.file);
        found
    }

    /// How many rows there are, and how many of the workspace `cwd`.
    pub fn counts(&self, cwd: &str) -> (usize, usize) {
        // Two counts, each over an index (one `CASE` would read every row).
        (
            self.count("SELECT count(*) FROM sessions", &[]),
            self.count("SELECT count(*) FROM sessions WHERE cwd = ?1", &[&cwd]),
        )
    }

    /// How many rows there are.
    pub fn len(&self) -> usize {
        self.count("SELECT count(*) FROM sessions", &[])
    }

    /// Whether there is no row.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn count(&self, sql: &str, params: &[&dyn rusqlite::ToSql]) -> usize {
        self.conn
            .query_row(sql, params, |row| row.get::<_, i64>(0))
            .map_or(0, |count| to_u64(count) as usize)
    }

    /// Up to `limit` rows newest first after the sort key `after` (`updated`, `created`,
    /// `file` of the last row of the page before), of the workspace `cwd` (any with `None`):
    /// each page starts where the last ended in the index, where an `OFFSET` read and
    /// skipped every row before it (a listing of every row was quadratic).
    pub fn newest_after(
        &mut self,
        cwd: Option<&str>,
        after: Option<&[String; 3]>,
        limit: usize,
    ) -> Vec<IndexEntry> {
        let sql = newest_sql("entry", cwd, after);
        let params = newest_params(cwd, after, limit);
        let params: Vec<&dyn rusqlite::ToSql> = params
            .iter()
            .map(|param| param as &dyn rusqlite::ToSql)
            .collect();
        self.entries(&sql, &params)
    }

    /// Up to `limit` rows from `offset`, newest first, of the workspace `cwd` (any with `None`).
    pub fn newest(&mut self, cwd: Option<&str>, offset: usize, limit: usize) -> Vec<IndexEntry> {
        let (offset, limit) = (to_i64(offset as u64), to_i64(limit as u64));
        match cwd {
            Some(cwd) => self.entries(
                "SELECT entry FROM sessions WHERE cwd = ?1 \
                 ORDER BY updated DESC, created DESC, file DESC LIMIT ?2 OFFSET ?3",
                &[&cwd, &limit, &offset],
            ),
            None => self.entries(
                "SELECT entry FROM sessions \
                 ORDER BY updated DESC, created DESC, file DESC LIMIT ?1 OFFSET ?2",
                &[&limit, &offset],
            ),
        }
    }

    /// The rows of the workspace `cwd` (of any with `None`) whose file no longer has the size
    /// and mtime the row recorded, read again (their rows updated, or dropped when the file is
    /// gone): an append by another program (pi) changes the file's stamp but not the
    /// directory's, so `--last` must look at every file of its scope before it trusts the
    /// order of the rows. One stat per row of the scope, relative to the directory.
    pub fn changed_since_read(&mut self, cwd: Option<&str>) -> Vec<IndexEntry> {
        let mut read_again = Vec::new();
        // A page of stamps at a time, newest first: a home's every stamp held at once grew
        // with the home (#46). A row read again only moves newer, behind the pages to come.
        let mut after: Option<[String; 3]> = None;
        loop {
            let stamps = self
                .try_stamps(cwd, after.as_ref(), STAMPS_PAGE)
                .unwrap_or_default();
            let Some(last) = stamps.last() else {
                break;
            };
            after = Some(last.0.clone());
            let directory = self
                .directory
                .get_or_insert_with(|| std::fs::File::open(&self.dir).ok())
                .as_ref();
            let changed: Vec<String> = stamps
                .into_iter()
                .filter(|(key, size, mtime_ns)| {
                    let file = &key[2];
                    let now = match directory {
                        Some(directory) => super::stamp_in(directory, file),
                        None => std::fs::metadata(self.dir.join(file))
                            .ok()
                            .map(|metadata| super::file_stamp(&metadata)),
                    };
                    now != Some((*size, *mtime_ns))
                })
                .map(|([_, _, file], _, _)| file)
                .collect();
            for file in changed {
                if let Some(known) = self.row(&file)
                    && let Some(entry) = self.fresh(known)
                {
                    read_again.push(entry);
                }
            }
        }
        read_again
    }

    /// Up to `limit` rows' sort keys (`updated`, `created`, `file`) with their files' size and
    /// mtime, newest first, after the key `after`, of the workspace `cwd` (any with `None`).
    fn try_stamps(
        &self,
        cwd: Option<&str>,
        after: Option<&[String; 3]>,
        limit: usize,
    ) -> rusqlite::Result<Vec<([String; 3], u64, u64)>> {
        let read = |row: &rusqlite::Row<'_>| {
            Ok((
                [row.get::<_, String>(0)?, row.get(1)?, row.get(2)?],
                to_u64(row.get::<_, i64>(3)?),
                to_u64(row.get::<_, i64>(4)?),
            ))
        };
        let sql = newest_sql("updated, created, file, size, mtime_ns", cwd, after);
        let mut statement = self.conn.prepare(&sql)?;
        let params = newest_params(cwd, after, limit);
        let mut stamps = Vec::new();
        for row in statement.query_map(rusqlite::params_from_iter(params), read)? {
            stamps.push(row?);
        }
        Ok(stamps)
    }

    /// The rows last used before `cutoff_ms` (milliseconds since the epoch), of the workspace
    /// `cwd` (any with `None`), oldest first: their columns only, no summary read (a prune of
    /// half a home of 200,000 held 100,000 summaries).
    pub fn older_than(&mut self, cutoff_ms: i64, cwd: Option<&str>) -> Vec<super::OldRow> {
        let read = |row: &rusqlite::Row<'_>| {
            Ok(super::OldRow {
                file: row.get(0)?,
                size: to_u64(row.get::<_, i64>(1)?),
                mtime_ns: to_u64(row.get::<_, i64>(2)?),
                damaged: row.get(3)?,
                updated: row.get(4)?,
                name: row.get(5)?,
            })
        };
        let sql = "SELECT file, size, mtime_ns, damaged, updated, name FROM sessions \
                   WHERE updated_ms < ?1 AND (?2 IS NULL OR cwd = ?2) \
                   ORDER BY updated, created, file";
        let query = |conn: &Connection| -> rusqlite::Result<Vec<super::OldRow>> {
            let mut statement = conn.prepare(sql)?;
            let rows = statement.query_map(params![cutoff_ms, cwd], read)?;
            rows.collect()
        };
        match query(&self.conn) {
            Ok(rows) => rows,
            Err(error) if is_corrupt(&error) && !self.in_memory => {
                self.recover(&error);
                query(&self.conn).unwrap_or_default()
            }
            Err(_) => Vec::new(),
        }
    }

    /// The ids just before and after each of `ids` in the order of lowercase ids: with them,
    /// [`super::short_ids`] gives each of `ids` the prefix it has among all ids.
    pub fn neighbour_ids(&self, ids: &[&str]) -> Vec<String> {
        let mut found = Vec::new();
        // Each statement prepared once, not once per id: `sessions list --all` asks for every
        // session's neighbours, and parsing the SQL for each id was a third of the time of a
        // warm listing of 10,000 sessions.
        let statements = [
            "SELECT id FROM sessions WHERE id_lower < ?1 AND id_lower <> '' \
             ORDER BY id_lower DESC LIMIT 1",
            "SELECT id FROM sessions WHERE id_lower > ?1 ORDER BY id_lower LIMIT 1",
        ];
        // One read transaction for all of them: each statement alone is a transaction of its
        // own, whose locks on the WAL's shared memory were two `fcntl` calls per query. Inside
        // another transaction, the queries are part of that one.
        let transaction = self.conn.unchecked_transaction().ok();
        {
            let mut statements = statements.map(|sql| self.conn.prepare(sql));
            for id in ids {
                let lower = id.to_ascii_lowercase();
                for statement in statements.iter_mut().flatten() {
                    if let Ok(Some(id)) = statement
                        .query_row([&lower], |row| row.get::<_, String>(0))
                        .optional()
                    {
                        found.push(id);
                    }
                }
            }
        }
        if let Some(transaction) = transaction {
            let _ = transaction.commit();
        }
        found
    }

    /// Store `entry` as its file's row (best effort: a row that cannot be written is only
    /// summarized again by the next command).
    pub fn put(&mut self, entry: &IndexEntry) -> rusqlite::Result<()> {
        let mut insert = self.conn.prepare(INSERT)?;
        insert_entry(&mut insert, entry).inspect_err(note_failure)
    }

    /// Drop the row of `file`.
    pub fn remove(&mut self, file: &str) -> rusqlite::Result<()> {
        self.conn
            .execute("DELETE FROM sessions WHERE file = ?1", [file])
            .map(|_| ())
            .inspect_err(note_failure)
    }

    /// The entry of `known`'s file as it is now, its row updated when the file changed and
    /// dropped when it is gone.
    pub fn fresh(&mut self, known: IndexEntry) -> Option<IndexEntry> {
        let directory = self
            .directory
            .get_or_insert_with(|| std::fs::File::open(&self.dir).ok())
            .as_ref();
        // The common case is a stat relative to the directory, and the row handed back as it is.
        let freshness = super::check_file_in(
            directory,
            Some(&known),
            &known.file,
            &self.dir.join(&known.file),
        );
        match freshness {
            super::Freshness::Unchanged => Some(known),
            super::Freshness::Updated(entry) => {
                let _ = self.put(&entry);
                Some(*entry)
            }
            super::Freshness::Gone => {
                let _ = self.remove(&known.file);
                None
            }
        }
    }

    /// Run `change`, which creates, renames or removes files in the sessions directory and
    /// pushes their paths, inside a write transaction: when the directory was as the recorded
    /// stamp says before it, the stamp after it is recorded, so the next command need not list
    /// the directory for pincer's own change; the rows of the pushed files are brought up to
    /// date in the same transaction.
    pub fn changing<T>(&mut self, change: impl FnOnce(&mut Vec<PathBuf>) -> T) -> T {
        if self.in_memory || !self.built() {
            return change(&mut Vec::new());
        }
        let transaction = match self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
        {
            Ok(transaction) => transaction,
            Err(error) => {
                note_failure(&error);
                return change(&mut Vec::new());
            }
        };
        let recorded = transaction
            .query_row("SELECT value FROM meta WHERE key = 'stamp'", [], |row| {
                row.get::<_, String>(0)
            })
            .optional()
            .ok()
            .flatten()
            .as_deref()
            .and_then(DirStamp::parse);
        let before = DirStamp::of(&self.dir);
        let mut touched = Vec::new();
        let result = {
            let _inside = InChange::enter();
            change(&mut touched)
        };
        let after = DirStamp::of(&self.dir);
        let _ = (|| -> rusqlite::Result<()> {
            for path in &touched {
                let Some(file) = path
                    .file_name()
                    .map(|name| name.to_string_lossy().into_owned())
                else {
                    continue;
                };
                let path = self.dir.join(&file);
                // A removal (a prune's thousands of them) drops the row without reading it.
                if std::fs::symlink_metadata(&path)
                    .is_err_and(|error| error.kind() == std::io::ErrorKind::NotFound)
                {
                    transaction.execute("DELETE FROM sessions WHERE file = ?1", [&file])?;
                    continue;
                }
                let known: Option<IndexEntry> = transaction
                    .query_row(
                        "SELECT entry FROM sessions WHERE file = ?1",
                        [&file],
                        row_entry,
                    )
                    .optional()?
                    .flatten();
                match super::check_file(known.as_ref(), &path) {
                    super::Freshness::Unchanged => {}
                    super::Freshness::Updated(entry) => {
                        let mut insert = transaction.prepare(INSERT)?;
                        insert_entry(&mut insert, &entry)?;
                    }
                    super::Freshness::Gone => {
                        transaction.execute("DELETE FROM sessions WHERE file = ?1", [&file])?;
                    }
                }
            }
            if let (Some(before), Some(after)) = (before, after)
                && recorded == Some(before)
            {
                set_meta(&transaction, "stamp", &after.text())?;
            }
            transaction.commit()
        })()
        .inspect_err(note_failure);
        result
    }

    /// Every learned window, by `provider/model`.
    pub fn learned_windows(&self) -> Vec<(String, u64)> {
        let Ok(mut statement) = self
            .conn
            .prepare("SELECT model, tokens FROM learned_windows ORDER BY model")
        else {
            return Vec::new();
        };
        statement
            .query_map([], |row| {
                Ok((row.get::<_, String>(0)?, to_u64(row.get::<_, i64>(1)?)))
            })
            .map(|rows| rows.flatten().collect())
            .unwrap_or_default()
    }

    /// The window learned for `model_ref`.
    pub fn learned_window(&self, model_ref: &str) -> Option<u64> {
        self.conn
            .query_row(
                "SELECT tokens FROM learned_windows WHERE model = ?1",
                [model_ref],
                |row| row.get::<_, i64>(0),
            )
            .optional()
            .ok()
            .flatten()
            .map(to_u64)
    }

    /// Remember that `model_ref` has a window of `tokens`.
    pub fn remember_window(&mut self, model_ref: &str, tokens: u64) -> rusqlite::Result<()> {
        self.conn
            .execute(
                "INSERT INTO learned_windows (model, tokens) VALUES (?1, ?2) \
                 ON CONFLICT (model) DO UPDATE SET tokens = excluded.tokens",
                params![model_ref, to_i64(tokens)],
            )
            .map(|_| ())
    }
}

const INSERT: &str = "INSERT INTO sessions \
    (file, id, id_lower, name, cwd, created, updated, updated_ms, size, mtime_ns, damaged, entry) \
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12) \
    ON CONFLICT (file) DO UPDATE SET id = excluded.id, id_lower = excluded.id_lower, \
    name = excluded.name, cwd = excluded.cwd, created = excluded.created, \
    updated = excluded.updated, updated_ms = excluded.updated_ms, size = excluded.size, \
    mtime_ns = excluded.mtime_ns, damaged = excluded.damaged, entry = excluded.entry";

/// How many rows' stamps [`Db::changed_since_read`] reads at a time.
const STAMPS_PAGE: usize = 1024;

/// The query of `columns` of the rows newest first, of the workspace `?1` when `cwd` is given,
/// after a sort key when `after` is, limited by the last parameter ([`newest_params`]). The
/// row value compares in the order of the index it walks (`sessions_by_cwd`,
/// `sessions_by_updated`).
fn newest_sql(columns: &str, cwd: Option<&str>, after: Option<&[String; 3]>) -> String {
    let mut conditions = Vec::new();
    let mut next = 1;
    if cwd.is_some() {
        conditions.push("cwd = ?1".to_owned());
        next += 1;
    }
    if after.is_some() {
        conditions.push(format!(
            "(updated, created, file) < (?{}, ?{}, ?{})",
            next,
            next + 1,
            next + 2
        ));
        next += 3;
    }
    let filter = if conditions.is_empty() {
        String::new()
    } else {
        format!("WHERE {} ", conditions.join(" AND "))
    };
    format!(
        "SELECT {columns} FROM sessions {filter}\
         ORDER BY updated DESC, created DESC, file DESC LIMIT ?{next}"
    )
}

/// The parameters of [`newest_sql`]'s query.
fn newest_params(
    cwd: Option<&str>,
    after: Option<&[String; 3]>,
    limit: usize,
) -> Vec<rusqlite::types::Value> {
    use rusqlite::types::Value;
    let mut params: Vec<Value> = Vec::new();
    if let Some(cwd) = cwd {
        params.push(Value::Text(cwd.to_owned()));
    }
    if let Some(after) = after {
        params.extend(after.iter().map(|part| Value::Text(part.clone())));
    }
    params.push(Value::Integer(to_i64(limit as u64)));
    params
}

fn insert_entry(insert: &mut rusqlite::Statement<'_>, entry: &IndexEntry) -> rusqlite::Result<()> {
    let text = serde_json::to_string(entry)
        .map_err(|error| rusqlite::Error::ToSqlConversionFailure(Box::new(error)))?;
    let summary = &entry.summary;
    insert.execute(params![
        entry.file,
        summary.id,
        summary.id.to_ascii_lowercase(),
        summary.name,
        summary.cwd,
        summary.created,
        summary.updated,
        updated_ms(&summary.updated),
        to_i64(entry.size),
        to_i64(entry.mtime_ns),
        entry.problem.is_some(),
        text,
    ])?;
    Ok(())
}

/// Whether `error` says the database file is damaged (then it is built again).
fn is_corrupt(error: &rusqlite::Error) -> bool {
    matches!(
        error.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase)
    )
}

/// Why the database of the sessions directory `dir` is built again from the files.
fn unreadable(dir: &Path, error: &rusqlite::Error) -> String {
    format!(
        "the index '{}' is unreadable ({error})",
        dir.join(DB_FILE).display()
    )
}

/// Why the database of `dir` was not saved (the command went on with an index in memory).
fn unwritable(dir: &Path, error: &rusqlite::Error) -> String {
    format!("cannot write '{}' ({error})", dir.join(DB_FILE).display())
}

/// A write that failed because another process held the database past `--timeout`'s deadline
/// ends the command as a timeout, as a lock wait cut by the deadline does.
fn note_failure(error: &rusqlite::Error) {
    let busy = matches!(
        error.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    );
    if busy && crate::fs::wait_deadline().is_some_and(|deadline| Instant::now() >= deadline) {
        crate::fs::note_wait_cut();
    }
}

fn set_meta(connection: &Connection, key: &str, value: &str) -> rusqlite::Result<()> {
    connection
        .execute(
            "INSERT INTO meta (key, value) VALUES (?1, ?2) \
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            [key, value],
        )
        .map(|_| ())
}

/// Open (creating) the database file of `dir` and make sure it has this schema; `rebuilt` says
/// why the sessions must be built when the tables were made here.
///
/// The index holds names, workspace paths, costs and last errors: it is made mode 0600 before
/// SQLite opens it (SQLite gives its `-wal` and `-shm` the database's mode), one an older
/// pincer left readable by others is made private, and a link at its name is never followed
/// (issue #45, hole 7).
fn open_file(dir: &Path, rebuilt: &mut Option<String>) -> rusqlite::Result<Connection> {
    let path = dir.join(DB_FILE);
    let private = |error: std::io::Error| {
        rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CANTOPEN),
            Some(format!("{}: {error}", path.display())),
        )
    };
    crate::fs::private_file_options()
        .open(&path)
        .and_then(|_| crate::fs::make_private(&path))
        .map_err(private)?;
    for suffix in ["-wal", "-shm", "-journal"] {
        let mut side = path.clone().into_os_string();
        side.push(suffix);
        crate::fs::make_private(Path::new(&side)).map_err(private)?;
    }
    let conn = Connection::open_with_flags(
        &path,
        OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_NOFOLLOW,
    )?;
    conn.busy_timeout(busy_wait())?;
    if crate::fs::network_filesystem(dir).is_some() {
        // WAL's shared memory is one machine's: a rollback journal works over NFS, and
        // TRUNCATE (not DELETE) keeps the journal file, so a commit does not change the
        // directory and spoil its stamp.
        conn.query_row("PRAGMA journal_mode = TRUNCATE", [], |_| Ok(()))?;
    } else {
        conn.query_row("PRAGMA journal_mode = WAL", [], |_| Ok(()))?;
        // The WAL and its shared-memory file stay when the last connection closes: removing
        // them would change the directory after every command and spoil its stamp.
        let mut persist = 1;
        conn.file_control(
            Some(rusqlite::MAIN_DB),
            rusqlite::FileControl::PersistWal(&mut persist),
        )?;
        conn.pragma_update(None, "journal_size_limit", 4 << 20)?;
    }
    // A cache: a power cut may lose the last transactions, never the database.
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    let version: i64 = conn.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    if version != SCHEMA_VERSION {
        conn.execute_batch("BEGIN IMMEDIATE")?;
        let made = (|| -> rusqlite::Result<()> {
            // Another process may have made the tables meanwhile.
            let again: i64 = conn.query_row("PRAGMA user_version", [], |row| row.get(0))?;
            if again == SCHEMA_VERSION {
                return Ok(());
            }
            if again != 0 {
                *rebuilt = Some(format!(
                    "index schema version {again} is not {SCHEMA_VERSION}"
                ));
            }
            conn.execute_batch(&format!(
                "DROP TABLE IF EXISTS sessions; DROP TABLE IF EXISTS meta; \
                 DROP TABLE IF EXISTS learned_windows; {SCHEMA} {INDEXES} \
                 PRAGMA user_version = {SCHEMA_VERSION};"
            ))?;
            // The windows learned before they moved here, read once.
            for (model, tokens) in read_old_learned_windows(dir) {
                conn.execute(
                    "INSERT OR REPLACE INTO learned_windows (model, tokens) VALUES (?1, ?2)",
                    params![model, to_i64(tokens)],
                )?;
            }
            Ok(())
        })();
        match made {
            Ok(()) => {
                conn.execute_batch("COMMIT")?;
                let old = dir.join(OLD_LEARNED_WINDOWS);
                let _ = std::fs::remove_file(crate::fs::lock_path(&old));
                let _ = std::fs::remove_file(old);
            }
            Err(error) => {
                let _ = conn.execute_batch("ROLLBACK");
                return Err(error);
            }
        }
    }
    Ok(conn)
}

/// How long to wait for a busy database: [`BUSY_WAIT`], cut by `--timeout`'s deadline.
fn busy_wait() -> Duration {
    match crate::fs::wait_deadline() {
        Some(deadline) => BUSY_WAIT.min(deadline.saturating_duration_since(Instant::now())),
        None => BUSY_WAIT,
    }
}

thread_local! {
    /// Whether this thread holds the build lock ([`Building`]). Thread-local with a reason, as
    /// [`IN_CHANGE`]: a re-entrancy guard of one thread's call stack.
    static BUILDING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The build lock, held by this thread until dropped.
struct Building {
    _lock: FileLock,
    was: bool,
}

impl Building {
    fn hold(lock: FileLock) -> Building {
        Building {
            _lock: lock,
            was: BUILDING.replace(true),
        }
    }
}

impl Drop for Building {
    fn drop(&mut self) {
        BUILDING.set(self.was);
    }
}

/// The device and inode of the database file of `dir`, when there is one.
fn file_identity(dir: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt as _;
    std::fs::symlink_metadata(dir.join(DB_FILE))
        .ok()
        .map(|metadata| (metadata.dev(), metadata.ino()))
}

/// Remove the database of `dir` that was found corrupt, when it is still `found` (the file
/// the failed connection opened), under the build lock. Several processes that find one
/// damaged database at once would otherwise each delete it, one of them maybe the new
/// database another had made and was building meanwhile (under its lock). A database that is
/// another file by the time the lock is held was made again since: it stays.
fn remove_corrupt_database(dir: &Path, found: Option<(u64, u64)>) {
    let _building = if BUILDING.get() {
        // This thread is the builder: the lock is held already.
        None
    } else {
        match FileLock::acquire(&build_lock_path(dir), Some(BUILD_WAIT)) {
            Ok(lock) => Some(Building::hold(lock)),
            // A builder held it past --timeout: the database it is building is not touched.
            Err(LockError::TimedOut { .. }) => return,
            // A lock that cannot be taken here (a read-only home): removed as before.
            Err(_) => None,
        }
    };
    if found.is_some() && file_identity(dir) == found {
        remove_database(dir);
    }
}

/// Remove a database that cannot be read, with its journal files.
fn remove_database(dir: &Path) {
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let _ = std::fs::remove_file(dir.join(format!("{DB_FILE}{suffix}")));
    }
}

/// The windows of the file learned windows were kept in before.
pub(super) fn read_old_learned_windows(dir: &Path) -> Vec<(String, u64)> {
    #[derive(serde::Deserialize)]
    struct Old {
        windows: std::collections::BTreeMap<String, u64>,
    }
    std::fs::read(dir.join(OLD_LEARNED_WINDOWS))
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Old>(&bytes).ok())
        .map(|old| old.windows.into_iter().collect())
        .unwrap_or_default()
}

/// Create the lock file `lock_file` of the sessions directory `dir` when it does not exist yet,
/// inside the index's transaction. A first lock file (a session pi or a copy made, the names
/// lock of a home) changes the directory; made outside, it would make the next command list the
/// whole directory (seconds in a home of 500,000 sessions). Only the creation is inside the
/// transaction, never a wait for the lock; a caller already inside it (a creation) makes the
/// file there, and a directory without an index has no stamp to keep.
pub fn make_lock_file(dir: &Path, lock_file: &Path) {
    if in_change() || lock_file.exists() || !dir.join(DB_FILE).is_file() {
        return;
    }
    changing(dir, |_| {
        let _ = crate::fs::private_file_options().open(lock_file);
    });
}

/// Create `locks`, the directory of session lock files in the sessions directory `dir`, when
/// it does not exist yet, inside the index's transaction as [`make_lock_file`] does: made once
/// per directory, it changes the directory's stamp once; the lock files made inside it later
/// change only its own.
pub fn make_locks_dir(dir: &Path, locks: &Path) -> std::io::Result<()> {
    if locks.is_dir() {
        return Ok(());
    }
    let make = || crate::fs::create_dir_all(locks);
    if in_change() || !dir.join(DB_FILE).is_file() {
        return make();
    }
    changing(dir, |_| make())
}

/// Run `change`, which creates, renames or removes session files of `dir` (and their lock and
/// side files) and pushes the session files' paths, inside the index's write transaction (see
/// the module doc): the rows of those files are brought up to date, and the next command need
/// not list the directory for this change.
pub fn changing<T>(dir: &Path, change: impl FnOnce(&mut Vec<PathBuf>) -> T) -> T {
    match Db::open(dir) {
        Some(mut db) => db.changing(change),
        None => change(&mut Vec::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::SessionHeader;
    use crate::store;
    use pretty_assertions::assert_eq;

    fn header(id: &str) -> SessionHeader {
        SessionHeader::for_test(id)
    }

    fn sessions_dir() -> (tempfile::TempDir, PathBuf) {
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join("sessions");
        std::fs::create_dir(&dir).unwrap();
        (home, dir)
    }

    /// Let the directory stand still for longer than a clock tick.
    fn settle() {
        std::thread::sleep(SETTLE_FINE + Duration::from_millis(10));
    }

    #[test]
    fn a_stamp_is_trusted_only_once_the_directory_stood_still_for_a_clock_tick() {
        let at = |nanos: u64| UNIX_EPOCH + Duration::from_nanos(nanos);
        let fine = DirStamp {
            mtime_ns: 1_000_000_123,
            ctime_ns: 1_000_000_456,
        };
        assert!(!fine.settled(at(1_000_000_456)));
        assert!(!fine.settled(at(1_010_000_000)));
        assert!(fine.settled(at(1_020_000_456)));
        // Whole milliseconds: a coarse filesystem, which may keep whole seconds.
        let coarse = DirStamp {
            mtime_ns: 2_000_000_000,
            ctime_ns: 2_000_000_000,
        };
        assert!(!coarse.settled(at(3_000_000_000)));
        assert!(coarse.settled(at(5_000_000_000)));
        assert_eq!(DirStamp::parse(&fine.text()), Some(fine));
    }

    #[test]
    fn the_database_replaces_the_old_index_files_and_is_rebuilt_when_damaged_or_of_another_version()
    {
        let (_home, dir) = sessions_dir();
        store::create(&dir, &header("0199a000-0000-7000-8000-000000000001"), &[]).unwrap();
        for old in OLD_FILES {
            std::fs::write(dir.join(old), "{}").unwrap();
        }
        let mut db = Db::open(&dir).unwrap();
        assert_eq!(db.rebuilt.as_deref(), Some("there is no index yet"));
        db.ensure_built().unwrap();
        assert_eq!(db.all().len(), 1);
        for old in OLD_FILES {
            assert!(!dir.join(old).exists(), "{old}");
        }
        drop(db);

        let db = Db::open(&dir).unwrap();
        assert_eq!(db.rebuilt, None);
        set_meta(&db.conn, "index_version", "0").unwrap();
        drop(db);
        let mut db = Db::open(&dir).unwrap();
        assert_eq!(
            db.rebuilt.as_deref(),
            Some(format!("index version 0 is not {INDEX_VERSION}").as_str())
        );
        db.ensure_built().unwrap();
        assert_eq!(db.all().len(), 1);
        drop(db);

        remove_database(&dir);
        std::fs::write(dir.join(DB_FILE), "not a database ".repeat(500)).unwrap();
        let mut db = Db::open(&dir).unwrap();
        assert!(
            db.rebuilt
                .as_deref()
                .is_some_and(|reason| reason.starts_with(&format!(
                    "the index '{}' is unreadable (",
                    dir.join(DB_FILE).display()
                ))),
            "{:?}",
            db.rebuilt
        );
        assert!(!db.in_memory());
        db.ensure_built().unwrap();
        assert_eq!(db.all().len(), 1);
    }

    /// The database another process made again after it found the old one corrupt: a real
    /// index of the session of `dir`, moved into place while the caller holds the build lock.
    fn index_made_again(dir: &Path) {
        let (_other_home, other) = sessions_dir();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path
                .extension()
                .is_some_and(|extension| extension == "jsonl")
            {
                std::fs::copy(&path, other.join(path.file_name().unwrap())).unwrap();
            }
        }
        let mut db = Db::open(&other).unwrap();
        db.ensure_built().unwrap();
        drop(db);
        std::fs::rename(other.join(DB_FILE), dir.join(DB_FILE)).unwrap();
    }

    /// #46 (the race found after item 1): several processes that find the index corrupt each
    /// deleted the database file at once, one of them maybe the new database another had just
    /// made and was building. The delete waits for the build lock, and leaves a database that
    /// is not the file found corrupt.
    #[test]
    fn a_corrupt_index_is_deleted_only_under_the_build_lock_and_never_once_made_again() {
        let (_home, dir) = sessions_dir();
        store::create(&dir, &header("0199a000-0000-7000-8000-000000000001"), &[]).unwrap();
        std::fs::write(dir.join(DB_FILE), "not a database ".repeat(500)).unwrap();
        let corrupt = file_identity(&dir);
        let builder = FileLock::acquire(&build_lock_path(&dir), None).unwrap();
        let opener = std::thread::spawn({
            let dir = dir.clone();
            move || {
                let mut db = Db::open(&dir).unwrap();
                db.ensure_built().unwrap();
                (db.in_memory(), db.all().len())
            }
        });
        std::thread::sleep(Duration::from_millis(300));
        assert_eq!(
            file_identity(&dir),
            corrupt,
            "the corrupt index was deleted while another process held the build lock"
        );
        // The process holding the lock found the same corrupt file and made the index again.
        index_made_again(&dir);
        let made = file_identity(&dir);
        assert!(
            !opener.is_finished(),
            "the opener did not wait for the build lock"
        );
        drop(builder);
        let (in_memory, rows) = opener.join().unwrap();
        assert_eq!((in_memory, rows), (false, 1));
        assert_eq!(
            file_identity(&dir),
            made,
            "the index made again was deleted"
        );

        // Found corrupt by a connection that opened the file before it was made again.
        let found = file_identity(&dir);
        index_made_again(&dir);
        let made = file_identity(&dir);
        assert_ne!(found, made);
        remove_corrupt_database(&dir, found);
        assert_eq!(file_identity(&dir), made);
        remove_corrupt_database(&dir, made);
        assert_eq!(file_identity(&dir), None);
    }

    #[test]
    fn a_row_is_fresh_while_its_file_keeps_its_stamp_and_is_updated_or_dropped_when_not() {
        let (_home, dir) = sessions_dir();
        let path =
            store::create(&dir, &header("0199a000-0000-7000-8000-000000000001"), &[]).unwrap();
        let mut db = Db::open(&dir).unwrap();
        db.ensure_built().unwrap();
        let row = db.all().remove(0);
        assert_eq!(db.fresh(row.clone()).as_ref(), Some(&row));

        use std::io::Write as _;
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(
                b"{\"type\":\"session_info\",\"id\":\"a1b2c3d4\",\"parentId\":null,\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"name\":\"renamed\"}\n",
            )
            .unwrap();
        let fresh = db.fresh(row.clone()).unwrap();
        assert_eq!(fresh.summary.name.as_deref(), Some("renamed"));
        assert_eq!(fresh.size, std::fs::metadata(&path).unwrap().len());
        assert_eq!(db.row(&row.file).as_ref(), Some(&fresh));

        std::fs::remove_file(&path).unwrap();
        assert_eq!(db.fresh(fresh), None);
        assert_eq!(db.row(&row.file), None);
    }

    #[test]
    fn a_rebuild_writes_without_syncs_and_the_connection_syncs_again_after_it() {
        let (_home, dir) = sessions_dir();
        store::create(&dir, &header("0199a000-0000-7000-8000-000000000001"), &[]).unwrap();
        let synchronous = |db: &Db| -> i64 {
            db.conn
                .query_row("PRAGMA synchronous", [], |row| row.get(0))
                .unwrap()
        };
        let mut db = Db::open(&dir).unwrap();
        assert_eq!(synchronous(&db), 1, "NORMAL");
        assert_eq!(db.while_building(|db| synchronous(db)), 0, "OFF");
        assert_eq!(synchronous(&db), 1);
        db.ensure_built().unwrap();
        assert_eq!(db.all().len(), 1);
        assert_eq!(synchronous(&db), 1);
    }

    #[test]
    fn pincers_own_creates_and_removals_keep_the_stamp_so_the_next_command_does_not_list() {
        let (_home, dir) = sessions_dir();
        store::create(&dir, &header("0199a000-0000-7000-8000-000000000001"), &[]).unwrap();
        settle();
        let mut db = Db::open(&dir).unwrap();
        db.ensure_built().unwrap();
        assert_eq!(db.stamp(), DirStamp::of(&dir), "a settled build records it");
        drop(db);

        // A create by pincer: the stamp follows the directory, and the row is there.
        let path =
            store::create(&dir, &header("0199a000-0000-7000-8000-000000000002"), &[]).unwrap();
        let mut db = Db::open(&dir).unwrap();
        assert_eq!(db.stamp(), DirStamp::of(&dir));
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(db.row(&name).is_some());
        // A removal by pincer, alike.
        db.changing(|touched| {
            std::fs::remove_file(&path).unwrap();
            touched.push(path.clone());
        });
        assert_eq!(db.stamp(), DirStamp::of(&dir));
        assert!(db.row(&name).is_none());

        // A file another program adds is not pincer's: the stamp no longer matches, and the
        // next command lists the directory and finds it.
        let other = dir.join(name.replace("0000000002", "0000000003"));
        let text = std::fs::read_to_string(dir.join(&db.all()[0].file))
            .unwrap()
            .replace("0000000001", "0000000003");
        std::fs::write(&other, text).unwrap();
        assert_ne!(db.stamp(), DirStamp::of(&dir));
        db.ensure_built().unwrap();
        assert_eq!(db.all().len(), 2);
        assert_eq!(db.summarized, 1, "only the new file is read");
        drop(db);

        // The first lock of a session nobody locked before (pi made it, or a copy) makes its
        // lock file in the lock directory, which leaves the sessions directory's stamp alone.
        settle();
        let mut db = Db::open(&dir).unwrap();
        db.ensure_built().unwrap();
        assert_eq!(db.stamp(), DirStamp::of(&dir));
        drop(db);
        let lock = store::SessionLock::acquire(&other, None).unwrap();
        assert!(store::lock_file(&other).exists());
        assert!(!crate::fs::lock_path(&other).exists());
        let db = Db::open(&dir).unwrap();
        assert_eq!(
            db.stamp(),
            DirStamp::of(&dir),
            "no listing for a new lock file"
        );
        drop((lock, db));

        // A creation makes its lock file inside its own transaction: no second one waits for it.
        let started = Instant::now();
        let (writer, _) =
            store::create_locked(&dir, &header("0199a000-0000-7000-8000-000000000004"), &[])
                .unwrap();
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "{:?}",
            started.elapsed()
        );
        drop(writer);
        assert_eq!(Db::open(&dir).unwrap().stamp(), DirStamp::of(&dir));
    }

    #[test]
    fn the_first_names_lock_of_a_home_keeps_the_stamp() {
        let (_home, dir) = sessions_dir();
        store::create(&dir, &header("0199a000-0000-7000-8000-000000000001"), &[]).unwrap();
        settle();
        let mut db = Db::open(&dir).unwrap();
        db.ensure_built().unwrap();
        assert_eq!(db.stamp(), DirStamp::of(&dir));
        drop(db);
        let lock = crate::names::NamesLock::acquire(&dir, None, "nightly").unwrap();
        assert!(dir.join(crate::names::NAMES_LOCK_FILE).exists());
        let db = Db::open(&dir).unwrap();
        assert_eq!(
            db.stamp(),
            DirStamp::of(&dir),
            "no listing for a new names lock"
        );
        drop((lock, db));
    }

    #[test]
    fn a_directory_that_cannot_be_written_is_indexed_in_memory() {
        use std::os::unix::fs::PermissionsExt as _;
        let (_home, dir) = sessions_dir();
        store::create(&dir, &header("0199a000-0000-7000-8000-000000000001"), &[]).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o555)).unwrap();
        let writable = std::fs::write(dir.join("probe"), "").is_ok();
        if !writable {
            let mut db = Db::open(&dir).unwrap();
            db.ensure_built().unwrap();
            assert!(db.in_memory());
            let cannot = format!("cannot write '{}' (", dir.join(DB_FILE).display());
            assert!(
                db.unsaved
                    .as_deref()
                    .is_some_and(|why| why.starts_with(&cannot)),
                "{:?}",
                db.unsaved
            );
            assert_eq!(db.all().len(), 1);
        }
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn a_database_that_fills_up_during_a_build_leaves_every_session_in_memory() {
        let (_home, dir) = sessions_dir();
        for number in 1..=300 {
            let id = format!("0199a000-0000-7000-8000-{number:012}");
            store::create(&dir, &header(&id), &[]).unwrap();
        }
        let mut db = Db::open(&dir).unwrap();
        // Room for a few pages more than the empty tables: the inserts run out of it midway.
        let pages: i64 = db
            .conn
            .query_row("PRAGMA page_count", [], |row| row.get(0))
            .unwrap();
        db.conn
            .query_row(
                &format!("PRAGMA max_page_count = {}", pages + 3),
                [],
                |_| Ok(()),
            )
            .unwrap();
        db.ensure_built().unwrap();
        assert!(db.in_memory());
        assert!(
            db.unsaved
                .as_deref()
                .is_some_and(|why| why.contains("full") && why.contains(DB_FILE)),
            "{:?}",
            db.unsaved
        );
        assert_eq!(db.all().len(), 300);
        assert_eq!(db.summarized, 300);
    }
}
