//! The one integration test binary: every suite runs the real `pincer` binary in its own
//! temporary `PINCER_HOME`.

// Test helpers outside `#[test]` functions panic on purpose: a failed setup is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod suite;
