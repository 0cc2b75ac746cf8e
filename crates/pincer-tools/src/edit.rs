//! `edit`: replace exact text in a file, one replacement or several applied all-or-nothing.
//!
//! Matching is a pure function ([`apply_edits`]) in three steps, each of which must find exactly
//! one occurrence (or, with `replace_all`, at least one):
//! 1. the exact text;
//! 2. the text with trailing whitespace per line ignored and typographic characters folded (curly
//!    quotes to straight ones, Unicode dashes to `-`, no-break and other special spaces to a
//!    space) — the replaced span is the matching part of the original file;
//! 3. whole lines compared without their indentation too; the new text is then re-indented by the
//!    difference between the file's indentation and the old text's.
//!
//! A UTF-8 BOM is set aside and CRLF files are matched as LF; both are restored on write. The
//! result carries a unified diff of the change.

use std::borrow::Cow;
use std::io::Read as _;

use serde_json::{Value, json};
use similar::TextDiff;

use super::arguments::{self, Arguments};
use super::paths::Access;
use super::{ToolContext, ToolDefinition, ToolError, ToolOutput, make_definition, paths};

const BYTE_ORDER_MARK: &str = "\u{feff}";

pub(super) fn definition() -> ToolDefinition {
    make_definition(
        "edit",
        "Replace oldText with newText in a file. oldText must match exactly (whitespace and quotes \
         may differ slightly) and occur once unless replace_all; add surrounding lines to make \
         it unique. Several changes: edits, in order, all or none. \
         Returns a diff.",
        json!({
            "path": {"type": "string"},
            "oldText": {"type": "string"},
            "newText": {"type": "string"},
            "replace_all": {"type": "boolean"},
            "edits": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "oldText": {"type": "string"},
                        "newText": {"type": "string"},
                        "replace_all": {"type": "boolean"}
                    },
                    "required": ["oldText", "newText"]
                }
            }
        }),
        &["path"],
    )
}

/// One requested replacement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Replacement {
    pub old_text: String,
    pub new_text: String,
    pub replace_all: bool,
}

/// Why the replacements could not be applied; nothing was written.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum EditError {
    #[error(
        "Could not find the exact text{label} in {path}. The old text must match exactly including all whitespace and newlines.\n{hint}"
    )]
    NotFound {
        path: String,
        label: String,
        hint: String,
    },
    #[error(
        "Found {count} occurrences of the text{label} in {path}. The text must be unique. Please provide more context to make it unique, or set replace_all to replace every occurrence."
    )]
    NotUnique {
        path: String,
        label: String,
        count: usize,
    },
    #[error("oldText{label} is empty; give the text to replace (use write to create a file).")]
    EmptyOldText { label: String },
    #[error("oldText and newText{label} are identical; nothing would change.")]
    Unchanged { label: String },
}

pub(super) fn run(
    arguments: &Arguments<'_>,
    context: &ToolContext,
) -> Result<ToolOutput, ToolError> {
    let raw_path = arguments.required_string(&["path", "file_path"])?;
    let replacements = replacements(arguments)?;
    let path = paths::check(context, raw_path, Access::Write)?;
    if path.is_dir() {
        return Err(ToolError::Rejected(format!(
            "{raw_path} is a directory, not a file."
        )));
    }
    let mut bytes = Vec::new();
    let read = paths::open_read(context, &path).and_then(|mut file| file.read_to_end(&mut bytes));
    let original = match read.map(|_| bytes) {
        Ok(bytes) => String::from_utf8(bytes).map_err(|_| {
            ToolError::Rejected(format!(
                "{raw_path} is not UTF-8 text and cannot be edited."
            ))
        })?,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Err(ToolError::FileNotFound {
                path: raw_path.to_owned(),
            });
        }
        Err(error) => return Err(ToolError::file("read", raw_path, error)),
    };
    let updated = apply_edits(&original, &replacements, raw_path)?;
    paths::replace_file(context, &path, updated.as_bytes())
        .map_err(|error| ToolError::file("write", raw_path, error))?;

    let (diff, first_changed_line) = unified_diff(&original, &updated, raw_path);
    let summary = if replacements.len() == 1 {
        format!("Successfully replaced text in {raw_path}.")
    } else {
        format!(
            "Successfully applied {} edits to {raw_path}.",
            replacements.len()
        )
    };
    Ok(ToolOutput::text(format!("{summary}\n\n{diff}"))
        .with_details(json!({"diff": diff, "firstChangedLine": first_changed_line})))
}

/// The replacements asked for: `edits`, or the single `oldText`/`newText` pair (Claude's
/// `old_string`/`new_string` accepted).
fn replacements(arguments: &Arguments<'_>) -> Result<Vec<Replacement>, ToolError> {
    if let Some(edits) = arguments.get(&["edits"]) {
        let Value::Array(items) = edits else {
            return Err(arguments::invalid(
                &["edits"],
                "an array of {oldText, newText} objects",
            ));
        };
        if items.is_empty() {
            return Err(arguments::invalid(&["edits"], "at least one edit"));
        }
        return items
            .iter()
            .enumerate()
            .map(|(index, item)| {
                let name = format!("edits[{index}]");
                let item = Arguments::new(item)
                    .map_err(|_| arguments::invalid(&[&name], "an object {oldText, newText}"))?;
                replacement(&item, &format!("{name}."))
            })
            .collect();
    }
    Ok(vec![replacement(arguments, "")?])
}

fn replacement(arguments: &Arguments<'_>, prefix: &str) -> Result<Replacement, ToolError> {
    let name = |base: &str| format!("{prefix}{base}");
    let old_names = [name("oldText"), name("old_string")];
    let new_names = [name("newText"), name("new_string")];
    let old_text = arguments
        .optional_string(&["oldText", "old_string"])
        .map_err(|_| arguments::invalid(&[&old_names[0]], "a string"))?
        .ok_or_else(|| arguments::missing(&[&old_names[0]]))?;
    let new_text = arguments
        .optional_string(&["newText", "new_string"])
        .map_err(|_| arguments::invalid(&[&new_names[0]], "a string"))?
        .ok_or_else(|| arguments::missing(&[&new_names[0]]))?;
    let replace_all = arguments
        .flag(&["replace_all", "replaceAll"])
        .map_err(|_| arguments::invalid(&[&name("replace_all")], "true or false"))?;
    Ok(Replacement {
        old_text: old_text.to_owned(),
        new_text: new_text.to_owned(),
        replace_all,
    })
}

/// Apply every replacement in order to `original`, or none. `path` only names the file in errors.
pub(super) fn apply_edits(
    original: &str,
    replacements: &[Replacement],
    path: &str,
) -> Result<String, EditError> {
    let (bom, body) = match original.strip_prefix(BYTE_ORDER_MARK) {
        Some(body) => (BYTE_ORDER_MARK, body),
        None => ("", original),
    };
    let crlf = body.contains("\r\n");
    let mut content = if crlf {
        body.replace("\r\n", "\n")
    } else {
        body.to_owned()
    };
    for (index, replacement) in replacements.iter().enumerate() {
        let label = if replacements.len() == 1 {
            String::new()
        } else {
            format!(" of edits[{index}]")
        };
        let old_text = replacement.old_text.replace("\r\n", "\n");
        let new_text = replacement.new_text.replace("\r\n", "\n");
        if old_text.is_empty() {
            return Err(EditError::EmptyOldText { label });
        }
        if old_text == new_text {
            return Err(EditError::Unchanged { label });
        }
        let spans = find_spans(&content, &old_text, &new_text);
        let spans = match spans.len() {
            0 => {
                return Err(EditError::NotFound {
                    path: path.to_owned(),
                    label,
                    hint: not_found_hint(&content, &old_text),
                });
            }
            1 => spans,
            count if !replacement.replace_all => {
                return Err(EditError::NotUnique {
                    path: path.to_owned(),
                    label,
                    count,
                });
            }
            _ => spans,
        };
        for span in spans.iter().rev() {
            content.replace_range(span.start..span.end, &span.new_text);
        }
    }
    let content = if crlf {
        content.replace('\n', "\r\n")
    } else {
        content
    };
    Ok(format!("{bom}{content}"))
}

/// A byte range of the content to replace, and its replacement.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Span {
    start: usize,
    end: usize,
    new_text: String,
}

/// The occurrences of `old_text` at the first step (exact, folded, indentation-free) that finds
/// any, in order and not overlapping.
fn find_spans(content: &str, old_text: &str, new_text: &str) -> Vec<Span> {
    let exact: Vec<Span> = content
        .match_indices(old_text)
        .map(|(start, matched)| Span {
            start,
            end: start + matched.len(),
            new_text: new_text.to_owned(),
        })
        .collect();
    if !exact.is_empty() {
        return exact;
    }
    let folded = folded_spans(content, old_text, new_text);
    if !folded.is_empty() {
        return folded;
    }
    indentation_free_spans(content, old_text, new_text)
}

/// Step 2: search in a folded copy of the content that remembers where each byte came from.
fn folded_spans(content: &str, old_text: &str, new_text: &str) -> Vec<Span> {
    let folded_content = Folded::new(content);
    let folded_old = Folded::new(old_text).text;
    if folded_old.is_empty() {
        return Vec::new();
    }
    folded_content
        .text
        .match_indices(&folded_old)
        .map(|(start, matched)| {
            let last = start + matched.len() - 1;
            Span {
                start: folded_content.origin_start[start],
                end: folded_content.origin_end[last],
                new_text: new_text.to_owned(),
            }
        })
        .collect()
}

/// Text with trailing whitespace per line removed and typographic characters folded, plus, for
/// every byte of it, the original byte range of the character it came from.
struct Folded {
    text: String,
    origin_start: Vec<usize>,
    origin_end: Vec<usize>,
}

impl Folded {
    fn new(original: &str) -> Self {
        let mut folded = Folded {
            text: String::with_capacity(original.len()),
            origin_start: Vec::with_capacity(original.len()),
            origin_end: Vec::with_capacity(original.len()),
        };
        let mut line_start = 0;
        for line in original.split_inclusive('\n') {
            let body = line.strip_suffix('\n').unwrap_or(line);
            let kept = body.trim_end_matches(|character: char| {
                fold_char(character) == ' ' || character == '\t' || character == '\r'
            });
            for (offset, character) in kept.char_indices() {
                folded.push(
                    fold_char(character),
                    line_start + offset,
                    character.len_utf8(),
                );
            }
            if body.len() < line.len() {
                folded.push('\n', line_start + body.len(), 1);
            }
            line_start += line.len();
        }
        folded
    }

    fn push(&mut self, character: char, origin: usize, origin_len: usize) {
        self.text.push(character);
        for _ in 0..character.len_utf8() {
            self.origin_start.push(origin);
            self.origin_end.push(origin + origin_len);
        }
    }
}

/// The ASCII stand-in for a typographic character, or the character itself.
pub(super) fn fold_char(character: char) -> char {
    match character {
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' => '\'',
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{2033}' => '"',
        '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2013}' | '\u{2014}' | '\u{2015}'
        | '\u{2212}' => '-',
        '\u{00A0}' | '\u{2000}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => ' ',
        other => other,
    }
}

/// Step 3: whole lines equal once folded and stripped of leading whitespace.
fn indentation_free_spans(content: &str, old_text: &str, new_text: &str) -> Vec<Span> {
    let old_ends_with_newline = old_text.ends_with('\n');
    let old_lines: Vec<&str> = old_text
        .strip_suffix('\n')
        .unwrap_or(old_text)
        .split('\n')
        .collect();
    let key = |line: &str| Folded::new(line).text.trim_start().to_owned();
    let old_keys: Vec<String> = old_lines.iter().map(|line| key(line)).collect();
    if old_keys.iter().all(String::is_empty) {
        return Vec::new();
    }
    // (start, end without the newline) of every line.
    let mut lines = Vec::new();
    let mut position = 0;
    for line in content.split_inclusive('\n') {
        let body = line.strip_suffix('\n').unwrap_or(line);
        lines.push((position, position + body.len()));
        position += line.len();
    }
    let content_keys: Vec<String> = lines
        .iter()
        .map(|&(start, end)| key(&content[start..end]))
        .collect();
    let old_indent = indentation(old_lines.first().copied().unwrap_or_default());

    let mut spans = Vec::new();
    let mut index = 0;
    while index + old_keys.len() <= lines.len() {
        if content_keys[index..index + old_keys.len()] != old_keys[..] {
            index += 1;
            continue;
        }
        let (start, _) = lines[index];
        let (_, mut end) = lines[index + old_keys.len() - 1];
        if old_ends_with_newline && end < content.len() {
            end += 1;
        }
        let file_indent = indentation(&content[start..lines[index].1]);
        spans.push(Span {
            start,
            end,
            new_text: reindent(new_text, old_indent, file_indent).into_owned(),
        });
        index += old_keys.len();
    }
    spans
}

fn indentation(line: &str) -> &str {
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

/// `text` with `from` indentation replaced by `to` on every non-blank line that starts with it.
fn reindent<'a>(text: &'a str, from: &str, to: &str) -> Cow<'a, str> {
    if from == to {
        return Cow::Borrowed(text);
    }
    let mut result = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches('\n');
        match line.strip_prefix(from) {
            Some(rest) if !body.trim().is_empty() => {
                result.push_str(to);
                result.push_str(rest);
            }
            _ => result.push_str(line),
        }
    }
    Cow::Owned(result)
}

/// Where to look when nothing matched: the line where the old text's first line occurs, if any.
fn not_found_hint(content: &str, old_text: &str) -> String {
    let first_line = old_text
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .unwrap_or_default();
    let folded_first = Folded::new(first_line).text;
    let found = content
        .lines()
        .position(|line| !folded_first.is_empty() && Folded::new(line.trim()).text == folded_first);
    match found {
        Some(index) => format!(
            "Hint: the first line of the old text occurs at line {}; the text differs after it. Read the file again and copy the lines exactly.",
            index + 1
        ),
        None => {
            "Hint: the file may have changed; read it again and copy the text exactly.".to_owned()
        }
    }
}

/// A unified diff of `old` → `new` labelled with `path`, and the 1-based first changed line of
/// the new text (None when nothing changed).
pub(super) fn unified_diff(old: &str, new: &str, path: &str) -> (String, Option<usize>) {
    let diff = TextDiff::from_lines(old, new);
    let first_changed_line = diff.ops().iter().find_map(|operation| {
        let (tag, _, new_range) = operation.as_tag_tuple();
        (tag != similar::DiffTag::Equal).then_some(new_range.start + 1)
    });
    let text = diff
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string();
    (text, first_changed_line)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::test_support::Workspace;
    use super::*;

    fn one(old_text: &str, new_text: &str) -> Vec<Replacement> {
        vec![Replacement {
            old_text: old_text.to_owned(),
            new_text: new_text.to_owned(),
            replace_all: false,
        }]
    }

    #[tokio::test]
    async fn a_unique_exact_match_is_replaced_and_the_diff_is_reported() {
        let workspace = Workspace::new();
        workspace.write("a.txt", "one\ntwo\nthree\n");
        let output = workspace
            .call(
                "edit",
                json!({"path": "a.txt", "oldText": "two", "newText": "2"}),
            )
            .await;
        assert!(!output.is_error, "{}", output.text_content());
        assert_eq!(workspace.read("a.txt"), "one\n2\nthree\n");
        let diff = "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n";
        assert_eq!(
            output.text_content(),
            format!("Successfully replaced text in a.txt.\n\n{diff}")
        );
        assert_eq!(
            output.details,
            Some(json!({"diff": diff, "firstChangedLine": 2}))
        );
    }

    #[tokio::test]
    async fn claude_style_argument_names_are_accepted() {
        let workspace = Workspace::new();
        workspace.write("a.txt", "alpha beta\n");
        let output = workspace
            .call(
                "edit",
                json!({"file_path": "a.txt", "old_string": "beta", "new_string": "gamma"}),
            )
            .await;
        assert!(!output.is_error, "{}", output.text_content());
        assert_eq!(workspace.read("a.txt"), "alpha gamma\n");
    }

    #[tokio::test]
    async fn text_that_occurs_twice_is_refused_with_the_count_and_the_file_is_untouched() {
        let workspace = Workspace::new();
        workspace.write("a.txt", "x = 1\nx = 1\n");
        let output = workspace
            .call(
                "edit",
                json!({"path": "a.txt", "oldText": "x = 1", "newText": "x = 2"}),
            )
            .await;
        assert!(output.is_error);
        assert_eq!(
            output.text_content(),
            "Found 2 occurrences of the text in a.txt. The text must be unique. Please provide more context to make it unique, or set replace_all to replace every occurrence."
        );
        assert_eq!(workspace.read("a.txt"), "x = 1\nx = 1\n");
    }

    #[tokio::test]
    async fn replace_all_replaces_every_occurrence() {
        let workspace = Workspace::new();
        workspace.write("a.txt", "x = 1\nx = 1\n");
        let output = workspace
            .call(
                "edit",
                json!({"path": "a.txt", "old_string": "1", "new_string": "3", "replace_all": true}),
            )
            .await;
        assert!(!output.is_error);
        assert_eq!(workspace.read("a.txt"), "x = 3\nx = 3\n");
    }

    #[tokio::test]
    async fn text_that_is_absent_is_an_error_with_a_hint_pointing_at_the_first_line() {
        let workspace = Workspace::new();
        workspace.write("a.txt", "fn main() {\n    run();\n}\n");
        let output = workspace
            .call(
                "edit",
                json!({"path": "a.txt", "oldText": "fn main() {\n    walk();", "newText": "x"}),
            )
            .await;
        assert!(output.is_error);
        assert_eq!(
            output.text_content(),
            "Could not find the exact text in a.txt. The old text must match exactly including all whitespace and newlines.\nHint: the first line of the old text occurs at line 1; the text differs after it. Read the file again and copy the lines exactly."
        );
    }

    #[test]
    fn trailing_whitespace_and_curly_quotes_are_tolerated_when_nothing_matches_exactly() {
        let content = "say(\"hi\")   \nnext\n";
        let updated =
            apply_edits(content, &one("say(“hi”)\nnext", "say('bye')\nnext"), "a").unwrap();
        assert_eq!(updated, "say('bye')\nnext\n");
    }

    #[test]
    fn unicode_dashes_and_no_break_spaces_fold_to_ascii() {
        let content = "a\u{00A0}\u{2014} b\n";
        assert_eq!(
            apply_edits(content, &one("a - b", "c"), "a").unwrap(),
            "c\n"
        );
    }

    #[test]
    fn indentation_differences_are_tolerated_and_the_new_text_is_reindented() {
        let content = "fn f() {\n        let a = 1;\n        let b = 2;\n}\n";
        let updated = apply_edits(
            content,
            &one("let a = 1;\nlet b = 2;\n", "let a = 10;\n    let b = 20;\n"),
            "a",
        )
        .unwrap();
        assert_eq!(
            updated,
            "fn f() {\n        let a = 10;\n            let b = 20;\n}\n"
        );
    }

    #[test]
    fn a_fuzzy_match_must_also_be_unique() {
        let content = "  x\n  x\n";
        assert_eq!(
            apply_edits(content, &one("x ", "y"), "f.txt"),
            Err(EditError::NotUnique {
                path: "f.txt".to_owned(),
                label: String::new(),
                count: 2
            })
        );
    }

    #[test]
    fn crlf_line_endings_and_a_bom_survive_an_edit() {
        let content = "\u{feff}one\r\ntwo\r\n";
        let updated = apply_edits(content, &one("one\ntwo", "uno\ndos"), "a").unwrap();
        assert_eq!(updated, "\u{feff}uno\r\ndos\r\n");
    }

    #[tokio::test]
    async fn several_edits_apply_in_order() {
        let workspace = Workspace::new();
        workspace.write("a.txt", "red green blue\n");
        let output = workspace
            .call(
                "edit",
                json!({"path": "a.txt", "edits": [
                    {"oldText": "red", "newText": "crimson"},
                    {"oldText": "crimson green", "newText": "crimson lime"}
                ]}),
            )
            .await;
        assert!(!output.is_error, "{}", output.text_content());
        assert!(
            output
                .text_content()
                .starts_with("Successfully applied 2 edits to a.txt.\n\n")
        );
        assert_eq!(workspace.read("a.txt"), "crimson lime blue\n");
    }

    #[tokio::test]
    async fn when_one_of_several_edits_fails_none_is_written() {
        let workspace = Workspace::new();
        workspace.write("a.txt", "red green blue\n");
        let output = workspace
            .call(
                "edit",
                json!({"path": "a.txt", "edits": [
                    {"oldText": "red", "newText": "crimson"},
                    {"oldText": "purple", "newText": "violet"}
                ]}),
            )
            .await;
        assert!(output.is_error);
        assert!(
            output
                .text_content()
                .starts_with("Could not find the exact text of edits[1] in a.txt.")
        );
        assert_eq!(workspace.read("a.txt"), "red green blue\n");
    }

    #[tokio::test]
    async fn an_edit_without_new_text_names_the_missing_argument() {
        let workspace = Workspace::new();
        workspace.write("a.txt", "x\n");
        let output = workspace
            .call(
                "edit",
                json!({"path": "a.txt", "edits": [{"oldText": "x"}]}),
            )
            .await;
        assert!(output.is_error);
        assert_eq!(
            output.text_content(),
            "Missing required argument 'edits[0].newText'"
        );
    }

    #[tokio::test]
    async fn editing_a_missing_file_is_a_file_not_found_error() {
        let workspace = Workspace::new();
        let output = workspace
            .call(
                "edit",
                json!({"path": "gone.txt", "oldText": "a", "newText": "b"}),
            )
            .await;
        assert!(output.is_error);
        assert_eq!(output.text_content(), "File not found: gone.txt");
    }

    #[test]
    fn empty_or_identical_old_text_is_refused() {
        assert_eq!(
            apply_edits("x", &one("", "y"), "a"),
            Err(EditError::EmptyOldText {
                label: String::new()
            })
        );
        assert_eq!(
            apply_edits("x", &one("x", "x"), "a"),
            Err(EditError::Unchanged {
                label: String::new()
            })
        );
    }
}
