//! OS confinement of the processes pincer starts (SPEC §10): a launcher that gives each one a
//! session of its own, private user, mount, PID and network namespaces, and Landlock.
//!
//! A [`Confinement`] says what a child may write (Landlock), which paths it sees read-only
//! (bind mounts), which of pincer's paths it does not see at all (an empty tmpfs over a
//! directory, `/dev/null` over anything else, a directory that holds a root rebuilt without
//! pincer's entries), which directories inside those it sees again, read-only (a global
//! skill's), whether it has the host's network or only its own loopback, and which sockets it
//! may still reach (those beneath the roots). [`Confinement::command`] turns any program and
//! arguments into a `std::process::Command` that runs them under it, so `exec` and hooks share
//! one mechanism; the caller adds stdio, working directory and environment as for any other
//! child, never a process group: the launcher makes a session of its own, whose id is its pid.
//!
//! The launcher. A user namespace can only be entered by a single-threaded process, and
//! `unsafe` (`pre_exec`) is denied crate-wide, so the namespaces cannot be set up between fork
//! and exec. Instead pincer runs a launcher with [`ARG0`] as its `argv[0]`: the small companion
//! binary of that name beside pincer when it answers the probe as this build, else
//! `/proc/self/exe`, whose `commands::main_entry` recognises the name before it parses anything
//! or starts a thread. Either calls [`launcher_exit`]; what it does is told in [`launcher`].
//! A setup failure exits with [`SETUP_FAILED`] and one line on stderr: nothing runs less
//! confined than asked. Processes that are not confined (MCP servers, `danger-full-access`
//! commands) start through the same launcher with no confinement, for the session alone
//! ([`spawn_in_session`]).
//!
//! Where the launcher cannot enter namespaces (no unprivileged user namespaces), it applies
//! Landlock alone, with pincer's own paths made unreadable by Landlock instead of hidden; where
//! the launcher does not run at all, [`spawn_restricted`] spawns from a short-lived thread that
//! restricts itself first — Landlock restricts a thread and what it starts, so the rest of
//! pincer stays unrestricted. Which protection is in force is [`ExecProtection`], probed once
//! per process and only when something asks (the first command, `status`, `--dry-run`); the
//! reports reuse a full protection found earlier while nothing it depends on has changed
//! ([`super::probe_memo`]). What lasts the whole run — the process groups to kill at its end,
//! the placeholders that keep protected names from being created, the protected directories
//! found below the roots — is in [`run`].

mod landlock;
mod launcher;
mod mounts;
mod run;
mod seccomp;
pub(super) mod sockets;
mod temp;

use std::ffi::{OsStr, OsString};
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use self::landlock::{Rules, WRITABLE_DEVICES, restrict_current_thread};
use super::probe_memo;
use super::sandbox::{Sandbox, SandboxMode};

pub use run::{Spawned, finish_run};
pub use temp::PrivateTemp;
pub use temp::ensure_private_dir;

/// The `argv[0]` under which pincer acts as the launcher, and the file name of the companion
/// launcher installed beside it.
pub const ARG0: &str = "pincer-exec-sandbox";
/// What a launcher prints after a successful probe, after [`ARG0`] and a space: pincer's
/// version and a hash of this folder's files, which hold all of the launcher's own code. A launcher of
/// another build (a companion left from an older install, or not rebuilt with pincer) is not
/// used.
const LAUNCHER_BUILD: (&str, u64) = (
    env!("CARGO_PKG_VERSION"),
    fnv1a(include_bytes!("mod.rs"))
        ^ fnv1a(include_bytes!("launcher.rs")).rotate_left(1)
        ^ fnv1a(include_bytes!("mounts.rs")).rotate_left(2)
        ^ fnv1a(include_bytes!("landlock.rs")).rotate_left(3)
        ^ fnv1a(include_bytes!("sockets.rs")).rotate_left(4)
        ^ fnv1a(include_bytes!("seccomp.rs")).rotate_left(5),
);

/// The 64-bit FNV-1a hash of `bytes`, at compile time.
const fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut position = 0;
    while position < bytes.len() {
        hash ^= bytes[position] as u64;
        hash = hash.wrapping_mul(0x0100_0000_01b3);
        position += 1;
    }
    hash
}

/// The line a launcher of this build answers a probe with.
fn launcher_answer() -> String {
    format!("{ARG0} {} {:016x}", LAUNCHER_BUILD.0, LAUNCHER_BUILD.1)
}
/// The launcher's exit status when it could not set up the confinement.
pub const SETUP_FAILED: u8 = 125;
/// What starts the launcher's one line on stderr when setup fails (after `error: `).
const FAILURE_PREFIX: &str = "exec sandbox: ";
/// Shared memory (POSIX semaphores, Python multiprocessing); writable in `workspace-write` only.
const SHARED_MEMORY: &str = "/dev/shm";

/// Whether this system can confine commands with Landlock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LandlockSupport {
    /// Every requested restriction is enforced.
    FullyEnforced,
    /// The kernel supports an older Landlock ABI: writes are confined, some newer rights (such as
    /// truncation or device ioctls) are not.
    PartiallyEnforced,
    /// No confinement is possible; the reason says why.
    NotSupported(String),
}

impl LandlockSupport {
    /// Whether commands actually run confined.
    pub fn is_enforced(&self) -> bool {
        !matches!(self, LandlockSupport::NotSupported(_))
    }

    /// One line for `status`.
    pub fn describe(&self) -> String {
        match self {
            LandlockSupport::FullyEnforced => "Landlock enforced".to_owned(),
            LandlockSupport::PartiallyEnforced => {
                "Landlock partially enforced (older kernel ABI)".to_owned()
            }
            LandlockSupport::NotSupported(reason) => format!("Landlock not available: {reason}"),
        }
    }
}

/// Probe once (in a throwaway thread that restricts itself and ends) and remember the answer.
pub fn landlock_support() -> LandlockSupport {
    static SUPPORT: OnceLock<LandlockSupport> = OnceLock::new();
    SUPPORT
        .get_or_init(|| {
            let rules = Rules::writing(vec![std::env::temp_dir()]);
            std::thread::spawn(move || restrict_current_thread(&rules))
                .join()
                .unwrap_or_else(|_| {
                    LandlockSupport::NotSupported("the Landlock probe panicked".to_owned())
                })
        })
        .clone()
}

/// What a child is confined to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Confinement {
    /// Run in private user and mount namespaces with `read_only`, `hidden`, `masked` and
    /// `revealed` applied.
    pub namespace: bool,
    /// Run in a PID namespace of its own (with `namespace`), whose first process ends
    /// everything the command started when it ends.
    pub pid: bool,
    /// Only a loopback interface of its own (a network namespace; with no namespace, a seccomp
    /// filter takes IP sockets away instead).
    pub loopback_only: bool,
    /// Paths bind-mounted read-only onto themselves (those that exist when the child starts).
    pub read_only: Vec<PathBuf>,
    /// Paths made invisible: a directory gets an empty read-only tmpfs, anything else
    /// `/dev/null` (those that exist when the child starts).
    pub hidden: Vec<PathBuf>,
    /// Directories that hold a root and pincer's files: rebuilt without pincer's entries.
    pub masked: Vec<Mask>,
    /// Directories inside `hidden` ones that stay visible, read-only.
    pub revealed: Vec<PathBuf>,
    /// Where sockets stay reachable (the roots): every other socket of the host is covered.
    pub reachable: Vec<PathBuf>,
    /// Landlock: the paths beneath which writes are allowed; `None` = no Landlock.
    pub writable: Option<Vec<PathBuf>>,
    /// Refuse to start the program when Landlock cannot be enforced (`read-only`).
    pub require_landlock: bool,
    /// The network by name (SPEC §20): with `loopback_only` in a namespace, the forwarders the
    /// launcher runs on the command's loopback towards pincer's egress proxy.
    pub egress: Option<EgressRoutes>,
}

/// Where a command's way out goes (SPEC §20): the proxy's socket, reached from inside the
/// command's network namespace through a forwarder on its loopback (`HTTP_PROXY` and the
/// others point there), and the loopback ports that lead to one fixed destination each.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EgressRoutes {
    /// The proxy's unix socket (its directory is reachable: see [`Confinement::reachable`]).
    pub socket: PathBuf,
    /// `Policy::loopback_routes()`: a port of the command's loopback and the `host:port` a
    /// `CONNECT` through the proxy asks for (`5432` to `localhost:5432`).
    pub routes: Vec<(u16, String)>,
}

/// A directory that holds a root and pincer's own entries (say `PINCER_HOME=..`): commands see
/// it without those entries.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Mask {
    /// The directory.
    pub directory: PathBuf,
    /// pincer's entries in it, by name.
    pub names: Vec<OsString>,
    /// Name prefixes of pincer's staging files in it (a write killed half-way leaves one).
    pub prefixes: Vec<OsString>,
}

impl Mask {
    /// Whether the entry `name` of the directory is one of pincer's.
    pub fn hides(&self, name: &OsStr) -> bool {
        let bytes = name.as_encoded_bytes();
        self.names.iter().any(|known| known == name)
            || self
                .prefixes
                .iter()
                .any(|prefix| bytes.starts_with(prefix.as_encoded_bytes()))
    }

    /// The mask of `directory` for the hidden paths directly inside it, with their lock files
    /// and every staging file pincer writes.
    fn of(directory: &Path, hidden: &[PathBuf]) -> Mask {
        let mut names: Vec<OsString> = Vec::new();
        for path in hidden
            .iter()
            .filter(|path| path.parent() == Some(directory))
        {
            if let Some(name) = path.file_name() {
                let mut lock = name.to_os_string();
                lock.push(".lock");
                names.push(name.to_os_string());
                names.push(lock);
            }
        }
        Mask {
            directory: directory.to_path_buf(),
            names,
            prefixes: super::sandbox::STAGING_PREFIXES
                .iter()
                .map(OsString::from)
                .collect(),
        }
    }
}

impl Confinement {
    /// The confinement of commands under `sandbox`, or `None` for none (`danger-full-access`):
    /// writes beneath the devices, the private temp dir and, in `workspace-write`, the roots;
    /// protected dirs read-only and pincer's own paths hidden in the namespace; sockets
    /// reachable beneath the roots only; the network as the sandbox says.
    pub fn for_sandbox(sandbox: &Sandbox) -> Option<Confinement> {
        let mut writable: Vec<PathBuf> = WRITABLE_DEVICES.iter().map(PathBuf::from).collect();
        match sandbox.mode {
            SandboxMode::DangerFullAccess => return None,
            SandboxMode::ReadOnly => writable.extend(sandbox.exec.temp_dir.iter().cloned()),
            SandboxMode::WorkspaceWrite => {
                writable.push(PathBuf::from(SHARED_MEMORY));
                writable.extend(sandbox.writable_roots.iter().cloned());
            }
        }
        // The network by name: only with the network closed, only through the run's proxy (a
        // sandbox without one — a report, pincer's own `git` — keeps the network closed).
        let egress = match sandbox.exec.egress.get() {
            Some(egress) if !sandbox.exec.network && !sandbox.exec.network_rules.is_empty() => {
                Some(EgressRoutes {
                    socket: egress.socket().to_path_buf(),
                    routes: sandbox.exec.network_rules.loopback_routes(),
                })
            }
            _ => None,
        };
        let mut reachable: Vec<PathBuf> = sandbox
            .writable_roots
            .iter()
            .chain(&sandbox.read_only_roots)
            .cloned()
            .collect();
        // The proxy's socket stays in sight: the mount step covers every other host socket.
        if let Some(directory) = egress.as_ref().and_then(|egress| egress.socket.parent()) {
            reachable.push(directory.to_path_buf());
        }
        Some(Confinement {
            namespace: true,
            pid: sandbox.exec.pid_namespace,
            loopback_only: !sandbox.exec.network,
            read_only: sandbox.exec.read_only.clone(),
            hidden: sandbox.exec.hidden.clone(),
            masked: sandbox
                .exec
                .unhidden
                .iter()
                .map(|directory| Mask::of(directory, &sandbox.exec.hidden))
                .collect(),
            revealed: sandbox.exec.revealed.clone(),
            reachable,
            writable: Some(writable),
            require_landlock: sandbox.mode == SandboxMode::ReadOnly,
            egress,
        })
    }

    /// A command that runs `program` with `args` under this confinement through the launcher
    /// `launcher` (pincer's own executable, normally [`super::sandbox::SELF_EXE`]).
    pub fn command(&self, launcher: &Path, program: &OsStr, args: &[OsString]) -> Command {
        let mut command = Command::new(launcher);
        command
            .arg0(ARG0)
            .args(self.arguments())
            .arg("--")
            .arg(program)
            .args(args);
        command
    }

    /// Whether this confines the network alone (an MCP stdio server under network rules, see
    /// [`spawn_network_confined`]): the egress proxy as the only way out, and nothing of the
    /// mounts, Landlock or a PID namespace.
    pub fn is_network_only(&self) -> bool {
        self.egress.is_some()
            && self.loopback_only
            && !self.namespace
            && !self.pid
            && self.writable.is_none()
            && self.read_only.is_empty()
            && self.hidden.is_empty()
            && self.masked.is_empty()
            && self.revealed.is_empty()
            && self.reachable.is_empty()
    }

    /// What Landlock keeps unreadable when no mount namespace hides it: pincer's hidden paths
    /// and, in each directory that holds a root, pincer's entries as they are now.
    fn unreadable_without_namespace(&self) -> Vec<PathBuf> {
        let mut unreadable = self.hidden.clone();
        for mask in &self.masked {
            let Ok(entries) = std::fs::read_dir(&mask.directory) else {
                continue;
            };
            unreadable.extend(
                entries
                    .flatten()
                    .filter(|entry| mask.hides(&entry.file_name()))
                    .map(|entry| entry.path()),
            );
        }
        unreadable
    }

    /// The launcher's options for this confinement.
    fn arguments(&self) -> Vec<OsString> {
        let mut arguments: Vec<OsString> = Vec::new();
        for (on, flag) in [
            (self.namespace, "--namespace"),
            (self.pid, "--pid"),
            (self.loopback_only, "--no-network"),
        ] {
            if on {
                arguments.push(flag.into());
            }
        }
        for (flag, paths) in [
            ("--read-only", &self.read_only),
            ("--hide", &self.hidden),
            ("--reveal", &self.revealed),
            ("--reach", &self.reachable),
        ] {
            for path in paths {
                arguments.push(flag.into());
                arguments.push(path.into());
            }
        }
        for mask in &self.masked {
            arguments.push("--mask".into());
            arguments.push(mask.directory.clone().into());
            for name in &mask.names {
                arguments.push("--mask-name".into());
                arguments.push(name.clone());
            }
            for prefix in &mask.prefixes {
                arguments.push("--mask-prefix".into());
                arguments.push(prefix.clone());
            }
        }
        if let Some(writable) = &self.writable {
            arguments.push("--landlock".into());
            for path in writable {
                arguments.push("--write".into());
                arguments.push(path.into());
            }
        }
        if self.require_landlock {
            arguments.push("--require-landlock".into());
        }
        if let Some(egress) = &self.egress {
            arguments.push("--egress".into());
            arguments.push(egress.socket.clone().into());
            for (port, destination) in &egress.routes {
                arguments.push("--egress-route".into());
                arguments.push(format!("{port}={destination}").into());
            }
        }
        arguments
    }
}

/// Why a command could not be confined, as the launcher reports it to pincer (one line after
/// [`FAILURE_PREFIX`]) and pincer reports it as the command's error.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// A step failed at a system call.
    #[error("could not {step}: {source}")]
    Failed {
        step: String,
        #[source]
        source: std::io::Error,
    },
    /// The system lacks what the confinement needs (user namespaces, Landlock), in the words
    /// of the check that found it.
    #[error("{0}")]
    Unavailable(String),
    /// The launcher's arguments describe no command: pincer and the launcher disagree.
    #[error("{0}")]
    Arguments(String),
    /// The run's private temp dir for commands cannot be made.
    #[error(
        "cannot make the private temp dir '{}' for commands: {source} (set TMPDIR to a \
         writable directory)",
        path.display()
    )]
    PrivateTemp {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The thread that starts a Landlock-confined command panicked.
    #[error("the confined start panicked")]
    Panicked,
    /// The launcher reported a failure: its line, after [`FAILURE_PREFIX`].
    #[error("{FAILURE_PREFIX}{0}")]
    InLauncher(Box<SetupError>),
}

/// The error of a failed step, for `map_err`: `could("block SIGCHLD")`.
fn could<E: Into<std::io::Error>>(step: impl Into<String>) -> impl Fn(E) -> SetupError {
    let step = step.into();
    move |error| SetupError::Failed {
        step: step.clone(),
        source: error.into(),
    }
}

/// When this process was started as the launcher (`argv[0]` is [`ARG0`]): set up the
/// confinement its arguments describe and exec the program. Returns `None` when this is an
/// ordinary pincer run; otherwise what happened: `Ok` after a probe, `Err` with a sentence when
/// setup or exec failed (the caller prints it and exits with [`SETUP_FAILED`]). Must run before
/// any thread is started.
fn launcher_main() -> Option<Result<(), SetupError>> {
    let mut arguments = std::env::args_os();
    if arguments.next().as_deref() != Some(OsStr::new(ARG0)) {
        return None;
    }
    Some(launcher::launch(arguments).map_err(|error| SetupError::InLauncher(Box::new(error))))
}

/// [`launcher_main`] for an executable's `main`: `None` for an ordinary pincer run, else the
/// exit code, after one `error: exec sandbox: …` line on stderr when setup failed.
pub fn launcher_exit() -> Option<std::process::ExitCode> {
    Some(match launcher_main()? {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(message) => {
            use std::io::Write as _;
            let _ = writeln!(std::io::stderr(), "error: {message}");
            std::process::ExitCode::from(SETUP_FAILED)
        }
    })
}

/// Run `spawn` on a short-lived thread restricted by Landlock to `rules`, so that only what it
/// starts inherits the restriction. Returns what `spawn` returned and whether the restriction
/// is enforced.
fn spawn_restricted<T: Send + 'static>(
    rules: Rules,
    spawn: impl FnOnce(&LandlockSupport) -> T + Send + 'static,
) -> std::thread::Result<T> {
    std::thread::spawn(move || {
        let support = restrict_current_thread(&rules);
        spawn(&support)
    })
    .join()
}

/// Start `program` with `args` confined as `sandbox` says, whatever the program (`exec`'s
/// shell, a hook): `spawn` receives the command to configure (working directory, environment,
/// stdio — never a process group) and spawn. Through the launcher where it runs here, with the
/// namespaces where it can make them; else from a thread restricted by Landlock (in a process
/// group of its own); in `danger-full-access` unconfined, in a session of its own. `Err`
/// is a refusal to run (`read-only` without Landlock, a private temp dir or a placeholder that
/// cannot be made). Every command's process group is killed when the run ends
/// ([`finish_run`]). The first call of the run says, through the sandbox's notice, when the
/// protection is weaker than SPEC §10's.
pub fn spawn_confined<C: Spawned>(
    sandbox: &Sandbox,
    program: &OsStr,
    args: &[OsString],
    spawn: impl FnOnce(Command) -> std::io::Result<C> + Send + 'static,
) -> Result<std::io::Result<C>, SetupError> {
    spawn_as(sandbox, None, program, args, spawn)
}

/// [`spawn_confined`] with the protection found beforehand when `known` gives one (a report's,
/// which may come from the probe remembered in the state directory): for pincer's own short
/// reads, which must not pay for a probe of their own. A launcher that then cannot set up what
/// it promised refuses the program (exit [`SETUP_FAILED`]); nothing runs less confined.
pub fn spawn_as<C: Spawned>(
    sandbox: &Sandbox,
    known: Option<&ExecProtection>,
    program: &OsStr,
    args: &[OsString],
    spawn: impl FnOnce(Command) -> std::io::Result<C> + Send + 'static,
) -> Result<std::io::Result<C>, SetupError> {
    static FIRST_CALL: std::sync::Once = std::sync::Once::new();
    if let Some(temp) = &sandbox.exec.temp_dir {
        temp::ensure_private_dir(temp).map_err(|source| SetupError::PrivateTemp {
            path: temp.clone(),
            source,
        })?;
    }
    let Some(mut confinement) = Confinement::for_sandbox(sandbox) else {
        // Unconfined, but still without the user's terminal.
        return Ok(run::register(
            spawn_in_session(program, args, spawn),
            sandbox.exec.temp_dir.as_deref(),
        ));
    };
    let protection = match known {
        Some(known) => known.clone(),
        None => ExecProtection::of(sandbox),
    };
    // Said once per run, to whoever listens: the commands' sandbox has the notice, pincer's
    // own reads do not.
    if sandbox.exec.notice.0.is_some() {
        FIRST_CALL.call_once(|| {
            if !protection.is_full() {
                sandbox.exec.notice.say(&format!(
                    "commands run with reduced protection ({}): {}",
                    protection.level(),
                    protection.describe()
                ));
            }
        });
    }
    if confinement.egress.is_some() {
        // The rules hold only in a network namespace of the command's own, with the proxy as
        // the one way out: never the host's network instead (SPEC §20).
        if protection.launcher.is_none() || !protection.namespace.is_private() {
            return Err(SetupError::Unavailable(format!(
                "the network rules (--allow-host, [sandbox.network]) need user namespaces, \
                 which are not available here ({}): the command was not started rather than \
                 given the network (--allow-network opens it whole)",
                match &protection.namespace {
                    MountNamespace::Unused(reason) => reason.as_str(),
                    MountNamespace::Private => "no launcher",
                }
            )));
        }
        if let Some(egress) = sandbox.exec.egress.get() {
            egress
                .start()
                .map_err(could("start the egress proxy for the network rules"))?;
        }
    }
    if let Some(launcher) = &protection.launcher {
        if protection.namespace.is_private() {
            run::prepare(sandbox, &mut confinement)?;
        } else {
            confinement.namespace = false;
            confinement.pid = false;
        }
        // Never less than announced: where Landlock works here, the launcher must apply it.
        confinement.require_landlock |= protection.landlock.is_enforced();
        let command = confinement.command(launcher, program, args);
        return Ok(run::register(
            spawn(command),
            sandbox.exec.temp_dir.as_deref(),
        ));
    }
    let require = confinement.require_landlock;
    let rules = Rules {
        writable: confinement.writable.clone().unwrap_or_default(),
        unreadable: confinement.unreadable_without_namespace(),
        readable: confinement.revealed.clone(),
        tcp: !confinement.loopback_only,
    };
    let mut command = Command::new(program);
    command.args(args).process_group(0);
    let network = !confinement.loopback_only;
    let turn = sandbox.exec.temp_dir.clone();
    spawn_restricted(rules, move |support| {
        if require && !support.is_enforced() {
            return Err(SetupError::Unavailable(format!(
                "exec is disabled: the sandbox is read-only and the command could not be \
                 confined ({}).",
                support.describe()
            )));
        }
        seccomp::restrict_sockets(network)?;
        Ok(run::register(spawn(command), turn.as_deref()))
    })
    .map_err(|_| SetupError::Panicked)?
}

/// Start `program` with `args`, unconfined, in a session of its own (no controlling terminal):
/// through the launcher with no confinement where it runs, else in a process group of its own.
/// For the children that run outside the sandbox by design (MCP stdio servers); `spawn`
/// configures the command as [`spawn_confined`]'s does.
pub fn spawn_in_session<T>(
    program: &OsStr,
    args: &[OsString],
    spawn: impl FnOnce(Command) -> T,
) -> T {
    let mut command = match launcher_support(Path::new(super::sandbox::SELF_EXE)) {
        (launcher, LauncherSupport::Runs(_)) => {
            let mut command = Command::new(launcher);
            command.arg0(ARG0).arg("--").arg(program);
            command
        }
        (_, LauncherSupport::Broken(_)) => {
            let mut command = Command::new(program);
            command.process_group(0);
            command
        }
    };
    command.args(args);
    spawn(command)
}

/// Start `program` with `args` outside the sandbox but for the network (SPEC §13, §20): an MCP
/// stdio server under network rules. Through the launcher, in a network namespace of its own
/// whose loopback holds the forwarders to `egress` (the run's proxy, started here) for `routes`
/// (`Policy::loopback_routes()`), with the proxy variables set; its files, mounts and every
/// other process stay as [`spawn_in_session`] leaves them. `Err` without user namespaces:
/// never the host's network instead. `spawn` configures the command as [`spawn_confined`]'s
/// does.
pub fn spawn_network_confined<T>(
    egress: &dyn super::sandbox::Egress,
    routes: Vec<(u16, String)>,
    program: &OsStr,
    args: &[OsString],
    spawn: impl FnOnce(Command) -> T,
) -> Result<T, SetupError> {
    let launcher = match launcher_support(Path::new(super::sandbox::SELF_EXE)) {
        (launcher, LauncherSupport::Runs(MountNamespace::Private)) => launcher,
        (_, LauncherSupport::Runs(MountNamespace::Unused(reason)))
        | (_, LauncherSupport::Broken(reason)) => {
            return Err(SetupError::Unavailable(format!(
                "the network rules (--allow-host, [sandbox.network]) need user namespaces, \
                 which are not available here ({reason}): the server was not started rather \
                 than given the network (--allow-network opens it whole)"
            )));
        }
    };
    egress
        .start()
        .map_err(could("start the egress proxy for the network rules"))?;
    let confinement = Confinement {
        loopback_only: true,
        egress: Some(EgressRoutes {
            socket: egress.socket().to_path_buf(),
            routes,
        }),
        ..Confinement::default()
    };
    Ok(spawn(confinement.command(launcher, program, args)))
}

/// Whether the launcher runs and can enter namespaces here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum LauncherSupport {
    /// The launcher runs; `Err` says why it cannot set up namespaces.
    Runs(MountNamespace),
    /// The launcher did not run (why).
    Broken(String),
}

/// What [`launcher_support`] found, once it has probed, and the launcher it found it with.
static LAUNCHER_SUPPORT: OnceLock<(PathBuf, LauncherSupport)> = OnceLock::new();

/// The companion launcher beside this executable (`pincer-exec-sandbox`, installed with it),
/// when there is one. It starts in a fraction of the time pincer's own executable takes
/// (which maps a much bigger binary), and every confined command starts through it.
fn companion() -> Option<PathBuf> {
    let path = std::env::current_exe().ok()?.with_file_name(ARG0);
    path.is_file().then_some(path)
}

/// The launcher a probe of `launcher` tries first: for pincer's own executable
/// ([`super::sandbox::SELF_EXE`]) its companion when there is one.
fn first_choice(launcher: &Path) -> PathBuf {
    if launcher == Path::new(super::sandbox::SELF_EXE)
        && let Some(companion) = companion()
    {
        return companion;
    }
    launcher.to_owned()
}

/// Probe the launcher `launcher` once per process: start it in probe mode with a namespace,
/// a read-only bind and a hidden directory, and see whether it gets through. For pincer's own
/// executable the companion launcher is tried first, and pincer itself when the companion does
/// not act as this build's launcher.
/// Returns the launcher that was found (commands start through it) with what it can do.
fn launcher_support(launcher: &Path) -> &'static (PathBuf, LauncherSupport) {
    LAUNCHER_SUPPORT.get_or_init(|| {
        let first = first_choice(launcher);
        let support = LauncherProbe::start(&first).outcome();
        if first != launcher && matches!(support, LauncherSupport::Broken(_)) {
            return (
                launcher.to_owned(),
                LauncherProbe::start(launcher).outcome(),
            );
        }
        (first, support)
    })
}

/// A started probe of the launcher.
struct LauncherProbe {
    launcher: PathBuf,
    child: std::io::Result<std::process::Child>,
}

impl LauncherProbe {
    fn start(launcher: &Path) -> LauncherProbe {
        let temp = std::env::temp_dir();
        let confinement = Confinement {
            namespace: true,
            pid: true,
            loopback_only: true,
            read_only: vec![temp.clone()],
            hidden: vec![temp],
            ..Confinement::default()
        };
        let child = Command::new(launcher)
            .arg0(ARG0)
            .args(confinement.arguments())
            .arg("--probe")
            // Not inside the directory the probe hides: the launcher enters its cwd again.
            .current_dir("/")
            .env_clear()
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn();
        LauncherProbe {
            launcher: launcher.to_owned(),
            child,
        }
    }

    /// Wait for the probe's answer and read what it found.
    fn outcome(self) -> LauncherSupport {
        use std::io::BufRead as _;
        let launcher = self.launcher.display();
        let started = |error: std::io::Error| {
            LauncherSupport::Broken(format!("{launcher} could not be started: {error}"))
        };
        let mut child = match self.child {
            Ok(child) => child,
            Err(error) => return started(error),
        };
        // A launcher that got through answers before it exits, and its exit (which takes down
        // the namespaces it made) is slow next to the rest: once the answer is in, a thread
        // waits for the exit.
        let mut answer = String::new();
        if let Some(stdout) = child.stdout.take() {
            let _ = std::io::BufReader::new(stdout).read_line(&mut answer);
        }
        let expected = launcher_answer();
        if answer.trim_end() == expected {
            std::thread::spawn(move || child.wait());
            return LauncherSupport::Runs(MountNamespace::Private);
        }
        let output = match child.wait_with_output() {
            Ok(output) => output,
            Err(error) => return started(error),
        };
        let stderr = String::from_utf8_lossy(&output.stderr);
        let reason = stderr.lines().find_map(|line| {
            line.split_once(FAILURE_PREFIX)
                .map(|(_, reason)| reason.trim())
        });
        match (output.status.code(), reason) {
            (Some(0), _) => LauncherSupport::Broken(format!(
                "{launcher} is not this build's launcher (it answered {:?}, not {expected:?})",
                answer.trim_end()
            )),
            (Some(code), Some(reason)) if code == i32::from(SETUP_FAILED) => {
                LauncherSupport::Runs(MountNamespace::Unused(reason.to_owned()))
            }
            (code, _) => LauncherSupport::Broken(format!(
                "{launcher} did not act as the launcher (exit {}): {}",
                code.map_or_else(|| "by signal".to_owned(), |code| code.to_string()),
                stderr.lines().next().unwrap_or("no output")
            )),
        }
    }
}

/// What a report does with the probe remembered in the state directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbeMemory {
    /// Reuse it when it holds; else probe, and remember a full protection.
    Reuse,
    /// Probe now, and remember a full protection.
    Refresh,
    /// Reuse it when it holds; else probe, and write nothing.
    ReadOnly,
}

/// Whether commands get a private mount namespace (SPEC §10).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MountNamespace {
    /// They do: pincer's directories hidden, `.git` read-only, a network of their own.
    Private,
    /// They do not, for this reason (the launcher's, or the sandbox mode).
    Unused(String),
}

impl MountNamespace {
    pub fn is_private(&self) -> bool {
        matches!(self, MountNamespace::Private)
    }
}

/// How the commands of a sandbox are protected on this system.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecProtection {
    /// The sandbox mode.
    pub mode: SandboxMode,
    /// The private mount namespace: `Err` says why it is not used.
    pub namespace: MountNamespace,
    /// Landlock.
    pub landlock: LandlockSupport,
    /// pincer's directories that are not hidden because they contain the workspace or the
    /// private temp dir (their known files are hidden one by one).
    pub unhidden: Vec<PathBuf>,
    /// How many directories `--add-dir` / `tools.add_dirs` added to the writable roots.
    pub added_dirs: usize,
    /// The launcher commands start through, when it runs here: the companion beside pincer, or
    /// pincer itself.
    pub launcher: Option<PathBuf>,
    /// Commands may reach the network (`--allow-network`, `[sandbox] network`).
    pub network: bool,
    /// Network rules are set (`--allow-host`, `[sandbox.network]`, SPEC §20).
    pub network_rules: bool,
}

impl ExecProtection {
    /// Probe (once per process) what `sandbox`'s commands get.
    pub fn of(sandbox: &Sandbox) -> ExecProtection {
        let landlock = if sandbox.mode == SandboxMode::DangerFullAccess {
            LandlockSupport::NotSupported("danger-full-access".to_owned())
        } else {
            landlock_support()
        };
        let (namespace, launcher) = match (&sandbox.exec.launcher, sandbox.mode) {
            (_, SandboxMode::DangerFullAccess) => (
                MountNamespace::Unused("danger-full-access".to_owned()),
                None,
            ),
            (None, _) => (
                MountNamespace::Unused("no launcher is configured".to_owned()),
                None,
            ),
            (Some(launcher), _) => match launcher_support(launcher) {
                (found, LauncherSupport::Runs(namespace)) => {
                    (namespace.clone(), Some(found.clone()))
                }
                (_, LauncherSupport::Broken(reason)) => {
                    (MountNamespace::Unused(reason.clone()), None)
                }
            },
        };
        ExecProtection::found(sandbox, namespace, landlock, launcher)
    }

    /// What `sandbox`'s commands get where the namespace, Landlock and the launcher are as given.
    fn found(
        sandbox: &Sandbox,
        namespace: MountNamespace,
        landlock: LandlockSupport,
        launcher: Option<PathBuf>,
    ) -> ExecProtection {
        ExecProtection {
            mode: sandbox.mode,
            namespace,
            landlock,
            unhidden: sandbox.exec.unhidden.clone(),
            added_dirs: sandbox.added_dirs.len(),
            launcher,
            network: sandbox.exec.network,
            network_rules: !sandbox.exec.network_rules.is_empty(),
        }
    }

    /// What `sandbox`'s commands get, for a report (`status`, `--dry-run`): as `memory` says,
    /// the probe remembered in `state_dir` while nothing it depends on has changed
    /// ([`super::probe_memo`]), else a fresh one, remembered when it found the full protection.
    /// With it, when it was probed if that was by an earlier process (Unix milliseconds).
    pub fn reported(
        sandbox: &Sandbox,
        state_dir: &Path,
        memory: ProbeMemory,
    ) -> (ExecProtection, Option<u64>) {
        let Some(launcher) = sandbox
            .exec
            .launcher
            .as_deref()
            .filter(|_| sandbox.mode != SandboxMode::DangerFullAccess)
        else {
            return (ExecProtection::of(sandbox), None);
        };
        // Probed in this process already: that answer is the freshest there is.
        if LAUNCHER_SUPPORT.get().is_some() {
            return (ExecProtection::of(sandbox), None);
        }
        let first = first_choice(launcher);
        let fingerprint =
            probe_memo::fingerprint(&launcher_answer(), &first, &std::env::temp_dir());
        // It can only have found one of the two launchers a probe tries.
        let memo = fingerprint
            .as_deref()
            .filter(|_| memory != ProbeMemory::Refresh)
            .and_then(|fingerprint| probe_memo::recall(state_dir, fingerprint))
            .filter(|memo| memo.launcher == first || memo.launcher == launcher);
        if let Some(memo) = memo {
            let landlock = if memo.landlock_partial {
                LandlockSupport::PartiallyEnforced
            } else {
                LandlockSupport::FullyEnforced
            };
            let protection = ExecProtection::found(
                sandbox,
                MountNamespace::Private,
                landlock,
                Some(memo.launcher),
            );
            return (protection, Some(memo.probed_at_ms));
        }
        let protection = ExecProtection::of(sandbox);
        if let (Some(fingerprint), false, MountNamespace::Private, true, Some(found)) = (
            fingerprint,
            memory == ProbeMemory::ReadOnly,
            &protection.namespace,
            protection.landlock.is_enforced(),
            &protection.launcher,
        ) {
            let probed_at_ms = u64::try_from(crate::conversation::now_millis()).unwrap_or(0);
            probe_memo::remember(
                state_dir,
                &probe_memo::Memo {
                    fingerprint,
                    probed_at_ms,
                    launcher: found.clone(),
                    landlock_partial: protection.landlock == LandlockSupport::PartiallyEnforced,
                },
            );
        }
        (protection, None)
    }

    /// `namespace+landlock`, `namespace`, `landlock` or `none`.
    pub fn level(&self) -> &'static str {
        match (self.namespace.is_private(), self.landlock.is_enforced()) {
            (true, true) => "namespace+landlock",
            (true, false) => "namespace",
            (false, true) => "landlock",
            (false, false) => "none",
        }
    }

    /// Whether every protection of SPEC §10 is in force.
    pub fn is_full(&self) -> bool {
        self.level() == "namespace+landlock" && self.unhidden.is_empty()
    }

    /// Whether any OS confinement applies.
    pub fn is_enforced(&self) -> bool {
        self.level() != "none"
    }

    /// One sentence: what commands can and cannot do, and why a protection is missing.
    pub fn describe(&self) -> String {
        if self.mode == SandboxMode::DangerFullAccess {
            return "none (danger-full-access: commands run unconfined, only the credential \
                    variables are removed from their environment)"
                .to_owned();
        }
        let writes = match (self.mode, self.added_dirs) {
            (SandboxMode::ReadOnly, _) => "writes only in a private temp dir".to_owned(),
            (_, 0) => "writes only in the workspace and a private temp dir".to_owned(),
            (_, 1) => "writes only in the workspace, the added directory and a private temp dir"
                .to_owned(),
            (_, count) => format!(
                "writes only in the workspace, the {count} added directories and a private temp dir"
            ),
        };
        let mut parts = Vec::new();
        match &self.namespace {
            MountNamespace::Private => parts.push(
                "private mount namespace (.git, .pincer, .claude, .codex read-only; pincer's \
                 directories hidden)"
                    .to_owned(),
            ),
            MountNamespace::Unused(reason) => parts.push(format!(
                "no mount namespace ({reason}): .git is writable, pincer's directories inside \
                 the workspace are readable by commands, no unix socket can be made \
                 (seccomp), and a process that leaves its session outlives the run"
            )),
        }
        match &self.landlock {
            LandlockSupport::NotSupported(reason) => parts.push(format!(
                "no Landlock ({reason}): commands can write wherever the user can"
            )),
            support => parts.push(format!("{} ({writes})", support.describe())),
        }
        for directory in &self.unhidden {
            parts.push(format!(
                "{} contains the workspace or the temp dir and is not hidden (its config, \
                 credentials, sessions and state are)",
                directory.display()
            ));
        }
        if !self.network && !self.namespace.is_private() {
            parts.push(format!("the network is {}", self.network_line()));
        }
        parts.join("; ")
    }

    /// What commands can reach of the network, and why.
    pub fn network_line(&self) -> String {
        if self.mode == SandboxMode::DangerFullAccess {
            return "on (danger-full-access)".to_owned();
        }
        if self.network {
            return "on (--allow-network or [sandbox] network = true)".to_owned();
        }
        match (self.network_rules, self.namespace.is_private()) {
            (true, true) => {
                return "limited: each command has a loopback interface of its own and reaches \
                        only the hosts the network rules allow, through pincer's egress proxy"
                    .to_owned();
            }
            (true, false) => {
                return "off: the network rules cannot be enforced without user namespaces, so \
                        a command is refused rather than given the network"
                    .to_owned();
            }
            (false, true) => {
                return "off: each command has a loopback interface of its own and nothing else"
                    .to_owned();
            }
            (false, false) => {}
        }
        "off: without user namespaces commands cannot make an IP socket at all, not even for \
         their own loopback (seccomp)"
            .to_owned()
    }

    /// `available` or `not available: REASON`.
    pub fn namespace_line(&self) -> String {
        match &self.namespace {
            MountNamespace::Private => "available".to_owned(),
            MountNamespace::Unused(reason) => format!("not available: {reason}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::SELF_EXE;

    #[test]
    fn the_launcher_arguments_parse_back_to_the_same_confinement() {
        let confinement = Confinement {
            namespace: true,
            pid: true,
            loopback_only: true,
            read_only: vec!["/w/.git".into(), "/w/.codex".into()],
            hidden: vec!["/home/u/.config/pincer".into()],
            masked: vec![
                Mask::of(
                    Path::new("/h"),
                    &["/h/sessions".into(), "/h/config.toml".into()],
                ),
                Mask::default(),
            ],
            revealed: vec!["/home/u/.config/pincer/skills/deploy".into()],
            reachable: vec!["/w".into()],
            writable: Some(vec!["/dev/null".into(), "/w".into()]),
            require_landlock: true,
            egress: Some(EgressRoutes {
                socket: "/tmp/pincer-egress-x/proxy.sock".into(),
                routes: vec![
                    (5432, "localhost:5432".to_owned()),
                    (8080, "[::1]:8080".to_owned()),
                ],
            }),
        };
        let mut arguments = confinement.arguments();
        arguments.extend(["--".into(), "sh".into(), "-c".into(), "echo --hide".into()]);
        let request = launcher::parse(arguments.into_iter()).unwrap();
        assert_eq!(request.confinement, confinement);
        assert!(!request.probe);
        assert_eq!(request.init, None);
        assert_eq!(request.program, ["sh", "-c", "echo --hide"]);

        let bare = launcher::parse(["--landlock".into(), "--probe".into()].into_iter()).unwrap();
        assert_eq!(bare.confinement.writable, Some(Vec::new()));
        assert!(bare.probe);
        let first = launcher::parse(["--init".into()].into_iter()).unwrap();
        assert_eq!(first.init, Some(true));
        assert_eq!(
            launcher::parse(["--hide".into()].into_iter())
                .unwrap_err()
                .to_string(),
            "--hide needs a value"
        );
        for (arguments, error) in [
            (
                vec!["--egress-route", "5432=localhost:5432"],
                "--egress-route comes after --egress",
            ),
            (
                vec!["--egress", "/s", "--egress-route", "localhost:5432"],
                "--egress-route takes PORT=HOST:PORT, not \"localhost:5432\"",
            ),
        ] {
            let arguments = arguments.into_iter().map(OsString::from);
            assert_eq!(launcher::parse(arguments).unwrap_err().to_string(), error);
        }
        assert_eq!(
            launcher::parse(["--mask-name".into(), "x".into()].into_iter())
                .unwrap_err()
                .to_string(),
            "--mask-name comes after --mask"
        );
        assert_eq!(
            launcher::parse(std::iter::empty()).unwrap_err().to_string(),
            "no program to run"
        );
    }

    #[test]
    fn the_network_alone_is_a_user_and_network_namespace_with_the_egress_and_nothing_else() {
        // An MCP stdio server under network rules (issue #50): its files stay its own.
        let network_only = Confinement {
            loopback_only: true,
            egress: Some(EgressRoutes {
                socket: "/tmp/pincer-egress-x/proxy.sock".into(),
                routes: vec![(5432, "localhost:5432".to_owned())],
            }),
            ..Confinement::default()
        };
        assert!(network_only.is_network_only());
        assert_eq!(
            network_only.arguments(),
            [
                "--no-network",
                "--egress",
                "/tmp/pincer-egress-x/proxy.sock",
                "--egress-route",
                "5432=localhost:5432"
            ]
        );
        let mut arguments = network_only.arguments();
        arguments.extend(["--".into(), "server".into()]);
        let request = launcher::parse(arguments.into_iter()).unwrap();
        assert!(request.confinement.is_network_only());
        // Anything more is a command's confinement, whose rules need the full namespace.
        for more in [
            Confinement {
                writable: Some(Vec::new()),
                ..network_only.clone()
            },
            Confinement {
                namespace: true,
                ..network_only.clone()
            },
            Confinement {
                loopback_only: false,
                ..network_only.clone()
            },
            Confinement {
                egress: None,
                ..network_only.clone()
            },
        ] {
            assert!(!more.is_network_only(), "{more:?}");
        }
    }

    #[test]
    fn a_mask_hides_pincers_entries_their_locks_and_staging_files_only() {
        let mask = Mask::of(
            Path::new("/h"),
            &[
                "/h/auth-profiles.json".into(),
                "/h/sessions".into(),
                "/elsewhere/x".into(),
                "/h/sessions/deeper".into(),
            ],
        );
        for hidden in [
            "auth-profiles.json",
            "auth-profiles.json.lock",
            "sessions",
            ".auth-profiles-Xy12.tmp",
            ".pincer-new-abc",
        ] {
            assert!(mask.hides(OsStr::new(hidden)), "{hidden}");
        }
        for kept in ["project", "x", "deeper", "sessions2", "pincer-notes"] {
            assert!(!mask.hides(OsStr::new(kept)), "{kept}");
        }
    }

    #[test]
    fn the_command_runs_the_launcher_under_its_name_with_the_program_after_a_separator() {
        let confinement = Confinement {
            writable: Some(vec!["/w".into()]),
            ..Confinement::default()
        };
        let command = confinement.command(
            Path::new(SELF_EXE),
            OsStr::new("sh"),
            &["-c".into(), "true".into()],
        );
        assert_eq!(command.get_program(), SELF_EXE);
        let arguments: Vec<&OsStr> = command.get_args().collect();
        assert_eq!(
            arguments,
            ["--landlock", "--write", "/w", "--", "sh", "-c", "true"]
        );
    }

    #[test]
    fn the_confinement_follows_the_sandbox_mode() {
        let mut sandbox = Sandbox {
            mode: SandboxMode::ReadOnly,
            writable_roots: vec!["/w".into(), "/a".into(), "/t".into()],
            added_dirs: vec!["/a".into()],
            protected: vec![],
            read_only_roots: vec![],
            exec: super::super::sandbox::ExecSetup {
                read_only: vec!["/w/.git".into(), "/a/.git".into()],
                hidden: vec!["/h".into()],
                revealed: vec!["/h/skills/x".into()],
                temp_dir: Some("/t".into()),
                pid_namespace: true,
                ..Default::default()
            },
            web: super::super::sandbox::WebAccess::default(),
        };
        let devices: Vec<PathBuf> = WRITABLE_DEVICES.iter().map(Into::into).collect();
        let mut expected = devices.clone();
        expected.push("/t".into());
        let confinement = Confinement::for_sandbox(&sandbox).unwrap();
        assert_eq!(confinement.writable, Some(expected));
        assert!(confinement.require_landlock);
        assert!(confinement.namespace);
        assert_eq!(
            confinement.read_only,
            [PathBuf::from("/w/.git"), "/a/.git".into()]
        );
        assert_eq!(confinement.hidden, [PathBuf::from("/h")]);
        assert_eq!(confinement.revealed, [PathBuf::from("/h/skills/x")]);
        // Closed network, a PID namespace, sockets reachable beneath the roots only.
        assert!(confinement.loopback_only && confinement.pid);
        assert_eq!(
            confinement.reachable,
            [PathBuf::from("/w"), "/a".into(), "/t".into()]
        );
        sandbox.exec.network = true;
        sandbox.exec.pid_namespace = false;
        let open = Confinement::for_sandbox(&sandbox).unwrap();
        assert!(!open.loopback_only && !open.pid);
        sandbox.mode = SandboxMode::WorkspaceWrite;
        let mut expected = devices;
        // An added directory is writable like the workspace.
        expected.extend(["/dev/shm".into(), "/w".into(), "/a".into(), "/t".into()]);
        let confinement = Confinement::for_sandbox(&sandbox).unwrap();
        assert_eq!(confinement.writable, Some(expected));
        assert!(!confinement.require_landlock);
        sandbox.mode = SandboxMode::DangerFullAccess;
        assert_eq!(Confinement::for_sandbox(&sandbox), None);
    }

    #[test]
    fn the_protection_level_and_its_description_follow_what_is_available() {
        let mut protection = ExecProtection {
            mode: SandboxMode::WorkspaceWrite,
            namespace: MountNamespace::Private,
            landlock: LandlockSupport::FullyEnforced,
            unhidden: Vec::new(),
            added_dirs: 0,
            launcher: Some(SELF_EXE.into()),
            network: false,
            network_rules: false,
        };
        assert_eq!(protection.level(), "namespace+landlock");
        assert_eq!(
            protection.network_line(),
            "off: each command has a loopback interface of its own and nothing else"
        );
        assert!(protection.is_full());
        assert_eq!(
            protection.describe(),
            "private mount namespace (.git, .pincer, .claude, .codex read-only; pincer's \
             directories hidden); Landlock enforced (writes only in the workspace and a private \
             temp dir)"
        );
        protection.added_dirs = 2;
        assert!(protection.describe().ends_with(
            "Landlock enforced (writes only in the workspace, the 2 added directories and a \
             private temp dir)"
        ));
        protection.added_dirs = 0;
        protection.namespace = MountNamespace::Unused("unshare: EPERM".to_owned());
        assert_eq!(protection.level(), "landlock");
        assert!(!protection.is_full());
        assert!(protection.describe().starts_with(
            "no mount namespace (unshare: EPERM): .git is writable, pincer's directories inside \
             the workspace are readable by commands, no unix socket can be made (seccomp), and \
             a process that leaves its session outlives the run; Landlock enforced"
        ));
        assert!(protection.describe().ends_with(
            "the network is off: without user namespaces commands cannot make an IP socket at \
             all, not even for their own loopback (seccomp)"
        ));
        protection.landlock = LandlockSupport::NotSupported("old kernel".to_owned());
        assert_eq!(protection.level(), "none");
        assert!(!protection.is_enforced());
        protection.namespace = MountNamespace::Private;
        protection.unhidden = vec!["/h".into()];
        assert_eq!(protection.level(), "namespace");
        assert!(protection.describe().ends_with(
            "/h contains the workspace or the temp dir and is not hidden (its config, \
             credentials, sessions and state are)"
        ));
    }

    #[test]
    fn a_probe_trusts_only_a_launcher_that_answers_as_this_build() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        // A new file for each launcher: one being rewritten while its last probe still runs
        // could not be started (ETXTBSY).
        let made = std::cell::Cell::new(0);
        let outcome = |script: &str| {
            made.set(made.get() + 1);
            let path = dir.path().join(format!("launcher-{}", made.get()));
            std::fs::write(&path, format!("#!/bin/sh\n{script}\n")).unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
            LauncherProbe::start(&path).outcome()
        };
        let answer = launcher_answer();
        assert_eq!(
            outcome(&format!("echo '{answer}'")),
            LauncherSupport::Runs(MountNamespace::Private)
        );
        // A launcher of another build, or an older one that answers nothing.
        for stale in ["echo 'pincer-exec-sandbox 0.0.1 protocol 0'", "exit 0"] {
            match outcome(stale) {
                LauncherSupport::Broken(reason) => {
                    assert!(reason.contains("is not this build's launcher"), "{reason}");
                    assert!(reason.contains(&answer), "{reason}");
                }
                other => panic!("{stale}: {other:?}"),
            }
        }
        assert_eq!(
            outcome("echo 'error: exec sandbox: user namespaces are off' >&2; exit 125"),
            LauncherSupport::Runs(MountNamespace::Unused("user namespaces are off".to_owned()))
        );
        match outcome("echo 'usage' >&2; exit 2") {
            LauncherSupport::Broken(reason) => {
                assert!(
                    reason.ends_with("did not act as the launcher (exit 2): usage"),
                    "{reason}"
                );
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn landlock_support_is_described_for_status() {
        assert_eq!(
            LandlockSupport::NotSupported("no kernel support".to_owned()).describe(),
            "Landlock not available: no kernel support"
        );
        assert!(LandlockSupport::PartiallyEnforced.is_enforced());
        assert_eq!(landlock_support(), landlock_support());
    }
}
