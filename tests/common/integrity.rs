//! Checks that a session file on disk keeps pincer's storage guarantees, and a fingerprint of a
//! whole directory tree to prove that a command changed nothing.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

/// The `.jsonl` session files in `dir` (none if it does not exist), sorted.
pub fn session_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            path.extension()
                .is_some_and(|extension| extension == "jsonl")
        })
        .collect();
    files.sort();
    files
}

/// What a sound session file holds.
pub struct Checked {
    /// Every line after the header, parsed.
    pub entries: Vec<Value>,
    /// Whether the last line was cut short (no newline, not JSON): allowed only after a crash.
    pub torn_tail: bool,
}

/// Assert the file's structure: a version-3 `session` header first; every complete line one JSON
/// object (never two records on a line); unique entry ids; each `parentId` null or an earlier
/// entry. With `allow_torn_tail`, a final line without its newline that does not parse is
/// tolerated and reported.
pub fn check_session(path: &Path, allow_torn_tail: bool) -> Checked {
    let bytes = std::fs::read(path).unwrap();
    let text = String::from_utf8(bytes).unwrap_or_else(|error| panic!("{path:?}: {error}"));
    assert!(!text.is_empty(), "{path:?} is empty");
    let complete = text.ends_with('\n');
    let lines: Vec<&str> = text.split_terminator('\n').collect();
    let mut torn_tail = false;
    let mut entries = Vec::new();
    let mut ids = HashSet::new();
    for (index, line) in lines.iter().enumerate() {
        let last = index + 1 == lines.len();
        let value: Value = match serde_json::from_str(line) {
            Ok(value) => value,
            Err(error) => {
                assert!(
                    last && !complete && allow_torn_tail,
                    "{path:?} line {}: {error}: {line:?}",
                    index + 1
                );
                torn_tail = true;
                continue;
            }
        };
        assert!(value.is_object(), "{path:?} line {}: {line}", index + 1);
        if index == 0 {
            assert_eq!(value["type"], "session", "{path:?} has no header: {line}");
            assert_eq!(value["version"], 3, "{path:?}: {line}");
            continue;
        }
        assert_ne!(value["type"], "session", "{path:?}: a second header");
        let id = value["id"]
            .as_str()
            .unwrap_or_else(|| panic!("{path:?}: {line}"));
        match &value["parentId"] {
            Value::Null => {}
            Value::String(parent) => assert!(
                ids.contains(parent.as_str()),
                "{path:?} line {}: parent {parent} is not an earlier entry",
                index + 1
            ),
            other => panic!("{path:?}: parentId {other}"),
        }
        assert!(ids.insert(id.to_owned()), "{path:?}: duplicate id {id}");
        entries.push(value);
    }
    Checked { entries, torn_tail }
}

/// Assert that the entries form one linear chain: each entry's parent is the entry before it.
pub fn assert_linear(entries: &[Value]) {
    for pair in entries.windows(2) {
        assert_eq!(
            pair[1]["parentId"], pair[0]["id"],
            "not linear at {}",
            pair[1]["id"]
        );
    }
}

/// Every file under `root` (relative path → bytes), plus each entry's permission bits: equal
/// fingerprints mean nothing was created, removed, changed or re-permissioned.
pub fn tree_fingerprint(root: &Path) -> BTreeMap<String, (u32, Vec<u8>)> {
    use std::os::unix::fs::PermissionsExt;
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            let relative = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let mode = meta.permissions().mode();
            if meta.is_dir() {
                out.insert(format!("{relative}/"), (mode, Vec::new()));
                stack.push(path);
            } else {
                out.insert(relative, (mode, std::fs::read(&path).unwrap_or_default()));
            }
        }
    }
    out
}
