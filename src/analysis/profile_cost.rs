//! What `--profile` costs the trials it samples, measured in every profiled
//! run: each case's unprofiled control trials (`--profile-control`), run
//! beside its profiled trials of the same run numbers with the same cache
//! preparation, paired with them run by run.
//!
//! - Throughput: the paired ratio of [`crate::stats::compare::paired_ratio`],
//!   profiled over unprofiled (below 1: profiling slowed the trial), over
//!   the compared time the run's metric names ([`super::case_summary`]).
//! - CPU time per byte delivered (user + system of the whole trial
//!   process, the sampler's drain thread included), profiled over
//!   unprofiled (above 1: profiling cost CPU time).
//!
//! The run's figure pools the pairs of its warm cases (the target,
//! at most 5% throughput, is stated for warm cases), or of every case when
//! none is warm. Pure arithmetic over samples; the report words it.
use std::collections::BTreeMap;

use super::paired_costs::paired_compared_costs;
use crate::plan::{CacheState, Metric};
use crate::results::{PooledCost, ProfileCost, RunCost, Sample, TargetVerdict};
use crate::stats::paired_ratio;

/// The cost the issue sets as the target: at most 5% of throughput.
pub const TARGET: f64 = 0.05;

/// The profiled trials and the control trials of one case that pair up:
/// `(control times, profiled times)` and `(profiled CPU per byte, control
/// CPU per byte)`, in run order.
struct Pairs {
    times: (Vec<f64>, Vec<f64>),
    cpu: (Vec<f64>, Vec<f64>),
}

/// The pairs of one case's `samples` (marked by
/// [`super::interference::mark_excluded`]): the counted profiled trials and
/// the control trials (without the interfered ones when
/// `exclude_interfered`); `None` when no control trial pairs up.
fn pairs(samples: &[Sample], metric: Metric, exclude_interfered: bool) -> Option<Pairs> {
    let profiled: Vec<Sample> = samples
        .iter()
        .filter(|s| s.excluded.is_none() && !s.profile_control)
        .cloned()
        .collect();
    let controls: Vec<Sample> = samples
        .iter()
        .filter(|s| s.profile_control && !(exclude_interfered && s.interfered()))
        .cloned()
        .collect();
    let times = paired_compared_costs(&controls, &profiled, metric)?;
    if times.0.is_empty() {
        return None;
    }
    let cpu_per_byte = |s: &Sample| {
        (s.child.rusage.user_ns + s.child.rusage.sys_ns) as f64 / s.child.bytes.max(1) as f64
    };
    let by_run = |samples: &[Sample]| -> BTreeMap<u32, f64> {
        samples.iter().map(|s| (s.run, cpu_per_byte(s))).collect()
    };
    let (with, without) = (by_run(&profiled), by_run(&controls));
    let cpu = with
        .iter()
        .filter_map(|(run, &w)| without.get(run).map(|&u| (w, u)))
        .unzip();
    Some(Pairs { times, cpu })
}

/// What profiling cost the trials of one case (see the module docs);
/// `None` when none of its control trials pairs with a profiled trial.
pub fn case_cost(
    samples: &[Sample],
    metric: Metric,
    exclude_interfered: bool,
) -> Option<ProfileCost> {
    let p = pairs(samples, metric, exclude_interfered)?;
    Some(ProfileCost {
        pairs: p.times.0.len(),
        throughput_ratio: paired_ratio(&p.times.0, &p.times.1),
        cpu_per_byte_ratio: paired_ratio(&p.cpu.0, &p.cpu.1),
    })
}

/// One case for [`run_cost`]: its cache state and its marked samples.
pub struct CostInput<'a> {
    /// The case's id.
    pub id: usize,
    /// Its cache state.
    pub cache: CacheState,
    /// Its samples, marked.
    pub samples: &'a [Sample],
}

/// The run's cost over its warm cases (every case when none is warm), with
/// `control_trials` per case asked for; see the module docs.
pub fn run_cost(
    cases: &[CostInput<'_>],
    control_trials: u32,
    metric: Metric,
    exclude_interfered: bool,
) -> RunCost {
    if control_trials == 0 {
        return RunCost::NotMeasured {
            why: "--profile-control 0".to_string(),
        };
    }
    let any_warm = cases.iter().any(|c| c.cache == CacheState::Warm);
    let scope = if any_warm { "warm" } else { "all" };
    let mut ids = Vec::new();
    let mut per_case = Vec::new();
    let (mut times, mut cpu) = ((vec![], vec![]), (vec![], vec![]));
    for case in cases
        .iter()
        .filter(|c| !any_warm || c.cache == CacheState::Warm)
    {
        let Some(p) = pairs(case.samples, metric, exclude_interfered) else {
            continue;
        };
        ids.push(case.id);
        per_case.push(p.times.0.len());
        times.0.extend(p.times.0);
        times.1.extend(p.times.1);
        cpu.0.extend(p.cpu.0);
        cpu.1.extend(p.cpu.1);
    }
    if ids.is_empty() {
        return RunCost::NotMeasured {
            why: "no control trial has a profiled trial to pair with yet".to_string(),
        };
    }
    let throughput_ratio = paired_ratio(&times.0, &times.1);
    let floor = 1.0 - TARGET;
    let target_verdict = match &throughput_ratio {
        Some(r) if r.ci95_low >= floor => TargetVerdict::Met,
        Some(r) if r.ci95_high < floor => TargetVerdict::Missed,
        _ => TargetVerdict::Undecided,
    };
    RunCost::Measured(PooledCost {
        scope: scope.to_string(),
        cases: ids,
        pairs: times.0.len(),
        pairs_per_case: (
            per_case.iter().copied().min().unwrap_or(0),
            per_case.iter().copied().max().unwrap_or(0),
        ),
        throughput_ratio,
        cpu_per_byte_ratio: paired_ratio(&cpu.0, &cpu.1),
        target: TARGET,
        target_verdict,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::interference::mark_excluded;

    /// A trial of run `run` whose compared time is `ms` ms and whose CPU
    /// time is `cpu_ms` ms, profiled or a control.
    fn trial(run: u32, control: bool, ms: u64, cpu_ms: u64) -> Sample {
        let mut s = crate::fixtures::sample(0, run);
        s.total_ns = ms * 1_000_000;
        s.child.wall_ns = ms * 1_000_000;
        s.child.bytes = 1 << 20;
        s.child.rusage.user_ns = cpu_ms * 1_000_000;
        s.child.rusage.sys_ns = 0;
        s.profile_control = control;
        s
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn the_cost_pairs_each_profiled_trial_with_its_runs_control() {
        // Profiled trials take 105, 110, 100 ms; their controls 100 ms;
        // run 3 has no control and does not count. CPU: 21 vs 20 ms each.
        let mut samples = vec![
            trial(0, false, 105, 21),
            trial(0, true, 100, 20),
            trial(1, true, 100, 20),
            trial(1, false, 110, 21),
            trial(2, false, 100, 21),
            trial(2, true, 100, 20),
            trial(3, false, 90, 21),
        ];
        mark_excluded(&mut samples, false);
        let cost = case_cost(&samples, Metric::Total, false).unwrap();
        assert_eq!(cost.pairs, 3);
        // Throughput with over without: 100/105, 100/110, 100/100, as
        // compare.rs's paired ratio of the controls' times over the profiled.
        let t = cost.throughput_ratio.unwrap();
        let expected = paired_ratio(&[100.0, 100.0, 100.0], &[105.0, 110.0, 100.0]).unwrap();
        assert!(close(t.ratio, expected.ratio), "{t:?}");
        assert!(close(
            t.ratio,
            (100.0f64.powi(3) / (105.0 * 110.0 * 100.0)).cbrt()
        ));
        assert!(t.ci95_low < t.ratio && t.ratio < t.ci95_high);
        assert_eq!(t.pairs, 3);
        // CPU per byte: 21/20 in every pair, a zero-width CI.
        let c = cost.cpu_per_byte_ratio.unwrap();
        assert!(close(c.ratio, 1.05) && close(c.ci95_low, 1.05), "{c:?}");
    }

    #[test]
    fn a_retried_profiled_trial_pairs_by_its_last_attempt_and_excluded_controls_drop_out() {
        let mut retried = trial(0, false, 500, 21);
        retried.interference = Some(crate::measure::interference::Interference {
            interfered: true,
            ..Default::default()
        });
        let mut again = trial(0, false, 110, 21);
        again.attempt = 1;
        let mut interfered_control = trial(1, true, 50, 20);
        interfered_control.interference = retried.interference.clone();
        let mut samples = vec![
            retried,
            trial(0, true, 100, 20),
            again,
            trial(1, false, 100, 20),
            interfered_control,
        ];
        mark_excluded(&mut samples, false);
        let cost = case_cost(&samples, Metric::Total, false).unwrap();
        assert_eq!(cost.pairs, 2);
        let t = cost.throughput_ratio.unwrap();
        assert!(
            close(t.ratio, (100.0 / 110.0 * 50.0 / 100.0f64).sqrt()),
            "{t:?}"
        );
        // With --exclude-interfered the interfered control's pair goes: one
        // pair, no CI.
        mark_excluded(&mut samples, true);
        let cost = case_cost(&samples, Metric::Total, true).unwrap();
        assert_eq!(cost.pairs, 1);
        assert_eq!(cost.throughput_ratio, None);
    }

    #[test]
    fn the_run_pools_its_warm_cases_and_says_when_it_was_not_measured() {
        let case = |ms: [u64; 2]| {
            let mut s = vec![
                trial(0, false, ms[0], 10),
                trial(0, true, 100, 10),
                trial(1, false, ms[1], 10),
                trial(1, true, 100, 10),
            ];
            mark_excluded(&mut s, false);
            s
        };
        let (warm_a, warm_b, cold) = (case([101, 102]), case([102, 101]), case([200, 210]));
        let inputs = [
            CostInput {
                id: 0,
                cache: CacheState::Warm,
                samples: &warm_a,
            },
            CostInput {
                id: 1,
                cache: CacheState::Cold,
                samples: &cold,
            },
            CostInput {
                id: 2,
                cache: CacheState::Warm,
                samples: &warm_b,
            },
        ];
        let RunCost::Measured(cost) = run_cost(&inputs, 2, Metric::Total, false) else {
            panic!("measured");
        };
        assert_eq!(cost.scope, "warm");
        assert_eq!(cost.cases, [0, 2]);
        assert_eq!((cost.pairs, cost.pairs_per_case), (4, (2, 2)));
        let t = cost.throughput_ratio.as_ref().unwrap();
        let pooled = paired_ratio(&[100.0; 4], &[101.0, 102.0, 102.0, 101.0]).unwrap();
        assert!(close(t.ratio, pooled.ratio), "{t:?}");
        // About 1.5% slower, with a CI inside 5%: the target is met.
        assert_eq!(cost.target_verdict, TargetVerdict::Met);
        assert_eq!(cost.target, 0.05);
        // Only cold cases: they are pooled, and said to be all; 2x slower
        // misses the target.
        let RunCost::Measured(cold_only) = run_cost(&inputs[1..2], 2, Metric::Total, false) else {
            panic!("measured");
        };
        assert_eq!((cold_only.scope.as_str(), cold_only.pairs), ("all", 2));
        assert_eq!(cold_only.target_verdict, TargetVerdict::Missed);
        // --profile-control 0, or nothing paired yet.
        assert_eq!(
            run_cost(&inputs, 0, Metric::Total, false),
            RunCost::NotMeasured {
                why: "--profile-control 0".into()
            }
        );
        let lone = [trial(0, false, 100, 10)];
        let none = [CostInput {
            id: 0,
            cache: CacheState::Warm,
            samples: &lone,
        }];
        assert!(matches!(
            run_cost(&none, 3, Metric::Total, false),
            RunCost::NotMeasured { .. }
        ));
        let json = serde_json::to_value(run_cost(&inputs, 0, Metric::Total, false)).unwrap();
        assert_eq!(json["status"], "not measured");
    }
}
