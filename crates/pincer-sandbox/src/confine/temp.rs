//! The run's private temp dir for the commands it starts: named when the run starts, made by
//! the first command, and removed — after whatever the turn's commands left running is
//! finished — when its handle is dropped.

use std::path::{Path, PathBuf};

/// The run's private temp dir for commands (`TMPDIR`, `TMP` and `TEMP` point there): named in
/// the system temp dir when the run starts, made by [`ensure_private_dir`] when the first
/// command starts (most runs start none, and making and removing a directory cost about half a
/// millisecond of every run), and removed, with whatever commands left in it, when the handle is
/// dropped.
#[derive(Debug)]
pub struct PrivateTemp {
    path: PathBuf,
}

impl PrivateTemp {
    /// A name of its own in the system temp dir: `pincer-exec-` and 122 random bits, which
    /// nobody can guess to take before the run makes it.
    pub fn new() -> PrivateTemp {
        let name = format!("pincer-exec-{}", uuid::Uuid::new_v4().simple());
        PrivateTemp {
            path: std::env::temp_dir().join(name),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Default for PrivateTemp {
    fn default() -> PrivateTemp {
        PrivateTemp::new()
    }
}

impl Drop for PrivateTemp {
    fn drop(&mut self) {
        // The turn is over: what its commands left running goes first, so that nothing writes
        // into the directory while it is removed.
        super::run::finish_turn(&self.path);
        // Only a directory of this user's is this run's; a run that started no command made none.
        if owned_directory(&self.path).is_some() {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

/// The metadata of `path` when it is a directory (not a symbolic link) of this user's.
fn owned_directory(path: &Path) -> Option<std::fs::Metadata> {
    use std::os::unix::fs::MetadataExt as _;
    std::fs::symlink_metadata(path)
        .ok()
        .filter(|metadata| metadata.is_dir() && metadata.uid() == nix::unistd::geteuid().as_raw())
}

/// Make the private temp dir at `path`, mode 0700, unless an earlier command of the run did.
/// A directory already there is taken only when it is a directory (not a symbolic link) of this
/// user's, which nobody else can make, and it is made private again; anything else is refused.
pub fn ensure_private_dir(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt as _, MetadataExt as _, PermissionsExt as _};
    match std::fs::DirBuilder::new().mode(0o700).create(path) {
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {
            let Some(metadata) = owned_directory(path) else {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::AlreadyExists,
                    "something that is not this run's directory is there",
                ));
            };
            if metadata.mode() & 0o777 != 0o700 {
                std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o700))?;
            }
            Ok(())
        }
        made => made,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_private_temp_dir_is_made_private_by_the_first_command_and_removed_with_its_handle() {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
        let temp = PrivateTemp::new();
        let path = temp.path().to_path_buf();
        assert!(
            path.file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("pincer-exec-")
        );
        assert_ne!(path, PrivateTemp::new().path());
        // Named, not made: a run that starts no command leaves nothing to remove.
        assert!(!path.exists());
        ensure_private_dir(&path).unwrap();
        assert_eq!(mode(&path), 0o700);
        std::fs::write(path.join("left-behind"), "x").unwrap();
        // A later command takes the same directory, private again if it was opened up.
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        ensure_private_dir(&path).unwrap();
        assert_eq!(mode(&path), 0o700);
        assert!(path.join("left-behind").exists());
        drop(temp);
        assert!(!path.exists());
        // Dropping a handle whose directory was never made makes none.
        let unmade = PrivateTemp::new();
        let unmade_path = unmade.path().to_path_buf();
        drop(unmade);
        assert!(!unmade_path.exists());
    }

    #[test]
    fn a_private_temp_dir_name_taken_by_something_else_is_refused_and_left_alone() {
        let directory = tempfile::tempdir().unwrap();
        let target = directory.path().join("elsewhere");
        std::fs::create_dir(&target).unwrap();
        std::fs::write(target.join("kept"), "x").unwrap();
        let link = directory.path().join("pincer-exec-link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let file = directory.path().join("pincer-exec-file");
        std::fs::write(&file, "x").unwrap();
        for path in [&link, &file] {
            let error = ensure_private_dir(path).unwrap_err();
            assert_eq!(error.kind(), std::io::ErrorKind::AlreadyExists, "{path:?}");
            drop(PrivateTemp { path: path.clone() });
        }
        assert!(target.join("kept").exists());
        assert!(file.exists());
    }
}
