//! The command-line surface: clap's own consistency checks, parsing of the flags scripts rely on,
//! declared conflicts, and freshness of the committed `man/`, `completions/` and generated
//! pages of `docs/reference/`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use clap::error::ErrorKind;
use clap::{CommandFactory, Parser};
use pincer::cli::{
    AuthCommand, Cli, ColorChoice, Command, CredentialType, ExportFormat, OutputFormat,
    PermissionMode, PromptMode, SandboxMode, SessionsCommand, ThinkingLevel,
};

const REGENERATE_HINT: &str = "run `cargo run -q --example generate-docs` to regenerate man/, completions/ and docs/reference/";

fn parse(arguments: &[&str]) -> Cli {
    let mut argv = vec!["pincer"];
    argv.extend_from_slice(arguments);
    match Cli::try_parse_args(&argv) {
        Ok(cli) => cli,
        Err(error) => panic!("{argv:?} should parse, got:\n{error}"),
    }
}

fn parse_error(arguments: &[&str]) -> ErrorKind {
    let mut argv = vec!["pincer"];
    argv.extend_from_slice(arguments);
    match Cli::try_parse_args(&argv) {
        Ok(cli) => panic!("{argv:?} should be rejected, parsed as {cli:?}"),
        Err(error) => error.kind(),
    }
}

#[test]
fn clap_definition_passes_debug_assert() {
    Cli::command().debug_assert();
}

/// The first line where `committed` and `generated` part, both shown, for a stale file's message.
fn first_difference(committed: &[u8], generated: &[u8]) -> String {
    let committed = String::from_utf8_lossy(committed);
    let generated = String::from_utf8_lossy(generated);
    let mut committed_lines = committed.lines();
    let mut generated_lines = generated.lines();
    for number in 1.. {
        match (committed_lines.next(), generated_lines.next()) {
            (Some(old), Some(new)) if old == new => {}
            (None, None) => break,
            (old, new) => {
                return format!(
                    "line {number}:\n    - committed: {}\n    + generated: {}",
                    old.unwrap_or("(end of file)"),
                    new.unwrap_or("(end of file)")
                );
            }
        }
    }
    "the line endings differ".to_owned()
}

#[test]
fn committed_man_pages_completions_and_reference_docs_are_fresh() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let rendered = pincer::docs::render_all();
    let mut stale = Vec::new();
    for (relative, contents) in &rendered {
        match std::fs::read(root.join(relative)) {
            Ok(committed) if committed == *contents => {}
            Ok(committed) => stale.push(format!(
                "{} differs, first at {}",
                relative.display(),
                first_difference(&committed, contents)
            )),
            Err(error) => stale.push(format!("{} unreadable: {error}", relative.display())),
        }
    }
    let expected: BTreeSet<PathBuf> = rendered.iter().map(|(path, _)| path.clone()).collect();
    for directory in ["man", "man/man1", "completions", "docs/reference/schemas"] {
        let Ok(entries) = std::fs::read_dir(root.join(directory)) else {
            continue;
        };
        for entry in entries {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_dir() {
                continue;
            }
            let name = entry.file_name();
            let relative = Path::new(directory).join(&name);
            if !expected.contains(&relative) {
                stale.push(format!("{} is no longer generated", relative.display()));
            }
        }
    }
    assert!(
        stale.is_empty(),
        "{REGENERATE_HINT}:\n  {}",
        stale.join("\n  ")
    );
}

#[test]
fn render_all_is_deterministic_and_covers_every_visible_subcommand() {
    let first = pincer::docs::render_all();
    assert_eq!(first, pincer::docs::render_all());
    let paths: BTreeSet<String> = first
        .iter()
        .map(|(path, _)| path.to_string_lossy().replace('\\', "/"))
        .collect();
    for page in [
        "man/man1/pincer.1",
        "man/man1/pincer-run.1",
        "man/man1/pincer-resume.1",
        "man/man1/pincer-compact.1",
        "man/man1/pincer-sessions.1",
        "man/man1/pincer-sessions-list.1",
        "man/man1/pincer-sessions-prune.1",
        "man/man1/pincer-status.1",
        "man/man1/pincer-auth.1",
        "man/man1/pincer-auth-add.1",
        "man/man1/pincer-completions.1",
        "completions/pincer.bash",
        "completions/_pincer",
        "completions/pincer.fish",
        "completions/pincer.elv",
        "completions/_pincer.ps1",
    ] {
        assert!(paths.contains(page), "{page} missing from {paths:?}");
    }
    assert!(
        !paths
            .iter()
            .any(|path| path.contains("claude-sdk") || path.contains("help"))
    );
}

#[test]
fn completions_never_offer_hidden_subcommands() {
    for (path, contents) in pincer::docs::render_all() {
        if !path.starts_with("completions") {
            continue;
        }
        let script = String::from_utf8(contents).unwrap();
        assert!(
            !script.contains("claude-sdk"),
            "{} offers the SDK entry",
            path.display()
        );
        assert!(script.contains("sessions"), "{}", path.display());
    }
}

#[test]
fn man_pages_only_refer_to_pages_that_exist() {
    let rendered = pincer::docs::render_all();
    let pages: BTreeSet<String> = rendered
        .iter()
        .filter_map(|(path, _)| path.strip_prefix("man/man1").ok())
        .map(|name| name.to_string_lossy().trim_end_matches(".1").to_owned())
        .collect();
    for (path, contents) in &rendered {
        if !path.starts_with("man/man1") {
            continue;
        }
        let page = String::from_utf8_lossy(contents).replace("\\-", "-");
        for word in page.split(|c: char| c.is_whitespace()) {
            let Some(name) = word.strip_suffix("(1)") else {
                continue;
            };
            let name = name.trim_start_matches("\\fB").trim_end_matches("\\fR");
            if name.starts_with("pincer") {
                assert!(
                    pages.contains(name),
                    "{} refers to {name}(1), which is not generated",
                    path.display()
                );
            }
        }
    }
}

#[test]
fn the_main_man_page_has_environment_files_and_exit_status() {
    let rendered = pincer::docs::render_all();
    let (_, page) = rendered
        .iter()
        .find(|(path, _)| path == Path::new("man/man1/pincer.1"))
        .unwrap();
    let page = String::from_utf8_lossy(page);
    for section in [".SH ENVIRONMENT", ".SH FILES", ".SH \"EXIT STATUS\""] {
        assert!(page.contains(section), "{section} missing");
    }
    for exit in pincer::docs::EXIT_CODES {
        assert!(page.contains(&format!(".B {}\n", exit.code())), "{exit:?}");
    }
    assert!(page.contains("PINCER_HOME") && page.contains("ANTHROPIC_API_KEY"));
}

#[test]
fn every_documented_environment_variable_is_read_by_the_code() {
    // The binary's source is the root's src/ and the crates it is built from.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut source = String::new();
    let mut directories = vec![root.join("src")];
    for entry in std::fs::read_dir(root.join("crates")).unwrap() {
        directories.push(entry.unwrap().path().join("src"));
    }
    while let Some(directory) = directories.pop() {
        for entry in std::fs::read_dir(directory).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                directories.push(path);
            } else if path.extension().is_some_and(|extension| extension == "rs")
                && !path.ends_with("docs.rs")
            {
                source.push_str(&std::fs::read_to_string(path).unwrap());
            }
        }
    }
    for (name, _) in pincer::docs::ENVIRONMENT {
        if name.starts_with("XDG_") {
            continue; // read by the `directories` crate, not by name in src/
        }
        assert!(
            source.contains(&format!("\"{name}\"")),
            "{name} is documented but no longer read in src/ or crates/"
        );
    }
}

#[test]
fn generating_the_docs_is_no_subcommand_of_the_installed_binary() {
    let help = Cli::command().render_help().to_string();
    assert!(!help.contains("generate-docs"), "{help}");
    assert!(help.contains("completions"), "{help}");
    // `cargo run --example generate-docs` writes them; `pincer` does not know the word.
    let error = Cli::try_parse_args(["pincer", "generate-docs", "--out", "/tmp/docs"]).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::InvalidSubcommand);
}

#[test]
fn help_shows_pipe_cron_and_ci_examples() {
    let mut command = Cli::command();
    let root_help = command.render_help().to_string();
    for example in [
        "git diff | pincer run \"write the commit message\"",
        "pincer resume --create nightly --heartbeat",
        "pincer run --json --sandbox workspace-write \"fix the failing test\"",
    ] {
        assert!(
            root_help.contains(example),
            "missing {example:?} in:\n{root_help}"
        );
    }
    for name in ["run", "resume", "compact", "sessions", "status", "auth"] {
        let subcommand = command.find_subcommand_mut(name).unwrap();
        let help = subcommand.render_help().to_string();
        assert!(
            help.contains("Examples:"),
            "`pincer {name} --help` has no examples:\n{help}"
        );
    }
}

#[test]
fn global_flags_parse_before_and_after_the_subcommand() {
    let before = parse(&[
        "-C",
        "/work",
        "--home",
        "/h",
        "-c",
        "model=\"a/b\"",
        "--json",
        "-q",
        "--color",
        "never",
        "--wait",
        "2.5",
        "status",
    ]);
    let after = parse(&[
        "status",
        "-C",
        "/work",
        "--home",
        "/h",
        "-c",
        "model=\"a/b\"",
        "--json",
        "-q",
        "--color",
        "never",
        "--wait",
        "2.5",
    ]);
    for cli in [before, after] {
        assert_eq!(cli.global.cd, Some(PathBuf::from("/work")));
        assert_eq!(cli.global.home, Some(PathBuf::from("/h")));
        assert_eq!(cli.global.config, vec!["model=\"a/b\"".to_owned()]);
        assert!(cli.global.json && cli.global.quiet);
        assert_eq!(cli.global.color, ColorChoice::Never);
        assert_eq!(cli.global.wait, Some(2.5));
        assert_eq!(cli.global.effective_output_format(), OutputFormat::Json);
        assert!(matches!(cli.command, Command::Status(_)));
    }
}

#[test]
fn global_defaults_are_text_auto_color_and_no_wait() {
    let cli = parse(&["run", "hi"]);
    assert_eq!(cli.global.effective_output_format(), OutputFormat::Text);
    assert_eq!(cli.global.color, ColorChoice::Auto);
    assert_eq!(cli.global.verbose, 0);
    assert_eq!(cli.global.wait, None);
    assert!(cli.global.config.is_empty());
}

#[test]
fn output_format_and_verbosity_count_parse() {
    let cli = parse(&["-v", "run", "--output-format", "stream-json", "-vv", "hi"]);
    assert_eq!(cli.global.output_format, Some(OutputFormat::StreamJson));
    assert_eq!(
        cli.global.effective_output_format(),
        OutputFormat::StreamJson
    );
    assert_eq!(cli.global.verbose, 3);
}

#[test]
fn config_overrides_are_repeatable_and_need_key_equals_value() {
    let cli = parse(&["-c", "a=1", "--config=b=2", "run", "p", "-c", "c=3"]);
    assert_eq!(cli.global.config, ["a=1", "b=2", "c=3"]);
    let cli = parse(&[
        "-c", "a=1", "sessions", "-c", "b=2", "list", "-c", "c=3", "--all",
    ]);
    assert_eq!(cli.global.config, ["a=1", "b=2", "c=3"]);
    let cli = parse(&["-c", "a=1", "sessions", "--all", "-c", "b=2"]);
    assert_eq!(cli.global.config, ["a=1", "b=2"]);
    assert_eq!(
        parse_error(&["-c", "model", "run", "p"]),
        ErrorKind::ValueValidation
    );
}

#[test]
fn run_parses_every_turn_flag_into_its_field() {
    let cli = parse(&[
        "run",
        "--session-id",
        "0198c0de-0000-7000-8000-000000000000",
        "--name",
        "nightly",
        "-m",
        "anthropic/claude-sonnet-4-5",
        "--fallback-model",
        "openai/gpt-5,google/gemini-2.5-pro",
        "--fallback-model",
        "ollama/qwen3",
        "--effort",
        "xhigh",
        "--system-prompt",
        "be terse",
        "--append-system-prompt",
        "one",
        "--append-system-prompt",
        "two",
        "--append-system-prompt-file",
        "extra.md",
        "--prompt-mode",
        "minimal",
        "--no-context-files",
        "--tools",
        "",
        "--allowed-tools",
        "exec(git *)",
        "--allowed-tools",
        "group:fs",
        "--disallowed-tools",
        "write",
        "--permission-mode",
        "acceptEdits",
        "--max-turns",
        "8",
        "--max-budget-usd",
        "0.25",
        "--timeout",
        "600",
        "--idle-timeout",
        "30",
        "-i",
        "a.png",
        "--image",
        "b.png",
        "--ephemeral",
        "--include-partial-messages",
        "-o",
        "last.txt",
        "--events-file",
        "events.jsonl",
        "--heartbeat",
        "--json-schema",
        "@schema.json",
        "--dry-run",
        "--auth-profile",
        "anthropic:work",
        "--stdin-timeout",
        "0",
        "--lossy-stdin",
        "write the commit message",
    ]);
    let Command::Run(run) = cli.command else {
        panic!("expected run, got {cli:?}")
    };
    assert_eq!(run.prompt.as_deref(), Some("write the commit message"));
    assert_eq!(
        run.session_id.as_deref(),
        Some("0198c0de-0000-7000-8000-000000000000")
    );
    assert_eq!(run.name.as_deref(), Some("nightly"));
    let turn = run.turn;
    assert_eq!(turn.model.as_deref(), Some("anthropic/claude-sonnet-4-5"));
    assert_eq!(
        turn.fallback_model,
        ["openai/gpt-5", "google/gemini-2.5-pro", "ollama/qwen3"]
    );
    assert_eq!(turn.thinking, Some(ThinkingLevel::Xhigh));
    assert_eq!(turn.system_prompt.as_deref(), Some("be terse"));
    assert_eq!(turn.append_system_prompt, ["one", "two"]);
    assert_eq!(turn.append_system_prompt_file, [PathBuf::from("extra.md")]);
    assert_eq!(turn.prompt_mode, Some(PromptMode::Minimal));
    assert!(turn.no_context_files);
    assert_eq!(turn.tools.as_deref(), Some(""));
    assert_eq!(turn.allowed_tools, ["exec(git *)", "group:fs"]);
    assert_eq!(turn.disallowed_tools, ["write"]);
    assert_eq!(turn.permission_mode, Some(PermissionMode::AcceptEdits));
    assert_eq!(turn.max_turns, Some(8));
    assert_eq!(turn.max_budget_usd, Some(0.25));
    assert_eq!(turn.timeout, Some(600.0));
    assert_eq!(turn.idle_timeout, Some(30.0));
    assert_eq!(turn.image, [PathBuf::from("a.png"), PathBuf::from("b.png")]);
    assert!(turn.no_session_persistence);
    assert!(turn.include_partial_messages);
    assert_eq!(turn.output_last_message, Some(PathBuf::from("last.txt")));
    assert_eq!(turn.events_file, Some(PathBuf::from("events.jsonl")));
    assert!(turn.heartbeat && turn.dry_run && turn.lossy_stdin && !turn.no_stdin);
    assert_eq!(turn.json_schema.as_deref(), Some("@schema.json"));
    assert_eq!(turn.auth_profile.as_deref(), Some("anthropic:work"));
    assert_eq!(turn.stdin_timeout, Some(0.0));
}

#[test]
fn thinking_and_ephemeral_accept_their_long_names_too() {
    let cli = parse(&["run", "--thinking", "off", "--no-session-persistence", "hi"]);
    let Command::Run(run) = cli.command else {
        panic!("expected run")
    };
    assert_eq!(run.turn.thinking, Some(ThinkingLevel::Off));
    assert!(run.turn.no_session_persistence);
}

#[test]
fn run_prompt_may_be_absent_or_a_dash() {
    let Command::Run(run) = parse(&["run"]).command else {
        panic!("expected run")
    };
    assert_eq!(run.prompt, None);
    let Command::Run(run) = parse(&["run", "-"]).command else {
        panic!("expected run")
    };
    assert_eq!(run.prompt.as_deref(), Some("-"));
}

#[test]
fn sandbox_and_permission_values_use_the_spec_spelling() {
    let Command::Run(run) = parse(&["run", "--sandbox", "danger-full-access", "p"]).command else {
        panic!("expected run")
    };
    assert_eq!(run.turn.sandbox, Some(SandboxMode::DangerFullAccess));
    for (value, mode) in [
        ("plan", PermissionMode::Plan),
        ("acceptEdits", PermissionMode::AcceptEdits),
        ("bypassPermissions", PermissionMode::BypassPermissions),
        ("dontAsk", PermissionMode::DontAsk),
        ("default", PermissionMode::Default),
    ] {
        let Command::Run(run) = parse(&["run", "--permission-mode", value, "p"]).command else {
            panic!("expected run")
        };
        assert_eq!(run.turn.permission_mode, Some(mode));
    }
    assert_eq!(
        parse_error(&["run", "--sandbox", "full", "p"]),
        ErrorKind::InvalidValue
    );
    assert_eq!(
        parse_error(&["run", "--timeout=-1", "p"]),
        ErrorKind::ValueValidation
    );
    assert_eq!(
        parse_error(&["run", "--idle-timeout", "soon", "p"]),
        ErrorKind::ValueValidation
    );
    assert_eq!(
        parse_error(&["run", "--max-turns", "0", "p"]),
        ErrorKind::ValueValidation
    );
}

#[test]
fn resume_accepts_every_run_flag() {
    let cli = parse(&[
        "resume",
        "nightly",
        "continue",
        "--append-system-prompt",
        "again",
        "--sandbox",
        "read-only",
        "--output-schema",
        "schema.json",
        "--no-stdin",
        "--fork",
        "--name",
        "nightly-2",
    ]);
    let Command::Resume(resume) = cli.command else {
        panic!("expected resume")
    };
    assert_eq!(
        resume.session_and_prompt(),
        (Some("nightly"), Some("continue"))
    );
    assert_eq!(resume.turn.append_system_prompt, ["again"]);
    assert_eq!(resume.turn.sandbox, Some(SandboxMode::ReadOnly));
    assert_eq!(
        resume.turn.output_schema,
        Some(PathBuf::from("schema.json"))
    );
    assert!(resume.turn.no_stdin && resume.fork && !resume.last && !resume.create);
    assert_eq!(resume.name.as_deref(), Some("nightly-2"));
}

#[test]
fn resume_last_takes_the_only_positional_as_the_prompt() {
    for flag in ["--last", "--continue"] {
        let cli = parse(&["resume", flag, "--all", "now add tests"]);
        let Command::Resume(resume) = cli.command else {
            panic!("expected resume")
        };
        assert!(resume.last && resume.all);
        assert_eq!(resume.session_and_prompt(), (None, Some("now add tests")));
    }
    let Command::Resume(resume) = parse(&["resume", "--last"]).command else {
        panic!()
    };
    assert_eq!(resume.session_and_prompt(), (None, None));
}

#[test]
fn resume_short_c_is_the_global_config_not_continue() {
    // `-c` is `--config` everywhere (codex convention), so claude's `-c` continue is long-only.
    assert_eq!(
        parse_error(&["resume", "-c", "now"]),
        ErrorKind::ValueValidation
    );
    let cli = parse(&["resume", "-c", "model=\"x/y\"", "nightly", "go"]);
    assert_eq!(cli.global.config, ["model=\"x/y\""]);
}

#[test]
fn resume_create_is_the_cron_idiom() {
    let cli = parse(&["resume", "--create", "nightly", "--heartbeat"]);
    let Command::Resume(resume) = cli.command else {
        panic!("expected resume")
    };
    assert!(resume.create && resume.turn.heartbeat);
    assert_eq!(resume.session_and_prompt(), (Some("nightly"), None));
    assert_eq!(
        parse_error(&["resume", "--create"]),
        ErrorKind::MissingRequiredArgument
    );
    assert_eq!(parse_error(&["resume"]), ErrorKind::MissingRequiredArgument);
}

#[test]
fn declared_conflicts_are_rejected_by_clap() {
    let conflicting: &[&[&str]] = &[
        &[
            "run",
            "--system-prompt",
            "a",
            "--system-prompt-file",
            "b",
            "p",
        ],
        &["--json", "--output-format", "text", "run", "p"],
        &["run", "p", "--output-format", "json", "--json"],
        &["-q", "-v", "run", "p"],
        &["-q", "run", "-v", "p"],
        &["run", "-v", "p", "--quiet"],
        &["--json", "sessions", "list", "--output-format", "text"],
        &["run", "--no-stdin", "--stdin-timeout", "1", "p"],
        &["run", "--no-stdin", "--lossy-stdin", "p"],
        &[
            "run",
            "--dangerously-skip-permissions",
            "--sandbox",
            "read-only",
            "p",
        ],
        &[
            "run",
            "--sandbox",
            "read-only",
            "--permission-mode",
            "plan",
            "p",
        ],
        &[
            "run",
            "--json-schema",
            "{}",
            "--output-schema",
            "s.json",
            "p",
        ],
        &["resume", "--last", "nightly", "prompt"],
        &["resume", "--create", "--last", "nightly"],
        &["resume", "--create", "--fork", "nightly"],
        &["compact", "--last", "nightly"],
        &["status", "--last", "nightly"],
        &["sessions", "list", "--all", "--cwd", "/x"],
        &["sessions", "--all", "show", "nightly"],
        &["sessions", "--limit", "3", "list"],
        &[
            "sessions",
            "prune",
            "--older-than",
            "7d",
            "--all",
            "--cwd",
            "/x",
        ],
        &[
            "auth",
            "add",
            "openai",
            "--from-env",
            "OPENAI_API_KEY",
            "--command",
            "pass openai",
        ],
    ];
    for arguments in conflicting {
        assert_eq!(
            parse_error(arguments),
            ErrorKind::ArgumentConflict,
            "{arguments:?}"
        );
    }
}

#[test]
fn compact_needs_a_session_or_last() {
    assert_eq!(
        parse_error(&["compact"]),
        ErrorKind::MissingRequiredArgument
    );
    let cli = parse(&[
        "compact",
        "--continue",
        "--instructions",
        "keep decisions",
        "--keep-recent-tokens",
        "8000",
        "-m",
        "haiku",
        "--dry-run",
    ]);
    let Command::Compact(compact) = cli.command else {
        panic!("expected compact")
    };
    assert!(compact.last && compact.dry_run && compact.session.is_none());
    assert_eq!(compact.instructions.as_deref(), Some("keep decisions"));
    assert_eq!(compact.keep_recent_tokens, Some(8000));
    assert_eq!(compact.model.as_deref(), Some("haiku"));
}

#[test]
fn sessions_without_a_subcommand_lists() {
    let cli = parse(&[
        "sessions", "--all", "--limit", "5", "--name", "ci-*", "--json",
    ]);
    let Command::Sessions(sessions) = cli.command else {
        panic!("expected sessions")
    };
    assert!(sessions.command.is_none());
    assert!(sessions.list.all);
    assert_eq!(sessions.list.limit, Some(5));
    assert_eq!(sessions.list.name.as_deref(), Some("ci-*"));
    assert!(cli.global.json);

    let cli = parse(&["sessions", "--json", "list", "--cwd", "/repo"]);
    assert!(cli.global.json);
    let Command::Sessions(sessions) = cli.command else {
        panic!("expected sessions")
    };
    let Some(SessionsCommand::List(list)) = sessions.command else {
        panic!("expected list")
    };
    assert_eq!(list.cwd, Some(PathBuf::from("/repo")));
}

#[test]
fn sessions_subcommands_parse_their_arguments() {
    let sessions = |arguments: &[&str]| {
        let mut argv = vec!["sessions"];
        argv.extend_from_slice(arguments);
        match parse(&argv).command {
            Command::Sessions(sessions) => sessions.command.unwrap(),
            other => panic!("expected sessions, got {other:?}"),
        }
    };
    let SessionsCommand::Show(show) = sessions(&["show", "nightly", "--tree"]) else {
        panic!()
    };
    assert!(show.tree && show.session == "nightly");
    let SessionsCommand::Export(export) =
        sessions(&["export", "n", "--format", "jsonl", "-o", "f"])
    else {
        panic!()
    };
    assert_eq!(
        (export.format, export.output),
        (ExportFormat::Jsonl, Some(PathBuf::from("f")))
    );
    let SessionsCommand::Export(export) = sessions(&["export", "n"]) else {
        panic!()
    };
    assert_eq!(export.format, ExportFormat::Markdown);
    let SessionsCommand::Fork(fork) = sessions(&["fork", "n", "--at", "a1b2c3d4", "--name", "m"])
    else {
        panic!()
    };
    assert_eq!(
        (fork.at.as_deref(), fork.name.as_deref()),
        (Some("a1b2c3d4"), Some("m"))
    );
    let SessionsCommand::Rename(rename) = sessions(&["rename", "old", "new"]) else {
        panic!()
    };
    assert_eq!(
        (rename.session.as_str(), rename.name.as_str()),
        ("old", "new")
    );
    let SessionsCommand::Rm(rm) = sessions(&["rm", "a", "b", "--force"]) else {
        panic!()
    };
    assert_eq!(rm.sessions, ["a", "b"]);
    assert!(rm.force);
    let SessionsCommand::Prune(prune) = sessions(&["prune", "--older-than", "30d", "--dry-run"])
    else {
        panic!()
    };
    assert_eq!(prune.older_than, "30d");
    assert!(prune.dry_run && !prune.all);
    let SessionsCommand::Path(path) = sessions(&["path", "n"]) else {
        panic!()
    };
    assert_eq!(path.session, "n");
    let SessionsCommand::Repair(repair) = sessions(&["repair", "n", "--dry-run"]) else {
        panic!()
    };
    assert!(repair.dry_run);
    assert_eq!(
        parse_error(&["sessions", "rm"]),
        ErrorKind::MissingRequiredArgument
    );
    assert_eq!(
        parse_error(&["sessions", "prune"]),
        ErrorKind::MissingRequiredArgument
    );
}

#[test]
fn auth_without_a_subcommand_lists_and_add_never_takes_a_secret_argument() {
    let Command::Auth(auth) = parse(&["auth", "--json"]).command else {
        panic!("expected auth")
    };
    assert!(auth.command.is_none());

    let cli = parse(&[
        "auth",
        "add",
        "anthropic",
        "--name",
        "work",
        "--type",
        "token",
    ]);
    let Command::Auth(auth) = cli.command else {
        panic!("expected auth")
    };
    let Some(AuthCommand::Add(add)) = auth.command else {
        panic!("expected add")
    };
    assert_eq!(add.provider, "anthropic");
    assert_eq!(add.name.as_deref(), Some("work"));
    assert_eq!(add.type_, CredentialType::Token);
    assert_eq!((add.from_env, add.command), (None, None));

    let Command::Auth(auth) = parse(&["auth", "add", "openai"]).command else {
        panic!()
    };
    let Some(AuthCommand::Add(add)) = auth.command else {
        panic!("expected add")
    };
    assert_eq!(add.type_, CredentialType::ApiKey);
    assert_eq!(
        parse_error(&["auth", "add", "openai", "sk-secret"]),
        ErrorKind::UnknownArgument
    );

    let Command::Auth(auth) = parse(&["auth", "order", "anthropic", "work", "home"]).command else {
        panic!()
    };
    let Some(AuthCommand::Order(order)) = auth.command else {
        panic!("expected order")
    };
    assert_eq!(order.provider, "anthropic");
    assert_eq!(order.ids, ["work", "home"]);
}

#[test]
fn completions_takes_a_shell() {
    let Command::Completions(completions) = parse(&["completions", "zsh"]).command else {
        panic!("expected completions")
    };
    assert_eq!(completions.shell, clap_complete::Shell::Zsh);
    assert_eq!(
        parse_error(&["completions", "tcsh"]),
        ErrorKind::InvalidValue
    );
}

#[test]
fn clap_alone_keeps_only_the_deepest_levels_globals_which_try_parse_args_repairs() {
    // Guards the workaround for clap-rs/clap#1204: if clap starts merging levels itself, the
    // level-by-level reparse in `Cli::try_parse_args` can go.
    let argv = ["pincer", "-c", "a=1", "-v", "run", "-c", "b=2", "-v", "p"];
    let clap_alone = Cli::try_parse_from(argv).unwrap();
    assert_eq!(
        (
            clap_alone.global.config.as_slice(),
            clap_alone.global.verbose
        ),
        (&["b=2".to_owned()][..], 1)
    );
    let repaired = Cli::try_parse_args(argv).unwrap();
    assert_eq!(repaired.global.config, ["a=1", "b=2"]);
    assert_eq!(repaired.global.verbose, 2);
}

#[test]
fn help_and_version_are_clap_display_errors() {
    assert_eq!(parse_error(&["--help"]), ErrorKind::DisplayHelp);
    assert_eq!(parse_error(&["run", "--help"]), ErrorKind::DisplayHelp);
    assert_eq!(parse_error(&["--version"]), ErrorKind::DisplayVersion);
    assert_eq!(
        parse_error(&[]),
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    );
}

/// `pincer --version` alone is answered before clap builds the command line's definition (start-up
/// time); what it prints and how it exits are clap's, and any other use of the flag is clap's.
#[test]
fn version_alone_prints_clap_s_text_without_clap() {
    assert_eq!(pincer::cli::version_text(), Cli::command().render_version());
    let request = |args: &[&str]| {
        let args: Vec<std::ffi::OsString> = args.iter().map(Into::into).collect();
        pincer::cli::is_version_request(&args)
    };
    assert!(request(&["pincer", "--version"]));
    assert!(request(&["/usr/local/bin/pincer", "-V"]));
    for other in [
        &["pincer"][..],
        &["pincer", "--version", "run"],
        &["pincer", "run", "--version"],
        &["pincer", "--color=never", "--version"],
        &["pincer", "--versio"],
        &["pincer", "-Vq"],
    ] {
        assert!(!request(other), "{other:?}");
    }

    use crate::common::{Home, code, stderr, stdout};
    let home = Home::new();
    for flag in ["--version", "-V"] {
        let output = home.run(&[flag]);
        assert_eq!(code(&output), 0, "{}", stderr(&output));
        assert_eq!(stdout(&output), Cli::command().render_version());
        assert_eq!(stderr(&output), "");
    }
    let output = home.run(&["--color=never", "--version"]);
    assert_eq!(stdout(&output), Cli::command().render_version());
}

/// Every command a user can run, as the path of names below `pincer`.
pub(crate) fn leaf_commands(
    command: &clap::Command,
    path: &mut Vec<String>,
    leaves: &mut Vec<Vec<String>>,
) {
    for subcommand in command.get_subcommands() {
        if subcommand.is_hide_set() || subcommand.get_name() == "help" {
            continue;
        }
        path.push(subcommand.get_name().to_owned());
        if subcommand.has_subcommands() {
            leaf_commands(subcommand, path, leaves);
        } else {
            leaves.push(path.clone());
        }
        path.pop();
    }
}

#[test]
fn every_leaf_subcommand_help_has_examples() {
    let mut leaves = Vec::new();
    leaf_commands(&Cli::command(), &mut Vec::new(), &mut leaves);
    assert!(leaves.len() >= 20, "{leaves:?}");
    for leaf in &leaves {
        let mut argv: Vec<&str> = vec!["pincer"];
        argv.extend(leaf.iter().map(String::as_str));
        argv.push("--help");
        let help = match Cli::try_parse_args(&argv) {
            Err(error) if error.kind() == ErrorKind::DisplayHelp => error.to_string(),
            other => panic!("{argv:?}: expected help, got {other:?}"),
        };
        let examples = help
            .split_once("Examples:\n")
            .map(|(_, examples)| examples)
            .unwrap_or_else(|| panic!("`{}` has no examples:\n{help}", argv.join(" ")));
        assert!(
            examples.contains(&format!("pincer {}", leaf.join(" "))),
            "the examples of `{}` do not show it:\n{help}",
            argv.join(" ")
        );
    }
    let add = Cli::try_parse_args(["pincer", "auth", "add", "--help"])
        .unwrap_err()
        .to_string();
    assert!(
        add.contains("| pincer auth add anthropic") && add.contains("< ~/.secrets/"),
        "`auth add --help` shows piping the secret in:\n{add}"
    );
}

#[test]
fn the_hidden_sdk_entry_is_never_suggested_in_usage_errors() {
    for typo in ["claude-sd", "claude-sdl", "claudesdk"] {
        let error = Cli::try_parse_args(["pincer", typo]).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::InvalidSubcommand);
        let text = error.to_string();
        assert!(!text.contains("claude-sdk"), "{text}");
        assert!(!text.contains("\n\n\n"), "no empty tip block:\n{text}");
    }
    // Visible subcommands are still suggested.
    let text = Cli::try_parse_args(["pincer", "sesions"])
        .unwrap_err()
        .to_string();
    assert!(
        text.contains("a similar subcommand exists: 'sessions'"),
        "{text}"
    );
    // And the hidden command still runs when named.
    assert!(matches!(
        parse(&["claude-sdk"]).command,
        Command::ClaudeSdk(_)
    ));
}

/// pincer's stderr for `args`, with clap's own terminal detection forced on
/// (`CLICOLOR_FORCE=1`, which clap honours in `auto`): only an explicit choice can turn it off.
fn forced_color_stderr(args: &[&str], no_color: bool) -> String {
    let home = crate::common::Home::new();
    let mut command = home
        .pincer()
        .env_remove("NO_COLOR")
        .env("CLICOLOR_FORCE", "1");
    if no_color {
        command = command.env("NO_COLOR", "1");
    }
    let output = command.args(args).output();
    assert_eq!(output.status.code(), Some(2), "{args:?}");
    String::from_utf8(output.stderr).unwrap()
}

#[test]
fn color_never_and_no_color_also_apply_to_clap_usage_errors() {
    const ESCAPE: char = '\u{1b}';
    // The control: with color forced, clap styles its error.
    assert!(forced_color_stderr(&["run", "--bogus"], false).contains(ESCAPE));
    for (args, no_color) in [
        (&["--color", "never", "run", "--bogus"][..], false),
        (&["run", "--bogus", "--color=never"][..], false),
        (&["sesions", "--color", "never"][..], false),
        (&["run", "--bogus"][..], true),
        (
            &[
                "--json",
                "--output-format",
                "json",
                "status",
                "--color",
                "never",
            ][..],
            false,
        ),
    ] {
        let stderr = forced_color_stderr(args, no_color);
        assert!(stderr.starts_with("error: "), "{args:?}: {stderr:?}");
        assert!(
            !stderr.contains(ESCAPE),
            "{args:?} NO_COLOR={no_color}: {stderr:?}"
        );
    }
    // An explicit --color always wins over NO_COLOR, as for pincer's own messages.
    assert!(forced_color_stderr(&["--color", "always", "run", "--bogus"], true).contains(ESCAPE));
}

#[test]
fn an_empty_pincer_home_is_treated_as_unset() {
    let env = |name: &str| (name == "PINCER_HOME").then(std::ffi::OsString::new);
    let cli = Cli::try_parse_args_with(["pincer", "status"], &env).unwrap();
    assert_eq!(cli.global.home, None);
    // An explicit empty --home is still a usage error.
    assert_eq!(
        Cli::try_parse_args_with(["pincer", "--home", "", "status"], &env)
            .unwrap_err()
            .kind(),
        ErrorKind::InvalidValue
    );
    // End to end: the XDG directories under $HOME are used.
    let home = crate::common::Home::new();
    let output = home
        .pincer()
        .env("PINCER_HOME", "")
        .args(["status", "--json"])
        .output();
    assert_eq!(output.status.code(), Some(0), "{:?}", output);
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let config = value["paths"]["config_file"].as_str().unwrap();
    assert!(
        config.starts_with(home.root.path().to_str().unwrap())
            && config.ends_with("pincer/config.toml"),
        "{config}"
    );
}

#[test]
fn peer_spellings_of_codex_exec_parse_to_the_same_settings() {
    let cli = parse(&[
        "run",
        "-s",
        "read-only",
        "--skip-git-repo-check",
        "--strict-config",
        "go",
    ]);
    let Command::Run(run) = cli.command else {
        panic!("expected run")
    };
    assert_eq!(run.turn.sandbox, Some(SandboxMode::ReadOnly));
    assert!(run.turn.skip_git_repo_check && run.turn.strict_config);
    assert_eq!(run.prompt.as_deref(), Some("go"));
    let Command::Run(run) = parse(&["run", "--full-auto", "go"]).command else {
        panic!()
    };
    assert!(run.turn.full_auto);
    let Command::Resume(resume) = parse(&[
        "resume",
        "nightly",
        "--dangerously-bypass-approvals-and-sandbox",
    ])
    .command
    else {
        panic!()
    };
    assert!(resume.turn.dangerously_skip_permissions);
    // --full-auto picks a sandbox: it cannot be combined with another one.
    for conflicting in [
        &["run", "--full-auto", "-s", "read-only", "x"][..],
        &["run", "--full-auto", "--dangerously-skip-permissions", "x"][..],
        &["run", "--full-auto", "--permission-mode", "plan", "x"][..],
    ] {
        assert_eq!(
            parse_error(conflicting),
            ErrorKind::ArgumentConflict,
            "{conflicting:?}"
        );
    }
    // -C is still --cd and -c still --config next to the new short flags.
    let cli = parse(&[
        "run",
        "-C",
        "/tmp",
        "-c",
        "model=\"x/y\"",
        "-s",
        "workspace-write",
        "go",
    ]);
    assert_eq!(cli.global.cd, Some(PathBuf::from("/tmp")));
    assert_eq!(cli.global.config, ["model=\"x/y\""]);
}

#[test]
fn peer_spellings_of_claude_p_parse_to_the_same_settings() {
    let Command::Run(run) =
        parse(&["run", "-r", "nightly", "--fork-session", "-n", "copy", "go"]).command
    else {
        panic!("expected run")
    };
    let resume = run.as_resume().unwrap();
    assert_eq!(resume.session_and_prompt(), (Some("nightly"), Some("go")));
    assert!(resume.fork && !resume.last);
    assert_eq!(resume.name.as_deref(), Some("copy"));
    let Command::Run(run) = parse(&["run", "--continue", "go on"]).command else {
        panic!()
    };
    let resume = run.as_resume().unwrap();
    assert!(resume.last);
    assert_eq!(resume.session_and_prompt(), (None, Some("go on")));
    let Command::Run(run) = parse(&["run", "plain"]).command else {
        panic!()
    };
    assert!(run.as_resume().is_none());
    assert_eq!(
        parse_error(&["run", "--fork-session", "x"]),
        ErrorKind::MissingRequiredArgument
    );
    assert_eq!(
        parse_error(&["run", "-r", "a", "--continue", "x"]),
        ErrorKind::ArgumentConflict
    );

    let Command::Resume(resume) = parse(&["resume", "nightly", "--fork-session"]).command else {
        panic!()
    };
    assert!(resume.fork);
    let Command::Run(run) = parse(&[
        "run",
        "--max-thinking-tokens",
        "5000",
        "--permission-mode",
        "auto",
        "x",
    ])
    .command
    else {
        panic!()
    };
    assert_eq!(run.turn.max_thinking_tokens, Some(5000));
    assert_eq!(run.turn.permission_mode, Some(PermissionMode::Auto));
    assert_eq!(
        parse_error(&[
            "run",
            "--max-thinking-tokens",
            "5000",
            "--thinking",
            "low",
            "x"
        ]),
        ErrorKind::ArgumentConflict
    );
    let Command::Run(run) = parse(&["run", "--effort", "max", "x"]).command else {
        panic!()
    };
    assert_eq!(run.turn.thinking, Some(ThinkingLevel::Xhigh));

    // --debug is -vv, before or after the subcommand; a filter needs `=` so it never eats the
    // prompt.
    for argv in [
        &["--debug", "run", "x"][..],
        &["run", "-d", "x"][..],
        &["run", "--debug=api,hooks", "x"][..],
    ] {
        let cli = parse(argv);
        assert_eq!(cli.global.verbosity(), 2, "{argv:?}");
        let Command::Run(run) = cli.command else {
            panic!()
        };
        assert_eq!(run.prompt.as_deref(), Some("x"), "{argv:?}");
    }
    assert_eq!(
        parse(&["-vvv", "run", "--debug", "x"]).global.verbosity(),
        3
    );
    assert_eq!(
        parse_error(&["-q", "run", "--debug", "x"]),
        ErrorKind::ArgumentConflict
    );
}
