//! The cassette file, version 1: JSON lines, one per interaction, after a header line.
//!
//! ```text
//! {"type":"cassette","version":1,"pincer":"0.1.0"}
//! {"type":"http","provider":"anthropic","model":"claude-sonnet-4-5","method":"POST","path":"/v1/messages","request":{…},"status":200,"headers":{"content-type":"text/event-stream"},"chunks":[{"ms":0,"text":"event: message_start\ndata: {…}\n\n"},…],"end":{"ms":41,"reason":"eof"}}
//! {"type":"child","provider":"claude-cli","model":"sonnet","request":{"argv":[…],"stdin":null,"files":{"system-prompt.md":"…"}},"lines":[{"ms":3,"text":"{\"type\":\"system\",…}"},…],"stderr":"","end":{"ms":90,"reason":"exit","code":0}}
//! ```
//!
//! Keys come in a fixed order (the order of the fields below; the request body keeps the order
//! it was sent in), so that re-recording a run gives a reviewable diff. Unknown fields are
//! ignored, so later versions may add some; a header with a higher version is refused. Several
//! header lines may appear (cassettes concatenated); each is checked.

use std::collections::BTreeMap;

use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The version this build writes and the highest it reads.
pub const VERSION: u32 = 1;

/// One line of a cassette.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Line {
    /// The header: what wrote the file.
    Cassette(Header),
    /// One HTTP exchange with a model provider (one attempt: a retried call is several).
    Http(HttpInteraction),
    /// One run of a CLI backend's child process.
    Child(ChildInteraction),
}

/// The first line of every cassette.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// The format version ([`VERSION`]).
    pub version: u32,
    /// The pincer version that created the file.
    #[serde(default)]
    pub pincer: String,
}

impl Header {
    /// The header this build writes.
    pub fn current() -> Header {
        Header {
            version: VERSION,
            pincer: env!("CARGO_PKG_VERSION").to_owned(),
        }
    }
}

/// A model request and the response as it arrived.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HttpInteraction {
    /// The provider name (`anthropic`, `openai`, `ollama`, …).
    pub provider: String,
    /// The model the request was for, as the provider spells it.
    pub model: String,
    /// `POST`.
    pub method: String,
    /// The API path after the provider's base URL, query included (credential parameters
    /// removed): `/v1/messages`, `/models/gemini-2.5-flash:streamGenerateContent?alt=sse`.
    pub path: String,
    /// The JSON body as sent. Request headers are never recorded.
    pub request: Value,
    /// The HTTP status; absent when no response arrived (`end` says why).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// The response headers that matter (content type, request id, retry hints), names in
    /// lower case.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    /// The body: one chunk per complete SSE event (an error body is one chunk).
    #[serde(default)]
    pub chunks: Vec<Chunk>,
    /// How the body ended.
    pub end: End,
}

/// A CLI child's run: what it was given and what it printed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChildInteraction {
    /// `claude-cli` or `codex-cli`.
    pub provider: String,
    /// pincer's model id for it (`sonnet`, `gpt-5-codex`).
    pub model: String,
    /// `{"argv": [...], "stdin": text or null, "files": {name: text}}`: the arguments after the
    /// program, the bytes on stdin, and the files written for it (the system prompt).
    pub request: Value,
    /// Its stdout, one entry per line (without the line end).
    #[serde(default)]
    pub lines: Vec<Chunk>,
    /// The tail of its stderr.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub stderr: String,
    /// How it ended.
    pub end: End,
}

/// Bytes that arrived `ms` milliseconds after the request was sent (or the child started).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Chunk {
    /// The time offset.
    pub ms: u64,
    /// The bytes, when they are UTF-8 (always, for well-formed streams).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The bytes in standard base64, when they are not UTF-8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base64: Option<String>,
}

impl Chunk {
    /// A chunk of `bytes` at `ms`: text when it is UTF-8, else base64.
    pub fn of(ms: u64, bytes: &[u8]) -> Chunk {
        match std::str::from_utf8(bytes) {
            Ok(text) => Chunk::text(ms, text),
            Err(_) => Chunk {
                ms,
                text: None,
                base64: Some(base64::engine::general_purpose::STANDARD.encode(bytes)),
            },
        }
    }

    /// A text chunk.
    pub fn text(ms: u64, text: &str) -> Chunk {
        Chunk {
            ms,
            text: Some(text.to_owned()),
            base64: None,
        }
    }

    /// The chunk's bytes, or why it has none.
    pub fn bytes(&self) -> Result<Vec<u8>, FormatError> {
        match (&self.text, &self.base64) {
            (Some(text), None) => Ok(text.as_bytes().to_vec()),
            (None, Some(encoded)) => base64::engine::general_purpose::STANDARD
                .decode(encoded)
                .map_err(FormatError::Base64),
            _ => Err(FormatError::ChunkForm),
        }
    }
}

/// How a response body or a child's run ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct End {
    /// The time offset.
    pub ms: u64,
    /// Why.
    pub reason: EndReason,
    /// The child's exit code (`reason: exit`; absent for a death by signal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<i32>,
    /// What broke (`reason: reset`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// Why a response or a child's run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// The body ended normally.
    Eof,
    /// The connection failed or broke.
    Reset,
    /// Nothing arrived within the idle timeout.
    Idle,
    /// The child exited.
    Exit,
}

/// Parse a cassette's text: its interactions with their line numbers (from 1). The first
/// non-empty line must be a header of a version this build reads. An error names the line.
/// What is wrong with a line of a cassette.
#[derive(Debug, thiserror::Error)]
pub enum FormatError {
    #[error("not a cassette line: {0}")]
    NotALine(#[source] serde_json::Error),
    #[error("not a cassette: the first line is not a {{\"type\":\"cassette\",…}} header")]
    NoHeader,
    #[error("not a cassette: the file is empty")]
    Empty,
    #[error("cassette version 0 does not exist")]
    VersionZero,
    #[error("cassette version {0} is newer than this pincer reads (up to {VERSION})")]
    TooNew(u32),
    #[error("a chunk's base64 is invalid: {0}")]
    Base64(#[source] base64::DecodeError),
    #[error("a chunk needs exactly one of \"text\" and \"base64\"")]
    ChunkForm,
}

pub fn parse(text: &str) -> Result<Vec<(usize, Line)>, (usize, FormatError)> {
    let mut lines = Vec::new();
    let mut header_seen = false;
    for (index, raw) in text.lines().enumerate() {
        let number = index + 1;
        if raw.trim().is_empty() {
            continue;
        }
        let line: Line = serde_json::from_str(raw).map_err(|error| {
            let error = if header_seen {
                FormatError::NotALine(error)
            } else {
                FormatError::NoHeader
            };
            (number, error)
        })?;
        match &line {
            Line::Cassette(header) => {
                check_version(header).map_err(|message| (number, message))?;
                header_seen = true;
                continue;
            }
            _ if !header_seen => {
                return Err((number, FormatError::NoHeader));
            }
            Line::Http(interaction) => check_chunks(&interaction.chunks),
            Line::Child(interaction) => check_chunks(&interaction.lines),
        }
        .map_err(|message| (number, message))?;
        lines.push((number, line));
    }
    if !header_seen {
        return Err((1, FormatError::Empty));
    }
    Ok(lines)
}

/// Whether this build reads `header`'s version.
pub fn check_version(header: &Header) -> Result<(), FormatError> {
    match header.version {
        0 => Err(FormatError::VersionZero),
        version if version > VERSION => Err(FormatError::TooNew(version)),
        _ => Ok(()),
    }
}

fn check_chunks(chunks: &[Chunk]) -> Result<(), FormatError> {
    chunks.iter().try_for_each(|chunk| chunk.bytes().map(drop))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = r#"{"type":"cassette","version":1,"pincer":"0.1.0"}"#;

    fn http_line() -> String {
        serde_json::to_string(&Line::Http(HttpInteraction {
            provider: "anthropic".into(),
            model: "claude-sonnet-4-5".into(),
            method: "POST".into(),
            path: "/v1/messages".into(),
            request: serde_json::json!({"model": "claude-sonnet-4-5", "stream": true}),
            status: Some(200),
            headers: BTreeMap::from([("content-type".into(), "text/event-stream".into())]),
            chunks: vec![Chunk::text(0, "data: {}\n\n"), Chunk::of(3, &[0xff, 0x00])],
            end: End {
                ms: 4,
                reason: EndReason::Eof,
                code: None,
                message: None,
            },
        }))
        .unwrap()
    }

    #[test]
    fn an_interaction_serializes_with_its_keys_in_a_fixed_order_and_reads_back() {
        let line = http_line();
        assert!(
            line.starts_with(
                r#"{"type":"http","provider":"anthropic","model":"claude-sonnet-4-5","method":"POST","path":"/v1/messages","request":{"model":"claude-sonnet-4-5","stream":true},"status":200,"headers":{"content-type":"text/event-stream"},"chunks":[{"ms":0,"text":"data: {}\n\n"},{"ms":3,"base64":"/wA="}],"end":{"ms":4,"reason":"eof"}}"#
            ),
            "{line}"
        );
        let parsed = parse(&format!("{HEADER}\n{line}\n")).unwrap();
        assert_eq!(parsed.len(), 1);
        assert_eq!(parsed[0].0, 2);
        let Line::Http(interaction) = &parsed[0].1 else {
            panic!("{parsed:?}")
        };
        assert_eq!(interaction.chunks[1].bytes().unwrap(), vec![0xff, 0x00]);
    }

    #[test]
    fn a_file_that_is_not_a_cassette_is_refused_on_its_first_line() {
        let session = r#"{"type":"session","version":3,"id":"x"}"#;
        let (line, message) = parse(&format!("{session}\n")).unwrap_err();
        assert_eq!(line, 1);
        assert!(matches!(message, FormatError::NoHeader), "{message}");
        assert_eq!(parse("").unwrap_err().0, 1);
        // An interaction before any header.
        assert_eq!(parse(&format!("\n{}\n", http_line())).unwrap_err().0, 2);
    }

    #[test]
    fn a_damaged_line_is_named_by_its_number() {
        let text = format!(
            "{HEADER}\n{}\n{{\"type\":\"http\",\"provider\":\n",
            http_line()
        );
        let (line, message) = parse(&text).unwrap_err();
        assert_eq!(line, 3);
        assert!(matches!(message, FormatError::NotALine(_)), "{message}");
        let bad_chunk = http_line().replace(r#""base64":"/wA=""#, r#""base64":"%%%""#);
        assert_eq!(parse(&format!("{HEADER}\n{bad_chunk}")).unwrap_err().0, 2);
    }

    #[test]
    fn a_newer_version_is_refused_and_concatenated_cassettes_are_read() {
        let newer = r#"{"type":"cassette","version":2}"#;
        let (line, message) = parse(&format!("{HEADER}\n{newer}\n")).unwrap_err();
        assert_eq!(line, 2);
        assert!(matches!(message, FormatError::TooNew(2)), "{message}");
        let twice = format!("{HEADER}\n{}\n{HEADER}\n{}\n", http_line(), http_line());
        let parsed = parse(&twice).unwrap();
        assert_eq!(
            parsed.iter().map(|(line, _)| *line).collect::<Vec<_>>(),
            [2, 4]
        );
    }
}
