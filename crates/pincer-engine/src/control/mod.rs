//! The requests pincer sends to the program driving it over stdin/stdout (the Claude Agent SDK's
//! control protocol, SPEC §16): a `control_request` line with a fresh `request_id`, answered
//! later by a `control_response` line that the front-end's stdin reader hands to
//! [`Channel::resolve`]. The SDK's hook callbacks, its permission prompt (`can_use_tool`) and
//! its in-process MCP servers (`mcp_message`) go through here. The front-end that reads the SDK's
//! stdin makes one [`Sdk`] for the process and hands it down with each turn (the hooks' and the
//! MCP servers' contexts carry it); a run that no SDK drives has none.

pub mod lines;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

/// Writes one line to the driving program.
pub type Send = Box<dyn Fn(&Value) + std::marker::Send + Sync>;

/// What became of a request.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// `subtype: success`, with its `response` (null when there is none).
    Success(Value),
    /// `subtype: error`, with its text.
    Error(String),
    /// No answer within the time allowed.
    TimedOut,
    /// The run was cancelled while waiting.
    Cancelled,
    /// The driving program closed stdin: no answer can come.
    Closed,
}

/// The channel of this process.
pub struct Channel {
    send: Send,
    next: AtomicU64,
    /// The requests waiting for an answer; `None` once stdin closed. One lock for both, so that
    /// no request can be added after `close` drained them and then wait its whole timeout.
    pending: Mutex<Option<HashMap<String, oneshot::Sender<Answer>>>>,
}

/// An agent SDK's side of the runs it drives: the channel pincer's requests go out on, and the
/// permission rules the SDK added with its `can_use_tool` answers (`updatedPermissions`), which
/// hold for the rest of its session, as claude's session rules do. Made once by the front-end
/// and passed down with every turn, never reached through a static (issue #48).
#[derive(Clone)]
pub struct Sdk {
    /// The control channel.
    pub channel: Arc<Channel>,
    /// The rules added so far.
    pub rules: Arc<Mutex<PermissionRules>>,
}

impl Sdk {
    /// A channel writing with `send`, and no rules yet.
    pub fn open(send: Send) -> Sdk {
        Sdk {
            channel: Arc::new(Channel {
                send,
                next: AtomicU64::new(1),
                pending: Mutex::new(Some(HashMap::new())),
            }),
            rules: Arc::default(),
        }
    }
}

impl std::fmt::Debug for Sdk {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.debug_struct("Sdk").finish_non_exhaustive()
    }
}

/// The permission rules an SDK added, in pincer's rule syntax (`Bash(npm test)`).
#[derive(Debug, Default)]
pub struct PermissionRules {
    /// Calls that run without asking.
    pub allow: Vec<String>,
    /// Calls refused without asking; a deny rule wins.
    pub deny: Vec<String>,
}

impl Channel {
    /// Send `request` (the `request` object: `subtype` and its fields) and wait for the answer,
    /// at most `timeout`, giving up when `cancel` fires.
    pub async fn request(
        &self,
        request: Value,
        timeout: Duration,
        cancel: &CancellationToken,
    ) -> Answer {
        let id = format!("pincer-{}", self.next.fetch_add(1, Ordering::Relaxed));
        let (sender, receiver) = oneshot::channel();
        match self
            .pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_mut()
        {
            Some(pending) => pending.insert(id.clone(), sender),
            None => return Answer::Closed,
        };
        (self.send)(&json!({"type": "control_request", "request_id": id, "request": request}));
        let answer = tokio::select! {
            answer = receiver => answer.unwrap_or(Answer::Closed),
            () = tokio::time::sleep(timeout) => Answer::TimedOut,
            () = cancel.cancelled() => Answer::Cancelled,
        };
        if let Some(pending) = self
            .pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_mut()
        {
            pending.remove(&id);
        }
        answer
    }

    /// Hand a `control_response` line to the request it answers. Whether it answered one.
    pub fn resolve(&self, line: &Value) -> bool {
        let response = &line["response"];
        let Some(id) = response.get("request_id").and_then(Value::as_str) else {
            return false;
        };
        let Some(sender) = self
            .pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_mut()
            .and_then(|pending| pending.remove(id))
        else {
            return false;
        };
        let answer = match response.get("subtype").and_then(Value::as_str) {
            Some("success") => {
                Answer::Success(response.get("response").cloned().unwrap_or(Value::Null))
            }
            _ => Answer::Error(
                response
                    .get("error")
                    .and_then(Value::as_str)
                    .unwrap_or("the request failed")
                    .to_owned(),
            ),
        };
        sender.send(answer).is_ok()
    }

    /// stdin closed: every waiting request, and every later one, gets [`Answer::Closed`].
    pub fn close(&self) {
        let waiting = self
            .pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        for (_, sender) in waiting.into_iter().flatten() {
            let _ = sender.send(Answer::Closed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn channel() -> (Arc<Channel>, Arc<Mutex<Vec<Value>>>) {
        let sent = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&sent);
        let channel = Arc::new(Channel {
            send: Box::new(move |line| log.lock().unwrap().push(line.clone())),
            next: AtomicU64::new(1),
            pending: Mutex::new(Some(HashMap::new())),
        });
        (channel, sent)
    }

    #[tokio::test]
    async fn a_request_gets_the_answer_with_its_id_and_not_another() {
        let (channel, sent) = channel();
        let waiting = {
            let channel = Arc::clone(&channel);
            tokio::spawn(async move {
                channel
                    .request(
                        json!({"subtype": "hook_callback"}),
                        Duration::from_secs(5),
                        &CancellationToken::new(),
                    )
                    .await
            })
        };
        while sent.lock().unwrap().is_empty() {
            tokio::task::yield_now().await;
        }
        let id = sent.lock().unwrap()[0]["request_id"].clone();
        assert!(
            !channel.resolve(&json!({"response": {"request_id": "other", "subtype": "success"}}))
        );
        assert!(
            channel.resolve(&json!({"type": "control_response", "response": {
                "request_id": id, "subtype": "success", "response": {"continue": true}
            }}))
        );
        assert_eq!(
            waiting.await.unwrap(),
            Answer::Success(json!({"continue": true}))
        );
    }

    #[tokio::test]
    async fn no_answer_times_out_and_a_closed_channel_answers_at_once() {
        let (channel, _) = channel();
        let cancel = CancellationToken::new();
        let answer = channel
            .request(json!({}), Duration::from_millis(20), &cancel)
            .await;
        assert_eq!(answer, Answer::TimedOut);
        channel.close();
        let answer = channel
            .request(json!({}), Duration::from_secs(5), &cancel)
            .await;
        assert_eq!(answer, Answer::Closed);
    }
}
