//! A whole session file through the index's one-pass summary reader: never a panic, and a file
//! it takes summarized as the full loader summarizes it.
#![no_main]

#[path = "../checks.rs"]
#[allow(dead_code, reason = "each target uses one of the checks")]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::session_summary(data));
