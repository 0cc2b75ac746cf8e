//! Shared test harness: a hermetic pincer home per test, the one way to run the binary, the mock
//! provider and its wire formats, and pi-format session writers.
//!
//! # Running pincer: `home.pincer()`
//!
//! Every integration test builds its command with [`Home::pincer`], which returns a [`Pincer`]
//! builder: a clean environment (`PATH`, `HOME` = the test's root, `TMPDIR` = its own `tmp/`
//! (so the rest of the root counts as outside the sandbox), `PINCER_HOME`, `NO_COLOR=1`), run
//! from the workspace, no provider, no stdin. Add what the test needs, then run it:
//!
//! ```ignore
//! let protocol = protocols::anthropic();
//! let server = MockServer::start(vec![Reply::sse(&(protocol.text)(&["hi"]))]);
//! let output = home
//!     .pincer()
//!     .provider(&protocol, &server) // base URL at the mock, protocols::KEY as the key
//!     .key(&protocol, "sk-my-canary") // optional: another key in the same variable
//!     .fast_retries() // optional: retries 10 ms apart instead of the defaults
//!     .args(["run", "-m", protocol.model, "hello"])
//!     .stdin("piped text") // optional: bytes on stdin, then EOF
//!     .output(); // or .success() (the same, asserting exit 0), .spawn() (stdout and stderr
//!                // piped) or .command() (a std::process::Command for anything else)
//! ```
//!
//! - `.providers(&server)`: all four protocols pointed at one mock.
//! - `.provider_url(&protocol, url)`: a URL that is no mock (`http://127.0.0.1:9`).
//! - `.key(&protocol, key)` without `.provider`: a key only (a provider nobody should call).
//! - `.env(…)`, `.env_remove(…)`, `.current_dir(…)`: as on `std::process::Command`.
//! - `.inside("setpriv", [...])`: run as `setpriv … pincer ARGS…` with the same environment.
//! - [`Home::run`]`(&args)` is `home.pincer().args(args).output()`.
//!
//! Do not write a local `fn pincer(…)` or set `PINCER_HOME`/keys/base URLs by hand: if the
//! builder lacks something, add it here.
//!
//! # Protocols: `protocols::all()`
//!
//! [`protocols::Protocol`] is the one per-protocol table: the `-m` value, the key and base-URL
//! variables, the key header, wire builders (text, tool call, thinking, mid-stream error,
//! output limit, error bodies) and readers of request bodies. Scenarios that must hold for every
//! protocol loop over `protocols::all()`; a new per-protocol need is a new field there.
//!
//! # The mock provider: `mock::MockServer`
//!
//! `MockServer::start(replies)` answers the n-th request with the n-th [`mock::Reply`] and
//! records every request (`server.requests()`); `Reply::sse(&(protocol.text)(&["…"]))` streams a
//! wire builder's bytes. Pieces cut (`Piece::Close`), stall (`Piece::Stall`) or hold a reply
//! until the test calls `gate.open()` (`Piece::Wait(gate)`, to keep a run inside a phase).
//!
//! # The JSON output: `schema::printed`
//!
//! `schema::printed(&stdout(&output))` parses every line of `--json` or stream-json output with
//! pincer's own `deny_unknown_fields` types, or says which line does not fit and why;
//! `schema::result_of(&output)` is the result object on the last line.
//!
//! # Skips
//!
//! A test that cannot run on this machine calls [`skip`] (the reason goes to stderr) and
//! returns; it never passes silently.

#![allow(
    dead_code,
    reason = "each suite file uses a different part of the harness"
)]

pub mod command;
pub mod integrity;
pub mod mock;
pub mod protocols;
pub mod s3;
pub mod schema;
pub mod sdk;
pub mod wire;

pub use command::Pincer;

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};

/// A temporary `PINCER_HOME` and workspace for one test.
pub struct Home {
    pub root: tempfile::TempDir,
    pub home: PathBuf,
    pub workspace: PathBuf,
    /// The runs' `TMPDIR` (a writable root of the sandbox), inside `root`.
    pub tmp: PathBuf,
}

impl Home {
    pub fn new() -> Home {
        let root = tempfile::tempdir().unwrap();
        let home = root.path().join("home");
        let workspace = root.path().join("work");
        let tmp = root.path().join("tmp");
        for dir in [&home, &workspace, &tmp] {
            std::fs::create_dir_all(dir).unwrap();
        }
        // Canonical paths: sessions record canonical workspace paths.
        let workspace = std::fs::canonicalize(&workspace).unwrap();
        let home = std::fs::canonicalize(&home).unwrap();
        let tmp = std::fs::canonicalize(&tmp).unwrap();
        Home {
            root,
            home,
            workspace,
            tmp,
        }
    }

    pub fn sessions_dir(&self) -> PathBuf {
        self.home.join("sessions")
    }

    /// The one command builder: pincer in this home, from the workspace, with a clean
    /// environment, no provider and no stdin (see the module header).
    pub fn pincer(&self) -> Pincer {
        Pincer::new(self)
    }

    /// Run pincer with `args` and no provider, and return the output.
    pub fn run(&self, args: &[&str]) -> Output {
        self.pincer().args(args).output()
    }

    /// Store a credential profile with `pincer auth add`, the secret piped in.
    pub fn add_profile(&self, provider: &str, name: &str, key: &str) {
        let output = self
            .pincer()
            .args(["auth", "add", provider, "--name", name])
            .stdin(key)
            .output();
        assert_eq!(code(&output), 0, "{}", stderr(&output));
    }

    /// `pincer auth add PROVIDER --from-env VARIABLE`: a profile that refers to a variable.
    pub fn add_profile_from_env(&self, provider: &str, variable: &str) {
        let output = self
            .pincer()
            .args(["auth", "add", provider, "--from-env", variable])
            .output();
        assert_eq!(code(&output), 0, "{}", stderr(&output));
    }

    /// The lines of the one session file in the store, parsed.
    pub fn session_lines(&self) -> Vec<Value> {
        let files: Vec<PathBuf> = std::fs::read_dir(self.sessions_dir())
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| {
                path.extension()
                    .is_some_and(|extension| extension == "jsonl")
            })
            .collect();
        assert_eq!(files.len(), 1, "{files:?}");
        std::fs::read_to_string(&files[0])
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    }

    /// Write a session file into the store (name as pincer would name it) and return its path.
    pub fn write_session(&self, session: &SessionBuilder) -> PathBuf {
        let dir = self.sessions_dir();
        std::fs::create_dir_all(&dir).unwrap();
        let stamp = session.created.replace([':', '.'], "-");
        let path = dir.join(format!("{stamp}_{}.jsonl", session.id));
        std::fs::write(&path, session.to_jsonl()).unwrap();
        path
    }
}

/// The binary of `examples/{name}.rs`. `cargo test` builds the examples; `cargo test --test all`
/// does not, so a missing binary, or one older than its source, is built here (without the
/// variables cargo sets for tests, which would make it rebuild dependencies that watch them).
pub fn example_binary(name: &str) -> PathBuf {
    let pincer = assert_cmd::cargo::cargo_bin("pincer");
    let binary = pincer.parent().unwrap().join("examples").join(name);
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("examples/{name}.rs"));
    let modified = |path: &Path| path.metadata().and_then(|m| m.modified()).ok();
    if modified(&binary) < modified(&source) {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
        let mut command = std::process::Command::new(cargo);
        for (variable, _) in std::env::vars_os() {
            let variable = variable.to_string_lossy();
            if variable.starts_with("CARGO_")
                && variable != "CARGO_HOME"
                && variable != "CARGO_TARGET_DIR"
            {
                command.env_remove(variable.as_ref());
            }
        }
        let status = command
            .args(["build", "--quiet", "--example", name])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()
            .unwrap();
        assert!(status.success(), "cannot build examples/{name}.rs");
    }
    binary
}

/// Take the lock of the session file at `path` the way a running pincer holds it, until the
/// returned file is dropped.
pub fn hold_lock(path: &Path) -> std::fs::File {
    hold_lock_file(&session_lock_file(path))
}

/// Where pincer keeps the lock file of the session file at `path`: `.locks/<file>.lock` in the
/// session's directory (made when missing).
pub fn session_lock_file(path: &Path) -> PathBuf {
    let locks = path.parent().unwrap().join(".locks");
    std::fs::create_dir_all(&locks).unwrap();
    let mut name = path.file_name().unwrap().to_owned();
    name.push(".lock");
    locks.join(name)
}

/// Take the lock on the lock file `lock_file` (created when missing) the way a running pincer
/// holds it — an open file description lock over the whole file — until the returned file is
/// dropped. A `flock` would not do: the two kinds do not see each other.
pub fn hold_lock_file(lock_file: &Path) -> std::fs::File {
    use nix::fcntl::{FcntlArg, fcntl};
    use nix::libc;
    let file = std::fs::File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(lock_file)
        .unwrap();
    let whole = libc::flock {
        l_type: libc::F_WRLCK as libc::c_short,
        l_whence: libc::SEEK_SET as libc::c_short,
        l_start: 0,
        l_len: 0,
        l_pid: 0,
    };
    fcntl(&file, FcntlArg::F_OFD_SETLK(&whole)).unwrap();
    file
}

/// Say on stderr that `test` did not run, and why; the caller returns.
pub fn skip(test: &str, reason: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "skipped {test}: {reason}");
}

/// A shell snippet that starts a five-minute sleep in the background, under a name holding
/// `directory` (a test's own, with no space or quote in its path), and the marker
/// [`running_with`] finds it by. Process ids do not do: a confined command lives in a PID
/// namespace of its own.
pub fn background_sleeper(directory: &Path) -> (String, String) {
    let marker = directory.join("bg-sleep").display().to_string();
    (
        format!("ln -sf $(command -v sleep) {marker}; {marker} 300 &"),
        marker,
    )
}

/// The host's processes whose command line starts with `marker`.
pub fn running_with(marker: &str) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|entry| entry.file_name().to_string_lossy().parse::<u32>().is_ok())
        .filter(|entry| {
            let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
            let zombie = stat
                .rsplit_once(") ")
                .is_some_and(|(_, rest)| rest.starts_with('Z'));
            let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            !zombie && cmdline.starts_with(marker.as_bytes())
        })
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect()
}

/// No process of `marker` is left, allowing a killed one two seconds to go (a SIGKILL takes
/// effect when the process is next scheduled).
pub fn assert_none_running(marker: &str, what: &str) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
    while !running_with(marker).is_empty() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let left = running_with(marker);
    assert!(left.is_empty(), "{what} survived: pids {left:?}");
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

pub fn code(output: &Output) -> i32 {
    output.status.code().unwrap_or(-1)
}

/// An Anthropic model turn: `text`, then a call of `tool` per `arguments` (ids `{prefix}0`,
/// `{prefix}1`, …); then, once the results are back, the answer "Done.".
pub fn anthropic_tool_turn(
    text: &str,
    (prefix, tool): (&str, &str),
    arguments: &[Value],
    usage: wire::anthropic::Usage4,
) -> Vec<mock::Reply> {
    let calls: Vec<(String, String)> = arguments
        .iter()
        .enumerate()
        .map(|(index, arguments)| (format!("{prefix}{index}"), arguments.to_string()))
        .collect();
    let calls: Vec<(&str, &str, &str)> = calls
        .iter()
        .map(|(id, arguments)| (id.as_str(), tool, arguments.as_str()))
        .collect();
    vec![
        mock::Reply::sse(&wire::anthropic::tool_use_stream(Some(text), &calls, usage)),
        mock::Reply::sse(&wire::anthropic::text_stream(&["Done."], usage)),
    ]
}

/// Builds realistic pi v3 session files line by line.
#[derive(Clone)]
pub struct SessionBuilder {
    pub id: String,
    pub cwd: String,
    pub created: String,
    pub lines: Vec<Value>,
    counter: u32,
    clock: i64,
}

impl SessionBuilder {
    pub fn new(id: &str, cwd: &Path) -> SessionBuilder {
        SessionBuilder {
            id: id.to_owned(),
            cwd: cwd.to_string_lossy().into_owned(),
            created: "2026-11-30T10:00:00.000Z".to_owned(),
            lines: Vec::new(),
            counter: 0,
            clock: 0,
        }
    }

    pub fn created(mut self, timestamp: &str) -> SessionBuilder {
        self.created = timestamp.to_owned();
        self
    }

    fn next_id(&mut self) -> String {
        self.counter += 1;
        format!("{:08x}", 0xa000_0000u32 + self.counter)
    }

    fn last_id(&self) -> Value {
        self.lines
            .last()
            .map_or(Value::Null, |line| line["id"].clone())
    }

    fn timestamp(&mut self) -> (String, i64) {
        self.clock += 1;
        let base = time::OffsetDateTime::parse(
            &self.created,
            &time::format_description::well_known::Rfc3339,
        )
        .unwrap();
        let at = base + time::Duration::seconds(self.clock);
        let iso = format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.000Z",
            at.year(),
            u8::from(at.month()),
            at.day(),
            at.hour(),
            at.minute(),
            at.second()
        );
        (iso, at.unix_timestamp() * 1000)
    }

    /// Append an entry of `kind` with `fields`, child of `parent` (default: the last entry).
    pub fn entry_under(&mut self, parent: Option<&str>, kind: &str, fields: Value) -> String {
        let id = self.next_id();
        let (iso, _) = self.timestamp();
        let parent = match parent {
            Some(parent) => json!(parent),
            None => self.last_id(),
        };
        let mut line = json!({"type": kind, "id": id, "parentId": parent, "timestamp": iso});
        for (key, value) in fields.as_object().unwrap() {
            line[key] = value.clone();
        }
        self.lines.push(line);
        id
    }

    pub fn entry(&mut self, kind: &str, fields: Value) -> String {
        self.entry_under(None, kind, fields)
    }

    pub fn user(&mut self, text: &str) -> String {
        let (_, ms) = self.timestamp();
        self.entry(
            "message",
            json!({"message": {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": ms}}),
        )
    }

    /// An assistant message with pi's usage shape.
    pub fn assistant(&mut self, text: &str, usage: [u64; 4]) -> String {
        self.assistant_with("anthropic", "claude-sonnet-4-5", text, usage, "stop")
    }

    pub fn assistant_with(
        &mut self,
        provider: &str,
        model: &str,
        text: &str,
        [input, output, cache_read, cache_write]: [u64; 4],
        stop_reason: &str,
    ) -> String {
        let (_, ms) = self.timestamp();
        self.entry(
            "message",
            json!({"message": {
                "role": "assistant",
                "content": [{"type": "text", "text": text}],
                "api": "anthropic-messages",
                "provider": provider,
                "model": model,
                "usage": {
                    "input": input, "output": output, "cacheRead": cache_read, "cacheWrite": cache_write,
                    "totalTokens": input + output + cache_read + cache_write,
                    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}
                },
                "stopReason": stop_reason,
                "timestamp": ms
            }}),
        )
    }

    pub fn name(&mut self, name: &str) -> String {
        self.entry("session_info", json!({"name": name}))
    }

    pub fn header(&self) -> Value {
        json!({"type": "session", "version": 3, "id": self.id, "timestamp": self.created, "cwd": self.cwd})
    }

    pub fn to_jsonl(&self) -> String {
        let mut text = serde_json::to_string(&self.header()).unwrap();
        text.push('\n');
        for line in &self.lines {
            text.push_str(&serde_json::to_string(line).unwrap());
            text.push('\n');
        }
        text
    }
}
