//! The user's JSON Schema as each API's own JSON mode takes it (SPEC §3.4). Pure.
//!
//! Every API enforces a subset of JSON Schema, and refuses a request (400) for keywords outside
//! it. pincer validates every answer against the schema as given, so a keyword that only
//! narrows what is valid can be left out of what the API sees: the API then constrains less,
//! and pincer's validation still rejects what the keyword forbids. A rewrite that would *widen*
//! or *change* what is valid — forbidding extra properties the schema allows, a free-form
//! object — cannot be done; then the API's mode is not used as such.
//!
//! - OpenAI (Responses `text.format`, Chat `response_format`), strict mode (guide: "Structured
//!   Outputs", supported schemas): the root is an object; every object has
//!   `additionalProperties: false` and lists every property in `required`, an optional one made
//!   nullable (pincer takes an optional property answered as `null` as left out); no `allOf`,
//!   `patternProperties` or tuple items; string formats from a short list. A schema that cannot
//!   be made strict is sent with `strict: false` and a warning.
//! - Anthropic (`output_config.format`, docs: "Structured outputs", JSON Schema limitations):
//!   every object `additionalProperties: false`; no numeric bounds, string lengths or array
//!   bounds beyond `minItems` 0 or 1; a short list of formats. A schema that needs more falls
//!   back to the final-answer tool.
//! - Gemini (`responseJsonSchema`): the schema as given, without `$schema`.

use serde_json::{Map, Value, json};

use super::NAME;
use crate::conversation::ApiKind;
use crate::provider::OutputFormat;

/// Keywords that only say which schema this is or annotate it: never sent to an API's JSON
/// mode (Gemini and OpenAI refuse `$schema`; strict mode refuses `default`).
const METADATA: [&str; 4] = ["$schema", "$id", "$comment", "default"];

/// Keywords that only narrow what is valid and that neither OpenAI's strict mode nor
/// Anthropic's JSON outputs take: left out (pincer's validation enforces them).
const NARROWING: [&str; 20] = [
    "minLength",
    "maxLength",
    "uniqueItems",
    "contains",
    "minContains",
    "maxContains",
    "minProperties",
    "maxProperties",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "not",
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "contentEncoding",
    "contentMediaType",
];

/// Numeric and array bounds Anthropic does not take (OpenAI's strict mode does).
const ANTHROPIC_NARROWING: [&str; 6] = [
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "maxItems",
];

/// String formats OpenAI's strict mode supports.
const OPENAI_FORMATS: [&str; 9] = [
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// String formats Anthropic's JSON outputs support.
const ANTHROPIC_FORMATS: [&str; 10] = [
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "uri",
    "ipv4",
    "ipv6",
    "uuid",
];

/// What one API's JSON mode takes.
struct Rules {
    /// Every property listed in `required`, the optional ones made nullable (OpenAI strict).
    all_required: bool,
    /// The root must be an object schema without a union at its top (OpenAI strict).
    root_object: bool,
    /// Narrowing keywords left out besides [`NARROWING`].
    narrowing: &'static [&'static str],
    /// The string formats kept; others are left out.
    formats: &'static [&'static str],
    /// Larger `minItems` are left out (Anthropic takes 0 and 1).
    min_items_cap: Option<u64>,
    /// Whether `allOf` is taken.
    all_of: bool,
}

const OPENAI_STRICT: Rules = Rules {
    all_required: true,
    root_object: true,
    narrowing: &[],
    formats: &OPENAI_FORMATS,
    min_items_cap: None,
    all_of: false,
};

const ANTHROPIC: Rules = Rules {
    all_required: false,
    root_object: false,
    narrowing: &ANTHROPIC_NARROWING,
    formats: &ANTHROPIC_FORMATS,
    min_items_cap: Some(1),
    all_of: true,
};

/// The format for `api`'s own JSON mode, and a warning when it is weaker than asked (OpenAI
/// without `strict`). `Err` says why the API's mode cannot take the schema at all.
pub fn native_format(
    api: ApiKind,
    schema: &Value,
) -> Result<(OutputFormat, Option<String>), NotStrict> {
    let format = |schema: Value, strict: bool| OutputFormat {
        name: NAME.to_owned(),
        schema,
        strict,
    };
    match api {
        ApiKind::OpenAi | ApiKind::OpenAiChat => Ok(match openai_strict(schema) {
            Ok(strict) => (format(strict, true), None),
            Err(reason) => (
                format(without_metadata(schema), false),
                Some(format!(
                    "the JSON Schema cannot be made strict for OpenAI ({reason}); it is sent \
                     with strict: false, so the API does not enforce it (pincer still \
                     validates the answer)"
                )),
            ),
        }),
        ApiKind::Anthropic => {
            normalize(schema, &ANTHROPIC).map(|shaped| (format(shaped, false), None))
        }
        ApiKind::Google => Ok((format(without_metadata(schema), false), None)),
    }
}

/// The schema in OpenAI's strict form (also what codex's `--output-schema` needs), or why it
/// cannot be.
pub fn openai_strict(schema: &Value) -> Result<Value, NotStrict> {
    normalize(schema, &OPENAI_STRICT)
}

/// `schema` without [`METADATA`] at its root.
pub fn without_metadata(schema: &Value) -> Value {
    match schema {
        Value::Object(object) => Value::Object(
            object
                .iter()
                .filter(|(key, _)| !METADATA.contains(&key.as_str()))
                .map(|(key, value)| (key.clone(), value.clone()))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Why a schema has no form in an API's dialect.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotStrict {
    #[error("its root is not an object")]
    RootNotObject,
    #[error("an object without properties")]
    NoProperties,
    /// A keyword or shape the dialect lacks, and where: a JSON pointer-like path, empty for the
    /// root.
    #[error("{what} at {}", if path.is_empty() { "the root" } else { path })]
    Unsupported { what: String, path: String },
}

fn normalize(schema: &Value, rules: &Rules) -> Result<Value, NotStrict> {
    let shaped = node(schema, rules, "")?;
    if rules.root_object && (!is_object_schema(&shaped) || shaped.get("anyOf").is_some()) {
        return Err(NotStrict::RootNotObject);
    }
    Ok(shaped)
}

/// One schema node in the API's dialect; `path` names it in a reason.
fn node(schema: &Value, rules: &Rules, path: &str) -> Result<Value, NotStrict> {
    let at = |what: &str| NotStrict::Unsupported {
        what: what.to_owned(),
        path: path.to_owned(),
    };
    let Value::Object(object) = schema else {
        return Err(at("a boolean schema"));
    };
    let mut out = Map::new();
    for (key, value) in object {
        let key = key.as_str();
        if METADATA.contains(&key) || NARROWING.contains(&key) || rules.narrowing.contains(&key) {
            continue;
        }
        match key {
            "format"
                if value
                    .as_str()
                    .is_some_and(|format| !rules.formats.contains(&format)) => {}
            "minItems"
                if rules
                    .min_items_cap
                    .is_some_and(|cap| value.as_u64().is_some_and(|count| count > cap)) => {}
            "allOf" if !rules.all_of => return Err(at("allOf")),
            "patternProperties" => return Err(at("patternProperties")),
            "prefixItems" => return Err(at("tuple items (prefixItems)")),
            "additionalProperties" if value != &Value::Bool(false) => {
                return Err(at("additionalProperties other than false"));
            }
            "properties" | "$defs" | "definitions" => {
                let Value::Object(members) = value else {
                    return Err(at(key));
                };
                let mut shaped = Map::new();
                for (name, member) in members {
                    shaped.insert(
                        name.clone(),
                        node(member, rules, &format!("{path}/{key}/{name}"))?,
                    );
                }
                out.insert(key.to_owned(), Value::Object(shaped));
            }
            "items" => {
                if value.is_array() {
                    return Err(at("tuple items"));
                }
                out.insert(
                    key.to_owned(),
                    node(value, rules, &format!("{path}/items"))?,
                );
            }
            "anyOf" | "oneOf" | "allOf" => {
                let Value::Array(branches) = value else {
                    return Err(at(key));
                };
                let shaped = branches
                    .iter()
                    .enumerate()
                    .map(|(index, branch)| node(branch, rules, &format!("{path}/{key}/{index}")))
                    .collect::<Result<Vec<_>, _>>()?;
                // Either one fits is a looser constraint than exactly one: the API may take
                // `anyOf` only, pincer's validation still holds `oneOf`.
                let key = if key == "oneOf" { "anyOf" } else { key };
                out.insert(key.to_owned(), Value::Array(shaped));
            }
            _ => {
                out.insert(key.to_owned(), value.clone());
            }
        }
    }
    if is_object_schema(&Value::Object(out.clone())) {
        close_object(&mut out, rules).map_err(|reason| at(&reason.to_string()))?;
    }
    Ok(Value::Object(out))
}

/// `additionalProperties: false`, and under strict rules every property required.
fn close_object(object: &mut Map<String, Value>, rules: &Rules) -> Result<(), NotStrict> {
    let Some(Value::Object(properties)) = object.get_mut("properties") else {
        return Err(NotStrict::NoProperties);
    };
    if properties.is_empty() {
        return Err(NotStrict::NoProperties);
    }
    if rules.all_required {
        let required: Vec<String> = object
            .get("required")
            .and_then(Value::as_array)
            .map(|names| {
                names
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        let Some(Value::Object(properties)) = object.get_mut("properties") else {
            return Ok(());
        };
        let mut all = Vec::new();
        for (name, property) in properties.iter_mut() {
            if !required.contains(name) {
                *property = nullable(property.take());
            }
            all.push(Value::String(name.clone()));
        }
        object.insert("required".to_owned(), Value::Array(all));
    }
    object.insert("additionalProperties".to_owned(), Value::Bool(false));
    Ok(())
}

/// `schema` also accepting `null`: in its `type` where it has one (and its `enum`), else as a
/// branch of a union.
fn nullable(schema: Value) -> Value {
    let Value::Object(mut object) = schema else {
        return schema;
    };
    let typed = match object.get_mut("type") {
        Some(Value::String(kind)) => {
            if kind != "null" {
                let kind = kind.clone();
                object.insert("type".to_owned(), json!([kind, "null"]));
            }
            true
        }
        Some(Value::Array(kinds)) => {
            if !kinds.iter().any(|kind| kind == "null") {
                kinds.push(json!("null"));
            }
            true
        }
        _ => false,
    };
    if typed && object.get("$ref").is_none() && object.get("const").is_none() {
        if let Some(Value::Array(values)) = object.get_mut("enum")
            && !values.contains(&Value::Null)
        {
            values.push(Value::Null);
        }
        return Value::Object(object);
    }
    if !typed
        && object.len() == 1
        && let Some(Value::Array(branches)) = object.get_mut("anyOf")
    {
        branches.push(json!({"type": "null"}));
        return Value::Object(object);
    }
    json!({"anyOf": [Value::Object(object), {"type": "null"}]})
}

/// Whether `schema` describes an object (its `type` says so, or it lists properties).
fn is_object_schema(schema: &Value) -> bool {
    match schema.get("type") {
        Some(Value::String(kind)) => kind == "object",
        Some(Value::Array(kinds)) => kinds.iter().any(|kind| kind == "object"),
        _ => schema.get("properties").is_some(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_closes_every_object_and_makes_optional_properties_required_and_nullable() {
        let schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "title": {"type": "string", "minLength": 3},
                "severity": {"type": "string", "enum": ["low", "high"]},
                "findings": {"type": "array", "items": {
                    "type": "object",
                    "properties": {"file": {"type": "string"}, "line": {"type": "integer"}},
                    "required": ["file"]
                }},
                "owner": {"$ref": "#/$defs/person"}
            },
            "required": ["title", "findings"],
            "$defs": {"person": {"type": "object", "properties": {"name": {"type": "string"}}}}
        });
        assert_eq!(
            openai_strict(&schema).unwrap(),
            json!({
                "type": "object",
                "properties": {
                    "title": {"type": "string"},
                    "severity": {"type": ["string", "null"], "enum": ["low", "high", null]},
                    "findings": {"type": "array", "items": {
                        "type": "object",
                        "properties": {
                            "file": {"type": "string"},
                            "line": {"type": ["integer", "null"]}
                        },
                        "required": ["file", "line"],
                        "additionalProperties": false
                    }},
                    "owner": {"anyOf": [{"$ref": "#/$defs/person"}, {"type": "null"}]}
                },
                "required": ["title", "severity", "findings", "owner"],
                "$defs": {"person": {
                    "type": "object",
                    "properties": {"name": {"type": ["string", "null"]}},
                    "required": ["name"],
                    "additionalProperties": false
                }},
                "additionalProperties": false
            })
        );
    }

    #[test]
    fn a_schema_that_strict_mode_would_change_says_why_and_goes_out_non_strict() {
        let open_object = json!({"type": "object", "properties": {"a": {"type": "string"}},
            "additionalProperties": true});
        assert_eq!(
            openai_strict(&open_object).unwrap_err().to_string(),
            "additionalProperties other than false at the root"
        );
        let free_form = json!({"type": "object", "properties": {"tags": {"type": "object"}}});
        assert_eq!(
            openai_strict(&free_form).unwrap_err().to_string(),
            "an object without properties at /properties/tags"
        );
        assert_eq!(
            openai_strict(&json!({"type": "array", "items": {"type": "string"}}))
                .unwrap_err()
                .to_string(),
            "its root is not an object"
        );
        let (format, warning) = native_format(ApiKind::OpenAi, &open_object).unwrap();
        assert!(!format.strict);
        assert_eq!(format.schema, open_object);
        assert!(warning.unwrap().contains("strict: false"));
    }

    #[test]
    fn one_of_is_sent_as_any_of_and_all_of_is_not_strict() {
        let schema = json!({"type": "object", "properties": {"v": {"oneOf": [
            {"type": "string"}, {"type": "integer"}]}}, "required": ["v"]});
        let strict = openai_strict(&schema).unwrap();
        assert_eq!(
            strict["properties"]["v"],
            json!({"anyOf": [{"type": "string"}, {"type": "integer"}]})
        );
        let all_of =
            json!({"type": "object", "properties": {"v": {"allOf": [{"type": "string"}]}}});
        assert_eq!(
            openai_strict(&all_of).unwrap_err().to_string(),
            "allOf at /properties/v"
        );
    }

    #[test]
    fn anthropic_gets_closed_objects_without_bounds_and_keeps_optional_properties() {
        let schema = json!({"type": "object", "properties": {
            "count": {"type": "integer", "minimum": 1, "maximum": 9},
            "tags": {"type": "array", "items": {"type": "string", "format": "regex"},
                "minItems": 2},
            "when": {"type": "string", "format": "date"}
        }, "required": ["count"]});
        let (format, warning) = native_format(ApiKind::Anthropic, &schema).unwrap();
        assert_eq!(warning, None);
        assert_eq!(
            format.schema,
            json!({"type": "object", "properties": {
                "count": {"type": "integer"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "when": {"type": "string", "format": "date"}
            }, "required": ["count"], "additionalProperties": false})
        );
        let open = json!({"type": "object", "properties": {"a": {"type": "string"}},
            "additionalProperties": {"type": "string"}});
        assert!(native_format(ApiKind::Anthropic, &open).is_err());
    }

    #[test]
    fn gemini_gets_the_schema_as_given_without_its_dialect_marker() {
        let schema = json!({"$schema": "http://json-schema.org/draft-07/schema#",
            "type": "array", "items": {"type": "integer", "minimum": 0}});
        let (format, _) = native_format(ApiKind::Google, &schema).unwrap();
        assert_eq!(
            format.schema,
            json!({"type": "array", "items": {"type": "integer", "minimum": 0}})
        );
    }
}
