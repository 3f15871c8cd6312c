//! The claim checker: does a published claim hold on this machine, at the
//! size the study stated?
//!
//! A [`Claim`] is a set of paired comparisons (baseline case, other case),
//! the published figure in the study's terms, and what that figure means as
//! data ([`Expect`]): a [`Published`] effect (a direction and a ratio with
//! a tolerance, a range, a bound, or "similar") that every pair is judged
//! against, one such effect per pair, or a trend along a factor.
//!
//! Each comparison's paired time ratio gives a 90% CI of the advantage in
//! the claimed direction, and [`crate::stats::effect`] judges it against the
//! published band with two one-sided tests: **holds** (the CI inside the
//! band), **smaller than published**, **larger than published**,
//! **reversed**, or **inconclusive**. A claim over several comparisons takes
//! the verdict that at least `quorum` of them share, in this order: holds;
//! reversed; smaller (counting the reversed ones, which are smaller still);
//! larger; otherwise inconclusive.
//!
//! A trend claim ([`Expect::Trend`]) fits the slope of the log ratio on the
//! log factor over every pair ([`crate::stats::trend`]) and judges the
//! factor the ratio multiplies by per doubling against its published band.
//!
//! Every verdict comes with the CI and the published value side by side
//! ([`ClaimOutcome::pairs`]), and an explanation drawn from the counters
//! (sys time, faults, syscalls, device requests per MiB; residency), as
//! [`crate::report::verdict::evidence`] words them. Nothing here measures
//! or does I/O.
use serde::{Deserialize, Serialize};

use crate::plan::Case;
use crate::report::verdict::evidence;
use crate::stats::analysis::compare_cases;
use crate::stats::effect::{self, EffectVerdict, LogRatios, Published, CLAIM_LEVEL};
use crate::stats::trend::trend;
use crate::stats::RatioEstimate;
use crate::stats::RunResults;

/// What a claim's published figure means as data. Time ratios are
/// baseline / other: above 1 means `other` is faster.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Expect {
    /// Every pair is judged against this effect.
    Effect(Published),
    /// Each pair against its own effect (as many as pairs, in order), e.g.
    /// a published table's ratio at each factor.
    EachEffect(Vec<Published>),
    /// The time ratio changes along `factors` (one per pair, e.g. the
    /// reduction factor): the factor it multiplies by per doubling of
    /// `factors`, fitted over every pair, judged against `per_doubling`.
    Trend {
        /// The factor of each pair, in the order of the pairs.
        factors: Vec<f64>,
        /// The published change per doubling of the factor.
        per_doubling: Published,
    },
}

/// A published claim as a checkable comparison.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Claim {
    /// The claim in faultline's words, saying what its rule checks.
    pub text: String,
    /// (baseline, other) pairs of cases of the plan.
    pub pairs: Vec<(Case, Case)>,
    /// What the published figure means as data.
    pub expect: Expect,
    /// Share of the pairs (0–1] that must share a verdict for the claim to
    /// take it (not used by a trend).
    pub quorum: f64,
    /// The published figure as the study gives it and where it comes from,
    /// e.g. `about 100x at 625 kB (report, section 3)`.
    pub published: String,
}

/// The five verdicts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClaimVerdict {
    /// The 90% CI lies inside the published band.
    Holds,
    /// The CI lies on the claimed side of 1 but below the band (or, for a
    /// band around 1, below it).
    #[serde(rename = "smaller-than-published")]
    Smaller,
    /// The CI lies above the band.
    #[serde(rename = "larger-than-published")]
    Larger,
    /// The CI lies on the other side of 1 than the claimed direction.
    Reversed,
    /// The CI straddles an edge of the band, or the comparisons disagree.
    Inconclusive,
}

impl ClaimVerdict {
    /// `holds`, `smaller than published`, `larger than published`,
    /// `reversed` or `inconclusive`.
    pub fn word(self) -> &'static str {
        match self {
            ClaimVerdict::Holds => "holds",
            ClaimVerdict::Smaller => "smaller than published",
            ClaimVerdict::Larger => "larger than published",
            ClaimVerdict::Reversed => "reversed",
            ClaimVerdict::Inconclusive => "inconclusive",
        }
    }

    /// The word with dashes (`smaller-than-published`), for HTML classes
    /// and exports.
    pub fn slug(self) -> &'static str {
        match self {
            ClaimVerdict::Smaller => "smaller-than-published",
            ClaimVerdict::Larger => "larger-than-published",
            other => other.word(),
        }
    }

    /// All five, in the order the module documentation gives.
    pub const ALL: [ClaimVerdict; 5] = [
        ClaimVerdict::Holds,
        ClaimVerdict::Smaller,
        ClaimVerdict::Larger,
        ClaimVerdict::Reversed,
        ClaimVerdict::Inconclusive,
    ];
}

impl From<EffectVerdict> for ClaimVerdict {
    fn from(v: EffectVerdict) -> ClaimVerdict {
        match v {
            EffectVerdict::Holds => ClaimVerdict::Holds,
            EffectVerdict::Smaller => ClaimVerdict::Smaller,
            EffectVerdict::Larger => ClaimVerdict::Larger,
            EffectVerdict::Reversed => ClaimVerdict::Reversed,
            EffectVerdict::Inconclusive => ClaimVerdict::Inconclusive,
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
    /// Time ratio baseline / other with its 95% CI; `None` without enough samples.
    pub ratio: Option<RatioEstimate>,
    /// The counters behind it, `other vs baseline`.
    pub evidence: String,
}

/// One row of a verdict's side-by-side table: a comparison's measured
/// advantage and CI beside the published value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairOutcome {
    /// The comparison (or `trend: per doubling of the factor`).
    pub label: String,
    /// Measured advantage in the claimed direction (time ratio for a trend row's points).
    pub measured: Option<f64>,
    /// Its CI at [`ClaimOutcome::level`].
    pub ci: Option<(f64, f64)>,
    /// The published band it is judged against, in words (`-` when none).
    pub published: String,
    /// Its own verdict, when it is judged alone.
    pub verdict: Option<ClaimVerdict>,
}

/// The verdict on a claim with its explanation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClaimOutcome {
    /// The claim's text.
    pub claim: String,
    /// One of the five verdicts.
    pub verdict: ClaimVerdict,
    /// Why: how many comparisons agreed, the ratios, and the counters.
    pub explanation: String,
    /// The published figure as the study gives it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub published: String,
    /// The CI level of the verdict (0.90: two one-sided tests at 5%).
    #[serde(default)]
    pub level: f64,
    /// Measured beside published, one row per comparison (and the trend).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pairs: Vec<PairOutcome>,
}

impl ClaimOutcome {
    /// The side-by-side rows as a table: comparison, measured with its CI,
    /// published band, verdict.
    pub fn side_by_side(&self) -> crate::report::text_table::Table {
        let rows = self
            .pairs
            .iter()
            .map(|p| {
                vec![
                    p.label.clone(),
                    match (p.measured, p.ci) {
                        (Some(m), Some((l, h))) => {
                            format!("{} [{}–{}]", short2(m), short2(l), short2(h))
                        }
                        _ => "-".into(),
                    },
                    p.published.clone(),
                    p.verdict.map_or("-".into(), |v| v.word().to_string()),
                ]
            })
            .collect();
        crate::report::text_table::Table::new(
            &format!("published: {}", self.published),
            &[
                "comparison",
                &format!("measured [{:.0}% CI]", self.level * 100.0),
                "published",
                "verdict",
            ],
            rows,
        )
    }
}

impl ClaimOutcome {
    /// The claim as terminal text: `[verdict] claim`, the published figure
    /// with each comparison's measured CI beside its published band, then
    /// the explanation.
    pub fn render_text(&self) -> String {
        let mut out = format!("  [{}] {}\n", self.verdict, self.claim);
        for line in self.side_by_side().render_text().lines() {
            out.push_str(&format!("      {line}\n"));
        }
        out.push_str(&format!("      {}\n", self.explanation));
        out
    }
}

/// A measured factor with two decimals (three significant digits above 100).
fn short2(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.2}")
    }
}

/// Judges a claim from its comparisons (pure: the core of [`check`]).
pub fn judge(
    claim: &str,
    expect: &Expect,
    quorum: f64,
    published: &str,
    pairs: &[PairInput],
) -> ClaimOutcome {
    let outcome = match expect {
        Expect::Trend {
            factors,
            per_doubling,
        } => judge_trend(claim, factors, per_doubling, pairs),
        Expect::Effect(p) => judge_effects(claim, &vec![*p; pairs.len()], quorum, pairs),
        Expect::EachEffect(each) => judge_effects(claim, each, quorum, pairs),
    };
    ClaimOutcome {
        published: published.to_string(),
        level: CLAIM_LEVEL,
        ..outcome
    }
}

/// Judges each pair against its effect, then the claim by quorum.
fn judge_effects(
    claim: &str,
    effects: &[Published],
    quorum: f64,
    pairs: &[PairInput],
) -> ClaimOutcome {
    let mut rows = Vec::new();
    let mut judged: Vec<(&PairInput, ClaimVerdict, effect::EffectOutcome)> = Vec::new();
    for (i, p) in pairs.iter().enumerate() {
        let Some(published) = effects.get(i) else {
            continue;
        };
        let outcome = p
            .ratio
            .as_ref()
            .and_then(|r| effect::judge(published, r, CLAIM_LEVEL));
        rows.push(PairOutcome {
            label: p.label.clone(),
            measured: outcome.as_ref().map(|o| o.advantage),
            ci: outcome.as_ref().map(|o| o.ci),
            published: published.band_words(),
            verdict: outcome.as_ref().map(|o| o.verdict.into()),
        });
        if let Some(o) = outcome {
            judged.push((p, o.verdict.into(), o));
        }
    }
    if judged.is_empty() {
        return ClaimOutcome {
            claim: claim.to_string(),
            verdict: ClaimVerdict::Inconclusive,
            explanation: "no comparison has two or more paired samples".to_string(),
            published: String::new(),
            level: CLAIM_LEVEL,
            pairs: rows,
        };
    }
    let n = judged.len();
    let count = |v: ClaimVerdict| judged.iter().filter(|j| j.1 == v).count();
    let [holds, smaller, larger, reversed, inconclusive] = ClaimVerdict::ALL.map(count);
    let need = ((quorum.clamp(0.0, 1.0) * n as f64).ceil() as usize).max(1);
    let verdict = if holds >= need {
        ClaimVerdict::Holds
    } else if reversed >= need {
        ClaimVerdict::Reversed
    } else if smaller + reversed >= need {
        ClaimVerdict::Smaller
    } else if larger >= need {
        ClaimVerdict::Larger
    } else {
        ClaimVerdict::Inconclusive
    };
    let mut text = if n == 1 {
        let o = &judged[0].2;
        format!(
            "measured {} [{:.0}% CI {}–{}] against the published {}",
            short2(o.advantage),
            o.level * 100.0,
            short2(o.ci.0),
            short2(o.ci.1),
            effects[0].band_words()
        )
    } else {
        format!(
            "{need} of {n} comparisons must agree: {holds} hold, {smaller} smaller, {larger} larger, \
             {reversed} reversed, {inconclusive} inconclusive"
        )
    };
    // The counters of the comparison that speaks for the verdict: one that
    // shares it, else the one nearest to 1.
    let telling = judged
        .iter()
        .find(|j| {
            j.1 == verdict || (verdict == ClaimVerdict::Smaller && j.1 == ClaimVerdict::Reversed)
        })
        .unwrap_or_else(|| {
            judged
                .iter()
                .min_by(|a, b| {
                    a.2.advantage
                        .ln()
                        .abs()
                        .total_cmp(&b.2.advantage.ln().abs())
                })
                .expect("not empty")
        });
    let r = telling.0.ratio.as_ref().expect("judged pairs have a ratio");
    text.push_str(&format!(
        ". {} (time ratio {:.2}x, 95% CI {:.2}–{:.2}): {}",
        telling.0.label, r.ratio, r.ci95_low, r.ci95_high, telling.0.evidence
    ));
    ClaimOutcome {
        claim: claim.to_string(),
        verdict,
        explanation: text,
        published: String::new(),
        level: CLAIM_LEVEL,
        pairs: rows,
    }
}

/// Judges a trend claim: the slope of the log ratio on the log factor over
/// every pair, as a factor per doubling, against `per_doubling`.
fn judge_trend(
    claim: &str,
    factors: &[f64],
    per_doubling: &Published,
    pairs: &[PairInput],
) -> ClaimOutcome {
    let mut rows: Vec<PairOutcome> = pairs
        .iter()
        .map(|p| {
            let ci = p
                .ratio
                .as_ref()
                .and_then(LogRatios::of_estimate)
                .map(|l| l.ratio_ci(CLAIM_LEVEL));
            PairOutcome {
                label: p.label.clone(),
                measured: p.ratio.as_ref().map(|r| r.ratio),
                ci,
                published: "-".into(),
                verdict: None,
            }
        })
        .collect();
    let points: Vec<(f64, LogRatios)> = pairs
        .iter()
        .zip(factors)
        .filter_map(|(p, &f)| Some((f, LogRatios::of_estimate(p.ratio.as_ref()?)?)))
        .collect();
    let Some(t) = trend(&points, CLAIM_LEVEL) else {
        return ClaimOutcome {
            claim: claim.to_string(),
            verdict: ClaimVerdict::Inconclusive,
            explanation: "a trend needs three or more comparisons at two or more factors, with two or more paired samples each".to_string(),
            published: String::new(),
            level: CLAIM_LEVEL,
            pairs: rows,
        };
    };
    let o = effect::judge_ci(
        per_doubling,
        t.per_doubling(),
        t.per_doubling_ci(),
        CLAIM_LEVEL,
    );
    let verdict: ClaimVerdict = o.verdict.into();
    rows.push(PairOutcome {
        label: format!(
            "trend over {} factors: ratio per doubling of the factor",
            t.points
        ),
        measured: Some(o.advantage),
        ci: Some(o.ci),
        published: per_doubling.band_words(),
        verdict: Some(verdict),
    });
    let direction = if o.ci.0 > 1.0 {
        "the ratio rises with the factor (CI above 1)"
    } else if o.ci.1 < 1.0 {
        "the ratio falls with the factor (CI below 1)"
    } else {
        "no rise or fall is shown (CI contains 1)"
    };
    let last = pairs.iter().rev().find(|p| p.ratio.is_some());
    ClaimOutcome {
        claim: claim.to_string(),
        verdict,
        explanation: format!(
            "least-squares slope of the log time ratio on the log factor over {} comparisons: \
             x{} per doubling of the factor [{:.0}% CI {}–{}, {:.1} df] against the published {}; \
             {direction}.{}",
            t.points,
            short2(o.advantage),
            CLAIM_LEVEL * 100.0,
            short2(o.ci.0),
            short2(o.ci.1),
            t.df,
            per_doubling.band_words(),
            last.map_or(String::new(), |p| format!(" {}: {}", p.label, p.evidence)),
        ),
        published: String::new(),
        level: CLAIM_LEVEL,
        pairs: rows,
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
                    let ratio = compare_cases(
                        &base.counted_samples(),
                        &other.counted_samples(),
                        results.settings.metric,
                    );
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
    judge(
        &claim.text,
        &claim.expect,
        claim.quorum,
        &claim.published,
        &pairs,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::effect::{t_quantile, Size};
    use crate::stats::paired_ratio;

    const N: usize = 5;

    /// A comparison whose 90% CI of the time ratio is `[lo, hi]` (and whose
    /// 95% CI is what [`paired_ratio`] would give for it with `N` pairs).
    fn ci90(lo: f64, hi: f64) -> PairInput {
        let m = (lo.ln() + hi.ln()) / 2.0;
        let se = (hi.ln() - lo.ln()) / 2.0 / t_quantile(0.95, (N - 1) as f64);
        let h95 = se * t_quantile(0.975, (N - 1) as f64);
        PairInput {
            label: format!("synthetic {lo}–{hi}"),
            ratio: Some(RatioEstimate {
                ratio: m.exp(),
                ci95_low: (m - h95).exp(),
                ci95_high: (m + h95).exp(),
                pairs: N,
            }),
            evidence: "sys 0.10 vs 0.40 ms/MiB".into(),
        }
    }

    fn pair(base: &[f64], other: &[f64]) -> PairInput {
        PairInput {
            label: "synthetic".into(),
            ratio: paired_ratio(base, other),
            evidence: "sys 0.10 vs 0.40 ms/MiB".into(),
        }
    }

    fn verdict(p: Published, lo: f64, hi: f64) -> ClaimVerdict {
        judge("c", &Expect::Effect(p), 1.0, "p", &[ci90(lo, hi)]).verdict
    }

    /// Just inside (`+`) or outside (`-`) an edge, by a relative 1e-6.
    fn above(x: f64) -> f64 {
        x * (1.0 + 1e-6)
    }
    fn below(x: f64) -> f64 {
        x * (1.0 - 1e-6)
    }

    use ClaimVerdict::*;

    #[test]
    fn a_range_at_its_edges_gives_all_five_verdicts() {
        // fedorova2019's "2–6x".
        let p = Published::faster(Size::Range {
            low: 2.0,
            high: 6.0,
        });
        assert_eq!(verdict(p, above(2.0), below(6.0)), Holds);
        assert_eq!(verdict(p, 1.2, below(2.0)), Smaller);
        assert_eq!(verdict(p, above(6.0), 9.0), Larger);
        assert_eq!(verdict(p, 0.5, below(1.0)), Reversed);
        assert_eq!(verdict(p, below(2.0), 3.0), Inconclusive, "straddles 2");
        assert_eq!(verdict(p, 5.0, above(6.0)), Inconclusive, "straddles 6");
        assert_eq!(
            verdict(p, 0.9, above(1.0)),
            Smaller,
            "no effect shown, below 2"
        );
        assert_eq!(verdict(p, 0.9, above(2.0)), Inconclusive);
    }

    #[test]
    fn a_ratio_with_a_tolerance_at_its_edges_gives_all_five_verdicts() {
        // write2020's 1.17 (1.343 s / 1.150 s), ×/÷ 1.10.
        let p = Published::faster(Size::Ratio {
            value: 1.17,
            tolerance: 0.10,
        });
        let (l, h) = p.band();
        assert_eq!(verdict(p, above(l), below(h)), Holds);
        assert_eq!(verdict(p, above(1.0), below(l)), Smaller);
        assert_eq!(verdict(p, above(h), 2.0), Larger);
        assert_eq!(verdict(p, 0.8, below(1.0)), Reversed);
        assert_eq!(verdict(p, below(l), below(h)), Inconclusive);
        assert_eq!(verdict(p, above(l), above(h)), Inconclusive);
    }

    #[test]
    fn a_bound_and_a_direction_at_their_edges() {
        // "about 100 times" is a ratio; "at least 10x" a bound: no upper edge.
        let p = Published::faster(Size::AtLeast(10.0));
        assert_eq!(verdict(p, above(10.0), 1e4), Holds);
        assert_eq!(verdict(p, 2.0, below(10.0)), Smaller);
        assert_eq!(verdict(p, 0.2, below(1.0)), Reversed);
        assert_eq!(verdict(p, below(10.0), 20.0), Inconclusive);
        let faster = Published::faster(Size::AtLeast(1.0));
        assert_eq!(verdict(faster, above(1.0), 1.1), Holds);
        assert_eq!(verdict(faster, 0.9, below(1.0)), Reversed);
        assert_eq!(verdict(faster, below(1.0), 1.1), Inconclusive);
        // A "slower" claim reads the same CI inverted.
        let slower = Published::slower(Size::AtLeast(1.0));
        assert_eq!(verdict(slower, 0.5, below(1.0)), Holds);
        assert_eq!(verdict(slower, above(1.0), 2.0), Reversed);
    }

    #[test]
    fn similar_is_a_band_around_one_never_reversed() {
        let p = Published::similar(1.5);
        assert_eq!(verdict(p, above(1.0 / 1.5), below(1.5)), Holds);
        assert_eq!(verdict(p, 0.2, below(1.0 / 1.5)), Smaller);
        assert_eq!(verdict(p, above(1.5), 3.0), Larger);
        assert_eq!(verdict(p, 0.5, 0.9), Inconclusive);
    }

    #[test]
    fn the_explanation_and_table_set_the_ci_beside_the_published_value() {
        let p = Published::faster(Size::Ratio {
            value: 100.0,
            tolerance: 1.0,
        });
        let o = judge(
            "about 100x",
            &Expect::Effect(p),
            1.0,
            "about 100 times at 625 kB",
            &[ci90(280.0, 300.0)],
        );
        assert_eq!(o.verdict, Larger);
        assert!(
            o.explanation.contains("[90% CI 280–300]"),
            "{}",
            o.explanation
        );
        assert!(
            o.explanation.contains("published 50–200x"),
            "{}",
            o.explanation
        );
        assert!(
            o.explanation.contains("sys 0.10 vs 0.40"),
            "{}",
            o.explanation
        );
        assert_eq!(o.published, "about 100 times at 625 kB");
        let table = o.side_by_side().render_text();
        for text in [
            "measured [90% CI]",
            "290 [280–300]",
            "50–200x",
            "larger than published",
        ] {
            assert!(table.contains(text), "{text}: {table}");
        }
    }

    #[test]
    fn a_quorum_decides_over_several_comparisons() {
        let p = Published::faster(Size::Range {
            low: 2.0,
            high: 6.0,
        });
        let inside = ci90(2.5, 3.5);
        let small = ci90(1.2, 1.5);
        let back = ci90(0.5, 0.8);
        let big = ci90(7.0, 9.0);
        let run = |q, pairs: &[PairInput]| judge("q", &Expect::Effect(p), q, "2–6x", pairs);
        let pairs = [
            inside.clone(),
            inside.clone(),
            inside.clone(),
            small.clone(),
        ];
        assert_eq!(run(0.75, &pairs).verdict, Holds);
        let o = run(1.0, &pairs);
        assert_eq!(o.verdict, Inconclusive);
        assert!(
            o.explanation
                .contains("4 of 4 comparisons must agree: 3 hold, 1 smaller"),
            "{}",
            o.explanation
        );
        // Smaller counts the reversed ones: they are smaller still.
        let pairs = [small.clone(), small.clone(), back.clone(), inside.clone()];
        assert_eq!(run(0.75, &pairs).verdict, Smaller);
        let pairs = [back.clone(), back.clone(), back, small];
        assert_eq!(run(0.75, &pairs).verdict, Reversed);
        let pairs = [big.clone(), big.clone(), big, inside];
        assert_eq!(run(0.75, &pairs).verdict, Larger);
        assert_eq!(run(1.0, &pairs).verdict, Inconclusive);
        // Without samples, nothing is decided.
        let none = judge("x", &Expect::Effect(p), 1.0, "", &[pair(&[1.0], &[1.0])]);
        assert_eq!(none.verdict, Inconclusive);
    }

    #[test]
    fn each_pair_can_carry_its_own_published_value() {
        // sun2002's Table 1: 1.14 at factor 2, 2.03 at factor 8.
        let at = |v| {
            Published::faster(Size::Ratio {
                value: v,
                tolerance: 0.10,
            })
        };
        let o = judge(
            "t1",
            &Expect::EachEffect(vec![at(1.14), at(2.03)]),
            1.0,
            "Table 1",
            &[ci90(1.10, 1.20), ci90(1.95, 2.10)],
        );
        assert_eq!(o.verdict, Holds, "{}", o.explanation);
        let o = judge(
            "t1",
            &Expect::EachEffect(vec![at(2.03), at(1.14)]),
            1.0,
            "Table 1",
            &[ci90(1.10, 1.20), ci90(1.95, 2.10)],
        );
        assert_eq!(o.pairs[0].verdict, Some(Smaller));
        assert_eq!(o.pairs[1].verdict, Some(Larger));
        assert_eq!(o.verdict, Inconclusive);
    }

    #[test]
    fn a_trend_uses_every_factor_and_is_judged_at_its_size() {
        let factors = vec![2.0, 3.0, 4.0, 8.0];
        // Ratios f^0.42 (×1.34 per doubling), tight.
        let series = |k: f64, sd: f64| -> Vec<PairInput> {
            factors
                .iter()
                .map(|f: &f64| {
                    let r = f.powf(k);
                    let base: Vec<f64> =
                        (0..6).map(|i| r * (1.0 + sd * (i as f64 - 2.5))).collect();
                    pair(&base, &[1.0; 6])
                })
                .collect()
        };
        let sized = Published::faster(Size::Ratio {
            value: 1.34,
            tolerance: 0.10,
        });
        let rises = Published::faster(Size::AtLeast(1.0));
        let run = |p: Published, pairs: &[PairInput]| {
            judge(
                "grows",
                &Expect::Trend {
                    factors: factors.clone(),
                    per_doubling: p,
                },
                1.0,
                "Table 1",
                pairs,
            )
        };
        let o = run(sized, &series(0.42, 0.01));
        assert_eq!(o.verdict, Holds, "{}", o.explanation);
        assert!(o.explanation.contains("rises"), "{}", o.explanation);
        assert_eq!(o.pairs.len(), 5, "four points and the trend row");
        assert_eq!(run(sized, &series(0.1, 0.01)).verdict, Smaller);
        assert_eq!(run(sized, &series(1.0, 0.01)).verdict, Larger);
        assert_eq!(run(sized, &series(-0.3, 0.01)).verdict, Reversed);
        assert_eq!(run(rises, &series(0.0, 0.2)).verdict, Inconclusive);
        // The middle factors count: the same ends with a flat middle is a
        // different slope from a straight rise.
        let mut bent = series(0.42, 0.01);
        bent[1] = series(0.0, 0.01)[1].clone();
        bent[2] = series(0.0, 0.01)[2].clone();
        let straight = run(sized, &series(0.42, 0.01)).pairs[4].measured.unwrap();
        let kinked = run(sized, &bent).pairs[4].measured.unwrap();
        assert!(kinked != straight, "{kinked} vs {straight}");
        // Too few points.
        assert_eq!(run(rises, &series(0.42, 0.01)[..2]).verdict, Inconclusive);
    }

    #[test]
    fn verdict_words_and_slugs() {
        assert_eq!(Smaller.word(), "smaller than published");
        assert_eq!(Larger.slug(), "larger-than-published");
        assert_eq!(
            serde_json::to_string(&Smaller).unwrap(),
            "\"smaller-than-published\""
        );
        assert_eq!(Holds.slug(), "holds");
    }
}
