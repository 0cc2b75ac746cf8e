//! Which servers of a workspace's `.mcp.json` the user approved (issue #45, hole 3; claude asks
//! the same question once per project server, or trusts them all with
//! `enableAllProjectMcpServers`). A repository can ship or change `.mcp.json` between two runs;
//! with `[mcp] load_workspace = true` each server it names is a program pincer starts, so a
//! server is started only when its declaration is the one the user approved, for that
//! workspace: a new one, or one whose command, arguments, environment, working directory, URL
//! or headers changed, is refused (not started) with a message saying how to approve it.
//!
//! The record is `mcp-approvals.json` in pincer's state directory (outside every workspace,
//! hidden from commands): per canonical workspace path, each server's name and a SHA-256 of its
//! declaration as written (`${VAR}` unexpanded, keys sorted).

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest as _, Sha256};

/// The record's file name in the state directory.
pub const FILE: &str = "mcp-approvals.json";

/// The flag that approves a workspace's servers as they are.
pub const FLAG: &str = "--approve-workspace-mcp";

/// Every approval: canonical workspace path → server name → fingerprint.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Approvals {
    workspaces: BTreeMap<String, BTreeMap<String, String>>,
}

/// The fingerprint of one declaration: SHA-256 of its name and its keys as written, sorted.
pub fn fingerprint(name: &str, declaration: &Value) -> String {
    let mut hasher = Sha256::new();
    hasher.update(name.as_bytes());
    hasher.update([0]);
    hasher.update(sorted(declaration).to_string().as_bytes());
    hasher
        .finalize()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// `value` with every object's keys in order, so that the fingerprint does not depend on how
/// the file orders them.
fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(object) => {
            let keys: BTreeMap<&String, &Value> = object.iter().collect();
            Value::Object(
                keys.into_iter()
                    .map(|(key, value)| (key.clone(), sorted(value)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

/// The key a workspace is recorded under.
fn key(workspace: &Path) -> String {
    std::fs::canonicalize(workspace)
        .unwrap_or_else(|_| workspace.to_path_buf())
        .to_string_lossy()
        .into_owned()
}

impl Approvals {
    /// The record in `state_dir`; none yet is an empty one. A record pincer cannot read or
    /// parse is an error naming the file.
    pub fn load(state_dir: &Path) -> Result<Self, String> {
        let path = state_dir.join(FILE);
        let bytes = match crate::fs::open_regular(&path, false) {
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(Self::default()),
            Err(error) => return Err(format!("cannot read {}: {error}", path.display())),
            Ok(file) => {
                let mut bytes = Vec::new();
                io::Read::read_to_end(&mut &file, &mut bytes)
                    .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
                bytes
            }
        };
        serde_json::from_slice(&bytes).map_err(|error| {
            format!(
                "{} is not a record of MCP approvals ({error}); remove it and approve again \
                 with {FLAG}",
                path.display()
            )
        })
    }

    /// Whether `fingerprint` is the approved declaration of `server` in `workspace`: `None`
    /// when the server was never approved there.
    pub fn approved(&self, workspace: &Path, server: &str, fingerprint: &str) -> Option<bool> {
        self.workspaces
            .get(&key(workspace))
            .and_then(|servers| servers.get(server))
            .map(|approved| approved == fingerprint)
    }

    /// Approve `servers` (name, fingerprint) for `workspace`, replacing what was approved there.
    pub fn approve(&mut self, workspace: &Path, servers: BTreeMap<String, String>) {
        self.workspaces.insert(key(workspace), servers);
    }

    /// Write the record to `state_dir` (0600, atomically).
    pub fn save(&self, state_dir: &Path) -> Result<PathBuf, String> {
        let path = state_dir.join(FILE);
        let text = serde_json::to_vec_pretty(self).map_err(|error| error.to_string())?;
        crate::fs::create_dir_all(state_dir)
            .and_then(|()| crate::fs::write_atomic(&path, &text))
            .map_err(|error| format!("cannot write {}: {error}", path.display()))?;
        Ok(path)
    }
}

/// Why a workspace server is not started: `changed` when a different declaration was approved.
pub fn refusal(server: &str, changed: bool) -> String {
    let what = if changed {
        "changed since you approved it"
    } else {
        "not approved"
    };
    format!(
        "the server '{server}' of the workspace's .mcp.json is {what}, so it was not started \
         (a repository can ship or change .mcp.json); read .mcp.json, then approve its servers \
         as they are now with `pincer status --mcp {FLAG}` (or {FLAG} on this run)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_fingerprint_ignores_key_order_and_sees_every_changed_value() {
        let one = json!({"command": "node", "args": ["s.js"], "env": {"A": "1", "B": "2"}});
        let reordered = json!({"env": {"B": "2", "A": "1"}, "args": ["s.js"], "command": "node"});
        assert_eq!(fingerprint("x", &one), fingerprint("x", &reordered));
        assert_ne!(fingerprint("x", &one), fingerprint("y", &one));
        let changed = json!({"command": "node", "args": ["s.js"], "env": {"A": "1", "B": "3"}});
        assert_ne!(fingerprint("x", &one), fingerprint("x", &changed));
    }

    #[test]
    fn approvals_are_kept_per_workspace_and_survive_a_save() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::create_dir_all(&a).unwrap();
        std::fs::create_dir_all(&b).unwrap();
        let mut approvals = Approvals::load(&state).unwrap();
        assert_eq!(approvals.approved(&a, "x", "f"), None);
        approvals.approve(&a, BTreeMap::from([("x".to_owned(), "f".to_owned())]));
        approvals.save(&state).unwrap();
        let loaded = Approvals::load(&state).unwrap();
        assert_eq!(loaded.approved(&a, "x", "f"), Some(true));
        assert_eq!(loaded.approved(&a, "x", "g"), Some(false));
        assert_eq!(loaded.approved(&b, "x", "f"), None);
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(state.join(FILE))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}
