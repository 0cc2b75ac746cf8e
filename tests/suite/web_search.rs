//! Provider web search (`--web-search`, config `tools.web_search`) end to end against the mock
//! provider speaking each protocol's real search shapes: what the request asks for, how the
//! streamed searches and citations reach stream-json and the session, the usage and cost, what
//! the next request of the same turn sends back, and the models that cannot search.

use std::process::Output;

use serde_json::{Value, json};

use crate::common::mock::{MockServer, Reply};
use crate::common::protocols::{self, Protocol};
use crate::common::wire::anthropic::{self as anthropic_wire, ENCRYPTED_INDEX, Search};
use crate::common::wire::{gemini as gemini_wire, openai as openai_wire};
use crate::common::{Home, code, stderr, stdout};

const RELEASE_URL: &str = "https://blog.rust-lang.org/2026/04/02/Rust-1.95.0/";
const RELEASE_TITLE: &str = "Announcing Rust 1.95.0";
const LWN_URL: &str = "https://lwn.net/Articles/1000/";
const ANSWER: &str = "Rust 1.95 came out on April 2.";

fn anthropic_usage() -> anthropic_wire::Usage4 {
    anthropic_wire::Usage4 {
        input: 10,
        output: 5,
        cache_read: 0,
        cache_write: 0,
    }
}

fn openai_usage() -> openai_wire::Usage4 {
    openai_wire::Usage4 {
        input_total: 40,
        cached: 0,
        output: 12,
        reasoning: 0,
    }
}

/// One search of the release notes, as Anthropic streams it.
fn release_search(id: &str) -> Search<'_> {
    Search {
        id,
        query: "rust 1.95 release date",
        results: &[(RELEASE_URL, RELEASE_TITLE), (LWN_URL, "LWN: Rust 1.95")],
    }
}

/// What each provider is asked for, and how it answers a search.
struct Case {
    protocol: Protocol,
    /// Arguments the run needs besides `--web-search` (Gemini 2.5 searches only without tools).
    args: &'static [&'static str],
    /// The answer with one search of the release date, citing the release notes.
    reply: Vec<u8>,
    /// The search's input as stream-json shows it.
    input: Value,
    /// The model's `modelUsage` key.
    model: &'static str,
    /// USD of the run: tokens plus searches.
    cost: f64,
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            protocol: protocols::anthropic(),
            args: &[],
            reply: anthropic_wire::web_search_stream(
                "Let me check.",
                &[release_search("srvtoolu_01Rel")],
                ANSWER,
                None,
                "end_turn",
                anthropic_usage(),
            ),
            input: json!({"query": "rust 1.95 release date"}),
            model: "claude-sonnet-4-5",
            // 10 × $3/M + 5 × $15/M, and one search at $10 per 1,000.
            cost: 0.000_105 + 0.01,
        },
        Case {
            protocol: protocols::openai(),
            args: &[],
            reply: openai_wire::web_search_stream(
                &[("rust 1.95 release date", &[RELEASE_URL, LWN_URL])],
                ANSWER,
                &[(RELEASE_URL, RELEASE_TITLE)],
                None,
                openai_usage(),
            ),
            input: json!({"query": "rust 1.95 release date"}),
            model: "gpt-5",
            // 40 × $1.25/M + 12 × $10/M, and one search at $10 per 1,000.
            cost: 0.000_05 + 0.000_12 + 0.01,
        },
        Case {
            protocol: protocols::gemini(),
            args: &["--tools", ""],
            reply: gemini_wire::grounded_stream(
                &["Rust 1.95 came out ", "on April 2."],
                &["rust 1.95 release date"],
                &[(RELEASE_URL, RELEASE_TITLE), (LWN_URL, "lwn.net")],
                &[(ANSWER, &[0])],
                gemini_wire::Usage4::new(30, 0, 9, 0),
            ),
            input: json!({"queries": ["rust 1.95 release date"]}),
            model: "gemini-2.5-flash",
            // (30 + 96 search tokens) × $0.30/M + 9 × $2.50/M; grounding is not priced per search.
            cost: 0.000_037_8 + 0.000_022_5,
        },
    ]
}

fn run(home: &Home, protocol: &Protocol, server: &MockServer, args: &[&str]) -> Output {
    home.pincer().provider(protocol, server).args(args).output()
}

/// `--json run --web-search --allow-network PROMPT` on the protocol's model (the search is off
/// while the network is closed), asserting exit 0; the result.
fn searching_run(home: &Home, protocol: &Protocol, server: &MockServer, prompt: &str) -> Value {
    let output = run(
        home,
        protocol,
        server,
        &[
            "--json",
            "run",
            "-m",
            protocol.model,
            "--web-search",
            "--allow-network",
            prompt,
        ],
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    serde_json::from_str(&stdout(&output)).unwrap()
}

/// A workspace with a `notes.md` for the model to read.
fn home_with_notes() -> Home {
    let home = Home::new();
    std::fs::write(home.workspace.join("notes.md"), "release notes to check\n").unwrap();
    home
}

fn lines(output: &Output) -> Vec<Value> {
    stdout(output)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// The assistant messages of the session file.
fn assistant_messages(home: &Home) -> Vec<Value> {
    home.session_lines()
        .into_iter()
        .filter(|line| line["type"] == "message" && line["message"]["role"] == "assistant")
        .map(|line| line["message"].clone())
        .collect()
}

#[test]
fn each_provider_is_asked_for_its_own_search_tool_only_with_web_search() {
    for case in cases() {
        let home = Home::new();
        let server = MockServer::start(vec![
            Reply::sse(&(case.protocol.text)(&["plain"])),
            Reply::sse(&case.reply),
        ]);
        let mut plain = vec!["--json", "run", "-m", case.protocol.model];
        plain.extend(case.args);
        plain.push("hi");
        let output = run(&home, &case.protocol, &server, &plain);
        assert_eq!(
            code(&output),
            0,
            "{}: {}",
            case.protocol.name,
            stderr(&output)
        );
        let mut searching = plain.clone();
        // The search is off while the network is closed: this run opens it.
        searching.insert(4, "--web-search");
        searching.insert(5, "--allow-network");
        let output = run(&home, &case.protocol, &server, &searching);
        assert_eq!(
            code(&output),
            0,
            "{}: {}",
            case.protocol.name,
            stderr(&output)
        );
        let requests = server.requests();
        let (without, with) = (requests[0].json(), requests[1].json());
        let tools = |body: &Value| body["tools"].as_array().cloned().unwrap_or_default();
        match case.protocol.name {
            "anthropic" => {
                let search =
                    json!({"type": "web_search_20250305", "name": "web_search", "max_uses": 5});
                assert!(!tools(&without).contains(&search));
                assert_eq!(tools(&with).last(), Some(&search), "{with}");
                assert_eq!(tools(&with).len(), tools(&without).len() + 1);
            }
            "openai" => {
                assert!(!tools(&without).contains(&json!({"type": "web_search"})));
                assert_eq!(tools(&with).last(), Some(&json!({"type": "web_search"})));
                assert!(
                    with["include"]
                        .as_array()
                        .unwrap()
                        .contains(&json!("web_search_call.action.sources"))
                );
            }
            _ => {
                assert_eq!(without.get("tools"), None, "{without}");
                assert_eq!(with["tools"], json!([{"google_search": {}}]));
            }
        }
    }
}

#[test]
fn a_search_and_its_citations_reach_stream_json_the_session_and_the_usage_on_every_provider() {
    for case in cases() {
        let name = case.protocol.name;
        let home = Home::new();
        let server = MockServer::start(vec![Reply::sse(&case.reply)]);
        let mut args = vec![
            "--output-format",
            "stream-json",
            "run",
            "--include-partial-messages",
            "-m",
            case.protocol.model,
            "--web-search",
            "--allow-network",
        ];
        args.extend(case.args);
        args.push("When did Rust 1.95 come out?");
        let output = run(&home, &case.protocol, &server, &args);
        assert_eq!(code(&output), 0, "{name}: {}", stderr(&output));
        let lines = lines(&output);
        // Every line is one the public schema declares (deny_unknown_fields).
        for line in &lines[..lines.len() - 1] {
            serde_json::from_value::<pincer::output::schema::Line>(line.clone())
                .unwrap_or_else(|error| panic!("{name}: {error}: {line}"));
        }
        let result = lines.last().unwrap();
        serde_json::from_value::<pincer::output::schema::RunResult>(result.clone()).unwrap();
        // The raw events tell the same search: a server_tool_use block and its result block.
        let started: Vec<&Value> = lines
            .iter()
            .filter(|line| line["event"]["type"] == "content_block_start")
            .map(|line| &line["event"]["content_block"]["type"])
            .collect();
        assert!(
            started.contains(&&json!("server_tool_use")),
            "{name}: {started:?}"
        );
        assert!(
            started.contains(&&json!("web_search_tool_result")),
            "{name}: {started:?}"
        );
        assert!(
            lines
                .iter()
                .any(|line| line["event"]["delta"]["type"] == "citations_delta"),
            "{name}"
        );

        let assistant = lines
            .iter()
            .find(|line| line["type"] == "assistant")
            .unwrap();
        let content = assistant["message"]["content"].as_array().unwrap();
        let search = content
            .iter()
            .position(|block| block["type"] == "server_tool_use")
            .unwrap_or_else(|| panic!("{name}: no server_tool_use in {content:?}"));
        let id = content[search]["id"].as_str().unwrap();
        assert_eq!(content[search]["name"], "web_search", "{name}");
        assert_eq!(content[search]["input"], case.input, "{name}");
        let found = &content[search + 1];
        assert_eq!(found["type"], "web_search_tool_result", "{name}");
        assert_eq!(found["tool_use_id"], id, "{name}");
        assert_eq!(found["content"][0]["url"], RELEASE_URL, "{name}");
        assert_eq!(found["content"][1]["url"], LWN_URL, "{name}");
        let text = content
            .iter()
            .find(|block| block["type"] == "text" && block.get("citations").is_some())
            .unwrap_or_else(|| panic!("{name}: no cited text in {content:?}"));
        assert_eq!(
            text["citations"][0]["type"], "web_search_result_location",
            "{name}"
        );
        assert_eq!(text["citations"][0]["url"], RELEASE_URL, "{name}");
        assert_eq!(text["citations"][0]["title"], RELEASE_TITLE, "{name}");
        // No tool of pincer's ran: the search is the provider's.
        assert!(!lines.iter().any(|line| line["type"] == "user"), "{name}");
        // The text blocks as they streamed (Anthropic's intro before the search included).
        assert!(
            result["result"].as_str().unwrap().ends_with(ANSWER),
            "{name}: {}",
            result["result"]
        );

        assert_eq!(
            result["usage"]["server_tool_use"],
            json!({"web_search_requests": 1}),
            "{name}"
        );
        assert_eq!(
            result["modelUsage"][case.model]["webSearchRequests"], 1,
            "{name}"
        );
        let cost = result["total_cost_usd"].as_f64().unwrap();
        assert!(
            (cost - case.cost).abs() < 1e-9,
            "{name}: {cost} != {}",
            case.cost
        );

        let stored = assistant_messages(&home);
        assert_eq!(stored.len(), 1, "{name}");
        let stored_content = stored[0]["content"].as_array().unwrap();
        let call = stored_content
            .iter()
            .find(|block| block["type"] == "serverToolCall")
            .unwrap_or_else(|| panic!("{name}: no serverToolCall in {stored_content:?}"));
        assert_eq!(call["id"], id, "{name}");
        assert_eq!(call["arguments"], case.input, "{name}");
        assert_eq!(call["results"][0]["url"], RELEASE_URL, "{name}");
        let cited = stored_content
            .iter()
            .find(|block| block["type"] == "text" && block.get("citations").is_some())
            .unwrap();
        assert_eq!(cited["citations"][0]["url"], RELEASE_URL, "{name}");
        assert_eq!(stored[0]["usage"]["webSearchRequests"], 1, "{name}");
        assert!(
            !home
                .session_lines()
                .iter()
                .any(|line| line["message"]["role"] == "toolResult"),
            "{name}: a server tool call got a tool result"
        );
    }
}

#[test]
fn anthropic_keeps_the_encrypted_results_and_gets_them_back_with_the_tool_result_of_the_same_answer()
 {
    let home = home_with_notes();
    let protocol = protocols::anthropic();
    let server = MockServer::start(vec![
        Reply::sse(&anthropic_wire::web_search_stream(
            "Searching first.",
            &[release_search("srvtoolu_01Rel")],
            ANSWER,
            Some(("toolu_01Read", "read", r#"{"path":"notes.md"}"#)),
            "tool_use",
            anthropic_usage(),
        )),
        Reply::sse(&(protocol.text)(&["Both agree."])),
    ]);
    let result = searching_run(&home, &protocol, &server, "check");
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let second = requests[1].json();
    let answer = &second["messages"][1];
    assert_eq!(answer["role"], "assistant");
    let types: Vec<&str> = answer["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|block| block["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        types,
        [
            "text",
            "server_tool_use",
            "web_search_tool_result",
            "text",
            "tool_use"
        ]
    );
    let content = &answer["content"];
    assert_eq!(
        content[1],
        json!({"type": "server_tool_use", "id": "srvtoolu_01Rel", "name": "web_search",
               "input": {"query": "rust 1.95 release date"}})
    );
    assert_eq!(content[2]["tool_use_id"], "srvtoolu_01Rel");
    assert_eq!(
        content[2]["content"][1]["encrypted_content"],
        anthropic_wire::encrypted_content("srvtoolu_01Rel", 1)
    );
    assert_eq!(content[2]["content"][0]["page_age"], "April 2, 2026");
    assert_eq!(
        content[3]["citations"][0]["encrypted_index"],
        ENCRYPTED_INDEX
    );
    // Only the client call is answered, and it ran.
    let results = anthropic_wire::tool_results(&second);
    assert_eq!(results.len(), 1, "{results:?}");
    assert!(results["toolu_01Read"].0.contains("release notes to check"));
    assert_eq!(result["usage"]["server_tool_use"]["web_search_requests"], 1);
    assert_eq!(result["num_turns"], 2);
    // `sessions show` lists the search with the call.
    let show = home.run(&["sessions", "show", result["session_id"].as_str().unwrap()]);
    assert_eq!(code(&show), 0, "{}", stderr(&show));
    assert!(
        stdout(&show).contains(
            "Searching first.\n  ⌕ web_search {\"query\":\"rust 1.95 release date\"} (2 results)\n"
        ),
        "{}",
        stdout(&show)
    );
}

#[test]
fn openai_gets_its_search_calls_back_without_ids_and_sources_with_the_function_output() {
    let home = home_with_notes();
    let protocol = protocols::openai();
    let server = MockServer::start(vec![
        Reply::sse(&openai_wire::web_search_stream(
            &[("rust 1.95 release date", &[RELEASE_URL])],
            "Searching done.",
            &[(RELEASE_URL, RELEASE_TITLE)],
            Some(("call_Read1", "read", r#"{"path":"notes.md"}"#)),
            openai_usage(),
        )),
        Reply::sse(&(protocol.text)(&["Both agree."])),
    ]);
    searching_run(&home, &protocol, &server, "check");
    let second = server.requests()[1].json();
    let input = second["input"].as_array().unwrap();
    let echoed = input
        .iter()
        .find(|item| item["type"] == "web_search_call")
        .unwrap_or_else(|| panic!("no web_search_call in {input:?}"));
    assert_eq!(
        echoed,
        &json!({"type": "web_search_call", "status": "completed",
                "action": {"type": "search", "query": "rust 1.95 release date"}})
    );
    let output_item = input
        .iter()
        .find(|item| item["type"] == "function_call_output")
        .unwrap();
    assert_eq!(output_item["call_id"], "call_Read1");
    assert!(
        output_item["output"]
            .as_str()
            .unwrap()
            .contains("release notes to check")
    );
    assert_eq!(
        input
            .iter()
            .filter(|item| item["type"] == "function_call_output")
            .count(),
        1
    );
}

#[test]
fn an_anthropic_pause_turn_is_continued_by_the_next_call_and_both_searches_count() {
    let home = Home::new();
    let protocol = protocols::anthropic();
    let server = MockServer::start(vec![
        Reply::sse(&anthropic_wire::web_search_stream(
            "Looking.",
            &[release_search("srvtoolu_01One")],
            "Found the release notes;",
            None,
            "pause_turn",
            anthropic_usage(),
        )),
        Reply::sse(&anthropic_wire::web_search_stream(
            "Checking once more.",
            &[release_search("srvtoolu_01Two")],
            ANSWER,
            None,
            "end_turn",
            anthropic_usage(),
        )),
    ]);
    let result = searching_run(&home, &protocol, &server, "news");
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "the paused answer is continued");
    let second = requests[1].json();
    let messages = second["messages"].as_array().unwrap();
    // The paused answer is the last message, as it came: the model goes on from there.
    let last = messages.last().unwrap();
    assert_eq!(last["role"], "assistant");
    assert_eq!(last["content"][1]["id"], "srvtoolu_01One");
    assert_eq!(last["content"][2]["type"], "web_search_tool_result");
    assert_eq!(result["num_turns"], 2);
    assert_eq!(result["stop_reason"], "end_turn");
    assert_eq!(result["result"], format!("Checking once more.{ANSWER}"));
    assert_eq!(result["usage"]["server_tool_use"]["web_search_requests"], 2);
    assert_eq!(
        result["modelUsage"]["claude-sonnet-4-5"]["webSearchRequests"],
        2
    );
    assert_eq!(assistant_messages(&home).len(), 2);
}

/// `--web-search` on `protocol`'s model: exit 2 with `error: …` containing `why` and a hint
/// containing `hint`, before anything is sent or created; then `tools.web_search = true` from
/// the config: a warning, and a turn without search. The second run's request body.
fn refused_by_the_flag_warned_by_the_config(protocol: &Protocol, why: &str, hint: &str) -> Value {
    let home = Home::new();
    let server = MockServer::start(vec![Reply::sse(&(protocol.text)(&["from memory"]))]);
    let refused = run(
        &home,
        protocol,
        &server,
        &["run", "-m", protocol.model, "--web-search", "news"],
    );
    assert_eq!(code(&refused), 2, "{}", stderr(&refused));
    let text = stderr(&refused);
    assert!(text.contains(&format!("error: {why}")), "{text}");
    assert!(text.contains(&format!("hint: {hint}")), "{text}");
    assert!(server.requests().is_empty(), "nothing was sent");
    assert!(
        !home.sessions_dir().exists()
            || std::fs::read_dir(home.sessions_dir()).unwrap().count() == 0,
        "no session was created"
    );

    let warned = home
        .pincer()
        .provider(protocol, &server)
        .args(["-c", "tools.web_search=true"])
        .args(["run", "-m", protocol.model, "news"])
        .output();
    assert_eq!(code(&warned), 0, "{}", stderr(&warned));
    assert!(
        stderr(&warned).contains(&format!("{why}; this model runs without web search")),
        "{}",
        stderr(&warned)
    );
    assert_eq!(stdout(&warned).trim(), "from memory");
    server.requests()[0].json()
}

#[test]
fn chat_completions_cannot_search_exit_2_with_the_flag_and_a_warning_with_the_config() {
    let body = refused_by_the_flag_warned_by_the_config(
        &protocols::openai_chat(),
        "web search is not available for 'openai-chat/gpt-4o-mini': the Chat Completions \
         protocol has no server-side search tool",
        "use an anthropic, openai (Responses) or google model",
    );
    assert!(!body.to_string().contains("web_search"), "{body}");
}

#[test]
fn a_model_the_catalog_does_not_mark_is_refused_until_the_config_says_it_searches() {
    let home = Home::new();
    let protocol = protocols::anthropic();
    let server = MockServer::start(vec![Reply::sse(&(protocol.text)(&["ok"]))]);
    let args = [
        "run",
        "-m",
        "anthropic/claude-next-7",
        "--web-search",
        "--allow-network",
        "news",
    ];
    let refused = run(&home, &protocol, &server, &args);
    assert_eq!(code(&refused), 2, "{}", stderr(&refused));
    assert!(
        stderr(&refused).contains(
            "hint: if it does, add `web_search = true` under \
             [providers.anthropic.models.\"claude-next-7\"] in config.toml"
        ),
        "{}",
        stderr(&refused)
    );
    std::fs::write(
        home.home.join("config.toml"),
        "[providers.anthropic.models.\"claude-next-7\"]\nweb_search = true\n",
    )
    .unwrap();
    let allowed = run(&home, &protocol, &server, &args);
    assert_eq!(code(&allowed), 0, "{}", stderr(&allowed));
    let body = server.requests()[0].json();
    assert_eq!(
        body["tools"].as_array().unwrap().last().unwrap()["type"],
        "web_search_20250305"
    );
}

#[test]
fn gemini_2_5_searches_only_without_function_tools() {
    // From the config, the tools win and the search is left out.
    let body = refused_by_the_flag_warned_by_the_config(
        &protocols::gemini(),
        "'google/gemini-2.5-flash' cannot search the web in a request that also offers tools \
         (the provider refuses its search beside function calling)",
        "run it with `--tools ''` to let it search",
    );
    assert_eq!(body["tools"].as_array().unwrap().len(), 1, "{body}");
    assert!(body["tools"][0].get("functionDeclarations").is_some());
}

#[test]
fn under_network_rules_the_web_search_is_on_only_when_they_allow_the_providers_host() {
    // Issue #50: a provider-side web tool follows the network rules; the provider's API host
    // (here the mock's) stands for its search.
    let home = Home::new();
    let protocol = protocols::anthropic();
    let server = MockServer::start(vec![
        Reply::sse(&(protocol.text)(&["from memory"])),
        Reply::sse(&(protocol.text)(&["searched"])),
    ]);
    let limited = home
        .pincer()
        .provider(&protocol, &server)
        .args(["run", "-m", protocol.model, "--web-search"])
        .args(["--allow-host", "registry.npmjs.org", "news"])
        .output();
    assert_eq!(code(&limited), 0, "{}", stderr(&limited));
    assert!(
        stderr(&limited)
            .contains("web search is off for anthropic/claude-sonnet-4-5: the network rules"),
        "{}",
        stderr(&limited)
    );
    let body = server.requests()[0].json();
    assert!(!body.to_string().contains("web_search"), "{body}");

    let host = server.url().trim_start_matches("http://").to_owned();
    let allowed = home
        .pincer()
        .provider(&protocol, &server)
        .args(["run", "-m", protocol.model, "--web-search"])
        .args(["--allow-host", &host, "news"])
        .output();
    assert_eq!(code(&allowed), 0, "{}", stderr(&allowed));
    let body = server.requests()[1].json();
    assert_eq!(
        body["tools"].as_array().unwrap().last().unwrap()["type"],
        "web_search_20250305"
    );
}

#[test]
fn with_the_network_closed_the_web_search_is_off_with_one_warning_naming_what_turns_it_on() {
    // Issue #50: "with the network off or limited, a provider-side web tool is off unless its
    // host is allowed". The default sandbox closes the network: the search, which reaches the
    // web for the model from the provider's side, is left out of the request and --dry-run.
    let home = Home::new();
    let protocol = protocols::anthropic();
    let server = MockServer::start(vec![
        Reply::sse(&(protocol.text)(&["from memory"])),
        Reply::sse(&(protocol.text)(&["searched"])),
    ]);
    let host = server.url().trim_start_matches("http://").to_owned();
    let name = host.rsplit_once(':').unwrap().0.to_owned();
    let stream = [
        "--output-format",
        "stream-json",
        "run",
        "-m",
        protocol.model,
    ];
    let closed = run(
        &home,
        &protocol,
        &server,
        &[&stream[..], &["--web-search", "news"]].concat(),
    );
    assert_eq!(code(&closed), 0, "{}", stderr(&closed));
    let init = |output: &Output| {
        lines(output)
            .into_iter()
            .find(|line| line["subtype"] == "init")
            .unwrap()
    };
    assert_eq!(init(&closed)["sandbox"]["web_search"], "off");
    let said = stderr(&closed);
    assert_eq!(said.matches("web search is off").count(), 1, "{said}");
    assert!(
        said.contains(&format!(
            "web search is off for anthropic/claude-sonnet-4-5: the sandbox closes the network, \
             and the provider's web search reaches the web for the model (--allow-host {name}, \
             the host that stands for it, turns it on; so do --allow-network and --sandbox \
             danger-full-access)"
        )),
        "{said}"
    );
    let body = server.requests()[0].json();
    assert!(!body.to_string().contains("web_search"), "{body}");
    let dry_run = run(
        &home,
        &protocol,
        &server,
        &[
            "run",
            "-m",
            protocol.model,
            "--web-search",
            "--dry-run",
            "news",
        ],
    );
    assert_eq!(code(&dry_run), 0, "{}", stderr(&dry_run));
    let report: Value = serde_json::from_str(&stdout(&dry_run)).unwrap();
    assert!(
        !report["body"].to_string().contains("web_search"),
        "{report}"
    );

    // The host that stands for the search, allowed: on.
    let allowed = run(
        &home,
        &protocol,
        &server,
        &[
            &stream[..],
            &["--web-search", "--allow-host", &host, "news"],
        ]
        .concat(),
    );
    assert_eq!(code(&allowed), 0, "{}", stderr(&allowed));
    assert_eq!(init(&allowed)["sandbox"]["web_search"], "on");
    assert!(
        !stderr(&allowed).contains("web search is off"),
        "{}",
        stderr(&allowed)
    );
    let body = server.requests()[1].json();
    assert_eq!(
        body["tools"].as_array().unwrap().last().unwrap()["type"],
        "web_search_20250305"
    );
}
