//! Test helpers shared by the protocol parsers' unit tests: feed a recorded stream through the
//! real SSE decoder and a parser in odd chunk sizes, and check that every split gives the same
//! events, error and end state.

use super::sse::SseDecoder;
use super::{ProviderError, StreamEvent, StreamParser};

/// What a stream produced.
#[derive(Debug)]
pub struct Outcome {
    /// Neutral events, in order.
    pub events: Vec<StreamEvent>,
    /// The error that stopped the stream, if any.
    pub error: Option<ProviderError>,
    /// Whether the protocol's terminal event was seen.
    pub finished: bool,
}

/// Parse `stream` fed in pieces of `size` bytes.
pub fn parse_in_chunks<P: StreamParser>(
    new: impl Fn() -> P,
    stream: &[u8],
    size: usize,
) -> Outcome {
    let pieces: Vec<&[u8]> = stream.chunks(size.max(1)).collect();
    parse_pieces(new, &pieces)
}

/// Parse `stream` fed as the given pieces, in order.
pub fn parse_pieces<P: StreamParser>(new: impl Fn() -> P, pieces: &[&[u8]]) -> Outcome {
    let mut decoder = SseDecoder::new();
    let mut parser = new();
    let mut events = Vec::new();
    for piece in pieces {
        for event in decoder.feed(piece) {
            match parser.on_event(&event) {
                Ok(more) => events.extend(more),
                Err(error) => {
                    return Outcome {
                        events,
                        error: Some(error),
                        finished: parser.is_finished(),
                    };
                }
            }
        }
    }
    Outcome {
        events,
        error: None,
        finished: parser.is_finished(),
    }
}

fn assert_same(split: &Outcome, whole: &Outcome, how: &str) {
    assert_eq!(split.events, whole.events, "{how}");
    assert_eq!(split.finished, whole.finished, "{how}");
    assert_eq!(
        split.error.as_ref().map(ToString::to_string),
        whole.error.as_ref().map(ToString::to_string),
        "{how}"
    );
}

/// Parse `stream` whole, in chunks of every size from 1 to 16 bytes, and in two pieces split at
/// every byte (every 1/512th of the stream for long ones); assert all agree; return one.
/// Together these put a chunk boundary at every offset, inside every line ending, field name
/// and multi-byte character, which is where a streaming parser goes wrong.
pub fn parse_all_ways<P: StreamParser>(new: impl Fn() -> P, stream: &[u8]) -> Outcome {
    let whole = parse_in_chunks(&new, stream, stream.len());
    for size in 1..=16 {
        let split = parse_in_chunks(&new, stream, size);
        assert_same(&split, &whole, &format!("chunk size {size}"));
    }
    let step = (stream.len() / 512).max(1);
    for cut in (1..stream.len()).step_by(step) {
        let (head, tail) = stream.split_at(cut);
        let split = parse_pieces(&new, &[head, tail]);
        assert_same(&split, &whole, &format!("split at byte {cut}"));
    }
    whole
}

/// The `--json-schema` format the builders' tests send: a strict object of one boolean.
pub fn output_format() -> super::OutputFormat {
    super::OutputFormat {
        name: "structured_output".into(),
        schema: serde_json::json!({"type": "object", "properties": {"ok": {"type": "boolean"}},
            "required": ["ok"], "additionalProperties": false}),
        strict: true,
    }
}
