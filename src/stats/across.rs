//! Comparisons across runs: the same case (or the same comparison) measured
//! in two exports, on different machines, kernels or versions, or before and
//! after a change (`run --baseline`). The samples of two runs are not
//! paired, so the estimate is the ratio of geometric means with a Welch
//! interval in log space:
//!
//! for log values `x` (run A, `n` of them) and `y` (run B, `m`), the
//! estimate is `exp(mean(y) − mean(x))` and the 95% CI is
//! `exp(d ± t(0.975, ν) · se)` with `se = √(s²ₓ/n + s²ᵧ/m)` and the
//! Welch–Satterthwaite `ν`.
//!
//! [`crate::analysis::across::fleet`] matches cases and comparisons across
//! several exports with these estimates.
use statrs::distribution::{ContinuousCDF, StudentsT};

use super::compare::RatioEstimate;
use super::moments::{mean, sample_sd};

/// The ratio of geometric means `geomean(b) / geomean(a)` of two independent
/// sets of positive values, with its Welch 95% CI. `None` when a set has
/// fewer than 2 values or a value is not positive and finite. `pairs` holds
/// the smaller of the two counts.
pub fn independent_ratio(a: &[f64], b: &[f64]) -> Option<RatioEstimate> {
    let logs = |v: &[f64]| -> Option<Vec<f64>> {
        if v.len() < 2 || !v.iter().all(|x| x.is_finite() && *x > 0.0) {
            return None;
        }
        Some(v.iter().map(|x| x.ln()).collect())
    };
    welch_logs(&logs(a)?, &logs(b)?)
}

/// [`independent_ratio`] on values already in log space (e.g. the per-run
/// log ratios of a paired comparison, to form a ratio of ratios).
pub fn welch_logs(x: &[f64], y: &[f64]) -> Option<RatioEstimate> {
    if x.len() < 2 || y.len() < 2 || !x.iter().chain(y).all(|v| v.is_finite()) {
        return None;
    }
    let (n, m) = (x.len() as f64, y.len() as f64);
    let (mx, my) = (mean(x), mean(y));
    let (vx, vy) = (sample_sd(x, mx).powi(2) / n, sample_sd(y, my).powi(2) / m);
    let se = (vx + vy).sqrt();
    let d = my - mx;
    let half = if se == 0.0 {
        0.0
    } else {
        let df = (vx + vy).powi(2) / (vx.powi(2) / (n - 1.0) + vy.powi(2) / (m - 1.0));
        let t = StudentsT::new(0.0, 1.0, df.max(1.0))
            .ok()?
            .inverse_cdf(0.975);
        t * se
    };
    Some(RatioEstimate {
        ratio: d.exp(),
        ci95_low: (d - half).exp(),
        ci95_high: (d + half).exp(),
        pairs: x.len().min(y.len()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_doubling_is_a_ratio_of_two_with_a_zero_width_ci() {
        let est = independent_ratio(&[1.0, 2.0, 4.0], &[2.0, 4.0, 8.0]).unwrap();
        assert!((est.ratio - 2.0).abs() < 1e-12, "{est:?}");
        // Same spread in log space: the CI has width, around 2.
        assert!(est.ci95_low < 2.0 && est.ci95_high > 2.0, "{est:?}");
        let exact = independent_ratio(&[1.0, 1.0], &[3.0, 3.0]).unwrap();
        assert!((exact.ratio - 3.0).abs() < 1e-12);
        assert_eq!(exact.ci95_low, exact.ratio);
    }

    #[test]
    fn hand_computed_welch_interval() {
        // logs x = ln(1), ln(e) = 0, 1; y = ln(e^2), ln(e^4) = 2, 4.
        // d = 3 - 0.5 = 2.5; vx = 0.5/2 = 0.25, vy = 2/2 = 1; se = √1.25.
        // ν = 1.5625 / (0.0625 + 1) = 1.470588; t(0.975, 1.470588) from
        // statrs; the interval is symmetric around 2.5 in log space.
        let x = [0.0, 1.0];
        let y = [2.0, 4.0];
        let est = welch_logs(&x, &y).unwrap();
        assert!((est.ratio.ln() - 2.5).abs() < 1e-12);
        let half = est.ci95_high.ln() - 2.5;
        assert!((2.5 - est.ci95_low.ln() - half).abs() < 1e-9);
        let t = StudentsT::new(0.0, 1.0, 1.5625 / 1.0625)
            .unwrap()
            .inverse_cdf(0.975);
        assert!((half - t * 1.25f64.sqrt()).abs() < 1e-9, "{half}");
    }

    #[test]
    fn too_few_or_bad_values_give_none() {
        assert!(independent_ratio(&[1.0], &[1.0, 2.0]).is_none());
        assert!(independent_ratio(&[1.0, 0.0], &[1.0, 2.0]).is_none());
        assert!(independent_ratio(&[1.0, f64::NAN], &[1.0, 2.0]).is_none());
    }
}
