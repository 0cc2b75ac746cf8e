//! Man pages and shell completions, generated from the clap definition in `cli.rs`, and the
//! reference pages under `docs/reference/`, generated from the tables below and from the JSON
//! Schemas schemars derives from the serde types of `config.toml` and of the JSON output
//! (`schemas.rs`, committed under `docs/reference/schemas/`; the pages are rendered from them by
//! `configuration.rs` and `json_output.rs`).
//!
//! The output is committed under `man/`, `completions/` and `docs/reference/` and must be a pure
//! function of the code (no dates, no environment), so a test can regenerate it and compare byte
//! for byte. `cargo run -q --example generate-docs` calls [`write_all`]; the installed binary
//! never does, so the linker leaves the schemas, the man page renderer and the reference tables
//! out of it (they are compiled with the library, not linked into `pincer`).

mod configuration;
mod json_output;
pub mod retries;
pub(crate) mod schemas;

/// The anchor a Markdown renderer gives a heading: lower case, punctuation but `-` and `_`
/// dropped, spaces as `-`.
fn anchor(heading: &str) -> String {
    heading
        .chars()
        .filter_map(|character| match character {
            ' ' => Some('-'),
            '-' | '_' => Some(character),
            _ if character.is_alphanumeric() => Some(character.to_ascii_lowercase()),
            _ => None,
        })
        .collect()
}

/// Text made safe for a Markdown table cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

/// `text` with its first letter upper case (a doc comment's words after `name:`, as a sentence).
fn capitalized(text: &str) -> String {
    let mut characters = text.chars();
    match characters.next() {
        Some(first) => first.to_uppercase().chain(characters).collect(),
        None => String::new(),
    }
}

use std::io;
use std::path::{Path, PathBuf};

use clap::CommandFactory;
use clap_complete::engine::{ArgValueCandidates, CompletionCandidate};
use clap_complete::{Generator, Shell};

use crate::cli::Cli;
use crate::error::Exit;

/// Name of the binary, as completions and man pages spell it.
const BINARY_NAME: &str = "pincer";

/// Directory of the man pages, relative to the output root: section 1 under `man/`, the layout
/// `MANPATH` and `man -M` search, so `MANPATH=$PWD/man: man pincer` works from a clone.
const MAN_DIRECTORY: &str = "man/man1";

/// Directories whose files are all generated; a file there that is no longer rendered is removed.
/// `man/` itself holds no page, so the flat layout of older builds is cleaned up too.
const GENERATED_DIRECTORIES: [&str; 4] = [
    "man",
    MAN_DIRECTORY,
    COMPLETIONS_DIRECTORY,
    schemas::DIRECTORY,
];

/// The generated reference of environment variables, files and exit codes, in Markdown.
const REFERENCE_PATH: &str = "docs/reference/environment.md";

/// Environment variables pincer reads, with what they do. A test checks that each name still
/// occurs in `src/`, so a variable the code stopped reading does not stay documented.
pub const ENVIRONMENT: &[(&str, &str)] = &[
    (
        "PINCER_HOME",
        "One directory for everything: config.toml, auth-profiles.json, sessions/, workspace/, usage-ledger.jsonl (same as --home). Empty or unset: the XDG directories.",
    ),
    (
        "XDG_CONFIG_HOME",
        "Where config.toml and auth-profiles.json live without PINCER_HOME (default ~/.config/pincer/).",
    ),
    (
        "XDG_DATA_HOME",
        "Where sessions/ lives without PINCER_HOME (default ~/.local/share/pincer/).",
    ),
    (
        "ANTHROPIC_API_KEY",
        "Anthropic API key. Sent in a header only, never in URLs, argv or logs.",
    ),
    (
        "OPENAI_API_KEY",
        "OpenAI API key (also OpenAI-compatible servers configured to use it).",
    ),
    (
        "CODEX_API_KEY",
        "Key the codex-cli backend and the Codex SDK pass to pincer exec.",
    ),
    (
        "GEMINI_API_KEY",
        "Google Gemini API key; GOOGLE_API_KEY is read when it is unset.",
    ),
    (
        "GOOGLE_API_KEY",
        "Google Gemini API key, when GEMINI_API_KEY is unset.",
    ),
    (
        "ANTHROPIC_BASE_URL",
        "Another server for the Anthropic provider.",
    ),
    (
        "OPENAI_BASE_URL",
        "Another server for the OpenAI providers.",
    ),
    (
        "GEMINI_BASE_URL",
        "Another server for Gemini; /v1beta is appended unless the URL ends in a version.",
    ),
    (
        "OLLAMA_HOST",
        "Where the ollama provider connects (default http://127.0.0.1:11434).",
    ),
    (
        "PINCER_RECORD",
        "Record the run's provider exchanges to this cassette file (as --record).",
    ),
    (
        "PINCER_REPLAY",
        "Replay the provider's side from this cassette file (as --replay): no key, no network.",
    ),
    (
        "PINCER_ALLOW_LOCAL_LOCKS",
        "1: write sessions even where file locks only hold on one machine (sshfs...), as [sessions] allow_local_locks.",
    ),
    (
        "SSL_CERT_FILE",
        "CA bundle file to trust instead of the system's.",
    ),
    (
        "SSL_CERT_DIR",
        "A directory of CA certificates to trust as well.",
    ),
    (
        "NO_COLOR",
        "Set: no colour on stderr, whatever --color says when it is auto.",
    ),
    (
        "TMPDIR",
        "Where temporary files go; the exec sandbox gives commands their own.",
    ),
    (
        "CLAUDE_CONFIG_DIR",
        "Where pincer status looks for the claude CLI's login (default ~/.claude).",
    ),
    (
        "CODEX_HOME",
        "Where pincer status looks for the codex CLI's login (default ~/.codex).",
    ),
    (
        "TRACEPARENT",
        "W3C trace context: the run's spans join this trace; every child process gets the run's own.",
    ),
    ("OTEL_SDK_DISABLED", "true: no telemetry at all."),
    (
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "OTLP collector for traces and metrics; unset: no export.",
    ),
    (
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
        "OTLP endpoint for traces only.",
    ),
    (
        "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
        "OTLP endpoint for metrics only.",
    ),
    (
        "OTEL_EXPORTER_OTLP_PROTOCOL",
        "http/protobuf (default), http/json or grpc.",
    ),
    (
        "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
        "The protocol for traces only.",
    ),
    (
        "OTEL_EXPORTER_OTLP_HEADERS",
        "Headers sent to the collector (key=value,...).",
    ),
    (
        "OTEL_EXPORTER_OTLP_TIMEOUT",
        "Export timeout in milliseconds.",
    ),
    (
        "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT",
        "Export timeout for traces only.",
    ),
    (
        "OTEL_SERVICE_NAME",
        "service.name of the exported telemetry (default pincer).",
    ),
    (
        "OTEL_RESOURCE_ATTRIBUTES",
        "More resource attributes (key=value,...).",
    ),
    (
        "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT",
        "true: prompts and answers go into spans (off by default).",
    ),
];

/// Files and directories pincer uses.
pub const FILES: &[(&str, &str)] = &[
    (
        "$PINCER_HOME/",
        "Everything below, in one directory, when PINCER_HOME or --home is set.",
    ),
    (
        "~/.config/pincer/config.toml",
        "Configuration; unknown keys are errors that name them. -c KEY=VALUE overrides a key for one run.",
    ),
    (
        "~/.config/pincer/auth-profiles.json",
        "Credential profiles written by pincer auth add (mode 0600).",
    ),
    (
        "~/.local/share/pincer/sessions/",
        "Session files, <ISO timestamp>_<uuid>.jsonl, pi's JSONL format (version 3).",
    ),
    (
        "~/.local/share/pincer/sessions/index.sqlite3",
        "A cache of the sessions' summaries; delete it at any time, it is rebuilt from the files.",
    ),
    (
        "~/.local/share/pincer/sessions/.locks/",
        "Lock files: one per session a run has locked (sessions/names.lock guards new names).",
    ),
    (
        "usage-ledger.jsonl",
        "One line per run, what it spent; read by pincer usage and [budget]. In the data directory.",
    ),
    (
        "usage-ledger.sums.json",
        "What the ledger's runs cost per day, so that a [budget] check reads only the newest lines; delete it at any time.",
    ),
    (
        "AGENTS.md, HEARTBEAT.md",
        "Workspace files put into the system prompt; HEARTBEAT.md drives --heartbeat runs.",
    ),
];

/// Directory of the completion scripts, relative to the output root.
const COMPLETIONS_DIRECTORY: &str = "completions";

/// Shells that get a completion script.
const SHELLS: [Shell; 5] = [
    Shell::Bash,
    Shell::Zsh,
    Shell::Fish,
    Shell::Elvish,
    Shell::PowerShell,
];

/// Every generated file: its path relative to the output root and its contents.
///
/// One man page for `pincer` and one for each visible subcommand, nested ones included
/// (`man/man1/pincer-sessions-list.1`), then one completion script per shell in [`SHELLS`].
pub fn render_all() -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();

    let mut command = visible_only(&Cli::command(), HelpSubcommand::Without);
    command.build();
    render_man_pages(&command, &mut files);

    for shell in SHELLS {
        files.push((
            Path::new(COMPLETIONS_DIRECTORY).join(shell.file_name(BINARY_NAME)),
            render_completion(shell),
        ));
    }
    files.push((
        PathBuf::from(REFERENCE_PATH),
        render_reference().into_bytes(),
    ));
    files.push((PathBuf::from(retries::PATH), retries::render().into_bytes()));
    // Each schema is derived once: the pages are rendered from the very values written.
    let schemas = schemas::All::derive();
    files.push((
        PathBuf::from(configuration::PATH),
        configuration::render(&schemas.config).into_bytes(),
    ));
    files.push((
        PathBuf::from(json_output::PATH),
        json_output::render(&schemas.stream_json, &schemas.codex_events).into_bytes(),
    ));
    for (name, schema) in schemas.files() {
        files.push((
            Path::new(schemas::DIRECTORY).join(name),
            schemas::to_text(schema).into_bytes(),
        ));
    }
    files
}

/// The completion script for one shell. Hidden subcommands (the SDK entry
/// points) are left out: a user tabbing through `pincer` is never offered them.
pub fn render_completion(shell: Shell) -> Vec<u8> {
    let mut script = Vec::new();
    let mut command = visible_only(&Cli::command(), HelpSubcommand::With);
    clap_complete::generate(shell, &mut command, BINARY_NAME, &mut script);
    script
}

/// Answers a shell's completion request and exits when `COMPLETE` names a shell (`COMPLETE=bash
/// pincer` prints the script to source, which then calls pincer back for each completion);
/// returns at once otherwise. Unlike the static scripts, these complete session names and ids
/// and model names, read when the user presses tab.
pub fn complete_from_env() {
    clap_complete::CompleteEnv::with_factory(completing_command).complete();
}

/// The command that dynamic completion parses: the visible one, with candidates for the values
/// named `SESSION` and `REF` (a model).
pub fn completing_command() -> clap::Command {
    with_candidates(visible_only(&Cli::command(), HelpSubcommand::With))
}

fn with_candidates(command: clap::Command) -> clap::Command {
    command
        .mut_args(|arg| {
            let value_name = arg
                .get_value_names()
                .and_then(|names| names.first())
                .map(|name| name.as_str().to_owned());
            match value_name.as_deref() {
                Some("SESSION") => arg.add(ArgValueCandidates::new(session_candidates)),
                Some("REF") => arg.add(ArgValueCandidates::new(model_candidates)),
                _ => arg,
            }
        })
        .mut_subcommands(with_candidates)
}

/// How many of the newest sessions completion offers.
const SESSION_CANDIDATES: usize = 200;

/// Names, then short ids, of the newest sessions of the home `PINCER_HOME` names (else the XDG
/// one). A home without sessions offers nothing and is not created.
fn session_candidates() -> Vec<CompletionCandidate> {
    let home = std::env::var_os("PINCER_HOME")
        .filter(|home| !home.is_empty())
        .map(PathBuf::from);
    let Ok(paths) = crate::config::paths::Paths::resolve(home.as_deref()) else {
        return Vec::new();
    };
    if !paths.sessions_dir.is_dir() {
        return Vec::new();
    }
    let Ok((entries, short_ids, _)) =
        crate::session::index::newest(&paths.sessions_dir, None, Some(SESSION_CANDIDATES), |_| {
            true
        })
    else {
        return Vec::new();
    };
    let mut candidates: Vec<CompletionCandidate> = entries
        .iter()
        .filter_map(|entry| {
            let name = entry.summary.name.as_deref()?;
            Some(CompletionCandidate::new(name).help(Some(entry.summary.cwd.clone().into())))
        })
        .collect();
    candidates.extend(entries.iter().map(|entry| {
        let id = &entry.summary.id;
        let short = short_ids.get(id).map_or(id.as_str(), String::as_str);
        CompletionCandidate::new(short).help(Some(entry.summary.cwd.clone().into()))
    }));
    candidates
}

/// The catalog's aliases (`sonnet`), then every `provider/model` it knows.
fn model_candidates() -> Vec<CompletionCandidate> {
    let catalog = crate::config::catalog::catalog();
    let mut candidates: Vec<CompletionCandidate> = catalog
        .aliases()
        .map(|(alias, provider, model)| {
            CompletionCandidate::new(alias).help(Some(format!("{provider}/{model}").into()))
        })
        .collect();
    candidates.extend(
        catalog
            .models()
            .iter()
            .map(|model| CompletionCandidate::new(format!("{}/{}", model.provider, model.id))),
    );
    candidates
}

/// Whether [`visible_only`] keeps clap's generated `help` subcommand.
#[derive(Clone, Copy, PartialEq, Eq)]
enum HelpSubcommand {
    /// Completions offer `pincer help`.
    With,
    /// Man pages list no `pincer-help(1)`, a page that does not exist.
    Without,
}

/// A copy of `command` (not yet built) without its hidden subcommands, at every level.
///
/// clap has no way to remove a subcommand, and clap_complete lists hidden ones, so the command is
/// rebuilt from its parts: what completions and man pages read (name, texts, arguments, groups,
/// aliases, the settings that change the synopsis) is copied.
fn visible_only(command: &clap::Command, help: HelpSubcommand) -> clap::Command {
    let mut copy = clap::Command::new(command.get_name().to_owned())
        .args(command.get_arguments().cloned())
        .groups(command.get_groups().cloned())
        .aliases(
            command
                .get_all_aliases()
                .filter(|alias| {
                    !command
                        .get_visible_aliases()
                        .any(|visible| visible == *alias)
                })
                .map(str::to_owned),
        )
        .visible_aliases(command.get_visible_aliases().map(str::to_owned))
        .subcommand_required(command.is_subcommand_required_set())
        .args_conflicts_with_subcommands(command.is_args_conflicts_with_subcommands_set())
        .disable_help_flag(command.is_disable_help_flag_set())
        .disable_version_flag(command.is_disable_version_flag_set())
        .disable_help_subcommand(
            help == HelpSubcommand::Without || command.is_disable_help_subcommand_set(),
        )
        .hide(command.is_hide_set());
    if let Some(bin_name) = command.get_bin_name() {
        copy = copy.bin_name(bin_name.to_owned());
    }
    if let Some(version) = command.get_version() {
        copy = copy.version(version.to_owned());
    }
    if let Some(value_name) = command.get_subcommand_value_name() {
        copy = copy.subcommand_value_name(value_name.to_owned());
    }
    if let Some(about) = command.get_about() {
        copy = copy.about(about.clone());
    }
    if let Some(long_about) = command.get_long_about() {
        copy = copy.long_about(long_about.clone());
    }
    if let Some(after_help) = command.get_after_help() {
        copy = copy.after_help(after_help.clone());
    }
    if let Some(after_long_help) = command.get_after_long_help() {
        copy = copy.after_long_help(after_long_help.clone());
    }
    copy.subcommands(
        command
            .get_subcommands()
            .filter(|subcommand| !subcommand.is_hide_set())
            .map(|subcommand| visible_only(subcommand, help)),
    )
}

/// The meaning of each exit code, for the man page and the reference. The match is exhaustive, so
/// a new [`Exit`] cannot be added without its documentation.
fn exit_meaning(exit: Exit) -> &'static str {
    match exit {
        Exit::Success => "success",
        Exit::RunFailed => "the run failed (a model or tool error)",
        Exit::Usage => {
            "usage, input or config error: bad flags, unknown session, invalid config, corrupt session"
        }
        Exit::Auth => "no usable credentials, or all were rejected",
        Exit::Unavailable => "the provider stayed unavailable after retries",
        Exit::Guardrail => "--max-turns, --max-budget-usd or a [budget] limit stopped the run",
        Exit::ContextOverflow => "context overflow that compaction could not resolve",
        Exit::Busy => "the session is busy: another run holds its lock (EX_TEMPFAIL; retry later)",
        Exit::Timeout => "--timeout reached",
        Exit::Interrupted => "interrupted by SIGINT",
        Exit::Terminated => "terminated by SIGTERM",
    }
}

/// Every exit code, in numeric order.
pub const EXIT_CODES: [Exit; 11] = [
    Exit::Success,
    Exit::RunFailed,
    Exit::Usage,
    Exit::Auth,
    Exit::Unavailable,
    Exit::Guardrail,
    Exit::ContextOverflow,
    Exit::Busy,
    Exit::Timeout,
    Exit::Interrupted,
    Exit::Terminated,
];

/// Not one of [`Exit`]'s classes: the code Rust gives a panic, which the distribution build's
/// panic hook keeps (`exit_on_panic` in commands/mod.rs).
pub(crate) const PANIC_EXIT: (u8, &str) = (
    101,
    "pincer hit a bug (a panic, reported above it on stderr); the session stays loadable",
);

/// Every exit code with its meaning, in numeric order: the classes and a panic's.
fn exit_rows() -> Vec<(u8, &'static str)> {
    let mut rows: Vec<(u8, &str)> = EXIT_CODES
        .iter()
        .map(|&exit| (exit.code(), exit_meaning(exit)))
        .chain([PANIC_EXIT])
        .collect();
    rows.sort_unstable_by_key(|&(code, _)| code);
    rows
}

/// `docs/reference/environment.md`: environment variables, files and exit codes, from the tables
/// above.
fn render_reference() -> String {
    let mut text = String::from(
        "<!-- Generated by `cargo run -q --example generate-docs` from src/docs.rs; do not edit. -->\n\n\
         # Environment, files and exit codes\n\n## Environment\n\n| variable | effect |\n|---|---|\n",
    );
    for (name, effect) in ENVIRONMENT {
        text.push_str(&format!("| `{name}` | {effect} |\n"));
    }
    text.push_str("\n## Files\n\n| path | what |\n|---|---|\n");
    for (path, what) in FILES {
        text.push_str(&format!("| `{path}` | {what} |\n"));
    }
    text.push_str("\n## Exit codes\n\n| code | meaning |\n|---|---|\n");
    for (code, meaning) in exit_rows() {
        text.push_str(&format!("| {code} | {meaning} |\n"));
    }
    text.push_str(
        "\nA closed stdout pipe (`pincer sessions | head -1`) ends quietly. A stdout that cannot \
         be written (a full device) is exit 1 for a run that went well; its turn is saved.\n",
    );
    text
}

/// ENVIRONMENT, FILES and EXIT STATUS of `pincer(1)`, in roff.
fn man_reference_sections() -> String {
    let mut roff = String::from(".SH ENVIRONMENT\n");
    for (name, effect) in ENVIRONMENT {
        roff.push_str(&format!(".TP\n.B {name}\n{}\n", escape_roff(effect)));
    }
    roff.push_str(".SH FILES\n");
    for (path, what) in FILES {
        roff.push_str(&format!(
            ".TP\n.I {}\n{}\n",
            escape_roff(path),
            escape_roff(what)
        ));
    }
    roff.push_str(".SH \"EXIT STATUS\"\n");
    for (code, meaning) in exit_rows() {
        roff.push_str(&format!(".TP\n.B {code}\n{}\n", escape_roff(meaning)));
    }
    roff
}

/// Escapes what roff would read as a request or an escape: backslashes, hyphens (so they are not
/// broken as hyphenation points) and a leading dot or quote.
fn escape_roff(text: &str) -> String {
    let escaped = text.replace('\\', "\\e").replace('-', "\\-");
    if escaped.starts_with('.') || escaped.starts_with('\'') {
        format!("\\&{escaped}")
    } else {
        escaped
    }
}

/// A generated file (or one of its directories) that could not be written.
#[derive(Debug, thiserror::Error)]
#[error("'{}': {source}", .path.display())]
pub struct WriteError {
    /// The file or directory.
    pub path: PathBuf,
    /// Why; a [`crate::fs::NotRegular`] when a link or a special file is in the way.
    #[source]
    pub source: io::Error,
}

impl WriteError {
    /// Whether a link or a special file stood where a page or its directory goes.
    pub fn is_refusal(&self) -> bool {
        crate::fs::NotRegular::of(&self.source).is_some()
    }
}

/// Writes [`render_all`] under `root`, creating `man/` and `completions/` as needed and removing
/// files there that are no longer generated (a removed subcommand leaves no stale page behind).
///
/// `root` is often a repository, whose content is not pincer's to trust: `man/` and
/// `completions/` must be real directories (a link there would have pincer delete the other
/// directory's files as stale pages), and no page is written through a link at its name or
/// into anything but a regular file (SPEC §10).
pub fn write_all(root: &Path) -> Result<(), WriteError> {
    let files = render_all();
    for directory in GENERATED_DIRECTORIES {
        let directory = root.join(directory);
        let at = |source| WriteError {
            path: directory.clone(),
            source,
        };
        std::fs::create_dir_all(&directory).map_err(at)?;
        let kind = crate::fs::FileKind::of(
            std::fs::symlink_metadata(&directory)
                .map_err(at)?
                .file_type(),
        );
        if kind != crate::fs::FileKind::Directory {
            return Err(at(crate::fs::NotRegular(kind).into_io()));
        }
        for entry in std::fs::read_dir(&directory).map_err(at)? {
            let path = entry.map_err(at)?.path();
            let generated = files
                .iter()
                .any(|(relative, _)| root.join(relative) == path);
            if path.is_file() && !generated {
                // A link is removed itself, never what it points to.
                std::fs::remove_file(&path).map_err(|source| WriteError { path, source })?;
            }
        }
    }
    for (relative, contents) in &files {
        let path = root.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|source| WriteError {
                path: parent.to_owned(),
                source,
            })?;
        }
        crate::fs::open_for_user(&path, crate::fs::UserFile::Truncate)
            .and_then(|mut file| io::Write::write_all(&mut file, contents))
            .map_err(|source| WriteError { path, source })?;
    }
    Ok(())
}

/// Renders the page of `command` and recurses into its visible subcommands. `command` must be
/// built, so subcommands carry their full names (`pincer-sessions-list`).
fn render_man_pages(command: &clap::Command, files: &mut Vec<(PathBuf, Vec<u8>)>) {
    // Every page names the crate and its version (clap alone writes "resume " on subcommands).
    let man = clap_mangen::Man::new(command.clone())
        .source(concat!("pincer ", env!("CARGO_PKG_VERSION")))
        .manual("pincer manual");
    let mut page = Vec::new();
    #[expect(clippy::expect_used, reason = "writing to a Vec<u8> cannot fail")]
    man.render(&mut page)
        .expect("render a man page into memory");
    if command.get_name() == BINARY_NAME {
        // The top page carries the reference sections, before VERSION as man-pages(7) orders them.
        let sections = man_reference_sections().into_bytes();
        let at = memchr::memmem::find(&page, b".SH VERSION").unwrap_or(page.len());
        page.splice(at..at, sections);
    }
    files.push((Path::new(MAN_DIRECTORY).join(man.get_filename()), page));

    for subcommand in command.get_subcommands() {
        // clap's generated `help` subcommand has no page of its own; hidden ones stay hidden.
        if subcommand.is_hide_set() || subcommand.get_name() == "help" {
            continue;
        }
        render_man_pages(subcommand, files);
    }
}
