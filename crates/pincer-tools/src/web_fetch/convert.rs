//! What a fetched body becomes for the model: HTML as Markdown or plain text, other text as it
//! is, anything else refused by its content type.
//!
//! HTML is parsed by html5ever (the HTML standard's parsing algorithm, so broken markup reads as
//! a browser reads it) and turned into Markdown by htmd (turndown's rules: ATX headings, fenced
//! code blocks with their language, inline links, lists, tables). Before conversion the parts a
//! reader never sees are dropped (`head`, scripts, styles, templates, embedded objects) and
//! relative links and image sources are made absolute against the page's final URL, so the
//! model can fetch what a page links to. Plain text is the same tree's visible text, with block
//! elements on lines of their own.

use std::rc::Rc;

use htmd::HtmlToMarkdown;
use htmd::options::{BulletListMarker, Options};
use markup5ever_rcdom::{Node, NodeData};
use reqwest::Url;

/// Elements whose content is not part of the readable page.
const INVISIBLE: [&str; 11] = [
    "head", "script", "style", "noscript", "template", "iframe", "object", "embed", "svg",
    "canvas", "select",
];

/// Elements that start a line of their own in plain text.
const BLOCKS: [&str; 30] = [
    "address",
    "article",
    "aside",
    "blockquote",
    "br",
    "dd",
    "details",
    "div",
    "dl",
    "dt",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hr",
    "li",
    "main",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "ul",
];

/// How a body is read, from its content type (and its first bytes when the type says nothing).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BodyKind {
    /// `text/html`, `application/xhtml+xml`.
    Html,
    /// `text/*`, JSON, XML, JavaScript, YAML, TOML and the like.
    Text,
    /// Anything else: the content type (or "binary data" when none was sent).
    Binary(String),
}

/// The media type of a `Content-Type` value, lower-cased, without parameters.
pub fn media_type(content_type: &str) -> String {
    content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

/// The kind of a body with this `Content-Type`, or `None` when only its bytes can tell (no type,
/// or `application/octet-stream`, which servers send for plain files too).
pub fn kind_of_type(content_type: Option<&str>) -> Option<BodyKind> {
    let media = media_type(content_type.unwrap_or_default());
    let textual = [
        "application/json",
        "application/xml",
        "application/javascript",
        "application/ecmascript",
        "application/x-javascript",
        "application/yaml",
        "application/x-yaml",
        "application/toml",
        "application/x-sh",
        "application/sql",
        "application/graphql",
        "application/x-ndjson",
    ];
    Some(match media.as_str() {
        "" | "application/octet-stream" => return None,
        "text/html" | "application/xhtml+xml" => BodyKind::Html,
        text if text.starts_with("text/")
            || text.ends_with("+json")
            || text.ends_with("+xml")
            || textual.contains(&text) =>
        {
            BodyKind::Text
        }
        other => BodyKind::Binary(other.to_owned()),
    })
}

/// The kind of a body whose type said nothing, from its first bytes: text when they are UTF-8
/// without NUL bytes, HTML when that text starts like a document.
pub fn kind_of_bytes(start: &[u8]) -> BodyKind {
    let sample = &start[..start.len().min(8192)];
    // A multi-byte character cut at the sample's end is still text.
    let text = match std::str::from_utf8(sample) {
        Ok(text) => text,
        Err(error) if error.error_len().is_none() => {
            std::str::from_utf8(&sample[..error.valid_up_to()]).unwrap_or_default()
        }
        Err(_) => return BodyKind::Binary("binary data".to_owned()),
    };
    if text.contains('\0') {
        return BodyKind::Binary("binary data".to_owned());
    }
    let lead = text
        .trim_start()
        .get(..15)
        .unwrap_or_default()
        .to_ascii_lowercase();
    if lead.starts_with("<!doctype html") || lead.starts_with("<html") {
        BodyKind::Html
    } else {
        BodyKind::Text
    }
}

/// `html` as Markdown, links resolved against `base`.
pub fn html_to_markdown(html: &str, base: &Url) -> String {
    let converter = HtmlToMarkdown::builder()
        .options(Options {
            bullet_list_marker: BulletListMarker::Dash,
            ul_bullet_spacing: 1,
            ol_number_spacing: 1,
            ..Options::default()
        })
        .skip_tags(INVISIBLE.to_vec())
        .build();
    let Ok(tree) = converter.html_to_tree(html) else {
        return html.to_owned();
    };
    absolutize_links(&tree, base);
    converter.tree_to_markdown(&tree)
}

/// The visible text of `html`: block elements on their own lines, runs of blank lines folded.
pub fn html_to_text(html: &str) -> String {
    let Ok(tree) = HtmlToMarkdown::new().html_to_tree(html) else {
        return html.to_owned();
    };
    let mut text = String::new();
    collect_text(&tree, &mut text, false);
    let mut lines: Vec<&str> = Vec::new();
    for line in text.lines().map(str::trim_end) {
        if line.trim().is_empty() && lines.last().is_none_or(|last| last.is_empty()) {
            continue;
        }
        lines.push(if line.trim().is_empty() { "" } else { line });
    }
    while lines.last().is_some_and(|last| last.is_empty()) {
        lines.pop();
    }
    lines.join("\n")
}

fn element_name(node: &Node) -> Option<&str> {
    match &node.data {
        NodeData::Element { name, .. } => Some(&name.local),
        _ => None,
    }
}

/// `href` and `src` made absolute against `base`, everywhere in the tree.
fn absolutize_links(node: &Rc<Node>, base: &Url) {
    if let NodeData::Element { attrs, .. } = &node.data {
        for attribute in attrs.borrow_mut().iter_mut() {
            if matches!(&*attribute.name.local, "href" | "src")
                && let Ok(absolute) = base.join(attribute.value.trim())
                && matches!(absolute.scheme(), "http" | "https")
            {
                attribute.value = String::from(absolute).into();
            }
        }
    }
    for child in node.children.borrow().iter() {
        absolutize_links(child, base);
    }
}

fn collect_text(node: &Rc<Node>, out: &mut String, preformatted: bool) {
    let name = element_name(node);
    if name.is_some_and(|name| INVISIBLE.contains(&name)) {
        return;
    }
    let block = name.is_some_and(|name| BLOCKS.contains(&name));
    let preformatted = preformatted || name == Some("pre");
    if block && !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    match &node.data {
        NodeData::Text { contents } => {
            let contents = contents.borrow();
            // Whitespace is collapsed as a browser does, and kept only where the text had some:
            // `<a>guide</a>, next` reads "guide, next".
            let spaced = |out: &mut String| {
                if !out.is_empty() && !out.ends_with(['\n', ' ']) {
                    out.push(' ');
                }
            };
            if preformatted {
                out.push_str(&contents);
            } else {
                if contents.starts_with(char::is_whitespace) {
                    spaced(out);
                }
                let mut words = contents.split_whitespace();
                if let Some(first) = words.next() {
                    out.push_str(first);
                    for word in words {
                        out.push(' ');
                        out.push_str(word);
                    }
                    if contents.ends_with(char::is_whitespace) {
                        spaced(out);
                    }
                }
            }
        }
        _ => {
            for child in node.children.borrow().iter() {
                collect_text(child, out, preformatted);
            }
        }
    }
    if block && !out.ends_with('\n') {
        out.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = r#"<!doctype html><html><head><title>Serde</title>
<style>body { color: red }</style><script>var hidden = "<b>script</b>";</script></head>
<body><nav><a href="/">Home</a></nav>
<h1>Serde</h1><h2>Install &amp; use</h2>
<p>See <a href="guide/intro.html">the guide</a>, <a href="https://docs.rs/serde">the docs</a>
and <code>cargo add serde</code>.</p>
<pre><code class="language-rust">fn main() {
    println!("hi");
}
</code></pre>
<ul><li>one</li><li>two <em>items</em></li></ul>
<ol><li>first</li><li>second</li></ol>
<img src="logo.png" alt="logo"><noscript>enable scripts</noscript>
</body></html>"#;

    #[test]
    fn html_becomes_markdown_with_headings_links_code_blocks_and_lists() {
        let base = Url::parse("https://serde.rs/docs/index.html").unwrap();
        let markdown = html_to_markdown(PAGE, &base);
        assert_eq!(
            markdown,
            "[Home](https://serde.rs/)\n\n\
             # Serde\n\n\
             ## Install & use\n\n\
             See [the guide](https://serde.rs/docs/guide/intro.html), [the docs](https://docs.rs/serde) \
             and `cargo add serde`.\n\n\
             ```rust\nfn main() {\n    println!(\"hi\");\n}\n```\n\n\
             - one\n- two *items*\n\n\
             1. first\n2. second\n\n\
             ![logo](https://serde.rs/docs/logo.png)"
        );
    }

    #[test]
    fn plain_text_keeps_what_a_reader_sees_one_block_per_line() {
        let text = html_to_text(PAGE);
        assert_eq!(
            text,
            "Home\nSerde\nInstall & use\nSee the guide, the docs and cargo add serde.\n\
             fn main() {\n    println!(\"hi\");\n}\none\ntwo items\nfirst\nsecond"
        );
    }

    #[test]
    fn content_types_decide_how_a_body_is_read() {
        let cases = [
            (Some("text/html; charset=utf-8"), Some(BodyKind::Html)),
            (Some("application/xhtml+xml"), Some(BodyKind::Html)),
            (Some("text/plain"), Some(BodyKind::Text)),
            (Some("text/markdown"), Some(BodyKind::Text)),
            (Some("application/json"), Some(BodyKind::Text)),
            (Some("application/vnd.github+json"), Some(BodyKind::Text)),
            (Some("application/atom+xml"), Some(BodyKind::Text)),
            (
                Some("image/png"),
                Some(BodyKind::Binary("image/png".to_owned())),
            ),
            (
                Some("application/pdf"),
                Some(BodyKind::Binary("application/pdf".to_owned())),
            ),
            (Some("application/octet-stream"), None),
            (None, None),
        ];
        for (content_type, expected) in cases {
            assert_eq!(kind_of_type(content_type), expected, "{content_type:?}");
        }
        assert_eq!(kind_of_bytes(b"  <!DOCTYPE html><p>x"), BodyKind::Html);
        assert_eq!(kind_of_bytes(b"plain notes\n"), BodyKind::Text);
        assert_eq!(kind_of_bytes("caf\u{e9}".as_bytes()), BodyKind::Text);
        assert_eq!(
            kind_of_bytes(b"\x89PNG\r\n\x1a\n\0\0"),
            BodyKind::Binary("binary data".to_owned())
        );
    }
}
