//! The fleet view: several runs' results (from different machines, kernels
//! or versions) matched case by case and comparison by comparison, each
//! estimated against the first run with [`super::independent_ratio`].
//!
//! A case is the same case in two runs when its group (every factor but the
//! method), file size and method label agree. A comparison is the same when
//! its group, file size and both labels agree.
use std::collections::{BTreeMap, HashMap, HashSet};

use crate::error::{Error, Result};
use crate::stats::analysis::throughput_bps;
use crate::stats::{CaseResult, RatioEstimate, RunResults};

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
    /// The file size in bytes.
    pub file_size: u64,
    /// The method label.
    pub label: String,
    /// Mean throughput (bytes/s) in each run; `None` where the run lacks the case.
    pub throughput: Vec<Option<f64>>,
    /// Each run's throughput over the first run's (ratio of geometric means,
    /// Welch CI); `None` for the first run and where either lacks samples.
    pub change: Vec<Option<RatioEstimate>>,
}

/// One comparison (a case against its group's baseline) across the runs.
#[derive(Clone, Debug)]
pub struct FleetComparison {
    /// The shared factors.
    pub group: String,
    /// The file size in bytes.
    pub file_size: u64,
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

type CaseKey = (String, u64, String);

fn key(c: &CaseResult) -> CaseKey {
    (c.case.group_label(), c.case.file_size, c.label.clone())
}

/// Throughput of each sample of `case`, keyed by run number.
fn throughputs(case: &CaseResult, results: &RunResults) -> BTreeMap<u32, f64> {
    case.counted_samples()
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
    let mut keys: Vec<CaseKey> = Vec::new();
    let mut seen: HashSet<CaseKey> = HashSet::new();
    // Per run: each case by its key and by its id.
    let mut by_key: Vec<HashMap<CaseKey, &CaseResult>> = Vec::with_capacity(runs.len());
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
    // Cases of the same group together, groups in the order they first appear.
    let mut group_rank: HashMap<(String, u64), usize> = HashMap::new();
    for k in &keys {
        let next = group_rank.len();
        group_rank.entry((k.0.clone(), k.1)).or_insert(next);
    }
    let rank = |group: &str, size: u64| {
        group_rank
            .get(&(group.to_string(), size))
            .copied()
            .unwrap_or(usize::MAX)
    };
    keys.sort_by_cached_key(|k| rank(&k.0, k.1));
    let cases: Vec<FleetCase> = keys
        .iter()
        .map(|k| {
            let per_run: Vec<Option<&CaseResult>> =
                by_key.iter().map(|m| m.get(k).copied()).collect();
            let samples: Vec<Option<Vec<f64>>> = per_run
                .iter()
                .zip(runs)
                .map(|(c, r)| c.map(|c| throughputs(c, r).into_values().collect()))
                .collect();
            let first = samples[0].clone();
            FleetCase {
                group: k.0.clone(),
                file_size: k.1,
                label: k.2.clone(),
                throughput: per_run
                    .iter()
                    .map(|c| {
                        c.and_then(|c| c.summary.as_ref())
                            .map(|s| s.throughput_bps.mean)
                    })
                    .collect(),
                change: samples
                    .iter()
                    .enumerate()
                    .map(|(i, s)| match (i, &first, s) {
                        (0, _, _) => None,
                        (_, Some(a), Some(b)) => super::independent_ratio(a, b),
                        _ => None,
                    })
                    .collect(),
            }
        })
        .collect();
    if !cases
        .iter()
        .any(|c| c.throughput.iter().flatten().count() > 1)
    {
        return Err(Error::Plan(
            "the exports have no case in common (same factors, file size and method)".into(),
        ));
    }

    type CmpKey = (String, u64, String, String);
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
    cmp_keys.sort_by_cached_key(|k| rank(&k.0, k.1));
    let comparisons = cmp_keys
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
                        (_, Some((_, a)), Some((_, b))) => super::welch_logs(a, b),
                        _ => None,
                    })
                    .collect(),
                group: k.0,
                file_size: k.1,
                other: k.2,
                baseline: k.3,
            }
        })
        .collect();
    Ok(Fleet { cases, comparisons })
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
