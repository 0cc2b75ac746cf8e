//! The claude stream-json and codex `exec --json` readers: the bytes a CLI child prints, line by
//! line, through the same reader and recorder a delegated turn uses. None may panic, and every
//! entry the recorder writes must be one line that parses back (a child's output must never
//! corrupt pincer's session). The first byte picks the dialect.
#![no_main]

#[path = "../checks.rs"]
#[allow(dead_code, reason = "each target uses one of the checks")]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::cli_stream(data));
