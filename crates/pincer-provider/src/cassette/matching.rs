//! Telling a person why a replayed request matched nothing: the request next to the nearest
//! recorded one, as a unified diff over a line-per-field rendering (strings with line breaks are
//! shown line by line, so a changed sentence in a long system prompt is one changed line).

use std::fmt::Write as _;

use serde_json::Value;
use similar::TextDiff;

/// The diff shown for a miss is cut after this many lines.
const DIFF_LINES: usize = 120;

/// How replayed requests are paired with recorded interactions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Matching {
    /// The first unused interaction of the same kind, provider and path whose normalized
    /// request is equal.
    #[default]
    Strict,
    /// The next unused interaction in file order, whatever its request (same kind, provider
    /// and path still required: another protocol's bytes cannot be parsed).
    Lenient,
}

impl Matching {}

/// A request as it is compared and shown: kind, provider, path and the normalized body.
#[derive(Debug, Clone, PartialEq)]
pub struct Shape<'a> {
    /// `http` or `child`.
    pub kind: &'static str,
    /// The provider name.
    pub provider: &'a str,
    /// The API path (empty for a child).
    pub path: &'a str,
    /// The normalized request.
    pub request: Value,
}

impl Shape<'_> {
    /// The text a diff is made of.
    pub fn render(&self) -> String {
        let mut out = format!("{} {}", self.kind, self.provider);
        if !self.path.is_empty() {
            out.push(' ');
            out.push_str(self.path);
        }
        out.push('\n');
        render_value(&self.request, 0, &mut out);
        out.push('\n');
        out
    }
}

/// How alike two rendered requests are, from 0 to 1 (by characters, so that of two requests
/// that differ in one line the one with the smaller change is nearer).
pub fn similarity(left: &str, right: &str) -> f32 {
    TextDiff::configure()
        .deadline(std::time::Instant::now() + std::time::Duration::from_millis(50))
        .diff_chars(left, right)
        .ratio()
}

/// A unified diff from the recorded request to the live one, cut to [`DIFF_LINES`].
pub fn diff(recorded: &str, recorded_label: &str, live: &str) -> String {
    let text = TextDiff::from_lines(recorded, live)
        .unified_diff()
        .context_radius(3)
        .header(recorded_label, "this run")
        .to_string();
    let total = text.lines().count();
    if total <= DIFF_LINES {
        return text;
    }
    let mut cut: String = text
        .lines()
        .take(DIFF_LINES)
        .flat_map(|line| [line, "\n"])
        .collect();
    let _ = writeln!(cut, "… ({} more lines)", total - DIFF_LINES);
    cut
}

fn render_value(value: &Value, indent: usize, out: &mut String) {
    let pad = |depth: usize| "  ".repeat(depth);
    match value {
        Value::Object(map) if !map.is_empty() => {
            let items = map
                .iter()
                .map(|(key, item)| (Some(Value::from(key.as_str()).to_string()), item));
            render_items(("{", "}"), items, map.len(), indent, out);
        }
        Value::Array(items) if !items.is_empty() => {
            let all = items.iter().map(|item| (None, item));
            render_items(("[", "]"), all, items.len(), indent, out);
        }
        Value::String(text) if text.contains('\n') => {
            out.push_str("\"\"\"\n");
            for line in text.split('\n') {
                let _ = writeln!(out, "{}{line}", pad(indent + 1));
            }
            let _ = write!(out, "{}\"\"\"", pad(indent));
        }
        other => out.push_str(&other.to_string()),
    }
}

/// An object's or array's items, one a line, between `open` and `close`.
fn render_items<'a>(
    (open, close): (&str, &str),
    items: impl Iterator<Item = (Option<String>, &'a Value)>,
    count: usize,
    indent: usize,
    out: &mut String,
) {
    out.push_str(open);
    out.push('\n');
    for (position, (key, item)) in items.enumerate() {
        out.push_str(&"  ".repeat(indent + 1));
        if let Some(key) = key {
            let _ = write!(out, "{key}: ");
        }
        render_value(item, indent + 1, out);
        out.push_str(if position + 1 < count { ",\n" } else { "\n" });
    }
    let _ = write!(out, "{}{close}", "  ".repeat(indent));
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn shape(prompt: &str) -> Shape<'static> {
        Shape {
            kind: "http",
            provider: "anthropic",
            path: "/v1/messages",
            request: json!({
                "model": "claude-sonnet-4-5",
                "system": "You are pincer.\nBe brief.\nAnswer in English.",
                "messages": [{"role": "user", "content": prompt}],
            }),
        }
    }

    #[test]
    fn a_changed_line_of_a_long_string_shows_as_one_changed_line() {
        let recorded = shape("list the files").render();
        let mut live = shape("list the files");
        live.request["system"] = json!("You are pincer.\nBe thorough.\nAnswer in English.");
        let text = diff(&recorded, "cassette line 2", &live.render());
        assert!(
            text.starts_with("--- cassette line 2\n+++ this run\n"),
            "{text}"
        );
        assert!(
            text.contains("\n-    Be brief.\n+    Be thorough.\n"),
            "{text}"
        );
        assert_eq!(text.lines().filter(|line| line.starts_with('-')).count(), 2);
    }

    #[test]
    fn the_nearer_request_is_the_more_similar() {
        let live = shape("list the files in src").render();
        let near = shape("list the files").render();
        let far = Shape {
            provider: "openai",
            path: "/v1/responses",
            request: json!({"input": "something else entirely"}),
            kind: "http",
        }
        .render();
        assert!(similarity(&near, &live) > similarity(&far, &live));
    }
}
