//! The crossover search of `faultline map`: where along one factor the
//! verdict of a paired comparison changes (A faster, no difference, B faster).
//!
//! Pure arithmetic on observations: nothing here measures. The driver
//! (`session::map`) measures the points this module asks for and hands back
//! each point's [`Side`]; this module decides what to measure next and what
//! the points say.
//!
//! The search, on an [`Axis`] from `low` to `high`:
//! 1. a coarse grid ([`Axis::coarse`]): on a log axis about one point per
//!    factor of 4 (3 to 9 points), on a linear one 5 points;
//! 2. then, round after round ([`next_points`]), for every **bracket** (two
//!    neighbouring settled points whose sides differ, with only unsettled
//!    points between them) the wider of the two gaps at its ends (between an
//!    end and the nearest point measured inside it) is split at its middle
//!    (geometric on a log axis), snapped to a value the factor can take,
//!    until the bracket is as tight as asked ([`Axis::tight`]) or both end
//!    gaps are (the points next to its ends, inside, are unsettled and
//!    within the resolution of them);
//! 3. a settled point that is the only one of its side and ends a bracket is
//!    measured a second time before the bracket is trusted: when the two
//!    measurements disagree the point is unsettled, so one stray verdict on a
//!    flat curve does not make a crossing ([`side_at`]).
//!
//! A point's side comes from the engine's verdict ([`side_of`]): faster or
//! slower as `run` decides it (with its smallest effect), else "no
//! difference" when the CI lies inside the no-effect band, else unsettled.
use serde::{Deserialize, Serialize};

use super::{RatioEstimate, Verdict};

/// How the factor's values are spaced.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scale {
    /// Equal ratios (block and file sizes, threads, depths).
    Log,
    /// Equal differences (a Zipf exponent, a percentage).
    Linear,
}

/// The range searched and how tight a bracket must be.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Axis {
    /// Lowest value measured.
    pub low: f64,
    /// Highest value measured.
    pub high: f64,
    /// Log or linear.
    pub scale: Scale,
    /// A bracket is tight when `high / low` is at most this (log axis, > 1)
    /// or `high - low` is at most this (linear axis, > 0).
    pub resolution: f64,
}

/// Which method a point favours.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Side {
    /// The first method (the baseline) is faster.
    AFaster,
    /// The CI lies inside the no-effect band: no difference that matters.
    NoDifference,
    /// The second method is faster.
    BFaster,
    /// Neither: the CI straddles an edge (or two measurements disagree).
    Unsettled,
}

impl Side {
    /// Whether a verdict was reached.
    pub fn settled(self) -> bool {
        self != Side::Unsettled
    }
}

/// One measurement of one point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Observation {
    /// The factor's value.
    pub x: f64,
    /// What its comparison said.
    pub side: Side,
}

/// A boundary: the verdict is `below` at `low` and `above` at `high`, and
/// changes somewhere between.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bracket {
    /// The last point with the verdict below.
    pub low: f64,
    /// The first point with the verdict above.
    pub high: f64,
    /// The verdict at and below `low`.
    pub below: Side,
    /// The verdict at and above `high`.
    pub above: Side,
    /// Points measured between the two, each unsettled.
    pub unsettled_between: usize,
    /// Whether the bracket is as tight as asked.
    pub tight: bool,
}

/// The side of one comparison of B against A: `verdict` is the engine's on
/// the throughput ratio B / A (faster: B faster); `margin` is the no-effect
/// band's half-width (0.05: within ×/÷ 1.05 is no difference).
pub fn side_of(ratio: &RatioEstimate, verdict: Verdict, margin: f64) -> Side {
    match verdict {
        Verdict::Faster => Side::BFaster,
        Verdict::Slower => Side::AFaster,
        // A busy machine's point decides nothing: measured, not placed.
        Verdict::Unsettled => Side::Unsettled,
        Verdict::WithinNoise => {
            let inside = ratio.ci95_low > 1.0 / (1.0 + margin) && ratio.ci95_high < 1.0 + margin;
            if inside {
                Side::NoDifference
            } else {
                Side::Unsettled
            }
        }
    }
}

impl Axis {
    /// The axis position of `x`: `ln x` or `x`.
    fn pos(&self, x: f64) -> f64 {
        match self.scale {
            Scale::Log => x.ln(),
            Scale::Linear => x,
        }
    }

    /// The value at axis position `p`.
    fn at(&self, p: f64) -> f64 {
        match self.scale {
            Scale::Log => p.exp(),
            Scale::Linear => p,
        }
    }

    /// The width of one step of the resolution, in axis positions.
    fn step(&self) -> f64 {
        match self.scale {
            Scale::Log => self.resolution.ln(),
            Scale::Linear => self.resolution,
        }
    }

    /// Whether `a..b` is as tight as asked.
    pub fn tight(&self, a: f64, b: f64) -> bool {
        (self.pos(b) - self.pos(a)).abs() <= self.step() * (1.0 + 1e-9)
    }

    /// How many points a full grid at the resolution would take: both ends
    /// and every step between.
    pub fn grid_points(&self) -> usize {
        let span = self.pos(self.high) - self.pos(self.low);
        (span / self.step() - 1e-9).ceil().max(0.0) as usize + 1
    }

    /// The coarse grid: both ends and points evenly spaced between them
    /// (about one per factor of 4 on a log axis, 3 to 9 points; 5 on a
    /// linear one), each through `snap`, without repeats.
    pub fn coarse(&self, snap: &dyn Fn(f64) -> f64) -> Vec<f64> {
        let span = self.pos(self.high) - self.pos(self.low);
        let n = match self.scale {
            Scale::Log => ((span / 4f64.ln()).round() as usize + 1).clamp(3, 9),
            Scale::Linear => 5,
        }
        .min(self.grid_points().max(1));
        let mut xs: Vec<f64> = (0..n)
            .map(|i| {
                if i == 0 {
                    self.low
                } else if i + 1 == n {
                    self.high
                } else {
                    let p = self.pos(self.low) + span * i as f64 / (n - 1) as f64;
                    snap(self.at(p)).clamp(self.low, self.high)
                }
            })
            .collect();
        xs.sort_by(f64::total_cmp);
        xs.dedup();
        xs
    }
}

/// Each measured value once, in order, with its side: the side every
/// measurement of it gave, or [`Side::Unsettled`] when they disagree; and
/// how many times it was measured.
pub fn side_at(observations: &[Observation]) -> Vec<(f64, Side, usize)> {
    let mut sorted: Vec<Observation> = observations.to_vec();
    sorted.sort_by(|a, b| a.x.total_cmp(&b.x));
    let mut out: Vec<(f64, Side, usize)> = Vec::new();
    for o in sorted {
        match out.last_mut() {
            Some((x, side, n)) if *x == o.x => {
                if *side != o.side {
                    *side = Side::Unsettled;
                }
                *n += 1;
            }
            _ => out.push((o.x, o.side, 1)),
        }
    }
    out
}

/// The brackets the observations show, in order.
pub fn brackets(axis: &Axis, observations: &[Observation]) -> Vec<Bracket> {
    let points = side_at(observations);
    let settled: Vec<(usize, f64, Side)> = points
        .iter()
        .enumerate()
        .filter(|(_, (_, s, _))| s.settled())
        .map(|(i, &(x, s, _))| (i, x, s))
        .collect();
    settled
        .windows(2)
        .filter(|w| w[0].2 != w[1].2)
        .map(|w| Bracket {
            low: w[0].1,
            high: w[1].1,
            below: w[0].2,
            above: w[1].2,
            unsettled_between: w[1].0 - w[0].0 - 1,
            tight: axis.tight(w[0].1, w[1].1),
        })
        .collect()
}

/// The points to measure next (empty: the search is done): points measured
/// once that alone hold their side and end a bracket or name a winner, then the middle
/// of the wider gap at the ends of each bracket that is not tight. Every value is
/// passed through `snap` and is new and strictly inside its gap.
pub fn next_points(
    axis: &Axis,
    observations: &[Observation],
    snap: &dyn Fn(f64) -> f64,
) -> Vec<f64> {
    let points = side_at(observations);
    let found = brackets(axis, observations);
    let mut out: Vec<f64> = Vec::new();
    // Confirm lone points: a settled point whose settled neighbours on both
    // sides (where there are any) have another side, when it ends a bracket
    // or names a winner.
    let settled: Vec<(f64, Side, usize)> =
        points.iter().copied().filter(|p| p.1.settled()).collect();
    for (i, &(x, side, n)) in settled.iter().enumerate() {
        let before = i.checked_sub(1).map(|j| settled[j].1);
        let after = settled.get(i + 1).map(|p| p.1);
        let alone = before != Some(side) && after != Some(side);
        let ends_bracket = before.is_some_and(|s| s != side) || after.is_some_and(|s| s != side);
        let winner = side != Side::NoDifference;
        if n == 1 && alone && (ends_bracket || winner) {
            out.push(x);
        }
    }
    for b in &found {
        if b.tight {
            continue;
        }
        // The gaps between consecutive measured values inside the bracket.
        let inside: Vec<f64> = points
            .iter()
            .map(|p| p.0)
            .filter(|&x| x >= b.low && x <= b.high)
            .collect();
        // Only the gaps at the bracket's ends: a point there that settles
        // moves an end in; between two unsettled points a new one would
        // most likely be as unsettled as they are.
        let mut gaps: Vec<(f64, f64)> = inside
            .windows(2)
            .filter(|w| w[0] == b.low || w[1] == b.high)
            .filter(|w| !axis.tight(w[0], w[1]))
            .map(|w| (w[0], w[1]))
            .collect();
        gaps.sort_by(|a, b| {
            let width = |g: &(f64, f64)| axis.pos(g.1) - axis.pos(g.0);
            width(b).total_cmp(&width(a))
        });
        for (lo, hi) in gaps {
            let mid = snap(axis.at((axis.pos(lo) + axis.pos(hi)) / 2.0));
            if mid > lo && mid < hi && !out.contains(&mid) {
                out.push(mid);
                break;
            }
        }
    }
    out.sort_by(f64::total_cmp);
    out
}

/// A run of neighbouring settled points with one side, for the words.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Region {
    /// Its side.
    pub side: Side,
    /// Its first point.
    pub first: f64,
    /// Its last point.
    pub last: f64,
}

/// The settled points grouped into runs of one side, in order (unsettled
/// points are left out).
pub fn regions(observations: &[Observation]) -> Vec<Region> {
    let mut out: Vec<Region> = Vec::new();
    for (x, side, _) in side_at(observations) {
        if !side.settled() {
            continue;
        }
        match out.last_mut() {
            Some(r) if r.side == side => r.last = x,
            _ => out.push(Region {
                side,
                first: x,
                last: x,
            }),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Block sizes as `faultline map` snaps them: whole KiB.
    fn snap_kib(x: f64) -> f64 {
        (x / 1024.0).round().max(1.0) * 1024.0
    }

    fn blocks(resolution: f64) -> Axis {
        Axis {
            low: 4096.0,
            high: 1024.0 * 1024.0,
            scale: Scale::Log,
            resolution,
        }
    }

    /// Runs the search to its end on a synthetic curve: `side(x, k)` is the
    /// side of the `k`th measurement of `x`. Returns the observations.
    fn search(axis: &Axis, mut side: impl FnMut(f64, usize) -> Side) -> Vec<Observation> {
        let mut obs: Vec<Observation> = Vec::new();
        let mut todo = axis.coarse(&snap_kib);
        for _round in 0..100 {
            if todo.is_empty() {
                return obs;
            }
            for x in todo {
                let k = obs.iter().filter(|o| o.x == x).count();
                obs.push(Observation {
                    x,
                    side: side(x, k),
                });
            }
            todo = next_points(axis, &obs, &snap_kib);
        }
        panic!("the search did not end in 100 rounds");
    }

    /// The side of a noiseless ratio curve with a ±3% CI and a 5% margin.
    fn noiseless(ratio: f64) -> Side {
        let est = RatioEstimate {
            ratio,
            ci95_low: ratio / 1.03,
            ci95_high: ratio * 1.03,
            pairs: 10,
        };
        side_of(&est, est.verdict(), 0.05)
    }

    /// B's advantage falls slowly: 1.2x at 4 KiB, 1 at 40 KiB, 0.77x at 1 MiB.
    fn one_crossing(x: f64) -> f64 {
        (40.0 * 1024.0 / x).powf(0.08)
    }

    #[test]
    fn a_slow_crossing_through_no_difference_is_bracketed_on_both_sides() {
        let axis = blocks(1.25);
        let obs = search(&axis, |x, _| noiseless(one_crossing(x)));
        let found = brackets(&axis, &obs);
        // B faster below, no difference around 40 KiB, A faster above.
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(
            (found[0].below, found[0].above),
            (Side::BFaster, Side::NoDifference)
        );
        assert_eq!(
            (found[1].below, found[1].above),
            (Side::NoDifference, Side::AFaster)
        );
        // The true edges: B faster while ratio / 1.03 > 1; no difference
        // while the CI lies inside (1/1.05, 1.05); A faster once ratio · 1.03 < 1.
        let x_at = |ratio: f64| 40.0 * 1024.0 / ratio.powf(1.0 / 0.08);
        let b_ends = x_at(1.03);
        let nd_ends = x_at(1.03 / 1.05);
        let a_starts = x_at(1.0 / 1.03);
        assert!(
            found[0].low < b_ends && b_ends <= found[0].high,
            "{found:?}"
        );
        assert!(
            found[1].low <= nd_ends && a_starts <= found[1].high,
            "{found:?}"
        );
        // Every gap inside a bracket is as tight as asked.
        let xs: Vec<f64> = side_at(&obs).iter().map(|p| p.0).collect();
        for b in &found {
            let inside: Vec<f64> = xs
                .iter()
                .copied()
                .filter(|&x| x >= b.low && x <= b.high)
                .collect();
            assert!(
                inside.windows(2).all(|w| axis.tight(w[0], w[1])),
                "{b:?} {inside:?}"
            );
        }
        // Two boundaries for the price of one grid's half.
        assert!(xs.len() * 2 <= axis.grid_points(), "{} points", xs.len());
    }

    #[test]
    fn a_sign_change_alone_is_one_bracket_a_third_of_the_grid() {
        // No no-effect band to cross: the CI is narrow everywhere but at 1.
        let axis = blocks(1.25);
        let flip = 48.0 * 1024.0;
        let obs = search(&axis, |x, _| {
            if x < flip {
                Side::BFaster
            } else {
                Side::AFaster
            }
        });
        let found = brackets(&axis, &obs);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].low < flip && flip <= found[0].high, "{found:?}");
        assert!(found[0].tight);
        let distinct = side_at(&obs).len();
        assert!(
            distinct * 3 <= axis.grid_points(),
            "{distinct} points against a grid of {}",
            axis.grid_points()
        );
    }

    #[test]
    fn two_crossings_are_both_bracketed() {
        // A faster in the middle only: B, A, B.
        let axis = blocks(1.25);
        let (a, b) = (16.0 * 1024.0, 200.0 * 1024.0);
        let obs = search(&axis, |x, _| {
            if x < a || x >= b {
                Side::BFaster
            } else {
                Side::AFaster
            }
        });
        let found = brackets(&axis, &obs);
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found[0].low < a && a <= found[0].high, "{found:?}");
        assert!(found[1].low < b && b <= found[1].high, "{found:?}");
        assert!(found.iter().all(|b| b.tight), "{found:?}");
        assert_eq!(found[0].above, Side::AFaster);
        assert_eq!(found[1].above, Side::BFaster);
    }

    #[test]
    fn no_crossing_takes_the_coarse_grid_only() {
        let axis = blocks(1.25);
        let obs = search(&axis, |_, _| Side::BFaster);
        assert!(brackets(&axis, &obs).is_empty());
        assert_eq!(obs.len(), axis.coarse(&snap_kib).len());
        assert_eq!(regions(&obs).len(), 1);
    }

    /// How many of `seeds` searches on a flat curve at ratio 1 report a
    /// winner anywhere: each measurement's 95% CI has a random centre, so
    /// about one in twenty lies wholly on one side of 1, as a real 95% CI
    /// would. `confirm`: as the search runs; without, each point's first
    /// measurement alone is judged.
    fn flat_winners(seeds: u64, confirm: bool) -> usize {
        let axis = blocks(1.25);
        let mut reported = 0;
        for seed in 0..seeds {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let obs = search(&axis, |_, _| {
                let centre = 1.0 + rng.random_range(-0.0413..0.0413);
                let est = RatioEstimate {
                    ratio: centre,
                    ci95_low: centre / 1.04,
                    ci95_high: centre * 1.04,
                    pairs: 10,
                };
                side_of(&est, est.verdict(), 0.05)
            });
            let judged: Vec<Observation> = if confirm {
                obs
            } else {
                let mut first: Vec<Observation> = Vec::new();
                for o in obs {
                    if !first.iter().any(|f| f.x == o.x) {
                        first.push(o);
                    }
                }
                first
            };
            let winners = regions(&judged)
                .into_iter()
                .filter(|r| r.side != Side::NoDifference)
                .count();
            reported += usize::from(winners > 0);
        }
        reported
    }

    /// One stray verdict on a flat curve must not make a crossing: it is
    /// measured again, and a winner is reported only when it repeats.
    #[test]
    fn a_noisy_flat_curve_gets_no_crossing() {
        let without = flat_winners(400, false);
        let with = flat_winners(400, true);
        // Without the second measurement a stray is reported often...
        assert!(without >= 40, "{without} of 400 without confirmation");
        // ...with it, rarely: at most 1% of searches, a tenth of the rate without.
        assert!(
            with <= 4 && with * 10 <= without,
            "{with} of 400 with, {without} without"
        );
    }

    #[test]
    fn a_stray_that_repeats_is_a_crossing_and_one_that_does_not_is_unsettled() {
        let axis = blocks(1.25);
        let obs = |second: Side| {
            vec![
                Observation {
                    x: 4096.0,
                    side: Side::NoDifference,
                },
                Observation {
                    x: 16384.0,
                    side: Side::NoDifference,
                },
                Observation {
                    x: 65536.0,
                    side: Side::BFaster,
                },
                Observation {
                    x: 65536.0,
                    side: second,
                },
                Observation {
                    x: 262144.0,
                    side: Side::NoDifference,
                },
            ]
        };
        assert_eq!(side_at(&obs(Side::NoDifference))[2].1, Side::Unsettled);
        assert!(brackets(&axis, &obs(Side::NoDifference)).is_empty());
        assert_eq!(brackets(&axis, &obs(Side::BFaster)).len(), 2);
        // Measured once, it is asked for again before anything else.
        let once = &obs(Side::BFaster)[..3];
        assert!(next_points(&axis, once, &snap_kib).contains(&65536.0));
    }

    #[test]
    fn side_of_follows_the_verdict_then_the_band() {
        let est = |lo: f64, hi: f64| RatioEstimate {
            ratio: (lo * hi).sqrt(),
            ci95_low: lo,
            ci95_high: hi,
            pairs: 5,
        };
        assert_eq!(
            side_of(&est(1.1, 1.3), Verdict::Faster, 0.05),
            Side::BFaster
        );
        assert_eq!(
            side_of(&est(0.7, 0.9), Verdict::Slower, 0.05),
            Side::AFaster
        );
        assert_eq!(
            side_of(&est(0.98, 1.03), Verdict::WithinNoise, 0.05),
            Side::NoDifference
        );
        assert_eq!(
            side_of(&est(0.9, 1.03), Verdict::WithinNoise, 0.05),
            Side::Unsettled
        );
        // A verdict of faster that the engine did not give (its smallest
        // effect) stays with the band.
        assert_eq!(
            side_of(&est(1.01, 1.04), Verdict::WithinNoise, 0.05),
            Side::NoDifference
        );
        // A point the busy machine left unsettled is placed nowhere, even
        // with a CI inside the band.
        assert_eq!(
            side_of(&est(1.01, 1.04), Verdict::Unsettled, 0.05),
            Side::Unsettled
        );
    }

    #[test]
    fn grid_points_and_tightness() {
        let axis = blocks(1.25);
        // ln(256) / ln(1.25) = 24.85: 25 steps, 26 points.
        assert_eq!(axis.grid_points(), 26);
        assert!(axis.tight(32768.0, 40960.0));
        assert!(!axis.tight(32768.0, 49152.0));
        let lin = Axis {
            low: 0.5,
            high: 1.5,
            scale: Scale::Linear,
            resolution: 0.1,
        };
        assert_eq!(lin.grid_points(), 11);
        assert_eq!(lin.coarse(&|x| x), vec![0.5, 0.75, 1.0, 1.25, 1.5]);
        assert_eq!(blocks(1.25).coarse(&snap_kib).len(), 5);
    }
}
