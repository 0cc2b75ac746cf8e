//! Brings version 1 and 2 session files up to version 3, the way pi does on load.
//!
//! Works on the raw JSON values of the lines, before they are typed: a v1 entry has no `id` and
//! would not type at all. Changes are made in place and follow pi's `migrateToCurrentVersion` so
//! that a rewrite produces what pi itself would write: keys pi adds (`id`, `parentId`,
//! `firstKeptEntryId`, a missing `version`) go at the end of the object, removed keys leave the
//! others in order, existing keys keep their position.
//!
//! - v1 → v2: every entry gets a fresh 8-hex id and `parentId` = the previous entry's id (a single
//!   linear chain); a compaction's `firstKeptEntryIndex` (an index into the file's records, the
//!   header being record 0) becomes `firstKeptEntryId`.
//! - v2 → v3: the message role `hookMessage` became `custom`.
//!
//! One deliberate difference: pi's v1 migration never records the ids it draws, so its collision
//! check is void; here drawn ids are remembered and never repeat within a file.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::record::{CURRENT_VERSION, new_entry_id};

/// Migrates `header` and `entries` (every line after the header, in file order) to the current
/// version. Returns whether anything was migrated, i.e. whether the file should be rewritten.
/// A header without a `version` is version 1, as in pi.
pub fn migrate(header: &mut Value, entries: &mut [Value]) -> bool {
    let version = header.get("version").and_then(Value::as_u64).unwrap_or(1);
    if version >= u64::from(CURRENT_VERSION) {
        return false;
    }
    if version < 2 {
        assign_ids_and_chain(header, entries);
    }
    if version < 3 {
        rename_hook_messages(header, entries);
    }
    true
}

fn assign_ids_and_chain(header: &mut Value, entries: &mut [Value]) {
    set_version(header, 2);
    let mut taken: HashSet<String> = HashSet::new();
    let mut previous: Option<String> = None;
    for index in 0..entries.len() {
        let Some(object) = entries[index].as_object_mut() else {
            continue;
        };
        if is_kind(object, "session") {
            object.insert("version".to_owned(), Value::from(2));
            continue;
        }
        let id = new_entry_id(&|candidate| taken.contains(candidate));
        taken.insert(id.clone());
        object.insert("id".to_owned(), Value::from(id.clone()));
        object.insert(
            "parentId".to_owned(),
            previous.replace(id).map_or(Value::Null, Value::from),
        );
        if is_kind(object, "compaction") {
            convert_first_kept_index(entries, index);
        }
    }
}

/// `firstKeptEntryIndex` counts the header as record 0, so entry `i` of `entries` is record
/// `i + 1`. The target's id is read after the compaction's own id was assigned, so an index
/// pointing at a later entry (not yet migrated, no id) or at the header keeps no id at all.
fn convert_first_kept_index(entries: &mut [Value], compaction: usize) {
    let Some(index_value) = entries[compaction].get("firstKeptEntryIndex") else {
        return;
    };
    if !index_value.is_number() {
        return;
    }
    let target_id = record_index(index_value)
        .and_then(|record| record.checked_sub(1))
        .and_then(|entry| entries.get(entry))
        .filter(|target| target.get("type").and_then(Value::as_str) != Some("session"))
        .and_then(|target| target.get("id"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    let Some(object) = entries[compaction].as_object_mut() else {
        return;
    };
    object.shift_remove("firstKeptEntryIndex");
    match target_id {
        Some(id) => {
            object.insert("firstKeptEntryId".to_owned(), Value::from(id));
        }
        None => {
            // pi assigns `undefined`, which JSON.stringify leaves out.
            object.shift_remove("firstKeptEntryId");
        }
    }
}

/// A JSON number used as an array index: a non-negative integer, also when written as `4.0`.
fn record_index(value: &Value) -> Option<usize> {
    if let Some(index) = value.as_u64() {
        return usize::try_from(index).ok();
    }
    let float = value.as_f64()?;
    if float >= 0.0 && float.fract() == 0.0 && float < usize::MAX as f64 {
        Some(float as usize)
    } else {
        None
    }
}

fn rename_hook_messages(header: &mut Value, entries: &mut [Value]) {
    set_version(header, 3);
    for entry in entries.iter_mut() {
        let Some(object) = entry.as_object_mut() else {
            continue;
        };
        if is_kind(object, "session") {
            object.insert("version".to_owned(), Value::from(3));
            continue;
        }
        if !is_kind(object, "message") {
            continue;
        }
        if let Some(message) = object.get_mut("message").and_then(Value::as_object_mut)
            && message.get("role").and_then(Value::as_str) == Some("hookMessage")
        {
            message.insert("role".to_owned(), Value::from("custom"));
        }
    }
}

fn set_version(header: &mut Value, version: u32) {
    if let Some(object) = header.as_object_mut()
        && is_kind(object, "session")
    {
        object.insert("version".to_owned(), Value::from(version));
    }
}

fn is_kind(object: &Map<String, Value>, kind: &str) -> bool {
    object.get("type").and_then(Value::as_str) == Some(kind)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_line;
    use crate::record::{AgentMessage, Entry, Line, parse_value, to_line};
    use pretty_assertions::assert_eq;
    use serde_json::json;
    use std::collections::HashMap;
    use std::path::PathBuf;

    fn read_values(name: &str) -> (Value, Vec<Value>) {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/sessions")
            .join(name);
        let text = std::fs::read_to_string(path).unwrap();
        let mut values = text.lines().map(|line| parse_value(line).unwrap());
        let header = values.next().unwrap();
        (header, values.collect())
    }

    fn write_lines(header: &Value, entries: &[Value]) -> String {
        std::iter::once(header)
            .chain(entries)
            .map(|value| to_line(value).unwrap())
            .collect()
    }

    /// Replaces every entry id (and references to it) by its position, so files with random ids
    /// can be compared.
    fn normalize_ids(text: &str) -> String {
        let mut names: HashMap<String, String> = HashMap::new();
        for line in text.lines() {
            let value: Value = serde_json::from_str(line).unwrap();
            if value["type"] != "session"
                && let Some(id) = value["id"].as_str()
            {
                let name = format!("#{}", names.len());
                names.insert(id.to_owned(), name);
            }
        }
        let mut normalized = text.to_owned();
        for (id, name) in names {
            normalized = normalized.replace(&format!("\"{id}\""), &format!("\"{name}\""));
        }
        normalized
    }

    #[test]
    fn a_v1_file_gets_ids_a_linear_chain_and_a_first_kept_entry_id() {
        let (mut header, mut entries) = read_values("v1.jsonl");
        assert!(migrate(&mut header, &mut entries));
        assert_eq!(header["version"], 3);
        let ids: Vec<&str> = entries.iter().map(|e| e["id"].as_str().unwrap()).collect();
        assert_eq!(ids.len(), 7);
        assert!(
            ids.iter()
                .all(|id| id.len() == 8 && id.chars().all(|c| c.is_ascii_hexdigit()))
        );
        assert_eq!(
            ids.iter().collect::<HashSet<_>>().len(),
            ids.len(),
            "ids are unique"
        );
        assert_eq!(entries[0]["parentId"], Value::Null);
        for pair in entries.windows(2) {
            assert_eq!(pair[1]["parentId"], pair[0]["id"]);
        }
        let compaction = &entries[5];
        assert_eq!(compaction["type"], "compaction");
        assert_eq!(compaction.get("firstKeptEntryIndex"), None);
        // Index 4 counts the header as 0: the user message "second question".
        assert_eq!(compaction["firstKeptEntryId"], entries[3]["id"]);
        assert_eq!(entries[3]["message"]["content"], "second question");
        // Every migrated line now types as a v3 entry.
        for entry in &entries {
            let Line::Entry(_) = parse_line(to_line(entry).unwrap().trim_end()).unwrap() else {
                panic!("not an entry");
            };
        }
    }

    #[test]
    fn a_migrated_v1_file_matches_what_pi_wrote_apart_from_the_random_ids() {
        let (mut header, mut entries) = read_values("v1.jsonl");
        migrate(&mut header, &mut entries);
        let ours = write_lines(&header, &entries);
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/sessions/v1.pi-migrated.jsonl");
        let pis = std::fs::read_to_string(path).unwrap();
        assert_eq!(normalize_ids(&ours), normalize_ids(&pis));
    }

    #[test]
    fn a_v2_file_renames_hook_messages_to_custom_and_matches_pi_byte_for_byte() {
        let (mut header, mut entries) = read_values("v2.jsonl");
        let before: Vec<String> = entries.iter().map(|e| e["id"].to_string()).collect();
        assert!(migrate(&mut header, &mut entries));
        assert_eq!(header["version"], 3);
        assert_eq!(entries[1]["message"]["role"], "custom");
        let after: Vec<String> = entries.iter().map(|e| e["id"].to_string()).collect();
        assert_eq!(before, after, "v2 ids are kept");
        let Line::Entry(Entry::Message(message)) =
            parse_line(to_line(&entries[1]).unwrap().trim_end()).unwrap()
        else {
            panic!("not a message entry");
        };
        assert!(
            matches!(message.message, AgentMessage::Other(ref v) if v["customType"] == "my-hook")
        );
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/sessions/v2.pi-migrated.jsonl");
        assert_eq!(
            write_lines(&header, &entries),
            std::fs::read_to_string(path).unwrap()
        );
    }

    #[test]
    fn a_v3_file_is_left_alone() {
        let (mut header, mut entries) = read_values("pi-v3-branched.jsonl");
        let (original_header, original_entries) = (header.clone(), entries.clone());
        assert!(!migrate(&mut header, &mut entries));
        assert_eq!(header, original_header);
        assert_eq!(entries, original_entries);
    }

    #[test]
    fn a_missing_version_is_added_at_the_end_of_the_header_like_pi_does() {
        let mut header = json!({"type": "session", "id": "s", "timestamp": "t", "cwd": "/"});
        assert!(migrate(&mut header, &mut []));
        assert_eq!(
            to_line(&header).unwrap(),
            "{\"type\":\"session\",\"id\":\"s\",\"timestamp\":\"t\",\"cwd\":\"/\",\"version\":3}\n"
        );
    }

    #[test]
    fn a_first_kept_index_that_points_nowhere_leaves_no_first_kept_entry_id() {
        let mut header = json!({"type": "session", "id": "s", "timestamp": "t", "cwd": "/"});
        let mut entries = vec![
            json!({"type": "message", "timestamp": "t", "message": {"role": "user", "content": "x", "timestamp": 1}}),
            json!({"type": "compaction", "timestamp": "t", "summary": "s", "firstKeptEntryIndex": 0, "tokensBefore": 1}),
            json!({"type": "compaction", "timestamp": "t", "summary": "s", "firstKeptEntryIndex": 9, "tokensBefore": 1}),
            json!({"type": "compaction", "timestamp": "t", "summary": "s", "firstKeptEntryIndex": 1.0, "tokensBefore": 1}),
        ];
        assert!(migrate(&mut header, &mut entries));
        assert_eq!(
            entries[1].get("firstKeptEntryId"),
            None,
            "index 0 is the header"
        );
        assert_eq!(
            entries[2].get("firstKeptEntryId"),
            None,
            "index 9 is past the end"
        );
        assert_eq!(entries[3]["firstKeptEntryId"], entries[0]["id"]);
        assert!(
            entries
                .iter()
                .all(|e| e.get("firstKeptEntryIndex").is_none())
        );
    }
}
