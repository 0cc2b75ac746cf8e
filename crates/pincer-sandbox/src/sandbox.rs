//! What the file tools, `exec` and `web_fetch` may touch (SPEC §10 "Sandbox modes").
//!
//! A [`Sandbox`] is plain data: the mode, the roots that confined tools may use (the workspace,
//! the directories added with `--add-dir` / `tools.add_dirs`, and the run's private temp dir, all
//! canonical), the protected paths inside them that stay read-only (`.git`, `.pincer`, `.claude`,
//! `.codex` inside the workspace and inside every added directory, pincer's own dirs), what
//! `exec` needs on top ([`ExecSetup`]: the paths its commands see read-only or not at all, its
//! environment, its temp dir and the launcher) and what `web_fetch` may reach ([`WebAccess`]).
//! [`super::paths`] enforces it for the file tools and [`super::confine`] turns it into a
//! confinement for commands. An added directory is a root exactly like the workspace: the same
//! symlink-safe confinement, the same protected names, writable by commands in `workspace-write`.
//!
//! pincer's own directories (config, data, state) are hidden from commands whole, except one that
//! contains the workspace or the temp dir: hiding it would hide the workspace, so its known
//! entries (`config.toml`, `auth-profiles.json`, `sessions/`, `state/`, `workspace/`) are hidden
//! one by one instead and the directory is reported in [`ExecSetup::unhidden`].
//!
//! Skills listed in the prompt (SPEC §6.5) may lie outside the roots, a global one even inside
//! pincer's config directory: [`Sandbox::allow_reading`] makes each skill's directory a
//! read-only root of the file tools and, when it lies inside a hidden directory, shows that
//! directory (and nothing else of what is hidden) to commands again, read-only
//! ([`ExecSetup::revealed`]), so the scripts a skill ships can run.

use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

pub use crate::conversation::SandboxMode;
use crate::paths::Paths;

/// The program that is pincer itself, whatever it was started as and even once replaced on disk.
pub(super) const SELF_EXE: &str = "/proc/self/exe";

/// The names inside every root that hold a repository or an agent's configuration: the file
/// tools never write them and `exec` sees them read-only. They are what pincer declares it
/// consumes ([`crate::consumed::REGISTRY`]), not a list kept here.
pub fn protected_in_workspace() -> impl Iterator<Item = &'static str> {
    crate::consumed::protected_names()
}

/// The confinement a tool call runs under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sandbox {
    /// How much the tools may do.
    pub mode: SandboxMode,
    /// Canonical directories the confined tools may read and (in `workspace-write`) write: the
    /// workspace first, then the added directories, then the private temp dir.
    pub writable_roots: Vec<PathBuf>,
    /// The roots added with `--add-dir` / `tools.add_dirs` (canonical, in order, without the
    /// workspace), for the system prompt, `--dry-run` and `status`.
    pub added_dirs: Vec<PathBuf>,
    /// Canonical paths inside the roots that the file tools never write.
    pub protected: Vec<PathBuf>,
    /// Canonical directories (or files) outside the writable roots that the file tools may read
    /// and never write: the listed skills' (see [`Sandbox::allow_reading`]).
    pub read_only_roots: Vec<PathBuf>,
    /// What `exec` commands get.
    pub exec: ExecSetup,
    /// What `web_fetch` may reach.
    pub web: WebAccess,
}

/// What `web_fetch` may reach besides the public internet.
#[derive(Debug, Clone, Default)]
pub struct WebAccess {
    /// `tools.web_fetch.allow_private`: loopback, private, link-local and other non-public
    /// addresses are reachable too (off by default: the SSRF guard).
    pub allow_private: bool,
    /// The run's tool policy, asked again about every redirect target so that a URL pattern
    /// (`web_fetch(https://docs.rs/*)`) cannot be left through a redirect. `None`: redirects are
    /// only checked by the address guard (tests).
    pub policy: Option<Arc<dyn UrlGate>>,
    /// The run's network rules (SPEC §20), when they limit the network: a host and port they
    /// do not admit is refused, first URL and every redirect alike.
    pub network_rules: Option<Arc<pincer_egress::Policy>>,
}

/// What decides whether `web_fetch` may fetch a URL it was redirected to: the run's tool policy
/// (`policy.rs` implements it), asked as it was asked about the first URL.
pub trait UrlGate: std::fmt::Debug + Send + Sync {
    /// Why `web_fetch` may not fetch `url`; `None` when it may.
    fn refuse_url(&self, url: &str) -> Option<String>;
}

/// Compared by what they allow: the policy's presence, not its rules (which have no equality).
impl PartialEq for WebAccess {
    fn eq(&self, other: &WebAccess) -> bool {
        self.allow_private == other.allow_private
            && self.policy.is_some() == other.policy.is_some()
            && self.network_rules == other.network_rules
    }
}

impl Eq for WebAccess {}

/// What `exec` commands run with, besides the mode and roots. Its `Debug` form counts the
/// environment's variables instead of printing them (they may hold other secrets).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct ExecSetup {
    /// Paths bind-mounted read-only for commands, when they exist as a command starts.
    pub read_only: Vec<PathBuf>,
    /// pincer's own paths that commands do not see.
    pub hidden: Vec<PathBuf>,
    /// pincer's directories among `hidden`, made (mode 0700) before the run's first command
    /// when they do not exist yet, so that they are hidden from the start and no command can
    /// create them.
    pub made_hidden: Vec<PathBuf>,
    /// pincer's directories left visible because they contain a root (reported).
    pub unhidden: Vec<PathBuf>,
    /// Directories inside a hidden one that commands see again, read-only (a global skill's).
    pub revealed: Vec<PathBuf>,
    /// The run's private temp dir: `TMPDIR`, `TMP` and `TEMP` point there.
    pub temp_dir: Option<PathBuf>,
    /// Commands reach the network (`--allow-network`, `[sandbox] network = true`); otherwise
    /// only a loopback interface of their own.
    pub network: bool,
    /// The network by name (SPEC §20): the hosts commands may reach when `network` is off
    /// (`--allow-host`, `[sandbox.network]`). Empty: none, the network stays closed.
    pub network_rules: pincer_egress::Policy,
    /// The way out those rules are enforced on: the proxy pincer runs for the run. `None` (a
    /// report, pincer's own `git`): a command that asks for rules gets no network at all.
    pub egress: EgressHandle,
    /// Each command gets a PID namespace of its own, so that nothing it starts outlives the run
    /// (set by [`Sandbox::new`]). pincer's own `git status` goes without: every setting through
    /// which it could start a program is emptied, and the namespace's first process costs
    /// several milliseconds, on every run in a repository.
    pub pid_namespace: bool,
    /// The environment commands start with; `None` inherits pincer's (tests).
    pub environment: Option<Arc<Vec<(OsString, OsString)>>>,
    /// The executable that sets up the mount namespace (pincer itself); `None`: Landlock only.
    pub launcher: Option<PathBuf>,
    /// Told, once per run, which protection is in force when it is weaker than SPEC §10's.
    pub notice: Notice,
}

impl std::fmt::Debug for ExecSetup {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("ExecSetup")
            .field("read_only", &self.read_only)
            .field("hidden", &self.hidden)
            .field("made_hidden", &self.made_hidden)
            .field("unhidden", &self.unhidden)
            .field("revealed", &self.revealed)
            .field("temp_dir", &self.temp_dir)
            .field("network", &self.network)
            .field("network_rules", &self.network_rules)
            .field("egress", &self.egress)
            .field("pid_namespace", &self.pid_namespace)
            .field(
                "environment",
                &self
                    .environment
                    .as_ref()
                    .map(|variables| format!("{} variables", variables.len())),
            )
            .field("launcher", &self.launcher)
            .field("notice", &self.notice)
            .finish()
    }
}

/// The egress proxy of a run (SPEC §20), as the sandbox sees it: pincer's side (`src/egress.rs`)
/// runs it; the sandbox starts it before the first command that needs it and points the
/// launcher's forwarder at its socket.
pub trait Egress: Send + Sync {
    /// The proxy's unix socket, in a 0700 directory outside every root.
    fn socket(&self) -> &Path;
    /// Make sure the proxy serves its socket (the first call starts it; later ones return at
    /// once). An error refuses the command.
    fn start(&self) -> std::io::Result<()>;
    /// The hosts refused since the last call, each once (for the run's events).
    fn take_new_denials(&self) -> Vec<pincer_egress::Denial>;
    /// Every host refused so far, with its count (the result's `network_denials`).
    fn denials(&self) -> Vec<pincer_egress::Denial>;
}

/// A run's egress proxy, when it has one.
#[derive(Clone, Default)]
pub struct EgressHandle(pub Option<Arc<dyn Egress>>);

impl EgressHandle {
    /// The proxy, when there is one.
    pub fn get(&self) -> Option<&dyn Egress> {
        self.0.as_deref()
    }
}

impl std::fmt::Debug for EgressHandle {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.get() {
            Some(egress) => write!(formatter, "Egress({})", egress.socket().display()),
            None => formatter.write_str("Egress(none)"),
        }
    }
}

/// Compared by presence: which proxy serves the rules is not part of what a sandbox allows.
impl PartialEq for EgressHandle {
    fn eq(&self, other: &EgressHandle) -> bool {
        self.0.is_some() == other.0.is_some()
    }
}

impl Eq for EgressHandle {}

/// What says a notice (pincer's stderr, set up by `commands/`).
pub(super) type NoticeCallback = Arc<dyn Fn(&str) + Send + Sync>;

/// A callback for the one-line protection notice.
#[derive(Clone, Default)]
pub struct Notice(pub Option<NoticeCallback>);

impl Notice {
    /// Say `text` (nothing when no callback is set).
    pub fn say(&self, text: &str) {
        if let Some(callback) = &self.0 {
            callback(text);
        }
    }
}

impl std::fmt::Debug for Notice {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(if self.0.is_some() {
            "Notice(set)"
        } else {
            "Notice(none)"
        })
    }
}

/// Notices compare equal: who is told is not part of what a sandbox allows.
impl PartialEq for Notice {
    fn eq(&self, _other: &Notice) -> bool {
        true
    }
}

impl Eq for Notice {}

impl Sandbox {
    /// The sandbox for `mode` around `workspace` and the `added` directories: the roots are the
    /// workspace, the added directories and `temp_dir` (the run's private temp dir, when there
    /// is one); [`protected_in_workspace`] inside every root but the temp dir and pincer's own
    /// directories from `own` are protected, and hidden from commands as described in the module
    /// comment. Paths are canonicalized as far as they exist, so a protected dir that does not
    /// exist yet is still recognised once created. An added directory equal to the workspace, or
    /// given twice, counts once.
    pub fn new(
        mode: SandboxMode,
        workspace: &Path,
        added: &[PathBuf],
        own: &Paths,
        temp_dir: Option<&Path>,
    ) -> Sandbox {
        let mut canonical = Canonical::default();
        let workspace = canonical.target(workspace);
        let mut writable_roots = vec![workspace.clone()];
        for directory in added {
            let directory = canonical.target(directory);
            if !writable_roots.contains(&directory) {
                writable_roots.push(directory);
            }
        }
        let added_dirs = writable_roots[1..].to_vec();
        let mut in_roots: Vec<PathBuf> = Vec::new();
        for root in &writable_roots {
            for name in protected_in_workspace() {
                let path = canonical.target(&root.join(name));
                if !in_roots.contains(&path) {
                    in_roots.push(path);
                }
            }
        }
        let temp_dir = temp_dir.map(|temp| canonical.target(temp));
        if let Some(temp) = &temp_dir
            && !writable_roots.contains(temp)
        {
            writable_roots.push(temp.clone());
        }
        let (hidden, unhidden) = hide_plan(own, &writable_roots, &mut canonical);
        let made_hidden = hidden_directories(own, &hidden, &mut canonical);
        let mut protected = in_roots.clone();
        for path in &hidden {
            if !protected.contains(path) {
                protected.push(path.clone());
            }
        }
        Sandbox {
            mode,
            writable_roots,
            added_dirs,
            protected,
            read_only_roots: Vec::new(),
            exec: ExecSetup {
                read_only: in_roots,
                hidden,
                made_hidden,
                unhidden,
                temp_dir,
                launcher: Some(PathBuf::from(SELF_EXE)),
                pid_namespace: true,
                ..ExecSetup::default()
            },
            web: WebAccess::default(),
        }
    }

    /// Make the context files at the workspace's top (`names`, from
    /// the engine's `agent::context_files::read_only_names`: those the user did not name writable)
    /// read-only to the file tools and to commands: the loader puts them into the next run's
    /// system prompt (issue #45). A missing one gets no placeholder, unlike a missing `.claude`:
    /// eight directories named like the default files would show in every workspace, so a
    /// command can create one (README, residual risks); the file tools cannot.
    pub fn protect_context_files(&mut self, names: &[String]) {
        let Some(workspace) = self.writable_roots.first().cloned() else {
            return;
        };
        let mut canonical = Canonical::default();
        for name in names {
            let path = canonical.target(&workspace.join(name));
            if !path.starts_with(&workspace) {
                continue;
            }
            for list in [&mut self.protected, &mut self.exec.read_only] {
                if !list.contains(&path) {
                    list.push(path.clone());
                }
            }
        }
    }

    /// No confinement (`danger-full-access`) around `workspace`; for tests and callers that
    /// opted out.
    pub fn unrestricted(workspace: &Path) -> Sandbox {
        Sandbox {
            mode: SandboxMode::DangerFullAccess,
            writable_roots: vec![workspace.to_path_buf()],
            added_dirs: Vec::new(),
            protected: Vec::new(),
            read_only_roots: Vec::new(),
            exec: ExecSetup::default(),
            web: WebAccess::default(),
        }
    }

    /// Let the tools read, never write, the package whose main file is `file` (a skill's
    /// `SKILL.md`): its directory, with the scripts and references next to it, becomes a
    /// read-only root of the file tools — only `file` itself when that directory holds one of
    /// pincer's own paths (a `SKILL.md` at the top of the config directory must not open
    /// `auth-profiles.json`). A directory inside one of the paths hidden from commands is shown
    /// to them again, read-only. Nothing changes for a file already inside a root. Returns the
    /// path now readable.
    pub fn allow_reading(&mut self, file: &Path) -> PathBuf {
        let file = canonical_target(file);
        let own = |directory: &Path| {
            self.exec
                .hidden
                .iter()
                .chain(&self.exec.unhidden)
                .any(|path| path.starts_with(directory))
        };
        let root = match file.parent() {
            Some(directory) if !own(directory) => directory.to_path_buf(),
            _ => file,
        };
        let covered = |roots: &[PathBuf]| roots.iter().any(|known| root.starts_with(known));
        if covered(&self.writable_roots) || covered(&self.read_only_roots) {
            return root;
        }
        self.read_only_roots
            .retain(|known| !known.starts_with(&root));
        self.read_only_roots.push(root.clone());
        let hidden = self
            .exec
            .hidden
            .iter()
            .any(|hidden| root.starts_with(hidden) && root != *hidden);
        if hidden && root.is_dir() {
            self.exec.revealed.retain(|known| !known.starts_with(&root));
            self.exec.revealed.push(root.clone());
        }
        root
    }

    /// Whether `path` (canonical) is one of pincer's own files, which no tool reads or writes in
    /// a confined mode, whatever root holds it (SPEC §10): inside a hidden path (the config,
    /// data and state directories, or their entries where a directory holds a root) unless a
    /// listed skill's directory opened it, or a lock or staging file of pincer's in a directory
    /// that holds a root.
    pub fn owns(&self, path: &Path) -> bool {
        if !self.is_confined() {
            return false;
        }
        let reopened = self
            .read_only_roots
            .iter()
            .any(|root| path.starts_with(root));
        if !reopened
            && self
                .exec
                .hidden
                .iter()
                .any(|hidden| path.starts_with(hidden))
        {
            return true;
        }
        self.exec.unhidden.iter().any(|directory| {
            path.strip_prefix(directory)
                .ok()
                .and_then(|rest| rest.components().next())
                .is_some_and(|first| {
                    let name = first.as_os_str();
                    is_staging_name(name)
                        || self.exec.hidden.iter().any(|hidden| {
                            hidden.parent() == Some(directory)
                                && hidden.file_name().is_some_and(|hidden_name| {
                                    let mut lock = hidden_name.to_os_string();
                                    lock.push(".lock");
                                    name == lock
                                })
                        })
                })
        })
    }

    /// Whether the file tools are confined to the roots.
    pub fn is_confined(&self) -> bool {
        self.mode != SandboxMode::DangerFullAccess
    }

    /// The roots, comma-separated, for error messages.
    pub fn roots_display(&self) -> String {
        self.writable_roots
            .iter()
            .map(|root| root.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// How the names of the files pincer stages before a rename begin (`crate::fs`, the credential
/// store): what a write killed half-way leaves.
pub(super) const STAGING_PREFIXES: [&str; 2] = [".pincer-", ".auth-profiles-"];

/// Whether `name` is the name of one of pincer's staging files.
pub(super) fn is_staging_name(name: &std::ffi::OsStr) -> bool {
    STAGING_PREFIXES
        .iter()
        .any(|prefix| name.as_encoded_bytes().starts_with(prefix.as_bytes()))
}

/// pincer's paths to hide from commands, and its directories that cannot be hidden whole
/// because they contain one of `roots` (of those, every entry that holds no root is hidden,
/// known by name or not). Parents come before what they contain, and nothing inside an already
/// hidden directory is listed again.
fn hide_plan(
    own: &Paths,
    roots: &[PathBuf],
    resolve: &mut Canonical,
) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let mut canonical = |paths: &[&PathBuf]| -> Vec<PathBuf> {
        let mut list: Vec<PathBuf> = paths.iter().map(|path| resolve.target(path)).collect();
        list.sort_by_key(|path| path.components().count());
        list.dedup();
        list
    };
    let directories = canonical(&[&own.config_dir, &own.data_dir, &own.state_dir]);
    let entries = canonical(&[
        &own.config_file,
        &own.auth_file,
        &own.sessions_dir,
        &own.state_dir,
        &own.workspace_dir,
    ]);
    let holds_root = |path: &Path| roots.iter().any(|root| root.starts_with(path));
    let mut hidden: Vec<PathBuf> = Vec::new();
    let mut unhidden = Vec::new();
    for directory in &directories {
        if hidden.iter().any(|done| directory.starts_with(done)) {
            continue;
        }
        if !holds_root(directory) {
            hidden.push(directory.clone());
            continue;
        }
        unhidden.push(directory.clone());
        for entry in entries
            .iter()
            .filter(|entry| entry.starts_with(directory) && *entry != directory)
        {
            if !holds_root(entry) && !hidden.iter().any(|done| entry.starts_with(done)) {
                hidden.push(entry.clone());
            }
        }
        // Every other entry there as the run starts, whatever its name (issue #45: the ledger,
        // `usage-ledger.jsonl`, was not among the names above, and a command appended to it).
        let present = std::fs::read_dir(directory).into_iter().flatten().flatten();
        for entry in present {
            let path = resolve.target(&entry.path());
            if path.starts_with(directory)
                && path != *directory
                && !holds_root(&path)
                && !hidden.iter().any(|done| path.starts_with(done))
            {
                hidden.push(path);
            }
        }
    }
    (hidden, unhidden)
}

/// pincer's directories among `hidden` (canonical): its config, data and state directories
/// and, inside a directory that holds a root, its sessions, state and workspace directories.
fn hidden_directories(own: &Paths, hidden: &[PathBuf], resolve: &mut Canonical) -> Vec<PathBuf> {
    [
        &own.config_dir,
        &own.data_dir,
        &own.state_dir,
        &own.sessions_dir,
        &own.workspace_dir,
    ]
    .into_iter()
    .map(|directory| resolve.target(directory))
    .filter(|directory| hidden.contains(directory))
    .fold(Vec::new(), |mut directories, directory| {
        if !directories.contains(&directory) {
            directories.push(directory);
        }
        directories
    })
}

/// `path` (absolute) with every symbolic link resolved as far as it exists; the components
/// after the deepest existing ancestor are appended as written (`.` dropped, `..` applied).
pub fn canonical_target(path: &Path) -> PathBuf {
    Canonical::default().target(path)
}

/// [`canonical_target`] for the paths of one moment (a sandbox being set up): each path and
/// ancestor is looked up once, and one that does not exist costs a `stat` rather than
/// `realpath`'s walk, which reads every component before it finds out.
#[derive(Default)]
struct Canonical {
    resolved: std::collections::HashMap<PathBuf, Option<PathBuf>>,
}

impl Canonical {
    /// `path` resolved, when it exists.
    fn existing(&mut self, path: &Path) -> Option<PathBuf> {
        if let Some(known) = self.resolved.get(path) {
            return known.clone();
        }
        let found = std::fs::metadata(path)
            .ok()
            .and_then(|_| std::fs::canonicalize(path).ok());
        self.resolved.insert(path.to_path_buf(), found.clone());
        found
    }

    fn target(&mut self, path: &Path) -> PathBuf {
        if let Some(canonical) = self.existing(path) {
            return canonical;
        }
        let components: Vec<Component<'_>> = path.components().collect();
        for split in (0..components.len()).rev() {
            let prefix: PathBuf = components[..split].iter().collect();
            if prefix.as_os_str().is_empty() {
                continue;
            }
            if let Some(mut canonical) = self.existing(&prefix) {
                for component in &components[split..] {
                    match component {
                        Component::Normal(name) => canonical.push(name),
                        Component::ParentDir => {
                            canonical.pop();
                        }
                        Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
                    }
                }
                return canonical;
            }
        }
        path.to_path_buf()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_resolved_together_resolve_as_each_alone() {
        let directory = tempfile::tempdir().unwrap();
        let base = directory.path().canonicalize().unwrap();
        std::fs::create_dir_all(base.join("real/inner")).unwrap();
        std::os::unix::fs::symlink(base.join("real"), base.join("alias")).unwrap();
        std::os::unix::fs::symlink(base.join("gone"), base.join("dangling")).unwrap();
        let paths = [
            "alias/inner",
            "alias/missing/deeper/../file",
            "alias",
            "dangling",
            "dangling/below",
            "real/./inner/new",
            "missing/alias",
        ]
        .map(|path| base.join(path));
        let mut together = Canonical::default();
        for path in &paths {
            assert_eq!(together.target(path), canonical_target(path), "{path:?}");
        }
        assert_eq!(together.target(&paths[0]), base.join("real/inner"));
        assert_eq!(together.target(&paths[1]), base.join("real/missing/file"));
        assert_eq!(together.target(&paths[3]), base.join("dangling"));
    }

    #[test]
    fn a_new_sandbox_has_the_workspace_and_the_private_temp_dir_as_roots_and_protects_git() {
        let directory = tempfile::tempdir().unwrap();
        let base = directory.path().canonicalize().unwrap();
        let workspace = base.join("ws");
        let temp = base.join("tmp");
        std::fs::create_dir_all(&workspace).unwrap();
        std::fs::create_dir_all(&temp).unwrap();
        let own = Paths::under_home(&base.join("home"));
        let sandbox = Sandbox::new(
            SandboxMode::WorkspaceWrite,
            &workspace,
            &[],
            &own,
            Some(&temp),
        );
        assert_eq!(sandbox.writable_roots, [workspace.clone(), temp.clone()]);
        let in_workspace: Vec<PathBuf> = protected_in_workspace()
            .map(|name| workspace.join(name))
            .collect();
        let mut protected = in_workspace.clone();
        protected.push(base.join("home"));
        assert_eq!(sandbox.protected, protected);
        assert_eq!(sandbox.exec.read_only, in_workspace);
        // The state dir is inside the home: hiding the home hides it.
        assert_eq!(sandbox.exec.hidden, [base.join("home")]);
        assert!(sandbox.exec.unhidden.is_empty());
        assert_eq!(sandbox.exec.temp_dir, Some(temp));
        assert!(sandbox.is_confined());
    }

    #[test]
    fn added_directories_are_roots_with_their_own_protected_names() {
        let directory = tempfile::tempdir().unwrap();
        let base = directory.path().canonicalize().unwrap();
        let workspace = base.join("ws");
        let sibling = base.join("lib");
        let temp = base.join("tmp");
        for path in [&workspace, &sibling, &temp] {
            std::fs::create_dir_all(path).unwrap();
        }
        std::os::unix::fs::symlink(&sibling, base.join("lib-link")).unwrap();
        let own = Paths::under_home(&base.join("home"));
        let added = [base.join("lib-link"), sibling.clone(), workspace.join(".")];
        let sandbox = Sandbox::new(
            SandboxMode::WorkspaceWrite,
            &workspace,
            &added,
            &own,
            Some(&temp),
        );
        // Canonical, once each, the workspace not repeated; the temp dir last.
        assert_eq!(
            sandbox.writable_roots,
            [workspace.clone(), sibling.clone(), temp.clone()]
        );
        assert_eq!(sandbox.added_dirs, std::slice::from_ref(&sibling));
        let mut in_roots: Vec<PathBuf> = protected_in_workspace()
            .map(|name| workspace.join(name))
            .collect();
        in_roots.extend(protected_in_workspace().map(|name| sibling.join(name)));
        assert_eq!(sandbox.exec.read_only, in_roots);
        assert!(sandbox.protected.contains(&sibling.join(".git")));
        assert!(!sandbox.protected.contains(&temp.join(".git")));
        assert_eq!(
            sandbox.roots_display(),
            format!(
                "{}, {}, {}",
                workspace.display(),
                sibling.display(),
                temp.display()
            )
        );
    }

    #[test]
    fn the_xdg_directories_are_hidden_each() {
        let own = Paths {
            config_dir: "/u/.config/pincer".into(),
            data_dir: "/u/.local/share/pincer".into(),
            sessions_dir: "/u/.local/share/pincer/sessions".into(),
            config_file: "/u/.config/pincer/config.toml".into(),
            auth_file: "/u/.config/pincer/auth-profiles.json".into(),
            workspace_dir: "/u/.config/pincer/workspace".into(),
            state_dir: "/u/.local/state/pincer".into(),
        };
        let (hidden, unhidden) = hide_plan(&own, &["/u/project".into()], &mut Canonical::default());
        assert_eq!(
            hidden,
            [
                PathBuf::from("/u/.config/pincer"),
                "/u/.local/share/pincer".into(),
                "/u/.local/state/pincer".into()
            ]
        );
        assert!(unhidden.is_empty());
    }

    #[test]
    fn a_pincer_directory_holding_the_workspace_is_not_hidden_but_its_files_are() {
        let own = Paths::under_home(Path::new("/h"));
        let (hidden, unhidden) = hide_plan(
            &own,
            &["/h/project".into(), "/tmp/pincer-exec-1".into()],
            &mut Canonical::default(),
        );
        assert_eq!(unhidden, [PathBuf::from("/h")]);
        assert_eq!(
            hidden,
            [
                PathBuf::from("/h/config.toml"),
                "/h/auth-profiles.json".into(),
                "/h/sessions".into(),
                "/h/state".into(),
                "/h/workspace".into()
            ]
        );
        // A workspace inside the sessions dir keeps that one visible too.
        let (hidden, unhidden) =
            hide_plan(&own, &["/h/sessions/w".into()], &mut Canonical::default());
        assert_eq!(unhidden, [PathBuf::from("/h")]);
        assert!(!hidden.contains(&"/h/sessions".into()));
        assert!(hidden.contains(&"/h/auth-profiles.json".into()));
    }

    #[test]
    fn a_skill_directory_becomes_readable_and_one_inside_a_hidden_directory_is_revealed() {
        let directory = tempfile::tempdir().unwrap();
        let base = directory.path().canonicalize().unwrap();
        let workspace = base.join("ws");
        let home = base.join("home");
        let global = home.join("skills/deploy");
        let team = base.join("team/lint");
        for path in [
            &workspace,
            &global,
            &team,
            &workspace.join(".agents/skills/x"),
        ] {
            std::fs::create_dir_all(path).unwrap();
        }
        let own = Paths::under_home(&home);
        let mut sandbox = Sandbox::new(SandboxMode::WorkspaceWrite, &workspace, &[], &own, None);
        assert_eq!(sandbox.allow_reading(&global.join("SKILL.md")), global);
        assert_eq!(sandbox.allow_reading(&team.join("SKILL.md")), team);
        // Inside the workspace: already readable.
        let inside = workspace.join(".agents/skills/x");
        assert_eq!(sandbox.allow_reading(&inside.join("SKILL.md")), inside);
        // A second skill of the same directory, and a parent that takes over its child.
        sandbox.allow_reading(&global.join("SKILL.md"));
        sandbox.allow_reading(&base.join("team/SKILL.md"));
        assert_eq!(sandbox.read_only_roots, [global.clone(), base.join("team")]);
        // Only the hidden one needs revealing; the writable roots do not change.
        assert_eq!(sandbox.exec.revealed, [global]);
        assert_eq!(sandbox.writable_roots, [workspace]);
    }

    #[test]
    fn a_skill_file_next_to_pincers_own_files_opens_only_itself() {
        let directory = tempfile::tempdir().unwrap();
        let base = directory.path().canonicalize().unwrap();
        let workspace = base.join("ws");
        std::fs::create_dir_all(&workspace).unwrap();
        let home = base.join("home");
        std::fs::create_dir_all(&home).unwrap();
        let mut sandbox = Sandbox::new(
            SandboxMode::WorkspaceWrite,
            &workspace,
            &[],
            &Paths::under_home(&home),
            None,
        );
        // At the top of the home, and in a directory that contains the home.
        assert_eq!(
            sandbox.allow_reading(&home.join("SKILL.md")),
            home.join("SKILL.md")
        );
        assert_eq!(
            sandbox.allow_reading(&base.join("SKILL.md")),
            base.join("SKILL.md")
        );
        assert_eq!(
            sandbox.read_only_roots,
            [home.join("SKILL.md"), base.join("SKILL.md")]
        );
        assert!(sandbox.exec.revealed.is_empty());
    }

    #[test]
    fn the_debug_form_counts_the_environment_instead_of_showing_it() {
        let setup = ExecSetup {
            environment: Some(Arc::new(vec![(
                "AWS_SECRET".into(),
                "hunter2-hunter2".into(),
            )])),
            ..ExecSetup::default()
        };
        let shown = format!("{setup:?}");
        assert!(shown.contains("\"1 variables\""), "{shown}");
        assert!(!shown.contains("hunter2"), "{shown}");
    }

    #[test]
    fn an_unrestricted_sandbox_is_not_confined() {
        let sandbox = Sandbox::unrestricted(Path::new("/w"));
        assert_eq!(sandbox.mode, SandboxMode::DangerFullAccess);
        assert!(!sandbox.is_confined());
        assert_eq!(sandbox.roots_display(), "/w");
    }
}
