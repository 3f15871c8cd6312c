//! Raw results: what the trials of a run produced, before any statistics.
use crate::results::{Sample, TrialFailure};

/// What the trials produced, before any statistics.
#[derive(Clone, Debug, Default)]
pub struct RawResults {
    /// Measured (non-warm-up) samples, in the order they ran.
    pub samples: Vec<Sample>,
    /// Trials that failed.
    pub failures: Vec<TrialFailure>,
    /// Warnings (cache state not reached, fallbacks).
    pub warnings: Vec<String>,
    /// Whether every planned trial ran.
    pub complete: bool,
}
