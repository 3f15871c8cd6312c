//! The claim checker: does a published claim hold on this machine?
//!
//! A [`Claim`] is a set of paired comparisons (baseline case, other case)
//! and what the study expects of them ([`Expect`]). Each comparison's
//! paired time ratio and its 95% CI (from [`crate::stats`]) gives a
//! [`ClaimVerdict`]:
//!
//! - `Faster { by }`: **holds** when the CI's low end exceeds `by` (with
//!   `by = 1`: same sign as claimed, CI excludes 1); **reversed** when the CI
//!   lies below 1 (the opposite sign, CI excludes 1); otherwise
//!   **inconclusive**.
//! - `Similar { within }`: **holds** when the CI lies inside
//!   `[1/within, within]`; **reversed** when it lies wholly outside it;
//!   otherwise **inconclusive**.
//! - `Grows`: compares the first and the last pair (the smallest and the
//!   largest of an ordered series): **holds** when the last ratio's CI lies
//!   wholly above the first's, **reversed** when wholly below, otherwise
//!   **inconclusive**; `quorum` does not apply.
//!
//! A claim over several comparisons holds (or is reversed) when at least
//! `quorum` of them do; otherwise it is inconclusive. Every verdict comes
//! with an explanation drawn from the counters (sys time, faults, syscalls,
//! device requests per MiB; residency), as [`crate::report::verdict::evidence`]
//! words them. Nothing here measures or does I/O.
use serde::{Deserialize, Serialize};

use crate::plan::Case;
use crate::report::verdict::evidence;
use crate::stats::analysis::compare_cases;
use crate::stats::RatioEstimate;
use crate::stats::RunResults;

/// What a claim expects of `other` against `baseline` (time ratio
/// baseline / other: above 1 means `other` is faster).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Expect {
    /// `other` is faster by more than `by` times (1 for "faster").
    Faster {
        /// The least factor the claim names.
        by: f64,
    },
    /// The two are within `within` times of each other.
    Similar {
        /// The widest ratio still called similar, e.g. 1.25.
        within: f64,
    },
    /// `other`'s advantage grows along the pairs (ordered, e.g. by scale
    /// factor): holds when the last pair's ratio CI lies wholly above the
    /// first pair's; reversed when wholly below; inconclusive otherwise.
    Grows,
}

/// A published claim as a checkable comparison.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Claim {
    /// The claim in faultline's words, e.g. `mmap is faster than read for random 1-byte reads`.
    pub text: String,
    /// (baseline, other) pairs of cases of the plan.
    pub pairs: Vec<(Case, Case)>,
    /// What the claim expects of each pair.
    pub expect: Expect,
    /// Share of the pairs (0–1] that must agree for the claim to hold or be reversed.
    pub quorum: f64,
}

/// The three verdicts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClaimVerdict {
    /// Same sign as claimed, CI excludes 1 (or inside the similarity band).
    Holds,
    /// Opposite sign, CI excludes 1 (or wholly outside the similarity band).
    Reversed,
    /// The CI does not decide, or the comparisons disagree.
    Inconclusive,
}

impl ClaimVerdict {
    /// `holds`, `reversed` or `inconclusive`.
    pub fn word(self) -> &'static str {
        match self {
            ClaimVerdict::Holds => "holds",
            ClaimVerdict::Reversed => "reversed",
            ClaimVerdict::Inconclusive => "inconclusive",
        }
    }
}

impl std::fmt::Display for ClaimVerdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.word())
    }
}

/// One comparison of a claim, as the checker sees it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairInput {
    /// e.g. `625 KiB random 1 B: mmap vs read`.
    pub label: String,
    /// Time ratio baseline / other with its CI; `None` without enough samples.
    pub ratio: Option<RatioEstimate>,
    /// The counters behind it, `other vs baseline`.
    pub evidence: String,
}

/// The verdict on a claim with its explanation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClaimOutcome {
    /// The claim's text.
    pub claim: String,
    /// holds, reversed or inconclusive.
    pub verdict: ClaimVerdict,
    /// Why: how many comparisons agreed, the ratios, and the counters.
    pub explanation: String,
}

/// The verdict of one comparison.
pub fn pair_verdict(expect: Expect, r: &RatioEstimate) -> ClaimVerdict {
    match expect {
        Expect::Faster { by } => {
            if r.ci95_low > by.max(1.0) {
                ClaimVerdict::Holds
            } else if r.ci95_high < 1.0 {
                ClaimVerdict::Reversed
            } else {
                ClaimVerdict::Inconclusive
            }
        }
        Expect::Similar { within } => {
            let (lo, hi) = (1.0 / within, within);
            if r.ci95_low >= lo && r.ci95_high <= hi {
                ClaimVerdict::Holds
            } else if r.ci95_low > hi || r.ci95_high < lo {
                ClaimVerdict::Reversed
            } else {
                ClaimVerdict::Inconclusive
            }
        }
        // A trend needs two pairs: see [`judge_growth`].
        Expect::Grows => ClaimVerdict::Inconclusive,
    }
}

/// Judges a `Grows` claim: the last pair's ratio against the first's.
fn judge_growth(claim: &str, pairs: &[PairInput]) -> ClaimOutcome {
    let judged: Vec<(&PairInput, &RatioEstimate)> = pairs
        .iter()
        .filter_map(|p| p.ratio.as_ref().map(|r| (p, r)))
        .collect();
    let (first, last) = match (judged.first(), judged.last()) {
        (Some(f), Some(l)) if judged.len() >= 2 => (*f, *l),
        _ => {
            return ClaimOutcome {
                claim: claim.to_string(),
                verdict: ClaimVerdict::Inconclusive,
                explanation: "a trend needs two comparisons with two or more paired samples each"
                    .to_string(),
            }
        }
    };
    let verdict = if last.1.ci95_low > first.1.ci95_high {
        ClaimVerdict::Holds
    } else if last.1.ci95_high < first.1.ci95_low {
        ClaimVerdict::Reversed
    } else {
        ClaimVerdict::Inconclusive
    };
    let series = judged
        .iter()
        .map(|(p, r)| {
            format!(
                "{}: {:.2} [{:.2}–{:.2}]",
                p.label, r.ratio, r.ci95_low, r.ci95_high
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    let how = match verdict {
        ClaimVerdict::Holds => "the last ratio's CI lies above the first's",
        ClaimVerdict::Reversed => "the last ratio's CI lies below the first's",
        ClaimVerdict::Inconclusive => "the first and last ratios' CIs overlap",
    };
    ClaimOutcome {
        claim: claim.to_string(),
        verdict,
        explanation: format!(
            "expected the time ratio (baseline/other) to grow: {how}; {series}. {}: {}",
            last.0.label, last.0.evidence
        ),
    }
}

/// Judges a claim from its comparisons (pure: the core of [`check`]).
pub fn judge(claim: &str, expect: Expect, quorum: f64, pairs: &[PairInput]) -> ClaimOutcome {
    if expect == Expect::Grows {
        return judge_growth(claim, pairs);
    }
    let judged: Vec<(&PairInput, &RatioEstimate, ClaimVerdict)> = pairs
        .iter()
        .filter_map(|p| p.ratio.as_ref().map(|r| (p, r, pair_verdict(expect, r))))
        .collect();
    if judged.is_empty() {
        return ClaimOutcome {
            claim: claim.to_string(),
            verdict: ClaimVerdict::Inconclusive,
            explanation: "no comparison has two or more paired samples".to_string(),
        };
    }
    let n = judged.len();
    let count = |v: ClaimVerdict| judged.iter().filter(|j| j.2 == v).count();
    let (holds, reversed) = (count(ClaimVerdict::Holds), count(ClaimVerdict::Reversed));
    let need = ((quorum.clamp(0.0, 1.0) * n as f64).ceil() as usize).max(1);
    let verdict = if holds >= need {
        ClaimVerdict::Holds
    } else if reversed >= need {
        ClaimVerdict::Reversed
    } else {
        ClaimVerdict::Inconclusive
    };
    let expected = match expect {
        Expect::Faster { by } if by > 1.0 => format!("expected faster by more than {by}x"),
        Expect::Faster { .. } => "expected faster".to_string(),
        Expect::Similar { within } => format!("expected within {within}x"),
        Expect::Grows => "expected growth".to_string(),
    };
    let mut text = format!(
        "{expected}: held in {holds} of {n} comparison(s), reversed in {reversed}, \
         inconclusive in {}",
        n - holds - reversed
    );
    let (lo, hi) = judged.iter().fold((f64::MAX, f64::MIN), |(lo, hi), j| {
        (lo.min(j.1.ratio), hi.max(j.1.ratio))
    });
    text.push_str(&format!(
        "; time ratio (baseline/other) {}",
        if n == 1 {
            format!(
                "{:.2} [95% CI {:.2}–{:.2}]",
                judged[0].1.ratio, judged[0].1.ci95_low, judged[0].1.ci95_high
            )
        } else {
            format!("from {lo:.2} to {hi:.2}")
        }
    ));
    // The counters of the comparison that speaks for the verdict: one that
    // agrees with it, else the one nearest to 1.
    let telling = judged.iter().find(|j| j.2 == verdict).unwrap_or_else(|| {
        judged
            .iter()
            .min_by(|a, b| a.1.ratio.ln().abs().total_cmp(&b.1.ratio.ln().abs()))
            .expect("not empty")
    });
    text.push_str(&format!(
        ". {} ({:.2}x [{:.2}–{:.2}]): {}",
        telling.0.label,
        telling.1.ratio,
        telling.1.ci95_low,
        telling.1.ci95_high,
        telling.0.evidence
    ));
    ClaimOutcome {
        claim: claim.to_string(),
        verdict,
        explanation: text,
    }
}

/// Checks `claim` against a run's results.
pub fn check(claim: &Claim, results: &RunResults) -> ClaimOutcome {
    let find = |case: &Case| results.cases.iter().find(|c| &c.case == case);
    let pairs: Vec<PairInput> = claim
        .pairs
        .iter()
        .map(|(b, o)| {
            let (base, other) = (find(b), find(o));
            let label = format!(
                "{}; {} file: {} vs {}",
                o.group_label(),
                crate::size::format_size(o.file_size),
                o.method_label(),
                b.method_label()
            );
            let (ratio, counters) = match (base, other) {
                (Some(base), Some(other)) => {
                    let ratio =
                        compare_cases(&base.samples, &other.samples, results.settings.metric);
                    let counters = match (&other.summary, &base.summary) {
                        (Some(os), Some(bs)) => format!(
                            "{}, residency {:.0}% vs {:.0}%",
                            evidence(os, bs),
                            os.residency_before * 100.0,
                            bs.residency_before * 100.0
                        ),
                        _ => "no counters".to_string(),
                    };
                    (ratio, counters)
                }
                _ => (None, "case not run".to_string()),
            };
            PairInput {
                label,
                ratio,
                evidence: counters,
            }
        })
        .collect();
    judge(&claim.text, claim.expect, claim.quorum, &pairs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::paired_ratio;

    fn pair(base: &[f64], other: &[f64]) -> PairInput {
        PairInput {
            label: "synthetic".into(),
            ratio: paired_ratio(base, other),
            evidence: "sys 0.10 vs 0.40 ms/MiB".into(),
        }
    }

    const FASTER: Expect = Expect::Faster { by: 1.0 };

    #[test]
    fn holds_when_other_is_clearly_faster() {
        let p = pair(&[2.0, 2.1, 1.9, 2.05], &[1.0, 1.02, 0.98, 1.01]);
        let o = judge("mmap is faster", FASTER, 1.0, &[p]);
        assert_eq!(o.verdict, ClaimVerdict::Holds, "{}", o.explanation);
        assert!(o.explanation.contains("sys 0.10 vs 0.40"));
    }

    #[test]
    fn reversed_when_other_is_clearly_slower() {
        let p = pair(&[1.0, 1.02, 0.98, 1.01], &[2.0, 2.1, 1.9, 2.05]);
        let o = judge("mmap is faster", FASTER, 1.0, &[p]);
        assert_eq!(o.verdict, ClaimVerdict::Reversed, "{}", o.explanation);
    }

    #[test]
    fn inconclusive_when_the_ci_straddles_one() {
        let p = pair(&[1.0, 2.0, 1.0, 2.0], &[2.0, 1.0, 1.9, 1.1]);
        let o = judge("mmap is faster", FASTER, 1.0, &[p]);
        assert_eq!(o.verdict, ClaimVerdict::Inconclusive, "{}", o.explanation);
        let none = judge("x", FASTER, 1.0, &[pair(&[1.0], &[1.0])]);
        assert_eq!(none.verdict, ClaimVerdict::Inconclusive);
    }

    #[test]
    fn a_claimed_factor_must_be_exceeded() {
        // 2x faster, CI excludes 1, but the claim says 10x.
        let p = pair(&[2.0, 2.1, 1.9, 2.05], &[1.0, 1.02, 0.98, 1.01]);
        let o = judge("100x", Expect::Faster { by: 10.0 }, 1.0, &[p]);
        assert_eq!(o.verdict, ClaimVerdict::Inconclusive);
    }

    #[test]
    fn similar_holds_inside_the_band_and_reverses_outside() {
        let close = pair(&[1.0, 1.01, 0.99, 1.0], &[1.02, 1.0, 1.0, 0.99]);
        let far = pair(&[3.0, 3.1, 2.9, 3.0], &[1.0, 1.0, 1.0, 1.01]);
        let sim = Expect::Similar { within: 1.25 };
        assert_eq!(judge("s", sim, 1.0, &[close]).verdict, ClaimVerdict::Holds);
        assert_eq!(judge("s", sim, 1.0, &[far]).verdict, ClaimVerdict::Reversed);
    }

    #[test]
    fn a_quorum_decides_over_several_comparisons() {
        let fast = pair(&[2.0, 2.1, 1.9, 2.05], &[1.0, 1.02, 0.98, 1.01]);
        let slow = pair(&[1.0, 1.02, 0.98, 1.01], &[2.0, 2.1, 1.9, 2.05]);
        let pairs = [fast.clone(), fast.clone(), fast, slow];
        assert_eq!(
            judge("q", FASTER, 0.75, &pairs).verdict,
            ClaimVerdict::Holds
        );
        let o = judge("q", FASTER, 1.0, &pairs);
        assert_eq!(o.verdict, ClaimVerdict::Inconclusive);
        assert!(
            o.explanation.contains("held in 3 of 4"),
            "{}",
            o.explanation
        );
    }

    #[test]
    fn growth_holds_reverses_or_is_inconclusive() {
        let small = pair(&[1.1, 1.12, 1.08, 1.1], &[1.0, 1.0, 1.0, 1.0]);
        let mid = pair(&[1.5, 1.4, 1.6, 1.5], &[1.0, 1.0, 1.0, 1.0]);
        let large = pair(&[2.0, 2.1, 1.9, 2.05], &[1.0, 1.02, 0.98, 1.01]);
        let noisy = pair(&[1.0, 3.0, 1.2, 2.5], &[1.0, 1.0, 1.0, 1.0]);
        let g = |pairs: &[PairInput]| judge("grows", Expect::Grows, 1.0, pairs);
        let o = g(&[small.clone(), mid.clone(), large.clone()]);
        assert_eq!(o.verdict, ClaimVerdict::Holds, "{}", o.explanation);
        assert!(o.explanation.contains("grow"), "{}", o.explanation);
        let o = g(&[large.clone(), mid, small.clone()]);
        assert_eq!(o.verdict, ClaimVerdict::Reversed, "{}", o.explanation);
        let o = g(&[small.clone(), noisy]);
        assert_eq!(o.verdict, ClaimVerdict::Inconclusive, "{}", o.explanation);
        assert_eq!(g(&[large]).verdict, ClaimVerdict::Inconclusive, "one pair");
        assert_eq!(
            pair_verdict(Expect::Grows, small.ratio.as_ref().unwrap()),
            ClaimVerdict::Inconclusive
        );
    }
}
