//! Whether each group reached the `--precision` target and how its runs
//! ended (decided by [`crate::analysis::stopping`]).
use serde::{Deserialize, Serialize};

/// How a group's runs ended, as the report says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StoppedBy {
    /// Every comparison reached the target.
    Precision,
    /// Some comparison did not, and the group used its `--max-runs`.
    MaxRuns,
    /// Some comparison did not, and the group's share of `--max-time` ran out.
    MaxTime,
    /// Some comparison did not, and every comparison's verdict was decided,
    /// or out of reach by `--max-runs`, first (a map's point: `stats::decided`).
    Decided,
    /// The run was interrupted (or is still going).
    Unfinished,
}

/// Whether one group reached the precision target, for the table and exports.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GroupPrecision {
    /// The group, e.g. `seq 16 KiB sum, warm`.
    pub group: String,
    /// The target half-width (0.02 for ±2%).
    pub target: f64,
    /// Whether every comparison of the group reached it.
    pub reached: bool,
    /// The widest 95% CI half-width of the group's comparisons, as a ratio.
    pub half_width: Option<f64>,
    /// Pairs of the comparison with the fewest.
    pub pairs: usize,
    /// How the group's runs ended.
    pub stopped_by: StoppedBy,
}
