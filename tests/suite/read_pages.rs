//! `read` of a huge file is paged (README "Tools, policy and sandbox"): a call without offset or
//! limit gets the first page, never the whole file, and a note with the file's total size and
//! the offset of the next page, which the next call uses.

use serde_json::{Value, json};

use crate::common::mock::{MockServer, Reply};
use crate::common::wire::anthropic::{self as wire, Usage4};
use crate::common::{Home, code, stderr};

const USAGE: Usage4 = Usage4 {
    input: 100,
    output: 10,
    cache_read: 0,
    cache_write: 0,
};

fn read_call(id: &str, arguments: Value) -> Reply {
    Reply::sse(&wire::tool_use_stream(
        None,
        &[(id, "read", &arguments.to_string())],
        USAGE,
    ))
}

/// The model reads `path`, then reads it again with `then`; the two results as sent back.
fn read_twice(home: &Home, path: &str, then: Value) -> (String, String) {
    let server = MockServer::start(vec![
        read_call("r0", json!({ "path": path })),
        read_call("r1", then),
        Reply::sse(&wire::text_stream(&["Done."], USAGE)),
    ]);
    let output = home
        .pincer()
        .providers(&server)
        .args(["run", "-m", "anthropic/claude-sonnet-4-5", "read it"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let requests = server.requests();
    let first = wire::tool_results(&requests[1].json())["r0"].clone();
    let second = wire::tool_results(&requests[2].json())["r1"].clone();
    assert!(!first.1 && !second.1, "{first:?} {second:?}");
    (first.0, second.0)
}

#[test]
fn a_read_of_a_3_mb_file_returns_one_page_with_the_size_and_the_next_offset() {
    let home = Home::new();
    // 60,000 lines of 50 bytes: 3,000,000 bytes.
    let text: String = (1..=60_000)
        .map(|n| format!("line {n:>5} {}\n", "x".repeat(38)))
        .collect();
    assert_eq!(text.len(), 3_000_000);
    std::fs::write(home.workspace.join("big.log"), &text).unwrap();
    let (first, second) = read_twice(&home, "big.log", json!({"path": "big.log", "offset": 1025}));
    assert!(first.len() <= 50 * 1024 + 200, "{} bytes", first.len());
    assert!(first.starts_with("line     1 "));
    assert!(first.contains("line  1024 ") && !first.contains("line  1025 "));
    assert!(
        first.ends_with(
            "\n[Showing lines 1-1024 of 60000 (2.9 MB; 50 KB per call). Use offset=1025 to \
             continue.]"
        ),
        "{}",
        &first[first.len() - 200..]
    );
    assert!(second.starts_with("line  1025 "), "{}", &second[..40]);
    assert!(second.ends_with("Use offset=2049 to continue.]"));
}

#[test]
fn a_file_of_one_huge_line_shows_its_head_and_says_how_to_reach_the_rest() {
    let home = Home::new();
    std::fs::write(home.workspace.join("bundle.min.js"), "x".repeat(3_000_000)).unwrap();
    let (first, _) = read_twice(&home, "bundle.min.js", json!({"path": "bundle.min.js"}));
    assert!(first.len() <= 50 * 1024 + 300, "{} bytes", first.len());
    let note = &first[50 * 1024..];
    assert!(
        note.contains("Line 1 is 3000000 bytes (2.9 MB); only its first 50 KB is shown.")
            && note.contains("grep")
            && note.contains("cut -c"),
        "{note}"
    );
}
