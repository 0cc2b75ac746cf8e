//! The JSON Schemas of `config.toml` and of the JSON output, derived by schemars from the serde
//! types that parse and print them (`config/file.rs`, `output/schema.rs`, `output/codex.rs`),
//! their `///` comments as descriptions. They are committed under `docs/reference/schemas/` for
//! programs to validate against, and the reference pages (`configuration.rs`, `json_output.rs`)
//! are rendered from them, so the files and the pages cannot disagree.
//!
//! The config schema follows what the parser accepts (a key with a serde default is optional);
//! the output schemas follow what pincer prints (a key left out when empty is optional, an
//! `Option` printed as `null` is required and nullable).

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, SchemaGenerator};
use serde_json::{Map, Value, json};

use crate::config::ConfigFile;
use crate::output::codex::ThreadEvent;
use crate::output::schema::{Line, RunResult};

/// Where the schemas go, relative to the repository.
pub(crate) const DIRECTORY: &str = "docs/reference/schemas";

/// `config.toml`.
pub(crate) const CONFIG: &str = "config.schema.json";
/// The `--json` result object.
pub(crate) const RESULT: &str = "result.schema.json";
/// Any line of `--output-format stream-json`, the final result included.
pub(crate) const STREAM_JSON: &str = "stream-json.schema.json";
/// Any line of `pincer exec --json`.
pub(crate) const CODEX_EVENTS: &str = "codex-events.schema.json";

/// The schema of `config.toml`, as the parser reads it.
pub(crate) fn config() -> Value {
    let generator = SchemaSettings::draft2020_12().into_generator();
    public(
        generator.into_root_schema_for::<ConfigFile>().to_value(),
        "pincer config.toml",
    )
}

/// The schema of the `--json` result object (the last stream-json line too).
pub(crate) fn result() -> Value {
    public(printed::<RunResult>(), "pincer --json result")
}

/// The schema of every stream-json line: one of the [`Line`]s, or the final result.
pub(crate) fn stream_json() -> Value {
    let mut generator = printing_generator();
    let line = generator.subschema_for::<Line>();
    let result = generator.subschema_for::<RunResult>();
    let definitions: Map<String, Value> = generator.take_definitions(true);
    public(
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "description": "One line of `--output-format stream-json`: a line of the run, or the \
                            result object that ends it.",
            "oneOf": [line, result],
            "$defs": definitions,
        }),
        "pincer stream-json line",
    )
}

/// The schema of every `pincer exec --json` line.
pub(crate) fn codex_events() -> Value {
    public(printed::<ThreadEvent>(), "pincer exec --json event")
}

/// Every schema, derived once.
pub(crate) struct All {
    pub(crate) config: Value,
    pub(crate) result: Value,
    pub(crate) stream_json: Value,
    pub(crate) codex_events: Value,
}

impl All {
    pub(crate) fn derive() -> All {
        All {
            config: config(),
            result: result(),
            stream_json: stream_json(),
            codex_events: codex_events(),
        }
    }

    /// Every schema file: its name in [`DIRECTORY`] and its schema.
    pub(crate) fn files(&self) -> [(&'static str, &Value); 4] {
        [
            (CONFIG, &self.config),
            (RESULT, &self.result),
            (STREAM_JSON, &self.stream_json),
            (CODEX_EVENTS, &self.codex_events),
        ]
    }
}

/// A schema as committed: pretty JSON ending in a newline.
pub(crate) fn to_text(schema: &Value) -> String {
    let mut text = serde_json::to_string_pretty(schema).unwrap_or_default();
    text.push('\n');
    text
}

fn printing_generator() -> SchemaGenerator {
    SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
}

fn printed<T: JsonSchema>() -> Value {
    printing_generator().into_root_schema_for::<T>().to_value()
}

/// `schema` as published: titled `title` (rather than the Rust type's name), `$schema`, title
/// and description first and the definitions last, and every description as readers outside the
/// code see it: its comment's lines joined with spaces, without references to the
/// specification, rustdoc links as plain code.
fn public(mut schema: Value, title: &str) -> Value {
    tidy_descriptions(&mut schema, false);
    let Value::Object(mut fields) = schema else {
        return schema;
    };
    let mut ordered = Map::new();
    fields.insert("title".to_owned(), Value::String(title.to_owned()));
    for key in ["$schema", "title", "description"] {
        if let Some(value) = fields.remove(key) {
            ordered.insert(key.to_owned(), value);
        }
    }
    let definitions = fields.remove("$defs");
    ordered.extend(fields);
    if let Some(definitions) = definitions {
        ordered.insert("$defs".to_owned(), definitions);
    }
    Value::Object(ordered)
}

/// Tidies the `description` keywords of `schema`; `names` is true for a map whose keys are
/// property or definition names, where `description` is a name, not a keyword.
fn tidy_descriptions(schema: &mut Value, names: bool) {
    match schema {
        Value::Object(fields) => {
            for (key, value) in fields.iter_mut() {
                match (key.as_str(), value) {
                    ("description", Value::String(text)) if !names => *text = public_text(text),
                    ("properties" | "$defs", value) if !names => tidy_descriptions(value, true),
                    (_, value) => tidy_descriptions(value, false),
                }
            }
        }
        Value::Array(elements) => {
            for element in elements {
                tidy_descriptions(element, false);
            }
        }
        _ => {}
    }
}

/// A comment as a page shows it: lines joined, without references to the specification and
/// with rustdoc's links (`` [`Type::field`] ``) as plain code naming the last part (`` `field` ``).
pub(crate) fn public_text(doc: &str) -> String {
    let joined: Vec<&str> = doc.split_whitespace().collect();
    let mut text = without_spec_references(&joined.join(" "));
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

/// `text` without its references to the specification, which is not published with pincer:
/// ` (SPEC §10)`, `, SPEC §8)` and ` of SPEC §10` go, their sentences stay.
fn without_spec_references(text: &str) -> String {
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

/// Reading a generated schema: its definitions, and what a subschema says.
pub(crate) struct Reader<'a> {
    definitions: &'a Map<String, Value>,
}

/// What is left of a subschema once `null` is taken out of it.
pub(crate) struct NonNull {
    /// The subschema without `null`.
    pub(crate) schema: Value,
    /// Whether it allowed `null`.
    pub(crate) nullable: bool,
}

impl<'a> Reader<'a> {
    /// A reader of `root`, whose definitions are under `$defs`.
    pub(crate) fn new(root: &'a Value) -> Reader<'a> {
        static EMPTY: std::sync::LazyLock<Map<String, Value>> = std::sync::LazyLock::new(Map::new);
        Reader {
            definitions: root
                .get("$defs")
                .and_then(Value::as_object)
                .unwrap_or(&EMPTY),
        }
    }

    /// The definition called `name`.
    pub(crate) fn definition(&self, name: &str) -> Option<&'a Value> {
        self.definitions.get(name)
    }

    /// The subschema itself, or the definition its `$ref` names.
    pub(crate) fn resolve<'b>(&self, schema: &'b Value) -> &'b Value
    where
        'a: 'b,
    {
        reference_name(schema)
            .and_then(|name| self.definition(name))
            .unwrap_or(schema)
    }
}

/// The name of the definition a `$ref` points at (`#/$defs/Usage` → `Usage`).
pub(crate) fn reference_name(schema: &Value) -> Option<&str> {
    schema.get("$ref")?.as_str()?.strip_prefix("#/$defs/")
}

/// `schema` without `null`: `["string", "null"]` → `"string"`, `anyOf: [X, null]` → X (with the
/// field's own description kept).
pub(crate) fn without_null(schema: &Value) -> NonNull {
    let mut schema = schema.clone();
    let mut nullable = false;
    if let Some(Value::Array(types)) = schema.get("type") {
        let others: Vec<Value> = types
            .iter()
            .filter(|kind| kind.as_str() != Some("null"))
            .cloned()
            .collect();
        if others.len() < types.len() {
            nullable = true;
            schema["type"] = match <[Value; 1]>::try_from(others) {
                Ok([single]) => single,
                Err(others) => Value::Array(others),
            };
        }
    }
    if let Some(Value::Array(choices)) = schema.get("anyOf") {
        let is_null = |choice: &Value| choice.get("type").and_then(Value::as_str) == Some("null");
        if let [first, second] = &choices[..]
            && (is_null(first) || is_null(second))
        {
            nullable = true;
            let mut kept = if is_null(first) { second } else { first }.clone();
            if let (Value::Object(kept), Value::Object(outer)) = (&mut kept, &schema) {
                for (key, value) in outer {
                    if key != "anyOf" {
                        kept.insert(key.clone(), value.clone());
                    }
                }
            }
            schema = kept;
        }
    }
    NonNull { schema, nullable }
}

/// The words of a string enumeration (`oneOf` of `const`s, or `enum`), each with its
/// description; `None` when `schema` is not one.
pub(crate) fn words(schema: &Value) -> Option<Vec<(String, String)>> {
    if let Some(Value::Array(values)) = schema.get("enum") {
        return values
            .iter()
            .map(|value| Some((value.as_str()?.to_owned(), String::new())))
            .collect();
    }
    let Some(Value::Array(choices)) = schema.get("oneOf") else {
        return None;
    };
    choices
        .iter()
        .map(|choice| {
            let word = choice.get("const")?.as_str()?.to_owned();
            Some((word, description(choice)))
        })
        .collect()
}

/// A subschema's description, or nothing.
pub(crate) fn description(schema: &Value) -> String {
    schema
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// The name of a scalar type, for a page: `string` (`path` for a file name), `integer`,
/// `number`, `boolean`.
pub(crate) fn scalar_name(schema: &Value) -> Option<&'static str> {
    match schema.get("type")?.as_str()? {
        "string" if schema.get("format").and_then(Value::as_str) == Some("path") => Some("path"),
        "string" => Some("string"),
        "integer" => Some("integer"),
        "number" => Some("number"),
        "boolean" => Some("boolean"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn descriptions_are_one_line_with_rustdoc_links_as_plain_code() {
        assert_eq!(
            public_text("As in [`ApiRetryLine::discarded_partial`],\nsee [`RunResult`]."),
            "As in `discarded_partial`, see `RunResult`."
        );
    }

    #[test]
    fn null_is_taken_out_of_a_type_list_and_of_an_any_of() {
        let listed = without_null(&json!({"type": ["integer", "null"]}));
        assert!(listed.nullable);
        assert_eq!(listed.schema, json!({"type": "integer"}));
        let referenced = without_null(&json!({
            "anyOf": [{"$ref": "#/$defs/Level"}, {"type": "null"}],
            "description": "The level."
        }));
        assert!(referenced.nullable);
        assert_eq!(
            referenced.schema,
            json!({"$ref": "#/$defs/Level", "description": "The level."})
        );
    }

    #[test]
    fn every_schema_is_a_valid_json_schema() {
        for (name, schema) in All::derive().files() {
            assert!(
                jsonschema::meta::is_valid(schema),
                "{name} is not a valid JSON Schema"
            );
        }
    }
}
