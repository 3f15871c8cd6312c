//! The fleet view: several runs' results (from different machines, kernels
//! or versions) matched case by case and comparison by comparison, each
//! estimated against the first run with [`crate::stats::across::independent_ratio`].
//!
//! A case is the same case in two runs when its group (every factor but the
//! method), file size and method label agree. A comparison is the same when
//! its group, file size and both labels agree.
//!
//! A change of a case between runs is judged as a run's comparison is: it
//! is "faster" or "slower" only when its CI lies wholly beyond the smallest
//! effect ([`CHANGE_FLOOR`], or the larger `--min-effect` of the two runs:
//! two runs minutes apart differ by more than pairs within one run), and
//! it rests on the trials that were not interfered with; when too few of
//! those are left, it is unsettled ([`crate::analysis::busy`]).
use std::collections::{BTreeMap, HashMap, HashSet};

use crate::analysis::case_summary::throughput_bps;
use crate::error::{Error, Result};
use crate::results::{CaseResult, RunResults, Sample};
use crate::stats::{RatioEstimate, Verdict};

/// The smallest change between two runs that is called faster or slower
/// when neither run asked for a larger `--min-effect`.
pub const CHANGE_FLOOR: f64 = 0.05;

/// Several runs side by side.
#[derive(Clone, Debug)]
pub struct Fleet {
    /// Each case, in the order it first appears across the runs.
    pub cases: Vec<FleetCase>,
    /// Each comparison, in the order it first appears across the runs.
    pub comparisons: Vec<FleetComparison>,
}

/// One case across the runs.
#[derive(Clone, Debug)]
pub struct FleetCase {
    /// The shared factors, e.g. `seq 16 KiB sum, warm`.
    pub group: String,
    /// The file size in bytes (a file set's total).
    pub file_size: u64,
    /// Whether the case reads a file set (`--files`).
    pub set: bool,
    /// The method label.
    pub label: String,
    /// Mean throughput (bytes/s) in each run; `None` where the run lacks the case.
    pub throughput: Vec<Option<f64>>,
    /// Each run's throughput over the first run's (ratio of geometric means,
    /// Welch CI); `None` for the first run and where either lacks samples.
    pub change: Vec<Option<RatioEstimate>>,
    /// What each change says ([`change_verdict`]); `None` where `change` is.
    pub verdict: Vec<Option<Verdict>>,
}

/// The verdict of a change between runs with CI `est`: beyond ×/÷ (1 +
/// `floor`) wholly, faster or slower; else within noise; `busy` (too few
/// clean trials on a side) makes it unsettled.
pub fn change_verdict(est: &RatioEstimate, floor: f64, busy: bool) -> Verdict {
    if busy {
        Verdict::Unsettled
    } else if est.ci95_low > 1.0 + floor {
        Verdict::Faster
    } else if est.ci95_high < 1.0 / (1.0 + floor) {
        Verdict::Slower
    } else {
        Verdict::WithinNoise
    }
}

/// One comparison (a case against its group's baseline) across the runs.
#[derive(Clone, Debug)]
pub struct FleetComparison {
    /// The shared factors.
    pub group: String,
    /// The file size in bytes (a file set's total).
    pub file_size: u64,
    /// Whether the cases read a file set (`--files`).
    pub set: bool,
    /// The compared case's label.
    pub other: String,
    /// The baseline's label.
    pub baseline: String,
    /// The paired ratio each run computed (other's throughput over the baseline's).
    pub ratio: Vec<Option<RatioEstimate>>,
    /// Each run's ratio over the first run's (the ratio of ratios, a Welch CI
    /// on the per-run log ratios); `None` for the first run and where either
    /// lacks the comparison.
    pub ratio_of_ratios: Vec<Option<RatioEstimate>>,
}

impl FleetCase {
    /// Whether only one run has this case.
    pub fn in_one_run_only(&self) -> bool {
        self.throughput.iter().flatten().count() == 1
    }
}

/// A case's key: group, file size, method label.
type CaseKey = (String, u64, String);

/// Per run, each case by its key.
type ByKey<'a> = Vec<HashMap<CaseKey, &'a CaseResult>>;

fn key(c: &CaseResult) -> CaseKey {
    (c.case.group_label(), c.case.file_size, c.label.clone())
}

/// Throughput of each sample of `case`, keyed by run number.
fn throughputs(case: &CaseResult, results: &RunResults) -> BTreeMap<u32, f64> {
    throughputs_of(&counted(case), results)
}

/// The samples of `case` the statistics count (as
/// [`CaseResult::counted_samples`], without copying them).
fn counted(case: &CaseResult) -> Vec<&Sample> {
    case.samples
        .iter()
        .filter(|s| s.excluded.is_none())
        .collect()
}

fn throughputs_of(samples: &[&Sample], results: &RunResults) -> BTreeMap<u32, f64> {
    samples
        .iter()
        .map(|s| (s.run, throughput_bps(s, results.settings.metric)))
        .filter(|(_, t)| t.is_finite() && *t > 0.0)
        .collect()
}

/// The runs side by side. Fails when fewer than two runs are given, when
/// they compared different times (`--metric`), or when no case is in more
/// than one of them.
pub fn fleet(runs: &[&RunResults]) -> Result<Fleet> {
    if runs.len() < 2 {
        return Err(Error::Plan("compare needs at least two exports".into()));
    }
    let metric = runs[0].settings.metric;
    if let Some(i) = runs.iter().position(|r| r.settings.metric != metric) {
        return Err(Error::Plan(format!(
            "export {} compared the {} time and export 1 the {} time: their numbers do not compare",
            i + 1,
            format!("{:?}", runs[i].settings.metric).to_lowercase(),
            format!("{metric:?}").to_lowercase()
        )));
    }
    // Every lookup below goes through a map built once, so that the time
    // grows with the cases, not with their square (100,000 cases each).
    let (mut keys, by_key) = index_cases(runs);
    let groups = Groups::of(&keys, &by_key);
    keys.sort_by_cached_key(|k| groups.rank(&k.0, k.1));
    let floor = runs
        .iter()
        .map(|r| r.settings.statistics.min_effect())
        .fold(CHANGE_FLOOR, f64::max);
    let cases: Vec<FleetCase> = keys
        .iter()
        .map(|k| fleet_case(k, runs, &by_key, &groups, floor))
        .collect();
    if !cases
        .iter()
        .any(|c| c.throughput.iter().flatten().count() > 1)
    {
        return Err(Error::Plan(
            "the exports have no case in common (same factors, file size and method)".into(),
        ));
    }
    let comparisons = fleet_comparisons(runs, &groups);
    Ok(Fleet { cases, comparisons })
}

/// Every case's key, in the order it first appears across the runs, and per
/// run each case by its key.
fn index_cases<'a>(runs: &[&'a RunResults]) -> (Vec<CaseKey>, ByKey<'a>) {
    let mut keys: Vec<CaseKey> = Vec::new();
    let mut seen: HashSet<CaseKey> = HashSet::new();
    let mut by_key: ByKey = Vec::with_capacity(runs.len());
    for r in runs {
        let mut here = HashMap::with_capacity(r.cases.len());
        for c in &r.cases {
            let k = key(c);
            if seen.insert(k.clone()) {
                keys.push(k.clone());
            }
            here.entry(k).or_insert(c);
        }
        by_key.push(here);
    }
    (keys, by_key)
}

/// The groups (label and file size) across the runs: which read a file
/// set, and the order they first appear in (cases and comparisons of the
/// same group are shown together, groups in that order).
struct Groups {
    sets: HashSet<(String, u64)>,
    rank: HashMap<(String, u64), usize>,
}

impl Groups {
    fn of(keys: &[CaseKey], by_key: &[HashMap<CaseKey, &CaseResult>]) -> Groups {
        let sets = by_key
            .iter()
            .flat_map(|m| m.iter())
            .filter(|(_, c)| c.case.files.is_some())
            .map(|(k, _)| (k.0.clone(), k.1))
            .collect();
        let mut rank: HashMap<(String, u64), usize> = HashMap::new();
        for k in keys {
            let next = rank.len();
            rank.entry((k.0.clone(), k.1)).or_insert(next);
        }
        Groups { sets, rank }
    }

    /// Whether the group's cases read a file set.
    fn is_set(&self, group: &str, size: u64) -> bool {
        self.sets.contains(&(group.to_string(), size))
    }

    /// Where the group first appears.
    fn rank(&self, group: &str, size: u64) -> usize {
        self.rank
            .get(&(group.to_string(), size))
            .copied()
            .unwrap_or(usize::MAX)
    }
}

/// The case `k` across the runs: its throughput in each and each run's
/// change from the first, judged beyond `floor`.
fn fleet_case(
    k: &CaseKey,
    runs: &[&RunResults],
    by_key: &[HashMap<CaseKey, &CaseResult>],
    groups: &Groups,
    floor: f64,
) -> FleetCase {
    let per_run: Vec<Option<&CaseResult>> = by_key.iter().map(|m| m.get(k).copied()).collect();
    let (samples, busy): (Vec<Option<Vec<f64>>>, Vec<bool>) = per_run
        .iter()
        .zip(runs)
        .map(|(c, r)| match c {
            Some(c) => {
                let (throughputs, busy) = clean_throughputs(c, r);
                (Some(throughputs), busy)
            }
            None => (None, false),
        })
        .unzip();
    let first = samples[0].clone();
    let change: Vec<Option<RatioEstimate>> = samples
        .iter()
        .enumerate()
        .map(|(i, s)| match (i, &first, s) {
            (0, _, _) => None,
            (_, Some(a), Some(b)) => crate::stats::across::independent_ratio(a, b),
            _ => None,
        })
        .collect();
    let verdict = change
        .iter()
        .enumerate()
        .map(|(i, est)| {
            est.as_ref()
                .map(|e| change_verdict(e, floor, busy[0] || busy[i]))
        })
        .collect();
    FleetCase {
        group: k.0.clone(),
        file_size: k.1,
        set: groups.is_set(&k.0, k.1),
        label: k.2.clone(),
        throughput: per_run
            .iter()
            .map(|c| {
                c.and_then(|c| c.summary.as_ref())
                    .map(|s| s.throughput_bps.mean)
            })
            .collect(),
        change,
        verdict,
    }
}

/// One run's throughputs of case `c`: over its clean trials when any were
/// interfered with and at least 2 are clean (as `busy::clean` picks them);
/// else over all its counted trials, and busy (`true`) when some were
/// interfered with.
fn clean_throughputs(c: &CaseResult, r: &RunResults) -> (Vec<f64>, bool) {
    let counted = counted(c);
    let clean: Vec<&Sample> = counted
        .iter()
        .copied()
        .filter(|s| !s.interfered())
        .collect();
    if clean.len() == counted.len() {
        (throughputs_of(&counted, r).into_values().collect(), false)
    } else if clean.len() >= 2 {
        (throughputs_of(&clean, r).into_values().collect(), false)
    } else {
        (throughputs_of(&counted, r).into_values().collect(), true)
    }
}

/// A comparison's key: group, file size, the compared case's label and the
/// baseline's.
type CmpKey = (String, u64, String, String);

/// Every comparison across the runs, grouped as the cases are: each run's
/// paired ratio and its ratio over the first run's.
fn fleet_comparisons(runs: &[&RunResults], groups: &Groups) -> Vec<FleetComparison> {
    let mut cmp_keys: Vec<CmpKey> = Vec::new();
    let mut cmp_seen: HashSet<CmpKey> = HashSet::new();
    // Per run: the key and the per-run log ratios of each comparison.
    let mut per_run: Vec<HashMap<CmpKey, (RatioEstimate, Vec<f64>)>> = Vec::new();
    for r in runs {
        let mut found = HashMap::new();
        for cmp in &r.comparisons {
            let case = |id| r.case(id);
            let (Some(o), Some(b)) = (case(cmp.other), case(cmp.baseline)) else {
                continue;
            };
            let k = (
                cmp.group.clone(),
                o.case.file_size,
                o.label.clone(),
                b.label.clone(),
            );
            let (to, tb) = (throughputs(o, r), throughputs(b, r));
            let logs: Vec<f64> = to
                .iter()
                .filter_map(|(run, x)| tb.get(run).map(|y| (x / y).ln()))
                .collect();
            if cmp_seen.insert(k.clone()) {
                cmp_keys.push(k.clone());
            }
            found.insert(k, (cmp.throughput_ratio.clone(), logs));
        }
        per_run.push(found);
    }
    cmp_keys.sort_by_cached_key(|k| groups.rank(&k.0, k.1));
    cmp_keys
        .into_iter()
        .map(|k| {
            let first = per_run[0].get(&k);
            FleetComparison {
                ratio: per_run
                    .iter()
                    .map(|m| m.get(&k).map(|(r, _)| r.clone()))
                    .collect(),
                ratio_of_ratios: per_run
                    .iter()
                    .enumerate()
                    .map(|(i, m)| match (i, first, m.get(&k)) {
                        (0, _, _) => None,
                        (_, Some((_, a)), Some((_, b))) => crate::stats::across::welch_logs(a, b),
                        _ => None,
                    })
                    .collect(),
                set: groups.is_set(&k.0, k.1),
                group: k.0,
                file_size: k.1,
                other: k.2,
                baseline: k.3,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;

    /// The fixture with every sample's time scaled by `factor` for case `id`.
    fn slowed(factor: f64, id: usize) -> RunResults {
        let mut r = fixtures::results();
        for c in r.cases.iter_mut().filter(|c| c.id == id) {
            for s in &mut c.samples {
                s.total_ns = (s.total_ns as f64 * factor) as u64;
                s.child.wall_ns = (s.child.wall_ns as f64 * factor) as u64;
            }
        }
        r
    }

    #[test]
    fn a_case_twice_as_slow_halves_its_throughput_and_its_ratio() {
        let a = fixtures::results();
        let b = slowed(2.0, 1); // mmap twice as slow in run B
        let fleet = fleet(&[&a, &b]).unwrap();
        let mmap = fleet.cases.iter().find(|c| c.label == "mmap").unwrap();
        let change = mmap.change[1].as_ref().unwrap();
        assert!((change.ratio - 0.5).abs() < 1e-6, "{change:?}");
        assert!(mmap.change[0].is_none());
        let read = fleet.cases.iter().find(|c| c.label == "read").unwrap();
        assert!((read.change[1].as_ref().unwrap().ratio - 1.0).abs() < 1e-9);
        let cmp = &fleet.comparisons[0];
        assert_eq!(
            (cmp.other.as_str(), cmp.baseline.as_str()),
            ("mmap", "read")
        );
        let ror = cmp.ratio_of_ratios[1].as_ref().unwrap();
        assert!((ror.ratio - 0.5).abs() < 1e-6, "{ror:?}");
    }

    #[test]
    fn a_change_is_called_only_beyond_the_smallest_effect_and_never_when_busy() {
        let est = |lo, hi| RatioEstimate {
            ratio: f64::sqrt(lo * hi),
            ci95_low: lo,
            ci95_high: hi,
            pairs: 5,
        };
        // +3% to +17%: off 1, but not wholly beyond 5%.
        assert_eq!(
            change_verdict(&est(1.03, 1.17), 0.05, false),
            Verdict::WithinNoise
        );
        assert_eq!(
            change_verdict(&est(1.06, 1.17), 0.05, false),
            Verdict::Faster
        );
        assert_eq!(
            change_verdict(&est(0.80, 0.94), 0.05, false),
            Verdict::Slower
        );
        assert_eq!(
            change_verdict(&est(0.80, 0.96), 0.05, false),
            Verdict::WithinNoise
        );
        assert_eq!(
            change_verdict(&est(1.5, 1.6), 0.05, true),
            Verdict::Unsettled
        );
    }

    #[test]
    fn a_change_rests_on_clean_trials_and_is_unsettled_without_them() {
        let a = fixtures::results();
        let mut b = slowed(2.0, 1);
        let fl = fleet(&[&a, &b]).unwrap();
        let mmap = fl.cases.iter().position(|c| c.label == "mmap").unwrap();
        assert_eq!(fl.cases[mmap].verdict[1], Some(Verdict::Slower));
        // Every trial of B's mmap interfered with: no clean pair, unsettled.
        for s in &mut b.cases[1].samples {
            s.interference = Some(crate::measure::interference::Interference {
                interfered: true,
                ..Default::default()
            });
        }
        let fl = fleet(&[&a, &b]).unwrap();
        assert_eq!(fl.cases[mmap].verdict[1], Some(Verdict::Unsettled));
        // The floor follows the larger --min-effect of the runs.
        let mut wide = slowed(1.08, 1);
        wide.settings.statistics.min_effect = Some(0.10);
        let fl = fleet(&[&a, &wide]).unwrap();
        assert_eq!(fl.cases[mmap].verdict[1], Some(Verdict::WithinNoise));
    }

    #[test]
    fn a_case_in_one_run_only_is_kept_and_marked() {
        let a = fixtures::results();
        let mut b = fixtures::results();
        b.cases[1].label = "mmap(populate=map)".into();
        let fleet = fleet(&[&a, &b]).unwrap();
        let only: Vec<&str> = fleet
            .cases
            .iter()
            .filter(|c| c.in_one_run_only())
            .map(|c| c.label.as_str())
            .collect();
        assert_eq!(only, ["mmap", "mmap(populate=map)"]);
    }

    #[test]
    fn incompatible_runs_are_refused() {
        let a = fixtures::results();
        assert!(fleet(&[&a]).is_err());
        let mut b = fixtures::results();
        b.settings.metric = crate::plan::Metric::Loop;
        let e = fleet(&[&a, &b]).unwrap_err().to_string();
        assert!(e.contains("do not compare"), "{e}");
        let mut c = fixtures::results();
        for case in &mut c.cases {
            case.case.file_size = 4096;
        }
        let e = fleet(&[&a, &c]).unwrap_err().to_string();
        assert!(e.contains("no case in common"), "{e}");
    }
}
