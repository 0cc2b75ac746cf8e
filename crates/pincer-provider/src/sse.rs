//! An incremental Server-Sent Events decoder (WHATWG rules), fed arbitrary byte chunks.
//!
//! Pure: bytes in, events out. Handles `\n`, `\r\n` and `\r` line ends (Gemini uses CRLF), comment
//! lines (`: keep-alive`), `data:` with or without one leading space, several `data:` lines joined
//! with `\n`, and chunk boundaries anywhere — inside a line or inside a UTF-8 code point. Only the
//! three line-end sequences split lines: U+2028 inside JSON does not.
//!
//! Beyond WHATWG, an `error:` field (llama.cpp writes mid-stream errors that way) is kept, so that
//! a failure is never mistaken for an empty successful completion.

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseEvent {
    /// The `event:` field, when present.
    pub event: Option<String>,
    /// The `data:` lines joined with `\n`.
    pub data: String,
    /// A non-standard `error:` field (llama.cpp), when present.
    pub error: Option<String>,
}

/// Incremental decoder state.
#[derive(Debug, Default)]
pub struct SseDecoder {
    /// Bytes of an incomplete line.
    line: Vec<u8>,
    /// The previous chunk ended in `\r`: a following `\n` belongs to it.
    after_carriage_return: bool,
    event: Option<String>,
    data: Option<String>,
    error: Option<String>,
}

impl SseDecoder {
    /// A new decoder.
    pub fn new() -> SseDecoder {
        SseDecoder::default()
    }

    /// Feed bytes; returns the events completed by them.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        let mut events = Vec::new();
        for &byte in bytes {
            if self.after_carriage_return {
                self.after_carriage_return = false;
                if byte == b'\n' {
                    continue;
                }
            }
            match byte {
                b'\n' => self.end_line(&mut events),
                b'\r' => {
                    self.after_carriage_return = true;
                    self.end_line(&mut events);
                }
                _ => self.line.push(byte),
            }
        }
        events
    }

    /// Whether bytes of an unfinished event are pending (at EOF they are discarded, per WHATWG).
    pub fn has_partial(&self) -> bool {
        !self.line.is_empty() || self.data.is_some() || self.error.is_some()
    }

    fn end_line(&mut self, events: &mut Vec<SseEvent>) {
        let line = std::mem::take(&mut self.line);
        if line.is_empty() {
            self.dispatch(events);
            return;
        }
        let text = String::from_utf8_lossy(&line);
        if text.starts_with(':') {
            return;
        }
        let (field, value) = match text.find(':') {
            Some(colon) => {
                let value = &text[colon + 1..];
                (&text[..colon], value.strip_prefix(' ').unwrap_or(value))
            }
            None => (text.as_ref(), ""),
        };
        match field {
            "event" => self.event = Some(value.to_owned()),
            "data" => match &mut self.data {
                Some(data) => {
                    data.push('\n');
                    data.push_str(value);
                }
                None => self.data = Some(value.to_owned()),
            },
            "error" => self.error = Some(value.to_owned()),
            _ => {}
        }
    }

    fn dispatch(&mut self, events: &mut Vec<SseEvent>) {
        let data = self.data.take();
        let error = self.error.take();
        let event = self.event.take();
        if data.is_none() && error.is_none() {
            return;
        }
        events.push(SseEvent {
            event,
            data: data.unwrap_or_default(),
            error,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_in_pieces(bytes: &[u8], size: usize) -> Vec<SseEvent> {
        let mut decoder = SseDecoder::new();
        bytes
            .chunks(size)
            .flat_map(|chunk| decoder.feed(chunk))
            .collect()
    }

    #[test]
    fn events_with_names_comments_and_padding_decode_the_same_in_any_chunk_size() {
        let stream = b": OPENROUTER PROCESSING\n\nevent: ping\ndata: {\"type\": \"ping\"}\n\nevent: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0    }\n\n";
        let expected = vec![
            SseEvent {
                event: Some("ping".into()),
                data: "{\"type\": \"ping\"}".into(),
                error: None,
            },
            SseEvent {
                event: Some("content_block_stop".into()),
                data: "{\"type\":\"content_block_stop\",\"index\":0    }".into(),
                error: None,
            },
        ];
        for size in [1, 2, 3, 7, 64, 4096] {
            assert_eq!(
                decode_in_pieces(stream, size),
                expected,
                "chunk size {size}"
            );
        }
    }

    #[test]
    fn crlf_framing_and_a_split_utf8_code_point_decode_intact() {
        let stream =
            "data: {\"text\":\"caf\u{e9} \u{2028} ok\"}\r\n\r\ndata: [DONE]\r\n\r\n".as_bytes();
        for size in [1, 5, 13] {
            let events = decode_in_pieces(stream, size);
            assert_eq!(events.len(), 2, "chunk size {size}");
            assert_eq!(events[0].data, "{\"text\":\"caf\u{e9} \u{2028} ok\"}");
            assert_eq!(events[1].data, "[DONE]");
        }
    }

    #[test]
    fn multiple_data_lines_join_and_data_without_a_space_keeps_its_text() {
        let events = decode_in_pieces(b"data:a\ndata: b\n\n", 3);
        assert_eq!(events[0].data, "a\nb");
    }

    #[test]
    fn a_llama_cpp_error_field_is_surfaced() {
        let events = decode_in_pieces(
            b"error: {\"code\":500,\"message\":\"boom\",\"type\":\"server_error\"}\n\ndata: [DONE]\n\n",
            4,
        );
        assert_eq!(
            events[0].error.as_deref(),
            Some("{\"code\":500,\"message\":\"boom\",\"type\":\"server_error\"}")
        );
        assert_eq!(events[1].data, "[DONE]");
    }

    #[test]
    fn an_unterminated_event_at_eof_is_pending_not_dispatched() {
        let mut decoder = SseDecoder::new();
        assert!(decoder.feed(b"data: {\"partial\"").is_empty());
        assert!(decoder.has_partial());
    }
}
