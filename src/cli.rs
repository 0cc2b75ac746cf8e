//! The command line, as clap derive definitions (SPEC §1 and the stdin flags of §2).
//!
//! Definitions only: no I/O and no decisions beyond what clap itself checks. Closed sets are
//! `ValueEnum`s, conflicts are declared here rather than checked by hand, and every flag carries a
//! one-line `///` help. Only `commands/` consumes these types. `man/` and `completions/` are
//! generated from this file by `docs.rs`; a test fails when they are stale.
//!
//! One exception to "definitions only": [`Cli::try_parse_args`], the entry point `main` must use
//! instead of clap's `try_parse`. clap keeps a global flag's values from only the deepest command
//! level that has any (clap-rs/clap#1204, #5335), so `pincer -c a=1 run -c b=2` would silently lose
//! `a=1`; `try_parse_args` repairs that and rejects conflicts split across levels.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::error::ErrorKind;
use clap::parser::ValueSource;
use clap::{
    ArgAction, ArgGroup, Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum,
    ValueHint,
};

const ROOT_EXAMPLES: &str = "\
Examples:
  git diff | pincer run \"write the commit message\"
  pincer run --json --sandbox workspace-write \"fix the failing test\"
  pincer resume --create nightly --heartbeat        # cron: create once, then continue
  pincer resume --last \"now add tests\"
  pincer sessions list --all
  pincer status --json

Exit codes: 0 ok, 1 run failed, 2 usage/input/config, 3 auth, 4 provider unavailable,
5 guardrail, 6 context overflow, 75 session busy, 124 timeout, 130/143 interrupted.

Keys: ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY (or GOOGLE_API_KEY); endpoints:
ANTHROPIC_BASE_URL, OPENAI_BASE_URL, GEMINI_BASE_URL, OLLAMA_HOST (man pincer: ENVIRONMENT).
For cron and CI, store a key once instead:
  printf %s \"$KEY\" | pincer auth add anthropic";

const RUN_EXAMPLES: &str = "\
Examples:
  git diff | pincer run \"write the commit message\"
  pincer run --json --sandbox workspace-write \"fix the failing test\"
  pincer run --name triage -m sonnet \"summarize open TODOs\"
  pincer run --output-format stream-json --include-partial-messages \"explain src/main.rs\"
  echo \"list the crates we depend on\" | pincer run -
  pincer run --json-schema @schema.json \"extract the version numbers\"
  pincer run --dry-run --prompt-mode minimal \"hello\"
  pincer run -r nightly \"and now?\"                  # claude -p --resume: same as resume nightly
  pincer run -s read-only --skip-git-repo-check \"explain\"   # codex exec spellings

Keys: ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY (or GOOGLE_API_KEY); endpoints:
ANTHROPIC_BASE_URL, OPENAI_BASE_URL, GEMINI_BASE_URL, OLLAMA_HOST (man pincer: ENVIRONMENT).
For cron and CI, store a key once instead:
  printf %s \"$KEY\" | pincer auth add anthropic";

const RESUME_EXAMPLES: &str = "\
Examples:
  pincer resume --create nightly --heartbeat        # cron idiom: create on first run
  pincer resume nightly \"what changed since yesterday?\"
  pincer resume --last \"now add tests\"              # latest session in this directory
  pincer resume --last --all \"continue\"             # latest session anywhere
  pincer resume 01a2b3c --fork \"try another approach\"
  pincer resume 01a2b3c --fork --session-id 0199a000-0000-7000-8000-000000000002 \"…\"
  npm test 2>&1 | pincer resume --create ci-fix \"the tests still fail, see output\"";

const EXEC_EXAMPLES: &str = "\
Examples:
  echo \"fix the failing test\" | pincer exec --json -s workspace-write
  pincer exec --json resume 0199a000-0000-7000-8000-000000000001 < next-prompt.txt
  pincer exec -c model_reasoning_effort=\"high\" -m openai/gpt-5 \"explain src/main.rs\"
The Codex SDK runs pincer this way: new Codex({ codexPathOverride: \"/path/to/pincer\" }).
Every codex --config key the SDK writes is applied or warned about; the thread id is the
session id.";

const EXEC_RESUME_EXAMPLES: &str = "\
Examples:
  echo \"and now add tests\" | pincer exec --json resume 0199a000-0000-7000-8000-000000000001
  pincer exec resume nightly \"what changed since yesterday?\"
  pincer exec resume --last \"continue\"";

const COMPACT_EXAMPLES: &str = "\
Examples:
  pincer compact --last
  pincer compact nightly --instructions \"keep the open decisions\" --dry-run
  pincer compact nightly --keep-recent-tokens 8000 --json";

const SESSIONS_EXAMPLES: &str = "\
Examples:
  pincer sessions                                   # list sessions of this directory
  pincer sessions list --all --limit 20 --json
  pincer sessions show nightly --tree
  pincer sessions export nightly --format markdown -o nightly.md
  pincer sessions prune --older-than 30d --dry-run
  pincer sessions list --name 'tmp-*' --json | jq -r '.[].id' | xargs -r pincer sessions rm";

const STATUS_EXAMPLES: &str = "\
Examples:
  pincer status                                     # defaults, credentials, backends
  pincer status --last
  pincer status nightly --json | jq .context.percent
  pincer status --mcp --mcp-config .mcp.json        # start each MCP server, list its tools
  pincer status --fresh-probe                       # probe the exec sandbox again, now";

const AUTH_EXAMPLES: &str = "\
Examples:
  printf %s \"$ANTHROPIC_API_KEY\" | pincer auth add anthropic --name work
  pincer auth add openai --from-env OPENAI_API_KEY
  pincer auth add anthropic --name personal --from-env PERSONAL_ANTHROPIC_KEY
  pincer auth add anthropic --command \"pass show anthropic\"
  pincer auth order anthropic work personal
  pincer auth test anthropic --json";

const SESSIONS_LIST_EXAMPLES: &str = "\
Examples:
  pincer sessions list                              # this directory's sessions, newest first
  pincer sessions list --all --limit 20
  pincer sessions list --name 'ci-*' --json | jq -r '.[].id'";

const SESSIONS_SHOW_EXAMPLES: &str = "\
Examples:
  pincer sessions show nightly
  pincer sessions show 01a2b3c4 --tree              # every branch, not only the current one
  pincer sessions show nightly --json | jq '.entries | length'";

const SESSIONS_EXPORT_EXAMPLES: &str = "\
Examples:
  pincer sessions export nightly -o nightly.md
  pincer sessions export nightly --format json | jq .header
  pincer sessions export nightly --format jsonl > backup.jsonl";

const SESSIONS_FORK_EXAMPLES: &str = "\
Examples:
  pincer sessions fork nightly --name nightly-experiment
  pincer sessions fork 01a2b3c4 --at a0000003       # not run in CI: ids from show --tree";

const SESSIONS_RENAME_EXAMPLES: &str = "\
Examples:
  pincer sessions rename 01a2b3c4 triage
  pincer sessions rename triage triage-2025";

const SESSIONS_RM_EXAMPLES: &str = "\
Examples:
  pincer sessions rm scratch
  pincer sessions rm 01a2b3c4 01a2b3d5 --force      # even while a run holds the lock";

const SESSIONS_PRUNE_EXAMPLES: &str = "\
Examples:
  pincer sessions prune --older-than 30d --dry-run
  pincer sessions prune --older-than 12h --all --json";

const SESSIONS_PUSH_EXAMPLES: &str = "\
Examples:
  pincer sessions push nightly --store s3://team-bucket/pincer   # not run in CI: needs a session store
  pincer sessions push --all --store s3://team-bucket/pincer      # not run in CI: needs a session store";

const SESSIONS_PULL_EXAMPLES: &str = "\
Examples:
  pincer sessions pull nightly --store s3://team-bucket/pincer   # not run in CI: needs a session store
  pincer sessions pull 01a2b3c4 --store s3://team-bucket/pincer --json   # not run in CI: needs a session store";

const SESSIONS_PATH_EXAMPLES: &str = "\
Examples:
  pincer sessions path nightly
  tail -n 3 \"$(pincer sessions path nightly)\"";

const SESSIONS_REPAIR_EXAMPLES: &str = "\
Examples:
  pincer sessions repair nightly --dry-run          # what would move to the side file
  pincer sessions repair nightly";

const AUTH_LIST_EXAMPLES: &str = "\
Examples:
  pincer auth list
  pincer auth list --json | jq -r '.profiles[].id'";

const AUTH_ADD_EXAMPLES: &str = "\
Examples:
  printf %s \"$ANTHROPIC_API_KEY\" | pincer auth add anthropic --name work
  pincer auth add openai --name ci < ~/.secrets/openai-ci
  pincer auth add google --from-env GEMINI_KEY_2    # store a reference, not the key
  pincer auth add anthropic --command \"pass show anthropic\"
  pincer auth add anthropic --type token --name oauth < token.txt
The secret is read from stdin, or asked for without echo on a terminal; never from argv.";

const AUTH_REMOVE_EXAMPLES: &str = "\
Examples:
  pincer auth remove anthropic:spare";

const AUTH_ORDER_EXAMPLES: &str = "\
Examples:
  pincer auth order anthropic                       # show the order
  pincer auth order anthropic work spare            # try work, then spare";

const AUTH_STATUS_EXAMPLES: &str = "\
Examples:
  pincer auth status
  pincer auth status --json | jq '.profiles[] | select(.available | not)'";

const AUTH_RESET_EXAMPLES: &str = "\
Examples:
  pincer auth reset                                 # every profile
  pincer auth reset anthropic:work";

const AUTH_TEST_EXAMPLES: &str = "\
Examples:
  pincer auth test                                  # every provider with credentials
  pincer auth test anthropic:work
  pincer auth test openai -m openai/gpt-5-mini --json";

const COMPLETIONS_EXAMPLES: &str = "\
Examples:
  pincer completions bash > pincer.bash                              # for packagers

Completing session and model names too: one line in the shell startup file instead:
  echo 'source <(COMPLETE=bash pincer)' >> ~/.bashrc
  echo 'autoload -U compinit && compinit' >> ~/.zshrc              # zsh: compinit first,
  echo 'source <(COMPLETE=zsh pincer)' >> ~/.zshrc                  # then the completion
  mkdir -p ~/.config/fish && echo 'COMPLETE=fish pincer | source' >> ~/.config/fish/config.fish

Installing the static scripts on a fresh HOME:
  mkdir -p ~/.local/share/bash-completion/completions          # the directories may not exist yet
  pincer completions bash > ~/.local/share/bash-completion/completions/pincer
  mkdir -p ~/.zfunc && pincer completions zsh > ~/.zfunc/_pincer
      # and in ~/.zshrc, before compinit: fpath=(~/.zfunc $fpath)
  mkdir -p ~/.config/fish/completions
  pincer completions fish > ~/.config/fish/completions/pincer.fish";

const USAGE_EXAMPLES: &str = "\
Examples:
  pincer usage                                      # every run in the ledger, totals
  pincer usage --since 7d --by day
  pincer usage --since 2026-06-01 --by model --json | jq .total_cost_usd
  pincer run --tag nightly-review \"…\" && pincer usage --by tag

Budgets across runs: [budget] daily_usd, weekly_usd, monthly_usd in config.toml (UTC windows);
a run that would start over one exits 5 before any request.";

/// Run one AI-agent turn against a session kept on disk, for scripts, cron and CI.
#[derive(Debug, Parser)]
#[command(
    name = "pincer",
    version,
    max_term_width = 100,
    after_help = ROOT_EXAMPLES
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,

    #[command(subcommand)]
    pub command: Command,
}

/// Flags accepted before or after any subcommand (SPEC §1.1).
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Global options")]
pub struct GlobalArgs {
    /// Use DIR as the workspace instead of the current directory.
    #[arg(short = 'C', long, global = true, value_name = "DIR", value_hint = ValueHint::DirPath)]
    pub cd: Option<PathBuf>,

    /// Keep config, credentials and sessions in DIR instead of the XDG directories.
    #[arg(
        long,
        global = true,
        env = "PINCER_HOME",
        hide_env_values = true,
        value_name = "DIR",
        value_hint = ValueHint::DirPath
    )]
    pub home: Option<PathBuf>,

    /// Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable.
    #[arg(
        short = 'c',
        long,
        global = true,
        value_name = "KEY=VALUE",
        value_parser = parse_config_override
    )]
    pub config: Vec<String>,

    /// Choose what stdout carries: final text, one result object, or JSONL events.
    #[arg(long, global = true, value_enum, value_name = "FORMAT")]
    pub output_format: Option<OutputFormat>,

    /// Print one JSON result object; same as --output-format json.
    #[arg(long, global = true, conflicts_with = "output_format")]
    pub json: bool,

    /// Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected).
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,

    /// Print more on stderr: a line per tool call and the session id also when stderr is not a
    /// terminal; repeat for more (-vv).
    #[arg(short, long, global = true, action = ArgAction::Count)]
    pub verbose: u8,

    /// Same as -vv (claude's spelling); a category filter given with = is accepted and ignored.
    #[arg(
        short = 'd',
        long,
        global = true,
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "",
        value_name = "FILTER",
        conflicts_with = "quiet"
    )]
    pub debug: Option<String>,

    /// Style stderr output; NO_COLOR in the environment also turns colors off.
    #[arg(
        long,
        global = true,
        value_enum,
        default_value_t = ColorChoice::Auto,
        value_name = "WHEN"
    )]
    pub color: ColorChoice,

    /// Wait up to SECS for a busy session's lock instead of exiting 75 at once; also how long
    /// to wait for the names lock (default 30 s) before exiting 75.
    #[arg(long, global = true, value_name = "SECS", value_parser = parse_seconds)]
    pub wait: Option<f64>,

    /// Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://,
    /// az://, memory://); overrides [store] url; an empty URL (--store '') turns it off.
    #[arg(
        long,
        global = true,
        env = "PINCER_STORE",
        hide_env_values = true,
        value_name = "URL",
        value_hint = ValueHint::Url
    )]
    pub store: Option<String>,
}

/// Whether the command line is `pincer --version` or `pincer -V` and nothing else: `main`
/// answers it with [`version_text`] before building the definition of every subcommand's flags,
/// which costs more than the rest of such a run. Anything else goes through clap, which also
/// answers `--version` given with other arguments.
pub fn is_version_request(args: &[OsString]) -> bool {
    matches!(args, [_, flag] if flag == "--version" || flag == "-V")
}

/// What `pincer --version` prints: clap's own text for it (a test compares the two).
pub fn version_text() -> String {
    format!("pincer {}\n", env!("CARGO_PKG_VERSION"))
}

impl Cli {
    /// Parses `args` (program name first) like clap's `try_parse_from`, and also keeps global flags
    /// given on several command levels: every `-c/--config` value in order, `-v` counts added up.
    /// `--json` with `--output-format`, or `-q` with `-v`/`--debug`, is an `ArgumentConflict` on
    /// any levels. Errors are clap's own, so `error.exit()` prints them and exits 2 (0 for
    /// --help/--version), styled per `--color` and `NO_COLOR` like the rest of stderr, and never
    /// suggesting a hidden subcommand. An empty `PINCER_HOME` counts as unset.
    pub fn try_parse_args<I, T>(args: I) -> Result<Self, clap::Error>
    where
        I: IntoIterator<Item = T>,
        T: Into<OsString>,
    {
        Self::try_parse_args_with(args, &|name| std::env::var_os(name))
    }

    /// [`Cli::try_parse_args`] with the environment passed in (tests).
    pub fn try_parse_args_with<I, T>(
        args: I,
        env: &dyn Fn(&str) -> Option<OsString>,
    ) -> Result<Self, clap::Error>
    where
        I: IntoIterator<Item = T>,
        T: Into<OsString>,
    {
        let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
        let mut command = Self::command().color(clap_color(&args, env));
        if env("PINCER_HOME").is_some_and(|home| home.is_empty()) {
            command = command.mut_arg("home", |home| home.env(None));
        }
        // An empty variable counts as unset, and a flag wins over the other mode's variable
        // (`PINCER_REPLAY` exported for a script, one step run with `--record`).
        let flag_given = |flag: &str| {
            args.iter().any(|arg| {
                let arg = arg.to_string_lossy();
                arg == flag || arg.starts_with(&format!("{flag}="))
            })
        };
        for (variable, other_flag) in [("PINCER_RECORD", "--replay"), ("PINCER_REPLAY", "--record")]
        {
            if env(variable).is_some_and(|value| value.is_empty()) || flag_given(other_flag) {
                command = without_env(command, variable);
            }
        }
        command = values_may_be_negative(command);
        let parsed = Self::parse_levels(&mut command, args.clone());
        parsed.map_err(|error| {
            let error = without_hidden_suggestions(&command, error);
            let error = last_with_session(&mut command, error);
            without_env_flags_in_usage(&command, &args, error)
        })
    }

    fn parse_levels(command: &mut clap::Command, args: Vec<OsString>) -> Result<Self, clap::Error> {
        let matches = command.try_get_matches_from_mut(args.clone())?;
        let mut cli = Self::from_arg_matches(&matches).map_err(|error| error.format(command))?;

        let mut levels = Vec::new();
        if collect_global_levels(command, args, &mut levels) && levels.len() > 1 {
            cli.global.config = levels
                .iter()
                .flat_map(|level| level.config.clone())
                .collect();
            cli.global.verbose = levels
                .iter()
                .fold(0, |sum, level| sum.saturating_add(level.verbose));
            cli.global.debug = levels.iter().find_map(|level| level.debug.clone());
        }

        if cli.global.json && cli.global.output_format.is_some() {
            return Err(conflict(command, "--json", "--output-format <FORMAT>"));
        }
        if cli.global.quiet && cli.global.verbose > 0 {
            return Err(conflict(command, "--quiet", "--verbose..."));
        }
        if cli.global.quiet && cli.global.debug.is_some() {
            return Err(conflict(command, "--quiet", "--debug"));
        }
        // `sessions` takes list flags itself (no subcommand means list) but not with a
        // subcommand; clap's `args_conflicts_with_subcommands` would also refuse global flags
        // there (`sessions --json list`), so this one conflict is checked here.
        if let Some(("sessions", sessions)) = matches.subcommand()
            && let Some(subcommand) = sessions.subcommand_name()
            && let Some(flag) = ["all", "cwd", "limit", "name"]
                .into_iter()
                .find(|id| sessions.value_source(id) == Some(ValueSource::CommandLine))
        {
            return Err(command.error(
                ErrorKind::ArgumentConflict,
                format!(
                    "the subcommand '{subcommand}' cannot be used with '--{flag}'; \
                     give list flags after 'list'"
                ),
            ));
        }
        Ok(cli)
    }
}

/// clap's own conflict error, for conflicts it cannot see across command levels.
fn conflict(command: &mut clap::Command, first: &str, second: &str) -> clap::Error {
    command.error(
        ErrorKind::ArgumentConflict,
        format!("the argument '{first}' cannot be used with '{second}'"),
    )
}

/// How clap styles its own errors and help: the last `--color WHEN` on the command line (clap
/// has not parsed it yet), else `NO_COLOR` turns it off, else clap's terminal detection.
/// `command` with every argument read from the environment variable `variable` (on any
/// subcommand) no longer reading it: an empty variable counts as unset.
fn without_env(mut command: clap::Command, variable: &str) -> clap::Command {
    let ids: Vec<clap::Id> = command
        .get_arguments()
        .filter(|arg| arg.get_env().is_some_and(|name| name == variable))
        .map(|arg| arg.get_id().clone())
        .collect();
    for id in ids {
        command = command.mut_arg(id, |arg| arg.env(None));
    }
    let names: Vec<String> = command
        .get_subcommands()
        .map(|subcommand| subcommand.get_name().to_owned())
        .collect();
    for name in names {
        command = command.mut_subcommand(name, |subcommand| without_env(subcommand, variable));
    }
    command
}

pub(crate) fn clap_color(
    args: &[OsString],
    env: &dyn Fn(&str) -> Option<OsString>,
) -> clap::ColorChoice {
    let mut chosen = None;
    let mut words = args.iter().skip(1).map(|arg| arg.to_string_lossy());
    while let Some(word) = words.next() {
        if word == "--" {
            break;
        }
        let value = match word.strip_prefix("--color") {
            Some("") => words.next().map(|value| value.into_owned()),
            Some(rest) => rest.strip_prefix('=').map(str::to_owned),
            None => None,
        };
        if let Some(value) = value {
            chosen = Some(value);
        }
    }
    match chosen.as_deref() {
        Some("always") => clap::ColorChoice::Always,
        Some("never") => clap::ColorChoice::Never,
        _ if env("NO_COLOR").is_some_and(|value| !value.is_empty()) => clap::ColorChoice::Never,
        _ => clap::ColorChoice::Auto,
    }
}

/// clap suggests hidden subcommands too ("a similar subcommand exists: 'claude-sdk'"); this
/// drops them from an error's suggestions.
fn without_hidden_suggestions(command: &clap::Command, mut error: clap::Error) -> clap::Error {
    use clap::error::{ContextKind, ContextValue};
    let hidden: Vec<&str> = command
        .get_subcommands()
        .filter(|subcommand| subcommand.is_hide_set())
        .map(clap::Command::get_name)
        .collect();
    if let Some(ContextValue::Strings(names)) = error.get(ContextKind::SuggestedSubcommand) {
        let visible: Vec<String> = names
            .iter()
            .filter(|name| !hidden.contains(&name.as_str()))
            .cloned()
            .collect();
        if visible.is_empty() {
            error.remove(ContextKind::SuggestedSubcommand);
            // An empty list of other tips would still leave its blank line.
            if matches!(
                error.get(ContextKind::Suggested),
                Some(ContextValue::StyledStrs(tips)) if tips.is_empty()
            ) {
                error.remove(ContextKind::Suggested);
            }
        } else {
            error.insert(
                ContextKind::SuggestedSubcommand,
                ContextValue::Strings(visible),
            );
        }
    }
    error
}

/// `command` with every flag that takes a value taking one that starts with a minus and a
/// digit: `--timeout -5` then gets the flag's own "not a number of seconds" instead of clap's
/// "unexpected argument '-5'" and its tip to pass `-- -5`, which would make it the prompt.
fn values_may_be_negative(command: clap::Command) -> clap::Command {
    // mut_args and mut_subcommands keep the order (mut_arg would move each to the end, and the
    // help would list its heading last).
    command
        .mut_args(|arg| {
            if arg.get_action().takes_values() && !arg.is_positional() {
                arg.allow_negative_numbers(true)
            } else {
                arg
            }
        })
        .mut_subcommands(values_may_be_negative)
}

/// `resume --last nosuch x`: with `--last` the one argument is the prompt, so clap sees a
/// second prompt and says "'--last' cannot be used with '[PROMPT]'". The real conflict is a
/// SESSION given with `--last`; this says so.
fn last_with_session(command: &mut clap::Command, error: clap::Error) -> clap::Error {
    use clap::error::{ContextKind, ContextValue};
    let names = |kind| match error.get(kind) {
        Some(ContextValue::String(name)) => vec![name.clone()],
        Some(ContextValue::Strings(names)) => names.clone(),
        _ => Vec::new(),
    };
    let (invalid, prior) = (names(ContextKind::InvalidArg), names(ContextKind::PriorArg));
    let pair = |one: &str, other: &str| {
        invalid.iter().any(|name| name.starts_with(one))
            && prior.iter().any(|name| name.starts_with(other))
    };
    if error.kind() != ErrorKind::ArgumentConflict
        || !(pair("--last", "[PROMPT]") || pair("[PROMPT]", "--last"))
    {
        return error;
    }
    let Some(resume) = command.find_subcommand_mut("resume") else {
        return error;
    };
    resume.error(
        ErrorKind::ArgumentConflict,
        "the argument '--last' cannot be used with '<SESSION>': with --last the only argument \
         is the prompt; give either --last or a SESSION",
    )
}

/// clap counts a flag read from its environment variable as given, so the usage line under an
/// error showed `--home <DIR>` because `PINCER_HOME` is set. This takes every such flag the
/// command line does not name out of the usage line.
fn without_env_flags_in_usage(
    command: &clap::Command,
    args: &[OsString],
    mut error: clap::Error,
) -> clap::Error {
    use clap::error::{ContextKind, ContextValue};
    let Some(ContextValue::StyledStr(usage)) = error.get(ContextKind::Usage) else {
        return error;
    };
    let original = usage.to_string();
    let mut text = original.clone();
    let given = |long: &str| {
        args.iter().any(|arg| {
            let arg = arg.to_string_lossy();
            arg == format!("--{long}") || arg.starts_with(&format!("--{long}="))
        })
    };
    let mut pending = vec![command];
    while let Some(level) = pending.pop() {
        pending.extend(level.get_subcommands());
        for arg in level.get_arguments().filter(|arg| arg.get_env().is_some()) {
            let Some(long) = arg.get_long() else { continue };
            if given(long) {
                continue;
            }
            let shown = match arg.get_value_names() {
                Some([value, ..]) => format!(" --{long} <{value}>"),
                _ => format!(" --{long}"),
            };
            text = text.replace(&shown, "");
        }
    }
    if text != original {
        error.insert(ContextKind::Usage, ContextValue::StyledStr(text.into()));
    }
    error
}

/// Pushes the global flags given on each command level of `args`, outermost first, by parsing
/// each level on its own: a level with subcommands parses its own flags and takes what follows
/// as an opaque external subcommand. `command` must be built (globals propagated).
/// Returns false when some level does not parse alone; the caller then keeps clap's result.
fn collect_global_levels(
    command: &clap::Command,
    args: Vec<OsString>,
    levels: &mut Vec<GlobalArgs>,
) -> bool {
    if !command.has_subcommands() {
        let Ok(matches) = command.clone().try_get_matches_from(args) else {
            return false;
        };
        let Ok(global) = GlobalArgs::from_arg_matches(&matches) else {
            return false;
        };
        levels.push(global);
        return true;
    }

    let level = clap::Command::new("pincer-level")
        .disable_help_flag(true)
        .disable_version_flag(true)
        .allow_external_subcommands(true)
        .external_subcommand_value_parser(clap::value_parser!(OsString))
        .args(
            command
                .get_arguments()
                .filter(|argument| !is_help_or_version(argument))
                .cloned(),
        );
    let Ok(matches) = level.try_get_matches_from(args) else {
        return false;
    };
    let Ok(global) = GlobalArgs::from_arg_matches(&matches) else {
        return false;
    };
    levels.push(global);

    let Some((name, rest)) = matches.subcommand() else {
        return true;
    };
    let Some(subcommand) = command.find_subcommand(name) else {
        return false;
    };
    let mut sub_args = vec![OsString::from(name)];
    sub_args.extend(rest.get_many::<OsString>("").into_iter().flatten().cloned());
    collect_global_levels(subcommand, sub_args, levels)
}

fn is_help_or_version(argument: &clap::Arg) -> bool {
    matches!(
        argument.get_action(),
        ArgAction::Help | ArgAction::HelpShort | ArgAction::HelpLong | ArgAction::Version
    )
}

impl GlobalArgs {
    /// How much goes to stderr: the `-v` count, at least 2 with `--debug`.
    pub fn verbosity(&self) -> u8 {
        if self.debug.is_some() {
            self.verbose.max(2)
        } else {
            self.verbose
        }
    }

    /// The output format in effect: `--json` means json, else `--output-format`, else text.
    pub fn effective_output_format(&self) -> OutputFormat {
        if self.json {
            OutputFormat::Json
        } else {
            self.output_format.unwrap_or(OutputFormat::Text)
        }
    }
}

/// What stdout carries (SPEC §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// The final answer as plain text.
    Text,
    /// One result object at the end, also on errors.
    Json,
    /// One JSON event per line as the run progresses, the result object last.
    StreamJson,
}

/// When to style stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// Color when stderr is a terminal and NO_COLOR is unset.
    Auto,
    /// Always color.
    Always,
    /// Never color.
    Never,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Start a new session and run one turn.
    #[command(after_help = RUN_EXAMPLES)]
    Run(RunArgs),

    /// Continue a session (by id, prefix, name, file or --last) and run one turn.
    #[command(after_help = RESUME_EXAMPLES)]
    Resume(ResumeArgs),

    /// Run one turn as `codex exec` does, for the Codex SDK (--json prints codex's events).
    #[command(after_help = EXEC_EXAMPLES)]
    Exec(ExecArgs),

    /// claude's command line as the Claude Agent SDK gives it (no subcommand, `--input-format
    /// stream-json`): `main` rewrites such a command line to this one.
    #[command(name = "claude-sdk", hide = true)]
    ClaudeSdk(ClaudeSdkArgs),

    /// Summarize the older part of a session now to free context.
    #[command(after_help = COMPACT_EXAMPLES)]
    Compact(CompactArgs),

    /// List, inspect, export, fork, rename, remove and repair sessions (default: list).
    #[command(after_help = SESSIONS_EXAMPLES)]
    Sessions(SessionsArgs),

    /// Show one session's state, or defaults, credentials and backends without one.
    #[command(after_help = STATUS_EXAMPLES)]
    Status(StatusArgs),

    /// Manage credential profiles (default: list); secrets are never printed.
    #[command(after_help = AUTH_EXAMPLES)]
    Auth(AuthArgs),

    /// Report what runs spent, from the usage ledger: totals, by day, model, session or tag.
    #[command(after_help = USAGE_EXAMPLES)]
    Usage(UsageArgs),

    /// Print a shell completion script to stdout.
    #[command(after_help = COMPLETIONS_EXAMPLES)]
    Completions(CompletionsArgs),
}

/// Flags of one turn, shared by `run` and `resume` (SPEC §1.2, §2).
#[derive(Debug, Clone, Args)]
pub struct TurnArgs {
    /// Model as provider/model (anthropic/claude-sonnet-4-5, claude-cli/sonnet) or an alias.
    #[arg(short, long, value_name = "REF")]
    pub model: Option<String>,

    /// Models to try in order when the primary one fails over; repeatable or comma-separated.
    #[arg(long, value_name = "REF", value_delimiter = ',')]
    pub fallback_model: Vec<String>,

    /// Reasoning level, mapped to each provider's setting (claude's `--effort max` is xhigh).
    #[arg(long, visible_alias = "effort", value_enum, value_name = "LEVEL")]
    pub thinking: Option<ThinkingLevel>,

    /// Thinking budget in tokens (claude's spelling): sent as is to Anthropic (at least 1024) and
    /// Gemini (within the model's range), as the nearest --thinking level elsewhere; 0 is off.
    #[arg(long, value_name = "N", conflicts_with = "thinking")]
    pub max_thinking_tokens: Option<u64>,

    /// Replace the whole built system prompt with TEXT.
    #[arg(
        long,
        value_name = "TEXT",
        conflicts_with = "system_prompt_file",
        help_heading = "System prompt"
    )]
    pub system_prompt: Option<String>,

    /// Replace the whole built system prompt with the contents of FILE.
    #[arg(
        long,
        value_name = "FILE",
        value_hint = ValueHint::FilePath,
        help_heading = "System prompt"
    )]
    pub system_prompt_file: Option<PathBuf>,

    /// Append TEXT to the system prompt for this turn; repeatable.
    #[arg(long, value_name = "TEXT", help_heading = "System prompt")]
    pub append_system_prompt: Vec<String>,

    /// Append the contents of FILE to the system prompt for this turn; repeatable.
    #[arg(
        long,
        value_name = "FILE",
        value_hint = ValueHint::FilePath,
        help_heading = "System prompt"
    )]
    pub append_system_prompt_file: Vec<PathBuf>,

    /// How much of the built system prompt to send.
    #[arg(long, value_enum, value_name = "MODE", help_heading = "System prompt")]
    pub prompt_mode: Option<PromptMode>,

    /// Leave out workspace files such as AGENTS.md and MEMORY.md.
    #[arg(long, help_heading = "System prompt")]
    pub no_context_files: bool,

    /// List the skill at PATH (a skill directory, its SKILL.md, or a directory of skills) in the
    /// prompt, after the discovered ones (a later name shadows an earlier one); repeatable.
    #[arg(
        long,
        value_name = "PATH",
        value_hint = ValueHint::AnyPath,
        help_heading = "System prompt"
    )]
    pub skill: Vec<PathBuf>,

    /// Do not discover skills in <config>/skills, .pincer/skills, .agents/skills or
    /// skills.paths (--skill paths still load).
    #[arg(long, help_heading = "System prompt")]
    pub no_skills: bool,

    /// Offer exactly these tools, comma-separated ("" offers none).
    #[arg(long, value_name = "LIST", help_heading = "Tools and permissions")]
    pub tools: Option<String>,

    /// Allow tool calls matching PATTERN, e.g. group:fs or "exec(git *)" (plain commands only);
    /// repeatable.
    #[arg(
        long,
        value_name = "PATTERN",
        alias = "allowedTools",
        help_heading = "Tools and permissions"
    )]
    pub allowed_tools: Vec<String>,

    /// Deny tool calls matching PATTERN (deny wins over allow); repeatable.
    #[arg(
        long,
        value_name = "PATTERN",
        alias = "disallowedTools",
        help_heading = "Tools and permissions"
    )]
    pub disallowed_tools: Vec<String>,

    #[command(flatten)]
    pub mcp: McpArgs,

    /// Run the hooks of FILE, or of the JSON given inline (Claude Code's settings format,
    /// {"hooks": {"PreToolUse": […]}}, e.g. .claude/settings.json); repeatable, added to
    /// config.toml's [[hooks.EVENT]].
    #[arg(long, value_name = "FILE|JSON", help_heading = "Hooks")]
    pub settings: Vec<String>,

    /// With stream-json, also emit system/hook_started and system/hook_response lines for every
    /// hook run.
    #[arg(long, help_heading = "Hooks")]
    pub include_hook_events: bool,

    /// What tools may touch on disk (default from config, else workspace-write).
    #[arg(
        short = 's',
        long,
        value_enum,
        value_name = "MODE",
        conflicts_with_all = ["dangerously_skip_permissions", "permission_mode", "full_auto"],
        help_heading = "Tools and permissions"
    )]
    pub sandbox: Option<SandboxMode>,

    /// Same as --sandbox danger-full-access: no confinement at all.
    #[arg(
        long,
        visible_alias = "dangerously-bypass-approvals-and-sandbox",
        conflicts_with_all = ["permission_mode", "full_auto"],
        help_heading = "Tools and permissions"
    )]
    pub dangerously_skip_permissions: bool,

    /// Same as --sandbox workspace-write (codex's spelling): edits in the workspace, never asks.
    #[arg(
        long,
        conflicts_with = "permission_mode",
        help_heading = "Tools and permissions"
    )]
    pub full_auto: bool,

    /// Claude-style permission mode, mapped to a sandbox mode.
    #[arg(
        long,
        value_enum,
        value_name = "MODE",
        help_heading = "Tools and permissions"
    )]
    pub permission_mode: Option<PermissionMode>,

    /// Let commands reach the network (default: off in read-only and workspace-write, only a
    /// loopback of their own; config [sandbox] network = true).
    #[arg(long, help_heading = "Tools and permissions")]
    pub allow_network: bool,

    /// Let commands reach the hosts PATTERN names, and nothing else, through pincer's egress
    /// proxy: a name (registry.npmjs.org), *.domain, host:port, localhost:PORT, an address or
    /// network, or a preset (@npm, @pypi, @crates, @go, @debian); repeatable, adds to config
    /// [sandbox.network] allow. --allow-network opens the whole network instead.
    #[arg(
        long,
        value_name = "PATTERN",
        value_parser = crate::egress::allow_host_pattern,
        help_heading = "Tools and permissions"
    )]
    pub allow_host: Vec<String>,

    /// Give the tools DIR as an extra root, confined and protected like the workspace (writable
    /// by commands in workspace-write); repeatable, adds to config tools.add_dirs, this turn only.
    #[arg(
        long,
        value_name = "DIR",
        value_hint = ValueHint::DirPath,
        help_heading = "Tools and permissions"
    )]
    pub add_dir: Vec<PathBuf>,

    /// Let the model search the web with the provider's own search tool (Anthropic, OpenAI
    /// Responses, Gemini grounding; claude's WebSearch, codex's web_search); like config
    /// tools.web_search. Exit 2 when the model cannot search. With the network closed an API
    /// model's search is off, with a warning: --allow-host the provider's host, or
    /// --allow-network.
    #[arg(long, help_heading = "Tools and permissions")]
    pub web_search: bool,

    /// Stop after N model round-trips (exit 5).
    #[arg(
        long,
        value_name = "N",
        value_parser = clap::value_parser!(u32).range(1..),
        help_heading = "Limits"
    )]
    pub max_turns: Option<u32>,

    /// Stop once this run has spent more than X US dollars (exit 5).
    #[arg(long, value_name = "X", value_parser = parse_amount, help_heading = "Limits")]
    pub max_budget_usd: Option<f64>,

    /// Give up SECS after the start, whatever the run is doing — reading stdin, waiting for any
    /// lock, the model, tools (exit 124).
    #[arg(long, value_name = "SECS", value_parser = parse_seconds, help_heading = "Limits")]
    pub timeout: Option<f64>,

    /// Give up when the provider or child process stays silent for SECS.
    #[arg(long, value_name = "SECS", value_parser = parse_seconds, help_heading = "Limits")]
    pub idle_timeout: Option<f64>,

    /// Attach an image file to the prompt; repeatable.
    #[arg(short, long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub image: Vec<PathBuf>,

    /// Keep nothing on disk: no session file, no index entry.
    #[arg(long, visible_alias = "ephemeral", help_heading = "Session and output")]
    pub no_session_persistence: bool,

    /// With stream-json, also emit stream_event lines: Anthropic's raw stream events
    /// (message_start, content_block_delta with text_delta, …) as claude does, for every model.
    #[arg(long, help_heading = "Session and output")]
    pub include_partial_messages: bool,

    /// Also write the final answer to FILE.
    #[arg(
        short,
        long,
        value_name = "FILE",
        value_hint = ValueHint::FilePath,
        help_heading = "Session and output"
    )]
    pub output_last_message: Option<PathBuf>,

    /// Also write stream-json events to FILE, whatever stdout's format.
    #[arg(
        long,
        value_name = "FILE",
        value_hint = ValueHint::FilePath,
        help_heading = "Session and output"
    )]
    pub events_file: Option<PathBuf>,

    /// Run a cron heartbeat turn: act on HEARTBEAT.md, print nothing when all is well.
    #[arg(long, help_heading = "Session and output")]
    pub heartbeat: bool,

    /// Read the context files, skills and .mcp.json that an earlier run's commands or tools
    /// created or changed here (held back until approved, or changed by you).
    #[arg(long, help_heading = "Session and output")]
    pub approve_workspace_files: bool,

    /// Hold the final answer to a JSON Schema (inline JSON or @FILE): validated, sent back
    /// with the errors when invalid, printed as `structured_output`.
    #[arg(
        long,
        value_name = "SCHEMA|@FILE",
        conflicts_with = "output_schema",
        help_heading = "Session and output"
    )]
    pub json_schema: Option<String>,

    /// Hold the final answer to the JSON Schema in FILE (codex's spelling of --json-schema
    /// @FILE).
    #[arg(
        long,
        value_name = "FILE",
        value_hint = ValueHint::FilePath,
        help_heading = "Session and output"
    )]
    pub output_schema: Option<PathBuf>,

    /// Print what would be sent (model, prompt, tools, messages) and exit 0 without calling it.
    #[arg(long)]
    pub dry_run: bool,

    /// Use only the credential profile ID.
    #[arg(long, value_name = "ID")]
    pub auth_profile: Option<String>,

    /// Label this run's line in the usage ledger, for `pincer usage --by tag`.
    #[arg(long, value_name = "TAG", value_parser = parse_tag, help_heading = "Session and output")]
    pub tag: Option<String>,

    /// Accepted for codex compatibility and ignored: pincer never requires a git repository.
    #[arg(long, help_heading = "Compatibility")]
    pub skip_git_repo_check: bool,

    /// Accepted for codex compatibility and ignored: unknown config keys are always an error.
    #[arg(long, help_heading = "Compatibility")]
    pub strict_config: bool,

    /// Never read stdin, even when it is a pipe.
    #[arg(long, conflicts_with_all = ["stdin_timeout", "lossy_stdin"], help_heading = "Input")]
    pub no_stdin: bool,

    /// Wait at most SECS for stdin's first byte (default 0.5 with a prompt, 5 without; 0 = no
    /// limit). A file, or a pipe written by another command of the pipeline, is always read whole.
    #[arg(long, value_name = "SECS", value_parser = parse_seconds, help_heading = "Input")]
    pub stdin_timeout: Option<f64>,

    /// Replace invalid UTF-8 on stdin with U+FFFD and warn, instead of exiting 2.
    #[arg(long, help_heading = "Input")]
    pub lossy_stdin: bool,

    #[command(flatten)]
    pub cassette: CassetteArgs,
}

/// Recording and replaying model exchanges (SPEC §15), on every command that calls a model.
#[derive(Debug, Clone, Default, Args)]
pub struct CassetteArgs {
    /// Append every model exchange of this run (HTTP request and response, or a CLI child's
    /// output) to the cassette FILE, created when missing; keys are never written.
    #[arg(
        long,
        env = "PINCER_RECORD",
        value_name = "FILE",
        value_hint = ValueHint::FilePath,
        conflicts_with = "replay",
        help_heading = "Record and replay"
    )]
    pub record: Option<PathBuf>,

    /// Answer every model request from the cassette FILE: no network, no CLI child, no key;
    /// a request the cassette has no answer for ends the run (exit 2) with a diff on stderr.
    #[arg(
        long,
        env = "PINCER_REPLAY",
        value_name = "FILE",
        value_hint = ValueHint::FilePath,
        help_heading = "Record and replay"
    )]
    pub replay: Option<PathBuf>,

    /// With --replay: stream at the recorded pace instead of as fast as possible.
    #[arg(long, requires = "replay", help_heading = "Record and replay")]
    pub replay_pace: bool,

    /// With --replay: pair requests by content with dates, ids and paths masked (strict), or
    /// take the recorded interactions in order (lenient).
    #[arg(
        long,
        value_enum,
        value_name = "MODE",
        default_value_t = ReplayMode::Strict,
        requires = "replay",
        help_heading = "Record and replay"
    )]
    pub replay_mode: ReplayMode,
}

/// The hidden `claude-sdk` command: `run`'s flags and the SDK's own.
#[derive(Debug, Clone, Args)]
pub struct ClaudeSdkArgs {
    /// `stdio`: ask the SDK's `can_use_tool` where claude would ask (SPEC §16).
    #[arg(long, hide = true, value_name = "TOOL")]
    pub permission_prompt_tool: Option<String>,

    #[command(flatten)]
    pub run: RunArgs,
}

#[derive(Debug, Clone, Args)]
#[command(group(ArgGroup::new("continued").args(["resume", "continue_last"])))]
pub struct RunArgs {
    /// The prompt; `-` or leaving it out reads the prompt from stdin.
    #[arg(value_name = "PROMPT")]
    pub prompt: Option<String>,

    /// Give the new session this id instead of a generated one (with -r/--continue, the forked
    /// session's; needs --fork-session).
    #[arg(long, value_name = "UUID")]
    pub session_id: Option<String>,

    /// Give the new session a unique NAME, for `pincer resume NAME`.
    #[arg(short = 'n', long, value_name = "NAME")]
    pub name: Option<String>,

    /// A retried step's key: the session is named KEY (created, or continued if it exists),
    /// and a retry whose turn for KEY was already saved prints that turn's result again
    /// without calling the model.
    #[arg(
        long,
        value_name = "KEY",
        conflicts_with_all = ["name", "continued"]
    )]
    pub idempotency_key: Option<String>,

    /// Continue SESSION instead of starting one, like `pincer resume SESSION` (claude's
    /// -r/--resume).
    #[arg(
        short = 'r',
        long,
        value_name = "SESSION",
        help_heading = "Continuing (claude -p spellings)"
    )]
    pub resume: Option<String>,

    /// Continue the newest session of this workspace, like `pincer resume --last` (claude's
    /// --continue; long only: -c is --config).
    #[arg(
        long = "continue",
        id = "continue_last",
        help_heading = "Continuing (claude -p spellings)"
    )]
    pub continue_last: bool,

    /// With -r or --continue: continue in a new session holding a copy, like `resume --fork`.
    #[arg(
        long,
        requires = "continued",
        help_heading = "Continuing (claude -p spellings)"
    )]
    pub fork_session: bool,

    #[command(flatten)]
    pub turn: TurnArgs,
}

#[derive(Debug, Clone, Args)]
pub struct ResumeArgs {
    /// Session id, unique id prefix, name or file; with --last, this is the prompt instead.
    #[arg(value_name = "SESSION", required_unless_present = "last")]
    pub session: Option<String>,

    /// The prompt; `-` or leaving it out reads the prompt from stdin.
    #[arg(value_name = "PROMPT")]
    pub prompt: Option<String>,

    /// Continue the most recently updated session of this workspace; the only argument is then
    /// the prompt.
    #[arg(long, visible_alias = "continue", conflicts_with = "prompt")]
    pub last: bool,

    /// With --last, consider sessions of every directory.
    #[arg(long, requires = "last")]
    pub all: bool,

    /// Continue in a new session file holding a copy of the current branch.
    #[arg(long, visible_alias = "fork-session", conflicts_with = "create")]
    pub fork: bool,

    /// Create the session named SESSION when none has that name yet; of overlapping creators one
    /// creates it and the others continue it (waiting under --wait, else exit 75).
    #[arg(long, requires = "session", conflicts_with_all = ["last", "name"])]
    pub create: bool,

    /// Rename the session to NAME.
    #[arg(short = 'n', long, value_name = "NAME")]
    pub name: Option<String>,

    /// With --fork or --create: the id (a UUID) of the session made.
    #[arg(long, value_name = "UUID")]
    pub session_id: Option<String>,

    #[command(flatten)]
    pub turn: TurnArgs,
}

/// `pincer exec`: codex exec's command line (SPEC §16). Global flags keep their meaning
/// (`--cd`, `-c`/`--config`, `--color`), except `--json`, which prints codex's JSONL here.
#[derive(Debug, Clone, Args)]
pub struct ExecArgs {
    /// The prompt; `-` or leaving it out reads the prompt from stdin.
    #[arg(value_name = "PROMPT")]
    pub prompt: Option<String>,

    /// Print codex's JSONL events (thread.started, item.*, turn.completed or turn.failed), as
    /// --json does under exec.
    #[arg(long, help_heading = "Session and output")]
    pub experimental_json: bool,

    /// Accepted for the Codex SDK and ignored with a warning (codex's thread classification).
    #[arg(long, value_name = "SOURCE", help_heading = "Compatibility")]
    pub thread_source: Option<String>,

    /// Accepted for the Codex SDK and ignored with a warning (an OpenAI account program).
    #[arg(long, value_name = "PROGRAM", help_heading = "Compatibility")]
    pub cyber_access_program: Option<String>,

    #[command(flatten)]
    pub turn: TurnArgs,

    #[command(subcommand)]
    pub command: Option<ExecCommand>,
}

/// What follows `exec`'s flags.
#[derive(Debug, Clone, Subcommand)]
pub enum ExecCommand {
    /// Continue a thread (the session id thread.started printed, or a prefix, name or file).
    #[command(after_help = EXEC_RESUME_EXAMPLES)]
    Resume(ExecResumeArgs),
}

/// `pincer exec … resume THREAD_ID [PROMPT]`.
#[derive(Debug, Clone, Args)]
pub struct ExecResumeArgs {
    /// The thread to continue: a session id, unique id prefix, name or file.
    #[arg(value_name = "THREAD_ID", required_unless_present = "last")]
    pub session: Option<String>,

    /// The prompt; `-` or leaving it out reads the prompt from stdin.
    #[arg(value_name = "PROMPT")]
    pub prompt: Option<String>,

    /// Continue the most recently updated session of this workspace; the only argument is then
    /// the prompt.
    #[arg(long, conflicts_with = "prompt")]
    pub last: bool,

    /// Attach an image file to the prompt; repeatable (the Codex SDK puts it after the id).
    #[arg(short, long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub image: Vec<PathBuf>,
}

impl RunArgs {
    /// The `resume` this run means when it continues a session (`-r SESSION` or `--continue`,
    /// claude's spellings), else `None`.
    pub fn as_resume(&self) -> Option<ResumeArgs> {
        if self.resume.is_none() && !self.continue_last {
            return None;
        }
        Some(ResumeArgs {
            session: self.resume.clone(),
            prompt: self.prompt.clone(),
            last: self.continue_last,
            all: false,
            fork: self.fork_session,
            create: false,
            name: self.name.clone(),
            session_id: self.session_id.clone(),
            turn: self.turn.clone(),
        })
    }
}

impl ResumeArgs {
    /// The session reference and prompt as the user meant them: with `--last` there is no session
    /// argument, so the single positional value clap put in `session` is the prompt.
    pub fn session_and_prompt(&self) -> (Option<&str>, Option<&str>) {
        if self.last {
            (None, self.session.as_deref().or(self.prompt.as_deref()))
        } else {
            (self.session.as_deref(), self.prompt.as_deref())
        }
    }
}

#[derive(Debug, Clone, Args)]
pub struct CompactArgs {
    /// Session id, unique id prefix, name or file.
    #[arg(value_name = "SESSION", required_unless_present = "last")]
    pub session: Option<String>,

    /// Compact the most recently updated session of this workspace.
    #[arg(long, visible_alias = "continue", conflicts_with = "session")]
    pub last: bool,

    /// With --last, consider sessions of every directory.
    #[arg(long, requires = "last")]
    pub all: bool,

    /// Tell the summarizer what to focus on.
    #[arg(long, value_name = "TEXT")]
    pub instructions: Option<String>,

    /// Keep at least N tokens of the newest messages verbatim.
    #[arg(long, value_name = "N")]
    pub keep_recent_tokens: Option<u64>,

    /// Model that writes the summary (default: the session's model).
    #[arg(short, long, value_name = "REF")]
    pub model: Option<String>,

    /// Show the cut point and token estimates; change nothing.
    #[arg(long)]
    pub dry_run: bool,

    #[command(flatten)]
    pub cassette: CassetteArgs,
}

#[derive(Debug, Clone, Args)]
pub struct SessionsArgs {
    #[command(subcommand)]
    pub command: Option<SessionsCommand>,

    /// Flags of the default `list`; only without a subcommand (checked in `try_parse_args`).
    #[command(flatten)]
    pub list: SessionsListArgs,
}

#[derive(Debug, Clone, Subcommand)]
pub enum SessionsCommand {
    /// List sessions, newest first (the default); with --store, the store's.
    #[command(after_help = SESSIONS_LIST_EXAMPLES)]
    List(SessionsListArgs),

    /// Print a session's transcript; with --store, the store's copy.
    #[command(after_help = SESSIONS_SHOW_EXAMPLES)]
    Show(SessionsShowArgs),

    /// Write a session out as markdown, JSON or the raw JSONL; with --store, the store's copy.
    #[command(after_help = SESSIONS_EXPORT_EXAMPLES)]
    Export(SessionsExportArgs),

    /// Copy a session (up to an entry) into a new session.
    #[command(after_help = SESSIONS_FORK_EXAMPLES)]
    Fork(SessionsForkArgs),

    /// Give a session a new unique name.
    #[command(after_help = SESSIONS_RENAME_EXAMPLES)]
    Rename(SessionsRenameArgs),

    /// Delete sessions; with --store, from the store, under each one's lease.
    #[command(after_help = SESSIONS_RM_EXAMPLES)]
    Rm(SessionsRmArgs),

    /// Delete sessions not updated for a while; with --store, the store's.
    #[command(after_help = SESSIONS_PRUNE_EXAMPLES)]
    Prune(SessionsPruneArgs),

    /// Print the path of a session's file.
    #[command(after_help = SESSIONS_PATH_EXAMPLES)]
    Path(SessionsPathArgs),

    /// Copy local sessions into the session store (--store); one already there is skipped.
    #[command(after_help = SESSIONS_PUSH_EXAMPLES)]
    Push(SessionsPushArgs),

    /// Write the local copy of a session of the session store (--store) and print its path.
    #[command(after_help = SESSIONS_PULL_EXAMPLES)]
    Pull(SessionsPullArgs),

    /// Fix a corrupt session file, moving unreadable lines to a side file.
    #[command(after_help = SESSIONS_REPAIR_EXAMPLES)]
    Repair(SessionsRepairArgs),
}

#[derive(Debug, Clone, Default, PartialEq, Args)]
pub struct SessionsListArgs {
    /// Include sessions of every directory, not only this workspace.
    #[arg(long, conflicts_with = "cwd")]
    pub all: bool,

    /// List the sessions of DIR instead of this workspace.
    #[arg(long, value_name = "DIR", value_hint = ValueHint::DirPath)]
    pub cwd: Option<PathBuf>,

    /// Show at most N sessions.
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,

    /// Only sessions whose name matches GLOB, e.g. 'ci-*'.
    #[arg(long, value_name = "GLOB")]
    pub name: Option<String>,
}

#[derive(Debug, Clone, Args)]
pub struct SessionsShowArgs {
    /// Session id, unique id prefix, name or file.
    #[arg(value_name = "SESSION")]
    pub session: String,

    /// Show every branch of the session tree, not only the current one.
    #[arg(long)]
    pub tree: bool,
}

#[derive(Debug, Clone, Args)]
pub struct SessionsExportArgs {
    /// Session id, unique id prefix, name or file.
    #[arg(value_name = "SESSION")]
    pub session: String,

    /// Export format.
    #[arg(long, value_enum, default_value_t = ExportFormat::Markdown, value_name = "FORMAT")]
    pub format: ExportFormat,

    /// Write to FILE instead of stdout.
    #[arg(short, long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub output: Option<PathBuf>,
}

/// Formats of `sessions export`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// A readable transcript.
    Markdown,
    /// One JSON document with the header and all entries.
    Json,
    /// The session file's own lines.
    Jsonl,
}

#[derive(Debug, Clone, Args)]
pub struct SessionsForkArgs {
    /// Session id, unique id prefix, name or file.
    #[arg(value_name = "SESSION")]
    pub session: String,

    /// Fork at entry ID instead of the current leaf.
    #[arg(long, value_name = "ENTRY")]
    pub at: Option<String>,

    /// Name the new session.
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
}

#[derive(Debug, Clone, Args)]
pub struct SessionsRenameArgs {
    /// Session id, unique id prefix, name or file.
    #[arg(value_name = "SESSION")]
    pub session: String,

    /// The new unique name.
    #[arg(value_name = "NAME")]
    pub name: String,
}

#[derive(Debug, Clone, Args)]
pub struct SessionsRmArgs {
    /// Sessions to delete: ids, unique id prefixes, names or files.
    #[arg(value_name = "SESSION", required = true, num_args = 1..)]
    pub sessions: Vec<String>,

    /// Delete even when a run holds the session's lock.
    #[arg(short, long)]
    pub force: bool,
}

#[derive(Debug, Clone, Args)]
pub struct SessionsPruneArgs {
    /// Delete sessions not updated for DURATION, e.g. 30d, 12h, 90m.
    #[arg(long, value_name = "DURATION", required = true)]
    pub older_than: String,

    /// List what would be deleted; delete nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// Prune sessions of every directory, not only this workspace.
    #[arg(long, conflicts_with = "cwd")]
    pub all: bool,

    /// Prune the sessions of DIR instead of this workspace.
    #[arg(long, value_name = "DIR", value_hint = ValueHint::DirPath)]
    pub cwd: Option<PathBuf>,
}

#[derive(Debug, Clone, Args)]
pub struct SessionsPathArgs {
    /// Session id, unique id prefix, name or file.
    #[arg(value_name = "SESSION")]
    pub session: String,
}

#[derive(Debug, Clone, Args)]
pub struct SessionsPushArgs {
    /// Local sessions to copy: ids, unique id prefixes, names or files.
    #[arg(
        value_name = "SESSION",
        required_unless_present = "all",
        conflicts_with = "all"
    )]
    pub sessions: Vec<String>,

    /// Copy every local session.
    #[arg(long)]
    pub all: bool,
}

#[derive(Debug, Clone, Args)]
pub struct SessionsPullArgs {
    /// A session of the store: its id, a unique id prefix, or its name.
    #[arg(value_name = "SESSION")]
    pub session: String,
}

#[derive(Debug, Clone, Args)]
pub struct SessionsRepairArgs {
    /// Session id, unique id prefix, name or file.
    #[arg(value_name = "SESSION")]
    pub session: String,

    /// Report what would be fixed; change nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// The MCP servers of a run (SPEC §13), shared by `run`, `resume` and `status --mcp`.
#[derive(Debug, Clone, Default, Args)]
pub struct McpArgs {
    /// Use the MCP servers of FILE, or of the JSON given inline (claude's {"mcpServers": {…}}
    /// format, e.g. a .mcp.json); repeatable, later files win.
    #[arg(long, value_name = "FILE|JSON", help_heading = "MCP servers")]
    pub mcp_config: Vec<String>,

    /// Use only the servers of --mcp-config, not those of config.toml or the workspace.
    #[arg(long, help_heading = "MCP servers")]
    pub strict_mcp_config: bool,

    /// Approve the servers of the workspace's .mcp.json as they are now ([mcp] load_workspace
    /// = true starts only approved ones; a new or changed server waits for this flag).
    #[arg(long, help_heading = "MCP servers")]
    pub approve_workspace_mcp: bool,
}

/// `pincer usage` (SPEC §18).
#[derive(Debug, Clone, Args)]
pub struct UsageArgs {
    /// Only runs that ended since WHEN: a duration back from now (7d, 24h, 2w, 90m) or an RFC
    /// 3339 date or time (2026-06-01 is its 00:00 UTC). Default: every run.
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,

    /// Add a row per UTC day, per provider/model, per session (name, else id) or per --tag.
    #[arg(long, value_enum, value_name = "KEY")]
    pub by: Option<UsageGroup>,
}

/// What `pincer usage --by` groups runs by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum UsageGroup {
    /// The UTC day the run ended.
    Day,
    /// provider/model.
    Model,
    /// The session's name, else its id.
    Session,
    /// The run's --tag.
    Tag,
}

#[derive(Debug, Clone, Args)]
pub struct StatusArgs {
    /// Session id, unique id prefix, name or file (leave out for the general status).
    #[arg(value_name = "SESSION")]
    pub session: Option<String>,

    /// Start each configured MCP server, list its tools and report failures with the server's
    /// stderr.
    #[arg(long, conflicts_with_all = ["session", "last"])]
    pub mcp: bool,

    #[command(flatten)]
    pub mcp_servers: McpArgs,

    /// Show the most recently updated session of this workspace.
    #[arg(long, visible_alias = "continue", conflicts_with = "session")]
    pub last: bool,

    /// With --last, consider sessions of every directory.
    #[arg(long, requires = "last")]
    pub all: bool,

    /// Probe the exec sandbox now, rather than reuse what a probe found earlier this boot
    /// while nothing it depends on has changed.
    #[arg(long, conflicts_with_all = ["session", "last", "mcp"])]
    pub fresh_probe: bool,
}

#[derive(Debug, Clone, Args)]
pub struct AuthArgs {
    #[command(subcommand)]
    pub command: Option<AuthCommand>,
}

#[derive(Debug, Clone, Subcommand)]
pub enum AuthCommand {
    /// List credential profiles (the default).
    #[command(after_help = AUTH_LIST_EXAMPLES)]
    List,

    /// Store a credential; the secret is read from stdin or a hidden prompt, never from argv.
    #[command(after_help = AUTH_ADD_EXAMPLES)]
    Add(AuthAddArgs),

    /// Delete a credential profile.
    #[command(after_help = AUTH_REMOVE_EXAMPLES)]
    Remove(AuthRemoveArgs),

    /// Show or set the order in which a provider's profiles are tried.
    #[command(after_help = AUTH_ORDER_EXAMPLES)]
    Order(AuthOrderArgs),

    /// Show each profile's type, source, last use, cooldown and failure counts.
    #[command(after_help = AUTH_STATUS_EXAMPLES)]
    Status,

    /// Clear cooldowns and failure counts, of one profile or all.
    #[command(after_help = AUTH_RESET_EXAMPLES)]
    Reset(AuthResetArgs),

    /// Send one minimal request and print the classified outcome.
    #[command(after_help = AUTH_TEST_EXAMPLES)]
    Test(AuthTestArgs),
}

#[derive(Debug, Clone, Args)]
pub struct AuthAddArgs {
    /// Provider the credential is for, e.g. anthropic, openai, google.
    #[arg(value_name = "PROVIDER")]
    pub provider: String,

    /// Profile name (default: derived from the provider).
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,

    /// Kind of credential.
    #[arg(long = "type", value_enum, default_value_t = CredentialType::ApiKey, value_name = "TYPE")]
    pub type_: CredentialType,

    /// Store a reference to environment variable VAR instead of a secret.
    #[arg(long, value_name = "VAR", conflicts_with = "command")]
    pub from_env: Option<String>,

    /// Store a command whose stdout is the secret, run when the secret is needed.
    #[arg(long, value_name = "CMD", value_hint = ValueHint::CommandString)]
    pub command: Option<String>,
}

/// Kinds of stored credentials.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CredentialType {
    /// A provider API key.
    #[value(name = "api_key")]
    ApiKey,
    /// A bearer or OAuth token.
    Token,
}

#[derive(Debug, Clone, Args)]
pub struct AuthRemoveArgs {
    /// Profile id to delete.
    #[arg(value_name = "ID")]
    pub id: String,
}

#[derive(Debug, Clone, Args)]
pub struct AuthOrderArgs {
    /// Provider whose order to show or set.
    #[arg(value_name = "PROVIDER")]
    pub provider: String,

    /// Profile ids in the order to try them; leave out to show the current order.
    #[arg(value_name = "ID")]
    pub ids: Vec<String>,
}

#[derive(Debug, Clone, Args)]
pub struct AuthResetArgs {
    /// Profile id to reset (default: every profile).
    #[arg(value_name = "ID")]
    pub id: Option<String>,
}

#[derive(Debug, Clone, Args)]
pub struct AuthTestArgs {
    /// Profile id or provider to test (default: every provider with credentials).
    #[arg(value_name = "ID|PROVIDER")]
    pub target: Option<String>,

    /// Model to send the test request to (default: the configured model when its provider
    /// matches, else the provider's smallest catalog model).
    #[arg(short = 'm', long, value_name = "REF")]
    pub model: Option<String>,

    #[command(flatten)]
    pub cassette: CassetteArgs,
}

#[derive(Debug, Clone, Args)]
pub struct CompletionsArgs {
    /// Shell to print the completion script for.
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: clap_complete::Shell,
}

/// Reasoning levels (`--thinking`), mapped per provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ThinkingLevel {
    /// No reasoning.
    Off,
    /// The least reasoning the model supports.
    Minimal,
    /// Little reasoning.
    Low,
    /// Moderate reasoning.
    Medium,
    /// Much reasoning.
    High,
    /// The most reasoning the model supports.
    #[value(alias = "max")]
    Xhigh,
}

/// How `--replay` pairs requests with recorded interactions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum ReplayMode {
    /// The first unused interaction whose request is the same once dates, ids, temporary
    /// paths, the workspace path and the runtime facts are masked.
    #[default]
    Strict,
    /// The next unused interaction in the file, whatever was asked.
    Lenient,
}

/// Sizes of the built system prompt (`--prompt-mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PromptMode {
    /// Every section and the workspace files.
    Full,
    /// Tools, safety rules and runtime facts only.
    Minimal,
    /// Only text the user supplies.
    None,
}

/// Sandbox modes (`--sandbox`, SPEC §10).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SandboxMode {
    /// No writes; exec only under OS read-only enforcement.
    ReadOnly,
    /// Writes confined to the workspace and the run's private temp directory.
    WorkspaceWrite,
    /// No confinement.
    DangerFullAccess,
}

/// Claude-style permission modes (`--permission-mode`), mapped to sandbox modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PermissionMode {
    /// Read-only: plan without changing anything.
    #[value(name = "plan")]
    Plan,
    /// Edits allowed inside the workspace.
    #[value(name = "acceptEdits")]
    AcceptEdits,
    /// No confinement, like --dangerously-skip-permissions.
    #[value(name = "bypassPermissions")]
    BypassPermissions,
    /// Deny what is not explicitly allowed.
    #[value(name = "dontAsk")]
    DontAsk,
    /// Work in the workspace without asking (claude's classifier mode; nothing asks headless).
    #[value(name = "auto")]
    Auto,
    /// The configured default sandbox.
    #[value(name = "default")]
    Default,
}

/// A flag's value of the wrong shape: what was expected, with an example, and what was given.
#[derive(Debug, thiserror::Error)]
#[error("expected {expected}, got `{given}`")]
pub(crate) struct BadValue {
    expected: &'static str,
    given: String,
}

impl BadValue {
    fn new(expected: &'static str, given: impl Into<String>) -> Self {
        Self {
            expected,
            given: given.into(),
        }
    }
}

/// Parses a number of seconds: finite and not negative.
fn parse_seconds(value: &str) -> Result<f64, BadValue> {
    match value.trim().parse::<f64>() {
        Ok(seconds) if seconds.is_finite() && seconds >= 0.0 => Ok(seconds),
        _ => Err(BadValue::new(
            "a number of seconds such as 30 or 0.5",
            value,
        )),
    }
}

/// Parses an amount of money: finite and not negative.
fn parse_amount(value: &str) -> Result<f64, BadValue> {
    match value.trim().parse::<f64>() {
        Ok(amount) if amount.is_finite() && amount >= 0.0 => Ok(amount),
        _ => Err(BadValue::new("an amount such as 0.50", value)),
    }
}

/// A `--tag`: 1 to 128 characters, none of them a control character.
fn parse_tag(value: &str) -> Result<String, BadValue> {
    if value.is_empty() || value.chars().count() > 128 || value.chars().any(char::is_control) {
        return Err(BadValue::new(
            "1 to 128 printable characters such as nightly-review",
            value.escape_debug().to_string(),
        ));
    }
    Ok(value.to_owned())
}

/// Checks the `KEY=VALUE` shape of a `-c` override; the value is parsed as TOML later.
fn parse_config_override(value: &str) -> Result<String, BadValue> {
    match value.split_once('=') {
        Some((key, _)) if !key.trim().is_empty() => Ok(value.to_owned()),
        _ => Err(BadValue::new(
            "KEY=VALUE, e.g. model=\"openai/gpt-5\"",
            value,
        )),
    }
}
