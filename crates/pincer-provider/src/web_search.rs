//! Provider web search (`--web-search`, config `tools.web_search`): the search tools the
//! providers run on their own side, asked for in the request and reported back in the stream.
//!
//! | protocol | request | stream |
//! |---|---|---|
//! | Anthropic Messages | server tool `{"type":"web_search_20250305","name":"web_search","max_uses":N}` | `server_tool_use` + `web_search_tool_result` blocks, `citations_delta` on text, `usage.server_tool_use.web_search_requests` |
//! | OpenAI Responses | tool `{"type":"web_search"}`, `include: ["web_search_call.action.sources"]` | `web_search_call` output items, `url_citation` annotations |
//! | Gemini | tool `{"google_search":{}}` | `groundingMetadata` (queries, chunks, supports) on the candidate |
//! | Chat Completions | none: the protocol has no server-side tool | — |
//!
//! Sources: Anthropic "Web search tool" (platform.claude.com/docs/en/agents-and-tools/tool-use/
//! web-search-tool), OpenAI "Web search" (platform.openai.com/docs/guides/tools-web-search) and
//! the Responses streaming reference, Gemini "Grounding with Google Search"
//! (ai.google.dev/gemini-api/docs/google-search).
//!
//! The results become [`crate::conversation::ServerToolCall`] blocks and
//! [`crate::conversation::Citation`]s; the engine never runs them. Whether a model gets the tool
//! is decided once per model ([`availability`]) from the protocol and the catalog's
//! `web_search` flag.

use crate::conversation::ApiKind;

/// Searches one model call may run (Anthropic `max_uses`), so that a prompt cannot make one
/// call search without bound; each call of the tool loop gets the same allowance.
pub const MAX_USES_PER_CALL: u32 = 5;

/// The web search a request asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WebSearch {
    /// Anthropic's `max_uses`; the other protocols have no such limit.
    pub max_uses: u32,
}

impl Default for WebSearch {
    fn default() -> WebSearch {
        WebSearch {
            max_uses: MAX_USES_PER_CALL,
        }
    }
}

/// What the catalog says of a model's web search.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ModelSearch {
    /// The model can be given the provider's search (catalog `web_search`).
    pub has_it: bool,
    /// ... also in a request that offers function tools (catalog `web_search_with_tools`:
    /// Gemini 2.x refuses `google_search` beside function declarations).
    pub with_tools: bool,
}

/// Whether a model can be given the provider's web search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Availability {
    /// The protocol and the model have it.
    Available,
    /// The protocol has no server-side search (Chat Completions).
    NoServerTools,
    /// The protocol has it, but the catalog (or `[providers.P.models.M]`) does not say the model
    /// does, or does not know the model.
    ModelLacksIt,
    /// The model searches only in a request without function tools, and this one has some.
    NotWithTools,
}

/// Whether `api` can search the web for a model the catalog describes as `model` (the default,
/// nothing, for a model it does not know), in a request that `offers_tools` or not.
pub fn availability(api: ApiKind, model: ModelSearch, offers_tools: bool) -> Availability {
    match api {
        ApiKind::OpenAiChat => Availability::NoServerTools,
        ApiKind::Anthropic | ApiKind::OpenAi | ApiKind::Google => {
            if !model.has_it {
                Availability::ModelLacksIt
            } else if offers_tools && !model.with_tools {
                Availability::NotWithTools
            } else {
                Availability::Available
            }
        }
    }
}

impl Availability {
    /// Why `provider/model` gets no web search, for an error or a warning, with a hint; `None`
    /// when it does.
    pub fn refusal(self, model_ref: &str) -> Option<(String, String)> {
        match self {
            Availability::Available => None,
            Availability::NoServerTools => Some((
                format!(
                    "web search is not available for '{model_ref}': the Chat Completions protocol \
                     has no server-side search tool"
                ),
                "use an anthropic, openai (Responses) or google model, or the web_fetch tool"
                    .to_owned(),
            )),
            Availability::ModelLacksIt => {
                let (provider, model) =
                    model_ref.split_once('/').unwrap_or(("PROVIDER", model_ref));
                Some((
                    format!("the model catalog does not say '{model_ref}' supports web search"),
                    format!(
                        "if it does, add `web_search = true` under \
                         [providers.{provider}.models.\"{model}\"] in config.toml"
                    ),
                ))
            }
            Availability::NotWithTools => Some((
                format!(
                    "'{model_ref}' cannot search the web in a request that also offers tools \
                     (the provider refuses its search beside function calling)"
                ),
                "run it with `--tools ''` to let it search, or pick a model that combines both"
                    .to_owned(),
            )),
        }
    }
}
