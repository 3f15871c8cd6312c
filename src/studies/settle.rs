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
//! preset's time budget lasts. A claim that is decided stops getting runs.
use crate::plan::{Case, Plan};
use crate::stats::effect::{decisive_half_width, Published, CLAIM_LEVEL};
use crate::stats::power::pairs_needed;
use crate::stats::stopping::SettleRule;
use crate::stats::RunResults;
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
        }
    }

    fn index(&self, case: &Case) -> Option<usize> {
        self.cases.iter().position(|c| c == case)
    }
}

/// Whether a claim's outcome would be changed by more runs of its cases.
fn wants_runs(verdict: ClaimVerdict, reason: Option<Reason>) -> bool {
    verdict == ClaimVerdict::Unsettled
        && matches!(reason, Some(Reason::BudgetSpent | Reason::MachineBusy))
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
            let trend = matches!(claim.expect, Expect::Trend { .. });
            for k in comparisons_wanting_runs(&outcome, claim.pairs.len(), trend, self.max_runs) {
                let (base, other) = &claim.pairs[k];
                wanted.extend(self.index(base));
                wanted.extend(self.index(other));
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

/// The comparisons (indices of the first `comparisons` rows of
/// `outcome.pairs`) of a claim that get another paired run: none when the
/// claim is decided, unsettled for another reason than runs, or needs more
/// than `max_runs`; else each undecided comparison (every one of a trend)
/// that is not mostly interfered with and has fewer than `max_runs` runs.
/// `outcome` is [`check`]'s (summarised). `faultline calibrate --claims`
/// settles its A/A claims by the same rule.
pub fn comparisons_wanting_runs(
    outcome: &ClaimOutcome,
    comparisons: usize,
    trend: bool,
    max_runs: usize,
) -> Vec<usize> {
    let reason = outcome.unsettled.as_ref().map(|u| u.reason);
    if !wants_runs(outcome.verdict, reason) {
        return Vec::new();
    }
    // A claim whose spread says it needs more runs than the cap allows, or
    // that sits on an edge, is left to say so.
    let reachable = match outcome.unsettled.as_ref() {
        Some(u) if u.reason == Reason::BudgetSpent => u
            .more_runs
            .is_some_and(|more| outcome.runs + more <= max_runs),
        _ => true,
    };
    if !reachable {
        return Vec::new();
    }
    outcome
        .pairs
        .iter()
        .take(comparisons)
        .enumerate()
        .filter(|(_, row)| {
            let undecided = trend || row.verdict == Some(ClaimVerdict::Unsettled);
            undecided && row.interfered_share < BUSY_SHARE && row.runs < max_runs
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
