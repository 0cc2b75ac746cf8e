//! The anthropic protocol: wire types, request building, stream parsing.

pub mod request;
pub mod stream;
pub mod wire;
