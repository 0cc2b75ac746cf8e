//! Provider web search in stream-json, whatever the provider: a search is shown as Anthropic
//! shows its own — a `server_tool_use` block, then a `web_search_tool_result` block with the
//! pages found — and a text's sources as `web_search_result_location` citations. The opaque
//! parts (Anthropic's `encrypted_content` and `encrypted_index`, OpenAI's item) stay in the
//! session file; scripts get the URLs, titles and queries.

use super::schema::{
    TextCitation, WebSearchContent, WebSearchErrorLine, WebSearchErrorWord, WebSearchLocationWord,
    WebSearchResultLine, WebSearchResultWord,
};
use crate::conversation::{Citation, ServerToolCall};

/// A text block's citations.
pub(crate) fn citations(citations: &[Citation]) -> Vec<TextCitation> {
    citations.iter().map(citation).collect()
}

/// One citation.
pub(crate) fn citation(citation: &Citation) -> TextCitation {
    TextCitation {
        kind: WebSearchLocationWord::Value,
        url: citation.url.clone(),
        title: citation.title.clone(),
        cited_text: citation.cited_text.clone(),
    }
}

/// The `content` of a search's `web_search_tool_result`: its error, else the pages found;
/// `None` for a search whose outcome never arrived (its stream was cut short).
pub(crate) fn result_content(call: &ServerToolCall) -> Option<WebSearchContent> {
    Some(match &call.error {
        Some(code) => WebSearchContent::Error(WebSearchErrorLine {
            kind: WebSearchErrorWord::Value,
            error_code: code.clone(),
        }),
        None if call.payload.is_none() && call.results.is_empty() => return None,
        None => WebSearchContent::Results(
            call.results
                .iter()
                .map(|result| WebSearchResultLine {
                    kind: WebSearchResultWord::Value,
                    url: result.url.clone(),
                    title: result.title.clone(),
                })
                .collect(),
        ),
    })
}
