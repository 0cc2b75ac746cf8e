//! What a plan reads from the run around it: the resolved settings, the workspace, the auth store
//! and keys as the process first read them, and a way to say things on stderr. A front-end
//! implements it (`commands::Context` does, over its diagnostics); the plan never prints and
//! never sees which output mode is on.

use std::path::Path;
use std::sync::Arc;

use super::keys::KnownKeys;
use crate::error::CliResult;
use crate::settings::Settings;

/// A callback that says one line on stderr, for parts of the turn that outlive the plan's
/// borrow (exec's notices).
pub(crate) type Say = Arc<dyn Fn(&str) + Send + Sync>;

/// The run a plan is made for.
pub(crate) trait RunEnv {
    /// Resolved settings (CLI > environment > config > defaults).
    fn settings(&self) -> &Settings;
    /// The workspace directory, absolute.
    fn workspace(&self) -> &Path;
    /// Say a warning on stderr (every mode, unless quiet).
    fn warn(&self, message: &str);
    /// Say an informational line on stderr when someone is watching (a terminal, or `-v`).
    fn note(&self, message: &str);
    /// Say a detail on stderr (with `-v`).
    fn detail(&self, message: &str);
    /// [`RunEnv::warn`] as a callback that can be kept.
    fn warner(&self) -> Say;
    /// [`RunEnv::detail`] as a callback that can be kept, when details are shown at all (`-v`).
    fn detailer(&self) -> Option<Say>;
    /// The auth store, read at most once per process.
    fn auth_store(&self) -> CliResult<&crate::auth::Store>;
    /// Every key and key variable the run knows of, gathered at most once per process.
    fn known_keys(&self) -> CliResult<&KnownKeys>;

    /// The sessions directory.
    fn sessions_dir(&self) -> &Path {
        &self.settings().paths.sessions_dir
    }
}
