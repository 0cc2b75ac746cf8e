//! A standalone mock provider for benchmarks: serves scripted Anthropic and OpenAI-compatible
//! streams on loopback, in a cycle, until killed. It reuses the test suite's mock server and
//! wire builders, so the bytes are the ones the tests check.
//!
//! Usage: `mock_provider SCENARIO` where SCENARIO is `anthropic-text`, `chat-text` or
//! `anthropic-tool` (a read of `bench.txt`, then an answer). Prints the base URL on stdout.

#![expect(
    clippy::print_stdout,
    reason = "the URL on stdout is this program's interface"
)]
#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "shared test helpers"
)]

#[path = "../tests/common/mock.rs"]
mod mock;

#[path = "../tests/common/wire/anthropic.rs"]
mod anthropic;

#[path = "../tests/common/wire/openai_chat.rs"]
mod openai_chat;

use std::io::Write;

fn main() {
    let scenario = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "anthropic-text".to_owned());
    let anthropic_usage = anthropic::Usage4 {
        input: 1_200,
        output: 40,
        cache_read: 0,
        cache_write: 0,
    };
    let answer = [
        "The build is green. ",
        "All 42 tests passed, ",
        "and nothing needs attention.",
    ];
    let replies = match scenario.as_str() {
        "anthropic-text" => vec![mock::Reply::sse(&anthropic::text_stream(
            &answer,
            anthropic_usage,
        ))],
        "chat-text" => vec![mock::Reply::sse(&openai_chat::text_stream(
            &answer,
            openai_chat::Usage4 {
                input_total: 1_200,
                cached: 0,
                output: 40,
                reasoning: 0,
            },
        ))],
        "anthropic-tool" => vec![
            mock::Reply::sse(&anthropic::tool_use_stream(
                None,
                &[("toolu_01Bench", "read", "{\"path\":\"bench.txt\"}")],
                anthropic_usage,
            )),
            mock::Reply::sse(&anthropic::text_stream(&answer, anthropic_usage)),
        ],
        other => {
            let _ = writeln!(std::io::stderr(), "unknown scenario '{other}'");
            std::process::exit(2);
        }
    };
    let server = mock::MockServer::start_cycle(replies, "127.0.0.1:0");
    println!("{}", server.url());
    let _ = std::io::stdout().flush();
    loop {
        std::thread::park();
    }
}
