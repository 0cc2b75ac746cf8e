//! Link-time settings for the `pincer` binary.
//!
//! On Linux with glibc 2.36 or newer, the binary is linked with packed relative relocations
//! (`DT_RELR`, binutils 2.38+). A position-independent Rust binary carries tens of thousands of
//! relative relocations; as `.rela.dyn` they are about a megabyte that the loader reads at every
//! start, as `.relr.dyn` a few kilobytes. Every run starts with less memory (SPEC §12.1). An
//! older glibc cannot load such a binary, so the flag is only given when the build machine's
//! glibc (asked with `getconf`) is new enough and the binary is built for this machine.

use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let variable = |name: &str| std::env::var(name).unwrap_or_default();
    let native = variable("HOST") == variable("TARGET");
    if native
        && variable("CARGO_CFG_TARGET_OS") == "linux"
        && variable("CARGO_CFG_TARGET_ENV") == "gnu"
        && glibc_at_least(2, 36)
    {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}

/// Whether `getconf GNU_LIBC_VERSION` ("glibc 2.36") names at least `major.minor`.
fn glibc_at_least(major: u32, minor: u32) -> bool {
    let Ok(output) = Command::new("getconf").arg("GNU_LIBC_VERSION").output() else {
        return false;
    };
    let text = String::from_utf8_lossy(&output.stdout);
    let mut parts = text
        .trim()
        .trim_start_matches("glibc ")
        .split('.')
        .map(|part| part.parse::<u32>().ok());
    match (parts.next().flatten(), parts.next().flatten()) {
        (Some(found_major), Some(found_minor)) => (found_major, found_minor) >= (major, minor),
        _ => false,
    }
}
