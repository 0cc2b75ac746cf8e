//! The claude stream-json and codex `exec --json` readers: the bytes a CLI child prints, line by
//! line, through the same reader and recorder a delegated turn uses. None may panic, and every
//! entry the recorder writes must be one line that parses back (a child's output must never
//! corrupt pincer's session). The first byte picks the dialect.
#![no_main]

use pincer::session::transcript::Transcript;
use pincer::backend::CliBackend;
use pincer::backend::claude::ClaudeStream;
use pincer::backend::codex::CodexStream;
use pincer::engine::recorder::{Recorder, RecorderState};
use pincer::engine::{Ending, TurnReport};
use pincer::engine::{Event, EventSink};
use pincer::session::record::{parse_line, to_line};

struct Discard;

impl EventSink for Discard {
    fn emit(&mut self, _event: &Event) -> std::io::Result<()> {
        Ok(())
    }
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
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
});
