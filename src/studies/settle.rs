//! Settling a study's claims: the power plan before measuring, and the
//! rule that adds paired runs after the planned ones until every claim is
//! decided at its own tolerance or the budget is spent.
//!
//! **The power plan** ([`power_plan`]): for each claim, the CI half-width
//! that decides it if the truth sits where the study put it (the middle of
//! its band: [`crate::stats::effect::decisive_half_width`]), and the paired
//! runs that width takes at this machine's noise per pair (the last
//! `faultline calibrate`, or an assumed figure, said as such). The dry run
//! prints it.
//!
//! **The rule** ([`ClaimRule`]): after the planned runs (the pilot), every
//! claim is judged; a claim that is unsettled only for want of runs gets
//! another paired run of each case of its undecided comparisons, as long
//! as the spread so far says a reachable number of runs would decide it
//! (never beyond `max_runs` per case), its comparisons are not mostly
//! interfered with (more runs on a busy machine are as busy), and the
//! preset's time budget lasts. A claim that is decided at one of the
//! rule's looks ([`is_look`]: the pilot, each power of two, the cap) stops
//! getting runs (but for a "below published" claim's narrow comparison
//! within reach of its finer verdict, [`BELOW_REFINED_WITHIN`]); one
//! decided between two looks runs on to the next, so that noise gets a few
//! chances to pass for a verdict, not one per run.
use crate::analysis::settle_rule::SettleRule;
use crate::plan::{Case, Plan};
use crate::results::RunResults;
use crate::stats::effect::{decisive_half_width, Published, CLAIM_LEVEL};
use crate::stats::power::pairs_needed;
use crate::studies::claims::{
    check, Claim, ClaimOutcome, ClaimVerdict, Expect, Reason, BUSY_SHARE,
};
use crate::studies::Preset;

/// Assumed sd of one paired log ratio when this machine has no calibration:
/// 10%, about what `faultline calibrate` measured on a quiet 2-core VM
/// (docs/claims.md).
pub const ASSUMED_PAIR_SD: f64 = 0.10;

/// Settles one preset's claims (see the module documentation).
pub struct ClaimRule {
    preset: Box<dyn Preset>,
    claims: Vec<Claim>,
    cases: Vec<Case>,
    /// Seconds of the run after which no run is added.
    pub budget_s: f64,
    /// Most paired runs of any case.
    pub max_runs: usize,
    /// The planned runs of each case, judged before any is added.
    pub pilot: usize,
}

impl ClaimRule {
    /// The rule for `preset`'s claims over `plan`, within `budget_s` seconds
    /// of trials and `max_runs` runs per case.
    pub fn new(preset: Box<dyn Preset>, plan: &Plan, budget_s: f64, max_runs: usize) -> ClaimRule {
        let cases: Vec<Case> = plan.cases.iter().map(Case::without_min_trial).collect();
        let planned = Plan {
            cases: cases.clone(),
            ..plan.clone()
        };
        ClaimRule {
            claims: preset.claims(&planned),
            cases,
            preset,
            budget_s,
            max_runs,
            pilot: plan.runs as usize,
        }
    }

    fn index(&self, case: &Case) -> Option<usize> {
        self.cases.iter().position(|c| c == case)
    }
}

/// A "below published" claim's undecided comparison gets runs toward its
/// finer verdict (no effect, smaller than published, reversed) only while
/// that takes at most this many times the pairs it has: a refinement
/// within reach makes two passes agree on the finer word, and one far off
/// would only give noise more looks at "reversed" (docs/claims.md).
pub const BELOW_REFINED_WITHIN: usize = 4;

/// Whether an undecided comparison of a "below published" claim gets the
/// `more` runs its finer verdict needs: only when they are within reach
/// ([`BELOW_REFINED_WITHIN`] times its pairs), decide it (not only halve
/// the CI of an estimate that sits near an edge: one on the edge would be
/// chased for the whole budget), and its CI is already narrow, at most
/// four no-effect margins wide
/// ([`crate::stats::effect::NO_EFFECT_MARGIN`] a side, twice over). A
/// noisy comparison whose estimate lies deep in "reversed" by chance needs
/// few runs to be decided there; the width test keeps noise from being
/// refined into a verdict (`faultline calibrate --claims` and the
/// simulated rates in `studies::calibrate_claims` measure it).
fn refinable_below(row: &crate::studies::claims::PairOutcome, more: usize) -> bool {
    let narrow = row.ci.is_some_and(|(lo, hi)| {
        lo > 0.0 && (hi / lo).ln() / 2.0 <= 2.0 * crate::stats::effect::NO_EFFECT_MARGIN.ln_1p()
    });
    narrow && !row.more_runs_only_halve && more <= BELOW_REFINED_WITHIN * row.runs
}

/// Whether a claim's outcome would be changed by more runs of its cases:
/// an unsettled one for want of runs, and a "below published" one whose
/// finer verdict is within reach ([`BELOW_REFINED_WITHIN`]).
fn wants_runs(verdict: ClaimVerdict, reason: Option<Reason>) -> bool {
    (verdict == ClaimVerdict::Unsettled
        && matches!(reason, Some(Reason::BudgetSpent | Reason::MachineBusy)))
        || verdict == ClaimVerdict::Below
}

/// The cases of `claim` that another paired run would help decide, from
/// its `outcome` on the results so far: those of the comparisons
/// [`comparisons_wanting_runs`] names (every one of a trend's, when the
/// claim wants runs at all).
pub fn runs_wanted<'c>(
    claim: &'c Claim,
    outcome: &ClaimOutcome,
    pilot: usize,
    max_runs: usize,
) -> Vec<&'c Case> {
    let trend = matches!(claim.expect, Expect::Trend { .. });
    comparisons_wanting_runs(outcome, claim.pairs.len(), trend, pilot, max_runs)
        .into_iter()
        .flat_map(|k| {
            let (base, other) = &claim.pairs[k];
            [base, other]
        })
        .collect()
}

impl SettleRule for ClaimRule {
    fn cases_needing_runs(&self, results: &RunResults, elapsed_s: f64) -> Vec<usize> {
        if elapsed_s >= self.budget_s {
            return Vec::new();
        }
        let results = &*crate::studies::as_planned(results);
        let mut wanted: Vec<usize> = Vec::new();
        for claim in &self.claims {
            let outcome = check(claim, results);
            for case in runs_wanted(claim, &outcome, self.pilot, self.max_runs) {
                wanted.extend(self.index(case));
            }
        }
        for outcome in self.preset.profile_claims(results) {
            let outcome = outcome.summarised();
            let reason = outcome.unsettled.as_ref().map(|u| u.reason);
            let reachable = outcome
                .unsettled
                .as_ref()
                .and_then(|u| u.more_runs)
                .is_some_and(|more| outcome.runs + more <= self.max_runs);
            if wants_runs(outcome.verdict, reason) && reachable {
                for case in self.preset.profile_cases(&self.cases) {
                    wanted.extend(self.index(&case));
                }
            }
        }
        wanted.sort_unstable();
        wanted.dedup();
        wanted
    }
}

/// Whether a comparison of `runs` paired runs is at one of the looks the
/// settling rule takes: the pilot (`pilot` runs, the planned ones), each
/// power of two above it, and the cap `max_runs`: with a pilot of 5 and a
/// cap of 40, at 5, 8, 16, 32 and 40 runs. A claim decided between two
/// looks is not stopped there; it runs on to the next look and is judged
/// again. Every look is another chance for noise to pass for a verdict:
/// judged after every run, an A/A claim (true ratio 1) came out
/// "reversed" in up to 6% of the settled comparisons where a single look
/// gave 3% (`faultline calibrate --claims`, docs/claims.md).
pub fn is_look(runs: usize, pilot: usize, max_runs: usize) -> bool {
    runs <= pilot || runs >= max_runs || runs.is_power_of_two()
}

/// The comparisons (indices of the first `comparisons` rows of
/// `outcome.pairs`) of a claim that get another paired run:
/// - a claim decided at a look ([`is_look`]) gets none, but for a "below
///   published" one's undecided comparisons that are narrow and within
///   reach of their finer verdict (`refinable_below`; a wide one would give
///   noise more chances to pass for "reversed");
/// - a claim decided between two looks: each comparison between looks;
/// - a claim unsettled for want of runs (budget spent, machine busy): each
///   undecided comparison whose own spread says a reachable number of runs
///   would decide it (a comparison whose estimate sits on an edge gets none:
///   no run would decide it, and the others may decide the claim without
///   it); every one of a trend, while the trend's spread says so;
///
/// never one mostly interfered with or at `max_runs` runs. `outcome` is
/// [`check`]'s (summarised); `pilot` the runs planned before settling.
/// `faultline calibrate --claims` settles its A/A claims by the same rule.
pub fn comparisons_wanting_runs(
    outcome: &ClaimOutcome,
    comparisons: usize,
    trend: bool,
    pilot: usize,
    max_runs: usize,
) -> Vec<usize> {
    let reason = outcome.unsettled.as_ref().map(|u| u.reason);
    let between = outcome.verdict.decided() && !is_look(outcome.runs, pilot, max_runs);
    if !between && !wants_runs(outcome.verdict, reason) {
        return Vec::new();
    }
    // A trend is one estimate over every comparison: it gets runs while its
    // spread says a reachable number would decide it.
    if trend && !between {
        let reachable = match outcome.unsettled.as_ref() {
            Some(u) if u.reason == Reason::BudgetSpent => u
                .more_runs
                .is_some_and(|more| outcome.runs + more <= max_runs),
            _ => true,
        };
        if !reachable {
            return Vec::new();
        }
    }
    outcome
        .pairs
        .iter()
        .take(comparisons)
        .enumerate()
        .filter(|(_, row)| {
            let undecided = row.verdict == Some(ClaimVerdict::Unsettled);
            let within = |more: usize| {
                row.runs + more <= max_runs
                    && (outcome.verdict != ClaimVerdict::Below || refinable_below(row, more))
            };
            let decidable =
                reason == Some(Reason::MachineBusy) || row.more_runs.is_some_and(within);
            let wanted = trend
                || !is_look(row.runs, pilot, max_runs)
                || (undecided && (between || decidable));
            wanted && row.interfered_share < BUSY_SHARE && row.runs < max_runs
        })
        .map(|(k, _)| k)
        .collect()
}

/// One claim's line in the power plan.
#[derive(Clone, Debug, PartialEq)]
pub struct ClaimPlan {
    /// The claim's id.
    pub id: String,
    /// The band it is judged against, in words.
    pub band: String,
    /// The CI half-width (as a ratio, e.g. 0.10 for ±10%) that decides it at the band's middle.
    pub half_width: f64,
    /// Paired runs that takes at the assumed noise; `None` beyond `max_runs`.
    pub runs: Option<usize>,
}

/// The middle of a band in log terms: the geometric centre of a finite
/// band; for a bound, 1.5 times its edge; for "similar", 1.
fn middle((l, h): (f64, f64)) -> f64 {
    if h.is_infinite() {
        (l * 1.5).ln()
    } else {
        (l.ln() + h.ln()) / 2.0
    }
}

/// The power plan of `claims` at a noise of `pair_sd` per paired log ratio
/// (see the module documentation); runs capped at `max_runs`.
pub fn power_plan(claims: &[Claim], pair_sd: f64, max_runs: usize) -> Vec<ClaimPlan> {
    claims
        .iter()
        .map(|c| {
            let published: Published = match &c.expect {
                Expect::Effect(p) => *p,
                Expect::EachEffect(each) => *each
                    .iter()
                    .min_by(|a, b| {
                        let w = |p: &Published| p.band().1.ln() - p.band().0.ln();
                        w(a).total_cmp(&w(b))
                    })
                    .expect("a claim compares something"),
                Expect::Trend { per_doubling, .. } => *per_doubling,
            };
            let band = published.band();
            let h = decisive_half_width(middle(band), band);
            // A trend's slope is a contrast of several points: its spread
            // per pair is wider; count it as twice the noise.
            let sd = if matches!(c.expect, Expect::Trend { .. }) {
                pair_sd * 2.0
            } else {
                pair_sd
            };
            ClaimPlan {
                id: c.id.clone(),
                band: published.band_words(),
                half_width: h.exp_m1(),
                runs: pairs_needed(sd, h, CLAIM_LEVEL, max_runs),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::effect::Size;
    use crate::studies::claims::PairInput;

    fn claim(id: &str, p: Published) -> Claim {
        Claim {
            id: id.into(),
            text: id.into(),
            pairs: Vec::new(),
            expect: Expect::Effect(p),
            quorum: 1.0,
            published: String::new(),
        }
    }

    /// A claim over `n` comparisons of distinct synthetic cases, judged on
    /// the given inputs.
    fn judged(p: Published, inputs: &[PairInput]) -> (Claim, ClaimOutcome) {
        let case = |i: usize| crate::plan::Case {
            file_size: 1 << (20 + i),
            ..crate::fixtures::case(crate::method::MethodKind::Read)
        };
        let mut claim = claim("c", p);
        claim.pairs = (0..inputs.len())
            .map(|i| (case(2 * i), case(2 * i + 1)))
            .collect();
        claim.quorum = 0.75;
        let outcome = crate::studies::claims::judge(&claim.text, &claim.expect, 0.75, "", inputs)
            .summarised();
        (claim, outcome)
    }

    /// fedorova2019's "2–6x faster".
    fn two_to_six() -> Published {
        Published::faster(Size::Range {
            low: 2.0,
            high: 6.0,
        })
    }

    /// A quiet comparison of `n` pairs whose 90% CI is `[lo, hi]`.
    fn ci(lo: f64, hi: f64, n: usize) -> PairInput {
        let t = crate::stats::effect::t_quantile(0.95, (n - 1) as f64);
        let t95 = crate::stats::effect::t_quantile(0.975, (n - 1) as f64);
        let m = (lo.ln() + hi.ln()) / 2.0;
        let se = (hi.ln() - lo.ln()) / 2.0 / t;
        PairInput::quiet(
            "p",
            Some(crate::stats::RatioEstimate {
                ratio: m.exp(),
                ci95_low: (m - t95 * se).exp(),
                ci95_high: (m + t95 * se).exp(),
                pairs: n,
            }),
            "",
        )
    }

    #[test]
    fn the_rule_runs_only_the_undecided_comparisons_of_an_unsettled_claim() {
        let p = two_to_six();
        // Two inside, one straddling 2, one inside: decided (3 of 4 hold).
        let (c, o) = judged(
            p,
            &[
                ci(2.5, 3.0, 5),
                ci(2.5, 3.0, 5),
                ci(1.8, 2.4, 5),
                ci(2.5, 3.0, 5),
            ],
        );
        assert!(o.verdict.decided());
        assert!(
            runs_wanted(&c, &o, 5, 40).is_empty(),
            "a decided claim stops"
        );
        // Two inside, two straddling: unsettled; only the straddling pairs run.
        let (c, o) = judged(
            p,
            &[
                ci(2.5, 3.0, 5),
                ci(1.5, 3.5, 5),
                ci(2.5, 3.0, 5),
                ci(1.5, 3.5, 5),
            ],
        );
        assert_eq!(o.verdict, ClaimVerdict::Unsettled);
        let wanted = runs_wanted(&c, &o, 5, 100);
        assert_eq!(wanted.len(), 4, "{o:?}");
        for k in [1, 3] {
            assert!(wanted.contains(&&c.pairs[k].0) && wanted.contains(&&c.pairs[k].1));
        }
        assert!(!wanted.contains(&&c.pairs[0].0));
        // The cap: at max_runs, or needing more than it allows, nothing runs.
        assert!(runs_wanted(&c, &o, 5, 5).is_empty());
        let more = o.unsettled.as_ref().unwrap().more_runs.unwrap();
        assert!(runs_wanted(&c, &o, 5, 5 + more - 1).is_empty());
        assert!(!runs_wanted(&c, &o, 5, 5 + more).is_empty());
    }

    #[test]
    fn a_comparison_on_an_edge_gets_no_runs_but_the_others_of_its_claim_do() {
        let p = two_to_six();
        // Two inside, one centred on the edge at 2 after 256 pairs (halving
        // its CI would take 1,024: beyond the 400 the rule ever plans), one
        // open: unsettled, and only the open one runs.
        let (c, o) = judged(
            p,
            &[
                ci(2.5, 3.0, 5),
                ci(2.5, 3.0, 5),
                ci(1.95, 2.0 * 2.0 / 1.95, 256),
                ci(1.5, 3.5, 5),
            ],
        );
        assert_eq!(o.verdict, ClaimVerdict::Unsettled, "{o:?}");
        assert_eq!(o.pairs[2].more_runs, None, "on the edge");
        assert!(o.pairs[3].more_runs.is_some());
        assert_eq!(
            runs_wanted(&c, &o, 5, 1000),
            vec![&c.pairs[3].0, &c.pairs[3].1]
        );
        let settle = &o.unsettled.as_ref().unwrap().settle;
        assert!(
            settle.contains("1 more comparison(s) sit on an edge"),
            "{settle}"
        );
        // The same edge after 5 pairs: a few noisy pairs may sit there by
        // chance, so it gets the runs that halve its CI.
        let (c, o) = judged(
            p,
            &[
                ci(2.5, 3.0, 5),
                ci(2.5, 3.0, 5),
                ci(1.8, 2.0 * 2.0 / 1.8, 5),
                ci(1.5, 3.5, 5),
            ],
        );
        assert!(
            o.pairs[2].more_runs.is_some_and(|m| m <= 3 * 5 + 5),
            "{o:?}"
        );
        assert_eq!(runs_wanted(&c, &o, 5, 1000).len(), 4);
    }

    #[test]
    fn a_below_published_claim_is_decided_and_stops() {
        let p = two_to_six();
        // Reversed, smaller, between no effect and smaller, between smaller
        // and holds: at most 1 of 4 can hold (3 needed): below published,
        // decided at the pilot's look. Its undecided comparisons are too
        // wide (±13% and more) to refine: running on for a finer verdict
        // would give noise more looks at "reversed" (docs/claims.md).
        let (c, o) = judged(
            p,
            &[
                ci(0.5, 0.8, 5),
                ci(1.2, 1.5, 5),
                ci(1.0, 1.3, 5),
                ci(1.5, 2.5, 5),
            ],
        );
        assert_eq!(o.verdict, ClaimVerdict::Below, "{o:?}");
        assert!(runs_wanted(&c, &o, 5, 1000).is_empty());
    }

    #[test]
    fn a_below_published_claim_refines_only_a_narrow_comparison_within_reach() {
        let p = two_to_six();
        // Below published as before; the last comparison is narrow
        // (±4.6%) and straddles the 1.05 edge of no effect a little way
        // from it: a few more runs decide it (no effect or smaller).
        let narrow = ci(1.03, 1.13, 5);
        let (c, o) = judged(
            p,
            &[ci(0.5, 0.8, 5), ci(1.2, 1.5, 5), ci(1.0, 1.3, 5), narrow],
        );
        assert_eq!(o.verdict, ClaimVerdict::Below, "{o:?}");
        let more = o.pairs[3].more_runs.expect("runs that decide it");
        assert!(more <= BELOW_REFINED_WITHIN * 5, "{o:?}");
        assert_eq!(
            comparisons_wanting_runs(&o, 4, false, 5, 1000),
            vec![3],
            "only the narrow one: the wide 1.0–1.3 is noise to refine"
        );
        assert_eq!(runs_wanted(&c, &o, 5, 1000).len(), 2);
        // The same estimate but wide (±13%): as noisy as the 1.0–1.3 row.
        let (_, wide) = judged(
            two_to_six(),
            &[
                ci(0.5, 0.8, 5),
                ci(1.2, 1.5, 5),
                ci(1.0, 1.3, 5),
                ci(0.95, 1.23, 5),
            ],
        );
        assert_eq!(wide.verdict, ClaimVerdict::Below, "{wide:?}");
        assert!(comparisons_wanting_runs(&wide, 4, false, 5, 1000).is_empty());
        // Narrow, but its estimate on the 1.05 edge: more runs would only
        // halve its CI, and one truly on the edge would be chased for the
        // whole budget.
        let (_, on_edge) = judged(
            two_to_six(),
            &[
                ci(0.5, 0.8, 5),
                ci(1.2, 1.5, 5),
                ci(1.0, 1.3, 5),
                ci(1.0, 1.1, 5),
            ],
        );
        assert_eq!(on_edge.verdict, ClaimVerdict::Below, "{on_edge:?}");
        assert!(on_edge.pairs[3].more_runs_only_halve, "{on_edge:?}");
        assert!(comparisons_wanting_runs(&on_edge, 4, false, 5, 1000).is_empty());
    }

    #[test]
    fn a_claim_decided_between_looks_runs_on_to_the_next() {
        for n in [1, 3, 5, 8, 16, 32, 40, 41] {
            assert!(is_look(n, 5, 40), "{n}");
        }
        for n in [6, 7, 9, 15, 17, 33, 39] {
            assert!(!is_look(n, 5, 40), "{n}");
        }
        let p = two_to_six();
        for (n, wants) in [
            (5, false),
            (6, true),
            (7, true),
            (8, false),
            (12, true),
            (16, false),
            (39, true),
            (40, false),
        ] {
            let (c, o) = judged(p, &[ci(2.5, 3.0, n)]);
            assert_eq!(o.verdict, ClaimVerdict::Holds, "{n}");
            assert_eq!(!runs_wanted(&c, &o, 5, 40).is_empty(), wants, "{n}");
        }
        // Between looks, a decided comparison of a claim decided as a whole
        // runs on; one at a look does not.
        let (c, o) = judged(p, &[ci(2.5, 3.0, 6), ci(2.5, 3.0, 8)]);
        assert_eq!(
            runs_wanted(&c, &o, 5, 40),
            vec![&c.pairs[0].0, &c.pairs[0].1]
        );
    }

    #[test]
    fn a_busy_comparison_gets_no_more_runs() {
        let p = Published::faster(Size::Ratio {
            value: 1.17,
            tolerance: 0.10,
        });
        let mut busy = ci(1.10, 1.20, 10);
        busy.clean_ratio = ci(0.8, 1.6, 2).ratio;
        busy.interfered_share = 0.8;
        let (c, o) = judged(p, &[busy.clone()]);
        assert_eq!(o.unsettled.as_ref().unwrap().reason, Reason::MachineBusy);
        assert!(runs_wanted(&c, &o, 5, 40).is_empty(), "the machine is busy");
        // Lightly interfered: more runs add clean pairs.
        busy.interfered_share = 0.2;
        busy.clean_ratio = ci(1.0, 1.4, 8).ratio;
        let (c, o) = judged(p, &[busy]);
        assert_eq!(o.verdict, ClaimVerdict::Unsettled);
        assert_eq!(runs_wanted(&c, &o, 5, 40).len(), 2);
    }

    #[test]
    fn the_plan_asks_more_runs_of_a_narrow_band_and_of_noisier_machines() {
        let wide = claim(
            "wide",
            Published::faster(Size::Range {
                low: 2.0,
                high: 6.0,
            }),
        );
        let narrow = claim(
            "narrow",
            Published::faster(Size::Ratio {
                value: 1.17,
                tolerance: 0.10,
            }),
        );
        let plan = power_plan(&[wide.clone(), narrow.clone()], 0.10, 1000);
        let (w, n) = (plan[0].runs.unwrap(), plan[1].runs.unwrap());
        assert!(w < n, "{w} {n}");
        assert!((plan[1].half_width - 0.10).abs() < 1e-9, "{:?}", plan[1]);
        let noisier = power_plan(std::slice::from_ref(&narrow), 0.30, 1000)[0]
            .runs
            .unwrap();
        assert!(noisier > n * 3, "{noisier} vs {n}");
        // Beyond the cap: said as such.
        assert_eq!(power_plan(&[narrow], 0.30, 10)[0].runs, None);
    }
}
