//! The trial executor: runs one slot and returns its entry. It finds the
//! trial's file (a dataset, or a scratch file for a write), prepares the
//! cache state and tops it up, measures residency before and after, opens
//! the interference window, spawns the child ([`super::spawn`]) in its
//! memory cgroup, names a profile's samples, and checks the checksum
//! against every other trial of the same work. Scheduling is not its
//! concern ([`super::scheduler`]), and it computes no statistics.
use std::collections::BTreeMap;
use std::fs::File;
use std::sync::atomic::Ordering;

use crate::error::{Error, Result};
use crate::files::dataset::Dataset;
use crate::files::fingerprint::check_unchanged;
use crate::files::scratch::{Scratch, TargetFile};
use crate::measure::active_runs::OtherRun;
use crate::measure::interference::{self, Interference, Probe, Rule};
use crate::measure::profile::Namer;
use crate::measure::residency::{self, Residency};
use crate::plan::cache::reached;
use crate::plan::{Case, Plan};
use crate::results::{ChildReport, RawResults, Sample, TrialFailure};
use crate::runner::cache::{KeptWarm, Preparer, TrialTouch};
use crate::runner::cgroup::TrialCgroup;
use crate::runner::checksums::ChecksumBook;
use crate::runner::journal::Entry;
use crate::runner::live_rate::{Counter, LiveRate, LiveWatch};
use crate::runner::spawn::{is_disk_full, spawn_trial, Spawner};
use crate::runner::{Rig, RunSpec, Slot};
use crate::trial::TrialSpec;

/// How often a cache state that was not reached is topped up before the
/// trial runs anyway (with a warning).
const TOP_UPS: usize = 2;

/// What running one slot came to.
#[derive(Debug)]
pub enum Outcome {
    /// The trial ran (or failed on its own): its journal entry.
    Done(Entry),
    /// A stop was asked for while the trial ran: the child was stopped too,
    /// so the trial is neither a sample nor a failure (`--resume` runs it).
    Stopped,
    /// The run cannot go on (the disk is full, two trials disagree, a
    /// cgroup could not be made): the failure to record first, if the trial
    /// has one, and the error. What ran so far still goes to the sink.
    Fatal {
        /// The trial's failure, recorded before the run stops.
        failure: Option<TrialFailure>,
        /// Why the run stops.
        error: Error,
    },
}

/// The cache state a trial starts from.
struct Prepared {
    /// How it was prepared (and topped up).
    by: String,
    /// Residency just before the trial.
    before: Residency,
    /// Whether the state asked for was reached.
    reached: bool,
}

/// What the child did, with the interference window around it.
struct Ran {
    /// Its report, or why it produced none.
    report: std::result::Result<ChildReport, String>,
    /// The interference record of the window (none when it is off).
    interference: Option<Interference>,
    /// The other faultline runs seen during the window.
    seen: Vec<OtherRun>,
}

/// What was measured around a trial that reported.
struct Around {
    /// The cache state it started from.
    prepared: Prepared,
    /// Residency just after it.
    after: Residency,
    /// Its interference record.
    interference: Option<Interference>,
}

/// Runs the trials of one plan, one slot at a time.
pub struct Executor<'a> {
    plan: &'a Plan,
    spec: &'a RunSpec,
    rig: &'a Rig,
    files: &'a BTreeMap<u64, Dataset>,
    bar: &'a indicatif::ProgressBar,
    spawner: Spawner,
    preparer: Preparer,
    /// The warm file the last trial left as prepared, kept for the next.
    kept_warm: KeptWarm,
    rule: Option<Rule>,
    /// Every checksum so far, by the work it stands for.
    book: ChecksumBook,
    /// Names profile samples (kallsyms and debug information parsed once).
    namer: Option<Namer>,
    /// The last trial's throughput of each case, for the progress line.
    last_rate: BTreeMap<usize, f64>,
    /// The next sample's sequence number.
    sequence: u64,
    /// Whether another run in the same data directory was warned about.
    others_seen: bool,
}

impl<'a> Executor<'a> {
    /// An executor of `spec`'s plan with `rig`, whose files by size are
    /// `files`, going on from `resumed` (its checksums are checked, its
    /// sequence continued).
    pub fn new(
        spec: &'a RunSpec,
        rig: &'a Rig,
        files: &'a BTreeMap<u64, Dataset>,
        bar: &'a indicatif::ProgressBar,
        resumed: &RawResults,
    ) -> Result<Executor<'a>> {
        let plan = &spec.plan;
        let mut book = ChecksumBook::default();
        for sample in &resumed.samples {
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
        let sequence = resumed
            .samples
            .iter()
            .map(|s| s.sequence + 1)
            .max()
            .unwrap_or(0);
        Ok(Executor {
            plan,
            spec,
            rig,
            files,
            bar,
            spawner: Spawner {
                exe: rig.exe.clone(),
                timeout: spec.trial_timeout,
                stop: rig.stop.clone(),
            },
            preparer: Preparer {
                drop_caches: spec.drop_caches,
            },
            kept_warm: KeptWarm::default(),
            rule: spec.interference().threshold.map(Rule::with_threshold),
            book,
            namer: None,
            last_rate: BTreeMap::new(),
            sequence,
            others_seen: false,
        })
    }

    /// Runs `slot` (its `attempt`-th try) and returns what it came to;
    /// warnings it gives (a cache state not reached, another run beside
    /// it) are printed above the bar and pushed to `warnings`. An error is
    /// one from before the child ran (its file or cache could not be
    /// prepared).
    pub fn run(&mut self, slot: Slot, attempt: u32, warnings: &mut Vec<String>) -> Result<Outcome> {
        let (plan, files) = (self.plan, self.files);
        let case = &plan.cases[slot.case];
        // Drawn on the terminal outside the console: escaped here (a
        // group label holds a trace's file name).
        let last = self.last_rate.get(&slot.case).map(|&r| last_trial(r));
        let message = progress_message(case, last.as_deref());
        self.bar
            .set_message(crate::console::escape(&message, false).into_owned());
        let file = trial_file(
            case,
            slot.case,
            files,
            self.rig.scratch.as_deref(),
            &self.rig.file_sets,
        )?;
        let datasets = file.datasets();
        let dataset = &datasets[0];
        let prepared = self.prepare_cache(case, slot.run, datasets, warnings)?;
        // A case with a memory budget or a device rate runs its child alone
        // in cgroups of its own, removed when this trial ends (dropped).
        let cgroup = match TrialCgroup::for_case(case, file.path()) {
            Err(error) => {
                return Ok(Outcome::Fatal {
                    failure: None,
                    error,
                })
            }
            Ok(cgroup) => cgroup,
        };
        let ran = self.spawn(slot, case, file.path(), dataset.seed, cgroup.as_ref());
        drop(cgroup);
        if self.spawner.stop.load(Ordering::SeqCst) {
            return Ok(Outcome::Stopped);
        }
        let after = measure_residency(datasets)?;
        self.kept_warm.after_trial(
            &dataset.path,
            TrialTouch {
                state: case.cache,
                by: case.warm_by,
                // MADV_HUGEPAGE lets khugepaged collapse the file's pages
                // into huge ones afterwards: another layout than prepared.
                may_disturb: datasets.len() > 1
                    || case.writes_file()
                    || case.memory_budget.is_some()
                    || case.advice == Some(crate::method::Advice::Hugepage)
                    || ran.report.is_err(),
                all_resident_after: after.total_pages > 0
                    && after.resident_pages >= after.total_pages,
            },
        );
        self.watch_others(warnings, case, slot.run, &ran.seen);
        self.sequence += 1;
        let around = Around {
            prepared,
            after,
            interference: ran.interference,
        };
        Ok(match ran.report {
            Ok(report) => self.sampled(slot, attempt, &file, report, around),
            Err(reason) => self.failed(slot, attempt, reason),
        })
    }

    /// The files read are what they were when the run started.
    pub fn check_inputs(&self) -> Result<()> {
        for (path, then, times) in &self.rig.fingerprints {
            check_unchanged(path, then, *times)?;
        }
        Ok(())
    }

    /// Prepares `case`'s cache state on `datasets` (one file, or a set's
    /// files) and measures it. Something else (page reclaim, DAMON) may
    /// undo part of the preparation: it is topped up, at most [`TOP_UPS`]
    /// times, and a state still not reached is said.
    fn prepare_cache(
        &self,
        case: &Case,
        run: u32,
        datasets: &[Dataset],
        warnings: &mut Vec<String>,
    ) -> Result<Prepared> {
        let preparer = &self.preparer;
        let dataset = &datasets[0];
        let set = datasets.len() > 1;
        // The last trial left this file as this case wants it: start from
        // it if every page is still there (`KeptWarm`).
        if !set
            && self
                .kept_warm
                .may_keep(&dataset.path, case.cache, case.warm_by)
        {
            let before = measure_residency(datasets)?;
            if before.total_pages > 0 && before.resident_pages >= before.total_pages {
                return Ok(Prepared {
                    by: KeptWarm::label(case.warm_by),
                    before,
                    reached: true,
                });
            }
        }
        let mut by = if set {
            preparer.prepare_set(datasets, case.cache, case.warm_by)?
        } else {
            preparer.prepare(dataset, case.cache, case.warm_by)?
        };
        let mut before = measure_residency(datasets)?;
        for _ in 0..TOP_UPS {
            if reached(case.cache, before.fraction()) {
                break;
            }
            if set {
                // Prepared again, whole: a set's top-up is its preparation.
                preparer.prepare_set(datasets, case.cache, case.warm_by)?;
                by.push_str("+top-up");
            } else {
                by.push_str(&preparer.top_up(dataset, case.cache, case.warm_by)?);
            }
            before = measure_residency(datasets)?;
        }
        let reached = reached(case.cache, before.fraction());
        if !reached {
            let warning = format!(
                "{} ({}), run {}: {} cache not reached: {:.1}% resident before the trial",
                case.method_label(),
                case.group_label(),
                run,
                case.cache,
                before.fraction() * 100.0
            );
            self.bar.suspend(|| crate::console::warning(&warning));
            warnings.push(warning);
        }
        Ok(Prepared {
            by,
            before,
            reached,
        })
    }

    /// Spawns the child of `slot` (all its processes with `--procs`) inside
    /// the interference window: from just before the spawn to just after
    /// the reap (nothing runs between the probe and the spawn).
    fn spawn(
        &self,
        slot: Slot,
        case: &Case,
        path: &std::path::Path,
        content_seed: Option<u64>,
        cgroup: Option<&TrialCgroup>,
    ) -> Ran {
        let probe = self
            .rule
            .map(|_| Probe::new(path, self.rig.active_runs.clone()));
        let spec = TrialSpec {
            path: path.to_path_buf(),
            case: case.clone(),
            keep_output: self.spec.keep_output.clone(),
            cgroup_usage: cgroup.and_then(TrialCgroup::usage_file),
            content_seed,
            // A control trial is the same trial, unprofiled.
            profile: if slot.control {
                None
            } else {
                self.spec.profile
            },
        };
        let mut seen = if probe.is_none() {
            self.registered()
        } else {
            Vec::new()
        };
        let window_start = probe.as_ref().map(Probe::before);
        let report = match case.procs {
            Some(n) if n > 1 => crate::runner::procs::run_together(&self.spawner.exe, &spec, n),
            _ => spawn_trial(&self.spawner, &spec, cgroup, self.live_watch(case)),
        };
        let window_end = probe.as_ref().map(Probe::after);
        let interference = match (&window_start, &window_end, &self.rule) {
            (Some(start), Some(end), Some(rule)) => {
                let own_wait = report.as_ref().ok().and_then(|r| r.cpu_wait);
                Some(interference::measure(
                    start,
                    end,
                    rule,
                    trial_threads(case),
                    own_wait,
                ))
            }
            _ => None,
        };
        match (&window_start, &window_end) {
            (Some(start), Some(end)) => {
                seen.extend(start.other_runs.iter().chain(&end.other_runs).cloned())
            }
            _ => seen.extend(self.registered()),
        }
        Ran {
            report,
            interference,
            seen,
        }
    }

    /// What shows the running trial's rate on the progress line, when its
    /// case's bytes can be measured live ([`Counter::of`]); nothing when
    /// the bar is hidden (`--quiet`, not a terminal).
    fn live_watch(&self, case: &Case) -> Option<LiveWatch> {
        if self.bar.is_hidden() {
            return None;
        }
        let counter = Counter::of(case)?;
        let bar = self.bar.clone();
        let case = case.clone();
        Some(LiveWatch {
            rate: LiveRate::new(counter),
            show: Box::new(move |rate: &str| {
                let message = progress_message(&case, Some(rate));
                bar.set_message(crate::console::escape(&message, false).into_owned());
            }),
        })
    }

    /// The entry of a trial whose child reported: its profile named, its
    /// checksum checked against the other trials' (and a write's file read
    /// back); a warm-up is journalled with its outcome only.
    fn sampled(
        &mut self,
        slot: Slot,
        attempt: u32,
        file: &TrialFile,
        mut report: ChildReport,
        around: Around,
    ) -> Outcome {
        let case = &self.plan.cases[slot.case];
        let Around {
            prepared,
            after,
            mut interference,
        } = around;
        if report.continued {
            stopped_and_continued(&mut interference);
        }
        if report.wall_ns > 0 && report.bytes > 0 {
            let rate = report.bytes as f64 * 1e9 / report.wall_ns as f64;
            self.last_rate.insert(slot.case, rate);
        }
        if let Some(raw_profile) = report.raw_profile.take() {
            let namer = self.namer.get_or_insert_with(Namer::new);
            report.profile = Some(namer.name(&raw_profile));
        }
        let checked = self.book.check(case, report.checksum);
        if let Err(e) = checked.and_then(|()| file.verify(case, report.checksum)) {
            // Two methods disagree because the file changed under them:
            // say that, not "read gave X but mmap gave Y".
            let error = self.check_inputs().err().unwrap_or(e);
            return Outcome::Fatal {
                failure: None,
                error,
            };
        }
        if slot.warmup {
            return Outcome::Done(Entry::Warmup {
                case: slot.case,
                run: slot.run,
            });
        }
        Outcome::Done(Entry::Sample(Box::new(Sample {
            case: slot.case,
            run: slot.run,
            sequence: self.sequence - 1,
            total_ns: report.setup_ns + report.wall_ns + report.sync_ns + report.teardown_ns,
            child: report,
            residency_before: prepared.before.fraction(),
            residency_after: after.fraction(),
            residency_source: prepared.before.source.to_string(),
            cache_prepared_by: prepared.by,
            cache_reached: prepared.reached,
            interference,
            attempt,
            excluded: None,
            profile_control: slot.control,
        })))
    }

    /// The entry of a trial that produced no report: a failure, said above
    /// the bar; one that found the disk full stops the run.
    fn failed(&self, slot: Slot, attempt: u32, reason: String) -> Outcome {
        let case = &self.plan.cases[slot.case];
        let failure = TrialFailure {
            case: slot.case,
            run: slot.run,
            warmup: slot.warmup,
            reason: reason.clone(),
            attempt,
            profile_control: slot.control,
        };
        if is_disk_full(&reason) {
            let kept = self.rig.scratch.as_ref().is_some_and(|s| s.keep());
            let error = Error::Stopped(format!(
                "{} ({}), run {}: {reason}; the run stopped and {}",
                case.method_label(),
                case.group_label(),
                slot.run,
                if kept {
                    "kept its files (--keep)"
                } else {
                    "removed its files"
                }
            ));
            return Outcome::Fatal {
                failure: Some(failure),
                error,
            };
        }
        self.bar.suspend(|| {
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
        Outcome::Done(Entry::Failure(failure))
    }

    /// The runs in the registry now (without an interference probe, whose
    /// snapshots hold them).
    fn registered(&self) -> Vec<OtherRun> {
        self.rig
            .active_runs
            .as_ref()
            .and_then(|r| r.others().ok())
            .unwrap_or_default()
    }

    /// Another faultline run in the same data directory competes for the
    /// same CPUs, caches and device: said once, the first time it is seen,
    /// from the registry of runs that the interference record reads too.
    fn watch_others(
        &mut self,
        warnings: &mut Vec<String>,
        case: &Case,
        run: u32,
        seen: &[OtherRun],
    ) {
        let Some(registration) = &self.rig.active_runs else {
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
        if n > 0 && !std::mem::replace(&mut self.others_seen, true) {
            let warning = format!(
                "{n} other faultline run(s) were active in {} during this run's trials (first seen at {} ({}), run {run}); runs at the same time contaminate each other's numbers",
                registration
                    .data_dir()
                    .map_or_else(|| "its data directory".into(), |d| d.display().to_string()),
                case.method_label(),
                case.group_label(),
            );
            self.bar.suspend(|| crate::console::warning(&warning));
            warnings.push(warning);
        }
    }
}

/// How many threads or processes a trial of `case` runs at once.
fn trial_threads(case: &Case) -> u32 {
    case.threads.map_or(1, |t| t.count) * case.procs.unwrap_or(1)
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
    scratch: Option<&'a Scratch>,
    file_sets: &'a BTreeMap<crate::plan::FileSet, crate::files::file_set::GeneratedSet>,
) -> Result<TrialFile<'a>> {
    if let Some(set) = case.files {
        return file_sets
            .get(&set)
            .map(TrialFile::Set)
            .ok_or_else(|| Error::Plan(format!("no generated set of {set}")));
    }
    if case.writes_file() {
        let scratch = scratch.ok_or_else(|| {
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

/// The progress line's message for a trial of `case`: the method, a rate
/// (`rate`: the running trial's, [`super::live_rate::text`], or the
/// case's last trial's, [`last_trial`]) when there is one, and the group.
/// The group comes last: on a narrow terminal it is what the line cuts.
fn progress_message(case: &Case, rate: Option<&str>) -> String {
    match rate {
        Some(rate) => format!("{} · {rate} · {}", case.method_label(), case.group_label()),
        None => format!("{} · {}", case.method_label(), case.group_label()),
    }
}

/// `last trial 2.50 GiB/s`: the throughput the child measured in the
/// case's last trial.
fn last_trial(rate: f64) -> String {
    format!("last trial {}/s", crate::size::format_size(rate as u64))
}

/// The residency of a trial's files, summed over all of them (a set's
/// pages counted together: the fraction is of every page of the set).
fn measure_residency(datasets: &[Dataset]) -> Result<Residency> {
    let mut sum: Option<Residency> = None;
    for dataset in datasets {
        let file = File::open(&dataset.path).map_err(|e| Error::io("open", &dataset.path, e))?;
        let r = residency::measure(&file)
            .map_err(|e| Error::io("measure residency of", &dataset.path, e))?;
        sum = Some(match sum {
            None => r,
            Some(s) => Residency {
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
fn stopped_and_continued(record: &mut Option<Interference>) {
    let record = record.get_or_insert_with(Default::default);
    record.interfered = true;
    record.reasons.push(
        "the trial was stopped (Ctrl-Z or SIGSTOP) and continued while it ran: its times include the pause"
            .to_string(),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::method::MethodKind;

    #[test]
    fn the_progress_line_shows_the_last_trials_throughput() {
        let case = crate::fixtures::case(MethodKind::Read);
        let first = progress_message(&case, None);
        assert!(!first.contains("/s"), "{first}");
        let later = progress_message(&case, Some(&last_trial(2.5 * 1024.0 * 1024.0 * 1024.0)));
        assert_eq!(
            later,
            format!(
                "{} · last trial 2.50 GiB/s · {}",
                case.method_label(),
                case.group_label()
            )
        );
    }
}
