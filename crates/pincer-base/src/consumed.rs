//! What pincer consumes from a workspace (SPEC §21, issue #45): the files it reads as
//! configuration or prompt, and the one way a loader opens them.
//!
//! A declaration ([`Consumed`]) can only be made here, and [`open`] takes one, so a loader
//! cannot open a consumed file without declaring it; in debug builds [`open`] also checks the
//! declaration is listed in [`REGISTRY`], so a new one left out of the list fails the first test
//! that loads it. [`open`] keeps the file inside its root: a link that leaves the root, or lands
//! on pincer's own files, is refused, and so are FIFOs, devices, sockets and oversized files,
//! without blocking.
//!
//! The fixed names of the registry are the sandbox's protected names and the file tools'
//! refusals ([`protected_names`]). Every file pincer itself reads from a root goes through
//! [`open`]: the context files (with `HEARTBEAT.md`), `.mcp.json` and the workspace's skills.
//! The claude and codex directories are read by the CLI backends' children, not by pincer: they
//! are protected names with no loader here. A refused file is a [`Refusal`]: a warning on
//! stderr, an entry of the init event's `refused_files` and of `pincer status`.
//!
//! What a run writes is watched ([`Watch`]): the consumed files a run's commands or tools
//! created or changed are recorded in the state directory ([`Written`]), and [`open`] refuses
//! each while it holds what the run left, until the user approves it (`--approve-workspace-files`)
//! or changes it. For `.claude` settings, which claude reads itself, [`refused_for_child`] tells
//! the turn to keep claude to the user's settings.

use std::fs::File;
use std::io::{self, Read as _};
use std::path::{Path, PathBuf};

use serde::Serialize;

/// One kind of file pincer reads from a root (the workspace, the global workspace directory)
/// as configuration or prompt. Only this module makes them.
#[derive(Debug)]
pub struct Consumed {
    /// The names it is read under, relative to its root (`[workspace] files` when configured).
    names: &'static str,
    /// Whether `names` is the one fixed name of a file or directory in every root, which the
    /// sandbox keeps read-only to commands and the file tools refuse to write.
    fixed: bool,
    /// Which loader reads it.
    loader: &'static str,
    /// Why pincer reads it.
    why: &'static str,
    /// Paths under a root that pincer itself reads as this declaration (with every feature on:
    /// the default `[workspace] files`, `--heartbeat`, `[mcp] load_workspace`): what a test
    /// plants as links out of the root. Empty for what only a CLI backend's child reads.
    examples: &'static [&'static str],
    /// Paths under a root whose creation or change by a run is recorded ([`Watch`]), so that
    /// the next run does not read them unapproved; one `*` stands for one directory's entries.
    /// The context files are watched by their configured names.
    watched: &'static [&'static str],
}

impl Consumed {
    /// What it is, which loader reads it, and why.
    pub fn purpose(&self) -> String {
        format!("{} ({}): {}", self.names, self.loader, self.why)
    }
}

/// One entry of the registry as `pincer status --json` lists it (`consumed`): what pincer
/// reads from a workspace, and how a test can plant one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConsumedReport {
    /// The names it is read under.
    pub names: String,
    /// Whether the sandbox and the file tools keep the name read-only.
    pub protected: bool,
    /// Which loader reads it.
    pub loader: String,
    /// Why pincer reads it.
    pub why: String,
    /// Paths pincer itself reads as it (empty: only a CLI backend's child does).
    pub examples: Vec<String>,
}

/// The registry, for `pincer status --json`.
pub fn report() -> Vec<ConsumedReport> {
    REGISTRY
        .iter()
        .map(|consumed| ConsumedReport {
            names: consumed.names.to_owned(),
            protected: consumed.fixed,
            loader: consumed.loader.to_owned(),
            why: consumed.why.to_owned(),
            examples: consumed
                .examples
                .iter()
                .map(|&example| example.to_owned())
                .collect(),
        })
        .collect()
}

/// The context files: `[workspace] files` (default `AGENTS.md`, …, `MEMORY.md`), `CLAUDE.md`
/// for a missing `AGENTS.md`, `HEARTBEAT.md` on heartbeat runs.
pub static CONTEXT_FILES: Consumed = Consumed {
    names: "[workspace] files, CLAUDE.md, HEARTBEAT.md",
    fixed: false,
    loader: "agent::context_files",
    why: "standing instructions and memory put into the system prompt",
    examples: &["AGENTS.md", "MEMORY.md", "HEARTBEAT.md"],
    watched: &[],
};

/// A repository's metadata: its hooks and config run programs.
pub static GIT: Consumed = Consumed {
    names: ".git",
    fixed: true,
    loader: "agent::git, the sandbox's nested-repository scan",
    why: "git runs its hooks and config (core.fsmonitor, filters) on the user's next command",
    examples: &[],
    watched: &[],
};

/// pincer's own project directory.
pub static PINCER: Consumed = Consumed {
    names: ".pincer",
    fixed: true,
    loader: "agent::skills (.pincer/skills)",
    why: "project skills' names and descriptions put into the prompt",
    examples: &[".pincer/skills/planted/SKILL.md"],
    watched: &[".pincer/skills/*/SKILL.md"],
};

/// The cross-agent skills directory. Not a protected name (other tools keep more than skills
/// under `.agents`): a file a run wrote there is held back by [`Written`] instead.
pub static AGENTS_SKILLS: Consumed = Consumed {
    names: ".agents/skills",
    fixed: false,
    loader: "agent::skills",
    why: "project skills' names and descriptions put into the prompt",
    examples: &[".agents/skills/planted/SKILL.md"],
    watched: &[".agents/skills/*/SKILL.md"],
};

/// claude's project directory: settings, hooks, skills, agents.
pub static CLAUDE: Consumed = Consumed {
    names: ".claude",
    fixed: true,
    loader: "the claude-cli backend's child",
    why: "claude runs the hooks of its settings and reads its skills and agents",
    examples: &[],
    watched: &[".claude/settings.json", ".claude/settings.local.json"],
};

/// codex's project directory.
pub static CODEX: Consumed = Consumed {
    names: ".codex",
    fixed: true,
    loader: "the codex-cli backend's child",
    why: "codex reads its config",
    examples: &[],
    watched: &[".codex/config.toml"],
};

/// The project's MCP servers, started with `[mcp] load_workspace = true` (issue #45, hole 3:
/// the model's `write` created one, and the next run started it outside every sandbox).
pub static MCP_JSON: Consumed = Consumed {
    names: ".mcp.json",
    fixed: true,
    loader: "mcp::config",
    why: "each server it names is a program pincer starts",
    examples: &[".mcp.json"],
    watched: &[".mcp.json"],
};

/// Every declaration: what [`open`] accepts, and what the sandbox and the file tools protect.
pub static REGISTRY: &[&Consumed] = &[
    &CONTEXT_FILES,
    &GIT,
    &PINCER,
    &AGENTS_SKILLS,
    &CLAUDE,
    &CODEX,
    &MCP_JSON,
];

/// The fixed names of [`REGISTRY`], in every root: the file tools never write them and `exec`
/// sees them read-only (created empty and inaccessible for the run when missing).
pub fn protected_names() -> impl Iterator<Item = &'static str> {
    REGISTRY
        .iter()
        .filter(|consumed| consumed.fixed)
        .map(|consumed| consumed.names)
}

/// Why a consumed file was not read.
#[derive(Debug, thiserror::Error)]
pub enum Refused {
    #[error(transparent)]
    Io(#[from] io::Error),
    #[error("it is a link to {}, outside {}; pincer reads it only inside its directory", .target.display(), .root.display())]
    LeavesRoot { target: PathBuf, root: PathBuf },
    #[error("it is a link to {}, one of pincer's own files", .target.display())]
    PincersOwn { target: PathBuf },
    #[error("larger than {limit} bytes ({bytes} bytes)")]
    TooLarge { bytes: u64, limit: u64 },
    #[error("a command or tool of an earlier pincer run {} wrote it, and nobody approved it since", .by.describe())]
    WrittenByRun { by: WrittenFile },
}

impl Refused {
    /// What the user can do about it.
    pub fn fix(&self) -> String {
        match self {
            Refused::LeavesRoot { .. } => "put the file itself there instead of a link, or \
                 remove the link (pincer follows links only inside the directory)"
                .to_owned(),
            Refused::PincersOwn { .. } => {
                "remove the link: pincer never sends its own files".to_owned()
            }
            Refused::TooLarge { limit, .. } => format!("keep it under {limit} bytes"),
            Refused::Io(_) => "make it a readable regular file, or remove it".to_owned(),
            Refused::WrittenByRun { .. } => format!(
                "read it; if it is what you want, run once with {APPROVE_FLAG} (or change it \
                 yourself), else remove it"
            ),
        }
    }

    /// The refusal of `path`, as it is reported.
    pub fn of(&self, path: &Path) -> Refusal {
        Refusal {
            path: path.to_path_buf(),
            reason: self.to_string(),
            fix: self.fix(),
        }
    }
}

/// A consumed file pincer did not read: a warning on stderr, an entry of the init event's
/// `refused_files` and of `pincer status` (issue #45).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Refusal {
    /// The file, as the loader named it.
    pub path: PathBuf,
    /// Why it was not read.
    pub reason: String,
    /// What to do about it.
    pub fix: String,
}

impl Refusal {
    /// The stderr warning.
    pub fn warning(&self) -> String {
        format!(
            "did not read '{}': {}; {}",
            self.path.display(),
            self.reason,
            self.fix
        )
    }
}

/// Open `name` (a plain relative name) under `root` for reading, as `declared` says pincer
/// consumes it: `Ok(None)` when there is nothing at that name. Refused: a name whose canonical
/// path leaves `root`, one landing inside one of pincer's own directories `own` (unless `root`
/// itself is inside it, as the global workspace directory is inside the config directory),
/// anything but a regular file (opened with `O_NONBLOCK|O_NOFOLLOW` and checked on the handle,
/// so a FIFO cannot block), and a file over `limit` bytes.
///
/// A file that a command or tool of an earlier run created or changed ([`Watch`]) and that
/// still holds what that run left there is refused too, until the user approves it
/// ([`Written`]).
pub fn open(
    declared: &'static Consumed,
    root: &Path,
    name: &Path,
    own: &[&Path],
    limit: u64,
    written: &Written,
) -> Result<Option<File>, Refused> {
    debug_assert!(
        REGISTRY
            .iter()
            .any(|listed| std::ptr::eq(*listed, declared)),
        "{} is not listed in consumed::REGISTRY",
        declared.purpose()
    );
    let path = root.join(name);
    match std::fs::symlink_metadata(&path) {
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(error.into()),
        Ok(_) => {}
    }
    let root = std::fs::canonicalize(root)?;
    let target = match std::fs::canonicalize(&path) {
        // A dangling link: nothing to read.
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(error.into()),
        Ok(target) => target,
    };
    if !target.starts_with(&root) {
        return Err(Refused::LeavesRoot { target, root });
    }
    for own in own {
        let own = std::fs::canonicalize(own).unwrap_or_else(|_| own.to_path_buf());
        if target.starts_with(&own) && !root.starts_with(&own) {
            return Err(Refused::PincersOwn { target });
        }
    }
    // The canonical path has no link left in it: open it without following one, so a link
    // swapped in meanwhile is refused rather than followed.
    let mut file = crate::fs::open_regular(&target, false)?;
    let bytes = file.metadata()?.len();
    if bytes > limit {
        return Err(Refused::TooLarge { bytes, limit });
    }
    if let Some(by) = written.entry(&root, name) {
        let held = digest(&mut file)? == by.sha256;
        io::Seek::rewind(&mut file)?;
        if held {
            return Err(Refused::WrittenByRun { by: by.clone() });
        }
    }
    Ok(Some(file))
}

/// [`open`], then read at most `limit` bytes.
pub fn read(
    declared: &'static Consumed,
    root: &Path,
    name: &Path,
    own: &[&Path],
    limit: u64,
    written: &Written,
) -> Result<Option<Vec<u8>>, Refused> {
    let Some(file) = open(declared, root, name, own, limit, written)? else {
        return Ok(None);
    };
    let mut bytes = Vec::new();
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(Refused::TooLarge {
            bytes: bytes.len() as u64,
            limit,
        });
    }
    Ok(Some(bytes))
}

/// The record of consumed files that runs wrote, in the state directory (0600, outside every
/// workspace and hidden from commands).
pub const WRITTEN_FILE: &str = "consumed-written.json";

/// The lock taken while the record is read, changed and written: two runs ending together
/// must not lose each other's entries.
const WRITTEN_LOCK: &str = "consumed-written.lock";

/// The lock on the record in `state_dir`.
fn lock_record(state_dir: &Path) -> io::Result<crate::fs::FileLock> {
    crate::fs::create_dir_all(state_dir)?;
    crate::fs::FileLock::acquire(
        &state_dir.join(WRITTEN_LOCK),
        Some(std::time::Duration::from_secs(10)),
    )
    .map_err(io::Error::other)
}

/// The flag that approves what runs wrote to a workspace's consumed files.
pub const APPROVE_FLAG: &str = "--approve-workspace-files";

/// What a run left in a consumed file.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct WrittenFile {
    /// SHA-256 of the content the run left.
    sha256: String,
    /// The run's session, when it had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    session: Option<String>,
    /// When the run ended (RFC 3339).
    at: String,
}

impl WrittenFile {
    fn describe(&self) -> String {
        match &self.session {
            Some(session) => format!("(session {}, ended {})", session, self.at),
            None => format!("(ended {})", self.at),
        }
    }
}

/// Issue #45, "a protected config file missing at start, created by the sandbox and executed
/// next run": the consumed files that a run's commands or tools created or changed, per
/// canonical root and relative name. [`open`] refuses such a file while it still holds what
/// the run left (the user changing it, or [`APPROVE_FLAG`], lifts that). No placeholder is
/// needed in the workspace: the record lives in pincer's state directory.
#[derive(Debug, Default, Serialize, serde::Deserialize)]
pub struct Written {
    roots: std::collections::BTreeMap<String, std::collections::BTreeMap<String, WrittenFile>>,
}

impl Written {
    /// The record in `state_dir`; none (or one pincer cannot read) is an empty one: the state
    /// directory is hidden from commands, so a broken record is not an attack.
    pub fn load(state_dir: &Path) -> Written {
        let path = state_dir.join(WRITTEN_FILE);
        crate::fs::open_regular(&path, false)
            .ok()
            .and_then(|file| {
                let mut bytes = Vec::new();
                file.take(16 * 1024 * 1024).read_to_end(&mut bytes).ok()?;
                serde_json::from_slice(&bytes).ok()
            })
            .unwrap_or_default()
    }

    fn save(&self, state_dir: &Path) -> io::Result<()> {
        let text = serde_json::to_vec_pretty(self).map_err(io::Error::other)?;
        crate::fs::create_dir_all(state_dir)?;
        crate::fs::write_atomic(&state_dir.join(WRITTEN_FILE), &text)
    }

    fn entry(&self, root: &Path, name: &Path) -> Option<&WrittenFile> {
        self.roots
            .get(root.to_string_lossy().as_ref())?
            .get(name.to_string_lossy().as_ref())
    }

    /// [`APPROVE_FLAG`]: forget what runs wrote under `roots`, so their files are read again.
    /// Returns how many files that approves.
    pub fn approve(state_dir: &Path, roots: &[PathBuf]) -> io::Result<usize> {
        let _lock = lock_record(state_dir)?;
        let mut record = Written::load(state_dir);
        let mut approved = 0;
        for root in roots {
            let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.clone());
            if let Some(files) = record.roots.remove(root.to_string_lossy().as_ref()) {
                approved += files.len();
            }
        }
        if approved > 0 {
            record.save(state_dir)?;
        }
        Ok(approved)
    }
}

/// The watched files of `declared` under `root` that [`open`] would refuse (a link out of the
/// root, a file a run wrote and nobody approved): for what a CLI backend's child reads itself,
/// which pincer then tells the child not to load (issue #45).
pub fn refused_for_child(
    declared: &'static Consumed,
    root: &Path,
    written: &Written,
) -> Vec<Refusal> {
    declared
        .watched
        .iter()
        .map(Path::new)
        .filter(|name| std::fs::symlink_metadata(root.join(name)).is_ok())
        .filter_map(|name| {
            open(declared, root, name, &[], 1024 * 1024, written)
                .err()
                .map(|refused| refused.of(&root.join(name)))
        })
        .collect()
}

/// SHA-256 of what `file` holds from where it is, in hex.
fn digest(file: &mut File) -> io::Result<String> {
    use sha2::Digest as _;
    let mut hasher = sha2::Sha256::new();
    let mut buffer = [0u8; 16 * 1024];
    loop {
        let read = file.read(&mut buffer)?;
        if read == 0 {
            break;
        }
        hasher.update(&buffer[..read]);
    }
    Ok(hasher
        .finalize()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect())
}

/// The state of the watched consumed files of a run's roots: taken before the first tool call,
/// compared at the end of the run ([`Watch::finish`], also on drop), every file created or
/// changed in between recorded in [`Written`]. A run killed with SIGKILL records nothing
/// (README, residual risks).
pub struct Watch {
    roots: Vec<PathBuf>,
    /// The context files' names (`[workspace] files` less `writable`, `CLAUDE.md`,
    /// `HEARTBEAT.md`): a name the user made writable is the agent's to change.
    context_names: Vec<String>,
    state_dir: PathBuf,
    /// The run's session, once known.
    pub session: Option<String>,
    before: std::collections::BTreeMap<PathBuf, Option<String>>,
    done: bool,
}

impl Watch {
    /// Look at the watched files of `roots` as the run starts.
    pub fn start(roots: &[PathBuf], context_names: &[String], state_dir: &Path) -> Watch {
        let mut watch = Watch {
            roots: roots
                .iter()
                .map(|root| std::fs::canonicalize(root).unwrap_or_else(|_| root.clone()))
                .collect(),
            context_names: context_names.to_vec(),
            state_dir: state_dir.to_path_buf(),
            session: None,
            before: std::collections::BTreeMap::new(),
            done: false,
        };
        watch.before = watch.look();
        watch
    }

    /// Every watched path under the roots (patterns expanded), with the SHA-256 of a regular
    /// file there (`None`: nothing, or not a regular file).
    fn look(&self) -> std::collections::BTreeMap<PathBuf, Option<String>> {
        let mut seen = std::collections::BTreeMap::new();
        let patterns = REGISTRY
            .iter()
            .flat_map(|consumed| consumed.watched.iter().copied())
            .chain(self.context_names.iter().map(String::as_str));
        let patterns: Vec<&str> = patterns.collect();
        for root in &self.roots {
            for pattern in &patterns {
                for path in expand(root, pattern) {
                    // Through a link: what a loader would read there.
                    let hash = crate::fs::open_regular(&path, true)
                        .ok()
                        .and_then(|mut file| digest(&mut file).ok());
                    seen.insert(path, hash);
                }
            }
        }
        seen
    }

    /// Record every watched file that is now a regular file with other content than at the
    /// start; returns them.
    pub fn finish(&mut self) -> io::Result<Vec<PathBuf>> {
        self.done = true;
        let now = self.look();
        let mut changed = Vec::new();
        if !now
            .iter()
            .any(|(path, hash)| hash.is_some() && self.before.get(path) != Some(hash))
        {
            return Ok(changed);
        }
        let _lock = lock_record(&self.state_dir)?;
        let mut record = Written::load(&self.state_dir);
        let at = time::OffsetDateTime::now_utc()
            .format(&time::format_description::well_known::Rfc3339)
            .unwrap_or_default();
        for (path, hash) in now {
            let Some(hash) = hash else { continue };
            if self
                .before
                .get(&path)
                .is_some_and(|before| before.as_ref() == Some(&hash))
            {
                continue;
            }
            let Some((root, name)) = self
                .roots
                .iter()
                .find_map(|root| Some((root, path.strip_prefix(root).ok()?)))
            else {
                continue;
            };
            record
                .roots
                .entry(root.to_string_lossy().into_owned())
                .or_default()
                .insert(
                    name.to_string_lossy().into_owned(),
                    WrittenFile {
                        sha256: hash,
                        session: self.session.clone(),
                        at: at.clone(),
                    },
                );
            changed.push(path);
        }
        if !changed.is_empty() {
            record.save(&self.state_dir)?;
        }
        Ok(changed)
    }
}

impl Drop for Watch {
    /// A run that ends on an error records what it wrote too.
    fn drop(&mut self) {
        if !self.done {
            let _ = self.finish();
        }
    }
}

/// `pattern` under `root`: the path itself, or with its one `*` component replaced by each
/// entry of that directory (not followed into links: a link is looked at, not through).
fn expand(root: &Path, pattern: &str) -> Vec<PathBuf> {
    let Some((before, after)) = pattern.split_once("/*/") else {
        return vec![root.join(pattern)];
    };
    let directory = root.join(before);
    let Ok(entries) = std::fs::read_dir(&directory) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| directory.join(entry.file_name()).join(after))
        .collect();
    paths.sort();
    paths
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(result: Result<Option<Vec<u8>>, Refused>) -> String {
        result.expect_err("read").to_string()
    }

    #[test]
    fn a_link_out_of_the_root_or_onto_pincers_files_is_refused_and_one_inside_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("workspace");
        let home = root.join(".pincer-home");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::write(dir.path().join("id_ed25519"), "PRIVATE KEY").unwrap();
        std::fs::write(home.join("auth-profiles.json"), "{}").unwrap();
        std::fs::write(root.join("notes.md"), "notes").unwrap();
        std::os::unix::fs::symlink("../id_ed25519", root.join("AGENTS.md")).unwrap();
        std::os::unix::fs::symlink(".pincer-home/auth-profiles.json", root.join("MEMORY.md"))
            .unwrap();
        std::os::unix::fs::symlink("notes.md", root.join("SOUL.md")).unwrap();
        let none = Written::default();
        let read = |name: &str| read(&CONTEXT_FILES, &root, Path::new(name), &[&home], 100, &none);
        assert!(refused(read("AGENTS.md")).contains("outside"));
        assert!(refused(read("MEMORY.md")).contains("pincer's own files"));
        assert_eq!(read("SOUL.md").unwrap().unwrap(), b"notes");
        assert!(read("USER.md").unwrap().is_none());
        // The global directory lives inside pincer's home: its own files are read there.
        std::fs::write(home.join("USER.md"), "me").unwrap();
        let global = read_in(&home, "USER.md", &[&home]);
        assert_eq!(global.unwrap().unwrap(), b"me");
    }

    fn read_in(root: &Path, name: &str, own: &[&Path]) -> Result<Option<Vec<u8>>, Refused> {
        read(
            &CONTEXT_FILES,
            root,
            Path::new(name),
            own,
            100,
            &Written::default(),
        )
    }

    /// Issue #45: "a new loader that is not in the list fails a test". A declaration made in
    /// this file but left out of [`REGISTRY`] would be opened by [`open`] (a debug assertion
    /// aside) yet drive neither the sandbox, the file tools nor `status`.
    #[test]
    fn every_declaration_in_this_module_is_listed_in_the_registry() {
        let source = include_str!("consumed.rs");
        let declared: Vec<&str> = source
            .lines()
            .filter_map(|line| line.strip_prefix("pub static "))
            .filter_map(|line| line.strip_suffix(": Consumed = Consumed {"))
            .collect();
        assert_eq!(declared.len(), REGISTRY.len(), "{declared:?}");
        let listed = source
            .split("static REGISTRY")
            .nth(1)
            .and_then(|rest| rest.split("];").next())
            .unwrap();
        for name in &declared {
            assert!(
                listed.contains(&format!("&{name},")),
                "{name} is not listed"
            );
        }
        // Each one pincer reads itself names what a test can plant.
        for consumed in REGISTRY {
            assert!(
                !consumed.examples.is_empty()
                    || consumed.loader.contains("child")
                    || consumed.names == ".git",
                "{} has no example",
                consumed.purpose()
            );
        }
    }

    #[test]
    fn a_file_a_run_created_is_refused_until_it_changes_or_is_approved() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("workspace");
        let state = dir.path().join("state");
        std::fs::create_dir_all(root.join(".agents/skills/old")).unwrap();
        std::fs::write(root.join("SOUL.md"), "mine").unwrap();
        let names = ["AGENTS.md".to_owned(), "SOUL.md".to_owned()];
        let mut watch = Watch::start(std::slice::from_ref(&root), &names, &state);
        std::fs::write(root.join("AGENTS.md"), "planted").unwrap();
        std::fs::create_dir_all(root.join(".agents/skills/new")).unwrap();
        std::fs::write(root.join(".agents/skills/new/SKILL.md"), "planted").unwrap();
        let written = watch.finish().unwrap();
        assert_eq!(
            written,
            [
                root.join(".agents/skills/new/SKILL.md"),
                root.join("AGENTS.md")
            ]
        );
        let record = Written::load(&state);
        let read = |name: &str| read(&CONTEXT_FILES, &root, Path::new(name), &[], 100, &record);
        assert!(refused(read("AGENTS.md")).contains("an earlier pincer run"));
        assert_eq!(read("SOUL.md").unwrap().unwrap(), b"mine");
        // Changed by the user since: read.
        std::fs::write(root.join("AGENTS.md"), "edited").unwrap();
        assert_eq!(read("AGENTS.md").unwrap().unwrap(), b"edited");
        // Approved: forgotten.
        assert_eq!(
            Written::approve(&state, std::slice::from_ref(&root)).unwrap(),
            2
        );
        assert!(Written::load(&state).roots.is_empty());
    }

    #[test]
    fn a_fifo_or_an_oversized_file_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        nix::unistd::mkfifo(&dir.path().join("fifo"), nix::sys::stat::Mode::S_IRWXU).unwrap();
        std::fs::write(dir.path().join("big"), "x".repeat(101)).unwrap();
        assert!(refused(read_in(dir.path(), "fifo", &[])).contains("not a regular file"));
        assert!(refused(read_in(dir.path(), "big", &[])).contains("larger than 100 bytes"));
    }
}
