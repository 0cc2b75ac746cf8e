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

/// Tokens kept free for the next answer: compaction starts once the context passes
/// `window - reserve` (pi's default is 16,384; OpenClaw raises the floor to 20,000).
pub const DEFAULT_RESERVE_TOKENS: u64 = 20_000;

/// Tokens of recent messages kept verbatim after a compaction (pi's `keepRecentTokens`).
pub const DEFAULT_KEEP_RECENT_TOKENS: u64 = 20_000;

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
    fn an_unknown_window_never_triggers_and_a_huge_reserve_always_does() {
        assert!(!should_compact(1_000_000, 0, DEFAULT_RESERVE_TOKENS));
        assert!(should_compact(1, 10_000, DEFAULT_RESERVE_TOKENS));
    }
}
