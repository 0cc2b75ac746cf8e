//! Reading what other programs wrote as leniently as they read it themselves: a part of an
//! unexpected shape counts as absent instead of failing the whole (an SDK's stdin line, a
//! session message of a role pincer does not model, a server declared in claude's form).

use serde::{Deserialize, Deserializer};

/// A value of the shape `T` expects, or `None`. Only for types read from a `serde_json::Value`
/// (a failed read leaves nothing half-consumed there).
#[derive(Debug)]
pub struct Lenient<T>(pub Option<T>);

impl<T> Default for Lenient<T> {
    fn default() -> Self {
        Lenient(None)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Lenient<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(Lenient(T::deserialize(deserializer).ok()))
    }
}
