//! The openai stream parser behind the SSE decoder: no panic, and the same events in any chunking.
#![no_main]

#[path = "common.rs"]
mod common;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    common::check_stream(pincer::provider::openai::stream::Parser::new, data);
});
