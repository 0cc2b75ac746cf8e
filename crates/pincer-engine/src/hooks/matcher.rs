//! A hook's `matcher`, read as Claude Code reads it: empty or `*` matches everything; a plain
//! name or names joined by `|` (letters, digits and `_` only) match exactly; anything else is a
//! regular expression searched for in the name (unanchored: `Notebook.*`, `mcp__github__.*`).
//!
//! A tool is matched under each of its names — pincer's (`exec`) and Claude Code's (`Bash`) — so
//! that a matcher written for either works.

use regex::Regex;

/// A compiled matcher.
#[derive(Debug, Clone)]
pub struct Matcher {
    /// As written (`None`: not given).
    text: Option<String>,
    kind: Kind,
}

#[derive(Debug, Clone)]
enum Kind {
    All,
    Names(Vec<String>),
    Pattern(Regex),
}

impl PartialEq for Matcher {
    fn eq(&self, other: &Matcher) -> bool {
        self.text == other.text
    }
}

/// A matcher's regular expression that does not compile. It shows the regex crate's last line
/// only: the lines before draw the pattern.
#[derive(Debug, thiserror::Error)]
#[error("{}", .0.to_string().lines().last().unwrap_or_default().trim())]
pub struct BadPattern(regex::Error);

impl Matcher {
    /// The matcher of every subject (no matcher written).
    pub fn all() -> Matcher {
        Matcher {
            text: None,
            kind: Kind::All,
        }
    }

    /// The matcher for `text`; `Err` says why the regular expression does not compile.
    pub fn parse(text: Option<&str>) -> Result<Matcher, BadPattern> {
        let kind = match text.map(str::trim) {
            None | Some("" | "*") => Kind::All,
            Some(plain) if is_plain(plain) => Kind::Names(
                plain
                    .split('|')
                    .filter(|name| !name.is_empty())
                    .map(str::to_owned)
                    .collect(),
            ),
            Some(pattern) => Kind::Pattern(Regex::new(pattern).map_err(BadPattern)?),
        };
        Ok(Matcher {
            text: text.map(str::to_owned),
            kind,
        })
    }

    /// The matcher as written, when one was.
    pub fn text(&self) -> Option<&str> {
        self.text.as_deref()
    }

    /// Whether it matches everything.
    pub fn is_all(&self) -> bool {
        matches!(self.kind, Kind::All)
    }

    /// Whether any of `names` (one subject's names: a tool's pincer and claude names) matches.
    pub fn matches(&self, names: &[&str]) -> bool {
        match &self.kind {
            Kind::All => true,
            Kind::Names(listed) => names
                .iter()
                .any(|name| listed.iter().any(|listed| listed == name)),
            Kind::Pattern(pattern) => names.iter().any(|name| pattern.is_match(name)),
        }
    }

    /// The exact names of a plain matcher (`None` for `*` and regular expressions).
    pub fn names(&self) -> Option<&[String]> {
        match &self.kind {
            Kind::Names(names) => Some(names),
            _ => None,
        }
    }
}

/// Claude Code's test for a plain matcher.
fn is_plain(text: &str) -> bool {
    text.chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '|')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matcher(text: &str) -> Matcher {
        Matcher::parse(Some(text)).unwrap()
    }

    #[test]
    fn plain_names_match_exactly_and_regular_expressions_anywhere_in_the_name() {
        assert!(matcher("Bash").matches(&["exec", "Bash"]));
        assert!(!matcher("Bash").matches(&["BashOutput"]));
        assert!(matcher("Edit|Write").matches(&["write", "Write"]));
        assert!(!matcher("Edit|Write").matches(&["read", "Read"]));
        assert!(matcher("exec").matches(&["exec", "Bash"]));
        assert!(matcher("Notebook.*").matches(&["NotebookEdit"]));
        assert!(matcher("mcp__github__.*").matches(&["mcp__github__create_issue"]));
        assert!(!matcher("mcp__github__.*").matches(&["mcp__gitlab__create_issue"]));
        assert!(matcher("^(read|grep)$").matches(&["grep", "Grep"]));
        assert!(!matcher("^(read|grep)$").matches(&["find", "Glob"]));
    }

    #[test]
    fn an_empty_or_star_matcher_or_none_matches_everything() {
        for text in [None, Some(""), Some("*"), Some("  ")] {
            let matcher = Matcher::parse(text).unwrap();
            assert!(matcher.is_all());
            assert!(matcher.matches(&["anything"]));
        }
    }

    #[test]
    fn a_broken_regular_expression_is_refused_with_the_reason() {
        let error = Matcher::parse(Some("exec(")).unwrap_err().to_string();
        assert!(error.contains("unclosed group"), "{error}");
    }
}
