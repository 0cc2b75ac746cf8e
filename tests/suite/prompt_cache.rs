//! Prompt caching on the wire (README "Prompt caching"): the cache lifetime asked of Anthropic
//! (`[cache] ttl`), where its four breakpoints go over turns and a compaction, and the fixed
//! overhead every request carries (system prompt and tool definitions) as `status` and the
//! result report it.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::common::mock::{MockServer, Reply};
use crate::common::protocols;
use crate::common::wire::anthropic::{self, Usage4};
use crate::common::{Home, anthropic_tool_turn, code, skip, stderr, stdout};
use crate::suite::exec_sandbox::{git, have};

const USAGE: Usage4 = Usage4 {
    input: 100,
    output: 10,
    cache_read: 0,
    cache_write: 0,
};

/// Every `cache_control` object of a request body, in document order.
fn breakpoints(body: &Value) -> Vec<Value> {
    fn collect(value: &Value, found: &mut Vec<Value>) {
        match value {
            Value::Object(map) => {
                if let Some(control) = map.get("cache_control") {
                    found.push(control.clone());
                }
                map.values().for_each(|value| collect(value, found));
            }
            Value::Array(items) => items.iter().for_each(|value| collect(value, found)),
            _ => {}
        }
    }
    let mut found = Vec::new();
    collect(body, &mut found);
    found
}

/// A tool turn (an `ls` call, then "Done.") against the mock with `config` overrides.
fn tool_turn(home: &Home, config: &[&str]) -> (std::process::Output, MockServer) {
    let server = MockServer::start(anthropic_tool_turn(
        "Looking.",
        ("toolu_", "ls"),
        &[json!({})],
        USAGE,
    ));
    let mut args: Vec<&str> = Vec::new();
    for value in config {
        args.extend(["-c", value]);
    }
    args.extend(["run", "-m", "anthropic/claude-sonnet-4-5", "list the files"]);
    let output = home.pincer().providers(&server).args(args).output();
    (output, server)
}

#[test]
fn a_one_hour_cache_ttl_goes_on_every_anthropic_breakpoint() {
    let home = Home::new();
    let (output, server) = tool_turn(&home, &["cache.ttl=\"1h\""]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    // Tools, system and the prompt; then tools, system, the prompt and the tool result.
    for (request, count) in requests.iter().zip([3, 4]) {
        assert_eq!(
            breakpoints(&request.json()),
            vec![json!({"type": "ephemeral", "ttl": "1h"}); count],
            "every breakpoint asks for an hour"
        );
    }
}

#[test]
fn the_default_five_minute_cache_sends_breakpoints_without_a_ttl() {
    let home = Home::new();
    let (output, server) = tool_turn(&home, &[]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    for request in server.requests() {
        let found = breakpoints(&request.json());
        assert!(!found.is_empty());
        assert!(
            found
                .iter()
                .all(|control| *control == json!({"type": "ephemeral"})),
            "{found:?}"
        );
    }
    // Said explicitly, the default is the same request.
    let home = Home::new();
    let (output, server) = tool_turn(&home, &["cache.ttl=\"5m\""]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let found = breakpoints(&server.requests()[0].json());
    assert!(
        found
            .iter()
            .all(|control| *control == json!({"type": "ephemeral"}))
    );
}

#[test]
fn a_cache_ttl_other_than_5m_or_1h_is_refused_before_any_request() {
    let home = Home::new();
    let (output, server) = tool_turn(&home, &["cache.ttl=\"30m\""]);
    assert_eq!(code(&output), 2, "{}", stderr(&output));
    assert!(stderr(&output).contains("cache.ttl"), "{}", stderr(&output));
    assert!(server.requests().is_empty());
}

#[test]
fn status_and_dry_run_show_the_cache_ttl() {
    let home = Home::new();
    std::fs::write(home.home.join("config.toml"), "[cache]\nttl = \"1h\"\n").unwrap();
    let output = home.run(&["status", "--json"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let status: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(status["cache"]["ttl"], "1h");
    let text = stdout(&home.run(&["status"]));
    assert!(text.contains("cache ttl:      1h"), "{text}");

    let plan = dry_run(&home, &[]);
    assert_eq!(plan["cache_ttl"], "1h");
    assert_eq!(
        plan["body"]["system"][0]["cache_control"],
        json!({"type": "ephemeral", "ttl": "1h"})
    );
}

/// Where a request's last message breakpoint is (message index, block index), and the request
/// with every `cache_control` taken out, for comparing content.
fn last_message_breakpoint(body: &Value) -> (usize, usize) {
    let messages = body["messages"].as_array().unwrap();
    messages
        .iter()
        .enumerate()
        .flat_map(|(message, turn)| {
            turn["content"]
                .as_array()
                .unwrap()
                .iter()
                .enumerate()
                .filter(|(_, block)| block.get("cache_control").is_some())
                .map(move |(block, _)| (message, block))
        })
        .last()
        .expect("a breakpoint in the messages")
}

fn without_breakpoints(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(key, _)| *key != "cache_control")
                .map(|(key, value)| (key.clone(), without_breakpoints(value)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_breakpoints).collect()),
        other => other.clone(),
    }
}

/// `later` reads what `earlier` wrote: the same tools and system prompt, the same messages up
/// to `earlier`'s last breakpoint, and a breakpoint of its own on that very block.
fn assert_reads_what_was_written(earlier: &Value, later: &Value, what: &str) {
    assert_eq!(
        without_breakpoints(&later["tools"]),
        without_breakpoints(&earlier["tools"]),
        "{what}: tools"
    );
    assert_eq!(later["system"], earlier["system"], "{what}: system");
    let (message, block) = last_message_breakpoint(earlier);
    let written = &earlier["messages"].as_array().unwrap()[..=message];
    let read = &later["messages"].as_array().unwrap()[..=message];
    let cut = |turns: &[Value]| {
        let mut turns = without_breakpoints(&Value::Array(turns.to_vec()));
        let last = turns.as_array_mut().unwrap().last_mut().unwrap();
        last["content"].as_array_mut().unwrap().truncate(block + 1);
        turns
    };
    assert_eq!(cut(read), cut(written), "{what}: the cached prefix changed");
    assert!(
        later["messages"][message]["content"][block]
            .get("cache_control")
            .is_some(),
        "{what}: no breakpoint where the earlier request wrote the cache: {later:#}"
    );
}

#[test]
fn every_request_reads_the_cache_the_previous_one_wrote_over_turns_and_after_a_compaction() {
    let home = Home::new();
    let text = |answer: &str| Reply::sse(&anthropic::text_stream(&[answer], USAGE));
    let summary = "## Goal\nKeep the cache warm.\n## Next Steps\nMore turns.";
    let mut replies = vec![text("First answer.")];
    replies.extend(anthropic_tool_turn(
        "Listing.",
        ("toolu_a", "ls"),
        &[json!({})],
        USAGE,
    ));
    replies.push(text("Answer to three."));
    replies.push(text(summary));
    replies.push(text("Answer to four."));
    replies.extend(anthropic_tool_turn(
        "Listing again.",
        ("toolu_b", "ls"),
        &[json!({})],
        USAGE,
    ));
    replies.push(text("Answer to six."));
    let server = MockServer::start(replies);
    let pincer = |args: &[&str]| {
        let output = home.pincer().providers(&server).args(args).output();
        assert_eq!(code(&output), 0, "{args:?}: {}", stderr(&output));
    };
    let model = "anthropic/claude-sonnet-4-5";
    pincer(&["run", "-m", model, "--name", "warm", "one"]);
    pincer(&["resume", "warm", "two"]);
    pincer(&["resume", "warm", "three"]);
    pincer(&["-c", "compaction.keep_recent_tokens=1", "compact", "warm"]);
    pincer(&["resume", "warm", "four"]);
    pincer(&["resume", "warm", "five"]);
    pincer(&["resume", "warm", "six"]);
    let bodies: Vec<Value> = server
        .requests()
        .iter()
        .map(|request| request.json())
        .collect();
    assert_eq!(bodies.len(), 9);
    let summary_call = &bodies[4];
    assert!(summary_call.to_string().contains("<conversation>"));
    let (before, after) = (&bodies[..4], &bodies[5..]);
    for pair in before.windows(2).chain(after.windows(2)) {
        assert_reads_what_was_written(&pair[0], &pair[1], "consecutive requests");
    }
    // The compaction is one deliberate cut: the tools and system prompt are still read from the
    // cache, the summary comes first, and from there the prefix holds again.
    assert_eq!(after[0]["system"], before[3]["system"]);
    assert_eq!(after[0]["tools"], before[3]["tools"]);
    assert!(
        after[0]["messages"][0]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("Keep the cache warm."),
        "{:#}",
        after[0]["messages"]
    );
    // The summary call's prompt is never sent again: writing it to the cache (1.25x or 2x the
    // input price) would be paid for nothing.
    assert_eq!(
        breakpoints(summary_call),
        Vec::<Value>::new(),
        "{summary_call:#}"
    );
}

/// The estimate pincer uses for every part of a request: characters / 4, rounded up.
fn estimate(text: &str) -> u64 {
    (text.encode_utf16().count() as u64).div_ceil(4)
}

/// The system prompt and tool definitions of a request body, estimated as pincer does.
fn overhead_of(body: &Value) -> u64 {
    let system: String = body["system"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|block| block["text"].as_str().unwrap().to_owned())
        .collect();
    let tools: String = body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| {
            format!(
                "{}{}{}",
                tool["name"].as_str().unwrap(),
                tool["description"].as_str().unwrap(),
                tool["input_schema"]
            )
        })
        .collect();
    estimate(&system) + estimate(&tools)
}

#[test]
fn the_result_reports_the_overhead_every_request_carried() {
    let home = Home::new();
    let (output, server) = tool_turn(&home, &[]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let first = server.requests()[0].json();
    let server = MockServer::start(vec![Reply::sse(&anthropic::text_stream(&["hi"], USAGE))]);
    let output = home
        .pincer()
        .providers(&server)
        .args([
            "run",
            "--json",
            "-m",
            "anthropic/claude-sonnet-4-5",
            "hello",
        ])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let result: Value = serde_json::from_str(&stdout(&output)).unwrap();
    let overhead = result["context"]["overhead_tokens"].as_u64().unwrap();
    assert_eq!(overhead, overhead_of(&server.requests()[0].json()));
    assert_eq!(overhead, overhead_of(&first), "the same prompt and tools");
}

#[test]
fn status_reports_the_overhead_of_a_request_with_the_default_tools() {
    let home = Home::new();
    let plan = dry_run(&home, &[]);
    let sent = overhead_of(&plan["body"]);
    assert_eq!(plan["overhead_tokens"], sent);

    let server = MockServer::start(Vec::new());
    let output = home
        .pincer()
        .providers(&server)
        .args([
            "-c",
            "model=anthropic/claude-sonnet-4-5",
            "status",
            "--json",
        ])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let status: Value = serde_json::from_str(&stdout(&output)).unwrap();
    let overhead = &status["overhead"];
    assert_eq!(
        overhead["tools"],
        json!(["read", "write", "edit", "exec", "ls", "find", "grep"])
    );
    let (system, tools) = (
        overhead["system_prompt_tokens"].as_u64().unwrap(),
        overhead["tool_tokens"].as_u64().unwrap(),
    );
    assert_eq!(overhead["tokens"], system + tools);
    // status builds the prompt without the date and git state of a real turn: within a few
    // tokens of what a request carries.
    assert!(sent.abs_diff(system + tools) < 20, "{sent} vs {overhead}");
    let text = stdout(
        &home
            .pincer()
            .args(["-c", "model=anthropic/claude-sonnet-4-5", "status"])
            .output(),
    );
    let grouped = |number: u64| {
        let digits = number.to_string();
        let mut shown = String::new();
        for (index, digit) in digits.chars().enumerate() {
            if index > 0 && (digits.len() - index).is_multiple_of(3) {
                shown.push(',');
            }
            shown.push(digit);
        }
        shown
    };
    assert!(
        text.contains(&format!(
            "overhead:       {} tokens per request (system prompt {}, 7 tools {})",
            grouped(system + tools),
            grouped(system),
            grouped(tools)
        )),
        "{text}"
    );
}

/// The base prompt and the default tools cost at most 1,200 tokens a request (pi's 1,169 for
/// its four tools was the mark): every request pays them, cached or not.
#[test]
fn a_default_request_carries_at_most_1200_tokens_of_prompt_and_tools() {
    let home = Home::new();
    for sandbox in ["workspace-write", "read-only", "danger-full-access"] {
        let plan = dry_run(&home, &["--sandbox", sandbox]);
        let overhead = overhead_of(&plan["body"]);
        assert!(overhead <= 1_200, "{sandbox}: {overhead} tokens");
    }
}

/// The same mark on every protocol, as pincer counts it (`overhead_tokens`): the Responses
/// API offers `apply_patch` instead of `write` and `edit`, not beside them.
#[test]
fn a_default_request_carries_at_most_1200_tokens_on_every_protocol() {
    let home = Home::new();
    for protocol in protocols::all() {
        for sandbox in ["workspace-write", "read-only", "danger-full-access"] {
            let plan = dry_run_as(&home, protocol.model, &["--sandbox", sandbox]);
            let overhead = plan["overhead_tokens"].as_u64().unwrap();
            assert!(
                overhead <= 1_200,
                "{} {sandbox}: {overhead} tokens with {}",
                protocol.name,
                plan["tools"]
            );
        }
    }
}

/// The system prompt's text, whatever blocks it was sent in.
fn system_text(body: &Value) -> String {
    body["system"]
        .as_array()
        .unwrap()
        .iter()
        .map(|block| block["text"].as_str().unwrap())
        .collect()
}

/// The text blocks of a request's last message.
fn last_message_text(body: &Value) -> String {
    let messages = body["messages"].as_array().unwrap();
    messages.last().unwrap()["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|block| block["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The model edits a file of the repository: the next run must still read the system prompt
/// and the history from the cache, so the change counts may not sit in the system prompt
/// (before the system breakpoint), only in the new user turn.
#[test]
fn a_file_the_model_changed_leaves_the_next_run_s_system_prompt_and_cached_prefix_alone() {
    let home = Home::new();
    if !have("git") {
        skip("a_file_the_model_changed…", "git is missing");
        return;
    }
    git(&home.workspace, &["init", "-q", "-b", "main"]);
    std::fs::write(home.workspace.join("notes.txt"), "one\n").unwrap();
    git(&home.workspace, &["add", "."]);
    git(&home.workspace, &["commit", "-qm", "first"]);
    let mut replies = anthropic_tool_turn(
        "Editing.",
        ("toolu_w", "write"),
        &[
            json!({"path": "notes.txt", "content": "two\n"}),
            json!({"path": "new.txt", "content": "new\n"}),
        ],
        USAGE,
    );
    replies.push(Reply::sse(&anthropic::text_stream(&["Answer two."], USAGE)));
    replies.push(Reply::sse(&anthropic::text_stream(
        &["Answer three."],
        USAGE,
    )));
    let server = MockServer::start(replies);
    let pincer = |args: &[&str]| {
        let output = home.pincer().providers(&server).args(args).output();
        assert_eq!(code(&output), 0, "{args:?}: {}", stderr(&output));
    };
    pincer(&[
        "run",
        "-m",
        "anthropic/claude-sonnet-4-5",
        "--name",
        "edits",
        "one",
    ]);
    assert_eq!(
        std::fs::read_to_string(home.workspace.join("notes.txt")).unwrap(),
        "two\n"
    );
    pincer(&["resume", "edits", "two"]);
    pincer(&["resume", "edits", "--system-prompt", "Be brief.", "three"]);
    let bodies: Vec<Value> = server
        .requests()
        .iter()
        .map(|request| request.json())
        .collect();
    assert_eq!(bodies.len(), 4);
    if !system_text(&bodies[0]).contains("Git repository: branch main") {
        skip(
            "a_file_the_model_changed…",
            "no git summary here (git cannot be confined)",
        );
        return;
    }
    assert_eq!(
        bodies[2]["system"], bodies[0]["system"],
        "the system prompt moved"
    );
    assert_reads_what_was_written(&bodies[1], &bodies[2], "the run after the edit");
    // The status summary still reaches the model: in each run's own user turn.
    assert!(
        last_message_text(&bodies[0]).contains("no uncommitted changes"),
        "{:#}",
        bodies[0]["messages"]
    );
    assert!(
        last_message_text(&bodies[2]).contains("1 changed and 1 untracked files"),
        "{:#}",
        bodies[2]["messages"]
    );
    // A prompt of the user's own gets no workspace facts added, in the message either.
    assert_eq!(last_message_text(&bodies[3]), "three");
}

/// The `--dry-run` plan of a one-word Anthropic turn in `home`, with `extra` flags.
fn dry_run(home: &Home, extra: &[&str]) -> Value {
    dry_run_as(home, "anthropic/claude-sonnet-4-5", extra)
}

/// The `--dry-run` plan of a one-word turn of `model` in `home`, with `extra` flags.
fn dry_run_as(home: &Home, model: &str, extra: &[&str]) -> Value {
    let server = MockServer::start(Vec::new());
    let output = home
        .pincer()
        .providers(&server)
        .args(["run", "--dry-run"])
        .args(extra)
        .args(["-m", model, "hi"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    serde_json::from_str(&stdout(&output)).unwrap()
}
