//! What `--profile` cost the trials, per case and for the run (measured
//! by [`crate::analysis::profile_cost`]).
use serde::{Deserialize, Serialize};

use crate::stats::RatioEstimate;

/// What profiling cost one case's trials.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProfileCost {
    /// Pairs of a profiled trial and its run's control trial.
    pub pairs: usize,
    /// Throughput with `--profile` over without, paired by run: the
    /// geometric mean with its 95% CI; `None` with fewer than 2 pairs.
    pub throughput_ratio: Option<RatioEstimate>,
    /// CPU time (user + system) per byte delivered, with `--profile` over
    /// without, paired by run; `None` with fewer than 2 pairs or a trial
    /// without CPU time recorded.
    pub cpu_per_byte_ratio: Option<RatioEstimate>,
}

/// Whether the measured cost meets [`TARGET`](crate::analysis::profile_cost::TARGET).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TargetVerdict {
    /// The whole 95% CI of the throughput ratio is at or above `1 - TARGET`.
    Met,
    /// The whole CI is below `1 - TARGET`.
    Missed,
    /// The CI straddles `1 - TARGET`, or there is no CI.
    Undecided,
}

/// The run's cost, pooled over the cases it names.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PooledCost {
    /// Which cases are pooled: `warm` (the cases the target is stated for),
    /// or `all` when the run has no warm case.
    pub scope: String,
    /// Their ids.
    pub cases: Vec<usize>,
    /// Pairs over those cases.
    pub pairs: usize,
    /// The fewest and the most pairs of one of those cases.
    pub pairs_per_case: (usize, usize),
    /// Throughput with `--profile` over without, every pair of those cases
    /// pooled; `None` with fewer than 2 pairs.
    pub throughput_ratio: Option<RatioEstimate>,
    /// CPU time per byte, with over without, pooled the same way.
    pub cpu_per_byte_ratio: Option<RatioEstimate>,
    /// The target, a throughput cost of at most this fraction.
    pub target: f64,
    /// Whether the throughput ratio's CI meets it.
    pub target_verdict: TargetVerdict,
}

/// What profiling cost the run: measured (pooled), or why not.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status")]
pub enum RunCost {
    /// The cost was not measured.
    #[serde(rename = "not measured")]
    NotMeasured {
        /// Why: `--profile-control 0`, or no control trial paired yet.
        why: String,
    },
    /// The cost, pooled.
    #[serde(rename = "measured")]
    Measured(PooledCost),
}
