//! openai responses (to be written).
