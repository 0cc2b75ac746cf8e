//! `--web-search` and config `tools.web_search`: which models of the failover chain get the
//! provider's own search tool, and what is said about the ones that cannot have it.
//!
//! - Asked for with the flag, a primary API model that cannot search (Chat Completions, a model
//!   the catalog does not mark `web_search`, or a Gemini 2.x model in a turn that offers tools)
//!   is a usage error, exit 2, before the session is created: a cron digest that was told to
//!   search must not quietly answer from memory.
//! - Asked for by the config (a default for every model), or for a fallback model, such a model
//!   runs without search and a warning says so on stderr.
//! - A CLI backend always gets it: it is mapped onto the child's own search (claude's
//!   `WebSearch` tool, codex's `web_search` setting; `backend::invocation`).

use super::models::ResolvedModel;
use crate::error::{CliError, CliResult};
use crate::provider::web_search::{Availability, ModelSearch, WebSearch, availability};
use crate::settings::Settings;

/// Whether the turn asks for web search, and how.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Asked {
    /// `--web-search` or `tools.web_search`.
    pub(crate) asked: bool,
    /// `--web-search` itself.
    pub(crate) by_flag: bool,
}

impl Asked {
    /// From the flag and the config.
    pub(crate) fn new(flag: bool, settings: &Settings) -> Asked {
        Asked {
            asked: flag || settings.tools.web_search,
            by_flag: flag,
        }
    }
}

/// Whether `model` can search, by its protocol and catalog entry, in a request that
/// `offers_tools` or not. A CLI backend can.
fn model_availability(
    settings: &Settings,
    model: &ResolvedModel,
    offers_tools: bool,
) -> Availability {
    if model.cli.is_some() {
        return Availability::Available;
    }
    let search = settings
        .model_info(&model.reference.provider, &model.reference.model)
        .map_or(ModelSearch::default(), |info| ModelSearch {
            has_it: info.web_search,
            with_tools: info.web_search_with_tools,
        });
    availability(model.api, search, offers_tools)
}

/// The primary model, before the session is created: `--web-search` it cannot honour is exit 2.
pub(crate) fn check_primary(
    settings: &Settings,
    asked: Asked,
    primary: &ResolvedModel,
    offers_tools: bool,
) -> CliResult<()> {
    if !asked.by_flag {
        return Ok(());
    }
    let availability = model_availability(settings, primary, offers_tools);
    match availability.refusal(&primary.reference.to_string()) {
        Some((message, hint)) => Err(CliError::usage(message).with_hint(hint)),
        None => Ok(()),
    }
}

/// The web search an API attempt on `model` gets, in a request that `offers_tools` or not:
/// `None` when the turn does not ask for it, when `model` is a CLI backend (its child
/// searches), or when it cannot (then `warn` hears why).
pub(crate) fn for_attempt(
    settings: &Settings,
    asked: Asked,
    (model, offers_tools): (&ResolvedModel, bool),
    warn: &dyn Fn(&str),
) -> Option<WebSearch> {
    if !asked.asked || model.cli.is_some() {
        return None;
    }
    let availability = model_availability(settings, model, offers_tools);
    match availability.refusal(&model.reference.to_string()) {
        Some((message, _)) => {
            warn(&format!("{message}; this model runs without web search"));
            None
        }
        None => Some(WebSearch::default()),
    }
}
