//! runner (in progress).
