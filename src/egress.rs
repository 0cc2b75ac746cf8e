//! The network by name of a run (SPEC §20, issue #50): the rules from `--allow-host` and
//! `[sandbox.network]`, resolved once into a [`Policy`], and the egress proxy that enforces them
//! for the run's confined commands.
//!
//! Only the user's config (and `-c`) and the command line carry rules: pincer reads no
//! configuration from a repository (SPEC §21), so a repository cannot widen the network.
//!
//! The proxy ([`RunEgress`]) listens on a unix socket, `proxy.sock` in a directory of its own
//! (mode 0700, in the system's temp dir, outside the roots where it can be). It is started by
//! the first confined command that needs it ([`crate::tools::Egress::start`]), on a thread of
//! its own with a small runtime: the run's runtime is single-threaded, and a command is waited
//! for on other threads, so a proxy there could be starved by any blocking wait of the turn.
//! Each refused host is said once on stderr as it happens and queued for the turn's events;
//! every refusal is counted for the result's `network_denials`. Dropping the handle (the end of
//! the run) stops the proxy and removes its directory.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use pincer_egress::proxy::Proxy;
use pincer_egress::{Denial, Policy, RuleError};

use crate::settings::NetworkRules;

/// The rules in force for a run: `[sandbox.network]` from the user's config, then each
/// `--allow-host` (already checked as the flag was read).
pub(crate) fn policy(config: &NetworkRules, allow_host: &[String]) -> Result<Policy, RuleError> {
    let mut policy = Policy::new();
    for pattern in config.allow.iter().chain(allow_host) {
        policy.allow(pattern)?;
    }
    for pattern in &config.deny {
        policy.deny(pattern)?;
    }
    for (host, addresses) in &config.resolve {
        policy.pin(host, addresses)?;
    }
    Ok(policy)
}

/// The hosts claude's settings (`--settings FILE|JSON`, as claude's Agent SDK passes its
/// `sandbox` option) allow and deny: `sandbox.network.allowedDomains` and `deniedDomains`, each
/// checked as a rule. The user named each file on the command line, as with `--allow-host`.
/// Unreadable files and bad JSON are the hooks loader's to report; a bad pattern is named here
/// with where it was written.
pub(crate) fn from_claude_settings(
    settings: &[String],
) -> Result<(Vec<String>, Vec<String>), String> {
    let (mut allow, mut deny) = (Vec::new(), Vec::new());
    for flag in settings {
        let (text, origin) = if flag.trim_start().starts_with('{') {
            (flag.clone(), "--settings JSON".to_owned())
        } else {
            let Ok(text) = std::fs::read_to_string(flag) else {
                continue;
            };
            (text, format!("--settings '{flag}'"))
        };
        let Ok(value) = serde_json::from_str::<serde_json::Value>(&text) else {
            continue;
        };
        for (key, into) in [("allowedDomains", &mut allow), ("deniedDomains", &mut deny)] {
            let Some(list) = value.pointer(&format!("/sandbox/network/{key}")) else {
                continue;
            };
            let patterns = list.as_array().ok_or_else(|| {
                format!("{origin}: sandbox.network.{key} must be a list of host patterns")
            })?;
            for pattern in patterns {
                let pattern = pattern.as_str().ok_or_else(|| {
                    format!("{origin}: sandbox.network.{key} holds {pattern}, not a host pattern")
                })?;
                pincer_egress::Rule::parse(pattern)
                    .map_err(|error| format!("{origin}: sandbox.network.{key}: {error}"))?;
                into.push(pattern.to_owned());
            }
        }
    }
    Ok((allow, deny))
}

/// `--allow-host`'s value parser: the pattern as written, once it reads as a rule.
pub(crate) fn allow_host_pattern(pattern: &str) -> Result<String, String> {
    pincer_egress::Rule::parse(pattern)
        .map(|_| pattern.to_owned())
        .map_err(|error| error.to_string())
}

/// The rules in one line, for `status`, `--dry-run` and the init event: `allow: …; deny: …;
/// resolve: …`.
pub(crate) fn describe(policy: &Policy) -> String {
    let list = |rules: &[pincer_egress::Rule]| {
        rules
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut parts = vec![format!("allow {}", list(policy.allowed()))];
    if !policy.denied().is_empty() {
        parts.push(format!("deny {}", list(policy.denied())));
    }
    for pin in policy.pins() {
        let addresses: Vec<String> = pin
            .addresses
            .iter()
            .map(|(address, port)| match (address, port) {
                (std::net::IpAddr::V6(v6), Some(port)) => format!("[{v6}]:{port}"),
                (address, Some(port)) => format!("{address}:{port}"),
                (address, None) => address.to_string(),
            })
            .collect();
        let host = match pin.port {
            Some(port) => format!("{}:{port}", pin.name),
            None => pin.name.to_string(),
        };
        parts.push(format!("{host} resolves to {}", addresses.join(", ")));
    }
    parts.join("; ")
}

/// The stderr line of a refused host: the denial and what to allow.
pub(crate) fn denial_line(denial: &Denial) -> String {
    match denial.hint() {
        Some(hint) => format!("network: {denial} ({hint})"),
        None => format!("network: {denial}"),
    }
}

/// The egress proxy of a run (see the module comment).
pub(crate) struct RunEgress {
    /// Declared first: dropped (the proxy stopped) before the directory is removed.
    started: Mutex<Option<Started>>,
    proxy: Proxy,
    socket: PathBuf,
    /// Hosts refused and not yet reported as events.
    new: Arc<Mutex<Vec<Denial>>>,
    _directory: tempfile::TempDir,
}

/// A serving proxy: its thread and what stops it.
struct Started {
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Started {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl RunEgress {
    /// The proxy for `policy`, not started yet, with its directory made; `warn` says each
    /// refused host once. `roots` are the run's roots, which the directory must stay out of.
    pub(crate) fn new(
        policy: Policy,
        roots: &[PathBuf],
        warn: Arc<dyn Fn(&str) + Send + Sync>,
    ) -> std::io::Result<RunEgress> {
        let directory = private_directory(roots)?;
        let socket = directory.path().join("proxy.sock");
        let new: Arc<Mutex<Vec<Denial>>> = Arc::default();
        let queued = Arc::clone(&new);
        let proxy = Proxy::builder(policy)
            .on_denial(move |denial: &Denial| {
                warn(&denial_line(denial));
                queued
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(denial.clone());
            })
            .build();
        Ok(RunEgress {
            started: Mutex::new(None),
            proxy,
            socket,
            new,
            _directory: directory,
        })
    }
}

/// A 0700 directory for the proxy's socket in the system's temp dir, or in `/tmp` when that one
/// lies inside a root (a command could replace the socket there).
fn private_directory(roots: &[PathBuf]) -> std::io::Result<tempfile::TempDir> {
    let system = std::env::temp_dir();
    let inside = |directory: &Path| {
        let directory = directory.canonicalize().unwrap_or(directory.to_path_buf());
        roots.iter().any(|root| directory.starts_with(root))
    };
    let parent = if inside(&system) && !inside(Path::new("/tmp")) {
        PathBuf::from("/tmp")
    } else {
        system
    };
    use std::os::unix::fs::PermissionsExt as _;
    // 0700 from the start (SPEC §21): not the umask's mode.
    tempfile::Builder::new()
        .prefix("pincer-egress-")
        .permissions(std::fs::Permissions::from_mode(0o700))
        .tempdir_in(parent)
}

impl crate::tools::Egress for RunEgress {
    fn socket(&self) -> &Path {
        &self.socket
    }

    fn start(&self) -> std::io::Result<()> {
        let mut started = self.started.lock().unwrap_or_else(PoisonError::into_inner);
        if started.is_some() {
            return Ok(());
        }
        let listener = std::os::unix::net::UnixListener::bind(&self.socket)?;
        listener.set_nonblocking(true)?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let proxy = self.proxy.clone();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("egress-proxy".to_owned())
            .spawn(move || {
                runtime.block_on(async move {
                    let Ok(listener) = tokio::net::UnixListener::from_std(listener) else {
                        return;
                    };
                    tokio::select! {
                        _ = proxy.serve(listener) => {}
                        _ = stopped => {}
                    }
                });
            })?;
        *started = Some(Started {
            stop: Some(stop),
            thread: Some(thread),
        });
        Ok(())
    }

    fn take_new_denials(&self) -> Vec<Denial> {
        std::mem::take(&mut *self.new.lock().unwrap_or_else(PoisonError::into_inner))
    }

    fn denials(&self) -> Vec<Denial> {
        self.proxy.denials()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rules_come_from_the_config_then_the_flags_and_read_back_in_one_line() {
        let config = NetworkRules {
            allow: vec!["@npm".to_owned()],
            deny: vec!["evil.pythonhosted.org".to_owned()],
            resolve: vec![(
                "registry.npmjs.org".to_owned(),
                vec!["127.0.0.1:4873".to_owned()],
            )],
        };
        let policy = policy(&config, &["localhost:5432".to_owned()]).unwrap();
        assert_eq!(
            policy.loopback_routes(),
            [(5432, "localhost:5432".to_owned())]
        );
        assert_eq!(
            describe(&policy),
            "allow registry.npmjs.org (@npm), registry.yarnpkg.com (@npm), localhost:5432; \
             deny evil.pythonhosted.org; registry.npmjs.org resolves to 127.0.0.1:4873"
        );
        assert!(allow_host_pattern("*").unwrap_err().contains("\"*\""));
        assert_eq!(allow_host_pattern("@pypi").unwrap(), "@pypi");
    }

    #[test]
    fn the_proxy_starts_once_on_its_private_socket_refuses_what_no_rule_allows_and_goes_away() {
        use crate::tools::Egress as _;
        use std::io::{Read as _, Write as _};
        use std::os::unix::fs::PermissionsExt as _;
        let said: Arc<Mutex<Vec<String>>> = Arc::default();
        let heard = Arc::clone(&said);
        let mut rules = Policy::new();
        rules.allow("registry.npmjs.org").unwrap();
        let egress = RunEgress::new(
            rules,
            &[],
            Arc::new(move |line: &str| heard.lock().unwrap().push(line.to_owned())),
        )
        .unwrap();
        let directory = egress.socket().parent().unwrap().to_path_buf();
        let mode = std::fs::metadata(&directory).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        // Nothing listens until a command needs it; then once.
        assert!(std::os::unix::net::UnixStream::connect(egress.socket()).is_err());
        egress.start().unwrap();
        egress.start().unwrap();
        for _ in 0..2 {
            let mut stream = std::os::unix::net::UnixStream::connect(egress.socket()).unwrap();
            stream
                .write_all(b"CONNECT evil.example.test:443 HTTP/1.1\r\nHost: evil.example.test:443\r\n\r\n")
                .unwrap();
            let mut answer = [0_u8; 12];
            stream.read_exact(&mut answer).unwrap();
            assert_eq!(&answer, b"HTTP/1.1 403");
        }
        let new = egress.take_new_denials();
        assert_eq!(new.len(), 1, "{new:?}");
        assert!(egress.take_new_denials().is_empty());
        assert_eq!(egress.denials()[0].count, 2);
        assert_eq!(
            *said.lock().unwrap(),
            [
                "network: refused a connection to evil.example.test:443: no rule allows it (to \
              allow it, pass --allow-host evil.example.test:443 (or add it to [sandbox.network] \
              allow))"
            ]
        );
        drop(egress);
        assert!(!directory.exists());
    }
}
