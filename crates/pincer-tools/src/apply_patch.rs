//! `apply_patch`: add, delete, update and rename files with one patch in the `*** Begin Patch`
//! format that OpenAI's models are trained to write (codex's apply_patch).
//!
//! ```text
//! *** Begin Patch
//! *** Add File: path          then lines starting with '+'
//! *** Delete File: path
//! *** Update File: path
//! *** Move to: new/path       optional, right after Update File
//! @@ optional context line    then ' ' context, '-' removed and '+' added lines
//! *** End of File             optional, anchors the hunk at the end of the file
//! *** End Patch
//! ```
//!
//! The patch is parsed into a [`Patch`] first ([`parse`], pure). Every operation is then planned
//! in memory — hunks located in order, each after the previous one, first exactly, then ignoring
//! trailing whitespace, then surrounding whitespace, then typographic quotes and dashes — and only
//! when all of them apply is anything written. A failure names the file and the hunk.

use std::collections::HashMap;
use std::io::Read as _;
use std::path::{Path, PathBuf};

use serde_json::json;

use super::arguments::Arguments;
use super::edit::{fold_char, unified_diff};
use super::paths::Access;
use super::{ToolContext, ToolDefinition, ToolError, ToolOutput, make_definition, paths};

const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";
const ADD: &str = "*** Add File: ";
const DELETE: &str = "*** Delete File: ";
const UPDATE: &str = "*** Update File: ";
const MOVE: &str = "*** Move to: ";
const END_OF_FILE: &str = "*** End of File";

pub fn definition() -> ToolDefinition {
    // The format is said once, with no field prose repeating it: every request pays for it, and
    // on the Responses API this is the only editing tool (`super::for_model`).
    make_definition(
        "apply_patch",
        "Edit files with a patch: `*** Begin Patch`, any number of operations, `*** End Patch`. \
         `*** Add File: <path>` then the file's lines, each prefixed with + (creates or replaces \
         it); `*** Delete File: <path>`; `*** Update File: <path>`, optionally `*** Move to: \
         <new path>`, then hunks. A hunk starts with `@@` (optionally `@@ <a line above the \
         change, e.g. a function signature>`) and lists lines prefixed with a space (context, \
         about 3 lines before and after), - (removed) or + (added); `*** End of File` after a \
         hunk anchors it at the file's end. Hunks of one file go in file order. Nothing is \
         written unless every hunk applies.",
        json!({"input": {"type": "string"}}),
        &["input"],
    )
}

/// A parsed patch: the file operations in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Patch {
    pub operations: Vec<Operation>,
}

/// One file operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Operation {
    Add {
        path: String,
        content: String,
    },
    Delete {
        path: String,
    },
    Update {
        path: String,
        move_to: Option<String>,
        hunks: Vec<Hunk>,
    },
}

/// One `@@` section of an update.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Hunk {
    /// The line after `@@ `, located before the hunk's lines.
    pub context: Option<String>,
    /// Context and removed lines: what must be in the file.
    pub old_lines: Vec<String>,
    /// Context and added lines: what replaces them.
    pub new_lines: Vec<String>,
    /// Anchored at the end of the file.
    pub end_of_file: bool,
}

/// Why a patch was not applied. Parse and hunk failures leave every file untouched.
#[derive(Debug, thiserror::Error)]
pub enum PatchError {
    #[error("Invalid patch (line {line}): {message}")]
    Parse { line: usize, message: String },
    #[error(
        "Failed to apply hunk {hunk} to {path}: could not find the context line '{context}' (after the previous hunk, if any). No files were changed."
    )]
    ContextNotFound {
        path: String,
        hunk: usize,
        context: String,
    },
    #[error(
        "Failed to apply hunk {hunk} to {path}: could not find these lines (after the previous hunk, if any):\n{expected}\nRead the file again and make the context and - lines match it. No files were changed."
    )]
    HunkNotFound {
        path: String,
        hunk: usize,
        expected: String,
    },
    #[error("Cannot {action} {path}: the file does not exist. No files were changed.")]
    Missing { action: &'static str, path: String },
    #[error("Cannot {action} {path}: {source}")]
    Io {
        action: &'static str,
        path: String,
        source: std::io::Error,
    },
}

fn parse_error(line: usize, message: impl Into<String>) -> PatchError {
    PatchError::Parse {
        line,
        message: message.into(),
    }
}

/// Parse the patch text into operations, without touching any file.
pub fn parse(input: &str) -> Result<Patch, PatchError> {
    let all: Vec<&str> = input.lines().collect();
    // Ignore blank lines around the envelope; line numbers stay those of the input.
    let first = all.iter().position(|line| !line.trim().is_empty());
    let last = all.iter().rposition(|line| !line.trim().is_empty());
    let (Some(first), Some(last)) = (first, last) else {
        return Err(parse_error(1, "the patch is empty"));
    };
    if all[first].trim() != BEGIN {
        return Err(parse_error(
            first + 1,
            format!("the first line must be '{BEGIN}'"),
        ));
    }
    if last == first || all[last].trim() != END {
        return Err(parse_error(
            last + 1,
            format!("the last line must be '{END}'"),
        ));
    }

    let mut operations = Vec::new();
    let mut index = first + 1;
    while index < last {
        let line = all[index];
        let header = line.trim();
        if header.is_empty() {
            index += 1;
        } else if let Some(path) = header_path(header, ADD, index)? {
            index += 1;
            let mut lines = Vec::new();
            while index < last && !all[index].starts_with("***") {
                match all[index].strip_prefix('+') {
                    Some(text) => lines.push(text),
                    None => {
                        return Err(parse_error(
                            index + 1,
                            format!("in Add File {path}, every line must start with '+'"),
                        ));
                    }
                }
                index += 1;
            }
            let content = lines.iter().map(|line| format!("{line}\n")).collect();
            operations.push(Operation::Add { path, content });
        } else if let Some(path) = header_path(header, DELETE, index)? {
            index += 1;
            operations.push(Operation::Delete { path });
        } else if let Some(path) = header_path(header, UPDATE, index)? {
            index += 1;
            let mut move_to = None;
            if index < last
                && let Some(target) = header_path(all[index].trim(), MOVE, index)?
            {
                move_to = Some(target);
                index += 1;
            }
            let hunks = parse_hunks(&all, &mut index, last, &path)?;
            if hunks.is_empty() && move_to.is_none() {
                return Err(parse_error(
                    index + 1,
                    format!("Update File {path} has no hunks"),
                ));
            }
            operations.push(Operation::Update {
                path,
                move_to,
                hunks,
            });
        } else {
            return Err(parse_error(
                index + 1,
                format!(
                    "unexpected line '{line}'; expected '{ADD}', '{DELETE}' or '{UPDATE}' followed by a path"
                ),
            ));
        }
    }
    if operations.is_empty() {
        return Err(parse_error(
            first + 1,
            "the patch contains no file operations",
        ));
    }
    Ok(Patch { operations })
}

/// The path after `prefix` on a header line, if the line is that header.
fn header_path(header: &str, prefix: &str, index: usize) -> Result<Option<String>, PatchError> {
    let Some(path) = header.strip_prefix(prefix.trim_end()) else {
        return Ok(None);
    };
    let path = path.trim();
    if path.is_empty() {
        return Err(parse_error(
            index + 1,
            format!("'{}' needs a path", prefix.trim_end()),
        ));
    }
    Ok(Some(path.to_owned()))
}

/// The hunks of one Update File section, up to the next `***` header.
fn parse_hunks(
    all: &[&str],
    index: &mut usize,
    last: usize,
    path: &str,
) -> Result<Vec<Hunk>, PatchError> {
    let mut hunks: Vec<Hunk> = Vec::new();
    let mut current: Option<Hunk> = None;
    while *index < last {
        let line = all[*index];
        if line.trim() == END_OF_FILE {
            let Some(hunk) = current.as_mut() else {
                return Err(parse_error(
                    *index + 1,
                    format!("'{END_OF_FILE}' outside a hunk in Update File {path}"),
                ));
            };
            hunk.end_of_file = true;
            hunks.extend(current.take());
            *index += 1;
            continue;
        }
        if line.starts_with("***") {
            break;
        }
        if let Some(rest) = line.trim_end().strip_prefix("@@") {
            hunks.extend(current.take());
            let context = rest.trim();
            current = Some(Hunk {
                context: (!context.is_empty()).then(|| context.to_owned()),
                ..Hunk::default()
            });
            *index += 1;
            continue;
        }
        // The first hunk may leave out its `@@` line.
        let hunk = match current.as_mut() {
            Some(hunk) => hunk,
            None if hunks.is_empty() => current.insert(Hunk::default()),
            None => {
                return Err(parse_error(
                    *index + 1,
                    format!("expected '@@' to start the next hunk of {path}, found '{line}'"),
                ));
            }
        };
        if line.is_empty() {
            // An empty line is taken as blank context; editors strip the lone space.
            hunk.old_lines.push(String::new());
            hunk.new_lines.push(String::new());
        } else if let Some(text) = line.strip_prefix(' ') {
            hunk.old_lines.push(text.to_owned());
            hunk.new_lines.push(text.to_owned());
        } else if let Some(text) = line.strip_prefix('-') {
            hunk.old_lines.push(text.to_owned());
        } else if let Some(text) = line.strip_prefix('+') {
            hunk.new_lines.push(text.to_owned());
        } else {
            return Err(parse_error(
                *index + 1,
                format!(
                    "unexpected line '{line}' in a hunk of {path}; hunk lines start with ' ', '-' or '+'"
                ),
            ));
        }
        *index += 1;
    }
    hunks.extend(current);
    for (number, hunk) in hunks.iter().enumerate() {
        if hunk.old_lines.is_empty() && hunk.new_lines.is_empty() {
            return Err(parse_error(
                *index + 1,
                format!("hunk {} of {path} is empty", number + 1),
            ));
        }
    }
    Ok(hunks)
}

/// Apply `hunks` to `original` in memory. `path` only names the file in errors.
pub fn apply_hunks(original: &str, hunks: &[Hunk], path: &str) -> Result<String, PatchError> {
    let mut lines: Vec<String> = original.split('\n').map(str::to_owned).collect();
    if original.ends_with('\n') || original.is_empty() {
        lines.pop();
    }
    let mut replacements: Vec<(usize, usize, Vec<String>)> = Vec::new();
    let mut cursor = 0;
    for (index, hunk) in hunks.iter().enumerate() {
        let number = index + 1;
        if let Some(context) = &hunk.context {
            match seek(&lines, std::slice::from_ref(context), cursor, false) {
                Some(found) => cursor = found + 1,
                None => {
                    return Err(PatchError::ContextNotFound {
                        path: path.to_owned(),
                        hunk: number,
                        context: context.clone(),
                    });
                }
            }
        }
        if hunk.old_lines.is_empty() {
            let at = if hunk.context.is_some() {
                cursor
            } else {
                lines.len()
            };
            replacements.push((at, 0, hunk.new_lines.clone()));
            cursor = at;
            continue;
        }
        let mut old = &hunk.old_lines[..];
        let mut new = &hunk.new_lines[..];
        let mut found = seek(&lines, old, cursor, hunk.end_of_file);
        if found.is_none() && old.last().is_some_and(String::is_empty) {
            // A blank context line at the end that the file does not have.
            old = &old[..old.len() - 1];
            if new.last().is_some_and(String::is_empty) {
                new = &new[..new.len() - 1];
            }
            found = seek(&lines, old, cursor, hunk.end_of_file);
        }
        let Some(start) = found else {
            return Err(PatchError::HunkNotFound {
                path: path.to_owned(),
                hunk: number,
                expected: hunk.old_lines.join("\n"),
            });
        };
        replacements.push((start, old.len(), new.to_vec()));
        cursor = start + old.len();
    }
    for (start, removed, added) in replacements.into_iter().rev() {
        lines.splice(start..start + removed, added);
    }
    if lines.is_empty() {
        return Ok(String::new());
    }
    let mut result = lines.join("\n");
    result.push('\n');
    Ok(result)
}

/// Where `pattern` occurs in `lines` at or after `start`, trying stricter comparisons first. With
/// `end_of_file`, a match ending at the last line is preferred.
fn seek(lines: &[String], pattern: &[String], start: usize, end_of_file: bool) -> Option<usize> {
    if pattern.is_empty() {
        return Some(start);
    }
    if pattern.len() > lines.len() {
        return None;
    }
    let last_start = lines.len() - pattern.len();
    let comparisons: [fn(&str, &str) -> bool; 4] = [
        |left, right| left == right,
        |left, right| left.trim_end() == right.trim_end(),
        |left, right| left.trim() == right.trim(),
        |left, right| {
            left.trim()
                .chars()
                .map(fold_char)
                .eq(right.trim().chars().map(fold_char))
        },
    ];
    for same in comparisons {
        let matches_at = |at: usize| {
            pattern
                .iter()
                .zip(&lines[at..])
                .all(|(expected, actual)| same(actual, expected))
        };
        if end_of_file && last_start >= start && matches_at(last_start) {
            return Some(last_start);
        }
        if let Some(found) = (start..=last_start).find(|&at| matches_at(at)) {
            return Some(found);
        }
    }
    None
}

/// A planned change to one file, computed before anything is written.
#[derive(Debug)]
struct Change {
    /// As named in the patch (the destination, for a move).
    shown_path: String,
    /// The file it changes, as named in the patch (the file moved, for a move).
    source_path: String,
    letter: char,
    source: PathBuf,
    /// None: delete. For a move, `destination` differs from `source`.
    new_content: Option<String>,
    destination: PathBuf,
    old_content: String,
}

pub fn run(arguments: &Arguments<'_>, context: &ToolContext) -> Result<ToolOutput, ToolError> {
    let input = arguments.required_string(&["input", "patch"])?;
    let patch = parse(input)?;
    let changes = plan(&patch, context)?;
    write_changes(&changes, context)?;

    let mut summary = String::from("Success. Updated the following files:");
    let mut diff = String::new();
    let mut files = Vec::new();
    for change in &changes {
        summary.push_str(&format!("\n{} {}", change.letter, change.shown_path));
        let (file_diff, _) = unified_diff(
            &change.old_content,
            change.new_content.as_deref().unwrap_or_default(),
            &change.shown_path,
        );
        diff.push_str(&file_diff);
        files.push(json!({"path": change.shown_path, "action": change.letter.to_string()}));
    }
    Ok(ToolOutput::text(summary).with_details(json!({"diff": diff, "files": files})))
}

/// Work out every file's new content, reading files as they stand after the earlier operations
/// of the same patch. Nothing is written here.
/// Every path is checked for writing here, so a patch touching anything the sandbox forbids is
/// refused before its first change lands.
fn plan(patch: &Patch, context: &ToolContext) -> Result<Vec<Change>, ToolError> {
    // Files as the patch has left them so far: None = deleted.
    let mut state: HashMap<PathBuf, Option<String>> = HashMap::new();
    let current = |state: &HashMap<PathBuf, Option<String>>,
                   path: &Path,
                   shown: &str,
                   action: &'static str| {
        match state.get(path) {
            Some(known) => known.clone().ok_or_else(|| PatchError::Missing {
                action,
                path: shown.to_owned(),
            }),
            None => read_text(context, path, shown, action),
        }
    };

    let mut changes = Vec::new();
    for operation in &patch.operations {
        match operation {
            Operation::Add { path, content } => {
                let resolved = paths::check(context, path, Access::Write)?;
                // What was there only feeds the diff, but a FIFO or a device there fails the
                // patch now, before any file is written.
                let old_content = match current(&state, &resolved, path, "add") {
                    Err(PatchError::Io { source, .. })
                        if crate::fs::NotRegular::of(&source).is_some() =>
                    {
                        return Err(PatchError::Io {
                            action: "add",
                            path: path.clone(),
                            source,
                        }
                        .into());
                    }
                    other => other.unwrap_or_default(),
                };
                state.insert(resolved.clone(), Some(content.clone()));
                changes.push(Change {
                    shown_path: path.clone(),
                    source_path: path.clone(),
                    letter: 'A',
                    source: resolved.clone(),
                    new_content: Some(content.clone()),
                    destination: resolved,
                    old_content,
                });
            }
            Operation::Delete { path } => {
                let resolved = paths::check(context, path, Access::Write)?;
                let old_content = current(&state, &resolved, path, "delete")?;
                state.insert(resolved.clone(), None);
                changes.push(Change {
                    shown_path: path.clone(),
                    source_path: path.clone(),
                    letter: 'D',
                    source: resolved.clone(),
                    new_content: None,
                    destination: resolved,
                    old_content,
                });
            }
            Operation::Update {
                path,
                move_to,
                hunks,
            } => {
                let resolved = paths::check(context, path, Access::Write)?;
                let old_content = current(&state, &resolved, path, "update")?;
                let new_content = apply_hunks(&old_content, hunks, path)?;
                let (destination, shown_path) = match move_to {
                    Some(target) => (
                        paths::check(context, target, Access::Write)?,
                        target.clone(),
                    ),
                    None => (resolved.clone(), path.clone()),
                };
                if destination != resolved {
                    state.insert(resolved.clone(), None);
                }
                state.insert(destination.clone(), Some(new_content.clone()));
                changes.push(Change {
                    shown_path,
                    source_path: path.clone(),
                    letter: 'M',
                    source: resolved,
                    new_content: Some(new_content),
                    destination,
                    old_content,
                });
            }
        }
    }
    Ok(changes)
}

/// The text of the file at `path` (`shown` as the patch names it) before the patch, for
/// `action`.
fn read_text(
    context: &ToolContext,
    path: &Path,
    shown: &str,
    action: &'static str,
) -> Result<String, PatchError> {
    let mut bytes = Vec::new();
    let read = paths::open_read(context, path).and_then(|mut file| file.read_to_end(&mut bytes));
    match read {
        Ok(_) => String::from_utf8(bytes).map_err(|_| PatchError::Io {
            action,
            path: shown.to_owned(),
            source: std::io::Error::new(std::io::ErrorKind::InvalidData, "not UTF-8 text"),
        }),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Err(PatchError::Missing {
            action,
            path: shown.to_owned(),
        }),
        Err(source) => Err(PatchError::Io {
            action,
            path: shown.to_owned(),
            source,
        }),
    }
}

fn write_changes(changes: &[Change], context: &ToolContext) -> Result<(), PatchError> {
    let io = |action: &'static str, path: &str| {
        let path = path.to_owned();
        move |source| PatchError::Io {
            action,
            path,
            source,
        }
    };
    for change in changes {
        match &change.new_content {
            None => paths::remove_file(context, &change.source)
                .map_err(io("delete", &change.shown_path))?,
            Some(content) => {
                paths::replace_file(context, &change.destination, content.as_bytes())
                    .map_err(io("write", &change.shown_path))?;
                if change.destination != change.source {
                    paths::remove_file(context, &change.source)
                        .map_err(io("remove the moved file", &change.source_path))?;
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::test_support::Workspace;
    use super::*;

    fn hunk(context: Option<&str>, old: &[&str], new: &[&str]) -> Hunk {
        Hunk {
            context: context.map(str::to_owned),
            old_lines: old.iter().map(|line| (*line).to_owned()).collect(),
            new_lines: new.iter().map(|line| (*line).to_owned()).collect(),
            end_of_file: false,
        }
    }

    #[test]
    fn a_patch_parses_into_its_operations() {
        let patch = parse(
            "*** Begin Patch\n*** Add File: new.txt\n+hello\n+\n*** Delete File: old.txt\n*** Update File: a.py\n*** Move to: b.py\n@@ def f():\n-    return 1\n+    return 2\n*** End of File\n*** End Patch\n",
        )
        .unwrap();
        let mut update = hunk(Some("def f():"), &["    return 1"], &["    return 2"]);
        update.end_of_file = true;
        assert_eq!(
            patch.operations,
            vec![
                Operation::Add {
                    path: "new.txt".to_owned(),
                    content: "hello\n\n".to_owned()
                },
                Operation::Delete {
                    path: "old.txt".to_owned()
                },
                Operation::Update {
                    path: "a.py".to_owned(),
                    move_to: Some("b.py".to_owned()),
                    hunks: vec![update]
                },
            ]
        );
    }

    #[test]
    fn a_patch_without_its_envelope_is_rejected_with_the_line() {
        assert_eq!(
            parse("*** Add File: x\n+y\n").unwrap_err().to_string(),
            "Invalid patch (line 1): the first line must be '*** Begin Patch'"
        );
        assert_eq!(
            parse("*** Begin Patch\n*** Add File: x\n+y\n")
                .unwrap_err()
                .to_string(),
            "Invalid patch (line 3): the last line must be '*** End Patch'"
        );
        assert_eq!(
            parse("*** Begin Patch\n*** Update File: x\n garbage\nnonsense\n*** End Patch")
                .unwrap_err()
                .to_string(),
            "Invalid patch (line 4): unexpected line 'nonsense' in a hunk of x; hunk lines start with ' ', '-' or '+'"
        );
    }

    #[test]
    fn hunks_apply_in_order_and_the_result_ends_with_a_newline() {
        let original = "a\nb\nc\nd\ne";
        let updated = apply_hunks(
            original,
            &[
                hunk(None, &["b"], &["B"]),
                hunk(None, &["d", "e"], &["D", "e"]),
            ],
            "f",
        )
        .unwrap();
        assert_eq!(updated, "a\nB\nc\nD\ne\n");
    }

    #[test]
    fn a_context_header_locates_the_hunk_and_a_pure_insertion_goes_after_it() {
        let original = "fn a() {\n}\nfn b() {\n}\n";
        let updated =
            apply_hunks(original, &[hunk(Some("fn b() {"), &[], &["    b();"])], "f").unwrap();
        assert_eq!(updated, "fn a() {\n}\nfn b() {\n    b();\n}\n");
    }

    #[test]
    fn end_of_file_prefers_the_match_at_the_end() {
        let original = "x\ny\nx\n";
        let mut last = hunk(None, &["x"], &["z"]);
        last.end_of_file = true;
        assert_eq!(apply_hunks(original, &[last], "f").unwrap(), "x\ny\nz\n");
    }

    #[test]
    fn whitespace_and_curly_quotes_are_tolerated_when_locating_lines() {
        let original = "say(“hi”)   \n";
        let updated = apply_hunks(
            original,
            &[hunk(None, &["  say(\"hi\")"], &["say(\"bye\")"])],
            "f",
        )
        .unwrap();
        assert_eq!(updated, "say(\"bye\")\n");
    }

    #[tokio::test]
    async fn add_update_delete_and_move_are_applied_and_summarised() {
        let workspace = Workspace::new();
        workspace.write("src/app.py", "def greet():\n    print(\"Hi\")\n");
        workspace.write("obsolete.txt", "bye\n");
        let input = "*** Begin Patch\n*** Add File: docs/hello.txt\n+Hello world\n*** Update File: src/app.py\n*** Move to: src/main.py\n@@ def greet():\n-    print(\"Hi\")\n+    print(\"Hello, world!\")\n*** Delete File: obsolete.txt\n*** End Patch";
        let output = workspace.call("apply_patch", json!({"input": input})).await;
        assert!(!output.is_error, "{}", output.text_content());
        assert_eq!(
            output.text_content(),
            "Success. Updated the following files:\nA docs/hello.txt\nM src/main.py\nD obsolete.txt"
        );
        assert_eq!(workspace.read("docs/hello.txt"), "Hello world\n");
        assert_eq!(
            workspace.read("src/main.py"),
            "def greet():\n    print(\"Hello, world!\")\n"
        );
        assert!(!workspace.path("src/app.py").exists());
        assert!(!workspace.path("obsolete.txt").exists());
        let diff = output.details.as_ref().unwrap()["diff"].as_str().unwrap();
        assert!(diff.contains("+++ b/src/main.py\n"), "{diff}");
        assert!(diff.contains("-    print(\"Hi\")\n+    print(\"Hello, world!\")\n"));
    }

    #[tokio::test]
    async fn a_moved_file_that_cannot_be_removed_is_named_as_the_patch_names_it() {
        let workspace = Workspace::new();
        workspace.write("src/app.py", "a\n");
        let source = workspace.path("src/app.py");
        // An immutable file cannot be unlinked, even by root (ext4 and most local filesystems).
        let chattr = |flag: &str| {
            std::process::Command::new("chattr")
                .arg(flag)
                .arg(&source)
                .output()
                .is_ok_and(|output| output.status.success())
        };
        if !chattr("+i") {
            eprintln!("skipped: chattr +i is not available here");
            return;
        }
        let input = "*** Begin Patch\n*** Update File: src/app.py\n*** Move to: src/main.py\n@@\n-a\n+b\n*** End Patch";
        let output = workspace.call("apply_patch", json!({"input": input})).await;
        chattr("-i");
        assert!(output.is_error);
        assert!(
            output
                .text_content()
                .starts_with("Cannot remove the moved file src/app.py: "),
            "{}",
            output.text_content()
        );
    }

    #[tokio::test]
    async fn a_failing_hunk_names_the_file_and_hunk_and_leaves_every_file_untouched() {
        let workspace = Workspace::new();
        workspace.write("a.txt", "one\ntwo\n");
        workspace.write("b.txt", "three\n");
        let input = "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n*** Delete File: b.txt\n*** Add File: c.txt\n+new\n*** Update File: a.txt\n@@\n-missing\n+gone\n*** End Patch\n";
        let output = workspace.call("apply_patch", json!({"input": input})).await;
        assert!(output.is_error);
        assert_eq!(
            output.text_content(),
            "Failed to apply hunk 1 to a.txt: could not find these lines (after the previous hunk, if any):\nmissing\nRead the file again and make the context and - lines match it. No files were changed."
        );
        assert_eq!(workspace.read("a.txt"), "one\ntwo\n");
        assert_eq!(workspace.read("b.txt"), "three\n");
        assert!(!workspace.path("c.txt").exists());
    }

    #[tokio::test]
    async fn a_patch_touching_a_fifo_fails_at_once_and_changes_nothing() {
        let workspace = Workspace::new();
        workspace.write("a.txt", "one\n");
        workspace.fifo("pipe");
        for operation in [
            "*** Update File: pipe\n@@\n-a\n+b",
            "*** Delete File: pipe",
            "*** Add File: pipe\n+new",
        ] {
            let input = format!(
                "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n{operation}\n*** End Patch"
            );
            let output = workspace.call("apply_patch", json!({"input": input})).await;
            assert!(output.is_error, "{operation}");
            assert!(
                output.text_content().contains("is a FIFO (named pipe)"),
                "{operation}: {}",
                output.text_content()
            );
            assert_eq!(workspace.read("a.txt"), "one\n");
        }
    }

    #[tokio::test]
    async fn updating_a_missing_file_is_an_error() {
        let workspace = Workspace::new();
        let input = "*** Begin Patch\n*** Update File: ghost.txt\n@@\n-a\n+b\n*** End Patch";
        let output = workspace.call("apply_patch", json!({"input": input})).await;
        assert!(output.is_error);
        assert_eq!(
            output.text_content(),
            "Cannot update ghost.txt: the file does not exist. No files were changed."
        );
    }

    #[tokio::test]
    async fn a_missing_context_header_names_the_hunk() {
        let workspace = Workspace::new();
        workspace.write("a.rs", "fn a() {}\n");
        let input = "*** Begin Patch\n*** Update File: a.rs\n@@ fn a() {}\n+// after a\n@@ fn zzz()\n+x\n*** End Patch";
        let output = workspace.call("apply_patch", json!({"input": input})).await;
        assert!(output.is_error);
        assert_eq!(
            output.text_content(),
            "Failed to apply hunk 2 to a.rs: could not find the context line 'fn zzz()' (after the previous hunk, if any). No files were changed."
        );
        assert_eq!(workspace.read("a.rs"), "fn a() {}\n");
    }
}
