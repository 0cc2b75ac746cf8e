//! The failover chain (SPEC §9.3): the primary model and its fallbacks, tried in order until one
//! ends the turn other than by a failure that moves on. A pure planner decides — which link is
//! passed over before it is tried, which ending moves on, what is left of the run's guardrails —
//! and one loop ([`run`]) follows it over any [`Links`]: `commands/` supplies the links (their
//! settings and engines), the loop emits the `Fallback` events and adds the reports up.

use super::event::{Event, EventSink, Fallback};
use super::{Ending, TurnReport};
use crate::provider::ProviderError;
use crate::provider::classify::FailureKind;

/// What the planner knows of a link before it is tried.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    /// `provider/model`.
    pub model_ref: String,
    /// The provider name.
    pub provider: String,
    /// The provider needs a key and has none.
    pub missing_key: bool,
    /// Every credential of the provider is in a cooldown.
    pub all_cooling: bool,
}

/// Why a link was passed over or failed: its class and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkFailure {
    /// The class (what the `Fallback` event and the error line call it).
    pub kind: FailureKind,
    /// What went wrong.
    pub message: String,
}

/// The link is not worth trying: no key, or (while another model remains) every credential is
/// cooling down. The last link is tried in a cooldown, since there is nothing else.
pub fn pass_over(link: &Link, is_last: bool) -> Option<LinkFailure> {
    if link.missing_key {
        Some(LinkFailure {
            kind: FailureKind::Auth,
            message: format!("no credentials for provider '{}'", link.provider),
        })
    } else if !is_last && link.all_cooling {
        Some(LinkFailure {
            kind: FailureKind::RateLimit,
            message: format!(
                "provider '{}' is in cooldown (all profiles unavailable)",
                link.provider
            ),
        })
    } else {
        None
    }
}

/// The ending moves the turn on to the next link: the credential, the account or the provider
/// failed, not the request itself (`FailureKind::fails_over`).
pub fn moves_on(ending: &Ending) -> Option<LinkFailure> {
    match ending {
        Ending::Failed { error, kind } if kind.fails_over() => Some(LinkFailure {
            kind: *kind,
            message: error.to_string(),
        }),
        _ => None,
    }
}

/// The guardrails bound the whole run, not each link: what is left of `--max-turns` (at least
/// one round trip, so a fallback can answer) and of `--max-budget-usd` after `spent`.
pub fn remaining_limits(
    (max_turns, max_budget_usd): (Option<u32>, Option<f64>),
    spent: Option<&TurnReport>,
) -> (Option<u32>, Option<f64>) {
    let Some(spent) = spent else {
        return (max_turns, max_budget_usd);
    };
    (
        max_turns.map(|limit| limit.saturating_sub(spent.model_calls).max(1)),
        max_budget_usd.map(|budget| (budget - spent.cost_usd).max(0.0)),
    )
}

/// The links of a chain, as `commands/` resolves and runs them.
pub trait Links {
    /// Why an attempt could not be made at all (pincer's own problem, not the model's).
    type Error;

    /// The links, in order (at least one).
    fn links(&self) -> &[Link];

    /// Run link `position` to its end. `spent` is what the earlier links used (for
    /// [`remaining_limits`]).
    #[allow(
        async_fn_in_trait,
        reason = "the command layer's chain implements it and drives the turn on one thread: no Send bound is wanted"
    )]
    async fn attempt(
        &mut self,
        position: usize,
        spent: Option<&TurnReport>,
        sink: &mut dyn EventSink,
    ) -> Result<TurnReport, Self::Error>;
}

/// The turn across the chain.
#[derive(Debug)]
pub struct ChainOutcome {
    /// The attempts' reports added up; ending, text and context are the last attempt's.
    pub report: TurnReport,
    /// The position of the link that ran last.
    pub last: usize,
    /// One line per failed or passed-over link: `provider/model: message (kind)`.
    pub errors: Vec<String>,
    /// More than one model was tried and every one failed over: the chain ran out.
    pub exhausted: bool,
}

/// Follow the chain: each link passed over or tried in turn, a `Fallback` event and a stderr
/// warning before the next, until a link ends the turn or none is left.
pub async fn run<L: Links>(
    links: &mut L,
    sink: &mut dyn EventSink,
) -> Result<ChainOutcome, L::Error> {
    let count = links.links().len();
    let mut total: Option<TurnReport> = None;
    let mut errors = Vec::new();
    let mut last_failure = None;
    let mut failed_over = 0;
    let mut last = 0;
    for position in 0..count {
        last = position;
        let link = links.links()[position].clone();
        let failure = match pass_over(&link, position + 1 == count) {
            Some(skipped) => skipped,
            None => {
                let report = links.attempt(position, total.as_ref(), sink).await?;
                let failure = moves_on(&report.ending);
                match &mut total {
                    Some(total) => total.absorb(report),
                    None => total = Some(report),
                }
                match failure {
                    Some(failure) => failure,
                    None => break,
                }
            }
        };
        errors.push(format!(
            "{}: {} ({})",
            link.model_ref,
            failure.message,
            failure.kind.as_str()
        ));
        failed_over += 1;
        if let Some(next) = links.links().get(position + 1) {
            sink.emit(&Event::Fallback(Fallback {
                from: link.model_ref.clone(),
                to: next.model_ref.clone(),
                reason: failure.kind.as_str(),
                error: failure.message.clone(),
            }));
            // On stderr in every mode: a cron log should show why another model answered.
            sink.emit(&Event::Warning(format!(
                "{} failed ({}: {}); trying {}",
                link.model_ref,
                failure.kind.as_str(),
                failure.message,
                next.model_ref
            )));
        }
        last_failure = Some(failure);
    }
    // Every link was passed over: the last one's reason is the turn's failure.
    let report = total.unwrap_or_else(|| {
        let kind = last_failure.map_or(FailureKind::Auth, |failure| failure.kind);
        TurnReport::empty(Ending::Failed {
            error: ProviderError::Transport {
                provider: links.links()[last].provider.clone(),
                message: errors.last().cloned().unwrap_or_default(),
            },
            kind,
        })
    });
    Ok(ChainOutcome {
        report,
        last,
        exhausted: count > 1 && failed_over == count,
        errors,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversation::TokenUsage;

    fn link(name: &str, missing_key: bool, all_cooling: bool) -> Link {
        Link {
            model_ref: format!("{name}/m"),
            provider: name.to_owned(),
            missing_key,
            all_cooling,
        }
    }

    fn failed(kind: FailureKind) -> Ending {
        Ending::Failed {
            error: ProviderError::Transport {
                provider: "p".to_owned(),
                message: "boom".to_owned(),
            },
            kind,
        }
    }

    #[test]
    fn a_link_without_a_key_is_passed_over_and_a_cooling_one_unless_it_is_the_last() {
        let missing = pass_over(&link("a", true, false), false).unwrap();
        assert_eq!(missing.kind, FailureKind::Auth);
        assert_eq!(missing.message, "no credentials for provider 'a'");
        assert_eq!(
            pass_over(&link("a", true, false), true).unwrap().kind,
            FailureKind::Auth
        );
        let cooling = pass_over(&link("b", false, true), false).unwrap();
        assert_eq!(cooling.kind, FailureKind::RateLimit);
        assert!(
            cooling.message.contains("'b' is in cooldown"),
            "{cooling:?}"
        );
        assert_eq!(pass_over(&link("b", false, true), true), None);
        assert_eq!(pass_over(&link("c", false, false), false), None);
    }

    #[test]
    fn only_provider_side_failures_move_on() {
        for kind in [
            FailureKind::Auth,
            FailureKind::Billing,
            FailureKind::RateLimit,
            FailureKind::Overloaded,
            FailureKind::Timeout,
            FailureKind::ModelNotFound,
            FailureKind::SessionExpired,
        ] {
            assert_eq!(moves_on(&failed(kind)).unwrap().kind, kind);
        }
        for kind in [FailureKind::Format, FailureKind::ContextOverflow] {
            assert_eq!(moves_on(&failed(kind)), None, "{kind:?}");
        }
        assert_eq!(moves_on(&Ending::Completed), None);
        assert_eq!(moves_on(&Ending::MaxTurns), None);
    }

    #[test]
    fn guardrails_are_what_the_earlier_links_left() {
        assert_eq!(
            remaining_limits((Some(5), Some(1.0)), None),
            (Some(5), Some(1.0))
        );
        let mut spent = TurnReport::empty(Ending::Completed);
        spent.model_calls = 3;
        spent.cost_usd = 0.25;
        assert_eq!(
            remaining_limits((Some(5), Some(1.0)), Some(&spent)),
            (Some(2), Some(0.75))
        );
        spent.model_calls = 9;
        spent.cost_usd = 2.0;
        assert_eq!(
            remaining_limits((Some(5), Some(1.0)), Some(&spent)),
            (Some(1), Some(0.0))
        );
        assert_eq!(remaining_limits((None, None), Some(&spent)), (None, None));
    }

    /// Links whose attempts end as scripted, recording what they were given.
    struct Scripted {
        links: Vec<Link>,
        endings: Vec<Option<FailureKind>>,
        tried: Vec<(usize, Option<u32>)>,
    }

    impl Links for Scripted {
        type Error = std::convert::Infallible;

        fn links(&self) -> &[Link] {
            &self.links
        }

        async fn attempt(
            &mut self,
            position: usize,
            spent: Option<&TurnReport>,
            _sink: &mut dyn EventSink,
        ) -> Result<TurnReport, Self::Error> {
            self.tried
                .push((position, spent.map(|spent| spent.model_calls)));
            let ending = match self.endings[position] {
                Some(kind) => failed(kind),
                None => Ending::Completed,
            };
            let mut report = TurnReport::empty(ending);
            report.model_calls = 1;
            report.usage = TokenUsage {
                input: 10,
                ..TokenUsage::default()
            };
            report.final_text = format!("answer {position}");
            Ok(report)
        }
    }

    #[derive(Default)]
    struct Events(Vec<String>);

    impl EventSink for Events {
        fn emit(&mut self, event: &Event) {
            match event {
                Event::Fallback(fallback) => self.0.push(format!(
                    "fallback {} -> {} ({})",
                    fallback.from, fallback.to, fallback.reason
                )),
                Event::Warning(message) => self.0.push(format!("warning {message}")),
                _ => {}
            }
        }
    }

    fn chain(
        links: Vec<Link>,
        endings: Vec<Option<FailureKind>>,
    ) -> (ChainOutcome, Scripted, Events) {
        let mut scripted = Scripted {
            links,
            endings,
            tried: Vec::new(),
        };
        let mut events = Events::default();
        let outcome = block_on(run(&mut scripted, &mut events)).unwrap();
        (outcome, scripted, events)
    }

    /// The loop awaits nothing that needs a runtime's reactor.
    fn block_on<F: std::future::Future>(future: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(future)
    }

    #[test]
    fn the_chain_passes_over_tries_and_stops_at_the_first_answer() {
        let (outcome, scripted, events) = chain(
            vec![
                link("a", true, false),
                link("b", false, false),
                link("c", false, false),
                link("d", false, false),
            ],
            vec![None, Some(FailureKind::Overloaded), None, None],
        );
        assert_eq!(scripted.tried, [(1, None), (2, Some(1))]);
        assert_eq!(outcome.last, 2);
        assert!(!outcome.exhausted);
        assert_eq!(outcome.report.model_calls, 2);
        assert_eq!(outcome.report.usage.input, 20);
        assert_eq!(outcome.report.final_text, "answer 2");
        assert!(matches!(outcome.report.ending, Ending::Completed));
        assert_eq!(
            outcome.errors,
            [
                "a/m: no credentials for provider 'a' (auth)",
                "b/m: p: connection failed: boom (overloaded)"
            ]
        );
        assert_eq!(
            events.0,
            [
                "fallback a/m -> b/m (auth)",
                "warning a/m failed (auth: no credentials for provider 'a'); trying b/m",
                "fallback b/m -> c/m (overloaded)",
                "warning b/m failed (overloaded: p: connection failed: boom); trying c/m",
            ]
        );
    }

    #[test]
    fn a_failure_that_does_not_move_on_ends_the_chain_where_it_is() {
        let (outcome, scripted, events) = chain(
            vec![link("a", false, false), link("b", false, false)],
            vec![Some(FailureKind::Format), None],
        );
        assert_eq!(scripted.tried, [(0, None)]);
        assert_eq!(outcome.last, 0);
        assert!(outcome.errors.is_empty());
        assert!(events.0.is_empty());
        assert!(matches!(
            outcome.report.ending,
            Ending::Failed {
                kind: FailureKind::Format,
                ..
            }
        ));
    }

    #[test]
    fn a_chain_that_runs_out_is_exhausted_with_the_last_failure() {
        let (outcome, _, events) = chain(
            vec![link("a", false, false), link("b", false, false)],
            vec![Some(FailureKind::RateLimit), Some(FailureKind::Billing)],
        );
        assert!(outcome.exhausted);
        assert_eq!(outcome.last, 1);
        assert_eq!(outcome.errors.len(), 2);
        assert_eq!(
            events.0.len(),
            2,
            "no fallback after the last: {:?}",
            events.0
        );
        assert!(matches!(
            outcome.report.ending,
            Ending::Failed {
                kind: FailureKind::Billing,
                ..
            }
        ));
        // A single model that fails is not "the chain ran out".
        let (single, _, _) = chain(vec![link("a", false, false)], vec![Some(FailureKind::Auth)]);
        assert!(!single.exhausted);
    }

    #[test]
    fn a_chain_of_links_all_passed_over_fails_with_the_last_reason() {
        let (outcome, scripted, _) = chain(
            vec![link("a", false, true), link("b", true, false)],
            vec![None, None],
        );
        assert!(scripted.tried.is_empty());
        assert!(outcome.exhausted);
        match &outcome.report.ending {
            Ending::Failed { error, kind } => {
                assert_eq!(*kind, FailureKind::Auth);
                assert_eq!(
                    error.to_string(),
                    ProviderError::Transport {
                        provider: "b".to_owned(),
                        message: "b/m: no credentials for provider 'b' (auth)".to_owned(),
                    }
                    .to_string()
                );
            }
            other => panic!("{other:?}"),
        }
    }
}
