//! Typed access to a tool call's JSON arguments.
//!
//! Models send what they send: extra keys are ignored, Claude-style names are tried as aliases,
//! and numbers or booleans written as strings (`"10"`, `"true"`) are accepted. Anything else of
//! the wrong type, or a required key that is absent, becomes a [`ToolError`] naming the argument.

use serde_json::{Map, Value};

use super::ToolError;

/// A tool call's arguments, known to be a JSON object.
#[derive(Debug, Clone, Copy)]
pub struct Arguments<'a> {
    object: &'a Map<String, Value>,
}

impl<'a> Arguments<'a> {
    /// Accept `value` only when it is an object.
    pub fn new(value: &'a Value) -> Result<Self, ToolError> {
        match value {
            Value::Object(object) => Ok(Arguments { object }),
            other => Err(ToolError::ArgumentsNotObject {
                found: describe(other).to_owned(),
            }),
        }
    }

    /// The first of `names` that is present and not null.
    pub fn get(&self, names: &[&str]) -> Option<&'a Value> {
        names
            .iter()
            .find_map(|name| self.object.get(*name).filter(|value| !value.is_null()))
    }

    /// A string argument, looked up under `names` (the canonical name first).
    pub fn optional_string(&self, names: &[&str]) -> Result<Option<&'a str>, ToolError> {
        match self.get(names) {
            None => Ok(None),
            Some(Value::String(text)) => Ok(Some(text)),
            Some(_) => Err(invalid(names, "a string")),
        }
    }

    /// A string argument that must be present.
    pub fn required_string(&self, names: &[&str]) -> Result<&'a str, ToolError> {
        self.optional_string(names)?.ok_or_else(|| missing(names))
    }

    /// A non-negative whole number.
    pub fn optional_count(&self, names: &[&str]) -> Result<Option<u64>, ToolError> {
        let expected = "a non-negative whole number";
        match self.get(names) {
            None => Ok(None),
            Some(Value::Number(number)) => {
                if let Some(whole) = number.as_u64() {
                    return Ok(Some(whole));
                }
                match number.as_f64() {
                    Some(float) if float >= 0.0 && float.fract() == 0.0 && float < 1e15 =>
                    {
                        #[expect(
                            clippy::cast_possible_truncation,
                            clippy::cast_sign_loss,
                            reason = "checked above: whole, non-negative and below 1e15"
                        )]
                        Ok(Some(float as u64))
                    }
                    _ => Err(invalid(names, expected)),
                }
            }
            Some(Value::String(text)) => text
                .trim()
                .parse::<u64>()
                .map(Some)
                .map_err(|_| invalid(names, expected)),
            Some(_) => Err(invalid(names, expected)),
        }
    }

    /// A positive number of seconds (fractions allowed).
    pub fn optional_seconds(&self, names: &[&str]) -> Result<Option<f64>, ToolError> {
        let expected = "a positive number of seconds";
        let seconds = match self.get(names) {
            None => return Ok(None),
            Some(Value::Number(number)) => number.as_f64(),
            Some(Value::String(text)) => text.trim().parse::<f64>().ok(),
            Some(_) => None,
        };
        match seconds {
            Some(seconds) if seconds.is_finite() && seconds > 0.0 => Ok(Some(seconds)),
            _ => Err(invalid(names, expected)),
        }
    }

    /// A boolean, false when absent.
    pub fn flag(&self, names: &[&str]) -> Result<bool, ToolError> {
        match self.get(names) {
            None => Ok(false),
            Some(Value::Bool(flag)) => Ok(*flag),
            Some(Value::String(text)) if text == "true" => Ok(true),
            Some(Value::String(text)) if text == "false" => Ok(false),
            Some(_) => Err(invalid(names, "true or false")),
        }
    }
}

/// The error for a required argument that is absent, named by its canonical name.
pub(super) fn missing(names: &[&str]) -> ToolError {
    ToolError::MissingArgument {
        name: names.first().copied().unwrap_or_default().to_owned(),
    }
}

/// The error for an argument of the wrong type, named by its canonical name.
pub(super) fn invalid(names: &[&str], expected: &str) -> ToolError {
    ToolError::InvalidArgument {
        name: names.first().copied().unwrap_or_default().to_owned(),
        expected: expected.to_owned(),
    }
}

/// "an array", "a number", … for error messages.
pub(super) fn describe(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_claude_style_alias_is_used_when_the_canonical_name_is_absent() {
        let value = json!({"file_path": "a.txt"});
        let arguments = Arguments::new(&value).unwrap();
        assert_eq!(
            arguments.required_string(&["path", "file_path"]).unwrap(),
            "a.txt"
        );
    }

    #[test]
    fn counts_accept_integers_whole_floats_and_digit_strings_but_not_negatives() {
        let value = json!({"a": 3, "b": 4.0, "c": " 5 ", "d": -1, "e": 1.5});
        let arguments = Arguments::new(&value).unwrap();
        assert_eq!(arguments.optional_count(&["a"]).unwrap(), Some(3));
        assert_eq!(arguments.optional_count(&["b"]).unwrap(), Some(4));
        assert_eq!(arguments.optional_count(&["c"]).unwrap(), Some(5));
        assert_eq!(
            arguments.optional_count(&["d"]).unwrap_err().to_string(),
            "Invalid argument 'd': expected a non-negative whole number"
        );
        assert!(arguments.optional_count(&["e"]).is_err());
        assert_eq!(arguments.optional_count(&["zzz"]).unwrap(), None);
    }

    #[test]
    fn null_counts_as_absent() {
        let value = json!({"path": null});
        let arguments = Arguments::new(&value).unwrap();
        assert_eq!(
            arguments
                .required_string(&["path"])
                .unwrap_err()
                .to_string(),
            "Missing required argument 'path'"
        );
    }
}
