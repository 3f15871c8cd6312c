//! Runs compared with each other: cases and comparisons matched across
//! several exports ([`fleet`]) and the verdict each run gave ([`verdicts`]),
//! estimated with the unpaired ratios of [`crate::stats::across`].

pub mod fleet;
pub mod verdicts;
