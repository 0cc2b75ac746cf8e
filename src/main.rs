//! The thin binary: parse the command line, run the command, map the outcome to an exit code once.

use std::process::ExitCode;

fn main() -> ExitCode {
    pincer::commands::main_entry()
}
