//! validate (in progress).
