//! How the work spread over a case's threads or processes (computed by
//! [`crate::analysis::spread`]).
use serde::{Deserialize, Serialize};

use crate::stats::summary::Summary;

/// The spread of a case's workers (threads or processes) over its trials.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    /// Workers per trial (the most any trial had).
    pub workers: usize,
    /// Trials with more than one worker's figures.
    pub trials: usize,
    /// Each worker's own time, ns, over every trial.
    pub time_ns: Summary,
    /// Per trial, the slowest worker's time over the fastest's.
    pub imbalance: Summary,
    /// Each process's peak RSS, KiB (processes only).
    pub max_rss_kib: Option<Summary>,
    /// Each process's PSS before teardown, KiB (processes only, when readable).
    pub pss_kib: Option<Summary>,
}
