//! `grep`: lines matching a regular expression (or a literal string) in the files below a path,
//! with ripgrep's engine — grep-regex and grep-searcher over the ignore-aware walk — in process.
//!
//! Files are searched in parallel and then reported in path order, so the output is the same on
//! every run: `path:line:text` for matches and `path-line-text` for context lines, `--` between
//! groups that are not adjacent. Binary files (a NUL byte) are skipped, lines longer than
//! [`MAX_LINE_CHARS`] are cut, and the output stops after `limit` matches with a note.

use std::path::Path;
use std::sync::Mutex;

use grep_regex::RegexMatcherBuilder;
use grep_searcher::{
    BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkContextKind, SinkMatch,
};
use ignore::WalkState;
use serde_json::json;

use super::arguments::Arguments;
use super::paths::Access;
use super::truncate::cut_line;
use super::walk::{self, PathFilter};
use super::{ToolContext, ToolDefinition, ToolError, ToolOutput, make_definition, paths};
use crate::conversation::ContentBlock;
use crate::fs::FileKind;

/// Matches reported when the call does not say.
pub(super) const DEFAULT_LIMIT: u64 = 100;
/// Characters of one line shown before it is cut.
pub(super) const MAX_LINE_CHARS: usize = 500;

pub(super) fn definition() -> ToolDefinition {
    make_definition(
        "grep",
        "Search file contents for a Rust regex (or plain text: literal). Skips gitignored, hidden \
         and binary files; glob filters files (`*.rs`). Prints `path:line:text` relative to \
         path (default: the workspace); at most limit matches (default 100), lines cut at 500 \
         characters.",
        json!({
            "pattern": {"type": "string"},
            "path": {"type": "string"},
            "glob": {"type": "string"},
            "ignoreCase": {"type": "boolean"},
            "literal": {"type": "boolean"},
            "context": {"type": "integer", "minimum": 0, "description": "Lines around each match"},
            "limit": {"type": "integer", "minimum": 1}
        }),
        &["pattern"],
    )
}

/// One line of one file's results.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Entry {
    Line {
        number: u64,
        is_match: bool,
        before_context: bool,
        text: String,
    },
    Break,
}

/// A file's results: its entries, and whether it had more matches than the limit.
#[derive(Debug)]
struct FileResult {
    path: String,
    entries: Vec<Entry>,
    more: bool,
}

pub(super) fn run(
    arguments: &Arguments<'_>,
    context: &ToolContext,
) -> Result<ToolOutput, ToolError> {
    let pattern = arguments.required_string(&["pattern"])?;
    let raw_path = arguments.optional_string(&["path"])?.unwrap_or(".");
    let glob = arguments.optional_string(&["glob"])?;
    let ignore_case = arguments.flag(&["ignoreCase", "ignore_case", "-i"])?;
    let literal = arguments.flag(&["literal"])?;
    let context_lines = usize::try_from(arguments.optional_count(&["context", "-C"])?.unwrap_or(0))
        .unwrap_or(usize::MAX);
    let limit = usize::try_from(
        arguments
            .optional_count(&["limit"])?
            .unwrap_or(DEFAULT_LIMIT),
    )
    .unwrap_or(usize::MAX)
    .max(1);

    let matcher = RegexMatcherBuilder::new()
        .case_insensitive(ignore_case)
        .fixed_strings(literal)
        .build(pattern)
        .map_err(|error| ToolError::Rejected(format!("Invalid regex pattern: {error}")))?;
    let filter = glob.map(|glob| PathFilter::new(glob, "glob")).transpose()?;
    let root = paths::check(context, raw_path, Access::Read)?;
    let root_is_file = is_file(&root, raw_path)?;
    walk::refuse_unreadable_rules(&root, raw_path)?;

    let results = Mutex::new(Vec::new());
    let walk = walk::builder(&root, &context.sandbox);
    walk.builder.build_parallel().run(|| {
        let matcher = matcher.clone();
        let mut searcher = SearcherBuilder::new()
            .line_number(true)
            .before_context(context_lines)
            .after_context(context_lines)
            .binary_detection(BinaryDetection::quit(b'\x00'))
            .build();
        let root = &root;
        let filter = &filter;
        let results = &results;
        Box::new(move |entry| {
            let Ok(entry) = entry else {
                return WalkState::Continue;
            };
            if !entry.file_type().is_some_and(|kind| kind.is_file()) {
                return WalkState::Continue;
            }
            let shown = if root_is_file {
                file_name(entry.path())
            } else {
                paths::relative_display(root, entry.path())
            };
            if let Some(filter) = filter
                && !filter.matches(&shown)
            {
                return WalkState::Continue;
            }
            let mut sink = Collector {
                entries: Vec::new(),
                matches: 0,
                limit,
                more: false,
            };
            // Opened here rather than by the searcher: a FIFO or device put in the file's place
            // since the walk saw it is refused instead of blocking the search.
            let Ok(file) = crate::fs::open_regular(entry.path(), false) else {
                return WalkState::Continue;
            };
            if searcher.search_file(&matcher, &file, &mut sink).is_ok()
                && sink.matches > 0
                && let Ok(mut results) = results.lock()
            {
                results.push(FileResult {
                    path: shown,
                    entries: sink.entries,
                    more: sink.more,
                });
            }
            WalkState::Continue
        })
    });
    let mut results = results
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    results.sort_by(|left, right| left.path.cmp(&right.path));
    let mut output = render(&results, limit, context_lines > 0);
    if let Some(note) = walk.skipped_note(&root) {
        output.content.push(ContentBlock::text(note));
    }
    Ok(output)
}

/// Whether the search's `root` (`raw_path` as the model wrote it) is a file rather than a
/// directory; anything else is an error.
fn is_file(root: &Path, raw_path: &str) -> Result<bool, ToolError> {
    let Ok(metadata) = std::fs::metadata(root) else {
        return Err(ToolError::PathNotFound {
            path: raw_path.to_owned(),
        });
    };
    match FileKind::of(metadata.file_type()) {
        FileKind::Regular => Ok(true),
        FileKind::Directory => Ok(false),
        kind => Err(ToolError::NotRegularFile {
            path: raw_path.to_owned(),
            kind,
        }),
    }
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |name| name.to_string_lossy().into_owned(),
    )
}

/// Collects one file's lines; stops the search at the first match past the limit.
struct Collector {
    entries: Vec<Entry>,
    matches: usize,
    limit: usize,
    more: bool,
}

impl Collector {
    fn push_line(&mut self, number: Option<u64>, bytes: &[u8], is_match: bool, before: bool) {
        let text = String::from_utf8_lossy(bytes);
        let text = text.trim_end_matches(['\n', '\r']);
        self.entries.push(Entry::Line {
            number: number.unwrap_or(0),
            is_match,
            before_context: before,
            text: cut_line(text, MAX_LINE_CHARS).into_owned(),
        });
    }
}

impl Sink for Collector {
    type Error = std::io::Error;

    fn matched(&mut self, _: &Searcher, found: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        if self.matches == self.limit {
            self.more = true;
            return Ok(false);
        }
        self.matches += 1;
        self.push_line(found.line_number(), found.bytes(), true, false);
        Ok(true)
    }

    fn context(&mut self, _: &Searcher, line: &SinkContext<'_>) -> Result<bool, Self::Error> {
        let before = matches!(line.kind(), SinkContextKind::Before);
        self.push_line(line.line_number(), line.bytes(), false, before);
        Ok(true)
    }

    fn context_break(&mut self, _: &Searcher) -> Result<bool, Self::Error> {
        self.entries.push(Entry::Break);
        Ok(true)
    }
}

/// The text for the model: files in path order, cut after `limit` matches.
fn render(results: &[FileResult], limit: usize, with_context: bool) -> ToolOutput {
    if results.is_empty() {
        return ToolOutput::text("No matches found");
    }
    let mut lines: Vec<String> = Vec::new();
    // Whether each output line is a before-context line or a break, for trimming on truncation.
    let mut trimmable: Vec<bool> = Vec::new();
    let mut shown = 0;
    let mut truncated = false;
    'files: for (index, file) in results.iter().enumerate() {
        if with_context && index > 0 {
            lines.push("--".to_owned());
            trimmable.push(true);
        }
        for entry in &file.entries {
            match entry {
                Entry::Break => {
                    lines.push("--".to_owned());
                    trimmable.push(true);
                }
                Entry::Line {
                    number,
                    is_match,
                    before_context,
                    text,
                } => {
                    if *is_match {
                        if shown == limit {
                            truncated = true;
                            break 'files;
                        }
                        shown += 1;
                    }
                    let separator = if *is_match { ':' } else { '-' };
                    lines.push(format!("{}{separator}{number}{separator}{text}", file.path));
                    trimmable.push(*before_context);
                }
            }
        }
        if file.more || (shown == limit && index + 1 < results.len()) {
            truncated = true;
            break;
        }
    }
    if truncated {
        while trimmable.last() == Some(&true) {
            trimmable.pop();
            lines.pop();
        }
    }
    let mut text = lines.join("\n");
    if truncated {
        text.push_str(&format!(
            "\n\n[Showing the first {limit} matches; there are more. Narrow the pattern, path or glob, or raise limit.]"
        ));
    }
    ToolOutput::text(text).with_details(json!({"matches": shown, "truncated": truncated}))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::test_support::Workspace;

    fn tree() -> Workspace {
        let workspace = Workspace::new();
        workspace.write(".gitignore", "generated/\n");
        workspace.write("src/a.rs", "fn alpha() {}\nlet needle = 1;\nfn beta() {}\n");
        workspace.write("src/b.txt", "Needle in text\n");
        workspace.write("generated/c.rs", "let needle = 2;\n");
        workspace.write(".hidden.rs", "needle\n");
        workspace.write("bin.dat", b"needle\0binary");
        workspace
    }

    #[tokio::test]
    async fn matches_are_listed_as_path_line_text_and_ignored_hidden_and_binary_files_are_skipped()
    {
        let workspace = tree();
        let output = workspace.call("grep", json!({"pattern": "needle"})).await;
        assert!(!output.is_error);
        assert_eq!(output.text_content(), "src/a.rs:2:let needle = 1;");
    }

    #[tokio::test]
    async fn fifos_and_directories_with_unreadable_rules_are_skipped_and_named() {
        let workspace = tree();
        workspace.fifo("src/needle.fifo");
        std::fs::create_dir(workspace.path("trap")).unwrap();
        workspace.fifo("trap/.ignore");
        workspace.write("trap/c.rs", "needle\n");
        let output = workspace.call("grep", json!({"pattern": "needle"})).await;
        assert!(!output.is_error);
        assert_eq!(
            output.text_content(),
            "src/a.rs:2:let needle = 1;\n[Directories not searched, because their ignore rules \
             cannot be read: trap/.ignore is a FIFO (named pipe), not a regular file.]"
        );
        // Searched from inside, the rules of the root itself cannot be read: refused.
        let output = workspace
            .call("grep", json!({"pattern": "needle", "path": "trap"}))
            .await;
        assert!(output.is_error);
        assert!(
            output.text_content().starts_with("Cannot search trap: "),
            "{}",
            output.text_content()
        );
        let output = workspace
            .call(
                "grep",
                json!({"pattern": "needle", "path": "src/needle.fifo"}),
            )
            .await;
        assert!(output.is_error);
        assert!(
            output
                .text_content()
                .starts_with("src/needle.fifo is a FIFO (named pipe), not a regular file"),
            "{}",
            output.text_content()
        );
    }

    #[tokio::test]
    async fn ignore_case_and_the_glob_filter_narrow_the_search() {
        let workspace = tree();
        let output = workspace
            .call(
                "grep",
                json!({"pattern": "needle", "ignoreCase": true, "glob": "*.txt"}),
            )
            .await;
        assert_eq!(output.text_content(), "src/b.txt:1:Needle in text");
    }

    #[tokio::test]
    async fn context_lines_use_a_dash_separator() {
        let workspace = tree();
        let output = workspace
            .call(
                "grep",
                json!({"pattern": "needle", "context": 1, "path": "src"}),
            )
            .await;
        assert_eq!(
            output.text_content(),
            "a.rs-1-fn alpha() {}\na.rs:2:let needle = 1;\na.rs-3-fn beta() {}"
        );
    }

    #[tokio::test]
    async fn literal_mode_does_not_interpret_regex_syntax() {
        let workspace = Workspace::new();
        workspace.write("f.txt", "a.b\naxb\n");
        let literal = workspace
            .call("grep", json!({"pattern": "a.b", "literal": true}))
            .await;
        assert_eq!(literal.text_content(), "f.txt:1:a.b");
        let regex = workspace.call("grep", json!({"pattern": "a.b"})).await;
        assert_eq!(regex.text_content(), "f.txt:1:a.b\nf.txt:2:axb");
    }

    #[tokio::test]
    async fn the_limit_stops_after_that_many_matches_in_path_order_and_says_so() {
        let workspace = Workspace::new();
        workspace.write("a.txt", "hit 1\nhit 2\n");
        workspace.write("b.txt", "hit 3\n");
        let output = workspace
            .call("grep", json!({"pattern": "hit", "limit": 2}))
            .await;
        assert_eq!(
            output.text_content(),
            "a.txt:1:hit 1\na.txt:2:hit 2\n\n[Showing the first 2 matches; there are more. Narrow the pattern, path or glob, or raise limit.]"
        );
        let one = workspace
            .call("grep", json!({"pattern": "hit", "limit": 1}))
            .await;
        assert!(
            one.text_content()
                .starts_with("a.txt:1:hit 1\n\n[Showing the first 1 matches")
        );
    }

    #[tokio::test]
    async fn long_lines_are_cut_at_five_hundred_characters() {
        let workspace = Workspace::new();
        workspace.write("long.txt", format!("{}\n", "z".repeat(800)));
        let output = workspace.call("grep", json!({"pattern": "z+"})).await;
        assert_eq!(
            output.text_content(),
            format!("long.txt:1:{}... [line truncated]", "z".repeat(500))
        );
    }

    #[tokio::test]
    async fn no_match_is_a_plain_result_and_a_bad_regex_is_an_error() {
        let workspace = tree();
        let none = workspace.call("grep", json!({"pattern": "absent"})).await;
        assert!(!none.is_error);
        assert_eq!(none.text_content(), "No matches found");
        let bad = workspace.call("grep", json!({"pattern": "("})).await;
        assert!(bad.is_error);
        assert!(bad.text_content().starts_with("Invalid regex pattern: "));
    }

    #[tokio::test]
    async fn a_single_file_can_be_searched_and_is_named_by_its_file_name() {
        let workspace = tree();
        let output = workspace
            .call("grep", json!({"pattern": "beta", "path": "src/a.rs"}))
            .await;
        assert_eq!(output.text_content(), "a.rs:3:fn beta() {}");
    }
}
