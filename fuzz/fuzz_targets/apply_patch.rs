//! The `*** Begin Patch` parser on arbitrary text: an error or a patch, never a panic.
#![no_main]

#[path = "../checks.rs"]
#[allow(dead_code, reason = "each target uses one of the checks")]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::apply_patch(data));
