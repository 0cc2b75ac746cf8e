//! Context pruning: oversized tool results from older turns are shortened in the request, so a
//! long session reaches compaction later and each request costs less (SPEC §7, after OpenClaw's
//! context-pruning extension).
//!
//! Only the request copy of the messages is changed; the session file keeps every result whole.
//! Protected, and never touched: everything before the first user message (workspace context the
//! caller may have put there) and everything from the `protect_recent`-th last assistant message
//! on, which the model is still working with. With fewer assistant messages than that, nothing is
//! pruned.
//!
//! Above 30 % of the window, each older tool result longer than 4,000 characters keeps its first
//! and last 1,500 characters and a note of how much was cut, and images in older tool results are
//! dropped. If the context, less what that saved (chars/4), is still above 50 %, those long
//! results are replaced by a short placeholder, oldest first, until it is not.

use crate::conversation::{ContentBlock, Message, ToolResultMessage};

/// Below this share of the window nothing is pruned.
const SOFT_TRIM_RATIO_PERCENT: u64 = 30;
/// Above this share (after trimming) long old results are cleared.
const HARD_CLEAR_RATIO_PERCENT: u64 = 50;
/// Tool results up to this many characters are left alone.
const MAX_RESULT_CHARS: usize = 4_000;
const HEAD_CHARS: usize = 1_500;
const TAIL_CHARS: usize = 1_500;
/// pi counts an image as 4,800 characters (1,200 tokens) in its estimates.
const IMAGE_TOKENS: u64 = 1_200;

/// Prunes old tool results in `messages` (a request copy) for a context of `context_tokens` in a
/// window of `window` tokens, leaving the last `protect_recent` assistant turns alone. A window
/// of 0 (unknown) prunes nothing.
pub fn prune(messages: &mut [Message], context_tokens: u64, window: u64, protect_recent: usize) {
    let Some(range) = prunable(messages, context_tokens, window, protect_recent) else {
        return;
    };
    let (first_user, protected_from) = (range.start, range.end);
    let mut estimate = context_tokens;
    let mut trimmed = Vec::new();
    for (index, message) in messages[first_user..protected_from].iter_mut().enumerate() {
        let Message::ToolResult(result) = message else {
            continue;
        };
        let images = drop_images(result);
        estimate = estimate.saturating_sub(images * IMAGE_TOKENS);
        let text = text_of(result);
        let length = text.chars().count();
        if length > MAX_RESULT_CHARS {
            let shortened = trim_text(&text, length);
            let saved = length - shortened.chars().count();
            estimate = estimate.saturating_sub(saved.div_ceil(4) as u64);
            replace_text(result, shortened);
            trimmed.push((first_user + index, length));
        }
    }

    for (index, original_length) in trimmed {
        if !above(estimate, window, HARD_CLEAR_RATIO_PERCENT) {
            break;
        }
        let Message::ToolResult(result) = &mut messages[index] else {
            continue;
        };
        let placeholder = format!(
            "[Old tool result cleared to save context; it had {original_length} characters.]"
        );
        let saved = text_of(result)
            .chars()
            .count()
            .saturating_sub(placeholder.chars().count());
        estimate = estimate.saturating_sub(saved.div_ceil(4) as u64);
        replace_text(result, placeholder);
    }
}

/// Whether [`prune`] would change anything in `messages`: a request that borrows the turn's
/// messages copies them only then.
pub fn would_prune(
    messages: &[Message],
    context_tokens: u64,
    window: u64,
    protect_recent: usize,
) -> bool {
    prunable(messages, context_tokens, window, protect_recent).is_some_and(|range| {
        messages[range].iter().any(|message| {
            let Message::ToolResult(result) = message else {
                return false;
            };
            let mut characters = 0;
            for block in &result.content {
                match block {
                    ContentBlock::Image(_) => return true,
                    ContentBlock::Text(text) => characters += text.text.chars().count(),
                }
            }
            characters > MAX_RESULT_CHARS
        })
    })
}

/// The messages [`prune`] may change: from the first user message to the protected recent
/// turns, when the context is big enough for pruning at all.
fn prunable(
    messages: &[Message],
    context_tokens: u64,
    window: u64,
    protect_recent: usize,
) -> Option<std::ops::Range<usize>> {
    if window == 0 || !above(context_tokens, window, SOFT_TRIM_RATIO_PERCENT) {
        return None;
    }
    let first_user = messages
        .iter()
        .position(|message| matches!(message, Message::User(_)))?;
    let protected_from = if protect_recent == 0 {
        messages.len()
    } else {
        let mut assistants = messages
            .iter()
            .enumerate()
            .rev()
            .filter(|(_, message)| matches!(message, Message::Assistant(_)));
        assistants.nth(protect_recent - 1)?.0
    };
    (first_user < protected_from).then_some(first_user..protected_from)
}

/// Whether `tokens` is more than `percent` % of `window`.
fn above(tokens: u64, window: u64, percent: u64) -> bool {
    u128::from(tokens) * 100 > u128::from(window) * u128::from(percent)
}

/// Head and tail of `text` (of `length` characters) around a note of what was cut.
fn trim_text(text: &str, length: usize) -> String {
    let head: String = text.chars().take(HEAD_CHARS).collect();
    let tail: String = text.chars().skip(length - TAIL_CHARS).collect();
    let cut = length - HEAD_CHARS - TAIL_CHARS;
    format!(
        "{head}\n...\n{tail}\n\n[Old tool result trimmed: kept the first {HEAD_CHARS} and the last \
         {TAIL_CHARS} of its {length} characters; {cut} characters were cut.]"
    )
}

/// Removes image blocks and says so in a text block; returns how many were removed.
fn drop_images(result: &mut ToolResultMessage) -> u64 {
    let before = result.content.len();
    result
        .content
        .retain(|block| !matches!(block, ContentBlock::Image(_)));
    let removed = (before - result.content.len()) as u64;
    if removed > 0 {
        let noun = if removed == 1 { "image" } else { "images" };
        result.content.push(ContentBlock::text(format!(
            "[{removed} {noun} removed from this old tool result to save context.]"
        )));
    }
    removed
}

/// The text blocks of a result, concatenated as the providers send them.
fn text_of(result: &ToolResultMessage) -> String {
    result
        .content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Text(block) => Some(block.text.as_str()),
            _ => None,
        })
        .collect()
}

/// Replaces every text block of a result by one block holding `text`, in the place of the first.
fn replace_text(result: &mut ToolResultMessage, text: String) {
    let first_text = result
        .content
        .iter()
        .position(|block| matches!(block, ContentBlock::Text(_)))
        .unwrap_or(0);
    result
        .content
        .retain(|block| !matches!(block, ContentBlock::Text(_)));
    let position = first_text.min(result.content.len());
    result.content.insert(position, ContentBlock::text(text));
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::{Value, json};

    fn message(value: Value) -> Message {
        crate::provider::test_support::pi_message(value)
    }

    fn user(text: &str) -> Message {
        message(json!({"role": "user", "content": text, "timestamp": 1}))
    }

    fn assistant() -> Message {
        message(json!({
            "role": "assistant",
            "content": [{"type": "toolCall", "id": "c", "name": "read", "arguments": {}}],
            "api": "anthropic-messages", "provider": "anthropic", "model": "claude",
            "usage": {}, "stopReason": "toolUse", "timestamp": 2,
        }))
    }

    fn result(text: &str) -> Message {
        message(json!({
            "role": "toolResult", "toolCallId": "c", "toolName": "read",
            "content": [{"type": "text", "text": text}], "isError": false, "timestamp": 3,
        }))
    }

    fn text(message: &Message) -> String {
        match message {
            Message::ToolResult(result) => text_of(result),
            other => panic!("not a tool result: {other:?}"),
        }
    }

    /// 40,000 characters whose first and last 1,500 are recognizable.
    fn big_output() -> String {
        format!(
            "{}{}{}",
            "h".repeat(1_500),
            "m".repeat(37_000),
            "t".repeat(1_500)
        )
    }

    /// Two old turns with big results, then two recent turns with a big result of their own.
    fn conversation() -> Vec<Message> {
        vec![
            result(&big_output()), // before the first user message: protected
            user("go"),
            assistant(),
            result(&big_output()),
            assistant(),
            result(&big_output()),
            result("small"),
            assistant(),
            result(&big_output()),
            assistant(),
        ]
    }

    #[test]
    fn nothing_is_pruned_at_or_below_30_percent_of_the_window() {
        let mut messages = conversation();
        prune(&mut messages, 30_000, 100_000, 2);
        assert_eq!(messages, conversation());
        prune(&mut messages, 90_000, 0, 2);
        assert_eq!(messages, conversation());
    }

    #[test]
    fn above_30_percent_old_long_results_keep_their_head_and_tail() {
        let mut messages = conversation();
        prune(&mut messages, 60_000, 100_000, 2);
        let trimmed = format!(
            "{}\n...\n{}\n\n[Old tool result trimmed: kept the first 1500 and the last 1500 of \
             its 40000 characters; 37000 characters were cut.]",
            "h".repeat(1_500),
            "t".repeat(1_500)
        );
        assert_eq!(text(&messages[3]), trimmed);
        assert_eq!(text(&messages[5]), trimmed);
        // Short results, the recent turns and anything before the first user message stay.
        assert_eq!(text(&messages[6]), "small");
        assert_eq!(text(&messages[8]), big_output());
        assert_eq!(text(&messages[0]), big_output());
    }

    #[test]
    fn above_50_percent_after_trimming_old_long_results_are_cleared_oldest_first() {
        let mut messages = conversation();
        // Trimming saves about 2 × 9,220 tokens: 80,000 → 61,560, still above half of 100,000.
        prune(&mut messages, 80_000, 100_000, 2);
        let cleared = "[Old tool result cleared to save context; it had 40000 characters.]";
        assert_eq!(text(&messages[3]), cleared);
        assert_eq!(text(&messages[5]), cleared);
        assert_eq!(text(&messages[8]), big_output());

        // At 60,000 the trimming alone brings it to 41,560: nothing is cleared.
        let mut messages = conversation();
        prune(&mut messages, 60_000, 100_000, 2);
        assert!(text(&messages[3]).contains("[Old tool result trimmed:"));
    }

    #[test]
    fn clearing_stops_once_the_context_is_back_under_half_the_window() {
        let mut messages = conversation();
        // 70,000 - 18,440 = 51,560; clearing the first saves about 764 tokens: 50,796, still
        // above, so the second goes too.
        prune(&mut messages, 70_000, 100_000, 2);
        assert!(text(&messages[3]).starts_with("[Old tool result cleared"));
        assert!(text(&messages[5]).starts_with("[Old tool result cleared"));

        let mut messages = conversation();
        // 69,000 - 18,440 = 50,560; after the first clearing it is 49,796: the second stays.
        prune(&mut messages, 69_000, 100_000, 2);
        assert!(text(&messages[3]).starts_with("[Old tool result cleared"));
        assert!(text(&messages[5]).contains("[Old tool result trimmed:"));
    }

    #[test]
    fn images_in_old_results_are_dropped_with_a_note() {
        let image = json!({"type": "image", "data": "AAAA", "mimeType": "image/png"});
        let with_image = message(json!({
            "role": "toolResult", "toolCallId": "c", "toolName": "read",
            "content": [{"type": "text", "text": "a chart"}, image],
            "isError": false, "timestamp": 3,
        }));
        let mut messages = vec![user("go"), assistant(), with_image.clone(), assistant()];
        prune(&mut messages, 40_000, 100_000, 1);
        assert_eq!(
            messages[2],
            message(json!({
                "role": "toolResult", "toolCallId": "c", "toolName": "read",
                "content": [
                    {"type": "text", "text": "a chart"},
                    {"type": "text",
                     "text": "[1 image removed from this old tool result to save context.]"},
                ],
                "isError": false, "timestamp": 3,
            }))
        );

        // The same result in the protected recent turn keeps its image.
        let mut recent = vec![user("go"), assistant(), with_image.clone()];
        prune(&mut recent, 40_000, 100_000, 1);
        assert_eq!(recent[2], with_image);
    }

    #[test]
    fn fewer_assistant_turns_than_protected_means_nothing_is_pruned() {
        let mut messages = conversation();
        prune(&mut messages, 90_000, 100_000, 5);
        assert_eq!(messages, conversation());
    }
}
