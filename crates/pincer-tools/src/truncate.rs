//! Cutting tool output down to what fits in a model's context: a character cap for one line, and
//! a tail buffer that keeps the end of a stream whose length is not known in advance.

use std::borrow::Cow;

/// `line` cut to at most `max_chars` characters, with a marker when something was cut.
pub(super) fn cut_line(line: &str, max_chars: usize) -> Cow<'_, str> {
    match line.char_indices().nth(max_chars) {
        None => Cow::Borrowed(line),
        Some((end, _)) => Cow::Owned(format!("{}... [line truncated]", &line[..end])),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_line_is_cut_at_the_character_limit_with_a_marker() {
        assert_eq!(cut_line("héllo world", 5), "héllo... [line truncated]");
        assert_eq!(cut_line("short", 5), "short");
    }
}
