//! One session line: parsing never panics, and a line that parses serializes to one line that
//! parses back and serializes to the same bytes. (Comparing the parsed values instead would be
//! wrong: `1e+17` is written as JavaScript writes it, `100000000000000000`, which reads back as an
//! integer — the same number, a different `serde_json::Number`.) The fast reader of the
//! entries pincer writes gives what the general reader (through a `serde_json::Value`) gives.
#![no_main]

#[path = "../checks.rs"]
#[allow(dead_code, reason = "each target uses one of the checks")]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::session_line(data));
