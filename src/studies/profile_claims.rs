//! Claims about where a study's CPU time went, checked against the profile
//! (`--profile`): a category's share of a case's main-loop samples, judged
//! at the size the study gave, like the ratio claims.
//!
//! [`judge_share`] takes the share's CI across trials at the claims' level
//! ([`CLAIM_LEVEL`], 90%) and a published band `[low, high]`:
//! **holds** when the CI lies inside it, **smaller than published** when it
//! lies below (a share that is smaller is not the opposite of the claim),
//! **larger than published** when above, and otherwise **unsettled**:
//! *budget spent*, with how many more trials would settle it at the spread
//! seen. A run without a usable profile (none, user-only, one trial) leaves
//! the claim **unsettled: needs --profile**, never dropped.
//!
//! "About X%" is read as the band X ×/÷ (1 + [`SHARE_TOLERANCE`]).
//! Pure: nothing here measures.
use crate::measure::profile::{Category, ProfileMode};
use crate::results::ProfileSummary;
use crate::stats::effect::{t_quantile, CLAIM_LEVEL};
use crate::stats::Summary;
use crate::studies::claims::{ClaimOutcome, ClaimVerdict, PairOutcome, Reason, Unsettled};

/// The relative tolerance of an "about X%" share: X ×/÷ 1.25, so ~60% is
/// 48–75% and ~15% is 12–19%.
pub const SHARE_TOLERANCE: f64 = 0.25;

/// Most profiled trials a share claim is planned for.
const MAX_TRIALS: usize = 200;

/// The band of "about `share`" (0–1): `share ×/÷ (1 + SHARE_TOLERANCE)`.
pub fn about(share: f64) -> (f64, f64) {
    (
        share / (1.0 + SHARE_TOLERANCE),
        (share * (1.0 + SHARE_TOLERANCE)).min(1.0),
    )
}

/// The band of a published range `low`–`high` (0–1) with the same
/// tolerance on each end.
pub fn about_range(low: f64, high: f64) -> (f64, f64) {
    (about(low).0, about(high).1)
}

/// A share with its CI at the claims' level ([`CLAIM_LEVEL`], 90%, as the
/// share claims judge it) in percent: `62% [58–66]`, or `62%` without a CI.
pub fn share_text(s: &Summary) -> String {
    match share_ci(s, CLAIM_LEVEL) {
        Some((lo, hi)) => format!(
            "{:.0}% [{:.0}–{:.0}]",
            s.mean * 100.0,
            lo * 100.0,
            hi * 100.0
        ),
        None => format!("{:.0}%", s.mean * 100.0),
    }
}

/// The CI of a share's mean at `level`, within [0, 1]; `None` below 2 trials.
fn share_ci(s: &Summary, level: f64) -> Option<(f64, f64)> {
    if s.n < 2 {
        return None;
    }
    let h = t_quantile(0.5 + level / 2.0, (s.n - 1) as f64) * s.sd / (s.n as f64).sqrt();
    Some(((s.mean - h).max(0.0), (s.mean + h).min(1.0)))
}

/// Why a profile cannot judge a claim about the whole time, if it cannot.
fn unusable(label: &str, profile: Option<&ProfileSummary>) -> Option<String> {
    match profile {
        None => Some(format!(
            "{label} has no profile: run with --profile (kernel samples need root or \
             kernel.perf_event_paranoid ≤ 1)"
        )),
        Some(p) if p.mode == ProfileMode::UserOnly => Some(format!(
            "{label}'s profile is user-only: the kernel's share was not sampled (run as root, or \
             with kernel.perf_event_paranoid ≤ 1)"
        )),
        Some(p) if p.trials < 2 => Some(format!(
            "{label}'s profile has {} trial: a share's CI needs two or more (--runs 2 or more)",
            p.trials
        )),
        Some(_) => None,
    }
}

/// Judges "`category`'s share of `label`'s main-loop samples is within
/// `[low, high]`" (see the module docs); `published` is the study's figure
/// as it gives it, `id` the claim's short name.
pub fn judge_share(
    id: &str,
    claim: &str,
    (label, category, profile): (&str, Category, Option<&ProfileSummary>),
    (low, high): (f64, f64),
    published: &str,
) -> ClaimOutcome {
    let band_words = format!("{:.0}–{:.0}%", low * 100.0, high * 100.0);
    let mut outcome = ClaimOutcome {
        id: id.to_string(),
        claim: claim.to_string(),
        verdict: ClaimVerdict::Unsettled,
        unsettled: None,
        explanation: String::new(),
        published: format!("{published} (judged as {band_words})"),
        kind: "share".to_string(),
        level: CLAIM_LEVEL,
        pairs: Vec::new(),
        ..Default::default()
    };
    if let Some(why) = unusable(label, profile) {
        outcome.unsettled = Some(Unsettled {
            reason: Reason::NeedsProfile,
            settle: "run it again with --profile (as root for kernel samples)".into(),
            more_runs: None,
        });
        outcome.explanation = why;
        return outcome;
    }
    let p = profile.expect("checked by unusable");
    // A category without a sample has share 0 in every trial.
    let zero = Summary {
        n: p.trials,
        mean: 0.0,
        sd: 0.0,
        median: 0.0,
        min: 0.0,
        max: 0.0,
        ci95: Some((0.0, 0.0)),
        outliers: Vec::new(),
    };
    let share = p.share(category).map_or(&zero, |s| &s.share);
    let (lo, hi) = share_ci(share, CLAIM_LEVEL).unwrap_or((share.mean, share.mean));
    let verdict = if low < lo && hi < high {
        ClaimVerdict::Holds
    } else if hi < low {
        ClaimVerdict::Smaller
    } else if lo > high {
        ClaimVerdict::Larger
    } else {
        ClaimVerdict::Unsettled
    };
    outcome.verdict = verdict;
    if verdict == ClaimVerdict::Unsettled {
        // The CI narrows as 1/√trials: the trials that bring its half-width
        // to the distance from the mean to the nearer edge that decides.
        let m = share.mean;
        let target = [low, high]
            .into_iter()
            .map(|edge| (m - edge).abs())
            .filter(|d| *d > 0.0)
            .fold(f64::INFINITY, f64::min);
        let half = (hi - lo) / 2.0;
        let n = p.trials;
        let more = (target.is_finite() && half > 0.0)
            .then(|| ((n as f64) * (half / target).powi(2)).ceil() as usize)
            .filter(|&need| need <= MAX_TRIALS)
            .map(|need| need.saturating_sub(n).max(1));
        outcome.unsettled = Some(Unsettled {
            reason: Reason::BudgetSpent,
            settle: match more {
                Some(k) => {
                    format!("needs about {k} more profiled trials (or longer main loops: --full)")
                }
                None => "the share lies on an edge of the band: no affordable number of trials \
                         would settle it"
                    .into(),
            },
            more_runs: more,
        });
    }
    outcome.pairs = vec![PairOutcome {
        label: format!("{label}: {category} share of the main loop's samples"),
        measured: Some(share.mean),
        ci: Some((lo, hi)),
        published: band_words.clone(),
        verdict: Some(verdict),
        runs: p.trials,
        interfered_share: 0.0,
        ..Default::default()
    }];
    outcome.explanation = format!(
        "measured {label}: {category} {:.0}% [{:.0}% CI {:.0}–{:.0}] of the main loop's samples, \
         mean over {} trials ({} samples), against the published {band_words}",
        share.mean * 100.0,
        CLAIM_LEVEL * 100.0,
        lo * 100.0,
        hi * 100.0,
        p.trials,
        p.samples
    );
    outcome
}

/// A profiled case's trials as a share claim may judge them: the profile
/// of the clean trials when any profiled trial was interfered with (the
/// rule every claim follows, [`crate::analysis::busy`]), with the share that
/// was.
#[derive(Clone, Debug)]
pub struct CleanProfile {
    /// The profile of the trials the claim is judged on.
    pub profile: Option<ProfileSummary>,
    /// The share of the profiled trials that were interfered with.
    pub interfered_share: f64,
    /// The profiled trials, interfered with or not.
    pub trials: usize,
}

/// The profile of `samples` (one case's) from its clean trials only, when
/// any profiled trial was interfered with.
pub fn clean_profile(samples: &[crate::results::Sample]) -> CleanProfile {
    let profiled: Vec<&crate::results::Sample> = samples
        .iter()
        .filter(|s| s.child.profile.is_some() && !s.profile_control)
        .collect();
    let interfered = profiled.iter().filter(|s| s.interfered()).count();
    let profiled_count = profiled.len();
    let interfered_share = interfered as f64 / profiled.len().max(1) as f64;
    let kept: Vec<crate::results::Sample> = profiled
        .into_iter()
        .filter(|s| interfered == 0 || !s.interfered())
        .cloned()
        .collect();
    CleanProfile {
        profile: crate::analysis::profile::summarize_profile(&kept),
        interfered_share,
        trials: profiled_count,
    }
}

/// [`judge_share`] on the clean trials of `clean`: unsettled, *machine
/// busy*, when interfered trials leave fewer than two clean ones.
pub fn judge_clean_share(
    id: &str,
    claim: &str,
    (label, category, clean): (&str, Category, &CleanProfile),
    band: (f64, f64),
    published: &str,
) -> ClaimOutcome {
    let busy = clean.interfered_share > 0.0;
    let too_few = clean.profile.as_ref().is_none_or(|p| p.trials < 2);
    if busy && too_few {
        return ClaimOutcome {
            id: id.to_string(),
            claim: claim.to_string(),
            verdict: ClaimVerdict::Unsettled,
            unsettled: Some(Unsettled {
                reason: Reason::MachineBusy,
                settle: format!(
                    "{:.0}% of {label}'s profiled trials were interfered with and fewer than two \
                     clean ones are left; quiet the machine (stop other jobs) and run it again, \
                     or add --retry-interfered 3",
                    clean.interfered_share * 100.0
                ),
                more_runs: None,
            }),
            explanation: format!(
                "{label}'s profile: {:.0}% of its trials were interfered with",
                clean.interfered_share * 100.0
            ),
            published: format!(
                "{published} (judged as {:.0}–{:.0}%)",
                band.0 * 100.0,
                band.1 * 100.0
            ),
            kind: "share".to_string(),
            level: CLAIM_LEVEL,
            // The row the exports and the settling rule read its share from.
            pairs: vec![PairOutcome {
                label: format!("{label}: {category} share of the main loop's samples"),
                measured: None,
                ci: None,
                published: format!("{:.0}–{:.0}%", band.0 * 100.0, band.1 * 100.0),
                verdict: Some(ClaimVerdict::Unsettled),
                runs: clean.trials,
                interfered_share: clean.interfered_share,
                ..Default::default()
            }],
            runs: clean.trials,
            interfered_share: clean.interfered_share,
            ..Default::default()
        };
    }
    let mut outcome = judge_share(
        id,
        claim,
        (label, category, clean.profile.as_ref()),
        band,
        published,
    );
    if busy {
        outcome.explanation.push_str(&format!(
            " (clean trials only: {:.0}% of the profiled trials were interfered with)",
            clean.interfered_share * 100.0
        ));
        outcome.interfered_share = clean.interfered_share;
        for row in &mut outcome.pairs {
            row.interfered_share = clean.interfered_share;
        }
    }
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::profile_summary;
    use Category::*;

    fn judged(shares: &[(Category, f64)], category: Category, band: (f64, f64)) -> ClaimOutcome {
        let p = profile_summary(shares);
        judge_share("id", "c", ("pread", category, Some(&p)), band, "~60%")
    }

    #[test]
    fn a_share_is_judged_at_its_size() {
        let band = about(0.60);
        assert!((band.0 - 0.48).abs() < 1e-12 && (band.1 - 0.75).abs() < 1e-12);
        let o = judged(&[(CopyToUser, 0.6), (Syscall, 0.15)], CopyToUser, band);
        assert_eq!(o.verdict, ClaimVerdict::Holds, "{}", o.explanation);
        assert_eq!(o.kind, "share");
        assert_eq!(o.level, CLAIM_LEVEL);
        assert!(
            o.explanation.contains("copy to user 60% [90% CI"),
            "{}",
            o.explanation
        );
        // Below the band: smaller, not reversed; above: larger.
        let o = judged(&[(CopyToUser, 0.3), (Syscall, 0.5)], CopyToUser, band);
        assert_eq!(o.verdict, ClaimVerdict::Smaller);
        let o = judged(&[(CopyToUser, 0.9)], CopyToUser, band);
        assert_eq!(o.verdict, ClaimVerdict::Larger);
        // A category with no sample has share 0: smaller.
        let o = judged(&[(CopyToUser, 0.9)], PageFault, about(0.36));
        assert_eq!(o.verdict, ClaimVerdict::Smaller);
    }

    /// A profiled trial with `copy` of 100 samples copying to user,
    /// interfered with or not.
    fn trial(copy: u64, interfered: bool) -> crate::results::Sample {
        let mut s = crate::fixtures::sample(0, 0);
        s.child.profile = Some(crate::measure::profile::TrialProfile {
            mode: ProfileMode::KernelUser,
            frequency_hz: 1000,
            samples: 100,
            threads: 1,
            categories: [(CopyToUser, copy), (Syscall, 100 - copy)]
                .into_iter()
                .collect(),
            ..Default::default()
        });
        s.interference = Some(crate::measure::interference::Interference {
            interfered,
            reasons: if interfered {
                vec!["a hog".into()]
            } else {
                Vec::new()
            },
            ..Default::default()
        });
        s
    }

    #[test]
    fn a_share_is_judged_on_clean_trials_or_is_unsettled_by_a_busy_machine() {
        let band = about(0.60);
        let judge = |trials: &[crate::results::Sample]| {
            let clean = clean_profile(trials);
            judge_clean_share("id", "c", ("pread", CopyToUser, &clean), band, "~60%")
        };
        // Clean 60% trials decide it; interfered 95% ones beside them are
        // left out, and the explanation says so.
        let mixed = [
            trial(60, false),
            trial(61, false),
            trial(59, false),
            trial(95, true),
        ];
        let o = judge(&mixed);
        assert_eq!(o.verdict, ClaimVerdict::Holds, "{}", o.explanation);
        assert!((o.interfered_share - 0.25).abs() < 1e-12);
        assert!(
            o.explanation.contains("clean trials only: 25%"),
            "{}",
            o.explanation
        );
        // With every trial in it, the interfered one would have moved it.
        let all = clean_profile(&[trial(60, false), trial(61, false), trial(59, false)]);
        assert_eq!(all.interfered_share, 0.0);
        // One clean trial left: machine busy, not a verdict from the busy ones.
        let busy = [trial(60, false), trial(95, true), trial(96, true)];
        let o = judge(&busy);
        assert_eq!(o.verdict, ClaimVerdict::Unsettled);
        assert_eq!(o.unsettled.as_ref().unwrap().reason, Reason::MachineBusy);
        // The export's summary keeps the busy share (it is read from the rows).
        let o = o.summarised();
        assert!((o.interfered_share - 2.0 / 3.0).abs() < 1e-12, "{o:?}");
        assert_eq!(o.runs, 3);
    }

    #[test]
    fn a_share_on_an_edge_is_unsettled_with_what_would_settle_it() {
        let o = judged(&[(CopyToUser, 0.48)], CopyToUser, about(0.60));
        assert_eq!(o.verdict, ClaimVerdict::Unsettled);
        let u = o.unsettled.unwrap();
        assert_eq!(u.reason, Reason::BudgetSpent);
        assert!(u.settle.contains("on an edge") || u.settle.contains("more profiled trials"));
    }

    #[test]
    fn without_a_usable_profile_it_is_listed_as_needing_one() {
        let o = judge_share("id", "c", ("pread", CopyToUser, None), about(0.6), "~60%");
        assert_eq!(o.verdict, ClaimVerdict::Unsettled);
        assert_eq!(o.unsettled.as_ref().unwrap().reason, Reason::NeedsProfile);
        assert_eq!(o.verdict_words(), "unsettled: needs --profile");
        assert!(o.explanation.contains("run with --profile"));
        let mut user = profile_summary(&[(UserMemcpy, 1.0)]);
        user.mode = ProfileMode::UserOnly;
        let o = judge_share("id", "c", ("m", PageFault, Some(&user)), (0.2, 0.4), "");
        assert_eq!(o.unsettled.unwrap().reason, Reason::NeedsProfile);
        assert!(o.explanation.contains("user-only"));
    }
}
