//! Test fixtures in pi's session format, for the unit tests of the layers below `session/`
//! (providers, compaction): fixtures stay in the format users' session files have and go
//! through the same mapping a resume uses, while the providers themselves never see the file
//! format.

/// A message written in pi's session format, as the provider sees it: test fixtures stay in the
/// format users' session files have, and go through the same mapping a resume uses.
pub fn pi_message(value: serde_json::Value) -> crate::conversation::Message {
    let record: crate::record::AgentMessage = serde_json::from_value(value).expect("a pi message");
    record
        .into_conversation()
        .expect("a user, assistant or toolResult message")
}

/// The pi-format JSON of an assistant message's content, for comparing with fixtures.
pub fn pi_content(message: &crate::conversation::AssistantMessage) -> serde_json::Value {
    let record = crate::record::AssistantMessage::from(message);
    serde_json::to_value(&record.content).expect("serializable")
}

/// The pi-format JSON of a whole assistant message.
pub fn pi_json(message: &crate::conversation::AssistantMessage) -> serde_json::Value {
    serde_json::to_value(crate::record::AssistantMessage::from(message)).expect("serializable")
}
