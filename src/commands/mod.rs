//! One file per subcommand. This is the only layer that sees clap types: it resolves settings,
//! wires the parts together, and turns every failure into a [`CliError`] with an exit code.

pub(crate) mod auth;
pub(crate) mod auth_test;
mod claude_sdk;
pub(crate) mod compact;
pub(crate) mod completions;
mod dry_run;
mod exec;
mod failure_hint;
mod hooks;
mod mcp;
mod request;
pub(crate) mod sessions;
mod sessions_store;
pub(crate) mod status;
pub(crate) mod turn;
pub(crate) mod usage;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::cli::{Cli, ColorChoice, Command, GlobalArgs, OutputFormat};
use crate::conversation::{ContextOccupancy, Prices};
pub(crate) use crate::error::config_error;
use crate::error::{CliError, CliResult, Exit};
pub(crate) use crate::error::{
    LOCAL_LOCKS_HINT, access_error, fork_error, resolve_error, session_error, user_file_error,
};
use crate::output::progress::Spinner;
use crate::output::{ColorMode, Diagnostics, Format};
use crate::plan::keys::KnownKeys;
pub(crate) use crate::plan::{discover_skills, retry_policy};
pub(crate) use crate::scope::runtime;
use crate::session::index::{self, Index};
use crate::session::learned_windows;
use crate::session::resolve;
use crate::session::store::TornRepair;
use crate::session::summary::SessionSummary;
use crate::settings::Settings;

/// What every command needs: settings, stderr, the output format, the workspace.
#[derive(Debug)]
pub struct Context {
    /// Resolved settings.
    pub settings: Settings,
    /// stderr.
    pub diagnostics: Diagnostics,
    /// stdout format.
    pub format: Format,
    /// The workspace directory (`-C`, else the current directory), absolute.
    pub workspace: PathBuf,
    /// How long to wait for a busy session (`--wait`).
    pub wait: Option<Duration>,
    /// When the process started.
    pub started: Instant,
    /// The auth store, read at most once ([`Context::auth_store`]).
    auth_store: OnceLock<CliResult<crate::auth::Store>>,
    /// What the run knows of keys, gathered at most once ([`Context::known_keys`]).
    known_keys: OnceLock<CliResult<KnownKeys>>,
}

impl Context {
    /// The sessions directory.
    pub fn sessions_dir(&self) -> &Path {
        &self.settings.paths.sessions_dir
    }

    /// The auth store as this process first read it: the credentials of every model of a run
    /// and what its child processes must not see come from this one read. A store readable by
    /// others is said once on stderr.
    pub(crate) fn auth_store(&self) -> CliResult<&crate::auth::Store> {
        self.auth_store
            .get_or_init(|| {
                let file = crate::auth::AuthFile::new(&self.settings.paths.auth_file);
                let store = file.load().map_err(auth::auth_error)?;
                if let Some(warning) = file.permission_warning() {
                    self.diagnostics.warn(&warning);
                }
                Ok(store)
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Every key variable and every key the run knows of without running a key command
    /// (`keys`). A store that cannot be read fails every command that starts a child process,
    /// as it fails every run that needs its credentials: the variables its profiles name would
    /// be unknown, so they could not be kept from the child.
    pub(crate) fn known_keys(&self) -> CliResult<&KnownKeys> {
        self.known_keys
            .get_or_init(|| {
                let store = self.auth_store()?;
                let names: Vec<String> = std::env::vars_os()
                    .filter_map(|(name, _)| name.into_string().ok())
                    .collect();
                Ok(KnownKeys::gather(
                    &self.settings,
                    store,
                    &names,
                    &crate::settings::process_env,
                ))
            })
            .as_ref()
            .map_err(Clone::clone)
    }
}

impl crate::plan::env::RunEnv for Context {
    fn settings(&self) -> &Settings {
        &self.settings
    }

    fn workspace(&self) -> &Path {
        &self.workspace
    }

    fn warn(&self, message: &str) {
        self.diagnostics.warn(message);
    }

    fn detail(&self, message: &str) {
        self.diagnostics.detail(message);
    }

    fn note(&self, message: &str) {
        if self.diagnostics.is_terminal() || self.diagnostics.verbosity() > 0 {
            self.diagnostics.info(message);
        }
    }

    fn warner(&self) -> crate::plan::env::Say {
        let diagnostics = self.diagnostics.clone();
        std::sync::Arc::new(move |message: &str| diagnostics.warn(message))
    }

    fn detailer(&self) -> Option<crate::plan::env::Say> {
        let diagnostics = self.diagnostics.clone();
        (diagnostics.verbosity() > 0).then(|| {
            std::sync::Arc::new(move |message: &str| diagnostics.detail(message))
                as crate::plan::env::Say
        })
    }

    fn auth_store(&self) -> CliResult<&crate::auth::Store> {
        Context::auth_store(self)
    }

    fn known_keys(&self) -> CliResult<&KnownKeys> {
        Context::known_keys(self)
    }
}

/// `pincer "fix the bug"` is how `claude` takes a prompt, and `pincer rnu` is a typo: clap calls
/// both an unrecognized subcommand. Running the first as a turn would make every mistyped
/// subcommand a paid model call, so it stays a usage error (exit 2) that names what to type: the
/// command it resembles, or the same line with `run` before the prompt.
fn not_a_command(arguments: &[OsString], error: clap::Error) -> clap::Error {
    use clap::CommandFactory;
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if error.kind() != ErrorKind::InvalidSubcommand {
        return error;
    }
    let Some(ContextValue::String(word)) = error.get(ContextKind::InvalidSubcommand) else {
        return error;
    };
    let mut command = Cli::command().color(crate::cli::clap_color(arguments, &|name| {
        std::env::var_os(name)
    }));
    let names: Vec<&str> = command
        .get_subcommands()
        .filter(|subcommand| !subcommand.is_hide_set())
        .flat_map(|subcommand| {
            std::iter::once(subcommand.get_name()).chain(subcommand.get_visible_aliases())
        })
        .collect();
    let all_names: Vec<&str> = command
        .get_subcommands()
        .flat_map(|subcommand| {
            std::iter::once(subcommand.get_name()).chain(subcommand.get_all_aliases())
        })
        .collect();
    let Some(at) = arguments
        .iter()
        .skip(1)
        .position(|argument| argument.to_string_lossy() == *word)
    else {
        return error;
    };
    let at = at + 1;
    // A word after a subcommand (`sessions lst`) is that subcommand's business: clap's message.
    if arguments[1..at]
        .iter()
        .any(|argument| all_names.contains(&argument.to_string_lossy().as_ref()))
    {
        return error;
    }
    let message = if let Some(meant) = crate::suggest::closest(word, names.iter().copied()) {
        format!("unrecognized subcommand '{word}'\nhint: did you mean `{meant}`?")
    } else {
        let prompt = crate::error::quote_prompt(word);
        let before = arguments[1..at]
            .iter()
            .map(|argument| crate::error::shell_quote(&argument.to_string_lossy()));
        let after = arguments[at + 1..]
            .iter()
            .map(|argument| crate::error::shell_quote(&argument.to_string_lossy()));
        let line: Vec<String> = std::iter::once("pincer".to_owned())
            .chain(before)
            .chain(["run".to_owned(), prompt])
            .chain(after)
            .collect();
        format!(
            "'{word}' is not a pincer command\nhint: to run it as a prompt, type: {}",
            line.join(" ")
        )
    };
    command.error(ErrorKind::InvalidSubcommand, message)
}

/// Parse arguments, run, and map the outcome to an exit code. The one exit point.
pub fn main_entry() -> ExitCode {
    // Started as the exec sandbox launcher (SPEC §10): it must act while the process is still
    // single-threaded, before anything else runs.
    if let Some(code) = crate::tools::launcher_exit() {
        return code;
    }
    // `COMPLETE=bash pincer …`: a shell asking for completions; answered, then exits.
    crate::docs::complete_from_env();
    let started = Instant::now();
    keep_memory_private();
    #[cfg(panic = "abort")]
    exit_on_panic();
    let arguments: Vec<OsString> = std::env::args_os().collect();
    if crate::cli::is_version_request(&arguments) {
        // As clap does: a closed stdout is not an error of `--version`.
        let _ = crate::output::Stdout::new().write(&crate::cli::version_text());
        return ExitCode::SUCCESS;
    }
    // The Claude Agent SDK's command line (no subcommand, --input-format stream-json).
    let (mut arguments, mut sdk_warnings, sdk) = match claude_sdk::translate(&arguments) {
        Some(translated) => (translated.args, translated.warnings, true),
        None => (arguments, Vec::new(), false),
    };
    // try_parse_args keeps global flags given at several levels (`-c a=1 run -c b=2`).
    let cli = loop {
        match Cli::try_parse_args(arguments.clone()) {
            Ok(cli) => break cli,
            // An SDK option pincer does not know is dropped with a warning, never exit 2.
            Err(error)
                if sdk && let Some(warning) = claude_sdk::drop_rejected(&mut arguments, &error) =>
            {
                sdk_warnings.push(warning);
            }
            Err(error) => {
                let error = not_a_command(&arguments, error);
                // clap prints help/version to stdout and usage errors to stderr, with exit 0 or 2.
                let code = error.exit_code();
                let _ = error.print();
                return ExitCode::from(u8::try_from(code).unwrap_or(2));
            }
        }
    };
    let diagnostics = Diagnostics::new(
        color_mode(cli.global.color),
        std::env::var_os("NO_COLOR").is_some_and(|value| !value.is_empty()),
        cli.global.quiet,
        cli.global.verbosity(),
    );
    for warning in &sdk_warnings {
        diagnostics.warn(warning);
    }
    let format = output_format(&cli.global);
    let codex_face = matches!(cli.command, Command::Exec(_));
    let outcome = run(cli, &diagnostics, format, started);
    // Whatever the way out, nothing a command started outlives the run (SPEC §10).
    crate::tools::finish_run();
    // Bounded: a collector that is down or slow costs the flush timeout (never past --timeout)
    // and a warning; a signal during the flush ends the process as it would have ended the run.
    let signalled = crate::telemetry::finish(&|message| diagnostics.warn(message));
    if codex_face && let Some(reason) = signalled.or_else(crate::scope::signal_received) {
        die_by(reason);
    }
    let exit = match outcome {
        Ok(exit) => exit,
        Err(error) => {
            diagnostics.error(&error);
            error.exit
        }
    };
    signalled.map_or(exit, crate::error::Exit::from).into()
}

/// End the process by the signal that reached it, as `codex exec` does (#47 item 16): its
/// callers (the Codex SDK, which then throws an `AbortError`) tell a killed child by how it
/// ended, not by an exit code of 130 or 143. The default action is restored and the signal
/// raised again; should the process survive it, the exit code says the same.
fn die_by(reason: crate::cancel::CancelReason) -> ! {
    let number = match reason {
        crate::cancel::CancelReason::Interrupt => signal_hook::consts::SIGINT,
        crate::cancel::CancelReason::Terminate => signal_hook::consts::SIGTERM,
        // Never recorded as a signal; the exit code below covers it.
        crate::cancel::CancelReason::Timeout | crate::cancel::CancelReason::Requested => {
            std::process::exit(i32::from(crate::error::Exit::from(reason).code()))
        }
    };
    let _ = signal_hook::low_level::emulate_default_handler(number);
    std::process::exit(i32::from(crate::error::Exit::from(reason).code()));
}

/// Before anything else runs (SPEC §10): no process of the same user — a command, an MCP server,
/// a CLI backend, anything they start — can read pincer's memory or environment through
/// `/proc/<pid>/` (`environ`, `mem`) or attach to it, and pincer never dumps core; its children
/// start with core dumps off too (the soft limit, which a command that wants one may raise for
/// itself). Each step is best effort: a system that refuses one still runs.
fn keep_memory_private() {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    let _ = nix::sys::prctl::set_dumpable(false);
    if let Ok((_, hard)) = getrlimit(Resource::RLIMIT_CORE) {
        let _ = setrlimit(Resource::RLIMIT_CORE, 0, hard);
    }
}

/// The distribution build does not unwind (`[profile.dist]` in Cargo.toml): a panic, which is a
/// bug, would end the process with SIGABRT. It ends it as a panic on the main thread of the
/// unwinding builds does instead: the panic's message on stderr, then exit 101. What a killed
/// run leaves (a torn last line, a lock file, a staged file) is what the next run repairs.
#[cfg(panic = "abort")]
fn exit_on_panic() {
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        report(info);
        let _ = std::io::Write::write_all(
            &mut std::io::stderr(),
            b"pincer: internal error (a bug): the run stops here; its session stays loadable\n",
        );
        std::process::exit(101);
    }));
}

fn color_mode(choice: ColorChoice) -> ColorMode {
    match choice {
        ColorChoice::Auto => ColorMode::Auto,
        ColorChoice::Always => ColorMode::Always,
        ColorChoice::Never => ColorMode::Never,
    }
}

fn output_format(global: &GlobalArgs) -> Format {
    match global.effective_output_format() {
        OutputFormat::Text => Format::Text,
        OutputFormat::Json => Format::Json,
        OutputFormat::StreamJson => Format::StreamJson,
    }
}

fn run(cli: Cli, diagnostics: &Diagnostics, format: Format, started: Instant) -> CliResult<Exit> {
    // Commands that need no configuration run before it is read, so they work with a broken one.
    match &cli.command {
        Command::Completions(args) => return completions::completions(args),
        // codex's flags and config keys become pincer's before the configuration is read.
        Command::Exec(args) => return exec::exec(&cli.global, args, diagnostics, started),
        _ => {}
    }
    let context = build_context(&cli.global, diagnostics.clone(), format, started);
    match cli.command {
        Command::Run(args) => turn::run(format, started, &context, &args),
        Command::ClaudeSdk(args) => claude_sdk::serve(format, &context, &args),
        Command::Resume(args) => turn::resume(format, started, &context, &args),
        Command::Compact(args) => compact::compact(format, started, &context, &args),
        Command::Sessions(args) => sessions::dispatch(&context?, args),
        Command::Status(args) => status::status(&context?, &args),
        Command::Auth(args) => auth::dispatch(&context?, args),
        Command::Usage(args) => usage::usage(&context?, &args),
        Command::Completions(_) | Command::Exec(_) => Ok(Exit::Success),
    }
}

fn build_context(
    global: &GlobalArgs,
    diagnostics: Diagnostics,
    format: Format,
    started: Instant,
) -> CliResult<Context> {
    let workspace = resolve_workspace(global.cd.as_deref())?;
    let environment = |name: &str| std::env::var(name).ok();
    let mut settings = Settings::load(global.home.as_deref(), &global.config, &environment)
        .map_err(config_error)?;
    // `--store URL` (or `PINCER_STORE`, which clap reads for it) over `[store] url`.
    settings
        .store
        .choose(global.store.as_deref(), "--store or PINCER_STORE");
    // Every lock of the command (sessions, names, index, credential store) is refused on a
    // filesystem whose locks other machines do not see, unless the user allowed it.
    crate::fs::allow_local_locks(settings.allow_local_locks);
    let wait = match global.wait {
        Some(seconds) if !(seconds.is_finite() && seconds >= 0.0) => {
            return Err(CliError::usage(format!(
                "--wait takes a number of seconds, not '{seconds}'"
            )));
        }
        Some(seconds) => Some(Duration::from_secs_f64(seconds)),
        None => None,
    };
    Ok(Context {
        settings,
        diagnostics,
        format,
        workspace,
        wait,
        started,
        auth_store: OnceLock::new(),
        known_keys: OnceLock::new(),
    })
}

fn resolve_workspace(cd: Option<&Path>) -> CliResult<PathBuf> {
    let directory = match cd {
        Some(directory) => directory.to_owned(),
        None => std::env::current_dir().map_err(|error| {
            CliError::usage(format!("cannot read the current directory: {error}"))
        })?,
    };
    std::fs::canonicalize(&directory).map_err(|error| {
        CliError::usage(format!(
            "workspace '{}' is not usable: {error}",
            directory.display()
        ))
        .with_hint("pass an existing directory to -C/--cd")
    })
}

/// Refresh and return the whole session index (a stat of every session file: only for the
/// commands that show every session), telling the user when it had to be rebuilt from a bad
/// database (and, with `-v`, when it could not be saved: a cache that cannot be written is no
/// error).
pub fn load_index(context: &Context) -> CliResult<Index> {
    let spinner = Spinner::start(&context.diagnostics, "reading sessions…");
    let (index, report) = index::refresh(context.sessions_dir()).map_err(session_error)?;
    drop(spinner);
    tell_index_report(context, &report);
    Ok(index)
}

/// The sessions of the index that `wanted` can mean, found by the index's lookups and each
/// checked against its file (the cost of a run does not grow with the home), reported as
/// [`load_index`] reports.
pub fn load_scoped(context: &Context, wanted: &index::Wanted<'_>) -> CliResult<Index> {
    let (index, report) = index::scoped(context.sessions_dir(), wanted).map_err(session_error)?;
    tell_index_report(context, &report);
    Ok(index)
}

/// Tell the user what a look at the index had to do.
pub fn tell_index_report(context: &Context, report: &index::RefreshReport) {
    if let Some(reason) = &report.unsaved {
        context
            .diagnostics
            .detail(&format!("the session index was not saved: {reason}"));
    }
    if let Some(reason) = &report.rebuilt
        && !reason.starts_with("there is no index")
    {
        context
            .diagnostics
            .warn(&format!("rebuilt the session index: {reason}"));
    }
}

/// Resolve `SESSION` or `--last` (with `--all`) to a session file of this home and workspace.
pub fn resolve_selector(
    context: &Context,
    index: &Index,
    session: Option<&str>,
    last: bool,
    all: bool,
) -> CliResult<PathBuf> {
    lookup_selector(context, index, session, last, all)?.map_err(resolve_error)
}

/// [`resolve_selector`] with the lookup's own error, for a caller whose hint knows more.
pub(crate) fn lookup_selector(
    context: &Context,
    index: &Index,
    session: Option<&str>,
    last: bool,
    all: bool,
) -> CliResult<Result<PathBuf, resolve::ResolveError>> {
    let dir = context.sessions_dir();
    Ok(
        match resolve::resolve_selector(dir, &context.workspace, index, session, last, all) {
            // Rows are checked against their files only when a lookup uses them: a session that
            // another program renamed, or one in a change the directory's stamp missed, is found
            // by listing the directory and stat'ing every file before saying there is none (only
            // on this error path; no summary of every session is held, #46 item 3).
            Err(resolve::ResolveError::NoMatch(_) | resolve::ResolveError::NoneInWorkspace(_)) => {
                let wanted = index::Wanted {
                    queries: session.into_iter().collect(),
                    last: (last && session.is_none()).then_some((&*context.workspace, all)),
                };
                let (rechecked, report) = index::rechecked(dir, &wanted).map_err(session_error)?;
                tell_index_report(context, &report);
                resolve::resolve_selector(dir, &context.workspace, &rechecked, session, last, all)
            }
            resolved => resolved,
        },
    )
}

/// Tell the user that a torn final line was repaired, and where its bytes went.
pub fn report_torn(context: &Context, path: &Path, torn: Option<&TornRepair>) {
    match torn {
        Some(TornRepair::MovedTo(side)) => context.diagnostics.warn(&format!(
            "'{}' ended in a torn line (an interrupted write); moved it to '{}'",
            path.display(),
            side.display()
        )),
        Some(TornRepair::Completed) => context.diagnostics.warn(&format!(
            "'{}' ended without a newline; completed the last line",
            path.display()
        )),
        None => {}
    }
}

/// The context window of `provider/model`: the catalog's or config's, or the smaller one an
/// overflow error taught (SPEC §7), or that one alone when the model is unknown.
pub fn model_window(context: &Context, provider: &str, model: &str) -> Option<u64> {
    ModelFacts::new(context).window(provider, model)
}

/// Context windows and prices of the models sessions ran on, for listings and `status`: the
/// catalog's or config's, narrowed by the windows learned from overflow errors (read once).
pub struct ModelFacts<'a> {
    settings: &'a Settings,
    learned: BTreeMap<String, u64>,
    /// The catalog's or config's window and prices by `provider/model`, looked up once each (a
    /// listing asks about the same few models for thousands of sessions).
    known: std::cell::RefCell<std::collections::HashMap<String, Option<(u64, Prices)>>>,
}

impl<'a> ModelFacts<'a> {
    /// The facts of this home's configuration and learned windows.
    pub fn new(context: &'a Context) -> ModelFacts<'a> {
        ModelFacts {
            settings: &context.settings,
            learned: learned_windows::all(context.sessions_dir()),
            known: std::cell::RefCell::default(),
        }
    }

    /// The catalog's or config's window and prices of `provider/model`.
    fn known(&self, provider: &str, model: &str) -> Option<(u64, Prices)> {
        let key = format!("{provider}/{model}");
        if let Some(found) = self.known.borrow().get(&key) {
            return *found;
        }
        let found = self
            .settings
            .model_info(provider, model)
            .map(|info| (info.context_window, info.prices()));
        self.known.borrow_mut().insert(key, found);
        found
    }

    /// The context window of `provider/model`, see [`model_window`].
    pub fn window(&self, provider: &str, model: &str) -> Option<u64> {
        let known = self.known(provider, model).map(|(window, _)| window);
        let learned = self.learned.get(&format!("{provider}/{model}")).copied();
        learned_windows::narrowed(known, learned)
    }

    /// The context window of a session's current model, when known.
    pub fn context_window(&self, summary: &SessionSummary) -> Option<u64> {
        self.window(summary.provider.as_deref()?, summary.model.as_deref()?)
    }

    /// A session's context occupancy, against its model's window.
    pub fn occupancy(&self, summary: &SessionSummary) -> Option<ContextOccupancy> {
        summary.occupancy(self.context_window(summary))
    }

    /// A session's spend: catalog prices where the model is known, else what was recorded.
    pub fn cost(&self, summary: &SessionSummary) -> f64 {
        summary.cost(|provider, model| self.known(provider, model).map(|(_, prices)| prices))
    }
}

/// Write to stdout, mapping an I/O failure (other than a closed pipe) to exit 1.
pub fn stdout_error(error: std::io::Error) -> CliError {
    CliError::new(Exit::RunFailed, format!("cannot write to stdout: {error}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::store::SessionError;

    fn io_failure(kind: std::io::ErrorKind) -> SessionError {
        SessionError::Io {
            action: "cannot create",
            path: PathBuf::from("/srv/pincer/sessions"),
            source: std::io::Error::from(kind),
        }
    }

    #[test]
    fn permission_errors_on_the_home_are_usage_errors_with_a_hint_other_io_errors_are_not() {
        for kind in [
            std::io::ErrorKind::PermissionDenied,
            std::io::ErrorKind::ReadOnlyFilesystem,
        ] {
            let error = session_error(io_failure(kind));
            assert_eq!(error.exit.code(), 2, "{kind:?}");
            assert!(
                error
                    .hint
                    .as_deref()
                    .is_some_and(|hint| hint.contains("'/srv/pincer/sessions'")),
                "{error:?}"
            );
        }
        let error = session_error(io_failure(std::io::ErrorKind::StorageFull));
        assert_eq!(error.exit.code(), 1);
        assert_eq!(error.hint, None);
    }

    #[test]
    fn running_out_of_file_descriptors_on_a_session_is_a_local_resource_error_with_a_hint() {
        let error = session_error(SessionError::Io {
            action: "cannot read",
            path: PathBuf::from("/srv/pincer/sessions/a.jsonl"),
            source: std::io::Error::from_raw_os_error(nix::libc::EMFILE),
        });
        assert_eq!(error.exit.code(), 1);
        assert_eq!(error.kind(), "local_resource");
        assert!(
            error
                .hint
                .as_deref()
                .is_some_and(|hint| hint.contains("ulimit -n")),
            "{error:?}"
        );
    }
}
