//! A streaming filter for models that write their reasoning inline (SPEC §4.1): local models behind
//! OpenAI-compatible servers emit `<think>…</think>` (or `<thinking>`, `<thought>`,
//! `<antthinking>`) inside the text, and some wrap the answer in `<final>…</final>`.
//!
//! Tags are recognised case-insensitively, with optional whitespace inside the angle brackets
//! (`< / think >`), and may arrive split across chunks. The filter holds back only a suffix that
//! can still become a tag and releases it as soon as it cannot, so plain text that contains `<`
//! streams without delay. Feeding the same text in any chunking yields the same segments once
//! adjacent pieces of the same kind are joined.
//!
//! Final blocks, following the seed (runtime reference §5.5): once a `<final>` has been seen, only
//! text inside final blocks is kept and text outside them is dropped. Text that comes before the
//! first `<final>` is passed through by [`ThinkTagFilter::new`], because a stream cannot take back
//! what it has already emitted and most local models never write a final tag;
//! [`ThinkTagFilter::enforcing_final`] is the seed's stricter mode for providers told to use final
//! tags: that text is held until the end and released only when no final block ever came.
//!
//! Not handled: tags inside code spans or fences are treated as tags (the seed skips them).

use super::StreamEvent;

/// One piece of filtered output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    /// Visible answer text.
    Text(String),
    /// Reasoning that was written inline.
    Thinking(String),
}

/// Which tag a complete match was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TagKind {
    Think,
    Final,
}

/// What the text at a `<` is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TagMatch {
    /// A whole tag of `len` bytes.
    Complete {
        kind: TagKind,
        closing: bool,
        len: usize,
    },
    /// The text ends while it could still become a tag.
    Partial,
    /// Not a tag: the `<` is literal text.
    NoMatch,
}

/// Tag names accepted for reasoning blocks (the seed's set).
const THINK_NAMES: [&str; 4] = ["think", "thinking", "thought", "antthinking"];
const FINAL_NAME: &str = "final";

/// The stream state; see the module documentation for the rules.
#[derive(Debug, Clone, Default)]
pub struct ThinkTagFilter {
    /// Unprocessed input: empty, or a suffix starting at a `<` that may still become a tag.
    pending: String,
    in_think: bool,
    in_final: bool,
    final_seen: bool,
    /// Hold text outside final blocks until a final block shows up or the stream ends.
    enforce_final: bool,
    /// Text held back in enforcing mode.
    held: String,
}

impl ThinkTagFilter {
    #[cfg(test)]
    /// A filter that passes text before the first `<final>` through.
    pub fn new() -> Self {
        Self::default()
    }

    #[cfg(test)]
    /// A filter in the seed's strict final-tag mode: text outside final blocks is never emitted
    /// once a final block exists, and text before the first one is held until [`Self::finish`].
    pub fn enforcing_final() -> Self {
        Self {
            enforce_final: true,
            ..Self::default()
        }
    }

    /// Filter one chunk; returns the segments it completes (adjacent ones of a kind are joined).
    pub fn feed(&mut self, text: &str) -> Vec<Segment> {
        let mut out = Vec::new();
        self.pending.push_str(text);
        let input = std::mem::take(&mut self.pending);
        let mut rest = input.as_str();
        while !rest.is_empty() {
            let Some(at) = rest.find('<') else {
                self.emit(rest, &mut out);
                break;
            };
            self.emit(&rest[..at], &mut out);
            rest = &rest[at..];
            match match_tag(rest) {
                // Inside reasoning only its closing tag counts: a model thinking about tags
                // keeps its words.
                TagMatch::Complete { kind, closing, len }
                    if self.in_think && !(kind == TagKind::Think && closing) =>
                {
                    self.emit(&rest[..len], &mut out);
                    rest = &rest[len..];
                }
                TagMatch::Complete { kind, closing, len } => {
                    self.apply(kind, closing);
                    rest = &rest[len..];
                }
                TagMatch::NoMatch => {
                    self.emit("<", &mut out);
                    rest = &rest[1..];
                }
                TagMatch::Partial => {
                    self.pending = rest.to_owned();
                    break;
                }
            }
        }
        out
    }

    /// End of the stream: a tag left incomplete is literal text; an unclosed reasoning block
    /// stays reasoning; held text is released when no final block came.
    pub fn finish(&mut self) -> Vec<Segment> {
        let mut out = Vec::new();
        let pending = std::mem::take(&mut self.pending);
        self.emit(&pending, &mut out);
        let held = std::mem::take(&mut self.held);
        if !self.final_seen {
            push_segment(&mut out, Segment::Text(held));
        }
        out
    }

    fn apply(&mut self, kind: TagKind, closing: bool) {
        match (kind, closing) {
            // A closing tag without its opening one (chat templates that open the reasoning block
            // themselves leave only `</think>`) is removed.
            (TagKind::Think, true) => self.in_think = false,
            (TagKind::Think, false) => self.in_think = true,
            (TagKind::Final, false) => {
                self.in_final = true;
                self.final_seen = true;
                self.held.clear();
            }
            (TagKind::Final, true) => self.in_final = false,
        }
    }

    fn emit(&mut self, text: &str, out: &mut Vec<Segment>) {
        if text.is_empty() {
            return;
        }
        if self.in_think {
            push_segment(out, Segment::Thinking(text.to_owned()));
        } else if self.in_final {
            push_segment(out, Segment::Text(text.to_owned()));
        } else if self.final_seen {
            // Outside a final block once one exists: commentary the model was told to hide.
        } else if self.enforce_final {
            self.held.push_str(text);
        } else {
            push_segment(out, Segment::Text(text.to_owned()));
        }
    }
}

/// Append, joining with the previous segment when it is of the same kind; empty text is skipped.
fn push_segment(out: &mut Vec<Segment>, segment: Segment) {
    match (out.last_mut(), segment) {
        (_, Segment::Text(text) | Segment::Thinking(text)) if text.is_empty() => {}
        (Some(Segment::Text(last)), Segment::Text(text)) => last.push_str(&text),
        (Some(Segment::Thinking(last)), Segment::Thinking(text)) => last.push_str(&text),
        (_, segment) => out.push(segment),
    }
}

/// Classify the text at a `<`: `< \s* /? \s* name \s* >`, name case-insensitive.
fn match_tag(text: &str) -> TagMatch {
    let bytes = text.as_bytes();
    let mut index = 1;
    let skip_space = |index: &mut usize| {
        while *index < bytes.len() && bytes[*index].is_ascii_whitespace() {
            *index += 1;
        }
    };
    skip_space(&mut index);
    let mut closing = false;
    if bytes.get(index) == Some(&b'/') {
        closing = true;
        index += 1;
        skip_space(&mut index);
    }
    let name_start = index;
    while index < bytes.len() && bytes[index].is_ascii_alphabetic() {
        index += 1;
    }
    let name = text[name_start..index].to_ascii_lowercase();
    let is_prefix = |name: &str| {
        THINK_NAMES
            .iter()
            .chain(std::iter::once(&FINAL_NAME))
            .any(|known| known.starts_with(name))
    };
    if index == bytes.len() {
        return if is_prefix(&name) {
            TagMatch::Partial
        } else {
            TagMatch::NoMatch
        };
    }
    let kind = if THINK_NAMES.contains(&name.as_str()) {
        TagKind::Think
    } else if name == FINAL_NAME {
        TagKind::Final
    } else {
        return TagMatch::NoMatch;
    };
    skip_space(&mut index);
    match bytes.get(index) {
        None => TagMatch::Partial,
        Some(b'>') => TagMatch::Complete {
            kind,
            closing,
            len: index + 1,
        },
        Some(_) => TagMatch::NoMatch,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(value: &str) -> Segment {
        Segment::Text(value.to_owned())
    }

    fn thinking(value: &str) -> Segment {
        Segment::Thinking(value.to_owned())
    }

    /// Feed the chunks in order and join the segments of all calls.
    fn run(mut filter: ThinkTagFilter, chunks: &[&str]) -> Vec<Segment> {
        let mut out = Vec::new();
        for chunk in chunks {
            for segment in filter.feed(chunk) {
                push_segment(&mut out, segment);
            }
        }
        for segment in filter.finish() {
            push_segment(&mut out, segment);
        }
        out
    }

    fn whole(input: &str) -> Vec<Segment> {
        run(ThinkTagFilter::new(), &[input])
    }

    #[test]
    fn think_blocks_become_thinking_and_the_rest_stays_text() {
        assert_eq!(
            whole("<think>plan the answer</think>The answer is 4."),
            vec![thinking("plan the answer"), text("The answer is 4.")]
        );
        assert_eq!(
            whole("a<thinking>b</thinking>c<thought>d</thought>e"),
            vec![
                text("a"),
                thinking("b"),
                text("c"),
                thinking("d"),
                text("e")
            ]
        );
    }

    #[test]
    fn tag_names_are_case_insensitive_and_may_contain_spaces() {
        assert_eq!(
            whole("<THINK>x</Think>y< / think >z<  think\n>w</think >v"),
            vec![thinking("x"), text("yz"), thinking("w"), text("v")]
        );
    }

    #[test]
    fn text_that_merely_contains_angle_brackets_passes_through() {
        let input = "if a < b && c<d then <b>bold</b> <thin> <finality> </ fin <";
        assert_eq!(whole(input), vec![text(input)]);
    }

    #[test]
    fn a_held_back_suffix_is_released_as_soon_as_it_cannot_be_a_tag() {
        let mut filter = ThinkTagFilter::new();
        assert_eq!(filter.feed("x <thi"), vec![text("x ")]);
        assert_eq!(filter.feed("s is"), vec![text("<this is")]);
        assert_eq!(filter.feed(" 1 < 2"), vec![text(" 1 < 2")]);
        assert_eq!(filter.finish(), Vec::<Segment>::new());
    }

    #[test]
    fn a_tag_split_across_chunks_is_recognised() {
        let mut filter = ThinkTagFilter::new();
        assert_eq!(filter.feed("<thi"), Vec::<Segment>::new());
        assert_eq!(filter.feed("nk>why"), vec![thinking("why")]);
        assert_eq!(filter.feed("</th"), Vec::<Segment>::new());
        assert_eq!(filter.feed("ink>ok"), vec![text("ok")]);
    }

    #[test]
    fn an_unclosed_think_block_at_the_end_is_thinking() {
        assert_eq!(
            whole("start<think>still reasoning when the stream ended"),
            vec![
                text("start"),
                thinking("still reasoning when the stream ended")
            ]
        );
    }

    #[test]
    fn an_incomplete_tag_at_the_end_is_literal_text() {
        assert_eq!(whole("answer <thin"), vec![text("answer <thin")]);
        assert_eq!(whole("<think>x</thi"), vec![thinking("x</thi")]);
    }

    #[test]
    fn a_stray_closing_think_tag_is_removed() {
        assert_eq!(
            whole("reasoning</think>answer"),
            vec![text("reasoninganswer")]
        );
    }

    #[test]
    fn once_a_final_block_is_seen_only_final_content_is_kept() {
        assert_eq!(
            whole("<think>r</think>draft <final>The answer.</final> trailing chatter"),
            vec![thinking("r"), text("draft The answer.")]
        );
        assert_eq!(
            whole("<final>one</final> dropped <final> two</final>"),
            vec![text("one two")]
        );
    }

    #[test]
    fn tags_inside_reasoning_are_part_of_it_and_do_not_open_a_final_block() {
        assert_eq!(
            whole("<think>I will use <final> tags</think>plain"),
            vec![thinking("I will use <final> tags"), text("plain")]
        );
    }

    #[test]
    fn reasoning_inside_a_final_block_returns_to_the_final_block() {
        assert_eq!(
            whole("<final>a<think>b</think>c</final>d"),
            vec![text("a"), thinking("b"), text("c")]
        );
    }

    #[test]
    fn enforcing_mode_drops_text_before_the_first_final_block() {
        assert_eq!(
            run(
                ThinkTagFilter::enforcing_final(),
                &[
                    "preamble <think>r</think> more <fin",
                    "al>kept</final> after"
                ]
            ),
            vec![thinking("r"), text("kept")]
        );
    }

    #[test]
    fn enforcing_mode_releases_held_text_when_no_final_block_came() {
        let mut filter = ThinkTagFilter::enforcing_final();
        assert_eq!(
            filter.feed("<think>r</think>the answer"),
            vec![thinking("r")]
        );
        assert_eq!(filter.finish(), vec![text("the answer")]);
    }

    #[test]
    fn multibyte_text_around_tags_survives_every_split() {
        let input = "é<think>ü→</think>😀<final>ß</final>";
        assert_eq!(whole(input), vec![text("é"), thinking("ü→"), text("😀ß")]);
    }

    const INPUTS: [&str; 9] = [
        "<think>plan</think>answer",
        "pre <THINKING>deep</thinking> post",
        "a < b <thi <think>x</think><final>y</final>z",
        "reasoning</think>answer <final >done</ final> tail",
        "<think>never closed",
        "<<think>>x</think>>",
        "é<think>ü→</think>😀<final>ß</final>",
        "< think\n>spaced</think\t>out <finale> <fin",
        "plain text without tags at all",
    ];

    fn char_boundaries(input: &str) -> Vec<usize> {
        (0..=input.len())
            .filter(|index| input.is_char_boundary(*index))
            .collect()
    }

    #[test]
    fn every_two_way_split_gives_the_same_segments_as_the_whole_input() {
        for filter in [ThinkTagFilter::new(), ThinkTagFilter::enforcing_final()] {
            for input in INPUTS {
                let expected = run(filter.clone(), &[input]);
                assert!(!expected.is_empty(), "{input:?}");
                for split in char_boundaries(input) {
                    let (left, right) = input.split_at(split);
                    assert_eq!(
                        run(filter.clone(), &[left, right]),
                        expected,
                        "{input:?} split at {split}"
                    );
                }
            }
        }
    }

    #[test]
    fn one_character_chunks_give_the_same_segments_as_the_whole_input() {
        for filter in [ThinkTagFilter::new(), ThinkTagFilter::enforcing_final()] {
            for input in INPUTS {
                let chunks: Vec<String> = input.chars().map(String::from).collect();
                let chunks: Vec<&str> = chunks.iter().map(String::as_str).collect();
                assert_eq!(
                    run(filter.clone(), &chunks),
                    run(filter.clone(), &[input]),
                    "{input:?}"
                );
            }
        }
    }

    #[test]
    fn the_split_inputs_produce_the_expected_segments() {
        assert_eq!(
            whole(INPUTS[2]),
            vec![text("a < b <thi "), thinking("x"), text("y")]
        );
        assert_eq!(whole(INPUTS[5]), vec![text("<"), thinking(">x"), text(">")]);
        assert_eq!(
            whole(INPUTS[7]),
            vec![thinking("spaced"), text("out <finale> <fin")]
        );
    }
}

/// Applies [`ThinkTagFilter`] to a protocol's neutral events: text blocks become thinking and
/// text. Block `b` of the wire becomes `2b + 1`, and the reasoning pulled out of it `2b`, so the
/// reasoning sorts just before the text it came from.
#[derive(Debug, Default)]
pub struct InlineTagSplitter {
    filters: std::collections::BTreeMap<usize, ThinkTagFilter>,
}

impl InlineTagSplitter {
    /// A splitter with no blocks seen.
    pub fn new() -> InlineTagSplitter {
        InlineTagSplitter::default()
    }

    fn segments(block: usize, segments: Vec<Segment>, out: &mut Vec<StreamEvent>) {
        for segment in segments {
            match segment {
                Segment::Text(text) if !text.is_empty() => out.push(StreamEvent::TextDelta {
                    block: 2 * block + 1,
                    text,
                }),
                Segment::Thinking(text) if !text.is_empty() => {
                    out.push(StreamEvent::ThinkingDelta {
                        block: 2 * block,
                        text,
                    });
                }
                _ => {}
            }
        }
    }

    /// Transform one event (a finish flushes what the filters still hold).
    pub fn apply(&mut self, event: StreamEvent) -> Vec<StreamEvent> {
        let mut out = Vec::new();
        match event {
            StreamEvent::TextDelta { block, text } => {
                let segments = self.filters.entry(block).or_default().feed(&text);
                Self::segments(block, segments, &mut out);
            }
            StreamEvent::Finish { .. } => {
                for (block, filter) in &mut self.filters {
                    let segments = filter.finish();
                    Self::segments(*block, segments, &mut out);
                }
                out.push(event);
            }
            StreamEvent::TextSignature { block, signature } => {
                out.push(StreamEvent::TextSignature {
                    block: 2 * block + 1,
                    signature,
                })
            }
            StreamEvent::ThinkingDelta { block, text } => {
                out.push(StreamEvent::ThinkingDelta {
                    block: 2 * block + 1,
                    text,
                });
            }
            StreamEvent::ThinkingSignature { block, signature } => {
                out.push(StreamEvent::ThinkingSignature {
                    block: 2 * block + 1,
                    signature,
                });
            }
            StreamEvent::RedactedThinking { block, data } => {
                out.push(StreamEvent::RedactedThinking {
                    block: 2 * block + 1,
                    data,
                });
            }
            StreamEvent::ToolCallStart { block, id, name } => {
                out.push(StreamEvent::ToolCallStart {
                    block: 2 * block + 1,
                    id,
                    name,
                });
            }
            StreamEvent::ToolCallArguments { block, fragment } => {
                out.push(StreamEvent::ToolCallArguments {
                    block: 2 * block + 1,
                    fragment,
                });
            }
            // Compatible servers have no server tools; kept in step all the same.
            StreamEvent::ServerToolStart { block, id, name } => {
                out.push(StreamEvent::ServerToolStart {
                    block: 2 * block + 1,
                    id,
                    name,
                });
            }
            StreamEvent::ServerToolInput { block, fragment } => {
                out.push(StreamEvent::ServerToolInput {
                    block: 2 * block + 1,
                    fragment,
                });
            }
            StreamEvent::ServerToolResult {
                block,
                results,
                error,
                payload,
            } => out.push(StreamEvent::ServerToolResult {
                block: 2 * block + 1,
                results,
                error,
                payload,
            }),
            StreamEvent::ServerTool { block, call } => out.push(StreamEvent::ServerTool {
                block: 2 * block + 1,
                call,
            }),
            StreamEvent::Citation { block, citation } => out.push(StreamEvent::Citation {
                block: 2 * block + 1,
                citation,
            }),
            StreamEvent::ToolCall {
                block,
                id,
                name,
                arguments,
                thought_signature,
            } => {
                out.push(StreamEvent::ToolCall {
                    block: 2 * block + 1,
                    id,
                    name,
                    arguments,
                    thought_signature,
                });
            }
            other @ (StreamEvent::Start { .. } | StreamEvent::Usage(_)) => out.push(other),
        }
        out
    }
}

#[cfg(test)]
mod splitter_tests {
    use super::*;
    use crate::Accumulator;
    use crate::conversation::StopReason;

    #[test]
    fn inline_reasoning_split_across_deltas_becomes_a_thinking_block_before_the_text() {
        let mut splitter = InlineTagSplitter::new();
        let mut accumulator = Accumulator::new();
        let deltas = [
            "<thi",
            "nk>Let me",
            " check.</th",
            "ink>The answer",
            " is 4.",
        ];
        let mut events: Vec<StreamEvent> = deltas
            .iter()
            .map(|text| StreamEvent::TextDelta {
                block: 0,
                text: (*text).to_owned(),
            })
            .collect();
        events.push(StreamEvent::Finish {
            reason: StopReason::Stop,
            provider_reason: "stop".into(),
        });
        for event in events {
            for out in splitter.apply(event) {
                accumulator.apply(&out);
            }
        }
        let message = accumulator.message("openai-completions", "ollama", "qwen3", 0, None);
        assert_eq!(
            pincer_session::pi_fixtures::pi_content(&message),
            serde_json::json!([
                {"type": "thinking", "thinking": "Let me check."},
                {"type": "text", "text": "The answer is 4."}
            ])
        );
    }
}
