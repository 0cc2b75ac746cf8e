//! A reader of the serde type declarations of one Rust source file, for the reference pages
//! generated from `config/file.rs` and `output/schema.rs`.
//!
//! It reads what rustfmt writes and nothing more general: top-level `struct`s and `enum`s whose
//! derive list names `Serialize` or `Deserialize`, their `///` comments, their `#[serde(...)]`
//! attributes, and the `word!` constants of `output/schema.rs`. It is strict on purpose: a line
//! in a type's body that it cannot place is a [`ReadProblem`], so a field written in a shape it
//! does not know fails the reference's test instead of silently vanishing from the page.

/// The `#[serde(...)]` settings the reference pages need.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SerdeAttributes {
    /// `rename = "…"`.
    pub(crate) rename: Option<String>,
    /// `rename_all = "…"` of a container.
    pub(crate) rename_all: Option<String>,
    /// `tag = "…"`: an internally tagged enum.
    pub(crate) tag: Option<String>,
    /// `untagged`.
    pub(crate) untagged: bool,
    /// `default` (with or without a function): the key may be left out.
    pub(crate) default: bool,
    /// `skip_serializing_if = "…"`: the field is left out of the output when it holds nothing.
    pub(crate) skip_serializing_if: Option<String>,
    /// `flatten`.
    pub(crate) flatten: bool,
}

impl SerdeAttributes {
    /// Adds the settings of one `#[serde(...)]` attribute's inside.
    fn add(&mut self, inside: &str) {
        for part in split_outside_quotes(inside) {
            let (key, value) = match part.split_once('=') {
                Some((key, value)) => (key.trim(), Some(value.trim().trim_matches('"'))),
                None => (part.trim(), None),
            };
            let value = value.map(str::to_owned);
            match key {
                "rename" => self.rename = value,
                "rename_all" => self.rename_all = value,
                "tag" => self.tag = value,
                "untagged" => self.untagged = true,
                "default" => self.default = true,
                "skip_serializing_if" => self.skip_serializing_if = value,
                "flatten" => self.flatten = true,
                _ => {}
            }
        }
    }
}

/// A named field of a struct or of a struct variant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Field {
    /// The Rust name.
    pub(crate) name: String,
    /// Its `///` comment, lines joined with spaces.
    pub(crate) doc: String,
    /// Its serde settings.
    pub(crate) serde: SerdeAttributes,
    /// Its type as written (`Option<Vec<String>>`).
    pub(crate) type_text: String,
}

impl Field {
    /// The key serde reads and writes, given the container's `rename_all`.
    pub(crate) fn key(&self, rename_all: Option<&str>) -> String {
        match &self.serde.rename {
            Some(rename) => rename.clone(),
            None => rename_field(&self.name, rename_all),
        }
    }
}

/// What a variant holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum VariantShape {
    /// Nothing: `Name,`.
    Unit,
    /// One value: `Name(Type),`.
    Tuple(String),
    /// Named fields: `Name { … },` (`Name {},` has none).
    Struct(Vec<Field>),
}

/// A variant of an enum.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Variant {
    /// The Rust name.
    pub(crate) name: String,
    /// Its `///` comment.
    pub(crate) doc: String,
    /// Its serde settings.
    pub(crate) serde: SerdeAttributes,
    /// What it holds.
    pub(crate) shape: VariantShape,
}

impl Variant {
    /// The word serde writes for it, given the enum's `rename_all`.
    pub(crate) fn word(&self, rename_all: Option<&str>) -> String {
        match &self.serde.rename {
            Some(rename) => rename.clone(),
            None => rename_variant(&self.name, rename_all),
        }
    }
}

/// The body of an item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ItemBody {
    /// A struct with named fields.
    Struct(Vec<Field>),
    /// An enum.
    Enum(Vec<Variant>),
    /// A `word!` constant: one fixed string.
    Word(String),
}

/// A serde type declared at the top level of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Item {
    /// The type's name.
    pub(crate) name: String,
    /// Its `///` comment.
    pub(crate) doc: String,
    /// Its container settings.
    pub(crate) serde: SerdeAttributes,
    /// Its fields or variants.
    pub(crate) body: ItemBody,
}

/// A line the reader could not place, with its 1-based number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ReadProblem {
    /// The line number.
    pub(crate) line: usize,
    /// The line.
    pub(crate) text: String,
}

/// The serde items of `source`, in file order, and the lines of their bodies it could not place.
pub(crate) fn read_items(source: &str) -> (Vec<Item>, Vec<ReadProblem>) {
    let lines: Vec<&str> = source.lines().collect();
    let mut reader = Reader {
        lines: &lines,
        at: 0,
        problems: Vec::new(),
    };
    let mut items = Vec::new();
    let mut doc = Vec::new();
    let mut serde = SerdeAttributes::default();
    let mut serde_type = false;
    while let Some(line) = reader.next_line() {
        if let Some(text) = line.strip_prefix("///") {
            doc.push(text.trim().to_owned());
        } else if line.starts_with("#[derive(") {
            serde_type = line.contains("Serialize") || line.contains("Deserialize");
        } else if line.starts_with("#[serde(") {
            let attribute = reader.whole_attribute(line);
            serde.add(attribute_inside(&attribute));
        } else if line.starts_with("#[") {
            // Another attribute (`expect`, `cfg`): it does not change the shape.
        } else if let Some(rest) = line.strip_prefix("word!(") {
            if let Some(item) = reader.word(rest) {
                items.push(item);
            }
            doc.clear();
        } else if let Some((kind, name)) = item_start(line) {
            if !serde_type {
                // Not a serde type: its body is none of the reference's business.
                reader.skip_block();
                doc.clear();
                serde = SerdeAttributes::default();
                continue;
            }
            let body = match kind {
                "struct" => ItemBody::Struct(reader.fields(1)),
                _ => ItemBody::Enum(reader.variants()),
            };
            items.push(Item {
                name,
                doc: public_text(&doc.join(" ")),
                serde: std::mem::take(&mut serde),
                body,
            });
            doc.clear();
            serde = SerdeAttributes::default();
            serde_type = false;
        } else {
            if line.ends_with('{') {
                reader.skip_block();
            }
            doc.clear();
            serde = SerdeAttributes::default();
            serde_type = false;
        }
    }
    (items, reader.problems)
}

/// `pub struct Name {` / `pub(crate) enum Name {` → (`struct`, `Name`). Items that do not open a
/// brace on their line (unit and tuple structs) are not read.
fn item_start(line: &str) -> Option<(&'static str, String)> {
    let rest = line
        .strip_prefix("pub(crate) ")
        .or_else(|| line.strip_prefix("pub "))
        .unwrap_or(line);
    let (kind, rest) = if let Some(rest) = rest.strip_prefix("struct ") {
        ("struct", rest)
    } else if let Some(rest) = rest.strip_prefix("enum ") {
        ("enum", rest)
    } else {
        return None;
    };
    let name = rest.strip_suffix(" {")?;
    Some((kind, name.trim().to_owned()))
}

struct Reader<'a> {
    lines: &'a [&'a str],
    at: usize,
    problems: Vec<ReadProblem>,
}

impl<'a> Reader<'a> {
    fn next_line(&mut self) -> Option<&'a str> {
        let line = self.lines.get(self.at)?;
        self.at += 1;
        Some(line)
    }

    fn problem(&mut self, text: &str) {
        self.problems.push(ReadProblem {
            line: self.at,
            text: text.to_owned(),
        });
    }

    /// Skips to the line closing a block opened at the top level.
    fn skip_block(&mut self) {
        while let Some(line) = self.next_line() {
            if line.starts_with('}') {
                return;
            }
        }
    }

    /// An attribute that rustfmt may have broken over several lines, joined.
    fn whole_attribute(&mut self, first: &str) -> String {
        let mut attribute = first.trim().to_owned();
        while !attribute.ends_with(']') {
            let Some(line) = self.next_line() else { break };
            attribute.push_str(line.trim());
        }
        attribute
    }

    /// `/// doc` then `Name = "text");` (the rest of `word!(` on the first line).
    fn word(&mut self, first: &str) -> Option<Item> {
        let doc = first
            .trim()
            .strip_prefix("///")
            .unwrap_or_default()
            .trim()
            .to_owned();
        let line = self.next_line()?.trim().to_owned();
        let parsed = line.strip_suffix(");").and_then(|rest| {
            let (name, text) = rest.split_once('=')?;
            Some((
                name.trim().to_owned(),
                text.trim().trim_matches('"').to_owned(),
            ))
        });
        let Some((name, text)) = parsed else {
            self.problem(&line);
            return None;
        };
        Some(Item {
            name,
            doc,
            serde: SerdeAttributes::default(),
            body: ItemBody::Word(text),
        })
    }

    /// The named fields of a body indented `depth` levels, up to its closing brace.
    fn fields(&mut self, depth: usize) -> Vec<Field> {
        let indent = "    ".repeat(depth);
        let closing = "    ".repeat(depth - 1);
        let mut fields = Vec::new();
        let mut doc = Vec::new();
        let mut serde = SerdeAttributes::default();
        while let Some(line) = self.next_line() {
            let Some(text) = line.strip_prefix(indent.as_str()) else {
                if line.trim().is_empty() {
                    continue;
                }
                if line.starts_with(&format!("{closing}}}")) {
                    break;
                }
                self.problem(line);
                continue;
            };
            if let Some(comment) = text.strip_prefix("///") {
                doc.push(comment.trim().to_owned());
            } else if text.starts_with("#[serde(") {
                let attribute = self.whole_attribute(text);
                serde.add(attribute_inside(&attribute));
            } else if text.starts_with("#[") || text.starts_with("//") {
            } else if let Some((name, type_text)) = field_line(text) {
                let mut type_text = type_text.to_owned();
                while !type_text.ends_with(',') {
                    let Some(more) = self.next_line() else { break };
                    type_text.push_str(more.trim());
                }
                fields.push(Field {
                    name: name.to_owned(),
                    doc: public_text(&doc.join(" ")),
                    serde: std::mem::take(&mut serde),
                    type_text: type_text.trim_end_matches(',').trim().to_owned(),
                });
                doc.clear();
            } else {
                self.problem(line);
            }
        }
        fields
    }

    /// The variants of an enum's body, up to its closing brace.
    fn variants(&mut self) -> Vec<Variant> {
        let mut variants = Vec::new();
        let mut doc = Vec::new();
        let mut serde = SerdeAttributes::default();
        while let Some(line) = self.next_line() {
            if line.starts_with('}') {
                break;
            }
            let text = line.trim();
            if text.is_empty() || text.starts_with("//") && !text.starts_with("///") {
                continue;
            }
            if let Some(comment) = text.strip_prefix("///") {
                doc.push(comment.trim().to_owned());
                continue;
            }
            if text.starts_with("#[serde(") {
                let attribute = self.whole_attribute(text);
                serde.add(attribute_inside(&attribute));
                continue;
            }
            if text.starts_with("#[") {
                continue;
            }
            let shape = if let Some(name) = text.strip_suffix(" {") {
                Some((name, VariantShape::Struct(self.fields(2))))
            } else if let Some(name) = text.strip_suffix(" {},") {
                Some((name, VariantShape::Struct(Vec::new())))
            } else if let Some(rest) = text.strip_suffix("),") {
                rest.split_once('(')
                    .map(|(name, inner)| (name, VariantShape::Tuple(inner.to_owned())))
            } else {
                text.strip_suffix(',')
                    .map(|name| (name, VariantShape::Unit))
            };
            match shape {
                Some((name, shape)) if is_identifier(name) => variants.push(Variant {
                    name: name.to_owned(),
                    doc: public_text(&doc.join(" ")),
                    serde: std::mem::take(&mut serde),
                    shape,
                }),
                _ => self.problem(line),
            }
            doc.clear();
        }
        variants
    }
}

/// `pub name: Type,` or `name: Type,` → (`name`, `Type,`); a type rustfmt moved to the next
/// line comes back empty, and the caller reads on. A raw name (`r#type`) is the name serde sees.
fn field_line(text: &str) -> Option<(&str, &str)> {
    let text = text
        .strip_prefix("pub(crate) ")
        .or_else(|| text.strip_prefix("pub "))
        .unwrap_or(text);
    let (name, type_text) = text.split_once(':')?;
    let name = name.strip_prefix("r#").unwrap_or(name);
    is_identifier(name).then_some((name, type_text.trim()))
}

fn is_identifier(text: &str) -> bool {
    !text.is_empty()
        && text
            .chars()
            .all(|character| character.is_ascii_alphanumeric() || character == '_')
}

/// `#[serde(a, b = "c")]` → `a, b = "c"`.
fn attribute_inside(attribute: &str) -> &str {
    attribute
        .trim()
        .strip_prefix("#[serde(")
        .and_then(|rest| rest.strip_suffix(")]"))
        .unwrap_or_default()
}

fn split_outside_quotes(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut quoted = false;
    let mut start = 0;
    for (index, character) in text.char_indices() {
        match character {
            '"' => quoted = !quoted,
            ',' if !quoted => {
                parts.push(&text[start..index]);
                start = index + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts.retain(|part| !part.trim().is_empty());
    parts
}

/// A snake_case field name under a container's `rename_all`.
fn rename_field(name: &str, rename_all: Option<&str>) -> String {
    match rename_all {
        Some("camelCase") => {
            let mut renamed = String::new();
            let mut upper = false;
            for character in name.chars() {
                if character == '_' {
                    upper = true;
                } else if upper {
                    renamed.push(character.to_ascii_uppercase());
                    upper = false;
                } else {
                    renamed.push(character);
                }
            }
            renamed
        }
        Some("kebab-case") => name.replace('_', "-"),
        Some("UPPERCASE" | "SCREAMING_SNAKE_CASE") => name.to_ascii_uppercase(),
        _ => name.to_owned(),
    }
}

/// A PascalCase variant name under an enum's `rename_all`.
fn rename_variant(name: &str, rename_all: Option<&str>) -> String {
    let words = || {
        let mut words: Vec<String> = Vec::new();
        for character in name.chars() {
            if character.is_ascii_uppercase() || words.is_empty() {
                words.push(String::new());
            }
            if let Some(word) = words.last_mut() {
                word.push(character.to_ascii_lowercase());
            }
        }
        words
    };
    match rename_all {
        Some("snake_case") => words().join("_"),
        Some("kebab-case") => words().join("-"),
        Some("lowercase") => name.to_ascii_lowercase(),
        Some("camelCase") => {
            let mut renamed = name.to_owned();
            if let Some(first) = renamed.get_mut(..1) {
                first.make_ascii_lowercase();
            }
            renamed
        }
        _ => name.to_owned(),
    }
}

/// A type as written, as a tree: `BTreeMap<String, Vec<u64>>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TypeName {
    /// The last segment of its path (`PathBuf` for `std::path::PathBuf`).
    pub(crate) name: String,
    /// Its generic arguments.
    pub(crate) arguments: Vec<TypeName>,
}

impl TypeName {
    /// Reads `text`; what is not a path with generic arguments comes back whole as a name.
    pub(crate) fn parse(text: &str) -> TypeName {
        let text = text.trim();
        let Some((head, rest)) = text.split_once('<') else {
            return TypeName {
                name: last_segment(text),
                arguments: Vec::new(),
            };
        };
        let inside = rest.strip_suffix('>').unwrap_or(rest);
        let mut arguments = Vec::new();
        let mut depth = 0;
        let mut start = 0;
        for (index, character) in inside.char_indices() {
            match character {
                '<' => depth += 1,
                '>' => depth -= 1,
                ',' if depth == 0 => {
                    arguments.push(TypeName::parse(&inside[start..index]));
                    start = index + 1;
                }
                _ => {}
            }
        }
        if !inside[start..].trim().is_empty() {
            arguments.push(TypeName::parse(&inside[start..]));
        }
        TypeName {
            name: last_segment(head),
            arguments,
        }
    }
}

/// `text` without its references to the specification, which is not published with pincer:
/// ` (SPEC §10)`, `, SPEC §8)` and ` of SPEC §10` go, their sentences stay.
pub(crate) fn without_spec_references(text: &str) -> String {
    const MARK: &str = "SPEC §";
    let mut text = text.to_owned();
    while let Some(start) = text.find(MARK) {
        let number_length = text[start + MARK.len()..]
            .find(|character: char| !(character.is_ascii_digit() || character == '.'))
            .unwrap_or(text.len() - start - MARK.len());
        let mut end = start + MARK.len() + number_length;
        // A sentence's full stop right after the number is not part of it.
        if text[..end].ends_with('.') {
            end -= 1;
        }
        let before = &text[..start];
        let after = &text[end..];
        let (cut_start, cut_end) = if before.ends_with(" (") && after.starts_with(')') {
            (start - 2, end + 1)
        } else if before.ends_with('(') && after.starts_with(')') {
            (start - 1, end + 1)
        } else if before.ends_with(", ") && after.starts_with(')') {
            (start - 2, end)
        } else if before.ends_with(" of ") {
            (start - 4, end)
        } else {
            (start, end)
        };
        text.replace_range(cut_start..cut_end, "");
    }
    text
}

/// A comment as a page shows it: without references to the specification and with rustdoc's
/// links (`` [`Type::field`] ``) as plain code naming the last part (`` `field` ``).
fn public_text(doc: &str) -> String {
    let mut text = without_spec_references(doc);
    while let Some(start) = text.find("[`") {
        let Some(length) = text[start + 2..].find("`]") else {
            break;
        };
        let inside = &text[start + 2..start + 2 + length];
        let name = inside.rsplit("::").next().unwrap_or(inside).to_owned();
        text.replace_range(start..start + 2 + length + 2, &format!("`{name}`"));
    }
    text
}

fn last_segment(path: &str) -> String {
    path.rsplit("::").next().unwrap_or(path).trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = r#"
/// A config.
/// Two lines.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Sample {
    /// The count.
    pub input_tokens: u64,
    /// Renamed.
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub map: BTreeMap<String, Vec<std::path::PathBuf>>,
}

/// Not serde.
struct Plain {
    field: u8,
}

word!(/// `"message"`.
    MessageWord = "message");

/// Tagged.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum Event {
    /// A unit.
    TurnStarted,
    /// A tuple.
    System(SystemLine),
    /// A struct variant.
    #[serde(rename = "item.done")]
    ItemDone {
        /// The id.
        id: String,
    },
    /// Empty.
    MessageStop {},
}
"#;

    #[test]
    fn reads_structs_enums_words_and_their_serde_settings() {
        let (items, problems) = read_items(SOURCE);
        assert_eq!(problems, []);
        let names: Vec<&str> = items.iter().map(|item| item.name.as_str()).collect();
        assert_eq!(names, ["Sample", "MessageWord", "Event"]);
        let sample = &items[0];
        assert_eq!(sample.doc, "A config. Two lines.");
        let ItemBody::Struct(fields) = &sample.body else {
            panic!("{sample:?}")
        };
        let rename_all = sample.serde.rename_all.as_deref();
        let keys: Vec<String> = fields.iter().map(|field| field.key(rename_all)).collect();
        assert_eq!(keys, ["inputTokens", "type", "map"]);
        assert!(fields[1].serde.default);
        assert_eq!(
            fields[2].serde.skip_serializing_if.as_deref(),
            Some("BTreeMap::is_empty")
        );
        assert_eq!(items[1].body, ItemBody::Word("message".to_owned()));
        let event = &items[2];
        assert_eq!(event.serde.tag.as_deref(), Some("type"));
        let ItemBody::Enum(variants) = &event.body else {
            panic!("{event:?}")
        };
        let words: Vec<String> = variants
            .iter()
            .map(|variant| variant.word(event.serde.rename_all.as_deref()))
            .collect();
        assert_eq!(
            words,
            ["turn_started", "system", "item.done", "message_stop"]
        );
        assert_eq!(
            variants[1].shape,
            VariantShape::Tuple("SystemLine".to_owned())
        );
        assert!(matches!(&variants[2].shape, VariantShape::Struct(fields) if fields.len() == 1));
        assert_eq!(variants[3].shape, VariantShape::Struct(Vec::new()));
    }

    #[test]
    fn a_type_on_the_next_line_and_a_raw_name_are_read() {
        let source = "#[derive(Serialize)]\npub struct S {\n    pub r#type: String,\n    pub long:\n        \
                      BTreeMap<String, String>,\n}\n";
        let (items, problems) = read_items(source);
        assert_eq!(problems, []);
        let ItemBody::Struct(fields) = &items[0].body else {
            panic!("{items:?}")
        };
        assert_eq!(fields[0].key(None), "type");
        assert_eq!(fields[1].type_text, "BTreeMap<String, String>");
    }

    #[test]
    fn a_line_it_cannot_place_is_a_problem() {
        let source =
            "#[derive(Deserialize)]\npub struct S {\n    pub a: u8,\n    what is this\n}\n";
        let (_, problems) = read_items(source);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(problems[0].line, 4);
    }

    #[test]
    fn spec_references_are_left_out() {
        for (text, expected) in [
            ("Tool policy (SPEC §10).", "Tool policy."),
            (
                "Usage (the parts are disjoint, SPEC §8).",
                "Usage (the parts are disjoint).",
            ),
            (
                "outside the sandbox of SPEC §10. Default: true.",
                "outside the sandbox. Default: true.",
            ),
            (
                "`[hooks]`: per event (SPEC §14). Each",
                "`[hooks]`: per event. Each",
            ),
        ] {
            assert_eq!(without_spec_references(text), expected);
        }
    }

    #[test]
    fn rustdoc_links_become_plain_code() {
        assert_eq!(
            public_text("As in [`ApiRetryLine::discarded_partial`], see [`RunResult`]."),
            "As in `discarded_partial`, see `RunResult`."
        );
    }

    #[test]
    fn type_names_are_read_as_trees() {
        let parsed = TypeName::parse("Option<BTreeMap<String, Vec<std::path::PathBuf>>>");
        assert_eq!(parsed.name, "Option");
        let map = &parsed.arguments[0];
        assert_eq!(map.name, "BTreeMap");
        assert_eq!(map.arguments[0].name, "String");
        assert_eq!(map.arguments[1].arguments[0].name, "PathBuf");
    }
}
