//! A fleet's verdicts side by side: for each comparison (matched across
//! runs as [`super::fleet`] matches them), the verdict each run gave, the
//! verdict most runs gave (the majority, when one verdict has more runs than
//! any other), and the runs that differ from it; and the runs grouped by
//! kernel, file system and CPU model, from each run's recorded environment,
//! so that a minority can be traced to what its hosts share. Nothing here
//! computes a new verdict: each cell is the run's own.
use std::collections::BTreeMap;

use crate::results::RunResults;

use crate::stats::Verdict;

/// From this many runs on, `compare` shows the verdict matrix.
pub const MATRIX_FROM: usize = 20;

/// The verdicts of several runs.
#[derive(Clone, Debug)]
pub struct VerdictMatrix {
    /// Each comparison: `group; file: other vs baseline`, in the order first seen.
    pub comparisons: Vec<String>,
    /// Per run, per comparison: the run's verdict, `None` where it lacks it.
    pub cells: Vec<Vec<Option<Verdict>>>,
    /// Per comparison: the majority verdict, `None` when two verdicts tie
    /// for most runs.
    pub majority: Vec<Option<Verdict>>,
}

impl VerdictMatrix {
    /// Whether run `run`'s verdict on comparison `cmp` differs from the majority.
    pub fn off_majority(&self, run: usize, cmp: usize) -> bool {
        matches!(
            (self.cells[run][cmp], self.majority[cmp]),
            (Some(v), Some(m)) if v != m
        )
    }

    /// The comparisons on which run `run` differs from the majority.
    pub fn off_majority_of(&self, run: usize) -> Vec<usize> {
        (0..self.comparisons.len())
            .filter(|&c| self.off_majority(run, c))
            .collect()
    }
}

/// The verdict matrix of `runs`.
pub fn verdict_matrix(runs: &[&RunResults]) -> VerdictMatrix {
    let mut comparisons: Vec<String> = Vec::new();
    let mut found: Vec<BTreeMap<String, Verdict>> = Vec::new();
    for r in runs {
        let mut here = BTreeMap::new();
        for cmp in &r.comparisons {
            let case = |id| r.cases.iter().find(|c| c.id == id);
            let (Some(o), Some(b)) = (case(cmp.other), case(cmp.baseline)) else {
                continue;
            };
            let key = format!(
                "{}; {}: {} vs {}",
                cmp.group,
                o.case.size_heading(),
                o.label,
                b.label
            );
            if !comparisons.contains(&key) {
                comparisons.push(key.clone());
            }
            here.insert(key, cmp.verdict);
        }
        found.push(here);
    }
    let cells: Vec<Vec<Option<Verdict>>> = found
        .iter()
        .map(|here| comparisons.iter().map(|k| here.get(k).copied()).collect())
        .collect();
    let majority = (0..comparisons.len())
        .map(|c| {
            let mut counts: Vec<(Verdict, usize)> = Vec::new();
            for v in cells.iter().filter_map(|row| row[c]) {
                match counts.iter_mut().find(|(w, _)| *w == v) {
                    Some((_, n)) => *n += 1,
                    None => counts.push((v, 1)),
                }
            }
            counts.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
            match counts.as_slice() {
                [] => None,
                [(v, _)] => Some(*v),
                [(v, a), (_, b), ..] => (a > b).then_some(*v),
            }
        })
        .collect();
    VerdictMatrix {
        comparisons,
        cells,
        majority,
    }
}

/// The runs grouped by one property of their environment: each value (in
/// order of first appearance) with the runs (indices) that have it.
#[derive(Clone, Debug)]
pub struct Grouping {
    /// What was grouped by: `kernel`, `file system`, `CPU`.
    pub by: &'static str,
    /// Each value with its runs.
    pub groups: Vec<(String, Vec<usize>)>,
}

/// The runs grouped by kernel release, file system (of the measured file)
/// and CPU model; what a run did not record is `not recorded`.
pub fn environment_groups(runs: &[&RunResults]) -> Vec<Grouping> {
    let by = |name: &'static str, value: &dyn Fn(&RunResults) -> Option<String>| {
        let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
        for (i, r) in runs.iter().enumerate() {
            let v = value(r).unwrap_or_else(|| "not recorded".to_string());
            match groups.iter_mut().find(|(g, _)| *g == v) {
                Some((_, list)) => list.push(i),
                None => groups.push((v, vec![i])),
            }
        }
        Grouping { by: name, groups }
    };
    vec![
        by("kernel", &|r| {
            r.environment
                .kernel
                .split_whitespace()
                .next()
                .map(str::to_string)
        }),
        by("file system", &|r| r.environment.filesystem.clone()),
        by("CPU", &|r| r.environment.cpu_model.clone()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(verdict: Verdict, kernel: &str) -> RunResults {
        let mut r = crate::fixtures::results();
        r.comparisons[0].verdict = verdict;
        r.environment.kernel = kernel.to_string();
        r
    }

    #[test]
    fn the_majority_and_the_runs_off_it() {
        let a = run(Verdict::Faster, "6.1.0 #1");
        let b = run(Verdict::Faster, "6.1.0 #1");
        let c = run(Verdict::WithinNoise, "6.8.0 #2");
        let m = verdict_matrix(&[&a, &b, &c]);
        assert_eq!(m.comparisons.len(), 1);
        assert_eq!(m.majority, [Some(Verdict::Faster)]);
        assert!(!m.off_majority(0, 0) && !m.off_majority(1, 0));
        assert!(m.off_majority(2, 0));
        assert_eq!(m.off_majority_of(2), [0]);
        // A tie has no majority, and nobody is off it.
        let m = verdict_matrix(&[&a, &c]);
        assert_eq!(m.majority, [None]);
        assert!(!m.off_majority(1, 0));
        let groups = environment_groups(&[&a, &b, &c]);
        assert_eq!(groups[0].by, "kernel");
        assert_eq!(
            groups[0].groups,
            [
                ("6.1.0".to_string(), vec![0, 1]),
                ("6.8.0".to_string(), vec![2])
            ]
        );
    }
}
