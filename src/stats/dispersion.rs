//! Comparing two spreads: the ratio of two sample standard deviations
//! with its CI from the F distribution.
//!
//! For two independent samples `a` and `b` of normal values, with sample
//! variances `s_a²`, `s_b²` on `n_a − 1` and `n_b − 1` degrees of freedom,
//! `(s_a² / σ_a²) / (s_b² / σ_b²)` follows F(n_a − 1, n_b − 1), so a
//! two-sided CI of `σ_a² / σ_b²` at `level` is
//! `[F / F(1 − α/2), F / F(α/2)]` with `F = s_a² / s_b²` and `α = 1 − level`
//! (the F test of equal variances). [`sd_ratio`] returns it on the scale of
//! standard deviations (square roots of every end), which reads like the
//! other ratios faultline judges.
//!
//! Pure arithmetic: nothing here measures or reads anything.
use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, FisherSnedecor};

/// The ratio of two samples' standard deviations with its CI.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SdRatio {
    /// `sd(a) / sd(b)`.
    pub ratio: f64,
    /// Its two-sided CI at `level`.
    pub ci: (f64, f64),
    /// The CI level.
    pub level: f64,
    /// Degrees of freedom of `a` and `b` (`n − 1` each).
    pub df: (usize, usize),
    /// `sd(a)` and `sd(b)`.
    pub sds: (f64, f64),
}

/// Sample variance (`n − 1` in the denominator); `None` below two values.
fn variance(x: &[f64]) -> Option<f64> {
    if x.len() < 2 || x.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    Some(x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0))
}

/// `sd(a) / sd(b)` with its CI at `level` (see the module documentation);
/// `None` with fewer than two values on a side, a non-finite value, a
/// level outside (0, 1), or no spread at all in `b`.
pub fn sd_ratio(a: &[f64], b: &[f64], level: f64) -> Option<SdRatio> {
    if !(level > 0.0 && level < 1.0) {
        return None;
    }
    let (va, vb) = (variance(a)?, variance(b)?);
    if vb <= 0.0 {
        return None;
    }
    let (da, db) = (a.len() - 1, b.len() - 1);
    let f = FisherSnedecor::new(da as f64, db as f64).ok()?;
    let alpha = 1.0 - level;
    let (upper, lower) = (f.inverse_cdf(1.0 - alpha / 2.0), f.inverse_cdf(alpha / 2.0));
    let ratio = va / vb;
    Some(SdRatio {
        ratio: ratio.sqrt(),
        ci: ((ratio / upper).sqrt(), (ratio / lower).sqrt()),
        level,
        df: (da, db),
        sds: (va.sqrt(), vb.sqrt()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ci_uses_the_f_quantiles_of_both_degrees_of_freedom() {
        // F(5, 5): the 5% and 95% quantiles are 1/5.0503 and 5.0503.
        let a = [1.0, 3.0, 5.0, 7.0, 9.0, 11.0]; // variance 14
        let b = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]; // variance 3.5
        let r = sd_ratio(&a, &b, 0.90).unwrap();
        assert!((r.ratio - 2.0).abs() < 1e-12, "{r:?}");
        assert_eq!(r.df, (5, 5));
        let f95: f64 = 5.050_329;
        assert!((r.ci.0 - (4.0 / f95).sqrt()).abs() < 1e-5, "{r:?}");
        assert!((r.ci.1 - (4.0 * f95).sqrt()).abs() < 1e-5, "{r:?}");
        // Unequal degrees of freedom: F(2, 5) 95% quantile 5.7861; its 5%
        // quantile is 1 / F(5, 2)'s 95% one, 1 / 19.296.
        let r = sd_ratio(&[0.0, 1.0, 2.0], &b, 0.90).unwrap();
        let v: f64 = 1.0 / 3.5;
        assert!((r.ci.0 - (v / 5.786_135).sqrt()).abs() < 1e-5, "{r:?}");
        assert!((r.ci.1 - (v * 19.296).sqrt()).abs() < 1e-3, "{r:?}");
        // Swapping the samples inverts the ratio and its CI.
        let back = sd_ratio(&b, &a, 0.90).unwrap();
        let fwd = sd_ratio(&a, &b, 0.90).unwrap();
        assert!((back.ratio - 0.5).abs() < 1e-12);
        assert!((back.ci.0 * fwd.ci.1 - 1.0).abs() < 1e-9);
        assert!((back.ci.1 * fwd.ci.0 - 1.0).abs() < 1e-9);
    }

    #[test]
    fn a_wider_level_gives_a_wider_ci_and_bad_input_gives_none() {
        let a = [0.1, 0.5, 0.9, 1.6];
        let b = [0.2, 0.3, 0.25, 0.35];
        let r90 = sd_ratio(&a, &b, 0.90).unwrap();
        let r95 = sd_ratio(&a, &b, 0.95).unwrap();
        assert!(r95.ci.0 < r90.ci.0 && r90.ci.1 < r95.ci.1);
        assert!(r90.ci.0 < r90.ratio && r90.ratio < r90.ci.1);
        assert_eq!(sd_ratio(&[1.0], &b, 0.9), None);
        assert_eq!(sd_ratio(&a, &[2.0, 2.0, 2.0], 0.9), None, "no spread in b");
        assert_eq!(sd_ratio(&a, &[f64::NAN, 1.0], 0.9), None);
        assert_eq!(sd_ratio(&a, &b, 1.0), None);
        // No spread in a is a ratio of 0, with a CI of [0, 0].
        let z = sd_ratio(&[1.0, 1.0], &b, 0.9).unwrap();
        assert_eq!((z.ratio, z.ci), (0.0, (0.0, 0.0)));
    }
}
