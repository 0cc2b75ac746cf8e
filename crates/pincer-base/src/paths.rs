//! Where pincer keeps its files (SPEC §11).
//!
//! Two layouts. With `--home DIR` / `PINCER_HOME`, everything lives under that one directory, which
//! is what tests and self-contained deployments want. Otherwise the platform's conventional
//! directories from the `directories` crate: on Linux `~/.config/pincer/` for configuration and
//! credentials and `~/.local/share/pincer/` for sessions.
//!
//! Resolving only computes paths: nothing is created or read here, so `--dry-run` and `status`
//! leave no trace. The writers (`fs.rs`, `auth/`, `session/`) create directories on first use with
//! the modes they need. A base module: the sandbox hides these directories from commands and the
//! consumed registry refuses links onto them, below the configuration that resolves them.

use std::path::{Path, PathBuf};

use directories::ProjectDirs;

/// No home directory to put pincer's files in: neither `--home` / `PINCER_HOME` nor a user home
/// the platform's conventional directories could be found under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("no home directory found; set --home or PINCER_HOME")]
pub struct NoHome;

/// The application name used for the XDG directories.
const APPLICATION: &str = "pincer";

/// Every location pincer reads or writes, resolved once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paths {
    /// Holds `config.toml`, `auth-profiles.json` and `workspace/`.
    pub config_dir: PathBuf,
    /// Holds `sessions/` (the same as `config_dir` under `--home`).
    pub data_dir: PathBuf,
    /// One JSONL file per session (SPEC §5.2).
    pub sessions_dir: PathBuf,
    /// `<config>/config.toml`; may not exist, which means "all defaults".
    pub config_file: PathBuf,
    /// `<config>/auth-profiles.json` (SPEC §9.1).
    pub auth_file: PathBuf,
    /// `<config>/workspace/`: global workspace files added to every system prompt (SPEC §6.2).
    pub workspace_dir: PathBuf,
    /// Small mutable state (indexes, caches) that is neither configuration nor a session.
    pub state_dir: PathBuf,
}

impl Paths {
    /// Resolves the layout. `home` is `--home` / `PINCER_HOME` as the caller read it (clap reads
    /// the environment variable, so this function never looks at the process environment itself
    /// beyond what `directories` does to find the user's home).
    pub fn resolve(home: Option<&Path>) -> Result<Self, NoHome> {
        match home {
            Some(home) => Ok(Self::under_home(&absolute(home))),
            None => {
                let dirs = ProjectDirs::from("", "", APPLICATION).ok_or(NoHome)?;
                let data_dir = dirs.data_dir().to_path_buf();
                // `state_dir` exists only on Linux-like systems; elsewhere keep state with the data.
                let state_dir = dirs
                    .state_dir()
                    .map_or_else(|| data_dir.join("state"), Path::to_path_buf);
                Ok(Self::from_dirs(
                    dirs.config_dir().to_path_buf(),
                    data_dir,
                    state_dir,
                ))
            }
        }
    }

    /// The single-directory layout of `--home DIR`.
    pub fn under_home(home: &Path) -> Self {
        Self::from_dirs(home.to_path_buf(), home.to_path_buf(), home.join("state"))
    }

    fn from_dirs(config_dir: PathBuf, data_dir: PathBuf, state_dir: PathBuf) -> Self {
        Self {
            config_file: config_dir.join("config.toml"),
            auth_file: config_dir.join("auth-profiles.json"),
            workspace_dir: config_dir.join("workspace"),
            sessions_dir: data_dir.join("sessions"),
            config_dir,
            data_dir,
            state_dir,
        }
    }
}

/// Makes `--home` absolute so that paths recorded in sessions and shown by `status` stay valid
/// when the working directory changes (`-C`). Falls back to the path as given if the current
/// directory cannot be determined; the later file operation will then report the real problem.
fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn home_puts_every_file_under_one_directory() {
        let home = Path::new("/tmp/pincer-home");
        let paths = Paths::resolve(Some(home)).unwrap();
        assert_eq!(paths.config_dir, home);
        assert_eq!(paths.data_dir, home);
        assert_eq!(paths.config_file, home.join("config.toml"));
        assert_eq!(paths.auth_file, home.join("auth-profiles.json"));
        assert_eq!(paths.sessions_dir, home.join("sessions"));
        assert_eq!(paths.workspace_dir, home.join("workspace"));
        assert_eq!(paths.state_dir, home.join("state"));
    }

    #[test]
    fn a_relative_home_is_made_absolute_without_creating_it() {
        let paths = Paths::resolve(Some(Path::new("relative-home-that-does-not-exist"))).unwrap();
        assert!(paths.config_dir.is_absolute());
        assert!(
            paths
                .config_dir
                .ends_with("relative-home-that-does-not-exist")
        );
        assert!(!paths.config_dir.exists());
    }

    #[test]
    fn without_home_the_xdg_directories_end_in_pincer() {
        // The test environment may lack a home directory; then NoHome is the correct answer.
        let paths = match Paths::resolve(None) {
            Ok(paths) => paths,
            Err(NoHome) => return,
        };
        assert!(paths.config_dir.ends_with(APPLICATION));
        assert!(paths.data_dir.ends_with(APPLICATION));
        assert_eq!(paths.config_file, paths.config_dir.join("config.toml"));
        assert_eq!(paths.auth_file, paths.config_dir.join("auth-profiles.json"));
        assert_eq!(paths.workspace_dir, paths.config_dir.join("workspace"));
        assert_eq!(paths.sessions_dir, paths.data_dir.join("sessions"));
        assert!(paths.state_dir.to_string_lossy().contains(APPLICATION));
    }
}
