//! Regenerates `man/`, `completions/` and the generated pages of `docs/reference/` from the
//! code: `cargo run -q --example generate-docs [-- --out DIR]` (default: the current directory).
//!
//! A developer's tool, so it is an example rather than a subcommand: the installed `pincer`
//! carries neither the JSON Schema derivation nor the man page renderer. A test regenerates the
//! same files in memory and fails when a committed one is stale.

#![expect(
    clippy::print_stderr,
    reason = "a developer's tool: its errors go to the terminal"
)]

use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage: cargo run -q --example generate-docs [-- --out DIR]";

fn main() -> ExitCode {
    let arguments: Vec<_> = std::env::args_os().skip(1).collect();
    let root = match arguments.as_slice() {
        [] => PathBuf::from("."),
        [flag, directory] if flag == "--out" => PathBuf::from(directory),
        _ => {
            eprintln!("error: {USAGE}");
            return ExitCode::from(2);
        }
    };
    match pincer::docs::write_all(&root) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!(
                "error: cannot write docs under '{}': {error}",
                root.display()
            );
            if error.is_refusal() {
                eprintln!(
                    "hint: generated pages are never written through a symbolic link or into \
                     a special file: remove what is in the way"
                );
                return ExitCode::from(2);
            }
            ExitCode::from(1)
        }
    }
}
