//! `pincer completions SHELL`, from the clap definition.

use super::stdout_error;
use crate::cli::CompletionsArgs;
use crate::error::{CliResult, Exit};
use crate::output::Stdout;

/// Print a completion script for one shell.
pub(crate) fn completions(args: &CompletionsArgs) -> CliResult<Exit> {
    let buffer = crate::docs::render_completion(args.shell);
    let text = String::from_utf8_lossy(&buffer);
    Stdout::new().write(&text).map_err(stdout_error)?;
    Ok(Exit::Success)
}
