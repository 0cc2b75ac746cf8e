//! claude's `stop_reason` words for every provider (SPEC §3.2).
//!
//! Scripts written for `claude -p` branch on `end_turn`, `max_tokens`, `tool_use`,
//! `stop_sequence`, `refusal` and `pause_turn`. pincer reports one of these whatever answered, and
//! keeps the provider's own word next to it as `provider_stop_reason`.

use crate::conversation::StopReason;

/// The claude word for a finished call: `reason` is the neutral reason of the call's finish (a
/// call with tool calls already counts as `ToolUse`), `provider_reason` the provider's own word
/// when it gave one (`end_turn`, `completed`, `max_output_tokens`, `length`, `STOP`, `SAFETY`, …).
/// `None` for a call that did not finish (aborted).
pub fn claude_stop_reason(
    reason: StopReason,
    provider_reason: Option<&str>,
) -> Option<&'static str> {
    let word = provider_reason.unwrap_or_default();
    let claude = match reason {
        StopReason::ToolUse => "tool_use",
        StopReason::Length => "max_tokens",
        StopReason::Stop => match word {
            "stop_sequence" => "stop_sequence",
            "pause_turn" => "pause_turn",
            _ => "end_turn",
        },
        // Content filters and safety stops are refusals; Gemini's other abnormal finishes
        // (a malformed function call, "other") end the turn without one.
        StopReason::Error => match word {
            "MALFORMED_FUNCTION_CALL"
            | "UNEXPECTED_TOOL_CALL"
            | "TOO_MANY_TOOL_CALLS"
            | "OTHER"
            | "FINISH_REASON_UNSPECIFIED"
            | "error" => "end_turn",
            _ => "refusal",
        },
        StopReason::Aborted => return None,
    };
    Some(claude)
}

/// Whether the provider stopped an answer it wants continued: Anthropic's `pause_turn`, when a
/// long server-side tool loop (web search) paused. The answer so far is sent back as it is, as
/// the last message of the next request, and the model goes on from there (docs: "Handling stop
/// reasons", `pause_turn`).
pub fn is_pause(provider_reason: Option<&str>) -> bool {
    provider_reason == Some("pause_turn")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{anthropic, gemini, openai_chat};

    #[test]
    fn every_providers_stop_words_map_to_claudes() {
        // (neutral reason as the parser reports it, provider word, claude word)
        let table = [
            // Anthropic's own words pass through.
            (
                anthropic::stream::stop_reason("end_turn"),
                "end_turn",
                "end_turn",
            ),
            (
                anthropic::stream::stop_reason("tool_use"),
                "tool_use",
                "tool_use",
            ),
            (
                anthropic::stream::stop_reason("max_tokens"),
                "max_tokens",
                "max_tokens",
            ),
            (
                anthropic::stream::stop_reason("stop_sequence"),
                "stop_sequence",
                "stop_sequence",
            ),
            (
                anthropic::stream::stop_reason("refusal"),
                "refusal",
                "refusal",
            ),
            (
                anthropic::stream::stop_reason("pause_turn"),
                "pause_turn",
                "pause_turn",
            ),
            (
                anthropic::stream::stop_reason("model_context_window_exceeded"),
                "model_context_window_exceeded",
                "max_tokens",
            ),
            // OpenAI Responses: the status, or the incomplete reason.
            (StopReason::Stop, "completed", "end_turn"),
            (StopReason::ToolUse, "completed", "tool_use"),
            (StopReason::Length, "max_output_tokens", "max_tokens"),
            (StopReason::Error, "content_filter", "refusal"),
            // Chat Completions `finish_reason`.
            (openai_chat::stream::stop_reason("stop"), "stop", "end_turn"),
            (
                openai_chat::stream::stop_reason("length"),
                "length",
                "max_tokens",
            ),
            (
                openai_chat::stream::stop_reason("tool_calls"),
                "tool_calls",
                "tool_use",
            ),
            (
                openai_chat::stream::stop_reason("content_filter"),
                "content_filter",
                "refusal",
            ),
            // Gemini `finishReason`.
            (gemini::stream::stop_reason("STOP"), "STOP", "end_turn"),
            (
                gemini::stream::stop_reason("MAX_TOKENS"),
                "MAX_TOKENS",
                "max_tokens",
            ),
            (gemini::stream::stop_reason("SAFETY"), "SAFETY", "refusal"),
            (
                gemini::stream::stop_reason("RECITATION"),
                "RECITATION",
                "refusal",
            ),
            (
                gemini::stream::stop_reason("PROHIBITED_CONTENT"),
                "PROHIBITED_CONTENT",
                "refusal",
            ),
            (
                gemini::stream::stop_reason("MALFORMED_FUNCTION_CALL"),
                "MALFORMED_FUNCTION_CALL",
                "end_turn",
            ),
            // codex reports no stop word.
            (StopReason::Stop, "completed", "end_turn"),
        ];
        for (reason, word, claude) in table {
            assert_eq!(
                claude_stop_reason(reason, Some(word)),
                Some(claude),
                "{word}"
            );
        }
        assert_eq!(
            claude_stop_reason(StopReason::ToolUse, None),
            Some("tool_use")
        );
        assert_eq!(claude_stop_reason(StopReason::Aborted, Some("x")), None);
    }
}
