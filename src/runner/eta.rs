//! The time left in a run, from each case's own measured time per trial:
//! a cold random-read case can take a hundred times as long per trial as a
//! warm one, so the average over all trials so far (what a progress bar
//! assumes) says "1 s left" before the slow group has started.
//!
//! With a precision target the run adds rounds to a group until its
//! comparisons are precise enough, so the trials still to come are more than
//! the plan's: the estimate counts the rounds each group is expected to
//! need ([`Eta::forecast`], from its own pilot), and for a group not run
//! yet, the groups so far's ratio of expected to planned runs; never past
//! the time budget (`--max-time`).
use std::time::Duration;

use crate::plan::{CacheState, Plan};

/// The trials left per case and the time each case's trials took.
#[derive(Debug)]
pub struct Eta {
    /// Trials queued or planned and not run yet, per case.
    left: Vec<u64>,
    /// Trials the precision rule is expected to add beyond `left`, per case.
    expected: Vec<u64>,
    /// Sum of the measured trial times, and their count, per case.
    spent: Vec<(Duration, u32)>,
    /// Each case's cache state (an unmeasured case is estimated from the
    /// measured cases of the same state first).
    caches: Vec<CacheState>,
    /// The plan's groups (case indices).
    groups: Vec<Vec<usize>>,
    /// Per group, its forecast: expected over planned runs; `None` until
    /// its planned rounds are done.
    factors: Vec<Option<f64>>,
    /// Per group, whether it will get no more rounds.
    finished: Vec<bool>,
    /// Planned measured runs per case.
    runs: u32,
    /// Trials run (or skipped on resume) so far.
    done: u64,
    /// `--max-time`: no round starts past it, counted from the first trial.
    budget: Option<Duration>,
}

impl Eta {
    /// Every trial of `plan` still to run (`runs + warmup` per case), with
    /// its groups (`plan.groups()`).
    pub fn new(plan: &Plan, groups: &[Vec<usize>]) -> Eta {
        let per_case = u64::from(plan.runs + plan.warmup);
        Eta {
            left: vec![per_case; plan.cases.len()],
            expected: vec![0; plan.cases.len()],
            spent: vec![(Duration::ZERO, 0); plan.cases.len()],
            caches: plan.cases.iter().map(|c| c.cache).collect(),
            groups: groups.to_vec(),
            factors: vec![None; groups.len()],
            finished: vec![false; groups.len()],
            runs: plan.runs,
            done: 0,
            budget: None,
        }
    }

    /// No round is added past `budget` of trials (`--max-time`).
    pub fn with_budget(mut self, budget: Option<Duration>) -> Eta {
        self.budget = budget;
        self
    }

    /// `n` more trials for every case (`--profile-control`'s control trials).
    pub fn add_per_case(&mut self, n: u64) {
        for left in &mut self.left {
            *left += n;
        }
    }

    /// `n` more trials queued for `case` (a round the precision rule added,
    /// a re-run of an interfered trial): they count as left, and a round
    /// takes from what was expected.
    pub fn add(&mut self, case: usize, n: u64) {
        self.left[case] += n;
        self.expected[case] = self.expected[case].saturating_sub(n);
    }

    /// Group `g` has had `now` rounds and is expected to end with `needed`:
    /// its cases expect `needed - now` more trials each, and the groups not
    /// run yet expect as many more than planned, in proportion, as the
    /// groups forecast so far.
    pub fn forecast(&mut self, g: usize, now: usize, needed: usize) {
        if g >= self.groups.len() {
            return;
        }
        let extra = needed.saturating_sub(now) as u64;
        for &case in &self.groups[g] {
            self.expected[case] = extra;
        }
        self.factors[g] = Some(needed.max(1) as f64 / f64::from(self.runs.max(1)));
        self.spread_forecast();
    }

    /// Group `g` gets no more rounds (its target reached, its budget spent).
    pub fn finish(&mut self, g: usize) {
        if g >= self.groups.len() {
            return;
        }
        self.finished[g] = true;
        for &case in &self.groups[g] {
            self.expected[case] = 0;
        }
    }

    /// The groups without a forecast of their own expect the mean factor
    /// of those with one.
    fn spread_forecast(&mut self) {
        let known: Vec<f64> = self.factors.iter().flatten().copied().collect();
        if known.is_empty() {
            return;
        }
        let factor = known.iter().sum::<f64>() / known.len() as f64;
        let extra = ((factor - 1.0) * f64::from(self.runs)).round().max(0.0) as u64;
        for (g, members) in self.groups.iter().enumerate() {
            if self.factors[g].is_none() && !self.finished[g] {
                for &case in members {
                    self.expected[case] = extra;
                }
            }
        }
    }

    /// A trial of `case` that needs no running (done before a resume).
    pub fn skip(&mut self, case: usize) {
        self.left[case] = self.left[case].saturating_sub(1);
        self.done += 1;
    }

    /// A trial of `case` that ran and took `took`, its preparation included.
    pub fn record(&mut self, case: usize, took: Duration) {
        self.skip(case);
        let (sum, n) = &mut self.spent[case];
        *sum += took;
        *n += 1;
    }

    /// Trials run (or skipped) so far.
    pub fn done(&self) -> u64 {
        self.done
    }

    /// Trials expected in all, `elapsed` into the trials: done, queued or
    /// planned, and expected (those the time budget leaves room for).
    pub fn expected_total(&self, elapsed: Duration) -> u64 {
        let expected: u64 = self.expected.iter().sum();
        let share = match self.per_trial() {
            Some(per_trial) if expected > 0 => {
                let (planned, extra) = self.weighed(&per_trial);
                if extra > 0.0 {
                    self.cut(planned, extra, elapsed) / extra
                } else {
                    1.0
                }
            }
            _ => 1.0,
        };
        self.done + self.left.iter().sum::<u64>() + (expected as f64 * share).round() as u64
    }

    /// Seconds of the trials queued or planned, and of those expected.
    fn weighed(&self, per_trial: &[f64]) -> (f64, f64) {
        let weigh = |counts: &[u64]| -> f64 {
            counts
                .iter()
                .zip(per_trial)
                .map(|(&n, t)| n as f64 * t)
                .sum()
        };
        (weigh(&self.left), weigh(&self.expected))
    }

    /// Seconds of expected rounds the time budget leaves room for.
    fn cut(&self, planned: f64, extra: f64, elapsed: Duration) -> f64 {
        match self.budget {
            Some(budget) => {
                extra.min((budget.as_secs_f64() - elapsed.as_secs_f64() - planned).max(0.0))
            }
            None => extra,
        }
    }

    /// Each case's mean trial time; for a case not measured yet, the mean of
    /// the measured cases of the same cache state, else of all measured
    /// cases. `None` before any trial.
    fn per_trial(&self) -> Option<Vec<f64>> {
        let mut by_cache: Vec<(CacheState, Duration, u32)> = Vec::new();
        let (mut all, mut all_n) = (Duration::ZERO, 0u32);
        for (i, &(sum, n)) in self.spent.iter().enumerate() {
            if n == 0 {
                continue;
            }
            all += sum;
            all_n += n;
            match by_cache.iter_mut().find(|(c, _, _)| *c == self.caches[i]) {
                Some((_, s, k)) => {
                    *s += sum;
                    *k += n;
                }
                None => by_cache.push((self.caches[i], sum, n)),
            }
        }
        if all_n == 0 {
            return None;
        }
        let overall = all.as_secs_f64() / f64::from(all_n);
        Some(
            self.spent
                .iter()
                .zip(&self.caches)
                .map(|(&(sum, n), cache)| {
                    if n > 0 {
                        return sum.as_secs_f64() / f64::from(n);
                    }
                    by_cache
                        .iter()
                        .find(|(c, _, _)| c == cache)
                        .map_or(overall, |(_, s, k)| s.as_secs_f64() / f64::from(*k))
                })
                .collect(),
        )
    }

    /// The time left, `elapsed` into the trials: each case's trials left
    /// (queued, planned and expected) times its mean trial time, the
    /// expected rounds cut to what the time budget leaves. `None` before
    /// any trial.
    pub fn left(&self, elapsed: Duration) -> Option<Duration> {
        let per_trial = self.per_trial()?;
        let (planned, extra) = self.weighed(&per_trial);
        Some(Duration::from_secs_f64(
            planned + self.cut(planned, extra, elapsed),
        ))
    }

    /// `~1m 05s left`, or `estimating time left` before any trial.
    pub fn text(&self, elapsed: Duration) -> String {
        match self.left(elapsed) {
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
        let p = plan(&[CacheState::Warm, CacheState::Cold], 4);
        let mut eta = Eta::new(&p, &p.groups());
        assert_eq!(eta.text(Duration::ZERO), "estimating time left");
        // Warm trials take 10 ms, cold ones 1 s: 2 warm trials and 3 cold
        // ones left after one of each is 2 x 10 ms + 3 x 1 s.
        for _ in 0..2 {
            eta.record(0, Duration::from_millis(10));
        }
        eta.record(1, Duration::from_secs(1));
        let left = eta.left(Duration::ZERO).unwrap().as_secs_f64();
        assert!((left - 3.02).abs() < 1e-6, "{left}");
        // The average over all trials would say 3 x 340 ms + ...: far less.
        assert_eq!(eta.text(Duration::ZERO), "~3s left");
    }

    #[test]
    fn an_unmeasured_case_is_estimated_from_cases_of_its_cache_state() {
        let caches = [CacheState::Warm, CacheState::Cold, CacheState::Cold];
        let p = plan(&caches, 2);
        let mut eta = Eta::new(&p, &p.groups());
        eta.record(0, Duration::from_millis(10));
        eta.record(0, Duration::from_millis(10));
        eta.record(1, Duration::from_secs(2));
        // Case 1: 1 left x 2 s; case 2 (cold, unmeasured): 2 x 2 s.
        assert!((eta.left(Duration::ZERO).unwrap().as_secs_f64() - 6.0).abs() < 1e-6);
        eta.skip(2);
        assert!((eta.left(Duration::ZERO).unwrap().as_secs_f64() - 4.0).abs() < 1e-6);
    }

    /// Two groups of a read and an mmap case each: warm, then cold.
    fn two_groups(runs: u32) -> Plan {
        let mut p = plan(&[CacheState::Warm, CacheState::Warm], runs);
        let mut cold = plan(&[CacheState::Cold, CacheState::Cold], runs).cases;
        p.cases[1].method = MethodKind::Mmap;
        cold[1].method = MethodKind::Mmap;
        p.cases.extend(cold);
        p
    }

    #[test]
    fn expected_rounds_count_in_the_trials_and_time_left() {
        let p = two_groups(4);
        assert_eq!(p.groups().len(), 2);
        let mut eta = Eta::new(&p, &p.groups());
        assert_eq!(eta.expected_total(Duration::ZERO), 16);
        for _ in 0..4 {
            eta.record(0, Duration::from_millis(100));
            eta.record(1, Duration::from_millis(100));
        }
        // The warm group's pilot says 10 rounds in all: 6 more per case,
        // and the cold group, not run yet, is expected to need 10 too.
        eta.forecast(0, 4, 10);
        assert_eq!(eta.expected_total(Duration::ZERO), 8 + 8 + 12 + 12);
        // 12 warm and 20 cold trials left at 100 ms (the cold ones have
        // no time of their own yet, nor one of their state: the overall mean).
        let left = eta.left(Duration::ZERO).unwrap().as_secs_f64();
        assert!((left - 3.2).abs() < 1e-9, "{left}");
        // A round added takes from what was expected, and leaves the total.
        eta.add(0, 1);
        eta.add(1, 1);
        assert_eq!(eta.expected_total(Duration::ZERO), 40);
        // The group ends early (target reached): its expected rounds go.
        eta.finish(0);
        assert_eq!(eta.expected_total(Duration::ZERO), 8 + 2 + 8 + 12);
    }

    #[test]
    fn expected_rounds_stop_at_the_time_budget() {
        let p = two_groups(2);
        let mut eta = Eta::new(&p, &p.groups()).with_budget(Some(Duration::from_secs(10)));
        for _ in 0..2 {
            eta.record(0, Duration::from_secs(1));
            eta.record(1, Duration::from_secs(1));
        }
        eta.forecast(0, 2, 20);
        // 4 s spent and 4 planned cold trials (4 s) to come: 2 s of room
        // before the 10 s budget for the 36 + 36 expected ones, not 72 s.
        let elapsed = Duration::from_secs(4);
        let left = eta.left(elapsed).unwrap().as_secs_f64();
        assert!((left - 6.0).abs() < 1e-9, "{left}");
        assert_eq!(eta.expected_total(elapsed), 4 + 4 + 2);
        // With the budget spent, only the planned trials are left.
        let late = Duration::from_secs(20);
        assert!((eta.left(late).unwrap().as_secs_f64() - 4.0).abs() < 1e-9);
    }
}
