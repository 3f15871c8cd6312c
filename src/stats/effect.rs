//! Judging a published effect at its size, not only its direction.
//!
//! A study says `other` is faster (or slower) than `baseline` by some
//! amount: a [`Published`] effect. Its size is a band `[L, H]` of
//! *advantages* in the claimed direction (for "faster" the time ratio
//! `baseline / other`, for "slower" its inverse):
//! - [`Size::Ratio`]: "about 1.17x" with a relative tolerance `t` is
//!   `[1.17 / (1 + t), 1.17 · (1 + t)]`, symmetric in log terms, so a
//!   tolerance means the same at 1.1x and at 100x;
//! - [`Size::Range`]: "2–6x" is `[2, 6]`;
//! - [`Size::AtLeast`]: "at least 10x" is `[10, ∞)`; "faster" alone is
//!   `AtLeast(1)`;
//! - [`Size::Around`]: "similar" (no direction): `[1 / w, w]`.
//!
//! The measured advantage's CI `[lo, hi]` is taken at [`CLAIM_LEVEL`]
//! (90%), so each verdict below is a one-sided test at 5%, and **holds** is
//! exactly the two one-sided tests (TOST) of equivalence (Schuirmann 1987):
//! both "advantage ≤ L" and "advantage ≥ H" are rejected at 5%. Beside the
//! band, a directed effect has a **no-effect band** `[1 / (1 + m), 1 + m]`
//! around 1, `m` the smallest effect of interest ([`NO_EFFECT_MARGIN`], the
//! 5% a run's verdicts use too), its upper edge never past `L`: a claim
//! whose band starts within 5% of 1 has no "smaller than published", since
//! anything between 1 and `L` is below the smallest effect of interest. The
//! edge on the other side is always the full margin, so "reversed" means
//! more than 5% the other way, as a run's "slower" does. The checks, in this
//! order, are strict, so a CI end exactly on an edge decides nothing:
//! 1. **holds**: `L < lo` and `hi < H`;
//! 2. **larger than published**: `lo > H`;
//! 3. **no effect**: the CI lies inside the no-effect band (equivalence to 1);
//! 4. **reversed**: the CI lies wholly below the no-effect band (the other
//!    way, by more than the smallest effect of interest: `hi < 1 / (1 + m)`);
//! 5. **smaller than published**: the CI lies between the no-effect band and
//!    the published one (`1 + m < lo`, `hi < L`): an effect in the claimed
//!    direction, but not of the claimed size;
//! 6. **undecided**: otherwise (the CI straddles an edge that matters).
//!
//! A difference is called only beyond the smallest effect of interest, as a
//! run's verdicts are beyond `--min-effect`: a CI wholly below 1 that still
//! reaches into the no-effect band could be a reversal or no effect at all,
//! so it is undecided. Without that, an A/A comparison (true ratio 1) is
//! "reversed" in 5% of single looks by design, and more often when the
//! settling rule looks again after every run; `faultline calibrate
//! --claims` measures that rate ([`crate::studies::calibrate_claims`]).
//!
//! A band around 1 with no direction ("similar", [`Size::Around`]) has two
//! outcomes besides undecided: **holds** (the CI inside it) and **not
//! similar** (the CI wholly outside it, on one side).
//!
//! [`decisive_half_width`] says how narrow a CI around a point estimate must
//! be for that point to get a verdict: the power plan of a claim is built on it.
//!
//! Pure arithmetic: nothing here measures or reads anything.
use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, StudentsT};

use super::summary::t_quantile_975;
use super::RatioEstimate;

/// The CI level claim verdicts use: 90%, i.e. one-sided tests at 5% (TOST).
pub const CLAIM_LEVEL: f64 = 0.90;

/// The direction a study claims for `other` against `baseline`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Direction {
    /// `other` takes less time (time ratio `baseline / other` above 1).
    Faster,
    /// `other` takes more time.
    Slower,
}

/// How big a study says the advantage is.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Size {
    /// About `value`, within a relative `tolerance` (0.10: ×/÷ 1.10).
    Ratio {
        /// The published factor, e.g. 1.17.
        value: f64,
        /// Relative tolerance, ≥ 0.
        tolerance: f64,
    },
    /// Between `low` and `high`, e.g. 2 and 6 for "2–6x".
    Range {
        /// Lower end.
        low: f64,
        /// Upper end.
        high: f64,
    },
    /// At least this factor (1 for plain "faster").
    AtLeast(f64),
    /// No direction: within `within` times either way ("similar").
    Around {
        /// The widest factor still called similar, e.g. 1.5.
        within: f64,
    },
}

/// A published effect: a direction and a size.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Published {
    /// Faster or slower (ignored by [`Size::Around`]).
    pub direction: Direction,
    /// By how much.
    pub size: Size,
}

impl Published {
    /// `other` faster than `baseline` by `size`.
    pub fn faster(size: Size) -> Published {
        Published {
            direction: Direction::Faster,
            size,
        }
    }

    /// `other` slower than `baseline` by `size`.
    pub fn slower(size: Size) -> Published {
        Published {
            direction: Direction::Slower,
            size,
        }
    }

    /// The two within `within` times of each other.
    pub fn similar(within: f64) -> Published {
        Published::faster(Size::Around { within })
    }

    /// The band `[L, H]` of advantages the publication allows (`H` may be ∞).
    pub fn band(&self) -> (f64, f64) {
        match self.size {
            Size::Ratio { value, tolerance } => {
                (value / (1.0 + tolerance), value * (1.0 + tolerance))
            }
            Size::Range { low, high } => (low.min(high), high.max(low)),
            Size::AtLeast(b) => (b, f64::INFINITY),
            Size::Around { within } => {
                let w = within.max(1.0 / within);
                (1.0 / w, w)
            }
        }
    }

    /// The band in words, e.g. `1.06–1.29x`, `at least 10x`, `0.67–1.50x`.
    pub fn band_words(&self) -> String {
        let (l, h) = self.band();
        if h.is_infinite() {
            format!("above {}x", short(l))
        } else {
            format!("{}–{}x", short(l), short(h))
        }
    }
}

/// A factor as a band edge: whole numbers bare, else two decimals below 10,
/// one below 100, none above (`1.06`, `2`, `10.5`, `200`).
pub fn short(x: f64) -> String {
    if x >= 100.0 || (x - x.round()).abs() < 1e-9 {
        format!("{x:.0}")
    } else if x >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

/// The smallest effect of interest of a directed claim: a ratio within
/// ×/÷ (1 + this) of 1 is "no effect" (5%).
pub const NO_EFFECT_MARGIN: f64 = 0.05;

/// The verdicts on a published effect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EffectVerdict {
    /// The CI lies inside the published band.
    Holds,
    /// The CI lies between the no-effect band and the published one.
    Smaller,
    /// The CI lies above the band.
    Larger,
    /// The CI lies inside the no-effect band around 1.
    NoEffect,
    /// The CI lies wholly below the no-effect band: the other way than
    /// the claimed direction, by more than the smallest effect of interest.
    Reversed,
    /// A "similar" band: the CI lies wholly outside it, on one side.
    NotSimilar,
    /// The CI straddles an edge that matters: more data would decide.
    Undecided,
}

impl EffectVerdict {
    /// Whether the verdict is decided (anything but [`EffectVerdict::Undecided`]).
    pub fn decided(self) -> bool {
        self != EffectVerdict::Undecided
    }
}

/// The no-effect band `(1 / (1 + m), min(1 + m, L))` of a band `[L, H]`:
/// `m` is [`NO_EFFECT_MARGIN`] on both sides, except that the upper edge
/// stops at `L` (the two bands meet there, never overlap); `None` for a band
/// around 1 (no direction).
///
/// The margin is the same for every claim. It used to shrink to `√L − 1`
/// for a band starting close to 1 (±2.5% for dillon2004's 1.05x), which
/// made a 2.5% difference "reversed" where a run calls it within noise, and
/// put a measured 0.975 on an edge, so two passes gave different verdicts.
pub fn no_effect_band(band: (f64, f64)) -> Option<(f64, f64)> {
    let (l, h) = band;
    if l < 1.0 && h > 1.0 {
        return None;
    }
    let upper = (1.0 + NO_EFFECT_MARGIN).min(l.max(1.0));
    Some((1.0 / (1.0 + NO_EFFECT_MARGIN), upper))
}

/// The verdict regions of a band, in log terms: each an open interval
/// `(a, b)` of log advantages and the verdict a CI wholly inside it gets,
/// in the order of the module documentation. An empty region ("smaller"
/// when the band starts within the no-effect margin) is left out, so no CI
/// is said to allow it.
fn regions(band: (f64, f64)) -> Vec<(f64, f64, EffectVerdict)> {
    let mut regions = all_regions(band);
    regions.retain(|&(a, b, _)| a < b);
    regions
}

fn all_regions(band: (f64, f64)) -> Vec<(f64, f64, EffectVerdict)> {
    let (l, h) = (band.0.ln(), band.1.ln());
    match no_effect_band(band) {
        None => vec![
            (l, h, EffectVerdict::Holds),
            (h, f64::INFINITY, EffectVerdict::NotSimilar),
            (f64::NEG_INFINITY, l, EffectVerdict::NotSimilar),
        ],
        Some((nl, nh)) => vec![
            (l, h, EffectVerdict::Holds),
            (h, f64::INFINITY, EffectVerdict::Larger),
            (nl.ln(), nh.ln(), EffectVerdict::NoEffect),
            (f64::NEG_INFINITY, nl.ln(), EffectVerdict::Reversed),
            (nh.ln(), l, EffectVerdict::Smaller),
        ],
    }
}

/// The verdict from a CI `[lo, hi]` of the advantage and the band `[L, H]`
/// (see the module documentation for the order of the checks).
pub fn verdict_from_ci(lo: f64, hi: f64, band: (f64, f64)) -> EffectVerdict {
    let (lo, hi) = (lo.ln(), hi.ln());
    regions(band)
        .into_iter()
        .find(|&(a, b, _)| a < lo && hi < b)
        .map_or(EffectVerdict::Undecided, |r| r.2)
}

/// The verdicts a CI `[lo, hi]` of the advantage still allows against the
/// band `[L, H]`: those of every region it touches, an end on an edge
/// touching both sides. A decided CI allows exactly its own verdict; an
/// undecided one, the two (or more) it straddles, e.g. `[0.96, 1.16]`
/// against `[1.36, 1.56]` allows no effect and smaller, never holds.
pub fn possible_verdicts(lo: f64, hi: f64, band: (f64, f64)) -> Vec<EffectVerdict> {
    let decided = verdict_from_ci(lo, hi, band);
    if decided.decided() {
        return vec![decided];
    }
    let (lo, hi) = (lo.ln(), hi.ln());
    let mut out: Vec<EffectVerdict> = Vec::new();
    for (a, b, v) in regions(band) {
        if a <= hi && lo <= b && !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

/// The widest CI half-width, in log terms, at which a CI centred on the
/// log advantage `log_point` still gets a verdict against `band`: the
/// distance from the point to the nearer end of the widest verdict region
/// holding it (0 on an edge).
pub fn decisive_half_width(log_point: f64, band: (f64, f64)) -> f64 {
    regions(band)
        .into_iter()
        .filter(|&(a, b, _)| a < log_point && log_point < b)
        .map(|(a, b, _)| (log_point - a).min(b - log_point))
        .fold(0.0, f64::max)
}

/// The `p` quantile of Student's t with `df` degrees of freedom (`df > 0`).
pub fn t_quantile(p: f64, df: f64) -> f64 {
    StudentsT::new(0.0, 1.0, df)
        .expect("df > 0 is a valid parameter")
        .inverse_cdf(p)
}

/// The paired log ratios `ln(baseline_i / other_i)` of a comparison,
/// summarised: everything a CI at any level needs.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct LogRatios {
    /// Number of pairs (≥ 2).
    pub n: usize,
    /// Mean log ratio.
    pub mean: f64,
    /// Standard error of the mean log ratio.
    pub se: f64,
}

impl LogRatios {
    /// Recovers the log-ratio summary behind a [`RatioEstimate`]:
    /// [`super::paired_ratio`] gives `ratio = exp(m)` and a 95% CI
    /// `exp(m ± t(0.975, n − 1) · se)`, so `m = ln ratio` and
    /// `se = (ln hi − ln lo) / (2 · t(0.975, n − 1))`. `None` with fewer than
    /// 2 pairs or a non-finite or non-positive end.
    pub fn of_estimate(r: &RatioEstimate) -> Option<LogRatios> {
        let ok = |x: f64| x.is_finite() && x > 0.0;
        if r.pairs < 2 || !ok(r.ratio) || !ok(r.ci95_low) || !ok(r.ci95_high) {
            return None;
        }
        let half = (r.ci95_high.ln() - r.ci95_low.ln()).max(0.0) / 2.0;
        Some(LogRatios {
            n: r.pairs,
            mean: r.ratio.ln(),
            se: half / t_quantile_975(r.pairs - 1),
        })
    }

    /// Degrees of freedom, `n − 1`.
    pub fn df(&self) -> f64 {
        (self.n - 1) as f64
    }

    /// The two-sided CI of the time ratio at `level`: `exp(m ± t · se)`.
    pub fn ratio_ci(&self, level: f64) -> (f64, f64) {
        let h = t_quantile(0.5 + level / 2.0, self.df()) * self.se;
        ((self.mean - h).exp(), (self.mean + h).exp())
    }
}

/// A verdict with what it rests on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EffectOutcome {
    /// The verdict.
    pub verdict: EffectVerdict,
    /// Measured advantage (geometric mean) in the claimed direction.
    pub advantage: f64,
    /// Its CI at `level`.
    pub ci: (f64, f64),
    /// The CI level used ([`CLAIM_LEVEL`]).
    pub level: f64,
    /// The published band `[L, H]` (`H` may be ∞).
    pub band: (f64, f64),
}

/// Judges `published` against a measured advantage `exp(mean)` whose CI at
/// `level` is `[lo, hi]` in the "faster" direction.
pub fn judge_ci(published: &Published, point: f64, ci: (f64, f64), level: f64) -> EffectOutcome {
    let (point, lo, hi) = match (published.direction, published.size) {
        (_, Size::Around { .. }) | (Direction::Faster, _) => (point, ci.0, ci.1),
        (Direction::Slower, _) => (1.0 / point, 1.0 / ci.1, 1.0 / ci.0),
    };
    let band = published.band();
    EffectOutcome {
        verdict: verdict_from_ci(lo, hi, band),
        advantage: point,
        ci: (lo, hi),
        level,
        band,
    }
}

/// Judges `published` against one comparison's paired time ratio
/// (`baseline / other`) at `level`; `None` without a usable estimate.
pub fn judge(published: &Published, ratio: &RatioEstimate, level: f64) -> Option<EffectOutcome> {
    let logs = LogRatios::of_estimate(ratio)?;
    Some(judge_ci(
        published,
        logs.mean.exp(),
        logs.ratio_ci(level),
        level,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_undecided_ci_allows_the_verdicts_it_straddles_and_a_decided_one_its_own() {
        let band = (1.36, 1.56);
        // No-effect band (1/1.05, 1.05): the CI straddles its top edge.
        assert_eq!(
            possible_verdicts(0.96, 1.16, band),
            vec![EffectVerdict::NoEffect, EffectVerdict::Smaller]
        );
        assert_eq!(
            possible_verdicts(1.30, 1.40, band),
            vec![EffectVerdict::Holds, EffectVerdict::Smaller]
        );
        assert_eq!(
            possible_verdicts(1.40, 1.50, band),
            vec![EffectVerdict::Holds]
        );
        assert_eq!(
            possible_verdicts(0.90, 0.99, band),
            vec![EffectVerdict::NoEffect, EffectVerdict::Reversed]
        );
        // From below 1 to above the band: every verdict.
        assert_eq!(possible_verdicts(0.5, 3.0, band).len(), 5);
        // "Similar": holds or not similar.
        assert_eq!(
            possible_verdicts(1.4, 1.6, (1.0 / 1.5, 1.5)),
            vec![EffectVerdict::Holds, EffectVerdict::NotSimilar]
        );
    }
    use crate::stats::paired_ratio;
    use EffectVerdict::*;

    const RANGE_2_6: (f64, f64) = (2.0, 6.0);

    #[test]
    fn every_edge_of_a_range() {
        let v = |lo, hi| verdict_from_ci(lo, hi, RANGE_2_6);
        assert_eq!(v(2.01, 5.99), Holds);
        assert_eq!(v(2.0, 5.9), Undecided, "on L is not inside");
        assert_eq!(v(2.1, 6.0), Undecided, "on H is not inside");
        assert_eq!(v(1.5, 2.5), Undecided, "straddles L");
        assert_eq!(v(5.5, 6.5), Undecided, "straddles H");
        assert_eq!(v(1.2, 1.99), Smaller);
        assert_eq!(
            v(1.051, 1.99),
            Smaller,
            "excludes no effect, below the band"
        );
        assert_eq!(v(1.05, 1.99), Undecided, "lo on the no-effect edge");
        assert_eq!(v(1.001, 1.99), Undecided, "excludes 1 but not no effect");
        assert_eq!(v(1.2, 2.0), Undecided, "hi on L");
        assert_eq!(v(0.9, 1.5), Undecided, "may be no effect or a small one");
        assert_eq!(v(0.97, 1.04), NoEffect, "inside ×/÷1.05");
        assert_eq!(v(0.96, 0.99), NoEffect, "below 1 but within the margin");
        assert_eq!(v(1.0 / 1.05, 1.04), Undecided, "on the margin's edge");
        assert_eq!(v(0.8, 0.95), Reversed, "wholly below 1 / 1.05");
        assert_eq!(v(0.8, 1.0 / 1.05), Undecided, "hi on the no-effect edge");
        assert_eq!(v(0.8, 0.99), Undecided, "below 1, but maybe no effect");
        assert_eq!(v(0.8, 1.0), Undecided, "hi on 1 is not reversed");
        assert_eq!(v(6.01, 7.0), Larger);
        assert_eq!(v(6.0, 7.0), Undecided, "lo on H");
        assert_eq!(v(1.5, 7.0), Undecided, "wider than the band");
    }

    #[test]
    fn the_no_effect_band_never_reaches_the_published_one() {
        assert_eq!(
            no_effect_band((2.0, 6.0)),
            Some((1.0 / 1.05, 1.05)),
            "5% when L is far"
        );
        // write2020's 1.06–1.29x: the full 5% on both sides, below L.
        assert_eq!(no_effect_band((1.06, 1.29)), Some((1.0 / 1.05, 1.05)));
        assert_eq!(no_effect_band((1.0 / 1.5, 1.5)), None, "similar");
        // A CI between the two bands, excluding the no-effect band: smaller.
        assert_eq!(verdict_from_ci(1.051, 1.059, (1.06, 1.29)), Smaller);
        // 3.5–5.5% is within the smallest effect of interest at one end.
        assert_eq!(verdict_from_ci(1.035, 1.055, (1.06, 1.29)), Undecided);
        assert_eq!(verdict_from_ci(1.0, 1.02, (1.06, 1.29)), NoEffect);
    }

    #[test]
    fn a_band_starting_within_the_margin_meets_the_no_effect_band_at_its_start() {
        // dillon2004's "marginally faster, 1.05–1.25x" and "at least 1.05x".
        for band in [(1.05, 1.25), (1.05, f64::INFINITY), (1.03, 1.2)] {
            let (nl, nh) = no_effect_band(band).unwrap();
            assert_eq!(nl, 1.0 / 1.05, "{band:?}: reversed is beyond the full 5%");
            assert_eq!(nh, band.0, "{band:?}: no effect reaches L, never past it");
            // No CI can be "smaller than published": nothing lies between.
            assert!(!possible_verdicts(1.0, 1.3, band).contains(&Smaller));
        }
        // A 2.5% reversal is no effect, as a run calls it within noise.
        assert_eq!(verdict_from_ci(0.96, 0.99, (1.05, 1.25)), NoEffect);
        assert_eq!(verdict_from_ci(0.94, 0.99, (1.05, 1.25)), Undecided);
        assert_eq!(verdict_from_ci(0.90, 0.94, (1.05, 1.25)), Reversed);
        assert_eq!(verdict_from_ci(1.02, 1.049, (1.05, 1.25)), NoEffect);
        assert_eq!(verdict_from_ci(1.04, 1.06, (1.05, 1.25)), Undecided);
        assert_eq!(
            possible_verdicts(1.04, 1.06, (1.05, 1.25)),
            vec![Holds, NoEffect]
        );
        // The plan's reach from 1.0: 5% to either edge, not 2.5%.
        let h = decisive_half_width(0.0, (1.05, 1.25));
        assert!((h - 1.05f64.ln()).abs() < 1e-12, "{h}");
    }

    #[test]
    fn a_bound_has_no_upper_edge() {
        let band = Published::faster(Size::AtLeast(10.0)).band();
        assert_eq!(band, (10.0, f64::INFINITY));
        assert_eq!(verdict_from_ci(10.5, 1e6, band), Holds);
        assert_eq!(verdict_from_ci(10.0, 12.0, band), Undecided);
        assert_eq!(verdict_from_ci(3.0, 9.9, band), Smaller);
        assert_eq!(verdict_from_ci(0.5, 0.9, band), Reversed);
        assert_eq!(verdict_from_ci(1e9, 1e10, band), Holds, "never larger");
    }

    #[test]
    fn a_ratio_band_is_log_symmetric_with_every_outcome() {
        let p = Published::faster(Size::Ratio {
            value: 1.17,
            tolerance: 0.10,
        });
        let (l, h) = p.band();
        assert!((l - 1.17 / 1.10).abs() < 1e-12 && (h - 1.287).abs() < 1e-12);
        assert_eq!(verdict_from_ci(l + 1e-9, h - 1e-9, (l, h)), Holds);
        assert_eq!(verdict_from_ci(l, 1.2, (l, h)), Undecided);
        assert_eq!(verdict_from_ci(1.051, l - 1e-9, (l, h)), Smaller);
        assert_eq!(
            verdict_from_ci(1.04, l - 1e-9, (l, h)),
            Undecided,
            "1.04 is within the 5% of no effect"
        );
        assert_eq!(verdict_from_ci(h + 1e-9, 1.5, (l, h)), Larger);
        assert_eq!(verdict_from_ci(1.2, h, (l, h)), Undecided);
        assert_eq!(verdict_from_ci(0.8, 0.9, (l, h)), Reversed);
        // write2020 at 0.95 [0.86–1.04]: neither no effect nor reversed.
        assert_eq!(verdict_from_ci(0.86, 1.04, (l, h)), Undecided);
        assert_eq!(p.band_words(), "1.06–1.29x");
    }

    #[test]
    fn similar_has_no_direction_so_never_reversed() {
        let p = Published::similar(1.5);
        let band = p.band();
        assert!((band.0 - 1.0 / 1.5).abs() < 1e-12 && band.1 == 1.5);
        assert_eq!(verdict_from_ci(0.9, 1.1, band), Holds);
        assert_eq!(verdict_from_ci(0.7, 0.95, band), Holds, "below 1, inside");
        assert_eq!(verdict_from_ci(0.3, 0.6, band), NotSimilar, "not reversed");
        assert_eq!(verdict_from_ci(1.6, 2.0, band), NotSimilar);
        assert_eq!(verdict_from_ci(0.5, 0.9, band), Undecided);
        assert_eq!(verdict_from_ci(0.6, 1.6, band), Undecided, "wider than it");
        assert_eq!(p.band_words(), "0.67–1.50x");
        assert_eq!(
            Published::faster(Size::AtLeast(10.5)).band_words(),
            "above 10.5x"
        );
        let about_100 = Size::Ratio {
            value: 100.0,
            tolerance: 1.0,
        };
        assert_eq!(Published::faster(about_100).band_words(), "50–200x");
        assert_eq!(Published::similar(1.0 / 1.5).band(), band);
    }

    #[test]
    fn the_decisive_half_width_is_the_distance_to_the_nearer_edge() {
        let ln = f64::ln;
        // Inside 2–6x at 3x: the nearer edge is 2 (ln 1.5 away).
        let h = decisive_half_width(ln(3.0), RANGE_2_6);
        assert!((h - ln(1.5)).abs() < 1e-12, "{h}");
        // At 1.5x: between 1 and 2, nearer to 2 (ln(4/3)) than 1 (ln 1.5)? 1 is ln 1.5 away, 2 is ln(2/1.5).
        let h = decisive_half_width(ln(1.5), RANGE_2_6);
        assert!((h - ln(2.0 / 1.5)).abs() < 1e-12, "{h}");
        // At 1: inside the no-effect band (±ln 1.05), the widest region holding it.
        let h = decisive_half_width(0.0, RANGE_2_6);
        assert!((h - ln(1.05)).abs() < 1e-12, "{h}");
        // Below: the reversed region reaches to −∞, so only the no-effect
        // band's lower edge, 1 / 1.05, bounds it.
        let h = decisive_half_width(ln(0.5), RANGE_2_6);
        assert!((h - ln(2.0 / 1.05)).abs() < 1e-12, "{h}");
        // On an edge nothing is decisive.
        assert_eq!(decisive_half_width(ln(2.0), RANGE_2_6), 0.0);
        // A CI of exactly that half-width around the point decides it; a
        // wider one does not.
        for x in [0.3f64, 0.9, 1.02, 1.5, 2.5, 5.0, 8.0] {
            let h = decisive_half_width(x.ln(), RANGE_2_6);
            let at = |k: f64| verdict_from_ci(x * (-h * k).exp(), x * (h * k).exp(), RANGE_2_6);
            assert!(at(0.999).decided(), "{x}");
            assert!(!at(1.001).decided(), "{x}");
        }
    }

    #[test]
    fn the_slower_direction_inverts_the_ratio() {
        let logs = [2.9, 3.1, 3.0, 2.95, 3.05];
        let base: Vec<f64> = logs.to_vec();
        let other = vec![1.0; 5];
        let r = paired_ratio(&base, &other).unwrap();
        let range = Size::Range {
            low: 2.0,
            high: 6.0,
        };
        let o = judge(&Published::faster(range), &r, CLAIM_LEVEL).unwrap();
        assert_eq!(o.verdict, Holds, "{o:?}");
        assert!((o.advantage - 3.0).abs() < 0.01 && o.level == CLAIM_LEVEL);
        let o = judge(&Published::slower(range), &r, CLAIM_LEVEL).unwrap();
        assert_eq!(o.verdict, Reversed, "{o:?}");
        assert!((o.advantage - 1.0 / 3.0).abs() < 0.01);
        assert!(o.ci.0 < o.advantage && o.advantage < o.ci.1);
    }

    #[test]
    fn the_log_summary_round_trips_paired_ratio_at_95_percent() {
        let r = paired_ratio(&[1.1, 2.4, 0.9, 3.0], &[1.0, 2.0, 1.0, 2.5]).unwrap();
        let l = LogRatios::of_estimate(&r).unwrap();
        let (lo, hi) = l.ratio_ci(0.95);
        assert!((lo - r.ci95_low).abs() < 1e-12 && (hi - r.ci95_high).abs() < 1e-12);
        // 90% is narrower, inside the 95% one.
        let (lo90, hi90) = l.ratio_ci(0.90);
        assert!(lo < lo90 && hi90 < hi);
        // Zero-width and unusable estimates.
        let exact = paired_ratio(&[2.0, 4.0], &[1.0, 2.0]).unwrap();
        assert_eq!(LogRatios::of_estimate(&exact).unwrap().se, 0.0);
        let mut bad = exact.clone();
        bad.ratio = f64::INFINITY;
        assert_eq!(LogRatios::of_estimate(&bad), None);
    }

    #[test]
    fn tost_at_90_percent_decides_where_95_would_not() {
        // Mean advantage 1.10, 5 pairs; band 1.075–1.125: the 90% CI is
        // inside, the 95% CI is not.
        let d = [0.02, -0.02, 0.01, -0.01, 0.0];
        let base: Vec<f64> = d.iter().map(|d| (1.10f64.ln() + 1.25 * d).exp()).collect();
        let r = paired_ratio(&base, &[1.0; 5]).unwrap();
        let p = Published::faster(Size::Range {
            low: 1.075,
            high: 1.125,
        });
        assert_eq!(judge(&p, &r, 0.90).unwrap().verdict, Holds);
        assert_eq!(judge(&p, &r, 0.95).unwrap().verdict, Undecided);
    }
}
