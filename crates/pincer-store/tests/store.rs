//! The session store against a real S3-compatible server (moto, started by the tests: see
//! `common/s3_server.rs`), a real Azure Blob Storage emulator (Azurite: `common/azure_server.rs`)
//! and against `memory://`. Two `Store`s opened on one URL are two
//! machines sharing a bucket; child processes of this test binary are writers that get killed
//! or stopped.

// The helpers in common/ are `pub` for the other test binaries that include them. Test
// helpers outside `#[test]` functions panic on purpose: a failed setup is a failed test.
#![allow(unreachable_pub, clippy::unwrap_used, clippy::expect_used)]

mod common {
    pub mod azure_server;
    pub mod emulator;
    pub mod fault_proxy;
    pub mod faulty_store;
    pub mod s3_server;
}

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use common::azure_server::AzureServer;
use common::fault_proxy::{FaultProxy, Mode};
use common::faulty_store::{Faults, FaultyStore, Hold};
use common::s3_server::S3Server;
use pincer_store::{
    CommitMeta, CommitOutcome, Environment, ErrorKind, Holder, NameClaim, SessionId, Store,
    StoreError, StoreOptions,
};
use serde_json::Value;

// ---------------------------------------------------------------------------------------------
// Fixtures

fn new_session() -> SessionId {
    SessionId::parse(&uuid::Uuid::new_v4().to_string()).unwrap()
}

fn holder(name: &str) -> Holder {
    Holder::new(name, format!("machine-of-{name}"))
}

/// The pi v3 header line of `session`.
fn header(session: &SessionId) -> String {
    format!(
        r#"{{"type":"session","version":3,"id":"{session}","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/work"}}"#
    ) + "\n"
}

/// A user message entry (8-hex `id`, `parent` the previous entry's id).
fn message(id: &str, parent: Option<&str>, text: &str) -> String {
    let parent = parent.map_or("null".to_owned(), |parent| format!("\"{parent}\""));
    format!(
        r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-01-01T00:00:01.000Z","message":{{"role":"user","content":"{text}","timestamp":1}}}}"#
    ) + "\n"
}

fn options(environment: Vec<(String, String)>) -> StoreOptions {
    StoreOptions {
        environment: Environment::Given(environment),
        connect_timeout: Duration::from_secs(2),
        request_timeout: Duration::from_secs(10),
        max_retries: 2,
        retry_timeout: Duration::from_secs(5),
        poll_interval: Duration::from_millis(100),
        read_concurrency: 8,
    }
}

/// Where a test's sessions live.
#[derive(Clone)]
enum Backend {
    /// A bucket of the moto server.
    S3 {
        bucket: String,
    },
    /// A container of the Azurite server.
    Azure {
        container: String,
    },
    Memory {
        name: String,
    },
}

impl Backend {
    fn s3() -> Self {
        Backend::S3 {
            bucket: S3Server::shared().bucket(),
        }
    }

    fn azure() -> Self {
        Backend::Azure {
            container: AzureServer::shared().container(),
        }
    }

    fn memory() -> Self {
        Backend::Memory {
            name: format!("test-{}", uuid::Uuid::new_v4()),
        }
    }

    /// A store on this backend: each call is another machine.
    fn open(&self) -> Store {
        match self {
            Backend::S3 { bucket } => Store::open(
                &format!("s3://{bucket}/team"),
                options(S3Server::shared().environment()),
            )
            .unwrap(),
            Backend::Azure { container } => Store::open(
                &format!("az://{container}/team"),
                options(AzureServer::shared().environment()),
            )
            .unwrap(),
            Backend::Memory { name } => {
                Store::open(&format!("memory://{name}/team"), options(Vec::new())).unwrap()
            }
        }
    }

    /// The same bucket reached through `endpoint` (a proxy).
    fn open_through(&self, endpoint: &str, options_for: impl FnOnce(&mut StoreOptions)) -> Store {
        let Backend::S3 { bucket } = self else {
            panic!("only an S3 store has an endpoint")
        };
        let mut options = options(S3Server::shared().environment_for(endpoint));
        options_for(&mut options);
        Store::open(&format!("s3://{bucket}/team"), options).unwrap()
    }
}

/// Create `session` with its header as segment 1.
async fn seed(store: &Store, session: &SessionId) {
    let lease = store
        .acquire_lease(
            session,
            &holder("seed"),
            Duration::from_secs(5),
            Duration::ZERO,
        )
        .await
        .unwrap();
    committed(
        lease
            .commit(Bytes::from(header(session)), CommitMeta::default())
            .await,
    );
    lease.release().await.unwrap();
}

/// The checkpoint of a commit that must have been made.
/// The lease of `session`, taken at once by the writer `name`, for 5 s.
async fn lease_now(store: &Store, session: &SessionId, name: &str) -> pincer_store::Lease {
    store
        .acquire_lease(
            session,
            &holder(name),
            Duration::from_secs(5),
            Duration::ZERO,
        )
        .await
        .unwrap()
}

fn committed(outcome: Result<CommitOutcome, StoreError>) -> pincer_store::Checkpoint {
    match outcome {
        Ok(CommitOutcome::Committed {
            checkpoint,
            bookkeeping: None,
        }) => checkpoint,
        other => panic!("expected a clean commit, got {other:?}"),
    }
}

/// The lines of a pi v3 file, parsed.
fn lines(file: &[u8]) -> Vec<Value> {
    file.split(|byte| *byte == b'\n')
        .filter(|line| !line.is_empty())
        .map(|line| serde_json::from_slice(line).unwrap())
        .collect()
}

/// The last entry id of a pi v3 file (None: only the header).
fn last_entry_id(file: &[u8]) -> Option<String> {
    lines(file)
        .last()
        .filter(|line| line["type"] != "session")
        .map(|line| line["id"].as_str().unwrap().to_owned())
}

// ---------------------------------------------------------------------------------------------
// Many writers

const WRITERS: usize = 16;
const TURNS_PER_WRITER: usize = 4;

/// Every writer (its own `Store`: its own machine) loops: take the lease, read only the
/// segments it lacks, commit one turn whose parent is the last entry it read, release.
async fn many_writers_commit_to_one_session(backend: Backend) {
    let session = new_session();
    seed(&backend.open(), &session).await;
    let mut writers = Vec::new();
    for writer in 0..WRITERS {
        let store = backend.open();
        let session = session.clone();
        writers.push(tokio::spawn(async move {
            let me = holder(&format!("writer-{writer}"));
            let mut local: Vec<u8> = Vec::new();
            let mut have = 0;
            for turn in 0..TURNS_PER_WRITER {
                let lease = store
                    .acquire_lease(
                        &session,
                        &me,
                        Duration::from_secs(3),
                        Duration::from_secs(120),
                    )
                    .await
                    .unwrap();
                let keep_alive = lease.keep_alive();
                let missing = store.read_segments(&session, Some(have)).await.unwrap();
                for segment in missing {
                    assert_eq!(segment.number, have + 1, "segments arrive in order");
                    local.extend_from_slice(&segment.bytes);
                    have = segment.number;
                }
                assert_eq!(have, lease.head(), "read up to the lease's head");
                let line = message(
                    &format!("{writer:02x}{turn:06x}"),
                    last_entry_id(&local).as_deref(),
                    &format!("writer {writer} turn {turn}"),
                );
                let checkpoint = committed(
                    lease
                        .commit(
                            Bytes::from(line.clone()),
                            CommitMeta {
                                turn: Some(have + 1),
                                idempotency_key: Some(format!("writer-{writer}-turn-{turn}")),
                            },
                        )
                        .await,
                );
                assert_eq!(checkpoint.segment, have + 1);
                local.extend_from_slice(line.as_bytes());
                have += 1;
                drop(keep_alive);
                lease.release().await.unwrap();
            }
            local
        }));
    }
    let mut copies = Vec::new();
    for writer in writers {
        copies.push(writer.await.unwrap());
    }
    let pulled = backend.open().pull(&session).await.unwrap();
    let total = 1 + WRITERS * TURNS_PER_WRITER;
    assert_eq!(pulled.head, total as u64);
    let entries = lines(&pulled.bytes);
    assert_eq!(entries.len(), total);
    assert_eq!(entries[0]["type"], "session");
    // One chain: every entry's parent is the entry before it, so every writer read all the
    // turns before its own.
    for pair in entries.windows(2) {
        let expected = if pair[0]["type"] == "session" {
            Value::Null
        } else {
            pair[0]["id"].clone()
        };
        assert_eq!(pair[1]["parentId"], expected, "{}", pair[1]);
    }
    // Every turn once, each writer's in its order.
    for writer in 0..WRITERS {
        let mine: Vec<String> = entries
            .iter()
            .filter_map(|entry| entry["message"]["content"].as_str())
            .filter(|text| text.starts_with(&format!("writer {writer} turn ")))
            .map(str::to_owned)
            .collect();
        let expected: Vec<String> = (0..TURNS_PER_WRITER)
            .map(|turn| format!("writer {writer} turn {turn}"))
            .collect();
        assert_eq!(mine, expected);
    }
    // What each writer had is a prefix of the final file: nothing it saw was lost.
    for copy in copies {
        assert!(pulled.bytes.starts_with(&copy));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sixteen_writers_on_s3_keep_every_turn_once_in_order() {
    many_writers_commit_to_one_session(Backend::s3()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sixteen_writers_on_azure_keep_every_turn_once_in_order() {
    many_writers_commit_to_one_session(Backend::azure()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sixteen_writers_in_memory_keep_every_turn_once_in_order() {
    many_writers_commit_to_one_session(Backend::memory()).await;
}

// ---------------------------------------------------------------------------------------------
// Leases

async fn a_busy_lease_names_its_holder_and_is_taken_over_only_after_its_ttl(backend: Backend) {
    let session = new_session();
    let machine_a = backend.open();
    let machine_b = backend.open();
    seed(&machine_a, &session).await;
    let ttl = Duration::from_millis(900);
    let lease_a = machine_a
        .acquire_lease(&session, &holder("a"), ttl, Duration::ZERO)
        .await
        .unwrap();
    let keep_alive = lease_a.keep_alive();

    let busy = machine_b
        .acquire_lease(&session, &holder("b"), ttl, Duration::ZERO)
        .await
        .unwrap_err();
    match &busy {
        StoreError::Busy {
            holder,
            host,
            retry_after,
            ..
        } => {
            assert_eq!((holder.as_str(), host.as_str()), ("a", "machine-of-a"));
            assert_eq!(*retry_after, ttl);
        }
        other => panic!("expected busy, got {other:?}"),
    }
    assert_eq!(busy.kind(), ErrorKind::Busy);

    // Renewed all along: a waiter that waits longer than the TTL still finds it busy.
    let started = Instant::now();
    let still_busy = machine_b
        .acquire_lease(&session, &holder("b"), ttl, ttl * 3)
        .await
        .unwrap_err();
    assert_eq!(still_busy.kind(), ErrorKind::Busy);
    assert!(started.elapsed() >= ttl * 3);

    // Its holder stops renewing (it died): a waiter takes it over after watching it for the
    // TTL.
    drop(keep_alive);
    let started = Instant::now();
    let lease_b = machine_b
        .acquire_lease(&session, &holder("b"), ttl, Duration::from_secs(10))
        .await
        .unwrap();
    assert!(
        started.elapsed() >= ttl,
        "taken over after {:?}",
        started.elapsed()
    );
    assert_eq!(lease_b.epoch().await, 3, "seed, a, then b");
    assert_eq!(lease_b.head(), 1);

    // The old holder finds out at its next renewal or commit; it writes nothing.
    let lost = lease_a
        .commit(
            Bytes::from(message("aaaaaaaa", None, "late")),
            CommitMeta::default(),
        )
        .await
        .unwrap_err();
    assert_eq!(lost.kind(), ErrorKind::Fenced);
    assert!(
        lost.to_string().contains("your turn was not committed"),
        "{lost}"
    );
    assert!(lease_a.is_lost());
    assert_eq!(
        machine_b.read_segments(&session, None).await.unwrap().len(),
        1
    );
    lease_b.release().await.unwrap();

    // A released lease is taken at once.
    let started = Instant::now();
    let lease_c = machine_a
        .acquire_lease(&session, &holder("c"), ttl, Duration::ZERO)
        .await
        .unwrap();
    assert!(started.elapsed() < ttl);
    lease_c.release().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_busy_lease_on_s3_names_its_holder_and_is_taken_over_only_after_its_ttl() {
    a_busy_lease_names_its_holder_and_is_taken_over_only_after_its_ttl(Backend::s3()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_busy_lease_on_azure_names_its_holder_and_is_taken_over_only_after_its_ttl() {
    a_busy_lease_names_its_holder_and_is_taken_over_only_after_its_ttl(Backend::azure()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_busy_lease_in_memory_names_its_holder_and_is_taken_over_only_after_its_ttl() {
    a_busy_lease_names_its_holder_and_is_taken_over_only_after_its_ttl(Backend::memory()).await;
}

/// A holder whose commit was paused (here: its PUT held back) past its lease, while another
/// writer took the lease over and committed: its create-only PUT of the same segment number
/// fails, and the other writer's segment is untouched.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_commit_paused_past_its_lease_is_fenced_and_overwrites_nothing() {
    let backend = Backend::s3();
    let session = new_session();
    let machine_b = backend.open();
    seed(&machine_b, &session).await;
    let hold = Arc::new(Hold::default());
    let paused_hold = Arc::clone(&hold);
    let machine_a = backend.open().wrap(move |inner| {
        Arc::new(FaultyStore::new(
            inner,
            Faults {
                hold_writes_to: Some(("segments/00000000000000000002".to_owned(), paused_hold)),
                ..Faults::default()
            },
        ))
    });
    let ttl = Duration::from_millis(600);
    let lease_a = machine_a
        .acquire_lease(&session, &holder("a"), ttl, Duration::ZERO)
        .await
        .unwrap();
    let late = message("aaaaaaaa", None, "from a, too late");
    let commit_a = tokio::spawn(async move {
        let result = lease_a
            .commit(Bytes::from(late), CommitMeta::default())
            .await;
        (result, lease_a)
    });
    hold.reached.notified().await;

    let lease_b = machine_b
        .acquire_lease(&session, &holder("b"), ttl, Duration::from_secs(10))
        .await
        .unwrap();
    let line_b = message("bbbbbbbb", None, "from b");
    committed(
        lease_b
            .commit(Bytes::from(line_b.clone()), CommitMeta::default())
            .await,
    );
    hold.released.notify_one();

    let (result, _lease_a) = commit_a.await.unwrap();
    let error = result.unwrap_err();
    assert!(
        matches!(error, StoreError::Fenced { segment: 2, .. }),
        "{error:?}"
    );
    assert!(error.to_string().contains("your turn was not committed"));
    let segments = machine_b.read_segments(&session, None).await.unwrap();
    assert_eq!(segments.len(), 2);
    assert_eq!(segments[1].bytes, Bytes::from(line_b));
    lease_b.release().await.unwrap();
}

// ---------------------------------------------------------------------------------------------
// Writers in other processes: killed mid-commit, stopped past their lease

/// The environment variable that turns the child tests below into writers.
const CHILD: &str = "PINCER_STORE_TEST_CHILD";

fn child(test: &str, settings: &[(&str, String)]) -> Command {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args([
            test,
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, "1");
    for (name, value) in settings {
        command.env(name, value);
    }
    command
}

fn child_store() -> (Store, SessionId) {
    let endpoint = std::env::var("CHILD_ENDPOINT").unwrap();
    let bucket = std::env::var("CHILD_BUCKET").unwrap();
    let mut environment = S3ServerEnvironment::for_endpoint(&endpoint);
    environment.push(("AWS_REGION".to_owned(), "us-east-1".to_owned()));
    let store = Store::open(&format!("s3://{bucket}/team"), options(environment)).unwrap();
    let session = SessionId::parse(&std::env::var("CHILD_SESSION").unwrap()).unwrap();
    (store, session)
}

/// The dummy credentials, without starting a server (a child reaches its parent's).
struct S3ServerEnvironment;

impl S3ServerEnvironment {
    fn for_endpoint(endpoint: &str) -> Vec<(String, String)> {
        [
            ("AWS_ENDPOINT_URL", endpoint),
            ("AWS_ALLOW_HTTP", "true"),
            ("AWS_ACCESS_KEY_ID", "testing-key-id"),
            ("AWS_SECRET_ACCESS_KEY", "testing-secret-access-key"),
        ]
        .iter()
        .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
        .collect()
    }
}

/// Child: take the lease and commit a large segment (the proxy stalls it partway).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a writer process run by a_writer_killed_mid_commit_leaves_no_torn_segment"]
async fn child_commits_a_large_segment() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    let (store, session) = child_store();
    let lease = store
        .acquire_lease(
            &session,
            &holder("killed-writer"),
            Duration::from_millis(800),
            Duration::ZERO,
        )
        .await
        .unwrap();
    let _keep_alive = lease.keep_alive();
    let mut segment = String::new();
    let mut parent = None;
    for index in 0..20_000 {
        let id = format!("{index:08x}");
        segment.push_str(&message(&id, parent.as_deref(), &"x".repeat(200)));
        parent = Some(id);
    }
    let _ = lease
        .commit(Bytes::from(segment), CommitMeta::default())
        .await;
    panic!("the commit should have been stalled until this process was killed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_writer_killed_mid_commit_leaves_no_torn_segment_and_the_next_writer_goes_on() {
    let backend = Backend::s3();
    let Backend::S3 { bucket } = &backend else {
        unreachable!()
    };
    let server = S3Server::shared();
    let session = new_session();
    let store = backend.open();
    seed(&store, &session).await;
    let proxy = FaultProxy::start(server.port);
    let stalled = proxy.stall_request("/segments/00000000000000000002.jsonl", 512 * 1024);
    let mut writer = child(
        "child_commits_a_large_segment",
        &[
            ("CHILD_ENDPOINT", proxy.endpoint()),
            ("CHILD_BUCKET", bucket.clone()),
            ("CHILD_SESSION", session.to_string()),
        ],
    )
    .stdout(Stdio::null())
    .stderr(Stdio::null())
    .spawn()
    .unwrap();
    let reached =
        tokio::task::spawn_blocking(move || stalled.recv_timeout(Duration::from_secs(60)))
            .await
            .unwrap();
    assert!(reached.is_ok(), "the writer's segment upload never started");
    writer.kill().unwrap(); // SIGKILL, mid-upload
    writer.wait().unwrap();
    proxy.cut_connections();

    // Nothing of the torn upload is visible.
    let segments = store.read_segments(&session, None).await.unwrap();
    assert_eq!(segments.len(), 1, "only the header segment");
    assert_eq!(segments[0].bytes, Bytes::from(header(&session)));

    // The dead writer's lease is busy until a waiter has watched it for its TTL.
    let busy = store
        .acquire_lease(
            &session,
            &holder("next"),
            Duration::from_secs(2),
            Duration::ZERO,
        )
        .await
        .unwrap_err();
    assert!(
        matches!(&busy, StoreError::Busy { holder, .. } if holder == "killed-writer"),
        "{busy:?}"
    );
    let lease = store
        .acquire_lease(
            &session,
            &holder("next"),
            Duration::from_secs(2),
            Duration::from_secs(10),
        )
        .await
        .unwrap();
    assert_eq!(lease.head(), 1);
    let line = message("0000000a", None, "the next writer's turn");
    let checkpoint = committed(
        lease
            .commit(Bytes::from(line.clone()), CommitMeta::default())
            .await,
    );
    assert_eq!(checkpoint.segment, 2);
    lease.release().await.unwrap();
    let pulled = store.pull(&session).await.unwrap();
    assert_eq!(pulled.bytes, Bytes::from(header(&session) + &line));
}

/// Child: take the lease (renewed in the background), say so, then commit when told on stdin.
/// Exits 75 when the commit is refused because the lease was lost or fenced.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a writer process run by a_holder_stopped_past_its_lease_is_fenced_when_continued"]
async fn child_holds_the_lease_then_commits_when_told() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    let (store, session) = child_store();
    let lease = store
        .acquire_lease(
            &session,
            &holder("stopped-writer"),
            Duration::from_millis(800),
            Duration::ZERO,
        )
        .await
        .unwrap();
    let _keep_alive = lease.keep_alive();
    say(&format!("holding {}", lease.head()));
    let mut line = String::new();
    std::io::stdin().read_line(&mut line).unwrap();
    let outcome = lease
        .commit(
            Bytes::from(message("5709ed00", None, "from the stopped writer")),
            CommitMeta::default(),
        )
        .await;
    match outcome {
        Ok(outcome) => {
            say(&format!("committed {outcome:?}"));
            std::process::exit(0);
        }
        Err(error) => {
            say(&format!("refused {:?}: {error}", error.kind()));
            std::process::exit(if error.kind() == ErrorKind::Fenced {
                75
            } else {
                1
            });
        }
    }
}

/// A line to the parent test on the child's standard output, flushed at once (the parent
/// waits for it).
fn say(line: &str) {
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{line}").unwrap();
    stdout.flush().unwrap();
}

fn signal(pid: u32, name: &str) {
    let status = Command::new("kill")
        .args([&format!("-{name}"), &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success(), "kill -{name} {pid}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_holder_stopped_past_its_lease_is_fenced_when_continued() {
    let backend = Backend::s3();
    let Backend::S3 { bucket } = &backend else {
        unreachable!()
    };
    let server = S3Server::shared();
    let session = new_session();
    let store = backend.open();
    seed(&store, &session).await;
    let mut writer = child(
        "child_holds_the_lease_then_commits_when_told",
        &[
            ("CHILD_ENDPOINT", server.endpoint.clone()),
            ("CHILD_BUCKET", bucket.clone()),
            ("CHILD_SESSION", session.to_string()),
        ],
    )
    .stdin(Stdio::piped())
    .stdout(Stdio::piped())
    .stderr(Stdio::null())
    .spawn()
    .unwrap();
    let mut stdout = BufReader::new(writer.stdout.take().unwrap());
    let holding = tokio::task::spawn_blocking(move || {
        let mut line = String::new();
        loop {
            line.clear();
            assert!(stdout.read_line(&mut line).unwrap() > 0, "the writer ended");
            // libtest writes "test NAME ... " on the same line first.
            if line.contains("holding ") {
                return (line, stdout);
            }
        }
    })
    .await
    .unwrap();
    let (_, mut stdout) = holding;
    signal(writer.id(), "STOP");

    // While it is stopped, another machine waits out its lease and commits.
    let lease = store
        .acquire_lease(
            &session,
            &holder("other"),
            Duration::from_secs(5),
            Duration::from_secs(10),
        )
        .await
        .unwrap();
    let line = message("07e40000", None, "from the other machine");
    committed(
        lease
            .commit(Bytes::from(line.clone()), CommitMeta::default())
            .await,
    );

    signal(writer.id(), "CONT");
    writer.stdin.take().unwrap().write_all(b"go\n").unwrap();
    let status = tokio::task::spawn_blocking(move || writer.wait().unwrap())
        .await
        .unwrap();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut rest).unwrap();
    assert_eq!(status.code(), Some(75), "{rest}");
    assert!(rest.contains("refused Fenced"), "{rest}");
    assert!(rest.contains("your turn was not committed"), "{rest}");

    let segments = store.read_segments(&session, None).await.unwrap();
    assert_eq!(segments.len(), 2);
    assert_eq!(segments[1].bytes, Bytes::from(line));
    lease.release().await.unwrap();
}

// ---------------------------------------------------------------------------------------------
// Names

async fn many_sessions_claiming_one_name_at_once_give_it_to_one(backend: Backend) {
    let name = format!("nightly fix/{}", uuid::Uuid::new_v4());
    let barrier = Arc::new(tokio::sync::Barrier::new(8));
    let mut claims = Vec::new();
    for _ in 0..8 {
        let store = backend.open();
        let name = name.clone();
        let barrier = Arc::clone(&barrier);
        claims.push(tokio::spawn(async move {
            let session = new_session();
            barrier.wait().await;
            let claim = store.claim_name(&name, &session).await.unwrap();
            (session, claim)
        }));
    }
    let mut results = Vec::new();
    for claim in claims {
        results.push(claim.await.unwrap());
    }
    let winners: Vec<&SessionId> = results
        .iter()
        .filter(|(_, claim)| *claim == NameClaim::Claimed)
        .map(|(session, _)| session)
        .collect();
    assert_eq!(winners.len(), 1, "{results:?}");
    let winner = winners[0].clone();
    for (session, claim) in &results {
        if *session != winner {
            assert_eq!(*claim, NameClaim::Taken(winner.clone()));
        }
    }
    let store = backend.open();
    assert_eq!(
        store.resolve_name(&name).await.unwrap(),
        Some(winner.clone())
    );
    // Claiming it again for its session is not an error.
    assert_eq!(
        store.claim_name(&name, &winner).await.unwrap(),
        NameClaim::Claimed
    );
    assert_eq!(store.resolve_name("never claimed").await.unwrap(), None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn eight_sessions_claiming_one_name_on_s3_give_it_to_one() {
    many_sessions_claiming_one_name_at_once_give_it_to_one(Backend::s3()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn eight_sessions_claiming_one_name_on_azure_give_it_to_one() {
    many_sessions_claiming_one_name_at_once_give_it_to_one(Backend::azure()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn eight_sessions_claiming_one_name_in_memory_give_it_to_one() {
    many_sessions_claiming_one_name_at_once_give_it_to_one(Backend::memory()).await;
}

// ---------------------------------------------------------------------------------------------
// An unavailable store

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_store_going_away_mid_turn_is_a_retryable_error_and_the_turn_commits_once_it_is_back() {
    let backend = Backend::s3();
    let session = new_session();
    seed(&backend.open(), &session).await;
    let proxy = FaultProxy::start(S3Server::shared().port);
    let store = backend.open_through(&proxy.endpoint(), |options| {
        options.max_retries = 1;
        options.retry_timeout = Duration::from_secs(2);
        options.connect_timeout = Duration::from_secs(1);
        options.request_timeout = Duration::from_secs(2);
    });
    let lease = store
        .acquire_lease(
            &session,
            &holder("a"),
            Duration::from_secs(30),
            Duration::ZERO,
        )
        .await
        .unwrap();
    let line = message("0000000b", None, "a turn");

    proxy.set_mode(Mode::Refuse);
    let started = Instant::now();
    let error = lease
        .commit(Bytes::from(line.clone()), CommitMeta::default())
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Unavailable, "{error:?}");
    assert!(error.is_retryable());
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );
    assert!(error.to_string().contains("s3://"), "{error}");
    assert!(!error.to_string().contains("testing-secret-access-key"));

    proxy.set_mode(Mode::Forward);
    let checkpoint = committed(
        lease
            .commit(Bytes::from(line.clone()), CommitMeta::default())
            .await,
    );
    assert_eq!(checkpoint.segment, 2);
    lease.release().await.unwrap();
    let pulled = backend.open().pull(&session).await.unwrap();
    assert_eq!(pulled.bytes, Bytes::from(header(&session) + &line));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_that_stops_answering_is_unavailable_and_timed_out() {
    let backend = Backend::s3();
    let proxy = FaultProxy::start(S3Server::shared().port);
    let store = backend.open_through(&proxy.endpoint(), |options| {
        options.max_retries = 0;
        options.request_timeout = Duration::from_millis(500);
    });
    proxy.set_mode(Mode::Hang);
    let error = store.read_segments(&new_session(), None).await.unwrap_err();
    assert!(
        matches!(
            error,
            StoreError::Unavailable {
                timed_out: true,
                ..
            }
        ),
        "{error:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bucket_that_does_not_exist_is_refused_not_retried() {
    let store = Store::open(
        "s3://pincer-no-such-bucket/team",
        options(S3Server::shared().environment()),
    )
    .unwrap();
    let error = store.check_consistency().await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Refused, "{error:?}");
    assert!(!error.is_retryable());
}

// ---------------------------------------------------------------------------------------------
// Idempotency keys

async fn the_same_idempotency_key_twice_commits_once(backend: Backend) {
    let session = new_session();
    let machine_a = backend.open();
    seed(&machine_a, &session).await;
    let lease = lease_now(&machine_a, &session, "a").await;
    let meta = CommitMeta {
        turn: Some(1),
        idempotency_key: Some("argo step 7 / attempt-independent".to_owned()),
    };
    let line = message("0000000c", None, "the step's turn");
    let first = committed(lease.commit(Bytes::from(line.clone()), meta.clone()).await);
    assert_eq!((first.segment, first.turn), (2, Some(1)));
    match lease
        .commit(Bytes::from(line.clone()), meta.clone())
        .await
        .unwrap()
    {
        CommitOutcome::AlreadyCommitted(found) => assert_eq!(found, first),
        other => panic!("committed twice: {other:?}"),
    }
    lease.release().await.unwrap();

    // The retried step runs on another machine.
    let machine_b = backend.open();
    let key = meta.idempotency_key.as_deref().unwrap();
    assert_eq!(
        machine_b.find_turn_by_key(&session, key).await.unwrap(),
        Some(first.clone())
    );
    assert_eq!(
        machine_b
            .find_turn_by_key(&session, "another step")
            .await
            .unwrap(),
        None
    );
    let lease = lease_now(&machine_b, &session, "b").await;
    match lease.commit(Bytes::from(line), meta).await.unwrap() {
        CommitOutcome::AlreadyCommitted(found) => assert_eq!(found, first),
        other => panic!("committed twice: {other:?}"),
    }
    assert_eq!(lease.head(), 2);
    lease.release().await.unwrap();
    assert_eq!(
        machine_b.read_segments(&session, None).await.unwrap().len(),
        2
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_idempotency_key_twice_on_s3_commits_once() {
    the_same_idempotency_key_twice_commits_once(Backend::s3()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_idempotency_key_twice_in_memory_commits_once() {
    the_same_idempotency_key_twice_commits_once(Backend::memory()).await;
}

/// A writer that dies after its segment and before its key object: the turn is committed,
/// found by its key, and the next holder writes the missing bookkeeping.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_whose_key_object_was_never_written_is_still_found_by_its_key() {
    let backend = Backend::s3();
    let session = new_session();
    seed(&backend.open(), &session).await;
    let broken = backend.open().wrap(|inner| {
        Arc::new(FaultyStore::new(
            inner,
            Faults {
                fail_writes_to: Some("/keys/".to_owned()),
                ..Faults::default()
            },
        ))
    });
    let lease = lease_now(&broken, &session, "a").await;
    let meta = CommitMeta {
        turn: Some(1),
        idempotency_key: Some("k8s job 42".to_owned()),
    };
    match lease
        .commit(Bytes::from(message("0000000d", None, "t")), meta.clone())
        .await
        .unwrap()
    {
        CommitOutcome::Committed {
            checkpoint,
            bookkeeping: Some(error),
        } => {
            assert_eq!(checkpoint.segment, 2);
            assert_eq!(error.kind(), ErrorKind::Unavailable);
        }
        other => panic!("{other:?}"),
    }
    lease.release().await.unwrap();

    let store = backend.open();
    assert_eq!(store.manifest(&session).await.unwrap().unwrap().segments, 1);
    let found = store
        .find_turn_by_key(&session, "k8s job 42")
        .await
        .unwrap()
        .unwrap();
    assert_eq!((found.segment, found.turn), (2, Some(1)));

    // The next holder repairs the bookkeeping when it takes the lease.
    let lease = lease_now(&store, &session, "b").await;
    let manifest = store.manifest(&session).await.unwrap().unwrap();
    assert_eq!((manifest.segments, manifest.last_turn), (2, Some(1)));
    match lease
        .commit(Bytes::from(message("0000000e", None, "t")), meta)
        .await
        .unwrap()
    {
        CommitOutcome::AlreadyCommitted(found) => assert_eq!(found.segment, 2),
        other => panic!("{other:?}"),
    }
    lease.release().await.unwrap();
}

// ---------------------------------------------------------------------------------------------
// The consistency check

async fn passes_the_consistency_check_once_and_records_it(backend: Backend) {
    let counts = Arc::new(common::faulty_store::Counts::default());
    let counted = Arc::clone(&counts);
    let store = backend
        .open()
        .wrap(move |inner| Arc::new(FaultyStore::counting(inner, counted)));
    store.ensure_checked().await.unwrap();
    let first = counts.total();
    assert!(first > 5, "{first} requests");
    store.ensure_checked().await.unwrap();
    assert_eq!(
        counts.total(),
        first + 1,
        "the second time reads the marker only"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_moto_server_passes_the_consistency_check_once_and_records_it() {
    passes_the_consistency_check_once_and_records_it(Backend::s3()).await;
}

/// Create-only (If-None-Match: *) and compare-and-swap (If-Match) writes honoured by Azure's
/// blob service, as Azurite serves it (issue #49: every kind of store URL the README lists).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_azurite_server_passes_the_consistency_check_once_and_records_it() {
    passes_the_consistency_check_once_and_records_it(Backend::azure()).await;
}

async fn refused_by_the_check(faults: Faults, expected: &str) {
    let store = Backend::s3()
        .open()
        .wrap(|inner| Arc::new(FaultyStore::new(inner, faults)));
    let error = store.ensure_checked().await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Inconsistent, "{error:?}");
    assert!(error.to_string().contains(expected), "{error}");
    assert!(!error.is_retryable());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_that_ignores_create_only_writes_is_refused() {
    let faults = Faults {
        ignore_create: true,
        ..Faults::default()
    };
    refused_by_the_check(faults, "If-None-Match is ignored").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_that_ignores_if_match_is_refused() {
    let faults = Faults {
        ignore_if_match: true,
        ..Faults::default()
    };
    refused_by_the_check(faults, "If-Match is ignored").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_whose_listing_lags_behind_its_writes_is_refused() {
    let faults = Faults {
        lagging_listing: true,
        ..Faults::default()
    };
    refused_by_the_check(faults, "a listing right after a write").await;
}

// ---------------------------------------------------------------------------------------------
// Whole files, snapshots, deletion

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn push_then_pull_gives_the_same_file_and_a_continued_file_adds_one_segment() {
    let backend = Backend::s3();
    let store = backend.open();
    let session = new_session();
    let me = holder("pusher");
    let ttl = Duration::from_secs(5);
    let mut file = header(&session) + &message("00000001", None, "one");
    let pushed = store
        .push(&session, Bytes::from(file.clone()), &me, ttl)
        .await
        .unwrap();
    assert_eq!((pushed.segment, pushed.head), (Some(1), 1));
    assert_eq!(
        store.pull(&session).await.unwrap().bytes,
        Bytes::from(file.clone())
    );

    file += &message("00000002", Some("00000001"), "two");
    let pushed = store
        .push(&session, Bytes::from(file.clone()), &me, ttl)
        .await
        .unwrap();
    assert_eq!((pushed.segment, pushed.head), (Some(2), 2));
    let again = store
        .push(&session, Bytes::from(file.clone()), &me, ttl)
        .await
        .unwrap();
    assert_eq!((again.segment, again.head), (None, 2));
    let pulled = backend.open().pull(&session).await.unwrap();
    assert_eq!(pulled.bytes, Bytes::from(file.clone()));
    assert_eq!(pulled.head, 2);

    let diverged = header(&session) + &message("00000009", None, "elsewhere");
    let error = store
        .push(&session, Bytes::from(diverged), &me, ttl)
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Diverged, "{error:?}");
    assert_eq!(store.pull(&session).await.unwrap().bytes, Bytes::from(file));
    let missing = store.pull(&new_session()).await.unwrap_err();
    assert_eq!(missing.kind(), ErrorKind::NotFound);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cold_resume_starts_from_the_snapshot_and_reads_only_the_later_segments() {
    let backend = Backend::s3();
    let store = backend.open();
    let session = new_session();
    seed(&store, &session).await;
    let lease = lease_now(&store, &session, "a").await;
    let mut parent: Option<String> = None;
    for turn in 1..=4_u64 {
        let id = format!("{turn:08x}");
        committed(
            lease
                .commit(
                    Bytes::from(message(&id, parent.as_deref(), "t")),
                    CommitMeta {
                        turn: Some(turn),
                        idempotency_key: None,
                    },
                )
                .await,
        );
        parent = Some(id);
    }
    let snapshot = header(&session) + &message("5a5a5a5a", None, "summary of turns 1 to 3");
    lease
        .write_snapshot(4, Bytes::from(snapshot.clone()))
        .await
        .unwrap();
    committed(
        lease
            .commit(
                Bytes::from(message("00000005", parent.as_deref(), "t")),
                CommitMeta {
                    turn: Some(5),
                    idempotency_key: None,
                },
            )
            .await,
    );
    lease.release().await.unwrap();

    let cold = backend.open();
    let found = cold.read_snapshot(&session).await.unwrap().unwrap();
    assert_eq!(found.through, 4);
    assert_eq!(found.bytes, Bytes::from(snapshot));
    let later = cold
        .read_segments(&session, Some(found.through))
        .await
        .unwrap();
    assert_eq!(
        later
            .iter()
            .map(|segment| (segment.number, segment.turn))
            .collect::<Vec<_>>(),
        // Segment 1 is the header and turn N is segment N + 1: the snapshot through segment
        // 4 stands for turns 1 to 3, and turns 4 and 5 follow it.
        vec![(5, Some(4)), (6, Some(5))]
    );
    let manifest = cold.manifest(&session).await.unwrap().unwrap();
    assert_eq!((manifest.segments, manifest.last_turn), (6, Some(5)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deleting_a_session_removes_its_objects_and_its_names_only() {
    let backend = Backend::s3();
    let store = backend.open();
    let kept = new_session();
    let doomed = new_session();
    seed(&store, &kept).await;
    seed(&store, &doomed).await;
    assert_eq!(
        store.claim_name("doomed", &doomed).await.unwrap(),
        NameClaim::Claimed
    );
    // A claim that lost leaves a reference under the loser; the winner's name stays.
    assert_eq!(
        store.claim_name("kept", &kept).await.unwrap(),
        NameClaim::Claimed
    );
    assert_eq!(
        store.claim_name("kept", &doomed).await.unwrap(),
        NameClaim::Taken(kept.clone())
    );
    let mut sessions = vec![kept.clone(), doomed.clone()];
    sessions.sort();
    assert_eq!(store.list_sessions().await.unwrap(), sessions);

    let lease = lease_now(&store, &doomed, "rm").await;
    lease.delete_session().await.unwrap();
    assert_eq!(store.list_sessions().await.unwrap(), vec![kept.clone()]);
    assert_eq!(store.resolve_name("doomed").await.unwrap(), None);
    assert_eq!(
        store.resolve_name("kept").await.unwrap(),
        Some(kept.clone())
    );
    assert!(store.read_segments(&doomed, None).await.unwrap().is_empty());
    assert_eq!(store.read_segments(&kept, None).await.unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_segment_that_is_not_whole_lines_is_refused_before_anything_is_written() {
    let backend = Backend::s3();
    let store = backend.open();
    let session = new_session();
    let lease = lease_now(&store, &session, "a").await;
    let headless = lease
        .commit(
            Bytes::from(message("00000001", None, "no header")),
            CommitMeta::default(),
        )
        .await
        .unwrap_err();
    assert_eq!(headless.kind(), ErrorKind::Invalid);
    let torn = header(&session) + r#"{"type":"message","id":"0"#;
    let error = lease
        .commit(Bytes::from(torn), CommitMeta::default())
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Invalid);
    assert_eq!(lease.head(), 0);
    lease.release().await.unwrap();
    assert!(
        store
            .read_segments(&session, None)
            .await
            .unwrap()
            .is_empty()
    );
}

// ---------------------------------------------------------------------------------------------
// Listing

async fn session_facts_come_from_one_listing_and_name_only_the_names_it_owns(backend: Backend) {
    let mut counts = None;
    let store = backend.open().wrap(|inner| {
        let faulty = Arc::new(FaultyStore::new(inner, Faults::default()));
        counts = Some(Arc::clone(&faulty.counts));
        faulty
    });
    let counts = counts.unwrap();
    let session = new_session();
    assert_eq!(store.session_facts(&session).await.unwrap(), None);
    seed(&store, &session).await;
    let lease = lease_now(&store, &session, "a").await;
    let turn = message("a1b2c3d4", None, "hi");
    committed(
        lease
            .commit(
                Bytes::from(turn.clone()),
                CommitMeta {
                    turn: Some(7),
                    idempotency_key: Some("step-1".to_owned()),
                },
            )
            .await,
    );
    lease.release().await.unwrap();
    let name = format!("nightly-{session}");
    assert_eq!(
        store.claim_name(&name, &session).await.unwrap(),
        NameClaim::Claimed
    );
    // Another session claims the same name and loses: its claim stays behind, and is not a
    // name of that session.
    let loser = new_session();
    seed(&store, &loser).await;
    assert_eq!(
        store.claim_name(&name, &loser).await.unwrap(),
        NameClaim::Taken(session.clone())
    );

    let lists = counts.lists.load(std::sync::atomic::Ordering::SeqCst);
    let facts = store.session_facts(&session).await.unwrap().unwrap();
    assert_eq!(
        counts.lists.load(std::sync::atomic::Ordering::SeqCst) - lists,
        1,
        "one listing of the session's folder"
    );
    assert_eq!(facts.segments, 2);
    assert_eq!(facts.bytes, (header(&session).len() + turn.len()) as u64);
    assert_eq!(facts.last_turn, Some(7));
    assert_eq!(facts.names, [name]);
    assert!(facts.created.unwrap() <= facts.updated.unwrap());
    let loser_facts = store.session_facts(&loser).await.unwrap().unwrap();
    assert_eq!((loser_facts.segments, loser_facts.names.len()), (1, 0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_facts_on_s3_come_from_one_listing_and_name_only_the_names_it_owns() {
    session_facts_come_from_one_listing_and_name_only_the_names_it_owns(Backend::s3()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_facts_in_memory_come_from_one_listing_and_name_only_the_names_it_owns() {
    session_facts_come_from_one_listing_and_name_only_the_names_it_owns(Backend::memory()).await;
}
