//! A whole session file as it may be found on disk (torn, damaged, foreign): both readers — the
//! full loader and the backwards tail reader — return a value or an error, never panic.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(dir) = tempfile::tempdir() else {
        return;
    };
    let path = dir.path().join("2026-01-01T00-00-00-000Z_fuzz.jsonl");
    if std::fs::write(&path, data).is_err() {
        return;
    }
    let _ = pincer::session::store::load(&path);
    let _ = pincer::session::tail::load(&path);
});
