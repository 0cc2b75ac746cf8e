//! Scrubbing secrets out of text that pincer did not write itself.
//!
//! A tool can print a key: `exec` runs `env`, `read` opens a `.env` file. Its output is stored in the
//! session, written to events files and sent back to the provider, so a key that reached it would leak
//! three ways. The turn loop passes every tool result through a [`Redactor`] built from the
//! secrets in use — the resolved credential keys and the values of the provider key variables in
//! the environment — before anything else sees it (SPEC §12.2).

use serde_json::Value;

use crate::session::record::ContentBlock;
use crate::tools::ToolOutput;

/// What a secret is replaced with.
pub const MARKER: &str = "[REDACTED]";

/// Secrets shorter than this are not searched for: a two-letter "key" would shred ordinary text,
/// and no real provider key is that short.
const MIN_SECRET_LEN: usize = 8;

/// Environment variables whose values are provider keys, whichever provider the run uses: the
/// same list CLI backends strip from their children's environment.
pub const KEY_VARIABLES: [&str; 6] = crate::settings::DEFAULT_CLEAR_ENV;

/// Replaces known secrets in text with [`MARKER`].
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    /// Longest first, so a key that contains another key is replaced whole.
    secrets: Vec<String>,
}

impl Redactor {
    /// A redactor for `secrets` (empty and very short values are ignored).
    pub fn new<I, S>(secrets: I) -> Redactor
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut secrets: Vec<String> = secrets
            .into_iter()
            .map(|secret| secret.as_ref().trim().to_owned())
            .filter(|secret| secret.len() >= MIN_SECRET_LEN)
            .collect();
        secrets.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        secrets.dedup();
        Redactor { secrets }
    }

    /// A redactor for `keys` plus the values of [`KEY_VARIABLES`] as `env` reports them.
    pub fn with_environment<'a>(
        keys: impl IntoIterator<Item = &'a str>,
        env: impl Fn(&str) -> Option<String>,
    ) -> Redactor {
        let from_env = KEY_VARIABLES.iter().filter_map(|name| env(name));
        Redactor::new(keys.into_iter().map(str::to_owned).chain(from_env))
    }

    /// Whether there is nothing to redact.
    pub fn is_empty(&self) -> bool {
        self.secrets.is_empty()
    }

    /// `text` with every secret replaced.
    pub fn text(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for secret in &self.secrets {
            if out.contains(secret.as_str()) {
                out = out.replace(secret.as_str(), MARKER);
            }
        }
        out
    }

    /// Redact every string inside a JSON value, keys included.
    pub fn value(&self, value: &mut Value) {
        match value {
            Value::String(text) => {
                if self.secrets.iter().any(|secret| text.contains(secret)) {
                    *text = self.text(text);
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|item| self.value(item)),
            Value::Object(map) => {
                let renamed: Vec<(String, Value)> = std::mem::take(map)
                    .into_iter()
                    .map(|(key, mut item)| {
                        self.value(&mut item);
                        (self.text(&key), item)
                    })
                    .collect();
                map.extend(renamed);
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }

    /// A tool's output with secrets removed from its text blocks, unknown blocks and details.
    /// Images are left alone: they are bytes, not text a key could be read from.
    pub fn tool_output(&self, mut output: ToolOutput) -> ToolOutput {
        if self.is_empty() {
            return output;
        }
        for block in &mut output.content {
            match block {
                ContentBlock::Text(text) => text.text = self.text(&text.text),
                ContentBlock::Unknown(value) => self.value(value),
                ContentBlock::Image(_) => {}
            }
        }
        if let Some(details) = &mut output.details {
            self.value(details);
        }
        output
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const KEY: &str = "sk-ant-FAKE-0123456789abcdef";

    #[test]
    fn every_occurrence_of_a_secret_is_replaced_by_the_marker() {
        let redactor = Redactor::new([KEY]);
        assert_eq!(
            redactor.text(&format!("a={KEY}\nb={KEY}x")),
            "a=[REDACTED]\nb=[REDACTED]x"
        );
    }

    #[test]
    fn short_and_empty_secrets_are_ignored_so_ordinary_text_survives() {
        let redactor = Redactor::new(["", "abc", "  "]);
        assert!(redactor.is_empty());
        assert_eq!(redactor.text("abc abc"), "abc abc");
    }

    #[test]
    fn a_key_containing_another_key_is_replaced_whole() {
        let redactor = Redactor::new(["secret-12345", "secret-12345-longer"]);
        assert_eq!(redactor.text("x secret-12345-longer y"), "x [REDACTED] y");
    }

    #[test]
    fn environment_keys_are_included_and_other_variables_are_not() {
        let redactor = Redactor::with_environment(["profile-key-0001"], |name| match name {
            "OPENAI_API_KEY" => Some("env-key-00000002".to_owned()),
            _ => None,
        });
        assert_eq!(
            redactor.text("profile-key-0001 env-key-00000002 PATH"),
            "[REDACTED] [REDACTED] PATH"
        );
    }

    #[test]
    fn tool_output_text_unknown_blocks_and_details_are_scrubbed() {
        let redactor = Redactor::new([KEY]);
        let output = ToolOutput {
            content: vec![
                ContentBlock::Text(crate::session::record::TextContent {
                    text: format!("KEY={KEY}"),
                    text_signature: None,
                    extra: serde_json::Map::new(),
                }),
                ContentBlock::Unknown(json!({"type": "x", "data": KEY})),
            ],
            is_error: false,
            details: Some(json!({"stdout": [KEY], KEY: 1})),
            refusal: None,
        };
        let output = redactor.tool_output(output);
        let ContentBlock::Text(text) = &output.content[0] else {
            panic!("text block expected");
        };
        assert_eq!(text.text, "KEY=[REDACTED]");
        let ContentBlock::Unknown(value) = &output.content[1] else {
            panic!("unknown block expected");
        };
        assert_eq!(value["data"], "[REDACTED]");
        assert_eq!(
            output.details,
            Some(json!({"stdout": ["[REDACTED]"], "[REDACTED]": 1}))
        );
    }
}
