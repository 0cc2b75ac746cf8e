//! `pincer completions SHELL` and the hidden `pincer generate-docs`, from the clap definition and
//! (the reference pages) the tables and types `docs.rs` reads.

use super::stdout_error;
use crate::cli::{CompletionsArgs, GenerateDocsArgs};
use crate::error::{CliError, CliResult, Exit};
use crate::output::Stdout;

/// Print a completion script for one shell.
pub(crate) fn completions(args: &CompletionsArgs) -> CliResult<Exit> {
    let buffer = crate::docs::render_completion(args.shell);
    let text = String::from_utf8_lossy(&buffer);
    Stdout::new().write(&text).map_err(stdout_error)?;
    Ok(Exit::Success)
}

/// Regenerate `man/`, `completions/` and the generated pages of `docs/reference/` under `--out`
/// (default: the current directory).
pub(crate) fn docs(args: &GenerateDocsArgs) -> CliResult<Exit> {
    let root = args.out.clone().unwrap_or_else(|| ".".into());
    crate::docs::write_all(&root).map_err(|error| {
        if crate::fs::NotRegular::of(&error.source).is_some() {
            return super::user_file_error("generated file", &error.path, &error.source);
        }
        CliError::new(
            Exit::RunFailed,
            format!("cannot write docs under '{}': {error}", root.display()),
        )
    })?;
    Ok(Exit::Success)
}
