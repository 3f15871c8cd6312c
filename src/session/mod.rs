//! A session runs one plan from start to finish: it prepares the test files,
//! the scratch directory and the journal ([`Session::fresh`], or
//! [`Session::resume`] from a journal), runs every trial through the runner
//! with a progress bar, stops cleanly on Ctrl-C or SIGTERM, rewrites the
//! exports after every group, and hands back the results ([`Finished`]).
//!
//! `faultline run` and `faultline reproduce` both come here with a plan: the
//! run's from its flags ([`crate::plan::factors`]), a study's from its preset.
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use crate::error::{Context, Error, Result};
use crate::files::dataset::{self, Dataset};
use crate::files::scratch::Scratch;
use crate::measure::environment;
use crate::plan::Plan;
use crate::report::Exports;
use crate::results::{RawResults, Reproduction, RunResults};
use crate::runner::journal::Journal;
use crate::runner::{self, Rig};

pub mod dry_run;
mod estimate;
pub mod map;
mod setup;
mod sink;
mod timing;

pub use setup::planned_file_sizes;

/// Exit status of a run stopped by SIGINT or SIGTERM.
pub const EXIT_INTERRUPTED: u8 = 130;

/// A [`crate::analysis::settle_rule::SettleRule`], shared: the rule that, after
/// the planned runs, asks for more paired runs of some cases until it is
/// satisfied (a study's claims settled); given to a session with
/// [`Session::settled_by`]. It is behaviour, not a choice the journal keeps:
/// a preset gives it again when its run is resumed.
#[derive(Clone)]
pub struct Settle(pub Arc<dyn crate::analysis::settle_rule::SettleRule>);

impl std::fmt::Debug for Settle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Settle(..)")
    }
}

/// The plan and every run-wide choice; a session runs one.
pub use crate::runner::RunSpec;

/// A prepared run: its specification, files, scratch directory and journal.
pub struct Session {
    guard: setup::Guard,
    /// The plan and every run-wide choice, as journalled (with the
    /// choices given again laid over them on resume).
    spec: RunSpec,
    files: std::collections::BTreeMap<u64, Dataset>,
    journal: Journal,
    resume: runner::Resume,
    scratch: Option<Arc<Scratch>>,
    fingerprints: Vec<(PathBuf, crate::files::fingerprint::Fingerprint, bool)>,
    warnings: Vec<String>,
    /// The settling rule, if the run has one ([`Session::settled_by`]).
    settle: Option<Settle>,
}

/// The exports `spec` asks for.
pub fn exports_of(spec: &RunSpec) -> Exports {
    Exports {
        json: spec.export_json.clone(),
        csv: spec.export_csv.clone(),
        markdown: spec.export_markdown.clone(),
    }
}

/// What a session produced.
pub struct Finished {
    /// The results, as the exports hold them.
    pub results: RunResults,
    /// Whether a signal stopped the run before every trial ran.
    pub interrupted: bool,
    /// The journal the trials were recorded in.
    pub journal: PathBuf,
    /// The command that continues the run from its journal (the journal
    /// included, quoted for the shell).
    pub resume_command: String,
    /// Whether the journal was removed: the run completed and
    /// `--keep-journal` was not given.
    pub journal_removed: bool,
}

impl Session {
    /// Prepares a new run of `plan` with the choices of `spec` (built from
    /// the flags; its own plan is replaced): checks the plan against this
    /// machine, generates (or checks) the files it reads, prepares the
    /// scratch directory of its write cases and creates its journal, which
    /// stores the spec.
    pub fn fresh(plan: Plan, spec: &RunSpec) -> Result<Session> {
        install_signal_handlers()?;
        setup::fresh(plan, spec)
    }

    /// Prepares the rest of an interrupted run from its journal: the spec
    /// is the journal's with the choices `flags` gives again laid over it
    /// ([`RunSpec::resumed_with`]), and only the missing trials will run.
    pub fn resume(journal: &Path, flags: &RunSpec) -> Result<Session> {
        install_signal_handlers()?;
        setup::resumed(journal, flags)
    }

    /// Checks `plan` and `spec` as [`Session::fresh`] does before anything
    /// is generated or created, touching nothing: what `--dry-run` refuses
    /// is what the run would refuse.
    pub fn check(plan: &Plan, spec: &RunSpec) -> Result<()> {
        setup::check_fresh(plan, spec, &setup::journal_path(spec)).map(|_| ())
    }

    /// The files a fresh session of `plan` writes besides its journal, each
    /// with the flag that names it.
    pub fn written_files(plan: &Plan, spec: &RunSpec) -> Vec<(&'static str, PathBuf)> {
        let timelines = plan.cases.iter().any(|c| c.duration_s.is_some());
        setup::written_files(spec, &exports_of(spec), timelines)
    }

    /// This session with `rule` as its settling rule: once every group is
    /// done, rounds of the cases it names run until it names none.
    pub fn settled_by(mut self, rule: Settle) -> Session {
        self.settle = Some(rule);
        self
    }

    /// The plan this session runs.
    pub fn plan(&self) -> &Plan {
        &self.spec.plan
    }

    /// Runs every trial still to run, rewriting the exports after every
    /// group, and returns the results. A first SIGINT or SIGTERM stops
    /// after the running trial (which is stopped too); a second exits at once.
    pub fn run(self) -> Result<Finished> {
        let Session {
            guard,
            mut spec,
            files,
            mut journal,
            resume,
            scratch,
            fingerprints,
            warnings: setup_warnings,
            settle,
        } = self;
        let file_sets = setup::generate_file_sets(&spec.plan, &guard.dir)?;
        let (measured, generated) = match (files.values().next(), &scratch) {
            (Some(first), _) => (first.path.clone(), first.generated()),
            (None, _) if !file_sets.is_empty() => {
                let first = file_sets.values().next().expect("not empty");
                (first.dir.clone(), true)
            }
            (None, Some(s)) => (s.dir().to_path_buf(), true),
            (None, None) => return Err(Error::Plan("nothing to measure".into())),
        };
        // What continues this run after an interruption: a preset's run is
        // continued by `reproduce`, which gives the published tables and verdicts.
        let resume_command = match spec.command() {
            crate::runner::journal::JournalKind::Calibrate => {
                "faultline calibrate (a calibration starts again; it does not resume)".to_string()
            }
            _ => resume_command(spec.reproduction.as_ref(), journal.path()),
        };
        // The settings record the cache dropping asked for.
        let scratch_dir = scratch.as_ref().map(|s| s.dir().to_path_buf());
        let settings = spec.settings(&measured, generated, scratch_dir);
        let mut warnings = setup_warnings;
        let environment = machine_warnings(&mut spec, &measured, &mut warnings);
        install_signal_handlers()?;
        // A stopped run still writes its exports, whole.
        crate::system::finish_writes_on_stop();
        let stop = Arc::clone(crate::system::stop_flag());
        let rig = Rig {
            exe: own_exe()?,
            stop: Arc::clone(&stop),
            scratch: scratch.clone(),
            active_runs: register_run(&guard.dir, &mut warnings),
            fingerprints,
            file_sets,
        };
        let plan = &spec.plan;
        let exports = exports_of(&spec);
        let progress = progress_bar(plan.trials(), spec.quiet);
        // A study's run carries its claims' verdicts in every export.
        let study = settings
            .reproduction
            .as_ref()
            .and_then(|r| crate::studies::find(&r.preset));
        let assemble = |raw: &RawResults| {
            let mut raw = raw.clone();
            raw.warnings.splice(0..0, warnings.iter().cloned());
            let mut results = RunResults::assemble(
                plan,
                &raw,
                environment.clone(),
                settings.clone(),
                spec.command_line.clone(),
            );
            if let Some(preset) = &study {
                results.claims = crate::studies::judge_claims(preset.as_ref(), &results);
            }
            results
        };
        let mut kept = resume.done.len();
        let fresh = resume.done.is_empty();
        let mut sink = sink::SessionSink {
            journal: &mut journal,
            kept: &mut kept,
            exports: &exports,
            progress: &progress,
            assemble: &assemble,
            export_warned: false,
            started: std::time::Instant::now(),
            rounds: sink::Rounds {
                plan,
                precision: spec.statistics_or_default().precision,
                exclude: spec.interference().exclude,
                settle: settle.as_ref(),
            },
        };
        let outcome = runner::run_trials(&spec, &rig, &files, &progress, resume, &mut sink);
        let trials_s = sink.started.elapsed().as_secs_f64();
        progress.finish_and_clear();
        // Every exit once trials have run says where they are kept and how
        // to go on: the journal and the exact command, quoted for the shell.
        let after_trials = |e: Error| Error::AfterTrials {
            cause: Box::new(e),
            journal: journal.path().to_path_buf(),
            kept,
            resume: resume_command.clone(),
        };
        let raw = outcome.map_err(after_trials)?;
        let results = assemble(&raw);
        timing::record_run(&guard.dir, &spec, &raw, (trials_s, fresh), &results);
        exports
            .write_all(&results)
            .context("writing the exports")
            .map_err(after_trials)?;
        print_interference(&results);
        setup::finish_scratch(scratch.as_deref());
        let journal_path = journal.path().to_path_buf();
        // A complete run's journal holds nothing its results do not: it goes,
        // unless asked to stay. An interrupted run keeps it for --resume.
        let journal_removed = raw.complete && !spec.keep_journal && remove_journal(journal);
        Ok(Finished {
            interrupted: stop.load(Ordering::SeqCst) && !raw.complete,
            results,
            journal: journal_path,
            resume_command,
            journal_removed,
        })
    }
}

/// Removes a complete run's journal; a failure is a warning.
fn remove_journal(journal: Journal) -> bool {
    match journal.remove() {
        Ok(()) => true,
        Err(e) => {
            crate::console::warning(&e.to_string());
            false
        }
    }
}

/// Says, before the first trial, what on this machine bends the numbers,
/// each warning printed and pushed to `warnings`: `--drop-caches` without
/// root (which falls back to evicting the file: `spec` is changed so), a
/// running DAMON, and the plan's own notes. Returns the environment, as
/// captured now for the results.
fn machine_warnings(
    spec: &mut RunSpec,
    measured: &Path,
    warnings: &mut Vec<String>,
) -> environment::Environment {
    let mut warn = |w: String| {
        crate::console::warning(&w);
        warnings.push(w);
    };
    if spec.drop_caches && crate::system::current_uid() != 0 {
        warn("--drop-caches needs root; falling back to evicting the file with posix_fadvise(DONTNEED)".to_string());
        spec.drop_caches = false;
    }
    let environment = environment::capture(Some(measured));
    if let Some(n @ 1..) = environment.damon_kdamonds_running {
        warn(format!(
            "{n} DAMON kdamond(s) running: they may reclaim idle page-cache pages between \
             and during trials (faultline tops a warm cache up before each trial and \
             records residency before and after it). For steadier warm numbers, stop them \
             for the run as root: `echo off > /sys/kernel/mm/damon/admin/kdamonds/N/state` \
             (or `damo stop`; DAMON_RECLAIM: `echo N > \
             /sys/module/damon_reclaim/parameters/enabled`)"
        ));
    }
    for w in crate::plan::notes::warnings(&spec.plan) {
        warn(w);
    }
    environment
}

/// The running program itself, through /proc/self/exe: a binary replaced
/// or removed under a long run (an upgrade) does not change what the
/// remaining trials run.
fn own_exe() -> Result<PathBuf> {
    let own = Path::new("/proc/self/exe");
    if own.exists() {
        return Ok(own.to_path_buf());
    }
    std::env::current_exe()
        .map_err(|e| Error::Trial(format!("finding faultline's own binary: {e}")))
}

/// The run's progress bar over `trials`, hidden with `--quiet`. Its
/// message (the method, a rate, the group) is cut to what the terminal's
/// width leaves after the bar and the counts (`wide_msg`), so the line
/// never wraps.
fn progress_bar(trials: u64, quiet: bool) -> indicatif::ProgressBar {
    let progress = indicatif::ProgressBar::with_draw_target(
        Some(trials),
        if quiet {
            indicatif::ProgressDrawTarget::hidden()
        } else {
            indicatif::ProgressDrawTarget::stderr()
        },
    );
    progress.set_style(
        indicatif::ProgressStyle::with_template("{bar:20} {prefix}  {wide_msg}")
            .expect("valid template"),
    );
    progress
}

/// Prints, once the trials are done, one interference warning with the
/// cases it concerns as a table, and what `--exclude-interfered` left out
/// (the exports hold them too).
fn print_interference(results: &RunResults) {
    use crate::analysis::interference::exclusion_note;
    let mut tallies = Vec::new();
    let mut rows = Vec::new();
    let mut advise = false;
    for case in &results.cases {
        let Some(tally) = &case.interference else {
            continue;
        };
        if let Some(row) = tally.row(&case.label, &case.case.group_label()) {
            rows.push(row);
            advise |= tally.interfered_in_the_end > 0;
        }
        tallies.push(tally.clone());
    }
    if !rows.is_empty() {
        let advice = if advise {
            ": quiet the machine (stop other jobs), or use --retry-interfered N \
             (or --exclude-interfered)"
        } else {
            ""
        };
        crate::console::warning_table(
            &format!("trials interfered (the machine did other work during them){advice}"),
            &["case", "interfered", "most often"],
            &rows,
        );
    }
    let exclude = results.settings.interference.is_some_and(|i| i.exclude);
    if let Some(note) = exclusion_note(&tallies, exclude) {
        crate::console::note(&note);
    }
}

/// This run's entry among the active faultline runs, with its data
/// directory `dir`: the one record from which trials see the other runs,
/// on the machine (the interference record) and in the same data directory
/// (a warning). A warning when it cannot be made.
fn register_run(
    dir: &Path,
    warnings: &mut Vec<String>,
) -> Option<Arc<crate::measure::active_runs::Registration>> {
    match crate::measure::interference::Probe::register_default(Some(dir)) {
        Ok(registration) => Some(registration),
        Err(w) => {
            crate::console::warning(&w);
            warnings.push(w);
            None
        }
    }
}

/// The signals that stop a run cleanly: Ctrl-C (SIGINT), SIGTERM, a closed
/// terminal or ssh session (SIGHUP), Ctrl-\\ (SIGQUIT), and every other
/// signal whose default action ends the process (SIGUSR1, SIGUSR2, SIGALRM,
/// SIGVTALRM, SIGPROF, SIGXCPU at a CPU-time limit, SIGPWR, SIGSTKFLT),
/// which would otherwise end faultline without its journal's resume
/// command (SIGQUIT and SIGXCPU with a core dump). SIGPIPE is ignored (a
/// closed stream ends quietly, see `console`), SIGXFSZ too (a write past
/// RLIMIT_FSIZE is an error, reported); SIGKILL cannot be caught.
pub const STOP_SIGNALS: [i32; 12] = [
    signal_hook::consts::SIGINT,
    signal_hook::consts::SIGTERM,
    signal_hook::consts::SIGHUP,
    signal_hook::consts::SIGQUIT,
    signal_hook::consts::SIGUSR1,
    signal_hook::consts::SIGUSR2,
    signal_hook::consts::SIGALRM,
    signal_hook::consts::SIGVTALRM,
    signal_hook::consts::SIGPROF,
    signal_hook::consts::SIGXCPU,
    libc::SIGPWR,
    libc::SIGSTKFLT,
];

/// Makes SIGINT, SIGTERM, SIGHUP, SIGQUIT and the others of [`STOP_SIGNALS`] set [`crate::system::stop_flag`] (once per
/// process): the running trial is stopped, or the test file being generated
/// is abandoned and its temporary file removed. A second signal while
/// stopping exits at once with [`EXIT_INTERRUPTED`].
pub fn install_signal_handlers() -> Result<()> {
    static INSTALLED: std::sync::OnceLock<std::result::Result<(), String>> =
        std::sync::OnceLock::new();
    INSTALLED
        .get_or_init(|| {
            let stop = crate::system::stop_flag();
            for signal in STOP_SIGNALS {
                signal_hook::flag::register_conditional_shutdown(
                    signal,
                    i32::from(EXIT_INTERRUPTED),
                    Arc::clone(stop),
                )
                .and_then(|_| signal_hook::flag::register(signal, Arc::clone(stop)))
                .map_err(|e| e.to_string())?;
            }
            Ok(())
        })
        .clone()
        .map_err(|e| Error::Trial(format!("installing a signal handler: {e}")))
}

/// The command that continues a run from `journal`, quoted for the shell
/// (a path with spaces or quotes pastes and works; one that is not UTF-8
/// is written as bash's `$'...'`). A preset's run is continued by
/// `reproduce`, which gives the published tables and verdicts.
pub fn resume_command(reproduction: Option<&Reproduction>, journal: &Path) -> String {
    let start = match reproduction {
        Some(r) if r.faithful => format!("faultline reproduce {} --faithful --resume", r.preset),
        Some(r) => format!("faultline reproduce {} --resume", r.preset),
        None => "faultline run --resume".to_string(),
    };
    format!("{start} {}", shell_quote(journal))
}

/// `path` as one shell word.
pub fn shell_quote(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    if let Some(text) = path.to_str() {
        if let Ok(quoted) = shlex::try_quote(text) {
            return quoted.into_owned();
        }
    }
    // Not UTF-8 (or holding a NUL, which no path does): bash's ANSI-C quoting.
    let mut out = String::from("$'");
    for &b in path.as_os_str().as_bytes() {
        match b {
            b'\'' | b'\\' => {
                out.push('\\');
                out.push(b as char);
            }
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    out.push('\'');
    out
}

/// The data directory: the one given, else `$XDG_CACHE_HOME/faultline`.
pub fn data_dir(given: Option<PathBuf>) -> PathBuf {
    given.unwrap_or_else(dataset::default_data_dir)
}
