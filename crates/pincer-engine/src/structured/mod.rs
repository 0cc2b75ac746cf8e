//! Structured output (SPEC §3.4): the JSON Schema of `--json-schema SCHEMA|@FILE` (and
//! `--output-schema FILE`), checked before any request; how one model is held to it (a
//! [`Plan`]: the API's own JSON Schema mode, a final-answer tool, or instructions); and the
//! local validation of every answer, whose errors ("path: message") go back to the model.
//!
//! Both engines use it the same way: the plan shapes each request ([`Plan::shape`]), the final
//! answer is checked ([`Plan::check_text`], [`Plan::check_tool_input`]), an invalid one is sent
//! back with [`Plan::feedback`] until `structured_output.max_retries` is used up, and the turn
//! records what was asked in a `pincer.structured_output` custom entry ([`Plan::record`]).
//! Nothing here does I/O but reading the schema file; nothing prints.

pub mod dialect;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::conversation::ToolDefinition;
use crate::conversation::{ApiKind, StructuredMode};
use crate::provider::{ModelRequest, OutputFormat};

/// The name of the final-answer tool, of the API formats that take a name, and of the session's
/// custom entry (after `pincer.`).
pub const NAME: &str = "structured_output";

/// The `customType` of the session entry recording a turn's use of a schema.
pub const CUSTOM_TYPE: &str = "pincer.structured_output";

/// Validation errors listed back to the model (and in `errors`), at most.
const ERRORS_SHOWN: usize = 20;

/// Characters of one validation message, at most (a message can quote the whole answer).
const MESSAGE_CHARS: usize = 300;

/// A schema argument that cannot be used: exit 2 before any request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SchemaError {
    /// `@FILE` or `--output-schema FILE` could not be read.
    #[error("cannot read the JSON Schema file '{}': {message}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// The text is not JSON.
    #[error("{origin} is not JSON: {message}")]
    NotJson {
        /// `--json-schema` or the file.
        origin: String,
        /// The parser's message.
        message: String,
    },
    /// The JSON is not a JSON Schema (its meta-schema refuses it, or a `$ref` does not
    /// resolve).
    #[error("{origin} is not a valid JSON Schema: {location}: {message}")]
    Invalid {
        /// `--json-schema` or the file.
        origin: String,
        /// Where in the schema (a JSON pointer, `(root)` for the whole).
        location: String,
        /// What is wrong.
        message: String,
    },
}

impl SchemaError {
    /// What to do about it.
    pub fn hint(&self) -> &'static str {
        match self {
            SchemaError::Read { .. } => "give the path of a readable file: --json-schema @FILE",
            SchemaError::NotJson { .. } => {
                "give the schema as JSON, inline or as @FILE; nothing was sent to the model"
            }
            SchemaError::Invalid { .. } => {
                "fix the schema (draft 2020-12, or the draft its $schema names; $ref only inside \
                 the schema); nothing was sent to the model"
            }
        }
    }
}

/// A JSON Schema that answers are validated against.
pub struct OutputSchema {
    schema: Value,
    validator: jsonschema::Validator,
    /// `--json-schema`, or the file it came from.
    origin: String,
}

impl fmt::Debug for OutputSchema {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("OutputSchema")
            .field("origin", &self.origin)
            .field("schema", &self.schema)
            .finish_non_exhaustive()
    }
}

impl OutputSchema {
    /// `--json-schema`'s value: inline JSON, or `@FILE`.
    pub fn from_argument(argument: &str) -> Result<OutputSchema, SchemaError> {
        match argument.strip_prefix('@') {
            Some(path) => OutputSchema::from_file(Path::new(path)),
            None => OutputSchema::from_text(argument, "--json-schema".to_owned()),
        }
    }

    /// `--output-schema FILE` or `--json-schema @FILE`.
    pub fn from_file(path: &Path) -> Result<OutputSchema, SchemaError> {
        let text = std::fs::read_to_string(path).map_err(|error| SchemaError::Read {
            path: path.to_owned(),
            message: error.to_string(),
        })?;
        OutputSchema::from_text(&text, format!("'{}'", path.display()))
    }

    fn from_text(text: &str, origin: String) -> Result<OutputSchema, SchemaError> {
        let schema: Value = serde_json::from_str(text).map_err(|error| SchemaError::NotJson {
            origin: origin.clone(),
            message: error.to_string(),
        })?;
        OutputSchema::new(schema, origin)
    }

    /// Check `schema` against its meta-schema (the draft its `$schema` names, 2020-12 without
    /// one) and compile it. Formats are validated, not only annotations; no `$ref` is fetched
    /// from the network or the disk.
    pub fn new(schema: Value, origin: String) -> Result<OutputSchema, SchemaError> {
        let invalid = |location: String, message: String| SchemaError::Invalid {
            origin: origin.clone(),
            location,
            message,
        };
        if let Err(error) = jsonschema::meta::validate(&schema) {
            return Err(invalid(
                pointer(&error.instance_path().to_string()),
                error.to_string(),
            ));
        }
        let validator = jsonschema::options()
            .should_validate_formats(true)
            .build(&schema)
            .map_err(|error| {
                invalid(pointer(&error.schema_path().to_string()), error.to_string())
            })?;
        Ok(OutputSchema {
            schema,
            validator,
            origin,
        })
    }

    /// The schema as given.
    pub fn schema(&self) -> &Value {
        &self.schema
    }

    /// `--json-schema` or the file's name, quoted.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The value of an answer written as text: JSON alone (one Markdown code fence around it is
    /// taken off), matching the schema.
    pub fn check_text(&self, text: &str) -> Result<Value, Vec<String>> {
        let body = unfenced(text);
        if body.is_empty() {
            return Err(vec![format!(
                "{}: the answer is empty; it must be a JSON value",
                pointer("")
            )]);
        }
        let value: Value = serde_json::from_str(body).map_err(|error| {
            vec![format!(
                "{}: the answer is not JSON ({error}); write only the JSON value",
                pointer("")
            )]
        })?;
        self.check_value(value)
    }

    /// `value` if it matches the schema, else every error as `path: message`. An optional
    /// property answered as `null` where the schema does not allow null counts as left out:
    /// that is how OpenAI's strict mode writes an optional property (SPEC §3.4).
    pub fn check_value(&self, value: Value) -> Result<Value, Vec<String>> {
        let errors = self.errors(&value);
        if errors.is_empty() {
            return Ok(value);
        }
        let mut pruned = value.clone();
        prune_optional_nulls(&mut pruned, &self.schema, &self.schema, 0);
        if pruned != value && self.validator.is_valid(&pruned) {
            return Ok(pruned);
        }
        Err(errors)
    }

    fn errors(&self, value: &Value) -> Vec<String> {
        let mut errors: Vec<String> = self
            .validator
            .iter_errors(value)
            .map(|error| {
                let message = error.to_string();
                let message = match message.char_indices().nth(MESSAGE_CHARS) {
                    Some((cut, _)) => format!("{}…", &message[..cut]),
                    None => message,
                };
                format!("{}: {message}", pointer(&error.instance_path().to_string()))
            })
            .collect();
        if errors.len() > ERRORS_SHOWN {
            let more = errors.len() - ERRORS_SHOWN;
            errors.truncate(ERRORS_SHOWN);
            errors.push(format!("… and {more} more"));
        }
        errors
    }
}

/// A JSON pointer as the error lists show it: `(root)` for the whole value.
fn pointer(path: &str) -> String {
    if path.is_empty() {
        "(root)".to_owned()
    } else {
        path.to_owned()
    }
}

/// The text inside one Markdown code fence around the whole answer (```json … ```), else the
/// trimmed text.
fn unfenced(text: &str) -> &str {
    let trimmed = text.trim();
    if let Some(rest) = trimmed.strip_prefix("```")
        && let Some(inner) = rest.strip_suffix("```")
        && let Some((language, body)) = inner.split_once('\n')
        && !language.contains('`')
    {
        return body.trim();
    }
    trimmed
}

/// Remove the members of `value` that are `null`, optional where `schema` describes them and
/// not allowed to be null there: following `properties`, `items`, local `$ref`s, and an
/// `anyOf`/`oneOf` with a single object branch.
fn prune_optional_nulls(value: &mut Value, schema: &Value, root: &Value, depth: usize) {
    if depth > 32 {
        return;
    }
    let schema = resolve(schema, root, 0);
    match value {
        Value::Object(members) => {
            if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
                let required = required_names(schema);
                members.retain(|key, member| {
                    let Some(property) = properties.get(key) else {
                        return true;
                    };
                    !(member.is_null()
                        && !required.contains(&key.as_str())
                        && !accepts_null(property, root, 0))
                });
                for (key, member) in members.iter_mut() {
                    if let Some(property) = properties.get(key) {
                        prune_optional_nulls(member, property, root, depth + 1);
                    }
                }
            } else if let Some(branch) = single_object_branch(schema, root) {
                prune_optional_nulls(value, branch, root, depth + 1);
            }
        }
        Value::Array(items) => {
            if let Some(item) = schema.get("items").filter(|item| item.is_object()) {
                for element in items {
                    prune_optional_nulls(element, item, root, depth + 1);
                }
            }
        }
        _ => {}
    }
}

/// The schema a local `$ref` (`#/…`) points to, else `schema` itself.
fn resolve<'a>(schema: &'a Value, root: &'a Value, depth: usize) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(reference) if depth < 16 => reference
            .strip_prefix('#')
            .and_then(|pointer| root.pointer(pointer))
            .map_or(schema, |target| resolve(target, root, depth + 1)),
        _ => schema,
    }
}

fn required_names(schema: &Value) -> Vec<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// The one branch of an `anyOf`/`oneOf` that describes an object's properties, if only one does.
fn single_object_branch<'a>(schema: &'a Value, root: &'a Value) -> Option<&'a Value> {
    let branches = schema
        .get("anyOf")
        .or_else(|| schema.get("oneOf"))
        .and_then(Value::as_array)?;
    let mut objects = branches
        .iter()
        .map(|branch| resolve(branch, root, 0))
        .filter(|branch| branch.get("properties").is_some());
    let first = objects.next()?;
    objects.next().is_none().then_some(first)
}

/// Whether `schema` lets `null` through (as far as its type, enum, const and unions say).
fn accepts_null(schema: &Value, root: &Value, depth: usize) -> bool {
    if depth > 16 {
        return true;
    }
    let schema = resolve(schema, root, 0);
    let Some(object) = schema.as_object() else {
        return schema.as_bool().unwrap_or(false);
    };
    if let Some(values) = object.get("enum").and_then(Value::as_array)
        && !values.contains(&Value::Null)
    {
        return false;
    }
    if let Some(constant) = object.get("const") {
        return constant.is_null();
    }
    let union = |key: &str| {
        object.get(key).and_then(Value::as_array).map(|branches| {
            branches
                .iter()
                .any(|branch| accepts_null(branch, root, depth + 1))
        })
    };
    if let Some(any) = union("anyOf").or_else(|| union("oneOf"))
        && !any
    {
        return false;
    }
    match object.get("type") {
        Some(Value::String(kind)) => kind == "null",
        Some(Value::Array(kinds)) => kinds.iter().any(|kind| kind == "null"),
        _ => true,
    }
}

/// How one model is held to the schema, resolved for its API and catalog mode.
#[derive(Debug, Clone)]
pub struct Plan {
    schema: Arc<OutputSchema>,
    mode: StructuredMode,
    /// The API's own format (`native`, `native-without-tools`).
    format: Option<OutputFormat>,
    /// The final-answer tool (`tool`), and whether its input wraps the answer in `value` (a
    /// schema whose root is not a plain object: tool inputs must be objects).
    tool: Option<(ToolDefinition, bool)>,
    /// Invalid answers sent back before giving up.
    pub max_retries: u32,
}

impl Plan {
    /// The plan for a model of `api` whose catalog mode is `mode`, and the warnings to show
    /// (a schema OpenAI's strict mode cannot take, a native mode that cannot take it at all).
    pub fn new(
        schema: Arc<OutputSchema>,
        api: ApiKind,
        mode: StructuredMode,
        max_retries: u32,
    ) -> (Plan, Vec<String>) {
        let mut warnings = Vec::new();
        let mut plan = Plan {
            schema,
            mode,
            format: None,
            tool: None,
            max_retries,
        };
        match mode {
            StructuredMode::Native | StructuredMode::NativeWithoutTools => {
                match dialect::native_format(api, plan.schema.schema()) {
                    Ok((format, warning)) => {
                        plan.format = Some(format);
                        warnings.extend(warning);
                    }
                    Err(reason) => {
                        warnings.push(format!(
                            "{} cannot take this JSON Schema in its own JSON mode ({reason}); \
                             the final-answer tool `{NAME}` carries it instead",
                            api.as_str()
                        ));
                        plan.use_tool();
                    }
                }
            }
            StructuredMode::Tool => plan.use_tool(),
            StructuredMode::Instructions => {}
        }
        (plan, warnings)
    }

    /// The plan of a CLI child, which holds its answer to the schema itself: claude takes the
    /// schema as given (`--json-schema`), codex (`openai_dialect`) in OpenAI's strict form
    /// (`--output-schema FILE`), non-strict with a warning when it cannot be made strict.
    pub fn for_child(
        schema: Arc<OutputSchema>,
        openai_dialect: bool,
        max_retries: u32,
    ) -> (Plan, Vec<String>) {
        let mut warnings = Vec::new();
        let format = if openai_dialect {
            dialect::native_format(ApiKind::OpenAi, schema.schema())
                .ok()
                .map(|(format, warning)| {
                    warnings.extend(warning);
                    format
                })
        } else {
            None
        };
        let plan = Plan {
            schema,
            mode: StructuredMode::Native,
            format,
            tool: None,
            max_retries,
        };
        (plan, warnings)
    }

    /// The schema as the API's own mode takes it (codex's `--output-schema` file), else as
    /// given.
    pub fn native_schema(&self) -> &Value {
        self.format
            .as_ref()
            .map_or(self.schema.schema(), |format| &format.schema)
    }

    fn use_tool(&mut self) {
        self.mode = StructuredMode::Tool;
        self.format = None;
        self.tool = Some(answer_tool(self.schema.schema()));
    }

    /// The API refused its own JSON mode for this request (a 400 naming it): carry the schema
    /// in the final-answer tool from now on. `None` when the plan does not use the API's mode.
    pub fn fall_back_to_tool(&mut self) -> Option<String> {
        self.format.as_ref()?;
        let from = self.mode.as_str();
        self.use_tool();
        Some(format!(
            "the provider refused its JSON Schema mode ({from}); asking again with the \
             final-answer tool `{NAME}`"
        ))
    }

    /// The mode in use.
    pub fn mode(&self) -> StructuredMode {
        self.mode
    }

    /// The schema.
    pub fn schema(&self) -> &OutputSchema {
        &self.schema
    }

    #[cfg(test)]
    /// Whether the request carries the API's own JSON mode when tools are offered.
    pub fn uses_native_format(&self) -> bool {
        self.format.is_some()
    }

    /// Shape one request: the instructions appended to the system prompt, the final-answer
    /// tool, or the API's format. `final_call`: the model has already answered once without
    /// calling tools, so a `native-without-tools` model is asked under the schema, without
    /// tools.
    pub fn shape(&self, request: &mut ModelRequest, final_call: bool) {
        let instructions = self.instructions();
        if !request.system_prompt.is_empty() {
            request.system_prompt.push_str("\n\n");
        }
        request.system_prompt.push_str(&instructions);
        match self.mode {
            StructuredMode::Native => request.output_format.clone_from(&self.format),
            StructuredMode::NativeWithoutTools => {
                if final_call || request.tools.is_empty() {
                    request.tools.clear();
                    request.output_format.clone_from(&self.format);
                }
            }
            StructuredMode::Tool => {
                if let Some((tool, _)) = &self.tool {
                    request.tools.push(tool.clone());
                }
            }
            StructuredMode::Instructions => {}
        }
    }

    /// The system prompt's section on the answer's form.
    pub fn instructions(&self) -> String {
        let schema = serde_json::to_string_pretty(self.schema.schema()).unwrap_or_default();
        match self.mode {
            StructuredMode::Native => "## Answer format\nYour final answer, once you are done \
                 with tools, is one JSON value that the API holds to a JSON Schema: write only \
                 that value, with no prose and no Markdown fence around it."
                .to_owned(),
            StructuredMode::Tool => format!(
                "## Answer format\nWhen you are done, call the tool `{NAME}` once, as your last \
                 action, with your final answer as its input (it must match the tool's input \
                 schema). That call is the answer: do not write the answer as text."
            ),
            StructuredMode::NativeWithoutTools | StructuredMode::Instructions => format!(
                "## Answer format\nYour final answer, once you are done with tools, is one JSON \
                 value matching this JSON Schema: write only that value, with no prose and no \
                 Markdown fence around it.\n\n```json\n{schema}\n```"
            ),
        }
    }

    /// Whether `name` is the final-answer tool of this plan.
    pub fn is_answer_tool(&self, name: &str) -> bool {
        self.tool.is_some() && name == NAME
    }

    /// The answer in a final-answer tool call's input.
    pub fn check_tool_input(&self, input: &Value) -> Result<Value, Vec<String>> {
        let wrapped = self.tool.as_ref().is_some_and(|(_, wrapped)| *wrapped);
        let value = if wrapped {
            input.get("value").cloned().unwrap_or(Value::Null)
        } else {
            input.clone()
        };
        self.schema.check_value(value)
    }

    /// The answer written as text (with the final-answer tool, a model that answered in text
    /// anyway is taken at its word when the text is valid).
    pub fn check_text(&self, text: &str) -> Result<Value, Vec<String>> {
        self.schema.check_text(text)
    }

    /// What the model is told about an invalid answer: the errors, and how to answer again.
    pub fn feedback(&self, errors: &[String]) -> String {
        feedback(errors, self.mode == StructuredMode::Tool)
    }

    /// The `data` of the session's `pincer.structured_output` entry.
    pub fn record(&self, attempts: u32, valid: bool) -> Value {
        record(
            &self.schema,
            self.mode.as_str(),
            self.format.as_ref().map(|format| format.strict),
            attempts,
            valid,
        )
    }
}

/// The feedback for an invalid answer; `via_tool`: the answer is given by calling the
/// final-answer tool.
pub fn feedback(errors: &[String], via_tool: bool) -> String {
    let mut text = "Your answer does not match the JSON Schema it must follow:\n".to_owned();
    for error in errors {
        text.push_str("- ");
        text.push_str(error);
        text.push('\n');
    }
    text.push_str(if via_tool {
        "Call the tool `structured_output` again with a corrected input."
    } else {
        "Reply again with only the corrected JSON value."
    });
    text
}

/// The `data` of a `pincer.structured_output` entry: the schema, where it came from, how it
/// was enforced, and how the turn fared.
pub fn record(
    schema: &OutputSchema,
    mode: &str,
    strict: Option<bool>,
    attempts: u32,
    valid: bool,
) -> Value {
    let mut data = json!({
        "origin": schema.origin(),
        "mode": mode,
        "attempts": attempts,
        "valid": valid,
        "schema": schema.schema(),
    });
    if let (Some(strict), Some(object)) = (strict, data.as_object_mut()) {
        object.insert("strict".to_owned(), Value::Bool(strict));
    }
    data
}

/// The final-answer tool for `schema`, and whether its input wraps the answer in `value`.
fn answer_tool(schema: &Value) -> (ToolDefinition, bool) {
    let mut parameters = dialect::without_metadata(schema);
    let plain_object = parameters.get("type").and_then(Value::as_str) == Some("object")
        && ["anyOf", "oneOf", "allOf"]
            .iter()
            .all(|key| parameters.get(key).is_none());
    let wrapped = !plain_object;
    if wrapped {
        // Definitions stay at the root, where the schema's `$ref`s point.
        let mut root = Map::new();
        root.insert("type".to_owned(), json!("object"));
        if let Some(object) = parameters.as_object_mut() {
            for key in ["$defs", "definitions"] {
                if let Some(definitions) = object.remove(key) {
                    root.insert(key.to_owned(), definitions);
                }
            }
        }
        root.insert("properties".to_owned(), json!({ "value": parameters }));
        root.insert("required".to_owned(), json!(["value"]));
        parameters = Value::Object(root);
    }
    let description = if wrapped {
        "Give your final answer: `value` is the answer. Call this once, last, when you are done."
    } else {
        "Give your final answer: the input is the answer. Call this once, last, when you are done."
    };
    (
        ToolDefinition {
            name: NAME.to_owned(),
            description: description.to_owned(),
            parameters,
        },
        wrapped,
    )
}

#[cfg(test)]
mod tests;

/// The message of a run whose answer never matched.
pub fn failure_message(errors: &[String], retries: u32) -> String {
    let answers = match retries {
        0 => "the answer did not match --json-schema".to_owned(),
        1 => "the answer did not match --json-schema, also when asked once more".to_owned(),
        n => format!("the answer did not match --json-schema, also when asked {n} more times"),
    };
    format!("{answers}: {}", errors.join("; "))
}
