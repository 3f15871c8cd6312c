//! Paired comparisons of two cases: the ratio of their times, run by run.
use serde::{Deserialize, Serialize};

/// A ratio with its 95% confidence interval.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RatioEstimate {
    /// Geometric mean of the per-run ratios.
    pub ratio: f64,
    /// 95% CI, lower end.
    pub ci95_low: f64,
    /// 95% CI, upper end.
    pub ci95_high: f64,
    /// Number of pairs.
    pub pairs: usize,
}

/// Faster, slower or within noise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The CI lies above 1.
    Faster,
    /// The CI lies below 1.
    Slower,
    /// The CI contains 1.
    WithinNoise,
}

/// Ratio `baseline[i] / other[i]` over the pairs (so with times, > 1 means
/// `other` is faster). `None` with fewer than 2 pairs or non-positive values.
pub fn paired_ratio(baseline: &[f64], other: &[f64]) -> Option<RatioEstimate> {
    let _ = (baseline, other);
    todo!("stats helper")
}

impl RatioEstimate {
    /// The verdict the CI supports.
    pub fn verdict(&self) -> Verdict {
        todo!("stats helper")
    }
}
