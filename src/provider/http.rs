//! HTTP transport (to be written).
