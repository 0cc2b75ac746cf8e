//! `docs/reference/configuration.md`: every `config.toml` key, read from the JSON Schema schemars
//! derives from the serde types of `config/file.rs` (`schemas::config`, committed as
//! `docs/reference/schemas/config.schema.json`) — the keys (serde's renames applied), their
//! types, and each field's `///` comment, split into its meaning and its `Default: …` sentence.
//!
//! The prose before the keys is `configuration.md` beside this file. The page is a pure function
//! of the two, so the freshness test of `render_all` fails when a key is added, renamed, removed
//! or redocumented without regenerating it; a unit test below parses a file holding every listed
//! key with `ConfigFile`, so the page cannot list a key the parser would refuse.

use std::collections::BTreeSet;

use serde_json::Value;

use super::schemas::{Reader, description, reference_name, scalar_name, without_null, words};
use super::{anchor, capitalized, cell};

/// Where the page goes, relative to the repository.
pub(crate) const PATH: &str = "docs/reference/configuration.md";

/// The prose before the generated keys.
const INTRODUCTION: &str = include_str!("configuration.md");

/// One segment of a key's path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Segment {
    /// A fixed key.
    Key(String),
    /// Any name, in a table of tables (`providers.NAME`).
    Entry(String),
    /// One table of an array of tables (`[[hooks.Stop]]`).
    Element,
}

/// One key of a table.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct KeyRow {
    /// The key, as written in the file.
    pub(crate) key: String,
    /// Its type, in Markdown.
    pub(crate) type_text: String,
    /// Its default, from the `Default: …` sentence of its comment (empty when there is none).
    pub(crate) default: String,
    /// The rest of its comment.
    pub(crate) meaning: String,
    /// A value of its type, for the test that parses every key; `None` for a table, whose keys
    /// are listed in its own section.
    pub(crate) sample: Option<toml::Value>,
}

/// One table of the file (or several that share their keys, `[backends.claude-cli]` and
/// `[backends.codex-cli]`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Section {
    /// Its title: the tables' headers, one standing for many (`[[hooks.EVENT]]`), or the top
    /// level's name.
    pub(crate) heading: String,
    /// The paths of the tables; empty for the top level.
    pub(crate) paths: Vec<Vec<Segment>>,
    /// The type's comment.
    pub(crate) doc: String,
    /// Its keys, in the order of the type's fields.
    pub(crate) rows: Vec<KeyRow>,
}

/// Every table of the file, top level first, then depth first in field order; and what could
/// not be read (types the page does not know how to name).
pub(crate) fn sections(root: &Value) -> (Vec<Section>, Vec<String>) {
    let mut walk = Walk {
        reader: Reader::new(root),
        sections: Vec::new(),
        seen: BTreeSet::new(),
        problems: Vec::new(),
    };
    walk.table(ROOT_NAME, root, vec![Vec::new()]);
    (walk.sections, walk.problems)
}

/// What the page calls the root table, for the walk's bookkeeping.
const ROOT_NAME: &str = "ConfigFile";

struct Walk<'a> {
    reader: Reader<'a>,
    sections: Vec<Section>,
    seen: BTreeSet<String>,
    problems: Vec<String>,
}

/// What a key's schema says about it.
struct Described {
    text: String,
    sample: Option<toml::Value>,
    /// A table definition below this key: its name and the segment after the key (`NAME`,
    /// `[[…]]`).
    nested: Option<(String, Option<Segment>)>,
}

impl Walk<'_> {
    /// The table definition a subschema names, if it names one.
    fn table_name(&self, schema: &Value) -> Option<String> {
        let name = reference_name(schema)?;
        let definition = self.reader.definition(name)?;
        definition
            .get("properties")
            .is_some()
            .then(|| name.to_owned())
    }

    /// Adds the section of the table `schema` (definition `name`) at `paths`, then those of the
    /// tables below it.
    fn table(&mut self, name: &str, schema: &Value, paths: Vec<Vec<Segment>>) {
        if !self.seen.insert(name.to_owned()) {
            return;
        }
        let Some(Value::Object(properties)) = schema.get("properties") else {
            self.problems.push(format!("{name} has no keys"));
            return;
        };
        let base = paths.first().cloned().unwrap_or_default();
        // The tables below, in key order; sibling keys of one type share a section.
        let mut children: Vec<(String, Vec<Vec<Segment>>)> = Vec::new();
        let mut described = Vec::new();
        for (key, property) in properties {
            let found = self.describe(key, property);
            if let Some((child, after)) = &found.nested {
                let mut path = base.clone();
                path.push(Segment::Key(key.clone()));
                path.extend(after.clone());
                match children.iter_mut().find(|(name, _)| name == child) {
                    Some((_, paths)) => paths.push(path),
                    None => children.push((child.clone(), vec![path])),
                }
            }
            described.push((key.clone(), description(property), found));
        }
        let mut rows = Vec::new();
        for (key, doc, found) in described {
            let mut type_text = found.text;
            if let Some((child, _)) = &found.nested
                && let Some((_, paths)) = children.iter().find(|(name, _)| name == child)
            {
                let heading = self.heading(child, paths);
                type_text = format!("{type_text}: [{heading}](#{})", anchor(&heading));
            }
            let (meaning, default) = split_default(&without_own_header(&doc));
            rows.push(KeyRow {
                key,
                type_text,
                default,
                meaning,
                sample: found.sample,
            });
        }
        self.sections.push(Section {
            heading: self.heading(name, &paths),
            paths,
            doc: without_own_header(&description(schema)),
            rows,
        });
        for (child, paths) in children {
            if let Some(definition) = self.reader.definition(&child) {
                self.table(&child, definition, paths);
            }
        }
    }

    fn describe(&mut self, key: &str, property: &Value) -> Described {
        let schema = without_null(property).schema;
        if let Some(name) = self.table_name(&schema) {
            return Described {
                text: "table".to_owned(),
                sample: None,
                nested: Some((name, None)),
            };
        }
        let resolved = self.reader.resolve(&schema).clone();
        // One of several shapes (`network = true` or `[sandbox.network]`): each is named, and a
        // table among them gets its section.
        if let Some(Value::Array(choices)) = resolved.get("anyOf") {
            let choices: Vec<Described> = choices
                .iter()
                .map(|choice| self.describe(key, choice))
                .collect();
            return Described {
                text: choices
                    .iter()
                    .map(|choice| choice.text.clone())
                    .collect::<Vec<_>>()
                    .join(" or "),
                sample: None,
                nested: choices.into_iter().find_map(|choice| choice.nested),
            };
        }
        if let Some(found) = words(&resolved).filter(|found| !found.is_empty()) {
            let words: Vec<String> = found.into_iter().map(|(word, _)| word).collect();
            return Described {
                text: one_of(&words),
                sample: Some(toml::Value::String(words[0].clone())),
                nested: None,
            };
        }
        match resolved.get("type").and_then(Value::as_str) {
            Some("array") => {
                let items = resolved.get("items").cloned().unwrap_or(Value::Bool(true));
                if let Some(name) = self.table_name(&items) {
                    return Described {
                        text: "array of tables".to_owned(),
                        sample: None,
                        nested: Some((name, Some(Segment::Element))),
                    };
                }
                let element = self.describe(key, &items);
                Described {
                    text: format!("array of {}", element.text),
                    sample: element
                        .sample
                        .map(|sample| toml::Value::Array(vec![sample])),
                    nested: None,
                }
            }
            Some("object") => {
                let entries = resolved
                    .get("additionalProperties")
                    .cloned()
                    .unwrap_or(Value::Bool(true));
                if let Some(name) = self.table_name(&entries) {
                    let placeholder = self.placeholder(&name);
                    return Described {
                        text: "tables by name".to_owned(),
                        sample: None,
                        nested: Some((name, Some(Segment::Entry(placeholder)))),
                    };
                }
                let entry = self.describe(key, &entries);
                Described {
                    text: format!("table of {}", entry.text),
                    sample: entry.sample.map(|sample| {
                        toml::Value::Table(toml::Table::from_iter([("NAME".to_owned(), sample)]))
                    }),
                    nested: None,
                }
            }
            _ => {
                let sample = match scalar_name(&resolved) {
                    Some("string") => toml::Value::String("text".to_owned()),
                    Some("path") => toml::Value::String("some/dir".to_owned()),
                    Some("boolean") => toml::Value::Boolean(true),
                    Some("integer") => toml::Value::Integer(1),
                    Some("number") => toml::Value::Float(1.5),
                    _ => {
                        self.problems.push(format!(
                            "the schema of `{key}` is neither a scalar, a table, a list, a map \
                             nor a set of words: {resolved}"
                        ));
                        return Described {
                            text: "any".to_owned(),
                            sample: None,
                            nested: None,
                        };
                    }
                };
                Described {
                    text: scalar_name(&resolved).unwrap_or_default().to_owned(),
                    sample: Some(sample),
                    nested: None,
                }
            }
        }
    }

    /// A definition's description.
    fn doc(&self, name: &str) -> String {
        self.reader
            .definition(name)
            .map(description)
            .unwrap_or_default()
    }

    /// The title of the section of definition `name` at `paths`: their headers, or, for more
    /// than two, the header its comment gives (`One [[hooks.EVENT]] entry.`).
    fn heading(&self, name: &str, paths: &[Vec<Segment>]) -> String {
        let doc = self.doc(name);
        if paths.len() > 2
            && let Some(start) = doc.find("`[")
            && let Some(length) = doc[start + 1..].find('`')
        {
            return doc[start..start + length + 2].to_owned();
        }
        heading(paths)
    }

    /// The name standing for any key of a table of tables, from the table's own comment when it
    /// starts by naming itself (`[providers.NAME.models.ID]` → `ID`), else `NAME`.
    fn placeholder(&self, name: &str) -> String {
        let doc = self.doc(name);
        doc.strip_prefix("`[")
            .and_then(|rest| rest.split_once(']'))
            .and_then(|(path, _)| path.rsplit('.').next())
            .filter(|last| !last.is_empty() && last.chars().all(|c| c.is_ascii_uppercase()))
            .unwrap_or("NAME")
            .to_owned()
    }
}

/// `` `a`, `b` or `c` ``.
fn one_of(words: &[String]) -> String {
    let quoted: Vec<String> = words.iter().map(|word| format!("`\"{word}\"`")).collect();
    match quoted.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// Splits a comment into its meaning and the text of its `Default: …` sentence (`Default
/// without a catalog entry: 0.` gives `0 (without a catalog entry)`).
fn split_default(doc: &str) -> (String, String) {
    // The first sentence that starts with `Default` and names what it is before a colon
    // (`Default sandbox.` is a meaning, not a default).
    let found = doc.match_indices("Default").find_map(|(start, _)| {
        let starts_sentence = start == 0 || doc[..start].ends_with(". ");
        let sentence = &doc[start..];
        let end = sentence_end(sentence);
        let label_length = sentence[..end].find(':')?;
        (starts_sentence && label_length <= 40).then_some((start, end))
    });
    let Some((start, end)) = found else {
        return (doc.trim().to_owned(), String::new());
    };
    let sentence = &doc[start..];
    let (label, value) = sentence[..end]
        .split_once(':')
        .unwrap_or(("Default", &sentence[..end]));
    let value = value.trim().trim_end_matches('.').trim();
    let qualifier = label.trim_start_matches("Default").trim();
    let default = if qualifier.is_empty() {
        value.to_owned()
    } else {
        format!("{value} ({qualifier})")
    };
    let meaning = format!("{} {}", doc[..start].trim(), sentence[end..].trim());
    (meaning.trim().to_owned(), default)
}

/// Where the sentence at the start of `text` ends: after a `.` followed by a space and a capital
/// letter or a backtick, or at the end of the text.
fn sentence_end(text: &str) -> usize {
    let bytes = text.as_bytes();
    for index in 0..bytes.len() {
        if bytes[index] == b'.'
            && bytes.get(index + 1) == Some(&b' ')
            && bytes
                .get(index + 2)
                .is_some_and(|next| next.is_ascii_uppercase() || *next == b'`')
        {
            return index + 1;
        }
    }
    text.len()
}

/// A comment without the table header it starts with (`[tools]`: …), which the page already
/// shows as the section's title: what follows a colon stays, with a capital letter.
fn without_own_header(doc: &str) -> String {
    let Some(rest) = doc.strip_prefix("`[") else {
        return doc.to_owned();
    };
    let Some((_, rest)) = rest.split_once("]`") else {
        return doc.to_owned();
    };
    let rest = rest.trim_start_matches(" / ");
    if rest.starts_with("`[") {
        return without_own_header(rest);
    }
    match rest.strip_prefix(':') {
        Some(after) => capitalized(after.trim()),
        None => rest.trim_start_matches('.').trim().to_owned(),
    }
}

/// A path as a TOML table header: `[providers.NAME]`, `[[hooks.Stop]]`.
fn header(path: &[Segment]) -> String {
    let mut keys = Vec::new();
    let mut array = false;
    for segment in path {
        match segment {
            Segment::Key(key) => keys.push(key.clone()),
            Segment::Entry(placeholder) => keys.push(placeholder.clone()),
            Segment::Element => array = true,
        }
    }
    if array {
        format!("[[{}]]", keys.join("."))
    } else {
        format!("[{}]", keys.join("."))
    }
}

/// A section's heading: its tables' headers, or the top level's name.
fn heading(paths: &[Vec<Segment>]) -> String {
    if paths.iter().all(Vec::is_empty) {
        return "Top-level keys".to_owned();
    }
    paths
        .iter()
        .map(|path| format!("`{}`", header(path)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The page, from `config`, the schema of the config file ([`config`](super::schemas::config)).
pub(crate) fn render(config: &Value) -> String {
    let (sections, problems) = sections(config);
    let mut page = String::from(
        "<!-- Generated by `cargo run -q --example generate-docs` from src/docs/configuration.md and the \
         JSON Schema of the types of src/config/file.rs; do not edit. -->\n\n",
    );
    page.push_str(INTRODUCTION);
    page.push_str("\n## Keys\n\n");
    page.push_str(
        "Every key the file may hold, table by table, read from the types `config.toml` is parsed \
         into (also as a JSON Schema: [config.schema.json](schemas/config.schema.json)). `NAME` and `ID` stand for a name of your choosing. A key left out takes the default \
         shown.\n",
    );
    for problem in problems {
        // Only a broken build of the page shows these; a unit test keeps the committed one clean.
        page.push_str(&format!("\n**Not documented:** {problem}\n"));
    }
    for section in &sections {
        page.push_str(&format!("\n### {}\n\n", section.heading));
        if !section.doc.is_empty() {
            page.push_str(&format!("{}\n\n", cell(&section.doc)));
        }
        page.push_str("| key | type | default | meaning |\n|---|---|---|---|\n");
        for row in &section.rows {
            page.push_str(&format!(
                "| `{}` | {} | {} | {} |\n",
                row.key,
                row.type_text,
                cell(&row.default),
                cell(&row.meaning)
            ));
        }
    }
    page
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ConfigFile;
    use crate::docs::schemas;

    #[test]
    fn every_type_of_the_config_file_is_read_and_named() {
        let (sections, problems) = sections(&schemas::config());
        assert_eq!(problems, Vec::<String>::new());
        assert!(sections.len() > 20, "{}", sections.len());
    }

    /// Puts `value` at `path` in `table`, creating tables (and one-table arrays) on the way.
    fn insert(table: &mut toml::Table, path: &[Segment], value: toml::Value) {
        let Some((first, rest)) = path.split_first() else {
            return;
        };
        let key = match first {
            Segment::Key(key) => key.clone(),
            Segment::Entry(placeholder) => placeholder.clone(),
            Segment::Element => return,
        };
        if rest.is_empty() {
            table.insert(key, value);
            return;
        }
        if rest.first() == Some(&Segment::Element) {
            let array = table.entry(key).or_insert_with(|| {
                toml::Value::Array(vec![toml::Value::Table(toml::Table::new())])
            });
            if let toml::Value::Array(elements) = array
                && let Some(toml::Value::Table(inner)) = elements.first_mut()
            {
                insert(inner, &rest[1..], value);
            }
            return;
        }
        let inner = table
            .entry(key)
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        if let toml::Value::Table(inner) = inner {
            insert(inner, rest, value);
        }
    }

    /// The dotted paths of every value in `table` that is not a table.
    fn leaves(value: &toml::Value, prefix: &str, into: &mut BTreeSet<String>) {
        match value {
            toml::Value::Table(table) => {
                for (key, inner) in table {
                    leaves(inner, &format!("{prefix}.{key}"), into);
                }
            }
            toml::Value::Array(elements)
                if elements.iter().all(|element| element.is_table()) && !elements.is_empty() =>
            {
                for element in elements {
                    leaves(element, prefix, into);
                }
            }
            _ => {
                into.insert(prefix.to_owned());
            }
        }
    }

    #[test]
    fn a_file_with_every_documented_key_parses_and_holds_no_other() {
        let (sections, _) = sections(&schemas::config());
        let mut document = toml::Table::new();
        for section in &sections {
            let top_level = [Vec::new()];
            let paths = if section.paths.is_empty() {
                &top_level[..]
            } else {
                &section.paths[..]
            };
            for base in paths {
                for row in &section.rows {
                    let Some(sample) = &row.sample else { continue };
                    let mut path = base.clone();
                    path.push(Segment::Key(row.key.clone()));
                    insert(&mut document, &path, sample.clone());
                }
            }
        }
        let text = toml::to_string(&document).unwrap();
        let parsed = ConfigFile::parse(&text, std::path::Path::new("config.toml"))
            .unwrap_or_else(|error| panic!("{error}\n{text}"));
        // Every key of the parsed file comes back when it is written out again: had the page
        // missed one that serializes by default (a list, a table), it would show up here.
        let written = toml::Value::try_from(&parsed).unwrap();
        let mut documented = BTreeSet::new();
        leaves(&toml::Value::Table(document), "", &mut documented);
        let mut serialized = BTreeSet::new();
        leaves(&written, "", &mut serialized);
        assert_eq!(documented, serialized, "{text}");
    }

    #[test]
    fn defaults_are_split_from_the_meaning() {
        assert_eq!(
            split_default("Retries after the first attempt. Default: 3."),
            (
                "Retries after the first attempt.".to_owned(),
                "3".to_owned()
            )
        );
        assert_eq!(
            split_default("Context window. Default without a catalog entry: 128,000."),
            (
                "Context window.".to_owned(),
                "128,000 (without a catalog entry)".to_owned()
            )
        );
        assert_eq!(
            split_default("Removed. Default: the key variables. `Whatever` the list, more."),
            (
                "Removed. `Whatever` the list, more.".to_owned(),
                "the key variables".to_owned()
            )
        );
        assert_eq!(
            split_default("Default model. Default: none, the first."),
            ("Default model.".to_owned(), "none, the first".to_owned())
        );
        assert_eq!(
            split_default("No default here."),
            ("No default here.".to_owned(), String::new())
        );
    }

    #[test]
    fn a_comment_loses_the_header_the_title_shows() {
        assert_eq!(without_own_header("`[tools]`."), "");
        assert_eq!(without_own_header("`[a]` / `[b]`."), "");
        assert_eq!(without_own_header("`[retry]`: retries."), "Retries.");
        assert_eq!(
            without_own_header("One `[[x]]` entry."),
            "One `[[x]]` entry."
        );
    }

    #[test]
    fn anchors_follow_the_headings() {
        assert_eq!(anchor("`[providers.NAME]`"), "providersname");
        assert_eq!(anchor("Top-level keys"), "top-level-keys");
    }
}
