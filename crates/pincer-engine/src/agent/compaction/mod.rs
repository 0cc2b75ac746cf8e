//! Compaction: when a session's context outgrows the model's window, the older part of the branch
//! is replaced by a model-written summary (SPEC §7). This module is the pure core; the turn loop
//! and `pincer compact` make the model call and append the `compaction` entry.
//!
//! - [`cut`] decides where the history is cut and what the summary must cover (pi's
//!   `prepareCompaction`/`findCutPoint`).
//! - [`summary`] builds the summarization request and assembles the final summary text with the
//!   file lists and tool failures (OpenClaw's compaction safeguard), including the fallback used
//!   when the summarization call fails, so a run never dies of its own size.
//! - [`prune`] trims oversized old tool results in a request copy (OpenClaw's context pruning);
//!   the session file is never touched.
//!
//! Nothing here does I/O or sees the provider; every function is deterministic.

pub mod cut;
pub mod prune;
pub mod summary;

/// Compact when `context > window - reserve` (SPEC §7).
pub const DEFAULT_RESERVE_TOKENS: u64 = 20_000;
/// History kept verbatim by a compaction (SPEC §7).
pub const DEFAULT_KEEP_RECENT_TOKENS: u64 = 20_000;

/// How compaction behaves in a run (`[compaction]`, resolved by `commands/`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompactionRules {
    /// Compact automatically when the context passes the threshold.
    pub enabled: bool,
    /// Tokens kept free for the next answer.
    pub reserve_tokens: u64,
    /// Tokens of recent messages kept verbatim.
    pub keep_recent_tokens: u64,
}

/// The reserve and the recent messages kept each take at most a quarter of a known window
/// (SPEC §7), so that a 4k–8k local model compacts too instead of keeping everything.
pub fn cap_to_window(tokens: u64, window: Option<u64>) -> u64 {
    match window {
        Some(window) if window > 0 => tokens.min(window / 4),
        _ => tokens,
    }
}

/// Whether a context of `context_tokens` leaves less than `reserve_tokens` of a `window`-token
/// context window free, so the session must be compacted before the next request.
///
/// A window of 0 means "unknown" and never triggers: compacting against a guessed window would
/// throw history away for nothing. A reserve larger than the window makes any context too big.
pub fn should_compact(context_tokens: u64, window: u64, reserve_tokens: u64) -> bool {
    window > 0 && context_tokens > window.saturating_sub(reserve_tokens)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compaction_starts_only_when_the_context_eats_into_the_reserve() {
        assert!(!should_compact(180_000, 200_000, DEFAULT_RESERVE_TOKENS));
        assert!(should_compact(180_001, 200_000, DEFAULT_RESERVE_TOKENS));
        assert!(!should_compact(0, 200_000, DEFAULT_RESERVE_TOKENS));
    }

    #[test]
    fn reserve_and_kept_tokens_take_at_most_a_quarter_of_a_known_window() {
        assert_eq!(cap_to_window(DEFAULT_RESERVE_TOKENS, Some(4_096)), 1_024);
        assert_eq!(cap_to_window(DEFAULT_KEEP_RECENT_TOKENS, Some(512)), 128);
        assert_eq!(cap_to_window(DEFAULT_RESERVE_TOKENS, Some(200_000)), 20_000);
        assert_eq!(cap_to_window(DEFAULT_RESERVE_TOKENS, None), 20_000);
        assert_eq!(cap_to_window(DEFAULT_RESERVE_TOKENS, Some(0)), 20_000);
        // A 4k window at 142 % compacts; at 70 % it does not.
        let reserve = cap_to_window(DEFAULT_RESERVE_TOKENS, Some(4_096));
        assert!(should_compact(5_800, 4_096, reserve));
        assert!(!should_compact(2_900, 4_096, reserve));
    }

    #[test]
    fn an_unknown_window_never_triggers_and_a_huge_reserve_always_does() {
        assert!(!should_compact(1_000_000, 0, DEFAULT_RESERVE_TOKENS));
        assert!(should_compact(1, 10_000, DEFAULT_RESERVE_TOKENS));
    }
}
