//! An agent SDK's hook callback (SPEC §16): the hook's input goes to the SDK as a
//! `hook_callback` control request, and its answer is the output JSON a command hook would have
//! printed, so [`super::protocol::interpret`] reads both alike. An error answer, no answer in
//! time or a closed channel is a warning, as a failing command hook's is.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::runner::{Ending, Run};
use crate::control::{self, Answer};

/// Ask the SDK's callback `id` about `input` (the hook input JSON).
pub(super) async fn run(
    id: String,
    input: Value,
    timeout: Duration,
    cancel: CancellationToken,
) -> Run {
    let started = Instant::now();
    let run = |ending: Ending, stdout: String, stderr: String| Run {
        ending,
        stdout,
        stderr,
        duration: started.elapsed(),
    };
    let Some(channel) = control::current() else {
        return run(
            Ending::NotStarted("no agent SDK drives this run".to_owned()),
            String::new(),
            String::new(),
        );
    };
    let tool_use_id = input.get("tool_use_id").cloned().unwrap_or(Value::Null);
    let request = json!({
        "subtype": "hook_callback",
        "callback_id": id,
        "input": input,
        "tool_use_id": tool_use_id,
    });
    match channel.request(request, timeout, &cancel).await {
        Answer::Success(output) => {
            let output = if output.is_null() { json!({}) } else { output };
            run(Ending::Exited(0), output.to_string(), String::new())
        }
        Answer::Error(message) => run(Ending::Exited(1), String::new(), message),
        Answer::TimedOut => run(Ending::TimedOut(timeout), String::new(), String::new()),
        Answer::Cancelled => run(Ending::Cancelled, String::new(), String::new()),
        Answer::Closed => run(
            Ending::NotStarted("the SDK closed its input".to_owned()),
            String::new(),
            String::new(),
        ),
    }
}
