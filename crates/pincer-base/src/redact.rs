//! Scrubbing secrets out of text that pincer did not write itself.
//!
//! A tool can print a key: `exec` runs `env`, `read` opens a `.env` file. Its output is stored in the
//! session, written to events files and sent back to the provider, so a key that reached it would leak
//! three ways. The turn loop passes every tool result through a [`Redactor`] built from every
//! secret the run knows of — the resolved credential keys, every key the auth store holds or
//! refers to whatever its provider, and the values of the key variables in the environment —
//! before anything else sees it (SPEC §12.2).
//!
//! This is the second line of defence (SPEC §10): `exec` never gets the keys in its environment
//! in the first place. Because a command can still encode what it finds, each secret is also
//! searched for base64-encoded (standard and URL-safe alphabets, padded or not, at each of the
//! three byte alignments it can have inside a longer base64 stream), hex-encoded (lower and upper
//! case) and percent-encoded, and line breaks are ignored while searching, so `base64`'s
//! 76-column wrapping does not hide a key either.

use std::ops::Range;

use aho_corasick::{AhoCorasick, MatchKind};
use base64::Engine as _;
use serde_json::Value;

use crate::conversation::ContentBlock;

/// What a secret is replaced with.
pub const MARKER: &str = "[REDACTED]";

/// Secrets shorter than this are not searched for: a two-letter "key" would shred ordinary text,
/// and no real provider key is that short.
const MIN_SECRET_LEN: usize = 8;

/// Environment variables whose values are provider keys, whichever provider the run uses: the
/// same list CLI backends strip from their children's environment.
pub const KEY_VARIABLES: [&str; 6] = [
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "OPENAI_API_KEY",
    "CODEX_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
];

/// Replaces known secrets, and their encoded forms, in text with [`MARKER`].
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    /// Every form of every secret, found leftmost-longest; `None` when there is nothing to find.
    matcher: Option<AhoCorasick>,
}

impl Redactor {
    /// A redactor for `secrets` (empty and very short values are ignored).
    pub fn new<I, S>(secrets: I) -> Redactor
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut forms: Vec<String> = secrets
            .into_iter()
            .map(|secret| secret.as_ref().trim().to_owned())
            .filter(|secret| secret.len() >= MIN_SECRET_LEN)
            .flat_map(|secret| encoded_forms(secret.as_bytes()))
            .filter(|form| form.len() >= MIN_SECRET_LEN)
            .collect();
        forms.sort();
        forms.dedup();
        let matcher = if forms.is_empty() {
            None
        } else {
            AhoCorasick::builder()
                .match_kind(MatchKind::LeftmostLongest)
                .build(&forms)
                .ok()
        };
        Redactor { matcher }
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
        self.matcher.is_none()
    }

    /// The byte ranges of `text` that hold a secret in any of its forms, in order and
    /// disjoint. Line breaks inside a range are part of it.
    fn find(&self, text: &str) -> Vec<Range<usize>> {
        let Some(matcher) = &self.matcher else {
            return Vec::new();
        };
        if !text.contains(['\n', '\r']) {
            return matcher.find_iter(text).map(|found| found.range()).collect();
        }
        // Search the text with its line breaks taken out, then map each hit back.
        let mut joined = Vec::with_capacity(text.len());
        let mut origin = Vec::with_capacity(text.len());
        for (index, byte) in text.bytes().enumerate() {
            if byte != b'\n' && byte != b'\r' {
                joined.push(byte);
                origin.push(index);
            }
        }
        matcher
            .find_iter(&joined)
            .map(|found| origin[found.start()]..origin[found.end() - 1] + 1)
            .collect()
    }

    /// `text` with every secret replaced.
    pub fn text(&self, text: &str) -> String {
        let ranges = self.find(text);
        if ranges.is_empty() {
            return text.to_owned();
        }
        let mut out = String::with_capacity(text.len());
        let mut copied = 0;
        for range in ranges {
            // Every form is ASCII or a whole secret, and line breaks are ASCII, so both ends of
            // a range fall on character boundaries.
            out.push_str(text.get(copied..range.start).unwrap_or_default());
            out.push_str(MARKER);
            copied = range.end;
        }
        out.push_str(text.get(copied..).unwrap_or_default());
        out
    }

    /// Redact every string inside a JSON value, keys included.
    pub fn value(&self, value: &mut Value) {
        match value {
            Value::String(text) => {
                if !self.find(text).is_empty() {
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

    /// Secrets removed from a tool's output: its text blocks and its details. Images are left
    /// alone: they are bytes, not text a key could be read from.
    pub fn scrub_blocks(&self, content: &mut [ContentBlock], details: &mut Option<Value>) {
        if self.is_empty() {
            return;
        }
        for block in content {
            match block {
                ContentBlock::Text(text) => text.text = self.text(&text.text),
                ContentBlock::Image(_) => {}
            }
        }
        if let Some(details) = details {
            self.value(details);
        }
    }
}

/// The forms a secret is searched in: itself, hex, percent-encoded and base64.
fn encoded_forms(secret: &[u8]) -> Vec<String> {
    let mut forms = vec![String::from_utf8_lossy(secret).into_owned()];
    let hex: String = secret.iter().map(|byte| format!("{byte:02x}")).collect();
    forms.push(hex.to_ascii_uppercase());
    forms.push(hex);
    for upper in [false, true] {
        forms.push(percent_encoded(secret, upper, false));
        forms.push(percent_encoded(secret, upper, true));
    }
    for engine in [
        base64::engine::general_purpose::STANDARD_NO_PAD,
        base64::engine::general_purpose::URL_SAFE_NO_PAD,
    ] {
        for offset in 0..3 {
            forms.push(base64_core(&engine, secret, offset));
        }
    }
    forms
}

/// `%XX` for every byte (`all`), or for every byte but the unreserved characters of RFC 3986
/// (what URL encoders produce).
fn percent_encoded(secret: &[u8], upper: bool, all: bool) -> String {
    secret
        .iter()
        .map(|&byte| {
            if !all && (byte.is_ascii_alphanumeric() || b"-._~".contains(&byte)) {
                char::from(byte).to_string()
            } else if upper {
                format!("%{byte:02X}")
            } else {
                format!("%{byte:02x}")
            }
        })
        .collect()
}

/// The base64 characters that depend only on `secret` when it starts `offset` bytes into a
/// 3-byte group of a longer stream: the characters mixing in the bytes before or after it are
/// left out, so the form is found whatever surrounds the secret and with or without padding.
fn base64_core(engine: &base64::engine::GeneralPurpose, secret: &[u8], offset: usize) -> String {
    let mut shifted = vec![0_u8; offset];
    shifted.extend_from_slice(secret);
    let encoded = engine.encode(&shifted);
    // Characters whose 6 bits all come from the secret: the first starts at or after bit
    // `offset * 8`, the last ends at or before the secret's last bit.
    let first = (offset * 8).div_ceil(6);
    let end = (shifted.len() * 8) / 6;
    encoded.get(first..end).unwrap_or_default().to_owned()
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

    fn streams_around(bytes: &[u8]) -> Vec<Vec<u8>> {
        (0..4)
            .map(|before| {
                let mut stream = b"{\"key\": \"".to_vec();
                stream.truncate(stream.len() - before % 3);
                stream.extend_from_slice(bytes);
                stream.extend_from_slice(b"\"}\n");
                stream
            })
            .chain([bytes.to_vec()])
            .collect()
    }

    #[test]
    fn a_key_is_caught_base64_encoded_at_every_alignment_in_both_alphabets_padded_or_not() {
        use base64::engine::general_purpose::{
            STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD,
        };
        // `?`, `>` and `~` make the two alphabets differ somewhere in the encoding.
        let key = "sk-ant-api03-Zz9?>~_Kq0123456789";
        let redactor = Redactor::new([key]);
        for stream in streams_around(key.as_bytes()) {
            for engine in [STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD] {
                let encoded = engine.encode(&stream);
                let redacted = redactor.text(&format!("output: {encoded} end"));
                assert!(redacted.contains(MARKER), "{encoded} not caught");
                // What is left cannot give the key back.
                let leftover: String = redacted
                    .split(MARKER)
                    .map(|part| part.replace("output: ", "").replace(" end", ""))
                    .collect();
                let decoded = engine.decode(leftover.as_bytes()).unwrap_or_default();
                assert!(
                    !String::from_utf8_lossy(&decoded).contains(&key[4..]),
                    "{redacted}"
                );
            }
        }
    }

    #[test]
    fn base64_wrapped_over_lines_is_still_caught() {
        use base64::engine::general_purpose::STANDARD;
        let redactor = Redactor::new([KEY]);
        let mut file = "x".repeat(50).into_bytes();
        file.extend_from_slice(KEY.as_bytes());
        let encoded = STANDARD.encode(&file);
        // `base64` wraps at 76 columns; the key straddles the break.
        let wrapped = format!("{}\n{}\n", &encoded[..76], &encoded[76..]);
        let redacted = redactor.text(&wrapped);
        assert!(redacted.contains(MARKER), "{redacted}");
        assert!(redacted.starts_with(&encoded[..60]), "{redacted}");
    }

    #[test]
    fn a_key_is_caught_hex_encoded_in_either_case_and_percent_encoded() {
        let key = "key+with/odd=chars~0123";
        let redactor = Redactor::new([key]);
        let hex: String = key.bytes().map(|byte| format!("{byte:02x}")).collect();
        for encoded in [
            hex.clone(),
            hex.to_ascii_uppercase(),
            "key%2Bwith%2Fodd%3Dchars~0123".to_owned(),
            "key%2bwith%2fodd%3dchars~0123".to_owned(),
            key.bytes().map(|byte| format!("%{byte:02X}")).collect(),
            key.bytes().map(|byte| format!("%{byte:02x}")).collect(),
        ] {
            assert_eq!(
                redactor.text(&format!("a {encoded}\n")),
                "a [REDACTED]\n",
                "{encoded}"
            );
        }
    }

    #[test]
    fn a_raw_key_broken_over_two_lines_is_caught_and_other_lines_survive() {
        let redactor = Redactor::new([KEY]);
        let text = format!("first line\n{}\n{}\nlast line", &KEY[..10], &KEY[10..]);
        assert_eq!(redactor.text(&text), "first line\n[REDACTED]\nlast line");
    }

    #[test]
    fn ordinary_text_and_unrelated_base64_pass_unchanged() {
        let redactor = Redactor::new([KEY]);
        let text = "aGVsbG8gd29ybGQK 68656c6c6f hello%20world\nplain ütf-8 text\n";
        assert_eq!(redactor.text(text), text);
    }

    #[test]
    fn tool_output_text_blocks_and_details_are_scrubbed() {
        let redactor = Redactor::new([KEY]);
        let mut content = vec![ContentBlock::text(format!("KEY={KEY}"))];
        let mut details = Some(json!({"stdout": [KEY], KEY: 1}));
        redactor.scrub_blocks(&mut content, &mut details);
        let ContentBlock::Text(text) = &content[0] else {
            panic!("text block expected");
        };
        assert_eq!(text.text, "KEY=[REDACTED]");
        assert_eq!(
            details,
            Some(json!({"stdout": ["[REDACTED]"], "[REDACTED]": 1}))
        );
    }
}
