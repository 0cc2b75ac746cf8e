//! A turn resolved before it runs (issue #48): the flags, the configuration and the environment
//! a turn is given, turned into plain values, with every usage error among them found here —
//! before stdin is read, a session is touched, a process starts or a request goes out — in the
//! way ripgrep turns its arguments into `HiArgs`. [`super::turn::execute`] runs from a
//! [`TurnPlan`]; what needs the effects of the run first (the files earlier runs wrote, approved
//! before the MCP declarations that may read them are loaded; the model chain, which reads the
//! session's record) is resolved there, in that order.

use std::path::PathBuf;
use std::sync::Arc;

use super::TurnRequest;
use super::env::RunEnv;
use super::replay::RunCassette;
use super::web_search::Asked;
use crate::error::CliResult;
use crate::hooks::HookSet;
use crate::session_setup::Choice;
use crate::structured::OutputSchema;
use crate::tools::policy::ToolPolicy;

/// What a turn will run with, resolved.
#[derive(Debug)]
pub(crate) struct TurnPlan {
    /// `--json-schema` / `--output-schema`, checked (SPEC §3.4).
    pub(crate) output_schema: Option<Arc<OutputSchema>>,
    /// `--record` / `--replay`, opened.
    pub(crate) cassette: RunCassette,
    /// `--add-dir` and `tools.add_dirs`, canonical, each an existing directory.
    pub(crate) added_dirs: Vec<PathBuf>,
    /// The declared hooks and those an agent SDK registered (SPEC §14).
    pub(crate) hooks: HookSet,
    /// Which built-in tools are offered and which calls are allowed, before the MCP servers'
    /// tools join.
    pub(crate) policy: ToolPolicy,
    /// Whether the turn asks for the provider's web search, and how.
    pub(crate) web_search: Asked,
    /// The network rules asked for (SPEC §20), each checked; in force or not is the run's to
    /// decide (its sandbox).
    pub(crate) network_rules: pincer_egress::Policy,
}

/// Resolve what `args` and the settings of `context` say of a turn on `choice`; the first usage
/// error is returned (exit 2), in the order a user meets them: the schema, the resume's own
/// arguments, the cassette, the added directories, the hooks, the tool rules, the network
/// rules.
pub(crate) fn resolve(
    context: &dyn RunEnv,
    args: &TurnRequest,
    choice: &Choice<'_>,
) -> CliResult<TurnPlan> {
    let output_schema = super::structured::schema(args)?;
    if let Choice::Resume(resume) = choice {
        resume.check()?;
    }
    let cassette = RunCassette::for_turn(context, args)?;
    let added_dirs = super::turn::added_dirs(context, &args.add_dir)?;
    let hooks = super::hooks::config(context, args)?;
    let policy = super::attempt::tool_policy(context, args)?;
    let network_rules = super::attempt::network_rules(context, args)?;
    Ok(TurnPlan {
        output_schema,
        cassette,
        added_dirs,
        hooks,
        policy,
        web_search: Asked::new(args.web_search, context.settings()),
        network_rules,
    })
}
