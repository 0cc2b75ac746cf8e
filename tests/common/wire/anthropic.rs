//! anthropic responses (to be written).
