//! dataset (in progress).
