//! The results of a run as the reports and exports see them: every case with
//! its samples and summary, and each paired comparison, assembled from the
//! raw samples ([`RunResults::assemble`]).
use serde::{Deserialize, Serialize};

use crate::measure::environment::Environment;
use crate::plan::Case;
use crate::results::Settings;
use crate::results::{Sample, TrialFailure};
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
    /// Every measured trial. With `--profile`, each keeps its category
    /// counts; its folded stacks are merged into the summary's profile.
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
        raw: &crate::results::RawResults,
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
                let mut samples = samples_of(id);
                let summary = summarize_case(&samples, plan.metric);
                // The case's flame graph has them all (summary.profile.stacks).
                for s in &mut samples {
                    if let Some(p) = s.child.profile.as_mut() {
                        p.stacks.clear();
                    }
                }
                CaseResult {
                    id,
                    case: case.clone(),
                    label: case.method_label(),
                    summary,
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
