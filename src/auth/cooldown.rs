//! Cooldown bookkeeping for one profile: pure functions of the stats and the clock (SPEC §9.3,
//! OpenClaw `auth-profiles/usage.ts`).
//!
//! - Failures are counted within a 24-hour window; a failure after a quiet day starts over.
//! - `billing` disables the profile for 5 h, doubling per billing failure, at most 24 h.
//! - Every other recorded kind cools the profile down for 1, 5, 25, then 60 minutes by the
//!   window's failure count. Which kinds get recorded is the caller's policy: the turn loop
//!   records `auth`, `billing` and `rate_limit` (SPEC §9.3), not timeouts.
//! - A success clears the counters and both windows.

use super::store::UsageStats;

const MINUTE_MS: u64 = 60_000;
const HOUR_MS: u64 = 60 * MINUTE_MS;
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
    let mut next = stats.clone();
    let window_expired = stats
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
    }
    next
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
        disabled_until: None,
        disabled_reason: None,
        ..stats.clone()
    }
}

/// Until when the profile is unavailable, if it is at `now_ms`.
pub fn unavailable_until(stats: &UsageStats, now_ms: u64) -> Option<u64> {
    let until = stats
        .cooldown_until
        .unwrap_or(0)
        .max(stats.disabled_until.unwrap_or(0));
    (until > now_ms).then_some(until)
}

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
        for step in 0..5 {
            let now = NOW + step * MINUTE_MS;
            stats = record_failure(&stats, "rate_limit", now);
            durations.push((stats.cooldown_until.unwrap() - now) / MINUTE_MS);
        }
        assert_eq!(durations, [1, 5, 25, 60, 60]);
        assert_eq!(stats.error_count, 5);
        assert_eq!(stats.failure_counts["rate_limit"], 5);
        assert_eq!(stats.disabled_until, None);
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
        for _ in 0..4 {
            stats = record_failure(&stats, "billing", NOW);
            hours.push((stats.disabled_until.unwrap() - NOW) / HOUR_MS);
        }
        assert_eq!(hours, [5, 10, 20, 24]);
        assert_eq!(stats.disabled_reason.as_deref(), Some("billing"));
        assert_eq!(stats.cooldown_until, None);
    }

    #[test]
    fn a_failure_after_a_quiet_day_starts_the_count_over() {
        let stats = record_failure(&UsageStats::default(), "rate_limit", NOW);
        let stats = record_failure(&stats, "rate_limit", NOW + 1);
        let later = NOW + FAILURE_WINDOW_MS + 10;
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
        assert_eq!(ok.disabled_reason, None);
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
