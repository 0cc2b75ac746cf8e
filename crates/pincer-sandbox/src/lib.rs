//! The exec sandbox (SPEC §10, §21): what a confined command may read, write and reach
//! ([`sandbox`]), and how pincer's launcher confines it ([`confine`]: user, mount, PID and
//! network namespaces, Landlock, seccomp), with the Landlock probe's memo ([`probe_memo`]).
//!
//! The tools crate runs commands through it; the launcher binary (`pincer-exec-sandbox`, built
//! at the root) is [`confine::launcher_exit`]. It depends on the base layer only: what pincer
//! consumes from a workspace (the protected names) and where pincer keeps its own files come
//! from there.

// The base layer's modules under the names this crate's modules use.
use pincer_base::{consumed, conversation, fs, paths};

pub mod confine;
mod probe_memo;
pub mod sandbox;
