//! What `sessions list` shows of each session: a [`Row`] holds only the fields a listing's
//! table shows, borrowed from an index entry.

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::{Deserializer, Visitor};

use super::index::IndexEntry;
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
}
