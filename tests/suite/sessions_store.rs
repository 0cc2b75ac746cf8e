//! `pincer sessions …` against a session store (SPEC §19, issue #49): `push`, `pull`, `list`,
//! `show`, `export`, `rm` and `prune` on a real S3-compatible server (moto, `tests/common/s3.rs`).
//! Two `PINCER_HOME`s stand for two machines sharing one store.

use std::time::Duration;

use pincer::output::report::{
    PushOutcome, SessionPulled, SessionsPushed, StoreSessionListItem, StoreSessionsPruned,
    StoreSessionsRemoved,
};
use pincer_store::{Environment, Holder, SessionId, Store, StoreOptions};

use super::reports::typed;
use crate::common::mock::{MockServer, Reply};
use crate::common::protocols;
use crate::common::s3::S3Store;
use crate::common::wire::anthropic::{self as wire, Usage4};
use crate::common::{Home, SessionBuilder, code, stderr, stdout};

const ID: &str = "0195f0c2-7a3e-7000-8000-00000000c0de";

/// A local session of `home` named `name`: a user prompt and an answer.
fn local_session(home: &Home, id: &str, name: &str) -> (SessionBuilder, std::path::PathBuf) {
    let mut session = SessionBuilder::new(id, &home.workspace).created("2026-12-01T10:00:00.000Z");
    session.name(name);
    session.user("what changed yesterday?");
    session.assistant("The parser.", [10, 3, 0, 0]);
    let path = home.write_session(&session);
    (session, path)
}

/// The test's own handle on the store, as a third machine.
fn open(store: &S3Store) -> Store {
    Store::open(
        &store.url,
        StoreOptions {
            environment: Environment::Given(store.environment.clone()),
            ..StoreOptions::default()
        },
    )
    .unwrap()
}

/// The lease of session `id`, taken as another machine's run (`holder` on `host`) would, for a
/// minute, with the runtime that renews nothing but must outlive it.
fn held_elsewhere(
    store: &S3Store,
    id: &str,
    (holder, host): (&str, &str),
) -> (tokio::runtime::Runtime, pincer_store::Lease) {
    let runtime = runtime();
    let lease = runtime
        .block_on(open(store).acquire_lease(
            &SessionId::parse(id).unwrap(),
            &Holder::new(holder, host),
            Duration::from_secs(60),
            Duration::ZERO,
        ))
        .unwrap();
    (runtime, lease)
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn a_session_pushed_from_one_machine_is_listed_shown_exported_and_pulled_on_another() {
    let store = S3Store::new();
    let machine_a = Home::new();
    let machine_b = Home::new();
    let (_, file_a) = local_session(&machine_a, ID, "nightly");

    let pushed = machine_a
        .pincer()
        .store(&store)
        .args(["sessions", "push", "nightly", "--json"])
        .output();
    assert_eq!(code(&pushed), 0, "{}", stderr(&pushed));
    let report: SessionsPushed = typed(&stdout(&pushed));
    assert_eq!(report.store, store.url);
    assert_eq!(report.sessions.len(), 1);
    assert_eq!(report.sessions[0].outcome, PushOutcome::Pushed);
    assert_eq!(report.sessions[0].segments, Some(1));
    assert_eq!(report.sessions[0].name.as_deref(), Some("nightly"));

    // Pushed again: already there, nothing written or overwritten.
    let again = machine_a
        .pincer()
        .store(&store)
        .args(["sessions", "push", ID, "--json"])
        .output();
    assert_eq!(code(&again), 0, "{}", stderr(&again));
    let report: SessionsPushed = typed(&stdout(&again));
    assert_eq!(report.sessions[0].outcome, PushOutcome::AlreadyInStore);

    // Machine B sees it in the store's listing, with its name and size.
    let listed = machine_b
        .pincer()
        .store(&store)
        .args(["sessions", "list", "--json"])
        .output();
    assert_eq!(code(&listed), 0, "{}", stderr(&listed));
    let items: Vec<StoreSessionListItem> = typed(&stdout(&listed));
    assert_eq!(items.len(), 1);
    assert_eq!(items[0].id, ID);
    assert_eq!(items[0].name.as_deref(), Some("nightly"));
    assert_eq!(items[0].segments, 1);
    assert_eq!(
        items[0].bytes,
        std::fs::metadata(&file_a).unwrap().len(),
        "the listing's size is the file's"
    );
    let table = machine_b
        .pincer()
        .store(&store)
        .args(["sessions", "list"])
        .output();
    let text = stdout(&table);
    assert!(text.starts_with("ID"), "{text}");
    assert!(text.contains("nightly"), "{text}");

    // Pulled by name: exactly the pushed file, at its usual place, a file pincer's reader opens.
    let pulled = machine_b
        .pincer()
        .store(&store)
        .args(["sessions", "pull", "nightly", "--json"])
        .output();
    assert_eq!(code(&pulled), 0, "{}", stderr(&pulled));
    let report: SessionPulled = typed(&stdout(&pulled));
    assert_eq!((report.segments, report.fetched), (1, 1));
    assert!(report.file.starts_with(machine_b.sessions_dir()));
    assert_eq!(
        std::fs::read(&report.file).unwrap(),
        std::fs::read(&file_a).unwrap()
    );
    let loaded = pincer::session::store::load(&report.file).unwrap();
    assert_eq!(loaded.header.id, ID);
    assert_eq!(loaded.entries.len(), 3);

    // show and export read the store through the local copy.
    let shown = machine_b
        .pincer()
        .store(&store)
        .args(["sessions", "show", "nightly"])
        .output();
    assert_eq!(code(&shown), 0, "{}", stderr(&shown));
    assert!(stdout(&shown).contains("what changed yesterday?"));
    assert!(stdout(&shown).contains("The parser."));
    let exported = machine_b
        .pincer()
        .store(&store)
        .args(["sessions", "export", ID, "--format", "jsonl"])
        .output();
    assert_eq!(code(&exported), 0, "{}", stderr(&exported));
    assert_eq!(
        stdout(&exported).lines().count(),
        std::fs::read_to_string(&file_a).unwrap().lines().count()
    );

    // Machine A continues the session locally and pushes the new turn: one more segment.
    let mut continued = std::fs::read_to_string(&file_a).unwrap();
    continued.push_str(
        r#"{"type":"message","id":"feed0001","parentId":null,"timestamp":"2026-12-01T11:00:00.000Z","message":{"role":"user","content":"and today?","timestamp":1}}"#,
    );
    continued.push('\n');
    std::fs::write(&file_a, &continued).unwrap();
    let pushed = machine_a
        .pincer()
        .store(&store)
        .args(["sessions", "push", "nightly", "--json"])
        .output();
    let report: SessionsPushed = typed(&stdout(&pushed));
    assert_eq!(report.sessions[0].outcome, PushOutcome::Extended);
    assert_eq!(report.sessions[0].segments, Some(2));

    // Machine B's copy reads only the new segment.
    let pulled = machine_b
        .pincer()
        .store(&store)
        .args(["sessions", "pull", ID, "--json"])
        .output();
    assert_eq!(code(&pulled), 0, "{}", stderr(&pulled));
    let report: SessionPulled = typed(&stdout(&pulled));
    assert_eq!((report.segments, report.fetched), (2, 1));
    assert_eq!(std::fs::read_to_string(&report.file).unwrap(), continued);

    // Machine B resumes it through the store: the pulled copy is the cache `resume` keeps (the
    // same record), so the turn is appended to that very file rather than a rebuilt one.
    let answer = |text: &str| {
        Reply::sse(&wire::text_stream(
            &[text],
            Usage4 {
                input: 20,
                output: 4,
                cache_read: 0,
                cache_write: 0,
            },
        ))
    };
    let server = MockServer::start(vec![answer("Also the lexer."), answer("Nothing else.")]);
    let inode = |path: &std::path::Path| {
        use std::os::unix::fs::MetadataExt as _;
        std::fs::metadata(path).unwrap().ino()
    };
    let before = inode(&report.file);
    let resumed = machine_b
        .pincer()
        .store(&store)
        .provider(&protocols::anthropic(), &server)
        .args(["resume", "nightly", "anything else?"])
        .output();
    assert_eq!(code(&resumed), 0, "{}", stderr(&resumed));
    assert_eq!(stdout(&resumed), "Also the lexer.\n");
    let body = String::from_utf8_lossy(&server.requests()[0].body).into_owned();
    assert!(body.contains("and today?"), "the pulled turns were sent");
    assert_eq!(
        inode(&report.file),
        before,
        "the local copy was extended, not rebuilt"
    );
    let after_store_turn = std::fs::read_to_string(&report.file).unwrap();
    assert!(after_store_turn.starts_with(&continued));

    // And without the store, as pincer resumes any session file.
    let resumed = machine_b
        .pincer()
        .provider(&protocols::anthropic(), &server)
        .args(["--store", "", "resume", "nightly", "and now?"])
        .output();
    assert_eq!(code(&resumed), 0, "{}", stderr(&resumed));
    assert_eq!(stdout(&resumed), "Nothing else.\n");
    assert!(
        std::fs::read_to_string(&report.file)
            .unwrap()
            .starts_with(&after_store_turn)
    );
}

#[test]
fn a_pull_never_overwrites_a_local_file_that_differs_from_the_stores_copy() {
    let store = S3Store::new();
    let machine_a = Home::new();
    let machine_b = Home::new();
    local_session(&machine_a, ID, "shared");
    let pushed = machine_a
        .pincer()
        .store(&store)
        .args(["sessions", "push", "shared"])
        .output();
    assert_eq!(code(&pushed), 0, "{}", stderr(&pushed));
    // Machine B has a file of the same session with another history.
    let mut other =
        SessionBuilder::new(ID, &machine_b.workspace).created("2026-12-01T10:00:00.000Z");
    other.user("a different first prompt");
    let file_b = machine_b.write_session(&other);
    let before = std::fs::read(&file_b).unwrap();

    let pulled = machine_b
        .pincer()
        .store(&store)
        .args(["sessions", "pull", ID])
        .output();
    assert_eq!(code(&pulled), 2, "{}", stderr(&pulled));
    let said = stderr(&pulled);
    assert!(
        said.contains("differs from the session store's copy"),
        "{said}"
    );
    assert!(said.contains("hint:"), "{said}");
    assert_eq!(
        std::fs::read(&file_b).unwrap(),
        before,
        "nothing was written"
    );

    // show reads the store's copy, says so, and still leaves the file alone.
    let shown = machine_b
        .pincer()
        .store(&store)
        .args(["sessions", "show", ID])
        .output();
    assert_eq!(code(&shown), 0, "{}", stderr(&shown));
    assert!(stdout(&shown).contains("what changed yesterday?"));
    assert!(stderr(&shown).contains("showing the store's"));
    assert_eq!(std::fs::read(&file_b).unwrap(), before);

    // A push of B's file is refused: the store's copy is not a start of it.
    let pushed = machine_b
        .pincer()
        .store(&store)
        .args(["sessions", "push", ID, "--json"])
        .output();
    assert_eq!(code(&pushed), 2, "{}", stderr(&pushed));
    let report: SessionsPushed = typed(&stdout(&pushed));
    assert_eq!(report.sessions[0].outcome, PushOutcome::Refused);
    assert!(
        report.sessions[0]
            .error
            .as_deref()
            .unwrap()
            .contains("nothing was pushed")
    );
}

#[test]
fn sessions_rm_takes_the_lease_first_and_a_session_another_writer_holds_is_busy() {
    let store = S3Store::new();
    let machine = Home::new();
    local_session(&machine, ID, "held");
    let pushed = machine
        .pincer()
        .store(&store)
        .args(["sessions", "push", "--all"])
        .output();
    assert_eq!(code(&pushed), 0, "{}", stderr(&pushed));

    let (runtime, lease) = held_elsewhere(&store, ID, ("pincer run-7", "ci-runner-7"));
    let (writer, session) = (open(&store), SessionId::parse(ID).unwrap());
    let removed = machine
        .pincer()
        .store(&store)
        .args(["sessions", "rm", "held", "--json"])
        .output();
    let said = stderr(&removed);
    assert_eq!(code(&removed), 75, "{said}");
    assert!(
        said.contains("ci-runner-7") && said.contains("pincer run-7"),
        "{said}"
    );
    assert!(said.contains("--wait"), "{said}");
    let report: StoreSessionsRemoved = typed(&stdout(&removed));
    assert!(report.removed.is_empty());
    assert!(
        runtime
            .block_on(writer.session_facts(&session))
            .unwrap()
            .is_some(),
        "the session is still in the store"
    );

    runtime.block_on(lease.release()).unwrap();
    let removed = machine
        .pincer()
        .store(&store)
        .args(["sessions", "rm", "held", "--json"])
        .output();
    assert_eq!(code(&removed), 0, "{}", stderr(&removed));
    let report: StoreSessionsRemoved = typed(&stdout(&removed));
    assert_eq!(report.removed, [ID]);
    assert!(
        runtime
            .block_on(writer.session_facts(&session))
            .unwrap()
            .is_none()
    );
    assert_eq!(runtime.block_on(writer.resolve_name("held")).unwrap(), None);

    let missing = machine
        .pincer()
        .store(&store)
        .args(["sessions", "show", "held"])
        .output();
    assert_eq!(code(&missing), 2, "{}", stderr(&missing));
    assert!(stderr(&missing).contains(&format!(
        "no session 'held' in the session store {}",
        store.url
    )));
}

#[test]
fn sessions_prune_removes_the_stores_old_sessions_and_keeps_a_busy_one() {
    let store = S3Store::new();
    let machine = Home::new();
    local_session(&machine, ID, "old-one");
    let busy = "0195f0c2-7a3e-7000-8000-00000000beef";
    local_session(&machine, busy, "old-busy");
    let pushed = machine
        .pincer()
        .store(&store)
        .args(["sessions", "push", "--all"])
        .output();
    assert_eq!(code(&pushed), 0, "{}", stderr(&pushed));

    let young = machine
        .pincer()
        .store(&store)
        .args(["sessions", "prune", "--older-than", "1h", "--json"])
        .output();
    let report: StoreSessionsPruned = typed(&stdout(&young));
    assert_eq!(report.removed, Some(Vec::new()));

    std::thread::sleep(Duration::from_millis(1100));
    let would = machine
        .pincer()
        .store(&store)
        .args([
            "sessions",
            "prune",
            "--older-than",
            "0s",
            "--dry-run",
            "--json",
        ])
        .output();
    let report: StoreSessionsPruned = typed(&stdout(&would));
    let mut would_remove = report.would_remove.unwrap();
    would_remove.sort();
    assert_eq!(would_remove, [busy, ID]);

    let (runtime, _lease) = held_elsewhere(&store, busy, ("pincer run-9", "ci-runner-9"));
    let (writer, held) = (open(&store), SessionId::parse(busy).unwrap());
    let pruned = machine
        .pincer()
        .store(&store)
        .args(["sessions", "prune", "--older-than", "0s", "--json"])
        .output();
    assert_eq!(code(&pruned), 0, "{}", stderr(&pruned));
    let report: StoreSessionsPruned = typed(&stdout(&pruned));
    assert_eq!(report.removed, Some(vec![ID.to_owned()]));
    assert_eq!(report.skipped, [busy]);
    assert!(
        stderr(&pruned).contains("ci-runner-9"),
        "{}",
        stderr(&pruned)
    );
    assert!(
        runtime
            .block_on(writer.session_facts(&held))
            .unwrap()
            .is_some()
    );
}

/// A closed port on this machine.
fn closed_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[test]
fn an_unreachable_store_is_exit_75_naming_the_store_without_its_credentials() {
    let store = S3Store::new();
    let machine = Home::new();
    let endpoint = format!("http://127.0.0.1:{}", closed_port());
    let mut command = machine.pincer().store(&store);
    command = command
        .env("AWS_ENDPOINT_URL", &endpoint)
        .env("AWS_SECRET_ACCESS_KEY", "store-secret-5e6f7a8b");
    let output = command
        .args([
            "-c",
            "store.max_retries=0",
            "-c",
            "store.connect_timeout_secs=2",
            "sessions",
            "list",
        ])
        .output();
    let said = stderr(&output);
    assert_eq!(code(&output), 75, "{said}");
    assert!(
        said.contains(&format!("the session store {} is unavailable", store.url)),
        "{said}"
    );
    assert!(
        said.contains("hint: the session store did not answer"),
        "{said}"
    );
    assert!(!said.contains("store-secret-5e6f7a8b"), "{said}");
    assert!(stdout(&output).is_empty());
}

#[test]
fn a_missing_bucket_is_refused_with_exit_1_and_what_to_check() {
    let store = S3Store::new();
    let machine = Home::new();
    let output = machine
        .pincer()
        .store(&store)
        .env("PINCER_STORE", "s3://no-such-bucket-for-pincer/sessions")
        .args(["sessions", "list"])
        .output();
    let said = stderr(&output);
    assert_eq!(code(&output), 1, "{said}");
    assert!(
        said.contains(
            "the session store s3://no-such-bucket-for-pincer/sessions refused the request"
        ),
        "{said}"
    );
    assert!(said.contains("that the bucket exists"), "{said}");
}

#[test]
fn push_and_pull_without_a_store_and_cwd_with_one_are_usage_errors() {
    let machine = Home::new();
    for command in ["push", "pull"] {
        let output = machine.run(&["sessions", command, "x"]);
        assert_eq!(code(&output), 2, "{}", stderr(&output));
        assert!(
            stderr(&output).contains(&format!("sessions {command} needs a session store")),
            "{}",
            stderr(&output)
        );
        assert!(stderr(&output).contains("PINCER_STORE"));
    }
    let store = S3Store::new();
    let output = machine
        .pincer()
        .store(&store)
        .args(["sessions", "list", "--cwd", "."])
        .output();
    assert_eq!(code(&output), 2, "{}", stderr(&output));
    assert!(stderr(&output).contains("--cwd does not apply to a session store"));
}

/// A store report's JSON, parsed with its type (unknown fields refused), with the store's URL,
/// the homes' paths and the times replaced.
fn shown<T: serde::de::DeserializeOwned + serde::Serialize>(
    output: &std::process::Output,
    store: &S3Store,
    homes: &[&Home],
) -> String {
    assert_eq!(code(output), 0, "{}", stderr(output));
    let value = serde_json::to_value(typed::<T>(&stdout(output))).unwrap();
    let mut text = serde_json::to_string_pretty(&value)
        .unwrap()
        .replace(&store.url, "<store>");
    for (number, home) in homes.iter().enumerate() {
        text = text.replace(
            &*home.root.path().to_string_lossy(),
            &format!("<machine {}>", number + 1),
        );
    }
    let time = regex::Regex::new(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z").unwrap();
    time.replace_all(&text, "<time>").into_owned()
}

#[test]
fn the_json_reports_of_the_sessions_commands_against_a_store() {
    let store = S3Store::new();
    let machine_a = Home::new();
    let machine_b = Home::new();
    local_session(&machine_a, ID, "nightly");
    let homes = [&machine_a, &machine_b];
    let run = |home: &Home, args: &[&str]| home.pincer().store(&store).args(args).output();

    let pushed = run(&machine_a, &["sessions", "push", "nightly", "--json"]);
    insta::assert_snapshot!(
        "store_sessions_push",
        shown::<SessionsPushed>(&pushed, &store, &homes)
    );
    let listed = run(&machine_b, &["sessions", "list", "--json"]);
    insta::assert_snapshot!(
        "store_sessions_list",
        shown::<Vec<StoreSessionListItem>>(&listed, &store, &homes)
    );
    let pulled = run(&machine_b, &["sessions", "pull", "nightly", "--json"]);
    insta::assert_snapshot!(
        "store_sessions_pull",
        shown::<SessionPulled>(&pulled, &store, &homes)
    );
    let would = run(
        &machine_b,
        &[
            "sessions",
            "prune",
            "--older-than",
            "1h",
            "--dry-run",
            "--json",
        ],
    );
    insta::assert_snapshot!(
        "store_sessions_prune_dry_run",
        shown::<StoreSessionsPruned>(&would, &store, &homes)
    );
    let removed = run(&machine_b, &["sessions", "rm", "nightly", "--json"]);
    insta::assert_snapshot!(
        "store_sessions_rm",
        shown::<StoreSessionsRemoved>(&removed, &store, &homes)
    );
}

/// Issue #49: a session another machine wrote to the store names the local copy from its
/// header; a timestamp that is an absolute path must not make `sessions pull` write outside
/// the sessions directory (`Path::join` of an absolute name replaces the directory).
#[test]
fn a_header_timestamp_from_the_store_cannot_put_the_pulled_copy_outside_the_sessions_directory() {
    let store = S3Store::new();
    let machine = Home::new();
    // No '.' or ':' in it, which the file name turns into '-': the attack's best case.
    let outside = std::env::temp_dir().join(format!(
        "pincer-escape-{}-{}",
        std::process::id(),
        uuid::Uuid::new_v4().simple()
    ));
    std::fs::create_dir_all(&outside).unwrap();
    let session = SessionId::parse(ID).unwrap();
    let header = format!(
        r#"{{"type":"session","version":3,"id":"{ID}","timestamp":"{}/pwned","cwd":"/w"}}"#,
        outside.display()
    );
    let runtime = runtime();
    let writer = open(&store);
    runtime.block_on(async {
        let lease = writer
            .acquire_lease(
                &session,
                &Holder::new("hostile", "elsewhere"),
                Duration::from_secs(5),
                Duration::ZERO,
            )
            .await
            .unwrap();
        lease
            .commit(
                pincer_store::Bytes::from(header + "\n"),
                pincer_store::CommitMeta::default(),
            )
            .await
            .unwrap();
        lease.release().await.unwrap();
    });
    let pulled = machine
        .pincer()
        .store(&store)
        .args(["sessions", "pull", ID, "--json"])
        .output();
    let escaped: Vec<_> = std::fs::read_dir(&outside).unwrap().collect();
    let _ = std::fs::remove_dir_all(&outside);
    assert!(
        escaped.is_empty(),
        "a file was written outside: {escaped:?}"
    );
    assert_eq!(code(&pulled), 0, "{}", stderr(&pulled));
    let report: SessionPulled = typed(&stdout(&pulled));
    assert_eq!(report.file.parent(), Some(machine.sessions_dir().as_path()));
}

/// A store whose session lost a segment (removed by hand, or a listing that lags behind) is
/// refused as inconsistent, naming the store and the missing segment; nothing local is written.
#[test]
fn a_session_missing_a_segment_is_refused_as_an_inconsistent_store() {
    let store = S3Store::new();
    let (machine_a, machine_b) = (Home::new(), Home::new());
    let (_, file) = local_session(&machine_a, ID, "gappy");
    let push = |home: &Home| {
        let output = home
            .pincer()
            .store(&store)
            .args(["sessions", "push", "gappy"])
            .output();
        assert_eq!(code(&output), 0, "{}", stderr(&output));
    };
    push(&machine_a);
    let mut text = std::fs::read_to_string(&file).unwrap();
    text.push_str(
        r#"{"type":"message","id":"feed0002","parentId":null,"timestamp":"2026-12-01T11:00:00.000Z","message":{"role":"user","content":"more","timestamp":1}}"#,
    );
    text.push('\n');
    std::fs::write(&file, text).unwrap();
    push(&machine_a);

    // Remove segment 1 behind the store's back.
    let mut raw = None;
    let handle = open(&store).wrap(|objects| {
        raw = Some(objects.clone());
        objects
    });
    drop(handle);
    let raw = raw.unwrap();
    let first = pincer_store::object_store::path::Path::from(format!(
        "sessions/sessions/{ID}/segments/00000000000000000001.jsonl"
    ));
    runtime()
        .block_on(pincer_store::object_store::ObjectStoreExt::delete(
            &*raw, &first,
        ))
        .unwrap();

    let pulled = machine_b
        .pincer()
        .store(&store)
        .args(["sessions", "pull", "gappy"])
        .output();
    let said = stderr(&pulled);
    assert_eq!(code(&pulled), 1, "{said}");
    assert!(
        said.contains(&format!(
            "the session store {} cannot hold sessions safely: segment 1 of session {ID} is missing",
            store.url
        )),
        "{said}"
    );
    assert!(said.contains("hint:"), "{said}");
    assert!(stdout(&pulled).is_empty());
    let written: Vec<_> = std::fs::read_dir(machine_b.sessions_dir())
        .map(|entries| {
            entries
                .flatten()
                .filter(|entry| entry.path().extension().is_some_and(|ext| ext == "jsonl"))
                .collect()
        })
        .unwrap_or_default();
    assert!(
        written.is_empty(),
        "no session file was written: {written:?}"
    );
}
