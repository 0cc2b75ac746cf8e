//! What `sessions list` shows of each session, read from the index without building it (SPEC
//! §12.1: a listing of 10,000 sessions under 100 ms).
//!
//! A [`Row`] holds only the fields a listing's table shows, borrowed from the text of
//! `index.json` where it can be. [`quick_rows`] reads the index and its journal without the
//! lock and stats every session file on a second thread meanwhile; when every file is one the
//! index knows, with the size and mtime it recorded, the rows are the answer. Otherwise (a file
//! new, changed or gone, an index of another layout, a journal due to be folded in) it gives
//! `None`, and the caller refreshes the index as any other command does, which rewrites it; the
//! next listing is quick again.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use serde::de::{Deserializer, Visitor};

use super::index::{self, INDEX_FILE, IndexEntry};
use super::summary;
use crate::conversation::ContextOccupancy;

/// A string of the index: borrowed from its text when it has no escape in it. (A
/// `#[serde(borrow)] Cow<str>` borrows too, but not inside an `Option`, and most of a row's
/// strings are optional.)
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Text<'a>(pub Cow<'a, str>);

impl std::ops::Deref for Text<'_> {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TextVisitor;

        impl<'de> Visitor<'de> for TextVisitor {
            type Value = Text<'de>;

            fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
                formatter.write_str("a string")
            }

            fn visit_borrowed_str<E: serde::de::Error>(
                self,
                text: &'de str,
            ) -> Result<Self::Value, E> {
                Ok(Text(Cow::Borrowed(text)))
            }

            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(text.to_owned())))
            }

            fn visit_string<E: serde::de::Error>(self, text: String) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(text)))
            }
        }

        deserializer.deserialize_str(TextVisitor)
    }
}

impl<'a> Text<'a> {
    fn of(text: &'a str) -> Text<'a> {
        Text(Cow::Borrowed(text))
    }
}

/// One session as a listing shows it. Read from an index entry, whose other fields are
/// skipped; its fields are named as [`IndexEntry`]'s.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Row<'a> {
    /// File name inside the sessions directory.
    #[serde(borrow)]
    pub file: Text<'a>,
    /// Size in bytes when summarized.
    pub size: u64,
    /// Modification time in nanoseconds when summarized.
    pub mtime_ns: u64,
    /// Why the file could not be fully read, if so.
    #[serde(borrow)]
    pub problem: Option<Text<'a>>,
    /// Session id.
    #[serde(borrow)]
    pub id: Text<'a>,
    /// Session name.
    #[serde(borrow)]
    pub name: Option<Text<'a>>,
    /// Workspace directory.
    #[serde(borrow)]
    pub cwd: Text<'a>,
    /// Creation time (ISO).
    #[serde(borrow)]
    pub created: Text<'a>,
    /// Time of the last entry (ISO).
    #[serde(borrow)]
    pub updated: Text<'a>,
    /// Provider of the current model.
    #[serde(borrow)]
    pub provider: Option<Text<'a>>,
    /// Current model id.
    #[serde(borrow)]
    pub model: Option<Text<'a>>,
    /// User prompts in the file.
    pub turns: u64,
    /// Context tokens now.
    pub context_tokens: Option<u64>,
}

impl<'a> Row<'a> {
    /// The row of an entry the index holds.
    pub fn of(entry: &'a IndexEntry) -> Row<'a> {
        let summary = &entry.summary;
        let text = |value: &'a Option<String>| value.as_deref().map(Text::of);
        Row {
            file: Text::of(&entry.file),
            size: entry.size,
            mtime_ns: entry.mtime_ns,
            problem: text(&entry.problem),
            id: Text::of(&summary.id),
            name: text(&summary.name),
            cwd: Text::of(&summary.cwd),
            created: Text::of(&summary.created),
            updated: Text::of(&summary.updated),
            provider: text(&summary.provider),
            model: text(&summary.model),
            turns: summary.turns,
            context_tokens: summary.context_tokens,
        }
    }

    /// How full the context is, against `window` when it is known.
    pub fn occupancy(&self, window: Option<u64>) -> Option<ContextOccupancy> {
        summary::occupancy_of(self.context_tokens, window)
    }

    /// The current model as `provider/model`, as [`summary::SessionSummary::model_ref`] gives it.
    pub fn model_ref(&self) -> Option<Cow<'_, str>> {
        summary::model_ref(self.provider.as_deref(), self.model.as_deref())
    }

    /// The key that sorts rows newest first, as [`index::Index::newest_first`] sorts entries.
    pub fn newest_first(&self) -> std::cmp::Reverse<[&str; 3]> {
        index::newest_first(&self.updated, &self.created, &self.file)
    }
}

/// The index of `dir` and its journal, read for [`quick_rows`].
pub struct IndexSnapshot {
    text: String,
    journal: BTreeMap<String, Option<IndexEntry>>,
    stamps: Vec<(String, (u64, u64))>,
}

/// Read the index of `dir` and its journal, and stat the session files on a second thread
/// meanwhile. `None` when something is missing or unreadable (then only a refresh answers).
pub fn snapshot(dir: &Path) -> Option<IndexSnapshot> {
    std::thread::scope(|scope| {
        let stamps = scope.spawn(|| index::file_stamps(dir));
        let text = std::fs::read_to_string(dir.join(INDEX_FILE)).ok();
        let journal = index::journal_overrides(dir);
        let stamps = stamps.join().ok()??;
        Some(IndexSnapshot {
            text: text?,
            journal: journal?,
            stamps,
        })
    })
}

/// The rows of every session of `snapshot`, in file order, when the index (with its journal)
/// describes every session file as it is; `None` when a file is new, changed or gone, or the
/// index is not laid out as pincer writes it.
pub fn quick_rows(snapshot: &IndexSnapshot) -> Option<Vec<Row<'_>>> {
    let stored = index::laid_out_entries(&snapshot.text, |row: &Row<'_>| &row.file)?;
    if !stored.is_sorted_by(|left, right| left.file < right.file) {
        return None;
    }
    let rows = if snapshot.journal.is_empty() {
        stored
    } else {
        with_journal(stored, &snapshot.journal)
    };
    let current = rows.len() == snapshot.stamps.len()
        && rows
            .iter()
            .zip(&snapshot.stamps)
            .all(|(row, (file, stamp))| *row.file == **file && (row.size, row.mtime_ns) == *stamp);
    current.then_some(rows)
}

/// The journal's lines over the stored rows, both in file order.
fn with_journal<'a>(
    stored: Vec<Row<'a>>,
    journal: &'a BTreeMap<String, Option<IndexEntry>>,
) -> Vec<Row<'a>> {
    let mut journal = journal.iter().peekable();
    let mut rows = Vec::with_capacity(stored.len() + journal.len());
    for row in stored {
        while let Some((_, entry)) = journal.next_if(|(file, _)| file.as_str() < &*row.file) {
            rows.extend(entry.as_ref().map(Row::of));
        }
        match journal.next_if(|(file, _)| file.as_str() == &*row.file) {
            Some((_, entry)) => rows.extend(entry.as_ref().map(Row::of)),
            None => rows.push(row),
        }
    }
    rows.extend(journal.filter_map(|(_, entry)| entry.as_ref().map(Row::of)));
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    /// A session file with a header, a named prompt and an answer; `quote` puts an escape in
    /// its name, which a row then cannot borrow.
    fn session(dir: &Path, number: usize, quote: bool) -> String {
        let file = format!("2026-01-01T00-00-{number:02}-000Z_s{number}.jsonl");
        let name = if quote {
            format!("job \\\"{number}\\\"")
        } else {
            format!("job-{number}")
        };
        let text = format!(
            concat!(
                r#"{{"type":"session","version":3,"id":"0199a000-0000-7000-8000-{number:012}","timestamp":"2026-01-01T00:00:{number:02}.000Z","cwd":"/w{parity}"}}"#,
                "\n",
                r#"{{"type":"session_info","id":"i{number}","parentId":null,"timestamp":"2026-01-02T00:00:{number:02}.000Z","name":"{name}"}}"#,
                "\n",
                r#"{{"type":"message","id":"u{number}","parentId":"i{number}","timestamp":"2026-01-02T00:00:{number:02}.000Z","message":{{"role":"user","content":"hi","timestamp":1}}}}"#,
                "\n",
            ),
            number = number,
            parity = number % 2,
            name = name,
        );
        std::fs::write(dir.join(&file), text).unwrap();
        file
    }

    /// The rows a refreshed index gives, for comparison.
    fn refreshed_rows(index: &index::Index) -> Vec<Row<'_>> {
        index.sessions.values().map(Row::of).collect()
    }

    #[test]
    fn rows_read_quickly_are_the_rows_of_the_refreshed_index() {
        let home = tempfile::tempdir().unwrap();
        let dir = home.path();
        // Enough files for the index to be parsed on several threads.
        for number in 0..300 {
            session(dir, number, number % 7 == 0);
        }
        let (index, _) = index::refresh(dir).unwrap();
        let snapshot = snapshot(dir).unwrap();
        let rows = quick_rows(&snapshot).expect("a current index lists quickly");
        assert_eq!(rows.len(), 300);
        assert_eq!(rows, refreshed_rows(&index));
        let quoted = rows.iter().find(|row| row.file.contains("_s7.")).unwrap();
        assert_eq!(quoted.name.as_deref(), Some("job \"7\""));
        assert!(matches!(quoted.name, Some(Text(Cow::Owned(_)))));
        assert!(matches!(rows[1].cwd, Text(Cow::Borrowed("/w1"))));
    }

    #[test]
    fn the_journal_counts_and_any_file_the_index_does_not_describe_sends_the_caller_to_refresh() {
        let home = tempfile::tempdir().unwrap();
        let dir = home.path();
        let files: Vec<String> = (0..4).map(|number| session(dir, number, false)).collect();
        index::refresh(dir).unwrap();
        let quick = |dir: &Path| {
            snapshot(dir).and_then(|snapshot| {
                quick_rows(&snapshot).map(|rows| {
                    rows.iter()
                        .map(|row| (row.file.to_string(), row.name.as_deref().map(str::to_owned)))
                        .collect::<Vec<_>>()
                })
            })
        };
        assert_eq!(quick(dir).map(|rows| rows.len()), Some(4));

        // Through the journal: a file appended to, one removed, one added.
        std::fs::OpenOptions::new()
            .append(true)
            .open(dir.join(&files[1]))
            .and_then(|mut file| {
                std::io::Write::write_all(
                    &mut file,
                    br#"{"type":"session_info","id":"r1","parentId":"u1","timestamp":"2026-01-03T00:00:00.000Z","name":"renamed"}
"#,
                )
            })
            .unwrap();
        index::update_one(dir, &dir.join(&files[1])).unwrap();
        std::fs::remove_file(dir.join(&files[2])).unwrap();
        index::update_one(dir, &dir.join(&files[2])).unwrap();
        let added = session(dir, 9, false);
        index::update_one(dir, &dir.join(&added)).unwrap();
        assert!(dir.join(index::JOURNAL_FILE).exists());
        let expected = vec![
            (files[0].clone(), Some("job-0".to_owned())),
            (files[1].clone(), Some("renamed".to_owned())),
            (files[3].clone(), Some("job-3".to_owned())),
            (added.clone(), Some("job-9".to_owned())),
        ];
        assert_eq!(quick(dir), Some(expected.clone()));
        let (index, _) = index::refresh(dir).unwrap();
        let refreshed: Vec<_> = refreshed_rows(&index)
            .iter()
            .map(|row| (row.file.to_string(), row.name.as_deref().map(str::to_owned)))
            .collect();
        assert_eq!(refreshed, expected);

        // Behind the index's back: a file changed, one added, one removed.
        std::fs::write(dir.join(&files[0]), "{}\n").unwrap();
        assert_eq!(quick(dir), None);
        index::refresh(dir).unwrap();
        assert!(quick(dir).is_some());
        session(dir, 20, false);
        assert_eq!(quick(dir), None);
        index::refresh(dir).unwrap();
        std::fs::remove_file(dir.join(&files[3])).unwrap();
        assert_eq!(quick(dir), None);
        index::refresh(dir).unwrap();
        assert_eq!(quick(dir).map(|rows| rows.len()), Some(4));

        // A journal due to be folded in is left to a refresh, which folds it.
        let line = format!(
            "{{\"file\":\"gone.jsonl\",\"version\":{}}}\n",
            index::INDEX_VERSION
        );
        std::fs::write(
            dir.join(index::JOURNAL_FILE),
            line.repeat(index::JOURNAL_MAX_LINES + 1),
        )
        .unwrap();
        assert_eq!(quick(dir), None);
        index::refresh(dir).unwrap();
        assert!(!dir.join(index::JOURNAL_FILE).exists());
        assert_eq!(quick(dir).map(|rows| rows.len()), Some(4));

        // An index laid out otherwise (pretty-printed) is for the general reader.
        let text = std::fs::read_to_string(dir.join(INDEX_FILE)).unwrap();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        std::fs::write(
            dir.join(INDEX_FILE),
            serde_json::to_string_pretty(&value).unwrap(),
        )
        .unwrap();
        assert_eq!(quick(dir), None);
        // And no index at all.
        std::fs::remove_file(dir.join(INDEX_FILE)).unwrap();
        assert_eq!(quick(dir), None);
    }
}
