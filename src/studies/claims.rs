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
//! published band: **holds**, **smaller than published**, **larger than
//! published**, **no effect**, **reversed**, **not similar** (for a band
//! around 1), or undecided while the CI straddles an edge that matters.
//!
//! **Honest under load.** A comparison whose trials were interfered with
//! (other processes' CPU or I/O during a trial) is judged from its clean
//! pairs only: the runs where neither trial was interfered. When those do
//! not decide it, it is undecided, and the claim is **unsettled: machine
//! busy** rather than decided from a busy machine's numbers.
//!
//! A claim over several comparisons takes the verdict that at least
//! `quorum` of them share (holds, then reversed, no effect, smaller, larger,
//! not similar). An undecided comparison counts as every verdict its CI
//! still allows ([`effect::possible_verdicts`]). When "holds" can no longer
//! reach the quorum, the claim is decided against it: **not similar**, or,
//! with none holding, **below published** (every comparison that cannot
//! hold lies below the band, not yet one of smaller, no effect, reversed)
//! or **larger than published**; else **mixed**. Otherwise it is
//! **unsettled**, with its reason ([`Reason`]) and what would settle it:
//! about how many more runs, from the comparisons' own spread
//! ([`crate::stats::power`]).
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

use crate::analysis::busy;
use crate::analysis::case_summary::compare_cases;
use crate::plan::Case;
use crate::report::claims::short2;
use crate::report::verdict::evidence;
pub use crate::results::claim::{ClaimOutcome, ClaimVerdict, PairOutcome, Reason, Unsettled};
use crate::results::RunResults;
use crate::results::Sample;
use crate::stats::effect::{self, EffectOutcome, EffectVerdict, LogRatios, Published, CLAIM_LEVEL};
use crate::stats::trend::trend;
use crate::stats::RatioEstimate;

/// Most paired runs a claim's comparison is planned for: beyond this an
/// estimate sits too close to an edge for any affordable run to settle.
pub const MAX_PLANNED_PAIRS: usize = 400;

/// A comparison whose runs were interfered with in at least this share is
/// unsettled unless its clean pairs decide it, and is not given more runs:
/// the machine is busy, and more runs on it would be just as busy. The
/// run's own verdicts use the same share ([`crate::analysis::busy`]).
pub use crate::analysis::busy::BUSY_SHARE;

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

impl Expect {
    /// The kind of published figure, for the exports: `ratio`, `range`,
    /// `bound`, `similar`, `per-comparison` or `trend`.
    pub fn kind(&self) -> &'static str {
        match self {
            Expect::Effect(p) => size_kind(p),
            Expect::EachEffect(_) => "per-comparison",
            Expect::Trend { .. } => "trend",
        }
    }
}

/// `ratio`, `range`, `bound` or `similar`.
fn size_kind(p: &Published) -> &'static str {
    match p.size {
        effect::Size::Ratio { .. } => "ratio",
        effect::Size::Range { .. } => "range",
        effect::Size::AtLeast(_) => "bound",
        effect::Size::Around { .. } => "similar",
    }
}

/// A published claim as a checkable comparison.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Claim {
    /// A short name, unique within its preset, e.g. `populate`.
    pub id: String,
    /// The claim in faultline's words, saying what its rule checks.
    pub text: String,
    /// (baseline, other) pairs of cases of the plan.
    pub pairs: Vec<(Case, Case)>,
    /// What the published figure means as data.
    pub expect: Expect,
    /// Share of the pairs (over ½, up to 1) that must share a verdict for
    /// the claim to take it (not used by a trend).
    pub quorum: f64,
    /// The published figure as the study gives it and where it comes from,
    /// e.g. `about 100x at 625 kB (report, section 3)`.
    pub published: String,
}

/// One comparison of a claim, as the checker sees it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairInput {
    /// e.g. `625 KiB random 1 B: mmap vs read`.
    pub label: String,
    /// Time ratio baseline / other with its 95% CI over every counted
    /// pair; `None` without enough samples.
    pub ratio: Option<RatioEstimate>,
    /// The same over the clean pairs only (neither trial interfered).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clean_ratio: Option<RatioEstimate>,
    /// Share of the counted pairs with an interfered trial (0–1).
    #[serde(default)]
    pub interfered_share: f64,
    /// The counters behind it, `other vs baseline`.
    pub evidence: String,
}

impl PairInput {
    /// A comparison measured on a quiet machine: every pair clean.
    pub fn quiet(label: &str, ratio: Option<RatioEstimate>, evidence: &str) -> PairInput {
        PairInput {
            label: label.to_string(),
            clean_ratio: ratio.clone(),
            ratio,
            interfered_share: 0.0,
            evidence: evidence.to_string(),
        }
    }
}

/// Every verdict one comparison can get: all but those a claim as a whole
/// gets from its comparisons (below published, mixed) and unsettled.
fn pair_verdicts() -> Vec<ClaimVerdict> {
    ClaimVerdict::ALL
        .into_iter()
        .filter(|v| {
            !matches!(
                v,
                ClaimVerdict::Below | ClaimVerdict::Mixed | ClaimVerdict::Unsettled
            )
        })
        .collect()
}

/// Where a comparison's verdict puts it against the published band.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    /// Holds: inside the band.
    Inside,
    /// Smaller than published, no effect or reversed.
    Below,
    /// Larger than published.
    Above,
    /// Not similar (a band around 1, either side).
    Outside,
}

fn side(v: ClaimVerdict) -> Side {
    match v {
        ClaimVerdict::Holds => Side::Inside,
        ClaimVerdict::Smaller | ClaimVerdict::NoEffect | ClaimVerdict::Reversed => Side::Below,
        ClaimVerdict::Larger => Side::Above,
        _ => Side::Outside,
    }
}

/// The claim verdict of a decided comparison; `None` for undecided.
fn of_effect(v: EffectVerdict) -> Option<ClaimVerdict> {
    Some(match v {
        EffectVerdict::Holds => ClaimVerdict::Holds,
        EffectVerdict::Smaller => ClaimVerdict::Smaller,
        EffectVerdict::Larger => ClaimVerdict::Larger,
        EffectVerdict::NoEffect => ClaimVerdict::NoEffect,
        EffectVerdict::Reversed => ClaimVerdict::Reversed,
        EffectVerdict::NotSimilar => ClaimVerdict::NotSimilar,
        EffectVerdict::Undecided => return None,
    })
}

/// One comparison judged: its verdict (decided or not), the estimate it
/// rests on, and how many more pairs would decide it.
struct Judged<'a> {
    input: &'a PairInput,
    verdict: Option<ClaimVerdict>,
    shown: Option<EffectOutcome>,
    /// The estimate the verdict rests on (clean pairs, when any were interfered).
    basis: Option<&'a RatioEstimate>,
    /// Undecided because interfered trials were set aside.
    busy: bool,
    /// More pairs the basis needs to decide, from its spread.
    more: Option<usize>,
    /// `more` only halves its CI: the estimate sits too near an edge for
    /// its spread to say how many runs would decide it.
    near_edge: bool,
    /// The verdicts its basis still allows: its own when decided; every
    /// verdict when nothing decides it (no clean pairs).
    possible: Vec<ClaimVerdict>,
    /// Whether it has a basis at all: a busy comparison with no clean
    /// pairs says nothing about where it lies.
    known: bool,
}

/// Judges one comparison against `published`, from its clean pairs when
/// any of its pairs were interfered with.
fn judge_pair<'a>(published: &Published, input: &'a PairInput) -> Judged<'a> {
    let judge = |r: &RatioEstimate| effect::judge(published, r, CLAIM_LEVEL);
    let interfered = input.interfered_share > 0.0;
    let basis = if interfered {
        input.clean_ratio.as_ref()
    } else {
        input.ratio.as_ref()
    };
    let on_basis = basis.and_then(judge);
    let verdict = on_basis.as_ref().and_then(|o| of_effect(o.verdict));
    let on_all = input.ratio.as_ref().and_then(judge);
    let busy = verdict.is_none()
        && interfered
        && (input.interfered_share >= BUSY_SHARE
            || on_all.as_ref().is_some_and(|o| o.verdict.decided()));
    let possible = match (verdict, &on_basis) {
        (Some(v), _) => vec![v],
        (None, Some(o)) => effect::possible_verdicts(o.ci.0, o.ci.1, o.band)
            .into_iter()
            .filter_map(of_effect)
            .collect(),
        (None, None) => pair_verdicts(),
    };
    let (more, near_edge) = match (&on_basis, basis) {
        (Some(o), Some(r)) if verdict.is_none() => {
            match more_pairs(o, r, possible.contains(&ClaimVerdict::Holds)) {
                Some((n, near)) => (Some(n), near),
                None => (None, true),
            }
        }
        _ => (None, false),
    };
    let known = on_basis.is_some();
    Judged {
        input,
        verdict,
        known,
        shown: on_basis.or(on_all),
        basis,
        busy,
        more,
        near_edge,
        possible,
    }
}

/// More pairs an estimate needs before its CI at the claim level is narrow
/// enough to settle what matters next, from its own spread, and whether
/// that number only halves the CI. While the CI still reaches the band
/// (`may_hold`), what matters is whether it holds: the CI must clear the
/// band's nearer edge (an estimate below the band need not also clear the
/// no-effect band to rule "holds" out). Once it cannot hold, the edge of
/// the finer verdict it is in. An estimate of a few noisy pairs may sit on
/// an edge by chance (fedorova2019's MAP_POPULATE read 1.35 [1.10–1.66] at
/// 8 pairs against a band from 1.36, and 1.05 on other passes), so the
/// target is never narrower than half the CI's present half-width: such a
/// comparison gets the runs that halve its CI, and is judged again.
/// `None` when even that is beyond [`MAX_PLANNED_PAIRS`].
fn more_pairs(o: &EffectOutcome, r: &RatioEstimate, may_hold: bool) -> Option<(usize, bool)> {
    let logs = LogRatios::of_estimate(r)?;
    let sd = logs.se * (logs.n as f64).sqrt();
    let point = o.advantage.ln();
    let to_edge = if may_hold {
        let (l, h) = (o.band.0.ln(), o.band.1.ln());
        if point < l {
            l - point
        } else if point > h {
            point - h
        } else {
            (point - l).min(h - point)
        }
    } else {
        effect::decisive_half_width(point, o.band)
    };
    let (lo, hi) = logs.ratio_ci(CLAIM_LEVEL);
    let halved = (hi.ln() - lo.ln()) / 4.0;
    let near_edge = to_edge < halved;
    let n =
        crate::stats::power::pairs_needed(sd, to_edge.max(halved), CLAIM_LEVEL, MAX_PLANNED_PAIRS)?;
    Some((n.saturating_sub(logs.n).max(1), near_edge))
}

/// The row of a judged comparison.
fn row(j: &Judged, published: &Published) -> PairOutcome {
    PairOutcome {
        label: j.input.label.clone(),
        measured: j.shown.as_ref().map(|o| o.advantage),
        ci: j.shown.as_ref().map(|o| o.ci),
        published: published.band_words(),
        verdict: j
            .shown
            .as_ref()
            .map(|_| j.verdict.unwrap_or(ClaimVerdict::Unsettled)),
        runs: j.basis.map_or(0, |r| r.pairs),
        interfered_share: j.input.interfered_share,
        possible: if j.verdict.is_none() && j.shown.is_some() {
            j.possible.clone()
        } else {
            Vec::new()
        },
        more_runs: j.verdict.is_none().then_some(j.more).flatten(),
        more_runs_only_halve: j.verdict.is_none() && j.near_edge,
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
        kind: expect.kind().to_string(),
        level: CLAIM_LEVEL,
        ..outcome
    }
}

/// The unsettled outcome of a claim: its reason and what would settle it,
/// from the undecided comparisons.
fn unsettled_by(undecided: &[&Judged], busy_share: f64) -> Unsettled {
    let busy = undecided.iter().filter(|j| j.busy).count();
    if busy > 0 && busy * 2 >= undecided.len() {
        return Unsettled {
            reason: Reason::MachineBusy,
            settle: format!(
                "{:.0}% of its paired runs had an interfered trial and the clean ones do not decide it; \
                 quiet the machine (stop other jobs) and run it again, or add --retry-interfered 3",
                busy_share * 100.0
            ),
            more_runs: None,
        };
    }
    let reachable: Vec<&&Judged> = undecided.iter().filter(|j| j.more.is_some()).collect();
    let on_edge = undecided.len() - reachable.len();
    let most = reachable.iter().max_by_key(|j| j.more);
    let edge_words = "an estimate lies on an edge of the published band: no affordable number of \
                      runs would settle it at this size; a larger file or --full changes the trial, \
                      not the edge";
    let settle = match most {
        Some(j) if j.near_edge => {
            let n = j.more.unwrap_or(0);
            let mut s = format!(
                "an estimate sits near an edge of the published band: about {n} more paired runs \
                 would halve its CI (most for {}), which decides it unless its true value is on \
                 the edge: raise --max-time, or --full",
                j.input.label
            );
            if on_edge > 0 {
                s.push_str(&format!(
                    "; {on_edge} more comparison(s) sit on an edge of the published band, which no \
                     affordable number of runs would settle"
                ));
            }
            s
        }
        Some(j) => {
            let n = j.more.unwrap_or(0);
            let mut s = format!(
                "needs about {n} more paired runs (most for {}): raise --max-time, or --full",
                j.input.label
            );
            if on_edge > 0 {
                s.push_str(&format!(
                    "; {on_edge} more comparison(s) sit on an edge of the published band, which no \
                     affordable number of runs would settle"
                ));
            }
            s
        }
        None => edge_words.to_string(),
    };
    Unsettled {
        reason: Reason::BudgetSpent,
        settle,
        more_runs: most.and_then(|j| j.more),
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
    let mut judged: Vec<(Judged, &Published)> = Vec::new();
    for (i, p) in pairs.iter().enumerate() {
        let Some(published) = effects.get(i) else {
            continue;
        };
        let j = judge_pair(published, p);
        rows.push(row(&j, published));
        if j.shown.is_some() {
            judged.push((j, published));
        }
    }
    if judged.len() < pairs.len() || judged.is_empty() {
        let missing = pairs
            .iter()
            .zip(effects)
            .filter(|(p, _)| p.ratio.is_none())
            .map(|(p, _)| p.label.as_str())
            .collect::<Vec<_>>();
        return ClaimOutcome {
            id: String::new(),
            claim: claim.to_string(),
            verdict: ClaimVerdict::Unsettled,
            unsettled: Some(Unsettled {
                reason: Reason::NotMeasured,
                settle:
                    "run every case the claim compares until it has two or more paired samples \
                         (see the failures above)"
                        .into(),
                more_runs: None,
            }),
            explanation: format!(
                "{} of {} comparisons have fewer than two paired samples: {}",
                missing.len(),
                pairs.len(),
                missing.join("; ")
            ),
            published: String::new(),
            kind: String::new(),
            level: CLAIM_LEVEL,
            pairs: rows,
            ..Default::default()
        };
    }
    let n = judged.len();
    let count = |v: ClaimVerdict| judged.iter().filter(|j| j.0.verdict == Some(v)).count();
    let undecided: Vec<&Judged> = judged
        .iter()
        .filter(|j| j.0.verdict.is_none())
        .map(|j| &j.0)
        .collect();
    let u = undecided.len();
    let need = ((quorum.clamp(0.0, 1.0) * n as f64).ceil() as usize).max(1);
    let order = [
        ClaimVerdict::Holds,
        ClaimVerdict::Reversed,
        ClaimVerdict::NoEffect,
        ClaimVerdict::Smaller,
        ClaimVerdict::Larger,
        ClaimVerdict::NotSimilar,
    ];
    // How many comparisons could still get `v`: those that have it and the
    // undecided ones whose CI allows it.
    let reachable =
        |v: ClaimVerdict| count(v) + undecided.iter().filter(|j| j.possible.contains(&v)).count();
    let reached = order.into_iter().find(|&v| count(v) >= need);
    let busy_share = judged
        .iter()
        .map(|j| j.0.input.interfered_share)
        .fold(0.0, f64::max);
    // A claim holds when the quorum of its comparisons hold. When too few
    // can still hold, whatever the undecided ones become, it is decided
    // against: by the verdict a quorum shares, else by where the
    // comparisons that cannot hold lie: all outside a "similar" band (not
    // similar); with none holding, all below the band ("below published":
    // smaller, no effect or reversed, not yet one of them) or all above it
    // (larger); else mixed. Otherwise it waits for runs.
    let holds_possible = reachable(ClaimVerdict::Holds) >= need;
    let against_sides: Vec<Side> = {
        let mut sides: Vec<Side> = judged
            .iter()
            .flat_map(|j| j.0.possible.iter().map(|&v| side(v)))
            .filter(|&s| s != Side::Inside)
            .collect();
        sides.sort_by_key(|s| *s as u8);
        sides.dedup();
        sides
    };
    // A busy comparison with no clean pairs could lie anywhere: the claim
    // cannot be placed against the band until it is known.
    let unknown = undecided.iter().any(|j| !j.known);
    let (verdict, unsettled) = match reached {
        Some(v) => (v, None),
        None if holds_possible || unknown => (
            ClaimVerdict::Unsettled,
            Some(unsettled_by(&undecided, busy_share)),
        ),
        None => match against_sides.as_slice() {
            [Side::Outside] => (ClaimVerdict::NotSimilar, None),
            [Side::Below] if count(ClaimVerdict::Holds) == 0 => (ClaimVerdict::Below, None),
            [Side::Above] if count(ClaimVerdict::Holds) == 0 => (ClaimVerdict::Larger, None),
            _ => (ClaimVerdict::Mixed, None),
        },
    };
    let counts = order
        .iter()
        .map(|&v| (v, count(v)))
        .filter(|&(_, c)| c > 0)
        .map(|(v, c)| format!("{c} {}", v.word()))
        .chain((u > 0).then(|| format!("{u} undecided")))
        .collect::<Vec<_>>()
        .join(", ");
    let mut text = if n == 1 {
        let o = judged[0]
            .0
            .shown
            .as_ref()
            .expect("judged pairs have an outcome");
        format!(
            "measured {} [{:.0}% CI {}–{}] against the published {}{}",
            short2(o.advantage),
            o.level * 100.0,
            short2(o.ci.0),
            short2(o.ci.1),
            judged[0].1.band_words(),
            if judged[0].0.input.interfered_share > 0.0 {
                format!(
                    " (clean pairs only: {:.0}% of the pairs had an interfered trial)",
                    judged[0].0.input.interfered_share * 100.0
                )
            } else {
                String::new()
            }
        )
    } else {
        format!("{need} of {n} comparisons must agree: {counts}")
    };
    if reached.is_none() && !holds_possible {
        let can_hold = reachable(ClaimVerdict::Holds);
        text.push_str(&format!(
            "; at most {can_hold} of {n} can still hold, fewer than the {need} it needs"
        ));
        if u > 0 && matches!(verdict, ClaimVerdict::Below | ClaimVerdict::Mixed) {
            let between = undecided
                .iter()
                .map(|j| {
                    j.possible
                        .iter()
                        .map(|v| v.word())
                        .collect::<Vec<_>>()
                        .join(" or ")
                })
                .collect::<Vec<_>>();
            let mut uniq = between.clone();
            uniq.sort();
            uniq.dedup();
            text.push_str(&format!(
                " (the undecided: {})",
                uniq.iter()
                    .map(|w| format!("{} {w}", between.iter().filter(|b| *b == w).count()))
                    .collect::<Vec<_>>()
                    .join("; ")
            ));
        }
    }
    // The counters of the comparison that speaks for the verdict: one that
    // shares it, else the one nearest to 1.
    let telling = judged
        .iter()
        .find(|j| j.0.verdict == Some(verdict))
        .unwrap_or_else(|| {
            judged
                .iter()
                .min_by(|a, b| {
                    let d = |j: &(Judged, &Published)| {
                        j.0.shown
                            .as_ref()
                            .map_or(f64::INFINITY, |o| o.advantage.ln().abs())
                    };
                    d(a).total_cmp(&d(b))
                })
                .expect("not empty")
        });
    // Its counters only: its estimate and CI are in the table above, at
    // the claim's level and in the claim's direction, and shown once.
    if let Some(r) = telling.0.basis.or(telling.0.input.ratio.as_ref()) {
        text.push_str(&format!(
            ". {} ({} pairs): {}",
            telling.0.input.label, r.pairs, telling.0.input.evidence
        ));
    }
    ClaimOutcome {
        id: String::new(),
        claim: claim.to_string(),
        verdict,
        unsettled,
        explanation: text,
        published: String::new(),
        kind: String::new(),
        level: CLAIM_LEVEL,
        pairs: rows,
        ..Default::default()
    }
}

/// Judges a trend claim: the slope of the log ratio on the log factor over
/// every pair, as a factor per doubling, against `per_doubling`; from the
/// clean pairs when any pair was interfered with.
fn judge_trend(
    claim: &str,
    factors: &[f64],
    per_doubling: &Published,
    pairs: &[PairInput],
) -> ClaimOutcome {
    let interfered = pairs.iter().map(|p| p.interfered_share).fold(0.0, f64::max);
    let basis = |p: &PairInput| {
        if interfered > 0.0 {
            p.clean_ratio.clone()
        } else {
            p.ratio.clone()
        }
    };
    let mut rows: Vec<PairOutcome> = pairs
        .iter()
        .map(|p| {
            let b = basis(p);
            let ci = b
                .as_ref()
                .and_then(LogRatios::of_estimate)
                .map(|l| l.ratio_ci(CLAIM_LEVEL));
            PairOutcome {
                label: p.label.clone(),
                measured: b.as_ref().map(|r| r.ratio),
                ci,
                published: "-".into(),
                verdict: None,
                runs: b.as_ref().map_or(0, |r| r.pairs),
                interfered_share: p.interfered_share,
                ..Default::default()
            }
        })
        .collect();
    let fit = |use_clean: bool| {
        let points: Vec<(f64, LogRatios)> = pairs
            .iter()
            .zip(factors)
            .filter_map(|(p, &f)| {
                let r = if use_clean {
                    p.clean_ratio.as_ref()
                } else {
                    p.ratio.as_ref()
                };
                Some((f, LogRatios::of_estimate(r?)?))
            })
            .collect();
        let n = points.iter().map(|p| p.1.n).min().unwrap_or(0);
        trend(&points, CLAIM_LEVEL).map(|t| (t, n))
    };
    let empty = |reason: Reason, settle: &str, why: &str, rows: Vec<PairOutcome>| ClaimOutcome {
        id: String::new(),
        claim: claim.to_string(),
        verdict: ClaimVerdict::Unsettled,
        unsettled: Some(Unsettled {
            reason,
            settle: settle.to_string(),
            more_runs: None,
        }),
        explanation: why.to_string(),
        published: String::new(),
        kind: String::new(),
        level: CLAIM_LEVEL,
        pairs: rows,
        ..Default::default()
    };
    let Some((t, n)) = fit(interfered > 0.0) else {
        let (reason, settle) = if interfered > 0.0 && fit(false).is_some() {
            (
                Reason::MachineBusy,
                "too few clean pairs: quiet the machine (stop other jobs) and run it again",
            )
        } else {
            (
                Reason::NotMeasured,
                "run every case the claim compares until it has two or more paired samples",
            )
        };
        return empty(
            reason,
            settle,
            "a trend needs three or more comparisons at two or more factors, with two or more paired samples each",
            rows,
        );
    };
    let o = effect::judge_ci(
        per_doubling,
        t.per_doubling(),
        t.per_doubling_ci(),
        CLAIM_LEVEL,
    );
    let verdict = of_effect(o.verdict);
    let unsettled = match verdict {
        Some(_) => None,
        None if interfered >= BUSY_SHARE => Some(Unsettled {
            reason: Reason::MachineBusy,
            settle: format!(
                "{:.0}% of the pairs had an interfered trial; quiet the machine and run it again",
                interfered * 100.0
            ),
            more_runs: None,
        }),
        None => {
            // The slope's CI narrows as 1/√n: the pairs that would bring
            // its half-width to the distance that decides.
            let half = (o.ci.1.ln() - o.ci.0.ln()) / 2.0;
            let target = effect::decisive_half_width(o.advantage.ln(), o.band);
            let more = (target > 0.0 && half.is_finite())
                .then(|| ((n as f64) * (half / target).powi(2)).ceil() as usize)
                .filter(|&need| need <= MAX_PLANNED_PAIRS)
                .map(|need| need.saturating_sub(n).max(1));
            Some(Unsettled {
                reason: Reason::BudgetSpent,
                settle: match more {
                    Some(m) => format!(
                        "needs about {m} more paired runs at every factor: raise --max-time, or --full"
                    ),
                    None => "the slope lies on an edge of the published band: no affordable number of runs would settle it".into(),
                },
                more_runs: more,
            })
        }
    };
    let verdict = verdict.unwrap_or(ClaimVerdict::Unsettled);
    rows.push(PairOutcome {
        label: format!(
            "trend over {} factors: ratio per doubling of the factor",
            t.points
        ),
        measured: Some(o.advantage),
        ci: Some(o.ci),
        published: per_doubling.band_words(),
        verdict: Some(verdict),
        runs: n,
        interfered_share: interfered,
        ..Default::default()
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
        id: String::new(),
        claim: claim.to_string(),
        verdict,
        unsettled,
        explanation: format!(
            "least-squares slope of the log time ratio on the log factor over {} comparisons{}: \
             x{} per doubling of the factor [{:.0}% CI {}–{}, {:.1} df] against the published {}; \
             {direction}.{}",
            t.points,
            if interfered > 0.0 {
                " (clean pairs only)"
            } else {
                ""
            },
            short2(o.advantage),
            CLAIM_LEVEL * 100.0,
            short2(o.ci.0),
            short2(o.ci.1),
            t.df,
            per_doubling.band_words(),
            last.map_or(String::new(), |p| format!(" {}: {}", p.label, p.evidence)),
        ),
        published: String::new(),
        kind: String::new(),
        level: CLAIM_LEVEL,
        pairs: rows,
        ..Default::default()
    }
}

/// The comparison of `base` and `other` in `results`: every counted pair,
/// the clean pairs only, and the interfered share.
pub fn pair_input(results: &RunResults, base: &Case, other: &Case, label: String) -> PairInput {
    let find = |case: &Case| crate::studies::find_case(results, case);
    let (Some(b), Some(o)) = (find(base), find(other)) else {
        return PairInput {
            label,
            ratio: None,
            clean_ratio: None,
            interfered_share: 0.0,
            evidence: "case not run".to_string(),
        };
    };
    let evidence = match (&o.summary, &b.summary) {
        (Some(os), Some(bs)) => format!(
            "{}, residency {:.0}% vs {:.0}%",
            evidence(os, bs),
            os.residency_before * 100.0,
            bs.residency_before * 100.0
        ),
        _ => "no counters".to_string(),
    };
    samples_input(
        &b.counted_samples(),
        &o.counted_samples(),
        results.settings.metric,
        label,
        evidence,
    )
}

/// The comparison of two cases' counted samples `bs` (baseline) and `os`:
/// every pair, the clean pairs only (neither trial interfered), and the
/// share of pairs with an interfered trial. `faultline calibrate --claims`
/// builds its A/A comparisons with it from slices of one run.
pub fn samples_input(
    bs: &[Sample],
    os: &[Sample],
    metric: crate::plan::Metric,
    label: String,
    evidence: String,
) -> PairInput {
    let ratio = compare_cases(bs, os, metric);
    let (cb, co) = (busy::clean(bs), busy::clean(os));
    let clean_ratio = compare_cases(&cb, &co, metric);
    let paired = ratio.as_ref().map_or(0, |r| r.pairs);
    let clean_pairs = clean_ratio.as_ref().map_or(0, |r| r.pairs);
    let interfered_share = if paired == 0 {
        let any = bs.iter().chain(os).filter(|s| s.interfered()).count();
        any as f64 / (bs.len() + os.len()).max(1) as f64
    } else {
        busy::interfered_share(paired, clean_pairs)
    };
    PairInput {
        label,
        ratio,
        clean_ratio,
        interfered_share,
        evidence,
    }
}

/// The label of a claim's comparison: `group; size file: other vs base`.
pub fn pair_label(base: &Case, other: &Case) -> String {
    format!(
        "{}; {} file: {} vs {}",
        other.group_label(),
        crate::size::format_size(other.file_size),
        other.method_label(),
        base.method_label()
    )
}

/// Checks `claim` against a run's results.
pub fn check(claim: &Claim, results: &RunResults) -> ClaimOutcome {
    let pairs: Vec<PairInput> = claim
        .pairs
        .iter()
        .map(|(b, o)| pair_input(results, b, o, pair_label(b, o)))
        .collect();
    ClaimOutcome {
        id: claim.id.clone(),
        ..judge(
            &claim.text,
            &claim.expect,
            claim.quorum,
            &claim.published,
            &pairs,
        )
    }
    .summarised()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::effect::{t_quantile, Size};
    use crate::stats::paired_ratio;

    const N: usize = 5;

    /// A 95% ratio estimate of `n` pairs whose 90% CI is `[lo, hi]`.
    fn estimate(lo: f64, hi: f64, n: usize) -> RatioEstimate {
        let m = (lo.ln() + hi.ln()) / 2.0;
        let se = (hi.ln() - lo.ln()) / 2.0 / t_quantile(0.95, (n - 1) as f64);
        let h95 = se * t_quantile(0.975, (n - 1) as f64);
        RatioEstimate {
            ratio: m.exp(),
            ci95_low: (m - h95).exp(),
            ci95_high: (m + h95).exp(),
            pairs: n,
        }
    }

    /// A quiet comparison whose 90% CI of the time ratio is `[lo, hi]`.
    fn ci90(lo: f64, hi: f64) -> PairInput {
        PairInput::quiet(
            &format!("synthetic {lo}–{hi}"),
            Some(estimate(lo, hi, N)),
            "sys 0.10 vs 0.40 ms/MiB",
        )
    }

    fn pair(base: &[f64], other: &[f64]) -> PairInput {
        PairInput::quiet(
            "synthetic",
            paired_ratio(base, other),
            "sys 0.10 vs 0.40 ms/MiB",
        )
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
    fn a_range_at_its_edges_gives_every_verdict() {
        // fedorova2019's "2–6x".
        let p = Published::faster(Size::Range {
            low: 2.0,
            high: 6.0,
        });
        assert_eq!(verdict(p, above(2.0), below(6.0)), Holds);
        assert_eq!(verdict(p, 1.2, below(2.0)), Smaller);
        assert_eq!(verdict(p, above(6.0), 9.0), Larger);
        assert_eq!(verdict(p, 0.5, below(1.0 / 1.05)), Reversed);
        // Wholly below the band but across an edge below it: the claim
        // cannot hold, and which of smaller, no effect or reversed is open.
        assert_eq!(verdict(p, 0.5, 1.0 / 1.05), Below, "on the no-effect edge");
        assert_eq!(verdict(p, 0.5, below(1.0)), Below, "maybe no effect");
        assert_eq!(verdict(p, above(1.05), below(2.0)), Smaller);
        assert_eq!(verdict(p, above(1.0), below(2.0)), Below, "maybe no effect");
        assert_eq!(verdict(p, 0.97, 1.03), NoEffect);
        assert_eq!(verdict(p, below(2.0), 3.0), Unsettled, "straddles 2");
        assert_eq!(verdict(p, 5.0, above(6.0)), Unsettled, "straddles 6");
        assert_eq!(verdict(p, 0.9, 1.5), Below, "no direction shown");
        assert_eq!(verdict(p, 0.9, 2.0), Unsettled, "touches the band");
        assert_eq!(verdict(p, 0.9, above(2.0)), Unsettled);
    }

    #[test]
    fn an_unsettled_claim_says_why_and_what_would_settle_it() {
        let p = Published::faster(Size::Range {
            low: 2.0,
            high: 6.0,
        });
        let o = judge("c", &Expect::Effect(p), 1.0, "p", &[ci90(1.9, 4.0)]);
        assert_eq!(o.verdict, Unsettled);
        let u = o.unsettled.as_ref().expect("a reason");
        assert_eq!(u.reason, Reason::BudgetSpent);
        let more = u.more_runs.expect("a number of runs");
        assert!(more > 0, "{more}");
        assert!(
            u.settle.contains(&format!("needs about {more} more")),
            "{}",
            u.settle
        );
        // With that many more pairs at the same spread and mean, it decides.
        let logs = LogRatios::of_estimate(&estimate(1.9, 4.0, N)).unwrap();
        let sd = logs.se * (N as f64).sqrt();
        let n = N + more;
        let h = crate::stats::power::half_width(sd, n, CLAIM_LEVEL);
        let m = logs.mean;
        assert!(verdict(p, (m - h).exp(), (m + h).exp()).decided(), "{n}");
        // An estimate nearer the edge than a quarter of its CI's width: its
        // spread cannot say how many runs decide it (the edge may be its
        // true value), so it asks for the runs that halve its CI.
        let o = judge("c", &Expect::Effect(p), 1.0, "p", &[ci90(1.8, 2.4)]);
        let u = o.unsettled.as_ref().expect("a reason");
        let more = u.more_runs.expect("a number of runs");
        assert!(
            u.settle
                .contains(&format!("about {more} more paired runs would halve its CI")),
            "{}",
            u.settle
        );
        assert_eq!(o.pairs[0].more_runs, Some(more));
        assert_eq!(o.verdict_words(), "unsettled: budget spent");
        // With that many more pairs at the same spread, its CI is half as wide.
        let logs = LogRatios::of_estimate(&estimate(1.8, 2.4, N)).unwrap();
        let sd = logs.se * (N as f64).sqrt();
        let now = crate::stats::power::half_width(sd, N, CLAIM_LEVEL);
        let then = crate::stats::power::half_width(sd, N + more, CLAIM_LEVEL);
        assert!(then <= now / 2.0 && then > now / 3.0, "{now} {then}");
        // A decided claim has no reason.
        let o = judge("c", &Expect::Effect(p), 1.0, "p", &[ci90(2.5, 3.0)]);
        assert_eq!((o.verdict, o.unsettled), (Holds, None));
    }

    #[test]
    fn a_busy_machine_decides_nothing_its_clean_pairs_do_not() {
        let p = Published::faster(Size::Ratio {
            value: 1.17,
            tolerance: 0.10,
        });
        // All pairs: clearly inside; clean pairs: 2 of 10, too few to tell.
        let busy = PairInput {
            label: "busy".into(),
            ratio: Some(estimate(1.10, 1.20, 10)),
            clean_ratio: Some(estimate(0.8, 1.6, 2)),
            interfered_share: 0.8,
            evidence: String::new(),
        };
        let o = judge(
            "c",
            &Expect::Effect(p),
            1.0,
            "p",
            std::slice::from_ref(&busy),
        );
        assert_eq!(o.verdict, Unsettled);
        assert_eq!(o.unsettled.as_ref().unwrap().reason, Reason::MachineBusy);
        assert!(o.unsettled.as_ref().unwrap().settle.contains("80%"));
        assert_eq!(o.verdict_words(), "unsettled: machine busy");
        // No clean pair at all.
        let none = PairInput {
            clean_ratio: None,
            ..busy.clone()
        };
        let o = judge("c", &Expect::Effect(p), 1.0, "p", &[none]);
        assert_eq!(o.unsettled.unwrap().reason, Reason::MachineBusy);
        // The clean pairs decide it: their verdict, even where all pairs differ.
        let clean_decides = PairInput {
            ratio: Some(estimate(1.5, 1.7, 10)),
            clean_ratio: Some(estimate(1.10, 1.20, 6)),
            interfered_share: 0.4,
            ..busy
        };
        let o = judge("c", &Expect::Effect(p), 1.0, "p", &[clean_decides]);
        assert_eq!(o.verdict, Holds, "{}", o.explanation);
        assert!(
            o.explanation.contains("clean pairs only: 40%"),
            "{}",
            o.explanation
        );
        assert_eq!(o.pairs[0].runs, 6);
    }

    #[test]
    fn a_ratio_with_a_tolerance_at_its_edges() {
        // write2020's 1.17 (1.343 s / 1.150 s), ×/÷ 1.10.
        let p = Published::faster(Size::Ratio {
            value: 1.17,
            tolerance: 0.10,
        });
        let (l, h) = p.band();
        assert_eq!(verdict(p, above(l), below(h)), Holds);
        assert_eq!(verdict(p, 1.051, below(l)), Smaller);
        assert_eq!(
            verdict(p, 1.04, below(l)),
            Below,
            "1.04 is within the 5% of no effect: smaller or no effect"
        );
        assert_eq!(verdict(p, above(h), 2.0), Larger);
        assert_eq!(verdict(p, 0.8, 0.9), Reversed);
        assert_eq!(verdict(p, 0.99, 1.01), NoEffect);
        assert_eq!(
            verdict(p, 0.86, 1.04),
            Below,
            "write2020's 0.95 [0.86–1.04]: not 1.17x, but no effect or reversed?"
        );
        assert_eq!(verdict(p, 0.86, l), Unsettled, "touches the band");
        assert_eq!(verdict(p, below(l), below(h)), Unsettled);
        assert_eq!(verdict(p, above(l), above(h)), Unsettled);
    }

    #[test]
    fn a_bound_at_its_edges() {
        let p = Published::faster(Size::AtLeast(10.0));
        assert_eq!(verdict(p, above(10.0), 1e4), Holds);
        assert_eq!(verdict(p, 2.0, below(10.0)), Smaller);
        assert_eq!(verdict(p, 0.2, below(1.0 / 1.05)), Reversed);
        assert_eq!(verdict(p, 0.2, below(1.0)), Below, "maybe no effect");
        assert_eq!(verdict(p, below(10.0), 20.0), Unsettled);
        // A "slower" claim reads the same CI inverted.
        let slower = Published::slower(Size::AtLeast(1.2));
        assert_eq!(verdict(slower, 0.5, below(1.0 / 1.2)), Holds);
        assert_eq!(verdict(slower, 1.2, 2.0), Reversed);
    }

    #[test]
    fn similar_is_a_band_around_one_that_can_be_refuted() {
        let p = Published::similar(1.5);
        assert_eq!(verdict(p, above(1.0 / 1.5), below(1.5)), Holds);
        assert_eq!(verdict(p, 0.2, below(1.0 / 1.5)), NotSimilar);
        assert_eq!(verdict(p, above(1.5), 3.0), NotSimilar);
        assert_eq!(verdict(p, 0.5, 0.9), Unsettled);
        // Over several sizes: points clearly outside on one side refute it,
        // and the table names them.
        let o = judge(
            "similar",
            &Expect::Effect(p),
            0.75,
            "similar",
            &[
                ci90(2.0, 3.0),
                ci90(1.8, 2.2),
                ci90(1.6, 2.5),
                ci90(0.9, 1.1),
            ],
        );
        assert_eq!(o.verdict, NotSimilar, "{}", o.explanation);
        assert_eq!(
            o.pairs
                .iter()
                .filter(|p| p.verdict == Some(NotSimilar))
                .count(),
            3
        );
        // 9 of 12 must be similar: four clearly outside refute it while
        // three are still undecided (liege2018's sequential claim).
        let mut pairs = vec![ci90(0.9, 1.1); 5];
        pairs.extend(vec![ci90(0.1, 0.3); 4]);
        pairs.extend(vec![ci90(0.5, 0.9); 3]);
        let o = judge("similar", &Expect::Effect(p), 0.75, "similar", &pairs);
        assert_eq!(o.verdict, NotSimilar, "{}", o.explanation);
        assert!(o.unsettled.is_none());
        // Three outside and three undecided: the undecided could still make
        // it hold (9 of 12), so it is not decided yet.
        let mut pairs = vec![ci90(0.9, 1.1); 6];
        pairs.extend(vec![ci90(0.1, 0.3); 3]);
        pairs.extend(vec![ci90(0.5, 0.9); 3]);
        let o = judge("similar", &Expect::Effect(p), 0.75, "similar", &pairs);
        assert_eq!(o.verdict, Unsettled, "{}", o.explanation);
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
        assert_eq!(o.kind, "ratio");
        for text in ["[90% CI 280–300]", "published 50–200x", "sys 0.10 vs 0.40"] {
            assert!(o.explanation.contains(text), "{text}: {}", o.explanation);
        }
        assert_eq!(o.published, "about 100 times at 625 kB");
        let table = crate::report::claims::side_by_side(&o).render_text();
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
    fn a_busy_comparison_with_no_clean_pairs_keeps_a_refuted_claim_unsettled() {
        let p = Published::faster(Size::Range {
            low: 1.05,
            high: 1.5,
        });
        // Three reversed (5 of 6 needed to hold: it cannot), three busy
        // with no clean pair: they could lie above the band or below it, so
        // the claim is not "mixed" (liege2018 beside two CPU hogs) but
        // unsettled, machine busy.
        let mut busy = ci90(1.2, 1.4);
        busy.clean_ratio = None;
        busy.interfered_share = 1.0;
        let back = ci90(0.3, 0.5);
        let pairs = [
            busy.clone(),
            busy.clone(),
            busy.clone(),
            back.clone(),
            back.clone(),
            back.clone(),
        ];
        let o = judge("s", &Expect::Effect(p), 5.0 / 6.0, "", &pairs);
        assert_eq!(o.verdict, Unsettled, "{}", o.explanation);
        assert_eq!(o.unsettled.unwrap().reason, Reason::MachineBusy);
        // Known, they decide it: three reversed and three larger is mixed.
        let big = ci90(2.0, 3.0);
        let pairs = [
            big.clone(),
            big.clone(),
            big,
            back.clone(),
            back.clone(),
            back,
        ];
        let o = judge("s", &Expect::Effect(p), 5.0 / 6.0, "", &pairs);
        assert_eq!(o.verdict, Mixed, "{}", o.explanation);
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
        let open = ci90(1.5, 2.5);
        let run = |q, pairs: &[PairInput]| judge("q", &Expect::Effect(p), q, "2–6x", pairs);
        let pairs = [
            inside.clone(),
            inside.clone(),
            inside.clone(),
            small.clone(),
        ];
        assert_eq!(run(0.75, &pairs).verdict, Holds);
        let o = run(1.0, &pairs);
        assert_eq!(o.verdict, Mixed, "every comparison decided, no quorum");
        assert!(
            o.explanation
                .contains("4 of 4 comparisons must agree: 3 holds, 1 smaller than published"),
            "{}",
            o.explanation
        );
        let pairs = [small.clone(), small.clone(), small.clone(), back.clone()];
        assert_eq!(run(0.75, &pairs).verdict, Smaller);
        let pairs = [back.clone(), back.clone(), back.clone(), small.clone()];
        assert_eq!(run(0.75, &pairs).verdict, Reversed);
        let pairs = [big.clone(), big.clone(), big.clone(), inside.clone()];
        assert_eq!(run(0.75, &pairs).verdict, Larger);
        assert_eq!(run(1.0, &pairs).verdict, Mixed);
        // An undecided comparison that could still tip the quorum: unsettled.
        let pairs = [inside.clone(), inside.clone(), open.clone(), small.clone()];
        assert_eq!(run(0.75, &pairs).verdict, Unsettled);
        // One that could no longer change it: decided.
        let pairs = [inside.clone(), inside.clone(), inside.clone(), open.clone()];
        assert_eq!(run(0.75, &pairs).verdict, Holds);
        // Two against a claim that needs 3 of 4: it cannot hold whatever the
        // undecided one says, and no verdict can reach 3: mixed, decided.
        let pairs = [inside.clone(), small.clone(), back.clone(), open.clone()];
        let o = run(0.75, &pairs);
        assert_eq!(o.verdict, Mixed, "{}", o.explanation);
        assert!(o.unsettled.is_none());
        // "Holds" cannot reach 3 of 4 (the two open ones could hold, the
        // other two cannot) and none holds: below published, decided.
        let pairs = [back.clone(), small.clone(), open.clone(), open.clone()];
        let o = run(0.75, &pairs);
        assert_eq!(o.verdict, Below, "{}", o.explanation);
        assert!(o.unsettled.is_none(), "{o:?}");
        assert!(
            o.explanation
                .contains("at most 2 of 4 can still hold, fewer than the 3 it needs"),
            "{}",
            o.explanation
        );
        assert_eq!(
            o.pairs[2].possible,
            vec![Holds, Smaller],
            "an open row says what it can still become"
        );
        assert!(crate::report::claims::side_by_side(&o)
            .render_text()
            .contains("unsettled (holds or smaller than published)"),);
        // Above and below the band with none holding: mixed.
        let pairs = [back.clone(), big.clone(), big.clone(), open.clone()];
        assert_eq!(run(0.75, &pairs).verdict, Mixed);
        // Above only, and none holding: larger than published, though only
        // 2 of 4 are decided larger (the others may hold, or be larger).
        let pairs = [big.clone(), big.clone(), ci90(5.0, 8.0), ci90(5.5, 9.0)];
        assert_eq!(run(0.75, &pairs).verdict, Larger);
        // Two above, two that may hold or lie below: mixed.
        let pairs = [big.clone(), big.clone(), open.clone(), open];
        assert_eq!(run(1.0, &pairs).verdict, Mixed, "open ones may be below");
        // Without samples, nothing is decided, and it says so.
        let none = judge("x", &Expect::Effect(p), 1.0, "", &[pair(&[1.0], &[1.0])]);
        assert_eq!(none.verdict, Unsettled);
        assert_eq!(none.unsettled.unwrap().reason, Reason::NotMeasured);
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
        assert_eq!(o.verdict, Mixed);
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
        assert_eq!(o.kind, "trend");
        assert_eq!(run(sized, &series(0.1, 0.01)).verdict, Smaller);
        assert_eq!(run(sized, &series(1.0, 0.01)).verdict, Larger);
        assert_eq!(run(sized, &series(-0.3, 0.01)).verdict, Reversed);
        assert_eq!(run(sized, &series(0.0, 0.001)).verdict, NoEffect);
        let loose = run(sized, &series(0.3, 0.3));
        assert_eq!(loose.verdict, Unsettled, "{}", loose.explanation);
        assert_eq!(loose.unsettled.unwrap().reason, Reason::BudgetSpent);
        // The middle factors count.
        let mut bent = series(0.42, 0.01);
        bent[1] = series(0.0, 0.01)[1].clone();
        bent[2] = series(0.0, 0.01)[2].clone();
        let straight = run(sized, &series(0.42, 0.01)).pairs[4].measured.unwrap();
        let kinked = run(sized, &bent).pairs[4].measured.unwrap();
        assert!(kinked != straight, "{kinked} vs {straight}");
        // Too few points.
        let few = run(sized, &series(0.42, 0.01)[..2]);
        assert_eq!(few.verdict, Unsettled);
        assert_eq!(few.unsettled.unwrap().reason, Reason::NotMeasured);
    }

    #[test]
    fn verdict_words_and_slugs() {
        assert_eq!(Smaller.word(), "smaller than published");
        assert_eq!(Larger.slug(), "larger-than-published");
        assert_eq!(NoEffect.slug(), "no-effect");
        assert_eq!(
            serde_json::to_string(&Smaller).unwrap(),
            "\"smaller-than-published\""
        );
        assert_eq!(
            serde_json::to_string(&NotSimilar).unwrap(),
            "\"not-similar\""
        );
        for v in ClaimVerdict::ALL {
            let back: ClaimVerdict =
                serde_json::from_str(&serde_json::to_string(&v).unwrap()).unwrap();
            assert_eq!(back, v);
            assert_eq!(
                serde_json::to_string(&v).unwrap(),
                format!("\"{}\"", v.slug())
            );
        }
    }
}
