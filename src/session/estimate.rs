//! How long a plan is expected to take, for the dry run: each case's
//! trials at the time this machine last measured for it
//! ([`crate::files::trial_times`]), else at assumed device and page-cache
//! rates; the rounds its rules are expected to add, and the most they may.
use super::RunSpec;
use crate::plan::precision::Precision;
use crate::plan::{Case, Plan};

/// How many times one trial of `case` passes over its file: once per
/// process, and once per thread when each thread runs the whole workload
/// (split threads share one pass).
pub fn passes(case: &Case) -> u64 {
    let threads = case.threads.map_or(1, |t| match t.mode {
        crate::plan::ThreadMode::Split => 1,
        crate::plan::ThreadMode::Replicate => u64::from(t.count),
    });
    threads * u64::from(case.procs.unwrap_or(1).max(1))
}

/// The bytes one pass of `case` moves: a replayed trace's reads (or, for a
/// write method, its writes), else the whole file.
pub fn bytes_per_pass(case: &Case) -> u64 {
    match &case.trace {
        Some(t) if case.method.writes() => t.write_bytes,
        Some(t) => t.read_bytes,
        None => case.file_size,
    }
}

/// The device requests one cold pass of `case` makes at least: a trace's
/// operations, else one per block.
pub(super) fn requests_per_pass(case: &Case) -> u64 {
    match &case.trace {
        Some(t) if case.method.writes() => t.writes,
        Some(t) => t.reads,
        None => case.file_size.div_ceil(case.block_size.max(1)),
    }
}

/// Seconds generating `bytes` of test files takes at the assumed rate.
pub fn generating_seconds(bytes: u128) -> f64 {
    bytes as f64 / ASSUMED_DEVICE_BYTES_PER_S
}

/// The estimate of a run of `plan` under `config`'s rules, from what this
/// machine measured of its cases.
pub fn of_run(plan: &Plan, config: &RunSpec) -> (Estimate, Measured) {
    let measured = Measured::of(plan, &config.data_dir);
    let estimate = Estimate::of(
        plan,
        config.statistics_or_default().precision.as_ref(),
        &measured,
    );
    (estimate, measured)
}

/// The estimate in words: the time the run is expected to take, where its
/// trial times come from, the rounds the rules are expected to add, the
/// most they may add, and the rates assumed for cases not measured here.
pub fn estimate_lines(
    plan: &Plan,
    precision: Option<&Precision>,
    estimate: &Estimate,
    measured: &Measured,
    to_generate: u128,
) -> Vec<String> {
    let generate = generating_seconds(to_generate);
    let known = measured.count();
    let source = match (known, &measured.when) {
        (0, _) => "at the rates assumed below".to_string(),
        (k, when) => format!(
            "{k} of the {} cases timed from their last run on this machine{}{}",
            plan.cases.len(),
            when.as_deref()
                .filter(|w| !w.is_empty())
                .map(|w| format!(" ({w})"))
                .unwrap_or_default(),
            if k < plan.cases.len() {
                ", the others at the rates assumed below"
            } else {
                ""
            }
        ),
    };
    let rounds = if estimate.rounds_s > 0.0 {
        format!(
            "; {} of rounds the rules added to the same cases then",
            format_duration(estimate.rounds_s)
        )
    } else {
        String::new()
    };
    let most = match precision {
        Some(p) if estimate.most_rounds_s > estimate.rounds_s => format!(
            "; up to {} if the rules add every round they may ({} runs per case{})",
            format_duration(estimate.planned_s + estimate.most_rounds_s + generate),
            p.max_runs,
            match p.max_time_s {
                Some(t) if estimate.budget_bound =>
                    format!(", cut to --max-time {}", format_duration(t)),
                _ => String::new(),
            }
        ),
        _ => String::new(),
    };
    let generating = if generate > 0.0 {
        format!(", and {} generating test files", format_duration(generate))
    } else {
        String::new()
    };
    let mut lines = vec![format!(
        "  estimated time: about {} ({} of planned trials, {source}{rounds}{generating}{most})",
        format_duration(estimate.total_s() + generate),
        format_duration(estimate.planned_s),
    )];
    if known < plan.cases.len() || generate > 0.0 {
        lines.push(format!(
            "  assumed rates: {} MB/s and {}k random requests/s from the device, {} MB/s from the \
             page cache, {} ms per trial; the progress bar's estimate, from this run's trials, \
             replaces them",
            ASSUMED_DEVICE_BYTES_PER_S / 1e6,
            ASSUMED_DEVICE_REQUESTS_PER_S / 1e3,
            ASSUMED_CACHED_BYTES_PER_S / 1e6,
            ASSUMED_SECONDS_PER_TRIAL * 1e3,
        ));
    }
    lines
}

/// What this machine measured of a plan's cases: each case's last trial
/// time and runs here ([`crate::files::trial_times`]), if it ran before.
#[derive(Clone, Debug, Default)]
pub struct Measured {
    /// By case index.
    times: Vec<Option<crate::files::trial_times::CaseTime>>,
    /// When the most recent of them was measured.
    when: Option<String>,
}

impl Measured {
    /// The record in data directory `dir`, matched to `plan`'s cases.
    pub fn of(plan: &Plan, dir: &std::path::Path) -> Measured {
        let Some(record) = crate::files::trial_times::read(dir) else {
            return Measured::default();
        };
        let times: Vec<_> = plan
            .cases
            .iter()
            .map(|c| crate::files::trial_times::key(c).and_then(|k| record.cases.get(&k).cloned()))
            .collect();
        let when = times.iter().flatten().map(|t| t.when.clone()).max();
        Measured { times, when }
    }

    /// How many of the cases were measured here.
    fn count(&self) -> usize {
        self.times.iter().flatten().count()
    }

    /// Case `i`'s measured time, if any.
    fn get(&self, i: usize) -> Option<&crate::files::trial_times::CaseTime> {
        self.times.get(i).and_then(Option::as_ref)
    }
}

/// Bytes per second the estimate assumes a file is read or written at on
/// the device (cold reads, synced writes, the read that warms a cache), for
/// a case this machine has not measured. A round figure for an SSD: the
/// development VM read 256 MiB cold at 1.6 GB/s.
const ASSUMED_DEVICE_BYTES_PER_S: f64 = 1e9;
/// Requests per second the estimate assumes for cold random blocks read
/// one at a time (the development VM: 65,536 cold random 4 KiB preads in
/// 2.2 s, 30k a second).
const ASSUMED_DEVICE_REQUESTS_PER_S: f64 = 25e3;
/// Bytes per second the estimate assumes for bytes in the page cache (the
/// development VM: 2.4 GB/s for 4 KiB preads, 10 GB/s for a mapping read
/// in place).
const ASSUMED_CACHED_BYTES_PER_S: f64 = 4e9;
/// Seconds the estimate assumes each trial costs besides its bytes (the
/// child process, residency checks, a cold file's eviction; the
/// development VM: 17 ms).
const ASSUMED_SECONDS_PER_TRIAL: f64 = 0.02;
/// Bytes the kernel reads ahead around a fault in a mapping (the default
/// `read_ahead_kb`, 128): a cold mapping read in random order costs one
/// device request per window, not per block.
const ASSUMED_FAULT_READ_AHEAD: u64 = 128 << 10;

/// One trial of `case` at the assumed rates: the main loop over the bytes
/// it passes (or its duration), a sync, the read-back of a written file,
/// and a fixed cost. A warm file's preparation (read whole from the
/// device) is counted once per group ([`warm_preparations`]): the trials
/// after the first start from the cache the last one left.
fn trial_seconds(c: &Case) -> f64 {
    let device = |bytes: u64| bytes as f64 / ASSUMED_DEVICE_BYTES_PER_S;
    let cached = |bytes: u64| bytes as f64 / ASSUMED_CACHED_BYTES_PER_S;
    let bytes = bytes_per_pass(c) * passes(c);
    let main = match c.duration_s {
        Some(s) => f64::from(s),
        None if c.method.writes() => {
            let synced = c.sync.is_some_and(|s| s != crate::method::SyncPolicy::None);
            cached(bytes) + if synced { device(bytes) } else { 0.0 } + cached(c.file_size)
        }
        None if c.cache == crate::plan::CacheState::Cold => {
            let mut requests = requests_per_pass(c) * passes(c);
            if c.method.maps_file() {
                requests = requests.min(c.file_size.div_ceil(ASSUMED_FAULT_READ_AHEAD) * passes(c));
            }
            let random = c.pattern != crate::pattern::Pattern::Seq || c.trace.is_some();
            let waits = if random {
                requests as f64 / ASSUMED_DEVICE_REQUESTS_PER_S
            } else {
                0.0
            };
            // A cold read through a throttled disk (--device-rate) takes at
            // least its bytes at that rate.
            let throttled = c
                .device_rate
                .map_or(0.0, |r| bytes as f64 / r.bytes_per_s as f64);
            device(bytes).max(waits).max(throttled)
        }
        // A warm trial repeats its pass until its loops take the shortest
        // trial time (--min-trial-time, or the default without --runs).
        None => cached(bytes).max(c.min_trial_ns.map_or(0.0, |ns| ns as f64 / 1e9)),
    };
    ASSUMED_SECONDS_PER_TRIAL + main.max(paced_seconds(c))
}

/// The warm preparations of a plan's groups at the assumed device rate:
/// each group's warm files read whole once (its later trials keep them).
fn warm_preparations(plan: &Plan, measured: &Measured) -> f64 {
    plan.groups()
        .iter()
        .map(|members| {
            let mut sizes: Vec<u64> = members
                .iter()
                .filter(|&&i| measured.get(i).is_none())
                .map(|&i| &plan.cases[i])
                .filter(|c| c.cache == crate::plan::CacheState::Warm)
                .map(|c| c.file_size)
                .collect();
            sizes.sort_unstable();
            sizes.dedup();
            sizes
                .iter()
                .map(|&b| b as f64 / ASSUMED_DEVICE_BYTES_PER_S)
                .sum::<f64>()
        })
        .sum()
}

/// The least time a paced case's loop takes (`--rate`, `--think-time`):
/// each operation after the first waits an interval or a think time.
fn paced_seconds(c: &Case) -> f64 {
    let Some(pace) = c.pace else {
        return 0.0;
    };
    let waits = requests_per_pass(c).saturating_sub(1) as f64;
    let interval = pace.rate.map_or(0, |r| r.interval_ns(c.block_size));
    let gap = interval.max(pace.think_ns.unwrap_or(0));
    waits * gap as f64 / 1e9
}

/// The plan's planned trials at the assumed rates ([`trial_seconds`] for
/// each of a case's runs and warm-ups, and the groups' warm preparations).
pub fn estimated_seconds(plan: &Plan) -> f64 {
    Estimate::of(plan, None, &Measured::default()).planned_s
}

/// The time of the trials the plan may run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// The planned trials: each case's runs and warm-ups at its time
    /// measured here, else at the assumed rates, and the warm
    /// preparations of the cases not measured.
    pub planned_s: f64,
    /// The rounds the rules are expected to add: as many runs of a case as
    /// they added when it last ran here under the same rules (none for a
    /// case not measured), cut to what `--max-time` leaves.
    pub rounds_s: f64,
    /// The most the rules may add: up to `--max-runs` runs per case, cut
    /// to what `--max-time` leaves after the planned trials (and the round
    /// under way when it runs out); 0 without `--precision`.
    pub most_rounds_s: f64,
    /// Whether `--max-time` cut the most rounds (the rule then stops there).
    pub budget_bound: bool,
}

impl Estimate {
    /// The estimate of `plan` under `precision`, from what `measured`
    /// holds of its cases.
    pub fn of(
        plan: &Plan,
        precision: Option<&crate::plan::precision::Precision>,
        measured: &Measured,
    ) -> Estimate {
        let seconds: Vec<f64> = plan
            .cases
            .iter()
            .enumerate()
            .map(|(i, c)| {
                measured
                    .get(i)
                    .map_or_else(|| trial_seconds(c), |t| t.seconds)
            })
            .collect();
        let trials = f64::from(plan.runs + plan.warmup);
        let planned_s =
            seconds.iter().map(|s| trials * s).sum::<f64>() + warm_preparations(plan, measured);
        let Some(p) = precision else {
            return Estimate {
                planned_s,
                rounds_s: 0.0,
                most_rounds_s: 0.0,
                budget_bound: false,
            };
        };
        let extra_runs = f64::from(p.max_runs.saturating_sub(plan.runs));
        let all_rounds: f64 = seconds.iter().map(|s| extra_runs * s).sum();
        // A round that starts before --max-time runs to its end: the last
        // group's round past the budget, when there is room for rounds.
        let last_round: f64 = plan
            .groups()
            .last()
            .map_or(0.0, |g| g.iter().map(|&i| seconds[i]).sum());
        let room = p.max_time_s.map(|t| (t - planned_s).max(0.0)).map(|room| {
            if room > 0.0 {
                room + last_round
            } else {
                0.0
            }
        });
        let cut = |s: f64| room.map_or(s, |room| s.min(room));
        // The same rules as when the cases were measured: their added runs.
        let rules = crate::plan::precision::Statistics {
            precision: Some(*p),
            ..Default::default()
        };
        let expected: f64 = (0..plan.cases.len())
            .filter_map(|i| measured.get(i).map(|t| (i, t)))
            .filter(|(_, t)| same_rules(&t.rules, &rules.rules_words(plan.runs)))
            .map(|(i, t)| f64::from(t.runs.saturating_sub(plan.runs)) * seconds[i])
            .sum();
        Estimate {
            planned_s,
            rounds_s: cut(expected),
            most_rounds_s: cut(all_rounds),
            budget_bound: room.is_some_and(|room| room < all_rounds),
        }
    }

    /// The planned trials and the rounds expected.
    pub fn total_s(&self) -> f64 {
        self.planned_s + self.rounds_s
    }
}

/// Whether the rules recorded with a measured case are the rules of this
/// plan as far as adding runs goes (the part before the smallest effect).
fn same_rules(recorded: &str, now: &str) -> bool {
    let runs_part = |s: &str| s.split(';').next().unwrap_or("").to_string();
    runs_part(recorded) == runs_part(now)
}

/// `45 s`, `3 min 20 s`, `2 h 05 min`.
pub fn format_duration(seconds: f64) -> String {
    let s = seconds.round() as u64;
    match s {
        0..=59 => format!("{} s", s.max(1)),
        60..=3599 => format!("{} min {:02} s", s / 60, s % 60),
        _ => format!("{} h {:02} min", s / 3600, s % 3600 / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::method::MethodKind;
    use crate::pattern::Pattern;
    use crate::plan::{CacheState, ThreadMode, Threads};
    use crate::workload::WorkloadKind;

    #[test]
    fn a_trial_passes_over_its_file_once_per_replicate_thread_and_process() {
        let one = crate::studies::read_case(
            MethodKind::Read,
            Pattern::Seq,
            4096,
            1 << 20,
            WorkloadKind::Touch,
            CacheState::Warm,
        );
        let with = |count, mode, procs| Case {
            threads: Some(Threads { count, mode }),
            procs,
            ..one.clone()
        };
        assert_eq!(passes(&one), 1);
        assert_eq!(passes(&with(10, ThreadMode::Split, None)), 1);
        assert_eq!(passes(&with(10, ThreadMode::Replicate, None)), 10);
        assert_eq!(passes(&with(4, ThreadMode::Split, Some(3))), 3);
        assert_eq!(passes(&with(4, ThreadMode::Replicate, Some(3))), 12);
    }

    #[test]
    fn the_estimate_counts_the_rounds_the_precision_rule_may_add() {
        use crate::plan::precision::Precision;
        let case = Case::new(
            MethodKind::Read,
            Pattern::Seq,
            16 << 10,
            1 << 20,
            WorkloadKind::Touch,
            CacheState::AsIs,
        );
        let plan = Plan {
            cases: vec![
                case.clone(),
                Case {
                    method: MethodKind::Mmap,
                    ..case
                },
            ],
            runs: 4,
            warmup: 1,
            order: crate::plan::OrderPolicy::Alternating,
            metric: crate::plan::Metric::Total,
            seed: 1,
        };
        let per_trial = estimated_seconds(&plan) / 10.0;
        let unmeasured = Measured::default();
        let none = Estimate::of(&plan, None, &unmeasured);
        assert_eq!(none.most_rounds_s, 0.0);
        assert!((none.total_s() - 10.0 * per_trial).abs() < 1e-9);
        // Up to 20 runs: 16 more per case, no warm-up.
        let mut p = Precision {
            target: 0.05,
            max_runs: 20,
            max_time_s: None,
            until_decided: false,
        };
        let all = Estimate::of(&plan, Some(&p), &unmeasured);
        assert!((all.most_rounds_s - 32.0 * per_trial).abs() < 1e-9);
        // Nothing measured here: no rounds are expected, only possible.
        assert_eq!(all.rounds_s, 0.0);
        assert!(!all.budget_bound);
        // --max-time cuts them to what the planned trials leave, and the
        // round under way then (one trial of each case of the last group).
        p.max_time_s = Some(none.planned_s + 5.0 * per_trial);
        let cut = Estimate::of(&plan, Some(&p), &unmeasured);
        assert!(cut.budget_bound);
        assert!(
            (cut.planned_s + cut.most_rounds_s - (p.max_time_s.unwrap() + 2.0 * per_trial)).abs()
                < 1e-9
        );
        // A budget the planned trials already spend adds nothing.
        p.max_time_s = Some(1e-3);
        assert_eq!(
            Estimate::of(&plan, Some(&p), &unmeasured).most_rounds_s,
            0.0
        );
    }

    #[test]
    fn cases_measured_here_are_estimated_from_their_times_and_the_runs_they_took() {
        use crate::files::trial_times::{record, CaseTime};
        use crate::plan::precision::{Precision, Statistics};
        let warm = Case::new(
            MethodKind::Read,
            Pattern::Seq,
            16 << 10,
            64 << 20,
            WorkloadKind::Touch,
            CacheState::Warm,
        );
        let plan = Plan {
            cases: vec![
                warm.clone(),
                Case {
                    method: MethodKind::Mmap,
                    ..warm
                },
            ],
            runs: 5,
            warmup: 0,
            order: crate::plan::OrderPolicy::Alternating,
            metric: crate::plan::Metric::Total,
            seed: 1,
        };
        let p = Precision {
            target: 0.05,
            max_runs: 20,
            max_time_s: None,
            until_decided: true,
        };
        // Nothing measured: the assumed rates, and one warm preparation
        // for the group (its two cases share the file).
        let dir = tempfile::tempdir().unwrap();
        let assumed = Estimate::of(&plan, Some(&p), &Measured::of(&plan, dir.path()));
        let per_trial = trial_seconds(&plan.cases[0]);
        let prepare = (64 << 20) as f64 / ASSUMED_DEVICE_BYTES_PER_S;
        assert!((assumed.planned_s - (10.0 * per_trial + prepare)).abs() < 1e-9);
        // The first case measured here at 0.3 s a trial, having taken 8
        // runs under these rules; the second under other rules.
        let rules = Statistics {
            precision: Some(p),
            ..Default::default()
        }
        .rules_words(5);
        let key = |i: usize| crate::files::trial_times::key(&plan.cases[i]).unwrap();
        let time = |seconds, runs, rules: &str| CaseTime {
            seconds,
            runs,
            rules: rules.to_string(),
            when: "2026-11-26 18:00 UTC".into(),
        };
        record(
            dir.path(),
            [
                (key(0), time(0.3, 8, &rules)),
                (
                    key(1),
                    time(0.1, 20, "rules: 5 runs per case (--runs; no runs added)"),
                ),
            ]
            .into(),
        )
        .unwrap();
        let measured = Measured::of(&plan, dir.path());
        assert_eq!(measured.count(), 2);
        let e = Estimate::of(&plan, Some(&p), &measured);
        assert!(
            (e.planned_s - (5.0 * 0.3 + 5.0 * 0.1)).abs() < 1e-9,
            "{e:?}"
        );
        assert!((e.rounds_s - 3.0 * 0.3).abs() < 1e-9, "{e:?}");
        assert!((e.most_rounds_s - 15.0 * 0.4).abs() < 1e-9, "{e:?}");
    }
}
