//! Harness overhead benchmark (in progress).
fn main() {}
