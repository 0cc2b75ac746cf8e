//! Wire types (to be written).
