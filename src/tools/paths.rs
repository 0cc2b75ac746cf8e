//! Where a tool's path argument points.
//!
//! Every tool resolves its path arguments through [`resolve`], so workspace confinement (SPEC §10:
//! symlinks, `..`, absolute paths) can be enforced here alone later. Today: relative paths join
//! the workspace, absolute paths are taken as they are, and `~` is an ordinary character.

use std::path::{Path, PathBuf};

/// The file system path that the argument `raw` names, relative to `workspace`.
pub fn resolve(workspace: &Path, raw: &str) -> PathBuf {
    let path = Path::new(raw);
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        workspace.join(path)
    }
}

/// `path` relative to `root` with `/` separators, for listing results.
pub fn relative_display(root: &Path, path: &Path) -> String {
    let relative = path.strip_prefix(root).unwrap_or(path);
    relative
        .components()
        .map(|component| component.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_join_the_workspace_and_absolute_ones_stay() {
        let workspace = Path::new("/work/space");
        assert_eq!(
            resolve(workspace, "src/main.rs"),
            PathBuf::from("/work/space/src/main.rs")
        );
        assert_eq!(
            resolve(workspace, "/etc/hosts"),
            PathBuf::from("/etc/hosts")
        );
    }

    #[test]
    fn a_tilde_is_not_expanded() {
        assert_eq!(
            resolve(Path::new("/w"), "~/notes"),
            PathBuf::from("/w/~/notes")
        );
    }

    #[test]
    fn listing_paths_are_relative_to_the_root_with_forward_slashes() {
        assert_eq!(
            relative_display(Path::new("/w"), Path::new("/w/src/lib.rs")),
            "src/lib.rs"
        );
    }
}
