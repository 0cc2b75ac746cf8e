//! Cutting tool output down to what fits in a model's context: a character cap for one line, and
//! a tail buffer that keeps the end of a stream whose length is not known in advance.

use std::borrow::Cow;

/// `line` cut to at most `max_chars` characters, with a marker when something was cut.
pub fn cut_line(line: &str, max_chars: usize) -> Cow<'_, str> {
    match line.char_indices().nth(max_chars) {
        None => Cow::Borrowed(line),
        Some((end, _)) => Cow::Owned(format!("{}... [line truncated]", &line[..end])),
    }
}

/// The longest prefix of `text` that is at most `max_bytes` long and ends on a char boundary.
pub fn prefix_within_bytes(text: &str, max_bytes: usize) -> &str {
    if text.len() <= max_bytes {
        return text;
    }
    let mut end = max_bytes;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Keeps the last bytes of a stream, bounded in memory, and remembers how many it let go.
#[derive(Debug)]
pub struct TailBuffer {
    bytes: Vec<u8>,
    dropped: u64,
    max_chars: usize,
}

/// What a [`TailBuffer`] holds at the end.
#[derive(Debug, PartialEq, Eq)]
pub struct Tail {
    /// The last `max_chars` characters (or everything, when shorter).
    pub text: String,
    /// Bytes of the stream that are not in `text`.
    pub cut_bytes: u64,
}

impl TailBuffer {
    /// A buffer that will yield at most `max_chars` characters.
    pub fn new(max_chars: usize) -> Self {
        TailBuffer {
            bytes: Vec::new(),
            dropped: 0,
            max_chars,
        }
    }

    /// Append a chunk. Memory stays below about eight bytes per kept character: a character is
    /// at most four bytes, so keeping four times `max_chars` bytes always holds the tail.
    pub fn push(&mut self, chunk: &[u8]) {
        self.bytes.extend_from_slice(chunk);
        let keep = self.max_chars.saturating_mul(4);
        if self.bytes.len() > keep.saturating_mul(2) {
            let excess = self.bytes.len() - keep;
            self.bytes.drain(..excess);
            self.dropped += excess as u64;
        }
    }

    /// The kept tail as text (invalid UTF-8 replaced) and how much was cut from the head.
    pub fn finish(self) -> Tail {
        let text = String::from_utf8_lossy(&self.bytes);
        let total_chars = text.chars().count();
        let (kept, cut_bytes) = if total_chars > self.max_chars {
            let start = text
                .char_indices()
                .nth(total_chars - self.max_chars)
                .map_or(text.len(), |(index, _)| index);
            let kept = &text[start..];
            // Bytes of the original stream, so count what the lossy text dropped in its terms.
            let kept_bytes = kept.len().min(self.bytes.len());
            (kept.to_owned(), (self.bytes.len() - kept_bytes) as u64)
        } else {
            (text.into_owned(), 0)
        };
        Tail {
            text: kept,
            cut_bytes: self.dropped + cut_bytes,
        }
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

    #[test]
    fn a_byte_prefix_never_splits_a_character() {
        assert_eq!(prefix_within_bytes("aé", 2), "a");
        assert_eq!(prefix_within_bytes("aé", 3), "aé");
    }

    #[test]
    fn the_tail_buffer_keeps_the_last_characters_and_counts_the_cut_bytes() {
        let mut buffer = TailBuffer::new(10);
        for _ in 0..100 {
            buffer.push(b"0123456789");
        }
        assert_eq!(
            buffer.finish(),
            Tail {
                text: "0123456789".to_owned(),
                cut_bytes: 990
            }
        );
    }

    #[test]
    fn the_tail_buffer_keeps_everything_under_the_limit() {
        let mut buffer = TailBuffer::new(10);
        buffer.push(b"abc");
        assert_eq!(
            buffer.finish(),
            Tail {
                text: "abc".to_owned(),
                cut_bytes: 0
            }
        );
    }
}
