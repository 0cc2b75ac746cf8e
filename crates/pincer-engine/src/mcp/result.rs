//! A `tools/call` result as the tool result the model reads (SPEC §13): text blocks as text,
//! images as image blocks, embedded text resources as their text, `structuredContent` as JSON
//! text (unless a text block already carries the same JSON), `isError` as an error result.
//! The text is capped like `exec` output, so one answer cannot fill the context.
//!
//! Pure; redaction happens where every tool result passes (the turn's redactor).

use rmcp::model::{CallToolResult, ContentBlock as McpBlock, ResourceContents};
use serde_json::{Value, json};

use crate::conversation::{ContentBlock, ImageBlock};
use crate::tools::ToolOutput;

/// Characters of text kept from one result (the same cap as `exec` output).
pub(super) const MAX_RESULT_CHARS: usize = 200_000;

/// The tool result for `result`, returned by `tool` of `server`.
pub(super) fn tool_output(server: &str, tool: &str, result: CallToolResult) -> ToolOutput {
    let mut blocks: Vec<ContentBlock> = Vec::new();
    let mut texts: Vec<String> = Vec::new();
    for block in result.content {
        match block {
            McpBlock::Text(text) => texts.push(text.text),
            McpBlock::Image(image) => {
                flush(&mut texts, &mut blocks);
                blocks.push(ContentBlock::Image(ImageBlock {
                    data: image.data,
                    mime_type: image.mime_type,
                }));
            }
            McpBlock::Resource(embedded) => match embedded.resource {
                ResourceContents::TextResourceContents { text, .. } => texts.push(text),
                ResourceContents::BlobResourceContents {
                    uri,
                    mime_type,
                    blob,
                    ..
                } => texts.push(format!(
                    "[binary resource {uri} ({}, {} bytes base64) not shown]",
                    mime_type.as_deref().unwrap_or("unknown type"),
                    blob.len()
                )),
                other => texts.push(format!(
                    "[resource of an unknown kind not shown: {}]",
                    serde_json::to_string(&other).unwrap_or_default()
                )),
            },
            McpBlock::ResourceLink(link) => texts.push(format!(
                "[resource link: {} ({})]",
                link.uri,
                link.description.as_deref().unwrap_or(&link.name)
            )),
            McpBlock::Audio(audio) => texts.push(format!(
                "[audio ({}, {} bytes base64) not shown]",
                audio.mime_type,
                audio.data.len()
            )),
            other => texts.push(format!(
                "[content of an unknown type not shown: {}]",
                serde_json::to_string(&other).unwrap_or_default()
            )),
        }
    }
    if let Some(structured) = result.structured_content {
        let already_there = texts
            .iter()
            .any(|text| serde_json::from_str::<Value>(text).is_ok_and(|value| value == structured));
        if !already_there {
            texts.push(structured.to_string());
        }
    }
    flush(&mut texts, &mut blocks);
    let truncated = cap(&mut blocks, MAX_RESULT_CHARS);
    let is_error = result.is_error.unwrap_or(false);
    if blocks.is_empty() {
        blocks.push(ContentBlock::text(if is_error {
            "(the tool failed without a message)"
        } else {
            "(no output)"
        }));
    }
    ToolOutput {
        content: blocks,
        is_error,
        details: Some(json!({"mcp": {"server": server, "tool": tool}, "truncated": truncated})),
        refusal: None,
    }
}

/// Consecutive texts become one text block, joined by newlines.
fn flush(texts: &mut Vec<String>, blocks: &mut Vec<ContentBlock>) {
    if !texts.is_empty() {
        blocks.push(ContentBlock::text(texts.join("\n")));
        texts.clear();
    }
}

/// Keep at most `max_chars` characters of text over all blocks, marking the cut. Whether
/// something was cut.
fn cap(blocks: &mut Vec<ContentBlock>, max_chars: usize) -> bool {
    let mut left = max_chars;
    let mut cut_chars = 0_usize;
    for block in blocks.iter_mut() {
        let ContentBlock::Text(text) = block else {
            continue;
        };
        let count = text.text.chars().count();
        if count <= left {
            left -= count;
            continue;
        }
        let end = text
            .text
            .char_indices()
            .nth(left)
            .map_or(text.text.len(), |(index, _)| index);
        cut_chars += count - left;
        text.text.truncate(end);
        left = 0;
    }
    if cut_chars > 0 {
        blocks.retain(|block| !matches!(block, ContentBlock::Text(text) if text.text.is_empty()));
        blocks.push(ContentBlock::text(format!(
            "[output cut: {cut_chars} more characters were not shown]"
        )));
    }
    cut_chars > 0
}

#[cfg(test)]
mod tests {
    use rmcp::model::{CallToolResult, ContentBlock as McpBlock};

    use super::*;

    fn texts(output: &ToolOutput) -> Vec<String> {
        output
            .content
            .iter()
            .map(|block| match block {
                ContentBlock::Text(text) => text.text.clone(),
                ContentBlock::Image(image) => format!("image {}", image.mime_type),
            })
            .collect()
    }

    #[test]
    fn text_images_and_resources_keep_their_order_and_is_error_is_kept() {
        let mut result = CallToolResult::error(vec![
            McpBlock::text("first"),
            McpBlock::embedded_text("file:///a.txt", "resource text"),
            McpBlock::image("iVBORw0KGgo=", "image/png"),
            McpBlock::text("after"),
        ]);
        result.structured_content = None;
        let output = tool_output("fs", "read", result);
        assert!(output.is_error);
        assert_eq!(
            texts(&output),
            ["first\nresource text", "image image/png", "after"]
        );
        assert_eq!(output.details.unwrap()["mcp"]["tool"], "read");
    }

    #[test]
    fn structured_content_is_added_as_json_unless_a_text_block_has_it() {
        let value = json!({"sum": 3});
        let mut only = CallToolResult::success(vec![]);
        only.structured_content = Some(value.clone());
        assert_eq!(texts(&tool_output("s", "t", only)), [r#"{"sum":3}"#]);
        let mut both = CallToolResult::success(vec![McpBlock::text(r#"{ "sum": 3 }"#)]);
        both.structured_content = Some(value);
        assert_eq!(texts(&tool_output("s", "t", both)), [r#"{ "sum": 3 }"#]);
    }

    #[test]
    fn an_empty_result_says_so_and_long_text_is_cut_with_a_marker() {
        let empty = tool_output("s", "t", CallToolResult::success(vec![]));
        assert_eq!(texts(&empty), ["(no output)"]);
        let long = "é".repeat(MAX_RESULT_CHARS + 10);
        let output = tool_output(
            "s",
            "t",
            CallToolResult::success(vec![McpBlock::text(long), McpBlock::text("tail")]),
        );
        let shown = texts(&output);
        assert_eq!(shown[0].chars().count(), MAX_RESULT_CHARS);
        assert_eq!(shown[1], "[output cut: 15 more characters were not shown]");
        assert_eq!(output.details.unwrap()["truncated"], true);
    }
}
