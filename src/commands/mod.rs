//! One file per subcommand.
use std::process::ExitCode;

/// Parse arguments, run, and map the outcome to an exit code.
pub fn main_entry() -> ExitCode {
    ExitCode::SUCCESS
}
