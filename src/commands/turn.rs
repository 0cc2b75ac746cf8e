//! `run`, `resume` and `compact`: the agent turn. The turn engine is not in this build yet; these
//! commands parse every flag, then end with a clear "not available yet" (exit 2) and, in JSON
//! modes, the `result` object every run promises (SPEC §3.2).

use std::time::Instant;

use super::{Context, stdout_error};
use crate::cli::{CompactArgs, ResumeArgs, RunArgs};
use crate::error::{CliError, CliResult, Exit};
use crate::output::Format;
use crate::output::events::sink_for;
use crate::output::result::{ResultSubtype, RunResult};

/// `pincer run`.
pub fn run(
    format: Format,
    started: Instant,
    context: &CliResult<Context>,
    args: &RunArgs,
) -> CliResult<Exit> {
    let error = match context {
        Ok(_) => CliError::not_available("running a turn (`pincer run`)"),
        Err(error) => error.clone(),
    };
    fail(format, args.turn.include_partial_messages, started, error)
}

/// `pincer resume`.
pub fn resume(
    format: Format,
    started: Instant,
    context: &CliResult<Context>,
    args: &ResumeArgs,
) -> CliResult<Exit> {
    let error = match context {
        Ok(_) => CliError::not_available("resuming a session with a new turn (`pincer resume`)"),
        Err(error) => error.clone(),
    };
    fail(format, args.turn.include_partial_messages, started, error)
}

/// `pincer compact`.
pub fn compact(_context: &Context, _args: &CompactArgs) -> CliResult<Exit> {
    Err(CliError::not_available("compaction (`pincer compact`)"))
}

/// End a turn that failed before any model call: in JSON modes the result object comes first,
/// because every run that parsed its arguments ends with one (SPEC §3.2).
fn fail(
    format: Format,
    include_partial: bool,
    started: Instant,
    error: CliError,
) -> CliResult<Exit> {
    if format.is_json() {
        let result = RunResult::early_error(
            ResultSubtype::ErrorDuringExecution,
            error.exit.kind(),
            &error.message,
            u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        );
        sink_for(format, include_partial)
            .finish(&result)
            .map_err(stdout_error)?;
    }
    Err(error)
}
