//! Control characters in text pincer shows on a terminal, made visible.
//!
//! Text a model, a tool, a provider, an MCP server or a hook supplies can hold terminal control
//! sequences: OSC 52 sets the clipboard, `ESC [ 2 J` erases the screen, a C1 CSI (U+009B) does
//! what `ESC [` does. Such text is shown with every control character — C0 (U+0000–U+001F), DEL
//! and C1 (U+0080–U+009F) — written as a `\u00XX` escape, except the line breaks and tabs the
//! caller keeps. The `\u00XX` form is visible on a terminal and is also a JSON string escape, so
//! a JSON line made safe this way is still the same JSON.
//!
//! Applied to every stderr line (`progress::stderr_line`, [`super::Diagnostics`], the spinner)
//! whatever stderr is, and to stdout only when it is a terminal ([`super::Stdout`]): piped
//! stdout stays byte-exact. pincer's own styling is added after the escaping.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Which control characters stay as they are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Keep {
    /// Line feeds and tabs stay (multi-line text: messages, the answer).
    LineBreaks,
    /// None stay (one line: the spinner's message).
    Nothing,
}

/// `text` with its control characters escaped, except those `keep` names; borrowed when there
/// is nothing to escape (the common case, checked without allocating).
pub(crate) fn escape_controls(text: &str, keep: Keep) -> Cow<'_, str> {
    let escaped = |character: char| {
        character.is_control() && !(keep == Keep::LineBreaks && matches!(character, '\n' | '\t'))
    };
    // C0 and DEL are single bytes; C1 characters are encoded as 0xC2 0x80–0x9F.
    let suspicious = text
        .bytes()
        .any(|byte| byte < 0x20 || byte == 0x7f || byte == 0xc2);
    if !suspicious || !text.chars().any(escaped) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for character in text.chars() {
        if escaped(character) {
            let _ = write!(out, "\\u{:04x}", u32::from(character));
        } else {
            out.push(character);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_become_visible_and_line_breaks_stay_where_kept() {
        let hostile = "copy\x1b]52;c;cGluY2Vy\x07 wipe\x1b[2J csi\u{9b}31m del\x7f\r\n\tnext";
        assert_eq!(
            escape_controls(hostile, Keep::LineBreaks),
            "copy\\u001b]52;c;cGluY2Vy\\u0007 wipe\\u001b[2J csi\\u009b31m del\\u007f\\u000d\n\tnext"
        );
        assert_eq!(
            escape_controls("a\nb\tc", Keep::Nothing),
            "a\\u000ab\\u0009c"
        );
    }

    #[test]
    fn text_without_control_characters_is_borrowed_unchanged() {
        for plain in [
            "",
            "plain text",
            "line\nbreak\ttab",
            "é ü — 中文 ⠁ …",
            "\u{a0}\u{ff}",
        ] {
            assert!(matches!(
                escape_controls(plain, Keep::LineBreaks),
                Cow::Borrowed(text) if text == plain
            ));
        }
        assert_eq!(escape_controls("é\u{85}", Keep::LineBreaks), "é\\u0085");
    }

    #[test]
    fn an_escaped_json_line_is_still_the_same_json() {
        let value = serde_json::json!({"text": "a\u{9b}2J\x7f\x1b[0m"});
        let line = serde_json::to_string(&value).unwrap();
        // serde_json escapes C0 itself but leaves DEL and C1 raw.
        assert!(line.contains('\u{9b}'));
        let safe = escape_controls(&line, Keep::LineBreaks);
        assert!(!safe.chars().any(char::is_control), "{safe}");
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&safe).unwrap(),
            value
        );
    }
}
