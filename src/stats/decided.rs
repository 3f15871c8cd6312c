//! The map's sequential stop: stop adding runs to a point once its verdict
//! is decided, so points far from any boundary cost the planned runs only.
//!
//! The precision rule ([`crate::analysis::stopping`]) looks at a CI's width only;
//! this rule looks at where the CI lies, and every look is a chance to stop
//! on a fluke. So each look judges the CI at a stricter level: with `K`
//! looks possible (after the planned runs and after every round added, up
//! to `--max-runs`: `K = max_runs − runs + 1`), at `1 − 0.05 / (4K)`: the
//! looks together spend at most a quarter of the run's 5% (Bonferroni), so
//! a false verdict in one direction, at most 2.5% with every run, is at
//! most 2.5% + 0.625% with the rule. A comparison is **decided** when that
//! stricter CI of its throughput ratio
//! - lies wholly above `1 + m` and the run's verdict is faster,
//! - lies wholly below `1 / (1 + m)` and the run's verdict is slower, or
//! - lies inside `(1 / (1 + m), 1 + m)` and the run's verdict is within
//!   noise (no difference),
//!
//! `m` the run's smallest effect (`--min-effect`). The verdict itself stays
//! the run's, at its usual 95%: a CI decided at the stricter level is
//! decided at 95% the same way, so stopping early never changes what a
//! point says, only how many runs it took. A verdict the busy-machine rule
//! left unsettled is never decided.
//!
//! A point is also given no more runs when it is **out of reach** of a
//! verdict: with its mean and sd as they are, its 95% CI at `--max-runs`
//! pairs would still reach across the nearer edge of the band. Such a point
//! stays unsettled, as it would most likely have been with every run; it
//! never gets a verdict from stopping. The unit tests simulate the rule on a
//! ratio at the edge of the no-effect band, where a false verdict is most
//! likely (4000 points: 83 called faster with every run), and require the
//! rule to add at most 10 false calls of either kind, while points far
//! from the edges keep their verdict and take at most 60% of the pairs.
//!
//! Pure arithmetic on assembled results: nothing here measures.
use super::compare::{RatioEstimate, Verdict};
use super::effect::LogRatios;
use super::fdr::ALPHA;
use super::log_ratios::t_quantile;

/// The CI level each look judges at when the rule may look `looks` times:
/// the looks together spend a quarter of the run's 5% (Bonferroni).
pub fn look_level(looks: usize) -> f64 {
    1.0 - ALPHA / (4 * looks.max(1)) as f64
}

/// How many times the rule may look at a group that starts with `runs`
/// runs per case and may add runs up to `max_runs`.
pub fn looks(runs: u32, max_runs: u32) -> usize {
    max_runs.saturating_sub(runs) as usize + 1
}

/// Whether `ci`, a throughput ratio's CI at the look level, decides
/// `verdict` against the no-effect band `±margin` (see the module
/// documentation).
pub fn firm(verdict: Verdict, ci: (f64, f64), margin: f64) -> bool {
    let (lo, hi) = ci;
    let edge = 1.0 + margin.max(0.0);
    match verdict {
        Verdict::Faster => lo > edge,
        Verdict::Slower => hi < 1.0 / edge,
        Verdict::WithinNoise => lo > 1.0 / edge && hi < edge,
        Verdict::Unsettled => false,
    }
}

/// Whether a comparison whose log ratios have mean `mean` and sd `sd` is
/// out of reach of a verdict by `max_runs` pairs: with that mean and sd,
/// the 95% CI at `max_runs` pairs, `t(0.975, max_runs − 1) · sd / √max_runs`
/// either side, would still reach across the nearer edge of the no-effect
/// band `±margin`. More runs would most likely leave it unsettled.
pub fn out_of_reach(mean: f64, sd: f64, margin: f64, max_runs: u32) -> bool {
    let n = f64::from(max_runs.max(2));
    let h = t_quantile(0.975, n - 1.0) * sd / n.sqrt();
    let edge = margin.max(0.0).ln_1p();
    (mean.abs() - edge).abs() <= h
}

/// The pairs a comparison whose log ratios have mean `mean` and sd `sd` is
/// expected to take before this rule stops it, for the time-left forecast:
/// the fewest `n` from `least` up to `max_runs` at which its CI at the look
/// level of `looks` would no longer reach across the nearer edge of the
/// band `±margin` (decided, faster or slower or within it), or `least` when
/// it is out of reach already ([`out_of_reach`]); `max_runs` when neither
/// happens sooner.
pub fn pairs_to_decide(
    mean: f64,
    sd: f64,
    margin: f64,
    looks: usize,
    least: usize,
    max_runs: u32,
) -> usize {
    let most = (max_runs as usize).max(least);
    if out_of_reach(mean, sd, margin, max_runs) {
        return least;
    }
    let distance = (mean.abs() - margin.max(0.0).ln_1p()).abs();
    let level = look_level(looks);
    (least.max(2)..=most)
        .find(|&n| {
            let n = n as f64;
            t_quantile(0.5 + level / 2.0, n - 1.0) * sd / n.sqrt() < distance
        })
        .unwrap_or(most)
}

/// Whether one comparison of a run, its throughput `ratio` with the run's
/// `verdict`, needs no more runs: decided at the look level of `looks`, or
/// out of reach of a verdict by `max_runs` pairs. A comparison the
/// busy-machine rule left unsettled needs more.
pub fn comparison_done(
    ratio: &RatioEstimate,
    verdict: Verdict,
    margin: f64,
    looks: usize,
    max_runs: u32,
) -> bool {
    let Some(s) = LogRatios::of_estimate(ratio) else {
        return false;
    };
    let decided = firm(verdict, s.ratio_ci(look_level(looks)), margin);
    let sd = s.se * (s.n as f64).sqrt();
    decided || (verdict != Verdict::Unsettled && out_of_reach(s.mean, sd, margin, max_runs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::Normal;
    use crate::stats::fdr::test_all;
    use crate::stats::log_ratios::LogRatios as Logs;

    /// The run's verdict and whether the rule stops on `logs` (throughput
    /// log ratios, B over A) with a `margin` band, `looks` looks and at
    /// most `max_runs` pairs.
    fn judge(logs: &[f64], margin: f64, looks: usize, max_runs: usize) -> (Verdict, bool) {
        let tested = test_all(&[logs], Default::default(), margin)[0];
        let s = Logs::of(logs).unwrap();
        let h = s.half_width(look_level(looks));
        let ci = ((s.mean - h).exp(), (s.mean + h).exp());
        let far = out_of_reach(s.mean, s.sd, margin, max_runs as u32);
        (tested.verdict, firm(tested.verdict, ci, margin) || far)
    }

    /// One point measured `runs` pairs to start, up to `max_runs`: with
    /// `early` it stops at the first look that is decided or out of reach
    /// of a verdict. Returns the
    /// final verdict, whether the 95% CI lies inside the band, and the
    /// pairs used.
    fn point(
        rng: &mut Normal,
        mean: f64,
        sd: f64,
        runs: usize,
        max_runs: usize,
        early: bool,
        margin: f64,
    ) -> (Verdict, bool, usize) {
        let k = looks(runs as u32, max_runs as u32);
        let mut logs: Vec<f64> = (0..runs).map(|_| mean + sd * rng.next()).collect();
        loop {
            let (verdict, decided) = judge(&logs, margin, k, max_runs);
            if logs.len() >= max_runs || (early && decided) {
                let s = Logs::of(&logs).unwrap();
                let h = s.half_width(0.95);
                let edge = (1.0 + margin).ln();
                let inside = s.mean - h > -edge && s.mean + h < edge;
                return (verdict, inside, logs.len());
            }
            logs.push(mean + sd * rng.next());
        }
    }

    /// Of `n` points with true log ratio `mean`: how many were called
    /// faster, how many no difference, and the pairs they used.
    fn rates(mean: f64, sd: f64, early: bool, n: u64) -> (usize, usize, usize) {
        let (mut faster, mut none, mut pairs) = (0, 0, 0);
        for seed in 0..n {
            let mut rng = Normal::new(seed);
            let (v, inside, used) = point(&mut rng, mean, sd, 5, 10, early, 0.05);
            faster += usize::from(v == Verdict::Faster);
            none += usize::from(v == Verdict::WithinNoise && inside);
            pairs += used;
        }
        (faster, none, pairs)
    }

    #[test]
    fn a_clear_effect_stops_at_the_planned_runs() {
        // 2x with 10% noise: decided at once, at 5 of 10 pairs.
        let mut rng = Normal::new(7);
        let (v, _, used) = point(&mut rng, 2f64.ln(), 0.1, 5, 10, true, 0.05);
        assert_eq!((v, used), (Verdict::Faster, 5));
        // Without the rule the same point takes every run.
        let mut rng = Normal::new(7);
        assert_eq!(point(&mut rng, 2f64.ln(), 0.1, 5, 10, false, 0.05).2, 10);
    }

    #[test]
    fn on_the_edge_stopping_early_adds_hardly_any_false_verdicts() {
        // The true ratio sits on the band's edge (1.05): "faster" and "no
        // difference" are both wrong there, and each is what a fluke gives.
        let edge = 1.05f64.ln();
        for sd in [0.03, 0.08] {
            let (f_fixed, n_fixed, p_fixed) = rates(edge, sd, false, 4000);
            let (f_early, n_early, p_early) = rates(edge, sd, true, 4000);
            // Each at about its nominal 2.5% with every run...
            assert!(f_fixed <= 140 && n_fixed <= 140, "{f_fixed} {n_fixed}");
            // ...and stopping early adds at most a quarter of a
            // percentage point (the bound is 0.625%: 25 of 4000).
            assert!(f_early <= f_fixed + 10, "sd {sd}: {f_early} vs {f_fixed}");
            assert!(n_early <= n_fixed + 10, "sd {sd}: {n_early} vs {n_fixed}");
            assert!(p_early <= p_fixed, "{p_early} > {p_fixed}");
        }
    }

    #[test]
    fn far_from_the_edges_it_saves_runs_and_keeps_the_verdict() {
        // 1.5x with 10% noise, and 1.0x with 1% noise (no difference).
        for (mean, sd, want) in [
            (1.5f64.ln(), 0.1, Verdict::Faster),
            (0.0, 0.01, Verdict::WithinNoise),
        ] {
            let (mut same, mut right, mut pairs, mut pairs_fixed) = (0, 0, 0, 0);
            for seed in 0..500 {
                let (fixed, _, all) = point(&mut Normal::new(seed), mean, sd, 5, 10, false, 0.05);
                let (early, _, used) = point(&mut Normal::new(seed), mean, sd, 5, 10, true, 0.05);
                same += usize::from(fixed == early);
                right += usize::from(early == want);
                pairs += used;
                pairs_fixed += all;
            }
            assert!(same >= 490, "{same} of 500 kept their verdict");
            assert!(right >= 490, "{right} of 500 said {want:?}");
            // At most 60% of the pairs every run would take.
            assert!(
                pairs * 10 <= pairs_fixed * 6,
                "{pairs} of {pairs_fixed} pairs"
            );
        }
    }

    #[test]
    fn a_point_out_of_reach_stops_a_point_within_reach_goes_on() {
        // 1.1x against a 5% band with 20% noise: at 10 pairs the CI is
        // ±14%, the edge 4.7% away: out of reach.
        assert!(out_of_reach(1.1f64.ln(), 0.2, 0.05, 10));
        // 1.2x with 5% noise: ±3.6% at 10 pairs, the edge 13% away.
        assert!(!out_of_reach(1.2f64.ln(), 0.05, 0.05, 10));
        // Inside the band the nearer edge counts: 1.0x with 1% noise is
        // within reach of "no difference", 1.04x with 5% noise is not.
        assert!(!out_of_reach(0.0, 0.01, 0.05, 10));
        assert!(out_of_reach(1.04f64.ln(), 0.05, 0.05, 10));
        // The same either way round.
        assert!(out_of_reach(-(1.1f64.ln()), 0.2, 0.05, 10));
    }

    #[test]
    fn a_run_s_group_is_done_when_each_comparison_is_decided_or_out_of_reach() {
        // mmap against read, 1.42x [1.38–1.46] over 3 pairs, faster.
        let mut run = crate::fixtures::results();
        run.settings.statistics.min_effect = Some(0.05);
        let c = &run.comparisons[0];
        let members = [c.baseline, c.other];
        // 3 to 6 runs: 4 looks at 99.69%, t(0.9984, 2) ≈ 17.9 against
        // t(0.975, 2) ≈ 4.3: about 1.26–1.60x, beyond 1.05.
        assert!(run.group_done(&members, looks(3, 6), 6));
        // Another group's cases: none of its comparisons, not done.
        assert!(!run.group_done(&[99], looks(3, 6), 6));
        // Left unsettled by the busy-machine rule: more runs.
        run.comparisons[0].verdict = Verdict::Unsettled;
        assert!(!run.group_done(&members, looks(3, 6), 6));
        // 1.06x [1.00–1.12] within noise: at 6 pairs the CI would still
        // cross 1.05, so it is out of reach; at 1000 pairs it is not.
        run.comparisons[0].verdict = Verdict::WithinNoise;
        run.comparisons[0].throughput_ratio = crate::stats::RatioEstimate {
            ratio: 1.06,
            ci95_low: 1.0,
            ci95_high: 1.12,
            pairs: 3,
        };
        assert!(run.group_done(&members, looks(3, 6), 6));
        assert!(!run.group_done(&members, looks(3, 1000), 1000));
    }

    #[test]
    fn the_forecast_of_pairs_to_decide_follows_the_distance_from_the_edge() {
        let (margin, looks) = (0.05, looks(5, 20));
        // 2x at 14% a pair: far beyond +5%, decided within a few pairs more.
        let far = pairs_to_decide(2f64.ln(), 0.14, margin, looks, 5, 20);
        assert!((5..=10).contains(&far), "{far}");
        // 1.2x is nearer the edge: later, but before the cap.
        let near = pairs_to_decide(1.2f64.ln(), 0.14, margin, looks, 5, 20);
        assert!(near > far && near < 20, "{near} vs {far}");
        // On the edge and noisy: out of reach, so it stops now.
        assert_eq!(pairs_to_decide(1.05f64.ln(), 0.2, margin, looks, 7, 20), 7);
        // Never fewer than the pairs it has.
        assert_eq!(pairs_to_decide(3f64.ln(), 0.01, margin, looks, 9, 20), 9);
        // Each forecast n is where the look-level CI first clears the edge.
        let level = look_level(looks);
        let h = |n: usize| t_quantile(0.5 + level / 2.0, n as f64 - 1.0) * 0.14 / (n as f64).sqrt();
        let d = 2f64.ln() - 0.05f64.ln_1p();
        assert!(h(far) < d && (far == 5 || h(far - 1) >= d));
    }

    #[test]
    fn the_look_level_and_what_decides() {
        assert_eq!(looks(5, 10), 6);
        assert_eq!(looks(5, 5), 1);
        assert_eq!(looks(10, 5), 1);
        assert!((look_level(1) - 0.9875).abs() < 1e-12);
        assert!((look_level(5) - 0.9975).abs() < 1e-12);
        assert!(firm(Verdict::Faster, (1.06, 1.2), 0.05));
        assert!(!firm(Verdict::Faster, (1.04, 1.2), 0.05));
        assert!(firm(Verdict::Slower, (0.5, 0.9), 0.05));
        assert!(!firm(Verdict::Slower, (0.5, 0.96), 0.05));
        assert!(firm(Verdict::WithinNoise, (0.97, 1.04), 0.05));
        assert!(!firm(Verdict::WithinNoise, (0.9, 1.04), 0.05));
        // Never where the busy-machine rule left it unsettled.
        assert!(!firm(Verdict::Unsettled, (0.99, 1.01), 0.05));
    }
}
