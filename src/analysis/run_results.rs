//! The results of a run as the reports and exports see them: every case with
//! its samples and summary, and each paired comparison, assembled from the
//! raw samples ([`RunResults::assemble`]).
use serde::{Deserialize, Serialize};

use crate::analysis::case_summary::CaseSummary;
use crate::analysis::short_trials::{short_trial, ShortTrial, SHORT_TRIAL_NS};
use crate::analysis::stopping::{group_precision, GroupPrecision, StoppedBy};
use crate::measure::environment::Environment;
use crate::plan::Case;
use crate::results::Settings;
use crate::results::{Sample, TrialFailure};
use crate::stats::fdr::Adjustment;
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
    /// How the verdicts were adjusted, whether each group reached the
    /// precision target, and which cases ran trials too short to time well.
    #[serde(default)]
    pub statistics: StatisticsReport,
    /// `faultline reproduce`: each of the study's claims with its verdict
    /// (filled by the session, which knows the study).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub claims: Vec<crate::results::claim::ClaimOutcome>,
}

/// The run-wide statistics beyond each comparison.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StatisticsReport {
    /// How the p-values were adjusted across the comparisons.
    pub adjustment: Adjustment,
    /// Comparisons in the adjusted family (those with 2 or more pairs).
    pub family: usize,
    /// Per group, with `--precision`: whether the target was reached.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub precision: Vec<GroupPrecision>,
    /// Cases whose median main loop was too short to time well.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub short_trials: Vec<ShortTrial>,
    /// With `--profile`: what profiling cost the trials, over the warm
    /// cases (each case's own figure is in its summary), or why it was not
    /// measured; absent without `--profile`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile_cost: Option<crate::analysis::profile_cost::RunCost>,
}

/// One case and what was measured for it.
///
/// Read by [`CaseResultWire`]'s visitor rather than a derived
/// `Deserialize`: serde's `flatten` would buffer every field but `case`'s
/// own, the samples included, before parsing them a second time.
#[derive(Clone, Debug, Serialize)]
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
    /// Every measured trial; those the statistics leave out are marked
    /// (`excluded`). With `--profile`, each keeps its category counts; its
    /// folded stacks are merged into the summary's profile.
    pub samples: Vec<Sample>,
    /// How interference touched its trials; `None` when none was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interference: Option<crate::analysis::interference::CaseInterference>,
}

/// Reads a [`CaseResult`] in one pass: its own fields parsed in place, the
/// case's factors (every other key, a few scalars) gathered and parsed as
/// a [`Case`], as `#[serde(flatten)]` reads them.
struct CaseResultWire;

impl<'de> serde::de::Visitor<'de> for CaseResultWire {
    type Value = CaseResult;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a case's results")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<CaseResult, A::Error> {
        use crate::results::flat::{required, take, Key};
        let (mut id, mut label, mut summary, mut samples, mut interference) =
            (None, None, None, None, None);
        let mut rest = serde_json::Map::new();
        while let Some(Key(key)) = map.next_key()? {
            match &*key {
                "id" => take(&mut id, "id", &mut map)?,
                "label" => take(&mut label, "label", &mut map)?,
                "summary" => take(&mut summary, "summary", &mut map)?,
                "samples" => take(&mut samples, "samples", &mut map)?,
                "interference" => take(&mut interference, "interference", &mut map)?,
                _ => {
                    rest.insert(key.into_owned(), map.next_value()?);
                }
            }
        }
        Ok(CaseResult {
            id: required(id, "id")?,
            case: crate::results::flat::rest(rest)?,
            label: required(label, "label")?,
            summary: summary.unwrap_or_default(),
            samples: required(samples, "samples")?,
            interference: interference.unwrap_or_default(),
        })
    }
}

impl<'de> Deserialize<'de> for CaseResult {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<CaseResult, D::Error> {
        d.deserialize_map(CaseResultWire)
    }
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
    /// What the CI supports, after the run's adjustment for many
    /// comparisons (`settings.statistics.adjustment`), decided from the
    /// clean pairs when any trial was interfered with ([`crate::analysis::busy`]):
    /// `unsettled` when those do not decide it.
    pub verdict: Verdict,
    /// Share (0–1) of the paired runs with an interfered trial; when above
    /// 0, `throughput_ratio` and the p-values are over the clean pairs only.
    #[serde(default, skip_serializing_if = "crate::analysis::run_results::is_zero")]
    pub interfered_share: f64,
    /// Two-sided p-value of the paired t-test on the log ratios.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p_value: Option<f64>,
    /// The p-value adjusted across the run's comparisons; the verdict is
    /// faster or slower when it is under 0.05.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p_adjusted: Option<f64>,
}

/// For serde: leave a zero share out.
pub(crate) fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

impl CaseResult {
    /// The samples its statistics count: every sample but those marked
    /// `excluded` (retried, interfered with `--exclude-interfered`, or
    /// `--profile-control`'s control trials).
    pub fn counted_samples(&self) -> Vec<Sample> {
        crate::analysis::interference::counted(&self.samples)
    }
}

impl RunResults {
    /// Whether every comparison of the group whose cases are `members`
    /// (plan indices, the baseline first) needs no more runs: decided or
    /// out of reach ([`crate::stats::decided::comparison_done`]); a group without
    /// comparisons is not done.
    pub fn group_done(&self, members: &[usize], looks: usize, max_runs: u32) -> bool {
        let Some(&baseline) = members.first() else {
            return false;
        };
        let margin = self.settings.statistics.min_effect();
        let mut ours = self
            .comparisons
            .iter()
            .filter(|c| c.baseline == baseline && members.contains(&c.other))
            .peekable();
        ours.peek().is_some()
            && ours.all(|c| {
                crate::stats::decided::comparison_done(
                    &c.throughput_ratio,
                    c.verdict,
                    margin,
                    looks,
                    max_runs,
                )
            })
    }
}

impl RunResults {
    /// The case with id `id`: at its index, as in every run's results, in
    /// constant time; else the first with that id.
    pub fn case(&self, id: usize) -> Option<&CaseResult> {
        match self.cases.get(id) {
            Some(c) if c.id == id => Some(c),
            _ => self.cases.iter().find(|c| c.id == id),
        }
    }

    /// Builds the results from the raw samples: per-case summaries and each
    /// case's paired comparison with the first case of its group.
    pub fn assemble(
        plan: &crate::plan::Plan,
        raw: &crate::results::RawResults,
        environment: Environment,
        settings: Settings,
        command_line: Vec<String>,
    ) -> RunResults {
        use crate::analysis::busy;
        use crate::analysis::case_summary::{compare_cases, compared_log_ratios, summarize_case};
        use crate::analysis::interference;
        use crate::analysis::profile_cost;
        use crate::stats::fdr;
        let exclude_interfered = settings.interference.is_some_and(|i| i.exclude);
        // Each case's samples, in the order they ran: one pass, not one
        // per case (a plan may have 100,000 cases).
        let mut by_case: Vec<Vec<Sample>> = vec![Vec::new(); plan.cases.len()];
        for sample in &raw.samples {
            if let Some(own) = by_case.get_mut(sample.case) {
                own.push(sample.clone());
            }
        }
        let cases: Vec<CaseResult> = plan
            .cases
            .iter()
            .enumerate()
            .map(|(id, case)| {
                let mut samples = std::mem::take(&mut by_case[id]);
                interference::mark_excluded(&mut samples, exclude_interfered);
                let mut summary = summarize_case(&interference::counted(&samples), plan.metric);
                if let Some(summary) = summary.as_mut() {
                    summary.profile_cost =
                        profile_cost::case_cost(&samples, plan.metric, exclude_interfered);
                }
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
                    interference: interference::tally(&samples),
                    samples,
                }
            })
            .collect();
        let mut warnings = raw.warnings.clone();
        let tallies: Vec<_> = cases
            .iter()
            .filter_map(|c| c.interference.clone())
            .collect();
        warnings.extend(cases.iter().filter_map(|c| {
            c.interference
                .as_ref()?
                .warning(&c.label, &c.case.group_label())
        }));
        warnings.extend(interference::exclusion_note(&tallies, exclude_interfered));
        let mut comparisons = Vec::new();
        // Per comparison: the log ratios the verdict rests on (the clean
        // pairs when any trial was interfered with) and those of all pairs.
        let mut basis_logs = Vec::new();
        let mut all_logs = Vec::new();
        let mut precision = Vec::new();
        let stats = settings.statistics;
        for group in plan.groups() {
            let baseline = group[0];
            let mut group_logs = Vec::new();
            for &other in &group[1..] {
                let b = interference::counted(&cases[baseline].samples);
                let o = interference::counted(&cases[other].samples);
                let Some(ratio) = compare_cases(&b, &o, plan.metric) else {
                    continue;
                };
                let logs = compared_log_ratios(&b, &o, plan.metric).unwrap_or_default();
                let (cb, co) = (busy::clean(&b), busy::clean(&o));
                let clean_ratio = compare_cases(&cb, &co, plan.metric);
                let share = busy::interfered_share(
                    ratio.pairs,
                    clean_ratio.as_ref().map_or(0, |r| r.pairs),
                );
                let (shown, basis) = if share > 0.0 {
                    let clean_logs = compared_log_ratios(&cb, &co, plan.metric).unwrap_or_default();
                    (clean_ratio.unwrap_or_else(|| ratio.clone()), clean_logs)
                } else {
                    (ratio, logs.clone())
                };
                comparisons.push(ComparisonResult {
                    group: plan.cases[baseline].group_label(),
                    baseline,
                    other,
                    verdict: shown.verdict(),
                    throughput_ratio: shown,
                    interfered_share: share,
                    p_value: None,
                    p_adjusted: None,
                });
                group_logs.push(if basis.is_empty() {
                    logs.clone()
                } else {
                    basis.clone()
                });
                basis_logs.push(basis);
                all_logs.push(logs);
            }
            if let Some(target) = &stats.precision {
                if group.len() > 1 && !group_logs.is_empty() {
                    precision.push(group_precision(
                        plan.cases[baseline].group_label(),
                        target,
                        plan.runs as usize,
                        &group_logs,
                        raw.complete,
                    ));
                }
            }
        }
        // Times are ratios of baseline over other; throughput is the
        // inverse, so a positive mean log ratio is `other` faster, and
        // the tested verdict keeps the sign convention of the CI's.
        let basis_slices: Vec<&[f64]> = basis_logs.iter().map(Vec::as_slice).collect();
        let all_slices: Vec<&[f64]> = all_logs.iter().map(Vec::as_slice).collect();
        let tested = fdr::test_all(&basis_slices, stats.adjustment, stats.min_effect());
        let on_all = fdr::test_all(&all_slices, stats.adjustment, stats.min_effect());
        for ((comparison, t), all) in comparisons.iter_mut().zip(&tested).zip(&on_all) {
            comparison.p_value = t.p;
            comparison.p_adjusted = t.p_adjusted;
            comparison.verdict = busy::settle(t.verdict, all.verdict, comparison.interfered_share);
        }
        // A map's point stopped short of its target because its verdict was
        // decided or out of reach (`stats::decided`) says so, not that time
        // ran out.
        if let Some(target) = stats.precision.filter(|p| p.until_decided) {
            let looks = crate::stats::decided::looks(plan.runs, target.max_runs);
            let margin = stats.min_effect();
            for report in precision
                .iter_mut()
                .filter(|r| r.stopped_by == StoppedBy::MaxTime)
            {
                let ours: Vec<&ComparisonResult> = comparisons
                    .iter()
                    .filter(|c| c.group == report.group)
                    .collect();
                if !ours.is_empty()
                    && ours.iter().all(|c| {
                        crate::stats::decided::comparison_done(
                            &c.throughput_ratio,
                            c.verdict,
                            margin,
                            looks,
                            target.max_runs,
                        )
                    })
                {
                    report.stopped_by = StoppedBy::Decided;
                }
            }
        }
        let short_trials = cases
            .iter()
            .filter_map(|c| short_trial(c.id, &c.counted_samples(), SHORT_TRIAL_NS))
            .collect();
        let profile_cost = settings.profile.as_ref().map(|p| {
            let inputs: Vec<profile_cost::CostInput> = cases
                .iter()
                .map(|c| profile_cost::CostInput {
                    id: c.id,
                    cache: c.case.cache,
                    samples: &c.samples,
                })
                .collect();
            profile_cost::run_cost(&inputs, p.control_trials, plan.metric, exclude_interfered)
        });
        let statistics = StatisticsReport {
            adjustment: stats.adjustment,
            family: tested.iter().filter(|t| t.p.is_some()).count(),
            precision,
            short_trials,
            profile_cost,
        };
        RunResults {
            environment,
            command_line,
            settings,
            cases,
            comparisons,
            failures: raw.failures.clone(),
            warnings,
            complete: raw.complete,
            statistics,
            claims: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_case_result_reads_back_every_field_it_writes() {
        let results = crate::fixtures::results();
        let mut case = results.cases[1].clone();
        case.case.io.stdio_buffer = Some(8192);
        case.case.replica = Some(1);
        case.interference = Some(crate::analysis::interference::CaseInterference {
            trials: 3,
            interfered: 1,
            ..Default::default()
        });
        let mut empty = results.cases[2].clone();
        empty.summary = None;
        for case in [case, empty] {
            let text = serde_json::to_string_pretty(&case).unwrap();
            for back in [
                serde_json::from_str::<CaseResult>(&text).unwrap(),
                serde_json::from_reader::<_, CaseResult>(text.as_bytes()).unwrap(),
            ] {
                assert_eq!(serde_json::to_string_pretty(&back).unwrap(), text, "{text}");
                assert_eq!(back.case, case.case);
                assert_eq!(back.samples, case.samples);
            }
        }
    }

    #[test]
    fn a_case_result_refuses_what_the_derived_reader_refused() {
        let case = crate::fixtures::results().cases[0].clone();
        for field in ["id", "label", "samples", "method"] {
            let mut value = serde_json::to_value(&case).unwrap();
            value.as_object_mut().unwrap().remove(field);
            let err = serde_json::from_value::<CaseResult>(value).unwrap_err();
            assert!(
                err.to_string()
                    .contains(&format!("missing field `{field}`")),
                "{err}"
            );
        }
        let text = serde_json::to_string(&case).unwrap();
        let twice = text.replacen('{', "{\"label\":\"x\",", 1);
        let err = serde_json::from_str::<CaseResult>(&twice).unwrap_err();
        assert!(err.to_string().contains("duplicate field `label`"), "{err}");
        // A summary given as null, or left out, is none.
        let mut value = serde_json::to_value(&case).unwrap();
        value.as_object_mut().unwrap().remove("summary");
        assert!(serde_json::from_value::<CaseResult>(value)
            .unwrap()
            .summary
            .is_none());
    }
}
