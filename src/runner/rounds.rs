//! The slots of a plan: the planned rounds of each group in the order
//! policy's order, the control trials beside them, the extra rounds that
//! `--precision` and settling add, and what a resumed run still owes. Pure
//! arithmetic over slots and what was recorded; nothing here runs a trial.
use std::collections::{BTreeMap, HashSet};

use rand::seq::SliceRandom;
use rand::SeedableRng;

use super::Slot;
use crate::plan::{OrderPolicy, Plan};
use crate::results::RawResults;

/// The trials of a plan, group by group: warm-ups first, then the measured
/// runs, each run ordered by the order policy (alternating: A B, B A, ...).
pub fn schedule(plan: &Plan) -> Vec<Vec<Slot>> {
    plan.groups()
        .into_iter()
        .enumerate()
        .map(|(g, members)| {
            let mut slots = Vec::new();
            let phases = [(true, plan.warmup), (false, plan.runs)];
            let mut round = 0u64;
            for (warmup, count) in phases {
                for run in 0..count {
                    slots.extend(round_of(plan, g, &members, round, run, warmup));
                    round += 1;
                }
            }
            slots
        })
        .collect()
}

/// The slots of one round (`round` counts warm-ups and runs from 0) of
/// group `g`, ordered by the order policy: alternating reverses every other
/// round, shuffled draws a seeded order.
fn round_of(
    plan: &Plan,
    g: usize,
    members: &[usize],
    round: u64,
    run: u32,
    warmup: bool,
) -> Vec<Slot> {
    let mut order = members.to_vec();
    match plan.order {
        OrderPolicy::Alternating => {
            if round % 2 == 1 {
                order.reverse();
            }
        }
        OrderPolicy::Shuffled => {
            let seed = plan.seed ^ ((g as u64) << 32) ^ round;
            order.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(seed));
        }
    }
    order
        .into_iter()
        .map(|case| Slot::trial(case, run, warmup))
        .collect()
}

/// `slots` with an unprofiled control trial beside each measured trial of
/// runs `0..controls` (`--profile-control`), the two in alternating order
/// (profiled first in even runs, the control first in odd ones), so that
/// a drift over the run, or an order effect, falls on both sides alike.
pub fn with_controls(slots: Vec<Slot>, controls: u32) -> Vec<Slot> {
    let mut out = Vec::with_capacity(slots.len());
    for slot in slots {
        if slot.warmup || slot.run >= controls {
            out.push(slot);
            continue;
        }
        let control = Slot {
            control: true,
            ..slot
        };
        if slot.run % 2 == 0 {
            out.extend([slot, control]);
        } else {
            out.extend([control, slot]);
        }
    }
    out
}

/// The measured (case, run) pairs of `members` that have a sample or a
/// failure in `raw`: failed trials count too, so that a round that failed
/// is not run again under the same number.
fn recorded_runs(members: &[usize], raw: &RawResults) -> HashSet<(usize, u32)> {
    raw.samples
        .iter()
        .map(|s| (s.case, s.run))
        .chain(
            raw.failures
                .iter()
                .filter(|f| !f.warmup)
                .map(|f| (f.case, f.run)),
        )
        .filter(|(case, _)| members.contains(case))
        .collect()
}

/// The run number of a round added after the planned runs (an extra
/// round, [`extra_round`], or a settling round, [`settle_round`]) whose
/// cases have recorded `runs`: the one after the highest, never below the
/// plan's runs. A round never skips a number, so no added run is past
/// this taken over every case ([`AddedRuns`] holds a journal to it).
pub(super) fn next_run(plan: &Plan, runs: impl IntoIterator<Item = u32>) -> u32 {
    runs.into_iter()
        .map(|run| run.saturating_add(1))
        .max()
        .unwrap_or(0)
        .max(plan.runs)
}

/// The measured run numbers a run's own rounds can reach, kept up to date
/// as a journal is read entry by entry, so that the reader accepts every
/// run the scheduler can write and refuses one it cannot:
/// - below the planned runs, or with `--precision` below its `--max-runs`,
///   any run (a lost line leaves a hole that resuming fills);
/// - past that, only a run no further than [`next_run`] of the runs
///   recorded before it (an added round never skips a number) and, for the
///   precision rule's rounds, below `--max-runs` plus the earlier runs that
///   do not count: the rule adds round `r` only while a comparison has
///   fewer than `--max-runs` pairs that count among runs `0..r`, so at
///   least `r − max_runs + 1` of those runs hold a trial that does not
///   count (a failed one, or an interfered one, which
///   `--exclude-interfered` leaves out; a re-run's last attempt decides, as
///   in the statistics). Every interfered trial is taken as one that may
///   not count, whatever the journal's header says: the flag can be given
///   to a `--resume` alone, which does not rewrite the header, and the
///   rounds it made up must read back when the run is resumed again;
/// - a study's settling rounds are held to the numbering only: they pair
///   cases of different groups, and their cap is the command's, which the
///   journal does not hold.
///
/// Each line the reader skipped (corrupted) may have held one run, so it
/// widens both bounds by one.
#[derive(Clone, Debug)]
pub(super) struct AddedRuns {
    /// Runs always accepted: the plan's, or `--max-runs`.
    limit: u32,
    /// Whether the precision rule adds rounds (`--precision`).
    precision: bool,
    /// Whether a settling rule adds rounds (a study's command).
    settles: bool,
    /// [`next_run`] of every measured run recorded so far.
    next: u32,
    /// Each measured (case, run): its last attempt so far, and whether it counts.
    last: std::collections::HashMap<(usize, u32), (u32, bool)>,
    /// The runs holding a trial that does not count, with how many.
    lost: BTreeMap<u32, usize>,
}

impl AddedRuns {
    /// The bounds of `plan`'s runs, with `--precision`'s `max_runs` if
    /// given, and whether a settling rule adds rounds.
    pub(super) fn new(plan: &Plan, max_runs: Option<u32>, settles: bool) -> Self {
        AddedRuns {
            limit: max_runs.map_or(plan.runs, |m| m.max(plan.runs)),
            precision: max_runs.is_some(),
            settles,
            next: next_run(plan, None),
            last: Default::default(),
            lost: BTreeMap::new(),
        }
    }

    /// Whether measured run `run` of `case` is one the scheduler could
    /// have written after the runs recorded so far, `skipped` lines
    /// having been skipped; else why not.
    pub(super) fn check(&self, case: usize, run: u32, skipped: usize) -> Result<(), String> {
        if run < self.limit {
            return Ok(());
        }
        let slack = u64::try_from(skipped).unwrap_or(u64::MAX);
        let follows = u64::from(run) <= u64::from(self.next).saturating_add(slack);
        let lost = self.lost.range(..run).count();
        let within = self.settles
            || (self.precision
                && u64::from(run) < (u64::from(self.limit) + lost as u64).saturating_add(slack));
        if follows && within {
            return Ok(());
        }
        let limit = self.limit;
        let mut why = if self.precision {
            format!("run {run} of case {case} is past the {limit} measured run(s) its --max-runs allows")
        } else {
            format!("run {run} of case {case} is past the plan's {limit} measured run(s)")
        };
        if self.precision && lost > 0 {
            why.push_str(&format!(
                " and the {lost} run(s) before it that do not count"
            ));
        }
        if !follows && (self.precision || self.settles) {
            why.push_str(&format!(
                ", and the next round the run could add is run {}",
                self.next
            ));
        }
        Err(why)
    }

    /// Records a trial numbered `run` that is not one of its case's runs
    /// (a `--profile-control` control trial): it takes no pair away.
    pub(super) fn number(&mut self, run: u32) {
        self.next = self.next.max(run.saturating_add(1));
    }

    /// Records measured attempt `attempt` at run `run` of `case`: a
    /// sample, `interfered` or not, or a failure (`None`).
    pub(super) fn record(&mut self, case: usize, run: u32, attempt: u32, interfered: Option<bool>) {
        self.number(run);
        let counts = interfered == Some(false);
        let before = self.last.get(&(case, run)).copied();
        if before.is_some_and(|(a, _)| a > attempt) {
            return;
        }
        self.last.insert((case, run), (attempt, counts));
        let was_lost = before.is_some_and(|(_, c)| !c);
        match (was_lost, counts) {
            (false, false) => *self.lost.entry(run).or_default() += 1,
            (true, true) => {
                if let Some(n) = self.lost.get_mut(&run) {
                    *n -= 1;
                    if *n == 0 {
                        self.lost.remove(&run);
                    }
                }
            }
            _ => {}
        }
    }
}

/// The next extra round of group `g` after its planned runs (`--precision`):
/// run numbers go on from the highest any of its cases has.
pub(super) fn extra_round(plan: &Plan, g: usize, members: &[usize], raw: &RawResults) -> Vec<Slot> {
    let next = next_run(
        plan,
        recorded_runs(members, raw).into_iter().map(|(_, r)| r),
    );
    let round = u64::from(plan.warmup) + u64::from(next);
    round_of(plan, g, members, round, next, false)
}

/// A settling round of `cases` (from any groups): one paired run of each,
/// numbered after the highest run any of them has, so the new runs pair
/// with each other; in alternating order (reversed every other run number).
pub(super) fn settle_round(plan: &Plan, cases: &[usize], raw: &RawResults) -> Vec<Slot> {
    let mut cases: Vec<usize> = cases
        .iter()
        .copied()
        .filter(|&c| c < plan.cases.len())
        .collect();
    cases.sort_unstable();
    cases.dedup();
    if cases.is_empty() {
        return Vec::new();
    }
    let next = next_run(plan, recorded_runs(&cases, raw).into_iter().map(|(_, r)| r));
    if next % 2 == 1 {
        cases.reverse();
    }
    cases
        .into_iter()
        .map(|case| Slot::trial(case, next, false))
        .collect()
}

/// The trials missing from the extra rounds group `g` began (a resumed
/// run's journal may end in the middle of one, or have lost a line): the
/// first such round's missing slots, in that round's order; empty when
/// every extra round so far is whole.
pub(super) fn unfinished_round(
    plan: &Plan,
    g: usize,
    members: &[usize],
    raw: &RawResults,
) -> Vec<Slot> {
    let recorded = recorded_runs(members, raw);
    let last = recorded.iter().map(|&(_, run)| run).max().unwrap_or(0);
    (plan.runs..=last)
        .map(|run| {
            let round = u64::from(plan.warmup) + u64::from(run);
            round_of(plan, g, members, round, run, false)
                .into_iter()
                .filter(|slot| !recorded.contains(&(slot.case, slot.run)))
                .collect::<Vec<_>>()
        })
        .find(|missing| !missing.is_empty())
        .unwrap_or_default()
}

/// The re-runs an interrupted run still owed (`--retry-interfered`): for
/// each resumed (case, run) whose last attempt is an interfered sample with
/// retries left, the next attempt's number.
pub(super) fn owed_retries(raw: &RawResults, retries: u32) -> BTreeMap<(usize, u32), u32> {
    let mut last: BTreeMap<(usize, u32), (u32, bool)> = BTreeMap::new();
    // A control trial (--profile-control) is not re-run: it is not one of
    // the case's runs.
    let attempts = raw
        .samples
        .iter()
        .filter(|s| !s.profile_control)
        .map(|s| ((s.case, s.run), s.attempt, s.interfered()))
        .chain(
            raw.failures
                .iter()
                .filter(|f| !f.warmup && !f.profile_control)
                .map(|f| ((f.case, f.run), f.attempt, false)),
        );
    for (key, attempt, interfered) in attempts {
        let entry = last.entry(key).or_insert((attempt, interfered));
        if attempt >= entry.0 {
            *entry = (attempt, interfered);
        }
    }
    last.into_iter()
        .filter(|(_, (attempt, interfered))| *interfered && *attempt < retries)
        .map(|(key, (attempt, _))| (key, attempt + 1))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::method::MethodKind;
    use crate::plan::Metric;
    use crate::results::TrialFailure;

    fn plan(order: OrderPolicy) -> Plan {
        let case = |method| {
            let mut case = crate::fixtures::case(method);
            (case.block_size, case.file_size) = (4096, 1 << 20);
            case
        };
        Plan {
            cases: vec![case(MethodKind::Read), case(MethodKind::Mmap)],
            runs: 4,
            warmup: 1,
            order,
            metric: Metric::Total,
            seed: 9,
        }
    }

    #[test]
    fn alternating_order_is_abba() {
        let groups = schedule(&plan(OrderPolicy::Alternating));
        assert_eq!(groups.len(), 1);
        let cases: Vec<usize> = groups[0].iter().map(|s| s.case).collect();
        // warm-up A B, then runs B A, A B, B A, A B
        assert_eq!(cases, vec![0, 1, 1, 0, 0, 1, 1, 0, 0, 1]);
        assert!(groups[0][0].warmup && groups[0][1].warmup && !groups[0][2].warmup);
        let measured = groups[0].iter().filter(|s| !s.warmup).count();
        assert_eq!(measured, 8);
    }

    #[test]
    fn control_trials_sit_beside_their_runs_profiled_trial_in_alternating_order() {
        let groups = schedule(&plan(OrderPolicy::Alternating));
        let slots = with_controls(groups[0].clone(), 3);
        let shown: Vec<String> = slots
            .iter()
            .map(|s| {
                let kind = if s.warmup {
                    "w"
                } else if s.control {
                    "U"
                } else {
                    "P"
                };
                format!("{kind}{}{}", s.case, s.run)
            })
            .collect();
        // Warm-ups A B; run 0 (B A): profiled first; run 1 (A B): the
        // control first; run 2 profiled first; run 3 has no control.
        assert_eq!(
            shown,
            [
                "w00", "w10", "P10", "U10", "P00", "U00", "U01", "P01", "U11", "P11", "P12", "U12",
                "P02", "U02", "P03", "P13"
            ]
        );
        assert_eq!(with_controls(groups[0].clone(), 0), groups[0]);
    }

    #[test]
    fn shuffled_order_runs_each_case_once_per_run() {
        let groups = schedule(&plan(OrderPolicy::Shuffled));
        for run in 0..4 {
            let mut cases: Vec<usize> = groups[0]
                .iter()
                .filter(|s| !s.warmup && s.run == run)
                .map(|s| s.case)
                .collect();
            cases.sort();
            assert_eq!(cases, vec![0, 1]);
        }
    }

    #[test]
    fn extra_rounds_go_on_alternating_after_the_planned_runs() {
        let plan = plan(OrderPolicy::Alternating);
        let sample = |case, run| {
            let mut s = crate::fixtures::results().cases[0].samples[0].clone();
            (s.case, s.run) = (case, run);
            s
        };
        // Planned: warm-up A B, runs B A, A B, B A, A B (rounds 0-4); the
        // next round (5) is B A, as run 4.
        let mut raw = RawResults {
            samples: (0..4).flat_map(|r| [sample(0, r), sample(1, r)]).collect(),
            ..Default::default()
        };
        let next = extra_round(&plan, 0, &[0, 1], &raw);
        let cases: Vec<usize> = next.iter().map(|s| s.case).collect();
        assert_eq!(cases, vec![1, 0]);
        assert!(next.iter().all(|s| s.run == 4 && !s.warmup));
        raw.samples.extend([sample(0, 4), sample(1, 4)]);
        let next = extra_round(&plan, 0, &[0, 1], &raw);
        assert_eq!(next.iter().map(|s| s.case).collect::<Vec<_>>(), vec![0, 1]);
        assert!(next.iter().all(|s| s.run == 5));
        // A failed trial's run number is not reused.
        raw.failures.push(TrialFailure {
            case: 1,
            run: 5,
            warmup: false,
            reason: "x".into(),
            attempt: 0,
            profile_control: false,
        });
        assert!(extra_round(&plan, 0, &[0, 1], &raw)
            .iter()
            .all(|s| s.run == 6));
    }

    #[test]
    fn a_resumed_half_round_is_finished_and_owed_retries_are_made() {
        let plan = plan(OrderPolicy::Alternating);
        let sample = |case, run| crate::fixtures::sample(case, run);
        // Planned runs 0-3, then extra rounds 4 (B A) and 5 (A B), the last
        // cut after A: B of run 5 is missing, and only it.
        let mut raw = RawResults {
            samples: (0..5).flat_map(|r| [sample(0, r), sample(1, r)]).collect(),
            ..Default::default()
        };
        assert!(unfinished_round(&plan, 0, &[0, 1], &raw).is_empty());
        raw.samples.push(sample(0, 5));
        assert_eq!(
            unfinished_round(&plan, 0, &[0, 1], &raw),
            [Slot::trial(1, 5, false)]
        );
        // A run whose last attempt was interfered is owed its next attempt,
        // while retries are left; a failed or clean last attempt is not.
        let interfered = |case, run, attempt| {
            let mut s = sample(case, run);
            s.attempt = attempt;
            s.interference = Some(crate::measure::interference::Interference {
                interfered: true,
                ..Default::default()
            });
            s
        };
        let raw = RawResults {
            samples: vec![
                interfered(0, 0, 0),
                interfered(0, 0, 1),
                interfered(1, 0, 0),
                interfered(0, 1, 0),
                sample(1, 1),
                interfered(0, 2, 0),
            ],
            failures: vec![TrialFailure {
                case: 0,
                run: 2,
                warmup: false,
                reason: "x".into(),
                attempt: 1,
                profile_control: false,
            }],
            ..Default::default()
        };
        let owed: Vec<_> = owed_retries(&raw, 2).into_iter().collect();
        assert_eq!(owed, [((0, 0), 2), ((0, 1), 1), ((1, 0), 1)]);
        let owed: Vec<_> = owed_retries(&raw, 1).into_iter().collect();
        assert_eq!(owed, [((0, 1), 1), ((1, 0), 1)]);
        assert!(owed_retries(&raw, 0).is_empty());
    }
}
