//! The parent side of trials: for each trial in the order policy's order,
//! prepare the cache state, measure residency, spawn the trial child and read
//! back its report. The runner computes no statistics.
//!
//! A write trial works on a file of the scratch directory ([`Scratch`]): a new
//! one, or the overwrite target restored to its generated content. After the
//! trial, outside any timing, the file is read back and checked
//! ([`crate::files::readback::check_written`]); a difference fails the run. A trial
//! that found the disk full also stops the run: it is recorded as a failed
//! trial, its file is removed, and the error says why.
//!
//! With `--profile`, each child sends its main loop's samples as normalized
//! addresses; the runner names them right after the trial, outside every
//! clock, with one [`Namer`] for the whole run (kallsyms and each binary's
//! debug information are parsed once), so that the sample it journals holds
//! names, not addresses that mean nothing after a reboot.
use std::collections::{BTreeMap, HashSet};
use std::fs::File;
use std::io::Write;
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

pub mod cache;
pub mod cgroup;
pub mod checksums;
pub mod eta;
pub mod journal;
pub mod procs;
pub mod progress;

use rand::seq::SliceRandom;
use rand::SeedableRng;

use crate::error::{Error, Result};
use crate::files::dataset::Dataset;
use crate::files::fingerprint::{check_unchanged, Fingerprint};
use crate::files::scratch::{Scratch, TargetFile};
use crate::measure::active_runs::OtherRun;
use crate::measure::interference::{self, Probe, Rule};
use crate::measure::profile::{Namer, ProfileRequest};
use crate::measure::residency;
use crate::plan::cache::reached;
use crate::plan::{Case, OrderPolicy, Plan};
use crate::results::{ChildReport, Sample, TrialFailure};
use crate::results::{InterferenceSettings, RawResults};
use crate::runner::cgroup::TrialCgroup;
use crate::runner::checksums::ChecksumBook;
use crate::runner::journal::Entry;
use crate::trial::{TrialSpec, DISK_FULL_EXIT, SUBCOMMAND};
use cache::Preparer;

/// How trials are run.
#[derive(Clone, Debug)]
pub struct RunnerOptions {
    /// The binary to re-execute for each trial (normally this one).
    pub exe: PathBuf,
    /// Cold means drop_caches rather than per-file eviction.
    pub drop_caches: bool,
    /// A trial running longer than this is killed and reported.
    pub trial_timeout: Option<Duration>,
    /// Set from a signal handler: stop before the next trial.
    pub stop: Arc<AtomicBool>,
    /// Where write methods write; `None` when the plan has no write case.
    pub scratch: Option<Arc<Scratch>>,
    /// Where `scale` trials write their scaled image (`--keep-output`; the
    /// last trial's stays).
    pub keep_output: Option<PathBuf>,
    /// How interference is judged around each trial, and how often an
    /// interfered trial is run again.
    pub interference: InterferenceSettings,
    /// This run's entry among the active faultline runs, with its data
    /// directory: the interference record counts the other runs, and a
    /// warning names those in the same data directory.
    pub active_runs: Option<Arc<crate::measure::active_runs::Registration>>,
    /// Sample every trial's main loop (`--profile`), in the mode the session decided.
    pub profile: Option<ProfileRequest>,
    /// With `--profile`: unprofiled control trials per case
    /// (`--profile-control`), each beside the profiled trial of the same run
    /// number (at most one per measured run), to measure what profiling costs.
    pub profile_control: u32,
    /// The files read, with their fingerprints when the run started,
    /// checked after every group; `true` for a user's file (whose times
    /// count too).
    pub fingerprints: Vec<(PathBuf, Fingerprint, bool)>,
    /// `--max-time`: no round is added past it, so the time left counts on
    /// none past it either.
    pub time_budget: Option<Duration>,
    /// The file sets the plan's `--files` cases read, generated.
    pub file_sets: BTreeMap<crate::plan::FileSet, crate::files::file_set::GeneratedSet>,
}

/// What the session says of a group whose rounds so far are done.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MoreRuns {
    /// Whether to add another round.
    pub another: bool,
    /// The group's rounds so far and the rounds it is expected to end with
    /// (the precision rule's forecast), for the time left.
    pub forecast: Option<(usize, usize)>,
}

/// How often a cache state that was not reached is topped up before the
/// trial runs anyway (with a warning).
const TOP_UPS: usize = 2;

/// What an earlier, interrupted run of the same plan already did.
#[derive(Clone, Debug, Default)]
pub struct Resume {
    /// Its samples, failures and warnings.
    pub raw: RawResults,
    /// The slots it finished, which are not run again.
    pub done: HashSet<Slot>,
}

/// One planned trial.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Slot {
    /// Case index.
    pub case: usize,
    /// Run number within its phase.
    pub run: u32,
    /// Whether it is a warm-up.
    pub warmup: bool,
    /// Whether it is the unprofiled control trial of measured run `run`
    /// (`--profile-control`).
    pub control: bool,
}

impl Slot {
    /// A profiled (or plain) trial, the only kind a schedule starts with.
    pub fn trial(case: usize, run: u32, warmup: bool) -> Slot {
        Slot {
            case,
            run,
            warmup,
            control: false,
        }
    }
}

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

/// The next extra round of group `g` after its planned runs (`--precision`):
/// run numbers go on from the highest any of its cases has.
fn extra_round(plan: &Plan, g: usize, members: &[usize], raw: &RawResults) -> Vec<Slot> {
    let next = recorded_runs(members, raw)
        .into_iter()
        .map(|(_, run)| run + 1)
        .max()
        .unwrap_or(0)
        .max(plan.runs);
    let round = u64::from(plan.warmup) + u64::from(next);
    round_of(plan, g, members, round, next, false)
}

/// A settling round of `cases` (from any groups): one paired run of each,
/// numbered after the highest run any of them has, so the new runs pair
/// with each other; in alternating order (reversed every other run number).
fn settle_round(plan: &Plan, cases: &[usize], raw: &RawResults) -> Vec<Slot> {
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
    let next = recorded_runs(&cases, raw)
        .into_iter()
        .map(|(_, run)| run + 1)
        .max()
        .unwrap_or(0)
        .max(plan.runs);
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
fn unfinished_round(plan: &Plan, g: usize, members: &[usize], raw: &RawResults) -> Vec<Slot> {
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
fn owed_retries(raw: &RawResults, retries: u32) -> BTreeMap<(usize, u32), u32> {
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

/// Runs every trial of `plan` that `resume` has not already done. `files`
/// maps a file size to its dataset. `record` is called with each finished
/// trial before the next starts (the journal); `after_group` with everything
/// so far after each group, and before an error is returned, so exports can
/// be rewritten. After a group's planned runs, `more_runs(group, &raw)` is
/// asked whether it gets another alternating round (`--precision`), until it
/// says no.
///
/// A resumed run goes on as the interrupted one would have: the extra
/// rounds it journalled are kept and not run again, a round it left half
/// done is completed first, the re-runs it owed an interfered trial are
/// made, and a group it had finished (a later group has trials) gets no
/// more rounds.
#[allow(clippy::too_many_arguments)]
pub fn run_trials(
    plan: &Plan,
    files: &BTreeMap<u64, Dataset>,
    options: &RunnerOptions,
    bar: &indicatif::ProgressBar,
    resume: Resume,
    mut record: impl FnMut(&Entry) -> Result<()>,
    mut after_group: impl FnMut(&RawResults),
    mut more_runs: impl FnMut(usize, &RawResults) -> MoreRuns,
    mut settle: impl FnMut(&RawResults) -> Vec<usize>,
) -> Result<RawResults> {
    let preparer = Preparer {
        drop_caches: options.drop_caches,
    };
    let mut book = ChecksumBook::default();
    for sample in &resume.raw.samples {
        // The journal reader checked every case index; a caller that did
        // not gets an error, not a panic.
        let case = plan.cases.get(sample.case).ok_or_else(|| {
            Error::Plan(format!(
                "a resumed sample names case {}, which is not in the plan",
                sample.case
            ))
        })?;
        book.check(case, sample.child.checksum)?;
    }
    let mut sequence = resume
        .raw
        .samples
        .iter()
        .map(|s| s.sequence + 1)
        .max()
        .unwrap_or(0);
    let mut owed = owed_retries(&resume.raw, options.interference.retries);
    let groups = plan.groups();
    let group_of = |case: usize| groups.iter().position(|m| m.contains(&case));
    // The group the interrupted run was in: those before it were finished.
    let resumed_group = resume
        .done
        .iter()
        .filter_map(|slot| group_of(slot.case))
        .max();
    let mut raw = resume.raw;
    raw.complete = false;
    // The last trial's throughput of each case, shown in the progress line
    // while the case runs again (measured: bytes over its main loop).
    let mut last_rate: std::collections::BTreeMap<usize, f64> = Default::default();
    // Control trials only beside profiled ones, at most one per measured run.
    let controls = match options.profile {
        Some(_) => options.profile_control.min(plan.runs),
        None => 0,
    };
    let mut eta = eta::Eta::new(plan, &groups).with_budget(options.time_budget);
    eta.add_per_case(u64::from(controls));
    let mut progress = progress::Progress::new(bar, eta);
    let rule = options.interference.threshold.map(Rule::with_threshold);
    let mut namer: Option<Namer> = None;
    let mut others_seen = false;
    // Another faultline run in the same data directory competes for the
    // same CPUs, caches and device: said once, the first time it is seen,
    // from the registry of runs that the interference record reads too.
    let mut watch_others = |raw: &mut RawResults, case: &Case, run: u32, seen: &[OtherRun]| {
        let Some(registration) = &options.active_runs else {
            return;
        };
        let mut here: Vec<&str> = seen
            .iter()
            .filter(|r| registration.shares_data_dir(r))
            .map(|r| r.id.as_str())
            .collect();
        here.sort_unstable();
        here.dedup();
        let n = here.len();
        if n > 0 && !std::mem::replace(&mut others_seen, true) {
            let warning = format!(
                "{n} other faultline run(s) were active in {} during this run's trials (first seen at {} ({}), run {run}); runs at the same time contaminate each other's numbers",
                registration
                    .data_dir()
                    .map_or_else(|| "its data directory".into(), |d| d.display().to_string()),
                case.method_label(),
                case.group_label(),
            );
            bar.suspend(|| crate::console::warning(&warning));
            raw.warnings.push(warning);
        }
    };
    // The runs in the registry now (without an interference probe, whose
    // snapshots hold them).
    let registered = || {
        options
            .active_runs
            .as_ref()
            .and_then(|r| r.others().ok())
            .unwrap_or_default()
    };
    // After the groups, a settling phase: rounds of whichever cases
    // `settle` still asks for, in any group, until it asks for none.
    let settling_phase = groups.len();
    let all_cases: Vec<usize> = (0..plan.cases.len()).collect();
    let phases = schedule(plan)
        .into_iter()
        .chain(std::iter::once(Vec::new()));
    for (g, group) in phases.enumerate() {
        let settling = g == settling_phase;
        let members: &[usize] = if settling { &all_cases } else { &groups[g] };
        let finished_before = !settling && resumed_group.is_some_and(|last| g < last);
        let group = with_controls(group, controls);
        // Each slot with its attempt; an interfered trial's re-run goes to
        // the front (--retry-interfered); with --precision, rounds of
        // alternating runs are added until the group is precise enough.
        let mut queue: std::collections::VecDeque<(Slot, u32)> =
            group.into_iter().map(|slot| (slot, 0)).collect();
        loop {
            let (slot, attempt) = match queue.pop_front() {
                Some(next) => next,
                None if options.stop.load(Ordering::SeqCst) => break,
                None => {
                    // Re-runs owed in the extra rounds (the planned ones
                    // were queued as their slots came up).
                    let here: Vec<(usize, u32)> = owed
                        .keys()
                        .filter(|(case, _)| members.contains(case))
                        .copied()
                        .collect();
                    if !here.is_empty() {
                        for (case, run) in here {
                            let next = owed.remove(&(case, run)).unwrap_or(1);
                            let slot = Slot::trial(case, run, false);
                            queue.push_back((slot, next));
                            progress.eta.add(case, 1);
                        }
                        continue;
                    }
                    if finished_before {
                        break;
                    }
                    let round = if settling {
                        settle_round(plan, &settle(&raw), &raw)
                    } else {
                        let mut round = unfinished_round(plan, g, members, &raw);
                        if round.is_empty() {
                            let more = more_runs(g, &raw);
                            if let Some((now, needed)) = more.forecast {
                                progress.eta.forecast(g, now, needed);
                            }
                            if more.another {
                                round = extra_round(plan, g, members, &raw);
                            }
                        }
                        round
                    };
                    if round.is_empty() {
                        progress.eta.finish(g);
                        progress.refresh();
                        break;
                    }
                    for slot in &round {
                        progress.eta.add(slot.case, 1);
                    }
                    progress.refresh();
                    queue.extend(round.into_iter().map(|slot| (slot, 0)));
                    continue;
                }
            };
            if attempt == 0 && resume.done.contains(&slot) {
                progress.eta.skip(slot.case);
                progress.refresh();
                // Interrupted before an interfered trial's re-run: make it.
                if let Some(next) = owed.remove(&(slot.case, slot.run)).filter(|_| !slot.warmup) {
                    queue.push_front((slot, next));
                    progress.eta.add(slot.case, 1);
                }
                continue;
            }
            let started = std::time::Instant::now();
            if options.stop.load(Ordering::SeqCst) {
                after_group(&raw);
                return Ok(raw);
            }
            let case = &plan.cases[slot.case];
            // Drawn on the terminal outside the console: escaped here (a
            // group label holds a trace's file name).
            let message = progress_message(case, last_rate.get(&slot.case).copied());
            bar.set_message(crate::console::escape(&message, false).into_owned());
            let file = trial_file(case, slot.case, files, options)?;
            let datasets = file.datasets();
            let dataset = &datasets[0];
            let set = datasets.len() > 1;
            let mut prepared_by = if set {
                preparer.prepare_set(datasets, case.cache, case.warm_by)?
            } else {
                preparer.prepare(dataset, case.cache, case.warm_by)?
            };
            let mut before = measure_residency(datasets)?;
            // Something else (page reclaim, DAMON) may undo part of the
            // preparation: top it up, at most twice, and say so.
            for _ in 0..TOP_UPS {
                if reached(case.cache, before.fraction()) {
                    break;
                }
                if set {
                    // Prepared again, whole: a set's top-up is its preparation.
                    preparer.prepare_set(datasets, case.cache, case.warm_by)?;
                    prepared_by.push_str("+top-up");
                } else {
                    prepared_by.push_str(&preparer.top_up(dataset, case.cache, case.warm_by)?);
                }
                before = measure_residency(datasets)?;
            }
            let reached = reached(case.cache, before.fraction());
            if !reached {
                let warning = format!(
                    "{} ({}), run {}: {} cache not reached: {:.1}% resident before the trial",
                    case.method_label(),
                    case.group_label(),
                    slot.run,
                    case.cache,
                    before.fraction() * 100.0
                );
                bar.suspend(|| crate::console::warning(&warning));
                raw.warnings.push(warning);
            }
            // A case with a memory budget runs its child alone in a cgroup of
            // its own, removed when this trial ends (dropped).
            let cgroup = match case.memory_budget.as_ref().map(TrialCgroup::create) {
                Some(Err(e)) => {
                    after_group(&raw);
                    return Err(e);
                }
                Some(Ok(cgroup)) => cgroup,
                None => None,
            };
            let probe = rule.map(|_| Probe::new(&dataset.path, options.active_runs.clone()));
            let mut seen = if probe.is_none() {
                registered()
            } else {
                Vec::new()
            };
            let spec = TrialSpec {
                path: file.path().to_path_buf(),
                case: case.clone(),
                keep_output: options.keep_output.clone(),
                cgroup_usage: cgroup.as_ref().map(TrialCgroup::usage_file),
                content_seed: dataset.seed,
                // A control trial is the same trial, unprofiled.
                profile: if slot.control { None } else { options.profile },
            };
            // The interference window: from just before the spawn to just
            // after the reap (nothing runs between the probe and the spawn).
            let window_start = probe.as_ref().map(Probe::before);
            let outcome = match case.procs {
                Some(n) if n > 1 => crate::runner::procs::run_together(&options.exe, &spec, n),
                _ => spawn_trial(options, &spec, cgroup.as_ref()),
            };
            let window_end = probe.as_ref().map(Probe::after);
            let mut interference = match (&window_start, &window_end, &rule) {
                (Some(start), Some(end), Some(rule)) => {
                    Some(interference::measure(start, end, rule, trial_threads(case)))
                }
                _ => None,
            };
            match (&window_start, &window_end) {
                (Some(start), Some(end)) => {
                    seen.extend(start.other_runs.iter().chain(&end.other_runs).cloned())
                }
                _ => seen.extend(registered()),
            }
            drop(cgroup);
            if options.stop.load(Ordering::SeqCst) {
                // Interrupted mid-trial: the child was stopped too, so this
                // trial is neither a sample nor a failure; --resume reruns it.
                after_group(&raw);
                return Ok(raw);
            }
            let after = measure_residency(datasets)?;
            watch_others(&mut raw, case, slot.run, &seen);
            sequence += 1;
            progress.eta.record(slot.case, started.elapsed());
            progress.refresh();
            let entry = match outcome {
                Ok(mut report) => {
                    if report.continued {
                        stopped_and_continued(&mut interference);
                    }
                    if report.wall_ns > 0 && report.bytes > 0 {
                        let rate = report.bytes as f64 * 1e9 / report.wall_ns as f64;
                        last_rate.insert(slot.case, rate);
                    }
                    if let Some(raw_profile) = report.raw_profile.take() {
                        let namer = namer.get_or_insert_with(Namer::new);
                        report.profile = Some(namer.name(&raw_profile));
                    }
                    let checked = book.check(case, report.checksum);
                    if let Err(e) = checked.and_then(|()| file.verify(case, report.checksum)) {
                        after_group(&raw);
                        // Two methods disagree because the file changed
                        // under them: say that, not "read gave X but mmap gave Y".
                        check_inputs(options)?;
                        return Err(e);
                    }
                    if slot.warmup {
                        Entry::Warmup {
                            case: slot.case,
                            run: slot.run,
                        }
                    } else {
                        Entry::Sample(Box::new(Sample {
                            case: slot.case,
                            run: slot.run,
                            sequence: sequence - 1,
                            total_ns: report.setup_ns
                                + report.wall_ns
                                + report.sync_ns
                                + report.teardown_ns,
                            child: report,
                            residency_before: before.fraction(),
                            residency_after: after.fraction(),
                            residency_source: before.source.to_string(),
                            cache_prepared_by: prepared_by,
                            cache_reached: reached,
                            interference,
                            attempt,
                            excluded: None,
                            profile_control: slot.control,
                        }))
                    }
                }
                Err(reason) if is_disk_full(&reason) => {
                    let failure = TrialFailure {
                        case: slot.case,
                        run: slot.run,
                        warmup: slot.warmup,
                        reason: reason.clone(),
                        attempt,
                        profile_control: slot.control,
                    };
                    record(&Entry::Failure(failure.clone()))?;
                    raw.failures.push(failure);
                    after_group(&raw);
                    let kept = options.scratch.as_ref().is_some_and(|s| s.keep());
                    return Err(Error::Stopped(format!(
                        "{} ({}), run {}: {reason}; the run stopped and {}",
                        case.method_label(),
                        case.group_label(),
                        slot.run,
                        if kept {
                            "kept its files (--keep)"
                        } else {
                            "removed its files"
                        }
                    )));
                }
                Err(reason) => {
                    bar.suspend(|| {
                        eprintln!(
                            "warning: trial failed: {} ({}), run {}{}: {reason}",
                            case.method_label(),
                            case.group_label(),
                            slot.run,
                            if slot.control {
                                " (its unprofiled control trial)"
                            } else {
                                ""
                            }
                        )
                    });
                    Entry::Failure(TrialFailure {
                        case: slot.case,
                        run: slot.run,
                        warmup: slot.warmup,
                        reason,
                        attempt,
                        profile_control: slot.control,
                    })
                }
            };
            record(&entry)?;
            match entry {
                Entry::Sample(sample) => {
                    // A control trial is not re-run: its key in the journal
                    // is its run's, and an interfered one still pairs (or,
                    // with --exclude-interfered, its pair is left out).
                    let retry = !slot.control && attempt < options.interference.retries;
                    if sample.interfered() && retry {
                        queue.push_front((slot, attempt + 1));
                        progress.eta.add(slot.case, 1);
                    }
                    raw.samples.push(*sample)
                }
                Entry::Failure(failure) => raw.failures.push(failure),
                Entry::Warmup { .. } => {}
            }
        }
        after_group(&raw);
        check_inputs(options)?;
    }
    raw.complete = true;
    Ok(raw)
}

/// How many threads or processes a trial of `case` runs at once.
fn trial_threads(case: &Case) -> u32 {
    case.threads.map_or(1, |t| t.count) * case.procs.unwrap_or(1)
}

/// The files read are what they were when the run started.
fn check_inputs(options: &RunnerOptions) -> Result<()> {
    for (path, then, times) in &options.fingerprints {
        check_unchanged(path, then, *times)?;
    }
    Ok(())
}

/// The file one trial works on.
enum TrialFile<'a> {
    /// A read method's dataset.
    Read(&'a Dataset),
    /// A write method's (or a mixed case's) scratch file (a fresh one is
    /// removed when this is dropped).
    Write(TargetFile<'a>),
    /// A file set (`--files`): its directory and its files.
    Set(&'a crate::files::file_set::GeneratedSet),
}

impl TrialFile<'_> {
    /// The files whose cache is prepared and measured (one, or a set's):
    /// never empty.
    fn datasets(&self) -> &[Dataset] {
        match self {
            TrialFile::Read(d) => std::slice::from_ref(*d),
            TrialFile::Write(t) => std::slice::from_ref(t.dataset()),
            TrialFile::Set(set) => &set.files,
        }
    }

    /// The path the trial is given: the file, or the set's directory.
    fn path(&self) -> &std::path::Path {
        match self {
            TrialFile::Set(set) => &set.dir,
            _ => &self.datasets()[0].path,
        }
    }

    /// After a write trial, reads the file back and checks it (nothing for reads).
    fn verify(&self, case: &Case, checksum: u64) -> Result<()> {
        match self {
            TrialFile::Read(_) | TrialFile::Set(_) => Ok(()),
            TrialFile::Write(t) => t.verify(case, checksum),
        }
    }
}

/// The file for the next trial of case `id`: its dataset, or for a write
/// method a scratch file prepared for this trial.
fn trial_file<'a>(
    case: &Case,
    id: usize,
    files: &'a BTreeMap<u64, Dataset>,
    options: &'a RunnerOptions,
) -> Result<TrialFile<'a>> {
    if let Some(set) = case.files {
        return options
            .file_sets
            .get(&set)
            .map(TrialFile::Set)
            .ok_or_else(|| Error::Plan(format!("no generated set of {set}")));
    }
    if case.writes_file() {
        let scratch = options.scratch.as_deref().ok_or_else(|| {
            Error::Plan(format!(
                "{} writes, and no scratch directory was prepared",
                case.method
            ))
        })?;
        return Ok(TrialFile::Write(scratch.target(id, case)?));
    }
    files
        .get(&case.file_size)
        .map(TrialFile::Read)
        .ok_or_else(|| Error::Plan(format!("no file of {} bytes", case.file_size)))
}

/// Whether a trial failed because a write found no room (the child's
/// [`Error::DiskFull`] line, which it exits with [`DISK_FULL_EXIT`] for).
fn is_disk_full(reason: &str) -> bool {
    reason.starts_with("disk full (")
}

/// The progress line's message for a trial of `case`: the method and group,
/// and the throughput of the case's last trial, when one has run.
fn progress_message(case: &Case, last_rate: Option<f64>) -> String {
    match last_rate {
        Some(rate) => format!(
            "{} · {} · last trial {}/s",
            case.method_label(),
            case.group_label(),
            crate::size::format_size(rate as u64)
        ),
        None => format!("{} · {}", case.method_label(), case.group_label()),
    }
}

/// The residency of a trial's files, summed over all of them (a set's
/// pages counted together: the fraction is of every page of the set).
fn measure_residency(datasets: &[Dataset]) -> Result<residency::Residency> {
    let mut sum: Option<residency::Residency> = None;
    for dataset in datasets {
        let file = File::open(&dataset.path).map_err(|e| Error::io("open", &dataset.path, e))?;
        let r = residency::measure(&file)
            .map_err(|e| Error::io("measure residency of", &dataset.path, e))?;
        sum = Some(match sum {
            None => r,
            Some(s) => residency::Residency {
                resident_pages: s.resident_pages + r.resident_pages,
                total_pages: s.total_pages + r.total_pages,
                source: s.source,
            },
        });
    }
    sum.ok_or_else(|| Error::Plan("a trial with no file".into()))
}

/// Marks a trial that was stopped (Ctrl-Z, SIGSTOP) and continued while it
/// ran as interfered, saying so: its times hold the pause, so it is not
/// counted as a clean sample (`--retry-interfered` runs it again).
fn stopped_and_continued(record: &mut Option<crate::measure::interference::Interference>) {
    let record = record.get_or_insert_with(Default::default);
    record.interfered = true;
    record.reasons.push(
        "the trial was stopped (Ctrl-Z or SIGSTOP) and continued while it ran: its times include the pause"
            .to_string(),
    );
}

/// Why a trial that died for lack of memory died, in those words: killed
/// by SIGKILL while the kernel's OOM-kill count rose (the machine, or the
/// trial's memory cgroup, ran out), or aborted by a failed allocation.
fn out_of_memory(
    output: &std::process::Output,
    oom_kills_before: Option<i64>,
    in_cgroup: bool,
) -> Option<String> {
    let signal = output.status.signal()?;
    if signal == libc::SIGKILL {
        let rose = matches!(
            (oom_kills_before, crate::measure::vmstat::oom_kills()),
            (Some(before), Some(after)) if after > before
        );
        if !rose {
            return None;
        }
        let whose = if in_cgroup {
            "its memory cgroup (--memory-budget) or the machine"
        } else {
            "the machine"
        };
        return Some(format!(
            "ran out of memory: the kernel's OOM killer ended it with SIGKILL ({whose} had no memory left); \
             ask for less (fewer --threads or --procs, a smaller --block, --iov or --depth) or free memory"
        ));
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let failed = stderr
        .lines()
        .find(|l| l.contains("memory allocation of"))?;
    (signal == libc::SIGABRT).then(|| {
        format!(
            "ran out of memory: {} (aborted); ask for less (fewer --threads or --procs, a smaller --block, --iov or --depth) or free memory",
            failed.trim()
        )
    })
}

/// `exe __trial`, set up to die with this process: the child asks the
/// kernel for SIGKILL when its parent dies (PR_SET_PDEATHSIG), then checks
/// that its parent is still the process that forked it, since the parent
/// may have died before the request took effect. So a SIGKILLed faultline
/// leaves no trial running, and a later resume is never measured beside an
/// orphan. (The signal is tied to the thread that spawns the child: trials
/// are spawned from the thread that runs the whole plan.)
pub fn trial_command(exe: &std::path::Path) -> Command {
    use std::os::unix::process::CommandExt;
    let mut command = Command::new(exe);
    command.arg(SUBCOMMAND);
    let parent = std::process::id() as libc::pid_t;
    // SAFETY: prctl and getppid are async-signal-safe, and the closure
    // allocates nothing.
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            if libc::getppid() != parent {
                return Err(std::io::Error::other(
                    "faultline ended before its trial started",
                ));
            }
            Ok(())
        });
    }
    command
}

/// Runs one trial child (in `cgroup`, when given, which it joins before it
/// is sent its spec); `Err` holds the reason it produced no sample.
fn spawn_trial(
    options: &RunnerOptions,
    spec: &TrialSpec,
    cgroup: Option<&TrialCgroup>,
) -> std::result::Result<ChildReport, String> {
    let oom_kills_before = crate::measure::vmstat::oom_kills();
    let mut child = trial_command(&options.exe)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            format!(
                "could not start the trial process {}: {e}",
                options.exe.display()
            )
        })?;
    if let Some(cgroup) = cgroup {
        if let Err(e) = cgroup.add(child.id()) {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("could not put the trial into its cgroup: {e}"));
        }
    }
    let spec_json = serde_json::to_vec(spec).map_err(|e| e.to_string())?;
    // A child that died before it read its spec (killed by a signal, out of
    // memory) breaks the pipe: its death, found below, is the reason, not
    // the broken pipe. Closing stdin ends a child still waiting on it.
    let send_error = child
        .stdin
        .take()
        .and_then(|mut stdin| stdin.write_all(&spec_json).err());
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    let (done, watch) = mpsc::channel::<()>();
    let limit = options.trial_timeout;
    let stop = Arc::clone(&options.stop);
    // The watchdog kills the child when it outlives --trial-timeout, or when
    // a stop is asked for (a signal sent to faultline alone must still end
    // the running trial). It wakes every 50 ms, or when the limit is due if
    // that is sooner (so a limit shorter than 50 ms holds for every trial),
    // and never touches the child otherwise.
    let watchdog = std::thread::spawn(move || {
        let started = std::time::Instant::now();
        loop {
            let tick = limit.map_or(Duration::from_millis(50), |l| {
                l.saturating_sub(started.elapsed())
                    .min(Duration::from_millis(50))
            });
            match watch.recv_timeout(tick) {
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    let expired = limit.is_some_and(|l| started.elapsed() >= l);
                    if expired || stop.load(Ordering::SeqCst) {
                        let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL);
                        return expired;
                    }
                }
                _ => return false,
            }
        }
    });
    let output = child.wait_with_output();
    let _ = done.send(());
    let timed_out = watchdog.join().unwrap_or(false);
    let output = output.map_err(|e| format!("waiting for the trial: {e}"))?;
    if timed_out {
        let limit = options.trial_timeout.unwrap_or_default();
        return Err(format!(
            "timed out after {} s and was killed (--trial-timeout)",
            limit.as_secs_f64()
        ));
    }
    if let Some(reason) = out_of_memory(&output, oom_kills_before, cgroup.is_some()) {
        return Err(reason);
    }
    if let Some(signal) = output.status.signal() {
        let name = nix::sys::signal::Signal::try_from(signal)
            .map(|s| s.as_str())
            .unwrap_or("an unknown signal");
        let hint = match signal {
            libc::SIGBUS if spec.case.method.writes() => {
                " (a store into the mapping could not be backed: disk full, or the file was truncated)"
            }
            libc::SIGBUS => " (the file was probably truncated under the mapping)",
            _ => "",
        };
        return Err(format!("killed by {name}{hint}"));
    }
    if let Some(e) = send_error {
        return Err(format!("could not send the trial spec: {e}"));
    }
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let line = stderr
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("no message");
        if output.status.code() == Some(DISK_FULL_EXIT) && is_disk_full(line) {
            return Err(line.to_string());
        }
        return Err(format!(
            "exited with {}: {line}",
            output.status.code().unwrap_or(-1)
        ));
    }
    serde_json::from_slice(&output.stdout).map_err(|e| format!("unreadable trial report: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::method::MethodKind;
    use crate::plan::Metric;

    #[test]
    fn the_progress_line_shows_the_last_trials_throughput() {
        let case = crate::fixtures::case(MethodKind::Read);
        let first = progress_message(&case, None);
        assert!(!first.contains("/s"), "{first}");
        let later = progress_message(&case, Some(2.5 * 1024.0 * 1024.0 * 1024.0));
        assert!(later.ends_with(" · last trial 2.50 GiB/s"), "{later}");
        assert!(later.starts_with(&first), "{later}");
    }

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
