//! Per-case summaries: mean, sd, median, min, max and a 95% CI of the mean.
use serde::{Deserialize, Serialize};

/// Summary of a set of measurements.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Number of values.
    pub n: usize,
    /// Arithmetic mean.
    pub mean: f64,
    /// Sample standard deviation (n - 1); 0 for a single value.
    pub sd: f64,
    /// Median.
    pub median: f64,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
    /// 95% Student-t confidence interval of the mean; `None` for fewer than 2 values.
    pub ci95: Option<(f64, f64)>,
    /// Indices of the values flagged as outliers by MAD.
    pub outliers: Vec<usize>,
}

/// Summarises `values`; `None` when empty.
pub fn summarize(values: &[f64]) -> Option<Summary> {
    let _ = values;
    todo!("stats helper")
}
