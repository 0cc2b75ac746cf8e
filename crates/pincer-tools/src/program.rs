//! Where the programs pincer starts by name are found (SPEC §10: no repository can make pincer
//! run a command): `sh` for `exec`, hooks and key commands, `git` for the prompt's summary, a
//! CLI backend's `claude` or `codex`, an MCP server's command.
//!
//! `PATH` is searched as a shell would, except for the entries a repository or a command could
//! have filled: an empty or relative entry (`.`, `bin`, `::`) names a directory relative to
//! wherever the program starts — the workspace — and an absolute entry inside one of the run's
//! roots (a workspace `bin/` that direnv put first, the run's temp dir) holds whatever a checkout
//! or an earlier command put there. Those entries are skipped, so a `git` committed at the top of
//! a repository is never what pincer's own `git status` runs (issue #45; Claude Code ran a
//! workspace's `git`, anthropics/claude-code#4964). A name with a `/` is the user's own choice
//! and is not searched.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// Where [`find`] looks when there is no `PATH` at all (the shell's default).
const DEFAULT_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// The first executable regular file `name` in `search` (a `PATH` value; the default when
/// `None`), skipping empty and relative entries and entries inside `untrusted` (the run's
/// roots). `None` when there is none.
pub fn find(name: &str, search: Option<&OsStr>, untrusted: &[&Path]) -> Option<PathBuf> {
    let roots: Vec<PathBuf> = untrusted
        .iter()
        .filter_map(|root| std::fs::canonicalize(root).ok())
        .collect();
    let search = search.unwrap_or(OsStr::new(DEFAULT_PATH));
    std::env::split_paths(search)
        .filter(|entry| entry.is_absolute())
        .filter(|entry| {
            // A directory that does not resolve holds nothing to run.
            std::fs::canonicalize(entry)
                .is_ok_and(|entry| !roots.iter().any(|root| entry.starts_with(root)))
        })
        .map(|entry| entry.join(name))
        .find(|candidate| executable(candidate))
}

/// [`find`] on pincer's own `PATH`.
pub fn on_path(name: &str, untrusted: &[&Path]) -> Option<PathBuf> {
    find(name, std::env::var_os("PATH").as_deref(), untrusted)
}

/// The shell pincer runs command lines with: `sh` found by [`on_path`], else `/bin/sh`.
pub fn shell(untrusted: &[&Path]) -> PathBuf {
    on_path("sh", untrusted).unwrap_or_else(|| PathBuf::from("/bin/sh"))
}

/// Whether `path` is a regular file (after links) someone may execute.
fn executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(path)
        .is_ok_and(|metadata| metadata.is_file() && metadata.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(directory: &Path, name: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::create_dir_all(directory).unwrap();
        let path = directory.join(name);
        std::fs::write(&path, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    #[test]
    fn relative_empty_and_untrusted_entries_are_skipped_for_the_first_trusted_one() {
        let scratch = tempfile::tempdir().unwrap();
        let workspace = scratch.path().join("work");
        let trusted = scratch.path().join("usr-bin");
        program(&workspace.join("bin"), "tool");
        program(&workspace, "tool");
        let expected = program(&trusted, "tool");
        let search = format!(
            ".:bin::{}:{}",
            workspace.join("bin").display(),
            trusted.display()
        );
        assert_eq!(
            find("tool", Some(OsStr::new(&search)), &[&workspace]),
            Some(expected)
        );
        // Only untrusted places hold it: not found.
        let search = format!("{}:.", workspace.join("bin").display());
        assert_eq!(find("tool", Some(OsStr::new(&search)), &[&workspace]), None);
    }

    #[test]
    fn a_directory_or_a_file_that_cannot_run_is_no_program() {
        let scratch = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(scratch.path().join("a/tool")).unwrap();
        std::fs::create_dir_all(scratch.path().join("b")).unwrap();
        std::fs::write(scratch.path().join("b/tool"), "x").unwrap();
        let search = format!(
            "{}:{}",
            scratch.path().join("a").display(),
            scratch.path().join("b").display()
        );
        assert_eq!(find("tool", Some(OsStr::new(&search)), &[]), None);
    }
}
