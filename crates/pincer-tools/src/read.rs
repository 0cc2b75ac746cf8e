//! `read`: a file's text, a window of lines at a time, or an image as an image block.
//!
//! A call returns at most [`MAX_LINES`] lines or [`MAX_BYTES`] bytes, whole lines only, and ends
//! with a note giving the file's size and the exact `offset` of the next call (claude and pi page
//! at 2,000 lines too; pi also at 50 KB). The file is read once, as a stream: the lines of the page
//! are kept, the others only counted, so a file of any size costs one page of memory. A line
//! longer than a page shows its head, with a note on how to reach the rest. Lines are not
//! numbered (pi does not number them either). Images are recognised by their magic bytes, not by
//! the extension; other binary files (a NUL byte near the start) are refused.

use std::io::{BufRead, Read as _};

use base64::Engine as _;
use serde_json::json;

use super::arguments::Arguments;
use super::paths::Access;
use super::{ToolContext, ToolDefinition, ToolError, ToolOutput, make_definition, paths};
use crate::conversation::{ContentBlock, ImageBlock};

/// Most lines returned by one call.
pub(super) const MAX_LINES: usize = 2000;
/// Most bytes of text returned by one call.
pub(super) const MAX_BYTES: usize = 50 * 1024;
/// How much of the file's head is checked for NUL bytes.
const BINARY_SNIFF_BYTES: usize = 8192;

pub(super) fn definition() -> ToolDefinition {
    make_definition(
        "read",
        "Read a text file (verbatim, no line numbers) or a PNG, JPEG, GIF or WebP image. At most \
         2000 lines or 50 KB a call; a closing note gives the offset to continue from.",
        json!({
            "path": {"type": "string"},
            "offset": {"type": "integer", "minimum": 1, "description": "First line, 1-based"},
            "limit": {"type": "integer", "minimum": 1}
        }),
        &["path"],
    )
}

pub(super) fn run(
    arguments: &Arguments<'_>,
    context: &ToolContext,
) -> Result<ToolOutput, ToolError> {
    let raw_path = arguments.required_string(&["path", "file_path"])?;
    let offset = arguments.optional_count(&["offset"])?;
    let limit = arguments.optional_count(&["limit"])?;
    let path = paths::check(context, raw_path, Access::Read)?;
    // Only a regular file is opened: a FIFO, socket or device is refused without blocking.
    let mut file = match paths::open_read(context, &path) {
        Ok(file) => file,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Err(ToolError::FileNotFound {
                path: raw_path.to_owned(),
            });
        }
        Err(error) if error.kind() == std::io::ErrorKind::IsADirectory => {
            return Err(ToolError::Rejected(format!(
                "{raw_path} is a directory, not a file. Use ls to list its entries."
            )));
        }
        Err(error) => return Err(ToolError::file("read", raw_path, error)),
    };
    let io_error = |error| ToolError::io("read", raw_path, error);
    let mut head = Vec::new();
    (&mut file)
        .take(BINARY_SNIFF_BYTES as u64)
        .read_to_end(&mut head)
        .map_err(io_error)?;
    if let Some(mime_type) = image_mime_type(&head) {
        file.read_to_end(&mut head).map_err(io_error)?;
        return Ok(image_output(&head, mime_type));
    }
    if head.contains(&0) {
        let size = file.metadata().map_or(head.len() as u64, |meta| meta.len());
        return Err(ToolError::Rejected(format!(
            "{raw_path} looks like a binary file ({size} bytes) and cannot be shown as text."
        )));
    }
    let offset = usize::try_from(offset.unwrap_or(1).max(1)).unwrap_or(usize::MAX);
    let limit = limit.map(|limit| usize::try_from(limit).unwrap_or(usize::MAX));
    let reader = std::io::BufReader::with_capacity(64 * 1024, head.as_slice().chain(file));
    let window = read_window(reader, offset, limit)
        .map_err(io_error)?
        .map_err(|beyond| ToolError::Rejected(beyond.to_string()))?;
    Ok(window_output(window))
}

/// The MIME type of an image format the providers accept, from the file's magic bytes.
pub(super) fn image_mime_type(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if bytes.len() >= 12 && bytes.starts_with(b"RIFF") && &bytes[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

fn image_output(bytes: &[u8], mime_type: &str) -> ToolOutput {
    let data = base64::engine::general_purpose::STANDARD.encode(bytes);
    ToolOutput {
        content: vec![
            ContentBlock::text(format!("Read image file [{mime_type}]")),
            ContentBlock::Image(ImageBlock {
                data,
                mime_type: mime_type.to_owned(),
            }),
        ],
        is_error: false,
        details: Some(json!({"mimeType": mime_type, "bytes": bytes.len()})),
        refusal: None,
    }
}

/// What `read` of an empty file returns: the note alone.
pub const EMPTY_FILE_NOTE: &str = "[The file is empty.]";

/// The part of a file one call shows, and what to say about the rest.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Window {
    /// The shown text, verbatim.
    pub text: String,
    /// The note appended after the text, if anything was left out.
    pub note: Option<String>,
    /// Line to continue from, if anything follows.
    pub next_offset: Option<usize>,
    /// Lines in the whole file.
    pub total_lines: usize,
}

/// Choose the lines starting at `offset` (1-based) that fit in one call, from text in memory: the
/// limits and notes are tested without files.
#[cfg(test)]
fn select_window(text: &str, offset: usize, limit: Option<usize>) -> Result<Window, BeyondEnd> {
    read_window(text.as_bytes(), offset, limit).expect("reading from memory cannot fail")
}

/// A `read` whose offset is past the file's last line.
#[derive(Debug, thiserror::Error)]
#[error("Offset {offset} is beyond end of file ({total_lines} lines total)")]
pub(super) struct BeyondEnd {
    offset: usize,
    total_lines: usize,
}

/// [`select_window`] over a reader, read once: the lines of the window are kept, the lines
/// before and after it only counted.
pub(super) fn read_window(
    mut reader: impl BufRead,
    offset: usize,
    limit: Option<usize>,
) -> std::io::Result<Result<Window, BeyondEnd>> {
    let mut total_bytes: u64 = 0;
    let mut before = 0;
    let mut discard = Vec::new();
    while before + 1 < offset {
        match next_line(&mut reader, 0, &mut discard)? {
            Some(length) => {
                before += 1;
                total_bytes += length;
            }
            None => break,
        }
    }
    let line_cap = limit.unwrap_or(MAX_LINES).clamp(1, MAX_LINES);
    let mut shown = Vec::new();
    let mut shown_lines = 0;
    // A line read but not shown (it did not fit), or shown only in part (a line over a page).
    let mut cut_line: Option<u64> = None;
    while shown_lines < line_cap {
        let mark = shown.len();
        let room = MAX_BYTES - mark;
        let Some(length) = next_line(&mut reader, room, &mut shown)? else {
            break;
        };
        total_bytes += length;
        if length > room as u64 {
            if shown_lines > 0 {
                shown.truncate(mark);
            }
            cut_line = Some(length);
            break;
        }
        shown_lines += 1;
    }
    let mut after = 0;
    while let Some(length) = next_line(&mut reader, 0, &mut discard)? {
        after += 1;
        total_bytes += length;
    }
    let total_lines = before + shown_lines + usize::from(cut_line.is_some()) + after;
    if total_lines == 0 {
        return Ok(Ok(Window {
            text: String::new(),
            note: Some(EMPTY_FILE_NOTE.to_owned()),
            next_offset: None,
            total_lines,
        }));
    }
    if offset > total_lines {
        return Ok(Err(BeyondEnd {
            offset,
            total_lines,
        }));
    }
    let size = human_size(total_bytes);
    if let (Some(length), 0) = (cut_line, shown_lines) {
        return Ok(Ok(long_line_head(shown, offset, length, total_lines)));
    }

    let end = before + shown_lines; // 1-based number of the last shown line
    let next_offset = (end < total_lines).then_some(end + 1);
    let note = next_offset.map(|next| {
        if cut_line.is_some() || shown_lines == MAX_LINES {
            let limit = if cut_line.is_some() {
                "; 50 KB per call"
            } else {
                ""
            };
            format!(
                "[Showing lines {offset}-{end} of {total_lines} ({size}{limit}). Use offset={next} to continue.]"
            )
        } else {
            format!(
                "[{} more lines in file. Use offset={next} to continue.]",
                total_lines - end
            )
        }
    });
    Ok(Ok(Window {
        text: String::from_utf8_lossy(&shown).into_owned(),
        note,
        next_offset,
        total_lines,
    }))
}

/// The window of a single line longer than the byte limit: its head, and how to move past it.
fn long_line_head(mut shown: Vec<u8>, offset: usize, length: u64, total_lines: usize) -> Window {
    shown.truncate(complete_utf8(&shown));
    let next = (offset < total_lines).then_some(offset + 1);
    let continuation = next.map_or(String::new(), |next| {
        format!(" Use offset={next} to continue with the next line.")
    });
    Window {
        text: String::from_utf8_lossy(&shown).into_owned(),
        note: Some(format!(
            "[Line {offset} is {length} bytes ({}); only its first 50 KB is shown.\
             {continuation} For the rest of it use grep, or exec: `sed -n '{offset}p' FILE \
             | cut -c {}-{}`.]",
            human_size(length),
            MAX_BYTES + 1,
            2 * MAX_BYTES
        )),
        next_offset: next,
        total_lines,
    }
}

/// Read one line (through its `\n`, or to the end of the input), appending at most `keep` of its
/// bytes to `kept`; its whole length, or `None` at the end of the input.
fn next_line(
    reader: &mut impl BufRead,
    keep: usize,
    kept: &mut Vec<u8>,
) -> std::io::Result<Option<u64>> {
    let mut length: u64 = 0;
    let mut room = keep;
    loop {
        let available = reader.fill_buf()?;
        if available.is_empty() {
            return Ok((length > 0).then_some(length));
        }
        let (take, complete) = match memchr::memchr(b'\n', available) {
            Some(newline) => (newline + 1, true),
            None => (available.len(), false),
        };
        let kept_here = take.min(room);
        kept.extend_from_slice(&available[..kept_here]);
        room -= kept_here;
        length += take as u64;
        reader.consume(take);
        if complete {
            return Ok(Some(length));
        }
    }
}

/// How much of `bytes` to keep so that it does not end inside a UTF-8 sequence (a line's head
/// is cut at a byte count).
fn complete_utf8(bytes: &[u8]) -> usize {
    let tail_start = bytes.len().saturating_sub(4);
    for start in (tail_start..bytes.len()).rev() {
        let byte = bytes[start];
        if byte & 0b1100_0000 == 0b1000_0000 {
            continue; // a continuation byte: the sequence started earlier
        }
        let needed = match byte {
            0x00..=0x7F => 1,
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            _ => 4,
        };
        return if bytes.len() - start < needed {
            start
        } else {
            bytes.len()
        };
    }
    bytes.len()
}

/// A size as people read it: bytes below 1 KB, else KB, MB or GB with one decimal (1 KB = 1,024
/// bytes, as the 50 KB limit counts).
fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 3] = ["KB", "MB", "GB"];
    if bytes < 1024 {
        return format!("{bytes} bytes");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

fn window_output(window: Window) -> ToolOutput {
    let text = match &window.note {
        None => window.text.clone(),
        Some(note) if window.text.is_empty() => note.clone(),
        Some(note) => {
            let separator = if window.text.ends_with('\n') {
                "\n"
            } else {
                "\n\n"
            };
            format!("{}{separator}{note}", window.text)
        }
    };
    let output = ToolOutput::text(text);
    match window.next_offset {
        Some(next_offset) => output.with_details(json!({
            "truncated": true,
            "totalLines": window.total_lines,
            "nextOffset": next_offset,
        })),
        None => output,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::test_support::Workspace;
    use super::*;
    use crate::conversation::SandboxMode;

    fn numbered_lines(count: usize) -> String {
        (1..=count)
            .map(|number| format!("line {number}\n"))
            .collect()
    }

    #[tokio::test]
    async fn a_small_file_comes_back_verbatim_without_line_numbers() {
        let workspace = Workspace::new();
        workspace.write("notes.txt", "alpha\nbeta\n");
        let output = workspace.call("read", json!({"path": "notes.txt"})).await;
        assert!(!output.is_error);
        assert_eq!(output.text_content(), "alpha\nbeta\n");
        assert_eq!(output.details, None);
    }

    #[tokio::test]
    async fn a_long_file_stops_at_two_thousand_lines_and_names_the_next_offset() {
        let workspace = Workspace::new();
        workspace.write("long.txt", numbered_lines(2500));
        let output = workspace.call("read", json!({"path": "long.txt"})).await;
        let text = output.text_content();
        assert!(text.starts_with("line 1\nline 2\n"));
        assert!(text.contains("line 2000\n"));
        assert!(!text.contains("line 2001"));
        assert!(
            text.ends_with(
                "\n[Showing lines 1-2000 of 2500 (23.3 KB). Use offset=2001 to continue.]"
            )
        );
        assert_eq!(
            output.details,
            Some(json!({"truncated": true, "totalLines": 2500, "nextOffset": 2001}))
        );
    }

    #[tokio::test]
    async fn offset_and_limit_select_a_window_and_the_note_counts_what_remains() {
        let workspace = Workspace::new();
        workspace.write("long.txt", numbered_lines(10));
        let output = workspace
            .call("read", json!({"path": "long.txt", "offset": 3, "limit": 2}))
            .await;
        assert_eq!(
            output.text_content(),
            "line 3\nline 4\n\n[6 more lines in file. Use offset=5 to continue.]"
        );
        let last = workspace
            .call("read", json!({"path": "long.txt", "offset": 9}))
            .await;
        assert_eq!(last.text_content(), "line 9\nline 10\n");
    }

    #[test]
    fn the_byte_limit_keeps_whole_lines_and_says_so() {
        let line = format!("{}\n", "x".repeat(999)); // 1000 bytes per line
        let text = line.repeat(60);
        let window = select_window(&text, 1, None).unwrap();
        assert_eq!(window.text.len(), 51 * 1000);
        assert_eq!(window.next_offset, Some(52));
        assert_eq!(
            window.note.as_deref(),
            Some(
                "[Showing lines 1-51 of 60 (58.6 KB; 50 KB per call). Use offset=52 to continue.]"
            )
        );
    }

    #[test]
    fn a_single_line_over_the_byte_limit_shows_its_head_and_skips_past_it() {
        let text = format!("{}\nnext\n", "y".repeat(60_000));
        let window = select_window(&text, 1, None).unwrap();
        assert_eq!(window.text.len(), MAX_BYTES);
        assert_eq!(window.next_offset, Some(2));
        assert_eq!(
            window.note.as_deref(),
            Some(
                "[Line 1 is 60001 bytes (58.6 KB); only its first 50 KB is shown. Use offset=2 to \
                 continue with the next line. For the rest of it use grep, or exec: `sed -n '1p' \
                 FILE | cut -c 51201-102400`.]"
            )
        );
    }

    #[test]
    fn a_line_head_cut_inside_a_character_drops_the_partial_character() {
        let line = format!("{}é\n", "a".repeat(MAX_BYTES - 1)); // é straddles the limit
        let window = select_window(&line, 1, None).unwrap();
        assert_eq!(window.text, "a".repeat(MAX_BYTES - 1));
        assert_eq!(complete_utf8("aé".as_bytes()), 3);
        assert_eq!(complete_utf8(&"aé".as_bytes()[..2]), 1);
        assert_eq!(complete_utf8(&"a€".as_bytes()[..3]), 1);
    }

    #[test]
    fn sizes_read_in_bytes_kb_mb_and_gb() {
        assert_eq!(human_size(900), "900 bytes");
        assert_eq!(human_size(51_200), "50.0 KB");
        assert_eq!(human_size(3_000_000), "2.9 MB");
        assert_eq!(human_size(5 * 1024 * 1024 * 1024), "5.0 GB");
    }

    #[test]
    fn lines_after_a_page_are_counted_not_kept_and_a_last_line_without_newline_counts() {
        let text = format!("{}tail", numbered_lines(3000));
        let window = select_window(&text, 2001, None).unwrap();
        assert_eq!(window.total_lines, 3001);
        assert!(window.text.starts_with("line 2001\n") && window.text.ends_with("tail"));
        assert_eq!(window.next_offset, None);
    }

    #[tokio::test]
    async fn an_offset_past_the_end_is_an_error_with_the_line_count() {
        let workspace = Workspace::new();
        workspace.write("short.txt", "a\nb\n");
        let output = workspace
            .call("read", json!({"path": "short.txt", "offset": 5}))
            .await;
        assert!(output.is_error);
        assert_eq!(
            output.text_content(),
            "Offset 5 is beyond end of file (2 lines total)"
        );
    }

    #[tokio::test]
    async fn a_missing_file_is_an_error_naming_the_path_as_given() {
        let workspace = Workspace::new();
        let output = workspace
            .call("read", json!({"file_path": "nope.txt"}))
            .await;
        assert!(output.is_error);
        assert_eq!(output.text_content(), "File not found: nope.txt");
    }

    #[tokio::test]
    async fn a_directory_is_an_error_that_suggests_ls() {
        let workspace = Workspace::new();
        workspace.write("src/lib.rs", "");
        let output = workspace.call("read", json!({"path": "src"})).await;
        assert!(output.is_error);
        assert_eq!(
            output.text_content(),
            "src is a directory, not a file. Use ls to list its entries."
        );
    }

    #[tokio::test]
    async fn a_png_comes_back_as_an_image_block_after_a_short_text() {
        let workspace = Workspace::new();
        let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
        workspace.write("logo.dat", &png);
        let output = workspace.call("read", json!({"path": "logo.dat"})).await;
        assert!(!output.is_error);
        assert_eq!(output.content.len(), 2);
        assert_eq!(output.text_content(), "Read image file [image/png]");
        let ContentBlock::Image(image) = &output.content[1] else {
            panic!("expected an image block, got {:?}", output.content[1]);
        };
        assert_eq!(image.mime_type, "image/png");
        assert_eq!(image.data, "iVBORw0KGgoAAAANSUhEUg==");
    }

    #[test]
    fn jpeg_gif_and_webp_are_recognised_by_their_magic_bytes() {
        assert_eq!(image_mime_type(b"\xFF\xD8\xFF\xE0rest"), Some("image/jpeg"));
        assert_eq!(image_mime_type(b"GIF89a..."), Some("image/gif"));
        assert_eq!(image_mime_type(b"RIFF\0\0\0\0WEBPVP8 "), Some("image/webp"));
        assert_eq!(image_mime_type(b"RIFF\0\0\0\0WAVEfmt "), None);
        assert_eq!(image_mime_type(b"plain text"), None);
    }

    #[tokio::test]
    async fn a_binary_file_that_is_not_an_image_is_refused() {
        let workspace = Workspace::new();
        workspace.write("a.out", b"\x7fELF\x02\x01\x01\0\0\0");
        let output = workspace.call("read", json!({"path": "a.out"})).await;
        assert!(output.is_error);
        assert_eq!(
            output.text_content(),
            "a.out looks like a binary file (10 bytes) and cannot be shown as text."
        );
    }

    #[tokio::test]
    async fn a_fifo_or_a_socket_is_refused_at_once_naming_what_it_is() {
        for mode in [SandboxMode::WorkspaceWrite, SandboxMode::DangerFullAccess] {
            let workspace = Workspace::with_mode(mode);
            workspace.fifo("pipe");
            let _listener =
                std::os::unix::net::UnixListener::bind(workspace.path("socket")).unwrap();
            let output = workspace.call("read", json!({"path": "pipe"})).await;
            assert!(output.is_error);
            assert_eq!(
                output.text_content(),
                "pipe is a FIFO (named pipe), not a regular file; the file tools read and write \
                 regular files only."
            );
            let output = workspace.call("read", json!({"path": "socket"})).await;
            assert!(output.is_error);
            assert!(
                output
                    .text_content()
                    .starts_with("socket is a socket, not a regular file"),
                "{}",
                output.text_content()
            );
        }
    }

    #[tokio::test]
    async fn a_directory_is_still_pointed_to_ls() {
        let workspace = Workspace::new();
        workspace.write("src/lib.rs", "");
        for path in ["src", "."] {
            let output = workspace.call("read", json!({"path": path})).await;
            assert!(output.is_error);
            assert_eq!(
                output.text_content(),
                format!("{path} is a directory, not a file. Use ls to list its entries.")
            );
        }
    }

    #[tokio::test]
    async fn an_empty_file_says_it_is_empty() {
        let workspace = Workspace::new();
        workspace.write("empty.txt", "");
        let output = workspace.call("read", json!({"path": "empty.txt"})).await;
        assert!(!output.is_error);
        assert_eq!(output.text_content(), "[The file is empty.]");
    }
}
