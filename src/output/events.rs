//! One event stream, three renderers (text, json, stream-json).
//!
//! Both engines (`engine/api.rs`, `engine/cli.rs`) report what happens as meaning-level
//! [`Event`]s to an [`EventSink`]; they never ask which output mode is on. Each sink here turns
//! them into the lines of `output/schema.rs` and decides what reaches stdout:
//! - text: the answer (the last assistant message) and a newline, written once, whole, when the
//!   run ends; on a terminal, the text as it streams (a person is reading). Text the model
//!   writes before a tool call is not the answer: it is never written to a stdout that is not a
//!   terminal (the progress shows it on stderr, `output::progress`);
//! - json: nothing until the end, then the one `result` object;
//! - stream-json: one JSON line per event, flushed per line, then the `result` object.
//!
//! A copy of the stream-json lines can also go to an events file: the same lines, byte for byte,
//! when stdout is stream-json too. The progress on stderr (`progress::ProgressSink`) wraps these.
//!
//! Every stream-json line carries a fresh UUIDv4 `uuid`, as claude's do. Lines that stand for a
//! session entry (`assistant`, `user`) name that entry in `entry_id` instead: pi's entry ids are
//! eight hex digits, not UUIDs, and a `uuid` that is sometimes not one would trip scripts.

use std::io;

use serde::Serialize;

use super::partial::PartialMessages;
use super::schema::{
    ApiRetryLine, AssistantContent, AssistantLine, AssistantWire, AssistantWord, AuthRotationLine,
    Base64Word, CheckpointLine, CompactBoundaryLine, CompactMetadata, HookResponseLine,
    HookStartedLine, ImageSource, InitHookLine, InitLine, Line, MessageWord, ModelFallbackLine,
    RawEvent, ReadFile, ReadToolResult, ResultContent, RunResult, StreamEventLine,
    StructuredOutputRetryLine, SystemLine, TextWord, ToolResultWire, ToolResultWord, ToolUseResult,
    UserLine, UserWire, new_uuid,
};
use super::{Format, Stdout};
pub(crate) use super::{OutputSink, Undelivered};
use crate::conversation::{AssistantBlock, ContentBlock};
use crate::engine::event::{AssistantDone, Retry, RetryKind, StructuredRetry, ToolResultDone};
use crate::engine::event::{Event, EventSink};
use crate::hooks::HookProgress;

/// Build the sink for a format, its stream-json lines with `stream_event` and hook lines as the
/// two flags say. With `hold_text` (heartbeat runs), text mode prints nothing until the end, so
/// that a `HEARTBEAT_OK` reply can stay silent. `events_file` gets the stream-json lines
/// whatever the format.
pub(crate) fn sink_for(
    format: Format,
    (include_partial, include_hooks, claude_names): (bool, bool, bool),
    hold_text: bool,
    events_file: Option<EventsFile>,
) -> Box<dyn OutputSink> {
    let base: Box<dyn OutputSink> = match format {
        Format::Text => Box::new(TextSink {
            hold: hold_text,
            stream: !hold_text && super::stdout_is_terminal(),
            ..TextSink::default()
        }),
        Format::Json => Box::new(JsonSink::default()),
        Format::CodexJson => Box::new(super::codex::CodexSink::default()),
        Format::StreamJson => {
            return Box::new(StreamJsonSink {
                lines: StreamJsonLines::new(include_partial)
                    .with_hook_events(include_hooks)
                    .with_claude_names(claude_names),
                stdout: Some(Stdout::new()),
                file: events_file,
                failed: None,
                file_failed: None,
            });
        }
    };
    match events_file {
        Some(file) => Box::new(Tee {
            first: base,
            second: Box::new(StreamJsonSink {
                lines: StreamJsonLines::new(include_partial)
                    .with_hook_events(include_hooks)
                    .with_claude_names(claude_names),
                stdout: None,
                file: Some(file),
                failed: None,
                file_failed: None,
            }),
        }),
        None => base,
    }
}

/// Text mode: the answer, nothing else on stdout (SPEC §3.1). Through a pipe or into a file the
/// answer is written once, whole, at the end (one `write`: parallel runs into one file never
/// interleave, and text before a tool call never lands there); on a terminal it streams.
#[derive(Debug, Default)]
pub(crate) struct TextSink {
    stdout: Stdout,
    /// Write text as it arrives: stdout is a terminal and the answer is not held.
    stream: bool,
    wrote_text: bool,
    ends_with_newline: bool,
    /// Print only at the end (heartbeat runs, structured output).
    hold: bool,
    /// The first write that failed; reported by `finish`.
    failed: Option<io::Error>,
}

impl EventSink for TextSink {
    fn emit(&mut self, event: &Event) {
        if let Event::Notice(text) = event {
            super::progress::stderr_line(&format!("pincer: {text}"));
            return;
        }
        if let Event::StructuredRetry(retry) = event {
            super::progress::stderr_line(&format!("pincer: {}", structured_retry_notice(retry)));
            return;
        }
        if let Event::TextDelta(text) = event
            && !text.is_empty()
            && self.stream
            && !self.hold
            && self.failed.is_none()
        {
            self.wrote_text = true;
            self.ends_with_newline = text.ends_with('\n');
            if let Err(error) = self.stdout.write(text) {
                self.failed = Some(error);
            }
        }
    }
}

impl OutputSink for TextSink {
    fn finish(&mut self, result: &RunResult) -> Result<(), Undelivered> {
        self.answer(result).map_err(Undelivered::Stdout)
    }
}

impl TextSink {
    /// The end of the answer (streamed), or the answer (held until now).
    fn answer(&mut self, result: &RunResult) -> io::Result<()> {
        if let Some(error) = self.failed.take() {
            return Err(error);
        }
        if result.heartbeat_ok == Some(true) {
            return Ok(());
        }
        if self.wrote_text {
            // Streamed on a terminal: only the line is ended.
            return match self.ends_with_newline {
                true => Ok(()),
                false => self.stdout.write("\n"),
            };
        }
        let mut answer = result.answer_text();
        if result.is_error || answer.is_empty() {
            return Ok(());
        }
        if !answer.ends_with('\n') {
            answer.push('\n');
        }
        // One call, one `write(2)`: `Stdout` hands a text that ends in a newline to the
        // descriptor whole.
        self.stdout.write(&answer)
    }
}

/// JSON mode: one object at the end.
#[derive(Debug, Default)]
pub(crate) struct JsonSink {
    stdout: Stdout,
}

impl EventSink for JsonSink {
    fn emit(&mut self, _event: &Event) {}
}

impl OutputSink for JsonSink {
    fn finish(&mut self, result: &RunResult) -> Result<(), Undelivered> {
        self.stdout.json_line(result).map_err(Undelivered::Stdout)
    }
}

/// The stream-json lines of a run: which events make a line, what each line looks like.
#[derive(Debug)]
pub(crate) struct StreamJsonLines {
    include_partial: bool,
    /// `--include-hook-events`: `system/hook_started` and `system/hook_response` lines.
    include_hooks: bool,
    partial: PartialMessages,
    /// From `system/init`, for every later line.
    session_id: Option<String>,
    /// Under an agent SDK, claude's vocabulary: tool names and arguments as claude's
    /// (`Read` with `file_path`), `tool_use_result`, `claude_code_version`. Holds the workspace
    /// from `system/init`, which absolute `file_path`s are made from.
    claude: Option<Option<std::path::PathBuf>>,
    /// Under an agent SDK, each tool call of the turn by id, in claude's name and arguments:
    /// what its `tool_use_result` is made from.
    claude_calls: std::collections::HashMap<String, (String, serde_json::Value)>,
}

impl StreamJsonLines {
    /// The lines of a run, with `stream_event` lines when `include_partial`.
    pub(crate) fn new(include_partial: bool) -> StreamJsonLines {
        StreamJsonLines {
            include_partial,
            include_hooks: false,
            partial: PartialMessages::default(),
            session_id: None,
            claude: None,
            claude_calls: std::collections::HashMap::new(),
        }
    }

    /// In claude's vocabulary, when `claude` (an agent SDK's front-end).
    pub(crate) fn with_claude_names(mut self, claude: bool) -> StreamJsonLines {
        self.claude = claude.then_some(None);
        self
    }

    /// With `system/hook_started` and `system/hook_response` lines too, when `include`.
    pub(crate) fn with_hook_events(mut self, include: bool) -> StreamJsonLines {
        self.include_hooks = include;
        self
    }

    /// The lines for one event (none for the events of text mode and of the progress).
    pub(crate) fn lines(&mut self, event: &Event) -> Vec<Line> {
        let session_id = self.session_id.clone();
        let line = match event {
            Event::Init(init) => {
                self.session_id.clone_from(&init.session_id);
                if let Some(cwd) = &mut self.claude {
                    *cwd = Some(init.cwd.clone());
                }
                self.partial = PartialMessages::new(Some(init.model.clone()));
                Line::System(SystemLine::Init(InitLine {
                    schema_version: super::schema::SchemaVersion,
                    cwd: init.cwd.to_string_lossy().into_owned(),
                    session_id: init.session_id.clone(),
                    // Under an agent SDK the names its `tool_use` blocks use (#47 item 17).
                    tools: init
                        .tools
                        .iter()
                        .map(|tool| match self.claude {
                            Some(_) => crate::tools::claude_name(tool).to_owned(),
                            None => tool.clone(),
                        })
                        .collect(),
                    model: init.model.clone(),
                    provider: init.provider.clone(),
                    backend: init.backend.to_owned(),
                    permission_mode: "default".to_owned(),
                    api_key_source: init.api_key_source.to_owned(),
                    mcp_servers: init
                        .mcp_servers
                        .iter()
                        .map(|server| super::schema::McpServerLine {
                            name: server.name.clone(),
                            status: server.status.clone(),
                            transport: server.transport.clone(),
                            tools: server.tools.clone(),
                            error: server.error.clone(),
                        })
                        .collect(),
                    hooks: init_hooks(&init.hooks),
                    sandbox: super::schema::InitSandboxLine {
                        mode: init.sandbox.to_owned(),
                        network: init.network.to_owned(),
                        network_rules: init.network_rules.clone(),
                        web_search: init.web_search.map(str::to_owned),
                    },
                    refused_files: init
                        .refused_files
                        .iter()
                        .map(|refusal| super::schema::RefusedFileLine {
                            path: refusal.path.to_string_lossy().into_owned(),
                            reason: refusal.reason.clone(),
                            fix: refusal.fix.clone(),
                        })
                        .collect(),
                    pincer_version: env!("CARGO_PKG_VERSION").to_owned(),
                    claude_code_version: self
                        .claude
                        .is_some()
                        .then(|| CLAUDE_PROTOCOL_VERSION.to_owned()),
                    uuid: new_uuid(),
                }))
            }
            Event::Assistant(done) => {
                let mut line = assistant_line(done, session_id);
                if let Some(cwd) = &self.claude {
                    claude_tool_uses(&mut line, cwd.as_deref());
                    for block in &line.message.content {
                        if let AssistantContent::ToolUse { id, name, input } = block {
                            self.claude_calls
                                .insert(id.clone(), (name.clone(), input.clone()));
                        }
                    }
                }
                Line::Assistant(line)
            }
            Event::ToolResult(done) => {
                let mut line = user_line(done, session_id);
                if self.claude.is_some() {
                    let call = self.claude_calls.remove(&done.result.tool_call_id);
                    line.tool_use_result = Some(claude_tool_use_result(done, call.as_ref()));
                }
                Line::User(line)
            }
            Event::Retry(retry) => {
                let discarded = self.starts_over() || retry.kind == RetryKind::DiscardedPartial;
                Line::System(SystemLine::ApiRetry(retry_line(
                    retry, session_id, discarded,
                )))
            }
            Event::Rotation(rotation) => {
                let discarded = self.starts_over();
                Line::System(SystemLine::AuthRotation(AuthRotationLine {
                    provider: rotation.provider.clone(),
                    from_profile: rotation.from.clone(),
                    to_profile: rotation.to.clone(),
                    reason: rotation.reason.to_owned(),
                    session_id,
                    discarded_partial: discarded.then_some(true),
                    uuid: new_uuid(),
                }))
            }
            Event::Fallback(fallback) => {
                let discarded = self.starts_over();
                Line::System(SystemLine::ModelFallback(ModelFallbackLine {
                    from: fallback.from.clone(),
                    to: fallback.to.clone(),
                    reason: fallback.reason.to_owned(),
                    error: fallback.error.clone(),
                    session_id,
                    discarded_partial: discarded.then_some(true),
                    uuid: new_uuid(),
                }))
            }
            Event::Compaction(compaction) => {
                Line::System(SystemLine::CompactBoundary(CompactBoundaryLine {
                    session_id,
                    compact_metadata: CompactMetadata {
                        trigger: compaction.trigger.clone(),
                        pre_tokens: compaction.pre_tokens,
                        post_tokens: compaction.post_tokens,
                    },
                    backend: compaction.backend.map(str::to_owned),
                    uuid: new_uuid(),
                }))
            }
            Event::Hook(progress) if self.include_hooks => {
                Line::System(hook_line(progress, session_id))
            }
            Event::StructuredRetry(retry) => Line::System(SystemLine::StructuredOutputRetry(
                StructuredOutputRetryLine {
                    attempt: retry.attempt,
                    max_retries: retry.max_retries,
                    errors: retry.errors.clone(),
                    session_id,
                    uuid: new_uuid(),
                },
            )),
            Event::NetworkDenial(denial) => Line::System(SystemLine::NetworkDenial(
                super::schema::NetworkDenialLine {
                    host: denial.host.clone(),
                    port: denial.port,
                    reason: denial.reason.code().to_owned(),
                    message: denial.to_string(),
                    hint: denial.hint(),
                    protocol: denial.protocol.as_str().to_owned(),
                    session_id,
                    uuid: new_uuid(),
                },
            )),
            Event::Checkpoint(checkpoint) => Line::System(SystemLine::Checkpoint(CheckpointLine {
                session_id: checkpoint.session_id.clone(),
                segment: checkpoint.segment,
                turn: checkpoint.turn,
                uuid: new_uuid(),
            })),
            Event::Stream(stream) if self.include_partial => {
                let raw = self.partial.on_stream(stream);
                return self.stream_lines(raw);
            }
            Event::MessageEnd(end) if self.include_partial => {
                let raw = self.partial.on_end(end);
                return self.stream_lines(raw);
            }
            _ => return Vec::new(),
        };
        vec![line]
    }

    /// Whether a line that starts the model call over (a retry, another credential or model)
    /// leaves a partial message open: its content is then to be dropped, and the encoder forgets
    /// it, as the loop does for a stream it re-sends after content was shown.
    fn starts_over(&mut self) -> bool {
        if self.include_partial && self.partial.is_open() {
            self.partial.abandon();
            return true;
        }
        false
    }

    fn stream_lines(&self, raw: Vec<RawEvent>) -> Vec<Line> {
        raw.into_iter()
            .map(|event| {
                Line::StreamEvent(StreamEventLine {
                    event,
                    session_id: self.session_id.clone(),
                    parent_tool_use_id: None,
                    uuid: new_uuid(),
                })
            })
            .collect()
    }
}

/// `system/init`'s `hooks`: by event, in declaration order.
fn init_hooks(
    hooks: &[crate::engine::event::InitHook],
) -> std::collections::BTreeMap<String, Vec<InitHookLine>> {
    let mut by_event = std::collections::BTreeMap::<String, Vec<InitHookLine>>::new();
    for hook in hooks {
        by_event
            .entry(hook.event.to_owned())
            .or_default()
            .push(InitHookLine {
                matcher: hook.matcher.clone(),
                command: hook.command.clone(),
                timeout: hook.timeout.as_secs_f64(),
                sandbox: hook.sandbox,
                origin: hook.origin.clone(),
                runner: hook.runner.to_owned(),
            });
    }
    by_event
}

/// The `system/hook_started` or `system/hook_response` line of a hook.
fn hook_line(progress: &HookProgress, session_id: Option<String>) -> SystemLine {
    match progress {
        HookProgress::Started(started) => SystemLine::HookStarted(HookStartedLine {
            hook_id: started.id.clone(),
            hook_name: started.name.clone(),
            hook_event: started.event.to_owned(),
            command: started.command.clone(),
            session_id,
            uuid: new_uuid(),
        }),
        HookProgress::Finished(finished) => SystemLine::HookResponse(HookResponseLine {
            hook_id: finished.id.clone(),
            hook_name: finished.name.clone(),
            hook_event: finished.event.to_owned(),
            output: format!("{}{}", finished.stdout, finished.stderr),
            stdout: finished.stdout.clone(),
            stderr: finished.stderr.clone(),
            exit_code: finished.exit_code,
            outcome: finished.outcome.to_owned(),
            duration_ms: u64::try_from(finished.duration.as_millis()).unwrap_or(u64::MAX),
            session_id,
            uuid: new_uuid(),
        }),
    }
}

/// What text mode says on stderr when an answer is sent back (`-q` included: a cron log shows
/// why the run took more calls).
fn structured_retry_notice(retry: &StructuredRetry) -> String {
    let count = retry.errors.len();
    let first = retry.errors.first().map_or("", String::as_str);
    format!(
        "the answer does not match --json-schema ({count} error{}: {first}); asking again \
         ({} of {})",
        if count == 1 { "" } else { "s" },
        retry.attempt,
        retry.max_retries
    )
}

/// The `assistant` line of a completed message.
fn assistant_line(done: &AssistantDone, session_id: Option<String>) -> AssistantLine {
    let message = &done.message;
    let content = message
        .content
        .iter()
        .flat_map(|block| match block {
            AssistantBlock::Text(text) => vec![AssistantContent::Text {
                text: text.text.clone(),
                citations: super::web_search::citations(&text.citations),
            }],
            AssistantBlock::Thinking(thinking) => vec![AssistantContent::Thinking {
                thinking: thinking.thinking.clone(),
                signature: thinking.signature.clone().unwrap_or_default(),
            }],
            AssistantBlock::ToolCall(call) => vec![AssistantContent::ToolUse {
                id: call.id.clone(),
                name: call.name.clone(),
                input: call.arguments.clone(),
            }],
            AssistantBlock::ServerTool(call) => {
                let mut blocks = vec![AssistantContent::ServerToolUse {
                    id: call.id.clone(),
                    name: call.name.clone(),
                    input: call.input.clone(),
                }];
                if let Some(content) = super::web_search::result_content(call) {
                    blocks.push(AssistantContent::WebSearchToolResult {
                        tool_use_id: call.id.clone(),
                        content,
                    });
                }
                blocks
            }
        })
        .collect();
    AssistantLine {
        message: AssistantWire {
            id: done.message_id.clone(),
            kind: MessageWord::Value,
            role: AssistantWord::Value,
            model: message.model.clone(),
            content,
            stop_reason: done.stop_reason.map(str::to_owned),
            stop_sequence: None,
            usage: super::partial::wire_usage(&message.usage),
            provider_stop_reason: done.provider_stop_reason.clone(),
        },
        parent_tool_use_id: None,
        session_id,
        entry_id: done.entry_id.clone(),
        uuid: new_uuid(),
    }
}

/// The `user` line carrying one tool result.
/// The version of claude's CLI whose stream-json and control protocol the agent-SDK mode
/// follows (the captures of the reference were made with it).
const CLAUDE_PROTOCOL_VERSION: &str = "2.1.197";

/// Tool calls in claude's names and arguments (`exec` is `Bash`, `read`'s `path` is also an
/// absolute `file_path`), as an SDK application and its hooks expect them.
fn claude_tool_uses(line: &mut AssistantLine, cwd: Option<&std::path::Path>) {
    let workspace = cwd.unwrap_or(std::path::Path::new("/"));
    for block in &mut line.message.content {
        if let AssistantContent::ToolUse { name, input, .. } = block {
            *input = crate::hooks::protocol::claude_tool_input(name, input, workspace);
            *name = crate::tools::claude_name(name).to_owned();
        }
    }
}

/// claude's `tool_use_result` for a result, as claude's own tool gives it: `Error: …` when it
/// failed; for `Read` of a text file, the file's lines and where they are; for an MCP tool, its
/// content blocks; else its text. `call` is the call it answers, in claude's name and arguments.
fn claude_tool_use_result(
    done: &ToolResultDone,
    call: Option<&(String, serde_json::Value)>,
) -> ToolUseResult {
    let result = &done.result;
    let text = || {
        result
            .content
            .iter()
            .filter_map(|block| match block {
                ContentBlock::Text(text) => Some(text.text.as_str()),
                ContentBlock::Image(_) => None,
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    if result.is_error {
        return ToolUseResult::Text(format!("Error: {}", text()));
    }
    match call {
        Some((name, input)) if name == "Read" => read_tool_result(result, input)
            .map_or_else(|| ToolUseResult::Text(text()), ToolUseResult::File),
        Some((name, _)) if name.starts_with("mcp__") => {
            ToolUseResult::Content(result_content(&result.content))
        }
        _ => ToolUseResult::Text(text()),
    }
}

/// A `Read` of a text file as claude reports it. The text is the file's lines verbatim, then,
/// when the file goes on, a note after them: the details' `nextOffset` says where the lines
/// end. `None` for an image (no text block) or arguments without a `file_path`.
fn read_tool_result(
    result: &crate::conversation::ToolResultMessage,
    input: &serde_json::Value,
) -> Option<ReadToolResult> {
    let [ContentBlock::Text(text)] = result.content.as_slice() else {
        return None;
    };
    let file_path = input.get("file_path")?.as_str()?.to_owned();
    let start_line = input
        .get("offset")
        .and_then(serde_json::Value::as_u64)
        .unwrap_or(1)
        .max(1);
    let details = result.details.as_ref();
    let number = |key: &str| details.and_then(|details| details.get(key)?.as_u64());
    if text.text == crate::tools::EMPTY_FILE_NOTE {
        let file = ReadFile {
            file_path,
            content: String::new(),
            num_lines: 0,
            start_line,
            total_lines: 0,
        };
        return Some(ReadToolResult {
            kind: TextWord::Value,
            file,
        });
    }
    let (content, num_lines, total_lines) = match (number("nextOffset"), number("totalLines")) {
        (Some(next), Some(total)) => {
            let shown = usize::try_from(next.saturating_sub(start_line)).unwrap_or(usize::MAX);
            let content: String = text.text.split_inclusive('\n').take(shown).collect();
            (content, next.saturating_sub(start_line), total)
        }
        _ => {
            let content = text.text.clone();
            let lines = content.split('\n').count() as u64;
            (content, lines, start_line - 1 + lines)
        }
    };
    Some(ReadToolResult {
        kind: TextWord::Value,
        file: ReadFile {
            file_path,
            content,
            num_lines,
            start_line,
            total_lines,
        },
    })
}

/// A tool result's blocks as the wire shows them.
fn result_content(blocks: &[ContentBlock]) -> Vec<ResultContent> {
    blocks
        .iter()
        .map(|block| match block {
            ContentBlock::Text(text) => ResultContent::Text {
                text: text.text.clone(),
            },
            ContentBlock::Image(image) => ResultContent::Image {
                source: ImageSource {
                    kind: Base64Word::Value,
                    media_type: image.mime_type.clone(),
                    data: image.data.clone(),
                },
            },
        })
        .collect()
}

fn user_line(done: &ToolResultDone, session_id: Option<String>) -> UserLine {
    let result = &done.result;
    let content = result_content(&result.content);
    UserLine {
        message: UserWire {
            role: super::schema::UserWord::Value,
            content: vec![ToolResultWire {
                tool_use_id: result.tool_call_id.clone(),
                kind: ToolResultWord::Value,
                content,
                is_error: result.is_error,
            }],
        },
        parent_tool_use_id: None,
        session_id,
        entry_id: done.entry_id.clone(),
        tool_use_result: None,
        uuid: new_uuid(),
    }
}

/// The `api_retry` line.
fn retry_line(retry: &Retry, session_id: Option<String>, discarded: bool) -> ApiRetryLine {
    ApiRetryLine {
        attempt: retry.attempt,
        delay_ms: retry
            .delay
            .map(|delay| u64::try_from(delay.as_millis()).unwrap_or(u64::MAX)),
        error: retry.error.clone(),
        session_id,
        thinking_level: match retry.kind {
            RetryKind::ThinkingLevel(level) => Some(level.as_str().to_owned()),
            _ => None,
        },
        discarded_partial: discarded.then_some(true),
        uuid: new_uuid(),
    }
}

/// `--events-file`, opened: its errors name it.
pub(crate) struct EventsFile {
    file: std::fs::File,
    path: std::path::PathBuf,
}

impl EventsFile {
    pub(crate) fn new(file: std::fs::File, path: &std::path::Path) -> EventsFile {
        EventsFile {
            file,
            path: path.to_owned(),
        }
    }

    fn write(&mut self, text: &str) -> io::Result<()> {
        use std::io::Write as _;
        self.file.write_all(text.as_bytes()).map_err(|error| {
            io::Error::new(
                error.kind(),
                format!(
                    "cannot write the events file '{}': {error}",
                    self.path.display()
                ),
            )
        })
    }
}

/// stream-json: JSON lines as things happen, to stdout and/or an events file. The two fail
/// apart: an events file that cannot be written any more does not silence stdout.
pub(crate) struct StreamJsonSink {
    lines: StreamJsonLines,
    stdout: Option<Stdout>,
    file: Option<EventsFile>,
    /// The first write to stdout that failed; reported by `finish`.
    failed: Option<io::Error>,
    /// The first write to the events file that failed; it gets no more lines.
    file_failed: Option<io::Error>,
}

impl StreamJsonSink {
    fn write_line<T: Serialize>(&mut self, value: &T) -> io::Result<()> {
        let text = to_json_line(value)?;
        if self.file_failed.is_none()
            && let Some(file) = &mut self.file
            && let Err(error) = file.write(&text)
        {
            self.file_failed = Some(error);
        }
        match &mut self.stdout {
            Some(stdout) => stdout.write(&text),
            None => Ok(()),
        }
    }
}

impl EventSink for StreamJsonSink {
    fn emit(&mut self, event: &Event) {
        if self.failed.is_some() {
            return;
        }
        for line in self.lines.lines(event) {
            if let Err(error) = self.write_line(&line) {
                self.failed = Some(error);
                return;
            }
        }
    }
}

impl OutputSink for StreamJsonSink {
    fn finish(&mut self, result: &RunResult) -> Result<(), Undelivered> {
        let written = match self.failed.take() {
            Some(error) => Err(error),
            // claude ends an interrupted turn as an error during execution, its stream aborted.
            None if self.lines.claude.is_some()
                && result.subtype == super::schema::ResultSubtype::ErrorInterrupted =>
            {
                let mut claude = result.clone();
                claude.subtype = super::schema::ResultSubtype::ErrorDuringExecution;
                "aborted_streaming".clone_into(&mut claude.terminal_reason);
                self.write_line(&claude)
            }
            None => self.write_line(result),
        };
        // Without stdout, what failed is the file.
        let written = match (written, self.stdout.is_some()) {
            (Err(error), true) => Err(Undelivered::Stdout(error)),
            (Err(error), false) => Err(Undelivered::EventsFile(error)),
            (Ok(()), _) => Ok(()),
        };
        let file = match self.file_failed.take() {
            Some(error) => Err(Undelivered::EventsFile(error)),
            None => Ok(()),
        };
        Undelivered::either(written, file)
    }
}

/// Two sinks that see every event (the stdout format and the events file).
struct Tee {
    first: Box<dyn OutputSink>,
    second: Box<dyn OutputSink>,
}

impl EventSink for Tee {
    fn emit(&mut self, event: &Event) {
        self.second.emit(event);
        self.first.emit(event);
    }
}

impl OutputSink for Tee {
    /// Both are finished whatever becomes of the other: the result reaches stdout when the
    /// events file failed.
    fn finish(&mut self, result: &RunResult) -> Result<(), Undelivered> {
        let file = self.second.finish(result);
        let stdout = self.first.finish(result);
        Undelivered::either(stdout, file)
    }
}

/// Serialize an event payload for an events file: the same line stream-json would print.
pub(crate) fn to_json_line<T: Serialize>(value: &T) -> io::Result<String> {
    let mut text = serde_json::to_string(value).map_err(io::Error::other)?;
    text.push('\n');
    Ok(text)
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;
    use crate::conversation::{StreamEvent, TokenUsage};
    use crate::engine::event::{Fallback, Init, MessageEnd, Phase};

    fn json(lines: Vec<Line>) -> Vec<Value> {
        lines
            .into_iter()
            .map(|line| serde_json::to_value(line).unwrap())
            .collect()
    }

    fn init() -> Event {
        Event::Init(Init {
            session_id: Some("s-1".into()),
            cwd: "/w".into(),
            tools: vec!["read".into()],
            model: "m".into(),
            provider: "p".into(),
            backend: "api",
            api_key_source: "environment",
            mcp_servers: Vec::new(),
            hooks: Vec::new(),
            sandbox: "workspace-write",
            network: "off",
            network_rules: None,
            web_search: None,
            refused_files: Vec::new(),
        })
    }

    fn read_result(text: &str, details: Option<Value>) -> crate::conversation::ToolResultMessage {
        crate::conversation::ToolResultMessage {
            tool_call_id: "toolu_1".into(),
            tool_name: "read".into(),
            content: vec![ContentBlock::text(text)],
            details,
            is_error: false,
            timestamp: 0,
        }
    }

    /// Issue #47 item 17: claude's `Read` gives `{type, file: {filePath, content, numLines,
    /// startLine, totalLines}}` (shared/reference/claude-output/stream-json-tool-turn.jsonl:
    /// "…MAGIC…\n" is 3 lines there, a final newline starting an empty last one).
    #[test]
    fn a_whole_file_read_is_claude_s_file_object() {
        let input = serde_json::json!({"file_path": "/w/notes.txt", "path": "notes.txt"});
        let read = read_tool_result(&read_result("alpha\nbeta\n", None), &input).unwrap();
        assert_eq!(
            serde_json::to_value(ToolUseResult::File(read)).unwrap(),
            serde_json::json!({"type": "text", "file": {
                "filePath": "/w/notes.txt", "content": "alpha\nbeta\n",
                "numLines": 3, "startLine": 1, "totalLines": 3
            }})
        );
    }

    #[test]
    fn a_read_window_leaves_the_note_out_and_says_where_it_is() {
        let input = serde_json::json!({"file_path": "/w/big.txt", "offset": 3});
        let text = "l3\nl4\n\n[Showing lines 3-4 of 10. Use offset=5 to continue.]";
        let details = serde_json::json!({"truncated": true, "totalLines": 10, "nextOffset": 5});
        let read = read_tool_result(&read_result(text, Some(details)), &input).unwrap();
        assert_eq!(read.file.content, "l3\nl4\n");
        assert_eq!(
            (
                read.file.num_lines,
                read.file.start_line,
                read.file.total_lines
            ),
            (2, 3, 10)
        );
    }

    /// An MCP tool's result is its content blocks, a failure `Error: …`, anything else its text
    /// (shared/reference/agent-sdk/claude-2.1.197-python-sdk/sdk_mcp_tool.jsonl, hook_pre_tool_use.jsonl).
    #[test]
    fn mcp_results_are_blocks_errors_and_other_tools_are_text() {
        let done = |is_error| ToolResultDone {
            result: crate::conversation::ToolResultMessage {
                is_error,
                ..read_result("value MCPVAL-1", None)
            },
            entry_id: None,
        };
        let call = |name: &str| (name.to_owned(), serde_json::json!({}));
        let json = |result| serde_json::to_value(result).unwrap();
        assert_eq!(
            json(claude_tool_use_result(
                &done(false),
                Some(&call("mcp__fs__get"))
            )),
            serde_json::json!([{"type": "text", "text": "value MCPVAL-1"}])
        );
        assert_eq!(
            json(claude_tool_use_result(
                &done(true),
                Some(&call("mcp__fs__get"))
            )),
            serde_json::json!("Error: value MCPVAL-1")
        );
        assert_eq!(
            json(claude_tool_use_result(&done(false), Some(&call("Bash")))),
            serde_json::json!("value MCPVAL-1")
        );
        assert_eq!(
            json(claude_tool_use_result(&done(false), None)),
            serde_json::json!("value MCPVAL-1")
        );
    }

    #[test]
    fn an_image_read_or_a_read_without_a_path_is_not_a_file_object() {
        let mut image = read_result("", None);
        image.content = Vec::new();
        let input = serde_json::json!({"file_path": "/w/a.png"});
        assert!(read_tool_result(&image, &input).is_none());
        let none = serde_json::json!({"path": "a.txt"});
        assert!(read_tool_result(&read_result("a", None), &none).is_none());
    }

    #[test]
    fn hook_lines_show_only_when_asked_with_claudes_fields() {
        use crate::hooks::{HookFinished, HookProgress};
        let finished = Event::Hook(HookProgress::Finished(HookFinished {
            id: "h1".into(),
            name: "PreToolUse:Bash".into(),
            event: "PreToolUse",
            command: "guard".into(),
            stdout: "".into(),
            stderr: "no\n".into(),
            exit_code: Some(2),
            outcome: "error",
            ending: "exit 2".into(),
            duration: std::time::Duration::from_millis(7),
        }));
        let mut without = StreamJsonLines::new(false);
        assert!(without.lines(&finished).is_empty());
        let mut with = StreamJsonLines::new(false).with_hook_events(true);
        let _ = with.lines(&init());
        let mut line = serde_json::to_value(&with.lines(&finished)[0]).unwrap();
        assert!(line["uuid"].as_str().is_some_and(|uuid| uuid.len() == 36));
        line["uuid"] = Value::Null;
        assert_eq!(
            line,
            serde_json::json!({
                "type": "system", "subtype": "hook_response", "hook_id": "h1",
                "hook_name": "PreToolUse:Bash", "hook_event": "PreToolUse", "output": "no\n",
                "stdout": "", "stderr": "no\n", "exit_code": 2, "outcome": "error",
                "duration_ms": 7, "session_id": "s-1", "uuid": null
            })
        );
    }

    #[test]
    fn partial_lines_show_only_when_asked_and_every_line_gets_a_uuid() {
        let text = Event::Stream(StreamEvent::TextDelta {
            block: 0,
            text: "hi".into(),
        });
        let mut without = StreamJsonLines::new(false);
        assert!(without.lines(&text).is_empty());
        assert!(without.lines(&Event::TextDelta("hi".into())).is_empty());

        let mut with = StreamJsonLines::new(true);
        let init = json(with.lines(&init()));
        assert_eq!(init[0]["type"], "system");
        assert_eq!(init[0]["subtype"], "init");
        let lines = json(with.lines(&text));
        assert_eq!(
            lines.len(),
            3,
            "message_start, block start, delta: {lines:?}"
        );
        let delta = &lines[2];
        assert_eq!(delta["type"], "stream_event");
        assert_eq!(delta["event"]["delta"]["text"], "hi");
        assert_eq!(delta["session_id"], "s-1");
        assert_eq!(delta["parent_tool_use_id"], Value::Null);
        let mut seen = std::collections::BTreeSet::new();
        for line in init.iter().chain(&lines) {
            let uuid = line["uuid"].as_str().unwrap();
            assert_eq!(
                uuid::Uuid::parse_str(uuid).unwrap().get_version_num(),
                4,
                "{line}"
            );
            assert!(seen.insert(uuid.to_owned()), "uuids are fresh per line");
        }
        assert!(with.lines(&Event::Phase(Phase::Compacting)).is_empty());
    }

    #[test]
    fn a_fallback_after_partial_text_marks_that_text_discarded() {
        let mut lines = StreamJsonLines::new(true);
        let fallback = Event::Fallback(Fallback {
            from: "a".into(),
            to: "b".into(),
            reason: "overloaded",
            error: "busy".into(),
        });
        // Nothing shown yet: the line is left as it is.
        assert_eq!(
            json(lines.lines(&fallback))[0].get("discarded_partial"),
            None
        );
        lines.lines(&Event::Stream(StreamEvent::TextDelta {
            block: 0,
            text: "half".into(),
        }));
        assert_eq!(json(lines.lines(&fallback))[0]["discarded_partial"], true);
        // The next call is a message of its own.
        let next = json(lines.lines(&Event::Stream(StreamEvent::TextDelta {
            block: 0,
            text: "whole".into(),
        })));
        assert_eq!(next[0]["event"]["type"], "message_start");
        // Once completed, a later fallback discards nothing.
        lines.lines(&Event::MessageEnd(MessageEnd {
            stop_reason: Some("end_turn"),
            usage: TokenUsage::default(),
        }));
        assert_eq!(
            json(lines.lines(&fallback))[0].get("discarded_partial"),
            None
        );
    }
}
