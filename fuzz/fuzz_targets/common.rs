//! Shared by the SSE targets: feed one input through the real SSE decoder and a protocol parser
//! whole, in two pieces split at a point the input chooses, and byte by byte. None may panic, and
//! all three must yield the same events, the same error and the same end state — the property the
//! unit tests check for recorded streams, here for arbitrary bytes.

use pincer::provider::StreamParser;
use pincer::provider::sse::SseDecoder;

/// Events (as debug text, so any event type compares), the error text, whether finished.
type Outcome = (Vec<String>, Option<String>, bool);

fn parse<P: StreamParser>(new: fn() -> P, pieces: &[&[u8]]) -> Outcome {
    let mut decoder = SseDecoder::new();
    let mut parser = new();
    let mut events = Vec::new();
    for piece in pieces {
        for event in decoder.feed(piece) {
            match parser.on_event(&event) {
                Ok(more) => events.extend(more.iter().map(|event| format!("{event:?}"))),
                Err(error) => return (events, Some(error.to_string()), parser.is_finished()),
            }
        }
    }
    let finished = parser.is_finished();
    (events, None, finished)
}

/// The first byte picks the split point; the rest is the stream.
pub fn check_stream<P: StreamParser>(new: fn() -> P, data: &[u8]) {
    let Some((&choice, stream)) = data.split_first() else {
        return;
    };
    let whole = parse(new, &[stream]);
    let cut = if stream.is_empty() {
        0
    } else {
        usize::from(choice) * stream.len() / 256
    };
    let (head, tail) = stream.split_at(cut);
    assert_eq!(parse(new, &[head, tail]), whole, "split at {cut}");
    let bytes: Vec<&[u8]> = stream.chunks(1).collect();
    assert_eq!(parse(new, &bytes), whole, "byte by byte");
}
