//! Outlier detection by the median absolute deviation (modified Z-score).

/// Indices of the values whose modified Z-score exceeds 3.5.
pub fn mad_outliers(values: &[f64]) -> Vec<usize> {
    let _ = values;
    todo!("stats helper")
}
