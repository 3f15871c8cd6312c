//! A case whose trials were too short to time well (flagged by
//! [`crate::analysis::short_trials`]).
use serde::{Deserialize, Serialize};

/// A case whose trials were too short to time well.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShortTrial {
    /// The case's id.
    pub case: usize,
    /// Median main-loop time of its trials, ns.
    pub median_loop_ns: u64,
    /// The threshold it fell under, ns.
    pub threshold_ns: u64,
}
