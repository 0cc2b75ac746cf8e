//! `docs/reference/json-output.md`: the result object, every stream-json line and the codex JSONL
//! events, read from the serde types that print them (`output/schema.rs`, `output/codex.rs`):
//! each field's key (serde's renames applied), its type, whether it is always there, and its
//! `///` comment.
//!
//! The prose at the top is `json_output.md` beside this file. The page is a pure function of the
//! three files, so the freshness test of `render_all` fails when a field or a line is added,
//! renamed, removed or redocumented without regenerating it; a unit test below serializes a
//! result object and checks its keys against the page's.

use super::configuration::anchor;
use super::rust_items::{Field, Item, ItemBody, TypeName, VariantShape, read_items};

/// Where the page goes, relative to the repository.
pub(crate) const PATH: &str = "docs/reference/json-output.md";

/// The types of `--json` and stream-json.
const SCHEMA_SOURCE: &str = include_str!("../output/schema.rs");

/// The types of `pincer exec --json`.
const CODEX_SOURCE: &str = include_str!("../output/codex.rs");

/// The prose before the tables.
const INTRODUCTION: &str = include_str!("json_output.md");

/// The result object's type.
const RESULT: &str = "RunResult";

/// The type of every stream-json line but the last.
const STREAM_LINE: &str = "Line";

/// The type of every codex JSONL line.
const CODEX_LINE: &str = "ThreadEvent";

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

struct Page<'a> {
    items: &'a [Item],
    /// Types whose section is due, in the order they were first named.
    queued: Vec<String>,
    problems: Vec<String>,
}

impl Page<'_> {
    fn item(&self, name: &str) -> Option<&Item> {
        self.items.iter().find(|item| item.name == name)
    }

    /// A link to the section of `name`, queuing it.
    fn link(&mut self, name: &str) -> String {
        if !self.queued.iter().any(|queued| queued == name) {
            self.queued.push(name.to_owned());
        }
        format!("[{name}](#{})", anchor(name))
    }

    /// A field's type in words, with links to the sections of the types it names.
    fn type_text(&mut self, type_name: &TypeName) -> String {
        let argument = |index: usize| type_name.arguments.get(index).cloned();
        match (type_name.name.as_str(), argument(0), argument(1)) {
            ("Option", Some(inner), _) => self.type_text(&inner),
            ("Vec", Some(inner), _) => format!("array of {}", self.type_text(&inner)),
            ("BTreeMap" | "HashMap", Some(_), Some(value)) => {
                format!("object of {}", self.type_text(&value))
            }
            ("String", _, _) => "string".to_owned(),
            ("bool", _, _) => "boolean".to_owned(),
            ("u8" | "u16" | "u32" | "u64" | "usize" | "i32" | "i64", _, _) => "integer".to_owned(),
            ("f32" | "f64", _, _) => "number".to_owned(),
            ("Value", _, _) => "any JSON".to_owned(),
            (name, _, _) => match self.item(name).cloned() {
                Some(Item {
                    body: ItemBody::Word(word),
                    ..
                }) => format!("`\"{word}\"`"),
                Some(Item {
                    body: ItemBody::Struct(_),
                    ..
                }) => format!("object: {}", self.link(name)),
                Some(Item {
                    body: ItemBody::Enum(_),
                    serde,
                    ..
                }) => match serde.tag {
                    Some(tag) => format!("object by `{tag}`: {}", self.link(name)),
                    None if serde.untagged => self.link(name),
                    None => format!("string: {}", self.link(name)),
                },
                None => {
                    self.problems
                        .push(format!("the type {name} is not declared in the files read"));
                    format!("`{name}`")
                }
            },
        }
    }

    /// The rows of `fields`, keys named under `rename_all`.
    fn rows(&mut self, fields: &[Field], rename_all: Option<&str>) -> Vec<FieldRow> {
        let mut rows = Vec::new();
        for field in fields {
            let type_name = TypeName::parse(&field.type_text);
            if field.serde.flatten {
                let link = self.link(&type_name.name);
                rows.push(FieldRow {
                    key: String::new(),
                    type_text: format!("the fields of {link}"),
                    presence: "always",
                    meaning: field.doc.clone(),
                });
                continue;
            }
            let presence = match field.serde.skip_serializing_if.as_deref() {
                Some("Option::is_none") => "when set",
                Some(_) => "when not empty",
                None if type_name.name == "Option" => "always, may be null",
                None => "always",
            };
            rows.push(FieldRow {
                key: field.key(rename_all),
                type_text: self.type_text(&type_name),
                presence,
                meaning: field.doc.clone(),
            });
        }
        rows
    }

    /// The tables of the lines of enum `name`, each after a heading of its tag words: a
    /// variant holding a tagged enum of its own (`system` lines by `subtype`) gives one table
    /// per inner variant.
    fn line_tables(
        &mut self,
        name: &str,
        level: &str,
        tags: &[(String, String)],
        page: &mut String,
    ) {
        let Some(item) = self.item(name).cloned() else {
            self.problems.push(format!("no type {name}"));
            return;
        };
        let ItemBody::Enum(variants) = &item.body else {
            self.problems.push(format!("{name} is not an enum"));
            return;
        };
        let Some(tag) = item.serde.tag.clone() else {
            self.problems
                .push(format!("{name} is not internally tagged"));
            return;
        };
        for variant in variants {
            let mut tags = tags.to_vec();
            tags.push((tag.clone(), variant.word(item.serde.rename_all.as_deref())));
            let fields = match &variant.shape {
                VariantShape::Unit => Vec::new(),
                VariantShape::Struct(fields) => fields.clone(),
                VariantShape::Tuple(inner) => {
                    let inner = TypeName::parse(inner).name;
                    match self.item(&inner).map(|inner| inner.body.clone()) {
                        Some(ItemBody::Enum(_)) => {
                            self.line_tables(&inner, level, &tags, page);
                            continue;
                        }
                        Some(ItemBody::Struct(fields)) => fields,
                        _ => {
                            self.problems
                                .push(format!("{name}::{} holds {inner}", variant.name));
                            continue;
                        }
                    }
                }
            };
            let words: Vec<String> = tags.iter().map(|(_, word)| format!("`{word}`")).collect();
            // Below an object's own heading, the object's name keeps the title unique (`text`
            // is a block of several).
            let heading = if level == "###" {
                words.join(" / ")
            } else {
                format!("{name}: {}", words.join(" / "))
            };
            page.push_str(&format!("\n{level} {heading}\n\n"));
            if !variant.doc.is_empty() {
                page.push_str(&format!("{}\n\n", variant.doc));
            }
            let inner_doc = match &variant.shape {
                VariantShape::Tuple(inner) => self
                    .item(&TypeName::parse(inner).name)
                    .map(|inner| inner.doc.clone())
                    .unwrap_or_default(),
                _ => String::new(),
            };
            let inner_doc = without_leading_name(&inner_doc);
            if !inner_doc.is_empty() && inner_doc != variant.doc {
                page.push_str(&format!("{inner_doc}\n\n"));
            }
            let mut rows: Vec<FieldRow> = tags
                .iter()
                .map(|(key, word)| FieldRow {
                    key: key.clone(),
                    type_text: format!("`\"{word}\"`"),
                    presence: "always",
                    meaning: String::new(),
                })
                .collect();
            // Fields of a struct variant follow no `rename_all` of the enum, which names variants.
            rows.extend(self.rows(&fields, None));
            push_table(page, &rows);
        }
    }

    /// The section of one queued type.
    fn object_section(&mut self, name: &str, page: &mut String) {
        let Some(item) = self.item(name).cloned() else {
            return;
        };
        page.push_str(&format!("\n### {name}\n\n"));
        if !item.doc.is_empty() {
            page.push_str(&format!("{}\n\n", item.doc));
        }
        match &item.body {
            ItemBody::Struct(fields) => {
                let rows = self.rows(fields, item.serde.rename_all.as_deref());
                push_table(page, &rows);
            }
            ItemBody::Enum(_) if item.serde.tag.is_some() => {
                self.line_tables(name, "####", &[], page);
            }
            ItemBody::Enum(variants) if item.serde.untagged => {
                page.push_str("One of:\n\n");
                for variant in variants {
                    let text = match &variant.shape {
                        VariantShape::Tuple(inner) => self.type_text(&TypeName::parse(inner)),
                        _ => variant.name.clone(),
                    };
                    page.push_str(&format!("- {text}: {}\n", variant.doc));
                }
            }
            ItemBody::Enum(variants) => {
                page.push_str("| value | meaning |\n|---|---|\n");
                for variant in variants {
                    page.push_str(&format!(
                        "| `\"{}\"` | {} |\n",
                        variant.word(item.serde.rename_all.as_deref()),
                        cell(&variant.doc)
                    ));
                }
            }
            ItemBody::Word(_) => {}
        }
    }
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
        Some(after) => {
            let mut characters = after.trim().chars();
            match characters.next() {
                Some(first) => first.to_uppercase().chain(characters).collect(),
                None => String::new(),
            }
        }
        None => doc.to_owned(),
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

/// Text made safe for a table cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

/// The types of both files, and the lines they could not be read at.
fn items() -> (Vec<Item>, Vec<String>) {
    let mut items = Vec::new();
    let mut problems = Vec::new();
    for (file, source) in [
        ("src/output/schema.rs", SCHEMA_SOURCE),
        ("src/output/codex.rs", CODEX_SOURCE),
    ] {
        let (read, unread) = read_items(source);
        items.extend(read);
        problems.extend(unread.iter().map(|problem| {
            format!(
                "{file} line {}: cannot read {:?}",
                problem.line, problem.text
            )
        }));
    }
    (items, problems)
}

/// The page, and what could not be documented (empty for a sound build).
pub(crate) fn render_checked() -> (String, Vec<String>) {
    let (items, problems) = items();
    let mut page_state = Page {
        items: &items,
        queued: Vec::new(),
        problems,
    };
    let mut page = String::from(
        "<!-- Generated by `cargo run -q -- generate-docs` from src/docs/json_output.md and the \
         types of src/output/schema.rs and src/output/codex.rs; do not edit. -->\n\n",
    );
    page.push_str(INTRODUCTION);

    page.push_str("\n## The result object\n\n");
    if let Some(result) = page_state.item(RESULT).cloned()
        && let ItemBody::Struct(fields) = &result.body
    {
        page.push_str(&format!("{}\n\n", result.doc));
        let rows = page_state.rows(fields, result.serde.rename_all.as_deref());
        push_table(&mut page, &rows);
    } else {
        page_state.problems.push(format!("no struct {RESULT}"));
    }

    page.push_str(
        "\n## stream-json lines\n\nEvery line but the last, which is the \
         [result object](#the-result-object), by its `type` (and `subtype`).\n",
    );
    page_state.line_tables(STREAM_LINE, "###", &[], &mut page);

    page.push_str(
        "\n## Codex JSONL lines\n\nWhat `pincer exec --json` prints, one event a line, by its \
         `type`.\n",
    );
    page_state.line_tables(CODEX_LINE, "###", &[], &mut page);

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
    while page.contains("\n\n\n") {
        page = page.replace("\n\n\n", "\n\n");
    }
    (page, problems)
}

/// The page.
pub(crate) fn render() -> String {
    render_checked().0
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::output::codex::ThreadEvent;
    use crate::output::schema::{ModelUsage, ResultSubtype, RunResult};

    #[test]
    fn every_type_of_the_json_output_is_read_and_named() {
        let (page, problems) = render_checked();
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
        let (page, _) = render_checked();
        let mut seen = BTreeSet::new();
        for line in page.lines().filter(|line| line.starts_with('#')) {
            assert!(seen.insert(line), "{line} twice");
        }
    }

    /// The keys the page lists for struct `name`.
    fn documented_keys(name: &str) -> BTreeSet<String> {
        let (items, _) = items();
        let item = items.iter().find(|item| item.name == name).unwrap();
        let ItemBody::Struct(fields) = &item.body else {
            panic!("{name}")
        };
        fields
            .iter()
            .map(|field| field.key(item.serde.rename_all.as_deref()))
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
        let result = RunResult::early_error(ResultSubtype::ErrorTimeout, "timeout", "late", 5);
        let written = serialized_keys(&result);
        let (items, _) = items();
        let mut page = Page {
            items: &items,
            queued: Vec::new(),
            problems: Vec::new(),
        };
        let item = page.item(RESULT).cloned().unwrap();
        let ItemBody::Struct(fields) = &item.body else {
            panic!("{RESULT}")
        };
        let rows = page.rows(fields, None);
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
        let (page, _) = render_checked();
        assert!(page.contains("### `thread.started`"));
        assert!(page.contains("| `thread_id` | string | always |"));
    }
}
