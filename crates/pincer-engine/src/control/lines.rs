//! The lines of the Claude Agent SDK's stream-json input and pincer's answers to its control
//! requests, as types (SPEC §16; the message types both ways are in the shared reference's
//! `agent-sdk/`).
//!
//! The SDK's lines are parsed as JSON first (a line that is not JSON is said on stderr) and then
//! read into these types from that value, as leniently as claude reads them: a field of an
//! unexpected shape is taken as absent ([`Lenient`]) rather than failing the line, and a line of
//! a type pincer does not know is [`InputLine::Other`].

use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

use crate::lenient::Lenient;

/// A line the SDK writes on pincer's stdin, by its `type`.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum InputLine {
    /// A prompt: `{"type":"user","message":{"role":"user","content":…}}`.
    User {
        #[serde(default)]
        message: Lenient<UserMessage>,
    },
    /// `{"type":"control_request","request_id","request":{"subtype",…}}`.
    ControlRequest {
        #[serde(default)]
        request_id: Value,
        #[serde(default)]
        request: Value,
    },
    /// The SDK's answer to one of pincer's requests (`crate::control::Channel::resolve` reads it).
    ControlResponse,
    /// Any other line (claude ignores them too).
    #[serde(other)]
    Other,
}

impl InputLine {
    /// The line `value` is; a line with no `type` is [`InputLine::Other`].
    pub fn of(value: &Value) -> InputLine {
        InputLine::deserialize(value).unwrap_or(InputLine::Other)
    }
}

/// A `user` line's `message`.
#[derive(Debug, Deserialize)]
pub struct UserMessage {
    #[serde(default)]
    pub content: Lenient<UserContent>,
}

/// Its `content`: a string (the Python SDK's `query`) or a list of blocks (the TypeScript SDK,
/// and a streamed message).
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum UserContent {
    Text(String),
    Blocks(Vec<Lenient<InputBlock>>),
}

/// A block of a `user` line's content.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum InputBlock {
    Text {
        #[serde(default)]
        text: Lenient<String>,
    },
    Image {
        #[serde(default)]
        source: Lenient<ImageSource>,
    },
    #[serde(other)]
    Other,
}

/// An image block's `source`: pincer takes `{"type":"base64","media_type","data"}`.
#[derive(Debug, Deserialize)]
pub struct ImageSource {
    #[serde(default, rename = "type")]
    pub kind: Lenient<String>,
    #[serde(default)]
    pub media_type: Lenient<String>,
    #[serde(default)]
    pub data: Lenient<String>,
}

/// A control request's `request`, by its `subtype`: the ones pincer answers with success.
#[derive(Debug, Deserialize)]
#[serde(tag = "subtype", rename_all = "snake_case")]
pub enum ControlRequest {
    Initialize(Box<InitializeRequest>),
    Interrupt,
    SetModel {
        /// None (or null): back to the command line's model.
        #[serde(default)]
        model: Lenient<String>,
    },
    SetPermissionMode {
        #[serde(default)]
        mode: Lenient<String>,
    },
}

/// An `initialize` request: the SDK's callbacks and servers, and the turn options the
/// TypeScript SDK sends here rather than on the command line.
#[derive(Debug, Deserialize)]
pub struct InitializeRequest {
    /// `{EVENT: [{matcher, hookCallbackIds, timeout?}]}`, in the SDK's order.
    #[serde(default)]
    pub hooks: Lenient<serde_json::Map<String, Value>>,
    /// The in-process MCP servers, by name (the TypeScript SDK's way).
    #[serde(default, rename = "sdkMcpServers")]
    pub sdk_mcp_servers: Lenient<Vec<Lenient<String>>>,
    /// The system prompt replacing pincer's (the TypeScript SDK's way; the Python SDK
    /// passes `--system-prompt`): a list of blocks, `[""]` when none was given.
    #[serde(default, rename = "systemPrompt")]
    pub system_prompt: Lenient<PromptText>,
    /// Text appended to the system prompt (the TypeScript SDK's `preset` with `append`).
    #[serde(default, rename = "appendSystemPrompt")]
    pub append_system_prompt: Lenient<String>,
    /// The SDK's `mcpServers` (`{name: config}`, claude's `--mcp-config` entries), sent here
    /// by the TypeScript SDK with `--await-initialize` to keep their keys off the argv.
    #[serde(default, rename = "mcpServers")]
    pub mcp_servers: Lenient<serde_json::Map<String, Value>>,
    /// Tool patterns to deny (the TypeScript SDK's `disallowedToolsDelivery: "initialize"`).
    #[serde(default, rename = "disallowedTools")]
    pub disallowed_tools: Lenient<Vec<Lenient<String>>>,
}

/// `initialize`'s `systemPrompt`: the blocks of a list (the SDK's), or one string.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum PromptText {
    Text(String),
    Blocks(Vec<Lenient<String>>),
}

impl PromptText {
    /// The marker the TypeScript SDK lets a prompt carry between its cacheable prefix and the
    /// rest; it is not text for the model.
    const BOUNDARY: &str = "__SYSTEM_PROMPT_DYNAMIC_BOUNDARY__";

    /// The prompt as one text: its blocks (the boundary marker left out) joined by a blank line.
    pub fn joined(self) -> String {
        let blocks = match self {
            PromptText::Text(text) => vec![text],
            PromptText::Blocks(blocks) => blocks.into_iter().filter_map(|block| block.0).collect(),
        };
        blocks
            .into_iter()
            .filter(|block| block.trim() != Self::BOUNDARY)
            .collect::<Vec<_>>()
            .join("\n\n")
    }
}

/// A control request of any subtype, for the one pincer does not answer with success.
#[derive(Debug, Default, Deserialize)]
pub struct AnySubtype {
    #[serde(default)]
    pub subtype: Lenient<String>,
}

/// A control request pincer does not handle, by the subtype it names (empty when none).
#[derive(Debug)]
pub struct Unsupported(pub String);

impl std::fmt::Display for Unsupported {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "Unsupported control request subtype: {}", self.0)
    }
}

impl ControlRequest {
    /// The request `value` is, or the subtype it names that pincer does not handle.
    pub fn of(value: &Value) -> Result<ControlRequest, Unsupported> {
        ControlRequest::deserialize(value).map_err(|_| {
            Unsupported(
                AnySubtype::deserialize(value)
                    .unwrap_or_default()
                    .subtype
                    .0
                    .unwrap_or_default(),
            )
        })
    }
}

/// One group of an `initialize` request's `hooks`: the callbacks to run for a matcher.
#[derive(Debug, Default, Deserialize)]
pub struct HookGroup {
    #[serde(default)]
    pub matcher: Lenient<String>,
    /// Seconds.
    #[serde(default)]
    pub timeout: Lenient<f64>,
    #[serde(default, rename = "hookCallbackIds")]
    pub callback_ids: Lenient<Vec<Lenient<String>>>,
}

/// pincer's answer to a control request: `{"type":"control_response","response":…}`.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename = "control_response")]
pub struct ControlResponseLine<'a> {
    pub response: ResponseBody<'a>,
}

/// The `response` of a [`ControlResponseLine`], by its `subtype`.
#[derive(Debug, Serialize)]
#[serde(tag = "subtype", rename_all = "snake_case")]
pub enum ResponseBody<'a> {
    Success {
        request_id: &'a Value,
        #[serde(skip_serializing_if = "Option::is_none")]
        response: Option<Answered>,
    },
    Error {
        request_id: &'a Value,
        error: String,
    },
}

/// What a successful answer carries.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Answered {
    Initialize(Box<Initialized>),
    /// `set_permission_mode`: the mode now in force.
    Mode {
        mode: String,
    },
}

/// The answer to `initialize`, in claude's shape: pincer has no slash commands, agents, output
/// styles or account of its own to list, and says what of the protocol it does.
#[derive(Debug, Serialize)]
pub struct Initialized {
    pub commands: [String; 0],
    pub agents: [String; 0],
    pub output_style: &'static str,
    pub available_output_styles: [&'static str; 1],
    pub models: [String; 0],
    pub account: Account,
    pub pid: u32,
    pub capabilities: &'static [&'static str],
    pub pincer_version: &'static str,
    /// True when the request's `mcpServers` were taken for the session's turns (the TypeScript
    /// SDK ends the session without it); absent when it named none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mcp_servers_applied: Option<bool>,
    /// Likewise for `disallowedTools`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disallowed_tools_applied: Option<bool>,
}

/// No account: pincer's credentials are its own and never said.
#[derive(Debug, Serialize)]
pub struct Account {}

/// An `--mcp-config` document naming the in-process servers `names`:
/// `{"mcpServers":{N:{"type":"sdk","name":N}}}`, in that order.
#[derive(Debug, Serialize)]
pub struct SdkMcpConfig<'a> {
    #[serde(rename = "mcpServers", serialize_with = "sdk_servers")]
    pub servers: &'a [String],
}

#[derive(Serialize)]
#[serde(tag = "type", rename = "sdk")]
struct SdkServer<'a> {
    name: &'a str,
}

fn sdk_servers<S: Serializer>(names: &&[String], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_map(names.iter().map(|name| (name, SdkServer { name })))
}
