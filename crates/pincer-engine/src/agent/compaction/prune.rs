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
//! results are replaced by a short placeholder.
//!
//! Cache stability (SPEC §7): a provider that caches by prefix (Anthropic's breakpoints) reads
//! a request's cache only up to the first block that differs from an earlier request, so a
//! pruning that changes one more old result on every turn makes every turn write the whole
//! history again. Two rules keep the pruned prefix byte-stable for many turns:
//! - the caller measures the context deterministically from the unpruned messages
//!   ([`crate::conversation::estimate_tokens`]), never from the last call's usage (which is
//!   already the pruned size, so the decision would flip on every other request);
//! - what may be pruned ends at a boundary that moves in steps of [`STEP_PERCENT`] % of the
//!   window: the last message whose start lies below the protected recent turns' start rounded
//!   down to a step. Between steps the same results are pruned the same way, so each request is
//!   the previous one plus new turns; a step is one deliberate cut, after which the new prefix
//!   holds again for a step's worth of turns. Clearing, once needed, clears every long result
//!   before that boundary (not "oldest first until under 50 %", which would move every turn).

use crate::conversation::{ContentBlock, Message, ToolResultMessage, estimate_tokens};

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
/// The boundary of what may be pruned moves in steps of this share of the window.
const STEP_PERCENT: u64 = 10;

/// What [`apply`] changes in a request: the messages it may prune, and the measure it decides by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    range: std::ops::Range<usize>,
    context_tokens: u64,
    window: u64,
}

#[cfg(test)]
/// Prunes old tool results in `messages` (a request copy) for a context of `context_tokens` in a
/// window of `window` tokens, leaving the last `protect_recent` assistant turns alone. A window
/// of 0 (unknown) prunes nothing.
pub fn prune(messages: &mut [Message], context_tokens: u64, window: u64, protect_recent: usize) {
    if let Some(plan) = plan(messages, context_tokens, window, protect_recent) {
        apply(messages, &plan);
    }
}

/// What pruning `messages` would change, or `None` when it would change nothing: a request that
/// borrows the turn's messages copies them only then, and the boundary is found once.
pub fn plan(
    messages: &[Message],
    context_tokens: u64,
    window: u64,
    protect_recent: usize,
) -> Option<Plan> {
    let range = prunable(messages, context_tokens, window, protect_recent)?;
    let changes = messages[range.clone()].iter().any(|message| {
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
    });
    changes.then_some(Plan {
        range,
        context_tokens,
        window,
    })
}

/// Prune `messages` as `plan` (made from the same messages) says.
pub fn apply(messages: &mut [Message], plan: &Plan) {
    let first_user = plan.range.start;
    let mut estimate = plan.context_tokens;
    let mut trimmed = Vec::new();
    for (index, message) in messages[plan.range.clone()].iter_mut().enumerate() {
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

    if !above(estimate, plan.window, HARD_CLEAR_RATIO_PERCENT) {
        return;
    }
    for (index, original_length) in trimmed {
        let Message::ToolResult(result) = &mut messages[index] else {
            continue;
        };
        let placeholder = format!(
            "[Old tool result cleared to save context; it had {original_length} characters.]"
        );
        replace_text(result, placeholder);
    }
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
    let boundary = stepped_boundary(messages, protected_from, window);
    (first_user < boundary).then_some(first_user..boundary)
}

/// Where what may be pruned ends: the last message that starts at or below the start of
/// `messages[protected_from]` rounded down to a step of [`STEP_PERCENT`] % of `window` (see the
/// module comment). Starts are counted from the unpruned messages.
fn stepped_boundary(messages: &[Message], protected_from: usize, window: u64) -> usize {
    let step = (window * STEP_PERCENT / 100).max(1);
    let mut starts = Vec::with_capacity(protected_from + 1);
    let mut start = 0;
    for message in &messages[..protected_from] {
        starts.push(start);
        start += estimate_tokens(std::slice::from_ref(message));
    }
    let level = start / step * step;
    // The first message that starts above the level is where pruning stops.
    starts
        .iter()
        .position(|start| *start > level)
        .unwrap_or(protected_from)
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
        crate::session::pi_fixtures::pi_message(value)
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
    fn once_above_half_every_long_result_before_the_boundary_is_cleared() {
        // 69,000 - 18,440 = 50,560: both go, not "oldest first until under half", which
        // would clear one more result on a later turn and move the cut again.
        let mut messages = conversation();
        prune(&mut messages, 69_000, 100_000, 2);
        assert!(text(&messages[3]).starts_with("[Old tool result cleared"));
        assert!(text(&messages[5]).starts_with("[Old tool result cleared"));
        assert_eq!(text(&messages[8]), big_output());
    }

    /// The request a session of `turns` turns sends, each turn reading 8,000 characters, at a
    /// window of 100,000, measured as the engine measures it.
    fn pruned_session(turns: usize) -> Vec<Message> {
        let mut messages = vec![user("go")];
        for turn in 0..turns {
            messages.push(assistant());
            messages.push(result(&format!("{turn:>5}{}", "r".repeat(7_995))));
        }
        messages.push(assistant());
        let tokens = estimate_tokens(&messages);
        prune(&mut messages, tokens, 100_000, 3);
        messages
    }

    #[test]
    fn the_pruned_prefix_holds_between_steps_so_each_request_extends_the_last() {
        // 2,000 tokens a turn and a step of 10,000: the cut moves about every fifth turn, and
        // between moves every request starts with the whole previous request.
        let mut moves = 0;
        let mut previous = pruned_session(15);
        for turns in 16..60 {
            let now = pruned_session(turns);
            let kept = previous.len() - 1; // the previous request's messages but its last
            if now[..kept] != previous[..kept] {
                moves += 1;
            }
            previous = now;
        }
        assert!(
            (5..=12).contains(&moves),
            "the cut moved {moves} times in 44 turns"
        );
        // And pruning does happen: the oldest results are trimmed or cleared.
        assert!(text(&previous[2]).starts_with("[Old tool result"));
    }

    #[test]
    fn images_in_old_results_are_dropped_with_a_note() {
        let image = json!({"type": "image", "data": "AAAA", "mimeType": "image/png"});
        let with_image = message(json!({
            "role": "toolResult", "toolCallId": "c", "toolName": "read",
            "content": [{"type": "text", "text": "a chart"}, image],
            "isError": false, "timestamp": 3,
        }));
        // A long result after it puts the protected turn past the first step of the window.
        let mut messages = vec![
            user("go"),
            assistant(),
            with_image.clone(),
            assistant(),
            result(&big_output()),
            assistant(),
        ];
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
