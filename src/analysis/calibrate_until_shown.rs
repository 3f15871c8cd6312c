//! How long `faultline calibrate` runs when it is given no `--families`:
//! families of A/A pairs are added until both false-verdict rates of the
//! run's settings, per comparison and per family, are shown within the 5%
//! target or above it ([`super::calibrate::against`]), or the most
//! families are run.
//!
//! The rates are looked at only after whole families, at the first look
//! and each doubling of it (10, 20, 40, 80, 160 families by default), so
//! that stopping at the first look that happens to show a rate gives
//! chance few looks to do so. A rate of 0 false verdicts in `n` families is
//! shown within 5% from 72 families (its 95% Clopper–Pearson upper end is
//! then 4.9%), so a quiet machine usually stops at 80.
use super::calibrate::{against, from_results, Against, Calibration};
use super::settle_rule::SettleRule;
use crate::results::RunResults;
use crate::stats::fdr::Adjustment;

/// The most false verdicts, per comparison and per family, that
/// `faultline calibrate` accepts.
pub const TARGET_FALSE_RATE: f64 = 0.05;

/// The families an A/A run without `--families` starts with: its first look.
pub const FIRST_LOOK_FAMILIES: usize = 10;

/// The most families an A/A run without `--families` runs: 16 times the
/// first look (a rate of 0 is shown within 5% at 80).
pub const MOST_FAMILIES: usize = 160;

/// The rule that adds A/A pairs (both cases, one pair a round) until the
/// rates are shown at a look, or `most_families` are run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UntilShown {
    /// Pairs to a comparison (`--runs`).
    pub pairs: usize,
    /// Comparisons to a family (`--comparisons`).
    pub per_family: usize,
    /// The smallest difference a verdict calls (`--min-effect`).
    pub min_effect: f64,
    /// How verdicts are adjusted in a family (`--fdr`).
    pub adjustment: Adjustment,
    /// The families of the first look.
    pub first_look: usize,
    /// The most families.
    pub most_families: usize,
}

impl UntilShown {
    /// Whether the rates are looked at after `families` whole families:
    /// the first look, each doubling of it, and the most.
    pub fn is_look(&self, families: usize) -> bool {
        let first = self.first_look.max(1);
        families >= self.most_families
            || (families >= first
                && families.is_multiple_of(first)
                && (families / first).is_power_of_two())
    }

    /// The pairs of one family.
    fn family_pairs(&self) -> usize {
        (self.pairs * self.per_family).max(1)
    }
}

/// Whether `calibration` shows both rates of `adjustment` within the
/// target or above it.
pub fn rates_shown(calibration: &Calibration, adjustment: Adjustment) -> bool {
    let rate = calibration.rate(adjustment);
    [rate.per_comparison, rate.per_family]
        .iter()
        .all(|share| !matches!(against(share, TARGET_FALSE_RATE), Against::NotShown { .. }))
}

/// The pairs an A/A run has written: the runs both of its two cases have
/// (a re-run of an interfered trial is the same run).
fn pairs_written(raw: &crate::results::RawResults) -> usize {
    let runs = |case: usize| {
        raw.samples
            .iter()
            .filter(|s| s.case == case && !s.profile_control)
            .map(|s| s.run as usize + 1)
            .max()
            .unwrap_or(0)
    };
    runs(0).min(runs(1))
}

impl SettleRule for UntilShown {
    /// Between looks, and past the most families, the written pairs tell:
    /// the results are assembled only at a look.
    fn without_assembly(&self, raw: &crate::results::RawResults) -> Option<Vec<usize>> {
        let pairs = pairs_written(raw);
        let families = pairs / self.family_pairs();
        if families >= self.most_families {
            return Some(Vec::new());
        }
        (!pairs.is_multiple_of(self.family_pairs()) || !self.is_look(families)).then(|| vec![0, 1])
    }

    fn cases_needing_runs(&self, results: &RunResults, _elapsed_s: f64) -> Vec<usize> {
        let both = vec![0, 1];
        let pairs = super::calibrate::aa_log_ratios(results).map_or(0, |logs| logs.len());
        let families = pairs / self.family_pairs();
        if families >= self.most_families {
            return Vec::new();
        }
        if !pairs.is_multiple_of(self.family_pairs()) || !self.is_look(families) {
            return both;
        }
        match from_results(results, self.pairs, self.per_family, self.min_effect) {
            Some(c) if rates_shown(&c, self.adjustment) => Vec::new(),
            _ => both,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule() -> UntilShown {
        UntilShown {
            pairs: 5,
            per_family: 4,
            min_effect: 0.05,
            adjustment: Adjustment::Holm,
            first_look: FIRST_LOOK_FAMILIES,
            most_families: MOST_FAMILIES,
        }
    }

    #[test]
    fn looks_are_the_first_its_doublings_and_the_most() {
        let r = rule();
        let looks: Vec<usize> = (0..=200).filter(|&f| r.is_look(f)).collect();
        assert_eq!(looks[..5], [10, 20, 40, 80, 160]);
        assert!(looks[5..].iter().all(|&f| f > 160), "{looks:?}");
        let odd = UntilShown {
            first_look: 3,
            most_families: 50,
            ..r
        };
        let looks: Vec<usize> = (0..50).filter(|&f| odd.is_look(f)).collect();
        assert_eq!(looks, [3, 6, 12, 24, 48]);
        assert!(odd.is_look(50));
    }

    #[test]
    fn between_looks_the_raw_pairs_decide_without_assembling_results() {
        let raw = |pairs: u32| crate::results::RawResults {
            samples: (0..pairs)
                .flat_map(|r| [crate::fixtures::sample(0, r), crate::fixtures::sample(1, r)])
                .collect(),
            failures: Vec::new(),
            warnings: Vec::new(),
            complete: true,
        };
        let r = rule();
        // 20 pairs a family: mid-family, and a whole family between looks.
        assert_eq!(r.without_assembly(&raw(205)), Some(vec![0, 1]));
        assert_eq!(r.without_assembly(&raw(15 * 20)), Some(vec![0, 1]));
        // At a look (10 and 20 families) the results decide.
        assert_eq!(r.without_assembly(&raw(10 * 20)), None);
        assert_eq!(r.without_assembly(&raw(20 * 20)), None);
        // At the most: no more.
        assert_eq!(r.without_assembly(&raw(160 * 20)), Some(Vec::new()));
    }

    /// A/A families of 4 comparisons of 5 pairs, each log ratio `value`.
    fn calibration(families: usize, false_in: usize) -> Calibration {
        // Comparisons of a family: ±0.01 noise around 0, one in the
        // first `false_in` families far from 0 (a false verdict).
        let fams: Vec<Vec<Vec<f64>>> = (0..families)
            .map(|f| {
                (0..4)
                    .map(|c| {
                        let shift = if f < false_in && c == 0 { 1.0 } else { 0.0 };
                        vec![
                            shift - 0.01,
                            shift + 0.01,
                            shift,
                            shift - 0.005,
                            shift + 0.005,
                        ]
                    })
                    .collect()
            })
            .collect();
        crate::analysis::calibrate::calibrate(&fams, 0.05).expect("a calibration")
    }

    #[test]
    fn both_rates_must_be_shown_to_stop() {
        // 0 of 10 families: the per-family CI reaches 30.8%, not shown.
        assert!(!rates_shown(&calibration(10, 0), Adjustment::Holm));
        // 0 of 80 families (320 comparisons): both within 5%.
        assert!(rates_shown(&calibration(80, 0), Adjustment::Holm));
        // 2 of 80 families: 2.5% [0.3–8.7%], not shown.
        assert!(!rates_shown(&calibration(80, 2), Adjustment::Holm));
        // 40 of 80 families: shown above the target, which stops it too.
        assert!(rates_shown(&calibration(80, 40), Adjustment::Holm));
    }
}
