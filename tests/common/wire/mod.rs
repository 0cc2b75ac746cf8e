//! Byte-exact provider responses for the mock server, one module per wire protocol, built from
//! the recordings described in `shared/reference/provider-wire-formats.md`.

pub mod anthropic;
pub mod gemini;
pub mod openai;
pub mod openai_chat;
