//! The names MCP tools are offered under: `mcp__SERVER__TOOL` (claude's convention), cut to what
//! every provider accepts — at most 64 characters of `[a-zA-Z0-9_-]` — and unique within a run.
//!
//! Pure and deterministic: the same servers and tools give the same names in every run, so a
//! resumed session's earlier tool calls keep naming the tools they called. The mapping back to
//! (server, tool) is a table lookup, never a parse of the offered name, so a server or tool name
//! containing `__` or characters that had to be replaced still maps back exactly.

use std::collections::BTreeMap;

/// The longest tool name any provider accepts (OpenAI and Anthropic: 64).
pub const MAX_TOOL_NAME: usize = 64;

/// The prefix of every MCP tool name.
pub const PREFIX: &str = "mcp__";

/// `mcp__SERVER__TOOL` with every character outside `[a-zA-Z0-9_-]` replaced by `_`, not yet
/// cut to length.
pub fn joined(server: &str, tool: &str) -> String {
    format!("{PREFIX}{}__{}", sanitize(server), sanitize(tool))
}

/// `text` with every character outside `[a-zA-Z0-9_-]` replaced by `_`.
pub fn sanitize(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Assigns offered names and remembers what each one stands for.
#[derive(Debug, Clone, Default)]
pub struct NameTable<T> {
    names: BTreeMap<String, T>,
}

impl<T> NameTable<T> {
    /// An empty table.
    pub fn new() -> NameTable<T> {
        NameTable {
            names: BTreeMap::new(),
        }
    }

    /// Give the tool `tool` of `server` a name no other tool in the table has, and remember
    /// `target` under it. A name that is too long, or taken, keeps as much of its start as fits
    /// and ends in a hash of the original server and tool names.
    pub fn assign(&mut self, server: &str, tool: &str, target: T) -> String {
        let name = joined(server, tool);
        let name = if name.len() <= MAX_TOOL_NAME && !self.names.contains_key(&name) {
            name
        } else {
            let mut seed = fnv1a(format!("{server}\0{tool}").as_bytes());
            loop {
                let suffix = format!("_{:08x}", seed & 0xffff_ffff);
                // The joined name is ASCII, so any byte index is a character boundary.
                let keep = name.len().min(MAX_TOOL_NAME - suffix.len());
                let candidate = format!("{}{suffix}", &name[..keep]);
                if !self.names.contains_key(&candidate) {
                    break candidate;
                }
                seed = fnv1a(&seed.to_le_bytes());
            }
        };
        self.names.insert(name.clone(), target);
        name
    }

    /// What `name` stands for.
    pub fn get(&self, name: &str) -> Option<&T> {
        self.names.get(name)
    }
}

/// 64-bit FNV-1a: small, stable across versions and platforms.
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in bytes {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    fn valid(name: &str) -> bool {
        name.len() <= MAX_TOOL_NAME
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    }

    #[test]
    fn names_follow_claudes_convention_and_replace_what_providers_refuse() {
        let mut table = NameTable::new();
        assert_eq!(
            table.assign("github", "get_issue", 1),
            "mcp__github__get_issue"
        );
        assert_eq!(
            table.assign("my.server", "read file", 2),
            "mcp__my_server__read_file"
        );
        assert_eq!(table.get("mcp__my_server__read_file"), Some(&2));
        assert_eq!(table.get("mcp__my.server__read file"), None);
    }

    #[test]
    fn long_and_colliding_names_stay_valid_unique_and_map_back_exactly() {
        let mut table = NameTable::new();
        let long_tool = "t".repeat(100);
        let first = table.assign("server", &long_tool, "long");
        assert!(valid(&first), "{first}");
        assert!(first.starts_with("mcp__server__ttt"));
        // `a.b` and `a_b` sanitize to the same name: the second gets a hashed suffix.
        let plain = table.assign("s", "a_b", "plain");
        let dotted = table.assign("s", "a.b", "dotted");
        assert_eq!(plain, "mcp__s__a_b");
        assert_ne!(plain, dotted);
        assert!(valid(&dotted), "{dotted}");
        assert_eq!(table.get(&plain), Some(&"plain"));
        assert_eq!(table.get(&dotted), Some(&"dotted"));
        assert_eq!(table.get(&first), Some(&"long"));
        // Deterministic: a fresh table gives the same names.
        let mut again = NameTable::new();
        assert_eq!(again.assign("server", &long_tool, "long"), first);
    }
}
