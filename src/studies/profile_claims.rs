//! Claims about where a study's CPU time went, checked against the profile
//! (`--profile`): category shares with their 95% CIs across trials, as
//! [`crate::stats::profile`] computed them. Pure: nothing here measures.
//!
//! - [`judge_dominates`]: a category is the largest in each case.
//!   **Holds** when, in every case, its CI lies wholly above every other
//!   category's; **reversed** when, in some case, another category's CI lies
//!   wholly above its own; otherwise **inconclusive**.
//! - [`judge_within`]: a category's share is about some figure: **holds**
//!   when its CI lies inside `[low, high]`, **reversed** when wholly outside,
//!   otherwise **inconclusive**.
//!
//! A profile without kernel samples (user-only) cannot judge a claim about
//! shares of the whole time: inconclusive, saying why.
use crate::measure::profile::{Category, ProfileMode};
use crate::stats::profile::ProfileSummary;
use crate::stats::Summary;
use crate::studies::claims::{ClaimOutcome, ClaimVerdict};

/// A share with its CI in percent: `62% [58–66]`, or `62%` without a CI.
pub fn share_text(s: &Summary) -> String {
    match s.ci95 {
        Some((lo, hi)) => format!(
            "{:.0}% [{:.0}–{:.0}]",
            s.mean * 100.0,
            lo.max(0.0) * 100.0,
            hi.min(1.0) * 100.0
        ),
        None => format!("{:.0}%", s.mean * 100.0),
    }
}

/// The CI of a share, or its mean at both ends when there is none.
fn bounds(s: &Summary) -> (f64, f64) {
    s.ci95.unwrap_or((s.mean, s.mean))
}

/// Why a profile cannot judge a claim about the whole time, if it cannot.
fn unusable(label: &str, profile: Option<&ProfileSummary>) -> Option<String> {
    match profile {
        None => Some(format!("{label} has no profile (run with --profile)")),
        Some(p) if p.mode == ProfileMode::UserOnly => Some(format!(
            "{label}'s profile is user-only: the kernel's share was not sampled"
        )),
        Some(p) if p.trials < 2 => Some(format!("{label}'s profile has {} trial: no CI", p.trials)),
        Some(_) => None,
    }
}

/// Below this many samples in a case, an inconclusive verdict says how to
/// take more.
const FEW_SAMPLES: u64 = 200;

/// What to add to an inconclusive verdict when a case had few samples.
fn more_samples_hint(profiles: &[&ProfileSummary]) -> String {
    match profiles.iter().map(|p| p.samples).min() {
        Some(n) if n < FEW_SAMPLES => format!(
            " Only {n} samples in a case: a longer main loop (reproduce --full) or a higher \
             --profile-hz (at a higher cost) would narrow the CI."
        ),
        _ => String::new(),
    }
}

fn inconclusive(claim: &str, why: String) -> ClaimOutcome {
    ClaimOutcome {
        claim: claim.to_string(),
        verdict: ClaimVerdict::Inconclusive,
        explanation: why,
        published: "-".to_string(),
        level: 0.95,
        pairs: Vec::new(),
    }
}

/// Judges "`category` is the largest share" over `(label, category,
/// profile)` cases (see the module docs).
pub fn judge_dominates(
    claim: &str,
    cases: &[(&str, Category, Option<&ProfileSummary>)],
) -> ClaimOutcome {
    if let Some(why) = cases.iter().find_map(|(l, _, p)| unusable(l, *p)) {
        return inconclusive(claim, why);
    }
    let mut verdicts = Vec::new();
    let mut words = Vec::new();
    for (label, category, profile) in cases {
        let p = profile.expect("checked by unusable");
        let Some(own) = p.share(*category) else {
            verdicts.push(ClaimVerdict::Reversed);
            words.push(format!("{label}: no sample in {category}"));
            continue;
        };
        let (lo, hi) = bounds(&own.share);
        let others: Vec<_> = p
            .shares
            .iter()
            .filter(|s| s.category != *category)
            .collect();
        let verdict = if others.iter().all(|s| bounds(&s.share).1 < lo) {
            ClaimVerdict::Holds
        } else if others.iter().any(|s| bounds(&s.share).0 > hi) {
            ClaimVerdict::Reversed
        } else {
            ClaimVerdict::Inconclusive
        };
        verdicts.push(verdict);
        let runner_up = others
            .first()
            .map(|r| format!(", next {} {}", r.category, share_text(&r.share)))
            .unwrap_or_default();
        words.push(format!(
            "{label}: {category} {}{runner_up} ({} samples)",
            share_text(&own.share),
            p.samples
        ));
    }
    let verdict = if verdicts.contains(&ClaimVerdict::Reversed) {
        ClaimVerdict::Reversed
    } else if verdicts.iter().all(|v| *v == ClaimVerdict::Holds) {
        ClaimVerdict::Holds
    } else {
        ClaimVerdict::Inconclusive
    };
    let how = match verdict {
        ClaimVerdict::Holds => "its CI lies above every other category's in each case",
        ClaimVerdict::Reversed => "another category's CI lies wholly above it",
        _ => "the CIs overlap",
    };
    let hint = if verdict == ClaimVerdict::Inconclusive {
        let profiles: Vec<&ProfileSummary> = cases.iter().filter_map(|c| c.2).collect();
        more_samples_hint(&profiles)
    } else {
        String::new()
    };
    ClaimOutcome {
        claim: claim.to_string(),
        verdict,
        explanation: format!(
            "share of the main loop's samples, mean over trials [95% CI]: {how}; {}.{hint}",
            words.join("; ")
        ),
        published: "the largest share of the main loop".to_string(),
        level: 0.95,
        pairs: Vec::new(),
    }
}

/// Judges "`category`'s share of `label`'s samples is about this", with the
/// band `[low, high]` the claim allows (see the module docs); `published`
/// says what the study reported.
pub fn judge_within(
    claim: &str,
    (label, category, profile): (&str, Category, Option<&ProfileSummary>),
    (low, high): (f64, f64),
    published: &str,
) -> ClaimOutcome {
    if let Some(why) = unusable(label, profile) {
        return inconclusive(claim, why);
    }
    let p = profile.expect("checked by unusable");
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
    let (lo, hi) = bounds(share);
    let verdict = if lo >= low && hi <= high {
        ClaimVerdict::Holds
    } else if lo > high || hi < low {
        ClaimVerdict::Reversed
    } else {
        ClaimVerdict::Inconclusive
    };
    let hint = if verdict == ClaimVerdict::Inconclusive {
        more_samples_hint(&[p])
    } else {
        String::new()
    };
    ClaimOutcome {
        claim: claim.to_string(),
        verdict,
        explanation: format!(
            "expected {:.0}–{:.0}% ({published}); measured {label}: {category} {} of the main \
             loop's samples, mean over {} trials [95% CI] ({} samples).{hint}",
            low * 100.0,
            high * 100.0,
            share_text(share),
            p.trials,
            p.samples
        ),
        published: format!("{published} ({:.0}–{:.0}%)", low * 100.0, high * 100.0),
        level: 0.95,
        pairs: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::profile_summary;
    use Category::*;

    #[test]
    fn dominates_needs_a_clear_lead_in_every_case() {
        let read = profile_summary(&[(CopyToUser, 0.6), (Syscall, 0.15), (PageCache, 0.1)]);
        let mmap = profile_summary(&[(UserMemcpy, 0.7), (PageFault, 0.2)]);
        let o = judge_dominates(
            "copy dominates both",
            &[
                ("pread", CopyToUser, Some(&read)),
                ("mmap-copy", UserMemcpy, Some(&mmap)),
            ],
        );
        assert_eq!(o.verdict, ClaimVerdict::Holds, "{}", o.explanation);
        assert!(o.explanation.contains("pread: copy to user 60% [58–62], next syscall entry/exit 15% [13–17] (3000 samples)"), "{}", o.explanation);
        // Close to a rival: the CIs overlap.
        let close = profile_summary(&[(UserMemcpy, 0.45), (PageFault, 0.43)]);
        let o = judge_dominates("x", &[("mmap-copy", UserMemcpy, Some(&close))]);
        assert_eq!(o.verdict, ClaimVerdict::Inconclusive);
        // Another category clearly larger.
        let faults = profile_summary(&[(PageFault, 0.6), (UserMemcpy, 0.3)]);
        let o = judge_dominates(
            "x",
            &[
                ("pread", CopyToUser, Some(&read)),
                ("mmap-copy", UserMemcpy, Some(&faults)),
            ],
        );
        assert_eq!(o.verdict, ClaimVerdict::Reversed);
        let o = judge_dominates("x", &[("pread", Workload, Some(&read))]);
        assert_eq!(o.verdict, ClaimVerdict::Reversed, "no sample in it");
    }

    #[test]
    fn within_checks_the_ci_against_the_band() {
        let mmap = profile_summary(&[(UserMemcpy, 0.6), (PageFault, 0.33)]);
        let o = judge_within(
            "about a third",
            ("mmap-copy", PageFault, Some(&mmap)),
            (0.24, 0.48),
            "~36%",
        );
        assert_eq!(o.verdict, ClaimVerdict::Holds, "{}", o.explanation);
        assert!(
            o.explanation
                .contains("expected 24–48% (~36%); measured mmap-copy: page faults 33% [31–35]"),
            "{}",
            o.explanation
        );
        let low = profile_summary(&[(UserMemcpy, 0.9), (PageFault, 0.08)]);
        let o = judge_within(
            "x",
            ("mmap-copy", PageFault, Some(&low)),
            (0.24, 0.48),
            "~36%",
        );
        assert_eq!(o.verdict, ClaimVerdict::Reversed);
        let edge = profile_summary(&[(UserMemcpy, 0.7), (PageFault, 0.24)]);
        let o = judge_within(
            "x",
            ("mmap-copy", PageFault, Some(&edge)),
            (0.24, 0.48),
            "~36%",
        );
        assert_eq!(o.verdict, ClaimVerdict::Inconclusive);
        // None at all: 0%, clearly outside.
        let none = profile_summary(&[(UserMemcpy, 1.0)]);
        let o = judge_within(
            "x",
            ("mmap-copy", PageFault, Some(&none)),
            (0.24, 0.48),
            "~36%",
        );
        assert_eq!(o.verdict, ClaimVerdict::Reversed);
    }

    #[test]
    fn without_a_usable_profile_nothing_is_judged() {
        let o = judge_dominates("x", &[("pread", CopyToUser, None)]);
        assert_eq!(o.verdict, ClaimVerdict::Inconclusive);
        assert!(o.explanation.contains("run with --profile"));
        let mut user = profile_summary(&[(UserMemcpy, 1.0)]);
        user.mode = ProfileMode::UserOnly;
        let o = judge_within("x", ("m", PageFault, Some(&user)), (0.2, 0.4), "");
        assert_eq!(o.verdict, ClaimVerdict::Inconclusive);
        assert!(o.explanation.contains("user-only"));
    }
}
