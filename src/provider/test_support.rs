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
    let mut decoder = SseDecoder::new();
    let mut parser = new();
    let mut events = Vec::new();
    for chunk in stream.chunks(size.max(1)) {
        for event in decoder.feed(chunk) {
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

/// Parse `stream` whole and in chunks of 1, 3 and 7 bytes; assert all four agree; return one.
pub fn parse_all_ways<P: StreamParser>(new: impl Fn() -> P, stream: &[u8]) -> Outcome {
    let whole = parse_in_chunks(&new, stream, stream.len());
    for size in [1, 3, 7] {
        let split = parse_in_chunks(&new, stream, size);
        assert_eq!(split.events, whole.events, "chunk size {size}");
        assert_eq!(split.finished, whole.finished, "chunk size {size}");
        assert_eq!(
            split.error.as_ref().map(ToString::to_string),
            whole.error.as_ref().map(ToString::to_string),
            "chunk size {size}"
        );
    }
    whole
}
