//! The four wire protocols as rows of a table, for tests that run the same scenario against
//! each of them: how to point pincer at the mock, and byte-exact streams and error bodies.

use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

use super::Home;
use super::wire;

/// One wire protocol.
#[derive(Clone, Copy)]
pub struct Protocol {
    /// A short name for assertion messages.
    pub name: &'static str,
    /// `-m` value.
    pub model: &'static str,
    /// The key variable and base-URL variable for a mock at `url`.
    pub env: fn(url: &str, key: &str) -> Vec<(&'static str, String)>,
    /// A complete text answer streamed in `chunks`.
    pub text: fn(chunks: &[&str]) -> Vec<u8>,
    /// One tool call `(id, tool, JSON arguments)`.
    pub tool_call: fn(id: &str, tool: &str, arguments: &Value) -> Vec<u8>,
    /// Reasoning (`thinking`), then a text answer (`text`), as the provider streams both.
    pub thinking: fn(thinking: &str, text: &str) -> Vec<u8>,
    /// Some text, then the provider's mid-stream "overloaded" error event.
    pub mid_stream_error: fn(text: &str) -> Vec<u8>,
    /// A final message that used up the output limit on reasoning, with no answer text.
    pub output_limit: fn() -> Vec<u8>,
    /// The provider's error body for an HTTP status.
    pub error_body: fn(status: u16) -> Value,
}

/// Every protocol, in a fixed order.
pub fn all() -> [Protocol; 4] {
    [anthropic(), openai(), openai_chat(), gemini()]
}

pub fn anthropic() -> Protocol {
    use wire::anthropic as w;
    fn usage() -> w::Usage4 {
        w::Usage4 {
            input: 25,
            output: 12,
            cache_read: 0,
            cache_write: 0,
        }
    }
    Protocol {
        name: "anthropic",
        model: "anthropic/claude-sonnet-4-5",
        env: |url, key| {
            vec![
                ("ANTHROPIC_API_KEY", key.to_owned()),
                ("ANTHROPIC_BASE_URL", url.to_owned()),
            ]
        },
        text: |chunks| w::text_stream(chunks, usage()),
        tool_call: |id, tool, arguments| {
            w::tool_use_stream(None, &[(id, tool, &arguments.to_string())], usage())
        },
        thinking: |thinking, text| w::thinking_stream(thinking, "sig-thinking", text, usage()),
        mid_stream_error: |text| w::error_event_stream(text, "overloaded_error", "Overloaded"),
        output_limit: || w::thinking_cut_stream("Let me think about this at length", usage()),
        error_body: |status| match status {
            429 => w::error_body(
                "rate_limit_error",
                "Number of request tokens has exceeded your per-minute rate limit",
            ),
            529 | 503 => w::error_body("overloaded_error", "Overloaded"),
            _ => w::error_body("api_error", "Internal server error"),
        },
    }
}

pub fn openai() -> Protocol {
    use wire::openai as w;
    fn usage() -> w::Usage4 {
        w::Usage4 {
            input_total: 30,
            cached: 0,
            output: 11,
            reasoning: 0,
        }
    }
    Protocol {
        name: "openai",
        model: "openai/gpt-5",
        env: |url, key| {
            vec![
                ("OPENAI_API_KEY", key.to_owned()),
                ("OPENAI_BASE_URL", format!("{url}/v1")),
            ]
        },
        text: |chunks| w::text_stream(chunks, usage()),
        tool_call: |id, tool, arguments| {
            w::tool_call_stream(None, &[(id, tool, &arguments.to_string())], usage())
        },
        thinking: |thinking, text| w::reasoning_stream(&[thinking], text, usage()),
        mid_stream_error: |_| {
            w::error_stream(
                "server_error",
                "server_is_overloaded",
                "The server is overloaded. Please try again later.",
            )
        },
        output_limit: || {
            w::reasoning_incomplete_stream(
                &["**Weighing options**"],
                w::Usage4 {
                    input_total: 30,
                    cached: 0,
                    output: 64,
                    reasoning: 64,
                },
            )
        },
        error_body: w::error_body,
    }
}

pub fn openai_chat() -> Protocol {
    use wire::openai_chat as w;
    fn usage() -> w::Usage4 {
        w::Usage4 {
            input_total: 54,
            cached: 0,
            output: 20,
            reasoning: 0,
        }
    }
    Protocol {
        name: "openai-chat",
        model: "openai-chat/gpt-4o-mini",
        env: |url, key| {
            vec![
                ("OPENAI_API_KEY", key.to_owned()),
                ("OPENAI_BASE_URL", format!("{url}/v1")),
            ]
        },
        text: |chunks| w::text_stream(chunks, usage()),
        tool_call: |id, tool, arguments| {
            w::tool_call_stream(None, &[(id, tool, &arguments.to_string())], usage())
        },
        thinking: |thinking, text| w::reasoning_stream(&[thinking], &[text], usage()),
        mid_stream_error: |text| {
            w::error_chunk_stream(
                text,
                "server_error",
                "server_is_overloaded",
                "The server is overloaded. Please try again later.",
            )
        },
        output_limit: || w::text_stream_ending(&[], usage(), "length"),
        error_body: w::error_body,
    }
}

pub fn gemini() -> Protocol {
    use wire::gemini as w;
    Protocol {
        name: "gemini",
        model: "google/gemini-2.5-flash",
        env: |url, key| {
            vec![
                ("GEMINI_API_KEY", key.to_owned()),
                ("GEMINI_BASE_URL", format!("{url}/v1beta")),
            ]
        },
        text: |chunks| w::text_stream(chunks, w::Usage4::new(120, 0, 9, 0)),
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
    }
}

/// A pincer command for `home` with `protocol`'s key and base URL pointing at `url`, no stdin,
/// and fast retries (10 ms doubling to 40 ms) so that fault tests do not sleep. `TMPDIR` is the
/// test's own directory, so the private temp dir of a run that a test SIGKILLs goes with it.
pub fn command(home: &Home, protocol: &Protocol, url: &str, key: &str) -> Command {
    let mut command = Command::new(assert_cmd::cargo::cargo_bin("pincer"));
    command
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home.root.path())
        .env("TMPDIR", home.root.path())
        .env("PINCER_HOME", &home.home)
        .env("NO_COLOR", "1")
        .current_dir(&home.workspace)
        .stdin(Stdio::null())
        .args([
            "-c",
            "retry.base_delay_ms=10",
            "-c",
            "retry.max_delay_ms=40",
        ]);
    for (name, value) in (protocol.env)(url, key) {
        command.env(name, value);
    }
    command
}

/// Run `command` with `args` and collect its output.
pub fn output(mut command: Command, args: &[&str]) -> Output {
    command.args(args).output().unwrap()
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
