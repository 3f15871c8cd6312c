//! What a complete run's trials took, kept for later dry runs
//! ([`crate::files::trial_times`]): per case, the median of its trials'
//! wall time as the child measured it, plus the run's own cost per trial
//! around the child (cache preparation, the spawn, residency checks), and
//! the runs it took under the run's rules. A case whose trials were mostly
//! interfered with is not recorded: its times and the rounds its rules
//! added are the load's, and the next dry run on a quiet machine would be
//! estimated from them (a main job beside two CPU hogs took about 3 times
//! as long as a quiet one); its earlier record stays.
use std::collections::BTreeMap;
use std::path::Path;

use crate::files::trial_times::{self, CaseTime};
use crate::plan::precision::Statistics;
use crate::plan::Plan;
use crate::results::RawResults;

/// The trial times of `raw`, a complete run of `plan` whose trials took
/// `trials_s` seconds of wall time in all, under `statistics`; measured
/// `when`.
pub fn measured(
    plan: &Plan,
    raw: &RawResults,
    trials_s: f64,
    statistics: &Statistics,
    when: &str,
) -> BTreeMap<String, CaseTime> {
    let warmups = plan.cases.len() * plan.warmup as usize;
    let trials = raw.samples.len() + raw.failures.len() + warmups;
    if trials == 0 {
        return BTreeMap::new();
    }
    let child_s: f64 = raw
        .samples
        .iter()
        .map(|s| s.child.wall_ns as f64 / 1e9)
        .sum();
    // What the run spent around its children (warm-ups' own time too).
    let around = ((trials_s - child_s) / trials as f64).max(0.0);
    let rules = statistics.rules_words(plan.runs);
    let mut out = BTreeMap::new();
    for (id, case) in plan.cases.iter().enumerate() {
        let own: Vec<&crate::results::Sample> = raw
            .samples
            .iter()
            .filter(|s| s.case == id && !s.profile_control)
            .collect();
        if mostly_interfered(&own) {
            continue;
        }
        let mut walls: Vec<f64> = own.iter().map(|s| s.child.wall_ns as f64 / 1e9).collect();
        if walls.is_empty() {
            continue;
        }
        walls.sort_by(f64::total_cmp);
        let median = walls[walls.len() / 2];
        let runs = raw
            .samples
            .iter()
            .filter(|s| s.case == id && !s.profile_control)
            .map(|s| s.run + 1)
            .max()
            .unwrap_or(plan.runs);
        if let Some(key) = trial_times::key(case) {
            out.insert(
                key,
                CaseTime {
                    seconds: median + around,
                    runs,
                    rules: rules.clone(),
                    when: when.to_string(),
                },
            );
        }
    }
    out
}

/// Whether more than half of `samples` were interfered with.
fn mostly_interfered(samples: &[&crate::results::Sample]) -> bool {
    let interfered = samples
        .iter()
        .filter(|s| s.interference.as_ref().is_some_and(|i| i.interfered))
        .count();
    2 * interfered > samples.len()
}

/// Records the trial times of a run of `spec` whose trials took `trials_s`
/// seconds, in data directory `dir`: only a complete run that was not
/// resumed (`fresh`; a resumed run's trials ran at two times, a measure of
/// neither).
pub fn record_run(
    dir: &Path,
    spec: &crate::runner::RunSpec,
    raw: &RawResults,
    (trials_s, fresh): (f64, bool),
    results: &crate::results::RunResults,
) {
    if !raw.complete || !fresh {
        return;
    }
    let when = results.environment.captured_at.clone().unwrap_or_default();
    let statistics = spec.statistics_or_default();
    record(dir, measured(&spec.plan, raw, trials_s, &statistics, &when));
}

/// Records them in data directory `dir`; a failure is a warning, never the
/// run's.
fn record(dir: &Path, measured: BTreeMap<String, CaseTime>) {
    if measured.is_empty() {
        return;
    }
    if let Err(e) = trial_times::record(dir, measured) {
        crate::console::warning(&format!(
            "could not record the trial times for later dry runs: {e}"
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::method::MethodKind;

    fn plan() -> Plan {
        Plan {
            cases: vec![
                crate::fixtures::case(MethodKind::Read),
                crate::fixtures::case(MethodKind::Mmap),
            ],
            runs: 4,
            warmup: 0,
            order: Default::default(),
            metric: Default::default(),
            seed: 1,
        }
    }

    fn raw(interfered_runs_of_case_1: u32) -> RawResults {
        let mut samples = Vec::new();
        for run in 0..4 {
            for case in 0..2 {
                let mut s = crate::fixtures::sample(case, run);
                s.child.wall_ns = 10_000_000;
                s.interference = Some(crate::measure::interference::Interference {
                    interfered: case == 1 && run < interfered_runs_of_case_1,
                    ..Default::default()
                });
                samples.push(s);
            }
        }
        RawResults {
            samples,
            failures: vec![],
            warnings: vec![],
            complete: true,
        }
    }

    #[test]
    fn a_case_whose_trials_were_mostly_interfered_keeps_its_earlier_record() {
        let key = |id: usize| trial_times::key(&plan().cases[id]).unwrap();
        let stats = Statistics::default();
        // Half interfered: recorded.
        let half = measured(&plan(), &raw(2), 0.1, &stats, "t");
        assert!(
            half.contains_key(&key(0)) && half.contains_key(&key(1)),
            "{half:?}"
        );
        // Three of four: not recorded, the other case still is.
        let busy = measured(&plan(), &raw(3), 0.1, &stats, "t");
        assert!(busy.contains_key(&key(0)), "{busy:?}");
        assert!(!busy.contains_key(&key(1)), "{busy:?}");
        assert!((busy[&key(0)].seconds - 0.01).abs() < 0.02, "{busy:?}");
    }
}
