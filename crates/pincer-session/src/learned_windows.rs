//! Context windows learned from overflow errors, per model (SPEC §7), kept in the session index
//! database (`learned_windows` table of `<sessions>/index.sqlite3`). A model pincer does not
//! know, or knows with a larger window than its server has (a llama.cpp or Ollama model started
//! with a small context), states its real window in the error that refuses a too-long request;
//! the window is remembered so that the next run of that model compacts on its own before it
//! overflows.
//!
//! Unlike the sessions' rows, these are not derived from the files: rebuilding the sessions
//! keeps them, and losing them only makes pincer learn the windows again. The file they were
//! kept in before (`.learned-windows.json`) is read once, when the database is made. A missing
//! or unreadable database reads as empty: a learned window is an optimization, never a reason
//! to fail.

use std::collections::BTreeMap;
use std::path::Path;

use super::index;
use super::store::SessionError;
use crate::fs as pfs;

#[cfg(test)]
/// File name the learned windows were kept in before they moved into the index database.
pub const LEARNED_WINDOWS_FILE: &str = ".learned-windows.json";

/// Every learned window, by `provider/model`: for a caller that asks about many models.
pub fn all(dir: &Path) -> BTreeMap<String, u64> {
    index::learned_windows(dir).into_iter().collect()
}

/// The window learned for `model_ref` (`provider/model`), if any.
pub fn lookup(dir: &Path, model_ref: &str) -> Option<u64> {
    index::learned_window(dir, model_ref)
}

/// A model's window: the known one narrowed by the one an overflow error taught, either alone
/// when only one is there.
pub fn narrowed(known: Option<u64>, learned: Option<u64>) -> Option<u64> {
    match (known, learned) {
        (Some(known), Some(learned)) => Some(known.min(learned)),
        (known, learned) => known.or(learned),
    }
}

/// Remember that `model_ref` has a window of `window` tokens.
pub fn remember(dir: &Path, model_ref: &str, window: u64) -> Result<(), SessionError> {
    pfs::create_dir_all(dir).map_err(|source| SessionError::Io {
        action: "cannot create the directory of",
        path: dir.to_owned(),
        source,
    })?;
    if lookup(dir, model_ref) == Some(window) {
        return Ok(());
    }
    index::remember_window(dir, model_ref, window)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_remembered_window_is_found_again_per_model_and_can_change() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(lookup(dir.path(), "ollama/qwen3"), None);
        remember(dir.path(), "ollama/qwen3", 4_096).unwrap();
        remember(dir.path(), "openai-chat/llama", 512).unwrap();
        assert_eq!(lookup(dir.path(), "ollama/qwen3"), Some(4_096));
        assert_eq!(lookup(dir.path(), "openai-chat/llama"), Some(512));
        remember(dir.path(), "ollama/qwen3", 2_048).unwrap();
        assert_eq!(lookup(dir.path(), "ollama/qwen3"), Some(2_048));
        assert_eq!(all(dir.path()).len(), 2);
    }

    #[test]
    fn windows_of_the_old_file_are_read_once_into_the_database() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(LEARNED_WINDOWS_FILE),
            br#"{"version":1,"windows":{"ollama/qwen3":8192}}"#,
        )
        .unwrap();
        assert_eq!(lookup(dir.path(), "ollama/qwen3"), Some(8_192));
        remember(dir.path(), "openai-chat/llama", 512).unwrap();
        assert!(!dir.path().join(LEARNED_WINDOWS_FILE).exists());
        assert_eq!(lookup(dir.path(), "ollama/qwen3"), Some(8_192));
        assert_eq!(lookup(dir.path(), "openai-chat/llama"), Some(512));
    }
}
