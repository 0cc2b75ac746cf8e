//! The four wire protocols as rows of one table, for tests that run the same scenario against
//! each of them: how pincer is pointed at a mock (`-m` value, key and base-URL variables), the
//! byte-exact streams and error bodies the mock plays, and how to read a request body back.
//!
//! This is the only per-protocol table of the suite: a test that needs something new of every
//! protocol adds a field here rather than a `match protocol.name` of its own. Point a command at
//! a row with [`crate::common::Pincer::provider`].

use serde_json::{Value, json};

use super::mock::Reply;
use super::wire;

/// The dummy key [`crate::common::Pincer::provider`] puts in a protocol's key variable:
/// distinctive enough that finding it in any output is a leak.
pub const KEY: &str = "test-key-PINCER-SECRET-7f3e";

/// One wire protocol.
#[derive(Clone, Copy)]
pub struct Protocol {
    /// A short name for assertion messages.
    pub name: &'static str,
    /// Its directory under `tests/fixtures/` (recorded streams, request expectations).
    pub fixtures: &'static str,
    /// `-m` value.
    pub model: &'static str,
    /// The variable that carries the API key.
    pub key_var: &'static str,
    /// The variable that carries the base URL.
    pub base_url_var: &'static str,
    /// What the base URL adds to the mock's `http://127.0.0.1:PORT` (`/v1`, `/v1beta`).
    pub base_path: &'static str,
    /// The request header that must carry `key`, and its value.
    pub key_header: fn(key: &str) -> (&'static str, String),
    /// A complete text answer streamed in `chunks`.
    pub text: fn(chunks: &[&str]) -> Vec<u8>,
    /// The usage pincer must store for [`Protocol::text`], normalized as
    /// `[input, output, cache_read, cache_write]`.
    pub text_usage: [u64; 4],
    /// A text answer whose prompt was mostly served from the cache, and its normalized usage.
    pub cached_text: fn(text: &str) -> (Vec<u8>, [u64; 4]),
    /// One tool call `(id, tool, JSON arguments)`, with no text before it.
    pub tool_call: fn(id: &str, tool: &str, arguments: &Value) -> Vec<u8>,
    /// Reasoning (`thinking`), then a text answer (`text`), as the provider streams both.
    pub thinking: fn(thinking: &str, text: &str) -> Vec<u8>,
    /// Some text, then the provider's mid-stream "overloaded" error event.
    pub mid_stream_error: fn(text: &str) -> Vec<u8>,
    /// A final message that used up the output limit on reasoning, with no answer text.
    pub output_limit: fn() -> Vec<u8>,
    /// The provider's error body for an HTTP status (401 a revoked key, 429 a rate limit, 503 or
    /// 529 overloaded, anything else a server error).
    pub error_body: fn(status: u16) -> Value,
    /// An HTTP error this provider is known for, with the exit code and `error.kind` it must
    /// lead to.
    pub known_error: fn() -> (Reply, i32, &'static str),
    /// The provider's HTTP 404 for a model id it does not know, as the real API sends it.
    pub model_not_found: fn(model: &str) -> Reply,
    /// The provider's own stop word for a text answer and for a tool call (kept in
    /// `provider_stop_reason`).
    pub stop_words: (&'static str, &'static str),
    /// The text of the tool result for `call_id` in a request body, if there is one.
    pub tool_result: fn(body: &Value, call_id: &str) -> Option<String>,
    /// The call id the session stores for the id given to [`Protocol::tool_call`] (Gemini has
    /// no ids on the wire; pincer makes its own).
    pub stored_call_id: fn(id: &str) -> String,
}

impl Protocol {
    /// The base URL that points this protocol at a mock serving `url`.
    pub fn base_url(&self, url: &str) -> String {
        format!("{url}{}", self.base_path)
    }
}

/// Every protocol, in a fixed order.
pub fn all() -> [Protocol; 4] {
    [anthropic(), openai(), openai_chat(), gemini()]
}

pub fn anthropic() -> Protocol {
    use wire::anthropic as w;
    fn usage(input: u64, output: u64, cache_read: u64, cache_write: u64) -> w::Usage4 {
        w::Usage4 {
            input,
            output,
            cache_read,
            cache_write,
        }
    }
    Protocol {
        name: "anthropic",
        fixtures: "anthropic",
        model: "anthropic/claude-sonnet-4-5",
        key_var: "ANTHROPIC_API_KEY",
        base_url_var: "ANTHROPIC_BASE_URL",
        base_path: "",
        key_header: |key| ("x-api-key", key.to_owned()),
        text: |chunks| w::text_stream(chunks, usage(25, 12, 0, 0)),
        text_usage: [25, 12, 0, 0],
        cached_text: |text| {
            (
                w::text_stream(&[text], usage(3, 20, 4_565, 500)),
                [3, 20, 4_565, 500],
            )
        },
        tool_call: |id, tool, arguments| {
            w::tool_use_stream(
                None,
                &[(id, tool, &arguments.to_string())],
                usage(25, 12, 0, 0),
            )
        },
        thinking: |thinking, text| {
            w::thinking_stream(thinking, "sig-thinking", text, usage(25, 12, 0, 0))
        },
        mid_stream_error: |text| w::error_event_stream(text, "overloaded_error", "Overloaded"),
        output_limit: || {
            w::thinking_cut_stream("Let me think about this at length", usage(25, 12, 0, 0))
        },
        error_body: |status| match status {
            401 => w::error_body("authentication_error", "invalid x-api-key"),
            429 => w::error_body(
                "rate_limit_error",
                "Number of request tokens has exceeded your per-minute rate limit",
            ),
            529 | 503 => w::error_body("overloaded_error", "Overloaded"),
            _ => w::error_body("api_error", "Internal server error"),
        },
        known_error: || {
            let body = w::error_body("authentication_error", "invalid x-api-key");
            (Reply::json(401, &body), 3, "auth")
        },
        model_not_found: |model| {
            Reply::json(
                404,
                &w::error_body("not_found_error", &format!("model: {model}")),
            )
        },
        stop_words: ("end_turn", "tool_use"),
        tool_result: |body, id| {
            body["messages"].as_array()?.iter().find_map(|message| {
                message["content"].as_array()?.iter().find_map(|block| {
                    (block["type"] == "tool_result" && block["tool_use_id"] == id)
                        .then(|| block["content"].to_string())
                })
            })
        },
        stored_call_id: str::to_owned,
    }
}

pub fn openai() -> Protocol {
    use wire::openai as w;
    fn usage(input_total: u64, cached: u64, output: u64, reasoning: u64) -> w::Usage4 {
        w::Usage4 {
            input_total,
            cached,
            output,
            reasoning,
        }
    }
    Protocol {
        name: "openai",
        fixtures: "openai",
        model: "openai/gpt-5",
        key_var: "OPENAI_API_KEY",
        base_url_var: "OPENAI_BASE_URL",
        base_path: "/v1",
        key_header: |key| ("authorization", format!("Bearer {key}")),
        text: |chunks| w::text_stream(chunks, usage(30, 0, 11, 0)),
        text_usage: [30, 11, 0, 0],
        cached_text: |text| {
            (
                w::text_stream(&[text], usage(4_597, 4_480, 210, 64)),
                [117, 210, 4_480, 0],
            )
        },
        tool_call: |id, tool, arguments| {
            w::tool_call_stream(
                None,
                &[(id, tool, &arguments.to_string())],
                usage(30, 0, 11, 0),
            )
        },
        thinking: |thinking, text| w::reasoning_stream(&[thinking], text, usage(30, 0, 11, 0)),
        mid_stream_error: |_| {
            w::error_stream(
                "server_error",
                "server_is_overloaded",
                "The server is overloaded. Please try again later.",
            )
        },
        output_limit: || {
            w::reasoning_incomplete_stream(&["**Weighing options**"], usage(30, 0, 64, 64))
        },
        error_body: w::error_body,
        known_error: || (Reply::json(429, &w::error_body(429)), 4, "rate_limit"),
        model_not_found: |model| {
            Reply::json(
                404,
                &json!({"error": {
                    "message": format!("The model `{model}` does not exist or you do not have access to it."),
                    "type": "invalid_request_error",
                    "param": null,
                    "code": "model_not_found",
                }}),
            )
        },
        stop_words: ("completed", "completed"),
        tool_result: |body, id| {
            body["input"].as_array()?.iter().find_map(|item| {
                (item["type"] == "function_call_output" && item["call_id"] == id)
                    .then(|| item["output"].to_string())
            })
        },
        stored_call_id: str::to_owned,
    }
}

pub fn openai_chat() -> Protocol {
    use wire::openai_chat as w;
    fn usage(input_total: u64, cached: u64, output: u64, reasoning: u64) -> w::Usage4 {
        w::Usage4 {
            input_total,
            cached,
            output,
            reasoning,
        }
    }
    Protocol {
        name: "openai-chat",
        fixtures: "openai_chat",
        model: "openai-chat/gpt-4o-mini",
        key_var: "OPENAI_API_KEY",
        base_url_var: "OPENAI_BASE_URL",
        base_path: "/v1",
        key_header: |key| ("authorization", format!("Bearer {key}")),
        text: |chunks| w::text_stream(chunks, usage(54, 0, 20, 0)),
        text_usage: [54, 20, 0, 0],
        cached_text: |text| {
            (
                w::text_stream(&[text], usage(4_597, 4_480, 210, 0)),
                [117, 210, 4_480, 0],
            )
        },
        tool_call: |id, tool, arguments| {
            w::tool_call_stream(
                None,
                &[(id, tool, &arguments.to_string())],
                usage(54, 0, 20, 0),
            )
        },
        thinking: |thinking, text| w::reasoning_stream(&[thinking], &[text], usage(54, 0, 20, 0)),
        mid_stream_error: |text| {
            w::error_chunk_stream(
                text,
                "server_error",
                "server_is_overloaded",
                "The server is overloaded. Please try again later.",
            )
        },
        output_limit: || w::text_stream_ending(&[], usage(54, 0, 20, 0), "length"),
        error_body: w::error_body,
        known_error: || (Reply::json(503, &w::error_body(503)), 4, "overloaded"),
        model_not_found: |model| {
            Reply::json(
                404,
                &json!({"error": {
                    "message": format!("The model `{model}` does not exist or you do not have access to it."),
                    "type": "invalid_request_error",
                    "param": null,
                    "code": "model_not_found",
                }}),
            )
        },
        stop_words: ("stop", "tool_calls"),
        tool_result: |body, id| {
            body["messages"].as_array()?.iter().find_map(|message| {
                (message["role"] == "tool" && message["tool_call_id"] == id)
                    .then(|| message["content"].to_string())
            })
        },
        stored_call_id: str::to_owned,
    }
}

pub fn gemini() -> Protocol {
    use wire::gemini as w;
    Protocol {
        name: "gemini",
        fixtures: "gemini",
        model: "google/gemini-2.5-flash",
        key_var: "GEMINI_API_KEY",
        base_url_var: "GEMINI_BASE_URL",
        base_path: "/v1beta",
        key_header: |key| ("x-goog-api-key", key.to_owned()),
        text: |chunks| w::text_stream(chunks, w::Usage4::new(120, 0, 9, 0)),
        text_usage: [120, 9, 0, 0],
        cached_text: |text| {
            let usage = w::Usage4::new(17_713, 17_379, 68, 821);
            (w::text_stream(&[text], usage), usage.normalized())
        },
        tool_call: |_, tool, arguments| {
            w::function_call_stream(
                &[(tool, arguments.clone())],
                "sig-abc",
                w::Usage4::new(50, 0, 5, 0),
            )
        },
        thinking: |thinking, text| w::thinking_stream(thinking, text, w::Usage4::new(80, 0, 9, 4)),
        mid_stream_error: |text| {
            let mut stream = w::event(&json!({
                "candidates": [{"content": {"parts": [{"text": text}], "role": "model"}, "index": 0}],
                "modelVersion": "gemini-2.5-flash"
            }));
            stream.extend(w::error_event(
                503,
                "UNAVAILABLE",
                "The model is overloaded. Please try again later.",
            ));
            stream
        },
        output_limit: || w::thinking_cut_stream("Weighing it up", w::Usage4::new(120, 0, 0, 64)),
        error_body: |status| match status {
            401 => w::error_body(
                401,
                "UNAUTHENTICATED",
                "API key not valid. Please pass a valid API key.",
            ),
            429 => w::error_body(
                429,
                "RESOURCE_EXHAUSTED",
                "Resource has been exhausted (e.g. check quota).",
            ),
            503 | 529 => w::error_body(
                503,
                "UNAVAILABLE",
                "The model is overloaded. Please try again later.",
            ),
            _ => w::error_body(500, "INTERNAL", "An internal error has occurred."),
        },
        // A per-minute quota that says when to come back is a rate limit, not billing (exit 4
        // either way; billing would disable the profile for hours).
        known_error: || {
            (
                Reply::json(429, &w::quota_error_body("34.4s")),
                4,
                "rate_limit",
            )
        },
        model_not_found: |model| {
            Reply::json(
                404,
                &json!({"error": {
                    "code": 404,
                    "message": format!("models/{model} is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods."),
                    "status": "NOT_FOUND",
                }}),
            )
        },
        stop_words: ("STOP", "STOP"),
        // Function responses carry no call id on the wire: the last one is the result.
        tool_result: |body, _| {
            body["contents"]
                .as_array()?
                .iter()
                .rev()
                .find_map(|content| {
                    content["parts"].as_array()?.iter().rev().find_map(|part| {
                        let response = &part["functionResponse"];
                        response
                            .is_object()
                            .then(|| response["response"].to_string())
                    })
                })
        },
        stored_call_id: |_| format!("call_{}_0", w::RESPONSE_ID),
    }
}

/// Every tool name in a request body's `tools`, whatever the protocol nests them in
/// (`tools[].name`, `tools[].function.name`, `tools[].functionDeclarations[].name`).
pub fn offered_tools(body: &Value) -> Vec<String> {
    fn walk(value: &Value, names: &mut Vec<String>) {
        match value {
            Value::Array(items) => items.iter().for_each(|item| walk(item, names)),
            Value::Object(object) => {
                if let Some(Value::String(name)) = object.get("name") {
                    names.push(name.clone());
                }
                for (key, inner) in object {
                    if key != "parameters" && key != "input_schema" {
                        walk(inner, names);
                    }
                }
            }
            _ => {}
        }
    }
    let mut names = Vec::new();
    walk(&body["tools"], &mut names);
    names
}
