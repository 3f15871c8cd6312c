//! Paired comparisons of two cases: the ratio of their times, run by run.
//!
//! Ratios are averaged in log space: for pairs `(b_i, o_i)` the log ratios
//! `l_i = ln(b_i / o_i)` have mean `m` and sample sd `s`, the estimate is
//! the geometric mean `exp(m)`, and the 95% CI is
//! `exp(m ± t(0.975, n - 1) · s / √n)`.
//!
//! Invariants of a [`RatioEstimate`] from [`paired_ratio`]:
//! - `pairs >= 2`;
//! - `0 <= ci95_low <= ratio <= ci95_high` (the CI is not symmetric around
//!   `ratio`, but it is in log space); all three are finite and positive
//!   unless the ratios themselves lie beyond the range of `f64`;
//! - swapping `baseline` and `other` gives the reciprocal estimate, with
//!   the CI ends swapped and inverted (up to rounding);
//! - identical ratios in every pair give a zero-width CI at that ratio.
use serde::{Deserialize, Serialize};

use super::moments::{mean, sample_sd};
use super::summary::t_quantile_975;

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

/// Faster, slower, within noise, or unsettled because the machine was busy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The CI lies above 1.
    Faster,
    /// The CI lies below 1.
    Slower,
    /// The CI contains 1.
    WithinNoise,
    /// Not decided: trials were interfered with, and the clean pairs alone
    /// do not decide it (see `analysis::busy`). Never from a CI alone.
    Unsettled,
}

impl Verdict {
    /// Faster or slower: a direction was decided.
    pub fn decided(self) -> bool {
        matches!(self, Verdict::Faster | Verdict::Slower)
    }
}

/// Ratio `baseline[i] / other[i]` over the pairs (so with times, > 1 means
/// `other` is faster). `None` with fewer than 2 pairs or non-positive values.
///
/// Also `None` when the slices differ in length or any value is NaN or
/// infinite: nothing is dropped silently. See the module documentation for
/// how the ratio and its CI are computed.
pub fn paired_ratio(baseline: &[f64], other: &[f64]) -> Option<RatioEstimate> {
    let n = baseline.len();
    if n != other.len() || n < 2 {
        return None;
    }
    let valid = |v: &f64| v.is_finite() && *v > 0.0;
    if !baseline.iter().all(valid) || !other.iter().all(valid) {
        return None;
    }
    let logs: Vec<f64> = baseline
        .iter()
        .zip(other)
        .map(|(&b, &o)| log_ratio(b, o))
        .collect();
    let m = mean(&logs);
    let s = sample_sd(&logs, m);
    let half = t_quantile_975(n - 1) * s / (n as f64).sqrt();
    Some(RatioEstimate {
        ratio: m.exp(),
        ci95_low: (m - half).exp(),
        ci95_high: (m + half).exp(),
        pairs: n,
    })
}

/// `ln(b / o)` for positive finite `b` and `o`, finite even when `b / o`
/// would overflow or underflow.
fn log_ratio(b: f64, o: f64) -> f64 {
    let r = b / o;
    if r.is_normal() {
        // One rounding of the ratio, so equal ratios give equal logs.
        r.ln()
    } else {
        b.ln() - o.ln()
    }
}

impl RatioEstimate {
    /// The verdict the CI supports.
    ///
    /// [`Verdict::Faster`] when `ci95_low > 1`, [`Verdict::Slower`] when
    /// `ci95_high < 1`, otherwise (the CI contains 1, even at an end)
    /// [`Verdict::WithinNoise`].
    pub fn verdict(&self) -> Verdict {
        if self.ci95_low > 1.0 {
            Verdict::Faster
        } else if self.ci95_high < 1.0 {
            Verdict::Slower
        } else {
            Verdict::WithinNoise
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn exact_double_is_faster_with_zero_width_ci() {
        let est = paired_ratio(&[2.0, 4.0, 6.0, 8.0], &[1.0, 2.0, 3.0, 4.0]).unwrap();
        assert!(close(est.ratio, 2.0, 1e-12), "{est:?}");
        assert_eq!(est.ci95_low, est.ratio);
        assert_eq!(est.ci95_high, est.ratio);
        assert_eq!(est.pairs, 4);
        assert_eq!(est.verdict(), Verdict::Faster);
    }

    #[test]
    fn hand_computed_geometric_mean_and_ci() {
        // ratios 1.1, 1.2, 0.9: geometric mean (1.1 * 1.2 * 0.9)^(1/3)
        // = 1.188^(1/3) = 1.059104501. ln ratios 0.0953102, 0.1823216,
        // -0.1053605: mean 0.0574237, sd 0.1475357; t(0.975, 2) = 4.302652730,
        // half = 4.302652730 * 0.1475357 / sqrt(3) = 0.3664954;
        // CI = exp(0.0574237 ± 0.3664954) = (0.7341255, 1.5279435).
        let est = paired_ratio(&[1.1, 2.4, 0.9], &[1.0, 2.0, 1.0]).unwrap();
        assert!(close(est.ratio, 1.059_104_501, 1e-6), "{est:?}");
        assert!(close(est.ci95_low, 0.734_125_5, 1e-6), "{est:?}");
        assert!(close(est.ci95_high, 1.527_943_5, 1e-6), "{est:?}");
        assert_eq!(est.pairs, 3);
        assert_eq!(est.verdict(), Verdict::WithinNoise);
    }

    #[test]
    fn noise_around_one_is_within_noise() {
        let base = [100.0, 100.0, 100.0, 100.0, 100.0];
        let other = [105.0, 95.0, 102.0, 98.0, 100.0];
        let est = paired_ratio(&base, &other).unwrap();
        assert!(est.ci95_low < 1.0 && est.ci95_high > 1.0, "{est:?}");
        assert_eq!(est.verdict(), Verdict::WithinNoise);
    }

    #[test]
    fn clear_slowdown_is_slower() {
        // `other` takes about twice as long: ratio about 0.5.
        let est = paired_ratio(&[1.0, 1.0, 1.0, 1.0], &[2.0, 2.1, 1.9, 2.05]).unwrap();
        assert!(est.ci95_high < 1.0, "{est:?}");
        assert!(close(est.ratio, 0.496, 0.01), "{est:?}");
        assert_eq!(est.verdict(), Verdict::Slower);
    }

    #[test]
    fn swapping_sides_inverts_the_estimate() {
        let a = [1.1, 2.4, 0.9, 3.0];
        let b = [1.0, 2.0, 1.0, 2.5];
        let ab = paired_ratio(&a, &b).unwrap();
        let ba = paired_ratio(&b, &a).unwrap();
        assert!(close(ab.ratio * ba.ratio, 1.0, 1e-12));
        assert!(close(ab.ci95_low * ba.ci95_high, 1.0, 1e-12));
        assert!(close(ab.ci95_high * ba.ci95_low, 1.0, 1e-12));
    }

    #[test]
    fn extreme_ratios_give_no_nan() {
        // 1e600 is beyond f64, but its log is not: no NaN, and a verdict.
        let est = paired_ratio(&[1e300, 1e300], &[1e-300, 1e-300]).unwrap();
        assert_eq!(est.ratio, f64::INFINITY);
        assert_eq!(est.verdict(), Verdict::Faster);
    }

    #[test]
    fn invalid_input_gives_none() {
        assert_eq!(paired_ratio(&[1.0, 2.0], &[1.0]), None);
        assert_eq!(paired_ratio(&[1.0, 2.0, 3.0], &[1.0, 2.0]), None);
        assert_eq!(paired_ratio(&[1.0], &[1.0]), None);
        assert_eq!(paired_ratio(&[], &[]), None);
        assert_eq!(paired_ratio(&[1.0, 0.0], &[1.0, 1.0]), None);
        assert_eq!(paired_ratio(&[1.0, 1.0], &[0.0, 1.0]), None);
        assert_eq!(paired_ratio(&[1.0, -2.0], &[1.0, 1.0]), None);
        assert_eq!(paired_ratio(&[1.0, f64::NAN], &[1.0, 1.0]), None);
        assert_eq!(paired_ratio(&[1.0, 1.0], &[f64::INFINITY, 1.0]), None);
    }

    #[test]
    fn verdict_boundaries() {
        let est = |lo, hi| RatioEstimate {
            ratio: 1.0,
            ci95_low: lo,
            ci95_high: hi,
            pairs: 2,
        };
        assert_eq!(est(1.01, 1.2).verdict(), Verdict::Faster);
        assert_eq!(est(0.8, 0.99).verdict(), Verdict::Slower);
        assert_eq!(est(0.9, 1.1).verdict(), Verdict::WithinNoise);
        assert_eq!(est(1.0, 1.1).verdict(), Verdict::WithinNoise);
        assert_eq!(est(0.9, 1.0).verdict(), Verdict::WithinNoise);
        assert_eq!(est(1.0, 1.0).verdict(), Verdict::WithinNoise);
    }
}
