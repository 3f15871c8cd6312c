//! Comparing two spreads: how much more the true values behind one given
//! set of estimates vary than those behind another (say, the speedups of
//! six named experiments cold against the same six warm), with a CI.
//!
//! The sets are not samples of a wider population (an F test of two
//! variances would treat them so, and its CI would stay as wide however
//! precisely each estimate is measured): the only uncertainty is each
//! estimate's own measurement error, which more runs shrink
//! ([`spread_ratio_of_estimates`]).
//!
//! Pure arithmetic: nothing here measures or reads anything.
use super::effect::LogRatios;
use serde::{Deserialize, Serialize};

/// The ratio of the spreads of two given sets of estimates, with its CI
/// from their measurement error ([`spread_ratio_of_estimates`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpreadRatio {
    /// `S(a) / S(b)`, each spread corrected for measurement noise.
    pub ratio: f64,
    /// Its two-sided CI at `level`.
    pub ci: (f64, f64),
    /// The CI level.
    pub level: f64,
    /// The CI's degrees of freedom (Welch–Satterthwaite, from the pairs).
    pub df: f64,
    /// `S(a)` and `S(b)`: the standard deviations of the true values the
    /// estimates measure, as estimated.
    pub spreads: (f64, f64),
}

/// The spread of the true values behind `set`, squared, and the variance
/// of that estimate's log with its Welch–Satterthwaite parts (`(term, df)`
/// per estimate); `None` below two estimates, or when the measurement noise
/// accounts for the whole observed spread.
///
/// With estimates `m_i = μ_i + e_i`, `e_i` of standard error `se_i`, the
/// sample variance `s²` of the `m_i` has expectation `S² + Σ se_i² / k`
/// (`S²` that of the `μ_i`), so `Ŝ² = s² − Σ se_i² / k`. Its variance, to
/// first order, is `Σ g_i² se_i²` with `g_i = 2 (m_i − m̄) / (k − 1)`, and
/// that of `ln Ŝ²` is that over `Ŝ⁴`.
fn corrected_spread(set: &[LogRatios]) -> Option<(f64, Vec<(f64, f64)>)> {
    let k = set.len();
    if k < 2
        || set
            .iter()
            .any(|e| !e.mean.is_finite() || !e.se.is_finite() || e.se < 0.0 || e.n < 2)
    {
        return None;
    }
    let kf = k as f64;
    let mean = set.iter().map(|e| e.mean).sum::<f64>() / kf;
    let s2 = set.iter().map(|e| (e.mean - mean).powi(2)).sum::<f64>() / (kf - 1.0);
    let noise = set.iter().map(|e| e.se * e.se).sum::<f64>() / kf;
    let spread2 = s2 - noise;
    if spread2 <= 0.0 {
        return None;
    }
    let parts = set
        .iter()
        .map(|e| {
            let g = 2.0 * (e.mean - mean) / (kf - 1.0);
            ((g * e.se).powi(2) / (spread2 * spread2), e.df())
        })
        .collect();
    Some((spread2, parts))
}

/// `S(a) / S(b)`: how much more the true values behind the estimates `a`
/// vary than those behind `b` (standard deviations, on the log scale the
/// estimates are given in), with its two-sided CI at `level`.
///
/// Each spread is corrected for the measurement noise that inflates it
/// ([`corrected_spread`]); the CI is `exp(ln r ± t · se)` with
/// `se² = (Var ln Ŝ_a² + Var ln Ŝ_b²) / 4` by the delta method and `t` on the
/// Welch–Satterthwaite degrees of freedom of the estimates' own (`n − 1`
/// each). `None` with fewer than two estimates on a side, a non-finite one,
/// a level outside (0, 1), or a side whose spread is within its
/// measurement noise (more runs would tell).
pub fn spread_ratio_of_estimates(
    a: &[LogRatios],
    b: &[LogRatios],
    level: f64,
) -> Option<SpreadRatio> {
    if !(level > 0.0 && level < 1.0) {
        return None;
    }
    let (sa2, pa) = corrected_spread(a)?;
    let (sb2, pb) = corrected_spread(b)?;
    let parts: Vec<(f64, f64)> = pa
        .into_iter()
        .chain(pb)
        .map(|(v, df)| (v / 4.0, df))
        .collect();
    let var: f64 = parts.iter().map(|(v, _)| v).sum();
    let denom: f64 = parts.iter().map(|(v, df)| v * v / df).sum();
    let df = if denom > 0.0 {
        var * var / denom
    } else {
        f64::INFINITY
    };
    let log_ratio = 0.5 * (sa2.ln() - sb2.ln());
    let half = super::effect::t_quantile(0.5 + level / 2.0, df.clamp(1.0, 1e6)) * var.sqrt();
    Some(SpreadRatio {
        ratio: log_ratio.exp(),
        ci: ((log_ratio - half).exp(), (log_ratio + half).exp()),
        level,
        df,
        spreads: (sa2.sqrt(), sb2.sqrt()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn est(mean: f64, se: f64, n: usize) -> LogRatios {
        LogRatios { n, mean, se }
    }

    #[test]
    fn exact_estimates_give_the_plain_ratio_of_their_spreads_and_no_width() {
        // No measurement error: the ratio of the two sample sds, exactly.
        let a: Vec<LogRatios> = [1.0, 3.0, 5.0, 7.0]
            .iter()
            .map(|&m| est(m, 0.0, 5))
            .collect();
        let b: Vec<LogRatios> = [1.0, 2.0, 3.0, 4.0]
            .iter()
            .map(|&m| est(m, 0.0, 5))
            .collect();
        let r = spread_ratio_of_estimates(&a, &b, 0.90).unwrap();
        assert!((r.ratio - 2.0).abs() < 1e-12, "{r:?}");
        assert!(
            (r.ci.0 - 2.0).abs() < 1e-12 && (r.ci.1 - 2.0).abs() < 1e-12,
            "{r:?}"
        );
    }

    #[test]
    fn measurement_noise_is_taken_out_of_each_spread_and_widens_the_ci() {
        // a: means 0, 2 (s² = 2), se 1 each: Ŝ² = 2 − 1 = 1.
        // b: means 0, 1 (s² = 0.5), se 0: Ŝ² = 0.5. Ratio √2.
        let a = [est(0.0, 1.0, 5), est(2.0, 1.0, 5)];
        let b = [est(0.0, 0.0, 5), est(1.0, 0.0, 5)];
        let r = spread_ratio_of_estimates(&a, &b, 0.90).unwrap();
        assert!((r.ratio - 2f64.sqrt()).abs() < 1e-12, "{r:?}");
        // Var Ŝ_a² = Σ (2 (m_i − 1) / 1)² · 1 = 4 + 4 = 8; over Ŝ⁴ = 1: 8;
        // /4: 2; se √2; df: 2² / (2 · 1² / 4) = 8 (each part 1, df 4).
        assert!((r.df - 8.0).abs() < 1e-9, "{r:?}");
        let t = crate::stats::effect::t_quantile(0.95, 8.0);
        let half = t * 2f64.sqrt();
        assert!((r.ci.1.ln() - (r.ratio.ln() + half)).abs() < 1e-9, "{r:?}");
        assert!((r.ci.0.ln() - (r.ratio.ln() - half)).abs() < 1e-9, "{r:?}");
        // A wider level, a wider CI; a more precise a, a narrower one.
        let r95 = spread_ratio_of_estimates(&a, &b, 0.95).unwrap();
        assert!(r95.ci.0 < r.ci.0 && r.ci.1 < r95.ci.1);
        let sharper = [est(0.0, 0.5, 5), est(2.0, 0.5, 5)];
        let s = spread_ratio_of_estimates(&sharper, &b, 0.90).unwrap();
        assert!(s.ci.1 / s.ci.0 < r.ci.1 / r.ci.0, "{s:?} {r:?}");
    }

    #[test]
    fn a_spread_within_its_noise_or_bad_input_gives_none() {
        let b = [est(0.0, 0.01, 5), est(1.0, 0.01, 5)];
        // s² = 0.5 and noise 1: the spread is all noise.
        let noisy = [est(0.0, 1.0, 5), est(1.0, 1.0, 5)];
        assert_eq!(spread_ratio_of_estimates(&noisy, &b, 0.9), None);
        assert_eq!(spread_ratio_of_estimates(&b, &noisy, 0.9), None);
        assert_eq!(spread_ratio_of_estimates(&b[..1], &b, 0.9), None);
        assert_eq!(spread_ratio_of_estimates(&b, &b, 1.0), None);
        let nan = [est(f64::NAN, 0.1, 5), est(1.0, 0.1, 5)];
        assert_eq!(spread_ratio_of_estimates(&nan, &b, 0.9), None);
        // Swapping the sets inverts the ratio and its CI.
        let a = [est(0.0, 0.1, 5), est(3.0, 0.2, 8), est(1.0, 0.1, 5)];
        let f = spread_ratio_of_estimates(&a, &b, 0.9).unwrap();
        let g = spread_ratio_of_estimates(&b, &a, 0.9).unwrap();
        assert!((f.ratio * g.ratio - 1.0).abs() < 1e-12);
        assert!((f.ci.0 * g.ci.1 - 1.0).abs() < 1e-9 && (f.ci.1 * g.ci.0 - 1.0).abs() < 1e-9);
    }
}
