//! A/A calibration: how big is the noise, and how often does it pass for
//! a difference?
//!
//! `faultline calibrate` runs one method as two identically configured
//! cases ("A" and "A′"), many comparisons of `n` pairs each, grouped in
//! families the size of a real run's set of comparisons. Every true ratio
//! is 1, so:
//! - the **noise floor** is the 95th percentile of `|ln r̂|` over the
//!   comparisons' estimates `r̂ = exp(mean log ratio)`, shown as a ratio
//!   (`exp(q) − 1`, e.g. ±3%): a real difference smaller than that cannot
//!   be told from this machine's A/A scatter at `n` pairs;
//! - the **false-verdict rate** is the share of comparisons called faster
//!   or slower (raw, Holm, BH; see [`super::fdr`]), and the **family rate**
//!   the share of families with at least one. With honest CIs the raw
//!   per-comparison rate is near `alpha` (5%), and Holm's and BH's family
//!   rates are at most `alpha` (all nulls are true, so FDR = FWER);
//! - the **median CI half-width** is what one comparison claims; a noise
//!   floor far above it means the CIs are too narrow (e.g. noise that is
//!   correlated in time, which pairing does not remove);
//! - the **mean log ratio** shows a bias such as an order effect (the
//!   first trial of each pair slower).
//!
//! This module is the pure analysis: it takes the log ratios.
use serde::{Deserialize, Serialize};

use super::fdr::test_all;
use super::log_ratios::LogRatios;
use super::moments::{mean, sample_sd};
use super::Verdict;
use crate::plan::precision::Adjustment;

/// False verdicts under one adjustment.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct FalseRate {
    /// Share of comparisons called faster or slower.
    pub per_comparison: f64,
    /// Share of families with at least one such comparison.
    pub per_family: f64,
}

/// What an A/A experiment shows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    /// Comparisons with 2 or more pairs.
    pub comparisons: usize,
    /// Families (runs) they form.
    pub families: usize,
    /// Mean pairs per comparison.
    pub mean_pairs: f64,
    /// Pooled within-comparison sd of single log ratios.
    pub pair_sd: f64,
    /// sd of the comparisons' mean log ratios.
    pub estimate_sd: f64,
    /// Mean of the comparisons' mean log ratios (bias, e.g. an order effect).
    pub mean_log_ratio: f64,
    /// 95th percentile of `|ln r̂|`, as a ratio: `exp(q) − 1`.
    pub noise_floor: f64,
    /// Median 95% CI half-width, as a ratio: `exp(h) − 1`.
    pub median_half_width: f64,
    /// Without adjustment.
    pub raw: FalseRate,
    /// With Holm's adjustment within each family.
    pub holm: FalseRate,
    /// With Benjamini–Hochberg within each family.
    pub bh: FalseRate,
}

impl Calibration {
    /// The false-verdict rates under `how`.
    pub fn rate(&self, how: Adjustment) -> FalseRate {
        match how {
            Adjustment::None => self.raw,
            Adjustment::Holm => self.holm,
            Adjustment::BenjaminiHochberg => self.bh,
        }
    }
}

/// Splits an A/A run's one comparison into families: its log ratios in
/// run order, `pairs` to a comparison and `per_family` comparisons to a
/// family (a short last comparison or family is kept; [`calibrate`] drops
/// comparisons of fewer than 2 pairs).
pub fn families(log_ratios: &[f64], pairs: usize, per_family: usize) -> Vec<Vec<Vec<f64>>> {
    let comparisons: Vec<Vec<f64>> = log_ratios
        .chunks(pairs.max(1))
        .map(<[f64]>::to_vec)
        .collect();
    comparisons
        .chunks(per_family.max(1))
        .map(<[Vec<f64>]>::to_vec)
        .collect()
}

/// The A/A analysis of a finished `faultline calibrate` run: its first
/// comparison (A against A′) cut into families as [`families`] does.
pub fn from_results(
    results: &super::RunResults,
    pairs: usize,
    per_family: usize,
) -> Option<Calibration> {
    let c = results.comparisons.first()?;
    let logs = super::analysis::compared_log_ratios(
        &results.cases[c.baseline].counted_samples(),
        &results.cases[c.other].counted_samples(),
        results.settings.metric,
    )?;
    calibrate(&families(&logs, pairs, per_family))
}

/// The `q` quantile (0–1) of `v` by linear interpolation (R type 7).
fn quantile(v: &mut [f64], q: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    let pos = q * (v.len() - 1) as f64;
    let (i, frac) = (pos.floor() as usize, pos.fract());
    if i + 1 < v.len() {
        v[i] + frac * (v[i + 1] - v[i])
    } else {
        v[i]
    }
}

/// Analyses A/A log ratios: `families[f][c]` holds comparison `c` of
/// family `f`. Comparisons with fewer than 2 pairs are dropped (a pair
/// excluded as interfered can leave a comparison short); `None` when none
/// is left.
pub fn calibrate(families: &[Vec<Vec<f64>>]) -> Option<Calibration> {
    let fams: Vec<Vec<&[f64]>> = families
        .iter()
        .map(|f| {
            f.iter()
                .map(Vec::as_slice)
                .filter(|c| LogRatios::of(c).is_some())
                .collect::<Vec<_>>()
        })
        .filter(|f| !f.is_empty())
        .collect();
    let all: Vec<LogRatios> = fams
        .iter()
        .flatten()
        .filter_map(|c| LogRatios::of(c))
        .collect();
    if all.is_empty() {
        return None;
    }
    let means: Vec<f64> = all.iter().map(|s| s.mean).collect();
    let dof: f64 = all.iter().map(|s| s.df()).sum();
    let pooled = (all.iter().map(|s| s.sd * s.sd * s.df()).sum::<f64>() / dof).sqrt();
    let mut abs: Vec<f64> = means.iter().map(|m| m.abs()).collect();
    let mut halves: Vec<f64> = all.iter().map(|s| s.half_width(0.95)).collect();
    let rate = |how: Adjustment| {
        let (mut false_calls, mut bad_families) = (0usize, 0usize);
        for f in &fams {
            let calls = test_all(f, how, 0.0)
                .iter()
                .filter(|t| t.verdict != Verdict::WithinNoise)
                .count();
            false_calls += calls;
            bad_families += (calls > 0) as usize;
        }
        FalseRate {
            per_comparison: false_calls as f64 / all.len() as f64,
            per_family: bad_families as f64 / fams.len() as f64,
        }
    };
    let m = mean(&means);
    Some(Calibration {
        comparisons: all.len(),
        families: fams.len(),
        mean_pairs: all.iter().map(|s| s.n as f64).sum::<f64>() / all.len() as f64,
        pair_sd: pooled,
        estimate_sd: sample_sd(&means, m),
        mean_log_ratio: m,
        noise_floor: quantile(&mut abs, 0.95).exp_m1(),
        median_half_width: quantile(&mut halves, 0.5).exp_m1(),
        raw: rate(Adjustment::None),
        holm: rate(Adjustment::Holm),
        bh: rate(Adjustment::BenjaminiHochberg),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::stopping::tests::Normal;

    /// `families` × `per` comparisons of `n` pairs, log ratios `bias + sd·z`.
    fn aa(
        families: usize,
        per: usize,
        n: usize,
        sd: f64,
        bias: f64,
        seed: u64,
    ) -> Vec<Vec<Vec<f64>>> {
        let mut rng = Normal::new(seed);
        (0..families)
            .map(|_| {
                (0..per)
                    .map(|_| (0..n).map(|_| bias + sd * rng.next()).collect())
                    .collect()
            })
            .collect()
    }

    #[test]
    fn honest_noise_gives_alpha_and_a_matching_floor() {
        let c = calibrate(&aa(500, 8, 5, 0.02, 0.0, 1)).unwrap();
        assert_eq!((c.comparisons, c.families, c.mean_pairs), (4000, 500, 5.0));
        assert!((c.pair_sd - 0.02).abs() < 0.001, "{c:?}");
        // sd of a mean of 5: 0.02/√5 ≈ 0.0089; its 95th |.| percentile ≈ 1.96 × that.
        assert!((c.estimate_sd - 0.0089).abs() < 0.0006, "{c:?}");
        assert!((c.noise_floor - 0.0177).abs() < 0.0015, "{c:?}");
        assert!((0.04..0.06).contains(&c.raw.per_comparison), "{c:?}");
        // 8 comparisons: 1 − 0.95⁸ ≈ 34% of raw families have a false verdict.
        assert!((0.28..0.40).contains(&c.raw.per_family), "{c:?}");
        assert!(
            c.holm.per_family <= 0.07 && c.bh.per_family <= 0.07,
            "{c:?}"
        );
        assert!(c.bh.per_comparison < c.raw.per_comparison / 3.0, "{c:?}");
    }

    #[test]
    fn an_order_effect_shows_as_bias_and_false_verdicts() {
        // The second trial of every pair 1.5% slower: A/A "differs".
        let c = calibrate(&aa(100, 8, 5, 0.01, 0.015, 2)).unwrap();
        assert!((c.mean_log_ratio - 0.015).abs() < 0.002, "{c:?}");
        assert!(c.raw.per_comparison > 0.5, "{c:?}");
        assert!(c.noise_floor > 0.015, "{c:?}");
    }

    #[test]
    fn short_comparisons_are_dropped() {
        let fams = vec![vec![vec![0.01], vec![0.01, -0.01, 0.02]], vec![vec![]]];
        let c = calibrate(&fams).unwrap();
        assert_eq!((c.comparisons, c.families), (1, 1));
        assert!(calibrate(&[vec![vec![0.1]]]).is_none());
    }

    #[test]
    fn a_run_is_cut_into_families_in_run_order() {
        let logs: Vec<f64> = (0..13).map(f64::from).collect();
        let f = families(&logs, 3, 2);
        assert_eq!(f.len(), 3);
        assert_eq!(f[0], vec![vec![0.0, 1.0, 2.0], vec![3.0, 4.0, 5.0]]);
        assert_eq!(f[2], vec![vec![12.0]]);
    }

    #[test]
    fn quantile_interpolates() {
        assert_eq!(quantile(&mut [3.0, 1.0, 2.0, 4.0], 0.5), 2.5);
        assert_eq!(quantile(&mut [5.0], 0.95), 5.0);
        assert!(
            (quantile(&mut (1..=21).map(f64::from).collect::<Vec<_>>(), 0.95) - 20.0).abs() < 1e-12
        );
    }
}
