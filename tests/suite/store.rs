//! Sessions across machines (SPEC §19, issue #49): `run` and `resume` against a session store.
//! Two `PINCER_HOME`s stand for two machines sharing one store; the store is a real
//! S3-compatible server (moto, started by the tests: `tests/common/s3.rs`), Azure's blob
//! service (Azurite) for `az://`, or `memory://` where one process suffices.

use std::process::{Child, Output};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::mock::{Body, Gate, MockServer, Piece, Reply};
use crate::common::protocols;
use crate::common::s3::{S3Server, S3Store};
use crate::common::wire::anthropic as wire;
use crate::common::{Home, code, stderr, stdout};

const MODEL: &str = "anthropic/claude-sonnet-4-5";

fn usage() -> wire::Usage4 {
    wire::Usage4 {
        input: 40,
        output: 10,
        cache_read: 0,
        cache_write: 0,
    }
}

/// The variables a store reads its credentials from, with distinctive values.
const STORE_CREDENTIALS: [(&str, &str); 4] = [
    ("AWS_SECRET_ACCESS_KEY", "store-secret-7f3a9c1e"),
    ("AWS_SESSION_TOKEN", "store-token-2b8d4e6f"),
    ("GOOGLE_SERVICE_ACCOUNT_KEY", "store-gcp-5a1c3e7b"),
    ("AZURE_STORAGE_ACCOUNT_KEY", "store-azure-9e2f4a6c"),
];

/// Issue #49: the store's credential variables join the list removed from every child's
/// environment, whenever pincer runs (with a store or not): a tool's `env` and a hook's show
/// none of them, while the store's other variables (its region) stay.
#[test]
fn no_tool_or_hook_sees_the_store_credentials_in_its_environment() {
    let home = Home::new();
    std::fs::write(
        home.home.join("config.toml"),
        "[[hooks.UserPromptSubmit]]\ncommand = \"env > hook.env\"\n",
    )
    .unwrap();
    let server = MockServer::start(vec![
        Reply::sse(&wire::tool_use_stream(
            None,
            &[("c_env", "exec", &json!({"command": "env"}).to_string())],
            usage(),
        )),
        Reply::sse(&wire::text_stream(&["Done."], usage())),
    ]);
    let mut command = home.pincer().provider(&protocols::anthropic(), &server);
    for (name, value) in STORE_CREDENTIALS {
        command = command.env(name, value);
    }
    let output = command
        .env("AWS_REGION", "eu-west-3")
        .args(["run", "-m", MODEL, "look"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let requests = server.requests();
    let results = wire::tool_results(&requests[1].json());
    let (environment, failed) = &results["c_env"];
    assert!(!failed, "{environment}");
    let hook = std::fs::read_to_string(home.workspace.join("hook.env")).unwrap();
    for (label, text) in [("exec", environment.as_str()), ("hook", hook.as_str())] {
        assert!(text.contains("AWS_REGION=eu-west-3"), "{label}: {text}");
        for (name, value) in STORE_CREDENTIALS {
            assert!(!text.contains(name), "{label} sees {name}: {text}");
            assert!(!text.contains(value), "{label} sees {name}'s value: {text}");
        }
    }
}

fn text(answer: &str) -> Reply {
    Reply::sse(&wire::text_stream(&[answer], usage()))
}

/// An answer held until `gate` opens: the run stays inside its turn meanwhile.
fn held(gate: &Gate, answer: &str) -> Reply {
    Reply {
        status: 200,
        headers: vec![("content-type".into(), "text/event-stream".into())],
        body: Body::Chunked(vec![
            Piece::Wait(gate.clone()),
            Piece::Data(wire::text_stream(&[answer], usage())),
        ]),
    }
}

/// `pincer --json ARGS` in `home`, on `store`, answered by `server`.
fn pincer_on(home: &Home, store: &S3Store, server: &MockServer) -> crate::common::Pincer {
    home.pincer()
        .provider(&protocols::anthropic(), server)
        .store(store)
        .args(["--json", "-c", &format!("model=\"{MODEL}\"")])
}

fn result(output: &Output) -> Value {
    let text = stdout(output);
    let last = text.lines().last().unwrap_or_default();
    serde_json::from_str(last).unwrap_or_else(|error| panic!("{error}: {text}\n{}", stderr(output)))
}

/// The prompts the last request sent, in order (the conversation the model saw).
fn prompts_sent(server: &MockServer) -> Vec<String> {
    let requests = server.requests();
    let body = requests.last().unwrap().json();
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|message| message["role"] == "user")
        .map(|message| match &message["content"] {
            Value::String(text) => text.clone(),
            Value::Array(blocks) => blocks
                .iter()
                .filter_map(|block| block["text"].as_str())
                .collect::<Vec<_>>()
                .join(""),
            _ => String::new(),
        })
        .collect()
}

fn wait_for_requests(server: &MockServer, count: usize) {
    let started = Instant::now();
    while server.requests().len() < count {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the model was called {} times, not {count}",
            server.requests().len()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn signal(child: &Child, name: &str) {
    let status = std::process::Command::new("kill")
        .args([format!("-{name}"), child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success(), "kill -{name}");
}

fn assert_store_error(output: &Output, exit: i32, kind: &str, retryable: bool, words: &[&str]) {
    assert_eq!(code(output), exit, "{}\n{}", stdout(output), stderr(output));
    let result = result(output);
    assert_eq!(result["is_error"], true, "{result}");
    assert_eq!(result["error"]["kind"], kind, "{result}");
    assert_eq!(result["error"]["retryable"], retryable, "{result}");
    let message = result["error"]["message"].as_str().unwrap_or_default();
    let err = stderr(output);
    for word in words {
        assert!(message.contains(word), "{word:?} not in {message}");
        assert!(err.contains(word), "{word:?} not on stderr: {err}");
    }
    assert!(!err.contains("testing-secret-access-key"), "{err}");
}

#[test]
fn a_session_started_in_one_home_resumes_in_another_through_the_store() {
    resumes_in_another_home(&S3Store::new());
}

/// Issue #49: every kind of store URL the README lists carries a session between machines.
#[test]
fn a_session_started_in_one_home_resumes_in_another_through_an_azure_store() {
    resumes_in_another_home(&S3Store::azure());
}

fn resumes_in_another_home(store: &S3Store) {
    let (machine_a, machine_b) = (Home::new(), Home::new());
    let server = MockServer::start(vec![text("first answer"), text("second answer")]);
    let first = pincer_on(&machine_a, store, &server)
        .args(["run", "--name", "nightly", "first prompt"])
        .output();
    assert_eq!(code(&first), 0, "{}", stderr(&first));
    let id = result(&first)["session_id"].as_str().unwrap().to_owned();
    let second = pincer_on(&machine_b, store, &server)
        .args(["resume", "nightly", "second prompt"])
        .output();
    assert_eq!(code(&second), 0, "{}", stderr(&second));
    assert_eq!(result(&second)["session_id"], id.as_str());
    assert_eq!(prompts_sent(&server), ["first prompt", "second prompt"]);
    // B's local copy continues A's file byte for byte: the segments concatenated.
    let file_of = |home: &Home| {
        let entries: Vec<_> = std::fs::read_dir(home.sessions_dir())
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
            .collect();
        assert_eq!(entries.len(), 1, "{entries:?}");
        std::fs::read(&entries[0]).unwrap()
    };
    let (a, b) = (file_of(&machine_a), file_of(&machine_b));
    assert!(b.starts_with(&a) && b.len() > a.len());
    // And back on A: only the segment it lacks is read, and the turn sees all of them.
    let server = MockServer::start(vec![text("third answer")]);
    let third = pincer_on(&machine_a, store, &server)
        .args(["resume", &id, "third prompt"])
        .output();
    assert_eq!(code(&third), 0, "{}", stderr(&third));
    assert_eq!(
        prompts_sent(&server),
        ["first prompt", "second prompt", "third prompt"]
    );
}

/// Issue #49 ("loses nothing"): a local copy that holds turns the store lacks (run here with the
/// store turned off) is not overwritten when a resume through the store rebuilds it: it is moved
/// aside, and the resume says where.
#[test]
fn a_resume_through_the_store_keeps_a_local_copy_with_turns_the_store_lacks() {
    let store = S3Store::new();
    let machine = Home::new();
    let server = MockServer::start(vec![text("one"), text("local"), text("three")]);
    let first = pincer_on(&machine, &store, &server)
        .args(["run", "--name", "kept", "first"])
        .output();
    assert_eq!(code(&first), 0, "{}", stderr(&first));
    // A turn with the store off: only the local file has it.
    let local = pincer_on(&machine, &store, &server)
        .args(["--store", "", "resume", "kept", "offline turn"])
        .output();
    assert_eq!(code(&local), 0, "{}", stderr(&local));
    let sessions = || -> Vec<std::path::PathBuf> {
        std::fs::read_dir(machine.sessions_dir())
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.to_string_lossy().contains(".jsonl"))
            .collect()
    };
    let before: Vec<u8> = std::fs::read(&sessions()[0]).unwrap();
    let third = pincer_on(&machine, &store, &server)
        .args(["resume", "kept", "third"])
        .output();
    assert_eq!(code(&third), 0, "{}", stderr(&third));
    let said = stderr(&third);
    let aside = said
        .split("kept at '")
        .nth(1)
        .and_then(|rest| rest.split('\'').next())
        .unwrap_or_else(|| panic!("no copy kept aside: {said}"));
    assert_eq!(std::fs::read(aside).unwrap(), before, "{said}");
    // The session goes on from the store's copy: the turn the store never took is not in it.
    let prompts = prompts_sent(&server);
    assert!(prompts.contains(&"third".to_owned()), "{prompts:?}");
    assert!(!prompts.contains(&"offline turn".to_owned()), "{prompts:?}");
}

/// Issue #49: a resume on a machine that has no copy of the session yet continues with the
/// model the session recorded, as a local resume does, not the machine's configured one (the
/// model was resolved before the session was brought here).
#[test]
fn a_resume_on_a_fresh_machine_keeps_the_sessions_own_model() {
    let store = S3Store::new();
    let (machine_a, machine_b) = (Home::new(), Home::new());
    let server = MockServer::start(vec![text("first answer"), text("second answer")]);
    let recorded = "claude-opus-4-1";
    let first = pincer_on(&machine_a, &store, &server)
        .args([
            "run",
            "-m",
            &format!("anthropic/{recorded}"),
            "--name",
            "pinned",
            "first",
        ])
        .output();
    assert_eq!(code(&first), 0, "{}", stderr(&first));
    let second = pincer_on(&machine_b, &store, &server)
        .args(["resume", "pinned", "second"])
        .output();
    assert_eq!(code(&second), 0, "{}", stderr(&second));
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[1].json()["model"], recorded, "{}", stderr(&second));
}

/// A session of the store is found by `resume` as by `sessions show`: by its id, its name or
/// the start of its id (eight characters or more), one lookup for both.
#[test]
fn resume_finds_a_store_session_by_the_start_of_its_id_as_sessions_show_does() {
    let store = S3Store::new();
    let (machine_a, machine_b) = (Home::new(), Home::new());
    let server = MockServer::start(vec![text("first"), text("second")]);
    let first = pincer_on(&machine_a, &store, &server)
        .args(["run", "first prompt"])
        .output();
    assert_eq!(code(&first), 0, "{}", stderr(&first));
    let id = result(&first)["session_id"].as_str().unwrap().to_owned();
    let start = &id[..8];
    let shown = machine_b
        .pincer()
        .store(&store)
        .args(["sessions", "show", start])
        .output();
    assert_eq!(code(&shown), 0, "{}", stderr(&shown));
    let resumed = pincer_on(&machine_b, &store, &server)
        .args(["resume", start, "second prompt"])
        .output();
    assert_eq!(code(&resumed), 0, "{}", stderr(&resumed));
    assert_eq!(result(&resumed)["session_id"], id.as_str());
}

#[test]
fn a_busy_session_is_exit_75_at_once_naming_its_holder() {
    let store = S3Store::new();
    let (machine_a, machine_b) = (Home::new(), Home::new());
    let gate = Gate::new();
    let server = MockServer::start(vec![text("made"), held(&gate, "slow"), text("unused")]);
    pincer_on(&machine_a, &store, &server)
        .args(["run", "--name", "shared", "make it"])
        .success();
    let holder = pincer_on(&machine_a, &store, &server)
        .args(["resume", "shared", "slow turn"])
        .spawn();
    wait_for_requests(&server, 2);
    let started = Instant::now();
    let busy = pincer_on(&machine_b, &store, &server)
        .args(["resume", "shared", "meanwhile"])
        .output();
    assert!(started.elapsed() < Duration::from_secs(10));
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
    assert_store_error(&busy, 75, "session_busy", true, &["is busy", host.trim()]);
    assert!(stderr(&busy).contains("--wait"), "{}", stderr(&busy));
    gate.open();
    let done = holder.wait_with_output().unwrap();
    assert_eq!(code(&done), 0, "{}", stderr(&done));
    assert_eq!(server.requests().len(), 2);
}

/// Issue #49: a holder paused past its lease (SIGSTOP) that wakes up cannot overwrite the
/// turn another runner committed meanwhile: exit 75, `fenced`, its turn kept aside and said.
#[test]
fn a_holder_paused_past_its_lease_is_fenced_and_overwrites_nothing() {
    paused_holder_is_fenced(&S3Store::new());
}

/// The same on `az://`: Azure's If-None-Match and If-Match fence the paused holder.
#[test]
fn a_holder_paused_past_its_lease_on_an_azure_store_is_fenced_and_overwrites_nothing() {
    paused_holder_is_fenced(&S3Store::azure());
}

fn paused_holder_is_fenced(store: &S3Store) {
    let (machine_a, machine_b, machine_c) = (Home::new(), Home::new(), Home::new());
    let gate = Gate::new();
    let server = MockServer::start(vec![
        text("made"),
        held(&gate, "late answer"),
        text("b answer"),
        text("c answer"),
    ]);
    let short_lease = ["-c", "store.lease_ttl_secs=1"];
    pincer_on(&machine_a, store, &server)
        .args(short_lease)
        .args(["run", "--name", "paused", "make it"])
        .success();
    let paused = pincer_on(&machine_a, store, &server)
        .args(short_lease)
        .args(["resume", "paused", "a prompt"])
        .spawn();
    wait_for_requests(&server, 2);
    signal(&paused, "STOP");
    let taken = pincer_on(&machine_b, store, &server)
        .args(short_lease)
        .args(["--wait", "30", "resume", "paused", "b prompt"])
        .output();
    signal(&paused, "CONT");
    assert_eq!(code(&taken), 0, "{}", stderr(&taken));
    gate.open();
    let fenced = paused.wait_with_output().unwrap();
    assert_store_error(
        &fenced,
        75,
        "fenced",
        true,
        &["not committed", "local copy is kept at"],
    );
    let message = result(&fenced)["error"]["message"]
        .as_str()
        .unwrap()
        .to_owned();
    let aside = message
        .rsplit("kept at '")
        .next()
        .unwrap()
        .trim_end_matches('\'');
    let kept = std::fs::read_to_string(aside).unwrap();
    assert!(
        kept.contains("a prompt") && kept.contains("late answer"),
        "{kept}"
    );
    // What the store holds: B's turn, not A's.
    pincer_on(&machine_c, store, &server)
        .args(["resume", "paused", "c prompt"])
        .success();
    assert_eq!(prompts_sent(&server), ["make it", "b prompt", "c prompt"]);
    // A's own next resume rebuilds its copy from the store.
    let server = MockServer::start(vec![text("again")]);
    pincer_on(&machine_a, store, &server)
        .args(["resume", "paused", "a again"])
        .success();
    assert_eq!(
        prompts_sent(&server),
        ["make it", "b prompt", "c prompt", "a again"]
    );
}

/// Issue #49: a runner killed during its turn leaves no segment; once its lease expired the
/// next runner goes on.
#[test]
fn a_runner_killed_during_its_turn_leaves_nothing_and_the_next_goes_on_after_the_ttl() {
    let store = S3Store::new();
    let (machine_a, machine_b) = (Home::new(), Home::new());
    let gate = Gate::new();
    let server = MockServer::start(vec![text("made"), held(&gate, "never"), text("b answer")]);
    let short_lease = ["-c", "store.lease_ttl_secs=1"];
    pincer_on(&machine_a, &store, &server)
        .args(short_lease)
        .args(["run", "--name", "killed", "make it"])
        .success();
    let mut killed = pincer_on(&machine_a, &store, &server)
        .args(short_lease)
        .args(["resume", "killed", "doomed prompt"])
        .spawn();
    wait_for_requests(&server, 2);
    killed.kill().unwrap();
    killed.wait().unwrap();
    gate.open();
    let next = pincer_on(&machine_b, &store, &server)
        .args(short_lease)
        .args(["--wait", "30", "resume", "killed", "b prompt"])
        .output();
    assert_eq!(code(&next), 0, "{}", stderr(&next));
    assert_eq!(prompts_sent(&server), ["make it", "b prompt"]);
}

/// Issue #49: the store going away during a turn is `store_unavailable`, retryable, exit 75,
/// never a silent fall-back to the local file.
#[test]
fn the_store_going_away_during_a_turn_is_store_unavailable_and_retryable() {
    let server_s3 = S3Server::start().unwrap();
    let store = S3Store::on(&server_s3);
    let home = Home::new();
    let gate = Gate::new();
    let server = MockServer::start(vec![held(&gate, "answer")]);
    let running = pincer_on(&home, &store, &server)
        .args(["-c", "store.max_retries=0", "-c", "store.lease_ttl_secs=1"])
        .args(["run", "--name", "gone", "a prompt"])
        .spawn();
    wait_for_requests(&server, 1);
    server_s3.stop();
    gate.open();
    let output = running.wait_with_output().unwrap();
    assert_store_error(
        &output,
        75,
        "store_unavailable",
        true,
        &["unavailable", "not in the store", "local copy is kept at"],
    );
}

/// Issue #49: two machines creating the same name at once make one session: one creates it,
/// the other continues it.
#[test]
fn two_homes_creating_the_same_name_at_once_make_one_session() {
    let store = S3Store::new();
    let (machine_a, machine_b, machine_c) = (Home::new(), Home::new(), Home::new());
    let server = MockServer::start(vec![text("one"), text("two"), text("three")]);
    let start = |home: &Home, prompt: &str| {
        pincer_on(home, &store, &server)
            .args(["--wait", "30", "resume", "--create", "together", prompt])
            .spawn()
    };
    let (a, b) = (start(&machine_a, "from a"), start(&machine_b, "from b"));
    let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
    assert_eq!(code(&a), 0, "{}", stderr(&a));
    assert_eq!(code(&b), 0, "{}", stderr(&b));
    assert_eq!(result(&a)["session_id"], result(&b)["session_id"]);
    pincer_on(&machine_c, &store, &server)
        .args(["resume", "together", "from c"])
        .success();
    let prompts = prompts_sent(&server);
    assert_eq!(prompts.len(), 3, "{prompts:?}");
    assert_eq!(prompts[2], "from c");
}

/// Issue #49: a retried step with the same idempotency key prints the turn's result again,
/// byte for byte, without a second model call; with a store from another machine, and
/// without one from the same home.
/// Issue #49 ("the second try must cost nothing"): a retry of a step that starts while the
/// first try still runs waits for the lease (`--wait`), and once it has it finds the turn the
/// first try committed under the same key: it prints that result and calls no model.
#[test]
fn a_retry_that_waited_for_the_first_try_prints_its_result_without_a_model_call() {
    let store = S3Store::new();
    let (machine_a, machine_b) = (Home::new(), Home::new());
    let gate = Gate::new();
    let server = MockServer::start(vec![held(&gate, "the answer"), text("unused")]);
    let step = |home: &Home| {
        pincer_on(home, &store, &server)
            .args([
                "--wait",
                "60",
                "run",
                "--idempotency-key",
                "step-7",
                "do it",
            ])
            .spawn()
    };
    let first = step(&machine_a);
    wait_for_requests(&server, 1);
    let retry = step(&machine_b);
    // The retry is waiting for the lease the first try holds.
    std::thread::sleep(Duration::from_millis(500));
    gate.open();
    let first = first.wait_with_output().unwrap();
    assert_eq!(code(&first), 0, "{}", stderr(&first));
    let retry = retry.wait_with_output().unwrap();
    assert_eq!(code(&retry), 0, "{}", stderr(&retry));
    assert_eq!(result(&retry)["result"], result(&first)["result"]);
    assert_eq!(result(&retry)["session_id"], result(&first)["session_id"]);
    assert_eq!(server.requests().len(), 1, "the retry called the model");
}

#[test]
fn a_retried_step_with_the_same_idempotency_key_calls_no_model() {
    let store = S3Store::new();
    let (machine_a, machine_b) = (Home::new(), Home::new());
    let server = MockServer::start(vec![text("the answer"), text("unused")]);
    let step = |home: &Home| {
        pincer_on(home, &store, &server)
            .args(["run", "--idempotency-key", "step-42", "do the step"])
            .output()
    };
    let first = step(&machine_a);
    assert_eq!(code(&first), 0, "{}", stderr(&first));
    assert_eq!(result(&first)["session_name"], "step-42");
    let retried = step(&machine_b);
    assert_eq!(code(&retried), 0, "{}", stderr(&retried));
    assert_eq!(stdout(&retried), stdout(&first));
    assert_eq!(server.requests().len(), 1);
    assert!(
        std::fs::read_dir(machine_b.sessions_dir())
            .map(|dir| dir.count())
            .unwrap_or(0)
            == 0,
        "the retry wrote a local session"
    );

    // Without a store: the session file answers.
    let home = Home::new();
    let server = MockServer::start(vec![text("local answer"), text("unused")]);
    let local = |format: &str| {
        home.pincer()
            .provider(&protocols::anthropic(), &server)
            .args([
                "--output-format",
                format,
                "-c",
                &format!("model=\"{MODEL}\""),
            ])
            .args(["run", "--idempotency-key", "step-7", "do it"])
            .output()
    };
    let first = local("json");
    assert_eq!(code(&first), 0, "{}", stderr(&first));
    let before = home.session_lines();
    let again = local("json");
    assert_eq!(stdout(&again), stdout(&first));
    let text_again = local("text");
    assert_eq!(stdout(&text_again), "local answer\n");
    assert_eq!(server.requests().len(), 1);
    assert_eq!(home.session_lines(), before);
}

/// Issue #49: runners resuming one session in a loop keep every turn once, in order.
#[test]
fn runners_resuming_one_session_in_a_loop_keep_every_turn_once_in_order() {
    const RUNNERS: usize = 8;
    const TURNS: usize = 2;
    let store = S3Store::new();
    let server = MockServer::start((0..=RUNNERS * TURNS).map(|_| text("ok")).collect());
    let first = Home::new();
    pincer_on(&first, &store, &server)
        .args(["run", "--name", "loop", "turn start"])
        .success();
    let threads: Vec<_> = (0..RUNNERS)
        .map(|runner| {
            let store = store.clone();
            let url = server.url();
            std::thread::spawn(move || {
                let home = Home::new();
                for turn in 0..TURNS {
                    let output = home
                        .pincer()
                        .provider_url(&protocols::anthropic(), &url)
                        .store(&store)
                        .args([
                            "--json",
                            "--wait",
                            "120",
                            "-c",
                            &format!("model=\"{MODEL}\""),
                        ])
                        .args(["resume", "loop", &format!("turn r{runner} t{turn}")])
                        .output();
                    assert_eq!(code(&output), 0, "{}", stderr(&output));
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    let last = Home::new();
    let server_last = MockServer::start(vec![text("end")]);
    pincer_on(&last, &store, &server_last)
        .args(["resume", "loop", "turn end"])
        .success();
    let prompts = prompts_sent(&server_last);
    assert_eq!(prompts.len(), RUNNERS * TURNS + 2, "{prompts:?}");
    for runner in 0..RUNNERS {
        let positions: Vec<usize> = (0..TURNS)
            .map(|turn| {
                let wanted = format!("turn r{runner} t{turn}");
                let found: Vec<usize> = (0..prompts.len())
                    .filter(|index| prompts[*index] == wanted)
                    .collect();
                assert_eq!(found.len(), 1, "{wanted}: {prompts:?}");
                found[0]
            })
            .collect();
        assert!(
            positions.windows(2).all(|pair| pair[0] < pair[1]),
            "{prompts:?}"
        );
    }
}

/// Issue #49: after each committed turn a `system/checkpoint` line (session id, segment, turn)
/// in stream-json and in `--events-file`, between the turn's events and the result.
#[test]
fn each_committed_turn_is_followed_by_a_checkpoint_event() {
    use crate::common::schema::{Printed, printed};
    use pincer::output::schema::{Line, SystemLine};
    let store = S3Store::new();
    let home = Home::new();
    let server = MockServer::start(vec![text("one"), text("two")]);
    let events = home.root.path().join("events.jsonl");
    let turn = |args: &[&str]| {
        let output = home
            .pincer()
            .provider(&protocols::anthropic(), &server)
            .store(&store)
            .args([
                "--output-format",
                "stream-json",
                "-c",
                &format!("model=\"{MODEL}\""),
            ])
            .args(args)
            .arg("--events-file")
            .arg(&events)
            .output();
        assert_eq!(code(&output), 0, "{}", stderr(&output));
        let from_file = std::fs::read_to_string(&events).unwrap();
        let mut seen = Vec::new();
        for text in [stdout(&output), from_file] {
            let lines = printed(&text).unwrap();
            let checkpoints: Vec<_> = lines
                .iter()
                .enumerate()
                .filter_map(|(index, line)| match line {
                    Printed::Line(Line::System(SystemLine::Checkpoint(checkpoint))) => {
                        Some((index, checkpoint.clone()))
                    }
                    _ => None,
                })
                .collect();
            assert_eq!(checkpoints.len(), 1, "{text}");
            let (index, checkpoint) = &checkpoints[0];
            assert_eq!(*index, lines.len() - 2, "{text}");
            let Some(Printed::Result(result)) = lines.last() else {
                panic!("{text}")
            };
            assert_eq!(
                result.session_id.as_deref(),
                Some(checkpoint.session_id.as_str())
            );
            seen.push((checkpoint.segment, checkpoint.turn));
        }
        assert_eq!(seen[0], seen[1], "stdout and the events file differ");
        seen[0]
    };
    assert_eq!(turn(&["run", "--name", "beats", "one"]), (1, Some(1)));
    assert_eq!(turn(&["resume", "beats", "two"]), (2, Some(2)));
}

/// Issue #49: `status` with a store runs its consistency check and reports it: the URL
/// without credentials, reachable, consistent, its sessions; an unreachable store fails the
/// command with store_unavailable's exit and says so, never showing a credential.
#[test]
fn status_with_a_store_checks_it_and_reports_it() {
    let store = S3Store::new();
    let home = Home::new();
    let server = MockServer::start(vec![text("one")]);
    pincer_on(&home, &store, &server)
        .args(["run", "--name", "counted", "one"])
        .success();
    let report = home
        .pincer()
        .store(&store)
        .args(["status", "--json"])
        .output();
    assert_eq!(code(&report), 0, "{}", stderr(&report));
    let status: Value = serde_json::from_str(&stdout(&report)).unwrap();
    assert_eq!(
        status["store"],
        json!({
            "url": store.url,
            "origin": "--store or PINCER_STORE",
            "reachable": true,
            "consistent": true,
            "sessions": 1,
        })
    );
    let text_report = home.pincer().store(&store).args(["status"]).output();
    assert!(
        stdout(&text_report).contains(&format!(
            "{} (--store or PINCER_STORE): reachable, consistent, 1 session(s)",
            store.url
        )),
        "{}",
        stdout(&text_report)
    );

    let closed = home
        .pincer()
        .store(&store)
        .env("AWS_ENDPOINT_URL", "http://127.0.0.1:9")
        .args(["-c", "store.max_retries=0", "status", "--json"])
        .output();
    assert_eq!(code(&closed), 75, "{}", stderr(&closed));
    let status: Value = serde_json::from_str(&stdout(&closed)).unwrap();
    assert_eq!(status["store"]["reachable"], false, "{status}");
    assert_eq!(
        status["store"]["error"]["kind"], "store_unavailable",
        "{status}"
    );
    assert!(
        stderr(&closed).contains("unavailable"),
        "{}",
        stderr(&closed)
    );
    for output in [&report, &closed] {
        assert!(!stdout(output).contains("testing-secret-access-key"));
        assert!(!stderr(output).contains("testing-secret-access-key"));
    }
}

/// Issue #49: a turn that compacted writes the session as the store's snapshot, and a resume
/// on a machine without a copy starts from it.
#[test]
fn a_turn_that_compacts_writes_a_snapshot_a_cold_resume_starts_from() {
    let store = S3Store::new();
    let (machine_a, machine_b) = (Home::new(), Home::new());
    let usage_of = |input| wire::Usage4 {
        input,
        output: 20,
        cache_read: 0,
        cache_write: 0,
    };
    let answer = |text: &str, input| Reply::sse(&wire::text_stream(&[text], usage_of(input)));
    let server = MockServer::start(vec![
        answer("First answer.", 100),
        answer("Second answer.", 2_880),
        answer("## Goal\nShip it.", 50),
        answer("Third answer.", 200),
    ]);
    let tight = [
        "-c",
        "compaction.keep_recent_tokens=5",
        "-c",
        "compaction.reserve_tokens=500",
        "-c",
        "providers.anthropic.models.claude-sonnet-4-5.context_window=3000",
    ];
    let first = pincer_on(&machine_a, &store, &server)
        .args(tight)
        .args(["run", "--name", "long", "first question"])
        .success();
    let id = result(&first)["session_id"].as_str().unwrap().to_owned();
    let second = pincer_on(&machine_a, &store, &server)
        .args(tight)
        .args(["resume", "long", "second question"])
        .success();
    assert_eq!(result(&second)["compactions"], 1, "{}", stdout(&second));

    let opened = pincer_store::Store::open(
        &store.url,
        pincer_store::StoreOptions {
            environment: pincer_store::Environment::Given(store.environment.clone()),
            ..pincer_store::StoreOptions::default()
        },
    )
    .unwrap();
    let session = pincer_store::SessionId::parse(&id).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let snapshot = runtime
        .block_on(opened.read_snapshot(&session))
        .unwrap()
        .expect("a snapshot");
    assert_eq!(snapshot.through, 2);
    let local_a = std::fs::read_dir(machine_a.sessions_dir())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .find(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
        .unwrap();
    assert_eq!(
        snapshot.bytes.as_ref(),
        std::fs::read(&local_a).unwrap().as_slice()
    );

    let third = pincer_on(&machine_b, &store, &server)
        .args(tight)
        .args(["resume", "long", "third question"])
        .output();
    assert_eq!(code(&third), 0, "{}", stderr(&third));
    let body = server.requests().last().unwrap().json().to_string();
    assert!(
        body.contains("Ship it.") && body.contains("third question"),
        "{body}"
    );
}

/// `resume --last` with a store is refused, saying why and what to type: the newest session
/// across machines would depend on their clocks (SPEC §19: ordering never does).
#[test]
fn resume_last_with_a_store_is_refused_with_what_to_type_instead() {
    let home = Home::new();
    let server = MockServer::start(vec![]);
    let output = home
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args([
            "--json",
            "--store",
            "memory://refusals/p",
            "-c",
            &format!("model=\"{MODEL}\""),
        ])
        .args(["resume", "--last", "go on"])
        .output();
    assert_eq!(code(&output), 2, "{}", stderr(&output));
    assert_eq!(result(&output)["error"]["kind"], "usage");
    assert!(stderr(&output).contains("--last is not available with a session store"));
    assert!(stderr(&output).contains("pincer resume SESSION"));
    assert!(server.requests().is_empty());
}

/// A TCP proxy in front of the S3 test server that drops `If-None-Match` and `If-Match` from
/// every request: a server that ignores conditional writes, as some S3-compatible ones do.
fn unconditional_proxy(upstream: u16) -> u16 {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::net::{TcpListener, TcpStream};
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for client in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let mut reader = BufReader::new(client.try_clone().unwrap());
                let mut head = String::new();
                let mut length = 0usize;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let lower = line.to_ascii_lowercase();
                    if let Some(value) = lower.strip_prefix("content-length:") {
                        length = value.trim().parse().unwrap_or(0);
                    }
                    if line == "\r\n" {
                        break;
                    }
                    if !lower.starts_with("if-none-match:")
                        && !lower.starts_with("if-match:")
                        && !lower.starts_with("connection:")
                    {
                        head.push_str(&line);
                    }
                }
                let mut body = vec![0; length];
                if reader.read_exact(&mut body).is_err() {
                    return;
                }
                let mut server = TcpStream::connect(("127.0.0.1", upstream)).unwrap();
                head.push_str("Connection: close\r\n\r\n");
                server.write_all(head.as_bytes()).unwrap();
                server.write_all(&body).unwrap();
                let mut answer = Vec::new();
                let _ = server.read_to_end(&mut answer);
                let mut client = client;
                let _ = client.write_all(&answer);
            });
        }
    });
    port
}

/// Issue #49: a store that does not honour conditional writes is refused at its first use,
/// before it holds a session, and `status` says the same.
#[test]
fn a_store_that_ignores_conditional_writes_is_refused_at_first_use() {
    let server_s3 = S3Server::shared();
    let mut store = S3Store::new();
    let proxy = unconditional_proxy(server_s3.port);
    store.environment = server_s3.environment_for(&format!("http://127.0.0.1:{proxy}"));
    let home = Home::new();
    let server = MockServer::start(vec![text("unused")]);
    let output = pincer_on(&home, &store, &server)
        .args(["run", "hello"])
        .output();
    assert_store_error(
        &output,
        1,
        "store_refused",
        false,
        &["cannot hold sessions safely"],
    );
    assert!(
        stderr(&output).contains("pincer status"),
        "{}",
        stderr(&output)
    );
    assert!(server.requests().is_empty());
    assert!(
        !home.sessions_dir().exists()
            || std::fs::read_dir(home.sessions_dir()).unwrap().count() == 0
    );
    let status = home
        .pincer()
        .store(&store)
        .args(["status", "--json"])
        .output();
    assert_eq!(code(&status), 1, "{}", stderr(&status));
    let report: Value = serde_json::from_str(&stdout(&status)).unwrap();
    assert_eq!(report["store"]["reachable"], true, "{report}");
    assert_eq!(report["store"]["consistent"], false, "{report}");
}

/// A run that ends before its turn (a hook blocked the prompt) gives the lease back at once,
/// and the next run on that machine continues the session file it left (the header goes into
/// the first segment): no second local file of the same session.
#[test]
fn a_run_that_ends_before_its_turn_releases_the_lease_and_the_next_continues_its_file() {
    let store = S3Store::new();
    let home = Home::new();
    std::fs::write(
        home.home.join("config.toml"),
        "[[hooks.UserPromptSubmit]]\ncommand = \"grep -q blocked && exit 2; exit 0\"\n",
    )
    .unwrap();
    let server = MockServer::start(vec![text("done")]);
    let blocked = pincer_on(&home, &store, &server)
        .args(["run", "--name", "early", "blocked prompt"])
        .output();
    assert_eq!(code(&blocked), 1, "{}", stderr(&blocked));
    let started = Instant::now();
    let next = pincer_on(&home, &store, &server)
        .args(["resume", "early", "fine prompt"])
        .output();
    assert_eq!(code(&next), 0, "{}", stderr(&next));
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "waited for the lease"
    );
    assert_eq!(prompts_sent(&server), ["fine prompt"]);
    let files: Vec<_> = std::fs::read_dir(home.sessions_dir())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    // Another machine reads it whole from the store.
    let other = Home::new();
    let server = MockServer::start(vec![text("again")]);
    pincer_on(&other, &store, &server)
        .args(["resume", "early", "from elsewhere"])
        .success();
    assert_eq!(prompts_sent(&server), ["fine prompt", "from elsewhere"]);
}

/// A turn interrupted by SIGINT is committed as it stands (as the local file keeps it) and the
/// lease given back: the next runner goes on at once, from what the interrupted turn left.
#[test]
fn an_interrupted_turn_is_committed_and_its_lease_given_back() {
    let store = S3Store::new();
    let (machine_a, machine_b) = (Home::new(), Home::new());
    let gate = Gate::new();
    let server = MockServer::start(vec![held(&gate, "never sent"), text("b answer")]);
    let running = pincer_on(&machine_a, &store, &server)
        .args(["run", "--name", "cut", "interrupted prompt"])
        .spawn();
    wait_for_requests(&server, 1);
    signal(&running, "INT");
    let interrupted = running.wait_with_output().unwrap();
    gate.open();
    assert_eq!(code(&interrupted), 130, "{}", stderr(&interrupted));
    let started = Instant::now();
    let next = pincer_on(&machine_b, &store, &server)
        .args(["resume", "cut", "b prompt"])
        .output();
    assert_eq!(code(&next), 0, "{}", stderr(&next));
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "waited for the lease"
    );
    // The interrupted prompt got no answer: the two user messages go as one.
    assert_eq!(prompts_sent(&server).concat(), "interrupted promptb prompt");
}

/// The lease is renewed while the turn runs: a turn longer than the lease's TTL keeps its
/// session, and a waiter that waits longer than the TTL still finds it busy.
#[test]
fn a_turn_longer_than_its_lease_keeps_it_by_renewing() {
    let store = S3Store::new();
    let (machine_a, machine_b) = (Home::new(), Home::new());
    let gate = Gate::new();
    let server = MockServer::start(vec![held(&gate, "slow answer"), text("unused")]);
    let short_lease = ["-c", "store.lease_ttl_secs=1"];
    let running = pincer_on(&machine_a, &store, &server)
        .args(short_lease)
        .args(["run", "--name", "renewed", "slow prompt"])
        .spawn();
    wait_for_requests(&server, 1);
    let waiter = pincer_on(&machine_b, &store, &server)
        .args(short_lease)
        .args(["--wait", "4", "resume", "renewed", "meanwhile"])
        .output();
    assert_store_error(&waiter, 75, "session_busy", true, &["is busy"]);
    gate.open();
    let done = running.wait_with_output().unwrap();
    assert_eq!(code(&done), 0, "{}", stderr(&done));
    assert_eq!(server.requests().len(), 1);
}
