//! The ignore-aware directory walk that `find` and `grep` share, and their glob filter.
//!
//! The walk skips what ripgrep skips by default: hidden files and directories, and whatever
//! `.gitignore`, `.ignore` and `.git/info/exclude` exclude — also outside a git repository, since
//! a workspace need not be one. Symbolic links are not followed.

use std::path::Path;

use globset::{GlobBuilder, GlobMatcher};
use ignore::WalkBuilder;

use super::ToolError;

/// A walk over `root` with pincer's ignore rules.
pub fn builder(root: &Path) -> WalkBuilder {
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
    builder
}

/// A glob such as `*.rs` or `src/**/*.rs`. A pattern without `/` is matched against the file
/// name, so `*.rs` finds Rust files at any depth; a pattern with `/` is matched against the path
/// relative to the search root, and `*` does not cross `/`.
#[derive(Debug, Clone)]
pub struct PathFilter {
    matcher: GlobMatcher,
    whole_path: bool,
}

impl PathFilter {
    /// Compile `pattern`; `argument` names the argument in the error.
    pub fn new(pattern: &str, argument: &str) -> Result<Self, ToolError> {
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
    pub fn matches(&self, relative: &str) -> bool {
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
    fn an_invalid_glob_is_rejected_naming_the_argument() {
        let error = PathFilter::new("a[", "glob").unwrap_err().to_string();
        assert!(error.starts_with("Invalid glob in 'glob': "), "{error}");
    }
}
