//! Firing hooks from a turn (SPEC §14): the one place where what [`crate::hooks`] reports becomes
//! events — each hook's start and finish, its non-blocking errors as warnings, its
//! `systemMessage`s as notices — for both the engines and `commands/` (SessionStart,
//! UserPromptSubmit and SessionEnd fire around the turn).

use tokio_util::sync::CancellationToken;

use super::event::{Event, EventSink};
use crate::hooks::{Fire, Hooks, Verdict};

/// Run the hooks `fire` matches and report them to `sink`.
pub async fn fire(
    hooks: &Hooks,
    fire: &Fire<'_>,
    cancel: &CancellationToken,
    sink: &mut dyn EventSink,
) -> Verdict {
    if !hooks.has(fire.event()) {
        return Verdict::default();
    }
    let verdict = hooks
        .run(fire, cancel, &mut |progress| {
            sink.emit(&Event::Hook(progress.clone()));
        })
        .await;
    for warning in &verdict.warnings {
        sink.emit(&Event::Warning(warning.clone()));
    }
    for message in &verdict.messages {
        sink.emit(&Event::Notice(message.clone()));
    }
    verdict
}
