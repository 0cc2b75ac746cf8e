//! What a replayed request is compared on: the request with everything that changes from run
//! to run, without changing what is asked, masked.
//!
//! Masked in every string of the request (keys are left alone):
//! - the runtime facts of the system prompt (`agent/prompt.rs`, section `## Runtime`): the date,
//!   the OS and architecture, the pincer version (the model line stays: it is part of the ask);
//! - the workspace: the path on the `Working directory:` line, wherever it occurs, and the
//!   live run's own workspace; the `Git repository:` line (the branch) and the turn's `Git
//!   status at the start of this turn:` note (the change counts);
//! - temporary paths: anything ending in a random `.tmpXXXXXX`, `pincer-exec-XXXXXX` (or
//!   `pincer-exec-` and 32 hex digits, as exec's private temp dir is named now) or
//!   `pincer-cli-XXXXXX` component (tempdirs, exec's private temp dir, the CLI prompt file);
//! - UUIDs (session ids, child session ids), 32-digit hex ids, ISO 8601 dates and date-times,
//!   13-digit millisecond timestamps.
//!
//! Tool call ids need no mask: they come from the model's (recorded) answers, so a replay sends
//! the same ones back.

use serde_json::Value;

const WORKSPACE_LINE: &str = "Working directory: ";
const WORKSPACE_LINE_END: &str = " (relative tool paths start here).";
const GIT_LINE: &str = "Git repository: ";
/// The note after a turn's prompt (`agent::prompt::git_status_note`).
const GIT_STATUS_LINE: &str = "Git status at the start of this turn: ";
const RUNTIME_HEADING: &str = "## Runtime";
/// Runtime fact lines masked after the label; `- model:` is kept.
const RUNTIME_FACTS: [&str; 3] = ["- date:", "- os:", "- pincer "];

/// `request` with the volatile parts masked. `workspace` is the live run's workspace (masked
/// wherever it occurs, like the one named on a `Working directory:` line).
pub fn normalize(request: &Value, workspace: Option<&str>) -> Value {
    let mut workspaces: Vec<String> = Vec::new();
    collect_workspaces(request, &mut workspaces);
    workspaces.extend(workspace.map(str::to_owned));
    workspaces.retain(|path| path.len() > 1);
    // The longest first, so that a workspace inside another is not masked half.
    workspaces.sort_by_key(|path| std::cmp::Reverse(path.len()));
    workspaces.dedup();
    let mut normalized = request.clone();
    mask_value(&mut normalized, &workspaces);
    normalized
}

/// `text` with the volatile parts masked (the workspace paths given are masked first).
pub fn mask_text(text: &str, workspaces: &[String]) -> String {
    let mut text = text.to_owned();
    for workspace in workspaces {
        text = mask_path(&text, workspace);
    }
    if text.contains(RUNTIME_HEADING) || text.contains(GIT_LINE) || text.contains(GIT_STATUS_LINE) {
        text = mask_lines(&text);
    }
    // Every other mask needs a digit or a `/`; many strings of a request (tool descriptions)
    // have neither.
    if !text
        .bytes()
        .any(|byte| byte.is_ascii_digit() || byte == b'/')
    {
        return text;
    }
    mask_shapes(&text)
}

/// The shapes masked by scanning, tried at each position in this order (longer shapes before
/// the shorter ones they contain). Hand-written rather than regular expressions: a replay
/// normalizes every request, and a replayed turn has a budget of 10 ms (SPEC §12.1).
fn mask_shapes(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut index = 0;
    while index < bytes.len() {
        let before = index.checked_sub(1).map(|previous| bytes[previous]);
        let found = if bytes[index] == b'/' {
            temp_path(bytes, index).map(|end| (end, "<tmp>"))
        } else if !bytes[index].is_ascii_alphanumeric()
            || before.is_some_and(|byte| byte.is_ascii_alphanumeric())
        {
            None
        } else {
            // Ids may follow `_` (`msg_…`); dates and timestamps start a word.
            let starts_word = before.is_none_or(|byte| !is_word(byte));
            uuid(bytes, index)
                .map(|end| (end, "<uuid>"))
                .or_else(|| hex_id(bytes, index).map(|end| (end, "<id>")))
                .or_else(|| {
                    starts_word
                        .then(|| {
                            date_time(bytes, index)
                                .map(|end| (end, "<datetime>"))
                                .or_else(|| date(bytes, index).map(|end| (end, "<date>")))
                                .or_else(|| timestamp(bytes, index).map(|end| (end, "<timestamp>")))
                        })
                        .flatten()
                })
        };
        match found {
            Some((end, mask)) => {
                out.push_str(&text[copied..index]);
                out.push_str(mask);
                copied = end;
                index = end;
            }
            None => index += 1,
        }
    }
    out.push_str(&text[copied..]);
    out
}

/// A letter, digit or `_` (the `\w` of regular expressions, ASCII).
fn is_word(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_'
}

/// Whether a shape ending at `end` ends there: no letter or digit follows (`_` may: `id_2`).
fn ends(bytes: &[u8], end: usize) -> bool {
    bytes
        .get(end)
        .is_none_or(|byte| !byte.is_ascii_alphanumeric())
}

/// `count` bytes from `at` that all satisfy `test`: the end.
fn run_of(bytes: &[u8], at: usize, count: usize, test: fn(&u8) -> bool) -> Option<usize> {
    let end = at + count;
    (end <= bytes.len() && bytes[at..end].iter().all(test)).then_some(end)
}

fn literal(bytes: &[u8], at: usize, expected: &[u8]) -> Option<usize> {
    bytes[at..]
        .starts_with(expected)
        .then_some(at + expected.len())
}

/// `8-4-4-4-12` hex digits.
fn uuid(bytes: &[u8], at: usize) -> Option<usize> {
    let mut end = run_of(bytes, at, 8, u8::is_ascii_hexdigit)?;
    for count in [4, 4, 4, 12] {
        end = literal(bytes, end, b"-")?;
        end = run_of(bytes, end, count, u8::is_ascii_hexdigit)?;
    }
    ends(bytes, end).then_some(end)
}

/// 32 lower-case hex digits (a UUID without dashes, `msg_…` ids).
fn hex_id(bytes: &[u8], at: usize) -> Option<usize> {
    let end = run_of(
        bytes,
        at,
        32,
        |byte| matches!(byte, b'0'..=b'9' | b'a'..=b'f'),
    )?;
    ends(bytes, end).then_some(end)
}

/// `YYYY-MM-DD`.
fn date_part(bytes: &[u8], at: usize) -> Option<usize> {
    let mut end = run_of(bytes, at, 4, u8::is_ascii_digit)?;
    for _ in 0..2 {
        end = literal(bytes, end, b"-")?;
        end = run_of(bytes, end, 2, u8::is_ascii_digit)?;
    }
    Some(end)
}

/// `YYYY-MM-DD` then `T` or a space, `HH:MM`, optional `:SS`, fraction and zone (`-` also
/// separates, as in file names).
fn date_time(bytes: &[u8], at: usize) -> Option<usize> {
    let mut end = date_part(bytes, at)?;
    if !matches!(bytes.get(end), Some(b'T' | b' ')) {
        return None;
    }
    end = run_of(bytes, end + 1, 2, u8::is_ascii_digit)?;
    let separated = |end: usize, separators: &[u8]| {
        bytes
            .get(end)
            .filter(|byte| separators.contains(byte))
            .and_then(|_| run_of(bytes, end + 1, 2, u8::is_ascii_digit))
    };
    end = separated(end, b":-")?;
    if let Some(seconds) = separated(end, b":-") {
        end = seconds;
        if matches!(bytes.get(end), Some(b'.' | b',' | b'-'))
            && bytes.get(end + 1).is_some_and(u8::is_ascii_digit)
        {
            end += 1;
            while bytes.get(end).is_some_and(u8::is_ascii_digit) {
                end += 1;
            }
        }
    }
    if bytes.get(end) == Some(&b'Z') {
        end += 1;
    } else if let Some(hours) = separated(end, b"+-") {
        end = literal(bytes, hours, b":").unwrap_or(hours);
        end = run_of(bytes, end, 2, u8::is_ascii_digit).unwrap_or(hours);
    }
    Some(end)
}

/// `YYYY-MM-DD` alone.
fn date(bytes: &[u8], at: usize) -> Option<usize> {
    let end = date_part(bytes, at)?;
    bytes
        .get(end)
        .is_none_or(|byte| !is_word(*byte))
        .then_some(end)
}

/// A 13-digit millisecond timestamp (2001 to 2286).
fn timestamp(bytes: &[u8], at: usize) -> Option<usize> {
    if bytes[at] != b'1' {
        return None;
    }
    let end = run_of(bytes, at, 13, u8::is_ascii_digit)?;
    bytes
        .get(end)
        .is_none_or(|byte| !is_word(*byte))
        .then_some(end)
}

/// An absolute path starting at `at` up to its last component that is a random temporary name
/// (`.tmpXXXXXX`, `pincer-exec-XXXXXX` or `pincer-exec-` and 32 hex digits,
/// `pincer-cli-XXXXXX`); the rest of the path is kept.
fn temp_path(bytes: &[u8], at: usize) -> Option<usize> {
    let path_byte = |byte: u8| byte.is_ascii_alphanumeric() || b"._~+@%,=:-".contains(&byte);
    let mut last = None;
    let mut component = at;
    while component < bytes.len() && bytes[component] == b'/' {
        let start = component + 1;
        for prefix in [&b".tmp"[..], b"pincer-exec-", b"pincer-cli-"] {
            let Some(random) = literal(bytes, start, prefix) else {
                continue;
            };
            // Six letters and digits (tempfile's names, and exec's until it named its own), or
            // the 32 hex digits exec's private temp dir is named with now.
            let ends_here = [
                run_of(bytes, random, 6, u8::is_ascii_alphanumeric),
                (prefix == b"pincer-exec-")
                    .then(|| run_of(bytes, random, 32, u8::is_ascii_hexdigit))
                    .flatten(),
            ];
            for end in ends_here.into_iter().flatten() {
                if ends(bytes, end)
                    && !bytes
                        .get(end)
                        .is_some_and(|byte| matches!(byte, b'.' | b'-' | b'_'))
                {
                    last = Some(end);
                }
            }
        }
        let mut next = start;
        while next < bytes.len() && path_byte(bytes[next]) {
            next += 1;
        }
        if next == start {
            break;
        }
        component = next;
    }
    last
}

fn collect_workspaces(value: &Value, found: &mut Vec<String>) {
    match value {
        Value::String(text) => {
            for line in text.lines() {
                if let Some(rest) = line.trim_start().strip_prefix(WORKSPACE_LINE)
                    && let Some(path) = rest.strip_suffix(WORKSPACE_LINE_END)
                {
                    found.push(path.to_owned());
                }
            }
        }
        Value::Array(items) => items
            .iter()
            .for_each(|item| collect_workspaces(item, found)),
        Value::Object(map) => map
            .values()
            .for_each(|item| collect_workspaces(item, found)),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

fn mask_value(value: &mut Value, workspaces: &[String]) {
    match value {
        Value::String(text) => *text = mask_text(text, workspaces),
        Value::Array(items) => items
            .iter_mut()
            .for_each(|item| mask_value(item, workspaces)),
        Value::Object(map) => map
            .values_mut()
            .for_each(|item| mask_value(item, workspaces)),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// Every occurrence of the path `path` that ends where a path component ends.
fn mask_path(text: &str, path: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(path) {
        let after = &rest[start + path.len()..];
        let whole = after
            .chars()
            .next()
            .is_none_or(|next| !(next.is_alphanumeric() || matches!(next, '-' | '_' | '.')));
        out.push_str(&rest[..start]);
        out.push_str(if whole { "<workspace>" } else { path });
        rest = after;
    }
    out.push_str(rest);
    out
}

/// The runtime facts and the git line.
fn mask_lines(text: &str) -> String {
    let mut in_runtime = false;
    let lines: Vec<String> = text
        .split('\n')
        .map(|line| {
            if line == RUNTIME_HEADING {
                in_runtime = true;
                return line.to_owned();
            }
            if in_runtime && !line.starts_with("- ") {
                in_runtime = false;
            }
            if in_runtime && let Some(label) = RUNTIME_FACTS.iter().find(|l| line.starts_with(**l))
            {
                return format!("{} <masked>", label.trim_end());
            }
            for label in [GIT_LINE, GIT_STATUS_LINE] {
                if let Some(start) = line.find(label) {
                    return format!("{}{label}<masked>", &line[..start]);
                }
            }
            line.to_owned()
        })
        .collect();
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn each_shape_is_masked_where_it_stands_alone() {
        let cases = [
            ("id 0199a213-81c0-7800-8aa1-bbab2a035a53.", "id <uuid>."),
            (
                "x0199a213-81c0-7800-8aa1-bbab2a035a53",
                "x0199a213-81c0-7800-8aa1-bbab2a035a53",
            ),
            ("msg_0123456789abcdef0123456789abcdef", "msg_<id>"),
            (
                "sha 0123456789abcdef0123456789abcdef01234567",
                "sha 0123456789abcdef0123456789abcdef01234567",
            ),
            ("at 2026-03-01T10:00:00.123Z, then", "at <datetime>, then"),
            (
                "file 2026-11-30T10-00-00-000Z_x.jsonl",
                "file <datetime>_x.jsonl",
            ),
            ("on 2026-03-01 10:00+01:00", "on <datetime>"),
            ("on 2026-03-01.", "on <date>."),
            ("v2026-03-01x", "v2026-03-01x"),
            (
                "ms 1772359200123 and 17723592001234",
                "ms <timestamp> and 17723592001234",
            ),
            (
                "see /tmp/.tmpAb12Cd/work/x and /var/t/pincer-exec-a1B2c3",
                "see <tmp>/work/x and <tmp>",
            ),
            (
                "/tmp/pincer-cli-q9W8e7/system-prompt.md",
                "<tmp>/system-prompt.md",
            ),
            (
                "in /tmp/pincer-exec-4f0c2a9d1e8b47c6a3d5e7f9b1c3d5e7/out.txt",
                "in <tmp>/out.txt",
            ),
            (
                "not /tmp/pincer-exec-4f0c2a9d1e8b47c6a3d5e7f9b1c3d5e/x",
                "not /tmp/pincer-exec-4f0c2a9d1e8b47c6a3d5e7f9b1c3d5e/x",
            ),
            (
                "not /tmp/.tmpAb12Cdx nor /tmp/.tmpAb12",
                "not /tmp/.tmpAb12Cdx nor /tmp/.tmpAb12",
            ),
            ("x86_64 stays, 42 too", "x86_64 stays, 42 too"),
        ];
        for (text, masked) in cases {
            assert_eq!(mask_text(text, &[]), masked, "{text}");
        }
    }

    fn system_prompt(workspace: &str, date: &str, version: &str, git: &str) -> String {
        format!(
            "You are pincer.\n\n## Workspace\nWorking directory: {workspace} (relative tool paths start here).\nGit repository: {git}.\n\n## Runtime\n- date: {date}\n- os: linux (x86_64)\n- model: anthropic/claude-sonnet-4-5\n- pincer {version}\n\n## Notes\n- date: kept outside the runtime section"
        )
    }

    #[test]
    fn two_runs_of_the_same_turn_on_other_machines_normalize_the_same() {
        let first = json!({
            "system": system_prompt("/home/ann/project", "2026-03-01 (Sunday), UTC+01:00", "0.1.0", "branch main, no uncommitted changes"),
            "messages": [
                {"role": "user", "content": "list /home/ann/project/src"},
                {"role": "user", "content": "tmp is /tmp/pincer-exec-a1B2c3/out.txt, session 0199a213-81c0-7800-8aa1-bbab2a035a53"},
                {"role": "user", "content": "at 2026-03-01T10:00:00.123Z (1772359200123), msg_0123456789abcdef0123456789abcdef"},
                {"role": "user", "content": [{"type": "text", "text": "go"}, {"type": "text", "text": "Git status at the start of this turn: no uncommitted changes."}]}
            ]
        });
        let second = json!({
            "system": system_prompt("/runner/work/project", "2026-04-11 (Saturday), UTC+00:00", "0.2.0", "a detached HEAD, 3 changed and 1 untracked files"),
            "messages": [
                {"role": "user", "content": "list /runner/work/project/src"},
                {"role": "user", "content": "tmp is /var/tmp/pincer-exec-0a1b2c3d4e5f60718293a4b5c6d7e8f9/out.txt, session 4c8a6f0e-1b2d-4e3f-9a0b-1c2d3e4f5a6b"},
                {"role": "user", "content": "at 2026-04-11T08:30:00Z (1775896200000), msg_fedcba9876543210fedcba9876543210"},
                {"role": "user", "content": [{"type": "text", "text": "go"}, {"type": "text", "text": "Git status at the start of this turn: 3 changed and 1 untracked files."}]}
            ]
        });
        let normalized = normalize(&first, Some("/elsewhere"));
        assert_eq!(normalized, normalize(&second, Some("/runner/work/project")));
        let system = normalized["system"].as_str().unwrap();
        assert!(system.contains("Working directory: <workspace> (relative"));
        assert!(
            system.contains("- model: anthropic/claude-sonnet-4-5"),
            "{system}"
        );
        assert!(system.contains("- pincer <masked>"), "{system}");
        assert!(system.contains("- date: kept outside the runtime section"));
        assert_eq!(normalized["messages"][0]["content"], "list <workspace>/src");
    }

    #[test]
    fn a_changed_prompt_or_model_still_differs() {
        let request = |prompt: &str, model: &str| json!({"model": model, "system": system_prompt("/w/p", "2026-03-01", "0.1.0", "branch main"), "messages": [{"role": "user", "content": prompt}]});
        let base = normalize(&request("list files", "claude-sonnet-4-5"), None);
        assert_ne!(
            base,
            normalize(&request("list all files", "claude-sonnet-4-5"), None)
        );
        assert_ne!(
            base,
            normalize(&request("list files", "claude-opus-4-1"), None)
        );
    }

    #[test]
    fn a_workspace_is_masked_only_where_a_path_component_ends() {
        let workspaces = vec!["/srv/app".to_owned()];
        assert_eq!(
            mask_text("/srv/app /srv/app/x /srv/apple /srv/app.bak", &workspaces),
            "<workspace> <workspace>/x /srv/apple /srv/app.bak"
        );
    }
}
