//! `docs/reference/json-output.md`: the result object, every stream-json line and the codex JSONL
//! events, read from the JSON Schemas schemars derives from the serde types that print them
//! (`output/schema.rs`, `output/codex.rs`; committed under `docs/reference/schemas/`): each
//! field's key, its type, whether it is always there, and its `///` comment.
//!
//! The prose at the top is `json_output.md` beside this file. The page is a pure function of it
//! and of the schemas, so the freshness test of `render_all` fails when a field or a line is
//! added, renamed, removed or redocumented without regenerating it; a unit test below serializes
//! a result object and checks its keys against the page's.

use serde_json::{Map, Value, json};

use super::schemas::{Reader, description, reference_name, scalar_name, without_null, words};
use super::{anchor, capitalized, cell};

/// Where the page goes, relative to the repository.
pub(crate) const PATH: &str = "docs/reference/json-output.md";

/// The prose before the tables.
const INTRODUCTION: &str = include_str!("json_output.md");

/// The result object's definition.
const RESULT: &str = "RunResult";

/// The definition of every stream-json line but the last.
const STREAM_LINE: &str = "Line";

/// One row of a table: a field of an object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FieldRow {
    /// The key.
    pub(crate) key: String,
    /// Its type, in Markdown.
    pub(crate) type_text: String,
    /// When it is there.
    pub(crate) presence: &'static str,
    /// Its comment.
    pub(crate) meaning: String,
}

/// One kind of object of a tagged union: the words of its tags (`type`, then `subtype`), its
/// comment and its fields, tags first.
struct Variant {
    tags: Vec<(String, String)>,
    doc: String,
    rows: Vec<FieldRow>,
}

struct Page<'a> {
    reader: Reader<'a>,
    /// Definitions whose section is due, in the order they were first named.
    queued: Vec<String>,
    problems: Vec<String>,
}

impl Page<'_> {
    /// A link to the section of `name`, queuing it.
    fn link(&mut self, name: &str) -> String {
        if !self.queued.iter().any(|queued| queued == name) {
            self.queued.push(name.to_owned());
        }
        format!("[{name}](#{})", anchor(name))
    }

    /// A field's type in words, with links to the sections of the definitions it names.
    fn type_text(&mut self, schema: &Value) -> String {
        let schema = without_null(schema).schema;
        if let Some(name) = reference_name(&schema) {
            let Some(definition) = self.reader.definition(name) else {
                self.problems.push(format!("no definition {name}"));
                return format!("`{name}`");
            };
            if let Some(found) = words(definition) {
                return match &found[..] {
                    [(word, _)] => format!("`\"{word}\"`"),
                    _ => format!("string: {}", self.link(name)),
                };
            }
            if definition.get("properties").is_some() {
                return format!("object: {}", self.link(name));
            }
            if let Some(tag) = tag_key(definition) {
                return format!("object by `{tag}`: {}", self.link(name));
            }
            if definition.get("anyOf").is_some() {
                return self.link(name);
            }
            self.problems
                .push(format!("cannot name the definition {name}: {definition}"));
            return format!("`{name}`");
        }
        if let Some(word) = schema.get("const").and_then(Value::as_str) {
            return format!("`\"{word}\"`");
        }
        if let Some(number) = schema.get("const").filter(|value| value.is_number()) {
            return format!("`{number}`");
        }
        match schema.get("type").and_then(Value::as_str) {
            Some("array") => {
                let items = schema.get("items").cloned().unwrap_or(Value::Bool(true));
                format!("array of {}", self.type_text(&items))
            }
            Some("object") => {
                let entries = schema
                    .get("additionalProperties")
                    .cloned()
                    .unwrap_or(Value::Bool(true));
                format!("object of {}", self.type_text(&entries))
            }
            _ => scalar_name(&schema).unwrap_or("any JSON").to_owned(),
        }
    }

    /// The rows of the fields of an object schema, in their order.
    fn rows(&mut self, object: &Value) -> Vec<FieldRow> {
        let required: Vec<&str> = object
            .get("required")
            .and_then(Value::as_array)
            .map(|keys| keys.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let Some(Value::Object(properties)) = object.get("properties") else {
            return Vec::new();
        };
        let mut rows = Vec::new();
        for (key, property) in properties {
            let plain = without_null(property);
            let presence = if required.contains(&key.as_str()) {
                if plain.nullable {
                    "always, may be null"
                } else {
                    "always"
                }
            } else if is_collection(&plain.schema) && !plain.nullable {
                "when not empty"
            } else {
                "when set"
            };
            rows.push(FieldRow {
                key: key.clone(),
                type_text: self.type_text(property),
                presence,
                meaning: description(property),
            });
        }
        rows
    }

    /// The kinds of object of the tagged union `schema`: a choice that is itself a union
    /// (`system` lines by `subtype`) gives one kind per inner choice, with the outer fields.
    fn variants(&mut self, schema: &Value, inherited: &[FieldRow], into: &mut Vec<Variant>) {
        let schema = self.reader.resolve(schema).clone();
        let mut fields = inherited.to_vec();
        fields.extend(self.rows(&schema));
        let Some(Value::Array(choices)) = schema.get("oneOf") else {
            let (tags, others): (Vec<FieldRow>, Vec<FieldRow>) = fields
                .into_iter()
                .partition(|row| tag_word(&schema, &row.key).is_some() || is_tag_row(row));
            into.push(Variant {
                tags: tags
                    .iter()
                    .map(|row| (row.key.clone(), row.type_text.clone()))
                    .collect(),
                doc: description(&schema),
                rows: tags.into_iter().chain(others).collect(),
            });
            return;
        };
        for choice in choices {
            self.variants(choice, &fields, into);
        }
    }

    /// The tables of the kinds of the tagged union `schema`, each after a heading of its tag
    /// words; below an object's own heading (`####`), the object's `name` keeps titles unique
    /// (`text` is a block of several).
    fn line_tables(&mut self, name: &str, schema: &Value, level: &str, page: &mut String) {
        let mut found = Vec::new();
        self.variants(schema, &[], &mut found);
        for variant in found {
            let words: Vec<String> = variant
                .tags
                .iter()
                .map(|(_, word)| format!("`{}`", word.trim_matches('`').trim_matches('"')))
                .collect();
            let heading = if level == "###" {
                words.join(" / ")
            } else {
                format!("{name}: {}", words.join(" / "))
            };
            start_block(page);
            page.push_str(&format!("{level} {heading}\n\n"));
            let doc = without_leading_name(&variant.doc);
            if !doc.is_empty() {
                page.push_str(&format!("{doc}\n\n"));
            }
            push_table(page, &variant.rows);
        }
    }

    /// The section of one queued definition.
    fn object_section(&mut self, name: &str, page: &mut String) {
        let Some(definition) = self.reader.definition(name).cloned() else {
            return;
        };
        start_block(page);
        page.push_str(&format!("### {name}\n\n"));
        let doc = description(&definition);
        if !doc.is_empty() {
            page.push_str(&format!("{doc}\n\n"));
        }
        if let Some(found) = words(&definition) {
            page.push_str("| value | meaning |\n|---|---|\n");
            for (word, meaning) in found {
                page.push_str(&format!("| `\"{word}\"` | {} |\n", cell(&meaning)));
            }
        } else if definition.get("oneOf").is_some() {
            self.line_tables(name, &definition, "####", page);
        } else if let Some(Value::Array(choices)) = definition.get("anyOf") {
            page.push_str("One of:\n\n");
            for choice in choices {
                let text = self.type_text(choice);
                page.push_str(&format!("- {text}: {}\n", description(choice)));
            }
        } else {
            let rows = self.rows(&definition);
            push_table(page, &rows);
        }
    }
}

/// The key that tells the kinds of a tagged union apart: the first field of its first kind
/// that holds one constant word.
fn tag_key(schema: &Value) -> Option<String> {
    let first = schema.get("oneOf")?.as_array()?.first()?;
    let properties = first.get("properties")?.as_object()?;
    properties
        .iter()
        .find(|(_, property)| property.get("const").is_some())
        .map(|(key, _)| key.clone())
}

/// Whether a field's schema is a list or a map (a key left out when empty), rather than one
/// value (left out when unset).
fn is_collection(schema: &Value) -> bool {
    match schema.get("type").and_then(Value::as_str) {
        Some("array") => true,
        Some("object") => schema.get("properties").is_none(),
        _ => false,
    }
}

/// The constant word of field `key` of an object schema, if it holds one.
fn tag_word<'a>(object: &'a Value, key: &str) -> Option<&'a str> {
    object.get("properties")?.get(key)?.get("const")?.as_str()
}

/// A row inherited from an outer union's tag (`type` of a `system` line).
fn is_tag_row(row: &FieldRow) -> bool {
    row.meaning.is_empty() && row.type_text.starts_with("`\"") && row.presence == "always"
}

/// A line type's comment without the name the heading already shows (`` `system/init`. ``):
/// what follows a colon stays, with a capital letter.
fn without_leading_name(doc: &str) -> String {
    let Some(rest) = doc.strip_prefix('`') else {
        return doc.to_owned();
    };
    let Some((_, rest)) = rest.split_once('`') else {
        return doc.to_owned();
    };
    if rest == "." || rest.is_empty() {
        return String::new();
    }
    match rest.strip_prefix(':') {
        Some(after) => capitalized(after.trim()),
        None => doc.to_owned(),
    }
}

/// One blank line before the next heading, whatever ended the text before it.
fn start_block(page: &mut String) {
    while !page.ends_with("\n\n") {
        page.push('\n');
    }
}

fn push_table(page: &mut String, rows: &[FieldRow]) {
    page.push_str("| field | type | present | meaning |\n|---|---|---|---|\n");
    for row in rows {
        let key = if row.key.is_empty() {
            String::new()
        } else {
            format!("`{}`", row.key)
        };
        page.push_str(&format!(
            "| {key} | {} | {} | {} |\n",
            row.type_text,
            row.presence,
            cell(&row.meaning)
        ));
    }
}

/// The definitions of the stream-json and the codex schemas in one map, and the names they
/// both define differently.
fn definitions(stream: &Value, codex: &Value) -> (Value, Vec<String>) {
    let mut merged = Map::new();
    let mut problems = Vec::new();
    for schema in [stream, codex] {
        let Some(Value::Object(definitions)) = schema.get("$defs") else {
            continue;
        };
        for (name, definition) in definitions {
            match merged.get(name) {
                Some(known) if known != definition => {
                    problems.push(format!("{name} means two things in the schemas"));
                }
                _ => {
                    merged.insert(name.clone(), definition.clone());
                }
            }
        }
    }
    (json!({ "$defs": merged }), problems)
}

/// The page, from the stream-json and codex event schemas ([`stream_json`](super::schemas::stream_json),
/// [`codex_events`](super::schemas::codex_events)), and what could not be documented (empty for a sound build).
pub(crate) fn render_checked(stream: &Value, codex: &Value) -> (String, Vec<String>) {
    let (merged, problems) = definitions(stream, codex);
    let mut page_state = Page {
        reader: Reader::new(&merged),
        queued: Vec::new(),
        problems,
    };
    let mut page = String::from(
        "<!-- Generated by `cargo run -q --example generate-docs` from src/docs/json_output.md and the \
         JSON Schemas of the types of src/output/schema.rs and src/output/codex.rs; do not \
         edit. -->\n\n",
    );
    page.push_str(INTRODUCTION);

    page.push_str("\n## The result object\n\n");
    if let Some(result) = page_state.reader.definition(RESULT).cloned() {
        page.push_str(&format!("{}\n\n", description(&result)));
        let rows = page_state.rows(&result);
        push_table(&mut page, &rows);
    } else {
        page_state.problems.push(format!("no definition {RESULT}"));
    }

    page.push_str(
        "\n## stream-json lines\n\nEvery line but the last, which is the \
         [result object](#the-result-object), by its `type` (and `subtype`).\n",
    );
    if let Some(line) = page_state.reader.definition(STREAM_LINE).cloned() {
        page_state.line_tables(STREAM_LINE, &line, "###", &mut page);
    } else {
        page_state
            .problems
            .push(format!("no definition {STREAM_LINE}"));
    }

    page.push_str(
        "\n## Codex JSONL lines\n\nWhat `pincer exec --json` prints, one event a line, by its \
         `type`.\n",
    );
    page_state.line_tables("ThreadEvent", codex, "###", &mut page);

    page.push_str("\n## Objects\n\nThe objects and words the lines above are made of.\n");
    let mut index = 0;
    while let Some(name) = page_state.queued.get(index).cloned() {
        page_state.object_section(&name, &mut page);
        index += 1;
    }
    let problems = page_state.problems;
    for problem in &problems {
        page.push_str(&format!("\n**Not documented:** {problem}\n"));
    }
    (page, problems)
}

/// The page ([`render_checked`]).
pub(crate) fn render(stream: &Value, codex: &Value) -> String {
    render_checked(stream, codex).0
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::docs::schemas;
    use crate::output::codex::ThreadEvent;

    fn page_of_the_schemas() -> (String, Vec<String>) {
        render_checked(&schemas::stream_json(), &schemas::codex_events())
    }
    use crate::output::schema::{ModelUsage, ResultSubtype, RunResult};

    #[test]
    fn every_type_of_the_json_output_is_read_and_named() {
        let (page, problems) = page_of_the_schemas();
        assert_eq!(problems, Vec::<String>::new());
        for heading in [
            "### `system` / `init`",
            "### `assistant`",
            "### `turn.completed`",
        ] {
            assert!(page.contains(heading), "{heading} missing");
        }
    }

    #[test]
    fn a_line_comment_loses_the_name_its_heading_shows() {
        assert_eq!(without_leading_name("`system/init`."), "");
        assert_eq!(without_leading_name("`assistant`: a call."), "A call.");
        assert_eq!(
            without_leading_name("`usage` in words."),
            "`usage` in words."
        );
    }

    #[test]
    fn headings_are_unique_so_links_find_them() {
        let (page, _) = page_of_the_schemas();
        let mut seen = BTreeSet::new();
        for line in page.lines().filter(|line| line.starts_with('#')) {
            assert!(seen.insert(line), "{line} twice");
        }
    }

    /// The keys the schemas list for definition `name`.
    fn documented_keys(name: &str) -> BTreeSet<String> {
        let (merged, _) = definitions(&schemas::stream_json(), &schemas::codex_events());
        merged["$defs"][name]["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect()
    }

    fn serialized_keys(value: &impl serde::Serialize) -> BTreeSet<String> {
        let serde_json::Value::Object(object) = serde_json::to_value(value).unwrap() else {
            panic!("not an object")
        };
        object.keys().cloned().collect()
    }

    #[test]
    fn the_page_names_the_keys_serde_writes() {
        let result = RunResult::early_error(
            ResultSubtype::ErrorTimeout,
            crate::error::ErrorKind::Timeout,
            "late",
            5,
        );
        let written = serialized_keys(&result);
        let (merged, _) = definitions(&schemas::stream_json(), &schemas::codex_events());
        let mut page = Page {
            reader: Reader::new(&merged),
            queued: Vec::new(),
            problems: Vec::new(),
        };
        let rows = page.rows(&merged["$defs"][RESULT]);
        let documented: BTreeSet<String> = rows.iter().map(|row| row.key.clone()).collect();
        assert!(
            written.is_subset(&documented),
            "{written:?} ⊄ {documented:?}"
        );
        // What this result leaves out, the page says may be left out.
        for row in rows.iter().filter(|row| !written.contains(&row.key)) {
            assert_eq!(row.presence, "when set", "{}", row.key);
        }
        assert_eq!(
            serialized_keys(&ModelUsage::default()),
            documented_keys("ModelUsage")
        );
    }

    #[test]
    fn codex_lines_carry_the_type_word_the_page_shows() {
        let line = ThreadEvent::ThreadStarted {
            thread_id: "id".to_owned(),
        };
        let written = serde_json::to_value(&line).unwrap();
        assert_eq!(written["type"], "thread.started");
        let (page, _) = page_of_the_schemas();
        assert!(page.contains("### `thread.started`"));
        assert!(page.contains("| `thread_id` | string | always |"));
    }
}
