//! `pincer usage`: the report's JSON shape (public API, like the result object: fields are only
//! added) and the text table rendered from the same struct.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

/// What `pincer usage` prints (SPEC §18).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UsageReport {
    /// The ledger file read.
    pub ledger: String,
    /// The start of the report (RFC 3339, UTC); `None`: every run.
    pub since: Option<String>,
    /// `day`, `model`, `session` or `tag` with `--by`.
    pub by: Option<String>,
    /// Runs counted.
    pub runs: u64,
    /// Of which ended with an exit code other than 0.
    pub failed_runs: u64,
    /// What they cost, in US dollars.
    #[serde(serialize_with = "super::money::usd")]
    pub total_cost_usd: f64,
    /// Their tokens.
    pub usage: UsageTokens,
    /// One row per group with `--by` (days in order, else the costliest first; runs without a
    /// tag or a session last, with a `null` key); empty without it.
    pub groups: Vec<UsageGroupRow>,
    /// Each configured `[budget]` against its current window, whatever `--since` says.
    pub budgets: Vec<BudgetRow>,
    /// Ledger lines that could not be read (a line torn by a crash) and were skipped.
    pub skipped_lines: usize,
}

/// Tokens added up, named as in the result object's `usage`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UsageTokens {
    /// Uncached prompt tokens.
    pub input_tokens: u64,
    /// Prompt tokens written to the cache.
    pub cache_creation_input_tokens: u64,
    /// Prompt tokens read from the cache.
    pub cache_read_input_tokens: u64,
    /// Output tokens, reasoning included.
    pub output_tokens: u64,
    /// The reasoning share of the output.
    pub reasoning_tokens: u64,
}

/// One group of `--by`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UsageGroupRow {
    /// The day, `provider/model`, session or tag; `null` for runs without one.
    pub key: Option<String>,
    /// Runs counted.
    pub runs: u64,
    /// Of which failed.
    pub failed_runs: u64,
    /// What they cost, in US dollars.
    #[serde(serialize_with = "super::money::usd")]
    pub cost_usd: f64,
    /// Their tokens.
    pub usage: UsageTokens,
}

/// One `[budget]` against the runs of its current window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BudgetRow {
    /// `daily`, `weekly` or `monthly`.
    pub budget: String,
    /// Its key under `[budget]`: `daily_usd`, `weekly_usd`, `monthly_usd`.
    pub key: String,
    /// The limit, in US dollars.
    #[serde(serialize_with = "super::money::usd")]
    pub limit_usd: f64,
    /// What the runs of the window spent.
    #[serde(serialize_with = "super::money::usd")]
    pub spent_usd: f64,
    /// Whether a run would be refused now (spent at or over the limit).
    pub exceeded: bool,
    /// When the window started (RFC 3339, UTC).
    pub window_start: String,
    /// When it resets (RFC 3339, UTC).
    pub resets_at: String,
}

/// The text table: a header, a row per group, a total row, then the budgets.
pub fn render(report: &UsageReport) -> String {
    let header = report.by.as_deref().unwrap_or("runs").to_ascii_uppercase();
    let mut rows: Vec<(String, u64, u64, f64, UsageTokens)> = report
        .groups
        .iter()
        .map(|group| {
            (
                group.key.clone().unwrap_or_else(|| "(none)".to_owned()),
                group.runs,
                group.failed_runs,
                group.cost_usd,
                group.usage,
            )
        })
        .collect();
    rows.push((
        "TOTAL".to_owned(),
        report.runs,
        report.failed_runs,
        report.total_cost_usd,
        report.usage,
    ));
    let width = rows
        .iter()
        .map(|row| row.0.chars().count())
        .chain([header.len()])
        .max()
        .unwrap_or(0);
    let mut text = String::new();
    let _ = writeln!(
        text,
        "{header:<width$}  {:>6}  {:>6}  {:>12}  {:>12}  {:>12}  {:>12}  {:>12}",
        "RUNS", "FAILED", "INPUT", "OUTPUT", "CACHE-READ", "CACHE-WRITE", "COST"
    );
    for (key, runs, failed, cost, usage) in &rows {
        let _ = writeln!(
            text,
            "{key:<width$}  {runs:>6}  {failed:>6}  {:>12}  {:>12}  {:>12}  {:>12}  {:>12}",
            usage.input_tokens,
            usage.output_tokens,
            usage.cache_read_input_tokens,
            usage.cache_creation_input_tokens,
            format!("${cost:.4}"),
        );
    }
    for budget in &report.budgets {
        let _ = writeln!(
            text,
            "{} budget: ${:.4} of {} spent since {}{}, resets {}",
            budget.budget,
            budget.spent_usd,
            limit(budget.limit_usd),
            budget.window_start,
            if budget.exceeded {
                " (reached: runs exit 5)"
            } else {
                ""
            },
            budget.resets_at
        );
    }
    if report.skipped_lines > 0 {
        let _ = writeln!(
            text,
            "({} unreadable ledger lines skipped)",
            report.skipped_lines
        );
    }
    text
}

/// A limit as it was likely written: cents when it has no finer part (`$5.00`), else four
/// places (`$0.0030`).
fn limit(amount: f64) -> String {
    if (amount * 100.0).fract().abs() < 1e-9 {
        format!("${amount:.2}")
    } else {
        format!("${amount:.4}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_has_a_row_per_group_a_total_and_the_budgets() {
        let tokens = UsageTokens {
            input_tokens: 100,
            output_tokens: 10,
            cache_read_input_tokens: 1_000,
            cache_creation_input_tokens: 200,
            reasoning_tokens: 0,
        };
        let report = UsageReport {
            ledger: "/home/u/.local/share/pincer/usage-ledger.jsonl".to_owned(),
            since: None,
            by: Some("tag".to_owned()),
            runs: 2,
            failed_runs: 1,
            total_cost_usd: 0.003,
            usage: tokens,
            groups: vec![
                UsageGroupRow {
                    key: Some("nightly-review".to_owned()),
                    runs: 1,
                    failed_runs: 0,
                    cost_usd: 0.002,
                    usage: tokens,
                },
                UsageGroupRow {
                    key: None,
                    runs: 1,
                    failed_runs: 1,
                    cost_usd: 0.001,
                    usage: tokens,
                },
            ],
            budgets: vec![BudgetRow {
                budget: "daily".to_owned(),
                key: "daily_usd".to_owned(),
                limit_usd: 0.003,
                spent_usd: 0.003,
                exceeded: true,
                window_start: "2026-06-01T00:00:00Z".to_owned(),
                resets_at: "2026-06-02T00:00:00Z".to_owned(),
            }],
            skipped_lines: 1,
        };
        let expected = "\
TAG               RUNS  FAILED         INPUT        OUTPUT    CACHE-READ   CACHE-WRITE          COST
nightly-review       1       0           100            10          1000           200       $0.0020
(none)               1       1           100            10          1000           200       $0.0010
TOTAL                2       1           100            10          1000           200       $0.0030
daily budget: $0.0030 of $0.0030 spent since 2026-06-01T00:00:00Z (reached: runs exit 5), resets 2026-06-02T00:00:00Z
(1 unreadable ledger lines skipped)
";
        assert_eq!(render(&report), expected);
    }
}
