//! Per-case summaries: mean, sd, median, min, max and a 95% CI of the mean.
//!
//! Invariants of a [`Summary`] returned by [`summarize`] (for `n` finite
//! values):
//! - `n >= 1` and `min <= median <= max`, `min <= mean <= max`;
//! - `sd >= 0`, and `sd == 0` when `n == 1` or all values are equal;
//! - `ci95` is `None` exactly when `n < 2`, and otherwise contains `mean`;
//! - `outliers` holds increasing indices into the input, each `< n`.
//!
//! Floating-point rounding can push a computed mean or median a hair outside
//! `[min, max]`; both are clamped back, since the true values lie inside.
//! Inputs so large that the sum of squares would overflow are rescaled by an
//! exact power of two, so `sd` is only infinite when it really exceeds
//! `f64::MAX`.
use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, StudentsT};

use super::moments::{mean, median_of_sorted, sample_sd};
use super::outliers::mad_outliers;

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
///
/// Nothing is ignored silently: if any value is NaN or infinite the whole
/// summary is `None`, rather than a summary of the remaining values.
///
/// The CI is `mean ± t(0.975, n - 1) · sd / √n`, with `t` the Student t
/// quantile; the outliers are those of [`mad_outliers`].
pub fn summarize(values: &[f64]) -> Option<Summary> {
    if values.is_empty() || values.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let n = values.len();
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let min = sorted[0];
    let max = sorted[n - 1];
    let median = median_of_sorted(&sorted);
    let mean = mean(values);
    let sd = sample_sd(values, mean);
    let ci95 = (n >= 2).then(|| {
        let half = t_quantile_975(n - 1) * sd / (n as f64).sqrt();
        (mean - half, mean + half)
    });
    Some(Summary {
        n,
        mean,
        sd,
        median,
        min,
        max,
        ci95,
        outliers: mad_outliers(values),
    })
}

/// The 0.975 quantile of Student's t distribution with `df` degrees of
/// freedom: the factor of a two-sided 95% confidence interval.
///
/// `df` must be at least 1 (e.g. `t_quantile_975(4) ≈ 2.776445`).
pub fn t_quantile_975(df: usize) -> f64 {
    assert!(df >= 1, "Student t needs at least one degree of freedom");
    StudentsT::new(0.0, 1.0, df as f64)
        .expect("location 0, scale 1 and df >= 1 are valid parameters")
        .inverse_cdf(0.975)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::moments::median;
    use proptest::prelude::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn textbook_values() {
        // [2,4,4,4,5,5,7,9]: sum 40, mean 5; squared deviations
        // 9+1+1+1+0+0+4+16 = 32, sd = sqrt(32/7) = 2.138089935...;
        // sorted middle pair (4, 5) -> median 4.5.
        let s = summarize(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]).unwrap();
        assert_eq!(s.n, 8);
        assert_eq!(s.mean, 5.0);
        assert!(close(s.sd, 2.138_089_935, 1e-9));
        assert_eq!(s.median, 4.5);
        assert_eq!(s.min, 2.0);
        assert_eq!(s.max, 9.0);
        // t(0.975, 7) = 2.364624252; half = 2.364624252 * 2.138089935 / sqrt(8)
        // = 1.787487918.
        let (lo, hi) = s.ci95.unwrap();
        assert!(close(lo, 3.212_512_082, 1e-6), "{lo}");
        assert!(close(hi, 6.787_487_918, 1e-6), "{hi}");
        // median 4.5, |x - median| sorted: 0.5 x5, 2.5, 2.5, 4.5 -> MAD 0.5;
        // z(9) = 0.6745 * 4.5 / 0.5 = 6.07 > 3.5, z(2) = z(7) = 3.37 < 3.5.
        assert_eq!(s.outliers, vec![7]);
    }

    #[test]
    fn t_ci_small_n() {
        // [1,2,3,4,5]: mean 3, sd = sqrt(10/4) = 1.58113883, se = sd/sqrt(5)
        // = 0.70710678; t(0.975, 4) = 2.776445105 -> half = 1.963243161.
        let s = summarize(&[3.0, 1.0, 5.0, 2.0, 4.0]).unwrap();
        assert_eq!(s.mean, 3.0);
        assert_eq!(s.median, 3.0);
        assert!(close(s.sd, 1.581_138_830, 1e-9));
        let (lo, hi) = s.ci95.unwrap();
        assert!(close(lo, 1.036_756_839, 1e-6), "{lo}");
        assert!(close(hi, 4.963_243_161, 1e-6), "{hi}");
        assert!(s.outliers.is_empty());
    }

    #[test]
    fn t_quantiles_match_tables() {
        assert!(close(t_quantile_975(1), 12.706_204_736, 1e-6));
        assert!(close(t_quantile_975(2), 4.302_652_730, 1e-6));
        assert!(close(t_quantile_975(4), 2.776_445_105, 1e-6));
        assert!(close(t_quantile_975(7), 2.364_624_252, 1e-6));
        assert!(close(t_quantile_975(30), 2.042_272_456, 1e-6));
    }

    #[test]
    fn single_value() {
        let s = summarize(&[42.0]).unwrap();
        assert_eq!((s.n, s.mean, s.sd, s.median), (1, 42.0, 0.0, 42.0));
        assert_eq!((s.min, s.max), (42.0, 42.0));
        assert_eq!(s.ci95, None);
        assert!(s.outliers.is_empty());
    }

    #[test]
    fn equal_values_have_zero_width_ci() {
        let s = summarize(&[0.1, 0.1, 0.1]).unwrap();
        // A plain sum / n gives 0.10000000000000002 here; the mean is clamped.
        assert_eq!(s.mean, 0.1);
        assert_eq!(s.sd, 0.0);
        assert_eq!(s.ci95, Some((0.1, 0.1)));
    }

    #[test]
    fn even_count_median_is_mean_of_middle_pair() {
        assert_eq!(summarize(&[4.0, 1.0, 3.0, 2.0]).unwrap().median, 2.5);
        assert_eq!(median(&[1.0, 10.0]), Some(5.5));
        assert_eq!(median(&[]), None);
    }

    #[test]
    fn empty_and_non_finite_give_none() {
        assert_eq!(summarize(&[]), None);
        assert_eq!(summarize(&[1.0, f64::NAN, 3.0]), None);
        assert_eq!(summarize(&[1.0, f64::INFINITY]), None);
        assert_eq!(summarize(&[f64::NEG_INFINITY]), None);
    }

    #[test]
    fn huge_values_do_not_overflow() {
        let s = summarize(&[f64::MAX, f64::MAX, f64::MAX / 2.0]).unwrap();
        assert!(s.mean.is_finite() && s.mean <= f64::MAX);
        assert!(s.sd.is_finite() && s.sd > 0.0);
        // sd of [1, 1, 0.5] is 0.288675..., scaled by f64::MAX.
        assert!(close(s.sd / f64::MAX, 0.288_675_134_6, 1e-9));
    }

    fn finite() -> impl Strategy<Value = f64> {
        use proptest::num::f64::{NEGATIVE, NORMAL, POSITIVE, SUBNORMAL, ZERO};
        POSITIVE | NEGATIVE | NORMAL | SUBNORMAL | ZERO
    }

    proptest! {
        #[test]
        fn summary_invariants(values in prop::collection::vec(finite(), 1..40)) {
            let s = summarize(&values).unwrap();
            prop_assert_eq!(s.n, values.len());
            prop_assert!(s.min <= s.median && s.median <= s.max);
            prop_assert!(s.min <= s.mean && s.mean <= s.max);
            prop_assert!(s.sd >= 0.0);
            prop_assert_eq!(s.ci95.is_none(), values.len() < 2);
            if let Some((lo, hi)) = s.ci95 {
                prop_assert!(lo <= s.mean && s.mean <= hi);
            }
            prop_assert!(s.outliers.windows(2).all(|w| w[0] < w[1]));
            prop_assert!(s.outliers.iter().all(|&i| i < values.len()));
        }

        #[test]
        fn summary_invariants_timings(values in prop::collection::vec(0.0..1e12f64, 1..40)) {
            let s = summarize(&values).unwrap();
            prop_assert!(s.min <= s.median && s.median <= s.max);
            prop_assert!(s.min <= s.mean && s.mean <= s.max);
            prop_assert!(s.sd.is_finite() && s.sd >= 0.0);
        }

        #[test]
        fn any_input_never_panics(values in prop::collection::vec(any::<f64>(), 0..40)) {
            let s = summarize(&values);
            let all_finite = values.iter().all(|v| v.is_finite());
            prop_assert_eq!(s.is_some(), !values.is_empty() && all_finite);
        }
    }
}
