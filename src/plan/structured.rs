//! `--json-schema` / `--output-schema` for `run` and `resume` (SPEC §3.4): the schema read and
//! checked before anything else happens (a bad one is exit 2), each model's [`Plan`] from the
//! catalog's mode, and how the result reads at the end. The engines do the rest.

use std::sync::Arc;

use crate::error::{CliError, CliResult};
use crate::plan::TurnRequest;
use crate::structured::{OutputSchema, Plan};

use super::env::RunEnv;
use super::models::ResolvedModel;

/// Whether the run asks for structured output (text mode then prints the value at the end,
/// not the answer as it streams).
pub(crate) fn requested(args: &TurnRequest) -> bool {
    args.json_schema.is_some() || args.output_schema.is_some()
}

/// The run's schema, read and checked: a file that cannot be read, text that is not JSON or
/// JSON that is not a JSON Schema is a usage error naming the problem.
pub(crate) fn schema(args: &TurnRequest) -> CliResult<Option<Arc<OutputSchema>>> {
    let schema = match (&args.json_schema, &args.output_schema) {
        (Some(argument), _) => OutputSchema::from_argument(argument),
        (None, Some(path)) => OutputSchema::from_file(path),
        (None, None) => return Ok(None),
    };
    schema
        .map(|schema| Some(Arc::new(schema)))
        .map_err(|error| CliError::usage(error.to_string()).with_hint(error.hint()))
}

/// How the model of one API attempt is held to the schema (none for a CLI backend, see
/// [`child_plan`]); what it cannot take is said on stderr.
pub(crate) fn plan(
    context: &dyn RunEnv,
    schema: Option<&Arc<OutputSchema>>,
    resolved: &ResolvedModel,
) -> Option<Plan> {
    if resolved.cli.is_some() {
        return None;
    }
    let reference = &resolved.reference;
    let mode =
        context
            .settings()
            .structured_mode(&reference.provider, &reference.model, resolved.api);
    let max_retries = context.settings().structured_output_max_retries;
    let (plan, warnings) = Plan::new(Arc::clone(schema?), resolved.api, mode, max_retries);
    warn(context, resolved, warnings);
    Some(plan)
}

/// The same for a CLI backend, which enforces the schema itself (codex in OpenAI's strict
/// form).
pub(crate) fn child_plan(
    context: &dyn RunEnv,
    schema: Option<&Arc<OutputSchema>>,
    resolved: &ResolvedModel,
) -> Option<Plan> {
    let codex = resolved.cli? == crate::backend::CliBackend::Codex;
    let max_retries = context.settings().structured_output_max_retries;
    let (plan, warnings) = Plan::for_child(Arc::clone(schema?), codex, max_retries);
    warn(context, resolved, warnings);
    Some(plan)
}

fn warn(context: &dyn RunEnv, resolved: &ResolvedModel, warnings: Vec<String>) {
    for warning in warnings {
        context.warn(&format!("{}: {warning}", resolved.reference));
    }
}
