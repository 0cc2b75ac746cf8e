//! Cooldown bookkeeping for one profile: pure functions of the stats and the clock (SPEC §9.3,
//! OpenClaw `auth-profiles/usage.ts`).
//!
//! - Failures are counted within a 24-hour window; a failure after a quiet day starts over.
//! - `billing` disables the profile for 5 h, doubling per billing failure, at most 24 h.
//! - Every other recorded kind cools the profile down for 1, 5, 25, then 60 minutes by the
//!   window's failure count. Which kinds get recorded is the caller's policy: the turn loop
//!   records `auth`, `billing` and `rate_limit` (SPEC §9.3), not timeouts.
//! - A burst counts once: a failure of the kind that started the cooldown (or the disable) in
//!   force is a failure of the same burst — parallel runs that hit the same limit together —
//!   and neither raises the count nor lengthens the window (OpenClaw's later "active windows are
//!   immutable"). The next step needs a failure after the window.
//! - A window never reaches further than its own step from now ([`settle`]): one written by a
//!   clock that was ahead, or read after the clock was set back, is cut to it.
//! - A success clears the counters and both windows.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

const MINUTE_MS: u64 = 60_000;
const HOUR_MS: u64 = 60 * MINUTE_MS;

/// Use and failure bookkeeping of one profile (times in milliseconds since the epoch).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UsageStats {
    /// Last successful use; round-robin picks the oldest first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_used: Option<u64>,
    /// Not tried before this time (auth and rate-limit failures).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cooldown_until: Option<u64>,
    /// The failure kind that started the cooldown (OpenClaw's field): a failure of that kind
    /// inside it belongs to the same burst.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cooldown_reason: Option<String>,
    /// Not tried before this time (billing failures).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disabled_until: Option<u64>,
    /// Why the profile is disabled (`billing`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disabled_reason: Option<String>,
    /// Failures within the current 24-hour window.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub error_count: u32,
    /// Failures within the window by kind (`auth`, `billing`, `rate_limit`, …).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub failure_counts: BTreeMap<String, u32>,
    /// The last failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_failure_at: Option<u64>,
    /// Fields written by other tools (OpenClaw's `cooldownReason`, …), kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

fn is_zero(count: &u32) -> bool {
    *count == 0
}

/// Failures older than this no longer count.
pub const FAILURE_WINDOW_MS: u64 = 24 * HOUR_MS;
/// The first cooldown; each further failure multiplies it by 5.
const COOLDOWN_BASE_MS: u64 = MINUTE_MS;
/// The longest cooldown.
const COOLDOWN_MAX_MS: u64 = HOUR_MS;
/// The first billing disable; each further billing failure doubles it.
const BILLING_BASE_MS: u64 = 5 * HOUR_MS;
/// The longest billing disable.
const BILLING_MAX_MS: u64 = 24 * HOUR_MS;

/// The failure kind that disables rather than cools down.
pub const BILLING: &str = "billing";

/// The stats after a failure of `kind` at `now_ms`.
pub fn record_failure(stats: &UsageStats, kind: &str, now_ms: u64) -> UsageStats {
    let mut next = settle(stats, now_ms);
    if in_the_same_burst(&next, kind, now_ms) {
        return next;
    }
    let window_expired = next
        .last_failure_at
        .is_some_and(|last| now_ms.saturating_sub(last) > FAILURE_WINDOW_MS);
    if window_expired {
        next.error_count = 0;
        next.failure_counts.clear();
    }
    next.error_count = next.error_count.saturating_add(1);
    let kind_count = next.failure_counts.entry(kind.to_owned()).or_insert(0);
    *kind_count = kind_count.saturating_add(1);
    let kind_count = *kind_count;
    next.last_failure_at = Some(now_ms);
    if kind == BILLING {
        next.disabled_until = Some(now_ms.saturating_add(billing_duration_ms(kind_count)));
        next.disabled_reason = Some(BILLING.to_owned());
    } else {
        next.cooldown_until = Some(now_ms.saturating_add(cooldown_duration_ms(next.error_count)));
        next.cooldown_reason = Some(kind.to_owned());
    }
    next
}

/// Whether a failure of `kind` at `now_ms` belongs to the burst that started the window in
/// force: the same kind, inside the window. A store without `cooldownReason` (older pincer
/// versions) counts the kinds of the current window instead.
fn in_the_same_burst(stats: &UsageStats, kind: &str, now_ms: u64) -> bool {
    if kind == BILLING {
        return stats.disabled_until.is_some_and(|until| until > now_ms)
            && stats
                .disabled_reason
                .as_deref()
                .is_none_or(|reason| reason == BILLING);
    }
    let cooling = stats.cooldown_until.is_some_and(|until| until > now_ms);
    let same_kind = match stats.cooldown_reason.as_deref() {
        Some(reason) => reason == kind,
        None => stats
            .failure_counts
            .get(kind)
            .is_some_and(|count| *count > 0),
    };
    cooling && same_kind
}

/// The stats with no window further from `now_ms` than its own step: a cooldown at most
/// [`cooldown_duration_ms`] of its count, a billing disable at most [`billing_duration_ms`] of
/// its count, the last failure not in the future. Written by a clock that ran ahead (or read
/// after the clock was set back), a window would otherwise last that much longer.
pub fn settle(stats: &UsageStats, now_ms: u64) -> UsageStats {
    let mut settled = stats.clone();
    let cooldown_limit = now_ms.saturating_add(cooldown_duration_ms(stats.error_count.max(1)));
    settled.cooldown_until = stats.cooldown_until.map(|until| until.min(cooldown_limit));
    let billing_count = stats.failure_counts.get(BILLING).copied().unwrap_or(0);
    let disabled_limit = now_ms.saturating_add(billing_duration_ms(billing_count.max(1)));
    settled.disabled_until = stats.disabled_until.map(|until| until.min(disabled_limit));
    settled.last_failure_at = stats.last_failure_at.map(|last| last.min(now_ms));
    settled
}

/// How long the `count`-th failure in the window cools a profile down: 1, 5, 25, 60 minutes.
pub fn cooldown_duration_ms(count: u32) -> u64 {
    let exponent = count.saturating_sub(1).min(3);
    (COOLDOWN_BASE_MS * 5u64.pow(exponent)).min(COOLDOWN_MAX_MS)
}

/// How long the `count`-th billing failure disables a profile: 5, 10, 20, then 24 hours.
pub fn billing_duration_ms(count: u32) -> u64 {
    let exponent = count.saturating_sub(1).min(10);
    (BILLING_BASE_MS.saturating_mul(1u64 << exponent)).min(BILLING_MAX_MS)
}

/// The stats after a successful call at `now_ms`: used now, counters and windows cleared.
pub fn record_success(stats: &UsageStats, now_ms: u64) -> UsageStats {
    let mut next = reset(stats);
    next.last_used = Some(now_ms);
    next
}

/// The stats with cooldowns and failure counts cleared (`pincer auth reset`); use time kept.
pub fn reset(stats: &UsageStats) -> UsageStats {
    UsageStats {
        error_count: 0,
        failure_counts: Default::default(),
        cooldown_until: None,
        cooldown_reason: None,
        disabled_until: None,
        disabled_reason: None,
        ..stats.clone()
    }
}

/// Until when the profile is unavailable, if it is at `now_ms` (windows [`settle`]d).
pub fn unavailable_until(stats: &UsageStats, now_ms: u64) -> Option<u64> {
    let stats = settle(stats, now_ms);
    let until = stats
        .cooldown_until
        .unwrap_or(0)
        .max(stats.disabled_until.unwrap_or(0));
    (until > now_ms).then_some(until)
}

#[cfg(test)]
/// Whether the profile may be tried at `now_ms`.
pub fn is_available(stats: &UsageStats, now_ms: u64) -> bool {
    unavailable_until(stats, now_ms).is_none()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    const NOW: u64 = 1_800_000_000_000;

    #[test]
    fn rate_limit_failures_cool_down_1_5_25_then_60_minutes() {
        let mut stats = UsageStats::default();
        let mut durations = Vec::new();
        let mut now = NOW;
        for _ in 0..5 {
            stats = record_failure(&stats, "rate_limit", now);
            let until = stats.cooldown_until.unwrap();
            durations.push((until - now) / MINUTE_MS);
            // The next failure comes when the cooldown is over.
            now = until;
        }
        assert_eq!(durations, [1, 5, 25, 60, 60]);
        assert_eq!(stats.error_count, 5);
        assert_eq!(stats.failure_counts["rate_limit"], 5);
        assert_eq!(stats.cooldown_reason.as_deref(), Some("rate_limit"));
        assert_eq!(stats.disabled_until, None);
    }

    #[test]
    fn failures_of_the_kind_that_started_the_window_count_once_inside_it() {
        let first = record_failure(&UsageStats::default(), "rate_limit", NOW);
        let mut stats = first.clone();
        // 31 parallel runs hit the same limit in the next seconds.
        for second in 1..32 {
            stats = record_failure(&stats, "rate_limit", NOW + second * 1_000);
        }
        assert_eq!(stats, first);
        assert_eq!(stats.cooldown_until, Some(NOW + MINUTE_MS));

        let billed = record_failure(&UsageStats::default(), "billing", NOW);
        let again = record_failure(&billed, "billing", NOW + HOUR_MS);
        assert_eq!(again, billed);
        assert_eq!(again.disabled_until, Some(NOW + 5 * HOUR_MS));
    }

    #[test]
    fn a_failure_of_another_kind_inside_the_window_counts() {
        let stats = record_failure(&UsageStats::default(), "rate_limit", NOW);
        let stats = record_failure(&stats, "auth", NOW + 1_000);
        assert_eq!(stats.error_count, 2);
        assert_eq!(stats.cooldown_until, Some(NOW + 1_000 + 5 * MINUTE_MS));
        assert_eq!(stats.cooldown_reason.as_deref(), Some("auth"));
        let stats = record_failure(&stats, "billing", NOW + 2_000);
        assert_eq!(stats.disabled_until, Some(NOW + 2_000 + 5 * HOUR_MS));
    }

    #[test]
    fn a_cooldown_without_a_recorded_reason_takes_the_windows_kinds_for_its_burst() {
        let stats = UsageStats {
            cooldown_until: Some(NOW + MINUTE_MS),
            error_count: 1,
            failure_counts: [("rate_limit".to_owned(), 1)].into(),
            last_failure_at: Some(NOW),
            ..UsageStats::default()
        };
        assert_eq!(record_failure(&stats, "rate_limit", NOW + 10), stats);
        assert_eq!(record_failure(&stats, "auth", NOW + 10).error_count, 2);
    }

    #[test]
    fn a_window_written_by_a_clock_a_day_ahead_is_cut_to_its_own_step() {
        let day = 24 * HOUR_MS;
        let skewed = UsageStats {
            cooldown_until: Some(NOW + day + MINUTE_MS),
            cooldown_reason: Some("rate_limit".to_owned()),
            disabled_until: Some(NOW + 2 * day),
            disabled_reason: Some(BILLING.to_owned()),
            error_count: 1,
            failure_counts: [("rate_limit".to_owned(), 1), (BILLING.to_owned(), 1)].into(),
            last_failure_at: Some(NOW + day),
            ..UsageStats::default()
        };
        let settled = settle(&skewed, NOW);
        assert_eq!(settled.cooldown_until, Some(NOW + MINUTE_MS));
        assert_eq!(settled.disabled_until, Some(NOW + 5 * HOUR_MS));
        assert_eq!(settled.last_failure_at, Some(NOW));
        assert_eq!(
            settle(&settled, NOW),
            settled,
            "settling twice changes nothing"
        );
        assert_eq!(settle(&settled, NOW + 10), settled, "nor later");
        assert_eq!(unavailable_until(&skewed, NOW), Some(NOW + 5 * HOUR_MS));
        let cooling_only = UsageStats {
            disabled_until: None,
            ..skewed.clone()
        };
        assert_eq!(unavailable_until(&cooling_only, NOW), Some(NOW + MINUTE_MS));
        // A failure recorded now starts from the settled window.
        let failed = record_failure(&skewed, "rate_limit", NOW);
        assert_eq!(failed.cooldown_until, Some(NOW + MINUTE_MS));
        assert_eq!(failed.error_count, 1);
    }

    #[test]
    fn windows_within_their_step_are_left_as_they_are() {
        let stats = record_failure(&UsageStats::default(), "rate_limit", NOW);
        let stats = record_failure(&stats, "rate_limit", NOW + MINUTE_MS);
        assert_eq!(settle(&stats, NOW + MINUTE_MS), stats);
        assert_eq!(settle(&stats, NOW + 2 * MINUTE_MS), stats);
    }

    #[test]
    fn auth_and_rate_limit_failures_share_one_ladder() {
        let stats = record_failure(&UsageStats::default(), "auth", NOW);
        let stats = record_failure(&stats, "rate_limit", NOW);
        assert_eq!(stats.cooldown_until, Some(NOW + 5 * MINUTE_MS));
        assert_eq!(stats.failure_counts["auth"], 1);
        assert_eq!(stats.failure_counts["rate_limit"], 1);
    }

    #[test]
    fn billing_disables_for_5_hours_doubling_up_to_24() {
        let mut stats = UsageStats::default();
        let mut hours = Vec::new();
        let mut now = NOW;
        for _ in 0..4 {
            stats = record_failure(&stats, "billing", now);
            let until = stats.disabled_until.unwrap();
            hours.push((until - now) / HOUR_MS);
            now = until;
        }
        assert_eq!(hours, [5, 10, 20, 24]);
        assert_eq!(stats.disabled_reason.as_deref(), Some("billing"));
        assert_eq!(stats.cooldown_until, None);
    }

    #[test]
    fn a_failure_after_a_quiet_day_starts_the_count_over() {
        let stats = record_failure(&UsageStats::default(), "rate_limit", NOW);
        let stats = record_failure(&stats, "rate_limit", NOW + MINUTE_MS);
        assert_eq!(stats.error_count, 2);
        let later = NOW + MINUTE_MS + FAILURE_WINDOW_MS + 10;
        let stats = record_failure(&stats, "rate_limit", later);
        assert_eq!(stats.error_count, 1);
        assert_eq!(stats.cooldown_until, Some(later + MINUTE_MS));
    }

    #[test]
    fn a_profile_is_unavailable_until_the_later_of_both_windows() {
        let stats = UsageStats {
            cooldown_until: Some(NOW + 10),
            disabled_until: Some(NOW + 20),
            ..UsageStats::default()
        };
        assert!(!is_available(&stats, NOW));
        assert_eq!(unavailable_until(&stats, NOW), Some(NOW + 20));
        assert!(!is_available(&stats, NOW + 19));
        assert!(is_available(&stats, NOW + 20));
        assert!(is_available(&UsageStats::default(), NOW));
    }

    #[test]
    fn success_clears_failures_and_records_the_use() {
        let failed = record_failure(&UsageStats::default(), "billing", NOW);
        let failed = record_failure(&failed, "auth", NOW);
        let ok = record_success(&failed, NOW + 5);
        assert_eq!(ok.last_used, Some(NOW + 5));
        assert_eq!(ok.error_count, 0);
        assert!(ok.failure_counts.is_empty());
        assert_eq!((ok.cooldown_until, ok.disabled_until), (None, None));
        assert_eq!((&ok.disabled_reason, &ok.cooldown_reason), (&None, &None));
        assert!(is_available(&ok, NOW + 5));
    }

    #[test]
    fn reset_keeps_the_last_use() {
        let stats = UsageStats {
            last_used: Some(7),
            ..record_failure(&UsageStats::default(), "auth", NOW)
        };
        let cleared = reset(&stats);
        assert_eq!(cleared.last_used, Some(7));
        assert_eq!(cleared.cooldown_until, None);
        assert_eq!(cleared.error_count, 0);
    }
}
