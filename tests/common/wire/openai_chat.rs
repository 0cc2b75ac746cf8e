//! openai_chat responses (to be written).
