//! A whole session file as it may be found on disk (torn, damaged, foreign): both readers — the
//! full loader and the backwards tail reader — return a value or an error, never panic.
#![no_main]

#[path = "../checks.rs"]
#[allow(dead_code, reason = "each target uses one of the checks")]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::session_file(data));
