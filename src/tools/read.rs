//! `read`: a file's text, a window of lines at a time, or an image as an image block.
//!
//! A call returns at most [`MAX_LINES`] lines or [`MAX_BYTES`] bytes, whole lines only, and ends
//! with a note giving the exact `offset` of the next call. Lines are not numbered (pi does not
//! number them either). Images are recognised by their magic bytes, not by the extension; other
//! binary files (a NUL byte near the start) are refused.

use std::io::Read as _;

use base64::Engine as _;
use serde_json::json;

use super::arguments::Arguments;
use super::paths::Access;
use super::truncate::prefix_within_bytes;
use super::{ToolContext, ToolDefinition, ToolError, ToolOutput, make_definition, paths};
use crate::conversation::{ContentBlock, ImageBlock};

/// Most lines returned by one call.
pub const MAX_LINES: usize = 2000;
/// Most bytes of text returned by one call.
pub const MAX_BYTES: usize = 50 * 1024;
/// How much of the file's head is checked for NUL bytes.
const BINARY_SNIFF_BYTES: usize = 8192;

pub fn definition() -> ToolDefinition {
    make_definition(
        "read",
        "Read a text file (verbatim, no line numbers) or a PNG, JPEG, GIF or WebP image. At most \
         2000 lines or 50 KB per call; a closing note gives the offset to continue from.",
        json!({
            "path": {"type": "string"},
            "offset": {"type": "integer", "minimum": 1, "description": "First line, 1-based"},
            "limit": {"type": "integer", "minimum": 1, "description": "Most lines"}
        }),
        &["path"],
    )
}

pub fn run(arguments: &Arguments<'_>, context: &ToolContext) -> Result<ToolOutput, ToolError> {
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
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .map_err(|error| ToolError::io("read", raw_path, error))?;

    if let Some(mime_type) = image_mime_type(&bytes) {
        return Ok(image_output(&bytes, mime_type));
    }
    let head = &bytes[..bytes.len().min(BINARY_SNIFF_BYTES)];
    if head.contains(&0) {
        return Err(ToolError::Rejected(format!(
            "{raw_path} looks like a binary file ({} bytes) and cannot be shown as text.",
            bytes.len()
        )));
    }
    let text = String::from_utf8_lossy(&bytes);
    let offset = usize::try_from(offset.unwrap_or(1).max(1)).unwrap_or(usize::MAX);
    let limit = limit.map(|limit| usize::try_from(limit).unwrap_or(usize::MAX));
    let window = select_window(&text, offset, limit).map_err(ToolError::Rejected)?;
    Ok(window_output(window))
}

/// The MIME type of an image format the providers accept, from the file's magic bytes.
pub fn image_mime_type(bytes: &[u8]) -> Option<&'static str> {
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

/// The part of a file one call shows, and what to say about the rest.
#[derive(Debug, PartialEq, Eq)]
pub struct Window {
    /// The shown text, verbatim.
    pub text: String,
    /// The note appended after the text, if anything was left out.
    pub note: Option<String>,
    /// Line to continue from, if anything follows.
    pub next_offset: Option<usize>,
    /// Lines in the whole file.
    pub total_lines: usize,
}

/// Choose the lines starting at `offset` (1-based) that fit in one call. Pure, so the limits and
/// notes are tested without files.
pub fn select_window(text: &str, offset: usize, limit: Option<usize>) -> Result<Window, String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let total_lines = lines.len();
    if total_lines == 0 {
        return Ok(Window {
            text: String::new(),
            note: Some("[The file is empty.]".to_owned()),
            next_offset: None,
            total_lines,
        });
    }
    if offset > total_lines {
        return Err(format!(
            "Offset {offset} is beyond end of file ({total_lines} lines total)"
        ));
    }
    let start = offset - 1;
    let line_cap = limit.unwrap_or(MAX_LINES).clamp(1, MAX_LINES);
    let mut shown = String::new();
    let mut end = start;
    let mut hit_byte_limit = false;
    while end < total_lines && end - start < line_cap {
        let line = lines[end];
        if shown.len() + line.len() > MAX_BYTES {
            hit_byte_limit = true;
            break;
        }
        shown.push_str(line);
        end += 1;
    }

    if end == start {
        // A single line longer than the byte limit: show its head and move past it.
        let line = lines[start];
        let next = (offset < total_lines).then_some(offset + 1);
        let continuation = next.map_or(String::new(), |next| {
            format!(" Use offset={next} to continue with the next line.")
        });
        return Ok(Window {
            text: prefix_within_bytes(line, MAX_BYTES).to_owned(),
            note: Some(format!(
                "[Line {offset} is {} bytes; only its first 50 KB is shown.{continuation}]",
                line.len()
            )),
            next_offset: next,
            total_lines,
        });
    }

    let last_shown = end; // 1-based number of the last shown line
    let next_offset = (end < total_lines).then_some(end + 1);
    let note = next_offset.map(|next| {
        if hit_byte_limit || end - start == MAX_LINES {
            let reason = if hit_byte_limit { " (50 KB limit)" } else { "" };
            format!(
                "[Showing lines {offset}-{last_shown} of {total_lines}{reason}. Use offset={next} to continue.]"
            )
        } else {
            format!(
                "[{} more lines in file. Use offset={next} to continue.]",
                total_lines - end
            )
        }
    });
    Ok(Window {
        text: shown,
        note,
        next_offset,
        total_lines,
    })
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
    use crate::config::file::SandboxMode;

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
        assert!(text.ends_with("\n[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]"));
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
            Some("[Showing lines 1-51 of 60 (50 KB limit). Use offset=52 to continue.]")
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
                "[Line 1 is 60001 bytes; only its first 50 KB is shown. Use offset=2 to continue with the next line.]"
            )
        );
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
