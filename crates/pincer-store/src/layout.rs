//! Where everything lives under the store's root prefix, and the identifiers that name it.
//!
//! Pure: no I/O. Every object name the crate reads or writes is made here, so the layout the
//! crate documents (see the crate's header) is the one it uses.

use object_store::path::Path;

use crate::error::StoreError;

/// Segment numbers are written with this many digits: `u64::MAX` has 20, so key order is
/// number order for every segment a session can have.
const SEGMENT_DIGITS: usize = 20;

/// The longest session id, name and idempotency key accepted (bytes).
const MAX_ID_LENGTH: usize = 128;
const MAX_NAME_LENGTH: usize = 512;
const MAX_KEY_LENGTH: usize = 1024;

/// A session's id: the `id` of its pi v3 header line, and its folder in the store.
///
/// 1 to 128 characters of `A-Z a-z 0-9 . _ -`, not starting with a dot (pincer's ids are
/// UUIDs), so it is one path segment on every store and never names a parent.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SessionId(String);

impl SessionId {
    /// Check `id` and take it.
    pub fn parse(id: &str) -> Result<Self, StoreError> {
        let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
        if id.is_empty()
            || id.len() > MAX_ID_LENGTH
            || id.starts_with('.')
            || !id.chars().all(allowed)
        {
            return Err(StoreError::Invalid {
                what: "session id".to_owned(),
                detail: format!(
                    "'{id}' is not a session id (1 to {MAX_ID_LENGTH} characters of A-Z, a-z, \
                     0-9, '.', '_' or '-', not starting with '.')"
                ),
            });
        }
        Ok(Self(id.to_owned()))
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for SessionId {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(&self.0)
    }
}

/// Check a session name (any text but control characters, 1 to 512 bytes).
pub(crate) fn check_name(name: &str) -> Result<(), StoreError> {
    if name.is_empty() || name.len() > MAX_NAME_LENGTH || name.chars().any(char::is_control) {
        return Err(StoreError::Invalid {
            what: "session name".to_owned(),
            detail: format!(
                "{name:?} is not a session name (1 to {MAX_NAME_LENGTH} bytes, no control characters)"
            ),
        });
    }
    Ok(())
}

/// An idempotency key's object name: the SHA-256 of the key, in hex (keys are any text, up to
/// 1,024 bytes; the hash is a safe, fixed-length object name and header value).
pub(crate) fn key_digest(key: &str) -> Result<String, StoreError> {
    if key.is_empty() || key.len() > MAX_KEY_LENGTH {
        return Err(StoreError::Invalid {
            what: "idempotency key".to_owned(),
            detail: format!(
                "an idempotency key has 1 to {MAX_KEY_LENGTH} bytes, not {}",
                key.len()
            ),
        });
    }
    let digest = ring::digest::digest(&ring::digest::SHA256, key.as_bytes());
    Ok(digest
        .as_ref()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect())
}

/// The object names of one store (all under its root prefix).
#[derive(Debug, Clone)]
pub(crate) struct Layout {
    root: Path,
}

impl Layout {
    pub(crate) fn new(root: Path) -> Self {
        Self { root }
    }

    /// `<root>/sessions`: one folder per session.
    pub(crate) fn sessions(&self) -> Path {
        self.root.clone().join("sessions")
    }

    /// `<root>/sessions/<id>`.
    pub(crate) fn session(&self, session: &SessionId) -> Path {
        self.sessions().join(session.as_str())
    }

    /// `<root>/sessions/<id>/segments`.
    pub(crate) fn segments(&self, session: &SessionId) -> Path {
        self.session(session).join("segments")
    }

    /// `<root>/sessions/<id>/segments/<20-digit number>.jsonl`.
    pub(crate) fn segment(&self, session: &SessionId, number: u64) -> Path {
        self.segments(session).join(numbered(number))
    }

    /// `<root>/sessions/<id>/manifest.json`.
    pub(crate) fn manifest(&self, session: &SessionId) -> Path {
        self.session(session).join("manifest.json")
    }

    /// `<root>/sessions/<id>/lease.json`.
    pub(crate) fn lease(&self, session: &SessionId) -> Path {
        self.session(session).join("lease.json")
    }

    /// `<root>/sessions/<id>/keys/<sha256 of the key>.json`.
    pub(crate) fn key(&self, session: &SessionId, digest: &str) -> Path {
        self.session(session)
            .join("keys")
            .join(format!("{digest}.json"))
    }

    /// `<root>/sessions/<id>/snapshots/<20-digit segment number>.jsonl`.
    pub(crate) fn snapshot(&self, session: &SessionId, through: u64) -> Path {
        self.session(session)
            .join("snapshots")
            .join(numbered(through))
    }

    /// `<root>/sessions/<id>/names/`: the names claimed for the session (so deleting it finds them).
    pub(crate) fn name_references(&self, session: &SessionId) -> Path {
        self.session(session).join("names")
    }

    /// `<root>/sessions/<id>/names/<name, percent-encoded>`.
    pub(crate) fn name_reference(&self, session: &SessionId, name: &str) -> Path {
        self.name_references(session).join(format!("{name}.json"))
    }

    /// `<root>/names/<name, percent-encoded>.json`: name → session id, create-only.
    pub(crate) fn name(&self, name: &str) -> Path {
        self.root.clone().join("names").join(format!("{name}.json"))
    }

    /// `<root>/.pincer-check/<probe>`: the consistency check's scratch objects.
    pub(crate) fn check_area(&self, probe: &str) -> Path {
        self.root.clone().join(".pincer-check").join(probe)
    }

    /// `<root>/store.json`: written once the consistency check passed.
    pub(crate) fn checked_marker(&self) -> Path {
        self.root.clone().join("store.json")
    }
}

/// A segment's or snapshot's file name.
fn numbered(number: u64) -> String {
    format!("{number:0SEGMENT_DIGITS$}.jsonl")
}

/// The number of the segment at `location` (None for anything that is not a segment's name).
pub(crate) fn segment_number(location: &Path) -> Option<u64> {
    let digits = location.filename()?.strip_suffix(".jsonl")?;
    if digits.len() != SEGMENT_DIGITS || !digits.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout() -> Layout {
        Layout::new(Path::from("team/pincer"))
    }

    #[test]
    fn segment_names_sort_in_turn_order_and_read_back() {
        let session = SessionId::parse("0195f0c2-7a3e-7000-8000-000000000001").unwrap();
        let names: Vec<String> = [1_u64, 2, 10, 999, u64::MAX]
            .iter()
            .map(|number| layout().segment(&session, *number).to_string())
            .collect();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted);
        assert_eq!(
            names[0],
            "team/pincer/sessions/0195f0c2-7a3e-7000-8000-000000000001/segments/00000000000000000001.jsonl"
        );
        for number in [1_u64, 42, u64::MAX] {
            assert_eq!(
                segment_number(&layout().segment(&session, number)),
                Some(number)
            );
        }
        assert_eq!(segment_number(&layout().manifest(&session)), None);
        assert_eq!(segment_number(&Path::from("a/1.jsonl")), None);
    }

    #[test]
    fn session_ids_that_could_escape_their_folder_are_refused() {
        for bad in ["", "..", ".hidden", "a/b", "a b", "é", &"x".repeat(129)] {
            assert!(SessionId::parse(bad).is_err(), "{bad:?} was accepted");
        }
        assert!(SessionId::parse("0195f0c2-7a3e-7000-8000-000000000001").is_ok());
    }

    #[test]
    fn a_name_with_slashes_stays_one_object_under_names() {
        let path = layout().name("nightly/fix: a/b %");
        let parts: Vec<_> = path.parts().collect();
        assert_eq!(parts.len(), 4, "{path}");
        assert!(path.to_string().starts_with("team/pincer/names/"));
        assert!(check_name("line\nbreak").is_err());
        assert!(check_name("").is_err());
    }

    #[test]
    fn keys_are_named_by_their_sha256() {
        assert_eq!(
            key_digest("abc").unwrap(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert!(key_digest("").is_err());
    }
}
