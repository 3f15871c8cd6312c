//! The scheduler: which trial runs next. It owns the rounds of each group
//! (warm-ups, the planned runs, the control trials beside them), the
//! re-runs of interfered trials (`--retry-interfered`), the extra rounds a
//! [`Sink`] asks for (`--precision`), the settling phase after every group,
//! and resuming: the slots a journal holds are skipped, a round it left
//! half done is completed first, the re-runs it owed are made, and a group
//! it had finished gets no more rounds. Each slot is run by the
//! [`Executor`]; each entry goes to the sink.
use std::collections::{BTreeMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::executor::{Executor, Outcome};
use super::progress::Progress;
use super::rounds::{
    extra_round, owed_retries, schedule, settle_round, unfinished_round, with_controls,
};
use super::sink::Sink;
use super::{eta, Resume, RunSpec, Slot};
use crate::error::Result;
use crate::plan::Plan;
use crate::results::RawResults;
use crate::runner::journal::Entry;

/// Slots waiting to run, each with its attempt (0, or the k-th re-run).
type Queue = VecDeque<(Slot, u32)>;

/// Runs a plan's slots, phase by phase, through an executor into a sink.
pub struct Scheduler<'a> {
    plan: &'a Plan,
    groups: Vec<Vec<usize>>,
    progress: Progress<'a>,
    stop: Arc<AtomicBool>,
    /// `--retry-interfered`: re-runs of an interfered trial, at most.
    retries: u32,
    /// `--profile-control`: control trials per case.
    controls: u32,
    /// The slots the resumed journal holds.
    done: HashSet<Slot>,
    /// The re-runs the resumed journal still owed, by (case, run).
    owed: BTreeMap<(usize, u32), u32>,
    /// The group the interrupted run was in: those before it were finished.
    resumed_group: Option<usize>,
    /// Everything so far.
    raw: RawResults,
}

impl<'a> Scheduler<'a> {
    /// A scheduler of `spec`'s trials that `resume` has not already done,
    /// stopping when `stop` is set, showing its progress on `bar`.
    pub fn new(
        spec: &'a RunSpec,
        stop: &Arc<AtomicBool>,
        bar: &'a indicatif::ProgressBar,
        resume: Resume,
    ) -> Scheduler<'a> {
        let plan = &spec.plan;
        let groups = plan.groups();
        let group_of = |case: usize| groups.iter().position(|m| m.contains(&case));
        let resumed_group = resume
            .done
            .iter()
            .filter_map(|slot| group_of(slot.case))
            .max();
        // Control trials only beside profiled ones, at most one per measured run.
        let controls = spec
            .profile_settings()
            .map_or(0, |p| p.control_trials.min(plan.runs));
        let mut eta = eta::Eta::new(plan, &groups).with_budget(spec.time_budget());
        eta.add_per_case(u64::from(controls));
        let retries = spec.interference().retries;
        let mut raw = resume.raw;
        raw.complete = false;
        Scheduler {
            plan,
            progress: Progress::new(bar, eta),
            stop: Arc::clone(stop),
            retries,
            controls,
            owed: owed_retries(&raw, retries),
            done: resume.done,
            resumed_group,
            raw,
            groups,
        }
    }

    /// Runs every phase: each group in turn, then the settling phase
    /// (rounds of whichever cases [`Sink::settle`] still names, in any
    /// group, until it names none). The sink gets everything so far after
    /// each phase, and before a stop or an error returns.
    pub fn run(mut self, executor: &mut Executor, sink: &mut impl Sink) -> Result<RawResults> {
        let settling_phase = self.groups.len();
        let phases = schedule(self.plan)
            .into_iter()
            .chain(std::iter::once(Vec::new()));
        for (g, group) in phases.enumerate() {
            let group = with_controls(group, self.controls);
            if !self.run_phase(g, g == settling_phase, group, executor, sink)? {
                return Ok(self.raw);
            }
            sink.group_done(&self.raw);
            executor.check_inputs()?;
        }
        self.raw.complete = true;
        Ok(self.raw)
    }

    /// Runs phase `g` from its planned `slots` until it needs no more;
    /// `false` when a stop ended the run (the sink has what ran).
    fn run_phase(
        &mut self,
        g: usize,
        settling: bool,
        slots: Vec<Slot>,
        executor: &mut Executor,
        sink: &mut impl Sink,
    ) -> Result<bool> {
        let members: Vec<usize> = if settling {
            (0..self.plan.cases.len()).collect()
        } else {
            self.groups[g].clone()
        };
        let mut queue: Queue = slots.into_iter().map(|slot| (slot, 0)).collect();
        loop {
            let Some((slot, attempt)) = queue.pop_front() else {
                if self.stop.load(Ordering::SeqCst) {
                    return Ok(true);
                }
                match self.refill(g, settling, &members, sink) {
                    Some(more) => queue.extend(more),
                    None => return Ok(true),
                }
                continue;
            };
            if attempt == 0 && self.done.contains(&slot) {
                self.skip(slot, &mut queue);
                continue;
            }
            let started = std::time::Instant::now();
            if self.stop.load(Ordering::SeqCst) {
                sink.group_done(&self.raw);
                return Ok(false);
            }
            match executor.run(slot, attempt, &mut self.raw.warnings)? {
                Outcome::Stopped => {
                    // Interrupted mid-trial: --resume runs it again.
                    sink.group_done(&self.raw);
                    return Ok(false);
                }
                Outcome::Fatal { failure, error } => {
                    if let Some(failure) = failure {
                        sink.record(&Entry::Failure(failure.clone()))?;
                        self.raw.failures.push(failure);
                    }
                    sink.group_done(&self.raw);
                    return Err(error);
                }
                Outcome::Done(entry) => {
                    self.progress.eta.record(slot.case, started.elapsed());
                    self.progress.refresh();
                    sink.record(&entry)?;
                    self.keep(slot, attempt, entry, &mut queue);
                }
            }
        }
    }

    /// A slot the resumed journal holds is not run again; an interfered
    /// trial whose re-run it still owed gets that re-run now.
    fn skip(&mut self, slot: Slot, queue: &mut Queue) {
        self.progress.eta.skip(slot.case);
        self.progress.refresh();
        if let Some(next) = self
            .owed
            .remove(&(slot.case, slot.run))
            .filter(|_| !slot.warmup)
        {
            queue.push_front((slot, next));
            self.progress.eta.add(slot.case, 1);
        }
    }

    /// Keeps a finished trial's entry; an interfered sample with retries
    /// left is run again at once (`--retry-interfered`). A control trial is
    /// not re-run: its key in the journal is its run's, and an interfered
    /// one still pairs (or, with `--exclude-interfered`, its pair is left out).
    fn keep(&mut self, slot: Slot, attempt: u32, entry: Entry, queue: &mut Queue) {
        match entry {
            Entry::Sample(sample) => {
                let retry = !slot.control && attempt < self.retries;
                if sample.interfered() && retry {
                    queue.push_front((slot, attempt + 1));
                    self.progress.eta.add(slot.case, 1);
                }
                self.raw.samples.push(*sample)
            }
            Entry::Failure(failure) => self.raw.failures.push(failure),
            Entry::Warmup { .. } => {}
        }
    }

    /// What phase `g` runs once its queue is empty: the re-runs owed in its
    /// extra rounds, else the rest of a round a resumed journal left half
    /// done, else the round the sink asks for; `None` when it is done (a
    /// group the resumed run had finished gets nothing more).
    fn refill(
        &mut self,
        g: usize,
        settling: bool,
        members: &[usize],
        sink: &mut impl Sink,
    ) -> Option<Queue> {
        let here: Vec<(usize, u32)> = self
            .owed
            .keys()
            .filter(|(case, _)| members.contains(case))
            .copied()
            .collect();
        if !here.is_empty() {
            let mut owed = Queue::new();
            for (case, run) in here {
                let next = self.owed.remove(&(case, run)).unwrap_or(1);
                owed.push_back((Slot::trial(case, run, false), next));
                self.progress.eta.add(case, 1);
            }
            return Some(owed);
        }
        let finished_before = !settling && self.resumed_group.is_some_and(|last| g < last);
        if finished_before {
            return None;
        }
        let (plan, raw) = (self.plan, &self.raw);
        let round = if settling {
            settle_round(plan, &sink.settle(raw), raw)
        } else {
            let mut round = unfinished_round(plan, g, members, raw);
            if round.is_empty() {
                let more = sink.more_rounds(g, raw);
                if let Some((now, needed)) = more.forecast {
                    self.progress.eta.forecast(g, now, needed);
                }
                if more.another {
                    round = extra_round(plan, g, members, raw);
                }
            }
            round
        };
        if round.is_empty() {
            self.progress.eta.finish(g);
            self.progress.refresh();
            return None;
        }
        for slot in &round {
            self.progress.eta.add(slot.case, 1);
        }
        self.progress.refresh();
        Some(round.into_iter().map(|slot| (slot, 0)).collect())
    }
}
