//! Totals of ledger records, overall and grouped by day, model, session or tag (`pincer usage`).

use std::collections::BTreeMap;

use super::Record;

/// What records are grouped by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupBy {
    /// The UTC day the run ended (`2026-06-01`).
    Day,
    /// `provider/model`.
    Model,
    /// The session's name, else its id.
    Session,
    /// `--tag`.
    Tag,
}

impl GroupBy {
    /// The word `--by` takes and the report shows.
    pub fn as_str(self) -> &'static str {
        match self {
            GroupBy::Day => "day",
            GroupBy::Model => "model",
            GroupBy::Session => "session",
            GroupBy::Tag => "tag",
        }
    }

    /// The group of `record`; `None` when the record has no value for it (no tag, no session).
    fn key(self, record: &Record) -> Option<String> {
        match self {
            GroupBy::Day => record.ended().map(|ended| {
                let ended = ended.to_offset(time::UtcOffset::UTC);
                format!(
                    "{:04}-{:02}-{:02}",
                    ended.year(),
                    u8::from(ended.month()),
                    ended.day()
                )
            }),
            GroupBy::Model => match (&record.provider, &record.model) {
                (Some(provider), Some(model)) => Some(format!("{provider}/{model}")),
                (None, Some(model)) => Some(model.clone()),
                (_, None) => None,
            },
            GroupBy::Session => record
                .session_name
                .clone()
                .or_else(|| record.session_id.clone()),
            GroupBy::Tag => record.tag.clone(),
        }
    }
}

/// Runs, tokens and cost added up.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Totals {
    /// Runs counted.
    pub runs: u64,
    /// Of which failed (exit code other than 0).
    pub failed: u64,
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
    /// US dollars.
    pub cost_usd: f64,
}

impl Totals {
    fn add(&mut self, record: &Record) {
        self.runs += 1;
        self.failed += u64::from(record.exit_code != 0);
        self.input_tokens += record.input_tokens;
        self.cache_creation_input_tokens += record.cache_creation_input_tokens;
        self.cache_read_input_tokens += record.cache_read_input_tokens;
        self.output_tokens += record.output_tokens;
        self.reasoning_tokens += record.reasoning_tokens;
        self.cost_usd += record.cost_usd;
    }
}

/// One group of a grouped summary.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    /// The day, model, session or tag; `None` for the runs without one (no tag, no session).
    pub key: Option<String>,
    /// Its totals.
    pub totals: Totals,
}

/// The totals of `records`, and with `by` their groups: days in order, other groups by cost,
/// the highest first (ties by key), the runs without a key last.
pub fn summarize(records: &[Record], by: Option<GroupBy>) -> (Totals, Vec<Group>) {
    let mut total = Totals::default();
    let mut groups: BTreeMap<Option<String>, Totals> = BTreeMap::new();
    for record in records {
        total.add(record);
        if let Some(by) = by {
            groups.entry(by.key(record)).or_default().add(record);
        }
    }
    let mut groups: Vec<Group> = groups
        .into_iter()
        .map(|(key, totals)| Group { key, totals })
        .collect();
    if by != Some(GroupBy::Day) {
        groups.sort_by(|left, right| {
            right
                .totals
                .cost_usd
                .total_cmp(&left.totals.cost_usd)
                .then_with(|| left.key.cmp(&right.key))
        });
    }
    // Keyless runs last, whatever the order above.
    groups.sort_by_key(|group| group.key.is_none());
    (total, groups)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(time: &str, model: &str, tag: Option<&str>, cost_usd: f64) -> Record {
        Record {
            time: time.to_owned(),
            provider: Some("anthropic".to_owned()),
            model: Some(model.to_owned()),
            tag: tag.map(str::to_owned),
            session_id: Some(format!("id-{model}")),
            input_tokens: 10,
            output_tokens: 2,
            cost_usd,
            exit_class: "success".to_owned(),
            ..Record::default()
        }
    }

    fn records() -> Vec<Record> {
        vec![
            run("2026-06-02T10:00:00.000Z", "haiku", Some("ci"), 0.5),
            run("2026-06-01T23:59:59.999Z", "sonnet", None, 1.0),
            run("2026-06-02T00:00:00.000Z", "sonnet", Some("cron"), 2.0),
        ]
    }

    fn keys(groups: &[Group]) -> Vec<Option<&str>> {
        groups.iter().map(|group| group.key.as_deref()).collect()
    }

    #[test]
    fn totals_add_up_every_run() {
        let (total, groups) = summarize(&records(), None);
        assert_eq!(total.runs, 3);
        assert_eq!(total.input_tokens, 30);
        assert_eq!(total.output_tokens, 6);
        assert!((total.cost_usd - 3.5).abs() < 1e-12);
        assert!(groups.is_empty());
    }

    #[test]
    fn days_are_utc_days_in_order() {
        let (_, groups) = summarize(&records(), Some(GroupBy::Day));
        assert_eq!(keys(&groups), [Some("2026-06-01"), Some("2026-06-02")]);
        assert_eq!(groups[1].totals.runs, 2);
        assert!((groups[1].totals.cost_usd - 2.5).abs() < 1e-12);
    }

    #[test]
    fn models_and_sessions_come_by_cost_the_highest_first() {
        let (_, groups) = summarize(&records(), Some(GroupBy::Model));
        assert_eq!(
            keys(&groups),
            [Some("anthropic/sonnet"), Some("anthropic/haiku")]
        );
        let (_, groups) = summarize(&records(), Some(GroupBy::Session));
        assert_eq!(keys(&groups), [Some("id-sonnet"), Some("id-haiku")]);
    }

    #[test]
    fn untagged_runs_are_one_group_at_the_end() {
        let (_, groups) = summarize(&records(), Some(GroupBy::Tag));
        assert_eq!(keys(&groups), [Some("cron"), Some("ci"), None]);
    }

    #[test]
    fn a_named_session_groups_by_its_name() {
        let mut named = records();
        for record in &mut named {
            record.session_name = Some("nightly".to_owned());
        }
        let (_, groups) = summarize(&named, Some(GroupBy::Session));
        assert_eq!(keys(&groups), [Some("nightly")]);
        assert_eq!(groups[0].totals.runs, 3);
    }
}
