//! Time windows over the ledger: `--since`, and the day, week and month of a `[budget]` with the
//! verdict a run gets before its first request. Pure functions of a given "now".
//!
//! Windows are in UTC, so that every machine and every cron entry agrees on them whatever its
//! time zone: a day starts at 00:00 UTC, a week on Monday at 00:00 UTC, a month on the 1st at
//! 00:00 UTC; each resets when the next one starts.

use time::{Date, Duration, Month, OffsetDateTime, Time, UtcOffset};

/// A `--since` that is neither a duration nor a date.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "--since '{0}' is neither a duration (7d, 24h, 2w, 90m) nor an RFC 3339 date or time \
     (2026-06-01, 2026-06-01T09:00:00Z)"
)]
pub struct SinceError(pub String);

/// The start of `--since TEXT`: a duration back from `now` (`7d`, `24h`, `2w`, `90m`, `45s`,
/// sums such as `1d12h`), a date (its 00:00 UTC) or an RFC 3339 time.
pub fn parse_since(text: &str, now: OffsetDateTime) -> Result<OffsetDateTime, SinceError> {
    let trimmed = text.trim();
    if let Some(duration) = parse_duration(trimmed) {
        return now
            .checked_sub(duration)
            .ok_or_else(|| SinceError(text.to_owned()));
    }
    if let Some(time) = super::parse_time(trimmed) {
        return Ok(time);
    }
    let date_format = time::macros::format_description!("[year]-[month]-[day]");
    Date::parse(trimmed, &date_format)
        .map(|date| date.midnight().assume_utc())
        .map_err(|_| SinceError(text.to_owned()))
}

/// `7d`, `24h`, `2w`, `90m`, `45s` and sums like `1d12h` (spaces around it ignored); `None` for
/// anything else, and for an amount too large to count. Also `sessions prune --older-than`'s.
pub fn parse_duration(text: &str) -> Option<Duration> {
    let mut total = Duration::ZERO;
    let mut digits = String::new();
    let mut any = false;
    for character in text.trim().chars() {
        if character.is_ascii_digit() {
            digits.push(character);
            continue;
        }
        let amount: i64 = digits.parse().ok()?;
        digits.clear();
        let unit = match character {
            's' => Duration::SECOND,
            'm' => Duration::MINUTE,
            'h' => Duration::HOUR,
            'd' => Duration::DAY,
            'w' => Duration::WEEK,
            _ => return None,
        };
        total = total.checked_add(unit.checked_mul(i32::try_from(amount).ok()?)?)?;
        any = true;
    }
    (digits.is_empty() && any).then_some(total)
}

/// The period of a budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Period {
    /// `[budget] daily_usd`.
    Day,
    /// `[budget] weekly_usd`.
    Week,
    /// `[budget] monthly_usd`.
    Month,
}

impl Period {
    /// The budget's name as messages and reports say it: `daily`, `weekly`, `monthly`.
    pub fn name(self) -> &'static str {
        match self {
            Period::Day => "daily",
            Period::Week => "weekly",
            Period::Month => "monthly",
        }
    }

    /// Its key in config.toml, under `[budget]`.
    pub fn key(self) -> &'static str {
        match self {
            Period::Day => "daily_usd",
            Period::Week => "weekly_usd",
            Period::Month => "monthly_usd",
        }
    }

    /// The window holding `now`: when it started and when it resets (UTC).
    pub fn window(self, now: OffsetDateTime) -> (OffsetDateTime, OffsetDateTime) {
        let today = now.to_offset(UtcOffset::UTC).date();
        let (start, next) = match self {
            Period::Day => (today, today.next_day()),
            Period::Week => {
                let monday = today
                    .checked_sub(Duration::days(i64::from(
                        today.weekday().number_days_from_monday(),
                    )))
                    .unwrap_or(today);
                (monday, monday.checked_add(Duration::WEEK))
            }
            Period::Month => {
                let first = today.replace_day(1).unwrap_or(today);
                let next = match first.month() {
                    Month::December => first
                        .replace_year(first.year() + 1)
                        .and_then(|date| date.replace_month(Month::January))
                        .ok(),
                    month => first.replace_month(month.next()).ok(),
                };
                (first, next)
            }
        };
        let at_midnight = |date: Date| date.with_time(Time::MIDNIGHT).assume_utc();
        let reset = next.map_or(OffsetDateTime::new_utc(Date::MAX, Time::MAX), at_midnight);
        (at_midnight(start), reset)
    }
}

/// One configured budget.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Budget {
    /// Its period.
    pub period: Period,
    /// The most the runs of one window may spend, in US dollars.
    pub limit_usd: f64,
}

/// A budget against the runs of its current window.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BudgetState {
    /// The budget.
    pub budget: Budget,
    /// What the runs that ended in the window spent.
    pub spent_usd: f64,
    /// What the runs in progress reserved (`super::reserve`); 0 where only the ledger is read.
    pub reserved_usd: f64,
    /// How many runs in progress hold those reservations.
    pub runs_in_progress: usize,
    /// When the window started.
    pub starts: OffsetDateTime,
    /// When it resets.
    pub resets: OffsetDateTime,
}

impl BudgetState {
    /// Whether a run may not start: the window's spend and the live reservations have reached
    /// the limit (a limit of 0 allows no run).
    pub fn exceeded(&self) -> bool {
        self.spent_usd + self.reserved_usd >= self.budget.limit_usd
    }
}

/// When the widest window of `budgets` started: the ledger is read back to there.
pub fn earliest_start(budgets: &[Budget], now: OffsetDateTime) -> Option<OffsetDateTime> {
    budgets
        .iter()
        .map(|budget| budget.period.window(now).0)
        .min()
}

/// Each budget against the runs that ended in its window, given as when each ended and what it
/// cost.
pub fn states(
    budgets: &[Budget],
    ended: &[(OffsetDateTime, f64)],
    now: OffsetDateTime,
) -> Vec<BudgetState> {
    budgets
        .iter()
        .map(|budget| {
            let (starts, resets) = budget.period.window(now);
            let spent_usd = ended
                .iter()
                .filter(|(time, _)| *time >= starts)
                .map(|(_, cost)| cost)
                .sum();
            BudgetState {
                budget: *budget,
                spent_usd,
                reserved_usd: 0.0,
                runs_in_progress: 0,
                starts,
                resets,
            }
        })
        .collect()
}

/// The budget that keeps a run from starting, if any: of those exceeded, the one that resets
/// last, which is when runs may start again.
pub fn verdict(states: &[BudgetState]) -> Option<&BudgetState> {
    states
        .iter()
        .filter(|state| state.exceeded())
        .max_by_key(|state| state.resets)
}

#[cfg(test)]
mod tests {
    use time::macros::datetime;

    use super::*;
    use crate::ledger::Record;

    const NOW: OffsetDateTime = datetime!(2026-06-03 15:20:00 UTC);

    #[test]
    fn since_takes_durations_back_from_now() {
        assert_eq!(
            parse_since("7d", NOW),
            Ok(datetime!(2026-05-27 15:20:00 UTC))
        );
        assert_eq!(
            parse_since("24h", NOW),
            Ok(datetime!(2026-06-02 15:20:00 UTC))
        );
        assert_eq!(
            parse_since("2w", NOW),
            Ok(datetime!(2026-05-20 15:20:00 UTC))
        );
        assert_eq!(
            parse_since("90m", NOW),
            Ok(datetime!(2026-06-03 13:50:00 UTC))
        );
        assert_eq!(
            parse_since("1d12h", NOW),
            Ok(datetime!(2026-06-02 03:20:00 UTC))
        );
    }

    #[test]
    fn since_takes_a_date_at_midnight_utc_or_an_rfc3339_time() {
        assert_eq!(
            parse_since("2026-06-01", NOW),
            Ok(datetime!(2026-06-01 00:00:00 UTC))
        );
        assert_eq!(
            parse_since("2026-06-01T09:00:00+02:00", NOW),
            Ok(datetime!(2026-06-01 07:00:00 UTC))
        );
    }

    #[test]
    fn since_refuses_what_is_neither() {
        for bad in ["", "7", "d", "7x", "last week", "2026-13-01", "-7d"] {
            assert!(parse_since(bad, NOW).is_err(), "{bad:?}");
        }
        assert!(
            parse_since("7y", NOW)
                .unwrap_err()
                .to_string()
                .contains("RFC 3339")
        );
    }

    #[test]
    fn windows_start_at_utc_midnight_on_the_day_monday_and_the_first() {
        // 2026-06-03 is a Wednesday.
        assert_eq!(
            Period::Day.window(NOW),
            (
                datetime!(2026-06-03 00:00:00 UTC),
                datetime!(2026-06-04 00:00:00 UTC)
            )
        );
        assert_eq!(
            Period::Week.window(NOW),
            (
                datetime!(2026-06-01 00:00:00 UTC),
                datetime!(2026-06-08 00:00:00 UTC)
            )
        );
        assert_eq!(
            Period::Month.window(NOW),
            (
                datetime!(2026-06-01 00:00:00 UTC),
                datetime!(2026-07-01 00:00:00 UTC)
            )
        );
    }

    #[test]
    fn windows_follow_utc_whatever_the_offset_of_now() {
        // 23:30 on Sunday in New York is Monday in UTC: a new week.
        let now = datetime!(2026-06-07 23:30:00 -04:00);
        assert_eq!(
            Period::Week.window(now).0,
            datetime!(2026-06-08 00:00:00 UTC)
        );
        assert_eq!(
            Period::Day.window(now).0,
            datetime!(2026-06-08 00:00:00 UTC)
        );
    }

    #[test]
    fn december_resets_on_the_first_of_january() {
        let now = datetime!(2026-12-31 23:59:59 UTC);
        assert_eq!(
            Period::Month.window(now),
            (
                datetime!(2026-12-01 00:00:00 UTC),
                datetime!(2027-01-01 00:00:00 UTC)
            )
        );
        assert_eq!(
            Period::Day.window(now).1,
            datetime!(2027-01-01 00:00:00 UTC)
        );
    }

    fn spent(time: &str, cost_usd: f64) -> Record {
        Record {
            time: time.to_owned(),
            cost_usd,
            ..Record::default()
        }
    }

    /// What the budget check makes of the ledger's lines: a line whose time does not parse
    /// counts nowhere.
    fn ended(records: &[Record]) -> Vec<(OffsetDateTime, f64)> {
        records
            .iter()
            .filter_map(|record| Some((record.ended()?, record.cost_usd)))
            .collect()
    }

    #[test]
    fn each_budget_counts_the_runs_of_its_own_window() {
        let records = [
            spent("2026-05-31T23:00:00.000Z", 4.0), // last month, the week before
            spent("2026-06-01T08:00:00.000Z", 2.0), // this week and month
            spent("2026-06-03T01:00:00.000Z", 0.5), // today
            spent("torn", 100.0),
        ];
        let budgets = [
            Budget {
                period: Period::Day,
                limit_usd: 1.0,
            },
            Budget {
                period: Period::Week,
                limit_usd: 2.5,
            },
            Budget {
                period: Period::Month,
                limit_usd: 10.0,
            },
        ];
        let states = states(&budgets, &ended(&records), NOW);
        let spent: Vec<f64> = states.iter().map(|state| state.spent_usd).collect();
        assert_eq!(spent, [0.5, 2.5, 2.5]);
        assert_eq!(
            earliest_start(&budgets, NOW),
            Some(datetime!(2026-06-01 00:00:00 UTC))
        );
        // The weekly budget is reached exactly: no further run starts until Monday.
        let refused = verdict(&states).unwrap();
        assert_eq!(refused.budget.period, Period::Week);
        assert_eq!(refused.resets, datetime!(2026-06-08 00:00:00 UTC));
    }

    #[test]
    fn of_several_exceeded_budgets_the_one_that_resets_last_is_named() {
        let records = [spent("2026-06-03T01:00:00.000Z", 5.0)];
        let budgets = [
            Budget {
                period: Period::Day,
                limit_usd: 1.0,
            },
            Budget {
                period: Period::Month,
                limit_usd: 5.0,
            },
        ];
        let states = states(&budgets, &ended(&records), NOW);
        assert_eq!(verdict(&states).unwrap().budget.period, Period::Month);
    }

    #[test]
    fn a_run_under_every_budget_may_start() {
        let records = [spent("2026-06-03T01:00:00.000Z", 0.99)];
        let budgets = [Budget {
            period: Period::Day,
            limit_usd: 1.0,
        }];
        assert_eq!(verdict(&states(&budgets, &ended(&records), NOW)), None);
        assert_eq!(earliest_start(&[], NOW), None);
    }
}
