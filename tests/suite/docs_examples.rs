//! The examples of `README.md` and `docs/` are tests.
//!
//! A ` ```console ` block is run: each `$ ` line is one shell command (`pincer` is the binary
//! under test), run from the repository root in one hermetic home per document, so the blocks of
//! a document follow each other as a reader's commands would; its stdout must match the lines
//! that follow (`[..]` in a line matches any text, a line `...` any number of lines) and it must
//! exit 0. A ` ```sh ` block runs whole, in a sandbox of its own per document where every
//! provider is a mock and `claude` and `codex` are fakes ([`Sandbox`]), and must exit 0; one that
//! cannot run offline says why in a visible `# not run in CI: REASON` line, and is counted. Every
//! `pincer` command of a `sh` block, run or not, must parse against the real command line, so a
//! renamed or removed flag cannot linger in the docs. The "Examples:" of every command's help
//! (its man page's EXAMPLES) run too, line by line, in a sandbox per command seeded with the
//! sessions, profiles and files they name; a line that cannot run says `not run in CI: REASON`.

use std::path::{Path, PathBuf};

use pincer::cli::Cli;

use crate::common::{Home, code, stderr, stdout};

/// One fenced block of a Markdown document.
struct Block {
    /// Where it is, `README.md:72`, for failure messages.
    at: String,
    /// The info string: `console`, `sh`, …
    info: String,
    /// The lines between the fences.
    lines: Vec<String>,
}

fn repository() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `README.md` and every Markdown file under `docs/`, in a stable order.
fn documents() -> Vec<PathBuf> {
    let root = repository();
    let mut documents = vec![root.join("README.md")];
    let mut directories = vec![root.join("docs")];
    while let Some(directory) = directories.pop() {
        for entry in std::fs::read_dir(&directory).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                directories.push(path);
            } else if path.extension().is_some_and(|extension| extension == "md") {
                documents.push(path);
            }
        }
    }
    documents.sort();
    documents
}

fn blocks(document: &Path) -> Vec<Block> {
    let name = document
        .strip_prefix(repository())
        .unwrap()
        .display()
        .to_string();
    let text = std::fs::read_to_string(document).unwrap();
    let mut blocks = Vec::new();
    let mut open: Option<Block> = None;
    for (index, line) in text.lines().enumerate() {
        match (open.take(), line.strip_prefix("```")) {
            (None, Some(info)) => {
                open = Some(Block {
                    at: format!("{name}:{}", index + 1),
                    info: info.trim().to_owned(),
                    lines: Vec::new(),
                });
            }
            (Some(block), Some(_)) => blocks.push(block),
            (Some(mut block), None) => {
                block.lines.push(line.to_owned());
                open = Some(block);
            }
            (None, None) => {}
        }
    }
    assert!(open.is_none(), "{name}: a fenced block is never closed");
    blocks
}

/// Whether `actual` (stdout, line by line) matches the `expected` lines of a console block.
fn matches(expected: &[String], actual: &[&str]) -> bool {
    let Some((first, rest)) = expected.split_first() else {
        return actual.is_empty();
    };
    if first == "..." {
        return (0..=actual.len()).any(|skip| matches(rest, &actual[skip..]));
    }
    let Some((line, remaining)) = actual.split_first() else {
        return false;
    };
    line_matches(first, line) && matches(rest, remaining)
}

/// One line, where each `[..]` of `pattern` matches any text.
fn line_matches(pattern: &str, line: &str) -> bool {
    let mut pieces = pattern.split("[..]");
    let first = pieces.next().unwrap_or_default();
    let Some(mut rest) = line.strip_prefix(first) else {
        return false;
    };
    let pieces: Vec<&str> = pieces.collect();
    for (index, piece) in pieces.iter().enumerate() {
        if index == pieces.len() - 1 {
            return rest.ends_with(piece);
        }
        match rest.find(piece) {
            Some(at) => rest = &rest[at + piece.len()..],
            None => return false,
        }
    }
    rest.is_empty()
}

#[test]
fn every_console_example_runs_and_prints_what_the_docs_show() {
    let mut failures = Vec::new();
    let mut ran = 0;
    for document in documents() {
        let home = Home::new();
        for block in blocks(&document)
            .into_iter()
            .filter(|block| block.info == "console")
        {
            let mut commands: Vec<(String, Vec<String>)> = Vec::new();
            for line in &block.lines {
                match line.strip_prefix("$ ") {
                    Some(command) => commands.push((command.to_owned(), Vec::new())),
                    None => match commands.last_mut() {
                        Some((_, expected)) => expected.push(line.clone()),
                        None => failures.push(format!("{}: output before any `$ `", block.at)),
                    },
                }
            }
            for (command, expected) in commands {
                ran += 1;
                // `sh -c SCRIPT PINCER`: the script's $0 is the binary under test.
                let script = format!("pincer() {{ \"$0\" \"$@\"; }}\n{command}");
                // A dummy key, as a reader who followed the README has one: an example that
                // shows a failure shows the one it is about, not a missing key.
                let output = home
                    .pincer()
                    .env("ANTHROPIC_API_KEY", "sk-ant-docs-example-dummy")
                    .inside("sh", ["-c", script.as_str()])
                    .current_dir(repository())
                    .output();
                let printed = stdout(&output);
                let actual: Vec<&str> = printed.lines().collect();
                if code(&output) != 0 || !matches(&expected, &actual) {
                    failures.push(format!(
                        "{}: `{command}` exited {}\n--- expected\n{}\n--- stdout\n{printed}--- stderr\n{}",
                        block.at,
                        code(&output),
                        expected.join("\n"),
                        stderr(&output)
                    ));
                }
            }
        }
    }
    assert!(ran > 0, "no console example found");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Words of a shell line that end one command and start the next (or redirect its output).
fn ends_a_command(word: &str) -> bool {
    matches!(word, "|" | "||" | "&&" | ";" | "&" | ")" | "2>&1")
        || word.starts_with('>')
        || word.starts_with('<')
        || word.starts_with("2>")
}

/// `pincer`, or a path to it.
fn is_pincer(word: &str) -> bool {
    word == "pincer" || word.ends_with("/pincer")
}

/// A word that starts a command substitution of pincer: `$(pincer`, `answer=$(pincer`.
fn substitutes_pincer(word: &str) -> bool {
    word.rsplit_once("$(")
        .is_some_and(|(_, program)| is_pincer(program))
}

/// A redirection operator whose file is the next word (`>`, `2>>`, `<`).
fn is_redirection(word: &str) -> bool {
    matches!(word, ">" | ">>" | "<" | "2>" | "2>>")
}

/// The `pincer …` commands of one `sh` block, as argument vectors.
fn pincer_commands(block: &Block) -> Result<Vec<Vec<String>>, String> {
    let mut commands = Vec::new();
    let mut logical = String::new();
    let mut heredoc: Option<String> = None;
    for line in &block.lines {
        if let Some(end) = &heredoc {
            if line.trim() == end {
                heredoc = None;
            }
            continue;
        }
        if let Some(continued) = line.strip_suffix('\\') {
            logical.push_str(continued);
            continue;
        }
        logical.push_str(line);
        let line = std::mem::take(&mut logical);
        if let Some((_, marker)) = line.split_once("<<") {
            heredoc = Some(marker.trim().trim_matches(['\'', '"', '-']).to_owned());
        }
        let line = line.split("<<").next().unwrap_or_default();
        let words = shlex::split(line)
            .ok_or_else(|| format!("{}: cannot split `{line}` into words", block.at))?;
        let mut words = words.into_iter().peekable();
        // Only a word where a command starts is a command (`logger -t pincer` is not).
        let mut command_position = true;
        while let Some(word) = words.next() {
            if (command_position && is_pincer(&word)) || substitutes_pincer(&word) {
                let mut argv = vec!["pincer".to_owned()];
                while let Some(next) =
                    words.next_if(|next| !ends_a_command(next) && !substitutes_pincer(next))
                {
                    argv.push(next);
                }
                if words.peek().is_some_and(|next| substitutes_pincer(next)) {
                    argv.push("SUBSTITUTED".to_owned()); // what the inner pincer prints
                }
                commands.push(argv);
                command_position = false;
                continue;
            }
            if is_redirection(&word) {
                words.next(); // its file
                continue;
            }
            // Environment assignments (`PATH=…`) keep the command position; a separator starts one.
            command_position = ends_a_command(&word) || (command_position && word.contains('='));
        }
    }
    Ok(commands)
}

#[test]
fn every_pincer_command_of_an_sh_example_parses() {
    let mut failures = Vec::new();
    let mut parsed = 0;
    for document in documents() {
        for block in blocks(&document)
            .into_iter()
            .filter(|block| block.info == "sh")
        {
            let commands = match pincer_commands(&block) {
                Ok(commands) => commands,
                Err(error) => {
                    failures.push(error);
                    continue;
                }
            };
            for argv in commands {
                parsed += 1;
                if let Err(error) = Cli::try_parse_args_with(&argv, &|_| None) {
                    use clap::error::ErrorKind;
                    if !matches!(
                        error.kind(),
                        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
                    ) {
                        failures.push(format!("{}: {argv:?}\n{error}", block.at));
                    }
                }
            }
        }
    }
    eprintln!("docs examples: {parsed} pincer commands in sh blocks parsed");
    assert!(parsed > 0, "no sh example found");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The "Examples:" of every command's help, which are also the EXTRA section of its man page.
#[test]
fn every_example_of_the_help_and_man_pages_parses() {
    fn examples(command: &clap::Command, blocks: &mut Vec<Block>) {
        for text in [command.get_after_help(), command.get_after_long_help()]
            .into_iter()
            .flatten()
        {
            blocks.push(Block {
                at: format!("the help of `{}`", command.get_name()),
                info: "sh".to_owned(),
                lines: text.to_string().lines().map(str::to_owned).collect(),
            });
        }
        for subcommand in command.get_subcommands() {
            examples(subcommand, blocks);
        }
    }
    let mut blocks = Vec::new();
    examples(&<Cli as clap::CommandFactory>::command(), &mut blocks);
    let mut parsed = 0;
    let mut failures = Vec::new();
    for block in &blocks {
        match pincer_commands(block) {
            Ok(commands) => {
                for argv in commands {
                    parsed += 1;
                    if let Err(error) = Cli::try_parse_args_with(&argv, &|_| None) {
                        failures.push(format!("{}: {argv:?}\n{error}", block.at));
                    }
                }
            }
            Err(error) => failures.push(error),
        }
    }
    assert!(parsed > 20, "only {parsed} examples found in the help");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn line_patterns_match_as_documented() {
    assert!(line_matches("ID  [..]  1", "ID  abc  1"));
    assert!(line_matches("[..]", "anything"));
    assert!(!line_matches("a[..]c", "abd"));
    assert!(line_matches("exact", "exact"));
    assert!(!line_matches("exact", "exactly"));
    let expected = vec!["a".to_owned(), "...".to_owned(), "z".to_owned()];
    assert!(matches(&expected, &["a", "b", "c", "z"]));
    assert!(matches(&expected, &["a", "z"]));
    assert!(!matches(&expected, &["a", "b"]));
}

#[test]
fn the_completion_install_lines_of_the_help_work_on_a_fresh_home() {
    let help = <Cli as clap::CommandFactory>::command()
        .find_subcommand("completions")
        .and_then(|command| command.get_after_help().map(ToString::to_string))
        .unwrap();
    let script: Vec<&str> = help
        .lines()
        .map(str::trim)
        .skip_while(|line| !line.starts_with("Installing the static scripts"))
        .filter(|line| line.starts_with("mkdir") || line.starts_with("pincer"))
        .collect();
    assert!(script.len() >= 4, "{help}");
    let home = Home::new();
    let fresh = home.root.path().join("fresh-home");
    std::fs::create_dir(&fresh).unwrap();
    let script = format!(
        "pincer() {{ \"$0\" \"$@\"; }}\nset -e\n{}",
        script.join("\n")
    );
    let output = home
        .pincer()
        .env("HOME", &fresh)
        .inside("sh", ["-c", script.as_str()])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    for installed in [
        ".local/share/bash-completion/completions/pincer",
        ".zfunc/_pincer",
        ".config/fish/completions/pincer.fish",
    ] {
        let script = std::fs::read_to_string(fresh.join(installed)).unwrap();
        assert!(script.contains("sessions"), "{installed}");
    }
}

/// What `COMPLETE=bash pincer -- pincer WORDS…` offers for the last word, one candidate a line.
fn completions(home: &Home, words: &[&str]) -> Vec<String> {
    let output = home
        .pincer()
        .env("COMPLETE", "bash")
        .env("_CLAP_COMPLETE_INDEX", words.len().to_string())
        .env("_CLAP_COMPLETE_COMP_TYPE", "9")
        .env("_CLAP_COMPLETE_SPACE", "true")
        .args(["--", "pincer"])
        .args(words)
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    stdout(&output)
        .split(['\n', '\u{b}'])
        .filter(|candidate| !candidate.is_empty())
        .map(str::to_owned)
        .collect()
}

#[test]
fn dynamic_completion_offers_session_names_ids_and_model_names() {
    let home = Home::new();
    assert!(
        completions(&home, &["resume", ""])
            .iter()
            .all(|candidate| candidate.starts_with('-')),
        "a home without sessions offers none"
    );
    assert!(!home.sessions_dir().exists(), "completion created the home");

    let cassette = repository().join("examples/quickstart.cassette.jsonl");
    let output = home
        .pincer()
        .args(["run", "--replay"])
        .arg(&cassette)
        .args(["--replay-mode", "lenient", "-n", "nightly-review", "hi"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let id = home.session_lines()[0]["id"].as_str().unwrap().to_owned();

    let offered = completions(&home, &["resume", ""]);
    assert!(
        offered.contains(&"nightly-review".to_owned()),
        "{offered:?}"
    );
    assert!(
        offered
            .iter()
            .any(|candidate| id.starts_with(candidate.as_str())),
        "{offered:?}"
    );
    let offered = completions(&home, &["sessions", "show", "night"]);
    assert_eq!(offered, ["nightly-review"]);

    let offered = completions(&home, &["run", "-m", "sonn"]);
    assert!(offered.contains(&"sonnet".to_owned()), "{offered:?}");
    let offered = completions(&home, &["run", "--model", "anthropic/claude-sonnet"]);
    assert!(!offered.is_empty(), "{offered:?}");

    let offered = completions(&home, &[""]);
    assert!(offered.contains(&"sessions".to_owned()), "{offered:?}");
    assert!(!offered.contains(&"claude-sdk".to_owned()), "{offered:?}");
}

/// The GitHub anchor of a Markdown heading: lower case, spaces to hyphens, punctuation dropped.
fn anchor_of(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The headings of a Markdown document, outside fenced blocks, as written.
fn headings(document: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(document).unwrap();
    let mut fenced = false;
    let mut found = Vec::new();
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            found.push(line.trim_start_matches('#').trim().to_owned());
        }
    }
    found
}

#[test]
fn every_document_section_a_message_points_at_exists() {
    // Issue #47 item 10: hints sent users to the README's "Hooks" and "MCP servers" sections
    // after the README was split into docs/guide/. Every `the README's "X" section`,
    // `README.md#anchor` and `docs/…md#anchor` the source names must exist.
    let root = repository();
    let named = regex::Regex::new(
        r#"README's \\"([^"\\]+)\\" section|README\.md#([a-z0-9_-]+)|(docs/(?:guide|reference)/[a-z0-9_-]+\.md)(?:#([a-z0-9_-]+))?"#,
    )
    .unwrap();
    let mut sources = vec![root.join("src")];
    let mut checked = 0;
    let mut broken = Vec::new();
    while let Some(directory) = sources.pop() {
        for entry in std::fs::read_dir(&directory).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                sources.push(path);
                continue;
            }
            if path.extension().is_none_or(|extension| extension != "rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            for found in named.captures_iter(&text) {
                checked += 1;
                let at = path.strip_prefix(&root).unwrap().display().to_string();
                let readme = root.join("README.md");
                let (document, anchor) = if let Some(section) = found.get(1) {
                    (readme, Some(anchor_of(section.as_str())))
                } else if let Some(anchor) = found.get(2) {
                    (readme, Some(anchor.as_str().to_owned()))
                } else {
                    (
                        root.join(&found[3]),
                        found.get(4).map(|anchor| anchor.as_str().to_owned()),
                    )
                };
                if !document.is_file() {
                    broken.push(format!("{at}: {} does not exist", &found[0]));
                    continue;
                }
                if let Some(anchor) = anchor
                    && !headings(&document)
                        .iter()
                        .any(|heading| anchor_of(heading) == anchor)
                {
                    broken.push(format!("{at}: {} names no heading", &found[0]));
                }
            }
        }
    }
    assert!(checked > 0, "the pattern found no reference at all");
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

/// The lines of the README's `sh` block that holds `marker`, as written.
fn readme_block_with(marker: &str) -> Vec<String> {
    let readme = repository().join("README.md");
    blocks(&readme)
        .into_iter()
        .find(|block| block.info == "sh" && block.lines.iter().any(|line| line.contains(marker)))
        .unwrap_or_else(|| panic!("no sh block of README.md holds {marker:?}"))
        .lines
}

/// `lines` as a `sh -c` script whose `pincer` is the binary under test (`$0`).
fn script(lines: &[String]) -> String {
    format!("pincer() {{ \"$0\" \"$@\"; }}\n{}\n", lines.join("\n"))
}

#[test]
fn the_readme_commit_message_recipe_commits_the_answer() {
    // Issue #47 item 12: `… > .git/COMMIT_EDITMSG` was overwritten by git's template.
    use crate::common::mock::{MockServer, Reply};
    let lines = readme_block_with("| git commit -F -");
    let home = Home::new();
    let git = |args: &[&str]| {
        let status = std::process::Command::new("git")
            .args(args)
            .current_dir(&home.workspace)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .unwrap();
        assert!(status.status.success(), "{status:?}");
        String::from_utf8(status.stdout).unwrap()
    };
    git(&["init", "-q"]);
    std::fs::write(home.workspace.join("parser.rs"), "fn parse() {}\n").unwrap();
    git(&["add", "parser.rs"]);
    let protocol = crate::common::protocols::anthropic();
    let server = MockServer::start(vec![Reply::sse(&(protocol.text)(&[
        "Add the parser\n\nIt parses nothing yet.",
    ]))]);
    let output = home
        .pincer()
        .provider(&protocol, &server)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "A")
        .env("GIT_AUTHOR_EMAIL", "a@example.com")
        .env("GIT_COMMITTER_NAME", "A")
        .env("GIT_COMMITTER_EMAIL", "a@example.com")
        .inside("sh", ["-c", script(&lines).as_str()])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(
        git(&["log", "-1", "--format=%B"]).trim_end(),
        "Add the parser\n\nIt parses nothing yet."
    );
    let request = &server.requests()[0];
    assert!(
        request.json().to_string().contains("fn parse()"),
        "the diff reached the model"
    );
}

#[test]
fn the_readme_script_for_the_answer_only_stops_when_pincer_fails() {
    // Issue #47 item 13: `answer=$(pincer run --json … | jq -r .result) || exit` tested jq's
    // status, so with no key the script went on with an empty answer.
    use crate::common::mock::{MockServer, Reply};
    let mut lines = readme_block_with("out=$(pincer run --json");
    lines.push("printf 'answer: %s\\n' \"$answer\"".to_owned());
    let home = Home::new();
    std::fs::write(home.workspace.join("CHANGELOG.md"), "- fixed the parser\n").unwrap();

    let output = home
        .pincer()
        .inside("sh", ["-c", script(&lines).as_str()])
        .output();
    assert_eq!(
        code(&output),
        3,
        "no key: pincer's exit code\n{}",
        stderr(&output)
    );
    assert!(!stdout(&output).contains("answer:"), "{}", stdout(&output));

    let protocol = crate::common::protocols::anthropic();
    let server = MockServer::start(vec![Reply::sse(&(protocol.text)(&["Yes, it is."]))]);
    let output = home
        .pincer()
        .provider(&protocol, &server)
        .inside("sh", ["-c", script(&lines).as_str()])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(stdout(&output), "answer: Yes, it is.\n");
}

#[test]
fn the_readme_names_the_rust_version_cargo_toml_requires() {
    // Issue #47 item 14: the README said 1.89 while Cargo.toml needs 1.90.
    let manifest = std::fs::read_to_string(repository().join("Cargo.toml")).unwrap();
    let required = manifest
        .lines()
        .find_map(|line| line.strip_prefix("rust-version = "))
        .map(|value| value.trim_matches('"'))
        .unwrap();
    let readme = std::fs::read_to_string(repository().join("README.md")).unwrap();
    assert!(
        readme.contains(&format!("A Rust toolchain ({required} or newer)")),
        "README.md must name Rust {required}"
    );
}

/// The comment a shell example of README.md or docs/ carries when it is not run, with the
/// reason after it (`# not run in CI: needs gh and a GitHub repository`). Every other shell
/// example runs.
const NOT_RUN: &str = "# not run in CI: ";

/// The one answer every mock provider gives: valid JSON, so that a `--json-schema` example
/// whose schema asks for `{"ok": boolean}` gets a structured answer too.
const ANSWER: &str = "{\"ok\": true}";

/// Where the shell examples of one document run, one after the other as a reader's commands
/// would: a git workspace with the files the examples name, `pincer` (the binary under test)
/// and fake `claude` and `codex` on `PATH`, every provider pointed at a mock that answers
/// [`ANSWER`] to any request, and a session `nightly` the examples continue.
struct Sandbox {
    home: Home,
    servers: Vec<(
        crate::common::protocols::Protocol,
        crate::common::mock::MockServer,
    )>,
    ollama: crate::common::mock::MockServer,
    bin: PathBuf,
    record: PathBuf,
}

impl Sandbox {
    fn new() -> Sandbox {
        use crate::common::mock::{MockServer, Reply};
        use crate::common::protocols;
        let home = Home::new();
        let start = |protocol: &protocols::Protocol| {
            MockServer::start_cycle(vec![Reply::sse(&(protocol.text)(&[ANSWER]))], "127.0.0.1:0")
        };
        let servers = [
            protocols::anthropic(),
            protocols::openai(),
            protocols::gemini(),
        ]
        .into_iter()
        .map(|protocol| {
            let server = start(&protocol);
            (protocol, server)
        })
        .collect();
        let ollama = start(&protocols::openai_chat());
        let bin = home.root.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        std::os::unix::fs::symlink(assert_cmd::cargo::cargo_bin("pincer"), bin.join("pincer"))
            .unwrap();
        // Each fake replays a text turn of its own CLI's format.
        for (name, fixture) in [
            ("claude", "claude-cli/text-turn.jsonl"),
            ("codex", "codex-cli/second-turn.jsonl"),
        ] {
            let fake = bin.join(name);
            std::fs::write(
                &fake,
                format!(
                    "#!/bin/sh\nFAKE_SCENARIO='{}' exec '{}' \"$@\"\n",
                    repository().join("tests/fixtures").join(fixture).display(),
                    repository().join("tests/fakes").join(name).display()
                ),
            )
            .unwrap();
            let mut permissions = std::fs::metadata(&fake).unwrap().permissions();
            std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
            std::fs::set_permissions(&fake, permissions).unwrap();
        }
        let record = home.root.path().join("fake-record");
        let sandbox = Sandbox {
            home,
            servers,
            ollama,
            bin,
            record,
        };
        sandbox.workspace();
        let output = sandbox
            .command()
            .args(["resume", "--create", "nightly", "first night"])
            .output();
        assert_eq!(code(&output), 0, "{}", stderr(&output));
        sandbox
    }

    /// The files the examples name, in a git repository with a staged change; the secrets
    /// files of `~/.secrets`.
    fn workspace(&self) {
        let workspace = &self.home.workspace;
        let files = [
            ("README.md", "# demo\n"),
            ("CHANGELOG.md", "- fixed the parser\n"),
            ("TODO.md", "- write the docs\n"),
            ("src/main.rs", "fn main() {}\n"),
            ("src/parser.rs", "pub fn parse() {}\n"),
            ("tests/parser.rs", "#[test]\nfn parses() {}\n"),
            (
                "review.schema.json",
                r#"{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}"#,
            ),
        ];
        for (path, text) in files {
            let path = workspace.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        std::fs::create_dir(self.home.root.path().join("shared-config")).unwrap();
        let secrets = self.home.root.path().join(".secrets");
        std::fs::create_dir(&secrets).unwrap();
        std::fs::write(secrets.join("anthropic-work"), "sk-ant-docs-work\n").unwrap();
        std::fs::write(secrets.join("openai-ci"), "sk-docs-openai-ci\n").unwrap();
        let script = "git init -q && git add -A && git commit -qm init \
                      && echo 'pub fn parse() -> u8 { 1 }' > src/parser.rs && git add src/parser.rs";
        let output = self.command().inside("sh", ["-c", script]).output();
        assert_eq!(code(&output), 0, "{}", stderr(&output));
    }

    /// A shell in the sandbox (`inside`), or pincer itself.
    fn command(&self) -> crate::common::Pincer {
        let path = format!(
            "{}:{}",
            self.bin.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let mut command = self
            .home
            .pincer()
            .env("PATH", path)
            .env("OLLAMA_HOST", self.ollama.url())
            .env("FAKE_RECORD", &self.record)
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .env("SPARE_ANTHROPIC_KEY", "sk-ant-docs-spare")
            // What the help's examples pipe to `auth add` and store by reference.
            .env("KEY", "sk-ant-docs-key")
            .env("PERSONAL_ANTHROPIC_KEY", "sk-ant-docs-personal")
            .env("GEMINI_KEY_2", "docs-gemini-key-2")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_AUTHOR_NAME", "A")
            .env("GIT_AUTHOR_EMAIL", "a@example.com")
            .env("GIT_COMMITTER_NAME", "A")
            .env("GIT_COMMITTER_EMAIL", "a@example.com");
        for (protocol, server) in &self.servers {
            command = command.provider(protocol, server);
        }
        command
    }
}

impl Sandbox {
    /// What the help's examples name beyond [`Sandbox::new`]: sessions by the ids and names
    /// they use, the files they read, the variables `auth add --from-env` stores, a `pass`
    /// that prints a key, an npm project whose tests print a failure; the auth profiles `work`
    /// and `spare` when `profiles` (not for the examples that add them).
    fn for_help_examples(profiles: bool) -> Sandbox {
        let sandbox = Sandbox::new();
        for (flag, value) in [
            ("--session-id", "01a2b3c4-0000-7000-8000-000000000000"),
            ("--session-id", "01a2b3d5-0000-7000-8000-000000000000"),
            ("--session-id", "0199a000-0000-7000-8000-000000000001"),
            ("--name", "scratch"),
            ("--name", "tmp-1"),
            ("--name", "ci-1"),
        ] {
            let output = sandbox
                .command()
                .args(["run", flag, value, "seed"])
                .output();
            assert_eq!(code(&output), 0, "{}", stderr(&output));
        }
        // The profiles `auth order`, `reset`, `test` and `remove` name.
        let scripts = [
            "pincer auth add anthropic --name work < ~/.secrets/anthropic-work",
            "pincer auth add anthropic --name spare --from-env SPARE_ANTHROPIC_KEY",
        ];
        for script in scripts.into_iter().filter(|_| profiles) {
            let output = sandbox.command().inside("sh", ["-c", script]).output();
            assert_eq!(code(&output), 0, "{script}: {}", stderr(&output));
        }
        let workspace = &sandbox.home.workspace;
        for (path, text) in [
            ("next-prompt.txt", "and now the docs\n"),
            ("token.txt", "sk-ant-oat01-docs-token\n"),
            (
                "schema.json",
                r#"{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}"#,
            ),
            (".mcp.json", r#"{"mcpServers":{}}"#),
            (
                "package.json",
                r#"{"name":"demo","version":"1.0.0","scripts":{"test":"echo '1 test failed: parses'"}}"#,
            ),
        ] {
            std::fs::write(workspace.join(path), text).unwrap();
        }
        let pass = sandbox.bin.join("pass");
        std::fs::write(&pass, "#!/bin/sh\necho sk-ant-docs-from-pass\n").unwrap();
        let mut permissions = std::fs::metadata(&pass).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
        std::fs::set_permissions(&pass, permissions).unwrap();
        sandbox
    }
}

/// Why a shell example is not run: the text after [`NOT_RUN`] on one of its lines.
fn not_run_reason(block: &Block) -> Option<&str> {
    block
        .lines
        .iter()
        .find_map(|line| line.trim_start().strip_prefix(NOT_RUN))
}

#[test]
fn every_shell_example_of_the_docs_runs_against_the_mock_or_says_why_not() {
    // Issue #47 item 14: every example runs in CI as written, or carries the visible reason
    // it cannot (NOT_RUN); none is skipped in silence.
    let mut failures = Vec::new();
    let (mut ran, mut marked, mut model_calls) = (0, 0, 0);
    for document in documents() {
        let blocks: Vec<Block> = blocks(&document)
            .into_iter()
            .filter(|block| matches!(block.info.as_str(), "sh" | "bash" | "shell"))
            .collect();
        if blocks.is_empty() {
            continue;
        }
        let sandbox = Sandbox::new();
        for block in blocks {
            if let Some(reason) = not_run_reason(&block) {
                marked += 1;
                if reason.trim().is_empty() {
                    failures.push(format!("{}: `{NOT_RUN}` without a reason", block.at));
                }
                continue;
            }
            ran += 1;
            let script = format!("set -eo pipefail\n{}\n", block.lines.join("\n"));
            let output = sandbox
                .command()
                .inside("timeout", ["120", "bash", "-c", script.as_str()])
                .output();
            if code(&output) != 0 {
                failures.push(format!(
                    "{}: exited {} (mark it `{NOT_RUN}REASON` if it cannot run offline)\n{}\n--- stdout\n{}--- stderr\n{}",
                    block.at,
                    code(&output),
                    block.lines.join("\n"),
                    stdout(&output),
                    stderr(&output)
                ));
            }
        }
        model_calls += sandbox
            .servers
            .iter()
            .map(|(_, server)| server.requests().len())
            .sum::<usize>();
    }
    // Visible, as any skip is.
    eprintln!(
        "docs examples: {ran} shell blocks run ({model_calls} model calls), {marked} marked `{NOT_RUN}…`"
    );
    assert!(ran > 0, "no shell example ran");
    assert!(
        model_calls > ran,
        "the examples did not reach the mock providers"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Issue #47 item 14: the "Examples:" of every command's help, which are also the EXAMPLES of
/// its man page, run as written, each section in a sandbox of its own, one line after the
/// other; a line that cannot run says `not run in CI: REASON` in its comment, and is counted.
#[test]
fn every_example_of_the_help_and_man_pages_runs_against_the_mock_or_says_why_not() {
    fn sections(command: &clap::Command, path: &str, found: &mut Vec<(String, Vec<String>)>) {
        let path = format!("{path} {}", command.get_name()).trim().to_owned();
        if let Some(help) = command.get_after_help() {
            let lines = help
                .to_string()
                .lines()
                .filter_map(|line| line.strip_prefix("  "))
                .map(str::to_owned)
                .collect();
            found.push((path.clone(), lines));
        }
        for subcommand in command.get_subcommands() {
            sections(subcommand, &path, found);
        }
    }
    let mut found = Vec::new();
    sections(&<Cli as clap::CommandFactory>::command(), "", &mut found);
    let (mut ran, mut marked) = (0, 0);
    let mut failures = Vec::new();
    for (command, lines) in found {
        if lines.is_empty() {
            continue;
        }
        let adds_profiles = lines.iter().any(|line| line.contains("auth add"));
        let sandbox = Sandbox::for_help_examples(!adds_profiles);
        for line in lines {
            if line.contains(NOT_RUN.trim_start_matches("# ")) {
                marked += 1;
                continue;
            }
            ran += 1;
            let script = format!("set -eo pipefail\n{line}\n");
            let output = sandbox
                .command()
                .inside("timeout", ["120", "bash", "-c", script.as_str()])
                .output();
            if code(&output) != 0 {
                failures.push(format!(
                    "the help of `{command}`: `{line}` exited {}\n--- stdout\n{}--- stderr\n{}",
                    code(&output),
                    stdout(&output),
                    stderr(&output)
                ));
            }
        }
    }
    eprintln!("help and man page examples: {ran} run, {marked} marked `not run in CI: …`");
    assert!(ran > 20, "only {ran} examples of the help ran");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
