//! Per-operation latency of one case's trials, as recorded by `--latency`
//! (computed by [`crate::analysis::latency`]).
use serde::{Deserialize, Serialize};

use crate::stats::summary::Summary;

/// Each latency percentile summarised across a case's trials, ns.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LatencySummary {
    /// Trials that recorded latency.
    pub trials: usize,
    /// Medians.
    pub p50_ns: Summary,
    /// 90th percentiles.
    pub p90_ns: Summary,
    /// 99th percentiles.
    pub p99_ns: Summary,
    /// 99.9th percentiles.
    pub p999_ns: Summary,
    /// Maxima.
    pub max_ns: Summary,
}
