//! gemini responses (to be written).
