//! Many verdicts at once: each comparison's p-value, adjusted across the
//! comparisons of one run.
//!
//! The p-value is the paired t-test's on the log ratios (two-sided, H0: mean
//! log ratio 0, `n − 1` degrees of freedom): exactly the test behind the 95%
//! CI, so without adjustment "p < 0.05" and "the CI excludes 1" agree.
//! Across the comparisons of a run (those with 2 or more pairs):
//! - **Benjamini–Hochberg** (1995, the default) controls the false discovery
//!   rate, the expected share of false "faster"/"slower" among the verdicts
//!   given: sorted ascending, `p̃(i) = min over j ≥ i of min(1, m·p(j)/j)`;
//! - **Holm** (1979) controls the family-wise error rate, the chance of any
//!   false verdict: `p̃(i) = max over j ≤ i of min(1, (m − j + 1)·p(j))`.
//!
//! A comparison is faster (slower) when its adjusted p is below 0.05 and its
//! mean log ratio is above (below) 0, otherwise within noise. With a
//! smallest effect of interest (`--min-effect`, by default the `--precision`
//! target) the p-value tests the mean against the nearer edge of that
//! margin instead of 0 ([`LogRatios::p_value_beyond`]): a difference is
//! called only when it is shown to be bigger than the margin, so an effect
//! smaller than the precision asked for is within noise every time instead
//! of "faster" in one run and "within noise" in the next. The CI shown
//! stays the unadjusted 95% one, so a CI that excludes 1 can still be
//! "within noise" after the adjustment; the report says so.
use serde::{Deserialize, Serialize};

use super::log_ratios::LogRatios;
use super::Verdict;

/// The level verdicts are given at.
pub const ALPHA: f64 = 0.05;

/// How the p-values of one run's comparisons are adjusted before verdicts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Adjustment {
    /// Benjamini–Hochberg: controls the false discovery rate (the expected
    /// share of false "faster"/"slower" verdicts among those given).
    #[default]
    #[value(name = "bh")]
    #[serde(rename = "bh")]
    BenjaminiHochberg,
    /// Holm: controls the family-wise error rate (the chance of any false verdict).
    Holm,
    /// No adjustment: each comparison at 5% on its own.
    None,
}

impl Adjustment {
    /// The method's name in the output, e.g. `Benjamini-Hochberg`.
    pub fn name(self) -> &'static str {
        match self {
            Adjustment::BenjaminiHochberg => "Benjamini-Hochberg",
            Adjustment::Holm => "Holm",
            Adjustment::None => "none",
        }
    }
}

/// Holm-adjusted p-values, in the input's order.
pub fn holm(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut out = vec![0.0; m];
    let mut running = 0.0f64;
    for (rank, &i) in ascending(p).iter().enumerate() {
        running = running.max(((m - rank) as f64 * p[i]).min(1.0));
        out[i] = running;
    }
    out
}

/// Benjamini–Hochberg-adjusted p-values, in the input's order.
pub fn benjamini_hochberg(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut out = vec![0.0; m];
    let mut running = 1.0f64;
    for (rank, &i) in ascending(p).iter().enumerate().rev() {
        running = running.min(m as f64 * p[i] / (rank + 1) as f64).min(1.0);
        out[i] = running;
    }
    out
}

/// Indices of `p` from the smallest value up (ties in input order).
fn ascending(p: &[f64]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..p.len()).collect();
    idx.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    idx
}

/// `p` adjusted by `how`.
pub fn adjust(p: &[f64], how: Adjustment) -> Vec<f64> {
    match how {
        Adjustment::None => p.to_vec(),
        Adjustment::Holm => holm(p),
        Adjustment::BenjaminiHochberg => benjamini_hochberg(p),
    }
}

/// One comparison tested within its run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tested {
    /// Raw p-value; `None` with fewer than 2 pairs.
    pub p: Option<f64>,
    /// Adjusted p-value.
    pub p_adjusted: Option<f64>,
    /// The verdict from the adjusted p.
    pub verdict: Verdict,
}

/// Tests every comparison (`comparisons[i]` = its log ratios) against the
/// margin `±min_effect` (0.05 for ±5%; 0 tests against "no difference") and
/// adjusts the p-values across them.
pub fn test_all(comparisons: &[&[f64]], how: Adjustment, min_effect: f64) -> Vec<Tested> {
    let margin_ln = min_effect.max(0.0).ln_1p();
    let stats: Vec<Option<LogRatios>> = comparisons.iter().map(|c| LogRatios::of(c)).collect();
    let present: Vec<f64> = stats
        .iter()
        .flatten()
        .map(|s| s.p_value_beyond(margin_ln))
        .collect();
    let mut adjusted = adjust(&present, how).into_iter();
    stats
        .iter()
        .map(|s| {
            let p = s.map(|s| s.p_value_beyond(margin_ln));
            let p_adjusted = p.map(|_| adjusted.next().expect("one per present p"));
            let mean = s.map_or(0.0, |s| s.mean);
            let verdict = match p_adjusted {
                Some(q) if q < ALPHA && mean > 0.0 => Verdict::Faster,
                Some(q) if q < ALPHA && mean < 0.0 => Verdict::Slower,
                _ => Verdict::WithinNoise,
            };
            Tested {
                p,
                p_adjusted,
                verdict,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: &[f64], b: &[f64], tol: f64) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol)
    }

    #[test]
    fn benjamini_hochberg_1995_example() {
        // The 15 p-values of Benjamini & Hochberg (1995), section 3.2: at
        // q = 0.05 the first four are rejected. Adjusted values as R's
        // p.adjust(p, "BH").
        let p = [
            0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344, 0.0459, 0.3240, 0.4262,
            0.5719, 0.6528, 0.7590, 1.000,
        ];
        let bh = benjamini_hochberg(&p);
        let expect = [
            0.0015, 0.003, 0.0095, 0.035625, 0.0603, 0.063857, 0.063857, 0.0645, 0.0765, 0.486,
            0.581182, 0.714875, 0.753231, 0.813214, 1.0,
        ];
        assert!(close(&bh, &expect, 1e-6), "{bh:?}");
        assert_eq!(bh.iter().filter(|&&q| q < 0.05).count(), 4);
        // Holm on the same: R's p.adjust(p, "holm"); 3 rejected.
        let h = holm(&p);
        let expect = [
            0.0015, 0.0056, 0.0247, 0.114, 0.2211, 0.278, 0.278, 0.278, 0.3213,
        ];
        assert!(close(&h[..9], &expect, 1e-9), "{h:?}");
        assert!(h[9..].iter().all(|&q| q == 1.0));
        assert_eq!(h.iter().filter(|&&q| q < 0.05).count(), 3);
    }

    #[test]
    fn small_example_in_input_order() {
        // Sorted 0.005, 0.01, 0.03, 0.04 → Holm ×4, ×3, ×2, ×1 with a
        // running max: 0.02, 0.03, 0.06, 0.06; BH m·p/rank with a running
        // min from the top: 0.02, 0.02, 0.04, 0.04.
        let h = holm(&[0.01, 0.04, 0.03, 0.005]);
        assert!(close(&h, &[0.03, 0.06, 0.06, 0.02], 1e-12), "{h:?}");
        let bh = benjamini_hochberg(&[0.01, 0.04, 0.03, 0.005]);
        assert!(close(&bh, &[0.02, 0.04, 0.04, 0.02], 1e-12), "{bh:?}");
        assert_eq!(adjust(&[0.01, 0.04], Adjustment::None), vec![0.01, 0.04]);
        assert_eq!(holm(&[]), Vec::<f64>::new());
    }

    #[test]
    fn unadjusted_verdicts_are_the_ci_verdicts() {
        let comparisons: [&[f64]; 4] = [
            &[0.10, 0.12, 0.09, 0.11],
            &[-0.2, -0.25, -0.22],
            &[0.05, -0.04, 0.02, -0.01],
            &[0.3],
        ];
        let t = test_all(&comparisons, Adjustment::None, 0.0);
        let v: Vec<Verdict> = t.iter().map(|t| t.verdict).collect();
        assert_eq!(
            v,
            [
                Verdict::Faster,
                Verdict::Slower,
                Verdict::WithinNoise,
                Verdict::WithinNoise
            ]
        );
        assert_eq!(t[3].p, None);
    }

    #[test]
    fn an_effect_smaller_than_the_margin_is_within_noise() {
        // Ratios around 1.03, tight: faster against 0, not beyond ±5%;
        // ratios around 1.20 are faster either way.
        let small: &[f64] = &[0.030, 0.028, 0.031, 0.029, 0.032, 0.030];
        let big: &[f64] = &[0.18, 0.19, 0.17, 0.18, 0.20, 0.18];
        let plain = test_all(&[small, big], Adjustment::None, 0.0);
        assert_eq!(plain[0].verdict, Verdict::Faster);
        let margin = test_all(&[small, big], Adjustment::None, 0.05);
        assert_eq!(margin[0].verdict, Verdict::WithinNoise);
        assert_eq!(margin[0].p, Some(1.0));
        assert_eq!(margin[1].verdict, Verdict::Faster);
        // And slower the same way.
        let neg: Vec<f64> = big.iter().map(|x| -x).collect();
        assert_eq!(
            test_all(&[&neg], Adjustment::Holm, 0.05)[0].verdict,
            Verdict::Slower
        );
    }

    #[test]
    fn adjustment_turns_a_marginal_verdict_into_noise() {
        // One marginal comparison (p ≈ 0.03) among nine of noise.
        let marginal: &[f64] = &[0.02, 0.05, 0.01, 0.04, 0.03, -0.005];
        let noise: &[f64] = &[0.01, -0.01, 0.02, -0.02, 0.0];
        let mut comparisons = vec![marginal];
        comparisons.extend(std::iter::repeat_n(noise, 9));
        let raw = test_all(&comparisons, Adjustment::None, 0.0);
        assert_eq!(raw[0].verdict, Verdict::Faster);
        for how in [Adjustment::Holm, Adjustment::BenjaminiHochberg] {
            let adjusted = test_all(&comparisons, how, 0.0);
            assert_eq!(adjusted[0].verdict, Verdict::WithinNoise, "{how:?}");
            assert_eq!(adjusted[0].p, raw[0].p);
            assert!(adjusted[0].p_adjusted.unwrap() > 0.05);
        }
    }
}
