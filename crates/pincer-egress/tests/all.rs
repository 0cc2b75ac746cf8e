//! The egress crate's integration tests: one binary, local servers on loopback standing in for
//! the internet, real clients (curl, and raw sockets where a test needs exact bytes).

// Test helpers outside `#[test]` functions panic on purpose: a failed setup is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;
mod suite {
    mod forwarder;
    mod proxy;
}
