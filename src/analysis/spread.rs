//! How the threads (`--threads`) or processes (`--procs`) of one case's
//! trials differ: the spread of their own times, the imbalance within a
//! trial, and per-process memory. Pure arithmetic over samples; the report
//! words it.

use crate::results::{Sample, Spread};
use crate::stats::summary::summarize;

/// The spread of per-worker times given by `times` for each sample, over
/// the samples that have more than one worker.
fn spread_of(samples: &[Sample], times: impl Fn(&Sample) -> Vec<f64>) -> Option<Spread> {
    let per_trial: Vec<Vec<f64>> = samples.iter().map(&times).filter(|t| t.len() > 1).collect();
    let all: Vec<f64> = per_trial.iter().flatten().copied().collect();
    let imbalance: Vec<f64> = per_trial
        .iter()
        .filter_map(|t| {
            let max = t.iter().copied().fold(f64::MIN, f64::max);
            let min = t.iter().copied().fold(f64::MAX, f64::min);
            (min > 0.0).then(|| max / min)
        })
        .collect();
    Some(Spread {
        workers: per_trial.iter().map(Vec::len).max()?,
        trials: per_trial.len(),
        time_ns: summarize(&all)?,
        imbalance: summarize(&imbalance)?,
        max_rss_kib: None,
        pss_kib: None,
    })
}

/// The threads' spread; `None` when no trial ran on more than one thread.
pub fn thread_spread(samples: &[Sample]) -> Option<Spread> {
    spread_of(samples, |s| {
        s.child.thread_ns.iter().map(|&t| t as f64).collect()
    })
}

/// The processes' spread, with their memory; `None` without `--procs`.
pub fn proc_spread(samples: &[Sample]) -> Option<Spread> {
    let mut spread = spread_of(samples, |s| {
        s.child.procs.iter().map(|p| p.total_ns as f64).collect()
    })?;
    let procs = || samples.iter().flat_map(|s| s.child.procs.iter());
    let rss: Vec<f64> = procs().map(|p| p.max_rss_kib as f64).collect();
    let pss: Vec<f64> = procs()
        .filter_map(|p| p.pss_kib.map(|k| k as f64))
        .collect();
    spread.max_rss_kib = summarize(&rss);
    spread.pss_kib = summarize(&pss);
    Some(spread)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::ProcStat;

    fn with_threads(ns: &[u64]) -> Sample {
        let mut s = crate::fixtures::sample(0, 0);
        s.child.thread_ns = ns.to_vec();
        s
    }

    #[test]
    fn threads_give_their_times_and_the_imbalance_per_trial() {
        let samples = [
            with_threads(&[10, 20]),
            with_threads(&[30, 30]),
            with_threads(&[]),
        ];
        let s = thread_spread(&samples).unwrap();
        assert_eq!((s.workers, s.trials), (2, 2));
        assert_eq!(s.time_ns.n, 4);
        assert_eq!((s.time_ns.min, s.time_ns.max), (10.0, 30.0));
        assert_eq!(s.time_ns.median, 25.0);
        // 20/10 and 30/30.
        assert_eq!((s.imbalance.min, s.imbalance.max), (1.0, 2.0));
        assert_eq!(s.max_rss_kib, None);
        assert_eq!(thread_spread(&[with_threads(&[])]), None);
        assert_eq!(proc_spread(&samples), None);
    }

    #[test]
    fn processes_add_their_memory() {
        let mut a = crate::fixtures::sample(0, 0);
        a.child.procs = vec![
            ProcStat {
                total_ns: 100,
                max_rss_kib: 9000,
                pss_kib: Some(5000),
                read_bytes: None,
            },
            ProcStat {
                total_ns: 150,
                max_rss_kib: 11000,
                pss_kib: None,
                read_bytes: None,
            },
        ];
        let s = proc_spread(&[a]).unwrap();
        assert_eq!((s.workers, s.trials), (2, 1));
        assert_eq!(s.imbalance.mean, 1.5);
        assert_eq!(s.max_rss_kib.unwrap().mean, 10000.0);
        let pss = s.pss_kib.unwrap();
        assert_eq!(
            (pss.n, pss.mean),
            (1, 5000.0),
            "an unreadable PSS is left out"
        );
    }
}
