//! A command's output as the model gets it. Up to [`INLINE_BYTES`] it is the tool result, whole.
//! Past that, the result holds the first [`HEAD_BYTES`] and the last [`TAIL_BYTES`] with a line
//! between them saying how much is not shown and where the whole output is: a file in the run's
//! private temp dir (`exec-output-*.txt`, at most [`FILE_BYTES`]), which the file tools reach,
//! so the model can `read` a range of it or `grep` it instead of carrying it in every later
//! request. A noisy command (a 1 MB build log) costs about 8k tokens of context instead of
//! 50k. Memory stays bounded whatever the command prints.
//!
//! The peers: claude keeps a short preview and the path of a file holding the rest; pi the
//! last 50 KB; codex a head and a tail.

use std::fs::File;
use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};

use crate::conversation::ContentBlock;

/// Output up to this size is returned whole.
pub(super) const INLINE_BYTES: usize = 32 * 1024;
/// Past [`INLINE_BYTES`], the start of the output that is shown.
pub(super) const HEAD_BYTES: usize = 8 * 1024;
/// Past [`INLINE_BYTES`], the end of the output that is shown.
pub(super) const TAIL_BYTES: usize = 24 * 1024;
/// The most the file of the whole output holds.
pub(super) const FILE_BYTES: u64 = 64 * 1024 * 1024;

/// Collects a command's output (see the module comment).
#[derive(Debug)]
pub(super) struct Capture {
    /// The first [`INLINE_BYTES`] bytes.
    head: Vec<u8>,
    /// The last bytes, at most twice [`TAIL_BYTES`] between trims.
    tail: Vec<u8>,
    /// Bytes seen.
    total: u64,
    /// Where the file of the whole output goes; `None`: nowhere (the middle is dropped).
    directory: Option<PathBuf>,
    /// What the output is of: the file is `NAME-output-*.txt`.
    name: &'static str,
    file: Option<Spill>,
}

#[derive(Debug)]
enum Spill {
    Writing {
        path: PathBuf,
        file: File,
        written: u64,
    },
    Full {
        path: PathBuf,
        written: u64,
    },
    /// The file that could not be made or written, and why.
    Failed {
        path: PathBuf,
        error: std::io::Error,
    },
}

/// The output as the tool result shows it.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Captured {
    /// The text for the model: everything, or head, a note and tail.
    pub text: String,
    /// Whether part of the output is not in `text`.
    pub shortened: bool,
    /// The file holding the whole output (or its first [`FILE_BYTES`]), when one was written.
    pub file: Option<PathBuf>,
    /// Bytes the command printed.
    pub total_bytes: u64,
}

impl Capture {
    /// A capture whose whole output, when long, goes to a new file `NAME-output-*.txt` in
    /// `directory`.
    pub(super) fn new(directory: Option<&Path>, name: &'static str) -> Capture {
        Capture {
            name,
            head: Vec::new(),
            tail: Vec::new(),
            total: 0,
            directory: directory.map(Path::to_path_buf),
            file: None,
        }
    }

    /// Add a chunk of output.
    pub(super) fn push(&mut self, chunk: &[u8]) {
        self.total += chunk.len() as u64;
        let room = INLINE_BYTES.saturating_sub(self.head.len());
        self.head.extend_from_slice(&chunk[..room.min(chunk.len())]);
        self.tail.extend_from_slice(chunk);
        if self.tail.len() > 2 * TAIL_BYTES {
            let excess = self.tail.len() - TAIL_BYTES;
            self.tail.drain(..excess);
        }
        if self.total > INLINE_BYTES as u64 {
            self.spill(chunk);
        }
    }

    /// Write `chunk` to the file of the whole output, starting it (with everything before
    /// `chunk`, which the head still holds) on the first call.
    fn spill(&mut self, chunk: &[u8]) {
        if self.file.is_none() {
            let Some(directory) = &self.directory else {
                return;
            };
            let before = &self.head[..self
                .head
                .len()
                .min(usize::try_from(self.total - chunk.len() as u64).unwrap_or(usize::MAX))];
            self.file = Some(match start_file(directory, self.name, before) {
                Ok((path, file)) => Spill::Writing {
                    path,
                    file,
                    written: before.len() as u64,
                },
                Err((path, error)) => Spill::Failed { path, error },
            });
        }
        let next = match self.file.take() {
            Some(Spill::Writing {
                path,
                mut file,
                written,
            }) => {
                let room =
                    usize::try_from(FILE_BYTES.saturating_sub(written)).unwrap_or(usize::MAX);
                let part = &chunk[..room.min(chunk.len())];
                match file.write_all(part) {
                    Err(error) => Spill::Failed { path, error },
                    Ok(()) if part.len() < chunk.len() => Spill::Full {
                        path,
                        written: written + part.len() as u64,
                    },
                    Ok(()) => Spill::Writing {
                        path,
                        file,
                        written: written + part.len() as u64,
                    },
                }
            }
            Some(other) => other,
            None => return,
        };
        self.file = Some(next);
    }

    /// The result text, and where the whole output is.
    pub(super) fn finish(self) -> Captured {
        if self.total <= INLINE_BYTES as u64 {
            return Captured {
                text: String::from_utf8_lossy(&self.head).into_owned(),
                shortened: false,
                file: None,
                total_bytes: self.total,
            };
        }
        let head = utf8_prefix(&self.head[..HEAD_BYTES]);
        let tail_start = self.tail.len().saturating_sub(TAIL_BYTES);
        let tail = utf8_suffix(&self.tail[tail_start..]);
        let hidden = self.total - (head.len() + tail.len()) as u64;
        let total = self.total;
        let (where_, file) = match self.file {
            Some(Spill::Writing { path, .. }) => (
                format!(
                    "the whole output is in {}; read parts of it with `read` (offset, limit) \
                     or search it with `grep`",
                    path.display()
                ),
                Some(path),
            ),
            Some(Spill::Full { path, written }) => (
                format!(
                    "its first {written} bytes are in {}; read parts of it with `read` (offset, \
                     limit) or search it with `grep`",
                    path.display()
                ),
                Some(path),
            ),
            Some(Spill::Failed { path, error }) => (
                format!("it could not be saved to {} ({error})", path.display()),
                None,
            ),
            None => ("it was not saved".to_owned(), None),
        };
        let text = format!(
            "{}\n\n[... {hidden} bytes of output not shown (the command printed {total} bytes); \
             {where_} ...]\n\n{}",
            String::from_utf8_lossy(head),
            String::from_utf8_lossy(tail),
        );
        Captured {
            text,
            shortened: true,
            file,
            total_bytes: total,
        }
    }
}

/// A tool result whose long text blocks are shortened as `exec` output is, each whole in a file
/// of `temp_dir` (the run's private temp dir, made when missing; files named `NAME-output-*`),
/// with `truncated` set in its details: for tools whose output pincer does not stream itself
/// (MCP servers).
pub fn shorten_long_text(
    mut output: super::ToolOutput,
    name: &'static str,
    temp_dir: Option<&Path>,
) -> super::ToolOutput {
    let long = |block: &ContentBlock| matches!(block, ContentBlock::Text(text) if text.text.len() > INLINE_BYTES);
    if !output.content.iter().any(long) {
        return output;
    }
    let directory = temp_dir.filter(|dir| super::confine::ensure_private_dir(dir).is_ok());
    for block in &mut output.content {
        if let ContentBlock::Text(text) = block
            && text.text.len() > INLINE_BYTES
        {
            let mut capture = Capture::new(directory, name);
            capture.push(text.text.as_bytes());
            text.text = capture.finish().text;
        }
    }
    if let Some(serde_json::Value::Object(details)) = &mut output.details {
        details.insert("truncated".to_owned(), serde_json::Value::Bool(true));
    }
    output
}

/// A new file for the whole output in `directory`, holding `before` already; or the file that
/// could not be made or written, and why.
fn start_file(
    directory: &Path,
    name: &str,
    before: &[u8],
) -> Result<(PathBuf, File), (PathBuf, std::io::Error)> {
    let name = format!(
        "{name}-output-{}.txt",
        &uuid::Uuid::new_v4().simple().to_string()[..12]
    );
    let path = directory.join(name);
    let opened = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&path)
        .and_then(|mut file| file.write_all(before).map(|()| file));
    match opened {
        Ok(file) => Ok((path, file)),
        Err(error) => Err((path, error)),
    }
}

/// `bytes` without a character cut at its end (an incomplete UTF-8 sequence is dropped).
fn utf8_prefix(bytes: &[u8]) -> &[u8] {
    match std::str::from_utf8(bytes) {
        Ok(_) => bytes,
        // An error with no length is an incomplete sequence at the end.
        Err(error) if error.error_len().is_none() => &bytes[..error.valid_up_to()],
        Err(_) => bytes,
    }
}

/// `bytes` without a character cut at its start (leading continuation bytes are dropped).
fn utf8_suffix(bytes: &[u8]) -> &[u8] {
    let skip = bytes
        .iter()
        .take(3)
        .take_while(|byte| (**byte & 0b1100_0000) == 0b1000_0000)
        .count();
    &bytes[skip..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_output_is_returned_whole_and_no_file_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let mut capture = Capture::new(Some(dir.path()), "exec");
        capture.push(b"hello\n");
        capture.push(&vec![b'x'; INLINE_BYTES - 6]);
        let captured = capture.finish();
        assert!(!captured.shortened);
        assert_eq!(captured.text.len(), INLINE_BYTES);
        assert_eq!(captured.file, None);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn long_output_shows_head_and_tail_and_the_file_holds_every_byte() {
        let dir = tempfile::tempdir().unwrap();
        let mut capture = Capture::new(Some(dir.path()), "exec");
        let mut whole = Vec::new();
        for line in 0..20_000 {
            let text = format!("line {line}\n");
            whole.extend_from_slice(text.as_bytes());
            capture.push(text.as_bytes());
        }
        let captured = capture.finish();
        assert!(captured.shortened);
        assert_eq!(captured.total_bytes, whole.len() as u64);
        let file = captured.file.unwrap();
        assert_eq!(std::fs::read(&file).unwrap(), whole);
        assert!(captured.text.starts_with("line 0\nline 1\n"));
        assert!(captured.text.ends_with("line 19999\n"));
        assert!(captured.text.contains(&format!("is in {}", file.display())));
        assert!(captured.text.len() < HEAD_BYTES + TAIL_BYTES + 400);
    }

    #[test]
    fn a_file_that_cannot_be_made_is_named_with_why() {
        let dir = tempfile::tempdir().unwrap();
        let gone = dir.path().join("gone");
        let mut capture = Capture::new(Some(&gone), "exec");
        capture.push(&vec![b'z'; HEAD_BYTES + TAIL_BYTES + 1]);
        let captured = capture.finish();
        assert_eq!(captured.file, None);
        let said = format!("it could not be saved to {}/exec-output-", gone.display());
        assert!(
            captured.text.contains(&said),
            "{}",
            &captured.text[HEAD_BYTES..]
        );
        assert!(captured.text.contains("No such file or directory"));
    }

    #[test]
    fn the_cut_never_splits_a_character() {
        let mut capture = Capture::new(None, "exec");
        for _ in 0..30_000 {
            capture.push("é".as_bytes());
        }
        let captured = capture.finish();
        assert!(!captured.text.contains('\u{FFFD}'), "a split character");
        assert!(captured.text.contains("it was not saved"));
    }

    #[test]
    fn the_file_stops_at_its_limit_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let mut capture = Capture::new(Some(dir.path()), "exec");
        let chunk = vec![b'y'; 1024 * 1024];
        for _ in 0..65 {
            capture.push(&chunk);
        }
        let captured = capture.finish();
        let file = captured.file.unwrap();
        assert_eq!(std::fs::metadata(&file).unwrap().len(), FILE_BYTES);
        assert!(
            captured
                .text
                .contains(&format!("its first {FILE_BYTES} bytes are in")),
            "{}",
            &captured.text[HEAD_BYTES..HEAD_BYTES + 300]
        );
    }
}
