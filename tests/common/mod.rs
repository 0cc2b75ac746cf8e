//! Shared test harness: a hermetic pincer home per test, pi-format session writers, and a way to
//! run the real binary with a clean environment.

#![allow(
    dead_code,
    reason = "each suite file uses a different part of the harness"
)]

pub mod integrity;
pub mod mock;
pub mod protocols;
pub mod wire;

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};

/// A temporary `PINCER_HOME` and workspace for one test.
pub struct Home {
    pub root: tempfile::TempDir,
    pub home: PathBuf,
    pub workspace: PathBuf,
}

impl Home {
    pub fn new() -> Home {
        let root = tempfile::tempdir().unwrap();
        let home = root.path().join("home");
        let workspace = root.path().join("work");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&workspace).unwrap();
        // Canonical paths: sessions record canonical workspace paths.
        let workspace = std::fs::canonicalize(&workspace).unwrap();
        let home = std::fs::canonicalize(&home).unwrap();
        Home {
            root,
            home,
            workspace,
        }
    }

    pub fn sessions_dir(&self) -> PathBuf {
        self.home.join("sessions")
    }

    /// A `pincer` command with this home, run from the workspace, with no provider keys and no
    /// stdin.
    pub fn cmd(&self) -> assert_cmd::Command {
        let mut command =
            assert_cmd::Command::from_std(self.command_for(assert_cmd::cargo::cargo_bin("pincer")));
        command.write_stdin("");
        command
    }

    /// `program` with the environment of [`Home::cmd`] (only `PATH`, `HOME`, `PINCER_HOME` and
    /// `NO_COLOR`), run from the workspace: for wrappers such as `setpriv … pincer`.
    pub fn command_for(&self, program: impl AsRef<std::ffi::OsStr>) -> std::process::Command {
        let mut command = std::process::Command::new(program);
        command
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.root.path())
            .env("PINCER_HOME", &self.home)
            .env("NO_COLOR", "1")
            .current_dir(&self.workspace);
        command
    }

    /// Store a credential profile with `pincer auth add`, the secret piped in.
    pub fn add_profile(&self, provider: &str, name: &str, key: &str) {
        let output = self
            .cmd()
            .args(["auth", "add", provider, "--name", name])
            .write_stdin(key)
            .output()
            .unwrap();
        assert_eq!(code(&output), 0, "{}", stderr(&output));
    }

    /// Run pincer with `args` and return the output.
    pub fn run(&self, args: &[&str]) -> Output {
        self.cmd().args(args).output().unwrap()
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

/// Take the lock of the session file at `path` the way a running pincer holds it, until the
/// returned file is dropped.
pub fn hold_lock(path: &Path) -> std::fs::File {
    let mut lock_path = path.as_os_str().to_owned();
    lock_path.push(".lock");
    let file = std::fs::File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(lock_path)
        .unwrap();
    file.lock().unwrap();
    file
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

/// The tool results an Anthropic Messages request body sends back: id → (text, is_error).
pub fn tool_results(body: &Value) -> std::collections::HashMap<String, (String, bool)> {
    let mut found = std::collections::HashMap::new();
    for message in body["messages"].as_array().into_iter().flatten() {
        for block in message["content"].as_array().into_iter().flatten() {
            if block["type"] != "tool_result" {
                continue;
            }
            let text = match &block["content"] {
                Value::String(text) => text.clone(),
                Value::Array(parts) => parts
                    .iter()
                    .filter_map(|part| part["text"].as_str())
                    .collect::<Vec<_>>()
                    .join("\n"),
                _ => String::new(),
            };
            found.insert(
                block["tool_use_id"].as_str().unwrap().to_owned(),
                (text, block["is_error"] == true),
            );
        }
    }
    found
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
