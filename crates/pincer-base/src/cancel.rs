//! Cancellation of a run: SIGINT, SIGTERM and `--timeout` cancel one token that every long wait
//! watches; the first reason to fire is the one reported. A base module: the engines, the child
//! supervisor (`backend::child`) and `commands/` all watch the same token; the exit code a reason
//! ends a run with is the command layer's (`error::Exit::from`).

use std::sync::{Arc, OnceLock};

use tokio_util::sync::CancellationToken;

/// Why the run was cancelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CancelReason {
    /// SIGINT.
    Interrupt,
    /// SIGTERM.
    Terminate,
    /// `--timeout` reached.
    Timeout,
    /// The client asked (an agent SDK's `interrupt` control request): no signal was sent. It
    /// ends the turn as SIGINT would, with the same exit code.
    Requested,
}

impl CancelReason {
    /// What ended the run, as the result object and the aborted message say it.
    pub fn message(self) -> &'static str {
        match self {
            CancelReason::Interrupt => "interrupted by SIGINT",
            CancelReason::Terminate => "terminated by SIGTERM",
            CancelReason::Timeout => "the run's --timeout was reached",
            CancelReason::Requested => "interrupted by the client's interrupt request",
        }
    }
}

/// A cancellation token plus the reason it fired, set once by whoever cancels first.
#[derive(Debug, Clone, Default)]
pub struct Cancellation {
    /// The token every await watches.
    pub token: CancellationToken,
    reason: Arc<OnceLock<CancelReason>>,
}

impl Cancellation {
    /// A fresh, uncancelled state.
    pub fn new() -> Cancellation {
        Cancellation::default()
    }

    /// Cancel for `reason` (the first reason wins).
    pub fn cancel(&self, reason: CancelReason) {
        let _ = self.reason.set(reason);
        self.token.cancel();
    }

    /// Why it was cancelled, if it was.
    pub fn reason(&self) -> Option<CancelReason> {
        self.reason.get().copied()
    }
}
