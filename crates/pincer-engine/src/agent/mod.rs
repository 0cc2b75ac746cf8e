//! The parts of an agent turn that know the model's side of the conversation: the system prompt
//! (with workspace files and skills), heartbeat rules, and compaction (the pure planning in
//! `compaction`, the summary call in `compact`). The turn itself is `engine/`, which builds on
//! these; nothing here prints, emits events or reads configuration.

pub mod compact;
pub mod compaction;
pub mod context_files;
pub mod git;
pub mod heartbeat;
pub mod prompt;
pub mod skills;
