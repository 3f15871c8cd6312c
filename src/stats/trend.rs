//! Does a time ratio rise with a factor? A trend test over every point.
//!
//! Input: for each point `j` (a scale factor, a file size; 3 or more) its
//! factor `f_j > 0` and the summary of its paired log ratios
//! ([`LogRatios`]: `n_j` pairs, mean `m_j`, standard error `se_j`). The
//! estimate is the least-squares slope of all the log ratios on `x = ln f`:
//!
//! `b = Σ_j c_j · m_j`, with `c_j = n_j (x_j − x̄) / Σ_k n_k (x_k − x̄)²` and
//! `x̄ = Σ n_j x_j / Σ n_j`.
//!
//! `b` is a fixed linear contrast of the point means, so its variance is
//! `Σ c_j² se_j²` with each point's own spread (no common variance is
//! assumed: a point where both versions are fast is noisier than one where
//! both are slow), and its degrees of freedom are Welch–Satterthwaite's,
//! `(Σ v_j)² / Σ v_j² / (n_j − 1)` with `v_j = c_j² se_j²`. The CI is
//! `b ± t(df) · se(b)`. `exp(b · ln 2)` is the factor the ratio is
//! multiplied by per doubling of the factor: above 1, it rises.
//!
//! Why this test: it uses every pair of every point and each point's own
//! precision, and it is valid for "the ratio does not change with the
//! factor" without assuming the rise is a straight line in `ln f` (a
//! monotone rise of any shape gives a positive contrast; `b` is then the
//! best straight-line summary). Comparing only the first and last points
//! throws the middle away; Spearman's rho on 4 point estimates can at best
//! reach p = 1/24 and ignores their precision.
use serde::{Deserialize, Serialize};

use super::effect::{t_quantile, LogRatios};

/// The slope of log ratio on log factor, with its CI.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Trend {
    /// Slope `b`: log ratio per unit of `ln f`.
    pub slope: f64,
    /// Standard error of `b`.
    pub se: f64,
    /// Welch–Satterthwaite degrees of freedom.
    pub df: f64,
    /// The CI of `b` at `level`.
    pub ci: (f64, f64),
    /// The CI level.
    pub level: f64,
    /// Points used.
    pub points: usize,
}

impl Trend {
    /// `exp(b · ln 2)`: how much the ratio multiplies per doubling of the factor.
    pub fn per_doubling(&self) -> f64 {
        (self.slope * std::f64::consts::LN_2).exp()
    }

    /// The CI of [`Trend::per_doubling`].
    pub fn per_doubling_ci(&self) -> (f64, f64) {
        let ln2 = std::f64::consts::LN_2;
        ((self.ci.0 * ln2).exp(), (self.ci.1 * ln2).exp())
    }
}

/// Fits the trend over `points` (`(factor, log ratios)`) at `level`;
/// `None` with fewer than 3 points, fewer than 2 distinct factors, or a
/// factor that is not positive and finite.
pub fn trend(points: &[(f64, LogRatios)], level: f64) -> Option<Trend> {
    if points.len() < 3
        || points
            .iter()
            .any(|(f, l)| !(*f > 0.0 && f.is_finite()) || l.n < 2)
    {
        return None;
    }
    let n = |l: &LogRatios| l.n as f64;
    let total: f64 = points.iter().map(|(_, l)| n(l)).sum();
    let xbar = points.iter().map(|(f, l)| n(l) * f.ln()).sum::<f64>() / total;
    let sxx: f64 = points
        .iter()
        .map(|(f, l)| n(l) * (f.ln() - xbar).powi(2))
        .sum();
    if sxx <= 1e-12 {
        return None;
    }
    let c: Vec<f64> = points
        .iter()
        .map(|(f, l)| n(l) * (f.ln() - xbar) / sxx)
        .collect();
    let slope: f64 = c.iter().zip(points).map(|(c, (_, l))| c * l.mean).sum();
    let v: Vec<f64> = c
        .iter()
        .zip(points)
        .map(|(c, (_, l))| (c * l.se).powi(2))
        .collect();
    let var: f64 = v.iter().sum();
    let denom: f64 = v.iter().zip(points).map(|(v, (_, l))| v * v / l.df()).sum();
    // Every point exact: the CI has zero width whatever the df.
    let df = if denom > 0.0 {
        var * var / denom
    } else {
        total - 2.0
    };
    let se = var.sqrt();
    let half = t_quantile(0.5 + level / 2.0, df.max(1.0)) * se;
    Some(Trend {
        slope,
        se,
        df,
        ci: (slope - half, slope + half),
        level,
        points: points.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::effect::CLAIM_LEVEL;
    use crate::stats::moments::{mean, sample_sd};
    use rand::{RngExt, SeedableRng};

    fn summary(logs: &[f64]) -> LogRatios {
        let m = mean(logs);
        LogRatios {
            n: logs.len(),
            mean: m,
            se: sample_sd(logs, m) / (logs.len() as f64).sqrt(),
        }
    }

    /// Standard normal deviates (Box–Muller) from a seeded generator.
    fn normals(seed: u64, count: usize) -> Vec<f64> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        (0..count)
            .map(|_| {
                let (u, v): (f64, f64) = (rng.random(), rng.random());
                (-2.0 * (1.0 - u).ln()).sqrt() * (std::f64::consts::TAU * v).cos()
            })
            .collect()
    }

    /// Points at factors 2, 4, 8, 16… with `ratios` and log-sd `sd`, `n` pairs each.
    fn points(ratios: &[f64], sd: f64, n: usize, seed: u64) -> Vec<(f64, LogRatios)> {
        let z = normals(seed, ratios.len() * n);
        ratios
            .iter()
            .enumerate()
            .map(|(j, r)| {
                let logs: Vec<f64> = (0..n).map(|i| r.ln() + sd * z[j * n + i]).collect();
                (2f64.powi(j as i32 + 1), summary(&logs))
            })
            .collect()
    }

    #[test]
    fn an_exact_power_law_gives_its_slope() {
        // ratio = f^0.5: ×√2 per doubling, no spread.
        let p: Vec<(f64, LogRatios)> = [2.0f64, 4.0, 8.0, 16.0]
            .iter()
            .map(|f| (*f, summary(&[0.5 * f.ln(); 3])))
            .collect();
        let t = trend(&p, CLAIM_LEVEL).unwrap();
        assert!((t.slope - 0.5).abs() < 1e-12 && t.se < 1e-12, "{t:?}");
        assert!((t.per_doubling() - 2f64.sqrt()).abs() < 1e-9);
        assert!(t.per_doubling_ci().0 > 1.0);
    }

    #[test]
    fn a_hand_computed_contrast() {
        // Factors 1, e, e², e³ (x = 0..3), 2 pairs each, means 0, 0.1, 0.2,
        // 0.3, each with sd 0.1 (se 0.1/√2): x̄ = 1.5, Sxx = 2·5 = 10,
        // c = 2(x − x̄)/10 = (−0.3, −0.1, 0.1, 0.3); b = 0.1;
        // var = Σ c²·0.005 = 0.2·0.005 = 0.001; df = 0.001² / Σ (c²·0.005)²
        // = 1e-6 / (2·((4.5e-4)² + (5e-5)²)) = 1e-6 / 4.1e-7.
        let e = std::f64::consts::E;
        let d = 0.1 / 2f64.sqrt();
        let p: Vec<(f64, LogRatios)> = (0..4)
            .map(|j| {
                let m = 0.1 * j as f64;
                (e.powi(j), summary(&[m - d, m + d]))
            })
            .collect();
        let t = trend(&p, 0.95).unwrap();
        assert!((t.slope - 0.1).abs() < 1e-12, "{t:?}");
        assert!((t.se - 0.001f64.sqrt()).abs() < 1e-12, "{t:?}");
        assert!((t.df - 1e-6 / 4.1e-7).abs() < 1e-9, "{t:?}");
        let half = t_quantile(0.975, t.df) * t.se;
        assert!((t.ci.1 - t.slope - half).abs() < 1e-12);
    }

    #[test]
    fn rising_flat_and_falling_series() {
        let fit = |r: &[f64], seed| trend(&points(r, 0.03, 5, seed), CLAIM_LEVEL).unwrap();
        let rising = fit(&[1.0, 1.15, 1.3, 1.5], 1);
        assert!(rising.ci.0 > 0.0, "{rising:?}");
        let flat = fit(&[1.2, 1.2, 1.2, 1.2], 2);
        assert!(flat.ci.0 < 0.0 && flat.ci.1 > 0.0, "{flat:?}");
        let falling = fit(&[1.5, 1.3, 1.15, 1.0], 3);
        assert!(falling.ci.1 < 0.0, "{falling:?}");
        // The middle points count: same ends, a dip in the middle, a smaller slope.
        let dip = fit(&[1.0, 0.8, 0.8, 1.5], 1);
        assert!(dip.slope < rising.slope, "{dip:?} vs {rising:?}");
    }

    #[test]
    fn false_rises_happen_at_about_the_one_sided_rate() {
        // Flat series with unequal spreads per point: at the 90% level a
        // false "rises" (CI above 0) should come out about 5% of the time.
        let runs = 2000;
        let rises = (0..runs)
            .filter(|&seed| {
                let sds = [0.02, 0.05, 0.1, 0.2];
                let z = normals(seed + 100, 20);
                let p: Vec<(f64, LogRatios)> = sds
                    .iter()
                    .enumerate()
                    .map(|(j, sd)| {
                        let logs: Vec<f64> = (0..5).map(|i| sd * z[j * 5 + i]).collect();
                        (2f64.powi(j as i32), summary(&logs))
                    })
                    .collect();
                trend(&p, CLAIM_LEVEL).unwrap().ci.0 > 0.0
            })
            .count();
        let rate = rises as f64 / runs as f64;
        assert!((0.025..0.075).contains(&rate), "false rise rate {rate}");
    }

    #[test]
    fn too_little_data_gives_none() {
        let one = summary(&[0.1, 0.2]);
        let single = LogRatios {
            n: 1,
            mean: 0.1,
            se: 0.0,
        };
        assert!(trend(&[(1.0, one), (2.0, one)], 0.9).is_none());
        assert!(trend(&[(1.0, one), (2.0, one), (4.0, single)], 0.9).is_none());
        assert!(trend(&[(2.0, one), (2.0, one), (2.0, one)], 0.9).is_none());
        assert!(trend(&[(0.0, one), (2.0, one), (4.0, one)], 0.9).is_none());
    }
}
