//! What each fuzz target checks, one function per target, shared by the targets (which feed
//! them libFuzzer's inputs) and by `cargo test` (`tests/suite/fuzz_seeds.rs`, which replays the
//! committed seeds in `fuzz/seeds/TARGET/` and any local corpus), so the properties are checked on
//! every test run without the fuzzing toolchain.

use pincer::backend::CliBackend;
use pincer::backend::claude::ClaudeStream;
use pincer::backend::codex::CodexStream;
use pincer::engine::recorder::{Recorder, RecorderState};
use pincer::engine::{Ending, Event, EventSink, TurnReport};
use pincer::provider::StreamParser;
use pincer::provider::sse::SseDecoder;
use pincer::session::parse::parse_line;
use pincer::session::record::{Line, parse_value, to_line};
use pincer::session::transcript::Transcript;

/// The `*** Begin Patch` parser on arbitrary text: an error or a patch, never a panic.
pub fn apply_patch(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = pincer::tools::apply_patch::parse(text);
    }
}

/// A sink for the recorder's events: the check looks at the transcript.
struct Discard;

impl EventSink for Discard {
    fn emit(&mut self, _event: &Event) {}
}

/// The claude stream-json and codex `exec --json` readers: the bytes a CLI child prints, line by
/// line, through the same reader and recorder a delegated turn uses. None may panic, and every
/// entry the recorder writes must be one line that parses back (a child's output must never
/// corrupt pincer's session). The first byte picks the dialect.
pub fn cli_stream(data: &[u8]) {
    let Some((&choice, stream)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(stream);
    let mut transcript = Transcript::ephemeral(Vec::new());
    let mut sink = Discard;
    let backend = if choice % 2 == 0 {
        CliBackend::Claude
    } else {
        CliBackend::Codex
    };
    {
        let mut state = RecorderState::new(backend, "sonnet", None, Default::default());
        let mut report = TurnReport::empty(Ending::Completed);
        let mut recorder = Recorder::new(&mut state, &mut transcript, &mut sink, &mut report);
        let mut claude = ClaudeStream::default();
        let mut codex = CodexStream::default();
        for line in text.lines() {
            let handled = match backend {
                CliBackend::Claude => claude.line(line, &mut recorder),
                CliBackend::Codex => codex.line(line, &mut recorder),
            };
            if handled.is_err() {
                break;
            }
        }
    }
    for entry in transcript.entries() {
        let line = to_line(entry).expect("a recorded entry serializes");
        assert_eq!(line.matches('\n').count(), 1, "{line:?}");
        parse_line(line.trim_end_matches('\n')).expect("a recorded entry parses back");
    }
}

/// A whole session file as it may be found on disk (torn, damaged, foreign): both readers — the
/// full loader and the backwards tail reader — return a value or an error, never panic.
pub fn session_file(data: &[u8]) {
    let Ok(dir) = tempfile::tempdir() else {
        return;
    };
    let path = dir.path().join("2026-01-01T00-00-00-000Z_fuzz.jsonl");
    if std::fs::write(&path, data).is_err() {
        return;
    }
    let _ = pincer::session::store::load(&path);
    let _ = pincer::session::tail::load(&path);
}

/// A whole session file through the index's one-pass summary reader: it never panics, and a
/// file it takes gets the summary (and leaf) the full loader gives the same file — the index
/// must never list a session other than `resume` would find it.
pub fn session_summary(data: &[u8]) {
    let Ok(dir) = tempfile::tempdir() else {
        return;
    };
    let path = dir.path().join("2026-01-01T00-00-00-000Z_fuzz.jsonl");
    if std::fs::write(&path, data).is_err() {
        return;
    }
    if let Some((fast, full)) = pincer::session::fuzz_support::summaries_of(&path) {
        assert_eq!(
            fast, full,
            "the one-pass summary differs from the full loader's"
        );
    }
}

/// One session line: parsing never panics, and a line that parses serializes to one line that
/// parses back and serializes to the same bytes. (Comparing the parsed values instead would be
/// wrong: `1e+17` is written as JavaScript writes it, `100000000000000000`, which reads back as an
/// integer — the same number, a different `serde_json::Number`.) The fast reader of the
/// entries pincer writes gives what the general reader (through a `serde_json::Value`) gives.
pub fn session_line(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let general = parse_value(text).and_then(Line::from_value);
    match (&parse_line(text), &general) {
        (Ok(fast), Ok(general)) => assert_eq!(fast, general),
        (Err(_), Err(_)) => {}
        (fast, general) => panic!("the readers disagree: {fast:?} and {general:?}"),
    }
    let Ok(line) = general else {
        return;
    };
    let written = to_line(&line).expect("a parsed record serializes");
    assert_eq!(written.matches('\n').count(), 1, "{written:?}");
    assert!(written.ends_with('\n'));
    let again = parse_line(written.trim_end_matches('\n')).expect("a written line parses");
    assert_eq!(to_line(&again).expect("serializes again"), written);
}

/// The anthropic stream parser behind the SSE decoder: no panic, and the same events in any chunking.
pub fn sse_anthropic(data: &[u8]) {
    check_stream(pincer::provider::anthropic::stream::Parser::new, data);
}

/// The gemini stream parser behind the SSE decoder: no panic, and the same events in any chunking.
pub fn sse_gemini(data: &[u8]) {
    check_stream(pincer::provider::gemini::stream::Parser::new, data);
}

/// The openai stream parser behind the SSE decoder: no panic, and the same events in any chunking.
pub fn sse_openai(data: &[u8]) {
    check_stream(pincer::provider::openai::stream::Parser::new, data);
}

/// The openai_chat stream parser behind the SSE decoder: no panic, and the same events in any chunking.
pub fn sse_openai_chat(data: &[u8]) {
    check_stream(pincer::provider::openai_chat::stream::Parser::new, data);
}

// ---------------------------------------------------------------------------- the SSE checks

// Feed one input through the real SSE decoder and a protocol parser whole, in two pieces split
// at a point the input chooses, and byte by byte. None may panic, and all three must yield the
// same events, the same error and the same end state — the property the unit tests check for
// recorded streams, here for arbitrary bytes.
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
fn check_stream<P: StreamParser>(new: fn() -> P, data: &[u8]) {
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
