//! Record and replay (SPEC §15): a run recorded against the mock (or the fake CLIs) replays from
//! its cassette in a fresh home with no key, printing the same answer and writing the same
//! session, with every base URL and proxy pointed at a listener that must never see a
//! connection; a changed request misses with exit 2 and a diff; retries, fallbacks,
//! compaction and `auth test` replay the same way; keys never reach the cassette.
//!
//! "The same session" means: the same entries in the same order with the same content, once
//! entry ids, parent ids, timestamps, the session id and the workspace path are masked.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::common::mock::{MockServer, Reply};
use crate::common::protocols::{self, Protocol};
use crate::common::wire::{anthropic, openai};
use crate::common::{Home, code, stderr, stdout};

const KEY: &str = "sk-test-REPLAYKEY-5e4d3c2b1a09";

/// A loopback listener that counts the connections it gets: a replay must make none.
struct Tripwire {
    url: String,
    hits: Arc<AtomicUsize>,
}

impl Tripwire {
    fn start() -> Tripwire {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let hits = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&hits);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                counter.fetch_add(1, Ordering::SeqCst);
                drop(stream);
            }
        });
        Tripwire { url, hits }
    }

    fn assert_untouched(&self, label: &str) {
        assert_eq!(
            self.hits.load(Ordering::SeqCst),
            0,
            "{label}: the replay connected"
        );
    }
}

/// pincer in `home` with no key at all, every provider's base URL and every proxy variable at
/// the tripwire.
fn replayer(home: &Home, tripwire: &Tripwire) -> std::process::Command {
    let mut command = home.pincer().command();
    command.env("TMPDIR", home.root.path());
    for variable in [
        "ANTHROPIC_BASE_URL",
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
    ] {
        command.env(variable, &tripwire.url);
    }
    command
        .env("OPENAI_BASE_URL", format!("{}/v1", tripwire.url))
        .env("GEMINI_BASE_URL", format!("{}/v1beta", tripwire.url));
    command
}

fn cassette_in(home: &Home) -> PathBuf {
    home.root.path().join("run.cassette.jsonl")
}

/// The same workspace files in a second home.
fn seed_workspace(home: &Home) {
    std::fs::write(home.workspace.join("notes.txt"), "remember the milk\n").unwrap();
    std::fs::create_dir_all(home.workspace.join("src")).unwrap();
}

/// The session files' entries with what differs between runs masked.
fn session_entries(home: &Home) -> Vec<Value> {
    let workspace = home.workspace.to_string_lossy().into_owned();
    let mut files: Vec<PathBuf> = std::fs::read_dir(home.sessions_dir())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
        .collect();
    files.sort();
    let mut entries = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(file)
            .unwrap()
            .replace(&workspace, "<workspace>");
        for line in text.lines() {
            let mut entry: Value = serde_json::from_str(line).unwrap();
            mask(&mut entry);
            entries.push(entry);
        }
    }
    entries
}

/// `entries` as a comparison with the recorded session sees them: what a replay adds by design
/// left out — the `pincer.replayed` entry after each replayed call (a replay calls no model)
/// and the cost of each assistant message (nothing when replayed).
fn as_recorded(entries: Vec<Value>) -> Vec<Value> {
    entries
        .into_iter()
        .filter(|entry| entry["customType"] != "pincer.replayed")
        .map(|mut entry| {
            if let Some(usage) = entry.pointer_mut("/message/usage")
                && usage.get("cost").is_some()
            {
                usage["cost"] = json!("<cost>");
            }
            entry
        })
        .collect()
}

/// How many `pincer.replayed` entries `entries` has.
fn replay_marks(entries: &[Value]) -> usize {
    entries
        .iter()
        .filter(|entry| entry["customType"] == "pincer.replayed")
        .count()
}

fn mask(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, item) in map.iter_mut() {
                if matches!(key.as_str(), "id" | "parentId" | "timestamp" | "sessionId")
                    && !item.is_object()
                {
                    *item = json!("<masked>");
                } else {
                    mask(item);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(mask),
        _ => {}
    }
}

fn cassette_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// A tool turn: `ls .`, then an answer.
fn tool_turn(protocol: &Protocol) -> Vec<Reply> {
    vec![
        Reply::sse(&(protocol.tool_call)(
            "call_ls_1",
            "ls",
            &json!({"path": "."}),
        )),
        Reply::sse(&(protocol.text)(&["Two entries: ", "notes.txt and src/."])),
    ]
}

fn record(home: &Home, protocol: &Protocol, replies: Vec<Reply>, args: &[&str]) -> Output {
    let server = MockServer::start(replies);
    let cassette = cassette_in(home);
    let mut command = home
        .pincer()
        .provider(protocol, &server)
        .key(protocol, KEY)
        .command();
    command.args(args).arg("--record").arg(&cassette);
    command.output().unwrap()
}

#[test]
fn a_recorded_tool_turn_replays_identically_on_every_protocol_with_no_key_and_no_network() {
    for protocol in protocols::all() {
        let recorded_home = Home::new();
        seed_workspace(&recorded_home);
        let args = ["run", "-m", protocol.model, "what is in this directory?"];
        let recorded = record(&recorded_home, &protocol, tool_turn(&protocol), &args);
        assert_eq!(
            code(&recorded),
            0,
            "{}: {}",
            protocol.name,
            stderr(&recorded)
        );
        let cassette = cassette_in(&recorded_home);
        let lines = cassette_lines(&cassette);
        assert_eq!(
            lines.len(),
            3,
            "{}: header and two exchanges",
            protocol.name
        );
        assert_eq!(lines[0]["type"], "cassette");
        assert_eq!(lines[0]["version"], 1);
        assert_eq!(lines[1]["type"], "http");
        assert_eq!(lines[1]["status"], 200);

        let home = Home::new();
        seed_workspace(&home);
        let tripwire = Tripwire::start();
        // No -m: the cassette names the model.
        let replayed = replayer(&home, &tripwire)
            .arg("run")
            .arg("--replay")
            .arg(&cassette)
            .arg("what is in this directory?")
            .output()
            .unwrap();
        tripwire.assert_untouched(protocol.name);
        assert_eq!(
            code(&replayed),
            0,
            "{}: {}",
            protocol.name,
            stderr(&replayed)
        );
        assert_eq!(stdout(&replayed), stdout(&recorded), "{}", protocol.name);
        assert_eq!(stdout(&replayed), "Two entries: notes.txt and src/.\n");
        let replayed_entries = session_entries(&home);
        assert_eq!(replay_marks(&replayed_entries), 2, "{}", protocol.name);
        assert_eq!(
            as_recorded(replayed_entries),
            as_recorded(session_entries(&recorded_home)),
            "{}",
            protocol.name
        );
        // The tool really ran during the replay: its result is in the session.
        let session = serde_json::to_string(&session_entries(&home)).unwrap();
        assert!(session.contains("notes.txt\\nsrc/"), "{session}");
    }
}

#[test]
fn a_changed_prompt_misses_with_exit_2_and_a_diff_against_the_nearest_request() {
    let protocol = protocols::anthropic();
    let recorded_home = Home::new();
    let recorded = record(
        &recorded_home,
        &protocol,
        vec![Reply::sse(&(protocol.text)(&["Fine."]))],
        &["run", "-m", protocol.model, "summarize the build log"],
    );
    assert_eq!(code(&recorded), 0, "{}", stderr(&recorded));
    let cassette = cassette_in(&recorded_home);

    let home = Home::new();
    let tripwire = Tripwire::start();
    let output = replayer(&home, &tripwire)
        .arg("--json")
        .arg("run")
        .arg("--replay")
        .arg(&cassette)
        .arg("summarize the test log")
        .output()
        .unwrap();
    tripwire.assert_untouched("miss");
    assert_eq!(code(&output), 2, "{}", stderr(&output));
    let text = stderr(&output);
    assert!(
        text.contains(
            "error: replay: request 1 (http anthropic /v1/messages) matches no unused interaction"
        ),
        "{text}"
    );
    assert!(
        text.contains("the nearest recorded request is line 2"),
        "{text}"
    );
    assert!(text.contains("\n-"), "{text}");
    assert!(text.contains("summarize the build log"), "{text}");
    assert!(text.contains("summarize the test log"), "{text}");
    let result: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(result["is_error"], true);
    assert_eq!(result["error"]["kind"], "cassette");

    // Lenient mode takes the interaction in order whatever the prompt.
    let lenient = replayer(&home, &tripwire)
        .arg("run")
        .arg("--replay")
        .arg(&cassette)
        .args(["--replay-mode", "lenient", "anything at all"])
        .output()
        .unwrap();
    tripwire.assert_untouched("lenient");
    assert_eq!(code(&lenient), 0, "{}", stderr(&lenient));
    assert_eq!(stdout(&lenient), "Fine.\n");
}

#[test]
fn a_recorded_retry_and_a_recorded_fallback_replay_the_same_way() {
    let protocol = protocols::anthropic();
    // A 429 then the answer: two interactions, the retry's wait skipped on replay.
    let recorded_home = Home::new();
    let rate_limited = Reply::json(429, &(protocol.error_body)(429)).header("retry-after", "0");
    let recorded = record(
        &recorded_home,
        &protocol,
        vec![
            rate_limited,
            Reply::sse(&(protocol.text)(&["after ", "a retry"])),
        ],
        &[
            "--output-format",
            "stream-json",
            "run",
            "-m",
            protocol.model,
            "go",
        ],
    );
    assert_eq!(code(&recorded), 0, "{}", stderr(&recorded));
    let cassette = cassette_in(&recorded_home);
    let lines = cassette_lines(&cassette);
    assert_eq!(lines[1]["status"], 429);
    assert_eq!(lines[1]["headers"]["retry-after"], "0");
    assert_eq!(lines[2]["status"], 200);
    let home = Home::new();
    let tripwire = Tripwire::start();
    let replayed = replayer(&home, &tripwire)
        .args(["--output-format", "stream-json", "run", "--replay"])
        .arg(&cassette)
        .arg("go")
        .output()
        .unwrap();
    tripwire.assert_untouched("retry");
    assert_eq!(code(&replayed), 0, "{}", stderr(&replayed));
    let subtypes = |output: &Output| -> Vec<String> {
        stdout(output)
            .lines()
            .map(|line| serde_json::from_str::<Value>(line).unwrap())
            .map(|event| format!("{}/{}", event["type"], event["subtype"]))
            .collect()
    };
    assert_eq!(subtypes(&replayed), subtypes(&recorded));
    assert!(stdout(&replayed).contains("\"subtype\":\"api_retry\""));
    let result = |output: &Output| -> Value {
        serde_json::from_str(stdout(output).lines().last().unwrap()).unwrap()
    };
    assert_eq!(result(&replayed)["result"], "after a retry");
    assert_eq!(
        result(&replayed)["num_turns"],
        result(&recorded)["num_turns"]
    );

    // The primary overloaded twice, then the fallback model answers.
    let recorded_home = Home::new();
    let anthropic_server = MockServer::start(vec![
        Reply::json(529, &(protocol.error_body)(529)),
        Reply::json(529, &(protocol.error_body)(529)),
    ]);
    let openai_server = MockServer::start(vec![Reply::sse(&openai::text_stream(
        &["from the fallback"],
        openai::Usage4 {
            input_total: 30,
            cached: 0,
            output: 4,
            reasoning: 0,
        },
    ))]);
    let cassette = cassette_in(&recorded_home);
    let mut command = recorded_home
        .pincer()
        .provider(&protocol, &anthropic_server)
        .key(&protocol, KEY)
        .command();
    command
        .env("OPENAI_API_KEY", KEY)
        .env("OPENAI_BASE_URL", format!("{}/v1", openai_server.url()));
    let fallback_args = [
        "-c",
        "retry.max_retries=1",
        "run",
        "-m",
        protocol.model,
        "--fallback-model",
        "openai/gpt-5",
        "go",
    ];
    command.args(fallback_args).arg("--record").arg(&cassette);
    let recorded = command.output().unwrap();
    assert_eq!(code(&recorded), 0, "{}", stderr(&recorded));
    assert_eq!(stdout(&recorded), "from the fallback\n");
    let providers: Vec<Value> = cassette_lines(&cassette)[1..]
        .iter()
        .map(|line| json!([line["provider"], line["status"]]))
        .collect();
    assert_eq!(
        providers,
        [
            json!(["anthropic", 529]),
            json!(["anthropic", 529]),
            json!(["openai", 200])
        ]
    );
    let home = Home::new();
    let tripwire = Tripwire::start();
    let replayed = replayer(&home, &tripwire)
        .args(&fallback_args[..fallback_args.len() - 1])
        .arg("--replay")
        .arg(&cassette)
        .arg("go")
        .output()
        .unwrap();
    tripwire.assert_untouched("fallback");
    assert_eq!(code(&replayed), 0, "{}", stderr(&replayed));
    assert_eq!(stdout(&replayed), "from the fallback\n");
    assert!(
        stderr(&replayed).contains("trying openai/gpt-5"),
        "{}",
        stderr(&replayed)
    );
    assert_eq!(
        as_recorded(session_entries(&home)),
        as_recorded(session_entries(&recorded_home))
    );
}

#[test]
fn keys_never_reach_the_cassette_in_any_form() {
    use base64::Engine as _;
    let protocol = protocols::anthropic();
    let home = Home::new();
    const PROFILE_KEY: &str = "sk-ant-PROFILE-REPLAY-0a1b2c3d4e5f";
    home.add_profile("anthropic", "work", PROFILE_KEY);
    std::fs::write(
        home.workspace.join(".env"),
        format!("A={KEY}\nB={PROFILE_KEY}\n"),
    )
    .unwrap();
    let command_line = "printf '%s' \"$ANTHROPIC_API_KEY\" | base64; cat .env | od -An -tx1";
    let replies = vec![
        Reply::sse(&anthropic::tool_use_stream(
            Some("Checking."),
            &[
                ("toolu_read", "read", &json!({"path": ".env"}).to_string()),
                (
                    "toolu_exec",
                    "exec",
                    &json!({"command": command_line}).to_string(),
                ),
            ],
            anthropic::Usage4 {
                input: 40,
                output: 10,
                cache_read: 0,
                cache_write: 0,
            },
        )),
        // The model itself repeats the key: the cassette must not keep it either.
        Reply::sse(&(protocol.text)(&["The key is ", KEY, "."])),
    ];
    let output = record(
        &home,
        &protocol,
        replies,
        &[
            "run",
            "-m",
            protocol.model,
            "--auth-profile",
            "anthropic:work",
            "check",
        ],
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let text = std::fs::read_to_string(cassette_in(&home)).unwrap();
    assert!(text.contains("[REDACTED]"), "{text}");
    for key in [KEY, PROFILE_KEY] {
        let hex: String = key.bytes().map(|byte| format!("{byte:02x}")).collect();
        let spaced: String = key.bytes().map(|byte| format!(" {byte:02x}")).collect();
        for form in [
            key.to_owned(),
            key[..20].to_owned(),
            base64::engine::general_purpose::STANDARD.encode(key),
            hex,
            spaced,
            key.bytes().map(|byte| format!("%{byte:02X}")).collect(),
        ] {
            assert!(!text.contains(&form), "{form} in the cassette:\n{text}");
        }
    }
    // The auth header was never written, and neither was any other request header.
    assert!(!text.contains("x-api-key"), "{text}");
}

#[test]
fn a_cassette_that_cannot_be_read_is_exit_2_naming_the_line_and_nothing_is_created() {
    let home = Home::new();
    let path = home.root.path().join("bad.jsonl");
    std::fs::write(
        &path,
        "{\"type\":\"cassette\",\"version\":1}\n{\"type\":\"http\",\"provider\":\n",
    )
    .unwrap();
    let tripwire = Tripwire::start();
    let output = replayer(&home, &tripwire)
        .arg("run")
        .arg("--replay")
        .arg(&path)
        .arg("hi")
        .output()
        .unwrap();
    assert_eq!(code(&output), 2);
    let text = stderr(&output);
    assert!(
        text.contains(&format!("error: cassette '{}' line 2: ", path.display())),
        "{text}"
    );
    assert!(text.contains("hint: "), "{text}");
    assert!(!home.sessions_dir().exists(), "a session was created");

    let missing = replayer(&home, &tripwire)
        .args(["run", "--replay", "/nonexistent/cassette.jsonl", "hi"])
        .output()
        .unwrap();
    assert_eq!(code(&missing), 2);
    assert!(
        stderr(&missing).contains("cannot read the cassette '/nonexistent/cassette.jsonl'"),
        "{}",
        stderr(&missing)
    );
    // A file that is not a cassette is not appended to by --record either.
    let session = home.root.path().join("session.jsonl");
    std::fs::write(&session, "{\"type\":\"session\",\"version\":3}\n").unwrap();
    let refused = home
        .pincer()
        .command()
        .arg("run")
        .arg("--record")
        .arg(&session)
        .arg("hi")
        .output()
        .unwrap();
    assert_eq!(code(&refused), 2, "{}", stderr(&refused));
    assert!(
        stderr(&refused).contains("line 1: not a cassette"),
        "{}",
        stderr(&refused)
    );
    assert_eq!(
        std::fs::read_to_string(&session).unwrap(),
        "{\"type\":\"session\",\"version\":3}\n"
    );
    tripwire.assert_untouched("bad cassettes");
}

#[test]
fn environment_variables_name_the_cassette_like_the_flags() {
    let protocol = protocols::anthropic();
    let recorded_home = Home::new();
    let server = MockServer::start(vec![Reply::sse(&(protocol.text)(&["Via the env."]))]);
    let cassette = cassette_in(&recorded_home);
    let mut command = recorded_home
        .pincer()
        .provider(&protocol, &server)
        .key(&protocol, KEY)
        .command();
    command.env("PINCER_RECORD", &cassette);
    let recorded = command
        .args(["run", "-m", protocol.model, "hello"])
        .output()
        .unwrap();
    assert_eq!(code(&recorded), 0, "{}", stderr(&recorded));
    let home = Home::new();
    let tripwire = Tripwire::start();
    let replayed = replayer(&home, &tripwire)
        .env("PINCER_REPLAY", &cassette)
        .args(["run", "hello"])
        .output()
        .unwrap();
    tripwire.assert_untouched("env");
    assert_eq!(code(&replayed), 0, "{}", stderr(&replayed));
    assert_eq!(stdout(&replayed), "Via the env.\n");

    // An empty variable counts as unset; a flag wins over the other mode's variable, and a dry
    // run records nothing.
    let empty = home
        .pincer()
        .command()
        .env("PINCER_RECORD", "")
        .env("PINCER_REPLAY", "")
        .args(["run", "--dry-run", "-m", protocol.model, "hello"])
        .output()
        .unwrap();
    assert_eq!(code(&empty), 0, "{}", stderr(&empty));
    let other = home.root.path().join("other.jsonl");
    let flag_wins = home
        .pincer()
        .command()
        .env("PINCER_REPLAY", &cassette)
        .args([
            "run",
            "--dry-run",
            "-m",
            protocol.model,
            "hello",
            "--record",
        ])
        .arg(&other)
        .output()
        .unwrap();
    assert_eq!(code(&flag_wins), 0, "{}", stderr(&flag_wins));
    assert!(!other.exists(), "a dry run created the cassette");
    // Both modes at once, by flags or by variables, is a usage error.
    let mut by_variables = home.pincer().command();
    by_variables
        .env("PINCER_REPLAY", &cassette)
        .env("PINCER_RECORD", &other)
        .args(["run", "hello"]);
    let mut by_flags = home.pincer().command();
    by_flags.args(["run", "--record", "a.jsonl", "--replay", "b.jsonl", "hello"]);
    for mut both in [by_variables, by_flags] {
        let output = both.output().unwrap();
        assert_eq!(code(&output), 2);
        assert!(
            stderr(&output).contains("cannot be used with"),
            "{}",
            stderr(&output)
        );
    }
}

#[test]
fn replay_pace_keeps_the_recorded_timing_and_the_default_does_not_wait() {
    let protocol = protocols::anthropic();
    let recorded_home = Home::new();
    let slow = Reply::sse(&(protocol.text)(&["one ", "two ", "three"]))
        .paced(std::time::Duration::from_millis(120));
    let recorded = record(
        &recorded_home,
        &protocol,
        vec![slow],
        &["run", "-m", protocol.model, "count"],
    );
    assert_eq!(code(&recorded), 0, "{}", stderr(&recorded));
    let cassette = cassette_in(&recorded_home);
    let lines = cassette_lines(&cassette);
    let last_chunk = lines[1]["chunks"].as_array().unwrap().last().unwrap()["ms"]
        .as_u64()
        .unwrap();
    assert!(
        last_chunk >= 600,
        "recorded offsets: {}",
        lines[1]["chunks"]
    );

    let home = Home::new();
    let tripwire = Tripwire::start();
    let timed = |extra: &[&str]| {
        let started = std::time::Instant::now();
        let output = replayer(&home, &tripwire)
            .arg("run")
            .arg("--replay")
            .arg(&cassette)
            .args(extra)
            .arg("count")
            .output()
            .unwrap();
        assert_eq!(code(&output), 0, "{}", stderr(&output));
        assert_eq!(stdout(&output), "one two three\n");
        started.elapsed()
    };
    let paced = timed(&["--replay-pace"]);
    let fast = timed(&[]);
    tripwire.assert_untouched("pace");
    assert!(
        paced.as_millis() >= u128::from(last_chunk),
        "paced replay took {paced:?}, the recording {last_chunk} ms"
    );
    assert!(fast < paced / 2, "fast {fast:?}, paced {paced:?}");
}

#[test]
fn compaction_and_auth_test_calls_are_recorded_and_replayed() {
    let protocol = protocols::anthropic();
    let home = Home::new();
    let server = MockServer::start(vec![
        Reply::sse(&(protocol.text)(&["First answer about the parser."])),
        Reply::sse(&(protocol.text)(&["Second answer."])),
    ]);
    for prompt in ["first question about the parser", "a second question"] {
        let mut command = home
            .pincer()
            .provider(&protocol, &server)
            .key(&protocol, KEY)
            .command();
        command.args(["-c", "compaction.keep_recent_tokens=5"]);
        let args = if prompt.starts_with("first") {
            vec!["run", "-m", protocol.model, "--name", "long", prompt]
        } else {
            vec!["resume", "long", prompt]
        };
        let output = command.args(&args).output().unwrap();
        assert_eq!(code(&output), 0, "{}", stderr(&output));
    }
    let session_file = std::fs::read_dir(home.sessions_dir())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .find(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
        .unwrap();
    let before = std::fs::read(&session_file).unwrap();

    let summarizer = MockServer::start(vec![Reply::sse(&(protocol.text)(&[
        "## Goal\nShip the parser.",
    ]))]);
    let cassette = cassette_in(&home);
    let mut command = home
        .pincer()
        .provider(&protocol, &summarizer)
        .key(&protocol, KEY)
        .command();
    command
        .args(["-c", "compaction.keep_recent_tokens=5"])
        .arg("--json");
    let compact_args = ["compact", "long"];
    let mut recorded_command = command;
    recorded_command
        .args(compact_args)
        .arg("--record")
        .arg(&cassette);
    let recorded = recorded_command.output().unwrap();
    assert_eq!(code(&recorded), 0, "{}", stderr(&recorded));
    let after_recording = session_entries(&home);
    assert_eq!(cassette_lines(&cassette).len(), 2);

    // The same compaction again from the untouched session, with no key and no network.
    std::fs::write(&session_file, &before).unwrap();
    let tripwire = Tripwire::start();
    let replayed = replayer(&home, &tripwire)
        .args(["-c", "compaction.keep_recent_tokens=5", "--json"])
        .args(compact_args)
        .arg("--replay")
        .arg(&cassette)
        .output()
        .unwrap();
    tripwire.assert_untouched("compact");
    assert_eq!(code(&replayed), 0, "{}", stderr(&replayed));
    let report = |output: &Output| -> Value {
        let mut value: Value = serde_json::from_str(&stdout(output)).unwrap();
        mask(&mut value);
        value
    };
    assert_eq!(report(&replayed), report(&recorded));
    assert_eq!(session_entries(&home), after_recording);

    // `auth test`: one probe recorded with a key, replayed with none.
    let probe = MockServer::start(vec![Reply::sse(&(protocol.text)(&["OK"]))]);
    let auth_cassette = home.root.path().join("auth.cassette.jsonl");
    let mut command = home
        .pincer()
        .provider(&protocol, &probe)
        .key(&protocol, KEY)
        .command();
    command
        .args(["--json", "auth", "test", "anthropic", "--record"])
        .arg(&auth_cassette);
    let recorded = command.output().unwrap();
    assert_eq!(code(&recorded), 0, "{}", stderr(&recorded));
    let replayed = replayer(&home, &tripwire)
        .args(["--json", "auth", "test", "anthropic", "--replay"])
        .arg(&auth_cassette)
        .output()
        .unwrap();
    tripwire.assert_untouched("auth test");
    assert_eq!(code(&replayed), 0, "{}", stderr(&replayed));
    let result: Value = serde_json::from_str(&stdout(&replayed)).unwrap();
    assert_eq!(result["results"][0]["ok"], true, "{result}");
    assert_eq!(result["results"][0]["model"], "anthropic/claude-haiku-4-5");
}

#[test]
fn recorded_cli_turns_replay_identically_without_the_binary() {
    use crate::suite::backends::Bench;
    for (backend, model) in [
        ("claude-cli", "claude-cli/sonnet"),
        ("codex-cli", "codex-cli/gpt-5-codex"),
    ] {
        let bench = Bench::new();
        let cassette = cassette_in(&bench.home);
        let record_arg = cassette.to_string_lossy().into_owned();
        let first = bench.run(
            backend,
            &["tool-turn.jsonl"],
            &[
                "run",
                "-m",
                model,
                "--name",
                "cli",
                "list files",
                "--record",
                &record_arg,
            ],
        );
        assert_eq!(code(&first), 0, "{backend}: {}", stderr(&first));
        let second = bench.run(
            backend,
            &["second-turn.jsonl"],
            &["resume", "cli", "count them", "--record", &record_arg],
        );
        assert_eq!(code(&second), 0, "{backend}: {}", stderr(&second));
        let lines = cassette_lines(&cassette);
        assert_eq!(lines.len(), 3, "{backend}: one header, two child runs");
        assert_eq!(lines[1]["type"], "child");
        assert_eq!(lines[1]["provider"], backend);
        assert_eq!(lines[1]["end"]["reason"], "exit");
        assert_eq!(lines[1]["end"]["code"], 0);
        assert!(
            lines[1]["request"]["files"]["system-prompt.md"]
                .as_str()
                .unwrap()
                .contains("## Runtime"),
            "{backend}: {}",
            lines[1]["request"]
        );

        let home = Home::new();
        let tripwire = Tripwire::start();
        let missing = format!("backends.{backend}.command=\"/nonexistent/{backend}\"");
        let replay = |args: &[&str]| {
            replayer(&home, &tripwire)
                .args(["-c", &missing])
                .args(args)
                .arg("--replay")
                .arg(&cassette)
                .output()
                .unwrap()
        };
        let replayed_first = replay(&["run", "--name", "cli", "list files"]);
        assert_eq!(
            code(&replayed_first),
            0,
            "{backend}: {}",
            stderr(&replayed_first)
        );
        let replayed_second = replay(&["resume", "cli", "count them"]);
        assert_eq!(
            code(&replayed_second),
            0,
            "{backend}: {}",
            stderr(&replayed_second)
        );
        tripwire.assert_untouched(backend);
        assert_eq!(stdout(&replayed_first), stdout(&first), "{backend}");
        assert_eq!(stdout(&replayed_second), stdout(&second), "{backend}");
        let entries = session_entries(&home);
        assert_eq!(entries, session_entries(&bench.home), "{backend}");
        let custom = format!("pincer.{backend}");
        assert!(
            entries
                .iter()
                .any(|entry| entry["customType"] == custom.as_str()),
            "{backend}: {entries:?}"
        );
        // A changed prompt misses, without starting the binary either.
        let miss = replay(&["run", "list every file"]);
        assert_eq!(code(&miss), 2, "{backend}: {}", stderr(&miss));
        assert!(
            stderr(&miss).contains(&format!("(child {backend}) matches no unused interaction")),
            "{backend}: {}",
            stderr(&miss)
        );
        assert!(!stderr(&miss).contains("cannot start"), "{}", stderr(&miss));
    }
}

/// The first command of the README's quick start, split into words (double quotes group).
fn quickstart_command() -> Vec<String> {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let section = &readme[readme.find("\n## Quick start").unwrap()..];
    let block = &section[section.find("```console\n").unwrap() + 11..];
    let line = block
        .lines()
        .find_map(|line| line.strip_prefix("$ "))
        .unwrap();
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    for character in line.chars() {
        match character {
            '"' => quoted = !quoted,
            ' ' if !quoted => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            '#' if !quoted && word.is_empty() => break,
            other => word.push(other),
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

#[test]
fn the_readme_quick_start_runs_a_tool_turn_with_no_key_and_no_network_from_any_directory() {
    let command = quickstart_command();
    assert_eq!(
        command[..5],
        [
            "pincer",
            "run",
            "--replay",
            "examples/quickstart.cassette.jsonl",
            "--replay-mode"
        ]
    );
    let repository = Path::new(env!("CARGO_MANIFEST_DIR"));
    let home = Home::new();
    let tripwire = Tripwire::start();
    let output = replayer(&home, &tripwire)
        .current_dir(repository)
        .args(&command[1..])
        .output()
        .unwrap();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let answer = stdout(&output);
    assert!(
        answer.contains("replayed from examples/quickstart.cassette.jsonl: no key, no network"),
        "{answer}"
    );
    // Both tools ran on the repository itself.
    let session = serde_json::to_string(&session_entries(&home)).unwrap();
    assert!(session.contains("Cargo.toml"), "ls ran: {session}");
    assert!(session.contains("# pincer"), "read README.md: {session}");

    // From a directory that holds nothing (no README.md: the read fails, the turn goes on).
    let elsewhere = Home::new();
    let cassette = repository.join("examples/quickstart.cassette.jsonl");
    let mut args: Vec<std::ffi::OsString> = command[1..].iter().map(Into::into).collect();
    args[2] = cassette.into_os_string();
    let output = replayer(&elsewhere, &tripwire)
        .args(&args)
        .output()
        .unwrap();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(stdout(&output), answer);
    tripwire.assert_untouched("quickstart");
}
