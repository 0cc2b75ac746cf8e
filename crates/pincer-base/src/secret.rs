//! A credential value that cannot print itself: a base type every layer may carry a key in, from
//! the profile store to the one function that puts it in a request header.
//!
//! `Debug` and `Display` show only a fingerprint (`sk-…a1b2`), so a secret that ends up in a log
//! line, an error message or a `{:?}` of a bigger struct never leaks. The real value comes out
//! through [`Secret::expose`], which only the HTTP layer calls (`provider::http`), through
//! [`Secret::redaction_pattern`], which only the redactor calls to know what to scrub, and
//! through `Serialize`, which only the profile store file uses (mode 0600).

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Keys shorter than this are fully masked: showing 7 characters of a short key gives too much away.
const FINGERPRINT_MIN_CHARS: usize = 16;
const PREFIX_CHARS: usize = 3;
const SUFFIX_CHARS: usize = 4;

/// A secret string (API key or token).
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wrap a value.
    pub fn new(value: impl Into<String>) -> Secret {
        Secret(value.into())
    }

    /// The real value, for the HTTP header that carries it. Never log or print the result.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// The value as the scrubbers look for it: the redactor in tool output (`redact`) and the
    /// child-environment filter (`tools::child_environment`), which drop it rather than send
    /// it. The only other way out besides [`Secret::expose`].
    pub fn redaction_pattern(&self) -> &str {
        &self.0
    }

    /// Whether the value is empty or only whitespace.
    pub fn is_blank(&self) -> bool {
        self.0.trim().is_empty()
    }

    /// A short form that identifies the key without revealing it: `sk-…a1b2`, or `…` alone
    /// (with the length) for keys too short to show any part of.
    pub fn fingerprint(&self) -> String {
        let chars: Vec<char> = self.0.chars().collect();
        if chars.len() < FINGERPRINT_MIN_CHARS {
            return format!("…({} chars)", chars.len());
        }
        let prefix: String = chars[..PREFIX_CHARS].iter().collect();
        let suffix: String = chars[chars.len() - SUFFIX_CHARS..].iter().collect();
        format!("{prefix}…{suffix}")
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "Secret({})", self.fingerprint())
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(&self.fingerprint())
    }
}

/// Writes the real value: only for the store file.
impl Serialize for Secret {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Secret {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Secret, D::Error> {
        String::deserialize(deserializer).map(Secret)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_key_prints_its_first_three_and_last_four_characters() {
        let secret = Secret::new("sk-ant-api03-ZZZZZZZZZZZZa1b2");
        assert_eq!(secret.to_string(), "sk-…a1b2");
        assert_eq!(format!("{secret:?}"), "Secret(sk-…a1b2)");
        assert_eq!(secret.expose(), "sk-ant-api03-ZZZZZZZZZZZZa1b2");
    }

    #[test]
    fn a_short_key_is_fully_masked() {
        let secret = Secret::new("hunter2");
        assert_eq!(secret.to_string(), "…(7 chars)");
        assert!(!format!("{secret:?}").contains("hunter"));
    }

    #[test]
    fn the_fingerprint_counts_characters_not_bytes() {
        let secret = Secret::new("ééé-0123456789-ßßßß");
        assert_eq!(secret.fingerprint(), "ééé…ßßßß");
    }

    #[test]
    fn a_struct_holding_a_secret_does_not_leak_it_through_debug() {
        #[derive(Debug)]
        #[allow(dead_code, reason = "only Debug reads the field")]
        struct Holder {
            key: Secret,
        }
        let text = format!(
            "{:?}",
            Holder {
                key: Secret::new("sk-live-1234567890abcdef")
            }
        );
        assert!(!text.contains("1234567890"), "{text}");
        assert!(text.contains("sk-…cdef"), "{text}");
    }
}
