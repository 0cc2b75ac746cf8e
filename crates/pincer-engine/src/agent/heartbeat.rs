//! Heartbeat runs (SPEC §6.4): a cron job asks the agent to check `HEARTBEAT.md`, and a reply
//! that is only the acknowledgement token means "nothing to report", so text mode prints nothing
//! and cron sends no mail.
//!
//! The acknowledgement test follows the seed (runtime reference §5.3): the token counts at the
//! start or the end of the reply, also when wrapped in markdown or HTML emphasis, and at most
//! [`ACK_MAX_CHARS`] characters of other text may accompany it. A token in the middle of a longer
//! text is part of a report, not an acknowledgement.

/// The reply that means nothing needs attention.
pub const HEARTBEAT_OK: &str = "HEARTBEAT_OK";

/// How much other text an acknowledgement may carry, in characters.
pub const ACK_MAX_CHARS: usize = 300;

/// The prompt of a heartbeat run when the user gives none.
pub fn default_prompt() -> &'static str {
    "This is a scheduled heartbeat check. Read HEARTBEAT.md from the workspace context and do \
     what it asks, exactly as written; do not bring back tasks from earlier conversations. If \
     nothing needs attention, reply with exactly HEARTBEAT_OK and nothing else."
}

/// Whether a reply is an acknowledgement: the token alone, or the token at the start or the end
/// with at most [`ACK_MAX_CHARS`] characters of other text.
pub fn is_heartbeat_ok(reply: &str) -> bool {
    let reply = reply.trim();
    let rest = if let Some(rest) = strip_leading_token(reply) {
        // "HEARTBEAT_OK … HEARTBEAT_OK": the trailing token is not counted as text either.
        strip_trailing_token(rest).unwrap_or(rest)
    } else if let Some(rest) = strip_trailing_token(reply) {
        rest
    } else {
        return false;
    };
    rest.trim().chars().count() <= ACK_MAX_CHARS
}

/// Markdown emphasis characters.
const EMPHASIS: [char; 4] = ['*', '_', '~', '`'];

/// Markup a model may wrap the token in: emphasis characters, short HTML tags, `&nbsp;`.
fn strip_markup_start(mut text: &str) -> &str {
    loop {
        let trimmed = text.trim_start();
        let next = if let Some(rest) = trimmed.strip_prefix(EMPHASIS) {
            rest
        } else if let Some(rest) = trimmed.strip_prefix("&nbsp;") {
            rest
        } else if let Some(length) = html_tag_length(trimmed) {
            &trimmed[length..]
        } else {
            return trimmed;
        };
        text = next;
    }
}

fn strip_markup_end(mut text: &str) -> &str {
    loop {
        let trimmed = text.trim_end();
        let next = if let Some(rest) = trimmed.strip_suffix(EMPHASIS) {
            rest
        } else if let Some(rest) = trimmed.strip_suffix("&nbsp;") {
            rest
        } else if let Some(start) = trimmed.rfind('<')
            && html_tag_length(&trimmed[start..]) == Some(trimmed.len() - start)
        {
            &trimmed[..start]
        } else {
            return trimmed;
        };
        text = next;
    }
}

/// The byte length of a short tag such as `<b>` or `</strong>` at the start of `text`.
fn html_tag_length(text: &str) -> Option<usize> {
    let inner = text.strip_prefix('<')?;
    let inner = inner.strip_prefix('/').unwrap_or(inner);
    let name_length = inner.bytes().take_while(u8::is_ascii_alphanumeric).count();
    let name_is_short = (1..=10).contains(&name_length);
    (name_is_short && inner[name_length..].starts_with('>'))
        .then(|| text.len() - inner.len() + name_length + 1)
}

/// The text after a leading token and its markup, when the reply starts with the token as a
/// whole word.
fn strip_leading_token(text: &str) -> Option<&str> {
    let rest = strip_markup_start(text).strip_prefix(HEARTBEAT_OK)?;
    let word_continues = rest
        .trim_start_matches(EMPHASIS)
        .chars()
        .next()
        .is_some_and(char::is_alphanumeric);
    (!word_continues).then(|| strip_markup_start(rest))
}

/// The text before a trailing token and its markup, when the reply ends with the token as a
/// whole word.
fn strip_trailing_token(text: &str) -> Option<&str> {
    let rest = strip_markup_end(text).strip_suffix(HEARTBEAT_OK)?;
    let word_continues = rest
        .trim_end_matches(EMPHASIS)
        .chars()
        .next_back()
        .is_some_and(char::is_alphanumeric);
    (!word_continues).then(|| strip_markup_end(rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_alone_is_an_acknowledgement() {
        assert!(is_heartbeat_ok("HEARTBEAT_OK"));
        assert!(is_heartbeat_ok("  HEARTBEAT_OK\n"));
    }

    #[test]
    fn an_empty_reply_is_not_an_acknowledgement() {
        assert!(!is_heartbeat_ok(""));
        assert!(!is_heartbeat_ok("  \n "));
    }

    #[test]
    fn markdown_and_html_emphasis_around_the_token_is_tolerated() {
        assert!(is_heartbeat_ok("**HEARTBEAT_OK**"));
        assert!(is_heartbeat_ok("`HEARTBEAT_OK`"));
        assert!(is_heartbeat_ok("<b>HEARTBEAT_OK</b>"));
        assert!(is_heartbeat_ok("_HEARTBEAT_OK_"));
        assert!(is_heartbeat_ok("&nbsp;~~HEARTBEAT_OK~~&nbsp;"));
        assert!(is_heartbeat_ok("All checks passed. **HEARTBEAT_OK**"));
    }

    #[test]
    fn a_short_acknowledgement_before_or_after_the_token_counts() {
        assert!(is_heartbeat_ok("HEARTBEAT_OK — disk usage is at 40 %."));
        assert!(is_heartbeat_ok("Nothing new in the inbox.\n\nHEARTBEAT_OK"));
        assert!(is_heartbeat_ok("HEARTBEAT_OK nothing to do HEARTBEAT_OK"));
    }

    #[test]
    fn three_hundred_characters_of_other_text_is_the_limit() {
        let at_limit = format!("HEARTBEAT_OK {}", "é".repeat(300));
        assert!(is_heartbeat_ok(&at_limit));
        let over_limit = format!("HEARTBEAT_OK {}", "é".repeat(301));
        assert!(!is_heartbeat_ok(&over_limit));
        let over_limit_before = format!("{} HEARTBEAT_OK", "x".repeat(301));
        assert!(!is_heartbeat_ok(&over_limit_before));
    }

    #[test]
    fn a_token_in_the_middle_of_a_report_is_not_an_acknowledgement() {
        assert!(!is_heartbeat_ok(
            "The backup failed. I would normally say HEARTBEAT_OK but the disk is full."
        ));
        let long = format!("{} HEARTBEAT_OK {}", "a".repeat(200), "b".repeat(200));
        assert!(!is_heartbeat_ok(&long));
    }

    #[test]
    fn the_token_must_be_a_whole_word() {
        assert!(!is_heartbeat_ok("HEARTBEAT_OKAY"));
        assert!(!is_heartbeat_ok("NOTHEARTBEAT_OK"));
        assert!(!is_heartbeat_ok("heartbeat_ok"));
        assert!(!is_heartbeat_ok("HEARTBEAT_OK_LATER"));
        assert!(!is_heartbeat_ok("**NOT_HEARTBEAT_OK**x"));
    }

    #[test]
    fn the_default_prompt_names_the_file_and_the_token() {
        assert!(default_prompt().contains("HEARTBEAT.md"));
        assert!(default_prompt().contains(HEARTBEAT_OK));
    }
}
