//! The `*** Begin Patch` parser on arbitrary text: an error or a patch, never a panic.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = pincer::tools::apply_patch::parse(text);
    }
});
