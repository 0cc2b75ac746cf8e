//! What the session store costs against a local S3-compatible server (moto, started here): the
//! requests and milliseconds a committed turn adds, and resuming a 1,000-turn session cold
//! (nothing cached: every segment read) and warm (cached up to the head: one listing).
//!
//!     cargo run -q -p pincer-store --example store-bench [TURNS]
//!
//! Numbers only, nothing asserted (moto is a Python server on this machine: real stores have
//! more latency per request and fewer CPU costs; count the requests, and read the milliseconds
//! as the local floor).

#[allow(clippy::expect_used, unreachable_pub)]
#[path = "../tests/common/emulator.rs"]
mod emulator;
#[allow(clippy::expect_used, unreachable_pub)]
#[path = "../tests/common/faulty_store.rs"]
mod faulty_store;
#[allow(clippy::expect_used, unreachable_pub)]
#[path = "../tests/common/s3_server.rs"]
mod s3_server;

use std::error::Error;
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use bytes::Bytes;
use faulty_store::{Counts, FaultyStore};
use pincer_store::{CommitMeta, Environment, Holder, SessionId, Store, StoreOptions};
use s3_server::S3Server;

type Result<T> = std::result::Result<T, Box<dyn Error>>;

fn header(session: &SessionId) -> String {
    format!(
        r#"{{"type":"session","version":3,"id":"{session}","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/work"}}"#
    ) + "\n"
}

/// One turn's lines: a user message and an assistant answer, about 1 kB.
fn turn_lines(turn: u64) -> String {
    let user = format!("{:08x}", turn * 2);
    let assistant = format!("{:08x}", turn * 2 + 1);
    let text = "lorem ipsum dolor sit amet ".repeat(16);
    format!(
        r#"{{"type":"message","id":"{user}","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{{"role":"user","content":"{text}","timestamp":1}}}}"#
    ) + "\n"
        + &format!(
            r#"{{"type":"message","id":"{assistant}","parentId":"{user}","timestamp":"2026-01-01T00:00:02.000Z","message":{{"role":"assistant","content":[{{"type":"text","text":"{text}"}}],"timestamp":2}}}}"#
        )
        + "\n"
}

struct Counted {
    store: Store,
    counts: Arc<Counts>,
}

impl Counted {
    fn open(server: &S3Server, bucket: &str) -> Result<Self> {
        let options = StoreOptions {
            environment: Environment::Given(server.environment()),
            ..StoreOptions::default()
        };
        let counts = Arc::new(Counts::default());
        let wrapped = Arc::clone(&counts);
        let store = Store::open(&format!("s3://{bucket}/bench"), options)?
            .wrap(move |inner| Arc::new(FaultyStore::counting(inner, wrapped)));
        Ok(Self { store, counts })
    }

    /// (total, gets, puts, lists) since the last call.
    fn take(&self) -> [usize; 4] {
        let take = |count: &std::sync::atomic::AtomicUsize| count.swap(0, Ordering::SeqCst);
        let gets = take(&self.counts.gets);
        let puts = take(&self.counts.puts);
        let lists = take(&self.counts.lists);
        let deletes = take(&self.counts.deletes);
        [gets + puts + lists + deletes, gets, puts, lists]
    }
}

fn report(out: &mut impl Write, what: &str, elapsed: Duration, per: u64, counts: [usize; 4]) {
    let per_f = per as f64;
    let _ = writeln!(
        out,
        "{what:<58} {:>9.2} ms {:>6.2} requests (GET {:.2}, PUT {:.2}, LIST {:.2})",
        elapsed.as_secs_f64() * 1000.0 / per_f,
        counts[0] as f64 / per_f,
        counts[1] as f64 / per_f,
        counts[2] as f64 / per_f,
        counts[3] as f64 / per_f,
    );
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<()> {
    let turns: u64 = std::env::args()
        .nth(1)
        .map(|turns| turns.parse())
        .transpose()?
        .unwrap_or(1000);
    let server = S3Server::start()?;
    let bucket = server.bucket();
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "store bench: moto at {}, {turns} turns",
        server.endpoint
    );
    let writer = Counted::open(&server, &bucket)?;
    let session = SessionId::parse(&uuid::Uuid::new_v4().to_string())?;
    let holder = Holder::new("bench", "this-machine");
    let ttl = Duration::from_secs(30);

    // Turns committed under one held lease (a long-running writer).
    let lease = writer
        .store
        .acquire_lease(&session, &holder, ttl, Duration::ZERO)
        .await?;
    lease
        .commit(Bytes::from(header(&session)), CommitMeta::default())
        .await?;
    writer.take();
    let started = Instant::now();
    for turn in 1..=turns {
        lease
            .commit(
                Bytes::from(turn_lines(turn)),
                CommitMeta {
                    turn: Some(turn),
                    idempotency_key: Some(format!("bench-step-{turn}")),
                },
            )
            .await?;
    }
    report(
        &mut out,
        "commit, lease held (with an idempotency key)",
        started.elapsed(),
        turns,
        writer.take(),
    );
    lease.release().await?;

    // One pincer run per turn: take the lease, read what is new since the local copy (here,
    // nothing), commit, give the lease back.
    let runs = (turns / 10).max(10);
    let started = Instant::now();
    let mut head = turns + 1;
    for run in 1..=runs {
        let lease = writer
            .store
            .acquire_lease(&session, &holder, ttl, Duration::ZERO)
            .await?;
        writer.store.read_segments(&session, Some(head)).await?;
        let turn = turns + run;
        lease
            .commit(
                Bytes::from(turn_lines(turn)),
                CommitMeta {
                    turn: Some(turn),
                    idempotency_key: None,
                },
            )
            .await?;
        head = lease.head();
        lease.release().await?;
    }
    report(
        &mut out,
        "whole run: lease, read new, commit, release",
        started.elapsed(),
        runs,
        writer.take(),
    );

    // Resume on another machine.
    let reader = Counted::open(&server, &bucket)?;
    let started = Instant::now();
    let pulled = reader.store.pull(&session).await?;
    report(
        &mut out,
        &format!(
            "cold resume: all {} segments, {} kB",
            pulled.head,
            pulled.bytes.len() / 1024
        ),
        started.elapsed(),
        1,
        reader.take(),
    );
    let started = Instant::now();
    let new = reader
        .store
        .read_segments(&session, Some(pulled.head))
        .await?;
    report(
        &mut out,
        &format!("warm resume: cached to the head ({} new)", new.len()),
        started.elapsed(),
        1,
        reader.take(),
    );
    Ok(())
}
