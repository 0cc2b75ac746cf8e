//! The cancellation of a whole `run`/`resume` (SPEC §2): SIGINT, SIGTERM and `--timeout` are
//! honoured in every phase, from reading stdin to the last tool, not only once the model is
//! called.
//!
//! [`CancelScope::start`] builds the command's runtime, installs the signal handlers and arms the
//! deadline (counted from process start) before anything waits; from then on a signal never kills
//! the process outright, it cancels the one [`Cancellation`] the turn watches. Every wait before
//! the turn — stdin, the session lock — goes through [`CancelScope::wait`], which gives up as soon
//! as the cancellation fires, so the command can still print its `result` and exit 124, 130 or
//! 143. The turn itself runs under [`CancelScope::block_on`]: it watches the cancellation on its
//! own and records the interrupted message before it returns.

use std::future::Future;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::cancel::{CancelReason, Cancellation};
use crate::error::{CliError, CliResult, Exit};
use crate::input::{self, InputError, Prompt, StdinOptions};
use crate::session::store::{SessionError, SessionLock};

/// The signal (SIGINT or SIGTERM) that reached the process, once one has: the codex face writes
/// nothing after it and ends by it (#47 item 16). An SDK's `interrupt` is not one. A static
/// with a reason: a signal reaches the process, not a turn, and the codex face's writer asks
/// after it from wherever it is when the process is ending.
static SIGNALLED: std::sync::OnceLock<CancelReason> = std::sync::OnceLock::new();

/// The signal that reached the process, if one has.
pub(crate) fn signal_received() -> Option<CancelReason> {
    SIGNALLED.get().copied()
}

/// Where a front-end that reads its own input while a turn runs (an agent SDK's `interrupt`)
/// finds the running turn's cancellation: a scope made [`CancelScope::interruptible`] puts it
/// here and takes it back when it ends. The front-end owns it and hands it to each turn.
#[derive(Debug, Clone, Default)]
pub(crate) struct Interrupt(Arc<std::sync::Mutex<Option<Cancellation>>>);

impl Interrupt {
    /// Cancel the turn running now, as a signal would, for `reason`. Whether one was running.
    pub(crate) fn cancel(&self, reason: CancelReason) -> bool {
        let current = self.slot().clone();
        current.is_some_and(|cancellation| {
            cancellation.cancel(reason);
            true
        })
    }

    fn slot(&self) -> std::sync::MutexGuard<'_, Option<Cancellation>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The runtime of one command and the cancellation that signals and the deadline fire.
pub(crate) struct CancelScope {
    /// The command's own runtime, or one a front-end keeps across its turns (an agent SDK's
    /// session, whose MCP servers are tasks of it).
    runtime: Arc<tokio::runtime::Runtime>,
    cancellation: Cancellation,
    watcher: tokio::task::JoinHandle<()>,
    deadline: Option<Instant>,
    /// Where a front-end may cancel it from, while it runs.
    interrupt: Option<Interrupt>,
}

impl CancelScope {
    /// Build the runtime, install SIGINT/SIGTERM handlers and arm `timeout` from `started`.
    pub(crate) fn start(started: Instant, timeout: Option<Duration>) -> CliResult<CancelScope> {
        CancelScope::start_on(Arc::new(runtime()?), started, timeout)
    }

    /// As [`CancelScope::start`], on `runtime`, which outlives the scope: what the command
    /// spawned on it and left running (a kept MCP server's connection) goes on between turns.
    pub(crate) fn start_on(
        runtime: Arc<tokio::runtime::Runtime>,
        started: Instant,
        timeout: Option<Duration>,
    ) -> CliResult<CancelScope> {
        use tokio::signal::unix::{SignalKind, signal};
        let cancellation = Cancellation::new();
        // Registering the handlers here, not in the task, closes the window in which a signal
        // would still kill the process with its default action.
        let (interrupt, terminate) = {
            let _entered = runtime.enter();
            (
                signal(SignalKind::interrupt()).ok(),
                signal(SignalKind::terminate()).ok(),
            )
        };
        let deadline = timeout.map(|timeout| started + timeout);
        // The waits for locks deep in the index and the credential store end by it too.
        if let Some(deadline) = deadline {
            crate::fs::set_wait_deadline(deadline);
        }
        let timer = deadline.map(tokio::time::Instant::from_std);
        let watcher = {
            let cancellation = cancellation.clone();
            runtime.spawn(async move {
                let (Some(mut interrupt), Some(mut terminate)) = (interrupt, terminate) else {
                    return;
                };
                let reason = tokio::select! {
                    _ = interrupt.recv() => CancelReason::Interrupt,
                    _ = terminate.recv() => CancelReason::Terminate,
                    () = sleep_until(timer) => CancelReason::Timeout,
                };
                if matches!(reason, CancelReason::Interrupt | CancelReason::Terminate) {
                    let _ = SIGNALLED.set(reason);
                }
                cancellation.cancel(reason);
            })
        };
        Ok(CancelScope {
            runtime,
            cancellation,
            watcher,
            deadline,
            interrupt: None,
        })
    }

    /// Let `interrupt`'s holder cancel this scope while it runs (none: only signals and the
    /// deadline do).
    pub(crate) fn interruptible(mut self, interrupt: Option<&Interrupt>) -> CancelScope {
        if let Some(interrupt) = interrupt {
            *interrupt.slot() = Some(self.cancellation.clone());
            self.interrupt = Some(interrupt.clone());
        }
        self
    }

    /// The cancellation the turn watches.
    pub(crate) fn cancellation(&self) -> &Cancellation {
        &self.cancellation
    }

    /// Run `future` to its end; the future watches the cancellation itself.
    pub(crate) fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.runtime.block_on(future)
    }

    /// Run `future` unless the command is cancelled first: then it is dropped and the reason is
    /// returned.
    pub(crate) fn wait<F: Future>(&self, future: F) -> Result<F::Output, CancelReason> {
        // A blocking wait before this one (a lock deep in the index) may have run past the
        // deadline while the timer could not fire: the command is over then.
        if self
            .deadline
            .is_some_and(|deadline| Instant::now() >= deadline)
        {
            self.cancellation.cancel(CancelReason::Timeout);
        }
        let token = self.cancellation.token.clone();
        self.runtime.block_on(async {
            tokio::select! {
                biased;
                () = token.cancelled() => Err(self.reason()),
                output = future => Ok(output),
            }
        })
    }

    /// Why the command was cancelled (a cancelled token always has a reason).
    fn reason(&self) -> CancelReason {
        self.cancellation
            .reason()
            .unwrap_or(CancelReason::Interrupt)
    }

    /// Read the prompt per the input contract (SPEC §2). The read runs on its own thread: a
    /// pipe that sends some bytes and then stays open blocks `read`, and only a thread can be
    /// left behind in it when a signal or the timeout ends the command.
    pub(crate) fn read_prompt(
        &self,
        argument: Option<&str>,
        options: StdinOptions,
    ) -> Result<Result<Prompt, InputError>, CancelReason> {
        let (sender, receiver) = tokio::sync::oneshot::channel();
        let argument = argument.map(str::to_owned);
        let spawned = std::thread::Builder::new()
            .name("pincer-stdin".to_owned())
            .spawn(move || {
                let _ = sender.send(input::read_prompt(argument.as_deref(), options));
            });
        if let Err(error) = spawned {
            return Ok(Err(InputError::Read(format!(
                "cannot start the stdin reader: {error}"
            ))));
        }
        self.wait(receiver).map(|received| {
            received
                .unwrap_or_else(|_| Err(InputError::Read("the stdin reader stopped".to_owned())))
        })
    }

    /// Lock the session at `path`, waiting up to `wait` for another run to let go (none: fail at
    /// once when busy). The wait ends early when the command is cancelled.
    pub(crate) fn lock_session(
        &self,
        path: &Path,
        wait: Option<Duration>,
    ) -> Result<Result<SessionLock, SessionError>, CancelReason> {
        self.wait(wait_for_lock(path, wait))
    }
}

impl Drop for CancelScope {
    fn drop(&mut self) {
        if let Some(interrupt) = &self.interrupt {
            *interrupt.slot() = None;
        }
        self.watcher.abort();
    }
}

/// Sleep until `deadline`, or forever without one.
async fn sleep_until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

/// Try the lock, sleeping between attempts on the runtime (so that the wait can be cancelled)
/// with the pauses the blocking lock uses.
async fn wait_for_lock(path: &Path, wait: Option<Duration>) -> Result<SessionLock, SessionError> {
    let deadline = wait.map(|wait| Instant::now() + wait);
    let mut pauses = crate::fs::lock_pauses();
    loop {
        match SessionLock::acquire(path, None) {
            Err(SessionError::Busy { .. }) if deadline.is_some_and(|end| Instant::now() < end) => {
                let left = deadline.map_or(Duration::ZERO, |end| end - Instant::now());
                let pause = pauses.next().unwrap_or(left);
                tokio::time::sleep(pause.min(left)).await;
            }
            other => return other,
        }
    }
}

/// The error that ends a command cancelled before its turn started: exit 124, 130 or 143.
pub(crate) fn cancelled_error(reason: CancelReason) -> CliError {
    CliError::new(crate::error::Exit::from(reason), reason.message())
}

/// The single-threaded runtime a command waits and calls models on.
pub(crate) fn runtime() -> CliResult<tokio::runtime::Runtime> {
    let failed = |error: std::io::Error| {
        let message = format!("cannot start the runtime: {error}");
        crate::error::resource_error(&message, &error)
            .unwrap_or_else(|| CliError::new(Exit::RunFailed, message))
    };
    // The first runtime of a process opens five file descriptors (an epoll, an eventfd, a socket
    // pair for signals and a copy of one end), and tokio panics instead of failing when the
    // socket pair cannot be made (`ulimit -n 7` did that): so many must be free first.
    reserve_file_descriptors().map_err(failed)?;
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(failed)
}

/// Open and close six file descriptors (three pipes): an error when this process cannot.
fn reserve_file_descriptors() -> std::io::Result<()> {
    let mut held = Vec::with_capacity(3);
    for _ in 0..3 {
        held.push(std::io::pipe()?);
    }
    Ok(())
}
