//! The launcher process (SPEC §10): started by pincer under the name [`super::ARG0`] with a
//! confinement on its command line, it sets the confinement up around itself and then becomes
//! (or starts) the command. It runs single-threaded from its first instruction — a user
//! namespace can only be entered by a single-threaded process — and never returns to pincer's
//! code.
//!
//! The order of things, each step only when asked:
//! 1. A session of its own (`setsid`): the command has no controlling terminal, so `/dev/tty`
//!    cannot be opened and the user's terminal cannot be fed keystrokes (`TIOCSTI`).
//! 2. The host's socket table is read while the launcher still sees the host's network.
//! 3. A user and mount namespace (uid and gid mapped to themselves): pincer's directories are
//!    hidden (a directory that holds a root is rebuilt without pincer's entries), the user's
//!    session sockets and every host socket outside the roots are covered, the protected
//!    directories bound read-only, and the pseudo-terminals replaced by a private `devpts`.
//! 4. A second user namespace, which locks those mounts, with a PID namespace and, when the
//!    network is closed, a network namespace whose only interface is loopback.
//! 5. With a PID namespace: its first process (see [`init`]) is started; it mounts the
//!    namespace's `/proc` and then only reaps orphans, so that everything the command starts
//!    dies when that process does — when pincer kills the command's process group, when pincer
//!    ends, or when the command and everything it left behind are done.
//! 6. With network rules (SPEC §20, `--egress`): the forwarders, threads of the launcher that
//!    listen on the namespace's loopback and pipe each connection to pincer's egress proxy —
//!    one on a free port for the proxy itself (`HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY` and
//!    their lowercase forms point there), one per fixed route (`localhost:5432`). They start
//!    in step 4, once the network namespace is up and before the PID namespace is made (a
//!    process that has made a PID namespace for its children can start no thread). Landlock
//!    and seccomp restrict the thread that applies them and what it starts, not these threads.
//! 7. Landlock (with ABI 6 scoping of abstract sockets and signals); without the namespaces, a
//!    seccomp filter against unix sockets and, with the network closed, IP sockets.
//! 8. The command: started as a child whose exit status the launcher then exits with (PID
//!    namespace, or forwarders to keep alive), or exec'd in place. The variables of the user's
//!    session services ([`super::sockets::SESSION_VARIABLES`]) are not passed on.
//!
//! With `--egress` and `--no-network` alone (no `--namespace`, no `--landlock`: an MCP stdio
//! server under network rules), steps 3–5 and 7 are left out: a user and network namespace,
//! the forwarders of step 6, and the command, which keeps the host's files.
//!
//! A step that fails ends the launcher with [`super::SETUP_FAILED`] and one line on stderr:
//! nothing runs less confined than asked.

use super::{SetupError, could};
use std::ffi::OsString;
use std::io::{Read as _, Write as _};
use std::os::fd::{AsFd as _, OwnedFd};
use std::os::unix::process::{CommandExt as _, ExitStatusExt as _};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use nix::mount::{MsFlags, mount};
use nix::sched::{CloneFlags, unshare};

use super::landlock::{PRIVATE_TERMINALS, Rules, restrict_current_thread};
use super::sockets::{SESSION_VARIABLES, host_sockets, loopback_up};
use super::{ARG0, Confinement, EgressRoutes, Mask, mounts, seccomp};

/// What the launcher was asked to do.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Request {
    pub confinement: Confinement,
    /// Set everything up, then answer instead of running a program.
    pub probe: bool,
    /// Act as the first process of a PID namespace (internal: the launcher starts itself so);
    /// `Some(true)` when pincer's pidfd is its stdin.
    pub init: Option<bool>,
    /// The program and its arguments.
    pub program: Vec<OsString>,
}

pub(super) fn parse(mut arguments: impl Iterator<Item = OsString>) -> Result<Request, SetupError> {
    let mut request = Request {
        confinement: Confinement::default(),
        probe: false,
        init: None,
        program: Vec::new(),
    };
    while let Some(argument) = arguments.next() {
        let mut value = |flag: &str| {
            arguments
                .next()
                .ok_or_else(|| SetupError::Arguments(format!("{flag} needs a value")))
        };
        let confinement = &mut request.confinement;
        match argument.to_str() {
            Some("--namespace") => confinement.namespace = true,
            Some("--pid") => confinement.pid = true,
            Some("--no-network") => confinement.loopback_only = true,
            Some("--read-only") => confinement.read_only.push(value("--read-only")?.into()),
            Some("--hide") => confinement.hidden.push(value("--hide")?.into()),
            Some("--reveal") => confinement.revealed.push(value("--reveal")?.into()),
            Some("--reach") => confinement.reachable.push(value("--reach")?.into()),
            Some("--mask") => confinement.masked.push(Mask {
                directory: value("--mask")?.into(),
                names: Vec::new(),
                prefixes: Vec::new(),
            }),
            Some(flag @ ("--mask-name" | "--mask-prefix")) => {
                let name = value(flag)?;
                let Some(mask) = confinement.masked.last_mut() else {
                    return Err(SetupError::Arguments(format!("{flag} comes after --mask")));
                };
                if flag == "--mask-name" {
                    mask.names.push(name);
                } else {
                    mask.prefixes.push(name);
                }
            }
            Some("--landlock") => confinement.writable = Some(Vec::new()),
            Some("--write") => {
                let path = value("--write")?;
                confinement
                    .writable
                    .get_or_insert_with(Vec::new)
                    .push(path.into());
            }
            Some("--require-landlock") => confinement.require_landlock = true,
            Some("--egress") => {
                confinement
                    .egress
                    .get_or_insert_with(EgressRoutes::default)
                    .socket = value("--egress")?.into();
            }
            Some("--egress-route") => {
                let route = value("--egress-route")?;
                let Some(egress) = confinement.egress.as_mut() else {
                    return Err(SetupError::Arguments(
                        "--egress-route comes after --egress".to_owned(),
                    ));
                };
                let parsed = route.to_str().and_then(|route| {
                    let (port, destination) = route.split_once('=')?;
                    Some((port.parse::<u16>().ok()?, destination.to_owned()))
                });
                egress.routes.push(parsed.ok_or_else(|| {
                    SetupError::Arguments(format!(
                        "--egress-route takes PORT=HOST:PORT, not {route:?}"
                    ))
                })?);
            }
            Some("--probe") => request.probe = true,
            Some("--init") => request.init = Some(true),
            Some("--init-without-lifeline") => request.init = Some(false),
            Some("--") => {
                request.program = arguments.collect();
                break;
            }
            _ => {
                return Err(SetupError::Arguments(format!(
                    "unknown launcher argument {argument:?}"
                )));
            }
        }
    }
    if request.program.is_empty() && !request.probe && request.init.is_none() {
        return Err(SetupError::Arguments("no program to run".to_owned()));
    }
    Ok(request)
}

/// Set up `request` and run its program (see the module comment). Returns only on failure (or
/// after a probe).
pub(super) fn launch(arguments: impl Iterator<Item = OsString>) -> Result<(), SetupError> {
    let request = parse(arguments)?;
    if let Some(lifeline) = request.init {
        return init::run(lifeline);
    }
    nix::unistd::setsid().map_err(could("start a session of its own (setsid)"))?;
    let confinement = &request.confinement;
    // The network alone (an MCP stdio server under network rules): no mounts, no Landlock.
    let network_only = confinement.is_network_only();
    if confinement.egress.is_some()
        && !(confinement.namespace && confinement.loopback_only)
        && !network_only
    {
        // Without a network namespace of its own the command would have the host's network:
        // the rules could not hold (SPEC §20).
        return Err(SetupError::Unavailable(
            "network rules need the command's own network namespace (--namespace \
             --no-network)"
                .to_owned(),
        ));
    }
    let mut rules = Rules {
        writable: confinement.writable.clone().unwrap_or_default(),
        unreadable: Vec::new(),
        readable: Vec::new(),
        tcp: !confinement.loopback_only,
    };
    let mut proxy_variables = Vec::new();
    if let Some(egress) = confinement.egress.as_ref().filter(|_| network_only) {
        proxy_variables = enter_network_namespace(egress, request.probe)?;
    } else if confinement.namespace {
        let (terminals, variables) = enter_namespaces(confinement, request.probe)?;
        proxy_variables = variables;
        if terminals {
            rules
                .writable
                .extend(PRIVATE_TERMINALS.iter().map(PathBuf::from));
        }
        // The network namespace closes the network; its own loopback stays usable.
        rules.tcp = true;
    } else {
        // No mount namespace hides pincer's files: Landlock keeps them unreadable.
        rules.unreadable = confinement.unreadable_without_namespace();
        rules.readable = confinement.revealed.clone();
    }
    // A probe checks that the namespaces can be made; it starts nothing in them.
    let first = if confinement.namespace && confinement.pid && !request.probe {
        Some(init::start()?)
    } else {
        None
    };
    if confinement.writable.is_some() {
        let support = restrict_current_thread(&rules);
        if confinement.require_landlock && !support.is_enforced() {
            return Err(SetupError::Unavailable(format!(
                "Landlock could not be applied, so the command was not started ({})",
                support.describe()
            )));
        }
        if !confinement.namespace {
            // No namespace hides the host's sockets or closes the network.
            seccomp::restrict_sockets(!confinement.loopback_only)?;
        }
    }
    if request.probe {
        return writeln!(std::io::stdout(), "{}", super::launcher_answer())
            .map_err(could("answer the probe"));
    }
    let Some((program, args)) = request.program.split_first() else {
        return Err(SetupError::Arguments("no program to run".to_owned()));
    };
    let mut command = Command::new(program);
    command.args(args);
    for name in SESSION_VARIABLES {
        command.env_remove(name);
    }
    command.envs(proxy_variables);
    // The forwarders are threads of this process: it stays, as long as the command does.
    if first.is_none() && confinement.egress.is_none() {
        // Only returns on failure.
        let error = command.exec();
        return Err(could(format!("start {}", program.to_string_lossy()))(error));
    }
    let status = command
        .spawn()
        .and_then(|mut child| child.wait())
        .map_err(could(format!("start {}", program.to_string_lossy())))?;
    // The namespace's first process learns that the command is done when this one is gone.
    drop(first);
    exit_like(status)
}

/// The variables that point a command at the egress proxy (`HTTP_PROXY=http://127.0.0.1:PORT`).
type ProxyVariables = Vec<(&'static str, String)>;

/// Listen on the namespace's loopback for the command's way out (step 6 of the module comment):
/// a free port to the proxy, and each fixed route's port to its destination. Returns the
/// variables that point the command's clients at the proxy's port.
fn start_forwarders(egress: &EgressRoutes) -> Result<ProxyVariables, SetupError> {
    use pincer_egress::forwarder::{self, Route};
    let serve = |port: u16, route: Route| -> Result<u16, SetupError> {
        let listeners = forwarder::bind_loopback(port)
            .map_err(could(format!("listen on port {port} of the loopback")))?;
        let bound = listeners
            .first()
            .and_then(|listener| listener.local_addr().ok())
            .map_or(port, |address| address.port());
        for listener in listeners {
            forwarder::spawn(listener, egress.socket.clone(), route.clone())
                .map_err(could("start a forwarder to the egress proxy"))?;
        }
        Ok(bound)
    };
    let port = serve(0, Route::Proxy)?;
    for (route_port, destination) in &egress.routes {
        serve(*route_port, Route::Connect(destination.clone()))?;
    }
    Ok(forwarder::proxy_variables(port))
}

/// End this process the way `status` says the command ended: with its exit code, or by its
/// signal (when this process can die of it; else 128 + the signal, as a shell reports it).
fn exit_like(status: std::process::ExitStatus) -> ! {
    if let Some(signal) = status.signal()
        && let Ok(signal) = nix::sys::signal::Signal::try_from(signal)
    {
        let _ = std::io::stdout().flush();
        let _ = nix::sys::signal::kill(nix::unistd::getpid(), signal);
        std::process::exit(128 + signal as i32);
    }
    std::process::exit(status.code().unwrap_or(1))
}

/// Enter a user and network namespace whose only interface is loopback, with the forwarders to
/// the egress proxy on it (not for a probe), and nothing else: the mounts stay the host's.
/// Returns the variables that point the command at the proxy.
fn enter_network_namespace(
    egress: &EgressRoutes,
    probe: bool,
) -> Result<ProxyVariables, SetupError> {
    let uid = nix::unistd::getuid();
    let gid = nix::unistd::getgid();
    new_user_namespace(uid, gid, CloneFlags::CLONE_NEWNET)?;
    loopback_up()?;
    if probe {
        return Ok(Vec::new());
    }
    start_forwarders(egress)
}

/// Enter the private namespaces and make the mounts (steps 2–4 of the module comment), with the
/// forwarders of step 6 when asked (not for a probe). Returns whether the command got
/// pseudo-terminals of its own, and the variables that point it at the egress proxy.
fn enter_namespaces(
    confinement: &Confinement,
    probe: bool,
) -> Result<(bool, ProxyVariables), SetupError> {
    let uid = nix::unistd::getuid();
    let gid = nix::unistd::getgid();
    let sockets = host_sockets(&confinement.reachable);
    new_user_namespace(uid, gid, CloneFlags::empty())?;
    mount(
        None::<&str>,
        "/",
        None::<&str>,
        MsFlags::MS_REC | MsFlags::MS_PRIVATE,
        None::<&str>,
    )
    .map_err(could("make the mounts private"))?;
    // Opened before anything is covered: a descriptor still reaches what a tmpfs hides.
    let revealed = mounts::open_revealed(&confinement.revealed)?;
    for mask in &confinement.masked {
        mounts::mask(mask)?;
    }
    for path in confinement.hidden.iter().chain(&sockets) {
        let inside: Vec<&(PathBuf, OwnedFd)> = revealed
            .iter()
            .filter(|(directory, _)| directory.starts_with(path) && directory != path)
            .collect();
        mounts::hide(path, &inside)?;
    }
    let terminals = mounts::private_terminals()?;
    for path in &confinement.read_only {
        if path.exists() {
            mounts::bind_read_only(path, path, MsFlags::empty())?;
        }
    }
    // Mounts inherited by a less privileged user namespace are locked to what they cover.
    let mut more = CloneFlags::empty();
    let forwarding = confinement.egress.as_ref().filter(|_| !probe);
    // A process that has made a PID namespace for its children can start no more threads: with
    // forwarders to start, the PID namespace comes after them.
    if confinement.pid && forwarding.is_none() {
        more |= CloneFlags::CLONE_NEWPID;
    }
    if confinement.loopback_only {
        more |= CloneFlags::CLONE_NEWNET;
    }
    new_user_namespace(uid, gid, more)?;
    if confinement.loopback_only {
        loopback_up()?;
    }
    let mut proxy_variables = Vec::new();
    if let Some(egress) = forwarding {
        proxy_variables = start_forwarders(egress)?;
        if confinement.pid {
            // The threads made so far keep the namespace they were made in, and with it the
            // right to start the threads of each connection.
            unshare(CloneFlags::CLONE_NEWPID).map_err(could("make a PID namespace"))?;
        }
    }
    // The working directory still refers to what was there before the mounts (a cwd inside
    // `.git` would write past the read-only bind): look it up again.
    let here = std::env::current_dir().map_err(could("read the working directory"))?;
    std::env::set_current_dir(&here).map_err(could(format!("enter {}", here.display())))?;
    Ok((terminals, proxy_variables))
}

fn new_user_namespace(
    uid: nix::unistd::Uid,
    gid: nix::unistd::Gid,
    more: CloneFlags,
) -> Result<(), SetupError> {
    unshare(CloneFlags::CLONE_NEWUSER | CloneFlags::CLONE_NEWNS | more).map_err(|error| {
        SetupError::Unavailable(format!(
            "user namespaces are not available (unshare: {error})"
        ))
    })?;
    let write = |file: &str, text: String| {
        std::fs::write(file, text).map_err(could(format!("write {file}")))
    };
    write("/proc/self/setgroups", "deny".to_owned())?;
    write("/proc/self/uid_map", format!("{uid} {uid} 1\n"))?;
    write("/proc/self/gid_map", format!("{gid} {gid} 1\n"))
}

/// The first process of a command's PID namespace.
///
/// The launcher starts it (itself, as [`ARG0`] `--init`) right after entering the namespaces,
/// with pincer's pidfd as stdin and the write end of a pipe as stdout. It mounts the
/// namespace's `/proc` (with `CAP_SYS_ADMIN` passed as an ambient capability, dropped right
/// after), says it is ready, then reaps whatever is reparented to it. It exits — and the kernel
/// then kills everything left in the namespace — when pincer is gone (the pidfd becomes
/// readable), or when the launcher is gone (the pipe's reader closed: the command is done) and
/// nothing is left to reap. pincer kills it with the command's process group at the command's
/// timeout, on SIGINT or SIGTERM and at the end of the run.
mod init {
    use super::*;
    use nix::errno::Errno;
    use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
    use nix::sys::signal::{SigSet, SigmaskHow, Signal, sigprocmask};
    use nix::sys::signalfd::{SfdFlags, SignalFd};
    use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
    use rustix::thread::{CapabilitySet, CapabilitySets};

    /// The started first process: dropping it lets it know the command is done.
    pub(super) struct First {
        _reader: std::io::PipeReader,
    }

    /// Start the namespace's first process and wait until it is ready.
    pub(in super::super) fn start() -> Result<First, SetupError> {
        let failed = could::<std::io::Error>("start the namespace's first process");
        // pincer's pidfd: the first process watches it. An old kernel has none; then pincer's
        // end of the run (which kills the process group) is what ends the namespace.
        let lifeline = rustix::process::pidfd_open(
            rustix::process::getppid()
                .ok_or_else(|| SetupError::Unavailable("pincer is already gone".to_owned()))?,
            rustix::process::PidfdFlags::empty(),
        )
        .ok();
        let (mut reader, writer) = std::io::pipe().map_err(&failed)?;
        with_ambient_admin(true)?;
        let mut command = Command::new(crate::sandbox::SELF_EXE);
        command
            .arg0(ARG0)
            .stdout(Stdio::from(writer))
            .stderr(Stdio::null());
        match lifeline {
            Some(pidfd) => command.arg("--init").stdin(Stdio::from(pidfd)),
            None => command.arg("--init-without-lifeline").stdin(Stdio::null()),
        };
        let spawned = command.spawn();
        drop(command);
        with_ambient_admin(false)?;
        spawned.map_err(&failed)?;
        let mut ready = [0_u8; 1];
        reader.read_exact(&mut ready).map_err(&failed)?;
        Ok(First { _reader: reader })
    }

    /// Put `CAP_SYS_ADMIN` in (or take it out of) the inheritable and ambient sets, so that the
    /// first process keeps it across its exec.
    fn with_ambient_admin(on: bool) -> Result<(), SetupError> {
        let failed = could("pass the mount capability on");
        let mut sets: CapabilitySets = rustix::thread::capabilities(None).map_err(&failed)?;
        if on {
            sets.inheritable |= CapabilitySet::SYS_ADMIN;
        } else {
            sets.inheritable = CapabilitySet::empty();
        }
        rustix::thread::set_capabilities(None, sets).map_err(&failed)?;
        if on {
            rustix::thread::configure_capability_in_ambient_set(CapabilitySet::SYS_ADMIN, true)
                .map_err(&failed)
        } else {
            rustix::thread::clear_ambient_capability_set().map_err(&failed)
        }
    }

    /// The first process's life (see the module comment). Only returns on failure.
    pub(in super::super) fn run(watch_pincer: bool) -> Result<(), SetupError> {
        // Best effort: without it the command sees the system's /proc, still through its own
        // process id.
        let _ = mounts::private_proc();
        let _ = rustix::thread::clear_ambient_capability_set();
        let _ = rustix::thread::set_capabilities(
            None,
            CapabilitySets {
                effective: CapabilitySet::empty(),
                permitted: CapabilitySet::empty(),
                inheritable: CapabilitySet::empty(),
            },
        );
        let mut children = SigSet::empty();
        children.add(Signal::SIGCHLD);
        sigprocmask(SigmaskHow::SIG_BLOCK, Some(&children), None)
            .map_err(could("block SIGCHLD"))?;
        let reaped = SignalFd::with_flags(&children, SfdFlags::SFD_NONBLOCK)
            .map_err(could("watch its children"))?;
        let mut stdout = std::io::stdout();
        stdout
            .write_all(b"1")
            .and_then(|()| stdout.flush())
            .map_err(could("say it is ready"))?;
        let mut launcher_gone = false;
        loop {
            let stdin = std::io::stdin();
            let stdout = std::io::stdout();
            let mut watched = vec![PollFd::new(reaped.as_fd(), PollFlags::POLLIN)];
            if watch_pincer {
                watched.push(PollFd::new(stdin.as_fd(), PollFlags::POLLIN));
            }
            if !launcher_gone {
                watched.push(PollFd::new(stdout.as_fd(), PollFlags::empty()));
            }
            match poll(&mut watched, PollTimeout::NONE) {
                Ok(_) | Err(Errno::EINTR) => {}
                Err(error) => return Err(could("wait")(error)),
            }
            let fired = |index: usize| {
                watched
                    .get(index)
                    .and_then(PollFd::revents)
                    .is_some_and(|events| !events.is_empty())
            };
            if watch_pincer && fired(1) {
                std::process::exit(0);
            }
            let launcher_index = if watch_pincer { 2 } else { 1 };
            if !launcher_gone && fired(launcher_index) {
                launcher_gone = true;
            }
            if fired(0) {
                while let Ok(Some(_)) = reaped.read_signal() {}
            }
            loop {
                match waitpid(None, Some(WaitPidFlag::WNOHANG)) {
                    Ok(WaitStatus::StillAlive) => break,
                    Ok(_) => {}
                    Err(Errno::ECHILD) if launcher_gone => std::process::exit(0),
                    Err(_) => break,
                }
            }
        }
    }
}
