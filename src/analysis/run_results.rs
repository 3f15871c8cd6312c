//! The results of a run assembled from its raw samples
//! ([`RunResults::assemble`]): per-case summaries, each case's paired
//! comparison with its group's baseline, and the run-wide statistics; and
//! whether a group's comparisons need more runs
//! ([`RunResults::group_done`]). The types are plain data in
//! [`crate::results`].
use crate::analysis::case_summary::{compare_cases, compared_log_ratios, summarize_case};
use crate::analysis::short_trials::{short_trial, SHORT_TRIAL_NS};
use crate::analysis::stopping::group_precision;
use crate::analysis::{busy, interference, profile_cost};
use crate::measure::environment::Environment;
use crate::plan::precision::Statistics;
use crate::plan::Plan;
use crate::results::{
    CaseResult, ComparisonResult, GroupPrecision, RawResults, RunCost, RunResults, Sample,
    Settings, StatisticsReport, StoppedBy,
};
use crate::stats::{decided, fdr};

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
                decided::comparison_done(&c.throughput_ratio, c.verdict, margin, looks, max_runs)
            })
    }
}

impl RunResults {
    /// Builds the results from the raw samples: per-case summaries and each
    /// case's paired comparison with the first case of its group.
    pub fn assemble(
        plan: &Plan,
        raw: &RawResults,
        environment: Environment,
        settings: Settings,
        command_line: Vec<String>,
    ) -> RunResults {
        let exclude_interfered = settings.interference.is_some_and(|i| i.exclude);
        let stats = settings.statistics;
        let cases = case_results(plan, raw, exclude_interfered);
        let warnings = warnings(raw, &cases, exclude_interfered);
        let Compared {
            mut comparisons,
            basis_logs,
            all_logs,
            mut precision,
        } = compare_groups(plan, &cases, &stats, raw.complete);
        let family = adjust(&mut comparisons, &basis_logs, &all_logs, &stats);
        mark_decided(&mut precision, &comparisons, plan, &stats);
        let short_trials = cases
            .iter()
            .filter_map(|c| short_trial(c.id, &c.counted_samples(), SHORT_TRIAL_NS))
            .collect();
        let profile_cost = settings
            .profile
            .as_ref()
            .map(|p| run_profile_cost(&cases, p.control_trials, plan, exclude_interfered));
        let statistics = StatisticsReport {
            adjustment: stats.adjustment,
            family,
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

/// Each case of the plan with its samples (marked for what the statistics
/// leave out) and its summary over the counted ones.
fn case_results(plan: &Plan, raw: &RawResults, exclude_interfered: bool) -> Vec<CaseResult> {
    // Each case's samples, in the order they ran: one pass, not one
    // per case (a plan may have 100,000 cases).
    let mut by_case: Vec<Vec<Sample>> = vec![Vec::new(); plan.cases.len()];
    for sample in &raw.samples {
        if let Some(own) = by_case.get_mut(sample.case) {
            own.push(sample.clone());
        }
    }
    plan.cases
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
        .collect()
}

/// The run's warnings: those raised while running, then each case's
/// interference and what `--exclude-interfered` left out.
fn warnings(raw: &RawResults, cases: &[CaseResult], exclude_interfered: bool) -> Vec<String> {
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
    warnings
}

/// The paired comparisons of every group, before the run-wide adjustment.
struct Compared {
    comparisons: Vec<ComparisonResult>,
    /// Per comparison: the log ratios its verdict rests on (the clean pairs
    /// when any trial was interfered with)...
    basis_logs: Vec<Vec<f64>>,
    /// ...and those of all its pairs.
    all_logs: Vec<Vec<f64>>,
    /// Per group, with `--precision`: whether it reached the target.
    precision: Vec<GroupPrecision>,
}

/// One comparison of a case with its group's baseline, with the log ratios
/// its verdict rests on and those of all its pairs.
struct Pair {
    comparison: ComparisonResult,
    basis_logs: Vec<f64>,
    all_logs: Vec<f64>,
}

/// Compares each case with the first case of its group, and with
/// `--precision` reports whether each group reached the target.
fn compare_groups(
    plan: &Plan,
    cases: &[CaseResult],
    stats: &Statistics,
    complete: bool,
) -> Compared {
    let mut out = Compared {
        comparisons: Vec::new(),
        basis_logs: Vec::new(),
        all_logs: Vec::new(),
        precision: Vec::new(),
    };
    for group in plan.groups() {
        let baseline = group[0];
        let mut group_logs = Vec::new();
        for &other in &group[1..] {
            let Some(pair) = compare_pair(plan, cases, baseline, other) else {
                continue;
            };
            group_logs.push(if pair.basis_logs.is_empty() {
                pair.all_logs.clone()
            } else {
                pair.basis_logs.clone()
            });
            out.comparisons.push(pair.comparison);
            out.basis_logs.push(pair.basis_logs);
            out.all_logs.push(pair.all_logs);
        }
        if let Some(target) = &stats.precision {
            if group.len() > 1 && !group_logs.is_empty() {
                out.precision.push(group_precision(
                    plan.cases[baseline].group_label(),
                    target,
                    plan.runs as usize,
                    &group_logs,
                    complete,
                ));
            }
        }
    }
    out
}

/// Case `other` compared with `baseline` over their counted samples, paired
/// by run; over the clean pairs only when any trial was interfered with
/// ([`busy`]). `None` when no pair can be compared.
fn compare_pair(plan: &Plan, cases: &[CaseResult], baseline: usize, other: usize) -> Option<Pair> {
    let b = interference::counted(&cases[baseline].samples);
    let o = interference::counted(&cases[other].samples);
    let ratio = compare_cases(&b, &o, plan.metric)?;
    let logs = compared_log_ratios(&b, &o, plan.metric).unwrap_or_default();
    let (cb, co) = (busy::clean(&b), busy::clean(&o));
    let clean_ratio = compare_cases(&cb, &co, plan.metric);
    let share = busy::interfered_share(ratio.pairs, clean_ratio.as_ref().map_or(0, |r| r.pairs));
    let (shown, basis) = if share > 0.0 {
        let clean_logs = compared_log_ratios(&cb, &co, plan.metric).unwrap_or_default();
        (clean_ratio.unwrap_or_else(|| ratio.clone()), clean_logs)
    } else {
        (ratio, logs.clone())
    };
    Some(Pair {
        comparison: ComparisonResult {
            group: plan.cases[baseline].group_label(),
            baseline,
            other,
            verdict: shown.verdict(),
            throughput_ratio: shown,
            interfered_share: share,
            p_value: None,
            p_adjusted: None,
        },
        basis_logs: basis,
        all_logs: logs,
    })
}

/// Tests every comparison and adjusts its p-value across the run's family
/// (`--fdr`), settling its verdict from the clean pairs and all pairs
/// ([`busy::settle`]); returns the size of the family (comparisons with a
/// p-value).
fn adjust(
    comparisons: &mut [ComparisonResult],
    basis_logs: &[Vec<f64>],
    all_logs: &[Vec<f64>],
    stats: &Statistics,
) -> usize {
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
    tested.iter().filter(|t| t.p.is_some()).count()
}

/// A map's point stopped short of its target because its verdict was
/// decided or out of reach ([`decided`]) says so, not that time ran out.
fn mark_decided(
    precision: &mut [GroupPrecision],
    comparisons: &[ComparisonResult],
    plan: &Plan,
    stats: &Statistics,
) {
    let Some(target) = stats.precision.filter(|p| p.until_decided) else {
        return;
    };
    let looks = decided::looks(plan.runs, target.max_runs);
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
                decided::comparison_done(
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

/// What `--profile` cost the run, over its cases' marked samples
/// ([`profile_cost::run_cost`]).
fn run_profile_cost(
    cases: &[CaseResult],
    control_trials: u32,
    plan: &Plan,
    exclude_interfered: bool,
) -> RunCost {
    let inputs: Vec<profile_cost::CostInput> = cases
        .iter()
        .map(|c| profile_cost::CostInput {
            id: c.id,
            cache: c.case.cache,
            samples: &c.samples,
        })
        .collect();
    profile_cost::run_cost(&inputs, control_trials, plan.metric, exclude_interfered)
}
