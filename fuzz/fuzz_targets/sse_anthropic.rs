//! The anthropic stream parser behind the SSE decoder: no panic, and the same events in any chunking.
#![no_main]

#[path = "../checks.rs"]
#[allow(dead_code, reason = "each target uses one of the checks")]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::sse_anthropic(data));
