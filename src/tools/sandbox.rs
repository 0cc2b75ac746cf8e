//! What the file tools and `exec` may touch (SPEC §10 "Sandbox modes").
//!
//! A [`Sandbox`] is plain data: the mode, the roots that confined tools may use (the workspace and
//! the temp dir, canonical) and the protected directories inside them that stay read-only
//! (`.git`, pincer's own dirs). [`super::paths`] enforces it for the file tools and
//! [`super::exec`] turns it into a Landlock ruleset for commands.

use std::path::{Path, PathBuf};

pub use crate::config::file::SandboxMode;

use super::paths;

/// The confinement a tool call runs under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sandbox {
    /// How much the tools may do.
    pub mode: SandboxMode,
    /// Canonical directories the confined tools may read and (in `workspace-write`) write.
    pub writable_roots: Vec<PathBuf>,
    /// Canonical directories inside the roots that the file tools never write.
    pub protected: Vec<PathBuf>,
}

impl Sandbox {
    /// The sandbox for `mode` around `workspace`: the roots are the workspace and the temp dir,
    /// and `workspace/.git` is protected in addition to `protected` (pincer's own dirs). Paths
    /// are canonicalized as far as they exist, so a protected dir that does not exist yet is
    /// still recognised once created.
    pub fn new(mode: SandboxMode, workspace: &Path, protected: Vec<PathBuf>) -> Sandbox {
        let workspace = paths::canonical_target(workspace);
        let mut writable_roots = vec![workspace.clone()];
        if let Ok(temp) = std::env::temp_dir().canonicalize()
            && !writable_roots.contains(&temp)
        {
            writable_roots.push(temp);
        }
        let mut protected_dirs = vec![paths::canonical_target(&workspace.join(".git"))];
        for directory in protected {
            let directory = paths::canonical_target(&directory);
            if !protected_dirs.contains(&directory) {
                protected_dirs.push(directory);
            }
        }
        Sandbox {
            mode,
            writable_roots,
            protected: protected_dirs,
        }
    }

    /// No confinement (`danger-full-access`) around `workspace`; for tests and callers that
    /// opted out.
    pub fn unrestricted(workspace: &Path) -> Sandbox {
        Sandbox {
            mode: SandboxMode::DangerFullAccess,
            writable_roots: vec![workspace.to_path_buf()],
            protected: Vec::new(),
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_sandbox_has_the_workspace_and_temp_dir_as_roots_and_protects_git() {
        let directory = tempfile::tempdir().unwrap();
        let workspace = directory.path().canonicalize().unwrap();
        let own = workspace.join("state");
        let sandbox = Sandbox::new(SandboxMode::WorkspaceWrite, &workspace, vec![own.clone()]);
        let temp = std::env::temp_dir().canonicalize().unwrap();
        assert_eq!(sandbox.writable_roots[0], workspace);
        assert!(sandbox.writable_roots.contains(&temp));
        assert_eq!(sandbox.protected, vec![workspace.join(".git"), own]);
        assert!(sandbox.is_confined());
    }

    #[test]
    fn an_unrestricted_sandbox_is_not_confined() {
        let sandbox = Sandbox::unrestricted(Path::new("/w"));
        assert_eq!(sandbox.mode, SandboxMode::DangerFullAccess);
        assert!(!sandbox.is_confined());
        assert_eq!(sandbox.roots_display(), "/w");
    }
}
