//! Provider-neutral types shared by every layer: token usage and the accounting rules of SPEC §8.
//!
//! Invariants (SPEC §8): `input`, `cache_read` and `cache_write` are disjoint parts of the prompt,
//! so the prompt size is their sum; `reasoning` is part of `output`. Context occupancy is a
//! snapshot of the last successful call, never a sum over calls.

use serde::{Deserialize, Serialize};

/// Normalized token counts of one call (or a sum of calls).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenUsage {
    /// Uncached prompt tokens.
    pub input: u64,
    /// Generated tokens, reasoning included.
    pub output: u64,
    /// Prompt tokens served from the cache.
    pub cache_read: u64,
    /// Prompt tokens written to the cache by this call.
    pub cache_write: u64,
    /// The share of `cache_write` written to Anthropic's 1-hour cache (priced higher than the
    /// default 5-minute cache); 0 where the provider has no such split.
    #[serde(default)]
    pub cache_write_1h: u64,
    /// The reasoning share of `output`, where the provider reports it.
    pub reasoning: u64,
}

impl TokenUsage {
    /// Tokens of the prompt: the three disjoint prompt parts.
    pub fn prompt_tokens(&self) -> u64 {
        self.input + self.cache_read + self.cache_write
    }

    /// The context this call left behind: prompt plus output (SPEC §8).
    pub fn context_tokens(&self) -> u64 {
        self.prompt_tokens() + self.output
    }

    /// Add another call's usage (for cumulative totals).
    pub fn add(&mut self, other: &TokenUsage) {
        self.input += other.input;
        self.output += other.output;
        self.cache_read += other.cache_read;
        self.cache_write += other.cache_write;
        self.cache_write_1h += other.cache_write_1h;
        self.reasoning += other.reasoning;
    }
}

/// How full the context window is (SPEC §8).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ContextOccupancy {
    /// Tokens in context after the last successful call.
    pub tokens: u64,
    /// The model's context window, when known.
    pub window: Option<u64>,
    /// `tokens / window` in percent, one decimal, when the window is known.
    pub percent: Option<f64>,
}

impl ContextOccupancy {
    /// Occupancy of `usage` (the last successful call) in a window of `window` tokens.
    pub fn of(usage: &TokenUsage, window: Option<u64>) -> ContextOccupancy {
        let tokens = usage.context_tokens();
        let percent = window
            .filter(|window| *window > 0)
            .map(|window| (tokens as f64 * 1000.0 / window as f64).round() / 10.0);
        ContextOccupancy {
            tokens,
            window,
            percent,
        }
    }

    /// Compact form for tables: `85.6k/200k 43%`.
    pub fn short(&self) -> String {
        match (self.window, self.percent) {
            (Some(window), Some(percent)) => format!(
                "{}/{} {}%",
                compact_count(self.tokens),
                compact_count(window),
                percent.round()
            ),
            _ => compact_count(self.tokens),
        }
    }
}

/// `85601` → `85.6k`, `200000` → `200k`, `1048576` → `1.0M`, small numbers as they are.
pub fn compact_count(count: u64) -> String {
    if count < 1_000 {
        count.to_string()
    } else if count < 1_000_000 {
        let thousands = count as f64 / 1_000.0;
        if count.is_multiple_of(1_000) {
            format!("{}k", count / 1_000)
        } else {
            format!("{thousands:.1}k")
        }
    } else if count.is_multiple_of(1_000_000) {
        format!("{}M", count / 1_000_000)
    } else {
        format!("{:.1}M", count as f64 / 1_000_000.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_occupancy_of_the_seeds_worked_example_is_85601_of_200000() {
        let usage = TokenUsage {
            input: 1,
            cache_write: 500,
            cache_read: 85_000,
            output: 100,
            cache_write_1h: 0,
            reasoning: 0,
        };
        let occupancy = ContextOccupancy::of(&usage, Some(200_000));
        assert_eq!(occupancy.tokens, 85_601);
        assert_eq!(occupancy.percent, Some(42.8));
        assert_eq!(occupancy.short(), "85.6k/200k 43%");
    }

    #[test]
    fn cumulative_usage_sums_every_kind() {
        let mut total = TokenUsage::default();
        let call = TokenUsage {
            input: 10,
            output: 20,
            cache_read: 30,
            cache_write: 40,
            cache_write_1h: 0,
            reasoning: 5,
        };
        total.add(&call);
        total.add(&call);
        assert_eq!(total.prompt_tokens(), 160);
        assert_eq!(total.output, 40);
        assert_eq!(total.reasoning, 10);
    }

    #[test]
    fn compact_counts_read_like_a_table_cell() {
        assert_eq!(compact_count(999), "999");
        assert_eq!(compact_count(1_500), "1.5k");
        assert_eq!(compact_count(200_000), "200k");
        assert_eq!(compact_count(1_048_576), "1.0M");
        assert_eq!(compact_count(2_000_000), "2M");
    }
}
