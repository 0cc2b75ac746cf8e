//! Locks and staging files (SPEC §5.3, §2, §9.1): every lock wait ends by `--timeout` (exit 124
//! and the result object) and the names lock waits as long as `--wait` says; a lock holder is
//! named honestly, also from another PID namespace; a home on a filesystem whose locks other
//! machines do not see (FUSE, SMB) is refused unless the user says otherwise; and a write killed
//! at any moment leaves no staging file behind, least of all one holding a key.
//!
//! Locks are held by the test itself ([`hold_lock_file`]), which is what a stopped pincer
//! holding them looks like to another run.

use std::path::{Path, PathBuf};
use std::process::{Child, Output, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use pincer::output::schema::ResultSubtype;

use crate::common::mock::{Gate, MockServer, Piece, Reply, split_events};
use crate::common::protocols::{self, Protocol};
use crate::common::schema::result_of;
use crate::common::{Home, Pincer, SessionBuilder, code, hold_lock_file, skip, stderr, stdout};

const PROFILE_KEY: &str = "sk-ant-STAGINGLEAK-5e6f7a8b9c0d1e2f";

fn anthropic() -> Protocol {
    protocols::anthropic()
}

/// A small deterministic generator: reproducible kill points from the printed seed.
struct Lcg(u64);

impl Lcg {
    fn seeded() -> Lcg {
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(7, |since| since.as_nanos() as u64);
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), "seed {seed}");
        Lcg(seed)
    }

    fn below(&mut self, bound: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % bound.max(1)
    }
}

/// Run `command` to its end, or kill it after `limit` (a run that ignores its --timeout must
/// not hold the test up), and say how long it took.
fn timed(command: Pincer, limit: Duration) -> (Duration, Output) {
    let started = Instant::now();
    let mut child = command.spawn();
    while child.try_wait().unwrap().is_none() && started.elapsed() < limit {
        thread::sleep(Duration::from_millis(10));
    }
    let _ = child.kill();
    let output = child.wait_with_output().unwrap();
    (started.elapsed(), output)
}

/// The run ended by its `--timeout 2`: soon after two seconds (not at a lock's own wait of 5,
/// 10 or 30 s), exit 124, and in JSON mode a result object saying so.
fn assert_timed_out_at_two_seconds(what: &str, (elapsed, output): &(Duration, Output)) {
    assert!(
        *elapsed >= Duration::from_millis(1_900) && *elapsed < Duration::from_millis(3_500),
        "{what}: ended after {elapsed:?}, not by its --timeout 2 (exit {}): {}",
        code(output),
        stderr(output)
    );
    assert_eq!(code(output), 124, "{what}: {}", stderr(output));
    let result = result_of(output);
    assert_eq!(result.subtype, ResultSubtype::ErrorTimeout, "{what}");
    assert!(result.is_error, "{what}");
}

/// `pincer ARGS… --no-stdin --json --timeout 2 PROMPT` against `server`, timed (see [`timed`]).
fn with_timeout_two(
    home: &Home,
    server: &MockServer,
    args: &[&str],
    prompt: &str,
) -> (Duration, Output) {
    timed(
        home.pincer()
            .provider(&anthropic(), server)
            .args(args)
            .args(["--no-stdin", "--json", "--timeout", "2", prompt]),
        Duration::from_secs(40),
    )
}

fn kill_after(mut child: Child, delay: Duration) {
    thread::sleep(delay);
    let _ = child.kill();
    let _ = child.wait();
}

/// Names in `dir` that are pincer's staging files (what a write killed half-way leaves).
fn staging_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            let name = path.file_name().unwrap().to_string_lossy();
            (name.starts_with(".pincer-") && name != ".pincer-swept")
                || name.starts_with(".auth-profiles-")
        })
        .collect()
}

/// A session of `messages` user messages of 100 KB each, so that writing a copy takes a while.
fn big_session(home: &Home, messages: usize) -> String {
    let id = "0199b000-0000-7000-8000-00000000b16b";
    let mut session = SessionBuilder::new(id, &home.workspace);
    let text = "x".repeat(100_000);
    for _ in 0..messages {
        session.user(&text);
    }
    home.write_session(&session);
    id.to_owned()
}

/// Guards item 2 of the third reliability issue: `auth add` and runs that record a
/// credential's outcome in the store, SIGKILLed at random moments, leave no staging file that
/// holds the key (a command that read one used to send a removed key on); the next write of the
/// store leaves no staging file at all.
#[test]
fn auth_writes_killed_at_random_leave_no_staging_file_holding_a_key() {
    let home = Home::new();
    let protocol = anthropic();
    home.add_profile("anthropic", "main", PROFILE_KEY);
    let server =
        MockServer::start_cycle(vec![Reply::sse(&(protocol.text)(&["fine"]))], "127.0.0.1:0");
    let run = || {
        home.pincer().provider(&protocol, &server).args([
            "run",
            "-m",
            protocol.model,
            "--no-stdin",
            "hello",
        ])
    };
    // How long each takes here, so that the kills spread over the whole command.
    let started = Instant::now();
    run().success();
    let run_time = started.elapsed().as_micros() as u64;
    let started = Instant::now();
    home.add_profile("anthropic", "spare", PROFILE_KEY);
    let add_time = started.elapsed().as_micros() as u64;
    let mut random = Lcg::seeded();
    for round in 0..40 {
        let add = home
            .pincer()
            .args(["auth", "add", "anthropic", "--name", &format!("k{round}")])
            .stdin(PROFILE_KEY)
            .spawn();
        kill_after(add, Duration::from_micros(random.below(add_time)));
        kill_after(run().spawn(), Duration::from_micros(random.below(run_time)));
    }
    for path in staging_files(&home.home) {
        let bytes = std::fs::read(&path).unwrap_or_default();
        assert!(
            !String::from_utf8_lossy(&bytes).contains(PROFILE_KEY),
            "{} holds the key",
            path.display()
        );
    }
    home.add_profile("anthropic", "last", PROFILE_KEY);
    assert_eq!(staging_files(&home.home), Vec::<PathBuf>::new());
}

/// Guards item 2: a fork of a big session killed at random moments leaves no staging file (one
/// fork of a 200 MB session used to leave 96 MB behind for good).
#[test]
fn a_fork_of_a_big_session_killed_at_random_leaves_no_staging_file() {
    let home = Home::new();
    let id = big_session(&home, 60);
    let fork = || {
        home.pincer()
            .args(["sessions", "fork", &id])
            .command()
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    };
    let started = Instant::now();
    assert!(fork().wait().unwrap().success());
    let fork_time = started.elapsed().as_micros() as u64;
    let mut random = Lcg::seeded();
    for round in 0..12 {
        // Reading and checking the session comes first: kill mostly while the copy is written,
        // and at once if a staging file shows up.
        let delay = Duration::from_micros(fork_time / 3 + random.below(fork_time * 2 / 3));
        let mut child = fork();
        let started = Instant::now();
        while started.elapsed() < delay
            && staging_files(&home.sessions_dir()).is_empty()
            && child.try_wait().unwrap().is_none()
        {
            thread::sleep(Duration::from_micros(500));
        }
        kill_after(child, Duration::ZERO);
        assert_eq!(
            staging_files(&home.sessions_dir()),
            Vec::<PathBuf>::new(),
            "round {round}: killed after {:?}",
            started.elapsed()
        );
    }
}

/// Guards item 2: what a killed writer left — a staging file nobody holds, or one of an older
/// pincer's (random names, no lock) once it is old — is removed by the next write in its
/// directory; a staging file a live writer holds is not.
#[test]
fn staging_files_of_dead_writers_are_swept_by_the_next_write_and_live_ones_kept() {
    let home = Home::new();
    let sessions = home.sessions_dir();
    std::fs::create_dir_all(&sessions).unwrap();
    let dead = [
        home.home.join(".pincer-stage-0123456789abcdef"),
        sessions.join(".pincer-stage-fedcba9876543210"),
    ];
    let legacy = [
        home.home.join(".auth-profiles-a1B2c3.tmp"),
        sessions.join(".pincer-new-Xy12Zw"),
        sessions.join(".pincer-tmp-Qw34Er"),
    ];
    let live = sessions.join(".pincer-stage-00000000000000aa");
    let hour_ago = std::time::SystemTime::now() - Duration::from_secs(3_600);
    for path in dead.iter().chain(&legacy).chain([&live]) {
        std::fs::write(path, PROFILE_KEY).unwrap();
    }
    for path in &legacy {
        std::fs::File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(hour_ago)
            .unwrap();
    }
    let _writer = hold_lock_file(&live);
    // A write of the credential store, and one of the sessions directory.
    home.add_profile("anthropic", "main", PROFILE_KEY);
    let protocol = anthropic();
    let server = MockServer::start(vec![Reply::sse(&(protocol.text)(&["fine"]))]);
    home.pincer()
        .provider(&protocol, &server)
        .args(["run", "-m", protocol.model, "--no-stdin", "hello"])
        .success();
    for path in dead.iter().chain(&legacy) {
        assert!(!path.exists(), "{} was left", path.display());
    }
    assert!(live.exists(), "a live writer's staging file was removed");
}

/// Guards item 3: the names lock honours `--wait` (it used to wait a fixed 30 s, then exit
/// 75), and says who holds it.
#[test]
fn a_held_names_lock_is_waited_for_as_long_as_wait_says() {
    let home = Home::new();
    std::fs::create_dir_all(home.sessions_dir()).unwrap();
    let _held = hold_lock_file(&home.sessions_dir().join("names.lock"));
    let protocol = anthropic();
    let server = MockServer::start(vec![Reply::sse(&(protocol.text)(&["fine"]))]);
    let (elapsed, output) = timed(
        home.pincer().provider(&protocol, &server).args([
            "run",
            "-m",
            protocol.model,
            "--no-stdin",
            "--name",
            "nightly",
            "--wait",
            "1",
            "hello",
        ]),
        Duration::from_secs(10),
    );
    assert!(
        elapsed >= Duration::from_millis(950) && elapsed < Duration::from_millis(2_500),
        "ended after {elapsed:?}: {}",
        stderr(&output)
    );
    assert_eq!(code(&output), 75, "{}", stderr(&output));
    assert!(stderr(&output).contains("--wait"), "{}", stderr(&output));
    assert!(server.requests().is_empty());
}

/// Guards item 3: a names lock that another process does not let go of ends the run at its
/// `--timeout` with exit 124 and the result object.
#[test]
fn a_held_names_lock_ends_the_run_at_its_timeout() {
    let home = Home::new();
    std::fs::create_dir_all(home.sessions_dir()).unwrap();
    let _held = hold_lock_file(&home.sessions_dir().join("names.lock"));
    let protocol = anthropic();
    let server = MockServer::start(vec![Reply::sse(&(protocol.text)(&["fine"]))]);
    for args in [
        &["run", "--name", "nightly"][..],
        &["resume", "--create", "nightly"][..],
    ] {
        let args = [args, &["-m", protocol.model, "--wait", "60"]].concat();
        let timed_run = with_timeout_two(&home, &server, &args, "hello");
        assert_timed_out_at_two_seconds(&args.join(" "), &timed_run);
    }
    assert!(server.requests().is_empty());
}

/// Guards item 4: a stopped holder of the index database's write lock (10 s of busy waiting)
/// does not keep `resume --timeout 2` past two seconds.
#[test]
fn a_held_index_lock_ends_a_resume_at_its_timeout() {
    let home = Home::new();
    let protocol = anthropic();
    let server =
        MockServer::start_cycle(vec![Reply::sse(&(protocol.text)(&["fine"]))], "127.0.0.1:0");
    home.pincer()
        .provider(&protocol, &server)
        .args(["run", "-m", protocol.model, "--no-stdin", "first"])
        .success();
    let held = rusqlite::Connection::open(home.sessions_dir().join("index.sqlite3")).unwrap();
    held.execute_batch("BEGIN EXCLUSIVE").unwrap();
    let timed_run = with_timeout_two(&home, &server, &["resume", "--last"], "again");
    assert_timed_out_at_two_seconds("resume --last", &timed_run);
}

/// Guards item 4: a stopped holder of the credential store's lock (10 s of waiting) does not
/// keep a run past its `--timeout 2`, and the run says it timed out.
#[test]
fn a_held_credential_store_lock_ends_a_run_at_its_timeout() {
    let home = Home::new();
    home.add_profile("anthropic", "main", PROFILE_KEY);
    let protocol = anthropic();
    let server = MockServer::start(vec![Reply::sse(&(protocol.text)(&["fine"]))]);
    let _held = hold_lock_file(&home.home.join("auth-profiles.json.lock"));
    let timed_run = with_timeout_two(&home, &server, &["run", "-m", protocol.model], "hello");
    assert_timed_out_at_two_seconds("run with a profile", &timed_run);
}

/// Guards item 4 for the session lock: `--wait 60 --timeout 2` ends at two seconds.
#[test]
fn a_held_session_lock_ends_a_waiting_resume_at_its_timeout() {
    let home = Home::new();
    let protocol = anthropic();
    let server = MockServer::start(vec![Reply::sse(&(protocol.text)(&["fine"]))]);
    let mut session = SessionBuilder::new("0199b000-0000-7000-8000-0000000000aa", &home.workspace);
    session.user("hi");
    let path = home.write_session(&session);
    let _held = crate::common::hold_lock(&path);
    let timed_run = with_timeout_two(
        &home,
        &server,
        &[
            "resume",
            "0199b000-0000-7000-8000-0000000000aa",
            "--wait",
            "60",
        ],
        "again",
    );
    assert_timed_out_at_two_seconds("resume --wait 60", &timed_run);
}

/// Guards item 9: a run holding a session from another PID namespace (a container sharing the
/// home) is not called "process 1": the busy message says it is in another PID namespace and
/// that pincer cannot tell whether it is alive.
#[test]
fn a_holder_in_another_pid_namespace_is_named_honestly() {
    let probe = std::process::Command::new("unshare")
        .args(["-Urp", "--fork", "true"])
        .output();
    if !probe.is_ok_and(|output| output.status.success()) {
        skip(
            "a_holder_in_another_pid_namespace_is_named_honestly",
            "cannot make a PID namespace here (unshare -Urp --fork)",
        );
        return;
    }
    let home = Home::new();
    let protocol = anthropic();
    let gate = Gate::new();
    let mut held = vec![Piece::Wait(gate.clone())];
    held.extend(
        split_events(&(protocol.text)(&["late"]))
            .into_iter()
            .map(Piece::Data),
    );
    let server = MockServer::start(vec![
        Reply::sse(&(protocol.text)(&["first"])),
        Reply::sse_pieces(held),
    ]);
    let id = "0199b000-0000-7000-8000-0000000000bb";
    home.pincer()
        .provider(&protocol, &server)
        .args(["run", "-m", protocol.model, "--no-stdin"])
        .args(["--session-id", id, "first"])
        .success();
    let holder = home
        .pincer()
        .provider(&protocol, &server)
        .inside("unshare", ["-Urp", "--fork"])
        .args(["resume", id, "--no-stdin", "held"])
        .spawn();
    // Wait for it to hold the session: its request reaches the mock.
    let deadline = Instant::now() + Duration::from_secs(20);
    while server.requests().len() < 2 && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(20));
    }
    let output = home
        .pincer()
        .provider(&protocol, &server)
        .args(["resume", id, "--no-stdin", "second"])
        .output();
    gate.open();
    let held_output = holder.wait_with_output().unwrap();
    assert_eq!(code(&held_output), 0, "{}", stderr(&held_output));
    let message = stderr(&output);
    assert_eq!(code(&output), 75, "{message}");
    assert!(!message.contains("process 1)"), "{message}");
    assert!(!message.contains("process 1 "), "{message}");
    assert!(message.contains("another PID namespace"), "{message}");
    assert!(message.contains("cannot tell"), "{message}");
    assert_eq!(stdout(&output), "");
}

/// Guards item 10: on a FUSE mount (bindfs here; sshfs is FUSE too) locks are local to the
/// machine, so pincer refuses to write sessions there, naming the filesystem and the override;
/// with the override it works.
#[test]
fn a_home_on_fuse_is_refused_unless_the_override_is_given() {
    let home = Home::new();
    let source = home.root.path().join("fuse-source");
    let mount = home.root.path().join("fuse-home");
    std::fs::create_dir_all(&source).unwrap();
    std::fs::create_dir_all(&mount).unwrap();
    let mounted = std::process::Command::new("bindfs")
        .arg(&source)
        .arg(&mount)
        .output();
    if !mounted.is_ok_and(|output| output.status.success()) {
        skip(
            "a_home_on_fuse_is_refused_unless_the_override_is_given",
            "no FUSE mount can be made here (bindfs missing or /dev/fuse unusable)",
        );
        return;
    }
    struct Unmount(PathBuf);
    impl Drop for Unmount {
        fn drop(&mut self) {
            let _ = std::process::Command::new("fusermount")
                .arg("-u")
                .arg(&self.0)
                .status();
        }
    }
    let _unmount = Unmount(mount.clone());
    let protocol = anthropic();
    let server =
        MockServer::start_cycle(vec![Reply::sse(&(protocol.text)(&["fine"]))], "127.0.0.1:0");
    let run = || {
        home.pincer()
            .provider(&protocol, &server)
            .env("PINCER_HOME", &mount)
            .args(["run", "-m", protocol.model, "--no-stdin", "hello"])
    };
    let output = run().output();
    let message = stderr(&output);
    assert_eq!(code(&output), 2, "{message}");
    assert!(message.contains("FUSE"), "{message}");
    assert!(message.contains("allow_local_locks"), "{message}");
    assert!(message.contains("PINCER_ALLOW_LOCAL_LOCKS"), "{message}");
    assert!(server.requests().is_empty());
    run().env("PINCER_ALLOW_LOCAL_LOCKS", "1").success();
    run()
        .args(["-c", "sessions.allow_local_locks=true"])
        .success();
    assert_eq!(
        staging_files(&mount.join("sessions")),
        Vec::<PathBuf>::new()
    );
}

/// Reliability IV (#46) item 1: a command that finds the index being built by another process
/// waits for that builder instead of summarizing every session into memory itself, and the wait
/// ends at its `--timeout` with exit 124 and the result object.
#[test]
fn a_command_waiting_for_another_processs_index_build_ends_at_its_timeout() {
    let home = Home::new();
    let protocol = anthropic();
    let server =
        MockServer::start_cycle(vec![Reply::sse(&(protocol.text)(&["fine"]))], "127.0.0.1:0");
    home.pincer()
        .provider(&protocol, &server)
        .args(["run", "-m", protocol.model, "--no-stdin", "first"])
        .success();
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(home.sessions_dir().join(format!("index.sqlite3{suffix}")));
    }
    let held = hold_lock_file(
        &home
            .sessions_dir()
            .join(".locks")
            .join("index.sqlite3.build.lock"),
    );
    let timed_run = with_timeout_two(&home, &server, &["resume", "--last"], "again");
    assert_timed_out_at_two_seconds("resume --last", &timed_run);
    // Once the builder is gone, the next command builds the index and resumes.
    drop(held);
    let output = home
        .pincer()
        .provider(&protocol, &server)
        .args(["resume", "--last", "--no-stdin", "again"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
}
