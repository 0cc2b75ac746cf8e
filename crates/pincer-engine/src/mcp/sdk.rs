//! An agent SDK's in-process MCP server (`{"type": "sdk", "name": N}`, the Claude Agent SDK's
//! `create_sdk_mcp_server`, SPEC §16): the transport is the control channel
//! ([`crate::control`]). Each JSON-RPC message goes to the SDK as an `mcp_message` request and
//! the answer's `mcp_response` is the server's reply; a notification's answer is only an ack.
//!
//! rmcp's client runs the protocol over this [`Transport`] as over any other. A request's answer
//! is awaited on a task of its own, so a slow tool does not hold up the next message; every wait
//! is bounded by the caller (the startup timeout, the tool timeout) and ends with the transport.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::service::RoleClient;
use rmcp::transport::Transport;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::control::{Answer, Channel};

/// The longest pincer waits for one answer; the caller's own timeouts are shorter.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(3600);

/// JSON-RPC's code for an error inside the server.
const INTERNAL_ERROR: i64 = -32603;

/// Why the transport failed.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(super) struct SdkError(String);

/// The SDK's server `server`, reached over the control channel.
pub(super) struct SdkServer {
    server: String,
    channel: Arc<Channel>,
    replies: mpsc::UnboundedSender<ServerJsonRpcMessage>,
    incoming: mpsc::UnboundedReceiver<ServerJsonRpcMessage>,
    closed: CancellationToken,
}

/// An SDK server was configured, and no agent SDK drives this run.
#[derive(Debug, thiserror::Error)]
#[error("it is an agent SDK's in-process server (\"type\": \"sdk\"), and no SDK drives this run")]
pub(super) struct NoSdk;

impl SdkServer {
    /// The server the SDK calls `server`, over `channel`: the SDK's, when one drives this run.
    pub(super) fn open(server: &str, channel: Option<Arc<Channel>>) -> Result<SdkServer, NoSdk> {
        let channel = channel.ok_or(NoSdk)?;
        let (replies, incoming) = mpsc::unbounded_channel();
        Ok(SdkServer {
            server: server.to_owned(),
            channel,
            replies,
            incoming,
            closed: CancellationToken::new(),
        })
    }
}

/// The reply to the request `id` (a request's JSON-RPC id) from the SDK's `answer`: its
/// `mcp_response`, or a JSON-RPC error that says why there is none.
fn reply(id: &Value, server: &str, answer: Answer) -> Option<Value> {
    let error = |message: String| json!({"jsonrpc": "2.0", "id": id, "error": {"code": INTERNAL_ERROR, "message": message}});
    Some(match answer {
        Answer::Success(response) => match response.get("mcp_response") {
            Some(reply) if reply.get("result").is_some() || reply.get("error").is_some() => {
                reply.clone()
            }
            _ => error(format!(
                "the SDK's server '{server}' answered without an mcp_response"
            )),
        },
        Answer::Error(message) => error(format!("the SDK's server '{server}' failed: {message}")),
        Answer::TimedOut => error(format!(
            "the SDK's server '{server}' did not answer within {} s",
            ANSWER_TIMEOUT.as_secs()
        )),
        Answer::Closed => error("the SDK closed its input".to_owned()),
        Answer::Cancelled => return None,
    })
}

impl Transport<RoleClient> for SdkServer {
    type Error = SdkError;

    fn name() -> Cow<'static, str> {
        "sdk".into()
    }

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), SdkError>> + Send + 'static {
        let channel = Arc::clone(&self.channel);
        let replies = self.replies.clone();
        let closed = self.closed.clone();
        let server = self.server.clone();
        async move {
            let message =
                serde_json::to_value(&item).map_err(|error| SdkError(error.to_string()))?;
            // Only a request gets a reply; a notification's answer is an ack.
            let id = message.get("method").and(message.get("id")).cloned();
            let request =
                json!({"subtype": "mcp_message", "server_name": server, "message": message});
            tokio::spawn(async move {
                let answer = channel.request(request, ANSWER_TIMEOUT, &closed).await;
                let Some(id) = id else {
                    return;
                };
                let Some(reply) = reply(&id, &server, answer) else {
                    return;
                };
                let parsed = serde_json::from_value::<ServerJsonRpcMessage>(reply).or_else(|error| {
                    let message = format!("the SDK's server '{server}' sent a reply that is not JSON-RPC ({error})");
                    serde_json::from_value(json!({"jsonrpc": "2.0", "id": id, "error": {"code": INTERNAL_ERROR, "message": message}}))
                });
                if let Ok(parsed) = parsed {
                    let _ = replies.send(parsed);
                }
            });
            Ok(())
        }
    }

    fn receive(&mut self) -> impl Future<Output = Option<ServerJsonRpcMessage>> + Send {
        self.incoming.recv()
    }

    async fn close(&mut self) -> Result<(), SdkError> {
        self.closed.cancel();
        self.incoming.close();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn the_reply_is_the_mcp_response_or_an_error_for_the_same_id() {
        let ok = json!({"mcp_response": {"jsonrpc": "2.0", "id": 2, "result": {"tools": []}}});
        assert_eq!(
            reply(&json!(2), "kv", Answer::Success(ok)),
            Some(json!({"jsonrpc": "2.0", "id": 2, "result": {"tools": []}}))
        );
        let failed = reply(&json!(3), "kv", Answer::Error("boom".to_owned())).unwrap();
        assert_eq!(failed["id"], 3);
        assert!(
            failed["error"]["message"]
                .as_str()
                .unwrap()
                .contains("boom")
        );
        let empty = reply(&json!(4), "kv", Answer::Success(Value::Null)).unwrap();
        assert_eq!(empty["error"]["code"], INTERNAL_ERROR);
        assert_eq!(reply(&json!(5), "kv", Answer::Cancelled), None);
    }
}
