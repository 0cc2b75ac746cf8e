//! Record and replay (SPEC §15): cassettes of a run's model exchanges.
//!
//! A cassette is a JSONL file ([`format`]): a header line, then one line per interaction — an
//! HTTP exchange with a provider, or one run of a CLI backend's child. A [`Cassette`] is the one
//! handle a run shares between the two places that talk to models: the HTTP transport
//! (`provider::http`, so turns, retries, failover, compaction and `auth test` are all covered
//! without knowing it) and the child supervisor (`backend::child`).
//!
//! - Recording appends each finished interaction as one line, at once. Every string of the line
//!   goes through a [`Redactor`] built from the call's key, the values of sensitive configured
//!   headers and the provider key variables of the environment, which finds keys raw, base64,
//!   hex and percent-encoded; request headers are never written at all. An interaction
//!   interrupted by a signal or the timeout is not written (it has no answer to replay).
//! - Replaying hands out recorded interactions, each at most once, matched against the live
//!   request ([`Matching`]: strict by [`normalize`]d request, or lenient in file order). Nothing
//!   is sent and nothing is started. A request without a match is a [`Miss`] whose text holds
//!   a diff against the nearest recorded request; after a miss every later request misses with
//!   the same report, so no caller can carry on past it (not even one that swallows errors,
//!   like an automatic compaction).

pub mod format;
pub mod matching;
pub mod normalize;

use std::collections::VecDeque;
use std::io::{BufRead as _, Write as _};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio_util::sync::CancellationToken;

pub use format::{ChildInteraction, Chunk, End, EndReason, HttpInteraction, Line};
pub use matching::Matching;

use crate::redact::Redactor;
use matching::Shape;

/// A cassette that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum CassetteError {
    /// The file cannot be read, created or written.
    #[error("cannot {action} the cassette '{}': {source}", .path.display())]
    Io {
        /// What was being done (`read`, `create`, `write to`).
        action: &'static str,
        /// The cassette.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A line is not what a cassette holds.
    #[error("cassette '{}' line {line}: {message}", .path.display())]
    Line {
        /// The cassette.
        path: PathBuf,
        /// The line number, from 1.
        line: usize,
        /// What is wrong with it.
        message: format::FormatError,
    },
}

/// A replayed request that matches no recorded interaction; the text says why, with a diff.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Miss(pub String);

/// How a replay runs.
#[derive(Debug, Clone)]
pub struct ReplayOptions {
    /// Strict or lenient pairing.
    pub matching: Matching,
    /// Wait for each chunk's recorded time offset (`--replay-pace`) instead of going as fast as
    /// possible.
    pub pace: bool,
    /// The live run's workspace, masked in requests before they are compared.
    pub workspace: PathBuf,
}

/// One run's cassette, in record or replay mode.
#[derive(Debug)]
pub struct Cassette {
    path: PathBuf,
    mode: Mode,
}

#[derive(Debug)]
enum Mode {
    Record(Recorder),
    Replay { player: Mutex<Player>, pace: bool },
}

struct Recorder {
    file: Mutex<std::fs::File>,
    /// The provider keys in the environment, whichever provider is called.
    environment_secrets: Vec<String>,
}

impl std::fmt::Debug for Recorder {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Recorder")
            .field("environment_secrets", &self.environment_secrets.len())
            .finish_non_exhaustive()
    }
}

#[derive(Debug)]
struct Player {
    entries: Vec<Entry>,
    matching: Matching,
    workspace: String,
    /// Requests asked for so far (for "request N" in a miss).
    asked: usize,
    /// The report of the first miss, repeated for every later request.
    missed: Option<Miss>,
}

#[derive(Debug)]
struct Entry {
    line: usize,
    interaction: Line,
    used: bool,
    /// The normalized request, computed when first compared.
    normalized: Option<Value>,
}

/// A live request, as the cassette compares it.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// `http` or `child`.
    pub kind: &'static str,
    /// The provider name.
    pub provider: &'a str,
    /// The API path as recorded (see [`recorded_path`]); empty for a child.
    pub path: &'a str,
    /// The request body (HTTP) or `{argv, stdin, files}` (child).
    pub body: &'a Value,
}

impl Cassette {
    /// Open `path` for recording: created with its header when missing or empty, else checked
    /// to be a cassette and appended to (a script's runs can share one cassette).
    pub fn record(path: &Path) -> Result<Cassette, CassetteError> {
        let io = |action, source| CassetteError::Io {
            action,
            path: path.to_owned(),
            source,
        };
        // Never through a link, never into a FIFO or a device (SPEC §10).
        let mut file = crate::fs::open_for_user(path, crate::fs::UserFile::Append)
            .map_err(|error| io("create", error))?;
        let mut first = String::new();
        let mut reader = std::io::BufReader::new(&file);
        while first.trim().is_empty() {
            first.clear();
            if reader
                .read_line(&mut first)
                .map_err(|error| io("read", error))?
                == 0
            {
                break;
            }
        }
        if first.trim().is_empty() {
            let header = serde_json::to_string(&Line::Cassette(format::Header::current()))
                .unwrap_or_default();
            file.write_all(format!("{header}\n").as_bytes())
                .map_err(|error| io("write to", error))?;
        } else {
            format::parse(&first).map_err(|(_, message)| CassetteError::Line {
                path: path.to_owned(),
                line: 1,
                message,
            })?;
        }
        let environment_secrets = crate::redact::KEY_VARIABLES
            .iter()
            .filter_map(|name| std::env::var(name).ok())
            .collect();
        Ok(Cassette {
            path: path.to_owned(),
            mode: Mode::Record(Recorder {
                file: Mutex::new(file),
                environment_secrets,
            }),
        })
    }

    /// Open `path` for replaying; every line is read and checked now.
    pub fn replay(path: &Path, options: ReplayOptions) -> Result<Cassette, CassetteError> {
        let text = std::fs::read_to_string(path).map_err(|source| CassetteError::Io {
            action: "read",
            path: path.to_owned(),
            source,
        })?;
        let lines = format::parse(&text).map_err(|(line, message)| CassetteError::Line {
            path: path.to_owned(),
            line,
            message,
        })?;
        let entries = lines
            .into_iter()
            .map(|(line, interaction)| Entry {
                line,
                interaction,
                used: false,
                normalized: None,
            })
            .collect();
        Ok(Cassette {
            path: path.to_owned(),
            mode: Mode::Replay {
                player: Mutex::new(Player {
                    entries,
                    matching: options.matching,
                    workspace: options.workspace.to_string_lossy().into_owned(),
                    asked: 0,
                    missed: None,
                }),
                pace: options.pace,
            },
        })
    }

    /// Whether requests are answered from the file (no network, no child).
    pub fn is_replay(&self) -> bool {
        matches!(self.mode, Mode::Replay { .. })
    }

    /// Whether a replay keeps the recorded pace.
    pub fn paced(&self) -> bool {
        matches!(self.mode, Mode::Replay { pace: true, .. })
    }

    /// `provider/model` of the first recorded interaction: the model a replay uses when none is
    /// named (`None` when recording or when the cassette is empty).
    pub fn default_model(&self) -> Option<String> {
        let Mode::Replay { player, .. } = &self.mode else {
            return None;
        };
        let player = player.lock().ok()?;
        player
            .entries
            .iter()
            .find_map(|entry| match &entry.interaction {
                Line::Http(http) => Some(format!("{}/{}", http.provider, http.model)),
                Line::Child(child) => Some(format!("{}/{}", child.provider, child.model)),
                Line::Cassette(_) => None,
            })
    }

    /// Append one finished interaction (record mode; a no-op when replaying). `secrets` are the
    /// call's own (its key, sensitive header values), searched for with the environment's.
    pub fn write(&self, mut line: Line, secrets: &[&str]) -> Result<(), CassetteError> {
        let Mode::Record(recorder) = &self.mode else {
            return Ok(());
        };
        let redactor = Redactor::new(
            recorder
                .environment_secrets
                .iter()
                .map(String::as_str)
                .chain(secrets.iter().copied()),
        );
        if !redactor.is_empty() {
            redact_binary_chunks(&mut line, &redactor);
        }
        let mut value = serde_json::to_value(&line).unwrap_or(Value::Null);
        redactor.value(&mut value);
        let mut text = serde_json::to_string(&value).unwrap_or_default();
        text.push('\n');
        let io = |source| CassetteError::Io {
            action: "write to",
            path: self.path.clone(),
            source,
        };
        let mut file = recorder
            .file
            .lock()
            .map_err(|_| io(std::io::Error::other("a writer panicked")))?;
        // One write per line: concurrent runs appending to one cassette do not interleave.
        file.write_all(text.as_bytes()).map_err(io)
    }

    /// The recorded HTTP exchange for a live request.
    pub fn take_http(
        &self,
        provider: &str,
        path: &str,
        body: &Value,
    ) -> Result<HttpInteraction, Miss> {
        let request = Request {
            kind: "http",
            provider,
            path,
            body,
        };
        match self.take(&request)? {
            Line::Http(interaction) => Ok(interaction),
            _ => Err(Miss(
                "replay: internal error: not an HTTP interaction".into(),
            )),
        }
    }

    /// The recorded child run for a live one.
    pub fn take_child(&self, provider: &str, body: &Value) -> Result<ChildInteraction, Miss> {
        let request = Request {
            kind: "child",
            provider,
            path: "",
            body,
        };
        match self.take(&request)? {
            Line::Child(interaction) => Ok(interaction),
            _ => Err(Miss(
                "replay: internal error: not a child interaction".into(),
            )),
        }
    }

    fn take(&self, request: &Request<'_>) -> Result<Line, Miss> {
        let Mode::Replay { player, .. } = &self.mode else {
            return Err(Miss("replay: the cassette is open for recording".into()));
        };
        let mut player = player
            .lock()
            .map_err(|_| Miss("replay: a request panicked".into()))?;
        if let Some(miss) = &player.missed {
            return Err(miss.clone());
        }
        player.asked += 1;
        let found = player.find(request);
        match found {
            Ok(index) => {
                let entry = &mut player.entries[index];
                entry.used = true;
                Ok(entry.interaction.clone())
            }
            Err(miss) => {
                let miss = Miss(player.report(&self.path, request, miss));
                player.missed = Some(miss.clone());
                Err(miss)
            }
        }
    }
}

/// Why [`Player::find`] found nothing.
enum NotFound {
    /// Lenient: the next interaction in order is of another kind, provider or path.
    NextDiffers(usize),
    /// Nothing unused is left.
    Exhausted,
    /// Strict: no unused interaction has an equal request.
    NoEqual,
}

impl Player {
    fn find(&mut self, request: &Request<'_>) -> Result<usize, NotFound> {
        let same_target =
            |entry: &Entry| target_of(&entry.interaction) == target_of_request(request);
        match self.matching {
            Matching::Lenient => {
                let next = self
                    .entries
                    .iter()
                    .position(|entry| !entry.used)
                    .ok_or(NotFound::Exhausted)?;
                if same_target(&self.entries[next]) {
                    Ok(next)
                } else {
                    Err(NotFound::NextDiffers(next))
                }
            }
            Matching::Strict => {
                if self.entries.iter().all(|entry| entry.used) {
                    return Err(NotFound::Exhausted);
                }
                let live = normalize::normalize(request.body, Some(&self.workspace));
                for index in 0..self.entries.len() {
                    let entry = &self.entries[index];
                    if entry.used || !same_target(entry) {
                        continue;
                    }
                    if self.normalized(index) == &live {
                        return Ok(index);
                    }
                }
                Err(NotFound::NoEqual)
            }
        }
    }

    fn normalized(&mut self, index: usize) -> &Value {
        let workspace = self.workspace.clone();
        let entry = &mut self.entries[index];
        entry.normalized.get_or_insert_with(|| {
            normalize::normalize(request_of(&entry.interaction), Some(&workspace))
        })
    }

    /// A recorded interaction's request as a diff shows it.
    fn rendered(&mut self, index: usize) -> String {
        let request = self.normalized(index).clone();
        let (kind, provider, path) = target_of(&self.entries[index].interaction);
        Shape {
            kind,
            provider,
            path,
            request,
        }
        .render()
    }

    fn report(&mut self, path: &Path, request: &Request<'_>, why: NotFound) -> String {
        let name = path.display();
        let what = match request.path {
            "" => format!("{} {}", request.kind, request.provider),
            api_path => format!("{} {} {api_path}", request.kind, request.provider),
        };
        let live = Shape {
            kind: request.kind,
            provider: request.provider,
            path: request.path,
            request: normalize::normalize(request.body, Some(&self.workspace)),
        }
        .render();
        let mut text = format!("replay: request {} ({what}) ", self.asked);
        let nearest = match why {
            NotFound::NextDiffers(index) => {
                let (kind, provider, api_path) = target_of(&self.entries[index].interaction);
                text.push_str(&format!(
                    "is not the next interaction of cassette '{name}': line {} is {kind} {provider} {api_path}",
                    self.entries[index].line
                ));
                Some(index)
            }
            NotFound::Exhausted => {
                text.push_str(&format!(
                    "finds every interaction of cassette '{name}' used ({} recorded)",
                    self.entries.len()
                ));
                self.nearest(request, &live, true)
            }
            NotFound::NoEqual => {
                text.push_str(&format!(
                    "matches no unused interaction of cassette '{name}'"
                ));
                self.nearest(request, &live, false)
            }
        };
        if let Some(index) = nearest {
            let line = self.entries[index].line;
            let recorded = self.rendered(index);
            let label = format!("{name} line {line}");
            text.push_str(&format!(
                "; the nearest recorded request is line {line} (masked parts shown as <…>):\n{}",
                matching::diff(&recorded, &label, &live)
            ));
        } else {
            text.push('\n');
        }
        text.push_str(
            "re-record the cassette with --record, or replay with --replay-mode lenient to take the interactions in order",
        );
        text
    }

    /// The recorded interaction most like the live request: among the unused ones of the same
    /// kind and provider, else among all (`any`, or when none of those is left).
    fn nearest(&mut self, request: &Request<'_>, live: &str, any: bool) -> Option<usize> {
        let same = |entry: &Entry| {
            let (kind, provider, _) = target_of(&entry.interaction);
            kind == request.kind && provider == request.provider
        };
        let mut pool: Vec<usize> = (0..self.entries.len())
            .filter(|&index| !any && !self.entries[index].used && same(&self.entries[index]))
            .collect();
        if pool.is_empty() {
            pool = (0..self.entries.len())
                .filter(|&index| same(&self.entries[index]))
                .collect();
        }
        if pool.is_empty() {
            pool = (0..self.entries.len()).collect();
        }
        let mut best: Option<(usize, f32)> = None;
        for index in pool {
            let score = matching::similarity(&self.rendered(index), live);
            if best.is_none_or(|(_, best_score)| score > best_score) {
                best = Some((index, score));
            }
        }
        best.map(|(index, _)| index)
    }
}

fn target_of(line: &Line) -> (&'static str, &str, &str) {
    match line {
        Line::Http(http) => ("http", &http.provider, &http.path),
        Line::Child(child) => ("child", &child.provider, ""),
        Line::Cassette(_) => ("cassette", "", ""),
    }
}

fn target_of_request<'a>(request: &Request<'a>) -> (&'static str, &'a str, &'a str) {
    (request.kind, request.provider, request.path)
}

fn request_of(line: &Line) -> &Value {
    static NULL: Value = Value::Null;
    match line {
        Line::Http(http) => &http.request,
        Line::Child(child) => &child.request,
        Line::Cassette(_) => &NULL,
    }
}

/// A binary chunk that decodes to text holding a secret is stored as that text, redacted (the
/// redactor cannot look inside base64 it did not make).
fn redact_binary_chunks(line: &mut Line, redactor: &Redactor) {
    let chunks = match line {
        Line::Http(http) => &mut http.chunks,
        Line::Child(child) => &mut child.lines,
        Line::Cassette(_) => return,
    };
    for chunk in chunks.iter_mut().filter(|chunk| chunk.base64.is_some()) {
        let text = String::from_utf8_lossy(&chunk.bytes().unwrap_or_default()).into_owned();
        let redacted = redactor.text(&text);
        if redacted != text {
            *chunk = Chunk::text(chunk.ms, &redacted);
        }
    }
}

/// The path of a request as recorded: query parameters that can carry a credential (`key`,
/// `api_key`, `token`, …) are dropped.
pub fn recorded_path(path: &str) -> String {
    let Some((base, query)) = path.split_once('?') else {
        return path.to_owned();
    };
    let kept: Vec<&str> = query
        .split('&')
        .filter(|pair| {
            let name = pair
                .split('=')
                .next()
                .unwrap_or_default()
                .to_ascii_lowercase();
            !matches!(
                name.as_str(),
                "key"
                    | "api_key"
                    | "apikey"
                    | "api-key"
                    | "token"
                    | "access_token"
                    | "auth"
                    | "password"
                    | "secret"
                    | "sig"
                    | "signature"
            )
        })
        .collect();
    if kept.is_empty() {
        base.to_owned()
    } else {
        format!("{base}?{}", kept.join("&"))
    }
}

/// The model a request is for: the body's `model`, else the `/models/NAME:` part of the path
/// (Gemini).
pub fn model_of(path: &str, body: &Value) -> String {
    if let Some(model) = body.get("model").and_then(Value::as_str) {
        return model.to_owned();
    }
    path.split_once("/models/")
        .map(|(_, rest)| {
            rest.split([':', '?', '/'])
                .next()
                .unwrap_or_default()
                .to_owned()
        })
        .unwrap_or_default()
}

/// The names of request headers whose values may be credentials (for the recorder's redactor).
pub fn is_sensitive_header(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    ["auth", "key", "token", "secret", "cookie", "password"]
        .iter()
        .any(|word| name.contains(word))
}

/// The response headers a cassette keeps.
pub const KEPT_HEADERS: [&str; 6] = [
    "content-type",
    "request-id",
    "x-request-id",
    "retry-after",
    "retry-after-ms",
    "x-should-retry",
];

/// An HTTP exchange being recorded: the body is kept as one chunk per complete SSE event, each
/// stamped with the time its last byte arrived.
#[derive(Debug)]
pub struct HttpTape {
    started: Instant,
    interaction: HttpInteraction,
    pending: Vec<u8>,
    ended: bool,
}

impl HttpTape {
    /// Start recording a request to `provider` at `path` (the API path) with `body`.
    pub fn new(provider: &str, path: &str, body: &Value) -> HttpTape {
        HttpTape {
            started: Instant::now(),
            interaction: HttpInteraction {
                provider: provider.to_owned(),
                model: model_of(path, body),
                method: "POST".to_owned(),
                path: recorded_path(path),
                request: body.clone(),
                status: None,
                headers: std::collections::BTreeMap::new(),
                chunks: Vec::new(),
                end: End {
                    ms: 0,
                    reason: EndReason::Eof,
                    code: None,
                    message: None,
                },
            },
            pending: Vec::new(),
            ended: false,
        }
    }

    fn now_ms(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// The response head arrived.
    pub fn head(&mut self, status: u16, headers: &[(String, String)]) {
        self.interaction.status = Some(status);
        self.interaction.headers = headers.iter().cloned().collect();
    }

    /// Body bytes arrived.
    pub fn chunk(&mut self, bytes: &[u8]) {
        self.pending.extend_from_slice(bytes);
        let ms = self.now_ms();
        while let Some(end) = event_end(&self.pending) {
            let event: Vec<u8> = self.pending.drain(..end).collect();
            self.interaction.chunks.push(Chunk::of(ms, &event));
        }
    }

    /// The body (or the request) ended.
    pub fn end(&mut self, reason: EndReason, message: Option<String>) {
        let ms = self.now_ms();
        if !self.pending.is_empty() {
            let rest = std::mem::take(&mut self.pending);
            self.interaction.chunks.push(Chunk::of(ms, &rest));
        }
        self.interaction.end = End {
            ms,
            reason,
            code: None,
            message,
        };
        self.ended = true;
    }

    /// The finished line. A body that was not read to its end (the parser stopped at an error
    /// event) is kept as far as it was read, ending there.
    pub fn finish(mut self) -> Line {
        if !self.ended {
            self.end(EndReason::Eof, None);
        }
        Line::Http(self.interaction)
    }
}

/// Where the first complete SSE event of `bytes` ends (after its blank line).
fn event_end(bytes: &[u8]) -> Option<usize> {
    (0..bytes.len()).find_map(|index| {
        let rest = &bytes[index..];
        if rest.starts_with(b"\r\n\r\n") {
            Some(index + 4)
        } else if rest.starts_with(b"\n\n") || rest.starts_with(b"\r\r") {
            Some(index + 2)
        } else {
            None
        }
    })
}

/// One step of a replayed body or child run.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Bytes (HTTP) or one line (child), due `at` after the start.
    Chunk {
        /// The recorded offset.
        at: Duration,
        /// The bytes.
        bytes: Vec<u8>,
    },
    /// The recorded end, due `at` after the start.
    End {
        /// The recorded offset.
        at: Duration,
        /// How it ended.
        end: End,
    },
}

/// What a paced wait ended with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wait {
    /// The step is due.
    Ready,
    /// The gap before it is longer than the idle timeout.
    Idle,
    /// The run was cancelled.
    Cancelled,
}

/// A recorded body or child run played back step by step.
#[derive(Debug)]
pub struct Playback {
    started: Instant,
    pace: bool,
    steps: VecDeque<Step>,
}

impl Playback {
    /// Play `chunks` then `end`; offsets count from now.
    pub fn new(chunks: &[Chunk], end: &End, pace: bool) -> Playback {
        let mut steps: VecDeque<Step> = chunks
            .iter()
            .map(|chunk| Step::Chunk {
                at: Duration::from_millis(chunk.ms),
                bytes: chunk.bytes().unwrap_or_default(),
            })
            .collect();
        steps.push_back(Step::End {
            at: Duration::from_millis(end.ms),
            end: end.clone(),
        });
        Playback {
            started: Instant::now(),
            pace,
            steps,
        }
    }

    /// The next step (`None` once the end was handed out).
    pub fn next_step(&mut self) -> Option<Step> {
        self.steps.pop_front()
    }

    /// Wait until `at` after the start when pacing (bounded by `idle`, like a network read);
    /// otherwise only give the runtime a turn, so signals are still seen.
    pub async fn wait(&self, at: Duration, idle: Duration, cancel: &CancellationToken) -> Wait {
        if !self.pace {
            tokio::task::yield_now().await;
            return if cancel.is_cancelled() {
                Wait::Cancelled
            } else {
                Wait::Ready
            };
        }
        let deadline = tokio::time::Instant::from_std(self.started + at);
        tokio::select! {
            () = cancel.cancelled() => Wait::Cancelled,
            slept = tokio::time::timeout(idle, tokio::time::sleep_until(deadline)) => {
                if slept.is_ok() { Wait::Ready } else { Wait::Idle }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const KEY: &str = "sk-ant-CASSETTE-7c1d2e3f4a5b6c7d";

    fn replay(path: &Path, matching: Matching) -> Cassette {
        Cassette::replay(
            path,
            ReplayOptions {
                matching,
                pace: false,
                workspace: PathBuf::from("/live/work"),
            },
        )
        .unwrap()
    }

    fn record_two(path: &Path) {
        let cassette = Cassette::record(path).unwrap();
        for prompt in ["first", "second"] {
            let body = json!({"model": "claude-sonnet-4-5", "messages": [{"role": "user", "content": prompt}]});
            let mut tape = HttpTape::new("anthropic", "/v1/messages", &body);
            tape.head(200, &[("content-type".into(), "text/event-stream".into())]);
            tape.chunk(format!("data: {{\"answer\":\"{prompt}\"}}\n\ndata: par").as_bytes());
            tape.chunk(b"tial\n\n");
            tape.end(EndReason::Eof, None);
            cassette.write(tape.finish(), &[]).unwrap();
        }
    }

    #[test]
    fn a_recorded_body_is_split_into_whole_events() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("c.jsonl");
        record_two(&path);
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert!(lines[0].starts_with(r#"{"type":"cassette","version":1,"#));
        let Line::Http(first) = serde_json::from_str(lines[1]).unwrap() else {
            panic!("{text}")
        };
        let texts: Vec<_> = first
            .chunks
            .iter()
            .map(|c| c.text.clone().unwrap())
            .collect();
        assert_eq!(
            texts,
            ["data: {\"answer\":\"first\"}\n\n", "data: partial\n\n"]
        );
        // Recording again appends under the same header.
        record_two(&path);
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 5);
        assert_eq!(text.matches(r#""type":"cassette""#).count(), 1);
    }

    #[test]
    fn strict_replay_pairs_by_request_and_lenient_by_order() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("c.jsonl");
        record_two(&path);
        let body = |prompt: &str| json!({"model": "claude-sonnet-4-5", "messages": [{"role": "user", "content": prompt}]});
        let strict = replay(&path, Matching::Strict);
        assert_eq!(
            strict.default_model().as_deref(),
            Some("anthropic/claude-sonnet-4-5")
        );
        let second = strict
            .take_http("anthropic", "/v1/messages", &body("second"))
            .unwrap();
        assert_eq!(second.request["messages"][0]["content"], "second");
        let first = strict
            .take_http("anthropic", "/v1/messages", &body("first"))
            .unwrap();
        assert_eq!(first.request["messages"][0]["content"], "first");

        let lenient = replay(&path, Matching::Lenient);
        let taken = lenient
            .take_http("anthropic", "/v1/messages", &body("whatever"))
            .unwrap();
        assert_eq!(taken.request["messages"][0]["content"], "first");
        let miss = lenient
            .take_http("openai", "/v1/responses", &body("x"))
            .unwrap_err();
        assert!(miss.0.contains("is not the next interaction"), "{}", miss.0);
    }

    #[test]
    fn a_miss_shows_a_diff_against_the_nearest_request_and_sticks() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("c.jsonl");
        record_two(&path);
        let cassette = replay(&path, Matching::Strict);
        let body = json!({"model": "claude-sonnet-4-5", "messages": [{"role": "user", "content": "secondly"}]});
        let miss = cassette
            .take_http("anthropic", "/v1/messages", &body)
            .unwrap_err();
        let text = &miss.0;
        assert!(
            text.starts_with(
                "replay: request 1 (http anthropic /v1/messages) matches no unused interaction"
            ),
            "{text}"
        );
        assert!(
            text.contains("nearest recorded request is line 3"),
            "{text}"
        );
        assert!(
            text.contains("-      \"content\": \"second\"\n+      \"content\": \"secondly\"\n"),
            "{text}"
        );
        assert!(
            text.ends_with("to take the interactions in order"),
            "{text}"
        );
        // A later request that would match misses with the same report.
        let good = json!({"model": "claude-sonnet-4-5", "messages": [{"role": "user", "content": "first"}]});
        assert_eq!(
            cassette
                .take_http("anthropic", "/v1/messages", &good)
                .unwrap_err(),
            miss
        );
    }

    #[test]
    fn every_interaction_used_is_a_miss_that_says_so() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("c.jsonl");
        record_two(&path);
        let cassette = replay(&path, Matching::Lenient);
        let body = json!({});
        cassette
            .take_http("anthropic", "/v1/messages", &body)
            .unwrap();
        cassette
            .take_http("anthropic", "/v1/messages", &body)
            .unwrap();
        let miss = cassette
            .take_http("anthropic", "/v1/messages", &body)
            .unwrap_err();
        assert!(
            miss.0
                .contains("request 3 (http anthropic /v1/messages) finds every interaction"),
            "{}",
            miss.0
        );
    }

    #[test]
    fn keys_are_never_written_in_any_encoding() {
        use base64::Engine as _;
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("c.jsonl");
        let cassette = Cassette::record(&path).unwrap();
        let b64 = base64::engine::general_purpose::STANDARD.encode(KEY);
        let hex: String = KEY.bytes().map(|byte| format!("{byte:02x}")).collect();
        let url: String = KEY.bytes().map(|byte| format!("%{byte:02X}")).collect();
        let body = json!({"messages": [KEY, b64, hex, url], KEY: 1});
        let mut tape = HttpTape::new(
            "anthropic",
            &format!("/v1/messages?alt=sse&key={KEY}"),
            &body,
        );
        tape.head(200, &[("request-id".into(), KEY.into())]);
        tape.chunk(format!("data: {KEY}\n\n").as_bytes());
        let mut binary = KEY.as_bytes().to_vec();
        binary.push(0xff);
        tape.chunk(&binary);
        tape.end(EndReason::Reset, Some(format!("reset by {KEY}")));
        cassette.write(tape.finish(), &[KEY]).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        for form in [KEY, &b64, &hex, &url, &KEY[..20]] {
            assert!(!text.contains(form), "{form} in {text}");
        }
        assert!(text.contains(r#""path":"/v1/messages?alt=sse""#), "{text}");
        assert!(text.contains("[REDACTED]"));
    }

    #[test]
    fn a_recording_cassette_never_shows_the_keys_it_redacts_in_debug_output() {
        let recorder = Recorder {
            file: Mutex::new(tempfile::tempfile().unwrap()),
            environment_secrets: vec![KEY.to_owned()],
        };
        let text = format!("{recorder:?}");
        assert!(!text.contains(KEY), "{text}");
    }

    #[test]
    fn the_model_comes_from_the_body_or_a_gemini_path() {
        assert_eq!(model_of("/v1/messages", &json!({"model": "m"})), "m");
        assert_eq!(
            model_of(
                "/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
                &json!({})
            ),
            "gemini-2.5-flash"
        );
    }
}
