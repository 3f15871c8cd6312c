//! The time left in a run, from each case's own measured time per trial:
//! a cold random-read case can take a hundred times as long per trial as a
//! warm one, so the average over all trials so far (what a progress bar
//! assumes) says "1 s left" before the slow group has started.
use std::time::Duration;

use crate::plan::{CacheState, Plan};

/// The trials left per case and the time each case's trials took.
#[derive(Debug)]
pub struct Eta {
    /// Trials still to run, per case.
    left: Vec<u64>,
    /// Sum of the measured trial times, and their count, per case.
    spent: Vec<(Duration, u32)>,
    /// Each case's cache state (an unmeasured case is estimated from the
    /// measured cases of the same state first).
    caches: Vec<CacheState>,
}

impl Eta {
    /// Every trial of `plan` still to run (`runs + warmup` per case).
    pub fn new(plan: &Plan) -> Eta {
        let per_case = u64::from(plan.runs + plan.warmup);
        Eta {
            left: vec![per_case; plan.cases.len()],
            spent: vec![(Duration::ZERO, 0); plan.cases.len()],
            caches: plan.cases.iter().map(|c| c.cache).collect(),
        }
    }

    /// `n` more trials for every case (`--profile-control`'s control trials).
    pub fn add_per_case(&mut self, n: u64) {
        for left in &mut self.left {
            *left += n;
        }
    }

    /// A trial of `case` that needs no running (done before a resume).
    pub fn skip(&mut self, case: usize) {
        self.left[case] = self.left[case].saturating_sub(1);
    }

    /// A trial of `case` that ran and took `took`, its preparation included.
    pub fn record(&mut self, case: usize, took: Duration) {
        self.skip(case);
        let (sum, n) = &mut self.spent[case];
        *sum += took;
        *n += 1;
    }

    /// The time left: each case's trials left times its mean trial time;
    /// for a case not measured yet, the mean of the measured cases of the
    /// same cache state, else of all measured cases. `None` before any trial.
    pub fn left(&self) -> Option<Duration> {
        let mean = |pick: &dyn Fn(usize) -> bool| {
            let (sum, n) = (0..self.spent.len())
                .filter(|&i| pick(i))
                .fold((Duration::ZERO, 0u32), |(s, n), i| {
                    (s + self.spent[i].0, n + self.spent[i].1)
                });
            (n > 0).then(|| sum / n)
        };
        let overall = mean(&|_| true)?;
        let total = (0..self.left.len())
            .map(|case| {
                let per_trial = mean(&|i| i == case)
                    .or_else(|| mean(&|i| self.caches[i] == self.caches[case]))
                    .unwrap_or(overall);
                per_trial.as_secs_f64() * self.left[case] as f64
            })
            .sum::<f64>();
        Some(Duration::from_secs_f64(total))
    }

    /// `~1m 05s left`, or `estimating time left` before any trial.
    pub fn text(&self) -> String {
        match self.left() {
            None => "estimating time left".to_string(),
            Some(d) => {
                let s = d.as_secs_f64().round() as u64;
                if s >= 60 {
                    format!("~{}m {:02}s left", s / 60, s % 60)
                } else {
                    format!("~{s}s left")
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::method::MethodKind;
    use crate::pattern::Pattern;
    use crate::workload::WorkloadKind;

    fn plan(caches: &[CacheState], runs: u32) -> Plan {
        let cases = caches
            .iter()
            .map(|&cache| {
                crate::plan::Case::new(
                    MethodKind::Read,
                    Pattern::Seq,
                    4096,
                    1 << 20,
                    WorkloadKind::Touch,
                    cache,
                )
            })
            .collect();
        Plan {
            cases,
            runs,
            warmup: 0,
            order: crate::plan::OrderPolicy::Alternating,
            metric: crate::plan::Metric::Total,
            seed: 1,
        }
    }

    #[test]
    fn each_case_is_charged_its_own_time_per_trial() {
        let mut eta = Eta::new(&plan(&[CacheState::Warm, CacheState::Cold], 4));
        assert_eq!(eta.text(), "estimating time left");
        // Warm trials take 10 ms, cold ones 1 s: 2 warm trials and 3 cold
        // ones left after one of each is 2 x 10 ms + 3 x 1 s.
        for _ in 0..2 {
            eta.record(0, Duration::from_millis(10));
        }
        eta.record(1, Duration::from_secs(1));
        let left = eta.left().unwrap().as_secs_f64();
        assert!((left - 3.02).abs() < 1e-6, "{left}");
        // The average over all trials would say 3 x 340 ms + ...: far less.
        assert_eq!(eta.text(), "~3s left");
    }

    #[test]
    fn an_unmeasured_case_is_estimated_from_cases_of_its_cache_state() {
        let caches = [CacheState::Warm, CacheState::Cold, CacheState::Cold];
        let mut eta = Eta::new(&plan(&caches, 2));
        eta.record(0, Duration::from_millis(10));
        eta.record(0, Duration::from_millis(10));
        eta.record(1, Duration::from_secs(2));
        // Case 1: 1 left x 2 s; case 2 (cold, unmeasured): 2 x 2 s.
        assert!((eta.left().unwrap().as_secs_f64() - 6.0).abs() < 1e-6);
        eta.skip(2);
        assert!((eta.left().unwrap().as_secs_f64() - 4.0).abs() < 1e-6);
    }
}
