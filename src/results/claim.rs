//! Claim verdicts as plain data: what `faultline reproduce` decided about
//! each published claim, with its reason and the comparisons it rests on.
//! The checker that builds them is `crate::studies::claims`; the exports
//! carry them as the run's top-level `claims` list.
use serde::{Deserialize, Serialize};

/// The verdicts on a claim.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClaimVerdict {
    /// The 90% CI lies inside the published band.
    Holds,
    /// The CI lies on the claimed side of 1 (excluding no effect) but below
    /// the band.
    #[serde(rename = "smaller-than-published")]
    Smaller,
    /// The CI lies above the band.
    #[serde(rename = "larger-than-published")]
    Larger,
    /// The CI lies within the smallest effect of interest around 1.
    NoEffect,
    /// The CI lies wholly the other way from the claimed direction.
    Reversed,
    /// A "similar" claim: the CI lies wholly outside the band, on one side.
    NotSimilar,
    /// The claim cannot hold (too few of its comparisons can still lie in
    /// the band), and every one that cannot lies below the band, but they
    /// do not agree on smaller, no effect or reversed: their CIs straddle
    /// the edges between those, or they differ.
    #[serde(rename = "below-published")]
    Below,
    /// The claim cannot hold, and the comparisons against it lie on both
    /// sides of the band (or none reaches the quorum otherwise).
    Mixed,
    /// Not decided: see the outcome's [`Unsettled`] reason.
    #[default]
    Unsettled,
}

impl ClaimVerdict {
    /// The verdict in words: `holds`, `smaller than published`, …
    pub fn word(self) -> &'static str {
        match self {
            ClaimVerdict::Holds => "holds",
            ClaimVerdict::Smaller => "smaller than published",
            ClaimVerdict::Larger => "larger than published",
            ClaimVerdict::NoEffect => "no effect",
            ClaimVerdict::Reversed => "reversed",
            ClaimVerdict::NotSimilar => "not similar",
            ClaimVerdict::Below => "below published",
            ClaimVerdict::Mixed => "mixed",
            ClaimVerdict::Unsettled => "unsettled",
        }
    }

    /// The word with dashes (`smaller-than-published`), for HTML classes
    /// and exports.
    pub fn slug(self) -> &'static str {
        match self {
            ClaimVerdict::Smaller => "smaller-than-published",
            ClaimVerdict::Larger => "larger-than-published",
            ClaimVerdict::NoEffect => "no-effect",
            ClaimVerdict::NotSimilar => "not-similar",
            ClaimVerdict::Below => "below-published",
            other => other.word(),
        }
    }

    /// Whether the claim is decided (anything but unsettled).
    pub fn decided(self) -> bool {
        self != ClaimVerdict::Unsettled
    }

    /// Whether this verdict is a true statement when `truth` is the right
    /// one: the same verdict, or "below published" for a truth below the
    /// band (smaller, no effect, reversed), which it only words coarser.
    pub fn agrees_with(self, truth: ClaimVerdict) -> bool {
        self == truth
            || (self == ClaimVerdict::Below
                && matches!(
                    truth,
                    ClaimVerdict::Smaller | ClaimVerdict::NoEffect | ClaimVerdict::Reversed
                ))
    }

    /// Every verdict, in the order the module documentation gives.
    pub const ALL: [ClaimVerdict; 9] = [
        ClaimVerdict::Holds,
        ClaimVerdict::Smaller,
        ClaimVerdict::Larger,
        ClaimVerdict::NoEffect,
        ClaimVerdict::Reversed,
        ClaimVerdict::NotSimilar,
        ClaimVerdict::Below,
        ClaimVerdict::Mixed,
        ClaimVerdict::Unsettled,
    ];
}

impl std::fmt::Display for ClaimVerdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.word())
    }
}

/// Why a claim is unsettled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reason {
    /// Its trials were interfered with, and the clean ones do not decide it.
    MachineBusy,
    /// Its CIs still straddle an edge, and the run's budget is spent.
    BudgetSpent,
    /// A claim about the profile, and the run was not profiled (or only in user space).
    NeedsProfile,
    /// A case it compares was not measured (failed, or not in the run).
    NotMeasured,
}

impl Reason {
    /// Every reason, so tests and docs follow the enum.
    pub const ALL: [Reason; 4] = [
        Reason::MachineBusy,
        Reason::BudgetSpent,
        Reason::NeedsProfile,
        Reason::NotMeasured,
    ];

    /// `machine busy`, `budget spent`, `needs --profile`, `not measured`.
    pub fn word(self) -> &'static str {
        match self {
            Reason::MachineBusy => "machine busy",
            Reason::BudgetSpent => "budget spent",
            Reason::NeedsProfile => "needs --profile",
            Reason::NotMeasured => "not measured",
        }
    }
}

/// Why a claim is unsettled, and what would settle it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Unsettled {
    /// The reason.
    pub reason: Reason,
    /// What would settle it, e.g. `needs about 40 more runs`.
    pub settle: String,
    /// More paired runs the widest undecided comparison needs, when the
    /// spread so far can tell.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub more_runs: Option<usize>,
}

/// One row of a verdict's side-by-side table: a comparison's measured
/// advantage and CI beside the published value.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PairOutcome {
    /// The comparison (or `trend: per doubling of the factor`).
    pub label: String,
    /// Measured advantage in the claimed direction (time ratio for a trend row's points).
    pub measured: Option<f64>,
    /// Its CI at [`ClaimOutcome::level`].
    pub ci: Option<(f64, f64)>,
    /// The published band it is judged against, in words (`-` when none).
    pub published: String,
    /// Its own verdict, when it is judged alone (`unsettled` while undecided).
    pub verdict: Option<ClaimVerdict>,
    /// Paired runs the verdict rests on (the clean ones, when any were interfered).
    #[serde(default)]
    pub runs: usize,
    /// Share of its pairs with an interfered trial.
    #[serde(default)]
    pub interfered_share: f64,
    /// While it is undecided: the verdicts its CI still allows (e.g. no
    /// effect and smaller than published), from the pairs it rests on.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub possible: Vec<ClaimVerdict>,
    /// While it is undecided: about how many more paired runs its spread
    /// says would decide it; absent when its estimate sits on an edge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub more_runs: Option<usize>,
    /// `more_runs` only halves its CI: the estimate sits too near an edge
    /// for its spread to say how many runs would decide it. For the
    /// settling rule within a run; not exported.
    #[serde(skip)]
    pub more_runs_only_halve: bool,
}

/// The verdict on a claim with its explanation.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ClaimOutcome {
    /// The study (preset) the claim is from, e.g. `fedorova2019`.
    #[serde(default)]
    pub study: String,
    /// The claim's short name within its preset.
    #[serde(default)]
    pub id: String,
    /// The claim's text.
    pub claim: String,
    /// The verdict.
    pub verdict: ClaimVerdict,
    /// Why it is unsettled and what would settle it (only when unsettled).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unsettled: Option<Unsettled>,
    /// Why: how many comparisons agreed, the ratios, and the counters.
    pub explanation: String,
    /// The published figure as the study gives it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub published: String,
    /// The kind of published figure (`ratio`, `range`, `bound`, `similar`,
    /// `per-comparison`, `trend`, `share`, `largest-share`).
    #[serde(default)]
    pub kind: String,
    /// The CI level of the verdict (0.90: two one-sided tests at 5%).
    #[serde(default)]
    pub level: f64,
    /// Measured beside published, one row per comparison (and the trend).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pairs: Vec<PairOutcome>,
    /// The measured value that speaks for the claim (its only comparison,
    /// or its trend), in the claimed direction; absent over several.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measured: Option<f64>,
    /// Its CI at `level`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci: Option<(f64, f64)>,
    /// The half-width of that CI as a ratio (0.05: ±5%): the precision reached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precision: Option<f64>,
    /// The fewest paired runs (profiled trials, for a share) any of its
    /// comparisons rests on.
    #[serde(default)]
    pub runs: usize,
    /// The largest share of interfered pairs among its comparisons (0–1).
    #[serde(default)]
    pub interfered_share: f64,
}

impl ClaimOutcome {
    /// The verdict with its reason: `holds`, `unsettled: machine busy`.
    pub fn verdict_words(&self) -> String {
        match &self.unsettled {
            Some(u) if self.verdict == ClaimVerdict::Unsettled => {
                format!("unsettled: {}", u.reason.word())
            }
            _ => self.verdict.word().to_string(),
        }
    }

    /// Fills the summary fields from the rows: `measured`, `ci` and
    /// `precision` from [`ClaimOutcome::headline`], the fewest `runs` and
    /// the largest `interfered_share`.
    pub fn summarised(mut self) -> ClaimOutcome {
        self.runs = self
            .pairs
            .iter()
            .filter(|p| p.verdict.is_some())
            .map(|p| p.runs)
            .min()
            .unwrap_or(0);
        self.interfered_share = self
            .pairs
            .iter()
            .map(|p| p.interfered_share)
            .fold(0.0, f64::max);
        let head = self.headline().map(|h| (h.measured, h.ci));
        if let Some((measured, ci)) = head {
            self.measured = measured;
            self.ci = ci;
            self.precision = match (measured, ci) {
                (Some(m), Some((lo, hi))) if self.kind != "share" && m > 0.0 && lo > 0.0 => {
                    Some(((hi / m).ln().max((m / lo).ln())).exp_m1())
                }
                (Some(_), Some((lo, hi))) => Some((hi - lo) / 2.0),
                _ => None,
            };
        }
        self
    }

    /// The row that speaks for the claim: the trend row, or the only
    /// comparison; `None` over several comparisons.
    pub fn headline(&self) -> Option<&PairOutcome> {
        match self.pairs.as_slice() {
            [one] => Some(one),
            rows if self.kind == "trend" => rows.last(),
            _ => None,
        }
    }
}
