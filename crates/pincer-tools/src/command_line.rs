//! What a shell command line runs, read with a real shell grammar (tree-sitter-bash), for the
//! `exec(PATTERN)` rules of the tool policy (SPEC §10).
//!
//! Allow and deny rules ask different questions, and the answers lean opposite ways on purpose:
//! - [`plain_commands`] (allow rules): is the line nothing but plain commands joined by `;`,
//!   `&&`, `||`, `|` and newlines (a newline separates commands exactly as `;` does), and which
//!   are they? "Plain" is a short whitelist of the parse tree — words, quoted strings without
//!   expansions and concatenations of those, plus redirections that create no file (`2>&1`,
//!   `>&2`, `2>&-`, `>/dev/null`, `</dev/null`) — so whatever the whitelist does not know fails
//!   to match instead of matching by accident. Substitutions (also inside double quotes),
//!   expansions, assignments (`A=b cmd`), subshells, `{ }` groups, heredocs, functions, control
//!   structures, `&`, comments, control characters and syntax errors make a line not plain; so
//!   does `alias` (an alias makes a word mean another command).
//! - [`deny_candidates`] (deny rules): every text a deny pattern must see. Each command the
//!   parser finds anywhere — inside substitutions, subshells, functions, control structures —
//!   as its words and as written; after a wrapper (`sudo`, `env`, `timeout 5`, `xargs`, `flock
//!   FILE`, `busybox`, …) every tail of its words; `find -exec`'s command; a path-named program
//!   by its file name; and the scripts given to `sh -c`, `eval`, `flock -c`, `script -c`, `su
//!   -c` or `env -S`, parsed in turn. When the line does not parse or hands text to a shell,
//!   `eval`, `.`/`source` (`. /dev/stdin <<< 'rm x'`, `source <(echo rm x)`) or one of those
//!   options (`echo 'rm x' | sh`), every run of up to [`WINDOW_WORDS`] words of its text is a
//!   candidate too: a deny rule that could match text in such a line refuses it. A command whose
//!   name is computed (`$(echo rm) x`, `$A x`) or a pattern (`/bin/r? x`, `r{m,} x`) could be
//!   anything, and so could any word once the line uses `alias` (`alias x=rm; x -rf /`, also in
//!   text handed to a shell), so every deny pattern refuses such a line (fail closed).
//!
//! `exec` runs `sh -c`, which is dash on Debian, not bash. Bash's grammar reads more than dash
//! does; the whitelist keeps away from where the two read a line differently (`&>`, `|&`,
//! `$'…'`, `;;`, `<<<`). A line continuation between two word characters (`gi\<newline>t`) is
//! split by the grammar but joined by the shell, so it is not plain; for deny rules the line is
//! read once more with its continuations removed.

use tree_sitter::{Node, Parser, Tree};

/// The longest run of words of an unclear line that is compared with deny patterns.
const WINDOW_WORDS: usize = 32;
/// Beyond this many words a line that does not parse is not searched: every deny pattern
/// refuses it.
const MAX_SEARCHED_WORDS: usize = 2_000;
/// How deep `sh -c '… sh -c "…"'` is followed.
const MAX_SCRIPT_DEPTH: usize = 4;
/// Programs that run a script given as text (`-c SCRIPT`, or on stdin).
const SHELLS: &[&str] = &["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox"];
/// Shell builtins that run a file's text in the shell itself: when the file is stdin, a
/// here-doc or a process substitution (`. /dev/stdin <<< TEXT`, `source <(…)`), that text is on
/// the line.
const SOURCING: &[&str] = &[".", "source"];
/// Programs that run the command in the words after them (and their options).
const WRAPPERS: &[&str] = &[
    "sudo",
    "doas",
    "env",
    "nice",
    "ionice",
    "nohup",
    "timeout",
    "stdbuf",
    "time",
    "command",
    "builtin",
    "exec",
    "xargs",
    "setsid",
    "chrt",
    "taskset",
    "unbuffer",
    "watch",
    "chroot",
    "flock",
    "busybox",
    "su",
    "runuser",
    "unshare",
    "nsenter",
    "setpriv",
    "prlimit",
    "strace",
    "ltrace",
    "fakeroot",
    "firejail",
    "systemd-run",
];
/// Programs whose `-c CMD` (`--command CMD`) runs a command line through a shell.
const COMMAND_OPTION: &[&str] = &["flock", "script", "su", "runuser"];
/// Why every deny pattern refuses a line that uses `alias`, after "which uses `alias`".
const ALIAS_REASON: &str = "and an alias can make any word run any command";
/// The characters an unclear line's text is split into words at, besides whitespace (`,` for
/// bash's `{rm,-rf,x}`).
const SEPARATORS: &[char] = &[
    ';', '&', '|', '(', ')', '<', '>', '{', '}', '$', '=', '`', ',',
];

/// One plain command: a program and its arguments, nothing computed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct SimpleCommand {
    /// The words after quote removal (`g"i"t 'a b'` → `git`, `a b`).
    pub words: Vec<String>,
    /// As written, whitespace collapsed; for messages.
    pub text: String,
}

impl SimpleCommand {
    /// The words joined by single spaces, whitespace runs inside them collapsed as well: what a
    /// pattern is compared with (besides [`SimpleCommand::text`], so that a pattern written
    /// with quotes matches too).
    pub(super) fn matched_text(&self) -> String {
        collapse_whitespace(&self.words.join(" "))
    }
}

/// Why a line is not plain commands: the first construct outside the whitelist, described for
/// the model ("a command substitution (`$(rm -rf ~)`)").
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{construct}")]
pub(super) struct NotPlain {
    /// A noun phrase naming the construct, with the text when that helps.
    pub construct: String,
}

impl NotPlain {
    fn new(construct: impl Into<String>) -> NotPlain {
        NotPlain {
            construct: construct.into(),
        }
    }
}

/// The texts deny patterns are compared with.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct DenyCandidates {
    /// Commands and word runs, whitespace collapsed, without repeats.
    pub texts: Vec<String>,
    /// Why every deny pattern refuses the line whatever its text (a computed command name, or a
    /// line that does not parse and is too long to search), as a clause after "which".
    pub opaque: Option<String>,
}

/// The commands of `line` when it is plain commands joined by `;`, `&&`, `||`, `|` or newlines,
/// in order; otherwise the first construct that is not.
pub(super) fn plain_commands(line: &str) -> Result<Vec<SimpleCommand>, NotPlain> {
    if let Some(character) = line
        .chars()
        .find(|character| character.is_control() && !matches!(character, '\n' | '\t'))
    {
        return Err(NotPlain::new(format!(
            "the control character U+{:04X}",
            u32::from(character)
        )));
    }
    let tree = parse(line).ok_or_else(|| NotPlain::new("text the shell grammar cannot read"))?;
    let root = tree.root_node();
    if root.has_error() {
        let place = first_descendant(root, |node| node.is_error() || node.is_missing())
            .map(|node| format!(" near `{}`", snippet(node, line)))
            .unwrap_or_default();
        return Err(NotPlain::new(format!("a syntax error{place}")));
    }
    refuse_joining_continuations(root, line)?;
    let mut commands = Vec::new();
    // Depth-first in source order, without recursion: `a && b && …` nests one list per operator.
    let mut pending = vec![root];
    while let Some(node) = pending.pop() {
        match node.kind() {
            "program" | "list" | "pipeline" => pending.extend(children(node).into_iter().rev()),
            "command" => commands.push(plain_command(node, line)?),
            "redirected_statement" => commands.push(redirected_command(node, line)?),
            ";" | "&&" | "||" | "|" if !node.is_named() => {}
            _ => return Err(not_plain(node, line)),
        }
    }
    // An alias makes a word of a later command mean another command: the words matched are
    // then not what runs.
    if let Some(command) = commands.iter().find(|command| uses_alias(&command.words)) {
        return Err(NotPlain::new(format!("an alias (`{}`)", command.text)));
    }
    Ok(commands)
}

/// Whether a command (or the command a wrapper runs) is `alias`.
fn uses_alias(words: &[String]) -> bool {
    command_variants(words).iter().any(|variant| {
        variant
            .first()
            .is_some_and(|first| file_name(first) == "alias")
    })
}

/// Every text of `line` a deny pattern must see (see the module documentation).
pub(super) fn deny_candidates(line: &str) -> DenyCandidates {
    let mut candidates = DenyCandidates::default();
    collect(line, 0, &mut candidates);
    if line.contains("\\\n") {
        collect(&line.replace("\\\n", ""), 0, &mut candidates);
    }
    candidates.texts.push(collapse_whitespace(line));
    let mut seen = std::collections::HashSet::new();
    candidates.texts.retain(|text| seen.insert(text.clone()));
    candidates
}

fn parse(source: &str) -> Option<Tree> {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_bash::LANGUAGE.into())
        .ok()?;
    parser.parse(source, None)
}

fn children(node: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = node.walk();
    node.children(&mut cursor).collect()
}

fn text<'a>(node: Node<'_>, source: &'a str) -> &'a str {
    source.get(node.byte_range()).unwrap_or_default()
}

/// A command's text for a message, whitespace collapsed and cut to a readable length.
fn snippet(node: Node<'_>, source: &str) -> String {
    let text = collapse_whitespace(text(node, source));
    match text.char_indices().nth(60) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

/// The first node at or below `node`, in source order, that satisfies `wanted`.
fn first_descendant<'tree>(
    node: Node<'tree>,
    wanted: impl Fn(Node<'tree>) -> bool,
) -> Option<Node<'tree>> {
    let mut pending = vec![node];
    while let Some(node) = pending.pop() {
        if wanted(node) {
            return Some(node);
        }
        pending.extend(children(node).into_iter().rev());
    }
    None
}

/// A `\<newline>` outside quotes joins what is around it; the grammar splits there instead, so
/// only a continuation after a blank (which joins nothing) is plain.
fn refuse_joining_continuations(root: Node<'_>, source: &str) -> Result<(), NotPlain> {
    for (index, _) in source.match_indices("\\\n") {
        let quoted = root
            .descendant_for_byte_range(index, index + 2)
            .is_some_and(|node| {
                std::iter::successors(Some(node), Node::parent)
                    .any(|node| matches!(node.kind(), "string" | "raw_string"))
            });
        if !quoted && !source[..index].ends_with([' ', '\t']) {
            return Err(NotPlain::new("a line continuation inside a word"));
        }
    }
    Ok(())
}

fn plain_command(node: Node<'_>, source: &str) -> Result<SimpleCommand, NotPlain> {
    let mut words = Vec::new();
    for child in children(node) {
        match child.kind() {
            "command_name" => words.push(command_name(child, source)?),
            "file_redirect" if harmless_redirect(child, source) => {}
            _ if child.is_named() => {
                words.push(literal(child, source).ok_or_else(|| not_plain(child, source))?);
            }
            _ => return Err(not_plain(child, source)),
        }
    }
    Ok(SimpleCommand {
        words,
        text: collapse_whitespace(text(node, source)),
    })
}

/// The literal program name of a `command_name` node; not plain when it is computed or holds
/// an unquoted glob or brace pattern, which the shell may turn into another name (`/bin/r?`,
/// `r{m,}` in bash).
fn command_name(name: Node<'_>, source: &str) -> Result<String, NotPlain> {
    let value = name
        .named_child(0)
        .and_then(|word| literal(word, source))
        .ok_or_else(|| not_plain(name, source))?;
    let pattern = first_descendant(name, |part| {
        part.kind() == "word" && text(part, source).contains(['*', '?', '[', '{'])
    });
    match pattern {
        Some(_) => Err(NotPlain::new(format!(
            "a pattern in the command name (`{}`)",
            snippet(name, source)
        ))),
        None => Ok(value),
    }
}

/// `command 2>&1 >/dev/null`: plain when every redirection is harmless.
fn redirected_command(node: Node<'_>, source: &str) -> Result<SimpleCommand, NotPlain> {
    let body = node
        .child_by_field_name("body")
        .filter(|body| body.kind() == "command")
        .ok_or_else(|| not_plain(node, source))?;
    for child in children(node) {
        if child.id() != body.id() && !harmless_redirect(child, source) {
            return Err(not_plain(child, source));
        }
    }
    plain_command(body, source)
}

/// A redirection that creates and changes no file: duplicating or closing a descriptor, or
/// `/dev/null`. `&>` and `>&FILE` are not among them (in dash `&>` is `&` then `>`).
fn harmless_redirect(node: Node<'_>, source: &str) -> bool {
    if node.kind() != "file_redirect" {
        return false;
    }
    let mut operator = None;
    let mut targets = Vec::new();
    for child in children(node) {
        if child.kind() == "file_descriptor" {
            continue;
        }
        if child.is_named() {
            targets.push(child);
        } else if operator.replace(child.kind()).is_some() {
            return false;
        }
    }
    let target = match targets.as_slice() {
        [] => None,
        [target] => literal(*target, source),
        _ => return false,
    };
    match (operator, target.as_deref()) {
        (Some(">&" | "<&"), Some(descriptor)) => {
            !descriptor.is_empty() && descriptor.bytes().all(|byte| byte.is_ascii_digit())
        }
        (Some(">&-" | "<&-"), None) => true,
        (Some(">" | ">>" | "<"), Some("/dev/null")) => true,
        _ => false,
    }
}

/// The value of a word that the shell takes literally, or `None` when anything in it is
/// computed (or unknown to this whitelist).
fn literal(node: Node<'_>, source: &str) -> Option<String> {
    let raw = text(node, source);
    match node.kind() {
        "word" => unquoted_value(raw),
        "number" => Some(raw.to_owned()),
        "raw_string" => raw
            .strip_prefix('\'')
            .and_then(|inner| inner.strip_suffix('\''))
            .map(str::to_owned),
        "string" => {
            let mut value = String::new();
            for child in children(node) {
                match child.kind() {
                    "\"" if !child.is_named() => {}
                    "string_content" => value.push_str(&double_quoted_value(text(child, source))?),
                    _ => return None,
                }
            }
            Some(value)
        }
        "concatenation" => {
            let mut value = String::new();
            for child in children(node) {
                if !child.is_named() {
                    return None;
                }
                value.push_str(&literal(child, source)?);
            }
            Some(value)
        }
        _ => None,
    }
}

/// An unquoted word with its backslashes removed; `None` if it holds `$` or a back quote, which
/// the grammar should have made nodes of (a second line of defence).
fn unquoted_value(raw: &str) -> Option<String> {
    let mut value = String::new();
    let mut characters = raw.chars();
    while let Some(character) = characters.next() {
        match character {
            '\\' => match characters.next() {
                Some('\n') | None => {}
                Some(escaped) => value.push(escaped),
            },
            '$' | '`' => return None,
            other => value.push(other),
        }
    }
    Some(value)
}

/// The text between double quotes with the shell's five escapes applied; `None` if it holds an
/// unescaped `$` or back quote.
fn double_quoted_value(raw: &str) -> Option<String> {
    let mut value = String::new();
    let mut characters = raw.chars().peekable();
    while let Some(character) = characters.next() {
        match character {
            '\\' => match characters.peek() {
                Some('\n') => {
                    characters.next();
                }
                Some(&escaped @ ('$' | '`' | '"' | '\\')) => {
                    characters.next();
                    value.push(escaped);
                }
                _ => value.push('\\'),
            },
            '$' | '`' => return None,
            other => value.push(other),
        }
    }
    Some(value)
}

/// Describe the most telling construct at or below `node` that made the line not plain.
fn not_plain(node: Node<'_>, source: &str) -> NotPlain {
    let found = first_descendant(node, |part| construct_name(part.kind()).is_some());
    match found.and_then(|part| Some((part, construct_name(part.kind())?))) {
        Some((part, name)) => NotPlain::new(format!("{name} (`{}`)", snippet(part, source))),
        None => NotPlain::new(format!("`{}`", snippet(node, source))),
    }
}

fn construct_name(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "command_substitution" => "a command substitution",
        "process_substitution" => "a process substitution",
        "simple_expansion" | "expansion" => "a variable expansion",
        "arithmetic_expansion" => "an arithmetic expansion",
        "ansi_c_string" | "translated_string" => "a `$'…'` or `$\"…\"` string",
        "subshell" => "a subshell",
        "compound_statement" => "a `{ … }` group",
        "function_definition" => "a function definition",
        "heredoc_redirect" => "a heredoc",
        "herestring_redirect" => "a here-string",
        "file_redirect" => "a redirection to a file",
        "variable_assignment" => "a variable assignment",
        "declaration_command" | "unset_command" => "a variable declaration",
        "comment" => "a comment",
        "&" => "a background `&`",
        "|&" => "a `|&` pipe",
        "negated_command" => "a negation `!`",
        "test_command" => "a test `[ … ]`",
        "if_statement"
        | "for_statement"
        | "c_style_for_statement"
        | "while_statement"
        | "case_statement" => "a control structure",
        _ => return None,
    })
}

/// Add what one script (the line, or a script inside it) holds for deny patterns.
fn collect(source: &str, depth: usize, candidates: &mut DenyCandidates) {
    let Some(tree) = parse(source) else {
        add_word_runs(source, candidates);
        return;
    };
    let root = tree.root_node();
    let mut unclear = root.has_error();
    let mut pending = vec![root];
    while let Some(node) = pending.pop() {
        if node.kind() == "command" {
            unclear |= collect_command(node, source, depth, candidates);
        }
        pending.extend(children(node).into_iter().rev());
    }
    if unclear {
        add_word_runs(source, candidates);
    }
}

/// Add one command's candidates; `true` when it hands text to a shell or `eval`.
fn collect_command(
    node: Node<'_>,
    source: &str,
    depth: usize,
    candidates: &mut DenyCandidates,
) -> bool {
    let mut words = Vec::new();
    let mut unclear = false;
    for child in children(node) {
        match child.kind() {
            "command_name" => {
                let name = command_name(child, source).ok();
                if name.is_none() && candidates.opaque.is_none() {
                    candidates.opaque = Some(format!(
                        "runs a command whose name is computed, `{}`",
                        snippet(child, source)
                    ));
                }
                words.push(name.unwrap_or_else(|| text(child, source).to_owned()));
            }
            "variable_assignment"
            | "file_redirect"
            | "heredoc_redirect"
            | "herestring_redirect" => {}
            _ if child.is_named() => {
                words.push(literal(child, source).unwrap_or_else(|| text(child, source).to_owned()))
            }
            _ => {}
        }
    }
    candidates
        .texts
        .push(collapse_whitespace(text(node, source)));
    for variant in command_variants(&words) {
        candidates
            .texts
            .push(collapse_whitespace(&variant.join(" ")));
        let Some(first) = variant.first() else {
            continue;
        };
        let program = file_name(first);
        if program == "alias" && candidates.opaque.is_none() {
            candidates.opaque = Some(format!(
                "uses `alias` in `{}`, {ALIAS_REASON}",
                snippet(node, source)
            ));
        }
        let script = inline_script(&variant);
        unclear |= program == "eval"
            || SHELLS.contains(&program)
            || SOURCING.contains(&program)
            || script.is_some();
        if depth < MAX_SCRIPT_DEPTH
            && let Some(script) = script
        {
            collect(&script, depth + 1, candidates);
        }
    }
    unclear
}

/// The word lists a deny pattern compares with for one command: itself; after a leading
/// wrapper, every tail of its words (`sudo -u root rm x` → … `rm x`); the command of each
/// `find -exec … ;`; and each of those with a path-named program by its file name.
fn command_variants(words: &[String]) -> Vec<Vec<String>> {
    let mut variants = vec![words.to_vec()];
    if words
        .first()
        .is_some_and(|first| WRAPPERS.contains(&file_name(first)))
    {
        variants.extend((1..words.len()).map(|start| words[start..].to_vec()));
    }
    for (index, word) in words.iter().enumerate() {
        if matches!(word.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
            let command: Vec<String> = words[index + 1..]
                .iter()
                .take_while(|word| !matches!(word.as_str(), ";" | "+"))
                .cloned()
                .collect();
            if !command.is_empty() {
                variants.push(command);
            }
        }
    }
    let renamed: Vec<Vec<String>> = variants
        .iter()
        .filter(|variant| variant.first().is_some_and(|first| first.contains('/')))
        .map(|variant| {
            let mut renamed = variant.clone();
            renamed[0] = file_name(&variant[0]).to_owned();
            renamed
        })
        .collect();
    variants.extend(renamed);
    variants
}

/// The script `sh -c SCRIPT` (also `-lc`, `-ec`, …), `eval WORDS`, `flock … -c SCRIPT` (and
/// `script`, `su`, `runuser`; also `-xc SCRIPT`, `-cSCRIPT`, `--command[=]SCRIPT`) or `env -S
/// STRING` runs.
fn inline_script(words: &[String]) -> Option<String> {
    let (first, rest) = words.split_first()?;
    let program = file_name(first);
    if program == "eval" {
        return Some(rest.join(" "));
    }
    if program == "env" {
        return split_string(rest);
    }
    if COMMAND_OPTION.contains(&program) {
        return option_value(rest, 'c', "--command").map(|(script, _)| script);
    }
    if !SHELLS.contains(&program) {
        return None;
    }
    let flag = rest.iter().position(|word| {
        word.strip_prefix('-').is_some_and(|letters| {
            !letters.is_empty()
                && letters.contains('c')
                && letters.chars().all(|letter| letter.is_ascii_alphabetic())
        })
    })?;
    rest.get(flag + 1).cloned()
}

/// The value of the option `-LETTER` or `LONG` anywhere in `words` — `-c V`, `-cV`, `-xc V`
/// (after other letters), `--command V`, `--command=V` — and the index of the word after it.
/// Read generously: a value found where there is none only adds deny candidates.
fn option_value(words: &[String], letter: char, long: &str) -> Option<(String, usize)> {
    for (index, word) in words.iter().enumerate() {
        let next = || words.get(index + 1).map(|value| (value.clone(), index + 2));
        if word == long {
            return next();
        }
        if let Some(value) = word
            .strip_prefix(long)
            .and_then(|rest| rest.strip_prefix('='))
        {
            return Some((value.to_owned(), index + 1));
        }
        let Some(letters) = word.strip_prefix('-').filter(|rest| !rest.starts_with('-')) else {
            continue;
        };
        let Some(at) = letters.find(letter) else {
            continue;
        };
        if !letters[..at]
            .chars()
            .all(|other| other.is_ascii_alphanumeric())
        {
            continue;
        }
        let attached = &letters[at + letter.len_utf8()..];
        return if attached.is_empty() {
            next()
        } else {
            Some((attached.to_owned(), index + 1))
        };
    }
    None
}

/// The command `env -S STRING ARGS…` (`--split-string`) runs: STRING split into words (its
/// `\_` is a space), then ARGS.
fn split_string(words: &[String]) -> Option<String> {
    let (value, after) = option_value(words, 'S', "--split-string")?;
    let mut script = value.replace("\\_", " ");
    for word in words.get(after..).unwrap_or_default() {
        script.push(' ');
        script.push_str(word);
    }
    Some(script)
}

/// Every run of up to [`WINDOW_WORDS`] words of `source`, split at blanks and shell operators
/// with quotes and backslashes dropped (`r''m` is `rm`).
fn add_word_runs(source: &str, candidates: &mut DenyCandidates) {
    let words: Vec<String> = source
        .split(|character: char| character.is_whitespace() || SEPARATORS.contains(&character))
        .map(|word| word.replace(['\'', '"', '\\'], ""))
        .filter(|word| !word.is_empty())
        .collect();
    if words.len() > MAX_SEARCHED_WORDS {
        candidates.opaque.get_or_insert_with(|| {
            "does not parse and is too long to search for commands".to_owned()
        });
        return;
    }
    // Text handed to a shell may define an alias the parse tree never shows as a command.
    if words.iter().any(|word| word == "alias") {
        candidates.opaque.get_or_insert_with(|| {
            format!("hands text that uses `alias` to a shell, {ALIAS_REASON}")
        });
    }
    for start in 0..words.len() {
        for end in start + 1..=words.len().min(start + WINDOW_WORDS) {
            candidates.texts.push(words[start..end].join(" "));
        }
    }
}

/// `/usr/bin/rm` → `rm`.
fn file_name(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

pub(super) fn collapse_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    fn words_of(line: &str) -> Result<Vec<Vec<String>>, NotPlain> {
        plain_commands(line)
            .map(|commands| commands.into_iter().map(|command| command.words).collect())
    }

    fn owned(words: &[&[&str]]) -> Vec<Vec<String>> {
        words
            .iter()
            .map(|command| command.iter().map(|word| (*word).to_owned()).collect())
            .collect()
    }

    #[test]
    fn plain_lines_split_into_their_commands_with_quotes_removed() {
        let cases: [(&str, &[&[&str]]); 15] = [
            ("git status", &[&["git", "status"]]),
            (
                "a && b || c; d | e",
                &[&["a"], &["b"], &["c"], &["d"], &["e"]],
            ),
            ("a\nb", &[&["a"], &["b"]]),
            ("echo 'x; y' \"z | w\"", &[&["echo", "x; y", "z | w"]]),
            (
                "git commit -m \"a; b\"",
                &[&["git", "commit", "-m", "a; b"]],
            ),
            ("g\"i\"t st'a'tus", &[&["git", "status"]]),
            (
                "echo a\\;b \"x\\\"y\\$z\\n\"",
                &[&["echo", "a;b", "x\"y$z\\n"]],
            ),
            ("make 2>&1 >&2 2>&- >/dev/null </dev/null", &[&["make"]]),
            ("cargo test \\\n  --all", &[&["cargo", "test", "--all"]]),
            ("echo \"a\\\nb\"", &[&["echo", "ab"]]),
            ("   ", &[]),
            ("git status;", &[&["git", "status"]]),
            // `#` starts a comment only at the start of a word, as in the shell.
            ("git log a#b", &[&["git", "log", "a#b"]]),
            (
                "git -C ~/repo log -- '*.rs'",
                &[&["git", "-C", "~/repo", "log", "--", "*.rs"]],
            ),
            ("git log\t--oneline\n", &[&["git", "log", "--oneline"]]),
        ];
        for (line, expected) in cases {
            assert_eq!(words_of(line), Ok(owned(expected)), "{line:?}");
        }
        let commands = plain_commands("git   log  |  grep   fix").unwrap();
        assert_eq!(commands[0].text, "git log");
        assert_eq!(commands[1].matched_text(), "grep fix");
    }

    #[test]
    fn anything_but_plain_commands_is_named_as_not_plain() {
        let cases: [(&str, &str); 30] = [
            (
                "git log \"$(rm -rf ~)\"",
                "a command substitution (`$(rm -rf ~)`)",
            ),
            ("git log `id`", "a command substitution (``id``)"),
            ("echo $HOME", "a variable expansion (`$HOME`)"),
            ("echo \"${HOME}\"", "a variable expansion (`${HOME}`)"),
            ("echo $((1+2))", "an arithmetic expansion (`$((1+2))`)"),
            ("cat <(ls)", "a process substitution (`<(ls)`)"),
            ("(rm -rf /)", "a subshell (`(rm -rf /)`)"),
            ("{ rm x; }", "a `{ … }` group (`{ rm x; }`)"),
            ("f() { rm x; }", "a function definition (`f() { rm x; }`)"),
            ("cat <<EOF\nrm x\nEOF", "a heredoc (`<<EOF rm x EOF`)"),
            ("git log <<< x", "a here-string (`<<< x`)"),
            ("git log > out.txt", "a redirection to a file (`> out.txt`)"),
            (
                "git log &> out.txt",
                "a redirection to a file (`&> out.txt`)",
            ),
            (
                "git log >& out.txt",
                "a redirection to a file (`>& out.txt`)",
            ),
            (
                "git log >> /dev/nullx",
                "a redirection to a file (`>> /dev/nullx`)",
            ),
            ("A=b git status", "a variable assignment (`A=b`)"),
            ("export A=b", "a variable declaration (`export A=b`)"),
            ("git status # ; rm", "a comment (`# ; rm`)"),
            ("git log & rm -rf /", "a background `&` (`&`)"),
            ("git log |& cat", "a `|&` pipe (`|&`)"),
            ("! git status", "a negation `!` (`! git status`)"),
            ("[ -f x ]", "a test `[ … ]` (`[ -f x ]`)"),
            (
                "if true; then rm x; fi",
                "a control structure (`if true; then rm x; fi`)",
            ),
            ("echo $'a\\nb'", "a `$'…'` or `$\"…\"` string (`$'a\\nb'`)"),
            ("git status\r", "the control character U+000D"),
            ("git status )", "a syntax error near `)`"),
            ("a;;b", "`;;`"),
            ("gi\\\nt status", "a line continuation inside a word"),
            ("/bin/r? x", "a pattern in the command name (`/bin/r?`)"),
            ("r{m,} x", "a pattern in the command name (`r{m,}`)"),
        ];
        for (line, expected) in cases {
            assert_eq!(
                plain_commands(line).map_err(|error| error.construct),
                Err(expected.to_owned()),
                "{line:?}"
            );
        }
    }

    fn denied(line: &str) -> Vec<String> {
        deny_candidates(line).texts
    }

    /// Check that each line's deny candidates hold the expected text.
    fn assert_yields(cases: &[(&str, &str)]) {
        for (line, expected) in cases {
            assert!(
                denied(line).iter().any(|text| text == expected),
                "{line:?} should yield {expected:?}: {:?}",
                denied(line)
            );
        }
    }

    #[test]
    fn deny_candidates_hold_every_command_the_parser_finds() {
        let cases: [(&str, &str); 14] = [
            ("ls && rm -rf build", "rm -rf build"),
            ("echo \"$(rm x) ok\"", "rm x"),
            ("echo `rm x`", "rm x"),
            ("(cd x && rm y)", "rm y"),
            ("if true; then rm x; fi", "rm x"),
            ("f() { rm x; }; f", "rm x"),
            ("FOO=1 rm x", "rm x"),
            ("'r'm x", "rm x"),
            ("sudo -u root rm x", "rm x"),
            ("env -i PATH=/bin timeout 5 rm x", "rm x"),
            ("find . -name '*.o' -exec rm {} \\;", "rm {}"),
            ("/bin/rm -f x", "rm -f x"),
            ("bash -lc 'sudo rm x'", "rm x"),
            ("eval \"rm x\"", "rm x"),
        ];
        assert_yields(&cases);
    }

    #[test]
    fn unclear_lines_offer_every_run_of_their_words() {
        let cases: [(&str, &str); 5] = [
            // Text handed to a shell, syntax errors, joined continuations.
            ("{rm,-rf,x}", "rm -rf x"),
            ("echo 'rm x' | sh", "rm x"),
            ("sh <<EOF\nrm x\nEOF", "rm x"),
            ("git status ) rm x", "rm x"),
            ("r\\\nm x", "rm x"),
        ];
        assert_yields(&cases);
        // A clear line offers only its commands: `git rm` does not contain the command `rm`.
        assert_eq!(denied("git rm --cached x"), ["git rm --cached x"]);
        assert_eq!(denied("echo 'rm x'"), ["echo 'rm x'", "echo rm x"]);
    }

    #[test]
    fn computed_or_pattern_command_names_and_huge_broken_lines_are_opaque() {
        let cases: [(&str, &str); 4] = [
            (
                "$(echo rm) -rf x",
                "runs a command whose name is computed, `$(echo rm)`",
            ),
            (
                "A=rm; $A -rf x",
                "runs a command whose name is computed, `$A`",
            ),
            (
                "/bin/r? x",
                "runs a command whose name is computed, `/bin/r?`",
            ),
            (
                "echo ok; r{m,} x",
                "runs a command whose name is computed, `r{m,}`",
            ),
        ];
        for (line, expected) in cases {
            assert_eq!(
                deny_candidates(line).opaque.as_deref(),
                Some(expected),
                "{line:?}"
            );
        }
        let long = format!("( {}", "word ".repeat(MAX_SEARCHED_WORDS + 1));
        assert_eq!(
            deny_candidates(&long).opaque.as_deref(),
            Some("does not parse and is too long to search for commands")
        );
        let clear = "word ".repeat(MAX_SEARCHED_WORDS * 2);
        assert_eq!(deny_candidates(&clear).opaque, None);
        assert_eq!(deny_candidates("git log \"$(date)\"").opaque, None);
    }

    #[test]
    fn sourced_text_and_commands_of_command_running_programs_are_deny_candidates() {
        let cases: [(&str, &str); 16] = [
            (". /dev/stdin <<< 'rm -rf x'", "rm -rf x"),
            ("source <(echo rm -rf x)", "rm -rf x"),
            (". <<EOF\nrm -rf x\nEOF", "rm -rf x"),
            ("flock /tmp/l rm -rf x", "rm -rf x"),
            ("flock -c 'rm -rf x' /tmp/l", "rm -rf x"),
            ("flock --command='rm -rf x' /tmp/l", "rm -rf x"),
            ("script -c 'rm -rf x' /dev/null", "rm -rf x"),
            ("script -qc'rm -rf x' /dev/null", "rm -rf x"),
            ("su -c 'rm -rf x'", "rm -rf x"),
            ("busybox rm -rf x", "rm -rf x"),
            ("env -S 'rm -rf x'", "rm -rf x"),
            ("env -S'rm -rf' x", "rm -rf x"),
            ("env --split-string='rm -rf x'", "rm -rf x"),
            ("env --split-string 'rm -rf x'", "rm -rf x"),
            ("env -S 'rm\\_-rf\\_x'", "rm -rf x"),
            ("env -S \"FOO=1 sh -c 'rm -rf x'\"", "rm -rf x"),
        ];
        assert_yields(&cases);
        let words = |line: &str| -> Vec<String> { line.split(' ').map(str::to_owned).collect() };
        assert_eq!(
            option_value(&words("-x -w 5 /tmp/l -c script"), 'c', "--command"),
            Some(("script".to_owned(), 6))
        );
        assert_eq!(
            option_value(&words("-xcscript /tmp/l"), 'c', "--command"),
            Some(("script".to_owned(), 1))
        );
        assert_eq!(
            option_value(&words("--color /tmp/l"), 'c', "--command"),
            None
        );
        assert_eq!(split_string(&words("-i -S rm x")), Some("rm x".to_owned()));
        assert_eq!(split_string(&words("FOO=1 cargo test")), None);
    }

    #[test]
    fn an_alias_is_never_plain_and_makes_every_deny_pattern_refuse_the_line() {
        for (line, shown) in [
            ("alias x=rm; x -rf /", "alias x=rm"),
            ("git status\nalias g=git", "alias g=git"),
            ("command alias x=rm", "command alias x=rm"),
        ] {
            assert_eq!(
                plain_commands(line).map_err(|error| error.construct),
                Err(format!("an alias (`{shown}`)")),
                "{line:?}"
            );
        }
        assert_eq!(
            deny_candidates("alias x=rm; x -rf /").opaque.as_deref(),
            Some("uses `alias` in `alias x=rm`, and an alias can make any word run any command")
        );
        assert_eq!(
            deny_candidates("sh <<EOF\nalias x=rm\nx -rf y\nEOF")
                .opaque
                .as_deref(),
            Some(
                "hands text that uses `alias` to a shell, and an alias can make any word run \
                 any command"
            )
        );
        for harmless in ["echo alias", "git log --grep alias", "unalias -a"] {
            assert!(plain_commands(harmless).is_ok(), "{harmless:?}");
            assert_eq!(deny_candidates(harmless).opaque, None, "{harmless:?}");
        }
    }

    #[test]
    fn long_chains_are_read_without_deep_recursion() {
        let chain = vec!["git status"; 20_000].join(" && ");
        assert_eq!(plain_commands(&chain).unwrap().len(), 20_000);
        assert_eq!(deny_candidates(&chain).opaque, None);
    }

    #[test]
    fn wrappers_open_every_tail_and_other_commands_only_themselves() {
        let words = |line: &str| -> Vec<String> { line.split(' ').map(str::to_owned).collect() };
        let joined = |variants: Vec<Vec<String>>| -> Vec<String> {
            variants.iter().map(|variant| variant.join(" ")).collect()
        };
        assert_eq!(
            joined(command_variants(&words("sudo -E rm x"))),
            ["sudo -E rm x", "-E rm x", "rm x", "x"]
        );
        assert_eq!(joined(command_variants(&words("git rm x"))), ["git rm x"]);
        assert_eq!(
            joined(command_variants(&words("/usr/bin/env rm x"))),
            ["/usr/bin/env rm x", "rm x", "x", "env rm x"]
        );
        assert_eq!(
            inline_script(&words("sh -ec script")),
            Some("script".to_owned())
        );
        assert_eq!(inline_script(&words("sh script.sh")), None);
        assert_eq!(
            inline_script(&words("bash --norc -c x")),
            Some("x".to_owned())
        );
    }
}
