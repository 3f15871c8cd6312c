//! The results of a run, as the reports and exports see them.
use serde::{Deserialize, Serialize};

use crate::measure::environment::Environment;
use crate::plan::{Case, Metric, OrderPolicy};
use crate::sample::{Sample, TrialFailure};
use crate::stats::analysis::CaseSummary;
use crate::stats::{RatioEstimate, Verdict};

/// Everything one run produced; rewritten to the exports after every group.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunResults {
    /// The machine, kernel, file system and faultline build.
    pub environment: Environment,
    /// The command line as given.
    pub command_line: Vec<String>,
    /// Settings that affect every number.
    pub settings: Settings,
    /// Every case with its samples and summary.
    pub cases: Vec<CaseResult>,
    /// Paired comparisons of each case with its group's baseline.
    pub comparisons: Vec<ComparisonResult>,
    /// Trials that produced no sample.
    pub failures: Vec<TrialFailure>,
    /// Warnings raised while running (cache state not reached, fallbacks).
    pub warnings: Vec<String>,
    /// False while the run is still going (or was interrupted).
    pub complete: bool,
}

/// Run-wide settings.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Settings {
    /// The file measured (for a run of write methods only: the scratch directory).
    pub file: std::path::PathBuf,
    /// Whether faultline generated it.
    pub generated: bool,
    /// Where write methods wrote; `None` when no write method ran.
    #[serde(default)]
    pub scratch_dir: Option<std::path::PathBuf>,
    /// Measured runs per case.
    pub runs: u32,
    /// Warm-up runs per case.
    pub warmup: u32,
    /// Order policy.
    pub order: OrderPolicy,
    /// Which time the statistics compare.
    pub metric: Metric,
    /// Whether cold meant drop_caches (true) or per-file eviction.
    pub drop_caches: bool,
    /// Seed of random orders and shuffles.
    pub seed: u64,
    /// The study `faultline reproduce` replayed, and how; absent for `faultline run`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reproduction: Option<Reproduction>,
}

/// What a `faultline reproduce` run replayed: recorded in the journal and
/// the results, so that a resumed run cannot mix modes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reproduction {
    /// The preset, e.g. `sun2002`.
    pub preset: String,
    /// Whether the original's quirks were replayed (`--faithful`).
    pub faithful: bool,
}

impl Reproduction {
    /// `faithful (--faithful: the original's quirks replayed)` or `default (...)`.
    pub fn mode_line(&self) -> String {
        mode_line(self.faithful)
    }
}

/// The mode of a reproduction in words, for headers.
pub fn mode_line(faithful: bool) -> String {
    if faithful {
        "faithful (--faithful: the original's quirks replayed where the fidelity notes say so)"
            .into()
    } else {
        "default (faultline's like-for-like comparison; --faithful replays the original's quirks)"
            .into()
    }
}

/// One case and what was measured for it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CaseResult {
    /// Index of the case.
    pub id: usize,
    /// The factors, under their own names.
    #[serde(flatten)]
    pub case: Case,
    /// The method with its options, e.g. `mmap(populate=map)`.
    pub label: String,
    /// Summary over the samples; `None` until a sample exists.
    pub summary: Option<CaseSummary>,
    /// Every measured trial.
    pub samples: Vec<Sample>,
}

/// One case compared with its group's baseline.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ComparisonResult {
    /// The shared factors, e.g. `seq 16 KiB sum, warm`.
    pub group: String,
    /// The baseline case's id.
    pub baseline: usize,
    /// The compared case's id.
    pub other: usize,
    /// Throughput of `other` over throughput of `baseline`, paired by run.
    pub throughput_ratio: RatioEstimate,
    /// What the CI supports.
    pub verdict: Verdict,
}

impl RunResults {
    /// Builds the results from the raw samples: per-case summaries and each
    /// case's paired comparison with the first case of its group.
    pub fn assemble(
        plan: &crate::plan::Plan,
        raw: &crate::runner::RawResults,
        environment: Environment,
        settings: Settings,
        command_line: Vec<String>,
    ) -> RunResults {
        use crate::stats::analysis::{compare_cases, summarize_case};
        let samples_of = |id: usize| -> Vec<Sample> {
            raw.samples
                .iter()
                .filter(|s| s.case == id)
                .cloned()
                .collect()
        };
        let cases: Vec<CaseResult> = plan
            .cases
            .iter()
            .enumerate()
            .map(|(id, case)| {
                let samples = samples_of(id);
                CaseResult {
                    id,
                    case: case.clone(),
                    label: case.method_label(),
                    summary: summarize_case(&samples, plan.metric),
                    samples,
                }
            })
            .collect();
        let mut comparisons = Vec::new();
        for group in plan.groups() {
            let baseline = group[0];
            for &other in &group[1..] {
                if let Some(ratio) =
                    compare_cases(&cases[baseline].samples, &cases[other].samples, plan.metric)
                {
                    comparisons.push(ComparisonResult {
                        group: plan.cases[baseline].group_label(),
                        baseline,
                        other,
                        verdict: ratio.verdict(),
                        throughput_ratio: ratio,
                    });
                }
            }
        }
        RunResults {
            environment,
            command_line,
            settings,
            cases,
            comparisons,
            failures: raw.failures.clone(),
            warnings: raw.warnings.clone(),
            complete: raw.complete,
        }
    }
}
