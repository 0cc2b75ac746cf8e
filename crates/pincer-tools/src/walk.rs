//! The ignore-aware directory walk that `find` and `grep` share, and their glob filter.
//!
//! The walk skips what ripgrep skips by default: hidden files and directories, and whatever
//! `.gitignore`, `.ignore` and `.git/info/exclude` exclude — also outside a git repository, since
//! a workspace need not be one. Symbolic links are not followed.
//!
//! The ignore crate opens those files as they come, following links. One that is a FIFO would
//! block the walk for good and one that is a device (a link to `/dev/zero`) would be read
//! without end, so a directory whose ignore files are not all regular files is not entered
//! ([`Walk::skipped`] says which, for the result), and a search root (or one of its ancestors,
//! whose rules apply too) with one is refused ([`unreadable_ignore_file_above`]). What remains:
//! the git directory a `.git` file names is read through as the crate finds it; a FIFO there
//! blocks the walk until the run is cancelled (the file tools run off the runtime's thread, so
//! SIGTERM and `--timeout` still end the run).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use globset::{GlobBuilder, GlobMatcher};
use ignore::WalkBuilder;

use super::{Sandbox, ToolError};
use crate::fs::FileKind;

/// The files of a directory the walk reads rules from, relative to it (`.git/info/exclude`
/// only matters when `.git` is a directory, which is checked first).
const IGNORE_FILES: [&str; 4] = [".gitignore", ".ignore", ".git", ".git/info/exclude"];

/// A walk over a root with pincer's ignore rules, and the directories it left out.
pub(super) struct Walk {
    /// The walk; build it with `build_parallel`.
    pub builder: WalkBuilder,
    /// Directories not entered because one of their ignore files is not a regular file.
    skipped: Arc<Mutex<Vec<Unreadable>>>,
}

/// An ignore file the walk cannot read safely.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Unreadable {
    /// The ignore file.
    pub file: PathBuf,
    /// What it is instead of a regular file.
    pub kind: FileKind,
}

impl Unreadable {
    /// "trap/.gitignore is a FIFO (named pipe), not a regular file", the path relative to
    /// `root`.
    pub(super) fn describe(&self, root: &Path) -> String {
        format!(
            "{} is {}, not a regular file",
            super::paths::relative_display(root, &self.file),
            self.kind.described()
        )
    }
}

/// A walk over `root` with pincer's ignore rules, never entering pincer's own files
/// ([`Sandbox::owns`]).
pub(super) fn builder(root: &Path, sandbox: &Sandbox) -> Walk {
    let mut builder = WalkBuilder::new(root);
    builder
        .hidden(true)
        .git_ignore(true)
        .git_exclude(true)
        .ignore(true)
        .parents(true)
        .require_git(false)
        .follow_links(false)
        .threads(std::thread::available_parallelism().map_or(2, |count| count.get().min(8)));
    let skipped = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&skipped);
    // The filter runs before a directory is entered, so before its ignore files are read.
    let sandbox = sandbox.clone();
    builder.filter_entry(move |entry| {
        if sandbox.owns(entry.path()) {
            return false;
        }
        if !entry.file_type().is_some_and(|kind| kind.is_dir()) {
            return true;
        }
        match unreadable_ignore_file(entry.path()) {
            None => true,
            Some(unreadable) => {
                if let Ok(mut skipped) = record.lock() {
                    skipped.push(unreadable);
                }
                false
            }
        }
    });
    Walk { builder, skipped }
}

impl Walk {
    /// A note for the model on the directories the walk left out (after it ran), if any.
    pub(super) fn skipped_note(&self, root: &Path) -> Option<String> {
        let mut reasons: Vec<String> = self
            .skipped
            .lock()
            .map(|skipped| skipped.iter().map(|item| item.describe(root)).collect())
            .unwrap_or_default();
        if reasons.is_empty() {
            return None;
        }
        reasons.sort();
        Some(format!(
            "[Directories not searched, because their ignore rules cannot be read: {}.]",
            reasons.join("; ")
        ))
    }
}

/// Refuse to walk `root` when it, or a directory above it, has an ignore file that is not a
/// regular file: its rules apply to the whole walk, and reading them could block.
pub(super) fn refuse_unreadable_rules(root: &Path, raw_path: &str) -> Result<(), ToolError> {
    match unreadable_ignore_file_above(root) {
        None => Ok(()),
        Some(unreadable) => Err(ToolError::Rejected(format!(
            "Cannot search {raw_path}: {} is {}, not a regular file, so its ignore rules cannot \
             be read.",
            unreadable.file.display(),
            unreadable.kind.described()
        ))),
    }
}

/// The first ignore file of `directory` that exists and is not a regular file (links followed,
/// as the ignore crate follows them).
pub(super) fn unreadable_ignore_file(directory: &Path) -> Option<Unreadable> {
    for name in IGNORE_FILES {
        let file = directory.join(name);
        let Ok(metadata) = std::fs::metadata(&file) else {
            continue;
        };
        let kind = FileKind::of(metadata.file_type());
        // `.git` is a directory or a file naming one; the rest are plain files.
        let fine = kind == FileKind::Regular || (name == ".git" && kind == FileKind::Directory);
        if !fine {
            return Some(Unreadable { file, kind });
        }
    }
    None
}

/// [`unreadable_ignore_file`] of `root` (a directory) or of any of its ancestors, whose rules the
/// walk reads too.
pub(super) fn unreadable_ignore_file_above(root: &Path) -> Option<Unreadable> {
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_owned());
    root.ancestors().find_map(unreadable_ignore_file)
}

/// A glob such as `*.rs` or `src/**/*.rs`. A pattern without `/` is matched against the file
/// name, so `*.rs` finds Rust files at any depth; a pattern with `/` is matched against the path
/// relative to the search root, and `*` does not cross `/`.
#[derive(Debug, Clone)]
pub(super) struct PathFilter {
    matcher: GlobMatcher,
    whole_path: bool,
}

impl PathFilter {
    /// Compile `pattern`; `argument` names the argument in the error.
    pub(super) fn new(pattern: &str, argument: &str) -> Result<Self, ToolError> {
        let pattern = pattern.strip_prefix("./").unwrap_or(pattern);
        let glob = GlobBuilder::new(pattern)
            .literal_separator(true)
            .build()
            .map_err(|error| {
                ToolError::Rejected(format!("Invalid glob in '{argument}': {error}"))
            })?;
        Ok(PathFilter {
            matcher: glob.compile_matcher(),
            whole_path: pattern.contains('/'),
        })
    }

    /// Whether `relative` (a `/`-separated path under the search root) matches.
    pub(super) fn matches(&self, relative: &str) -> bool {
        if self.whole_path {
            self.matcher.is_match(relative)
        } else {
            let name = relative.rsplit('/').next().unwrap_or(relative);
            self.matcher.is_match(name)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pattern_without_a_slash_matches_file_names_at_any_depth() {
        let filter = PathFilter::new("*.rs", "pattern").unwrap();
        assert!(filter.matches("src/tools/mod.rs"));
        assert!(filter.matches("main.rs"));
        assert!(!filter.matches("src/notes.md"));
    }

    #[test]
    fn a_pattern_with_a_slash_matches_the_relative_path_and_star_stays_in_one_directory() {
        let filter = PathFilter::new("src/*.rs", "pattern").unwrap();
        assert!(filter.matches("src/main.rs"));
        assert!(!filter.matches("src/tools/mod.rs"));
        let deep = PathFilter::new("**/*.rs", "pattern").unwrap();
        assert!(deep.matches("main.rs"));
        assert!(deep.matches("src/tools/mod.rs"));
    }

    #[test]
    fn ignore_files_must_be_regular_files_or_absent_and_dot_git_may_be_a_directory() {
        let directory = tempfile::tempdir().unwrap();
        let base = directory.path();
        assert_eq!(unreadable_ignore_file(base), None);
        std::fs::write(base.join(".gitignore"), "target/\n").unwrap();
        std::fs::create_dir_all(base.join(".git/info")).unwrap();
        std::fs::write(base.join(".git/info/exclude"), "").unwrap();
        assert_eq!(unreadable_ignore_file(base), None);
        std::os::unix::fs::symlink("/dev/zero", base.join(".ignore")).unwrap();
        assert_eq!(
            unreadable_ignore_file(base),
            Some(Unreadable {
                file: base.join(".ignore"),
                kind: FileKind::CharacterDevice
            })
        );
        let nested = base.join("nested");
        std::fs::create_dir(&nested).unwrap();
        assert_eq!(
            unreadable_ignore_file_above(&nested).map(|found| found.kind),
            Some(FileKind::CharacterDevice)
        );
    }

    #[test]
    fn an_invalid_glob_is_rejected_naming_the_argument() {
        let error = PathFilter::new("a[", "glob").unwrap_err().to_string();
        assert!(error.starts_with("Invalid glob in 'glob': "), "{error}");
    }
}
