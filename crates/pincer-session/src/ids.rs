//! Sets and maps keyed by entry ids, with a cheap hash: a 100 MB session holds about 75,000
//! entries, and hashing their ids with the standard library's SipHash took a tenth of the time
//! of resuming it. The ids come from the session's own file, so a hash an attacker could flood
//! is not a concern here (the worst a crafted file can do is slow its own resume down).

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// A set of entry ids.
pub type IdSet<K = String> = HashSet<K, BuildHasherDefault<IdHasher>>;
/// A map keyed by entry ids.
pub type IdMap<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;

/// A multiply-and-rotate hash over 8 bytes at a time (the scheme of rustc's `FxHasher`).
#[derive(Default, Clone, Copy)]
pub struct IdHasher {
    hash: u64,
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl IdHasher {
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            let mut buffer = [0; 8];
            buffer.copy_from_slice(word);
            self.add(u64::from_le_bytes(buffer));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            let mut buffer = [0; 8];
            buffer[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(buffer));
        }
    }

    fn write_u8(&mut self, byte: u8) {
        self.add(u64::from(byte));
    }

    fn write_usize(&mut self, value: usize) {
        self.add(value as u64);
    }

    fn finish(&self) -> u64 {
        self.hash
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_that_differ_anywhere_hash_apart() {
        let hash = |text: &str| {
            let mut hasher = IdHasher::default();
            hasher.write(text.as_bytes());
            hasher.finish()
        };
        assert_ne!(hash("a0000001"), hash("a0000002"));
        assert_ne!(hash("a0000001"), hash("b0000001"));
        assert_ne!(hash("0123456789"), hash("0123456788"));
        let mut set: IdSet = IdSet::default();
        assert!(set.insert("a0000001".to_owned()));
        assert!(!set.insert("a0000001".to_owned()));
        assert!(set.contains("a0000001"));
    }
}
