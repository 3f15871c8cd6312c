//! The parent side of trials: for each trial in the order policy's order,
//! prepare the cache state, measure residency, spawn the trial child and read
//! back its report. The runner computes no statistics.
//!
//! Three parts, in the shape of ripgrep's searcher and sink: the
//! [`scheduler`] decides which slot runs next (rounds, retries, precision
//! rounds, settling, resume; the pure slot arithmetic is in [`rounds`]);
//! the [`executor`] runs one slot and returns its entry (cache, residency,
//! interference window, the child through [`spawn`], checksums); and a
//! [`Sink`] takes every entry and answers whether more rounds run.
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
//! clock, with one [`crate::measure::profile::symbolize::Namer`] for the whole run (kallsyms and each binary's
//! debug information are parsed once), so that the sample it journals holds
//! names, not addresses that mean nothing after a reboot.
use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

pub mod cache;
pub mod cgroup;
pub mod checksums;
pub mod eta;
pub mod executor;
pub mod journal;
pub mod journal_kind;
pub mod live_rate;
pub mod procs;
pub mod progress;
pub mod rounds;
pub mod scheduler;
pub mod sink;
pub mod spawn;
pub mod spec;

pub use rounds::{schedule, with_controls};
pub use sink::{MoreRuns, Sink};
pub use spawn::trial_command;
pub use spec::RunSpec;

use crate::error::Result;
use crate::files::dataset::Dataset;
use crate::files::fingerprint::Fingerprint;
use crate::files::scratch::Scratch;
use crate::results::RawResults;

/// What the runner runs trials with besides the [`RunSpec`]: handles made
/// for this process (never journalled).
#[derive(Clone, Debug)]
pub struct Rig {
    /// The binary to re-execute for each trial (normally this one).
    pub exe: PathBuf,
    /// Set from a signal handler: stop before the next trial.
    pub stop: Arc<AtomicBool>,
    /// Where write methods write; `None` when the plan has no write case.
    pub scratch: Option<Arc<Scratch>>,
    /// This run's entry among the active faultline runs, with its data
    /// directory: the interference record counts the other runs, and a
    /// warning names those in the same data directory.
    pub active_runs: Option<Arc<crate::measure::active_runs::Registration>>,
    /// The files read, with their fingerprints when the run started,
    /// checked after every group; `true` for a user's file (whose times
    /// count too).
    pub fingerprints: Vec<(PathBuf, Fingerprint, bool)>,
    /// The file sets the plan's `--files` cases read, generated.
    pub file_sets: BTreeMap<crate::plan::FileSet, crate::files::file_set::GeneratedSet>,
}

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

/// Runs every trial of `spec`'s plan that `resume` has not already done,
/// through a [`scheduler::Scheduler`] and an [`executor::Executor`], into
/// `sink`. `files` maps a file size to its dataset.
pub fn run_trials(
    spec: &RunSpec,
    rig: &Rig,
    files: &BTreeMap<u64, Dataset>,
    bar: &indicatif::ProgressBar,
    resume: Resume,
    sink: &mut impl Sink,
) -> Result<RawResults> {
    let mut executor = executor::Executor::new(spec, rig, files, bar, &resume.raw)?;
    scheduler::Scheduler::new(spec, &rig.stop, bar, resume).run(&mut executor, sink)
}
