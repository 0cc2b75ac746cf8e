//! pincer's base layer (README, Architecture): what every other layer speaks and stands on, and
//! depends on no other pincer crate.
//!
//! - [`conversation`]: messages, content blocks, tool calls and results, usage (SPEC §8);
//! - [`secret`] and [`redact`]: a key that cannot print itself, and the scrubbing of keys out of
//!   text pincer did not write;
//! - [`fs`]: atomic files, locks, and refusing links, FIFOs and devices where they would do harm;
//! - [`cancel`]: the one cancellation every long wait watches;
//! - [`lenient`]: reading what other programs wrote as leniently as they read it;
//! - [`paths`]: where pincer keeps its files (SPEC §11);
//! - [`tls`]: rustls and trust roots loaded on first use;
//! - [`trace`]: the trace context a child process continues;
//! - [`consumed`]: the registry of what pincer reads from a workspace, and its safe open
//!   (SPEC §21).

pub mod cancel;
pub mod consumed;
pub mod conversation;
pub mod fs;
pub mod lenient;
pub mod paths;
pub mod redact;
pub mod secret;
pub mod tls;
pub mod trace;
