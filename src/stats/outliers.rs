//! Outlier detection by the median absolute deviation (modified Z-score).
//!
//! Following Iglewicz and Hoaglin (1993), the modified Z-score of a value
//! `x` is `z = 0.6745 · (x - median) / MAD`, with
//! `MAD = median(|x_i - median|)`, and `x` is an outlier when `|z| > 3.5`.
//! The constant 0.6745 (the 0.75 quantile of the standard normal) makes
//! `MAD / 0.6745` estimate the standard deviation of normal data.
//!
//! When more than half of the values are equal, the MAD is 0 and the score
//! above is undefined. Then the mean absolute deviation around the median,
//! `MeanAD = mean(|x_i - median|)`, is used instead, with the constant
//! 0.7979 (≈ √(2/π)) in its place: `z = (x - median) / (1.253314 · MeanAD)`
//! (the convention IBM SPSS documents). If `MeanAD` is 0 too, all values are
//! equal and none is an outlier.
//!
//! Invariants of [`mad_outliers`]:
//! - the returned indices are strictly increasing and each is `< values.len()`;
//! - the result does not depend on the order of the values (beyond the
//!   indices), nor, up to rounding, on their location and scale: adding a
//!   constant to every value or multiplying every value by a positive
//!   constant flags the same indices;
//! - fewer than 3 finite values never yield an outlier;
//! - non-finite values (NaN, ±∞) are always flagged, and the median and
//!   deviations are computed from the finite values only.

use super::moments::{mean, median};

/// The modified Z-score above which a value is an outlier.
pub const Z_THRESHOLD: f64 = 3.5;

/// Scale factor of the MAD score: the 0.75 quantile of the standard normal.
pub const MAD_FACTOR: f64 = 0.6745;

/// Divisor factor of the mean-absolute-deviation score used when the MAD is
/// 0: `1 / 0.7979 = √(π/2) ≈ 1.253314`.
pub const MEAN_AD_FACTOR: f64 = 1.253314;

/// Indices of the values whose modified Z-score exceeds 3.5.
///
/// See the module documentation for the scores, the MAD = 0 fallback and
/// the invariants. Non-finite values are always flagged.
pub fn mad_outliers(values: &[f64]) -> Vec<usize> {
    let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    let scores = modified_z_scores(&finite);
    let mut scores = scores.into_iter();
    let mut flagged = Vec::new();
    for (i, v) in values.iter().enumerate() {
        // Only finite values have a score, so `scores` advances with them.
        let outlier = !v.is_finite()
            || scores
                .next()
                .flatten()
                .is_some_and(|z| z.abs() > Z_THRESHOLD);
        if outlier {
            flagged.push(i);
        }
    }
    flagged
}

/// Modified Z-scores of finite `values`, in their order; each is `None`
/// when the spread is 0 (all values equal), and the vector is empty when
/// `values` is.
///
/// Uses the MAD, or the mean absolute deviation when the MAD is 0.
pub fn modified_z_scores(values: &[f64]) -> Vec<Option<f64>> {
    debug_assert!(values.iter().all(|v| v.is_finite()));
    // z-scores are scale invariant: bring huge values down by an exact power
    // of two so that deviations cannot overflow.
    let max_abs = values.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let scale = if max_abs > f64::from_bits((1023 + 1000) << 52) {
        f64::from_bits((1023 - 600) << 52)
    } else {
        1.0
    };
    let scaled: Vec<f64> = values.iter().map(|v| v * scale).collect();
    let Some(med) = median(&scaled) else {
        return Vec::new();
    };
    let deviations: Vec<f64> = scaled.iter().map(|v| (v - med).abs()).collect();
    let mad = median(&deviations).unwrap_or(0.0);
    let mean_ad = if mad > 0.0 { 0.0 } else { mean(&deviations) };
    scaled
        .iter()
        .map(|&x| {
            if mad > 0.0 {
                Some(MAD_FACTOR * (x - med) / mad)
            } else if mean_ad > 0.0 {
                Some((x - med) / (MEAN_AD_FACTOR * mean_ad))
            } else {
                None
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_the_far_value_only() {
        // sorted 9.9 10 10 10.1 10.2 50 -> median 10.05; |x - median|
        // sorted .05 .05 .05 .15 .15 39.95 -> MAD 0.1.
        // z(50) = 0.6745 * 39.95 / 0.1 = 269.5; z(10.2) = 0.6745 * 0.15 / 0.1 = 1.01.
        let values = [10.0, 10.1, 9.9, 10.0, 10.2, 50.0];
        assert_eq!(mad_outliers(&values), vec![5]);
        let z = modified_z_scores(&values);
        assert!((z[5].unwrap() - 269.462_75).abs() < 1e-6, "{:?}", z[5]);
        assert!((z[4].unwrap() - 1.011_75).abs() < 1e-6, "{:?}", z[4]);
    }

    #[test]
    fn low_outliers_count_too() {
        assert_eq!(mad_outliers(&[-40.0, 10.0, 10.1, 9.9, 10.0, 10.2]), vec![0]);
    }

    #[test]
    fn mad_zero_falls_back_to_mean_absolute_deviation() {
        // median 5, deviations [0,0,0,0,1]: MAD 0, MeanAD 0.2;
        // z(6) = 1 / (1.253314 * 0.2) = 3.989 > 3.5.
        let values = [5.0, 5.0, 6.0, 5.0, 5.0];
        let z = modified_z_scores(&values);
        assert!((z[2].unwrap() - 3.989_423).abs() < 1e-5, "{:?}", z[2]);
        assert_eq!(z[0], Some(0.0));
        assert_eq!(mad_outliers(&values), vec![2]);
        // median 5, deviations [0,0,0,1]: MAD 0, MeanAD 0.25;
        // z(6) = 1 / (1.253314 * 0.25) = 3.19 < 3.5.
        assert!(mad_outliers(&[5.0, 5.0, 5.0, 6.0]).is_empty());
    }

    #[test]
    fn no_spread_means_no_outliers() {
        assert!(mad_outliers(&[7.0; 10]).is_empty());
        assert_eq!(modified_z_scores(&[7.0, 7.0]), vec![None, None]);
        assert!(mad_outliers(&[]).is_empty());
        assert!(mad_outliers(&[1.0]).is_empty());
        assert!(mad_outliers(&[1.0, 1e9]).is_empty());
    }

    #[test]
    fn scale_and_shift_invariant() {
        let values = [10.0, 10.1, 9.9, 10.0, 10.2, 50.0];
        let moved: Vec<f64> = values.iter().map(|v| v * 1e6 + 3.0).collect();
        assert_eq!(mad_outliers(&moved), vec![5]);
        let huge: Vec<f64> = values.iter().map(|v| v * 1e306).collect();
        assert_eq!(mad_outliers(&huge), vec![5]);
    }

    #[test]
    fn non_finite_values_are_flagged() {
        let values = [10.0, f64::NAN, 10.1, 9.9, f64::INFINITY, 10.0, 10.2, 50.0];
        assert_eq!(mad_outliers(&values), vec![1, 4, 7]);
    }
}
