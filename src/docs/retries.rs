//! `docs/reference/retries.md`: the one table of exit code → retry or fail that the fleet recipes
//! (GitHub Actions, a Kubernetes Job's `podFailurePolicy`, an Argo `retryStrategy`, a Temporal
//! activity; `docs/sessions-across-machines.md`) share, rendered from the exit codes of
//! `error.rs` and the `error.kind` values that end with each.
//!
//! An engine that runs pincer as a step sees the exit code first, often only it. What it should
//! do with each code is decided here, once, by an exhaustive match: a new [`Exit`] cannot be
//! added without deciding it. The kinds under each code come from [`ErrorKind::exit`] and the
//! class's own [`Exit::kind`]; a kind whose `retryable` disagrees with its code's decision is
//! marked in the table (a caller that reads the result object can be finer than the code), and a
//! unit test holds those disagreements to the list the page explains. The recipes' tests
//! (`tests/suite/recipes.rs`) check each recipe's code lists against [`retried`] and [`failed`].

use super::{EXIT_CODES, PANIC_EXIT};
use crate::error::{ErrorKind, Exit};

/// Where the page goes, relative to the repository.
pub(crate) const PATH: &str = "docs/reference/retries.md";

/// What a fleet engine does with a step that exited with a code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// The step succeeded.
    Done,
    /// Run the step again (with a back-off): the same command may succeed later.
    Retry,
    /// Fail the step: running it again unchanged fails the same way, or a person stopped it.
    Fail,
}

/// The decision for `exit`, and why.
pub fn decision(exit: Exit) -> (Step, &'static str) {
    match exit {
        Exit::Success => (Step::Done, "the turn is committed"),
        Exit::RunFailed => (
            Step::Fail,
            "a model, tool, hook, MCP or persistence error, or a store that refused: the same step fails again",
        ),
        Exit::Usage => (
            Step::Fail,
            "a bad flag, prompt, config or session argument: fix the step",
        ),
        Exit::Auth => (
            Step::Fail,
            "no usable credentials: fix the secret or the role",
        ),
        Exit::Unavailable => (
            Step::Retry,
            "the provider is rate limited, overloaded or unreachable: retry with a back-off",
        ),
        Exit::Guardrail => (
            Step::Fail,
            "--max-turns, --max-budget-usd or a [budget] stopped the turn on purpose",
        ),
        Exit::ContextOverflow => (
            Step::Fail,
            "the context does not fit even after compaction: compact or fork the session",
        ),
        Exit::Busy => (
            Step::Retry,
            "another runner holds the session, the store is unreachable, or this runner lost its lease: nothing was committed by this step",
        ),
        Exit::Timeout => (
            Step::Retry,
            "--timeout ended the turn; what it did is recorded as aborted and the next try resumes after it",
        ),
        Exit::Interrupted => (Step::Fail, "SIGINT: a person stopped the run"),
        Exit::Terminated => (
            Step::Retry,
            "SIGTERM: the platform stopped the step (eviction, preemption, a drained node); the turn is recorded as aborted and resumable",
        ),
    }
}

/// The decision for the code a panic exits with (101): a bug, which a retry only repeats.
const PANIC_DECISION: (Step, &str) = (
    Step::Fail,
    "pincer hit a bug; report it (the session stays loadable)",
);

/// Every non-zero exit code with its decision and why, in numeric order, a panic's included.
pub fn rows() -> Vec<(u8, Step, &'static str)> {
    let mut rows: Vec<(u8, Step, &str)> = EXIT_CODES
        .iter()
        .filter(|&&exit| exit != Exit::Success)
        .map(|&exit| {
            let (step, why) = decision(exit);
            (exit.code(), step, why)
        })
        .chain([(PANIC_EXIT.0, PANIC_DECISION.0, PANIC_DECISION.1)])
        .collect();
    rows.sort_unstable_by_key(|&(code, _, _)| code);
    rows
}

/// The exit codes a fleet engine retries, in numeric order.
pub fn retried() -> Vec<u8> {
    codes(Step::Retry)
}

/// The exit codes a fleet engine fails the step on, in numeric order.
pub fn failed() -> Vec<u8> {
    codes(Step::Fail)
}

fn codes(wanted: Step) -> Vec<u8> {
    rows()
        .into_iter()
        .filter(|&(_, step, _)| step == wanted)
        .map(|(code, _, _)| code)
        .collect()
}

/// The `error.kind` values a run that exits with `exit` reports.
pub fn kinds(exit: Exit) -> Vec<ErrorKind> {
    let mut kinds: Vec<ErrorKind> = ErrorKind::ALL
        .into_iter()
        .filter(|kind| kind.exit() == exit)
        .collect();
    let class = exit.kind();
    if exit != Exit::Success && !kinds.contains(&class) {
        kinds.push(class);
    }
    kinds
}

/// Whether the kind's own `retryable` disagrees with its exit code's decision.
fn disagrees(kind: ErrorKind, step: Step) -> bool {
    match step {
        Step::Retry => !kind.retryable(),
        Step::Fail => kind.retryable(),
        Step::Done => false,
    }
}

/// The prose before the table.
const INTRODUCTION: &str = "\
<!-- Generated by `cargo run -q --example generate-docs` from src/docs/retries.rs; do not edit. -->

# Exit codes: retry or fail

What an engine that runs pincer as a step (a CI job, a Kubernetes Job, an Argo workflow, a
Temporal activity) should do with each exit code. The recipes of
[Sessions across machines](../sessions-across-machines.md) use exactly these lists, and a test
holds them to this table.

- **Retry** (with a back-off): ";

/// The prose after the lists, before the table.
const TABLE_INTRODUCTION: &str = concat!(
    "\n",
    "Under each code, the `error.kind` values of the [result object](json-output.md) that end with\n",
    "it. A kind marked *(retryable)* or *(not retryable)* is one whose `error.retryable` differs from\n",
    "its code's decision: an engine that reads the result object (`--json`) can follow\n",
    "`error.retryable` instead of the code. Exit 0 is success; any code not listed (137, a container\n",
    "killed for its memory) is the platform's, not pincer's.\n",
    "\n",
);

/// The page.
pub(crate) fn render() -> String {
    let list = |codes: Vec<u8>| {
        codes
            .iter()
            .map(|code| format!("`{code}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut text = String::from(INTRODUCTION);
    text.push_str(&list(retried()));
    text.push_str("\n- **Fail**: ");
    text.push_str(&list(failed()));
    text.push('\n');
    text.push_str(TABLE_INTRODUCTION);
    text.push_str("| code | step | why | `error.kind` |\n|---|---|---|---|\n");
    for (code, step, why) in rows() {
        let kinds = EXIT_CODES
            .iter()
            .find(|exit| exit.code() == code)
            .map(|&exit| kinds(exit))
            .unwrap_or_default();
        let kinds = kinds
            .iter()
            .map(|&kind| {
                let mark = match (disagrees(kind, step), kind.retryable()) {
                    (false, _) => "",
                    (true, true) => " *(retryable)*",
                    (true, false) => " *(not retryable)*",
                };
                format!("`{kind}`{mark}")
            })
            .collect::<Vec<_>>()
            .join(", ");
        let step = match step {
            Step::Retry => "retry",
            Step::Fail => "fail",
            Step::Done => "done",
        };
        text.push_str(&format!(
            "| {code} | {step} | {} | {} |\n",
            super::cell(why),
            if kinds.is_empty() { "-" } else { &kinds }
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_retries_and_fails_the_codes_the_issue_and_spec_name() {
        // Issue #49: retry 4/75/124/143, fail on 2/3/5/6/101; 1 and 130 are failed too (a
        // model or tool error, a person's SIGINT).
        assert_eq!(retried(), [4, 75, 124, 143]);
        assert_eq!(failed(), [1, 2, 3, 5, 6, 101, 130]);
    }

    #[test]
    fn the_kinds_whose_retryable_differs_from_their_codes_decision_are_the_documented_ones() {
        let mut found = Vec::new();
        for exit in EXIT_CODES {
            let (step, _) = decision(exit);
            for kind in kinds(exit) {
                if disagrees(kind, step) {
                    found.push((exit.code(), kind.as_str()));
                }
            }
        }
        // 1: `compact`'s empty summary may succeed when run again, but a turn's exit 1 does
        // not. 4: out of credits also exits 4 and is not retryable, which the code alone
        // cannot tell. 143: SIGTERM reports `interrupted`, not retryable for a person's
        // SIGINT, but in a fleet it is the platform stopping the step.
        assert_eq!(
            found,
            [(1, "empty_summary"), (4, "billing"), (143, "interrupted")]
        );
    }

    #[test]
    fn every_store_kind_is_under_a_retried_code_or_a_failed_one_as_its_retryable_says() {
        for kind in [
            ErrorKind::StoreUnavailable,
            ErrorKind::StoreRefused,
            ErrorKind::Fenced,
            ErrorKind::SessionBusy,
        ] {
            let (step, _) = decision(kind.exit());
            assert!(!disagrees(kind, step), "{kind}");
        }
    }
}
