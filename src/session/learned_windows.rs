//! `<sessions>/.learned-windows.json`: context windows learned from overflow errors, per model
//! (SPEC §7). A model pincer does not know, or knows with a larger window than its server has (a
//! llama.cpp or Ollama model started with a small context), states its real window in the error
//! that refuses a too-long request; the window is remembered here so that the next run of that
//! model compacts on its own before it overflows.
//!
//! The file sits next to the index but is not a cache of the sessions: rebuilding the index
//! leaves it alone, and deleting it only makes pincer learn the windows again. Layout:
//! `{"version": 1, "windows": {"provider/model": tokens}}`. It is written atomically under its own
//! lock and re-read inside it, so parallel runs never lose each other's entries. A missing or
//! unreadable file reads as empty: a learned window is an optimization, never a reason to fail.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::store::SessionError;
use crate::fs::{self as pfs, FileLock};

/// File name inside the sessions directory (a dot file, like the index journal).
pub const LEARNED_WINDOWS_FILE: &str = ".learned-windows.json";
/// The layout version written.
const VERSION: u32 = 1;
/// How long to wait for another run that is writing the file.
const LOCK_WAIT: Duration = Duration::from_secs(2);

#[derive(Debug, Default, Serialize, Deserialize)]
struct LearnedWindows {
    version: u32,
    /// `provider/model` → window in tokens.
    windows: BTreeMap<String, u64>,
}

fn path(dir: &Path) -> PathBuf {
    dir.join(LEARNED_WINDOWS_FILE)
}

fn read(path: &Path) -> LearnedWindows {
    std::fs::read(path)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default()
}

/// Every learned window, by `provider/model`: for a caller that asks about many models.
pub fn all(dir: &Path) -> BTreeMap<String, u64> {
    read(&path(dir)).windows
}

/// The window learned for `model_ref` (`provider/model`), if any.
pub fn lookup(dir: &Path, model_ref: &str) -> Option<u64> {
    read(&path(dir)).windows.get(model_ref).copied()
}

/// Remember that `model_ref` has a window of `window` tokens.
pub fn remember(dir: &Path, model_ref: &str, window: u64) -> Result<(), SessionError> {
    let file = path(dir);
    let io_error = |action: &'static str, source: std::io::Error| SessionError::Io {
        action,
        path: file.clone(),
        source,
    };
    pfs::create_dir_all(dir, false)
        .map_err(|source| io_error("cannot create the directory of", source))?;
    let _lock = FileLock::acquire(&pfs::lock_path(&file), Some(LOCK_WAIT)).map_err(|error| {
        io_error(
            "cannot lock",
            std::io::Error::new(std::io::ErrorKind::WouldBlock, error.to_string()),
        )
    })?;
    pfs::sweep_staging_if_due(dir);
    let mut learned = read(&file);
    if learned.windows.get(model_ref) == Some(&window) {
        return Ok(());
    }
    learned.version = VERSION;
    learned.windows.insert(model_ref.to_owned(), window);
    let bytes = serde_json::to_vec_pretty(&learned)
        .map_err(|error| SessionError::Serialize(error.to_string()))?;
    pfs::write_atomic(&file, &bytes).map_err(|source| io_error("cannot write", source))
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
        let text = std::fs::read_to_string(dir.path().join(LEARNED_WINDOWS_FILE)).unwrap();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["version"], 1);
        assert_eq!(value["windows"]["openai-chat/llama"], 512);
    }

    #[test]
    fn a_damaged_file_reads_as_empty_and_is_replaced_on_the_next_lesson() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(LEARNED_WINDOWS_FILE), b"{not json").unwrap();
        assert_eq!(lookup(dir.path(), "ollama/qwen3"), None);
        remember(dir.path(), "ollama/qwen3", 8_192).unwrap();
        assert_eq!(lookup(dir.path(), "ollama/qwen3"), Some(8_192));
    }
}
