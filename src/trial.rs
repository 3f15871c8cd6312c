//! trial (in progress).
